// Exercise: "Practice 1: the tile size chosen at launch" (chapter 5). Reverse each tile of
// blockDim.x floats: out[tile start + t] = x[tile start + blockDim.x - 1 - t], through a tile
// in dynamic shared memory whose size the launch gives. `cargo run --bin judge -- ch05`.
// The solution is in ch05-tiles.cu.

extern "C" __global__ void reverse_tiles_dynamic(const float *x, float *out)
{
    extern __shared__ float tile[];     // as many bytes as the launch's shared_mem_bytes
    // TODO: load this block's tile, wait for the whole block, write it back reversed.
}
