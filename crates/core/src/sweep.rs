//! The working-set sizes a measurement sweeps over (powers of two, so each cache level shows
//! as a step), how many passes make one timed sample (sized by time: [`min_sample_ticks`],
//! [`calibrate`]), and the state a point starts from ([`Start`], [`Lines`]).

use crate::placement;
use crate::stats::div_rem;

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;

/// Smallest working set, and the granule every size is a multiple of: one 4 KiB page.
pub const MIN_SIZE: u64 = 4 * KIB;

/// Most sizes in one sweep (4 KiB to 32 GiB in powers of two is 24).
pub const MAX_SIZES: usize = 24;

/// Sizes of the `mairbench.quick` sweep (clipped to the buffer by [`plan_quick`]).
pub const QUICK_SIZES: [u64; 3] = [4 * KIB, 256 * KIB, 4 * MIB];

/// Smallest upper end of the default sweep (also used when the last-level cache is unknown):
/// past a cache the CPU does not name (a system cache of a few MiB).
pub const DEFAULT_UPPER_MIN: u64 = 8 * MIB;

/// The upper end of the default sweep on an emulated machine, which has no cache to pass:
/// 2 MiB, past the steps an emulator shows (the host's own L1 and L2 under 1 MiB, QEMU's
/// software TLB after 1 MiB: docs/lab.md, step 2e). There the sizes show correctness and those
/// steps only, and the largest size is most of a run's time (each doubling doubles it).
pub const EMULATED_UPPER: u64 = 2 * MIB;

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

    /// The sizes of `sizes` that ascend (each larger than the one kept before it), up to
    /// [`MAX_SIZES`]: e.g. the sizes a log's results name, sorted.
    pub fn from_ascending(sizes: impl IntoIterator<Item = u64>) -> Self {
        let mut s = Sizes::new();
        for size in sizes {
            s.push(size);
        }
        s
    }

    /// Appends `size` if it is larger than the last one and there is room; returns whether
    /// it was added.
    pub fn push(&mut self, size: u64) -> bool {
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

    /// The sizes, ascending. Not inlined: one copy for its many callers.
    #[inline(never)]
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

    /// The sizes `kernel` runs at: all of them, or the largest alone for a kernel measured
    /// there only ([`crate::kernel::KernelSpec::largest_only`]).
    pub fn for_kernel(&self, kernel: &crate::kernel::KernelSpec) -> Sizes {
        if kernel.largest_only {
            Sizes::from_ascending(self.largest())
        } else {
            *self
        }
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
    let (lo, hi) = match crate::text::split_once(s, b'-') {
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
/// [`DEFAULT_UPPER_MIN`] and at most [`DEFAULT_UPPER_MAX`] ([`EMULATED_UPPER`] on an emulated
/// machine), capped at the largest power of two the buffer holds. (A last-level cache over
/// 8 MiB thus gets less than 4x; the sweep still reaches DRAM at 32 MiB, and
/// `mairbench.sizes=` goes beyond.)
pub fn default_upper(llc_bytes: Option<u64>, buffer: u64, emulated: bool) -> u64 {
    if emulated {
        return EMULATED_UPPER.min(floor_pow2(buffer));
    }
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

/// The sizes a latency probe measures past a sweep planned up to `largest` (a power of two):
/// the powers of two above it that a buffer of `max` bytes holds, ascending; none when it
/// holds no larger one.
pub fn past(largest: u64, max: u64) -> Sizes {
    let mut sizes = Sizes::new();
    let mut size = largest.checked_mul(2);
    while let Some(s) = size.filter(|&s| s <= max && sizes.push(s)) {
        size = s.checked_mul(2);
    }
    sizes
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

/// Fewest counter ticks a timed sample lasts: the tick then is at most 0.1 % of it.
pub const MIN_SAMPLE_TICKS: u64 = 1000;

/// Shortest timed sample, in nanoseconds: on a fast counter (1 GHz, Armv8.6 and later)
/// 1000 ticks are 1 µs, shorter than the counter reads and barriers around a sample should
/// weigh; 20 µs keeps those (tens of ns) well under 1 %.
pub const MIN_SAMPLE_NS: u64 = 20_000;

/// Most work one timed sample (or one calibration probe) may do, in bytes (or loads and
/// lines counted as the bytes they touch): bounds the calibration where the counter barely
/// advances. A core would have to stream 3 TB/s to need more for [`MIN_SAMPLE_NS`].
pub const MAX_SAMPLE_BYTES: u64 = 64 << 20;

/// Dependent loads in one pass of the pointer chase, at most: enough that a sample averages
/// over many lines of a large working set, few enough that one pass stays short where a load
/// takes hundreds of nanoseconds.
pub const CHASE_PASS_LOADS: u64 = 1024;

/// Times the last-level cache, in lines, that the chase's warm-up visits at most (see
/// [`chase_warm_up`]).
pub const CHASE_WARM_UP_LLC: u64 = 2;

/// The shortest timed sample on a counter of `freq_hz`: [`MIN_SAMPLE_TICKS`] ticks and
/// [`MIN_SAMPLE_NS`], whichever is longer (at 62.5 MHz 1250 ticks, at 19.2 MHz 1000, at
/// 1 GHz 20000). At least 1.
pub fn min_sample_ticks(freq_hz: u64) -> u64 {
    let ns = u128::from(MIN_SAMPLE_NS).saturating_mul(u128::from(freq_hz));
    let ticks = u64::try_from(div_ceil(ns, 1_000_000_000)).unwrap_or(u64::MAX);
    ticks.max(MIN_SAMPLE_TICKS)
}

/// [`min_sample_ticks`] on a counter that advances `step` ticks at a time
/// ([`crate::counter::step`]): also at least [`MIN_SAMPLE_TICKS`] steps, so that its
/// quantisation stays at most 0.1 % of a sample (user-mode QEMU's 62.5 MHz counter moves in
/// 62-tick steps: 62,000 ticks, about 1 ms). A step of 0 or 1 changes nothing.
pub fn min_sample_ticks_stepped(freq_hz: u64, step: u64) -> u64 {
    min_sample_ticks(freq_hz).max(MIN_SAMPLE_TICKS.saturating_mul(step))
}

/// Nanoseconds that `ticks` of a `freq_hz` counter last (rounded down; 0 for a 0 Hz counter).
pub fn ticks_to_ns(ticks: u64, freq_hz: u64) -> u64 {
    let ns = div_rem(u128::from(ticks) * 1_000_000_000, u128::from(freq_hz)).map_or(0, |(q, _)| q);
    u64::try_from(ns).unwrap_or(u64::MAX)
}

/// `num / den` rounded up, as `u128::div_ceil` (0 when `den` is 0), through
/// [`div_rem`](crate::stats::div_rem) (no compiler_builtins division in the image).
fn div_ceil(num: u128, den: u128) -> u128 {
    div_rem(num, den).map_or(0, |(q, r)| q.saturating_add(u128::from(r != 0)))
}

/// Passes that make a sample last `min_ticks`, when `probe_passes` took `probe_ticks`:
/// rounded up, at least 1 (a probe that took no tick counts as one tick), at most
/// `max_passes` (itself at least 1).
pub fn passes_for(min_ticks: u64, probe_passes: u64, probe_ticks: u64, max_passes: u64) -> u64 {
    let want = u128::from(min_ticks).saturating_mul(u128::from(probe_passes));
    let passes = div_ceil(want, u128::from(probe_ticks.max(1)));
    u64::try_from(passes)
        .unwrap_or(u64::MAX)
        .clamp(1, max_passes.max(1))
}

/// Most passes per sample over a working set of `pass_bytes` per pass: [`MAX_SAMPLE_BYTES`]
/// of work, at least 1.
pub fn max_passes(pass_bytes: u64) -> u64 {
    MAX_SAMPLE_BYTES
        .checked_div(pass_bytes)
        .unwrap_or(MAX_SAMPLE_BYTES)
        .max(1)
}

/// What the warm-up of a point found: the passes each timed sample runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Calibration {
    /// Passes per timed sample.
    pub passes: u64,
    /// Passes the warm-up ran in all (its probes).
    pub warm_up_passes: u64,
    /// The ticks of the warm-up's last probe.
    pub probe_ticks: u64,
}

/// The warm-up of a point, which also sizes its samples by time: `timed(p)` runs `p` passes
/// and returns their ticks (overhead subtracted). Starting from one pass, a probe is repeated
/// with at least twice the passes (more where the last probe says so) until one lasts at
/// least half of `min_ticks` or reaches `max_passes`; the samples then get the passes that
/// make `min_ticks` at that probe's rate. The first probe includes cold misses and is the
/// slowest per pass: when it alone lasted long enough its rate is used, and a sample that
/// then turns out shorter than `min_ticks` is caught by [`too_short`]. The probes together
/// last less than about twice `min_ticks` (or one pass, when that is longer).
pub fn calibrate(
    min_ticks: u64,
    max_passes: u64,
    mut timed: impl FnMut(u64) -> u64,
) -> Calibration {
    let max = max_passes.max(1);
    let mut probe = 1u64;
    let mut total = 0u64;
    loop {
        let ticks = timed(probe);
        total = total.saturating_add(probe);
        if ticks.saturating_mul(2) >= min_ticks || probe >= max {
            return Calibration {
                passes: passes_for(min_ticks, probe, ticks, max),
                warm_up_passes: total,
                probe_ticks: ticks,
            };
        }
        let aim = passes_for(min_ticks / 2, probe, ticks, max);
        probe = aim.max(probe.saturating_mul(2)).min(max);
    }
}

/// When a timed sample of `passes` passes took only `ticks`, fewer than `min_ticks`: the
/// passes to measure again with (at least twice as many, so that repeating ends after a few
/// rounds), unless `passes` already reached `max_passes`. `None`: the sample is long enough.
pub fn too_short(passes: u64, ticks: u64, min_ticks: u64, max_passes: u64) -> Option<u64> {
    (ticks < min_ticks && passes < max_passes).then(|| {
        passes_for(min_ticks, passes, ticks, max_passes)
            .max(passes.saturating_mul(2))
            .min(max_passes)
    })
}

/// The part of a streaming pass its warm-up runs over, in bytes, for a working set of `size`
/// bytes: the last twice the last-level cache (`llc_bytes`) once the set is at least four
/// times it. A pass over that tail leaves the caches as a whole pass does (the last cache's
/// worth of the set; a whole pass reaches no translation reuse either, at four times the last
/// level); the samples then are single passes that far outlast the minimum sample, which
/// the tail's rate confirms. `None`: the warm-up covers the whole set (smaller sets, or the
/// cache unknown).
pub fn warm_up_tail(size: u64, llc_bytes: Option<u64>) -> Option<u64> {
    let llc = llc_bytes.filter(|&l| l >= MIN_SIZE)?;
    let tail = (llc.checked_mul(2)? / MIN_SIZE).saturating_mul(MIN_SIZE);
    (size >= llc.checked_mul(4)?).then_some(tail)
}

/// Bytes per line of the pointer chase (the latency kernel): one pointer per 64-byte line,
/// the smallest line of the cores this runs on, so that every load is a line of its own.
pub const CHASE_LINE: u64 = 64;

/// The seed of a point's data: the key of the pattern read kernels must leave and, xor the
/// size, the seed of the chase's order. The firmware and the Linux twin both lay with it, so
/// they lay the same data.
pub const SEED: u64 = 0x6d61_6972_6265_6e63;

/// Loads in one pass of the pointer chase over `lines` lines: one lap, at most
/// [`CHASE_PASS_LOADS`], a multiple of 8 (the chase's step), at least 8.
pub fn chase_pass(lines: u64) -> u64 {
    lines.clamp(1, CHASE_PASS_LOADS).next_multiple_of(8)
}

/// Loads of the chase's warm-up over `lines` lines of `line` bytes: one whole lap, but at
/// most [`CHASE_WARM_UP_LLC`] times the lines of `llc_bytes` (the cap
/// [`chase_warm_up_cap`] chooses, when there is one): beyond it a random lap only replaces
/// lines of the chase by others, so the cache is already as warm as it gets. A multiple of
/// 8, at least 8.
pub fn chase_warm_up(lines: u64, line: u64, llc_bytes: Option<u64>) -> u64 {
    let cap = llc_bytes
        .and_then(|llc| llc.checked_div(line))
        .map_or(u64::MAX, |l| l.saturating_mul(CHASE_WARM_UP_LLC));
    lines.min(cap).max(1).next_multiple_of(8)
}

/// The last-level cache the chase's warm-up is capped by ([`chase_warm_up`]): on hardware
/// none, a whole lap, because a cache past the last level CLIDR_EL1 reports (a system cache,
/// [`crate::system_cache`]) holds what a lap of twice that level leaves cold, and the curve
/// must show it; under emulation, which models no caches, the last reported level
/// (`llc_bytes`), which keeps QEMU runs short.
pub fn chase_warm_up_cap(llc_bytes: Option<u64>, emulated: bool) -> Option<u64> {
    llc_bytes.filter(|_| emulated)
}

/// A point is re-taken when it is worse than both its neighbours by this many hundredths
/// (1.25×): slower for bandwidth, longer for times ([`retakes`]). The firmware's line says
/// "1.25x".
pub const RETAKE_RATIO: u64 = 125;

/// The columns of one row of a kernel's table (one value per size, in the kernel's unit;
/// `higher_is_better` for bandwidth) to measure again after the kernel's sweep: those worse
/// than both measured neighbours by [`RETAKE_RATIO`]. A point's reps run back to back, so a
/// disturbance of the host longer than a point hits all of them alike and its spread stays
/// small; a step across a cache level is monotone, so a point worse than both sides is
/// what such a disturbance leaves. Taken again later, apart in time, the point shows what
/// the host did (the first take stays in the log).
pub fn retakes(row: &[Option<u64>], higher_is_better: bool) -> impl Iterator<Item = usize> + '_ {
    let worse = move |v: u64, than: u64| {
        let (slow, fast) = if higher_is_better {
            (v, than)
        } else {
            (than, v)
        };
        u128::from(slow).saturating_mul(u128::from(RETAKE_RATIO))
            <= u128::from(fast).saturating_mul(100)
    };
    row.windows(3)
        .enumerate()
        .filter_map(move |(i, w)| match *w {
            [Some(a), Some(v), Some(b)] if v > 0 && worse(v, a) && worse(v, b) => {
                Some(i.saturating_add(1))
            }
            _ => None,
        })
}

/// How far the second window of a copy lies from half the buffer: 37 pages (148 KiB). With
/// both windows exactly half a buffer apart (a multiple of every cache's way size and of
/// QEMU's software-TLB span) the two streams compete for the same cache sets and TLB
/// entries; under QEMU that made copies three times slower than reads and writes. Both
/// windows start at the same offset within a page: 1,408 B more (tinymembench's buffers'
/// relative offset) was measured no faster (docs/twin-qemu.md, "Where a copy's two sides
/// lie").
pub const COPY_SKEW: u64 = 37 * MIN_SIZE;

/// The buffer offset of the second window of a copy of `size` bytes (the first is at 0) in a
/// buffer of `buffer` bytes: half the buffer plus [`COPY_SKEW`] where that fits, else half
/// the buffer. `None` when the buffer does not hold both.
pub fn copy_partner(size: u64, buffer: u64) -> Option<u64> {
    let half = (buffer / 2 / MIN_SIZE).saturating_mul(MIN_SIZE);
    if size > half {
        return None;
    }
    let skewed = half.saturating_add(COPY_SKEW);
    Some(if skewed.saturating_add(size) <= buffer {
        skewed
    } else {
        half
    })
}

/// The buffer offsets of a triad's `b` and `c` arrays of `size` bytes each (`a` is at 0) in a
/// buffer of `buffer` bytes: a third and two thirds of the buffer (whole pages), each moved
/// by [`COPY_SKEW`] per place where that fits, for the reason a copy's second window is.
/// `None` when the buffer does not hold all three.
pub fn triad_partners(size: u64, buffer: u64) -> Option<(u64, u64)> {
    let third = (buffer / 3 / MIN_SIZE).saturating_mul(MIN_SIZE);
    if size > third {
        return None;
    }
    let skewed = third
        .saturating_add(COPY_SKEW)
        .saturating_mul(2)
        .saturating_add(size);
    let skew = if skewed <= buffer { COPY_SKEW } else { 0 };
    let b = third.saturating_add(skew);
    Some((b, b.saturating_mul(2)))
}

/// The state a point starts from, as its `result` record's `start` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// Everything the point touches was cleaned and invalidated to the point of coherency
    /// through `normal-wb` right before the warm-up: no line of it is in a cache.
    Invalidated,
    /// No maintenance before the warm-up: whatever the previous point left.
    Warm,
    /// As [`Start::Invalidated`], then before every timed pass the range is written through
    /// the alias (untimed), so the maintenance finds the lines [`Lines`] names.
    Written,
    /// As [`Start::Written`], but written, cleaned with `DC CVAC` and written again with the
    /// same values: lines dirty where the type allocates, yet identical to memory, so an
    /// invalidate loses nothing.
    Rewritten,
}

impl Start {
    /// Its name in records.
    pub const fn name(self) -> &'static str {
        match self {
            Start::Invalidated => "invalidated",
            Start::Warm => "warm",
            Start::Written => "written",
            Start::Rewritten => "rewritten",
        }
    }
}

/// What writes through an alias leave in the data cache, by the alias's MAIR attribute: the
/// lines a maintenance kernel then finds (its `result` record's `lines`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Lines {
    /// Write-back, write-allocate: the lines are present and dirty.
    Dirty,
    /// Write-through, write-allocate: present and clean (memory already holds the data).
    Clean,
    /// Cacheable without write-allocate: the writes go to memory; a line is present only
    /// where the core ignores the hint.
    NotAllocated,
    /// Non-cacheable or Device: no line is ever present; the maintenance takes the no-line
    /// path.
    NoLine,
}

impl Lines {
    /// Its name in records.
    pub const fn name(self) -> &'static str {
        match self {
            Lines::Dirty => "dirty",
            Lines::Clean => "clean",
            Lines::NotAllocated => "not-allocated",
            Lines::NoLine => "no-line",
        }
    }

    /// What writes through memory of MAIR attribute byte `mair` leave, by its inner
    /// attribute (the caches closest to the core): Device (`0b0000_xxxx`) and inner
    /// Non-cacheable (`0b0100`) hold no line; write-back (`0b01RW` transient with RW not 0,
    /// `0b11RW`) and write-through (`0b00RW` transient, `0b10RW`) hold one only with the
    /// write-allocate bit W.
    pub const fn after_writes(mair: u8) -> Lines {
        if mair >> 4 == 0 {
            return Lines::NoLine; // Device
        }
        match mair & 0xf {
            // Non-cacheable (and the unpredictable 0b0000 with a Normal outer attribute).
            0b0000 | 0b0100 => Lines::NoLine,
            inner => match (inner & 0b0100 != 0, inner & 0b0001 != 0) {
                (true, true) => Lines::Dirty,
                (false, true) => Lines::Clean,
                (_, false) => Lines::NotAllocated,
            },
        }
    }
}

/// Bytes each core moves in the multi-core scaling when the sweep gives no DRAM point larger
/// (a quick run uses a sixteenth of it).
pub const SCALING_PART: u64 = 4 * MIB;

/// Each core's part of the multi-core scaling (and the loaded latency's streams).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    /// Bytes per core: a power of two, `cores` of them fit in the buffer.
    pub bytes: u64,
    /// Whether it is below the DRAM point it should reach (a full run's parts reach past the
    /// last cache, a system cache included, unless the buffer is too small).
    pub below_dram: bool,
}

/// The part of each of `cores` cores in a `buffer`-byte buffer: at least [`SCALING_PART`] and
/// the DRAM point `dram` (`system_cache::Finding::bound`: 4x the last step of the latency
/// curve, a system cache CLIDR does not report included), a sixteenth of [`SCALING_PART`]
/// when `quick`; a power of two, as large as that and the buffer allow. `None` with fewer
/// than two cores or below 4 KiB.
pub fn scaling_part(buffer: u64, cores: u64, quick: bool, dram: u64) -> Option<Part> {
    let want = if quick {
        SCALING_PART / 16
    } else {
        SCALING_PART.max(dram)
    };
    let p = buffer
        .checked_div(cores)?
        .min(want)
        .checked_next_power_of_two()?;
    let bytes = if p.saturating_mul(cores) > buffer {
        p / 2
    } else {
        p
    };
    (cores >= 2 && bytes >= MIN_SIZE).then_some(Part {
        bytes,
        below_dram: !quick && bytes < dram,
    })
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    #[test]
    fn a_point_worse_than_both_neighbours_is_retaken_a_step_is_not() {
        let taken = |row: &[Option<u64>], higher| retakes(row, higher).collect::<Vec<_>>();
        // The fleet table's case: the 16 KiB write point of a72, 37,623 MB/s amid ~71,638
        // (all three back-to-back reps hit by one disturbance).
        let row = [
            Some(70_912),
            Some(71_638),
            Some(37_623),
            Some(71_020),
            Some(69_500),
        ];
        assert_eq!(taken(&row, true), [2]);
        // A step down across a cache level, and one up in latency: monotone, not retaken.
        let cliff = [
            Some(70_000),
            Some(69_000),
            Some(30_000),
            Some(12_000),
            Some(11_900),
        ];
        assert!(taken(&cliff, true).is_empty());
        let latency = [Some(300), Some(310), Some(900), Some(2_500), Some(2_600)];
        assert!(taken(&latency, false).is_empty());
        // A latency spike (lower is better) is; so is a dip on only 1.25x exactly.
        let spike = [Some(300), Some(1_200), Some(310)];
        assert_eq!(taken(&spike, false), [1]);
        assert_eq!(taken(&[Some(125), Some(100), Some(125)], true), [1]);
        assert!(taken(&[Some(124), Some(100), Some(125)], true).is_empty());
        // The ends have one neighbour and are left; so is a point beside a gap or a 0.
        assert!(taken(&[Some(10), Some(100), Some(100)], true).is_empty());
        assert!(taken(
            &[None, Some(10), Some(100), None, Some(10), Some(100)],
            true
        )
        .is_empty());
        assert!(taken(&[Some(100), Some(0), Some(100)], true).is_empty());
    }
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
    fn a_kernel_measured_at_the_largest_size_gets_that_size_alone() {
        use crate::kernel::Kernel;
        let sizes = plan(4 * KIB, 8 * MIB, 256 * MIB);
        assert_eq!(sizes.for_kernel(Kernel::Triad.spec()).as_slice(), [8 * MIB]);
        assert_eq!(
            sizes.for_kernel(Kernel::ReadRandom.spec()).as_slice(),
            [8 * MIB]
        );
        let all = sizes.for_kernel(Kernel::ReadLdp.spec());
        assert_eq!(all.as_slice(), sizes.as_slice());
        assert!(Sizes::new().for_kernel(Kernel::Triad.spec()).is_empty());
    }

    #[test]
    fn a_triads_arrays_lie_apart_in_the_buffer() {
        for buffer in [12 * KIB, 32 * MIB, 33 * MIB + 12 * KIB, 256 * MIB] {
            let mut size = MIN_SIZE;
            while let Some((b, c)) = triad_partners(size, buffer) {
                assert!(
                    size <= b && b + size <= c && c + size <= buffer,
                    "{buffer} {size}"
                );
                assert!(b.is_multiple_of(MIN_SIZE) && c.is_multiple_of(MIN_SIZE));
                size *= 2;
            }
            assert!(size * 3 > buffer, "{buffer}: {size} left out");
        }
        assert_eq!(
            triad_partners(8 * MIB, 32 * MIB),
            Some((10_920 * KIB + COPY_SKEW, 2 * (10_920 * KIB + COPY_SKEW)))
        );
        assert_eq!(triad_partners(MIB, 2 * MIB), None);
    }

    #[test]
    fn default_upper_end() {
        assert_eq!(default_upper(None, 256 * MIB, false), 8 * MIB);
        assert_eq!(default_upper(Some(MIB), 256 * MIB, false), 8 * MIB);
        // 4 × 3 MiB = 12 MiB, rounded up to 16 MiB; 4 × 24 MiB is capped at 32 MiB.
        assert_eq!(default_upper(Some(3 * MIB), 256 * MIB, false), 16 * MIB);
        assert_eq!(default_upper(Some(24 * MIB), 256 * MIB, false), 32 * MIB);
        assert_eq!(default_upper(Some(32 * MIB), 256 * MIB, false), 32 * MIB);
        // Capped by the buffer, rounded down to a power of two.
        assert_eq!(default_upper(Some(32 * MIB), 48 * MIB, false), 32 * MIB);
        assert_eq!(default_upper(None, 8 * MIB, false), 8 * MIB);
        assert_eq!(default_upper(None, 6 * MIB, false), 4 * MIB);
        assert_eq!(default_upper(Some(u64::MAX), u64::MAX, false), 32 * MIB);
        assert_eq!(default_upper(None, 0, false), 0);
    }

    #[test]
    fn sizes_past_the_plan() {
        assert_eq!(list(past(8 * MIB, 32 * MIB)), [16 * MIB, 32 * MIB]);
        assert_eq!(list(past(8 * MIB, 48 * MIB)), [16 * MIB, 32 * MIB]);
        assert_eq!(list(past(8 * MIB, GIB)).len(), 7);
        assert!(past(32 * MIB, 32 * MIB).is_empty());
        assert!(past(32 * MIB, 63 * MIB).is_empty());
        assert!(past(1 << 63, u64::MAX).is_empty());
        assert_eq!(past(4 * KIB, u64::MAX).len(), MAX_SIZES);
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

    #[test]
    fn samples_last_long_enough_for_the_counter() {
        assert_eq!(min_sample_ticks(62_500_000), 1250); // QEMU: 20 µs
        assert_eq!(min_sample_ticks(19_200_000), 1000); // 52 µs: the tick rule wins
        assert_eq!(min_sample_ticks(54_000_000), 1080);
        assert_eq!(min_sample_ticks(1_000_000_000), 20_000);
        assert_eq!(min_sample_ticks(0), MIN_SAMPLE_TICKS);
        assert_eq!(min_sample_ticks(u64::MAX), u64::MAX / 50_000 + 1);
        // A counter in 62-tick steps (user-mode QEMU): 1000 steps.
        assert_eq!(min_sample_ticks_stepped(62_500_000, 62), 62_000);
        assert_eq!(min_sample_ticks_stepped(62_500_000, 1), 1250);
        assert_eq!(min_sample_ticks_stepped(62_500_000, 0), 1250);
        assert_eq!(min_sample_ticks_stepped(1, u64::MAX), u64::MAX);
        assert_eq!(ticks_to_ns(1250, 62_500_000), 20_000);
        assert_eq!(ticks_to_ns(1000, 19_200_000), 52_083);
        assert_eq!(ticks_to_ns(5, 0), 0);
        assert_eq!(ticks_to_ns(u64::MAX, 1), u64::MAX);
    }

    #[test]
    fn passes_from_a_probe() {
        assert_eq!(passes_for(1250, 1, 100, 1000), 13);
        assert_eq!(passes_for(1250, 4, 1000, 1000), 5);
        assert_eq!(passes_for(1250, 1, 5000, 1000), 1); // never below one pass
        assert_eq!(passes_for(1250, 1, 0, 1000), 1000); // no tick: capped
        assert_eq!(passes_for(1250, 1, 1, 0), 1);
        assert_eq!(passes_for(u64::MAX, u64::MAX, 1, u64::MAX), u64::MAX);
        assert_eq!(max_passes(4 * KIB), 16 * KIB);
        assert_eq!(max_passes(MAX_SAMPLE_BYTES * 2), 1);
        assert_eq!(max_passes(0), MAX_SAMPLE_BYTES);
    }

    /// A synthetic loop: `cold` extra ticks on its first pass, then `per_pass` ticks.
    fn probe(cold: u64, per_pass: u64) -> impl FnMut(u64) -> u64 {
        let mut first = true;
        move |p| {
            let extra = if first { cold } else { 0 };
            first = false;
            p * per_pass + extra
        }
    }

    #[test]
    fn calibration_reaches_the_minimum_sample() {
        // 4 KiB at 10 ticks per pass, a cold first pass of 200 ticks.
        let c = calibrate(1250, 1 << 20, probe(200, 10));
        assert_eq!(c.passes, 125);
        assert!(c.passes * 10 >= 1250);
        assert!(c.probe_ticks * 2 >= 1250);
        // The warm-up stays within about twice the minimum sample.
        assert!(c.warm_up_passes * 10 <= 2 * 1250 + 200, "{c:?}");
        // A pass longer than the sample: one pass, one probe.
        let c = calibrate(1250, 1 << 20, probe(0, 9000));
        assert_eq!((c.passes, c.warm_up_passes, c.probe_ticks), (1, 1, 9000));
        // Half the minimum in one pass: two passes.
        let c = calibrate(1250, 1 << 20, probe(0, 700));
        assert_eq!((c.passes, c.warm_up_passes), (2, 1));
        // With the samples' own check, never shorter than the minimum, whatever the rate
        // and however slow the first pass.
        for per_pass in [1, 2, 3, 7, 10, 99, 300, 624, 625, 626, 1249, 1250, 1251] {
            for cold in [0, 1, 50, 5000] {
                let mut timed = probe(cold, per_pass);
                let c = calibrate(1250, 1 << 20, &mut timed);
                assert!(
                    c.warm_up_passes * per_pass <= 2 * 1250 + 3 * per_pass + cold,
                    "{c:?}"
                );
                let mut passes = c.passes;
                let mut rounds = 0;
                while let Some(more) = too_short(passes, timed(passes), 1250, 1 << 20) {
                    assert!(more >= 2 * passes);
                    passes = more;
                    rounds += 1;
                }
                assert!(rounds <= 12, "{per_pass} {cold}");
                assert!(passes * per_pass >= 1250, "{per_pass} {cold}: {c:?}");
                if cold == 0 {
                    assert_eq!(rounds, 0, "{per_pass} {cold}");
                    assert!(passes * per_pass <= 2 * 1250 + 2 * per_pass, "{c:?}");
                }
            }
        }
        assert_eq!(too_short(4, 1250, 1250, 100), None);
        assert_eq!(too_short(4, 1000, 1250, 100), Some(8));
        assert_eq!(too_short(4, 100, 1250, 100), Some(50));
        assert_eq!(too_short(4, 0, 1250, 100), Some(100));
        assert_eq!(too_short(100, 0, 1250, 100), None);
    }

    #[test]
    fn calibration_is_bounded_on_a_stopped_counter() {
        let mut probes = 0;
        let c = calibrate(1250, 1000, |_| {
            probes += 1;
            0
        });
        assert_eq!(c.passes, 1000);
        assert!(probes <= 11, "{probes}");
        assert!(c.warm_up_passes < 2 * 1000);
        let c = calibrate(1250, 0, |_| 0);
        assert_eq!((c.passes, c.warm_up_passes), (1, 1));
    }

    #[test]
    fn large_sets_warm_up_over_their_tail() {
        assert_eq!(warm_up_tail(8 * MIB, Some(MIB)), Some(2 * MIB));
        assert_eq!(warm_up_tail(4 * MIB, Some(MIB)), Some(2 * MIB));
        assert_eq!(warm_up_tail(2 * MIB, Some(MIB)), None);
        assert_eq!(warm_up_tail(32 * MIB, None), None);
        assert_eq!(warm_up_tail(32 * MIB, Some(100)), None);
        assert_eq!(warm_up_tail(u64::MAX, Some(u64::MAX)), None);
        assert_eq!(warm_up_tail(32 * MIB, Some(3 * MIB)), Some(6 * MIB));
    }

    #[test]
    fn chase_passes_and_warm_up() {
        assert_eq!(chase_pass(64), 64); // 4 KiB: one lap
        assert_eq!(chase_pass(131_072), CHASE_PASS_LOADS);
        assert_eq!(chase_pass(0), 8);
        assert_eq!(chase_pass(13), 16);
        // 8 MiB of 64-byte lines with a 1 MiB last level: two caches' worth, not the lap.
        assert_eq!(chase_warm_up(131_072, 64, Some(MIB)), 32_768);
        // Within twice the cache: the whole lap.
        assert_eq!(chase_warm_up(16_384, 64, Some(MIB)), 16_384);
        assert_eq!(chase_warm_up(131_072, 64, None), 131_072);
        assert_eq!(chase_warm_up(0, 64, Some(MIB)), 8);
        assert_eq!(chase_warm_up(100, 0, Some(MIB)), 104);
        // On hardware a whole lap: 8 MiB of lines past a 1 MiB L2 may sit in a system cache.
        assert_eq!(
            chase_warm_up(131_072, 64, chase_warm_up_cap(Some(MIB), false)),
            131_072
        );
        assert_eq!(
            chase_warm_up(131_072, 64, chase_warm_up_cap(Some(MIB), true)),
            32_768
        );
        assert_eq!(chase_warm_up_cap(None, true), None);
    }

    #[test]
    fn copies_are_skewed_off_half_the_buffer() {
        assert_eq!(copy_partner(8 * MIB, 32 * MIB), Some(16 * MIB + COPY_SKEW));
        assert_eq!(copy_partner(4 * KIB, 32 * MIB), Some(16 * MIB + COPY_SKEW));
        assert_eq!(copy_partner(16 * MIB, 32 * MIB), Some(16 * MIB)); // no room to skew
        assert_eq!(copy_partner(16 * MIB + 4 * KIB, 32 * MIB), None);
        assert_eq!(copy_partner(4 * KIB, 4 * KIB), None);
        assert_eq!(copy_partner(4 * KIB, 8 * KIB), Some(4 * KIB));
        assert_eq!(copy_partner(4 * KIB, 12 * KIB), Some(4 * KIB)); // half rounded to pages
        for size in [4 * KIB, MIB, 7 * MIB, 16 * MIB] {
            for buffer in [8 * KIB, 3 * MIB, 32 * MIB, 33 * MIB + 8] {
                if let Some(at) = copy_partner(size, buffer) {
                    assert!(at >= size && at + size <= buffer && at % MIN_SIZE == 0);
                }
            }
        }
    }

    #[test]
    fn line_states_follow_the_attributes() {
        use crate::memtype::{Role, MEMTYPES};
        // The shipped table's bytes, slot by slot.
        let shipped = [0xff, 0xcc, 0xbb, 0x44, 0x00, 0x04, 0x08, 0x0c];
        let names: Vec<&str> = shipped
            .iter()
            .map(|&b| Lines::after_writes(b).name())
            .collect();
        assert_eq!(
            names,
            [
                "dirty",
                "not-allocated",
                "clean",
                "no-line",
                "no-line",
                "no-line",
                "no-line",
                "no-line"
            ]
        );
        // Whatever the table holds, a role's lines follow from what it stands for.
        for t in &MEMTYPES {
            let want = match t.role {
                Role::WriteBack => Some(Lines::Dirty),
                Role::WriteThrough => Some(Lines::Clean),
                Role::NonCacheable | Role::Device => Some(Lines::NoLine),
                Role::WriteBackHinted => None,
            };
            if let Some(w) = want {
                assert_eq!(Lines::after_writes(t.mair), w, "{}", t.name);
            }
        }
        assert_eq!(Lines::after_writes(0x77), Lines::Dirty); // write-back transient, RW
        assert_eq!(Lines::after_writes(0x66), Lines::NotAllocated); // transient, R only
        assert_eq!(Lines::after_writes(0x88), Lines::NotAllocated); // write-through, no alloc
        assert_eq!(Lines::after_writes(0x11), Lines::Clean); // write-through transient, W
        assert_eq!(Lines::after_writes(0xf0), Lines::NoLine);
        assert_eq!(Lines::after_writes(0xf4), Lines::NoLine); // inner non-cacheable
        assert_eq!(Lines::after_writes(0x4f), Lines::Dirty); // outer NC, inner WB
        for s in [
            Start::Invalidated,
            Start::Warm,
            Start::Written,
            Start::Rewritten,
        ] {
            assert!(!s.name().is_empty());
        }
    }

    #[test]
    fn scaling_parts_reach_past_a_system_cache_when_the_buffer_allows() {
        // No system cache: 4 MiB per core (4x a 1 MiB L2 is the DRAM point).
        let part = |buffer, cores, quick, dram| scaling_part(buffer, cores, quick, dram);
        assert_eq!(
            part(64 * MIB, 4, false, 4 * MIB),
            Some(Part {
                bytes: 4 * MIB,
                below_dram: false
            })
        );
        // A 32 MiB system cache: the DRAM point is 128 MiB, which each core's part reaches in
        // a buffer of 512 MiB ...
        assert_eq!(
            part(512 * MIB, 4, false, 128 * MIB),
            Some(Part {
                bytes: 128 * MIB,
                below_dram: false
            })
        );
        // ... and in 64 MiB cannot: said.
        assert_eq!(
            part(64 * MIB, 4, false, 128 * MIB),
            Some(Part {
                bytes: 16 * MIB,
                below_dram: true
            })
        );
        // Quick runs take a sixteenth, and are not meant to reach DRAM.
        assert_eq!(
            part(64 * MIB, 4, true, 128 * MIB),
            Some(Part {
                bytes: 256 * KIB,
                below_dram: false
            })
        );
        // A buffer that is not a power of two: the parts still fit.
        assert_eq!(
            part(48 * MIB, 4, false, 128 * MIB),
            Some(Part {
                bytes: 8 * MIB,
                below_dram: true
            })
        );
        assert_eq!(part(64 * MIB, 1, false, 0), None);
        assert_eq!(part(8 * KIB, 4, false, 0), None);
        assert_eq!(part(64 * MIB, 0, false, 0), None);
    }
}
