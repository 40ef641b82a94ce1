//! `cargo host report LOG [--out DIR]`: why a failed run failed, then the tables; with
//! `--out`, the report's files.

use super::{load_parsed, parse_named, print_written, usage, Fail};
use crate::analyse::{report, why};
use crate::read::log::Parsed;
use crate::write;
use std::path::Path;

/// Prints the tables of the log at `path`, and with `out` writes the report files there.
pub fn run(path: &Path, out: Option<&Path>) -> Result<(), Fail> {
    let (parsed, failure) = load_parsed(path)?;
    report_parsed(parsed, failure, out)
}

/// `report` of a console log held in memory (`name` names it), without files.
pub fn of_bytes(name: &str, bytes: &[u8]) -> Result<(), Fail> {
    let (parsed, failure) = parse_named(name, bytes)?;
    report_parsed(parsed, failure, None)
}

/// The report of a parsed log (see [`run`]).
fn report_parsed(parsed: Parsed, failure: Option<Fail>, out: Option<&Path>) -> Result<(), Fail> {
    let lead = why::lead(&parsed);
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
        let written = write::report::files(&run, out).map_err(usage)?;
        print_written(&written);
    }
    failure.map_or(Ok(()), Err)
}
