//! Where the book's programs still say `unsafe`, file by file. (The launchers generated from
//! `kernels/` that are `unsafe fn`s are counted by the contracts test, in
//! `unsafe_launchers.txt`.)

use std::path::Path;

/// The folders of the crate that hold programs, and the program of chapter 4 that is a crate of
/// its own (cudarc alone).
const FOLDERS: [&str; 11] = [
    "ch01",
    "ch02",
    "ch03",
    "ch04",
    "ch05",
    "ch06",
    "ch07",
    "ch08",
    "judge",
    "workshop",
    "../cudarc-alone/src",
];

/// `unsafe` blocks and functions in `text`, comments left out.
fn unsafe_uses(text: &str) -> usize {
    text.lines()
        .map(|line| line.split("//").next().unwrap_or(""))
        .map(|code| {
            code.match_indices("unsafe")
                .filter(|&(at, _)| {
                    let before = code[..at].chars().next_back();
                    let after = code[at + 6..].trim_start();
                    !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
                        && (after.starts_with('{')
                            || after.starts_with("fn ")
                            || after.starts_with("impl"))
                })
                .count()
        })
        .sum()
}

fn main() {
    course::cli::no_args(
        "Counts the unsafe blocks in the book's programs and the unsafe launchers generated from kernels/.",
    );
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let (mut programs, mut with_unsafe, mut uses) = (0, Vec::new(), 0);
    for folder in FOLDERS {
        let mut files: Vec<_> = std::fs::read_dir(root.join(folder))
            .map(|d| d.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        files.retain(|p: &std::path::PathBuf| p.extension().is_some_and(|e| e == "rs"));
        files.sort();
        for path in files {
            let text = std::fs::read_to_string(&path).unwrap_or_default();
            programs += 1;
            let n = unsafe_uses(&text);
            if n > 0 {
                uses += n;
                let name = path
                    .strip_prefix(root)
                    .unwrap_or(&path)
                    .display()
                    .to_string()
                    .replace("../", "");
                with_unsafe.push(format!("{name} {n}"));
            }
        }
    }
    println!(
        "unsafe in the book's programs: {uses} in {} of {programs} files",
        with_unsafe.len()
    );
    for line in &with_unsafe {
        println!("  {line}");
    }
}
