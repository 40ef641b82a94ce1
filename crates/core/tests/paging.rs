//! Translation tables: descriptor bits, table planning, the software walk, errors.
//!
//! Oracle: the aarch64-paging crate, for the descriptors it writes for the same mappings
//! (on 64-bit hosts, where it builds).
#![cfg(target_pointer_width = "64")]

use aarch64_paging::descriptor::El1Attributes as A;
use aarch64_paging::idmap::IdMap;
use aarch64_paging::paging::{Constraints, El1And0, MemoryRegion};
use mairbench_core::memtype::{DEVICE_NGNRNE, MEMTYPES, NORMAL_WB};
use mairbench_core::paging::{
    block_descriptor, pa_bits, page_descriptor, table_descriptor, tables_needed, tcr_el1,
    translate, Access, Granule, Layout, MapError, Mapper, Table, Translation,
};

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;
const POOL_PA: u64 = 0x4800_0000;
const ACCESSES: [Access; 3] = [Access::ReadExecute, Access::ReadOnly, Access::ReadWrite];

fn layout(va_bits: u8) -> Layout {
    Layout::with_va_bits(va_bits).unwrap()
}

fn pool(n: usize) -> Vec<Table> {
    vec![Table::EMPTY; n]
}

// ---------------------------------------------------------------------------------------
// Descriptors

/// Page descriptors for PA 0x4000_1000, written out by hand from the Arm ARM's stage 1
/// page descriptor format, per memory type index 0..=7 and per Access:
///
/// * bits [1:0] = 0b11: valid, page (level 3)
/// * bits [4:2] = AttrIndx = index, so + index * 4
/// * bit 5 NS = 0; bits [7:6] AP[2:1] = 0b00 read-write or 0b10 read-only (+ 0x80),
///   EL0 no access
/// * bits [9:8] SH = 0b11 inner shareable (0x300); bit 10 AF = 1 (0x400); bit 11 nG = 0
/// * bits [47:12] = 0x4000_1 (output address 0x4000_1000)
/// * bit 53 PXN (0x0020_0000_0000_0000), bit 54 UXN (0x0040_0000_0000_0000)
///
/// So read-write = 0x0060_0000_4000_1703 + 4i, read-only = 0x0060_0000_4000_1783 + 4i,
/// read-execute = 0x0040_0000_4000_1783 + 4i.
const PAGES: [[u64; 3]; 8] = [
    // ReadExecute,          ReadOnly,              ReadWrite
    [
        0x0040_0000_4000_1783,
        0x0060_0000_4000_1783,
        0x0060_0000_4000_1703,
    ], // normal-wb
    [
        0x0040_0000_4000_1787,
        0x0060_0000_4000_1787,
        0x0060_0000_4000_1707,
    ], // normal-wb-noalloc
    [
        0x0040_0000_4000_178b,
        0x0060_0000_4000_178b,
        0x0060_0000_4000_170b,
    ], // normal-wt
    [
        0x0040_0000_4000_178f,
        0x0060_0000_4000_178f,
        0x0060_0000_4000_170f,
    ], // normal-nc
    [
        0x0040_0000_4000_1793,
        0x0060_0000_4000_1793,
        0x0060_0000_4000_1713,
    ], // device-ngnrne
    [
        0x0040_0000_4000_1797,
        0x0060_0000_4000_1797,
        0x0060_0000_4000_1717,
    ], // device-ngnre
    [
        0x0040_0000_4000_179b,
        0x0060_0000_4000_179b,
        0x0060_0000_4000_171b,
    ], // device-ngre
    [
        0x0040_0000_4000_179f,
        0x0060_0000_4000_179f,
        0x0060_0000_4000_171f,
    ], // device-gre
];

/// Block descriptors for PA 0x4020_0000 (2 MiB aligned): as above with bit 1 = 0 (block),
/// so bits [1:0] = 0b01 and the low byte is 0x01/0x81 + 4i.
const BLOCKS: [[u64; 3]; 8] = [
    [
        0x0040_0000_4020_0781,
        0x0060_0000_4020_0781,
        0x0060_0000_4020_0701,
    ],
    [
        0x0040_0000_4020_0785,
        0x0060_0000_4020_0785,
        0x0060_0000_4020_0705,
    ],
    [
        0x0040_0000_4020_0789,
        0x0060_0000_4020_0789,
        0x0060_0000_4020_0709,
    ],
    [
        0x0040_0000_4020_078d,
        0x0060_0000_4020_078d,
        0x0060_0000_4020_070d,
    ],
    [
        0x0040_0000_4020_0791,
        0x0060_0000_4020_0791,
        0x0060_0000_4020_0711,
    ],
    [
        0x0040_0000_4020_0795,
        0x0060_0000_4020_0795,
        0x0060_0000_4020_0715,
    ],
    [
        0x0040_0000_4020_0799,
        0x0060_0000_4020_0799,
        0x0060_0000_4020_0719,
    ],
    [
        0x0040_0000_4020_079d,
        0x0060_0000_4020_079d,
        0x0060_0000_4020_071d,
    ],
];

#[test]
fn descriptors_by_hand() {
    for t in &MEMTYPES {
        for (a, access) in ACCESSES.into_iter().enumerate() {
            let i = t.index as usize;
            assert_eq!(
                page_descriptor(0x4000_1000, t.index, access),
                PAGES[i][a],
                "page {} {access:?}",
                t.name
            );
            assert_eq!(
                block_descriptor(0x4020_0000, t.index, access),
                BLOCKS[i][a],
                "block {} {access:?}",
                t.name
            );
        }
    }
    // Table descriptor: valid + table (0b11), next-level table address in [47:12].
    assert_eq!(table_descriptor(0x4800_3000), 0x0000_0000_4800_3003);
    // The highest output address, and bits outside [47:12] dropped.
    assert_eq!(table_descriptor(0xffff_ffff_f000), 0x0000_ffff_ffff_f003);
    assert_eq!(
        table_descriptor(0xffff_0000_0000_1fff),
        0x0000_0000_0000_1003
    );
    assert_eq!(
        page_descriptor(0xffff_ffff_ffff_ffff, 0, Access::ReadWrite),
        0x0060_ffff_ffff_f703
    );
    // Memory type indices above 7 do not spill into NS/AP.
    assert_eq!(
        page_descriptor(0x4000_1000, 0xff, Access::ReadWrite),
        PAGES[7][2]
    );
}

fn their_flags(memtype_index: u8, access: Access) -> A {
    let attr = A::from_bits_retain(usize::from(memtype_index) << 2);
    let perms = match access {
        Access::ReadExecute => A::READ_ONLY | A::UXN,
        Access::ReadOnly => A::READ_ONLY | A::UXN | A::PXN,
        Access::ReadWrite => A::UXN | A::PXN,
    };
    A::VALID | A::ACCESSED | A::INNER_SHAREABLE | attr | perms
}

/// The leaf descriptors aarch64-paging writes for `region` (identity-mapped).
fn their_leaves(map: &IdMap<El1And0>, start: u64, end: u64) -> Vec<(u64, usize, u64)> {
    let mut out = Vec::new();
    map.walk_range(
        &MemoryRegion::new(start as usize, end as usize),
        &mut |range, desc, level| {
            if desc.is_valid() {
                let bits = desc.output_address().0 as u64 | desc.flags().bits() as u64;
                out.push((range.start().0 as u64, level, bits));
            }
            Ok(())
        },
    )
    .unwrap();
    out
}

#[test]
fn descriptors_against_aarch64_paging() {
    for t in &MEMTYPES {
        for access in ACCESSES {
            let flags = their_flags(t.index, access);
            // Their attribute constants, OR-ed with the output address.
            assert_eq!(
                0x4000_1000 | (flags | A::TABLE_OR_PAGE).bits() as u64,
                page_descriptor(0x4000_1000, t.index, access)
            );
            assert_eq!(
                0x4020_0000 | flags.bits() as u64,
                block_descriptor(0x4020_0000, t.index, access)
            );
            // The descriptors their mapper writes: one page, one 2 MiB block.
            let mut map = IdMap::with_asid(1, 1, El1And0);
            map.map_range(&MemoryRegion::new(0x4000_1000, 0x4000_2000), flags)
                .unwrap();
            map.map_range(&MemoryRegion::new(0x4020_0000, 0x4040_0000), flags)
                .unwrap();
            assert_eq!(
                their_leaves(&map, 0x4000_0000, 0x4040_0000),
                [
                    (
                        0x4000_1000,
                        3,
                        page_descriptor(0x4000_1000, t.index, access)
                    ),
                    (
                        0x4020_0000,
                        2,
                        block_descriptor(0x4020_0000, t.index, access)
                    ),
                ]
            );
        }
    }
    assert_eq!(
        0x4800_3000 | (A::VALID | A::TABLE_OR_PAGE).bits() as u64,
        table_descriptor(0x4800_3000)
    );
}

#[test]
fn firmware_memtype_positions() {
    assert_eq!(MEMTYPES[NORMAL_WB].name, "normal-wb");
    assert_eq!(MEMTYPES[DEVICE_NGNRNE].name, "device-ngnrne");
}

// ---------------------------------------------------------------------------------------
// Layout and registers

#[test]
fn layouts() {
    let l = |va_bits, start_level| Layout {
        va_bits,
        start_level,
    };
    assert_eq!(Layout::for_pa_bits(32), l(39, 1));
    assert_eq!(Layout::for_pa_bits(36), l(39, 1));
    assert_eq!(Layout::for_pa_bits(39), l(39, 1));
    assert_eq!(Layout::for_pa_bits(40), l(40, 0));
    assert_eq!(Layout::for_pa_bits(44), l(44, 0));
    assert_eq!(Layout::for_pa_bits(48), l(48, 0));
    assert_eq!(Layout::for_pa_bits(52), l(48, 0));
    assert_eq!(Layout::with_va_bits(25), Some(l(25, 2)));
    assert_eq!(Layout::with_va_bits(30), Some(l(30, 2)));
    assert_eq!(Layout::with_va_bits(31), Some(l(31, 1)));
    assert_eq!(Layout::with_va_bits(39), Some(l(39, 1)));
    assert_eq!(Layout::with_va_bits(40), Some(l(40, 0)));
    for bad in [0, 3, 4, 12, 24, 49, 52, 64, 255] {
        assert_eq!(Layout::with_va_bits(bad), None, "{bad}");
    }
    assert!(!l(40, 1).is_valid());
    assert!(!l(39, 0).is_valid());
    assert_eq!(l(44, 0).va_limit(), 1 << 44);
    assert_eq!(l(44, 1).va_limit(), 0);
}

#[test]
fn parange() {
    let expected = [32, 36, 40, 42, 44, 48, 52];
    for (parange, bits) in expected.into_iter().enumerate() {
        assert_eq!(pa_bits(parange as u64), Some(bits));
    }
    for reserved in 7..16 {
        assert_eq!(pa_bits(reserved), None);
    }
    // The whole ID_AA64MMFR0_EL1 may be passed: PARange is bits [3:0].
    assert_eq!(pa_bits(0x0000_0000_1122_0105), Some(48));
}

#[test]
fn tcr_by_hand() {
    // T0SZ [5:0], IRGN0 [9:8] = 01 (0x100), ORGN0 [11:10] = 01 (0x400),
    // SH0 [13:12] = 11 (0x3000), TG0 [15:14] = 00, T1SZ [21:16] = T0SZ, EPD1 [23] = 1
    // (0x80_0000), TG1 [31:30] = 10 (0x8000_0000), IPS [34:32].
    // 40-bit PA (PARange 2): T0SZ = 24 = 0x18, IPS = 2.
    assert_eq!(tcr_el1(&Layout::for_pa_bits(40), 2), 0x0000_0002_8098_3518);
    // 32-bit PA (PARange 0): 39-bit VA, T0SZ = 25 = 0x19, IPS = 0.
    assert_eq!(tcr_el1(&Layout::for_pa_bits(32), 0), 0x0000_0000_8099_3519);
    // 52-bit PA (PARange 6): capped at 48 bits, T0SZ = 16 = 0x10, IPS = 5.
    assert_eq!(tcr_el1(&Layout::for_pa_bits(52), 6), 0x0000_0005_8090_3510);
    // Reserved PARange values are capped too; only bits [3:0] count.
    assert_eq!(
        tcr_el1(&Layout::for_pa_bits(48), 0xf),
        0x0000_0005_8090_3510
    );
    assert_eq!(
        tcr_el1(&Layout::for_pa_bits(44), 0x1234_0004),
        0x0000_0004_8094_3514
    );
}

// ---------------------------------------------------------------------------------------
// Table planning

/// Maps `regions` (va, pa, size, memtype, access, granule) and checks the count against
/// `tables_needed` and `expected`.
fn plan(
    layout: Layout,
    regions: &[(u64, u64, u64, u8, Access, Granule)],
    expected: usize,
) -> Vec<Table> {
    let plan: Vec<_> = regions.iter().map(|r| (r.0, r.2, r.5)).collect();
    assert_eq!(tables_needed(&layout, &plan), expected, "tables_needed");
    let mut tables = pool(expected);
    let mut m = Mapper::new(&mut tables, POOL_PA, layout).unwrap();
    for &(va, pa, size, memtype, access, granule) in regions {
        m.map(va, pa, size, memtype, access, granule)
            .unwrap_or_else(|e| panic!("{va:#x}: {e}"));
    }
    assert_eq!(m.tables_used(), expected, "tables_used");
    assert_eq!(m.root_pa(), POOL_PA);
    assert_eq!(m.layout(), layout);
    for &(va, pa, ..) in regions {
        assert_eq!(m.translate(va).map(|t| t.pa), Some(pa));
    }
    tables
}

const RW: Access = Access::ReadWrite;
const PAGE: Granule = Granule::Page;
const BLOCK: Granule = Granule::Block;

#[test]
fn buffer_of_pages() {
    // 32 MiB of pages: 16 L3 tables, one L2, one L1, the L0 root.
    plan(
        layout(40),
        &[(GIB, GIB, 32 * MIB, 0, RW, PAGE)],
        1 + 1 + 1 + 16,
    );
    // Root at level 1: no L0.
    plan(layout(39), &[(GIB, GIB, 32 * MIB, 0, RW, PAGE)], 1 + 1 + 16);
    // As 2 MiB blocks: no L3 tables.
    plan(layout(40), &[(GIB, GIB, 32 * MIB, 0, RW, BLOCK)], 1 + 1 + 1);
    // Root at level 2 (25-bit VA): only the L3 tables below it.
    plan(layout(25), &[(0, GIB, 32 * MIB, 0, RW, PAGE)], 1 + 16);
    plan(layout(25), &[(0, GIB, 32 * MIB, 0, RW, BLOCK)], 1);
}

#[test]
fn straddling_boundaries() {
    // 2 MiB of pages across a 2 MiB boundary: two L3 tables.
    plan(
        layout(39),
        &[(GIB + MIB, GIB, 2 * MIB, 0, RW, PAGE)],
        1 + 1 + 2,
    );
    // 4 MiB across a 1 GiB boundary: two L2 tables, and two L3 tables for pages.
    let va = 2 * GIB - 2 * MIB;
    plan(layout(39), &[(va, GIB, 4 * MIB, 0, RW, PAGE)], 1 + 2 + 2);
    plan(layout(39), &[(va, GIB, 4 * MIB, 0, RW, BLOCK)], 1 + 2);
    // Across a 512 GiB boundary: two L1 tables too.
    let va = (1 << 39) - 2 * MIB;
    plan(
        layout(48),
        &[(va, GIB, 4 * MIB, 0, RW, PAGE)],
        1 + 2 + 2 + 2,
    );
    // Two regions in the same 2 MiB share their L3 table; adjacent pages and blocks
    // share the L2 table.
    plan(
        layout(39),
        &[
            (GIB, GIB, 4 * KIB, 0, RW, PAGE),
            (GIB + MIB, GIB, 8 * KIB, 1, RW, PAGE),
            (GIB + 2 * MIB, GIB, 2 * MIB, 2, RW, BLOCK),
        ],
        1 + 1 + 1,
    );
}

/// The firmware's address space on a 44-bit-PA machine: the image and UART identity
/// mapped with pages (a guard page left out), sixteen 32 MiB aliases of one buffer at
/// 1 GiB-aligned VAs in the upper half: one of pages per memory type, then one of 2 MiB
/// blocks per memory type.
#[test]
fn firmware_address_space() {
    const IMAGE: u64 = 0x4008_0000;
    const UART: u64 = 0x0900_0000;
    const BUF: u64 = 0x4600_0000;
    const ALIASES: u64 = 1 << 43;
    let l = Layout::for_pa_bits(44);
    assert_eq!((l.va_bits, l.start_level), (44, 0));
    let alias = |k: u64| ALIASES + k * GIB;

    let mut regions = vec![
        (IMAGE, IMAGE, 0x4_0000, 0, Access::ReadExecute, PAGE), // text
        (
            IMAGE + 0x4_0000,
            IMAGE + 0x4_0000,
            0x1_0000,
            0,
            Access::ReadOnly,
            PAGE,
        ), // rodata
        (IMAGE + 0x5_0000, IMAGE + 0x5_0000, 0x2_0000, 0, RW, PAGE), // data, bss
        // guard page at IMAGE + 0x7_0000
        (IMAGE + 0x7_1000, IMAGE + 0x7_1000, 0x1_0000, 0, RW, PAGE), // stack
        (UART, UART, 0x1000, DEVICE_NGNRNE as u8, RW, PAGE),
    ];
    for t in &MEMTYPES {
        regions.push((alias(t.index.into()), BUF, 32 * MIB, t.index, RW, PAGE));
    }
    for t in &MEMTYPES {
        regions.push((
            alias(8 + u64::from(t.index)),
            BUF,
            32 * MIB,
            t.index,
            RW,
            BLOCK,
        ));
    }
    // Root; L1: identity (L0 entry 0) and aliases (entry 16); L2: UART (1st GiB), image
    // (2nd GiB), one per alias (16); L3: UART, image (one 2 MiB), 16 per page alias.
    let expected = 1 + 2 + (2 + 16) + (1 + 1 + 8 * 16);
    let tables = plan(l, &regions, expected);

    let walk = |va| translate(&tables, POOL_PA, &l, va);
    let t = |pa, level, memtype: u8, access: Access, granule: Granule| {
        let desc = match granule {
            PAGE => page_descriptor(pa, memtype, access),
            BLOCK => block_descriptor(pa & !(2 * MIB - 1), memtype, access),
        };
        Some(Translation {
            pa,
            level,
            descriptor: desc,
        })
    };
    assert_eq!(walk(IMAGE), t(IMAGE, 3, 0, Access::ReadExecute, PAGE));
    assert_eq!(
        walk(IMAGE + 0x3_fffc),
        t(IMAGE + 0x3_fffc, 3, 0, Access::ReadExecute, PAGE)
    );
    assert_eq!(
        walk(IMAGE + 0x4_0010),
        t(IMAGE + 0x4_0010, 3, 0, Access::ReadOnly, PAGE)
    );
    assert_eq!(walk(IMAGE + 0x6_ffff), t(IMAGE + 0x6_ffff, 3, 0, RW, PAGE));
    assert_eq!(walk(IMAGE + 0x7_0000), None, "guard page");
    assert_eq!(walk(IMAGE + 0x7_0fff), None, "guard page");
    assert_eq!(walk(IMAGE + 0x7_1000), t(IMAGE + 0x7_1000, 3, 0, RW, PAGE));
    assert_eq!(walk(IMAGE + 0x8_1000), None, "above the stack");
    assert_eq!(walk(IMAGE - 1), None, "below the image");
    assert_eq!(walk(UART + 0x18), t(UART + 0x18, 3, 4, RW, PAGE));
    for k in 0..8u8 {
        let base = alias(k.into());
        for offset in [0, 0x12_3456, 32 * MIB - 1] {
            let tr = walk(base + offset).unwrap();
            assert_eq!(tr, t(BUF + offset, 3, k, RW, PAGE).unwrap());
            assert_eq!(tr.memtype_index(), k);
            assert_eq!(tr.access(), Some(RW));
        }
        assert_eq!(walk(base + 32 * MIB), None, "after alias {k}");
        assert_eq!(walk(base - 1), None, "before alias {k}");
    }
    for k in 0..8u8 {
        let base = alias(8 + u64::from(k));
        for offset in [0, 0x1f_fff8, 0x12_3456, 32 * MIB - 1] {
            let tr = walk(base + offset).unwrap();
            assert_eq!(tr, t(BUF + offset, 2, k, RW, BLOCK).unwrap());
            assert_eq!(tr.memtype_index(), k);
        }
        assert_eq!(walk(base + 32 * MIB), None, "after block alias {k}");
    }
    assert_eq!(walk(alias(16)), None, "past the last alias");
    assert_eq!(walk(1 << 44), None, "beyond the VA space");
    assert_eq!(walk(u64::MAX), None);
    // The same tables read with a wrong pool address (table descriptors point outside
    // the pool), or with the root taken for a level 1 table (entry 1 is empty).
    assert_eq!(translate(&tables, POOL_PA + 0x100_0000, &l, IMAGE), None);
    assert_eq!(translate(&tables, POOL_PA, &layout(39), IMAGE), None);
    assert_eq!(translate(&[], POOL_PA, &l, IMAGE), None);
}

/// Identity maps built by aarch64-paging and by `Mapper` hold the same leaf descriptors.
#[test]
fn identity_map_against_aarch64_paging() {
    let regions = [
        (0x4008_0000, 0x4_0000, 0, Access::ReadExecute, PAGE),
        (0x400c_0000, 0x1_0000, 0, Access::ReadOnly, PAGE),
        (0x400d_0000, 0x12_3000, 0, RW, PAGE),
        (0x4020_0000 + 0x20_0000, 0x60_0000, 3, RW, BLOCK),
        (0x0900_0000, 0x1000, 4, RW, PAGE),
        (0x7fe0_0000, 0x40_0000, 2, RW, PAGE),
    ];
    let l = layout(39);
    let mut theirs = IdMap::with_asid(1, 1, El1And0);
    let mut tables = pool(64);
    let mut ours = Mapper::new(&mut tables, POOL_PA, l).unwrap();
    for &(va, size, memtype, access, granule) in &regions {
        ours.map(va, va, size, memtype, access, granule).unwrap();
        let constraints = match granule {
            PAGE => Constraints::NO_BLOCK_MAPPINGS,
            BLOCK => Constraints::empty(),
        };
        theirs
            .map_range_with_constraints(
                &MemoryRegion::new(va as usize, (va + size) as usize),
                their_flags(memtype, access),
                constraints,
            )
            .unwrap();
    }
    let mut leaves = 0;
    for &(va, size, ..) in &regions {
        for (va, level, desc) in their_leaves(&theirs, va, va + size) {
            let tr = translate(&tables, POOL_PA, &l, va).unwrap();
            assert_eq!((tr.level as usize, tr.descriptor), (level, desc), "{va:#x}");
            leaves += 1;
        }
    }
    assert_eq!(leaves, 0x40 + 0x10 + 0x123 + 3 + 1 + 0x400);
}

// ---------------------------------------------------------------------------------------
// Errors

#[test]
fn overlaps() {
    let mut tables = pool(16);
    let mut m = Mapper::new(&mut tables, POOL_PA, layout(39)).unwrap();
    m.map(GIB, GIB, 64 * KIB, 0, RW, PAGE).unwrap();
    m.map(GIB + 4 * MIB, GIB, 2 * MIB, 0, RW, BLOCK).unwrap();
    let used = m.tables_used();
    let overlap = |va| Err(MapError::Overlap { va });
    // The same range again; a range whose end overlaps; one whose start overlaps.
    assert_eq!(m.map(GIB, 0, 64 * KIB, 1, RW, PAGE), overlap(GIB));
    assert_eq!(m.map(GIB - 8 * KIB, 0, 16 * KIB, 1, RW, PAGE), overlap(GIB));
    assert_eq!(
        m.map(GIB + 60 * KIB, 0, 8 * KIB, 1, RW, PAGE),
        overlap(GIB + 60 * KIB)
    );
    // A block over pages, and pages inside a block.
    assert_eq!(m.map(GIB, 0, 2 * MIB, 1, RW, BLOCK), overlap(GIB));
    assert_eq!(
        m.map(GIB + 5 * MIB, 0, 4 * KIB, 1, RW, PAGE),
        overlap(GIB + 5 * MIB)
    );
    assert_eq!(
        m.map(GIB + 2 * MIB, 0, 4 * MIB, 1, RW, BLOCK),
        overlap(GIB + 4 * MIB)
    );
    // Nothing changed, and the gaps are still free.
    assert_eq!(m.tables_used(), used);
    m.map(GIB + 64 * KIB, 0, 4 * KIB, 1, RW, PAGE).unwrap();
    m.map(GIB + 2 * MIB, 0, 2 * MIB, 1, RW, BLOCK).unwrap();
    assert_eq!(
        MapError::Overlap { va: GIB }.to_string(),
        "VA 0x40000000 is already mapped"
    );
}

#[test]
fn bad_requests() {
    let mut tables = pool(16);
    let mut m = Mapper::new(&mut tables, POOL_PA, layout(39)).unwrap();
    let misaligned = |va, pa, size, align| {
        Err(MapError::Misaligned {
            va,
            pa,
            size,
            align,
        })
    };
    assert_eq!(
        m.map(0x800, 0, 0x1000, 0, RW, PAGE),
        misaligned(0x800, 0, 0x1000, 0x1000)
    );
    assert_eq!(
        m.map(0, 0x10, 0x1000, 0, RW, PAGE),
        misaligned(0, 0x10, 0x1000, 0x1000)
    );
    assert_eq!(
        m.map(0, 0, 0x1800, 0, RW, PAGE),
        misaligned(0, 0, 0x1800, 0x1000)
    );
    assert_eq!(
        m.map(0x1000, 0, 2 * MIB, 0, RW, BLOCK),
        misaligned(0x1000, 0, 2 * MIB, 2 * MIB)
    );
    assert_eq!(
        m.map(0, 0x1000, 2 * MIB, 0, RW, BLOCK),
        misaligned(0, 0x1000, 2 * MIB, 2 * MIB)
    );
    assert_eq!(
        m.map(0, 0, 4 * KIB, 0, RW, BLOCK),
        misaligned(0, 0, 4 * KIB, 2 * MIB)
    );
    let top = 1u64 << 39;
    let beyond = |va, size| {
        Err(MapError::VaOutOfRange {
            va,
            size,
            va_bits: 39,
        })
    };
    assert_eq!(m.map(top, 0, 0x1000, 0, RW, PAGE), beyond(top, 0x1000));
    assert_eq!(
        m.map(top - 0x1000, 0, 0x2000, 0, RW, PAGE),
        beyond(top - 0x1000, 0x2000)
    );
    assert_eq!(
        m.map(u64::MAX - 0xfff, 0, 0x1000, 0, RW, PAGE),
        beyond(u64::MAX - 0xfff, 0x1000)
    );
    assert_eq!(
        m.map(0x1000, 0, u64::MAX - 0xfff, 0, RW, PAGE),
        beyond(0x1000, u64::MAX - 0xfff)
    );
    m.map(top - 0x1000, 0, 0x1000, 0, RW, PAGE).unwrap();
    assert_eq!(
        m.map(0, 1 << 48, 0x1000, 0, RW, PAGE),
        Err(MapError::PaOutOfRange {
            pa: 1 << 48,
            size: 0x1000,
            pa_bits: 48,
        })
    );
    m.map(0, (1 << 48) - 0x1000, 0x1000, 0, RW, PAGE).unwrap();
    assert_eq!(
        m.map(0x1000, 0, 0, 0, RW, PAGE),
        Err(MapError::Empty { va: 0x1000 })
    );
    assert_eq!(
        m.map(0x1000, 0, 0x1000, 8, RW, PAGE),
        Err(MapError::BadMemType { index: 8 })
    );

    assert_eq!(
        m.map(0x1000, 0, 0x1800, 0, RW, PAGE)
            .unwrap_err()
            .to_string(),
        "cannot map 0x1800 bytes from VA 0x1000 to PA 0x0: \
         address or size is not a multiple of 0x1000"
    );
    assert_eq!(
        m.map(top, 0, 0x1000, 0, RW, PAGE).unwrap_err().to_string(),
        "cannot map 0x1000 bytes at VA 0x8000000000: beyond the 39-bit address space"
    );
}

#[test]
fn pool_exhausted() {
    let mut tables = pool(3);
    let mut m = Mapper::new(&mut tables, POOL_PA, layout(40)).unwrap();
    // Root + L1 + L2 + L3 = 4 > 3: refused, nothing allocated.
    let err = m.map(GIB, GIB, 4 * KIB, 0, RW, PAGE).unwrap_err();
    assert_eq!(err, MapError::PoolExhausted { needed: 3, free: 2 });
    assert_eq!(
        err.to_string(),
        "page table pool exhausted: the mapping needs 3 more tables, 2 are free"
    );
    assert_eq!(m.tables_used(), 1);
    // A block needs one table less, and fits.
    m.map(GIB, GIB, 2 * MIB, 0, RW, BLOCK).unwrap();
    assert_eq!(m.tables_used(), 3);
    // More blocks in the same L2 table need nothing new; anything else is refused.
    m.map(GIB + 2 * MIB, GIB, 2 * MIB, 0, RW, BLOCK).unwrap();
    assert_eq!(
        m.map(2 * GIB, GIB, 2 * MIB, 0, RW, BLOCK),
        Err(MapError::PoolExhausted { needed: 1, free: 0 })
    );
    assert_eq!(
        m.map(GIB + 4 * MIB, GIB, 4 * KIB, 0, RW, PAGE),
        Err(MapError::PoolExhausted { needed: 1, free: 0 })
    );
    let l = layout(40);
    assert!(translate(&tables, POOL_PA, &l, 2 * GIB).is_none());
    assert!(translate(&tables, POOL_PA, &l, GIB + 4 * MIB).is_none());
    assert_eq!(
        translate(&tables, POOL_PA, &l, GIB + 3 * MIB).unwrap().pa,
        GIB + MIB
    );
}

#[test]
fn mapper_new_errors() {
    let l = layout(40);
    assert!(matches!(
        Mapper::new(&mut [], POOL_PA, l),
        Err(MapError::PoolExhausted { needed: 1, free: 0 })
    ));
    let mut tables = pool(2);
    let bad = Layout {
        va_bits: 40,
        start_level: 1,
    };
    assert!(
        matches!(Mapper::new(&mut tables, POOL_PA, bad), Err(MapError::BadLayout(b)) if b == bad)
    );
    assert!(matches!(
        Mapper::new(&mut tables, POOL_PA + 8, l),
        Err(MapError::PoolAddress { pool_pa }) if pool_pa == POOL_PA + 8
    ));
    assert!(matches!(
        Mapper::new(&mut tables, (1 << 48) - 0x1000, l),
        Err(MapError::PoolAddress { .. })
    ));
    assert!(Mapper::new(&mut tables, (1 << 48) - 0x2000, l).is_ok());
    // The root is zeroed.
    tables[0].0[7] = 0xdead;
    Mapper::new(&mut tables, POOL_PA, l).unwrap();
    assert!(tables[0].0.iter().all(|&d| d == 0));
}

// ---------------------------------------------------------------------------------------
// Randomized: map + translate + tables_needed against a model, never a panic.

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// An address or size: mostly granule multiples in a small window, sometimes anything.
fn arbitrary(rng: &mut Rng, window: u64) -> u64 {
    match rng.below(8) {
        0 => rng.next(),
        1 => rng.pick(&[
            0,
            1,
            0x1000,
            2 * MIB,
            GIB,
            1 << 39,
            1 << 48,
            u64::MAX,
            u64::MAX - 0xfff,
        ]),
        2 => (rng.below(window) & !0xfff) | (rng.below(2) * 0x800),
        3..=5 => rng.below(window / 0x1000) * 0x1000,
        _ => rng.below(window / (2 * MIB)) * 2 * MIB,
    }
}

#[test]
fn randomized_map_and_translate() {
    let result = std::panic::catch_unwind(|| {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        // How often each outcome occurred (by error variant name).
        let mut outcomes = std::collections::BTreeMap::<String, usize>::new();
        for round in 0..300 {
            let va_bits = rng.pick(&[25, 30, 31, 39, 40, 44, 48]);
            let l = layout(va_bits);
            // A window that makes overlaps likely, placed anywhere in the VA space.
            let window = rng.pick(&[64 * MIB, GIB, 4 * GIB]).min(l.va_limit());
            let origin = rng.below(l.va_limit() / window) * window;
            let mut tables = pool(1 + rng.below(40) as usize);
            let pool_len = tables.len();
            let pool_pa = rng.below(1 << 30) << 12;
            let mut m = Mapper::new(&mut tables, pool_pa, l).unwrap();
            let mut mapped: Vec<(u64, u64, u64, u8, Access, Granule)> = Vec::new();
            for _ in 0..30 {
                let granule = rng.pick(&[PAGE, BLOCK]);
                let va = origin.wrapping_add(arbitrary(&mut rng, window));
                let pa = arbitrary(&mut rng, 1 << 40);
                let size = match rng.below(4) {
                    0 => arbitrary(&mut rng, window),
                    _ => granule.size() * (1 + rng.below(600)),
                };
                let memtype = rng.pick(&[0, 1, 2, 3, 4, 5, 6, 7, 0, 4, 8, 255]);
                let access = rng.pick(&ACCESSES);
                let used = m.tables_used();
                let result = m.map(va, pa, size, memtype, access, granule);
                let outcome = match &result {
                    Ok(()) => "Ok".to_string(),
                    Err(e) => format!("{e:?}")
                        .split([' ', '('])
                        .next()
                        .unwrap()
                        .to_string(),
                };
                *outcomes.entry(outcome).or_default() += 1;

                // The model's verdict.
                let align = granule.size();
                let end = va.checked_add(size);
                let overlaps = mapped
                    .iter()
                    .any(|r| end.is_some_and(|e| va < r.0 + r.2 && r.0 < e));
                let plan = |mapped: &[(u64, u64, u64, u8, Access, Granule)], extra| {
                    let mut regions: Vec<_> = mapped.iter().map(|r| (r.0, r.2, r.5)).collect();
                    regions.extend(extra);
                    tables_needed(&l, &regions)
                };
                let expected = if memtype > 7 {
                    Err(MapError::BadMemType { index: memtype })
                } else if size == 0 {
                    Err(MapError::Empty { va })
                } else if !(va | pa | size).is_multiple_of(align) {
                    Err(MapError::Misaligned {
                        va,
                        pa,
                        size,
                        align,
                    })
                } else if end.is_none_or(|e| e > l.va_limit()) {
                    Err(MapError::VaOutOfRange { va, size, va_bits })
                } else if pa.checked_add(size).is_none_or(|e| e > 1 << 48) {
                    Err(MapError::PaOutOfRange {
                        pa,
                        size,
                        pa_bits: 48,
                    })
                } else if overlaps {
                    assert!(
                        matches!(result, Err(MapError::Overlap { .. })),
                        "{result:?}"
                    );
                    continue;
                } else {
                    let needed = plan(&mapped, Some((va, size, granule))) - plan(&mapped, None);
                    let free = pool_len - used;
                    if needed > free {
                        Err(MapError::PoolExhausted { needed, free })
                    } else {
                        Ok(())
                    }
                };
                assert_eq!(
                    result, expected,
                    "round {round}: map({va:#x}, {pa:#x}, {size:#x}, {granule:?})"
                );
                if result.is_ok() {
                    mapped.push((va, pa, size, memtype, access, granule));
                }
                assert_eq!(m.tables_used(), plan(&mapped, None), "round {round}");
            }
            // Sampled addresses: inside each mapping, at its edges, and anywhere.
            for &(va, pa, size, memtype, access, granule) in &mapped {
                for offset in [0, size - 1, rng.below(size)] {
                    let tr = translate(&tables, pool_pa, &l, va + offset).unwrap();
                    assert_eq!(tr.pa, pa + offset);
                    assert_eq!(tr.level, granule.level());
                    assert_eq!((tr.memtype_index(), tr.access()), (memtype, Some(access)));
                }
            }
            for _ in 0..200 {
                let va = origin.wrapping_add(arbitrary(&mut rng, window)) | rng.below(0x1000);
                let inside = mapped.iter().find(|r| r.0 <= va && va - r.0 < r.2);
                let tr = translate(&tables, pool_pa, &l, va);
                assert_eq!(
                    tr.map(|t| t.pa),
                    inside.map(|r| r.1 + (va - r.0)),
                    "{va:#x}"
                );
            }
        }
        outcomes
    });
    let outcomes = result.expect("a panic in map or translate");
    for outcome in [
        "Ok",
        "BadMemType",
        "Empty",
        "Misaligned",
        "VaOutOfRange",
        "PaOutOfRange",
        "Overlap",
        "PoolExhausted",
    ] {
        assert!(
            outcomes.get(outcome).is_some_and(|&n| n >= 20),
            "{outcomes:?}"
        );
    }
}

/// `translate` over garbage tables: never a panic, and never leaves the pool.
#[test]
fn translate_garbage() {
    let result = std::panic::catch_unwind(|| {
        let mut rng = Rng(42);
        for _ in 0..200 {
            let mut tables = pool(1 + rng.below(8) as usize);
            let pool_pa = rng.below(1 << 20) << 12;
            for t in tables.iter_mut() {
                for d in t.0.iter_mut() {
                    *d = match rng.below(4) {
                        // Table descriptors into (or just outside) the pool.
                        0 => table_descriptor(pool_pa + rng.below(10) * 0x1000),
                        1 => 0,
                        _ => rng.next(),
                    };
                }
            }
            for _ in 0..500 {
                let l = Layout {
                    va_bits: rng.below(64) as u8,
                    start_level: rng.below(5) as u8,
                };
                let va = match rng.below(2) {
                    0 => rng.next(),
                    _ => rng.next() & ((1 << 48) - 1),
                };
                if let Some(tr) = translate(&tables, pool_pa, &l, va) {
                    assert!(l.is_valid() && (1..=3).contains(&tr.level));
                }
            }
        }
    });
    assert!(result.is_ok(), "a panic in translate");
}

// ---------------------------------------------------------------------------------------
// Whole-range checks (what the firmware verifies before it turns the MMU on)

#[test]
fn maps_checks_every_leaf_of_a_range() {
    let mut tables = pool(16);
    let mut m = Mapper::new(&mut tables, POOL_PA, layout(39)).unwrap();
    let (va, pa) = (0x40_0000_0000, 0x4000_0000);
    m.map(va, pa, 4 * MIB, 0, Access::ReadWrite, Granule::Block)
        .unwrap();
    m.map(
        0x4800_0000,
        0x4800_0000,
        64 * KIB,
        3,
        Access::ReadOnly,
        Granule::Page,
    )
    .unwrap();
    assert!(m.maps(va, pa, 4 * MIB, Access::ReadWrite, Some(0)));
    assert!(m.maps(va + MIB, pa + MIB, 8 * KIB, Access::ReadWrite, None));
    // Wrong offset, attribute, access; a range running past the mapping; nothing at all.
    assert!(!m.maps(va, pa + 4 * KIB, 4 * MIB, Access::ReadWrite, None));
    assert!(!m.maps(va, pa, 4 * MIB, Access::ReadWrite, Some(1)));
    assert!(!m.maps(va, pa, 4 * MIB, Access::ReadOnly, None));
    assert!(!m.maps(va, pa, 4 * MIB + 1, Access::ReadWrite, None));
    assert!(!m.maps(va, pa, 0, Access::ReadWrite, None));
    // Pages: every one is walked, a hole in the middle is found.
    assert!(m.maps(
        0x4800_0000,
        0x4800_0000,
        64 * KIB,
        Access::ReadOnly,
        Some(3)
    ));
    assert!(!m.maps(
        0x4800_0000,
        0x4800_0000,
        68 * KIB,
        Access::ReadOnly,
        Some(3)
    ));
    assert!(!m.maps(u64::MAX - 4095, 0, 4096, Access::ReadOnly, None));
}
