//! Nsight Compute's logs as the book's programs read them: `ncu --print-units base` prints, per
//! launch it profiled, a header line with the kernel's name and then one line per metric.

use std::collections::BTreeMap;

/// Each kernel's metrics from the log: name → (metric → value in base units).
pub fn read_log(text: &str) -> BTreeMap<String, BTreeMap<String, f64>> {
    let mut kernels: BTreeMap<String, BTreeMap<String, f64>> = BTreeMap::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        // A kernel's header: two spaces, its name, then its grid, block, context...
        if line.starts_with("  ") && !line.starts_with("   ") && line.contains(", Context ") {
            let name = line.trim().split([' ', '(']).next().unwrap_or("");
            current = Some(name.to_string());
            continue;
        }
        let words: Vec<&str> = line.split_whitespace().collect();
        let (Some(kernel), Some(first), Some(last)) = (&current, words.first(), words.last())
        else {
            continue;
        };
        if first.contains("__") && words.len() >= 2 {
            if let Ok(value) = last.replace(',', "").parse::<f64>() {
                let metrics = kernels.entry(kernel.clone()).or_default();
                metrics.insert(first.to_string(), value);
            }
        }
    }
    kernels
}
