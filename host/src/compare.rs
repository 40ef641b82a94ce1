//! Two runs side by side: per (kernel, memory type, size) the ratio B/A of the best values,
//! the biggest changes first, and per kernel a summary.
//!
//! Two runs of one image on one machine differ everywhere a little, and under QEMU on a
//! loaded host some points by 1.5x or more: the host takes the CPU away for a while, and the
//! points measured then are slow. A change is therefore significant only when the pair's own
//! noise cannot explain it ([`judge`]):
//!
//! 1. The *overall factor* is the median B/A of best values over all points, reported once:
//!    a shift common to every point (a clock change, a slower host) is not a finding.
//! 2. Each point is judged against the points measured with it, back to back: its
//!    *references* are the median B/A of best values of the same kernel at the same size,
//!    once over the memory types of its class (Normal or Device) and once over all memory
//!    types (a group of fewer than [`MIN_GROUP`] points uses the overall factor instead).
//! 3. The *noise* is 1.4826 x the median |ln(B/A) - ln(reference)| (a robust standard
//!    deviation), over all points (the pair's) and over each kernel's points
//!    ([`kernel_noise`]): a kernel the host disturbed while it ran is judged by its own,
//!    larger noise. A point's *threshold* is the largest of [`MIN_CHANGE_PCT`] %,
//!    [`NOISE_TIMES`] x the pair's noise, [`KERNEL_NOISE_TIMES`] x its kernel's noise, and
//!    the spread of its samples in both runs
//!    (|ln(best/median)| of A plus that of B), plus [`SHIFT_SHARE`] of the distance (in ln)
//!    of its class's reference from the overall factor: a group the host slowed as a whole
//!    scatters more within.
//! 4. A point is *beyond* when B/A of its best values and B/A of its medians both differ from
//!    both references by more than the threshold, in the same direction.
//! 5. It is *significant* when it is beyond and so are, in the same direction, at least
//!    [`RUN_SIZES`] adjacent sizes of its series (kernel and memory type) including it (a
//!    series of fewer sizes: all of them), or when the median over the series' sizes of each
//!    of those four differences is beyond [`SERIES_TIMES`] x the largest of
//!    [`MIN_CHANGE_PCT`] % and the two noise terms, in its direction (a change at every size
//!    that noise interrupts at some). Control for judging a thousand points at once
//!    comes from demanding that neighbouring sizes agree: noise seldom hits three in a row.
//!
//! 6. A change a whole class shares, which step 2 absorbs point by point, is judged as a
//!    class ([`class_shifts`]): the Device types' median B/A over the Normal types', beyond
//!    the kernel's floor and [`CLASS_MIN_PCT`] %, at [`RUN_SIZES`] adjacent sizes and at
//!    least half of the kernel's sizes in one direction, is named once per run of sizes.
//!
//! A point that is not significant is "same": no run is named better there. Memory types
//! of one class that moved together at a size, away from the overall factor, are counted
//! per kernel in the summary ("shared shifts") instead of being listed point by point.
//!
//! Loaded-latency points (`loaded_latency` records) are compared by their `ratio` (loaded /
//! idle ns per load): B's ratio over A's, significant beyond [`MIN_CHANGE_PCT`] % (the record
//! has no spread; there are a few such points, not a thousand).

use crate::read::model::{self, distinct, LoadedLatency, Measurement, Run, Unit};
use crate::read::text::{csv_row, size_label, value_label};
use mairbench_core::memtype::{self, Class};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::Path;

/// One point measured in both runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Change {
    /// Kernel name.
    pub kernel: String,
    /// Memory type name, marked with the granule where the runs measured the kernel on both
    /// (see [`model::series`]).
    pub memtype: String,
    /// Working-set size in bytes.
    pub size: u64,
    /// Unit of both values.
    pub unit: Unit,
    /// Best value in run A.
    pub a: f64,
    /// Best value in run B.
    pub b: f64,
    /// `b / a`.
    pub ratio: f64,
    /// Median value in run A (its best where the log has no usable median).
    pub a_median: f64,
    /// Median value in run B (its best where the log has no usable median).
    pub b_median: f64,
    /// Coefficient of variation of A's samples, percent (NaN when unknown).
    pub cv_a: f64,
    /// Coefficient of variation of B's samples, percent (NaN when unknown).
    pub cv_b: f64,
    /// The B/A this point is judged against: the median B/A of best values of the kernel's
    /// memory types of the same class at the same size (see the module's rule, step 2).
    pub reference: f64,
    /// The same over all memory types of the kernel at that size.
    pub reference_all: f64,
    /// The change it needs, percent (step 3), from its reference.
    pub threshold_pct: f64,
    /// +1 when B's value moved up against both references beyond the threshold (best and
    /// median), -1 down, 0 neither (step 4).
    pub beyond: i8,
    /// Whether the change is significant (step 5).
    pub significant: bool,
}

/// The smallest change, percent, that can be significant however steady the runs are.
pub const MIN_CHANGE_PCT: f64 = 5.0;

/// How many times the pair's noise a point must move to be beyond it.
pub const NOISE_TIMES: f64 = 5.0;

/// How many times its kernel's noise a point must move to be beyond it (the kernel's noise
/// counts where it is the larger: a kernel the host disturbed while it ran).
pub const KERNEL_NOISE_TIMES: f64 = 3.0;

/// How many times a point's smallest threshold the median over its series must move for
/// the series as a whole to count (the module's step 5).
pub const SERIES_TIMES: f64 = 1.5;

/// The share of its reference's distance from the overall factor that a point's threshold
/// grows by: a group the host slowed or sped up as a whole scatters more within.
pub const SHIFT_SHARE: f64 = 0.25;

/// Adjacent sizes of a series that must move together for a point to be significant.
pub const RUN_SIZES: usize = 3;

/// The fewest points of a kernel at one size (of a class, or of all types) whose median is
/// a reference; a smaller group is judged against the overall factor.
pub const MIN_GROUP: usize = 3;

impl Change {
    /// The change this point needs to be significant, percent (the module's step 3).
    pub fn threshold_pct(&self) -> f64 {
        self.threshold_pct
    }

    /// Whether the change is significant (the module's rule).
    pub fn significant(&self) -> bool {
        self.significant
    }

    /// This point's B/A over its reference's: how far it moved from the points measured
    /// with it.
    pub fn relative(&self) -> f64 {
        self.ratio / self.reference
    }

    /// Which run is better at this point: `"A"`, `"B"`, or `"same"` when the change is not
    /// [significant](Change::significant) (lower is better for ns).
    pub fn better(&self) -> &'static str {
        let b_higher = self.beyond > 0;
        if !self.significant() {
            "same"
        } else if b_higher == self.unit.higher_is_better() {
            "B"
        } else {
            "A"
        }
    }
}

/// What holds for the whole pair: the overall factor and the noise (the module's steps 1
/// and 3).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Overall {
    /// Points compared.
    pub points: usize,
    /// The median B/A of best values over all points.
    pub factor: f64,
    /// The pair's noise: 1.4826 x the median |ln(B/A) - ln(reference)| over all points, as
    /// percent (exp(noise) - 1); a kernel's own can be larger ([`kernel_noise`]).
    pub noise_pct: f64,
    /// The smallest threshold of any point: the larger of [`MIN_CHANGE_PCT`] and
    /// [`NOISE_TIMES`] x the noise, percent.
    pub threshold_pct: f64,
}

fn median(mut v: Vec<f64>) -> f64 {
    v.retain(|x| x.is_finite());
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// The overall factor and the noise of judged `changes` (see [`Overall`]).
pub fn overall(changes: &[Change]) -> Overall {
    let factor = median(changes.iter().map(|c| c.ratio.ln()).collect()).exp();
    let noise = 1.4826 * median(changes.iter().map(|c| c.relative().ln().abs()).collect());
    let floor = (MIN_CHANGE_PCT / 100.0).ln_1p().max(NOISE_TIMES * noise);
    Overall {
        points: changes.len(),
        factor,
        noise_pct: noise.exp_m1() * 100.0,
        threshold_pct: floor.exp_m1() * 100.0,
    }
}

/// Each kernel's noise in ln: 1.4826 x the median |ln(B/A) - ln(reference)| over its points
/// (the module's step 3).
pub fn kernel_noise(changes: &[Change]) -> BTreeMap<String, f64> {
    let mut of: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    for c in changes {
        of.entry(c.kernel.clone())
            .or_default()
            .push(c.relative().ln().abs());
    }
    of.into_iter()
        .map(|(k, v)| (k, 1.4826 * median(v)))
        .collect()
}

/// The class a series belongs to for its reference: 0 Normal, 1 Device, 2 a name core's
/// table does not know (a twin's source).
fn class_of(series: &str) -> u8 {
    match memtype::by_name(model::series_memtype(series)).map(|t| t.class()) {
        Some(Class::Device) => 1,
        Some(_) => 0,
        None => 2,
    }
}

/// Judges `changes` by the module's rule: sets each one's references, threshold, beyond and
/// significant.
pub fn judge(changes: &mut [Change]) {
    let global = median(changes.iter().map(|c| c.ratio.ln()).collect());
    // Step 2: per kernel and size, per class (Some) and over all types (None).
    let mut groups: BTreeMap<(String, u64, Option<u8>), Vec<f64>> = BTreeMap::new();
    for c in changes.iter() {
        for class in [Some(class_of(&c.memtype)), None] {
            groups
                .entry((c.kernel.clone(), c.size, class))
                .or_default()
                .push(c.ratio.ln());
        }
    }
    let reference = |c: &Change, class: Option<u8>| -> f64 {
        groups
            .get(&(c.kernel.clone(), c.size, class))
            .filter(|v| v.len() >= MIN_GROUP)
            .map_or(global, |v| median(v.clone()))
            .exp()
    };
    for c in changes.iter_mut() {
        let (r, all) = (reference(c, Some(class_of(&c.memtype))), reference(c, None));
        (c.reference, c.reference_all) = (r, all);
    }
    // Step 3: the pair's noise, and each kernel's where that is larger.
    let pair = overall(changes);
    let noise_of = kernel_noise(changes);
    let floor_of = |kernel: &str| -> f64 {
        let noise = noise_of.get(kernel).copied().unwrap_or(0.0);
        (pair.threshold_pct / 100.0)
            .ln_1p()
            .max(KERNEL_NOISE_TIMES * noise)
    };
    let spread = |best: f64, median: f64| (best / median).ln().abs();
    // The four differences of step 4, in ln.
    let diffs = |c: &Change| -> [f64; 4] {
        let (rb, rm) = (c.ratio.ln(), (c.b_median / c.a_median).ln());
        let (r, all) = (c.reference.ln(), c.reference_all.ln());
        [rb - r, rm - r, rb - all, rm - all]
    };
    let direction = |d: [f64; 4], t: f64| -> i8 {
        if d.iter().all(|x| *x > t) {
            1
        } else if d.iter().all(|x| *x < -t) {
            -1
        } else {
            0
        }
    };
    for c in changes.iter_mut() {
        let moved = SHIFT_SHARE * (c.reference.ln() - global).abs();
        let t = floor_of(&c.kernel).max(spread(c.a, c.a_median) + spread(c.b, c.b_median)) + moved;
        c.threshold_pct = t.exp_m1() * 100.0;
        c.beyond = direction(diffs(c), t);
    }
    // Step 5, per series in size order.
    let mut series: BTreeMap<(String, String), Vec<usize>> = BTreeMap::new();
    for (i, c) in changes.iter().enumerate() {
        series
            .entry((c.kernel.clone(), c.memtype.clone()))
            .or_default()
            .push(i);
    }
    for mut idx in series.into_values() {
        idx.sort_by_key(|&i| changes[i].size);
        let need = RUN_SIZES.min(idx.len());
        let d: Vec<[f64; 4]> = idx.iter().map(|&i| diffs(&changes[i])).collect();
        let whole = direction(
            std::array::from_fn(|k| median(d.iter().map(|x| x[k]).collect())),
            SERIES_TIMES * floor_of(&changes[idx[0]].kernel),
        );
        let mut start = 0;
        while start < idx.len() {
            let dir = changes[idx[start]].beyond;
            let mut end = start + 1;
            while end < idx.len() && changes[idx[end]].beyond == dir {
                end += 1;
            }
            for &i in &idx[start..end] {
                changes[i].significant = dir != 0 && (end - start >= need || dir == whole);
            }
            start = end;
        }
    }
}

/// The points both runs measured (same kernel, memory type, size and unit) with a positive
/// value in each, [judged](judge), sorted by |ln(B/A)|, biggest first; ties keep log order
/// of A.
pub fn changes(a: &Run, b: &Run) -> Vec<Change> {
    let row = rows(a, b);
    let in_b: BTreeMap<_, _> = b
        .measurements
        .iter()
        .map(|m| ((m.kernel.as_str(), row(m), m.size, m.unit), m))
        .collect();
    let mut seen: BTreeMap<_, (usize, &Measurement, &Measurement)> = BTreeMap::new();
    for m in &a.measurements {
        let key = (m.kernel.as_str(), row(m), m.size, m.unit);
        let Some(&mb) = in_b.get(&key) else {
            continue;
        };
        if m.best > 0.0 && mb.best > 0.0 && m.best.is_finite() && mb.best.is_finite() {
            let order = seen.len();
            seen.entry(key).or_insert((order, m, mb)).1 = m;
        }
    }
    // A median that is not a positive number stands in as the best.
    let median_of = |m: &Measurement| {
        if m.median > 0.0 && m.median.is_finite() {
            m.median
        } else {
            m.best
        }
    };
    let mut out: Vec<(usize, Change)> = seen
        .into_iter()
        .map(|((kernel, memtype, size, unit), (order, ma, mb))| {
            let change = Change {
                kernel: kernel.into(),
                memtype,
                size,
                unit,
                a: ma.best,
                b: mb.best,
                ratio: mb.best / ma.best,
                a_median: median_of(ma),
                b_median: median_of(mb),
                cv_a: ma.cv_pct,
                cv_b: mb.cv_pct,
                reference: 1.0,
                reference_all: 1.0,
                threshold_pct: MIN_CHANGE_PCT,
                beyond: 0,
                significant: false,
            };
            (order, change)
        })
        .collect();
    out.sort_by(|(oa, x), (ob, y)| {
        let (x, y) = (x.ratio.ln().abs(), y.ratio.ln().abs());
        y.total_cmp(&x).then(oa.cmp(ob))
    });
    let mut out: Vec<Change> = out.into_iter().map(|(_, c)| c).collect();
    judge(&mut out);
    out
}

/// The row name of a point of `a` or `b`: its memory type, marked with its granule where
/// either run measured the kernel on both granules ([`model::series`]), so that only points
/// of one granule are compared (a log from before the `granule` field ran on pages).
fn rows<'a>(a: &'a Run, b: &'a Run) -> impl Fn(&Measurement) -> String + 'a {
    let both = || a.measurements.iter().chain(&b.measurements);
    let kernels = distinct(both().map(|m| m.kernel.as_str()));
    let mixed: Vec<&str> = kernels
        .into_iter()
        .filter(|k| model::mixed_granules(both(), k))
        .collect();
    move |m| model::series(m, mixed.contains(&m.kernel.as_str()))
}

/// Per kernel, in the order of `changes`' first appearance: the points, the geometric mean
/// of B/A, how many points are significantly better or worse in B, and the shared shifts.
#[derive(Clone, Debug, PartialEq)]
pub struct KernelSummary {
    /// Kernel name.
    pub kernel: String,
    /// Unit of its values.
    pub unit: Unit,
    /// Points both runs measured.
    pub points: usize,
    /// exp(mean of ln(B/A)) over the points.
    pub geomean: f64,
    /// Points where B is significantly better.
    pub b_better: usize,
    /// Points where B is significantly worse.
    pub b_worse: usize,
    /// Sizes at which the kernel's memory types of one class (at least [`MIN_GROUP`]) moved
    /// together away from the overall factor by more than [`Overall::threshold_pct`]: a shift
    /// of the moment (host load) or of the class, counted here once per size and class rather
    /// than judged point by point.
    pub shared_shifts: usize,
    /// The kernel's own noise, percent ([`kernel_noise`], as exp(noise) - 1).
    pub noise_pct: f64,
    /// Its geometric mean over the overall factor, when that is beyond the pair's threshold:
    /// the whole kernel moved together, which the per-point rule absorbs (each point is
    /// judged against the points of its kernel and size). The host disturbed it while it
    /// ran, or the kernel itself changed between the builds; a rerun tells them apart.
    pub moved: Option<f64>,
}

/// The per-kernel summaries of judged `changes`, kernels in order of first appearance.
pub fn summary(changes: &[Change]) -> Vec<KernelSummary> {
    let all = overall(changes);
    let limit = (all.threshold_pct / 100.0).ln_1p();
    let noise = kernel_noise(changes);
    distinct(changes.iter().map(|c| c.kernel.as_str()))
        .into_iter()
        .filter_map(|kernel| {
            let of: Vec<&Change> = changes.iter().filter(|c| c.kernel == kernel).collect();
            let first = of.first()?;
            let count = |who: &str| of.iter().filter(|c| c.better() == who).count();
            let mut groups: Vec<(u64, u8, f64)> = Vec::new();
            for c in &of {
                let key = (c.size, class_of(&c.memtype), c.reference);
                let members = of
                    .iter()
                    .filter(|o| (o.size, class_of(&o.memtype)) == (key.0, key.1))
                    .count();
                if members >= MIN_GROUP && !groups.iter().any(|g| (g.0, g.1) == (key.0, key.1)) {
                    groups.push(key);
                }
            }
            let shared_shifts = groups
                .iter()
                .filter(|g| (g.2 / all.factor).ln().abs() > limit)
                .count();
            let geomean = (of.iter().map(|c| c.ratio.ln()).sum::<f64>() / of.len() as f64).exp();
            let whole = geomean / all.factor;
            Some(KernelSummary {
                kernel: kernel.into(),
                unit: first.unit,
                points: of.len(),
                geomean,
                moved: (whole.ln().abs() > limit).then_some(whole),
                b_better: count("B"),
                b_worse: count("A"),
                shared_shifts,
                noise_pct: noise.get(kernel).map_or(0.0, |n| n.exp_m1() * 100.0),
            })
        })
        .collect()
}

/// The smallest shift of a whole class against the other that [`class_shifts`] names,
/// percent: under QEMU on a loaded 2-core host, two runs of one image put the Device types
/// up to 1.6x apart relative to the Normal types over most of a kernel's sizes (55 pairs of
/// identical runs, 1125 and 1500 points each); a 2x change stands out of that.
pub const CLASS_MIN_PCT: f64 = 100.0;

/// Device types that moved against the Normal types of one kernel over a run of sizes: a
/// change a whole class shares (all four Device mappings fixed, a bus clock for uncached
/// accesses changed), which step 2 judges each point of against its own class and so never
/// lists point by point. At one size it can be the host (the class's points run back to
/// back); at [`RUN_SIZES`] adjacent sizes in one direction it is not, since each size runs
/// both classes in turn.
#[derive(Clone, Debug, PartialEq)]
pub struct ClassShift {
    /// Kernel name.
    pub kernel: String,
    /// Unit of the kernel's values.
    pub unit: Unit,
    /// The first size of the run, bytes.
    pub from: u64,
    /// The last size of the run, bytes.
    pub to: u64,
    /// Sizes in the run.
    pub sizes: usize,
    /// The median over the run's sizes of (Device types' reference B/A) / (Normal types').
    pub factor: f64,
}

impl ClassShift {
    /// Which run's Device types fare better against its Normal ones: `"A"` or `"B"`.
    pub fn better(&self) -> &'static str {
        if (self.factor > 1.0) == self.unit.higher_is_better() {
            "B"
        } else {
            "A"
        }
    }
}

/// The class shifts of judged `changes`: per kernel, each run of adjacent sizes, at least
/// [`RUN_SIZES`] and half of the kernel's sizes (all of them when it has fewer), at which the
/// Device reference over the Normal reference (in ln) is beyond the kernel's floor (the
/// largest of the pair's smallest threshold, [`KERNEL_NOISE_TIMES`] x its noise and
/// [`CLASS_MIN_PCT`] %) in one direction. Both classes need [`MIN_GROUP`] types at a size.
pub fn class_shifts(changes: &[Change]) -> Vec<ClassShift> {
    let pair = overall(changes);
    let noise = kernel_noise(changes);
    let mut out = Vec::new();
    for kernel in distinct(changes.iter().map(|c| c.kernel.as_str())) {
        let of: Vec<&Change> = changes.iter().filter(|c| c.kernel == kernel).collect();
        let floor = (pair.threshold_pct / 100.0)
            .ln_1p()
            .max(KERNEL_NOISE_TIMES * noise.get(kernel).copied().unwrap_or(0.0))
            .max((CLASS_MIN_PCT / 100.0).ln_1p());
        let mut sizes: Vec<u64> = of.iter().map(|c| c.size).collect();
        sizes.sort_unstable();
        sizes.dedup();
        // Per size: ln(Device reference / Normal reference), when both classes have a group.
        let shift = |size: u64| -> Option<f64> {
            let reference = |class: u8| {
                let members: Vec<&&Change> = of
                    .iter()
                    .filter(|c| c.size == size && class_of(&c.memtype) == class)
                    .collect();
                (members.len() >= MIN_GROUP).then(|| members[0].reference.ln())
            };
            Some(reference(1)? - reference(0)?)
        };
        let d: Vec<(u64, Option<f64>)> = sizes.iter().map(|&s| (s, shift(s))).collect();
        let dir = |x: Option<f64>| match x {
            Some(x) if x > floor => 1,
            Some(x) if x < -floor => -1,
            _ => 0,
        };
        let need = RUN_SIZES.max(d.len().div_ceil(2)).min(d.len());
        let mut start = 0;
        while start < d.len() {
            let sign = dir(d[start].1);
            let mut end = start + 1;
            while end < d.len() && dir(d[end].1) == sign {
                end += 1;
            }
            if sign != 0 && end - start >= need {
                let run = &d[start..end];
                out.push(ClassShift {
                    kernel: kernel.into(),
                    unit: of[0].unit,
                    from: run[0].0,
                    to: run[run.len() - 1].0,
                    sizes: run.len(),
                    factor: median(run.iter().filter_map(|x| x.1).collect()).exp(),
                });
            }
            start = end;
        }
    }
    out
}

/// The class shifts for the terminal: one line each, or nothing when there are none.
pub fn class_shift_table(shifts: &[ClassShift]) -> String {
    if shifts.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "Device types against Normal types ({RUN_SIZES} adjacent sizes agreeing, beyond the \
         kernel's threshold): a change the whole class shares\n\
         {:<14}{:>22}{:>7}{:>24}  better\n",
        "kernel", "sizes", "count", "B/A Device over Normal"
    );
    for s in shifts {
        let _ = writeln!(
            out,
            "{:<14}{:>22}{:>7}{:>23.3}x  {} (Device types, {}, {} is better)",
            s.kernel,
            format!("{} to {}", size_label(s.from), size_label(s.to)),
            s.sizes,
            s.factor,
            s.better(),
            s.unit.label(),
            s.unit.better()
        );
    }
    out
}

/// A chart title's note for a kernel that moved as a whole, else `""`.
pub fn moved_note(summaries: &[KernelSummary], kernel: &str) -> String {
    summaries
        .iter()
        .find(|s| s.kernel == kernel)
        .and_then(|s| s.moved)
        .map_or_else(String::new, |m| {
            format!(" (moved as a whole, {m:.3}x: disturbed or changed, rerun it)")
        })
}

/// The overall line: the factor common to all points, reported once, and the noise the
/// points are judged against.
pub fn overall_line(o: &Overall) -> String {
    format!(
        "overall: B/A = {:.3}x (median of {} points), reported once: each point is judged \
         against the points measured with it\n\
         noise of this pair: {:.1} % (1.4826 x median deviation from those; each kernel's in \
         the table); a point needs at least {:.1} % (max({MIN_CHANGE_PCT:.0} %, \
         {NOISE_TIMES:.0} x noise, {KERNEL_NOISE_TIMES:.0} x its kernel's, its samples' spread), \
         more in a group that moved together, and {RUN_SIZES} adjacent sizes agreeing\n",
        o.factor, o.points, o.noise_pct, o.threshold_pct
    )
}

/// The summaries as a table for the terminal, with the significance rule.
pub fn summary_table(summaries: &[KernelSummary]) -> String {
    let mut out = format!(
        "per kernel: geometric mean of B/A; better/worse count significant points \
         (best and median beyond the threshold, {RUN_SIZES} adjacent sizes agreeing); shared \
         = sizes where one class's types moved together; noise = the kernel's (percent)\n\
         {:<14}{:>8}{:>14}{:>10}{:>9}{:>8}{:>8}{:>9}  unit\n",
        "kernel", "points", "geomean B/A", "B better", "B worse", "same", "shared", "noise %"
    );
    for s in summaries {
        let _ = writeln!(
            out,
            "{:<14}{:>8}{:>13.3}x{:>10}{:>9}{:>8}{:>8}{:>9.1}  {} ({} is better)",
            s.kernel,
            s.points,
            s.geomean,
            s.b_better,
            s.b_worse,
            s.points - s.b_better - s.b_worse,
            s.shared_shifts,
            s.noise_pct,
            s.unit.label(),
            s.unit.better()
        );
    }
    let moved: Vec<&KernelSummary> = summaries.iter().filter(|s| s.moved.is_some()).collect();
    if !moved.is_empty() {
        let each: Vec<String> = moved
            .iter()
            .map(|s| format!("{} {:.3}x", s.kernel, s.moved.unwrap_or(1.0)))
            .collect();
        let names: Vec<&str> = moved.iter().map(|s| s.kernel.as_str()).collect();
        let (them, they, kernels) = match moved.len() {
            1 => ("it", "it", "the kernel itself"),
            _ => ("them", "they", "the kernels themselves"),
        };
        let _ = writeln!(
            out,
            "moved as a whole, against the overall factor: {}. Each point is judged against \
             its own kernel's, so these moves are not findings: the host disturbed {them} \
             while {they} ran, or {kernels} changed between the builds; rerun {them} to tell \
             (mairbench.kernels={})",
            each.join(", "),
            names.join(",")
        );
    }
    out
}

/// The significant changes as a table for the terminal, biggest first, then one line
/// saying how many points are within the runs' spread (all are in `compare.csv`).
pub fn table(changes: &[Change]) -> String {
    let mut out = String::new();
    if changes.iter().any(Change::significant) {
        out = format!(
            "{:<14}{:<20}{:>9}{:>13}{:>13}{:>9}{:>9}{:>11}  better\n",
            "kernel", "memory type", "size", "A", "B", "B/A", "vs ref", "needs (%)"
        );
    }
    for c in changes.iter().filter(|c| c.significant()) {
        let _ = writeln!(
            out,
            "{:<14}{:<20}{:>9}{:>13}{:>13}{:>8.3}x{:>8.3}x{:>11.1}  {} ({}, {} is better)",
            c.kernel,
            c.memtype,
            size_label(c.size),
            value_label(c.unit, c.a),
            value_label(c.unit, c.b),
            c.ratio,
            c.relative(),
            c.threshold_pct(),
            c.better(),
            c.unit.label(),
            c.unit.better()
        );
    }
    let same = changes.iter().filter(|c| !c.significant()).count();
    let _ = writeln!(
        out,
        "{same} of {} points within the runs' spread, not listed (all are in compare.csv)",
        changes.len()
    );
    out
}

/// `compare.csv`: one row per change, biggest first, with both cvs, the change each needs to
/// be significant (percent), both medians and the reference B/A it was judged against.
pub fn csv(changes: &[Change]) -> String {
    let mut out = String::from(
        "kernel,memtype,size_bytes,unit,a_best,b_best,ratio_b_over_a,better,a_cv_pct,b_cv_pct,\
         threshold_pct,a_median,b_median,reference_b_over_a,reference_all_b_over_a\n",
    );
    for c in changes {
        csv_row(
            &mut out,
            &[
                &c.kernel,
                &c.memtype,
                &c.size,
                &c.unit.id(),
                &c.a,
                &c.b,
                &c.ratio,
                &c.better(),
                &c.cv_a,
                &c.cv_b,
                &((c.threshold_pct() * 100.0).round() / 100.0),
                &c.a_median,
                &c.b_median,
                &((c.reference * 1e6).round() / 1e6),
                &((c.reference_all * 1e6).round() / 1e6),
            ],
        );
    }
    out
}

/// A short name for a log in titles: its file stem, or its directory's name where the stem
/// is `console` (`cargo host run --out DIR` writes `DIR/console.log`); at most 24
/// characters (the first 23 and "…").
pub fn short_label(path: &Path) -> String {
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    let dir = path
        .parent()
        .and_then(Path::file_name)
        .map(|s| s.to_string_lossy().into_owned());
    let name = match (stem, dir) {
        (Some(stem), Some(dir)) if stem == "console" => dir,
        (Some(stem), _) => stem,
        (None, _) => path.display().to_string(),
    };
    shorten(&name, 24)
}

fn shorten(name: &str, most: usize) -> String {
    if name.chars().count() <= most {
        name.to_string()
    } else {
        name.chars().take(most - 1).chain(['\u{2026}']).collect()
    }
}

/// Short labels for the logs A and B: [`short_label`] of each, made distinct (with the
/// directory, then "A "/"B ") where they are equal.
pub fn labels(a: &Path, b: &Path) -> (String, String) {
    let (la, lb) = (short_label(a), short_label(b));
    if la != lb {
        return (la, lb);
    }
    let with_dir = |p: &Path| {
        let dir = p
            .parent()
            .and_then(Path::file_name)
            .map_or(String::new(), |d| format!("{}/", d.to_string_lossy()));
        shorten(&format!("{dir}{la}"), 24)
    };
    let (da, db) = (with_dir(a), with_dir(b));
    if da != db {
        (da, db)
    } else {
        (format!("A {la}"), format!("B {lb}"))
    }
}

/// The CPU of a run: core's name for its MIDR (`Cortex-A72`), else the MIDR, else
/// `unknown CPU`.
pub fn cpu(run: &Run) -> String {
    let midr = u64::from_str_radix(run.midr.trim_start_matches("0x"), 16).ok();
    match midr.and_then(mairbench_core::cores::by_midr) {
        Some(core) => core.name.to_string(),
        None if !run.midr.is_empty() => format!("MIDR {}", run.midr),
        None => "unknown CPU".to_string(),
    }
}

/// One line naming a run: its platform and CPU, then its MIDR and firmware version where the
/// log has them (`linux,dummy-virt, Cortex-A72 (MIDR 0x410fd083, mairbench 0.1.0)`).
pub fn describe(run: &Run) -> String {
    let platform = if run.platform.is_empty() {
        "unknown platform"
    } else {
        &run.platform
    };
    let mut s = format!("{platform}, {}", cpu(run));
    let extra: Vec<String> = [("MIDR ", &run.midr), ("mairbench ", &run.version)]
        .iter()
        .filter(|(_, v)| !v.is_empty())
        .map(|(k, v)| format!("{k}{v}"))
        .collect();
    if !extra.is_empty() {
        let _ = write!(s, " ({})", extra.join(", "));
    }
    if run.emulated {
        s += ", emulated";
    }
    s
}

/// The kernels both runs measured, in A's order.
pub fn common_kernels<'a>(a: &'a Run, changes: &[Change]) -> Vec<&'a str> {
    distinct(a.measurements.iter().map(|m| m.kernel.as_str()))
        .into_iter()
        .filter(|k| changes.iter().any(|c| c.kernel == *k))
        .collect()
}

/// A loaded-latency point both runs measured: same streams' kernel, memory type and core
/// count.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedChange {
    /// The streams' kernel.
    pub kernel: String,
    /// The streams' memory type.
    pub memtype: String,
    /// CPUs running (the chase and `cores - 1` streams).
    pub cores: u64,
    /// Run A's point.
    pub a: LoadedLatency,
    /// Run B's point.
    pub b: LoadedLatency,
}

impl LoadedChange {
    /// B's slowdown over A's: B's `ratio` / A's `ratio` (NaN when A's is not positive).
    pub fn change(&self) -> f64 {
        if self.a.ratio > 0.0 {
            self.b.ratio / self.a.ratio
        } else {
            f64::NAN
        }
    }

    /// Whether |change - 1| exceeds [`MIN_CHANGE_PCT`] (the rule of [`Change`] with both cvs
    /// unknown, as a `loaded_latency` record has none).
    pub fn significant(&self) -> bool {
        let c = self.change();
        c.is_finite() && (c - 1.0).abs() * 100.0 > MIN_CHANGE_PCT
    }

    /// Which run's chase suffers less from the streams: `"A"`, `"B"` or `"same"` when the
    /// change is not [significant](LoadedChange::significant) (a lower ratio is better).
    pub fn better(&self) -> &'static str {
        if !self.significant() {
            "same"
        } else if self.change() < 1.0 {
            "B"
        } else {
            "A"
        }
    }
}

/// The loaded-latency points both runs measured, in the order of A's report table (a
/// repeated point keeps the last).
pub fn loaded_changes(a: &Run, b: &Run) -> Vec<LoadedChange> {
    let in_b = crate::read::model::loaded_latency_rows(b);
    crate::read::model::loaded_latency_rows(a)
        .into_iter()
        .filter_map(|pa| {
            let pb = in_b.iter().find(|p| {
                (p.kernel.as_str(), p.memtype.as_str(), p.cores)
                    == (pa.kernel.as_str(), pa.memtype.as_str(), pa.cores)
            })?;
            Some(LoadedChange {
                kernel: pa.kernel.clone(),
                memtype: pa.memtype.clone(),
                cores: pa.cores,
                a: pa.clone(),
                b: (*pb).clone(),
            })
        })
        .collect()
}

/// The loaded-latency points of both runs for the terminal: every common point with both
/// ratios and idle/loaded ns, the change of the ratio and the better run; nothing when
/// neither run has loaded-latency points, one line when they have none in common.
pub fn loaded_table(a: &Run, b: &Run) -> String {
    if a.loaded_latency.is_empty() && b.loaded_latency.is_empty() {
        return String::new();
    }
    let changes = loaded_changes(a, b);
    if changes.is_empty() {
        return format!(
            "loaded latency: no point in common (same streams' kernel, memory type and cores; \
             {} in A, {} in B)\n",
            a.loaded_latency.len(),
            b.loaded_latency.len()
        );
    }
    let mut out = format!(
        "loaded latency: ratio = loaded / idle ns per load of the boot core's chase; B/A of \
         the ratios counts when |B/A - 1| > {MIN_CHANGE_PCT:.0} %\n\
         {:<11}{:<16}{:>6}{:>22}{:>22}{:>9}{:>9}{:>9}  better\n",
        "streams",
        "memory type",
        "cores",
        "A idle/loaded (ns)",
        "B idle/loaded (ns)",
        "A",
        "B",
        "B/A"
    );
    for c in &changes {
        let pair = |p: &LoadedLatency| format!("{:.2}/{:.2}", p.idle_ns, p.loaded_ns);
        let _ = writeln!(
            out,
            "{:<11}{:<16}{:>6}{:>22}{:>22}{:>8.3}x{:>8.3}x{:>8.3}x  {} (lower ratio is better)",
            c.kernel,
            c.memtype,
            c.cores,
            pair(&c.a),
            pair(&c.b),
            c.a.ratio,
            c.b.ratio,
            c.change(),
            c.better()
        );
    }
    out
}

/// `compare-loaded-latency.csv`: one row per loaded-latency point both runs measured, in
/// [`loaded_changes`]' order (ns per load; the ratios are loaded / idle).
pub fn loaded_csv(changes: &[LoadedChange]) -> String {
    let mut out = String::from(
        "kernel,memtype,cores,a_idle_ns,a_loaded_ns,a_ratio,b_idle_ns,b_loaded_ns,b_ratio,\
         ratio_b_over_a,better,threshold_pct\n",
    );
    for c in changes {
        csv_row(
            &mut out,
            &[
                &c.kernel,
                &c.memtype,
                &c.cores,
                &c.a.idle_ns,
                &c.a.loaded_ns,
                &c.a.ratio,
                &c.b.idle_ns,
                &c.b.loaded_ns,
                &c.b.ratio,
                &c.change(),
                &c.better(),
                &MIN_CHANGE_PCT,
            ],
        );
    }
    out
}

/// A verdict whose status differs between the two runs (or that only one run has).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerdictChange {
    /// The verdict's name.
    pub name: String,
    /// Its status in A (`None`: A has no such verdict).
    pub a: Option<String>,
    /// Its status in B (`None`: B has no such verdict).
    pub b: Option<String>,
    /// B's why, else A's.
    pub why: String,
}

/// The verdicts whose status changed from A to B, in A's order, then those only B has.
pub fn verdict_changes(a: &Run, b: &Run) -> Vec<VerdictChange> {
    let names = distinct(
        a.verdicts
            .iter()
            .chain(&b.verdicts)
            .map(|v| v.name.as_str()),
    );
    names
        .into_iter()
        .filter_map(|name| {
            let find = |r: &Run| r.verdicts.iter().rev().find(|v| v.name == name).cloned();
            let (va, vb) = (find(a), find(b));
            let status =
                |v: &Option<crate::read::model::Verdict>| v.as_ref().map(|v| v.status.clone());
            let (sa, sb) = (status(&va), status(&vb));
            (sa != sb).then(|| VerdictChange {
                name: name.to_owned(),
                a: sa,
                b: sb,
                why: vb.or(va).map(|v| v.why).unwrap_or_default(),
            })
        })
        .collect()
}

/// The verdict changes for the terminal: a line per changed verdict (`A -> B` and B's why),
/// or one line saying none changed; nothing when neither run has verdicts.
pub fn verdict_table(a: &Run, b: &Run) -> String {
    if a.verdicts.is_empty() && b.verdicts.is_empty() {
        return String::new();
    }
    let changed = verdict_changes(a, b);
    if changed.is_empty() {
        return format!(
            "verdicts: none changed ({} in A, {} in B)\n",
            a.verdicts.len(),
            b.verdicts.len()
        );
    }
    let mut out = format!("verdicts that changed ({} of them):\n", changed.len());
    let width = changed.iter().map(|c| c.name.len()).max().unwrap_or(0);
    for c in &changed {
        let _ = writeln!(
            out,
            "  {:<width$}  {:>4} -> {:<4}  {}",
            c.name,
            c.a.as_deref().unwrap_or("none"),
            c.b.as_deref().unwrap_or("none"),
            c.why
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::model::{LoadedLatency, Measurement};
    use mairbench_core::memtype;

    #[test]
    fn biggest_change_first_and_direction() {
        // latency (ns) 20 % lower in normal-wb, read-ldp 30 % higher in device-gre: B is
        // better at both; the bigger change first.
        let a = noisy_run(1, 1.0, |_, _, _| false, None);
        let mut b = noisy_run(
            2,
            1.0,
            |_, _, _| false,
            Some(("read-ldp", "device-gre", 1.3)),
        );
        let mut lat_a = sweep("latency", 12, |t, _| 10.0 + t as f64);
        for m in &mut lat_a {
            m.unit = Unit::NsPerLoad;
        }
        let mut lat_b = lat_a.clone();
        for m in &mut lat_b {
            if m.memtype == "normal-wb" {
                (m.best, m.median) = (m.best * 0.8, m.median * 0.8);
            }
        }
        let mut a = a;
        a.measurements.extend(lat_a);
        b.measurements.extend(lat_b);
        let c = changes(&a, &b);
        let found: Vec<_> = c.iter().filter(|c| c.significant()).collect();
        assert_eq!(found.len(), 24);
        assert!(
            found[..12].iter().all(|c| c.kernel == "read-ldp"),
            "{found:?}"
        );
        assert!(found.iter().all(|c| c.better() == "B"));
        assert!(changes(&a, &a)
            .iter()
            .all(|c| c.ratio == 1.0 && c.better() == "same"));
    }

    /// A whole class moved: every Device type of one kernel 3x faster in B at every size
    /// is one class shift (no point of it is listed: each moved with its class); at 1.5x
    /// (within [`CLASS_MIN_PCT`]), or 3x at two sizes only, there is none; host-slowed points
    /// and a planted single-type change make none either.
    #[test]
    fn a_whole_class_that_moved_is_named_once() {
        let a = noisy_run(1, 1.0, |_, _, _| false, None);
        let with = |f: f64, at: &dyn Fn(u32) -> bool| {
            let mut b = noisy_run(2, 1.0, |k, t, s| k == 2 && t == 5 && s == 3, None);
            for m in &mut b.measurements {
                let s = (m.size / 4096).trailing_zeros();
                let device = memtype::by_name(&m.memtype).unwrap().class() == Class::Device;
                if m.kernel == "write-stp" && device && at(s) {
                    (m.best, m.median) = (m.best * f, m.median * f);
                }
            }
            class_shifts(&changes(&a, &b))
        };
        let found = with(3.0, &|_| true);
        assert_eq!(found.len(), 1, "{found:?}");
        let s = &found[0];
        assert_eq!(
            (s.kernel.as_str(), s.from, s.to, s.sizes, s.better()),
            ("write-stp", 4096, 4096 << 11, 12, "B")
        );
        assert!((s.factor - 3.0).abs() < 0.1, "{s:?}");
        let t = class_shift_table(&found);
        assert!(
            t.contains("write-stp") && t.contains("4 KiB to 8 MiB"),
            "{t}"
        );
        assert!(with(1.5, &|_| true).is_empty());
        assert!(with(3.0, &|s| s == 4 || s == 5).is_empty());
        assert!(with(1.0, &|_| true).is_empty());
        assert_eq!(class_shift_table(&[]), "");
    }

    /// A full sweep of one kernel: eight memory types x `sizes` sizes from 4 KiB, MB/s, each
    /// point's value from `value(type index, size index)`, best = median.
    fn sweep(kernel: &str, sizes: u32, value: impl Fn(usize, u32) -> f64) -> Vec<Measurement> {
        let mut out = Vec::new();
        for s in 0..sizes {
            for (t, memtype) in memtype::MEMTYPES.iter().enumerate() {
                let v = value(t, s);
                out.push(Measurement {
                    memtype: memtype.name.into(),
                    kernel: kernel.into(),
                    granule: "4K".into(),
                    size: 4096 << s,
                    unit: Unit::MegabytesPerSecond,
                    best: v,
                    median: v,
                    cv_pct: 0.5,
                    reps: 3,
                    pmu: None,
                    start: None,
                    line_state: None,
                });
            }
        }
        out
    }

    /// A deterministic noise in [-1, 1) from a point's coordinates (a hash, no dependency).
    fn jitter(k: usize, t: usize, s: u32, run: u64) -> f64 {
        let mut h = (k as u64) << 40 ^ (t as u64) << 20 ^ u64::from(s) << 4 ^ run;
        h = h.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        h ^= h >> 29;
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        h ^= h >> 32;
        (h % 2000) as f64 / 1000.0 - 1.0
    }

    const KERNELS: [&str; 6] = [
        "read-ldp",
        "write-stp",
        "read-ldnp",
        "copy-to",
        "copy-from",
        "write-line",
    ];

    /// A run of six kernels x 8 types x 12 sizes: a base value per type, times 1 +- 2 %
    /// noise, times `factor`; `slow(k, t, s)` says which points the host slowed by 1.7x.
    fn noisy_run(
        run: u64,
        factor: f64,
        slow: impl Fn(usize, usize, u32) -> bool,
        planted: Option<(&str, &str, f64)>,
    ) -> Run {
        let mut measurements = Vec::new();
        for (k, kernel) in KERNELS.iter().enumerate() {
            measurements.extend(sweep(kernel, 12, |t, s| {
                let base = if t < 4 { 4000.0 } else { 400.0 } * (1.0 + 0.1 * t as f64);
                let mut v = base * factor * (1.0 + 0.02 * jitter(k, t, s, run));
                if slow(k, t, s) {
                    v /= 1.7;
                }
                if let Some((pk, pt, f)) = planted {
                    if pk == *kernel && memtype::MEMTYPES[t].name == pt {
                        v *= f;
                    }
                }
                v
            }));
        }
        Run {
            measurements,
            ..Run::default()
        }
    }

    /// The significant points, as `kernel memtype size`.
    fn flagged(c: &[Change]) -> Vec<String> {
        c.iter()
            .filter(|c| c.significant())
            .map(|c| format!("{} {} {}", c.kernel, c.memtype, c.size))
            .collect()
    }

    const NONE: [String; 0] = [];

    #[test]
    fn noise_and_isolated_slow_points_are_not_findings() {
        // Run B: every 23rd point slowed 1.7x by the host, and a whole size of one kernel.
        let a = noisy_run(1, 1.0, |_, _, _| false, None);
        let b = noisy_run(
            2,
            1.0,
            |k, t, s| (k * 96 + t + 8 * s as usize).is_multiple_of(23) || (k, s) == (1, 5),
            None,
        );
        let c = changes(&a, &b);
        assert_eq!(c.len(), 6 * 8 * 12);
        // The old rule (|B/A - 1| > max(5 %, cv A + cv B)) flagged every slowed point.
        let old = c.iter().filter(|c| (c.ratio - 1.0).abs() > 0.05).count();
        assert!(old >= 25, "{old}");
        assert_eq!(flagged(&c), NONE, "nothing is a finding");
        let o = overall(&c);
        assert!((o.factor - 1.0).abs() < 0.01, "{o:?}");
        assert!(
            o.noise_pct < 3.0 && o.threshold_pct >= MIN_CHANGE_PCT,
            "{o:?}"
        );
        // The slowed size of write-stp moved together: one shared shift per class.
        let s = summary(&c);
        assert!(s.iter().all(|k| k.moved.is_none()), "{s:?}");
        assert_eq!(s[1].kernel, "write-stp");
        assert_eq!(s[1].shared_shifts, 2, "{s:?}");
        assert_eq!(s[0].shared_shifts, 0, "{s:?}");
        let t = table(&c);
        assert!(
            t.contains("576 of 576 points within the runs' spread"),
            "{t}"
        );
    }

    #[test]
    fn a_kernel_that_moved_as_a_whole_is_said_with_a_rerun() {
        // As CI saw under QEMU on a loaded host: two runs of one image, one kernel 0.71x in B
        // at every size and type, which no point shows against its own kernel's reference.
        let a = noisy_run(1, 1.0, |_, _, _| false, None);
        let mut b = noisy_run(2, 1.0, |_, _, _| false, None);
        for m in b
            .measurements
            .iter_mut()
            .filter(|m| m.kernel == "write-stp")
        {
            (m.best, m.median) = (m.best * 0.71, m.median * 0.71);
        }
        let c = changes(&a, &b);
        assert_eq!(flagged(&c), NONE);
        let s = summary(&c);
        let moved: Vec<(&str, f64)> = s
            .iter()
            .filter_map(|k| Some((k.kernel.as_str(), k.moved?)))
            .collect();
        assert_eq!(moved.len(), 1, "{s:?}");
        assert_eq!(moved[0].0, "write-stp");
        assert!((moved[0].1 - 0.71).abs() < 0.03, "{moved:?}");
        let t = summary_table(&s);
        assert!(
            t.contains("moved as a whole, against the overall factor: write-stp 0.7")
                && t.contains("rerun it to tell (mairbench.kernels=write-stp)"),
            "{t}"
        );
        assert!(moved_note(&s, "write-stp").contains("moved as a whole"));
        assert_eq!(moved_note(&s, "read-ldp"), "");
    }

    #[test]
    fn a_class_the_host_slowed_together_is_not_a_finding() {
        // As seen under QEMU on a loaded host: read-ldp's Device types at 8 KiB - 256 KiB
        // all about 2.1x slower in B, scattered +-8 % among themselves.
        let a = noisy_run(1, 1.0, |_, _, _| false, None);
        let mut b = noisy_run(2, 1.0, |_, _, _| false, None);
        for m in &mut b.measurements {
            let s = m.size.trailing_zeros() - 12;
            let t = memtype::by_name(&m.memtype).unwrap().index;
            if m.kernel == "read-ldp" && (1..=6).contains(&s) && t >= 4 {
                let scatter = 1.0 + 0.08 * jitter(7, usize::from(t), s, 3).signum();
                (m.best, m.median) = (m.best / 2.1 * scatter, m.median / 2.1 * scatter);
            }
        }
        let c = changes(&a, &b);
        assert_eq!(flagged(&c), NONE);
        assert_eq!(
            summary(&c)[0].shared_shifts,
            6,
            "reported once per size and class"
        );
        // Without the share of the group's shift in the threshold, 8 % beyond the group's
        // median would pass 5 %: the scatter is real, the threshold grew with the shift.
        let slowed = c
            .iter()
            .find(|c| c.kernel == "read-ldp" && c.memtype == "device-gre" && c.size == 16384)
            .unwrap();
        assert!(slowed.threshold_pct() > 20.0, "{slowed:?}");
    }

    #[test]
    fn a_disturbed_kernel_is_judged_by_its_own_noise() {
        // copy-to scattered +-30 % in B point by point (the host came and went while it
        // ran); the other kernels steady, one of them with a real 20 % change.
        let a = noisy_run(1, 1.0, |_, _, _| false, None);
        let mut b = noisy_run(
            2,
            1.0,
            |_, _, _| false,
            Some(("read-ldp", "normal-nc", 1.2)),
        );
        for m in &mut b.measurements {
            if m.kernel == "copy-to" {
                let t = memtype::by_name(&m.memtype).unwrap().index;
                let s = m.size.trailing_zeros();
                let f = 1.0 + 0.3 * jitter(9, usize::from(t), s, 4);
                (m.best, m.median) = (m.best * f, m.median * f);
            }
        }
        let c = changes(&a, &b);
        let found = flagged(&c);
        assert_eq!(found.len(), 12, "{found:?}");
        assert!(found.iter().all(|p| p.starts_with("read-ldp normal-nc ")));
        let noise = kernel_noise(&c);
        assert!(noise["copy-to"] > 5.0 * noise["read-ldp"], "{noise:?}");
    }

    #[test]
    fn a_planted_change_in_one_kernel_and_type_is_found() {
        let slow = |k: usize, t: usize, s: u32| (k * 96 + t + 8 * s as usize).is_multiple_of(29);
        let a = noisy_run(1, 1.0, |_, _, _| false, None);
        for (kernel, memtype, f) in [
            ("copy-to", "normal-nc", 1.2),
            ("read-ldp", "device-ngnre", 0.8),
            ("write-line", "normal-wb", 1.2),
        ] {
            let b = noisy_run(2, 1.0, slow, Some((kernel, memtype, f)));
            let c = changes(&a, &b);
            let found = flagged(&c);
            let ours = format!("{kernel} {memtype} ");
            let mine = found.iter().filter(|p| p.starts_with(&ours)).count();
            assert!(mine >= 11, "{kernel} {memtype}: {found:?}");
            assert_eq!(mine, found.len(), "{kernel} {memtype}: {found:?}");
            let better = if f > 1.0 { "B" } else { "A" };
            assert!(c
                .iter()
                .filter(|c| c.significant())
                .all(|c| c.better() == better));
        }
    }

    #[test]
    fn a_shift_common_to_every_point_is_reported_once() {
        // B's clock 7 % faster: every point 1.07x, within the runs' 2 % noise.
        let a = noisy_run(1, 1.0, |_, _, _| false, None);
        let b = noisy_run(2, 1.07, |_, _, _| false, None);
        let c = changes(&a, &b);
        let o = overall(&c);
        assert!((o.factor - 1.07).abs() < 0.01, "{o:?}");
        assert_eq!(flagged(&c), NONE);
        assert!(summary(&c).iter().all(|s| s.shared_shifts == 0));
        let line = overall_line(&o);
        assert!(line.starts_with("overall: B/A = 1.07"), "{line}");
        // And a planted change on top of it is judged against it.
        let b = noisy_run(
            2,
            1.07,
            |_, _, _| false,
            Some(("read-ldnp", "normal-wt", 1.2)),
        );
        let c = changes(&a, &b);
        let found = flagged(&c);
        assert_eq!(found.len(), 12, "{found:?}");
        assert!(found.iter().all(|p| p.starts_with("read-ldnp normal-wt ")));
        let point = c.iter().find(|c| c.significant()).unwrap();
        assert!((point.relative() - 1.2).abs() < 0.03, "{point:?}");
    }

    #[test]
    fn within_the_samples_spread_is_not_a_finding() {
        // 20 % better at every size, but B's median is 25 % below its best: the samples
        // spread more than the change (and B/A of the medians says 0.96).
        let a = noisy_run(1, 1.0, |_, _, _| false, None);
        let mut b = noisy_run(
            2,
            1.0,
            |_, _, _| false,
            Some(("read-ldp", "normal-nc", 1.2)),
        );
        for m in &mut b.measurements {
            if (m.kernel.as_str(), m.memtype.as_str()) == ("read-ldp", "normal-nc") {
                m.median = m.best / 1.25;
            }
        }
        let c = changes(&a, &b);
        assert_eq!(flagged(&c), NONE);
        let nc = c
            .iter()
            .find(|c| c.memtype == "normal-nc" && c.kernel == "read-ldp")
            .unwrap();
        assert!(nc.threshold_pct() > 24.9, "{nc:?}");
        // Without the spread it is found.
        let b = noisy_run(
            2,
            1.0,
            |_, _, _| false,
            Some(("read-ldp", "normal-nc", 1.2)),
        );
        assert_eq!(flagged(&changes(&a, &b)).len(), 12);
    }

    #[test]
    fn neighbouring_sizes_must_agree() {
        // One point 30 % better alone is not a finding; three adjacent sizes are; a
        // series of one size is judged on its own.
        let a = noisy_run(1, 1.0, |_, _, _| false, None);
        let mut b = a.clone();
        let bump = |b: &mut Run, sizes: &[u64]| {
            for m in &mut b.measurements {
                if m.kernel == "copy-from" && m.memtype == "normal-wt" && sizes.contains(&m.size) {
                    m.best *= 1.3;
                    m.median *= 1.3;
                }
            }
        };
        bump(&mut b, &[1 << 16]);
        assert_eq!(flagged(&changes(&a, &b)), NONE);
        bump(&mut b, &[1 << 15, 1 << 17]);
        let found = flagged(&changes(&a, &b));
        assert_eq!(found.len(), 3, "{found:?}");
        // One size per series: a point beyond the threshold counts.
        let keep = |r: &Run| Run {
            measurements: r
                .measurements
                .iter()
                .filter(|m| m.size == 1 << 16)
                .cloned()
                .collect(),
            ..Run::default()
        };
        let found = flagged(&changes(&keep(&a), &keep(&b)));
        assert_eq!(found, ["copy-from normal-wt 65536"]);
    }

    #[test]
    fn labels_and_descriptions() {
        use std::path::Path;
        assert_eq!(short_label(Path::new("/tmp/x/a72.log")), "a72");
        assert_eq!(short_label(Path::new("out/rpi4/console.log")), "rpi4");
        assert_eq!(
            short_label(Path::new("a-very-long-name-of-a-log-file.log")),
            "a-very-long-name-of-a-l\u{2026}"
        );
        assert_eq!(
            labels(Path::new("x/run.log"), Path::new("y/run.log")),
            ("x/run".into(), "y/run".into())
        );
        assert_eq!(
            labels(Path::new("run.log"), Path::new("run.log")),
            ("A run".into(), "B run".into())
        );
        let mut r = Run {
            platform: "linux,dummy-virt".into(),
            midr: "0x410fd083".into(),
            emulated: true,
            ..Run::default()
        };
        assert_eq!(
            describe(&r),
            "linux,dummy-virt, Cortex-A72 (MIDR 0x410fd083), emulated"
        );
        r.midr = "0x12345678".into();
        assert_eq!(cpu(&r), "MIDR 0x12345678");
        assert_eq!(cpu(&Run::default()), "unknown CPU");
    }

    #[test]
    fn verdicts_that_changed() {
        let verdict = |name: &str, status: &str| crate::read::model::Verdict {
            name: name.into(),
            status: status.into(),
            evidence: vec![],
            why: format!("{name} is {status}"),
            core_note: None,
        };
        let mut a = Run::default();
        let mut b = Run::default();
        assert_eq!(verdict_table(&a, &b), "");
        a.verdicts = vec![
            verdict("caches-on", "pass"),
            verdict("clock", "warn"),
            verdict("uncached", "pass"),
        ];
        b.verdicts = vec![
            verdict("clock", "warn"),
            verdict("caches-on", "fail"),
            verdict("smp-config", "pass"),
        ];
        let c = verdict_changes(&a, &b);
        let seen: Vec<_> = c
            .iter()
            .map(|c| {
                (
                    c.name.as_str(),
                    c.a.as_deref(),
                    c.b.as_deref(),
                    c.why.as_str(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                ("caches-on", Some("pass"), Some("fail"), "caches-on is fail"),
                ("uncached", Some("pass"), None, "uncached is pass"),
                ("smp-config", None, Some("pass"), "smp-config is pass"),
            ]
        );
        let t = verdict_table(&a, &b);
        assert_eq!(
            t.lines().collect::<Vec<_>>(),
            [
                "verdicts that changed (3 of them):",
                "  caches-on   pass -> fail  caches-on is fail",
                "  uncached    pass -> none  uncached is pass",
                "  smp-config  none -> pass  smp-config is pass",
            ]
        );
        assert_eq!(
            verdict_table(&a, &a),
            "verdicts: none changed (3 in A, 3 in B)\n"
        );
    }

    #[test]
    fn loaded_latency_by_the_ratio() {
        let point = |memtype: &str, cores: u64, ratio: f64| LoadedLatency {
            memtype: memtype.into(),
            kernel: "read-ldp".into(),
            cores,
            bytes_per_core: 1 << 20,
            chase_memtype: "normal-wb".into(),
            chase_granule: "2M".into(),
            chase_bytes: 8 << 20,
            loads: 131072,
            idle_ns: 100.0,
            loaded_ns: 100.0 * ratio,
            ratio,
            stream_mbps: 3000,
            reps: 3,
        };
        let a = Run {
            loaded_latency: vec![
                point("normal-wb", 4, 1.20),
                point("normal-nc", 4, 1.20),
                point("device-ngnre", 4, 2.00),
                point("device-gre", 4, 1.50),
            ],
            ..Run::default()
        };
        let b = Run {
            loaded_latency: vec![
                // 1.22 / 1.20: 1.7 %, within 5 %.
                point("normal-wb", 4, 1.22),
                // 1.30 / 1.20: 8.3 % worse.
                point("normal-nc", 4, 1.30),
                // 1.50 / 2.00: 25 % better.
                point("device-ngnre", 4, 1.50),
                // Another core count: not the same point.
                point("device-gre", 2, 1.10),
            ],
            ..Run::default()
        };
        let c = loaded_changes(&a, &b);
        let seen: Vec<_> = c.iter().map(|c| (c.memtype.as_str(), c.better())).collect();
        assert_eq!(
            seen,
            [
                ("normal-wb", "same"),
                ("normal-nc", "A"),
                ("device-ngnre", "B")
            ]
        );
        assert!((c[2].change() - 0.75).abs() < 1e-12);
        let t = loaded_table(&a, &b);
        assert!(t.contains("counts when |B/A - 1| > 5 %"), "{t}");
        let words: Vec<&str> = t.lines().nth(4).unwrap().split_whitespace().collect();
        assert_eq!(
            words,
            [
                "read-ldp",
                "device-ngnre",
                "4",
                "100.00/200.00",
                "100.00/150.00",
                "2.000x",
                "1.500x",
                "0.750x",
                "B",
                "(lower",
                "ratio",
                "is",
                "better)"
            ],
            "{t}"
        );
        let csv = loaded_csv(&c);
        assert_eq!(
            csv.lines().nth(3),
            Some("read-ldp,device-ngnre,4,100,200,2,100,150,1.5,0.75,B,5")
        );
        // Nothing in common: one line; neither has points: nothing.
        let other = Run {
            loaded_latency: vec![point("device-gre", 2, 1.1)],
            ..Run::default()
        };
        assert_eq!(
            loaded_table(&a, &other),
            "loaded latency: no point in common (same streams' kernel, memory type and cores; 4 in A, 1 in B)\n"
        );
        assert_eq!(loaded_table(&Run::default(), &Run::default()), "");
    }

    #[test]
    fn per_kernel_summary() {
        let a = noisy_run(1, 1.0, |_, _, _| false, None);
        let mut b = noisy_run(
            2,
            1.0,
            |_, _, _| false,
            Some(("read-ldp", "normal-nc", 1.25)),
        );
        for m in &mut b.measurements {
            if (m.kernel.as_str(), m.memtype.as_str()) == ("write-stp", "device-gre") {
                (m.best, m.median) = (m.best * 0.75, m.median * 0.75);
            }
        }
        let s = summary(&changes(&a, &b));
        assert_eq!(s.len(), KERNELS.len());
        // Kernels in the order of the biggest change first: 0.75x before 1.25x.
        let row = |s: &KernelSummary| (s.kernel.clone(), s.points, s.b_better, s.b_worse);
        assert_eq!(row(&s[0]), ("write-stp".into(), 96, 0, 12));
        assert_eq!(row(&s[1]), ("read-ldp".into(), 96, 12, 0));
        assert!(s[2..].iter().all(|s| (s.b_better, s.b_worse) == (0, 0)));
        // 12 of 96 points 1.25x, the rest within 2 % noise.
        assert!(
            (s[1].geomean.ln() - 1.25f64.ln() / 8.0).abs() < 0.01,
            "{}",
            s[1].geomean
        );
        let t = summary_table(&s);
        assert!(t.contains("3 adjacent sizes agreeing"), "{t}");
        assert!(t.lines().nth(2).unwrap().starts_with("write-stp"), "{t}");
    }
}
