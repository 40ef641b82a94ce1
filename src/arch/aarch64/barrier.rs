//! The barriers and waits the architecture-neutral code names (`crate::arch::barrier`).

/// DSB SY: every memory access before it has completed.
#[inline(always)]
pub fn dsb_sy() {
    aarch64_cpu::asm::barrier::dsb(aarch64_cpu::asm::barrier::SY);
}

/// WFE: waits for an event (a SEV of another CPU, or the event stream).
#[inline(always)]
pub fn wfe() {
    aarch64_cpu::asm::wfe();
}
