// Warp shuffles: what each of the four hands to each lane, and warp sums and maxima built
// from five of them.
// check: shuffle_table has shfl.sync.idx.b32
// check: shuffle_table has shfl.sync.up.b32
// check: shuffle_table has shfl.sync.down.b32
// check: shuffle_table has shfl.sync.bfly.b32
// check: warp_sum_down_i32 has shfl.sync.down.b32
// check: warp_sum_xor_i32 has shfl.sync.bfly.b32
// check: warp_sum_down_f32 has shfl.sync.down.b32
// check: warp_sum_xor_f32 has shfl.sync.bfly.b32
// check: warp_max_xor_f32 has shfl.sync.bfly.b32
// check: warp_max_xor_f32 has max.f32
// check: every kernel lacks bar.sync
// check: every kernel lacks .shared
// check: every kernel lacks .f64
// launch shuffle_table: len(values) >= 32; len(table) >= 9 * 32; block = 32
// launch warp_*: n = len(x) = len(out); threads >= n

#define FULL_MASK 0xffffffffu

// ANCHOR: table
// One warp. Row r of `table` receives, for each of the 32 lanes, what shuffle r handed it.
// All 32 lanes execute every shuffle, as the full mask promises.
extern "C" __global__ void shuffle_table(const int *values, int *table)
{
    int lane = threadIdx.x;               // launched with exactly 32 threads
    int v = values[lane];
    int *row = table;
    row[lane] = __shfl_sync(FULL_MASK, v, 3);            row += 32; // everyone reads lane 3
    row[lane] = __shfl_sync(FULL_MASK, v, 0, 8);         row += 32; // lane 0 of each group of 8
    row[lane] = __shfl_up_sync(FULL_MASK, v, 1);         row += 32; // from lane - 1
    row[lane] = __shfl_up_sync(FULL_MASK, v, 16);        row += 32; // from lane - 16
    row[lane] = __shfl_down_sync(FULL_MASK, v, 1);       row += 32; // from lane + 1
    row[lane] = __shfl_down_sync(FULL_MASK, v, 16);      row += 32; // from lane + 16
    row[lane] = __shfl_down_sync(FULL_MASK, v, 1, 8);    row += 32; // lane + 1, within groups of 8
    row[lane] = __shfl_xor_sync(FULL_MASK, v, 1);        row += 32; // from lane ^ 1: swap pairs
    row[lane] = __shfl_xor_sync(FULL_MASK, v, 16);                  // from lane ^ 16: swap halves
}
// ANCHOR_END: table

// ANCHOR: warp_sum
// Five halving steps: lane i adds the value of lane i + 16, then i + 8, ... then i + 1.
// Only lane 0 has added all 32 values; the other lanes hold partial sums.
template <typename T>
__device__ T warp_sum_down(T v)
{
    for (int offset = 16; offset >= 1; offset >>= 1) {
        v += __shfl_down_sync(FULL_MASK, v, offset);
    }
    return v;
}

// The butterfly: lane i swaps with lane i ^ 16, then i ^ 8, ... then i ^ 1, and both add.
// After five steps every lane holds the sum of all 32.
template <typename T>
__device__ T warp_sum_xor(T v)
{
    for (int lane_mask = 16; lane_mask >= 1; lane_mask >>= 1) {
        v += __shfl_xor_sync(FULL_MASK, v, lane_mask);
    }
    return v;
}
// ANCHOR_END: warp_sum

// ANCHOR: warp_max
__device__ float warp_max_xor(float v)
{
    for (int lane_mask = 16; lane_mask >= 1; lane_mask >>= 1) {
        v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, lane_mask));
    }
    return v;
}
// ANCHOR_END: warp_max

// ANCHOR: kernels
// Each warp reduces its 32 consecutive elements, and every lane writes what it ends with,
// so the host sees the partial sums of the lanes other than 0 as well. n is a multiple of
// 32, and so is the number of threads, so every warp is complete: the full mask is right.
extern "C" __global__ void warp_sum_down_i32(const int *x, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {                          // the same for all 32 lanes of a warp
        out[i] = warp_sum_down(x[i]);
    }
}

extern "C" __global__ void warp_sum_xor_i32(const int *x, int *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = warp_sum_xor(x[i]);
    }
}
// ANCHOR_END: kernels

// ANCHOR: kernels_f32
extern "C" __global__ void warp_sum_down_f32(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = warp_sum_down(x[i]);
    }
}

extern "C" __global__ void warp_sum_xor_f32(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = warp_sum_xor(x[i]);
    }
}

extern "C" __global__ void warp_max_xor_f32(const float *x, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = warp_max_xor(x[i]);
    }
}
// ANCHOR_END: kernels_f32
