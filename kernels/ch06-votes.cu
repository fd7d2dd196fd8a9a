// Warp votes: every lane offers a true/false, and one instruction tells the whole warp the
// result. Then stream compaction (keep the elements above a threshold), first with one
// atomic per kept element, then with one atomic per warp, then with one atomic per block.
// check: vote_demo has vote.sync.ballot.b32
// check: vote_demo has vote.sync.any.pred
// check: vote_demo has vote.sync.all.pred
// check: vote_demo has activemask.b32
// check: vote_demo has popc.b32
// check: compact_atomic has atom.global.add.u32
// check: compact_warp has vote.sync.ballot.b32
// check: compact_warp has shfl.sync.idx.b32
// check: compact_warp has atom.global.add.u32
// check: compact_block has shfl.sync.up.b32
// check: compact_block has bar.sync
// check: compact_block has atom.global.add.u32
// check: every kernel lacks .f64
// launch vote_demo: len(values) >= 32; len(seen) >= 6 * 32; block = 32

#define FULL_MASK 0xffffffffu

// ANCHOR: vote_demo
// One warp of 32 threads. Lane k votes on values[k] > threshold; each lane writes what it saw
// into its own row of 6 words.
extern "C" __global__ void vote_demo(const float *values, float threshold, unsigned *seen)
{
    int lane = threadIdx.x % 32;
    bool above = values[lane] > threshold;

    unsigned ballot = __ballot_sync(FULL_MASK, above);   // bit k is lane k's vote
    int any = __any_sync(FULL_MASK, above);              // does any lane vote yes?
    int all = __all_sync(FULL_MASK, above);              // do all lanes vote yes?
    int yes = __popc(ballot);                            // how many lanes vote yes
    int yes_below_me = __popc(ballot & ((1u << lane) - 1));  // ... among lanes 0 to lane-1

    unsigned active = 0;
    if (above) {
        active = __activemask();    // the lanes executing this branch with me
    }

    unsigned *row = seen + 6 * lane;
    row[0] = ballot;
    row[1] = any;
    row[2] = all;
    row[3] = yes;
    row[4] = yes_below_me;
    row[5] = active;
}
// ANCHOR_END: vote_demo

// ANCHOR: compact_atomic
// Each kept element claims its own slot in the output with one atomicAdd on a global counter.
extern "C" __global__ void compact_atomic(const float *in, int n, float threshold,
                                          float *out, unsigned *out_index, unsigned *count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && in[i] > threshold) {
        unsigned slot = atomicAdd(count, 1u);
        out[slot] = in[i];
        out_index[slot] = i;
    }
}
// ANCHOR_END: compact_atomic

// ANCHOR: compact_warp
// The warp votes, lane 0 claims a slot for every kept element of the warp with one atomicAdd,
// and each kept lane writes at the warp's base plus the number of kept lanes below it.
// Every lane must reach the vote and the shuffle, so there is no early return.
extern "C" __global__ void compact_warp(const float *in, int n, float threshold,
                                        float *out, unsigned *out_index, unsigned *count)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    float v = i < n ? in[i] : 0.0f;
    bool keep = i < n && v > threshold;

    unsigned kept = __ballot_sync(FULL_MASK, keep);
    unsigned base = 0;
    if (lane == 0 && kept != 0) {
        base = atomicAdd(count, (unsigned)__popc(kept));
    }
    base = __shfl_sync(FULL_MASK, base, 0);         // lane 0's base, to every lane

    if (keep) {
        unsigned slot = base + __popc(kept & ((1u << lane) - 1));
        out[slot] = v;
        out_index[slot] = i;
    }
}
// ANCHOR_END: compact_warp

// ANCHOR: compact_block
// The block claims the slots of all its kept elements with one atomicAdd. Each warp counts
// its kept lanes with a ballot; warp 0 turns the warps' counts into offsets (an exclusive
// scan, by shuffles); one thread claims the block's run of slots; every kept lane writes at
// the block's base + its warp's offset + the kept lanes below it in the warp.
// blockDim.x must be a multiple of 32, at most 1024.
extern "C" __global__ void compact_block(const float *in, int n, float threshold,
                                         float *out, unsigned *out_index, unsigned *count)
{
    __shared__ unsigned warp_offset[32];    // kept elements in the warps before each warp
    __shared__ unsigned block_base;         // the block's first slot in the output
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    int warps = blockDim.x / 32;
    float v = i < n ? in[i] : 0.0f;
    bool keep = i < n && v > threshold;

    unsigned kept = __ballot_sync(FULL_MASK, keep);         // 1. each warp counts its keepers
    if (lane == 0) {
        warp_offset[warp] = __popc(kept);
    }
    __syncthreads();

    if (warp == 0) {                                        // 2. warp 0 scans the counts
        unsigned mine = lane < warps ? warp_offset[lane] : 0;
        unsigned sum = mine;                                //    lane k: sum of counts 0..=k
        for (int d = 1; d < 32; d *= 2) {
            unsigned up = __shfl_up_sync(FULL_MASK, sum, d);
            if (lane >= d) {
                sum += up;
            }
        }
        if (lane < warps) {
            warp_offset[lane] = sum - mine;                 //    counts of warps 0..lane-1
        }
        if (lane == 31) {                                   // 3. lane 31 holds the block's
            block_base = sum != 0 ? atomicAdd(count, sum) : 0;  //  total: one atomic
        }
    }
    __syncthreads();

    if (keep) {                                             // 4. every kept lane writes
        unsigned slot = block_base + warp_offset[warp] + __popc(kept & ((1u << lane) - 1));
        out[slot] = v;
        out_index[slot] = i;
    }
}
// ANCHOR_END: compact_block
