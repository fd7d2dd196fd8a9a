// Chapter 7, the starting point: the direct imaging equation in double precision, one thread
// per pixel. img[p] = (1/N) · Σ_j V_j · e^{+2πi(u_j·l + v_j·m + w_j·n')}, for N visibilities,
// where (l, m, n') are pixel p's direction cosines with n' = n − 1, computed on the host.
// check: every kernel has .f64
// check: every kernel lacks .f32
// launch image_*: n_px = len(ls) = len(ms) = len(ns) = len(img)
// launch image_*: n_vis = len(us) = len(vs) = len(ws) = len(vis); threads.x >= n_px
// launch image_*: threads.x <= 2147483648

#define TWO_PI 6.283185307179586

// ANCHOR: first
// The first kernel: the CPU's loop body, with the pixel's running sum kept in global memory.
// Nothing tells the compiler that img does not overlap the inputs, so it must store the sum
// at every step before it reads the next visibility.
extern "C" __global__ void image_first(const double *ls, const double *ms, const double *ns, int n_px,
                                       const double *us, const double *vs, const double *ws,
                                       const double2 *vis, int n_vis, double inv_n, double2 *img)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < n_px) {
        double l = ls[p], m = ms[p], nd = ns[p];
        img[p] = make_double2(0.0, 0.0);
        for (int j = 0; j < n_vis; ++j) {
            double phase = TWO_PI * (us[j] * l + vs[j] * m + ws[j] * nd);
            double s, c;
            sincos(phase, &s, &c);
            double2 v = vis[j];
            img[p].x += v.x * c - v.y * s;  // (v.x + i·v.y)(c + i·s)
            img[p].y += v.x * s + v.y * c;
        }
        img[p].x *= inv_n;
        img[p].y *= inv_n;
    }
}
// ANCHOR_END: first

// ANCHOR: local_sum
// Optimisation 1: add into a local variable (a register) and write the pixel once.
extern "C" __global__ void image_local_sum(const double *ls, const double *ms, const double *ns, int n_px,
                                           const double *us, const double *vs, const double *ws,
                                           const double2 *vis, int n_vis, double inv_n, double2 *img)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < n_px) {
        double l = ls[p], m = ms[p], nd = ns[p];
        double2 sum = make_double2(0.0, 0.0);
        for (int j = 0; j < n_vis; ++j) {
            double phase = TWO_PI * (us[j] * l + vs[j] * m + ws[j] * nd);
            double s, c;
            sincos(phase, &s, &c);
            double2 v = vis[j];
            sum.x += v.x * c - v.y * s;
            sum.y += v.x * s + v.y * c;
        }
        img[p] = make_double2(sum.x * inv_n, sum.y * inv_n);
    }
}
// ANCHOR_END: local_sum
