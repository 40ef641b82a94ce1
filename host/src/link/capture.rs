//! Getting a console log: from the firmware booted in QEMU (`run`) or from a real board's
//! serial port (`capture`). Either way the raw bytes go to the log file as they arrive, each
//! chunk flushed, so an interrupted capture loses nothing already received.

use crate::read::log;
use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Copies console bytes to the log file and the terminal, and notices the `end` record.
pub struct Tee {
    file: File,
    pending: Vec<u8>,
    /// Whether an `end` record has gone by.
    pub ended: bool,
    /// Whether the terminal sees the `@mb` records too (else the human lines only, each
    /// echoed once complete; the log file keeps everything).
    pub echo_records: bool,
}

impl Tee {
    /// Creates (truncates) the log file.
    pub fn create(path: &Path) -> Result<Tee, String> {
        let file =
            File::create(path).map_err(|e| format!("cannot create {}: {e}.", path.display()))?;
        Ok(Tee {
            file,
            pending: Vec::new(),
            ended: false,
            echo_records: true,
        })
    }

    /// Appends one chunk to the log (flushed) and echoes it to standard output.
    pub fn chunk(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.file
            .write_all(bytes)
            .and_then(|()| self.file.flush())
            .map_err(|e| format!("cannot write the console log: {e}."))?;
        let mut out = io::stdout().lock();
        if self.echo_records {
            let _ = out.write_all(bytes).and_then(|()| out.flush());
        }
        self.pending.extend_from_slice(bytes);
        while let Some(at) = self.pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=at).collect();
            match log::record(&line) {
                Some(Ok(fields)) if fields.get("kind").and_then(|k| k.as_str()) == Some("end") => {
                    self.ended = true;
                }
                Some(_) => {}
                None if !self.echo_records => {
                    let _ = out.write_all(&line).and_then(|()| out.flush());
                }
                None => {}
            }
        }
        Ok(())
    }
}

/// The workspace root: the directory this crate was built from, else the nearest directory
/// upwards from the current one whose `Cargo.toml` declares `[workspace]`.
pub fn workspace_root() -> Option<PathBuf> {
    let built = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    if built.join("qemu/run").is_file() {
        return Some(built);
    }
    let cwd = std::env::current_dir().ok()?;
    cwd.ancestors()
        .find(|dir| {
            std::fs::read_to_string(dir.join("Cargo.toml")).is_ok_and(|t| t.contains("[workspace]"))
        })
        .map(Path::to_path_buf)
}

/// Builds the firmware (`cargo build --release` at the workspace root, unless `build` is
/// false) and boots it through `qemu/run` with `bootargs`, streaming the console to the
/// terminal (its `@mb` records only when `records`) and to `log_path`. Returns the
/// runner's exit status. The `MAIRBENCH_*` variables of the environment reach the runner
/// unchanged, but for `MAIRBENCH_RECORDS`: the log needs the records.
pub fn qemu(
    bootargs: &[String],
    log_path: &Path,
    build: bool,
    records: bool,
) -> Result<i32, String> {
    let root = workspace_root().ok_or("cannot find the mairbench workspace (a Cargo.toml with [workspace]) above the current directory.")?;
    if build {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = Command::new(cargo)
            .args(["build", "--release"])
            .current_dir(&root)
            .stdout(Stdio::null())
            .status()
            .map_err(|e| format!("cannot start cargo build: {e}."))?;
        if !status.success() {
            return Err(format!("cargo build --release failed ({status})."));
        }
    }
    let mut child = Command::new(root.join("qemu/run"))
        .arg(root.join("target/aarch64-unknown-none/release/mairbench"))
        .args(bootargs)
        .current_dir(&root)
        .env("MAIRBENCH_RECORDS", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start qemu/run: {e}."))?;
    let mut tee = Tee::create(log_path)?;
    tee.echo_records = records;
    let copied = match child.stdout.take() {
        Some(mut out) => pump(&mut out, &mut tee),
        None => Ok(()),
    };
    let status = child
        .wait()
        .map_err(|e| format!("qemu/run was lost: {e}."))?;
    copied?;
    Ok(status.code().unwrap_or(-1))
}

fn pump(from: &mut impl Read, tee: &mut Tee) -> Result<(), String> {
    let mut buf = [0u8; 4096];
    loop {
        match from.read(&mut buf) {
            Ok(0) => return Ok(()),
            Ok(n) => tee.chunk(&buf[..n])?,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(format!("reading the console failed: {e}.")),
        }
    }
}

/// Why a serial capture stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Stop {
    /// The `end` record arrived.
    End,
    /// The time limit passed.
    Timeout,
    /// The port reported end of file or an error (cable pulled, adapter gone).
    Closed(String),
}

/// Reads a serial port into `log_path` (and the terminal) until the `end` record, the
/// time limit, or end of file or an error on the port. Ctrl-C ends the process at once;
/// what arrived until then is in the log.
pub fn serial(
    port: &str,
    baud: u32,
    limit: Option<Duration>,
    log_path: &Path,
) -> Result<Stop, String> {
    let mut port = serialport::new(port, baud)
        .timeout(Duration::from_millis(200))
        .open()
        .map_err(|e| format!("cannot open serial port {port}: {e}."))?;
    let mut tee = Tee::create(log_path)?;
    let started = Instant::now();
    let mut buf = [0u8; 4096];
    loop {
        if tee.ended {
            return Ok(Stop::End);
        }
        if limit.is_some_and(|l| started.elapsed() >= l) {
            return Ok(Stop::Timeout);
        }
        match port.read(&mut buf) {
            Ok(0) => return Ok(Stop::Closed("end of file".into())),
            Ok(n) => tee.chunk(&buf[..n])?,
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
                ) => {}
            Err(e) => return Ok(Stop::Closed(e.to_string())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tee_keeps_every_byte_and_sees_the_end_record_across_chunks() {
        let path = std::env::temp_dir().join(format!("mairbench-tee-{}.log", std::process::id()));
        let mut tee = Tee::create(&path).unwrap();
        let log = b"U-Boot\r\n@mb {\"kind\":\"start\",\"schema\":1}\r\n\xff@mb {\"kind\":\"en";
        tee.chunk(log).unwrap();
        assert!(!tee.ended);
        tee.chunk(b"d\",\"status\":\"pass\"}\r\n").unwrap();
        assert!(tee.ended);
        let kept = std::fs::read(&path).unwrap();
        assert_eq!(&kept[..log.len()], log);
        let _ = std::fs::remove_file(&path);
    }
}
