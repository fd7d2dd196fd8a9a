// Exercise: "Challenge: the raw indices" (chapter 4). The grid-stride adder, zs[i] = xs[i] +
// ys[i] for every i < n on any grid, written with threadIdx, blockIdx, blockDim and gridDim:
// this file has no helpers. `cargo run --bin judge -- ch04`. The solution is in ch04-grids.cu.

extern "C" __global__ void adder_grid_stride_raw(
    const double *xs, const double *ys, double *zs, int n)
{
    // TODO: the grid-stride loop, its first index and its step from the built-in variables.
}
