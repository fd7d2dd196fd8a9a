// The largest value of an array, found by atomics: atomicMax for integers, and for floats a
// bit trick that only works for some inputs, then compare-and-swap loops that work for all.
// check: max_int has atom.global.max.s32
// check: max_float_bits has atom.global.max.s32
// check: max_float_cas has atom.global.cas.b32
// check: max_float_sign_split has atom.global.max.s32
// check: max_float_sign_split has atom.global.min.u32
// check: max_float_sign_split lacks atom.global.cas
// check: max_float_cas_counted has atom.global.cas.b32
// check: max_float_cas_counted has atom.global.add.u32
// check: every kernel lacks .f64
// launch max_*: n = len(values); len(result) >= 1; threads.x >= n
// launch max_float_cas_counted: len(retries) >= 1

// ANCHOR: max_int
extern "C" __global__ void max_int(const int *values, int n, int *result)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicMax(result, values[i]);
    }
}
// ANCHOR_END: max_int

// ANCHOR: max_float_bits
// The bit trick: compare the floats' bit patterns as ints. Right for floats >= 0 only.
extern "C" __global__ void max_float_bits(const float *values, int n, float *result)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicMax((int *)result, __float_as_int(values[i]));
    }
}
// ANCHOR_END: max_float_bits

// ANCHOR: atomic_max_float
// Raise *addr to v if v is larger, comparing as floats. atomicCAS(p, expected, desired) writes
// desired only if *p still holds expected, and returns what *p held.
__device__ void atomic_max_float(float *addr, float v)
{
    int *p = (int *)addr;
    int seen = *p;
    while (__int_as_float(seen) < v) {  // stop as soon as v would not raise the maximum
        int expected = seen;
        seen = atomicCAS(p, expected, __float_as_int(v));
        if (seen == expected) {
            break;                      // nobody wrote in between: v is in
        }
    }
}

extern "C" __global__ void max_float_cas(const float *values, int n, float *result)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomic_max_float(result, values[i]);
    }
}
// ANCHOR_END: atomic_max_float

// ANCHOR: max_float_sign_split_by_value
// A version without a loop, almost right: a float >= 0 is ordered like its bits read as a
// signed int, and a negative float is ordered backwards like its bits read as an unsigned int.
// But the test v >= 0.0f is also true for -0.0, whose bits (0x80000000) read as an int are
// INT_MIN, below everything: a -0.0 never raises the result.
extern "C" __global__ void max_float_sign_split_by_value(const float *values, int n,
                                                         float *result)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = values[i];
        if (v >= 0.0f) {
            atomicMax((int *)result, __float_as_int(v));
        } else {
            atomicMin((unsigned *)result, __float_as_uint(v));
        }
    }
}
// ANCHOR_END: max_float_sign_split_by_value

// ANCHOR: max_float_sign_split
// The same split made on the sign bit instead of the value. It computes the maximum in IEEE
// 754's total order: -0.0 below +0.0, a NaN with the sign bit clear above +inf, and one with
// the sign bit set below -inf, whatever order the threads come in.
extern "C" __global__ void max_float_sign_split(const float *values, int n, float *result)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int bits = __float_as_int(values[i]);
        if (bits >= 0) {                // sign bit clear: +0.0 and up
            atomicMax((int *)result, bits);
        } else {                        // sign bit set: -0.0 and down
            atomicMin((unsigned *)result, (unsigned)bits);
        }
    }
}
// ANCHOR_END: max_float_sign_split

// ANCHOR: max_float_cas_counted
// atomic_max_float with a count of the compare-and-swaps that lost to another thread.
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
        atomicAdd(retries, 1u);         // another thread changed it first: try again
    }
}
// ANCHOR_END: max_float_cas_counted
