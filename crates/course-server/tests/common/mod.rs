//! What the server's tests share: a directory of the test's own, and the fake runner.
// Each test file uses what it needs of this.
#![allow(dead_code)]
use std::path::{Path, PathBuf};

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
