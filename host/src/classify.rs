//! Which firmware memory type each Linux twin source behaves like: `cargo host compare
//! FIRMWARE_LOG LINUX_LOG` (either order) on a firmware log and a `mairbench-linux` log of
//! one board.
//!
//! # Method
//!
//! - **Features.** For every bandwidth kernel (core's kernel table, `Unit::Bandwidth`) and
//!   size present in both logs (firmware rows on 4K pages only), the natural log of the
//!   ratio of the result's best MB/s to its own log's reference at the same kernel and size:
//!   core's write-back type ([`FIRMWARE_BASELINE`]) in the firmware log, the heap's memory
//!   ([`TWIN_BASELINE`]) in the twin log. A value that is missing, zero, negative or not
//!   finite (the result's or the reference's) gives no feature there.
//! - **The reference is not classified.** The twin reference's features are all 0 by
//!   construction, as the write-back type's are: it is the twin's yardstick, taken to be the
//!   heap's type, and listed as the reference with its count of points only.
//! - **Distance** between a Linux source and a firmware memory type: the RMS of the feature
//!   differences over their common points, with the count of points; fewer than
//!   `MIN_POINTS` (2) common points: "too few common points", no label.
//! - **Board resolution.** Firmware memory types whose mutual distance is below
//!   `TAU` = ln(1.35) are joined into one group (single linkage): indistinguishable on
//!   this board. The source's nearest group is the one holding its nearest type. The label
//!   is the source's expected type when that type is in the nearest group, else the nearest
//!   type; the output lists the group's other members ("tied with"). The expected type is
//!   the twin's `source` record's `expected` where it has one (the twin knows a DRM
//!   source's driver, and the driver's mapping: vgem's dumb buffer is `normal-nc`), else
//!   core's source table's (`source::by_name(..).expected`).
//! - **Confidence** = 1 − d_nearest / d_nearest_outside_group, clamped to 0..1; 0 when
//!   there is only one group (or no type outside the group has enough common points): the
//!   board times every memory type alike, so the label is only what Linux documents;
//!   shown as a percentage with a word: ≥ 60 % high, ≥ 30 % medium, else low.
//! - **Emulated.** When either log's start record says `emulated: true` (or the platform is
//!   QEMU's `linux,dummy-virt`), every row's confidence reads "emulated (97 %)", and a line
//!   under the table says what QEMU's timings can tell: under TCG (QEMU without KVM; the
//!   evidence is the runner's `mairbench.host=` bootarg, `emulated_by` holding `bootarg`)
//!   caches are not modelled and only Device vs Normal shows (TCG's slow path for Device
//!   pages); on a QEMU machine known only by its tables it may be TCG or KVM. Either way the
//!   type within a group is what Linux documents, not a measurement.
//! - **Agreement.** The expected type and its `pgprot` (the record's driver's, from core's
//!   DRM driver table, else core's source table's), with the driver where the record names
//!   one, and whether the nearest group contains it: "yes", `NO: behaves like <label>`; "—"
//!   when neither the record nor the table has an expected type.
//! - Sources with error records are listed with their error, not classified.
//! - A warning when the two logs are from different boards (the start records' `midr`
//!   differ, or their `platform`, where both are known): the comparison only means
//!   something on one board.
//!
//! [`compare`] reads two [`Run`]s (everything under it is pure arithmetic on plain
//! numbers); [`table`], [`csv`] and [`json`](fn@json) render the result.

use crate::read::model::{distinct, Run, Source, FIRMWARE_BASELINE, PAGES, TWIN_BASELINE};
use crate::read::text::{csv_field, csv_row, size_label};
use mairbench_core::kernel;
use mairbench_core::source;
use serde_json::json;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

/// The ratio below which two memory types are one group: 1.35 (35 %).
const TAU_RATIO: f64 = 1.35;

/// ln(`TAU_RATIO`): memory types closer than this (RMS of ln ratios) are joined.
const TAU: f64 = 0.300_104_592_450_338_2;

/// The fewest common points a distance needs.
const MIN_POINTS: usize = 2;

/// Confidence from which the word is "high".
const HIGH: f64 = 0.60;

/// Confidence from which the word is "medium" (below: "low").
const MEDIUM: f64 = 0.30;

/// A point of a sweep: (kernel name, working-set size in bytes).
type Point = (String, u64);

/// One row's features: ln(best MB/s / the reference's best MB/s) per point.
type Sweep = BTreeMap<Point, f64>;

/// The features of every row (memory type or source), in log order.
type Features = Vec<(String, Sweep)>;

/// One bandwidth result as the classifier reads it.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Sample<'a> {
    /// The row: a memory type (firmware) or a source (twin).
    row: &'a str,
    /// Kernel name.
    kernel: &'a str,
    /// Working-set size, bytes.
    size: u64,
    /// Best MB/s (MB = 10^6 B).
    best_mbps: f64,
}

/// The bandwidth results of `run` (kernels whose unit is `Unit::Bandwidth` in core's kernel
/// table), in log order; with `pages_only`, those on 4 KiB pages only.
fn samples(run: &Run, pages_only: bool) -> Vec<Sample<'_>> {
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
fn features(samples: &[Sample<'_>], reference: &str) -> Features {
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
fn common_points(a: &Features, b: &Features) -> BTreeSet<Point> {
    let of = |f: &Features| -> BTreeSet<Point> {
        f.iter().flat_map(|(_, s)| s.keys().cloned()).collect()
    };
    of(a).intersection(&of(b)).cloned().collect()
}

/// `features` with only the points in `points` (rows kept, perhaps empty).
fn restrict(features: &Features, points: &BTreeSet<Point>) -> Features {
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
struct Distance {
    /// RMS of the feature differences over the common points; `None` with fewer than
    /// `MIN_POINTS` of them.
    rms: Option<f64>,
    /// Common points (both finite).
    points: usize,
}

/// The RMS of `a - b` over the points both have (finite values only), and their count.
fn distance(a: &Sweep, b: &Sweep) -> Distance {
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
fn groups(types: &Features) -> Vec<Vec<String>> {
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

/// 1 − `nearest` / `outside`, clamped to 0..1; 0.0 when there is nothing outside the group
/// (`None`: the measurement tells no group from another) or the ratio cannot be taken (NaN,
/// a zero or negative `outside`).
fn confidence(nearest: f64, outside: Option<f64>) -> f64 {
    let Some(outside) = outside else {
        return 0.0;
    };
    let c = 1.0 - nearest / outside;
    if outside > 0.0 && c.is_finite() {
        c.clamp(0.0, 1.0)
    } else {
        0.0
    }
}

/// The word for a confidence: "high" (≥ `HIGH`), "medium" (≥ `MEDIUM`) or "low".
fn confidence_word(c: f64) -> &'static str {
    if c >= HIGH {
        "high"
    } else if c >= MEDIUM {
        "medium"
    } else {
        "low"
    }
}

/// Whether what a source measures agrees with what core's source table expects of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Agreement {
    /// The nearest group holds the expected type.
    Yes,
    /// It does not: the source behaves like this type (the label).
    No(String),
    /// The table expects no type of this source (or does not know it).
    NoExpectation,
    /// The expected type is not among the firmware log's memory types.
    Unmeasured,
}

impl Agreement {
    /// As the table prints it: `yes`, `NO: behaves like <label>`, `—`, or
    /// `— (not in the firmware log)`.
    pub fn text(&self) -> String {
        match self {
            Agreement::Yes => "yes".into(),
            Agreement::No(label) => format!("NO: behaves like {label}"),
            Agreement::NoExpectation => "\u{2014}".into(),
            Agreement::Unmeasured => "\u{2014} (not in the firmware log)".into(),
        }
    }
}

/// One source's classification. What derives from these fields (the label, the types tied
/// with it, the confidence) and what core's source table says of the source (expected type,
/// page protection) are methods.
#[derive(Clone, Debug, PartialEq)]
pub struct Label {
    /// The source's name, e.g. `pci:0000:00:01.0:res2_wc`.
    pub source: String,
    /// Common points with the nearest type (without a nearest type: the most with any).
    pub points: usize,
    /// The nearest memory type and its distance; `None`: too few common points.
    pub nearest: Option<(String, f64)>,
    /// The nearest group's types (empty without a nearest type).
    pub group: Vec<String>,
    /// The distance to the nearest type outside the group (`None`: none measurable).
    pub outside: Option<f64>,
    /// Whether the measurement agrees with the expectation.
    pub agreement: Agreement,
    /// The source record's `expected` (the twin's word), when it has one.
    pub record_expected: Option<String>,
    /// The source record's `driver` (a DRM source's driver), when it has one.
    pub driver: Option<String>,
}

impl Label {
    /// The type expected of the source: the source record's `expected`, else core's source
    /// table's.
    pub fn expected(&self) -> Option<&str> {
        self.record_expected
            .as_deref()
            .or_else(|| source::by_name(&self.source).and_then(|s| s.expected))
    }

    /// The page protection of the source: its driver's (core's DRM driver table) when the
    /// record names a known driver, else what core's source table names.
    pub fn pgprot(&self) -> Option<&'static str> {
        self.driver
            .as_deref()
            .and_then(source::drm_driver)
            .map(|d| d.pgprot)
            .or_else(|| source::by_name(&self.source).map(|s| s.pgprot))
    }

    /// The expected type as the table prints it: with the driver, e.g. `normal-nc (vgem)`;
    /// "—" when there is none.
    pub fn expected_text(&self) -> String {
        match (self.expected(), &self.driver) {
            (Some(e), Some(d)) => format!("{e} ({d})"),
            (Some(e), None) => e.to_owned(),
            (None, Some(d)) => format!("\u{2014} ({d})"),
            (None, None) => "\u{2014}".to_owned(),
        }
    }

    /// The label: the expected type when the nearest group holds it, else the nearest type;
    /// `None` without a nearest type (too few common points).
    pub fn label(&self) -> Option<&str> {
        let (near, _) = self.nearest.as_ref()?;
        Some(
            self.expected()
                .filter(|e| self.group.iter().any(|t| t == e))
                .unwrap_or(near.as_str()),
        )
    }

    /// The group's members other than the label.
    pub fn tied_with(&self) -> Vec<&str> {
        let label = self.label();
        self.group
            .iter()
            .map(String::as_str)
            .filter(|t| Some(*t) != label)
            .collect()
    }

    /// 1 − the nearest distance / the outside one, clamped to 0..1 (0 without an outside
    /// one), when there is a label.
    pub fn confidence(&self) -> Option<f64> {
        self.nearest
            .as_ref()
            .map(|(_, d)| confidence(*d, self.outside))
    }
}

/// The twin log's reference source ([`TWIN_BASELINE`]): what every source is divided by, not
/// classified.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reference {
    /// Its name, [`TWIN_BASELINE`].
    pub source: String,
    /// The common points it has a (zero) feature at.
    pub points: usize,
}

/// A classification of sources against a board's memory types.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Classification {
    /// The board's groups of memory types, indistinguishable within each.
    pub groups: Vec<Vec<String>>,
    /// The sources' reference, when the sources have it.
    pub reference: Option<Reference>,
    /// One label per source other than the reference, in the sources' order.
    pub labels: Vec<Label>,
}

/// Classifies each source of `sources` but `reference` against the memory types of `types`
/// (features of the same points, see [`common_points`] and [`restrict`]) by the method of the
/// module doc.
#[cfg(test)]
fn classify(types: &Features, sources: &Features, reference: &str) -> Classification {
    classify_with(types, sources, reference, &[])
}

/// The classification of the module doc, with the twin log's `source` records (`records`): a
/// source's expected type and driver are its record's where it has them (the last mapped
/// record of its name); without records, core's source table's.
fn classify_with(
    types: &Features,
    sources: &Features,
    reference: &str,
    records: &[Source],
) -> Classification {
    let groups = groups(types);
    let labels = sources
        .iter()
        .filter(|(name, _)| name != reference)
        .map(|(name, sweep)| {
            let record = records
                .iter()
                .rev()
                .find(|r| r.name == *name && r.error.is_none());
            label(types, &groups, name, sweep, record)
        })
        .collect();
    let reference = sources
        .iter()
        .find(|(name, _)| name == reference)
        .map(|(name, sweep)| Reference {
            source: name.clone(),
            points: sweep.len(),
        });
    Classification {
        groups,
        reference,
        labels,
    }
}

fn label(
    types: &Features,
    groups: &[Vec<String>],
    name: &str,
    sweep: &Sweep,
    record: Option<&Source>,
) -> Label {
    let distances: Vec<(&str, Distance)> = types
        .iter()
        .map(|(t, s)| (t.as_str(), distance(sweep, s)))
        .collect();
    let mut nearest: Option<(&str, f64, usize)> = None;
    for (t, d) in &distances {
        if let Some(r) = d.rms {
            if nearest.is_none_or(|(_, best, _)| r < best) {
                nearest = Some((t, r, d.points));
            }
        }
    }
    let mut out = Label {
        source: name.to_owned(),
        points: distances.iter().map(|(_, d)| d.points).max().unwrap_or(0),
        nearest: None,
        group: Vec::new(),
        outside: None,
        agreement: Agreement::NoExpectation,
        record_expected: record.and_then(|r| r.expected.clone()),
        driver: record.and_then(|r| r.driver.clone()),
    };
    let Some((near, d_near, points)) = nearest else {
        return out;
    };
    let group = groups
        .iter()
        .find(|g| g.iter().any(|t| t == near))
        .cloned()
        .unwrap_or_else(|| vec![near.to_owned()]);
    out.outside = distances
        .iter()
        .filter(|(t, _)| !group.iter().any(|g| g == t))
        .filter_map(|(_, d)| d.rms)
        .min_by(f64::total_cmp);
    out.points = points;
    out.nearest = Some((near.to_owned(), d_near));
    out.group = group;
    out.agreement = match out.expected() {
        None => Agreement::NoExpectation,
        Some(e) if out.group.iter().any(|t| t == e) => Agreement::Yes,
        Some(e) if !types.iter().any(|(t, _)| t == e) => Agreement::Unmeasured,
        Some(_) => Agreement::No(near.to_owned()),
    };
    out
}

/// Whether a run's timings are an emulator's: its start record says `emulated`, or its
/// platform is QEMU's (`linux,dummy-virt`, or a name with `qemu` in it) and nothing says
/// KVM ran it (the start record's `accel`: there the cores and caches are real).
fn is_emulated(run: &Run) -> bool {
    run.emulated
        || (!run.kvm()
            && (run.platform == "linux,dummy-virt"
                || run.platform.to_ascii_lowercase().contains("qemu")))
}

/// Whether an emulated run is known to be TCG's: its start record's `accel` says `tcg`, or,
/// in logs from before that field, the runner named itself (`mairbench.host=qemu-*`:
/// `emulated_by` holds `bootarg`; qemu/run then ran TCG only). The device tree or ACPI
/// tables alone are QEMU's under KVM too.
fn is_tcg(run: &Run) -> bool {
    is_emulated(run)
        && match run.accel.as_deref() {
            Some(accel) => accel == "tcg",
            None => run.emulated_by.iter().any(|b| b == "bootarg"),
        }
}

/// A sentence when the two logs are not from one board: their MIDRs differ or their
/// platforms do, where both are known (the twin writes MIDR `0x0` when sysfs has none, and
/// platform `unknown` without a device tree, e.g. on an ACPI board).
fn board_warning(firmware: &Run, linux: &Run) -> Option<String> {
    let mut why = Vec::new();
    for (what, a, b, unknown) in [
        ("MIDR", &firmware.midr, &linux.midr, "0x0"),
        ("platform", &firmware.platform, &linux.platform, "unknown"),
    ] {
        let known = |v: &str| !v.is_empty() && v != unknown;
        if known(a) && known(b) && a != b {
            why.push(format!("{what} {a} vs {b}"));
        }
    }
    (!why.is_empty()).then(|| {
        format!(
            "the two logs are from different boards ({}): the comparison only means something \
             on one board",
            why.join(", ")
        )
    })
}

/// What TCG's timings can tell of a source, printed under the table.
const TCG_NOTE: &str = "emulated: TCG (QEMU without KVM) does not model caches, so only Device \
vs Normal shows (TCG's slow path for Device pages); the type within a group is what Linux \
documents (core's source table), not a measurement";

/// What a QEMU machine's timings can tell when nothing says TCG.
const QEMU_NOTE: &str = "emulated: a QEMU machine: under TCG caches are not modelled (under \
KVM they are real, but the timing is a guest's); the type within a group is what Linux \
documents (core's source table), not a measurement";

/// A firmware log classified against a twin log.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Comparison {
    /// The firmware log's name, as the output shows it (set by the caller).
    pub firmware_log: String,
    /// The twin log's name, as the output shows it (set by the caller).
    pub linux_log: String,
    /// The points both logs have (bandwidth kernels; the firmware's on 4K pages).
    pub points: Vec<(String, u64)>,
    /// The classification of every source the twin measured.
    pub classification: Classification,
    /// Sources the twin reported refused (an error record), not classified.
    pub refused: Vec<Source>,
    /// Sources mapped but without a bandwidth result.
    pub unmeasured: Vec<String>,
    /// Whether either log is an emulator's (its start record says so, or its platform is
    /// QEMU's).
    pub emulated: bool,
    /// Whether an emulated log is known to be TCG's (the runner's `mairbench.host=`).
    pub tcg: bool,
    /// A sentence when the two logs are not from one board.
    pub warning: Option<String>,
    /// Other things worth saying (a missing reference row).
    pub notes: Vec<String>,
}

impl Comparison {
    /// The line under the table of an emulated comparison: TCG's, or a QEMU machine's.
    pub fn emulated_note(&self) -> Option<&'static str> {
        self.emulated
            .then_some(if self.tcg { TCG_NOTE } else { QEMU_NOTE })
    }
}

/// Classifies the twin log `linux`'s sources against the firmware log `firmware`'s memory
/// types by the method of the module doc.
pub fn compare(firmware: &Run, linux: &Run) -> Comparison {
    let mut notes = Vec::new();
    let [fw, lx] = [
        (firmware, FIRMWARE_BASELINE, "firmware", true),
        (linux, TWIN_BASELINE, "twin", false),
    ]
    .map(|(run, reference, what, pages_only)| {
        let samples = samples(run, pages_only);
        if !samples.iter().any(|s| s.row == reference) {
            notes.push(format!(
                "the {what} log has no {reference} bandwidth result to divide by: nothing can \
                 be classified"
            ));
        }
        features(&samples, reference)
    });
    let points = common_points(&fw, &lx);
    let (fw, lx) = (restrict(&fw, &points), restrict(&lx, &points));
    let unmeasured = distinct(
        linux
            .sources
            .iter()
            .filter(|s| s.error.is_none())
            .map(|s| s.name.as_str())
            .filter(|name| !lx.iter().any(|(row, _)| row == name)),
    );
    Comparison {
        points: points.into_iter().collect(),
        classification: classify_with(&fw, &lx, TWIN_BASELINE, &linux.sources),
        refused: linux
            .sources
            .iter()
            .filter(|s| s.error.is_some())
            .cloned()
            .collect(),
        unmeasured: unmeasured.into_iter().map(str::to_owned).collect(),
        emulated: is_emulated(firmware) || is_emulated(linux),
        tcg: is_tcg(firmware) || is_tcg(linux),
        warning: board_warning(firmware, linux),
        notes,
        ..Comparison::default()
    }
}

/// A label's confidence as the table prints it: `97 % high`, `emulated (97 %)`, or `-`.
fn confidence_text(l: &Label, emulated: bool) -> String {
    match l.confidence() {
        None => "-".into(),
        Some(c) if emulated => format!("emulated ({:.0} %)", c * 100.0),
        Some(c) => format!("{:.0} % {}", c * 100.0, confidence_word(c)),
    }
}

/// The kernels and the sizes of `points`, e.g. `<kernel>, <kernel> at 4 KiB to 64 KiB`.
fn points_text(points: &[Point]) -> String {
    let kernels = distinct(points.iter().map(|(k, _)| k.as_str()));
    let sizes: BTreeSet<u64> = points.iter().map(|(_, s)| *s).collect();
    match (sizes.first(), sizes.last()) {
        (Some(a), Some(b)) if a == b => format!("{} at {}", kernels.join(", "), size_label(*a)),
        (Some(a), Some(b)) => format!(
            "{} at {} to {}",
            kernels.join(", "),
            size_label(*a),
            size_label(*b)
        ),
        _ => "none".into(),
    }
}

/// Lays out `rows` (the first is the heading) in columns two spaces apart, indented by two.
fn columns(rows: &[Vec<String>]) -> String {
    let n = rows.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..n)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for r in rows {
        let mut line = String::from(" ");
        for (cell, w) in r.iter().zip(&widths) {
            let pad = w.saturating_sub(cell.chars().count());
            let _ = write!(line, " {cell}{}", " ".repeat(pad));
            line.push(' ');
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    out
}

/// The words said of the reference under the table, e.g. `<reference>: the reference, not
/// classified; ...`.
fn reference_text(r: &Reference) -> String {
    let assumed = source::by_name(&r.source)
        .and_then(|s| s.expected)
        .map(|e| format!(" (so it is taken to be {e}, as Linux documents)"))
        .unwrap_or_default();
    format!(
        "{}: the reference, not classified; every source is measured relative to it, as every \
         memory type is to {FIRMWARE_BASELINE}{assumed}",
        r.source
    )
}

/// The classification for the terminal: the logs and their points, the board's groups, one
/// row per source (the reference first, marked so; then label, distance, points, confidence,
/// expected type, agreement, tied with), the page protections, the refused sources, the
/// emulated line and the warning.
pub fn table(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "which memory type each Linux source behaves like (method: host/src/classify.rs)\n\
         firmware: {} (reference {FIRMWARE_BASELINE}, 4K pages); linux: {} (reference \
         {TWIN_BASELINE})\n\
         features: ln(best MB/s / reference's) at {} common points: {}",
        c.firmware_log,
        c.linux_log,
        c.points.len(),
        points_text(&c.points)
    );
    if let Some(w) = &c.warning {
        let _ = writeln!(out, "warning: {w}");
    }
    for n in &c.notes {
        let _ = writeln!(out, "note: {n}");
    }
    let groups = &c.classification.groups;
    let _ = writeln!(
        out,
        "\nboard groups (memory types closer than ln({TAU_RATIO}) = {TAU:.3} RMS, joined: \
         indistinguishable on this board):"
    );
    if groups.is_empty() {
        let _ = writeln!(out, "  none (the firmware log has no common point)");
    }
    for (i, g) in groups.iter().enumerate() {
        let _ = writeln!(out, "  {}: {}", i + 1, g.join(", "));
    }
    let group_of = |t: &str| {
        groups
            .iter()
            .position(|g| g.iter().any(|x| x == t))
            .map_or("-".into(), |i| (i + 1).to_string())
    };
    let dash = || "-".to_string();
    let mut rows = vec![[
        "source",
        "label",
        "group",
        "RMS to nearest",
        "points",
        "confidence",
        "expected",
        "agrees",
        "tied with",
    ]
    .map(String::from)
    .to_vec()];
    if let Some(r) = &c.classification.reference {
        let expected = source::by_name(&r.source).and_then(|s| s.expected);
        rows.push(vec![
            r.source.clone(),
            "reference".into(),
            dash(),
            dash(),
            r.points.to_string(),
            dash(),
            expected.unwrap_or("\u{2014}").into(),
            dash(),
            dash(),
        ]);
    }
    for l in &c.classification.labels {
        let (label, rms) = match (l.label(), &l.nearest) {
            (Some(label), Some((near, d))) => {
                let rms = if near == label {
                    format!("{d:.3}")
                } else {
                    format!("{d:.3} ({near})")
                };
                (label.to_owned(), rms)
            }
            _ => ("too few common points".into(), dash()),
        };
        let tied = l.tied_with();
        rows.push(vec![
            l.source.clone(),
            label,
            l.label().map_or_else(dash, group_of),
            rms,
            l.points.to_string(),
            confidence_text(l, c.emulated),
            l.expected_text(),
            if l.label().is_some() {
                l.agreement.text()
            } else {
                dash()
            },
            if tied.is_empty() {
                dash()
            } else {
                tied.join(", ")
            },
        ]);
    }
    out.push('\n');
    out.push_str(&columns(&rows));
    let _ = writeln!(
        out,
        "  (RMS: of the ln-ratio differences over the points, to the nearest type, named when \
         it is not the label;\n   confidence = 1 - RMS to nearest / RMS to the nearest type \
         outside its group; group: as numbered above)"
    );
    if let Some(r) = &c.classification.reference {
        let _ = writeln!(out, "  {}", reference_text(r));
    }
    let with_pgprot: Vec<(&str, String, Option<&str>)> = c
        .classification
        .reference
        .iter()
        .filter_map(|r| {
            let s = source::by_name(&r.source)?;
            Some((r.source.as_str(), s.pgprot.to_owned(), s.expected))
        })
        .chain(c.classification.labels.iter().filter_map(|l| {
            let pgprot = match (&l.driver, l.pgprot()) {
                (Some(d), Some(p)) => format!("driver {d}: {p}"),
                (None, Some(p)) => p.to_owned(),
                (Some(d), None) => format!("driver {d}"),
                (None, None) => return None,
            };
            Some((l.source.as_str(), pgprot, l.expected()))
        }))
        .collect();
    if !with_pgprot.is_empty() {
        let _ = writeln!(
            out,
            "\nexpected: what arm64 Linux maps each source as (the twin's source records, \
             else core's source table):"
        );
        let width = with_pgprot.iter().map(|l| l.0.len()).max().unwrap_or(0);
        for (name, pgprot, expected) in with_pgprot {
            let _ = writeln!(
                out,
                "  {name:<width$}  {pgprot} -> {}",
                expected.unwrap_or("no one type")
            );
        }
    }
    if !c.refused.is_empty() || !c.unmeasured.is_empty() {
        let _ = writeln!(out, "\nnot classified:");
        let width = c
            .refused
            .iter()
            .map(|s| s.name.len())
            .chain(c.unmeasured.iter().map(String::len))
            .max()
            .unwrap_or(0);
        for s in &c.refused {
            let _ = writeln!(
                out,
                "  {:<width$}  {:<7}  {}",
                s.name,
                s.error.as_deref().unwrap_or_default(),
                s.detail
            );
        }
        for s in &c.unmeasured {
            let _ = writeln!(out, "  {s:<width$}  mapped, but no bandwidth result");
        }
    }
    if let Some(note) = c.emulated_note() {
        let _ = writeln!(out, "\n{note}.");
    }
    out
}

/// A label's status in the files: `classified` or `too few common points`.
fn status(l: &Label) -> &'static str {
    if l.label().is_some() {
        "classified"
    } else {
        "too few common points"
    }
}

/// Whether a label agrees with its expected type: `None` without a label or an expectation.
fn agrees(l: &Label) -> Option<bool> {
    match &l.agreement {
        _ if l.label().is_none() => None,
        Agreement::Yes => Some(true),
        Agreement::No(_) => Some(false),
        Agreement::NoExpectation | Agreement::Unmeasured => None,
    }
}

/// `classify.csv`: one row per source (the reference, classified, too few points, refused or
/// unmeasured); distances are RMS of natural-log ratios, confidence in percent.
pub fn csv(c: &Comparison) -> String {
    let mut out = String::from(
        "source,status,label,group,tied_with,nearest,rms_nearest,rms_outside,points,\
         confidence_pct,confidence_word,emulated,expected,pgprot,agrees,error,detail\n",
    );
    let f = |v: Option<f64>| v.map_or(String::new(), |v| v.to_string());
    if let Some(r) = &c.classification.reference {
        let spec = source::by_name(&r.source);
        let _ = writeln!(
            out,
            "{},reference,,,,,,,{},,,{},{},{},,,",
            csv_field(&r.source),
            r.points,
            c.emulated,
            spec.and_then(|s| s.expected).unwrap_or_default(),
            csv_field(spec.map_or("", |s| s.pgprot)),
        );
    }
    for l in &c.classification.labels {
        csv_row(
            &mut out,
            &[
                &l.source,
                &status(l),
                &l.label().unwrap_or_default(),
                &l.group.join(" "),
                &l.tied_with().join(" "),
                &l.nearest.as_ref().map_or("", |n| n.0.as_str()),
                &f(l.nearest.as_ref().map(|n| n.1)),
                &f(l.outside),
                &l.points,
                &f(l.confidence().map(|c| c * 100.0)),
                &l.confidence().map_or("", confidence_word),
                &c.emulated,
                &l.expected().unwrap_or_default(),
                &l.pgprot().unwrap_or_default(),
                &agrees(l).map_or("", |a| if a { "yes" } else { "no" }),
                // No error, no detail: the source was measured.
                &"",
                &"",
            ],
        );
    }
    for s in &c.refused {
        let _ = writeln!(
            out,
            "{},refused,,,,,,,0,,,{},,,,{},{}",
            csv_field(&s.name),
            c.emulated,
            csv_field(s.error.as_deref().unwrap_or_default()),
            csv_field(&s.detail)
        );
    }
    for s in &c.unmeasured {
        let _ = writeln!(
            out,
            "{},no bandwidth result,,,,,,,0,,,{},,,,,",
            csv_field(s),
            c.emulated
        );
    }
    out
}

/// `classify.json`: the method's constants, the logs, the points, the groups, every
/// source's classification (the reference first, `status: "reference"`), the refused
/// sources, the emulated caveat and the warning.
pub fn json(c: &Comparison) -> serde_json::Value {
    let reference = c.classification.reference.iter().map(|r| {
        let spec = source::by_name(&r.source);
        json!({
            "source": r.source,
            "status": "reference",
            "label": null, "group": [], "tied_with": [], "nearest": null,
            "rms_nearest": null, "rms_outside": null,
            "points": r.points,
            "confidence": null, "confidence_word": null,
            "expected": spec.and_then(|s| s.expected),
            "pgprot": spec.map(|s| s.pgprot),
            "agrees": null, "agreement": null,
            "note": reference_text(r),
        })
    });
    let labels = c.classification.labels.iter().map(|l| {
        json!({
            "source": l.source,
            "status": status(l),
            "label": l.label(),
            "group": l.group,
            "tied_with": l.tied_with(),
            "nearest": l.nearest.as_ref().map(|n| &n.0),
            "rms_nearest": l.nearest.as_ref().map(|n| n.1),
            "rms_outside": l.outside,
            "points": l.points,
            "confidence": l.confidence(),
            "confidence_word": l.confidence().map(confidence_word),
            "expected": l.expected(),
            "driver": l.driver,
            "pgprot": l.pgprot(),
            "agrees": agrees(l),
            "agreement": l.label().map(|_| l.agreement.text()),
        })
    });
    json!({
        "firmware_log": c.firmware_log,
        "linux_log": c.linux_log,
        "references": {"firmware": FIRMWARE_BASELINE, "linux": TWIN_BASELINE},
        "tau": TAU,
        "min_points": MIN_POINTS,
        "points": c.points.iter().map(|(k, s)| json!({"kernel": k, "size_bytes": s})).collect::<Vec<_>>(),
        "groups": c.classification.groups,
        "sources": reference.chain(labels).collect::<Vec<_>>(),
        "refused": c.refused.iter().map(|s| json!({
            "source": s.name, "error": s.error, "errno": s.errno, "detail": s.detail,
        })).collect::<Vec<_>>(),
        "unmeasured": c.unmeasured,
        "emulated": c.emulated,
        "tcg": c.tcg,
        "caveat": c.emulated_note(),
        "warning": c.warning,
        "notes": c.notes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const SIZES: [u64; 5] = [4096, 8192, 16384, 32768, 65536];

    /// Samples of a board: per row, read-ldp and write-stp at five sizes, at `read` and
    /// `write` times `scale` MB/s, with a deterministic spread of ±`jitter` per point.
    fn board(
        rows: &[(&str, f64, f64)],
        scale: f64,
        jitter: f64,
    ) -> Vec<(String, String, u64, f64)> {
        let mut out = Vec::new();
        for (r, (row, read, write)) in rows.iter().enumerate() {
            for (i, size) in SIZES.iter().enumerate() {
                for (k, (kernel, v)) in [("read-ldp", read), ("write-stp", write)]
                    .iter()
                    .enumerate()
                {
                    let wobble = 1.0 + jitter * ((r * 7 + i * 3 + k) as f64).sin();
                    out.push((
                        row.to_string(),
                        kernel.to_string(),
                        *size,
                        scale * **v * wobble,
                    ));
                }
            }
        }
        out
    }

    fn feats(b: &[(String, String, u64, f64)], reference: &str) -> Features {
        let s: Vec<Sample<'_>> = b
            .iter()
            .map(|(row, kernel, size, v)| Sample {
                row,
                kernel,
                size: *size,
                best_mbps: *v,
            })
            .collect();
        features(&s, reference)
    }

    fn by<'a>(c: &'a Classification, source: &str) -> &'a Label {
        c.labels.iter().find(|l| l.source == source).unwrap()
    }

    fn names(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn tau_is_ln_of_its_ratio() {
        assert!((TAU - TAU_RATIO.ln()).abs() < 1e-15);
    }

    /// A Cortex-A72-shaped board: Device reads ~10x slower than WB, NC reads ~5x slower,
    /// WT writes slower; Device writes look fine (public report "Performance Anomaly
    /// Investigation": a dma-buf mapped as Device reads ~10x slower than heap).
    fn a72() -> Features {
        feats(
            &board(
                &[
                    ("normal-wb", 1.0, 1.0),
                    ("normal-wb-noalloc", 0.95, 0.9),
                    ("normal-wt", 1.0, 0.45),
                    ("normal-nc", 0.2, 0.85),
                    ("device-ngnrne", 0.1, 0.75),
                    ("device-ngnre", 0.1, 0.8),
                    ("device-ngre", 0.105, 0.8),
                    ("device-gre", 0.11, 0.85),
                ],
                4000.0,
                0.03,
            ),
            "normal-wb",
        )
    }

    #[test]
    fn a72_board_dma_buf_at_device_speed_disagrees() {
        let types = a72();
        let g = groups(&types);
        assert_eq!(
            g,
            [
                names(&["normal-wb", "normal-wb-noalloc"]),
                names(&["normal-wt"]),
                names(&["normal-nc"]),
                names(&["device-ngnrne", "device-ngnre", "device-ngre", "device-gre"]),
            ]
        );
        let twin = feats(
            &board(
                &[
                    ("anon", 1.0, 1.0),
                    ("udmabuf", 1.0, 0.98),
                    ("dma-heap:system", 0.1, 0.8),
                    ("pci:0000:01:00.0:res0", 0.1, 0.78),
                    ("pci:0000:01:00.0:res0_wc", 0.2, 0.85),
                    ("drm-dumb:card0", 0.21, 0.84),
                ],
                3000.0,
                0.02,
            ),
            "anon",
        );
        let c = classify(&types, &twin, "anon");
        // The reference is what the sources are divided by, not one of them.
        assert_eq!(
            c.reference,
            Some(Reference {
                source: "anon".into(),
                points: 10
            })
        );
        assert!(!c.labels.iter().any(|l| l.source == "anon"), "{c:?}");
        assert_eq!(c.labels.len(), 5);
        let u = by(&c, "udmabuf");
        assert_eq!(
            (u.label(), &u.agreement),
            (Some("normal-wb"), &Agreement::Yes)
        );
        assert_eq!(u.tied_with(), ["normal-wb-noalloc"]);
        assert_eq!(u.points, 10);
        assert!(u.confidence().unwrap() > HIGH, "{u:?}");
        // The dma-buf that reads at Device speed: a Device type, not the expected normal-wb.
        let heap = by(&c, "dma-heap:system");
        let label = heap.label().unwrap().to_owned();
        assert!(label.starts_with("device-"), "{heap:?}");
        assert_eq!(heap.agreement, Agreement::No(label.clone()));
        assert_eq!(heap.expected(), Some("normal-wb"));
        assert_eq!(heap.group.len(), 4);
        assert_eq!(heap.agreement.text(), format!("NO: behaves like {label}"));
        assert!(heap.confidence().unwrap() > MEDIUM, "{heap:?}");
        let res = by(&c, "pci:0000:01:00.0:res0");
        assert_eq!(res.label(), Some("device-ngnre"));
        assert_eq!(
            res.tied_with(),
            ["device-ngnrne", "device-ngre", "device-gre"]
        );
        let wc = by(&c, "pci:0000:01:00.0:res0_wc");
        assert_eq!(
            (wc.label(), &wc.agreement),
            (Some("normal-nc"), &Agreement::Yes)
        );
        assert!(wc.tied_with().is_empty());
        // The table expects nothing of a DRM dumb buffer: labelled by the measurement alone.
        let drm = by(&c, "drm-dumb:card0");
        assert_eq!(drm.label(), Some("normal-nc"));
        assert_eq!(drm.expected(), None);
        assert!(drm.pgprot().unwrap().starts_with("the driver's"), "{drm:?}");
        assert_eq!(drm.agreement, Agreement::NoExpectation);
        assert_eq!(drm.agreement.text(), "\u{2014}");
    }

    #[test]
    fn no_allocate_board() {
        // Zhao Yibin's "ARM Cache policy on single armv7 processor lead to low DRAM
        // performance": write-back no-allocate ~7 MB/s write, 28 MB/s read vs 120/160.
        let types = feats(
            &board(
                &[
                    ("normal-wb", 160.0, 120.0),
                    ("normal-wb-noalloc", 28.0, 7.0),
                    ("normal-nc", 30.0, 40.0),
                    ("device-ngnre", 15.0, 30.0),
                ],
                1.0,
                0.02,
            ),
            "normal-wb",
        );
        assert_eq!(groups(&types).len(), 4);
        let twin = feats(
            &board(&[("anon", 160.0, 120.0), ("udmabuf", 27.0, 7.5)], 1.0, 0.02),
            "anon",
        );
        let c = classify(&types, &twin, "anon");
        assert_eq!(c.reference.as_ref().map(|r| r.points), Some(10));
        let u = by(&c, "udmabuf");
        assert_eq!(u.label(), Some("normal-wb-noalloc"));
        assert_eq!(u.agreement.text(), "NO: behaves like normal-wb-noalloc");
        assert_eq!(confidence_word(u.confidence().unwrap()), "high");
    }

    /// QEMU's shape: every Normal type alike, every Device type ~12x slower (TCG's slow
    /// path), all with a few percent of noise.
    fn qemu() -> Features {
        feats(
            &board(
                &[
                    ("normal-wb", 1.0, 1.0),
                    ("normal-wb-noalloc", 1.0, 1.0),
                    ("normal-wt", 1.0, 1.0),
                    ("normal-nc", 1.0, 1.0),
                    ("device-ngnrne", 0.08, 0.08),
                    ("device-ngnre", 0.08, 0.08),
                    ("device-ngre", 0.08, 0.08),
                    ("device-gre", 0.08, 0.08),
                ],
                12000.0,
                0.08,
            ),
            "normal-wb",
        )
    }

    #[test]
    fn emulated_board_resolves_device_and_normal_only() {
        let types = qemu();
        let g = groups(&types);
        assert_eq!(g.len(), 2, "{g:?}");
        assert_eq!(g[0][0], "normal-wb");
        assert_eq!(g[1][0], "device-ngnrne");
        let twin = feats(
            &board(
                &[
                    ("anon", 1.0, 1.0),
                    ("udmabuf", 1.0, 1.0),
                    ("pci:0000:00:01.0:res2", 0.085, 0.08),
                    ("pci:0000:00:01.0:res2_wc", 1.0, 1.0),
                ],
                13000.0,
                0.05,
            ),
            "anon",
        );
        let c = classify(&types, &twin, "anon");
        assert_eq!(
            c.reference.as_ref().map(|r| r.source.as_str()),
            Some("anon")
        );
        let seen: Vec<_> = c
            .labels
            .iter()
            .map(|l| (l.source.as_str(), l.label().unwrap(), l.group.len()))
            .collect();
        assert_eq!(
            seen,
            [
                ("udmabuf", "normal-wb", 4),
                ("pci:0000:00:01.0:res2", "device-ngnre", 4),
                ("pci:0000:00:01.0:res2_wc", "normal-nc", 4),
            ]
        );
        assert!(c.labels.iter().all(|l| l.agreement == Agreement::Yes));
        let l = by(&c, "pci:0000:00:01.0:res2");
        let text = confidence_text(l, true);
        assert!(
            text.starts_with("emulated (") && text.ends_with(" %)"),
            "{text}"
        );
        assert!(confidence_text(l, false).ends_with("high"));
    }

    #[test]
    fn one_group_gives_no_confidence() {
        let types = feats(
            &board(
                &[("normal-wb", 1.0, 1.0), ("normal-nc", 1.02, 0.99)],
                100.0,
                0.0,
            ),
            "normal-wb",
        );
        let twin = feats(
            &board(&[("anon", 1.0, 1.0), ("udmabuf", 1.1, 1.1)], 90.0, 0.0),
            "anon",
        );
        let c = classify(&types, &twin, "anon");
        assert_eq!(c.groups.len(), 1);
        let u = by(&c, "udmabuf");
        assert_eq!((u.confidence(), u.outside), (Some(0.0), None));
        assert_eq!(u.tied_with(), ["normal-nc"]);
    }

    #[test]
    fn too_few_common_points() {
        let types = a72();
        // One point only: read-ldp at 4 KiB.
        let twin = feats(
            &[
                ("anon".into(), "read-ldp".into(), 4096, 100.0),
                ("udmabuf".into(), "read-ldp".into(), 4096, 10.0),
            ],
            "anon",
        );
        let c = classify(&types, &twin, "anon");
        let u = by(&c, "udmabuf");
        assert_eq!((u.label(), u.points), (None, 1));
        assert_eq!((u.confidence(), &u.group), (None, &Vec::<String>::new()));
        assert!(u.tied_with().is_empty());
        // A firmware log of one point: no type joins another.
        let one = restrict(
            &types,
            &[("read-ldp".to_string(), 4096)].into_iter().collect(),
        );
        assert_eq!(groups(&one).len(), 8);
        assert_eq!(
            distance(&one[0].1, &one[1].1),
            Distance {
                rms: None,
                points: 1
            }
        );
    }

    #[test]
    fn bad_values_never_panic() {
        let bad = [
            f64::NAN,
            0.0,
            -5.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            1e-320,
        ];
        let mut b = Vec::new();
        for (i, v) in bad.iter().enumerate() {
            let size = 4096 << i;
            b.push(("normal-wb".to_string(), "read-ldp".to_string(), size, 100.0));
            b.push(("normal-nc".to_string(), "read-ldp".to_string(), size, *v));
            // The reference bad, the row good.
            b.push(("normal-wb".to_string(), "write-stp".to_string(), size, *v));
            b.push(("normal-nc".to_string(), "write-stp".to_string(), size, 50.0));
        }
        // A row whose reference is missing at its point.
        b.push((
            "device-gre".to_string(),
            "read-ldp".to_string(),
            1 << 30,
            10.0,
        ));
        let f = feats(&b, "normal-wb");
        for (row, sweep) in &f {
            assert!(sweep.values().all(|v| v.is_finite()), "{row}: {sweep:?}");
        }
        let nc = &f.iter().find(|(r, _)| r == "normal-nc").unwrap().1;
        // 1e-320 is positive and finite: ln(1e-320 / 100) is finite.
        assert_eq!(nc.len(), 1, "{nc:?}");
        assert!(f.iter().any(|(r, s)| r == "device-gre" && s.is_empty()));
        // No reference at all.
        assert!(feats(&b, "normal-wt").iter().all(|(_, s)| s.is_empty()));
        // Empty inputs.
        assert_eq!(
            classify(&vec![], &vec![], "anon"),
            Classification::default()
        );
        let c = classify(&vec![], &f, "anon");
        assert!(c.labels.iter().all(|l| l.label().is_none()));
        let c = classify(&f, &vec![], "anon");
        assert!(c.labels.is_empty() && c.reference.is_none());
        // A sweep holding NaN (not from features) counts no point there.
        let mut s = Sweep::new();
        s.insert(("read-ldp".into(), 1), f64::NAN);
        s.insert(("read-ldp".into(), 2), 0.0);
        s.insert(("read-ldp".into(), 3), 0.0);
        let d = distance(&s, &s);
        assert_eq!(
            d,
            Distance {
                rms: Some(0.0),
                points: 2
            }
        );
        // Confidence of degenerate distances.
        assert_eq!(confidence(0.0, Some(0.0)), 0.0);
        assert_eq!(confidence(f64::NAN, Some(1.0)), 0.0);
        assert_eq!(confidence(2.0, Some(1.0)), 0.0);
        assert_eq!(confidence(0.0, Some(1.0)), 1.0);
        assert_eq!(confidence(0.5, None), 0.0);
        assert_eq!(
            [0.6, 0.59, 0.3, 0.29].map(confidence_word),
            ["high", "medium", "medium", "low"]
        );
        // The whole comparison of empty runs renders.
        let c = compare(&Run::default(), &Run::default());
        assert_eq!(c.notes.len(), 2);
        let t = table(&c);
        assert!(t.contains("0 common points"), "{t}");
        assert!(csv(&c).starts_with("source,status,"));
        assert_eq!(json(&c)["points"], json!([]));
    }

    #[test]
    fn different_boards_are_warned_about() {
        let run = |midr: &str, platform: &str| Run {
            midr: midr.into(),
            platform: platform.into(),
            ..Run::default()
        };
        let a = run("0x410fd083", "raspberrypi,4-model-b");
        assert_eq!(board_warning(&a, &a), None);
        assert_eq!(board_warning(&a, &run("0x0", "")), None);
        let w = board_warning(&a, &run("0x410fd034", "raspberrypi,3-model-b")).unwrap();
        assert_eq!(
            w,
            "the two logs are from different boards (MIDR 0x410fd083 vs 0x410fd034, platform \
             raspberrypi,4-model-b vs raspberrypi,3-model-b): the comparison only means \
             something on one board"
        );
        assert!(is_emulated(&run("0x410fd083", "linux,dummy-virt")));
        assert!(!is_emulated(&a));
    }

    /// On an ACPI board the firmware names the OEM IDs while the twin, without a device
    /// tree, writes `unknown`: one board, no warning; as with MIDR 0x0.
    #[test]
    fn an_unknown_platform_is_no_other_board() {
        let run = |midr: &str, platform: &str| Run {
            midr: midr.into(),
            platform: platform.into(),
            ..Run::default()
        };
        let acpi = run("0x410fd0c1", "AMPERE Altra");
        assert_eq!(board_warning(&acpi, &run("0x410fd0c1", "unknown")), None);
        assert_eq!(board_warning(&run("0x0", "unknown"), &acpi), None);
        assert_eq!(
            board_warning(&acpi, &run("0x410fd0c1", "raspberrypi,4-model-b")),
            Some(
                "the two logs are from different boards (platform AMPERE Altra vs \
                 raspberrypi,4-model-b): the comparison only means something on one board"
                    .into()
            )
        );
    }

    /// A start record as the firmware or the twin writes it, and one result per kernel and
    /// size of a row.
    fn log(start: &str, rows: &[(&str, &str, f64)]) -> Run {
        let mut text = format!("@mb {{\"kind\":\"start\",\"schema\":1,{start}}}\n");
        for (field, row, mbps) in rows {
            for kernel in ["read-ldp", "write-stp"] {
                for size in [4096, 8192] {
                    text += &format!(
                        "@mb {{\"kind\":\"result\",\"{field}\":\"{row}\",\"kernel\":\"{kernel}\",\
                         \"size\":{size},\"reps\":3,\"cv_pct\":0.1,\"best_mbps\":{mbps},\
                         \"median_mbps\":{mbps}}}\n"
                    );
                }
            }
        }
        crate::read::log::parse(text.as_bytes()).run
    }

    fn pair(emulated_by: &str) -> Comparison {
        pair_of(&format!(
            "\"platform\":\"linux,dummy-virt\",\"emulated\":true,\"emulated_by\":{emulated_by},\
             \"midr\":\"0x410fd083\""
        ))
    }

    fn pair_of(start: &str) -> Comparison {
        let firmware = log(
            start,
            &[
                ("memtype", "normal-wb", 1000.0),
                ("memtype", "device-ngnre", 80.0),
            ],
        );
        let twin = log(
            &format!("{start},\"kernel\":\"Linux 6.12\",\"machine\":\"aarch64\""),
            &[("source", "anon", 900.0), ("source", "udmabuf", 880.0)],
        );
        compare(&firmware, &twin)
    }

    #[test]
    fn the_emulated_note_says_tcg_only_on_the_runners_word() {
        // qemu/run's mairbench.host= (TCG): caches are not modelled.
        let tcg = pair("[\"bootarg\",\"dtb\"]");
        assert!(tcg.emulated && tcg.tcg, "{tcg:?}");
        let t = table(&tcg);
        assert!(
            t.contains(
                "\nemulated: TCG (QEMU without KVM) does not model caches, so only Device vs \
                 Normal shows (TCG's slow path for Device pages); the type within a group is \
                 what Linux documents (core's source table), not a measurement.\n"
            ),
            "{t}"
        );
        assert_eq!(json(&tcg)["caveat"], TCG_NOTE);
        // QEMU's device tree alone: TCG or KVM.
        let qemu = pair("[\"dtb\"]");
        assert!(qemu.emulated && !qemu.tcg, "{qemu:?}");
        let t = table(&qemu);
        assert!(
            t.contains(
                "\nemulated: a QEMU machine: under TCG caches are not modelled (under KVM they \
                 are real, but the timing is a guest's); the type within a group is what Linux \
                 documents (core's source table), not a measurement.\n"
            ),
            "{t}"
        );
        assert!(!t.contains("TCG (QEMU without KVM)"), "{t}");
        assert_eq!(json(&qemu)["tcg"], false);
        // Every row says emulated either way; a real board says neither.
        assert!(by(&qemu.classification, "udmabuf").label().is_some());
        assert!(t.contains("emulated ("), "{t}");
        let real = Comparison {
            emulated: false,
            ..pair("[\"bootarg\"]")
        };
        assert_eq!(real.emulated_note(), None);
        assert!(!table(&real).contains("\nemulated:"));
    }

    /// The start record's `accel` decides: `tcg` is TCG's note whoever else said QEMU; `kvm`
    /// is no emulation at all (real cores and caches), though the device tree is QEMU's.
    #[test]
    fn the_accelerator_tells_tcg_from_kvm() {
        let tcg = pair_of(
            "\"platform\":\"linux,dummy-virt\",\"emulated\":true,\"emulated_by\":[\"dtb\"],\
             \"accel\":\"tcg\",\"midr\":\"0x410fd083\"",
        );
        assert!(tcg.emulated && tcg.tcg, "{tcg:?}");
        let kvm = pair_of(
            "\"platform\":\"linux,dummy-virt\",\"emulated\":false,\"host\":\"qemu-10.0.2\",\
             \"accel\":\"kvm\",\"midr\":\"0x410fd083\"",
        );
        assert!(!kvm.emulated && !kvm.tcg, "{kvm:?}");
        assert_eq!(kvm.emulated_note(), None);
        assert!(!table(&kvm).contains("\nemulated:"));
    }

    /// The reference (anon) is 0 from normal-wb by construction: listed as the reference, with
    /// no label, confidence or agreement, in the table, the CSV and the JSON.
    #[test]
    fn the_reference_is_marked_not_classified() {
        let c = pair("[\"bootarg\"]");
        assert_eq!(
            c.classification.reference,
            Some(Reference {
                source: "anon".into(),
                points: 4
            })
        );
        assert_eq!(c.classification.labels.len(), 1, "{c:?}");
        let t = table(&c);
        let row: Vec<&str> = t
            .lines()
            .find(|l| l.starts_with("  anon "))
            .unwrap_or_else(|| panic!("{t}"))
            .split_whitespace()
            .collect();
        assert_eq!(
            row,
            [
                "anon",
                "reference",
                "-",
                "-",
                "4",
                "-",
                "normal-wb",
                "-",
                "-"
            ]
        );
        assert!(
            t.contains(
                "\n  anon: the reference, not classified; every source is measured relative to \
                 it, as every memory type is to normal-wb (so it is taken to be normal-wb, as \
                 Linux documents)\n"
            ),
            "{t}"
        );
        // Still in the page protections.
        assert!(t.contains("\n  anon     protection_map"), "{t}");
        let csv = csv(&c);
        let line = csv.lines().nth(1).unwrap();
        assert!(
            line.starts_with("anon,reference,,,,,,,4,,,true,normal-wb,\"protection_map, by"),
            "{csv}"
        );
        assert!(
            line.ends_with("(MT_NORMAL)\",,,"),
            "no agrees, error, detail: {line}"
        );
        let j = json(&c);
        let anon = &j["sources"][0];
        assert_eq!(
            (&anon["source"], &anon["status"], &anon["points"]),
            (&json!("anon"), &json!("reference"), &json!(4))
        );
        for key in ["label", "confidence", "agrees", "agreement", "nearest"] {
            assert!(anon[key].is_null(), "{key}: {anon}");
        }
        assert_eq!(j["sources"][1]["status"], "classified");
    }
    /// A twin log whose `source` records carry `expected` and `driver` (as the twin writes
    /// them for a DRM source: vgem's dumb buffer and its dma-buf are normal-nc), against a
    /// firmware log of normal-wb, normal-nc and device-ngnre (far apart: three groups).
    fn drm_pair(with_record: bool) -> Comparison {
        let start = "\"platform\":\"some-board\",\"midr\":\"0x410fd083\"";
        let firmware = log(
            start,
            &[
                ("memtype", "normal-wb", 4000.0),
                ("memtype", "normal-nc", 1000.0),
                ("memtype", "device-ngnre", 100.0),
            ],
        );
        let mut text = format!(
            "@mb {{\"kind\":\"start\",\"schema\":1,{start},\"kernel\":\"Linux 6.12\",\
             \"machine\":\"aarch64\"}}\n"
        );
        for (name, record) in [
            ("anon", "\"detail\":\"mmap\",\"expected\":\"normal-wb\""),
            (
                "drm-dumb:card0",
                "\"detail\":\"DRM_IOCTL_MODE_MAP_DUMB\",\"driver\":\"vgem\",\
                 \"expected\":\"normal-nc\"",
            ),
            (
                "dma-buf:card0",
                "\"detail\":\"PRIME\",\"driver\":\"vgem\",\"expected\":\"normal-nc\"",
            ),
        ] {
            let record = if with_record {
                record.to_owned()
            } else {
                "\"detail\":\"mmap\"".to_owned()
            };
            text += &format!(
                "@mb {{\"kind\":\"source\",\"source\":\"{name}\",\"size\":8192,{record}}}\n"
            );
        }
        for (name, mbps) in [
            ("anon", 4000.0),
            ("drm-dumb:card0", 1010.0),
            ("dma-buf:card0", 990.0),
        ] {
            for kernel in ["read-ldp", "write-stp"] {
                for size in [4096, 8192] {
                    text += &format!(
                        "@mb {{\"kind\":\"result\",\"source\":\"{name}\",\"kernel\":\"{kernel}\",\
                         \"size\":{size},\"reps\":3,\"cv_pct\":0.1,\"best_mbps\":{mbps},\
                         \"median_mbps\":{mbps}}}\n"
                    );
                }
            }
        }
        let twin = crate::read::log::parse(text.as_bytes()).run;
        assert_eq!(twin.sources.len(), 3, "{text}");
        compare(&firmware, &twin)
    }

    /// The record's `expected` and `driver` are preferred to core's source table (which
    /// has no type for a DRM source: the driver's choice), in the label, the agreement, the
    /// table (with the driver), the page protections, the CSV (without the driver, its
    /// columns kept) and the JSON.
    #[test]
    fn the_records_expected_type_and_driver_are_preferred() {
        let c = drm_pair(true);
        for name in ["drm-dumb:card0", "dma-buf:card0"] {
            let l = by(&c.classification, name);
            assert_eq!(l.expected(), Some("normal-nc"), "{l:?}");
            assert_eq!(l.driver.as_deref(), Some("vgem"), "{l:?}");
            assert_eq!(l.label(), Some("normal-nc"), "{l:?}");
            assert_eq!(l.agreement, Agreement::Yes, "{l:?}");
            assert_eq!(l.expected_text(), "normal-nc (vgem)");
            assert!(
                l.pgprot().unwrap().starts_with("pgprot_writecombine"),
                "{l:?}"
            );
        }
        let t = table(&c);
        let row = t
            .lines()
            .find(|l| l.starts_with("  drm-dumb:card0 "))
            .unwrap_or_else(|| panic!("{t}"));
        assert!(row.contains(" normal-nc (vgem) "), "{row}");
        assert!(row.contains(" yes"), "{row}");
        assert!(
            !t.contains('\u{2014}'),
            "no dash: every source has a type\n{t}"
        );
        assert!(
            t.contains(
                "\n  dma-buf:card0   driver vgem: pgprot_writecombine (MT_NORMAL_NC): GEM shmem \
                 with map_wc -> normal-nc\n"
            ),
            "{t}"
        );
        let csv = csv(&c);
        // The CSV keeps its columns (the driver is in the JSON and the table).
        let drm = csv
            .lines()
            .find(|l| l.starts_with("drm-dumb:card0,"))
            .unwrap();
        assert!(
            drm.contains(",normal-nc,pgprot_writecombine (MT_NORMAL_NC)"),
            "{drm}"
        );
        assert!(drm.ends_with(",yes,,"), "{drm}");
        let j = json(&c);
        let dma = j["sources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["source"] == "dma-buf:card0")
            .unwrap();
        assert_eq!(
            (&dma["expected"], &dma["driver"]),
            (&json!("normal-nc"), &json!("vgem"))
        );
        assert_eq!(dma["agrees"], true);
    }

    /// Without the record's fields (a log from before them), the table's word stands: no
    /// expected type for a DRM source, "—", no agreement.
    #[test]
    fn without_the_records_fields_the_table_decides() {
        let c = drm_pair(false);
        let l = by(&c.classification, "drm-dumb:card0");
        assert_eq!((l.expected(), l.driver.as_deref()), (None, None));
        assert_eq!(l.agreement, Agreement::NoExpectation);
        assert_eq!(l.expected_text(), "\u{2014}");
        assert!(l.pgprot().unwrap().starts_with("the driver's"), "{l:?}");
        let t = table(&c);
        let row = t
            .lines()
            .find(|l| l.starts_with("  drm-dumb:card0 "))
            .unwrap_or_else(|| panic!("{t}"));
        assert!(row.contains('\u{2014}'), "{row}");
        // A refused record of the same name never lends its fields.
        let refused = Source {
            name: "drm-dumb:card0".into(),
            error: Some("ENOENT".into()),
            expected: Some("device-gre".into()),
            driver: Some("bogus".into()),
            ..Source::default()
        };
        let firmware = a72();
        let twin = feats(
            &[
                ("anon".into(), "read-ldp".into(), 4096, 1000.0),
                ("drm-dumb:card0".into(), "read-ldp".into(), 4096, 500.0),
            ],
            "anon",
        );
        let c = classify_with(&firmware, &twin, "anon", std::slice::from_ref(&refused));
        let l = by(&c, "drm-dumb:card0");
        assert_eq!((l.expected(), l.driver.as_deref()), (None, None));
    }
}
