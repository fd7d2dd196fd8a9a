// Exercise: "How many pixels per thread?" (chapter 7). Optimisation 6's kernel, to time with
// K = 1, 2, 3, 4, 6 and 8 pixels per thread in blocks of 256: image_coarse_K_256 must compute
// K pixels per thread, p, p + stride, ..., p + (K-1)·stride, where stride is the number of
// threads in the grid. As given, every one of them computes 3.
// `cargo run --bin judge -- ch07`. The solution is image_coarse_body in ch07-imaging.cu.

#define TWO_PI_F 6.28318530717958648f
#define TILE 256

// TODO: make K and T template parameters (template <int K, int T>), so that each kernel below
// passes its own: image_coarse_body<K, T>(PASS).
__device__ void image_coarse_body(const float *ls, const float *ms, const float *ns, int n_px,
                                  const float *us, const float *vs, const float *ws,
                                  const float2 *vis, int n_vis, float inv_n, float2 *img)
{
    const int K = 3, T = TILE;
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

#define ARGS                                                                                       \
    const float *ls, const float *ms, const float *ns, int n_px, const float *us, const float *vs, \
        const float *ws, const float2 *vis, int n_vis, float inv_n, float2 *img
#define PASS ls, ms, ns, n_px, us, vs, ws, vis, n_vis, inv_n, img
#define COARSE(K, T)                                                                               \
    extern "C" __global__ void __launch_bounds__(T) image_coarse_##K##_##T(ARGS)                   \
    {                                                                                              \
        image_coarse_body(PASS);                                                                   \
    }
COARSE(1, 256)
COARSE(2, 256)
COARSE(3, 256)
COARSE(4, 256)
COARSE(6, 256)
COARSE(8, 256)
