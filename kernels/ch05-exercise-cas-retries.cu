// Exercise: "Practice 2: counting CAS retries" (chapter 5). The float maximum's
// compare-and-swap loop; count in *retries each atomicCAS that finds the value changed by
// another thread. `cargo run --bin judge -- ch05`. The solution is in ch05-atomic-max.cu.

extern "C" __global__ void max_float_cas_counted(const float *values, int n, float *result,
                                                 unsigned *retries)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) {
        return;
    }
    float v = values[i];
    int *p = (int *)result;
    int seen = *p;
    while (__int_as_float(seen) < v) {
        int expected = seen;
        seen = atomicCAS(p, expected, __float_as_int(v));
        if (seen == expected) {
            break;
        }
        // TODO: this atomicCAS lost to another thread; count it in *retries.
    }
}
