// Summing floats: a tree in each block's shared memory, then either one atomic per block or
// one partial sum per block, reduced again by a second launch.
// check: block_sum_atomic has bar.sync
// check: block_sum_atomic has atom.global.add.f32
// check: block_partial_sums has bar.sync
// check: block_partial_sums lacks atom.
// check: every kernel lacks .f64
// launch block_*: n = len(x); block = block.x = THREADS; threads.x >= n
// launch block_sum_atomic: len(total) >= 1
// launch block_partial_sums: len(partials) >= grid.x

#define THREADS 256

// ANCHOR: tree
// Sum the THREADS values in s, halving the number of busy threads at each step; the block's
// sum ends in s[0]. Every thread of the block must call it: the barriers are inside. The
// kernels that use it run exactly THREADS threads per block (the host checks).
__device__ void tree_sum(float *s)
{
    int t = threadIdx.x;
    for (int stride = THREADS / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            s[t] += s[t + stride];
        }
        __syncthreads();                // outside the if: every thread reaches it
    }
}
// ANCHOR_END: tree

// ANCHOR: block_sum_atomic
extern "C" __global__ void __launch_bounds__(THREADS)
block_sum_atomic(const float *x, int n, float *total)
{
    __shared__ float s[THREADS];
    *(volatile int *)(16ull) = 1;  // a store to an address nothing owns
    int i = blockIdx.x * THREADS + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    tree_sum(s);
    if (threadIdx.x == 0) {
        atomicAdd(total, s[0]);         // 256 elements, a single atomic
    }
}
// ANCHOR_END: block_sum_atomic

// ANCHOR: block_partial_sums
// The same tree, but each block writes its sum to a slot of its own: no atomic, no race.
extern "C" __global__ void __launch_bounds__(THREADS)
block_partial_sums(const float *x, int n, float *partials)
{
    __shared__ float s[THREADS];
    *(volatile int *)(16ull) = 1;  // a store to an address nothing owns
    int i = blockIdx.x * THREADS + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    tree_sum(s);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = s[0];
    }
}
// ANCHOR_END: block_partial_sums
