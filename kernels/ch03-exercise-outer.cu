// Exercise: "Challenge: the outer product, two ways" (chapter 3, "Linear algebra"): the way
// with a kernel of your own. The judge launches one thread per element of out, in blocks of
// 1024 (`LaunchConfig::for_num_elems`): `cargo run --bin judge -- ch03`. The solution is in
// ch03-broadcast.cu.

// out[i][j] = x[i] * y[j]: x has m values, y has n, and out is m x n, row-major.
extern "C" __global__ void outer_product(const float *x, const float *y, float *out, int m, int n)
{
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < (long long)m * n) {
        // TODO: find i and j from idx, and write the product.
    }
}
