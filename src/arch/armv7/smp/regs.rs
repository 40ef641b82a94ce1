//! The translation-regime registers a started CPU reports ([`Regs`]), as ARMv7 names them.

use super::super::translation::ttbr0;
use super::start::Regs;
use crate::arch::mmu;

impl Regs {
    /// The registers' names, in the order of [`Regs::values`]. Under TEX remap the second is
    /// NMRR:PRRR, the same CP15 encodings as MAIR1:MAIR0.
    pub const NAMES: [&'static str; 4] = ["SCTLR", "MAIR1:MAIR0", "TTBCR", "TTBR0"];

    /// The calling CPU's own.
    pub fn own() -> Regs {
        let (sctlr, mair, tcr) = mmu::registers();
        Regs {
            sctlr,
            mair,
            tcr,
            ttbr0: ttbr0(),
        }
    }
}
