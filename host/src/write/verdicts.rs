//! The file of `cargo host verdicts LOG --out DIR`: `verdicts.json`.

use super::{create, Written};
use crate::analyse::verdicts::{self, Rejudged};
use std::path::Path;

/// Writes `verdicts.json` of `r` into `dir` (created when missing). The error is one
/// sentence.
pub fn files(dir: &Path, r: &Rejudged) -> Result<Written, String> {
    create(dir)?;
    let mut written = Written::default();
    written.json(dir, "verdicts.json", &verdicts::json(r))?;
    Ok(written)
}
