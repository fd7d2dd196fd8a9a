// The discrete Fourier transform X[k] = sum over j of x[j]·exp(-2πi·k·j/N), one thread per k,
// in single precision. The program compiles this file with --use_fast_math, so sincosf
// becomes the fast hardware approximation (sin.approx, cos.approx), which is accurate only
// for angles near [-π, π].
// check: compiled with --use_fast_math
// check: every kernel has sin.approx
// check: every kernel has cos.approx
// check: every kernel lacks .f64
// launch dft_*: n = len(xs) = len(out); threads.x >= n; threads.x <= 2147483648

#define TWO_PI 6.2831853071795865f

// ANCHOR: naive
// The workshop's kernel in fp32: the angle grows with k·j, up to 2π·N. A float carries 24
// bits, so at N = 131072 the angle itself is off by hundredths of a radian before any sine
// is taken, and the fast sine of a large angle is poor besides.
extern "C" __global__ void dft_naive_phase(const float2 *xs, float2 *out, int n)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) {
        const float step = -TWO_PI / n;
        float2 sum = make_float2(0.0f, 0.0f);
        for (int j = 0; j < n; ++j) {
            // Evaluated left to right in float (as an int, k * j would overflow past 46341²).
            float angle = step * k * j;
            float s, c;
            sincosf(angle, &s, &c);
            float2 x = xs[j];
            // x·(c + i·s), as four multiply-adds
            sum.x += x.x * c;
            sum.x -= x.y * s;
            sum.y += x.x * s;
            sum.y += x.y * c;
        }
        out[k] = sum;
    }
}
// ANCHOR_END: naive

// ANCHOR: reduced
// exp(-2πi·k·j/N) repeats every N steps of k·j, so only (k·j) mod N matters. Keep it exactly
// by adding k at each step and taking N off when it reaches N; centre it on zero, and the
// angle handed to sincosf is never more than π in size.
// The count is kept in a float: a float holds every whole number below 2^24 exactly, so the
// additions are exact for N up to 2^23, and no int-to-float conversion is needed at each step
// (conversions run at the same low rate as the fast sine and cosine).
extern "C" __global__ void dft_reduced_phase(const float2 *xs, float2 *out, int n)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) {
        const float step = -TWO_PI / n;
        const float nf = n, kf = k, half = n / 2;
        float2 sum = make_float2(0.0f, 0.0f);
        float kj = 0.0f; // (k * j) mod n, a whole number, for the current j
        for (int j = 0; j < n; ++j) {
            float centred = kj > half ? kj - nf : kj; // in (-n/2, n/2]
            float s, c;
            sincosf(step * centred, &s, &c);
            float2 x = xs[j];
            // x·(c + i·s), as four multiply-adds
            sum.x += x.x * c;
            sum.x -= x.y * s;
            sum.y += x.x * s;
            sum.y += x.y * c;
            kj += kf;
            if (kj >= nf) {
                kj -= nf;
            }
        }
        out[k] = sum;
    }
}
// ANCHOR_END: reduced
