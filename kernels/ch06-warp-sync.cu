// The lanes of each warp add up their 32 values through shared memory, halving the active lanes
// at each step, once with __syncwarp() between the steps and once without.
// check: warp_sum_synced has bar.warp.sync
// check: warp_sum_unsynced lacks bar.warp.sync
// check: every kernel lacks shfl.sync
// launch warp_sum_*: n = len(x); threads >= n; 32 * len(sums) >= n; block = block.x = THREADS

#define THREADS 256

// ANCHOR: warp_sum
// Lane 0 of each warp writes the sum of the warp's 32 values (0 past the end). Each step, every
// lane adds the value stored `half` lanes above its own, then stores its new sum; lanes past the
// warp's end read its row's 16 zeros. After the step with half = h, lanes 0 to h - 1 hold sums
// of 32 / h values, so lane 0 ends with all 32.
template <bool SYNC>
__device__ void warp_sum(const int *x, int n, int *sums)
{
    __shared__ int s[THREADS / 32][32 + 16];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % 32;
    int *row = s[threadIdx.x / 32];     // this warp's own row: no other warp touches it
    int v = i < n ? x[i] : 0;
    row[lane] = v;
    if (lane < 16) row[32 + lane] = 0;
    if (SYNC) __syncwarp();             // every lane's value is stored before any is read
    for (int half = 16; half > 0; half /= 2) {
        v += row[lane + half];
        if (SYNC) __syncwarp();         // every lane has read before any overwrites
        row[lane] = v;
        if (SYNC) __syncwarp();         // every lane has stored before the next step reads
    }
    if (lane == 0 && i < n) {
        sums[i / 32] = v;
    }
}
// ANCHOR_END: warp_sum

extern "C" __global__ void __launch_bounds__(THREADS)
warp_sum_synced(const int *x, int n, int *sums)
{
    warp_sum<true>(x, n, sums);
}

extern "C" __global__ void __launch_bounds__(THREADS)
warp_sum_unsynced(const int *x, int n, int *sums)
{
    warp_sum<false>(x, n, sums);
}
