//! The benchmark engine: every selected kernel on every selected memory type over a sweep of
//! working-set sizes, timed with CNTVCT_EL0 (and PMCCNTR_EL0 where usable), the data verified
//! after every point, reported as `result` records and one table per kernel.
//!
//! Counting: MB = 10^6 bytes; a read or write counts the bytes touched, a copy counts the
//! bytes copied once; latency is ns per dependent load, maintenance ns per cache line.
//! Each point starts with no line of what it touches in a cache (cleaned and invalidated to
//! the point of coherency through `normal-wb`), warms up while it sizes its samples by time
//! (`mairbench_core::sweep::calibrate`), then takes `reps` timed samples of `passes` passes,
//! each at least 1000 ticks and 20 µs long (`sweep::min_sample_ticks`: the counter's tick at
//! most 0.1 % of a sample) and never less than one pass; the clock's own read cost is
//! measured once and subtracted.
//!
//! - this module: the plan (what runs), progress and the per-kernel loop;
//! - [`point`]: one (kernel, type, size) point, prepared, timed and verified;
//! - [`report`]: its `result` record and the per-kernel table;
//! - [`scaling`]: the read and write kernels on several cores at once, and the loaded latency.

mod point;
mod report;
pub mod scaling;

use crate::arch::buffer::{Chain, Window};
use crate::arch::pmu::Events;
use crate::arch::timer::Deadline;
use crate::arch::{self, kernels, mmu};
use crate::console::Console;
use crate::memory::{Alias, Memory};
use crate::{run, say};
use mairbench_core::bootargs::Options;
use mairbench_core::format::Bytes;
use mairbench_core::kernel::{self, Kernel, KernelSpec};
use mairbench_core::memtype::{Class, MEMTYPES};
use mairbench_core::paging::Granule;
use mairbench_core::record::Record;
use mairbench_core::results::Results;
use mairbench_core::schema;
use mairbench_core::stats::MAX_REPS;
use mairbench_core::sweep::{self, Sizes, MAX_SIZES};
use report::Table;

pub use scaling::Cores;

/// Smallest timed sample of the multi-core scaling, in bytes moved (single-core points are
/// sized by time instead: [`sweep::min_sample_ticks`]).
pub const SAMPLE_BYTES: u64 = 256 << 10;
const DEFAULT_REPS: u32 = 3;
const QUICK_REPS: u32 = 3;
/// Most time between two progress lines.
const PROGRESS_NS: u64 = 2_000_000_000;

/// The clock every sample is read from.
#[derive(Clone, Copy, Debug)]
struct Clock {
    /// CNTFRQ_EL0, Hz.
    freq: u64,
    /// Ticks that reading the counter twice costs (subtracted from every sample).
    overhead: u64,
    /// Shortest timed sample, in ticks (`sweep::min_sample_ticks`).
    min_ticks: u64,
    /// Whether PMCCNTR_EL0 counts too.
    cycles: bool,
    /// The PMU events counted around every sample, if any.
    events: Option<Events>,
}

impl Clock {
    /// What every sample counts.
    fn meter(&self) -> kernels::Meter {
        kernels::Meter {
            cycles: self.cycles,
            events: self.events,
        }
    }
}

/// What the run measures.
#[derive(Clone, Copy, Debug)]
struct Plan {
    sizes: Sizes,
    reps: u32,
    kernels: u16,
    types: u8,
    quick: bool,
    /// CTR_EL0.DminLine in bytes: the step of maintenance by VA.
    line: u64,
    /// DC ZVA's block, where allowed.
    zva: Option<u64>,
    /// The last-level cache's size, where reported (caps the chase's warm-up).
    llc: Option<u64>,
}

/// How far the sweep is, for the progress line.
#[derive(Clone, Copy, Debug)]
struct Progress {
    points: u32,
    done: u32,
    /// When the next progress line is due.
    next: Deadline,
}

/// The engine for one run.
pub struct Engine<'m> {
    mem: &'m Memory,
    clock: Clock,
    plan: Plan,
    progress: Progress,
    /// Points whose data was wrong afterwards.
    failures: u32,
    /// The pointer chase laid in the buffer, kept from alias to alias at the same size.
    chase: Option<Chain>,
    /// The `normal-wb` window last verified to hold the read kernels' pattern, while nothing
    /// else has written the buffer: a read at the same size need not lay it again.
    laid: Option<Window>,
    /// Whether the data check finds planted wrong words (else every point fails its check).
    check_works: bool,
    /// Every point's value (and PMU counts), for the verdicts.
    results: &'m mut Results,
}

impl<'m> Engine<'m> {
    /// Plans the sweep from the options, the caches and the buffer, and reports the plan.
    /// `cycles`: PMCCNTR_EL0 counts; `events`: the PMU events to count around every sample;
    /// `results`: where the points are kept for the verdicts.
    pub fn new(
        mem: &'m Memory,
        options: &Options,
        cycles: bool,
        events: Option<Events>,
        results: &'m mut Results,
    ) -> Self {
        let llc = report::caches();
        let max = mem.buffer.size;
        let sizes = match (options.sizes, options.quick) {
            (Some((lo, hi)), _) => sweep::plan(lo, hi, max),
            (None, true) => sweep::plan_quick(max),
            (None, false) => sweep::plan(4 << 10, sweep::default_upper(llc, max), max),
        };
        if let Some(cap) = options.sizes.and_then(|(_, hi)| sweep::capped(hi, max)) {
            crate::run::warn("bootargs");
            crate::say!(
                "bootargs: option 'mairbench.sizes': sizes above {} left out: the buffer is {} \
                 (mairbench.buffer=)",
                mairbench_core::format::Bytes(cap),
                mairbench_core::format::Bytes(max)
            );
        }
        let default_reps = if options.quick {
            QUICK_REPS
        } else {
            DEFAULT_REPS
        };
        let plan = Plan {
            sizes,
            reps: options
                .reps
                .unwrap_or(default_reps)
                .clamp(1, MAX_REPS as u32),
            kernels: options.kernels,
            types: options.types,
            quick: options.quick,
            line: mmu::dcache_line(),
            zva: arch::zva_block_size(),
            llc,
        };
        let freq = arch::cpu_id().cntfrq.max(1);
        let clock = Clock {
            freq,
            overhead: kernels::timer_overhead(),
            min_ticks: sweep::min_sample_ticks(freq),
            cycles,
            events,
        };
        let mut engine = Engine {
            mem,
            clock,
            plan,
            progress: Progress {
                points: 0,
                done: 0,
                next: Deadline::after_ns(PROGRESS_NS),
            },
            failures: 0,
            chase: None,
            laid: None,
            check_works: point::check_works(mem.wb()),
            results,
        };
        engine.results.reset(sizes);
        if !engine.check_works {
            say!("FAIL integrity: the data check does not find wrong words planted in normal-wb");
        }
        let (kernels, types) = (engine.kernels().count(), engine.types().count());
        let rows: usize = engine
            .kernels()
            .map(|k| engine.aliases_for(k).count())
            .sum();
        engine.progress.points = (rows * sizes.len()) as u32;
        say!(
            "benchmark: {kernels} kernels x {types} memory types x {} sizes ({} to {}), {} reps; MB = 10^6 B",
            sizes.len(),
            Bytes(sizes.iter().next().unwrap_or(0)),
            Bytes(sizes.iter().last().unwrap_or(0)),
            plan.reps
        );
        for k in engine.kernels().filter(|k| k.granule == Granule::Block) {
            say!(
                "benchmark: {} on the 2 MiB-block aliases (over 4 KiB pages a random chase times \
                 page walks), plus normal-wb on 4 KiB pages to show their cost; the other kernels \
                 on 4 KiB pages",
                k.name
            );
        }
        let min_ns = sweep::ticks_to_ns(clock.min_ticks, clock.freq);
        say!(
            "timer: CNTVCT_EL0 at {} Hz, read overhead {} ticks (subtracted); samples of at least \
             {} ticks ({}.{} us: >= {} ticks and >= {} us), passes sized on the warm-up; {}",
            clock.freq,
            clock.overhead,
            clock.min_ticks,
            min_ns / 1000,
            min_ns % 1000 / 100,
            sweep::MIN_SAMPLE_TICKS,
            sweep::MIN_SAMPLE_NS / 1000,
            if cycles {
                "PMCCNTR_EL0 cycles too (under QEMU the PMU counts virtual nanoseconds, not cycles)"
            } else {
                "no usable PMU cycle counter"
            }
        );
        let _ = Record::new(&mut Console, &schema::TIMER)
            .u64("freq_hz", clock.freq)
            .u64("overhead_ticks", clock.overhead)
            .bool("pmu_cycles", cycles)
            .u64("sample_bytes", SAMPLE_BYTES)
            .u64("min_sample_ticks", clock.min_ticks)
            .u64("min_sample_ns", min_ns)
            .u64("reps", plan.reps.into())
            .finish();
        engine
    }

    /// Every measured point so far, for the verdicts.
    pub fn results(&self) -> &Results {
        self.results
    }

    fn kernels(&self) -> impl Iterator<Item = &'static KernelSpec> {
        kernel::selected(self.plan.kernels)
    }

    fn types(&self) -> impl Iterator<Item = &'m Alias> {
        let types = self.plan.types;
        self.mem
            .pages()
            .iter()
            .filter(move |a| types & (1 << a.memtype.index) != 0)
    }

    /// The aliases `spec` runs on, in the order of its table's rows: the selected types on
    /// the kernel's granule (the kernel table), then for a kernel on blocks `normal-wb` on
    /// pages (when selected), the one row that shows what the page walks cost.
    fn aliases_for(&self, spec: &KernelSpec) -> impl Iterator<Item = &'m Alias> {
        let types = self.plan.types;
        let selected = move |a: &&Alias| types & (1 << a.memtype.index) != 0;
        let mem = self.mem;
        let pages = (spec.granule == Granule::Block).then(|| mem.wb());
        mem.of_granule(spec.granule)
            .iter()
            .chain(pages)
            .filter(selected)
    }

    /// Runs the whole sweep; one `check` per kernel says whether every point's data was
    /// intact afterwards.
    pub fn run(&mut self) {
        for spec in self.kernels() {
            let started = arch::ticks();
            let failures_before = self.failures;
            let mut table = Table::new(spec);
            self.chase = None;
            self.laid = None;
            for alias in self.aliases_for(spec) {
                if let Some(why) = self.skip(spec, alias) {
                    self.progress.done += self.plan.sizes.len() as u32;
                    say!("  {} on {}: skipped, {why}", spec.name, alias.memtype.name);
                    report::skipped(spec, alias, None, why);
                }
            }
            let sizes = self.plan.sizes;
            for (column, size) in sizes.iter().enumerate() {
                for alias in self.aliases_for(spec) {
                    if self.skip(spec, alias).is_some() {
                        continue;
                    }
                    table.put(alias, column, self.point(spec, alias, size));
                    self.progress.done += 1;
                    self.progress(spec, alias, size);
                }
            }
            table.print(&self.plan.sizes, self.plan.reps, self.aliases_for(spec));
            let ms = arch::ticks().wrapping_sub(started) * 1000 / self.clock.freq;
            run::check(
                "integrity",
                self.failures == failures_before,
                format_args!(
                    "{}: data verified through normal-wb after every point ({ms} ms)",
                    spec.name
                ),
            );
        }
    }

    /// Why `spec` is not measured on `alias` at all, if it is not.
    fn skip(&self, spec: &KernelSpec, alias: &Alias) -> Option<&'static str> {
        if spec.normal_only && alias.memtype.class() == Class::Device {
            return Some("real cores take an alignment fault for DC ZVA to Device memory");
        }
        if spec.kernel == Kernel::FillZva && self.plan.zva.is_none() {
            return Some("DC ZVA is prohibited here (DCZID_EL0.DZP)");
        }
        None
    }

    /// A progress line whenever [`PROGRESS_NS`] have passed since the last.
    fn progress(&mut self, spec: &KernelSpec, alias: &Alias, size: u64) {
        let p = &mut self.progress;
        if p.next.expired() {
            p.next = Deadline::after_ns(PROGRESS_NS);
            say!(
                "progress: {} on {} at {}: {} of {} points ({}%)",
                spec.name,
                alias.memtype.name,
                Bytes(size),
                p.done,
                p.points,
                p.done * 100 / p.points.max(1)
            );
        }
    }
}

/// Values of one kernel's table: per row (a memory type on the kernel's granule, then
/// `normal-wb` on the other) and size column.
type Cells = [[Option<u64>; MAX_SIZES]; MEMTYPES.len() + 1];
