//! A run's values over the baseline's at the same size: how much each memory type costs
//! relative to the write-back reference (or a twin's source relative to its reference).

use super::panel::{log2, Panel, Series, XKind};
use super::values::{best_points, mixed_in, render_panels};
use crate::read::model::Run;

/// An SVG of one panel per kernel of `kernels` (those with data) showing each memory type's
/// `best` over `baseline`'s at the same size, with a line at 1.0: how much a memory type
/// costs relative to the baseline ([`RowKind::baseline`](crate::read::model::RowKind::baseline)). The axis label says what a
/// ratio above 1 means. Err when no kernel has both the baseline and another point at a
/// common size.
pub fn ratio(run: &Run, kernels: &[&str], baseline: &str, title: &str) -> Result<String, String> {
    let mut panels = Vec::new();
    for kernel in kernels {
        let Some(unit) = run.unit_of(kernel) else {
            continue;
        };
        let points = best_points(run, kernel, unit, mixed_in(run, kernel));
        let Some(base) = points.get(baseline) else {
            continue;
        };
        let series: Vec<Series> = points
            .iter()
            .map(|(memtype, values)| Series {
                memtype: memtype.clone(),
                points: values
                    .iter()
                    .filter_map(|(size, v)| {
                        let b = base.get(size)?;
                        let r = v / b;
                        (*b > 0.0 && r.is_finite()).then(|| (log2(*size), r))
                    })
                    .collect(),
            })
            .filter(|s| !s.points.is_empty())
            .collect();
        let meaning = if unit.higher_is_better() {
            "faster"
        } else {
            "slower"
        };
        panels.push(Panel::new(
            format!("{kernel}: / {baseline}"),
            format!("best {} / {baseline}'s (> 1: {meaning})", unit.label()),
            XKind::Size,
            series,
            Some(1.0),
        ));
    }
    if panels.iter().all(|p| p.series.is_empty()) {
        return Err(format!(
            "no measurements of {} with {baseline} at the same size in this run",
            kernels.join(" or ")
        ));
    }
    render_panels(run, title, kernels, &panels)
}

#[cfg(test)]
mod tests {
    use super::super::testing::{assert_series, names, synthetic, texts};
    use super::super::values::single;
    use super::*;

    #[test]
    fn log_labels_have_their_own_decimals() {
        // Each log label has its own decimals: 0.05 and 1, not 1.00.
        let mut run = synthetic(false);
        for m in run
            .measurements
            .iter_mut()
            .filter(|m| m.memtype.starts_with("device"))
        {
            m.best /= 5.0;
        }
        let t = texts(&ratio(&run, &["read-ldp"], "normal-wb", "x").unwrap());
        assert!(t.iter().any(|x| x == "1"), "{t:?}");
        assert!(t.iter().any(|x| x == "0.05"), "{t:?}");
        assert!(!t.iter().any(|x| x == "1.00"), "{t:?}");
    }

    #[test]
    fn ratio_to_the_baseline() {
        let run = synthetic(false);
        let svg = ratio(&run, &["read-ldp", "write-stp"], "normal-wb", "Ratio").unwrap();
        assert_series(&svg, &names(), 2);
        let t = texts(&svg);
        assert!(
            t.iter()
                .any(|x| x == "best MB/s / normal-wb's (> 1: faster)"),
            "{t:?}"
        );
        assert!(t.iter().any(|x| x == "read-ldp: / normal-wb"));
        let svg = ratio(&run, &["latency"], "normal-wb", "x").unwrap();
        assert!(texts(&svg)
            .iter()
            .any(|x| x == "best ns per load / normal-wb's (> 1: slower)"));
        let mut no_base = run.clone();
        no_base.measurements.retain(|m| m.memtype != "normal-wb");
        assert!(ratio(&no_base, &["read-ldp"], "normal-wb", "x").is_err());
        assert!(ratio(&run, &["copy-to"], "normal-wb", "x").is_err());
    }

    #[test]
    fn skipped_types_are_named_with_the_reason() {
        let mut run = synthetic(true);
        run.measurements.retain(|m| m.memtype.starts_with("normal"));
        for m in run
            .measurements
            .iter_mut()
            .filter(|m| m.kernel == "write-stp")
        {
            m.kernel = "fill-zva".into();
        }
        let why = "real cores take an alignment fault for DC ZVA to Device memory";
        for memtype in ["device-gre", "device-ngnrne"] {
            run.skipped.push(crate::read::model::Skipped {
                memtype: memtype.into(),
                kernel: "fill-zva".into(),
                granule: "4K".into(),
                size: None,
                why: why.into(),
            });
        }
        let svg = single(&run, "fill-zva", "DC ZVA fill").unwrap();
        let all = texts(&svg).join(" ");
        assert!(
            all.contains(&format!(
                "not measured, skipped by the firmware: fill-zva on device-ngnrne, device-gre \
                 ({why})"
            )),
            "table order, the reason: {all}"
        );
        // The ratio chart says it too; a kernel without skips says nothing.
        let all = texts(&ratio(&run, &["fill-zva"], "normal-wb", "x").unwrap()).join(" ");
        assert!(all.contains("skipped by the firmware: fill-zva"), "{all}");
        let all = texts(&single(&run, "read-ldp", "x").unwrap()).join(" ");
        assert!(!all.contains("skipped"), "{all}");
    }
}
