//! How the verdicts pick the points they compare, and the memory types they compare by role.
//!
//! For every verdict that compares points of the sweep:
//! - the **L1 set**: the largest measured size ≤ half the first data cache (16 KiB for a
//!   32 KiB L1: the set stays resident whatever the replacement policy); without a reported
//!   cache, the smallest measured size;
//! - **across a cache of C bytes**: the largest measured size ≤ C/2 (inside) against the
//!   smallest measured size ≥ 2·C (outside): a working set at exactly C may already spill
//!   (pseudo-random replacement, other data in the cache), one at 2·C cannot fit;
//! - **DRAM**: the smallest measured size ≥ 4× the last cache step: the last level CLIDR
//!   reports, or a system cache the latency curve shows past it
//!   ([`crate::system_cache::Finding::point`]; capped at the largest size past that cache
//!   when the buffer holds no working set of 4× it, and said so).

use core::fmt;

use super::{Inputs, Sweep};
use crate::cache::CacheLevel;
use crate::format::Decimal;
use crate::kernel::{Kernel, Unit};
use crate::memtype::{self, Role, MEMTYPES};
use crate::paging::Granule;
use crate::system_cache::{Finding, Point};

/// How many times the last-level cache a working set must be to be a DRAM point.
pub const DRAM_TIMES: u64 = 4;

/// The L1 set of a sweep over `sizes` (ascending) on a machine whose data caches are
/// `cache_sizes` bytes, innermost first: the largest size ≤ half the first, else (no cache
/// reported) the smallest size. The verdicts' rule, for the host's tables too.
pub fn l1_set_of(sizes: &[u64], cache_sizes: impl IntoIterator<Item = u64>) -> Option<u64> {
    match cache_sizes.into_iter().next() {
        Some(l1) => sizes.iter().rev().copied().find(|&s| s <= l1 / 2),
        None => sizes.first().copied(),
    }
}

/// The smallest working set that is a DRAM point on a machine whose data caches are
/// `cache_sizes` bytes, innermost first: [`DRAM_TIMES`] the last one (0 without one).
pub fn dram_bound(cache_sizes: impl IntoIterator<Item = u64>) -> u64 {
    cache_sizes
        .into_iter()
        .last()
        .map_or(0, |llc| llc.saturating_mul(DRAM_TIMES))
}

/// Position in [`MEMTYPES`] of the first type of `role`; a position beyond the table, which
/// no sweep answers for, when the table has none.
pub(super) const fn position(role: Role) -> usize {
    match memtype::position(role) {
        Some(i) => i,
        None => usize::MAX,
    }
}

/// The name of the first type of `role`, as the sentences print it: in a build for 32-bit
/// Arm, the name of its row on ARMv7 ([`memtype::armv7::MEMTYPES`]: `normal-wb-nowa` for
/// the hinted write-back row), so that a sentence names the alias the run measured.
#[allow(clippy::indexing_slicing)] // a position the table gave
pub(super) const fn named(role: Role) -> &'static str {
    #[cfg(target_arch = "arm")]
    const TABLE: &[memtype::MemType] = &memtype::armv7::MEMTYPES;
    #[cfg(not(target_arch = "arm"))]
    const TABLE: &[memtype::MemType] = &MEMTYPES;
    match memtype::position(role) {
        Some(i) if i < TABLE.len() => TABLE[i].name,
        _ => "(none)",
    }
}

/// How many Device types the table has.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)] // bounded by the loop
const DEVICE_TYPES: usize = {
    let (mut n, mut i) = (0, 0);
    while i < MEMTYPES.len() {
        if MEMTYPES[i].role as u8 == Role::Device as u8 {
            n += 1;
        }
        i += 1;
    }
    n
};

/// The Device types (positions in [`MEMTYPES`]), in the order the verdicts prefer them: what
/// Linux's `pgprot_device` maps first (the dma-buf of "Performance Anomaly Investigation"),
/// then the table's order. Worked out at compile time.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)] // bounded by the loop
pub(super) const DEVICES: [usize; DEVICE_TYPES] = {
    let mut devices = [memtype::DEVICE_NGNRE; DEVICE_TYPES];
    let (mut n, mut i) = (1, 0);
    while i < MEMTYPES.len() {
        if MEMTYPES[i].role as u8 == Role::Device as u8 && i != memtype::DEVICE_NGNRE {
            devices[n] = i;
            n += 1;
        }
        i += 1;
    }
    devices
};

/// The uncached types: the non-cacheable one, then [`DEVICES`].
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)] // bounded by the loop
pub(super) const UNCACHED: [usize; DEVICE_TYPES + 1] = {
    let mut uncached = [position(Role::NonCacheable); DEVICE_TYPES + 1];
    let mut i = 0;
    while i < DEVICE_TYPES {
        uncached[i + 1] = DEVICES[i];
        i += 1;
    }
    uncached
};

/// `num / den` in hundredths, rounded to the nearest; `None` when `den` is 0.
pub(super) fn ratio_centi(num: u64, den: u64) -> Option<u64> {
    crate::stats::div_round(u128::from(num).checked_mul(100)?, u128::from(den))
}

/// How many times `a` is faster than `b` (hundredths), values in `unit`.
pub(super) fn faster(unit: Unit, a: u64, b: u64) -> Option<u64> {
    if unit.higher_is_better() {
        ratio_centi(a, b)
    } else {
        ratio_centi(b, a)
    }
}

/// A ratio in hundredths, printed with one decimal and `x` (`812` is `8.1x`).
pub(super) struct Times(pub(super) u64);

impl fmt::Display for Times {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tenths = self.0.saturating_add(5) / 10;
        write!(
            f,
            "{}x",
            Decimal {
                scaled: tenths,
                places: 1
            }
        )
    }
}

/// How a write kernel's writes are named in the sentences: `writes` for write-stp, whose
/// full-line stream the cores' write streaming may keep from allocating;
/// `partial-line writes (write-line)` for the kernel it cannot.
pub(super) struct Writes(pub(super) Kernel);

impl fmt::Display for Writes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Kernel::WriteLine => write!(f, "partial-line writes ({})", self.0.spec().name),
            _ => f.write_str("writes"),
        }
    }
}

/// Hundredths printed with two decimals.
pub(super) fn centi(v: u64) -> Decimal {
    Decimal {
        scaled: v,
        places: 2,
    }
}

/// A step across one cache: inside and outside sizes and the ratio.
#[derive(Clone, Copy)]
pub(super) struct Step {
    pub(super) inside: u64,
    pub(super) outside: u64,
    pub(super) ratio: u64,
}

/// The inputs as the verdicts ask them: points by kernel, role and size.
pub(super) struct View<'i, 'a, S: Sweep + ?Sized> {
    pub(super) i: &'i Inputs<'a, S>,
    /// What the latency curve shows past the reported caches (not looked at under
    /// emulation), found once for every verdict.
    pub(super) finding: Finding,
    /// The L1 set: the largest size ≤ L1/2, else (no cache reported) the smallest size.
    pub(super) l1_set: Option<u64>,
    /// The write kernel the allocation verdicts judge by: write-line (one store per line,
    /// which no write streaming mode takes for a full-line stream) where the sweep measured
    /// it on the write-back type at the L1 set, else write-stp.
    pub(super) write_kernel: Kernel,
}

impl<'i, 'a, S: Sweep + ?Sized> View<'i, 'a, S> {
    /// The view of `i`, with what several verdicts ask worked out once.
    pub(super) fn new(i: &'i Inputs<'a, S>) -> Self {
        let mut v = View {
            i,
            finding: Finding::of(i.sweep, i.caches, i.emulated),
            l1_set: None,
            write_kernel: Kernel::WriteStp,
        };
        v.l1_set = l1_set_of(i.sweep.sizes(), v.caches().map(CacheLevel::size));
        let line = v
            .l1_set
            .and_then(|size| v.of(Kernel::WriteLine, Role::WriteBack, size));
        if line.is_some() {
            v.write_kernel = Kernel::WriteLine;
        }
        v
    }

    /// The reported data caches (fillers skipped), innermost first.
    pub(super) fn caches(&self) -> impl Iterator<Item = &CacheLevel> + '_ {
        self.i
            .caches
            .iter()
            .filter(|c| c.level != 0 && c.size() > 0)
    }

    /// The value of `kernel` on `memtype` at `size`: latency on 2 MiB blocks when measured
    /// there (no page walks), every other kernel on 4 KiB pages; the other granule otherwise.
    pub(super) fn value(&self, kernel: Kernel, memtype: usize, size: u64) -> Option<u64> {
        let (first, second) = if kernel == Kernel::Latency {
            (Granule::Block, Granule::Page)
        } else {
            (Granule::Page, Granule::Block)
        };
        let s = self.i.sweep;
        s.best(kernel, memtype, first, size)
            .or_else(|| s.best(kernel, memtype, second, size))
            .filter(|&v| v > 0)
    }

    /// [`View::value`] of the first type of `role`.
    // Inlined: the role is a constant where it is asked, so each call is one of `value`.
    #[inline(always)]
    pub(super) fn of(&self, kernel: Kernel, role: Role, size: u64) -> Option<u64> {
        self.value(kernel, position(role), size)
    }

    /// The largest size ≤ `limit` measured for (kernel, memtype).
    pub(super) fn at_most(&self, kernel: Kernel, memtype: usize, limit: u64) -> Option<(u64, u64)> {
        self.i
            .sweep
            .sizes()
            .iter()
            .rev()
            .filter(|&&s| s <= limit)
            .find_map(|&s| self.value(kernel, memtype, s).map(|v| (s, v)))
    }

    /// The smallest size ≥ `limit` measured for (kernel, memtype).
    pub(super) fn at_least(
        &self,
        kernel: Kernel,
        memtype: usize,
        limit: u64,
    ) -> Option<(u64, u64)> {
        self.i
            .sweep
            .sizes()
            .iter()
            .filter(|&&s| s >= limit)
            .find_map(|&s| self.value(kernel, memtype, s).map(|v| (s, v)))
    }

    /// The set of the level after L1 (≤ L2/2), if there is one and it differs from the L1
    /// set.
    pub(super) fn l2_set(&self) -> Option<u64> {
        let l2 = self.caches().nth(1)?;
        let l1 = self.l1_set;
        let sizes = self.i.sweep.sizes();
        sizes
            .iter()
            .rev()
            .copied()
            .find(|&s| s <= l2.size() / 2)
            .filter(|&s| Some(s) != l1)
    }

    /// The DRAM point of (kernel, memtype) and its value: the smallest size it was measured
    /// at ≥ [`DRAM_TIMES`] the last cache step, or capped (see [`Finding::point`]).
    pub(super) fn dram(&self, kernel: Kernel, memtype: usize) -> Option<(Point, u64)> {
        let point = self.finding.point_of(self.i.sweep, kernel, memtype)?;
        Some((point, self.value(kernel, memtype, point.size)?))
    }

    /// `kernel`'s step across a cache of `bytes` on `memtype`.
    pub(super) fn step(&self, kernel: Kernel, memtype: usize, bytes: u64) -> Option<Step> {
        let unit = kernel.spec().unit;
        let (inside, vin) = self.at_most(kernel, memtype, bytes / 2)?;
        let (outside, vout) = self.at_least(kernel, memtype, bytes.saturating_mul(2))?;
        Some(Step {
            inside,
            outside,
            ratio: faster(unit, vin, vout)?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_l1_set_and_the_dram_bound() {
        const K: u64 = 1024;
        let sizes = [4 * K, 8 * K, 16 * K, 32 * K, 4096 * K];
        assert_eq!(l1_set_of(&sizes, [32 * K, 1024 * K]), Some(16 * K));
        assert_eq!(l1_set_of(&sizes, [64 * K]), Some(32 * K));
        // No reported cache: the smallest size; a cache smaller than every set: none.
        assert_eq!(l1_set_of(&sizes, []), Some(4 * K));
        assert_eq!(l1_set_of(&sizes, [4 * K]), None);
        assert_eq!(l1_set_of(&[], [32 * K]), None);
        assert_eq!(dram_bound([32 * K, 1024 * K]), 4096 * K);
        assert_eq!(dram_bound([]), 0);
        assert_eq!(dram_bound([u64::MAX]), u64::MAX);
    }
}
