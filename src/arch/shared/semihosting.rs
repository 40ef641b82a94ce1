//! Arm semihosting: calls answered by QEMU with `-semihosting` or by a debugger, through
//! the architecture's trap (`super::probes::semihosting`: `HLT #0xF000` in A64,
//! `SVC #0x123456` in A32). Where nobody answers, the trap is an exception; every call here
//! runs inside a probe, so that costs one caught exception and nothing else.

use super::probes::{semihosting as call, SYS_EXIT};

const SYS_ERRNO: usize = 0x13;
const SYS_GET_CMDLINE: usize = 0x15;
const ADP_STOPPED_APPLICATION_EXIT: usize = 0x20026;

/// Whether semihosting answers (a harmless SYS_ERRNO call).
pub fn available() -> bool {
    call(SYS_ERRNO, 0).is_some()
}

/// The host's command line (SYS_GET_CMDLINE) without its first word (the program name),
/// read into `buf`; `None` when unavailable or not UTF-8.
pub fn command_line(buf: &mut [u8]) -> Option<&str> {
    let mut block = [buf.as_mut_ptr() as usize, buf.len()];
    if call(SYS_GET_CMDLINE, block.as_mut_ptr() as usize)? != 0 {
        return None;
    }
    let len = block[1].min(buf.len());
    let line = core::str::from_utf8(&buf[..len]).ok()?;
    Some(
        mairbench_core::text::split_once(line, b' ')
            .map_or("", |(_, rest)| rest)
            .trim_ascii(),
    )
}

/// Asks the host to end the program with `code` as its exit status; returns if it does not.
pub fn exit(code: u32) {
    let block = [ADP_STOPPED_APPLICATION_EXIT, code as usize];
    let _ = call(SYS_EXIT, block.as_ptr() as usize);
}
