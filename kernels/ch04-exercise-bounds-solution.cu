// Solution to the bounds-check challenge of chapter 4: the adder without `if (i < n)`. Every
// thread of the grid writes, so each buffer must hold the whole grid's elements; n is unused.
// check: adder_no_bounds_check lacks setp

extern "C" __global__ void adder_no_bounds_check(
    const double *xs, const double *ys, double *zs, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    zs[i] = xs[i] + ys[i];
}
