// A shared-memory histogram whose number of bins is chosen at launch, and may exceed the
// number of threads in a block: each thread clears and merges every blockDim.x-th bin.
// check: hist_shared_bins has atom.shared.add.u32
// check: hist_shared_bins has atom.global.add.u32
// check: hist_shared_bins lacks .shared .align

// ANCHOR: hist_shared_bins
// Every entry of values must be below bins; the launch gives bins * 4 bytes of shared memory.
extern "C" __global__ void hist_shared_bins(
    const unsigned *values, int n, int bins, unsigned *out)
{
    extern __shared__ unsigned local[];
    for (int b = threadIdx.x; b < bins; b += blockDim.x) {
        local[b] = 0;                   // each thread clears several bins
    }
    __syncthreads();
    int first = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;
    for (int i = first; i < n; i += stride) {
        atomicAdd(&local[values[i]], 1u);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < bins; b += blockDim.x) {
        if (local[b] != 0) {            // an empty bin needs no global atomic
            atomicAdd(&out[b], local[b]);
        }
    }
}
// ANCHOR_END: hist_shared_bins
