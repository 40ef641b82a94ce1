//! What a parsed log holds: the run, the lines that could not be used, and the records that
//! explain a failure.

use crate::read::model::Run;
use serde_json::{Map, Value};

/// Something in the log that was not understood, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// 1-based line number in the log.
    pub line: usize,
    /// What was wrong, in words.
    pub what: String,
    /// The record was read but holds a kind, field or kernel this tool does not know
    /// (written by a newer firmware?): a warning about what was left out, never a reason to
    /// judge the run truncated.
    pub unknown: bool,
}

impl Problem {
    pub(super) fn new(line: usize, what: impl Into<String>) -> Problem {
        Problem {
            line,
            what: what.into(),
            unknown: false,
        }
    }

    pub(super) fn unknown(line: usize, what: impl Into<String>) -> Problem {
        Problem {
            unknown: true,
            ..Problem::new(line, what)
        }
    }
}

/// A parsed log: the run plus what the parser had to skip.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Parsed {
    /// What the log reported.
    pub run: Run,
    /// Record lines that could not be used (a truncated last line is normal).
    pub problems: Vec<Problem>,
    /// Line of the `start` record (the last one when the board booted several times).
    pub start_line: Option<usize>,
    /// `schema` of the `start` record (`None` when missing or not a number).
    pub schema: Option<u64>,
    /// Line of the `end` record.
    pub end_line: Option<usize>,
    /// The self-test the start record's bootargs ask for (`mairbench.selftest=`, not `none`),
    /// with the start record's line: a failure asked for on purpose.
    pub selftest: Option<(usize, String)>,
    /// `reason` of the `end` record, when it gave one.
    pub reason: Option<String>,
    /// `failed_checks` of the `end` record, with `failed_checks_omitted` names beyond them.
    pub failed_checks: (Vec<String>, u64),
    /// `warned` of the `end` record, with `warned_omitted` names beyond them.
    pub warned: (Vec<String>, u64),
    /// Number of lines in the log.
    pub lines: usize,
    /// The records that say why the run failed or warned, for `cargo host why`.
    pub evidence: Evidence,
    /// The last record: its line and kind.
    pub last_record: Option<(usize, String)>,
    /// The last line that holds more than blanks (escapes and noise removed): its number
    /// and text.
    pub last_text: Option<(usize, String)>,
}

/// One record kept whole, with its line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Kept {
    /// 1-based line number in the log.
    pub line: usize,
    /// Its fields, `kind` included.
    pub fields: Map<String, Value>,
}

/// The records of a run that explain a failure or a warning (what `cargo host why` says), in
/// log order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Evidence {
    /// `exception` records: exceptions nobody expected.
    pub exceptions: Vec<Kept>,
    /// `panic` records.
    pub panics: Vec<Kept>,
    /// `memtype` records whose proof failed (`ok` false).
    pub memtypes: Vec<Kept>,
    /// `result` records with an `integrity_fail_offset`.
    pub integrity: Vec<Kept>,
    /// `cpu` records: CPUs that did not start.
    pub cpus: Vec<Kept>,
    /// `check` records that failed (`ok` false).
    pub checks: Vec<Kept>,
}
