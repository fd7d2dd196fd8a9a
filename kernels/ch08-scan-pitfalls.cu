// Four look-back scans that differ from chapter 8's only in how a tile's status is written and
// read, to show what each piece of ch08-scan.cu's guards against. They are kept simple: one
// element per thread, and thread 0 of each block walks back one tile at a time. A tile's status
// is three words here: its aggregate, its inclusive prefix, and a flag saying which of the two
// is ready (EMPTY, AGGREGATE or PREFIX).
// requires: sm_70
// check: every kernel lacks .f64
// check: scan_plain_loads lacks ld.volatile
// check: scan_split_reordered lacks membar
// check: scan_split_fenced has membar.gl
// launch scan_*: n = len(in) = len(out); threads >= n; block = block.x = 256
// launch scan_*: len(aggregates) >= grid; len(prefixes) >= grid; len(flags) >= grid
// launch scan_*: len(next_tile) >= 1; len(stalled) >= 1
// launch scan_*: zeroed(aggregates, prefixes, flags, next_tile)

#define THREADS 256
#define EMPTY 0u
#define AGGREGATE 1u
#define PREFIX 2u
#define SPIN_LIMIT (1 << 18)

// ANCHOR: block_scan
// The inclusive scan of one value per thread over the block; returns the thread's sum and
// leaves the block's total in *total.
__device__ unsigned block_inclusive_scan(unsigned v, unsigned *total)
{
    __shared__ unsigned sums[THREADS];
    sums[threadIdx.x] = v;
    __syncthreads();
    for (int d = 1; d < THREADS; d *= 2) {
        unsigned add = threadIdx.x >= d ? sums[threadIdx.x - d] : 0;
        __syncthreads();
        sums[threadIdx.x] += add;
        __syncthreads();
    }
    *total = sums[THREADS - 1];
    return sums[threadIdx.x];
}

// Stores `value` in `word`, then `state` in the tile's flag; with `fenced`, a fence between
// them makes every block see the value before it sees the flag.
__device__ __forceinline__ void publish(unsigned *word, unsigned value, unsigned *flag,
                                        unsigned state, bool fenced)
{
    *reinterpret_cast<volatile unsigned *>(word) = value;
    if (fenced) {
        __threadfence();
    }
    *reinterpret_cast<volatile unsigned *>(flag) = state;
}
// ANCHOR_END: block_scan

// ANCHOR: plain
// Pitfall 1: flags read with plain loads. Nothing tells the compiler or the cache that another
// block changes them, so a poll may read the same old copy again and again.
__device__ unsigned walk_back_plain(unsigned *aggregates, unsigned *prefixes, unsigned *flags,
                                    int tile, int *stalled)
{
    unsigned prefix = 0;
    for (int t = tile - 1; t >= 0; --t) {
        unsigned flag = flags[t];
        for (int polls = 1; flag == EMPTY; ++polls) {
            if (polls == SPIN_LIMIT) {
                atomicExch(stalled, 1);
                break;
            }
            flag = flags[t]; // may never see the new value
        }
        __threadfence();
        prefix += flag == PREFIX ? prefixes[t] : aggregates[t];
        if (flag == PREFIX) {
            break;
        }
    }
    return prefix;
}
// ANCHOR_END: plain

// ANCHOR: split
// Pitfall 2, when FENCED is false: the value loaded before its flag, as the hardware may do
// when no fence orders the two loads. With FENCED, the value is loaded after the flag, and a
// fence keeps it there: the right way with separate words.
template <bool FENCED>
__device__ unsigned walk_back_split(unsigned *aggregates, unsigned *prefixes, unsigned *flags,
                                    int tile, int *stalled)
{
    volatile unsigned *flag = flags, *aggregate = aggregates, *inclusive = prefixes;
    unsigned prefix = 0;
    for (int t = tile - 1; t >= 0; --t) {
        unsigned early_aggregate = aggregate[t], early_prefix = inclusive[t]; // too early
        unsigned state = flag[t];
        for (int polls = 1; state == EMPTY; ++polls) {
            if (polls == SPIN_LIMIT) {
                atomicExch(stalled, 1);
                break;
            }
            state = flag[t];
        }
        if (FENCED) {
            __threadfence();
            prefix += state == PREFIX ? inclusive[t] : aggregate[t];
        } else {
            prefix += state == PREFIX ? early_prefix : early_aggregate;
        }
        if (state == PREFIX) {
            break;
        }
    }
    return prefix;
}
// ANCHOR_END: split

// ANCHOR: one_word
// Pitfall 3: fences, but the aggregate and the prefix share one word. A reader that saw the
// flag say AGGREGATE may then load the word after the tile has overwritten it with its prefix,
// and count the tiles before it twice.
__device__ unsigned walk_back_one_word(unsigned *values, unsigned *, unsigned *flags, int tile,
                                       int *stalled)
{
    volatile unsigned *flag = flags, *value = values;
    unsigned prefix = 0;
    for (int t = tile - 1; t >= 0; --t) {
        unsigned state = flag[t];
        for (int polls = 1; state == EMPTY; ++polls) {
            if (polls == SPIN_LIMIT) {
                atomicExch(stalled, 1);
                break;
            }
            state = flag[t];
        }
        __threadfence();
        prefix += value[t]; // the aggregate, or by now the prefix
        if (state == PREFIX) {
            break;
        }
    }
    return prefix;
}
// ANCHOR_END: one_word

// ANCHOR: pitfall_kernel
// Tile numbers from a counter, a block scan, then thread 0 publishes the tile's aggregate, walks
// back, and publishes its prefix. ONE_WORD kernels keep both in `aggregates`.
#define PITFALL_KERNEL(NAME, WALK, FENCED, ONE_WORD)                                               \
    extern "C" __global__ void __launch_bounds__(THREADS)                                          \
        NAME(const unsigned *in, unsigned *out, int n, unsigned *aggregates, unsigned *prefixes,   \
             unsigned *flags, unsigned *next_tile, int *stalled)                                   \
    {                                                                                              \
        __shared__ int tile_shared;                                                                \
        __shared__ unsigned prefix_shared;                                                         \
        if (threadIdx.x == 0) {                                                                    \
            tile_shared = atomicAdd(next_tile, 1);                                                 \
        }                                                                                          \
        __syncthreads();                                                                           \
        int tile = tile_shared;                                                                    \
        long long i = static_cast<long long>(tile) * THREADS + threadIdx.x;                        \
        unsigned total;                                                                            \
        unsigned sum = block_inclusive_scan(i < n ? in[i] : 0, &total);                            \
        if (threadIdx.x == 0) {                                                                    \
            unsigned *inclusive = ONE_WORD ? aggregates : prefixes;                                \
            if (tile == 0) {                                                                       \
                publish(&inclusive[0], total, &flags[0], PREFIX, FENCED);                          \
            } else {                                                                               \
                publish(&aggregates[tile], total, &flags[tile], AGGREGATE, FENCED);                \
            }                                                                                      \
            unsigned prefix = WALK(aggregates, prefixes, flags, tile, stalled);                    \
            if (tile > 0) {                                                                        \
                publish(&inclusive[tile], prefix + total, &flags[tile], PREFIX, FENCED);           \
            }                                                                                      \
            prefix_shared = prefix;                                                                \
        }                                                                                          \
        __syncthreads();                                                                           \
        if (i < n) {                                                                               \
            out[i] = prefix_shared + sum;                                                          \
        }                                                                                          \
    }
PITFALL_KERNEL(scan_plain_loads, walk_back_plain, true, false)
PITFALL_KERNEL(scan_split_reordered, walk_back_split<false>, false, false)
PITFALL_KERNEL(scan_one_word, walk_back_one_word, true, true)
PITFALL_KERNEL(scan_split_fenced, walk_back_split<true>, true, false)
// ANCHOR_END: pitfall_kernel
