//! Runs and SVG readers the chart tests share: a hardware-like run of every memory type, and
//! the texts, polylines and strokes of a chart.

use super::look::look;
use crate::read::model::{CacheLevel, Measurement, Run, Unit};
use mairbench_core::memtype::MEMTYPES;
use plotters::style::RGBColor;

/// The sizes of [`synthetic`]'s points: 4K..32M (log2).
pub(super) const SIZES: std::ops::RangeInclusive<u32> = 12..=25;

/// The memory-type names of core's table, in order.
pub(super) fn names() -> Vec<&'static str> {
    MEMTYPES.iter().map(|t| t.name).collect()
}

/// A point of `memtype` and `kernel` at `size` (4K pages, cv 1 %, best of 3).
pub(super) fn m(memtype: &str, kernel: &str, size: u64, unit: Unit, best: f64) -> Measurement {
    Measurement {
        memtype: memtype.into(),
        kernel: kernel.into(),
        granule: "4K".into(),
        size,
        unit,
        best,
        median: best,
        cv_pct: 1.0,
        reps: 3,
        pmu: None,
        start: None,
        line_state: None,
    }
}

/// A hardware-like run: all eight types, caches at 32K and 1M, a step at each.
pub(super) fn synthetic(emulated: bool) -> Run {
    let mut run = Run {
        platform: "rockchip,rk3588".into(),
        emulated,
        midr: "0x414fd0b0".into(),
        version: "0.1.0".into(),
        status: Some("pass".into()),
        caches: vec![
            CacheLevel {
                level: 1,
                kind: "data".into(),
                size: 32 << 10,
            },
            CacheLevel {
                level: 2,
                kind: "unified".into(),
                size: 1 << 20,
            },
        ],
        ..Run::default()
    };
    let kernels = [
        ("read-ldp", Unit::MegabytesPerSecond),
        ("write-stp", Unit::MegabytesPerSecond),
        ("latency", Unit::NsPerLoad),
        ("maint-civac", Unit::NsPerLine),
        ("maint-cvac", Unit::NsPerLine),
        ("maint-ivac", Unit::NsPerLine),
    ];
    for (kernel, unit) in kernels {
        for (i, memtype) in names().into_iter().enumerate() {
            for k in SIZES {
                let level = if k <= 15 {
                    0.0
                } else if k <= 20 {
                    1.0
                } else {
                    2.0
                };
                let cached = if i < 3 { 1.0 } else { 0.0 };
                let slow = 1.0 + cached * level * 0.8 + (1.0 - cached) * 3.0 + i as f64 * 0.3;
                let best = match unit {
                    Unit::MegabytesPerSecond => 24000.0 / slow,
                    Unit::NsPerLoad => 2.0 * slow,
                    Unit::NsPerLine => 5.0 * slow,
                };
                run.measurements
                    .push(m(memtype, kernel, 1 << k, unit, best));
            }
        }
    }
    run
}

/// The contents of the `<text>` elements.
pub(super) fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = &t[t.find('>')? + 1..];
            let text = body[..body.find("</text>")?].trim();
            Some(
                text.replace("&lt;", "<")
                    .replace("&gt;", ">")
                    .replace("&quot;", "\"")
                    .replace("&apos;", "'")
                    .replace("&amp;", "&"),
            )
        })
        .collect()
}

/// The `<polyline>` elements.
pub(super) fn polylines(svg: &str) -> Vec<&str> {
    svg.split("<polyline")
        .skip(1)
        .map(|p| &p[..p.find("/>").unwrap()])
        .collect()
}

/// The stroke attribute of `memtype`'s lines.
pub(super) fn stroke(memtype: &str) -> String {
    let RGBColor(r, g, b) = look(memtype).0.colour;
    format!("stroke=\"#{r:02X}{g:02X}{b:02X}\"")
}

/// Asserts one polyline per series of `memtypes` in each of `panels`, and one legend entry
/// each.
pub(super) fn assert_series(svg: &str, memtypes: &[&str], panels: usize) {
    let lines = polylines(svg);
    assert_eq!(
        lines.len(),
        memtypes.len() * panels,
        "one polyline per series"
    );
    for t in memtypes {
        let s = stroke(t);
        let n = lines.iter().filter(|l| l.contains(&s)).count();
        assert_eq!(n, panels, "{t}: {s}");
    }
    let texts = texts(svg);
    for t in memtypes {
        assert_eq!(texts.iter().filter(|x| x == t).count(), 1, "legend {t}");
    }
}

/// A `Run` from the `@mb` records of a log, as `report` reads it.
pub(super) fn run_from_log(log: &str) -> Run {
    crate::read::log::parse(log.as_bytes()).run
}

/// The `y` of each `<text>` element whose content is `text`.
pub(super) fn text_ys(svg: &str, text: &str) -> Vec<i32> {
    svg.split("<text")
        .skip(1)
        .filter(|t| {
            t.find('>')
                .is_some_and(|i| t[i + 1..].trim().starts_with(text))
        })
        .filter_map(|t| {
            let y = &t[t.find(" y=\"")? + 4..];
            y[..y.find('"')?].parse().ok()
        })
        .collect()
}

/// The top of each panel's plot frame (the dark grey rectangle).
pub(super) fn frame_tops(svg: &str) -> Vec<i32> {
    svg.split("<rect")
        .skip(1)
        .filter(|r| r.contains("stroke=\"#3C3C3C\""))
        .filter_map(|r| {
            let y = &r[r.find(" y=\"")? + 4..];
            y[..y.find('"')?].parse().ok()
        })
        .collect()
}
