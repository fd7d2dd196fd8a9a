//! Runs the programs of some expected-output files, already built, and compares each run with
//! its file, as the outputs test does; for working on one chapter while others do not build.
//!
//! ```text
//! cargo run -p checker --bin check-case -- [--bless] [--fresh] FILE...
//! ```
//!
//! The programs are taken from `target/debug` (`--bin-dir DIR` for another folder). `--bless`
//! writes each CPU file from the run; `--fresh` also runs each program that takes `--seed` on
//! a fresh seed and requires the same verdicts. `--bins` only prints the program of each file,
//! one per line, without running anything (for scripts/gpu-bundle.sh).

use std::path::{Path, PathBuf};

use checker::{Case, compare};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let bless = args.iter().any(|a| a == "--bless");
    let fresh = args.iter().any(|a| a == "--fresh");
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples");
    let bin_dir_at = args.iter().position(|a| a == "--bin-dir");
    let bin_dir = bin_dir_at
        .and_then(|i| args.get(i + 1))
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../../target/debug"));
    // The files: every argument but the options and the value of `--bin-dir`.
    let files = args
        .iter()
        .enumerate()
        .filter(|&(i, a)| !a.starts_with("--") && bin_dir_at.map(|b| b + 1) != Some(i))
        .map(|(_, a)| a);
    if args.iter().any(|a| a == "--bins") {
        for file in files {
            let text = std::fs::read_to_string(file).unwrap_or_default();
            match protocol::parse_command(text.lines().next().unwrap_or_default()) {
                Ok((bin, _)) => println!("{bin}"),
                Err(why) => {
                    eprintln!("Error: {file}: {why}.");
                    std::process::exit(1)
                }
            }
        }
        return;
    }
    let mut failed = 0;
    for file in files {
        let path = std::fs::canonicalize(file).unwrap_or_else(|_| PathBuf::from(file));
        let root = std::fs::canonicalize(&root).unwrap_or(root.clone());
        let outcome = Case::read(&path, &root).and_then(|case| {
            let run = case.run(&bin_dir, &[])?;
            if let Some(missing) = case.skip(&run) {
                return Ok(format!(
                    "skipped ({}): {}",
                    missing.label(),
                    run.last_sentence()
                ));
            }
            if bless && !case.gpu {
                case.bless(&run.printed)?;
                return Ok("blessed".into());
            }
            let c = compare(&case.expected, &run.printed)
                .map_err(|why| format!("{why}\n--- the run printed ---\n{}", run.printed))?;
            let mut said = format!(
                "ok ({} masked, {} within a bound{})",
                c.masked,
                c.within_bound,
                match c.not_known {
                    0 => String::new(),
                    n => format!(", {n} not known: no floor for this GPU"),
                }
            );
            if fresh && let Some((seed, n)) = case.check_fresh_seed(&bin_dir)? {
                said.push_str(&format!("; seed {seed}: {n} verdicts hold"));
            }
            Ok(said)
        });
        match outcome {
            Ok(said) => println!("{file}: {said}"),
            Err(why) => {
                failed += 1;
                println!("{file}: FAILED: {why}");
            }
        }
    }
    std::process::exit(if failed > 0 { 1 } else { 0 });
}
