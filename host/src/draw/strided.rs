//! The strided reads (core's kernels with an [`Order`]): MB/s against the distance between
//! successive lines, one line per memory type, at the one size they are measured at (the
//! sweep's largest). Where a prefetcher follows the stride the line stays high; where it
//! cannot (a stride across pages, the random order, memory it may not prefetch) it falls.

use super::frame::render;
use super::notes::run_header;
use super::panel::{Panel, Series, XKind, RANDOM_X};
use super::style::WIDE_PANEL_W;
use crate::read::model::{Run, Unit};
use mairbench_core::format::Bytes;
use mairbench_core::kernel::{self, Order, KERNELS};
use std::collections::BTreeMap;

/// The x position of a strided read: log2 of its stride, or [`RANDOM_X`].
pub fn x_of(order: Order) -> f64 {
    match order {
        Order::Stride(stride) => (stride as f64).log2(),
        Order::Random => RANDOM_X,
    }
}

/// An SVG of the strided reads of `run`: best MB/s per memory type against the stride (the
/// random order last), at the size they were measured at. Err when the run has none.
pub fn strided(run: &Run, title: &str) -> Result<String, String> {
    let mut by_type: BTreeMap<String, BTreeMap<u64, f64>> = BTreeMap::new();
    let mut sizes = Vec::new();
    for m in &run.measurements {
        let Some(spec) = kernel::by_name(&m.kernel) else {
            continue;
        };
        let Some(order) = spec.kernel.order() else {
            continue;
        };
        // Each kernel on its own granule: the random order's extra row on pages (what the
        // page walks cost) is in its table and CSV, not on this line.
        let usual = m.granule == spec.granule.name();
        if !usual || m.unit != Unit::MegabytesPerSecond || !m.best.is_finite() || m.best < 0.0 {
            continue;
        }
        if !sizes.contains(&m.size) {
            sizes.push(m.size);
        }
        let best = by_type
            .entry(m.memtype.clone())
            .or_default()
            .entry(x_of(order).to_bits())
            .or_insert(m.best);
        *best = best.max(m.best);
    }
    if by_type.is_empty() {
        let names: Vec<&str> = KERNELS
            .iter()
            .filter(|k| k.kernel.order().is_some())
            .map(|k| k.name)
            .collect();
        return Err(format!(
            "no strided reads ({}) in this run",
            names.join(", ")
        ));
    }
    let series = by_type
        .into_iter()
        .map(|(memtype, points)| Series {
            memtype,
            points: points
                .into_iter()
                .map(|(x, v)| (f64::from_bits(x), v))
                .collect(),
        })
        .collect();
    let at: Vec<String> = sizes.iter().map(|&s| Bytes(s).to_string()).collect();
    let panel = Panel::new(
        format!("strided reads at {}", at.join(", ")),
        "MB/s, 64 B per load (MB = 10^6 B)".to_string(),
        XKind::Stride,
        series,
        None,
    );
    render(&run_header(run, title), &[panel], &[], WIDE_PANEL_W)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{m, names, polylines, stroke, synthetic, texts};
    use super::*;

    #[test]
    fn one_line_per_type_over_the_strides_then_random() {
        let mut run = synthetic(false);
        assert!(strided(&run, "x").unwrap_err().contains("read-stride-64"));
        let orders: Vec<&str> = KERNELS
            .iter()
            .filter(|k| k.kernel.order().is_some())
            .map(|k| k.name)
            .collect();
        for (i, memtype) in names().into_iter().enumerate() {
            for (j, kernel) in orders.iter().enumerate() {
                let best = 10_000.0 / (1.0 + i as f64) / (1.0 + j as f64);
                let mut point = m(memtype, kernel, 8 << 20, Unit::MegabytesPerSecond, best);
                if *kernel == "read-random" {
                    point.granule = "2M".into();
                    // The pages row of normal-wb (what page walks cost): not on the chart.
                    if i == 0 {
                        let pages = m(memtype, kernel, 8 << 20, Unit::MegabytesPerSecond, 1.0);
                        run.measurements.push(pages);
                    }
                }
                run.measurements.push(point);
            }
        }
        let svg = strided(&run, "Strided reads").unwrap();
        let lines = polylines(&svg);
        assert_eq!(lines.len(), names().len(), "one line per memory type");
        for t in names() {
            let line = lines.iter().find(|l| l.contains(&stroke(t))).unwrap();
            // Five points: 64 B, 256 B, 1 KiB, 4 KiB and random.
            let points = line.split("points=\"").nth(1).unwrap();
            let points = points.split('"').next().unwrap();
            assert_eq!(points.split_whitespace().count(), 5, "{t}: {line}");
        }
        let texts = texts(&svg);
        assert!(
            texts.iter().any(|t| t == "strided reads at 8 MiB"),
            "{texts:?}"
        );
        for label in ["64", "4K", "random"] {
            assert!(texts.iter().any(|t| t == label), "{label}: {texts:?}");
        }
        assert_eq!(x_of(Order::Stride(64)), 6.0);
        assert_eq!(x_of(Order::Random), RANDOM_X);
    }
}
