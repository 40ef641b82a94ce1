//! CP15 registers as raw words: those aarch32-cpu names, through its encodings
//! (`SysRegRead`, `SysRegWrite` and their 64-bit forms), and, in its style, those it lacks:
//! TTBCR, LPAE's 64-bit TTBR0 and PAR, PRRR, NMRR and the ATS1CPR operation.

pub use aarch32_cpu::register::{
    Actlr, Ccsidr, Clidr, Csselr, Ctr, Dfar, Dfsr, IdDfr0, IdMmfr0, IdPfr1, Ifar, Ifsr, Mair0,
    Mair1, Midr, Mpidr, Sctlr, Tpidrprw,
};
pub use aarch32_cpu::register::{CntFrq, CntVct};
use aarch32_cpu::register::{SysReg, SysReg64};
pub use aarch32_cpu::register::{SysRegRead, SysRegRead64, SysRegWrite, SysRegWrite64};

macro_rules! reg32 {
    ($(#[$doc:meta])* $name:ident: $crn:literal, $op1:literal, $crm:literal, $op2:literal) => {
        $(#[$doc])*
        pub struct $name;
        impl SysReg for $name {
            const CP: u32 = 15;
            const CRN: u32 = $crn;
            const OP1: u32 = $op1;
            const CRM: u32 = $crm;
            const OP2: u32 = $op2;
        }
        impl SysRegRead for $name {}
        impl SysRegWrite for $name {}
    };
}

macro_rules! reg64 {
    ($(#[$doc:meta])* $name:ident: $op1:literal, $crm:literal) => {
        $(#[$doc])*
        pub struct $name;
        impl SysReg64 for $name {
            const CP: u32 = 15;
            const OP1: u32 = $op1;
            const CRM: u32 = $crm;
        }
        impl SysRegRead64 for $name {}
        impl SysRegWrite64 for $name {}
    };
}

reg32!(
    /// TTBCR, the Translation Table Base Control Register (EAE selects LPAE).
    Ttbcr: 2, 0, 0, 2
);
reg32!(
    /// PRRR, the Primary Region Remap Register (TEX remap).
    Prrr: 10, 0, 2, 0
);
reg32!(
    /// NMRR, the Normal Memory Remap Register (TEX remap).
    Nmrr: 10, 0, 2, 1
);
reg32!(
    /// ATS1CPR: stage 1 translation of an address as a PL1 read; the result is in PAR.
    Ats1cpr: 7, 0, 8, 0
);
reg32!(
    /// CPACR, the Coprocessor Access Control Register.
    Cpacr: 1, 0, 0, 2
);
reg64!(
    /// TTBR0 as LPAE's 64-bit register (MCRR/MRRC).
    Ttbr0Lpae: 0, 2
);
reg64!(
    /// PAR in the long-descriptor format (MRRC), as ATS1CPR leaves it with TTBCR.EAE set.
    ParLpae: 0, 7
);

/// The raw value of register `R`.
#[inline(always)]
pub fn read<R: SysRegRead>() -> u32 {
    R::read_raw()
}

/// The raw value of the 64-bit register `R`.
#[inline(always)]
pub fn read64<R: SysRegRead64>() -> u64 {
    R::read_raw()
}
