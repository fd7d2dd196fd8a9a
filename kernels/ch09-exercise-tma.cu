// Exercise: "Challenge: the producer's loop" (chapter 9). out = inᵀ through shared memory, in
// boxes of 32 × 32 floats that the tensor memory accelerator copies in, STAGES boxes at a time.
// `in` is rows × cols, row-major, its rows padded to a pitch the host chose (the map knows it);
// `out` is cols × rows, row-major. Block b takes the band of 32 rows from row 32 b: one thread
// of its first warp starts the copies, its other four warps write each box out transposed and
// free its stage. Write the body of start_copies, then run `cargo run --bin judge -- ch09 tma`.
// The solution is tma_transpose in ch09-tma-transpose.cu.
// requires: sm_90
// check: every kernel lacks .f64
// launch tma_transpose_exercise: len(out) = rows * cols; block = block.x = 160; grid.x * 32 >= rows

typedef unsigned long long u64;

#define STAGES 4 // boxes in shared memory at once
#define BOX 32   // a box is BOX × BOX floats
constexpr int BOX_BYTES = BOX * BOX * 4;

// What cuTensorMapEncodeTiled writes: 128 opaque bytes, passed by value.
struct __align__(64) CUtensorMap {
    unsigned long long opaque[16];
};

__device__ __forceinline__ unsigned smem(const void *p)
{
    return static_cast<unsigned>(__cvta_generic_to_shared(p));
}

// ANCHOR: helpers
__device__ __forceinline__ void barrier_init(u64 *bar, int arrivals)
{
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(smem(bar)), "r"(arrivals));
}
// One arrival on `bar`, which also tells it to wait for `bytes` more bytes to land.
__device__ __forceinline__ void arrive_expecting(u64 *bar, int bytes)
{
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(smem(bar)),
                 "r"(bytes));
}
__device__ __forceinline__ void arrive(u64 *bar)
{
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];\n" ::"r"(smem(bar)));
}
// Wait until the phase of `bar` with this parity has completed. A phase that has not completed
// after about a second never will (a copy never started, a byte count wrong): the kernel then
// stops itself with a trap instead of hanging.
__device__ __forceinline__ void wait_for(u64 *bar, int parity)
{
    long long start = clock64();
    unsigned done = 0;
    while (!done) {
        asm volatile("{\n"
                     ".reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
                     "selp.u32 %0, 1, 0, p;\n"
                     "}\n"
                     : "=r"(done)
                     : "r"(smem(bar)), "r"(parity));
        if (!done && clock64() - start > 2000000000ll)
            __trap();
    }
}
// Copy the box of `map` whose top left corner is at (col, row) into shared memory at `to`;
// `bar` counts its bytes as they land. The TMA fills with zeros what lies outside the map.
__device__ __forceinline__ void tma_load(void *to, const CUtensorMap *map, int col, int row,
                                         u64 *bar)
{
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
                 " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(smem(to)),
                 "l"(map), "r"(col), "r"(row), "r"(smem(bar))
                 : "memory");
}
// ANCHOR_END: helpers

// ANCHOR: producer
// Start the copies of the band's `count` boxes, left to right: box i goes to stage i % STAGES,
// once the writers have freed that stage (from the second round of stages on).
__device__ __forceinline__ void start_copies(float (*boxes)[BOX * BOX], u64 *full, u64 *empty,
                                             const CUtensorMap *map, int row0, int count)
{
    // TODO: for each box i of the band, in order: wait until the writers have freed its stage
    // (from the second round of stages on; which phase of `empty` says so?), tell the stage's
    // full barrier how many bytes to wait for, and start the box's copy. The box of box i
    // starts at column 32 i of the band's first row, row0.
}
// ANCHOR_END: producer

// ANCHOR: writers
// Thread t of the 128 writers: each box, once it has landed, out transposed, 32 rows of `out`
// a pass (consecutive threads write consecutive floats); then its arrival on the stage's empty
// barrier.
__device__ __forceinline__ void write_boxes(const float (*boxes)[BOX * BOX], u64 *full,
                                            u64 *empty, float *out, int rows, int cols,
                                            int row0, int count, int t)
{
    for (int i = 0; i < count; ++i) {
        int s = i % STAGES;
        wait_for(&full[s], (i / STAGES) & 1);
        for (int e = t; e < BOX * BOX; e += 128) {
            int r = e % BOX, c = e / BOX, row = row0 + r, col = i * BOX + c;
            if (row < rows && col < cols)
                out[(size_t)col * rows + row] = boxes[s][r * BOX + c];
        }
        arrive(&empty[s]);
    }
}
// ANCHOR_END: writers

extern "C" __global__ void __launch_bounds__(160) tma_transpose_exercise(
    const __grid_constant__ CUtensorMap in_map, float *out, int rows, int cols)
{
    __shared__ __align__(128) float boxes[STAGES][BOX * BOX];
    __shared__ __align__(8) u64 full[STAGES], empty[STAGES];
    int row0 = blockIdx.x * BOX, count = cols / BOX + (cols % BOX != 0);
    if (threadIdx.x == 0) {
        for (int s = 0; s < STAGES; ++s) {
            barrier_init(&full[s], 1);
            barrier_init(&empty[s], 128);
        }
        asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
    }
    __syncthreads();
    if (threadIdx.x == 0)
        start_copies(boxes, full, empty, &in_map, row0, count);
    else if (threadIdx.x >= 32)
        write_boxes(boxes, full, empty, out, rows, cols, row0, count, threadIdx.x - 32);
}
