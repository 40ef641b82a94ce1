//! SVG charts of a run's measurements: value against working-set size, one line per memory
//! type.
//!
//! Every chart has a title (with the platform), one or more panels side by side, and a
//! legend column to the right of the panels, so the legend never covers data. The x axis is
//! the working-set size on a log2 scale ("4K", "64K", "1M"...) (for [`scaling`], the cores
//! running at once), the y axis the kernel's unit from 0 (or, for [`compare`] and [`ratio`],
//! a ratio); when a panel's values span more than [`LOG_Y_ABOVE`] times (4 ns next to 14 ns
//! does not, 600 MB/s next to 15000 MB/s does) the y axis is a log10 scale and says so; its
//! ends are then grid values, both labelled. Reported cache sizes are vertical
//! dashed lines labelled "L1 32K" in a strip above the plot, never over the data; in an
//! emulated run "guest L1 32K", with a note that the steps come from QEMU's software TLB and
//! the host ([`GUEST_CACHES_NOTE`]). Lines under the title also name the memory types the
//! firmware skipped for a kernel and why, and warn, in the scaling chart of an emulated run,
//! about more vCPUs than host cores ([`scaling_note`]). Each memory type has the
//! same colour, marker and line width in every chart, from one table ([`LOOKS`]) in the
//! order of core's memory-type table ([`MEMTYPES`]): eight colours, eight marker shapes,
//! filled for Normal types and hollow for Device ones (the table's [`Class`]), and line
//! widths that shrink within a class so that types with equal values (as under QEMU) show as
//! nested bands instead of one line. A Linux twin's sources are drawn the same way from
//! their own table ([`SOURCE_LOOKS`]), keyed by the kind of source in core's source table.
//!
//! The SVG has exactly one `<polyline>` per drawn series (memory type x panel): markers,
//! dashes, legend swatches and reference lines are drawn as circles, rectangles and
//! polygons. Text is laid out with plotters' built-in estimate (no font library is needed);
//! the viewer renders it with its own sans-serif font.

use std::collections::BTreeMap;

use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::read::model::{self, CacheLevel, Run, Unit};
use mairbench_core::format::ShortBytes;
use mairbench_core::kernel::Kernel;
use mairbench_core::memtype::{self, Class, MEMTYPES};
use mairbench_core::source::{self, SOURCES};

/// A marker shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A circle.
    Circle,
    /// A square.
    Square,
    /// A triangle pointing up.
    TriangleUp,
    /// A diamond.
    Diamond,
    /// A triangle pointing down.
    TriangleDown,
    /// A plus sign.
    Plus,
    /// A pentagon.
    Pentagon,
    /// An hourglass (two triangles tip to tip).
    Hourglass,
    /// A hexagon.
    Hexagon,
    /// A bow tie (the hourglass on its side).
    Bowtie,
}

/// How one memory type is drawn: colour, marker shape and line width (px).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Look {
    /// Line and marker colour.
    pub colour: RGBColor,
    /// Marker shape.
    pub shape: Shape,
    /// Line width in pixels.
    pub width: u32,
}

/// The look of each memory type, by place in [`MEMTYPES`]: distinct colours ("tab10"
/// without its two closest), distinct shapes, widths 7, 5, 3, 1 px within each class.
/// Whether the marker is filled comes from the type's class.
pub const LOOKS: [Look; MEMTYPES.len()] = [
    look_of(31, 119, 180, Shape::Circle, 7),
    look_of(255, 127, 14, Shape::Square, 5),
    look_of(44, 160, 44, Shape::TriangleUp, 3),
    look_of(214, 39, 40, Shape::Diamond, 1),
    look_of(148, 103, 189, Shape::TriangleDown, 7),
    look_of(140, 86, 75, Shape::Plus, 5),
    look_of(23, 190, 207, Shape::Pentagon, 3),
    look_of(188, 189, 34, Shape::Hourglass, 1),
];

/// The look of each of the twin's source kinds, by place in core's [`SOURCES`] (keyed by its
/// [`source::Form`]): `anon`, `udmabuf`, `dma-heap:`, the BAR's `_wc` form, the BAR, `devmem:`,
/// `drm-dumb:`, `dma-buf:`, `devmem-ram`. Distinct colours and shapes; widths shrink over the sources that should behave
/// like Normal memory (7, 5, 4, 3 px), so that `anon`, `udmabuf` and a `_wc` BAR, which tie
/// under QEMU, show as nested bands. Whether the marker is filled comes from the memory type
/// the source table expects ([`source::SourceSpec::expected`]): hollow for a Device type.
/// Two sources of one kind in a chart (two BARs) are told apart by colour.
pub const SOURCE_LOOKS: [Look; SOURCES.len()] = [
    look_of(31, 119, 180, Shape::Circle, 7),
    look_of(255, 127, 14, Shape::Square, 5),
    look_of(44, 160, 44, Shape::TriangleUp, 4),
    look_of(214, 39, 40, Shape::Diamond, 3),
    look_of(148, 103, 189, Shape::TriangleDown, 5),
    look_of(140, 86, 75, Shape::Plus, 3),
    look_of(188, 189, 34, Shape::Pentagon, 1),
    look_of(255, 187, 120, Shape::Hexagon, 1),
    look_of(127, 60, 141, Shape::Bowtie, 3),
];

const fn look_of(r: u8, g: u8, b: u8, shape: Shape, width: u32) -> Look {
    Look {
        colour: RGBColor(r, g, b),
        shape,
        width,
    }
}

/// A panel's y axis becomes a log10 scale when its largest value is more than this many
/// times its smallest (all positive).
pub const LOG_Y_ABOVE: f64 = 10.0;

/// Colours of memory types the table does not know.
const EXTRA_COLOURS: [RGBColor; 4] = [
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(0, 0, 0),
    RGBColor(0, 0, 128),
];

const FONT: &str = "sans-serif";
const HEIGHT: u32 = 500;
const LEGEND_W: u32 = 190;
/// Panel width when a chart has several panels (a pair is 2 x 505 + 190 = 1200 px wide).
const PANEL_W: u32 = 505;
/// Panel width of a chart with one panel.
const WIDE_PANEL_W: u32 = 720;
const X_LABEL_AREA: u32 = 48;
const Y_LABELS: usize = 8;
const GRID_BOLD: RGBColor = RGBColor(205, 205, 205);
const GRID_LIGHT: RGBColor = RGBColor(236, 236, 236);
const CACHE_COLOUR: RGBColor = RGBColor(90, 90, 90);
const NOTE_COLOUR: RGBColor = RGBColor(170, 20, 20);
const FOOT_COLOUR: RGBColor = RGBColor(110, 110, 110);

/// The subtitle of charts of emulated runs.
pub const EMULATED_NOTE: &str = "QEMU models no caches: timings do not reflect memory types";

/// What the cache markers of an emulated run's charts are (labelled `guest L1 32K`): the
/// geometry the guest's CPU model reports, not caches its timings went through.
pub const GUEST_CACHES_NOTE: &str = "dashed lines: the cache sizes the guest reports \
    (CCSIDR_EL1); under emulation the steps come from QEMU's software TLB and the host, not \
    from these caches";

/// The prefix of an emulated run's cache marker labels.
const GUEST: &str = "guest ";

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
fn panel_width(panels: &[Panel]) -> u32 {
    if panels.len() == 1 {
        WIDE_PANEL_W
    } else {
        PANEL_W
    }
}

/// The SVG of `panels` (of `kernels`) under the run's header and notes, with its cache
/// markers.
fn render_panels(
    run: &Run,
    title: &str,
    kernels: &[&str],
    panels: &[Panel],
) -> Result<String, String> {
    let marks = run_marks(run);
    let header = noted_header(run, title, kernels, &marks);
    render(&header, panels, &marks, panel_width(panels))
}

/// The run's cache markers: `L1 32K`, or for an emulated run `guest L1 32K` (the geometry the
/// guest reports, [`GUEST_CACHES_NOTE`]).
fn run_marks(run: &Run) -> Vec<Mark> {
    cache_marks(&run.caches, if run.emulated { GUEST } else { "" })
}

/// [`run_header`] with the notes a chart of `kernels` needs under the title: what the cache
/// markers of an emulated run are ([`GUEST_CACHES_NOTE`]), and which memory types the firmware
/// skipped for each kernel and why (`fill-zva` on Device memory), so that a missing line is
/// explained.
fn noted_header(run: &Run, title: &str, kernels: &[&str], marks: &[Mark]) -> Header {
    let mut header = run_header(run, title);
    if run.emulated && !marks.is_empty() {
        header
            .lines
            .push((GUEST_CACHES_NOTE.to_string(), CACHE_COLOUR));
    }
    for line in skipped_notes(run, kernels) {
        header.lines.push((line, FOOT_COLOUR));
    }
    header
}

/// One sentence per kernel of `kernels` and reason the run skipped it for: "not measured,
/// skipped by the firmware: fill-zva on device-ngnrne, device-gre (real cores take an
/// alignment fault for DC ZVA to Device memory)", the types in table order; "at some sizes"
/// when the records name sizes.
fn skipped_notes(run: &Run, kernels: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for kernel in kernels {
        let mut reasons: Vec<&str> = Vec::new();
        for s in run.skipped.iter().filter(|s| s.kernel == *kernel) {
            if !reasons.contains(&s.why.as_str()) {
                reasons.push(&s.why);
            }
        }
        for why in reasons {
            let of = || {
                run.skipped
                    .iter()
                    .filter(move |s| s.kernel == *kernel && s.why == why)
            };
            let mut types: Vec<&str> = model::distinct(of().map(|s| s.memtype.as_str()));
            types.sort_by_key(|t| order(t));
            let sizes = if of().any(|s| s.size.is_some()) {
                " at some sizes"
            } else {
                ""
            };
            out.push(format!(
                "not measured, skipped by the firmware: {kernel} on {}{sizes} ({why})",
                types.join(", ")
            ));
        }
    }
    out
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

/// The two runs of a comparison and their short labels (see `compare::labels`).
pub struct Pair<'a> {
    /// Run A, the reference.
    pub a: &'a Run,
    /// Run B.
    pub b: &'a Run,
    /// A's short label (its file stem).
    pub label_a: &'a str,
    /// B's short label.
    pub label_b: &'a str,
}

/// An SVG of the ratio B/A of `best` for `kernel`, per memory type and size measured in both
/// runs, with a line at 1.0 and a shaded band for the noise: the overall factor of the judged
/// `changes` times and divided by (1 + their smallest threshold) ([`crate::compare::Overall`]),
/// so that points inside it read as noise. The axis label says what a ratio above 1 means
/// ("B faster" for MB/s, "B slower" for times); a line under the title names each run by
/// label, platform and CPU, another the band and the kernel's significant points. Err when
/// the runs share no point of the kernel.
pub fn compare(
    runs: &Pair,
    kernel: &str,
    title: &str,
    changes: &[crate::compare::Change],
) -> Result<String, String> {
    let (a, b) = (runs.a, runs.b);
    let Some(unit) = a.unit_of(kernel) else {
        return Err(format!("run A has no measurements of {kernel}"));
    };
    if b.unit_of(kernel).is_none() {
        return Err(format!("run B has no measurements of {kernel}"));
    }
    // One memory type on two granules stays two series when either run has both.
    let both = a.measurements.iter().chain(&b.measurements);
    let mixed = model::mixed_granules(both, kernel);
    let (pa, pb) = (
        best_points(a, kernel, unit, mixed),
        best_points(b, kernel, unit, mixed),
    );
    let mut series = Vec::new();
    for (memtype, av) in &pa {
        let Some(bv) = pb.get(memtype) else { continue };
        let points: Vec<(f64, f64)> = av
            .iter()
            .filter_map(|(size, x)| {
                let r = bv.get(size)? / x;
                (*x > 0.0 && r.is_finite() && r >= 0.0).then(|| (log2(*size), r))
            })
            .collect();
        if !points.is_empty() {
            series.push(Series {
                memtype: memtype.clone(),
                points,
            });
        }
    }
    if series.is_empty() {
        return Err(format!(
            "no memory type and size of {kernel} has usable measurements in both runs \
             (in {} in both)",
            unit.label()
        ));
    }
    let meaning = if unit.higher_is_better() {
        "B faster"
    } else {
        "B slower"
    };
    let mut panel = Panel::new(
        format!("{kernel}: B/A"),
        format!("ratio B/A of best {} (> 1: {meaning})", unit.label()),
        XKind::Size,
        series,
        Some(1.0),
    );
    let overall = crate::compare::overall(changes);
    let spread = 1.0 + overall.threshold_pct / 100.0;
    let band = (overall.factor / spread, overall.factor * spread);
    if band.0.is_finite() && band.1.is_finite() && band.0 > 0.0 {
        panel.band = Some(band);
        if !panel.log_y {
            panel.y_range = (
                panel.y_range.0.min(band.0 - 0.02).max(0.0),
                panel.y_range.1.max(band.1 + 0.02),
            );
        }
    }
    let of_kernel: Vec<_> = changes.iter().filter(|c| c.kernel == kernel).collect();
    let points = of_kernel.len();
    panel.rings = of_kernel
        .iter()
        .filter(|c| c.significant() && c.size > 0)
        .map(|c| (log2(c.size), c.ratio))
        .collect();
    let flagged = panel.rings.len();

    let grey = RGBColor(40, 40, 40);
    let mut lines = vec![
        (
            format!("A = {}: {}", runs.label_a, crate::compare::describe(a)),
            grey,
        ),
        (
            format!("B = {}: {}", runs.label_b, crate::compare::describe(b)),
            grey,
        ),
        (
            format!(
                "shaded: noise, {:.3}x overall \u{b1} {:.1} %; ringed: the {flagged} of {points} points significant",
                overall.factor, overall.threshold_pct
            ),
            FOOT_COLOUR,
        ),
    ];
    let shared = crate::compare::summary(changes)
        .into_iter()
        .find(|s| s.kernel == kernel)
        .map_or(0, |s| s.shared_shifts);
    if shared > 0 {
        lines.push((
            format!(
                "{shared} {} (a size and class) moved together away from the overall factor: \
                 a shift of the moment, not judged point by point",
                if shared == 1 { "group" } else { "groups" }
            ),
            FOOT_COLOUR,
        ));
    }
    // Labelled as the guest's where both runs are emulated; a board's next to an emulated
    // run keeps plain labels (the note under the title says what the emulated run's are).
    let prefix = if a.emulated && b.emulated { GUEST } else { "" };
    let (ma, mb) = (
        cache_marks(&a.caches, prefix),
        cache_marks(&b.caches, prefix),
    );
    if a.emulated || b.emulated {
        lines.push((EMULATED_NOTE.to_string(), NOTE_COLOUR));
        if !ma.is_empty() || !mb.is_empty() {
            lines.push((GUEST_CACHES_NOTE.to_string(), CACHE_COLOUR));
        }
    }
    let header = Header {
        title: title.to_string(),
        lines,
        footer: Vec::new(),
        legend: a.rows().label,
    };
    // Cache markers of both runs; one that only one run reported is prefixed "A " or "B ".
    let mut marks: Vec<Mark> = Vec::new();
    for (mark, other, prefix) in [(&ma, &mb, "A "), (&mb, &ma, "B ")] {
        for m in mark {
            if !other.contains(m) {
                marks.push((m.0, format!("{prefix}{}", m.1)));
            } else if !marks.contains(m) {
                marks.push(m.clone());
            }
        }
    }
    render(&header, &[panel], &marks, WIDE_PANEL_W)
}

/// An SVG of one panel per kernel of `kernels` (those with data) showing each memory type's
/// `best` over `baseline`'s at the same size, with a line at 1.0: how much a memory type
/// costs relative to the baseline ([`model::RowKind::baseline`]). The axis label says what a
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

/// An SVG of the multi-core points (`scaling` records): one panel per kernel, in the order
/// the kernels first appear, the aggregate MB/s against the cores running at once, one line
/// per memory type. Err when the run has no scaling records.
pub fn scaling(run: &Run, title: &str) -> Result<String, String> {
    let kernels = model::distinct(run.scaling.iter().map(|p| p.kernel.as_str()));
    let panels: Vec<Panel> = kernels
        .iter()
        .map(|kernel| {
            let mut by_type: BTreeMap<&str, BTreeMap<u64, u64>> = BTreeMap::new();
            for p in run.scaling.iter().filter(|p| p.kernel == *kernel) {
                by_type
                    .entry(&p.memtype)
                    .or_default()
                    .insert(p.cores, p.aggregate_mbps);
            }
            let series = by_type
                .into_iter()
                .map(|(memtype, points)| Series {
                    memtype: memtype.to_owned(),
                    points: points
                        .into_iter()
                        .map(|(n, v)| (n as f64, v as f64))
                        .collect(),
                })
                .collect();
            Panel::new(
                format!("{kernel}: all cores"),
                "aggregate MB/s (MB = 10^6 B)".to_string(),
                XKind::Cores,
                series,
                None,
            )
        })
        .collect();
    if panels.is_empty() {
        return Err(format!(
            "no scaling records in this run (one core, or no {} or {})",
            Kernel::ReadLdp.spec().name,
            Kernel::WriteStp.spec().name
        ));
    }
    let mut header = run_header(run, title);
    let most = run.scaling.iter().map(|p| p.cores).max().unwrap_or(1);
    if run.emulated && most > 1 {
        // As the console says under its scaling table; the log does not say how many cores
        // the host has.
        header.lines.push((scaling_note(most), NOTE_COLOUR));
    }
    render(&header, &panels, &[], panel_width(&panels))
}

/// The warning of an emulated run's scaling chart with up to `vcpus` cores at once.
pub fn scaling_note(vcpus: u64) -> String {
    format!(
        "emulated, {vcpus} vCPUs: with more vCPUs than host cores they take turns, so \
         aggregate MB/s and skew show the host's scheduling, not memory"
    )
}

/// One panel's content.
struct Panel {
    caption: String,
    y_desc: String,
    /// What the x values are.
    x: XKind,
    /// Non-empty series only.
    series: Vec<Series>,
    /// The values' range shown (not their log10).
    y_range: (f64, f64),
    /// Whether the y axis is a log10 scale (then `y_range` is positive).
    log_y: bool,
    /// A horizontal reference line at this value.
    reference: Option<f64>,
    /// A shaded horizontal band between these values ([`compare`]'s noise).
    band: Option<(f64, f64)>,
    /// Points ringed in black (x, value): [`compare`]'s significant points.
    rings: Vec<(f64, f64)>,
}

/// What a panel's x axis shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum XKind {
    /// log2 of the working-set size.
    Size,
    /// Cores running at once.
    Cores,
}

impl XKind {
    fn label(self) -> &'static str {
        match self {
            XKind::Size => "working-set size (log2 scale)",
            XKind::Cores => "cores running at once",
        }
    }
}

impl Panel {
    /// A panel whose y range fits its values (and the reference line): a log10 scale when
    /// they are all positive and span more than [`LOG_Y_ABOVE`] times; otherwise linear, from
    /// 0 for values, around the values for ratios (`reference` set).
    fn new(
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
struct Series {
    memtype: String,
    points: Vec<(f64, f64)>,
}

struct Header {
    title: String,
    /// Lines under the title, with their colours.
    lines: Vec<(String, RGBColor)>,
    /// Small print under the legend.
    footer: Vec<String>,
    /// The legend's heading: what a series is (`memory type`, or `source` for the twin).
    legend: &'static str,
}

/// A vertical marker: (log2 of the size, label).
type Mark = (f64, String);

fn log2(size: u64) -> f64 {
    (size as f64).log2()
}

/// Whether `run` measured `kernel` on both granules (its series names then mark them).
fn mixed_in(run: &Run, kernel: &str) -> bool {
    model::mixed_granules(&run.measurements, kernel)
}

/// Per series (a memory type on one granule, named by [`model::series`] with
/// `mixed`), per size: the best `best` of `kernel` in `unit`, finite and >= 0 only.
fn best_points(
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

fn run_header(run: &Run, title: &str) -> Header {
    let title = if run.platform.is_empty() {
        title.to_string()
    } else {
        format!("{title} \u{2014} {}", run.platform)
    };
    let mut footer = Vec::new();
    if !run.midr.is_empty() {
        footer.push(format!("MIDR {}", run.midr));
    }
    if !run.version.is_empty() {
        footer.push(format!("mairbench {}", run.version));
    }
    Header {
        title,
        lines: if run.emulated {
            vec![(EMULATED_NOTE.to_string(), NOTE_COLOUR)]
        } else {
            Vec::new()
        },
        footer,
        legend: run.rows().label,
    }
}

/// The cache markers of `caches`, one per distinct (level, size), labelled "L1 32K".
fn cache_marks(caches: &[CacheLevel], prefix: &str) -> Vec<Mark> {
    let mut seen: Vec<(u8, u64)> = Vec::new();
    let mut out = Vec::new();
    for c in caches {
        if c.size == 0 || seen.contains(&(c.level, c.size)) {
            continue;
        }
        seen.push((c.level, c.size));
        out.push((
            log2(c.size),
            format!("{prefix}L{} {}", c.level, ShortBytes(c.size)),
        ));
    }
    out
}

/// The look of a series and whether its marker is filled. A memory type: from [`LOOKS`] by
/// its place in [`MEMTYPES`], filled for Normal memory (hollow for a series marked with its
/// granule, see [`model::series`]). A twin's source: from [`SOURCE_LOOKS`] by its kind, filled
/// unless the source table expects a Device type. Any other name gets a look hashed from it,
/// 2 px wide.
fn look(memtype: &str) -> (Look, bool) {
    let base = model::series_memtype(memtype);
    if let Some(t) = memtype::by_name(base) {
        let marked = base != memtype;
        return (
            LOOKS[usize::from(t.index)],
            t.class() != Class::Device && !marked,
        );
    }
    if let Some(spec) = source::by_name(memtype) {
        let device = spec
            .expected
            .and_then(memtype::by_name)
            .is_some_and(|t| t.class() == Class::Device);
        return (SOURCE_LOOKS[spec.kind as usize], !device);
    }
    // FNV-1a: stable across charts and runs.
    let h = memtype.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let shape = LOOKS[((h / 4) % LOOKS.len() as u64) as usize].shape;
    (
        Look {
            colour: EXTRA_COLOURS[(h % 4) as usize],
            shape,
            width: 2,
        },
        (h / 64) % 2 == 0,
    )
}

/// The looks of one chart's series: [`look`] of each, except that a second (third...) source
/// of one kind (two BARs, two DMA heaps) takes the next of [`EXTRA_COLOURS`], so that no two
/// series of a chart look the same.
struct Palette(BTreeMap<String, (Look, bool)>);

impl Palette {
    /// The looks of `names`, in chart order ([`order`]).
    fn of(names: &[&str]) -> Palette {
        let mut sorted = names.to_vec();
        sorted.sort_by_key(|n| order(n));
        let mut looks = BTreeMap::new();
        let mut seen = [0usize; SOURCES.len()];
        for name in sorted {
            let mut l = look(name);
            if let Some(spec) = source::by_name(name) {
                let n = &mut seen[spec.kind as usize];
                if *n > 0 {
                    l.0.colour = EXTRA_COLOURS[(*n - 1) % EXTRA_COLOURS.len()];
                }
                *n += 1;
            }
            looks.insert(name.to_string(), l);
        }
        Palette(looks)
    }

    /// The look of `name` (one of the chart's).
    fn get(&self, name: &str) -> (Look, bool) {
        self.0.get(name).copied().unwrap_or_else(|| look(name))
    }
}

/// Sort key of a series: the memory-type table's order ([`model::table_position`]), then the
/// source table's ([`SOURCES`], for a twin's sources), then by name (unknown types, a type's
/// series on two granules, two sources of one kind).
fn order(memtype: &str) -> (usize, usize, &str) {
    let source = source::by_name(memtype).map_or(SOURCES.len(), |s| s.kind as usize);
    (model::table_position(memtype), source, memtype)
}

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

fn err(e: impl std::fmt::Display) -> String {
    format!("drawing the chart failed: {e}")
}

fn text_style(size: u32, colour: RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle {
        font: (FONT, size).into_font(),
        color: colour.to_backend_color(),
        pos: Pos::new(h, v),
    }
}

/// An axis in plot space (log2 of the size, cores, a value or its log10), with labels at
/// `bold` and grid lines at `light`.
struct Axis {
    lo: f64,
    hi: f64,
    bold: Vec<f64>,
    light: Vec<f64>,
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

/// plotters' own estimate of a text's width in pixels (its font fallback's formula).
fn text_width(size: u32, text: &str) -> i32 {
    (f64::from(size) / 1.24 / 1.24 * 0.7 * text.chars().count() as f64).round() as i32
}

fn draw_marker(
    root: &Area,
    (x, y): (i32, i32),
    (look, filled): (Look, bool),
) -> Result<(), String> {
    let colour = look.colour;
    let white = WHITE.filled();
    let (outer, inner): (ShapeStyle, ShapeStyle) = if filled {
        (colour.filled(), colour.filled())
    } else {
        (white, colour.stroke_width(2))
    };
    let regular = |r: f64, n: usize, turn: f64| -> Vec<(i32, i32)> {
        (0..n)
            .map(|i| {
                let a = turn + std::f64::consts::TAU * i as f64 / n as f64;
                (
                    x + (r * a.sin()).round() as i32,
                    y - (r * a.cos()).round() as i32,
                )
            })
            .collect()
    };
    let polygon = |points: &dyn Fn(f64) -> Vec<(i32, i32)>| -> Result<(), String> {
        root.draw(&Polygon::new(points(6.0), colour.filled()))
            .map_err(err)?;
        if !filled {
            root.draw(&Polygon::new(points(3.0), white)).map_err(err)?;
        }
        Ok(())
    };
    match look.shape {
        Shape::Circle | Shape::Square => {
            for style in [outer, inner] {
                if look.shape == Shape::Circle {
                    root.draw(&Circle::new((x, y), 4, style)).map_err(err)?;
                } else {
                    root.draw(&Rectangle::new([(x - 4, y - 4), (x + 4, y + 4)], style))
                        .map_err(err)?;
                }
            }
        }
        Shape::Plus => {
            let (arm, half) = (6, if filled { 2 } else { 1 });
            for [a, b] in [
                [(x - arm, y - half), (x + arm, y + half)],
                [(x - half, y - arm), (x + half, y + arm)],
            ] {
                root.draw(&Rectangle::new([a, b], colour.filled()))
                    .map_err(err)?;
            }
            if !filled {
                root.draw(&Circle::new((x, y), 2, white)).map_err(err)?;
            }
        }
        Shape::TriangleUp => polygon(&|r| regular(r, 3, 0.0))?,
        Shape::TriangleDown => polygon(&|r| regular(r, 3, std::f64::consts::PI))?,
        Shape::Diamond => polygon(&|r| regular(r, 4, 0.0))?,
        Shape::Pentagon => polygon(&|r| regular(r, 5, 0.0))?,
        Shape::Hourglass => polygon(&|r| {
            let r = r as i32;
            vec![
                (x - r, y - r),
                (x + r, y - r),
                (x - r, y + r),
                (x + r, y + r),
            ]
        })?,
        Shape::Hexagon => polygon(&|r| regular(r, 6, 0.0))?,
        Shape::Bowtie => polygon(&|r| {
            let r = r as i32;
            vec![
                (x - r, y - r),
                (x + r, y + r),
                (x + r, y - r),
                (x - r, y + r),
            ]
        })?,
    }
    Ok(())
}

/// `text` broken at spaces into as few lines at most `max_px` wide in a `size` px font as
/// it takes (a word longer than that stays whole), of about equal widths.
fn wrap(text: &str, size: u32, max_px: i32) -> Vec<String> {
    let lines = wrap_greedy(text, size, max_px);
    let n = lines.len();
    // Narrow the limit while the text still takes n lines: no short last line.
    let mut best = lines;
    let mut limit = max_px;
    while n > 1 && limit > 40 {
        limit -= 10;
        let narrower = wrap_greedy(text, size, limit);
        if narrower.len() > n {
            break;
        }
        best = narrower;
    }
    best
}

/// `text` broken at spaces, filling each line up to `max_px`.
fn wrap_greedy(text: &str, size: u32, max_px: i32) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let longer = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if !line.is_empty() && text_width(size, &longer) > max_px {
            lines.push(std::mem::replace(&mut line, word.to_string()));
        } else {
            line = longer;
        }
    }
    lines.push(line);
    lines
}

fn render(head: &Header, panels: &[Panel], marks: &[Mark], panel_w: u32) -> Result<String, String> {
    let (xmin, xmax) = panels
        .iter()
        .flat_map(|p| p.series.iter())
        .flat_map(|s| s.points.iter().map(|p| p.0))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), x| {
            (lo.min(x), hi.max(x))
        });
    if !(xmin.is_finite() && xmax.is_finite()) {
        return Err("nothing to draw".to_string());
    }
    let x_range = (xmin - 0.4, xmax + 0.4);
    let n = panels.len() as u32;
    // Wide enough for the longest name (a twin's `pci:0000:00:01.0:res2_wc`), 8 px a letter.
    let longest = panels
        .iter()
        .flat_map(|p| p.series.iter())
        .map(|s| s.memtype.chars().count() as u32)
        .max()
        .unwrap_or(0);
    let legend_w = LEGEND_W.max(44 + 8 * longest);
    let width = panel_w * n + legend_w;
    // The lines under the title, each broken to fit the chart's width.
    let lines: Vec<(String, RGBColor)> = head
        .lines
        .iter()
        .flat_map(|(line, colour)| {
            wrap(line, 17, width as i32 - 40)
                .into_iter()
                .map(move |l| (l, *colour))
        })
        .collect();
    let title_h = 44 + 22 * lines.len() as u32;
    let height = HEIGHT + 22 * lines.len().saturating_sub(1) as u32;

    let mut names: Vec<&str> = Vec::new();
    for s in panels.iter().flat_map(|p| p.series.iter()) {
        if !names.contains(&s.memtype.as_str()) {
            names.push(&s.memtype);
        }
    }
    names.sort_by_key(|m| order(m));
    let palette = Palette::of(&names);

    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let title_style = TextStyle::from((FONT, 25, FontStyle::Bold).into_font())
            .pos(Pos::new(HPos::Center, VPos::Top));
        let centre = (width / 2) as i32;
        root.draw(&Text::new(head.title.clone(), (centre, 12), title_style))
            .map_err(err)?;
        for (i, (line, colour)) in lines.iter().enumerate() {
            let style = text_style(17, *colour, HPos::Center, VPos::Top);
            root.draw(&Text::new(
                line.clone(),
                (centre, 42 + 22 * i as i32),
                style,
            ))
            .map_err(err)?;
        }

        let (_, body) = root.split_vertically(title_h);
        let (plots, legend) = body.split_horizontally(panel_w * n);
        for (area, panel) in plots.split_evenly((1, n as usize)).iter().zip(panels) {
            draw_panel(&root, area, panel, x_range, marks, &palette)?;
        }
        draw_legend(&root, &legend, head, &names, &palette)?;
        root.present().map_err(err)?;
    }
    Ok(svg)
}

fn draw_legend(
    root: &Area,
    legend: &Area,
    head: &Header,
    types: &[&str],
    palette: &Palette,
) -> Result<(), String> {
    let footer = &head.footer;
    let (xs, ys) = legend.get_pixel_range();
    let x = xs.start + 8;
    let mut y = ys.start + 44;
    let heading = TextStyle::from((FONT, 17, FontStyle::Bold).into_font())
        .pos(Pos::new(HPos::Left, VPos::Center));
    root.draw(&Text::new(head.legend, (x, y), heading))
        .map_err(err)?;
    for memtype in types {
        y += 24;
        let look = palette.get(memtype);
        root.draw(&Rectangle::new(
            [(x, y - 1), (x + 28, y + 1)],
            look.0.colour.filled(),
        ))
        .map_err(err)?;
        draw_marker(root, (x + 14, y), look)?;
        let style = text_style(16, BLACK, HPos::Left, VPos::Center);
        root.draw(&Text::new(memtype.to_string(), (x + 36, y), style))
            .map_err(err)?;
    }
    for (i, line) in footer.iter().rev().enumerate() {
        let style = text_style(14, FOOT_COLOUR, HPos::Left, VPos::Bottom);
        root.draw(&Text::new(
            line.clone(),
            (x, ys.end - 12 - 18 * i as i32),
            style,
        ))
        .map_err(err)?;
    }
    Ok(())
}

/// The ends of a log10 axis for values from `lo` to `hi` (both positive): each a grid value
/// (1 to 9 times a power of ten) a little beyond the values, which the axis labels
/// ([`draw_panel`]), so that the lowest and the highest tick are labelled.
fn log_range(lo: f64, hi: f64) -> (f64, f64) {
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
fn log_ticks(y0: f64, y1: f64) -> (Vec<f64>, Vec<f64>) {
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

/// [`compare`]'s noise band: a light grey rectangle from `lo` to `hi` across the plot,
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

fn draw_panel(
    root: &Area,
    area: &Area,
    panel: &Panel,
    (x0, x1): (f64, f64),
    marks: &[Mark],
    palette: &Palette,
) -> Result<(), String> {
    let (xs, ys) = area.get_pixel_range();
    let plot_w = (xs.end - xs.start) - 110;
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
    let x_spec = Axis {
        lo: x0,
        hi: x1,
        bold,
        light,
    };

    // The y axis in plot space: the values, or their log10.
    let log = panel.log_y;
    let (y0, y1) = if log {
        (panel.y_range.0.log10(), panel.y_range.1.log10())
    } else {
        panel.y_range
    };
    let y_at = |v: f64| if log { v.log10() } else { v };
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
    // As few decimals as the y labels need.
    let exact = |d: usize, v: f64| {
        let shown: f64 = format!("{v:.d$}").parse().unwrap_or(f64::NAN);
        (shown - v).abs() <= v.abs().max((y1 - y0).abs()) * 1e-6
    };
    let shown: Vec<f64> = ticks
        .iter()
        .map(|&t| if log { 10f64.powf(t) } else { t })
        .collect();
    let decimals = |values: &[f64]| {
        (0..6)
            .find(|d| values.iter().all(|v| exact(*d, *v)))
            .unwrap_or(6)
    };
    let common = decimals(&shown);
    // A linear axis's labels share their decimals (0.5, 1.0, 1.5); a log axis's each have
    // their own (0.05, 0.1, 1, 2).
    let y_fmt = |v: &f64| {
        if log {
            let v = 10f64.powf(*v);
            let d = decimals(&[v]);
            format!("{v:.d$}")
        } else {
            format!("{v:.common$}")
        }
    };
    let widest = ticks
        .iter()
        .map(|v| text_width(15, &y_fmt(v)))
        .max()
        .unwrap_or(0);
    let y_spec = Axis {
        lo: y0,
        hi: y1,
        bold: ticks,
        light,
    };
    let y_label_w = (widest + 40).max(56);

    // Cache markers' labels sit in a strip between the caption and the plot, never over the
    // data: one row, and a row more for each label that would overlap its left neighbour's.
    // Where the plot will be (the builder's margins and label area, below).
    let (plot_l, plot_r) = (xs.start + 8 + y_label_w, xs.end - 22);
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
    const CAPTION_H: i32 = 30;
    const ROW_H: i32 = 18;
    let strip = ROW_H * row_ends.len() as i32;

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
        .build_cartesian_2d(x_spec, y_spec)
        .map_err(err)?;

    let x_fmt = |v: &f64| match panel.x {
        XKind::Size => ShortBytes(2f64.powf(*v).round() as u64).to_string(),
        XKind::Cores => format!("{v:.0}"),
    };
    let y_desc = if log {
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
        .map_err(err)?;

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
        draw_band(root, &chart, panel, (lo, hi), (x0, x1))?;
    }
    if let Some(r) = panel.reference {
        let y = chart.backend_coord(&(x0, y_at(r))).1;
        root.draw(&Rectangle::new(
            [(left, y), (right, y + 1)],
            BLACK.mix(0.7).filled(),
        ))
        .map_err(err)?;
    }

    // Cache markers: dashed verticals from their label (row 0 just above the plot) down.
    for (x, label, row) in placed {
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

    let mut series: Vec<&Series> = panel.series.iter().collect();
    series.sort_by_key(|s| order(&s.memtype));
    for s in &series {
        let (look, _) = palette.get(&s.memtype);
        chart
            .draw_series(LineSeries::new(
                s.points.iter().map(|&(x, v)| (x, y_at(v))),
                look.colour.stroke_width(look.width),
            ))
            .map_err(err)?;
    }
    for s in &series {
        for &(x, v) in &s.points {
            draw_marker(
                root,
                chart.backend_coord(&(x, y_at(v))),
                palette.get(&s.memtype),
            )?;
        }
    }
    for &(x, v) in &panel.rings {
        let at = chart.backend_coord(&(x, y_at(v)));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::model::Measurement;

    /// [`compare`] of `a` and `b`, labelled "a" and "b", judged as `cargo host compare` does.
    fn cmp(a: &Run, b: &Run, kernel: &str, title: &str) -> Result<String, String> {
        let runs = Pair {
            a,
            b,
            label_a: "a",
            label_b: "b",
        };
        compare(&runs, kernel, title, &crate::compare::changes(a, b))
    }

    const SIZES: std::ops::RangeInclusive<u32> = 12..=25; // 4K..32M

    /// The memory-type names of core's table, in order.
    fn names() -> Vec<&'static str> {
        MEMTYPES.iter().map(|t| t.name).collect()
    }

    fn m(memtype: &str, kernel: &str, size: u64, unit: Unit, best: f64) -> Measurement {
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
    fn synthetic(emulated: bool) -> Run {
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
    fn texts(svg: &str) -> Vec<String> {
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

    fn polylines(svg: &str) -> Vec<&str> {
        svg.split("<polyline")
            .skip(1)
            .map(|p| &p[..p.find("/>").unwrap()])
            .collect()
    }

    fn stroke(memtype: &str) -> String {
        let RGBColor(r, g, b) = look(memtype).0.colour;
        format!("stroke=\"#{r:02X}{g:02X}{b:02X}\"")
    }

    fn assert_series(svg: &str, memtypes: &[&str], panels: usize) {
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
        assert!(cmp(&run, &Run::default(), "read-ldp", "x").is_err());
        assert!(cmp(&Run::default(), &run, "read-ldp", "x").is_err());
        assert!(cmp(&run, &run, "copy-to", "x").is_err());
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
    fn compare_ratio() {
        let a = synthetic(false);
        let mut b = synthetic(true);
        b.platform = "linux,dummy-virt".into();
        for m in &mut b.measurements {
            m.best *= 2.0;
        }
        let svg = cmp(&a, &b, "read-ldp", "B vs A").unwrap();
        assert_series(&svg, &names(), 1);
        let t = texts(&svg);
        assert!(
            t.iter()
                .any(|x| x == "ratio B/A of best MB/s (> 1: B faster)"),
            "{t:?}"
        );
        assert!(t.iter().any(|x| x == "B vs A"));
        assert!(
            t.iter().any(|x| x.starts_with("A = a: rockchip,rk3588")),
            "{t:?}"
        );
        assert!(t.iter().any(|x| x.starts_with("B = b: linux,dummy-virt")));
        assert!(t.iter().any(|x| x == EMULATED_NOTE));
        assert!(t.iter().any(|x| x == "2.0"), "ratio 2 on the axis: {t:?}");
        // The noise band around the overall factor (2.0: every point doubled), one rectangle
        // across the plot, named under the title.
        assert!(
            t.iter()
                .any(|x| x
                    .starts_with("shaded: noise, 2.000x overall \u{b1} 5.0 %; ringed: the 0 of ")),
            "{t:?}"
        );
        assert!(svg.contains("opacity=\"0.18\""), "the band is drawn");
        // The Device types at 64 KiB moved together: said once under the title.
        let mut moved = a.clone();
        for m in &mut moved.measurements {
            if m.size == 64 << 10 && m.memtype.starts_with("device") {
                m.best *= 3.0;
            }
        }
        let t = texts(&cmp(&a, &moved, "read-ldp", "x").unwrap());
        assert!(
            t.iter()
                .any(|x| x.starts_with("1 group (a size and class) moved together")),
            "{t:?}"
        );

        let svg = cmp(&a, &b, "latency", "x").unwrap();
        assert!(texts(&svg)
            .iter()
            .any(|x| x == "ratio B/A of best ns per load (> 1: B slower)"));

        // Different caches: both sets, prefixed.
        b.caches[1].size = 2 << 20;
        let t = texts(&cmp(&a, &b, "latency", "x").unwrap());
        assert!(t.iter().any(|x| x == "A L2 1M") && t.iter().any(|x| x == "B L2 2M"));
        assert!(t.iter().any(|x| x == "L1 32K"), "shared: no prefix");
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
        let looks: Vec<_> = names().into_iter().map(look).collect();
        for (i, (l, _)) in looks.iter().enumerate() {
            assert!(
                !looks[..i].iter().any(|o| o.0.colour == l.colour),
                "colours are distinct"
            );
            assert!(
                !looks[..i].iter().any(|o| o.0.shape == l.shape),
                "marker shapes are distinct"
            );
        }
        // Within a class, line widths shrink: equal values show as nested bands.
        for device in [false, true] {
            let widths: Vec<u32> = MEMTYPES
                .iter()
                .filter(|t| (t.class() == Class::Device) == device)
                .map(|t| look(t.name).0.width)
                .collect();
            assert!(widths.windows(2).all(|w| w[0] > w[1]), "{widths:?}");
        }
        // Filled for Normal memory, hollow for Device memory (core's classes).
        assert!(look("normal-nc").1 && look("normal-wb").1);
        assert!(!look("device-ngnrne").1 && !look("device-gre").1);
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
        // Zero in A or B, NaN ratio: left out.
        let mut b = run.clone();
        for m in &mut b.measurements {
            m.best = 0.0;
        }
        let svg = cmp(&run, &b, "read-ldp", "x").unwrap();
        assert!(!svg.contains("NaN") && !svg.contains("inf"));
        assert!(cmp(&b, &run, "read-ldp", "x").is_err());

        // Only non-finite or negative values: no data.
        let mut bad = run.clone();
        bad.measurements
            .retain(|m| !(m.best >= 0.0 && m.best.is_finite()));
        assert!(pair(&bad, "read-ldp", "write-stp", "x").is_err());

        // All zero.
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
        let svg = cmp(&run, &run, "latency", "x").unwrap();
        assert_eq!(polylines(&svg).len(), 1);
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
    fn log_axis_bottom_is_a_labelled_grid_value() {
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
    fn scaling_over_cores() {
        let mut run = synthetic(false);
        assert!(scaling(&run, "x").is_err());
        for (i, memtype) in names().into_iter().enumerate() {
            for kernel in ["read-ldp", "write-stp"] {
                for cores in 1..=4u64 {
                    let one = if i < 4 { 8000 } else { 600 };
                    run.scaling.push(crate::read::model::Scaling {
                        memtype: memtype.into(),
                        kernel: kernel.into(),
                        cores,
                        aggregate_mbps: one * cores,
                        per_core_min_mbps: one,
                        per_core_max_mbps: one,
                        span_ticks: None,
                        start_skew_ticks: None,
                    });
                }
            }
        }
        let svg = scaling(&run, "Scaling").unwrap();
        assert_series(&svg, &names(), 2);
        let t = texts(&svg);
        assert_eq!(
            t.iter().filter(|x| *x == "cores running at once").count(),
            2
        );
        assert!(
            t.iter()
                .any(|x| x == "aggregate MB/s (MB = 10^6 B) (log10 scale)"),
            "600 to 32000 MB/s: {t:?}"
        );
        for label in ["1", "2", "3", "4"] {
            assert!(t.iter().any(|x| x == label), "{label}: {t:?}");
        }
        assert!(
            !t.iter().any(|x| x == "L1 32K"),
            "no cache marks over cores"
        );
        assert!(!t.join(" ").contains("vCPUs"), "a board: no warning");
        // Emulated: the console's warning about more vCPUs than host cores.
        run.emulated = true;
        let t = texts(&scaling(&run, "Scaling").unwrap());
        assert!(t.join(" ").contains(&scaling_note(4)), "{t:?}");
        assert!(scaling_note(4).contains("4 vCPUs"));
    }

    /// A `Run` from the `@mb` records of a log, as `report` reads it.
    fn run_from_log(log: &str) -> Run {
        crate::read::log::parse(log.as_bytes()).run
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

    /// The `y` of each `<text>` element whose content is `text`.
    fn text_ys(svg: &str, text: &str) -> Vec<i32> {
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
    fn frame_tops(svg: &str) -> Vec<i32> {
        svg.split("<rect")
            .skip(1)
            .filter(|r| r.contains("stroke=\"#3C3C3C\""))
            .filter_map(|r| {
                let y = &r[r.find(" y=\"")? + 4..];
                y[..y.find('"')?].parse().ok()
            })
            .collect()
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
        // The source table's looks: distinct colours and shapes, hollow where the table
        // expects a Device type.
        for (i, l) in SOURCE_LOOKS.iter().enumerate() {
            assert!(!SOURCE_LOOKS[..i].iter().any(|o| o.colour == l.colour));
            assert!(!SOURCE_LOOKS[..i].iter().any(|o| o.shape == l.shape));
            assert!(
                !EXTRA_COLOURS.contains(&l.colour),
                "kept for a kind's second source"
            );
        }
        assert!(look("anon").1 && look("udmabuf").1 && look("pci:0000:00:01.0:res2_wc").1);
        assert!(!look("pci:0000:00:01.0:res2").1 && !look("devmem:0x40000000+64K").1);

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
        assert_eq!(
            stroke("anon"),
            format!("stroke=\"#{:02X}{:02X}{:02X}\"", 31, 119, 180)
        );
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

    #[test]
    fn header_lines_wrap_to_the_width() {
        let text = "one two three four five six seven eight nine ten eleven twelve";
        let lines = wrap(text, 17, 200);
        assert!(lines.len() > 1);
        assert_eq!(lines.join(" "), text);
        assert!(lines.iter().all(|l| text_width(17, l) <= 200), "{lines:?}");
        // Balanced: the last line is not a lone word.
        assert!(lines.last().unwrap().contains(' '), "{lines:?}");
        assert_eq!(wrap("short", 17, 200), ["short"]);
        assert_eq!(wrap("unbreakablelongword", 17, 10), ["unbreakablelongword"]);
    }

    /// Writes the charts of the synthetic runs and, when `MAIRBENCH_CHART_LOG` names a log,
    /// of that log, as SVG into `MAIRBENCH_CHART_DIR` (default /tmp/charts), to look at:
    /// `cargo test -p mairbench-host --lib --target host-tuple chart -- --ignored`.
    #[test]
    #[ignore]
    fn write_charts() {
        let dir = std::env::var("MAIRBENCH_CHART_DIR").unwrap_or("/tmp/charts".into());
        std::fs::create_dir_all(&dir).unwrap();
        let mut runs = vec![("synthetic", synthetic(false))];
        if let Ok(path) = std::env::var("MAIRBENCH_CHART_LOG") {
            runs.push(("log", run_from_log(&std::fs::read_to_string(path).unwrap())));
        }
        let write = |name: String, svg: Result<String, String>| match svg {
            Ok(svg) => std::fs::write(format!("{dir}/{name}.svg"), svg).unwrap(),
            Err(e) => eprintln!("{name}: {e}"),
        };
        for (name, run) in &runs {
            write(
                format!("{name}-rw"),
                pair(run, "read-ldp", "write-stp", "Streaming bandwidth"),
            );
            write(
                format!("{name}-latency"),
                single(run, "latency", "Load latency"),
            );
            write(
                format!("{name}-maint"),
                single(run, "maint-", "Cache maintenance by VA"),
            );
        }
        let mut b = synthetic(false);
        for (i, m) in b.measurements.iter_mut().enumerate() {
            m.best *= 0.8 + (i % 7) as f64 * 0.07;
        }
        let a = &runs.last().unwrap().1;
        write(
            "compare-read".into(),
            cmp(a, &b, "read-ldp", "Read bandwidth, B vs A"),
        );
        let mut sparse = runs[0].1.clone();
        sparse
            .measurements
            .retain(|m| m.size == 1 << 16 && m.memtype == "normal-nc");
        write("one-point".into(), single(&sparse, "latency", "One point"));
        write(
            "one-missing".into(),
            pair(&runs[0].1, "latency", "copy-to", "One missing"),
        );
        write(
            "compare-latency".into(),
            cmp(&runs[0].1, &b, "latency", "Latency, B vs A"),
        );
    }
}

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
    let bar = |(v, cv): (f64, f64)| {
        let d = v * cv.max(0.0) / 100.0;
        ((v - d).max(v / 2.0), v + d)
    };
    let (lo, hi) = values()
        .map(|&p| bar(p))
        .chain([(1.0, 1.0)])
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), (a, b)| {
            (lo.min(a), hi.max(b))
        });
    let log = hi / lo > LOG_Y_ABOVE;
    let (y0, y1) = if log {
        let (a, b) = log_range(lo, hi);
        (a.log10(), b.log10())
    } else {
        let pad = ((hi - lo) * 0.08).max(0.05);
        ((lo - pad).max(0.0), hi + pad)
    };
    let y_at = |v: f64| if log { v.log10() } else { v };
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
    let n = data.categories.len();
    let x_spec = Axis {
        lo: -0.5,
        hi: n as f64 - 0.5,
        bold: (0..n).map(|i| i as f64).collect(),
        light: Vec::new(),
    };
    let y_spec = Axis {
        lo: y0,
        hi: y1,
        bold,
        light,
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
        let (_, body) = root.split_vertically(title_h);
        let (plot, legend) = body.split_horizontally(panel_w);
        let mut chart = ChartBuilder::on(&plot)
            .margin(16)
            .x_label_area_size(X_LABEL_AREA)
            .y_label_area_size(80)
            .build_cartesian_2d(x_spec, y_spec)
            .map_err(err)?;
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
            .map_err(err)?;
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
                draw_marker(&root, (px, py), look)?;
            }
        }
        let (xs, ys) = legend.get_pixel_range();
        let x = xs.start + 8;
        let mut y = ys.start + 44;
        let heading = TextStyle::from((FONT, 17, FontStyle::Bold).into_font())
            .pos(Pos::new(HPos::Left, VPos::Center));
        root.draw(&Text::new("log", (x, y), heading)).map_err(err)?;
        for (b, (label, _)) in data.boards.iter().enumerate() {
            y += 24;
            let look = (LOOKS[b % LOOKS.len()], b < LOOKS.len());
            draw_marker(&root, (x + 10, y), look)?;
            let style = text_style(16, BLACK, HPos::Left, VPos::Center);
            root.draw(&Text::new(label.clone(), (x + 26, y), style))
                .map_err(err)?;
        }
        root.present().map_err(err)?;
    }
    Ok(svg)
}
