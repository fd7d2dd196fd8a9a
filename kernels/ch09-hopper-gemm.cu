// Chapter 9, part 2: C = A·B on Hopper's tensor cores, as in ch09-bf16-gemm.cu, A m×k and B k×n
// row-major bf16 (rows padded to a pitch of a multiple of 8 elements), C m×n row-major float.
// The tensor memory accelerator (TMA) copies tiles of A and B into shared memory, described by
// tensor maps the host builds; mbarriers say when a tile has landed and when its stage is free;
// wgmma multiplies a warpgroup's (128 threads') tile straight from shared memory.
// requires: sm_90a
// check: every kernel lacks .f64
// check: every kernel lacks mma.sync.aligned.m16n8k16
// check: every kernel has wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16
// check: every kernel has cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes
// check: every kernel has mbarrier.try_wait.parity.shared::cta.b64
// check: hopper_wgmma lacks setmaxnreg
// check: hopper_specialised has setmaxnreg.dec.sync.aligned.u32
// check: hopper_specialised has setmaxnreg.inc.sync.aligned.u32
// check: hopper_tuned has setmaxnreg.inc.sync.aligned.u32
// check: hopper_tuned has wgmma.wait_group.sync.aligned 1
// check: hopper_specialised lacks wgmma.wait_group.sync.aligned 1
// launch hopper_*: len(c) = m * n; aligned(c, 8); k + 64 <= 2147483648
// launch hopper_*: grid.x * 256 >= n; grid.y * 128 >= m
// launch hopper_wgmma: block = block.x = 256; shared >= STAGES * 49152 + 1024
// launch hopper_specialised: block = block.x = 384; shared >= STAGES * 49152 + 1024
// launch hopper_tuned: block = block.x = 384; shared >= STAGES * 49152 + 1024
// launch hopper_tuned: grid.x * grid.y <= 268435455

#include <cuda_bf16.h>
typedef unsigned long long u64;
typedef unsigned char u8;

#define STAGES 4 // slices of A and B in shared memory at once

// What cuTensorMapEncodeTiled writes: 128 opaque bytes, passed by value.
struct __align__(64) CUtensorMap {
    unsigned long long opaque[16];
};

constexpr int BM = 128, BN = 256, BK = 64;
constexpr int A_BYTES = BM * BK * 2, B_BYTES = BK * BN * 2, STAGE_BYTES = A_BYTES + B_BYTES;

__device__ __forceinline__ unsigned smem(const void *p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// ANCHOR: barriers
__device__ __forceinline__ void barrier_init(u64 *bar, int arrivals)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem(bar)), "r"(arrivals));
}
// The producer's arrival, with the bytes the copies it starts will bring.
__device__ __forceinline__ void arrive_expecting(u64 *bar, int bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem(bar)),
                 "r"(bytes));
}
__device__ __forceinline__ void arrive(u64 *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem(bar)));
}
// Wait until the phase of `bar` with this parity has completed.
__device__ __forceinline__ void wait_for(u64 *bar, int parity)
{
    asm volatile("{\n"
                 ".reg .pred done;\n"
                 "again:\n"
                 "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
                 "@!done bra again;\n"
                 "}\n" ::"r"(smem(bar)),
                 "r"(parity));
}
// ANCHOR_END: barriers

// ANCHOR: tma
// Copy the box of `map` at (col, row) into shared memory at `to`; `bar` counts its bytes.
__device__ __forceinline__ void tma_load(void *to, const CUtensorMap *map, int col, int row,
                                         u64 *bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(smem(to)),
                 "l"(map), "r"(col), "r"(row), "r"(smem(bar))
                 : "memory");
}
// ANCHOR_END: tma

// ANCHOR: descriptors
// A wgmma operand in shared memory, laid out in 128-byte rows with TMA's 128-byte swizzle:
// its address, the bytes from one 8-row (or 64-column) group to the next in each direction.
__device__ __forceinline__ u64 descriptor(const void *p, unsigned leading, unsigned stride)
{
    return (u64)((smem(p) & 0x3FFFF) >> 4) | (u64)(leading >> 4) << 16 |
           (u64)(stride >> 4) << 32 | 1ull << 62;
}
// ANCHOR_END: descriptors

__device__ __forceinline__ void wgmma_fence()
{
    asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit()
{
    asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
template <int N> __device__ __forceinline__ void wgmma_wait()
{
    asm volatile("wgmma.wait_group.sync.aligned %0;\n" ::"n"(N) : "memory");
}

// D (64×256, this thread's 128 floats) += A (64×16) · B (16×256), both read from shared memory
// through their descriptors; B is N-major (its rows run along n), as B is in global memory: the
// last 1 is wgmma's transpose flag for B.
__device__ __forceinline__ void wgmma_64x256x16(float d[128], u64 a, u64 b)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, "
                 "%17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, "
                 "%47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, "
                 "%62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, "
                 "%77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, "
                 "%92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, "
                 "%106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, "
                 "%119, %120, %121, %122, %123, %124, %125, %126, %127}"
                 ", %128, %129, 1, 1, 1, 0, 1;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]),
          "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
          "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]),
          "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]),
          "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
          "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]),
          "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]),
          "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
          "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]),
          "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]),
          "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]),
          "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]),
          "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]),
          "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]),
          "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]),
          "+f"(d[126]), "+f"(d[127])
        : "l"(a), "l"(b));
}

// One BK-deep slice for a warpgroup's 64×256 part: rows 64·half of the stage's A.
__device__ __forceinline__ void multiply_slice(float d[128], const u8 *stage, int half)
{
    wgmma_fence();
#pragma unroll
    for (int kk = 0; kk < BK / 16; ++kk) {
        u64 a = descriptor(stage + half * 64 * 128 + kk * 32, 16, 1024);
        u64 b = descriptor(stage + A_BYTES + kk * 16 * 128, 64 * 128, 1024);
        wgmma_64x256x16(d, a, b);
    }
    wgmma_commit();
}

// Start the copies of slice `slice` into its stage: A's 128×64 box, B's four 64×64 boxes.
__device__ __forceinline__ void ask_for(u8 *stages, u64 *full, const CUtensorMap *a_map,
                                        const CUtensorMap *b_map, int slice, int row0, int col0)
{
    int s = slice % STAGES;
    u8 *stage = stages + s * STAGE_BYTES;
    arrive_expecting(&full[s], STAGE_BYTES);
    tma_load(stage, a_map, slice * BK, row0, &full[s]);
#pragma unroll
    for (int j = 0; j < BN / 64; ++j)
        tma_load(stage + A_BYTES + j * 64 * BK * 2, b_map, col0 + 64 * j, slice * BK, &full[s]);
}

// ANCHOR: store
// This thread's part of a warpgroup's 64×256 result, as mma.sync's 16×8 pieces lay it out.
__device__ __forceinline__ void store(float *c, const float d[128], int m, int n, int row0,
                                      int col0, int t)
{
    int warp = t / 32, lane = t % 32;
#pragma unroll
    for (int j = 0; j < 32; ++j)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            int row = row0 + 16 * warp + lane / 4 + 8 * h, col = col0 + 8 * j + 2 * (lane % 4);
            if (row >= m || col >= n)
                continue;
            float *at = c + (size_t)row * n + col;
            if (n % 2 == 0)
                *reinterpret_cast<float2 *>(at) =
                    make_float2(d[4 * j + 2 * h], d[4 * j + 2 * h + 1]);
            else {
                at[0] = d[4 * j + 2 * h];
                if (col + 1 < n)
                    at[1] = d[4 * j + 2 * h + 1];
            }
        }
}

// ANCHOR_END: store

// ANCHOR: grouped
// The tile of C this block computes, (row0, col0). GROUPED: the blocks launched together work
// on the tiles of 8 rows of tiles at a time, column by column, so that they share the slices
// of A and B they read in the L2 cache; else row by row.
template <bool GROUPED> __device__ __forceinline__ void tile_of_block(int &row0, int &col0)
{
    if (!GROUPED) {
        row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
        return;
    }
    int id = blockIdx.y * gridDim.x + blockIdx.x, per_group = 8 * gridDim.x;
    int first = id / per_group * 8, in_group = id % per_group;
    int rows_here = min((int)gridDim.y - first, 8);
    row0 = (first + in_group % rows_here) * BM, col0 = (in_group / rows_here) * BN;
}
// ANCHOR_END: grouped
// ANCHOR_END: store

__device__ __forceinline__ u8 *aligned_stages(u8 *raw)
{
    return raw + ((1024 - (smem(raw) & 1023)) & 1023);
}

// ANCHOR: together
// Two warpgroups, each a 64×256 half of a 128×256 tile of C; thread 0 also starts the copies,
// STAGES slices ahead, once both have finished with a stage.
extern "C" __global__ void __launch_bounds__(256) hopper_wgmma(
    const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
    float *c, int m, int n, int k)
{
    extern __shared__ u8 raw[];
    __shared__ __align__(8) u64 full[STAGES];
    u8 *stages = aligned_stages(raw);
    int t = threadIdx.x, half = t / 128;
    int row0, col0, slices = (k + BK - 1) / BK;
    tile_of_block<false>(row0, col0);
    if (t == 0) {
        for (int s = 0; s < STAGES; ++s)
            barrier_init(&full[s], 1);
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    }
    __syncthreads();
    if (t == 0)
        for (int s = 0; s < STAGES && s < slices; ++s)
            ask_for(stages, full, &a_map, &b_map, s, row0, col0);
    float d[128] = {};
    for (int slice = 0; slice < slices; ++slice) {
        int s = slice % STAGES;
        wait_for(&full[s], (slice / STAGES) & 1);
        multiply_slice(d, stages + s * STAGE_BYTES, half);
        wgmma_wait<0>();
        __syncthreads(); // both warpgroups are done with stage s
        if (t == 0 && slice + STAGES < slices)
            ask_for(stages, full, &a_map, &b_map, slice + STAGES, row0, col0);
    }
    store(c, d, m, n, row0 + 64 * half, col0, t % 128);
}
// ANCHOR_END: together

// ANCHOR: specialised
// Three warpgroups: the first only starts copies (one thread of it), the other two only
// multiply. Full barriers say a stage has landed; empty ones that both consumers are done.
// TUNED: each consumer keeps one slice's wgmma in flight while it issues the next, and the
// blocks take their tiles in groups (`tile_of_block`).
template <bool TUNED>
__device__ __forceinline__ void specialised(const CUtensorMap *a_map, const CUtensorMap *b_map,
                                            float *c, int m, int n, int k)
{
    extern __shared__ u8 raw[];
    __shared__ __align__(8) u64 full[STAGES], empty[STAGES];
    u8 *stages = aligned_stages(raw);
    int t = threadIdx.x, group = t / 128;
    int row0, col0, slices = (k + BK - 1) / BK;
    tile_of_block<TUNED>(row0, col0);
    if (t == 0) {
        for (int s = 0; s < STAGES; ++s) {
            barrier_init(&full[s], 1);
            barrier_init(&empty[s], 2);
        }
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    }
    __syncthreads();
    if (group == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (t == 0)
            for (int slice = 0; slice < slices; ++slice) {
                if (slice >= STAGES)
                    wait_for(&empty[slice % STAGES], (slice / STAGES - 1) & 1);
                ask_for(stages, full, a_map, b_map, slice, row0, col0);
            }
        return;
    }
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    int half = group - 1;
    float d[128] = {};
    for (int slice = 0; slice < slices; ++slice) {
        int s = slice % STAGES;
        wait_for(&full[s], (slice / STAGES) & 1);
        multiply_slice(d, stages + s * STAGE_BYTES, half);
        if (TUNED) {
            wgmma_wait<1>(); // the slice before this one is done: its stage is free
            if (t % 128 == 0 && slice > 0)
                arrive(&empty[(slice - 1) % STAGES]);
        } else {
            wgmma_wait<0>();
            if (t % 128 == 0)
                arrive(&empty[s]);
        }
    }
    wgmma_wait<0>();
    store(c, d, m, n, row0 + 64 * half, col0, t % 128);
}

extern "C" __global__ void __launch_bounds__(384, 1) hopper_specialised(
    const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
    float *c, int m, int n, int k)
{
    specialised<false>(&a_map, &b_map, c, m, n, k);
}
extern "C" __global__ void __launch_bounds__(384, 1) hopper_tuned(
    const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
    float *c, int m, int n, int k)
{
    specialised<true>(&a_map, &b_map, c, m, n, k);
}
// ANCHOR_END: specialised
