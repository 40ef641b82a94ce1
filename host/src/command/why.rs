//! `cargo host why LOG`: why the run failed, from its records (the report's lead alone).

use super::{load_parsed, Fail};
use crate::analyse::why;
use std::path::Path;

/// Prints why the run of the log at `path` failed: the lead of its report.
pub fn run(path: &Path) -> Result<(), Fail> {
    let (parsed, failure) = load_parsed(path)?;
    let lead = why::lead(&parsed);
    if lead.is_empty() {
        say!("the run passed: nothing to explain");
    } else {
        say_raw!("{lead}");
    }
    failure.map_or(Ok(()), Err)
}
