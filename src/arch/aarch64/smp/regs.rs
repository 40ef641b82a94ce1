//! The translation-regime registers a started CPU reports ([`Regs`]), as AArch64 names them.

use super::start::Regs;

impl Regs {
    /// The registers' names, in the order of [`Regs::values`].
    pub const NAMES: [&'static str; 4] = ["SCTLR_EL1", "MAIR_EL1", "TCR_EL1", "TTBR0_EL1"];

    /// The calling CPU's own.
    pub fn own() -> Regs {
        use aarch64_cpu::registers::{Readable, MAIR_EL1, SCTLR_EL1, TCR_EL1, TTBR0_EL1};
        Regs {
            sctlr: SCTLR_EL1.get(),
            mair: MAIR_EL1.get(),
            tcr: TCR_EL1.get(),
            ttbr0: TTBR0_EL1.get(),
        }
    }
}
