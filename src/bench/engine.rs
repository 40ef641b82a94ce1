//! The engine of one run: what it holds (memory, clock, plan, progress, the chase and pattern
//! kept between points, the results), how it is planned from the options and the caches
//! (reported as it is), and which kernels, types and aliases it runs.

use super::data::check_works;
use super::plan::{Clock, Plan, Remote, SAMPLE_BYTES};
use super::report;
use crate::arch::buffer::{Chain, Window};
use crate::arch::pmu::Events;
use crate::arch::timer::Deadline;
use crate::arch::MEMTYPES;
use crate::arch::{cache, cpu, kernels};
use crate::console::Console;
use crate::memory::{Alias, Memory};
use crate::{run, say};
use core::cell::Cell;
use mairbench_core::arch_name;
use mairbench_core::bootargs::{Options, Selftest};
use mairbench_core::counter::{self, Erratum};
use mairbench_core::format::Bytes;
use mairbench_core::kernel::{Kernel, KernelSpec};
use mairbench_core::memtype::Class;
use mairbench_core::paging::Granule;
use mairbench_core::record::Record;
use mairbench_core::results::Results;
use mairbench_core::schema;
use mairbench_core::stats::MAX_REPS;
use mairbench_core::sweep;
use mairbench_core::topology::Caches;

const DEFAULT_REPS: u32 = 3;
const QUICK_REPS: u32 = 3;
/// Most time between two progress lines.
pub(super) const PROGRESS_NS: u64 = 2_000_000_000;

/// How far the sweep is, for the progress line.
#[derive(Clone, Copy, Debug)]
pub(super) struct Progress {
    /// Points the sweep has.
    pub points: u32,
    /// Points per size: the rows of every kernel's table.
    pub rows: u32,
    /// Points done (measured or skipped).
    pub done: u32,
    /// When the next progress line is due.
    pub next: Deadline,
}

/// Aliases the engine runs on, in the order of a table's rows: at most one per memory type
/// and one more (see [`Engine::aliases_for`]).
#[derive(Clone, Copy)]
pub(super) struct Aliases<'m> {
    list: [&'m Alias; MEMTYPES.len() + 1],
    len: usize,
}

impl<'m> Aliases<'m> {
    /// The aliases, in row order.
    pub(super) fn list(&self) -> &[&'m Alias] {
        // `len` counts the slots filled: `get`, not indexing, which adds a panic.
        self.list.get(..self.len).unwrap_or_default()
    }
}

/// The engine for one run.
pub struct Engine<'m> {
    pub(super) mem: &'m Memory,
    pub(super) clock: Clock,
    pub(super) plan: Plan,
    pub(super) progress: Progress,
    /// Points whose data was wrong afterwards.
    pub(super) failures: u32,
    /// The pointer chase laid in the buffer, kept from alias to alias at the same size.
    pub(super) chase: Option<Chain>,
    /// The `normal-wb` window last verified to hold the read kernels' pattern, while nothing
    /// else has written the buffer: a read at the same size need not lay it again.
    pub(super) laid: Option<Window>,
    /// Whether the data check finds planted wrong words (else every point fails its check).
    pub(super) check_works: bool,
    /// Every point's value (and PMU counts), for the verdicts.
    pub(super) results: &'m mut Results,
    /// `mairbench.selftest=counter-backwards`, until the first timed sample takes it.
    pub(super) backwards_selftest: Cell<bool>,
    /// `mairbench.selftest=disturb`, until the run's first kernel picks the point it slows.
    pub(super) disturb_selftest: bool,
    /// The point `mairbench.selftest=disturb` slows: the first one of this kernel and size.
    pub(super) disturb: Option<(Kernel, u64)>,
    /// While a point is taken again ([`Engine::retake`](super)): its first take's value.
    pub(super) retake_of: Option<u64>,
    /// The sizes the latency probe measured past the plan (`beyond`): the planned largest
    /// and the largest probed.
    pub(super) probed: Option<(u64, u64)>,
}

impl<'m> Engine<'m> {
    /// Plans the sweep from the options, the caches and the buffer, and reports the plan.
    /// `cycles`: PMCCNTR_EL0 counts; `events`: the PMU events to count around every sample;
    /// `results`: where the points are kept for the verdicts. Not inlined into `main`: inside
    /// that large frame the same code takes more instructions.
    #[inline(never)]
    pub fn new(
        mem: &'m Memory,
        options: &Options,
        cycles: bool,
        events: Option<Events>,
        results: &'m mut Results,
    ) -> Self {
        Self::on(mem, options, (cycles, events), results, None)
    }

    /// [`Engine::new`] for a sweep on `on`, another cluster's CPU, when it is `Some`: with
    /// that CPU's caches (as it read them itself), and no PMU counts (the PMU counted is the
    /// boot CPU's own).
    pub fn on(
        mem: &'m Memory,
        options: &Options,
        (cycles, events): (bool, Option<Events>),
        results: &'m mut Results,
        on: Option<(Remote, &Caches)>,
    ) -> Self {
        let (cycles, events) = if on.is_some() {
            (false, None)
        } else {
            (cycles, events)
        };
        let levels = on.map_or_else(cpu::cache_levels, |(_, caches)| caches.as_levels());
        let on = on.map(|(remote, _)| remote);
        let (caches, count) = report::caches(levels, on.map(|r| r.cluster));
        let llc = mairbench_core::cache::last_level_bytes(caches.get(..count).unwrap_or(&[]));
        let max = mem.buffer.size;
        let sizes = match (options.sizes, options.quick) {
            (Some((lo, hi)), _) => sweep::plan(lo, hi, max),
            (None, true) => sweep::plan_quick(max),
            (None, false) => {
                let upper = sweep::default_upper(llc, max, run::emulated());
                sweep::plan(4 << 10, upper, max)
            }
        };
        if let Some(cap) = options.sizes.and_then(|(_, hi)| sweep::capped(hi, max)) {
            run::warn("bootargs");
            say!(
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
            line: cache::dcache_line(),
            zva: cpu::zva_block_size(),
            llc,
            caches,
            chase_cap: sweep::chase_warm_up_cap(llc, run::emulated()),
            probe: super::plan::probes(options, llc, sizes, max),
        };
        let freq = cpu::cpu_id().cntfrq.max(1);
        // The counter's real step: it may advance by more than one tick at a time.
        let step = counter::step((0..counter::STEP_READS).map(|_| cpu::ticks())).unwrap_or(1);
        let clock = Clock {
            freq,
            overhead: kernels::timer_overhead(),
            min_ticks: sweep::min_sample_ticks_stepped(freq, step),
            cycles,
            events,
            on,
        };
        let mut engine = Engine {
            mem,
            clock,
            plan,
            progress: Progress {
                points: 0,
                rows: 0,
                done: 0,
                next: Deadline::after_ns(PROGRESS_NS),
            },
            failures: 0,
            chase: None,
            laid: None,
            check_works: check_works(mem.wb()),
            backwards_selftest: Cell::new(options.selftest == Some(Selftest::CounterBackwards)),
            disturb_selftest: options.selftest == Some(Selftest::Disturb),
            disturb: None,
            retake_of: None,
            results,
            probed: None,
        };
        engine.results.reset(sizes);
        if !engine.check_works {
            say!("FAIL integrity: the data check does not find wrong words planted in normal-wb");
        }
        let (kernels, types) = (engine.kernels().count(), engine.types().list().len());
        let (rows, points) = engine.kernels().fold((0, 0), |(rows, points), k| {
            let n = engine.aliases_for(k).list().len();
            (rows + n, points + n * sizes.for_kernel(k).len())
        });
        engine.progress.rows = rows as u32;
        engine.progress.points = points as u32;
        say!(
            "benchmark: {kernels} kernels x {types} memory types x {} sizes ({} to {}), {} reps; MB = 10^6 B",
            sizes.len(),
            Bytes(sizes.get(0).unwrap_or(0)),
            Bytes(sizes.largest().unwrap_or(0)),
            u64::from(plan.reps)
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
            concat!(
                "timer: ",
                arch_name!(cntvct),
                " at {} Hz, read overhead {} ticks (subtracted); samples of at least {} ticks \
                 ({}.{} us: >= {} ticks and >= {} us), passes sized on the warm-up; {}"
            ),
            clock.freq,
            clock.overhead,
            clock.min_ticks,
            min_ns / 1000,
            min_ns % 1000 / 100,
            sweep::MIN_SAMPLE_TICKS,
            sweep::MIN_SAMPLE_NS / 1000,
            match (on, cycles) {
                (Some(_), _) => "no PMU counts (this CPU's PMU is not programmed)",
                (None, true) => {
                    concat!(
                        arch_name!(pmccntr),
                        " cycles too (under QEMU the PMU counts virtual nanoseconds, not cycles)"
                    )
                }
                (None, false) => "no usable PMU cycle counter",
            }
        );
        let _ = report::on_cluster(Record::new(&mut Console, &schema::TIMER), engine.cluster())
            .u64("freq_hz", clock.freq)
            .u64("overhead_ticks", clock.overhead)
            .bool("pmu_cycles", cycles)
            .u64("sample_bytes", SAMPLE_BYTES)
            .u64("min_sample_ticks", clock.min_ticks)
            .u64("counter_step_ticks", step)
            .strs(
                "counter_errata",
                cpu::counter_errata().iter().map(Erratum::name),
            )
            .u64("min_sample_ns", min_ns)
            .u64("reps", plan.reps.into())
            .finish();
        engine
    }

    /// Every measured point so far, for the verdicts.
    pub fn results(&self) -> &Results {
        self.results
    }

    /// The selected kernels, in table order.
    pub(super) fn kernels(&self) -> impl Iterator<Item = &'static KernelSpec> {
        super::selected(self.plan.kernels)
    }

    /// The page aliases of the selected memory types.
    pub(super) fn types(&self) -> Aliases<'m> {
        self.selected(Granule::Page, None)
    }

    /// The aliases `spec` runs on, in the order of its table's rows: the selected types on
    /// the kernel's granule (the kernel table), then for a kernel on blocks `normal-wb` on
    /// pages (when selected), the one row that shows what the page walks cost.
    pub(super) fn aliases_for(&self, spec: &KernelSpec) -> Aliases<'m> {
        let pages = (spec.granule == Granule::Block).then(|| self.mem.wb());
        self.selected(spec.granule, pages)
    }

    /// The aliases of `granule`, then `extra`, those of the selected types.
    fn selected(&self, granule: Granule, extra: Option<&'m Alias>) -> Aliases<'m> {
        let mem = self.mem;
        // Slots past `len` hold normal-wb's page alias: never read.
        let mut selected = Aliases {
            list: [mem.wb(); MEMTYPES.len() + 1],
            len: 0,
        };
        for alias in mem.of_granule(granule).iter().chain(extra) {
            if self.plan.types & (1 << alias.memtype.index) == 0 {
                continue;
            }
            if let Some(slot) = selected.list.get_mut(selected.len) {
                *slot = alias;
                selected.len += 1;
            }
        }
        selected
    }

    /// The cluster index of a sweep on another cluster's CPU, which its records carry.
    pub(super) fn cluster(&self) -> Option<u16> {
        self.clock.on.map(|r| r.cluster)
    }

    /// Why `spec` is not measured on `alias` at all, if it is not.
    pub(super) fn skip(&self, spec: &KernelSpec, alias: &Alias) -> Option<&'static str> {
        if self.clock.on.is_some() && spec.unit == mairbench_core::kernel::Unit::NsPerLine {
            return Some("maintenance kernels run on the boot CPU only");
        }
        if spec.normal_only && alias.memtype.class() == Class::Device {
            return Some("real cores take an alignment fault for DC ZVA to Device memory");
        }
        if spec.kernel == Kernel::FillZva && self.plan.zva.is_none() {
            return Some(arch_name!(zva_refused));
        }
        None
    }
}
