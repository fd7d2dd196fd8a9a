// Exercise: "Practice 3: more bins than threads" (chapter 5). The shared histogram with its
// number of bins chosen at launch: the launch gives bins * 4 bytes of shared memory, and there
// may be more bins than threads. `cargo run --bin judge -- ch05`. The solution is in
// ch05-histogram-bins.cu.

extern "C" __global__ void hist_shared_bins(
    const unsigned *values, int n, int bins, unsigned *out)
{
    extern __shared__ unsigned local[];
    // TODO: these two lines handle one bin per thread; make every thread handle every
    // blockDim.x-th bin, here and in the merge below.
    local[threadIdx.x] = 0;
    __syncthreads();
    int first = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    for (int i = first; i < n; i += stride) {
        atomicAdd(&local[values[i]], 1u);
    }
    __syncthreads();
    atomicAdd(&out[threadIdx.x], local[threadIdx.x]);
}
