//! The fleet table's ratios (`cargo host table --out`): one column per ratio, one mark per
//! log.

use super::axis::{log_range, log_ticks, Axis};
use super::look::LOOKS;
use super::marker::draw_marker;
use super::panel::Chart;
use super::style::{
    err, text_style, wrap, Area, EMULATED_NOTE, FONT, GRID_BOLD, GRID_LIGHT, HEIGHT, LEGEND_W,
    LOG_Y_ABOVE, NOTE_COLOUR, WIDE_PANEL_W, X_LABEL_AREA, Y_LABELS,
};
use crate::analyse::table::{Key, Row, KEYS};
use crate::read::text::or_dash;
use plotters::coord::ranged1d::Ranged;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One log's value and cv (percent) in one category of [`fleet`]; `None`: not measured.
pub type FleetValue = Option<(f64, f64)>;

/// What [`fleet`] draws: per log (board) one value and cv (percent) per category, `None`
/// where the log lacks the point.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Fleet {
    /// The categories along the x axis (the ratios' headings).
    pub categories: Vec<String>,
    /// Per log: its legend label and its values, one per category.
    pub boards: Vec<(String, Vec<FleetValue>)>,
    /// Whether any log is emulated (the chart then says what that means).
    pub emulated: bool,
}

impl Fleet {
    /// The chart's content of the fleet table's `rows`: the ratios (latency, in ns, is not a
    /// ratio and stays out), one mark per log.
    pub fn of(rows: &[Row]) -> Fleet {
        let ratios: Vec<&Key> = KEYS.iter().filter(|k| k.over.is_some()).collect();
        Fleet {
            categories: ratios.iter().map(|k| k.heading.to_string()).collect(),
            boards: rows
                .iter()
                .enumerate()
                .map(|(i, r)| {
                    let values: Vec<_> = KEYS
                        .iter()
                        .zip(&r.figures)
                        .filter(|(k, _)| k.over.is_some())
                        .map(|(_, f)| f.as_ref().ok().map(|f| (f.value, f.cv_pct)))
                        .collect();
                    let mut label =
                        format!("#{} {} {}", i + 1, or_dash(&r.board), or_dash(&r.midr));
                    if r.emulated {
                        label.push_str(" (emulated)");
                    }
                    if values.iter().all(Option::is_none) {
                        label.push_str(" (no ratio)");
                    }
                    (label, values)
                })
                .collect(),
            emulated: rows.iter().any(|r| r.emulated),
        }
    }
}

/// The bar of a value `v` with its cv (percent): ± its cv, at least half the value.
fn bar((v, cv): (f64, f64)) -> (f64, f64) {
    let d = v * cv.max(0.0) / 100.0;
    ((v - d).max(v / 2.0), v + d)
}

/// An SVG of the fleet table's ratios (`cargo host table --out`): one column per ratio, one
/// mark per log (colour and shape from [`LOOKS`] by the log's place, markers side by side),
/// a bar of ± its cv, a line at 1; the y axis a log10 scale when the values span more than
/// [`LOG_Y_ABOVE`] times. Err when no log has any ratio.
pub fn fleet(data: &Fleet, title: &str) -> Result<String, String> {
    let values = || {
        data.boards
            .iter()
            .flat_map(|b| b.1.iter().flatten())
            .filter(|(v, _)| v.is_finite() && *v > 0.0)
    };
    if values().next().is_none() {
        return Err("no log has any of the ratios".to_string());
    }
    let (lo, hi) = values()
        .map(|&p| bar(p))
        .chain([(1.0, 1.0)])
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (a, b)| {
            (lo.min(a), hi.max(b))
        });
    let (log, y_spec) = y_axis(lo, hi);
    let (y0, y1) = (y_spec.lo, y_spec.hi);
    let n = data.categories.len();
    let x_spec = Axis {
        lo: -0.5,
        hi: n as f64 - 0.5,
        bold: (0..n).map(|i| i as f64).collect(),
        light: Vec::new(),
    };
    let longest = data
        .boards
        .iter()
        .map(|b| b.0.chars().count() as u32)
        .max()
        .unwrap_or(0);
    let legend_w = LEGEND_W.max(44 + 8 * longest);
    let panel_w = WIDE_PANEL_W.max(170 * n as u32);
    let width = panel_w + legend_w;
    let notes: Vec<String> = if data.emulated {
        wrap(
            &format!("(emulated) logs: {EMULATED_NOTE}"),
            17,
            width as i32 - 40,
        )
    } else {
        Vec::new()
    };
    let title_h = 44 + 22 * notes.len() as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, HEIGHT + title_h)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        draw_title(&root, title, &notes, width)?;
        let (_, body) = root.split_vertically(title_h);
        let (plot, legend) = body.split_horizontally(panel_w);
        let mut chart = ChartBuilder::on(&plot)
            .margin(16)
            .x_label_area_size(X_LABEL_AREA)
            .y_label_area_size(80)
            .build_cartesian_2d(x_spec, y_spec)
            .map_err(err)?;
        configure_mesh(&mut chart, data, log)?;
        let y_at = |v: f64| if log { v.log10() } else { v };
        let (left, top) = chart.backend_coord(&(-0.5, y1));
        let (right, bottom) = chart.backend_coord(&(n as f64 - 0.5, y0));
        root.draw(&Rectangle::new(
            [(left, top), (right, bottom)],
            RGBColor(60, 60, 60).stroke_width(1),
        ))
        .map_err(err)?;
        let one = chart.backend_coord(&(0.0, y_at(1.0))).1;
        root.draw(&Rectangle::new(
            [(left, one), (right, one + 1)],
            BLACK.mix(0.7).filled(),
        ))
        .map_err(err)?;
        draw_marks(&root, &chart, data, &y_at)?;
        draw_legend(&root, &legend, data)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

/// The y axis of values from `lo` to `hi` (the bars and 1 included): log10 when they span
/// more than [`LOG_Y_ABOVE`] times (both ends labelled), else linear.
fn y_axis(lo: f64, hi: f64) -> (bool, Axis) {
    let log = hi / lo > LOG_Y_ABOVE;
    let (y0, y1) = if log {
        let (a, b) = log_range(lo, hi);
        (a.log10(), b.log10())
    } else {
        let pad = ((hi - lo) * 0.08).max(0.05);
        ((lo - pad).max(0.0), hi + pad)
    };
    let (bold, light) = if log {
        let (mut bold, light) = log_ticks(y0, y1);
        for end in [y0, y1] {
            if !bold.iter().any(|t| (t - end).abs() < 1e-9) {
                bold.push(end);
            }
        }
        bold.sort_by(f64::total_cmp);
        (bold, light)
    } else {
        let linear = RangedCoordf64::from(y0..y1);
        (linear.key_points(Y_LABELS), linear.key_points(Y_LABELS * 3))
    };
    let axis = Axis {
        lo: y0,
        hi: y1,
        bold,
        light,
    };
    (log, axis)
}

/// The title, centred, and the notes under it.
fn draw_title(root: &Area, title: &str, notes: &[String], width: u32) -> Result<(), String> {
    let centre = (width / 2) as i32;
    let title_style = TextStyle::from((FONT, 25, FontStyle::Bold).into_font())
        .pos(Pos::new(HPos::Center, VPos::Top));
    root.draw(&Text::new(title.to_string(), (centre, 12), title_style))
        .map_err(err)?;
    for (i, line) in notes.iter().enumerate() {
        let style = text_style(17, NOTE_COLOUR, HPos::Center, VPos::Top);
        root.draw(&Text::new(
            line.clone(),
            (centre, 42 + 22 * i as i32),
            style,
        ))
        .map_err(err)?;
    }
    Ok(())
}

/// The grid, the categories along the x axis and the ratios' labels.
fn configure_mesh(chart: &mut Chart, data: &Fleet, log: bool) -> Result<(), String> {
    let x_fmt = |v: &f64| {
        data.categories
            .get(v.round() as usize)
            .cloned()
            .unwrap_or_default()
    };
    let y_fmt = |v: &f64| {
        let v = if log { 10f64.powf(*v) } else { *v };
        let d = (0..6)
            .find(|d| {
                let shown: f64 = format!("{v:.d$}").parse().unwrap_or(f64::NAN);
                (shown - v).abs() <= v.abs() * 1e-6
            })
            .unwrap_or(3)
            .min(3);
        format!("{v:.d$}")
    };
    let y_desc = if log {
        "best MB/s over the write-back reference's (log10 scale)"
    } else {
        "best MB/s over the write-back reference's"
    };
    chart
        .configure_mesh()
        .x_desc("ratio (bar: ± cv)")
        .y_desc(y_desc)
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .bold_line_style(GRID_BOLD)
        .light_line_style(GRID_LIGHT)
        .axis_style(TRANSPARENT)
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .draw()
        .map_err(err)
}

/// Each log's mark in each category it has: its bar, then its marker, side by side with the
/// other logs'.
fn draw_marks(
    root: &Area,
    chart: &Chart,
    data: &Fleet,
    y_at: &dyn Fn(f64) -> f64,
) -> Result<(), String> {
    let k = data.boards.len();
    let step = (0.7 / k as f64).min(0.15);
    for (b, (_, points)) in data.boards.iter().enumerate() {
        let look = (LOOKS[b % LOOKS.len()], b < LOOKS.len());
        let dx = (b as f64 - (k as f64 - 1.0) / 2.0) * step;
        for (c, p) in points.iter().enumerate() {
            let Some(&(v, cv)) = p.as_ref().filter(|(v, _)| v.is_finite() && *v > 0.0) else {
                continue;
            };
            let x = c as f64 + dx;
            let (a, z) = bar((v, cv));
            let (px, ya) = chart.backend_coord(&(x, y_at(a)));
            let yz = chart.backend_coord(&(x, y_at(z))).1;
            root.draw(&Rectangle::new(
                [(px - 1, yz), (px + 1, ya)],
                look.0.colour.filled(),
            ))
            .map_err(err)?;
            let py = chart.backend_coord(&(x, y_at(v))).1;
            draw_marker(root, (px, py), look)?;
        }
    }
    Ok(())
}

/// The legend: a marker and a label per log.
fn draw_legend(root: &Area, legend: &Area, data: &Fleet) -> Result<(), String> {
    let (xs, ys) = legend.get_pixel_range();
    let x = xs.start + 8;
    let mut y = ys.start + 44;
    let heading = TextStyle::from((FONT, 17, FontStyle::Bold).into_font())
        .pos(Pos::new(HPos::Left, VPos::Center));
    root.draw(&Text::new("log", (x, y), heading)).map_err(err)?;
    for (b, (label, _)) in data.boards.iter().enumerate() {
        y += 24;
        let look = (LOOKS[b % LOOKS.len()], b < LOOKS.len());
        draw_marker(root, (x + 10, y), look)?;
        let style = text_style(16, BLACK, HPos::Left, VPos::Center);
        root.draw(&Text::new(label.clone(), (x + 26, y), style))
            .map_err(err)?;
    }
    Ok(())
}
