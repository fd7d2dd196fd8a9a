// CUB's inclusive scan, select and radix sort, timed on the inputs chapter 8's programs draw, so
// that they can print CUB's time beside their own from the same run. Not a listing of the book:
// scripts/build-cub-reference.sh builds it with nvcc and CCCL pinned from PyPI, and the GPU
// bundle carries it beside the programs, which run it.
//
//   cub_reference scan N SEED     inclusive sum of N u32, wrapping
//   cub_reference select N SEED   the f32 below 0.5 among N, in order
//   cub_reference sort N SEED     N u32 keys, ascending
//   cub_reference histogram N     a 256-bin histogram of N bytes read from standard input
//
// The inputs of scan, select and sort come from the course's SplitMix64 (crates/examples/src/random.rs) with SEED, drawn
// as the programs draw them. It prints one line, `median_ms=T check=C`: T is the median of 21
// timed runs after 3 warm-up runs, CUDA events around each; C is a checksum of the result that
// the program compares with its own, so that both are known to have seen the same inputs.
#include <cub/cub.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static void check(cudaError_t e, const char *what)
{
    if (e != cudaSuccess) {
        std::fprintf(stderr, "Error: could not %s: %s.\n", what, cudaGetErrorString(e));
        std::exit(3);
    }
}

struct SplitMix64 {
    uint64_t state;
    uint64_t next()
    {
        state += 0x9E3779B97F4A7C15ull;
        uint64_t z = state;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    // The course's Rng::f32: uniform in [0, 1).
    float f32() { return static_cast<float>(next() >> 40) * (1.0f / 16777216.0f); }
};

// The checksum the programs compute too: FNV-1a over the result's bytes.
static uint64_t checksum(const void *data, size_t bytes)
{
    const unsigned char *p = static_cast<const unsigned char *>(data);
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < bytes; ++i) {
        h = (h ^ p[i]) * 0x100000001b3ull;
    }
    return h;
}

// The median of 21 runs of `work` (after 3 warm-up runs), each between two CUDA events.
template <typename Work> static double median_ms(Work work)
{
    for (int i = 0; i < 3; ++i) {
        work();
    }
    check(cudaDeviceSynchronize(), "finish the warm-up runs");
    cudaEvent_t start, end;
    check(cudaEventCreate(&start), "create an event");
    check(cudaEventCreate(&end), "create an event");
    std::vector<float> times;
    for (int i = 0; i < 21; ++i) {
        check(cudaEventRecord(start), "record an event");
        work();
        check(cudaEventRecord(end), "record an event");
        check(cudaEventSynchronize(end), "wait for an event");
        float ms = 0;
        check(cudaEventElapsedTime(&ms, start, end), "read an event");
        times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    return times[times.size() / 2];
}

// HistogramEven's 256 bins of width 1 over the n bytes on standard input, as the skewed histogram
// program times its own kernels: the input already on the GPU, the zeroing of the counts inside
// the time (CUB's own initialisation kernel does it), the scratch space allocated outside.
static int histogram(size_t n)
{
    std::vector<unsigned char> host(n);
    if (std::fread(host.data(), 1, n, stdin) != n) {
        std::fprintf(stderr, "Error: standard input holds fewer than %zu bytes.\n", n);
        return 2;
    }
    unsigned char *in;
    unsigned *counts;
    check(cudaMalloc(&in, n + 1), "allocate the input");
    check(cudaMalloc(&counts, 256 * sizeof(unsigned)), "allocate the counts");
    check(cudaMemcpy(in, host.data(), n, cudaMemcpyHostToDevice), "copy the input");
    void *scratch = nullptr;
    size_t scratch_bytes = 0;
    auto run = [&] {
        cub::DeviceHistogram::HistogramEven(scratch, scratch_bytes, in, counts, 257, 0, 256,
                                            static_cast<int>(n));
    };
    run();
    check(cudaMalloc(&scratch, scratch_bytes), "allocate CUB's scratch space");
    double ms = median_ms(run);
    std::vector<unsigned> result(256);
    check(cudaMemcpy(result.data(), counts, sizeof(unsigned) * 256, cudaMemcpyDeviceToHost),
          "copy the counts back");
    check(cudaGetLastError(), "run CUB");
    std::printf("median_ms=%.6f check=%016llx\n", ms,
                static_cast<unsigned long long>(checksum(result.data(), sizeof(unsigned) * 256)));
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && !std::strcmp(argv[1], "histogram")) {
        return histogram(std::strtoull(argv[2], nullptr, 10));
    }
    if (argc != 4 || (std::strcmp(argv[1], "scan") && std::strcmp(argv[1], "select") &&
                      std::strcmp(argv[1], "sort"))) {
        std::fprintf(stderr, "Usage: cub_reference scan|select|sort N SEED, or cub_reference histogram N\n");
        return 2;
    }
    const std::string op = argv[1];
    const size_t n = std::strtoull(argv[2], nullptr, 10);
    SplitMix64 rng{std::strtoull(argv[3], nullptr, 10)};
    void *scratch = nullptr;
    size_t scratch_bytes = 0;
    double ms = 0;
    uint64_t sum = 0;
    if (op == "scan" || op == "sort") {
        std::vector<uint32_t> host(n);
        for (auto &x : host) { // scan: as scan_lookback draws them; sort: as radix_sort does
            x = op == "scan" ? static_cast<uint32_t>(rng.next() >> 40)
                             : static_cast<uint32_t>(rng.next() >> 32);
        }
        uint32_t *in, *out;
        check(cudaMalloc(&in, n * 4), "allocate the input");
        check(cudaMalloc(&out, n * 4), "allocate the output");
        check(cudaMemcpy(in, host.data(), n * 4, cudaMemcpyHostToDevice), "copy the input");
        if (op == "scan") {
            cub::DeviceScan::InclusiveSum(scratch, scratch_bytes, in, out, n);
            check(cudaMalloc(&scratch, scratch_bytes), "allocate CUB's scratch space");
            ms = median_ms([&] { cub::DeviceScan::InclusiveSum(scratch, scratch_bytes, in, out, n); });
        } else {
            cub::DeviceRadixSort::SortKeys(scratch, scratch_bytes, in, out, n);
            check(cudaMalloc(&scratch, scratch_bytes), "allocate CUB's scratch space");
            ms = median_ms([&] { cub::DeviceRadixSort::SortKeys(scratch, scratch_bytes, in, out, n); });
        }
        check(cudaMemcpy(host.data(), out, n * 4, cudaMemcpyDeviceToHost), "copy the result back");
        sum = checksum(host.data(), n * 4);
    } else {
        std::vector<float> host(n);
        for (auto &x : host) {
            x = rng.f32();
        }
        float *in, *out;
        int *count;
        check(cudaMalloc(&in, n * 4), "allocate the input");
        check(cudaMalloc(&out, n * 4), "allocate the output");
        check(cudaMalloc(&count, sizeof(int)), "allocate the count");
        check(cudaMemcpy(in, host.data(), n * 4, cudaMemcpyHostToDevice), "copy the input");
        auto below_half = [] __device__(float x) { return x < 0.5f; };
        cub::DeviceSelect::If(scratch, scratch_bytes, in, out, count, n, below_half);
        check(cudaMalloc(&scratch, scratch_bytes), "allocate CUB's scratch space");
        ms = median_ms([&] { cub::DeviceSelect::If(scratch, scratch_bytes, in, out, count, n, below_half); });
        int kept = 0;
        check(cudaMemcpy(&kept, count, sizeof(int), cudaMemcpyDeviceToHost), "copy the count back");
        check(cudaMemcpy(host.data(), out, kept * 4ull, cudaMemcpyDeviceToHost), "copy the result back");
        sum = checksum(host.data(), kept * 4ull);
    }
    check(cudaGetLastError(), "run CUB");
    std::printf("median_ms=%.6f check=%016llx\n", ms, static_cast<unsigned long long>(sum));
    return 0;
}
