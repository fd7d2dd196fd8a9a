// A general histogram in the manner of a library's bincount: it accepts any unsigned integers,
// finds out how many bins it needs, and counts with global atomics, since nothing says that
// the bins would fit in shared memory. Written once, as a template; each input type it serves
// is one line at the end.
// check: bincount_largest_u8 has atom.global.max.u32
// check: bincount_largest_u8 has bar.sync
// check: bincount_count_u8 has atom.global.add.u32
// check: bincount_count_u8 lacks atom.shared
// launch bincount_largest_u8: n = len(v); len(r) >= 1; block = block.x = THREADS

// ANCHOR: bincount
#define THREADS 256

// The largest value. Each thread keeps the largest it has seen, the block combines its
// threads' values pairwise in shared memory, and thread 0 offers the block's largest to
// *result with atomicMax. *result must start at 0, and a block must have THREADS threads.
template <typename T>
__device__ void largest(const T *values, int n, unsigned *result)
{
    __shared__ unsigned s[THREADS];
    // 64-bit indices: for n near 2^31, i + stride would overflow an int.
    long long first = blockIdx.x * blockDim.x + threadIdx.x;
    long long stride = gridDim.x * blockDim.x;
    unsigned m = 0;
    for (long long i = first; i < n; i += stride) {
        m = max(m, (unsigned)values[i]);
    }
    s[threadIdx.x] = m;
    __syncthreads();
    for (int stride = THREADS / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) {
            s[threadIdx.x] = max(s[threadIdx.x], s[threadIdx.x + stride]);
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) {
        atomicMax(result, s[0]);
    }
}

// One global atomic per value, into bins sized from the largest value.
template <typename T>
__device__ void count(const T *values, int n, unsigned *bins)
{
    long long first = blockIdx.x * blockDim.x + threadIdx.x;
    long long stride = gridDim.x * blockDim.x;
    for (long long i = first; i < n; i += stride) {
        atomicAdd(&bins[values[i]], 1u);
    }
}

extern "C" __global__ void __launch_bounds__(THREADS)
bincount_largest_u8(const unsigned char *v, int n, unsigned *r) { largest(v, n, r); }
extern "C" __global__ void bincount_count_u8(const unsigned char *v, int n, unsigned *b) { count(v, n, b); }
// ANCHOR_END: bincount
