//! The files of `cargo host table LOG… --out DIR`: `fleet.csv`, `fleet.json` and
//! `fleet.svg`.

use super::{create, Written};
use crate::analyse::table::{self, Row};
use crate::draw::{self, Fleet};
use std::path::Path;

/// Writes `fleet.csv`, `fleet.json` and `fleet.svg` (the ratios, one mark per log) of `rows`
/// into `dir` (created when missing). The error is one sentence.
pub fn files(dir: &Path, rows: &[Row]) -> Result<Written, String> {
    create(dir)?;
    let mut written = Written::default();
    written.file(dir, "fleet.csv", &table::csv(rows))?;
    written.json(dir, "fleet.json", &table::json(rows))?;
    let title = format!("fleet: key ratios of {} logs", rows.len());
    written.chart(dir, "fleet.svg", draw::fleet(&Fleet::of(rows), &title))?;
    Ok(written)
}
