//! The cells the report's tables share: a kernel's points by row and size, the ratio of a row
//! to the baseline, column widths, and the end of a header's first line.

use crate::read::model::{self, Measurement, Run};
use std::collections::BTreeMap;

/// The measurements of one kernel by (row, size), a row being a memory type on one granule
/// ([`model::series`]); a repeated point keeps the last.
pub(super) fn points<'a>(run: &'a Run, kernel: &str) -> BTreeMap<(String, u64), &'a Measurement> {
    let mixed = model::mixed_granules(&run.measurements, kernel);
    run.measurements
        .iter()
        .filter(|m| m.kernel == kernel)
        .map(|m| ((model::series(m, mixed), m.size), m))
        .collect()
}

/// The row names ([`model::series`]) of `of`, in order, repeats included.
pub(super) fn series_of<'a>(
    run: &Run,
    of: impl IntoIterator<Item = &'a Measurement>,
) -> Vec<String> {
    of.into_iter().map(|m| run.series(m)).collect()
}

/// `memtype`'s best value over the baseline's ([`model::RowKind::baseline`]: the write-back
/// reference, or the twin's reference in a twin log) at the largest size both were measured
/// at (`memtype` a row name, perhaps marked with its granule, see [`model::series`]).
pub fn ratio_to_baseline(run: &Run, kernel: &str, memtype: &str) -> Option<(f64, u64)> {
    let p = points(run, kernel);
    p.iter()
        .rev()
        .filter(|((t, _), _)| t == memtype)
        .find_map(|((_, size), m)| {
            let base = p.get(&(run.rows().baseline.to_owned(), *size))?;
            (base.best != 0.0).then(|| (m.best / base.best, *size))
        })
}

/// The width of a table's name column: its longest name or `heading`, whichever is longer,
/// and two spaces.
pub(super) fn column_width<'a>(names: impl IntoIterator<Item = &'a str>, heading: &str) -> usize {
    names
        .into_iter()
        .map(str::len)
        .chain([heading.len()])
        .max()
        .unwrap_or(0)
        + 2
}

/// The end of a header's first line: `, emulated` when the run was, and its status.
pub(super) fn state(run: &Run) -> String {
    format!(
        "{}; status {}",
        if run.emulated {
            ", emulated"
        } else if run.kvm() {
            ", QEMU under KVM"
        } else {
            ""
        },
        run.status.as_deref().unwrap_or("none (no end record)")
    )
}
