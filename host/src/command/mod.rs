//! The top layer under the command line: one module per command, each reading its logs (or
//! capturing one), printing what the command prints, writing its files through
//! [`crate::write`] and saying how it ended ([`Fail`]). `main.rs` parses the command line and
//! calls one of them.
//!
//! Exit status: 0 ok; 1 the run failed or is truncated (the report is still written); 2 bad
//! usage, an unreadable file, not a mairbench log, or an unknown schema (docs/host.md).

use crate::read::log::{self, Parsed};
use crate::read::model::Run;
use crate::write::{self, Written};
use std::path::Path;

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

pub mod capture;
pub mod compare;
pub mod console;
pub mod report;
pub mod run;
pub mod table;
pub mod verdicts;
pub mod why;

/// How a command failed: its exit status and one sentence for standard error.
#[derive(Debug)]
pub struct Fail(pub u8, pub String);

/// Bad usage, an unreadable file or a log this tool cannot read: status 2.
fn usage(sentence: String) -> Fail {
    Fail(2, sentence)
}

/// Creates the output directory `out` (status 2 when it cannot be).
fn create_out(out: &Path) -> Result<(), Fail> {
    write::create(out).map_err(usage)
}

/// Prints the files written (and, on standard error, the charts that could not be drawn).
fn print_written(written: &Written) {
    for w in &written.warnings {
        esay!("warning: {w}");
    }
    say!("\nfiles written:");
    for f in &written.files {
        say!("  {}", f.display());
    }
}

/// Reads and parses a log; a log that cannot be used at all is an error (status 2); a
/// failed or truncated run comes back with its sentence.
fn load(path: &Path) -> Result<(Run, Option<Fail>), Fail> {
    load_parsed(path).map(|(p, failure)| (p.run, failure))
}

/// [`load`], keeping the whole parse (the records that explain a failure).
fn load_parsed(path: &Path) -> Result<(Parsed, Option<Fail>), Fail> {
    let name = path.display().to_string();
    let bytes = std::fs::read(path).map_err(|e| usage(format!("cannot read {name}: {e}.")))?;
    parse_named(&name, &bytes)
}

/// [`load_parsed`] of bytes already read, from the log `name`.
fn parse_named(name: &str, bytes: &[u8]) -> Result<(Parsed, Option<Fail>), Fail> {
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
