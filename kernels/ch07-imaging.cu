// Chapter 7, optimisations 2 to 8: the imaging kernel in single precision. Same equation as
// ch07-imaging-f64.cu: img[p] = (1/N) · Σ_j V_j · e^{+2πi(u_j·l + v_j·m + w_j·n')}.
// The program compiles this file without --use_fast_math: each kernel asks for the fast
// functions it wants by name (__sincosf), so the others keep CUDA's accurate ones.
// No float is ever widened to a double (cvt.f64.f32). The PTX does hold one double multiply:
// inside CUDA's accurate sincosf (image_f32), on its rarely taken path for huge angles.
// check: every kernel lacks cvt.f64.f32
// check: image_f32 has mul.f64
// check: image_f32 lacks sin.approx.f32
// check: image_sincospi lacks sin.approx.f32
// check: image_fast_reduced has sin.approx.f32
// check: image_fast_reduced has cvt.rni.f32.f32
// check: image_fast has sin.approx.f32
// check: image_fast has cos.approx.f32
// check: image_fast lacks cvt.rni.f32.f32
// check: image_two_pi has sin.approx.f32
// check: image_shared has bar.sync
// check: image_shared lacks .local
// check: image_coarse_1_256 lacks .local
// check: image_coarse_2_256 lacks .local
// check: image_coarse_3_256 lacks .local
// check: image_coarse_4_256 lacks .local
// check: image_coarse_6_256 lacks .local
// check: image_coarse_8_256 lacks .local
// check: image_coarse_3_256 has fma.rn.f32
// check: image_coarse_3_256 lacks explicit fma.rn.f32
// check: image_fma_3_256 has explicit fma.rn.f32
// check: image_fma_3_256 lacks .local
// check: image_fma_1_256 has explicit fma.rn.f32
// check: image_fma_8_512 lacks .local
// check: image_split_statements has fma.rn.f32
// check: image_split_statements lacks explicit fma.rn.f32
// check: image_shuffle_3 has shfl.sync.idx.b32
// check: image_shuffle_3 lacks bar.sync
// check: image_shuffle_3 has explicit fma.rn.f32
// check: image_shuffle_3 lacks .local
// One contract for every kernel, so that they share one launcher. Its bounds keep the int
// indices below 2^31: a thread's last pixel is below grid.x·T·K ≤ grid.x·4096 (T ≤ 512 threads,
// K ≤ 8 pixels) or, for image_shuffle_K, threads.x·K; a visibility index, n_vis + 512.
// It leaves out that the grid covers every pixel (threads·K ≥ n_px, which depends on K).
// launch image_*: n_px = len(ls) = len(ms) = len(ns) = len(img)
// launch image_*: n_vis = len(us) = len(vs) = len(ws) = len(vis); n_vis + 512 <= 2147483648
// launch image_*: grid.x * 4096 <= 2147483648; threads.x * 8 <= 2147483648

#define TWO_PI_F 6.28318530717958648f
// Visibilities per shared-memory tile. The kernels that use tiles fill one entry per thread, so
// they need blocks of exactly TILE threads: they declare it with __launch_bounds__(TILE) (no more),
// and the host checks that it launches TILE (no fewer).
#define TILE 256
// Pixels per thread of the steps that coarsen (6, 7 and 8), chosen by imaging_tuning's sweep.
#define STEP_K 3

// ANCHOR: f32
// Optimisation 2: the same kernel in float. Every constant carries an f suffix: a bare 2.0
// would be a double and would pull the whole expression into double precision.
extern "C" __global__ void image_f32(const float *ls, const float *ms, const float *ns, int n_px,
                                     const float *us, const float *vs, const float *ws,
                                     const float2 *vis, int n_vis, float inv_n, float2 *img)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < n_px) {
        float l = ls[p], m = ms[p], nd = ns[p];
        float2 sum = make_float2(0.0f, 0.0f);
        for (int j = 0; j < n_vis; ++j) {
            float phase = TWO_PI_F * (us[j] * l + vs[j] * m + ws[j] * nd);
            float s, c;
            sincosf(phase, &s, &c);
            float2 v = vis[j];
            sum.x += v.x * c - v.y * s;
            sum.y += v.x * s + v.y * c;
        }
        img[p] = make_float2(sum.x * inv_n, sum.y * inv_n);
    }
}
// ANCHOR_END: f32

// ANCHOR: sincospi
// Optimisation 3, first candidate: keep the phase in turns and let sincospif take the factor
// π (sin(π·x), cos(π·x) with x = 2·turns). Accurate, and its range reduction is exact.
extern "C" __global__ void image_sincospi(const float *ls, const float *ms, const float *ns, int n_px,
                                          const float *us, const float *vs, const float *ws,
                                          const float2 *vis, int n_vis, float inv_n, float2 *img)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < n_px) {
        float l = ls[p], m = ms[p], nd = ns[p];
        float2 sum = make_float2(0.0f, 0.0f);
        for (int j = 0; j < n_vis; ++j) {
            float turns = us[j] * l + vs[j] * m + ws[j] * nd;
            float s, c;
            sincospif(2.0f * turns, &s, &c);
            float2 v = vis[j];
            sum.x += v.x * c - v.y * s;
            sum.y += v.x * s + v.y * c;
        }
        img[p] = make_float2(sum.x * inv_n, sum.y * inv_n);
    }
}
// ANCHOR_END: sincospi

// ANCHOR: fast_reduced
// Second candidate: the phase in turns, minus its nearest whole number (rintf), lies in
// [-0.5, 0.5]; times 2π it is an angle in [-π, π], the range for which CUDA documents the
// accuracy of its fast sine and cosine. Exact (no bits are lost), but it costs instructions.
extern "C" __global__ void image_fast_reduced(const float *ls, const float *ms, const float *ns,
                                              int n_px, const float *us, const float *vs,
                                              const float *ws, const float2 *vis, int n_vis,
                                              float inv_n, float2 *img)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < n_px) {
        float l = ls[p], m = ms[p], nd = ns[p];
        float2 sum = make_float2(0.0f, 0.0f);
        for (int j = 0; j < n_vis; ++j) {
            float turns = us[j] * l + vs[j] * m + ws[j] * nd;
            float reduced = turns - rintf(turns);
            float s, c;
            __sincosf(TWO_PI_F * reduced, &s, &c);
            float2 v = vis[j];
            sum.x += v.x * c - v.y * s;
            sum.y += v.x * s + v.y * c;
        }
        img[p] = make_float2(sum.x * inv_n, sum.y * inv_n);
    }
}
// ANCHOR_END: fast_reduced

// ANCHOR: fast
// Optimisation 3 as kept: the hardware's approximate sine and cosine (__sincosf), on the
// phase as it comes. CUDA documents their accuracy for angles in [-π, π]; these reach a few
// hundred radians, and the program measures what that costs in accuracy.
extern "C" __global__ void image_fast(const float *ls, const float *ms, const float *ns, int n_px,
                                      const float *us, const float *vs, const float *ws,
                                      const float2 *vis, int n_vis, float inv_n, float2 *img)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < n_px) {
        float l = ls[p], m = ms[p], nd = ns[p];
        float2 sum = make_float2(0.0f, 0.0f);
        for (int j = 0; j < n_vis; ++j) {
            float phase = TWO_PI_F * (us[j] * l + vs[j] * m + ws[j] * nd);
            float s, c;
            __sincosf(phase, &s, &c);
            float2 v = vis[j];
            sum.x += v.x * c - v.y * s;
            sum.y += v.x * s + v.y * c;
        }
        img[p] = make_float2(sum.x * inv_n, sum.y * inv_n);
    }
}
// ANCHOR_END: fast

// ANCHOR: two_pi
// Optimisation 4: the factor 2π multiplies l, m and n' once, before the loop, instead of
// every phase inside it: one multiply fewer per pixel-visibility pair.
extern "C" __global__ void image_two_pi(const float *ls, const float *ms, const float *ns,
                                        int n_px, const float *us, const float *vs,
                                        const float *ws, const float2 *vis, int n_vis,
                                        float inv_n, float2 *img)
{
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p < n_px) {
        float l = TWO_PI_F * ls[p], m = TWO_PI_F * ms[p], nd = TWO_PI_F * ns[p];
        float2 sum = make_float2(0.0f, 0.0f);
        for (int j = 0; j < n_vis; ++j) {
            float phase = us[j] * l + vs[j] * m + ws[j] * nd;
            float s, c;
            __sincosf(phase, &s, &c);
            float2 v = vis[j];
            sum.x += v.x * c - v.y * s;
            sum.y += v.x * s + v.y * c;
        }
        img[p] = make_float2(sum.x * inv_n, sum.y * inv_n);
    }
}
// ANCHOR_END: two_pi

// ANCHOR: shared
// Optimisation 5: the block reads TILE visibilities at a time into shared memory, one per
// thread (coalesced), and every thread then reads them all from there. Launch with blocks of
// TILE threads. Threads past the last pixel still fill their share of every tile, so none may
// return early: each one must reach every __syncthreads().
extern "C" __global__ void __launch_bounds__(TILE)
image_shared(const float *ls, const float *ms, const float *ns, int n_px,
             const float *us, const float *vs, const float *ws,
             const float2 *vis, int n_vis, float inv_n, float2 *img)
{
    __shared__ float4 uvw_tile[TILE];  // u, v, w and an unused float: one 16-byte read
    __shared__ float2 vis_tile[TILE];
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    float l = 0.0f, m = 0.0f, nd = 0.0f;
    if (p < n_px) {
        l = TWO_PI_F * ls[p], m = TWO_PI_F * ms[p], nd = TWO_PI_F * ns[p];
    }
    float2 sum = make_float2(0.0f, 0.0f);
    for (int start = 0; start < n_vis; start += TILE) {
        int j = start + threadIdx.x;
        if (j < n_vis) {
            uvw_tile[threadIdx.x] = make_float4(us[j], vs[j], ws[j], 0.0f);
            vis_tile[threadIdx.x] = vis[j];
        } else {  // past the end: a visibility of zero adds nothing
            uvw_tile[threadIdx.x] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            vis_tile[threadIdx.x] = make_float2(0.0f, 0.0f);
        }
        __syncthreads();  // the tile is full
        for (int k = 0; k < TILE; ++k) {
            float4 b = uvw_tile[k];  // every thread reads the same address: a broadcast
            float phase = b.x * l + b.y * m + b.z * nd;
            float s, c;
            __sincosf(phase, &s, &c);
            float2 v = vis_tile[k];
            sum.x += v.x * c - v.y * s;
            sum.y += v.x * s + v.y * c;
        }
        __syncthreads();  // everyone is done with the tile before it is refilled
    }
    if (p < n_px) {
        img[p] = make_float2(sum.x * inv_n, sum.y * inv_n);
    }
}
// ANCHOR_END: shared

// ANCHOR: coarse
// Optimisation 6: each thread computes K pixels, p, p + stride, ..., p + (K-1)·stride, where
// stride is the number of threads in the grid, so a warp's pixels stay side by side. Each
// visibility read from shared memory now serves K pixels. K and the block size T are template
// parameters: the compiler knows them, unrolls the loops over K and keeps the arrays in
// registers.
template <int K, int T>
__device__ void image_coarse_body(const float *ls, const float *ms, const float *ns, int n_px,
                                  const float *us, const float *vs, const float *ws,
                                  const float2 *vis, int n_vis, float inv_n, float2 *img)
{
    __shared__ float4 uvw_tile[T];
    __shared__ float2 vis_tile[T];
    const int first = blockIdx.x * T + threadIdx.x, stride = gridDim.x * T;
    float l[K], m[K], nd[K];
    float2 sum[K];
    for (int i = 0; i < K; ++i) {
        int p = first + i * stride;
        l[i] = p < n_px ? TWO_PI_F * ls[p] : 0.0f;
        m[i] = p < n_px ? TWO_PI_F * ms[p] : 0.0f;
        nd[i] = p < n_px ? TWO_PI_F * ns[p] : 0.0f;
        sum[i] = make_float2(0.0f, 0.0f);
    }
    for (int start = 0; start < n_vis; start += T) {
        int j = start + threadIdx.x;
        if (j < n_vis) {
            uvw_tile[threadIdx.x] = make_float4(us[j], vs[j], ws[j], 0.0f);
            vis_tile[threadIdx.x] = vis[j];
        } else {
            uvw_tile[threadIdx.x] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            vis_tile[threadIdx.x] = make_float2(0.0f, 0.0f);
        }
        __syncthreads();
        for (int k = 0; k < T; ++k) {
            float4 b = uvw_tile[k];
            float2 v = vis_tile[k];
            for (int i = 0; i < K; ++i) {
                float phase = b.x * l[i] + b.y * m[i] + b.z * nd[i];
                float s, c;
                __sincosf(phase, &s, &c);
                sum[i].x += v.x * c - v.y * s;
                sum[i].y += v.x * s + v.y * c;
            }
        }
        __syncthreads();
    }
    for (int i = 0; i < K; ++i) {
        int p = first + i * stride;
        if (p < n_px) {
            img[p] = make_float2(sum[i].x * inv_n, sum[i].y * inv_n);
        }
    }
}
// ANCHOR_END: coarse

// ANCHOR: fma
// Optimisation 7: every multiply-add written as one fused multiply-add, __fmaf_rn(a, b, c) =
// a·b + c with one rounding. The complex update becomes four FMAs straight into the sums.
// (The rest is optimisation 6.)
template <int K, int T>
__device__ void image_fma_body(const float *ls, const float *ms, const float *ns, int n_px,
                               const float *us, const float *vs, const float *ws,
                               const float2 *vis, int n_vis, float inv_n, float2 *img)
{
    __shared__ float4 uvw_tile[T];
    __shared__ float2 vis_tile[T];
    const int first = blockIdx.x * T + threadIdx.x, stride = gridDim.x * T;
    float l[K], m[K], nd[K];
    float2 sum[K];
    for (int i = 0; i < K; ++i) {
        int p = first + i * stride;
        l[i] = p < n_px ? TWO_PI_F * ls[p] : 0.0f;
        m[i] = p < n_px ? TWO_PI_F * ms[p] : 0.0f;
        nd[i] = p < n_px ? TWO_PI_F * ns[p] : 0.0f;
        sum[i] = make_float2(0.0f, 0.0f);
    }
    for (int start = 0; start < n_vis; start += T) {
        int j = start + threadIdx.x;
        if (j < n_vis) {
            uvw_tile[threadIdx.x] = make_float4(us[j], vs[j], ws[j], 0.0f);
            vis_tile[threadIdx.x] = vis[j];
        } else {
            uvw_tile[threadIdx.x] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            vis_tile[threadIdx.x] = make_float2(0.0f, 0.0f);
        }
        __syncthreads();
        for (int k = 0; k < T; ++k) {
            float4 b = uvw_tile[k];
            float2 v = vis_tile[k];
            for (int i = 0; i < K; ++i) {
                float phase = __fmaf_rn(b.x, l[i], __fmaf_rn(b.y, m[i], b.z * nd[i]));
                float s, c;
                __sincosf(phase, &s, &c);
                sum[i].x = __fmaf_rn(v.x, c, sum[i].x);
                sum[i].x = __fmaf_rn(-v.y, s, sum[i].x);
                sum[i].y = __fmaf_rn(v.x, s, sum[i].y);
                sum[i].y = __fmaf_rn(v.y, c, sum[i].y);
            }
        }
        __syncthreads();
    }
    for (int i = 0; i < K; ++i) {
        int p = first + i * stride;
        if (p < n_px) {
            img[p] = make_float2(sum[i].x * inv_n, sum[i].y * inv_n);
        }
    }
}
// ANCHOR_END: fma

// ANCHOR: split
// For the FMA challenge: optimisation 6 with each product added on its own line, in plain C++.
extern "C" __global__ void __launch_bounds__(TILE)
image_split_statements(const float *ls, const float *ms, const float *ns, int n_px,
                       const float *us, const float *vs, const float *ws,
                       const float2 *vis, int n_vis, float inv_n, float2 *img)
{
    const int K = STEP_K;
    __shared__ float4 uvw_tile[TILE];
    __shared__ float2 vis_tile[TILE];
    const int first = blockIdx.x * TILE + threadIdx.x, stride = gridDim.x * TILE;
    float l[K], m[K], nd[K];
    float2 sum[K];
    for (int i = 0; i < K; ++i) {
        int p = first + i * stride;
        l[i] = p < n_px ? TWO_PI_F * ls[p] : 0.0f;
        m[i] = p < n_px ? TWO_PI_F * ms[p] : 0.0f;
        nd[i] = p < n_px ? TWO_PI_F * ns[p] : 0.0f;
        sum[i] = make_float2(0.0f, 0.0f);
    }
    for (int start = 0; start < n_vis; start += TILE) {
        int j = start + threadIdx.x;
        if (j < n_vis) {
            uvw_tile[threadIdx.x] = make_float4(us[j], vs[j], ws[j], 0.0f);
            vis_tile[threadIdx.x] = vis[j];
        } else {
            uvw_tile[threadIdx.x] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            vis_tile[threadIdx.x] = make_float2(0.0f, 0.0f);
        }
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            float4 b = uvw_tile[k];
            float2 v = vis_tile[k];
            for (int i = 0; i < K; ++i) {
                float phase = b.x * l[i] + b.y * m[i] + b.z * nd[i];
                float s, c;
                __sincosf(phase, &s, &c);
                sum[i].x += v.x * c;
                sum[i].x -= v.y * s;
                sum[i].y += v.x * s;
                sum[i].y += v.y * c;
            }
        }
        __syncthreads();
    }
    for (int i = 0; i < K; ++i) {
        int p = first + i * stride;
        if (p < n_px) {
            img[p] = make_float2(sum[i].x * inv_n, sum[i].y * inv_n);
        }
    }
}
// ANCHOR_END: split

// ANCHOR: shuffle
// Optimisation 8: no shared memory and no barrier. Each lane of a warp reads one visibility
// of the next 32 into registers; then, 32 times, every lane takes lane src's copy with
// __shfl_sync and uses it for its K pixels. All 32 lanes run every shuffle (n_vis is the same
// for all), so threads past the last pixel take part with dummy coordinates.
template <int K>
__device__ void image_shuffle_body(const float *ls, const float *ms, const float *ns, int n_px,
                                   const float *us, const float *vs, const float *ws,
                                   const float2 *vis, int n_vis, float inv_n, float2 *img)
{
    const unsigned all = 0xffffffffu;
    const int lane = threadIdx.x % 32;
    const int first = blockIdx.x * blockDim.x + threadIdx.x, stride = gridDim.x * blockDim.x;
    float l[K], m[K], nd[K];
    float2 sum[K];
    for (int i = 0; i < K; ++i) {
        int p = first + i * stride;
        l[i] = p < n_px ? TWO_PI_F * ls[p] : 0.0f;
        m[i] = p < n_px ? TWO_PI_F * ms[p] : 0.0f;
        nd[i] = p < n_px ? TWO_PI_F * ns[p] : 0.0f;
        sum[i] = make_float2(0.0f, 0.0f);
    }
    for (int start = 0; start < n_vis; start += 32) {
        int j = start + lane;
        float u = 0.0f, v = 0.0f, w = 0.0f;
        float2 datum = make_float2(0.0f, 0.0f);
        if (j < n_vis) {
            u = us[j], v = vs[j], w = ws[j];
            datum = vis[j];
        }
        for (int src = 0; src < 32; ++src) {
            float bu = __shfl_sync(all, u, src), bv = __shfl_sync(all, v, src);
            float bw = __shfl_sync(all, w, src);
            float re = __shfl_sync(all, datum.x, src), im = __shfl_sync(all, datum.y, src);
            for (int i = 0; i < K; ++i) {
                float phase = __fmaf_rn(bu, l[i], __fmaf_rn(bv, m[i], bw * nd[i]));
                float s, c;
                __sincosf(phase, &s, &c);
                sum[i].x = __fmaf_rn(re, c, sum[i].x);
                sum[i].x = __fmaf_rn(-im, s, sum[i].x);
                sum[i].y = __fmaf_rn(re, s, sum[i].y);
                sum[i].y = __fmaf_rn(im, c, sum[i].y);
            }
        }
    }
    for (int i = 0; i < K; ++i) {
        int p = first + i * stride;
        if (p < n_px) {
            img[p] = make_float2(sum[i].x * inv_n, sum[i].y * inv_n);
        }
    }
}
// ANCHOR_END: shuffle

// ANCHOR: instances
// The kernels the program launches: each body instantiated for the pixels per thread K and the
// block size T named in the kernel's name, such as image_fma_4_256. The steps use STEP_K and
// TILE; imaging_tuning times the others.
#define ARGS                                                                                       \
    const float *ls, const float *ms, const float *ns, int n_px, const float *us, const float *vs, \
        const float *ws, const float2 *vis, int n_vis, float inv_n, float2 *img
#define PASS ls, ms, ns, n_px, us, vs, ws, vis, n_vis, inv_n, img
#define COARSE(K, T)                                                                               \
    extern "C" __global__ void __launch_bounds__(T) image_coarse_##K##_##T(ARGS)                   \
    {                                                                                              \
        image_coarse_body<K, T>(PASS);                                                             \
    }
#define FMA(K, T)                                                                                  \
    extern "C" __global__ void __launch_bounds__(T) image_fma_##K##_##T(ARGS)                      \
    {                                                                                              \
        image_fma_body<K, T>(PASS);                                                                \
    }
#define SHUFFLE(K)                                                                                 \
    extern "C" __global__ void image_shuffle_##K(ARGS) { image_shuffle_body<K>(PASS); }
#define EVERY_K(M, T) M(1, T) M(2, T) M(3, T) M(4, T) M(6, T) M(8, T)
EVERY_K(COARSE, 256)
EVERY_K(FMA, 64)
EVERY_K(FMA, 128)
EVERY_K(FMA, 256)
EVERY_K(FMA, 512)
SHUFFLE(1)
SHUFFLE(2)
SHUFFLE(3)
SHUFFLE(4)
SHUFFLE(6)
SHUFFLE(8)
// ANCHOR_END: instances
