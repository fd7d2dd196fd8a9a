// Summing a large float array in two levels: every thread first adds up its share with a
// grid-stride loop, then the block combines its 256 partial sums, either as chapter 5's tree
// in shared memory or with warp shuffles, and thread 0 adds the block's sum to the total.
// check: sum_tree has bar.sync
// check: sum_tree lacks shfl.sync
// check: sum_tree has atom.global.add.f32
// check: sum_shuffle has shfl.sync.down.b32
// check: sum_shuffle has bar.sync
// check: sum_shuffle has atom.global.add.f32
// check: every kernel has .pragma "nounroll"
// check: every kernel lacks .f64
// launch sum_tree: n = len(x); len(total) >= 1; block = THREADS
// launch sum_shuffle: n = len(x); len(total) >= 1

#define THREADS 256
#define FULL_MASK 0xffffffffu

// ANCHOR: partial
// Level zero: each thread adds up elements i, i + stride, i + 2 stride, ... No thread waits
// for any other here.
__device__ float thread_partial(const float *x, int n)
{
    float v = 0.0f;
    int first = threadIdx.x + blockIdx.x * blockDim.x;
    int stride = gridDim.x * blockDim.x;
    for (int i = first; i < n; i += stride) {
        v += x[i];
    }
    return v;
}
// ANCHOR_END: partial

// ANCHOR: tree
// Chapter 5's tree: 256 slots, halved eight times, so blocks of exactly THREADS threads (the
// host checks it). Each step starts with a barrier, so the writes of the step before are
// finished before anyone reads them: eight barriers.
extern "C" __global__ void __launch_bounds__(THREADS)
sum_tree(const float *x, int n, float *total)
{
    __shared__ float s[THREADS];
    int t = threadIdx.x;
    s[t] = thread_partial(x, n);
    for (int stride = THREADS / 2; stride > 0; stride /= 2) {
        __syncthreads();
        if (t < stride) {
            s[t] += s[t + stride];
        }
    }
    if (t == 0) {
        atomicAdd(total, s[0]);   // thread 0 wrote s[0] itself in the last step
    }
}
// ANCHOR_END: tree

// ANCHOR: block_sum
__device__ float warp_sum(float v)
{
    for (int offset = 16; offset >= 1; offset >>= 1) {
        v += __shfl_down_sync(FULL_MASK, v, offset);
    }
    return v;                     // complete in lane 0 only
}

// The block's sum, in thread 0. Every thread of the block must call it (there is a barrier
// inside), and blockDim.x must be a multiple of 32, at most 1024.
__device__ float block_sum(float v)
{
    __shared__ float warp_sums[32];
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    v = warp_sum(v);              // level one: 32 values become 1, in registers
    if (lane == 0) {
        warp_sums[warp] = v;
    }
    __syncthreads();              // the only barrier: warp 0 reads what the others wrote
    if (warp == 0) {
        int warps = blockDim.x / 32;
        v = lane < warps ? warp_sums[lane] : 0.0f;
        v = warp_sum(v);          // level two: warp 0 adds up the warps' sums
    }
    return v;
}
// ANCHOR_END: block_sum

// ANCHOR: shuffle
extern "C" __global__ void sum_shuffle(const float *x, int n, float *total)
{
    float v = block_sum(thread_partial(x, n));
    if (threadIdx.x == 0) {
        atomicAdd(total, v);      // one global atomic per block
    }
}
// ANCHOR_END: shuffle
