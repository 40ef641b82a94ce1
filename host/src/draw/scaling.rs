//! The multi-core points (`scaling` records): aggregate MB/s against the cores running at
//! once.

use super::frame::render;
use super::notes::run_header;
use super::panel::{Panel, Series, XKind};
use super::style::NOTE_COLOUR;
use super::values::panel_width;
use crate::read::model::{self, Run};
use mairbench_core::kernel::Kernel;
use std::collections::BTreeMap;

/// An SVG of the multi-core points (`scaling` records): one panel per kernel, in the order
/// the kernels first appear, the aggregate MB/s against the cores running at once, one line
/// per memory type. Err when the run has no scaling records.
pub fn scaling(run: &Run, title: &str) -> Result<String, String> {
    let kernels = model::distinct(run.scaling.iter().map(|p| p.kernel.as_str()));
    let panels: Vec<Panel> = kernels
        .iter()
        .map(|kernel| {
            let mut by_type: BTreeMap<&str, BTreeMap<u64, u64>> = BTreeMap::new();
            for p in run.scaling.iter().filter(|p| p.kernel == *kernel) {
                by_type
                    .entry(&p.memtype)
                    .or_default()
                    .insert(p.cores, p.aggregate_mbps);
            }
            let series = by_type
                .into_iter()
                .map(|(memtype, points)| Series {
                    memtype: memtype.to_owned(),
                    points: points
                        .into_iter()
                        .map(|(n, v)| (n as f64, v as f64))
                        .collect(),
                })
                .collect();
            Panel::new(
                format!("{kernel}: all cores"),
                "aggregate MB/s (MB = 10^6 B)".to_string(),
                XKind::Cores,
                series,
                None,
            )
        })
        .collect();
    if panels.is_empty() {
        return Err(format!(
            "no scaling records in this run (one core, or no {} or {})",
            Kernel::ReadLdp.spec().name,
            Kernel::WriteStp.spec().name
        ));
    }
    let mut header = run_header(run, title);
    let most = run.scaling.iter().map(|p| p.cores).max().unwrap_or(1);
    if run.emulated && most > 1 {
        // As the console says under its scaling table; the log does not say how many cores
        // the host has.
        header.lines.push((scaling_note(most), NOTE_COLOUR));
    }
    render(&header, &panels, &[], panel_width(&panels))
}

/// The warning of an emulated run's scaling chart with up to `vcpus` cores at once.
pub fn scaling_note(vcpus: u64) -> String {
    format!(
        "emulated, {vcpus} vCPUs: with more vCPUs than host cores they take turns, so \
         aggregate MB/s and skew show the host's scheduling, not memory"
    )
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assert_series, names, synthetic, texts};
    use super::*;

    #[test]
    fn scaling_over_cores() {
        let mut run = synthetic(false);
        assert!(scaling(&run, "x").is_err());
        for (i, memtype) in names().into_iter().enumerate() {
            for kernel in ["read-ldp", "write-stp"] {
                for cores in 1..=4u64 {
                    let one = if i < 4 { 8000 } else { 600 };
                    run.scaling.push(crate::read::model::Scaling {
                        memtype: memtype.into(),
                        kernel: kernel.into(),
                        cores,
                        aggregate_mbps: one * cores,
                        per_core_min_mbps: one,
                        per_core_max_mbps: one,
                        span_ticks: None,
                        start_skew_ticks: None,
                    });
                }
            }
        }
        let svg = scaling(&run, "Scaling").unwrap();
        assert_series(&svg, &names(), 2);
        let t = texts(&svg);
        assert_eq!(
            t.iter().filter(|x| *x == "cores running at once").count(),
            2
        );
        assert!(
            t.iter()
                .any(|x| x == "aggregate MB/s (MB = 10^6 B) (log10 scale)"),
            "600 to 32000 MB/s: {t:?}"
        );
        for label in ["1", "2", "3", "4"] {
            assert!(t.iter().any(|x| x == label), "{label}: {t:?}");
        }
        assert!(
            !t.iter().any(|x| x == "L1 32K"),
            "no cache marks over cores"
        );
        assert!(!t.join(" ").contains("vCPUs"), "a board: no warning");
        // Emulated: the console's warning about more vCPUs than host cores.
        run.emulated = true;
        let t = texts(&scaling(&run, "Scaling").unwrap());
        assert!(t.join(" ").contains(&scaling_note(4)), "{t:?}");
        assert!(scaling_note(4).contains("4 vCPUs"));
    }
}
