//! Reserved memory (`/memreserve/` and `/reserved-memory`) as `discover` reads it: the
//! fixtures of `tests/dtb/reserved*.dts`, every board DTB of Debian's arm64 kernel
//! package against `dtoolkit` 0.4.1 as the oracle, and thousands of truncated and
//! corrupted blobs, which must give a clear problem and never a panic.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use common::{board, dtb_dir, fixture, Rng};
use dtoolkit::{Node as _, Property as _};
use mairbench_core::fdt::Fdt;
use mairbench_core::platform::{discover, Problem as PlatformProblem};
use mairbench_core::reserved::{Problem, Problems, Reservation, Reserved, Source, MAX_RESERVED};

const MIB: u64 = 1 << 20;

fn problems(list: &[Problem]) -> Problems {
    let mut set = Problems::NONE;
    for &p in list {
        set.insert(p);
    }
    set
}

fn memreserve(base: u64, size: u64) -> Reservation<'static> {
    Reservation {
        source: Source::MemReserve,
        name: "",
        base: Some(base),
        size,
        no_map: false,
    }
}

fn node(name: &'static str, base: Option<u64>, size: u64, no_map: bool) -> Reservation<'static> {
    Reservation {
        source: Source::ReservedMemory,
        name,
        base,
        size,
        no_map,
    }
}

#[test]
fn memreserve_and_reserved_memory_children() {
    let dtb = fixture("reserved.dtb");
    let p = discover(Some(&dtb));
    assert!(p.problems.is_empty(), "{:?}", p.problems);
    let r = p.reserved;
    assert_eq!(r.problems, Problems::NONE);
    assert_eq!(
        r.entries(),
        [
            memreserve(0x4800_0000, MIB),
            memreserve(0x4000_0000, 0x1000),
            node("secmon@4c000000", Some(0x4c00_0000), 64 * MIB, true),
            node("ramoops@4b000000", Some(0x4b00_0000), MIB, false),
            node("ramoops@4b000000", Some(0x4b20_0000), MIB, false),
            // size and alloc-ranges only: an OS places it.
            node("linux,cma", None, 16 * MIB, false),
            // status = "okay"; the disabled child and the empty reg are not listed.
            node("okay@45000000", Some(0x4500_0000), 2 * MIB, false),
        ]
    );
    assert_eq!(r.omitted(), 0);
    let what: Vec<_> = r.entries().iter().map(Reservation::what).collect();
    assert_eq!(
        what[1..4],
        ["reserved", "reserved (no-map)", "reserved"],
        "{what:?}"
    );
    assert_eq!(what[5], "reserved (dynamic)");
    // What the buffer must avoid: every fixed range, the dynamic one not.
    assert_eq!(r.ranges().count(), 6);
    let inside: Vec<_> = r
        .overlapping(0x4e00_0000, 32 * MIB)
        .map(|r| r.name)
        .collect();
    assert_eq!(inside, ["secmon@4c000000"]);
    assert_eq!(
        r.overlapping(0x4b10_0000, MIB).count(),
        0,
        "between the ramoops"
    );
    assert_eq!(r.overlapping(0x4b10_0000, MIB + 1).count(), 1);
    assert_eq!(r.overlapping(0x4400_0000, 16 * MIB).count(), 0, "disabled");
}

#[test]
fn one_cell_children_and_what_cannot_be_read() {
    let dtb = fixture("reserved-cells.dtb");
    let r = discover(Some(&dtb)).reserved;
    assert_eq!(
        r.entries(),
        [
            // Cut at the end of the address space.
            memreserve(0xffff_ffff_fff0_0000, MIB - 1),
            node("fw@4f000000", Some(0x4f00_0000), 8 * MIB, true),
            node("pool", None, 32 * MIB, true),
            node("top@ffff0000", Some(0xffff_0000), 0x2_0000, false),
        ]
    );
    assert_eq!(r.problems, problems(&[Problem::BadNode, Problem::BadRange]));
    assert_eq!(r.entries()[2].what(), "reserved (dynamic)");
}

#[test]
fn more_than_the_capacity_is_named_and_every_range_still_avoided() {
    // 70 page-sized ranges 1 MiB apart: the 6 beyond the capacity are merged with their
    // nearest neighbours, never dropped.
    let dtb = fixture("reserved-many.dtb");
    let r = discover(Some(&dtb)).reserved;
    assert_eq!(r.entries().len(), MAX_RESERVED);
    assert_eq!(
        (r.merged(), r.omitted(), r.total()),
        (70 - MAX_RESERVED, 0, 70)
    );
    assert_eq!(r.problems, problems(&[Problem::TooMany]));
    for i in 0..70u64 {
        let base = 0x4000_0000 + i * MIB;
        assert!(
            r.overlapping(base, 0x1000).count() == 1,
            "r{i}@{base:#x} is not avoided"
        );
    }
    assert!(Problem::TooMany
        .message()
        .starts_with(&format!("more than {MAX_RESERVED} reserved ranges")));
}

#[test]
fn qemu_virt_reserves_nothing() {
    for name in [
        "qemu-virt.dtb",
        "qemu-virt-el2.dtb",
        "qemu-virt-el3.dtb",
        "nop.dtb",
    ] {
        let dtb = fixture(name);
        let r = discover(Some(&dtb)).reserved;
        assert_eq!(r, Reserved::NONE, "{name}");
    }
    // Without a valid DTB there is nothing to read.
    assert_eq!(discover(None).reserved, Reserved::NONE);
    assert_eq!(
        discover(Some(&fixture("garbage.dtb"))).reserved,
        Reserved::NONE
    );
}

/// `dtb` with the header word `i` (4-byte units) set to `v`.
fn with_field(dtb: &[u8], i: usize, v: u32) -> Vec<u8> {
    let mut dtb = dtb.to_vec();
    dtb[i * 4..i * 4 + 4].copy_from_slice(&v.to_be_bytes());
    dtb
}

const TOTALSIZE: usize = 1;
const OFF_MEM_RSVMAP: usize = 4;

#[test]
fn a_reservation_block_outside_or_unterminated() {
    let dtb = fixture("reserved.dtb");
    let total = dtb.len() as u32;
    // The problems, and the /memreserve/ ranges, with off_mem_rsvmap at `off`.
    let at = |off: u32| {
        let blob = with_field(&dtb, OFF_MEM_RSVMAP, off);
        let r = discover(Some(&blob)).reserved;
        let ranges: Vec<_> = r
            .entries()
            .iter()
            .filter(|e| e.source == Source::MemReserve)
            .map(|e| (e.base.unwrap(), e.size))
            .collect();
        (r.problems, ranges)
    };
    // Past the blob, or too close to its end for an entry: nothing read.
    for off in [total - 8, total - 1, total, total + 16, u32::MAX] {
        let none = (problems(&[Problem::MemReserveOutside]), vec![]);
        assert_eq!(at(off), none, "{off}");
    }
    // One entry before the end (the last 16 bytes of the strings block), no terminator.
    let (why, ranges) = at(total - 16);
    assert_eq!(why, problems(&[Problem::MemReserveUnterminated]));
    assert_eq!(ranges.len(), 1);
    // The block read from the header itself: its words are entries until one of size 0,
    // the real block (at 40) read 8 bytes off: its second entry's size and the terminator.
    let word = |i: usize| {
        u64::from(u32::from_be_bytes(
            dtb[i * 4..i * 4 + 4].try_into().unwrap(),
        ))
    };
    let pair = |i: usize| word(i) << 32 | word(i + 1);
    let (why, ranges) = at(0);
    assert_eq!(why, Problems::NONE);
    assert_eq!(
        ranges,
        [
            (pair(0), pair(2)),
            // off_mem_rsvmap (now 0) and the version, 17.
            (17, pair(6)),
            (pair(8), 0x4800_0000),
            (MIB, 0x4000_0000)
        ]
    );
    // A blob cut short of its reservation block.
    let cut = with_field(&dtb[..48], TOTALSIZE, 48);
    assert_eq!(
        discover(Some(&cut)).reserved,
        Reserved::NONE,
        "rejected by Fdt::new"
    );
}

/// One reservation: source, name, base, size, no-map.
type Listed = (Source, String, Option<u64>, u64, bool);

/// The reservations of a blob that `dtoolkit` reads, computed with `dtoolkit`'s readers:
/// `/memreserve/` up to the first entry of size 0, then the enabled `/reserved-memory`
/// children's `reg` entries and sizes. A blob that only `dtoolkit`'s naming rules reject
/// (RK3399's 33-character property names) is read unchecked once ours accepts it.
fn oracle(dtb: &[u8]) -> Option<Vec<Listed>> {
    let fdt = match dtoolkit::fdt::Fdt::new(dtb) {
        Ok(fdt) => fdt,
        Err(e) if Fdt::new(dtb).is_ok() && e.to_string().contains("name") => {
            dtoolkit::fdt::Fdt::new_unchecked(dtb)
        }
        Err(_) => return None,
    };
    let mut out = Vec::new();
    for m in fdt.memory_reservations() {
        if m.size() == 0 {
            break;
        }
        out.push((
            Source::MemReserve,
            String::new(),
            Some(m.address()),
            m.size(),
            false,
        ));
    }
    let be = |bytes: &[u8]| {
        bytes
            .iter()
            .fold(0u64, |v, &b| v.wrapping_shl(8) | u64::from(b))
    };
    let cells = |n: &dtoolkit::fdt::FdtNode<'_>, name: &str, default: u64| {
        n.property(name).map_or(default, |p| be(p.value()))
    };
    if let Some(rm) = fdt.find_node("/reserved-memory") {
        let (ac, sc) = (
            cells(&rm, "#address-cells", 2),
            cells(&rm, "#size-cells", 1),
        );
        let (ab, sb) = (4 * ac as usize, 4 * sc as usize);
        for child in rm.children() {
            // Up to the first NUL, as Linux's strcmp() reads it; NUL-terminated.
            let status = child.property("status").map(|s| {
                let v = s.value();
                let text = v.split(|&b| b == 0).next().unwrap_or_default();
                (
                    text.to_vec(),
                    v.ends_with(&[0]) && std::str::from_utf8(v).is_ok(),
                )
            });
            let enabled = |(text, ok): &(Vec<u8>, bool)| *ok && (text == b"okay" || text == b"ok");
            if !status.as_ref().is_none_or(enabled) {
                continue;
            }
            let name = child.name().to_string();
            let no_map = child.property("no-map").is_some();
            if let Some(reg) = child.property("reg") {
                for entry in reg.value().chunks(ab + sb) {
                    let size = be(&entry[ab..]);
                    if size != 0 {
                        let base = be(&entry[..ab]);
                        out.push((
                            Source::ReservedMemory,
                            name.clone(),
                            Some(base),
                            size,
                            no_map,
                        ));
                    }
                }
            } else if let Some(size) = child.property("size") {
                let size = be(size.value());
                if size != 0 {
                    out.push((Source::ReservedMemory, name, None, size, no_map));
                }
            }
        }
    }
    Some(out)
}

fn listing(r: &Reserved<'_>) -> Vec<Listed> {
    r.entries()
        .iter()
        .map(|e| (e.source, e.name.to_string(), e.base, e.size, e.no_map))
        .collect()
}

#[test]
fn raspberry_pi_and_imx8mp_evk() {
    // The Pi firmware's spin table, and the CMA pool Linux places.
    let pi3 = board("bcm2837-rpi-3-b.dtb");
    let r = discover(Some(&pi3)).reserved;
    assert_eq!(
        r.entries(),
        [
            memreserve(0, 0x1000),
            node("linux,cma", None, 64 * MIB, false)
        ]
    );
    // The Pi 4's nvram@0 is disabled.
    let pi4 = board("bcm2711-rpi-4-b.dtb");
    let r = discover(Some(&pi4)).reserved;
    assert_eq!(
        r.entries(),
        [
            memreserve(0, 0x1000),
            node("linux,cma", None, 64 * MIB, false)
        ]
    );
    // The i.MX8MP's HiFi4 DSP memory.
    let imx = board("imx8mp-evk.dtb");
    let r = discover(Some(&imx)).reserved;
    assert_eq!(
        r.entries(),
        [node("dsp@92400000", Some(0x9240_0000), 32 * MIB, true)]
    );
    assert!(r.problems.is_empty());
}

#[test]
fn every_board_dtb_as_dtoolkit_reads_it() {
    let all = dtb_dir().join("all");
    let mut paths: Vec<_> = std::fs::read_dir(&all)
        .unwrap_or_else(|e| panic!("{}: {e}: run qemu/dtbs (test.sh does)", all.display()))
        .map(|vendor| vendor.unwrap().path())
        .filter(|vendor| vendor.is_dir())
        .flat_map(|vendor| std::fs::read_dir(vendor).unwrap())
        .map(|f| f.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "dtb"))
        .collect();
    paths.sort();
    assert!(
        paths.len() >= 500,
        "{} board DTBs in {}",
        paths.len(),
        all.display()
    );
    let (mut most, mut with_any, mut entries) = (0, 0, 0);
    for path in &paths {
        let dtb = std::fs::read(path).unwrap();
        let p = discover(Some(&dtb));
        assert!(p.dtb_ok, "{}", path.display());
        let r = p.reserved;
        assert!(
            r.problems.is_empty(),
            "{}: {:?}",
            path.display(),
            r.problems
        );
        let expected = oracle(&dtb).expect("dtoolkit reads every board DTB");
        assert_eq!(listing(&r), expected, "{}", path.display());
        most = most.max(r.entries().len());
        with_any += usize::from(!r.entries().is_empty());
        entries += r.entries().len();
    }
    eprintln!(
        "{} board DTBs: {with_any} reserve memory, {entries} reservations, at most {most} in one",
        paths.len()
    );
    // MAX_RESERVED's documentation names the most in one board DTB.
    assert_eq!(most, 44);
}

/// What must hold whatever the bytes: no panic, at most the capacity, every entry of
/// non-zero size inside the address space, and the oracle's reading where it reads it
/// and ours found nothing wrong.
fn survive(case: &str, dtb: &[u8], failures: &mut Vec<String>) -> bool {
    let r = match catch_unwind(AssertUnwindSafe(|| discover(Some(dtb)))) {
        Ok(p) => p.reserved,
        Err(_) => {
            failures.push(format!("{case}: discover panicked"));
            return false;
        }
    };
    let beyond = r.omitted() > 0 || r.merged() > 0;
    if r.entries().len() > MAX_RESERVED || beyond && !r.problems.contains(Problem::TooMany) {
        failures.push(format!(
            "{case}: {} kept, {} omitted",
            r.entries().len(),
            r.omitted()
        ));
    }
    for e in r.entries() {
        if e.size == 0 || e.base.is_some_and(|b| b.checked_add(e.size).is_none()) {
            failures.push(format!("{case}: bad entry {e:?}"));
        }
    }
    if r.problems.is_empty() {
        let blob = mairbench_core::platform::dtb_size(dtb).and_then(|n| dtb.get(..n));
        let theirs = blob.and_then(|b| catch_unwind(|| oracle(b)).ok().flatten());
        if let Some(theirs) = theirs {
            if Fdt::new(blob.unwrap()).is_ok() && listing(&r) != theirs {
                failures.push(format!(
                    "{case}: {:?} vs dtoolkit's {theirs:?}",
                    listing(&r)
                ));
            }
        }
    }
    !r.entries().is_empty()
}

fn mutate(name: &str, seed: u64, flips: usize) {
    let dtb = fixture(name);
    let mut rng = Rng(seed);
    let mut failures = Vec::new();
    let (mut cases, mut read) = (0, 0);
    let mut run = |case: String, blob: &[u8], failures: &mut Vec<String>| {
        cases += 1;
        read += usize::from(survive(&case, blob, failures));
    };
    for len in 0..dtb.len() {
        run(format!("{name} cut to {len}"), &dtb[..len], &mut failures);
        let patched = with_field(&dtb[..len.max(8)], TOTALSIZE, len as u32);
        run(
            format!("{name} cut to {len}, totalsize patched"),
            &patched,
            &mut failures,
        );
    }
    for off in (0..dtb.len() as u32 + 32).chain([u32::MAX, u32::MAX - 15, 0x8000_0000]) {
        let moved = with_field(&dtb, OFF_MEM_RSVMAP, off);
        run(
            format!("{name} off_mem_rsvmap {off:#x}"),
            &moved,
            &mut failures,
        );
    }
    for i in 0..flips {
        let mut bad = dtb.clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(bad.len());
            bad[at] ^= 1 << rng.below(8);
        }
        run(
            format!("{name} bit flips #{i} (seed {seed:#x})"),
            &bad,
            &mut failures,
        );
    }
    eprintln!(
        "{name}: {cases} cases, {read} with reservations read, {} failures",
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{:#?}",
        &failures[..failures.len().min(20)]
    );
    assert!(read > cases / 4, "the mutations must reach the parser");
}

#[test]
fn reserved_mutations() {
    mutate("reserved.dtb", 0x5eed_0001, 6000);
}

#[test]
fn reserved_cells_mutations() {
    mutate("reserved-cells.dtb", 0x5eed_0002, 4000);
}

#[test]
fn reserved_many_mutations() {
    mutate("reserved-many.dtb", 0x5eed_0003, 2000);
}

#[test]
fn a_rejected_dtb_keeps_no_reservations() {
    let mut dtb = fixture("reserved.dtb");
    dtb[0] ^= 1;
    let p = discover(Some(&dtb));
    assert_eq!(
        p.problems.iter().collect::<Vec<_>>(),
        [PlatformProblem::DtbHeader]
    );
    assert_eq!(p.reserved, Reserved::NONE);
}
