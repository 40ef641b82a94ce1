//! The performance monitors' cycle counter (PMCCNTR_EL0). The boot code hands every counter
//! to EL1 (MDCR_EL2.HPMN = PMCR_EL0.N, no traps). Under QEMU it counts virtual nanoseconds,
//! not cycles.

use super::exceptions::{probe, Fault};
use aarch64_cpu::registers::{Readable, ID_AA64DFR0_EL1};
use core::arch::asm;

/// What the PMU offers.
#[derive(Clone, Copy, Debug)]
pub struct Pmu {
    /// ID_AA64DFR0_EL1.PMUVer (1 = PMUv3, 4 = v3.1, …).
    pub version: u64,
    /// PMCR_EL0.N: number of event counters besides the cycle counter.
    pub counters: u64,
}

/// The architected PMU, if this core has one.
pub fn pmu() -> Option<Pmu> {
    let version = ID_AA64DFR0_EL1.read(ID_AA64DFR0_EL1::PMUVer);
    if version == 0 || version == 0xf {
        return None;
    }
    let pmcr: u64;
    // SAFETY: reading PMCR_EL0 at EL1 has no side effect; the PMU exists (PMUVer above).
    unsafe { asm!("mrs {}, pmcr_el0", out(reg) pmcr, options(nomem, nostack)) };
    Some(Pmu {
        version,
        counters: (pmcr >> 11) & 0x1f,
    })
}

/// Starts the 64-bit cycle counter, counting at EL1. A trap (a hypervisor that keeps the
/// PMU) comes back as the fault.
pub fn start_cycle_counter() -> Result<(), Fault> {
    probe(|| {
        // SAFETY: writes only PMU control registers: PMCCFILTR_EL0 = 0 counts cycles at EL1,
        // PMCR_EL0 E (enable) and LC (64-bit overflow), PMCNTENSET_EL0.C enables the counter.
        unsafe {
            asm!(
                "msr pmccfiltr_el0, xzr",
                "mrs {t}, pmcr_el0",
                "orr {t}, {t}, #(1 << 0)",
                "orr {t}, {t}, #(1 << 6)",
                "msr pmcr_el0, {t}",
                "mov {t}, #(1 << 31)",
                "msr pmcntenset_el0, {t}",
                "isb",
                t = out(reg) _,
                options(nomem, nostack),
            )
        }
    })
}

/// The cycle counter, ordered after the instructions before it.
pub fn cycles() -> u64 {
    let c: u64;
    // SAFETY: reading PMCCNTR_EL0 has no side effect; EL1 access is not trapped (boot code).
    unsafe { asm!("isb", "mrs {}, pmccntr_el0", out(reg) c, options(nomem, nostack)) };
    c
}
