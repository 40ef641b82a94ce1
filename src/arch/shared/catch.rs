//! Catching the faults the firmware provokes on purpose ([`probe`]), and handing any other
//! exception to the run's reporter: what each architecture's `exceptions` shares.

use super::cpu::park;
use super::global::Global;
use core::sync::atomic::{compiler_fence, Ordering};

/// What a synchronous exception reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fault {
    /// The syndrome: ESR_EL1, or on 32-bit Arm the same encoding made from DFSR or IFSR
    /// (`mairbench_core::esr::from_armv7`).
    pub esr: u64,
    /// The faulting address (FAR_EL1; DFAR or IFAR), valid only for the classes
    /// `esr::far_valid` names (else whatever an earlier exception left).
    pub far: u64,
    /// The faulting instruction.
    pub elr: u64,
}

/// An unexpected exception, as handed to the firmware's reporting code.
#[derive(Clone, Copy, Debug)]
pub struct Unexpected {
    /// Which vector, e.g. "synchronous" or "IRQ" (AArch64), "data abort" (ARMv7).
    pub vector: &'static str,
    /// Where it came from, e.g. "current EL, SP_EL0" (AArch64), "svc" (ARMv7: the mode).
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

/// Whether the probe is armed: then `fault` is recorded (the first of the probe's), and the
/// handler steps over the faulting instruction.
pub(super) fn caught(fault: Fault) -> bool {
    let probe = PROBE.get();
    if probe.armed && probe.fault.is_none() {
        PROBE.set(Probe {
            armed: true,
            fault: Some(fault),
        });
    }
    probe.armed
}

/// Hands `unexpected` to the reporter, which ends the run; without one (an exception before
/// the reporter was set), waits for good.
pub(super) fn report(unexpected: &Unexpected) -> ! {
    match REPORTER.get() {
        Some(report) => report(unexpected),
        None => park(),
    }
}
