// mdBook ships highlight.js 10 with C++ but no CUDA. Register a small `cuda` language (C++'s
// common keywords plus CUDA's qualifiers, built-in variables and intrinsics) and highlight the
// ```cuda blocks with it.
(function () {
    if (typeof hljs === "undefined") {
        return;
    }
    try {
        hljs.registerLanguage("cuda", function (h) {
            return {
                name: "CUDA",
                aliases: ["cu"],
                keywords: {
                    keyword:
                        "if else for while do return break continue switch case default struct " +
                        "class template typename const constexpr static inline extern unsigned " +
                        "signed void int float double char bool long short auto using namespace " +
                        "sizeof volatile __global__ __device__ __host__ __shared__ __constant__ " +
                        "__restrict__ __launch_bounds__ __forceinline__ __noinline__",
                    literal: "true false nullptr NULL",
                    built_in:
                        "threadIdx blockIdx blockDim gridDim warpSize __syncthreads __syncwarp " +
                        "__shfl_sync __shfl_down_sync __shfl_up_sync __shfl_xor_sync __ballot_sync " +
                        "__all_sync __any_sync __activemask __popc __ffs atomicAdd atomicSub " +
                        "atomicMax atomicMin atomicCAS atomicExch atomicAnd atomicOr " +
                        "__float_as_int __int_as_float __float_as_uint __uint_as_float __sinf " +
                        "__cosf __expf sincosf __sincosf sqrtf rsqrtf fmaf"
                },
                contains: [
                    h.C_LINE_COMMENT_MODE,
                    h.C_BLOCK_COMMENT_MODE,
                    h.QUOTE_STRING_MODE,
                    h.C_NUMBER_MODE,
                    { className: "meta", begin: /#\s*[a-z]+\b/, end: /$/ }
                ]
            };
        });
        document.querySelectorAll("code.language-cuda").forEach(function (block) {
            block.textContent = block.textContent;
            hljs.highlightBlock(block);
        });
    } catch (e) {
        console.warn("CUDA highlighting is unavailable:", e);
    }
})();
