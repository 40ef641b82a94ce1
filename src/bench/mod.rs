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
//! Its files, each of which uses only files listed before it (a file that adds methods to
//! [`engine::Engine`] comes after `engine`, and only files after it call them):
//!
//! - [`plan`]: the clock, the plan (what runs), a table's cells;
//! - [`data`]: the patterns laid and expected, and the check of the data check;
//! - [`report`]: a point's `result` record and the per-kernel table;
//! - [`engine`]: the engine's state, its plan from the options, what it runs on;
//! - [`point`]: one (kernel, type, size) point, prepared, timed and verified;
//! - [`beyond`]: the latency probe past the plan, for caches CLIDR does not report;
//! - [`scaling`]: the read and write kernels on several cores at once;
//! - [`loaded`]: the loaded latency (the chase on the boot core while the others stream);
//! - this module: the per-kernel loop and progress, and the multi-core part's order.

mod beyond;
mod data;
pub mod engine;
mod loaded;
mod plan;
mod point;
mod prepare;
mod report;
mod scaling;

use crate::arch::cpu::ticks;
use crate::arch::timer::Deadline;
use crate::cpus::Cores;
use crate::memory::Alias;
use crate::{run, say};
use engine::{Engine, PROGRESS_NS};
use mairbench_core::format::Bytes;
use mairbench_core::kernel::{self, Kernel, KernelSpec, Unit};
use mairbench_core::sweep::{self, Sizes};
pub use plan::Remote;
use report::Table;

/// This image's row of `kernel` (`crate::arch::KERNELS`), if it has the kernel.
fn spec(kernel: Kernel) -> Option<&'static KernelSpec> {
    crate::arch::KERNELS.iter().find(|s| s.kernel == kernel)
}

/// This image's kernels of `mask`, in table order.
fn selected(mask: kernel::Mask) -> impl Iterator<Item = &'static KernelSpec> {
    crate::arch::KERNELS
        .iter()
        .filter(move |k| mask & k.kernel.bit() != 0)
}

impl Engine<'_> {
    /// Runs the whole sweep; one `check` per kernel says whether every point's data was
    /// intact afterwards. When the sweep looks past its plan ([`beyond`]), the latency kernel
    /// runs first, so that the sizes it adds reach every kernel.
    pub fn run(&mut self) {
        let first = self.plan.probe.then_some(Kernel::Latency);
        let rest = selected(self.plan.kernels).filter(move |k| Some(k.kernel) != first);
        for spec in first.and_then(spec).into_iter().chain(rest) {
            if core::mem::take(&mut self.disturb_selftest) {
                let middle = self.plan.sizes.get(self.plan.sizes.len() / 2);
                self.disturb = middle.map(|size| (spec.kernel, size));
            }
            self.kernel(spec, Some(spec.kernel) == first);
        }
    }

    /// One kernel over the sweep, then its table and its `integrity` check; `probe`: look past
    /// the plan once its sizes are done.
    fn kernel(&mut self, spec: &'static KernelSpec, probe: bool) {
        let started = ticks();
        let failures_before = self.failures;
        let mut table = Table::new(spec);
        self.chase = None;
        self.laid = None;
        let own = self.plan.sizes.for_kernel(spec);
        for &alias in self.aliases_for(spec).list() {
            if let Some(why) = self.skip(spec, alias) {
                self.progress.done += own.len() as u32;
                say!("  {} on {}: skipped, {why}", spec.name, alias.memtype.name);
                report::skipped(spec, alias, None, why, self.cluster());
            }
        }
        // With `probe`, the sizes past the plan are the probe's (normal-wb alone) until it
        // ends, then those it adds to the plan (every alias but the one it measured).
        let planned = own.len();
        let mut probing = false;
        let mut column = 0;
        loop {
            let sizes = if probing {
                self.results.columns()
            } else {
                &own
            };
            let Some(size) = sizes.get(column) else {
                break;
            };
            for &alias in self.aliases_for(spec).list() {
                let skip = self.skip(spec, alias).is_some() || self.probed(spec, alias, size);
                if skip || (probing && !self.probe_alias(spec, alias)) {
                    continue;
                }
                table.put(alias, column, self.point(spec, alias, size));
                self.progress.done += 1;
                self.progress(spec, alias, size);
            }
            column += 1;
            if probe && column >= planned && self.probed.is_none() {
                probing = self.look_past(column);
                if !probing {
                    column = planned;
                }
            }
        }
        // The latency table shows the probe's sizes too.
        let sizes = if probe { *self.results.columns() } else { own };
        self.retake(spec, &mut table, &sizes);
        table.print(&sizes, self.plan.reps, self.aliases_for(spec).list());
        let ms = (ticks().wrapping_sub(started) * 1000)
            .checked_div(self.clock.freq)
            .unwrap_or(0);
        run::check(
            "integrity",
            self.failures == failures_before,
            format_args!(
                "{}: data verified through normal-wb after every point ({ms} ms)",
                spec.name
            ),
        );
    }

    /// Takes again, after the kernel's sweep (apart in time from their first take), the
    /// points worse than both neighbouring sizes of their row (`sweep::retakes`): the table,
    /// the verdicts and the last `result` record then hold the second take.
    fn retake(&mut self, spec: &'static KernelSpec, table: &mut Table, sizes: &Sizes) {
        let higher_is_better = spec.unit == Unit::Bandwidth;
        for &alias in self.aliases_for(spec).list() {
            let row = table.row_of(alias);
            let row = row.get(..sizes.len()).unwrap_or_default();
            for column in sweep::retakes(row, higher_is_better) {
                let (Some(size), Some(&first)) = (sizes.get(column), row.get(column)) else {
                    continue;
                };
                say!(
                    "  {} on {} ({}) at {}: taken again, 1.25x worse than both neighbours",
                    spec.name,
                    alias.memtype.name,
                    alias.granule.name(),
                    Bytes(size),
                );
                self.retake_of = first;
                let again = self.point(spec, alias, size);
                // The first take stays where the second could not be measured.
                let first = self.retake_of.take();
                table.put(alias, column, again.or(first));
            }
        }
    }

    /// Runs the scaling table over every selected type and each selected kernel among
    /// `read-ldp` and `write-stp`, then the loaded latency, when more than one core is up.
    #[inline(never)] // its frame is on the stack only during the call
    pub fn scaling(&mut self, cores: &Cores) {
        self.scaling_tables(cores);
        self.loaded_latency(cores);
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
                u64::from(p.done),
                u64::from(p.points),
                u64::from(p.done * 100 / p.points.max(1))
            );
        }
    }
}
