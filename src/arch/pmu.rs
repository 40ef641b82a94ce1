//! The performance monitors' cycle counter (PMCCNTR_EL0). The boot code hands every counter
//! to EL1 (MDCR_EL2.HPMN = PMCR_EL0.N, no traps). Under QEMU it counts virtual nanoseconds,
//! not cycles.

use super::exceptions::{probe, Fault};
use super::sysreg::{PMCR, PMCR_EL0};
use aarch64_cpu::registers::{ReadWriteable, Readable, ID_AA64DFR0_EL1};
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
    // PMCR_EL0 exists: PMUVer says so.
    Some(Pmu {
        version,
        counters: PMCR.read(PMCR_EL0::N),
    })
}

/// Starts the 64-bit cycle counter, counting at EL1. A trap (a hypervisor that keeps the
/// PMU) comes back as the fault.
pub fn start_cycle_counter() -> Result<(), Fault> {
    // SAFETY: each instruction that may trap is one `mrs`/`msr` of a PMU register in asm or
    // in the register accessors; skipped, it changes nothing, and the caught fault says the
    // counter is not usable, so nothing relies on what it would have done.
    unsafe {
        probe(|| {
            // SAFETY: PMCCFILTR_EL0 = 0 counts cycles at EL1; PMU control only.
            asm!("msr pmccfiltr_el0, xzr", options(nomem, nostack));
            PMCR.modify(PMCR_EL0::E::SET + PMCR_EL0::LC::SET);
            // SAFETY: PMCNTENSET_EL0.C enables the cycle counter; PMU control only.
            asm!("msr pmcntenset_el0, {t}", "isb", t = in(reg) 1u64 << 31, options(nomem, nostack));
        })
    }
}

/// The cycle counter, ordered after the instructions before it.
pub fn cycles() -> u64 {
    let c: u64;
    // SAFETY: reading PMCCNTR_EL0 has no side effect; EL1 access is not trapped (boot code).
    unsafe { asm!("isb", "mrs {}, pmccntr_el0", out(reg) c, options(nomem, nostack)) };
    c
}
