// The C++ that the course's kernels use, one small kernel for each idea of the page
// "The CUDA C++ you need". crates/examples/ch04/cpp_tour.rs launches each one and checks it.
// The PTX shows: no double anywhere; each square as one multiply of two 32-bit ints into 64 bits;
// each float2 read in one load, and x*x + y*y fused into one multiply-add; the helper inlined
// (no call); block_sums's halving loop written out (t compared with the constant 127, as
// `#pragma unroll 1` would prevent); its shared array declared in the kernel, the dynamic one
// outside every kernel.
// check: every kernel lacks .f64
// check: square_wide has mul.wide.s32
// check: square_wide lacks mul.lo.s32
// check: lengths has ld.global.v2.f32
// check: lengths has fma.rn.f32
// check: lengths has sqrt.rn.f32
// check: lengths lacks call
// check: twice_float has add.f32
// check: block_sums has .maxntid 256
// check: block_sums has bar.sync
// check: block_sums has .shared .align
// check: block_sums has , 127;
// check: block_sums_dynamic has bar.sync
// check: block_sums_dynamic lacks .shared .align
// check: block_sums_dynamic lacks , 127;
// launch square_wide: n = len(xs) = len(squares); threads.x >= n
// launch lengths: n = len(points) = len(out); threads.x >= n; threads.x <= 2147483648
// launch twice_*: n = len(xs) = len(ys); threads.x >= n; threads.x <= 2147483648
// launch block_sums: block = block.x = BLOCK; threads.x = len(xs); grid.x = len(sums)
// launch block_sums: threads.x <= 4294967296
// launch block_sums_dynamic: shared >= block.x * 4; block = block.x; grid.x = len(sums)
// launch block_sums_dynamic: threads.x = len(xs); threads.x <= 4294967296

// ANCHOR: square_wide
// Squares of 32-bit integers, kept in 64 bits.
extern "C" __global__ void square_wide(const int *xs, long long *squares, long long n)
{
    // blockIdx.x and blockDim.x are unsigned 32-bit numbers: widen one before multiplying.
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        long long x = xs[i];  // int to long long, converted without a word
        squares[i] = x * x;   // xs[i] * xs[i] would multiply two ints, and overflow
    }
}
// ANCHOR_END: square_wide

// ANCHOR: helper
// A function that kernels call on the GPU. The host cannot launch it.
__device__ __forceinline__ float length_of(float2 p)
{
    return sqrtf(p.x * p.x + p.y * p.y);
}
// ANCHOR_END: helper

// ANCHOR: lengths
// The length of each point (x, y): reads points, writes out.
extern "C" __global__ void lengths(const float2 *points, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = length_of(points[i]);
    }
}
// ANCHOR_END: lengths

// ANCHOR: template
// One body for any element type T that has a +.
template <typename T>
__device__ void twice_body(const T *xs, T *ys, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        ys[i] = xs[i] + xs[i];
    }
}
// ANCHOR_END: template

// ANCHOR: macro
// TWICE(int) writes a kernel named twice_int that runs twice_body for int. The backslashes
// continue the macro on the next line; ## glues twice_ and the type into one name.
#define TWICE(T)                                                                                   \
    extern "C" __global__ void twice_##T(const T *xs, T *ys, int n)                                \
    {                                                                                              \
        twice_body<T>(xs, ys, n);                                                                  \
    }

TWICE(int)
TWICE(float)
// ANCHOR_END: macro

// ANCHOR: block_sums
#define BLOCK 256

// Each block adds up its BLOCK values in shared memory, halving the number of partial sums at
// every step. unsigned additions wrap around at 2^32, with no error.
extern "C" __global__ void __launch_bounds__(BLOCK) block_sums(const unsigned *xs, unsigned *sums)
{
    __shared__ unsigned partial[BLOCK];  // one array per block, shared by its threads
    unsigned t = threadIdx.x;
    partial[t] = xs[blockIdx.x * BLOCK + t];
    __syncthreads();  // every thread's value is in place
#pragma unroll
    for (unsigned half = BLOCK / 2; half > 0; half /= 2) {
        if (t < half) {
            partial[t] += partial[t + half];
        }
        __syncthreads();  // this step's sums are in place before the next step reads them
    }
    if (t == 0) {
        sums[blockIdx.x] = partial[0];
    }
}
// ANCHOR_END: block_sums

// The same with the block's size chosen at launch (a power of two).
// ANCHOR: block_sums_dynamic
extern "C" __global__ void block_sums_dynamic(const unsigned *xs, unsigned *sums)
{
    extern __shared__ unsigned partial[];  // no size: the launch gives it in bytes
    unsigned t = threadIdx.x;
    partial[t] = xs[blockIdx.x * blockDim.x + t];
    // ANCHOR_END: block_sums_dynamic
    // ANCHOR: block_sums_dynamic_rest
    __syncthreads();
    for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
        if (t < half) {
            partial[t] += partial[t + half];
        }
        __syncthreads();
    }
    if (t == 0) {
        sums[blockIdx.x] = partial[0];
    }
}
// ANCHOR_END: block_sums_dynamic_rest
