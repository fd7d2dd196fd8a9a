// Chapter 7, beyond the floor: the imaging sum of ch07-imaging.cu, computed for groups of four
// mirrored pixels (±l, ±m), which share n' and so share e^{2πi·w·n'}:
//   e^{2πi(±u·l ± v·m + w·n')} = e^{2πi·w·n'} · e^{±2πi·u·l} · e^{±2πi·v·m}.
// A group is named by its column and row offsets (a, b) from the centre pixel side/2, both in
// 0 ..= side/2. The host passes l for each column offset (ls), m for each row offset (ms) and n'
// for each group (ns, row offset by row offset), all unscaled. Offsets past the image's edge
// still get a group: an even side runs from −side/2 to side/2 − 1 cells, so the group at
// offset side/2 has only its minus images on the image; image_place_groups writes the pixels
// that exist and leaves the others.
// Every kernel here writes, for each group, its four sums in the order
//   (+l, +m), (−l, +m), (+l, −m), (−l, −m)
// to parts[(part · n_off + b) · n_off + a][0..4], with n_off = side/2 + 1 groups per row.
// check: every kernel lacks cvt.f64.f32
// check: every kernel lacks .local
// check: image_mirrors has bar.sync
// check: image_mirrors loop has 3 sin.approx.f32
// check: image_mirrors loop has 3 cos.approx.f32
// check: image_tables_4 has bar.sync
// check: image_tables_4 has cvt.rni.f32.f32
// check: image_tables_4 loop has 4 sin.approx.f32
// check: image_tables_4 loop has 4 cos.approx.f32
// check: image_tables_4 loop lacks cvt.rni.f32.f32
// check: image_tables_1 loop has 1 sin.approx.f32
// check: image_tables_8 loop has 8 sin.approx.f32
// launch image_mirrors: n_vis = len(us) = len(vs) = len(ws) = len(vis); len(ls) >= side / 2 + 1
// launch image_mirrors: len(ms) >= side / 2 + 1; len(ns) >= (side / 2 + 1) * (side / 2 + 1)
// launch image_mirrors: len(parts) >= 4 * (side / 2 + 1) * (side / 2 + 1)
// launch image_mirrors: 4 * (side / 2 + 1) * (side / 2 + 1) <= 2147483648; block = TILE
// launch image_mirrors: grid.x * TILE >= (side / 2 + 1) * (side / 2 + 1)
// launch image_mirrors: grid.x * TILE <= 2147483648; n_vis + TILE <= 2147483648
// launch image_tables_*: n_vis = len(us) = len(vs) = len(ws) = len(vis); len(ls) >= side / 2 + 1
// launch image_tables_*: len(ms) >= side / 2 + 1; len(ns) >= (side / 2 + 1) * (side / 2 + 1)
// launch image_tables_*: len(parts) >= 4 * grid.z * (side / 2 + 1) * (side / 2 + 1)
// launch image_tables_*: 4 * grid.z * (side / 2 + 1) * (side / 2 + 1) <= 2147483648
// launch image_tables_*: block = THREADS; grid.x * COLUMNS <= 2147483648
// launch image_tables_*: n_vis + CHUNK * grid.z <= 2147483648
// Blocks along y take rows of groups, ROWS = 8·G <= 64 each (a clause that names grid.y, which
// would otherwise have to be 1):
// launch image_tables_*: grid.y * 64 <= 2147483648
// launch image_place_groups: len(img) >= side * side
// launch image_place_groups: len(parts) >= 4 * n_parts * (side / 2 + 1) * (side / 2 + 1)
// launch image_place_groups: 4 * n_parts * (side / 2 + 1) * (side / 2 + 1) <= 2147483648
// launch image_place_groups: side * side <= 2147483647; threads.x >= side * side
// launch image_place_groups: threads.x <= 2147483648

#define TWO_PI_F 6.28318530717958648f
// Visibilities per shared-memory tile of image_mirrors: one per thread, so it needs blocks of
// exactly TILE threads (declared with __launch_bounds__, checked by the host at run time).
#define TILE 256
// image_tables: threads per block, columns of groups per block, and visibilities per table.
#define THREADS 256
#define COLUMNS 32
#define CHUNK 32
// The shape the host must launch with, read back by course::imaging::mirrors::check_shape.
__constant__ int mirrors_shape[3] = {TILE, THREADS, COLUMNS};

// ANCHOR: accumulate
// One visibility's contribution to one group, with q = (V·e^{+2πi·v·m}, V·e^{−2πi·v·m}) as
// (re, im, re, im), a = e^{2πi·w·n'} and b = e^{2πi·u·l}. For each sign of m, r = a·q; the
// pixel at +l adds r·b, the one at −l adds r·conj(b). Those two share their four products, so
// the sums keep the products (re·re, im·im, re·im, im·re) and image_place_groups combines
// them at the end: eight fused multiply-adds for four pixels.
__device__ __forceinline__ void accumulate(float4 q, float ca, float sa, float cb, float sb,
                                           float acc[8])
{
    const float nsa = -sa;
    float r[4] = {__fmaf_rn(nsa, q.y, ca * q.x), __fmaf_rn(sa, q.x, ca * q.y),  // a·V·e^{+2πi·v·m}
                  __fmaf_rn(nsa, q.w, ca * q.z), __fmaf_rn(sa, q.z, ca * q.w)}; // a·V·e^{−2πi·v·m}
    for (int s = 0; s < 2; ++s) {
        acc[4 * s + 0] = __fmaf_rn(r[2 * s], cb, acc[4 * s + 0]);
        acc[4 * s + 1] = __fmaf_rn(r[2 * s + 1], sb, acc[4 * s + 1]);
        acc[4 * s + 2] = __fmaf_rn(r[2 * s], sb, acc[4 * s + 2]);
        acc[4 * s + 3] = __fmaf_rn(r[2 * s + 1], cb, acc[4 * s + 3]);
    }
}

// The four pixel sums of a group from its eight products: for each sign of m, r·b and r·conj(b).
__device__ __forceinline__ void store_group(const float acc[8], float2 *out)
{
    for (int s = 0; s < 2; ++s) {
        const float *p = acc + 4 * s;
        out[2 * s] = make_float2(p[0] - p[1], p[2] + p[3]);      // +l
        out[2 * s + 1] = make_float2(p[0] + p[1], p[3] - p[2]);  // −l
    }
}
// ANCHOR_END: accumulate

// ANCHOR: mirrors
// Optimisation 9: one thread per group of four mirrored pixels. Three sine-cosine pairs per
// visibility (for w·n', u·l and v·m) serve four pixels instead of four pairs. Visibilities are
// staged in shared memory as in step 5.
extern "C" __global__ void __launch_bounds__(TILE)
image_mirrors(const float *ls, const float *ms, const float *ns, int side, const float *us,
              const float *vs, const float *ws, const float2 *vis, int n_vis, float2 *parts)
{
    __shared__ float4 uvw_tile[TILE];
    __shared__ float2 vis_tile[TILE];
    const int n_off = side / 2 + 1;
    const int g = blockIdx.x * TILE + threadIdx.x, a = g % n_off, b = g / n_off;
    float l = 0.0f, m = 0.0f, nd = 0.0f;
    if (b < n_off) {
        l = TWO_PI_F * ls[a], m = TWO_PI_F * ms[b], nd = TWO_PI_F * ns[g];
    }
    float acc[8] = {};
    for (int start = 0; start < n_vis; start += TILE) {
        int j = start + threadIdx.x;
        bool in = j < n_vis;
        uvw_tile[threadIdx.x] = in ? make_float4(us[j], vs[j], ws[j], 0.0f)
                                   : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        vis_tile[threadIdx.x] = in ? vis[j] : make_float2(0.0f, 0.0f);
        __syncthreads();
#pragma unroll 1
        for (int k = 0; k < TILE; ++k) {
            float4 t = uvw_tile[k];
            float2 v = vis_tile[k];
            float sa, ca, sb, cb, sc, cc;
            __sincosf(t.z * nd, &sa, &ca);  // e^{2πi·w·n'}
            __sincosf(t.x * l, &sb, &cb);   // e^{2πi·u·l}
            __sincosf(t.y * m, &sc, &cc);   // e^{2πi·v·m}
            // V·e^{+2πi·v·m}, then V·e^{−2πi·v·m}
            float4 q = make_float4(v.x * cc - v.y * sc, v.x * sc + v.y * cc,
                                   v.x * cc + v.y * sc, v.y * cc - v.x * sc);
            accumulate(q, ca, sa, cb, sb, acc);
        }
        __syncthreads();
    }
    if (b < n_off) {
        store_group(acc, parts + 4 * g);
    }
}
// ANCHOR_END: mirrors

// ANCHOR: unit
// e^{2πi·turns}: the whole turns taken off first, so that __sincosf sees an angle in [−π, π].
__device__ __forceinline__ float2 unit(float turns)
{
    float s, c;
    __sincosf(TWO_PI_F * (turns - rintf(turns)), &s, &c);
    return make_float2(c, s);
}
// ANCHOR_END: unit

// ANCHOR: tables
// Optimisation 10: e^{2πi·u·l} depends only on the column and V·e^{±2πi·v·m} only on the row.
// A block owns COLUMNS columns by 8·G rows of groups; for CHUNK visibilities at a time its
// threads fill a table of each (one sine-cosine pair per column and per row), and each group
// then computes only e^{2πi·w·n'}. Each thread owns G groups of one row, COLUMNS / G columns
// apart. The visibilities are split into gridDim.z parts, one per block in z, so that there
// are enough blocks to fill the GPU; image_place_groups adds the parts up.
template <int G>
__device__ void image_tables_body(const float *ls, const float *ms, const float *ns, int side,
                                  const float *us, const float *vs, const float *ws,
                                  const float2 *vis, int n_vis, float2 *parts)
{
    constexpr int PER_ROW = COLUMNS / G, ROWS = THREADS / PER_ROW;
    __shared__ float2 b_table[CHUNK][COLUMNS];  // e^{2πi·u·l}
    __shared__ float4 q_table[CHUNK][ROWS];     // V·e^{+2πi·v·m}, V·e^{−2πi·v·m}
    __shared__ float w_table[CHUNK];
    const int n_off = side / 2 + 1;
    const int col0 = blockIdx.x * COLUMNS, row0 = blockIdx.y * ROWS;
    const int tx = threadIdx.x % PER_ROW, ty = threadIdx.x / PER_ROW, b = row0 + ty;
    // This part's visibilities: a whole number of chunks each, the last part the rest.
    const int per_part = (n_vis + gridDim.z * CHUNK - 1) / (gridDim.z * CHUNK) * CHUNK;
    const int begin = blockIdx.z * per_part, end = min(n_vis, begin + per_part);

    float nd[G], acc[G][8] = {};
    for (int i = 0; i < G; ++i) {
        int a = col0 + tx + PER_ROW * i;
        nd[i] = a < n_off && b < n_off ? TWO_PI_F * ns[b * n_off + a] : 0.0f;
    }
    for (int start = begin; start < end; start += CHUNK) {
        for (int e = threadIdx.x; e < CHUNK * COLUMNS; e += THREADS) {
            int k = e / COLUMNS, col = e % COLUMNS, j = start + k, a = col0 + col;
            float u = j < end ? us[j] : 0.0f, l = a < n_off ? ls[a] : 0.0f;
            b_table[k][col] = unit(u * l);
        }
        for (int e = threadIdx.x; e < CHUNK * ROWS; e += THREADS) {
            int k = e / ROWS, row = e % ROWS, j = start + k, r = row0 + row;
            // A visibility past the part's end is zero: it adds nothing.
            float2 v = j < end ? vis[j] : make_float2(0.0f, 0.0f);
            float2 c = unit((j < end ? vs[j] : 0.0f) * (r < n_off ? ms[r] : 0.0f));
            q_table[k][row] = make_float4(v.x * c.x - v.y * c.y, v.x * c.y + v.y * c.x,
                                          v.x * c.x + v.y * c.y, v.y * c.x - v.x * c.y);
        }
        if (threadIdx.x < CHUNK) {
            int j = start + threadIdx.x;
            w_table[threadIdx.x] = j < end ? ws[j] : 0.0f;
        }
        __syncthreads();
        // Rows past the last group (the last blocks of a tall tile) only help fill the tables.
#pragma unroll 1
        for (int k = 0; k < (b < n_off ? CHUNK : 0); ++k) {
            float w = w_table[k];
            float4 q = q_table[k][ty];
            for (int i = 0; i < G; ++i) {
                float2 e = b_table[k][tx + PER_ROW * i];
                float sa, ca;
                __sincosf(w * nd[i], &sa, &ca);
                accumulate(q, ca, sa, e.x, e.y, acc[i]);
            }
        }
        __syncthreads();
    }
    for (int i = 0; i < G; ++i) {
        int a = col0 + tx + PER_ROW * i;
        if (a < n_off && b < n_off) {
            store_group(acc[i], parts + 4 * ((blockIdx.z * n_off + b) * n_off + a));
        }
    }
}
// ANCHOR_END: tables

// ANCHOR: tables_instances
#define TABLES(G)                                                                                  \
    extern "C" __global__ void __launch_bounds__(THREADS)                                          \
        image_tables_##G(const float *ls, const float *ms, const float *ns, int side,              \
                         const float *us, const float *vs, const float *ws, const float2 *vis,     \
                         int n_vis, float2 *parts)                                                 \
    {                                                                                              \
        image_tables_body<G>(ls, ms, ns, side, us, vs, ws, vis, n_vis, parts);                     \
    }
TABLES(1)
TABLES(2)
TABLES(4)
TABLES(8)
// ANCHOR_END: tables_instances

// ANCHOR: place
// One thread per pixel: find its group and which of the four images it is, add that sum over
// the n_parts parts in order, and scale by 1/N.
extern "C" __global__ void image_place_groups(const float2 *parts, int n_parts, int side,
                                              float inv_n, float2 *img)
{
    const int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= side * side) {
        return;
    }
    const int c = side / 2, n_off = c + 1;
    const int col = p % side, row = p / side;
    const int a = abs(col - c), b = abs(row - c), which = (col < c) + 2 * (row < c);
    float2 sum = make_float2(0.0f, 0.0f);
    for (int part = 0; part < n_parts; ++part) {
        float2 x = parts[4 * ((part * n_off + b) * n_off + a) + which];
        sum.x += x.x, sum.y += x.y;
    }
    img[p] = make_float2(sum.x * inv_n, sum.y * inv_n);
}
// ANCHOR_END: place
