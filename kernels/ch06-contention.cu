// One total, many threads: the same sum with one global atomic per element, per warp, per
// block, and per block of a small grid that walks the data; and, for comparison, one atomic
// per element spread over many counters. The totals are 64-bit integers, so every way must
// give exactly the CPU's sum.
// NVRTC 13.0 writes every atomicAdd here as PTX `atom.global.add.u64`, even though no kernel
// uses the old value it returns (no `red.global` in the PTX).
// check: every kernel has atom.global.add.u64
// check: every kernel lacks red.global
// check: sum_atomic_warp has shfl.sync.down.b32
// check: sum_atomic_block has shfl.sync.down.b32
// check: sum_atomic_block has bar.sync
// check: sum_atomic_block_grid_stride has bar.sync
// check: every kernel lacks .f64
// (d)'s grid-stride loop is unrolled: four loads per trip, then a remainder loop that NVRTC
// marks nounroll. No other loop here leaves one (the shuffle loops are unrolled completely).
// check: sum_atomic_block_grid_stride has .pragma "nounroll"
// check: sum_atomic_block lacks .pragma "nounroll"
// launch sum_atomic_each: n = len(x); len(total) >= 1; threads >= n
// launch sum_atomic_warp: n = len(x); len(total) >= 1; threads >= n
// launch sum_atomic_block: n = len(x); len(total) >= 1; threads >= n
// launch sum_atomic_block_grid_stride: n = len(x); len(total) >= 1
// launch sum_atomic_spread: n = len(x); len(counters) >= counters_mask + 1; threads >= n

#define FULL_MASK 0xffffffffu
typedef unsigned long long u64;

// ANCHOR: each
// (a) Every thread adds its element straight into the one total.
extern "C" __global__ void sum_atomic_each(const unsigned *x, int n, u64 *total)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(total, (u64)x[i]);
    }
}
// ANCHOR_END: each

// ANCHOR: warp_sum
// Five shuffle steps; afterwards lane 0 holds the sum of the warp's 32 values. All 32 lanes
// must take part (the full mask), so no lane may have returned early.
__device__ u64 warp_sum(u64 v)
{
    for (int delta = 16; delta >= 1; delta >>= 1)
        v += __shfl_down_sync(FULL_MASK, v, delta);
    return v;
}
// ANCHOR_END: warp_sum

// ANCHOR: warp
// (b) The warp adds up its 32 elements first; one atomic per warp.
extern "C" __global__ void sum_atomic_warp(const unsigned *x, int n, u64 *total)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    u64 v = i < n ? x[i] : 0;          // lanes past the end add 0, but they stay
    v = warp_sum(v);
    if (threadIdx.x % 32 == 0) {
        atomicAdd(total, v);
    }
}
// ANCHOR_END: warp

// ANCHOR: block_sum
// The sum of v over the whole block, in thread 0. Each warp adds up its values with shuffles,
// lane 0 of each warp leaves its warp's sum in shared memory, and warp 0 adds those up.
// blockDim.x must be a multiple of 32 (at most 1024): warp 0 reads blockDim.x / 32 slots, so
// the sum of a partial last warp would be left out.
// Call it once per kernel: calling it again would overwrite warp_sums while warp 0 may still
// be reading them (the second barrier rule of the previous pages).
__device__ u64 block_sum(u64 v)
{
    __shared__ u64 warp_sums[32];      // room for 1024 threads, the most a block can have
    const int my_warp = threadIdx.x / 32;
    const int my_lane = threadIdx.x & 31;
    const int warps = blockDim.x / 32;
    v = warp_sum(v);
    if (my_lane == 0) warp_sums[my_warp] = v;
    __syncthreads();                   // every warp's sum is in
    v = 0;
    if (my_warp == 0) {
        v = warp_sum(my_lane < warps ? warp_sums[my_lane] : 0);
    }
    return v;
}
// ANCHOR_END: block_sum

// ANCHOR: block
// (c) The block adds up its elements first; one atomic per block.
extern "C" __global__ void sum_atomic_block(const unsigned *x, int n, u64 *total)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    u64 v = block_sum(i < n ? x[i] : 0);
    if (threadIdx.x == 0) {
        atomicAdd(total, v);
    }
}
// ANCHOR_END: block

// ANCHOR: block_grid_stride
// (d) A small grid: each thread first adds up many elements in a register, walking the array
// with a grid-stride loop, then the block adds up its threads; one atomic per block.
extern "C" __global__ void sum_atomic_block_grid_stride(const unsigned *x, int n, u64 *total)
{
    u64 v = 0;
    int first = blockIdx.x * blockDim.x + threadIdx.x;
    int stride = gridDim.x * blockDim.x;   // an int: `i += gridDim.x * blockDim.x` would add
                                           // an unsigned, and the loop would not be unrolled
    for (int i = first; i < n; i += stride) {
        v += x[i];
    }
    v = block_sum(v);
    if (threadIdx.x == 0) {
        atomicAdd(total, v);
    }
}
// ANCHOR_END: block_grid_stride

// ANCHOR: spread
// One atomic per element again, but onto `counters` separate totals (a power of two), chosen
// by the element's index, so that far fewer threads queue at any one address. The host adds
// the counters up at the end.
extern "C" __global__ void sum_atomic_spread(const unsigned *x, int n, u64 *counters, int counters_mask)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&counters[i & counters_mask], (u64)x[i]);
    }
}
// ANCHOR_END: spread
