//! The program builds as a project of its own: this crate's `Cargo.toml` and `src/`, copied into
//! an empty folder with the workspace's `Cargo.lock` (so the versions are the course's), built
//! with `cargo build --offline` from the crates already in cargo's cache. The copy lives in
//! `target/cudarc-alone-copy/` (the workspace excludes `target/`, so cargo sees a project of its
//! own) and builds into the course's target folder, where the course has built cudarc already;
//! the files keep their times, so a rerun with nothing changed builds nothing.

use std::path::{Path, PathBuf};
use std::process::Command;

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// target/ of the workspace: this test runs from target/<profile>/deps.
fn target_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("the test knows its own path");
    exe.ancestors()
        .nth(3)
        .expect("target/<profile>/deps/<test>")
        .to_path_buf()
}

/// Copy `from` to `to`, keeping the time it was last modified (cargo rebuilds what is newer
/// than its last build).
fn copy_keeping_time(from: &Path, to: &Path) {
    std::fs::copy(from, to).unwrap_or_else(|e| panic!("copy {}: {e}", from.display()));
    let modified = std::fs::metadata(from)
        .and_then(|m| m.modified())
        .expect("a file time");
    let file = std::fs::File::options()
        .write(true)
        .open(to)
        .expect("the copy opens");
    file.set_modified(modified).expect("set the copy's time");
}

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create a folder of the copy");
    for entry in std::fs::read_dir(from).expect("read the crate").flatten() {
        let path = entry.path();
        if path.is_dir() {
            copy_tree(&path, &to.join(entry.file_name()));
        } else {
            copy_keeping_time(&path, &to.join(entry.file_name()));
        }
    }
}

/// The `cudarc = { ... }` entry of a manifest, over one line or several, without its spaces and
/// a trailing comma in its list of features.
fn cudarc_line(manifest: &str) -> Option<String> {
    let start = manifest.find("\ncudarc = ")? + 1;
    let end = start + manifest[start..].find('}')? + 1;
    let entry: String = manifest[start..end].split_whitespace().collect();
    Some(entry.replace(",]", "]"))
}

#[test]
fn its_cudarc_is_the_courses() {
    let own = std::fs::read_to_string(crate_dir().join("Cargo.toml")).unwrap();
    let workspace = std::fs::read_to_string(crate_dir().join("../../Cargo.toml")).unwrap();
    let own = cudarc_line(&own).expect("Cargo.toml names cudarc");
    let course = cudarc_line(&workspace).expect("the workspace names cudarc");
    assert_eq!(
        own, course,
        "this crate must pin the course's cudarc, with its features"
    );
}

#[test]
fn a_copy_in_an_empty_folder_builds_offline() {
    let copy_target = target_dir().join("cudarc-alone-copy");
    let project = copy_target.join("project");
    // An empty folder: whatever an earlier run left goes first.
    let _ = std::fs::remove_dir_all(&project);
    std::fs::create_dir_all(&project).unwrap();
    copy_keeping_time(&crate_dir().join("Cargo.toml"), &project.join("Cargo.toml"));
    // Built as the course builds (no debug information), so the copy reuses the course's cudarc
    // from the course's target folder instead of compiling it again.
    let mut manifest = std::fs::OpenOptions::new()
        .append(true)
        .open(project.join("Cargo.toml"))
        .unwrap();
    std::io::Write::write_all(&mut manifest, b"\n[profile.dev]\ndebug = 0\n").unwrap();
    copy_tree(&crate_dir().join("src"), &project.join("src"));
    std::fs::copy(
        crate_dir().join("../../Cargo.lock"),
        project.join("Cargo.lock"),
    )
    .unwrap();

    // The cargo that runs this test, with no setting of the course's build leaking in.
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let out = Command::new(cargo)
        .args(["build", "--offline", "--quiet"])
        .current_dir(&project)
        // The course's own target folder: the copy's cudarc is the course's, built once.
        .env("CARGO_TARGET_DIR", target_dir())
        .env_remove("RUSTFLAGS")
        .env_remove("CARGO_BUILD_TARGET_DIR")
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "the copy in {} did not build:\n{}",
        project.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let program = target_dir().join("debug/cudarc_alone");
    let help = Command::new(&program)
        .arg("--help")
        .output()
        .expect("the copy runs");
    assert!(
        String::from_utf8_lossy(&help.stdout).starts_with("Usage: cudarc_alone"),
        "{} --help printed no usage",
        program.display()
    );
}
