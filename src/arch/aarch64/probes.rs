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
