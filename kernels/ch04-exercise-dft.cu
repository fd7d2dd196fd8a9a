// Exercise: "Part 3: on the GPU" of the DFT (chapter 4). X[k] = sum over j of
// x[j]·e^(−2πi·k·j/N), one thread per k, in float. A complex number is a float2: .x the real
// part, .y the imaginary part. The grid is in crates/examples/ch04/exercises/dft_gpu.rs.
// `cargo run --bin judge -- ch04`. The solution is dft_naive_phase in ch04-dft.cu (hence the
// name).

#define TWO_PI 6.2831853071795865f

extern "C" __global__ void dft_naive_phase(const float2 *xs, float2 *out, int n)
{
    // TODO: k from the thread's place in the grid, checked against n; the sum over j in a
    // local float2, with sincosf(θ, &s, &c) for e^(iθ); out[k] written once.
}
