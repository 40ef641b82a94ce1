//! The barriers and waits the architecture-neutral code names (`crate::arch::barrier`).

/// DSB SY: every memory access before it has completed.
#[inline(always)]
pub fn dsb_sy() {
    // SAFETY: a barrier; the default options keep the compiler's accesses before it.
    unsafe { core::arch::asm!("dsb sy", options(nostack, preserves_flags)) };
}

/// ISB: the instructions after it are fetched after those before it have completed.
#[inline(always)]
pub fn isb() {
    // SAFETY: a barrier only.
    unsafe { core::arch::asm!("isb", options(nostack, preserves_flags)) };
}

/// WFE: waits for an event (a SEV of another CPU, or the event stream).
#[inline(always)]
pub fn wfe() {
    // SAFETY: waits; changes no state the program sees.
    unsafe { core::arch::asm!("wfe", options(nomem, nostack, preserves_flags)) };
}
