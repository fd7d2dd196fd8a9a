// An LSD radix sort of unsigned 32-bit keys, eight bits at a time, in the "onesweep" style: one
// pass counts every digit of every key, then one pass per digit moves each key to its place.
// That place is the number of smaller digits (from the counts), plus the number of keys with
// the same digit in earlier tiles (a decoupled look-back, one per digit), plus the key's rank
// among its tile's keys with that digit. Ranks keep the input's order, so the sort is stable,
// which the passes after the first rely on.
// requires: sm_70
// check: every kernel lacks .f64
// check: radix_pass has ld.volatile.global.u32
// launch radix_histogram: n = len(keys); len(counts) >= 1024; block = block.x = THREADS
// launch radix_pass*: n = len(keys_in) = len(keys_out); threads * ITEMS >= n
// launch radix_pass*: threads * ITEMS <= 2147483648
// launch radix_pass*: block = block.x = THREADS
// launch radix_pass*: len(counts) >= 256; len(status) >= grid * 256; len(next_tile) >= 1
// launch radix_pass*: len(stalled) >= 1; shift <= 24; n <= 1073741823; zeroed(status, next_tile)
// launch radix_pass*: unsafe: `counts` must be radix_histogram's counts of these very keys
// launch radix_pass_pairs: len(values_in) = len(keys_in) = len(values_out)

#define THREADS 256 // one thread per digit in a tile's look-back
#ifndef ITEMS
#define ITEMS 16
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 4
#endif
#define TILE (THREADS * ITEMS)
#define WARPS (THREADS / 32)
#define DIGITS 256
#define FULL_MASK 0xffffffffu

// ANCHOR: status
// One status word per tile and digit: how many of the tile's keys have that digit (its
// AGGREGATE), or how many keys with that digit come before the tile's end in the sorted output
// (its PREFIX), in the low 30 bits; which of the two, in the top two. A sort of at most 2^30 - 1
// keys fits.
#define AGGREGATE (1u << 30)
#define PREFIX (2u << 30)
#define STATE_BITS (3u << 30)
// How long a tile waits for another's status before it gives up: far longer than any tile
// takes, even under compute-sanitizer, so that only a deadlock ends the wait.
#ifndef WAIT_LIMIT_NS
#define WAIT_LIMIT_NS 10000000000ull
#endif

__device__ __forceinline__ unsigned long long now_ns()
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ __forceinline__ unsigned read_status(const unsigned *at)
{
    return *reinterpret_cast<const volatile unsigned *>(at);
}
__device__ __forceinline__ void publish(unsigned *at, unsigned word)
{
    *reinterpret_cast<volatile unsigned *>(at) = word;
}
// ANCHOR_END: status

__device__ __forceinline__ unsigned digit_of(unsigned key, int shift)
{
    return (key >> shift) & (DIGITS - 1);
}

// ANCHOR: histogram
// The counts of every digit at every position: counts[256 * p + d] is the number of keys whose
// digit p (bits 8p to 8p + 7) is d. Each block counts into shared memory, then adds its counts
// to the global ones.
extern "C" __global__ void __launch_bounds__(THREADS)
    radix_histogram(const unsigned *keys, int n, unsigned *counts)
{
    __shared__ unsigned block_counts[4][DIGITS];
    for (int i = threadIdx.x; i < 4 * DIGITS; i += THREADS) {
        block_counts[i / DIGITS][i % DIGITS] = 0;
    }
    __syncthreads();
    for (long long i = blockIdx.x * THREADS + threadIdx.x; i < n;
         i += static_cast<long long>(gridDim.x) * THREADS) {
        unsigned key = keys[i];
        for (int p = 0; p < 4; ++p) {
            atomicAdd(&block_counts[p][digit_of(key, 8 * p)], 1u);
        }
    }
    __syncthreads();
    for (int i = threadIdx.x; i < 4 * DIGITS; i += THREADS) {
        atomicAdd(&counts[i], block_counts[i / DIGITS][i % DIGITS]);
    }
}
// ANCHOR_END: histogram

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

// The exclusive scan of one value per thread over the block (THREADS = DIGITS). Every thread
// of the block must call it.
__device__ unsigned block_exclusive_scan(unsigned v)
{
    __shared__ unsigned warp_totals[WARPS];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    unsigned inclusive = warp_inclusive_scan(v);
    if (lane == 31) {
        warp_totals[warp] = inclusive;
    }
    __syncthreads();
    unsigned before = 0;
    for (int w = 0; w < warp; ++w) {
        before += warp_totals[w];
    }
    __syncthreads(); // warp_totals is free again for the next call
    return before + inclusive - v;
}

// ANCHOR: rank
// The lanes of the warp whose `digit` (nine bits: 0 to 255, or DIGITS for no key) equals this
// lane's: one ballot per bit keeps the lanes that agree with it on that bit.
__device__ __forceinline__ unsigned lanes_with_same(unsigned digit)
{
    unsigned peers = FULL_MASK;
    for (int b = 0; b < 9; ++b) {
        unsigned ones = __ballot_sync(FULL_MASK, (digit >> b) & 1);
        peers &= (digit >> b) & 1 ? ones : ~ones;
    }
    return peers;
}

// Ranks the tile's keys by digit, keeping their order. Item i of lane l in warp w is the tile's
// key w * 32 * ITEMS + 32 * i + l, so a warp's keys come in order item by item, lane by lane.
// For each item, the lowest lane of each group with one digit reads how many keys of that
// digit the warp has seen, and adds the group's size. A key's rank is that count plus the
// number of its group in lower lanes. Keys past the end (digit DIGITS) take no part.
__device__ __forceinline__ void rank_in_warp(const unsigned key[ITEMS], int mine, int n, int shift,
                                             unsigned rank[ITEMS], unsigned *warp_counts)
{
    int lane = threadIdx.x & 31;
    for (int i = 0; i < ITEMS; ++i) {
        bool real = mine + 32 * i < n;
        unsigned digit = real ? digit_of(key[i], shift) : DIGITS;
        unsigned peers = lanes_with_same(digit);
        int leader = __ffs(peers) - 1;
        unsigned seen = 0;
        if (lane == leader && real) {
            seen = warp_counts[digit];
            warp_counts[digit] = seen + __popc(peers);
        }
        rank[i] = __shfl_sync(FULL_MASK, seen, leader) + __popc(peers & ((1u << lane) - 1));
        __syncwarp(); // the count written here is read by the next item's leader
    }
}
// ANCHOR_END: rank

// ANCHOR: look_back
// Thread d of the block handles digit d: it publishes how many of this tile's keys have digit d,
// then walks back through earlier tiles, adding their counts, until one has published its
// PREFIX. Tile 0 starts from the number of keys with a smaller digit, `first`. Returns where
// the tile's first key with digit d goes in the output; a wait that gives up sets *stalled.
__device__ unsigned digit_look_back(unsigned *status, int tile, unsigned count, unsigned first,
                                    int *stalled)
{
    unsigned *mine = &status[tile * DIGITS + threadIdx.x];
    if (tile == 0) {
        publish(mine, PREFIX | (first + count));
        return first;
    }
    publish(mine, AGGREGATE | count);
    unsigned before = 0;
    for (int t = tile - 1; t >= 0; --t) {
        const unsigned *theirs = &status[t * DIGITS + threadIdx.x];
        unsigned s = read_status(theirs);
        for (unsigned long long since = now_ns(); (s & STATE_BITS) == 0;) {
            if (now_ns() - since > WAIT_LIMIT_NS) { // never published: say so, stop waiting
                atomicExch(stalled, 1);
                s = PREFIX;
                break;
            }
            s = read_status(theirs);
        }
        before += s & ~STATE_BITS;
        if ((s & STATE_BITS) == PREFIX) {
            break;
        }
    }
    publish(mine, PREFIX | (before + count));
    return before;
}
// ANCHOR_END: look_back

// ANCHOR: pass
// One pass over the digit at `shift`. `counts` holds that digit's 256 counts over all keys.
// Tiles are numbered in the order their blocks start, as in the scan.
template <bool PAIRS>
__device__ __forceinline__ void radix_pass_body(const unsigned *keys_in, unsigned *keys_out,
                                                const unsigned *values_in, unsigned *values_out,
                                                int n, int shift, const unsigned *counts,
                                                unsigned *status, unsigned *next_tile,
                                                int *stalled)
{
    __shared__ int tile_shared;
    __shared__ unsigned warp_counts[WARPS][DIGITS]; // then: where a warp's keys of a digit start
    __shared__ unsigned digit_offset[DIGITS];       // from a place in the tile to one in out
    __shared__ unsigned sorted_keys[TILE];
    __shared__ unsigned sorted_values[PAIRS ? TILE : 1];
    int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, d = threadIdx.x;
    for (int w = 0; w < WARPS; ++w) {
        warp_counts[w][d] = 0;
    }
    if (threadIdx.x == 0) {
        tile_shared = atomicAdd(next_tile, 1);
    }
    __syncthreads();
    int tile = tile_shared;
    int mine = tile * TILE + warp * 32 * ITEMS + lane; // this thread's first key; n < 2^30
    unsigned key[ITEMS], rank[ITEMS];
    for (int i = 0; i < ITEMS; ++i) {
        key[i] = mine + 32 * i < n ? keys_in[mine + 32 * i] : 0;
    }
    rank_in_warp(key, mine, n, shift, rank, warp_counts[warp]);
    __syncthreads();

    // Thread d: how many keys of digit d the tile has, where d's run starts in the tile, where
    // each warp's keys of d start in it, and where the run goes in the output.
    unsigned count = 0;
    for (int w = 0; w < WARPS; ++w) {
        count += warp_counts[w][d];
    }
    unsigned start = block_exclusive_scan(count);
    for (int w = 0, run = start; w < WARPS; ++w) {
        unsigned c = warp_counts[w][d];
        warp_counts[w][d] = run;
        run += c;
    }
    unsigned first = tile == 0 ? block_exclusive_scan(counts[d]) : 0; // tile-uniform branch
    unsigned goes_to = digit_look_back(status, tile, count, first, stalled);
    digit_offset[d] = goes_to - start;
    // A place computed after a give-up may lie outside out: write nothing. One verdict for the
    // whole block (a thread that left alone would leave the others waiting at a barrier), and
    // each thread that gave up has seen its own flag.
    if (__syncthreads_or(*reinterpret_cast<volatile int *>(stalled))) {
        return;
    }

    // The tile's keys sorted by digit in shared memory, then copied out run by run: neighbouring
    // threads write neighbouring places in out.
    for (int i = 0; i < ITEMS; ++i) {
        if (mine + 32 * i < n) {
            unsigned place = warp_counts[warp][digit_of(key[i], shift)] + rank[i];
            sorted_keys[place] = key[i];
            if (PAIRS) {
                sorted_values[place] = values_in[mine + 32 * i];
            }
        }
    }
    __syncthreads();
    int in_tile = min(TILE, n - tile * TILE);
    for (int j = threadIdx.x; j < in_tile; j += THREADS) {
        unsigned k = sorted_keys[j];
        unsigned at = digit_offset[digit_of(k, shift)] + j;
        keys_out[at] = k;
        if (PAIRS) {
            values_out[at] = sorted_values[j];
        }
    }
}

extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    radix_pass(const unsigned *keys_in, unsigned *keys_out, int n, int shift,
               const unsigned *counts, unsigned *status, unsigned *next_tile, int *stalled)
{
    radix_pass_body<false>(keys_in, keys_out, nullptr, nullptr, n, shift, counts, status,
                           next_tile, stalled);
}
// ANCHOR_END: pass

// The same pass carrying a value with each key: the values land where their keys do.
extern "C" __global__ void __launch_bounds__(THREADS, MIN_BLOCKS)
    radix_pass_pairs(const unsigned *keys_in, unsigned *keys_out, const unsigned *values_in,
                     unsigned *values_out, int n, int shift, const unsigned *counts,
                     unsigned *status, unsigned *next_tile, int *stalled)
{
    radix_pass_body<true>(keys_in, keys_out, values_in, values_out, n, shift, counts, status,
                          next_tile, stalled);
}
