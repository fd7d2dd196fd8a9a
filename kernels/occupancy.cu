// check: add_one lacks .shared
// check: add_one lacks .f64

// ANCHOR: add_one
// About the smallest useful kernel: each thread adds one to one element.
extern "C" __global__ void add_one(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] += 1.0f;
    }
}
// ANCHOR_END: add_one
