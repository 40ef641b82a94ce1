//! A run's values against working-set size: one panel per kernel, one line per memory type
//! (or source), the best value on the y axis.

use super::frame::render;
use super::notes::{noted_header, run_marks};
use super::panel::{log2, Panel, Series, XKind};
use super::style::{PANEL_W, WIDE_PANEL_W};
use crate::read::model::{self, Run, Unit};
use std::collections::BTreeMap;

/// An SVG of two panels side by side, `left_kernel` | `right_kernel` (e.g. a read and a write
/// kernel), each the kernel's `best` value against working-set size per memory type.
/// A kernel without data gets a panel saying so; Err when neither has data.
pub fn pair(
    run: &Run,
    left_kernel: &str,
    right_kernel: &str,
    title: &str,
) -> Result<String, String> {
    let panels = [
        kernel_panel(run, left_kernel),
        kernel_panel(run, right_kernel),
    ];
    if panels.iter().all(|p| p.series.is_empty()) {
        return Err(format!(
            "no usable measurements of {left_kernel} or {right_kernel} in this run"
        ));
    }
    let marks = run_marks(run);
    let header = noted_header(run, title, &[left_kernel, right_kernel], &marks);
    render(&header, &panels, &marks, PANEL_W)
}

/// An SVG of one panel per kernel whose name starts with `kernel_prefix`, in the order the
/// kernels first appear in the run (e.g. a whole kernel name gives one panel, the prefix of
/// the three cache maintenance kernels three).
/// Err when no such kernel has data.
pub fn single(run: &Run, kernel_prefix: &str, title: &str) -> Result<String, String> {
    let mut kernels: Vec<&str> = Vec::new();
    for m in &run.measurements {
        if m.kernel.starts_with(kernel_prefix) && !kernels.contains(&m.kernel.as_str()) {
            kernels.push(&m.kernel);
        }
    }
    panels_of(run, &kernels, title).map_err(|_| {
        format!(
            "no kernel whose name starts with \"{kernel_prefix}\" has usable measurements in this run"
        )
    })
}

/// The width of each of `panels`: wide when there is only one.
pub(super) fn panel_width(panels: &[Panel]) -> u32 {
    if panels.len() == 1 {
        WIDE_PANEL_W
    } else {
        PANEL_W
    }
}

/// The SVG of `panels` (of `kernels`) under the run's header and notes, with its cache
/// markers.
pub(super) fn render_panels(
    run: &Run,
    title: &str,
    kernels: &[&str],
    panels: &[Panel],
) -> Result<String, String> {
    let marks = run_marks(run);
    let header = noted_header(run, title, kernels, &marks);
    render(&header, panels, &marks, panel_width(panels))
}

/// An SVG of one panel per kernel of `kernels`, in that order, as [`single`] draws them.
/// Err when none has data.
pub fn panels_of(run: &Run, kernels: &[&str], title: &str) -> Result<String, String> {
    let panels: Vec<Panel> = kernels.iter().map(|k| kernel_panel(run, k)).collect();
    if panels.iter().all(|p| p.series.is_empty()) {
        return Err(format!(
            "no usable measurements of {} in this run",
            kernels.join(" or ")
        ));
    }
    render_panels(run, title, kernels, &panels)
}

/// Whether `run` measured `kernel` on both granules (its series names then mark them).
pub(super) fn mixed_in(run: &Run, kernel: &str) -> bool {
    model::mixed_granules(&run.measurements, kernel)
}

/// Per series (a memory type on one granule, named by [`model::series`] with
/// `mixed`), per size: the best `best` of `kernel` in `unit`, finite and >= 0 only.
pub(super) fn best_points(
    run: &Run,
    kernel: &str,
    unit: Unit,
    mixed: bool,
) -> BTreeMap<String, BTreeMap<u64, f64>> {
    let mut out: BTreeMap<String, BTreeMap<u64, f64>> = BTreeMap::new();
    for m in &run.measurements {
        if m.kernel != kernel
            || m.unit != unit
            || m.size == 0
            || !m.best.is_finite()
            || m.best < 0.0
        {
            continue;
        }
        out.entry(model::series(m, mixed))
            .or_default()
            .entry(m.size)
            .and_modify(|v| {
                *v = if unit.higher_is_better() {
                    v.max(m.best)
                } else {
                    v.min(m.best)
                }
            })
            .or_insert(m.best);
    }
    out
}

/// The panel of `kernel`: its best values per series against the size, in its unit.
fn kernel_panel(run: &Run, kernel: &str) -> Panel {
    let unit = run.unit_of(kernel);
    let series: Vec<Series> = unit
        .map(|u| best_points(run, kernel, u, mixed_in(run, kernel)))
        .unwrap_or_default()
        .into_iter()
        .map(|(memtype, points)| Series {
            memtype,
            points: points.into_iter().map(|(s, v)| (log2(s), v)).collect(),
        })
        .filter(|s| !s.points.is_empty())
        .collect();
    let y_desc = match unit {
        Some(Unit::MegabytesPerSecond) => "MB/s (MB = 10^6 B)".to_string(),
        Some(u) => u.label().to_string(),
        None => String::new(),
    };
    Panel::new(kernel.to_string(), y_desc, XKind::Size, series, None)
}

#[cfg(test)]
mod tests {
    use super::super::style::{EMULATED_NOTE, GUEST_CACHES_NOTE, LEGEND_W};
    use super::super::testing::{
        assert_series, frame_tops, m, names, polylines, run_from_log, stroke, synthetic, text_ys,
        texts,
    };
    use super::*;
    use crate::read::model::{CacheLevel, Measurement};

    #[test]
    fn pair_structure() {
        let run = synthetic(false);
        let svg = pair(&run, "read-ldp", "write-stp", "Bandwidth").unwrap();
        assert!(svg.starts_with("<svg"));
        assert!(svg.contains("width=\"1200\"") && svg.contains("height=\"500\""));
        assert_series(&svg, &names(), 2);
        let t = texts(&svg);
        let has = |s: &str| t.iter().any(|x| x == s);
        assert!(has("Bandwidth \u{2014} rockchip,rk3588"), "{t:?}");
        assert!(has("read-ldp") && has("write-stp") && has("memory type"));
        assert_eq!(t.iter().filter(|x| *x == "MB/s (MB = 10^6 B)").count(), 2);
        assert_eq!(
            t.iter()
                .filter(|x| *x == "working-set size (log2 scale)")
                .count(),
            2
        );
        assert_eq!(t.iter().filter(|x| *x == "L1 32K").count(), 2);
        assert_eq!(t.iter().filter(|x| *x == "L2 1M").count(), 2);
        for label in ["4K", "16K", "1M", "16M"] {
            assert!(has(label), "x label {label}: {t:?}");
        }
        assert!(has("MIDR 0x414fd0b0") && has("mairbench 0.1.0"));
        assert!(!svg.contains(EMULATED_NOTE));
        // The cache markers are dashed: many 1 px wide rectangles.
        assert!(svg.matches("width=\"1\"").count() > 20);
    }

    #[test]
    fn emulated_subtitle() {
        let svg = pair(&synthetic(true), "read-ldp", "write-stp", "Bandwidth").unwrap();
        assert!(texts(&svg).iter().any(|t| t == EMULATED_NOTE));
    }

    #[test]
    fn pair_with_one_kernel_missing() {
        let svg = pair(&synthetic(false), "read-ldp", "copy-to", "x").unwrap();
        assert_series(&svg, &names(), 1);
        assert!(texts(&svg).iter().any(|t| t == "no data for copy-to"));
    }

    #[test]
    fn no_data_is_an_error() {
        let run = synthetic(false);
        let e = pair(&run, "copy-to", "copy-from", "x").unwrap_err();
        assert!(e.contains("copy-to") && e.contains("copy-from"), "{e}");
        assert!(pair(&Run::default(), "read-ldp", "write-stp", "x").is_err());
        assert!(single(&run, "fill-", "x").is_err());
        assert!(single(&Run::default(), "", "x").is_err());
    }

    #[test]
    fn single_panels() {
        let run = synthetic(false);
        let svg = single(&run, "maint-", "Cache maintenance").unwrap();
        assert_series(&svg, &names(), 3);
        let t = texts(&svg);
        assert_eq!(t.iter().filter(|x| *x == "ns per line").count(), 3);
        for k in ["maint-civac", "maint-cvac", "maint-ivac"] {
            assert!(t.iter().any(|x| x == k));
        }
        assert!(svg.contains(&format!("width=\"{}\"", 3 * PANEL_W + LEGEND_W)));

        let svg = single(&run, "latency", "Latency").unwrap();
        assert_series(&svg, &names(), 1);
        let t = texts(&svg);
        assert!(t.iter().any(|x| x == "ns per load"));
        assert!(t.iter().any(|x| x == "L1 32K"));
    }

    #[test]
    fn subset_of_types_and_colours_are_fixed() {
        let mut run = synthetic(false);
        run.measurements
            .retain(|m| ["normal-nc", "device-gre"].contains(&m.memtype.as_str()));
        let svg = pair(&run, "read-ldp", "write-stp", "x").unwrap();
        assert_series(&svg, &["normal-nc", "device-gre"], 2);
        assert!(!texts(&svg).iter().any(|t| t == "normal-wb"));
        // normal-nc keeps its colour (4th of the palette) when alone.
        assert_eq!(stroke("normal-nc"), "stroke=\"#D62728\"");
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
        run.measurements
            .push(m("weird-type", "read-ldp", 0, u, 1.0));
        run.measurements
            .push(m("weird-type", "read-ldp", 4096, u, 1.0));
        let svg = pair(&run, "read-ldp", "write-stp", "x").unwrap();
        assert_eq!(polylines(&svg).len(), 2);
        assert!(texts(&svg).iter().any(|t| t == "weird-type"));
        // Only non-finite or negative values: no data.
        let mut bad = run.clone();
        bad.measurements
            .retain(|m| !(m.best >= 0.0 && m.best.is_finite()));
        assert!(pair(&bad, "read-ldp", "write-stp", "x").is_err());

        // All zero.
        let mut b = run.clone();
        for m in &mut b.measurements {
            m.best = 0.0;
        }
        let svg = single(&b, "read", "x").unwrap();
        assert_eq!(polylines(&svg).len(), 2);
        assert!(!svg.contains("NaN"));
    }

    #[test]
    fn single_point_and_odd_sizes() {
        let mut run = Run::default();
        run.measurements
            .push(m("normal-wb", "latency", 3000, Unit::NsPerLoad, 4.2));
        run.caches.push(CacheLevel {
            level: 1,
            kind: "data".into(),
            size: 3 << 10,
        });
        let svg = single(&run, "latency", "one point").unwrap();
        assert_series(&svg, &["normal-wb"], 1);
        let t = texts(&svg);
        assert!(
            t.iter().any(|x| x == "one point"),
            "no platform: title alone"
        );
        assert!(
            t.iter().any(|x| x == "2.9K"),
            "the odd size is labelled: {t:?}"
        );
    }

    #[test]
    fn log_scale_only_when_the_range_calls_for_it() {
        let mut run = synthetic(false);
        // 6x apart: linear from 0.
        let svg = single(&run, "latency", "x").unwrap();
        let t = texts(&svg);
        assert!(
            t.iter().any(|x| x == "ns per load") && t.iter().any(|x| x == "0"),
            "{t:?}"
        );
        // Device 100x slower: log10 axis, labelled so, with 1-2-5 labels and no 0.
        for m in run
            .measurements
            .iter_mut()
            .filter(|m| m.memtype.starts_with("device"))
        {
            m.best *= 100.0;
        }
        let svg = single(&run, "latency", "x").unwrap();
        let t = texts(&svg);
        assert!(t.iter().any(|x| x == "ns per load (log10 scale)"), "{t:?}");
        assert!(
            ["10", "100", "1000"]
                .iter()
                .all(|l| t.iter().any(|x| x == l)),
            "{t:?}"
        );
        assert!(!t.iter().any(|x| x == "0"));
        assert_series(&svg, &names(), 1);
        assert!(!svg.contains("NaN"));
        // The lowest tick is labelled and lies at or below the lowest value, within a
        // decade of it.
        let lowest = run
            .measurements
            .iter()
            .filter(|m| m.kernel == "latency")
            .map(|m| m.best)
            .fold(f64::INFINITY, f64::min);
        let labels: Vec<f64> = t.iter().filter_map(|x| x.parse().ok()).collect();
        let bottom = labels.iter().copied().fold(f64::INFINITY, f64::min);
        assert!(
            bottom <= lowest && bottom > lowest / 10.0,
            "{bottom} {lowest}"
        );
        // So is the highest, at or above the highest value.
        let highest = run
            .measurements
            .iter()
            .filter(|m| m.kernel == "latency")
            .map(|m| m.best)
            .fold(0.0, f64::max);
        let top = labels.iter().copied().fold(0.0, f64::max);
        assert!(top >= highest && top < highest * 10.0, "{top} {highest}");
    }

    #[test]
    fn from_log_records() {
        let log = "\
@mb {\"kind\":\"start\",\"schema\":1,\"version\":\"0.1.0\",\"midr\":\"0x410fd083\",\"platform\":\"linux,dummy-virt\",\"emulated\":true}
@mb {\"kind\":\"cache\",\"level\":1,\"type\":\"separate\",\"size\":32768,\"line\":64,\"ways\":2,\"sets\":256}
@mb {\"kind\":\"result\",\"memtype\":\"normal-wb\",\"kernel\":\"read-ldp\",\"size\":4096,\"reps\":3,\"best_mbps\":5155,\"median_mbps\":5146,\"cv_pct\":0.2}
@mb {\"kind\":\"result\",\"memtype\":\"normal-wb\",\"kernel\":\"read-ldp\",\"size\":65536,\"reps\":3,\"best_mbps\":5100,\"median_mbps\":5146,\"cv_pct\":0.2}
@mb {\"kind\":\"result\",\"memtype\":\"device-gre\",\"kernel\":\"write-stp\",\"size\":4096,\"reps\":3,\"best_mbps\":900,\"median_mbps\":890,\"cv_pct\":0.2}
";
        let run = run_from_log(log);
        assert_eq!(run.measurements.len(), 3);
        let svg = pair(&run, "read-ldp", "write-stp", "QEMU").unwrap();
        assert_eq!(polylines(&svg).len(), 2);
        let t = texts(&svg);
        assert!(t.iter().any(|x| x == EMULATED_NOTE));
        // An emulated run's cache markers are the guest's reported geometry, and say so.
        assert!(t.iter().any(|x| x == "guest L1 32K"), "{t:?}");
        assert!(!t.iter().any(|x| x == "L1 32K"));
        assert!(t.join(" ").contains(GUEST_CACHES_NOTE), "{t:?}");
    }

    #[test]
    fn cache_labels_sit_above_the_plot() {
        let svg = pair(&synthetic(false), "read-ldp", "write-stp", "x").unwrap();
        let tops = frame_tops(&svg);
        assert_eq!(tops.len(), 2, "two frames");
        for label in ["L1 32K", "L2 1M"] {
            let ys = text_ys(&svg, label);
            assert_eq!(ys.len(), 2, "{label}");
            for y in ys {
                // 14 px text, top-aligned: it ends above the frame.
                assert!(y + 14 <= tops[0], "{label} at {y}, frame at {}", tops[0]);
            }
        }
        assert!(!svg.contains("CCSIDR_EL1"), "a board's caches need no note");
        // Labels that would overlap go to a second row, still above the plot.
        let mut run = synthetic(false);
        run.caches.push(CacheLevel {
            level: 3,
            kind: "unified".into(),
            size: 48 << 10,
        });
        let svg = single(&run, "latency", "x").unwrap();
        let (l1, l3) = (text_ys(&svg, "L1 32K")[0], text_ys(&svg, "L3 48K")[0]);
        assert_ne!(l1, l3, "one row each");
        assert!(l1.max(l3) + 14 <= frame_tops(&svg)[0]);
    }

    #[test]
    fn twin_sources_look_apart() {
        let names = [
            "anon",
            "udmabuf",
            "pci:0000:00:01.0:res2",
            "pci:0000:00:01.0:res2_wc",
            "pci:0000:00:02.0:res2",
        ];
        let mut run = Run {
            twin: true,
            ..Run::default()
        };
        for name in names {
            for k in 12..=16 {
                run.measurements.push(m(
                    name,
                    "read-ldp",
                    1 << k,
                    Unit::MegabytesPerSecond,
                    1000.0,
                ));
            }
        }
        let svg = single(&run, "read-ldp", "x").unwrap();
        let lines = polylines(&svg);
        assert_eq!(lines.len(), names.len());
        let strokes: Vec<&str> = lines
            .iter()
            .map(|l| {
                let at = l.find("stroke=\"").unwrap();
                &l[at..at + 16]
            })
            .collect();
        for (i, s) in strokes.iter().enumerate() {
            assert!(!strokes[..i].contains(s), "{strokes:?}");
        }
        // The legend in the source table's order: anon, udmabuf, the _wc BAR, the BARs.
        let t = texts(&svg);
        let at = |n: &str| t.iter().position(|x| x == n).unwrap();
        assert!(at("anon") < at("udmabuf"));
        assert!(at("udmabuf") < at("pci:0000:00:01.0:res2_wc"));
        assert!(at("pci:0000:00:01.0:res2_wc") < at("pci:0000:00:01.0:res2"));
        assert!(at("pci:0000:00:01.0:res2") < at("pci:0000:00:02.0:res2"));
    }

    fn at(memtype: &str, granule: &str, size: u64, best: f64) -> Measurement {
        Measurement {
            granule: granule.into(),
            median: best,
            ..m(memtype, "latency", size, Unit::NsPerLoad, best)
        }
    }

    #[test]
    fn the_legend_names_the_page_series() {
        let new = Run {
            measurements: vec![
                at("normal-wb", "2M", 4096, 2.0),
                at("normal-nc", "2M", 4096, 3.0),
                at("normal-wb", "4K", 4096, 4.0),
            ],
            ..Run::default()
        };
        let svg = single(&new, "latency", "x").unwrap();
        assert!(
            svg.contains("normal-wb (4K)"),
            "the chart legend names the page series"
        );
    }
}
