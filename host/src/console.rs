//! `cargo host console`: a board's serial console, typed into by a person (interactive) or by
//! a U-Boot boot script (`--boot FILE`), kept in a log as it arrives.
//!
//! The scripted session ([`boot`]) stops U-Boot's autoboot (or, when the board already sits at
//! its prompt, gets one with a CR after a quiet moment), learns the prompt the board prints,
//! then types the script's commands one at a time. A command that returns is typed with
//! `; echo @@mbrc=$?` after it: U-Boot's hush shell expands `$?` to the command's status, so
//! the line `@@mbrc=0` says it worked and any other number that it failed (checked against
//! Debian's U-Boot 2023.01 for QEMU: `false; echo @@mbrc=$?` prints `@@mbrc=1`, an unknown
//! command or a failed `load` too). A U-Boot without hush prints `@@mbrc=$?` as is: then the
//! error lines U-Boot is known to print decide ([`ERRORS`]). A command that does not return
//! when it works (`booti`, `bootm`, `bootefi`, `go`, ...) is typed alone and is judged by
//! what comes next: the firmware's start record, or U-Boot's prompt again (it failed).
//! A `loady` line with a file to send (`--send`) hands the port to the YMODEM sender
//! ([`ymodem`]) once U-Boot says it is ready, then checks U-Boot's `$?` and "## Total Size".
//! Each command is typed a character at a time, each waiting for its echo (at most
//! [`ECHO_WAIT`]), so that a board's receive FIFO never overflows.
//!
//! Nothing here ever waits without a bound: every wait ends at the session's deadline.

use crate::read::log;
use crate::ymodem;
use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::time::{Duration, Instant};

/// A serial line: what [`boot`] and [`interactive`] read and write.
pub trait Port {
    /// Reads what arrives within `timeout` into `buf`: `Ok(0)` when nothing did; an error
    /// when the port is gone (end of file, the adapter unplugged).
    fn recv(&mut self, buf: &mut [u8], timeout: Duration) -> io::Result<usize>;
    /// Writes all of `bytes`.
    fn send(&mut self, bytes: &[u8]) -> io::Result<()>;
}

impl Port for Box<dyn serialport::SerialPort> {
    fn recv(&mut self, buf: &mut [u8], timeout: Duration) -> io::Result<usize> {
        self.set_timeout(timeout.max(Duration::from_millis(1)))?;
        match io::Read::read(self, buf) {
            Ok(0) => Err(io::Error::new(io::ErrorKind::UnexpectedEof, "end of file")),
            Ok(n) => Ok(n),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
                ) =>
            {
                Ok(0)
            }
            Err(e) => Err(e),
        }
    }

    fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        io::Write::write_all(self, bytes)?;
        io::Write::flush(self)
    }
}

/// Opens a serial port (or a pseudo-terminal) at `baud`, 8N1.
pub fn open(path: &str, baud: u32) -> Result<Box<dyn serialport::SerialPort>, String> {
    serialport::new(path, baud)
        .timeout(Duration::from_millis(100))
        .open()
        .map_err(|e| format!("cannot open serial port {path}: {e}."))
}

/// What a line ends with when U-Boot ran a command typed with it: `@@mbrc=<status>`.
pub const MARKER: &str = "@@mbrc=";
/// The text U-Boot prints while it counts down to booting.
pub const AUTOBOOT: &str = "Hit any key to stop autoboot";
/// How long each typed character waits for its echo before the next is sent.
pub const ECHO_WAIT: Duration = Duration::from_millis(500);
/// The quiet time after which a board that said nothing is sent a CR to get a prompt.
pub const QUIET: Duration = Duration::from_millis(1500);
/// The quiet time after which the text after the last line feed is taken for the prompt.
const PROMPT_QUIET: Duration = Duration::from_millis(300);
/// CRs sent to get a prompt before giving up.
const PROMPT_TRIES: u32 = 4;
/// The default time limit of a session that waits for the end record (seconds).
pub const DEFAULT_TIMEOUT_S: u64 = 600;

/// U-Boot's own error lines that a person loading and booting an image meets (from U-Boot's
/// source: fs/fs.c, cmd/booti.c, boot/bootm.c, boot/image-fdt.c, common/command.c,
/// disk/part.c, cmd/nvedit.c), each with what it means in plain words.
pub const ERRORS: &[(&str, &str)] = &[
    ("Wrong Image Format for", "U-Boot does not recognise the image at that address: bootm wants a uImage or FIT (mkimage), booti a raw arm64 Image (llvm-objcopy -O binary), bootefi a PE/COFF EFI application"),
    ("Reading file would overwrite reserved memory", "the load address lies in memory U-Boot reserved (U-Boot itself, its stack, its device tree or a no-map region): load to ${kernel_addr_r}, or another address `bdinfo` shows as free RAM"),
    ("Bad Linux ARM64 Image magic", "no arm64 Image at the address given to booti: the load failed or went elsewhere, or the file is an ELF or uImage, not the raw Image (llvm-objcopy -O binary)"),
    ("Bad Magic Number", "no uImage at the address given to bootm (make one with mkimage, or use booti for a raw Image)"),
    ("Unknown command", "this U-Boot has no such command (built without it, or mistyped): `help` lists the ones it has"),
    ("Failed to load", "the file could not be read: `ls <interface> <dev>:<part>` lists what the partition holds (names are case-sensitive on ext4)"),
    ("Unable to read file", "the file is not on that partition, or cannot be read: check its name with `ls <interface> <dev>:<part>`"),
    ("File not found", "the file is not on that partition: check its name with `ls <interface> <dev>:<part>`"),
    ("Bad device specification", "no such device: scan first (`virtio scan`, `mmc list`, `usb start`, `scsi scan`), then check the device number"),
    ("Couldn't find partition", "no such device or partition: check `<dev>:<part>` (e.g. mmc 0:1) with `part list <interface> <dev>`"),
    ("Can't set block device", "the device or partition could not be opened (see the line above)"),
    ("Unrecognized filesystem type", "the partition holds no file system U-Boot reads (FAT or ext2/3/4 are the usual ones)"),
    ("No partition table", "the device has no partition table U-Boot knows (MBR or GPT)"),
    ("Did not find a cmdline Flattened Device Tree", "no device tree at the address given: use ${fdtcontroladdr} (the one U-Boot runs on) or load the board's .dtb to ${fdt_addr_r}"),
    ("Could not find a valid device tree", "no device tree at the address given: use ${fdtcontroladdr} or load the board's .dtb to ${fdt_addr_r}"),
    ("image is not a fdt", "the device tree address holds no device tree blob"),
    ("kernel_comp_addr_r or kernel_comp_size is not provided", "booti was given a compressed Image: use the uncompressed Image"),
    ("not defined", "a variable the command uses is not set on this board (`printenv` lists them)"),
    ("Usage:", "the command's arguments were wrong: U-Boot printed its usage above"),
    ("syntax error", "U-Boot's shell could not parse the line (quotes? an unclosed if?)"),
    ("Error: Bad gzipped data", "the image is not gzip data (booti and bootm take the raw Image unless told otherwise)"),
    ("## Error", "U-Boot reported an error (quoted above)"),
];

/// The first command word of the script lines that do not come back when they work.
const NO_RETURN: &[&str] = &[
    "booti", "bootm", "bootz", "bootefi", "go", "boot", "bootd", "bootflow", "reset", "poweroff",
];

/// A command of a boot script, with its line number.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// 1-based line in the script file.
    pub line: usize,
    /// The command as typed.
    pub text: String,
}

impl Command {
    /// Whether the command does not return when it works (its first word is in [`NO_RETURN`]).
    pub fn no_return(&self) -> bool {
        let first = self.text.split_whitespace().next().unwrap_or("");
        NO_RETURN.contains(&first)
    }

    /// Whether the command is U-Boot's YMODEM receiver (`loady`).
    pub fn loady(&self) -> bool {
        self.text.split_whitespace().next() == Some("loady")
    }
}

/// The commands of a U-Boot script: one per line; blank lines and lines starting with `#`
/// are skipped; CR LF line ends are fine. A line longer than U-Boot's usual console buffer
/// (256 B with the marker), or with a byte that is not printable ASCII, is an error naming
/// its line.
pub fn script(text: &str) -> Result<Vec<Command>, String> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        if let Some(c) = line
            .chars()
            .find(|c| !(' '..='~').contains(c) && *c != '\t')
        {
            return Err(format!(
                "line {}: {c:?} is not printable ASCII (U-Boot's console takes ASCII).",
                i + 1
            ));
        }
        if line.len() + MARKER.len() + 12 > 256 {
            return Err(format!(
                "line {}: {} characters is too long for U-Boot's console buffer (at most {}).",
                i + 1,
                line.len(),
                256 - MARKER.len() - 12
            ));
        }
        out.push(Command {
            line: i + 1,
            text: line.trim_end_matches(';').trim_end().replace('\t', " "),
        });
    }
    if out.is_empty() {
        return Err("the boot script holds no command (only blank and # lines).".into());
    }
    Ok(out)
}

/// The plain words for each known U-Boot error line among `lines`.
pub fn explain(lines: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    for l in lines {
        if let Some((_, words)) = ERRORS.iter().find(|(pat, _)| l.contains(pat)) {
            let said = format!("U-Boot said {:?}: {words}", l.trim());
            if !out.contains(&said) {
                out.push(said);
            }
        }
    }
    out
}

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

/// What the session writes to: the log file (every byte, flushed as it comes) and the screen.
pub struct Sink {
    log: Box<dyn Write>,
    screen: Box<dyn Write>,
    /// Every byte this session received (the log may hold earlier sessions too).
    pub received: Vec<u8>,
}

impl Sink {
    /// Appends to the log file at `path` (created when missing); the screen is stdout.
    pub fn append(path: &Path) -> Result<Sink, String> {
        let file = File::options()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("cannot open the log {}: {e}.", path.display()))?;
        Ok(Sink::new(Box::new(file), Box::new(io::stdout())))
    }

    /// A sink over any two writers.
    pub fn new(log: Box<dyn Write>, screen: Box<dyn Write>) -> Sink {
        Sink {
            log,
            screen,
            received: Vec::new(),
        }
    }

    fn put(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.log
            .write_all(bytes)
            .and_then(|()| self.log.flush())
            .map_err(|e| format!("cannot write the console log: {e}."))?;
        let _ = self
            .screen
            .write_all(bytes)
            .and_then(|()| self.screen.flush());
        self.received.extend_from_slice(bytes);
        Ok(())
    }
}

/// The settings of a scripted session.
pub struct Options {
    /// When everything ends.
    pub deadline: Instant,
    /// The upload for a `loady` line: the file's name and contents.
    pub send: Option<(String, Vec<u8>)>,
    /// Quiet time before a CR is sent to get a prompt ([`QUIET`]).
    pub quiet: Duration,
}

/// Why waiting stopped short of what it waited for.
enum Stop {
    Timeout,
    Closed(String),
    Log(String),
}

/// The reading side of a session: lines so far, the line being received, the records seen.
struct Reader<'p> {
    port: &'p mut dyn Port,
    sink: Sink,
    deadline: Instant,
    /// Complete lines (CR and ANSI escapes removed) since the session began.
    lines: Vec<String>,
    /// The line being received.
    partial: Vec<u8>,
    /// Bytes received when the partial line began.
    partial_from: usize,
    /// Bytes received so far.
    count: usize,
    /// When the last byte arrived.
    last_byte: Instant,
    started: bool,
    ended: bool,
    /// A record other than `start` arrived before any start record: the run began before
    /// the console attached.
    missed: bool,
}

impl<'p> Reader<'p> {
    fn new(port: &'p mut dyn Port, sink: Sink, deadline: Instant) -> Self {
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
    fn pump(&mut self, for_at_most: Duration) -> Result<bool, Stop> {
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
    fn partial_text(&self) -> String {
        clean(&self.partial)
    }

    /// The last line received that is not blank, the one being received included.
    fn last_line(&self) -> Option<String> {
        self.lines
            .iter()
            .rev()
            .chain(std::iter::once(&self.partial_text()))
            .find(|l| !l.trim().is_empty())
            .cloned()
    }

    fn send(&mut self, bytes: &[u8]) -> Result<(), Stop> {
        self.port
            .send(bytes)
            .map_err(|e| Stop::Closed(format!("writing failed: {e}")))
    }

    /// Reads until `done` holds, the deadline, or the port closes.
    fn until(&mut self, mut done: impl FnMut(&Self) -> bool) -> Result<(), Stop> {
        while !done(self) {
            self.pump(Duration::from_millis(100))?;
        }
        Ok(())
    }

    /// Types `text` a character at a time, each waiting for its echo (at most [`ECHO_WAIT`]),
    /// then a CR.
    fn type_line(&mut self, text: &str) -> Result<(), Stop> {
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

/// Whether `bytes` look like a wrong baud rate: mostly neither text nor line ends.
pub fn garbage(bytes: &[u8]) -> bool {
    if bytes.len() < 64 {
        return false;
    }
    let bad = bytes
        .iter()
        .filter(|&&b| b >= 0x80 || (b < 0x20 && !matches!(b, b'\r' | b'\n' | b'\t' | 8 | 0x1b)))
        .count();
    bad * 10 > bytes.len() * 3
}

/// Runs a boot script on `port`: reaches U-Boot's prompt, types `commands`, then keeps the
/// console in `sink` until the end record. Progress notes go to `note` (standard error).
pub fn boot(
    port: &mut dyn Port,
    sink: Sink,
    commands: &[Command],
    opts: &mut Options,
    note: &mut dyn FnMut(&str),
) -> (Outcome, Sink) {
    let mut r = Reader::new(port, sink, opts.deadline);
    let outcome = match session(&mut r, commands, opts, note) {
        Ok(o) => o,
        Err(Stop::Timeout) => Outcome::Timeout(where_timed_out(&r)),
        Err(Stop::Closed(why)) => Outcome::Closed(why),
        Err(Stop::Log(why)) => Outcome::Closed(why),
    };
    (outcome, r.sink)
}

fn where_timed_out(r: &Reader) -> String {
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

fn session(
    r: &mut Reader,
    commands: &[Command],
    opts: &mut Options,
    note: &mut dyn FnMut(&str),
) -> Result<Outcome, Stop> {
    let prompt = match prompt(r, opts.quiet, note) {
        Ok(p) => p,
        // The board ran on while the console looked for a prompt and then went away.
        Err(Stop::Closed(_) | Stop::Timeout) if r.missed => return Ok(booted_before(r)),
        Err(stop) => return Err(stop),
    };
    let prompt = match prompt {
        Ok(Some(p)) => p,
        Ok(None) => {
            note("the firmware is already running: the boot script is not typed");
            return log_to_end(r);
        }
        Err(o) => return Ok(o),
    };
    note(&format!("U-Boot's prompt is {prompt:?}"));
    for (i, c) in commands.iter().enumerate() {
        if r.started {
            note(&format!(
                "the firmware started: {} command(s) left untyped",
                commands.len() - i
            ));
            break;
        }
        note(&format!("line {}: {}", c.line, c.text));
        if let Some(failed) = command(r, c, &prompt, opts, note)? {
            return Ok(failed);
        }
    }
    log_to_end(r)
}

/// Reaches the prompt: `Ok(Ok(Some(prompt)))`, `Ok(Ok(None))` when the firmware is already
/// running, `Ok(Err(outcome))` when no prompt can be had.
fn prompt(
    r: &mut Reader,
    quiet: Duration,
    note: &mut dyn FnMut(&str),
) -> Result<Result<Option<String>, Outcome>, Stop> {
    let quiet = quiet.max(PROMPT_QUIET * 2);
    let mut stopped = false;
    let mut tries = 0;
    let mut sent_at: Option<(usize, Instant)> = None;
    let began = Instant::now();
    loop {
        r.pump(Duration::from_millis(50))?;
        if r.started {
            return Ok(Ok(None));
        }
        if r.missed {
            // Keep the rest of the run, then say what happened, however it ends.
            let _ = r.until(|r| r.ended);
            return Ok(Err(booted_before(r)));
        }
        if garbage(&r.sink.received) {
            return Ok(Err(Outcome::NoPrompt(format!(
                "the port receives garbage ({} B, mostly not text): is the baud rate right?",
                r.sink.received.len()
            ))));
        }
        let text = r.partial_text();
        let counting = text.contains(AUTOBOOT)
            || r.lines.iter().rev().take(3).any(|l| l.contains(AUTOBOOT))
            || r.partial.windows(3).any(|w| w == b"\x08\x08\x08");
        if counting && !stopped {
            r.send(b" ")?;
            note("autoboot stopped");
            stopped = true;
            sent_at = Some((r.count, Instant::now()));
            continue;
        }
        let quiet_for = r.last_byte.elapsed().min(began.elapsed());
        if let Some((at, _)) = sent_at {
            let candidate = r.partial_text();
            if r.partial_from >= at
                && !candidate.trim().is_empty()
                && candidate.len() <= 40
                && quiet_for >= PROMPT_QUIET
                && !candidate.contains(AUTOBOOT)
            {
                return Ok(Ok(Some(candidate)));
            }
        }
        let since_sent = sent_at.map_or(began.elapsed(), |(_, t)| t.elapsed());
        if quiet_for >= quiet && since_sent >= quiet {
            if tries == PROMPT_TRIES {
                let seen = r.sink.received.len();
                let last = r.last_line();
                return Ok(Err(Outcome::NoPrompt(match (seen, last) {
                    (0, _) => format!(
                        "the board said nothing, not even to {PROMPT_TRIES} CRs: is it powered, is this its port, are TX and RX crossed?"
                    ),
                    (_, Some(l)) => format!(
                        "no U-Boot prompt after {PROMPT_TRIES} CRs (the last line: {:?}): is the board in U-Boot?",
                        l.trim()
                    ),
                    (_, None) => format!("no U-Boot prompt after {PROMPT_TRIES} CRs: is the board in U-Boot?"),
                })));
            }
            tries += 1;
            r.send(b"\r")?;
            sent_at = Some((r.count, Instant::now()));
        }
    }
}

/// Types one command and judges it: `Ok(Some(outcome))` when it failed.
fn command(
    r: &mut Reader,
    c: &Command,
    prompt: &str,
    opts: &mut Options,
    note: &mut dyn FnMut(&str),
) -> Result<Option<Outcome>, Stop> {
    let at_prompt = |r: &Reader, from: usize| r.partial_from > from && r.partial_text() == prompt;
    let first_line = r.lines.len();
    if c.no_return() {
        r.type_line(&c.text)?;
        let sent = r.count;
        r.until(|r| r.started || at_prompt(r, sent))?;
        if r.started {
            return Ok(None);
        }
        let lines = said(&r.lines[first_line..], &c.text);
        return Ok(Some(Outcome::CommandFailed {
            command: c.clone(),
            status: None,
            lines,
        }));
    }
    r.type_line(&format!("{}; echo {MARKER}$?", c.text))?;
    let sent = r.count;
    let mut expected = None;
    if c.loady() {
        if let Some((name, data)) = opts.send.take() {
            if let Some(o) = upload(r, &name, &data, note)? {
                return Ok(Some(o));
            }
            expected = Some((name, data.len()));
        }
    }
    let mut status: Option<Option<u32>> = None;
    r.until(|r| {
        if status.is_none() {
            status = r.lines[first_line..].iter().find_map(|l| {
                let rest = l.trim().strip_prefix(MARKER)?;
                Some(rest.parse::<u32>().ok())
            });
        }
        r.started || (status.is_some() && at_prompt(r, sent))
    })?;
    if r.started {
        return Ok(None);
    }
    let lines = said(&r.lines[first_line..], &c.text);
    let failed = match status.flatten() {
        Some(s) => s != 0,
        // No hush: `$?` was not expanded; U-Boot's known error lines decide.
        None => !explain(&lines).is_empty(),
    };
    if failed {
        return Ok(Some(Outcome::CommandFailed {
            command: c.clone(),
            status: status.flatten(),
            lines,
        }));
    }
    if let Some((name, size)) = expected {
        match total_size(&lines) {
            Some(got) if got == size => note(&format!("U-Boot received {got} B")),
            Some(got) => {
                return Ok(Some(Outcome::SendFailed(format!(
                    "U-Boot's loady received {got} B of {name}, not its {size} B."
                ))))
            }
            None => note("U-Boot printed no \"## Total Size\" line after loady"),
        }
    }
    Ok(None)
}

/// What U-Boot printed for a command: `lines` without the echo of the typed line, the marker
/// line and blank lines.
fn said(lines: &[String], typed: &str) -> Vec<String> {
    lines
        .iter()
        .filter(|l| !l.trim().is_empty() && !l.contains(typed) && !l.trim().starts_with(MARKER))
        .cloned()
        .collect()
}

/// The YMODEM upload after a `loady` line: waits for U-Boot's "Ready for binary (ymodem)
/// download" line, hands the port to the sender ([`ymodem::send_with`], which waits for the
/// receiver's 'C'), shows a progress bar on standard error and the final rate. `Ok(None)` when
/// the file went through (U-Boot's `$?` and "## Total Size" line are checked after it).
fn upload(
    r: &mut Reader,
    name: &str,
    data: &[u8],
    note: &mut dyn FnMut(&str),
) -> Result<Option<Outcome>, Stop> {
    let from = r.lines.len();
    r.until(|r| {
        r.lines[from..]
            .iter()
            .any(|l| l.contains("Ready for binary"))
    })?;
    let left = r.deadline.saturating_duration_since(Instant::now());
    let options = ymodem::Options {
        start_timeout: left.min(ymodem::Options::default().start_timeout),
        ..ymodem::Options::default()
    };
    // What arrived after the "Ready" line (its first 'C's) goes to the sender first.
    let pending: std::collections::VecDeque<u8> = r.partial.drain(..).collect();
    r.partial_from = r.count;
    let mut wire = Wire {
        port: &mut *r.port,
        pending,
    };
    let mut shown = 0usize;
    let mut bar = |p: ymodem::Progress| {
        if p.sent == shown && p.sent != 0 {
            return;
        }
        shown = p.sent;
        eprint!("\r{}", progress_bar(p.sent, p.total, p.elapsed));
    };
    let sent = ymodem::send_with(&mut wire, name, data, &options, &mut bar);
    eprintln!();
    match sent {
        Ok(s) => {
            note(&format!(
                "sent {name}: {} B in {:.2} s, {:.1} kB/s",
                s.bytes,
                s.elapsed.as_secs_f64(),
                s.rate() / 1000.0
            ));
            Ok(None)
        }
        Err(e) => Ok(Some(Outcome::SendFailed(format!(
            "the YMODEM upload of {name} failed: {e}"
        )))),
    }
}

/// `[#####     ] 120 kB / 241 kB, 34.5 kB/s` (kB = 10^3 B).
pub fn progress_bar(sent: usize, total: usize, elapsed: Duration) -> String {
    const WIDTH: usize = 30;
    let filled = (sent * WIDTH)
        .checked_div(total)
        .unwrap_or(WIDTH)
        .min(WIDTH);
    let secs = elapsed.as_secs_f64();
    let rate = if secs > 0.0 {
        sent as f64 / secs / 1000.0
    } else {
        0.0
    };
    format!(
        "[{}{}] {} kB / {} kB, {rate:.1} kB/s",
        "#".repeat(filled),
        " ".repeat(WIDTH - filled),
        sent / 1000,
        total / 1000
    )
}

/// The port as the YMODEM sender's link, with bytes already received served first.
struct Wire<'a> {
    port: &'a mut dyn Port,
    pending: std::collections::VecDeque<u8>,
}

impl ymodem::Link for Wire<'_> {
    fn read_byte(&mut self, timeout: Duration) -> io::Result<Option<u8>> {
        if let Some(b) = self.pending.pop_front() {
            return Ok(Some(b));
        }
        let mut b = [0u8; 1];
        match self.port.recv(&mut b, timeout)? {
            0 => Ok(None),
            _ => Ok(Some(b[0])),
        }
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.port.send(bytes)
    }
}

/// The size U-Boot's `loady` says it received ("## Total Size      = 0x0003b000 = 241664 Bytes").
pub fn total_size(lines: &[String]) -> Option<usize> {
    lines.iter().find_map(|l| {
        let rest = l.trim().strip_prefix("## Total Size")?;
        rest.rsplit('=')
            .next()?
            .trim()
            .strip_suffix("Bytes")?
            .trim()
            .parse()
            .ok()
    })
}

/// The outcome for a board that booted before the console attached.
fn booted_before(r: &Reader) -> Outcome {
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
fn log_to_end(r: &mut Reader) -> Result<Outcome, Stop> {
    r.until(|r| r.ended)?;
    Ok(Outcome::Ended)
}

/// The escape of the interactive console: Ctrl-] then `q` quits; Ctrl-] twice sends one.
pub const ESCAPE: u8 = 0x1d;

/// What the interactive console does with one byte typed: forward bytes, or quit.
#[derive(Debug, Default)]
pub struct Escape {
    armed: bool,
}

impl Escape {
    /// Feeds one typed byte: the bytes to send to the port, and whether to quit.
    pub fn feed(&mut self, b: u8) -> (Vec<u8>, bool) {
        if self.armed {
            self.armed = false;
            match b {
                b'q' | b'Q' => (Vec::new(), true),
                ESCAPE => (vec![ESCAPE], false),
                other => (vec![ESCAPE, other], false),
            }
        } else if b == ESCAPE {
            self.armed = true;
            (Vec::new(), false)
        } else {
            (vec![b], false)
        }
    }
}

/// The settings of an interactive session.
pub struct Interactive<'a> {
    /// When the session ends, if ever.
    pub deadline: Option<Instant>,
    /// Whether the end record ends the session.
    pub until_end: bool,
    /// Bytes typed (standard input); the channel closes when the input ends.
    pub input: std::sync::mpsc::Receiver<Vec<u8>>,
    /// Opens the port again after it went away (an adapter plugged back).
    pub reopen: &'a mut dyn FnMut() -> Option<Box<dyn Port>>,
}

/// The interactive console: what is typed goes to the port (Ctrl-] q quits), what the port
/// sends to the sink. A port that goes away is reopened when it comes back, and said so.
pub fn interactive(
    mut port: Box<dyn Port>,
    sink: Sink,
    settings: Interactive,
    note: &mut dyn FnMut(&str),
) -> (Outcome, Sink) {
    let far = Instant::now() + Duration::from_secs(100 * 365 * 86_400);
    let deadline = settings.deadline.unwrap_or(far);
    let mut escape = Escape::default();
    let mut input_open = true;
    let mut sink = Some(sink);
    loop {
        let mut r = Reader::new(port.as_mut(), sink.take().expect("sink"), deadline);
        let stop = loop {
            if settings.until_end && r.ended {
                break None;
            }
            match r.pump(Duration::from_millis(20)) {
                Ok(_) => {}
                Err(s) => break Some(s),
            }
            while input_open {
                match settings.input.try_recv() {
                    Ok(bytes) => {
                        for b in bytes {
                            let (out, quit) = escape.feed(b);
                            if quit {
                                return (Outcome::Quit, r.sink);
                            }
                            if let Err(s) = r.send(&out) {
                                return (stop_outcome(s, &r), r.sink);
                            }
                        }
                    }
                    Err(std::sync::mpsc::TryRecvError::Empty) => break,
                    Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                        input_open = false;
                        note("standard input closed: the console keeps logging (Ctrl-C stops it)");
                    }
                }
            }
        };
        let why = match stop {
            None => return (Outcome::Ended, r.sink),
            Some(Stop::Closed(why)) => why,
            Some(s) => return (stop_outcome(s, &r), r.sink),
        };
        sink = Some(r.sink);
        note(&format!(
            "the port went away ({why}); waiting for it to come back (Ctrl-] q quits)"
        ));
        loop {
            if Instant::now() >= deadline {
                return (
                    Outcome::Closed(format!("{why}; it did not come back in time")),
                    sink.take().expect("sink"),
                );
            }
            while let Ok(bytes) = settings.input.try_recv() {
                if bytes.iter().any(|&b| escape.feed(b).1) {
                    return (Outcome::Quit, sink.take().expect("sink"));
                }
            }
            if let Some(p) = (settings.reopen)() {
                port = p;
                note("the port is back: reopened");
                break;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

fn stop_outcome(s: Stop, r: &Reader) -> Outcome {
    match s {
        Stop::Timeout => Outcome::Timeout(where_timed_out(r)),
        Stop::Closed(why) | Stop::Log(why) => Outcome::Closed(why),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;
    use std::sync::{Arc, Mutex};

    /// What the fake U-Boot does with a command line.
    enum Reply {
        /// Prints this and succeeds.
        Ok(&'static str),
        /// Prints this and fails with the status.
        Fail(&'static str, u32),
        /// Starts a firmware that prints this (no prompt afterwards).
        Boot(&'static str),
    }

    /// A scripted U-Boot: autoboot text, prompt, echo, command output, `$?`.
    struct Fake {
        out: VecDeque<u8>,
        typed: Vec<u8>,
        counting: bool,
        hush: bool,
        prompt: &'static str,
        respond: fn(&str) -> Reply,
        history: Arc<Mutex<Vec<String>>>,
        close_when_empty: bool,
        mute: bool,
        /// `loady` running: the bytes of the block being received, and the file so far.
        ymodem: Option<Vec<u8>>,
        file: Arc<Mutex<Vec<u8>>>,
        size: usize,
        /// What the fake's `## Total Size` line says beyond the true size.
        size_error: usize,
    }

    fn fake(respond: fn(&str) -> Reply) -> Fake {
        Fake {
            out: VecDeque::new(),
            typed: Vec::new(),
            counting: false,
            hush: true,
            prompt: "=> ",
            respond,
            history: Arc::default(),
            close_when_empty: false,
            mute: false,
            ymodem: None,
            file: Arc::default(),
            size: 0,
            size_error: 0,
        }
    }

    impl Fake {
        fn autobooting(mut self) -> Self {
            self.out.extend(
                b"U-Boot 2023.01\r\nDRAM:  256 MiB\r\nHit any key to stop autoboot:  5 \x08\x08\x08 4 "
                    .iter(),
            );
            self.counting = true;
            self
        }
        fn print(&mut self, s: &str) {
            self.out.extend(s.bytes());
        }
    }

    impl Port for Fake {
        fn recv(&mut self, buf: &mut [u8], timeout: Duration) -> io::Result<usize> {
            if self.out.is_empty() {
                if self.close_when_empty {
                    return Err(io::Error::new(
                        io::ErrorKind::BrokenPipe,
                        "the line is gone",
                    ));
                }
                std::thread::sleep(timeout.min(Duration::from_millis(10)));
                return Ok(0);
            }
            let n = buf.len().min(self.out.len()).min(7);
            for (i, b) in self.out.drain(..n).enumerate() {
                buf[i] = b;
            }
            Ok(n)
        }

        fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
            if self.mute {
                return Ok(());
            }
            for &b in bytes {
                if self.ymodem.is_some() {
                    self.receive(b);
                    continue;
                }
                if self.counting {
                    self.counting = false;
                    let p = format!("\x08\x08\x08 0 \r\n{}", self.prompt);
                    self.print(&p);
                    continue;
                }
                if b != b'\r' {
                    self.typed.push(b);
                    self.out.push_back(b);
                    continue;
                }
                self.print("\r\n");
                let line = String::from_utf8(std::mem::take(&mut self.typed)).unwrap();
                let suffix = format!("; echo {MARKER}$?");
                let (cmd, marked) = match line.strip_suffix(&suffix) {
                    Some(c) => (c.to_owned(), true),
                    None => (line.clone(), false),
                };
                if cmd.is_empty() {
                    let p = self.prompt;
                    self.print(p);
                    continue;
                }
                self.history.lock().unwrap().push(cmd.clone());
                if cmd.starts_with("loady") {
                    self.print(
                        "## Ready for binary (ymodem) download to 0x40400000 at 115200 bps...\r\nC",
                    );
                    self.ymodem = Some(Vec::new());
                    continue;
                }
                let (text, status) = match (self.respond)(&cmd) {
                    Reply::Ok(t) => (t, 0),
                    Reply::Fail(t, s) => (t, s),
                    Reply::Boot(t) => {
                        self.print(t);
                        continue;
                    }
                };
                self.print(text);
                if marked {
                    let rc = if self.hush {
                        status.to_string()
                    } else {
                        "$?".into()
                    };
                    self.print(&format!("{MARKER}{rc}\r\n"));
                }
                let p = self.prompt;
                self.print(p);
            }
            Ok(())
        }
    }

    impl Fake {
        /// One byte of a YMODEM exchange (U-Boot's loady): blocks ACKed, the header's size
        /// kept, the empty block 0 ends the batch with U-Boot's lines, marker and prompt.
        fn receive(&mut self, b: u8) {
            let block = self.ymodem.as_mut().unwrap();
            block.push(b);
            let len = match block[0] {
                0x04 => {
                    block.clear();
                    self.out.push_back(0x06);
                    self.out.push_back(b'C');
                    return;
                }
                0x01 => 128,
                0x02 => 1024,
                _ => {
                    block.clear();
                    return;
                }
            };
            if block.len() < 3 + len + 2 {
                return;
            }
            let data = block[3..3 + len].to_vec();
            let number = block[1];
            block.clear();
            self.out.push_back(0x06);
            if number != 0 {
                let mut file = self.file.lock().unwrap();
                let take = (self.size - file.len()).min(len);
                file.extend_from_slice(&data[..take]);
            } else if data[0] != 0 {
                let name_end = data.iter().position(|&c| c == 0).unwrap();
                let size_text = &data[name_end + 1..];
                let size_end = size_text.iter().position(|&c| c == 0 || c == b' ').unwrap();
                self.size = std::str::from_utf8(&size_text[..size_end])
                    .unwrap()
                    .parse()
                    .unwrap();
            } else {
                self.ymodem = None;
                let got = self.size + self.size_error;
                self.print(&format!(
                    "## Total Size      = 0x{got:08x} = {got} Bytes\r\n## Start Addr      = 0x40400000\r\n{MARKER}0\r\n"
                ));
                let p = self.prompt;
                self.print(p);
            }
        }
    }

    const RUN: &str = "## Booting\r\n@mb {\"kind\":\"start\",\"schema\":1}\r\nmairbench\r\n\
                       @mb {\"kind\":\"end\",\"status\":\"pass\"}\r\n";

    fn uboot(cmd: &str) -> Reply {
        match cmd.split_whitespace().next().unwrap_or("") {
            "setenv" | "virtio" => Reply::Ok(""),
            "load" if cmd.contains("missing.bin") => Reply::Fail(
                "** Unable to read file missing.bin **\r\nFailed to load 'missing.bin'\r\n",
                1,
            ),
            "load" => Reply::Ok("241664 bytes read in 3 ms (76.8 MiB/s)\r\n"),
            "booti" if cmd.contains("0x0") => Reply::Fail("Bad Linux ARM64 Image magic!\r\n", 1),
            "booti" => Reply::Boot(RUN),
            "hang" => Reply::Boot("## Booting\r\n@mb {\"kind\":\"start\",\"schema\":1}\r\n"),
            _ => Reply::Fail("Unknown command 'x' - try 'help'\r\n", 1),
        }
    }

    const SCRIPT: &str = "# comment\r\n\nsetenv bootargs mairbench.quick\r\n\
                          load virtio 0:1 ${kernel_addr_r} mairbench.bin\n\
                          booti ${kernel_addr_r} - ${fdtcontroladdr}\n";

    fn run(port: &mut dyn Port, text: &str, limit: Duration) -> (Outcome, Vec<u8>, Vec<String>) {
        let commands = script(text).unwrap();
        let sink = Sink::new(Box::new(io::sink()), Box::new(io::sink()));
        let mut opts = Options {
            deadline: Instant::now() + limit,
            send: None,
            quiet: Duration::from_millis(200),
        };
        let mut notes = Vec::new();
        let (o, sink) = boot(port, sink, &commands, &mut opts, &mut |n| {
            notes.push(n.to_owned())
        });
        (o, sink.received, notes)
    }

    #[test]
    fn script_skips_comments_and_blank_lines_and_refuses_bad_lines() {
        let c = script(SCRIPT).unwrap();
        assert_eq!(c.len(), 3);
        assert_eq!(
            c[0],
            Command {
                line: 3,
                text: "setenv bootargs mairbench.quick".into()
            }
        );
        assert!(c[2].no_return() && !c[1].no_return());
        assert!(script("# only\n\n").unwrap_err().contains("no command"));
        assert!(script("echo é\n").unwrap_err().starts_with("line 1:"));
        assert!(script(&"x".repeat(300)).unwrap_err().contains("too long"));
        assert!(script("loady ${kernel_addr_r}\n").unwrap()[0].loady());
    }

    #[test]
    fn autoboot_is_stopped_the_commands_typed_and_the_run_logged_to_its_end() {
        let mut port = fake(uboot).autobooting();
        let history = port.history.clone();
        let (o, received, notes) = run(&mut port, SCRIPT, Duration::from_secs(20));
        assert_eq!(o, Outcome::Ended, "{notes:?}");
        assert_eq!(
            *history.lock().unwrap(),
            [
                "setenv bootargs mairbench.quick",
                "load virtio 0:1 ${kernel_addr_r} mairbench.bin",
                "booti ${kernel_addr_r} - ${fdtcontroladdr}"
            ]
        );
        assert!(notes.iter().any(|n| n == "autoboot stopped"), "{notes:?}");
        assert!(notes.iter().any(|n| n.contains("\"=> \"")), "{notes:?}");
        let text = String::from_utf8_lossy(&received);
        assert!(
            text.contains("Hit any key") && text.ends_with("\"pass\"}\r\n"),
            "{text}"
        );
    }

    #[test]
    fn a_board_already_at_its_prompt_gets_a_cr_and_its_own_prompt_is_learned() {
        let mut port = fake(uboot);
        port.prompt = "ZynqMP> ";
        let (o, _, notes) = run(&mut port, SCRIPT, Duration::from_secs(20));
        assert_eq!(o, Outcome::Ended, "{notes:?}");
        assert!(
            notes.iter().any(|n| n.contains("\"ZynqMP> \"")),
            "{notes:?}"
        );
        assert!(!notes.iter().any(|n| n == "autoboot stopped"), "{notes:?}");
    }

    #[test]
    fn a_failed_command_is_quoted_explained_and_ends_the_session_at_once() {
        let mut port = fake(uboot).autobooting();
        let history = port.history.clone();
        let text = "load virtio 0:1 ${kernel_addr_r} missing.bin\nbooti ${kernel_addr_r}\n";
        let started = Instant::now();
        let (o, _, _) = run(&mut port, text, Duration::from_secs(60));
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
        let Outcome::CommandFailed {
            command,
            status,
            lines,
        } = o
        else {
            panic!("{o:?}")
        };
        assert_eq!(command.line, 1);
        assert_eq!(status, Some(1));
        assert!(
            lines.iter().any(|l| l == "Failed to load 'missing.bin'"),
            "{lines:?}"
        );
        let words = explain(&lines);
        assert!(words[0].contains("not on that partition"), "{words:?}");
        assert_eq!(
            history.lock().unwrap().len(),
            1,
            "booti is not typed after a failure"
        );
    }

    #[test]
    fn booti_that_returns_to_the_prompt_failed() {
        let mut port = fake(uboot).autobooting();
        let (o, _, _) = run(
            &mut port,
            "booti 0x0 - ${fdtcontroladdr}\n",
            Duration::from_secs(20),
        );
        let Outcome::CommandFailed { status, lines, .. } = o else {
            panic!("{o:?}")
        };
        assert_eq!(status, None);
        assert_eq!(lines, ["Bad Linux ARM64 Image magic!"]);
        assert!(explain(&lines)[0].contains("raw Image"));
    }

    #[test]
    fn without_hush_the_known_error_lines_decide() {
        let mut port = fake(uboot).autobooting();
        port.hush = false;
        assert_eq!(
            run(&mut port, SCRIPT, Duration::from_secs(20)).0,
            Outcome::Ended
        );
        let mut port = fake(uboot).autobooting();
        port.hush = false;
        let (o, _, _) = run(&mut port, "nosuch thing\n", Duration::from_secs(20));
        assert!(
            matches!(o, Outcome::CommandFailed { status: None, .. }),
            "{o:?}"
        );
    }

    #[test]
    fn garbage_on_the_line_says_baud() {
        let mut port = fake(uboot);
        port.out
            .extend((0..400u32).map(|i| (0x80 + i % 0x7f) as u8));
        let (o, _, _) = run(&mut port, SCRIPT, Duration::from_secs(20));
        let Outcome::NoPrompt(why) = o else {
            panic!("{o:?}")
        };
        assert!(why.contains("baud"), "{why}");
    }

    #[test]
    fn a_silent_board_is_named_and_a_closed_port_reported() {
        let mut port = fake(uboot);
        port.mute = true;
        let started = Instant::now();
        let (o, _, _) = run(&mut port, SCRIPT, Duration::from_secs(30));
        let Outcome::NoPrompt(why) = o else {
            panic!("{o:?}")
        };
        assert!(why.contains("said nothing"), "{why}");
        assert!(started.elapsed() < Duration::from_secs(10));
        let mut port = fake(uboot);
        port.print("U-Boot 2023.01\r\n");
        port.close_when_empty = true;
        let (o, received, _) = run(&mut port, SCRIPT, Duration::from_secs(30));
        assert_eq!(o, Outcome::Closed("the line is gone".into()));
        assert_eq!(received, b"U-Boot 2023.01\r\n");
    }

    #[test]
    fn a_board_that_booted_before_the_console_attached_is_named() {
        // The stand-in board's case: attached after its autoboot, the console reads the end
        // of a run (records, no start record) and then the line goes away.
        for end in [true, false] {
            let mut port = fake(uboot);
            port.print("@mb {\"kind\":\"result\",\"kernel\":\"read-ldp\"}\r\n");
            if end {
                port.print("@mb {\"kind\":\"end\",\"status\":\"pass\"}\r\n");
            }
            port.close_when_empty = true;
            let (o, received, notes) = run(&mut port, SCRIPT, Duration::from_secs(30));
            let Outcome::BootedBefore(why) = o else {
                panic!("{o:?}")
            };
            assert!(
                why.starts_with("the board booted before the console attached")
                    && why.contains(if end {
                        "its end record arrived"
                    } else {
                        "no end record"
                    })
                    && why.contains("MAIRBENCH_BOOTDELAY"),
                "{why}"
            );
            assert!(received.starts_with(b"@mb {"), "what was read is kept");
            assert!(
                !notes.iter().any(|n| n.starts_with("line ")),
                "nothing typed: {notes:?}"
            );
        }
    }

    #[test]
    fn a_firmware_without_an_end_record_times_out_naming_where() {
        let mut port = fake(uboot).autobooting();
        let started = Instant::now();
        let (o, _, _) = run(&mut port, "hang\n", Duration::from_secs(3));
        let Outcome::Timeout(why) = o else {
            panic!("{o:?}")
        };
        assert!(why.contains("started but sent no end record"), "{why}");
        assert!(started.elapsed() < Duration::from_secs(6));
    }

    #[test]
    fn a_running_firmware_is_logged_without_typing() {
        let mut port = fake(uboot);
        port.print(RUN);
        let history = port.history.clone();
        let (o, _, _) = run(&mut port, SCRIPT, Duration::from_secs(20));
        assert_eq!(o, Outcome::Ended);
        assert!(history.lock().unwrap().is_empty());
    }

    #[test]
    fn escape_quits_and_doubles() {
        let mut e = Escape::default();
        assert_eq!(e.feed(b'a'), (vec![b'a'], false));
        assert_eq!(e.feed(ESCAPE), (vec![], false));
        assert_eq!(e.feed(ESCAPE), (vec![ESCAPE], false));
        assert_eq!(e.feed(ESCAPE), (vec![], false));
        assert_eq!(e.feed(b'x'), (vec![ESCAPE, b'x'], false));
        assert_eq!(e.feed(ESCAPE), (vec![], false));
        assert_eq!(e.feed(b'q'), (vec![], true));
    }

    /// A port that records what was sent into a shared buffer.
    struct Shared(Fake, Arc<Mutex<Vec<u8>>>);
    impl Port for Shared {
        fn recv(&mut self, buf: &mut [u8], timeout: Duration) -> io::Result<usize> {
            self.0.recv(buf, timeout)
        }
        fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
            self.1.lock().unwrap().extend_from_slice(bytes);
            self.0.send(bytes)
        }
    }

    #[test]
    fn interactive_forwards_typing_reopens_a_port_and_quits_on_the_escape() {
        let sent = Arc::new(Mutex::new(Vec::new()));
        let mut first = fake(uboot);
        first.print("=> ");
        first.close_when_empty = true;
        let (tx, rx) = std::sync::mpsc::channel();
        let mut reopened = 0;
        let again = sent.clone();
        let mut reopen = move || -> Option<Box<dyn Port>> {
            reopened += 1;
            (reopened >= 2).then(|| Box::new(Shared(fake(uboot), again.clone())) as Box<dyn Port>)
        };
        let settings = Interactive {
            deadline: Some(Instant::now() + Duration::from_secs(20)),
            until_end: false,
            input: rx,
            reopen: &mut reopen,
        };
        let notes = Arc::new(Mutex::new(Vec::<String>::new()));
        let seen = notes.clone();
        let typist = std::thread::spawn(move || {
            while !seen.lock().unwrap().iter().any(|n| n.contains("is back")) {
                std::thread::sleep(Duration::from_millis(20));
            }
            tx.send(b"setenv a b\r".to_vec()).unwrap();
            std::thread::sleep(Duration::from_millis(200));
            tx.send(vec![ESCAPE, b'q', b'x']).unwrap();
        });
        let log = Arc::new(Mutex::new(Vec::new()));
        let sink = Sink::new(Box::new(SharedWrite(log.clone())), Box::new(io::sink()));
        let (o, sink) = interactive(
            Box::new(Shared(first, sent.clone())),
            sink,
            settings,
            &mut |n| notes.lock().unwrap().push(n.to_owned()),
        );
        typist.join().unwrap();
        assert_eq!(o, Outcome::Quit, "{:?}", notes.lock().unwrap());
        assert_eq!(
            &*sent.lock().unwrap(),
            b"setenv a b\r",
            "{:?}",
            notes.lock().unwrap()
        );
        let notes = notes.lock().unwrap();
        assert!(
            notes[0].contains("went away (the line is gone)"),
            "{notes:?}"
        );
        let logged = log.lock().unwrap().clone();
        assert!(
            logged.starts_with(b"=> setenv a b\r\n=> "),
            "{:?}",
            String::from_utf8_lossy(&logged)
        );
        assert_eq!(sink.received, logged);
    }

    struct SharedWrite(Arc<Mutex<Vec<u8>>>);
    impl Write for SharedWrite {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    fn upload(size_error: usize) -> (Outcome, Vec<u8>, Vec<u8>, Vec<String>) {
        let mut port = fake(uboot).autobooting();
        port.size_error = size_error;
        let file = port.file.clone();
        let data: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
        let commands =
            script("loady ${kernel_addr_r}\nbooti ${kernel_addr_r} - ${fdtcontroladdr}\n").unwrap();
        let sink = Sink::new(Box::new(io::sink()), Box::new(io::sink()));
        let mut opts = Options {
            deadline: Instant::now() + Duration::from_secs(30),
            send: Some(("mairbench.bin".into(), data.clone())),
            quiet: Duration::from_millis(200),
        };
        let mut notes = Vec::new();
        let (o, _) = boot(&mut port, sink, &commands, &mut opts, &mut |n| {
            notes.push(n.to_owned())
        });
        let got = file.lock().unwrap().clone();
        (o, data, got, notes)
    }

    #[test]
    fn loady_gets_the_file_over_ymodem_and_its_size_is_checked() {
        let (o, data, got, notes) = upload(0);
        assert_eq!(o, Outcome::Ended, "{notes:?}");
        assert_eq!(got, data);
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("sent mairbench.bin: 5000 B in ")),
            "{notes:?}"
        );
        assert!(
            notes.iter().any(|n| n == "U-Boot received 5000 B"),
            "{notes:?}"
        );
        let (o, ..) = upload(1);
        assert_eq!(
            o,
            Outcome::SendFailed(
                "U-Boot's loady received 5001 B of mairbench.bin, not its 5000 B.".into()
            )
        );
    }

    #[test]
    fn progress_bar_says_its_units() {
        assert_eq!(
            progress_bar(120_000, 241_000, Duration::from_secs(4)),
            "[##############                ] 120 kB / 241 kB, 30.0 kB/s"
        );
        assert_eq!(
            progress_bar(0, 0, Duration::ZERO),
            format!("[{}] 0 kB / 0 kB, 0.0 kB/s", "#".repeat(30))
        );
        assert_eq!(
            total_size(&["## Total Size      = 0x0003b000 = 241664 Bytes".into()]),
            Some(241_664)
        );
        assert_eq!(total_size(&["## Total Size = garbage".into()]), None);
    }
}
