//! Bring-up verdicts: the measurements of a run turned into `pass`, `warn`, `fail` or
//! `n/a` per question a bring-up engineer asks ("are the caches on?", "is the uncached alias
//! really uncached?", ...). One table ([`VERDICTS`]) names each verdict, what it checks, its
//! threshold and what a failure usually means on a board; `docs/bringup.md` holds its
//! Markdown ([`write_markdown`]), checked by a test.
//!
//! The judging is pure: the firmware fills [`Inputs`] (registers, the outcomes of its data
//! experiments, and a [`Sweep`] that answers for the measured points) and calls [`judge`].
//! Integers only: ratios are hundredths (`150` = 1.50×), like the rest of core.
//!
//! How the sizes are chosen, for every verdict that compares points of the sweep:
//! - the **L1 set**: the largest measured size ≤ half the first data cache (16 KiB for a
//!   32 KiB L1: the set stays resident whatever the replacement policy); without a reported
//!   cache, the smallest measured size;
//! - **across a cache of C bytes**: the largest measured size ≤ C/2 (inside) against the
//!   smallest measured size ≥ 2·C (outside): a working set at exactly C may already spill
//!   (pseudo-random replacement, other data in the cache), one at 2·C cannot fit;
//! - **DRAM**: the smallest measured size ≥ 4× the last-level cache.
//!
//! A kernel's values are in its table unit ([`crate::kernel::Unit`]); "faster" means more
//! MB/s or fewer ns. Under emulation ([`Inputs::emulated`]) every verdict resting on timings
//! or PMU counts is `n/a` ("QEMU models no caches"); register- and data-based ones still
//! pass or fail, and SCTLR_EL1.C or I clear fails `caches-on` everywhere.

use core::fmt::{self, Write};

use crate::cache::CacheLevel;
use crate::format::{Bytes, Decimal};
use crate::kernel::{Kernel, Unit};
use crate::memtype::{self, NORMAL_WB};
use crate::paging::Granule;
use crate::record::Record;
use crate::schema;

/// The outcome of one verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    /// Nothing to judge by: not measured, or resting on timings under emulation.
    NotApplicable,
    /// The board behaves as the check expects.
    Pass,
    /// Allowed by the architecture or not conclusive, but worth a look.
    Warn,
    /// The board does not behave as it must: the run fails.
    Fail,
}

impl Status {
    /// The status as records and the console name it: `pass`, `warn`, `fail` or `n/a`.
    pub const fn name(self) -> &'static str {
        match self {
            Status::Pass => "pass",
            Status::Warn => "warn",
            Status::Fail => "fail",
            Status::NotApplicable => "n/a",
        }
    }

    /// The status called `name`, if any (the inverse of [`Status::name`]).
    pub fn by_name(name: &str) -> Option<Status> {
        STATUSES.into_iter().find(|s| s.name() == name)
    }
}

/// Every [`Status`], from the least to the most severe (the order [`Verdicts::worst`] uses).
pub const STATUSES: [Status; 4] = [
    Status::NotApplicable,
    Status::Pass,
    Status::Warn,
    Status::Fail,
];

/// Which verdict (the position of its entry in [`VERDICTS`] is `name as usize`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Name {
    /// `caches-on`.
    CachesOn,
    /// `uncached`.
    Uncached,
    /// `write-allocate`.
    WriteAllocate,
    /// `write-through`.
    WriteThrough,
    /// `maintenance`.
    Maintenance,
    /// `device-read-cliff`.
    DeviceReadCliff,
    /// `smp-config`.
    SmpConfig,
    /// `clock`.
    Clock,
    /// `cache-geometry`.
    CacheGeometry,
}

impl Name {
    /// The verdict's entry in [`VERDICTS`].
    pub fn spec(self) -> &'static Spec {
        VERDICTS
            .iter()
            .find(|s| s.name == self)
            .unwrap_or(&VERDICTS[0])
    }

    /// The verdict's name, e.g. `caches-on`.
    pub fn id(self) -> &'static str {
        self.spec().id
    }
}

/// What a verdict rests on, which decides what it can say under emulation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Basis {
    /// Timings or PMU counts: `n/a` under emulation.
    Timing,
    /// Registers and data read back: judged under emulation too.
    Data,
    /// Registers decide `fail` everywhere; timings, PMU counts or data decide `pass`.
    Mixed,
}

impl Basis {
    /// What the verdict does under emulation, in words (the docs table's last column).
    pub const fn under_emulation(self) -> &'static str {
        match self {
            Basis::Timing => "n/a",
            Basis::Data => "judged",
            Basis::Mixed => "fail if SCTLR_EL1.C or I is clear, else n/a",
        }
    }
}

/// One row of the verdict table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Spec {
    /// Which verdict.
    pub name: Name,
    /// Its name in records and on the console, e.g. `caches-on`.
    pub id: &'static str,
    /// What it checks, one sentence.
    pub checks: &'static str,
    /// Its thresholds and why they were chosen.
    pub threshold: &'static str,
    /// What a `fail` (or `warn`) usually means on a board.
    pub failure: &'static str,
    /// What it rests on.
    pub basis: Basis,
}

/// "Clearly faster": a ratio of at least 1.50× (hundredths). Cache hits at an L1-sized set
/// are several times faster than uncached accesses on every Arm core (a Cortex-A72's L1
/// streams ≈20 GB/s, non-cacheable reads ≈1 GB/s); 1.5× stays far above the few per cent two
/// identical runs differ by, and far below any real cache's advantage.
pub const CLEAR_RATIO: u64 = 150;

/// A "step" across a cache: the set inside (≤ C/2) at least 1.30× faster than the set outside
/// (≥ 2·C) (hundredths). Cached curves step 2× to 10× at L1 and L2; flat curves (uncached
/// types, a level the registers invent) stay within the runs' spread (a few per cent, the
/// host's compare threshold is 5 %); 1.3× leaves room for TLB and prefetch effects.
pub const STEP_RATIO: u64 = 130;

/// Below this ratio (hundredths) a write-through alias is "as fast as write-back": 1.20×.
/// Between it and [`CLEAR_RATIO`] the difference is real but too small to be conclusive.
pub const SAME_RATIO: u64 = 120;

/// "≈0 refills on re-read": at most 0.10 L1D refills per 64-byte line (hundredths). A
/// resident L1 set refills nothing; a set that misses refills 1 per line.
pub const NO_REFILL_PER_LINE: u64 = 10;

/// "A bus access per line": at least 0.50 bus accesses per 64-byte line (hundredths). An
/// uncached read reaches the bus for every line (often in several beats); a cache hit never.
pub const BUS_PER_LINE: u64 = 50;

/// The public report "Performance Anomaly Investigation" (a dma-buf mapped as Device memory)
/// found Device reads ≈10× slower than heap memory: the reference `device-read-cliff`
/// quotes (hundredths).
pub const REFERENCE_CLIFF: u64 = 1000;

/// The cycle counter "runs at the timer's rate" when cycles per tick lie within ±2 % of 1
/// (thousandths: 980 to 1020).
pub const TIMER_RATE_BAND: (u64, u64) = (980, 1020);

/// A core clock below 100 MHz is a `warn`: application cores run at hundreds of MHz or more
/// once the boot loader has set their PLL; below that the PLL is usually still in bypass (the
/// reference oscillator, 19.2–54 MHz), or the "board" is an FPGA prototype.
pub const SLOW_CORE_HZ: u64 = 100_000_000;

/// [`SLOW_CORE_HZ`] in hundredths of a MHz.
const SLOW_CORE_CENTI_MHZ: u64 = SLOW_CORE_HZ / 10_000;

/// Every verdict, in [`Name`] order (`VERDICTS[i].name as usize == i`).
pub const VERDICTS: [Spec; 9] = [
    Spec {
        name: Name::CachesOn,
        id: "caches-on",
        checks: "SCTLR_EL1.C and I are set, and the caches show: normal-wb read-ldp at the L1 set clearly beats normal-nc, or the PMU counts ≈0 L1D refills re-reading it, or the no-maintenance demonstration read stale words.",
        threshold: "C and I set; then WB/NC ≥ 1.50×, or ≤ 0.10 l1d_cache_refill per line, or more than 0 stale words.",
        failure: "The data cache is off or unused: a boot stage left SCTLR_EL1.C clear, the core's cache enable (e.g. CPUECTLR_EL1.SMPEN on Cortex-A53/A72) is not set, or normal-wb is not mapped cacheable. Every bandwidth is then DRAM-bound.",
        basis: Basis::Mixed,
    },
    Spec {
        name: Name::Uncached,
        id: "uncached",
        checks: "normal-nc and the Device types show no step in read-ldp across any reported cache size, or the PMU counts a bus access per line read through them.",
        threshold: "No step ≥ 1.30× (inside ≤ C/2 vs outside ≥ 2·C), or ≥ 0.50 bus_access per line; a step with bus accesses per line is a warn.",
        failure: "An alias meant to be uncached is served by a cache: a wrong MAIR byte or AttrIndx, or an interconnect or system cache that caches non-cacheable traffic. Device drivers and DMA buffers on such a mapping see stale data.",
        basis: Basis::Timing,
    },
    Spec {
        name: Name::WriteAllocate,
        id: "write-allocate",
        checks: "normal-wb writes (write-stp) allocate: at the L1 set they clearly beat normal-nc's; normal-wb-noalloc is clearly slower than normal-wb at the L1 or L2 set.",
        threshold: "Fail: WB/NC writes < 1.50× at the L1 set. Pass: WB/WB-noalloc ≥ 1.50× at the L1 or L2 set; below that a warn (the core ignores the no-allocate hint, which the Arm ARM allows).",
        failure: "normal-wb writes go to DRAM as if no-allocate: the trap of Zhao Yibin's public report \"ARM Cache policy on single armv7 processor lead to low DRAM performance\" (write-back no-allocate ≈7 MB/s write, 28 MB/s read vs 120/160 MB/s with read-write-allocate). Check the MAIR byte (0xff) and any outer-cache controller's allocation policy.",
        basis: Basis::Timing,
    },
    Spec {
        name: Name::WriteThrough,
        id: "write-through",
        checks: "normal-wt writes (write-stp) at the L1 set are clearly slower than normal-wb's: every store reaches memory.",
        threshold: "WB/WT ≥ 1.50× pass; 1.20× to 1.50× warn; < 1.20× fail (WT behaves as WB).",
        failure: "The write-through alias is written back: its MAIR byte or AttrIndx is wrong (a WT mapping mis-set to WB), so data another observer reads without maintenance is stale. A core may implement WT as non-cacheable (the Cortex-A53 TRM says so); that still passes.",
        basis: Basis::Timing,
    },
    Spec {
        name: Name::Maintenance,
        id: "maintenance",
        checks: "Data written through normal-wb and cleaned (DC CVAC) is visible through normal-nc; after normal-nc overwrites it, DC IVAC makes normal-wb read the new data.",
        threshold: "Both exact (no threshold); invalidate not tried, or on silicon a line that was not held before the invalidate, is a warn.",
        failure: "Cache maintenance by VA does not reach the point of coherency: an outer cache (e.g. a PL310-style controller) that needs its own maintenance, the wrong PoC, or aliases that do not reach the same memory.",
        basis: Basis::Data,
    },
    Spec {
        name: Name::DeviceReadCliff,
        id: "device-read-cliff",
        checks: "Information: how much slower Device reads (read-ldp, device-ngnre first) are than normal-wb's in DRAM, against the public report \"Performance Anomaly Investigation\" (≈10×).",
        threshold: "At the smallest size ≥ 4× the last-level cache; pass with the ratio quoted; a ratio < 1.30× (no cliff) is a warn.",
        failure: "Never a fail. No cliff at all means normal-wb streams no faster than Device memory (caches or prefetch not working), or the Device alias is not Device. A large cliff is what a buffer mapped as Device costs: map DMA buffers that the CPU reads as normal memory with maintenance.",
        basis: Basis::Timing,
    },
    Spec {
        name: Name::SmpConfig,
        id: "smp-config",
        checks: "Every started CPU's SCTLR_EL1, MAIR_EL1, TCR_EL1 and TTBR0_EL1 equal the boot CPU's, and a value written to a shared normal-wb line by one core is read by another.",
        threshold: "All equal and the shared line exact (no threshold); a CPU of /cpus that did not start is a warn; one CPU running is n/a.",
        failure: "A secondary core runs with other translation or cache settings (its boot path skipped a register), or the cores are not coherent (SMPEN not set, the cluster outside the coherent interconnect).",
        basis: Basis::Data,
    },
    Spec {
        name: Name::Clock,
        id: "clock",
        checks: "The core clock from PMCCNTR_EL0 cycles over CNTVCT_EL0 ticks times CNTFRQ_EL0.",
        threshold: "Fail: the cycle counter did not advance. Warn: cycles per tick within ±2 % of 1 (the counter runs at the timer's rate), or a core below 100 MHz.",
        failure: "The PMU cycle counter does not count core cycles (an emulator, or a platform that clocks it from the timer), or the boot loader left the core PLL in bypass: every bandwidth is then low together.",
        basis: Basis::Timing,
    },
    Spec {
        name: Name::CacheGeometry,
        id: "cache-geometry",
        checks: "Each data cache CLIDR_EL1/CCSIDR_EL1 report shows as a step in the normal-wb curve (latency on 2 MiB blocks when measured, else read-ldp) across its size.",
        threshold: "A step ≥ 1.30× (inside ≤ C/2 vs outside ≥ 2·C) across every level: pass; across some: warn; across none: fail.",
        failure: "CCSIDR_EL1 describes the set/way view, not necessarily the real cache (the Arm ARM says so): a level without a step may be smaller, larger, shared with other cores or partitioned; no step at all means the caches are not in use.",
        basis: Basis::Timing,
    },
];

// The table's invariants, checked at compile time: position == enum value.
#[allow(
    clippy::indexing_slicing,
    clippy::panic,
    clippy::arithmetic_side_effects
)]
const _: () = {
    let mut i = 0;
    while i < VERDICTS.len() {
        assert!(VERDICTS[i].name as usize == i);
        i += 1;
    }
};

/// The verdict called `id` (exact match), if any.
pub fn by_name(id: &str) -> Option<&'static Spec> {
    VERDICTS.iter().find(|s| s.id == id)
}

/// The PMU events the verdicts ask [`Sweep::pmu`] about: names of core's PMU table
/// ([`crate::pmu::EVENTS`]), as `result` records' `pmu` object keys them.
pub mod event {
    use crate::pmu::EVENTS;

    /// The name of the table's event `number` (`""` if the table lost it: a unit test
    /// checks both are there).
    const fn named(number: u16) -> &'static str {
        let mut i = 0;
        while i < EVENTS.len() {
            #[allow(clippy::indexing_slicing)] // bounded by the loop
            let e = &EVENTS[i];
            if e.number == number {
                return e.name;
            }
            i = i.saturating_add(1);
        }
        ""
    }

    /// L1D_CACHE_REFILL (0x03): `l1d_cache_refill`.
    pub const L1D_CACHE_REFILL: &str = named(0x03);
    /// BUS_ACCESS (0x19): `bus_access`.
    pub const BUS_ACCESS: &str = named(0x19);
}

/// The measured points of the sweep, as the verdicts ask for them. The firmware implements
/// it over its result table; tests over synthetic curves.
pub trait Sweep {
    /// The working-set sizes of the sweep in bytes, ascending (a point may still be missing
    /// for some kernel or type).
    fn sizes(&self) -> &[u64];

    /// The best value of `kernel` on memory type `memtype` (a position in
    /// [`crate::memtype::MEMTYPES`]) mapped with `granule` at `size`, in the kernel's table
    /// unit: MB/s (MB = 10^6 B) for bandwidth kernels, hundredths of a nanosecond for
    /// `latency` (per load) and the maintenance kernels (per line). `None`: not measured,
    /// skipped, or a time of zero.
    fn best(&self, kernel: Kernel, memtype: usize, granule: Granule, size: u64) -> Option<u64>;

    /// The count of PMU event `event` (a name of [`event`]) during the point's best sample,
    /// per 64-byte line of the working set covered (bytes moved / 64), in hundredths
    /// (`100` = one per line). `None`: the event was not counted (QEMU, no PMU access, or
    /// the core does not implement it).
    fn pmu(&self, kernel: Kernel, memtype: usize, size: u64, event: &str) -> Option<u64>;
}

/// A sweep with no points (no benchmark ran): every timing verdict is then `n/a`.
#[derive(Clone, Copy, Debug, Default)]
pub struct NoSweep;

impl Sweep for NoSweep {
    fn sizes(&self) -> &[u64] {
        &[]
    }
    fn best(&self, _: Kernel, _: usize, _: Granule, _: u64) -> Option<u64> {
        None
    }
    fn pmu(&self, _: Kernel, _: usize, _: u64, _: &str) -> Option<u64> {
        None
    }
}

/// The no-maintenance demonstration (the `coherence` record with `maintenance` false): old
/// data written to memory through normal-nc, the lines loaded clean through normal-wb, new
/// data written through normal-wb, then the range read through normal-nc.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stale {
    /// Words (8 bytes) normal-nc read as the old data: the new data was still in the cache.
    pub stale_words: u64,
    /// Words read.
    pub words: u64,
}

/// The maintenance experiment, on one range: (1) write data A through normal-wb and clean it
/// with `DC CVAC`; read through normal-nc; (2) write data B through normal-nc (memory now
/// holds B; on silicon normal-wb still holds a clean line of A); read through normal-wb
/// without maintenance; (3) `DC IVAC` through normal-wb, then read through normal-wb.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Maintenance {
    /// Step (1): normal-nc read exactly A.
    pub cleaned_visible: bool,
    /// Step (2): normal-wb still read A (the line was held in the cache, so step 3 tests
    /// something); `None` when not tried. Under emulation it reads B, which is expected.
    pub stale_before_invalidate: Option<bool>,
    /// Step (3): normal-wb read exactly B (the invalidate dropped the stale line); `None`
    /// when not tried.
    pub invalidate_dropped: Option<bool>,
}

/// What the secondary CPUs showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Smp {
    /// CPUs of `/cpus` the firmware tried to run (the boot CPU included, up to its cap).
    pub cpus: u32,
    /// CPUs running (the boot CPU included).
    pub started: u32,
    /// Started CPUs whose SCTLR_EL1, MAIR_EL1, TCR_EL1 or TTBR0_EL1 differ from the boot
    /// CPU's.
    pub differing: u32,
    /// The first such CPU's MPIDR_EL1 affinity and the first register that differs
    /// (`"SCTLR_EL1"`, `"MAIR_EL1"`, `"TCR_EL1"` or `"TTBR0_EL1"`).
    pub first_differing: Option<(u64, &'static str)>,
    /// A value one core wrote to a shared normal-wb line was read exactly by another (and
    /// back).
    pub shared_line_ok: bool,
}

/// The clock cross-check: PMCCNTR_EL0 and CNTVCT_EL0 read around the same interval.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// PMCCNTR_EL0 cycles over the interval.
    pub cycles: u64,
    /// CNTVCT_EL0 ticks over the interval.
    pub ticks: u64,
    /// CNTFRQ_EL0.
    pub timer_hz: u64,
}

/// Everything the verdicts judge by, as plain data.
#[derive(Clone, Copy, Debug)]
pub struct Inputs<'a, S: Sweep + ?Sized> {
    /// The machine is an emulator (the `start` record's `emulated`).
    pub emulated: bool,
    /// SCTLR_EL1.C during the measurements.
    pub sctlr_c: bool,
    /// SCTLR_EL1.I during the measurements.
    pub sctlr_i: bool,
    /// The data and unified cache levels, innermost first (the first `count` entries that
    /// [`crate::cache::levels`] returns; fillers of level 0 are ignored).
    pub caches: &'a [CacheLevel],
    /// The measured points.
    pub sweep: &'a S,
    /// The no-maintenance demonstration, when it ran.
    pub stale: Option<Stale>,
    /// The maintenance experiment, when it ran.
    pub maintenance: Option<Maintenance>,
    /// The secondary CPUs, when more than the boot CPU was tried.
    pub smp: Option<Smp>,
    /// The clock cross-check, when the PMU cycle counter is usable.
    pub clock: Option<Clock>,
}

/// Most numbers one verdict's evidence holds.
pub const MAX_EVIDENCE: usize = 12;

/// The numbers a verdict used: up to [`MAX_EVIDENCE`] (key, scaled value, decimals), in the
/// order added; the record writes them as its `evidence` object. Keys name their unit:
/// `_mbps` MB/s, `_ns` nanoseconds, `_bytes` bytes, `_hz` Hz, `_mhz` MHz, `_per_line` per
/// 64-byte line; `ratio`, `min_ratio` and `_step` are "times" (faster over slower); flags
/// are 0 or 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Evidence {
    items: [(&'static str, u64, u8); MAX_EVIDENCE],
    len: usize,
}

impl Evidence {
    /// No evidence.
    pub const fn new() -> Self {
        Evidence {
            items: [("", 0, 0); MAX_EVIDENCE],
            len: 0,
        }
    }

    /// Adds `key` = `scaled / 10^places`; beyond [`MAX_EVIDENCE`] it is dropped.
    pub fn push(&mut self, key: &'static str, scaled: u64, places: u8) {
        if let Some(slot) = self.items.get_mut(self.len) {
            *slot = (key, scaled, places);
            self.len = self.len.saturating_add(1);
        }
    }

    fn flag(&mut self, key: &'static str, value: bool) {
        self.push(key, u64::from(value), 0);
    }

    /// The numbers, in the order added.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64, u8)> + '_ {
        self.items.iter().take(self.len).copied()
    }

    /// The scaled value and decimals of `key`, if present.
    pub fn get(&self, key: &str) -> Option<(u64, u8)> {
        self.iter()
            .find(|(k, _, _)| *k == key)
            .map(|(_, v, p)| (v, p))
    }

    /// How many numbers it holds.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Default for Evidence {
    fn default() -> Self {
        Evidence::new()
    }
}

/// Why a verdict came out as it did: one sentence (its `Display`), quoting the numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// Under emulation, for a verdict that rests on timings or PMU counts.
    Emulated,
    /// Under emulation, for the clock: the cycle counter counts no cycles.
    EmulatedClock,
    /// Nothing to judge by; the text says what is missing.
    Missing(&'static str),
    /// SCTLR_EL1.C and/or I clear.
    CachesDisabled {
        /// SCTLR_EL1.C.
        c: bool,
        /// SCTLR_EL1.I.
        i: bool,
    },
    /// WB reads beat NC's at the L1 set.
    CachesRatio {
        /// The L1 set.
        size: u64,
        /// WB over NC, hundredths.
        ratio: u64,
    },
    /// ≈0 L1D refills re-reading the L1 set.
    CachesRefills {
        /// The L1 set.
        size: u64,
        /// Refills per line, hundredths.
        per_line: u64,
    },
    /// The no-maintenance demonstration read stale words.
    CachesStale(Stale),
    /// C and I set, but no measurement shows a cache.
    CachesUnseen {
        /// The L1 set and WB over NC there, when measured.
        ratio: Option<(u64, u64)>,
        /// The demonstration, when it ran.
        stale: Option<Stale>,
    },
    /// No uncached type steps across a cache.
    UncachedFlat {
        /// The largest step seen, hundredths.
        step: u64,
    },
    /// The PMU counts bus accesses per line on the uncached types.
    UncachedBus {
        /// The smallest count, hundredths per line.
        per_line: u64,
    },
    /// An uncached type steps across a cache.
    UncachedStep {
        /// Memory type name.
        memtype: &'static str,
        /// The cache's level and size.
        level: u8,
        /// Its size in bytes.
        cache: u64,
        /// The step, hundredths.
        step: u64,
        /// Bus accesses per line the PMU counted (then the verdict is a warn).
        bus: Option<u64>,
    },
    /// The PMU counts too few bus accesses on an uncached type.
    UncachedNoBus {
        /// The smallest count, hundredths per line.
        per_line: u64,
    },
    /// WB-noalloc writes clearly slower than WB's.
    AllocHonoured {
        /// Where.
        size: u64,
        /// WB over WB-noalloc, hundredths.
        ratio: u64,
    },
    /// WB-noalloc writes about as fast as WB's.
    AllocIgnored {
        /// Where (the largest ratio's size).
        size: u64,
        /// WB over WB-noalloc, hundredths.
        ratio: u64,
    },
    /// WB writes do not beat NC's at the L1 set.
    AllocNone {
        /// The L1 set.
        size: u64,
        /// WB over NC, hundredths.
        ratio: u64,
    },
    /// WT writes compared with WB's; the status says how.
    WriteThrough {
        /// The L1 set.
        size: u64,
        /// WB over WT, hundredths.
        ratio: u64,
    },
    /// Both maintenance steps exact.
    MaintenanceOk,
    /// Cleaned data did not reach normal-nc.
    MaintenanceCleanLost,
    /// The invalidate did not drop the stale line.
    MaintenanceInvalidateKept,
    /// The invalidate was not tried.
    MaintenanceInvalidateUntried,
    /// The line was not held before the invalidate (silicon).
    MaintenanceLineNotHeld,
    /// Device vs WB reads in DRAM.
    Cliff {
        /// The Device type measured.
        memtype: &'static str,
        /// Where.
        size: u64,
        /// WB over Device, hundredths.
        ratio: u64,
    },
    /// Only the boot CPU runs.
    SmpSingle,
    /// Every started CPU matches the boot CPU.
    SmpOk {
        /// CPUs running.
        started: u32,
    },
    /// Some CPUs of /cpus did not start (the rest match).
    SmpMissing {
        /// CPUs running.
        started: u32,
        /// CPUs tried.
        cpus: u32,
    },
    /// A started CPU's registers differ.
    SmpDiffer {
        /// How many differ.
        differing: u32,
        /// CPUs running.
        started: u32,
        /// The first one's MPIDR and register.
        first: Option<(u64, &'static str)>,
    },
    /// The shared-line check failed.
    SmpShared,
    /// The cycle counter did not advance.
    ClockStopped {
        /// Timer ticks over the interval.
        ticks: u64,
    },
    /// The core clock; the status says whether it is plausible.
    Clock {
        /// Core clock, hundredths of a MHz.
        centi_mhz: u64,
        /// Cycles per tick, thousandths.
        per_tick: u64,
        /// CNTFRQ_EL0.
        timer_hz: u64,
    },
    /// Steps across every reported level.
    GeometryOk {
        /// The kernel used.
        kernel: Kernel,
        /// Levels judged.
        levels: u8,
    },
    /// A level without a step (some or none with one).
    GeometryMissing {
        /// The kernel used.
        kernel: Kernel,
        /// The first level without a step.
        level: u8,
        /// Its size.
        cache: u64,
        /// The size inside (≤ half the cache).
        inside: u64,
        /// The size outside (≥ twice the cache).
        outside: u64,
        /// The step seen there, hundredths.
        step: u64,
        /// Levels with a step.
        stepped: u8,
        /// Levels judged.
        levels: u8,
    },
    /// No cache reported, yet the normal-wb curve steps.
    GeometryUnreported {
        /// The kernel used.
        kernel: Kernel,
        /// The largest step between adjacent sizes, hundredths.
        step: u64,
        /// Between this size and the next.
        at: u64,
    },
}

/// A ratio in hundredths, printed with one decimal and `x` (`812` is `8.1x`).
struct Times(u64);

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

/// Hundredths printed with two decimals.
fn centi(v: u64) -> Decimal {
    Decimal {
        scaled: v,
        places: 2,
    }
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SET: &str = "SCTLR_EL1.C and I are set";
        match *self {
            Why::Emulated => f.write_str(
                "QEMU models no caches, so its timings and PMU counts cannot judge this",
            ),
            Why::EmulatedClock => f.write_str(
                "under QEMU PMCCNTR_EL0 counts virtual nanoseconds, not core cycles",
            ),
            Why::Missing(what) => write!(f, "not measured: {what}"),
            Why::CachesDisabled { c, i } => {
                let which = match (c, i) {
                    (false, false) => "SCTLR_EL1.C and I are clear",
                    (false, true) => "SCTLR_EL1.C is clear",
                    _ => "SCTLR_EL1.I is clear",
                };
                write!(
                    f,
                    "{which}: the caches are disabled for the measurements, so every access goes to memory"
                )
            }
            Why::CachesRatio { size, ratio } => write!(
                f,
                "{SET}; normal-wb reads at {} are {} faster than normal-nc's",
                Bytes(size),
                Times(ratio)
            ),
            Why::CachesRefills { size, per_line } => write!(
                f,
                "{SET}; re-reading {} through normal-wb refills {} L1D lines per line",
                Bytes(size),
                centi(per_line)
            ),
            Why::CachesStale(s) => write!(
                f,
                "{SET}; without maintenance normal-nc read {} of {} words stale, so normal-wb held dirty lines",
                s.stale_words, s.words
            ),
            Why::CachesUnseen { ratio, stale } => {
                write!(f, "{SET} but no measurement shows a cache")?;
                if let Some((size, ratio)) = ratio {
                    write!(
                        f,
                        ": normal-wb reads at {} are only {} normal-nc's (a cache gives at least {})",
                        Bytes(size),
                        Times(ratio),
                        Times(CLEAR_RATIO)
                    )?;
                }
                if let Some(s) = stale {
                    write!(
                        f,
                        "{} without maintenance {} of {} words were stale (0 hints the caches are off)",
                        if ratio.is_some() { ";" } else { ":" },
                        s.stale_words,
                        s.words
                    )?;
                }
                Ok(())
            }
            Why::UncachedFlat { step } => write!(
                f,
                "normal-nc and Device reads show no step across the reported caches (largest {}, a cache gives at least {})",
                Times(step),
                Times(STEP_RATIO)
            ),
            Why::UncachedBus { per_line } => write!(
                f,
                "the PMU counts {} bus accesses per line read through the uncached aliases: every line goes to the bus",
                centi(per_line)
            ),
            Why::UncachedStep {
                memtype,
                level,
                cache,
                step,
                bus,
            } => {
                write!(
                    f,
                    "{memtype} reads step {} across L{level} ({})",
                    Times(step),
                    Bytes(cache)
                )?;
                match bus {
                    Some(b) => write!(
                        f,
                        ", yet the PMU counts {} bus accesses per line: something beyond the core's caches (a system cache, a prefetcher) serves it",
                        centi(b)
                    ),
                    None => f.write_str(": an uncached alias is served by a cache (check its MAIR byte, AttrIndx and the interconnect)"),
                }
            }
            Why::UncachedNoBus { per_line } => write!(
                f,
                "the PMU counts only {} bus accesses per line read through an uncached alias: a cache serves it",
                centi(per_line)
            ),
            Why::AllocHonoured { size, ratio } => write!(
                f,
                "normal-wb-noalloc writes at {} are {} slower than normal-wb's: the allocation hints take effect (public report: 7 vs 120 MB/s)",
                Bytes(size),
                Times(ratio)
            ),
            Why::AllocIgnored { size, ratio } => write!(
                f,
                "normal-wb writes at {} run at only {} normal-wb-noalloc's speed: this core allocates despite the no-allocate hint, which the Arm ARM allows",
                Bytes(size),
                Times(ratio)
            ),
            Why::AllocNone { size, ratio } => write!(
                f,
                "normal-wb writes at {} are only {} normal-nc's: write-back writes do not allocate (the public report's trap: 7 MB/s instead of 120)",
                Bytes(size),
                Times(ratio)
            ),
            Why::WriteThrough { size, ratio } => {
                write!(
                    f,
                    "normal-wb writes at {} run at {} normal-wt's speed",
                    Bytes(size),
                    Times(ratio)
                )?;
                f.write_str(if ratio >= CLEAR_RATIO {
                    ": write-through stores reach memory"
                } else if ratio >= SAME_RATIO {
                    ": a small difference, not conclusive"
                } else {
                    ": the write-through alias behaves as write-back (check its MAIR byte and AttrIndx)"
                })
            }
            Why::MaintenanceOk => f.write_str(
                "data cleaned through normal-wb read back through normal-nc, and DC IVAC made normal-wb read what normal-nc wrote",
            ),
            Why::MaintenanceCleanLost => f.write_str(
                "data written through normal-wb and cleaned with DC CVAC did not read back through normal-nc: maintenance does not reach the point of coherency",
            ),
            Why::MaintenanceInvalidateKept => f.write_str(
                "after DC IVAC normal-wb still read its old line instead of what normal-nc wrote: the invalidate did not reach the cache holding it",
            ),
            Why::MaintenanceInvalidateUntried => f.write_str(
                "cleaned data read back through normal-nc; the invalidate was not tried",
            ),
            Why::MaintenanceLineNotHeld => f.write_str(
                "cleaned data read back through normal-nc, but normal-wb read memory's new data before DC IVAC: the line was not held in a cache, so the invalidate tested nothing",
            ),
            Why::Cliff {
                memtype,
                size,
                ratio,
            } if ratio >= STEP_RATIO => write!(
                f,
                "{memtype} reads at {} are {} slower than normal-wb's (\"Performance Anomaly Investigation\": ≈10x)",
                Bytes(size),
                Times(ratio)
            ),
            Why::Cliff {
                memtype,
                size,
                ratio,
            } => write!(
                f,
                "normal-wb reads at {} run at only {} {memtype}'s speed (\"Performance Anomaly Investigation\": ≈10x): no cliff, so normal-wb streams no faster than Device memory",
                Bytes(size),
                Times(ratio)
            ),
            Why::SmpSingle => f.write_str("only the boot CPU runs"),
            Why::SmpOk { started } => write!(
                f,
                "all {started} CPUs run with the boot CPU's SCTLR_EL1, MAIR_EL1, TCR_EL1 and TTBR0_EL1, and a shared normal-wb line read back across cores"
            ),
            Why::SmpMissing { started, cpus } => write!(
                f,
                "{started} of {cpus} CPUs started (the cpu records say why); those running match the boot CPU"
            ),
            Why::SmpDiffer {
                differing,
                started,
                first,
            } => {
                write!(
                    f,
                    "{differing} of {started} CPUs run with other settings than the boot CPU"
                )?;
                if let Some((mpidr, register)) = first {
                    write!(f, " (MPIDR {mpidr:#x}: {register})")?;
                }
                f.write_str(": its boot path left a register unset")
            }
            Why::SmpShared => f.write_str(
                "a value one core wrote to a shared normal-wb line was not read by another: the cores are not coherent",
            ),
            Why::ClockStopped { ticks } => write!(
                f,
                "PMCCNTR_EL0 did not advance over {ticks} timer ticks: the cycle counter does not count"
            ),
            Why::Clock {
                centi_mhz,
                per_tick,
                timer_hz,
            } => {
                write!(
                    f,
                    "the core runs at {} MHz ({} cycles per tick of the {} Hz timer)",
                    centi(centi_mhz),
                    Decimal {
                        scaled: per_tick,
                        places: 3
                    },
                    timer_hz
                )?;
                if (TIMER_RATE_BAND.0..=TIMER_RATE_BAND.1).contains(&per_tick) {
                    f.write_str(": the cycle counter runs at the timer's rate, not the core's")
                } else if centi_mhz < SLOW_CORE_CENTI_MHZ {
                    f.write_str(": below 100 MHz, the core PLL is likely still in bypass")
                } else {
                    Ok(())
                }
            }
            Why::GeometryOk { kernel, levels } => write!(
                f,
                "normal-wb {} steps across each of the {levels} reported caches",
                kernel.spec().name
            ),
            Why::GeometryMissing {
                kernel,
                level,
                cache,
                inside,
                outside,
                step,
                stepped,
                levels,
            } => write!(
                f,
                "normal-wb {} shows no step across L{level} ({}): {} from {} to {}, a cache gives at least {}; {stepped} of {levels} reported caches show",
                kernel.spec().name,
                Bytes(cache),
                Times(step),
                Bytes(inside),
                Bytes(outside),
                Times(STEP_RATIO)
            ),
            Why::GeometryUnreported { kernel, step, at } => write!(
                f,
                "CLIDR_EL1 reports no data cache, yet normal-wb {} steps {} after {}",
                kernel.spec().name,
                Times(step),
                Bytes(at)
            ),
        }
    }
}

/// One verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Which verdict.
    pub name: Name,
    /// Its outcome.
    pub status: Status,
    /// The numbers it used.
    pub evidence: Evidence,
    /// Why, as one sentence (`Display`).
    pub why: Why,
}

impl Verdict {
    fn new(name: Name, status: Status, evidence: Evidence, why: Why) -> Self {
        Verdict {
            name,
            status,
            evidence,
            why,
        }
    }

    /// Writes its `verdict` record: `@mb {"kind":"verdict","name":…,"status":…,
    /// "evidence":{…},"why":…}` and a line end.
    pub fn record(&self, out: &mut impl Write) -> fmt::Result {
        Record::new(out, &schema::VERDICT)
            .str("name", self.name.id())
            .str("status", self.status.name())
            .decimals("evidence", self.evidence.iter())
            .fmt("why", format_args!("{}", self.why))
            .finish()
    }
}

/// The human line: `verdict caches-on          pass  SCTLR_EL1.C and I are set; …` (no
/// line end).
impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "verdict {:<17}  {:<4}  {}",
            self.name.id(),
            self.status.name(),
            self.why
        )
    }
}

/// Every verdict, one per [`VERDICTS`] entry, in that order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdicts(pub [Verdict; 9]);

impl Verdicts {
    /// The verdicts in table order.
    pub fn iter(&self) -> impl Iterator<Item = &Verdict> {
        self.0.iter()
    }

    /// The verdict `name`.
    pub fn get(&self, name: Name) -> Option<&Verdict> {
        self.0.iter().find(|v| v.name == name)
    }

    /// The most severe status (`fail` > `warn` > `pass` > `n/a`).
    pub fn worst(&self) -> Status {
        self.iter()
            .map(|v| v.status)
            .max()
            .unwrap_or(Status::NotApplicable)
    }

    /// How many verdicts have `status`.
    pub fn count(&self, status: Status) -> usize {
        self.iter().filter(|v| v.status == status).count()
    }

    /// Whether the run must fail: some verdict is `fail`.
    pub fn must_fail(&self) -> bool {
        self.worst() == Status::Fail
    }

    /// The names of the verdicts with `status`, in table order.
    pub fn named(&self, status: Status) -> impl Iterator<Item = &'static str> + '_ {
        self.iter()
            .filter(move |v| v.status == status)
            .map(|v| v.name.id())
    }
}

/// Judges every verdict of [`VERDICTS`] from `inputs`.
pub fn judge<S: Sweep + ?Sized>(inputs: &Inputs<'_, S>) -> Verdicts {
    let v = View::new(inputs);
    Verdicts([
        v.caches_on(),
        v.uncached(),
        v.write_allocate(),
        v.write_through(),
        v.maintenance(),
        v.device_read_cliff(),
        v.smp_config(),
        v.clock(),
        v.cache_geometry(),
    ])
}

/// Position in the memory-type table of the type called `name` (every name used here is in
/// the table: a unit test checks it); an index beyond the table, which no sweep answers for,
/// otherwise.
fn index_of(name: &str) -> usize {
    memtype::by_name(name).map_or(usize::MAX, |t| usize::from(t.index))
}

const NC: &str = "normal-nc";
const WB_NOALLOC: &str = "normal-wb-noalloc";
const WT: &str = "normal-wt";
/// The Device types, in the order `device-read-cliff` prefers them (the dma-buf's
/// `pgprot_device` first).
const DEVICES: [&str; 4] = ["device-ngnre", "device-ngnrne", "device-ngre", "device-gre"];

/// `num / den` in hundredths, rounded to the nearest; `None` when `den` is 0.
fn ratio_centi(num: u64, den: u64) -> Option<u64> {
    let num = u128::from(num).checked_mul(100)?;
    let den = u128::from(den);
    let half = den / 2;
    u64::try_from(num.checked_add(half)?.checked_div(den)?).ok()
}

/// How many times `a` is faster than `b` (hundredths), values in `unit`.
fn faster(unit: Unit, a: u64, b: u64) -> Option<u64> {
    if unit.higher_is_better() {
        ratio_centi(a, b)
    } else {
        ratio_centi(b, a)
    }
}

const LEVEL_STEP: [&str; 7] = [
    "l1_step", "l2_step", "l3_step", "l4_step", "l5_step", "l6_step", "l7_step",
];

/// A step across one cache: inside and outside sizes, their values and the ratio.
#[derive(Clone, Copy)]
struct Step {
    inside: u64,
    outside: u64,
    ratio: u64,
}

struct View<'i, 'a, S: Sweep + ?Sized> {
    i: &'i Inputs<'a, S>,
    nc: usize,
    wb_noalloc: usize,
    wt: usize,
}

impl<'i, 'a, S: Sweep + ?Sized> View<'i, 'a, S> {
    fn new(i: &'i Inputs<'a, S>) -> Self {
        View {
            i,
            nc: index_of(NC),
            wb_noalloc: index_of(WB_NOALLOC),
            wt: index_of(WT),
        }
    }

    /// The reported data caches (fillers skipped), innermost first.
    fn caches(&self) -> impl Iterator<Item = &CacheLevel> + '_ {
        self.i
            .caches
            .iter()
            .filter(|c| c.level != 0 && c.size() > 0)
    }

    /// The value of `kernel` on `memtype` at `size`: latency on 2 MiB blocks when measured
    /// there (no page walks), every other kernel on 4 KiB pages; the other granule otherwise.
    fn value(&self, kernel: Kernel, memtype: usize, size: u64) -> Option<u64> {
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

    /// The largest size ≤ `limit` measured for (kernel, memtype).
    fn at_most(&self, kernel: Kernel, memtype: usize, limit: u64) -> Option<(u64, u64)> {
        self.i
            .sweep
            .sizes()
            .iter()
            .rev()
            .filter(|&&s| s <= limit)
            .find_map(|&s| self.value(kernel, memtype, s).map(|v| (s, v)))
    }

    /// The smallest size ≥ `limit` measured for (kernel, memtype).
    fn at_least(&self, kernel: Kernel, memtype: usize, limit: u64) -> Option<(u64, u64)> {
        self.i
            .sweep
            .sizes()
            .iter()
            .filter(|&&s| s >= limit)
            .find_map(|&s| self.value(kernel, memtype, s).map(|v| (s, v)))
    }

    /// The L1 set: the largest size ≤ L1/2, else (no cache reported) the smallest size.
    fn l1_set(&self) -> Option<u64> {
        let sizes = self.i.sweep.sizes();
        match self.caches().next() {
            Some(l1) => sizes.iter().rev().copied().find(|&s| s <= l1.size() / 2),
            None => sizes.first().copied(),
        }
    }

    /// The set of the level after L1 (≤ L2/2), if there is one and it differs from the L1
    /// set.
    fn l2_set(&self) -> Option<u64> {
        let l2 = self.caches().nth(1)?;
        let l1 = self.l1_set();
        let sizes = self.i.sweep.sizes();
        sizes
            .iter()
            .rev()
            .copied()
            .find(|&s| s <= l2.size() / 2)
            .filter(|&s| Some(s) != l1)
    }

    /// `kernel`'s step across a cache of `bytes` on `memtype`.
    fn step(&self, kernel: Kernel, memtype: usize, bytes: u64) -> Option<Step> {
        let unit = kernel.spec().unit;
        let (inside, vin) = self.at_most(kernel, memtype, bytes / 2)?;
        let (outside, vout) = self.at_least(kernel, memtype, bytes.saturating_mul(2))?;
        Some(Step {
            inside,
            outside,
            ratio: faster(unit, vin, vout)?,
        })
    }

    fn caches_on(&self) -> Verdict {
        let name = Name::CachesOn;
        let mut e = Evidence::new();
        e.flag("sctlr_c", self.i.sctlr_c);
        e.flag("sctlr_i", self.i.sctlr_i);
        if !(self.i.sctlr_c && self.i.sctlr_i) {
            let why = Why::CachesDisabled {
                c: self.i.sctlr_c,
                i: self.i.sctlr_i,
            };
            return Verdict::new(name, Status::Fail, e, why);
        }
        let stale = self.i.stale.filter(|s| s.words > 0);
        if let Some(s) = stale {
            e.push("stale_words", s.stale_words, 0);
            e.push("words", s.words, 0);
        }
        let stale_seen = stale.filter(|s| s.stale_words > 0);
        if self.i.emulated {
            return match stale_seen {
                Some(s) => Verdict::new(name, Status::Pass, e, Why::CachesStale(s)),
                None => Verdict::new(name, Status::NotApplicable, e, Why::Emulated),
            };
        }
        let k = Kernel::ReadLdp;
        let size = self.l1_set();
        let ratio = size.and_then(|size| {
            let wb = self.value(k, NORMAL_WB, size)?;
            let nc = self.value(k, self.nc, size)?;
            e.push("size_bytes", size, 0);
            e.push("wb_mbps", wb, 0);
            e.push("nc_mbps", nc, 0);
            let r = faster(Unit::Bandwidth, wb, nc)?;
            e.push("ratio", r, 2);
            e.push("min_ratio", CLEAR_RATIO, 2);
            Some((size, r))
        });
        let refills = size.and_then(|size| {
            let r = self
                .i
                .sweep
                .pmu(k, NORMAL_WB, size, event::L1D_CACHE_REFILL)?;
            e.push("l1d_cache_refill_per_line", r, 2);
            Some((size, r))
        });
        let why = if let Some((size, ratio)) = ratio.filter(|r| r.1 >= CLEAR_RATIO) {
            Why::CachesRatio { size, ratio }
        } else if let Some((size, per_line)) = refills.filter(|r| r.1 <= NO_REFILL_PER_LINE) {
            Why::CachesRefills { size, per_line }
        } else if let Some(s) = stale_seen {
            Why::CachesStale(s)
        } else if ratio.is_some() || refills.is_some() || stale.is_some() {
            let why = Why::CachesUnseen { ratio, stale };
            return Verdict::new(name, Status::Fail, e, why);
        } else {
            let why = Why::Missing("no read-ldp point on normal-wb and normal-nc, no PMU count, no no-maintenance demonstration");
            return Verdict::new(name, Status::NotApplicable, e, why);
        };
        Verdict::new(name, Status::Pass, e, why)
    }

    fn uncached(&self) -> Verdict {
        let name = Name::Uncached;
        let mut e = Evidence::new();
        if self.i.emulated {
            return Verdict::new(name, Status::NotApplicable, e, Why::Emulated);
        }
        let k = Kernel::ReadLdp;
        // The largest step of any uncached type across any reported cache.
        let mut worst: Option<(&'static str, u8, u64, u64)> = None;
        for t in core::iter::once(NC).chain(DEVICES) {
            for c in self.caches() {
                let Some(step) = self.step(k, index_of(t), c.size()) else {
                    continue;
                };
                if worst.is_none_or(|w| step.ratio > w.3) {
                    worst = Some((t, c.level, c.size(), step.ratio));
                }
            }
        }
        // The fewest bus accesses per line on an uncached type, at the L1 set.
        let bus = self.l1_set().and_then(|size| {
            core::iter::once(NC)
                .chain(DEVICES)
                .filter_map(|t| self.i.sweep.pmu(k, index_of(t), size, event::BUS_ACCESS))
                .min()
        });
        if let Some((_, _, cache, step)) = worst {
            e.push("step", step, 2);
            e.push("min_step", STEP_RATIO, 2);
            e.push("cache_bytes", cache, 0);
        }
        if let Some(b) = bus {
            e.push("bus_access_per_line", b, 2);
            e.push("min_bus_access_per_line", BUS_PER_LINE, 2);
        }
        let bus_ok = bus.map(|b| b >= BUS_PER_LINE);
        match (worst, bus_ok) {
            (None, None) => Verdict::new(
                name,
                Status::NotApplicable,
                e,
                Why::Missing("no read-ldp points of normal-nc or Device types across a reported cache, no PMU count"),
            ),
            (Some((memtype, level, cache, step)), _) if step >= STEP_RATIO => {
                let status = if bus_ok == Some(true) {
                    Status::Warn
                } else {
                    Status::Fail
                };
                let why = Why::UncachedStep {
                    memtype,
                    level,
                    cache,
                    step,
                    bus: bus.filter(|_| status == Status::Warn),
                };
                Verdict::new(name, status, e, why)
            }
            (_, Some(false)) => Verdict::new(
                name,
                Status::Fail,
                e,
                Why::UncachedNoBus {
                    per_line: bus.unwrap_or(0),
                },
            ),
            (Some((_, _, _, step)), _) => {
                Verdict::new(name, Status::Pass, e, Why::UncachedFlat { step })
            }
            (None, Some(_)) => Verdict::new(
                name,
                Status::Pass,
                e,
                Why::UncachedBus {
                    per_line: bus.unwrap_or(0),
                },
            ),
        }
    }

    fn write_allocate(&self) -> Verdict {
        let name = Name::WriteAllocate;
        let mut e = Evidence::new();
        if self.i.emulated {
            return Verdict::new(name, Status::NotApplicable, e, Why::Emulated);
        }
        let k = Kernel::WriteStp;
        let Some(l1) = self.l1_set() else {
            return Verdict::new(name, Status::NotApplicable, e, Why::Missing("no sweep"));
        };
        let wb1 = self.value(k, NORMAL_WB, l1);
        let nc1 = self.value(k, self.nc, l1);
        e.push("size_bytes", l1, 0);
        if let (Some(wb), Some(nc)) = (wb1, nc1) {
            e.push("wb_mbps", wb, 0);
            e.push("nc_mbps", nc, 0);
            if let Some(r) = faster(Unit::Bandwidth, wb, nc) {
                e.push("wb_over_nc", r, 2);
                if r < CLEAR_RATIO {
                    e.push("min_ratio", CLEAR_RATIO, 2);
                    let why = Why::AllocNone { size: l1, ratio: r };
                    return Verdict::new(name, Status::Fail, e, why);
                }
            }
        }
        // WB over WB-noalloc at the L1 set and the L2 set: the larger counts.
        let mut best: Option<(u64, u64)> = None;
        for (size, noalloc_key, ratio_key) in [
            (Some(l1), "noalloc_mbps", "ratio"),
            (self.l2_set(), "l2_noalloc_mbps", "l2_ratio"),
        ] {
            let Some(size) = size else { continue };
            let (Some(wb), Some(na)) = (
                self.value(k, NORMAL_WB, size),
                self.value(k, self.wb_noalloc, size),
            ) else {
                continue;
            };
            if size != l1 {
                e.push("l2_size_bytes", size, 0);
                e.push("l2_wb_mbps", wb, 0);
            } else if wb1.is_none() || nc1.is_none() {
                e.push("wb_mbps", wb, 0);
            }
            e.push(noalloc_key, na, 0);
            let Some(r) = faster(Unit::Bandwidth, wb, na) else {
                continue;
            };
            e.push(ratio_key, r, 2);
            if best.is_none_or(|b| r > b.1) {
                best = Some((size, r));
            }
        }
        e.push("min_ratio", CLEAR_RATIO, 2);
        match best {
            None => Verdict::new(
                name,
                Status::NotApplicable,
                e,
                Why::Missing(
                    "no write-stp points of normal-wb and normal-wb-noalloc at the L1 or L2 set",
                ),
            ),
            Some((size, ratio)) if ratio >= CLEAR_RATIO => {
                Verdict::new(name, Status::Pass, e, Why::AllocHonoured { size, ratio })
            }
            Some((size, ratio)) => {
                Verdict::new(name, Status::Warn, e, Why::AllocIgnored { size, ratio })
            }
        }
    }

    fn write_through(&self) -> Verdict {
        let name = Name::WriteThrough;
        let mut e = Evidence::new();
        if self.i.emulated {
            return Verdict::new(name, Status::NotApplicable, e, Why::Emulated);
        }
        let k = Kernel::WriteStp;
        let measured = self.l1_set().and_then(|size| {
            let wb = self.value(k, NORMAL_WB, size)?;
            let wt = self.value(k, self.wt, size)?;
            Some((size, wb, wt, faster(Unit::Bandwidth, wb, wt)?))
        });
        let Some((size, wb, wt, ratio)) = measured else {
            return Verdict::new(
                name,
                Status::NotApplicable,
                e,
                Why::Missing("no write-stp points of normal-wb and normal-wt at the L1 set"),
            );
        };
        e.push("size_bytes", size, 0);
        e.push("wb_mbps", wb, 0);
        e.push("wt_mbps", wt, 0);
        e.push("ratio", ratio, 2);
        e.push("min_ratio", CLEAR_RATIO, 2);
        e.push("same_below", SAME_RATIO, 2);
        let status = if ratio >= CLEAR_RATIO {
            Status::Pass
        } else if ratio >= SAME_RATIO {
            Status::Warn
        } else {
            Status::Fail
        };
        Verdict::new(name, status, e, Why::WriteThrough { size, ratio })
    }

    fn maintenance(&self) -> Verdict {
        let name = Name::Maintenance;
        let mut e = Evidence::new();
        let Some(m) = self.i.maintenance else {
            return Verdict::new(
                name,
                Status::NotApplicable,
                e,
                Why::Missing("the maintenance experiment did not run"),
            );
        };
        e.flag("cleaned_visible", m.cleaned_visible);
        if let Some(s) = m.stale_before_invalidate {
            e.flag("stale_before_invalidate", s);
        }
        if let Some(d) = m.invalidate_dropped {
            e.flag("invalidate_dropped", d);
        }
        let (status, why) = if !m.cleaned_visible {
            (Status::Fail, Why::MaintenanceCleanLost)
        } else {
            match (m.invalidate_dropped, m.stale_before_invalidate) {
                (Some(false), _) => (Status::Fail, Why::MaintenanceInvalidateKept),
                (None, _) => (Status::Warn, Why::MaintenanceInvalidateUntried),
                (Some(true), Some(false)) if !self.i.emulated => {
                    (Status::Warn, Why::MaintenanceLineNotHeld)
                }
                (Some(true), _) => (Status::Pass, Why::MaintenanceOk),
            }
        };
        Verdict::new(name, status, e, why)
    }

    fn device_read_cliff(&self) -> Verdict {
        let name = Name::DeviceReadCliff;
        let mut e = Evidence::new();
        if self.i.emulated {
            return Verdict::new(name, Status::NotApplicable, e, Why::Emulated);
        }
        let k = Kernel::ReadLdp;
        let llc = self.caches().last().map_or(0, CacheLevel::size);
        let dram = llc.saturating_mul(4);
        let found = DEVICES.into_iter().find_map(|t| {
            let (size, wb) = self.at_least(k, NORMAL_WB, dram)?;
            let dev = self.value(k, index_of(t), size)?;
            Some((t, size, wb, dev, faster(Unit::Bandwidth, wb, dev)?))
        });
        let Some((memtype, size, wb, dev, ratio)) = found else {
            return Verdict::new(
                name,
                Status::NotApplicable,
                e,
                Why::Missing("no read-ldp points of normal-wb and a Device type at 4x the last-level cache or more"),
            );
        };
        e.push("size_bytes", size, 0);
        e.push("wb_mbps", wb, 0);
        e.push("device_mbps", dev, 0);
        e.push("ratio", ratio, 2);
        e.push("reference_ratio", REFERENCE_CLIFF, 2);
        let status = if ratio < STEP_RATIO {
            Status::Warn
        } else {
            Status::Pass
        };
        Verdict::new(
            name,
            status,
            e,
            Why::Cliff {
                memtype,
                size,
                ratio,
            },
        )
    }

    fn smp_config(&self) -> Verdict {
        let name = Name::SmpConfig;
        let mut e = Evidence::new();
        let Some(s) = self.i.smp.filter(|s| s.cpus > 1 || s.started > 1) else {
            return Verdict::new(name, Status::NotApplicable, e, Why::SmpSingle);
        };
        e.push("cpus", s.cpus.into(), 0);
        e.push("started", s.started.into(), 0);
        e.push("differing", s.differing.into(), 0);
        if let Some((mpidr, _)) = s.first_differing {
            e.push("first_differing_mpidr", mpidr, 0);
        }
        if s.started > 1 {
            e.flag("shared_line_ok", s.shared_line_ok);
        }
        let (status, why) = if s.differing > 0 {
            let why = Why::SmpDiffer {
                differing: s.differing,
                started: s.started,
                first: s.first_differing,
            };
            (Status::Fail, why)
        } else if s.started > 1 && !s.shared_line_ok {
            (Status::Fail, Why::SmpShared)
        } else if s.started < s.cpus {
            let why = Why::SmpMissing {
                started: s.started,
                cpus: s.cpus,
            };
            (Status::Warn, why)
        } else {
            (Status::Pass, Why::SmpOk { started: s.started })
        };
        Verdict::new(name, status, e, why)
    }

    fn clock(&self) -> Verdict {
        let name = Name::Clock;
        let mut e = Evidence::new();
        if self.i.emulated {
            return Verdict::new(name, Status::NotApplicable, e, Why::EmulatedClock);
        }
        let Some(c) = self.i.clock.filter(|c| c.ticks > 0 && c.timer_hz > 0) else {
            return Verdict::new(
                name,
                Status::NotApplicable,
                e,
                Why::Missing("the PMU cycle counter is not usable"),
            );
        };
        e.push("cycles", c.cycles, 0);
        e.push("ticks", c.ticks, 0);
        e.push("timer_hz", c.timer_hz, 0);
        if c.cycles == 0 {
            return Verdict::new(name, Status::Fail, e, Why::ClockStopped { ticks: c.ticks });
        }
        // cycles / ticks × timer_hz (core's PMU rule), in hundredths of a MHz (10^4 Hz).
        let centi_mhz = crate::pmu::cycle_rate_hz(c.cycles, c.ticks, c.timer_hz)
            .map_or(u64::MAX, |hz| hz / 10_000);
        // Cycles per tick in thousandths, rounded.
        let per_tick = ratio_centi(c.cycles.saturating_mul(10), c.ticks).unwrap_or(u64::MAX);
        e.push("core_mhz", centi_mhz, 2);
        e.push("cycles_per_tick", per_tick, 3);
        let at_timer_rate = (TIMER_RATE_BAND.0..=TIMER_RATE_BAND.1).contains(&per_tick);
        let slow = centi_mhz < SLOW_CORE_CENTI_MHZ;
        let status = if at_timer_rate || slow {
            Status::Warn
        } else {
            Status::Pass
        };
        let why = Why::Clock {
            centi_mhz,
            per_tick,
            timer_hz: c.timer_hz,
        };
        Verdict::new(name, status, e, why)
    }

    fn cache_geometry(&self) -> Verdict {
        let name = Name::CacheGeometry;
        let mut e = Evidence::new();
        if self.i.emulated {
            return Verdict::new(name, Status::NotApplicable, e, Why::Emulated);
        }
        // Latency when measured (the chase shows every level), else read-ldp.
        let kernel = [Kernel::Latency, Kernel::ReadLdp].into_iter().find(|&k| {
            self.i
                .sweep
                .sizes()
                .iter()
                .any(|&s| self.value(k, NORMAL_WB, s).is_some())
        });
        let Some(kernel) = kernel else {
            return Verdict::new(
                name,
                Status::NotApplicable,
                e,
                Why::Missing("no latency or read-ldp points of normal-wb"),
            );
        };
        if self.caches().next().is_none() {
            return self.geometry_unreported(kernel, e);
        }
        let (mut levels, mut stepped) = (0u8, 0u8);
        let mut missing: Option<(u8, u64, Step)> = None;
        for c in self.caches() {
            let Some(step) = self.step(kernel, NORMAL_WB, c.size()) else {
                continue;
            };
            levels = levels.saturating_add(1);
            if let Some(k) = LEVEL_STEP.get(usize::from(c.level).saturating_sub(1)) {
                e.push(k, step.ratio, 2);
            }
            if step.ratio >= STEP_RATIO {
                stepped = stepped.saturating_add(1);
            } else if missing.is_none() {
                missing = Some((c.level, c.size(), step));
            }
        }
        e.push("min_step", STEP_RATIO, 2);
        let Some((level, cache, step)) = missing else {
            return if levels == 0 {
                Verdict::new(
                    name,
                    Status::NotApplicable,
                    e,
                    Why::Missing(
                        "the sweep does not reach from half to twice any reported cache size",
                    ),
                )
            } else {
                Verdict::new(name, Status::Pass, e, Why::GeometryOk { kernel, levels })
            };
        };
        let status = if stepped == 0 {
            Status::Fail
        } else {
            Status::Warn
        };
        let why = Why::GeometryMissing {
            kernel,
            level,
            cache,
            inside: step.inside,
            outside: step.outside,
            step: step.ratio,
            stepped,
            levels,
        };
        Verdict::new(name, status, e, why)
    }

    /// No cache reported: a warn when the normal-wb curve steps between adjacent sizes
    /// anyway, else n/a.
    fn geometry_unreported(&self, kernel: Kernel, mut e: Evidence) -> Verdict {
        let name = Name::CacheGeometry;
        let unit = kernel.spec().unit;
        let points = || {
            self.i
                .sweep
                .sizes()
                .iter()
                .filter_map(move |&s| self.value(kernel, NORMAL_WB, s).map(|v| (s, v)))
        };
        let biggest = points()
            .zip(points().skip(1))
            .filter_map(|((s, a), (_, b))| Some((s, faster(unit, a, b)?)))
            .max_by_key(|&(_, r)| r);
        match biggest {
            Some((at, step)) if step >= STEP_RATIO => {
                e.push("step", step, 2);
                e.push("min_step", STEP_RATIO, 2);
                e.push("after_bytes", at, 0);
                Verdict::new(
                    name,
                    Status::Warn,
                    e,
                    Why::GeometryUnreported { kernel, step, at },
                )
            }
            _ => Verdict::new(
                name,
                Status::NotApplicable,
                e,
                Why::Missing(
                    "CLIDR_EL1 reports no data or unified cache, and the sweep shows none",
                ),
            ),
        }
    }
}

/// Writes the table as Markdown: one row per verdict (name, what it checks, threshold, what
/// a failure usually means, what it does under emulation). `docs/bringup.md` holds exactly
/// this between its `verdicts` markers.
pub fn write_markdown<W: Write + ?Sized>(w: &mut W) -> fmt::Result {
    w.write_str(
        "| verdict | checks | threshold | a failure usually means | under QEMU |\n\
         |---|---|---|---|---|\n",
    )?;
    for s in &VERDICTS {
        writeln!(
            w,
            "| `{}` | {} | {} | {} | {} |",
            s.id,
            s.checks,
            s.threshold,
            s.failure,
            s.basis.under_emulation()
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::cache::CacheType;
    use std::string::{String, ToString};
    use std::vec::Vec;
    use std::{format, vec};

    const KIB: u64 = 1 << 10;
    const MIB: u64 = 1 << 20;

    fn level(level: u8, size: u64) -> CacheLevel {
        // 64 B lines, 4 ways: sets = size / 256.
        CacheLevel {
            level,
            kind: if level == 1 {
                CacheType::Separate
            } else {
                CacheType::Unified
            },
            line: 64,
            ways: 4,
            sets: u32::try_from(size / 256).unwrap(),
        }
    }

    /// Cortex-A72-like: L1D 32 KiB, L2 1 MiB.
    fn a72_caches() -> [CacheLevel; 2] {
        [level(1, 32 * KIB), level(2, MIB)]
    }

    type Curve = fn(Kernel, &str, Granule, u64) -> Option<u64>;
    type Pmu = fn(Kernel, &str, u64, &str) -> Option<u64>;

    /// A synthetic sweep: powers of two from 4 KiB to `max`, values from `curve` (memory
    /// types by name), PMU counts from `pmu`.
    struct Synthetic {
        sizes: Vec<u64>,
        curve: Curve,
        pmu: Pmu,
    }

    fn no_pmu(_: Kernel, _: &str, _: u64, _: &str) -> Option<u64> {
        None
    }

    fn sweep(max: u64, curve: Curve) -> Synthetic {
        Synthetic {
            sizes: (12..=max.trailing_zeros()).map(|s| 1u64 << s).collect(),
            curve,
            pmu: no_pmu,
        }
    }

    impl Sweep for Synthetic {
        fn sizes(&self) -> &[u64] {
            &self.sizes
        }
        fn best(&self, kernel: Kernel, memtype: usize, granule: Granule, size: u64) -> Option<u64> {
            let t = memtype::MEMTYPES.get(memtype)?.name;
            self.sizes
                .contains(&size)
                .then(|| (self.curve)(kernel, t, granule, size))
                .flatten()
        }
        fn pmu(&self, kernel: Kernel, memtype: usize, size: u64, event: &str) -> Option<u64> {
            let t = memtype::MEMTYPES.get(memtype)?.name;
            (self.pmu)(kernel, t, size, event)
        }
    }

    /// Three levels of a cached curve (L1 ≤ 32 KiB, L2 ≤ 1 MiB, DRAM).
    fn tiers(size: u64, l1: u64, l2: u64, dram: u64) -> u64 {
        if size <= 32 * KIB {
            l1
        } else if size <= MIB {
            l2
        } else {
            dram
        }
    }

    /// Cortex-A72-like curves: WB reads ~20 GB/s in L1, ~10 in L2, ~4 in DRAM; NC flat
    /// ~1 GB/s; Device ~0.4; WB-noalloc and WT writes go to memory; latency 1.5 / 10 / 120 ns.
    fn a72(kernel: Kernel, t: &str, _: Granule, size: u64) -> Option<u64> {
        Some(match (kernel, t) {
            (Kernel::ReadLdp, "normal-wb" | "normal-wt") => tiers(size, 20_000, 10_000, 4_000),
            (Kernel::ReadLdp, "normal-wb-noalloc") => 1_100,
            (Kernel::ReadLdp, "normal-nc") => 1_000,
            (Kernel::ReadLdp, _) => 400,
            (Kernel::WriteStp, "normal-wb") => tiers(size, 16_000, 8_000, 3_000),
            (Kernel::WriteStp, "normal-wb-noalloc" | "normal-wt") => 2_500,
            (Kernel::WriteStp, "normal-nc") => 2_000,
            (Kernel::WriteStp, _) => 1_500,
            (Kernel::Latency, "normal-wb") => tiers(size, 150, 1_000, 12_000),
            (Kernel::Latency, _) => 15_000,
            _ => return None,
        })
    }

    /// The figures of the public reports on an A72-like cache hierarchy: Device reads ≈10×
    /// slower than heap (normal-wb) in DRAM while writes look fine; write-back no-allocate
    /// 7 MB/s write, 28 MB/s read vs 120/160 MB/s with read-write-allocate.
    fn public_reports(kernel: Kernel, t: &str, _: Granule, size: u64) -> Option<u64> {
        Some(match (kernel, t) {
            (Kernel::ReadLdp, "normal-wb" | "normal-wt") => tiers(size, 2_000, 800, 160),
            (Kernel::ReadLdp, "normal-wb-noalloc") => 28,
            (Kernel::ReadLdp, "normal-nc") => 30,
            (Kernel::ReadLdp, _) => 16,
            (Kernel::WriteStp, "normal-wb") => tiers(size, 1_500, 600, 120),
            (Kernel::WriteStp, "normal-wb-noalloc") => 7,
            (Kernel::WriteStp, "normal-wt") => 9,
            (Kernel::WriteStp, _) => 110,
            _ => return None,
        })
    }

    /// Caches off (or normal-wb not cacheable): every Normal type like normal-nc.
    fn caches_off(kernel: Kernel, t: &str, _: Granule, _: u64) -> Option<u64> {
        let device = t.starts_with("device");
        Some(match kernel {
            Kernel::ReadLdp if device => 400,
            Kernel::ReadLdp => 1_000 + u64::from(t == "normal-wb") * 20,
            Kernel::WriteStp if device => 1_500,
            Kernel::WriteStp => 2_000,
            Kernel::Latency => 15_000,
            _ => return None,
        })
    }

    /// The A72 board, but the core ignores the no-allocate hint (noalloc = WB).
    fn ignores_noalloc(kernel: Kernel, t: &str, g: Granule, size: u64) -> Option<u64> {
        a72(
            kernel,
            if t == "normal-wb-noalloc" {
                "normal-wb"
            } else {
                t
            },
            g,
            size,
        )
    }

    /// The A72 board with the WT alias mis-set to write-back (WT = WB).
    fn wt_is_wb(kernel: Kernel, t: &str, g: Granule, size: u64) -> Option<u64> {
        a72(
            kernel,
            if t == "normal-wt" { "normal-wb" } else { t },
            g,
            size,
        )
    }

    /// The A72 board with normal-nc mapped cacheable by mistake (NC = WB).
    fn nc_cached(kernel: Kernel, t: &str, g: Granule, size: u64) -> Option<u64> {
        a72(
            kernel,
            if t == "normal-nc" { "normal-wb" } else { t },
            g,
            size,
        )
    }

    /// QEMU: flat curves, every type alike (Device slower through the TCG slow path).
    fn emulated(kernel: Kernel, t: &str, _: Granule, _: u64) -> Option<u64> {
        let device = t.starts_with("device");
        Some(match kernel {
            Kernel::ReadLdp | Kernel::WriteStp if device => 1_200,
            Kernel::ReadLdp | Kernel::WriteStp => 12_000,
            Kernel::Latency => 500,
            _ => return None,
        })
    }

    fn inputs<'a>(caches: &'a [CacheLevel], sweep: &'a Synthetic) -> Inputs<'a, Synthetic> {
        Inputs {
            emulated: false,
            sctlr_c: true,
            sctlr_i: true,
            caches,
            sweep,
            stale: Some(Stale {
                stale_words: 8192,
                words: 8192,
            }),
            maintenance: Some(Maintenance {
                cleaned_visible: true,
                stale_before_invalidate: Some(true),
                invalidate_dropped: Some(true),
            }),
            smp: Some(Smp {
                cpus: 4,
                started: 4,
                differing: 0,
                first_differing: None,
                shared_line_ok: true,
            }),
            clock: Some(Clock {
                cycles: 1_500_000_000,
                ticks: 54_000_000,
                timer_hz: 54_000_000,
            }),
        }
    }

    fn status(v: &Verdicts, name: Name) -> Status {
        v.get(name).unwrap().status
    }

    fn why(v: &Verdicts, name: Name) -> String {
        v.get(name).unwrap().why.to_string()
    }

    fn ev(v: &Verdicts, name: Name, key: &str) -> Option<u64> {
        v.get(name).unwrap().evidence.get(key).map(|(v, _)| v)
    }

    fn statuses(v: &Verdicts) -> Vec<(&'static str, &'static str)> {
        v.iter().map(|v| (v.name.id(), v.status.name())).collect()
    }

    #[test]
    fn table_is_consistent() {
        for (i, s) in VERDICTS.iter().enumerate() {
            assert_eq!(s.name as usize, i);
            assert_eq!(s.name.spec(), s);
            assert_eq!(by_name(s.id), Some(s));
            for text in [s.checks, s.threshold, s.failure] {
                assert!(!text.is_empty() && !text.contains('\n') && !text.contains('|'));
                assert!(!text.contains("  "), "{text}");
                assert!(text.ends_with('.'), "{text}");
            }
            for other in &VERDICTS[i + 1..] {
                assert_ne!(s.id, other.id);
            }
            // The schema's doc of the name field lists every verdict.
            let doc = schema::VERDICT.field("name").unwrap().doc;
            assert!(doc.contains(s.id), "{}", s.id);
        }
        let ids: Vec<_> = VERDICTS.iter().map(|s| s.id).collect();
        assert_eq!(
            ids,
            [
                "caches-on",
                "uncached",
                "write-allocate",
                "write-through",
                "maintenance",
                "device-read-cliff",
                "smp-config",
                "clock",
                "cache-geometry"
            ]
        );
        for name in [NC, WB_NOALLOC, WT].into_iter().chain(DEVICES) {
            assert!(memtype::by_name(name).is_some(), "{name}");
        }
        assert!(memtype::by_name(DEVICES[0])
            .unwrap()
            .summary
            .contains("Device-nGnRE"));
        for s in STATUSES {
            assert_eq!(Status::by_name(s.name()), Some(s));
        }
        assert_eq!(
            (event::L1D_CACHE_REFILL, event::BUS_ACCESS),
            ("l1d_cache_refill", "bus_access")
        );
        assert_eq!(Status::by_name("PASS"), None);
        assert!(Status::Fail > Status::Warn && Status::Warn > Status::Pass);
        assert!(Status::Pass > Status::NotApplicable);
    }

    #[test]
    fn a72_board_passes_everything() {
        let caches = a72_caches();
        let s = sweep(32 * MIB, a72);
        let v = judge(&inputs(&caches, &s));
        assert_eq!(
            statuses(&v),
            [
                ("caches-on", "pass"),
                ("uncached", "pass"),
                ("write-allocate", "pass"),
                ("write-through", "pass"),
                ("maintenance", "pass"),
                ("device-read-cliff", "pass"),
                ("smp-config", "pass"),
                ("clock", "pass"),
                ("cache-geometry", "pass")
            ]
        );
        assert_eq!(v.worst(), Status::Pass);
        assert!(!v.must_fail());
        assert_eq!(
            why(&v, Name::CachesOn),
            "SCTLR_EL1.C and I are set; normal-wb reads at 16 KiB are 20.0x faster than normal-nc's"
        );
        assert_eq!(ev(&v, Name::CachesOn, "ratio"), Some(2000));
        assert_eq!(ev(&v, Name::CachesOn, "size_bytes"), Some(16 * KIB));
        assert_eq!(ev(&v, Name::Uncached, "step"), Some(100));
        assert_eq!(
            why(&v, Name::WriteAllocate),
            "normal-wb-noalloc writes at 16 KiB are 6.4x slower than normal-wb's: the allocation hints take effect (public report: 7 vs 120 MB/s)"
        );
        assert_eq!(
            ev(&v, Name::WriteAllocate, "l2_size_bytes"),
            Some(512 * KIB)
        );
        assert_eq!(ev(&v, Name::WriteAllocate, "l2_ratio"), Some(320));
        assert_eq!(ev(&v, Name::WriteThrough, "ratio"), Some(640));
        // DRAM: the smallest size ≥ 4 MiB; WB 4000 vs device-ngnre 400.
        assert_eq!(
            why(&v, Name::DeviceReadCliff),
            "device-ngnre reads at 4 MiB are 10.0x slower than normal-wb's (\"Performance Anomaly Investigation\": ≈10x)"
        );
        assert_eq!(ev(&v, Name::Clock, "core_mhz"), Some(150_000));
        assert_eq!(
            why(&v, Name::Clock),
            "the core runs at 1500.00 MHz (27.778 cycles per tick of the 54000000 Hz timer)"
        );
        // Latency on blocks: L1 1.5 ns at 16 KiB vs 10 ns at 64 KiB; L2 10 vs 120 ns.
        assert_eq!(ev(&v, Name::CacheGeometry, "l1_step"), Some(667));
        assert_eq!(ev(&v, Name::CacheGeometry, "l2_step"), Some(1200));
        assert_eq!(
            why(&v, Name::CacheGeometry),
            "normal-wb latency steps across each of the 2 reported caches"
        );
    }

    #[test]
    fn the_public_reports_figures() {
        let caches = a72_caches();
        let s = sweep(8 * MIB, public_reports);
        let v = judge(&inputs(&caches, &s));
        assert_eq!(status(&v, Name::CachesOn), Status::Pass);
        // 120 vs 7 MB/s in DRAM; at the L1 set 1500 vs 7.
        assert_eq!(status(&v, Name::WriteAllocate), Status::Pass);
        assert_eq!(ev(&v, Name::WriteAllocate, "noalloc_mbps"), Some(7));
        // Device reads 16 vs 160 MB/s: the ≈10× cliff; its writes (110) look fine.
        assert_eq!(status(&v, Name::DeviceReadCliff), Status::Pass);
        assert_eq!(ev(&v, Name::DeviceReadCliff, "ratio"), Some(1000));
        assert_eq!(ev(&v, Name::DeviceReadCliff, "reference_ratio"), Some(1000));
        // No latency measured: the geometry is read from read-ldp.
        assert_eq!(status(&v, Name::CacheGeometry), Status::Pass);
        assert!(why(&v, Name::CacheGeometry).starts_with("normal-wb read-ldp steps"));
        // The trap itself: normal-wb behaving as no-allocate (WB = WB-noalloc = 7 MB/s
        // writes, no faster than normal-nc's).
        fn trap(kernel: Kernel, t: &str, g: Granule, size: u64) -> Option<u64> {
            match (kernel, t) {
                (Kernel::WriteStp, "normal-wb" | "normal-nc") => Some(7),
                _ => public_reports(kernel, t, g, size),
            }
        }
        let s = sweep(8 * MIB, trap);
        let v = judge(&inputs(&caches, &s));
        assert_eq!(status(&v, Name::WriteAllocate), Status::Fail);
        assert_eq!(
            why(&v, Name::WriteAllocate),
            "normal-wb writes at 16 KiB are only 1.0x normal-nc's: write-back writes do not allocate (the public report's trap: 7 MB/s instead of 120)"
        );
        assert!(v.must_fail());
    }

    #[test]
    fn caches_off_board() {
        let caches = a72_caches();
        let s = sweep(32 * MIB, caches_off);
        let mut i = inputs(&caches, &s);
        i.stale = Some(Stale {
            stale_words: 0,
            words: 8192,
        });
        let v = judge(&i);
        assert_eq!(status(&v, Name::CachesOn), Status::Fail);
        assert_eq!(
            why(&v, Name::CachesOn),
            "SCTLR_EL1.C and I are set but no measurement shows a cache: normal-wb reads at 16 KiB are only 1.0x normal-nc's (a cache gives at least 1.5x); without maintenance 0 of 8192 words were stale (0 hints the caches are off)"
        );
        assert_eq!(status(&v, Name::Uncached), Status::Pass);
        assert_eq!(status(&v, Name::WriteAllocate), Status::Fail);
        assert_eq!(status(&v, Name::WriteThrough), Status::Fail);
        assert_eq!(status(&v, Name::CacheGeometry), Status::Fail);
        assert_eq!(
            why(&v, Name::CacheGeometry),
            "normal-wb latency shows no step across L1 (32 KiB): 1.0x from 16 KiB to 64 KiB, a cache gives at least 1.3x; 0 of 2 reported caches show"
        );
        assert!(v.must_fail());
        // Only the demonstration: 0 stale words alone fails too.
        let none = NoSweep;
        let mut i = Inputs {
            emulated: false,
            sctlr_c: true,
            sctlr_i: true,
            caches: &caches,
            sweep: &none,
            stale: Some(Stale {
                stale_words: 0,
                words: 8192,
            }),
            maintenance: None,
            smp: None,
            clock: None,
        };
        assert_eq!(status(&judge(&i), Name::CachesOn), Status::Fail);
        // And stale words alone pass.
        i.stale = Some(Stale {
            stale_words: 8000,
            words: 8192,
        });
        let v = judge(&i);
        assert_eq!(status(&v, Name::CachesOn), Status::Pass);
        assert_eq!(
            why(&v, Name::CachesOn),
            "SCTLR_EL1.C and I are set; without maintenance normal-nc read 8000 of 8192 words stale, so normal-wb held dirty lines"
        );
        // Nothing at all: n/a for every verdict but the register-based fail paths.
        i.stale = None;
        let v = judge(&i);
        assert!(
            v.iter().all(|v| v.status == Status::NotApplicable),
            "{:?}",
            statuses(&v)
        );
        assert_eq!(v.worst(), Status::NotApplicable);
        assert!(why(&v, Name::CachesOn).starts_with("not measured: "));
    }

    #[test]
    fn sctlr_clear_fails_caches_on_even_emulated() {
        let caches = a72_caches();
        let s = sweep(32 * MIB, a72);
        for emulated in [false, true] {
            for (c, i, text) in [
                (false, true, "SCTLR_EL1.C is clear"),
                (true, false, "SCTLR_EL1.I is clear"),
                (false, false, "SCTLR_EL1.C and I are clear"),
            ] {
                let mut inp = inputs(&caches, &s);
                (inp.emulated, inp.sctlr_c, inp.sctlr_i) = (emulated, c, i);
                let v = judge(&inp);
                assert_eq!(status(&v, Name::CachesOn), Status::Fail);
                assert!(v.must_fail());
                assert_eq!(
                    why(&v, Name::CachesOn),
                    format!("{text}: the caches are disabled for the measurements, so every access goes to memory")
                );
                assert_eq!(ev(&v, Name::CachesOn, "sctlr_c"), Some(u64::from(c)));
            }
        }
    }

    #[test]
    fn emulated_flat_curves() {
        let caches = a72_caches();
        let s = sweep(32 * MIB, emulated);
        let mut i = inputs(&caches, &s);
        i.emulated = true;
        i.stale = Some(Stale {
            stale_words: 0,
            words: 8192,
        });
        // QEMU has no caches: normal-wb already reads memory's new data before the
        // invalidate, which is expected there.
        i.maintenance = Some(Maintenance {
            cleaned_visible: true,
            stale_before_invalidate: Some(false),
            invalidate_dropped: Some(true),
        });
        let v = judge(&i);
        assert_eq!(
            statuses(&v),
            [
                ("caches-on", "n/a"),
                ("uncached", "n/a"),
                ("write-allocate", "n/a"),
                ("write-through", "n/a"),
                ("maintenance", "pass"),
                ("device-read-cliff", "n/a"),
                ("smp-config", "pass"),
                ("clock", "n/a"),
                ("cache-geometry", "n/a")
            ]
        );
        assert_eq!(
            why(&v, Name::Uncached),
            "QEMU models no caches, so its timings and PMU counts cannot judge this"
        );
        assert!(!v.must_fail());
        // The same flat curves on "silicon" fail what they must.
        i.emulated = false;
        let v = judge(&i);
        assert_eq!(status(&v, Name::CachesOn), Status::Fail);
        assert_eq!(status(&v, Name::WriteThrough), Status::Fail);
        assert_eq!(status(&v, Name::Maintenance), Status::Warn);
        // Device 10x slower under QEMU is a cliff, but only information.
        assert_eq!(status(&v, Name::DeviceReadCliff), Status::Pass);
    }

    #[test]
    fn uncached_verdicts() {
        let caches = a72_caches();
        // normal-nc cached by mistake: steps 2.0x across L1, fail.
        let s = sweep(32 * MIB, nc_cached);
        let v = judge(&inputs(&caches, &s));
        assert_eq!(status(&v, Name::Uncached), Status::Fail);
        assert_eq!(
            why(&v, Name::Uncached),
            "normal-nc reads step 2.5x across L2 (1 MiB): an uncached alias is served by a cache (check its MAIR byte, AttrIndx and the interconnect)"
        );
        // The same step with a bus access per line: something outside the core, a warn.
        let mut s = sweep(32 * MIB, nc_cached);
        s.pmu = |_, t, _, event| (event == event::BUS_ACCESS && t != "normal-wb").then_some(400);
        let v = judge(&inputs(&caches, &s));
        assert_eq!(status(&v, Name::Uncached), Status::Warn);
        assert!(why(&v, Name::Uncached).contains("yet the PMU counts 4.00 bus accesses per line"));
        // PMU only (no sweep across a cache): a bus access per line passes, none fails.
        let mut s = sweep(16 * KIB, a72);
        s.pmu = |_, _, _, event| (event == event::BUS_ACCESS).then_some(100);
        let v = judge(&inputs(&caches, &s));
        assert_eq!(status(&v, Name::Uncached), Status::Pass);
        assert_eq!(
            why(&v, Name::Uncached),
            "the PMU counts 1.00 bus accesses per line read through the uncached aliases: every line goes to the bus"
        );
        s.pmu = |_, _, _, event| (event == event::BUS_ACCESS).then_some(2);
        let v = judge(&inputs(&caches, &s));
        assert_eq!(status(&v, Name::Uncached), Status::Fail);
        assert_eq!(ev(&v, Name::Uncached, "bus_access_per_line"), Some(2));
        // Nothing across a cache, no PMU: n/a.
        let s = sweep(16 * KIB, a72);
        assert_eq!(
            status(&judge(&inputs(&caches, &s)), Name::Uncached),
            Status::NotApplicable
        );
    }

    #[test]
    fn caches_on_by_pmu_refills() {
        let caches = a72_caches();
        // Only normal-wb measured (no normal-nc), but the PMU shows no refills.
        fn wb_only(kernel: Kernel, t: &str, g: Granule, size: u64) -> Option<u64> {
            (t == "normal-wb")
                .then(|| a72(kernel, t, g, size))
                .flatten()
        }
        let mut s = sweep(32 * MIB, wb_only);
        s.pmu = |_, _, size, event| {
            (event == event::L1D_CACHE_REFILL).then_some(if size <= 32 * KIB { 1 } else { 100 })
        };
        let mut i = inputs(&caches, &s);
        i.stale = None;
        let v = judge(&i);
        assert_eq!(status(&v, Name::CachesOn), Status::Pass);
        assert_eq!(
            why(&v, Name::CachesOn),
            "SCTLR_EL1.C and I are set; re-reading 16 KiB through normal-wb refills 0.01 L1D lines per line"
        );
        // One refill per line and nothing else: fail.
        s.pmu = |_, _, _, event| (event == event::L1D_CACHE_REFILL).then_some(100);
        let mut i = inputs(&caches, &s);
        i.stale = None;
        let v = judge(&i);
        assert_eq!(status(&v, Name::CachesOn), Status::Fail);
        assert_eq!(
            why(&v, Name::CachesOn),
            "SCTLR_EL1.C and I are set but no measurement shows a cache"
        );
    }

    #[test]
    fn write_allocate_and_write_through() {
        let caches = a72_caches();
        let s = sweep(32 * MIB, ignores_noalloc);
        let v = judge(&inputs(&caches, &s));
        assert_eq!(status(&v, Name::WriteAllocate), Status::Warn);
        assert_eq!(
            why(&v, Name::WriteAllocate),
            "normal-wb writes at 16 KiB run at only 1.0x normal-wb-noalloc's speed: this core allocates despite the no-allocate hint, which the Arm ARM allows"
        );
        assert!(!v.must_fail());
        // Not measured: n/a.
        fn no_writes(kernel: Kernel, t: &str, g: Granule, size: u64) -> Option<u64> {
            (kernel != Kernel::WriteStp)
                .then(|| a72(kernel, t, g, size))
                .flatten()
        }
        let s = sweep(32 * MIB, no_writes);
        let v = judge(&inputs(&caches, &s));
        assert_eq!(status(&v, Name::WriteAllocate), Status::NotApplicable);
        assert_eq!(status(&v, Name::WriteThrough), Status::NotApplicable);
        // WT = WB: mis-set, fail.
        let s = sweep(32 * MIB, wt_is_wb);
        let v = judge(&inputs(&caches, &s));
        assert_eq!(status(&v, Name::WriteThrough), Status::Fail);
        assert_eq!(
            why(&v, Name::WriteThrough),
            "normal-wb writes at 16 KiB run at 1.0x normal-wt's speed: the write-through alias behaves as write-back (check its MAIR byte and AttrIndx)"
        );
        // WT only 1.3x slower: warn.
        fn wt_close(kernel: Kernel, t: &str, g: Granule, size: u64) -> Option<u64> {
            match (kernel, t) {
                (Kernel::WriteStp, "normal-wt") => Some(12_300),
                _ => a72(kernel, t, g, size),
            }
        }
        let s = sweep(32 * MIB, wt_close);
        let v = judge(&inputs(&caches, &s));
        assert_eq!(status(&v, Name::WriteThrough), Status::Warn);
        assert!(why(&v, Name::WriteThrough)
            .ends_with("1.3x normal-wt's speed: a small difference, not conclusive"));
    }

    #[test]
    fn maintenance_verdicts() {
        let caches = a72_caches();
        let s = sweep(32 * MIB, a72);
        let cases = [
            (true, Some(true), Some(true), false, Status::Pass),
            (false, Some(true), Some(true), false, Status::Fail),
            (true, Some(true), Some(false), false, Status::Fail),
            (true, Some(true), None, false, Status::Warn),
            (true, Some(false), Some(true), false, Status::Warn),
            (true, Some(false), Some(true), true, Status::Pass),
            (true, None, Some(true), false, Status::Pass),
            (false, None, None, true, Status::Fail),
        ];
        for (cleaned, held, dropped, emulated, want) in cases {
            let mut i = inputs(&caches, &s);
            i.emulated = emulated;
            i.maintenance = Some(Maintenance {
                cleaned_visible: cleaned,
                stale_before_invalidate: held,
                invalidate_dropped: dropped,
            });
            let v = judge(&i);
            assert_eq!(
                status(&v, Name::Maintenance),
                want,
                "{cleaned} {held:?} {dropped:?} {emulated}: {}",
                why(&v, Name::Maintenance)
            );
        }
        let mut i = inputs(&caches, &s);
        i.maintenance = None;
        assert_eq!(status(&judge(&i), Name::Maintenance), Status::NotApplicable);
    }

    #[test]
    fn device_read_cliff_verdicts() {
        let caches = a72_caches();
        // No cliff: Device as fast as normal-wb in DRAM.
        fn no_cliff(kernel: Kernel, t: &str, g: Granule, size: u64) -> Option<u64> {
            match (kernel, t.starts_with("device")) {
                (Kernel::ReadLdp, true) => Some(3_800),
                _ => a72(kernel, t, g, size),
            }
        }
        let s = sweep(32 * MIB, no_cliff);
        let v = judge(&inputs(&caches, &s));
        assert_eq!(status(&v, Name::DeviceReadCliff), Status::Warn);
        assert!(why(&v, Name::DeviceReadCliff)
            .starts_with("normal-wb reads at 4 MiB run at only 1.1x device-ngnre's speed"));
        // The sweep stops at 2 MiB < 4x the 1 MiB L2: n/a.
        let s = sweep(2 * MIB, a72);
        let v = judge(&inputs(&caches, &s));
        assert_eq!(status(&v, Name::DeviceReadCliff), Status::NotApplicable);
        // Only device-gre measured: it is used.
        fn gre_only(kernel: Kernel, t: &str, g: Granule, size: u64) -> Option<u64> {
            (!t.starts_with("device") || t == "device-gre")
                .then(|| a72(kernel, t, g, size))
                .flatten()
        }
        let s = sweep(32 * MIB, gre_only);
        let v = judge(&inputs(&caches, &s));
        assert!(why(&v, Name::DeviceReadCliff).starts_with("device-gre reads at 4 MiB"));
    }

    #[test]
    fn smp_verdicts() {
        let caches = a72_caches();
        let s = sweep(32 * MIB, a72);
        let smp = |cpus, started, differing, first, shared| {
            let mut i = inputs(&caches, &s);
            i.smp = Some(Smp {
                cpus,
                started,
                differing,
                first_differing: first,
                shared_line_ok: shared,
            });
            let v = judge(&i);
            (status(&v, Name::SmpConfig), why(&v, Name::SmpConfig))
        };
        assert_eq!(smp(4, 4, 0, None, true).0, Status::Pass);
        assert_eq!(
            smp(4, 3, 0, None, true),
            (
                Status::Warn,
                "3 of 4 CPUs started (the cpu records say why); those running match the boot CPU"
                    .into()
            )
        );
        assert_eq!(smp(2, 1, 0, None, false).0, Status::Warn);
        assert_eq!(
            smp(4, 4, 1, Some((0x81, "TCR_EL1")), true),
            (
                Status::Fail,
                "1 of 4 CPUs run with other settings than the boot CPU (MPIDR 0x81: TCR_EL1): its boot path left a register unset".into()
            )
        );
        assert_eq!(smp(4, 4, 0, None, false).0, Status::Fail);
        assert_eq!(smp(1, 1, 0, None, false).0, Status::NotApplicable);
        let mut i = inputs(&caches, &s);
        i.smp = None;
        i.emulated = true;
        assert_eq!(status(&judge(&i), Name::SmpConfig), Status::NotApplicable);
    }

    #[test]
    fn clock_verdicts() {
        let caches = a72_caches();
        let s = sweep(32 * MIB, a72);
        let clock = |cycles, ticks, timer_hz| {
            let mut i = inputs(&caches, &s);
            i.clock = Some(Clock {
                cycles,
                ticks,
                timer_hz,
            });
            let v = judge(&i);
            (status(&v, Name::Clock), why(&v, Name::Clock))
        };
        assert_eq!(clock(1_800_000, 1_000, 19_200_000).0, Status::Pass);
        // The cycle counter at the timer's rate (±2 %).
        let (st, w) = clock(1_010, 1_000, 54_000_000);
        assert_eq!(st, Status::Warn);
        assert_eq!(w, "the core runs at 54.54 MHz (1.010 cycles per tick of the 54000000 Hz timer): the cycle counter runs at the timer's rate, not the core's");
        // A PLL left in bypass: 24 MHz.
        let (st, w) = clock(1_250, 1_000, 19_200_000);
        assert_eq!(st, Status::Warn);
        assert!(
            w.ends_with("below 100 MHz, the core PLL is likely still in bypass"),
            "{w}"
        );
        assert_eq!(
            clock(0, 5_000, 19_200_000),
            (
                Status::Fail,
                "PMCCNTR_EL0 did not advance over 5000 timer ticks: the cycle counter does not count".into()
            )
        );
        assert_eq!(clock(100, 0, 19_200_000).0, Status::NotApplicable);
        assert_eq!(clock(u64::MAX, 1, u64::MAX).0, Status::Pass);
    }

    #[test]
    fn cache_geometry_verdicts() {
        // CCSIDR says L2 is 4 MiB, the curve steps at 1 MiB: no step across 2..8 MiB.
        let caches = [level(1, 32 * KIB), level(2, 4 * MIB)];
        let s = sweep(32 * MIB, a72);
        let v = judge(&inputs(&caches, &s));
        assert_eq!(status(&v, Name::CacheGeometry), Status::Warn);
        assert_eq!(
            why(&v, Name::CacheGeometry),
            "normal-wb latency shows no step across L2 (4 MiB): 1.0x from 2 MiB to 8 MiB, a cache gives at least 1.3x; 1 of 2 reported caches show"
        );
        // No caches reported, yet the curve steps: warn.
        let s = sweep(32 * MIB, a72);
        let v = judge(&inputs(&[], &s));
        assert_eq!(status(&v, Name::CacheGeometry), Status::Warn);
        assert_eq!(
            why(&v, Name::CacheGeometry),
            "CLIDR_EL1 reports no data cache, yet normal-wb latency steps 12.0x after 1 MiB"
        );
        // ... and flat: n/a.
        let s = sweep(32 * MIB, caches_off);
        let v = judge(&inputs(&[], &s));
        assert_eq!(status(&v, Name::CacheGeometry), Status::NotApplicable);
        // A sweep that cannot bracket any level: n/a.
        let s = sweep(32 * KIB, a72);
        let v = judge(&inputs(&a72_caches(), &s));
        assert_eq!(status(&v, Name::CacheGeometry), Status::NotApplicable);
        // Fillers of level 0 are ignored.
        let mut padded = [CacheLevel::NONE; crate::cache::MAX_LEVELS];
        padded[..2].copy_from_slice(&a72_caches());
        let s = sweep(32 * MIB, a72);
        let v = judge(&inputs(&padded, &s));
        assert_eq!(status(&v, Name::CacheGeometry), Status::Pass);
        assert_eq!(status(&v, Name::DeviceReadCliff), Status::Pass);
    }

    #[test]
    fn the_quick_sweep_is_enough_for_most() {
        // mairbench.quick: read-ldp and write-stp at 4 KiB, 256 KiB and 4 MiB.
        let caches = a72_caches();
        let mut s = sweep(4 * MIB, a72);
        s.sizes = vec![4 * KIB, 256 * KIB, 4 * MIB];
        s.curve = |k, t, g, size| {
            matches!(k, Kernel::ReadLdp | Kernel::WriteStp)
                .then(|| a72(k, t, g, size))
                .flatten()
        };
        let v = judge(&inputs(&caches, &s));
        assert_eq!(v.worst(), Status::Pass, "{:?}", statuses(&v));
        assert_eq!(ev(&v, Name::CachesOn, "size_bytes"), Some(4 * KIB));
        assert!(why(&v, Name::CacheGeometry).starts_with("normal-wb read-ldp steps across each"));
    }

    #[test]
    fn record_and_human_line() {
        let caches = a72_caches();
        let s = sweep(32 * MIB, a72);
        let v = judge(&inputs(&caches, &s));
        let caches_on = v.get(Name::CachesOn).unwrap();
        let mut line = String::new();
        caches_on.record(&mut line).unwrap();
        assert_eq!(
            line,
            "@mb {\"kind\":\"verdict\",\"name\":\"caches-on\",\"status\":\"pass\",\"evidence\":{\"sctlr_c\":1,\"sctlr_i\":1,\"stale_words\":8192,\"words\":8192,\"size_bytes\":16384,\"wb_mbps\":20000,\"nc_mbps\":1000,\"ratio\":20.00,\"min_ratio\":1.50},\"why\":\"SCTLR_EL1.C and I are set; normal-wb reads at 16 KiB are 20.0x faster than normal-nc's\"}\n"
        );
        assert_eq!(
            caches_on.to_string(),
            "verdict caches-on          pass  SCTLR_EL1.C and I are set; normal-wb reads at 16 KiB are 20.0x faster than normal-nc's"
        );
        // Every record has the schema's fields in order; quotes in the why are escaped.
        for verdict in v.iter() {
            let mut line = String::new();
            verdict.record(&mut line).unwrap();
            assert!(line.starts_with("@mb {\"kind\":\"verdict\",\"name\":\""));
            let keys: Vec<_> = schema::VERDICT.fields.iter().map(|f| f.name).collect();
            let mut at = 0;
            for k in keys {
                let pos = line[at..].find(&format!("\"{k}\":")).unwrap();
                at += pos;
            }
            assert!(line.ends_with("\"}\n"));
            assert!(verdict.evidence.len() <= MAX_EVIDENCE);
        }
        let mut cliff = String::new();
        v.get(Name::DeviceReadCliff)
            .unwrap()
            .record(&mut cliff)
            .unwrap();
        assert!(
            cliff.contains("(\\\"Performance Anomaly Investigation\\\": ≈10x)"),
            "{cliff}"
        );
    }

    #[test]
    fn verdicts_summary() {
        let caches = a72_caches();
        let s = sweep(32 * MIB, ignores_noalloc);
        let mut i = inputs(&caches, &s);
        i.smp = None;
        let v = judge(&i);
        assert_eq!(v.worst(), Status::Warn);
        assert!(!v.must_fail());
        assert_eq!(v.count(Status::Warn), 1);
        assert_eq!(v.count(Status::NotApplicable), 1);
        assert_eq!(
            v.named(Status::Warn).collect::<Vec<_>>(),
            ["write-allocate"]
        );
        assert_eq!(v.iter().count(), VERDICTS.len());
    }

    #[test]
    fn evidence_is_bounded() {
        let mut e = Evidence::new();
        assert!(e.is_empty());
        for _ in 0..MAX_EVIDENCE + 3 {
            e.push("k", 1, 0);
        }
        assert_eq!(e.len(), MAX_EVIDENCE);
        assert_eq!(e.get("k"), Some((1, 0)));
        assert_eq!(e.get("nope"), None);
        assert_eq!(Evidence::default(), Evidence::new());
    }

    #[test]
    fn garbage_never_panics() {
        // Extreme values and odd cache sizes: any status, never a panic.
        fn extreme(_: Kernel, t: &str, _: Granule, size: u64) -> Option<u64> {
            Some(match t.len() % 3 {
                0 => u64::MAX,
                1 => 1,
                _ => size ^ 0x5555,
            })
        }
        let caches = [
            level(1, 1),
            level(2, u64::from(u32::MAX) * 256),
            level(7, 4 * KIB),
        ];
        let mut s = sweep(32 * MIB, extreme);
        s.pmu = |_, _, size, _| Some(size.wrapping_mul(7));
        let mut i = inputs(&caches, &s);
        i.clock = Some(Clock {
            cycles: u64::MAX,
            ticks: u64::MAX,
            timer_hz: u64::MAX,
        });
        let v = judge(&i);
        for verdict in v.iter() {
            let mut line = String::new();
            verdict.record(&mut line).unwrap();
            let _ = verdict.to_string();
        }
        let empty = Synthetic {
            sizes: vec![],
            curve: extreme,
            pmu: no_pmu,
        };
        let _ = judge(&inputs(&caches, &empty));
    }

    #[test]
    fn markdown_table() {
        let mut s = String::new();
        write_markdown(&mut s).unwrap();
        assert!(s.starts_with("| verdict | checks | threshold |"));
        assert_eq!(s.lines().count(), 2 + VERDICTS.len());
        for v in &VERDICTS {
            assert!(s.contains(&format!("| `{}` | {} |", v.id, v.checks)));
        }
        for line in s.lines() {
            assert_eq!(line.matches('|').count(), 6, "{line}");
        }
    }
}
