//! Prints the PTX that NVRTC makes of one kernel of `kernels/`: what the GPU's driver is given
//! to compile. It needs NVRTC, not a GPU.
use course::kernel::{KernelFile, compile, nvrtc_present};
use course::ptx::{kernel_body, kernel_names};

fn main() {
    let (file, kernel, arch) = course::cli::parse(
        "Prints the PTX of one kernel of kernels/, as NVRTC compiles it for sm_90.",
        |args| {
            let file = args.path("FILE", "a kernel file of kernels/, such as ch04-adder.cu");
            let kernel = args.path("KERNEL", "the name of one of its kernels, such as adder");
            (file, kernel, "sm_90")
        },
    );
    if !nvrtc_present() {
        // The status the course's tests count as a skip.
        course::exit::fail(
            course::exit::EXIT_NO_GPU,
            "printing PTX needs NVRTC (libnvrtc.so.13), CUDA's run-time compiler: \
             scripts/install-nvrtc.sh puts it in .nvrtc/ (then run with \
             LD_LIBRARY_PATH=.nvrtc/nvidia/cu13/lib).",
        );
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../kernels");
    let source = std::fs::read_to_string(dir.join(&file))
        .unwrap_or_else(|e| course::cli::fail(&format!("cannot read kernels/{file}: {e}")));
    let kernel_file = KernelFile {
        name: file.clone().leak(),
        source: source.leak(),
    };
    let ptx = compile(&kernel_file, arch, false)
        .unwrap_or_else(|why| course::exit::fail(course::exit::EXIT_CUDA_FAILED, &why))
        .to_src();
    match kernel_body(&ptx, &kernel) {
        Some(body) => println!("{body}"),
        None => course::cli::fail(&format!(
            "kernels/{file} has no kernel `{kernel}`; its kernels are {}",
            kernel_names(&ptx).join(", ")
        )),
    }
}
