//! Stage-1 translation: the MMU switch, checked ([`activate`]), and address translation
//! (each architecture's `translation`: `AT S1E1R`, `ATS1CPR`). The tables themselves are built by `mairbench_core::paging` in
//! the pool this module hands out; what the secondary CPUs need of them is handed in
//! ([`Secondaries`]), so that this module knows nothing of how they are started.

use super::buffer::Window;
use super::exceptions::Fault;
use super::global::Global;
use super::image::image_layout;
use super::probes;
use super::translation::enable;
pub(super) use super::translation::SCTLR_MMU_ON;
pub use super::translation::{
    alias_window, at_s1e1r, data_cache_off, mapper, register_names, registers, va_layout, Par,
    Regime, Tables, ALIAS_ALIGN,
};
use mairbench_core::memtype::NORMAL_WB;
use mairbench_core::paging::{Access, Table};

extern "C" {
    static mut __tables_start: Table;
    static __tables_end: u8;
}

static POOL_TAKEN: Global<bool> = Global::new(false);

/// The translation-table pool reserved by `linker.ld` (in the image, after the stacks), with
/// its physical address. Handed out once; `None` afterwards.
pub fn table_pool() -> Option<(&'static mut [Table], u64)> {
    if POOL_TAKEN.get() {
        return None;
    }
    POOL_TAKEN.set(true);
    // The linker script reserves [__tables_start, __tables_end) page-aligned for tables
    // only; `POOL_TAKEN` makes this the one reference to it. Only addresses are taken here.
    let start = core::ptr::addr_of_mut!(__tables_start);
    let end = core::ptr::addr_of!(__tables_end) as usize;
    let count = (end - start as usize) / core::mem::size_of::<Table>();
    // SAFETY: `count` tables fit in the reserved range, which nothing else uses (see above).
    // The memory may hold garbage; every bit pattern is a valid `Table` and the mapper clears
    // each table before use.
    let pool = unsafe { core::slice::from_raw_parts_mut(start, count) };
    Some((pool, start as u64))
}

/// Loads from `va` after `AT S1E1R` has shown that it does not translate, so the load can
/// only fault: a deliberate translation fault. `None` (nothing tried) when `va` is mapped.
pub fn try_load_unmapped(va: u64) -> Option<Result<u64, Fault>> {
    matches!(at_s1e1r(va), Par::Fault { .. }).then(|| {
        // SAFETY: `va` does not translate, so the load reads nothing: it faults.
        unsafe { probes::try_load(va) }
    })
}

/// Why [`activate`] refused to turn the MMU on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// A part of the image (named) is not identity-mapped with the permissions it needs.
    Image(&'static str),
    /// A secondary CPU's stacks are not mapped read-write.
    SecondaryStacks,
    /// The buffer overlaps the image or the device tree.
    BufferOverlaps,
    /// An alias does not map the whole buffer read-write.
    Alias,
}

impl Refusal {
    /// In words, for the report.
    pub fn message(self) -> &'static str {
        match self {
            Refusal::Image(_) => "the tables do not identity-map the image as it needs",
            Refusal::SecondaryStacks => "the tables do not map the secondary CPUs' stacks",
            Refusal::BufferOverlaps => "the test buffer overlaps the image or the device tree",
            Refusal::Alias => "an alias does not map the whole test buffer read-write",
        }
    }
}

/// What the secondary CPUs need of the tables, handed to [`activate`] by its caller (made by
/// `smp::start::secondaries`, so only `arch` makes one): how many will start, where the
/// stacks of their blocks are (checked to be mapped read-write), and where the checked
/// regime goes for them once the MMU is on.
#[derive(Clone, Copy, Debug)]
pub struct Secondaries {
    /// Stack blocks `1..=count` are used.
    pub(super) count: usize,
    /// The stack and the exception stack of a block, `[start, end)` each.
    pub(super) stacks: fn(usize) -> [(u64, u64); 2],
    /// Hands the checked regime to the secondaries, with the number of blocks whose stacks
    /// its tables map.
    pub(super) publish: fn(Regime, usize),
}

/// Checks the tables `mapper` built, then turns the MMU and caches on with them, publishes
/// the regime to the secondary CPUs, and returns one [`Window`] per alias in `alias_va`,
/// each the whole buffer `[buffer_pa, +buffer_len)`.
///
/// Checked first, in the tables themselves: the image is identity-mapped as Normal
/// write-back (text `r-x`, read-only data `r--`, data, stacks and tables `rw-`), so are the
/// stacks of the `secondaries` and (`r--`) the device tree; the buffer lies outside the image
/// and the device tree `dtb` (the only memory Rust objects live in); every alias maps the
/// whole buffer read-write. Those are what [`enable`] and [`Window`] require, so this is safe.
pub fn activate<const N: usize>(
    mapper: &Tables<'_>,
    buffer_pa: u64,
    buffer_len: u64,
    alias_va: [u64; N],
    secondaries: Secondaries,
    dtb: Option<&[u8]>,
) -> Result<[Window; N], Refusal> {
    let image = image_layout();
    let identity = |what, start: u64, end: u64, access| {
        let ok = mapper.maps(start, start, end - start, access, Some(NORMAL_WB as u8));
        ok.then_some(()).ok_or(Refusal::Image(what))
    };
    identity("text", image.start, image.rodata, Access::ReadExecute)?;
    identity("rodata", image.rodata, image.data, Access::ReadOnly)?;
    identity("data", image.data, image.stack_guard, Access::ReadWrite)?;
    let stack = image.stack_top;
    identity("stack", image.stack_bottom, stack, Access::ReadWrite)?;
    let exception = image.exception_top;
    identity(
        "exceptions",
        image.exception_bottom,
        exception,
        Access::ReadWrite,
    )?;
    identity("tables", image.tables, image.end, Access::ReadWrite)?;
    for block in 1..=secondaries.count {
        let rw = |(start, end): (u64, u64)| {
            mapper.maps(
                start,
                start,
                end - start,
                Access::ReadWrite,
                Some(NORMAL_WB as u8),
            )
        };
        if !(secondaries.stacks)(block).into_iter().all(rw) {
            return Err(Refusal::SecondaryStacks);
        }
    }
    if let Some(d) = dtb {
        let start = d.as_ptr() as u64 & !0xfff;
        let end = (d.as_ptr() as u64 + d.len() as u64).next_multiple_of(4096);
        identity("device tree", start, end, Access::ReadOnly)?;
    }
    let disjoint = |start: u64, len: u64| {
        buffer_pa.saturating_add(buffer_len) <= start || start.saturating_add(len) <= buffer_pa
    };
    let dtb = dtb.map_or((0, 0), |d| (d.as_ptr() as u64, d.len() as u64));
    if buffer_len == 0 || !disjoint(image.start, image.end - image.start) || !disjoint(dtb.0, dtb.1)
    {
        return Err(Refusal::BufferOverlaps);
    }
    if !alias_va
        .iter()
        .all(|&va| mapper.maps(va, buffer_pa, buffer_len, Access::ReadWrite, None))
    {
        return Err(Refusal::Alias);
    }

    let regime = Regime::of(mapper);
    // SAFETY: checked above: the image (the code running now, its data, both stacks and the
    // tables) is identity-mapped as Normal write-back with the permissions each part needs;
    // the mapper does not change the tables after this. The caches are off until `enable`
    // turns them on, so memory holds the truth for the whole image.
    unsafe { enable(&regime, &[(image.start, image.end - image.start)]) };
    (secondaries.publish)(regime, secondaries.count);
    // SAFETY: each alias maps the whole buffer read-write (checked above) and keeps doing so
    // (the tables stay as built); the buffer lies outside the image and the device tree, so no
    // Rust object lives in it; the buffer's placement is 2 MiB-aligned and its length a
    // multiple of 8, and so are the aliases' addresses.
    Ok(alias_va.map(|va| unsafe { Window::new(va, 0, buffer_len) }))
}
