// check: every kernel has ld.global.v4.f32
// check: every kernel has st.global.v4.f32
// check: cos_each lacks cos.approx
// check: cos_fused lacks cos.approx
// check: cos_fused has .f64
// launch subtract_scalar: n4 = len(x) = len(out); threads.x >= n4
// launch multiply_scalar: n4 = len(x) = len(out); threads.x >= n4
// launch cos_each: n4 = len(x) = len(out); threads.x >= n4
// launch cos_fused: n4 = len(x) = len(y); threads.x >= n4

// Every kernel here gives each thread four neighbouring values, read with one 16-byte load and
// written with one 16-byte store (a float4). `n4` counts float4s: the array's length over four.
// One float per thread keeps too few bytes in flight to fill the memory system (chapter 2's
// Little's law); four per thread does.

// ANCHOR: unfused
// What `cos(2 * (x - 1))` is, one operator at a time: three kernels, three passes over memory,
// two intermediate arrays.
extern "C" __global__ void subtract_scalar(const float4 *x, float s, float4 *out, long long n4)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = x[i];
        out[i] = make_float4(v.x - s, v.y - s, v.z - s, v.w - s);
    }
}

extern "C" __global__ void multiply_scalar(const float4 *x, float s, float4 *out, long long n4)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = x[i];
        out[i] = make_float4(s * v.x, s * v.y, s * v.z, s * v.w);
    }
}

extern "C" __global__ void cos_each(const float4 *x, float4 *out, long long n4)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = x[i];
        out[i] = make_float4(cosf(v.x), cosf(v.y), cosf(v.z), cosf(v.w));
    }
}
// ANCHOR_END: unfused

// ANCHOR: fused
// The same expression in one pass: read x once, write y once, keep the rest in registers.
__device__ float expression(float x)
{
    return cosf(2.0f * (x - 1.0f));
}

extern "C" __global__ void cos_fused(const float4 *x, float4 *y, long long n4)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        float4 v = x[i];
        y[i] = make_float4(expression(v.x), expression(v.y), expression(v.z), expression(v.w));
    }
}
// ANCHOR_END: fused
