// Matrix multiplication C = A·B with one thread per unit of work, four ways.
// A is m×n, B is n×p, C is m×p, all row-major float.
// check: matmul_racy_ijk has %ctaid.z
// check: matmul_racy_ijk lacks atom.
// check: matmul_racy_ik lacks atom.
// check: matmul_sum_in_global has %ctaid.y
// check: matmul_sum_in_register has %ctaid.y
// check: matmul_sum_in_register has fma.rn.f32
// check: matmul_1d has div.s32
// check: matmul_1d lacks %ctaid.y
// check: every kernel lacks .f64
// launch matmul_*: len(a) = m * n; len(b) = n * p; len(c) = m * p; threads.x <= 2147483648
// launch matmul_*: m * n <= 2147483648; n * p <= 2147483648; m * p <= 2147483647
// launch matmul_racy_ijk: threads.x >= n; threads.y >= p; threads.z >= m
// launch matmul_racy_ik: threads.x >= n; threads.y >= m
// launch matmul_sum_in_*: threads.x >= p; threads.y >= m
// launch matmul_1d: threads.x >= m * p

// ANCHOR: racy_ijk
// Candidate 1: a 3-D grid, one thread per (i, j, k). The n threads that share (i, j) all
// read C[i][j], add their product and write it back, at the same time. Here k runs along
// x, so the 32 threads of a warp collide on one element in one instruction.
extern "C" __global__ void matmul_racy_ijk(
    const float *a, const float *b, float *c, int m, int n, int p)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    int i = blockIdx.z * blockDim.z + threadIdx.z;
    if (i < m && j < p && k < n) {
        c[i * p + j] += a[i * n + k] * b[k * p + j];
    }
}
// ANCHOR_END: racy_ijk

// ANCHOR: racy_ik
// Candidate 3: a 2-D grid over (i, k), each thread looping over j. Threads with the same i
// and different k update the same row of C.
extern "C" __global__ void matmul_racy_ik(
    const float *a, const float *b, float *c, int m, int n, int p)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < m && k < n) {
        for (int j = 0; j < p; ++j) {
            c[i * p + j] += a[i * n + k] * b[k * p + j];
        }
    }
}
// ANCHOR_END: racy_ik

// ANCHOR: sum_in_global
// Candidate 2: one thread per element of C, adding straight into C in global memory.
extern "C" __global__ void matmul_sum_in_global(
    const float *a, const float *b, float *c, int m, int n, int p)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < m && j < p) {
        c[i * p + j] = 0.0f;
        for (int k = 0; k < n; ++k) {
            c[i * p + j] += a[i * n + k] * b[k * p + j];
        }
    }
}
// ANCHOR_END: sum_in_global

// ANCHOR: sum_in_register
// Candidate 2 again, with the running sum in a local variable (a register): one write of C
// at the end instead of one per term.
extern "C" __global__ void matmul_sum_in_register(
    const float *a, const float *b, float *c, int m, int n, int p)
{
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    int i = blockIdx.y * blockDim.y + threadIdx.y;
    if (i < m && j < p) {
        float sum = 0.0f;
        for (int k = 0; k < n; ++k) {
            sum += a[i * n + k] * b[k * p + j];
        }
        c[i * p + j] = sum;
    }
}
// ANCHOR_END: sum_in_register

// ANCHOR: matmul_1d
// Still one thread per element of C, on a 1-D grid: the thread's number is divided by p,
// the length of a row of C, into a row (the quotient) and a column (the remainder).
extern "C" __global__ void matmul_1d(
    const float *a, const float *b, float *c, int m, int n, int p)
{
    int ij = blockIdx.x * blockDim.x + threadIdx.x;
    if (ij < m * p) {
        int i = ij / p;
        int j = ij % p;
        float sum = 0.0f;
        for (int k = 0; k < n; ++k) {
            sum += a[i * n + k] * b[k * p + j];
        }
        c[ij] = sum;
    }
}
// ANCHOR_END: matmul_1d
