//! Stage-1 translation at EL1: the MMU switch, address translation (`AT S1E1R`) and cache
//! maintenance by virtual address. The tables themselves are built by
//! `mairbench_core::paging` in the pool this module hands out.

use super::Global;
use aarch64_cpu::asm::barrier::{self, dsb, isb};
use aarch64_cpu::registers::{
    ReadWriteable, Readable, Writeable, ID_AA64MMFR0_EL1, MAIR_EL1, SCTLR_EL1, TCR_EL1, TTBR0_EL1,
};
use core::arch::asm;
use mairbench_core::paging::Table;

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
    ID_AA64MMFR0_EL1.get() & 0xf
}

/// The smallest data cache line (CTR_EL0.DminLine), in bytes: the stride of maintenance by VA.
pub fn dcache_line() -> u64 {
    let ctr: u64;
    // SAFETY: reading CTR_EL0 has no side effect (and is not trapped at EL1).
    unsafe { asm!("mrs {}, ctr_el0", out(reg) ctr, options(nomem, nostack)) };
    4 << ((ctr >> 16) & 0xf)
}

macro_rules! by_line {
    ($(#[$doc:meta])* $name:ident, $op:literal) => {
        $(#[$doc])*
        pub fn $name(va: u64, len: u64) {
            let line = dcache_line();
            let mut at = va & !(line - 1);
            while at < va + len {
                // SAFETY: data cache maintenance by VA on a mapped address; it changes no
                // architectural state other than cache contents (and for an invalidate, the
                // caller has decided that memory holds the truth).
                unsafe { asm!(concat!("dc ", $op, ", {}"), in(reg) at, options(nostack)) };
                at += line;
            }
            dsb(barrier::SY);
        }
    };
}

by_line!(
    /// Clean and invalidate `[va, va+len)` to the point of coherency, then DSB SY.
    clean_invalidate, "civac"
);
by_line!(
    /// Invalidate `[va, va+len)` to the point of coherency (dirty data is lost), then DSB SY.
    invalidate, "ivac"
);

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

/// Turns the MMU and both caches on with `regime`. The code runs identity-mapped, so
/// execution continues at the next instruction. `stale` lists memory written with the caches
/// off (tables, stacks, data): its lines are invalidated first so that no stale copy left by
/// the boot loader can shadow it.
pub fn enable(regime: &Regime, stale: &[(u64, u64)]) {
    for &(va, len) in stale {
        invalidate(va, len);
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
    // WXN: any writable page is also execute-never, whatever its descriptor says (W^X).
    SCTLR_EL1.modify(
        SCTLR_EL1::M::Enable
            + SCTLR_EL1::C::Cacheable
            + SCTLR_EL1::I::Cacheable
            + SCTLR_EL1::WXN::Enable,
    );
    isb(barrier::SY);
}

/// The current SCTLR_EL1, MAIR_EL1 and TCR_EL1, for the report.
pub fn registers() -> (u64, u64, u64) {
    (SCTLR_EL1.get(), MAIR_EL1.get(), TCR_EL1.get())
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
    let par: u64;
    // SAFETY: AT only writes PAR_EL1, which is read right after the ISB; no memory is
    // accessed through `va`.
    unsafe {
        asm!(
            "at s1e1r, {va}",
            "isb",
            "mrs {par}, par_el1",
            va = in(reg) va,
            par = out(reg) par,
            options(nostack, nomem),
        )
    };
    if par & 1 != 0 {
        Par::Fault {
            fst: ((par >> 1) & 0x3f) as u8,
        }
    } else {
        Par::Ok {
            pa: (par & 0x000f_ffff_ffff_f000) | (va & 0xfff),
            attr: (par >> 56) as u8,
            sh: ((par >> 7) & 3) as u8,
        }
    }
}
