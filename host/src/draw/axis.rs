//! The axes in plot space: where the labels and grid lines go, and the ends and ticks of a
//! log10 axis.

use super::style::Y_LABELS;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};

/// An axis in plot space (log2 of the size, cores, a value or its log10), with labels at
/// `bold` and grid lines at `light`.
pub(super) struct Axis {
    pub(super) lo: f64,
    pub(super) hi: f64,
    pub(super) bold: Vec<f64>,
    pub(super) light: Vec<f64>,
}

impl Ranged for Axis {
    type ValueType = f64;
    type FormatOption = DefaultFormatting;

    fn map(&self, value: &f64, limit: (i32, i32)) -> i32 {
        let t = (value - self.lo) / (self.hi - self.lo);
        limit.0 + (t * f64::from(limit.1 - limit.0)).round() as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        if hint.weight().allow_light_points() {
            self.light.clone()
        } else {
            self.bold.clone()
        }
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

/// The ends of a log10 axis for values from `lo` to `hi` (both positive): each a grid value
/// (1 to 9 times a power of ten) a little beyond the values, which the axis labels
/// (`panel::draw_panel`), so that the lowest and the highest tick are labelled.
pub(super) fn log_range(lo: f64, hi: f64) -> (f64, f64) {
    let top = log_end(hi * 1.05, lo / 1.05, true);
    let bottom = log_end(lo / 1.05, top, false);
    // Again over the range as it now is, which the bottom may have widened.
    (bottom, log_end(hi * 1.05, bottom, true))
}

/// One end of a log10 axis: the grid value (1 to 9 times a power of ten) nearest `v` on the
/// outside (at or above it when `up`, else at or below) that is a label of [`log_ticks`] over
/// the range from `other`, or lies at least 8 % of the range beyond the outermost such label,
/// so that its own label does not crowd that one.
fn log_end(v: f64, other: f64, up: bool) -> f64 {
    let k = v.log10().floor() as i32;
    let mut candidates: Vec<f64> = (k - 1..=k + 1)
        .flat_map(|k| (1..=9).map(move |m| f64::from(m) * 10f64.powi(k)))
        .filter(|c| if up { *c >= v } else { *c <= v })
        .collect();
    if !up {
        candidates.reverse();
    }
    for c in &candidates {
        let (lo, hi) = if up { (other, *c) } else { (*c, other) };
        let (y0, y1) = (lo.log10(), hi.log10());
        let (bold, _) = log_ticks(y0, y1);
        let (end, outer) = if up {
            (y1, bold.last())
        } else {
            (y0, bold.first())
        };
        match outer {
            Some(t) if (t - end).abs() < 1e-9 || (t - end).abs() >= 0.08 * (y1 - y0) => return *c,
            None => return *c,
            _ => {}
        }
    }
    candidates.last().copied().unwrap_or(v)
}

/// Labels and grid lines of a log10 axis from `y0` to `y1` (log10 of the values): 1, 2 and
/// 5 times the powers of ten (only the powers when those are too many), grid lines at 1 to 9
/// times them.
pub(super) fn log_ticks(y0: f64, y1: f64) -> (Vec<f64>, Vec<f64>) {
    let within = |m: &[f64]| -> Vec<f64> {
        (y0.floor() as i32..=y1.ceil() as i32)
            .flat_map(|k| m.iter().map(move |m| (m * 10f64.powi(k)).log10()))
            .filter(|t| (y0..=y1).contains(t))
            .collect()
    };
    let mut bold = within(&[1.0, 2.0, 5.0]);
    if bold.len() > Y_LABELS + 2 {
        bold = within(&[1.0]);
    }
    let light = within(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0]);
    (bold, light)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_axis_ends_are_grid_values() {
        for (lo, hi, bottom, top) in [
            (5.2, 600.0, 3.0, 800.0),
            (230.0, 9000.0, 200.0, 10000.0),
            (0.047, 1.6, 0.03, 2.0),
            (100.0, 4000.0, 70.0, 5000.0),
            (100.0, 5000.0, 60.0, 8000.0),
        ] {
            let (b, t) = log_range(lo, hi);
            assert!((b - bottom).abs() < 1e-9, "{lo}..{hi}: bottom {b}");
            assert!((t - top).abs() < 1e-9, "{lo}..{hi}: top {t}");
        }
    }
}
