//! Data cache maintenance by virtual address: clean and invalidate, or invalidate, a range to
//! the point of coherency, line by line (CTR.DminLine): DCCIMVAC and DCIMVAC, with an enabled
//! outer cache's lines of the range by physical address ([`super::outer`]).

use super::barrier::dsb_sy;
use super::regs::{read, Ctr};
use mairbench_core::pl310::Op;

/// Bytes of the smallest data cache line (CTR.DminLine, bits 19:16, log2 of words).
pub fn dcache_line() -> u64 {
    4 << (read::<Ctr>() >> 16 & 0xf)
}

macro_rules! by_line {
    ($(#[$doc:meta])* $name:ident, $crm:literal) => {
        $(#[$doc])*
        fn $name(va: u64, len: u64) {
            let line = dcache_line();
            let mut at = va & !(line - 1);
            while at < va + len {
                // SAFETY: maintenance by MVA of a line the caller names; it changes no data
                // that is not written back first (clean) or that the caller gave up.
                unsafe {
                    core::arch::asm!(
                        concat!("mcr p15, 0, {}, c7, ", $crm, ", 1"),
                        in(reg) at as u32,
                        options(nostack)
                    )
                };
                at += line;
            }
            dsb_sy();
        }
    };
}

by_line!(
    /// DCCIMVAC per line over the range, then DSB.
    civac_range, "c14"
);
by_line!(
    /// DCIMVAC per line over the range, then DSB.
    ivac_range, "c6"
);

/// Cleans and invalidates `[va, va + len)` to the point of coherency: the CPU's caches, then
/// an enabled outer cache ([`super::outer`]).
pub fn clean_invalidate(va: u64, len: u64) {
    civac_range(va, len);
    super::outer::maintain(Op::CleanInvalidate, va, len);
}

/// Invalidates `[va, va + len)` to the point of coherency: dirty data there is lost.
///
/// # Safety
/// The range holds nothing whose loss matters (stale lines of data written with the caches
/// off, or test data).
pub(super) unsafe fn invalidate(va: u64, len: u64) {
    super::outer::maintain(Op::Invalidate, va, len);
    ivac_range(va, len);
}

/// Cleans an enabled outer cache's lines of `[va, va + len)` by physical address
/// ([`super::outer`]): what a driver adds to a clean by VA (`DCCMVAC`) for the data to reach
/// memory past an L2C-310, as Linux's `outer_clean_range` does. Nothing without one.
pub fn outer_clean(va: u64, len: u64) {
    super::outer::clean(va, len);
}

/// Times the outer cache's clean beside the CPU's, where the device tree names an L2C-310
/// ([`super::outer::time`]); says why not otherwise. `clock`: whether the timer check passed.
pub fn time_outer(wb: &crate::memory::Alias, clock: bool) {
    super::outer::time(wb, clock);
}
