// check: add_in_place has add.f32
// check: add_in_place lacks .f64
// check: add_taylor_term has .f64
// launch add_in_place: n = len(a) = len(b); threads.x >= n
// launch add_taylor_term: n = len(xs) = len(ys); threads.x >= n

// ANCHOR: add_in_place
// The GPU side of `a += b`: one thread per element.
extern "C" __global__ void add_in_place(float *a, const float *b, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        a[i] += b[i];
    }
}
// ANCHOR_END: add_in_place

// ANCHOR: add_taylor_term
// ys += xs^power / factorial: one term of the Taylor series of exp, for every element.
extern "C" __global__ void add_taylor_term(const double *xs, double *ys, int power,
                                           double factorial, long long n)
{
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        ys[i] += pow(xs[i], (double)power) / factorial;
    }
}
// ANCHOR_END: add_taylor_term
