// Solutions to the chapter's challenges: a float maximum that reduces in the warp before its
// compare-and-swap loop, an exclusive warp scan that gives each kept lane its position, and a
// histogram in global memory whose warps make one atomic per distinct byte.
// check: max_per_thread has atom.global.cas.b32
// check: max_per_thread lacks shfl.sync
// check: max_warp_first has shfl.sync.bfly.b32
// check: max_warp_first has max.f32
// check: max_warp_first has atom.global.cas.b32
// check: exclusive_scan_warps has shfl.sync.up.b32
// check: positions_two_ways has shfl.sync.up.b32
// check: positions_two_ways has vote.sync.ballot.b32
// check: positions_two_ways has popc.b32
// check: hist_global_aggregated has match.any.sync.b32
// check: hist_global_aggregated has atom.global.add.u32
// check: hist_global_aggregated lacks atom.shared
// check: every kernel lacks .f64
// launch max_*: n = len(values); len(result) >= 1; len(attempts) >= 1; threads >= n
// launch exclusive_scan_warps: n = len(in) = len(out); threads >= n
// launch hist_global_aggregated: n = len(bytes); len(bins) >= 256; threads >= n
// launch positions_two_ways: n = len(in) = len(by_scan) = len(by_ballot); threads >= n

#define FULL_MASK 0xffffffffu

// The compare-and-swap loop of chapter 5, counting every atomicCAS it issues in *attempts.
__device__ void atomic_max_float_counted(float *addr, float v, unsigned *attempts)
{
    int *p = (int *)addr;
    int seen = *p;
    while (__int_as_float(seen) < v) {
        int expected = seen;
        seen = atomicCAS(p, expected, __float_as_int(v));
        atomicAdd(attempts, 1u);
        if (seen == expected) {
            break;
        }
    }
}

// ANCHOR: max_per_thread
// Chapter 5's way: every thread runs the loop with its own value.
extern "C" __global__ void max_per_thread(const float *values, int n, float *result,
                                          unsigned *attempts)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomic_max_float_counted(result, values[i], attempts);
    }
}
// ANCHOR_END: max_per_thread

// ANCHOR: max_warp_first
// Five butterfly steps give every lane the warp's maximum; only lane 0 runs the loop.
// Lanes past n offer -infinity, which never wins, and still take part in the shuffles.
extern "C" __global__ void max_warp_first(const float *values, int n, float *result,
                                          unsigned *attempts)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = i < n ? values[i] : -__int_as_float(0x7f800000);  // -infinity
    for (int lane_mask = 16; lane_mask >= 1; lane_mask >>= 1) {
        v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, lane_mask));
    }
    if (threadIdx.x % 32 == 0) {
        atomic_max_float_counted(result, v, attempts);
    }
}
// ANCHOR_END: max_warp_first

// ANCHOR: warp_exclusive_scan
// Lane k gets the sum of lanes 0..k-1 (lane 0 gets 0): the inclusive scan of the previous
// lane, handed one lane up.
__device__ unsigned warp_exclusive_scan(unsigned v)
{
    int lane = threadIdx.x & 31;
    for (int delta = 1; delta <= 16; delta <<= 1) {
        unsigned up = __shfl_up_sync(FULL_MASK, v, delta);
        if (lane >= delta) {
            v += up;
        }
    }
    unsigned before = __shfl_up_sync(FULL_MASK, v, 1);
    return lane == 0 ? 0 : before;
}

extern "C" __global__ void exclusive_scan_warps(const unsigned *in, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = warp_exclusive_scan(i < n ? in[i] : 0);
    if (i < n) {
        out[i] = v;
    }
}
// ANCHOR_END: warp_exclusive_scan

// ANCHOR: positions_two_ways
// The position of each element among the kept elements of its warp, computed twice: as the
// exclusive scan of the keep flags, and as the bit count of the ballot below the lane.
extern "C" __global__ void positions_two_ways(const float *in, int n, float threshold,
                                              unsigned *by_scan, unsigned *by_ballot)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    bool keep = i < n && in[i] > threshold;
    unsigned from_scan = warp_exclusive_scan(keep ? 1u : 0u);
    unsigned ballot = __ballot_sync(FULL_MASK, keep);
    unsigned from_ballot = __popc(ballot & ((1u << lane) - 1));
    if (i < n) {
        by_scan[i] = from_scan;
        by_ballot[i] = from_ballot;
    }
}
// ANCHOR_END: positions_two_ways

// ANCHOR: hist_global_aggregated
// One thread per byte, no shared memory: the lanes holding equal bytes find each other, and the
// lowest of them adds their number to the bin in one global atomic.
extern "C" __global__ void hist_global_aggregated(const unsigned char *bytes, int n,
                                                  unsigned *bins)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    unsigned key = i < n ? bytes[i] : 256 + lane; // past the end: a key no other lane has
    unsigned peers = __match_any_sync(FULL_MASK, key);
    if (i < n && lane == __ffs(peers) - 1) {
        atomicAdd(&bins[key], __popc(peers));
    }
}
// ANCHOR_END: hist_global_aggregated
