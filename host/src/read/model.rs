//! What a run reported, as the host tool works with it: the measurements and the context
//! needed to read them (caches, platform), taken from the `@mb` records of a log.

use mairbench_core::arch::{Arch, ARCHES};
use mairbench_core::kernel;
use mairbench_core::memtype::{self, MEMTYPES, NORMAL_WB};
use mairbench_core::source;

/// The row every other one is compared with in a firmware log: the name of core's write-back
/// reference ([`memtype::Role::WriteBack`], [`NORMAL_WB`]), the type the firmware itself runs
/// in.
pub const FIRMWARE_BASELINE: &str = MEMTYPES[NORMAL_WB].name;

/// Items in first-seen order, without repeats.
pub fn distinct<'a>(items: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut out: Vec<&str> = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// The unit of a measurement's value: core's [`kernel::Unit`] (the kernel table decides it),
/// with the ordering and hashing the host's tables need.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Unit {
    /// MB/s (MB = 10^6 bytes); higher is better ([`kernel::Unit::Bandwidth`]).
    MegabytesPerSecond,
    /// Nanoseconds per dependent load; lower is better ([`kernel::Unit::NsPerLoad`]).
    NsPerLoad,
    /// Nanoseconds per cache line maintained; lower is better ([`kernel::Unit::NsPerLine`]).
    NsPerLine,
}

impl From<kernel::Unit> for Unit {
    fn from(unit: kernel::Unit) -> Unit {
        match unit {
            kernel::Unit::Bandwidth => Unit::MegabytesPerSecond,
            kernel::Unit::NsPerLoad => Unit::NsPerLoad,
            kernel::Unit::NsPerLine => Unit::NsPerLine,
        }
    }
}

impl Unit {
    /// The core unit this is.
    pub fn core(self) -> kernel::Unit {
        match self {
            Unit::MegabytesPerSecond => kernel::Unit::Bandwidth,
            Unit::NsPerLoad => kernel::Unit::NsPerLoad,
            Unit::NsPerLine => kernel::Unit::NsPerLine,
        }
    }

    /// The unit as printed in tables and axis labels.
    pub fn label(self) -> &'static str {
        match self {
            Unit::MegabytesPerSecond => "MB/s",
            Unit::NsPerLoad => "ns per load",
            Unit::NsPerLine => "ns per line",
        }
    }

    /// The unit as a machine-readable name (CSV and JSON files): the name of the record
    /// field its best value comes from, without `best_`: `mbps`, `ns_per_load` or
    /// `ns_per_line`.
    pub fn id(self) -> &'static str {
        let field = self.core().best_field();
        field.strip_prefix("best_").unwrap_or(field)
    }

    /// Whether a larger value is better.
    pub fn higher_is_better(self) -> bool {
        self.core().higher_is_better()
    }

    /// Which values are better, as the tables word it: `higher` or `lower`.
    pub fn better(self) -> &'static str {
        if self.higher_is_better() {
            "higher"
        } else {
            "lower"
        }
    }
}

/// One measured point: a `result` record that was not skipped.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// Memory type name (a [`MEMTYPES`] name; a source's name in a twin log).
    pub memtype: String,
    /// Kernel name (a [`kernel::KERNELS`] name).
    pub kernel: String,
    /// The alias's mapping: `4K` (pages) or `2M` (blocks); [`PAGES`] when the record names
    /// none. Tables and charts keep points of one memory type on two granules apart
    /// ([`series`]).
    pub granule: String,
    /// Working-set size in bytes.
    pub size: u64,
    /// What `best` and `median` are in.
    pub unit: Unit,
    /// Best sample (highest MB/s, or lowest ns).
    pub best: f64,
    /// Median sample.
    pub median: f64,
    /// Coefficient of variation of the samples, percent.
    pub cv_pct: f64,
    /// Timed samples.
    pub reps: u64,
    /// PMU events counted during the fastest sample, per 64-byte line it covered, by event
    /// name (core's `pmu::EVENTS` order, names it does not know after them); `None` where
    /// the record's `pmu` is `null` (no event counts, e.g. QEMU) or absent (older logs).
    pub pmu: Option<Vec<(String, f64)>>,
    /// The state the point started from (`invalidated`, `written`, ...); `None` in logs of
    /// older firmware.
    pub start: Option<String>,
    /// Maintenance kernels: the lines each timed pass finds (`dirty`, `clean`,
    /// `not-allocated`, `no-line`); `None` for other kernels and older logs.
    pub line_state: Option<String>,
}

/// A cache level the firmware reported (`cache` record).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CacheLevel {
    /// 1-based level.
    pub level: u8,
    /// "data", "unified", "separate", ...
    pub kind: String,
    /// Size in bytes.
    pub size: u64,
}

/// A point the firmware skipped, and why (`result` record with `skipped`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Skipped {
    /// Memory type name.
    pub memtype: String,
    /// Kernel name.
    pub kernel: String,
    /// The alias's mapping, as in [`Measurement::granule`].
    pub granule: String,
    /// Size in bytes, when the skip concerns one size only.
    pub size: Option<u64>,
    /// The firmware's reason.
    pub why: String,
}

/// One multi-core point (`scaling` record): a kernel on `cores` cores at once, each over its
/// own part of the memory type's alias.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scaling {
    /// Memory type name.
    pub memtype: String,
    /// Kernel name (the firmware's scaling kernels: [`kernel::Kernel::ReadLdp`] and
    /// [`kernel::Kernel::WriteStp`]).
    pub kernel: String,
    /// Cores running at once.
    pub cores: u64,
    /// All cores' bytes over `span_ticks` (older logs: over the slowest core's time), MB/s
    /// (MB = 10^6 bytes).
    pub aggregate_mbps: u64,
    /// The slowest core's bandwidth, MB/s.
    pub per_core_min_mbps: u64,
    /// The fastest core's bandwidth, MB/s.
    pub per_core_max_mbps: u64,
    /// CNTVCT ticks from the earliest core's start to the latest core's end (absent in
    /// older logs).
    pub span_ticks: Option<u64>,
    /// CNTVCT ticks from the earliest core's start to the latest's (absent in older logs).
    pub start_skew_ticks: Option<u64>,
}

/// The boot core's pointer chase with the other cores streaming (`loaded_latency` record):
/// the chase's time per load idle and loaded, and the streams' bandwidth.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedLatency {
    /// The streams' memory type.
    pub memtype: String,
    /// The streams' kernel (one of the scaling kernels, see [`Scaling::kernel`]).
    pub kernel: String,
    /// CPUs running: the boot core (the chase) and `cores - 1` streams.
    pub cores: u64,
    /// Each stream's part of the buffer, bytes.
    pub bytes_per_core: u64,
    /// The chase's memory type (the write-back reference, [`FIRMWARE_BASELINE`]).
    pub chase_memtype: String,
    /// The chase alias's mapping: `2M` or `4K`.
    pub chase_granule: String,
    /// Bytes the chase's random cycle spans.
    pub chase_bytes: u64,
    /// Dependent loads per sample.
    pub loads: u64,
    /// The chase with the other cores idle, ns per load (best of `reps`).
    pub idle_ns: f64,
    /// The chase while the streams run, ns per load (best of `reps`).
    pub loaded_ns: f64,
    /// `loaded_ns / idle_ns` as the firmware wrote it (1.000: no slowdown).
    pub ratio: f64,
    /// The streams' bytes over their span, MB/s (MB = 10^6 bytes).
    pub stream_mbps: u64,
    /// Timed samples, idle and loaded each.
    pub reps: u64,
}

/// One bring-up verdict (`verdict` record; core's `verdict` table names them).
#[derive(Clone, Debug, PartialEq)]
pub struct Verdict {
    /// Its name (a [`mairbench_core::verdict::VERDICTS`] name).
    pub name: String,
    /// `pass`, `warn`, `fail` or `n/a` (as written; an unknown status is kept as is).
    pub status: String,
    /// The numbers it used, by key (the key names the unit: `_mbps`, `_ns`, `_bytes`, ...).
    pub evidence: Vec<(String, f64)>,
    /// One sentence saying why.
    pub why: String,
    /// What the core's row of core's table of cores documents that the verdict took into
    /// account (`core_note`); `None` when the record has none.
    pub core_note: Option<String>,
}

/// One source the Linux twin tried (`source` record): mapped (`size`) or refused (`error`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Source {
    /// The source's name as its results carry it, e.g. `pci:0000:00:01.0:res2_wc`.
    pub name: String,
    /// Bytes mapped; `None` when refused.
    pub size: Option<u64>,
    /// The errno's name (`ENOENT`, `EPERM`...) when refused.
    pub error: Option<String>,
    /// The errno's number when refused and the record gives it.
    pub errno: Option<u64>,
    /// Mapped: how; refused: the step that failed.
    pub detail: String,
    /// The firmware memory type the twin expects of the mapping (`expected`): core's source
    /// table, or for a DRM source its driver's known mapping (vgem: `normal-nc`).
    pub expected: Option<String>,
    /// The DRM driver behind a `drm-dumb:` or `dma-buf:` source (`driver`), e.g. `vgem`.
    pub driver: Option<String>,
}

/// The row every other one is compared with in a twin log: the name of core's
/// [`source::Form::Anon`] source, the heap's memory (core's source table expects it to be the
/// write-back reference, [`FIRMWARE_BASELINE`]).
pub const TWIN_BASELINE: &str = source::Form::Anon.form();

/// Everything the tool reads from one log.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Run {
    /// Platform name from the `start` record (`platform`), e.g. `linux,dummy-virt`.
    pub platform: String,
    /// Whether the firmware said the machine is emulated (timings then do not reflect caches).
    pub emulated: bool,
    /// What said so (`emulated_by` of the `start` record: `bootarg`, `dtb`, `acpi`); empty
    /// when not emulated or in older logs.
    pub emulated_by: Vec<String>,
    /// How QEMU ran the machine (`accel` of the `start` record: `tcg` or `kvm`); `None` when
    /// nothing said so, and in older logs.
    pub accel: Option<String>,
    /// CPU MIDR from the `start` record, e.g. `0x410fd083`.
    pub midr: String,
    /// Firmware version from the `start` record.
    pub version: String,
    /// The architecture from the `start` record (`arch`: `aarch64` or `armv7`); `None` in a
    /// log written before there were two (see [`Run::arch`]).
    pub arch: Option<String>,
    /// Whether the log is the Linux twin's (`mairbench-linux`): its start record names a
    /// `kernel`, or its results a `source`. Its rows are then sources, not memory types.
    pub twin: bool,
    /// The twin's Linux kernel (`kernel` of the start record, e.g. `Linux 6.12.95+deb12-arm64`);
    /// empty for the firmware.
    pub kernel: String,
    /// The twin's machine (`machine` of the start record, `aarch64`); empty for the firmware.
    pub machine: String,
    /// The twin's sources (`source` records), in log order; empty for the firmware.
    pub sources: Vec<Source>,
    /// `pass` or `fail` from the `end` record; `None` when the log has no end record.
    pub status: Option<String>,
    /// The measurements, in log order.
    pub measurements: Vec<Measurement>,
    /// The data and unified caches.
    pub caches: Vec<CacheLevel>,
    /// Points the firmware skipped.
    pub skipped: Vec<Skipped>,
    /// The multi-core points, in log order (none with one core).
    pub scaling: Vec<Scaling>,
    /// The loaded-latency points, in log order (none with one core or in older logs).
    pub loaded_latency: Vec<LoadedLatency>,
    /// Ticks per second of the counter that `Scaling`'s ticks are on (the `timer` record's
    /// `freq_hz`, else the `start` record's `cntfrq_hz`); `None` when the log names neither.
    pub timer_hz: Option<u64>,
    /// The bring-up verdicts, in log order (a repeated name keeps the last).
    pub verdicts: Vec<Verdict>,
    /// The clusters of CPUs (`cluster` records), in log order; empty with one CPU and in
    /// older logs.
    pub clusters: Vec<Cluster>,
    /// The core-to-core latency matrix (`core_to_core` records), one pair each, in log order.
    pub core_to_core: Vec<CoreToCore>,
}

/// One pair of the core-to-core latency matrix (a `core_to_core` record).
#[derive(Debug, Clone, PartialEq)]
pub struct CoreToCore {
    /// MPIDR affinity of the CPU that timed, as written (`0x100`).
    pub from: String,
    /// MPIDR affinity of the other CPU.
    pub to: String,
    /// `from`'s cluster index.
    pub from_cluster: Option<u64>,
    /// `to`'s cluster index.
    pub to_cluster: Option<u64>,
    /// Timed round trips.
    pub rounds: u64,
    /// One-way time in ns (half a round trip); `None` when the pair did not finish.
    pub ns_per_hop: Option<f64>,
}

/// One cluster of CPUs (a `cluster` record) and, when it is not the boot CPU's, its own
/// sweep: the cache, timer, result and verdict records that carry its index.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Cluster {
    /// Its index (`cluster`).
    pub index: u64,
    /// How many CPUs it holds.
    pub cpus: u64,
    /// MPIDR affinity of the CPU its sweep ran on, as written (`0x100`).
    pub representative: String,
    /// The CPUs' first compatible string; `None` when the tree names none.
    pub compatible: Option<String>,
    /// The CPUs' `capacity-dmips-mhz`.
    pub capacity: Option<u64>,
    /// The representative's MIDR_EL1, as written.
    pub midr: Option<String>,
    /// Size of the last cache level its CPUs report, bytes.
    pub last_cache: Option<u64>,
    /// `boot`, `swept` or `not-running`.
    pub role: String,
    /// Its own sweep (caches, measurements, skipped points, verdicts); empty for the boot
    /// CPU's cluster, whose sweep is the run's own.
    pub sweep: Box<Run>,
}

impl Run {
    /// Whether QEMU ran the machine under KVM: the host's cores and caches, timings that
    /// count (a guest's), only the device tree QEMU's.
    pub fn kvm(&self) -> bool {
        self.accel.as_deref() == Some("kvm")
    }

    /// The run's architecture: its `start` record's `arch`, `aarch64` in a log written before
    /// there were two.
    pub fn arch(&self) -> &str {
        self.arch.as_deref().unwrap_or(Arch::Aarch64.name())
    }

    /// The run's architecture as core's [`Arch`], whose tables name its kernels and memory
    /// types; AArch64 for an `arch` core does not know.
    pub fn arch_tables(&self) -> Arch {
        Arch::by_name(self.arch()).unwrap_or(Arch::Aarch64)
    }

    /// Row `kernel` of core's kernel table under the name this run gives it: the name its
    /// points carry (either architecture's), else its architecture's (`read-ldm` for
    /// [`kernel::Kernel::ReadLdp`] on armv7); `None` where neither has it.
    pub fn kernel_name(&self, kernel: kernel::Kernel) -> Option<&'static str> {
        let names = ARCHES
            .into_iter()
            .filter_map(|a| a.kernel(kernel))
            .map(|k| k.name);
        self.used(names)
            .or_else(|| self.arch_tables().kernel(kernel).map(|k| k.name))
    }

    /// Row `row` of core's memory-type table under the name this run gives it: the name its
    /// points carry, else its architecture's (`normal-wb-nowa` for the write-back row without
    /// write allocation on armv7); `None` where neither has it.
    pub fn memtype_name(&self, row: usize) -> Option<&'static str> {
        let names = ARCHES
            .into_iter()
            .filter_map(|a| a.memtype(row))
            .map(|t| t.name);
        self.used(names)
            .or_else(|| self.arch_tables().memtype(row).map(|t| t.name))
    }

    /// The first of `names` a point of this run carries as its kernel or memory type.
    fn used(&self, names: impl Iterator<Item = &'static str>) -> Option<&'static str> {
        let mut names = names;
        names.find(|n| {
            self.measurements
                .iter()
                .any(|m| m.kernel == *n || series_memtype(&m.memtype) == *n)
        })
    }
}

/// The row of core's kernel table a record's kernel name stands for, whichever
/// architecture's name it is (`read-ldp` and `read-ldm` are both [`kernel::Kernel::ReadLdp`]).
pub fn kernel_row(name: &str) -> Option<kernel::Kernel> {
    kernel::by_name(name).map(|k| k.kernel)
}

/// The row of core's memory-type table (its slot) a record's memory type name stands for,
/// whichever architecture's name it is (`normal-wb-noalloc` and `normal-wb-nowa` are both the
/// write-back row without (write) allocation).
pub fn memtype_row(name: &str) -> Option<usize> {
    memtype::by_any_name(name).map(|t| usize::from(t.index))
}

/// `run` with its kernels and memory types named as `arch` names their rows (a row `arch`
/// lacks keeps its name): what two logs of different architectures are compared under, by
/// row. The measurements, skipped points, scaling and loaded-latency points are renamed.
pub fn named_as(run: &Run, arch: Arch) -> Run {
    let kernel = |name: &mut String| {
        if let Some(k) = kernel_row(name).and_then(|k| arch.kernel(k)) {
            *name = k.name.to_string();
        }
    };
    let memtype = |name: &mut String| {
        if let Some(t) = memtype_row(name).and_then(|r| arch.memtype(r)) {
            *name = t.name.to_string();
        }
    };
    let mut out = run.clone();
    for m in &mut out.measurements {
        kernel(&mut m.kernel);
        memtype(&mut m.memtype);
    }
    for m in &mut out.skipped {
        kernel(&mut m.kernel);
        memtype(&mut m.memtype);
    }
    for m in &mut out.scaling {
        kernel(&mut m.kernel);
        memtype(&mut m.memtype);
    }
    for m in &mut out.loaded_latency {
        kernel(&mut m.kernel);
        memtype(&mut m.memtype);
        memtype(&mut m.chase_memtype);
    }
    out
}

/// The granule of a `result` record that names none: logs from before the `granule` field
/// ran every kernel on 4 KiB pages.
pub const PAGES: &str = "4K";

/// Whether `points` hold `kernel` on more than one granule (e.g. [`kernel::Kernel::Latency`]
/// on blocks and the write-back reference on pages too, see [`kernel::KernelSpec::granule`]).
pub fn mixed_granules<'a>(points: impl IntoIterator<Item = &'a Measurement>, kernel: &str) -> bool {
    let mut first: Option<&str> = None;
    for m in points.into_iter().filter(|m| m.kernel == kernel) {
        match first {
            None => first = Some(&m.granule),
            Some(g) if g != m.granule => return true,
            Some(_) => {}
        }
    }
    false
}

/// The name of a point's row in tables and charts: its memory type, marked with its granule
/// (`<memory type> (4K)`) when `mixed` (its kernel was measured on both granules, see
/// [`mixed_granules`]) and the granule is not the kernel's usual one (core's kernel table;
/// pages for a kernel it does not know). Keying by this name keeps one memory type on two
/// granules apart, while a run of one granule per kernel (every log from before the field)
/// keeps the plain names.
pub fn series(m: &Measurement, mixed: bool) -> String {
    let usual = kernel::by_name(&m.kernel).map_or(PAGES, |k| k.granule.name());
    if mixed && m.granule != usual {
        format!("{} ({})", m.memtype, m.granule)
    } else {
        m.memtype.clone()
    }
}

/// The memory type of a row name made by [`series`] (the name without its granule mark).
pub fn series_memtype(name: &str) -> &str {
    name.split_once(" (").map_or(name, |(memtype, _)| memtype)
}

/// Where a row name made by [`series`] sorts in tables and charts: the place of its memory
/// type in core's [`MEMTYPES`] (either architecture's name, [`memtype_row`]), `MEMTYPES.len()` (after them all) for a type the table does
/// not know (a twin's source).
pub fn table_position(name: &str) -> usize {
    memtype_row(series_memtype(name)).unwrap_or(MEMTYPES.len())
}

/// What a run's rows are and the row they are divided by: the words every writer (tables,
/// charts, CSV, JSON) uses for them, in one place ([`Run::rows`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RowKind {
    /// The record field the rows come from, and their CSV and JSON column: `memtype` or
    /// `source`.
    pub key: &'static str,
    /// The rows' heading in tables and chart legends: `memory type` or `source`.
    pub label: &'static str,
    /// One row in a sentence ("this type / the baseline"): `type` or `source`.
    pub short: &'static str,
    /// The row every other one is divided by: [`FIRMWARE_BASELINE`] or [`TWIN_BASELINE`].
    pub baseline: &'static str,
    /// The baseline as the tables' ratio column names it ([`RowKind::vs`]): `wb` for the
    /// write-back reference, the twin's reference by its name.
    pub abbrev: &'static str,
}

impl RowKind {
    /// The heading of the tables' ratio column: `vs ` and [`RowKind::abbrev`].
    pub fn vs(&self) -> String {
        format!("vs {}", self.abbrev)
    }
}

/// A firmware log's rows: memory types, divided by the write-back reference.
pub const MEMTYPE_ROWS: RowKind = RowKind {
    key: "memtype",
    label: "memory type",
    short: "type",
    baseline: FIRMWARE_BASELINE,
    abbrev: "wb",
};

/// A twin log's rows: sources, divided by the twin's reference.
pub const SOURCE_ROWS: RowKind = RowKind {
    key: "source",
    label: "source",
    short: "source",
    baseline: TWIN_BASELINE,
    abbrev: TWIN_BASELINE,
};

impl Run {
    /// What this run's rows are: [`SOURCE_ROWS`] for the twin, else [`MEMTYPE_ROWS`].
    pub fn rows(&self) -> RowKind {
        if self.twin {
            SOURCE_ROWS
        } else {
            MEMTYPE_ROWS
        }
    }

    /// The row name of `m` among this run's points ([`series`]).
    pub fn series(&self, m: &Measurement) -> String {
        series(m, mixed_granules(&self.measurements, &m.kernel))
    }

    /// The unit of `kernel`'s first measurement in this run; `None` when it has none.
    pub fn unit_of(&self, kernel: &str) -> Option<Unit> {
        self.measurements
            .iter()
            .find(|m| m.kernel == kernel)
            .map(|m| m.unit)
    }
}

/// The memory types of `names` in core's table order ([`table_position`]), unknown
/// ones after, in first-seen order.
pub fn in_table_order<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut types = distinct(names);
    types.sort_by_key(|t| table_position(t));
    types
}

/// The loaded-latency points as the table shows them: per (streams' kernel, memory type),
/// in the log's kernel order and core's memory type order, the last record of each.
pub fn loaded_latency_rows(run: &Run) -> Vec<&LoadedLatency> {
    let mut rows = Vec::new();
    for kernel in distinct(run.loaded_latency.iter().map(|p| p.kernel.as_str())) {
        let of = run.loaded_latency.iter().filter(|p| p.kernel == kernel);
        for t in in_table_order(of.clone().map(|p| p.memtype.as_str())) {
            if let Some(p) = of.clone().rev().find(|p| p.memtype == t) {
                rows.push(p);
            }
        }
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units_follow_core() {
        for core in kernel::UNITS {
            let unit = Unit::from(core);
            assert_eq!(unit.core(), core);
            assert_eq!(unit.higher_is_better(), core.higher_is_better());
        }
        let ids: Vec<_> = kernel::UNITS.map(|u| Unit::from(u).id()).into();
        assert_eq!(ids, ["mbps", "ns_per_load", "ns_per_line"]);
    }

    fn point(memtype: &str, kernel: &str, granule: &str) -> Measurement {
        Measurement {
            memtype: memtype.into(),
            kernel: kernel.into(),
            granule: granule.into(),
            size: 4096,
            unit: Unit::NsPerLoad,
            best: 1.0,
            median: 1.0,
            cv_pct: 0.0,
            reps: 1,
            pmu: None,
            start: None,
            line_state: None,
        }
    }

    #[test]
    fn series_keep_granules_apart_only_where_both_were_measured() {
        // Today's latency: blocks, plus normal-wb on pages.
        let run = Run {
            measurements: vec![
                point("normal-wb", "latency", "2M"),
                point("device-gre", "latency", "2M"),
                point("normal-wb", "latency", "4K"),
                point("normal-wb", "read-ldp", "4K"),
            ],
            ..Run::default()
        };
        let names: Vec<_> = run.measurements.iter().map(|m| run.series(m)).collect();
        assert_eq!(
            names,
            ["normal-wb", "device-gre", "normal-wb (4K)", "normal-wb"]
        );
        assert!(mixed_granules(&run.measurements, "latency"));
        assert!(!mixed_granules(&run.measurements, "read-ldp"));
        assert_eq!(series_memtype("normal-wb (4K)"), "normal-wb");
        assert_eq!(series_memtype("device-gre"), "device-gre");
        // An old log: latency on pages only keeps plain names.
        let old = Run {
            measurements: vec![point("normal-wb", "latency", PAGES)],
            ..Run::default()
        };
        assert_eq!(old.series(&old.measurements[0]), "normal-wb");
        // A page kernel that also ran on blocks marks the blocks.
        let m = point("normal-nc", "read-ldp", "2M");
        assert_eq!(series(&m, true), "normal-nc (2M)");
        assert_eq!(series(&point("x", "unknown", "2M"), true), "x (2M)");
    }

    #[test]
    fn what_the_writers_share() {
        assert_eq!(distinct(["b", "a", "b", "c", "a"]), ["b", "a", "c"]);
        assert_eq!(TWIN_BASELINE, "anon");
        assert_eq!(FIRMWARE_BASELINE, "normal-wb");
        assert_eq!(table_position(FIRMWARE_BASELINE), NORMAL_WB);
        assert_eq!(table_position("normal-wb (4K)"), NORMAL_WB);
        assert_eq!(table_position("device-gre"), 7);
        assert_eq!(table_position(TWIN_BASELINE), MEMTYPES.len());
        assert_eq!(
            (Unit::MegabytesPerSecond.better(), Unit::NsPerLine.better()),
            ("higher", "lower")
        );
        assert_eq!(
            (MEMTYPE_ROWS.vs(), SOURCE_ROWS.vs()),
            ("vs wb".into(), "vs anon".into())
        );
        let run = Run {
            measurements: vec![point("normal-wb", "latency", "2M")],
            ..Run::default()
        };
        assert_eq!(run.unit_of("latency"), Some(Unit::NsPerLoad));
        assert_eq!(run.unit_of("read-ldp"), None);
    }
}
