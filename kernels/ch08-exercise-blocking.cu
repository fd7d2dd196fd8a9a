// Exercise: "Challenge: the register-blocked inner loop" (chapter 8). sgemm_2d_blocking with
// the body of its loop over i left out: C = A·B, A m×k, B k×n, C m×n, row-major float.
// `cargo run --bin judge -- ch08`. The solution is sgemm_2d_blocking in ch08-sgemm.cu.
// check: every kernel lacks .f64
// check: sgemm_2d_blocking_exercise has bar.sync
// launch sgemm_2d_blocking_exercise: len(a) = m * k; len(b) = k * n; len(c) = m * n
// launch sgemm_2d_blocking_exercise: m * k <= 2147483647; k * n <= 2147483647; m * n <= 2147483647
// launch sgemm_2d_blocking_exercise: k + 32 <= 2147483648
// launch sgemm_2d_blocking_exercise: block = block.x = 256; grid.x * 128 >= n; grid.y * 128 >= m

// ANCHOR: exercise
// One element of a rows×cols matrix, or zero outside it.
__device__ __forceinline__ float load1(const float *p, int rows, int cols, int row, int col)
{
    return (row < rows && col < cols) ? p[row * cols + col] : 0.0f;
}

// A 128×128 block of C, 256 threads, each computing an 8×8 square of it: per step along k a
// thread reads 8 values of A and 8 of B from shared memory and does 64 multiply-adds.
extern "C" __global__ void __launch_bounds__(256) sgemm_2d_blocking_exercise(
    const float *a, const float *b, float *c, int m, int n, int k)
{
    __shared__ float as[128][8];
    __shared__ float bs[8][128];
    int t = threadIdx.x;
    int row8 = (t / 16) * 8, col8 = (t % 16) * 8;
    int row0 = blockIdx.y * 128, col0 = blockIdx.x * 128;
    float acc[8][8] = {};
    for (int k0 = 0; k0 < k; k0 += 8) {
        for (int l = t; l < 128 * 8; l += 256) { // four elements of each tile per thread
            as[l / 8][l % 8] = load1(a, m, k, row0 + l / 8, k0 + l % 8);
            bs[l / 128][l % 128] = load1(b, k, n, k0 + l / 128, col0 + l % 128);
        }
        __syncthreads();
        for (int i = 0; i < 8; ++i) {
            // TODO: step i along k. as[r][i] holds A[row0 + r][k0 + i] and bs[i][c] holds
            // B[k0 + i][col0 + c]; this thread's square is rows row8 to row8 + 7 and columns
            // col8 to col8 + 7 of the block's tile, summed in acc. Copy the 8 values of A and
            // the 8 of B that the square needs at this step into two arrays of 8 floats, then
            // do its 64 multiply-adds from those arrays.
        }
        __syncthreads();
    }
    for (int r = 0; r < 8; ++r) {
        for (int s = 0; s < 8; ++s) {
            if (row0 + row8 + r < m && col0 + col8 + s < n) {
                c[(row0 + row8 + r) * n + col0 + col8 + s] = acc[r][s];
            }
        }
    }
}
// ANCHOR_END: exercise
