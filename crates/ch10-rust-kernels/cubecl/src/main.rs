//! `cubecl_kernels KERNEL [N] [--runtime cuda|wgpu] [--seed N]`: one of the course's kernels
//! written in Rust with CubeCL, run on the CPU first, then on the GPU, and checked. One program
//! for the four kernels: each links all of CubeCL, both runtimes, and would weigh as much alone.

use ch10_cubecl::args::{self, Program, Runtime as Which};
use ch10_cubecl::device::{self, Device, Gpu};
use ch10_cubecl::{adder, cuda_source, histogram, mutant, reduce, tiles};
use cubecl::Runtime;
use cubecl::cuda::{CudaDevice, CudaRuntime};
use cubecl::wgpu::{WgpuDevice, WgpuRuntime};

const PROGRAMS: [Program; 5] = [
    Program {
        name: "adder",
        about: "chapter 4's adder, zs = xs + ys in f64",
        size: Some(adder::SIZE),
    },
    Program {
        name: "reduce",
        about: "chapter 6's block sum of f32 with plane (warp) shuffles",
        size: Some(reduce::SIZE),
    },
    Program {
        name: "histogram",
        about: "chapter 5's 256-bin byte histogram in shared memory, 16-byte loads",
        size: Some(histogram::SIZE),
    },
    Program {
        name: "tiles",
        about: "chapter 5's reversal of every 256-float tile through shared memory",
        size: Some(tiles::SIZE),
    },
    Program {
        name: "cuda-source",
        about: "prints the CUDA C++ that CubeCL makes of reduce's kernel (no GPU needed)",
        size: None,
    },
];

fn main() {
    let args = args::parse(&PROGRAMS);
    mutant::check();
    if PROGRAMS[args.program].name == "cuda-source" {
        match cuda_source::sum_planes_source() {
            Ok(source) => print!("{source}"),
            Err(e) => course::exit::fail(course::exit::EXIT_CUDA_FAILED, &e),
        }
        return;
    }
    let device = device::open(args.runtime);
    match &device {
        Device::Cuda(ctx) => {
            let client = CudaRuntime::client(&CudaDevice::new(0));
            let gpu = Gpu {
                client,
                cuda: Some(ctx.clone()),
            };
            run(&args, &device, &gpu, Which::Cuda);
        }
        Device::Wgpu(_) => {
            let client = WgpuRuntime::client(&WgpuDevice::DefaultDevice);
            let gpu = Gpu { client, cuda: None };
            run(&args, &device, &gpu, Which::Wgpu);
        }
    }
}

fn run<R: Runtime>(args: &args::Args, device: &Device, gpu: &Gpu<R>, which: Which) {
    gpu.describe(device);
    let program = &PROGRAMS[args.program];
    let size = program.size.as_ref().expect("every kernel has a size");
    let n = args.n_for(size, which);
    match program.name {
        "adder" => adder::run(gpu, n, args.seed),
        "reduce" => reduce::run(gpu, n, args.seed),
        "histogram" => histogram::run(gpu, n, args.seed),
        _ => tiles::run(gpu, n, args.seed),
    }
}
