// check: PTX has .entry subtract_scalar
// check: PTX has .entry multiply_scalar
// check: PTX has .entry cos_each
// check: PTX has .entry cos_fused
// check: PTX lacks cos.approx

// ANCHOR: unfused
// What `cos(2 * (x - 1))` is, one operator at a time: three kernels, three passes over memory,
// two intermediate arrays.
extern "C" __global__ void subtract_scalar(const float *x, float s, float *out, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = x[i] - s;
    }
}

extern "C" __global__ void multiply_scalar(const float *x, float s, float *out, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = s * x[i];
    }
}

extern "C" __global__ void cos_each(const float *x, float *out, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = cosf(x[i]);
    }
}
// ANCHOR_END: unfused

// ANCHOR: fused
// The same expression in one pass: read x once, write y once, keep the rest in registers.
extern "C" __global__ void cos_fused(const float *x, float *y, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = cosf(2.0f * (x[i] - 1.0f));
    }
}
// ANCHOR_END: fused
