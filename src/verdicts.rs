//! The run's verdicts: what the memory checks, the sweep, the CPUs and the clock showed, judged
//! by `mairbench_core::verdict` (thresholds and wording live there, host-tested), printed as
//! a block of lines and `verdict` records above the status line.

use crate::arch::{cpu, mmu};
use crate::console::Console;
use crate::{run, say};
use mairbench_core::cache::{CacheLevel, MAX_LEVELS};
use mairbench_core::cores::Revision;
use mairbench_core::hypervisor::Hypervisor;
use mairbench_core::kernel::Kernel;
use mairbench_core::memtype;
use mairbench_core::system_cache::{Finding, Point};
use mairbench_core::verdict::{
    self, Clock, Inputs, Maintenance, Scope, Smp, Stale, Status, Sweep, Verdicts,
};

/// A CPU's data and unified caches: the first `count` entries of the array.
pub type Levels = ([CacheLevel; MAX_LEVELS], usize);

/// What the run gathered for the verdicts besides the sweep.
#[derive(Clone, Copy, Debug, Default)]
pub struct Gathered {
    /// The no-maintenance demonstration.
    pub stale: Option<Stale>,
    /// The maintenance experiment.
    pub maintenance: Option<Maintenance>,
    /// The secondary CPUs.
    pub smp: Option<Smp>,
    /// PMCCNTR_EL0 against CNTVCT_EL0.
    pub clock: Option<Clock>,
    /// The hypervisor whose guest the firmware runs in, if one says so.
    pub hypervisor: Option<Hypervisor>,
}

/// The clock cross-check from a measured cycle rate: PMCCNTR_EL0 cycles over one second of
/// CNTVCT_EL0 (`timer_hz` ticks).
pub fn clock(cycle_hz: Option<u64>, timer_hz: u64) -> Option<Clock> {
    cycle_hz.map(|cycles| Clock {
        cycles,
        ticks: timer_hz,
        timer_hz,
    })
}

/// A sweep judged: its verdicts and what its latency curve showed (the system cache's
/// finding and the DRAM point), printed later by [`print`].
#[derive(Clone, Copy, Debug)]
pub struct Judged {
    /// The verdicts, in table order.
    pub verdicts: Verdicts,
    /// The finding and the DRAM point, when the sweep measured anything.
    pub finding: Option<(Finding, Option<Point>)>,
    /// The cluster judged, when it is another cluster's than the boot CPU's.
    pub cluster: Option<u16>,
}

/// Judges the boot CPU's sweep (`dyn`: the results table, or no sweep at all) with what the
/// run gathered. Not inlined: the verdicts take a few KiB of stack only while judged.
#[inline(never)]
pub fn judge(sweep: &dyn Sweep, gathered: &Gathered) -> Judged {
    let id = cpu::cpu_id();
    judge_on(sweep, gathered, (None, id.midr, cpu::cache_levels()))
}

/// [`judge`] for the sweep of the CPU with MIDR `midr` and caches `levels`, of cluster
/// `cluster` when it is another cluster's than the boot CPU's.
#[inline(never)]
pub fn judge_on(
    sweep: &dyn Sweep,
    gathered: &Gathered,
    (cluster, midr, (levels, count)): (Option<u16>, u64, Levels),
) -> Judged {
    let (sctlr, _, _) = mmu::registers();
    let inputs = Inputs {
        emulated: run::emulated(),
        sctlr_c: sctlr & (1 << 2) != 0,
        sctlr_i: sctlr & (1 << 12) != 0,
        caches: levels.get(..count).unwrap_or(&[]),
        sweep,
        stale: gathered.stale,
        maintenance: gathered.maintenance,
        smp: gathered.smp,
        smp_bits: cpu::smp_bits(),
        clock: gathered.clock,
        core: mairbench_core::cores::by_midr(midr),
        revision: Some(Revision::of(midr)),
        hypervisor: gathered.hypervisor,
    };
    // Where DRAM starts: past the caches CLIDR reports, and any the latency curve shows.
    let finding = (!sweep.sizes().is_empty()).then(|| {
        let finding = Finding::of(sweep, inputs.caches, inputs.emulated);
        (
            finding,
            finding.point_of(sweep, Kernel::ReadLdp, memtype::NORMAL_WB),
        )
    });
    Judged {
        verdicts: verdict::judge(&inputs),
        finding,
        cluster,
    }
}

/// Prints a judged sweep: the finding's line (and, for the boot CPU's, its record), then the
/// verdict block; a `fail` fails the run. Another cluster's block holds only the verdicts
/// judged per cluster (the machine's were judged once), and its records carry the cluster.
#[inline(never)]
pub fn print(judged: &Judged) {
    let cluster = judged.cluster;
    if let Some((finding, dram)) = &judged.finding {
        say!("");
        say!("{}", finding.line(*dram));
        // One system-cache record: the boot CPU's sweep's (a system cache is the machine's).
        if cluster.is_none() {
            let _ = finding.record(&mut Console, *dram);
        }
    }
    let judged_here = || {
        judged
            .verdicts
            .iter()
            .filter(move |v| cluster.is_none() || v.name.scope() == Scope::Core)
    };
    let count = |status| judged_here().filter(|v| v.status == status).count();
    say!("");
    say!(
        "{}verdicts: {} pass, {} warn, {} fail, {} n/a{}",
        Cluster(cluster),
        count(Status::Pass),
        count(Status::Warn),
        count(Status::Fail),
        count(Status::NotApplicable),
        if run::emulated() {
            " (emulated: QEMU models no caches, so timing and PMU verdicts are n/a)"
        } else {
            ""
        }
    );
    for v in judged_here() {
        say!("  {v}");
        if let Some(note) = v.core_note {
            say!("    core: {note}");
        }
        let _ = v.record_on(&mut Console, cluster);
        run::verdict(v.name.id(), v.status);
    }
}

/// `cluster N ` before another cluster's verdict line; nothing for the boot CPU's.
struct Cluster(Option<u16>);

impl core::fmt::Display for Cluster {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.0 {
            // As a u64: the one integer Display in the image (a u16 brings its own).
            Some(c) => write!(f, "cluster {} ", u64::from(c)),
            None => Ok(()),
        }
    }
}
