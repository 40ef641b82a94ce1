//! Scaling, with more than one CPU up: `read-ldp`, `write-stp`, `copy-to` and `triad`
//! (those of them the run selected) on 1, 2, ... N cores at once, each over its own part of
//! the alias, started at one CNTVCT value: `scaling` records with the aggregate (all bytes
//! over the span from the earliest start to the latest end, every core timing itself on the
//! counter they share),
//! the start skew and the per-core bandwidth, and a table.

use super::data::{pattern, written};
use super::engine::Engine;
use super::plan::SAMPLE_BYTES;
use crate::arch::cpu::ticks;
use crate::arch::kernels::Loop;
use crate::arch::smp::jobs::{self, Span};
use crate::cell::Or;
use crate::console::Console;
use crate::cpus::Cores;
use crate::memory::Alias;
use crate::{run, say, say_inline};
use mairbench_core::format::Bytes;
use mairbench_core::kernel::{Kernel, KernelSpec, Mask};
use mairbench_core::platform::MAX_CPUS;
use mairbench_core::record::Record;
use mairbench_core::schema;
use mairbench_core::stats;
use mairbench_core::sweep;
use mairbench_core::system_cache::Finding;

/// How long a multi-core job may take before its cores count as lost.
pub(super) const JOB_LIMIT_NS: u64 = 5_000_000_000;

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
pub(super) fn extent(spans: &[Span]) -> Option<(u64, u64, u64)> {
    let base = spans.first()?.start;
    let rel = |t: u64| t.wrapping_sub(base) as i64;
    let first = spans.iter().map(|s| rel(s.start)).min()?;
    let last_start = spans.iter().map(|s| rel(s.start)).max()?;
    let last_end = spans.iter().map(|s| rel(s.end)).max()?;
    let at = |r: i64| base.wrapping_add(r as u64);
    Some((at(first), at(last_start), at(last_end)))
}

/// The streaming kernels of the loaded latency: `read-ldp` and `write-stp`.
pub(super) const STREAMS: Mask = Kernel::ReadLdp.bit() | Kernel::WriteStp.bit();

/// The kernels of the scaling table (in the kernel table's order, the table's).
const SCALED: Mask = STREAMS | Kernel::CopyTo.bit() | Kernel::Triad.bit();

/// The names of the kernels of `mask`, joined by ", ".
struct Names(Mask);

impl core::fmt::Display for Names {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for (i, spec) in super::selected(self.0).enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{}", spec.name)?;
        }
        Ok(())
    }
}

/// What one core's pass over its part of `part` bytes moves, as the kernel counts bytes: the
/// part for a read or a write; for the copy half of it (normal-wb's second half of the part
/// copied into the type's first, counted once); for the triad three quarters (a, b and c the
/// part's first three quarters, all in the type, counted as STREAM counts them).
fn pass_bytes(kernel: Kernel, part: u64) -> u64 {
    match kernel {
        Kernel::CopyTo => part / 2,
        Kernel::Triad => part / 4 * 3,
        _ => part,
    }
}

/// What the buffer holds at byte `off` after `kernel` ran on parts of `part` bytes, laid with
/// [`laid`] before.
fn left(kernel: Kernel, part: u64, off: u64) -> u64 {
    let within = off % part.max(1);
    let quarter = part / 4;
    match kernel {
        Kernel::ReadLdp => pattern(off),
        Kernel::WriteStp => written(off),
        Kernel::CopyTo if within < part / 2 => pattern(off + part / 2),
        Kernel::Triad if within < quarter => mairbench_core::pattern::TRIAD_A.at(within),
        _ => laid(kernel, part, off),
    }
}

/// What the buffer is laid with at byte `off` before `kernel` runs on parts of `part` bytes:
/// the pattern, but the triad's `b` and `c` quarters.
fn laid(kernel: Kernel, part: u64, off: u64) -> u64 {
    let (within, quarter) = (off % part.max(1), part / 4);
    match kernel {
        Kernel::Triad if (quarter..2 * quarter).contains(&within) => {
            mairbench_core::pattern::TRIAD_B.at(within - quarter)
        }
        Kernel::Triad if (2 * quarter..3 * quarter).contains(&within) => {
            mairbench_core::pattern::TRIAD_C.at(within - 2 * quarter)
        }
        _ => pattern(off),
    }
}

impl Engine<'_> {
    /// The scaling table: each selected kernel of [`SCALED`] on every selected type, on 1 to
    /// N cores; a `check`.
    pub(super) fn scaling_tables(&mut self, cores: &Cores) {
        let started = ticks();
        let n_max = cores.blocks().len() + 1;
        let Some(sweep::Part {
            bytes: part,
            below_dram,
        }) = self.scaling_part(n_max)
        else {
            return;
        };
        let mask = self.plan.kernels & SCALED;
        if mask == 0 {
            say!("");
            say!(
                "scaling: not run (none of {} is among the selected kernels)",
                Names(SCALED)
            );
            return;
        }
        say!("");
        say!(
            "scaling ({} per core, {n_max} cores at most, started together; aggregate MB/s, best \
             of {}; MB = 10^6 B):",
            Bytes(part),
            u64::from(self.plan.reps)
        );
        if run::emulated() {
            say!("  (emulated: QEMU models no caches; these timings do not reflect memory types)");
        } else if below_dram {
            run::warn("scaling");
            say!(
                "  (each core's part is below the DRAM point, 4x the last cache the latency curve \
                 shows: the figures may be cache hits; a larger mairbench.buffer= gives larger \
                 parts)"
            );
        }
        say!(
            "  aggregate: all cores' bytes over the span from the earliest start to the latest \
             end, each core timing itself on CNTVCT; skew: latest start - earliest start"
        );
        if run::emulated() {
            say!("  (emulated: with more CPUs than host cores the skew is the host's scheduling)");
        }
        let mut failures = 0;
        for spec in super::selected(mask) {
            say_inline!("  {:<8} {:<18}", spec.name, "memory type");
            for n in counts(n_max) {
                say_inline!(" {n:>8}");
            }
            say!("  cores   skew at {n_max} (ns)");
            for &alias in self.types().list() {
                failures += self.scaling_row(spec, alias, part, cores);
            }
        }
        run::check(
            "scaling",
            failures == 0,
            format_args!(
                "{} on 1 to {n_max} cores at once: every core finished, data verified ({} ms)",
                Names(mask),
                self.ns(ticks().wrapping_sub(started)) / 1_000_000
            ),
        );
    }

    /// Each core's part (`sweep::scaling_part`): past the DRAM point the sweep found (a system
    /// cache included) where the buffer allows; `None` below 4 KiB or with one core.
    pub(super) fn scaling_part(&self, n_max: usize) -> Option<sweep::Part> {
        let levels = self.plan.caches.iter().filter(|l| l.level != 0);
        let caches = &self.plan.caches[..levels.count()];
        let dram = Finding::of(&*self.results, caches, run::emulated()).bound();
        sweep::scaling_part(self.mem.buffer.size, n_max as u64, self.plan.quick, dram)
    }

    /// Ticks in nanoseconds, rounded down.
    pub(super) fn ns(&self, ticks: u64) -> u64 {
        let ns = stats::div_rem(
            u128::from(ticks) * 1_000_000_000,
            u128::from(self.clock.freq.max(1)),
        );
        ns.map_or(0, |(q, _)| q as u64)
    }

    /// One row (a memory type, 1..=N cores): records, then the row, then the data check.
    /// Returns the failures. Not inlined into the table's loop: the code is shorter apart.
    #[inline(never)]
    fn scaling_row(&mut self, spec: &KernelSpec, alias: &Alias, part: u64, cores: &Cores) -> u32 {
        let n_max = cores.blocks().len() + 1;
        let k = spec.kernel;
        let total = part * n_max as u64;
        let (Some(whole), Some(check)) = (alias.window(0, total), self.mem.wb().window(0, total))
        else {
            return 1;
        };
        if k != Kernel::WriteStp {
            check.fill(|off| laid(k, part, off));
            check.clean_invalidate();
        }
        let mut failures = 0;
        // Records first, then the row: a record must never share a line.
        let mut row = [None; MAX_CPUS];
        let mut skew_at_most = None;
        for (column, n) in counts(n_max).enumerate() {
            match self.scaling_point(spec, alias, part, n, cores) {
                Some(best) => {
                    if let Some(cell) = row.get_mut(column) {
                        *cell = Some(best.aggregate);
                    }
                    if n == n_max {
                        skew_at_most = Some(self.ns(best.skew));
                    }
                    let _ = Record::new(&mut Console, &schema::SCALING)
                        .str("memtype", alias.memtype.name)
                        .str("kernel", spec.name)
                        .u64("cores", n as u64)
                        .u64("bytes_per_core", {
                            let bytes = pass_bytes(k, part);
                            bytes * sweep::iterations_for(bytes, SAMPLE_BYTES)
                        })
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
        for &value in row.iter().take(counts(n_max).count()) {
            say_inline!(" {:>8}", Or(value));
        }
        say!("         {:>10}", Or(skew_at_most));
        alias.maintain(&whole);
        check.clean_invalidate();
        if let (_, Some(off)) = check.mismatches(|off| left(k, part, off)) {
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
        let moved = pass_bytes(spec.kernel, part);
        let passes = sweep::iterations_for(moved, SAMPLE_BYTES);
        let wb = *self.mem.wb();
        let body = |i: usize| {
            let at = i as u64 * part;
            let (half, quarter) = (part / 2, part / 4);
            match spec.kernel {
                Kernel::ReadLdp => Loop::read_ldp(&alias.window(at, part)?),
                Kernel::CopyTo => {
                    Loop::copy(&alias.window(at, half)?, &wb.window(at + half, half)?)
                }
                Kernel::Triad => Loop::triad(
                    &alias.window(at, quarter)?,
                    &alias.window(at + quarter, quarter)?,
                    &alias.window(at + 2 * quarter, quarter)?,
                ),
                _ => Loop::write_stp(&alias.window(at, part)?),
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
        // `get`, not indexing, here and below: `n` fits, and no panic path is added.
        let others = others.get(..n - 1)?;
        let freq = self.clock.freq;
        let bytes = moved * passes;
        let mut best: Option<Best> = None;
        for rep in 0..=self.plan.reps {
            let mut spans = [Span::default(); MAX_CPUS];
            jobs::run_together((own, passes), others, JOB_LIMIT_NS, &mut spans)?;
            if rep == 0 {
                continue; // warm-up
            }
            let spans = spans.get(..n)?;
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
}
