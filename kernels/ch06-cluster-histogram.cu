// A histogram of 2^16 or 2^17 bins, more than one block's shared memory holds, three ways: a
// global atomic per value; one block per range of bins, each block reading every value; and a
// thread-block cluster whose blocks hold one range of bins each in their shared memory and count
// into each other's (distributed shared memory). Values at or past `bins` are not counted.
// requires: sm_90
// check: hist_cluster has red.shared::cluster.add.u32
// check: hist_cluster has mapa.shared::cluster.u32
// check: hist_cluster has barrier.cluster.arrive
// check: hist_cluster has barrier.cluster.wait
// check: hist_global_bins lacks atom.shared
// check: hist_bin_ranges has atom.shared.add.u32
// launch hist_*: n = len(values); len(counts) >= bins
// launch hist_bin_ranges: shared >= 4 * ((bins + grid.y - 1) / grid.y); grid.y >= 1
// launch hist_cluster: clusters; shared >= 4 * ((bins + cluster - 1) / cluster)

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// ANCHOR: hist_global_bins
// Every value is one atomic on its bin in global memory.
extern "C" __global__ void hist_global_bins(const unsigned *values, int n, unsigned bins,
                                            unsigned *counts)
{
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += stride) {
        unsigned v = values[i];
        if (v < bins) {
            atomicAdd(&counts[v], 1u);
        }
    }
}
// ANCHOR_END: hist_global_bins

// ANCHOR: merge_range
// Adds `local`'s `size` counts into counts[first, first + size), one atomic per bin that is
// not empty.
__device__ void merge_range(const unsigned *local, unsigned first, unsigned size,
                            unsigned *counts)
{
    for (unsigned b = threadIdx.x; b < size; b += blockDim.x) {
        if (local[b] != 0) {
            atomicAdd(&counts[first + b], local[b]);
        }
    }
}
// ANCHOR_END: merge_range

// ANCHOR: hist_bin_ranges
// Blocks (x, y) count the bins of range y, a share of the bins that fits in shared memory, over
// the values of column x: every value is read by one block of each range.
extern "C" __global__ void hist_bin_ranges(const unsigned *values, int n, unsigned bins,
                                           unsigned *counts)
{
    extern __shared__ unsigned local[];
    unsigned size = (bins + gridDim.y - 1) / gridDim.y;
    unsigned first = blockIdx.y * size;
    size = first >= bins ? 0 : min(size, bins - first);
    for (unsigned b = threadIdx.x; b < size; b += blockDim.x) {
        local[b] = 0;
    }
    __syncthreads();
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += stride) {
        unsigned v = values[i] - first; // wraps past `size` for a value below the range
        if (v < size) {
            atomicAdd(&local[v], 1u);
        }
    }
    __syncthreads();
    merge_range(local, first, size, counts);
}
// ANCHOR_END: hist_bin_ranges

// ANCHOR: cluster_add
// Adds 1 to local[offset] of the cluster's block `rank`: mapa turns this block's shared address
// into the one that names the same word in that block's shared memory, and red adds to it
// without returning the old value. (cg's map_shared_rank gives a generic pointer instead,
// whose atomics take the slower generic path.)
__device__ void cluster_add_one(unsigned *local, unsigned rank, unsigned offset)
{
    unsigned mine = (unsigned)__cvta_generic_to_shared(local + offset);
    unsigned theirs;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(theirs) : "r"(mine), "r"(rank));
    asm volatile("red.shared::cluster.add.u32 [%0], 1;" ::"r"(theirs) : "memory");
}
// ANCHOR_END: cluster_add

// ANCHOR: hist_cluster
// The blocks of a cluster split the bins: block rank r holds `size` of them from r * size on.
// Every block reads its share of the values and counts each in the shared memory of the block
// that holds its bin, its own or another's.
extern "C" __global__ void hist_cluster(const unsigned *values, int n, unsigned bins,
                                        unsigned *counts)
{
    extern __shared__ unsigned local[];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned size = (bins + cluster.num_blocks() - 1) / cluster.num_blocks();
    unsigned first = cluster.block_rank() * size;
    for (unsigned b = threadIdx.x; b < size; b += blockDim.x) {
        local[b] = 0;
    }
    cluster.sync();                     // every block's bins are cleared before anyone counts

    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += stride) {
        unsigned v = values[i];
        if (v < bins) {
            cluster_add_one(local, v / size, v % size);
        }
    }
    cluster.sync();                     // every count is in before the blocks merge, or exit

    merge_range(local, first, first >= bins ? 0 : min(size, bins - first), counts);
}
// ANCHOR_END: hist_cluster
