//! Naming the CPU that a program's timings were measured on.

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
    format!("CPU: {model}, {} rayon threads", rayon::current_num_threads())
}
