//! `cargo host console PORT`: a board's serial console, a terminal or a U-Boot script typed
//! for you, everything received appended to a log (docs/host.md).

use super::{report, usage, Fail};
use crate::analyse::why;
use crate::link::console::{self, Command, Outcome};
use crate::read::{log, text};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// What `console` was asked to do (its command line).
#[derive(Clone, Debug, Default)]
pub struct Args {
    /// Serial device or pseudo-terminal.
    pub port: String,
    /// Baud rate (8N1).
    pub baud: u32,
    /// Log file, appended to (default: `console-<UTC date>-<time>.log`).
    pub log: Option<PathBuf>,
    /// U-Boot commands to type, one per line.
    pub boot: Option<PathBuf>,
    /// The file to upload over YMODEM when the boot script's `loady` line runs.
    pub send: Option<PathBuf>,
    /// Exit when the end record arrives, with the run's status.
    pub until_end: bool,
    /// Time limit in seconds for everything.
    pub timeout: Option<f64>,
}

/// `console-<UTC date>-<HHMMSS>.log`.
fn default_console_log() -> PathBuf {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let t = secs % 86_400;
    PathBuf::from(format!(
        "console-{}-{:02}{:02}{:02}.log",
        text::civil_date(secs),
        t / 3600,
        t / 60 % 60,
        t % 60
    ))
}

/// Runs the console session `a` asks for, then says how it ended.
pub fn run(a: &Args) -> Result<(), Fail> {
    use std::io::IsTerminal as _;
    let scripted = a.boot.is_some();
    let limit = limit_of(a)?;
    let commands = script_of(a)?;
    let send = upload_of(a, &commands)?;
    let log_path = a.log.clone().unwrap_or_else(default_console_log);
    let port = console::open(&a.port, a.baud).map_err(usage)?;
    let sink = console::Sink::append(&log_path).map_err(usage)?;
    let started = Instant::now();
    let raw = !scripted
        && std::io::stdin().is_terminal()
        && crossterm::terminal::enable_raw_mode().is_ok();
    let eol = if raw { "\r\n" } else { "\n" };
    let mut note = |n: &str| {
        use std::io::Write as _;
        let _ = write!(std::io::stderr(), "console: {n}{eol}");
    };
    let (outcome, sink) = if scripted {
        let mut port = port;
        let mut opts = console::Options {
            deadline: started + limit.unwrap_or(Duration::from_secs(console::DEFAULT_TIMEOUT_S)),
            send,
            quiet: console::QUIET,
        };
        console::boot(&mut port, sink, &commands, &mut opts, &mut note)
    } else {
        let settings = Terminal {
            limit,
            started,
            raw,
        };
        terminal(a, port, sink, &settings, &mut note)
    };
    end(
        a,
        &log_path,
        outcome,
        &sink.received,
        started.elapsed(),
        limit,
    )
}

/// The time limit: `--timeout`, else [`console::DEFAULT_TIMEOUT_S`] with `--boot` or
/// `--until-end`, else none.
fn limit_of(a: &Args) -> Result<Option<Duration>, Fail> {
    Ok(match a.timeout {
        Some(s) => Some(
            Duration::try_from_secs_f64(s)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or_else(|| usage(format!("--timeout {s} is not a number of seconds.")))?,
        ),
        None if a.boot.is_some() || a.until_end => {
            Some(Duration::from_secs(console::DEFAULT_TIMEOUT_S))
        }
        None => None,
    })
}

/// The commands of the boot script (none without `--boot`).
fn script_of(a: &Args) -> Result<Vec<Command>, Fail> {
    let Some(path) = &a.boot else {
        return Ok(Vec::new());
    };
    let text = std::fs::read_to_string(path).map_err(|e| {
        usage(format!(
            "cannot read the boot script {}: {e}.",
            path.display()
        ))
    })?;
    console::script(&text).map_err(|e| usage(format!("{}: {e}", path.display())))
}

/// The file `--send` names (its name and contents), which the script's `loady` line needs,
/// and which needs one.
fn upload_of(a: &Args, commands: &[Command]) -> Result<Option<(String, Vec<u8>)>, Fail> {
    let loady = commands.iter().find(|c| c.loady());
    match (&a.send, loady) {
        (Some(path), Some(_)) => {
            let data = std::fs::read(path)
                .map_err(|e| usage(format!("cannot read {} (--send): {e}.", path.display())))?;
            let name = path
                .file_name()
                .map_or_else(|| "mairbench.bin".into(), |n| n.to_string_lossy().into_owned());
            Ok(Some((name, data)))
        }
        (Some(_), None) => Err(usage(
            "--send needs a `loady` line in the boot script, which starts U-Boot's YMODEM receiver.".into(),
        )),
        (None, Some(c)) => Err(usage(format!(
            "line {} of the boot script is `{}`: give the file to upload with --send FILE.",
            c.line, c.text
        ))),
        (None, None) => Ok(None),
    }
}

/// How the interactive console runs: its time limit from `started`, and whether standard
/// input is a raw terminal.
struct Terminal {
    limit: Option<Duration>,
    started: Instant,
    raw: bool,
}

/// The interactive console: standard input read on a thread and sent to the port, which is
/// reopened when it comes back; raw mode left at the end.
fn terminal(
    a: &Args,
    port: Box<dyn serialport::SerialPort>,
    sink: console::Sink,
    t: &Terminal,
    note: &mut dyn FnMut(&str),
) -> (Outcome, console::Sink) {
    if t.raw {
        note("raw terminal: Ctrl-] then q quits");
    } else {
        note("Ctrl-] then q quits (standard input is not a terminal: its bytes pass through)");
    }
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        use std::io::Read as _;
        let mut buf = [0u8; 256];
        let mut stdin = std::io::stdin();
        loop {
            match stdin.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    if tx.send(buf[..n].to_vec()).is_err() {
                        break;
                    }
                }
            }
        }
    });
    let (path, baud) = (a.port.clone(), a.baud);
    let mut reopen = move || -> Option<Box<dyn console::Port>> {
        console::open(&path, baud)
            .ok()
            .map(|p| Box::new(p) as Box<dyn console::Port>)
    };
    let settings = console::Interactive {
        deadline: t.limit.map(|l| t.started + l),
        until_end: a.until_end,
        input: rx,
        reopen: &mut reopen,
    };
    let out = console::interactive(Box::new(port), sink, settings, note);
    if t.raw {
        let _ = crossterm::terminal::disable_raw_mode();
    }
    out
}

/// What `console` says and exits with once the session is over.
fn end(
    a: &Args,
    log_path: &Path,
    outcome: Outcome,
    received: &[u8],
    took: Duration,
    limit: Option<Duration>,
) -> Result<(), Fail> {
    let name = log_path.display().to_string();
    esay!(
        "\nconsole: {} B received in {:.1} s, appended to {name}",
        received.len(),
        took.as_secs_f64()
    );
    let parsed = log::parse(received);
    let has_run = parsed.start_line.is_some();
    let lead = || {
        let lead = why::lead(&parsed);
        if !lead.is_empty() {
            say_raw!("{lead}");
        }
    };
    match outcome {
        Outcome::Ended => {
            let verdict = log::verdict(&parsed, &name);
            if a.boot.is_none() && !a.until_end {
                return report::of_bytes(&name, received);
            }
            match verdict {
                None => {
                    say!("the run passed (the tables: cargo host report {name})");
                    Ok(())
                }
                Some(v) => {
                    lead();
                    Err(Fail(1, v.sentence))
                }
            }
        }
        Outcome::Quit if has_run => report::of_bytes(&name, received).or_else(|f| {
            // An unfinished run is no error of the terminal's.
            esay!("{}", f.1);
            Ok(())
        }),
        Outcome::Quit => Ok(()),
        Outcome::CommandFailed {
            command,
            status,
            lines,
        } => Err(command_failed(&command, status, &lines)),
        Outcome::NoPrompt(why) => Err(Fail(1, format!("no U-Boot prompt: {why}"))),
        Outcome::BootedBefore(why) => Err(Fail(3, format!("no prompt: {why}."))),
        Outcome::SendFailed(why) => Err(Fail(1, why)),
        Outcome::Closed(why) => {
            if has_run {
                lead();
            }
            Err(Fail(1, format!("the port {} closed: {why}.", a.port)))
        }
        Outcome::Timeout(why) => {
            if has_run {
                lead();
            }
            let s = limit.map_or(0.0, |l| l.as_secs_f64());
            Err(Fail(124, format!("time limit of {s} s reached: {why}.")))
        }
    }
}

/// A boot script's line that failed: its status, U-Boot's words and what they mean.
fn command_failed(command: &Command, status: Option<u32>, lines: &[String]) -> Fail {
    let status = status.map_or(String::new(), |s| format!(" (status {s})"));
    let mut said = format!(
        "line {} of the boot script failed{status}: {}",
        command.line, command.text
    );
    for l in lines {
        said.push_str(&format!("\n  U-Boot: {l}"));
    }
    for w in console::explain(lines) {
        said.push_str(&format!("\n  {w}"));
    }
    Fail(1, said)
}
