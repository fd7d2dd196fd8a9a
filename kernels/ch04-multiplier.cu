// Solution to the multiplier challenge of chapter 4.
// check: multiplier has mul.f64
// check: multiplier has %nctaid.x
// launch multiplier: n = len(xs) = len(ys) = len(zs); n + threads.x <= 2147483648

// ANCHOR: multiplier
extern "C" __global__ void multiplier(const double *xs, const double *ys, double *zs, int n)
{
    int first = blockIdx.x * blockDim.x + threadIdx.x;
    int step = gridDim.x * blockDim.x;
    for (int i = first; i < n; i += step) {
        zs[i] = xs[i] * ys[i];
    }
}
// ANCHOR_END: multiplier
