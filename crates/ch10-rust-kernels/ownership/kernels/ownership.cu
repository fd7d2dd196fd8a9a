// The kernels of chapter 10's ownership programs: work that is still running on a stream when
// the host goes on. Each loops over its array with a stride of the whole grid.

// ANCHOR: wait_then_fill
// Waits `wait_ns` nanoseconds of the GPU's own clock, then writes `value` to every element:
// a stream that is busy for as long as the program says, and a writer whose write comes last.
extern "C" __global__ void wait_then_fill(unsigned int *out, long long n, unsigned int value,
                                          long long wait_ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < (unsigned long long)wait_ns);
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        out[i] = value;
    }
}
// ANCHOR_END: wait_then_fill

// ANCHOR: wait_then_copy
// Waits `wait_ns` nanoseconds, then copies `in` to `out`: a reader whose read comes late.
extern "C" __global__ void wait_then_copy(const unsigned int *in, unsigned int *out, long long n,
                                          long long wait_ns)
{
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    do {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    } while (now - start < (unsigned long long)wait_ns);
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x) {
        out[i] = in[i];
    }
}
// ANCHOR_END: wait_then_copy
