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
//! One file per verdict holds its table row (`SPEC`), its own thresholds and inputs, how it
//! judges, its sentences and its tests; this file holds what they share (the table, the
//! [`Verdict`], [`Evidence`] and [`Why`] types) and `points.rs` how the sizes they compare are
//! chosen. No verdict names a memory type: each asks core's table by role
//! ([`crate::memtype::Role`]) and prints the names the table gives.
//!
//! A kernel's values are in its table unit ([`crate::kernel::Unit`]); "faster" means more
//! MB/s or fewer ns. Under emulation ([`Inputs::emulated`]) every verdict resting on timings
//! or PMU counts is `n/a` ("QEMU models no caches"), keeping as evidence the numbers it would
//! have judged by; register- and data-based ones still
//! pass or fail, and SCTLR_EL1.C or I clear fails `caches-on` everywhere.

use core::fmt::{self, Write};

use crate::cache::CacheLevel;
use crate::cores::{Cited, Core, Revised, Revision};
use crate::hypervisor::Hypervisor;
use crate::kernel::Kernel;
use crate::paging::Granule;
use crate::record::Record;
use crate::schema;

#[cfg(test)]
mod boards;
mod cache_geometry;
mod caches_on;
mod clock;
mod device_read_cliff;
mod held;
mod maintenance;
mod points;
pub use points::{dram_bound, l1_set_of, DRAM_TIMES};
mod smp_config;
#[cfg(test)]
mod testing;
mod uncached;
mod write_allocate;
mod write_through;

pub use caches_on::Stale;
pub use clock::{Clock, SLOW_CORE_HZ, TIMER_RATE_BAND};
pub use device_read_cliff::REFERENCE_CLIFF;
pub use held::{Held, NONE_PER_LINE, SEEN_PER_LINE};
pub use maintenance::Maintenance;
pub use smp_config::Smp;
pub use uncached::BUS_PER_LINE;
pub use write_through::SAME_RATIO;

use points::View;

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

    /// What the verdict rests on: its row's `basis`, taken at compile time like [`Name::id`].
    pub const fn basis(self) -> Basis {
        match self {
            Name::CachesOn => caches_on::SPEC.basis,
            Name::Uncached => uncached::SPEC.basis,
            Name::WriteAllocate => write_allocate::SPEC.basis,
            Name::WriteThrough => write_through::SPEC.basis,
            Name::Maintenance => maintenance::SPEC.basis,
            Name::DeviceReadCliff => device_read_cliff::SPEC.basis,
            Name::SmpConfig => smp_config::SPEC.basis,
            Name::Clock => clock::SPEC.basis,
            Name::CacheGeometry => cache_geometry::SPEC.basis,
        }
    }

    /// Whether each cluster is judged on its own: its row's `scope`, taken at compile time
    /// like [`Name::id`].
    pub const fn scope(self) -> Scope {
        match self {
            Name::CachesOn => caches_on::SPEC.scope,
            Name::Uncached => uncached::SPEC.scope,
            Name::WriteAllocate => write_allocate::SPEC.scope,
            Name::WriteThrough => write_through::SPEC.scope,
            Name::Maintenance => maintenance::SPEC.scope,
            Name::DeviceReadCliff => device_read_cliff::SPEC.scope,
            Name::SmpConfig => smp_config::SPEC.scope,
            Name::Clock => clock::SPEC.scope,
            Name::CacheGeometry => cache_geometry::SPEC.scope,
        }
    }

    /// The verdict's name, e.g. `caches-on`: its row's `id`, taken from each file's `SPEC`
    /// at compile time, so that a binary that only names verdicts (the firmware) does not
    /// carry the table's prose.
    pub const fn id(self) -> &'static str {
        match self {
            Name::CachesOn => caches_on::SPEC.id,
            Name::Uncached => uncached::SPEC.id,
            Name::WriteAllocate => write_allocate::SPEC.id,
            Name::WriteThrough => write_through::SPEC.id,
            Name::Maintenance => maintenance::SPEC.id,
            Name::DeviceReadCliff => device_read_cliff::SPEC.id,
            Name::SmpConfig => smp_config::SPEC.id,
            Name::Clock => clock::SPEC.id,
            Name::CacheGeometry => cache_geometry::SPEC.id,
        }
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
    /// The next step that tells the suspects of [`Spec::failure`] apart: the records to read,
    /// the run to repeat with which bootargs.
    pub next: &'static str,
    /// What it rests on.
    pub basis: Basis,
    /// Whether each cluster of a big.LITTLE board is judged on its own.
    pub scope: Scope,
}

/// What one verdict judges: each kind of core, or the machine once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The core's caches and memory types: judged again for each cluster the boot CPU is
    /// not in, from that cluster's own sweep, caches and core-table row.
    Core,
    /// The machine (its CPUs together, the maintenance experiment, the boot CPU's PMU):
    /// judged once, from the boot CPU's run.
    Machine,
}

impl Scope {
    /// In words (the docs table's column).
    pub const fn name(self) -> &'static str {
        match self {
            Scope::Core => "each cluster",
            Scope::Machine => "once",
        }
    }
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

/// Every verdict, in [`Name`] order (`VERDICTS[i].name as usize == i`); each row is its
/// file's `SPEC`.
pub const VERDICTS: [Spec; 9] = [
    caches_on::SPEC,
    uncached::SPEC,
    write_allocate::SPEC,
    write_through::SPEC,
    maintenance::SPEC,
    device_read_cliff::SPEC,
    smp_config::SPEC,
    clock::SPEC,
    cache_geometry::SPEC,
];

crate::assert_in_order!(VERDICTS.name);

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
    /// L2D_CACHE (0x16): `l2d_cache`.
    pub const L2D_CACHE: &str = named(0x16);
    /// BUS_ACCESS_RD (0x60): `bus_access_rd`.
    pub const BUS_ACCESS_RD: &str = named(0x60);
    /// BUS_ACCESS_WR (0x61): `bus_access_wr`.
    pub const BUS_ACCESS_WR: &str = named(0x61);
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
    /// The boot CPU's ACTLR SMP bits on 32-bit Arm, found and set at entry (the `smp_bits`
    /// record), when its core is one whose bits core knows.
    pub smp_bits: Option<crate::cores::armv7::SmpSetup>,
    /// The clock cross-check, when the PMU cycle counter is usable.
    pub clock: Option<Clock>,
    /// The boot CPU's row of core's table of cores ([`crate::cores::by_midr`]), when it has
    /// one: what the core is documented to do where the architecture lets it choose.
    pub core: Option<&'a Core>,
    /// The boot CPU's revision (MIDR_EL1's Variant and Revision), when known: the statements of
    /// its row that hold for some revisions only ([`crate::cores::Revised`]) are taken into
    /// account only for one they hold for.
    pub revision: Option<Revision>,
    /// The hypervisor whose guest the firmware runs in, when one says so
    /// ([`crate::hypervisor::detect`]).
    pub hypervisor: Option<Hypervisor>,
}

/// Most numbers one verdict's evidence holds.
pub const MAX_EVIDENCE: usize = 16;

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
    // Not inlined: the verdicts call it about 60 times (most through `whole`, `hundredths`
    // and `flag`).
    #[inline(never)]
    pub fn push(&mut self, key: &'static str, scaled: u64, places: u8) {
        if let Some(slot) = self.items.get_mut(self.len) {
            *slot = (key, scaled, places);
            self.len = self.len.saturating_add(1);
        }
    }

    /// Adds `key` = `value`, a whole number (bytes, MB/s, a count).
    fn whole(&mut self, key: &'static str, value: u64) {
        self.push(key, value, 0);
    }

    /// Adds `key` = `value / 100` (a ratio or a count per line in hundredths).
    fn hundredths(&mut self, key: &'static str, value: u64) {
        self.push(key, value, 2);
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

/// Why a verdict came out as it did: one sentence (its `Display`), quoting the numbers. The
/// sentences of each verdict are its file's `Why`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// Under emulation, for a verdict that rests on timings or PMU counts.
    Emulated,
    /// In a guest: the cached and uncached aliases behaved alike and no word was stale
    /// without maintenance, which a hypervisor's stage 2 forcing Normal write-back explains.
    Overridden(Hypervisor),
    /// Nothing to judge by; the text says what is missing.
    Missing(&'static str),
    /// `caches-on`.
    CachesOn(caches_on::Why),
    /// `uncached`.
    Uncached(uncached::Why),
    /// `write-allocate`.
    WriteAllocate(write_allocate::Why),
    /// `write-through`.
    WriteThrough(write_through::Why),
    /// `maintenance`.
    Maintenance(maintenance::Why),
    /// `device-read-cliff`.
    DeviceReadCliff(device_read_cliff::Why),
    /// `smp-config`.
    SmpConfig(smp_config::Why),
    /// `clock`.
    Clock(clock::Why),
    /// `cache-geometry`.
    CacheGeometry(cache_geometry::Why),
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Why::Emulated => f.write_str(
                "QEMU models no caches, so its timings and PMU counts cannot judge this",
            ),
            Why::Missing(what) => write!(f, "not measured: {what}"),
            Why::Overridden(h) => write!(
                f,
                "in a guest of {}: a hypervisor's {}, and no word was stale without maintenance, so the aliases cannot be judged here",
                h.name(),
                crate::hypervisor::STAGE2_OVERRIDES
            ),
            Why::CachesOn(w) => w.fmt(f),
            Why::Uncached(w) => w.fmt(f),
            Why::WriteAllocate(w) => w.fmt(f),
            Why::WriteThrough(w) => w.fmt(f),
            Why::Maintenance(w) => w.fmt(f),
            Why::DeviceReadCliff(w) => w.fmt(f),
            Why::SmpConfig(w) => w.fmt(f),
            Why::Clock(w) => w.fmt(f),
            Why::CacheGeometry(w) => w.fmt(f),
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
    /// What the core is documented to do that the verdict took into account.
    pub core_note: Option<CoreNote>,
}

/// A statement of core's table of cores that a verdict took into account, or that the core is
/// not in the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CoreNote {
    /// The core's row says so.
    Documented {
        /// The core's name.
        core: &'static str,
        /// The statement and its source.
        cited: Cited,
    },
    /// The core's row says so for some revisions, this core's among them.
    Revised {
        /// The core's name.
        core: &'static str,
        /// This core's revision.
        revision: Revision,
        /// The statement, the revisions it holds for, and its source.
        revised: Revised,
    },
    /// The core is not in the table: only the architecture's guarantees apply.
    Unknown,
}

impl CoreNote {
    /// The note for `core`'s statement `pick` (`Unknown` without a row; `None` when the row
    /// has no such statement).
    // `fn` pointers, not closures, and not inlined: one copy of each for all their callers.
    #[inline(never)]
    fn of(core: Option<&Core>, pick: fn(&Core) -> Option<&'static Cited>) -> Option<CoreNote> {
        match core {
            None => Some(CoreNote::Unknown),
            Some(c) => pick(c).map(|&cited| CoreNote::Documented {
                core: c.name,
                cited,
            }),
        }
    }

    /// The note for `core`'s revised statement `pick` when it holds for `revision`; `None`
    /// without a row, a revision, such a statement, or when it holds for other revisions only.
    #[inline(never)]
    fn revised(
        core: Option<&Core>,
        revision: Option<Revision>,
        pick: fn(&Core) -> Option<&'static Revised>,
    ) -> Option<CoreNote> {
        let (core, revision) = (core?, revision?);
        let revised = *pick(core).filter(|r| r.holds_for(revision))?;
        Some(CoreNote::Revised {
            core: core.name,
            revision,
            revised,
        })
    }
}

impl fmt::Display for CoreNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CoreNote::Documented { core, cited } => {
                write!(f, "{core} {} ({})", cited.says, cited.source)
            }
            CoreNote::Revised {
                core,
                revision,
                revised,
            } => write!(
                f,
                "{core} {revision} ({revised}) {} ({})",
                revised.cited.says, revised.cited.source
            ),
            CoreNote::Unknown => f.write_str(
                "this core is not in the table of cores: only the architecture's guarantees apply",
            ),
        }
    }
}

impl Verdict {
    /// A verdict without a core note. Not inlined: one copy for every verdict's callers.
    #[inline(never)]
    const fn new(name: Name, status: Status, evidence: Evidence, why: Why) -> Self {
        Verdict {
            name,
            status,
            evidence,
            why,
            core_note: None,
        }
    }

    /// The same verdict, taking `note` into account. Not inlined: one copy of the move for
    /// its callers.
    #[inline(never)]
    const fn noting(mut self, note: Option<CoreNote>) -> Self {
        self.core_note = note;
        self
    }

    /// Writes its `verdict` record: `@mb {"kind":"verdict","name":…,"status":…,
    /// "evidence":{…},"why":…}` (and `"core_note":…` when it took the core's row into
    /// account) and a line end.
    pub fn record(&self, out: &mut impl Write) -> fmt::Result {
        self.record_on(out, None)
    }

    /// Writes its `verdict` record, with the `cluster` field when it judges another
    /// cluster's sweep than the boot CPU's (`cluster`: that cluster's index).
    pub fn record_on(&self, out: &mut impl Write, cluster: Option<u16>) -> fmt::Result {
        let r = Record::new(out, &schema::VERDICT);
        let r = match cluster {
            Some(c) => r.u64("cluster", c.into()),
            None => r,
        };
        let r = r
            .str("name", self.name.id())
            .str("status", self.status.name())
            .decimals("evidence", self.evidence.iter())
            .fmt("why", format_args!("{}", self.why));
        match self.core_note {
            Some(note) => r.fmt("core_note", format_args!("{note}")),
            None => r,
        }
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

/// Judges every verdict of [`VERDICTS`] from `inputs`. Not inlined: inside its caller's
/// frame the same code takes more instructions. For the same reason no verdict's own `judge`
/// is inlined into this one, whose frame holds all nine verdicts.
#[inline(never)]
pub fn judge<S: Sweep + ?Sized>(inputs: &Inputs<'_, S>) -> Verdicts {
    let v = View::new(inputs);
    let allocate = write_allocate::judge(&v);
    let through = write_through::judge(&v, &allocate);
    let mut verdicts = [
        caches_on::judge(&v),
        uncached::judge(&v),
        allocate,
        through,
        maintenance::judge(&v),
        device_read_cliff::judge(&v),
        smp_config::judge(&v),
        clock::judge(&v),
        cache_geometry::judge(&v),
    ];
    for verdict in &mut verdicts {
        under_emulation(verdict, inputs.emulated);
        in_a_guest(verdict, inputs);
    }
    Verdicts(verdicts)
}

/// Whether `name` is a verdict a hypervisor's stage 2 can make fail by forcing Normal
/// write-back on every alias: one that rests on the uncached or write-through aliases being
/// slower.
const fn overridable(name: Name) -> bool {
    matches!(
        name,
        Name::CachesOn | Name::Uncached | Name::WriteAllocate | Name::WriteThrough
    )
}

/// In a guest, such a verdict's `fail` with 0 stale words in the no-maintenance
/// demonstration (the non-cacheable alias was cached too) is `n/a` with the reason, keeping
/// its numbers: the board owner cannot change the host's stage 2. SCTLR_EL1.C or I clear
/// still fails.
fn in_a_guest<S: Sweep + ?Sized>(verdict: &mut Verdict, inputs: &Inputs<'_, S>) {
    let Some(h) = inputs.hypervisor else {
        return;
    };
    let coherent = inputs.stale.is_some_and(|s| s.stale_words == 0);
    let registers = matches!(verdict.why, Why::CachesOn(caches_on::Why::Disabled { .. }));
    if verdict.status != Status::Fail || !coherent || registers || !overridable(verdict.name) {
        return;
    }
    verdict.status = Status::NotApplicable;
    verdict.why = Why::Overridden(h);
}

/// Under emulation a verdict that rests on timings or PMU counts is `n/a`, keeping the
/// numbers it would have judged by (what a board would be judged on, shown on QEMU too).
/// `caches-on`, which also rests on registers and data, decides for itself.
fn under_emulation(verdict: &mut Verdict, emulated: bool) {
    if !emulated || verdict.name.basis() != Basis::Timing {
        return;
    }
    verdict.status = Status::NotApplicable;
    verdict.why = match verdict.name {
        Name::Clock => Why::Clock(clock::Why::Emulated),
        _ => Why::Emulated,
    };
    // An emulator models no core's caches: its TRM's statements do not apply.
    verdict.core_note = None;
}

/// Writes the table as Markdown: one row per verdict (name, what it checks, threshold, what
/// a failure usually means, the next step, what it does under emulation). `docs/bringup.md` holds exactly
/// this between its `verdicts` markers.
pub fn write_markdown<W: Write + ?Sized>(w: &mut W) -> fmt::Result {
    w.write_str(
        "| verdict | checks | threshold | a failure usually means | next step | under QEMU | \
         judged |\n|---|---|---|---|---|---|---|\n",
    )?;
    for s in &VERDICTS {
        writeln!(
            w,
            "| `{}` | {} | {} | {} | {} | {} | {} |",
            s.id,
            s.checks,
            s.threshold,
            s.failure,
            s.next,
            s.basis.under_emulation(),
            s.scope.name()
        )?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::testing::*;
    use super::*;
    use crate::memtype::{self, MemType, Role, MEMTYPES};
    use std::string::{String, ToString};
    use std::vec::Vec;
    use std::{format, vec};

    /// The next steps name only bootargs the firmware reads and kernels of its table: a
    /// renamed one would send a bring-up engineer to a run that ignores it. (Memory types are
    /// named in prose, as in the other columns; host/tests/tooling/rename.rs renames one in the
    /// table alone and expects core's tests to pass.)
    #[test]
    fn next_steps_name_real_bootargs_kernels_and_types() {
        for s in &VERDICTS {
            for word in s.next.split(' ') {
                let word = word.trim_matches(|c| "().,:;".contains(c));
                let Some(rest) = word.strip_prefix("mairbench.") else {
                    continue;
                };
                let (key, values) = rest.split_once('=').unwrap_or((rest, ""));
                assert!(
                    crate::bootargs::KEYS.contains(&format!("mairbench.{key}").as_str()),
                    "{}: mairbench.{key} is not a bootarg",
                    s.id
                );
                for value in values.split(',').filter(|v| !v.is_empty()) {
                    match key {
                        "kernels" => {
                            assert!(crate::kernel::by_name(value).is_some(), "{}: {value}", s.id)
                        }
                        "selftest" => assert!(value == "caches-off", "{}: {value}", s.id),
                        _ => {}
                    }
                }
            }
        }
    }

    #[test]
    fn table_is_consistent() {
        for (i, s) in VERDICTS.iter().enumerate() {
            assert_eq!(s.name as usize, i);
            assert_eq!(s.name.spec(), s);
            assert_eq!(s.name.id(), s.id);
            assert_eq!(s.name.basis(), s.basis);
            assert_eq!(by_name(s.id), Some(s));
            for text in [s.checks, s.threshold, s.failure, s.next] {
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
        // Every role the verdicts compare has a type in the table, and the Device type they
        // prefer is Device-nGnRE.
        for role in [
            Role::WriteBack,
            Role::WriteBackHinted,
            Role::WriteThrough,
            Role::NonCacheable,
            Role::Device,
        ] {
            assert!(memtype::position(role).is_some(), "{role:?}");
        }
        assert!(MEMTYPES[memtype::DEVICE_NGNRE]
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
        let (wb, nc) = (name(Role::WriteBack), name(Role::NonCacheable));
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
            format!("SCTLR_EL1.C and I are set; {wb} reads at 16 KiB are 20.0x faster than {nc}'s")
        );
        assert_eq!(ev(&v, Name::CachesOn, "ratio"), Some(2000));
        assert_eq!(ev(&v, Name::CachesOn, "size_bytes"), Some(16 * KIB));
        assert_eq!(ev(&v, Name::Uncached, "step"), Some(100));
        assert_eq!(
            why(&v, Name::WriteAllocate),
            format!(
                "{} writes at 16 KiB are 6.4x slower than {wb}'s: the allocation hints take effect (public report: 7 vs 120 MB/s)",
                name(Role::WriteBackHinted)
            )
        );
        assert_eq!(
            ev(&v, Name::WriteAllocate, "l2_size_bytes"),
            Some(512 * KIB)
        );
        assert_eq!(ev(&v, Name::WriteAllocate, "l2_ratio"), Some(320));
        assert_eq!(ev(&v, Name::WriteThrough, "ratio"), Some(640));
        // DRAM: the smallest size ≥ 4 MiB; WB 4000 vs Device-nGnRE 400.
        assert_eq!(
            why(&v, Name::DeviceReadCliff),
            format!(
                "{} reads at 4 MiB are 10.0x slower than {wb}'s (\"Performance Anomaly Investigation\": ≈10x)",
                MEMTYPES[memtype::DEVICE_NGNRE].name
            )
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
            format!("{wb} latency steps across each of the 2 reported caches")
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
        assert!(why(&v, Name::CacheGeometry)
            .starts_with(&format!("{} read-ldp steps", name(Role::WriteBack))));
    }

    #[test]
    fn caches_off_board() {
        let (wb, nc) = (name(Role::WriteBack), name(Role::NonCacheable));
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
            format!("SCTLR_EL1.C and I are set but no measurement shows a cache: {wb} reads at 16 KiB are only 1.0x {nc}'s (a cache gives at least 1.5x); without maintenance 0 of 8192 words were stale (0 hints the caches are off)")
        );
        assert_eq!(status(&v, Name::Uncached), Status::Pass);
        assert_eq!(status(&v, Name::WriteAllocate), Status::Fail);
        // One story: write-back writes do not allocate, so write-through cannot be judged.
        assert_eq!(status(&v, Name::WriteThrough), Status::NotApplicable);
        assert_eq!(status(&v, Name::CacheGeometry), Status::Fail);
        assert_eq!(
            why(&v, Name::CacheGeometry),
            format!("{wb} latency shows no step across L1 (32 KiB): 1.0x from 16 KiB to 64 KiB, a cache gives at least 1.3x; 0 of 2 reported caches show")
        );
        assert!(v.must_fail());
        // Nothing at all: n/a for every verdict but the register-based fail paths.
        let none = NoSweep;
        let i = Inputs {
            emulated: false,
            sctlr_c: true,
            sctlr_i: true,
            caches: &caches,
            sweep: &none,
            stale: None,
            maintenance: None,
            smp: None,
            smp_bits: None,
            clock: None,
            core: None,
            revision: None,
            hypervisor: None,
        };
        let v = judge(&i);
        assert!(
            v.iter().all(|v| v.status == Status::NotApplicable),
            "{:?}",
            statuses(&v)
        );
        assert_eq!(v.worst(), Status::NotApplicable);
        for v in v.iter() {
            assert!(!v.why.to_string().is_empty());
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
        // QEMU has no caches: the write-back alias already reads memory's new data before
        // the invalidate, which is expected there.
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
        // n/a, but with the numbers a board would be judged on: 12000 vs 12000 MB/s.
        assert_eq!(ev(&v, Name::CachesOn, "ratio"), Some(100));
        assert_eq!(ev(&v, Name::WriteThrough, "ratio"), Some(100));
        assert_eq!(ev(&v, Name::DeviceReadCliff, "ratio"), Some(1000));
        assert_eq!(ev(&v, Name::Clock, "cycles"), Some(1_500_000_000));
        assert_eq!(
            why(&v, Name::Clock),
            "under QEMU PMCCNTR_EL0 counts virtual nanoseconds, not core cycles"
        );
        // The same flat curves on "silicon" fail what they must.
        i.emulated = false;
        let v = judge(&i);
        assert_eq!(status(&v, Name::CachesOn), Status::Fail);
        assert_eq!(status(&v, Name::WriteAllocate), Status::Fail);
        assert_eq!(status(&v, Name::WriteThrough), Status::NotApplicable);
        assert_eq!(status(&v, Name::Maintenance), Status::Warn);
        // Device 10x slower under QEMU is a cliff, but only information.
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
        assert!(why(&v, Name::CacheGeometry).starts_with(&format!(
            "{} read-ldp steps across each",
            name(Role::WriteBack)
        )));
    }

    #[test]
    fn record_and_human_line() {
        let (wb, nc) = (name(Role::WriteBack), name(Role::NonCacheable));
        let caches = a72_caches();
        let s = sweep(32 * MIB, a72);
        let v = judge(&inputs(&caches, &s));
        let caches_on = v.get(Name::CachesOn).unwrap();
        let mut line = String::new();
        caches_on.record(&mut line).unwrap();
        assert_eq!(
            line,
            format!("@mb {{\"kind\":\"verdict\",\"name\":\"caches-on\",\"status\":\"pass\",\"evidence\":{{\"sctlr_c\":1,\"sctlr_i\":1,\"stale_words\":8192,\"words\":8192,\"size_bytes\":16384,\"wb_mbps\":20000,\"nc_mbps\":1000,\"ratio\":20.00,\"min_ratio\":1.50}},\"why\":\"SCTLR_EL1.C and I are set; {wb} reads at 16 KiB are 20.0x faster than {nc}'s\"}}\n")
        );
        assert_eq!(
            caches_on.to_string(),
            format!("verdict caches-on          pass  SCTLR_EL1.C and I are set; {wb} reads at 16 KiB are 20.0x faster than {nc}'s")
        );
        // Every record has the schema's fields in order; quotes in the why are escaped.
        for verdict in v.iter() {
            let mut line = String::new();
            verdict.record(&mut line).unwrap();
            assert!(line.starts_with("@mb {\"kind\":\"verdict\",\"name\":\""));
            let mut at = 0;
            for f in schema::VERDICT.fields {
                match line[at..].find(&format!("\"{}\":", f.name)) {
                    Some(pos) => at += pos,
                    None => assert!(!f.always, "{} missing: {line}", f.name),
                }
            }
            assert_eq!(
                line.contains("\"core_note\":"),
                verdict.core_note.is_some(),
                "{line}"
            );
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
        fn extreme(_: Kernel, t: &MemType, _: Granule, size: u64) -> Option<u64> {
            Some(match t.index % 3 {
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
            assert_eq!(line.matches('|').count(), 8, "{line}");
        }
    }
}
