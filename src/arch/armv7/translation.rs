//! The ARMv7 side of stage-1 translation at PL1 (`super::mmu` is the rest): LPAE's registers
//! (MAIR0/MAIR1, TTBCR, the 64-bit TTBR0) and turning the regime on, and address translation
//! (`ATS1CPR`, the long-descriptor PAR). Cores without LPAE (the Cortex-A8 and A9) need short
//! descriptors with TEX remap, which core describes (`paging::short`, `memtype::armv7`) and
//! this image does not build yet: [`va_layout`] says so and the run stops there.

use super::barrier::isb;
use super::cache;
use super::regs::{
    read, read64, write, write64, Ats1cpr, IdMmfr0, Mair0, Mair1, ParLpae, Sctlr, Ttbcr, Ttbr0Lpae,
};
use mairbench_core::memtype::armv7;
use mairbench_core::paging::{lpae, Layout, MapError, Mapper, Table};

/// Whether the core has LPAE (ID_MMFR0.VMSA is 5 or more).
pub fn lpae() -> bool {
    mairbench_core::arch::armv7_features(read::<IdMmfr0>(), 0).lpae
}

/// The translation layout: LPAE's 32-bit address space from level 1.
pub fn va_layout() -> Result<Layout, &'static str> {
    if !lpae() {
        return Err(
            "this core has no LPAE (ID_MMFR0.VMSA below 5: a Cortex-A5, A8 or A9), and \
                    the 32-bit image builds only LPAE tables so far",
        );
    }
    Ok(lpae::LAYOUT)
}

/// The names of [`registers`]' three values, as the report prints them.
pub const REGISTERS: [&str; 3] = ["SCTLR", "MAIR1:MAIR0", "TTBCR"];

/// Registers that set up the translation regime.
#[derive(Clone, Copy, Debug)]
pub struct Regime {
    /// MAIR1 in bits 63:32, MAIR0 in 31:0: attribute byte `n` at bits `8n+7:8n`, as in
    /// MAIR_EL1.
    pub mair: u64,
    /// TTBCR (EAE set).
    pub tcr: u64,
    /// TTBR0: the level-1 table's physical address.
    pub ttbr0: u64,
}

impl Regime {
    /// The regime of `mapper`'s tables with the memory types' attributes.
    pub fn of(mapper: &Mapper<'_>) -> Regime {
        let (mair0, mair1) = armv7::mair0_mair1();
        Regime {
            mair: u64::from(mair1) << 32 | u64::from(mair0),
            tcr: lpae::TTBCR.into(),
            ttbr0: mapper.root_pa(),
        }
    }
}

/// SCTLR bits set to turn translation on: M (MMU), C (data caches), I (instruction caches)
/// and WXN (bit 19: any writable page is also execute-never: W^X). The secondaries' entry
/// code sets the same (`SCTLR_MMU_ON`, boot/armv7/entry.S).
pub(super) const SCTLR_MMU_ON: u64 = 1 | 1 << 2 | 1 << 12 | 1 << 19;

/// Turns the boot CPU's MMU and both caches on with `regime` (see the AArch64 image's
/// `enable`: the same steps with CP15's registers).
///
/// # Safety
/// As the AArch64 image's: the tables identity-map the running code and every object and
/// stack in use as Normal write-back, and stay unchanged; the caches hold nothing newer than
/// memory for `stale`.
pub(super) unsafe fn enable(regime: &Regime, stale: &[(u64, u64)]) {
    for &(va, len) in stale {
        // SAFETY: the caller says memory, not the cache, holds the truth for `stale`.
        unsafe { cache::invalidate(va, len) };
    }
    // SAFETY: the attributes, the control register and the table base of a regime that is
    // not on yet (SCTLR.M is clear until the last write).
    unsafe {
        write::<Mair0>(regime.mair as u32);
        write::<Mair1>((regime.mair >> 32) as u32);
        write::<Ttbcr>(regime.tcr as u32);
        write64::<Ttbr0Lpae>(regime.ttbr0);
    }
    isb();
    // SAFETY: TLBIALL, ICIALLU and BPIALL: invalidate what a boot loader left; no data.
    unsafe {
        core::arch::asm!(
            "mcr p15, 0, {z}, c8, c7, 0",
            "dsb sy",
            "isb",
            "mcr p15, 0, {z}, c7, c5, 0",
            "mcr p15, 0, {z}, c7, c5, 6",
            "dsb sy",
            z = in(reg) 0u32,
            options(nostack, nomem)
        )
    };
    // SAFETY: the caller's promise: the tables map what runs now.
    unsafe { write::<Sctlr>(read::<Sctlr>() | SCTLR_MMU_ON as u32) };
    isb();
}

/// The current SCTLR, MAIR1:MAIR0 and TTBCR, for the report.
pub fn registers() -> (u64, u64, u64) {
    let mair = u64::from(read::<Mair1>()) << 32 | u64::from(read::<Mair0>());
    (read::<Sctlr>().into(), mair, read::<Ttbcr>().into())
}

/// Turns the data cache off (SCTLR.C clear) for the rest of the run and cleans and
/// invalidates every data/unified cache level by set/way (`mairbench.selftest=caches-off`).
/// Returns the DCCISW operations issued.
///
/// # Safety
/// No other CPU may be running with its caches on and sharing memory with this one.
pub unsafe fn data_cache_off() -> u64 {
    extern "C" {
        fn mb_dcache_off() -> u32;
    }
    // SAFETY: the routine touches no memory between clearing SCTLR.C and the set/way clean;
    // it keeps the AAPCS callee-saved registers; the caller promised no other CPU runs.
    unsafe { mb_dcache_off() }.into()
}

/// What `ATS1CPR` found for one virtual address (the long-descriptor PAR decoded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Par {
    /// The address translates.
    Ok {
        /// Output physical address (page offset included).
        pa: u64,
        /// PAR.ATTR: the memory attribute, in MAIR encoding.
        attr: u8,
        /// PAR.SH: shareability.
        sh: u8,
    },
    /// The walk faulted; FST is the fault status code (as in a long-format DFSR).
    Fault {
        /// PAR.FST.
        fst: u8,
    },
}

/// Translates `va` as a PL1 read would (`ATS1CPR`), without accessing it.
pub fn at_s1e1r(va: u64) -> Par {
    // SAFETY: ATS1CPR only writes PAR, read after the ISB; no memory is accessed.
    unsafe { write::<Ats1cpr>(va as u32) };
    isb();
    let par = read64::<ParLpae>();
    if par & 1 != 0 {
        Par::Fault {
            fst: (par >> 1 & 0x3f) as u8,
        }
    } else {
        Par::Ok {
            pa: par & 0xff_ffff_f000 | (va & 0xfff),
            attr: (par >> 56) as u8,
            sh: (par >> 7 & 3) as u8,
        }
    }
}

/// A mapper of this architecture's descriptors over `pool`.
pub fn mapper(pool: &mut [Table], pool_pa: u64, layout: Layout) -> Result<Mapper<'_>, MapError> {
    Mapper::new(pool, pool_pa, layout).map(Mapper::armv7)
}

/// How the buffer's alias slots are aligned: 2 MiB (what the block aliases need), in a 4 GiB address space.
pub const ALIAS_ALIGN: u64 = 2 << 20;

/// Where the buffer's aliases go: half the address space up where the identity map (`taken`:
/// start, length) leaves it free, else the largest 2 MiB-aligned stretch it leaves (a board
/// whose RAM is in the upper half, as the i.MX6UL EVK's at 0x8000_0000).
pub fn alias_window(va_limit: u64, taken: impl Iterator<Item = (u64, u64)> + Clone) -> (u64, u64) {
    let half = va_limit / 2;
    if taken
        .clone()
        .all(|(base, len)| base.saturating_add(len) <= half)
    {
        return (half, va_limit - half);
    }
    mairbench_core::placement::largest_gap(va_limit, ALIAS_ALIGN, taken)
}
