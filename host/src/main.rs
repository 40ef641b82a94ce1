//! `cargo host`: the mairbench companion. Runs the firmware in QEMU or captures a board's
//! serial console, then reports (tables, CSV, JSON, SVG charts) or compares two logs.
//!
//! Exit status: 0 ok; 1 the run failed or is truncated (the report is still written);
//! 2 bad usage, an unreadable file, not a mairbench log, or an unknown schema.

use clap::{Parser, Subcommand};
use mairbench_host::read::model::{Run, FIRMWARE_BASELINE, TWIN_BASELINE};
use mairbench_host::read::{log, text};
use mairbench_host::{capture, chart, classify, compare, console, failure, fleet, rejudge, report};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

/// The mairbench host companion: run, capture, report, compare.
#[derive(Parser)]
#[command(name = "cargo host", version, after_help = EXIT_STATUS)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

const EXIT_STATUS: &str = "Exit status: 0 ok; 1 the run failed or is truncated (files still \
written); 2 bad usage, unreadable file, not a mairbench log, or unknown schema.";

#[derive(Subcommand)]
enum Cmd {
    /// Build the firmware, boot it in QEMU through qemu/run (MAIRBENCH_* settings apply),
    /// stream the console, keep it as DIR/console.log and write the report into DIR. On a
    /// terminal the console shows the human lines only; piped or redirected, the @mb records
    /// too (MAIRBENCH_RECORDS=1|0 forces either). DIR/console.log always holds everything.
    Run {
        /// Output directory (created when missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
        /// Use the firmware already built instead of running `cargo build --release`.
        #[arg(long)]
        no_build: bool,
        /// Show the console's human lines only, never its @mb records.
        #[arg(long, short)]
        quiet: bool,
        /// Kernel command line, after `--` (e.g. `-- mairbench.quick`).
        #[arg(last = true, value_name = "BOOTARGS")]
        bootargs: Vec<String>,
    },
    /// A board's serial console (a serial device or a pseudo-terminal, e.g. the one
    /// MAIRBENCH_SERIAL=pty of qemu/run names). Everything received is appended to the log,
    /// flushed as it comes. Without --boot it is a terminal: what is typed goes to the board
    /// (raw mode when standard input is a terminal; Ctrl-C goes to the board too), Ctrl-] then
    /// q quits (Ctrl-] twice sends one Ctrl-]); an adapter unplugged and plugged back is
    /// reopened, and said so; on exit it names the log and, when the log holds a run, prints
    /// `report`'s summary. With --boot FILE it types a U-Boot script: it stops autoboot (or
    /// sends a CR to a board already at its prompt), learns the prompt, types each command
    /// (one per line; blank and # lines skipped) and waits for the prompt after it, stops at
    /// the first command U-Boot reports as failed (its status from `$?`, else U-Boot's known
    /// error lines), quoting U-Boot's words and saying what they mean; booti, bootm, bootefi,
    /// go and the like are not waited on for a prompt: the firmware's start record, or the
    /// prompt coming back (they failed), decides. With --send FILE, the script's `loady` line
    /// gets FILE over YMODEM (a progress bar on stderr, the rate, U-Boot's "## Total Size"
    /// checked). Then it logs until the end record, as
    /// --until-end. Exit status: 0 the run passed (or the terminal was quit), 1 the run
    /// failed, a command failed, no U-Boot prompt, or the port closed, 2 bad usage or a port
    /// that cannot be opened, 3 the board booted before the console attached, 124 the time
    /// limit. `capture` is the read-only form of
    /// `console --until-end` (it types nothing and writes the report files).
    Console(ConsoleArgs),
    /// Read a board's serial console into DIR/console.log (each chunk flushed) until the
    /// end record, the timeout, or end of file / an error on the port; then report as
    /// `report` does: the read-only form of `console --until-end`, which types nothing.
    /// Ctrl-C stops at once without a report: console.log keeps everything received, run
    /// `cargo host report DIR/console.log --out DIR` afterwards.
    Capture {
        /// Serial device, e.g. /dev/ttyUSB0.
        #[arg(long)]
        port: String,
        /// Baud rate.
        #[arg(long, default_value_t = 115_200)]
        baud: u32,
        /// Stop after this many seconds (default: wait for the end record).
        #[arg(long, value_name = "S")]
        timeout: Option<f64>,
        /// Output directory (created when missing).
        #[arg(long, value_name = "DIR")]
        out: PathBuf,
    },
    /// Parse a console log (QEMU or a board's, U-Boot output and serial noise allowed) and
    /// print, first for a failed or incomplete run, why (as `why` does), then the summary tables (with the scaling, the loaded latency and the prediction
    /// sheet); with --out, also write results.csv, results.json, scaling.csv,
    /// loaded_latency.csv, pmu.csv (where the PMU counted) and SVG charts to DIR.
    Report {
        /// The console log.
        log: PathBuf,
        /// Output directory (created when missing); without it nothing is written.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Print why a run failed, from its records: what `report` prints first, alone (qemu/judge
    /// calls it). An exception's class, ESR, FAR (where valid), ELR and the addr2line command;
    /// a panic's message and location; a failed memtype proof's alias, expected and found
    /// attribute and PA; a failed integrity check's kernel, alias, size and offset; other
    /// failed checks and verdicts; each CPU that did not start (a PSCI return code named);
    /// without an end record, the last record and the last line before the console went
    /// silent. Exit status as `report`'s.
    Why {
        /// The console log.
        log: PathBuf,
    },
    /// Judge a log's verdicts again with today's logic (core's verdicts and table of cores)
    /// from its records alone: an old firmware's log, or a board's captured earlier. Prints
    /// them as the firmware does, names the inputs the log lacks, and says where today's
    /// judgement differs from the log's own verdict records; with --out, writes
    /// DIR/verdicts.json. Exit status 1 when a verdict fails today.
    Verdicts {
        /// The console log.
        log: PathBuf,
        /// Output directory (created when missing); without it nothing is written.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// The fleet table of two or more firmware logs, any mix of boards: one row per log
    /// (board, MIDR, firmware, date: the log file's modification time, UTC; emulated), the
    /// status of each verdict, and the key figures with their cv: Device/WB reads at DRAM
    /// size; NC/WB, WB-noalloc/WB and WT/WB writes at the L1 set; latency at DRAM size, at
    /// the points the verdicts compare (host/src/fleet.rs). A figure a log lacks is `-` with
    /// a footnote saying why; a failed or truncated run is a warning. With --out DIR, writes
    /// DIR/fleet.csv, DIR/fleet.json and DIR/fleet.svg (the ratios, one mark per log).
    Table {
        /// The console logs (two or more).
        #[arg(required = true, num_args = 1..)]
        logs: Vec<PathBuf>,
        /// Output directory (created when missing); without it nothing is written.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    // The help is compare_about()'s: it names the logs' references, from core's tables.
    #[command(about = compare_about())]
    Compare {
        /// The reference log (or either of a firmware log and a twin log).
        a: PathBuf,
        /// The log compared with it.
        b: PathBuf,
        /// Output directory (created when missing); without it nothing is written.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
}

/// The help of `compare`: what it prints and writes for two logs of one kind, and for a
/// firmware log and a twin log (each divided by its reference: [`FIRMWARE_BASELINE`],
/// [`TWIN_BASELINE`]).
fn compare_about() -> String {
    format!(
        "Compare two logs: each run's platform, CPU and MIDR, the verdicts whose status \
         changed, the overall factor (median B/A of best values over all points, reported \
         once), then per kernel a summary (geometric mean of B/A, points significantly better \
         or worse, shared shifts), then the significant points, biggest first, then the \
         loaded-latency points both measured (B/A of their loaded/idle ratios, counted beyond \
         5 %). The rule (host/src/compare.rs): each point is judged against the points \
         measured with it, the median B/A of the same kernel and size over the memory types of \
         its class (Normal or Device) and over all types; the noise is 1.4826 x the median \
         deviation from those, over all points (the pair's) and over each kernel's; a point is \
         beyond when B/A of its best values and of its medians both differ from both \
         references by more than max(5 %, 5 x the pair's noise, 3 x its kernel's, the \
         best/median spread of A plus that of B) plus a quarter of the distance of its class's reference from the overall factor, \
         in one direction. Control for judging a \
         thousand points at once: a point is significant only when 3 adjacent sizes of its \
         kernel and memory type are beyond in the same direction (all sizes of a series of \
         fewer), or when that series' median difference is beyond 1.5 x the larger of 5 % and \
         the noise terms. A whole class that moved against the other (the Device types' \
         median B/A over the Normal types', beyond the kernel's threshold and at least 2x, at \
         3 adjacent sizes and at least half of the kernel's sizes) is named once per kernel, \
         as a class shift. \
         Writes DIR/compare.csv (every point, with its threshold and references), \
         DIR/compare-loaded-latency.csv (when both have loaded-latency points in common) and \
         DIR/compare-<kernel>.svg for each kernel both measured (shaded: the noise band around \
         the overall factor) (with --out DIR; without it nothing is written). A firmware log \
         and a mairbench-linux log of one board (either order) instead label each Linux source \
         with the firmware memory type it behaves like (ln of best MB/s over \
         {FIRMWARE_BASELINE}'s / {TWIN_BASELINE}'s, RMS distance, types within ln(1.35) \
         grouped; host/src/classify.rs), with a confidence; writes \
         DIR/classify.csv and DIR/classify.json"
    )
}

/// Prints a line on standard output; a closed pipe (`| head`) is not an error worth a panic.
macro_rules! say {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($t)*);
    }};
}

/// Prints on standard output without a line feed (see [`say!`]).
macro_rules! say_raw {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = write!(std::io::stdout(), $($t)*);
    }};
}

/// Prints a line on standard error (see [`say!`]).
macro_rules! esay {
    ($($t:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stderr(), $($t)*);
    }};
}

/// A failure: exit status and one sentence.
struct Fail(u8, String);

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Cmd::Run {
            out,
            no_build,
            quiet,
            bootargs,
        } => run(&out, &bootargs, !no_build, quiet),
        Cmd::Capture {
            port,
            baud,
            timeout,
            out,
        } => capture(&port, baud, timeout, &out),
        Cmd::Console(args) => console_cmd(&args),
        Cmd::Report { log, out } => report_file(&log, out.as_deref()),
        Cmd::Compare { a, b, out } => compare_files(&a, &b, out.as_deref()),
        Cmd::Verdicts { log, out } => verdicts_file(&log, out.as_deref()),
        Cmd::Why { log } => why_file(&log),
        Cmd::Table { logs, out } => table_files(&logs, out.as_deref()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail(code, sentence)) => {
            esay!("{sentence}");
            ExitCode::from(code)
        }
    }
}

fn usage(sentence: String) -> Fail {
    Fail(2, sentence)
}

fn create_out(out: &Path) -> Result<(), Fail> {
    std::fs::create_dir_all(out).map_err(|e| {
        usage(format!(
            "cannot create the output directory {}: {e}.",
            out.display()
        ))
    })
}

fn run(out: &Path, bootargs: &[String], build: bool, quiet: bool) -> Result<(), Fail> {
    use std::io::IsTerminal as _;
    let records = match std::env::var("MAIRBENCH_RECORDS").as_deref() {
        _ if quiet => false,
        Ok("1") => true,
        Ok("0") => false,
        Ok(other) => {
            return Err(usage(format!(
                "MAIRBENCH_RECORDS must be 0 or 1, not '{other}'."
            )))
        }
        Err(_) => !std::io::stdout().is_terminal(),
    };
    create_out(out)?;
    let console = out.join("console.log");
    let status = capture::qemu(bootargs, &console, build, records).map_err(usage)?;
    report_file(&console, Some(out))?;
    match status {
        0 => Ok(()),
        124 => Err(Fail(
            1,
            "QEMU did not finish within MAIRBENCH_TIMEOUT and was killed.".into(),
        )),
        s => Err(Fail(1, format!("qemu/run exited with status {s}."))),
    }
}

fn capture(port: &str, baud: u32, timeout: Option<f64>, out: &Path) -> Result<(), Fail> {
    let limit = match timeout {
        None => None,
        Some(s) => Some(
            Duration::try_from_secs_f64(s)
                .map_err(|_| usage(format!("--timeout {s} is not a number of seconds.")))?,
        ),
    };
    create_out(out)?;
    let console = out.join("console.log");
    let stop = capture::serial(port, baud, limit, &console).map_err(usage)?;
    match &stop {
        capture::Stop::End => {}
        capture::Stop::Timeout => esay!("capture: time limit reached"),
        capture::Stop::Closed(why) => esay!("capture: the port closed ({why})"),
    }
    report_file(&console, Some(out))
}

/// The arguments of `console`.
#[derive(clap::Args)]
struct ConsoleArgs {
    /// Serial device or pseudo-terminal, e.g. /dev/ttyUSB0 or /dev/pts/5.
    port: String,
    /// Baud rate (8N1).
    #[arg(long, default_value_t = 115_200)]
    baud: u32,
    /// Log file, appended to (default: console-<UTC date>-<time>.log in the current
    /// directory).
    #[arg(long, value_name = "FILE")]
    log: Option<PathBuf>,
    /// U-Boot commands to type, one per line (e.g. boot/board.cmd); implies --until-end.
    #[arg(long, value_name = "FILE")]
    boot: Option<PathBuf>,
    /// Upload FILE over YMODEM when the boot script's `loady` line runs (e.g.
    /// `loady ${kernel_addr_r}` in place of the `load` line).
    #[arg(long, value_name = "FILE", requires = "boot")]
    send: Option<PathBuf>,
    /// Exit when the end record arrives, with the run's status (and why it failed).
    #[arg(long)]
    until_end: bool,
    /// Time limit in seconds for everything (default: 600 with --until-end or --boot,
    /// else none).
    #[arg(long, value_name = "S")]
    timeout: Option<f64>,
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

fn console_cmd(a: &ConsoleArgs) -> Result<(), Fail> {
    use std::io::IsTerminal as _;
    let scripted = a.boot.is_some();
    let limit = match a.timeout {
        Some(s) => Some(
            Duration::try_from_secs_f64(s)
                .ok()
                .filter(|d| !d.is_zero())
                .ok_or_else(|| usage(format!("--timeout {s} is not a number of seconds.")))?,
        ),
        None if scripted || a.until_end => Some(Duration::from_secs(console::DEFAULT_TIMEOUT_S)),
        None => None,
    };
    let commands = match &a.boot {
        None => Vec::new(),
        Some(path) => {
            let text = std::fs::read_to_string(path).map_err(|e| {
                usage(format!(
                    "cannot read the boot script {}: {e}.",
                    path.display()
                ))
            })?;
            console::script(&text).map_err(|e| usage(format!("{}: {e}", path.display())))?
        }
    };
    let loady = commands.iter().find(|c| c.loady());
    let send = match (&a.send, loady) {
        (Some(path), Some(_)) => {
            let data = std::fs::read(path)
                .map_err(|e| usage(format!("cannot read {} (--send): {e}.", path.display())))?;
            let name = path
                .file_name()
                .map_or_else(|| "mairbench.bin".into(), |n| n.to_string_lossy().into_owned());
            Some((name, data))
        }
        (Some(_), None) => {
            return Err(usage(
                "--send needs a `loady` line in the boot script, which starts U-Boot's YMODEM receiver.".into(),
            ))
        }
        (None, Some(c)) => {
            return Err(usage(format!(
                "line {} of the boot script is `{}`: give the file to upload with --send FILE.",
                c.line, c.text
            )))
        }
        (None, None) => None,
    };
    let log_path = a.log.clone().unwrap_or_else(default_console_log);
    let port = console::open(&a.port, a.baud).map_err(usage)?;
    let sink = console::Sink::append(&log_path).map_err(usage)?;
    let started = std::time::Instant::now();
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
        if raw {
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
            deadline: limit.map(|l| started + l),
            until_end: a.until_end,
            input: rx,
            reopen: &mut reopen,
        };
        let out = console::interactive(Box::new(port), sink, settings, &mut note);
        if raw {
            let _ = crossterm::terminal::disable_raw_mode();
        }
        out
    };
    console_end(
        a,
        &log_path,
        outcome,
        &sink.received,
        started.elapsed(),
        limit,
    )
}

/// What `console` says and exits with once the session is over.
fn console_end(
    a: &ConsoleArgs,
    log_path: &Path,
    outcome: console::Outcome,
    received: &[u8],
    took: Duration,
    limit: Option<Duration>,
) -> Result<(), Fail> {
    use console::Outcome;
    let name = log_path.display().to_string();
    esay!(
        "\nconsole: {} B received in {:.1} s, appended to {name}",
        received.len(),
        took.as_secs_f64()
    );
    let parsed = log::parse(received);
    let has_run = parsed.start_line.is_some();
    let lead = || {
        let lead = failure::lead(&parsed);
        if !lead.is_empty() {
            say_raw!("{lead}");
        }
    };
    match outcome {
        Outcome::Ended => {
            let verdict = log::verdict(&parsed, &name);
            if a.boot.is_none() && !a.until_end {
                return report_bytes(&name, received);
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
        Outcome::Quit if has_run => report_bytes(&name, received).or_else(|f| {
            // An unfinished run is no error of the terminal's.
            esay!("{}", f.1);
            Ok(())
        }),
        Outcome::Quit => Ok(()),
        Outcome::CommandFailed {
            command,
            status,
            lines,
        } => {
            let status = status.map_or(String::new(), |s| format!(" (status {s})"));
            let mut said = format!(
                "line {} of the boot script failed{status}: {}",
                command.line, command.text
            );
            for l in &lines {
                said.push_str(&format!("\n  U-Boot: {l}"));
            }
            for w in console::explain(&lines) {
                said.push_str(&format!("\n  {w}"));
            }
            Err(Fail(1, said))
        }
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

/// `report` of a console log held in memory (`name` names it), without files.
fn report_bytes(name: &str, bytes: &[u8]) -> Result<(), Fail> {
    let (parsed, failure) = parse_named(name, bytes)?;
    report_parsed(parsed, failure, None)
}

/// Reads and parses a log; a log that cannot be used at all is an error (status 2); a
/// failed or truncated run comes back with its sentence.
fn load(path: &Path) -> Result<(Run, Option<Fail>), Fail> {
    load_parsed(path).map(|(p, failure)| (p.run, failure))
}

/// [`load`], keeping the whole parse (the records that explain a failure).
fn load_parsed(path: &Path) -> Result<(log::Parsed, Option<Fail>), Fail> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| usage(format!("cannot read {name}: {e}.")))?;
    parse_named(&name, &bytes)
}

/// [`load_parsed`] of bytes already read, from the log `name`.
fn parse_named(name: &str, bytes: &[u8]) -> Result<(log::Parsed, Option<Fail>), Fail> {
    let parsed = log::parse(bytes);
    let verdict = log::verdict(&parsed, name);
    if let Some(v) = verdict.as_ref().filter(|v| !v.has_data()) {
        return Err(Fail(2, v.sentence.clone()));
    }
    const SHOWN: usize = 5;
    for p in parsed.problems.iter().take(SHOWN) {
        esay!("note: {name} line {}: {}", p.line, p.what);
    }
    if parsed.problems.len() > SHOWN {
        esay!(
            "note: and {} more such lines",
            parsed.problems.len() - SHOWN
        );
    }
    Ok((parsed, verdict.map(|v| Fail(1, v.sentence))))
}

/// Prints why the run of the log at `path` failed (`cargo host why`): the lead of its report.
fn why_file(path: &Path) -> Result<(), Fail> {
    let (parsed, failure) = load_parsed(path)?;
    let lead = failure::lead(&parsed);
    if lead.is_empty() {
        say!("the run passed: nothing to explain");
    } else {
        say_raw!("{lead}");
    }
    failure.map_or(Ok(()), Err)
}

/// Judges the log at `path` again (`cargo host verdicts`).
fn verdicts_file(path: &Path, out: Option<&Path>) -> Result<(), Fail> {
    use mairbench_core::verdict::Status;
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| usage(format!("cannot read {name}: {e}.")))?;
    if log::parse(&bytes).start_line.is_none() && !bytes.windows(4).any(|w| w == b"@mb ") {
        return Err(usage(format!("{name} holds no mairbench records.")));
    }
    let r = rejudge::rejudge(&bytes);
    let v = &r.verdicts;
    say!("verdicts of {name}, judged again from its records:");
    say!(
        "verdicts: {} pass, {} warn, {} fail, {} n/a",
        v.count(Status::Pass),
        v.count(Status::Warn),
        v.count(Status::Fail),
        v.count(Status::NotApplicable)
    );
    for verdict in v.iter() {
        say!("  {verdict}");
        if let Some(note) = verdict.core_note {
            say!("    core: {note}");
        }
    }
    if !r.missing.is_empty() {
        say!("\ninputs the log lacks:");
        for m in &r.missing {
            say!("  - {m}");
        }
    }
    let diff = r.differences();
    if r.logged.is_empty() {
        say!("\nthe log has no verdict records to compare with");
    } else if diff.is_empty() {
        say!("\ntoday's judgement agrees with the log's verdict records");
    } else {
        say!("\nwhere today's judgement differs from the log's verdict records:");
        for (id, logged, today) in &diff {
            match logged {
                Some((status, why)) => say!("  {id}: the log: {status}: {why}\n    today: {today}"),
                None => say!("  {id}: not in the log\n    today: {today}"),
            }
        }
    }
    if let Some(out) = out {
        create_out(out)?;
        let mut written = report::Written::default();
        written
            .json(out, "verdicts.json", &rejudge::json(&r))
            .map_err(usage)?;
        print_written(&written);
    }
    if v.must_fail() {
        return Err(Fail(
            1,
            format!(
                "failing today: {}.",
                v.named(Status::Fail).collect::<Vec<_>>().join(", ")
            ),
        ));
    }
    Ok(())
}

/// Prints the tables of the log at `path`, and with `out` writes the report files there.
fn report_file(path: &Path, out: Option<&Path>) -> Result<(), Fail> {
    let (parsed, failure) = load_parsed(path)?;
    report_parsed(parsed, failure, out)
}

/// The report of a parsed log (see [`report_file`]).
fn report_parsed(
    parsed: log::Parsed,
    failure: Option<Fail>,
    out: Option<&Path>,
) -> Result<(), Fail> {
    let lead = failure::lead(&parsed);
    if !lead.is_empty() {
        say!("{lead}");
    }
    let run = parsed.run;
    say_raw!("{}", report::tables(&run));
    if run.emulated {
        say!("\nnote: {}", report::EMULATED_CAVEAT);
        say!("note: {}", report::EMULATED_STEPS);
    } else if run.kvm() {
        say!("\nnote: {}", report::KVM_NOTE);
    }
    if let Some(out) = out {
        let written = report::write(&run, out).map_err(usage)?;
        print_written(&written);
    }
    failure.map_or(Ok(()), Err)
}

fn print_written(written: &report::Written) {
    for w in &written.warnings {
        esay!("warning: {w}");
    }
    say!("\nfiles written:");
    for f in &written.files {
        say!("  {}", f.display());
    }
}

fn compare_files(a_path: &Path, b_path: &Path, out: Option<&Path>) -> Result<(), Fail> {
    let (a, a_failure) = load(a_path)?;
    let (b, b_failure) = load(b_path)?;
    if a.twin != b.twin {
        let ((fw, fw_path), (lx, lx_path)) = if b.twin {
            ((&a, a_path), (&b, b_path))
        } else {
            ((&b, b_path), (&a, a_path))
        };
        classify_files(fw, fw_path, lx, lx_path, out)?;
        return a_failure.or(b_failure).map_or(Ok(()), Err);
    }
    let changes = compare::changes(&a, &b);
    let loaded = compare::loaded_changes(&a, &b);
    if changes.is_empty() && loaded.is_empty() && a.verdicts.is_empty() && b.verdicts.is_empty() {
        return Err(usage(format!(
            "{} and {} have no measured point or verdict in common (same kernel, memory type and size).",
            a_path.display(),
            b_path.display()
        )));
    }
    let (label_a, label_b) = compare::labels(a_path, b_path);
    say!(
        "A = {} ({label_a})\n    {}\nB = {} ({label_b})\n    {}\n",
        a_path.display(),
        compare::describe(&a),
        b_path.display(),
        compare::describe(&b)
    );
    let verdicts = compare::verdict_table(&a, &b);
    if !verdicts.is_empty() {
        say!("{verdicts}");
    }
    let overall = compare::overall(&changes);
    if !changes.is_empty() {
        say_raw!("{}", compare::overall_line(&overall));
        say!("");
    }
    let summaries = compare::summary(&changes);
    say_raw!("{}", compare::summary_table(&summaries));
    let shifts = compare::class_shift_table(&compare::class_shifts(&changes));
    if !shifts.is_empty() {
        say!("");
        say_raw!("{shifts}");
    }
    say!("");
    say_raw!("{}", compare::table(&changes));
    let loaded_table = compare::loaded_table(&a, &b);
    if !loaded_table.is_empty() {
        say!("");
        say_raw!("{loaded_table}");
    }
    if a.emulated || b.emulated {
        say!("\nnote: {}", report::EMULATED_CAVEAT);
    }
    let failure = a_failure.or(b_failure);
    let Some(out) = out else {
        return failure.map_or(Ok(()), Err);
    };
    create_out(out)?;
    let mut written = report::Written::default();
    let file = |w: &mut report::Written, name: &str, s: &str| w.file(out, name, s).map_err(usage);
    file(&mut written, "compare.csv", &compare::csv(&changes))?;
    if !loaded.is_empty() {
        let csv = compare::loaded_csv(&loaded);
        file(&mut written, "compare-loaded-latency.csv", &csv)?;
    }
    for kernel in compare::common_kernels(&a, &changes) {
        let name = format!("compare-{kernel}.svg");
        let moved = compare::moved_note(&summaries, kernel);
        let title = format!("{kernel}: B/A, {label_b} over {label_a}{moved}");
        let runs = chart::Pair {
            a: &a,
            b: &b,
            label_a: &label_a,
            label_b: &label_b,
        };
        written
            .chart(out, &name, chart::compare(&runs, kernel, &title, &changes))
            .map_err(usage)?;
    }
    print_written(&written);
    failure.map_or(Ok(()), Err)
}

/// The classification of a twin log's sources against a firmware log of the same board.
fn classify_files(
    fw: &Run,
    fw_path: &Path,
    lx: &Run,
    lx_path: &Path,
    out: Option<&Path>,
) -> Result<(), Fail> {
    let mut c = classify::compare(fw, lx);
    c.firmware_log = fw_path.display().to_string();
    c.linux_log = lx_path.display().to_string();
    if c.points.is_empty() {
        return Err(usage(format!(
            "{} and {} have no bandwidth kernel and size in common (firmware on 4K pages, \
             divided by {FIRMWARE_BASELINE}; twin divided by {TWIN_BASELINE}): nothing to \
             classify.",
            fw_path.display(),
            lx_path.display()
        )));
    }
    if let Some(w) = &c.warning {
        esay!("warning: {w}");
    }
    say_raw!("{}", classify::table(&c));
    let Some(out) = out else {
        return Ok(());
    };
    create_out(out)?;
    let mut written = report::Written::default();
    written
        .file(out, "classify.csv", &classify::csv(&c))
        .map_err(usage)?;
    written
        .json(out, "classify.json", &classify::json(&c))
        .map_err(usage)?;
    print_written(&written);
    Ok(())
}

/// The fleet table of the logs at `paths` (`cargo host table`).
fn table_files(paths: &[PathBuf], out: Option<&Path>) -> Result<(), Fail> {
    if paths.len() < 2 {
        return Err(usage(format!(
            "the fleet table needs two or more logs, not {}.",
            paths.len()
        )));
    }
    let mut rows = Vec::new();
    for path in paths {
        let (run, failure) = load(path)?;
        if run.twin {
            return Err(usage(format!(
                "{} is a mairbench-linux log: the fleet table compares firmware logs.",
                path.display()
            )));
        }
        if let Some(Fail(_, sentence)) = failure {
            esay!("warning: {sentence}");
        }
        rows.push(fleet::row(path, &run));
    }
    say_raw!("{}", fleet::table(&rows));
    if rows.iter().any(|r| r.emulated) {
        say!("\nnote: {}", report::EMULATED_CAVEAT);
    }
    let Some(out) = out else {
        return Ok(());
    };
    create_out(out)?;
    let mut written = report::Written::default();
    written
        .file(out, "fleet.csv", &fleet::csv(&rows))
        .map_err(usage)?;
    written
        .json(out, "fleet.json", &fleet::json(&rows))
        .map_err(usage)?;
    let title = format!("fleet: key ratios of {} logs", rows.len());
    written
        .chart(
            out,
            "fleet.svg",
            chart::fleet(&fleet::chart_data(&rows), &title),
        )
        .map_err(usage)?;
    print_written(&written);
    Ok(())
}
