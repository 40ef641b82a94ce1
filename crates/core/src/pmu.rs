//! The PMU events mairbench counts around every timed sample: one table ([`EVENTS`]), the
//! choice of at most PMCR_EL0.N of them from what PMCEID0/1_EL0 describe ([`Choice::select`]),
//! fixed-size counts ([`Counts`]) and their per-64-byte-line figures for a record
//! ([`Choice::per_line`]).
//!
//! How the Arm ARM (DDI 0487, "PMCEID0_EL0", "PMCEID1_EL0" and "The PMU event number space and
//! common events") identifies events: bit n of PMCEID0_EL0\[31:0\] is Common event n
//! (0x00–0x1F), bit n of PMCEID1_EL0\[31:0\] is event 0x20 + n (0x20–0x3F), and from PMUv3p1
//! the upper halves \[63:32\] describe 0x4000–0x403F. A set bit means "implemented and
//! counted"; Arm recommends a clear bit for an event that is never counted. Nothing identifies
//! events 0x40–0xBF: in Armv8.0 those are the Arm-recommended IMPLEMENTATION DEFINED events,
//! where BUS_ACCESS_RD (0x60) and BUS_ACCESS_WR (0x61) live. A core that does not implement
//! them may count nothing, or something else, and a 0 would then read as "no bus reads". So
//! they are counted only where two things hold: the core's PMCEID describes BUS_ACCESS (0x19),
//! of which they are the read/write split, and the core is one whose Linux perf event map
//! (drivers/perf/arm_pmuv3.c) names them: Cortex-A53, A57, A72 and A75 ([`SPLIT_BUS_CORES`]).
//!
//! The order of [`EVENTS`] is the priority when there are fewer counters than events (most
//! cores have 6, QEMU's models 4 to 6). It follows what the verdicts read:
//! 1. `l1d_cache_refill`: ≈0 refills per line on a re-read of an L1-sized set says the data
//!    cache holds the lines (`caches-on`); a refill per line on every pass says it does not.
//! 2. `bus_access`: one bus access per line on the Non-cacheable and Device aliases says every
//!    access went out (`uncached`).
//! 3. `l1d_cache`: the lookups, the denominator of the refill ratio, and whether an uncached
//!    access looked up the cache at all.
//! 4. `l2d_cache_refill`: the same refill evidence one level out, for L2-sized sets.
//! 5. `l1d_cache_wb`: write-backs of dirty lines: write-back memory evicts them, write-through
//!    memory never has any (`write-through`, `write-allocate`).
//! 6. `l2d_cache`: L2 lookups.
//! 7. `mem_access`: every data access; the kernels' own instruction counts say the same, so
//!    it comes last of the identified events.
//! 8. and 9. `bus_access_rd`, `bus_access_wr`: the split of `bus_access`, last because no ID
//!    register vouches for them (see above).

/// How a core says that it counts an event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Id {
    /// A Common event: its PMCEID0/1_EL0 bit.
    Pmceid,
    /// An Arm-recommended IMPLEMENTATION DEFINED event (0x40–0xBF), identified by no
    /// register: counted only on [`SPLIT_BUS_CORES`] whose PMCEID describes `bus_access`.
    Recommended,
}

/// One PMU event of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Event {
    /// The record key: the Arm ARM mnemonic in lower case, e.g. `l1d_cache_refill`.
    pub name: &'static str,
    /// The event number (`PMEVTYPER<n>_EL0.evtCount`).
    pub number: u16,
    /// What it counts, in one line.
    pub counts: &'static str,
    /// How a core says it counts it.
    pub id: Id,
}

const fn event(name: &'static str, number: u16, counts: &'static str, id: Id) -> Event {
    Event {
        name,
        number,
        counts,
        id,
    }
}

/// The events mairbench counts, highest priority first (see the module documentation).
pub const EVENTS: [Event; 9] = [
    event(
        "l1d_cache_refill",
        0x03,
        "L1 data cache refills: accesses that missed L1 and brought a line in",
        Id::Pmceid,
    ),
    event(
        "bus_access",
        0x19,
        "accesses on the core's bus to the rest of the memory system (beats or transactions)",
        Id::Pmceid,
    ),
    event(
        "l1d_cache",
        0x04,
        "L1 data cache accesses (lookups, hit or miss)",
        Id::Pmceid,
    ),
    event(
        "l2d_cache_refill",
        0x17,
        "L2 data cache refills from outside L2",
        Id::Pmceid,
    ),
    event(
        "l1d_cache_wb",
        0x15,
        "L1 data cache write-backs of dirty lines (evictions and cleans)",
        Id::Pmceid,
    ),
    event("l2d_cache", 0x16, "L2 data cache accesses", Id::Pmceid),
    event(
        "mem_access",
        0x13,
        "data memory accesses (loads and stores as the load/store unit issues them)",
        Id::Pmceid,
    ),
    event(
        "bus_access_rd",
        0x60,
        "bus accesses that read",
        Id::Recommended,
    ),
    event(
        "bus_access_wr",
        0x61,
        "bus accesses that write",
        Id::Recommended,
    ),
];

/// Most events counted at once: the table's length.
pub const MAX: usize = EVENTS.len();

/// Columns of [`EVENTS`], made at compile time, so that code that needs only names or
/// numbers does not carry the descriptions.
#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    reason = "evaluated at compile time: an index out of bounds or an overflow is a build error"
)]
const NAMES: [&str; MAX] = {
    let mut names = [""; MAX];
    let mut i = 0;
    while i < MAX {
        names[i] = EVENTS[i].name;
        i += 1;
    }
    names
};
/// The index in [`EVENTS`] of the event whose record key is `name` (searched in the names
/// alone: the firmware then carries no description).
pub fn index(name: &str) -> Option<usize> {
    NAMES.iter().position(|&n| n == name)
}

#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    reason = "evaluated at compile time: an index out of bounds or an overflow is a build error"
)]
const NUMBERS: [u16; MAX] = {
    let mut numbers = [0; MAX];
    let mut i = 0;
    while i < MAX {
        numbers[i] = EVENTS[i].number;
        i += 1;
    }
    numbers
};
#[allow(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    reason = "evaluated at compile time: an index out of bounds or an overflow is a build error"
)]
const IDS: [Id; MAX] = {
    let mut ids = [Id::Pmceid; MAX];
    let mut i = 0;
    while i < MAX {
        ids[i] = EVENTS[i].id;
        i += 1;
    }
    ids
};

/// BUS_ACCESS, of which the recommended BUS_ACCESS_RD/WR are the read/write split.
const BUS_ACCESS: u16 = 0x19;

/// `SW_INCR`, event 0x00: counts writes to PMSWINC_EL0; every PMUv3 implements it (the
/// driver's self-check programs it).
pub const SW_INCR: u16 = 0x00;

/// MIDR_EL1 implementer (Arm, 0x41) and part numbers of the cores whose Linux perf event map
/// counts BUS_ACCESS_RD/WR (0x60/0x61): Cortex-A53, A57, A72, A75.
pub const SPLIT_BUS_CORES: [(u8, u16); 4] =
    [(0x41, 0xd03), (0x41, 0xd07), (0x41, 0xd08), (0x41, 0xd0a)];

/// Bytes per cache line in the per-line figures (every Armv8-A core mairbench knows).
pub const LINE: u64 = 64;

/// Whether PMCEID0/1_EL0 say that `number` is implemented; `None` when the number is outside
/// what they describe (0x00–0x3F; 0x4000–0x403F in their upper halves).
pub fn described(pmceid0: u64, pmceid1: u64, number: u16) -> Option<bool> {
    let (reg, bit) = match number {
        0x00..=0x1f => (pmceid0, number),
        0x20..=0x3f => (pmceid1, number & 0x1f),
        0x4000..=0x401f => (pmceid0, 32 | (number & 0x1f)),
        0x4020..=0x403f => (pmceid1, 32 | (number & 0x1f)),
        _ => return None,
    };
    Some(reg >> bit & 1 != 0)
}

/// Why no event is counted; `why` is what the `config` record's `pmu_reason` says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unavailable {
    /// ID_AA64DFR0_EL1.PMUVer: no architected PMU.
    NoPmu,
    /// PMCR_EL0.N is 0 (a hypervisor may have kept every counter, MDCR_EL2.HPMN = 0).
    NoCounters,
    /// Reading or programming the event counters took an exception.
    Trapped,
    /// PMCEID0/1_EL0 describe none of the table's events.
    NoMemoryEvents,
}

impl Unavailable {
    /// The reason in words.
    pub fn why(self) -> &'static str {
        match self {
            Unavailable::NoPmu => concat!("no PMU (", crate::arch_name!(pmu_id), ")"),
            Unavailable::NoCounters => {
                concat!("no event counters (", crate::arch_name!(pmcr_n), " is 0)")
            }
            Unavailable::Trapped => "event counters trapped (an access took an exception)",
            Unavailable::NoMemoryEvents => {
                concat!(
                    "the PMU implements none of the memory events (",
                    crate::arch_name!(pmceid),
                    ")"
                )
            }
        }
    }
}

/// The events chosen for a core, in table order; slot i is counted by event counter i.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Choice {
    /// Indices into [`EVENTS`]; the first `len` are used.
    events: [u8; MAX],
    len: u8,
}

impl Choice {
    /// Chooses, in table order, the events the core implements: those PMCEID0/1_EL0 describe,
    /// and the recommended ones on [`SPLIT_BUS_CORES`] that describe `bus_access`, up to
    /// `counters` (PMCR_EL0.N) of them.
    pub fn select(pmceid0: u64, pmceid1: u64, counters: u64, midr: u64) -> Choice {
        let bus = described(pmceid0, pmceid1, BUS_ACCESS).unwrap_or(false);
        let implementer = (midr >> 24 & 0xff) as u8;
        let part = (midr >> 4 & 0xfff) as u16;
        let split = bus && SPLIT_BUS_CORES.contains(&(implementer, part));
        let mut choice = Choice {
            events: [0; MAX],
            len: 0,
        };
        let limit = usize::try_from(counters).unwrap_or(MAX).min(MAX);
        for (index, (&number, &id)) in NUMBERS.iter().zip(IDS.iter()).enumerate() {
            let counted = match id {
                Id::Pmceid => described(pmceid0, pmceid1, number) == Some(true),
                Id::Recommended => split,
            };
            if !counted || usize::from(choice.len) >= limit {
                continue;
            }
            if let Some(slot) = choice.events.get_mut(usize::from(choice.len)) {
                *slot = index as u8;
                choice.len = choice.len.saturating_add(1);
            }
        }
        choice
    }

    /// How many events are counted (event counters 0 to `len() - 1`).
    pub fn len(&self) -> usize {
        usize::from(self.len)
    }

    /// Whether nothing is counted.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The chosen events, slot by slot.
    pub fn events(&self) -> impl Iterator<Item = &'static Event> + '_ {
        self.indices().filter_map(|i| EVENTS.get(i))
    }

    fn indices(&self) -> impl Iterator<Item = usize> + '_ {
        self.events.iter().take(self.len()).map(|&i| usize::from(i))
    }

    /// Their record keys, slot by slot (without the rest of the table, which the firmware
    /// then leaves out of its image).
    pub fn names(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.indices().filter_map(|i| NAMES.get(i).copied())
    }

    /// Their event numbers, slot by slot.
    pub fn numbers(&self) -> impl Iterator<Item = u16> + '_ {
        self.indices().filter_map(|i| NUMBERS.get(i).copied())
    }

    /// Each event's count per 64-byte line of `bytes` (at least one line), in hundredths,
    /// rounded to nearest: what `Record::decimals("pmu", …)` writes.
    pub fn per_line<'a>(
        &'a self,
        counts: &'a Counts,
        bytes: u64,
    ) -> impl Iterator<Item = (&'static str, u64, u8)> + 'a {
        let lines = (bytes / LINE).max(1);
        self.names()
            .zip(counts.values.iter())
            .map(move |(name, &count)| (name, hundredths(count, lines), 2))
    }
}

/// `count / lines` in hundredths, rounded to nearest (saturating; `lines` ≥ 1).
fn hundredths(count: u64, lines: u64) -> u64 {
    // u64 × 100 + u64 fits in u128: no overflow; the divisor is at least 1.
    let lines = u128::from(lines.max(1));
    let scaled = crate::stats::div_rem(
        u128::from(count)
            .saturating_mul(100)
            .saturating_add(lines / 2),
        lines,
    )
    .map_or(u128::MAX, |(q, _)| q);
    u64::try_from(scaled).unwrap_or(u64::MAX)
}

/// One reading of the chosen event counters, slot by slot (no allocation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    values: [u64; MAX],
}

impl Counts {
    /// The readings of slots 0, 1, …; slots beyond the choice stay 0.
    pub const fn new(values: [u64; MAX]) -> Counts {
        Counts { values }
    }

    /// The value of slot `i` (0 outside the table).
    pub fn get(&self, i: usize) -> u64 {
        self.values.get(i).copied().unwrap_or(0)
    }

    /// Events counted from `earlier` to `self`, counters of 32 bits (`PMEVCNTR<n>_EL0` without
    /// FEAT_PMUv3p5's PMCR_EL0.LP): each difference is taken modulo 2^32, right when a counter
    /// wrapped once between the readings (fewer than 2^32 events, seconds at GHz rates).
    pub fn since(&self, earlier: &Counts) -> Counts {
        let mut delta = Counts::default();
        for ((d, now), then) in delta
            .values
            .iter_mut()
            .zip(self.values.iter())
            .zip(earlier.values.iter())
        {
            *d = now.wrapping_sub(*then) & u64::from(u32::MAX);
        }
        delta
    }
}

/// Cycles per second of a cycle counter that advanced `cycles` while the generic timer
/// advanced `ticks` at `timer_hz`; `None` without a timer frequency or interval.
pub fn cycle_rate_hz(cycles: u64, ticks: u64, timer_hz: u64) -> Option<u64> {
    if timer_hz == 0 {
        return None;
    }
    // u64 × u64 fits in u128; a zero interval is `None` from div_rem.
    let (hz, _) = crate::stats::div_rem(
        u128::from(cycles).saturating_mul(u128::from(timer_hz)),
        u128::from(ticks),
    )?;
    u64::try_from(hz).ok()
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    /// Cortex-A53 reset values (Zynq UltraScale+ register reference UG1087, A53_PMU
    /// CEID0_EL0 0x63FFFFFF and CEID1_EL0 0x00000001), PMCR_EL0.N 6, MIDR r0p4.
    const A53: (u64, u64, u64, u64) = (0x63ff_ffff, 0x1, 6, 0x410f_d034);
    /// Cortex-A76 (TRM section D5.1, as Renode's tlib models it: PMCEID0 0x7FFF0F3F,
    /// PMCEID1 0x00F2AE7F, PMCR_EL0 0x410b3000: N 6).
    const A76: (u64, u64, u64, u64) = (0x7fff_0f3f, 0x00f2_ae7f, 6, 0x414f_d0b1);
    /// Cortex-A72 and Neoverse N1: synthetic (no published value found): the A72 with events
    /// 0x00–0x1D, the N1 as the A76 plus an upper-half bit (0x4000, an SPE event).
    const A72: (u64, u64, u64, u64) = (0x3fff_ffff, 0x0, 6, 0x410f_d083);
    const N1: (u64, u64, u64, u64) = (0x0000_0001_7fff_0f3f, 0x00f2_ae7f, 6, 0x413f_d0c1);
    /// QEMU TCG (target/arm/cpregs-pmu.c pm_events[]): SW_INCR and CPU_CYCLES (and
    /// INST_RETIRED under -icount), STALL_FRONTEND/BACKEND from PMUv3p1, STALL from PMUv3p4.
    const QEMU_A72: (u64, u64, u64, u64) = (0x0002_0001, 0x0, 6, 0x410f_d083);
    const QEMU_MAX: (u64, u64, u64, u64) = (0x0002_0001, 0x1000_0018, 6, 0x000f_0510);

    fn names((p0, p1, n, midr): (u64, u64, u64, u64)) -> Vec<&'static str> {
        Choice::select(p0, p1, n, midr).names().collect()
    }

    #[test]
    fn the_table_is_consistent() {
        assert_eq!(NAMES, EVENTS.map(|e| e.name));
        assert_eq!(NUMBERS, EVENTS.map(|e| e.number));
        assert_eq!(IDS, EVENTS.map(|e| e.id));
        let bus = EVENTS.iter().find(|e| e.name == "bus_access").unwrap();
        assert_eq!(bus.number, BUS_ACCESS);
        let all = Choice::select(u64::MAX, u64::MAX, 31, 0x410f_d034);
        assert!(all.events().map(|e| e.name).eq(all.names()));
        assert!(all.events().map(|e| e.number).eq(all.numbers()));
        for (i, e) in EVENTS.iter().enumerate() {
            assert!(e
                .name
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b == b'_' || b.is_ascii_digit()));
            assert!(!e.counts.is_empty());
            assert!(EVENTS[..i]
                .iter()
                .all(|o| o.name != e.name && o.number != e.number));
            // An event PMCEID describes is marked so, and the others are not.
            assert_eq!(
                described(0, 0, e.number).is_some(),
                e.id == Id::Pmceid,
                "{}",
                e.name
            );
        }
        // The brief's numbers.
        let number = |name| EVENTS.iter().find(|e| e.name == name).unwrap().number;
        assert_eq!(number("l1d_cache"), 0x04);
        assert_eq!(number("l1d_cache_refill"), 0x03);
        assert_eq!(number("l1d_cache_wb"), 0x15);
        assert_eq!(number("l2d_cache"), 0x16);
        assert_eq!(number("l2d_cache_refill"), 0x17);
        assert_eq!(number("mem_access"), 0x13);
        assert_eq!(number("bus_access"), 0x19);
        assert_eq!(number("bus_access_rd"), 0x60);
        assert_eq!(number("bus_access_wr"), 0x61);
    }

    #[test]
    fn pmceid_bits() {
        assert_eq!(described(1, 0, SW_INCR), Some(true));
        assert_eq!(described(0x8000_0000, 0, 0x1f), Some(true));
        assert_eq!(described(0x8000_0000, 0, 0x3f), Some(false));
        assert_eq!(described(0, 0x8000_0000, 0x3f), Some(true));
        assert_eq!(described(0, 1, 0x20), Some(true));
        assert_eq!(described(1 << 32, 0, 0x4000), Some(true));
        assert_eq!(described(1 << 32, 0, 0x00), Some(false));
        assert_eq!(described(0, 1 << 63, 0x403f), Some(true));
        for number in [0x40, 0x60, 0x61, 0xbf, 0x3fff, 0x4040, u16::MAX] {
            assert_eq!(described(u64::MAX, u64::MAX, number), None, "{number:#x}");
        }
    }

    #[test]
    fn real_cores() {
        // Six counters: the six highest priorities the core implements.
        let six = [
            "l1d_cache_refill",
            "bus_access",
            "l1d_cache",
            "l2d_cache_refill",
            "l1d_cache_wb",
            "l2d_cache",
        ];
        assert_eq!(names(A53), six);
        assert_eq!(names(A72), six);
        assert_eq!(names(A76), six);
        assert_eq!(names(N1), six);
        // With more counters the A53 and A72 add the bus split; the A76 and N1 do not.
        let more = |(p0, p1, _, midr)| names((p0, p1, 31, midr));
        assert_eq!(more(A53).len(), 9);
        assert_eq!(more(A72)[7..], ["bus_access_rd", "bus_access_wr"]);
        assert_eq!(more(A76).len(), 7);
        assert_eq!(more(N1)[6], "mem_access");
        assert_eq!(more(N1).len(), 7);
    }

    #[test]
    fn qemu_counts_no_memory_event() {
        assert!(Choice::select(QEMU_A72.0, QEMU_A72.1, 6, QEMU_A72.3).is_empty());
        assert!(Choice::select(QEMU_MAX.0, QEMU_MAX.1, 31, QEMU_MAX.3).is_empty());
        // A Cortex-A72 whose PMCEID lacks BUS_ACCESS gets no split either.
        let no_bus = A72.0 & !(1 << 0x19);
        let chosen = names((no_bus, 0, 31, A72.3));
        assert!(!chosen.iter().any(|n| n.starts_with("bus_access")));
        assert_eq!(chosen.len(), 6);
    }

    #[test]
    fn counter_limits() {
        let all = (u64::MAX, u64::MAX, 0, A53.3);
        assert!(Choice::select(all.0, all.1, 0, all.3).is_empty());
        assert_eq!(names((all.0, all.1, 1, all.3)), ["l1d_cache_refill"]);
        assert_eq!(Choice::select(all.0, all.1, 31, all.3).len(), MAX);
        assert_eq!(Choice::select(all.0, all.1, u64::MAX, all.3).len(), MAX);
        assert_eq!(
            names((all.0, all.1, 9, all.3)),
            EVENTS.iter().map(|e| e.name).collect::<Vec<_>>()
        );
        assert!(Choice::select(0, 0, 31, A53.3).is_empty());
        // Only the recommended events can never be chosen alone.
        assert!(Choice::select(0, 0, 31, 0x410f_d034)
            .names()
            .next()
            .is_none());
    }

    #[test]
    fn per_line_in_hundredths() {
        let choice = Choice::select(A53.0, A53.1, 2, A53.3);
        let counts = Counts::new([4096, 64, 999, 0, 0, 0, 0, 0, 0]);
        // 256 KiB: 4096 lines.
        let got: Vec<_> = choice.per_line(&counts, 256 * 1024).collect();
        assert_eq!(got, [("l1d_cache_refill", 100, 2), ("bus_access", 2, 2)]);
        // Rounded to nearest: 1 event over 3 lines is 0.33, 2 over 3 is 0.67.
        let third = Counts::new([1, 2, 0, 0, 0, 0, 0, 0, 0]);
        let got: Vec<_> = choice.per_line(&third, 3 * 64).map(|(_, v, _)| v).collect();
        assert_eq!(got, [33, 67]);
        // Less than a line counts as one; no overflow at the extremes.
        let big = Counts::new([u64::MAX; MAX]);
        let got: Vec<_> = choice.per_line(&big, 0).map(|(_, v, _)| v).collect();
        assert_eq!(got, [u64::MAX, u64::MAX]);
        let got: Vec<_> = choice.per_line(&big, u64::MAX).map(|(_, v, _)| v).collect();
        assert_eq!(got, [6400, 6400]);
        // Nothing chosen, nothing written.
        let none = Choice::select(0, 0, 6, 0);
        assert_eq!(none.per_line(&counts, 4096).count(), 0);
    }

    #[test]
    fn differences_wrap_at_32_bits() {
        let before = Counts::new([0xffff_fff0, 5, 0, 0, 0, 0, 0, 0, 7]);
        let after = Counts::new([0x0000_0010, 5, 1, 0, 0, 0, 0, 0, 6]);
        let d = after.since(&before);
        assert_eq!(d.get(0), 0x20);
        assert_eq!(d.get(1), 0);
        assert_eq!(d.get(2), 1);
        // A counter that "went back" by one wrapped almost all the way.
        assert_eq!(d.get(8), 0xffff_ffff);
        assert_eq!(d.get(MAX), 0);
        // Upper bits a reading may carry do not leak into the difference.
        let high = Counts::new([0x1_0000_0003, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(high.since(&Counts::default()).get(0), 3);
    }

    #[test]
    fn cycle_rates() {
        // QEMU: PMCCNTR counts virtual ns (1 GHz) against a 62.5 MHz CNTVCT, over 1 ms.
        assert_eq!(
            cycle_rate_hz(1_000_000, 62_500, 62_500_000),
            Some(1_000_000_000)
        );
        // A 1.5 GHz Cortex-A72 against a 54 MHz timer (Raspberry Pi 4).
        assert_eq!(
            cycle_rate_hz(1_500_000, 54_000, 54_000_000),
            Some(1_500_000_000)
        );
        assert_eq!(cycle_rate_hz(1, 0, 19_200_000), None);
        assert_eq!(cycle_rate_hz(1, 1, 0), None);
        assert_eq!(cycle_rate_hz(u64::MAX, 1, u64::MAX), None);
        assert_eq!(cycle_rate_hz(0, 19_200, 19_200_000), Some(0));
    }

    #[test]
    fn reasons_are_sentences() {
        for u in [
            Unavailable::NoPmu,
            Unavailable::NoCounters,
            Unavailable::Trapped,
            Unavailable::NoMemoryEvents,
        ] {
            assert!(!u.why().is_empty() && !u.why().ends_with('.'));
        }
    }
}
