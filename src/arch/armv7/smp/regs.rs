//! The translation-regime registers a started CPU reports ([`Regs`]), as ARMv7 names them.

use super::start::Regs;
use crate::arch::mmu;
use crate::arch::regs::{read64, Ttbr0Lpae};

impl Regs {
    /// The registers' names, in the order of [`Regs::values`].
    pub const NAMES: [&'static str; 4] = ["SCTLR", "MAIR1:MAIR0", "TTBCR", "TTBR0"];

    /// The calling CPU's own.
    pub fn own() -> Regs {
        let (sctlr, mair, tcr) = mmu::registers();
        Regs {
            sctlr,
            mair,
            tcr,
            ttbr0: read64::<Ttbr0Lpae>(),
        }
    }
}
