//! Ending the run: semihosting SYS_EXIT (QEMU with `-semihosting`), else PSCI SYSTEM_OFF over
//! the conduit the device tree names.

use super::{exceptions::probe, semihosting};
use mairbench_core::platform::PsciConduit;

/// Stops the machine with `code` as the exit status where the platform can carry it; returns
/// only when neither way works.
pub fn exit(code: u32, semihosting: bool, psci: Option<PsciConduit>) {
    if semihosting {
        semihosting::exit(code);
    }
    // A conduit that is not there after all traps as an undefined instruction: caught.
    match psci {
        Some(PsciConduit::Hvc) => {
            // SAFETY: the only instruction that may trap is the HVC inside the smccc call;
            // skipped, the call returns garbage, which is ignored.
            let _ = unsafe { probe(smccc::psci::system_off::<smccc::Hvc>) };
        }
        Some(PsciConduit::Smc) => {
            // SAFETY: as above, for the SMC.
            let _ = unsafe { probe(smccc::psci::system_off::<smccc::Smc>) };
        }
        None => {}
    }
}
