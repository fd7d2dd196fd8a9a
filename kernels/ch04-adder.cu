// The first kernel of chapter 4: the body of the adder loop, run once per thread.
// check: adder has add.f64
// check: adder lacks atom.
// ANCHOR: contract
// launch adder: n = len(xs) = len(ys) = len(zs); threads.x >= n
// launch adder: threads.x <= 2147483648
// ANCHOR_END: contract

// ANCHOR: adder
// ANCHOR: signature
extern "C" __global__ void adder(const double *xs, const double *ys, double *zs, int n)
// ANCHOR_END: signature
{
    // Which element is this thread's? Its block's place in the grid, times the block's
    // width, plus its own place in the block.
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // The grid is rounded up to whole blocks, so the last block may reach past the end.
    if (i < n) {
        zs[i] = xs[i] + ys[i];
    }
}
// ANCHOR_END: adder
