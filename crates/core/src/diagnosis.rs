//! A Linux twin source diagnosed against the heap (`anon`) from the twin's own figures: no
//! firmware log of the board needed.
//!
//! Most users of a board have Linux on it and no bare-metal run. The twin times every source
//! next to `anon`, the process heap, which Linux maps as Normal write-back: how many times
//! slower a source reads and writes than `anon` tells its memory type's class. The public
//! report "Performance Anomaly Investigation" is the case this names: a dma-buf whose
//! `ldp` reads ran about ten times slower than heap memory while its `stp` writes looked
//! fine, because the buffer was mapped uncached and the write buffer hid that on writes.
//!
//! # Rule
//! - **Figures.** For reads, writes and copies, at every working set both `anon` and the
//!   source measured ([`Series`]): anon's best MB/s over the source's, in thousandths
//!   ([`Slower::milli`], 1000 = the same speed), and the spread of both: how far each
//!   figure's median sample is below its best, added, in tenths of a percent. (Not the
//!   samples' cv: one sample a busy host delayed makes a cv of 100 % while best and median
//!   stay put.)
//! - **Slow**: a working set whose figure is at least [`SLOW_MILLI`] (3×) slower once its
//!   spread is taken off. **Like anon**: within [`LIKE_MILLI`] (1.5×) either way.
//! - **A direction is slow (like anon)** when its working sets are, all but a quarter of them
//!   ([`tolerated`]: one of three to seven, two of eight to eleven, ...; none of one or
//!   two): one slow point of `anon` (a busy host, under QEMU) does not flip a verdict that
//!   every other working set gives, while a difference at several working sets (a cliff
//!   past a cache) is not waved away. 3× is well inside what an uncached mapping costs (the
//!   report's ≈ 10×) and well outside how far two cached mappings of DRAM differ.
//! - [`Finding`]: slow reads with writes like anon are the report's case, an uncached read
//!   path (Device or Non-cacheable memory); slow both ways is uncached memory without
//!   write combining or gathering helping; slow writes only is a mapping whose writes are
//!   not cached (write-through, or no write-allocate); all alike is cached; anything else is
//!   named as between, with its figures, and not labelled.
//! - The sentence quotes each direction's median over its working sets and the range from
//!   the smallest to the largest; the rows add the figure at an L1-sized, an L2-sized and a
//!   DRAM-sized working set ([`levels`]).
//! - **Missing working sets** ([`Missing`]): on a machine whose caches are known, a level
//!   without a working set is named, with the `mairbench.sizes=` (and, past the twin's
//!   64 MiB buffer, `mairbench.buffer=`) that gives it; without cache sizes only a
//!   DRAM-sized one is asked for ([`UNKNOWN_DRAM`]); under emulation none (caches are not
//!   modelled, so no working set reaches anything but the emulator's memory).
//! - Copies are shown, not judged: a copy reads one buffer and writes another, which the
//!   read and write figures already separate.
//!
//! Under emulation (QEMU's TCG) caches are not modelled: Device memory's slow path shows,
//! Non-cacheable memory times like write-back ([`EMULATED`]).

use core::fmt;

use crate::format::{Bytes, Decimal, ShortBytes};
use crate::sweep::MAX_SIZES;
use crate::system_cache::{self, Curve};

/// Slower than anon by at least this many thousandths (3×), spread taken off: slow.
pub const SLOW_MILLI: u64 = 3000;

/// Within this many thousandths of anon either way (1.5×): times like anon.
pub const LIKE_MILLI: u64 = 1500;

/// The twin's largest mapping without `mairbench.buffer=` (64 MiB): a working set beyond it
/// needs that option too.
pub const TWIN_BUFFER: u64 = 64 << 20;

/// What an emulated run can and cannot show, said under the summary.
pub const EMULATED: &str = "emulated: QEMU models no caches; Device memory's slow path \
shows, Non-cacheable memory times like write-back, so \"times like anon\" does not prove \
cached here";

/// How many times slower than anon one figure is.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Slower {
    /// anon's best MB/s over the source's, in thousandths: 1000 the same, 10000 ten times
    /// slower, 500 twice as fast.
    pub milli: u64,
    /// The two figures' spread (best over median, less one, added), in tenths of a percent.
    pub spread_permille: u64,
}

impl Slower {
    /// The figure from anon's and the source's best and median MB/s, as `(best, median)`;
    /// none when either best is 0 (nothing measured).
    pub fn of(anon: (u64, u64), source: (u64, u64)) -> Option<Slower> {
        let (anon_mbps, source_mbps) = (anon.0, source.0);
        let (anon_cv, source_cv) = (spread(anon), spread(source));
        let milli = u128::from(anon_mbps)
            .checked_mul(1000)?
            .checked_div(u128::from(source_mbps))?;
        (anon_mbps > 0).then_some(Slower {
            milli: u64::try_from(milli).unwrap_or(u64::MAX),
            spread_permille: anon_cv.saturating_add(source_cv),
        })
    }

    /// The figure with its spread taken off (towards 1×, never past it).
    fn discounted(self) -> u64 {
        let kept = u128::from(self.milli)
            .saturating_mul(1000)
            .checked_div(u128::from(self.spread_permille.saturating_add(1000)))
            .unwrap_or(0);
        u64::try_from(kept)
            .unwrap_or(u64::MAX)
            .max(1000.min(self.milli))
    }

    /// How far from anon either way, in thousandths (≥ 1000).
    fn apart(self) -> u64 {
        if self.milli >= 1000 {
            self.milli
        } else {
            1_000_000u64.checked_div(self.milli).unwrap_or(u64::MAX)
        }
    }

    /// `11×`, `1.3×` (one decimal below 10×), or `2.0× faster` for a faster figure.
    fn times(self) -> impl fmt::Display {
        Times(self.milli)
    }
}

/// How far a median MB/s is below its best, in tenths of a percent of the median (0 when the
/// median is 0 or above the best).
fn spread((best, median): (u64, u64)) -> u64 {
    let over = u128::from(best.saturating_sub(median)).saturating_mul(1000);
    over.checked_div(u128::from(median))
        .map_or(0, |v| u64::try_from(v).unwrap_or(u64::MAX))
}

/// A ratio in thousandths printed as `11×` / `1.3×` / `0.5×`.
struct Times(u64);

impl Times {
    /// The ratio as printed, in thousandths: whole from 10×, else to a tenth.
    fn shown(&self) -> u64 {
        if self.0 >= 10_000 {
            (self.0.saturating_add(500) / 1000).saturating_mul(1000)
        } else {
            (self.0.saturating_add(50) / 100).saturating_mul(100)
        }
    }
}

impl fmt::Display for Times {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 >= 10_000 {
            write!(f, "{}×", self.shown() / 1000)
        } else {
            write!(
                f,
                "{}×",
                Decimal {
                    scaled: self.shown() / 100,
                    places: 1
                }
            )
        }
    }
}

/// A range of ratios in thousandths: `11× to 14×`, or `1.0× at each` when both print alike.
struct Span(Slower, Slower);

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (low, high) = (Times(self.0.milli), Times(self.1.milli));
        if low.shown() == high.shown() {
            write!(f, "{low} at each")
        } else {
            write!(f, "{low} to {high}")
        }
    }
}

/// A ratio in thousandths as `3.5× slower` or, below 1000, `1.7× faster`.
struct Versus(u64);

impl fmt::Display for Versus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            0 => f.write_str("faster beyond measure"),
            m if m >= 1000 => write!(f, "{} slower", Times(m)),
            m => write!(
                f,
                "{} faster",
                Times(1_000_000u64.checked_div(m).unwrap_or(0))
            ),
        }
    }
}

/// The three working-set levels of the summary.
pub const LEVELS: [&str; 3] = ["L1-sized", "L2-sized", "DRAM-sized"];

/// The working sets of the summary, one per [`LEVELS`] entry, from the sweep's `sizes`
/// (ascending) and the data caches' sizes in bytes, innermost first: the largest size ≤ half
/// the first cache, the largest size ≤ half the second (when there is one, and above the
/// first pick), and the smallest size ≥ [`DRAM_TIMES`](crate::verdict::DRAM_TIMES) × the
/// last. Without cache sizes: the smallest size, none, and the largest size when it is at
/// least [`UNKNOWN_DRAM`] (64 MiB, beyond the last-level caches of the cores this tool
/// meets).
pub fn levels(sizes: &[u64], caches: &[u64]) -> [Option<u64>; 3] {
    let l1 = crate::verdict::l1_set_of(sizes, caches.iter().copied());
    if caches.is_empty() {
        let last = sizes.last().copied().filter(|&s| s >= UNKNOWN_DRAM);
        return [l1, None, last];
    }
    let l2 = caches
        .get(1)
        .and_then(|&c| sizes.iter().rev().copied().find(|&s| s <= c / 2))
        .filter(|&s| Some(s) > l1);
    let bound = crate::verdict::dram_bound(caches.iter().copied());
    let dram = sizes.iter().copied().find(|&s| s >= bound);
    [l1, l2, dram]
}

/// The smallest working set taken as DRAM-sized when the caches' sizes are unknown.
pub const UNKNOWN_DRAM: u64 = 64 << 20;

/// The most data and unified cache levels the twin lists ([`Caches`]).
pub const MAX_CACHES: usize = 8;

/// The caches the summary's levels are judged with, innermost first: those Linux lists
/// (the twin reads `/sys/devices/system/cpu/cpu0/cache`) and, past them, the system cache
/// the reference's latency curve shows ([`system_cache::Finding::system_cache`]), so that the DRAM-sized
/// working set lies at 4× that cache, as the firmware's DRAM point does: 4× the last listed
/// level can still be a system cache's hit (Arm CMN's system level cache, a vendor's
/// last-level cache in front of DRAM).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caches {
    sizes: [u64; MAX_CACHES + 1],
    len: usize,
}

impl Caches {
    /// The first [`MAX_CACHES`] of `listed` (sizes in bytes, innermost first; 0s skipped)
    /// and the system cache of `finding`, when it found one.
    pub fn new(listed: &[u64], finding: &system_cache::Finding) -> Caches {
        let mut c = Caches {
            sizes: [0; MAX_CACHES + 1],
            len: 0,
        };
        let listed = listed.iter().copied().filter(|&s| s > 0).take(MAX_CACHES);
        for size in listed.chain(finding.system_cache().map(|sc| sc.size)) {
            if let Some(slot) = c.sizes.get_mut(c.len) {
                *slot = size;
                c.len = c.len.saturating_add(1);
            }
        }
        c
    }

    /// The sizes, innermost first.
    pub fn as_slice(&self) -> &[u64] {
        self.sizes.get(..self.len).unwrap_or(&[])
    }
}

/// What the reference's latency curve (`latency` best per working set of `sizes`, hundredths
/// of a ns; none where not measured) shows past the last of the `listed` caches (the twin's
/// `system-cache` line and record); `emulated`: not looked at.
pub fn reference_finding(
    sizes: &[u64],
    latency: &[Option<u64>],
    listed: &[u64],
    emulated: bool,
) -> system_cache::Finding {
    let curve = Curve::new(
        sizes
            .iter()
            .zip(latency)
            .filter_map(|(&size, ns)| ns.map(|ns| (size, ns))),
    );
    let levels = listed.iter().filter(|&&s| s > 0);
    let last = levels.clone().next_back().map(|&size| {
        let level = u8::try_from(levels.count()).unwrap_or(u8::MAX);
        (level, size)
    });
    system_cache::Finding::from_curve(&curve, last, emulated)
}

/// One direction's figures: one per working set both anon and the source measured,
/// ascending by size, up to [`MAX_SIZES`] (a sweep's most).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Series {
    points: [(u64, Slower); MAX_SIZES],
    n: usize,
}

impl Series {
    /// The figures of `points` (size, figure) whose sizes ascend, up to [`MAX_SIZES`]; a
    /// point whose figure is `None` (not measured by both) is left out.
    pub fn of(points: impl IntoIterator<Item = (u64, Option<Slower>)>) -> Series {
        let mut series = Series::default();
        for (size, s) in points {
            if let Some(s) = s {
                series.push(size, s);
            }
        }
        series
    }

    /// Adds the figure at `size` if it is above the last one's size and there is room;
    /// whether it was added.
    pub fn push(&mut self, size: u64, s: Slower) -> bool {
        if self.sizes().last().is_some_and(|last| last >= size) {
            return false;
        }
        match self.points.get_mut(self.n) {
            Some(slot) => {
                *slot = (size, s);
                self.n = self.n.saturating_add(1);
                true
            }
            None => false,
        }
    }

    /// The figures, ascending by size.
    pub fn points(&self) -> &[(u64, Slower)] {
        self.points.get(..self.n).unwrap_or(&[])
    }

    /// The working sets, ascending.
    pub fn sizes(&self) -> impl DoubleEndedIterator<Item = u64> + '_ {
        self.points().iter().map(|&(size, _)| size)
    }

    /// The figures alone.
    fn figures(&self) -> impl Iterator<Item = Slower> + '_ {
        self.points().iter().map(|&(_, s)| s)
    }

    /// How many working sets.
    pub fn len(&self) -> usize {
        self.points().len()
    }

    /// Whether it has none.
    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// The figure at `size`, if measured.
    pub fn at(&self, size: u64) -> Option<Slower> {
        self.points()
            .iter()
            .find(|&&(s, _)| s == size)
            .map(|&(_, figure)| figure)
    }

    /// The median figure (the lower middle one of an even count), by how many times slower.
    pub fn median(&self) -> Option<Slower> {
        let mut sorted = self.points;
        let sorted = sorted.get_mut(..self.n)?;
        sorted.sort_unstable_by_key(|&(_, s)| s.milli);
        sorted
            .get(self.n.saturating_sub(1) / 2)
            .map(|&(_, figure)| figure)
    }

    /// The fastest and the slowest figure, by how many times slower.
    fn range(&self) -> Option<(Slower, Slower)> {
        let low = self.figures().min_by_key(|s| s.milli)?;
        let high = self.figures().max_by_key(|s| s.milli)?;
        Some((low, high))
    }

    /// Whether `test` holds at all its working sets but [`tolerated`] ones; none without a
    /// working set.
    fn holds(&self, test: impl Fn(Slower) -> bool) -> Option<bool> {
        let n = self.len();
        let passing = self.figures().filter(|&s| test(s)).count();
        (n >= 1).then(|| passing.saturating_add(tolerated(n)) >= n)
    }

    /// The farthest from anon, either way, of the figures that pass `test`.
    fn farthest(&self, test: impl Fn(Slower) -> bool) -> Option<Slower> {
        self.figures()
            .filter(|&s| test(s))
            .max_by_key(|&s| s.apart())
    }
}

/// How many of `n` working sets may disagree with a direction's verdict: a quarter, at least
/// one from three (so one slow point among three or more never flips it), none of one or two
/// (which cannot tell a stray point from the rule).
pub fn tolerated(n: usize) -> usize {
    if n >= 3 {
        (n / 4).max(1)
    } else {
        0
    }
}

/// What the diagnosis knows of the run besides a source's figures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sweep<'a> {
    /// Every working set the run measured, ascending (any source's).
    pub sizes: &'a [u64],
    /// The data and unified caches' sizes in bytes, innermost first; empty when unknown.
    pub caches: &'a [u64],
    /// Emulated (QEMU's TCG): caches are not modelled, so no working set is missing.
    pub emulated: bool,
}

/// One source's figures: every working set's, and the [`LEVELS`]' working sets for its rows.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Figures {
    /// The working set of each level, in bytes (none: the sweep has no such size).
    pub sizes: [Option<u64>; 3],
    /// Reads (`read-ldp`).
    pub read: Series,
    /// Writes (`write-stp`).
    pub write: Series,
    /// Copies: shown, not judged.
    pub copy: Series,
    /// The levels the source has no working set of, and how to get them.
    pub missing: Missing,
}

impl Figures {
    /// A source's figures in the run `sweep`: the levels ([`levels`]) and what is missing
    /// ([`Missing::of`]) from it.
    pub fn new(sweep: &Sweep<'_>, read: Series, write: Series, copy: Series) -> Figures {
        Figures {
            sizes: levels(sweep.sizes, sweep.caches),
            read,
            write,
            copy,
            missing: Missing::of(sweep, &read, &write),
        }
    }
}

/// The levels ([`LEVELS`]) a source has no read or write figure of, where the caches say
/// what the level is, and the `mairbench.sizes=` range that gives them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Missing {
    /// Per level: no working set of it measured.
    pub levels: [bool; 3],
    /// The sweep that has them, `(lo, hi)` for `mairbench.sizes=lo-hi`; none when the run
    /// swept them and the source's mapping is what holds none.
    pub sizes: Option<(u64, u64)>,
}

impl Missing {
    /// What the source whose figures are `read` and `write` misses of `sweep`: per level
    /// whose size the caches tell ([`wanted`]), whether neither direction has a working set
    /// of it; none under emulation.
    pub fn of(sweep: &Sweep<'_>, read: &Series, write: &Series) -> Missing {
        if sweep.emulated {
            return Missing::default();
        }
        let want = wanted(sweep.caches);
        let measured = |level: usize| {
            read.sizes()
                .chain(write.sizes())
                .any(|s| in_level(level, s, sweep.caches))
        };
        let mut levels = [false; 3];
        for ((level, missing), w) in levels.iter_mut().enumerate().zip(want) {
            *missing = w.is_some() && !measured(level);
        }
        if levels == [false; 3] {
            return Missing::default();
        }
        let swept = levels.iter().enumerate().all(|(l, &missing)| {
            !missing || sweep.sizes.iter().any(|&s| in_level(l, s, sweep.caches))
        });
        let wanted_sizes = || {
            want.iter()
                .zip(levels)
                .filter(|&(_, m)| m)
                .flat_map(|(w, _)| *w)
        };
        let lo = wanted_sizes().chain(sweep.sizes.first().copied()).min();
        let hi = wanted_sizes().chain(sweep.sizes.last().copied()).max();
        Missing {
            levels,
            sizes: lo.zip(hi).filter(|_| !swept),
        }
    }

    /// Whether a level is missing.
    pub fn any(&self) -> bool {
        self.levels.contains(&true)
    }
}

/// The working set that would stand for each level, where the caches tell it: half the L1
/// and half the L2 (rounded down to a power of two), and [`crate::verdict::dram_bound`]
/// (rounded up); without cache sizes only the DRAM level, at [`UNKNOWN_DRAM`].
pub fn wanted(caches: &[u64]) -> [Option<u64>; 3] {
    let Some(&l1) = caches.first() else {
        return [None, None, Some(UNKNOWN_DRAM)];
    };
    let pow2_below = |x: u64| x.checked_ilog2().and_then(|log| 1u64.checked_shl(log));
    let l1_set = pow2_below(l1 / 2).map(|s| s.max(4096));
    let l2_set = caches
        .get(1)
        .and_then(|&l2| pow2_below(l2 / 2))
        .filter(|&s| s > l1 / 2);
    let dram = crate::verdict::dram_bound(caches.iter().copied()).checked_next_power_of_two();
    [l1_set, l2_set, dram]
}

/// Whether the working set `size` is of `level` (0 L1, 1 L2, 2 DRAM) with these caches:
/// ≤ half the L1; above that and ≤ half the L2; ≥ [`crate::verdict::dram_bound`]. Without
/// cache sizes any is L1-sized, none L2-sized, and DRAM-sized from [`UNKNOWN_DRAM`].
fn in_level(level: usize, size: u64, caches: &[u64]) -> bool {
    let Some(&l1) = caches.first() else {
        return match level {
            0 => true,
            1 => false,
            _ => size >= UNKNOWN_DRAM,
        };
    };
    match level {
        0 => size <= l1 / 2,
        1 => caches
            .get(1)
            .is_some_and(|&l2| size > l1 / 2 && size <= l2 / 2),
        _ => size >= crate::verdict::dram_bound(caches.iter().copied()),
    }
}

impl fmt::Display for Missing {
    /// ` (no DRAM-sized working set measured: add it with mairbench.sizes=4K-8M)`, or
    /// nothing when none is missing.
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !self.any() {
            return Ok(());
        }
        out.write_str(" (no ")?;
        let mut first = true;
        for (name, _) in LEVELS.iter().zip(self.levels).filter(|&(_, m)| m) {
            if !first {
                out.write_str(" or ")?;
            }
            out.write_str(name)?;
            first = false;
        }
        out.write_str(" working set measured: ")?;
        match self.sizes {
            Some((lo, hi)) => {
                let them = if self.levels.iter().filter(|&&m| m).count() > 1 {
                    "them"
                } else {
                    "it"
                };
                write!(
                    out,
                    "add {them} with mairbench.sizes={}-{}",
                    ShortBytes(lo),
                    ShortBytes(hi)
                )?;
                if hi > TWIN_BUFFER {
                    write!(out, " mairbench.buffer={}", ShortBytes(hi))?;
                }
                out.write_str(")")
            }
            None => out.write_str("the run swept one, the source's mapping holds none)"),
        }
    }
}

/// What a source's figures say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finding {
    /// Reads slow, writes like anon: an uncached read path, the dma-buf case.
    UncachedReads,
    /// Reads and writes slow: uncached both ways.
    UncachedBoth,
    /// Writes slow, reads like anon: writes not cached.
    UncachedWrites,
    /// Reads and writes like anon: cached.
    Cached,
    /// None of the above: figures between cached and uncached, not labelled.
    Between,
    /// No working set of reads or none of writes measured.
    TooFew,
}

/// A figure slow with its spread taken off.
fn slow(s: Slower) -> bool {
    s.discounted() >= SLOW_MILLI
}

/// A figure like anon's.
fn like(s: Slower) -> bool {
    s.apart() <= LIKE_MILLI
}

/// The [`Finding`] of `f`, from every working set of reads and of writes, all but
/// [`tolerated`] ones agreeing.
pub fn diagnose(f: &Figures) -> Finding {
    let (Some(read_slow), Some(write_slow)) = (f.read.holds(slow), f.write.holds(slow)) else {
        return Finding::TooFew;
    };
    let read_like = f.read.holds(like) == Some(true);
    let write_like = f.write.holds(like) == Some(true);
    match (read_slow, write_slow) {
        (true, true) => Finding::UncachedBoth,
        (true, false) if write_like => Finding::UncachedReads,
        (false, true) if read_like => Finding::UncachedWrites,
        (false, false) if read_like && write_like => Finding::Cached,
        _ => Finding::Between,
    }
}

impl Finding {
    /// Whether reads are the slow path (the summary names such sources as slow readers).
    pub fn slow_reader(self) -> bool {
        matches!(self, Finding::UncachedReads | Finding::UncachedBoth)
    }

    /// A short name for records and tables.
    pub fn name(self) -> &'static str {
        match self {
            Finding::UncachedReads => "uncached-reads",
            Finding::UncachedBoth => "uncached",
            Finding::UncachedWrites => "uncached-writes",
            Finding::Cached => "cached",
            Finding::Between => "between",
            Finding::TooFew => "too-few",
        }
    }
}

/// The one sentence of the summary for `f`, in the words of the dma-buf report: each
/// direction's median, then what the figures rest on (how many working sets, their range) and
/// what is missing ([`Missing`]).
pub struct Sentence<'f>(pub &'f Figures);

impl fmt::Display for Sentence<'_> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let f = self.0;
        let (read, write) = (f.read.median(), f.write.median());
        // How far the agreeing working sets are from anon, at most ("within").
        let (read_within, write_within) = (f.read.farthest(like), f.write.farthest(like));
        match (diagnose(f), read, write, read_within, write_within) {
            (Finding::UncachedReads, Some(r), _, _, Some(w)) => write!(
                out,
                "reads {} slower than anon while writes are within {}: an uncached read \
                 path (Device or Non-cacheable memory), as in the dma-buf case",
                r.times(),
                Times(w.apart())
            ),
            (Finding::UncachedBoth, Some(r), Some(w), _, _) => write!(
                out,
                "reads {} and writes {} slower than anon: uncached both ways (Device or \
                 Non-cacheable memory, writes not combined)",
                r.times(),
                w.times()
            ),
            (Finding::UncachedWrites, _, Some(w), Some(r), _) => write!(
                out,
                "writes {} slower than anon while reads are within {}: writes not cached \
                 (write-through, or no write-allocate)",
                w.times(),
                Times(r.apart())
            ),
            (Finding::Cached, _, _, Some(r), Some(w)) => write!(
                out,
                "times like anon (reads within {}, writes within {}): cached",
                Times(r.apart()),
                Times(w.apart())
            ),
            (Finding::Between, Some(r), Some(w), _, _) => write!(
                out,
                "reads {} and writes {} than anon: between cached and uncached, not labelled",
                Versus(r.milli),
                Versus(w.milli)
            ),
            _ => {
                return out.write_str(
                    "no read or no write measured next to anon at the same working sets: no \
                     diagnosis",
                )
            }
        }?;
        write!(out, "{}{}", Basis(f), f.missing)
    }
}

/// What a sentence rests on: ` (median of 5 working sets, 4 KiB to 64 KiB: reads 12× to
/// 14×, writes 1.0× to 1.1×)` (times slower; below 1.0×, faster), or ` (one working set,
/// 4 KiB)`.
struct Basis<'f>(&'f Figures);

impl fmt::Display for Basis<'_> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let f = self.0;
        let sizes = || f.read.sizes().chain(f.write.sizes());
        let (Some(lo), Some(hi)) = (sizes().min(), sizes().max()) else {
            return Ok(());
        };
        let n = f.read.len().max(f.write.len());
        if n == 1 {
            return write!(out, " (one working set, {})", Bytes(lo));
        }
        write!(
            out,
            " (median of {n} working sets, {} to {}",
            Bytes(lo),
            Bytes(hi)
        )?;
        let mut sep = ": ";
        for (name, series) in [("reads", &f.read), ("writes", &f.write)] {
            if let Some((low, high)) = series.range().filter(|_| series.len() > 1) {
                write!(out, "{sep}{name} {}", Span(low, high))?;
                sep = ", ";
            }
        }
        out.write_str(")")
    }
}

/// The summary's first line, naming the reference and the rule's thresholds (no newline).
pub struct Header<'n>(pub &'n str);

impl fmt::Display for Header<'_> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let base = self.0;
        write!(
            out,
            "diagnosis against {base} (times slower than {base}, best MB/s over best MB/s, \
             spread = each median's distance below its best, added; slow = {} or more with \
             the spread taken off, alike = within {} either way; judged at every working set \
             both measured, all but a quarter agreeing):",
            Times(SLOW_MILLI),
            Times(LIKE_MILLI)
        )
    }
}

/// One source's part of the summary: `  name: sentence`, then its read, write and copy
/// [`Row`]s, each line ended by a newline.
pub struct Block<'f> {
    /// The source's name.
    pub name: &'f str,
    /// Its figures.
    pub figures: &'f Figures,
}

impl fmt::Display for Block<'_> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let f = self.figures;
        writeln!(out, "  {}: {}", self.name, Sentence(f))?;
        for (name, series) in [("read", &f.read), ("write", &f.write), ("copy", &f.copy)] {
            let sizes = &f.sizes;
            writeln!(
                out,
                "    {}",
                Row {
                    name,
                    series,
                    sizes
                }
            )?;
        }
        Ok(())
    }
}

/// One row of the summary's figures: `read   L1-sized (16 KiB): 31× ±2.0 %  ...`, then the
/// median of every working set and the range.
pub struct Row<'f> {
    /// The direction's name (`read`, `write`, `copy`).
    pub name: &'static str,
    /// Its figures.
    pub series: &'f Series,
    /// The levels' working sets.
    pub sizes: &'f [Option<u64>; 3],
}

impl fmt::Display for Row<'_> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(out, "{:<5}", self.name)?;
        for (level, size) in LEVELS.iter().zip(self.sizes) {
            match size.and_then(|size| Some((size, self.series.at(size)?))) {
                Some((size, s)) => write!(
                    out,
                    "  {level} ({}): {} ±{} %",
                    Bytes(size),
                    s.times(),
                    Decimal {
                        scaled: s.spread_permille,
                        places: 1
                    }
                )?,
                None => write!(out, "  {level}: -")?,
            }
        }
        let s = self.series;
        if let (Some(m), Some((low, high)), true) = (s.median(), s.range(), s.len() > 1) {
            write!(
                out,
                "  all {} sizes: median {} ±{} %, {}",
                s.len(),
                m.times(),
                Decimal {
                    scaled: m.spread_permille,
                    places: 1
                },
                Span(low, high)
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::{String, ToString};
    use std::vec::Vec;

    const K: u64 = 1 << 10;
    const M: u64 = 1 << 20;

    fn s(milli: u64) -> Slower {
        Slower {
            milli,
            spread_permille: 20,
        }
    }

    /// A series of figures (thousandths) at `sizes`.
    fn series(sizes: &[u64], milli: &[u64]) -> Series {
        Series::of(
            sizes
                .iter()
                .zip(milli)
                .map(|(&size, &m)| (size, Some(s(m)))),
        )
    }

    /// A board whose caches are known: 32 KiB L1, 1 MiB L2 (the last level).
    const CACHES: [u64; 2] = [32 * K, M];
    /// Its L1-, L2- and DRAM-sized working sets.
    const SIZES: [u64; 3] = [16 * K, 256 * K, 64 * M];

    fn board(read: &[u64], write: &[u64], copy: &[u64]) -> Figures {
        let sweep = Sweep {
            sizes: &SIZES,
            caches: &CACHES,
            emulated: false,
        };
        Figures::new(
            &sweep,
            series(&SIZES, read),
            series(&SIZES, write),
            series(&SIZES, copy),
        )
    }

    /// The dma-buf report's board: reads about ten times slower than heap memory at every
    /// working set, writes as fast (the write buffer hides the uncached mapping).
    fn dma_buf_board() -> Figures {
        board(
            &[31_000, 18_000, 11_000],
            &[1_300, 1_100, 1_000],
            &[9_000, 8_000, 10_000],
        )
    }

    /// A healthy board's udmabuf (cached): within a few percent of anon, noise either way.
    fn healthy_board() -> Figures {
        board(
            &[1_020, 980, 1_100],
            &[1_000, 1_050, 940],
            &[1_010, 1_000, 1_020],
        )
    }

    /// The twin's default sweep, 4 KiB to 4 MiB: eleven working sets.
    fn default_sizes() -> Vec<u64> {
        (12..=22).map(|p| 1u64 << p).collect()
    }

    /// Under user-mode QEMU: no cache sizes, emulated, every default working set.
    fn qemu(read: &[u64], write: &[u64]) -> Figures {
        let sizes = default_sizes();
        let sweep = Sweep {
            sizes: &sizes,
            caches: &[],
            emulated: true,
        };
        Figures::new(
            &sweep,
            series(&sizes, read),
            series(&sizes, write),
            series(&sizes, read),
        )
    }

    #[test]
    fn the_dma_buf_case_is_an_uncached_read_path_in_the_reports_words() {
        let f = dma_buf_board();
        assert_eq!(diagnose(&f), Finding::UncachedReads);
        assert!(diagnose(&f).slow_reader());
        assert_eq!(
            Sentence(&f).to_string(),
            "reads 18× slower than anon while writes are within 1.3×: an uncached read path \
             (Device or Non-cacheable memory), as in the dma-buf case (median of 3 working \
             sets, 16 KiB to 64 MiB: reads 11× to 31×, writes 1.0× to 1.3×)"
        );
    }

    #[test]
    fn a_healthy_board_times_like_anon() {
        let f = healthy_board();
        assert_eq!(diagnose(&f), Finding::Cached);
        assert!(!diagnose(&f).slow_reader());
        assert!(
            Sentence(&f)
                .to_string()
                .starts_with("times like anon (reads within 1.1×, writes within 1.1×): cached"),
            "{}",
            Sentence(&f)
        );
    }

    #[test]
    fn one_slow_anon_sample_among_several_sizes_does_not_flip_the_verdict() {
        // QEMU's twin run of the issue: anon's one slow point at 4 KiB makes a Normal source
        // 1.6× faster there, every other working set like anon. One working set decided
        // the verdict ("between", and "cached" on a rerun); every one decides it now.
        let mut read = [1_000u64; 11];
        let write = [1_020u64; 11];
        read[0] = 620;
        let glitch = qemu(&read, &write);
        let rerun = qemu(&[1_000; 11], &write);
        assert_eq!(diagnose(&glitch), Finding::Cached, "{}", Sentence(&glitch));
        assert_eq!(diagnose(&rerun), Finding::Cached);
        let text = Sentence(&glitch).to_string();
        assert!(
            text.contains("median of 11 working sets, 4 KiB to 4 MiB"),
            "{text}"
        );
        // The stray point is shown, not hidden.
        assert!(text.contains("reads 0.6× to 1.0×"), "{text}");
        // A Device source stays slow with one fast point of anon's making it 7× there.
        let mut slow = [11_000u64; 11];
        slow[3] = 7_000;
        assert_eq!(diagnose(&qemu(&slow, &slow)), Finding::UncachedBoth);
        // Nor does a slow point of the source's own make a cached one "between".
        let mut once = [1_000u64; 11];
        once[10] = 3_400;
        assert_eq!(diagnose(&qemu(&once, &write)), Finding::Cached);
        // With three working sets, one stray point of three is still tolerated.
        let f = board(&[620, 1_000, 1_000], &[1_000; 3], &[1_000; 3]);
        assert_eq!(diagnose(&f), Finding::Cached);
    }

    #[test]
    fn a_difference_at_several_working_sets_is_not_waved_away() {
        // Slow at DRAM sizes only (four of eleven): a cliff, not a mapping.
        let mut read = [1_000u64; 11];
        for r in &mut read[7..] {
            *r = 3_500;
        }
        let f = qemu(&read, &[1_000; 11]);
        assert_eq!(diagnose(&f), Finding::Between);
        assert!(Sentence(&f).to_string().contains("not labelled"));
        // Of one or two working sets, none is tolerated.
        let two = |r: u64| {
            let sweep = Sweep {
                sizes: &[4 * K, 8 * K],
                caches: &[],
                emulated: true,
            };
            let pair = |a, b| Series::of([(4 * K, Some(s(a))), (8 * K, Some(s(b)))]);
            Figures::new(
                &sweep,
                pair(1_000, r),
                pair(1_000, 1_000),
                Series::default(),
            )
        };
        assert_eq!(diagnose(&two(1_000)), Finding::Cached);
        assert_eq!(diagnose(&two(1_700)), Finding::Between);
        assert_eq!(
            [1, 2, 3, 4, 7, 8, 11, 12, 24].map(tolerated),
            [0, 0, 1, 1, 1, 2, 2, 3, 6]
        );
    }

    #[test]
    fn device_memory_without_gathering_is_slow_both_ways() {
        let f = board(
            &[31_000, 18_000, 11_000],
            &[6_000, 5_500, 4_000],
            &[1_000; 3],
        );
        assert_eq!(diagnose(&f), Finding::UncachedBoth);
        assert!(diagnose(&f).slow_reader());
        assert!(Sentence(&f)
            .to_string()
            .starts_with("reads 18× and writes 5.5× slower"));
    }

    #[test]
    fn slow_writes_alone_are_writes_not_cached() {
        let f = board(&[1_020, 980, 1_100], &[17_000, 9_000, 3_500], &[1_000; 3]);
        assert_eq!(diagnose(&f), Finding::UncachedWrites);
        assert!(!diagnose(&f).slow_reader());
        assert!(Sentence(&f)
            .to_string()
            .contains("writes 9.0× slower than anon while reads are within 1.1×"));
    }

    #[test]
    fn a_middling_figure_is_between_not_a_label() {
        // 2× everywhere: neither like anon nor 3×.
        let f = board(&[2_000; 3], &[1_000, 1_050, 900], &[1_000; 3]);
        assert_eq!(diagnose(&f), Finding::Between);
        assert!(
            Sentence(&f)
                .to_string()
                .starts_with("reads 2.0× slower and writes 1.0× slower than anon: between"),
            "{}",
            Sentence(&f)
        );
        // A source faster than anon says so, not "0.5× slower".
        let f = board(&[500; 3], &[1_000; 3], &[1_000; 3]);
        assert_eq!(diagnose(&f), Finding::Between);
        assert!(
            Sentence(&f)
                .to_string()
                .starts_with("reads 2.0× faster and"),
            "{}",
            Sentence(&f)
        );
        assert_eq!(Versus(0).to_string(), "faster beyond measure");
    }

    #[test]
    fn the_spread_is_taken_off_before_calling_a_figure_slow() {
        let spread = |milli| Slower {
            milli,
            spread_permille: 100,
        };
        // 3.2× with a 10 % spread is 2.9× at worst: not slow; with two such of three, the
        // reads are not slow.
        let reads = |m| Series::of(SIZES.iter().map(|&size| (size, Some(spread(m)))));
        let mut f = dma_buf_board();
        f.read = reads(3_200);
        assert_eq!(diagnose(&f), Finding::Between);
        f.read = reads(3_400);
        assert_eq!(diagnose(&f), Finding::UncachedReads);
    }

    #[test]
    fn faster_figures_count_as_apart_too() {
        let f = board(&[1_000; 3], &[500, 500, 1_000], &[1_000; 3]);
        assert_eq!(diagnose(&f), Finding::Between);
        let f = board(&[1_000; 3], &[700, 1_000, 1_000], &[1_000; 3]);
        assert_eq!(diagnose(&f), Finding::Cached);
    }

    #[test]
    fn one_working_set_is_judged_and_said_none_is_too_few() {
        let mut f = dma_buf_board();
        f.write = Series::of([(64 * M, Some(s(1_000)))]);
        assert_eq!(diagnose(&f), Finding::UncachedReads);
        f.read = Series::of([(64 * M, Some(s(11_000)))]);
        assert!(
            Sentence(&f)
                .to_string()
                .ends_with("as in the dma-buf case (one working set, 64 MiB)"),
            "{}",
            Sentence(&f)
        );
        f.write = Series::default();
        assert_eq!(diagnose(&f), Finding::TooFew);
        assert!(Sentence(&f).to_string().starts_with("no read or no write"));
        assert_eq!(diagnose(&Figures::default()), Finding::TooFew);
    }

    #[test]
    fn no_advice_when_l1_l2_and_dram_sized_sets_were_measured() {
        for f in [dma_buf_board(), healthy_board()] {
            assert_eq!(f.missing, Missing::default());
            let text = Sentence(&f).to_string();
            assert!(!text.contains("mairbench."), "{text}");
            assert!(!text.contains("working set measured"), "{text}");
        }
        // The quick sweep (4 KiB, 256 KiB, 4 MiB) on a 1 MiB last level has all three.
        let quick = [4 * K, 256 * K, 4 * M];
        let sweep = Sweep {
            sizes: &quick,
            caches: &CACHES,
            emulated: false,
        };
        let r = series(&quick, &[1_000; 3]);
        assert_eq!(Missing::of(&sweep, &r, &r), Missing::default());
        // Under emulation nothing is asked for: its caches are not modelled.
        let f = qemu(&[1_000; 11], &[1_000; 11]);
        assert!(!f.missing.any());
        assert!(!Sentence(&f).to_string().contains("mairbench."));
    }

    /// A board whose Linux lists a 64 KiB L1 and a 1 MiB L2 and no more, with a 32 MiB system
    /// cache in front of DRAM (as Arm CMN's on a Neoverse server): anon's latency, hundredths
    /// of a ns, from 4 KiB to 256 MiB, flat from 2 MiB to 32 MiB, a step at 64 MiB.
    fn system_cache_board() -> (Vec<u64>, Vec<Option<u64>>) {
        let sizes: Vec<u64> = (12..=28).map(|log| 1u64 << log).collect();
        let ns = |size: u64| match size {
            s if s <= 32 * K => 150,
            s if s <= 512 * K => 550,
            s if s <= M => 900,
            s if s <= 32 * M => 3_000 + s / M,
            s if s <= 64 * M => 7_000,
            _ => 11_000,
        };
        let latency = sizes.iter().map(|&s| Some(ns(s))).collect();
        (sizes, latency)
    }

    #[test]
    fn the_twins_dram_level_lies_past_a_system_cache_its_curve_shows() {
        let listed = [64 * K, M];
        let (sizes, latency) = system_cache_board();
        let finding = reference_finding(&sizes, &latency, &listed, false);
        let found = finding
            .system_cache()
            .expect("the plateau ending at 32 MiB");
        assert_eq!((found.size, found.outside), (32 * M, 128 * M));
        let caches = Caches::new(&listed, &finding);
        assert_eq!(caches.as_slice(), [64 * K, M, 32 * M]);
        // 4x the system cache, not 4x the 1 MiB L2 (4 MiB, a system cache hit).
        assert_eq!(levels(&sizes, caches.as_slice())[2], Some(128 * M));
        assert_eq!(levels(&sizes, &listed)[2], Some(4 * M));
        // The twin's default sweep (4 KiB to 4 MiB) then lacks a DRAM-sized working set,
        // and the advice names the sizes past the system cache.
        let default: Vec<u64> = sizes.iter().copied().filter(|&s| s <= 4 * M).collect();
        let sweep = Sweep {
            sizes: &default,
            caches: caches.as_slice(),
            emulated: false,
        };
        let r = series(&default, &[1_000; 24]);
        assert_eq!(
            Missing::of(&sweep, &r, &r).to_string(),
            " (no DRAM-sized working set measured: add it with mairbench.sizes=4K-128M \
             mairbench.buffer=128M)"
        );
        // Under emulation, without a latency curve, or with no cache listed: nothing is
        // added, and the DRAM level stays where the listed caches put it.
        for finding in [
            reference_finding(&sizes, &latency, &listed, true),
            reference_finding(&sizes, &[None; 17], &listed, false),
            reference_finding(&sizes, &latency, &[], false),
        ] {
            assert_eq!(finding.system_cache(), None);
            assert_eq!(Caches::new(&listed, &finding).as_slice(), listed);
        }
        // The last listed level is level 2 (the line says "past L2").
        let flat = [Some(900); 17];
        let none = reference_finding(&sizes, &flat, &listed, false);
        assert_eq!((none.level, none.reported), (2, M));
    }

    #[test]
    fn missing_sizes_are_named_with_the_option_and_value_that_give_them() {
        let advice = |sizes: &[u64], caches: &[u64]| -> String {
            let sweep = Sweep {
                sizes,
                caches,
                emulated: false,
            };
            let r = series(sizes, &[1_000; 24]);
            Missing::of(&sweep, &r, &r).to_string()
        };
        // One working set on a known board: the L2- and the DRAM-sized ones (4× the 1 MiB
        // last level).
        assert_eq!(
            advice(&[4 * K], &CACHES),
            " (no L2-sized or DRAM-sized working set measured: add them with \
             mairbench.sizes=4K-4M)"
        );
        // 4 KiB to 64 KiB: 64 KiB is L2-sized; DRAM is not reached.
        let to_64k = [4 * K, 8 * K, 16 * K, 32 * K, 64 * K];
        assert_eq!(
            advice(&to_64k, &CACHES),
            " (no DRAM-sized working set measured: add it with mairbench.sizes=4K-4M)"
        );
        // A 32 MiB last level: 128 MiB, past the twin's default buffer.
        assert_eq!(
            advice(&default_sizes(), &[32 * K, M, 32 * M]),
            " (no DRAM-sized working set measured: add it with mairbench.sizes=4K-128M \
             mairbench.buffer=128M)"
        );
        // Starting above the L1: its half, 16 KiB.
        assert_eq!(
            advice(&[M, 4 * M], &CACHES),
            " (no L1-sized or L2-sized working set measured: add them with \
             mairbench.sizes=16K-4M)"
        );
        // Caches unknown (a board without cacheinfo), not emulated: DRAM from 64 MiB.
        assert_eq!(
            advice(&default_sizes(), &[]),
            " (no DRAM-sized working set measured: add it with mairbench.sizes=4K-64M)"
        );
        assert_eq!(advice(&[4 * K, 64 * M], &[]), "");
        // The run swept one; the source's 16 MiB mapping holds none.
        let run: Vec<u64> = (12..=26).map(|p| 1u64 << p).collect();
        let sweep = Sweep {
            sizes: &run,
            caches: &[32 * K, M, 8 * M],
            emulated: false,
        };
        let bar = series(&run[..13], &[11_000; 13]);
        let m = Missing::of(&sweep, &bar, &bar);
        assert_eq!((m.levels, m.sizes), ([false, false, true], None));
        assert!(
            m.to_string().contains("the source's mapping holds none"),
            "{m}"
        );
        // And the sentence carries the advice.
        let sweep = Sweep {
            sizes: &to_64k,
            caches: &CACHES,
            emulated: false,
        };
        let five = series(&to_64k, &[1_000; 5]);
        let f = Figures::new(&sweep, five, five, five);
        assert!(
            Sentence(&f).to_string().ends_with(
                "(median of 5 working sets, 4 KiB to 64 KiB: reads 1.0× at each, writes 1.0× \
                 at each) (no DRAM-sized working set measured: add it with \
                 mairbench.sizes=4K-4M)"
            ),
            "{}",
            Sentence(&f)
        );
    }

    #[test]
    fn wanted_sizes_follow_the_levels_rules() {
        assert_eq!(wanted(&CACHES), [Some(16 * K), Some(512 * K), Some(4 * M)]);
        // 48 KiB L1, 1.25 MiB L2, 3 MiB last level: powers of two inside the bounds.
        assert_eq!(
            wanted(&[48 * K, 1280 * K, 3 * M]),
            [Some(16 * K), Some(512 * K), Some(16 * M)]
        );
        assert_eq!(wanted(&[32 * K]), [Some(16 * K), None, Some(128 * K)]);
        assert_eq!(wanted(&[]), [None, None, Some(UNKNOWN_DRAM)]);
    }

    #[test]
    fn figures_from_speeds_never_divide_by_zero() {
        assert_eq!(Slower::of((22_000, 21_000), (0, 0)), None);
        assert_eq!(Slower::of((0, 0), (1_900, 1_800)), None);
        // 22,000 over 21,000 is 4.7 % (47); 1,900 over 1,800 is 5.5 % (55).
        let s = Slower::of((22_000, 21_000), (1_900, 1_800)).unwrap();
        assert_eq!((s.milli, s.spread_permille), (11_578, 102));
        assert_eq!(Times(s.milli).to_string(), "12×");
        assert_eq!(Slower::of((u64::MAX, 0), (1, 1)).unwrap().milli, u64::MAX);
        // A median of 0 or above the best adds nothing.
        assert_eq!(
            Slower::of((1_000, 0), (1_000, 2_000))
                .unwrap()
                .spread_permille,
            0
        );
    }

    #[test]
    fn series_keep_ascending_sizes_and_give_the_median() {
        let mut x = Series::default();
        assert!(x.push(8 * K, s(3_000)));
        assert!(!x.push(4 * K, s(1_000)), "not ascending");
        assert!(x.push(16 * K, s(1_000)));
        assert!(x.push(32 * K, s(2_000)));
        assert!(x.push(64 * K, s(9_000)));
        assert_eq!(x.len(), 4);
        // Even count: the lower middle.
        assert_eq!(x.median(), Some(s(2_000)));
        assert_eq!(x.at(16 * K), Some(s(1_000)));
        assert_eq!(x.at(4 * K), None);
        assert_eq!(Series::default().median(), None);
        let full = Series::of((0..30).map(|i| ((4 * K) << i, Some(s(1_000)))));
        assert_eq!(full.len(), MAX_SIZES);
        let gaps = Series::of([(4 * K, None), (8 * K, Some(s(1_000)))]);
        assert_eq!(gaps.len(), 1);
    }

    #[test]
    fn levels_follow_the_verdicts_rules_and_name_what_is_missing() {
        let sizes: Vec<u64> = (12..=26).map(|p| 1u64 << p).collect();
        // 32 KiB L1, 1 MiB L2: 16 KiB, 512 KiB, 4 MiB.
        assert_eq!(
            levels(&sizes, &[32 << 10, 1 << 20]),
            [Some(16 << 10), Some(512 << 10), Some(4 << 20)]
        );
        // L1 only: no L2-sized point; DRAM from it.
        assert_eq!(
            levels(&sizes, &[32 << 10]),
            [Some(16 << 10), None, Some(128 << 10)]
        );
        // Unknown caches: the smallest and (≥ 64 MiB) the largest.
        assert_eq!(levels(&sizes, &[]), [Some(4 << 10), None, Some(64 << 20)]);
        assert_eq!(levels(&sizes[..10], &[]), [Some(4 << 10), None, None]);
        // A sweep that stops short of DRAM.
        assert_eq!(
            levels(&sizes[..5], &[32 << 10, 4 << 20]),
            [Some(16 << 10), Some(64 << 10), None]
        );
        assert_eq!(levels(&[], &[32 << 10]), [None, None, None]);
    }

    #[test]
    fn a_block_is_the_sentence_then_three_rows() {
        let f = dma_buf_board();
        let text = Block {
            name: "dma-buf:card0",
            figures: &f,
        }
        .to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(
            lines[0].starts_with("  dma-buf:card0: reads 18× slower"),
            "{text}"
        );
        assert!(
            lines[1].starts_with("    read   L1-sized (16 KiB): 31×"),
            "{text}"
        );
        assert!(lines[2].starts_with("    write "), "{text}");
        assert!(lines[3].starts_with("    copy  "), "{text}");
        assert!(text.ends_with('\n'));
        let header = Header("anon").to_string();
        assert!(header.contains("slow = 3.0× or more"), "{header}");
        assert!(header.contains("judged at every working set"), "{header}");
    }

    #[test]
    fn rows_say_units_sizes_spread_and_every_working_set() {
        let f = dma_buf_board();
        let row = Row {
            name: "read",
            series: &f.read,
            sizes: &f.sizes,
        };
        assert_eq!(
            row.to_string(),
            "read   L1-sized (16 KiB): 31× ±2.0 %  L2-sized (256 KiB): 18× ±2.0 %  DRAM-sized \
             (64 MiB): 11× ±2.0 %  all 3 sizes: median 18× ±2.0 %, 11× to 31×"
        );
        let gap = Series::of([(256 * K, Some(s(1_000)))]);
        let levels = [Some(16 * K), Some(256 * K), None];
        let row = Row {
            name: "write",
            series: &gap,
            sizes: &levels,
        };
        assert_eq!(
            row.to_string(),
            "write  L1-sized: -  L2-sized (256 KiB): 1.0× ±2.0 %  DRAM-sized: -"
        );
    }
}
