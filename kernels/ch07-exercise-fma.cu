// Exercise: "Where do the FMAs come from?" (chapter 7). This is optimisation 6's kernel, three
// pixels per thread in blocks of 256, to rewrite in plain C++ with one product per statement.
// The judge counts the fma.rn.f32 that NVRTC makes of it with --fmad=true, and checks that
// none is left with --fmad=false (no __fmaf_rn or fmaf of your own).
// `cargo run --bin judge -- ch07`. The solution is image_split_statements in ch07-imaging.cu.

#define TWO_PI_F 6.28318530717958648f
#define TILE 256
#define K 3

extern "C" __global__ void __launch_bounds__(TILE)
image_split_statements(const float *ls, const float *ms, const float *ns, int n_px, const float *us,
                const float *vs, const float *ws, const float2 *vis, int n_vis, float inv_n,
                float2 *img)
{
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
        bool inside = j < n_vis;
        uvw_tile[threadIdx.x] = inside ? make_float4(us[j], vs[j], ws[j], 0.0f)
                                       : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        vis_tile[threadIdx.x] = inside ? vis[j] : make_float2(0.0f, 0.0f);
        __syncthreads();
        for (int k = 0; k < TILE; ++k) {
            float4 b = uvw_tile[k];
            float2 v = vis_tile[k];
            for (int i = 0; i < K; ++i) {
                // TODO: write the complex update with plain operators, one product per
                // statement, each added to or subtracted from its sum.
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
