//! Naming the CPU and the GPU that a program's timings were measured on.

use cudarc::driver::{CudaContext, sys};

/// One line such as `CPU: AMD EPYC 9B14, 2 rayon threads`.
pub fn describe_cpu() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, name)| name.split_whitespace().collect::<Vec<_>>().join(" "))
        })
        .unwrap_or_else(|| std::env::consts::ARCH.to_string());
    format!(
        "CPU: {model}, {} rayon threads",
        rayon::current_num_threads()
    )
}

/// Size in KiB of this CPU's data cache of `level` (1, 2 or 3), as Linux reports it for the
/// first core; 0 when the system does not say.
pub fn data_cache_kib(level: u32) -> usize {
    let dir = std::path::Path::new("/sys/devices/system/cpu/cpu0/cache");
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let read =
            |name: &str| std::fs::read_to_string(entry.path().join(name)).unwrap_or_default();
        if read("level").trim() == level.to_string() && read("type").trim() != "Instruction" {
            let size = read("size");
            let size = size.trim();
            return match size.strip_suffix('K') {
                Some(kib) => kib.parse().unwrap_or(0),
                None => size
                    .strip_suffix('M')
                    .and_then(|m| m.parse::<usize>().ok())
                    .map_or(0, |m| m * 1024),
            };
        }
    }
    0
}

/// One line naming the GPU, e.g. `GPU: NVIDIA H200 (compute capability 9.0, 132 SMs)`.
pub fn describe_gpu(ctx: &CudaContext) -> String {
    let name = ctx.name().unwrap_or_else(|_| "unknown GPU".into());
    let (major, minor) = ctx.compute_capability().unwrap_or((0, 0));
    let sms = ctx
        .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .unwrap_or(0);
    format!("GPU: {name} (compute capability {major}.{minor}, {sms} SMs)")
}
