//! Ending the run: semihosting SYS_EXIT (QEMU with `-semihosting`), else PSCI SYSTEM_OFF,
//! else park the core.

use super::exceptions::probe;
use core::arch::asm;
use mairbench_core::platform::PsciConduit;

const SYS_EXIT: u64 = 0x18;
const SYS_ERRNO: u64 = 0x13;
const ADP_STOPPED_APPLICATION_EXIT: u64 = 0x20026;

/// One semihosting call (`HLT #0xF000`, the A64 semihosting trap): operation in x0, parameter
/// in x1, result in x0.
fn semihost(op: u64, param: u64) -> u64 {
    let mut result = op;
    // SAFETY: HLT #0xF000 is handled by the debugger or QEMU and returns; where semihosting is
    // absent it is an undefined instruction, which callers only execute inside `probe`. The
    // parameter block (if any) is read by the host, hence no `nomem`.
    unsafe { asm!("hlt #0xf000", inout("x0") result, in("x1") param, options(nostack)) };
    result
}

/// Whether semihosting answers (a harmless SYS_ERRNO call that does not fault).
pub fn semihosting_available() -> bool {
    probe(|| semihost(SYS_ERRNO, 0)).is_ok()
}

/// Stops the machine with `code` as the exit status where the platform can carry it.
pub fn exit(code: u32, semihosting: bool, psci: Option<PsciConduit>) -> ! {
    if semihosting {
        let block = [ADP_STOPPED_APPLICATION_EXIT, u64::from(code)];
        let _ = probe(|| semihost(SYS_EXIT, block.as_ptr() as u64));
    }
    match psci {
        Some(PsciConduit::Hvc) => {
            let _ = probe(smccc::psci::system_off::<smccc::Hvc>);
        }
        Some(PsciConduit::Smc) => {
            let _ = probe(smccc::psci::system_off::<smccc::Smc>);
        }
        None => {}
    }
    super::park()
}
