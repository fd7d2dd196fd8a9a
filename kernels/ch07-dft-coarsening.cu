// Chapter 7's thread coarsening, on chapter 4's DFT: X[k] = sum over j of x[j]·exp(-2πi·k·j/N)
// in float, each thread computing F outputs. The program compiles this file without
// --use_fast_math: the kernels ask for the hardware's sine and cosine by name (__sincosf).
// Inside the loop over j the only special-function work is that one __sincosf; the phase
// is advanced with additions, so no integer is converted to a float there (the conversions of
// k and N happen once per thread, before the loop, so the PTX does hold a few).
// check: every kernel lacks .f64
// check: every kernel lacks .local
// check: dft_coarse_1 has sin.approx.f32
// check: dft_coarse_1 has cos.approx.f32
// check: dft_coarse_1 has explicit fma.rn.f32
// check: dft_coarse_2 has sin.approx.f32
// check: dft_coarse_2 has cos.approx.f32
// check: dft_coarse_2 has explicit fma.rn.f32
// check: dft_coarse_3 has sin.approx.f32
// check: dft_coarse_3 has cos.approx.f32
// check: dft_coarse_3 has explicit fma.rn.f32
// check: dft_coarse_4 has sin.approx.f32
// check: dft_coarse_4 has cos.approx.f32
// check: dft_coarse_4 has explicit fma.rn.f32
// check: dft_coarse_6 has sin.approx.f32
// check: dft_coarse_6 has cos.approx.f32
// check: dft_coarse_6 has explicit fma.rn.f32
// check: dft_coarse_8 has sin.approx.f32
// check: dft_coarse_8 has cos.approx.f32
// check: dft_coarse_8 has explicit fma.rn.f32
// check: dft_pairs has sin.approx.f32
// check: dft_pairs has cos.approx.f32
// check: dft_pairs has explicit fma.rn.f32
// check: dft_sum_parts lacks sin.approx.f32
// launch dft_coarse_*: n = len(xs) = len(out); threads * 8 <= 2147483648; n + CHUNK <= 2147483648
// launch dft_pairs: n = len(xs); len(partial) >= grid.y * n; threads.x >= n / 2 + 1
// launch dft_pairs: n >= 1
// launch dft_sum_parts: n = len(out); len(partial) >= parts * n; threads >= n

#define TWO_PI_F 6.28318530717958648f
// Terms per partial sum. One float sum of all N terms would lose about sqrt(N/24)·2^-23 of its
// size to rounding (9e-6 at N = 131072, chapter 4's result); partial sums of CHUNK terms,
// added to the total after each chunk, lose about sqrt(CHUNK/24) + sqrt(N/CHUNK/24) of that.
#define CHUNK 512
#define THREADS 128

// ANCHOR: coarse
// Thread t computes X[k] for k = t, t + stride, ..., t + (F-1)·stride, where stride is the
// number of threads in the grid: a warp's outputs stay side by side, so its writes coalesce.
// Every x[j] the thread reads serves its F outputs, and so does the loop's own bookkeeping.
//
// Each output keeps its phase p = (k·j) mod N as a whole number in a float, in [-N/2, N/2):
// adding k and taking N off once it reaches N/2 keeps it there exactly (whole numbers below
// 2^24 are exact in a float), and (-2π/N)·p is an angle in [-π, π], where the fast sine is
// accurate. Per (k, j) pair that is an add, a compare and a conditional subtract, a multiply,
// the sine and cosine, and four FMAs: no division and no conversion from int.
template <int F>
__device__ void dft_coarse_body(const float2 *xs, float2 *out, int n)
{
    const int first = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
    const float nf = n, half = 0.5f * nf;
    const float step = -TWO_PI_F / nf;
    float k[F], phase[F];
    float2 sum[F];
#pragma unroll
    for (int i = 0; i < F; ++i) {
        int ki = first + i * stride;
        k[i] = ki < n ? ki : 0; // an output past the end computes X[0] and is not written
        phase[i] = 0.0f;
        sum[i] = make_float2(0.0f, 0.0f);
    }
    for (int start = 0; start < n; start += CHUNK) {
        const int end = min(start + CHUNK, n);
        float2 part[F];
#pragma unroll
        for (int i = 0; i < F; ++i) {
            part[i] = make_float2(0.0f, 0.0f);
        }
        for (int j = start; j < end; ++j) {
            const float2 x = xs[j]; // the same address for every thread: one broadcast read
#pragma unroll
            for (int i = 0; i < F; ++i) {
                float s, c;
                __sincosf(step * phase[i], &s, &c);
                // x·(c + i·s), four FMAs into the partial sum
                part[i].x = __fmaf_rn(x.x, c, part[i].x);
                part[i].x = __fmaf_rn(-x.y, s, part[i].x);
                part[i].y = __fmaf_rn(x.x, s, part[i].y);
                part[i].y = __fmaf_rn(x.y, c, part[i].y);
                phase[i] += k[i];
                if (phase[i] >= half) {
                    phase[i] -= nf;
                }
            }
        }
#pragma unroll
        for (int i = 0; i < F; ++i) {
            sum[i].x += part[i].x;
            sum[i].y += part[i].y;
        }
    }
#pragma unroll
    for (int i = 0; i < F; ++i) {
        int ki = first + i * stride;
        if (ki < n) {
            out[ki] = sum[i];
        }
    }
}
// ANCHOR_END: coarse

// ANCHOR: instances
// One kernel per coarsening factor F, named dft_coarse_F, each for blocks of THREADS threads:
// F must be known when the kernel is compiled, so that the loops over i unroll and k[F],
// phase[F], sum[F] and part[F] live in registers.
#define COARSE(F)                                                                                  \
    extern "C" __global__ void __launch_bounds__(THREADS)                                          \
    dft_coarse_##F(const float2 *xs, float2 *out, int n)                                           \
    {                                                                                              \
        dft_coarse_body<F>(xs, out, n);                                                            \
    }
COARSE(1)
COARSE(2)
COARSE(3)
COARSE(4)
COARSE(6)
COARSE(8)
// ANCHOR_END: instances

// ANCHOR: pairs
// Coarsening that shares the sine and cosine: X[k] and X[N-k] need the angles -θ and +θ of the
// same θ = 2π·k·j/N, so one __sincosf serves both outputs (cos θ is shared, sin θ changes
// sign). Thread k (0 <= k <= N/2) computes both. That halves the special-function work but
// also the threads, so the sum over j is split too: block row blockIdx.y adds up the j of its
// part only and writes its partial sums to row blockIdx.y of `partial` (N values per row);
// dft_sum_parts then adds the rows in order. Every row gets every k written exactly once.
extern "C" __global__ void __launch_bounds__(THREADS)
dft_pairs(const float2 *xs, float2 *partial, int n)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    const int per_part = (n + gridDim.y - 1) / gridDim.y;
    const int j0 = blockIdx.y * per_part, j1 = min(j0 + per_part, n);
    const float nf = n, half = 0.5f * nf;
    const float step = -TWO_PI_F / nf;
    const bool active = k <= n / 2;
    const float kf = active ? k : 0;
    // (k·j0) mod N in [-N/2, N/2), computed once in 64-bit integers.
    long long p0 = active ? ((long long)k * j0) % n : 0;
    float phase = p0 >= (n + 1) / 2 ? (float)(p0 - n) : (float)p0;
    float2 plus = make_float2(0.0f, 0.0f), minus = make_float2(0.0f, 0.0f);
    for (int start = j0; start < j1; start += CHUNK) {
        const int end = min(start + CHUNK, j1);
        float2 a = make_float2(0.0f, 0.0f), b = make_float2(0.0f, 0.0f);
        for (int j = start; j < end; ++j) {
            const float2 x = xs[j];
            float s, c;
            __sincosf(step * phase, &s, &c);
            // X[k] += x·(c + i·s); X[N-k] += x·(c - i·s)
            a.x = __fmaf_rn(x.x, c, a.x);
            a.x = __fmaf_rn(-x.y, s, a.x);
            a.y = __fmaf_rn(x.x, s, a.y);
            a.y = __fmaf_rn(x.y, c, a.y);
            b.x = __fmaf_rn(x.x, c, b.x);
            b.x = __fmaf_rn(x.y, s, b.x);
            b.y = __fmaf_rn(-x.x, s, b.y);
            b.y = __fmaf_rn(x.y, c, b.y);
            phase += kf;
            if (phase >= half) {
                phase -= nf;
            }
        }
        plus.x += a.x, plus.y += a.y;
        minus.x += b.x, minus.y += b.y;
    }
    float2 *row = partial + (long long)blockIdx.y * n;
    if (active) {
        row[k] = plus;
        if (k != 0 && 2 * k != n) {
            row[n - k] = minus;
        }
    }
}

// out[k] = the sum of the `parts` rows of `partial` at k, always in the same order.
extern "C" __global__ void dft_sum_parts(const float2 *partial, float2 *out, int n, int parts)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) {
        float2 sum = make_float2(0.0f, 0.0f);
        for (int r = 0; r < parts; ++r) {
            float2 v = partial[(long long)r * n + k];
            sum.x += v.x, sum.y += v.y;
        }
        out[k] = sum;
    }
}
// ANCHOR_END: pairs
