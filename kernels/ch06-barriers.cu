// Smoothing each block's tile in shared memory, step after step: the tile is read and then
// overwritten at every step. smooth_tiles has the two barriers a step needs;
// smooth_tiles_one_barrier lacks the one after the reads, a race on purpose.
// check: smooth_tiles has bar.sync
// check: smooth_tiles_one_barrier has bar.sync
// check: every kernel lacks .f64
// launch smooth_tiles: n = len(x) = len(out); block = TILE; threads >= n

#define TILE 256

// The same rule as the CPU's: integers, so the GPU must match the CPU bit for bit.
__device__ unsigned smooth_point(unsigned left, unsigned centre, unsigned right)
{
    return (left + 2 * centre + right) / 4;
}

// ANCHOR: smooth_tiles
// Each block of exactly TILE threads (the host checks it) smooths its own tile of TILE points
// `steps` times; a tile's ends use themselves as their missing neighbour. The last tile may
// be short: its extra threads load nothing and compute nothing, but they reach every barrier.
extern "C" __global__ void __launch_bounds__(TILE)
smooth_tiles(const unsigned *x, unsigned *out, int n, int steps)
{
    __shared__ unsigned tile[TILE];
    int t = threadIdx.x;
    int start = blockIdx.x * TILE;
    int len = min(TILE, n - start);
    bool inside = t < len;                  // no early return: see the barriers below
    int left = max(t - 1, 0), right = min(t + 1, len - 1);

    if (inside) tile[t] = x[start + t];
    __syncthreads();                        // the whole tile is loaded
    for (int s = 0; s < steps; ++s) {
        unsigned v = 0;
        if (inside) v = smooth_point(tile[left], tile[t], tile[right]);
        __syncthreads();                    // every thread has read its neighbours...
        if (inside) tile[t] = v;            // ...before any thread overwrites its slot
        __syncthreads();                    // every new value is in before the next reads
    }
    if (inside) out[start + t] = tile[t];
}
// ANCHOR_END: smooth_tiles

// ANCHOR: smooth_tiles_one_barrier
// The same loop without the barrier after the reads: a thread may overwrite tile[t] while
// its neighbour, in another warp, has not yet read it.
extern "C" __global__ void __launch_bounds__(TILE)
smooth_tiles_one_barrier(const unsigned *x, unsigned *out, int n, int steps)
{
    __shared__ unsigned tile[TILE];
    int t = threadIdx.x;
    int start = blockIdx.x * TILE;
    int len = min(TILE, n - start);
    bool inside = t < len;
    int left = max(t - 1, 0), right = min(t + 1, len - 1);

    if (inside) tile[t] = x[start + t];
    __syncthreads();
    for (int s = 0; s < steps; ++s) {
        unsigned v = 0;
        if (inside) v = smooth_point(tile[left], tile[t], tile[right]);
        // missing: __syncthreads();
        if (inside) tile[t] = v;
        __syncthreads();
    }
    if (inside) out[start + t] = tile[t];
}
// ANCHOR_END: smooth_tiles_one_barrier
