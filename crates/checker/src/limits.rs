//! How long one run may take before the checker stops it and fails its case (`FAILED NAME:
//! still running after N s (the limit for this case)`), so that a hung kernel fails one case and
//! the check goes on to the next.
//!
//! | run | limit | set by |
//! | --- | ---: | --- |
//! | a case's program, its fresh-seed run and its `--help` (the GPU check, `cargo test`, `check-case`), a mutant's run | [`RUN_LIMIT_S`] = 300 s | [`RUN_LIMIT_VAR`] |
//! | one program under one compute-sanitizer tool (`gpu-check --sanitize`) | [`SANITIZER_LIMIT_S`] = 150 s | [`SANITIZER_LIMIT_VAR`] |
//!
//! A case that needs longer says so in [`LONGER`]: its case name, `output` or the sanitizer
//! tool, and its limit in seconds. The variables change the defaults; a case listed in
//! [`LONGER`] keeps at least its own limit.

/// Seconds a case's run may take (its output run, its run on a fresh seed, its `--help`).
pub const RUN_LIMIT_S: u64 = 300;
/// Changes [`RUN_LIMIT_S`]: a number of seconds.
pub const RUN_LIMIT_VAR: &str = "GPU_CHECK_RUN_LIMIT";
/// Seconds one run under one compute-sanitizer tool may take (12 run at once).
pub const SANITIZER_LIMIT_S: u64 = 150;
/// Changes [`SANITIZER_LIMIT_S`]: a number of seconds.
pub const SANITIZER_LIMIT_VAR: &str = "GPU_CHECK_TIMEOUT";

/// Runs that need more than their default limit: the case, `output` (its output, fresh-seed and
/// `--help` runs) or the compute-sanitizer tool, and the seconds it may take. Racecheck slows
/// these most: on an H100 they were still running after 150 s, with 12 runs at once (the
/// three streams' two cases in the sweep of 2026-12-06, results/issue34/h100-sanitizer.txt).
pub const LONGER: [(&str, &str, u64); 5] = [
    ("ch03/copy_overlap", "racecheck", 600),
    ("ch03/copy_overlap-edge", "racecheck", 600),
    ("ch03/cublas_solve", "racecheck", 600),
    ("ch03/three_streams", "racecheck", 600),
    ("ch03/three_streams-edge", "racecheck", 600),
];

/// Why `gpu-check --sanitize` leaves chapter 10's programs out.
pub const CH10_NOT_SANITIZED: &str = "chapter 10's programs, built by its own workspace, do not \
    shrink their problems under the sanitizer as the course's do (a sum over 256 MiB timed in \
    200 launches), and have not been run under it";

/// Programs that `gpu-check --sanitize` leaves out, with the reason it prints for them; they are
/// counted apart, never as passed. Their outputs are still checked by `gpu-check`.
pub const NOT_SANITIZED: [(&str, &str); 4] = [
    ("cubecl_kernels", CH10_NOT_SANITIZED),
    ("copy_in_flight", CH10_NOT_SANITIZED),
    ("freed_in_flight", CH10_NOT_SANITIZED),
    ("two_streams_one_buffer", CH10_NOT_SANITIZED),
];

/// Why the sanitizer run leaves out `program`, if it does.
pub fn not_sanitized(program: &str) -> Option<&'static str> {
    NOT_SANITIZED
        .iter()
        .find(|(p, _)| *p == program)
        .map(|(_, why)| *why)
}

/// A limit in seconds from the environment's `value`, or the sentence that refuses it.
pub fn parse_limit(var: &str, value: &str) -> Result<u64, String> {
    match value.trim().parse::<u64>() {
        Ok(s) if s > 0 => Ok(s),
        _ => Err(format!(
            "{var} must be a whole number of seconds above 0, not `{value}`"
        )),
    }
}

/// `default`, or the setting of `var` when it holds a limit (a wrong one is refused where
/// the check starts: see [`check_settings`]).
fn setting(var: &str, default: u64) -> u64 {
    std::env::var(var)
        .ok()
        .and_then(|v| parse_limit(var, &v).ok())
        .unwrap_or(default)
}

/// The limit of `case`'s `what` (`output` or a sanitizer tool) given its default: the longer
/// of the two where [`LONGER`] lists it.
pub fn limit_s(case: &str, what: &str, default: u64) -> u64 {
    LONGER
        .iter()
        .find(|(c, w, _)| *c == case && *w == what)
        .map_or(default, |&(_, _, s)| s.max(default))
}

/// Seconds a run of `case`'s program may take.
pub fn run_limit_s(case: &str) -> u64 {
    limit_s(case, "output", setting(RUN_LIMIT_VAR, RUN_LIMIT_S))
}

/// Seconds a run of `case`'s program under the sanitizer's `tool` may take.
pub fn sanitizer_limit_s(case: &str, tool: &str) -> u64 {
    limit_s(case, tool, setting(SANITIZER_LIMIT_VAR, SANITIZER_LIMIT_S))
}

/// The sentence that refuses a variable of the limits set to something other than seconds.
pub fn check_settings() -> Result<(), String> {
    for var in [RUN_LIMIT_VAR, SANITIZER_LIMIT_VAR] {
        if let Ok(value) = std::env::var(var) {
            parse_limit(var, &value)?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_listed_case_gets_its_longer_limit_and_the_rest_the_default() {
        assert_eq!(limit_s("ch03/cublas_solve", "racecheck", 150), 600);
        assert_eq!(limit_s("ch03/cublas_solve", "memcheck", 150), 150);
        assert_eq!(limit_s("ch03/cublas_solve", "output", 300), 300);
        assert_eq!(limit_s("ch04/adder_gpu", "racecheck", 150), 150);
        // A default raised above a listed limit wins: the table only lengthens.
        assert_eq!(limit_s("ch03/copy_overlap", "racecheck", 900), 900);
    }

    #[test]
    fn every_program_left_out_of_the_sanitizer_runs_a_chapter_10_case() {
        let ch10 = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ch10-rust-kernels");
        if !ch10.is_dir() {
            return; // a chapter forked alone has no chapter 10
        }
        let commands: Vec<String> = protocol::files_under(&ch10, "txt")
            .iter()
            .filter(|p| p.to_string_lossy().ends_with(".gpu.txt"))
            .filter_map(|p| std::fs::read_to_string(p).ok())
            .filter_map(|text| text.lines().next().map(str::to_string))
            .collect();
        for (program, _) in NOT_SANITIZED {
            assert!(
                commands
                    .iter()
                    .any(|c| c.contains(&format!("--bin {program}"))),
                "{program} runs no GPU case of chapter 10"
            );
        }
        assert_eq!(not_sanitized("adder_gpu"), None);
        assert!(not_sanitized("cubecl_kernels").is_some());
    }

    #[test]
    fn limits_from_the_environment_are_whole_seconds() {
        assert_eq!(parse_limit(RUN_LIMIT_VAR, "600"), Ok(600));
        for bad in ["", "0", "-5", "1.5", "ten"] {
            let why = parse_limit(RUN_LIMIT_VAR, bad).unwrap_err();
            assert!(why.starts_with(RUN_LIMIT_VAR), "{why}");
        }
    }

    #[test]
    fn every_longer_limit_names_a_gpu_case_and_a_run_it_has() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
        for (case, what, seconds) in LONGER {
            let chapter = case.split('/').next().unwrap_or_default();
            if !root.join(chapter).is_dir() {
                continue; // a chapter forked alone lacks the other chapters' cases
            }
            assert!(
                root.join(format!("{case}.gpu.txt")).exists(),
                "{case} is no GPU case"
            );
            assert!(
                what == "output"
                    || ["memcheck", "racecheck", "synccheck", "initcheck"].contains(&what),
                "{what} is neither `output` nor a sanitizer tool"
            );
            assert!(seconds > SANITIZER_LIMIT_S.min(RUN_LIMIT_S));
        }
    }
}
