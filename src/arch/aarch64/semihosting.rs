//! Arm semihosting (`HLT #0xF000`): calls answered by QEMU with `-semihosting` or by a
//! debugger. Where nobody answers, HLT is an undefined instruction; every call here runs
//! inside a probe, so that costs one caught exception and nothing else.

use super::exceptions::probe;
use core::arch::asm;

const SYS_ERRNO: u64 = 0x13;
const SYS_GET_CMDLINE: u64 = 0x15;
const SYS_EXIT: u64 = 0x18;
const ADP_STOPPED_APPLICATION_EXIT: u64 = 0x20026;

/// One semihosting call: operation in x0, parameter (often a block address) in x1, result
/// in x0. `None` when the call trapped (no semihosting here).
fn call(op: u64, param: u64) -> Option<u64> {
    let hlt = || {
        let mut result = op;
        // SAFETY: HLT #0xF000 is the A64 semihosting trap; the host reads and writes only the
        // parameter block the caller passes (hence no `nomem`). Without semihosting it is an
        // undefined instruction, which the surrounding probe catches and steps over.
        unsafe { asm!("hlt #0xf000", inout("x0") result, in("x1") param, options(nostack)) };
        result
    };
    // SAFETY: the only instruction that may trap is the HLT; skipped, it leaves x0 holding
    // `op`, and the caught fault makes the answer `None`, so nothing relies on it.
    unsafe { probe(hlt) }.ok()
}

/// Whether semihosting answers (a harmless SYS_ERRNO call).
pub fn available() -> bool {
    call(SYS_ERRNO, 0).is_some()
}

/// The host's command line (SYS_GET_CMDLINE) without its first word (the program name),
/// read into `buf`; `None` when unavailable or not UTF-8.
pub fn command_line(buf: &mut [u8]) -> Option<&str> {
    let mut block = [buf.as_mut_ptr() as u64, buf.len() as u64];
    if call(SYS_GET_CMDLINE, block.as_mut_ptr() as u64)? != 0 {
        return None;
    }
    let len = usize::try_from(block[1]).ok()?.min(buf.len());
    let line = core::str::from_utf8(&buf[..len]).ok()?;
    Some(
        mairbench_core::text::split_once(line, b' ')
            .map_or("", |(_, rest)| rest)
            .trim_ascii(),
    )
}

/// Asks the host to end the program with `code` as its exit status; returns if it does not.
pub fn exit(code: u32) {
    let block = [ADP_STOPPED_APPLICATION_EXIT, u64::from(code)];
    let _ = call(SYS_EXIT, block.as_ptr() as u64);
}
