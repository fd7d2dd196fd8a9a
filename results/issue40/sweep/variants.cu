// The sweep's variants of hopper_tuned, appended to a copy of kernels/ch09-hopper-gemm.cu by
// make-variants.sh, which also sets the macros; the binary (hopper_ladder) and its launches are
// the course's, so every variant runs on the grid the course launches: n/256 × m/128 blocks of
// 384 threads, STAGES * 48 KiB + 1 KiB of shared memory.
//
// PERSISTENT: the first 132 blocks (the H100's SMs) loop over the tiles, in the grouped order,
// and the rest return at once; the producer runs on into the next tile's slices while the
// consumers store the last one. It is TILES below at 128 × 256. Runs 2 and 4 ran an earlier
// copy of its own (commit daef245), which took its tiles from the grid: the same tiles at the
// course's launch. MULTICAST: clusters of two blocks along y, which share a
// column of tiles, and so B's slices: each block's producer copies two of B's four 64-column
// boxes and multicasts them to both blocks; a stage is free once the consumers of both blocks
// are done with it.

#ifdef MULTICAST
__device__ __forceinline__ unsigned peer_address(const void *p, unsigned rank)
{
    unsigned out;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;\n" : "=r"(out) : "r"(smem(p)), "r"(rank));
    return out;
}
__device__ __forceinline__ void arrive_remote(unsigned address)
{
    asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];\n" ::"r"(address)
                 : "memory");
}
__device__ __forceinline__ void cluster_sync()
{
    asm volatile("barrier.cluster.arrive.release.aligned;\n"
                 "barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void tma_load_both(void *to, const CUtensorMap *map, int col, int row,
                                              u64 *bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(smem(to)),
                 "l"(map), "r"(col), "r"(row), "r"(smem(bar)), "h"((unsigned short)3)
                 : "memory");
}

extern "C" __global__ void __cluster_dims__(1, 2, 1) __launch_bounds__(384, 1)
    hopper_tuned_variant(const __grid_constant__ CUtensorMap a_map,
                         const __grid_constant__ CUtensorMap b_map, float *c, int m, int n, int k)
{
    extern __shared__ u8 raw[];
    __shared__ __align__(8) u64 full[STAGES], empty[STAGES];
    u8 *stages = aligned_stages(raw);
    int t = threadIdx.x, group = t / 128;
    unsigned rank = blockIdx.y % 2, peer = rank ^ 1;
    int slices = (k + BK - 1) / BK;
    // Pairs of rows of tiles, grouped 4 pairs at a time, as tile_of_block<true> groups 8 rows.
    int id = blockIdx.y / 2 * gridDim.x + blockIdx.x, per_group = 4 * gridDim.x;
    int first = id / per_group * 4, in_group = id % per_group;
    int pairs_here = min((int)gridDim.y / 2 - first, 4);
    int row0 = (2 * (first + in_group % pairs_here) + rank) * BM;
    int col0 = (in_group / pairs_here) * BN;
    if (t == 0) {
        for (int s = 0; s < STAGES; ++s) {
            barrier_init(&full[s], 1);
            barrier_init(&empty[s], 4);
        }
        asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
    }
    cluster_sync();
    if (group == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (t == 0)
            for (int slice = 0; slice < slices; ++slice) {
                int s = slice % STAGES;
                if (slice >= STAGES)
                    wait_for(&empty[s], (slice / STAGES - 1) & 1);
                u8 *stage = stages + s * STAGE_BYTES;
                arrive_expecting(&full[s], STAGE_BYTES);
                tma_load(stage, &a_map, slice * BK, row0, &full[s]);
                for (int j = 2 * rank; j < 2 * rank + 2; ++j)
                    tma_load_both(stage + A_BYTES + j * 64 * BK * 2, &b_map, col0 + 64 * j,
                                  slice * BK, &full[s]);
            }
    } else {
        asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
        int half = group - 1;
        float d[128] = {};
        for (int slice = 0; slice < slices; ++slice) {
            int s = slice % STAGES;
            wait_for(&full[s], (slice / STAGES) & 1);
            multiply_slice(d, stages + s * STAGE_BYTES, half);
            wgmma_wait<1>();
            if (t % 128 == 0 && slice > 0) {
                arrive(&empty[(slice - 1) % STAGES]);
                arrive_remote(peer_address(&empty[(slice - 1) % STAGES], peer));
            }
        }
        wgmma_wait<0>();
        store(c, d, m, n, row0 + 64 * half, col0, t % 128);
    }
    cluster_sync(); // neither block leaves while the other may still write to it
}
#endif

// TILES: the tile shape. Each block computes TILE_M × TILE_N tiles of C (TILE_M 128 or 256,
// TILE_N a multiple of 64 up to 256), its two consumers TILE_M/2 rows each, in the persistent
// schedule described at the top (at most 132 blocks looping over the tiles in the grouped
// order), with as many stages as the course's launch gives shared memory for (STAGES * 48
// KiB). The host's tensor maps are the course's (A in 128 × 64 boxes, B in 64 × 64 boxes): a
// 256-row tile takes two of A's boxes, a 128-column tile two of B's.
#ifdef PERSISTENT
#define TILES
#define TILE_M 128
#define TILE_N 256
#endif

#ifdef TILES
constexpr int TM = TILE_M, TN = TILE_N, WM = TM / 2;
constexpr int TA_BYTES = TM * BK * 2, TSTAGE = TA_BYTES + BK * TN * 2;
constexpr int TSTAGES = STAGES * 49152 / TSTAGE;
static_assert(TSTAGE % 1024 == 0, "each stage starts 1024-byte aligned, as the swizzle needs");

template <int N> __device__ __forceinline__ void wgmma_64xN(float *d, u64 a, u64 b);
template <> __device__ __forceinline__ void wgmma_64xN<256>(float *d, u64 a, u64 b)
{
    wgmma_64x256x16(d, a, b);
}
template <> __device__ __forceinline__ void wgmma_64xN<128>(float *d, u64 a, u64 b)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, "
                 "%17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, "
                 "%47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, "
                 "%62, %63}"
                 ", %64, %65, 1, 1, 1, 0, 1;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]),
          "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]),
          "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),
          "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),
          "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]),
          "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]),
          "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]),
          "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(a), "l"(b));
}
template <> __device__ __forceinline__ void wgmma_64xN<192>(float *d, u64 a, u64 b)
{
    asm volatile("wgmma.mma_async.sync.aligned.m64n192k16.f32.bf16.bf16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, "
                 "%17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
                 "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, "
                 "%47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, "
                 "%62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, "
                 "%77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, "
                 "%92, %93, %94, %95}"
                 ", %96, %97, 1, 1, 1, 0, 1;\n"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]),
          "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]),
          "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]),
          "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]),
          "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]),
          "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]),
          "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]),
          "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]),
          "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]),
          "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]),
          "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]),
          "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]),
          "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]),
          "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]),
          "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]),
          "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95])
        : "l"(a), "l"(b));
}

template <int N>
__device__ __forceinline__ void store_n(float *c, const float *d, int m, int n, int row0, int col0,
                                        int t)
{
    int warp = t / 32, lane = t % 32;
#pragma unroll
    for (int j = 0; j < N / 8; ++j)
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

__device__ __forceinline__ void tile_at(int id, int tiles_x, int tiles_y, int &row0, int &col0)
{
    int per_group = 8 * tiles_x;
    int first = id / per_group * 8, in_group = id % per_group;
    int rows_here = min(tiles_y - first, 8);
    row0 = (first + in_group % rows_here) * TM, col0 = (in_group / rows_here) * TN;
}

extern "C" __global__ void __launch_bounds__(384, 1) hopper_tuned_variant(
    const __grid_constant__ CUtensorMap a_map, const __grid_constant__ CUtensorMap b_map,
    float *c, int m, int n, int k)
{
    int workers = min(132, (int)(gridDim.x * gridDim.y));
    int me = blockIdx.y * gridDim.x + blockIdx.x;
    if (me >= workers)
        return;
    int tiles_x = (n + TN - 1) / TN, tiles_y = (m + TM - 1) / TM, tiles = tiles_x * tiles_y;
    extern __shared__ u8 raw[];
    __shared__ __align__(8) u64 full[TSTAGES], empty[TSTAGES];
    u8 *stages = aligned_stages(raw);
    int t = threadIdx.x, group = t / 128;
    int slices = (k + BK - 1) / BK;
    if (t == 0) {
        for (int s = 0; s < TSTAGES; ++s) {
            barrier_init(&full[s], 1);
            barrier_init(&empty[s], 2);
        }
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    }
    __syncthreads();
    if (group == 0) {
        asm volatile("setmaxnreg.dec.sync.aligned.u32 40;\n");
        if (t == 0) {
            int it = 0;
            for (int tile = me; tile < tiles; tile += workers) {
                int row0, col0;
                tile_at(tile, tiles_x, tiles_y, row0, col0);
                for (int slice = 0; slice < slices; ++slice, ++it) {
                    int s = it % TSTAGES;
                    if (it >= TSTAGES)
                        wait_for(&empty[s], (it / TSTAGES - 1) & 1);
                    u8 *stage = stages + s * TSTAGE;
                    arrive_expecting(&full[s], TSTAGE);
                    for (int i = 0; i < TM / 128; ++i)
                        tma_load(stage + i * A_BYTES, &a_map, slice * BK, row0 + 128 * i,
                                 &full[s]);
                    for (int j = 0; j < TN / 64; ++j)
                        tma_load(stage + TA_BYTES + j * 64 * BK * 2, &b_map, col0 + 64 * j,
                                 slice * BK, &full[s]);
                }
            }
        }
        return;
    }
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;\n");
    int half = group - 1, it = 0;
    for (int tile = me; tile < tiles; tile += workers) {
        int row0, col0;
        tile_at(tile, tiles_x, tiles_y, row0, col0);
        float d[WM / 64][TN / 2] = {};
        for (int slice = 0; slice < slices; ++slice, ++it) {
            int s = it % TSTAGES;
            wait_for(&full[s], (it / TSTAGES) & 1);
            const u8 *stage = stages + s * TSTAGE;
            wgmma_fence();
#pragma unroll
            for (int kk = 0; kk < BK / 16; ++kk) {
                u64 b = descriptor(stage + TA_BYTES + kk * 16 * 128, 64 * 128, 1024);
#pragma unroll
                for (int i = 0; i < WM / 64; ++i) {
                    const u8 *rows = stage + (half * WM + 64 * i) * 128;
                    wgmma_64xN<TN>(d[i], descriptor(rows + kk * 32, 16, 1024), b);
                }
            }
            wgmma_commit();
            wgmma_wait<1>();
            if (t % 128 == 0 && slice > 0)
                arrive(&empty[(it - 1) % TSTAGES]);
        }
        wgmma_wait<0>();
        if (t % 128 == 0 && slices > 0)
            arrive(&empty[(it - 1) % TSTAGES]);
#pragma unroll
        for (int i = 0; i < WM / 64; ++i)
            store_n<TN>(c, d[i], m, n, row0 + half * WM + 64 * i, col0, t % 128);
    }
}
#endif
