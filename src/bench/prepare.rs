//! A point's preparation: the data each kernel needs laid through `normal-wb` (with a
//! pattern other than what the kernel leaves, so that the check afterwards fails if the
//! kernel did not run), its loop built, and what the memory must hold afterwards.

use super::data::{PATTERN, WRITTEN, ZERO};
use super::engine::Engine;
use crate::arch::buffer::{Chain, Window};
use crate::arch::kernels::Loop;
use crate::memory::Alias;
use mairbench_core::kernel::{Kernel, KernelSpec};
use mairbench_core::pattern::{self, Pattern};
use mairbench_core::sweep::{self, Lines, Start, CHASE_LINE, SEED};

/// What the memory must hold after a point.
#[derive(Clone, Copy)]
pub(super) enum Verify {
    /// `expect` in every word of the window (read through `normal-wb`).
    Data { at: Window, expect: Pattern },
    /// The chase is still one whole cycle.
    Chain(Chain),
}

/// How a maintenance kernel's lines are made before every timed pass (untimed).
#[derive(Clone, Copy)]
pub(super) struct Redirty {
    /// Reads the range first, so that the writes then hit lines it allocated: full-line
    /// write misses alone may stream past the cache without allocating (the Cortex-A53's read
    /// allocate mode, the A76's write streaming; core's table of cores), and the lines the
    /// maintenance times would not be dirty.
    pub(super) read: Loop,
    /// Writes [`WRITTEN`] through the alias.
    pub(super) write: Loop,
    /// For an invalidate: `DC CVAC` of the range, then the same writes again, so that the
    /// lines are dirty (where the type allocates) yet memory holds their values.
    pub(super) clean: Option<Loop>,
}

impl Redirty {
    pub(super) fn run(mut self) {
        self.read.run();
        self.write.run();
        if let Some(mut clean) = self.clean {
            clean.run();
            self.write.run();
        }
    }
}

/// A point ready to time.
pub(super) struct Prepared {
    /// The loop one pass runs.
    pub(super) body: Loop,
    /// What one pass counts: bytes, loads or cache lines.
    pub(super) units: u64,
    /// Bytes one pass touches (bounds the passes per sample).
    pub(super) pass_bytes: u64,
    /// For the chase: the loads of its untimed warm-up lap.
    pub(super) warm_up_loads: Option<u64>,
    /// Maintenance kernels: what each timed pass starts from.
    pub(super) redirty: Option<Redirty>,
    /// Whether the kernel writes through the alias under test (then it is maintained
    /// before the check).
    pub(super) writes: bool,
    /// The `normal-wb` windows the point touches: cleaned and invalidated before the warm-up.
    pub(super) touched: [Option<Window>; 3],
    pub(super) start: Start,
    pub(super) lines: Option<Lines>,
    pub(super) verify: Verify,
}

/// Why a point is skipped when its windows do not suit the kernel's loop.
const ODD_SIZE: &str = "the size does not suit the kernel's loop";

impl Engine<'_> {
    /// Lays the data the kernel needs and builds its loop, or says why the point is skipped.
    /// `laid`: a `normal-wb` window known to hold [`PATTERN`] (not laid again). Every
    /// window a kernel writes is first laid with a pattern other than what the kernel
    /// leaves, so the check afterwards fails if the kernel did not run. Not inlined into
    /// `point`: inside that large frame the same code takes more instructions.
    #[inline(never)]
    pub(super) fn prepare(
        &mut self,
        spec: &KernelSpec,
        alias: &Alias,
        size: u64,
        laid: Option<Window>,
    ) -> Result<Prepared, &'static str> {
        let wb = *self.mem.wb();
        let region = alias.window(0, size).ok_or(ODD_SIZE)?;
        let wb_region = wb.window(0, size).ok_or(ODD_SIZE)?;
        let lay = |at: Window, p: Pattern| {
            if p != PATTERN || laid != Some(at) {
                at.lay(p);
            }
        };
        let other = || {
            let at = sweep::copy_partner(size, self.mem.buffer.size)
                .ok_or("a copy needs twice the size in the buffer")?;
            wb.window(at, size).ok_or(ODD_SIZE)
        };
        // The streaming kernels: their loop, whether it writes through the alias, the
        // windows it touches, what they hold afterwards, and the bytes a pass counts per
        // byte of the size (a triad counts a, b and c, as STREAM does).
        let only = [Some(wb_region), None, None];
        let (body, writes, touched, (at, expect), per_byte) = match spec.kernel {
            Kernel::ReadLdp | Kernel::ReadLdpQ | Kernel::ReadLdnp => {
                lay(wb_region, PATTERN);
                let body = match spec.kernel {
                    Kernel::ReadLdp => Loop::read_ldp(&region),
                    Kernel::ReadLdnp => Loop::read_ldnp(&region),
                    _ => Loop::read_ldp_q(&region),
                };
                (body, false, only, (wb_region, PATTERN), 1)
            }
            Kernel::WriteStp | Kernel::WriteStpQ | Kernel::WriteStnp => {
                lay(wb_region, PATTERN);
                let body = match spec.kernel {
                    Kernel::WriteStp => Loop::write_stp(&region),
                    Kernel::WriteStnp => Loop::write_stnp(&region),
                    _ => Loop::write_stp_q(&region),
                };
                (body, true, only, (wb_region, WRITTEN), 1)
            }
            Kernel::WriteLine => {
                lay(wb_region, PATTERN);
                let body = Loop::write_line(&region);
                (body, true, only, (wb_region, pattern::LINE_WRITTEN), 1)
            }
            Kernel::CopyTo | Kernel::CopyToQ => {
                let source = other()?;
                lay(source, PATTERN);
                lay(wb_region, WRITTEN);
                let body = match spec.kernel {
                    Kernel::CopyTo => Loop::copy(&region, &source),
                    _ => Loop::copy_q(&region, &source),
                };
                let touched = [Some(wb_region), Some(source), None];
                (body, true, touched, (wb_region, PATTERN), 1)
            }
            Kernel::CopyFrom | Kernel::CopyFromQ => {
                let target = other()?;
                lay(wb_region, PATTERN);
                lay(target, WRITTEN);
                let body = match spec.kernel {
                    Kernel::CopyFrom => Loop::copy(&target, &region),
                    _ => Loop::copy_q(&target, &region),
                };
                let touched = [Some(wb_region), Some(target), None];
                (body, false, touched, (target, PATTERN), 1)
            }
            Kernel::Triad => {
                // a, b and c all in the type under test, laid through normal-wb.
                let (b_at, c_at) = sweep::triad_partners(size, self.mem.buffer.size)
                    .ok_or("a triad needs three times the size in the buffer")?;
                let window = |a: &Alias, at| a.window(at, size).ok_or(ODD_SIZE);
                let (b, c) = (window(&wb, b_at)?, window(&wb, c_at)?);
                lay(wb_region, PATTERN);
                lay(b, pattern::TRIAD_B);
                lay(c, pattern::TRIAD_C);
                let body = Loop::triad(&region, &window(alias, b_at)?, &window(alias, c_at)?);
                let touched = [Some(wb_region), Some(b), Some(c)];
                (body, true, touched, (wb_region, pattern::TRIAD_A), 3)
            }
            Kernel::ReadStride64
            | Kernel::ReadStride256
            | Kernel::ReadStride1k
            | Kernel::ReadStride4k
            | Kernel::ReadRandom => {
                lay(wb_region, PATTERN);
                let body = spec
                    .kernel
                    .order()
                    .and_then(|order| Loop::read_strided(&region, order));
                (body, false, only, (wb_region, PATTERN), 1)
            }
            Kernel::FillZva => {
                lay(wb_region, PATTERN);
                (Loop::zva(&region), true, only, (wb_region, ZERO), 1)
            }
            Kernel::Latency => return self.prepare_chase(region, wb_region),
            Kernel::MaintCivac | Kernel::MaintCvac | Kernel::MaintIvac => {
                return self.prepare_maintenance(spec, alias, region, wb_region, lay)
            }
        };
        Ok(Prepared {
            body: body.ok_or(ODD_SIZE)?,
            units: per_byte * size,
            pass_bytes: per_byte * size,
            warm_up_loads: None,
            redirty: None,
            writes,
            touched,
            start: Start::Invalidated,
            lines: None,
            verify: Verify::Data { at, expect },
        })
    }

    /// The latency kernel's point: one random cycle per size, moved (not re-drawn) from
    /// alias to alias.
    fn prepare_chase(
        &mut self,
        region: Window,
        wb_region: Window,
    ) -> Result<Prepared, &'static str> {
        let size = region.len();
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
            warm_up_loads: Some(sweep::chase_warm_up(lines, CHASE_LINE, self.plan.chase_cap)),
            redirty: None,
            writes: false,
            touched: [Some(wb_region), None, None],
            start: Start::Invalidated,
            lines: None,
            verify: Verify::Chain(chain),
        })
    }

    /// A maintenance kernel's point: timed one pass at a time, each on lines just written
    /// through the alias; for an invalidate written, cleaned and written again, so no data
    /// is lost. Where no write leaves a line (no-line), every pass finds the same state: the
    /// written values are laid through normal-wb and the point starts invalidated.
    fn prepare_maintenance(
        &self,
        spec: &KernelSpec,
        alias: &Alias,
        region: Window,
        wb_region: Window,
        lay: impl Fn(Window, Pattern),
    ) -> Result<Prepared, &'static str> {
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
            // The line is never 0 (`cache::dcache_line`): no division-by-zero panic.
            units: region.len() / self.plan.line.max(1),
            pass_bytes: region.len(),
            warm_up_loads: None,
            redirty,
            writes: true,
            touched: [Some(wb_region), None, None],
            start,
            lines: Some(lines),
            verify: Verify::Data {
                at: wb_region,
                expect: WRITTEN,
            },
        })
    }
}
