//! Every cluster of a big.LITTLE board: the clusters of the device tree's `cpu-map` (else of
//! the CPUs' MPIDR affinity) merged with what each running CPU read of itself (MIDR_EL1, its
//! caches), a `cluster` record each, then the sweep and its verdicts again on one CPU of each
//! cluster the boot CPU is not in (`mairbench_core::topology` decides the clusters and their
//! representatives).

use crate::arch::smp::start;
use crate::arch::{cpu, global};
use crate::bench::engine::Engine;
use crate::bench::Remote;
use crate::cell::Or;
use crate::console::Console;
use crate::core_to_core::{self, MAX_MATRIX_CPUS};
use crate::cpus::Cores;
use crate::memory::Memory;
use crate::verdicts::{self, Gathered};
use crate::{run, say};
use mairbench_core::bootargs::Options;
use mairbench_core::format::Bytes;
use mairbench_core::platform::{Platform, Tables};
use mairbench_core::record::Record;
use mairbench_core::results::Results;
use mairbench_core::schema;
use mairbench_core::topology::{Caches, Cluster, Problem, Report, Reports, Topology};

/// What the running CPUs said of themselves: the boot CPU's report, then each started
/// secondary's (as it wrote it before its hello).
struct Running<'c> {
    boot: Report,
    cores: &'c Cores,
}

impl Reports for Running<'_> {
    fn count(&self) -> usize {
        1 + self.cores.blocks().len()
    }

    fn report(&self, i: usize) -> Option<Report> {
        let Some(i) = i.checked_sub(1) else {
            return Some(self.boot);
        };
        let up = start::online(*self.cores.blocks().get(i)?)?;
        Some(Report {
            mpidr: up.mpidr,
            midr: up.midr,
            caches: up.caches,
        })
    }
}

/// The stack block of the running secondary CPU `mpidr` (affinity), if one is.
fn block_of(cores: &Cores, mpidr: u64) -> Option<usize> {
    cores
        .blocks()
        .iter()
        .copied()
        .find(|&b| start::online(b).is_some_and(|up| up.mpidr == mpidr & start::AFFINITY))
}

/// The clusters the tables describe: ACPI's PPTT and MADT where ACPI described the machine
/// (read now, while the MMU is off: the firmware does not map them), else the device tree.
/// Kept in the image's BSS (`None` if that place was taken already).
#[inline(never)] // the topology is built in this frame, not in main's
pub fn tables(
    platform: &Platform<'static>,
    dtb: Option<&'static [u8]>,
) -> Option<&'static Topology<'static>> {
    let topology = match (platform.tables, platform.acpi.madt, dtb) {
        (Tables::Acpi, Some(madt), _) => Topology::from_acpi(platform.acpi.pptt, madt),
        (_, _, Some(dtb)) => Topology::from_dtb(dtb),
        _ => Topology::none(),
    };
    Some(global::topology_store()?.write(topology))
}

/// Finds the clusters (`tables` merged with what the running CPUs report), reports them, and sweeps and judges each on its representative when
/// it is not the boot CPU's; `results` is the verdicts' store (reset per sweep).
#[inline(never)] // the topologies' frames are on the stack only during the call
pub fn run(
    tables: &Topology<'static>,
    cores: &Cores,
    mem: &Memory,
    options: &Options,
    results: &mut Results,
    gathered: &Gathered,
) {
    let id = cpu::cpu_id();
    let levels = cpu::cache_levels();
    let running = Running {
        boot: Report {
            mpidr: id.mpidr,
            midr: id.midr,
            caches: Caches::from(levels),
        },
        cores,
    };
    let topology = tables.merge_from(&running);
    let boot = topology.member(id.mpidr).and_then(|m| m.cluster);
    say!("");
    say!(
        "clusters: {} (from {}); the sweep above ran on the boot CPU {:#x}, cluster {}",
        topology.clusters().len(),
        topology.source.name(),
        id.mpidr & start::AFFINITY,
        Or(boot)
    );
    for p in topology.problems.iter() {
        // CPUs beyond the cap were named when the CPUs started.
        if p != Problem::TooManyCpus {
            run::warn("clusters");
        }
        say!("clusters: {p}");
    }
    if topology.clusters_beyond_cap() > 0 {
        run::warn("clusters");
        say!(
            "clusters: {} more clusters ({} CPUs) beyond the firmware's {}: not swept",
            topology.clusters_beyond_cap(),
            topology.cpus_outside_clusters(),
            mairbench_core::topology::MAX_CLUSTERS
        );
    }
    for (i, c) in topology.clusters().iter().enumerate() {
        let block = block_of(cores, c.representative);
        let role = match (Some(i) == boot, block) {
            (true, _) => "boot",
            (false, Some(_)) => "swept",
            (false, None) => "not-running",
        };
        describe(i, c, role, &topology);
    }
    // The matrix's members: of the boot CPU and then the running secondaries, the first
    // MAX_MATRIX_CPUS, those whose MPIDR is known.
    let mut members = [core_to_core::Member {
        block: None,
        mpidr: 0,
        cluster: None,
    }; MAX_MATRIX_CPUS];
    let mut count = 0;
    let blocks = cores.blocks().iter().map(|&b| Some(b));
    for block in core::iter::once(None).chain(blocks).take(MAX_MATRIX_CPUS) {
        let mpidr = match block {
            None => Some(id.mpidr & start::AFFINITY),
            Some(b) => start::online(b).map(|up| up.mpidr),
        };
        if let (Some(mpidr), Some(slot)) = (mpidr, members.get_mut(count)) {
            *slot = core_to_core::Member {
                block,
                mpidr,
                cluster: topology.member(mpidr).and_then(|m| m.cluster),
            };
            count += 1;
        }
    }
    // `count` fits (`get`, not indexing, which adds a panic).
    core_to_core::run(members.get(..count).unwrap_or_default(), cores.count() + 1);
    for (i, c) in topology.clusters().iter().enumerate() {
        let (Some(block), false) = (block_of(cores, c.representative), Some(i) == boot) else {
            continue;
        };
        let remote = Remote {
            block,
            mpidr: c.representative,
            cluster: i as u16,
        };
        let caches = c.caches.unwrap_or(Caches::NONE);
        say!("");
        say!(
            "cluster {i}: the sweep on CPU {:#x} ({}), as the boot CPU's above",
            c.representative,
            c.compatible.unwrap_or("no compatible")
        );
        let on = Some((remote, &caches));
        let mut engine = Engine::on(mem, options, (false, None), &mut *results, on);
        engine.run();
        let levels = caches.as_levels();
        let own = Gathered {
            hypervisor: gathered.hypervisor,
            ..Gathered::default()
        };
        let cluster = (Some(remote.cluster), c.midr.unwrap_or(0), levels);
        verdicts::print(&verdicts::judge_on(engine.results(), &own, cluster));
    }
}

/// Cluster `i`'s line and `cluster` record; `role`: `boot` (the boot CPU's, swept above),
/// `swept` (swept below on its representative) or `not-running` (no CPU of it started).
fn describe(i: usize, c: &Cluster<'_>, role: &str, topology: &Topology<'_>) {
    let last = c
        .caches
        .as_ref()
        .and_then(|caches| caches.levels().last().copied());
    say!(
        "  cluster {i}: {} CPUs from {:#x}, {}, capacity {}, MIDR {:#x}, last cache {}: {role}",
        c.cpus,
        c.representative,
        c.compatible.unwrap_or("no compatible"),
        Or(c.capacity.map(u64::from)),
        c.midr.unwrap_or(0),
        Or(last.map(|l| Bytes(l.size())))
    );
    let mut out = Console;
    let rec = Record::new(&mut out, &schema::CLUSTER)
        .u64("cluster", i as u64)
        .u64("group", c.group.into())
        .u64("cpus", c.cpus as u64)
        .hex("representative", c.representative)
        .opt_u64("capacity", c.capacity.map(u64::from))
        .opt_str("compatible", c.compatible);
    let rec = match c.midr {
        Some(m) => rec.hex("midr", m),
        None => rec.null("midr"),
    };
    let _ = rec
        .opt_u64("last_cache", last.map(|l| l.size()))
        .str("source", topology.source.name())
        .str("role", role)
        .finish();
}
