//! EL1 exception handling: every exception lands in [`exception_handler`] with the saved
//! registers. A fault the firmware provokes on purpose runs inside [`probe`], which records it
//! and resumes after the faulting instruction; anything else ends the run with status fail.

use super::catch::{caught, report as hand_over};
pub use super::catch::{probe, set_reporter, Fault, Unexpected};
use super::image::image_layout;

/// Registers saved on exception entry by `boot/aarch64/vectors.S` (same layout).
#[repr(C)]
pub struct ExceptionFrame {
    /// x0..x30.
    pub x: [u64; 31],
    /// Address of the faulting (or next) instruction; where `eret` resumes.
    pub elr: u64,
    /// Saved processor state.
    pub spsr: u64,
    _pad: u64,
}

fn syndrome(elr: u64) -> Fault {
    use aarch64_cpu::registers::{Readable, ESR_EL1, FAR_EL1};
    Fault {
        esr: ESR_EL1.get(),
        far: FAR_EL1.get(),
        elr,
    }
}

const VECTORS: [&str; 4] = ["synchronous", "IRQ", "FIQ", "SError"];
const ORIGINS: [&str; 4] = [
    "current EL, SP_EL0",
    "current EL, SP_EL1",
    "lower EL, AArch64",
    "lower EL, AArch32",
];

fn report(kind: u64, fault: Fault, nested: bool) -> ! {
    let unexpected = Unexpected {
        vector: VECTORS[(kind & 3) as usize],
        origin: ORIGINS[((kind >> 2) & 3) as usize],
        fault,
        nested,
    };
    hand_over(&unexpected)
}

/// Called by `boot/aarch64/vectors.S` for every exception taken on the exception stack.
#[no_mangle]
extern "C" fn exception_handler(frame: &mut ExceptionFrame, kind: u64) {
    let fault = syndrome(frame.elr);
    if kind == 0 && caught(fault) {
        frame.elr += 4;
        return;
    }
    report(kind, fault, false)
}

/// Called by `boot/aarch64/vectors.S` when an exception hits the exception handler itself.
#[no_mangle]
extern "C" fn exception_nested(kind: u64) -> ! {
    use aarch64_cpu::registers::{Readable, ELR_EL1};
    report(kind, syndrome(ELR_EL1.get()), true)
}

/// Where the linker put the instruction that runs at `addr`: `addr` minus the image's
/// run-time start plus the link base (`__link_base` in `linker.ld`), which is what
/// `addr2line` and `gdb` on the ELF expect. `None` when `addr` is not in the image's code.
pub fn link_address(addr: u64) -> Option<u64> {
    let image = image_layout();
    if !(image.start..image.rodata).contains(&addr) {
        return None;
    }
    let base: u64;
    // SAFETY: the four moves build the absolute link-time value of a linker-script symbol in
    // a register (as boot/aarch64/entry.S does before relocating); nothing is read or written.
    unsafe {
        core::arch::asm!(
            "movz {0}, #:abs_g3:__link_base",
            "movk {0}, #:abs_g2_nc:__link_base",
            "movk {0}, #:abs_g1_nc:__link_base",
            "movk {0}, #:abs_g0_nc:__link_base",
            out(reg) base,
            options(pure, nomem, nostack, preserves_flags),
        )
    };
    Some(addr - image.start + base)
}

/// Executes an undefined instruction (`UDF #0`): a deliberate unexpected exception, which
/// ends the run (outside a probe).
pub fn undefined_instruction() {
    // SAFETY: UDF only raises a synchronous exception, which the handler reports; it touches
    // neither memory nor registers.
    unsafe { core::arch::asm!("udf #0", options(nomem, nostack)) };
}
