//! Memory set-up, in four steps: the identity map, the buffer's place and size (as large as
//! asked, RAM and the table pool allow), the tables, and the switch (checked by
//! `arch::mmu::activate`, which hands out the buffer's windows).

use super::layout::{self, IdentityMap, MIB};
use super::{Alias, Memory, ALIASES};
use crate::arch::image::{image_layout, ImageLayout};
use crate::arch::MEMTYPES;
use crate::arch::{mmu, smp};
use crate::{run, say};
use mairbench_core::format::Bytes;
use mairbench_core::memtype;
use mairbench_core::paging::{self, Access, Granule, Layout};
use mairbench_core::placement::{self, Placement};
use mairbench_core::platform::{MemRegion, Platform};
use mairbench_core::reserved::{Reserved, Source, MAX_RESERVED};

/// Default size of the test buffer.
pub const DEFAULT_BUFFER: u64 = 32 * MIB;
/// Smallest buffer worth measuring.
const MIN_BUFFER: u64 = 2 * MIB;
/// The buffer's alignment and size step: the block aliases map it with 2 MiB blocks.
const BLOCK: u64 = 2 * MIB;

/// What the firmware asks of the memory setup.
#[derive(Clone, Copy, Debug)]
pub struct Request {
    /// Wanted buffer size, bytes.
    pub buffer: u64,
    /// Map one alias with a wrong AttrIndx (a negative test of the proof).
    pub bad_attr: bool,
    /// Secondary CPUs that will be started: their stacks are mapped.
    pub secondaries: usize,
    /// The framebuffer console's memory (base, size; page-aligned here): mapped, and kept
    /// clear of the buffer.
    pub framebuffer: Option<(u64, u64)>,
}

/// Places the buffer, builds the translation tables and turns the MMU and caches on.
#[inline(never)] // its frame is on the stack only during the call
pub fn setup(
    platform: &Platform<'static>,
    dtb: Option<(usize, &'static [u8])>,
    request: Request,
) -> Result<Memory, &'static str> {
    let image = image_layout();
    let ram = platform
        .ram_regions()
        .iter()
        .copied()
        .find(|r| r.contains(image.start))
        .ok_or("the image is not inside any RAM region of the device tree")?;
    let dtb_range = dtb.map(|(addr, blob)| layout::pages_of(addr as u64, blob.len() as u64));
    let va_layout = mmu::va_layout()?;

    let (pool, pool_pa) = mmu::table_pool().ok_or("translation tables already built")?;
    let tables_total = pool.len();

    // 1. The firmware's own identity map.
    let secondaries = request.secondaries.min(smp::SECONDARY_BLOCKS);
    let fb = request
        .framebuffer
        .map(|(base, size)| layout::pages_of(base, size));
    let arch_devices = crate::arch::devices(dtb.map(|(_, blob)| blob));
    let regions = layout::identity_map(
        &image,
        platform.console.base,
        dtb_range,
        fb,
        arch_devices,
        secondaries,
    );
    let taken = regions.iter().map(|r| (r.base, r.size));
    let (alias_base, room) = mmu::alias_window(va_layout.va_limit(), taken);

    // 2. The buffer, shrunk until the pool can map it.
    let fit = Fit {
        ram,
        image: &image,
        dtb: dtb_range,
        fb,
        reserved: &platform.reserved,
        regions: &regions,
        layout: &va_layout,
        alias_base,
        room,
        tables: tables_total,
    };
    let want = layout::align_down(request.buffer, BLOCK).max(MIN_BUFFER);
    if want != request.buffer {
        run::warn("bootargs");
        say!(
            "bootargs: option 'mairbench.buffer': {} is not a whole number of 2 MiB blocks (the \
             block aliases need that); {} used",
            Bytes(request.buffer),
            Bytes(want)
        );
    }
    let buffer = fit.place(want)?;
    check_reserved(&platform.reserved, &image, dtb_range, &buffer);

    // 3. The tables.
    let mut mapper = mmu::mapper(pool, pool_pa, va_layout).map_err(|_| "table pool unusable")?;
    for r in regions.iter() {
        let (base, size, index) = (r.base, r.size, r.memtype as u8);
        mapper
            .map(base, base, size, index, r.access, Granule::Page)
            .map_err(|_| "mapping the image, console or device tree failed")?;
    }
    let alias_va: [u64; ALIASES] =
        core::array::from_fn(|i| layout::alias_va(alias_base, buffer.size, i));
    let memtypes: [&'static memtype::MemType; ALIASES] =
        core::array::from_fn(layout::alias_memtype);
    let attr_index = |i: usize, t: &memtype::MemType| {
        // The negative test: the normal-nc page alias points at the Device-nGnRnE attribute.
        if request.bad_attr && t.name == "normal-nc" && layout::alias_granule(i) == Granule::Page {
            MEMTYPES[memtype::DEVICE_NGNRNE].index
        } else {
            t.index
        }
    };
    for (i, (&va, t)) in alias_va.iter().zip(memtypes).enumerate() {
        let granule = layout::alias_granule(i);
        mapper
            .map(
                va,
                buffer.base,
                buffer.size,
                attr_index(i, t),
                Access::ReadWrite,
                granule,
            )
            .map_err(|_| "mapping a buffer alias failed")?;
    }

    // 4. The switch: checked against the tables, then on.
    let blocks = smp::start::secondaries(secondaries);
    let dtb_blob = dtb.map(|(_, blob)| blob);
    let windows = mmu::activate(
        &mapper,
        buffer.base,
        buffer.size,
        alias_va,
        blocks,
        dtb_blob,
    )
    .map_err(mmu::Refusal::message)?;
    let mut i = 0;
    let aliases = windows.map(|whole| {
        let memtype = memtypes[i];
        let alias = Alias {
            memtype,
            whole,
            granule: layout::alias_granule(i),
            attr_index: attr_index(i, memtype),
        };
        i += 1;
        alias
    });

    Ok(Memory {
        buffer,
        aliases,
        image,
        ram,
        layout: va_layout,
        tables_used: mapper.tables_used(),
        tables_total,
        regions,
        unmapped_va: layout::alias_va(alias_base, buffer.size, ALIASES),
        reserved: platform.reserved,
    })
}

/// The `reserved` check: the image (its tables and stacks are inside it) and the buffer
/// overlap no fixed reservation of the device tree. The device tree itself may lie in a
/// `/memreserve/` entry (U-Boot reserves the blob it passes); in a `/reserved-memory` range
/// it is a warning, as it is only read.
fn check_reserved(
    reserved: &Reserved<'_>,
    image: &ImageLayout,
    dtb: Option<(u64, u64)>,
    buffer: &Placement,
) {
    for problem in reserved.problems.iter() {
        say!("device tree: {}", problem.message());
        run::warn("device-tree");
    }
    if let Some((base, size)) = dtb {
        for r in reserved.overlapping(base, size) {
            let (start, len) = r.range().unwrap_or_default();
            say!(
                "device tree: the blob at {base:#x} ({}) lies in {} {start:#x}+{} {}",
                Bytes(size),
                r.source.name(),
                Bytes(len),
                r.name
            );
            if r.source == Source::ReservedMemory {
                run::warn("dtb-reserved");
            }
        }
    }
    let image_range = (image.start, image.end - image.start);
    let ours = [
        ("the image", image_range),
        ("the buffer", (buffer.base, buffer.size)),
    ];
    // The first overlap, and how many more there are.
    let (mut clash, mut more) = (None, 0u64);
    for &(what, (base, size)) in &ours {
        for r in reserved.overlapping(base, size) {
            match clash {
                None => clash = Some((what, base, size, r)),
                Some(_) => more += 1,
            }
        }
    }
    let fixed = reserved.ranges().count() + reserved.merged();
    let dynamic = reserved.total() - fixed;
    let (start, end) = (image.start, image.end);
    match clash {
        None if reserved.entries().is_empty() => run::check(
            "reserved",
            true,
            format_args!("the device tree reserves no memory (no /memreserve/, /reserved-memory)"),
        ),
        None => run::check(
            "reserved",
            true,
            format_args!(
                "the image {start:#x}-{end:#x} (tables and stacks included) and the buffer \
                 overlap none of the {fixed} reserved ranges of the device tree (and {dynamic} \
                 without an address, placed by an OS)"
            ),
        ),
        Some((what, base, size, r)) => run::check(
            "reserved",
            false,
            format_args!(
                "{what} {base:#x}-{:#x} overlaps {} {:#x}+{} ({} {}): the boot loader put it on \
                 memory the device tree reserves (TF-A, OP-TEE, firmware); {} more overlaps",
                base + size,
                r.what(),
                r.base.unwrap_or_default(),
                Bytes(r.size),
                r.source.name(),
                r.name,
                more
            ),
        ),
    };
}

/// What placing the buffer must respect.
struct Fit<'a> {
    ram: MemRegion,
    image: &'a ImageLayout,
    dtb: Option<(u64, u64)>,
    fb: Option<(u64, u64)>,
    reserved: &'a Reserved<'a>,
    regions: &'a IdentityMap,
    layout: &'a Layout,
    alias_base: u64,
    /// The address space above `alias_base`.
    room: u64,
    tables: usize,
}

impl Fit<'_> {
    /// The buffer: `want` bytes (a multiple of 2 MiB), 2 MiB-aligned, in the image's RAM
    /// region away from the image, the device tree and every fixed reservation of the device
    /// tree, halved (to a multiple of 2 MiB) until its aliases and the identity map fit in
    /// the pool. Base and size stay multiples of 2 MiB, as the block aliases need.
    fn place(&self, mut want: u64) -> Result<Placement, &'static str> {
        let image = (self.image.start, self.image.end - self.image.start);
        let mut avoid = [(0u64, 0u64); 3 + MAX_RESERVED];
        let ours = [image, self.dtb.unwrap_or((0, 0)), self.fb.unwrap_or((0, 0))];
        let mut n = 0;
        for (slot, range) in avoid
            .iter_mut()
            .zip(ours.into_iter().chain(self.reserved.ranges()))
        {
            *slot = range;
            n += 1;
        }
        // `n` counts slots filled (`get`, not indexing, which adds a panic).
        let avoid = avoid.get(..n).unwrap_or_default();
        let ram = (self.ram.base, self.ram.size);
        loop {
            let placed = placement::place_buffer(ram, avoid, want, BLOCK, MIN_BUFFER)
                .map_err(|_| {
                    "no room in RAM for the test buffer clear of the image, the device tree and the reserved ranges"
                })?;
            let fits = layout::alias_span(placed.size) <= self.room;
            if fits && self.tables_for(placed.size) <= self.tables {
                return Ok(placed);
            }
            if placed.size <= MIN_BUFFER {
                return Err(if fits {
                    "the translation-table pool cannot map even the smallest buffer"
                } else {
                    "the address space cannot hold even the smallest buffer's aliases"
                });
            }
            want = layout::align_down(placed.size / 2, BLOCK).max(MIN_BUFFER);
        }
    }

    /// Tables that the identity map and the aliases of a buffer of `size` bytes take.
    fn tables_for(&self, size: u64) -> usize {
        // The identity map's regions, then the aliases: one `next`, not a chain's two
        // halves inlined into each of the count's loops.
        let (mut identity, mut aliases) = (self.regions.iter(), 0..ALIASES);
        let regions = core::iter::from_fn(move || match identity.next() {
            Some(r) => Some((r.base, r.size, Granule::Page)),
            None => aliases.next().map(|i| {
                let va = layout::alias_va(self.alias_base, size, i);
                (va, size, layout::alias_granule(i))
            }),
        });
        paging::tables_needed(self.layout, regions)
    }
}
