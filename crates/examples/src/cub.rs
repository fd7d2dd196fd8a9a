//! CUB beside chapter 8's kernels and chapter 6's skewed histogram: runs the reference program `cub_reference`
//! (`reference/cub_reference.cu`, built by `scripts/build-cub-reference.sh`) on the same inputs
//! and reads its time. The program sits beside the running one (the GPU bundle puts it there),
//! or where `COURSE_CUB_REFERENCE` says; without it there is no CUB time, and the caller's
//! lines say [`NO_REFERENCE`].

use std::path::PathBuf;

pub use protocol::NO_REFERENCE;
use std::process::Command;

/// CUB's median time for one operation, and the checksum of its result.
pub struct CubTime {
    pub median_ms: f64,
    pub checksum: u64,
}

/// The checksum `cub_reference` prints: FNV-1a over the result's bytes (little-endian, as the
/// GPU stores them).
pub fn checksum<T: Copy + Into<Bits>>(values: &[T]) -> u64 {
    let bytes = values.iter().flat_map(|&v| v.into().0.to_le_bytes());
    bytes.fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The 32 bits of a `u32` or an `f32`.
pub struct Bits(u32);

impl From<u32> for Bits {
    fn from(v: u32) -> Bits {
        Bits(v)
    }
}

impl From<f32> for Bits {
    fn from(v: f32) -> Bits {
        Bits(v.to_bits())
    }
}

fn reference_program() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os("COURSE_CUB_REFERENCE") {
        return Some(PathBuf::from(path));
    }
    let beside = std::env::current_exe()
        .ok()?
        .with_file_name("cub_reference");
    beside.exists().then_some(beside)
}

/// Time CUB's `op` (`scan`, `select` or `sort`) on `n` elements drawn from `seed`, or `None`
/// when the reference program is absent. A reference that fails stops the program.
pub fn time(op: &str, n: usize, seed: u64) -> Option<CubTime> {
    run(&[op, &n.to_string(), &seed.to_string()], None)
}

/// Time CUB's 256-bin `HistogramEven` of `bytes` (sent to the reference on its standard
/// input), or `None` when the reference program is absent.
pub fn time_histogram(bytes: &[u8]) -> Option<CubTime> {
    run(&["histogram", &bytes.len().to_string()], Some(bytes))
}

fn run(args: &[&str], input: Option<&[u8]>) -> Option<CubTime> {
    use std::io::Write;
    use std::process::Stdio;
    let program = reference_program()?;
    let cannot = |e: std::io::Error| -> ! {
        crate::cli::fail(&format!("cannot run {}: {e}", program.display()))
    };
    let mut child = Command::new(&program)
        .args(args)
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| cannot(e));
    if let (Some(bytes), Some(mut stdin)) = (input, child.stdin.take()) {
        stdin.write_all(bytes).unwrap_or_else(|e| cannot(e));
    }
    let out = child.wait_with_output().unwrap_or_else(|e| cannot(e));
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |key: &str| {
        text.split_whitespace()
            .find_map(|w| w.strip_prefix(key))
            .map(str::to_string)
    };
    let parsed = match (field("median_ms="), field("check=")) {
        (Some(ms), Some(check)) if out.status.success() => {
            match (ms.parse(), u64::from_str_radix(&check, 16)) {
                (Ok(median_ms), Ok(checksum)) => Some(CubTime {
                    median_ms,
                    checksum,
                }),
                _ => None,
            }
        }
        _ => None,
    };
    parsed.or_else(|| {
        crate::cli::fail(&format!(
            "{} {} failed: {}",
            program.display(),
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    })
}
