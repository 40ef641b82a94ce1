//! One panel of a chart: its content (series, reference line, noise band, rings), its axes,
//! and how it is drawn.

use super::axis::{log_range, log_ticks, Axis};
use super::look::{order, Palette};
use super::marker::draw_marker;
use super::style::{
    err, text_style, text_width, Area, CACHE_COLOUR, FONT, FOOT_COLOUR, GRID_BOLD, GRID_LIGHT,
    LOG_Y_ABOVE, X_LABEL_AREA, Y_LABELS,
};
use mairbench_core::format::ShortBytes;
use plotters::coord::ranged1d::Ranged;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// One panel's content.
pub(super) struct Panel {
    pub(super) caption: String,
    pub(super) y_desc: String,
    /// What the x values are.
    pub(super) x: XKind,
    /// Non-empty series only.
    pub(super) series: Vec<Series>,
    /// The values' range shown (not their log10).
    pub(super) y_range: (f64, f64),
    /// Whether the y axis is a log10 scale (then `y_range` is positive).
    pub(super) log_y: bool,
    /// A horizontal reference line at this value.
    pub(super) reference: Option<f64>,
    /// A shaded horizontal band between these values (the comparison's noise).
    pub(super) band: Option<(f64, f64)>,
    /// Points ringed in black (x, value): the comparison's significant points.
    pub(super) rings: Vec<(f64, f64)>,
}

/// What a panel's x axis shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum XKind {
    /// log2 of the working-set size.
    Size,
    /// Cores running at once.
    Cores,
    /// log2 of the distance between successive loads; the random order at [`RANDOM_X`].
    Stride,
}

/// Where the strided reads' random order sits on an [`XKind::Stride`] axis (log2 of a
/// stride): one step past 4 KiB.
pub const RANDOM_X: f64 = 13.0;

impl XKind {
    fn label(self) -> &'static str {
        match self {
            XKind::Size => "working-set size (log2 scale)",
            XKind::Cores => "cores running at once",
            XKind::Stride => "distance between successive lines (log2 scale), then a random order",
        }
    }
}

impl Panel {
    /// A panel whose y range fits its values (and the reference line): a log10 scale when
    /// they are all positive and span more than [`LOG_Y_ABOVE`] times; otherwise linear, from
    /// 0 for values, around the values for ratios (`reference` set).
    pub(super) fn new(
        caption: String,
        y_desc: String,
        x: XKind,
        series: Vec<Series>,
        reference: Option<f64>,
    ) -> Panel {
        let values = || {
            series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.1))
                .chain(reference)
        };
        let (lo, hi) = values().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
        let log_y = lo > 0.0 && hi / lo > LOG_Y_ABOVE;
        let y_range = if log_y {
            log_range(lo, hi)
        } else if reference.is_some() {
            let pad = ((hi - lo) * 0.08).max(0.05);
            ((lo - pad).max(0.0), hi + pad)
        } else if hi > 0.0 {
            (0.0, hi * 1.08)
        } else {
            (0.0, 1.0)
        };
        Panel {
            caption,
            y_desc,
            x,
            series,
            y_range,
            log_y,
            reference,
            band: None,
            rings: Vec::new(),
        }
    }
}

/// One memory type's points: (log2 of the size, value), sorted by size.
pub(super) struct Series {
    pub(super) memtype: String,
    pub(super) points: Vec<(f64, f64)>,
}

/// A vertical marker: (log2 of the size, label).
pub(super) type Mark = (f64, String);

pub(super) fn log2(size: u64) -> f64 {
    (size as f64).log2()
}

/// The comparison's noise band: a light grey rectangle from `lo` to `hi` across the plot,
/// clipped to it.
fn draw_band<X, Y>(
    root: &Area,
    chart: &ChartContext<SVGBackend, Cartesian2d<X, Y>>,
    panel: &Panel,
    (lo, hi): (f64, f64),
    (x0, x1): (f64, f64),
) -> Result<(), String>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let (y0, y1) = panel.y_range;
    let at = |v: f64| {
        let v = v.clamp(y0, y1);
        if panel.log_y {
            v.log10()
        } else {
            v
        }
    };
    let (left, top) = chart.backend_coord(&(x0, at(hi)));
    let (right, bottom) = chart.backend_coord(&(x1, at(lo)));
    root.draw(&Rectangle::new(
        [(left, top), (right, bottom)],
        RGBColor(120, 120, 120).mix(0.18).filled(),
    ))
    .map_err(err)
}

/// A panel's chart: plot space on both axes ([`Axis`]).
pub(super) type Chart<'a, 'b> = ChartContext<'a, SVGBackend<'b>, Cartesian2d<Axis, Axis>>;

/// Height of a panel's caption, px.
const CAPTION_H: i32 = 30;
/// Height of a row of cache marker labels, px.
const ROW_H: i32 = 18;

/// Draws `panel` into `area` (of `root`) over the x range (`x0`, `x1`): its caption, grid and
/// labels, frame, noise band, reference line, cache markers (`marks`), series and their
/// markers, rings, or "no data".
pub(super) fn draw_panel(
    root: &Area,
    area: &Area,
    panel: &Panel,
    (x0, x1): (f64, f64),
    marks: &[Mark],
    palette: &Palette,
) -> Result<(), String> {
    let (xs, ys) = area.get_pixel_range();
    let plot_w = (xs.end - xs.start) - 110;
    let x_spec = x_axis((x0, x1), plot_w);
    let y = YAxis::of(panel);
    let y_label_w = (y.widest() + 40).max(56);

    // Cache markers' labels sit in a strip between the caption and the plot, never over the
    // data: one row, and a row more for each label that would overlap its left neighbour's.
    // Where the plot will be (the builder's margins and label area, below).
    let (plot_l, plot_r) = (xs.start + 8 + y_label_w, xs.end - 22);
    let (placed, rows) = place_marks(marks, (x0, x1), (plot_l, plot_r));
    let strip = ROW_H * rows as i32;

    let caption = TextStyle::from((FONT, 20, FontStyle::Bold).into_font())
        .pos(Pos::new(HPos::Center, VPos::Top));
    root.draw(&Text::new(
        panel.caption.clone(),
        ((xs.start + xs.end) / 2, ys.start + 6),
        caption,
    ))
    .map_err(err)?;
    let mut chart = ChartBuilder::on(area)
        .margin_top((6 + CAPTION_H + strip) as u32)
        .margin_left(8)
        .margin_right(22)
        .margin_bottom(8)
        .x_label_area_size(X_LABEL_AREA)
        .y_label_area_size(y_label_w as u32)
        .build_cartesian_2d(x_spec, y.spec())
        .map_err(err)?;
    configure_mesh(&mut chart, panel, &y)?;

    let (top, bottom, left, right) = draw_frame(root, &chart, panel, &y, (x0, x1))?;
    draw_cache_marks(root, &chart, &placed, (top, bottom), y.y0)?;
    draw_series(root, &mut chart, panel, palette, &y)?;
    for &(x, v) in &panel.rings {
        let at = chart.backend_coord(&(x, y.at(v)));
        root.draw(&Circle::new(at, 10, BLACK.stroke_width(2)))
            .map_err(err)?;
    }

    if panel.series.is_empty() {
        let style = text_style(18, FOOT_COLOUR, HPos::Center, VPos::Center);
        let at = ((left + right) / 2, (top + bottom) / 2);
        root.draw(&Text::new(
            format!("no data for {}", panel.caption),
            at,
            style,
        ))
        .map_err(err)?;
    }
    Ok(())
}

/// The plot's frame, then the noise band and the reference line inside it; the frame's
/// top, bottom, left and right, px.
fn draw_frame(
    root: &Area,
    chart: &Chart,
    panel: &Panel,
    y: &YAxis,
    (x0, x1): (f64, f64),
) -> Result<(i32, i32, i32, i32), String> {
    let (y0, y1) = (y.y0, y.y1);
    let top = chart.backend_coord(&(x0, y1)).1;
    let bottom = chart.backend_coord(&(x0, y0)).1;
    let (left, right) = (
        chart.backend_coord(&(x0, y0)).0,
        chart.backend_coord(&(x1, y0)).0,
    );
    root.draw(&Rectangle::new(
        [(left, top), (right, bottom)],
        RGBColor(60, 60, 60).stroke_width(1),
    ))
    .map_err(err)?;
    if let Some((lo, hi)) = panel.band {
        draw_band(root, chart, panel, (lo, hi), (x0, x1))?;
    }
    if let Some(r) = panel.reference {
        let y = chart.backend_coord(&(x0, y.at(r))).1;
        root.draw(&Rectangle::new(
            [(left, y), (right, y + 1)],
            BLACK.mix(0.7).filled(),
        ))
        .map_err(err)?;
    }
    Ok((top, bottom, left, right))
}

/// The x axis over (`x0`, `x1`) (log2 of the size, or cores) in a plot `plot_w` px wide.
fn x_axis((x0, x1): (f64, f64), plot_w: i32) -> Axis {
    // At most one size label per 55 px, every 1st, 2nd, 4th... power of two.
    let (first, last) = (x0.ceil() as i32, x1.floor() as i32);
    let max_labels = (plot_w / 55).max(2);
    let mut step = 1;
    while (last - first) / step + 1 > max_labels {
        step *= 2;
    }
    let mut bold: Vec<f64> = (first..=last)
        .filter(|k| k.rem_euclid(step) == 0)
        .map(f64::from)
        .collect();
    if bold.is_empty() {
        // A range between two powers of two (one point at an odd size): label the middle.
        bold.push((x0 + x1) / 2.0);
    }
    let light: Vec<f64> = (first..=last).map(f64::from).collect();
    Axis {
        lo: x0,
        hi: x1,
        bold,
        light,
    }
}

/// A panel's y axis in plot space (the values, or their log10) and how its labels read.
struct YAxis {
    /// Whether the axis is a log10 scale.
    log: bool,
    /// The bottom, in plot space.
    y0: f64,
    /// The top, in plot space.
    y1: f64,
    /// Where the labels go.
    ticks: Vec<f64>,
    /// Where the grid lines go.
    light: Vec<f64>,
    /// The decimals a linear axis's labels share.
    common: usize,
}

impl YAxis {
    /// The y axis of `panel`.
    fn of(panel: &Panel) -> YAxis {
        let log = panel.log_y;
        let (y0, y1) = if log {
            (panel.y_range.0.log10(), panel.y_range.1.log10())
        } else {
            panel.y_range
        };
        let (ticks, light) = if log {
            // The ends are grid values ([`log_range`]): labelled, even when not 1, 2 or 5.
            let (mut bold, light) = log_ticks(y0, y1);
            if bold.first().is_none_or(|t| (t - y0).abs() > 1e-9) {
                bold.insert(0, y0);
            }
            if bold.last().is_none_or(|t| (t - y1).abs() > 1e-9) {
                bold.push(y1);
            }
            (bold, light)
        } else {
            let linear = RangedCoordf64::from(y0..y1);
            (linear.key_points(Y_LABELS), linear.key_points(Y_LABELS * 3))
        };
        let mut axis = YAxis {
            log,
            y0,
            y1,
            ticks,
            light,
            common: 0,
        };
        let shown: Vec<f64> = axis
            .ticks
            .iter()
            .map(|&t| if log { 10f64.powf(t) } else { t })
            .collect();
        axis.common = axis.decimals(&shown);
        axis
    }

    /// A value in plot space.
    fn at(&self, v: f64) -> f64 {
        if self.log {
            v.log10()
        } else {
            v
        }
    }

    /// As few decimals as show all of `values` exactly.
    fn decimals(&self, values: &[f64]) -> usize {
        let (y0, y1) = (self.y0, self.y1);
        let exact = |d: usize, v: f64| {
            let shown: f64 = format!("{v:.d$}").parse().unwrap_or(f64::NAN);
            (shown - v).abs() <= v.abs().max((y1 - y0).abs()) * 1e-6
        };
        (0..6)
            .find(|d| values.iter().all(|v| exact(*d, *v)))
            .unwrap_or(6)
    }

    /// The label at `v` (plot space): a linear axis's labels share their decimals (0.5, 1.0,
    /// 1.5); a log axis's each have their own (0.05, 0.1, 1, 2).
    fn label(&self, v: &f64) -> String {
        if self.log {
            let v = 10f64.powf(*v);
            let d = self.decimals(&[v]);
            format!("{v:.d$}")
        } else {
            let common = self.common;
            format!("{v:.common$}")
        }
    }

    /// The widest label, px.
    fn widest(&self) -> i32 {
        self.ticks
            .iter()
            .map(|v| text_width(15, &self.label(v)))
            .max()
            .unwrap_or(0)
    }

    /// The axis for plotters.
    fn spec(&self) -> Axis {
        Axis {
            lo: self.y0,
            hi: self.y1,
            bold: self.ticks.clone(),
            light: self.light.clone(),
        }
    }
}

/// Places the labels of the cache `marks` within (`x0`, `x1`) in rows above a plot from
/// `plot_l` to `plot_r` px: each in the first row where it does not overlap its left
/// neighbour. The marks placed (x, label, row), and the number of rows.
fn place_marks(
    marks: &[Mark],
    (x0, x1): (f64, f64),
    (plot_l, plot_r): (i32, i32),
) -> (Vec<(f64, &str, usize)>, usize) {
    let x_px = |x: f64| plot_l + ((x - x0) / (x1 - x0) * f64::from(plot_r - plot_l)).round() as i32;
    let mut sorted: Vec<&Mark> = marks.iter().filter(|m| m.0 > x0 && m.0 < x1).collect();
    sorted.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut row_ends: Vec<i32> = Vec::new();
    let mut placed: Vec<(f64, &str, usize)> = Vec::new();
    for (x, label) in sorted {
        let px = x_px(*x);
        let row = row_ends
            .iter()
            .position(|end| *end < px)
            .unwrap_or(row_ends.len());
        if row == row_ends.len() {
            row_ends.push(0);
        }
        row_ends[row] = px + 4 + text_width(14, label) + 6;
        placed.push((*x, label, row));
    }
    (placed, row_ends.len())
}

/// The grid, the axis labels and their descriptions.
fn configure_mesh(chart: &mut Chart, panel: &Panel, y: &YAxis) -> Result<(), String> {
    let x_fmt = |v: &f64| match panel.x {
        XKind::Size => ShortBytes(2f64.powf(*v).round() as u64).to_string(),
        XKind::Cores => format!("{v:.0}"),
        XKind::Stride if *v >= RANDOM_X => "random".to_string(),
        XKind::Stride => ShortBytes(2f64.powf(*v).round() as u64).to_string(),
    };
    let y_fmt = |v: &f64| y.label(v);
    let y_desc = if y.log {
        format!("{} (log10 scale)", panel.y_desc)
    } else {
        panel.y_desc.clone()
    };
    chart
        .configure_mesh()
        .x_desc(panel.x.label())
        .y_desc(y_desc.as_str())
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .y_labels(Y_LABELS)
        .y_max_light_lines(2)
        .bold_line_style(GRID_BOLD)
        .light_line_style(GRID_LIGHT)
        // Axis lines and ticks would be polylines: drawn as a frame below instead.
        .axis_style(TRANSPARENT)
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .draw()
        .map_err(err)
}

/// Cache markers: dashed verticals from their label (row 0 just above the plot, between
/// `top` and `bottom`) down.
fn draw_cache_marks(
    root: &Area,
    chart: &Chart,
    placed: &[(f64, &str, usize)],
    (top, bottom): (i32, i32),
    y0: f64,
) -> Result<(), String> {
    for &(x, label, row) in placed {
        let px = chart.backend_coord(&(x, y0)).0;
        let ty = top - ROW_H * (row as i32 + 1);
        let mut y = ty;
        while y < bottom {
            let end = (y + 6).min(bottom);
            root.draw(&Rectangle::new(
                [(px, y), (px + 1, end)],
                CACHE_COLOUR.filled(),
            ))
            .map_err(err)?;
            y += 10;
        }
        let style = text_style(14, CACHE_COLOUR, HPos::Left, VPos::Top);
        root.draw(&Text::new(label.to_string(), (px + 4, ty), style))
            .map_err(err)?;
    }
    Ok(())
}

/// The series' lines (one polyline each, in chart order), then their markers.
fn draw_series(
    root: &Area,
    chart: &mut Chart,
    panel: &Panel,
    palette: &Palette,
    y: &YAxis,
) -> Result<(), String> {
    let mut series: Vec<&Series> = panel.series.iter().collect();
    series.sort_by_key(|s| order(&s.memtype));
    for s in &series {
        let (look, _) = palette.get(&s.memtype);
        chart
            .draw_series(LineSeries::new(
                s.points.iter().map(|&(x, v)| (x, y.at(v))),
                look.colour.stroke_width(look.width),
            ))
            .map_err(err)?;
    }
    for s in &series {
        for &(x, v) in &s.points {
            draw_marker(
                root,
                chart.backend_coord(&(x, y.at(v))),
                palette.get(&s.memtype),
            )?;
        }
    }
    Ok(())
}
