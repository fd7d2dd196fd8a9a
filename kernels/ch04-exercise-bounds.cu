// Exercise: "Challenge: what does the bounds check cost?" (chapter 4). The adder with its
// bounds check still in. The judge launches it on 1,000 elements with 4 blocks of 256 threads,
// in buffers of 1,024, so that the threads past n write where it can look:
// `cargo run --bin judge -- ch04`. The solution is in ch04-exercise-bounds-solution.cu.

extern "C" __global__ void adder_no_bounds_check(
    const double *xs, const double *ys, double *zs, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // TODO: delete the bounds check and keep the assignment.
    if (i < n) {
        zs[i] = xs[i] + ys[i];
    }
}
