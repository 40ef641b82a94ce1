//! The memory map as the report shows it: the registers of the translation regime, the
//! identity map, the guard pages, the device tree's reservations and the buffer's aliases,
//! each a human line and a `map` (or `reserved`) record; then the `mmu` record.

use super::layout::{MIB, PAGE};
use super::Memory;
use crate::arch::mmu;
use crate::arch::MEMTYPES;
use crate::cell::Or;
use crate::console::Console;
use crate::say;
use mairbench_core::format::Bytes;
use mairbench_core::paging::{Access, Granule};
use mairbench_core::record::Record;
use mairbench_core::schema;

impl Memory {
    /// Prints the registers, the memory map and the table memory used.
    #[inline(never)] // its frame is on the stack only during the call
    pub fn report(&self) {
        let ram = self.ram;
        let (sctlr, mair, tcr) = mmu::registers();
        let [sctlr_name, mair_name, tcr_name] = mmu::register_names();
        say!(
            "mmu: on; {mair_name} {mair:#018x}, {tcr_name} {tcr:#x}, {sctlr_name} {sctlr:#x}; {}-bit VA, 4 KiB granule",
            u64::from(self.layout.va_bits)
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
                memtype: MEMTYPES.get(r.memtype).map_or("", |t| t.name),
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
            let placed = match r.base {
                Some(_) => "",
                None => " (placed by an OS)",
            };
            say!(
                "  {:<18} {:<#18x} {size:>10}  {:<18} {:<4} {what}: {source}{sep}{name}{placed}",
                "-",
                Or(r.base),
                "unmapped",
                "---"
            );
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
