// Exercise: "Challenge 1: a float maximum with fewer compare-and-swaps" (chapter 6).
// Find each warp's maximum with __shfl_xor_sync, then let only lane 0 of each warp run the
// compare-and-swap loop below. `cargo run --bin judge -- ch06`. The solution is in
// ch06-challenges.cu.

#define FULL_MASK 0xffffffffu

// Chapter 5's float maximum from atomicCAS, counting every atomicCAS it issues in *attempts.
__device__ void atomic_max_float_counted(float *addr, float v, unsigned *attempts)
{
    int *p = (int *)addr;
    int seen = *p;
    while (__int_as_float(seen) < v) {
        int expected = seen;
        seen = atomicCAS(p, expected, __float_as_int(v));
        atomicAdd(attempts, 1u);
        if (seen == expected) {
            break;
        }
    }
}

// *result starts at -infinity and *attempts at 0; the judge launches blocks of 256 threads,
// one thread per value, and the last warp may reach past n.
extern "C" __global__ void max_warp_first(const float *values, int n, float *result,
                                          unsigned *attempts)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    // TODO: every lane takes part in five shuffles (a lane past n offers a value that never
    // changes a maximum), then lane 0 calls atomic_max_float_counted.
}
