// Chapter 9's ladder: C = A·B on the tensor cores. A is m×k and B is k×n, both row-major
// __nv_bfloat16; C is m×n, row-major float. A tensor core multiplies bf16 exactly and adds in
// float. Every kernel is right for any m, n and k: what lies outside a matrix is read as zero
// and never written.
// requires: sm_80
// check: every kernel lacks .f64
// check: every kernel lacks wgmma
// check: bf16_wmma has wmma.mma.sync.aligned.row.row.m16n16k16.f32.bf16.bf16.f32
// check: bf16_wmma lacks ldmatrix
// check: bf16_mma_plain has mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// check: bf16_mma_plain has ldmatrix.sync.aligned.m8n8.x4.shared.b16
// check: bf16_mma_plain has ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// check: bf16_mma_plain lacks cp.async
// check: bf16_mma_swizzled has mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// check: bf16_mma_swizzled has ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// check: bf16_mma_swizzled lacks cp.async
// check: bf16_mma_pipelined_128x128x32_4 has mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// check: bf16_mma_pipelined_128x128x32_4 has cp.async.cg.shared.global
// check: bf16_mma_pipelined_128x128x32_4 has cp.async.wait_group
// check: bf16_mma_pipelined_128x128x64_3 has cp.async.wait_group
// check: bf16_mma_pipelined_128x256x64_3 has cp.async.wait_group
// check: bf16_mma_ahead_128x256x64_3 has cp.async.wait_group
// check: bf16_mma_ahead_128x256x64_3 has mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// launch bf16_*: len(a) = m * k; len(b) = k * n; len(c) = m * n
// launch bf16_*: m * k <= 2147483647; k * n <= 2147483647; m * n <= 2147483647
// launch bf16_*: k + 64 <= 2147483648; aligned(a, 16); aligned(b, 16); aligned(c, 16)
// launch bf16_wmma: block = block.x = 256; grid.x * 128 >= n; grid.y * 128 >= m
// launch bf16_mma_plain: block = block.x = 128; grid.x * 128 >= n; grid.y * 128 >= m
// launch bf16_mma_swizzled: block = block.x = 128; grid.x * 128 >= n; grid.y * 128 >= m
// launch bf16_mma_pipelined_128x128x32_4: block = block.x = 128; shared >= 65536
// launch bf16_mma_pipelined_128x128x32_4: grid.x * 128 >= n; grid.y * 128 >= m
// launch bf16_mma_pipelined_128x128x64_3: block = block.x = 128; shared >= 98304
// launch bf16_mma_pipelined_128x128x64_3: grid.x * 128 >= n; grid.y * 128 >= m
// launch bf16_mma_pipelined_128x256x64_3: block = block.x = 256; shared >= 147456
// launch bf16_mma_pipelined_128x256x64_3: grid.x * 256 >= n; grid.y * 128 >= m
// launch bf16_mma_ahead_128x256x64_3: block = block.x = 256; shared >= 147456
// launch bf16_mma_ahead_128x256x64_3: grid.x * 256 >= n; grid.y * 128 >= m

#include <cuda_bf16.h>
#include <mma.h>

// ANCHOR: edges
// Eight neighbours of one row (16 bytes), zero where they lie outside the rows×cols matrix.
// `whole` says every row starts on a 16-byte boundary (cols % 8 == 0): then eight that start
// inside the matrix lie whole inside it and load as one vector.
__device__ __forceinline__ uint4 load8(
    const __nv_bfloat16 *p, int rows, int cols, int row, int col, bool whole)
{
    if (row >= rows || col >= cols)
        return make_uint4(0, 0, 0, 0);
    const __nv_bfloat16 *at = p + row * cols + col;
    if (whole)
        return *reinterpret_cast<const uint4 *>(at);
    __align__(16) __nv_bfloat16 v[8];
    for (int j = 0; j < 8; ++j)
        v[j] = col + j < cols ? at[j] : __float2bfloat16(0.0f);
    return *reinterpret_cast<const uint4 *>(v);
}
// ANCHOR_END: edges

// ANCHOR: wmma
#define WMMA_PAD 8 // keeps rows of the tiles apart in the banks; a multiple of 8, as WMMA needs

// A block of 256 threads computes a 128×128 tile of C; each of its 8 warps a 64×32 part of it,
// as 4×2 fragments of 16×16 that WMMA multiplies 16 deep at a time.
extern "C" __global__ void __launch_bounds__(256)
    bf16_wmma(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k)
{
    using namespace nvcuda;
    __shared__ __align__(32) __nv_bfloat16 as[128][32 + WMMA_PAD];
    __shared__ __align__(32) __nv_bfloat16 bs[32][128 + WMMA_PAD];
    __shared__ __align__(32) float staged[8][16 * 16];
    int t = threadIdx.x, warp = t / 32, lane = t % 32;
    int wrow = (warp / 4) * 64, wcol = (warp % 4) * 32;
    int row0 = blockIdx.y * 128, col0 = blockIdx.x * 128;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[4][2];
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 2; ++j)
            wmma::fill_fragment(acc[i][j], 0.0f);

    for (int k0 = 0; k0 < k; k0 += 32) {
        // A's 128×32 and B's 32×128, eight bf16 at a time: two pieces of each per thread.
        for (int l = 0; l < 2; ++l) {
            int piece = t + l * 256;
            int r = piece / 4, s = (piece % 4) * 8;
            *reinterpret_cast<uint4 *>(&as[r][s]) = load8(a, m, k, row0 + r, k0 + s, k % 8 == 0);
            int i = piece / 16, u = (piece % 16) * 8;
            *reinterpret_cast<uint4 *>(&bs[i][u]) = load8(b, k, n, k0 + i, col0 + u, n % 8 == 0);
        }
        __syncthreads();
        for (int kk = 0; kk < 32; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, __nv_bfloat16, wmma::row_major> fa[4];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, __nv_bfloat16, wmma::row_major> fb[2];
            for (int i = 0; i < 4; ++i)
                wmma::load_matrix_sync(fa[i], &as[wrow + 16 * i][kk], 32 + WMMA_PAD);
            for (int j = 0; j < 2; ++j)
                wmma::load_matrix_sync(fb[j], &bs[kk][wcol + 16 * j], 128 + WMMA_PAD);
            for (int i = 0; i < 4; ++i)
                for (int j = 0; j < 2; ++j)
                    wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
        }
        __syncthreads();
    }

    // Each 16×16 result passes through shared memory, so that only entries inside C are written.
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 2; ++j) {
            wmma::store_matrix_sync(staged[warp], acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            for (int e = lane; e < 16 * 16; e += 32) {
                int row = row0 + wrow + 16 * i + e / 16, col = col0 + wcol + 16 * j + e % 16;
                if (row < m && col < n)
                    c[row * n + col] = staged[warp][e];
            }
            __syncwarp();
        }
}
// ANCHOR_END: wmma

// ANCHOR: instructions
// D += A·B for one 16×8 piece of C, 16 deep: `a` holds this lane's four pairs of A (16×16),
// `b` its two pairs of B (16×8), `d` its four floats of the piece.
__device__ __forceinline__ void mma_16x8x16(float d[4], const unsigned a[4], const unsigned b[2])
{
    asm("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// Four 8×8 matrices of bf16 from shared memory in one instruction. Lane l gives the address of
// row l % 8 of matrix l / 8 (16 bytes); it receives, in r[i], two neighbours in row l / 4 of
// matrix i, or, transposed, two neighbours in its column l / 4.
__device__ __forceinline__ void load_matrices(unsigned r[4], const __nv_bfloat16 *row)
{
    unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(row));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(at));
}
__device__ __forceinline__ void load_matrices_transposed(unsigned r[4], const __nv_bfloat16 *row)
{
    unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(row));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(at));
}
// ANCHOR_END: instructions

// ANCHOR: swizzle
// Where chunk `chunk` (16 bytes, eight bf16) of row `row` of a tile is kept in shared memory.
// A row of A's tile is BK / 8 chunks (64 or 128 bytes), of B's 16 or 32 (256 or 512 bytes). The
// 8 rows one ldmatrix reads would fall on 2 (A, 32 deep) or 1 of the 8 chunk-wide groups of
// banks; XORing the chunk with bits of the row spreads them over all 8.
template <bool SWIZZLE, int BK> __device__ __forceinline__ int a_chunk(int row, int chunk)
{
    if (!SWIZZLE)
        return chunk;
    return BK == 32 ? chunk ^ ((row >> 1) & 3) : chunk ^ (row & 7);
}
template <bool SWIZZLE> __device__ __forceinline__ int b_chunk(int row, int chunk)
{
    return SWIZZLE ? chunk ^ (row & 7) : chunk;
}
// ANCHOR_END: swizzle

// ANCHOR: warp_tile
// A warp's fragments for one 16-deep step of its 64×64 part of C: fa[i] holds A's rows
// wrow + 16 i to wrow + 16 i + 15 (16×16), fb[j] B's columns wcol + 8 j to wcol + 8 j + 7
// (16×8), from A's 128×BK tile `as` and B's BK×BN tile `bs`, laid out by the swizzle (or not).
template <int BN, int BK, bool SWIZZLE>
__device__ __forceinline__ void load_fragments(const __nv_bfloat16 *as, const __nv_bfloat16 *bs,
                                               unsigned fa[4][4], unsigned fb[8][2], int kk,
                                               int wrow, int wcol, int lane)
{
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        int row = wrow + 16 * i + lane % 16, chunk = kk / 8 + lane / 16;
        load_matrices(fa[i], as + row * BK + a_chunk<SWIZZLE, BK>(row, chunk) * 8);
    }
#pragma unroll
    for (int j = 0; j < 4; ++j) { // B's k rows kk..kk+15 for 16 columns: two 16×8 pieces
        int row = kk + lane % 16, chunk = (wcol + 16 * j) / 8 + lane / 16;
        unsigned r[4];
        load_matrices_transposed(r, bs + row * BN + b_chunk<SWIZZLE>(row, chunk) * 8);
        fb[2 * j][0] = r[0], fb[2 * j][1] = r[1];
        fb[2 * j + 1][0] = r[2], fb[2 * j + 1][1] = r[3];
    }
}

// acc[i][j], the warp's 16×8 piece (i, j) of C, += fa[i]·fb[j].
__device__ __forceinline__ void multiply_fragments(float acc[4][8][4], const unsigned fa[4][4],
                                                   const unsigned fb[8][2])
{
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j)
            mma_16x8x16(acc[i][j], fa[i], fb[j]);
}

// One BK-deep step of a warp's 64×64 part of C.
template <int BN, int BK, bool SWIZZLE>
__device__ __forceinline__ void multiply_tiles(const __nv_bfloat16 *as, const __nv_bfloat16 *bs,
                                               float acc[4][8][4], int wrow, int wcol, int lane)
{
#pragma unroll
    for (int kk = 0; kk < BK; kk += 16) {
        unsigned fa[4][4], fb[8][2];
        load_fragments<BN, BK, SWIZZLE>(as, bs, fa, fb, kk, wrow, wcol, lane);
        multiply_fragments(acc, fa, fb);
    }
}
// ANCHOR_END: warp_tile

// ANCHOR: store
// A warp's 64×64 part of C from its pieces: lane l holds rows l / 4 and l / 4 + 8 of each
// piece, two neighbouring columns 2 (l % 4) and 2 (l % 4) + 1 in each.
__device__ __forceinline__ void store_part(
    float *c, const float acc[4][8][4], int m, int n, int row0, int col0, int lane)
{
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 8; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                int row = row0 + 16 * i + lane / 4 + 8 * h, col = col0 + 8 * j + 2 * (lane % 4);
                if (row >= m || col >= n)
                    continue;
                float *at = c + row * n + col;
                if (n % 2 == 0)
                    *reinterpret_cast<float2 *>(at) =
                        make_float2(acc[i][j][2 * h], acc[i][j][2 * h + 1]);
                else {
                    at[0] = acc[i][j][2 * h];
                    if (col + 1 < n)
                        at[1] = acc[i][j][2 * h + 1];
                }
            }
}
// ANCHOR_END: store

// ANCHOR: mma
// A block of 128 threads computes a 128×128 tile of C, each of its 4 warps a 64×64 part. The
// threads copy each 32-deep slice of A and B into shared memory through their registers, wait,
// and multiply it.
template <bool SWIZZLE>
__device__ __forceinline__ void bf16_mma(
    const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k)
{
    __shared__ __align__(16) __nv_bfloat16 as[128 * 32];
    __shared__ __align__(16) __nv_bfloat16 bs[32 * 128];
    int t = threadIdx.x, warp = t / 32, lane = t % 32;
    int wrow = (warp / 2) * 64, wcol = (warp % 2) * 64;
    int row0 = blockIdx.y * 128, col0 = blockIdx.x * 128;
    float acc[4][8][4] = {};
    for (int k0 = 0; k0 < k; k0 += 32) {
#pragma unroll
        for (int l = 0; l < 4; ++l) {
            int piece = t + 128 * l;
            int r = piece / 4, s = piece % 4; // A: 4 chunks a row
            *reinterpret_cast<uint4 *>(as + r * 32 + a_chunk<SWIZZLE, 32>(r, s) * 8) =
                load8(a, m, k, row0 + r, k0 + 8 * s, k % 8 == 0);
            int i = piece / 16, u = piece % 16; // B: 16 chunks a row
            *reinterpret_cast<uint4 *>(bs + i * 128 + b_chunk<SWIZZLE>(i, u) * 8) =
                load8(b, k, n, k0 + i, col0 + 8 * u, n % 8 == 0);
        }
        __syncthreads();
        multiply_tiles<128, 32, SWIZZLE>(as, bs, acc, wrow, wcol, lane);
        __syncthreads();
    }
    store_part(c, acc, m, n, row0 + wrow, col0 + wcol, lane);
}

extern "C" __global__ void __launch_bounds__(128)
    bf16_mma_plain(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k)
{
    bf16_mma<false>(a, b, c, m, n, k);
}
extern "C" __global__ void __launch_bounds__(128) bf16_mma_swizzled(
    const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k)
{
    bf16_mma<true>(a, b, c, m, n, k);
}
// ANCHOR_END: mma

// ANCHOR: copies
// Start copying 16 bytes from global to shared memory without passing through registers; when
// `inside` is false nothing is read (`from` is only a stand-in) and the 16 bytes are zeros.
__device__ __forceinline__ void copy16(__nv_bfloat16 *to, const __nv_bfloat16 *from, bool inside)
{
    unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(to));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(at), "l"(from),
                 "r"(inside ? 16 : 0));
}
__device__ __forceinline__ void commit_copies() { asm volatile("cp.async.commit_group;\n" ::); }
template <int pending> __device__ __forceinline__ void wait_copies()
{
    asm volatile("cp.async.wait_group %0;\n" ::"n"(pending));
}

// One chunk of a tile: copied in flight when it is whole (or all outside, as zeros), else
// element by element through registers, as at the ragged edge of a matrix whose rows are not
// whole chunks.
__device__ __forceinline__ void copy8(__nv_bfloat16 *to, const __nv_bfloat16 *p, int rows,
                                      int cols, int row, int col, bool whole)
{
    bool inside = row < rows && col < cols;
    if (!inside || whole)
        copy16(to, inside ? p + row * cols + col : p, inside);
    else
        *reinterpret_cast<uint4 *>(to) = load8(p, rows, cols, row, col, false);
}
// ANCHOR_END: copies

// ANCHOR: pipelined
// A block computes a 128×BN tile of C, each warp a 64×64 part, while STAGES - 1 slices of A
// and B, BK deep, are on their way to shared memory: a slice is asked for STAGES - 1 steps
// before it is multiplied. The stages live in dynamic shared memory, A's 128×BK then B's BK×BN
// in each. With AHEAD, each warp loads the fragments of its next 16-deep step before it
// multiplies those of this one (see `ahead`).
template <int BN, int BK, int STAGES, int THREADS, bool AHEAD>
__device__ __forceinline__ void bf16_mma_pipelined(
    const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k)
{
    static_assert(THREADS == 2 * (BN / 64) * 32, "one warp per 64×64 part");
    constexpr int A_SIZE = 128 * BK, STAGE_SIZE = A_SIZE + BK * BN;
    extern __shared__ __align__(16) __nv_bfloat16 stages[];
    int t = threadIdx.x, warp = t / 32, lane = t % 32;
    int wrow = (warp / (BN / 64)) * 64, wcol = (warp % (BN / 64)) * 64;
    int row0 = blockIdx.y * 128, col0 = blockIdx.x * BN;
    int slices = (k + BK - 1) / BK;

    // A thread copies the same chunk of rows A_ROWS (or B_ROWS) apart, so that the swizzle and
    // most of the address are the same for all of its chunks.
    constexpr int A_ROWS = THREADS / (BK / 8), B_ROWS = THREADS / (BN / 8);
    int ra = t / (BK / 8), sa = t % (BK / 8), rb = t / (BN / 8), sb = t % (BN / 8);
    int a_to = ra * BK + a_chunk<true, BK>(ra, sa) * 8, b_to = rb * BN + b_chunk<true>(rb, sb) * 8;
    auto ask_for = [&](int slice) {
        if (slice < slices) {
            __nv_bfloat16 *as = stages + (slice % STAGES) * STAGE_SIZE, *bs = as + A_SIZE;
            int k0 = slice * BK;
#pragma unroll
            for (int l = 0; l < 128 / A_ROWS; ++l)
                copy8(as + a_to + l * A_ROWS * BK, a, m, k, row0 + ra + l * A_ROWS, k0 + 8 * sa,
                      k % 8 == 0);
#pragma unroll
            for (int l = 0; l < BK / B_ROWS; ++l)
                copy8(bs + b_to + l * B_ROWS * BN, b, k, n, k0 + rb + l * B_ROWS, col0 + 8 * sb,
                      n % 8 == 0);
        }
        commit_copies(); // a group even past the last slice, so that every step waits alike
    };

    float acc[4][8][4] = {};
    for (int s = 0; s < STAGES - 1; ++s)
        ask_for(s);
    if (!AHEAD) {
        for (int slice = 0; slice < slices; ++slice) {
            wait_copies<STAGES - 2>(); // this thread's copies of `slice` have landed...
            __syncthreads();           // ...and everyone's; the stage read last step is free
            ask_for(slice + STAGES - 1);
            const __nv_bfloat16 *as = stages + (slice % STAGES) * STAGE_SIZE;
            multiply_tiles<BN, BK, true>(as, as + A_SIZE, acc, wrow, wcol, lane);
        }
    } else {
        // ANCHOR: ahead
        // Two sets of fragments: while the tensor cores multiply one, ldmatrix fills the other.
        // The last step of a slice loads the first of the next, once it has landed.
        constexpr int STEPS = BK / 16;
        static_assert(STEPS % 2 == 0, "a slice's steps alternate between the two sets");
        unsigned fa[2][4][4], fb[2][8][2];
        wait_copies<STAGES - 2>();
        __syncthreads();
        if (slices > 0)
            load_fragments<BN, BK, true>(stages, stages + A_SIZE, fa[0], fb[0], 0, wrow, wcol, lane);
        for (int slice = 0; slice < slices; ++slice) {
            const __nv_bfloat16 *as = stages + (slice % STAGES) * STAGE_SIZE;
#pragma unroll
            for (int step = 0; step < STEPS; ++step) {
                int next = (step + 1) % 2;
                if (step == 0) // every warp passed the last barrier: the stage read before is free
                    ask_for(slice + STAGES - 1);
                if (step < STEPS - 1) {
                    load_fragments<BN, BK, true>(as, as + A_SIZE, fa[next], fb[next],
                                                 16 * (step + 1), wrow, wcol, lane);
                } else if (slice + 1 < slices) {
                    wait_copies<STAGES - 2>(); // the next slice has landed...
                    __syncthreads();           // ...and no warp reads this stage any more
                    const __nv_bfloat16 *ns = stages + ((slice + 1) % STAGES) * STAGE_SIZE;
                    load_fragments<BN, BK, true>(ns, ns + A_SIZE, fa[next], fb[next], 0, wrow,
                                                 wcol, lane);
                }
                multiply_fragments(acc, fa[step % 2], fb[step % 2]);
            }
        }
        // ANCHOR_END: ahead
    }
    store_part(c, acc, m, n, row0 + wrow, col0 + wcol, lane);
}

extern "C" __global__ void __launch_bounds__(128) bf16_mma_pipelined_128x128x32_4(
    const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k)
{
    bf16_mma_pipelined<128, 32, 4, 128, false>(a, b, c, m, n, k);
}
extern "C" __global__ void __launch_bounds__(128) bf16_mma_pipelined_128x128x64_3(
    const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k)
{
    bf16_mma_pipelined<128, 64, 3, 128, false>(a, b, c, m, n, k);
}
extern "C" __global__ void __launch_bounds__(256) bf16_mma_pipelined_128x256x64_3(
    const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k)
{
    bf16_mma_pipelined<256, 64, 3, 256, false>(a, b, c, m, n, k);
}
extern "C" __global__ void __launch_bounds__(256) bf16_mma_ahead_128x256x64_3(
    const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int m, int n, int k)
{
    bf16_mma_pipelined<256, 64, 3, 256, true>(a, b, c, m, n, k);
}
// ANCHOR_END: pipelined
