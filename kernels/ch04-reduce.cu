// Summing an array of doubles on the GPU: wrong, slow and fast.
// check: PTX has .entry sum_racy
// check: PTX has .entry sum_atomic_per_thread
// check: PTX has .entry sum_block_tree
// check: PTX has atom.global.add.f64
// check: PTX has bar.sync
// check: PTX has .shared

// ANCHOR: racy
// Each thread sums its share of xs, then adds it to the total with a plain read-add-write.
// Between one thread's read and its write, other threads write their own sums, which
// this thread's write then erases.
extern "C" __global__ void sum_racy(const double *xs, double *total, int n)
{
    double partial = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        partial += xs[i];
    }
    *total += partial;
}
// ANCHOR_END: racy

// ANCHOR: atomic
// The same, with the read-add-write done as one indivisible operation: correct, but every
// thread of the grid queues up on the same eight bytes.
extern "C" __global__ void sum_atomic_per_thread(const double *xs, double *total, int n)
{
    double partial = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        partial += xs[i];
    }
    atomicAdd(total, partial);
}
// ANCHOR_END: atomic

// ANCHOR: tree
#define THREADS_PER_BLOCK 256

// The threads of a block first combine their sums in shared memory, halving the number of
// values at each step; then one thread per block makes the atomic addition.
// Launch it with exactly THREADS_PER_BLOCK threads per block.
extern "C" __global__ void sum_block_tree(const double *xs, double *total, int n)
{
    __shared__ double partials[THREADS_PER_BLOCK];

    double partial = 0.0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        partial += xs[i];
    }
    int t = threadIdx.x; // the thread's place in its block, not in the grid
    partials[t] = partial;

    for (int half = THREADS_PER_BLOCK / 2; half > 0; half /= 2) {
        __syncthreads(); // every write of the last step is done before anyone reads
        if (t < half) {
            partials[t] += partials[t + half];
        }
    }
    if (t == 0) {
        atomicAdd(total, partials[0]);
    }
}
// ANCHOR_END: tree
