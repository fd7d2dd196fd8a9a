// check: broadcast_multiply has mul.f64
// check: sum_middle_axis has add.f64
// check: dft_terms has .f64
// check: sum_terms has add.f64
// check: outer_product has mul.f32
// check: outer_product lacks .f64
// launch broadcast_multiply: len(a) = m * n; len(b) = n * p; len(prod) = m * n * p
// launch broadcast_multiply: threads.x >= m * n * p
// launch sum_middle_axis: len(prod) = m * n * p; len(c) = m * p; threads.x >= m * p
// launch dft_terms: N = len(x); len(terms) = N * N; threads.x >= N * N
// launch sum_terms: N = len(X); len(terms) = N * N; threads.x >= N; threads.x <= 2147483648
// launch outer_product: m = len(x); n = len(y); len(out) = m * n; threads.x >= m * n

// ANCHOR: matmul
// prod[i][k][j] = a[i][k] * b[k][j]: the m x n x p array that `A[:, :, None] * B[None, :, :]`
// builds. Row-major, j varies fastest.
extern "C" __global__ void broadcast_multiply(const double *a, const double *b, double *prod,
                                              int m, int n, int p)
{
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)m * n * p) {
        return;
    }
    int j = idx % p;
    int k = (idx / p) % n;
    int i = idx / ((long long)n * p);
    prod[idx] = a[(long long)i * n + k] * b[(long long)k * p + j];
}

// c[i][j] = sum over k of prod[i][k][j]: the `.sum(axis=1)`. One thread per (i, j); for each k,
// neighbouring threads read neighbouring addresses.
extern "C" __global__ void sum_middle_axis(const double *prod, double *c, int m, int n, int p)
{
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)m * p) {
        return;
    }
    int j = idx % p;
    int i = idx / p;
    double sum = 0.0;
    for (int k = 0; k < n; k++) {
        sum += prod[((long long)i * n + k) * p + j];
    }
    c[idx] = sum;
}
// ANCHOR_END: matmul

// ANCHOR: dft
// terms[t][k] = x[t] * exp(-2 pi i k t / N): the N x N array of the broadcast DFT, stored with
// k varying fastest so that `sum_terms` reads it in order.
extern "C" __global__ void dft_terms(const double2 *x, double2 *terms, int N)
{
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx >= (long long)N * N) {
        return;
    }
    int k = idx % N;
    int t = idx / N;
    // k*t can be large; only its remainder mod N matters, and it keeps the phase exact.
    long long turns = ((long long)k * t) % N;
    double s, c;
    sincospi(-2.0 * (double)turns / N, &s, &c);
    double2 v = x[t];
    terms[idx] = make_double2(v.x * c - v.y * s, v.x * s + v.y * c);
}

// X[k] = sum over t of terms[t][k]: the `sum(axis=1)`, one thread per frequency.
extern "C" __global__ void sum_terms(const double2 *terms, double2 *X, int N)
{
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= N) {
        return;
    }
    double2 sum = make_double2(0.0, 0.0);
    for (int t = 0; t < N; t++) {
        double2 v = terms[(long long)t * N + k];
        sum.x += v.x;
        sum.y += v.y;
    }
    X[k] = sum;
}
// ANCHOR_END: dft

// ANCHOR: outer
// out[i][j] = x[i] * y[j]: the outer product by broadcasting, one thread per element.
extern "C" __global__ void outer_product(const float *x, const float *y, float *out, int m, int n)
{
    long long idx = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (idx < (long long)m * n) {
        out[idx] = x[idx / n] * y[idx % n];
    }
}
// ANCHOR_END: outer
