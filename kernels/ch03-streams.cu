// check: times_two has %nctaid.x
// check: square has %nctaid.x
// check: sine has %nctaid.x
// check: sine lacks sin.approx
// check: polish has div.rn.f32
// launch times_two: n = len(a) = len(out)
// launch square: n = len(b) = len(out)
// launch sine: n = len(c) = len(out)
// launch polish: n = len(x); threads.x >= n

// ANCHOR: three
// The three independent computations. Each loops over its array with a stride of the whole
// grid, so a small grid still covers every element.
extern "C" __global__ void times_two(const float *a, float *out, long long n)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        out[i] = 2.0f * a[i];
    }
}

extern "C" __global__ void square(const float *b, float *out, long long n)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        out[i] = b[i] * b[i];
    }
}

extern "C" __global__ void sine(const float *c, float *out, long long n)
{
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        out[i] = sinf(c[i]);
    }
}
// ANCHOR_END: three

// ANCHOR: polish
// Stand-in for real work on one chunk: `rounds` steps of x <- x - (x*x - 2) / (2x), Newton's
// iteration for sqrt(2), started from each element. It converges in a few steps and then stays
// put, so after those (the host asks for at least 10) the result is known: sqrt 2.
extern "C" __global__ void polish(float *x, long long n, int rounds)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        for (int r = 0; r < rounds; r++) {
            v = v - (v * v - 2.0f) / (2.0f * v);
        }
        x[i] = v;
    }
}
// ANCHOR_END: polish
