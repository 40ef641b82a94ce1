//! Clusters from device trees, ACPI tables and run-time reports (`mairbench_core::topology`).
//!
//! Synthetic trees are built token by token (`common::DtBuilder`); those shaped like a real
//! SoC say which Linux source they follow. Synthetic PPTTs follow the ACPI 6.3 layout
//! (`acpi/tables.rs`). The real QEMU tables are those of `tests/acpi/`; the real boards' trees
//! are Linux's, from Debian's arm64 kernel package (`qemu/dtbs`), and every expected value
//! below was read from the DTB itself.

mod common;
#[path = "acpi/tables.rs"]
mod tables;

use common::{board, minimal_tree, DtBuilder};
use mairbench_core::cache::{CacheLevel, CacheType};
use mairbench_core::platform::discover;
use mairbench_core::topology::{
    Caches, Cluster, Problem, Problems, Report, Source, Topology, MAX_CLUSTERS,
};
use tables::*;

fn problems(list: &[Problem]) -> Problems {
    let mut set = Problems::NONE;
    list.iter().for_each(|&p| set.insert(p));
    set
}

/// One CPU node of `/cpus` (`#address-cells = <1>`).
struct Cpu<'a> {
    reg: u32,
    compatible: &'a str,
    capacity: Option<u32>,
    phandle: Option<u32>,
}

fn cpu(reg: u32, compatible: &str, capacity: u32, phandle: u32) -> Cpu<'_> {
    Cpu {
        reg,
        compatible,
        capacity: Some(capacity),
        phandle: Some(phandle),
    }
}

/// A tree whose `/cpus` holds `cpus`, then what `map` adds inside `/cpus` (a cpu-map).
fn tree(cpus: &[Cpu<'_>], map: impl FnOnce(&mut DtBuilder)) -> Vec<u8> {
    minimal_tree("/uart@1c090000", |b| {
        b.begin("cpus")
            .cells("#address-cells", &[1])
            .cells("#size-cells", &[0]);
        for c in cpus {
            b.begin(&format!("cpu@{:x}", c.reg))
                .str("device_type", "cpu")
                .str("compatible", c.compatible)
                .cells("reg", &[c.reg])
                .str("enable-method", "psci");
            if let Some(capacity) = c.capacity {
                b.cells("capacity-dmips-mhz", &[capacity]);
            }
            if let Some(phandle) = c.phandle {
                b.cells("phandle", &[phandle]);
            }
            b.end();
        }
        map(b);
        b.end();
    })
}

/// `cpu-map { clusterN { coreM { cpu = <&phandle>; }; }; }` with these clusters of phandles.
fn cpu_map(b: &mut DtBuilder, clusters: &[&[u32]]) {
    b.begin("cpu-map");
    for (i, cores) in clusters.iter().enumerate() {
        b.begin(&format!("cluster{i}"));
        for (j, &phandle) in cores.iter().enumerate() {
            b.begin(&format!("core{j}")).cells("cpu", &[phandle]).end();
        }
        b.end();
    }
    b.end();
}

/// A cluster as (CPUs, representative, compatible, capacity, members).
type Shape<S> = (usize, u64, Option<S>, Option<u32>, Vec<u64>);

/// Each cluster's [`Shape`], checking its count and representative against its members.
fn shape<'a>(t: &'a Topology<'_>) -> Vec<Shape<&'a str>> {
    t.clusters()
        .iter()
        .enumerate()
        .map(|(i, c)| {
            let members: Vec<u64> = t.members(i).collect();
            assert_eq!(members.len(), c.cpus, "cluster {i}'s count");
            assert_eq!(Some(&c.representative), members.iter().min(), "cluster {i}");
            (c.cpus, c.representative, c.compatible, c.capacity, members)
        })
        .collect()
}

/// The RK3588's CPUs as Linux's `arch/arm64/boot/dts/rockchip/rk3588s.dtsi` (mainline since
/// 6.2) has them: four Cortex-A55 (`reg = <0x0>` to `<0x300>`, `capacity-dmips-mhz = <530>`)
/// and four Cortex-A76 (`<0x400>` to `<0x700>`, 1024), one DynamIQ complex with MPIDR.MT
/// numbering; its cpu-map puts the A55s in `cluster0` and the A76s in `cluster1` (b0, b1) and
/// `cluster2` (b2, b3), which have their own clocks (`SCMI_CLK_CPUB01`, `SCMI_CLK_CPUB23`).
fn rk3588_cpus() -> Vec<Cpu<'static>> {
    (0..8)
        .map(|i| {
            let (compatible, capacity) = if i < 4 {
                ("arm,cortex-a55", 530)
            } else {
                ("arm,cortex-a76", 1024)
            };
            cpu(i << 8, compatible, capacity, 10 + i)
        })
        .collect()
}

#[test]
fn an_rk3588_shaped_tree_gives_its_three_cpu_map_clusters() {
    let dtb = tree(&rk3588_cpus(), |b| {
        cpu_map(b, &[&[10, 11, 12, 13], &[14, 15], &[16, 17]])
    });
    let t = Topology::from_dtb(&dtb);
    assert_eq!(t.source, Source::CpuMap);
    assert_eq!(t.problems, Problems::NONE);
    let a55 = Some("arm,cortex-a55");
    let a76 = Some("arm,cortex-a76");
    assert_eq!(
        shape(&t),
        [
            (4, 0x0, a55, Some(530), vec![0x0, 0x100, 0x200, 0x300]),
            (2, 0x400, a76, Some(1024), vec![0x400, 0x500]),
            (2, 0x600, a76, Some(1024), vec![0x600, 0x700]),
        ]
    );
    let groups: Vec<u16> = t.clusters().iter().map(|c| c.group).collect();
    assert_eq!(groups, [0, 1, 2]);
}

#[test]
fn without_a_cpu_map_dynamiq_numbering_groups_by_aff2_and_splits_by_core_type() {
    // Every Aff0 is 0: Aff1 numbers the cores, so the eight are one group (Aff2 = 0), which
    // the compatible strings and capacities split into the two core types.
    let dtb = tree(&rk3588_cpus(), |_| {});
    let t = Topology::from_dtb(&dtb);
    assert_eq!(t.source, Source::Affinity);
    assert_eq!(t.problems, Problems::NONE);
    let a55 = Some("arm,cortex-a55");
    let a76 = Some("arm,cortex-a76");
    assert_eq!(
        shape(&t),
        [
            (4, 0x0, a55, Some(530), vec![0x0, 0x100, 0x200, 0x300]),
            (4, 0x400, a76, Some(1024), vec![0x400, 0x500, 0x600, 0x700]),
        ]
    );
    assert!(t.clusters().iter().all(|c| c.group == 0));
}

#[test]
fn without_a_cpu_map_classic_numbering_groups_by_aff1() {
    // RK3399-like: Aff0 numbers the cores, Aff1 the clusters.
    let cpus: Vec<_> = [0, 1, 2, 3, 0x100, 0x101]
        .into_iter()
        .map(|r| cpu(r, "arm,armv8", 1024, r + 1))
        .collect();
    let dtb = tree(&cpus, |_| {});
    let t = Topology::from_dtb(&dtb);
    assert_eq!(t.source, Source::Affinity);
    let members: Vec<Vec<u64>> = shape(&t).into_iter().map(|s| s.4).collect();
    assert_eq!(members, [vec![0, 1, 2, 3], vec![0x100, 0x101]]);
}

#[test]
fn one_dynamiq_cluster_of_two_core_types_gives_two_clusters_of_one_group() {
    // As Linux's Qualcomm SM8350 trees do: cluster0 holds the A55s, A78s and the X1.
    let mut cpus: Vec<_> = (0..4)
        .map(|i| cpu(i << 8, "arm,cortex-a55", 0, i + 1))
        .collect();
    cpus.extend((4..8).map(|i| cpu(i << 8, "arm,cortex-a78", 0, i + 1)));
    for c in &mut cpus {
        c.capacity = None;
    }
    let dtb = tree(&cpus, |b| cpu_map(b, &[&[1, 2, 3, 4, 5, 6, 7, 8]]));
    let t = Topology::from_dtb(&dtb);
    assert_eq!(t.source, Source::CpuMap);
    let s = shape(&t);
    assert_eq!(s.len(), 2);
    assert_eq!(
        (s[0].0, s[0].1, s[0].2, s[0].3),
        (4, 0, Some("arm,cortex-a55"), None)
    );
    assert_eq!((s[1].0, s[1].1, s[1].2), (4, 0x400, Some("arm,cortex-a78")));
    assert!(t.clusters().iter().all(|c| c.group == 0));
}

#[test]
fn sockets_nested_clusters_and_threads_are_followed() {
    let cpus: Vec<_> = [0x0, 0x1, 0x100, 0x101, 0x1_0000, 0x1_0001]
        .into_iter()
        .enumerate()
        .map(|(i, r)| cpu(r, "arm,neoverse-n1", 1024, i as u32 + 1))
        .collect();
    let dtb = tree(&cpus, |b| {
        b.begin("cpu-map");
        b.begin("socket0").begin("cluster0");
        b.begin("cluster0");
        b.begin("core0").cells("cpu", &[1]).end();
        b.begin("core1").cells("cpu", &[2]).end();
        b.end();
        b.begin("cluster1");
        b.begin("core0").cells("cpu", &[3]).end();
        b.begin("core1").cells("cpu", &[4]).end();
        b.end();
        b.end().end();
        // One core of two threads, in a socket of its own.
        b.begin("socket1").begin("cluster0").begin("core0");
        b.begin("thread0").cells("cpu", &[5]).end();
        b.begin("thread1").cells("cpu", &[6]).end();
        b.end().end().end();
        b.end();
    });
    let t = Topology::from_dtb(&dtb);
    assert_eq!(t.source, Source::CpuMap);
    assert_eq!(t.problems, Problems::NONE);
    let members: Vec<Vec<u64>> = shape(&t).into_iter().map(|s| s.4).collect();
    assert_eq!(
        members,
        [vec![0x0, 0x1], vec![0x100, 0x101], vec![0x1_0000, 0x1_0001]]
    );
}

#[test]
fn a_missing_phandle_is_named_and_its_cpu_grouped_by_affinity() {
    let cpus = [
        cpu(0x0, "arm,cortex-a53", 485, 1),
        cpu(0x1, "arm,cortex-a53", 485, 2),
        cpu(0x100, "arm,cortex-a72", 1024, 3),
        cpu(0x101, "arm,cortex-a72", 1024, 4),
    ];
    // cluster1 names phandle 9, which no node has: cpu@101 is left out.
    let dtb = tree(&cpus, |b| cpu_map(b, &[&[1, 2], &[3, 9]]));
    let t = Topology::from_dtb(&dtb);
    assert_eq!(t.source, Source::CpuMap);
    assert_eq!(
        t.problems,
        problems(&[Problem::CpuMapPhandle, Problem::CpuMapIncomplete])
    );
    // cpu@101 gets a group of its own (after the cpu-map's two), not cpu@100's.
    let s = shape(&t);
    let members: Vec<Vec<u64>> = s.iter().map(|s| s.4.clone()).collect();
    assert_eq!(members, [vec![0, 1], vec![0x100], vec![0x101]]);
    let groups: Vec<u16> = t.clusters().iter().map(|c| c.group).collect();
    assert_eq!(groups, [0, 1, 2]);
    // Never dropped: every CPU of /cpus is in a cluster.
    assert_eq!(t.cpus().len(), 4);
    assert_eq!(t.cpus_outside_clusters(), 0);
}

#[test]
fn a_phandle_to_another_node_is_not_followed() {
    // The cluster names itself (a loop if followed), and a core names the cpu-map.
    let cpus = [cpu(0, "arm,armv8", 1, 1), cpu(1, "arm,armv8", 1, 2)];
    let dtb = tree(&cpus, |b| {
        b.begin("cpu-map").cells("phandle", &[7]);
        b.begin("cluster0").cells("phandle", &[8]);
        b.begin("core0").cells("cpu", &[8]).end();
        b.begin("core1").cells("cpu", &[7]).end();
        b.begin("core2").cells("cpu", &[2]).end();
        b.end().end();
    });
    let t = Topology::from_dtb(&dtb);
    assert_eq!(
        t.problems,
        problems(&[Problem::CpuMapPhandle, Problem::CpuMapIncomplete])
    );
    let members: Vec<Vec<u64>> = shape(&t).into_iter().map(|s| s.4).collect();
    assert_eq!(members, [vec![0], vec![1]]);
    assert_eq!(t.cluster_of(1).unwrap().group, 0, "cpu@1 is the cpu-map's");
    assert_eq!(t.cluster_of(0).unwrap().group, 1, "cpu@0 by affinity");
}

#[test]
fn a_malformed_cpu_property_is_named() {
    let cpus = [cpu(0, "arm,armv8", 1, 1)];
    let dtb = tree(&cpus, |b| {
        b.begin("cpu-map").begin("cluster0");
        b.begin("core0").cells("cpu", &[1, 1]).end();
        b.end().end();
    });
    let t = Topology::from_dtb(&dtb);
    assert_eq!(
        t.problems,
        problems(&[Problem::CpuMapPhandle, Problem::CpuMapEmpty])
    );
    assert_eq!(t.source, Source::Affinity);
    assert_eq!(t.clusters().len(), 1);
}

#[test]
fn a_cpu_named_twice_keeps_its_first_place() {
    let cpus = [cpu(0, "arm,armv8", 1, 1), cpu(0x100, "arm,armv8", 1, 2)];
    let dtb = tree(&cpus, |b| cpu_map(b, &[&[1, 2], &[2]]));
    let t = Topology::from_dtb(&dtb);
    assert_eq!(t.problems, problems(&[Problem::CpuMapRepeated]));
    let members: Vec<Vec<u64>> = shape(&t).into_iter().map(|s| s.4).collect();
    assert_eq!(members, [vec![0, 0x100]]);
}

#[test]
fn odd_nesting_is_named_and_ignored() {
    let cpus: Vec<_> = (0..6).map(|i| cpu(i, "arm,armv8", 1, i + 1)).collect();
    let dtb = tree(&cpus, |b| {
        b.begin("cpu-map");
        b.begin("cluster0");
        b.begin("core0").cells("cpu", &[1]).end();
        // A thread outside a core, a cluster inside a core, a core inside a core, an unknown
        // name and a core without a cpu: all ignored.
        b.begin("thread0").cells("cpu", &[2]).end();
        b.begin("core1").cells("cpu", &[3]);
        b.begin("cluster0")
            .begin("core0")
            .cells("cpu", &[4])
            .end()
            .end();
        b.begin("core0").cells("cpu", &[5]).end();
        b.end();
        b.begin("widget0").cells("cpu", &[6]).end();
        b.begin("core2").end();
        b.begin("clusterX").end();
        b.end();
        b.end();
    });
    let t = Topology::from_dtb(&dtb);
    assert_eq!(
        t.problems,
        problems(&[Problem::CpuMapOdd, Problem::CpuMapIncomplete])
    );
    // cpu@0 and cpu@2 from the cpu-map (core1's own cpu: its children are no threads); the
    // rest by affinity (Aff0 numbers cores: one group of four).
    let t_members: Vec<Vec<u64>> = shape(&t).into_iter().map(|s| s.4).collect();
    assert_eq!(t_members, [vec![0, 2], vec![1, 3, 4, 5]]);
}

#[test]
fn a_core_with_both_a_cpu_and_threads_takes_its_threads() {
    let cpus: Vec<_> = (0..3).map(|i| cpu(i, "arm,armv8", 1, i + 1)).collect();
    let dtb = tree(&cpus, |b| {
        b.begin("cpu-map").begin("cluster0").begin("core0");
        b.cells("cpu", &[1]);
        b.begin("thread0").cells("cpu", &[2]).end();
        b.begin("thread1").cells("cpu", &[3]).end();
        b.end().end().end();
    });
    let t = Topology::from_dtb(&dtb);
    assert_eq!(
        t.problems,
        problems(&[Problem::CpuMapOdd, Problem::CpuMapIncomplete])
    );
    assert_eq!(t.cluster_of(1).unwrap().group, 0);
    assert_eq!(t.cluster_of(2).unwrap().group, 0);
    assert_eq!(t.cluster_of(0).unwrap().group, 1);
}

#[test]
fn nesting_deeper_than_the_cap_is_named() {
    let cpus = [cpu(0, "arm,armv8", 1, 1), cpu(1, "arm,armv8", 1, 2)];
    let dtb = tree(&cpus, |b| {
        b.begin("cpu-map");
        b.begin("cluster0").begin("core0").cells("cpu", &[1]).end();
        // Ten clusters deep.
        for _ in 0..10 {
            b.begin("cluster0");
        }
        b.begin("core0").cells("cpu", &[2]).end();
        for _ in 0..10 {
            b.end();
        }
        b.end();
        b.end();
    });
    let t = Topology::from_dtb(&dtb);
    assert_eq!(
        t.problems,
        problems(&[Problem::CpuMapTooDeep, Problem::CpuMapIncomplete])
    );
    assert_eq!(t.cpus().len(), 2);
    assert_eq!(t.cpus_outside_clusters(), 0);
}

#[test]
fn an_empty_cpu_map_falls_back_to_affinity() {
    let cpus = [
        cpu(0, "arm,armv8", 1, 1),
        cpu(1, "arm,armv8", 1, 2),
        cpu(0x100, "arm,armv8", 1, 3),
    ];
    let dtb = tree(&cpus, |b| {
        b.begin("cpu-map").end();
    });
    let t = Topology::from_dtb(&dtb);
    assert_eq!(t.source, Source::Affinity);
    assert_eq!(t.problems, problems(&[Problem::CpuMapEmpty]));
    assert_eq!(t.clusters().len(), 2);
}

#[test]
fn more_clusters_than_the_cap_are_counted_with_their_cpus() {
    // 20 clusters of two cores: 16 kept, 4 named.
    let cpus: Vec<_> = (0..40u32)
        .map(|i| cpu(((i / 2) << 8) | (i % 2), "arm,armv8", 1, i + 1))
        .collect();
    let groups: Vec<Vec<u32>> = (0..20u32).map(|c| vec![2 * c + 1, 2 * c + 2]).collect();
    let groups: Vec<&[u32]> = groups.iter().map(|g| g.as_slice()).collect();
    let dtb = tree(&cpus, |b| cpu_map(b, &groups));
    let t = Topology::from_dtb(&dtb);
    assert_eq!(t.problems, problems(&[Problem::TooManyClusters]));
    assert_eq!(t.clusters().len(), MAX_CLUSTERS);
    assert_eq!(t.clusters_beyond_cap(), 4);
    assert_eq!(t.cpus_outside_clusters(), 8);
    assert_eq!(t.cpus().len(), 40);
    assert_eq!(t.cpus_beyond_cap, 0);
}

#[test]
fn more_cpus_than_the_cap_are_counted_as_the_platform_counts_them() {
    let cpus: Vec<_> = (0..300u32)
        .map(|i| cpu(((i / 4) << 8) | (i % 4), "arm,armv8", 1, i + 1))
        .collect();
    let dtb = tree(&cpus, |_| {});
    let t = Topology::from_dtb(&dtb);
    let p = discover(Some(&dtb));
    assert!(t.problems.contains(Problem::TooManyCpus));
    assert!(t.problems.contains(Problem::TooManyClusters));
    assert_eq!(t.cpus().len(), p.cpus().len());
    assert_eq!(t.cpus_beyond_cap, p.cpus_beyond_cap);
    assert_eq!(t.cpus_beyond_cap, 44);
    // 64 groups of four kept CPUs: 16 clusters, 48 beyond.
    assert_eq!(t.clusters_beyond_cap(), 48);
    assert_eq!(t.cpus_outside_clusters(), 256 - 64);
}

#[test]
fn a_repeated_mpidr_is_named_once_kept_once() {
    let cpus = [cpu(0, "arm,armv8", 1, 1), cpu(0, "arm,armv8", 1, 2)];
    let dtb = tree(&cpus, |b| cpu_map(b, &[&[1, 2]]));
    let t = Topology::from_dtb(&dtb);
    assert_eq!(t.problems, problems(&[Problem::RepeatedCpu]));
    assert_eq!(t.cpus().len(), 1);
}

#[test]
fn no_tree_or_no_cpus_gives_no_cluster() {
    let t = Topology::from_dtb(b"not a device tree at all, not even a header");
    assert_eq!(t.problems, problems(&[Problem::Dtb]));
    assert_eq!(t.source, Source::None);
    assert!(t.clusters().is_empty());
    let dtb = minimal_tree("/uart@1c090000", |_| {});
    let t = Topology::from_dtb(&dtb);
    assert_eq!(t.problems, problems(&[Problem::NoCpus]));
    assert!(t.clusters().is_empty());
    // A message for every problem.
    assert!(Problem::ALL.iter().all(|p| !p.message().is_empty()));
}

// ACPI.

fn level(level: u8, kind: CacheType, size: u32, ways: u32) -> CacheLevel {
    CacheLevel {
        level,
        kind,
        line: 64,
        ways,
        sets: size / ways / 64,
    }
}

/// A PPTT shaped as the ACPI 6.3 specification draws one (5.2.29, "Processor hierarchy node
/// structure" and "Cache type structure"): a physical package with a shared L3, two clusters
/// with an L2 each, of 2 and 4 cores with private L1 instruction and data caches, each L1
/// data naming its cluster's L2 as next level and each L2 the L3. UIDs 0..=5.
fn two_clusters(revision: u8, leaf_flag: bool) -> Vec<u8> {
    let mut p = Pptt::default();
    let l3 = p.add(pptt_cache(2 << 20, 16, 64, PPTT_UNIFIED, 0));
    let package = p.add(pptt_node(PPTT_PACKAGE, 0, 0, &[l3]));
    let leaf = PPTT_ID_VALID | if leaf_flag { PPTT_LEAF } else { 0 };
    let mut uid = 0;
    for (cores, l1_size, l2_size) in [(2, 32 << 10, 256 << 10), (4, 64 << 10, 1 << 20)] {
        let l2 = p.add(pptt_cache(l2_size, 16, 64, PPTT_UNIFIED, l3));
        let cluster = p.add(pptt_node(0, package, 0, &[l2]));
        for _ in 0..cores {
            let l1d = p.add(pptt_cache(l1_size, 4, 64, PPTT_DATA, l2));
            let l1i = p.add(pptt_cache(l1_size, 4, 64, PPTT_INSTRUCTION, l2));
            p.add(pptt_node(leaf, cluster, uid, &[l1d, l1i]));
            uid += 1;
        }
    }
    p.table(revision)
}

/// A MADT of CPUs 0, 1 (cluster 0) and 0x100..=0x103, UIDs 0..=5.
fn two_clusters_madt() -> Vec<u8> {
    let mpidrs = [0x0, 0x1, 0x100, 0x101, 0x102, 0x103];
    let entries: Vec<_> = mpidrs
        .iter()
        .enumerate()
        .map(|(uid, &m)| gicc(uid as u32, m, ENABLED))
        .collect();
    madt(&entries)
}

fn assert_two_clusters(t: &Topology<'_>) {
    assert_eq!(t.source, Source::Pptt);
    let members: Vec<Vec<u64>> = shape(t).into_iter().map(|s| s.4).collect();
    assert_eq!(members, [vec![0, 1], vec![0x100, 0x101, 0x102, 0x103]]);
    let l3 = level(3, CacheType::Unified, 2 << 20, 16);
    let small = [
        level(1, CacheType::Data, 32 << 10, 4),
        level(2, CacheType::Unified, 256 << 10, 16),
        l3,
    ];
    let big = [
        level(1, CacheType::Data, 64 << 10, 4),
        level(2, CacheType::Unified, 1 << 20, 16),
        l3,
    ];
    let caches: Vec<_> = t.clusters().iter().map(|c| c.caches.unwrap()).collect();
    assert_eq!(caches, [Caches::new(&small), Caches::new(&big)]);
    assert_eq!(t.clusters()[0].group, 0);
    assert_eq!(t.clusters()[1].group, 1);
}

#[test]
fn a_pptt_of_two_clusters_of_two_and_four_cores_gives_them_with_their_caches() {
    let t = Topology::from_acpi(Some(&two_clusters(3, true)), &two_clusters_madt());
    assert_eq!(t.problems, Problems::NONE);
    assert_two_clusters(&t);
}

#[test]
fn a_revision_1_pptt_finds_its_leaves_by_their_parents() {
    // ACPI 6.2 had no leaf flag: a leaf is a node no other names as parent.
    let t = Topology::from_acpi(Some(&two_clusters(1, false)), &two_clusters_madt());
    assert_eq!(t.problems, Problems::NONE);
    assert_two_clusters(&t);
    // From revision 2 the flag decides: without it, no leaf, all by affinity.
    let t = Topology::from_acpi(Some(&two_clusters(2, false)), &two_clusters_madt());
    assert_eq!(t.source, Source::Affinity);
    assert_eq!(t.problems, problems(&[Problem::PpttMissingCpu]));
}

#[test]
fn pptt_threads_belong_to_their_cores_cluster() {
    let mut p = Pptt::default();
    let cluster = p.add(pptt_node(PPTT_PACKAGE, 0, 0, &[]));
    for core in 0..2 {
        let c = p.add(pptt_node(0, cluster, 0, &[]));
        for thread in 0..2 {
            p.add(pptt_node(
                PPTT_ID_VALID | PPTT_LEAF | PPTT_THREAD,
                c,
                core * 2 + thread,
                &[],
            ));
        }
    }
    let m = madt(
        &(0..4)
            .map(|i| gicc(i, u64::from(i), ENABLED))
            .collect::<Vec<_>>(),
    );
    let t = Topology::from_acpi(Some(&p.table(3)), &m);
    assert_eq!(t.problems, Problems::NONE);
    let members: Vec<Vec<u64>> = shape(&t).into_iter().map(|s| s.4).collect();
    assert_eq!(members, [vec![0, 1, 2, 3]]);
    assert_eq!(t.clusters()[0].caches, None);
}

#[test]
fn a_truncated_pptt_keeps_what_it_holds() {
    let full = two_clusters(3, true);
    // The bytes end in the middle of the fourth core's node: the header's length is above
    // them, the last structure runs past them, and the CPUs after it are grouped by affinity.
    let cut = &full[..full.len() - 40];
    let t = Topology::from_acpi(Some(cut), &two_clusters_madt());
    assert_eq!(
        t.problems,
        problems(&[
            Problem::PpttTruncated,
            Problem::PpttStructure,
            Problem::PpttMissingCpu
        ])
    );
    assert_eq!(t.source, Source::Pptt);
    assert_eq!(t.cpus().len(), 6);
    assert_eq!(t.cpus_outside_clusters(), 0);
    // cpu 0x103 lost its leaf: it is in a group of its own, not cluster 1's.
    assert_ne!(
        t.cluster_of(0x103).unwrap().group,
        t.cluster_of(0x100).unwrap().group
    );
    assert_eq!(
        t.cluster_of(0x102).unwrap().group,
        t.cluster_of(0x100).unwrap().group
    );
    // Cut inside the header: not read at all.
    for len in [0, 4, 35] {
        let t = Topology::from_acpi(Some(&full[..len]), &two_clusters_madt());
        assert_eq!(t.problems, problems(&[Problem::PpttHeader]), "{len} bytes");
        assert_eq!(t.source, Source::Affinity);
        assert_eq!(
            t.clusters().len(),
            2,
            "by affinity: 0..=1 and 0x100..=0x103"
        );
    }
}

#[test]
fn a_pptt_of_another_signature_is_not_read() {
    let mut pptt = two_clusters(3, true);
    pptt[..4].copy_from_slice(b"PPTX");
    let t = Topology::from_acpi(Some(&pptt), &two_clusters_madt());
    assert_eq!(t.problems, problems(&[Problem::PpttHeader]));
    assert_eq!(t.source, Source::Affinity);
}

/// Where the structures of [`one_cluster_with_parent`] lie.
struct Offsets {
    l2: u32,
    cluster: u32,
    /// Core 1's own node.
    own: u32,
}

/// Two cores under one cluster that holds an L2, with the parent of core 1 chosen by
/// `parent`.
fn one_cluster_with_parent(parent: fn(Offsets) -> u32) -> Vec<u8> {
    let mut p = Pptt::default();
    let l2 = p.add(pptt_cache(1 << 20, 16, 64, PPTT_UNIFIED, 0));
    let cluster = p.add(pptt_node(0, 0, 0, &[l2]));
    p.add(pptt_node(PPTT_ID_VALID | PPTT_LEAF, cluster, 0, &[]));
    let own = p.next();
    let parent = parent(Offsets { l2, cluster, own });
    p.add(pptt_node(PPTT_ID_VALID | PPTT_LEAF, parent, 1, &[]));
    p.table(3)
}

fn two_cpus_madt() -> Vec<u8> {
    madt(&[gicc(0, 0, ENABLED), gicc(1, 1, ENABLED)])
}

#[test]
fn a_pptt_parent_out_of_bounds_or_not_a_node_is_named() {
    type Case = (&'static str, fn(Offsets) -> u32);
    let cases: [Case; 5] = [
        ("past the table", |_| 0x10_0000),
        ("in the header", |_| 8),
        ("a cache structure", |o| o.l2),
        ("inside the cluster's node", |o| o.cluster + 20),
        ("itself", |o| o.own),
    ];
    for (what, parent) in cases {
        let t = Topology::from_acpi(Some(&one_cluster_with_parent(parent)), &two_cpus_madt());
        assert_eq!(t.problems, problems(&[Problem::PpttParent]), "{what}");
        // CPU 1 is a group of its own (its core, with no parent); CPU 0 keeps its cluster
        // and its L2.
        assert_eq!(t.clusters().len(), 2, "{what}");
        assert_ne!(
            t.cluster_of(0).unwrap().group,
            t.cluster_of(1).unwrap().group
        );
        let l2 = [level(1, CacheType::Unified, 1 << 20, 16)];
        assert_eq!(
            t.cluster_of(0).unwrap().caches,
            Some(Caches::new(&l2)),
            "{what}"
        );
        assert_eq!(t.cluster_of(1).unwrap().caches, None, "{what}");
    }
    // The same table with a good parent.
    let t = Topology::from_acpi(
        Some(&one_cluster_with_parent(|o| o.cluster)),
        &two_cpus_madt(),
    );
    assert_eq!(t.problems, Problems::NONE);
    assert_eq!(t.clusters().len(), 1);
}

#[test]
fn pptt_parents_that_loop_are_named() {
    // Cluster A's parent is cluster B, B's is A: a CPU's cache walk goes round.
    let mut p = Pptt::default();
    let a = p.next();
    let b = a + 20;
    assert_eq!(p.add(pptt_node(0, b, 0, &[])), a);
    assert_eq!(p.add(pptt_node(0, a, 0, &[])), b);
    p.add(pptt_node(PPTT_ID_VALID | PPTT_LEAF, a, 0, &[]));
    let t = Topology::from_acpi(Some(&p.table(3)), &madt(&[gicc(0, 0, ENABLED)]));
    assert_eq!(t.problems, problems(&[Problem::PpttParent]));
    assert_eq!(t.clusters().len(), 1);
}

#[test]
fn pptt_caches_that_loop_or_point_nowhere_are_named() {
    // L1 -> L2 -> L1.
    let mut p = Pptt::default();
    let l1 = p.next();
    let l2 = l1 + 24;
    p.add(pptt_cache(32 << 10, 4, 64, PPTT_DATA, l2));
    p.add(pptt_cache(1 << 20, 16, 64, PPTT_UNIFIED, l1));
    p.add(pptt_node(PPTT_ID_VALID | PPTT_LEAF, 0, 0, &[l1]));
    let t = Topology::from_acpi(Some(&p.table(3)), &madt(&[gicc(0, 0, ENABLED)]));
    assert_eq!(t.problems, problems(&[Problem::PpttCache]));
    let want = [
        level(1, CacheType::Data, 32 << 10, 4),
        level(2, CacheType::Unified, 1 << 20, 16),
    ];
    assert_eq!(t.clusters()[0].caches, Some(Caches::new(&want)));

    // A private resource past the table, and one that is a processor node.
    let mut p = Pptt::default();
    let other = p.add(pptt_node(0, 0, 7, &[]));
    p.add(pptt_node(PPTT_ID_VALID | PPTT_LEAF, 0, 0, &[0xffff, other]));
    let t = Topology::from_acpi(Some(&p.table(3)), &madt(&[gicc(0, 0, ENABLED)]));
    assert_eq!(t.problems, problems(&[Problem::PpttCache]));
    assert_eq!(t.clusters()[0].caches, None);
}

#[test]
fn a_pptt_node_claiming_more_resources_than_it_holds_is_named() {
    let mut p = Pptt::default();
    let mut node = pptt_node(PPTT_ID_VALID | PPTT_LEAF, 0, 0, &[]);
    node[16..20].copy_from_slice(&1000u32.to_le_bytes());
    p.add(node);
    let t = Topology::from_acpi(Some(&p.table(3)), &madt(&[gicc(0, 0, ENABLED)]));
    assert_eq!(t.problems, problems(&[Problem::PpttStructure]));
    assert_eq!(t.clusters().len(), 1);
}

#[test]
fn pptt_structure_lengths_that_lie_are_named() {
    // A structure of length 0 ends the walk (and cannot loop it); one of length 8 claiming
    // type 0 is skipped.
    for (bad, want) in [(0u8, Problem::PpttStructure), (1, Problem::PpttStructure)] {
        let mut p = Pptt::default();
        p.add(pptt_node(PPTT_ID_VALID | PPTT_LEAF, 0, 0, &[]));
        let mut broken = pptt_node(PPTT_ID_VALID | PPTT_LEAF, 0, 1, &[]);
        broken[1] = bad;
        p.add(broken);
        let t = Topology::from_acpi(Some(&p.table(3)), &two_cpus_madt());
        assert_eq!(
            t.problems,
            problems(&[want, Problem::PpttMissingCpu]),
            "length {bad}"
        );
        assert_eq!(t.cpus().len(), 2);
    }
    let mut p = Pptt::default();
    p.add(vec![0, 8, 0, 0, 0, 0, 0, 0]);
    p.add(pptt_node(PPTT_ID_VALID | PPTT_LEAF, 0, 0, &[]));
    let t = Topology::from_acpi(Some(&p.table(3)), &madt(&[gicc(0, 0, ENABLED)]));
    assert_eq!(t.problems, problems(&[Problem::PpttStructure]));
    assert_eq!(t.source, Source::Pptt);
}

#[test]
fn two_pptt_leaves_of_one_id_keep_the_first() {
    let mut p = Pptt::default();
    let a = p.add(pptt_node(0, 0, 0, &[]));
    let b = p.add(pptt_node(0, 0, 0, &[]));
    p.add(pptt_node(PPTT_ID_VALID | PPTT_LEAF, a, 0, &[]));
    p.add(pptt_node(PPTT_ID_VALID | PPTT_LEAF, b, 0, &[]));
    p.add(pptt_node(PPTT_ID_VALID | PPTT_LEAF, b, 1, &[]));
    let t = Topology::from_acpi(Some(&p.table(3)), &two_cpus_madt());
    assert_eq!(t.problems, problems(&[Problem::PpttRepeated]));
    assert_ne!(
        t.cluster_of(0).unwrap().group,
        t.cluster_of(1).unwrap().group
    );
}

#[test]
fn a_pptt_with_too_many_structures_is_searched_no_further() {
    let mut p = Pptt::default();
    for _ in 0..5000 {
        p.add(pptt_node(0, 0, 99, &[]));
    }
    p.add(pptt_node(PPTT_ID_VALID | PPTT_LEAF, 0, 0, &[]));
    let t = Topology::from_acpi(Some(&p.table(3)), &madt(&[gicc(0, 0, ENABLED)]));
    assert_eq!(
        t.problems,
        problems(&[Problem::PpttTooMany, Problem::PpttMissingCpu])
    );
    assert_eq!(t.clusters().len(), 1);
}

#[test]
fn the_madt_gives_the_enabled_processors_with_their_uids() {
    let m = madt(&[
        gicd(),
        gicc(7, 0x100, ENABLED),
        gicc(8, 0x101, ONLINE_CAPABLE),
        gicc(9, 0x102, 0),
        gicc(10, 0x1_0000_0000, ENABLED), // Aff3 = 1: fine
        gicc(11, 0x8000_0000, ENABLED),   // bit 31: not an affinity field
    ]);
    let list: Vec<_> = mairbench_core::acpi::processors(&m)
        .map(|p| (p.uid, p.mpidr))
        .collect();
    assert_eq!(list, [(7, 0x100), (10, 0x1_0000_0000)]);
    // A MADT too short for its entries gives none, and so does a topology from it.
    assert_eq!(mairbench_core::acpi::processors(&m[..40]).count(), 0);
    let t = Topology::from_acpi(None, &m[..40]);
    assert_eq!(t.problems, problems(&[Problem::NoCpus]));
    // Two GICCs of one MPIDR: the first is kept.
    let m = madt(&[gicc(0, 0, ENABLED), gicc(1, 0, ENABLED)]);
    let t = Topology::from_acpi(None, &m);
    assert_eq!(t.problems, problems(&[Problem::RepeatedCpu]));
    assert_eq!(t.cpus().len(), 1);
}

#[test]
fn qemu_virts_real_pptt_is_one_package_of_its_cores() {
    // QEMU 10.0.2's PPTT for -smp 4 and -smp 20: a physical package whose leaves are the cores
    // directly (no cluster level), revision 2, no caches.
    for (name, cpus) in [("qemu-virt", 4), ("qemu-virt-el2-gicv3-20cpus", 20)] {
        let pptt = qemu_table(name, "PPTT");
        let m = qemu_table(name, "APIC");
        let t = Topology::from_acpi(Some(&pptt), &m);
        assert_eq!(t.problems, Problems::NONE, "{name}");
        assert_eq!(t.source, Source::Pptt, "{name}");
        let s = shape(&t);
        assert_eq!(s.len(), 1, "{name}");
        assert_eq!((s[0].0, s[0].1), (cpus, 0), "{name}");
        assert_eq!(t.clusters()[0].caches, None);
        // Its MPIDRs are 0..0xf and 0x100..0x103: by affinity alone, two groups.
        if cpus == 20 {
            let t = Topology::from_acpi(None, &m);
            assert_eq!(t.source, Source::Affinity);
            let members: Vec<Vec<u64>> = shape(&t).into_iter().map(|s| s.4).collect();
            assert_eq!(
                members,
                [(0..16).collect::<Vec<u64>>(), (0x100..0x104).collect()]
            );
        }
    }
}

// Run-time reports.

const A53: u64 = 0x410f_d034;
const A72: u64 = 0x410f_d082;
const A72_R1: u64 = 0x411f_d082;

fn caches(l1: u32, l2: u32) -> Caches {
    Caches::new(&[
        level(1, CacheType::Separate, l1, 4),
        level(2, CacheType::Unified, l2, 16),
    ])
}

fn report(mpidr: u64, midr: u64, caches: Caches) -> Report {
    // MPIDR_EL1 as read: bit 31 is RES1.
    Report {
        mpidr: mpidr | 0x8000_0000,
        midr,
        caches,
    }
}

fn rk3399() -> Vec<u8> {
    board("all/rockchip/rk3399-rockpro64.dtb")
}

#[test]
fn reports_of_every_cpu_confirm_the_clusters_and_give_their_midr() {
    let dtb = rk3399();
    let t = Topology::from_dtb(&dtb);
    let little = caches(32 << 10, 512 << 10);
    let big = caches(32 << 10, 1 << 20);
    let reports: Vec<_> = [(0, A53), (1, A53), (2, A53), (3, A53)]
        .into_iter()
        .map(|(m, midr)| report(m, midr, little))
        .chain([0x100, 0x101].map(|m| report(m, A72, big)))
        .collect();
    let merged = t.merge(&reports);
    assert!(merged.merged);
    assert_eq!(merged.source, Source::CpuMap);
    assert_eq!(merged.problems, Problems::NONE);
    let c = merged.clusters();
    assert_eq!(c.len(), 2);
    assert_eq!(
        (
            c[0].cpus,
            c[0].reported,
            c[0].representative,
            c[0].midr,
            c[0].capacity
        ),
        (4, 4, 0, Some(A53), Some(485))
    );
    assert_eq!(
        (
            c[1].cpus,
            c[1].reported,
            c[1].representative,
            c[1].midr,
            c[1].capacity
        ),
        (2, 2, 0x100, Some(A72), Some(1024))
    );
    assert_eq!(c[0].caches, Some(little));
    assert_eq!(c[1].caches, Some(big));
    assert_eq!(c[1].compatible, Some("arm,cortex-a72"));
    assert!(merged.cpus().iter().all(|m| m.reported));
}

#[test]
fn cpus_that_did_not_report_are_kept_apart_and_never_represent() {
    let dtb = rk3399();
    let t = Topology::from_dtb(&dtb);
    // cpu 0 and cpu 0x101 did not start.
    let little = caches(32 << 10, 512 << 10);
    let big = caches(32 << 10, 1 << 20);
    let reports = [
        report(1, A53, little),
        report(2, A53, little),
        report(3, A53, little),
        report(0x100, A72, big),
    ];
    let merged = t.merge(&reports);
    assert_eq!(merged.problems, Problems::NONE);
    let shape: Vec<_> = merged
        .clusters()
        .iter()
        .map(|c| (c.group, c.cpus, c.reported, c.representative, c.midr))
        .collect();
    assert_eq!(
        shape,
        [
            (0, 1, 0, 0x0, None),
            (0, 3, 3, 0x1, Some(A53)),
            (1, 1, 1, 0x100, Some(A72)),
            (1, 1, 0, 0x101, None),
        ]
    );
}

#[test]
fn reports_split_a_cluster_the_tables_could_not() {
    // One cpu-map cluster of five CPUs whose nodes say only "arm,armv8": two report a
    // Cortex-A53 and two a Cortex-A72 (variant aside), all four with the same caches, so the
    // part alone splits them; a fifth, the same part as the A72s but with another L2, is a
    // third kind.
    let cpus: Vec<_> = (0..5).map(|i| cpu(i, "arm,armv8", 1024, i + 1)).collect();
    let dtb = tree(&cpus, |b| cpu_map(b, &[&[1, 2, 3, 4, 5]]));
    let t = Topology::from_dtb(&dtb);
    assert_eq!(t.clusters().len(), 1);
    let same = caches(32 << 10, 1 << 20);
    let other = caches(32 << 10, 2 << 20);
    let merged = t.merge(&[
        report(3, A72, same),
        report(2, A72_R1, same),
        report(1, A53, same),
        report(0, A53, same),
        report(4, A72, other),
    ]);
    let members: Vec<Vec<u64>> = shape(&merged).into_iter().map(|s| s.4).collect();
    assert_eq!(members, [vec![0, 1], vec![2, 3], vec![4]]);
    let c = merged.clusters();
    assert!(c.iter().all(|c| c.group == 0));
    // The representative's own MIDR.
    assert_eq!(c[1].midr, Some(A72_R1));
    assert_eq!(c[2].caches, Some(other));
}

#[test]
fn unlisted_and_repeated_reports_are_named() {
    let dtb = rk3399();
    let t = Topology::from_dtb(&dtb);
    let little = caches(32 << 10, 512 << 10);
    let mt = 1 << 24;
    let merged = t.merge(&[
        report(0, A53, little),
        report(0, A72, little),
        // Two CPUs the tree does not list, MT set: Aff1 numbers their cores, so one group.
        report(mt | 0x1_0000, A53, little),
        report(mt | 0x1_0100, A53, little),
    ]);
    assert_eq!(
        merged.problems,
        problems(&[Problem::ReportUnlisted, Problem::ReportRepeated])
    );
    assert_eq!(merged.cluster_of(0).unwrap().midr, Some(A53));
    let extra = merged.cluster_of(0x1_0000).unwrap();
    assert_eq!((extra.cpus, extra.group, extra.compatible), (2, 2, None));
    assert_eq!(merged.cpus().len(), 8);
}

#[test]
fn reports_alone_make_clusters_by_affinity() {
    let little = caches(32 << 10, 512 << 10);
    let big = caches(32 << 10, 1 << 20);
    let merged = Topology::none().merge(&[
        report(0, A53, little),
        report(1, A53, little),
        report(0x100, A72, big),
    ]);
    assert_eq!(merged.source, Source::Affinity);
    assert_eq!(merged.problems, problems(&[Problem::ReportUnlisted]));
    let members: Vec<Vec<u64>> = shape(&merged).into_iter().map(|s| s.4).collect();
    assert_eq!(members, [vec![0, 1], vec![0x100]]);
}

#[test]
fn clusters_beyond_the_cap_stay_beyond_it_when_merged() {
    let cpus: Vec<_> = (0..40u32)
        .map(|i| cpu(((i / 2) << 8) | (i % 2), "arm,armv8", 1, i + 1))
        .collect();
    let dtb = tree(&cpus, |_| {});
    let t = Topology::from_dtb(&dtb);
    let reports: Vec<_> = t
        .cpus()
        .iter()
        .map(|m| report(m.mpidr, A72, caches(32 << 10, 1 << 20)))
        .collect();
    let merged = t.merge(&reports);
    assert_eq!(merged.clusters().len(), MAX_CLUSTERS);
    assert_eq!(merged.clusters_beyond_cap(), 4);
    assert_eq!(merged.cpus_outside_clusters(), 8);
    assert!(merged.cpus().iter().all(|m| m.reported));
    assert!(merged.clusters().iter().all(|c| c.reported == 2));
}

// Real boards.

fn clusters_of(name: &str) -> Vec<Shape<String>> {
    let dtb = board(name);
    let t = Topology::from_dtb(&dtb);
    assert_eq!(t.problems, Problems::NONE, "{name}");
    shape(&t)
        .into_iter()
        .map(|(n, rep, c, cap, m)| (n, rep, c.map(str::to_string), cap, m))
        .collect()
}

fn dtbs_of(vendor: &str, prefix: &str) -> Vec<String> {
    let dir = common::dtb_dir().join("all").join(vendor);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e} (run qemu/dtbs)", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(prefix) && n.ends_with(".dtb"))
        .collect();
    names.sort();
    names
}

#[test]
fn every_rk3399_board_has_four_little_a53s_and_two_big_a72s() {
    // rk3399.dtsi: cluster0 of cpu_l0..cpu_l3 (A53, capacity-dmips-mhz 485), cluster1 of
    // cpu_b0, cpu_b1 (A72, 1024).
    let names = dtbs_of("rockchip", "rk3399");
    assert!(names.len() >= 30, "{names:?}");
    for name in names {
        let c = clusters_of(&format!("all/rockchip/{name}"));
        let a53 = Some("arm,cortex-a53".to_string());
        let a72 = Some("arm,cortex-a72".to_string());
        assert_eq!(
            c,
            [
                (4, 0x0, a53, Some(485), vec![0, 1, 2, 3]),
                (2, 0x100, a72, Some(1024), vec![0x100, 0x101]),
            ],
            "{name}"
        );
    }
}

#[test]
fn the_khadas_vim3s_have_two_little_a53s_and_four_big_a73s() {
    // meson-g12b.dtsi (S922X and A311D): cluster0 of two A53 (capacity-dmips-mhz 592), cluster1
    // of four A73 (1024). The other G12B boards share it.
    let names = dtbs_of("amlogic", "meson-g12b-");
    for must in [
        "meson-g12b-s922x-khadas-vim3.dtb",
        "meson-g12b-a311d-khadas-vim3.dtb",
    ] {
        assert!(names.iter().any(|n| n == must), "{must} missing: {names:?}");
    }
    for name in names {
        let c = clusters_of(&format!("all/amlogic/{name}"));
        let a53 = Some("arm,cortex-a53".to_string());
        let a73 = Some("arm,cortex-a73".to_string());
        assert_eq!(
            c,
            [
                (2, 0x0, a53, Some(592), vec![0, 1]),
                (4, 0x100, a73, Some(1024), vec![0x100, 0x101, 0x102, 0x103]),
            ],
            "{name}"
        );
    }
}

#[test]
fn the_imx8qm_mek_of_linux_6_1_lists_only_its_a53_cluster() {
    // Debian 12's imx8qm.dtsi (Linux 6.1) has cpu@0..cpu@3, Cortex-A53, no cpu-map and no
    // capacity: the SoC's two A72s are not in the tree, so one cluster, by affinity.
    let dtb = board("all/freescale/imx8qm-mek.dtb");
    let t = Topology::from_dtb(&dtb);
    assert_eq!(t.source, Source::Affinity);
    assert_eq!(t.problems, Problems::NONE);
    assert_eq!(
        shape(&t),
        [(4, 0, Some("arm,cortex-a53"), None, vec![0, 1, 2, 3])]
    );
}

#[test]
fn rk3588_boards_if_the_package_has_them() {
    // Debian 12's Linux 6.1 predates rk3588s.dtsi (6.2): none there, which this says; with a
    // newer package, each must give the three clusters of the synthetic test above.
    let names = dtbs_of("rockchip", "rk3588");
    if names.is_empty() {
        println!("topology: no rockchip/rk3588*.dtb in this kernel package (Linux 6.1 has none)");
    }
    for name in names {
        let c = clusters_of(&format!("all/rockchip/{name}"));
        let reps: Vec<(usize, u64, Option<u32>)> = c.iter().map(|c| (c.0, c.1, c.3)).collect();
        assert_eq!(
            reps,
            [
                (4, 0, Some(530)),
                (2, 0x400, Some(1024)),
                (2, 0x600, Some(1024))
            ],
            "{name}"
        );
    }
}

#[test]
fn every_board_dtb_gives_clusters_that_hold_its_cpus() {
    let all = common::dtb_dir().join("all");
    let mut dtbs = Vec::new();
    for vendor in std::fs::read_dir(&all).unwrap_or_else(|e| panic!("{}: {e}", all.display())) {
        let vendor = vendor.unwrap().path();
        if vendor.is_dir() {
            for dtb in std::fs::read_dir(&vendor).unwrap() {
                let dtb = dtb.unwrap().path();
                if dtb.extension().is_some_and(|e| e == "dtb") {
                    dtbs.push(dtb);
                }
            }
        }
    }
    dtbs.sort();
    assert!(dtbs.len() > 500, "only {} board DTBs", dtbs.len());
    let (mut with_map, mut multi) = (0, 0);
    let mut panics = Vec::new();
    for path in &dtbs {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let blob = std::fs::read(path).unwrap();
        let Ok(t) = std::panic::catch_unwind(|| Topology::from_dtb(&blob)) else {
            panics.push(name);
            continue;
        };
        let p = discover(Some(&blob));
        // The CPUs are /cpus' CPU nodes, as the platform lists them, each in one cluster.
        let listed: Vec<u64> = p.cpus().iter().map(|c| c.mpidr).collect();
        let kept: Vec<u64> = t.cpus().iter().map(|m| m.mpidr).collect();
        assert_eq!(kept, listed, "{name}");
        assert_eq!(t.cpus_outside_clusters(), 0, "{name}");
        let total: usize = t.clusters().iter().map(|c: &Cluster<'_>| c.cpus).sum();
        assert_eq!(total, listed.len(), "{name}");
        shape(&t);
        let fdt = mairbench_core::fdt::Fdt::new(&blob).unwrap();
        if fdt.find_node("/cpus/cpu-map").is_some() {
            with_map += 1;
            assert!(!t.clusters().is_empty(), "{name}");
            assert_eq!(t.source, Source::CpuMap, "{name}: {:?}", t.problems);
        }
        assert_eq!(t.problems, Problems::NONE, "{name}");
        if t.clusters().len() > 1 {
            multi += 1;
        }
    }
    println!(
        "topology: {} board DTBs, {with_map} with a cpu-map, {multi} with more than one cluster",
        dtbs.len()
    );
    assert!(panics.is_empty(), "topology panicked on {panics:?}");
}

// Bad input at random.

/// xorshift64*: the cases are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// What every topology must be, whatever its input: each kept CPU in at most one cluster,
/// the clusters' counts and representatives their members', the CPUs in no cluster only when
/// the clusters are at the cap, and the CPUs those `expected` lists (in order), but for the
/// ones beyond the cap.
fn assert_consistent(case: &str, t: &Topology<'_>, expected: &[u64]) {
    let kept: Vec<u64> = t.cpus().iter().map(|m| m.mpidr).collect();
    let want: Vec<u64> = expected.iter().copied().take(256).collect();
    assert_eq!(kept, want, "{case}");
    assert_eq!(
        t.cpus_beyond_cap,
        expected.len().saturating_sub(256),
        "{case}"
    );
    for (i, c) in t.clusters().iter().enumerate() {
        let members: Vec<u64> = t.members(i).collect();
        assert_eq!(members.len(), c.cpus, "{case}: cluster {i}");
        assert_eq!(
            members.iter().min(),
            Some(&c.representative),
            "{case}: cluster {i}"
        );
    }
    if t.cpus_outside_clusters() > 0 {
        assert_eq!(t.clusters().len(), MAX_CLUSTERS, "{case}");
        assert!(t.problems.contains(Problem::TooManyClusters), "{case}");
        assert!(t.clusters_beyond_cap() > 0, "{case}");
    }
}

/// A random cpu-map node under a node of kind `parent`, at `depth`: names of every kind and
/// some of none, `cpu`s of the CPUs' phandles, of others, malformed or none.
fn random_node(b: &mut DtBuilder, rng: &mut Rng, depth: usize, cpus: u32) {
    const NAMES: [&str; 6] = ["socket", "cluster", "core", "thread", "widget", "cluster"];
    let name = NAMES[rng.below(NAMES.len())];
    b.begin(&format!("{name}{}", rng.below(3)));
    match rng.below(6) {
        0..=2 => {
            b.cells("cpu", &[1 + rng.below(cpus as usize + 2) as u32]);
        }
        3 => {
            b.cells("cpu", &[1, 2]);
        }
        4 => {
            b.cells("phandle", &[100 + rng.below(4) as u32]);
            b.cells("cpu", &[100 + rng.below(4) as u32]);
        }
        _ => {}
    }
    // Up to ten levels: past the reader's eight.
    if depth < 10 {
        for _ in 0..rng.below(3) {
            random_node(b, rng, depth + 1, cpus);
        }
    }
    b.end();
}

#[test]
fn random_cpu_maps_never_panic_and_keep_every_cpu() {
    let mut rng = Rng(0x7090_1091);
    let mut problems_seen = Problems::NONE;
    for case in 0..2000 {
        let n = 1 + rng.below(24) as u32;
        let cpus: Vec<_> = (0..n)
            .map(|i| {
                let reg = match rng.below(3) {
                    0 => i,
                    1 => i << 8,
                    _ => ((i / 4) << 8) | (i % 4),
                };
                cpu(
                    reg,
                    ["arm,cortex-a53", "arm,cortex-a72"][rng.below(2)],
                    1,
                    i + 1,
                )
            })
            .collect();
        let dtb = tree(&cpus, |b| {
            b.begin("cpu-map");
            for _ in 0..rng.below(5) {
                random_node(b, &mut rng, 1, n);
            }
            b.end();
        });
        let name = format!("case {case}");
        let t = std::panic::catch_unwind(|| Topology::from_dtb(&dtb))
            .unwrap_or_else(|_| panic!("{name}: from_dtb panicked"));
        // The platform's CPUs, a repeated MPIDR once.
        let mut expected: Vec<u64> = Vec::new();
        for c in discover(Some(&dtb)).cpus() {
            if expected.contains(&c.mpidr) {
                assert!(t.problems.contains(Problem::RepeatedCpu), "{name}");
            } else {
                expected.push(c.mpidr);
            }
        }
        assert_consistent(&name, &t, &expected);
        assert!(!t.clusters().is_empty(), "{name}");
        t.problems.iter().for_each(|p| problems_seen.insert(p));
    }
    // The cases reach every cpu-map problem.
    for p in [
        Problem::CpuMapOdd,
        Problem::CpuMapTooDeep,
        Problem::CpuMapPhandle,
        Problem::CpuMapRepeated,
        Problem::CpuMapEmpty,
        Problem::CpuMapIncomplete,
        Problem::RepeatedCpu,
    ] {
        assert!(problems_seen.contains(p), "{p:?} never seen");
    }
}

/// Every offset of a 4-byte field a PPTT parser follows in `table`: nodes' parents and
/// resources, caches' next levels.
fn offset_fields(table: &[u8]) -> Vec<usize> {
    let mut at = 36;
    let mut fields = Vec::new();
    while at + 2 <= table.len() && table[at + 1] >= 2 && at + table[at + 1] as usize <= table.len()
    {
        let len = table[at + 1] as usize;
        fields.push(at + 8);
        if table[at] == 0 {
            fields.extend((20..len).step_by(4).map(|r| at + r));
        }
        at += len;
    }
    fields
}

#[test]
fn corrupted_pptts_never_panic_and_keep_every_processor() {
    let tables = [
        ("spec-shaped", two_clusters(3, true), two_clusters_madt()),
        (
            "spec-shaped, revision 1",
            two_clusters(1, false),
            two_clusters_madt(),
        ),
        (
            "qemu 20 cpus",
            qemu_table("qemu-virt-el2-gicv3-20cpus", "PPTT"),
            qemu_table("qemu-virt-el2-gicv3-20cpus", "APIC"),
        ),
    ];
    let mut rng = Rng(0x0505_7777);
    let mut slowest = std::time::Duration::ZERO;
    for (name, pptt, m) in &tables {
        let expected: Vec<u64> = mairbench_core::acpi::processors(m)
            .map(|p| p.mpidr)
            .collect();
        let fields = offset_fields(pptt);
        let mut cases: Vec<(String, Vec<u8>)> = (0..=pptt.len())
            .map(|len| (format!("{name} cut to {len}"), pptt[..len].to_vec()))
            .collect();
        for i in 0..3000 {
            let mut t = pptt.clone();
            for _ in 0..1 + rng.below(4) {
                if rng.below(2) == 0 {
                    // Steer an offset: 0, all ones, past the end, or anywhere in the table.
                    let at = fields[rng.below(fields.len())];
                    let to = match rng.below(4) {
                        0 => 0,
                        1 => u32::MAX,
                        2 => t.len() as u32 + rng.below(8) as u32,
                        _ => rng.below(t.len()) as u32,
                    };
                    t[at..at + 4].copy_from_slice(&to.to_le_bytes());
                } else {
                    let at = 36 + rng.below(t.len() - 36);
                    t[at] = rng.next() as u8;
                }
            }
            cases.push((format!("{name} mutation {i}"), t));
        }
        for (case, bytes) in &cases {
            let start = std::time::Instant::now();
            let t = std::panic::catch_unwind(|| Topology::from_acpi(Some(bytes), m))
                .unwrap_or_else(|_| panic!("{case}: from_acpi panicked"));
            slowest = slowest.max(start.elapsed());
            assert_consistent(case, &t, &expected);
        }
    }
    println!("topology: slowest corrupted PPTT took {slowest:?}");
    assert!(
        slowest < std::time::Duration::from_millis(500),
        "{slowest:?}"
    );
}

/// A board DTB of Debian's arm64 Linux package, from the cache `qemu/dtbs` fills (and prints;
/// `test.sh` runs it before the tests).
fn board_dtb(path: &str) -> Vec<u8> {
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../qemu/dtbs");
    let out = std::process::Command::new(&script)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}: cannot run it to get the DTBs", script.display()));
    assert!(
        out.status.success(),
        "{}: {}",
        script.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    let dir = std::path::PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let file = dir.join("all").join(path);
    std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e} (run qemu/dtbs)", file.display()))
}

/// The clusters of real big.LITTLE boards' trees (Debian's package): each core type's
/// cluster with its capacity, swept on its lowest MPIDR. The RK3399's four A53s and two A72s,
/// the S922X's and A311D's two A53s and four A73s (Amlogic G12B: the boot CPU is an A53).
/// The i.MX8QM's tree in this package lists its four A53s alone (no A72 node, no cpu-map):
/// what a tree does not list is neither started nor swept, and the test keeps that visible.
#[test]
fn real_big_little_boards_give_one_cluster_per_core_type() {
    let rk3399 = vec![
        (4, 0, Some("arm,cortex-a53"), Some(485), vec![0, 1, 2, 3]),
        (
            2,
            0x100,
            Some("arm,cortex-a72"),
            Some(1024),
            vec![0x100, 0x101],
        ),
    ];
    let g12b = vec![
        (2, 0, Some("arm,cortex-a53"), Some(592), vec![0, 1]),
        (
            4,
            0x100,
            Some("arm,cortex-a73"),
            Some(1024),
            vec![0x100, 0x101, 0x102, 0x103],
        ),
    ];
    let imx8qm = vec![(4, 0, Some("arm,cortex-a53"), None, vec![0, 1, 2, 3])];
    for (board, source, want) in [
        ("rockchip/rk3399-rockpro64.dtb", Source::CpuMap, &rk3399),
        (
            "amlogic/meson-g12b-s922x-khadas-vim3.dtb",
            Source::CpuMap,
            &g12b,
        ),
        (
            "amlogic/meson-g12b-a311d-khadas-vim3.dtb",
            Source::CpuMap,
            &g12b,
        ),
        ("amlogic/meson-g12b-odroid-n2.dtb", Source::CpuMap, &g12b),
        ("freescale/imx8qm-mek.dtb", Source::Affinity, &imx8qm),
    ] {
        let dtb = board_dtb(board);
        let t = Topology::from_dtb(&dtb);
        assert_eq!(t.source, source, "{board}");
        assert_eq!(&shape(&t), want, "{board}");
        assert!(
            t.problems.is_empty(),
            "{board}: {:?}",
            t.problems.iter().collect::<Vec<_>>()
        );
    }
}
