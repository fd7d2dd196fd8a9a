// Inclusive prefix sums (scans) of unsigned 32-bit integers, which wrap around modulo 2^32
// exactly as Rust's wrapping_add does: in a warp with shuffles, in a block through shared
// memory, and over a whole array in three kernels: first one value per thread, then faster,
// with 16 values per thread in registers, loaded and stored four at a time, in a design that
// reads the input twice but writes the output only once.
// check: scan_warps has shfl.sync.up.b32
// check: scan_warps lacks bar.sync
// check: scan_blocks has shfl.sync.up.b32
// check: scan_blocks has bar.sync
// check: scan_totals has bar.sync
// check: add_block_offsets lacks bar.sync
// check: reduce_tiles has ld.global.v4.u32
// check: reduce_tiles lacks st.global.v4.u32
// check: scan_tiles has ld.global.v4.u32
// check: scan_tiles has st.global.v4.u32
// check: every kernel lacks .f64
// launch scan_warps: n = len(in) = len(out); threads >= n
// launch scan_blocks: n = len(in) = len(out); len(block_totals) >= grid; block.x >= 32
// launch scan_blocks: threads >= n
// launch scan_totals: count = len(totals); block.x >= 32
// launch add_block_offsets: n = len(out); len(scanned_totals) + 1 >= grid; threads >= n
// launch reduce_tiles: n = len(in); len(tile_totals) >= grid; block.x >= 32; threads * ITEMS >= n
// launch reduce_tiles: aligned(in, 16)
// launch scan_tiles: n = len(in); len(out) >= n; len(scanned_totals) + 1 >= grid; block.x >= 32
// launch scan_tiles: threads * ITEMS >= n; aligned(in, 16); aligned(out, 16)
// A tile's first value (reduce_tiles) or a thread's (scan_tiles) is an int, and so is the end
// one tile or ITEMS past it: threads * ITEMS must fit in an int.
// launch reduce_tiles: threads * ITEMS <= 2147483647
// launch scan_tiles: threads * ITEMS <= 2147483647

#define FULL_MASK 0xffffffffu

// ANCHOR: warp_scan
// Lane k ends with the sum of lanes 0..=k. Step s adds the value from 2^s lanes up, so after
// five steps each lane has summed a window of 32 lanes, cut off at lane 0.
__device__ unsigned warp_inclusive_scan(unsigned v)
{
    int lane = threadIdx.x & 31;
    for (int delta = 1; delta <= 16; delta <<= 1) {
        unsigned up = __shfl_up_sync(FULL_MASK, v, delta);
        if (lane >= delta) {       // lanes below delta have nobody that far down
            v += up;
        }
    }
    return v;
}

extern "C" __global__ void scan_warps(const unsigned *in, unsigned *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned v = i < n ? in[i] : 0;
    v = warp_inclusive_scan(v);     // every lane takes part, even those past n
    if (i < n) {
        out[i] = v;
    }
}
// ANCHOR_END: warp_scan

// ANCHOR: block_scan
// The inclusive scan of one value per thread over the block (blockDim.x a multiple of 32, at
// most 1024). `*total` receives the sum of the whole block. Ends with a barrier, so that a
// loop may call it again: the shared totals are only rewritten once every thread has read them.
__device__ unsigned block_inclusive_scan(unsigned v, unsigned *total)
{
    __shared__ unsigned warp_totals[32];
    int lane = threadIdx.x % 32;
    int warp = threadIdx.x / 32;
    int warps = blockDim.x / 32;

    v = warp_inclusive_scan(v);                 // 1. each warp scans its 32 values
    if (lane == 31) {
        warp_totals[warp] = v;                  //    and its last lane holds the warp's sum
    }
    __syncthreads();
    if (warp == 0) {                            // 2. warp 0 scans the warps' sums
        unsigned t = lane < warps ? warp_totals[lane] : 0;
        warp_totals[lane] = warp_inclusive_scan(t);
    }
    __syncthreads();
    if (warp > 0) {
        v += warp_totals[warp - 1];             // 3. add the sum of all the warps before
    }
    *total = warp_totals[warps - 1];
    __syncthreads();
    return v;
}

extern "C" __global__ void scan_blocks(const unsigned *in, unsigned *out, int n,
                                       unsigned *block_totals)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned total;
    unsigned v = block_inclusive_scan(i < n ? in[i] : 0, &total);
    if (i < n) {
        out[i] = v;
    }
    if (block_totals != nullptr && threadIdx.x == 0) {
        block_totals[blockIdx.x] = total;
    }
}
// ANCHOR_END: block_scan

// ANCHOR: scan_totals
// Kernel 2: one block scans the blocks' totals in place, a block-sized piece at a time,
// carrying the running sum from one piece to the next.
extern "C" __global__ void scan_totals(unsigned *totals, int count)
{
    unsigned carry = 0;
    for (int start = 0; start < count; start += blockDim.x) {
        int i = start + threadIdx.x;
        unsigned piece_total;
        unsigned v = block_inclusive_scan(i < count ? totals[i] : 0, &piece_total);
        if (i < count) {
            totals[i] = carry + v;
        }
        carry += piece_total;
    }
}

// Kernel 3: every element of block b > 0 gets the sum of all the blocks before it.
extern "C" __global__ void add_block_offsets(unsigned *out, int n, const unsigned *scanned_totals)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x > 0 && i < n) {
        out[i] += scanned_totals[blockIdx.x - 1];
    }
}
// ANCHOR_END: scan_totals

// ANCHOR: tile_io
// The faster scan. Each thread holds ITEMS consecutive values in registers, so a block of
// blockDim.x threads covers a tile of blockDim.x * ITEMS values.
#define ITEMS 16

// Thread `t` of the block loads values first .. first + ITEMS - 1, four at a time as one
// 16-byte uint4 where all four exist (first is a multiple of 16, so the address is aligned),
// one at a time, with 0 past the end, in the last tile.
__device__ void load_items(const unsigned *in, int first, int n, unsigned x[ITEMS])
{
    if (first + ITEMS <= n) {
        const uint4 *in4 = reinterpret_cast<const uint4 *>(in + first);
        for (int k = 0; k < ITEMS / 4; k++) {
            uint4 q = in4[k];
            x[4 * k] = q.x;
            x[4 * k + 1] = q.y;
            x[4 * k + 2] = q.z;
            x[4 * k + 3] = q.w;
        }
    } else {
        for (int k = 0; k < ITEMS; k++) {
            x[k] = first + k < n ? in[first + k] : 0;
        }
    }
}

__device__ void store_items(unsigned *out, int first, int n, const unsigned x[ITEMS])
{
    if (first + ITEMS <= n) {
        uint4 *out4 = reinterpret_cast<uint4 *>(out + first);
        for (int k = 0; k < ITEMS / 4; k++) {
            out4[k] = make_uint4(x[4 * k], x[4 * k + 1], x[4 * k + 2], x[4 * k + 3]);
        }
    } else {
        for (int k = 0; k < ITEMS && first + k < n; k++) {
            out[first + k] = x[k];
        }
    }
}
// ANCHOR_END: tile_io

// ANCHOR: reduce_then_scan
// Pass 1: each block only sums its tile and writes the total: it reads the input and writes
// one word per tile. A sum does not care which thread adds which value, so here the block
// reads its tile in the order memory likes best: at each step, the 32 lanes of a warp load
// 32 consecutive uint4s, 512 consecutive bytes. (Pass 2 is scan_totals, above.)
extern "C" __global__ void reduce_tiles(const unsigned *in, int n, unsigned *tile_totals)
{
    int tile = blockDim.x * ITEMS;
    int start = blockIdx.x * tile;
    unsigned sum = 0;
    if (start + tile <= n) {
        const uint4 *in4 = reinterpret_cast<const uint4 *>(in + start);
        for (int k = 0; k < ITEMS / 4; k++) {
            uint4 q = in4[k * blockDim.x + threadIdx.x];
            sum += q.x + q.y + q.z + q.w;
        }
    } else {                                    // the last tile, cut short by the array's end
        for (int j = threadIdx.x; start + j < n; j += blockDim.x) {
            sum += in[start + j];
        }
    }
    unsigned tile_total;
    block_inclusive_scan(sum, &tile_total);     // only the block's total is needed here
    if (threadIdx.x == 0) {
        tile_totals[blockIdx.x] = tile_total;
    }
}

// Pass 3: each block reads its tile again and scans it, starting from the sum of all the
// tiles before it. The result is written once, already final.
extern "C" __global__ void scan_tiles(const unsigned *in, unsigned *out, int n,
                                      const unsigned *scanned_totals)
{
    int first = (blockIdx.x * blockDim.x + threadIdx.x) * ITEMS;
    unsigned x[ITEMS];
    load_items(in, first, n, x);

    for (int k = 1; k < ITEMS; k++) {           // 1. a serial scan in the thread's registers
        x[k] += x[k - 1];
    }
    unsigned unused;                            // 2. the block scan of the threads' totals,
    unsigned before = block_inclusive_scan(x[ITEMS - 1], &unused) - x[ITEMS - 1];
                                                //    made exclusive: the threads before mine
    if (blockIdx.x > 0) {
        before += scanned_totals[blockIdx.x - 1];   // 3. plus all the tiles before this one
    }
    for (int k = 0; k < ITEMS; k++) {
        x[k] += before;
    }
    store_items(out, first, n, x);
}
// ANCHOR_END: reduce_then_scan
