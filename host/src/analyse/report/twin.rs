//! A twin log's report: its header (what ran where, its sources) and each source's diagnosis
//! against the twin's reference.

use super::cells::state;
use crate::read::model::{distinct, Measurement, Run, Unit};
use crate::read::text::{or_dash, size_label};
use mairbench_core::diagnosis;
use mairbench_core::kernel::Kernel;
use std::fmt::Write as _;

/// The twin's header: what ran where, then one line per source.
pub(super) fn twin_header(out: &mut String, run: &Run) {
    let _ = writeln!(
        out,
        "mairbench-linux {} on {} {} ({}, MIDR {}){}",
        or_dash(&run.version),
        or_dash(&run.kernel),
        or_dash(&run.machine),
        or_dash(&run.platform),
        or_dash(&run.midr),
        state(run)
    );
    if run.sources.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "
sources ({}):",
        run.sources.len()
    );
    let width = run.sources.iter().map(|s| s.name.len()).max().unwrap_or(0);
    for s in &run.sources {
        let what = match (&s.error, s.size) {
            (Some(e), _) => {
                let errno = s.errno.map(|n| format!(" (errno {n})")).unwrap_or_default();
                format!("refused: {e}{errno} at {}", or_dash(&s.detail))
            }
            (None, Some(size)) => format!("{} mapped ({})", size_label(size), s.detail),
            (None, None) => format!("mapped, size unknown ({})", s.detail),
        };
        let _ = writeln!(out, "  {:<width$}  {what}", s.name);
    }
}

/// The twin's diagnosis of each source against its reference (core's [`diagnosis`]): per
/// source the finding in one sentence, judged at every working set both measured, then its
/// read (`read-ldp`), write (`write-stp`) and copy (`copy-from`: out of the source)
/// slowdowns at the L1-, L2- and DRAM-sized working sets ([`diagnosis::levels`] from the
/// log's caches) and over all of them. Empty for a log with no source but the reference.
pub fn twin_diagnosis(run: &Run) -> String {
    let base = run.rows().baseline;
    let caches: Vec<u64> = run.caches.iter().map(|c| c.size).collect();
    let mut sizes: Vec<u64> = run.measurements.iter().map(|m| m.size).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let sweep = diagnosis::Sweep {
        sizes: &sizes,
        caches: &caches,
        emulated: run.emulated,
    };
    let at = |kernel: &str, row: &str, size: u64| {
        run.measurements.iter().find(|m| {
            m.kernel == kernel
                && m.memtype == row
                && m.size == size
                && m.unit == Unit::MegabytesPerSecond
        })
    };
    // The kernels as the log names them (A32 names in an armv7 twin's records).
    let name = |k: Kernel| run.kernel_name(k).unwrap_or(k.spec().name);
    let series = |kernel: &str, row: &str| {
        diagnosis::Series::of(sizes.iter().map(|&size| {
            let figure = at(kernel, base, size)
                .zip(at(kernel, row, size))
                .and_then(|(a, s)| {
                    // Whole MB/s: the record's own precision.
                    let mbps = |m: &Measurement| (m.best.round() as u64, m.median.round() as u64);
                    diagnosis::Slower::of(mbps(a), mbps(s))
                });
            (size, figure)
        }))
    };
    let rows = distinct(
        run.measurements
            .iter()
            .map(|m| m.memtype.as_str())
            .filter(|r| *r != base),
    );
    if rows.is_empty() {
        return String::new();
    }
    let mut out = format!("\n{}\n", diagnosis::Header(base));
    for row in rows {
        let figures = diagnosis::Figures::new(
            &sweep,
            series(name(Kernel::ReadLdp), row),
            series(name(Kernel::WriteStp), row),
            series(name(Kernel::CopyFrom), row),
        );
        let _ = write!(
            out,
            "{}",
            diagnosis::Block {
                name: row,
                figures: &figures
            }
        );
    }
    if run.emulated {
        let _ = writeln!(out, "  ({})", diagnosis::EMULATED);
    }
    out
}
