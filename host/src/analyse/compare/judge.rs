//! The rule (the module's steps 1 to 5): each point measured in both runs, judged against the
//! points measured with it and the pair's own noise.

use crate::read::model::{self, distinct, Measurement, Run, Unit};
use mairbench_core::memtype::{self, Class};
use std::collections::BTreeMap;

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

pub(super) fn median(mut v: Vec<f64>) -> f64 {
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
pub(super) fn class_of(series: &str) -> u8 {
    match memtype::by_any_name(model::series_memtype(series)).map(|t| t.class()) {
        Some(Class::Device) => 1,
        Some(_) => 0,
        None => 2,
    }
}

/// Judges `changes` by the module's rule: sets each one's references, threshold, beyond and
/// significant.
pub fn judge(changes: &mut [Change]) {
    let global = median(changes.iter().map(|c| c.ratio.ln()).collect());
    set_references(changes, global);
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
    for c in changes.iter_mut() {
        let moved = SHIFT_SHARE * (c.reference.ln() - global).abs();
        let t = floor_of(&c.kernel).max(spread(c.a, c.a_median) + spread(c.b, c.b_median)) + moved;
        c.threshold_pct = t.exp_m1() * 100.0;
        c.beyond = direction(diffs(c), t);
    }
    mark_significant(changes, &floor_of);
}

/// Step 2: each point's references, per kernel and size, over its class and over all types
/// (`global`, the overall factor in ln, for a group of fewer than [`MIN_GROUP`]).
fn set_references(changes: &mut [Change], global: f64) {
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
}

/// The four differences of step 4, in ln: B/A of the best values and of the medians, each
/// from both references.
fn diffs(c: &Change) -> [f64; 4] {
    let (rb, rm) = (c.ratio.ln(), (c.b_median / c.a_median).ln());
    let (r, all) = (c.reference.ln(), c.reference_all.ln());
    [rb - r, rm - r, rb - all, rm - all]
}

/// +1 when all of `d` are above `t`, -1 when all are below `-t`, else 0.
fn direction(d: [f64; 4], t: f64) -> i8 {
    if d.iter().all(|x| *x > t) {
        1
    } else if d.iter().all(|x| *x < -t) {
        -1
    } else {
        0
    }
}

/// Step 5, per series in size order: a point beyond its threshold is significant when
/// [`RUN_SIZES`] adjacent sizes agree (all of a shorter series), or when the series as a whole
/// moved beyond [`SERIES_TIMES`] x its kernel's floor (`floor_of`, in ln) in its direction.
fn mark_significant(changes: &mut [Change], floor_of: &dyn Fn(&str) -> f64) {
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

#[cfg(test)]
mod tests {
    use super::super::testing::{jitter, noisy_run, sweep};
    use super::*;
    use crate::read::model::PAGES;

    /// The significant points, as `kernel memtype size`.
    fn flagged(c: &[Change]) -> Vec<String> {
        c.iter()
            .filter(|c| c.significant())
            .map(|c| format!("{} {} {}", c.kernel, c.memtype, c.size))
            .collect()
    }

    const NONE: [String; 0] = [];

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

    /// A `latency` point of `memtype` on `granule` at `size` (cv 0, one repetition).
    fn at(memtype: &str, granule: &str, size: u64, best: f64) -> Measurement {
        Measurement {
            memtype: memtype.into(),
            kernel: "latency".into(),
            granule: granule.into(),
            size,
            unit: Unit::NsPerLoad,
            best,
            median: best,
            cv_pct: 0.0,
            reps: 1,
            pmu: None,
            start: None,
            line_state: None,
        }
    }

    #[test]
    fn only_points_of_one_granule_are_compared() {
        let new = Run {
            measurements: vec![
                at("normal-wb", "2M", 4096, 2.0),
                at("normal-nc", "2M", 4096, 3.0),
                at("normal-wb", "4K", 4096, 4.0),
            ],
            ..Run::default()
        };
        // An old log (latency on pages, no granule field): only its pages are compared.
        let old = Run {
            measurements: vec![
                at("normal-wb", PAGES, 4096, 8.0),
                at("normal-nc", PAGES, 4096, 8.0),
            ],
            ..Run::default()
        };
        let c = changes(&old, &new);
        assert_eq!(c.len(), 1, "{c:?}");
        assert_eq!(c[0].memtype, "normal-wb (4K)");
        assert_eq!(c[0].ratio, 0.5);
    }
}
