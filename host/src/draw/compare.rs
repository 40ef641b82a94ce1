//! Two runs compared (`cargo host compare --out`): B/A of the best values of one kernel per
//! memory type and size, with the pair's noise band and the significant points ringed.

use super::frame::{render, Header};
use super::notes::cache_marks;
use super::panel::{log2, Mark, Panel, Series, XKind};
use super::style::{
    CACHE_COLOUR, EMULATED_NOTE, FOOT_COLOUR, GUEST, GUEST_CACHES_NOTE, NOTE_COLOUR, WIDE_PANEL_W,
};
use super::values::best_points;
use crate::analyse::compare::{describe, overall, summary, Change, Overall};
use crate::read::model::{self, Run, Unit};
use plotters::style::RGBColor;

/// The two runs of a comparison and their short labels (see `compare::labels`).
pub struct Pair<'a> {
    /// Run A, the reference.
    pub a: &'a Run,
    /// Run B.
    pub b: &'a Run,
    /// A's short label (its file stem).
    pub label_a: &'a str,
    /// B's short label.
    pub label_b: &'a str,
}

/// An SVG of the ratio B/A of `best` for `kernel`, per memory type and size measured in both
/// runs, with a line at 1.0 and a shaded band for the noise: the overall factor of the judged
/// `changes` times and divided by (1 + their smallest threshold) ([`Overall`]),
/// so that points inside it read as noise. The axis label says what a ratio above 1 means
/// ("B faster" for MB/s, "B slower" for times); a line under the title names each run by
/// label, platform and CPU, another the band and the kernel's significant points. Err when
/// the runs share no point of the kernel.
pub fn compare(
    runs: &Pair,
    kernel: &str,
    title: &str,
    changes: &[Change],
) -> Result<String, String> {
    let (a, b) = (runs.a, runs.b);
    let Some(unit) = a.unit_of(kernel) else {
        return Err(format!("run A has no measurements of {kernel}"));
    };
    if b.unit_of(kernel).is_none() {
        return Err(format!("run B has no measurements of {kernel}"));
    }
    let series = ratio_series(a, b, kernel, unit);
    if series.is_empty() {
        return Err(format!(
            "no memory type and size of {kernel} has usable measurements in both runs \
             (in {} in both)",
            unit.label()
        ));
    }
    let meaning = if unit.higher_is_better() {
        "B faster"
    } else {
        "B slower"
    };
    let mut panel = Panel::new(
        format!("{kernel}: B/A"),
        format!("ratio B/A of best {} (> 1: {meaning})", unit.label()),
        XKind::Size,
        series,
        Some(1.0),
    );
    let overall = overall(changes);
    let counts = mark_noise(&mut panel, kernel, changes, &overall);
    // Labelled as the guest's where both runs are emulated; a board's next to an emulated
    // run keeps plain labels (the note under the title says what the emulated run's are).
    let prefix = if a.emulated && b.emulated { GUEST } else { "" };
    let (ma, mb) = (
        cache_marks(&a.caches, prefix),
        cache_marks(&b.caches, prefix),
    );
    let any_marks = !ma.is_empty() || !mb.is_empty();
    let header = Header {
        title: title.to_string(),
        lines: lines(runs, kernel, changes, &overall, counts, any_marks),
        footer: Vec::new(),
        legend: a.rows().label,
    };
    render(&header, &[panel], &both_marks(&ma, &mb), WIDE_PANEL_W)
}

/// Per memory type (a series, see [`model::series`]), B/A of the best values at each size
/// both runs measured.
fn ratio_series(a: &Run, b: &Run, kernel: &str, unit: Unit) -> Vec<Series> {
    // One memory type on two granules stays two series when either run has both.
    let both = a.measurements.iter().chain(&b.measurements);
    let mixed = model::mixed_granules(both, kernel);
    let (pa, pb) = (
        best_points(a, kernel, unit, mixed),
        best_points(b, kernel, unit, mixed),
    );
    let mut series = Vec::new();
    for (memtype, av) in &pa {
        let Some(bv) = pb.get(memtype) else { continue };
        let points: Vec<(f64, f64)> = av
            .iter()
            .filter_map(|(size, x)| {
                let r = bv.get(size)? / x;
                (*x > 0.0 && r.is_finite() && r >= 0.0).then(|| (log2(*size), r))
            })
            .collect();
        if !points.is_empty() {
            series.push(Series {
                memtype: memtype.clone(),
                points,
            });
        }
    }
    series
}

/// Shades the noise band around the overall factor and rings the kernel's significant
/// points; the points ringed and the kernel's points compared.
fn mark_noise(
    panel: &mut Panel,
    kernel: &str,
    changes: &[Change],
    overall: &Overall,
) -> (usize, usize) {
    let spread = 1.0 + overall.threshold_pct / 100.0;
    let band = (overall.factor / spread, overall.factor * spread);
    if band.0.is_finite() && band.1.is_finite() && band.0 > 0.0 {
        panel.band = Some(band);
        if !panel.log_y {
            panel.y_range = (
                panel.y_range.0.min(band.0 - 0.02).max(0.0),
                panel.y_range.1.max(band.1 + 0.02),
            );
        }
    }
    let of_kernel: Vec<_> = changes.iter().filter(|c| c.kernel == kernel).collect();
    panel.rings = of_kernel
        .iter()
        .filter(|c| c.significant() && c.size > 0)
        .map(|c| (log2(c.size), c.ratio))
        .collect();
    (panel.rings.len(), of_kernel.len())
}

/// The lines under the title: each run named, the band and the ringed points (`flagged` of
/// `points`), the kernel's shared shifts, and for an emulated run what its timings and cache
/// markers (`any_marks`) are.
fn lines(
    runs: &Pair,
    kernel: &str,
    changes: &[Change],
    overall: &Overall,
    (flagged, points): (usize, usize),
    any_marks: bool,
) -> Vec<(String, RGBColor)> {
    let (a, b) = (runs.a, runs.b);
    let grey = RGBColor(40, 40, 40);
    let mut lines = vec![
        (format!("A = {}: {}", runs.label_a, describe(a)), grey),
        (format!("B = {}: {}", runs.label_b, describe(b)), grey),
        (
            format!(
                "shaded: noise, {:.3}x overall \u{b1} {:.1} %; ringed: the {flagged} of {points} points significant",
                overall.factor, overall.threshold_pct
            ),
            FOOT_COLOUR,
        ),
    ];
    let shared = summary(changes)
        .into_iter()
        .find(|s| s.kernel == kernel)
        .map_or(0, |s| s.shared_shifts);
    if shared > 0 {
        lines.push((
            format!(
                "{shared} {} (a size and class) moved together away from the overall factor: \
                 a shift of the moment, not judged point by point",
                if shared == 1 { "group" } else { "groups" }
            ),
            FOOT_COLOUR,
        ));
    }
    if a.emulated || b.emulated {
        lines.push((EMULATED_NOTE.to_string(), NOTE_COLOUR));
        if any_marks {
            lines.push((GUEST_CACHES_NOTE.to_string(), CACHE_COLOUR));
        }
    }
    lines
}

/// Cache markers of both runs; one that only one run reported is prefixed "A " or "B ".
fn both_marks(ma: &[Mark], mb: &[Mark]) -> Vec<Mark> {
    let mut marks: Vec<Mark> = Vec::new();
    for (mark, other, prefix) in [(ma, mb, "A "), (mb, ma, "B ")] {
        for m in mark {
            if !other.contains(m) {
                marks.push((m.0, format!("{prefix}{}", m.1)));
            } else if !marks.contains(m) {
                marks.push(m.clone());
            }
        }
    }
    marks
}

#[cfg(test)]
mod tests {
    use super::super::testing::{
        assert_series, m, names, polylines, run_from_log, synthetic, texts,
    };
    use super::super::values::{pair, single};
    use super::*;
    use crate::analyse::compare::changes;

    /// [`compare`] of `a` and `b`, labelled "a" and "b", judged as `cargo host compare` does.
    fn cmp(a: &Run, b: &Run, kernel: &str, title: &str) -> Result<String, String> {
        let runs = Pair {
            a,
            b,
            label_a: "a",
            label_b: "b",
        };
        compare(&runs, kernel, title, &changes(a, b))
    }

    #[test]
    fn compare_ratio() {
        let a = synthetic(false);
        let mut b = synthetic(true);
        b.platform = "linux,dummy-virt".into();
        for m in &mut b.measurements {
            m.best *= 2.0;
        }
        let svg = cmp(&a, &b, "read-ldp", "B vs A").unwrap();
        assert_series(&svg, &names(), 1);
        let t = texts(&svg);
        assert!(
            t.iter()
                .any(|x| x == "ratio B/A of best MB/s (> 1: B faster)"),
            "{t:?}"
        );
        assert!(t.iter().any(|x| x == "B vs A"));
        assert!(
            t.iter().any(|x| x.starts_with("A = a: rockchip,rk3588")),
            "{t:?}"
        );
        assert!(t.iter().any(|x| x.starts_with("B = b: linux,dummy-virt")));
        assert!(t.iter().any(|x| x == EMULATED_NOTE));
        assert!(t.iter().any(|x| x == "2.0"), "ratio 2 on the axis: {t:?}");
        // The noise band around the overall factor (2.0: every point doubled), one rectangle
        // across the plot, named under the title.
        assert!(
            t.iter()
                .any(|x| x
                    .starts_with("shaded: noise, 2.000x overall \u{b1} 5.0 %; ringed: the 0 of ")),
            "{t:?}"
        );
        assert!(svg.contains("opacity=\"0.18\""), "the band is drawn");
        // The Device types at 64 KiB moved together: said once under the title.
        let mut moved = a.clone();
        for m in &mut moved.measurements {
            if m.size == 64 << 10 && m.memtype.starts_with("device") {
                m.best *= 3.0;
            }
        }
        let t = texts(&cmp(&a, &moved, "read-ldp", "x").unwrap());
        assert!(
            t.iter()
                .any(|x| x.starts_with("1 group (a size and class) moved together")),
            "{t:?}"
        );

        let svg = cmp(&a, &b, "latency", "x").unwrap();
        assert!(texts(&svg)
            .iter()
            .any(|x| x == "ratio B/A of best ns per load (> 1: B slower)"));

        // Different caches: both sets, prefixed.
        b.caches[1].size = 2 << 20;
        let t = texts(&cmp(&a, &b, "latency", "x").unwrap());
        assert!(t.iter().any(|x| x == "A L2 1M") && t.iter().any(|x| x == "B L2 2M"));
        assert!(t.iter().any(|x| x == "L1 32K"), "shared: no prefix");
    }

    #[test]
    fn runs_without_a_common_point_are_an_error() {
        let run = synthetic(false);
        assert!(cmp(&run, &Run::default(), "read-ldp", "x").is_err());
        assert!(cmp(&Run::default(), &run, "read-ldp", "x").is_err());
        assert!(cmp(&run, &run, "copy-to", "x").is_err());
    }

    #[test]
    fn bad_values_do_not_panic() {
        let mut run = synthetic(false);
        run.measurements.clear();
        let u = Unit::MegabytesPerSecond;
        for (i, v) in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 0.0, -5.0, 100.0]
            .into_iter()
            .enumerate()
        {
            run.measurements
                .push(m("normal-wb", "read-ldp", 4096 << i, u, v));
        }
        // Zero in A or B, NaN ratio: left out.
        let mut b = run.clone();
        for m in &mut b.measurements {
            m.best = 0.0;
        }
        let svg = cmp(&run, &b, "read-ldp", "x").unwrap();
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
        assert!(cmp(&b, &run, "read-ldp", "x").is_err());
    }

    #[test]
    fn a_single_point() {
        let mut run = Run::default();
        run.measurements
            .push(m("normal-wb", "latency", 3000, Unit::NsPerLoad, 4.2));
        let svg = cmp(&run, &run, "latency", "x").unwrap();
        assert_eq!(polylines(&svg).len(), 1);
    }

    /// Writes the charts of the synthetic runs and, when `MAIRBENCH_CHART_LOG` names a log,
    /// of that log, as SVG into `MAIRBENCH_CHART_DIR` (default /tmp/charts), to look at:
    /// `cargo test -p mairbench-host --lib --target host-tuple draw -- --ignored`.
    #[test]
    #[ignore]
    fn write_charts() {
        let dir = std::env::var("MAIRBENCH_CHART_DIR").unwrap_or("/tmp/charts".into());
        std::fs::create_dir_all(&dir).unwrap();
        let mut runs = vec![("synthetic", synthetic(false))];
        if let Ok(path) = std::env::var("MAIRBENCH_CHART_LOG") {
            runs.push(("log", run_from_log(&std::fs::read_to_string(path).unwrap())));
        }
        let write = |name: String, svg: Result<String, String>| match svg {
            Ok(svg) => std::fs::write(format!("{dir}/{name}.svg"), svg).unwrap(),
            Err(e) => eprintln!("{name}: {e}"),
        };
        for (name, run) in &runs {
            write(
                format!("{name}-rw"),
                pair(run, "read-ldp", "write-stp", "Streaming bandwidth"),
            );
            write(
                format!("{name}-latency"),
                single(run, "latency", "Load latency"),
            );
            write(
                format!("{name}-maint"),
                single(run, "maint-", "Cache maintenance by VA"),
            );
        }
        let mut b = synthetic(false);
        for (i, m) in b.measurements.iter_mut().enumerate() {
            m.best *= 0.8 + (i % 7) as f64 * 0.07;
        }
        let a = &runs.last().unwrap().1;
        write(
            "compare-read".into(),
            cmp(a, &b, "read-ldp", "Read bandwidth, B vs A"),
        );
        let mut sparse = runs[0].1.clone();
        sparse
            .measurements
            .retain(|m| m.size == 1 << 16 && m.memtype == "normal-nc");
        write("one-point".into(), single(&sparse, "latency", "One point"));
        write(
            "one-missing".into(),
            pair(&runs[0].1, "latency", "copy-to", "One missing"),
        );
        write(
            "compare-latency".into(),
            cmp(&runs[0].1, &b, "latency", "Latency, B vs A"),
        );
    }
}
