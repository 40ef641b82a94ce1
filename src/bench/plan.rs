//! What the engine runs with, shared by its parts: the clock every sample is read from, the
//! plan (what runs), and a kernel table's cells.

use crate::arch::kernels;
use crate::arch::pmu::Events;
use crate::arch::MEMTYPES;
use crate::run;
use mairbench_core::bootargs::Options;
use mairbench_core::cache::{CacheLevel, MAX_LEVELS};
use mairbench_core::kernel::Kernel;
use mairbench_core::memtype::NORMAL_WB;
use mairbench_core::sweep::{self, Sizes, MAX_SIZES};

/// Smallest timed sample of the multi-core scaling, in bytes moved (single-core points are
/// sized by time instead: [`mairbench_core::sweep::min_sample_ticks`]).
pub const SAMPLE_BYTES: u64 = 256 << 10;

/// The clock every sample is read from.
#[derive(Clone, Copy, Debug)]
pub(super) struct Clock {
    /// CNTFRQ_EL0, Hz.
    pub freq: u64,
    /// Ticks that reading the counter twice costs (subtracted from every sample).
    pub overhead: u64,
    /// Shortest timed sample, in ticks (`sweep::min_sample_ticks`).
    pub min_ticks: u64,
    /// Whether PMCCNTR_EL0 counts too.
    pub cycles: bool,
    /// The PMU events counted around every sample, if any.
    pub events: Option<Events>,
    /// The CPU of another cluster every sample runs on, when it is not this one.
    pub on: Option<Remote>,
}

/// A CPU of another cluster than the boot CPU's that a sweep runs on: every warm-up and
/// sample is its job (`jobs::run_alone`), timed by its own counter reads; the data is laid
/// and checked, and the caches cleaned and invalidated, by the boot CPU as for its own sweep.
#[derive(Clone, Copy, Debug)]
pub struct Remote {
    /// Its stack block (the job mailbox's index).
    pub block: usize,
    /// Its MPIDR_EL1 affinity.
    pub mpidr: u64,
    /// Its cluster's index in the run's `cluster` records.
    pub cluster: u16,
}

impl Clock {
    /// What every sample counts.
    pub(super) fn meter(&self) -> kernels::Meter {
        kernels::Meter {
            cycles: self.cycles,
            events: self.events,
        }
    }
}

/// What the run measures.
#[derive(Clone, Copy, Debug)]
pub(super) struct Plan {
    /// The working-set sizes of the sweep.
    pub sizes: Sizes,
    /// Timed samples per point.
    pub reps: u32,
    /// The selected kernels (`mairbench_core::kernel` bits).
    pub kernels: mairbench_core::kernel::Mask,
    /// The selected memory types (bits by index).
    pub types: u8,
    /// A quick run (`mairbench.quick`).
    pub quick: bool,
    /// CTR_EL0.DminLine in bytes: the step of maintenance by VA.
    pub line: u64,
    /// DC ZVA's block, where allowed.
    pub zva: Option<u64>,
    /// The last-level cache's size, where reported.
    pub llc: Option<u64>,
    /// The data and unified caches CLIDR_EL1 reports (fillers of level 0 after them).
    pub caches: [CacheLevel; MAX_LEVELS],
    /// What caps the chase's warm-up (`sweep::chase_warm_up_cap`): the last-level cache under
    /// emulation, nothing on hardware.
    pub chase_cap: Option<u64>,
    /// Whether the latency kernel looks past the planned sizes for a cache CLIDR does not
    /// report (`beyond`, [`probes`]).
    pub probe: bool,
}

/// Whether a run with `options` whose last reported cache is `llc`, planned over `sizes` on a
/// buffer of `max` bytes, looks past its plan (`beyond`: only on hardware, for the default
/// sweep, with the latency kernel on `normal-wb`, and where the buffer holds a larger size).
pub(super) fn probes(options: &Options, llc: Option<u64>, sizes: Sizes, max: u64) -> bool {
    let largest = sizes.largest().unwrap_or(u64::MAX);
    !run::emulated()
        && options.sizes.is_none()
        && !options.quick
        && options.kernels & Kernel::Latency.bit() != 0
        && options.types & (1 << NORMAL_WB) != 0
        && llc.is_some()
        && !sweep::past(largest, max).is_empty()
}

/// Values of one kernel's table: per row (a memory type on the kernel's granule, then
/// `normal-wb` on the other) and size column.
pub(super) type Cells = [[Option<u64>; MAX_SIZES]; MEMTYPES.len() + 1];
