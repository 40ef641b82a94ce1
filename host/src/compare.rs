//! Two runs side by side: per (kernel, memory type, size) the ratio B/A of the best values,
//! the biggest changes first, and per kernel a summary.
//!
//! A change is significant only when it exceeds what the two runs' own spread allows:
//! |B/A - 1| > max([`MIN_CHANGE_PCT`] %, cv A + cv B), with cv each point's coefficient of
//! variation in percent (`cv_pct`; an unknown cv counts as 0). A point within that is "same":
//! no run is named better there.
//!
//! Loaded-latency points (`loaded_latency` records) are compared by their `ratio` (loaded /
//! idle ns per load): B's ratio over A's, significant by the same rule with both cvs unknown
//! (the record has none): |B/A - 1| > [`MIN_CHANGE_PCT`] %.

use crate::model::{self, distinct, LoadedLatency, Measurement, Run, Unit};
use crate::report::{csv_row, size_label, value_label};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One point measured in both runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// Kernel name.
    pub kernel: String,
    /// Memory type name, marked with the granule where the runs measured the kernel on both
    /// (see [`model::series`]).
    pub memtype: String,
    /// Working-set size in bytes.
    pub size: u64,
    /// Unit of both values.
    pub unit: Unit,
    /// Best value in run A.
    pub a: f64,
    /// Best value in run B.
    pub b: f64,
    /// `b / a`.
    pub ratio: f64,
    /// Coefficient of variation of A's samples, percent (NaN when unknown).
    pub cv_a: f64,
    /// Coefficient of variation of B's samples, percent (NaN when unknown).
    pub cv_b: f64,
}

/// The smallest change, percent, that can be significant however steady the runs are.
pub const MIN_CHANGE_PCT: f64 = 5.0;

impl Change {
    /// The change this point needs to be significant, percent: max([`MIN_CHANGE_PCT`],
    /// cv A + cv B), an unknown cv counting as 0.
    pub fn threshold_pct(&self) -> f64 {
        let cv = |v: f64| if v.is_finite() && v > 0.0 { v } else { 0.0 };
        MIN_CHANGE_PCT.max(cv(self.cv_a) + cv(self.cv_b))
    }

    /// Whether |B/A - 1| exceeds [`Change::threshold_pct`].
    pub fn significant(&self) -> bool {
        self.ratio.is_finite() && (self.ratio - 1.0).abs() * 100.0 > self.threshold_pct()
    }

    /// Which run is better at this point: `"A"`, `"B"`, or `"same"` when the change is not
    /// [significant](Change::significant) (lower is better for ns).
    pub fn better(&self) -> &'static str {
        let b_higher = self.ratio > 1.0;
        if !self.significant() {
            "same"
        } else if b_higher == self.unit.higher_is_better() {
            "B"
        } else {
            "A"
        }
    }
}

/// The points both runs measured (same kernel, memory type, size and unit) with a positive
/// value in each, sorted by |ln(B/A)|, biggest first; ties keep log order of A.
pub fn changes(a: &Run, b: &Run) -> Vec<Change> {
    let row = rows(a, b);
    let in_b: BTreeMap<_, _> = b
        .measurements
        .iter()
        .map(|m| {
            (
                (m.kernel.as_str(), row(m), m.size, m.unit),
                (m.best, m.cv_pct),
            )
        })
        .collect();
    let mut seen = BTreeMap::new();
    for m in &a.measurements {
        let key = (m.kernel.as_str(), row(m), m.size, m.unit);
        let Some(&(b, cv_b)) = in_b.get(&key) else {
            continue;
        };
        if m.best > 0.0 && b > 0.0 && m.best.is_finite() && b.is_finite() {
            let order = seen.len();
            let entry = seen
                .entry(key)
                .or_insert((order, m.best, m.cv_pct, b, cv_b));
            (entry.1, entry.2) = (m.best, m.cv_pct);
        }
    }
    let mut out: Vec<(usize, Change)> = seen
        .into_iter()
        .map(
            |((kernel, memtype, size, unit), (order, a, cv_a, b, cv_b))| {
                let change = Change {
                    kernel: kernel.into(),
                    memtype,
                    size,
                    unit,
                    a,
                    b,
                    ratio: b / a,
                    cv_a,
                    cv_b,
                };
                (order, change)
            },
        )
        .collect();
    out.sort_by(|(oa, x), (ob, y)| {
        let (x, y) = (x.ratio.ln().abs(), y.ratio.ln().abs());
        y.total_cmp(&x).then(oa.cmp(ob))
    });
    out.into_iter().map(|(_, c)| c).collect()
}

/// The row name of a point of `a` or `b`: its memory type, marked with its granule where
/// either run measured the kernel on both granules ([`model::series`]), so that only points
/// of one granule are compared (a log from before the `granule` field ran on pages).
fn rows<'a>(a: &'a Run, b: &'a Run) -> impl Fn(&Measurement) -> String + 'a {
    let both = || a.measurements.iter().chain(&b.measurements);
    let kernels = distinct(both().map(|m| m.kernel.as_str()));
    let mixed: Vec<&str> = kernels
        .into_iter()
        .filter(|k| model::mixed_granules(both(), k))
        .collect();
    move |m| model::series(m, mixed.contains(&m.kernel.as_str()))
}

/// Per kernel, in the order of `changes`' first appearance: the points, the geometric mean
/// of B/A, and how many points are significantly better or worse in B.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelSummary {
    /// Kernel name.
    pub kernel: String,
    /// Unit of its values.
    pub unit: Unit,
    /// Points both runs measured.
    pub points: usize,
    /// exp(mean of ln(B/A)) over the points.
    pub geomean: f64,
    /// Points where B is significantly better.
    pub b_better: usize,
    /// Points where B is significantly worse.
    pub b_worse: usize,
}

/// The per-kernel summaries of `changes`, kernels in order of first appearance.
pub fn summary(changes: &[Change]) -> Vec<KernelSummary> {
    distinct(changes.iter().map(|c| c.kernel.as_str()))
        .into_iter()
        .filter_map(|kernel| {
            let of: Vec<&Change> = changes.iter().filter(|c| c.kernel == kernel).collect();
            let first = of.first()?;
            let count = |who: &str| of.iter().filter(|c| c.better() == who).count();
            Some(KernelSummary {
                kernel: kernel.into(),
                unit: first.unit,
                points: of.len(),
                geomean: (of.iter().map(|c| c.ratio.ln()).sum::<f64>() / of.len() as f64).exp(),
                b_better: count("B"),
                b_worse: count("A"),
            })
        })
        .collect()
}

/// The summaries as a table for the terminal, with the significance rule.
pub fn summary_table(summaries: &[KernelSummary]) -> String {
    let mut out = format!(
        "per kernel: geometric mean of B/A; a point counts when |B/A - 1| > max({MIN_CHANGE_PCT:.0} %, cv A + cv B)\n\
         {:<14}{:>8}{:>14}{:>10}{:>9}{:>15}  unit\n",
        "kernel", "points", "geomean B/A", "B better", "B worse", "within spread"
    );
    for s in summaries {
        let _ = writeln!(
            out,
            "{:<14}{:>8}{:>13.3}x{:>10}{:>9}{:>15}  {} ({} is better)",
            s.kernel,
            s.points,
            s.geomean,
            s.b_better,
            s.b_worse,
            s.points - s.b_better - s.b_worse,
            s.unit.label(),
            s.unit.better()
        );
    }
    out
}

/// The significant changes as a table for the terminal, biggest first, then one line
/// saying how many points are within the runs' spread (all are in `compare.csv`).
pub fn table(changes: &[Change]) -> String {
    let mut out = String::new();
    if changes.iter().any(Change::significant) {
        out = format!(
            "{:<14}{:<20}{:>9}{:>13}{:>13}{:>9}{:>13}  better\n",
            "kernel", "memory type", "size", "A", "B", "B/A", "needs (%)"
        );
    }
    for c in changes.iter().filter(|c| c.significant()) {
        let _ = writeln!(
            out,
            "{:<14}{:<20}{:>9}{:>13}{:>13}{:>8.3}x{:>13.1}  {} ({}, {} is better)",
            c.kernel,
            c.memtype,
            size_label(c.size),
            value_label(c.unit, c.a),
            value_label(c.unit, c.b),
            c.ratio,
            c.threshold_pct(),
            c.better(),
            c.unit.label(),
            c.unit.better()
        );
    }
    let same = changes.iter().filter(|c| !c.significant()).count();
    let _ = writeln!(
        out,
        "{same} of {} points within the runs' spread, not listed (all are in compare.csv)",
        changes.len()
    );
    out
}

/// `compare.csv`: one row per change, biggest first, with both cvs and the change each
/// needs to be significant (percent).
pub fn csv(changes: &[Change]) -> String {
    let mut out = String::from(
        "kernel,memtype,size_bytes,unit,a_best,b_best,ratio_b_over_a,better,a_cv_pct,b_cv_pct,threshold_pct\n",
    );
    for c in changes {
        csv_row(
            &mut out,
            &[
                &c.kernel,
                &c.memtype,
                &c.size,
                &c.unit.id(),
                &c.a,
                &c.b,
                &c.ratio,
                &c.better(),
                &c.cv_a,
                &c.cv_b,
                &c.threshold_pct(),
            ],
        );
    }
    out
}

/// The kernels both runs measured, in A's order.
pub fn common_kernels<'a>(a: &'a Run, changes: &[Change]) -> Vec<&'a str> {
    distinct(a.measurements.iter().map(|m| m.kernel.as_str()))
        .into_iter()
        .filter(|k| changes.iter().any(|c| c.kernel == *k))
        .collect()
}

/// A loaded-latency point both runs measured: same streams' kernel, memory type and core
/// count.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedChange {
    /// The streams' kernel.
    pub kernel: String,
    /// The streams' memory type.
    pub memtype: String,
    /// CPUs running (the chase and `cores - 1` streams).
    pub cores: u64,
    /// Run A's point.
    pub a: LoadedLatency,
    /// Run B's point.
    pub b: LoadedLatency,
}

impl LoadedChange {
    /// B's slowdown over A's: B's `ratio` / A's `ratio` (NaN when A's is not positive).
    pub fn change(&self) -> f64 {
        if self.a.ratio > 0.0 {
            self.b.ratio / self.a.ratio
        } else {
            f64::NAN
        }
    }

    /// Whether |change - 1| exceeds [`MIN_CHANGE_PCT`] (the rule of [`Change`] with both cvs
    /// unknown, as a `loaded_latency` record has none).
    pub fn significant(&self) -> bool {
        let c = self.change();
        c.is_finite() && (c - 1.0).abs() * 100.0 > MIN_CHANGE_PCT
    }

    /// Which run's chase suffers less from the streams: `"A"`, `"B"` or `"same"` when the
    /// change is not [significant](LoadedChange::significant) (a lower ratio is better).
    pub fn better(&self) -> &'static str {
        if !self.significant() {
            "same"
        } else if self.change() < 1.0 {
            "B"
        } else {
            "A"
        }
    }
}

/// The loaded-latency points both runs measured, in the order of A's report table (a
/// repeated point keeps the last).
pub fn loaded_changes(a: &Run, b: &Run) -> Vec<LoadedChange> {
    let in_b = crate::report::loaded_latency_rows(b);
    crate::report::loaded_latency_rows(a)
        .into_iter()
        .filter_map(|pa| {
            let pb = in_b.iter().find(|p| {
                (p.kernel.as_str(), p.memtype.as_str(), p.cores)
                    == (pa.kernel.as_str(), pa.memtype.as_str(), pa.cores)
            })?;
            Some(LoadedChange {
                kernel: pa.kernel.clone(),
                memtype: pa.memtype.clone(),
                cores: pa.cores,
                a: pa.clone(),
                b: (*pb).clone(),
            })
        })
        .collect()
}

/// The loaded-latency points of both runs for the terminal: every common point with both
/// ratios and idle/loaded ns, the change of the ratio and the better run; nothing when
/// neither run has loaded-latency points, one line when they have none in common.
pub fn loaded_table(a: &Run, b: &Run) -> String {
    if a.loaded_latency.is_empty() && b.loaded_latency.is_empty() {
        return String::new();
    }
    let changes = loaded_changes(a, b);
    if changes.is_empty() {
        return format!(
            "loaded latency: no point in common (same streams' kernel, memory type and cores; \
             {} in A, {} in B)\n",
            a.loaded_latency.len(),
            b.loaded_latency.len()
        );
    }
    let mut out = format!(
        "loaded latency: ratio = loaded / idle ns per load of the boot core's chase; B/A of \
         the ratios counts when |B/A - 1| > {MIN_CHANGE_PCT:.0} %\n\
         {:<11}{:<16}{:>6}{:>22}{:>22}{:>9}{:>9}{:>9}  better\n",
        "streams",
        "memory type",
        "cores",
        "A idle/loaded (ns)",
        "B idle/loaded (ns)",
        "A",
        "B",
        "B/A"
    );
    for c in &changes {
        let pair = |p: &LoadedLatency| format!("{:.2}/{:.2}", p.idle_ns, p.loaded_ns);
        let _ = writeln!(
            out,
            "{:<11}{:<16}{:>6}{:>22}{:>22}{:>8.3}x{:>8.3}x{:>8.3}x  {} (lower ratio is better)",
            c.kernel,
            c.memtype,
            c.cores,
            pair(&c.a),
            pair(&c.b),
            c.a.ratio,
            c.b.ratio,
            c.change(),
            c.better()
        );
    }
    out
}

/// `compare-loaded-latency.csv`: one row per loaded-latency point both runs measured, in
/// [`loaded_changes`]' order (ns per load; the ratios are loaded / idle).
pub fn loaded_csv(changes: &[LoadedChange]) -> String {
    let mut out = String::from(
        "kernel,memtype,cores,a_idle_ns,a_loaded_ns,a_ratio,b_idle_ns,b_loaded_ns,b_ratio,\
         ratio_b_over_a,better,threshold_pct\n",
    );
    for c in changes {
        csv_row(
            &mut out,
            &[
                &c.kernel,
                &c.memtype,
                &c.cores,
                &c.a.idle_ns,
                &c.a.loaded_ns,
                &c.a.ratio,
                &c.b.idle_ns,
                &c.b.loaded_ns,
                &c.b.ratio,
                &c.change(),
                &c.better(),
                &MIN_CHANGE_PCT,
            ],
        );
    }
    out
}

/// A verdict whose status differs between the two runs (or that only one run has).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerdictChange {
    /// The verdict's name.
    pub name: String,
    /// Its status in A (`None`: A has no such verdict).
    pub a: Option<String>,
    /// Its status in B (`None`: B has no such verdict).
    pub b: Option<String>,
    /// B's why, else A's.
    pub why: String,
}

/// The verdicts whose status changed from A to B, in A's order, then those only B has.
pub fn verdict_changes(a: &Run, b: &Run) -> Vec<VerdictChange> {
    let names = distinct(
        a.verdicts
            .iter()
            .chain(&b.verdicts)
            .map(|v| v.name.as_str()),
    );
    names
        .into_iter()
        .filter_map(|name| {
            let find = |r: &Run| r.verdicts.iter().rev().find(|v| v.name == name).cloned();
            let (va, vb) = (find(a), find(b));
            let status = |v: &Option<crate::model::Verdict>| v.as_ref().map(|v| v.status.clone());
            let (sa, sb) = (status(&va), status(&vb));
            (sa != sb).then(|| VerdictChange {
                name: name.to_owned(),
                a: sa,
                b: sb,
                why: vb.or(va).map(|v| v.why).unwrap_or_default(),
            })
        })
        .collect()
}

/// The verdict changes for the terminal: a line per changed verdict (`A -> B` and B's why),
/// or one line saying none changed; nothing when neither run has verdicts.
pub fn verdict_table(a: &Run, b: &Run) -> String {
    if a.verdicts.is_empty() && b.verdicts.is_empty() {
        return String::new();
    }
    let changed = verdict_changes(a, b);
    if changed.is_empty() {
        return format!(
            "verdicts: none changed ({} in A, {} in B)\n",
            a.verdicts.len(),
            b.verdicts.len()
        );
    }
    let mut out = format!("verdicts that changed ({} of them):\n", changed.len());
    let width = changed.iter().map(|c| c.name.len()).max().unwrap_or(0);
    for c in &changed {
        let _ = writeln!(
            out,
            "  {:<width$}  {:>4} -> {:<4}  {}",
            c.name,
            c.a.as_deref().unwrap_or("none"),
            c.b.as_deref().unwrap_or("none"),
            c.why
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{LoadedLatency, Measurement};

    fn run(points: &[(&str, Unit, f64)]) -> Run {
        run_cv(points, 0.0)
    }

    fn run_cv(points: &[(&str, Unit, f64)], cv_pct: f64) -> Run {
        Run {
            measurements: points
                .iter()
                .map(|&(kernel, unit, best)| Measurement {
                    memtype: "normal-wb".into(),
                    kernel: kernel.into(),
                    granule: "4K".into(),
                    size: 4096,
                    unit,
                    best,
                    median: best,
                    cv_pct,
                    reps: 1,
                    pmu: None,
                    start: None,
                    line_state: None,
                })
                .collect(),
            ..Run::default()
        }
    }

    #[test]
    fn biggest_change_first_and_direction() {
        let a = run(&[
            ("read-ldp", Unit::MegabytesPerSecond, 100.0),
            ("latency", Unit::NsPerLoad, 10.0),
        ]);
        let b = run(&[
            ("read-ldp", Unit::MegabytesPerSecond, 110.0),
            ("latency", Unit::NsPerLoad, 5.0),
        ]);
        let c = changes(&a, &b);
        assert_eq!(c[0].kernel, "latency");
        assert_eq!(c[0].better(), "B");
        assert_eq!(c[1].better(), "B");
        assert!(changes(&a, &a)
            .iter()
            .all(|c| c.ratio == 1.0 && c.better() == "same"));
    }

    #[test]
    fn only_changes_beyond_the_spread_count() {
        let mbps = Unit::MegabytesPerSecond;
        // 6452 vs 6454 MB/s: no winner.
        let c = changes(
            &run(&[("read-ldp", mbps, 6452.0)]),
            &run(&[("read-ldp", mbps, 6454.0)]),
        );
        assert_eq!((c[0].better(), c[0].significant()), ("same", false));
        // 7 % with cvs of 1 % each: beyond max(5 %, 2 %).
        let a = run_cv(&[("read-ldp", mbps, 100.0)], 1.0);
        let b = run_cv(&[("read-ldp", mbps, 107.0)], 1.0);
        let c = changes(&a, &b);
        assert_eq!((c[0].threshold_pct(), c[0].better()), (5.0, "B"));
        // The same 7 % with cvs of 4 % each: within max(5 %, 8 %).
        let a = run_cv(&[("read-ldp", mbps, 100.0)], 4.0);
        let b = run_cv(&[("read-ldp", mbps, 107.0)], 4.0);
        let c = changes(&a, &b);
        assert_eq!((c[0].threshold_pct(), c[0].better()), (8.0, "same"));
        let t = table(&c);
        assert!(!t.contains("read-ldp"), "{t}");
        assert!(t.contains("1 of 1 points within the runs' spread"), "{t}");
        // An unknown cv counts as 0.
        let mut c = c[0].clone();
        (c.cv_a, c.cv_b) = (f64::NAN, f64::NAN);
        assert_eq!(c.threshold_pct(), MIN_CHANGE_PCT);
    }

    #[test]
    fn verdicts_that_changed() {
        let verdict = |name: &str, status: &str| crate::model::Verdict {
            name: name.into(),
            status: status.into(),
            evidence: vec![],
            why: format!("{name} is {status}"),
            core_note: None,
        };
        let mut a = Run::default();
        let mut b = Run::default();
        assert_eq!(verdict_table(&a, &b), "");
        a.verdicts = vec![
            verdict("caches-on", "pass"),
            verdict("clock", "warn"),
            verdict("uncached", "pass"),
        ];
        b.verdicts = vec![
            verdict("clock", "warn"),
            verdict("caches-on", "fail"),
            verdict("smp-config", "pass"),
        ];
        let c = verdict_changes(&a, &b);
        let seen: Vec<_> = c
            .iter()
            .map(|c| {
                (
                    c.name.as_str(),
                    c.a.as_deref(),
                    c.b.as_deref(),
                    c.why.as_str(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                ("caches-on", Some("pass"), Some("fail"), "caches-on is fail"),
                ("uncached", Some("pass"), None, "uncached is pass"),
                ("smp-config", None, Some("pass"), "smp-config is pass"),
            ]
        );
        let t = verdict_table(&a, &b);
        assert_eq!(
            t.lines().collect::<Vec<_>>(),
            [
                "verdicts that changed (3 of them):",
                "  caches-on   pass -> fail  caches-on is fail",
                "  uncached    pass -> none  uncached is pass",
                "  smp-config  none -> pass  smp-config is pass",
            ]
        );
        assert_eq!(
            verdict_table(&a, &a),
            "verdicts: none changed (3 in A, 3 in B)\n"
        );
    }

    #[test]
    fn loaded_latency_by_the_ratio() {
        let point = |memtype: &str, cores: u64, ratio: f64| LoadedLatency {
            memtype: memtype.into(),
            kernel: "read-ldp".into(),
            cores,
            bytes_per_core: 1 << 20,
            chase_memtype: "normal-wb".into(),
            chase_granule: "2M".into(),
            chase_bytes: 8 << 20,
            loads: 131072,
            idle_ns: 100.0,
            loaded_ns: 100.0 * ratio,
            ratio,
            stream_mbps: 3000,
            reps: 3,
        };
        let a = Run {
            loaded_latency: vec![
                point("normal-wb", 4, 1.20),
                point("normal-nc", 4, 1.20),
                point("device-ngnre", 4, 2.00),
                point("device-gre", 4, 1.50),
            ],
            ..Run::default()
        };
        let b = Run {
            loaded_latency: vec![
                // 1.22 / 1.20: 1.7 %, within 5 %.
                point("normal-wb", 4, 1.22),
                // 1.30 / 1.20: 8.3 % worse.
                point("normal-nc", 4, 1.30),
                // 1.50 / 2.00: 25 % better.
                point("device-ngnre", 4, 1.50),
                // Another core count: not the same point.
                point("device-gre", 2, 1.10),
            ],
            ..Run::default()
        };
        let c = loaded_changes(&a, &b);
        let seen: Vec<_> = c.iter().map(|c| (c.memtype.as_str(), c.better())).collect();
        assert_eq!(
            seen,
            [
                ("normal-wb", "same"),
                ("normal-nc", "A"),
                ("device-ngnre", "B")
            ]
        );
        assert!((c[2].change() - 0.75).abs() < 1e-12);
        let t = loaded_table(&a, &b);
        assert!(t.contains("counts when |B/A - 1| > 5 %"), "{t}");
        let words: Vec<&str> = t.lines().nth(4).unwrap().split_whitespace().collect();
        assert_eq!(
            words,
            [
                "read-ldp",
                "device-ngnre",
                "4",
                "100.00/200.00",
                "100.00/150.00",
                "2.000x",
                "1.500x",
                "0.750x",
                "B",
                "(lower",
                "ratio",
                "is",
                "better)"
            ],
            "{t}"
        );
        let csv = loaded_csv(&c);
        assert_eq!(
            csv.lines().nth(3),
            Some("read-ldp,device-ngnre,4,100,200,2,100,150,1.5,0.75,B,5")
        );
        // Nothing in common: one line; neither has points: nothing.
        let other = Run {
            loaded_latency: vec![point("device-gre", 2, 1.1)],
            ..Run::default()
        };
        assert_eq!(
            loaded_table(&a, &other),
            "loaded latency: no point in common (same streams' kernel, memory type and cores; 4 in A, 1 in B)\n"
        );
        assert_eq!(loaded_table(&Run::default(), &Run::default()), "");
    }

    #[test]
    fn per_kernel_summary() {
        let ns = Unit::NsPerLoad;
        let mut a = run(&[("latency", ns, 10.0)]);
        let mut b = run(&[("latency", ns, 20.0)]);
        for (memtype, x, y) in [("normal-nc", 10.0, 5.0), ("device-gre", 10.0, 10.1)] {
            for (r, v) in [(&mut a, x), (&mut b, y)] {
                let mut m = r.measurements[0].clone();
                (m.memtype, m.best) = (memtype.into(), v);
                r.measurements.push(m);
            }
        }
        let s = summary(&changes(&a, &b));
        assert_eq!(s.len(), 1);
        assert_eq!((s[0].points, s[0].b_better, s[0].b_worse), (3, 1, 1));
        // (2 x 0.5 x 1.01)^(1/3)
        assert!(
            (s[0].geomean - 1.01f64.powf(1.0 / 3.0)).abs() < 1e-12,
            "{}",
            s[0].geomean
        );
        let t = summary_table(&s);
        assert!(t.contains("max(5 %, cv A + cv B)"), "{t}");
        assert!(t.lines().nth(2).unwrap().starts_with("latency"), "{t}");
    }
}
