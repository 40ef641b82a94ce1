//! Exception handling in the 32-bit image: every exception lands in
//! [`mb_exception_handler`] with the saved registers (`boot/armv7/vectors.S`). A fault the
//! firmware provokes on purpose runs inside [`probe`], which records it and resumes after the
//! faulting instruction; anything else ends the run with status fail. Faults are reported in
//! ESR terms ([`mairbench_core::esr::from_armv7`]), as the AArch64 image reports them.

use super::catch::{caught, report};
pub use super::catch::{probe, set_reporter, Fault, Unexpected};
use super::image::image_layout;
use super::regs::{read, Dfar, Dfsr, Ifar, Ifsr};
use mairbench_core::esr::{from_armv7, Armv7Vector};

/// Registers saved on exception entry by `boot/armv7/vectors.S` (same layout).
#[repr(C)]
pub struct ExceptionFrame {
    /// The interrupted mode's CPSR.
    pub spsr: u32,
    _pad: u32,
    /// r0..r12.
    pub r: [u32; 13],
    /// The instruction that faulted or trapped; where the return resumes.
    pub elr: u32,
}

/// The vectors' names by kind (the vector's offset / 4).
const VECTORS: [&str; 8] = [
    "reset",
    "undefined",
    "SVC",
    "prefetch abort",
    "data abort",
    "HYP trap",
    "IRQ",
    "FIQ",
];

/// The syndrome of exception `kind` at `elr`.
fn syndrome(kind: u32, elr: u32) -> Fault {
    let (vector, fsr, far) = match kind {
        1 => (Armv7Vector::Undefined, 0, 0),
        2 => (Armv7Vector::Svc, 0, 0),
        3 => (Armv7Vector::PrefetchAbort, read::<Ifsr>(), read::<Ifar>()),
        _ => (Armv7Vector::DataAbort, read::<Dfsr>(), read::<Dfar>()),
    };
    Fault {
        esr: from_armv7(vector, fsr),
        far: far.into(),
        elr: elr.into(),
    }
}

/// Called by `boot/armv7/vectors.S` with the saved registers and the vector's kind.
#[no_mangle]
extern "C" fn mb_exception_handler(frame: &mut ExceptionFrame, kind: u32) {
    let fault = syndrome(kind, frame.elr);
    if (1..=4).contains(&kind) && caught(fault) {
        frame.elr += 4;
        return;
    }
    let unexpected = Unexpected {
        vector: VECTORS[kind as usize & 7],
        origin: mairbench_core::arch::armv7_mode(frame.spsr).map_or("?", |m| m.name),
        fault,
        nested: false,
    };
    report(&unexpected)
}

/// `addr` as a link-time address (for `llvm-addr2line`), when it is in the image's text.
pub fn link_address(addr: u64) -> Option<u64> {
    let image = image_layout();
    if !(image.start..image.rodata).contains(&addr) {
        return None;
    }
    let base: u32;
    // SAFETY: loads an absolute symbol's value from a literal; no memory is written.
    unsafe {
        core::arch::asm!(
            "ldr {0}, =__link_base",
            out(reg) base,
            options(pure, readonly, nostack, preserves_flags),
        )
    };
    Some(addr - image.start + u64::from(base))
}

/// Executes an undefined instruction (the `mairbench.selftest=undef` path).
pub fn undefined_instruction() {
    // SAFETY: raises an undefined instruction exception, which the handler reports.
    unsafe { core::arch::asm!("udf #0", options(nomem, nostack)) };
}
