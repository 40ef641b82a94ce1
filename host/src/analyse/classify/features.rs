//! The features of each row (memory type or source): ln of its best MB/s over its log's
//! reference at each point both logs measured; the distance between two rows; the board's
//! groups of memory types it cannot tell apart.

use crate::read::model::{distinct, Run, PAGES};
use mairbench_core::kernel;
use std::collections::{BTreeMap, BTreeSet};

/// The ratio below which two memory types are one group: 1.35 (35 %).
pub(super) const TAU_RATIO: f64 = 1.35;

/// ln(`TAU_RATIO`): memory types closer than this (RMS of ln ratios) are joined.
pub(super) const TAU: f64 = 0.300_104_592_450_338_2;

/// The fewest common points a distance needs.
pub(super) const MIN_POINTS: usize = 2;

/// A point of a sweep: (kernel name, working-set size in bytes).
pub(super) type Point = (String, u64);

/// One row's features: ln(best MB/s / the reference's best MB/s) per point.
pub(super) type Sweep = BTreeMap<Point, f64>;

/// The features of every row (memory type or source), in log order.
pub(super) type Features = Vec<(String, Sweep)>;

/// One bandwidth result as the classifier reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Sample<'a> {
    /// The row: a memory type (firmware) or a source (twin).
    pub(super) row: &'a str,
    /// Kernel name.
    pub(super) kernel: &'a str,
    /// Working-set size, bytes.
    pub(super) size: u64,
    /// Best MB/s (MB = 10^6 B).
    pub(super) best_mbps: f64,
}

/// The bandwidth results of `run` (kernels whose unit is `Unit::Bandwidth` in core's kernel
/// table), in log order; with `pages_only`, those on 4 KiB pages only.
pub(super) fn samples(run: &Run, pages_only: bool) -> Vec<Sample<'_>> {
    run.measurements
        .iter()
        .filter(|m| {
            kernel::by_name(&m.kernel).is_some_and(|k| k.unit == kernel::Unit::Bandwidth)
                && (!pages_only || m.granule == PAGES)
        })
        .map(|m| Sample {
            row: &m.memtype,
            kernel: &m.kernel,
            size: m.size,
            best_mbps: m.best,
        })
        .collect()
}

/// Whether a value can be divided and its log taken.
fn usable(v: f64) -> bool {
    v.is_finite() && v > 0.0
}

/// The features of `samples` against the row `reference`: per row, in first-seen order, per
/// point where both the row and the reference have a usable (finite, positive) best,
/// ln(best / reference's best). A repeated point keeps the last. Rows with no feature are
/// listed with an empty sweep; the reference's own features are all 0.
pub(super) fn features(samples: &[Sample<'_>], reference: &str) -> Features {
    let key = |s: &Sample<'_>| (s.kernel.to_owned(), s.size);
    let mut base: BTreeMap<Point, f64> = BTreeMap::new();
    for s in samples.iter().filter(|s| s.row == reference) {
        base.insert(key(s), s.best_mbps);
    }
    let mut out: Features = distinct(samples.iter().map(|s| s.row))
        .into_iter()
        .map(|r| (r.to_owned(), Sweep::new()))
        .collect();
    for s in samples {
        let Some((_, sweep)) = out.iter_mut().find(|(r, _)| r == s.row) else {
            continue;
        };
        let b = base.get(&key(s)).copied().unwrap_or(f64::NAN);
        let f = (s.best_mbps / b).ln();
        if usable(s.best_mbps) && usable(b) && f.is_finite() {
            sweep.insert(key(s), f);
        } else {
            sweep.remove(&key(s));
        }
    }
    out
}

/// The points some row of `a` and some row of `b` have.
pub(super) fn common_points(a: &Features, b: &Features) -> BTreeSet<Point> {
    let of = |f: &Features| -> BTreeSet<Point> {
        f.iter().flat_map(|(_, s)| s.keys().cloned()).collect()
    };
    of(a).intersection(&of(b)).cloned().collect()
}

/// `features` with only the points in `points` (rows kept, perhaps empty).
pub(super) fn restrict(features: &Features, points: &BTreeSet<Point>) -> Features {
    features
        .iter()
        .map(|(r, s)| {
            let kept = s
                .iter()
                .filter(|(p, _)| points.contains(*p))
                .map(|(p, v)| (p.clone(), *v))
                .collect();
            (r.clone(), kept)
        })
        .collect()
}

/// The distance between two sweeps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Distance {
    /// RMS of the feature differences over the common points; `None` with fewer than
    /// `MIN_POINTS` of them.
    pub(super) rms: Option<f64>,
    /// Common points (both finite).
    pub(super) points: usize,
}

/// The RMS of `a - b` over the points both have (finite values only), and their count.
pub(super) fn distance(a: &Sweep, b: &Sweep) -> Distance {
    let diffs: Vec<f64> = a
        .iter()
        .filter_map(|(p, x)| Some(x - b.get(p)?))
        .filter(|d| d.is_finite())
        .collect();
    let points = diffs.len();
    let rms = (points >= MIN_POINTS)
        .then(|| (diffs.iter().map(|d| d * d).sum::<f64>() / points as f64).sqrt())
        .filter(|r| r.is_finite());
    Distance { rms, points }
}

/// The board's groups: memory types joined when their [`distance`] is below `TAU`
/// (single linkage: a chain of close pairs is one group); types with too few common points
/// join nothing. Groups in the order of their first type, types in `types`' order.
pub(super) fn groups(types: &Features) -> Vec<Vec<String>> {
    let n = types.len();
    let mut root: Vec<usize> = (0..n).collect();
    fn find(root: &mut [usize], mut i: usize) -> usize {
        while root[i] != i {
            root[i] = root[root[i]];
            i = root[i];
        }
        i
    }
    for i in 0..n {
        for j in i + 1..n {
            if distance(&types[i].1, &types[j].1)
                .rms
                .is_some_and(|d| d < TAU)
            {
                let (a, b) = (find(&mut root, i), find(&mut root, j));
                root[a.max(b)] = a.min(b);
            }
        }
    }
    let mut out: Vec<(usize, Vec<String>)> = Vec::new();
    for (i, (name, _)) in types.iter().enumerate() {
        let r = find(&mut root, i);
        match out.iter_mut().find(|(g, _)| *g == r) {
            Some((_, g)) => g.push(name.clone()),
            None => out.push((r, vec![name.clone()])),
        }
    }
    out.into_iter().map(|(_, g)| g).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tau_is_ln_of_its_ratio() {
        assert!((TAU - TAU_RATIO.ln()).abs() < 1e-15);
    }
}
