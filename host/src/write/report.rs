//! The files of `cargo host report --out DIR` (and of `run` and `capture`): the report's
//! CSV and JSON, and its charts.

use super::{create, Written};
use crate::analyse::report::{
    core_to_core_csv, csv, json, loaded_latency_csv, pmu_csv, scaling_csv,
};
use crate::draw;
use crate::read::model::{distinct, Run};
use mairbench_core::kernel::Kernel;
use std::path::Path;

/// The charts of a report: kernels drawn side by side, and the chart's title. Each group
/// present in a run gives `<kernels>.svg` (best value over size) and `ratio-<kernels>.svg`
/// (over the baseline's, [`RowKind::baseline`](crate::read::model::RowKind::baseline)), named after the kernels of the group
/// the run measured, under the names its architecture gives them (core's kernel table, or
/// its A32 column in an armv7 log: `read-ldm-write-stm.svg`).
pub const CHARTS: [(&[Kernel], &str); 9] = [
    (&[Kernel::ReadLdp, Kernel::WriteStp], "Streaming bandwidth"),
    (
        &[Kernel::ReadLdpQ, Kernel::WriteStpQ],
        "Streaming bandwidth, 128-bit pairs",
    ),
    (
        &[Kernel::ReadLdnp, Kernel::WriteStnp],
        "Streaming bandwidth, non-temporal pairs",
    ),
    (
        &[
            Kernel::CopyTo,
            Kernel::CopyFrom,
            Kernel::CopyToQ,
            Kernel::CopyFromQ,
        ],
        "Copy bandwidth",
    ),
    (&[Kernel::Latency], "Load latency"),
    (&[Kernel::FillZva], "DC ZVA fill"),
    (
        &[Kernel::MaintCivac, Kernel::MaintCvac, Kernel::MaintIvac],
        "Cache maintenance by VA",
    ),
    (
        &[Kernel::WriteLine],
        "Partial-line writes (one store per line)",
    ),
    (
        &[Kernel::Triad],
        "STREAM triad (at the sweep's largest size)",
    ),
];

/// The strided reads, charted together against their stride in `strided.svg` (each is
/// measured at one size, so a chart over size would be one point a line).
pub const STRIDED: [Kernel; 5] = [
    Kernel::ReadStride64,
    Kernel::ReadStride256,
    Kernel::ReadStride1k,
    Kernel::ReadStride4k,
    Kernel::ReadRandom,
];

/// Writes `results.csv`, `results.json`, `scaling.csv` (when the run has multi-core points),
/// `loaded_latency.csv` (when it has loaded-latency points), `pmu.csv` (when a point has PMU
/// counts) and the charts ([`CHARTS`], and `scaling-<kernels>.svg`) into `dir` (created when missing);
/// with core-to-core records `core_to_core.csv` and `core-to-core.svg`; each swept cluster's
/// files in `cluster-N/`.
/// The error is one sentence.
pub fn files(run: &Run, dir: &Path) -> Result<Written, String> {
    create(dir)?;
    let mut w = Written::default();
    w.file(dir, "results.csv", &csv(run))?;
    w.json(dir, "results.json", &json(run))?;
    if !run.scaling.is_empty() {
        w.file(dir, "scaling.csv", &scaling_csv(run))?;
    }
    if !run.loaded_latency.is_empty() {
        w.file(dir, "loaded_latency.csv", &loaded_latency_csv(run))?;
    }
    if run.measurements.iter().any(|m| m.pmu.is_some()) {
        w.file(dir, "pmu.csv", &pmu_csv(run))?;
    }
    for (group, title) in CHARTS {
        let present: Vec<&str> = group
            .iter()
            .filter_map(|&k| run.kernel_name(k))
            .filter(|k| run.measurements.iter().any(|m| m.kernel == *k))
            .collect();
        if present.is_empty() {
            continue;
        }
        let stem = present.join("-");
        w.chart(
            dir,
            &format!("{stem}.svg"),
            draw::panels_of(run, &present, title),
        )?;
        let baseline = run.rows().baseline;
        let ratio_title = format!("{title}, ratio to {baseline}");
        let svg = draw::ratio(run, &present, baseline, &ratio_title);
        w.chart(dir, &format!("ratio-{stem}.svg"), svg)?;
    }
    let strided = STRIDED.map(|k| run.kernel_name(k));
    if run
        .measurements
        .iter()
        .any(|m| strided.contains(&Some(m.kernel.as_str())))
    {
        let svg = draw::strided(run, "Strided reads: what a prefetcher follows");
        w.chart(dir, "strided.svg", svg)?;
    }
    let scaled = distinct(run.scaling.iter().map(|p| p.kernel.as_str()));
    if !scaled.is_empty() {
        let svg = draw::scaling(run, "Multi-core scaling");
        w.chart(dir, &format!("scaling-{}.svg", scaled.join("-")), svg)?;
    }
    if !run.core_to_core.is_empty() {
        w.file(dir, "core_to_core.csv", &core_to_core_csv(run))?;
        let svg = draw::core_to_core(run, "Core-to-core latency");
        w.chart(dir, "core-to-core.svg", svg)?;
    }
    // Each other cluster's own sweep, in a folder of its own.
    for c in run.clusters.iter().filter(|c| c.role == "swept") {
        let sub = files(&c.sweep, &dir.join(format!("cluster-{}", c.index)))?;
        w.files.extend(sub.files);
        w.warnings.extend(sub.warnings);
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::analyse::report::testing::{loaded, m};

    #[test]
    fn every_kernel_has_exactly_one_chart() {
        let charted: Vec<&str> = CHARTS
            .iter()
            .flat_map(|(g, _)| g.iter().map(|k| k.spec().name))
            .chain(STRIDED.iter().map(|k| k.spec().name))
            .collect();
        let known: Vec<&str> = mairbench_core::kernel::KERNELS
            .iter()
            .map(|k| k.name)
            .collect();
        let mut sorted = charted.clone();
        sorted.sort_unstable();
        let mut want = known.clone();
        want.sort_unstable();
        assert_eq!(
            sorted, want,
            "CHARTS and STRIDED name each kernel of core's table once"
        );
        assert!(STRIDED.iter().all(|k| k.order().is_some()));
    }

    #[test]
    fn pmu_csv_only_when_a_point_has_counts() {
        let mut counted = m("normal-wb", 4096, 100.0);
        counted.pmu = Some(vec![("bus_access".into(), 4.0)]);
        let run = Run {
            measurements: vec![counted, m("normal-wb", 8192, 100.0)],
            ..Run::default()
        };
        let dir = std::env::temp_dir().join(format!("mairbench-host-pmu-{}", std::process::id()));
        let names = |run: &Run| -> Vec<String> {
            let _ = std::fs::remove_dir_all(&dir);
            let w = files(run, &dir).unwrap();
            w.files
                .iter()
                .filter_map(|f| f.file_name()?.to_str().map(str::to_owned))
                .filter(|f| f.ends_with(".csv"))
                .collect()
        };
        assert_eq!(names(&run), ["results.csv", "pmu.csv"]);
        let mut uncounted = run.clone();
        uncounted.measurements.iter_mut().for_each(|m| m.pmu = None);
        uncounted.loaded_latency = vec![loaded("normal-wb", "read-ldp", 120.0)];
        assert_eq!(names(&uncounted), ["results.csv", "loaded_latency.csv"]);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
