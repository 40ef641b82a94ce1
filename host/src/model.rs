//! What a run reported, as the host tool works with it: the measurements and the context
//! needed to read them (caches, platform), taken from the `@mb` records of a log.

use mairbench_core::kernel;

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
}

/// One measured point: a `result` record that was not skipped.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// Memory type name, e.g. `normal-wb`.
    pub memtype: String,
    /// Kernel name, e.g. `read-ldp`.
    pub kernel: String,
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
    /// Kernel name (`read-ldp` or `write-stp`).
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

/// Everything the tool reads from one log.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Run {
    /// Platform name from the `start` record (`platform`), e.g. `linux,dummy-virt`.
    pub platform: String,
    /// Whether the firmware said the machine is emulated (timings then do not reflect caches).
    pub emulated: bool,
    /// CPU MIDR from the `start` record, e.g. `0x410fd083`.
    pub midr: String,
    /// Firmware version from the `start` record.
    pub version: String,
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
}
