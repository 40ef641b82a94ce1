//! The heart of mairbench: one physical test buffer mapped once per memory type, with the
//! firmware's own translation tables, proven on every run.
//!
//! Virtual layout (TTBR0 only, 4 KiB granule): the image, its console and its device tree are
//! identity-mapped (VA = PA); the buffer's aliases live in the upper half of the VA space,
//! one per memory type at 1 GiB-aligned addresses, plus one `normal-wb` alias made of 2 MiB
//! blocks to show what the page size costs in TLB reach.

use crate::arch::{self, buffer, mmu, smp, ImageLayout};
use crate::console::Console;
use crate::{run, say};
use mairbench_core::memtype::{self, MemType, MEMTYPES};
use mairbench_core::paging::{self, Access, Granule, Layout, Mapper};
use mairbench_core::placement::{self, Placement};
use mairbench_core::platform::{MemRegion, Platform};
use mairbench_core::record::Record;
use mairbench_core::schema;
use mairbench_core::{esr, format};

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;
const GIB: u64 = 1 << 30;
const PAGE: u64 = 4 * KIB;

/// Default size of the test buffer.
pub const DEFAULT_BUFFER: u64 = 32 * MIB;
/// Smallest buffer worth measuring.
const MIN_BUFFER: u64 = 2 * MIB;
/// Bytes written and read back per (writer, reader) pair in the coherence check.
const WINDOW: u64 = 64 * KIB;
/// Pages sampled per alias by the mapping proof.
const SAMPLES: u64 = 16;

/// One alias of the test buffer.
#[derive(Clone, Copy, Debug)]
pub struct Alias {
    /// The memory type it claims.
    pub memtype: &'static MemType,
    /// Its virtual base address.
    pub va: u64,
    /// Page or block mapping.
    pub granule: Granule,
    /// The MAIR index written into its descriptors (differs from the type's own index only
    /// under `mairbench.selftest=bad-attr`).
    pub attr_index: u8,
}

/// A region of the firmware's own identity map, for the report.
#[derive(Clone, Copy, Debug)]
struct Region {
    what: &'static str,
    base: u64,
    size: u64,
    memtype: usize,
    access: Access,
}

/// The result of [`setup`]: what is mapped where.
pub struct Memory {
    /// The physical test buffer.
    pub buffer: Placement,
    /// Page aliases, one per memory type in table order, then the block alias.
    pub aliases: [Alias; MEMTYPES.len() + 1],
    /// Where the image lives.
    pub image: ImageLayout,
    ram: MemRegion,
    layout: Layout,
    tables_used: usize,
    tables_total: usize,
    regions: [Option<Region>; 8 + 2 * smp::SECONDARY_BLOCKS],
    unmapped_va: u64,
}

fn access_name(access: Access) -> &'static str {
    match access {
        Access::ReadExecute => "r-x",
        Access::ReadOnly => "r--",
        Access::ReadWrite => "rw-",
    }
}

fn granule_name(g: Granule) -> &'static str {
    match g {
        Granule::Page => "4K",
        Granule::Block => "2M",
    }
}

fn align_down(x: u64, a: u64) -> u64 {
    x & !(a - 1)
}

fn align_up(x: u64, a: u64) -> u64 {
    (x + a - 1) & !(a - 1)
}

/// What the firmware asks of the memory setup.
#[derive(Clone, Copy, Debug)]
pub struct Request {
    /// Wanted buffer size, bytes.
    pub buffer: u64,
    /// Map one alias with a wrong AttrIndx (a negative test of the proof).
    pub bad_attr: bool,
}

/// Places the buffer, builds the translation tables and turns the MMU and caches on.
pub fn setup(
    platform: &Platform<'_>,
    dtb: Option<(usize, &[u8])>,
    request: Request,
) -> Result<Memory, &'static str> {
    let image = arch::image_layout();
    let ram = platform
        .ram_regions()
        .iter()
        .copied()
        .find(|r| r.contains(image.start))
        .ok_or("the image is not inside any RAM region of the device tree")?;
    let dtb_range = dtb.map(|(addr, blob)| {
        let base = align_down(addr as u64, PAGE);
        (base, align_up(addr as u64 + blob.len() as u64, PAGE) - base)
    });

    let pa_bits = paging::pa_bits(mmu::parange()).ok_or("unknown ID_AA64MMFR0_EL1.PARange")?;
    let layout = Layout::for_pa_bits(pa_bits);
    let alias_base = 1u64 << (layout.va_bits - 1);
    let (pool, pool_pa) = mmu::table_pool().ok_or("translation tables already built")?;
    let tables_total = pool.len();

    // The firmware's own identity map, W^X: guard pages below both stacks stay unmapped.
    let console = align_down(platform.console.base, PAGE);
    let mut regions: [Option<Region>; 8 + 2 * smp::SECONDARY_BLOCKS] =
        [None; 8 + 2 * smp::SECONDARY_BLOCKS];
    let own = [
        ("text", image.start, image.rodata, 0, Access::ReadExecute),
        ("rodata", image.rodata, image.data, 0, Access::ReadOnly),
        (
            "data+bss",
            image.data,
            image.stack_guard,
            0,
            Access::ReadWrite,
        ),
        (
            "stack",
            image.stack_bottom,
            image.stack_top,
            0,
            Access::ReadWrite,
        ),
        (
            "exception stack",
            image.exception_bottom,
            image.exception_top,
            0,
            Access::ReadWrite,
        ),
        ("tables", image.tables, image.end, 0, Access::ReadWrite),
        (
            "console",
            console,
            console + PAGE,
            memtype::DEVICE_NGNRNE,
            Access::ReadWrite,
        ),
    ];
    for (slot, (what, start, end, memtype, access)) in regions.iter_mut().zip(own) {
        *slot = Some(Region {
            what,
            base: start,
            size: end - start,
            memtype,
            access,
        });
    }
    // The stacks of the secondary CPUs the device tree lists, each above a guard page.
    let (area, block) = smp::stack_area();
    let secondaries = platform
        .cpus()
        .len()
        .saturating_sub(1)
        .min(smp::SECONDARY_BLOCKS);
    for n in 0..secondaries as u64 {
        let base = area + n * block;
        let stacks = [
            ("cpu stack", base + PAGE, base + 5 * PAGE),
            ("cpu exception stack", base + 6 * PAGE, base + 8 * PAGE),
        ];
        for (i, (what, start, end)) in stacks.into_iter().enumerate() {
            regions[8 + 2 * n as usize + i] = Some(Region {
                what,
                base: start,
                size: end - start,
                memtype: memtype::NORMAL_WB,
                access: Access::ReadWrite,
            });
        }
    }
    if let Some((base, size)) = dtb_range {
        regions[7] = Some(Region {
            what: "device tree",
            base,
            size,
            memtype: memtype::NORMAL_WB,
            access: Access::ReadOnly,
        });
    }

    // The buffer: as large as asked, RAM and the table pool allow.
    let mut avoid = [(image.start, image.end - image.start), (0, 0)];
    if let Some(range) = dtb_range {
        avoid[1] = range;
    }
    let stride_for = |size: u64| align_up(size, GIB);
    let mut want = request.buffer;
    let buffer = loop {
        let placed =
            placement::place_buffer((ram.base, ram.size), &avoid, want, 2 * MIB, MIN_BUFFER)
                .map_err(|_| "no room in RAM for the test buffer")?;
        let mut spans = [(0u64, 0u64, Granule::Page); 16 + MEMTYPES.len() + 1];
        let mut n = 0;
        for r in regions.iter().flatten() {
            spans[n] = (r.base, r.size, Granule::Page);
            n += 1;
        }
        for i in 0..=MEMTYPES.len() as u64 {
            let granule = if i as usize == MEMTYPES.len() {
                Granule::Block
            } else {
                Granule::Page
            };
            spans[n] = (
                alias_base + i * stride_for(placed.size),
                placed.size,
                granule,
            );
            n += 1;
        }
        if paging::tables_needed(&layout, &spans[..n]) <= tables_total {
            break placed;
        }
        if placed.size <= MIN_BUFFER {
            return Err("the translation-table pool cannot map even the smallest buffer");
        }
        want = placed.size / 2;
    };
    let stride = stride_for(buffer.size);

    let mut mapper = Mapper::new(pool, pool_pa, layout).map_err(|_| "table pool unusable")?;
    for r in regions.iter().flatten() {
        mapper
            .map(
                r.base,
                r.base,
                r.size,
                r.memtype as u8,
                r.access,
                Granule::Page,
            )
            .map_err(|_| "mapping the image, console or device tree failed")?;
    }
    let mut aliases = [Alias {
        memtype: &MEMTYPES[memtype::NORMAL_WB],
        va: 0,
        granule: Granule::Page,
        attr_index: 0,
    }; MEMTYPES.len() + 1];
    for (i, alias) in aliases.iter_mut().enumerate() {
        let (memtype, granule) = match MEMTYPES.get(i) {
            Some(t) => (t, Granule::Page),
            None => (&MEMTYPES[memtype::NORMAL_WB], Granule::Block),
        };
        // The negative test: the normal-nc alias points at the Device-nGnRnE attribute.
        let wrong = request.bad_attr && memtype.name == "normal-nc";
        let attr_index = if wrong {
            MEMTYPES[memtype::DEVICE_NGNRNE].index
        } else {
            memtype.index
        };
        *alias = Alias {
            memtype,
            va: alias_base + i as u64 * stride,
            granule,
            attr_index,
        };
        mapper
            .map(
                alias.va,
                buffer.base,
                buffer.size,
                attr_index,
                Access::ReadWrite,
                granule,
            )
            .map_err(|_| "mapping a buffer alias failed")?;
    }
    let tables_used = mapper.tables_used();
    let regime = mmu::Regime {
        mair: memtype::mair_el1(),
        tcr: paging::tcr_el1(&layout, mmu::parange()),
        ttbr0: mapper.root_pa(),
    };
    mmu::enable(&regime, &[(image.start, image.end - image.start)]);
    smp::publish(regime);

    Ok(Memory {
        buffer,
        aliases,
        image,
        ram,
        layout,
        tables_used,
        tables_total,
        regions,
        unmapped_va: alias_base + aliases.len() as u64 * stride,
    })
}

impl Memory {
    /// Prints the registers, the memory map and the table memory used.
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
            .hex("mair", mair)
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
            "  {:<18} {:<18} {:>10}  {:<18} {:<4} {}",
            "va",
            "pa",
            "size",
            "type",
            "perm",
            "what"
        );
        for r in self.regions.iter().flatten() {
            self.map_line(
                r.what,
                r.base,
                r.base,
                r.size,
                MEMTYPES[r.memtype].name,
                r.access,
                Granule::Page,
            );
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
        for a in &self.aliases {
            self.map_line(
                if a.granule == Granule::Block {
                    "buffer alias (2 MiB blocks)"
                } else {
                    "buffer alias"
                },
                a.va,
                self.buffer.base,
                self.buffer.size,
                a.memtype.name,
                Access::ReadWrite,
                a.granule,
            );
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn map_line(
        &self,
        what: &str,
        va: u64,
        pa: u64,
        size: u64,
        memtype: &str,
        access: Access,
        g: Granule,
    ) {
        say!(
            "  {va:<#18x} {pa:<#18x} {:>10}  {memtype:<18} {:<4} {what}",
            format::Bytes(size),
            access_name(access)
        );
        let _ = Record::new(&mut Console, &schema::MAP)
            .str("what", what)
            .hex("va", va)
            .hex("pa", pa)
            .u64("size", size)
            .str("memtype", memtype)
            .str("perm", access_name(access))
            .str("granule", granule_name(g))
            .finish();
    }

    /// Proves every alias: `AT S1E1R` on pages sampled across the buffer gives the buffer's
    /// physical address and PAR_EL1.ATTR equal to the alias's MAIR byte.
    pub fn prove(&self) {
        say!("proof of mapping (AT S1E1R + PAR_EL1, {SAMPLES} pages per alias):");
        for a in &self.aliases {
            let step = align_down(self.buffer.size / SAMPLES, PAGE).max(PAGE);
            let mut bad_pa = 0u32;
            let mut par_attr = None;
            let mut consistent = true;
            for k in 0..SAMPLES {
                let off = (k * step).min(self.buffer.size - PAGE) + (k * 8) % PAGE;
                match mmu::at_s1e1r(a.va + off) {
                    mmu::Par::Ok { pa, attr, .. } => {
                        bad_pa += u32::from(pa != self.buffer.base + off);
                        consistent &= *par_attr.get_or_insert(attr) == attr;
                    }
                    mmu::Par::Fault { .. } => bad_pa += 1,
                }
            }
            let par = par_attr.unwrap_or(0);
            let reported = memtype::describe_mair_byte(par);
            let coarse = |c: Option<memtype::Class>| c.map(|c| c == memtype::Class::Device);
            // The Arm ARM lets PAR_EL1.ATTR report the attribute the core implements (e.g.
            // write-through as non-cacheable); within the same class that is information.
            let verdict = if bad_pa != 0 {
                "wrong-pa"
            } else if !consistent {
                "inconsistent"
            } else if par == a.memtype.mair {
                "exact"
            } else if coarse(reported.class()) == coarse(Some(a.memtype.class)) {
                "implemented-as"
            } else {
                "wrong-attr"
            };
            let ok = matches!(verdict, "exact" | "implemented-as");
            run::check(
                "memtype",
                ok,
                format_args!(
                    "{:<17} {:<2} VA {:#x} -> PA {:#x}, PAR.ATTR {par:#04x} (MAIR[{}] {:#04x}: {})",
                    a.memtype.name,
                    granule_name(a.granule),
                    a.va,
                    self.buffer.base,
                    a.memtype.index,
                    a.memtype.mair,
                    a.memtype.summary,
                ),
            );
            match verdict {
                "wrong-pa" => say!("     WRONG physical address on {bad_pa} of {SAMPLES} pages"),
                "inconsistent" => say!("     WRONG: the attribute differs across the buffer"),
                "wrong-attr" => say!("     WRONG attribute: PAR_EL1 reports {reported}"),
                "implemented-as" => {
                    run::warn();
                    say!("     note: the core reports what it implements: {reported}");
                }
                _ => {}
            }
            let _ = Record::new(&mut Console, &schema::MEMTYPE)
                .str("name", a.memtype.name)
                .u64("index", a.memtype.index.into())
                .u64("attr_index", a.attr_index.into())
                .hex("mair", a.memtype.mair.into())
                .hex("va", a.va)
                .hex("va_end", a.va + self.buffer.size)
                .hex("pa", self.buffer.base)
                .u64("size", self.buffer.size)
                .hex("par_attr", par.into())
                .str("granule", granule_name(a.granule))
                .u64("samples", SAMPLES)
                .str("verdict", verdict)
                .bool("ok", ok)
                .finish();
        }
    }

    fn maintain(&self, a: &Alias, len: u64) {
        if matches!(a.memtype.class, memtype::Class::Normal { cacheable: true }) {
            mmu::clean_invalidate(a.va, len);
        }
    }

    /// Writes through each alias and reads back through every other one, with the cache
    /// maintenance the architecture requires between mismatched attributes.
    pub fn coherence(&self) {
        let pages = &self.aliases[..MEMTYPES.len()];
        let mut total = 0;
        let mut bad_pairs = 0;
        for (w, writer) in pages.iter().enumerate() {
            let pattern = move |off: u64| off ^ ((w as u64 + 1) << 56) ^ 0x5a5a_0000_a5a5_0000;
            buffer::fill(writer.va, WINDOW, pattern);
            self.maintain(writer, WINDOW);
            for (r, reader) in pages.iter().enumerate() {
                if r == w {
                    continue;
                }
                self.maintain(reader, WINDOW);
                let (mismatches, first) = buffer::mismatches(reader.va, WINDOW, pattern);
                total += 1;
                bad_pairs += u32::from(mismatches != 0);
                let mut out = Console;
                let mut rec = Record::new(&mut out, &schema::COHERENCE)
                    .str("writer", writer.memtype.name)
                    .str("reader", reader.memtype.name)
                    .u64("bytes", WINDOW)
                    .bool("maintenance", true)
                    .u64("mismatches", mismatches);
                if let Some(off) = first {
                    rec = rec.hex("first_offset", off);
                }
                let _ = rec.bool("ok", mismatches == 0).finish();
            }
        }
        run::check(
            "coherence",
            bad_pairs == 0,
            format_args!(
                "{total} writer/reader pairs, {} KiB each, {bad_pairs} with mismatches (clean+invalidate to PoC around cacheable aliases)",
                WINDOW / KIB
            ),
        );
        self.without_maintenance();
    }

    /// The same experiment without maintenance, as information: old data written to memory
    /// through normal-nc, new data left in the cache through normal-wb, read back through
    /// normal-nc. Real cores may show stale words; QEMU has no caches and never does.
    fn without_maintenance(&self) {
        let wb = &self.aliases[memtype::NORMAL_WB];
        let Some(nc) = self.aliases.iter().find(|a| a.memtype.name == "normal-nc") else {
            return;
        };
        let old = |off: u64| !off;
        let new = |off: u64| off ^ 0x1234_5678_9abc_def0;
        buffer::fill(nc.va, WINDOW, old);
        mmu::invalidate(wb.va, WINDOW);
        let _ = buffer::mismatches(wb.va, WINDOW, old); // allocate clean lines
        buffer::fill(wb.va, WINDOW, new); // dirty in the cache, memory still old
        let (stale, _) = buffer::mismatches(nc.va, WINDOW, new);
        mmu::clean_invalidate(wb.va, WINDOW);
        say!(
            "info: without maintenance, normal-nc read {stale} of {} words written through normal-wb as stale",
            WINDOW / 8
        );
        let _ = Record::new(&mut Console, &schema::COHERENCE)
            .str("writer", wb.memtype.name)
            .str("reader", nc.memtype.name)
            .u64("bytes", WINDOW)
            .bool("maintenance", false)
            .u64("mismatches", stale)
            .bool("informational", true)
            .finish();
    }

    /// Provokes the faults the memory map promises and checks each is the expected one.
    pub fn faults(&self) {
        let text_word = self.image.start + 0x40;
        let current = arch::try_load(text_word).unwrap_or(0);
        let cases = [
            (
                "guard-page-load",
                self.image.stack_guard,
                arch::try_load(self.image.stack_guard).err(),
                "translation fault",
                false,
            ),
            (
                "text-store",
                text_word,
                arch::try_store(text_word, current).err(),
                "permission fault",
                true,
            ),
            (
                "unmapped-load",
                self.unmapped_va,
                arch::try_load(self.unmapped_va).err(),
                "translation fault",
                false,
            ),
        ];
        for (test, va, fault, expected, write) in cases {
            let ok = fault.is_some_and(|f| {
                esr::class(f.esr) == 0x25
                    && esr::fault_status_name(f.esr) == expected
                    && esr::is_write(f.esr) == write
                    && f.far == va
            });
            let mut out = Console;
            let mut rec = Record::new(&mut out, &schema::FAULT)
                .str("test", test)
                .hex("va", va);
            match fault {
                Some(f) => {
                    rec = rec
                        .hex("esr", f.esr)
                        .str("class", esr::class_name(esr::class(f.esr)))
                        .str("status", esr::fault_status_name(f.esr))
                        .hex("far", f.far)
                        .bool("write", esr::is_write(f.esr));
                    rec = match esr::fault_level(f.esr) {
                        Some(l) => rec.u64("level", l.into()),
                        None => rec.null("level"),
                    };
                }
                None => rec = rec.null("esr"),
            }
            let _ = rec.str("expected", expected).bool("ok", ok).finish();
            run::check(
                "fault",
                ok,
                format_args!(
                    "{test} at {va:#x}: {} (expected {expected}), survived",
                    fault.map_or("no fault", |f| esr::fault_status_name(f.esr))
                ),
            );
        }
    }
}

impl Memory {
    /// Device memory: real cores take an alignment fault for an unaligned access and for
    /// `DC ZVA`; QEMU 7.2 models neither. Tried only on request, and reported as information.
    pub fn device_faults(&self, enabled: bool) {
        say!(
            "device memory: real cores fault on unaligned accesses and on DC ZVA to Device memory"
        );
        if !enabled {
            say!("  (not tried; mairbench.device-faults tries them on every Device alias)");
            return;
        }
        let devices = self.aliases[..MEMTYPES.len()]
            .iter()
            .filter(|a| a.memtype.class == memtype::Class::Device);
        let zva = arch::zva_block_size();
        for a in devices {
            let tries = [
                ("unaligned-load", Some(arch::try_load(a.va + 4).err())),
                ("dc-zva", zva.map(|_| arch::try_zero_block(a.va).err())),
            ];
            for (access, outcome) in tries {
                let words = match outcome {
                    None => "not tried: DC ZVA is prohibited here (DCZID_EL0.DZP)",
                    Some(Some(f)) if esr::is_abort(esr::class(f.esr)) => {
                        esr::fault_status_name(f.esr)
                    }
                    Some(Some(f)) => esr::class_name(esr::class(f.esr)),
                    Some(None) => "no fault (an emulator that does not model it?)",
                };
                say!("  {:<14} {access:<14} {words}", a.memtype.name);
                let mut out = Console;
                let mut rec = Record::new(&mut out, &schema::DEVICE_FAULT)
                    .str("memtype", a.memtype.name)
                    .str("access", access)
                    .bool("tried", outcome.is_some())
                    .bool("faulted", matches!(outcome, Some(Some(_))));
                if let Some(Some(f)) = outcome {
                    rec = rec.hex("esr", f.esr);
                }
                let _ = rec
                    .str("outcome", words)
                    .bool("informational", true)
                    .finish();
            }
        }
    }
}
