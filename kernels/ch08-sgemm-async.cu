// The warp-tiled SGEMM of ch08-sgemm.cu with its tiles copied by cp.async (sm_80 and newer):
// the copy goes from global to shared memory without passing through registers, and STAGES
// tiles are in flight at once. A is m×k, B is k×n, C is m×n, all row-major float.
// requires: sm_80
// check: every kernel lacks .f64
// check: every kernel lacks mma
// check: every kernel has cp.async.ca.shared.global
// check: every kernel has cp.async.wait_group
// check: sgemm_async_128x128x8_64x32_3_1 has ld.shared.v4.f32
// launch sgemm_async_*: len(a) = m * k; len(b) = k * n; len(c) = m * n
// launch sgemm_async_*: m * k <= 2147483647; k * n <= 2147483647; m * n <= 2147483647
// launch sgemm_async_*: k + 32 <= 2147483648; aligned(a, 16); aligned(b, 16); aligned(c, 16)
// launch sgemm_async_128x128x*: block = block.x = 256; grid.x * 128 >= n; grid.y * 128 >= m
// launch sgemm_async_128x256x*: block = block.x = 512; grid.x * 256 >= n; grid.y * 128 >= m

#define PAD 4

// ANCHOR: copies
// Start copying `bytes` bytes (4 or 16) from global to shared memory; of these, only the
// first `valid` bytes are read and the rest are filled with zeros (0 for a place outside
// the matrix, when `from` is only a stand-in address that is never read).
__device__ __forceinline__ void copy_async_4(float *to, const float *from, bool inside)
{
    unsigned to_shared = static_cast<unsigned>(__cvta_generic_to_shared(to));
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(to_shared), "l"(from),
                 "r"(inside ? 4 : 0));
}
__device__ __forceinline__ void copy_async_16(float *to, const float *from, bool inside)
{
    unsigned to_shared = static_cast<unsigned>(__cvta_generic_to_shared(to));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(to_shared), "l"(from),
                 "r"(inside ? 16 : 0));
}
// Close the group of copies this thread has started since the last commit.
__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::); }
// Wait until at most `pending` of this thread's groups are still in flight.
template <int pending> __device__ __forceinline__ void wait_copies()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(pending));
}
// ANCHOR_END: copies

// ANCHOR: async
template <int BM, int BN, int BK, int WM, int WN, int STAGES, int THREADS>
__device__ __forceinline__ void sgemm_async(
    const float *a, const float *b, float *c, int m, int n, int k)
{
    static_assert(THREADS == (BM / WM) * (BN / WN) * 32, "one warp per WM×WN part");
    constexpr int LANE_COLS = WN / 8;
    static_assert((WM / 8) * (WN / 8) == 32, "a warp's part is 32 squares of 8x8");
    static_assert((BM * BK) % THREADS == 0 && (BK * BN) % (4 * THREADS) == 0, "whole tiles");
    __shared__ __align__(16) float as[STAGES][BK][BM + PAD];
    __shared__ __align__(16) float bs[STAGES][BK][BN];
    int t = threadIdx.x, warp = t / 32, lane = t % 32;
    int row4 = (warp / (BN / WN)) * WM + (lane / LANE_COLS) * 4;
    int col4 = (warp % (BN / WN)) * WN + (lane % LANE_COLS) * 4;
    int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
    bool b_whole_rows = n % 4 == 0; // 16-byte copies of B need 16-byte aligned rows
    int tiles = (k + BK - 1) / BK;

    // A is copied one float at a time, each to its transposed place; B in 16-byte pieces.
    auto start_tile = [&](int tile) {
        int stage = tile % STAGES, k0 = tile * BK;
#pragma unroll
        for (int l = 0; l < BM * BK / THREADS; ++l) {
            int piece = t + l * THREADS, r = piece / BK, i = piece % BK;
            bool inside = row0 + r < m && k0 + i < k;
            copy_async_4(&as[stage][i][r], inside ? a + (row0 + r) * k + k0 + i : a, inside);
        }
#pragma unroll
        for (int l = 0; l < BK * BN / 4 / THREADS; ++l) {
            int piece = t + l * THREADS, i = piece / (BN / 4), s = (piece % (BN / 4)) * 4;
            int row = k0 + i, col = col0 + s;
            if (b_whole_rows) {
                bool inside = row < k && col < n; // n % 4 == 0: all four or none
                copy_async_16(&bs[stage][i][s], inside ? b + row * n + col : b, inside);
            } else {
                for (int j = 0; j < 4; ++j) {
                    bool inside = row < k && col + j < n;
                    copy_async_4(&bs[stage][i][s + j], inside ? b + row * n + col + j : b, inside);
                }
            }
        }
    };

    // Groups are committed even when empty, so that "tile `tile` has arrived" is always
    // "at most STAGES - 2 groups are pending".
    for (int tile = 0; tile < STAGES - 1; ++tile) {
        if (tile < tiles) {
            start_tile(tile);
        }
        commit_copies();
    }
    float acc[8][8] = {};
    for (int tile = 0; tile < tiles; ++tile) {
        wait_copies<STAGES - 2>(); // this thread's copies of `tile` have landed...
        __syncthreads();           // ...and everyone's; everyone has also finished tile - 1
        if (tile + STAGES - 1 < tiles) {
            start_tile(tile + STAGES - 1); // into the stage that tile - 1 used
        }
        commit_copies();
        int stage = tile % STAGES;
#pragma unroll
        for (int i = 0; i < BK; ++i) {
            const float *as_i = as[stage][i], *bs_i = bs[stage][i];
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
            int row = row0 + row4 + (r / 4) * (WM / 2) + r % 4;
            int col = col0 + col4 + (s / 4) * (WN / 2);
            float v[4] = {acc[r][s], acc[r][s + 1], acc[r][s + 2], acc[r][s + 3]};
            if (row < m && col + 3 < n && n % 4 == 0) {
                *reinterpret_cast<float4 *>(c + row * n + col) = make_float4(v[0], v[1], v[2], v[3]);
            } else {
                for (int j = 0; j < 4; ++j) {
                    if (row < m && col + j < n) {
                        c[row * n + col + j] = v[j];
                    }
                }
            }
        }
    }
}
// ANCHOR_END: async

// ANCHOR: shapes
#define ASYNC(BM, BN, BK, WM, WN, STAGES, THREADS, BLOCKS)                                         \
    extern "C" __global__ void __launch_bounds__(THREADS, BLOCKS)                                  \
        sgemm_async_##BM##x##BN##x##BK##_##WM##x##WN##_##STAGES##_##BLOCKS(                        \
            const float *a, const float *b, float *c, int m, int n, int k)                         \
    {                                                                                              \
        sgemm_async<BM, BN, BK, WM, WN, STAGES, THREADS>(a, b, c, m, n, k);                        \
    }
ASYNC(128, 128, 8, 64, 32, 2, 256, 1)
ASYNC(128, 128, 8, 64, 32, 3, 256, 1)
ASYNC(128, 128, 8, 64, 32, 3, 256, 2)
ASYNC(128, 128, 8, 64, 32, 4, 256, 1)
ASYNC(128, 128, 16, 64, 32, 2, 256, 1)
ASYNC(128, 128, 16, 64, 32, 2, 256, 2)
ASYNC(128, 256, 8, 64, 32, 3, 512, 1)
// ANCHOR_END: shapes
