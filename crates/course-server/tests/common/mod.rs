//! What the server's tests share: the binary, a directory of the test's own, the fake runner
//! and adding a learner.
// Each test file uses what it needs of this.
#![allow(dead_code)]
use std::path::{Path, PathBuf};
use std::process::Command;

pub const SERVER: &str = env!("CARGO_BIN_EXE_course-server");

/// A test's own directory (database, logs, certificates, CSV), removed when the test passes
/// and kept to be read when it fails.
pub struct TestDir(PathBuf);

impl TestDir {
    /// A fresh, empty `course-server-NAME-PID` in the system's temporary directory.
    pub fn new(name: &str) -> TestDir {
        let dir = std::env::temp_dir().join(format!("course-server-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TestDir(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn join(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for TestDir {
    fn drop(&mut self) {
        if !std::thread::panicking() {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }
}

/// tests/fake-runner.sh: a runner that needs no GPU and answers by markers in the kernel.
pub fn fake_runner() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake-runner.sh")
}

/// `course-server add-learner NAME --db DB`: the token it printed, 32 hex digits.
pub fn add_learner(db: &Path, name: &str) -> String {
    let out = Command::new(SERVER)
        .args(["add-learner", name, "--db"])
        .arg(db)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let (printed, token) = text.trim().split_once(' ').unwrap();
    assert_eq!(printed, name);
    assert!(
        token.len() == 32 && token.chars().all(|c| c.is_ascii_hexdigit()),
        "{token}"
    );
    token.to_string()
}
