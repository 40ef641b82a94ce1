#![allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

extern crate std;

use super::dt::Level;
use super::pptt::cache_level;
use super::*;
use crate::cache::CacheType;
use std::vec::Vec;

fn unified(level: u8, ways: u32, sets: u32) -> CacheLevel {
    CacheLevel {
        level,
        kind: CacheType::Unified,
        line: 64,
        ways,
        sets,
    }
}

#[test]
fn affinity_groups_drop_the_core_fields() {
    // Aff0 numbers cores: Aff3, Aff2 and Aff1 make the group.
    assert_eq!(affinity_group(0x0, false), affinity_group(0x3, false));
    assert_ne!(affinity_group(0x0, false), affinity_group(0x100, false));
    assert_ne!(
        affinity_group(0x100, false),
        affinity_group(0x1_0100, false)
    );
    assert_ne!(
        affinity_group(0x1_0000, false),
        affinity_group(0x1_0000_0000, false)
    );
    // With MT, Aff1 numbers cores too.
    assert_eq!(affinity_group(0x0, true), affinity_group(0x700, true));
    assert_ne!(affinity_group(0x0, true), affinity_group(0x1_0000, true));
    // Bits beyond the affinity fields (MT, U, RES1) do not count.
    assert_eq!(affinity_group(0x8100_0100, true), affinity_group(0x0, true));
    assert_eq!(affinity_group(0x4000_0000, false), 0);
}

#[test]
fn mt_numbering_is_assumed_only_when_every_aff0_is_zero() {
    assert!(numbered_as_mt(&[0x0, 0x100, 0x200, 0x300]));
    assert!(numbered_as_mt(&[0x0, 0x1_0000]));
    assert!(!numbered_as_mt(&[0x0, 0x1, 0x100]));
    // One CPU tells nothing.
    assert!(!numbered_as_mt(&[0x0]));
    assert!(!numbered_as_mt(&[]));
}

#[test]
fn midr_part_is_implementer_and_part_number() {
    // Cortex-A53 r0p4 and r1p0: one part.
    assert_eq!(midr_part(0x410f_d034), (0x41, 0xd03));
    assert_eq!(midr_part(0x411f_d030), (0x41, 0xd03));
    assert_eq!(midr_part(0x410f_d082), (0x41, 0xd08));
    assert_eq!(midr_part(0x610f_0220), (0x61, 0x022));
    // Bits above 31 (RES0) are not read.
    assert_eq!(midr_part(0xffff_ffff_410f_d034), (0x41, 0xd03));
}

#[test]
fn caches_keep_the_levels_and_drop_the_fillers() {
    let l1 = unified(1, 4, 128);
    let l2 = unified(2, 16, 512);
    let c = Caches::new(&[l1, CacheLevel::NONE, l2]);
    assert_eq!(c.levels(), [l1, l2]);
    let mut array = [CacheLevel::NONE; MAX_LEVELS];
    array[0] = l1;
    array[1] = l2;
    assert_eq!(Caches::from((array, 2)), c);
    assert_eq!(Caches::from((array, 1)).levels(), [l1]);
    // A count beyond the array takes all of it.
    assert_eq!(Caches::from((array, 99)), c);
    // At most MAX_LEVELS.
    assert_eq!(Caches::new(&[l1; 9]).levels().len(), MAX_LEVELS);
    assert!(Caches::NONE.levels().is_empty());
}

#[test]
fn cpu_map_node_kinds_come_from_their_names() {
    assert_eq!(Level::of("cluster0"), Some(Level::Cluster));
    assert_eq!(Level::of("cluster12"), Some(Level::Cluster));
    assert_eq!(Level::of("socket1"), Some(Level::Socket));
    assert_eq!(Level::of("core7"), Some(Level::Core));
    assert_eq!(Level::of("thread0"), Some(Level::Thread));
    for odd in [
        "cluster",
        "clusterX",
        "cluster0a",
        "core-0",
        "cpu0",
        "",
        "0",
    ] {
        assert_eq!(Level::of(odd), None, "{odd}");
    }
    assert!(Level::Map.holds(Level::Cluster) && Level::Map.holds(Level::Socket));
    assert!(Level::Cluster.holds(Level::Cluster) && Level::Cluster.holds(Level::Core));
    assert!(Level::Core.holds(Level::Thread));
    assert!(!Level::Cluster.holds(Level::Thread));
    assert!(!Level::Core.holds(Level::Core) && !Level::Core.holds(Level::Cluster));
    assert!(!Level::Thread.holds(Level::Thread));
    assert!(!Level::Socket.holds(Level::Socket));
}

fn key(group: u16, compatible: Option<&str>) -> Key<'_> {
    Key {
        group,
        compatible,
        capacity: None,
        caches: None,
        part: None,
    }
}

#[test]
fn placing_makes_one_cluster_per_key_and_picks_the_lowest_mpidr() {
    let mut t = Topology::none();
    t.place(0x101, key(1, Some("b")), None);
    t.place(0x3, key(0, Some("a")), None);
    t.place(0x100, key(1, Some("b")), None);
    t.place(0x1, key(0, Some("a")), None);
    // Same group, another core type: another cluster.
    t.place(0x2, key(0, Some("c")), None);
    let reps: Vec<(u16, usize, u64)> = t
        .clusters()
        .iter()
        .map(|c| (c.group, c.cpus, c.representative))
        .collect();
    assert_eq!(reps, [(1, 2, 0x100), (0, 2, 0x1), (0, 1, 0x2)]);
    assert_eq!(t.cluster_of(0x3).map(|c| c.representative), Some(0x1));
    // MPIDRs are compared by their affinity fields.
    assert_eq!(t.cluster_of(0x8000_0003).map(|c| c.group), Some(0));
    t.place(0x8000_0001, key(5, None), None);
    assert!(t.problems.contains(Problem::RepeatedCpu));
    assert_eq!(t.cpus().len(), 5);
}

#[test]
fn clusters_beyond_the_cap_are_counted_by_group_and_kind() {
    let mut t = Topology::none();
    for g in 0..MAX_CLUSTERS as u16 {
        t.place(u64::from(g) << 8, key(g, None), None);
    }
    assert_eq!(t.problems, Problems::NONE);
    // Beyond: group 20 of two kinds (3 CPUs), group 21 of one (1 CPU).
    t.place(0x10_000, key(20, Some("a")), None);
    t.place(0x10_001, key(20, Some("b")), None);
    t.place(0x10_002, key(20, Some("a")), None);
    t.place(0x10_100, key(21, Some("a")), None);
    assert!(t.problems.contains(Problem::TooManyClusters));
    assert_eq!(t.clusters().len(), MAX_CLUSTERS);
    assert_eq!(t.cpus_outside_clusters(), 4);
    assert_eq!(t.clusters_beyond_cap(), 3);
    assert_eq!(t.cluster_of(0x10_000), None);
    assert!(t.member(0x10_000).is_some());
}

#[test]
fn digests_differ_with_every_field() {
    let caches = Caches::new(&[unified(1, 4, 128)]);
    let other = Caches::new(&[unified(1, 4, 256)]);
    let base = Key {
        group: 1,
        compatible: Some("arm,cortex-a53"),
        capacity: Some(485),
        caches: Some(caches),
        part: Some((0x41, 0xd03)),
    };
    let variants = [
        Key { group: 2, ..base },
        Key {
            compatible: Some("arm,cortex-a55"),
            ..base
        },
        Key {
            compatible: None,
            ..base
        },
        Key {
            capacity: Some(1024),
            ..base
        },
        Key {
            capacity: None,
            ..base
        },
        Key {
            caches: Some(other),
            ..base
        },
        Key {
            caches: None,
            ..base
        },
        Key {
            part: Some((0x41, 0xd08)),
            ..base
        },
        Key { part: None, ..base },
    ];
    for v in &variants {
        assert_ne!(v.digest(), base.digest(), "{v:?}");
    }
    assert_eq!(base.digest(), { base }.digest());
}

#[test]
fn groups_by_affinity_leave_the_tables_groups_alone() {
    let mpidrs = [0x0, 0x1, 0x100, 0x101, 0x2];
    let mut groups = [Some(0), None, None, None, None];
    Topology::group_by_affinity(&mpidrs, &mut groups, &|_| false, 7);
    // 0x1 and 0x2 share a new group: 0x0's group is the table's, not an affinity group.
    assert_eq!(groups, [Some(0), Some(7), Some(8), Some(8), Some(7)]);
}

fn cache_structure(
    flags: u32,
    size: u32,
    sets: u32,
    ways: u8,
    attributes: u8,
    line: u16,
) -> Vec<u8> {
    let mut c = std::vec![0u8; 24];
    c[0] = 1;
    c[1] = 24;
    c[4..8].copy_from_slice(&flags.to_le_bytes());
    c[12..16].copy_from_slice(&size.to_le_bytes());
    c[16..20].copy_from_slice(&sets.to_le_bytes());
    c[20] = ways;
    c[21] = attributes;
    c[22..24].copy_from_slice(&line.to_le_bytes());
    c
}

#[test]
fn pptt_cache_structures_give_what_is_flagged_valid() {
    let all = 0x7f;
    // 1 MiB, 16 ways, 64-byte lines, 1024 sets, unified.
    let c = cache_structure(all, 1 << 20, 1024, 16, 0b1000, 64);
    assert_eq!(cache_level(&c, 2), Some(unified(2, 16, 1024)));
    // Sets not valid: derived from the size.
    let c = cache_structure(all & !0b10, 1 << 20, 0, 16, 0b1100, 64);
    assert_eq!(cache_level(&c, 2), Some(unified(2, 16, 1024)));
    // Nothing valid: zeros, and no division by zero.
    let c = cache_structure(0, 1 << 20, 1024, 16, 0b1000, 64);
    let nothing = CacheLevel {
        ways: 0,
        sets: 0,
        line: 0,
        ..unified(3, 0, 0)
    };
    assert_eq!(cache_level(&c, 3), Some(nothing));
    // Data, and instruction (left out).
    let c = cache_structure(all, 32 << 10, 128, 4, 0b0000, 64);
    assert_eq!(cache_level(&c, 1).map(|l| l.kind), Some(CacheType::Data));
    let c = cache_structure(all, 32 << 10, 128, 4, 0b0100, 64);
    assert_eq!(cache_level(&c, 1), None);
    // A level that does not fit a byte.
    let c = cache_structure(all, 32 << 10, 128, 4, 0b0000, 64);
    assert_eq!(cache_level(&c, 300), None);
}
