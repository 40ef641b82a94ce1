//! Instructions that may fault, run inside [`exceptions::probe`] so that a fault is an
//! answer rather than the end of the run: FP/SIMD at EL1, a load, a store to the text.

use super::exceptions;
use super::image::image_layout;

/// Whether FP/SIMD instructions execute (not trapped): computes 1.0 + 1.0 in a SIMD register.
pub fn fp_simd_works() -> bool {
    let add = || {
        let bits: u64;
        // SAFETY: register-only FP arithmetic.
        unsafe {
            core::arch::asm!(
                "fmov d16, #1.0",
                "fadd d16, d16, d16",
                "fmov {}, d16",
                out(reg) bits,
                out("d16") _,
                options(nomem, nostack),
            )
        };
        bits
    };
    // SAFETY: only the asm's FP instructions may trap; skipped, `bits` is garbage, which the
    // comparison rejects along with the fault.
    let sum = unsafe { exceptions::probe(add) };
    sum == Ok(2.0f64.to_bits())
}

/// Loads the 64-bit word at `va` with a single `LDR`, catching a fault.
///
/// # Safety
/// Reading `va` must have no effect besides a possible fault (not a device register, for
/// instance).
pub unsafe fn try_load(va: u64) -> Result<u64, exceptions::Fault> {
    let load = || {
        let value: u64;
        // SAFETY: one load, without side effects (the caller's promise).
        unsafe {
            core::arch::asm!("ldr {v}, [{a}]", a = in(reg) va, v = out(reg) value, options(nostack, readonly))
        };
        value
    };
    // SAFETY: the `ldr` is the only instruction that may fault; its value is then unused.
    unsafe { exceptions::probe(load) }
}

/// Stores to the image's own code the word that is already there, with a single `STR`,
/// catching the permission fault W^X must raise. `None` (nothing tried) unless `va` is an
/// aligned word of the text.
pub fn try_store_text(va: u64) -> Option<Result<(), exceptions::Fault>> {
    let image = image_layout();
    if !(image.start..image.rodata).contains(&va) || !va.is_multiple_of(8) {
        return None;
    }
    // SAFETY: reading code has no side effect.
    let current = unsafe { try_load(va) }.ok()?;
    let store = || {
        // SAFETY: one store of the word's current value: should it succeed, the text keeps
        // its contents.
        unsafe {
            core::arch::asm!("str {v}, [{a}]", a = in(reg) va, v = in(reg) current, options(nostack))
        };
    };
    // SAFETY: the `str` is the only instruction that may fault; nothing depends on it.
    Some(unsafe { exceptions::probe(store) })
}

/// SYS_EXIT, whose parameter on AArch64 is a block of the reason and the exit code.
pub const SYS_EXIT: usize = 0x18;

/// One semihosting call (`super::semihosting`): operation in x0, parameter (often a block address) in x1, result
/// in x0. `None` when the call trapped (no semihosting here).
pub fn semihosting(op: usize, param: usize) -> Option<usize> {
    let hlt = || {
        let mut result = op;
        // SAFETY: HLT #0xF000 is the A64 semihosting trap; the host reads and writes only the
        // parameter block the caller passes (hence no `nomem`). Without semihosting it is an
        // undefined instruction, which the surrounding probe catches and steps over.
        unsafe {
            core::arch::asm!("hlt #0xf000", inout("x0") result, in("x1") param, options(nostack))
        };
        result
    };
    // SAFETY: the only instruction that may trap is the HLT; skipped, it leaves x0 holding
    // `op`, and the caught fault makes the answer `None`, so nothing relies on it.
    unsafe { exceptions::probe(hlt) }.ok()
}
