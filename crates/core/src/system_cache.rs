//! Caches that CLIDR_EL1 does not report, found in the measured latency curve, and the DRAM
//! point that follows from them.
//!
//! CLIDR_EL1 and CCSIDR_EL1 describe the caches that set/way maintenance reaches; a cache
//! of the interconnect or the memory system (a "system cache": Arm CMN's system level cache
//! in the home nodes, a vendor's last-level cache in front of DRAM) does not appear there
//! ([`crate::cache`]). A working set of 4× the last reported level (the verdicts' DRAM point,
//! [`crate::verdict::DRAM_TIMES`]) can then still be a cache hit. What the registers miss,
//! the `latency` kernel's curve (ns per dependent load of `normal-wb`, on 2 MiB blocks where
//! measured) shows: a **plateau** past the last reported level, then a **step** up.
//!
//! The rule ([`find`]), on the curve's measured sizes (powers of two) past the last reported
//! level `L`:
//! - a size `C` is the end of a plateau when the latency at `C` is less than [`FLAT_RATIO`]
//!   (1.15×) that at the largest measured size ≤ `C/2`, which itself is at least `2·L`
//!   (outside the last reported level, where the verdicts' step across it ends);
//! - the plateau ends in a step when some measured size in `(C, 4·C]` is at least
//!   [`STEP_RATIO`] (1.30×, the verdicts' step across a cache) slower than `C`;
//! - the largest such `C` is the system cache's estimated size: the largest working set on
//!   its plateau (it holds `C`; twice `C` already rises).
//!
//! A level of `C` bytes lets at most `C/S` of a random chase over `S` bytes hit; the last
//! reported level's own ramp then rises at most 1.25× from `4·L` to `16·L`, under the step, and
//! no size below `4·L` can end a plateau, so that ramp is never taken for a system cache. The
//! price: a system cache smaller than `4·L` is not told apart from the last reported level.
//!
//! The **DRAM point** ([`Finding::point`]) is the smallest measured size ≥ [`DRAM_TIMES`]× the
//! last step seen (the system cache when found, else the last reported level). When a system
//! cache was found but no measured size reaches 4× it (the buffer is too small), the point is
//! the largest measured size past it, and said to be **capped**: its figures may still hit
//! the system cache in part. Without a system cache a sweep short of the bound has no DRAM
//! point, as before.
//!
//! Under emulation nothing is looked for: QEMU models no caches, and its latency steps are
//! the host's caches and QEMU's software TLB (docs/lab.md, step 2e).

use core::fmt::{self, Write};

use crate::cache::CacheLevel;
use crate::format::{Bytes, Decimal};
use crate::kernel::Kernel;
use crate::memtype::{self, Role};
use crate::paging::Granule;
use crate::record::Record;
use crate::schema;
use crate::sweep::MAX_SIZES;
use crate::verdict::{Sweep, DRAM_TIMES, STEP_RATIO};

/// "Flat": two sizes a doubling apart whose latencies differ by less than 1.15× (hundredths)
/// lie on one plateau. Twice and more the few per cent two runs of a point differ by (the
/// host's compare threshold is 5 %), and clearly under [`STEP_RATIO`], so that nothing is both
/// flat and a step.
pub const FLAT_RATIO: u64 = 115;

/// A curve of latency points: (working-set size in bytes, hundredths of a ns per load),
/// ascending sizes, at most [`MAX_SIZES`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Curve {
    points: [(u64, u64); MAX_SIZES],
    len: usize,
}

impl Curve {
    /// The points of `points` that ascend in size and have a value above 0 (others are
    /// skipped), up to [`MAX_SIZES`].
    pub fn new(points: impl IntoIterator<Item = (u64, u64)>) -> Self {
        let mut c = Curve {
            points: [(0, 0); MAX_SIZES],
            len: 0,
        };
        for (size, ns) in points {
            let ascends = c.as_slice().last().is_none_or(|&(last, _)| size > last);
            if ns == 0 || !ascends {
                continue;
            }
            if let Some(slot) = c.points.get_mut(c.len) {
                *slot = (size, ns);
                c.len = c.len.saturating_add(1);
            }
        }
        c
    }

    /// The `latency` curve of the write-back type in `sweep`: on 2 MiB blocks where measured
    /// there (no page walks), else on 4 KiB pages, as the verdicts read it.
    pub fn of<S: Sweep + ?Sized>(sweep: &S) -> Self {
        let wb = memtype::position(Role::WriteBack).unwrap_or(usize::MAX);
        let at = |size| {
            sweep
                .best(Kernel::Latency, wb, Granule::Block, size)
                .or_else(|| sweep.best(Kernel::Latency, wb, Granule::Page, size))
        };
        Curve::new(
            sweep
                .sizes()
                .iter()
                .filter_map(|&s| at(s).map(|ns| (s, ns))),
        )
    }

    /// The points, ascending.
    pub fn as_slice(&self) -> &[(u64, u64)] {
        self.points.get(..self.len).unwrap_or(&[])
    }
}

/// A step of the latency curve that no reported cache level explains.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SystemCache {
    /// Its estimated size: the largest working set on the plateau before the step.
    pub size: u64,
    /// The latency there, hundredths of a ns.
    pub ns: u64,
    /// The plateau's other end: the size a doubling or more below, at least twice the last
    /// reported level.
    pub from: u64,
    /// Where the step reaches its highest within 4× the size.
    pub outside: u64,
    /// The latency there, hundredths of a ns.
    pub outside_ns: u64,
    /// `outside_ns` over `ns`, hundredths.
    pub step: u64,
}

/// What the latency curve shows past the last reported level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Beyond {
    /// The last system cache, if a step past the last reported level shows.
    pub system_cache: Option<SystemCache>,
    /// The largest measured size and its latency (hundredths of a ns).
    pub largest: (u64, u64),
    /// When the curve still rises at its largest size, past the last reported level: the
    /// rise over the size before (hundredths), at least [`FLAT_RATIO`]. A step may then lie
    /// past the sweep.
    pub rising: Option<u64>,
}

/// `a` over `b` in hundredths (0 when `b` is 0), saturating.
fn ratio(a: u64, b: u64) -> u64 {
    let r = crate::stats::div_rem(u128::from(a).saturating_mul(100), u128::from(b))
        .map_or(0, |(q, _)| q);
    u64::try_from(r).unwrap_or(u64::MAX)
}

/// Whether `a` is at least `times` (hundredths) `b`.
fn at_least(a: u64, times: u64, b: u64) -> bool {
    u128::from(a).saturating_mul(100) >= u128::from(b).saturating_mul(u128::from(times))
}

/// What `curve` shows past a last reported level of `reported` bytes (see the module for the
/// rule); `None` when the curve has no point.
pub fn find(curve: &Curve, reported: u64) -> Option<Beyond> {
    let points = curve.as_slice();
    let &largest = points.last()?;
    let floor = reported.saturating_mul(2);
    let mut system_cache = None;
    for (i, &(size, ns)) in points.iter().enumerate() {
        let before = points.get(..i).unwrap_or(&[]);
        let after = points.get(i.saturating_add(1)..).unwrap_or(&[]);
        let Some(&(from, from_ns)) = before.iter().rev().find(|&&(s, _)| s <= size / 2) else {
            continue;
        };
        if from < floor || at_least(ns, FLAT_RATIO, from_ns) {
            continue;
        }
        // The highest point within 4x, the smallest size of equals.
        let step = after
            .iter()
            .take_while(|&&(s, _)| s <= size.saturating_mul(4))
            .fold(None, |best: Option<&(u64, u64)>, p| match best {
                Some(b) if b.1 >= p.1 => Some(b),
                _ => Some(p),
            });
        if let Some(&(outside, outside_ns)) = step.filter(|&&(_, v)| at_least(v, STEP_RATIO, ns)) {
            system_cache = Some(SystemCache {
                size,
                ns,
                from,
                outside,
                outside_ns,
                step: ratio(outside_ns, ns),
            });
        }
    }
    let rising = match points {
        [.., (before, before_ns), (_, last_ns)]
            if *before >= floor && at_least(*last_ns, FLAT_RATIO, *before_ns) =>
        {
            Some(ratio(*last_ns, *before_ns))
        }
        _ => None,
    };
    Some(Beyond {
        system_cache,
        largest,
        rising,
    })
}

/// Why the curve was not looked at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotLooked {
    /// The run is emulated: QEMU's latency steps are the host's caches and its software TLB.
    Emulated,
    /// CLIDR_EL1 reports no data cache: there is no last level to look past.
    NoCache,
    /// No `latency` point of the write-back type.
    NoLatency,
}

/// The DRAM point of one kernel's points.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Point {
    /// The working set.
    pub size: u64,
    /// Below [`Finding::bound`]: no measured size reaches it (a system cache was found, so
    /// this is the largest measured size past it).
    pub capped: bool,
}

/// What the run's latency curve says about caches past the reported ones, and the DRAM
/// bound that follows: the `system-cache` record and line, and the verdicts' DRAM point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Finding {
    /// The size of the last data cache level CLIDR_EL1 reports (0: none).
    pub reported: u64,
    /// The reported level's number (0: none).
    pub level: u8,
    /// What the curve shows, or why it was not looked at.
    pub looked: Result<Beyond, NotLooked>,
}

impl Finding {
    /// The finding of a run whose data caches are `caches` (fillers of level 0 skipped) and
    /// whose points are `sweep`; `emulated`: QEMU's curve, not looked at.
    pub fn of<S: Sweep + ?Sized>(sweep: &S, caches: &[CacheLevel], emulated: bool) -> Self {
        let last = caches.iter().rev().find(|c| c.level != 0 && c.size() > 0);
        let last = last.map(|c| (c.level, c.size()));
        Finding::from_curve(&Curve::of(sweep), last, emulated)
    }

    /// The finding of the latency curve `curve` past the last reported level `last` (its
    /// number and size; `None`: no data cache reported); `emulated`: not looked at.
    pub fn from_curve(curve: &Curve, last: Option<(u8, u64)>, emulated: bool) -> Self {
        let (level, reported) = last.unwrap_or((0, 0));
        let looked = match last {
            _ if emulated => Err(NotLooked::Emulated),
            None => Err(NotLooked::NoCache),
            Some(_) => find(curve, reported).ok_or(NotLooked::NoLatency),
        };
        Finding {
            reported,
            level,
            looked,
        }
    }

    /// The system cache found, if any.
    pub fn system_cache(&self) -> Option<SystemCache> {
        self.looked.ok().and_then(|b| b.system_cache)
    }

    /// The last step seen: the system cache's size when found, else the last reported level
    /// (0: none).
    pub fn last_step(&self) -> u64 {
        self.system_cache().map_or(self.reported, |c| c.size)
    }

    /// The smallest working set that is a DRAM point: [`DRAM_TIMES`] the last step (0: no
    /// cache reported).
    pub fn bound(&self) -> u64 {
        self.last_step().saturating_mul(DRAM_TIMES)
    }

    /// The DRAM point among `measured` (the sizes a kernel was measured at, ascending): the
    /// smallest ≥ [`Finding::bound`]; when none is and a system cache was found, the largest
    /// past it, capped. `None` without a bound or such a size.
    pub fn point(&self, measured: impl IntoIterator<Item = u64>) -> Option<Point> {
        let bound = self.bound();
        if bound == 0 {
            return None;
        }
        let mut past = None;
        for size in measured {
            if size >= bound {
                return Some(Point {
                    size,
                    capped: false,
                });
            }
            past = Some(size);
        }
        let cache = self.system_cache()?;
        past.filter(|&s| s > cache.size)
            .map(|size| Point { size, capped: true })
    }

    /// The DRAM point of `kernel` on `memtype` in `sweep` ([`Finding::point`] over the sizes
    /// it was measured at, on either granule).
    pub fn point_of<S: Sweep + ?Sized>(
        &self,
        sweep: &S,
        kernel: Kernel,
        memtype: usize,
    ) -> Option<Point> {
        let measured = |&size: &u64| {
            [Granule::Page, Granule::Block]
                .into_iter()
                .any(|g| sweep.best(kernel, memtype, g, size).is_some_and(|v| v > 0))
        };
        self.point(sweep.sizes().iter().copied().filter(measured))
    }

    /// Whether a latency curve measured up to `size` already shows what the sweep needs: a
    /// system cache, and a size of 4× it. A probe past the plan stops there.
    pub fn resolved(&self, size: u64) -> bool {
        self.system_cache().is_some() && size >= self.bound()
    }

    /// How far every kernel's sweep, planned up to `planned`, is extended once the latency
    /// curve was probed up to `probed` (powers of two, what the buffer holds): to the first
    /// power of two ≥ 4× the system cache found, at most `probed`. `None` without a system
    /// cache, or when the plan already reaches it.
    pub fn extend_to(&self, planned: u64, probed: u64) -> Option<u64> {
        self.system_cache()?;
        let to = self
            .bound()
            .checked_next_power_of_two()
            .unwrap_or(u64::MAX)
            .min(probed);
        (to > planned).then_some(to)
    }

    /// The `status` of its record: `found`, `none`, `emulated`, `no-cache` or `no-latency`.
    pub fn status(&self) -> &'static str {
        match self.looked {
            Ok(b) if b.system_cache.is_some() => "found",
            Ok(_) => "none",
            Err(NotLooked::Emulated) => "emulated",
            Err(NotLooked::NoCache) => "no-cache",
            Err(NotLooked::NoLatency) => "no-latency",
        }
    }

    /// Writes its `system-cache` record; `dram`: the DRAM point of `read-ldp` on the
    /// write-back type ([`Finding::point`]), if any.
    pub fn record(&self, out: &mut impl Write, dram: Option<Point>) -> fmt::Result {
        let mut r = Record::new(out, &schema::SYSTEM_CACHE)
            .str("status", self.status())
            .u64("reported", self.reported);
        if let Some(c) = self.system_cache() {
            r = r
                .u64("size", c.size)
                .u64("outside", c.outside)
                .decimal("step", c.step, 2);
        }
        if let Some(rise) = self.looked.ok().and_then(|b| b.rising) {
            r = r.decimal("rising", rise, 2);
        }
        r.u64("dram_bound", self.bound())
            .opt_u64("dram_size", dram.map(|p| p.size))
            .bool("capped", dram.is_some_and(|p| p.capped))
            .finish()
    }

    /// Its console line (no line end): what was found or why nothing was looked for, and the
    /// DRAM point `dram` (as [`Finding::record`] takes it), in the firmware's words.
    pub fn line(&self, dram: Option<Point>) -> Line<'_> {
        self.line_in(dram, &FIRMWARE)
    }

    /// [`Finding::line`] in `words`: the firmware's ([`FIRMWARE`]) or the twin's ([`TWIN`]).
    pub fn line_in(&self, dram: Option<Point>, words: &'static Words) -> Line<'_> {
        Line {
            finding: self,
            dram,
            words,
        }
    }
}

/// Who lists the caches and whose latency curve is read, as a [`Line`] names them.
pub struct Words {
    /// What lists the data caches.
    pub lister: &'static str,
    /// The mapping whose latency curve is read.
    pub curve: &'static str,
}

/// The firmware's: CLIDR_EL1 and the write-back type.
pub const FIRMWARE: Words = Words {
    lister: crate::arch_name!(clidr),
    curve: "normal-wb",
};

/// The Linux twin's: the caches Linux lists for CPU 0 in sysfs (from the device tree, ACPI's
/// PPTT or CLIDR_EL1) and its reference mapping, `anon`.
pub const TWIN: Words = Words {
    lister: "Linux's cacheinfo (/sys/devices/system/cpu/cpu0/cache)",
    curve: "anon",
};

/// A [`Finding`]'s console line ([`Finding::line`]).
pub struct Line<'a> {
    finding: &'a Finding,
    dram: Option<Point>,
    words: &'static Words,
}

/// Hundredths of a ns as printed: `30.00 ns`.
fn ns(v: u64) -> Decimal {
    Decimal {
        scaled: v,
        places: 2,
    }
}

/// A ratio in hundredths as printed: `2.55x`.
struct Times(u64);

impl fmt::Display for Times {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}x", ns(self.0))
    }
}

impl fmt::Display for Line<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let x = self.finding;
        f.write_str("system cache: ")?;
        let Words { lister, curve } = self.words;
        let why = match x.looked {
            Err(NotLooked::Emulated) => {
                "not looked for under emulation (the latency steps are the host's caches and \
                 QEMU's TLB: docs/lab.md, step 2e)"
            }
            Err(NotLooked::NoCache) => {
                write!(f, "not looked for: {lister} reports no data cache")?;
                ""
            }
            Err(NotLooked::NoLatency) => {
                write!(f, "not looked for: no latency points of {curve}")?;
                ""
            }
            Ok(b) => {
                match b.system_cache {
                    Some(c) => write!(
                        f,
                        "about {} that {lister} does not report: {curve} latency {} ns from {} \
                         up to it, {} by {}",
                        Bytes(c.size),
                        ns(c.ns),
                        Bytes(c.from),
                        Times(c.step),
                        Bytes(c.outside)
                    )?,
                    None => write!(
                        f,
                        "none seen past L{} ({}) up to {}",
                        u64::from(x.level),
                        Bytes(x.reported),
                        Bytes(b.largest.0)
                    )?,
                }
                if let Some(r) = b.rising {
                    write!(
                        f,
                        "; still rising ({} at {}): a cache may end past it",
                        Times(r),
                        Bytes(b.largest.0)
                    )?;
                }
                ""
            }
        };
        f.write_str(why)?;
        let last = match x.system_cache() {
            Some(_) => "the system cache",
            None => "the last reported level",
        };
        let bound = Bytes(x.bound());
        let tail = match self.dram {
            Some(p) if p.capped => {
                ", more than the buffer holds (mairbench.buffer=): figures there may still hit it"
            }
            _ => "",
        };
        match self.dram {
            Some(p) => write!(
                f,
                "; DRAM point {} ({DRAM_TIMES}x {last}: {bound}{tail})",
                Bytes(p.size)
            ),
            None if x.bound() > 0 => {
                write!(
                    f,
                    "; no DRAM point ({DRAM_TIMES}x {last}: {bound}, not measured)"
                )
            }
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::cache::CacheType;
    use std::format;
    use std::string::{String, ToString};
    use std::vec::Vec;

    const KIB: u64 = 1 << 10;
    const MIB: u64 = 1 << 20;

    /// Ampere Altra's published cache sizes (Ampere's announcement of Altra, March 2020,
    /// reported e.g. by Hardwareluxx, "Ampere Altra Max bietet 128 Arm-v8.2-Kerne für das
    /// Datacenter", June 2020, and AnandTech, "Next Generation Arm Server: Ampere's Altra
    /// 80-core N1 SoC", March 2020): 64 KB L1 data cache and 1 MB L2 per Neoverse N1 core,
    /// which CLIDR_EL1 reports, and a 32 MB System Level Cache in the CMN-600 mesh, which
    /// it does not.
    const ALTRA_L1: u64 = 64 * KIB;
    const ALTRA_L2: u64 = MIB;
    const ALTRA_SLC: u64 = 32 * MIB;

    /// ns per load (hundredths) of a random chase over `size` bytes through levels
    /// `(bytes, hundredths of a ns)`, innermost first, then DRAM at `dram`: each level
    /// serves the part of the chase that it holds and the ones inside it do not, `C/S` of
    /// it (random replacement; LRU-like policies step more sharply than this). The
    /// latencies the tests give are illustrative, not a board's: what matters is the shape.
    fn chase(levels: &[(u64, u64)], dram: u64, size: u64) -> u64 {
        let held = |c: u64| (c as f64 / size as f64).min(1.0);
        let mut ns = 0.0;
        let mut inner = 0.0;
        for &(c, v) in levels {
            ns += (held(c) - inner) * v as f64;
            inner = held(c);
        }
        (ns + (1.0 - inner) * dram as f64).round() as u64
    }

    /// A sweep's latency curve: powers of two from 4 KiB to `max`, from `model`, each value
    /// multiplied by `noise(i)` (1.0: none).
    fn curve(max: u64, model: impl Fn(u64) -> u64, noise: impl Fn(usize) -> f64) -> Curve {
        Curve::new(
            (12..=max.trailing_zeros())
                .map(|s| 1u64 << s)
                .enumerate()
                .map(|(i, s)| (s, (model(s) as f64 * noise(i)).round() as u64)),
        )
    }

    fn none(_: usize) -> f64 {
        1.0
    }

    /// Altra-like: L1 1.5 ns, L2 5 ns, the system cache 30 ns, DRAM 120 ns.
    fn altra(size: u64) -> u64 {
        chase(
            &[(ALTRA_L1, 150), (ALTRA_L2, 500), (ALTRA_SLC, 3_000)],
            12_000,
            size,
        )
    }

    /// Cortex-A72-like: L1 32 KiB 1.5 ns, L2 1 MiB 10 ns, then DRAM at 120 ns.
    fn a72(size: u64) -> u64 {
        chase(&[(32 * KIB, 150), (MIB, 1_000)], 12_000, size)
    }

    /// ±`pct` per cent, pseudo-random per point from `seed`.
    fn jitter(seed: u64, pct: f64) -> impl Fn(usize) -> f64 {
        move |i| {
            let mut x = seed ^ (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
            x ^= x >> 33;
            x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
            x ^= x >> 33;
            1.0 + pct / 100.0 * ((x % 2001) as f64 / 1000.0 - 1.0)
        }
    }

    /// A sweep of the curve `c` whose latency on normal-wb blocks is `c`, and read-ldp on
    /// normal-wb pages at every size up to `reads` (none above: sizes only the latency
    /// probe reached).
    struct Points {
        sizes: Vec<u64>,
        latency: Curve,
        reads: u64,
    }

    impl Sweep for Points {
        fn sizes(&self) -> &[u64] {
            &self.sizes
        }
        fn best(&self, k: Kernel, t: usize, g: Granule, size: u64) -> Option<u64> {
            let wb = memtype::position(Role::WriteBack).unwrap();
            match (k, g) {
                _ if t != wb => None,
                (Kernel::Latency, Granule::Block) => self
                    .latency
                    .as_slice()
                    .iter()
                    .find(|p| p.0 == size)
                    .map(|p| p.1),
                (Kernel::ReadLdp, Granule::Page) => (size <= self.reads).then_some(4_000),
                _ => None,
            }
        }
        fn pmu(&self, _: Kernel, _: usize, _: u64, _: &str) -> Option<u64> {
            None
        }
    }

    fn points(latency: Curve, reads: u64) -> Points {
        Points {
            sizes: latency.as_slice().iter().map(|p| p.0).collect(),
            latency,
            reads,
        }
    }

    fn caches(sizes: &[u64]) -> Vec<CacheLevel> {
        sizes
            .iter()
            .enumerate()
            .map(|(i, &size)| CacheLevel {
                level: i as u8 + 1,
                kind: CacheType::Unified,
                line: 64,
                ways: 16,
                sets: (size / 1024) as u32,
            })
            .collect()
    }

    fn reads(sweep: &Points) -> impl Iterator<Item = u64> + '_ {
        let wb = memtype::position(Role::WriteBack).unwrap();
        sweep
            .sizes
            .iter()
            .copied()
            .filter(move |&s| sweep.best(Kernel::ReadLdp, wb, Granule::Page, s).is_some())
    }

    fn record(f: &Finding, dram: Option<Point>) -> String {
        let mut s = String::new();
        f.record(&mut s, dram).unwrap();
        s
    }

    #[test]
    fn altra_s_system_cache_moves_the_dram_point() {
        let c = caches(&[ALTRA_L1, ALTRA_L2]);
        // mairbench.buffer=256M: the sweep reaches 8x the system cache.
        let s = points(curve(256 * MIB, altra, none), 256 * MIB);
        let f = Finding::of(&s, &c, false);
        let found = f.system_cache().expect("a system cache");
        assert_eq!((found.size, found.from), (32 * MIB, 16 * MIB));
        assert_eq!(found.outside, 128 * MIB);
        assert!(found.step >= 300, "{found:?}");
        assert_eq!(f.status(), "found");
        assert_eq!(f.bound(), 128 * MIB);
        let dram = f.point(reads(&s));
        assert_eq!(
            dram,
            Some(Point {
                size: 128 * MIB,
                capped: false
            })
        );
        // 4x the reported L2 alone would have been 4 MiB, inside the system cache.
        assert_eq!(crate::verdict::dram_bound([ALTRA_L1, ALTRA_L2]), 4 * MIB);
        assert!(altra(4 * MIB) * 3 < altra(128 * MIB));
        let line = f.line(dram).to_string();
        assert_eq!(
            line,
            "system cache: about 32 MiB that CLIDR_EL1 does not report: normal-wb latency \
             29.21 ns from 16 MiB up to it, 3.33x by 128 MiB; DRAM point 128 MiB (4x the \
             system cache: 128 MiB)"
        );
        let rec = record(&f, dram);
        assert_eq!(
            rec,
            "@mb {\"kind\":\"system_cache\",\"status\":\"found\",\"reported\":1048576,\
             \"size\":33554432,\"outside\":134217728,\"step\":3.33,\
             \"dram_bound\":134217728,\"dram_size\":134217728,\"capped\":false}\n"
        );
    }

    #[test]
    fn plain_dram_after_the_last_level() {
        // A72-like, L1 32 KiB and L2 1 MiB reported, DRAM straight after: none found, and the
        // L2's own ramp (the most gradual a chase shows) is not taken for one, however far
        // the sweep goes.
        let c = caches(&[32 * KIB, MIB]);
        for max in [8 * MIB, 32 * MIB, 256 * MIB, 4096 * MIB] {
            let s = points(curve(max, a72, none), max);
            let f = Finding::of(&s, &c, false);
            assert_eq!(f.system_cache(), None, "{max}");
            assert_eq!(f.status(), "none");
            assert_eq!(f.bound(), 4 * MIB);
            assert_eq!(
                f.point(reads(&s)),
                Some(Point {
                    size: 4 * MIB,
                    capped: false
                })
            );
            assert_eq!(f.looked.unwrap().rising, None, "{max}");
        }
        let s = points(curve(32 * MIB, a72, none), 32 * MIB);
        let f = Finding::of(&s, &c, false);
        let dram = f.point(reads(&s));
        assert_eq!(
            f.line(dram).to_string(),
            "system cache: none seen past L2 (1 MiB) up to 32 MiB; DRAM point 4 MiB (4x the \
             last reported level: 4 MiB)"
        );
        assert!(record(&f, dram).contains(
            "\"status\":\"none\",\"reported\":1048576,\
             \"dram_bound\":4194304,\"dram_size\":4194304,\"capped\":false}"
        ));
    }

    #[test]
    fn noisy_curves() {
        // ±5 % per point (a board's spread between runs is a few per cent): the same answers
        // for many draws.
        let altra_c = caches(&[ALTRA_L1, ALTRA_L2]);
        let a72_c = caches(&[32 * KIB, MIB]);
        for seed in 0..500 {
            let s = points(curve(256 * MIB, altra, jitter(seed, 5.0)), 256 * MIB);
            let f = Finding::of(&s, &altra_c, false);
            assert_eq!(f.system_cache().map(|c| c.size), Some(32 * MIB), "{seed}");
            assert_eq!(f.bound(), 128 * MIB);
            let s = points(curve(1024 * MIB, a72, jitter(seed, 5.0)), 1024 * MIB);
            let f = Finding::of(&s, &a72_c, false);
            assert_eq!(f.system_cache(), None, "{seed}: {:?}", f.looked);
            assert_eq!(f.bound(), 4 * MIB);
        }
    }

    #[test]
    fn a_buffer_too_small_caps_the_point_and_says_so() {
        let c = caches(&[ALTRA_L1, ALTRA_L2]);
        // 64 MiB: the step shows at 64 MiB, but 4x the system cache does not fit.
        let s = points(curve(64 * MIB, altra, none), 64 * MIB);
        let f = Finding::of(&s, &c, false);
        assert_eq!(f.system_cache().map(|c| c.size), Some(32 * MIB));
        assert_eq!(f.bound(), 128 * MIB);
        let dram = f.point(reads(&s));
        assert_eq!(
            dram,
            Some(Point {
                size: 64 * MIB,
                capped: true
            })
        );
        let line = f.line(dram).to_string();
        assert!(
            line.ends_with(
                "; still rising (2.55x at 64 MiB): a cache may end past it; DRAM point 64 MiB \
                 (4x the system cache: 128 MiB, more than the buffer holds (mairbench.buffer=): \
                 figures there may still hit it)"
            ),
            "{line}"
        );
        assert!(record(&f, dram).ends_with(
            "\"rising\":2.55,\"dram_bound\":134217728,\"dram_size\":67108864,\"capped\":true}\n"
        ));
        // Reads measured only up to 32 MiB (the latency probe went further): no size past
        // the system cache, so no DRAM point at all rather than one inside it.
        assert_eq!(
            f.point(reads(&points(curve(64 * MIB, altra, none), 32 * MIB))),
            None
        );
        // The default 32 MiB buffer: the plateau reaches the end of the sweep, so nothing
        // shows past the L2, and the line says how far it looked.
        let s = points(curve(32 * MIB, altra, none), 32 * MIB);
        let f = Finding::of(&s, &c, false);
        assert_eq!(f.system_cache(), None);
        assert!(f
            .line(f.point(reads(&s)))
            .to_string()
            .starts_with("system cache: none seen past L2 (1 MiB) up to 32 MiB;"));
    }

    #[test]
    fn sharp_steps_are_sized_exactly() {
        // An LRU-like cache: every working set it holds hits, every larger one misses.
        fn sharp(size: u64) -> u64 {
            match size {
                s if s <= 64 * KIB => 150,
                s if s <= MIB => 500,
                s if s <= 16 * MIB => 3_000,
                _ => 11_000,
            }
        }
        let c = caches(&[64 * KIB, MIB]);
        let s = points(curve(128 * MIB, sharp, none), 128 * MIB);
        let f = Finding::of(&s, &c, false);
        let found = f.system_cache().unwrap();
        assert_eq!(
            (found.size, found.outside, found.step),
            (16 * MIB, 32 * MIB, 366)
        );
        assert_eq!(f.bound(), 64 * MIB);
        // Two caches past the reported ones: the DRAM point follows the last.
        fn two(size: u64) -> u64 {
            match size {
                s if s <= MIB => 500,
                s if s <= 8 * MIB => 2_000,
                s if s <= 64 * MIB => 5_000,
                _ => 12_000,
            }
        }
        let s = points(curve(1024 * MIB, two, none), 1024 * MIB);
        let f = Finding::of(&s, &c, false);
        assert_eq!(f.system_cache().map(|c| c.size), Some(64 * MIB));
        assert_eq!(f.bound(), 256 * MIB);
    }

    #[test]
    fn not_looked_for() {
        let c = caches(&[ALTRA_L1, ALTRA_L2]);
        let s = points(curve(256 * MIB, altra, none), 256 * MIB);
        // Emulated: QEMU's steps are not the guest's caches; the reported level decides.
        let f = Finding::of(&s, &c, true);
        assert_eq!((f.status(), f.bound()), ("emulated", 4 * MIB));
        let dram = f.point(reads(&s));
        assert_eq!(
            f.line(dram).to_string(),
            "system cache: not looked for under emulation (the latency steps are the host's \
             caches and QEMU's TLB: docs/lab.md, step 2e); DRAM point 4 MiB (4x the last \
             reported level: 4 MiB)"
        );
        assert_eq!(
            record(&f, dram),
            "@mb {\"kind\":\"system_cache\",\"status\":\"emulated\",\"reported\":1048576,\
             \"dram_bound\":4194304,\"dram_size\":4194304,\"capped\":false}\n"
        );
        // No cache reported: nothing to look past, no bound, no point.
        let f = Finding::of(&s, &[], false);
        assert_eq!(
            (f.status(), f.bound(), f.point(reads(&s))),
            ("no-cache", 0, None)
        );
        assert!(f.line(None).to_string().ends_with("reports no data cache"));
        // No latency points.
        let empty = points(Curve::new([]), 0);
        let f = Finding::of(&empty, &c, false);
        assert_eq!((f.status(), f.bound()), ("no-latency", 4 * MIB));
        assert_eq!(
            f.line(None).to_string(),
            "system cache: not looked for: no latency points of normal-wb; no DRAM point (4x \
             the last reported level: 4 MiB, not measured)"
        );
        // Every record has the schema's fields in order and nothing else.
        for f in [
            Finding::of(&s, &c, false),
            Finding::of(&s, &c, true),
            Finding::of(&empty, &c, false),
        ] {
            let line = record(&f, f.point(reads(&s)));
            let mut at = 0;
            for field in schema::SYSTEM_CACHE.fields {
                match line[at..].find(&format!("\"{}\":", field.name)) {
                    Some(pos) => at += pos,
                    None => assert!(!field.always, "{} missing: {line}", field.name),
                }
            }
        }
    }

    #[test]
    fn how_far_the_sweep_goes() {
        let c = caches(&[ALTRA_L1, ALTRA_L2]);
        // The default plan (4x the L2, at least 8 MiB) probed on a 256 MiB buffer: the
        // probe stops once 4x the system cache is measured, and every kernel goes there.
        let probed = |max| Finding::of(&points(curve(max, altra, none), max), &c, false);
        assert!(!probed(64 * MIB).resolved(64 * MIB));
        assert!(probed(128 * MIB).resolved(128 * MIB));
        assert_eq!(
            probed(128 * MIB).extend_to(8 * MIB, 128 * MIB),
            Some(128 * MIB)
        );
        // A 64 MiB buffer: as far as it holds.
        assert_eq!(
            probed(64 * MIB).extend_to(8 * MIB, 64 * MIB),
            Some(64 * MIB)
        );
        // Already in the plan, or nothing found: the plan stands.
        assert_eq!(probed(128 * MIB).extend_to(128 * MIB, 128 * MIB), None);
        assert_eq!(probed(32 * MIB).extend_to(8 * MIB, 32 * MIB), None);
        let plain = Finding::of(&points(curve(32 * MIB, a72, none), 32 * MIB), &c, false);
        assert!(!plain.resolved(32 * MIB));
        assert_eq!(plain.extend_to(8 * MIB, 32 * MIB), None);
        // The DRAM point of a kernel: at the sizes it was measured at.
        let s = points(curve(256 * MIB, altra, none), 256 * MIB);
        let f = Finding::of(&s, &c, false);
        let wb = memtype::position(Role::WriteBack).unwrap();
        assert_eq!(
            f.point_of(&s, Kernel::ReadLdp, wb).map(|p| p.size),
            Some(128 * MIB)
        );
        assert_eq!(
            f.point_of(&s, Kernel::Latency, wb).map(|p| p.size),
            Some(128 * MIB)
        );
        assert_eq!(f.point_of(&s, Kernel::WriteStp, wb), None);
    }

    #[test]
    fn odd_curves_never_panic() {
        assert_eq!(find(&Curve::new([]), MIB), None);
        let c = Curve::new([(8, 5), (4, 1), (16, 0), (32, u64::MAX), (64, 1)]);
        assert_eq!(c.as_slice(), &[(8, 5), (32, u64::MAX), (64, 1)]);
        let _ = find(&c, 0);
        let _ = find(&c, u64::MAX);
        let full = Curve::new((0..40).map(|i| (1u64 << i, 1 + i)));
        assert_eq!(full.as_slice().len(), MAX_SIZES);
        let b = find(&full, 1).unwrap();
        assert_eq!(b.largest.0, 1 << (MAX_SIZES - 1));
        let f = Finding {
            reported: u64::MAX,
            level: 7,
            looked: Ok(b),
        };
        assert_eq!(f.bound(), u64::MAX);
        let _ = f.point([u64::MAX]);
        let _ = f.line(None).to_string();
    }
}
