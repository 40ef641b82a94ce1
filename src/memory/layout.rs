//! What the firmware maps where: its own identity map (W^X), the aliases of the buffer in the
//! upper half of the VA space, and the memory map as the report shows it.

use super::Memory;
use crate::arch::{mmu, smp, ImageLayout};
use crate::console::Console;
use crate::say;
use mairbench_core::format::Bytes;
use mairbench_core::memtype::{self, MEMTYPES};
use mairbench_core::paging::{Access, Granule};
use mairbench_core::record::Record;
use mairbench_core::schema;

pub(super) const KIB: u64 = 1 << 10;
pub(super) const MIB: u64 = 1 << 20;
pub(super) const GIB: u64 = 1 << 30;
pub(super) const PAGE: u64 = 4 * KIB;

/// The image's six parts, the console and the device tree.
const FIXED: usize = 8;

/// The firmware's identity map: fixed regions, and the stacks of `secondaries` secondary
/// CPUs (generated, two per CPU, guard pages between).
#[derive(Clone, Copy, Debug)]
pub(super) struct IdentityMap {
    fixed: [Option<Region>; FIXED],
    secondaries: usize,
}

impl IdentityMap {
    /// Every region, in report order.
    pub(super) fn iter(&self) -> impl Iterator<Item = Region> + Clone + '_ {
        let names = ["cpu stack", "cpu exception stack"].into_iter().cycle();
        let stacks = (1..=self.secondaries).flat_map(smp::stacks).zip(names);
        self.fixed
            .iter()
            .flatten()
            .copied()
            .chain(stacks.map(|((start, end), what)| Region {
                what,
                base: start,
                size: end - start,
                memtype: memtype::NORMAL_WB,
                access: Access::ReadWrite,
            }))
    }
}

/// A region of the firmware's own identity map.
#[derive(Clone, Copy, Debug)]
pub(super) struct Region {
    pub what: &'static str,
    pub base: u64,
    pub size: u64,
    pub memtype: usize,
    pub access: Access,
}

pub(super) fn align_down(x: u64, a: u64) -> u64 {
    x & !(a - 1)
}

pub(super) fn align_up(x: u64, a: u64) -> u64 {
    (x + a - 1) & !(a - 1)
}

/// The page-aligned range `[base, base+size)` that holds `len` bytes at `addr`.
pub(super) fn pages_of(addr: u64, len: u64) -> (u64, u64) {
    let base = align_down(addr, PAGE);
    (base, align_up(addr + len, PAGE) - base)
}

/// The identity map: the image W^X (guard pages below both stacks stay unmapped), the
/// console as Device-nGnRnE, the device tree read-only, and the stacks of `secondaries`
/// secondary CPUs.
pub(super) fn identity_map(
    image: &ImageLayout,
    console: u64,
    dtb: Option<(u64, u64)>,
    secondaries: usize,
) -> IdentityMap {
    let console = align_down(console, PAGE);
    let rw = Access::ReadWrite;
    let region = |what, base, end: u64, memtype, access| Region {
        what,
        base,
        size: end - base,
        memtype,
        access,
    };
    let wb = memtype::NORMAL_WB;
    let mut map = IdentityMap {
        fixed: [None; FIXED],
        secondaries: secondaries.min(smp::SECONDARY_BLOCKS),
    };
    let fixed = [
        Some(region(
            "text",
            image.start,
            image.rodata,
            wb,
            Access::ReadExecute,
        )),
        Some(region(
            "rodata",
            image.rodata,
            image.data,
            wb,
            Access::ReadOnly,
        )),
        Some(region("data+bss", image.data, image.stack_guard, wb, rw)),
        Some(region("stack", image.stack_bottom, image.stack_top, wb, rw)),
        Some(region(
            "exception stack",
            image.exception_bottom,
            image.exception_top,
            wb,
            rw,
        )),
        Some(region("tables", image.tables, image.end, wb, rw)),
        Some(region(
            "console",
            console,
            console + PAGE,
            memtype::DEVICE_NGNRNE,
            rw,
        )),
        dtb.map(|(base, size)| region("device tree", base, base + size, wb, Access::ReadOnly)),
    ];
    for (slot, r) in map.fixed.iter_mut().zip(fixed) {
        *slot = r;
    }
    map
}

/// Where alias `i` (the page aliases in memory-type order, then the block aliases) of a
/// buffer of `size` bytes starts: 1 GiB-aligned slots from `alias_base`; slot
/// [`ALIASES`](super::ALIASES) stays unmapped (the `unmapped-load` fault probe).
pub(super) fn alias_va(alias_base: u64, size: u64, i: usize) -> u64 {
    alias_base + i as u64 * align_up(size, GIB)
}

/// The granule of alias `i`: pages for the first of each memory type, blocks for the second.
pub(super) fn alias_granule(i: usize) -> Granule {
    if i >= MEMTYPES.len() {
        Granule::Block
    } else {
        Granule::Page
    }
}

/// The memory type of alias `i`.
pub(super) fn alias_memtype(i: usize) -> &'static memtype::MemType {
    &MEMTYPES[i % MEMTYPES.len()]
}

impl Memory {
    /// Prints the registers, the memory map and the table memory used.
    #[inline(never)] // its frame is on the stack only during the call
    pub fn report(&self) {
        let ram = self.ram;
        let (sctlr, mair, tcr) = mmu::registers();
        say!(
            "mmu: on; MAIR_EL1 {mair:#018x}, TCR_EL1 {tcr:#x}, SCTLR_EL1 {sctlr:#x}; {}-bit VA, 4 KiB granule",
            self.layout.va_bits
        );
        say!(
            "tables: {} of {} used ({} KiB of 4 KiB tables)",
            self.tables_used,
            self.tables_total,
            self.tables_used as u64 * 4
        );
        say!(
            "buffer: {} MiB at PA {:#x}{} (RAM {:#x}+{} MiB)",
            self.buffer.size / MIB,
            self.buffer.base,
            if self.buffer.shrunk {
                " (smaller than asked: RAM or table pool)"
            } else {
                ""
            },
            ram.base,
            ram.size / MIB
        );
        let _ = Record::new(&mut Console, &schema::MMU)
            .hex_digits("mair", mair, 16)
            .hex("tcr", tcr)
            .hex("sctlr", sctlr)
            .u64("va_bits", self.layout.va_bits.into())
            .u64("tables_used", self.tables_used as u64)
            .u64("tables_total", self.tables_total as u64)
            .u64("table_bytes", self.tables_used as u64 * PAGE)
            .hex("buffer_pa", self.buffer.base)
            .u64("buffer_size", self.buffer.size)
            .bool("buffer_shrunk", self.buffer.shrunk)
            .finish();
        say!("memory map:");
        say!(
            "  {:<18} {:<18} {:>10}  {:<18} {:<4} what",
            "va",
            "pa",
            "size",
            "type",
            "perm"
        );
        for r in self.regions.iter() {
            let line = MapLine {
                what: r.what,
                va: r.base,
                pa: r.base,
                size: r.size,
                memtype: MEMTYPES[r.memtype].name,
                access: r.access,
                granule: Granule::Page,
            };
            line.print();
        }
        let guards = [
            ("guard (stack)", self.image.stack_guard),
            ("guard (exception stack)", self.image.exception_guard),
        ];
        for (what, va) in guards {
            say!(
                "  {va:<#18x} {:<18} {:>10}  {:<18} {:<4} {what}",
                "-",
                "4 KiB",
                "unmapped",
                "---"
            );
        }
        self.report_reserved();
        for a in &self.aliases {
            let line = MapLine {
                what: match a.granule {
                    Granule::Block => "buffer alias (2 MiB blocks)",
                    Granule::Page => "buffer alias",
                },
                va: a.va(),
                pa: self.buffer.base,
                size: self.buffer.size,
                memtype: a.memtype.name,
                access: Access::ReadWrite,
                granule: a.granule,
            };
            line.print();
        }
    }
}

impl Memory {
    /// The device tree's reservations, as lines of the memory map (no VA, nothing mapped) and
    /// `reserved` records.
    fn report_reserved(&self) {
        for r in self.reserved.entries() {
            let (source, name, size, what) = (r.source.name(), r.name, Bytes(r.size), r.what());
            let sep = if name.is_empty() { "" } else { " " };
            match r.base {
                Some(pa) => say!(
                    "  {:<18} {pa:<#18x} {size:>10}  {:<18} {:<4} {what}: {source}{sep}{name}",
                    "-",
                    "unmapped",
                    "---"
                ),
                None => say!(
                    "  {:<18} {:<18} {size:>10}  {:<18} {:<4} {what}: {source}{sep}{name} (placed \
                     by an OS)",
                    "-",
                    "-",
                    "unmapped",
                    "---"
                ),
            }
            let mut console = Console;
            let record = Record::new(&mut console, &schema::RESERVED)
                .str("source", source)
                .str("name", name);
            let record = match r.base {
                Some(pa) => record.hex("pa", pa),
                None => record,
            };
            let _ = record.u64("size", r.size).bool("no_map", r.no_map).finish();
        }
    }
}

/// One line of the memory map: a human line and a `map` record.
struct MapLine<'a> {
    what: &'a str,
    va: u64,
    pa: u64,
    size: u64,
    memtype: &'a str,
    access: Access,
    granule: Granule,
}

impl MapLine<'_> {
    fn print(&self) {
        say!(
            "  {:<#18x} {:<#18x} {:>10}  {:<18} {:<4} {}",
            self.va,
            self.pa,
            Bytes(self.size),
            self.memtype,
            self.access.name(),
            self.what
        );
        let _ = Record::new(&mut Console, &schema::MAP)
            .str("what", self.what)
            .hex("va", self.va)
            .hex("pa", self.pa)
            .u64("size", self.size)
            .str("memtype", self.memtype)
            .str("perm", self.access.name())
            .str("granule", self.granule.name())
            .finish();
    }
}
