// A test's kernel, not the course's: the launcher of a clustered kernel, generated as for the
// files of kernels/, for the property test of clustered launches (clusters.rs). No program
// compiles or runs it.
// launch cluster_bins: clusters; n = len(values); threads >= n; bins = len(counts); bins >= 1
// launch cluster_bins: shared >= 4 * ((bins + cluster - 1) / cluster)

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

// The bins are shared out among the blocks of a cluster, a slice each in its shared memory; a
// thread counts its value in the slice of the block that owns the bin (distributed shared
// memory), and each block then adds its slice to counts.
extern "C" __global__ void cluster_bins(const unsigned *values, unsigned *counts, int n, int bins)
{
    extern __shared__ unsigned slice[];
    cg::cluster_group cluster = cg::this_cluster();
    int per_block = (bins + (int)cluster.num_blocks() - 1) / (int)cluster.num_blocks();
    for (int b = threadIdx.x; b < per_block; b += blockDim.x) {
        slice[b] = 0;
    }
    cluster.sync();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int bin = (int)(values[i] % (unsigned)bins);
        unsigned *owner = cluster.map_shared_rank(slice, bin / per_block);
        atomicAdd(&owner[bin % per_block], 1u);
    }
    cluster.sync();
    int first = (int)cluster.block_rank() * per_block;
    for (int b = threadIdx.x; b < per_block && first + b < bins; b += blockDim.x) {
        atomicAdd(&counts[first + b], slice[b]);
    }
}
