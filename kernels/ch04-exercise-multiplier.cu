// Exercise: "Challenge: a multiplier" (chapter 4). zs[i] = xs[i] * ys[i] for every i < n, with
// a grid-stride loop, so that any grid covers the whole array. The judge launches it with your
// launch_config and with a grid of only 40 blocks: `cargo run --bin judge -- ch04`.
// The solution is in ch04-multiplier.cu.

extern "C" __global__ void multiplier(const double *xs, const double *ys, double *zs, int n)
{
    // TODO: a grid-stride loop over the elements, starting from this thread's global index.
}
