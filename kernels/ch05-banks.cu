// Shared-memory banks: a 32x32 tile of floats read by columns, without and with a padding
// column. The two kernels differ only in the tile's width.
// check: row_sums_unpadded has bar.sync
// check: row_sums_unpadded has ld.shared.f32
// check: row_sums_padded has ld.shared.f32
// check: row_sums_unpadded has [4096]
// check: row_sums_padded has [4224]
// check: every kernel lacks .f64
// launch row_sums_*: block.x = TILE; block.y = TILE; threads = len(x) = len(sums)

#define TILE 32         // a warp's width, and the number of banks
#define THREADS 1024    // TILE * TILE: one thread per word of the tile

// ANCHOR: unpadded
// Each block loads one 32x32 tile, then thread (lane, warp) sums row `lane` of it, starting
// at column `warp`. Lane i of a warp reads row i: one load of the warp is a column.
extern "C" __global__ void __launch_bounds__(THREADS)
    row_sums_unpadded(const float *x, float *sums)
{
    __shared__ float tile[TILE][TILE];
    int lane = threadIdx.x, warp = threadIdx.y;
    long long i = (long long)blockIdx.x * TILE * TILE + warp * TILE + lane;
    tile[warp][lane] = x[i];             // a warp stores one row: 32 words, 32 banks
    __syncthreads();
    float sum = 0.0f;
    for (int k = 0; k < TILE; k++) {
        // a warp loads one column: 32 words 32 words apart, all in one bank
        sum += tile[lane][(warp + k) % TILE];
    }
    sums[i] = sum;
}
// ANCHOR_END: unpadded

// ANCHOR: padded
// The same with one unused word at the end of every row: a row is 33 words long, so the
// column's 32 words fall in 32 different banks.
extern "C" __global__ void __launch_bounds__(THREADS)
    row_sums_padded(const float *x, float *sums)
{
    __shared__ float tile[TILE][TILE + 1];
    int lane = threadIdx.x, warp = threadIdx.y;
    long long i = (long long)blockIdx.x * TILE * TILE + warp * TILE + lane;
    tile[warp][lane] = x[i];
    __syncthreads();
    float sum = 0.0f;
    for (int k = 0; k < TILE; k++) {
        sum += tile[lane][(warp + k) % TILE];  // word 33 * lane + column: bank lane + column
    }
    sums[i] = sum;
}
// ANCHOR_END: padded
