// Reversing every tile of an array through shared memory: the barrier makes it right.
// check: PTX has .entry reverse_tiles
// check: PTX has .entry reverse_tiles_dynamic
// check: PTX has bar.sync
// check: PTX has .extern .shared
// check: PTX lacks .f64

// ANCHOR: reverse_tiles
#define TILE 256

// Each block reverses one tile of TILE floats; the grid covers x exactly, so no bounds test.
extern "C" __global__ void reverse_tiles(const float *x, float *out)
{
    __shared__ float tile[TILE];        // one copy per block, in the SM's shared memory
    int t = threadIdx.x;
    int i = blockIdx.x * TILE + t;
    tile[t] = x[i];                     // thread t fills slot t ...
    __syncthreads();                    // ... and waits until every slot is filled
    out[i] = tile[TILE - 1 - t];        // slot TILE-1-t was filled by another warp
}
// ANCHOR_END: reverse_tiles

// ANCHOR: reverse_tiles_dynamic
// The same with the tile size chosen at launch: one tile per block, blockDim.x floats long,
// in the dynamic shared memory the launch asks for (blockDim.x * 4 bytes).
extern "C" __global__ void reverse_tiles_dynamic(const float *x, float *out)
{
    extern __shared__ float tile[];     // no size here: the launch gives it
    int t = threadIdx.x;
    int size = blockDim.x;
    int i = blockIdx.x * size + t;
    tile[t] = x[i];
    __syncthreads();
    out[i] = tile[size - 1 - t];
}
// ANCHOR_END: reverse_tiles_dynamic
