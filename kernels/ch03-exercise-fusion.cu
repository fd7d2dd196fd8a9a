// Exercise: "Challenge: predict before you measure" (chapter 3, "Fusing operations"): the two
// kernels to time for y = cos(2 * (x - 1)) + x. As in ch03-fusion.cu, each thread takes four
// neighbouring values (a float4) and n4 counts float4s. The judge launches one thread per
// float4, in blocks of 256: `cargo run --bin judge -- ch03`. The solution is in
// ch03-exercise-fusion-solution.cu.

// The unfused version's fourth pass, after ch03-fusion.cu's three: y = tmp + x, where tmp
// holds cos(2 * (x - 1)).
extern "C" __global__ void add_arrays(const float4 *tmp, const float4 *x, float4 *y, long long n4)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        // TODO: add the two float4s, component by component.
    }
}

// The fused version: y = cos(2 * (x - 1)) + x in one pass, reading x once.
extern "C" __global__ void cos_fused_plus_x(const float4 *x, float4 *y, long long n4)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n4) {
        // TODO: the whole expression, for each of the four values.
    }
}
