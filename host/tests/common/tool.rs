//! Runs the host tool (`cargo host`, the `mairbench-host` binary) on logs, each run writing
//! into a scratch directory of its own.

use serde_json::Value;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A checked-in log or fixture of `host/tests/data`.
pub fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// A fresh, empty directory for one test of the binary `suite`.
pub fn scratch(suite: &str, name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "mairbench-host-{suite}-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// What one run of the host tool left.
pub struct Done {
    /// Its exit status (`None`: killed by a signal).
    pub code: Option<i32>,
    /// What it printed.
    pub stdout: String,
    /// What it said on stderr.
    pub stderr: String,
    /// Its `--out` directory.
    pub out: PathBuf,
}

impl Done {
    /// A file the run wrote.
    pub fn file(&self, name: &str) -> String {
        std::fs::read_to_string(self.out.join(name)).unwrap_or_else(|e| {
            panic!(
                "{name}: {e}\nstdout:\n{}\nstderr:\n{}",
                self.stdout, self.stderr
            )
        })
    }

    /// A JSON file the run wrote.
    pub fn json(&self, name: &str) -> Value {
        serde_json::from_str(&self.file(name)).unwrap()
    }

    /// The rows of a CSV file the run wrote, without its header.
    pub fn csv_rows(&self, name: &str) -> Vec<String> {
        self.file(name).lines().skip(1).map(str::to_owned).collect()
    }
}

/// Runs the host tool with `args` then `--out` a scratch directory named after `test`.
pub fn run(suite: &str, args: &[&OsStr], test: &str) -> Done {
    let out = scratch(suite, test);
    let o = Command::new(env!("CARGO_BIN_EXE_mairbench-host"))
        .args(args)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("the host tool starts");
    Done {
        code: o.status.code(),
        stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        out,
    }
}
