// A single-pass inclusive scan of unsigned 32-bit integers (wrapping modulo 2^32, as Rust's
// wrapping_add does) with decoupled look-back, and an order-preserving compaction built on the
// same look-back. Each block scans one tile of elements, publishes its total, and finds
// the sum of everything before it by reading its predecessors' published totals.
// requires: sm_70
// check: every kernel lacks .f64
// check: scan_lookback has ld.volatile.global.u64
// check: scan_lookback has st.volatile.global.u64
// check: scan_lookback has atom.global.add.u32
// check: scan_lookback has ld.global.v4.u32
// check: scan_lookback has st.global.v4.u32
// check: select_lookback has ld.volatile.global.u64
// launch scan_*: n = len(in) = len(out); threads * SCAN_ITEMS >= n; block = block.x = SCAN_THREADS
// launch scan_*: len(status) >= grid; len(next_tile) >= 1; len(stalled) >= 1
// launch scan_*: zeroed(status, next_tile); aligned(in, 16); aligned(out, 16)
// launch select_lookback: n = len(in) = len(out); threads * SELECT_ITEMS >= n
// launch select_lookback: block = block.x = SELECT_THREADS; len(status) >= grid
// launch select_lookback: len(next_tile) >= 1; len(stalled) >= 1; len(count) >= 1
// launch select_lookback: zeroed(status, next_tile); aligned(in, 16)

// The scan's blocks: 40 elements per thread, tiles of 5120. The select's: 16 per thread,
// tiles of 4096, which it also keeps in shared memory.
#define SCAN_THREADS 128
#define SCAN_ITEMS 40
#define SELECT_THREADS 256
#define SELECT_ITEMS 16
#define FULL_MASK 0xffffffffu

// ANCHOR: status
// A tile's status is one 64-bit word: its published value in the high 32 bits, and what that
// value is in the low 2. Value and state change together in one store, so a reader that sees
// the state also sees its value: no fence is needed between them.
#define EMPTY 0ull     // nothing published yet
#define AGGREGATE 1ull // the sum of this tile's own elements
#define PREFIX 2ull    // the sum of every element up to the end of this tile
// How long a tile waits for another's status before it gives up: ten seconds, far longer than
// any tile takes even under compute-sanitizer, so that only a deadlock ends the wait. A count
// of polls would not do: how long it lasts depends on how fast the GPU polls, and a debugger's
// pause or time slicing can use it up while the other tile is fine.
#ifndef WAIT_LIMIT_NS
#define WAIT_LIMIT_NS 10000000000ull
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
// ANCHOR_END: status

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

// ANCHOR: tile_scan
// A tile is held warp-striped: warp w owns the 32 * ITEMS elements from w * 32 * ITEMS, in chunks
// of 128, and lane l holds elements 4l to 4l + 3 of each chunk, so that each of the warp's loads
// and stores covers 512 neighbouring bytes. Replaces each value by the inclusive scan of the
// tile up to it, and returns the tile's total.
template <int ITEMS> __device__ __forceinline__ unsigned tile_inclusive_scan(unsigned v[ITEMS])
{
    __shared__ unsigned warp_totals[33];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
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
        unsigned t = lane < warps ? warp_totals[lane] : 0;
        unsigned inclusive = warp_inclusive_scan(t);
        if (lane < warps) {
            warp_totals[lane] = inclusive - t;
        }
        if (lane == warps - 1) {
            warp_totals[warps] = inclusive;
        }
    }
    __syncthreads();
    unsigned offset = warp_totals[warp];
    for (int i = 0; i < ITEMS; ++i) {
        v[i] += offset;
    }
    return warp_totals[warps];
}
// ANCHOR_END: tile_scan

// ANCHOR: look_back
// ANCHOR: look_back_signature
// Called by the 32 threads of warp 0. Publishes this tile's aggregate, then reads the status
// of the 32 tiles before it, one per lane, waiting while any is still EMPTY. If one of them
// has its PREFIX, the sum of it and the aggregates after it is this tile's exclusive prefix.
// Otherwise the 32 aggregates are added up and the window moves 32 tiles further back.
// Publishes this tile's own PREFIX and returns the exclusive one.
__device__ unsigned look_back(unsigned long long *status, int tile, unsigned aggregate,
                              int *stalled)
// ANCHOR_END: look_back_signature
{
    int lane = threadIdx.x & 31;
    if (lane == 0) {
        publish(&status[tile], aggregate, tile == 0 ? PREFIX : AGGREGATE);
    }
    unsigned prefix = 0;
    for (int end = tile; end > 0; end -= 32) {
        int before = end - 32 + lane; // lane 31 reads the nearest tile
        unsigned long long s = before >= 0 ? read_status(&status[before]) : PREFIX;
        if ((s & 3) == EMPTY) {
            unsigned long long since = now_ns();
            do {
                if (now_ns() - since > WAIT_LIMIT_NS) { // never published: say so, stop waiting
                    atomicExch(stalled, 1);
                    s = PREFIX;
                    break;
                }
                s = read_status(&status[before]);
            } while ((s & 3) == EMPTY);
        }
        unsigned prefixes = __ballot_sync(FULL_MASK, (s & 3) == PREFIX);
        int nearest = prefixes ? 31 - __clz(prefixes) : 0; // the last lane holding a PREFIX
        prefix += warp_sum(lane >= nearest ? static_cast<unsigned>(s >> 32) : 0);
        if (prefixes) {
            break;
        }
    }
    if (lane == 0 && tile > 0) {
        publish(&status[tile], prefix + aggregate, PREFIX);
    }
    return prefix;
}
// ANCHOR_END: look_back

// ANCHOR: items
// Where a thread's chunk q starts: its warp's 32 * ITEMS elements, chunk q of 128, its 4 in it.
template <int ITEMS> __device__ __forceinline__ long long striped(int tile, int q)
{
    return static_cast<long long>(tile) * blockDim.x * ITEMS + (threadIdx.x >> 5) * 32 * ITEMS +
           q * 128 + (threadIdx.x & 31) * 4;
}

// A thread's ITEMS elements, warp-striped: 16-byte loads where whole, else checked.
template <int ITEMS>
__device__ __forceinline__ void load_items(const unsigned *in, int tile, int n, unsigned v[ITEMS])
{
    for (int q = 0; q < ITEMS / 4; ++q) {
        long long at = striped<ITEMS>(tile, q);
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

template <int ITEMS>
__device__ __forceinline__ void store_items(unsigned *out, int tile, int n, const unsigned v[ITEMS],
                                            unsigned add)
{
    for (int q = 0; q < ITEMS / 4; ++q) {
        long long at = striped<ITEMS>(tile, q);
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
// ANCHOR_END: items

// ANCHOR: take_tile
// Tiles are numbered in the order their blocks start (a counter, not blockIdx.x), so every
// tile a block waits for belongs to a block that started earlier and is running or done. The
// block that takes the last number sets the counter back to zero for the next launch: every
// other block has taken its number by then.
__device__ __forceinline__ int take_tile(unsigned *next_tile)
{
    unsigned tile = atomicAdd(next_tile, 1);
    if (tile == gridDim.x - 1) {
        *next_tile = 0;
    }
    return tile;
}
// ANCHOR_END: take_tile

// ANCHOR: scan
#define SCAN_KERNEL(NAME, TILE_NUMBER)                                                             \
    extern "C" __global__ void __launch_bounds__(SCAN_THREADS)                                     \
        NAME(const unsigned *in, unsigned *out, int n, unsigned long long *status,                 \
             unsigned *next_tile, int *stalled)                                                    \
    {                                                                                              \
        __shared__ int tile_shared;                                                                \
        __shared__ unsigned prefix_shared;                                                         \
        if (threadIdx.x == 0) {                                                                    \
            tile_shared = TILE_NUMBER;                                                             \
        }                                                                                          \
        __syncthreads();                                                                           \
        int tile = tile_shared;                                                                    \
        unsigned v[SCAN_ITEMS];                                                                    \
        load_items<SCAN_ITEMS>(in, tile, n, v);                                                    \
        unsigned aggregate = tile_inclusive_scan<SCAN_ITEMS>(v);                                   \
        if (threadIdx.x < 32) {                                                                    \
            unsigned prefix = look_back(status, tile, aggregate, stalled);                         \
            if (threadIdx.x == 0) {                                                                \
                prefix_shared = prefix;                                                            \
            }                                                                                      \
        }                                                                                          \
        __syncthreads();                                                                           \
        store_items<SCAN_ITEMS>(out, tile, n, v, prefix_shared);                                   \
    }
SCAN_KERNEL(scan_lookback, take_tile(next_tile))
// ANCHOR_END: scan

// ANCHOR: wrong_order
// The same kernel with tiles numbered from blockIdx.x, backwards. Blocks that start first take
// the last tiles and wait for tiles whose blocks cannot start until a running block finishes.
SCAN_KERNEL(scan_lookback_backwards, static_cast<int>(gridDim.x - 1 - blockIdx.x))
// ANCHOR_END: wrong_order

// ANCHOR: select
// Keeps the elements below `threshold`, in their order. Scanning the 0s and 1s of "kept" gives
// each kept element its place among the tile's kept ones: the block packs them in order into
// shared memory. The look-back sums the tiles' counts, so each tile learns where its first kept
// element goes, and the block copies them out side by side.
// Eight blocks of 256 threads per SM (at most 32 registers each) keep enough loads in flight.
extern "C" __global__ void __launch_bounds__(SELECT_THREADS, 8) select_lookback(
    const float *in, float *out, int n, float threshold, unsigned long long *status,
    unsigned *next_tile, int *stalled, unsigned *count)
{
    __shared__ int tile_shared;
    __shared__ unsigned prefix_shared;
    const int ITEMS = SELECT_ITEMS, TILE = SELECT_THREADS * SELECT_ITEMS;
    __shared__ float kept_in_order[TILE];
    if (threadIdx.x == 0) {
        tile_shared = take_tile(next_tile);
    }
    __syncthreads();
    int tile = tile_shared;
    float x[ITEMS];
    unsigned place[ITEMS];
    load_items<ITEMS>(reinterpret_cast<const unsigned *>(in), tile, n,
                      reinterpret_cast<unsigned *>(x));
    bool whole = static_cast<long long>(tile + 1) * TILE <= n; // only the last tile is checked
    for (int i = 0; i < ITEMS; ++i) {
        place[i] = x[i] < threshold && (whole || striped<ITEMS>(tile, i / 4) + i % 4 < n);
    }
    bool keep[ITEMS];
    for (int i = 0; i < ITEMS; ++i) {
        keep[i] = place[i];
    }
    unsigned aggregate = tile_inclusive_scan<ITEMS>(place); // place[i] - 1: where x[i] goes
    for (int i = 0; i < ITEMS; ++i) {
        if (keep[i]) {
            kept_in_order[place[i] - 1] = x[i];
        }
    }
    if (threadIdx.x < 32) {
        unsigned prefix = look_back(status, tile, aggregate, stalled);
        if (threadIdx.x == 0) {
            prefix_shared = prefix;
            if (static_cast<long long>(tile + 1) * TILE >= n) { // the last tile knows the total
                *count = prefix + aggregate;
            }
        }
    }
    __syncthreads();
    for (unsigned j = threadIdx.x; j < aggregate; j += SELECT_THREADS) {
        out[prefix_shared + j] = kept_in_order[j];
    }
}
// ANCHOR_END: select
