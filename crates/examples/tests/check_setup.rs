//! `check_setup` on this machine: it must finish with a line per check and a verdict that
//! agrees with its exit status, whatever the machine has (a GPU or not, NVRTC or not).
use std::process::Command;

const VERDICTS: [&str; 5] = ["ok", "differs", "missing", "not tried", "wrong"];

#[test]
fn check_setup_reports_every_check_and_a_consistent_verdict() {
    let out = Command::new(env!("CARGO_BIN_EXE_check_setup"))
        .output()
        .expect("run check-setup");
    let text = String::from_utf8_lossy(&out.stdout);
    // Advice and a long verdict continue on indented lines.
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with(' ')).collect();
    assert!(
        text.lines().all(|l| l.chars().count() <= 96),
        "a line is too wide:\n{text}"
    );
    let labels = [
        "Rust",
        "GPU",
        "driver",
        "NVRTC",
        "first kernel",
        "sanitizer",
        "release build",
        "verdict:",
    ];
    assert_eq!(lines.len(), labels.len(), "{text}");
    for (line, label) in lines.iter().zip(labels) {
        assert!(
            line.starts_with(label),
            "`{line}` should start with {label}:\n{text}"
        );
    }
    // `WHAT  FOUND: VERDICT`
    let verdict_of = |line: &str| {
        VERDICTS
            .into_iter()
            .find(|v| line.ends_with(&format!(": {v}")))
            .unwrap_or("none")
    };
    for line in &lines[..7] {
        assert_ne!(verdict_of(line), "none", "`{line}` has no verdict");
    }
    let gpu_missing = verdict_of(lines[1]) == "missing";
    let nvrtc_ok = verdict_of(lines[3]) == "ok";
    assert_eq!(nvrtc_ok, course::kernel::nvrtc_present(), "{text}");
    assert!(lines[2].contains("bound CUDA 13.0 or newer"), "{text}");
    let status = out.status.code();
    if gpu_missing {
        // A missing GPU is a clean skip: the driver is not asked, the kernel not tried.
        assert_eq!(status, Some(protocol::EXIT_NO_GPU), "{text}");
        assert!(lines[2].ends_with("not tried"), "{text}");
        assert!(lines[4].ends_with("not tried"), "{text}");
        assert!(lines[7].contains("ready for the CPU programs"), "{text}");
    } else if verdict_of(lines[4]) == "ok" {
        assert_eq!(status, Some(0), "{text}");
        assert!(lines[7].contains("ready for every program"), "{text}");
    } else {
        assert_eq!(status, Some(protocol::EXIT_CUDA_FAILED), "{text}");
    }
}
