// Warp divergence: the same work split between two paths, by thread or by warp.
// check: split_every_warp has explicit fma.rn.f32
// check: split_no_warp has explicit fma.rn.f32
// check: every kernel lacks .f64
// launch split_*: n = len(in) = len(out); threads.x >= n; threads.x <= 2147483648

// ANCHOR: paths
// Two different chains of dependent multiply-adds: the compiler cannot merge them into one.
__device__ float path_a(float v, int steps)
{
    for (int s = 0; s < steps; ++s) {
        v = fmaf(v, 0.999f, 0.5f);
    }
    return v;
}

__device__ float path_b(float v, int steps)
{
    for (int s = 0; s < steps; ++s) {
        v = fmaf(v, v, -0.25f) * 0.5f;
    }
    return v;
}
// ANCHOR_END: paths

// ANCHOR: kernels
// Even and odd threads take different paths: every warp holds both kinds, so every warp
// runs path_a with half its threads idle, then path_b with the other half idle.
extern "C" __global__ void split_every_warp(const float *in, float *out, int n, int steps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        if (threadIdx.x % 2 == 0) {
            out[i] = path_a(in[i], steps);
        } else {
            out[i] = path_b(in[i], steps);
        }
    }
}

// Even and odd warps take different paths: the same half-and-half split of the threads,
// but all 32 threads of a warp agree, so no warp runs both paths.
extern "C" __global__ void split_no_warp(const float *in, float *out, int n, int steps)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        if ((threadIdx.x / 32) % 2 == 0) {
            out[i] = path_a(in[i], steps);
        } else {
            out[i] = path_b(in[i], steps);
        }
    }
}
// ANCHOR_END: kernels
