//! Memory that the device tree reserves: the *Memory Reservation Block* of the
//! blob (`/memreserve/` in a `.dts`) and the children of `/reserved-memory`.
//!
//! On a board that is where TF-A, OP-TEE, a co-processor's firmware or the boot
//! loader's own data live; the firmware must put none of its own memory there.
//! [`read`] lists them as [`Reservation`]s; what is missing or malformed is
//! named in [`Reserved::problems`], never a panic.
//!
//! Rules (Devicetree Specification v0.4, *Memory Reservation Block* and
//! *`/reserved-memory` Node*; Linux's `drivers/of/fdt.c` where the
//! specification leaves room):
//! - The reservation block starts at the header's `off_mem_rsvmap` and holds
//!   (address, size) pairs of big-endian `u64`s. It ends at the first entry of
//!   size 0, as libfdt's `fdt_num_mem_rsv()` and Linux's
//!   `early_init_fdt_scan_reserved_mem()` end it (the specification's
//!   terminator is (0, 0)). A block with no such entry inside the blob keeps
//!   the entries read ([`Problem::MemReserveUnterminated`]).
//! - Each child of `/reserved-memory` whose `status` is absent, `okay` or `ok`:
//!   every `reg` entry of non-zero size (with `/reserved-memory`'s own
//!   `#address-cells` and `#size-cells`) is a fixed reservation; `no-map` is
//!   noted. A child without `reg` but with a `size` is *dynamic*: an OS places it
//!   (within `alloc-ranges`, if given), so it has no address here and nothing
//!   to avoid; it is listed all the same. A child with neither, or with a `reg`
//!   or `size` that cannot be read, is skipped ([`Problem::BadNode`]).
//!   `ranges` is not applied: the addresses are read as CPU physical addresses,
//!   as Linux requires them to be (it ignores a `/reserved-memory` whose cells
//!   differ from the root's).
//! - A range that would run past the end of the 64-bit address space is cut at
//!   its end ([`Problem::BadRange`]): avoiding too much is safe.
//! - At most [`MAX_RESERVED`] entries are kept, and no fixed range is ever
//!   dropped: beyond that, a new fixed range widens the kept one whose hull with
//!   it is smallest, to cover both and the gap between ([`Reserved::merged`]
//!   counts the ranges folded so; avoiding too much is safe, and a buffer that no
//!   longer fits is refused with a clear error). Only dynamic
//!   reservations beyond it, which have no address to avoid, are left out
//!   ([`Reserved::omitted`]). Either is named ([`Problem::TooMany`]).
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::arithmetic_side_effects
)]

use crate::fdt::{self, Fdt, Node};

/// How many reservations [`Reserved`] keeps. The most in any board DTB of
/// Debian's Linux 6.1 arm64 package (577 of them) is 44, in Qualcomm's SM8450
/// boards' `/reserved-memory`.
pub const MAX_RESERVED: usize = 64;

/// Byte offset of `off_mem_rsvmap` in the header.
const OFF_OFF_MEM_RSVMAP: usize = 16;
/// Bytes of one reservation block entry: address and size, a `u64` each.
const RSV_ENTRY: usize = 16;

/// Where a reservation comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The memory reservation block (`/memreserve/`).
    MemReserve,
    /// A child of `/reserved-memory`.
    ReservedMemory,
    /// The UEFI memory map: memory that is not free after ExitBootServices (runtime
    /// services, ACPI, reserved; `uefi::MemoryMap`).
    Uefi,
}

impl Source {
    /// The source as records name it: `memreserve` or `reserved-memory`.
    pub const fn name(self) -> &'static str {
        match self {
            Source::MemReserve => "memreserve",
            Source::ReservedMemory => "reserved-memory",
            Source::Uefi => "uefi",
        }
    }
}

/// One reserved range (or, when dynamic, one reserved size).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reservation<'a> {
    /// Where it was found.
    pub source: Source,
    /// The `/reserved-memory` child's full name (`secmon@4c000000`); `""` for
    /// `/memreserve/`.
    pub name: &'a str,
    /// Physical address of the first byte; `None` for a dynamic reservation (a
    /// `size` without `reg`: an OS places it).
    pub base: Option<u64>,
    /// Bytes (never 0).
    pub size: u64,
    /// The node has `no-map`: not even a speculative access may reach it.
    pub no_map: bool,
}

impl Reservation<'_> {
    const EMPTY: Reservation<'static> = Reservation {
        source: Source::MemReserve,
        name: "",
        base: None,
        size: 0,
        no_map: false,
    };

    /// `(base, size)` of a fixed reservation; `None` for a dynamic one.
    pub fn range(&self) -> Option<(u64, u64)> {
        Some((self.base?, self.size))
    }

    /// Whether it is fixed and shares a byte with `[base, base + size)`.
    pub fn overlaps(&self, base: u64, size: u64) -> bool {
        self.range()
            .is_some_and(|(b, s)| overlap((b, s), (base, size)))
    }

    /// What the memory map calls it: `reserved`, `reserved (no-map)` or
    /// `reserved (dynamic)`.
    pub const fn what(&self) -> &'static str {
        match (self.base, self.no_map) {
            (None, _) => "reserved (dynamic)",
            (Some(_), true) => "reserved (no-map)",
            (Some(_), false) => "reserved",
        }
    }
}

/// Whether the ranges `(base, size)` share a byte (ranges are cut at the end
/// of the address space).
pub fn overlap(a: (u64, u64), b: (u64, u64)) -> bool {
    a.1 != 0 && b.1 != 0 && a.0 < end(b) && b.0 < end(a)
}

/// The end of a range `(base, size)`, cut at the end of the address space.
fn end((base, size): (u64, u64)) -> u64 {
    base.saturating_add(size)
}

/// Something wrong with the reservations of a device tree.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Problem {
    /// `off_mem_rsvmap` points outside the blob (or to fewer than 16 bytes before its end).
    MemReserveOutside,
    /// The reservation block has no entry of size 0 inside the blob.
    MemReserveUnterminated,
    /// `/reserved-memory` has a malformed `#address-cells` or `#size-cells`.
    BadCells,
    /// A `/reserved-memory` child has no readable `reg` or `size`.
    BadNode,
    /// A range runs past the end of the address space.
    BadRange,
    /// More reservations than [`MAX_RESERVED`].
    TooMany,
}

impl Problem {
    /// Every problem, in bit order.
    pub const ALL: [Problem; 6] = [
        Problem::MemReserveOutside,
        Problem::MemReserveUnterminated,
        Problem::BadCells,
        Problem::BadNode,
        Problem::BadRange,
        Problem::TooMany,
    ];

    /// A sentence saying what was wrong and what was done instead.
    pub const fn message(self) -> &'static str {
        match self {
            Problem::MemReserveOutside => {
                "the memory reservation block (off_mem_rsvmap) is outside the blob: no \
                 /memreserve/ entries read"
            }
            Problem::MemReserveUnterminated => {
                "the memory reservation block has no terminating entry inside the blob: the \
                 entries up to the blob's end are kept"
            }
            Problem::BadCells => {
                "/reserved-memory has a malformed #address-cells or #size-cells: its children \
                 are ignored"
            }
            Problem::BadNode => {
                "a /reserved-memory child has neither a readable reg nor a readable size: it \
                 is ignored"
            }
            Problem::BadRange => {
                "a reserved range runs past the end of the address space: it is cut there"
            }
            Problem::TooMany => {
                "more than 64 reserved ranges: each further one widens its nearest, every \
                 byte still avoided (dynamic ones beyond are only counted)"
            }
        }
    }
}

crate::problems::kind!(Problem);

/// The reservations of a device tree, in blob order: `/memreserve/` first,
/// then `/reserved-memory`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reserved<'a> {
    entries: [Reservation<'a>; MAX_RESERVED],
    count: usize,
    merged: usize,
    omitted: usize,
    /// What was wrong.
    pub problems: Problems,
}

impl<'a> Reserved<'a> {
    /// No reservations, no problems.
    pub const NONE: Reserved<'static> = Reserved::none();

    /// [`Reserved::NONE`], as a function: called at run time it fills the entries in place,
    /// where a copy of the constant would keep a 3 KiB image of it in the firmware.
    pub const fn none() -> Reserved<'static> {
        Reserved {
            entries: [Reservation::EMPTY; MAX_RESERVED],
            count: 0,
            merged: 0,
            omitted: 0,
            problems: Problems::NONE,
        }
    }

    /// The reservations kept, at most [`MAX_RESERVED`].
    pub fn entries(&self) -> &[Reservation<'a>] {
        self.entries.get(..self.count).unwrap_or(&self.entries)
    }

    /// The fixed ranges, `(base, size)`: what must be avoided.
    pub fn ranges(&self) -> impl Iterator<Item = (u64, u64)> + '_ {
        self.entries().iter().filter_map(Reservation::range)
    }

    /// The fixed reservations that share a byte with `[base, base + size)`.
    pub fn overlapping(&self, base: u64, size: u64) -> impl Iterator<Item = &Reservation<'a>> {
        self.entries()
            .iter()
            .filter(move |r| r.overlaps(base, size))
    }

    /// How many fixed ranges were merged into a neighbour to fit (named by
    /// [`Problem::TooMany`]): their bytes are still avoided.
    pub fn merged(&self) -> usize {
        self.merged
    }

    /// How many dynamic reservations (no address: nothing to avoid) did not fit (named by
    /// [`Problem::TooMany`]).
    pub fn omitted(&self) -> usize {
        self.omitted
    }

    /// How many reservations the tree (and UEFI map) named, kept, merged or omitted.
    pub fn total(&self) -> usize {
        self.count
            .saturating_add(self.merged)
            .saturating_add(self.omitted)
    }

    fn push(&mut self, r: Reservation<'a>) {
        if let Some(slot) = self.entries.get_mut(self.count) {
            *slot = r;
            self.count = self.count.saturating_add(1);
            return;
        }
        self.problems.insert(Problem::TooMany);
        let Some(range) = r.range() else {
            self.omitted = self.omitted.saturating_add(1);
            return;
        };
        // The kept fixed range nearest to the new one covers it too.
        // The bytes a kept range and the new one would cover merged: the smallest wins.
        let hull = |(b, size): (u64, u64)| {
            let (start, end) = (b.min(range.0), end((b, size)).max(end(range)));
            end.saturating_sub(start)
        };
        let nearest = self
            .entries
            .iter()
            .enumerate()
            .filter_map(|(i, e)| Some((hull(e.range()?), i)))
            .min();
        match nearest {
            Some((_, i)) => {
                self.widen(i, r);
                self.merged = self.merged.saturating_add(1);
            }
            // Every kept entry is dynamic: the new range takes the last one's place.
            None => {
                if let Some(slot) = self.entries.last_mut() {
                    *slot = r;
                }
                self.omitted = self.omitted.saturating_add(1);
            }
        }
    }

    /// Entry `i` made to cover `r` too (and the gap between them).
    fn widen(&mut self, i: usize, r: Reservation<'a>) {
        let (Some(e), Some(b)) = (self.entries.get_mut(i), r.range()) else {
            return;
        };
        let Some(a) = e.range() else {
            return;
        };
        let start = a.0.min(b.0);
        *e = Reservation {
            source: e.source,
            name: "(merged)",
            base: Some(start),
            size: end(a).max(end(b)).saturating_sub(start).max(1),
            no_map: e.no_map || r.no_map,
        };
    }

    /// Adds a range of the UEFI memory map that is not free (`name`: its memory type,
    /// `EfiRuntimeServicesData`), `size` bytes at `base`.
    pub fn add_uefi(&mut self, name: &'a str, base: u64, size: u64, no_map: bool) {
        self.add(Source::Uefi, name, Some(base), size, no_map);
    }

    /// Adds a reservation of `size` bytes (0: nothing) at `base` (`None`: dynamic).
    fn add(&mut self, source: Source, name: &'a str, base: Option<u64>, size: u64, no_map: bool) {
        if size == 0 {
            return;
        }
        let size = match base {
            Some(base) if base.checked_add(size).is_none() => {
                self.problems.insert(Problem::BadRange);
                u64::MAX.saturating_sub(base).max(1)
            }
            _ => size,
        };
        self.push(Reservation {
            source,
            name,
            base,
            size,
            no_map,
        });
    }
}

/// Reads the reservations of `fdt`, which [`Fdt::new`] made of `blob` (the
/// reservation block is read from `blob`'s header; see the module
/// documentation).
pub fn read<'a>(blob: &'a [u8], fdt: Fdt<'a>) -> Reserved<'a> {
    let mut r = Reserved::none();
    mem_reserve(blob, &mut r);
    if let Some(node) = fdt.find_node("/reserved-memory") {
        reserved_memory(node, &mut r);
    }
    r
}

/// The entries of the memory reservation block.
fn mem_reserve<'a>(blob: &'a [u8], r: &mut Reserved<'a>) {
    let blob = fdt::total_size(blob)
        .and_then(|total| blob.get(..total))
        .unwrap_or(blob);
    let start = be32(blob, OFF_OFF_MEM_RSVMAP).and_then(|off| usize::try_from(off).ok());
    // Room for one entry at least: the terminator.
    let block = start.and_then(|off| blob.get(off..));
    let Some(mut rest) = block.filter(|rest| rest.len() >= RSV_ENTRY) else {
        r.problems.insert(Problem::MemReserveOutside);
        return;
    };
    loop {
        let Some((entry, more)) = rest.split_first_chunk::<RSV_ENTRY>() else {
            r.problems.insert(Problem::MemReserveUnterminated);
            return;
        };
        rest = more;
        let Some((address, size)) = entry.split_first_chunk::<8>() else {
            return;
        };
        let (address, size) = (u64::from_be_bytes(*address), fdt::cells_to_u64(size));
        let Some(size) = size.filter(|&size| size != 0) else {
            return;
        };
        r.add(Source::MemReserve, "", Some(address), size, false);
    }
}

/// The enabled children of `/reserved-memory`.
fn reserved_memory<'a>(node: Node<'a>, r: &mut Reserved<'a>) {
    let Some(cells) = node.address_cells().zip(node.size_cells()) else {
        r.problems.insert(Problem::BadCells);
        return;
    };
    for child in node.children() {
        let status = child.property("status").map(|s| s.as_str());
        if !matches!(status, None | Some(Some("okay" | "ok"))) {
            continue;
        }
        let name = child.name();
        let no_map = child.property("no-map").is_some();
        if let Some(reg) = child.property("reg") {
            let Some(entries) = reg.entries([cells.0, cells.1]) else {
                r.problems.insert(Problem::BadNode);
                continue;
            };
            for [base, size] in entries {
                match (base, size) {
                    (Some(base), Some(size)) => {
                        r.add(Source::ReservedMemory, name, Some(base), size, no_map)
                    }
                    _ => r.problems.insert(Problem::BadNode),
                }
            }
            continue;
        }
        // Exactly one number of #size-cells cells.
        let size = child
            .property("size")
            .filter(|size| u32::try_from(size.value().len()).ok() == cells.1.checked_mul(4))
            .and_then(|size| fdt::cells_to_u64(size.value()));
        match size {
            Some(size) => r.add(Source::ReservedMemory, name, None, size, no_map),
            None => r.problems.insert(Problem::BadNode),
        }
    }
}

fn be32(bytes: &[u8], off: usize) -> Option<u32> {
    Some(u32::from_be_bytes(*bytes.get(off..)?.first_chunk()?))
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    #[test]
    fn ranges_overlap() {
        assert!(overlap((0, 2), (1, 1)));
        assert!(overlap((1, 1), (0, 2)));
        assert!(!overlap((0, 1), (1, 1)));
        assert!(!overlap((1, 1), (0, 1)));
        assert!(!overlap((0, 0), (0, 10)));
        assert!(!overlap((5, 10), (7, 0)));
        assert!(overlap((u64::MAX - 1, 10), (u64::MAX - 1, 1)));
        assert!(overlap((0, u64::MAX), (u64::MAX - 1, 1)));
    }

    #[test]
    fn too_many_are_merged_never_dropped() {
        // Page-sized ranges a page apart: beyond the capacity each new one merges with the
        // nearest, and every byte of every range stays avoided.
        let mut r = Reserved::NONE;
        let n = MAX_RESERVED as u64 + 3;
        for i in 0..n {
            r.add(Source::MemReserve, "", Some(i << 13), 4096, false);
        }
        assert_eq!(r.entries().len(), MAX_RESERVED);
        assert_eq!((r.merged(), r.omitted(), r.total()), (3, 0, n as usize));
        assert!(r.problems.contains(Problem::TooMany));
        for i in 0..n {
            assert_eq!(r.overlapping(i << 13, 4096).count(), 1, "range {i}");
        }
        let limit = std::format!("more than {MAX_RESERVED} ");
        assert!(Problem::TooMany.message().starts_with(&limit));
        // Dynamic reservations beyond the capacity have nothing to avoid: counted.
        r.add(Source::ReservedMemory, "pool", None, 4096, false);
        assert_eq!((r.merged(), r.omitted(), r.total()), (3, 1, n as usize + 1));
    }

    #[test]
    fn many_scattered_ranges_all_stay_covered() {
        // 500 ranges from a fixed pseudo-random sequence, with dynamic ones among them and
        // no-map ones: each range is inside one kept range, and a merged range keeps no-map.
        let mut r = Reserved::NONE;
        let mut x: u64 = 0x2545_f491_4f6c_dd1d;
        let mut ranges = std::vec::Vec::new();
        for i in 0..500u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let base = 0x4000_0000 + (x % (1 << 32)) / 4096 * 4096;
            let size = 4096 * (1 + (x >> 40) % 256);
            let no_map = i % 3 == 0;
            if i % 7 == 0 {
                r.add(Source::ReservedMemory, "dyn", None, size, false);
            } else {
                r.add(Source::ReservedMemory, "n", Some(base), size, no_map);
                ranges.push((base, size, no_map));
            }
        }
        assert_eq!(r.entries().len(), MAX_RESERVED);
        assert_eq!(r.total(), 500);
        for (base, size, no_map) in ranges {
            let inside: std::vec::Vec<_> = r
                .entries()
                .iter()
                .filter(|e| {
                    e.range()
                        .is_some_and(|(b, s)| b <= base && base + size <= b + s)
                })
                .collect();
            assert!(
                !inside.is_empty(),
                "{base:#x}+{size:#x} is no longer avoided"
            );
            assert!(
                !no_map || inside.iter().any(|e| e.no_map),
                "{base:#x}: no-map lost"
            );
        }
    }

    #[test]
    fn a_range_past_the_end_is_cut() {
        let mut r = Reserved::NONE;
        r.add(Source::MemReserve, "", Some(u64::MAX - 4), 100, false);
        r.add(Source::MemReserve, "", Some(u64::MAX), 1, false);
        r.add(Source::MemReserve, "", Some(8), 0, false);
        let ranges: std::vec::Vec<_> = r.ranges().collect();
        assert_eq!(ranges, [(u64::MAX - 4, 4), (u64::MAX, 1)]);
        assert!(r.problems.contains(Problem::BadRange));
    }
}
