// The smallest useful kernel: chapter 2 asks the driver how many of its blocks fit on an SM.
extern "C" __global__ void add_one(float *x, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] += 1.0f;
    }
}
