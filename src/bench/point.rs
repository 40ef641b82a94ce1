//! One point: a kernel on one memory type at one working-set size. Prepared (the region laid
//! with a pattern through `normal-wb` and cleaned to memory, the loop built), warmed up,
//! timed `reps` times, verified through `normal-wb`, reported.

use super::{report, Engine, SAMPLE_BYTES};
use crate::arch::buffer::{Chain, Window};
use crate::arch::kernels::{self, Loop};
use crate::memory::Alias;
use crate::say;
use mairbench_core::format::Bytes;
use mairbench_core::kernel::{Kernel, KernelSpec};
use mairbench_core::stats::{self, Summary, MAX_REPS};
use mairbench_core::sweep;

/// Lines of the pointer chase (the latency kernel), in bytes.
const CHASE_LINE: u64 = 64;
const SEED: u64 = 0x6d61_6972_6265_6e63;

/// The position-dependent pattern laid before a point and expected after read kernels.
pub(super) fn pattern(off: u64) -> u64 {
    off ^ SEED
}

/// What the write kernels leave: 0xdeadbeef and 0xcafebabe, alternating.
pub(super) fn written(off: u64) -> u64 {
    if off.is_multiple_of(16) {
        0xdead_beef
    } else {
        0xcafe_babe
    }
}

/// What the memory must hold after a point.
#[derive(Clone, Copy)]
enum Verify {
    /// `expect(offset)` in every word of the window (read through `normal-wb`).
    Data { at: Window, expect: fn(u64) -> u64 },
    /// The chase is still one whole cycle.
    Chain(Chain),
}

/// A point ready to time.
struct Prepared {
    /// The loop one pass runs.
    body: Loop,
    /// What one pass counts: bytes, loads or cache lines.
    units: u64,
    /// Passes per timed sample.
    passes: u64,
    /// Run before every sample, untimed: maintenance kernels need freshly written lines.
    redirty: Option<Loop>,
    /// Clean the region after re-dirtying (an invalidate must not lose data).
    clean_after_redirty: bool,
    verify: Verify,
}

/// A measured point, as the report needs it.
pub(super) struct Point {
    /// Passes per sample.
    pub passes: u64,
    /// Units one pass counts.
    pub units: u64,
    /// The samples' ticks, overhead subtracted.
    pub ticks: Summary,
    /// The samples' PMU cycles, where counted.
    pub cycles: Option<Summary>,
    /// Buffer offset of the first wrong word afterwards, if any.
    pub bad: Option<u64>,
}

impl Engine<'_> {
    /// Measures and reports one point; returns its table value (MB/s, or hundredths of a ns
    /// per load or line).
    pub(super) fn point(&mut self, spec: &KernelSpec, alias: &Alias, size: u64) -> Option<u64> {
        let prepared = match self.prepare(spec, alias, size) {
            Ok(p) => p,
            Err(why) => {
                report::skipped(spec, alias, Some(size), why);
                return None;
            }
        };
        let point = self.measure(spec, alias, size, prepared)?;
        if let Some(off) = point.bad {
            self.failures += 1;
            say!(
                "FAIL integrity: {} on {} ({}) at {}: data wrong at buffer offset {off:#x}",
                spec.name,
                alias.memtype.name,
                alias.granule.name(),
                Bytes(size),
            );
        }
        report::result(spec, alias, size, &point, &self.clock, self.plan.line)
    }

    /// Lays the data the kernel needs and builds its loop, or says why the point is skipped.
    fn prepare(
        &mut self,
        spec: &KernelSpec,
        alias: &Alias,
        size: u64,
    ) -> Result<Prepared, &'static str> {
        const ODD_SIZE: &str = "the size does not suit the kernel's loop";
        let wb = *self.mem.wb();
        let half = self.mem.buffer.size / 2;
        let region = alias.window(0, size).ok_or(ODD_SIZE)?;
        let wb_region = wb.window(0, size).ok_or(ODD_SIZE)?;
        let data = |at: Window, expect| Verify::Data { at, expect };
        let lay = |at: Window| {
            at.fill(pattern);
            at.clean_invalidate();
        };
        let passes = sweep::iterations_for(size, SAMPLE_BYTES);
        let streaming = |body: Option<Loop>, verify| {
            Ok(Prepared {
                body: body.ok_or(ODD_SIZE)?,
                units: size,
                passes,
                redirty: None,
                clean_after_redirty: false,
                verify,
            })
        };
        match spec.kernel {
            Kernel::CopyTo | Kernel::CopyFrom if size > half => {
                Err("a copy needs twice the size in the buffer")
            }
            Kernel::ReadLdp | Kernel::ReadLdpQ | Kernel::ReadLdnp => {
                lay(wb_region);
                let body = match spec.kernel {
                    Kernel::ReadLdp => Loop::read_ldp(&region),
                    Kernel::ReadLdnp => Loop::read_ldnp(&region),
                    _ => Loop::read_ldp_q(&region),
                };
                streaming(body, data(wb_region, pattern))
            }
            Kernel::WriteStp => streaming(Loop::write_stp(&region), data(wb_region, written)),
            Kernel::WriteStpQ => streaming(Loop::write_stp_q(&region), data(wb_region, written)),
            Kernel::WriteStnp => streaming(Loop::write_stnp(&region), data(wb_region, written)),
            Kernel::CopyTo => {
                let source = wb.window(half, size).ok_or(ODD_SIZE)?;
                lay(source);
                streaming(Loop::copy(&region, &source), data(wb_region, pattern))
            }
            Kernel::CopyFrom => {
                let target = wb.window(half, size).ok_or(ODD_SIZE)?;
                lay(wb_region);
                streaming(Loop::copy(&target, &region), data(target, pattern))
            }
            Kernel::FillZva => {
                lay(wb_region);
                streaming(Loop::zva(&region), data(wb_region, |_| 0))
            }
            Kernel::Latency => {
                // One random cycle per size, moved (not re-drawn) from alias to alias.
                let chain = match self.chase {
                    Some(laid) if laid.lines() * CHASE_LINE == size => laid.rebase(region),
                    _ => Chain::lay(wb_region, region, CHASE_LINE, SEED ^ size),
                }
                .ok_or(ODD_SIZE)?;
                self.chase = Some(chain);
                wb_region.clean_invalidate();
                let loads = SAMPLE_BYTES / CHASE_LINE;
                Ok(Prepared {
                    body: Loop::chase(&chain, loads).ok_or(ODD_SIZE)?,
                    units: loads,
                    passes: 1,
                    redirty: None,
                    clean_after_redirty: false,
                    verify: Verify::Chain(chain),
                })
            }
            Kernel::MaintCivac | Kernel::MaintCvac | Kernel::MaintIvac => {
                // Timed one pass at a time on freshly written (dirty) lines; for an
                // invalidate they are cleaned first, so that no data is lost.
                let body = match spec.kernel {
                    Kernel::MaintCivac => Loop::civac(&region),
                    Kernel::MaintCvac => Loop::cvac(&region),
                    _ => Loop::ivac(&region),
                };
                Ok(Prepared {
                    body: body.ok_or(ODD_SIZE)?,
                    units: size / self.plan.line,
                    passes: 1,
                    redirty: Some(Loop::write_stp(&region).ok_or(ODD_SIZE)?),
                    clean_after_redirty: spec.kernel == Kernel::MaintIvac && alias.cacheable(),
                    verify: data(wb_region, written),
                })
            }
        }
    }

    /// Warms up, times `reps` samples and verifies the data; `None` without samples.
    fn measure(&self, spec: &KernelSpec, alias: &Alias, size: u64, p: Prepared) -> Option<Point> {
        let region = alias.window(0, size)?;
        let before_each = || {
            if let Some(mut redirty) = p.redirty {
                redirty.run();
                if p.clean_after_redirty {
                    region.clean_invalidate();
                }
            }
        };
        let mut body = p.body;
        before_each();
        // Warm-up: one untimed sample; for the chase a whole lap, after which the timed
        // samples continue along the cycle.
        if spec.kernel == Kernel::Latency {
            let lap = (size / CHASE_LINE).next_multiple_of(8);
            let mut warm = body.continued(lap)?;
            warm.run();
            body = warm.continued(p.units)?;
        } else {
            kernels::time(p.passes, false, &mut body);
        }
        let reps = self.plan.reps as usize;
        let mut ticks = [0u64; MAX_REPS];
        let mut cycles = [0u64; MAX_REPS];
        for (t, c) in ticks.iter_mut().zip(cycles.iter_mut()).take(reps) {
            before_each();
            let sample = kernels::time(p.passes, self.clock.cycles, &mut body);
            *t = sample.ticks.saturating_sub(self.clock.overhead).max(1);
            *c = sample.cycles;
        }

        // Integrity: make memory the truth, then read it back through normal-wb.
        alias.maintain(&region);
        let bad = match p.verify {
            Verify::Data { at, expect } => {
                at.clean_invalidate();
                at.mismatches(expect).1.map(|off| at.offset() + off)
            }
            Verify::Chain(chain) => {
                self.mem.wb().window(0, size)?.clean_invalidate();
                (!chain.intact()).then_some(0)
            }
        };
        let cycles = stats::summarize(&mut cycles[..reps]).filter(|_| self.clock.cycles);
        Some(Point {
            passes: p.passes,
            units: p.units,
            ticks: stats::summarize(&mut ticks[..reps])?,
            cycles,
            bad,
        })
    }
}
