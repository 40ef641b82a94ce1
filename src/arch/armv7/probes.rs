//! Instructions that may fault, run inside [`exceptions::probe`] so that a fault is an
//! answer rather than the end of the run: VFP, a load, a store to the text, the semihosting
//! trap.

use super::exceptions;
use super::image::image_layout;

/// Whether VFP works at PL1 (a double-precision add, probed).
pub fn fp_simd_works() -> bool {
    let add = || {
        let (lo, hi): (u32, u32);
        // SAFETY: VFP registers only; an undefined-instruction trap is caught.
        unsafe {
            core::arch::asm!(
                ".fpu vfpv3",
                "vmov.f64 d16, #1.0",
                "vadd.f64 d16, d16, d16",
                "vmov {lo}, {hi}, d16",
                lo = out(reg) lo,
                hi = out(reg) hi,
                options(nomem, nostack),
            )
        };
        u64::from(hi) << 32 | u64::from(lo)
    };
    // SAFETY: the instructions above change d16 only; a skipped one leaves the result wrong,
    // which makes the answer false.
    let sum = unsafe { exceptions::probe(add) };
    sum == Ok(2.0f64.to_bits())
}

/// A 32-bit load from `va`, a fault caught, zero-extended.
///
/// # Safety
/// A load from `va` must not disturb anything (no read-sensitive device register).
pub unsafe fn try_load(va: u64) -> Result<u64, exceptions::Fault> {
    let load = || {
        let value: u32;
        // SAFETY: as the caller promises; a fault is caught by the probe.
        unsafe {
            core::arch::asm!("ldr {v}, [{a}]", a = in(reg) va as u32, v = out(reg) value, options(nostack, readonly))
        };
        u64::from(value)
    };
    // SAFETY: only the load may fault; skipped, its value is unused.
    unsafe { exceptions::probe(load) }
}

/// A store of a text word's own value back to it, a fault caught (the text is mapped
/// read-only, so it must fault): `None` when `va` is not a word of the text.
pub fn try_store_text(va: u64) -> Option<Result<(), exceptions::Fault>> {
    let image = image_layout();
    if !(image.start..image.rodata).contains(&va) || !va.is_multiple_of(4) {
        return None;
    }
    // SAFETY: a word of the image's own text: memory, no device.
    let current = unsafe { try_load(va) }.ok()? as u32;
    let store = || {
        // SAFETY: stores the word's own value: if the store succeeds, nothing changes.
        unsafe {
            core::arch::asm!("str {v}, [{a}]", a = in(reg) va as u32, v = in(reg) current, options(nostack))
        };
    };
    // SAFETY: only the store may fault; skipped, nothing changes.
    Some(unsafe { exceptions::probe(store) })
}

/// SYS_EXIT_EXTENDED: on 32-bit Arm SYS_EXIT's parameter is the reason alone, and the call
/// that also passes the exit code (a block of the reason and the code, as AArch64's SYS_EXIT
/// takes) is this one.
pub const SYS_EXIT: usize = 0x20;

/// One semihosting call (`super::semihosting`): operation in r0, parameter in r1, result in
/// r0, through `SVC #0x123456`, the A32 semihosting trap. `None` when the call trapped (no
/// semihosting here: the SVC vector took it).
pub fn semihosting(op: usize, param: usize) -> Option<usize> {
    let svc = || {
        let mut result = op;
        // SAFETY: the host reads and writes only the parameter block the caller passes
        // (hence no `nomem`). Without semihosting the SVC is taken in SVC mode, which
        // overwrites LR (declared clobbered) and is caught by the surrounding probe.
        unsafe {
            core::arch::asm!(
                "svc #0x123456",
                inout("r0") result,
                in("r1") param,
                out("lr") _,
                options(nostack)
            )
        };
        result
    };
    // SAFETY: the only instruction that may trap is the SVC; skipped, it leaves r0 holding
    // `op`, and the caught fault makes the answer `None`.
    unsafe { exceptions::probe(svc) }.ok()
}
