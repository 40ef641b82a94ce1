//! Two runs side by side: per (kernel, memory type, size) the ratio B/A of the best values,
//! the biggest changes first.

use crate::model::{Run, Unit};
use crate::report::{csv_field, distinct, size_label, value_label};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One point measured in both runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// Kernel name.
    pub kernel: String,
    /// Memory type name.
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
}

impl Change {
    /// Which run is better at this point: `"A"`, `"B"` or `"same"` (lower is better for ns).
    pub fn better(&self) -> &'static str {
        let b_higher = self.ratio > 1.0;
        if self.ratio == 1.0 || !self.ratio.is_finite() {
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
    let in_b: BTreeMap<_, _> = b
        .measurements
        .iter()
        .map(|m| {
            (
                (m.kernel.as_str(), m.memtype.as_str(), m.size, m.unit),
                m.best,
            )
        })
        .collect();
    let mut seen = BTreeMap::new();
    for m in &a.measurements {
        let key = (m.kernel.as_str(), m.memtype.as_str(), m.size, m.unit);
        let Some(&b) = in_b.get(&key) else { continue };
        if m.best > 0.0 && b > 0.0 && m.best.is_finite() && b.is_finite() {
            let order = seen.len();
            seen.entry(key).or_insert((order, m.best, b)).1 = m.best;
        }
    }
    let mut out: Vec<(usize, Change)> = seen
        .into_iter()
        .map(|((kernel, memtype, size, unit), (order, a, b))| {
            let change = Change {
                kernel: kernel.into(),
                memtype: memtype.into(),
                size,
                unit,
                a,
                b,
                ratio: b / a,
            };
            (order, change)
        })
        .collect();
    out.sort_by(|(oa, x), (ob, y)| {
        let (x, y) = (x.ratio.ln().abs(), y.ratio.ln().abs());
        y.total_cmp(&x).then(oa.cmp(ob))
    });
    out.into_iter().map(|(_, c)| c).collect()
}

/// The changes as a table for the terminal.
pub fn table(changes: &[Change]) -> String {
    let mut out = format!(
        "{:<14}{:<20}{:>9}{:>13}{:>13}{:>9}  better\n",
        "kernel", "memory type", "size", "A", "B", "B/A"
    );
    for c in changes {
        let _ = writeln!(
            out,
            "{:<14}{:<20}{:>9}{:>13}{:>13}{:>8.3}x  {} ({}, {} is better)",
            c.kernel,
            c.memtype,
            size_label(c.size),
            value_label(c.unit, c.a),
            value_label(c.unit, c.b),
            c.ratio,
            c.better(),
            c.unit.label(),
            if c.unit.higher_is_better() {
                "higher"
            } else {
                "lower"
            }
        );
    }
    out
}

/// `compare.csv`: one row per change, biggest first.
pub fn csv(changes: &[Change]) -> String {
    let mut out =
        String::from("kernel,memtype,size_bytes,unit,a_best,b_best,ratio_b_over_a,better\n");
    for c in changes {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{}",
            csv_field(&c.kernel),
            csv_field(&c.memtype),
            c.size,
            c.unit.id(),
            c.a,
            c.b,
            c.ratio,
            c.better()
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
    use super::*;
    use crate::model::Measurement;

    fn run(points: &[(&str, Unit, f64)]) -> Run {
        Run {
            measurements: points
                .iter()
                .map(|&(kernel, unit, best)| Measurement {
                    memtype: "normal-wb".into(),
                    kernel: kernel.into(),
                    size: 4096,
                    unit,
                    best,
                    median: best,
                    cv_pct: 0.0,
                    reps: 1,
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
}
