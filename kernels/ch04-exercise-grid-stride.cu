// Exercise: "Challenge: any grid, any array" (chapter 4). zs[i] = xs[i] + ys[i] for every
// i < n, whatever the size of the grid. The judge launches it on grids from a single block to
// more threads than elements: `cargo run --bin judge -- ch04`. The solution is in
// ch04-grids.cu.

// A thread's index in the grid, and the number of threads in the grid.
__device__ inline int grid_1d()
{
    return blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ inline int gridsize_1d()
{
    return gridDim.x * blockDim.x;
}

extern "C" __global__ void adder_grid_stride(
    const double *xs, const double *ys, double *zs, int n)
{
    int i = grid_1d();
    // TODO: replace the `if` with a loop whose step is the number of threads in the grid.
    if (i < n) {
        zs[i] = xs[i] + ys[i];
    }
}
