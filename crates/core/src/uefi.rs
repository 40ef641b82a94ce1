//! What the firmware takes from UEFI, as pure logic: the configuration-table GUIDs, the load
//! options (UCS-2) turned into bootargs, and the memory map turned into RAM regions and
//! reservations for the placement (`placement`, `reserved`).
//!
//! Rules (UEFI Specification 2.10, 7.2 `GetMemoryMap()` and 4.6 *EFI Configuration Table*):
//! - Descriptors are `descriptor_size` bytes apart (at least 40: type `u32`, then at 8 the
//!   physical start, at 16 the virtual start, at 24 the number of 4 KiB pages and at 32 the
//!   attributes, `u64` each, little-endian); a map of another stride is read with that stride.
//! - Memory the OS may use once boot services have exited: `EfiLoaderCode`/`Data`,
//!   `EfiBootServicesCode`/`Data` and `EfiConventionalMemory`. Everything else that is RAM
//!   (runtime services, ACPI tables and NVS, reserved, unusable, persistent, PAL code,
//!   unaccepted) is a reservation: the buffer, the tables and the stacks never go there.
//! - RAM is what the map describes with the `EFI_MEMORY_WB` attribute that is not
//!   memory-mapped I/O; neighbouring ranges are merged.
//! - A truncated or malformed map (stride below 40, a range past the end of the address
//!   space, more ranges than kept) is named in [`MemoryMap::problems`], never a panic: a range
//!   cut or left out of RAM is only memory not used; a reservation is never left out (the
//!   last one kept grows to cover those beyond it).
#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::arithmetic_side_effects
)]

use core::fmt;

use crate::platform::{MemRegion, Platform, MAX_RAM_REGIONS};

/// A GUID as it lies in memory (`EFI_GUID`: a little-endian `u32`, two `u16`, eight bytes).
pub type Guid = [u8; 16];

/// The bytes of the GUID `d1-d2-d3-d4[0..2]-d4[2..8]`.
pub const fn guid(d1: u32, d2: u16, d3: u16, d4: [u8; 8]) -> Guid {
    let a = d1.to_le_bytes();
    let b = d2.to_le_bytes();
    let c = d3.to_le_bytes();
    [
        a[0], a[1], a[2], a[3], b[0], b[1], c[0], c[1], d4[0], d4[1], d4[2], d4[3], d4[4], d4[5],
        d4[6], d4[7],
    ]
}

/// `EFI_DTB_TABLE_GUID` b1b621d5-f19c-41a5-830b-d9152c69aae0: the flattened device tree.
pub const DTB_TABLE: Guid = guid(
    0xb1b6_21d5,
    0xf19c,
    0x41a5,
    [0x83, 0x0b, 0xd9, 0x15, 0x2c, 0x69, 0xaa, 0xe0],
);

/// `EFI_ACPI_20_TABLE_GUID` 8868e871-e4f1-11d3-bc22-0080c73c8881: the ACPI 2.0+ RSDP.
pub const ACPI_20_TABLE: Guid = guid(
    0x8868_e871,
    0xe4f1,
    0x11d3,
    [0xbc, 0x22, 0x00, 0x80, 0xc7, 0x3c, 0x88, 0x81],
);

/// `EFI_LOADED_IMAGE_PROTOCOL_GUID` 5b1b31a1-9562-11d2-8e3f-00a0c969723b.
pub const LOADED_IMAGE_PROTOCOL: Guid = guid(
    0x5b1b_31a1,
    0x9562,
    0x11d2,
    [0x8e, 0x3f, 0x00, 0xa0, 0xc9, 0x69, 0x72, 0x3b],
);

/// `EFI_GRAPHICS_OUTPUT_PROTOCOL_GUID` 9042a9de-23dc-4a38-96fb-7aded080516a.
pub const GRAPHICS_OUTPUT_PROTOCOL: Guid = guid(
    0x9042_a9de,
    0x23dc,
    0x4a38,
    [0x96, 0xfb, 0x7a, 0xde, 0xd0, 0x80, 0x51, 0x6a],
);

/// What the configuration tables offer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tables {
    /// Physical address of the device tree (`EFI_DTB_TABLE_GUID`).
    pub dtb: Option<u64>,
    /// Physical address of the ACPI 2.0+ RSDP (`EFI_ACPI_20_TABLE_GUID`).
    pub rsdp: Option<u64>,
}

impl Tables {
    /// Looks through `(guid, address)` pairs; the first of each kind counts.
    pub fn find(entries: impl Iterator<Item = (Guid, u64)>) -> Tables {
        let mut t = Tables::default();
        for (g, addr) in entries {
            if g == DTB_TABLE && t.dtb.is_none() {
                t.dtb = Some(addr);
            } else if g == ACPI_20_TABLE && t.rsdp.is_none() {
                t.rsdp = Some(addr);
            }
        }
        t
    }

    /// What the `start` record calls them: `"dtb"` when a device tree is there (it is used
    /// even when an RSDP is there too), `"acpi"` for an RSDP alone, else `"none"`.
    pub const fn name(&self) -> &'static str {
        match (self.dtb, self.rsdp) {
            (Some(_), _) => "dtb",
            (None, Some(_)) => "acpi",
            (None, None) => "none",
        }
    }
}

/// Something odd about the load options.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OptionsNote {
    /// An odd number of bytes: the last one is not a whole UCS-2 unit and is dropped.
    OddSize,
    /// Characters outside printable ASCII became `?`.
    NonAscii,
    /// More than the buffer holds: cut at a word boundary.
    Truncated,
}

impl OptionsNote {
    /// A sentence saying what was done.
    pub const fn message(self) -> &'static str {
        match self {
            OptionsNote::OddSize => {
                "the load options have an odd number of bytes: the last byte is dropped"
            }
            OptionsNote::NonAscii => {
                "the load options hold characters outside printable ASCII: each became '?'"
            }
            OptionsNote::Truncated => "the load options are longer than 1 KiB: the rest is cut",
        }
    }
}

impl fmt::Display for OptionsNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

/// Turns the load options (`bytes`: UCS-2, little-endian, maybe NUL-terminated) into ASCII
/// bootargs in `out`, returning their length and what was odd. Tabs and line ends become
/// spaces, other characters outside printable ASCII `?`. The UEFI shell passes the whole
/// command line, the program's own path first: a first word ending in `.efi` (any case) is
/// dropped, as is leading and trailing blank space.
pub fn load_options(bytes: &[u8], out: &mut [u8]) -> (usize, Option<OptionsNote>) {
    let mut note = None;
    if !bytes.len().is_multiple_of(2) {
        note = Some(OptionsNote::OddSize);
    }
    let units = bytes
        .chunks_exact(2)
        .map(|c| match c {
            [lo, hi] => u16::from_le_bytes([*lo, *hi]),
            _ => 0,
        })
        .take_while(|&u| u != 0);
    let mut n = 0usize;
    for u in units {
        let b = match u {
            0x09 | 0x0a | 0x0d => b' ',
            0x20..=0x7e => u as u8,
            _ => {
                note = Some(OptionsNote::NonAscii);
                b'?'
            }
        };
        match out.get_mut(n) {
            Some(slot) => {
                *slot = b;
                n = n.saturating_add(1);
            }
            None => {
                note = Some(OptionsNote::Truncated);
                // Cut at the last space, so that no option arrives half.
                n = out.iter().rposition(|&c| c == b' ').unwrap_or(out.len());
                break;
            }
        }
    }
    let text = out.get(..n).unwrap_or_default();
    let (start, end) = trim(text, program_word(text));
    if start > 0 {
        // `copy_within` by swaps (see [`shift_right`]); what is left past the new end is
        // not read.
        for i in start..end {
            if let Some((head, [b, ..])) = out.split_at_mut_checked(i) {
                if let Some(a) = head.get_mut(i.wrapping_sub(start)) {
                    core::mem::swap(a, b);
                }
            }
        }
    }
    (end.saturating_sub(start), note)
}

/// `s.rotate_right(1)` one swap at a time, as the short tables here need: a slice rotation
/// or copy brings the general `memmove` (about 1 KiB) into the firmware image.
fn shift_right<T>(s: &mut [T]) {
    for i in (1..s.len()).rev() {
        swap_pair(s, i);
    }
}

/// `s.rotate_left(1)`, as [`shift_right`] does it.
fn shift_left<T>(s: &mut [T]) {
    for i in 1..s.len() {
        swap_pair(s, i);
    }
}

/// Swaps elements `i - 1` and `i` (nothing when `i` is 0 or past the end).
fn swap_pair<T>(s: &mut [T], i: usize) {
    if let Some([a, b]) = s.get_mut(i.wrapping_sub(1)..i.wrapping_add(1)) {
        core::mem::swap(a, b);
    }
}

/// Where the words after the program's path start (0 when the first word is not one).
fn program_word(text: &[u8]) -> usize {
    let lead = text.iter().take_while(|&&c| c == b' ').count();
    let rest = text.get(lead..).unwrap_or_default();
    let len = rest.iter().take_while(|&&c| c != b' ').count();
    let word = rest.get(..len).unwrap_or_default();
    let is_efi = word.len() >= 4
        && word
            .get(word.len().saturating_sub(4)..)
            .is_some_and(|ext| ext.eq_ignore_ascii_case(b".efi"));
    if is_efi {
        lead.saturating_add(len)
    } else {
        0
    }
}

/// `[start, end)` of `text[from..]` without blank space around it.
fn trim(text: &[u8], from: usize) -> (usize, usize) {
    let rest = text.get(from..).unwrap_or_default();
    let lead = rest.iter().take_while(|&&c| c == b' ').count();
    let trail = rest.iter().rev().take_while(|&&c| c == b' ').count();
    let start = from.saturating_add(lead);
    (start, text.len().saturating_sub(trail).max(start))
}

/// `EFI_MEMORY_WB`: the range supports write-back caching (it is RAM).
pub const MEMORY_WB: u64 = 1 << 3;

/// Bytes of one descriptor as version 1 defines it.
pub const DESCRIPTOR_MIN: usize = 40;

/// Memory types (`EFI_MEMORY_TYPE`), by value, as the records name them.
const TYPE_NAMES: [&str; 16] = [
    "EfiReservedMemoryType",
    "EfiLoaderCode",
    "EfiLoaderData",
    "EfiBootServicesCode",
    "EfiBootServicesData",
    "EfiRuntimeServicesCode",
    "EfiRuntimeServicesData",
    "EfiConventionalMemory",
    "EfiUnusableMemory",
    "EfiACPIReclaimMemory",
    "EfiACPIMemoryNVS",
    "EfiMemoryMappedIO",
    "EfiMemoryMappedIOPortSpace",
    "EfiPalCode",
    "EfiPersistentMemory",
    "EfiUnacceptedMemoryType",
];

/// The name of memory type `ty` (`"EfiOtherMemoryType"` beyond the specification's).
pub fn type_name(ty: u32) -> &'static str {
    usize::try_from(ty)
        .ok()
        .and_then(|i| TYPE_NAMES.get(i))
        .copied()
        .unwrap_or("EfiOtherMemoryType")
}

/// Whether memory of type `ty` is free for the firmware once boot services have exited.
pub const fn usable(ty: u32) -> bool {
    matches!(ty, 1..=4 | 7)
}

/// Whether `ty` is memory-mapped I/O, never RAM.
const fn mmio(ty: u32) -> bool {
    matches!(ty, 11 | 12)
}

/// One descriptor of the map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Descriptor {
    /// `EFI_MEMORY_TYPE`.
    pub ty: u32,
    /// Physical address of the first byte.
    pub base: u64,
    /// Bytes (pages x 4 KiB; cut at the end of the address space).
    pub size: u64,
    /// Attributes (`EFI_MEMORY_WB`, ...).
    pub attr: u64,
}

/// Something wrong with the memory map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Problem {
    /// The descriptor size is below 40 bytes: nothing is read.
    BadStride,
    /// The map's size is not a whole number of descriptors: the part is ignored.
    Partial,
    /// A range runs past the end of the address space: it is cut there.
    BadRange,
    /// More separate RAM ranges than the platform keeps: the rest are not used.
    TooManyRam,
    /// More reservations than kept: the last kept one covers the rest.
    TooManyReserved,
    /// No RAM at all in the map.
    NoRam,
}

impl Problem {
    /// Every problem, in bit order.
    pub const ALL: [Problem; 6] = [
        Problem::BadStride,
        Problem::Partial,
        Problem::BadRange,
        Problem::TooManyRam,
        Problem::TooManyReserved,
        Problem::NoRam,
    ];

    /// A sentence saying what was wrong and what was done instead.
    pub const fn message(self) -> &'static str {
        match self {
            Problem::BadStride => {
                "the UEFI memory map's descriptor size is below 40 bytes: the map is not read"
            }
            Problem::Partial => {
                "the UEFI memory map ends inside a descriptor: the partial descriptor is ignored"
            }
            Problem::BadRange => {
                "a UEFI memory map range runs past the end of the address space: it is cut there"
            }
            Problem::TooManyRam => {
                "more than 8 separate RAM ranges in the UEFI memory map: the rest are not used"
            }
            Problem::TooManyReserved => {
                "more reserved ranges in the UEFI memory map than kept: the last one kept is \
                 widened over the rest, so all are still avoided"
            }
            Problem::NoRam => "the UEFI memory map describes no write-back RAM",
        }
    }
}

crate::problems::kind!(Problem);

/// How many merged reservations [`MemoryMap`] keeps (room left in
/// [`crate::reserved::MAX_RESERVED`] for the device tree's own).
pub const MAX_MAP_RESERVED: usize = 32;

/// A reservation of the map: a merged run of neighbouring descriptors of one type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Reservation {
    /// `EFI_MEMORY_TYPE` of the run.
    pub ty: u32,
    /// First byte.
    pub base: u64,
    /// Bytes.
    pub size: u64,
}

impl Reservation {
    /// Its type's name.
    pub fn name(&self) -> &'static str {
        type_name(self.ty)
    }

    /// Whether nothing may map it (reserved, unusable or unaccepted memory).
    pub const fn no_map(&self) -> bool {
        matches!(self.ty, 0 | 8 | 15) || self.ty > 15
    }
}

/// The map as the placement needs it: RAM and what in it is not free.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemoryMap {
    ram: [MemRegion; MAX_RAM_REGIONS],
    ram_count: usize,
    reserved: [Reservation; MAX_MAP_RESERVED],
    reserved_count: usize,
    /// Descriptors read.
    pub descriptors: usize,
    /// Bytes of usable memory (free after ExitBootServices).
    pub usable_bytes: u64,
    /// What was wrong.
    pub problems: Problems,
}

/// The descriptors of a raw map (`bytes`, descriptors `stride` bytes apart; none when the
/// stride is below [`DESCRIPTOR_MIN`]), with whether each had to be cut at the end of the
/// address space.
pub fn descriptors(bytes: &[u8], stride: usize) -> impl Iterator<Item = (Descriptor, bool)> + '_ {
    let ok = stride >= DESCRIPTOR_MIN;
    crate::acpi::chunks(bytes, stride.max(DESCRIPTOR_MIN))
        .filter(move |_| ok)
        .map(|c| {
            let u64_at = |at: usize| crate::acpi::u64_at(c, at).unwrap_or(0);
            let ty = c.first_chunk::<4>().map_or(0, |b| u32::from_le_bytes(*b));
            let base = u64_at(8);
            let full = u64_at(24)
                .checked_mul(4096)
                .filter(|&s| base.checked_add(s).is_some());
            let d = Descriptor {
                ty,
                base,
                size: full.unwrap_or_else(|| u64::MAX.saturating_sub(base)),
                attr: u64_at(32),
            };
            (d, full.is_none())
        })
}

impl MemoryMap {
    /// Reads a raw map: `bytes` as `GetMemoryMap()` wrote it, descriptors `stride` bytes apart.
    pub fn read(bytes: &[u8], stride: usize) -> MemoryMap {
        let mut m = MemoryMap {
            ram: [MemRegion::default(); MAX_RAM_REGIONS],
            ram_count: 0,
            reserved: [Reservation::default(); MAX_MAP_RESERVED],
            reserved_count: 0,
            descriptors: 0,
            usable_bytes: 0,
            problems: Problems::NONE,
        };
        if stride < DESCRIPTOR_MIN {
            m.problems.insert(Problem::BadStride);
            return m;
        }
        if !bytes.len().is_multiple_of(stride) {
            m.problems.insert(Problem::Partial);
        }
        // Descriptors come in any order: sorted insertion into the fixed arrays.
        for (d, cut) in descriptors(bytes, stride) {
            m.descriptors = m.descriptors.saturating_add(1);
            if cut {
                m.problems.insert(Problem::BadRange);
            }
            if d.size == 0 {
                continue;
            }
            if usable(d.ty) {
                m.usable_bytes = m.usable_bytes.saturating_add(d.size);
            }
            if mmio(d.ty) || d.attr & MEMORY_WB == 0 {
                continue;
            }
            m.add_ram(d.base, d.size);
            if !usable(d.ty) {
                m.add_reserved(Reservation {
                    ty: d.ty,
                    base: d.base,
                    size: d.size,
                });
            }
        }
        if m.ram_count == 0 && !m.problems.contains(Problem::BadStride) {
            m.problems.insert(Problem::NoRam);
        }
        m
    }

    /// The RAM regions, by address, neighbours merged.
    pub fn ram(&self) -> &[MemRegion] {
        self.ram.get(..self.ram_count).unwrap_or(&self.ram)
    }

    /// The reservations (runs of one non-usable type), by address.
    pub fn reserved(&self) -> &[Reservation] {
        self.reserved
            .get(..self.reserved_count)
            .unwrap_or(&self.reserved)
    }

    fn add_ram(&mut self, base: u64, size: u64) {
        let end = base.saturating_add(size);
        let count = self.ram_count;
        let regions = self.ram.get_mut(..count).unwrap_or_default();
        // Touching or overlapping an existing region: grow it.
        if let Some(r) = regions
            .iter_mut()
            .find(|r| base <= r.base.saturating_add(r.size) && r.base <= end)
        {
            let lo = r.base.min(base);
            let hi = r.base.saturating_add(r.size).max(end);
            *r = MemRegion {
                base: lo,
                size: hi.saturating_sub(lo),
            };
            self.merge_ram();
            return;
        }
        if count >= MAX_RAM_REGIONS {
            self.problems.insert(Problem::TooManyRam);
            return;
        }
        let at = regions.iter().position(|r| r.base > base).unwrap_or(count);
        if let Some(tail) = self.ram.get_mut(at..=count) {
            shift_right(tail);
            if let Some(slot) = tail.first_mut() {
                *slot = MemRegion { base, size };
            }
        }
        self.ram_count = count.saturating_add(1);
    }

    /// Merges neighbouring RAM regions after one grew.
    fn merge_ram(&mut self) {
        let mut i = 1usize;
        while i < self.ram_count {
            let (Some(a), Some(b)) = (
                self.ram.get(i.saturating_sub(1)).copied(),
                self.ram.get(i).copied(),
            ) else {
                return;
            };
            if b.base <= a.base.saturating_add(a.size) {
                let hi = a
                    .base
                    .saturating_add(a.size)
                    .max(b.base.saturating_add(b.size));
                if let Some(slot) = self.ram.get_mut(i.saturating_sub(1)) {
                    slot.size = hi.saturating_sub(a.base);
                }
                if let Some(tail) = self.ram.get_mut(i..self.ram_count) {
                    shift_left(tail);
                }
                self.ram_count = self.ram_count.saturating_sub(1);
            } else {
                i = i.saturating_add(1);
            }
        }
    }

    fn add_reserved(&mut self, r: Reservation) {
        let end = r.base.saturating_add(r.size);
        let count = self.reserved_count;
        let kept = self.reserved.get_mut(..count).unwrap_or_default();
        // A run of the same type continues.
        if let Some(prev) = kept
            .iter_mut()
            .find(|p| p.ty == r.ty && (p.base.saturating_add(p.size) == r.base || end == p.base))
        {
            let lo = prev.base.min(r.base);
            let hi = prev.base.saturating_add(prev.size).max(end);
            prev.base = lo;
            prev.size = hi.saturating_sub(lo);
            return;
        }
        if count >= MAX_MAP_RESERVED {
            // Never drop a reservation: widen the one nearest below (or above) over it, so
            // that it is still avoided (more is avoided than needed; that is safe).
            self.problems.insert(Problem::TooManyReserved);
            let near = kept.iter_mut().min_by_key(|p| p.base.abs_diff(r.base));
            if let Some(p) = near {
                let lo = p.base.min(r.base);
                let hi = p.base.saturating_add(p.size).max(end);
                p.base = lo;
                p.size = hi.saturating_sub(lo);
            }
            return;
        }
        let at = kept.iter().position(|p| p.base > r.base).unwrap_or(count);
        if let Some(tail) = self.reserved.get_mut(at..=count) {
            shift_right(tail);
            if let Some(slot) = tail.first_mut() {
                *slot = r;
            }
        }
        self.reserved_count = count.saturating_add(1);
    }

    /// Hands the map to the platform: its RAM regions replace the device tree's (as Linux
    /// takes RAM from the UEFI map, not from `/memory`), and every reservation joins the
    /// device tree's, so that the placement avoids it and the memory map lists it. A map
    /// without RAM leaves the device tree's RAM in place.
    pub fn apply_to(&self, platform: &mut Platform<'_>) {
        if !self.ram().is_empty() {
            platform.set_ram_regions(self.ram());
        }
        for r in self.reserved() {
            platform
                .reserved
                .add_uefi(r.name(), r.base, r.size, r.no_map());
        }
    }
}

#[cfg(test)]
#[allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    reason = "tests"
)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    #[test]
    fn shifts_rotate_by_one() {
        for n in 0..6 {
            let v: Vec<u32> = (0..n).collect();
            let (mut right, mut left) = (v.clone(), v.clone());
            shift_right(&mut right);
            shift_left(&mut left);
            let (mut want_right, mut want_left) = (v.clone(), v.clone());
            want_right.rotate_right(n.min(1) as usize);
            want_left.rotate_left(n.min(1) as usize);
            assert_eq!((right, left), (want_right, want_left));
        }
    }

    fn desc(ty: u32, base: u64, pages: u64, attr: u64) -> [u8; 48] {
        let mut d = [0u8; 48];
        d[..4].copy_from_slice(&ty.to_le_bytes());
        d[8..16].copy_from_slice(&base.to_le_bytes());
        d[16..24].copy_from_slice(&base.to_le_bytes());
        d[24..32].copy_from_slice(&pages.to_le_bytes());
        d[32..40].copy_from_slice(&attr.to_le_bytes());
        d
    }

    fn map(ds: &[[u8; 48]]) -> Vec<u8> {
        ds.iter().flatten().copied().collect()
    }

    const WB: u64 = MEMORY_WB | 1;

    #[test]
    fn guids_lie_in_memory_order() {
        assert_eq!(
            DTB_TABLE,
            [
                0xd5, 0x21, 0xb6, 0xb1, 0x9c, 0xf1, 0xa5, 0x41, 0x83, 0x0b, 0xd9, 0x15, 0x2c, 0x69,
                0xaa, 0xe0
            ]
        );
        let t = Tables::find([(ACPI_20_TABLE, 0x1000), (DTB_TABLE, 0x2000)].into_iter());
        assert_eq!(t.dtb, Some(0x2000));
        assert_eq!(t.rsdp, Some(0x1000));
        assert_eq!(t.name(), "dtb");
        assert_eq!(
            Tables {
                dtb: None,
                rsdp: Some(1)
            }
            .name(),
            "acpi"
        );
        assert_eq!(Tables::default().name(), "none");
    }

    fn ucs2(s: &str) -> Vec<u8> {
        s.encode_utf16().flat_map(u16::to_le_bytes).collect()
    }

    fn options(bytes: &[u8], cap: usize) -> (std::string::String, Option<OptionsNote>) {
        let mut out = std::vec![0u8; cap];
        let (n, note) = load_options(bytes, &mut out);
        (
            std::string::String::from_utf8(out[..n].to_vec()).unwrap(),
            note,
        )
    }

    #[test]
    fn load_options_become_bootargs() {
        assert_eq!(
            options(&ucs2("mairbench.quick\0junk"), 64).0,
            "mairbench.quick"
        );
        // The shell's command line starts with the program itself.
        assert_eq!(
            options(
                &ucs2("fs0:\\EFI\\BOOT\\BOOTAA64.EFI  mairbench.quick x=1 "),
                64
            )
            .0,
            "mairbench.quick x=1"
        );
        assert_eq!(options(&ucs2("mairbench.efi"), 64).0, "");
        assert_eq!(options(&ucs2("a\tb\r\n"), 64).0, "a b");
        assert_eq!(options(&[], 64), (std::string::String::new(), None));
        assert_eq!(
            options(&ucs2("é"), 64),
            ("?".into(), Some(OptionsNote::NonAscii))
        );
        let mut odd = ucs2("ab");
        odd.push(b'c');
        assert_eq!(options(&odd, 64), ("ab".into(), Some(OptionsNote::OddSize)));
        assert_eq!(
            options(&ucs2("aaa bbb ccc"), 9),
            ("aaa bbb".into(), Some(OptionsNote::Truncated))
        );
    }

    #[test]
    fn the_map_gives_ram_and_reservations() {
        let m = map(&[
            desc(7, 0x4000_0000, 0x100, WB),
            desc(6, 0x4010_0000, 0x10, WB),
            desc(6, 0x4011_0000, 0x10, WB),
            desc(2, 0x4012_0000, 0x1000, WB),
            desc(11, 0x0900_0000, 1, 1),
            desc(9, 0x5000_0000, 4, WB),
            desc(4, 0x5000_4000, 4, WB),
        ]);
        let mm = MemoryMap::read(&m, 48);
        assert_eq!(mm.descriptors, 7);
        assert!(mm.problems.is_empty(), "{:?}", mm.problems);
        assert_eq!(
            mm.ram(),
            [
                MemRegion {
                    base: 0x4000_0000,
                    size: 0x0112_0000
                },
                MemRegion {
                    base: 0x5000_0000,
                    size: 0x8000
                }
            ]
        );
        let r: Vec<_> = mm
            .reserved()
            .iter()
            .map(|r| (r.name(), r.base, r.size))
            .collect();
        assert_eq!(
            r,
            [
                ("EfiRuntimeServicesData", 0x4010_0000, 0x20_000),
                ("EfiACPIReclaimMemory", 0x5000_0000, 0x4000)
            ]
        );
        assert_eq!(mm.usable_bytes, (0x100 + 0x1000 + 4) * 4096);
    }

    #[test]
    fn odd_maps_are_named_not_trusted() {
        assert!(MemoryMap::read(&[0; 100], 24)
            .problems
            .contains(Problem::BadStride));
        let mut m = map(&[desc(7, 0x4000_0000, 1, WB)]);
        m.extend_from_slice(&[0; 10]);
        let mm = MemoryMap::read(&m, 48);
        assert!(mm.problems.contains(Problem::Partial));
        assert_eq!(mm.ram().len(), 1);
        assert!(MemoryMap::read(&[], 48).problems.contains(Problem::NoRam));
        let top = MemoryMap::read(&map(&[desc(5, u64::MAX - 4095, 5, WB)]), 48);
        assert_eq!(top.reserved()[0].size, 4095);
        assert!(top.problems.contains(Problem::BadRange));
    }

    #[test]
    fn no_reservation_is_ever_dropped() {
        let ds: Vec<_> = (0..MAX_MAP_RESERVED as u64 + 5)
            .flat_map(|i| {
                [
                    desc(6, 0x4000_0000 + i * 0x2000, 1, WB),
                    desc(7, 0x4000_1000 + i * 0x2000, 1, WB),
                ]
            })
            .collect();
        let mm = MemoryMap::read(&map(&ds), 48);
        assert!(mm.problems.contains(Problem::TooManyReserved));
        for i in 0..MAX_MAP_RESERVED as u64 + 5 {
            let pa = 0x4000_0000 + i * 0x2000;
            assert!(
                mm.reserved()
                    .iter()
                    .any(|r| r.base <= pa && pa < r.base + r.size),
                "{pa:#x} not avoided"
            );
        }
    }

    #[test]
    fn descriptors_of_any_order_and_a_wider_stride() {
        let mut wide = Vec::new();
        for d in [desc(7, 0x8000_0000, 1, WB), desc(7, 0x4000_0000, 1, WB)] {
            wide.extend_from_slice(&d);
            wide.extend_from_slice(&[0xff; 8]);
        }
        let mm = MemoryMap::read(&wide, 56);
        assert_eq!(mm.ram()[0].base, 0x4000_0000);
        assert_eq!(mm.ram()[1].base, 0x8000_0000);
    }
}
