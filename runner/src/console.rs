//! QEMU under the time limit, its console kept in the log and shown on stdout (without the
//! `@mb` records unless they are asked for), or on a pseudo-terminal for a stand-in board.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Where the console goes.
#[derive(Debug, Clone)]
pub struct Console {
    /// Whether stdout shows the `@mb` records.
    pub records: bool,
    /// Where the whole console is kept.
    pub log: PathBuf,
    /// Whether the log's place is said at the end (a file of target/mairbench-logs).
    pub named: bool,
}

/// How QEMU ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ended {
    /// Its exit status (128 + the signal when a signal ended it).
    pub status: i32,
    /// Whether the time limit ended it.
    pub timed_out: bool,
}

/// `program`, to be started as a child that dies with the runner: were the runner killed, no
/// QEMU would run on without its time limit.
pub fn child(program: &str) -> Command {
    use std::os::unix::process::CommandExt as _;
    let mut cmd = Command::new(program);
    // SAFETY: prctl(2) is async-signal-safe; it only asks for SIGKILL when the parent dies.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    cmd
}

fn status_of(s: std::process::ExitStatus) -> i32 {
    use std::os::unix::process::ExitStatusExt as _;
    s.code().unwrap_or_else(|| 128 + s.signal().unwrap_or(0))
}

/// Waits for `child` for `limit` seconds (0: no limit); past it, SIGTERM, and SIGKILL 5 s
/// later.
fn wait(child: Child, limit: u64) -> Ended {
    let pid = child.id() as libc::pid_t;
    let (tx, rx) = mpsc::channel();
    let mut child = child;
    std::thread::spawn(move || {
        let _ = tx.send(child.wait().map(status_of).unwrap_or(-1));
    });
    if limit == 0 {
        return Ended {
            status: rx.recv().unwrap_or(-1),
            timed_out: false,
        };
    }
    if let Ok(status) = rx.recv_timeout(Duration::from_secs(limit)) {
        return Ended {
            status,
            timed_out: false,
        };
    }
    // SAFETY: kill(2) on the pid of a child not yet waited for (the waiter holds it).
    unsafe { libc::kill(pid, libc::SIGTERM) };
    let status = rx.recv_timeout(Duration::from_secs(5)).unwrap_or_else(|_| {
        // SAFETY: as above.
        unsafe { libc::kill(pid, libc::SIGKILL) };
        rx.recv().unwrap_or(-1)
    });
    Ended {
        status,
        timed_out: true,
    }
}

/// How long the console copier waits after a read that did not fill its buffer. QEMU writes
/// the UART one byte per write(2); a reader that wakes for each byte costs QEMU about 2 µs a
/// byte on a 2-core machine (a default run's 550 KB: 1.2 s). Waiting lets the pipe gather
/// the bytes (64 KiB fill in no less than 60 ms at QEMU's pace, so QEMU never blocks on it),
/// and the console lags by at most this.
const GATHER: Duration = Duration::from_millis(5);

/// Copies `from` to `log` and to stdout as it comes (in gathers: [`GATHER`]); without
/// `records`, stdout gets the lines without `@mb {` only.
fn tee(mut from: impl Read, log: &mut File, records: bool) -> io::Result<()> {
    let mut out = io::stdout().lock();
    let (mut buf, mut pending) = (vec![0u8; 1 << 16], Vec::new());
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if n < buf.len() {
            std::thread::sleep(GATHER);
        }
        log.write_all(&buf[..n])?;
        log.flush()?;
        if records {
            let _ = out.write_all(&buf[..n]).and_then(|()| out.flush());
            continue;
        }
        pending.extend_from_slice(&buf[..n]);
        while let Some(at) = pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = pending.drain(..=at).collect();
            let _ = write_unless_record(&mut out, &line);
        }
    }
    write_unless_record(&mut out, &pending)
}

fn write_unless_record(out: &mut impl Write, line: &[u8]) -> io::Result<()> {
    if line.windows(5).any(|w| w == b"@mb {") {
        return Ok(());
    }
    out.write_all(line).and_then(|()| out.flush())
}

/// Runs `q` (QEMU's command line) under `limit` with its console on stdout and in the log.
pub fn run(q: &[String], limit: u64, console: &Console) -> io::Result<Ended> {
    let mut log = File::create(&console.log)?;
    let mut child = child(&q[0])
        .args(&q[1..])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()?;
    let stdout = child.stdout.take();
    let records = console.records;
    let copier = std::thread::spawn(move || match stdout {
        Some(out) => tee(out, &mut log, records),
        None => Ok(()),
    });
    let ended = wait(child, limit);
    // QEMU is gone; what it wrote is read to the end.
    copier.join().unwrap_or(Ok(()))?;
    Ok(ended)
}

/// Runs `q` under `limit` with the UART on a pseudo-terminal that QEMU logs to the log: names
/// the terminal on stderr as soon as QEMU says which it is, waits, then prints QEMU's own
/// output on stderr and the log on stdout.
pub fn run_pty(q: &[String], limit: u64, console: &Console, work: &Path) -> io::Result<Ended> {
    let out_path = work.join("qemu.out");
    let out = File::create(&out_path)?;
    let mut child = child(&q[0])
        .args(&q[1..])
        .stdin(Stdio::null())
        .stdout(out.try_clone()?)
        .stderr(out)
        .spawn()?;
    let started = Instant::now();
    let redirected = |text: &str| {
        text.lines().find_map(|l| {
            l.strip_prefix("char device redirected to ")
                .and_then(|r| r.split_once(" (label con)"))
                .map(|(pts, _)| pts.to_owned())
        })
    };
    let mut pts = None;
    while started.elapsed() < Duration::from_secs(30) {
        pts = redirected(&std::fs::read_to_string(&out_path).unwrap_or_default());
        if pts.is_some() || child.try_wait().ok().flatten().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    match &pts {
        Some(pts) => eprintln!("mairbench: serial console on {pts}"),
        None => eprintln!("mairbench: QEMU named no pseudo-terminal for the console:"),
    }
    let left = limit.saturating_sub(started.elapsed().as_secs()).max(1);
    let ended = wait(child, if limit == 0 { 0 } else { left });
    let said = std::fs::read_to_string(&out_path).unwrap_or_default();
    for line in said
        .lines()
        .filter(|l| !l.starts_with("char device redirected to "))
    {
        eprintln!("{line}");
    }
    let log = std::fs::read(&console.log).unwrap_or_default();
    let mut stdout = io::stdout().lock();
    for line in log.split_inclusive(|&b| b == b'\n') {
        if console.records {
            stdout.write_all(line)?;
        } else {
            write_unless_record(&mut stdout, line)?;
        }
    }
    stdout.flush()?;
    Ok(ended)
}

/// The first line `program args…` prints within `secs` seconds (stdin closed, stderr
/// dropped), all of its output; `None` when it cannot start or does not finish in time.
pub fn output_within(program: &str, args: &[&str], secs: u64) -> Option<String> {
    let mut child = child(program)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .ok()?;
    let mut stdout = child.stdout.take()?;
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        let _ = stdout.read_to_string(&mut text);
        text
    });
    let ended = wait(child, secs);
    let text = reader.join().ok()?;
    (!ended.timed_out).then_some(text)
}
