//! The files of `cargo host compare A B --out DIR`: `compare.csv`,
//! `compare-loaded-latency.csv` and a chart per kernel; for a firmware log and a twin log,
//! `classify.csv` and `classify.json`.

use super::{create, Written};
use crate::analyse::classify::{self, Comparison};
use crate::analyse::compare::{self, Change, KernelSummary, LoadedChange};
use crate::draw::{self, Pair};
use std::path::Path;

/// Writes `compare.csv` (every point of `changes`), `compare-loaded-latency.csv` (when
/// `loaded` has points) and `compare-<kernel>.svg` for each kernel both `runs` measured, its
/// title saying when the kernel moved as a whole (`summaries`), into `dir` (created when
/// missing). The error is one sentence.
pub fn files(
    dir: &Path,
    runs: &Pair,
    changes: &[Change],
    loaded: &[LoadedChange],
    summaries: &[KernelSummary],
) -> Result<Written, String> {
    create(dir)?;
    let mut written = Written::default();
    written.file(dir, "compare.csv", &compare::csv(changes))?;
    if !loaded.is_empty() {
        let csv = compare::loaded_csv(loaded);
        written.file(dir, "compare-loaded-latency.csv", &csv)?;
    }
    for kernel in compare::common_kernels(runs.a, changes) {
        let name = format!("compare-{kernel}.svg");
        let moved = compare::moved_note(summaries, kernel);
        // Logs of two architectures (B's points under A's names): the name B's architecture
        // gives the kernel, where it differs.
        let b_name = crate::read::model::kernel_row(kernel)
            .and_then(|k| runs.b.arch_tables().kernel(k))
            .map(|k| k.name)
            .filter(|b| *b != kernel)
            .map_or(String::new(), |b| format!(" (B: {b})"));
        let title = format!(
            "{kernel}{b_name}: B/A, {} over {}{moved}",
            runs.label_b, runs.label_a
        );
        written.chart(dir, &name, draw::compare(runs, kernel, &title, changes))?;
    }
    Ok(written)
}

/// Writes `classify.csv` and `classify.json` of `c` into `dir` (created when missing).
pub fn classify(dir: &Path, c: &Comparison) -> Result<Written, String> {
    create(dir)?;
    let mut written = Written::default();
    written.file(dir, "classify.csv", &classify::csv(c))?;
    written.json(dir, "classify.json", &classify::json(c))?;
    Ok(written)
}
