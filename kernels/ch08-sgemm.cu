// Single-precision matrix multiplication C = A·B on the CUDA cores, one rung of the ladder per
// kernel. A is m×k, B is k×n, C is m×n, all row-major float. Every kernel is right for any
// m, n and k: what lies outside a matrix is read as zero and never written.
// check: every kernel lacks .f64
// check: every kernel lacks mma
// check: sgemm_shared_tiles has bar.sync
// check: sgemm_2d_blocking has ld.shared.f32
// check: sgemm_vectorised has ld.global.v4.f32
// check: sgemm_vectorised has ld.shared.v4.f32
// check: sgemm_conflict_free has ld.shared.v4.f32
// check: sgemm_double_buffered has ld.shared.v4.f32
// check: sgemm_warp_tiles_128x128x8_64x32_1 has ld.shared.v4.f32
// check: sgemm_warp_tiles_128x128x8_64x32_1 has st.global.v4.f32
// launch sgemm_*: len(a) = m * k; len(b) = k * n; len(c) = m * n
// launch sgemm_*: m * k <= 2147483647; k * n <= 2147483647; m * n <= 2147483647
// launch sgemm_*: k + 32 <= 2147483648; aligned(a, 16); aligned(b, 16); aligned(c, 16)
// launch sgemm_rows_across_warp: threads.x >= m; threads.y >= n
// launch sgemm_shared_tiles: block.x = block.y = TILE; threads.x >= n; threads.y >= m
// launch sgemm_1d_blocking: block = block.x = 512; grid.x * 64 >= n; grid.y * 64 >= m
// launch sgemm_2d_blocking: block = block.x = 256; grid.x * 128 >= n; grid.y * 128 >= m
// launch sgemm_vectorised: block = block.x = 256; grid.x * 128 >= n; grid.y * 128 >= m
// launch sgemm_conflict_free: block = block.x = 256; grid.x * 128 >= n; grid.y * 128 >= m
// launch sgemm_double_buffered: block = block.x = 256; grid.x * 128 >= n; grid.y * 128 >= m

// ANCHOR: edges
// One element of a rows×cols matrix, or zero outside it.
__device__ __forceinline__ float load1(const float *p, int rows, int cols, int row, int col)
{
    return (row < rows && col < cols) ? p[row * cols + col] : 0.0f;
}

// Four neighbours of one row, from column `col` (a multiple of 4). One 16-byte load when all
// four are inside and aligned (cols a multiple of 4), four checked loads otherwise.
__device__ __forceinline__ float4 load4(const float *p, int rows, int cols, int row, int col)
{
    if (row < rows && col + 3 < cols && cols % 4 == 0) {
        return *reinterpret_cast<const float4 *>(p + row * cols + col);
    }
    return make_float4(load1(p, rows, cols, row, col), load1(p, rows, cols, row, col + 1),
                       load1(p, rows, cols, row, col + 2), load1(p, rows, cols, row, col + 3));
}

// The same four places written, each only where it lies inside.
__device__ __forceinline__ void store4(float *p, int rows, int cols, int row, int col, float4 v)
{
    if (row < rows && col + 3 < cols && cols % 4 == 0) {
        *reinterpret_cast<float4 *>(p + row * cols + col) = v;
        return;
    }
    float w[4] = {v.x, v.y, v.z, v.w};
    for (int j = 0; j < 4; ++j) {
        if (row < rows && col + j < cols) {
            p[row * cols + col + j] = w[j];
        }
    }
}
// ANCHOR_END: edges

// ANCHOR: rows_across_warp
// Chapter 4's kernel with x and y swapped. In a 16×16 block a warp takes 16 neighbouring rows
// of two columns: its reads of A and its writes of C land in 16 different 128-byte lines, one
// per row, while its reads of B are two neighbouring floats, each shared by 16 threads.
extern "C" __global__ void sgemm_rows_across_warp(
    const float *a, const float *b, float *c, int m, int n, int k)
{
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    int col = blockIdx.y * blockDim.y + threadIdx.y;
    if (row < m && col < n) {
        float sum = 0.0f;
        for (int i = 0; i < k; ++i) {
            sum += a[row * k + i] * b[i * n + col];
        }
        c[row * n + col] = sum;
    }
}
// ANCHOR_END: rows_across_warp

// ANCHOR: shared_tiles
// Each block computes a TILE×TILE block of C. Its threads copy a tile of A and a tile of B
// into shared memory together, then each reads TILE values of each from there: every
// element fetched from global memory now serves TILE threads.
#define TILE 32
extern "C" __global__ void __launch_bounds__(1024) // TILE * TILE threads
    sgemm_shared_tiles(
    const float *a, const float *b, float *c, int m, int n, int k)
{
    __shared__ float as[TILE][TILE];
    __shared__ float bs[TILE][TILE];
    int tx = threadIdx.x, ty = threadIdx.y;
    int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
    float sum = 0.0f;
    for (int k0 = 0; k0 < k; k0 += TILE) {
        as[ty][tx] = load1(a, m, k, row, k0 + tx);
        bs[ty][tx] = load1(b, k, n, k0 + ty, col);
        __syncthreads(); // both tiles are whole before anyone reads them
        for (int i = 0; i < TILE; ++i) {
            sum += as[ty][i] * bs[i][tx];
        }
        __syncthreads(); // nobody still reads them when the next pass overwrites them
    }
    if (row < m && col < n) {
        c[row * n + col] = sum;
    }
}
// ANCHOR_END: shared_tiles

// ANCHOR: blocking_1d
// A 64×64 block of C from tiles 8 wide along k, 512 threads: each thread computes a column of
// 8 elements, so each value of B it reads from shared memory serves 8 multiply-adds.
extern "C" __global__ void __launch_bounds__(512) sgemm_1d_blocking(
    const float *a, const float *b, float *c, int m, int n, int k)
{
    __shared__ float as[64][8];
    __shared__ float bs[8][64];
    int t = threadIdx.x;
    int col = t % 64, row8 = (t / 64) * 8; // this thread's column and first row in the block
    int row0 = blockIdx.y * 64, col0 = blockIdx.x * 64;
    float acc[8] = {};
    for (int k0 = 0; k0 < k; k0 += 8) {
        as[t / 8][t % 8] = load1(a, m, k, row0 + t / 8, k0 + t % 8);
        bs[t / 64][t % 64] = load1(b, k, n, k0 + t / 64, col0 + t % 64);
        __syncthreads();
        for (int i = 0; i < 8; ++i) {
            float b_i = bs[i][col];
            for (int r = 0; r < 8; ++r) {
                acc[r] += as[row8 + r][i] * b_i;
            }
        }
        __syncthreads();
    }
    for (int r = 0; r < 8; ++r) {
        if (row0 + row8 + r < m && col0 + col < n) {
            c[(row0 + row8 + r) * n + col0 + col] = acc[r];
        }
    }
}
// ANCHOR_END: blocking_1d

// ANCHOR: blocking_2d
// ANCHOR: blocking_2d_before_step
// A 128×128 block of C, 256 threads, each computing an 8×8 square of it: per step along k a
// thread reads 8 values of A and 8 of B from shared memory and does 64 multiply-adds.
extern "C" __global__ void __launch_bounds__(256) sgemm_2d_blocking(
    const float *a, const float *b, float *c, int m, int n, int k)
{
    __shared__ float as[128][8];
    __shared__ float bs[8][128];
    int t = threadIdx.x;
    int row8 = (t / 16) * 8, col8 = (t % 16) * 8;
    int row0 = blockIdx.y * 128, col0 = blockIdx.x * 128;
    float acc[8][8] = {};
    for (int k0 = 0; k0 < k; k0 += 8) {
        for (int l = t; l < 128 * 8; l += 256) { // four elements of each tile per thread
            as[l / 8][l % 8] = load1(a, m, k, row0 + l / 8, k0 + l % 8);
            bs[l / 128][l % 128] = load1(b, k, n, k0 + l / 128, col0 + l % 128);
        }
        __syncthreads();
        for (int i = 0; i < 8; ++i) {
            // Step i along k: this thread's 8 values of A and 8 of B into registers, then its
            // 64 multiply-adds from them.
// ANCHOR_END: blocking_2d_before_step
            float a_col[8], b_row[8];
            for (int r = 0; r < 8; ++r) {
                a_col[r] = as[row8 + r][i];
                b_row[r] = bs[i][col8 + r];
            }
            for (int r = 0; r < 8; ++r) {
                for (int s = 0; s < 8; ++s) {
                    acc[r][s] += a_col[r] * b_row[s];
                }
            }
// ANCHOR: blocking_2d_after_step
        }
        __syncthreads();
    }
    for (int r = 0; r < 8; ++r) {
        for (int s = 0; s < 8; ++s) {
            if (row0 + row8 + r < m && col0 + col8 + s < n) {
                c[(row0 + row8 + r) * n + col0 + col8 + s] = acc[r][s];
            }
        }
    }
}
// ANCHOR_END: blocking_2d_after_step
// ANCHOR_END: blocking_2d

// ANCHOR: vectorised
// The 2-D blocked kernel with 16-byte loads and stores. A's tile is stored transposed, k-major,
// so that a thread's 8 values of A for one step are neighbours too: two 16-byte reads of
// shared memory each for A and for B.
extern "C" __global__ void __launch_bounds__(256) sgemm_vectorised(
    const float *a, const float *b, float *c, int m, int n, int k)
{
    __shared__ __align__(16) float as[8][128]; // as[i][r] holds A[row0 + r][k0 + i]
    __shared__ __align__(16) float bs[8][128];
    int t = threadIdx.x;
    int row8 = (t / 16) * 8, col8 = (t % 16) * 8;
    int row0 = blockIdx.y * 128, col0 = blockIdx.x * 128;
    float acc[8][8] = {};
    for (int k0 = 0; k0 < k; k0 += 8) {
        float4 a4 = load4(a, m, k, row0 + t / 2, k0 + (t % 2) * 4);
        as[(t % 2) * 4 + 0][t / 2] = a4.x;
        as[(t % 2) * 4 + 1][t / 2] = a4.y;
        as[(t % 2) * 4 + 2][t / 2] = a4.z;
        as[(t % 2) * 4 + 3][t / 2] = a4.w;
        *reinterpret_cast<float4 *>(&bs[t / 32][(t % 32) * 4]) =
            load4(b, k, n, k0 + t / 32, col0 + (t % 32) * 4);
        __syncthreads();
        for (int i = 0; i < 8; ++i) {
            float4 a_lo = *reinterpret_cast<const float4 *>(&as[i][row8]);
            float4 a_hi = *reinterpret_cast<const float4 *>(&as[i][row8 + 4]);
            float4 b_lo = *reinterpret_cast<const float4 *>(&bs[i][col8]);
            float4 b_hi = *reinterpret_cast<const float4 *>(&bs[i][col8 + 4]);
            float a_col[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
            float b_row[8] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
            for (int r = 0; r < 8; ++r) {
                for (int s = 0; s < 8; ++s) {
                    acc[r][s] += a_col[r] * b_row[s];
                }
            }
        }
        __syncthreads();
    }
    for (int r = 0; r < 8; ++r) {
        for (int s = 0; s < 8; s += 4) {
            float4 v = make_float4(acc[r][s], acc[r][s + 1], acc[r][s + 2], acc[r][s + 3]);
            store4(c, m, n, row0 + row8 + r, col0 + col8 + s, v);
        }
    }
}
// ANCHOR_END: vectorised

// ANCHOR: conflict_free
// The vectorised kernel with two changes to how shared memory is laid out and read.
// 1. A thread's 8 rows are two groups of 4, 64 rows apart, and so are its 8 columns: the 8
//    threads served together by one 16-byte read then ask for 32 neighbouring floats, all
//    32 banks, instead of two threads per bank.
// 2. A row of A's transposed tile is 4 floats longer than the tile (PAD): the two threads that
//    write the same row r of A at k and k + 4 land 16 banks apart instead of in one bank.
#define PAD 4
__device__ __forceinline__ void split_8x8(float acc[8][8], const float *as_i, const float *bs_i,
                                          int row4, int col4)
{
    float4 a_lo = *reinterpret_cast<const float4 *>(as_i + row4);
    float4 a_hi = *reinterpret_cast<const float4 *>(as_i + row4 + 64);
    float4 b_lo = *reinterpret_cast<const float4 *>(bs_i + col4);
    float4 b_hi = *reinterpret_cast<const float4 *>(bs_i + col4 + 64);
    float a_col[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
    float b_row[8] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
    for (int r = 0; r < 8; ++r) {
#pragma unroll
        for (int s = 0; s < 8; ++s) {
            acc[r][s] += a_col[r] * b_row[s];
        }
    }
}

__device__ __forceinline__ void store_split_8x8(float *c, int m, int n, int row, int col,
                                                const float acc[8][8])
{
    for (int r = 0; r < 8; ++r) {
        for (int s = 0; s < 8; s += 4) {
            float4 v = make_float4(acc[r][s], acc[r][s + 1], acc[r][s + 2], acc[r][s + 3]);
            store4(c, m, n, row + (r / 4) * 64 + r % 4, col + (s / 4) * 64, v);
        }
    }
}

extern "C" __global__ void __launch_bounds__(256) sgemm_conflict_free(
    const float *a, const float *b, float *c, int m, int n, int k)
{
    __shared__ __align__(16) float as[8][128 + PAD];
    __shared__ __align__(16) float bs[8][128];
    int t = threadIdx.x;
    int row4 = (t / 16) * 4, col4 = (t % 16) * 4;
    int row0 = blockIdx.y * 128, col0 = blockIdx.x * 128;
    float acc[8][8] = {};
    for (int k0 = 0; k0 < k; k0 += 8) {
        float4 a4 = load4(a, m, k, row0 + t / 2, k0 + (t % 2) * 4);
        as[(t % 2) * 4 + 0][t / 2] = a4.x;
        as[(t % 2) * 4 + 1][t / 2] = a4.y;
        as[(t % 2) * 4 + 2][t / 2] = a4.z;
        as[(t % 2) * 4 + 3][t / 2] = a4.w;
        *reinterpret_cast<float4 *>(&bs[t / 32][(t % 32) * 4]) =
            load4(b, k, n, k0 + t / 32, col0 + (t % 32) * 4);
        __syncthreads();
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            split_8x8(acc, as[i], bs[i], row4, col4);
        }
        __syncthreads();
    }
    store_split_8x8(c, m, n, row0 + row4, col0 + col4, acc);
}
// ANCHOR_END: conflict_free

// ANCHOR: double_buffered
// The conflict-free kernel with two copies of each tile. While the block computes from one
// copy, each thread's loads of the next tile are already on their way to registers; it then
// stores them into the other copy. One barrier per tile instead of two: the next pass reads
// the copy just written and writes the one just read (see the barrier below).
extern "C" __global__ void __launch_bounds__(256) sgemm_double_buffered(
    const float *a, const float *b, float *c, int m, int n, int k)
{
    __shared__ __align__(16) float as[2][8][128 + PAD];
    __shared__ __align__(16) float bs[2][8][128];
    int t = threadIdx.x;
    int row4 = (t / 16) * 4, col4 = (t % 16) * 4;
    int row0 = blockIdx.y * 128, col0 = blockIdx.x * 128;
    float acc[8][8] = {};
    float4 a4 = load4(a, m, k, row0 + t / 2, 0 + (t % 2) * 4);
    float4 b4 = load4(b, k, n, 0 + t / 32, col0 + (t % 32) * 4);
    for (int k0 = 0, buf = 0; k0 < k; k0 += 8, buf ^= 1) {
        as[buf][(t % 2) * 4 + 0][t / 2] = a4.x;
        as[buf][(t % 2) * 4 + 1][t / 2] = a4.y;
        as[buf][(t % 2) * 4 + 2][t / 2] = a4.z;
        as[buf][(t % 2) * 4 + 3][t / 2] = a4.w;
        *reinterpret_cast<float4 *>(&bs[buf][t / 32][(t % 32) * 4]) = b4;
        // Everyone's part of this copy is stored, and (from the previous pass) everyone has
        // finished reading the copy that the next pass's stores will overwrite.
        __syncthreads();
        if (k0 + 8 < k) { // the next tile's loads, in flight during the arithmetic below
            a4 = load4(a, m, k, row0 + t / 2, k0 + 8 + (t % 2) * 4);
            b4 = load4(b, k, n, k0 + 8 + t / 32, col0 + (t % 32) * 4);
        }
#pragma unroll
        for (int i = 0; i < 8; ++i) {
            split_8x8(acc, as[buf][i], bs[buf][i], row4, col4);
        }
    }
    store_split_8x8(c, m, n, row0 + row4, col0 + col4, acc);
}
// ANCHOR_END: double_buffered

// ANCHOR: warp_tiles
// The block's BM×BN part of C is split among its warps, WM×WN each, and each warp's part
// among its 32 threads, 8×8 each (as two groups of 4 rows and two of 4 columns, for the
// banks). The threads of a warp now share rows and columns: per step along k, one warp reads
// WM + WN floats of shared memory, where the 16×16 layout of the kernels above had a warp
// read 16 + 128. Tiles are double-buffered as above. BK is the tile's width along k.
template <int BM, int BN, int BK, int WM, int WN, int THREADS>
__device__ __forceinline__ void sgemm_warp_tiles(
    const float *a, const float *b, float *c, int m, int n, int k)
{
    static_assert(THREADS == (BM / WM) * (BN / WN) * 32, "one warp per WM×WN part");
    constexpr int LANE_COLS = WN / 8;                     // a warp is (WM/8) × (WN/8) threads
    constexpr int A_LOADS = BM * BK / 4 / THREADS;        // 16-byte loads per thread per tile
    constexpr int B_LOADS = BK * BN / 4 / THREADS;
    static_assert((WM / 8) * (WN / 8) == 32, "a warp's part is 32 squares of 8x8");
    static_assert(A_LOADS * THREADS * 4 == BM * BK && B_LOADS * THREADS * 4 == BK * BN,
                  "the threads load each tile in whole 16-byte pieces");
    __shared__ __align__(16) float as[2][BK][BM + PAD];
    __shared__ __align__(16) float bs[2][BK][BN];
    int t = threadIdx.x, warp = t / 32, lane = t % 32;
    int row4 = (warp / (BN / WN)) * WM + (lane / LANE_COLS) * 4;
    int col4 = (warp % (BN / WN)) * WN + (lane % LANE_COLS) * 4;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    float4 a4[A_LOADS], b4[B_LOADS];
    auto fetch = [&](int k0) {
#pragma unroll
        for (int l = 0; l < A_LOADS; ++l) {
            int piece = t + l * THREADS;
            a4[l] = load4(a, m, k, row0 + piece / (BK / 4), k0 + (piece % (BK / 4)) * 4);
        }
#pragma unroll
        for (int l = 0; l < B_LOADS; ++l) {
            int piece = t + l * THREADS;
            b4[l] = load4(b, k, n, k0 + piece / (BN / 4), col0 + (piece % (BN / 4)) * 4);
        }
    };
    auto stash = [&](int buf) {
#pragma unroll
        for (int l = 0; l < A_LOADS; ++l) {
            int piece = t + l * THREADS, r = piece / (BK / 4), i = (piece % (BK / 4)) * 4;
            as[buf][i + 0][r] = a4[l].x;
            as[buf][i + 1][r] = a4[l].y;
            as[buf][i + 2][r] = a4[l].z;
            as[buf][i + 3][r] = a4[l].w;
        }
#pragma unroll
        for (int l = 0; l < B_LOADS; ++l) {
            int piece = t + l * THREADS;
            *reinterpret_cast<float4 *>(&bs[buf][piece / (BN / 4)][(piece % (BN / 4)) * 4]) = b4[l];
        }
    };
    float acc[8][8] = {};
    fetch(0);
    for (int k0 = 0, buf = 0; k0 < k; k0 += BK, buf ^= 1) {
        stash(buf);
        __syncthreads();
        if (k0 + BK < k) {
            fetch(k0 + BK);
        }
#pragma unroll
        for (int i = 0; i < BK; ++i) {
            const float *as_i = as[buf][i], *bs_i = bs[buf][i];
            float4 a_lo = *reinterpret_cast<const float4 *>(as_i + row4);
            float4 a_hi = *reinterpret_cast<const float4 *>(as_i + row4 + WM / 2);
            float4 b_lo = *reinterpret_cast<const float4 *>(bs_i + col4);
            float4 b_hi = *reinterpret_cast<const float4 *>(bs_i + col4 + WN / 2);
            float a_col[8] = {a_lo.x, a_lo.y, a_lo.z, a_lo.w, a_hi.x, a_hi.y, a_hi.z, a_hi.w};
            float b_row[8] = {b_lo.x, b_lo.y, b_lo.z, b_lo.w, b_hi.x, b_hi.y, b_hi.z, b_hi.w};
#pragma unroll
            for (int r = 0; r < 8; ++r) {
#pragma unroll
                for (int s = 0; s < 8; ++s) {
                    acc[r][s] += a_col[r] * b_row[s];
                }
            }
        }
    }
#pragma unroll
    for (int r = 0; r < 8; ++r) {
#pragma unroll
        for (int s = 0; s < 8; s += 4) {
            float4 v = make_float4(acc[r][s], acc[r][s + 1], acc[r][s + 2], acc[r][s + 3]);
            store4(c, m, n, row0 + row4 + (r / 4) * (WM / 2) + r % 4,
                   col0 + col4 + (s / 4) * (WN / 2), v);
        }
    }
}
// ANCHOR_END: warp_tiles

// ANCHOR: shapes
// The tile shapes the sweep times: each instance is named after its BM×BN×BK, its WM×WN and
// the blocks per SM it asks the compiler to leave room for (by using fewer registers).
#define WARP_TILES(BM, BN, BK, WM, WN, THREADS, BLOCKS)                                            \
    extern "C" __global__ void __launch_bounds__(THREADS, BLOCKS)                                  \
        sgemm_warp_tiles_##BM##x##BN##x##BK##_##WM##x##WN##_##BLOCKS(                              \
            const float *a, const float *b, float *c, int m, int n, int k)                         \
    {                                                                                              \
        sgemm_warp_tiles<BM, BN, BK, WM, WN, THREADS>(a, b, c, m, n, k);                           \
    }
WARP_TILES(128, 128, 8, 64, 32, 256, 1)
WARP_TILES(128, 128, 8, 32, 64, 256, 1)
WARP_TILES(128, 128, 16, 64, 32, 256, 1)
WARP_TILES(128, 128, 16, 64, 32, 256, 2)
WARP_TILES(128, 128, 16, 32, 64, 256, 2)
WARP_TILES(128, 64, 8, 64, 32, 128, 1)
WARP_TILES(64, 128, 8, 32, 64, 128, 1)
WARP_TILES(64, 128, 8, 32, 64, 128, 4)
WARP_TILES(128, 64, 16, 64, 32, 128, 1)
WARP_TILES(64, 128, 16, 32, 64, 128, 1)
WARP_TILES(64, 128, 16, 32, 64, 128, 4)
// ANCHOR_END: shapes
// launch sgemm_warp_tiles_128x128x*: block = block.x = 256; grid.x * 128 >= n; grid.y * 128 >= m
// launch sgemm_warp_tiles_128x64x*: block = block.x = 128; grid.x * 64 >= n; grid.y * 128 >= m
// launch sgemm_warp_tiles_64x128x*: block = block.x = 128; grid.x * 128 >= n; grid.y * 64 >= m
