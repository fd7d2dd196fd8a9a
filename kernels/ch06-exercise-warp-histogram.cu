// Exercise: "Challenge 3: a global histogram with one atomic per distinct byte" (chapter 6).
// `cargo run --bin judge -- ch06 warp_histogram`. The solution is in ch06-challenges.cu.

#define FULL_MASK 0xffffffffu

// One thread per byte; bins[0, 256) start at 0. The judge launches blocks of 256 threads, and
// the last warp may reach past n.
extern "C" __global__ void hist_global_aggregated(const unsigned char *bytes, int n,
                                                  unsigned *bins)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 31;
    // TODO: every lane of the warp finds the lanes that hold the same byte as it; one lane of
    // each such group adds the group's size to the byte's bin. A lane past n holds no byte, but
    // it must still take part, with a key that matches no other lane's.
}
