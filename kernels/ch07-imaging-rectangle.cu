// Chapter 7, challenge "Mirrors for a rectangular image": the groups of four mirrored pixels
// (±l, ±m) of image_mirrors (ch07-imaging-mirrors.cu) for an image of `width` columns by
// `height` rows. Pixels are square, cell = FIELD / max(width, height), and pixel (col, row) lies
// at l = (col − width/2)·cell, m = (row − height/2)·cell.
// A group is named by its column offset a in 0 ..= width/2 and its row offset b in
// 0 ..= height/2: n_a = width/2 + 1 groups per row, and group g = b·n_a + a. The host passes
// l = a·cell for each column offset (ls), m = b·cell for each row offset (ms) and n′ for each
// group (ns[g]). image_rectangle writes each group's four sums to parts[4g .. 4g + 4] in the
// order (+l, +m), (−l, +m), (+l, −m), (−l, −m); image_place_rectangle gives each pixel its
// group's image. An even side has no pixel at +side/2 cells: that image is computed, never placed.
// accumulate and store_group repeat ch07-imaging-mirrors.cu's, so that this file stands alone.
// check: every kernel lacks cvt.f64.f32
// check: every kernel lacks .local
// check: image_rectangle has bar.sync
// check: image_rectangle loop has 3 sin.approx.f32
// check: image_rectangle loop has 3 cos.approx.f32
// launch image_rectangle: n_vis = len(us) = len(vs) = len(ws) = len(vis); len(ls) >= width / 2 + 1
// launch image_rectangle: len(ms) >= height / 2 + 1; len(ns) >= (width / 2 + 1) * (height / 2 + 1)
// launch image_rectangle: len(parts) >= 4 * (width / 2 + 1) * (height / 2 + 1)
// launch image_rectangle: 4 * (width / 2 + 1) * (height / 2 + 1) <= 2147483648; block = TILE
// launch image_rectangle: grid.x * TILE >= (width / 2 + 1) * (height / 2 + 1)
// launch image_rectangle: grid.x * TILE <= 2147483648; n_vis + TILE <= 2147483648
// launch image_place_rectangle: len(img) >= width * height
// launch image_place_rectangle: len(parts) >= 4 * (width / 2 + 1) * (height / 2 + 1)
// launch image_place_rectangle: 4 * (width / 2 + 1) * (height / 2 + 1) <= 2147483648
// launch image_place_rectangle: threads.x >= width * height; threads.x <= 2147483648

#define TWO_PI_F 6.28318530717958648f
// Visibilities per shared-memory tile, one per thread: blocks of exactly TILE threads.
#define TILE 256

// For each sign of m, r = a·q with q = V·e^{±2πi·v·m}: the +l pixel adds r·b, the −l pixel
// r·conj(b). Both are made of the same four products, so those are summed (eight sums per
// group) and store_group combines them once, at the end.
__device__ __forceinline__ void accumulate(float4 q, float2 a, float2 b, float acc[8])
{
    const float2 r[2] = {make_float2(a.x * q.x - a.y * q.y, a.x * q.y + a.y * q.x),
                         make_float2(a.x * q.z - a.y * q.w, a.x * q.w + a.y * q.z)};
    for (int s = 0; s < 2; ++s) {
        acc[4 * s + 0] += r[s].x * b.x;
        acc[4 * s + 1] += r[s].y * b.y;
        acc[4 * s + 2] += r[s].x * b.y;
        acc[4 * s + 3] += r[s].y * b.x;
    }
}

__device__ __forceinline__ void store_group(const float acc[8], float2 *out)
{
    for (int s = 0; s < 2; ++s) {
        const float *p = acc + 4 * s;
        out[2 * s] = make_float2(p[0] - p[1], p[2] + p[3]);      // r·b, at +l
        out[2 * s + 1] = make_float2(p[0] + p[1], p[3] - p[2]);  // r·conj(b), at −l
    }
}

// ANCHOR: groups
// One thread per group: three sine-cosine pairs per visibility for its four pixels.
extern "C" __global__ void __launch_bounds__(TILE)
image_rectangle(const float *ls, const float *ms, const float *ns, int width, int height,
                const float *us, const float *vs, const float *ws, const float2 *vis, int n_vis,
                float2 *parts)
{
    __shared__ float4 uvw_tile[TILE];
    __shared__ float2 vis_tile[TILE];
    const int n_a = width / 2 + 1, n_b = height / 2 + 1;
    const int g = blockIdx.x * TILE + threadIdx.x, a = g % n_a, b = g / n_a;
    const bool mine = b < n_b;
    // ANCHOR_END: groups
    // ANCHOR: groups_rest
    const float l = mine ? TWO_PI_F * ls[a] : 0.0f;
    const float m = mine ? TWO_PI_F * ms[b] : 0.0f;
    const float nd = mine ? TWO_PI_F * ns[g] : 0.0f;
    float acc[8] = {};
    for (int start = 0; start < n_vis; start += TILE) {
        const int j = start + threadIdx.x;
        const bool in = j < n_vis;
        uvw_tile[threadIdx.x] = in ? make_float4(us[j], vs[j], ws[j], 0.0f)
                                   : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        vis_tile[threadIdx.x] = in ? vis[j] : make_float2(0.0f, 0.0f);
        __syncthreads();
#pragma unroll 1
        for (int k = 0; k < TILE; ++k) {
            const float4 t = uvw_tile[k];
            const float2 v = vis_tile[k];
            float2 wn, ul, vm;
            __sincosf(t.z * nd, &wn.y, &wn.x);
            __sincosf(t.x * l, &ul.y, &ul.x);
            __sincosf(t.y * m, &vm.y, &vm.x);
            // V·e^{+2πi·v·m} and V·e^{−2πi·v·m}
            const float4 q = make_float4(v.x * vm.x - v.y * vm.y, v.x * vm.y + v.y * vm.x,
                                         v.x * vm.x + v.y * vm.y, v.y * vm.x - v.x * vm.y);
            accumulate(q, wn, ul, acc);
        }
        __syncthreads();
    }
    if (mine) {
        store_group(acc, parts + 4 * g);
    }
}
// ANCHOR_END: groups_rest

// ANCHOR: place
// One thread per pixel: its group, which of the group's four images it is, scaled by 1/N.
extern "C" __global__ void image_place_rectangle(const float2 *parts, int width, int height,
                                                 float inv_n, float2 *img)
{
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= width * height) {
        return;
    }
    const int col = p % width, row = p / width, ca = width / 2, cb = height / 2;
    const int a = abs(col - ca), b = abs(row - cb), image = (col < ca) + 2 * (row < cb);
    const float2 sum = parts[4 * (b * (ca + 1) + a) + image];
    img[p] = make_float2(sum.x * inv_n, sum.y * inv_n);
}
// ANCHOR_END: place
