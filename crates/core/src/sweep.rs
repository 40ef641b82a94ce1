//! The working-set sizes a measurement sweeps over (powers of two, so each cache level shows
//! as a step), and how many passes make one timed sample.

use crate::placement;

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;

/// Smallest working set, and the granule every size is a multiple of: one 4 KiB page.
pub const MIN_SIZE: u64 = 4 * KIB;

/// Most sizes in one sweep (4 KiB to 32 GiB in powers of two is 24).
pub const MAX_SIZES: usize = 24;

/// Sizes of the `mairbench.quick` sweep (clipped to the buffer by [`plan_quick`]).
pub const QUICK_SIZES: [u64; 3] = [4 * KIB, 256 * KIB, 4 * MIB];

/// Smallest upper end of the default sweep (also used when the last-level cache is unknown).
pub const DEFAULT_UPPER_MIN: u64 = 8 * MIB;

/// Largest upper end of the default sweep; `mairbench.sizes=` goes further.
pub const DEFAULT_UPPER_MAX: u64 = 32 * MIB;

/// Up to [`MAX_SIZES`] working-set sizes in bytes, ascending, no duplicates.
#[derive(Clone, Copy, Debug)]
pub struct Sizes {
    sizes: [u64; MAX_SIZES],
    len: usize,
}

impl Sizes {
    /// No sizes.
    pub const fn new() -> Self {
        Sizes {
            sizes: [0; MAX_SIZES],
            len: 0,
        }
    }

    /// Appends `size` if it is larger than the last one and there is room; returns whether
    /// it was added.
    fn push(&mut self, size: u64) -> bool {
        if self.as_slice().last().is_some_and(|&last| last >= size) {
            return false;
        }
        match self.sizes.get_mut(self.len) {
            Some(slot) => {
                *slot = size;
                self.len = self.len.saturating_add(1);
                true
            }
            None => false,
        }
    }

    /// The sizes, ascending.
    pub fn as_slice(&self) -> &[u64] {
        self.sizes.get(..self.len).unwrap_or(&[])
    }

    /// The sizes, ascending.
    pub fn iter(&self) -> impl Iterator<Item = u64> + '_ {
        self.as_slice().iter().copied()
    }

    /// How many sizes.
    pub fn len(&self) -> usize {
        self.as_slice().len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The size at position `i` (ascending), if any.
    pub fn get(&self, i: usize) -> Option<u64> {
        self.as_slice().get(i).copied()
    }

    /// The largest size, if any.
    pub fn largest(&self) -> Option<u64> {
        self.as_slice().last().copied()
    }
}

impl Default for Sizes {
    fn default() -> Self {
        Sizes::new()
    }
}

impl PartialEq for Sizes {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Sizes {}

/// Parses `mairbench.sizes=`: a range `4K-16M` (both ends included; sizes as
/// [`placement::parse_size`] reads them, K/M/G = 2^10/2^20/2^30) or a single size `1M`
/// (meaning `(1M, 1M)`). Both ends must be multiples of 4 KiB, at least 4 KiB, and in order.
pub fn parse_range(s: &str) -> Option<(u64, u64)> {
    let (lo, hi) = match s.split_once('-') {
        Some((lo, hi)) => (placement::parse_size(lo)?, placement::parse_size(hi)?),
        None => {
            let size = placement::parse_size(s)?;
            (size, size)
        }
    };
    let ok = |x: u64| x >= MIN_SIZE && x.is_multiple_of(MIN_SIZE);
    (ok(lo) && ok(hi) && lo <= hi).then_some((lo, hi))
}

/// The largest power of two `<= x` (0 for 0).
fn floor_pow2(x: u64) -> u64 {
    match x.checked_ilog2() {
        Some(log) => 1u64.checked_shl(log).unwrap_or(0),
        None => 0,
    }
}

/// The sizes of a sweep from `lo` to `hi`: the powers of two between them, both ends
/// included once rounded to powers of two (`lo` up, `hi` down), none above `max` (what the
/// buffer allows) nor below 4 KiB.
///
/// Never empty when `max >= 4 KiB`: when no power of two lies in the range (`12K-12K`) or
/// the whole range is above `max`, the sweep is the one size `hi` rounded down, clipped to
/// `max` (at least 4 KiB). When more than [`MAX_SIZES`] sizes qualify, the smallest
/// `MAX_SIZES - 1` and the largest are kept, so both ends asked for are measured.
pub fn plan(lo: u64, hi: u64, max: u64) -> Sizes {
    let mut sizes = Sizes::new();
    if max < MIN_SIZE {
        return sizes;
    }
    let top = floor_pow2(hi.min(max)).max(MIN_SIZE);
    let first = lo
        .max(MIN_SIZE)
        .checked_next_power_of_two()
        .filter(|&first| first <= top)
        .unwrap_or(top);
    let mut size = first;
    while size < top && sizes.len() < MAX_SIZES.saturating_sub(1) {
        sizes.push(size);
        size = size.saturating_mul(2);
    }
    sizes.push(top);
    sizes
}

/// When a sweep asked to reach `hi` cannot because the buffer of `max` bytes is smaller: the
/// largest size it can measure (the largest power of two `max` holds), so that the cut is
/// said, not silent. `None` when `hi` fits.
pub fn capped(hi: u64, max: u64) -> Option<u64> {
    let cap = floor_pow2(max).max(MIN_SIZE);
    (floor_pow2(hi) > cap).then_some(cap)
}

/// The default upper end of a sweep: four times the last-level cache (rounded up to a power
/// of two, so that the largest sizes are well beyond every cache the core reports), at least
/// [`DEFAULT_UPPER_MIN`] and at most [`DEFAULT_UPPER_MAX`], capped at the largest power of two
/// the buffer holds. (A last-level cache over 8 MiB thus gets less than 4x; the sweep still
/// reaches DRAM at 32 MiB, and `mairbench.sizes=` goes beyond.)
pub fn default_upper(llc_bytes: Option<u64>, buffer: u64) -> u64 {
    let want = llc_bytes
        .map(|llc| {
            llc.saturating_mul(4)
                .checked_next_power_of_two()
                .unwrap_or(1 << 63)
        })
        .unwrap_or(0)
        .clamp(DEFAULT_UPPER_MIN, DEFAULT_UPPER_MAX);
    want.min(floor_pow2(buffer))
}

/// The sizes of the quick sweep ([`QUICK_SIZES`]); a size the buffer cannot hold becomes
/// the largest power of two it can (so `max = 2M` gives 4K, 256K, 2M), duplicates dropped.
/// Empty when `max < 4 KiB`.
pub fn plan_quick(max: u64) -> Sizes {
    let mut sizes = Sizes::new();
    if max < MIN_SIZE {
        return sizes;
    }
    let cap = floor_pow2(max);
    for size in QUICK_SIZES {
        sizes.push(size.min(cap));
    }
    sizes
}

/// How many passes over a working set of `size` bytes make one timed sample move at least
/// `min_bytes` (at least 1), so that small sizes are timed over many passes and the timer's
/// resolution does not dominate. 1 when `size` is 0.
pub fn iterations_for(size: u64, min_bytes: u64) -> u64 {
    let whole = min_bytes.checked_div(size).unwrap_or(1);
    let part = min_bytes.checked_rem(size).map_or(0, |r| u64::from(r != 0));
    whole.saturating_add(part).max(1)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    const GIB: u64 = 1 << 30;

    #[test]
    fn a_range_beyond_the_buffer_says_where_it_is_cut() {
        assert_eq!(capped(64 * MIB, 32 * MIB), Some(32 * MIB));
        assert_eq!(capped(64 * MIB, 48 * MIB), Some(32 * MIB));
        assert_eq!(capped(32 * MIB, 32 * MIB), None);
        assert_eq!(capped(48 * MIB, 32 * MIB), None); // 48M rounds down to 32M anyway
        assert_eq!(capped(16 * MIB, 32 * MIB), None);
        assert_eq!(plan(MIB, 64 * MIB, 32 * MIB).largest(), Some(32 * MIB));
    }

    fn list(s: Sizes) -> Vec<u64> {
        s.iter().collect()
    }

    #[test]
    fn parsing_ranges() {
        assert_eq!(parse_range("4K-16M"), Some((4 * KIB, 16 * MIB)));
        assert_eq!(parse_range("1M"), Some((MIB, MIB)));
        assert_eq!(parse_range("4096-8k"), Some((4 * KIB, 8 * KIB)));
        assert_eq!(parse_range("0x1000-1G"), Some((4 * KIB, GIB)));
        assert_eq!(parse_range("12K-12K"), Some((12 * KIB, 12 * KIB)));
        for bad in [
            "",
            "-",
            "4K-",
            "-4K",
            "16M-4K",
            "2K-4K",
            "4K-6K",
            "1000",
            "4K-16M-32M",
            "4K..16M",
            "0-4K",
            "K",
            "4K 16M",
            "x",
            "4K-99999999999999999999",
        ] {
            assert_eq!(parse_range(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn plans() {
        assert_eq!(
            list(plan(4 * KIB, 32 * KIB, 32 * MIB)),
            [4 * KIB, 8 * KIB, 16 * KIB, 32 * KIB]
        );
        // Ends rounded to powers of two: lo up, hi down.
        assert_eq!(
            list(plan(5 * KIB, 33 * KIB, GIB)),
            [8 * KIB, 16 * KIB, 32 * KIB]
        );
        // Clipped to the buffer, which need not be a power of two.
        assert_eq!(list(plan(MIB, GIB, 6 * MIB)), [MIB, 2 * MIB, 4 * MIB]);
        // One size.
        assert_eq!(list(plan(MIB, MIB, GIB)), [MIB]);
        // No power of two in the range: hi rounded down.
        assert_eq!(list(plan(12 * KIB, 12 * KIB, GIB)), [8 * KIB]);
        // The whole range above the buffer: the buffer's largest power of two.
        assert_eq!(list(plan(64 * MIB, 128 * MIB, 32 * MIB)), [32 * MIB]);
        // Nonsense ends are clamped to 4 KiB.
        assert_eq!(list(plan(0, 0, GIB)), [4 * KIB]);
        assert_eq!(list(plan(0, 8 * KIB, GIB)), [4 * KIB, 8 * KIB]);
        assert_eq!(list(plan(u64::MAX, u64::MAX, 4 * KIB)), [4 * KIB]);
        // No room at all.
        assert!(plan(4 * KIB, MIB, 4095).is_empty());
        assert!(plan(4 * KIB, MIB, 0).is_empty());
        // Too many: the first MAX_SIZES - 1 and the last.
        let all = plan(0, u64::MAX, u64::MAX);
        assert_eq!(all.len(), MAX_SIZES);
        assert_eq!(all.as_slice()[0], 4 * KIB);
        assert_eq!(all.as_slice()[MAX_SIZES - 2], (4 * KIB) << (MAX_SIZES - 2));
        assert_eq!(all.largest(), Some(1 << 63));
        assert_eq!(all.get(0), Some(4 * KIB));
        assert_eq!(all.get(MAX_SIZES), None);
        // Exactly MAX_SIZES: 4 KiB .. 32 GiB.
        let s = plan(4 * KIB, 32 * GIB, u64::MAX);
        assert_eq!(s.len(), MAX_SIZES);
        assert!(s.as_slice().windows(2).all(|w| w[1] == 2 * w[0]));
        assert_eq!(s.largest(), Some(32 * GIB));
        // Every plan is ascending, powers of two, within bounds.
        for lo in [0, 4 * KIB, 5 * KIB, MIB, u64::MAX] {
            for hi in [0, 12 * KIB, 3 * MIB, GIB, u64::MAX] {
                for max in [4 * KIB, 7 * MIB, 32 * MIB, u64::MAX] {
                    let s = plan(lo, hi, max);
                    assert!(!s.is_empty());
                    assert!(s
                        .iter()
                        .all(|x| x.is_power_of_two() && x >= 4 * KIB && x <= max));
                    assert!(s.as_slice().windows(2).all(|w| w[0] < w[1]));
                }
            }
        }
    }

    #[test]
    fn default_upper_end() {
        assert_eq!(default_upper(None, 256 * MIB), 8 * MIB);
        assert_eq!(default_upper(Some(MIB), 256 * MIB), 8 * MIB);
        // 4 × 3 MiB = 12 MiB, rounded up to 16 MiB; 4 × 24 MiB is capped at 32 MiB.
        assert_eq!(default_upper(Some(3 * MIB), 256 * MIB), 16 * MIB);
        assert_eq!(default_upper(Some(24 * MIB), 256 * MIB), 32 * MIB);
        assert_eq!(default_upper(Some(32 * MIB), 256 * MIB), 32 * MIB);
        // Capped by the buffer, rounded down to a power of two.
        assert_eq!(default_upper(Some(32 * MIB), 48 * MIB), 32 * MIB);
        assert_eq!(default_upper(None, 8 * MIB), 8 * MIB);
        assert_eq!(default_upper(None, 6 * MIB), 4 * MIB);
        assert_eq!(default_upper(Some(u64::MAX), u64::MAX), 32 * MIB);
        assert_eq!(default_upper(None, 0), 0);
    }

    #[test]
    fn quick_plans() {
        assert_eq!(list(plan_quick(32 * MIB)), QUICK_SIZES);
        assert_eq!(list(plan_quick(4 * MIB)), QUICK_SIZES);
        assert_eq!(list(plan_quick(3 * MIB)), [4 * KIB, 256 * KIB, 2 * MIB]);
        assert_eq!(list(plan_quick(256 * KIB)), [4 * KIB, 256 * KIB]);
        assert_eq!(list(plan_quick(8 * KIB)), [4 * KIB, 8 * KIB]);
        assert_eq!(list(plan_quick(4 * KIB)), [4 * KIB]);
        assert!(plan_quick(4095).is_empty());
        assert_eq!(Sizes::default(), Sizes::new());
    }

    #[test]
    fn passes_per_sample() {
        assert_eq!(iterations_for(4 * KIB, MIB), 256);
        assert_eq!(iterations_for(3 * KIB, 10 * KIB), 4);
        assert_eq!(iterations_for(MIB, MIB), 1);
        assert_eq!(iterations_for(32 * MIB, MIB), 1);
        assert_eq!(iterations_for(4 * KIB, 0), 1);
        assert_eq!(iterations_for(0, MIB), 1);
        assert_eq!(iterations_for(1, u64::MAX), u64::MAX);
        assert_eq!(iterations_for(2, u64::MAX), 1 << 63);
    }
}
