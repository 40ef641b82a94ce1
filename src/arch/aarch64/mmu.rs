//! Stage-1 translation at EL1: the MMU switch, checked ([`activate`]), and address
//! translation (`AT S1E1R`). The tables themselves are built by `mairbench_core::paging` in
//! the pool this module hands out; what the secondary CPUs need of them is handed in
//! ([`Secondaries`]), so that this module knows nothing of how they are started.

use super::buffer::Window;
use super::exceptions::Fault;
use super::global::Global;
use super::image::image_layout;
use super::sysreg::PAR;
use super::{cache, probes};
use aarch64_cpu::asm::barrier::{self, dsb, isb};
use aarch64_cpu::registers::{
    Readable, Writeable, ID_AA64MMFR0_EL1, MAIR_EL1, PAR_EL1, SCTLR_EL1, TCR_EL1, TTBR0_EL1,
};
use core::arch::asm;
use mairbench_core::memtype::{self, NORMAL_WB};
use mairbench_core::paging::{self, Access, Mapper, Table};
use tock_registers::LocalRegisterCopy;

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

/// ID_AA64MMFR0_EL1.PARange: the physical address size this core supports (encoded).
pub fn parange() -> u64 {
    ID_AA64MMFR0_EL1.read(ID_AA64MMFR0_EL1::PARange)
}

/// Registers that set up the translation regime.
#[derive(Clone, Copy, Debug)]
pub struct Regime {
    /// MAIR_EL1: the eight memory attributes.
    pub mair: u64,
    /// TCR_EL1: granule, VA and PA sizes, table-walk attributes.
    pub tcr: u64,
    /// TTBR0_EL1: physical address of the level-0/1 table.
    pub ttbr0: u64,
}

/// SCTLR_EL1 bits set to turn translation on: M (MMU), C (data caches), I (instruction
/// caches) and WXN (any writable page is also execute-never, whatever its descriptor says:
/// W^X). The boot CPU sets them in [`enable`], each secondary in its entry code
/// (`secondary_el1`, boot/aarch64/entry.S, which gets them as `SCTLR_EL1_MMU_ON`), so that every
/// CPU's SCTLR_EL1 is the same.
pub(super) const SCTLR_MMU_ON: u64 = SCTLR_EL1::M::Enable.value
    | SCTLR_EL1::C::Cacheable.value
    | SCTLR_EL1::I::Cacheable.value
    | SCTLR_EL1::WXN::Enable.value;

/// Turns the boot CPU's MMU and both caches on with `regime`. `stale` lists memory written
/// with the caches off (tables, stacks, data): its lines are invalidated first so that no
/// stale copy left by the boot loader can shadow it. The secondaries turn theirs on in their
/// entry code (`secondary_el1`, boot/aarch64/entry.S) with the same steps, before they touch any
/// stack, so they have nothing written with the caches off to invalidate.
///
/// # Safety
/// The regime's tables must identity-map, as Normal write-back memory, the code running now
/// (executable), and read-write every object and stack the running core uses, and they must
/// stay unchanged while in use; the caches must hold nothing newer than memory for `stale`
/// (true with the caches off).
unsafe fn enable(regime: &Regime, stale: &[(u64, u64)]) {
    for &(va, len) in stale {
        // SAFETY: the caller says memory, not the cache, holds the truth for `stale`.
        unsafe { cache::invalidate(va, len) };
    }
    MAIR_EL1.set(regime.mair);
    TCR_EL1.set(regime.tcr);
    TTBR0_EL1.set(regime.ttbr0);
    isb(barrier::SY);
    // SAFETY: invalidates every EL1 TLB entry (left by a boot loader); no memory access.
    unsafe { asm!("tlbi vmalle1", options(nostack, nomem)) };
    dsb(barrier::ISH);
    isb(barrier::SY);
    // SAFETY: branch predictors and the instruction cache hold nothing we rely on.
    unsafe { asm!("ic iallu", options(nostack, nomem)) };
    dsb(barrier::ISH);
    SCTLR_EL1.set(SCTLR_EL1.get() | SCTLR_MMU_ON);
    isb(barrier::SY);
}

/// The current SCTLR_EL1, MAIR_EL1 and TCR_EL1, for the report.
pub fn registers() -> (u64, u64, u64) {
    (SCTLR_EL1.get(), MAIR_EL1.get(), TCR_EL1.get())
}

/// Turns the EL1 data cache off (SCTLR_EL1.C clear) for the rest of the run and cleans and
/// invalidates every data/unified cache level by set/way (`mairbench.selftest=caches-off`):
/// Normal memory is then accessed as Non-cacheable. Returns the DC CISW operations issued.
///
/// # Safety
/// No other CPU may be running with its caches on and sharing memory with this one (their
/// cached copies would no longer be coherent with this CPU's uncached accesses).
pub unsafe fn data_cache_off() -> u64 {
    extern "C" {
        fn mb_dcache_off_el1() -> u64;
    }
    // SAFETY: the routine touches no memory between clearing SCTLR_EL1.C and the set/way
    // clean, so every dirty line reaches memory before uncached accesses read it; it keeps
    // the AAPCS64 callee-saved registers; the caller promised no other CPU runs.
    unsafe { mb_dcache_off_el1() }
}

/// What `AT S1E1R` found for one virtual address (PAR_EL1 decoded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Par {
    /// The address translates.
    Ok {
        /// Output physical address (page offset included).
        pa: u64,
        /// PAR_EL1.ATTR: the memory attribute, in MAIR encoding.
        attr: u8,
        /// PAR_EL1.SH: shareability.
        sh: u8,
    },
    /// The walk faulted; FST is the fault status code (as in ESR DFSC).
    Fault {
        /// PAR_EL1.FST.
        fst: u8,
    },
}

/// Translates `va` as an EL1 read would (`AT S1E1R`), without accessing it.
pub fn at_s1e1r(va: u64) -> Par {
    // SAFETY: AT only writes PAR_EL1, which is read after the ISB (nothing in between uses
    // AT); no memory is accessed through `va`.
    unsafe { asm!("at s1e1r, {va}", "isb", va = in(reg) va, options(nostack, nomem)) };
    par(va)
}

/// PAR_EL1 as the last `AT` left it, for `va`.
fn par(va: u64) -> Par {
    let par = LocalRegisterCopy::<u64, PAR::Register>::new(PAR_EL1.get());
    if par.is_set(PAR::F) {
        Par::Fault {
            fst: par.read(PAR::FST) as u8,
        }
    } else {
        Par::Ok {
            pa: par.read(PAR::PA) << 12 | (va & 0xfff),
            attr: par.read(PAR::ATTR) as u8,
            sh: par.read(PAR::SH) as u8,
        }
    }
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
    mapper: &Mapper<'_>,
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

    let regime = Regime {
        mair: memtype::mair_el1(),
        tcr: paging::tcr_el1(&mapper.layout(), parange()),
        ttbr0: mapper.root_pa(),
    };
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
