//! Two runs side by side (`cargo host compare`): per (kernel, memory type, size) the ratio B/A of the best values,
//! the biggest changes first, and per kernel a summary.
//!
//! Two runs of one image on one machine differ everywhere a little, and under QEMU on a
//! loaded host some points by 1.5x or more: the host takes the CPU away for a while, and the
//! points measured then are slow. A change is therefore significant only when the pair's own
//! noise cannot explain it ([`judge()`]):
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
//!
//! [`judge`](mod@judge) holds the rule, [`summary`](mod@summary) what it says per kernel and per class, [`text`] the
//! tables and `compare.csv`, [`loaded`] the loaded-latency points, [`verdicts`] the verdicts
//! that changed, [`names`] how each run is named in titles.

pub mod judge;
pub mod loaded;
pub mod names;
pub mod summary;
#[cfg(test)]
mod testing;
pub mod text;
pub mod verdicts;

pub use judge::{
    changes, judge, kernel_noise, overall, Change, Overall, KERNEL_NOISE_TIMES, MIN_CHANGE_PCT,
    MIN_GROUP, NOISE_TIMES, RUN_SIZES, SERIES_TIMES, SHIFT_SHARE,
};
pub use loaded::{loaded_changes, loaded_csv, loaded_table, LoadedChange};
pub use names::{arches, cpu, describe, labels, short_label};
pub use summary::{class_shifts, summary, ClassShift, KernelSummary, CLASS_MIN_PCT};
pub use text::{
    class_shift_table, common_kernels, csv, moved_note, overall_line, summary_table, table,
};
pub use verdicts::{verdict_changes, verdict_table, VerdictChange};
