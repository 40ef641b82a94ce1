//! What the judged points say per kernel (the summary, shared shifts, a kernel that moved as
//! a whole) and per class (the module's step 6: a whole class that moved against the other).

use super::judge::KERNEL_NOISE_TIMES;
use super::judge::{class_of, kernel_noise, median, overall, Change, MIN_GROUP, RUN_SIZES};
use crate::read::model::{distinct, Unit};

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
    /// together away from the overall factor by more than [`Overall::threshold_pct`](super::judge::Overall::threshold_pct): a shift
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

#[cfg(test)]
mod tests {
    use super::super::judge::changes;
    use super::super::testing::{jitter, noisy_run};
    use super::*;
    use mairbench_core::memtype;

    /// The significant points, as `kernel memtype size`.
    fn flagged(c: &[Change]) -> Vec<String> {
        c.iter()
            .filter(|c| c.significant())
            .map(|c| format!("{} {} {}", c.kernel, c.memtype, c.size))
            .collect()
    }

    const NONE: [String; 0] = [];

    #[test]
    fn a_class_the_host_slowed_together_is_not_a_finding() {
        // As seen under QEMU on a loaded host: read-ldp's Device types at 8 KiB - 256 KiB
        // all about 2.1x slower in B, scattered +-8 % among themselves.
        let a = noisy_run(1, 1.0, |_, _, _| false, None);
        let mut b = noisy_run(2, 1.0, |_, _, _| false, None);
        for m in &mut b.measurements {
            let s = m.size.trailing_zeros() - 12;
            let t = memtype::by_any_name(&m.memtype).unwrap().index;
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
}
