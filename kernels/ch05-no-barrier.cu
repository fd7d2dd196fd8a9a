// The tile reverse of ch05-tiles.cu with its barrier taken out: a race, on purpose.
// check: reverse_tiles_no_barrier lacks bar.sync
// check: reverse_tiles_no_barrier lacks barrier.sync
// launch reverse_tiles_no_barrier: block = block.x = TILE; threads.x = len(x) = len(out)

#define TILE 256

// ANCHOR: reverse_tiles_no_barrier
extern "C" __global__ void __launch_bounds__(TILE)
reverse_tiles_no_barrier(const float *x, float *out)
{
    __shared__ float tile[TILE];
    int t = threadIdx.x;
    int i = blockIdx.x * TILE + t;
    tile[t] = x[i];
    // no __syncthreads(): slot TILE-1-t may not have been filled yet
    out[i] = tile[TILE - 1 - t];
}
// ANCHOR_END: reverse_tiles_no_barrier
