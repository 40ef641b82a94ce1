//! `cargo host`: the mairbench companion. Runs the firmware in QEMU or captures a board's
//! serial console, then reports (tables, CSV, JSON, SVG charts) or compares two logs. The
//! command line only: each command is a module of `mairbench_host::command` (docs/host.md).
//!
//! Exit status: 0 ok; 1 the run failed or is truncated (the report is still written);
//! 2 bad usage, an unreadable file, not a mairbench log, or an unknown schema.

use clap::{Parser, Subcommand};
use mairbench_host::command::{self, console, Fail};
use std::io::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

/// The mairbench host companion: run, capture, report, compare (docs/host.md).
#[derive(Parser)]
#[command(name = "cargo host", version, after_help = EXIT_STATUS)]
struct Cli {
    #[command(subcommand)]
    command: Cmd,
}

const EXIT_STATUS: &str = "Exit status: 0 ok; 1 the run failed or is truncated (files still \
written); 2 bad usage, unreadable file, not a mairbench log, or unknown schema. Each command \
in docs/host.md.";

#[derive(Subcommand)]
enum Cmd {
    /// Build the firmware, boot it in QEMU (qemu/run, MAIRBENCH_* settings), keep
    /// DIR/console.log and write the report into DIR (docs/host.md, docs/runner.md).
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
    /// A board's serial console: a terminal, or with --boot a U-Boot script typed for you;
    /// everything received is appended to the log (docs/host.md).
    Console(ConsoleArgs),
    /// Read a board's serial console into DIR/console.log until the end record, then report:
    /// the read-only form of `console --until-end` (docs/host.md).
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
    /// Print a log's tables (first, for a failed run, why); with --out, write its CSV, JSON
    /// and SVG charts (docs/host.md).
    Report {
        /// The console log.
        log: PathBuf,
        /// Output directory (created when missing); without it nothing is written.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Print why a run failed, from its records: what `report` prints first (docs/host.md).
    Why {
        /// The console log.
        log: PathBuf,
    },
    /// Judge a log's verdicts again with today's logic, from its records alone
    /// (docs/verdicts.md).
    Verdicts {
        /// The console log.
        log: PathBuf,
        /// Output directory (created when missing); without it nothing is written.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// The fleet table of two or more firmware logs, a row per log: verdicts and key ratios
    /// (docs/host.md).
    Table {
        /// The console logs (two or more).
        #[arg(required = true, num_args = 1..)]
        logs: Vec<PathBuf>,
        /// Output directory (created when missing); without it nothing is written.
        #[arg(long, value_name = "DIR")]
        out: Option<PathBuf>,
    },
    /// Compare two logs point by point (docs/host.md); a firmware log and a twin log: which
    /// memory type each Linux source behaves like (docs/twin.md).
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

impl From<ConsoleArgs> for console::Args {
    fn from(a: ConsoleArgs) -> Self {
        console::Args {
            port: a.port,
            baud: a.baud,
            log: a.log,
            boot: a.boot,
            send: a.send,
            until_end: a.until_end,
            timeout: a.timeout,
        }
    }
}

fn main() -> ExitCode {
    let result = match Cli::parse().command {
        Cmd::Run {
            out,
            no_build,
            quiet,
            bootargs,
        } => command::run::run(&out, &bootargs, !no_build, quiet),
        Cmd::Capture {
            port,
            baud,
            timeout,
            out,
        } => command::capture::run(&port, baud, timeout, &out),
        Cmd::Console(args) => console::run(&args.into()),
        Cmd::Report { log, out } => command::report::run(&log, out.as_deref()),
        Cmd::Compare { a, b, out } => command::compare::run(&a, &b, out.as_deref()),
        Cmd::Verdicts { log, out } => command::verdicts::run(&log, out.as_deref()),
        Cmd::Why { log } => command::why::run(&log),
        Cmd::Table { logs, out } => command::table::run(&logs, out.as_deref()),
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(Fail(code, sentence)) => {
            // A closed standard error is not worth a panic.
            let _ = writeln!(std::io::stderr(), "{sentence}");
            ExitCode::from(code)
        }
    }
}
