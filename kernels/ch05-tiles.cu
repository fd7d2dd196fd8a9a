// Reversing every tile of an array through shared memory: the barrier makes it right.
// check: reverse_tiles has bar.sync
// check: reverse_tiles has .shared .align
// check: reverse_tiles_dynamic has bar.sync
// check: reverse_tiles_dynamic has st.shared.f32
// check: reverse_tiles_dynamic lacks .shared .align
// check: every kernel lacks .f64
// launch reverse_tiles: block = block.x = TILE; threads.x = len(x) = len(out)
// launch reverse_tiles_dynamic: shared >= block.x * 4; threads.x = len(x) = len(out)

// ANCHOR: reverse_tiles
#define TILE 256

// Each block reverses one tile of TILE floats; the grid covers x exactly, so no bounds test.
// It needs exactly TILE threads per block: __launch_bounds__ refuses more, the host checks.
extern "C" __global__ void __launch_bounds__(TILE) reverse_tiles(const float *x, float *out)
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
