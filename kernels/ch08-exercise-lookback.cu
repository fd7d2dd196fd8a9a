// Exercise: "Challenge: the look-back of one tile" (chapter 8). scan_lookback with the body of
// its function look_back left out: an inclusive scan of u32, wrapping modulo 2^32, in one pass.
// `cargo run --bin judge -- ch08`. The solution is look_back in ch08-scan.cu.
// requires: sm_70
// check: every kernel lacks .f64
// check: scan_lookback_exercise has atom.global.add.u32
// check: scan_lookback_exercise has ld.global.v4.u32
// check: scan_lookback_exercise has st.global.v4.u32
// launch scan_lookback_exercise: n = len(in) = len(out); threads * ITEMS >= n
// launch scan_lookback_exercise: block = block.x = THREADS
// launch scan_lookback_exercise: len(status) >= grid; len(next_tile) >= 1; len(stalled) >= 1
// launch scan_lookback_exercise: zeroed(status, next_tile); aligned(in, 16); aligned(out, 16)

// ANCHOR: exercise
#define THREADS 128
#define ITEMS 40
#define TILE (THREADS * ITEMS)
#define FULL_MASK 0xffffffffu

// A tile's status is one 64-bit word: its published value in the high 32 bits, and what that
// value is in the low 2. Value and state change together in one store, so a reader that sees
// the state also sees its value: no fence is needed between them.
#define EMPTY 0ull     // nothing published yet
#define AGGREGATE 1ull // the sum of this tile's own elements
#define PREFIX 2ull    // the sum of every element up to the end of this tile
// How long a tile waits for another's status before it gives up, by the GPU's clock: a
// second here, so that a look-back that never publishes fails the judge in seconds (the
// course's scan waits ten).
#ifndef WAIT_LIMIT_NS
#define WAIT_LIMIT_NS 1000000000ull
#endif

__device__ __forceinline__ unsigned long long now_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// `volatile`: every poll is a new load from memory. Without it the compiler may load the word
// once and spin on a copy in a register that never changes.
__device__ __forceinline__ unsigned long long read_status(const unsigned long long *at)
{
    return *reinterpret_cast<const volatile unsigned long long *>(at);
}
__device__ __forceinline__ void publish(unsigned long long *at, unsigned value,
                                        unsigned long long state)
{
    *reinterpret_cast<volatile unsigned long long *>(at) =
        (static_cast<unsigned long long>(value) << 32) | state;
}

__device__ __forceinline__ unsigned warp_inclusive_scan(unsigned v)
{
    int lane = threadIdx.x & 31;
    for (int delta = 1; delta <= 16; delta <<= 1) {
        unsigned up = __shfl_up_sync(FULL_MASK, v, delta);
        if (lane >= delta) {
            v += up;
        }
    }
    return v;
}

__device__ __forceinline__ unsigned warp_sum(unsigned v)
{
    for (int delta = 16; delta >= 1; delta >>= 1) {
        v += __shfl_xor_sync(FULL_MASK, v, delta);
    }
    return v;
}

// A tile is held warp-striped: warp w owns the 32 * ITEMS elements from w * 32 * ITEMS, in
// chunks of 128, and lane l holds elements 4l to 4l + 3 of each chunk, so that each of the
// warp's 16-byte loads and stores covers 512 neighbouring bytes. Replaces each value by the
// inclusive scan of the tile up to it, and returns the tile's total.
__device__ __forceinline__ unsigned tile_inclusive_scan(unsigned v[ITEMS])
{
    __shared__ unsigned warp_totals[THREADS / 32 + 1];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned carry = 0; // the warp's sum of the chunks before this one
    for (int q = 0; q < ITEMS / 4; ++q) {
        unsigned *four = &v[4 * q];
        four[1] += four[0], four[2] += four[1], four[3] += four[2];
        unsigned inclusive = warp_inclusive_scan(four[3]);
        unsigned add = carry + inclusive - four[3];
        four[0] += add, four[1] += add, four[2] += add, four[3] += add;
        carry += __shfl_sync(FULL_MASK, inclusive, 31);
    }
    if (lane == 0) {
        warp_totals[warp] = carry;
    }
    __syncthreads();
    if (warp == 0) { // the warps' totals, scanned: each warp's offset, and the tile's total
        unsigned t = lane < THREADS / 32 ? warp_totals[lane] : 0;
        unsigned inclusive = warp_inclusive_scan(t);
        if (lane < THREADS / 32) {
            warp_totals[lane] = inclusive - t;
        }
        if (lane == THREADS / 32 - 1) {
            warp_totals[THREADS / 32] = inclusive;
        }
    }
    __syncthreads();
    unsigned offset = warp_totals[warp];
    for (int i = 0; i < ITEMS; ++i) {
        v[i] += offset;
    }
    return warp_totals[THREADS / 32];
}

// Called by the 32 threads of warp 0. Publishes this tile's aggregate, then reads the status
// of the 32 tiles before it, one per lane, waiting while any is still EMPTY. If one of them
// has its PREFIX, the sum of it and the aggregates after it is this tile's exclusive prefix.
// Otherwise the 32 aggregates are added up and the window moves 32 tiles further back.
// Publishes this tile's own PREFIX and returns the exclusive one.
__device__ unsigned look_back(unsigned long long *status, int tile, unsigned aggregate,
                              int *stalled)
{
    // TODO: write the look-back, in the eight steps of "Challenge: the look-back of one tile".
    // Until then this publishes nothing and returns 0.
    return 0;
}

// Where a thread's chunk q starts: its warp's 32 * ITEMS elements, chunk q of 128, its 4 in it.
__device__ __forceinline__ long long striped(int tile, int q)
{
    return static_cast<long long>(tile) * TILE + (threadIdx.x >> 5) * 32 * ITEMS + q * 128 +
           (threadIdx.x & 31) * 4;
}

// A thread's ITEMS elements, warp-striped: 16-byte loads where whole, else checked.
__device__ __forceinline__ void load_items(const unsigned *in, int tile, int n, unsigned v[ITEMS])
{
    for (int q = 0; q < ITEMS / 4; ++q) {
        long long at = striped(tile, q);
        if (at + 4 <= n) {
            uint4 w = *reinterpret_cast<const uint4 *>(in + at);
            v[4 * q] = w.x, v[4 * q + 1] = w.y, v[4 * q + 2] = w.z, v[4 * q + 3] = w.w;
        } else {
            for (int j = 0; j < 4; ++j) {
                v[4 * q + j] = at + j < n ? in[at + j] : 0;
            }
        }
    }
}

__device__ __forceinline__ void store_items(unsigned *out, int tile, int n, const unsigned v[ITEMS],
                                            unsigned add)
{
    for (int q = 0; q < ITEMS / 4; ++q) {
        long long at = striped(tile, q);
        if (at + 4 <= n) {
            *reinterpret_cast<uint4 *>(out + at) =
                make_uint4(v[4 * q] + add, v[4 * q + 1] + add, v[4 * q + 2] + add,
                           v[4 * q + 3] + add);
        } else {
            for (int j = 0; j < 4 && at + j < n; ++j) {
                out[at + j] = v[4 * q + j] + add;
            }
        }
    }
}

// Tiles are numbered in the order their blocks start (a counter, not blockIdx.x), so every
// tile a block waits for belongs to a block that started earlier and is running or done.
extern "C" __global__ void __launch_bounds__(THREADS)
    scan_lookback_exercise(const unsigned *in, unsigned *out, int n, unsigned long long *status,
                           unsigned *next_tile, int *stalled)
{
    __shared__ int tile_shared;
    __shared__ unsigned prefix_shared;
    if (threadIdx.x == 0) {
        tile_shared = atomicAdd(next_tile, 1);
    }
    __syncthreads();
    int tile = tile_shared;
    unsigned v[ITEMS];
    load_items(in, tile, n, v);
    unsigned aggregate = tile_inclusive_scan(v);
    if (threadIdx.x < 32) {
        unsigned prefix = look_back(status, tile, aggregate, stalled);
        if (threadIdx.x == 0) {
            prefix_shared = prefix;
        }
    }
    __syncthreads();
    store_items(out, tile, n, v, prefix_shared);
}
// ANCHOR_END: exercise
