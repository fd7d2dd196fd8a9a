// Exercise: "Challenge 2: an exclusive scan, and where each kept element goes" (chapter 6).
// `cargo run --bin judge -- ch06`. The solution is in ch06-challenges.cu.

#define FULL_MASK 0xffffffffu

// Lane k gets the sum of the values of lanes 0 to k - 1, and lane 0 gets 0. Every lane of the
// warp calls it.
__device__ unsigned warp_exclusive_scan(unsigned v)
{
    int lane = threadIdx.x & 31;
    // TODO: the inclusive scan of "Prefix sums" (five __shfl_up_sync steps), then make it
    // exclusive.
    return 0;
}

extern "C" __global__ void exclusive_scan_warps(const unsigned *in, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = warp_exclusive_scan(i < n ? in[i] : 0);
    if (i < n) {
        out[i] = v;
    }
}

// Each element is kept when it is above threshold. Its position among its warp's kept
// elements, two ways: by the exclusive scan of the keep flags, and by counting the bits of
// the warp's ballot that belong to the lanes below.
extern "C" __global__ void positions_two_ways(const float *in, int n, float threshold,
                                              unsigned *by_scan, unsigned *by_ballot)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    bool keep = i < n && in[i] > threshold;
    unsigned from_scan = 0;    // TODO: from warp_exclusive_scan
    unsigned from_ballot = 0;  // TODO: from __ballot_sync and __popc
    if (i < n) {
        by_scan[i] = from_scan;
        by_ballot[i] = from_ballot;
    }
}
