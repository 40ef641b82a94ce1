//! Data cache maintenance by virtual address: clean and invalidate, or invalidate, a range to
//! the point of coherency, line by line (CTR_EL0.DminLine).

use super::sysreg::{CTR, CTR_EL0};
use aarch64_cpu::asm::barrier::{self, dsb};
use aarch64_cpu::registers::Readable;
use core::arch::asm;

/// The smallest data cache line (CTR_EL0.DminLine), in bytes: the stride of maintenance by VA.
pub fn dcache_line() -> u64 {
    4 << CTR.read(CTR_EL0::DminLine)
}

macro_rules! by_line {
    ($(#[$doc:meta])* $name:ident, $op:literal) => {
        $(#[$doc])*
        fn $name(va: u64, len: u64) {
            let line = dcache_line();
            let mut at = va & !(line - 1);
            while at < va + len {
                // SAFETY: data cache maintenance by VA; it changes no architectural state
                // other than cache contents (for an invalidate, the public wrapper's caller
                // has decided that memory holds the truth). An unmapped VA faults, reported.
                unsafe { asm!(concat!("dc ", $op, ", {}"), in(reg) at, options(nostack)) };
                at += line;
            }
            dsb(barrier::SY);
        }
    };
}

by_line!(
    /// `DC CIVAC` by line over `[va, va+len)`, then DSB SY.
    civac_range, "civac"
);
by_line!(
    /// `DC IVAC` by line over `[va, va+len)`, then DSB SY.
    ivac_range, "ivac"
);

/// Clean and invalidate `[va, va+len)` to the point of coherency, then DSB SY. Memory keeps
/// its contents, so any mapped range may be given.
pub fn clean_invalidate(va: u64, len: u64) {
    civac_range(va, len);
}

/// Invalidate `[va, va+len)` to the point of coherency, then DSB SY.
///
/// # Safety
/// Dirty data in the range is lost: it must hold no Rust object whose latest value might
/// still be only in the cache.
pub(super) unsafe fn invalidate(va: u64, len: u64) {
    ivac_range(va, len);
}

/// Cleans an outer cache's lines of `[va, va + len)`: nothing on AArch64, where maintenance
/// by VA to the point of coherency reaches every cache before it (`super::devices`).
pub fn outer_clean(_va: u64, _len: u64) {}

/// Times an outer cache's clean beside the CPU's: nothing on AArch64, whose maintenance by VA
/// to the point of coherency reaches every cache before it (`super::devices`).
#[inline(always)]
pub fn time_outer(_wb: &crate::memory::Alias, _clock: bool) {}
