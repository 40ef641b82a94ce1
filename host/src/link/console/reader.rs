//! The reading side of a session: the lines received so far (cleaned), the line being
//! received, the records seen (start, end, one before any start), and how a session ended.

use super::port::{Port, Sink};
use super::uboot::{Command, ECHO_WAIT};
use crate::read::log;
use std::time::{Duration, Instant};

/// How a session ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// The firmware's end record arrived (the log holds a run).
    Ended,
    /// The person quit (interactive).
    Quit,
    /// A command of the boot script failed.
    CommandFailed {
        /// The command.
        command: Command,
        /// Its exit status, when U-Boot said it.
        status: Option<u32>,
        /// What U-Boot printed for it.
        lines: Vec<String>,
    },
    /// No U-Boot prompt could be had; the sentence says what was seen.
    NoPrompt(String),
    /// The time limit passed; the sentence says where the session was.
    Timeout(String),
    /// The port closed or failed.
    Closed(String),
    /// The upload (`--send`) failed.
    SendFailed(String),
    /// The board had booted before the console attached: records came without their start
    /// record, so no prompt will come (what arrived is kept, to the end record if it came).
    BootedBefore(String),
}

/// Why waiting stopped short of what it waited for.
pub(super) enum Stop {
    Timeout,
    Closed(String),
    Log(String),
}

/// The reading side of a session: lines so far, the line being received, the records seen.
pub(super) struct Reader<'p> {
    pub(super) port: &'p mut dyn Port,
    pub(super) sink: Sink,
    pub(super) deadline: Instant,
    /// Complete lines (CR and ANSI escapes removed) since the session began.
    pub(super) lines: Vec<String>,
    /// The line being received.
    pub(super) partial: Vec<u8>,
    /// Bytes received when the partial line began.
    pub(super) partial_from: usize,
    /// Bytes received so far.
    pub(super) count: usize,
    /// When the last byte arrived.
    pub(super) last_byte: Instant,
    pub(super) started: bool,
    pub(super) ended: bool,
    /// A record other than `start` arrived before any start record: the run began before
    /// the console attached.
    pub(super) missed: bool,
}

impl<'p> Reader<'p> {
    pub(super) fn new(port: &'p mut dyn Port, sink: Sink, deadline: Instant) -> Self {
        Reader {
            port,
            sink,
            deadline,
            lines: Vec::new(),
            partial: Vec::new(),
            partial_from: 0,
            count: 0,
            last_byte: Instant::now(),
            started: false,
            ended: false,
            missed: false,
        }
    }

    /// Reads for at most `for_at_most` (and never past the deadline); `Ok(true)` when bytes came.
    pub(super) fn pump(&mut self, for_at_most: Duration) -> Result<bool, Stop> {
        let now = Instant::now();
        if now >= self.deadline {
            return Err(Stop::Timeout);
        }
        let wait = for_at_most.min(self.deadline - now);
        let mut buf = [0u8; 4096];
        match self.port.recv(&mut buf, wait) {
            Ok(0) => Ok(false),
            Ok(n) => {
                self.take(&buf[..n]).map_err(Stop::Log)?;
                Ok(true)
            }
            Err(e) => Err(Stop::Closed(e.to_string())),
        }
    }

    fn take(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.sink.put(bytes)?;
        self.last_byte = Instant::now();
        for &b in bytes {
            self.count += 1;
            if b == b'\n' {
                let line = std::mem::take(&mut self.partial);
                self.partial_from = self.count;
                if let Some(Ok(fields)) = log::record(&line) {
                    let kind = fields.get("kind").and_then(|k| k.as_str());
                    self.missed |= !self.started && kind != Some("start");
                    match kind {
                        Some("start") => self.started = true,
                        Some("end") => self.ended = true,
                        _ => {}
                    }
                }
                self.lines.push(clean(&line));
            } else {
                self.partial.push(b);
            }
        }
        Ok(())
    }

    /// The line being received, cleaned.
    pub(super) fn partial_text(&self) -> String {
        clean(&self.partial)
    }

    /// The last line received that is not blank, the one being received included.
    pub(super) fn last_line(&self) -> Option<String> {
        self.lines
            .iter()
            .rev()
            .chain(std::iter::once(&self.partial_text()))
            .find(|l| !l.trim().is_empty())
            .cloned()
    }

    pub(super) fn send(&mut self, bytes: &[u8]) -> Result<(), Stop> {
        self.port
            .send(bytes)
            .map_err(|e| Stop::Closed(format!("writing failed: {e}")))
    }

    /// Reads until `done` holds, the deadline, or the port closes.
    pub(super) fn until(&mut self, mut done: impl FnMut(&Self) -> bool) -> Result<(), Stop> {
        while !done(self) {
            self.pump(Duration::from_millis(100))?;
        }
        Ok(())
    }

    /// Types `text` a character at a time, each waiting for its echo (at most [`ECHO_WAIT`]),
    /// then a CR.
    pub(super) fn type_line(&mut self, text: &str) -> Result<(), Stop> {
        for b in text.bytes() {
            let before = self.count;
            self.send(&[b])?;
            let until = Instant::now() + ECHO_WAIT;
            while self.count == before && Instant::now() < until {
                self.pump(until.saturating_duration_since(Instant::now()))?;
            }
        }
        self.send(b"\r")
    }
}

/// A raw console line as text: CR, backspaces' characters and ANSI escapes removed.
fn clean(raw: &[u8]) -> String {
    let mut out = String::new();
    let text = String::from_utf8_lossy(raw);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' => {}
            '\u{8}' => {
                out.pop();
            }
            '\u{1b}' => {
                if chars.peek() == Some(&'[') {
                    chars.next();
                    for c in chars.by_ref() {
                        if c.is_ascii_alphabetic() {
                            break;
                        }
                    }
                }
            }
            c => out.push(c),
        }
    }
    out
}

pub(super) fn where_timed_out(r: &Reader) -> String {
    let last = r
        .last_line()
        .map(|l| format!("; the last line: {:?}", l.trim()))
        .unwrap_or_else(|| "; nothing was received".into());
    if r.started {
        format!("the firmware started but sent no end record in time{last}")
    } else {
        format!("the time limit passed before the firmware started{last}")
    }
}

/// The outcome for a board that booted before the console attached.
pub(super) fn booted_before(r: &Reader) -> Outcome {
    let end = if r.ended {
        "its end record arrived"
    } else {
        "no end record arrived"
    };
    Outcome::BootedBefore(format!(
        "the board booted before the console attached: its records came without their start \
         record ({end}; the log keeps what was read). Attach first and then power the board \
         on, or attach within its autoboot delay (MAIRBENCH_BOOTDELAY on the stand-in board)"
    ))
}

/// Keeps the console until the end record.
pub(super) fn log_to_end(r: &mut Reader) -> Result<Outcome, Stop> {
    r.until(|r| r.ended)?;
    Ok(Outcome::Ended)
}

pub(super) fn stop_outcome(s: Stop, r: &Reader) -> Outcome {
    match s {
        Stop::Timeout => Outcome::Timeout(where_timed_out(r)),
        Stop::Closed(why) | Stop::Log(why) => Outcome::Closed(why),
    }
}
