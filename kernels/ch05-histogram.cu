// A 256-bin histogram of bytes: one global atomic per byte; a histogram per block in shared
// memory, merged into the global one at the end; and the same with each thread reading
// 16 bytes at a time.
// check: hist_global has atom.global.add.u32
// check: hist_global lacks atom.shared
// check: hist_shared has atom.shared.add.u32
// check: hist_shared has atom.global.add.u32
// check: hist_shared has ld.global.u8
// check: hist_shared_wide has atom.shared.add.u32
// check: hist_shared_wide has ld.global.nc.v4.u32
// launch hist_global: n = len(bytes); len(bins) >= BINS; threads.x >= n
// launch hist_shared*: n = len(bytes); len(bins) >= BINS; block = block.x = BINS; aligned(bytes, 16)

#define BINS 256                        // the shared kernels run exactly BINS threads per block

// ANCHOR: hist_global
// One thread per byte, one global atomic per byte.
extern "C" __global__ void hist_global(const unsigned char *bytes, int n, unsigned *bins)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&bins[bytes[i]], 1u);
    }
}
// ANCHOR_END: hist_global

// ANCHOR: hist_shared
// A private histogram per block. Thread t owns bin t for clearing and merging (BINS threads).
extern "C" __global__ void __launch_bounds__(BINS)
hist_shared(const unsigned char *bytes, int n, unsigned *bins)
{
    __shared__ unsigned local[BINS];
    int t = threadIdx.x;
    local[t] = 0;                       // shared memory starts with whatever was there
    __syncthreads();                    // every bin is cleared before anyone counts

    // 64-bit indices: for n near 2^31, i + stride would overflow an int and turn negative.
    long long first = blockIdx.x * blockDim.x + t;
    long long stride = gridDim.x * blockDim.x; // all the threads of the grid
    for (long long i = first; i < n; i += stride) {
        atomicAdd(&local[bytes[i]], 1u); // contended only by this block's threads
    }
    __syncthreads();                    // every count is in before the merge

    atomicAdd(&bins[t], local[t]);      // the merge: 256 global atomics for the block
}
// ANCHOR_END: hist_shared

// ANCHOR: hist_shared_wide
// The same, but each step of the loop loads 16 bytes (one uint4) per thread, so a warp asks
// memory for 512 bytes at once instead of 32.
extern "C" __global__ void __launch_bounds__(BINS)
hist_shared_wide(const unsigned char *__restrict__ bytes, int n, unsigned *bins)
{
    __shared__ unsigned local[BINS];
    int t = threadIdx.x;
    local[t] = 0;
    __syncthreads();

    long long first = blockIdx.x * blockDim.x + t;
    long long stride = gridDim.x * blockDim.x;
    long long pieces = n / 16;          // whole 16-byte pieces; the buffer is 16-byte aligned
    const uint4 *wide = (const uint4 *)bytes;
    for (long long p = first; p < pieces; p += stride) {
        uint4 piece = wide[p];
        unsigned words[4] = {piece.x, piece.y, piece.z, piece.w};
        for (int w = 0; w < 4; w++) {
            for (int b = 0; b < 4; b++) {
                atomicAdd(&local[(words[w] >> (8 * b)) & 0xFF], 1u);
            }
        }
    }
    for (long long i = pieces * 16 + first; i < n; i += stride) {
        atomicAdd(&local[bytes[i]], 1u);  // the last n % 16 bytes
    }
    __syncthreads();

    atomicAdd(&bins[t], local[t]);
}
// ANCHOR_END: hist_shared_wide
