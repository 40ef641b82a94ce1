//! The comparison for the terminal (the overall line, the per-kernel summary, the class
//! shifts, the significant points) and `compare.csv`.

use super::judge::{Change, Overall, KERNEL_NOISE_TIMES, MIN_CHANGE_PCT, NOISE_TIMES, RUN_SIZES};
use super::summary::{ClassShift, KernelSummary};
use crate::read::model::{distinct, Run};
use crate::read::text::{csv_row, size_label, value_label};
use std::fmt::Write as _;

/// The class shifts for the terminal: one line each, or nothing when there are none.
pub fn class_shift_table(shifts: &[ClassShift]) -> String {
    if shifts.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "Device types against Normal types ({RUN_SIZES} adjacent sizes agreeing, beyond the \
         kernel's threshold): a change the whole class shares\n\
         {:<14}{:>22}{:>7}{:>24}  better\n",
        "kernel", "sizes", "count", "B/A Device over Normal"
    );
    for s in shifts {
        let _ = writeln!(
            out,
            "{:<14}{:>22}{:>7}{:>23.3}x  {} (Device types, {}, {} is better)",
            s.kernel,
            format!("{} to {}", size_label(s.from), size_label(s.to)),
            s.sizes,
            s.factor,
            s.better(),
            s.unit.label(),
            s.unit.better()
        );
    }
    out
}

/// A chart title's note for a kernel that moved as a whole, else `""`.
pub fn moved_note(summaries: &[KernelSummary], kernel: &str) -> String {
    summaries
        .iter()
        .find(|s| s.kernel == kernel)
        .and_then(|s| s.moved)
        .map_or_else(String::new, |m| {
            format!(" (moved as a whole, {m:.3}x: disturbed or changed, rerun it)")
        })
}

/// The overall line: the factor common to all points, reported once, and the noise the
/// points are judged against.
pub fn overall_line(o: &Overall) -> String {
    format!(
        "overall: B/A = {:.3}x (median of {} points), reported once: each point is judged \
         against the points measured with it\n\
         noise of this pair: {:.1} % (1.4826 x median deviation from those; each kernel's in \
         the table); a point needs at least {:.1} % (max({MIN_CHANGE_PCT:.0} %, \
         {NOISE_TIMES:.0} x noise, {KERNEL_NOISE_TIMES:.0} x its kernel's, its samples' spread), \
         more in a group that moved together, and {RUN_SIZES} adjacent sizes agreeing\n",
        o.factor, o.points, o.noise_pct, o.threshold_pct
    )
}

/// The summaries as a table for the terminal, with the significance rule.
pub fn summary_table(summaries: &[KernelSummary]) -> String {
    let mut out = format!(
        "per kernel: geometric mean of B/A; better/worse count significant points \
         (best and median beyond the threshold, {RUN_SIZES} adjacent sizes agreeing); shared \
         = sizes where one class's types moved together; noise = the kernel's (percent)\n\
         {:<14}{:>8}{:>14}{:>10}{:>9}{:>8}{:>8}{:>9}  unit\n",
        "kernel", "points", "geomean B/A", "B better", "B worse", "same", "shared", "noise %"
    );
    for s in summaries {
        let _ = writeln!(
            out,
            "{:<14}{:>8}{:>13.3}x{:>10}{:>9}{:>8}{:>8}{:>9.1}  {} ({} is better)",
            s.kernel,
            s.points,
            s.geomean,
            s.b_better,
            s.b_worse,
            s.points - s.b_better - s.b_worse,
            s.shared_shifts,
            s.noise_pct,
            s.unit.label(),
            s.unit.better()
        );
    }
    let moved: Vec<&KernelSummary> = summaries.iter().filter(|s| s.moved.is_some()).collect();
    if !moved.is_empty() {
        let each: Vec<String> = moved
            .iter()
            .map(|s| format!("{} {:.3}x", s.kernel, s.moved.unwrap_or(1.0)))
            .collect();
        let names: Vec<&str> = moved.iter().map(|s| s.kernel.as_str()).collect();
        let (them, they, kernels) = match moved.len() {
            1 => ("it", "it", "the kernel itself"),
            _ => ("them", "they", "the kernels themselves"),
        };
        let _ = writeln!(
            out,
            "moved as a whole, against the overall factor: {}. Each point is judged against \
             its own kernel's, so these moves are not findings: the host disturbed {them} \
             while {they} ran, or {kernels} changed between the builds; rerun {them} to tell \
             (mairbench.kernels={})",
            each.join(", "),
            names.join(",")
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
            "{:<14}{:<20}{:>9}{:>13}{:>13}{:>9}{:>9}{:>11}  better\n",
            "kernel", "memory type", "size", "A", "B", "B/A", "vs ref", "needs (%)"
        );
    }
    for c in changes.iter().filter(|c| c.significant()) {
        let _ = writeln!(
            out,
            "{:<14}{:<20}{:>9}{:>13}{:>13}{:>8.3}x{:>8.3}x{:>11.1}  {} ({}, {} is better)",
            c.kernel,
            c.memtype,
            size_label(c.size),
            value_label(c.unit, c.a),
            value_label(c.unit, c.b),
            c.ratio,
            c.relative(),
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

/// `compare.csv`: one row per change, biggest first, with both cvs, the change each needs to
/// be significant (percent), both medians and the reference B/A it was judged against.
pub fn csv(changes: &[Change]) -> String {
    let mut out = String::from(
        "kernel,memtype,size_bytes,unit,a_best,b_best,ratio_b_over_a,better,a_cv_pct,b_cv_pct,\
         threshold_pct,a_median,b_median,reference_b_over_a,reference_all_b_over_a\n",
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
                &((c.threshold_pct() * 100.0).round() / 100.0),
                &c.a_median,
                &c.b_median,
                &((c.reference * 1e6).round() / 1e6),
                &((c.reference_all * 1e6).round() / 1e6),
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

#[cfg(test)]
mod tests {
    use super::super::judge::{changes, overall};
    use super::super::summary::{class_shifts, summary};
    use super::super::testing::{noisy_run, KERNELS};
    use super::*;
    use mairbench_core::memtype::{self, Class};

    /// The significant points, as `kernel memtype size`.
    fn flagged(c: &[Change]) -> Vec<String> {
        c.iter()
            .filter(|c| c.significant())
            .map(|c| format!("{} {} {}", c.kernel, c.memtype, c.size))
            .collect()
    }

    const NONE: [String; 0] = [];

    #[test]
    fn noise_and_isolated_slow_points_are_not_findings() {
        // Run B: every 23rd point slowed 1.7x by the host, and a whole size of one kernel.
        let a = noisy_run(1, 1.0, |_, _, _| false, None);
        let b = noisy_run(
            2,
            1.0,
            |k, t, s| (k * 96 + t + 8 * s as usize).is_multiple_of(23) || (k, s) == (1, 5),
            None,
        );
        let c = changes(&a, &b);
        assert_eq!(c.len(), 6 * 8 * 12);
        // The old rule (|B/A - 1| > max(5 %, cv A + cv B)) flagged every slowed point.
        let old = c.iter().filter(|c| (c.ratio - 1.0).abs() > 0.05).count();
        assert!(old >= 25, "{old}");
        assert_eq!(flagged(&c), NONE, "nothing is a finding");
        let o = overall(&c);
        assert!((o.factor - 1.0).abs() < 0.01, "{o:?}");
        assert!(
            o.noise_pct < 3.0 && o.threshold_pct >= MIN_CHANGE_PCT,
            "{o:?}"
        );
        // The slowed size of write-stp moved together: one shared shift per class.
        let s = summary(&c);
        assert!(s.iter().all(|k| k.moved.is_none()), "{s:?}");
        assert_eq!(s[1].kernel, "write-stp");
        assert_eq!(s[1].shared_shifts, 2, "{s:?}");
        assert_eq!(s[0].shared_shifts, 0, "{s:?}");
        let t = table(&c);
        assert!(
            t.contains("576 of 576 points within the runs' spread"),
            "{t}"
        );
    }

    #[test]
    fn a_kernel_that_moved_as_a_whole_is_said_with_a_rerun() {
        // As CI saw under QEMU on a loaded host: two runs of one image, one kernel 0.71x in B
        // at every size and type, which no point shows against its own kernel's reference.
        let a = noisy_run(1, 1.0, |_, _, _| false, None);
        let mut b = noisy_run(2, 1.0, |_, _, _| false, None);
        for m in b
            .measurements
            .iter_mut()
            .filter(|m| m.kernel == "write-stp")
        {
            (m.best, m.median) = (m.best * 0.71, m.median * 0.71);
        }
        let c = changes(&a, &b);
        assert_eq!(flagged(&c), NONE);
        let s = summary(&c);
        let moved: Vec<(&str, f64)> = s
            .iter()
            .filter_map(|k| Some((k.kernel.as_str(), k.moved?)))
            .collect();
        assert_eq!(moved.len(), 1, "{s:?}");
        assert_eq!(moved[0].0, "write-stp");
        assert!((moved[0].1 - 0.71).abs() < 0.03, "{moved:?}");
        let t = summary_table(&s);
        assert!(
            t.contains("moved as a whole, against the overall factor: write-stp 0.7")
                && t.contains("rerun it to tell (mairbench.kernels=write-stp)"),
            "{t}"
        );
        assert!(moved_note(&s, "write-stp").contains("moved as a whole"));
        assert_eq!(moved_note(&s, "read-ldp"), "");
    }

    #[test]
    fn a_shift_common_to_every_point_is_reported_once() {
        // B's clock 7 % faster: every point 1.07x, within the runs' 2 % noise.
        let a = noisy_run(1, 1.0, |_, _, _| false, None);
        let b = noisy_run(2, 1.07, |_, _, _| false, None);
        let c = changes(&a, &b);
        let o = overall(&c);
        assert!((o.factor - 1.07).abs() < 0.01, "{o:?}");
        assert_eq!(flagged(&c), NONE);
        assert!(summary(&c).iter().all(|s| s.shared_shifts == 0));
        let line = overall_line(&o);
        assert!(line.starts_with("overall: B/A = 1.07"), "{line}");
        // And a planted change on top of it is judged against it.
        let b = noisy_run(
            2,
            1.07,
            |_, _, _| false,
            Some(("read-ldnp", "normal-wt", 1.2)),
        );
        let c = changes(&a, &b);
        let found = flagged(&c);
        assert_eq!(found.len(), 12, "{found:?}");
        assert!(found.iter().all(|p| p.starts_with("read-ldnp normal-wt ")));
        let point = c.iter().find(|c| c.significant()).unwrap();
        assert!((point.relative() - 1.2).abs() < 0.03, "{point:?}");
    }

    /// A whole class moved: every Device type of one kernel 3x faster in B at every size
    /// is one class shift (no point of it is listed: each moved with its class); at 1.5x
    /// (within [`CLASS_MIN_PCT`]), or 3x at two sizes only, there is none; host-slowed points
    /// and a planted single-type change make none either.
    #[test]
    fn a_whole_class_that_moved_is_named_once() {
        let a = noisy_run(1, 1.0, |_, _, _| false, None);
        let with = |f: f64, at: &dyn Fn(u32) -> bool| {
            let mut b = noisy_run(2, 1.0, |k, t, s| k == 2 && t == 5 && s == 3, None);
            for m in &mut b.measurements {
                let s = (m.size / 4096).trailing_zeros();
                let device = memtype::by_name(&m.memtype).unwrap().class() == Class::Device;
                if m.kernel == "write-stp" && device && at(s) {
                    (m.best, m.median) = (m.best * f, m.median * f);
                }
            }
            class_shifts(&changes(&a, &b))
        };
        let found = with(3.0, &|_| true);
        assert_eq!(found.len(), 1, "{found:?}");
        let s = &found[0];
        assert_eq!(
            (s.kernel.as_str(), s.from, s.to, s.sizes, s.better()),
            ("write-stp", 4096, 4096 << 11, 12, "B")
        );
        assert!((s.factor - 3.0).abs() < 0.1, "{s:?}");
        let t = class_shift_table(&found);
        assert!(
            t.contains("write-stp") && t.contains("4 KiB to 8 MiB"),
            "{t}"
        );
        assert!(with(1.5, &|_| true).is_empty());
        assert!(with(3.0, &|s| s == 4 || s == 5).is_empty());
        assert!(with(1.0, &|_| true).is_empty());
        assert_eq!(class_shift_table(&[]), "");
    }

    #[test]
    fn per_kernel_summary() {
        let a = noisy_run(1, 1.0, |_, _, _| false, None);
        let mut b = noisy_run(
            2,
            1.0,
            |_, _, _| false,
            Some(("read-ldp", "normal-nc", 1.25)),
        );
        for m in &mut b.measurements {
            if (m.kernel.as_str(), m.memtype.as_str()) == ("write-stp", "device-gre") {
                (m.best, m.median) = (m.best * 0.75, m.median * 0.75);
            }
        }
        let s = summary(&changes(&a, &b));
        assert_eq!(s.len(), KERNELS.len());
        // Kernels in the order of the biggest change first: 0.75x before 1.25x.
        let row = |s: &KernelSummary| (s.kernel.clone(), s.points, s.b_better, s.b_worse);
        assert_eq!(row(&s[0]), ("write-stp".into(), 96, 0, 12));
        assert_eq!(row(&s[1]), ("read-ldp".into(), 96, 12, 0));
        assert!(s[2..].iter().all(|s| (s.b_better, s.b_worse) == (0, 0)));
        // 12 of 96 points 1.25x, the rest within 2 % noise.
        assert!(
            (s[1].geomean.ln() - 1.25f64.ln() / 8.0).abs() < 0.01,
            "{}",
            s[1].geomean
        );
        let t = summary_table(&s);
        assert!(t.contains("3 adjacent sizes agreeing"), "{t}");
        assert!(t.lines().nth(2).unwrap().starts_with("write-stp"), "{t}");
    }
}
