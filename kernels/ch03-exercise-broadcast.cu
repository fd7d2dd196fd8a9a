// Exercise: matrix multiplication by broadcasting, in two kernels (chapter 3, "Broadcasting").
// The judge launches one thread per element of each kernel's output, in blocks of 256:
// `cargo run --bin judge -- ch03`. The solution is in ch03-broadcast.cu.

// prod[i][k][j] = a[i][k] * b[k][j] for the m x n x p array of products, stored row-major
// (j varies fastest); a is m x n, b is n x p.
extern "C" __global__ void broadcast_multiply(const double *a, const double *b, double *prod,
                                              int m, int n, int p)
{
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)m * n * p) {
        return;
    }
    // TODO: find i, k and j from idx, and write the product.
}

// c[i][j] = the sum over k of prod[i][k][j]; c is m x p.
extern "C" __global__ void sum_middle_axis(const double *prod, double *c, int m, int n, int p)
{
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)m * p) {
        return;
    }
    // TODO: sum the n products that belong to c[i][j].
}
