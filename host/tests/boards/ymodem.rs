//! The YMODEM sender (`mairbench_host::link::ymodem`) against a reference receiver, lrzsz's `rb`,
//! over its stdin and stdout pipes: the file `rb` writes must be byte-identical to the one
//! sent (Debian's `lrzsz`, which ./test.sh installs before the tests). Then
//! the same over a pty through the serial-port `Link`. The real receiver, U-Boot's `loady` in
//! QEMU, is serial_console.rs's.

use mairbench_host::link::ymodem::{self, Link, Options, Progress};
use std::collections::VecDeque;
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::common;

/// Whether lrzsz's `rb` is there (./test.sh installs it: group lrzsz of qemu/packages).
fn have_rb() -> bool {
    common::deps::need("lrzsz")
}

/// `rb` as a [`Link`]: its stdin, and its stdout read by a thread into a channel so that reads
/// can time out. Kills `rb` when dropped.
struct RbLink {
    /// Writes so far (one per block, EOT or CAN burst).
    writes: usize,
    child: Child,
    stdin: ChildStdin,
    from_rb: Receiver<Vec<u8>>,
    pending: VecDeque<u8>,
}

impl RbLink {
    fn spawn(dir: &Path, extra: &[&str]) -> RbLink {
        let mut child = Command::new("rb")
            .args([
                "--ymodem",
                "--binary",
                "--overwrite",
                "--keep-uppercase",
                "--quiet",
            ])
            .args(extra)
            .current_dir(dir)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("rb starts");
        let stdin = child.stdin.take().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let (tx, from_rb) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            while let Ok(n @ 1..) = stdout.read(&mut buf) {
                if tx.send(buf[..n].to_vec()).is_err() {
                    break;
                }
            }
        });
        RbLink {
            writes: 0,
            child,
            stdin,
            from_rb,
            pending: VecDeque::new(),
        }
    }

    /// Waits (at most 20 s) for `rb` to exit; its exit status.
    fn finish(mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(s) = self.child.try_wait().expect("rb's status") {
                return s;
            }
            assert!(
                Instant::now() < deadline,
                "rb did not exit within 20 s after the batch"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for RbLink {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Link for RbLink {
    fn read_byte(&mut self, timeout: Duration) -> io::Result<Option<u8>> {
        if self.pending.is_empty() {
            match self.from_rb.recv_timeout(timeout) {
                Ok(chunk) => self.pending.extend(chunk),
                Err(RecvTimeoutError::Timeout) => return Ok(None),
                Err(RecvTimeoutError::Disconnected) => {
                    return Err(io::Error::new(
                        io::ErrorKind::UnexpectedEof,
                        "rb closed its output",
                    ))
                }
            }
        }
        Ok(self.pending.pop_front())
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.writes += 1;
        self.stdin.write_all(bytes)?;
        self.stdin.flush()
    }
}

/// Pseudo-random bytes (xorshift).
fn bytes(n: usize, mut x: u64) -> Vec<u8> {
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8
        })
        .collect()
}

fn scratch(case: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mairbench-ymodem-{}-{case}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Sends `data` as `name` to a fresh `rb` (with `extra` options) and checks the file it wrote;
/// what was sent and the number of writes (blocks, EOTs) it took.
fn transfer(
    case: &str,
    name: &str,
    data: &[u8],
    extra: &[&str],
) -> (ymodem::Sent, usize, Vec<Progress>) {
    let dir = scratch(case);
    let mut link = RbLink::spawn(&dir, extra);
    let mut seen: Vec<Progress> = Vec::new();
    let options = Options {
        start_timeout: Duration::from_secs(30),
        ..Options::default()
    };
    let sent = ymodem::send_with(&mut link, name, data, &options, &mut |p| seen.push(p))
        .unwrap_or_else(|e| panic!("{case}: {e}"));
    let writes = link.writes;
    let status = link.finish();
    assert!(status.success(), "{case}: rb exited with {status}");
    let got = std::fs::read(dir.join(name)).unwrap_or_else(|e| panic!("{case}: rb's file: {e}"));
    assert_eq!(got.len(), data.len(), "{case}: size");
    assert!(got == data, "{case}: rb's file differs from the one sent");
    assert_eq!(seen.last().map(|p| p.sent), Some(data.len()), "{case}");
    let _ = std::fs::remove_dir_all(&dir);
    (sent, writes, seen)
}

#[test]
fn rb_receives_a_241_kib_file_with_an_odd_size() {
    if !have_rb() {
        return;
    }
    let data = bytes(241 * 1024 + 77, 0x2545_F491_4F6C_DD1D);
    let (sent, writes, seen) = transfer("odd", "mairbench.bin", &data, &[]);
    // Block 0, 242 data blocks, EOT, the batch end.
    assert_eq!(writes, 1 + 242 + 1 + 1);
    assert_eq!(sent.bytes, 246_861);
    // rb itself waits about 1 s for a second EOT and 1 s more before its C for the next
    // file, so the whole exchange is slower than its data blocks.
    let data_time = seen.last().unwrap().elapsed - seen[0].elapsed;
    eprintln!(
        "ymodem to lrzsz rb over a pipe (not a UART): {} B in {:.3} s = {:.0} kB/s for the \
         whole exchange; the data blocks alone {:.3} s = {:.0} kB/s",
        sent.bytes,
        sent.elapsed.as_secs_f64(),
        sent.rate() / 1e3,
        data_time.as_secs_f64(),
        sent.bytes as f64 / data_time.as_secs_f64() / 1e3
    );
}

#[test]
fn rb_receives_tiny_and_whole_block_files() {
    if !have_rb() {
        return;
    }
    transfer("tiny", "tiny.bin", &bytes(100, 7), &[]);
    transfer("blocks", "blocks.bin", &bytes(3 * 1024, 11), &[]);
}

#[test]
fn rb_receives_an_empty_file() {
    if !have_rb() {
        return;
    }
    transfer("empty", "empty.bin", &[], &[]);
}

#[test]
fn rb_with_crc_errors_gets_the_blocks_again() {
    if !have_rb() {
        return;
    }
    // rb's --errors N corrupts its view of the data every N bytes, so it NAKs those blocks.
    let (_, writes, _) = transfer(
        "errors",
        "errors.bin",
        &bytes(20 * 1024 + 3, 5),
        &["--errors", "7000"],
    );
    assert!(
        writes > 1 + 21 + 1 + 1,
        "some blocks went again: {writes} writes"
    );
}

#[test]
fn rb_on_a_pty_through_the_serial_port_link() {
    // The sender on a pseudo-terminal's master end as serialport's `Box<dyn SerialPort>`
    // (the Link impl the console uses), rb on the terminal end with its tty modes.
    if !have_rb() {
        return;
    }
    let (master, terminal) = serialport::TTYPort::pair().expect("a pseudo-terminal pair");
    let path = serialport::SerialPort::name(&terminal).expect("the terminal end's path");
    // O_NOCTTY (Linux's value): the terminal must not become this process's controlling one.
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .custom_flags(0o400)
        .open(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    let dir = scratch("pty");
    let mut child = Command::new("rb")
        .args(["--ymodem", "--binary", "--overwrite", "--quiet"])
        .current_dir(&dir)
        .process_group(0)
        .stdin(Stdio::from(tty.try_clone().unwrap()))
        .stdout(Stdio::from(tty))
        .stderr(Stdio::null())
        .spawn()
        .expect("rb starts");
    // `terminal` stays open until the end: the master end of a pty whose other end nobody
    // holds reports a hang-up (serialport then fails the read), which a UART never does, and
    // rb exits right after its last ACK.
    let mut port: Box<dyn serialport::SerialPort> = Box::new(master);
    let data = bytes(50 * 1024 + 333, 3);
    // rb empties its input right after each ACK and C; on a pty, with no line delay, a block
    // sometimes arrives before that and is lost: resend after 2 s rather than 10 s.
    let options = Options {
        start_timeout: Duration::from_secs(30),
        reply_timeout: Duration::from_secs(2),
        ..Options::default()
    };
    let r = ymodem::send_with(&mut port, "pty.bin", &data, &options, &mut |_| {});
    // rb's exit waits for its output to drain (read by this end): read on while it runs.
    let status = {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let _ = port.read_byte(Duration::from_millis(20));
            if let Some(s) = child.try_wait().unwrap() {
                break Some(s);
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
        }
    };
    drop(terminal);
    let sent = r.unwrap_or_else(|e| panic!("pty: {e}"));
    assert!(status.is_some_and(|s| s.success()), "rb: {status:?}");
    let got = std::fs::read(dir.join("pty.bin")).expect("rb's file");
    assert!(
        got == data,
        "rb's file differs ({} B of {} B)",
        got.len(),
        data.len()
    );
    eprintln!(
        "ymodem to rb over a pty: {} B in {:.3} s (rb's ~1 s wait for a second EOT included)",
        sent.bytes,
        sent.elapsed.as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
