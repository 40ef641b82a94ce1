//! The AArch64 side of stage-1 translation at EL1 (`super::mmu` is the rest): the
//! registers of the regime and turning it on, and address translation (`AT S1E1R`).

use super::cache;
use super::sysreg::PAR;
use aarch64_cpu::asm::barrier::{self, dsb, isb};
use aarch64_cpu::registers::{
    Readable, Writeable, ID_AA64MMFR0_EL1, MAIR_EL1, PAR_EL1, SCTLR_EL1, TCR_EL1, TTBR0_EL1,
};
use core::arch::asm;
use mairbench_core::memtype;
use mairbench_core::paging::{self, Layout, MapError, Mapper, Table};
use tock_registers::LocalRegisterCopy;

/// The translation layout for this core: the VA size that identity-maps every physical
/// address it supports (ID_AA64MMFR0_EL1.PARange).
pub fn va_layout() -> Result<Layout, &'static str> {
    let parange = ID_AA64MMFR0_EL1.read(ID_AA64MMFR0_EL1::PARange);
    let pa_bits = paging::pa_bits(parange).ok_or("unknown ID_AA64MMFR0_EL1.PARange")?;
    Ok(Layout::for_pa_bits(pa_bits))
}

/// The names of [`registers`]' three values, as the report prints them.
pub fn register_names() -> [&'static str; 3] {
    ["SCTLR_EL1", "MAIR_EL1", "TCR_EL1"]
}

/// The tables: VMSAv8-64's, core's mapper itself.
pub type Tables<'a> = Mapper<'a>;

impl Regime {
    /// The regime of `mapper`'s tables with the memory types' attributes.
    pub fn of(mapper: &Tables<'_>) -> Regime {
        Regime {
            mair: memtype::mair_el1(),
            tcr: paging::tcr_el1(&mapper.layout(), va_layout_parange()),
            ttbr0: mapper.root_pa(),
        }
    }
}

/// ID_AA64MMFR0_EL1.PARange.
fn va_layout_parange() -> u64 {
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
pub(super) unsafe fn enable(regime: &Regime, stale: &[(u64, u64)]) {
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

impl Par {
    /// The translated address and PAR_EL1.ATTR; `None` for a fault.
    pub fn reading(self) -> Option<(u64, Option<u8>)> {
        match self {
            Par::Ok { pa, attr, .. } => Some((pa, Some(attr))),
            Par::Fault { .. } => None,
        }
    }
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

/// A mapper of this architecture's descriptors over `pool`.
pub fn mapper(pool: &mut [Table], pool_pa: u64, layout: Layout) -> Result<Mapper<'_>, MapError> {
    Mapper::new(pool, pool_pa, layout)
}

/// How the buffer's alias slots are aligned: 1 GiB, in a 48-bit address space.
pub const ALIAS_ALIGN: u64 = 1 << 30;

/// Where the buffer's aliases go: half the address space up, where no physical address this
/// core supports lies (the identity map is below it), so `_taken` never meets them.
pub fn alias_window(va_limit: u64, _taken: impl Iterator<Item = (u64, u64)> + Clone) -> (u64, u64) {
    let half = va_limit / 2;
    (half, va_limit - half)
}
