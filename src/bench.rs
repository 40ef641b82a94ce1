//! The benchmark engine: every selected kernel on every selected memory type over a sweep of
//! working-set sizes, timed with CNTVCT_EL0 (and PMCCNTR_EL0 where usable), the data verified
//! after every point, reported as `result` records and one table per kernel.
//!
//! Counting: MB = 10^6 bytes; a read or write counts the bytes touched, a copy counts the
//! bytes copied once; latency is ns per dependent load, maintenance ns per cache line.
//! Each point: one untimed warm-up, then `reps` timed samples of `passes` passes, each sample
//! at least [`SAMPLE_BYTES`] long so that the 16 ns tick of QEMU (62.5 MHz) stays small; the
//! clock's own read cost is measured once and subtracted.

use crate::arch::kernels::{self, Loop};
use crate::arch::{self, buffer, mmu};
use crate::console::Console;
use crate::memory::{Alias, Memory};
use crate::{run, say};
use mairbench_core::bootargs::Options;
use mairbench_core::format::{Bytes, Decimal};
use mairbench_core::kernel::{self, Kernel, KernelSpec, Unit};
use mairbench_core::memtype::{self, Class, MEMTYPES};
use mairbench_core::record::Record;
use mairbench_core::schema;
use mairbench_core::stats::{self, Summary, MAX_REPS};
use mairbench_core::sweep::{self, Sizes, MAX_SIZES};

/// Smallest timed sample, in bytes moved (or its equivalent in loads and lines).
pub const SAMPLE_BYTES: u64 = 256 << 10;
const DEFAULT_REPS: u32 = 3;
const QUICK_REPS: u32 = 3;
const PROGRESS_SECONDS: u64 = 2;
/// Lines of the pointer chase (the latency kernel), in bytes.
const CHASE_LINE: u64 = 64;
const SEED: u64 = 0x6d61_6972_6265_6e63;

/// The position-dependent pattern laid before a point and expected after read kernels.
fn pattern(off: u64) -> u64 {
    off ^ SEED
}

/// What the write kernels leave: the seed's two values, alternating.
fn written(off: u64) -> u64 {
    if off.is_multiple_of(16) {
        0xdead_beef
    } else {
        0xcafe_babe
    }
}

/// The outcome of one point, for the table: MB/s, or hundredths of a ns per load/line.
type Value = Option<u64>;

/// The engine's settings for one run.
pub struct Engine<'m> {
    mem: &'m Memory,
    freq: u64,
    overhead: u64,
    cycles: bool,
    line: u64,
    zva: Option<u64>,
    reps: u32,
    sizes: Sizes,
    kernels: u16,
    types: u8,
    points: u32,
    done: u32,
    last_progress: u64,
    failures: u32,
    /// The pointer chase currently laid in the buffer: (working-set size, alias it targets).
    chase: Option<(u64, u64)>,
    quick: bool,
}

impl<'m> Engine<'m> {
    /// Plans the sweep from the options, the caches and the buffer, and reports the plan.
    pub fn new(mem: &'m Memory, options: &Options, cycles: bool) -> Self {
        let llc = report_caches();
        let max = mem.buffer.size;
        let sizes = match (options.sizes, options.quick) {
            (Some((lo, hi)), _) => sweep::plan(lo, hi, max),
            (None, true) => sweep::plan_quick(max),
            (None, false) => sweep::plan(4 << 10, sweep::default_upper(llc, max), max),
        };
        let reps = options.reps.unwrap_or(if options.quick {
            QUICK_REPS
        } else {
            DEFAULT_REPS
        });
        let freq = arch::cpu_id().cntfrq.max(1);
        let overhead = kernels::timer_overhead();
        let mut engine = Engine {
            mem,
            freq,
            overhead,
            cycles,
            line: mmu::dcache_line(),
            zva: arch::zva_block_size(),
            reps: reps.clamp(1, MAX_REPS as u32),
            sizes,
            kernels: options.kernels,
            types: options.types,
            points: 0,
            done: 0,
            last_progress: arch::ticks(),
            failures: 0,
            chase: None,
            quick: options.quick,
        };
        engine.points = engine.selected_kernels().count() as u32
            * engine.selected_types().count() as u32
            * engine.sizes.len() as u32;
        say!(
            "benchmark: {} kernels x {} memory types x {} sizes ({} to {}), {} reps; MB = 10^6 B",
            engine.selected_kernels().count(),
            engine.selected_types().count(),
            engine.sizes.len(),
            Bytes(engine.sizes.iter().next().unwrap_or(0)),
            Bytes(engine.sizes.iter().last().unwrap_or(0)),
            engine.reps
        );
        say!(
            "timer: CNTVCT_EL0 at {} Hz, read overhead {} ticks (subtracted); {}",
            freq,
            overhead,
            if cycles {
                "PMCCNTR_EL0 cycles too (under QEMU the PMU counts virtual nanoseconds, not cycles)"
            } else {
                "no usable PMU cycle counter"
            }
        );
        let _ = Record::new(&mut Console, &schema::TIMER)
            .u64("freq_hz", freq)
            .u64("overhead_ticks", overhead)
            .bool("pmu_cycles", cycles)
            .u64("sample_bytes", SAMPLE_BYTES)
            .u64("reps", engine.reps.into())
            .finish();
        engine
    }

    fn selected_kernels(&self) -> impl Iterator<Item = &'static KernelSpec> {
        kernel::selected(self.kernels)
    }

    fn selected_types(&self) -> impl Iterator<Item = &'m Alias> {
        let types = self.types;
        self.mem.aliases[..MEMTYPES.len()]
            .iter()
            .filter(move |a| types & (1 << a.memtype.index) != 0)
    }

    /// Runs the whole sweep; one `check` per kernel says whether every point's data was
    /// intact afterwards.
    pub fn run(&mut self) {
        for spec in self.selected_kernels() {
            let started = arch::ticks();
            let mut table = [[None; MAX_SIZES]; MEMTYPES.len()];
            let failures_before = self.failures;
            self.chase = None;
            for alias in self.selected_types() {
                if let Some(why) = self.skip(spec, alias) {
                    self.done += self.sizes.len() as u32;
                    say!("  {} on {}: skipped, {why}", spec.name, alias.memtype.name);
                    let _ = Record::new(&mut Console, &schema::RESULT)
                        .str("memtype", alias.memtype.name)
                        .str("kernel", spec.name)
                        .str("skipped", why)
                        .finish();
                }
            }
            let sizes = self.sizes;
            for (column, size) in sizes.iter().enumerate() {
                for alias in self.selected_types() {
                    if self.skip(spec, alias).is_none() {
                        table[alias.memtype.index as usize][column] = self.point(spec, alias, size);
                        self.done += 1;
                        self.progress(spec, alias, size);
                    }
                }
            }
            self.table(spec, &table);
            let ms = arch::ticks().wrapping_sub(started) * 1000 / self.freq;
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

    fn skip(&self, spec: &KernelSpec, alias: &Alias) -> Option<&'static str> {
        if spec.normal_only && alias.memtype.class == Class::Device {
            return Some("real cores take an alignment fault for DC ZVA to Device memory");
        }
        if spec.kernel == Kernel::FillZva && self.zva.is_none() {
            return Some("DC ZVA is prohibited here (DCZID_EL0.DZP)");
        }
        None
    }

    fn progress(&mut self, spec: &KernelSpec, alias: &Alias, size: u64) {
        let now = arch::ticks();
        if now.wrapping_sub(self.last_progress) >= PROGRESS_SECONDS * self.freq {
            self.last_progress = now;
            say!(
                "progress: {} on {} at {}: {} of {} points ({}%)",
                spec.name,
                alias.memtype.name,
                Bytes(size),
                self.done,
                self.points,
                self.done * 100 / self.points.max(1)
            );
        }
    }

    /// One (kernel, type, size) point: prepare, warm up, time, verify, report.
    fn point(&mut self, spec: &KernelSpec, alias: &Alias, size: u64) -> Value {
        let wb = &self.mem.aliases[memtype::NORMAL_WB];
        let half = self.mem.buffer.size / 2;
        let cacheable = matches!(alias.memtype.class, Class::Normal { cacheable: true });
        // The region the kernel works on (VA through the alias, offset in the buffer), the
        // loop, how many units one pass counts and what the region must hold afterwards.
        let (mut body, units, check_off, expect): (Loop, u64, u64, fn(u64) -> u64) =
            match spec.kernel {
                Kernel::ReadLdp | Kernel::ReadLdpQ => {
                    self.lay(0, size, pattern);
                    let body = if spec.kernel == Kernel::ReadLdp {
                        Loop::ReadLdp {
                            va: alias.va,
                            len: size,
                        }
                    } else {
                        Loop::ReadLdpQ {
                            va: alias.va,
                            len: size,
                        }
                    };
                    (body, size, 0, pattern)
                }
                Kernel::WriteStp => (
                    Loop::WriteStp {
                        va: alias.va,
                        len: size,
                    },
                    size,
                    0,
                    written,
                ),
                Kernel::WriteStpQ => (
                    Loop::WriteStpQ {
                        va: alias.va,
                        len: size,
                    },
                    size,
                    0,
                    written,
                ),
                Kernel::CopyTo | Kernel::CopyFrom if size > half => {
                    return self.too_big(spec, alias, size)
                }
                Kernel::CopyTo => {
                    self.lay(half, size, pattern);
                    let body = Loop::Copy {
                        dst: alias.va,
                        src: wb.va + half,
                        len: size,
                    };
                    (body, size, 0, pattern)
                }
                Kernel::CopyFrom => {
                    self.lay(0, size, pattern);
                    let body = Loop::Copy {
                        dst: wb.va + half,
                        src: alias.va,
                        len: size,
                    };
                    (body, size, half, pattern)
                }
                Kernel::FillZva => {
                    self.lay(0, size, pattern);
                    let block = self.zva.unwrap_or(64);
                    (
                        Loop::Zva {
                            va: alias.va,
                            len: size,
                            block,
                        },
                        size,
                        0,
                        |_| 0,
                    )
                }
                Kernel::Latency => {
                    // One random cycle per size, moved (not re-drawn) from alias to alias.
                    let lines = size / CHASE_LINE;
                    match self.chase {
                        Some((laid, from)) if laid == size => {
                            buffer::rebase_chase(wb.va, lines, CHASE_LINE, from, alias.va)
                        }
                        _ => buffer::lay_chase(wb.va, alias.va, lines, CHASE_LINE, SEED ^ size),
                    }
                    self.chase = Some((size, alias.va));
                    mmu::clean_invalidate(wb.va, size);
                    let loads = SAMPLE_BYTES / CHASE_LINE;
                    (
                        Loop::Chase {
                            start: alias.va,
                            loads,
                        },
                        loads,
                        0,
                        pattern,
                    )
                }
                Kernel::MaintCivac | Kernel::MaintCvac | Kernel::MaintIvac => {
                    let (va, len, line) = (alias.va, size, self.line);
                    let body = match spec.kernel {
                        Kernel::MaintCivac => Loop::Civac { va, len, line },
                        Kernel::MaintCvac => Loop::Cvac { va, len, line },
                        _ => Loop::Ivac { va, len, line },
                    };
                    (body, size / line, 0, written)
                }
            };

        let maint = matches!(spec.unit, Unit::NsPerLine);
        // Maintenance is timed one pass at a time on freshly written (dirty) lines; for an
        // invalidate they are cleaned first, so that no data is lost.
        let passes = if maint || spec.kernel == Kernel::Latency {
            1
        } else {
            sweep::iterations_for(size, SAMPLE_BYTES)
        };
        let before_each = |kernel: Kernel| {
            if maint {
                Loop::WriteStp {
                    va: alias.va,
                    len: size,
                }
                .run();
                if kernel == Kernel::MaintIvac && cacheable {
                    mmu::clean_invalidate(alias.va, size);
                }
            }
        };

        before_each(spec.kernel);
        // Warm-up: one untimed sample; for the chase a whole lap, after which the timed
        // samples continue along the cycle.
        match &mut body {
            Loop::Chase { start, .. } => {
                let lap = size / CHASE_LINE;
                let mut warm = Loop::Chase {
                    start: *start,
                    loads: lap.next_multiple_of(8),
                };
                warm.run();
                if let Loop::Chase { start: end, .. } = warm {
                    *start = end;
                }
            }
            _ => {
                kernels::time(passes, false, &mut body);
            }
        }
        let mut ticks = [0u64; MAX_REPS];
        let mut cycles = [0u64; MAX_REPS];
        let reps = self.reps as usize;
        for (t, c) in ticks.iter_mut().zip(cycles.iter_mut()).take(reps) {
            before_each(spec.kernel);
            let sample = kernels::time(passes, self.cycles, &mut body);
            *t = sample.ticks.saturating_sub(self.overhead).max(1);
            *c = sample.cycles;
        }

        // Integrity: make memory the truth, then read it back through normal-wb.
        if cacheable {
            mmu::clean_invalidate(alias.va, size);
        }
        mmu::clean_invalidate(wb.va + check_off, size);
        let bad = if spec.kernel == Kernel::Latency {
            let intact = buffer::chase_intact(wb.va, alias.va, size / CHASE_LINE, CHASE_LINE);
            (!intact).then_some(0)
        } else {
            buffer::mismatches(wb.va + check_off, size, expect).1
        };
        if let Some(off) = bad {
            self.failures += 1;
            say!(
                "FAIL integrity: {} on {} at {}: data wrong at buffer offset {:#x}",
                spec.name,
                alias.memtype.name,
                Bytes(size),
                check_off + off
            );
        }

        let t = stats::summarize(&mut ticks[..reps])?;
        let c = stats::summarize(&mut cycles[..reps]);
        self.result(spec, alias, size, passes, units, &t, c.as_ref(), bad)
    }

    /// Fills `[off, off+len)` of the buffer with `f` through normal-wb and writes it back.
    fn lay(&self, off: u64, len: u64, f: fn(u64) -> u64) {
        let wb = &self.mem.aliases[memtype::NORMAL_WB];
        buffer::fill(wb.va + off, len, f);
        mmu::clean_invalidate(wb.va + off, len);
    }

    fn too_big(&self, spec: &KernelSpec, alias: &Alias, size: u64) -> Value {
        let _ = Record::new(&mut Console, &schema::RESULT)
            .str("memtype", alias.memtype.name)
            .str("kernel", spec.name)
            .u64("size", size)
            .str("skipped", "a copy needs twice the size in the buffer")
            .finish();
        None
    }

    #[allow(clippy::too_many_arguments)]
    fn result(
        &self,
        spec: &KernelSpec,
        alias: &Alias,
        size: u64,
        passes: u64,
        units: u64,
        t: &Summary,
        c: Option<&Summary>,
        bad: Option<u64>,
    ) -> Value {
        let mut out = Console;
        let mut rec = Record::new(&mut out, &schema::RESULT)
            .str("memtype", alias.memtype.name)
            .str("kernel", spec.name)
            .u64("size", size)
            .u64("passes", passes)
            .u64("reps", t.n.into())
            .u64("best_ticks", t.best)
            .u64("median_ticks", t.median)
            .u64("freq_hz", self.freq)
            .decimal("cv_pct", t.cv_permille.into(), 1);
        if let Some(c) = c.filter(|_| self.cycles) {
            rec = rec.u64("best_cycles", c.best);
        }
        let total = units.saturating_mul(passes);
        let value = match spec.unit {
            Unit::Bandwidth => {
                rec = rec
                    .u64("bytes", total)
                    .opt_u64("best_mbps", stats::mbps(total, t.best, self.freq))
                    .opt_u64("median_mbps", stats::mbps(total, t.median, self.freq));
                stats::mbps(total, t.best, self.freq)
            }
            Unit::NsPerLoad => {
                let best = stats::per_unit_centi_ns(t.best, total, self.freq);
                let median = stats::per_unit_centi_ns(t.median, total, self.freq);
                rec = rec
                    .u64("loads", total)
                    .decimal("ns_per_load", best.unwrap_or(0), 2)
                    .decimal("median_ns_per_load", median.unwrap_or(0), 2);
                best
            }
            Unit::NsPerLine => {
                let best = stats::per_unit_centi_ns(t.best, total, self.freq);
                rec = rec
                    .u64("lines", total)
                    .u64("bytes", total * self.line)
                    .decimal("ns_per_line", best.unwrap_or(0), 2)
                    .decimal(
                        "median_ns_per_line",
                        stats::per_unit_centi_ns(t.median, total, self.freq).unwrap_or(0),
                        2,
                    )
                    .opt_u64(
                        "best_mbps",
                        stats::mbps(total * self.line, t.best, self.freq),
                    );
                best
            }
        };
        let _ = match bad {
            None => rec.str("integrity", "ok"),
            Some(off) => rec.hex("integrity_fail_offset", off),
        }
        .finish();
        value
    }

    /// One table per kernel: a row per memory type, a column per size (at most six), and the
    /// ratio to normal-wb at the largest size.
    fn table(&self, spec: &KernelSpec, table: &[[Value; MAX_SIZES]; MEMTYPES.len()]) {
        let n = self.sizes.len();
        let shown = n.min(6);
        let columns: [usize; 6] =
            core::array::from_fn(|i| i * n.saturating_sub(1) / shown.saturating_sub(1).max(1));
        let columns = &columns[..shown];
        let (unit, lower_is_better) = match spec.unit {
            Unit::Bandwidth => ("MB/s, best", false),
            Unit::NsPerLoad => ("ns per load, best", true),
            Unit::NsPerLine => ("ns per line, best", true),
        };
        say!("");
        say!("{} ({unit} of {}): {}", spec.name, self.reps, spec.summary);
        crate::say_inline!("  {:<18}", "memory type");
        for &col in columns {
            crate::say_inline!(" {:>9}", Bytes(self.sizes.get(col).unwrap_or(0)));
        }
        say!("  {:>9}", "vs wb");
        let reference = &table[memtype::NORMAL_WB];
        for alias in self.selected_types() {
            let row = &table[alias.memtype.index as usize];
            if row.iter().all(Option::is_none) {
                continue;
            }
            crate::say_inline!("  {:<18}", alias.memtype.name);
            for &col in columns {
                match (row[col], spec.unit) {
                    (Some(v), Unit::Bandwidth) => crate::say_inline!(" {v:>9}"),
                    (Some(v), _) => crate::say_inline!(
                        " {:>9}",
                        Decimal {
                            scaled: v,
                            places: 2
                        }
                    ),
                    (None, _) => crate::say_inline!(" {:>9}", "-"),
                }
            }
            // At the largest size both were measured at.
            let ratio = (0..n)
                .rev()
                .find_map(|c| Some((row[c]?, reference[c]?)))
                .and_then(|(v, r)| stats::ratio_permille(v, r));
            match ratio {
                Some(r) => say!(
                    "  {:>8}x",
                    Decimal {
                        scaled: r,
                        places: 3
                    }
                ),
                None => say!("  {:>9}", "-"),
            }
        }
        if lower_is_better {
            say!("  (lower is better; vs wb = this type's time / normal-wb's)");
        } else {
            say!("  (higher is better; vs wb = this type's bandwidth / normal-wb's)");
        }
    }
}

/// Reports the data and unified caches (CLIDR_EL1, CCSIDR_EL1); returns the last level's size.
fn report_caches() -> Option<u64> {
    let ccidx = arch::ccsidr(0, false).1;
    let (levels, count) =
        mairbench_core::cache::levels(arch::clidr(), ccidx, |level, instruction| {
            arch::ccsidr(level, instruction).0
        });
    for l in levels.iter().take(count) {
        say!(
            "cache: L{} {}, {} ({} B lines, {}-way, {} sets)",
            l.level,
            l.kind.name(),
            Bytes(l.size()),
            l.line,
            l.ways,
            l.sets
        );
        let _ = Record::new(&mut Console, &schema::CACHE)
            .u64("level", l.level.into())
            .str("type", l.kind.name())
            .u64("size", l.size())
            .u64("line", l.line.into())
            .u64("ways", l.ways.into())
            .u64("sets", l.sets.into())
            .finish();
    }
    mairbench_core::cache::last_level_bytes(&levels[..count])
}

/// The secondary CPUs that came up, by stack block, in the order they did.
#[derive(Clone, Copy, Debug, Default)]
pub struct Cores {
    blocks: [usize; MEMTYPES.len()],
    count: usize,
}

impl Cores {
    /// Notes that the CPU of stack block `block` is up and serving jobs.
    pub fn add(&mut self, block: usize) {
        if let Some(slot) = self.blocks.get_mut(self.count) {
            *slot = block;
            self.count += 1;
        }
    }

    fn blocks(&self) -> &[usize] {
        &self.blocks[..self.count]
    }
}

/// Bytes each core reads or writes in the scaling runs (beyond the caches of most cores);
/// a quick run uses a sixteenth.
const SCALING_PART: u64 = 4 << 20;

impl Engine<'_> {
    /// The read and write kernels on 1, 2, ... N cores at once, each over its own part of the
    /// alias: `scaling` records with the aggregate and per-core bandwidth, and a table.
    pub fn scaling(&mut self, cores: &Cores) {
        let n_max = cores.blocks().len() + 1;
        if n_max < 2 {
            return;
        }
        let part = (self.mem.buffer.size / n_max as u64)
            .min(if self.quick {
                SCALING_PART / 16
            } else {
                SCALING_PART
            })
            .checked_next_power_of_two()
            .map_or(0, |p| {
                if p * n_max as u64 > self.mem.buffer.size {
                    p / 2
                } else {
                    p
                }
            });
        if part < 4 << 10 {
            return;
        }
        let passes = sweep::iterations_for(part, SAMPLE_BYTES);
        say!("");
        say!(
            "scaling ({} per core, {} cores at most; aggregate MB/s, best of {}; MB = 10^6 B):",
            Bytes(part),
            n_max,
            self.reps
        );
        let wb = &self.mem.aliases[memtype::NORMAL_WB];
        let mut failures = 0;
        let mut seq = 0;
        for spec in [Kernel::ReadLdp, Kernel::WriteStp].map(Kernel::spec) {
            crate::say_inline!("  {:<8} {:<18}", spec.name, "memory type");
            for n in 1..=n_max {
                crate::say_inline!(" {:>8}", n);
            }
            say!("  cores");
            for alias in self.selected_types() {
                let read = spec.kernel == Kernel::ReadLdp;
                let total = part * n_max as u64;
                if read {
                    self.lay(0, total, pattern);
                }
                // Records first, then the row: a record must never share a line.
                let mut row = [None; MEMTYPES.len() + 1];
                for n in 1..=n_max {
                    let job = |i: usize| {
                        let (va, len) = (alias.va + i as u64 * part, part);
                        let body = if read {
                            Loop::ReadLdp { va, len }
                        } else {
                            Loop::WriteStp { va, len }
                        };
                        arch::smp::Job { body, passes }
                    };
                    let mut others = [(0usize, job(0)); MEMTYPES.len()];
                    for (i, &block) in cores.blocks().iter().take(n - 1).enumerate() {
                        others[i] = (block, job(i + 1));
                    }
                    let others = &others[..n - 1];
                    let mut best: Option<(u64, u64, u64)> = None; // (aggregate, min, max)
                    for rep in 0..=self.reps {
                        seq += 1;
                        let mut ticks = [0u64; MEMTYPES.len() + 1];
                        let ok =
                            arch::smp::run_together(seq, job(0), others, 5 * self.freq, &mut ticks);
                        if ok.is_none() {
                            failures += 1;
                            break;
                        }
                        if rep == 0 {
                            continue; // warm-up
                        }
                        let bytes = part * passes;
                        let slowest = ticks[..n].iter().copied().max().unwrap_or(1).max(1);
                        let aggregate =
                            stats::mbps(bytes * n as u64, slowest, self.freq).unwrap_or(0);
                        let per_core = ticks[..n]
                            .iter()
                            .map(|&t| stats::mbps(bytes, t.max(1), self.freq).unwrap_or(0));
                        let (lo, hi) =
                            per_core.fold((u64::MAX, 0), |(lo, hi), v| (lo.min(v), hi.max(v)));
                        if best.is_none_or(|(a, _, _)| aggregate > a) {
                            best = Some((aggregate, lo, hi));
                        }
                    }
                    if let Some((aggregate, lo, hi)) = best {
                        row[n - 1] = Some(aggregate);
                        let _ = Record::new(&mut Console, &schema::SCALING)
                            .str("memtype", alias.memtype.name)
                            .str("kernel", spec.name)
                            .u64("cores", n as u64)
                            .u64("bytes_per_core", part * passes)
                            .u64("aggregate_mbps", aggregate)
                            .u64("per_core_min_mbps", lo)
                            .u64("per_core_max_mbps", hi)
                            .finish();
                    }
                }
                crate::say_inline!("  {:<8} {:<18}", "", alias.memtype.name);
                for value in &row[..n_max] {
                    match value {
                        Some(v) => crate::say_inline!(" {v:>8}"),
                        None => crate::say_inline!(" {:>8}", "-"),
                    }
                }
                say!("");
                if cacheable_alias(alias) {
                    mmu::clean_invalidate(alias.va, total);
                }
                mmu::clean_invalidate(wb.va, total);
                let expect = if read { pattern } else { written };
                if let (_, Some(off)) = buffer::mismatches(wb.va, total, expect) {
                    failures += 1;
                    say!(
                        "FAIL scaling integrity: {} on {} at offset {off:#x}",
                        spec.name,
                        alias.memtype.name
                    );
                }
            }
        }
        run::check(
            "scaling",
            failures == 0,
            format_args!(
                "read-ldp and write-stp on 1 to {n_max} cores: every core finished, data verified"
            ),
        );
    }
}

fn cacheable_alias(alias: &Alias) -> bool {
    matches!(alias.memtype.class, Class::Normal { cacheable: true })
}
