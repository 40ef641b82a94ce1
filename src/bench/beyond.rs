//! Past the plan: once the latency kernel has measured the planned sizes, `normal-wb`'s chase
//! (on its granule, 2 MiB blocks) goes on at the larger sizes the buffer holds, until the
//! curve shows a cache CLIDR_EL1 does not report and 4x it
//! (`mairbench_core::system_cache`); every kernel's sweep then reaches there, so that the
//! verdicts' DRAM point is DRAM. Only on hardware (QEMU models no caches, and its steps are
//! the host's) and for the default sweep (`mairbench.sizes=` and `mairbench.quick` measure
//! what they say). Bounded by the buffer: one chase per power of two it holds.

use super::engine::Engine;
use crate::memory::Alias;
use crate::say;
use mairbench_core::arch_name;
use mairbench_core::format::Bytes;
use mairbench_core::kernel::{Kernel, KernelSpec};
use mairbench_core::memtype::NORMAL_WB;
use mairbench_core::sweep;
use mairbench_core::system_cache::Finding;
use mairbench_core::verdict::{Sweep, DRAM_TIMES};

impl Engine<'_> {
    /// Whether `alias` is the one the probe chases: `normal-wb` on `spec`'s granule.
    pub(super) fn probe_alias(&self, spec: &KernelSpec, alias: &Alias) -> bool {
        usize::from(alias.memtype.index) == NORMAL_WB && alias.granule == spec.granule
    }

    /// The points so far, as the verdicts read them (one copy of the code that reads them).
    fn sweep(&self) -> &dyn Sweep {
        &*self.results
    }

    /// Whether the probe already measured `spec` on `alias` at `size`.
    pub(super) fn probed(&self, spec: &KernelSpec, alias: &Alias, size: u64) -> bool {
        matches!(self.probed, Some((planned, upto)) if size > planned && size <= upto)
            && spec.kernel == Kernel::Latency
            && self.probe_alias(spec, alias)
    }

    /// The probe's next step once the latency kernel has measured `column` sizes (the plan's,
    /// then the probe's): returns whether it measures one more size, which it added to the
    /// results. When it ends, the sizes it adds to every kernel's sweep are in the plan.
    pub(super) fn look_past(&mut self, column: usize) -> bool {
        let Some(planned) = self.plan.sizes.largest() else {
            return false;
        };
        let caches = self.plan.caches;
        let past = sweep::past(planned, self.mem.buffer.size);
        let done = self
            .results
            .columns()
            .len()
            .saturating_sub(self.plan.sizes.len());
        if done == 0 {
            say!(
                concat!(
                    "system cache: looking past {}: latency on normal-wb up to {} (what the \
                     buffer holds) for a cache ",
                    arch_name!(clidr),
                    " does not report"
                ),
                Bytes(planned),
                Bytes(past.largest().unwrap_or(planned))
            );
        }
        let upto = self.results.columns().largest().unwrap_or(planned);
        let finding = Finding::of(self.sweep(), &caches, false);
        let next = past.get(done).filter(|_| !finding.resolved(upto));
        if let Some(size) = next.filter(|_| column == self.results.columns().len()) {
            if self.results.add_size(size) {
                self.progress.points += 1;
                return true;
            }
        }
        self.probed = Some((planned, upto));
        let (Some(to), Some(cache)) = (finding.extend_to(planned, upto), finding.system_cache())
        else {
            return false;
        };
        let mut added = 0u32;
        for size in past.iter().take_while(|&s| s <= to) {
            added += u32::from(self.plan.sizes.push(size));
        }
        // Every row at the added sizes, but the probe's points, already counted.
        self.progress.points += self.progress.rows.saturating_sub(1) * added;
        say!(
            "sweep: extended to {} for every kernel: {DRAM_TIMES}x the {} system cache the \
             latency curve shows is {}",
            Bytes(to),
            Bytes(cache.size),
            Bytes(finding.bound())
        );
        false
    }
}
