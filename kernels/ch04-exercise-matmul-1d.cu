// Exercise: "Challenge: one dimension" (chapter 4). C = A·B with one thread per element of C,
// on a 1-D grid: the thread turns its single index into a row i and a column j. A is m×n, B is
// n×p and C is m×p, all row-major float. The grid is in
// crates/examples/ch04/exercises/matmul_1d.rs. `cargo run --bin judge -- ch04`. The solution
// is in ch04-matmul.cu.

extern "C" __global__ void matmul_1d(
    const float *a, const float *b, float *c, int m, int n, int p)
{
    // TODO: this thread's index; inside C, its row and column, then C[i][j] = sum over k of
    // a[i][k] * b[k][j].
}
