// Exercise: "Practice 4: a block sum without atomics" (chapter 5). Each block sums its 256
// values with the tree below and writes the sum to a slot of its own, partials[blockIdx.x];
// the judge launches the kernel again on the partial sums until one is left.
// `cargo run --bin judge -- ch05`. The solution is in ch05-block-sum.cu.

#define THREADS 256

// Sum the THREADS values in s; the sum ends in s[0]. Every thread of the block must call it.
__device__ void tree_sum(float *s)
{
    int t = threadIdx.x;
    for (int stride = THREADS / 2; stride > 0; stride /= 2) {
        if (t < stride) {
            s[t] += s[t + stride];
        }
        __syncthreads();
    }
}

extern "C" __global__ void __launch_bounds__(THREADS)
block_partial_sums(const float *x, int n, float *partials)
{
    __shared__ float s[THREADS];
    // TODO: load this block's values into s (0 past the end of x), wait for the block,
    // sum them with tree_sum, and let one thread write the block's sum.
}
