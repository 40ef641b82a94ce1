//! EL1 exception handling: every exception lands in [`exception_handler`] with the saved
//! registers. A fault the firmware provokes on purpose runs inside [`probe`], which records it
//! and resumes after the faulting instruction; anything else ends the run with status fail.

use super::cpu::park;
use super::global::Global;
use super::image::image_layout;
use core::sync::atomic::{compiler_fence, Ordering};

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

/// What a synchronous exception reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// ESR_EL1: the syndrome.
    pub esr: u64,
    /// FAR_EL1: the faulting address, valid only for the classes `esr::far_valid` names
    /// (else whatever an earlier exception left).
    pub far: u64,
    /// ELR_EL1: the faulting instruction.
    pub elr: u64,
}

/// An unexpected exception, as handed to the firmware's reporting code.
#[derive(Clone, Copy, Debug)]
pub struct Unexpected {
    /// Which vector: "synchronous", "IRQ", "FIQ" or "SError".
    pub vector: &'static str,
    /// Where it came from, e.g. "current EL, SP_EL0".
    pub origin: &'static str,
    /// Syndrome, fault address and return address.
    pub fault: Fault,
    /// Whether it happened inside the exception handler itself.
    pub nested: bool,
}

#[derive(Clone, Copy)]
struct Probe {
    armed: bool,
    fault: Option<Fault>,
}

static PROBE: Global<Probe> = Global::new(Probe {
    armed: false,
    fault: None,
});

static REPORTER: Global<Option<fn(&Unexpected) -> !>> = Global::new(None);

/// Sets the function that reports an unexpected exception and ends the run.
pub fn set_reporter(report: fn(&Unexpected) -> !) {
    REPORTER.set(Some(report));
}

/// Runs `f`, catching the first synchronous exception it takes: the faulting instruction is
/// skipped and its syndrome returned.
///
/// # Safety
/// Every instruction of `f` that may take an exception must be one the caller can skip:
/// an `asm!` instruction or a volatile access the compiler keeps where it is written, whose
/// outputs are not relied on when it faulted (a skipped load leaves its register as it was).
/// A compiler-generated instruction skipped in the middle of `f` would leave its state
/// undefined.
pub unsafe fn probe<R>(f: impl FnOnce() -> R) -> Result<R, Fault> {
    arm();
    compiler_fence(Ordering::SeqCst);
    let result = f();
    compiler_fence(Ordering::SeqCst);
    match disarm() {
        Some(fault) => Err(fault),
        None => Ok(result),
    }
}

/// Arms the probe: the next synchronous exception is caught. Not inlined: one copy for the
/// many callers of [`probe`].
#[inline(never)]
fn arm() {
    PROBE.set(Probe {
        armed: true,
        fault: None,
    });
}

/// Disarms the probe; returns the exception it caught, if any.
#[inline(never)]
fn disarm() -> Option<Fault> {
    let probe = PROBE.get();
    PROBE.set(Probe {
        armed: false,
        fault: None,
    });
    probe.fault
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
    match REPORTER.get() {
        Some(report) => report(&unexpected),
        None => park(),
    }
}

/// Called by `boot/aarch64/vectors.S` for every exception taken on the exception stack.
#[no_mangle]
extern "C" fn exception_handler(frame: &mut ExceptionFrame, kind: u64) {
    let fault = syndrome(frame.elr);
    let probe = PROBE.get();
    if kind == 0 && probe.armed {
        if probe.fault.is_none() {
            PROBE.set(Probe {
                armed: true,
                fault: Some(fault),
            });
        }
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
