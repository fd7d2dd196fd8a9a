// Grids of chapter 4: helpers that name a thread's place, the grid-stride loop, and a 2-D grid.
// check: adder_grid_stride has %nctaid.x
// check: adder_grid_stride_raw has %nctaid.x
// check: matrix_add_2d has %ctaid.y
// check: matrix_add_row_from_x has %ctaid.y
// launch adder_grid_stride*: n = len(xs) = len(ys) = len(zs); n + threads.x <= 2147483648
// launch matrix_add_*: rows * cols = len(xs) = len(ys) = len(zs); rows * cols <= 2147483648
// launch matrix_add_*: threads.x <= 2147483648
// launch matrix_add_2d: threads.x >= cols; threads.y >= rows
// launch matrix_add_row_from_x: threads.x >= rows; threads.y >= cols

// ANCHOR: helpers
// CUDA C++ has no built-in "my index in the whole grid"; these two helpers give it, under
// the names Numba uses (cuda.grid(1) and cuda.gridsize(1)).
__device__ inline int grid_1d()
{
    return blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ inline int gridsize_1d()
{
    return gridDim.x * blockDim.x;
}
// ANCHOR_END: helpers

// ANCHOR: grid_stride
// Correct for any grid: a thread takes element i, then jumps ahead by the number of threads
// in the whole grid, until it runs off the end.
extern "C" __global__ void adder_grid_stride(
    const double *xs, const double *ys, double *zs, int n)
{
    for (int i = grid_1d(); i < n; i += gridsize_1d()) {
        zs[i] = xs[i] + ys[i];
    }
}
// ANCHOR_END: grid_stride

// ANCHOR: grid_stride_raw
// The same loop, written with the built-in variables instead of the helpers.
extern "C" __global__ void adder_grid_stride_raw(
    const double *xs, const double *ys, double *zs, int n)
{
    int first = blockIdx.x * blockDim.x + threadIdx.x;
    int step = gridDim.x * blockDim.x;
    for (int i = first; i < n; i += step) {
        zs[i] = xs[i] + ys[i];
    }
}
// ANCHOR_END: grid_stride_raw

// ANCHOR: matrix_add_2d
// One thread per element of a row-major matrix. x, the dimension whose neighbours sit in
// the same warp, walks along a row, so a warp reads 32 neighbouring elements.
extern "C" __global__ void matrix_add_2d(
    const double *xs, const double *ys, double *zs, int rows, int cols)
{
    int col = blockIdx.x * blockDim.x + threadIdx.x;
    int row = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols) {
        int i = row * cols + col;
        zs[i] = xs[i] + ys[i];
    }
}
// ANCHOR_END: matrix_add_2d

// ANCHOR: matrix_add_row_from_x
// The same sum with the roles swapped, as `i, j = cuda.grid(2)` gives them: x now picks the
// row, so the 32 threads of a warp touch 32 different rows, `cols` elements apart.
extern "C" __global__ void matrix_add_row_from_x(
    const double *xs, const double *ys, double *zs, int rows, int cols)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < rows && col < cols) {
        int i = row * cols + col;
        zs[i] = xs[i] + ys[i];
    }
}
// ANCHOR_END: matrix_add_row_from_x
