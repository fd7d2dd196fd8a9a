// Exercise: "Challenge: what does the bounds check cost?" (chapter 4). The adder with
// `if (i < n)` deleted: nothing here to edit. Your answer goes in
// crates/examples/ch04/exercises/bounds_check.rs; on a GPU the judge runs this kernel on
// buffers with room past n, poisoned, and compares what it finds written there with it:
// `cargo run --bin judge -- ch04`.
// check: adder_no_bounds_check lacks setp

extern "C" __global__ void adder_no_bounds_check(
    const double *xs, const double *ys, double *zs, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    zs[i] = xs[i] + ys[i];
}
