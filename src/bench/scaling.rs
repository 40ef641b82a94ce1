//! Multi-core scaling: `read-ldp` and `write-stp` (those of them the run selected) on 1, 2,
//! ... N cores at once, each over its own part of the alias, started together: `scaling`
//! records with the aggregate and per-core bandwidth, and a table.

use super::point::{pattern, written};
use super::{Engine, SAMPLE_BYTES};
use crate::arch::kernels::Loop;
use crate::arch::smp::{self, Job};
use crate::console::Console;
use crate::memory::Alias;
use crate::{run, say, say_inline};
use mairbench_core::format::Bytes;
use mairbench_core::kernel::{Kernel, KernelSpec};
use mairbench_core::platform::MAX_CPUS;
use mairbench_core::record::Record;
use mairbench_core::schema;
use mairbench_core::stats;
use mairbench_core::sweep;

/// Bytes each core reads or writes (beyond the caches of most cores); a quick run uses a
/// sixteenth.
const PART: u64 = 4 << 20;

/// How long a multi-core job may take before its cores count as lost.
const JOB_LIMIT_NS: u64 = 5_000_000_000;

/// The secondary CPUs that came up, by stack block, in the order they did.
#[derive(Clone, Copy, Debug)]
pub struct Cores {
    blocks: [usize; MAX_CPUS],
    count: usize,
}

impl Default for Cores {
    fn default() -> Self {
        Cores {
            blocks: [0; MAX_CPUS],
            count: 0,
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

    fn blocks(&self) -> &[usize] {
        &self.blocks[..self.count]
    }
}

/// Up to this many cores every count is measured; beyond, the powers of two and the total.
const EVERY_COUNT_UP_TO: usize = 8;

/// The core counts measured with `n_max` cores up: 1..=n_max, or for more than
/// [`EVERY_COUNT_UP_TO`] the powers of two below `n_max` and `n_max` itself.
fn counts(n_max: usize) -> impl Iterator<Item = usize> + Clone {
    (1..=n_max).filter(move |&n| n_max <= EVERY_COUNT_UP_TO || n.is_power_of_two() || n == n_max)
}

/// The best of a point's repetitions, MB/s.
#[derive(Clone, Copy, Debug)]
struct Best {
    aggregate: u64,
    per_core_min: u64,
    per_core_max: u64,
}

impl Engine<'_> {
    /// Runs the scaling table over every selected type and each selected kernel among
    /// `read-ldp` and `write-stp`, when more than one core is up.
    pub fn scaling(&mut self, cores: &Cores) {
        let n_max = cores.blocks().len() + 1;
        let Some(part) = self.scaling_part(n_max) else {
            return;
        };
        let mask = self.plan.kernels;
        let [read, write] = [Kernel::ReadLdp, Kernel::WriteStp].map(|k| mask & k.bit() != 0);
        let specs = [Kernel::ReadLdp, Kernel::WriteStp]
            .map(Kernel::spec)
            .into_iter()
            .filter(move |spec| mask & spec.kernel.bit() != 0);
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
            "scaling ({} per core, {n_max} cores at most; aggregate MB/s, best of {}; MB = 10^6 B):",
            Bytes(part),
            self.plan.reps
        );
        if crate::emulated() {
            say!("  (emulated: QEMU models no caches; these timings do not reflect memory types)");
        }
        let mut failures = 0;
        for spec in specs {
            say_inline!("  {:<8} {:<18}", spec.name, "memory type");
            for n in counts(n_max) {
                say_inline!(" {n:>8}");
            }
            say!("  cores");
            for alias in self.types() {
                failures += self.scaling_row(spec, alias, part, cores);
            }
        }
        run::check(
            "scaling",
            failures == 0,
            format_args!(
                "{first}{and}{second} on 1 to {n_max} cores at once: every core finished, data verified"
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
        for (column, n) in counts(n_max).enumerate() {
            match self.scaling_point(spec, alias, part, n, cores) {
                Some(best) => {
                    row[column] = Some(best.aggregate);
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
        say!("");
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
        let job = |i: usize| {
            let w = alias.window(i as u64 * part, part)?;
            let body = match spec.kernel {
                Kernel::ReadLdp => Loop::read_ldp(&w),
                _ => Loop::write_stp(&w),
            };
            Some(Job {
                body: body?,
                passes,
            })
        };
        let own = job(0)?;
        let mut others = [(0usize, own); MAX_CPUS];
        for (i, (slot, &block)) in others
            .iter_mut()
            .zip(cores.blocks())
            .take(n - 1)
            .enumerate()
        {
            *slot = (block, job(i + 1)?);
        }
        let others = &others[..n - 1];
        let freq = self.clock.freq;
        let bytes = part * passes;
        let mut best: Option<Best> = None;
        for rep in 0..=self.plan.reps {
            self.scaling_seq += 1;
            let mut ticks = [0u64; MAX_CPUS];
            smp::run_together(self.scaling_seq, own, others, JOB_LIMIT_NS, &mut ticks)?;
            if rep == 0 {
                continue; // warm-up
            }
            let ticks = &ticks[..n];
            let slowest = ticks.iter().copied().max().unwrap_or(1).max(1);
            let aggregate = stats::mbps(bytes * n as u64, slowest, freq).unwrap_or(0);
            let per_core = ticks
                .iter()
                .map(|&t| stats::mbps(bytes, t.max(1), freq).unwrap_or(0));
            let (lo, hi) = per_core.fold((u64::MAX, 0), |(lo, hi), v| (lo.min(v), hi.max(v)));
            if best.is_none_or(|b| aggregate > b.aggregate) {
                best = Some(Best {
                    aggregate,
                    per_core_min: lo,
                    per_core_max: hi,
                });
            }
        }
        best
    }
}
