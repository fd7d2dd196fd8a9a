// Summing an array of doubles on the GPU: wrong, slow and fast.
// check: every kernel has %nctaid.x
// check: sum_racy lacks atom.
// check: sum_atomic_per_thread has atom.global.add.f64
// check: sum_atomic_per_thread lacks bar.sync
// check: sum_block_tree has bar.sync
// check: sum_block_tree has st.shared.f64
// check: sum_block_tree has atom.global.add.f64
// launch sum_*: n = len(xs); len(total) >= 1; n + 4 * threads.x <= 2147483647
// launch sum_block_tree: block.x = THREADS_PER_BLOCK; block = THREADS_PER_BLOCK

// ANCHOR: partial
// One thread's share of the sum: elements i, i + stride, i + 2·stride, ... of a grid-stride
// loop. Four loads are issued before their values are needed, so each thread keeps four
// requests in flight to memory instead of one. (Indices stay below 2^31 for n up to 2·10^8.)
__device__ double thread_partial_sum(const double *xs, int n)
{
    int stride = gridDim.x * blockDim.x;
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    double partial = 0.0;
    for (; i + 3 * stride < n; i += 4 * stride) {
        double a = xs[i], b = xs[i + stride], c = xs[i + 2 * stride], d = xs[i + 3 * stride];
        partial += (a + b) + (c + d);
    }
    for (; i < n; i += stride) {
        partial += xs[i];
    }
    return partial;
}
// ANCHOR_END: partial

// ANCHOR: racy
// Each thread adds its partial sum to the total with a plain read-add-write. Between one
// thread's read and its write, other threads write their own sums, which this thread's
// write then erases.
extern "C" __global__ void sum_racy(const double *xs, double *total, int n)
{
    double partial = thread_partial_sum(xs, n);
    *total += partial;
}
// ANCHOR_END: racy

// ANCHOR: atomic
// The same, with the read-add-write done as one indivisible operation: correct, but every
// thread of the grid queues up on the same eight bytes.
extern "C" __global__ void sum_atomic_per_thread(const double *xs, double *total, int n)
{
    double partial = thread_partial_sum(xs, n);
    atomicAdd(total, partial);
}
// ANCHOR_END: atomic

// ANCHOR: tree
#define THREADS_PER_BLOCK 256

// The threads of a block first combine their sums in shared memory, halving the number of
// values at each step; then one thread per block makes the atomic addition.
// Launch it with exactly THREADS_PER_BLOCK threads per block: __launch_bounds__ tells the
// compiler so, and lets the host read the number back to check its launch.
extern "C" __global__ void __launch_bounds__(THREADS_PER_BLOCK)
    sum_block_tree(const double *xs, double *total, int n)
{
    __shared__ double partials[THREADS_PER_BLOCK];

    double partial = thread_partial_sum(xs, n);
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
