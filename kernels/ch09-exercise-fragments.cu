// Exercise: "Challenge: the ldmatrix fragment mapping" (chapter 9). One tile product per warp:
// warp w of the grid multiplies its own 16×16 tile of A (row-major bf16, at a + 256 w) by its
// own 16×8 tile of B (row-major bf16: 16 rows along k of 8 columns, at b + 128 w) into its own
// 16×8 tile of C (row-major float, at c + 128 w), with one mma.sync fed by ldmatrix. Write the
// bodies of a_row, a_col and b_row, then run `cargo run --bin judge -- ch09 fragments`. The
// solution is tile_products in ch09-fragments.cu.
// requires: sm_80
// check: every kernel lacks .f64
// check: tile_products_exercise has mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// check: tile_products_exercise has ldmatrix.sync.aligned.m8n8.x4.shared.b16
// check: tile_products_exercise has ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16
// launch tile_products_exercise: len(a) = 256 * tiles; len(b) = 128 * tiles; len(c) = 128 * tiles
// launch tile_products_exercise: block = block.x = 128; grid.x * 4 >= tiles

#include <cuda_bf16.h>

// ANCHOR: exercise
// D += A·B for one 16×8 tile of C, 16 deep. With g = l / 4 and t = 2 (l % 4), lane l holds
// in a[0] the pair A[g][t], A[g][t + 1]; in a[1] the pair below it, in row g + 8; in a[2] the
// pair in row g, columns t + 8 and t + 9; in a[3] that pair of row g + 8. In b[0] it holds
// B[t][g] and B[t + 1][g], two neighbours along k; in b[1] the two 8 rows further down. In d it
// holds C[g][t], C[g][t + 1], C[g + 8][t] and C[g + 8][t + 1].
__device__ __forceinline__ void mma_16x8x16(float d[4], const unsigned a[4], const unsigned b[2])
{
    asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
                 "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
                 : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
}

// Four 8×8 matrices M0 to M3 of bf16 from shared memory in one instruction. Lanes 8i to 8i + 7
// give the addresses of rows 0 to 7 of Mi (16 bytes each, on 16-byte boundaries); with g
// and t as above, lane l receives in r[i] the pair Mi[g][t], Mi[g][t + 1].
__device__ __forceinline__ void load_matrices(unsigned r[4], const __nv_bfloat16 *row)
{
    unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(row));
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(at));
}

// Two 8×8 matrices M0 and M1, transposed as they are loaded: lanes 8i to 8i + 7 give the
// addresses of rows 0 to 7 of Mi, and lane l receives in r[i] the pair Mi[t][g], Mi[t + 1][g],
// two neighbours in a column. ldmatrix reads the addresses of lanes 0-15 only.
__device__ __forceinline__ void load_two_matrices_transposed(unsigned r[2], const __nv_bfloat16 *row)
{
    unsigned at = static_cast<unsigned>(__cvta_generic_to_shared(row));
    asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
                 : "=r"(r[0]), "=r"(r[1])
                 : "r"(at));
}

// Which row (0 to 15) of A's 16×16 tile lane `lane` points ldmatrix at.
__device__ __forceinline__ int a_row(int lane)
{
    // TODO: the row of A's tile whose 8 elements, from column a_col(lane) on, lane `lane` gives
    // ldmatrix the address of, so that each register of A holds the matrix the mma expects in
    // it. Every lane must point inside the tile.
    return 0;
}

// At which column (0 or 8) of that row the lane's 8 elements start.
__device__ __forceinline__ int a_col(int lane)
{
    // TODO: the column of A's tile where the 8 elements that lane `lane` points at begin.
    return 0;
}

// Which row along k (0 to 15) of B's 16×8 tile lane `lane` points ldmatrix at.
__device__ __forceinline__ int b_row(int lane)
{
    // TODO: the row of B's tile (all 8 of its columns) that lane `lane` gives ldmatrix the
    // address of, so that each register of B holds the matrix the mma expects in it. Lanes
    // whose addresses ldmatrix does not read must still point inside the tile.
    return 0;
}

// Four warps a block, each with its own two tiles in shared memory.
extern "C" __global__ void __launch_bounds__(128)
    tile_products_exercise(const __nv_bfloat16 *a, const __nv_bfloat16 *b, float *c, int tiles)
{
    __shared__ __align__(16) __nv_bfloat16 as[4][16 * 16];
    __shared__ __align__(16) __nv_bfloat16 bs[4][16 * 8];
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    int w = blockIdx.x * 4 + warp; // this warp's tile
    if (w >= tiles)
        return; // the whole warp: mma.sync and ldmatrix need all 32 lanes or none
    a += 256 * w, b += 128 * w, c += 128 * w;
    for (int e = lane; e < 16 * 16; e += 32)
        as[warp][e] = a[e];
    for (int e = lane; e < 16 * 8; e += 32)
        bs[warp][e] = b[e];
    __syncwarp(); // every lane's copies are seen by the others

    unsigned fa[4], fb[2];
    load_matrices(fa, &as[warp][a_row(lane) * 16 + a_col(lane)]);
    load_two_matrices_transposed(fb, &bs[warp][b_row(lane) * 8]);
    float d[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    mma_16x8x16(d, fa, fb);

    // Lane l holds rows l / 4 and l / 4 + 8 of C's tile, columns 2 (l % 4) and 2 (l % 4) + 1.
    int row = lane / 4, col = 2 * (lane % 4);
    c[row * 8 + col] = d[0];
    c[row * 8 + col + 1] = d[1];
    c[(row + 8) * 8 + col] = d[2];
    c[(row + 8) * 8 + col + 1] = d[3];
}
// ANCHOR_END: exercise
