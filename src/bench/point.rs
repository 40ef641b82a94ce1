//! One point: a kernel on one memory type at one working-set size. Prepared (the data laid
//! through `normal-wb`, the loop built), started from a named state (everything the point
//! touches cleaned and invalidated to the point of coherency right before the warm-up), warmed
//! up while the samples are sized by time, timed `reps` times, verified through `normal-wb`,
//! reported.

use super::data::{PATTERN, WRITTEN, ZERO};
use super::engine::Engine;
use super::report::{self, Point};
use crate::arch::buffer::{Chain, Window};
use crate::arch::kernels::{self, Loop, Sample};
use crate::memory::Alias;
use crate::{run, say};
use mairbench_core::counter::{self, Dropped};
use mairbench_core::format::Bytes;
use mairbench_core::kernel::{Kernel, KernelSpec};
use mairbench_core::pattern::{self, Pattern};
use mairbench_core::pmu::Counts;
use mairbench_core::stats::{self, MAX_REPS};
use mairbench_core::sweep::{self, Calibration, Lines, Start, CHASE_LINE, SEED};

/// What the memory must hold after a point.
#[derive(Clone, Copy)]
enum Verify {
    /// `expect` in every word of the window (read through `normal-wb`).
    Data { at: Window, expect: Pattern },
    /// The chase is still one whole cycle.
    Chain(Chain),
}

/// How a maintenance kernel's lines are made before every timed pass (untimed).
#[derive(Clone, Copy)]
struct Redirty {
    /// Reads the range first, so that the writes then hit lines it allocated: full-line
    /// write misses alone may stream past the cache without allocating (the Cortex-A53's read
    /// allocate mode, the A76's write streaming; core's table of cores), and the lines the
    /// maintenance times would not be dirty.
    read: Loop,
    /// Writes [`WRITTEN`] through the alias.
    write: Loop,
    /// For an invalidate: `DC CVAC` of the range, then the same writes again, so that the
    /// lines are dirty (where the type allocates) yet memory holds their values.
    clean: Option<Loop>,
}

impl Redirty {
    fn run(mut self) {
        self.read.run();
        self.write.run();
        if let Some(mut clean) = self.clean {
            clean.run();
            self.write.run();
        }
    }
}

/// A point ready to time.
struct Prepared {
    /// The loop one pass runs.
    body: Loop,
    /// What one pass counts: bytes, loads or cache lines.
    units: u64,
    /// Bytes one pass touches (bounds the passes per sample).
    pass_bytes: u64,
    /// For the chase: the loads of its untimed warm-up lap.
    warm_up_loads: Option<u64>,
    /// Maintenance kernels: what each timed pass starts from.
    redirty: Option<Redirty>,
    /// Whether the kernel writes through the alias under test (then it is maintained
    /// before the check).
    writes: bool,
    /// The `normal-wb` windows the point touches: cleaned and invalidated before the warm-up.
    touched: [Option<Window>; 2],
    start: Start,
    lines: Option<Lines>,
    verify: Verify,
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
                report::skipped(spec, alias, Some(size), why);
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
        let value = report::result(spec, alias, size, &point, &self.clock, self.plan.line);
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

    /// Lays the data the kernel needs and builds its loop, or says why the point is skipped.
    /// `laid`: a `normal-wb` window known to hold [`PATTERN`] (not laid again). Every
    /// window a kernel writes is first laid with a pattern other than what the kernel
    /// leaves, so the check afterwards fails if the kernel did not run.
    fn prepare(
        &mut self,
        spec: &KernelSpec,
        alias: &Alias,
        size: u64,
        laid: Option<Window>,
    ) -> Result<Prepared, &'static str> {
        const ODD_SIZE: &str = "the size does not suit the kernel's loop";
        let wb = *self.mem.wb();
        let region = alias.window(0, size).ok_or(ODD_SIZE)?;
        let wb_region = wb.window(0, size).ok_or(ODD_SIZE)?;
        let data = |at: Window, expect| Verify::Data { at, expect };
        let lay = |at: Window, p: Pattern| {
            if p != PATTERN || laid != Some(at) {
                at.lay(p);
            }
        };
        let streaming = |body: Option<Loop>, writes, touched, verify| {
            Ok(Prepared {
                body: body.ok_or(ODD_SIZE)?,
                units: size,
                pass_bytes: size,
                warm_up_loads: None,
                redirty: None,
                writes,
                touched,
                start: Start::Invalidated,
                lines: None,
                verify,
            })
        };
        let other = || {
            let at = sweep::copy_partner(size, self.mem.buffer.size)
                .ok_or("a copy needs twice the size in the buffer")?;
            wb.window(at, size).ok_or(ODD_SIZE)
        };
        let only = [Some(wb_region), None];
        match spec.kernel {
            Kernel::ReadLdp | Kernel::ReadLdpQ | Kernel::ReadLdnp => {
                lay(wb_region, PATTERN);
                let body = match spec.kernel {
                    Kernel::ReadLdp => Loop::read_ldp(&region),
                    Kernel::ReadLdnp => Loop::read_ldnp(&region),
                    _ => Loop::read_ldp_q(&region),
                };
                streaming(body, false, only, data(wb_region, PATTERN))
            }
            Kernel::WriteStp | Kernel::WriteStpQ | Kernel::WriteStnp => {
                lay(wb_region, PATTERN);
                let body = match spec.kernel {
                    Kernel::WriteStp => Loop::write_stp(&region),
                    Kernel::WriteStnp => Loop::write_stnp(&region),
                    _ => Loop::write_stp_q(&region),
                };
                streaming(body, true, only, data(wb_region, WRITTEN))
            }
            Kernel::WriteLine => {
                lay(wb_region, PATTERN);
                let body = Loop::write_line(&region);
                streaming(body, true, only, data(wb_region, pattern::LINE_WRITTEN))
            }
            Kernel::CopyTo | Kernel::CopyToQ => {
                let source = other()?;
                lay(source, PATTERN);
                lay(wb_region, WRITTEN);
                let body = match spec.kernel {
                    Kernel::CopyTo => Loop::copy(&region, &source),
                    _ => Loop::copy_q(&region, &source),
                };
                let touched = [Some(wb_region), Some(source)];
                streaming(body, true, touched, data(wb_region, PATTERN))
            }
            Kernel::CopyFrom | Kernel::CopyFromQ => {
                let target = other()?;
                lay(wb_region, PATTERN);
                lay(target, WRITTEN);
                let body = match spec.kernel {
                    Kernel::CopyFrom => Loop::copy(&target, &region),
                    _ => Loop::copy_q(&target, &region),
                };
                let touched = [Some(wb_region), Some(target)];
                streaming(body, false, touched, data(target, PATTERN))
            }
            Kernel::FillZva => {
                lay(wb_region, PATTERN);
                streaming(Loop::zva(&region), true, only, data(wb_region, ZERO))
            }
            Kernel::Latency => {
                // One random cycle per size, moved (not re-drawn) from alias to alias.
                let chain = match self.chase {
                    Some(laid) if laid.lines() * CHASE_LINE == size => laid.rebase(region),
                    _ => Chain::lay(wb_region, region, CHASE_LINE, SEED ^ size),
                }
                .ok_or(ODD_SIZE)?;
                self.chase = Some(chain);
                let lines = chain.lines();
                let loads = sweep::chase_pass(lines);
                Ok(Prepared {
                    body: Loop::chase(&chain, loads).ok_or(ODD_SIZE)?,
                    units: loads,
                    pass_bytes: loads * CHASE_LINE,
                    warm_up_loads: Some(sweep::chase_warm_up(
                        lines,
                        CHASE_LINE,
                        self.plan.chase_cap,
                    )),
                    redirty: None,
                    writes: false,
                    touched: only,
                    start: Start::Invalidated,
                    lines: None,
                    verify: Verify::Chain(chain),
                })
            }
            Kernel::MaintCivac | Kernel::MaintCvac | Kernel::MaintIvac => {
                // Timed one pass at a time, each on lines just written through the alias;
                // for an invalidate written, cleaned and written again, so no data is lost.
                // Where no write leaves a line (no-line), every pass finds the same state:
                // the written values are laid through normal-wb and the point starts
                // invalidated.
                let lines = Lines::after_writes(alias.memtype.mair);
                let body = match spec.kernel {
                    Kernel::MaintCivac => Loop::civac(&region),
                    Kernel::MaintCvac => Loop::cvac(&region),
                    _ => Loop::ivac(&region),
                };
                let write = Loop::write_stp(&region).ok_or(ODD_SIZE)?;
                let read = Loop::read_ldp(&region).ok_or(ODD_SIZE)?;
                let invalidate = spec.kernel == Kernel::MaintIvac;
                let (redirty, start) = match (lines, invalidate) {
                    (Lines::NoLine, _) => {
                        lay(wb_region, WRITTEN);
                        (None, Start::Invalidated)
                    }
                    (_, false) => {
                        lay(wb_region, PATTERN);
                        (
                            Some(Redirty {
                                read,
                                write,
                                clean: None,
                            }),
                            Start::Written,
                        )
                    }
                    (_, true) => {
                        lay(wb_region, PATTERN);
                        let clean = Some(Loop::cvac(&region).ok_or(ODD_SIZE)?);
                        (Some(Redirty { read, write, clean }), Start::Rewritten)
                    }
                };
                Ok(Prepared {
                    body: body.ok_or(ODD_SIZE)?,
                    units: size / self.plan.line,
                    pass_bytes: size,
                    warm_up_loads: None,
                    redirty,
                    writes: true,
                    touched: only,
                    start,
                    lines: Some(lines),
                    verify: data(wb_region, WRITTEN),
                })
            }
        }
    }

    /// One timed sample of `passes` passes, the counter's overhead subtracted; a
    /// maintenance kernel's passes are timed one by one, each after its untimed re-write,
    /// and summed (the overhead subtracted once per pass).
    fn sample(&self, p: &Prepared, body: &mut Loop, passes: u64) -> Sample {
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
            warm.run();
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
                let estimate = ticks.saturating_mul(size / bytes);
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
        let cycles = stats::summarize(&mut cycles[..reps]).filter(|_| self.clock.cycles);
        Some(Point {
            passes,
            units: p.units,
            ticks: stats::summarize(&mut ticks[..reps])?,
            cycles,
            bad,
            start: p.start,
            lines: p.lines,
            events: self.clock.events.map(|_| events.1),
            dropped,
        })
    }
}
