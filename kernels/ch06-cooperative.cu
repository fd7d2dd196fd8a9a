// Cooperative groups: the block sum written with group objects, and a whole-array sum in one
// kernel whose blocks wait for each other at a grid-wide barrier.
// check: every kernel has shfl.sync
// check: every kernel has barrier.sync
// check: every kernel lacks atom.global.add.f32
// check: sum_grid_sync lacks call
// check: every kernel lacks .f64
// The grid-stride loop of thread_partial is unrolled, four loads per trip, and leaves a
// remainder loop that NVRTC marks nounroll; the loops over the partials are not unrolled.
// check: sum_grid_sync has .pragma "nounroll"
// check: block_partials has .pragma "nounroll"
// check: sum_partials lacks .pragma "nounroll"
// launch sum_grid_sync: cooperative; n = len(x); len(partials) >= grid; len(total) >= 1
// launch sum_grid_sync: n + threads <= 2147483648
// launch block_partials: n = len(x); len(partials) >= grid
// launch sum_partials: count = len(partials); len(total) >= 1

#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>   // cg::reduce, cg::plus

// The usual short name for the library's namespace.
namespace cg = cooperative_groups;

// ANCHOR: block_sum
// The block sum of the block reduction page, with groups: the block is an object, its warps are
// tiles of 32 threads, and cg::reduce does the five shuffle steps. Every thread of the
// block gets the sum back, not only thread 0.
__device__ float block_sum(cg::thread_block block, float v)
{
    __shared__ float tile_sums[32];
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
    v = cg::reduce(tile, v, cg::plus<float>());
    if (tile.thread_rank() == 0) {
        tile_sums[tile.meta_group_rank()] = v;
    }
    block.sync();                                // __syncthreads(), said of this group
    unsigned tiles = tile.meta_group_size();     // blockDim.x / 32
    v = tile.thread_rank() < tiles ? tile_sums[tile.thread_rank()] : 0.0f;
    v = cg::reduce(tile, v, cg::plus<float>());  // every tile does it: all threads get the sum
    block.sync();                                // tile_sums may be written again by the caller
    return v;
}

// Each thread's share of x[0..n), by a grid-stride loop over the whole grid. The group
// hands out 64-bit ranks; the index and stride are kept as int, as in the block reduction's
// loop, so that NVRTC unrolls the loop the same way (four loads per trip).
__device__ float thread_partial(cg::grid_group grid, const float *x, int n)
{
    float v = 0.0f;
    int first = (int)grid.thread_rank();
    int stride = (int)grid.num_threads();
    for (int i = first; i < n; i += stride) {
        v += x[i];
    }
    return v;
}
// ANCHOR_END: block_sum

// ANCHOR: grid_sync
// The whole sum in one launch. Phase 1: every block writes its partial sum to partials.
// grid.sync(): no block goes on until every block has written. Phase 2: block 0 adds up
// the partials in a fixed order. Must be launched cooperatively (cuLaunchCooperativeKernel)
// with no more blocks than the GPU holds at once.
extern "C" __global__ void sum_grid_sync(const float *x, int n, float *partials, float *total)
{
    cg::grid_group grid = cg::this_grid();
    cg::thread_block block = cg::this_thread_block();

    float v = block_sum(block, thread_partial(grid, x, n));
    if (block.thread_rank() == 0) {
        partials[block.group_index().x] = v;
    }

    grid.sync();                                 // every partial is written and visible

    if (block.group_index().x == 0) {
        float w = 0.0f;
        for (unsigned b = block.thread_rank(); b < grid.num_blocks(); b += block.num_threads()) {
            w += partials[b];
        }
        w = block_sum(block, w);
        if (block.thread_rank() == 0) {
            *total = w;
        }
    }
}
// ANCHOR_END: grid_sync

// ANCHOR: two_kernels
// The same two phases as two kernels: the end of the first launch is the grid-wide barrier.
extern "C" __global__ void block_partials(const float *x, int n, float *partials)
{
    cg::thread_block block = cg::this_thread_block();
    float v = block_sum(block, thread_partial(cg::this_grid(), x, n));
    if (block.thread_rank() == 0) {
        partials[block.group_index().x] = v;
    }
}

// Launched with one block of the same size as the first kernel's blocks.
extern "C" __global__ void sum_partials(const float *partials, int count, float *total)
{
    cg::thread_block block = cg::this_thread_block();
    float w = 0.0f;
    for (int b = block.thread_rank(); b < count; b += block.num_threads()) {
        w += partials[b];
    }
    w = block_sum(block, w);
    if (block.thread_rank() == 0) {
        *total = w;
    }
}
// ANCHOR_END: two_kernels
