//! What the firmware maps where: its own identity map (W^X) and the aliases of the buffer in
//! the upper half of the VA space (the memory map as the report shows it: `report`).

use crate::arch::image::ImageLayout;
use crate::arch::MEMTYPES;
use crate::arch::{mmu, smp};
use mairbench_core::memtype;
use mairbench_core::paging::{Access, Granule};

pub(super) const KIB: u64 = 1 << 10;
pub(super) const MIB: u64 = 1 << 20;
pub(super) const PAGE: u64 = 4 * KIB;

/// The image's six parts, the console, the device tree and the framebuffer.
const FIXED: usize = 11;

/// The firmware's identity map: fixed regions, and the stacks of `secondaries` secondary
/// CPUs (generated, two per CPU, guard pages between).
#[derive(Clone, Copy, Debug)]
pub(super) struct IdentityMap {
    fixed: [Option<Region>; FIXED],
    secondaries: usize,
}

impl IdentityMap {
    /// Every region, in report order.
    pub(super) fn iter(&self) -> Regions<'_> {
        Regions { map: self, next: 0 }
    }
}

/// The regions of an [`IdentityMap`], in report order: the fixed ones, then two stacks per
/// secondary CPU.
#[derive(Clone)]
pub(super) struct Regions<'a> {
    map: &'a IdentityMap,
    /// The next fixed slot, then `FIXED` + the next stack's index.
    next: usize,
}

impl Iterator for Regions<'_> {
    type Item = Region;

    fn next(&mut self) -> Option<Region> {
        while let Some(fixed) = self.map.fixed.get(self.next) {
            self.next += 1;
            if fixed.is_some() {
                return *fixed;
            }
        }
        let stack = self.next - FIXED;
        let block = stack / 2 + 1;
        if block > self.map.secondaries {
            return None;
        }
        self.next += 1;
        let ((start, end), what) = match smp::start::stacks(block) {
            [own, _] if stack.is_multiple_of(2) => (own, "cpu stack"),
            [_, exception] => (exception, "cpu exception stack"),
        };
        Some(Region {
            what,
            base: start,
            size: end - start,
            memtype: memtype::NORMAL_WB,
            access: Access::ReadWrite,
        })
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
/// secondary CPUs; the framebuffer console's memory, when there is one, Normal non-cacheable
/// (as Linux's `ioremap_wc` maps a framebuffer); the architecture's own device pages (`arch`:
/// each one's name and address; the 32-bit image's outer cache controller and SoC timer) as
/// Device-nGnRnE.
pub(super) fn identity_map(
    image: &ImageLayout,
    console: u64,
    dtb: Option<(u64, u64)>,
    fb: Option<(u64, u64)>,
    arch: [Option<(&'static str, u64)>; 2],
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
    let device = |d: Option<(&'static str, u64)>| {
        d.map(|(what, base)| {
            let base = align_down(base, PAGE);
            region(what, base, base + PAGE, memtype::DEVICE_NGNRNE, rw)
        })
    };
    let fixed: [Option<Region>; FIXED] = [
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
        fb.map(|(base, size)| {
            let nc = memtype::with_role(memtype::Role::NonCacheable).next();
            region(
                "framebuffer",
                base,
                base + size,
                nc.map_or(memtype::DEVICE_NGNRNE, |t| usize::from(t.index)),
                rw,
            )
        }),
        device(arch[0]),
        device(arch[1]),
    ];
    IdentityMap {
        fixed,
        secondaries: secondaries.min(smp::SECONDARY_BLOCKS),
    }
}

/// Where alias `i` (the page aliases in memory-type order, then the block aliases) of a
/// buffer of `size` bytes starts: slots from `alias_base`, each aligned to the architecture's
/// `mmu::ALIAS_ALIGN` (1 GiB on AArch64, 2 MiB in a 32-bit address space); slot
/// [`ALIASES`](super::ALIASES) stays unmapped (the `unmapped-load` fault probe).
pub(super) fn alias_va(alias_base: u64, size: u64, i: usize) -> u64 {
    alias_base + i as u64 * align_up(size, mmu::ALIAS_ALIGN)
}

/// The address space every alias slot of a buffer of `size` bytes takes, the unmapped one
/// too.
pub(super) fn alias_span(size: u64) -> u64 {
    align_up(size, mmu::ALIAS_ALIGN).saturating_mul(super::ALIASES as u64 + 1)
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
