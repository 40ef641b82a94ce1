//! What the boot paths do to the system, behind one trait: the tools they run and the files
//! they write. [`Real`] does it; the unit tests use a fake that records it, so the command
//! lines each setting produces are tested without running anything.

use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// Why the runner stops: its exit status and what it says on stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fail {
    /// 2 a bad setting, 3 a tool failed or is missing (1 and 124 come from the run).
    pub status: i32,
    /// The message, without the `mairbench: ` prefix.
    pub message: String,
}

/// A bad setting: status 2.
pub fn bad(message: impl Into<String>) -> Fail {
    Fail {
        status: 2,
        message: message.into(),
    }
}

/// A tool failed or is missing: status 3.
pub fn tool_failed(message: impl Into<String>) -> Fail {
    Fail {
        status: 3,
        message: message.into(),
    }
}

/// The system as the boot paths see it.
pub trait Sys {
    /// Runs `program` with `args` (`stdin`, if any, as its input; its stdout discarded, its
    /// stderr passed on); `false` when it cannot start or exits with other than 0.
    fn tool(&mut self, program: &str, args: &[String], stdin: Option<&[u8]>) -> bool;
    /// Where `program` is on PATH (and /usr/sbin, /sbin).
    fn which(&mut self, program: &str) -> Option<PathBuf>;
    /// Writes a file.
    fn write(&mut self, path: &Path, bytes: &[u8]) -> io::Result<()>;
    /// Reads a file.
    fn read(&mut self, path: &Path) -> io::Result<Vec<u8>>;
    /// The size of a file, when there is one.
    fn len(&mut self, path: &Path) -> Option<u64>;
    /// Makes `path` (created if missing) `len` bytes long: a sparse file.
    fn set_len(&mut self, path: &Path, len: u64) -> io::Result<()>;
    /// Makes `to` a copy of `from` padded to `len` bytes, unless it is one already (newer
    /// than `from`); `false` when it cannot.
    fn padded_copy(&mut self, from: &Path, to: &Path, len: u64) -> bool;
}

/// The real system.
pub struct Real;

impl Sys for Real {
    fn tool(&mut self, program: &str, args: &[String], stdin: Option<&[u8]>) -> bool {
        let mut cmd = Command::new(program);
        // mtools refuse a partition whose geometry they do not like, unless told not to check.
        cmd.args(args)
            .env("MTOOLS_SKIP_CHECK", "1")
            .stdout(Stdio::null());
        cmd.stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        });
        let Ok(mut child) = cmd.spawn() else {
            return false;
        };
        if let (Some(bytes), Some(mut pipe)) = (stdin, child.stdin.take()) {
            use std::io::Write as _;
            let _ = pipe.write_all(bytes);
        }
        child.wait().is_ok_and(|s| s.success())
    }

    fn which(&mut self, program: &str) -> Option<PathBuf> {
        which(program)
    }

    fn write(&mut self, path: &Path, bytes: &[u8]) -> io::Result<()> {
        std::fs::write(path, bytes)
    }

    fn read(&mut self, path: &Path) -> io::Result<Vec<u8>> {
        std::fs::read(path)
    }

    fn len(&mut self, path: &Path) -> Option<u64> {
        path.metadata()
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.len())
    }

    fn set_len(&mut self, path: &Path, len: u64) -> io::Result<()> {
        std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)?
            .set_len(len)
    }

    fn padded_copy(&mut self, from: &Path, to: &Path, len: u64) -> bool {
        let modified = |p: &Path| p.metadata().and_then(|m| m.modified()).ok();
        if modified(to).is_some_and(|t| modified(from).is_some_and(|f| t >= f)) {
            return true;
        }
        let part = to.with_extension(format!("raw.{}", std::process::id()));
        to.parent()
            .is_some_and(|d| std::fs::create_dir_all(d).is_ok())
            && std::fs::copy(from, &part).is_ok()
            && self.set_len(&part, len).is_ok()
            && std::fs::rename(&part, to).is_ok()
    }
}

/// Where `program` is: itself when it holds a `/`, else the first executable of that name on
/// PATH, then in /usr/sbin and /sbin.
pub fn which(program: &str) -> Option<PathBuf> {
    use std::os::unix::fs::PermissionsExt as _;
    let executable = |p: &Path| {
        p.metadata()
            .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
    };
    if program.contains('/') {
        return executable(Path::new(program)).then(|| PathBuf::from(program));
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin"), PathBuf::from("/sbin")])
        .map(|dir| dir.join(program))
        .find(|p| executable(p))
}

#[cfg(test)]
pub mod fake {
    //! A system that records what it is asked to do.

    use super::*;
    use std::collections::BTreeMap;

    /// Records tools run (one line each, `program arg …`) and files written; every tool
    /// succeeds unless named in `failing`.
    #[derive(Default)]
    pub struct Fake {
        /// The tools run, in order.
        pub calls: Vec<String>,
        /// The files written.
        pub files: BTreeMap<PathBuf, Vec<u8>>,
        /// The lengths `set_len` gave.
        pub lens: BTreeMap<PathBuf, u64>,
        /// Tools that fail.
        pub failing: Vec<&'static str>,
        /// Tools that are missing.
        pub missing: Vec<&'static str>,
    }

    impl Sys for Fake {
        fn tool(&mut self, program: &str, args: &[String], _: Option<&[u8]>) -> bool {
            self.calls.push(format!("{program} {}", args.join(" ")));
            !self.failing.iter().any(|f| program.ends_with(f))
        }

        fn which(&mut self, program: &str) -> Option<PathBuf> {
            (!self.missing.contains(&program)).then(|| PathBuf::from(program))
        }

        fn write(&mut self, path: &Path, bytes: &[u8]) -> io::Result<()> {
            self.files.insert(path.to_owned(), bytes.to_owned());
            Ok(())
        }

        fn read(&mut self, path: &Path) -> io::Result<Vec<u8>> {
            self.files
                .get(path)
                .cloned()
                .ok_or_else(|| io::Error::from(io::ErrorKind::NotFound))
        }

        fn len(&mut self, path: &Path) -> Option<u64> {
            self.files.get(path).map(|f| f.len() as u64)
        }

        fn set_len(&mut self, path: &Path, len: u64) -> io::Result<()> {
            self.lens.insert(path.to_owned(), len);
            Ok(())
        }

        fn padded_copy(&mut self, from: &Path, to: &Path, len: u64) -> bool {
            self.calls
                .push(format!("pad {} {} {len}", from.display(), to.display()));
            true
        }
    }

    impl Fake {
        /// The text of a file written.
        pub fn text(&self, path: &str) -> String {
            String::from_utf8_lossy(&self.files[Path::new(path)]).into_owned()
        }
    }
}
