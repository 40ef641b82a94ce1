//! One point: a kernel on one memory type at one working-set size. Prepared (the data laid
//! through `normal-wb`, the loop built), started from a named state (everything the point
//! touches cleaned and invalidated to the point of coherency right before the warm-up), warmed
//! up while the samples are sized by time, timed `reps` times, verified through `normal-wb`,
//! reported.

use super::data::PATTERN;
use super::engine::Engine;
use super::plan::Remote;
use super::prepare::{Prepared, Verify};
use super::report::{self, Point};
use crate::arch::kernels::{self, Loop, Sample};
use crate::arch::smp::jobs::{self, Span};
use crate::memory::Alias;
use crate::{run, say};
use mairbench_core::counter::{self, Dropped};
use mairbench_core::format::Bytes;
use mairbench_core::kernel::KernelSpec;
use mairbench_core::pmu::Counts;
use mairbench_core::stats::{self, MAX_REPS};
use mairbench_core::sweep::{self, Calibration};

/// Most time one job of another cluster's sweep may take: a sample is milliseconds long.
const REMOTE_LIMIT_NS: u64 = 10_000_000_000;

/// `passes` timed runs of `body` on `remote` (0: one untimed run); a CPU that stops answering
/// ends the run, named, rather than hanging it.
fn remote_run(remote: &Remote, body: Loop, passes: u64) -> Span {
    match jobs::run_alone(remote.block, body, passes, REMOTE_LIMIT_NS) {
        Some(span) => span,
        None => {
            run::check(
                "cluster-sweep",
                false,
                format_args!(
                    "CPU {:#x} (cluster {}) did not finish a sample within {} s",
                    remote.mpidr,
                    u64::from(remote.cluster), // a u64, as every other integer printed
                    REMOTE_LIMIT_NS / 1_000_000_000
                ),
            );
            run::end(Some("a CPU stopped answering"))
        }
    }
}

/// Samples a point may drop before it gives up: a counter that jumps now and then loses a
/// few; one that never gives a true sample is broken.
const MAX_DROPPED: u64 = 16;

impl Engine<'_> {
    /// Measures and reports one point; returns its table value (MB/s, or hundredths of a ns
    /// per load or line).
    pub(super) fn point(&mut self, spec: &KernelSpec, alias: &Alias, size: u64) -> Option<u64> {
        // The window last verified to hold PATTERN, if nothing has written since.
        let laid = self.laid.take();
        let prepared = match self.prepare(spec, alias, size, laid) {
            Ok(p) => p,
            Err(why) => {
                report::skipped(spec, alias, Some(size), why, self.cluster());
                return None;
            }
        };
        let holds_pattern = match prepared.verify {
            Verify::Data { at, expect } if expect == PATTERN => Some(at),
            _ => None,
        };
        let mut point = self.measure(alias, size, prepared)?;
        if !self.check_works {
            // The check itself did not find planted errors (`Engine::new`): nothing verified.
            point.bad = point.bad.or(Some(0));
        }
        match point.bad {
            None => self.laid = holds_pattern,
            Some(off) => {
                self.failures += 1;
                say!(
                    "FAIL integrity: {} on {} ({}) at {}: data wrong at buffer offset {off:#x}",
                    spec.name,
                    alias.memtype.name,
                    alias.granule.name(),
                    Bytes(size),
                );
            }
        }
        if self.retake_of.is_none() && self.disturb == Some((spec.kernel, size)) {
            self.disturb = None;
            say!("selftest: this point's first take timed 16x slower");
            point.ticks.best = point.ticks.best.saturating_mul(16);
            point.ticks.median = point.ticks.median.saturating_mul(16);
        }
        let line = (self.plan.line, self.retake_of);
        let value = report::result(spec, alias, size, &point, &self.clock, line);
        if let Some(v) = value {
            let bytes = report::covered_bytes(spec, &point, self.plan.line);
            let per_line = self
                .clock
                .events
                .zip(point.events)
                .map(|(e, counts)| (*e.choice(), counts));
            let per_line = per_line
                .as_ref()
                .map(|(choice, counts)| choice.per_line(counts, bytes));
            self.results.put(
                spec.kernel,
                alias.memtype.index as usize,
                alias.granule,
                size,
                v,
                per_line.into_iter().flatten(),
            );
        }
        value
    }

    /// One timed sample of `passes` passes, the counter's overhead subtracted; a
    /// maintenance kernel's passes are timed one by one, each after its untimed re-write,
    /// and summed (the overhead subtracted once per pass).
    fn sample(&self, p: &Prepared, body: &mut Loop, passes: u64) -> Sample {
        if let Some(remote) = &self.clock.on {
            // Another cluster's sweep (which runs no maintenance kernel: no re-write): the
            // CPU's own span, less the same overhead (its two counter reads, as here).
            let span = remote_run(remote, *body, passes);
            let ticks = span.ticks();
            return Sample {
                ticks: ticks.saturating_sub(self.clock.overhead),
                backwards: ((ticks as i64) < 0).then_some((span.start, span.end)),
                ..Sample::default()
            };
        }
        let meter = self.clock.meter();
        let (sample, intervals) = match p.redirty {
            None => (kernels::time(passes, meter, body), 1),
            Some(redirty) => {
                let mut sum = Sample::default();
                for _ in 0..passes {
                    redirty.run();
                    sum = sum.add(kernels::time(1, meter, body));
                }
                (sum, passes)
            }
        };
        let overhead = self.clock.overhead.saturating_mul(intervals);
        Sample {
            ticks: sample.ticks.saturating_sub(overhead),
            ..sample
        }
    }

    /// Starts the point from its state, warms up while sizing the samples by time, times
    /// `reps` samples and verifies the data; `None` without samples.
    fn measure(&self, alias: &Alias, size: u64, p: Prepared) -> Option<Point> {
        let region = alias.window(0, size)?;
        // The start: no line of anything the point touches is in a cache (this also makes
        // memory hold what was laid).
        for w in p.touched.iter().flatten() {
            w.clean_invalidate();
        }
        let mut body = p.body;
        // The chase's warm-up lap (capped), after which the samples continue along the cycle.
        if let Some(loads) = p.warm_up_loads {
            let mut warm = body.continued(loads)?;
            match &self.clock.on {
                Some(remote) => _ = remote_run(remote, warm, 0),
                None => warm.run(),
            }
            body = warm.continued(p.units)?;
        }
        // Warm-up probes that size the samples: at least `min_ticks` each.
        let min = self.clock.min_ticks;
        let max = sweep::max_passes(p.pass_bytes);
        let tail = match (p.redirty, p.warm_up_loads) {
            (None, None) => sweep::warm_up_tail(size, self.plan.llc),
            _ => None,
        };
        let calibration = match tail.and_then(|bytes| Some((bytes, body.tail(bytes)?))) {
            // A large set: the warm-up runs over its tail, whose rate tells that one pass
            // outlasts the minimum sample (if not, the samples are retaken with more).
            Some((bytes, mut warm)) => {
                let ticks = self.sample(&p, &mut warm, 1).ticks;
                // A tail is never empty; `max(1)` spares the division-by-zero panic.
                let estimate = ticks.saturating_mul(size / bytes.max(1));
                Calibration {
                    passes: sweep::passes_for(min, 1, estimate, max),
                    warm_up_passes: 0,
                    probe_ticks: estimate,
                }
            }
            None => sweep::calibrate(min, max, |n| self.sample(&p, &mut body, n).ticks),
        };
        let reps = self.plan.reps as usize;
        let mut ticks = [0u64; MAX_REPS];
        let mut cycles = [0u64; MAX_REPS];
        // The PMU counts of the fastest sample (the one the best value comes from).
        let mut events = (u64::MAX, Counts::default());
        let mut passes = calibration.passes;
        let mut n = 0;
        let mut dropped = (0u64, None);
        while n < reps {
            let mut s = self.sample(&p, &mut body, passes);
            if self.backwards_selftest.replace(false) {
                say!("selftest: the first timed sample's counter reads taken as gone backwards");
                s.backwards = Some((s.ticks, 0));
            }
            // A sample that cannot be true (the counter went backwards, or a rate beyond any
            // core) is dropped, counted and named; a counter that never gives a true one
            // ends the point.
            let work = p.pass_bytes.saturating_mul(passes);
            let why = match s.backwards {
                Some((t0, t1)) => Some(Dropped::Backwards { t0, t1 }),
                None => counter::sample(0, s.ticks, work, self.clock.freq).err(),
            };
            if let Some(why) = why {
                if dropped.0 == 0 {
                    say!(
                        "timer: a sample on {} at {} dropped: {why}",
                        alias.memtype.name,
                        Bytes(size)
                    );
                }
                dropped = (dropped.0 + 1, dropped.1.or(Some(why)));
                if dropped.0 > MAX_DROPPED {
                    run::check(
                        "timer-samples",
                        false,
                        format_args!(
                            "{} samples on {} at {} could not be true: {why}",
                            dropped.0,
                            alias.memtype.name,
                            Bytes(size)
                        ),
                    );
                    return None;
                }
                continue;
            }
            // A sample shorter than the minimum (the probe was slowed by cold misses): all
            // samples again with more passes.
            if let Some(more) = sweep::too_short(passes, s.ticks, min, max) {
                passes = more;
                n = 0;
                continue;
            }
            if let (Some(t), Some(c)) = (ticks.get_mut(n), cycles.get_mut(n)) {
                (*t, *c) = (s.ticks.max(1), s.cycles);
            }
            if s.ticks.max(1) < events.0 {
                events = (s.ticks.max(1), s.events);
            }
            n += 1;
        }

        // Integrity, read back through normal-wb. Where the kernel wrote through another
        // alias, memory is first made the truth (the alias's lines cleaned, then normal-wb's
        // invalidated: a line it fetched speculatively may be stale). Data read or written
        // only through normal-wb, or only read, is coherent through it as it is.
        let foreign = p.writes && region.va() != self.mem.wb().window(0, size)?.va();
        let bad = match p.verify {
            Verify::Data { at, expect } => {
                if foreign {
                    alias.maintain(&region);
                    at.clean_invalidate();
                }
                at.first_mismatch(expect).map(|off| at.offset() + off)
            }
            Verify::Chain(chain) => (!chain.intact()).then_some(0),
        };
        // `reps` is at most MAX_REPS (`Engine::new`): `get_mut`, not indexing, which panics.
        let cycles = stats::summarize(cycles.get_mut(..reps).unwrap_or_default())
            .filter(|_| self.clock.cycles);
        Some(Point {
            passes,
            units: p.units,
            ticks: stats::summarize(ticks.get_mut(..reps)?)?,
            cycles,
            bad,
            start: p.start,
            lines: p.lines,
            events: self.clock.events.map(|_| events.1),
            dropped,
        })
    }
}
