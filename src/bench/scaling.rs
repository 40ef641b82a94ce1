//! Multi-core measurements, with more than one CPU up:
//!
//! - scaling: `read-ldp` and `write-stp` (those of them the run selected) on 1, 2, ... N
//!   cores at once, each over its own part of the alias, started at one CNTVCT value:
//!   `scaling` records with the aggregate (all bytes over the span from the earliest start to
//!   the latest end, every core timing itself on the counter they share), the start skew and
//!   the per-core bandwidth, and a table;
//! - loaded latency: the pointer chase on the boot core over `normal-wb` while every other
//!   core streams over its own part through `normal-wb`, `normal-nc` or `device-ngnre`
//!   (those selected), against the same chase with the others idle: `loaded_latency`
//!   records and a table.

use super::point::{pattern, written};
use super::{Engine, SAMPLE_BYTES};
use crate::arch::buffer::{Chain, Window};
use crate::arch::kernels::Loop;
use crate::arch::smp::{self, Span, Stream};
use crate::console::Console;
use crate::cpus::SmpEvidence;
use crate::memory::Alias;
use crate::{run, say, say_inline};
use mairbench_core::format::{Bytes, Decimal};
use mairbench_core::kernel::{Kernel, KernelSpec};
use mairbench_core::memtype::NORMAL_WB;
use mairbench_core::platform::MAX_CPUS;
use mairbench_core::record::Record;
use mairbench_core::schema;
use mairbench_core::stats::{self, MAX_REPS};
use mairbench_core::sweep::{self, CHASE_LINE};

/// Bytes each core reads or writes (beyond the caches of most cores); a quick run uses a
/// sixteenth.
const PART: u64 = 4 << 20;

/// How long a multi-core job may take before its cores count as lost.
const JOB_LIMIT_NS: u64 = 5_000_000_000;

/// The secondary CPUs that came up, by stack block, in the order they did, and what the
/// boot CPU found out about their configuration.
#[derive(Clone, Copy, Debug)]
pub struct Cores {
    blocks: [usize; MAX_CPUS],
    count: usize,
    evidence: SmpEvidence,
}

impl Default for Cores {
    fn default() -> Self {
        Cores {
            blocks: [0; MAX_CPUS],
            count: 0,
            evidence: SmpEvidence::default(),
        }
    }
}

impl Cores {
    /// How many secondary CPUs are up.
    pub fn count(&self) -> usize {
        self.count
    }

    /// Notes that the CPU of stack block `block` is up and serving jobs.
    pub fn add(&mut self, block: usize) {
        if let Some(slot) = self.blocks.get_mut(self.count) {
            *slot = block;
            self.count += 1;
        }
    }

    /// The stack blocks of the secondary CPUs that are up.
    pub fn blocks(&self) -> &[usize] {
        &self.blocks[..self.count]
    }

    /// The SMP configuration evidence (registers compared, shared-line test), for the
    /// `smp-config` verdict.
    pub fn smp_evidence(&self) -> SmpEvidence {
        self.evidence
    }

    /// Keeps the evidence `cpus` gathered.
    pub fn set_smp_evidence(&mut self, evidence: SmpEvidence) {
        self.evidence = evidence;
    }
}

/// Up to this many cores every count is measured; beyond, the powers of two and the total.
const EVERY_COUNT_UP_TO: usize = 8;

/// The core counts measured with `n_max` cores up: 1..=n_max, or for more than
/// [`EVERY_COUNT_UP_TO`] the powers of two below `n_max` and `n_max` itself.
fn counts(n_max: usize) -> impl Iterator<Item = usize> + Clone {
    (1..=n_max).filter(move |&n| n_max <= EVERY_COUNT_UP_TO || n.is_power_of_two() || n == n_max)
}

/// The best repetition of a scaling point (highest aggregate).
#[derive(Clone, Copy, Debug)]
struct Best {
    /// MB/s: all bytes over `span`.
    aggregate: u64,
    per_core_min: u64,
    per_core_max: u64,
    /// Ticks from the earliest start to the latest end.
    span: u64,
    /// Ticks from the earliest start to the latest.
    skew: u64,
}

/// The earliest start, latest start and latest end of `spans` (wrap-safe relative to the
/// first).
fn extent(spans: &[Span]) -> Option<(u64, u64, u64)> {
    let base = spans.first()?.start;
    let rel = |t: u64| t.wrapping_sub(base) as i64;
    let first = spans.iter().map(|s| rel(s.start)).min()?;
    let last_start = spans.iter().map(|s| rel(s.start)).max()?;
    let last_end = spans.iter().map(|s| rel(s.end)).max()?;
    let at = |r: i64| base.wrapping_add(r as u64);
    Some((at(first), at(last_start), at(last_end)))
}

/// The streaming kernels the run selected among `read-ldp` and `write-stp`.
fn stream_kernels(mask: u16) -> impl Iterator<Item = &'static KernelSpec> + Clone {
    [Kernel::ReadLdp, Kernel::WriteStp]
        .map(Kernel::spec)
        .into_iter()
        .filter(move |spec| mask & spec.kernel.bit() != 0)
}

/// The streams' memory types of the loaded latency (those of them selected).
const LOADED_TYPES: [&str; 3] = ["normal-wb", "normal-nc", "device-ngnre"];
/// The most the chase spans (beyond the last-level cache of most cores); a quick run: a
/// quarter.
const CHASE_BYTES: u64 = 8 << 20;
/// The least it spans, else the loaded latency is not run.
const CHASE_MIN: u64 = 256 << 10;
/// Dependent loads per sample.
const CHASE_LOADS: u64 = 8 << 10;
/// Bytes a stream moves between two looks at its stop flag.
const STREAM_CHUNK: u64 = 64 << 10;
const CHASE_SEED: u64 = 0x6c6f_6164_6564_6c61;

impl Engine<'_> {
    /// Runs the scaling table over every selected type and each selected kernel among
    /// `read-ldp` and `write-stp`, then the loaded latency, when more than one core is up.
    #[inline(never)] // its frame is on the stack only during the call
    pub fn scaling(&mut self, cores: &Cores) {
        self.scaling_tables(cores);
        self.loaded_latency(cores);
    }

    fn scaling_tables(&mut self, cores: &Cores) {
        let started = crate::arch::ticks();
        let n_max = cores.blocks().len() + 1;
        let Some(part) = self.scaling_part(n_max) else {
            return;
        };
        let mask = self.plan.kernels;
        let [read, write] = [Kernel::ReadLdp, Kernel::WriteStp].map(|k| mask & k.bit() != 0);
        let [r, w] = [Kernel::ReadLdp, Kernel::WriteStp].map(|k| k.spec().name);
        let (first, and, second) = match (read, write) {
            (true, true) => (r, " and ", w),
            (true, false) => (r, "", ""),
            (false, true) => ("", "", w),
            (false, false) => {
                say!("");
                say!("scaling: not run ({r} and {w} are not among the selected kernels)");
                return;
            }
        };
        say!("");
        say!(
            "scaling ({} per core, {n_max} cores at most, started together; aggregate MB/s, best \
             of {}; MB = 10^6 B):",
            Bytes(part),
            self.plan.reps
        );
        if crate::emulated() {
            say!("  (emulated: QEMU models no caches; these timings do not reflect memory types)");
        }
        say!(
            "  aggregate: all cores' bytes over the span from the earliest start to the latest \
             end, each core timing itself on CNTVCT; skew: latest start - earliest start"
        );
        if crate::emulated() {
            say!("  (emulated: with more CPUs than host cores the skew is the host's scheduling)");
        }
        let mut failures = 0;
        for spec in stream_kernels(mask) {
            say_inline!("  {:<8} {:<18}", spec.name, "memory type");
            for n in counts(n_max) {
                say_inline!(" {n:>8}");
            }
            say!("  cores   skew at {n_max} (ns)");
            for alias in self.types() {
                failures += self.scaling_row(spec, alias, part, cores);
            }
        }
        run::check(
            "scaling",
            failures == 0,
            format_args!(
                "{first}{and}{second} on 1 to {n_max} cores at once: every core finished, data \
                 verified ({} ms)",
                self.ns(crate::arch::ticks().wrapping_sub(started)) / 1_000_000
            ),
        );
    }

    /// Each core's part: a power of two, at most [`PART`] (a sixteenth when quick), `n_max`
    /// of them in the buffer; `None` below 4 KiB or with one core.
    fn scaling_part(&self, n_max: usize) -> Option<u64> {
        let buffer = self.mem.buffer.size;
        let cap = if self.plan.quick { PART / 16 } else { PART };
        let p = (buffer / n_max as u64)
            .min(cap)
            .checked_next_power_of_two()?;
        let part = if p * n_max as u64 > buffer { p / 2 } else { p };
        (n_max >= 2 && part >= 4 << 10).then_some(part)
    }

    /// Ticks in nanoseconds, rounded down.
    fn ns(&self, ticks: u64) -> u64 {
        (u128::from(ticks) * 1_000_000_000 / u128::from(self.clock.freq.max(1))) as u64
    }

    /// One row (a memory type, 1..=N cores): records, then the row, then the data check.
    /// Returns the failures.
    fn scaling_row(&mut self, spec: &KernelSpec, alias: &Alias, part: u64, cores: &Cores) -> u32 {
        let n_max = cores.blocks().len() + 1;
        let read = spec.kernel == Kernel::ReadLdp;
        let total = part * n_max as u64;
        let (Some(whole), Some(check)) = (alias.window(0, total), self.mem.wb().window(0, total))
        else {
            return 1;
        };
        if read {
            check.fill(pattern);
            check.clean_invalidate();
        }
        let mut failures = 0;
        // Records first, then the row: a record must never share a line.
        let mut row = [None; MAX_CPUS];
        let mut skew_at_most = None;
        for (column, n) in counts(n_max).enumerate() {
            match self.scaling_point(spec, alias, part, n, cores) {
                Some(best) => {
                    row[column] = Some(best.aggregate);
                    if n == n_max {
                        skew_at_most = Some(self.ns(best.skew));
                    }
                    let _ = Record::new(&mut Console, &schema::SCALING)
                        .str("memtype", alias.memtype.name)
                        .str("kernel", spec.name)
                        .u64("cores", n as u64)
                        .u64(
                            "bytes_per_core",
                            part * sweep::iterations_for(part, SAMPLE_BYTES),
                        )
                        .u64("aggregate_mbps", best.aggregate)
                        .u64("per_core_min_mbps", best.per_core_min)
                        .u64("per_core_max_mbps", best.per_core_max)
                        .u64("span_ticks", best.span)
                        .u64("start_skew_ticks", best.skew)
                        .finish();
                }
                None => failures += 1,
            }
        }
        say_inline!("  {:<8} {:<18}", "", alias.memtype.name);
        for value in &row[..counts(n_max).count()] {
            match value {
                Some(v) => say_inline!(" {v:>8}"),
                None => say_inline!(" {:>8}", "-"),
            }
        }
        match skew_at_most {
            Some(ns) => say!("         {ns:>10}"),
            None => say!("         {:>10}", "-"),
        }
        alias.maintain(&whole);
        check.clean_invalidate();
        let expect = if read { pattern } else { written };
        if let (_, Some(off)) = check.mismatches(expect) {
            failures += 1;
            say!(
                "FAIL scaling integrity: {} on {} at offset {off:#x}",
                spec.name,
                alias.memtype.name
            );
        }
        failures
    }

    /// `spec` on the boot core and `n - 1` secondaries at once, one warm-up and `reps` timed
    /// repetitions; the best aggregate. `None` when a core did not line up or finish.
    fn scaling_point(
        &mut self,
        spec: &KernelSpec,
        alias: &Alias,
        part: u64,
        n: usize,
        cores: &Cores,
    ) -> Option<Best> {
        let passes = sweep::iterations_for(part, SAMPLE_BYTES);
        let body = |i: usize| {
            let w = alias.window(i as u64 * part, part)?;
            match spec.kernel {
                Kernel::ReadLdp => Loop::read_ldp(&w),
                _ => Loop::write_stp(&w),
            }
        };
        let own = body(0)?;
        let mut others = [(0usize, own, passes); MAX_CPUS];
        for (i, (slot, &block)) in others
            .iter_mut()
            .zip(cores.blocks())
            .take(n - 1)
            .enumerate()
        {
            *slot = (block, body(i + 1)?, passes);
        }
        let others = &others[..n - 1];
        let freq = self.clock.freq;
        let bytes = part * passes;
        let mut best: Option<Best> = None;
        for rep in 0..=self.plan.reps {
            let mut spans = [Span::default(); MAX_CPUS];
            smp::run_together((own, passes), others, JOB_LIMIT_NS, &mut spans)?;
            if rep == 0 {
                continue; // warm-up
            }
            let spans = &spans[..n];
            let (first, last_start, last_end) = extent(spans)?;
            let span = last_end.wrapping_sub(first).max(1);
            let aggregate = stats::mbps(bytes * n as u64, span, freq).unwrap_or(0);
            let per_core = spans
                .iter()
                .map(|s| stats::mbps(bytes, s.ticks().max(1), freq).unwrap_or(0));
            let (lo, hi) = per_core.fold((u64::MAX, 0), |(lo, hi), v| (lo.min(v), hi.max(v)));
            if best.is_none_or(|b| aggregate > b.aggregate) {
                best = Some(Best {
                    aggregate,
                    per_core_min: lo,
                    per_core_max: hi,
                    span,
                    skew: last_start.wrapping_sub(first),
                });
            }
        }
        best
    }

    /// The loaded latency: the chase on the boot core with the others idle, then while they
    /// stream; a record and a row per (stream kernel, stream memory type), and a check.
    fn loaded_latency(&mut self, cores: &Cores) {
        let started = crate::arch::ticks();
        let streamers = cores.blocks().len();
        let n = streamers + 1;
        if streamers == 0 {
            say!("");
            say!("loaded latency: not run (one CPU running: no other core to load memory with)");
            return;
        }
        let mask = self.plan.kernels;
        if stream_kernels(mask).next().is_none() {
            say!("");
            say!("loaded latency: not run (read-ldp and write-stp are not among the selected kernels)");
            return;
        }
        let loaded = |a: &&Alias| LOADED_TYPES.contains(&a.memtype.name);
        if !self.types().any(|a| loaded(&a)) {
            say!("");
            say!("loaded latency: not run (none of normal-wb, normal-nc and device-ngnre is selected)");
            return;
        }
        let Some(part) = self.scaling_part(n) else {
            return;
        };
        let cap = if self.plan.quick {
            CHASE_BYTES / 4
        } else {
            CHASE_BYTES
        };
        let room = self.mem.buffer.size.saturating_sub(streamers as u64 * part);
        let chase_bytes = match room.min(cap) {
            0 => 0,
            r => 1 << r.ilog2(),
        };
        // The chase runs on the 2 MiB-block normal-wb alias where there is one (no page walk
        // in the latency), else on the pages.
        let wb = *self.mem.wb();
        let target = *self
            .mem
            .aliases
            .iter()
            .find(|a| usize::from(a.memtype.index) == NORMAL_WB && a.granule != wb.granule)
            .unwrap_or(&wb);
        let chain = (chase_bytes >= CHASE_MIN)
            .then(|| {
                let via = wb.window(0, chase_bytes)?;
                let chain =
                    Chain::lay(via, target.window(0, chase_bytes)?, CHASE_LINE, CHASE_SEED)?;
                via.clean_invalidate();
                Some((via, chain))
            })
            .flatten();
        let Some((via, chain)) = chain else {
            say!("");
            say!(
                "loaded latency: not run (the buffer leaves {} for the chase, under {})",
                Bytes(chase_bytes),
                Bytes(CHASE_MIN)
            );
            return;
        };
        let (Some(warm), Some(body)) = (
            Loop::chase(&chain, chain.lines().next_multiple_of(8)),
            Loop::chase(&chain, CHASE_LOADS),
        ) else {
            return;
        };
        let mut body = {
            let mut warm = warm;
            warm.run(); // one whole lap
            warm.continued(CHASE_LOADS).unwrap_or(body)
        };
        let reps = self.plan.reps;
        let overhead = self.clock.overhead;
        let idle = (0..reps)
            .map(|_| smp::span(1, &mut body).ticks().saturating_sub(overhead))
            .min()
            .unwrap_or(0)
            .max(1);
        let freq = self.clock.freq;
        let per_load = |ticks: u64| stats::per_unit_centi_ns(ticks, CHASE_LOADS, freq);
        let idle_cns = per_load(idle).unwrap_or(0);
        say!("");
        say!(
            "loaded latency (boot core: {CHASE_LOADS} dependent loads over {} of normal-wb ({} \
             mapping), ns per load, best of {reps}; the {streamers} other cores stream over {} \
             each, through the type named; idle: the others wait in WFE):",
            Bytes(chase_bytes),
            target.granule.name(),
            Bytes(part)
        );
        if crate::emulated() {
            say!("  (emulated: QEMU models no caches; these timings do not reflect memory types)");
        }
        say!(
            "  {:<9} {:<18} {:>9} {:>10} {:>9} {:>12}",
            "streams",
            "memory type",
            "idle ns",
            "loaded ns",
            "ratio",
            "stream MB/s"
        );
        let mut failures = 0;
        for spec in stream_kernels(mask) {
            for alias in self.types().filter(loaded) {
                let point = self.loaded_point(spec, alias, chase_bytes, part, cores, &mut body);
                let Some((loaded_ticks, stream_mbps)) = point else {
                    failures += 1;
                    say!(
                        "  {:<9} {:<18} {:>9} {:>10}",
                        spec.name,
                        alias.memtype.name,
                        "-",
                        "failed"
                    );
                    continue;
                };
                let loaded_cns = per_load(loaded_ticks).unwrap_or(0);
                let ratio = stats::ratio_permille(loaded_cns, idle_cns.max(1)).unwrap_or(0);
                let _ = Record::new(&mut Console, &schema::LOADED_LATENCY)
                    .str("memtype", alias.memtype.name)
                    .str("kernel", spec.name)
                    .u64("cores", n as u64)
                    .u64("bytes_per_core", part)
                    .str("chase_memtype", target.memtype.name)
                    .str("chase_granule", target.granule.name())
                    .u64("chase_bytes", chase_bytes)
                    .u64("loads", CHASE_LOADS)
                    .decimal("idle_ns", idle_cns, 2)
                    .decimal("loaded_ns", loaded_cns, 2)
                    .decimal("ratio", ratio, 3)
                    .u64("stream_mbps", stream_mbps)
                    .u64("reps", reps.into())
                    .finish();
                say!(
                    "  {:<9} {:<18} {:>9} {:>10} {:>8}x {:>12}",
                    spec.name,
                    alias.memtype.name,
                    Decimal {
                        scaled: idle_cns,
                        places: 2
                    },
                    Decimal {
                        scaled: loaded_cns,
                        places: 2
                    },
                    Decimal {
                        scaled: ratio,
                        places: 3
                    },
                    stream_mbps
                );
            }
        }
        via.clean_invalidate();
        if !chain.intact() {
            failures += 1;
            say!("FAIL loaded latency: the chase's chain is broken");
        }
        run::check(
            "loaded-latency",
            failures == 0,
            format_args!(
                "the chase on the boot core, the other {streamers} cores streaming: every stream \
                 started and stopped, data and chain verified ({} ms)",
                self.ns(crate::arch::ticks().wrapping_sub(started)) / 1_000_000
            ),
        );
    }

    /// One loaded point: the streams of `spec` through `alias` on every secondary (each over
    /// its own `part`, after the chase's `chase_bytes`), started once; the chase `body` timed
    /// `reps` times on the boot core meanwhile, once every stream runs (the chase is warm
    /// already). Returns the best sample's ticks (overhead subtracted) and the streams'
    /// aggregate MB/s over their whole run; `None` when a core failed or the data is wrong
    /// afterwards.
    fn loaded_point(
        &self,
        spec: &KernelSpec,
        alias: &Alias,
        chase_bytes: u64,
        part: u64,
        cores: &Cores,
        body: &mut Loop,
    ) -> Option<(u64, u64)> {
        let streamers = cores.blocks().len();
        let total = part * streamers as u64;
        let check = self.mem.wb().window(chase_bytes, total)?;
        let region = alias.window(chase_bytes, total)?;
        check.fill(pattern);
        check.clean_invalidate();
        let make: fn(&Window) -> Option<Loop> = match spec.kernel {
            Kernel::ReadLdp => Loop::read_ldp,
            _ => Loop::write_stp,
        };
        let chunk = STREAM_CHUNK.min(part);
        let placeholder = Stream::new(region.part(0, part)?, chunk, make)?;
        let mut streams = [(0usize, placeholder); MAX_CPUS];
        for (i, (slot, &block)) in streams.iter_mut().zip(cores.blocks()).enumerate() {
            *slot = (
                block,
                Stream::new(region.part(i as u64 * part, part)?, chunk, make)?,
            );
        }
        let streams = &streams[..streamers];
        let reps = self.plan.reps as usize;
        let mut samples = [Span::default(); MAX_REPS];
        let mut spans = [Span::default(); MAX_CPUS];
        smp::run_loaded(
            body,
            1,
            &mut samples[..reps],
            streams,
            JOB_LIMIT_NS,
            &mut spans,
        )?;
        let spans = &spans[..streamers];
        let best = samples[..reps]
            .iter()
            .map(|s| s.ticks().saturating_sub(self.clock.overhead).max(1))
            .min()?;
        let (first, _, last_end) = extent(spans)?;
        let bytes: u64 = spans.iter().map(|s| s.bytes).sum();
        let stream_mbps = stats::mbps(bytes, last_end.wrapping_sub(first).max(1), self.clock.freq);
        alias.maintain(&region);
        check.clean_invalidate();
        for (i, moved) in spans.iter().map(|s| s.bytes).enumerate() {
            let at = check.part(i as u64 * part, part)?;
            // A read leaves the pattern; a write leaves its values in every chunk it reached
            // (all of them once it moved a whole part), the pattern beyond.
            let done = if spec.kernel == Kernel::ReadLdp {
                0
            } else {
                (moved / chunk * chunk).min(part)
            };
            // `check` was laid with the pattern of offsets from its own start.
            let base = i as u64 * part;
            let bad = [
                at.part(0, done)
                    .and_then(|w| w.mismatches(|o| written(base + o)).1),
                at.part(done, part - done).and_then(|w| {
                    w.mismatches(|o| pattern(base + done + o))
                        .1
                        .map(|o| o + done)
                }),
            ];
            if let Some(off) = bad.into_iter().flatten().next() {
                say!(
                    "FAIL loaded latency integrity: {} streams on {} at buffer offset {:#x}",
                    spec.name,
                    alias.memtype.name,
                    at.offset() + off
                );
                return None;
            }
        }
        Some((best, stream_mbps.unwrap_or(0)))
    }
}
