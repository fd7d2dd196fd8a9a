// Exercise: "Challenge: write candidate 2" (chapter 4). C = A·B with one thread per element
// C[i][j] of a 2-D grid: j (the column) from x, i (the row) from y. A is m×n, B is n×p and C is
// m×p, all row-major float. The grid is in crates/examples/ch04/exercises/matmul_2d.rs.
// `cargo run --bin judge -- ch04`. The solution is in ch04-matmul.cu.

// Adds each product straight into C[i][j], in global memory.
extern "C" __global__ void matmul_sum_in_global(
    const float *a, const float *b, float *c, int m, int n, int p)
{
    // TODO: this thread's i and j; inside C, zero C[i][j], then add in each a[i][k] * b[k][j].
}

// Adds the products into a local variable, and writes C[i][j] once at the end.
extern "C" __global__ void matmul_sum_in_register(
    const float *a, const float *b, float *c, int m, int n, int p)
{
    // TODO: the same, with the running sum in a local variable.
}
