// A 256-bin histogram of bytes whose values may crowd into a few bins, four ways that differ
// only in where a byte is counted: one histogram per block; one per warp; 32 interleaved copies,
// one per lane; and one per block updated once per distinct value of a warp (__match_any_sync).
// Each reads the bytes 16 at a time, from any address.
// check: every kernel has ld.global.nc.v4.u32
// check: every kernel has atom.shared.add.u32
// check: every kernel has atom.global.add.u32
// check: hist_match has match.any.sync.b32
// check: hist_block lacks match.any
// check: hist_lane lacks match.any
// launch hist_*: n = len(bytes); len(bins) >= BINS; block = block.x = THREADS; aligns_itself(bytes, 16)

#define BINS 256
#define THREADS 256                     // every kernel here runs blocks of exactly THREADS
#define WARPS (THREADS / 32)

// ANCHOR: count_bytes
// Calls add(byte, real) for every byte of bytes[0, n), with all 32 lanes of a warp calling it
// together: a lane with nothing left passes real = false. Most bytes come in 16-byte pieces from
// the first 16-byte boundary on, two pieces per lane at a time so that more loads are on their
// way while the bytes are counted; the few before the boundary and after the last whole piece
// (at most 30) go to the first warp of the grid, one per lane.
template <typename Add>
__device__ void count_bytes(const unsigned char *__restrict__ bytes, int n, Add add)
{
    int lane = threadIdx.x % 32;
    long long first = (long long)blockIdx.x * THREADS + threadIdx.x - lane; // the warp's lane 0
    long long threads = (long long)gridDim.x * THREADS;
    int head = (int)min((unsigned long long)n, (16 - (unsigned long long)bytes % 16) % 16);
    long long pieces = (n - head) / 16;
    const uint4 *wide = (const uint4 *)(bytes + head);
    auto count_piece = [&](uint4 piece, bool real) {
        unsigned words[4] = {piece.x, piece.y, piece.z, piece.w};
        for (int w = 0; w < 4; w++) {
            for (int b = 0; b < 4; b++) {
                add((words[w] >> (8 * b)) & 0xFF, real);
            }
        }
    };
    for (long long base = first; base < pieces; base += 2 * threads) {
        long long p = base + lane, q = base + threads + lane;
        uint4 near = p < pieces ? __ldg(&wide[p]) : make_uint4(0, 0, 0, 0);
        uint4 far = q < pieces ? __ldg(&wide[q]) : make_uint4(0, 0, 0, 0);
        count_piece(near, p < pieces);
        count_piece(far, q < pieces);
    }
    if (blockIdx.x == 0 && threadIdx.x < 32) {
        long long done = head + pieces * 16;
        int rest = head + (int)(n - done);
        bool real = lane < rest;
        unsigned char b = !real ? 0 : __ldg(&bytes[lane < head ? lane : done + lane - head]);
        add(b, real);
    }
}
// ANCHOR_END: count_bytes

// ANCHOR: merge
// Adds the block's counts into the global ones: one atomic per bin that is not empty.
__device__ void merge(unsigned count, unsigned bin, unsigned *bins)
{
    if (count != 0) {
        atomicAdd(&bins[bin], count);
    }
}
// ANCHOR_END: merge

// ANCHOR: hist_block
// One histogram per block: every byte is a shared atomic on its bin.
extern "C" __global__ void __launch_bounds__(THREADS)
hist_block(const unsigned char *__restrict__ bytes, int n, unsigned *bins)
{
    __shared__ unsigned local[BINS];
    local[threadIdx.x] = 0;             // THREADS == BINS: one bin per thread
    __syncthreads();
    count_bytes(bytes, n, [&](unsigned v, bool real) {
        if (real) {
            atomicAdd(&local[v], 1u);
        }
    });
    __syncthreads();
    merge(local[threadIdx.x], threadIdx.x, bins);
}
// ANCHOR_END: hist_block

// ANCHOR: hist_warp
// One histogram per warp: warps no longer meet on a bin, the lanes of one warp still do.
extern "C" __global__ void __launch_bounds__(THREADS)
hist_warp(const unsigned char *__restrict__ bytes, int n, unsigned *bins)
{
    __shared__ unsigned local[WARPS][BINS];
    int warp = threadIdx.x / 32;
    for (int w = 0; w < WARPS; w++) {
        local[w][threadIdx.x] = 0;
    }
    __syncthreads();
    count_bytes(bytes, n, [&](unsigned v, bool real) {
        if (real) {
            atomicAdd(&local[warp][v], 1u);
        }
    });
    __syncthreads();
    unsigned sum = 0;
    for (int w = 0; w < WARPS; w++) {
        sum += local[w][threadIdx.x];
    }
    merge(sum, threadIdx.x, bins);
}
// ANCHOR_END: hist_warp

// ANCHOR: hist_lane
// 32 copies, one per lane, interleaved: lane l counts bin v in local[v][l], which lies in bank
// l whatever v is. No two lanes of a warp touch one word or one bank, however skewed the bytes.
extern "C" __global__ void __launch_bounds__(THREADS)
hist_lane(const unsigned char *__restrict__ bytes, int n, unsigned *bins)
{
    __shared__ unsigned local[BINS][32];
    int lane = threadIdx.x % 32;
    for (int i = threadIdx.x; i < BINS * 32; i += THREADS) {
        (&local[0][0])[i] = 0;
    }
    __syncthreads();
    count_bytes(bytes, n, [&](unsigned v, bool real) {
        if (real) {
            atomicAdd(&local[v][lane], 1u); // the lanes of other warps may share the word
        }
    });
    __syncthreads();
    // Thread t adds up bin t's 32 copies, starting at copy t % 32 so that the 32 threads of a
    // warp read 32 different banks at each step.
    unsigned sum = 0;
    for (int c = 0; c < 32; c++) {
        sum += local[threadIdx.x][(c + threadIdx.x) % 32];
    }
    merge(sum, threadIdx.x, bins);
}
// ANCHOR_END: hist_lane

// ANCHOR: hist_match
// One histogram per block, but the lanes holding the same value first find each other
// (__match_any_sync) and the lowest of them adds their number in one atomic.
extern "C" __global__ void __launch_bounds__(THREADS)
hist_match(const unsigned char *__restrict__ bytes, int n, unsigned *bins)
{
    __shared__ unsigned local[BINS];
    int lane = threadIdx.x % 32;
    local[threadIdx.x] = 0;
    __syncthreads();
    count_bytes(bytes, n, [&](unsigned v, bool real) {
        unsigned key = real ? v : BINS + lane; // a lane without a byte matches no other
        unsigned peers = __match_any_sync(0xFFFFFFFF, key);
        if (real && lane == __ffs(peers) - 1) {
            atomicAdd(&local[v], __popc(peers));
        }
    });
    __syncthreads();
    merge(local[threadIdx.x], threadIdx.x, bins);
}
// ANCHOR_END: hist_match
