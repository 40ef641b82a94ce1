//! System registers that `aarch64-cpu` does not define (CTR_EL0, DCZID_EL0, PMCR_EL0), in
//! its style: tock-registers bitfields and the `Readable`/`Writeable` interfaces, so every
//! register of the firmware is read the same way.

use core::arch::asm;
use tock_registers::interfaces::{Readable, Writeable};
use tock_registers::register_bitfields;

register_bitfields! {u64,
    /// Cache Type Register.
    pub CTR_EL0 [
        /// Log2 of the words in the smallest data or unified cache line.
        DminLine OFFSET(16) NUMBITS(4) [],
        /// Log2 of the words in the smallest instruction cache line.
        IminLine OFFSET(0) NUMBITS(4) [],
    ],
    /// Data Cache Zero ID register.
    pub DCZID_EL0 [
        /// DC ZVA prohibited.
        DZP OFFSET(4) NUMBITS(1) [],
        /// Log2 of the words DC ZVA zeroes.
        BS OFFSET(0) NUMBITS(4) [],
    ],
    /// Performance Monitors Control Register.
    pub PMCR_EL0 [
        /// Number of event counters.
        N OFFSET(11) NUMBITS(5) [],
        /// Long event counters (FEAT_PMUv3p5): left 0, so every event counter is 32 bits.
        LP OFFSET(7) NUMBITS(1) [],
        /// Long cycle counter: overflow at 64 bits.
        LC OFFSET(6) NUMBITS(1) [],
        /// Write 1: reset every event counter (not PMCCNTR_EL0) to 0.
        P OFFSET(1) NUMBITS(1) [],
        /// Enable all counters.
        E OFFSET(0) NUMBITS(1) [],
    ],
    /// Performance Monitors Event Type Register (PMEVTYPER<n>_EL0, PMXEVTYPER_EL0): the event
    /// and the filters. With P = NSK = 0 a counter counts at EL1 in either security state
    /// (NSK applies where EL3 exists: Non-secure EL1 counts when NSK equals P); U = NSU = 0
    /// counts EL0 too (nothing runs there); NSH = 0 leaves EL2 out. The boot code's
    /// MDCR_EL2.HPMN = PMCR_EL0.N gives every counter to EL1, so MDCR_EL2.HPME/HPMD do not
    /// apply to them.
    pub PMEVTYPER [
        /// Do not count at EL1.
        P OFFSET(31) NUMBITS(1) [],
        /// Do not count at EL0.
        U OFFSET(30) NUMBITS(1) [],
        /// Non-secure EL1: count when equal to P (EL3 implemented).
        NSK OFFSET(29) NUMBITS(1) [],
        /// Non-secure EL0: count when equal to U (EL3 implemented).
        NSU OFFSET(28) NUMBITS(1) [],
        /// Count at EL2.
        NSH OFFSET(27) NUMBITS(1) [],
        /// The event number (bits \[15:10\] RES0 before PMUv3p1).
        EvtCount OFFSET(0) NUMBITS(16) [],
    ],
}

macro_rules! read_only {
    ($(#[$doc:meta])* $reg:ident, $fields:ident, $name:literal) => {
        $(#[$doc])*
        pub struct $reg;

        impl Readable for $reg {
            type T = u64;
            type R = $fields::Register;

            fn get(&self) -> u64 {
                let value;
                // SAFETY: reading this register has no side effect and is not trapped at
                // EL1 (the boot code leaves the PMU to EL1).
                unsafe { asm!(concat!("mrs {}, ", $name), out(reg) value, options(nomem, nostack)) };
                value
            }
        }
    };
}

read_only!(
    /// CTR_EL0 (read at EL1; SCTLR_EL1.UCT does not matter there).
    CtrEl0, CTR_EL0, "ctr_el0"
);
read_only!(
    /// DCZID_EL0.
    DczidEl0, DCZID_EL0, "dczid_el0"
);
read_only!(
    /// PMCR_EL0 (present where ID_AA64DFR0_EL1.PMUVer says a PMU exists).
    PmcrEl0, PMCR_EL0, "pmcr_el0"
);

impl Writeable for PmcrEl0 {
    type T = u64;
    type R = PMCR_EL0::Register;

    fn set(&self, value: u64) {
        // SAFETY: PMCR_EL0 controls only the performance monitors; the callers keep the bits
        // they do not mean to change.
        unsafe { asm!("msr pmcr_el0, {}", in(reg) value, options(nomem, nostack)) };
    }
}

/// CTR_EL0.
pub const CTR: CtrEl0 = CtrEl0;
/// DCZID_EL0.
pub const DCZID: DczidEl0 = DczidEl0;
/// PMCR_EL0.
pub const PMCR: PmcrEl0 = PmcrEl0;

register_bitfields! {u64,
    /// PAR_EL1 as `AT` leaves it (aarch64-cpu names only F and PA): the success and the
    /// fault layouts share bit 0.
    pub PAR [
        /// Memory attribute of the translation, in MAIR encoding (success).
        ATTR OFFSET(56) NUMBITS(8) [],
        /// Output address bits [47:12] (success).
        PA OFFSET(12) NUMBITS(36) [],
        /// Shareability (success).
        SH OFFSET(7) NUMBITS(2) [],
        /// Fault status code, as in ESR DFSC (fault).
        FST OFFSET(1) NUMBITS(6) [],
        /// The translation faulted.
        F OFFSET(0) NUMBITS(1) [],
    ],
}
