//! The CUDA C++ that CubeCL generates for a kernel, made without a GPU: the kernel's IR is built
//! the way its launch builds it (the code below follows what `#[cube(launch_unchecked)]` expands
//! to in CubeCL 0.10.0), then handed to CubeCL's CUDA compiler with the options its CUDA runtime
//! sets for a Hopper GPU (compute capability 9.0). On the GPU, the runtime gives this text to
//! NVRTC; `CUBECL_DEBUG_LOG=FILE CUBECL_DEBUG_OPTION=debug` makes it write the text it compiled.
//!
//! `cubecl_kernels cuda-source` prints the text for `reduce`'s kernel, `sum_planes`, with loads
//! of 4 floats on cubes of 256 units; `generated/sum_planes.cu.txt` is that print, and the
//! outputs test checks that it still is (`BLESS=1` rewrites it).

use cubecl::cuda::CudaCompiler;
use cubecl::prelude::*;
use cubecl::{Compiler, ExecutionMode};

use crate::reduce::{Shuffles, sum_planes};

type Options = <CudaCompiler as Compiler>::CompilationOptions;

/// The units of a cube, and the floats per load, of the kernel shown.
const CUBE: u32 = 256;
const WIDTH: usize = 4;

/// `sum_planes`'s CUDA C++ as CubeCL generates it for an NVIDIA GPU of compute capability 9.0.
pub fn sum_planes_source() -> Result<String, String> {
    let settings = KernelSettings::default()
        .cube_dim(CubeDim::new_1d(CUBE))
        .address_type(AddressType::U32)
        .kernel_name(format!("sum_planes_n_{WIDTH}"));
    let mut builder = KernelBuilder::default();
    builder.runtime_properties(cubecl::cuda::CudaRuntime::target_properties());
    builder.scope.register_size::<sum_planes::N>(WIDTH);
    settings.address_type.register(&mut builder.scope);
    let arg = ArrayCompilationArg { inplace: None };
    let x = <Array<Vector<f32, sum_planes::N>> as LaunchArg>::expand(&arg, &mut builder);
    let total = <Array<Atomic<f32>> as LaunchArg>::expand_output(&arg, &mut builder);
    // The plane size is 32 on every NVIDIA GPU: at most 256 / 32 planes per cube.
    sum_planes::expand::<sum_planes::N, Shuffles>(&mut builder.scope, WIDTH, x, total, 8);
    let definition = builder.build(settings);

    // What cubecl-cuda's runtime sets for compute capability 9.0 with CUDA 13.
    let mut options = Options {
        warp_size: 32,
        ..Default::default()
    };
    let features = &mut options.supports_features;
    features.fast_math = true;
    features.grid_constants = true;
    features.fast_tanh = true;
    features.clusters = true;
    features.elect_sync = true;

    let kernel = CudaCompiler::default()
        .compile(
            definition,
            &options,
            ExecutionMode::Unchecked,
            AddressType::U32.unsigned_type(),
        )
        .map_err(|e| format!("CubeCL's CUDA compiler refused sum_planes: {e}"))?;
    Ok(sort_declarations(&kernel.to_string()))
}

/// CubeCL declares a kernel's mutable locals (`float l_mut_8;`) from a hash map, in an order that
/// changes from run to run: sort each run of such lines, so that one kernel gives one text.
fn sort_declarations(source: &str) -> String {
    let is_declaration = |line: &str| {
        let words: Vec<&str> = line.split_whitespace().collect();
        matches!(words[..], [_, name] if name.starts_with("l_mut_") && name.ends_with(';'))
    };
    let mut out = String::new();
    let mut run: Vec<&str> = Vec::new();
    for line in source.lines() {
        if is_declaration(line) {
            run.push(line);
            continue;
        }
        run.sort_by_key(|l| {
            let number = l
                .trim_end_matches(';')
                .rsplit('_')
                .next()
                .unwrap_or_default();
            number.parse::<u32>().unwrap_or(u32::MAX)
        });
        run.drain(..).for_each(|l| out.extend([l, "\n"]));
        out.extend([line, "\n"]);
    }
    run.drain(..).for_each(|l| out.extend([l, "\n"]));
    out
}
