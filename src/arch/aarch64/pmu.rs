//! The performance monitors: the cycle counter (PMCCNTR_EL0) and the event counters
//! (PMEVCNTR<n>_EL0) programmed with the events of `mairbench_core::pmu`. The boot code hands
//! every counter to EL1 (MDCR_EL2.HPMN = PMCR_EL0.N, no traps), but a hypervisor that entered
//! the firmware at EL1 may trap them: every first access runs inside a probe, so a trap is a
//! caught fault and a reason, never the end of the run. Under QEMU the cycle counter counts
//! virtual nanoseconds, not cycles, and no event counts memory traffic.

use super::exceptions::{probe, Fault};
use super::sysreg::{PMCR, PMCR_EL0, PMEVTYPER};
use aarch64_cpu::registers::{ReadWriteable, Readable, ID_AA64DFR0_EL1};
use core::arch::asm;
use mairbench_core::pmu::{Choice, Counts, Unavailable, MAX, SW_INCR};

/// What the PMU offers.
#[derive(Clone, Copy, Debug)]
pub struct Pmu {
    /// ID_AA64DFR0_EL1.PMUVer (1 = PMUv3, 4 = v3.1, …).
    pub version: u64,
    /// PMCR_EL0.N: number of event counters besides the cycle counter (0 when trapped).
    pub counters: u64,
    /// Whether reading PMCR_EL0 took an exception (a hypervisor that keeps the PMU).
    pub trapped: bool,
}

/// The architected PMU, if this core has one.
pub fn pmu() -> Option<Pmu> {
    let version = ID_AA64DFR0_EL1.read(ID_AA64DFR0_EL1::PMUVer);
    if version == 0 || version == 0xf {
        return None;
    }
    // PMCR_EL0 exists (PMUVer says so), but a hypervisor may trap it.
    // SAFETY: the accessor's `mrs` is the only instruction that may trap; skipped, its value
    // is not used.
    let n = unsafe { probe(|| PMCR.read(PMCR_EL0::N)) };
    Some(Pmu {
        version,
        counters: n.unwrap_or(0),
        trapped: n.is_err(),
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

/// The bits PMCCNTR_EL0 counts in (with PMCR_EL0.LC set: all 64).
const CYCLE_MASK: u64 = u64::MAX;

#[path = "../shared/cycle_rate.rs"]
mod cycle_rate;
pub use cycle_rate::cycle_rate_hz;

/// What the event counters are: PMCEID0/1_EL0 and PMCR_EL0.N, as read at EL1.
#[derive(Clone, Copy, Debug)]
pub struct Ids {
    /// PMCEID0_EL0: Common events 0x00–0x1F (upper half 0x4000–0x401F).
    pub pmceid0: u64,
    /// PMCEID1_EL0: Common events 0x20–0x3F (upper half 0x4020–0x403F).
    pub pmceid1: u64,
    /// PMCR_EL0.N: the event counters EL1 has (MDCR_EL2.HPMN under a hypervisor).
    pub counters: u64,
}

/// Reads the event identification registers; the reason when there are no event counters
/// to read them for, or when reading them traps.
pub fn ids() -> Result<Ids, Unavailable> {
    let pmu = pmu().ok_or(Unavailable::NoPmu)?;
    if pmu.trapped {
        return Err(Unavailable::Trapped);
    }
    if pmu.counters == 0 {
        return Err(Unavailable::NoCounters);
    }
    // SAFETY: the two `mrs` are the only instructions that may trap; a skipped one leaves
    // its output 0, which is not used when the probe reports the fault.
    unsafe {
        probe(|| {
            let (p0, p1): (u64, u64);
            // SAFETY: reading PMCEID0/1_EL0 has no side effect.
            asm!("mrs {}, pmceid0_el0", "mrs {}, pmceid1_el0", out(reg) p0, out(reg) p1,
                 options(nomem, nostack));
            Ids {
                pmceid0: p0,
                pmceid1: p1,
                counters: pmu.counters,
            }
        })
    }
    .map_err(|_| Unavailable::Trapped)
}

/// Programs event counter `n` (< PMCR_EL0.N) with `event`, counting at EL0 and EL1
/// (see `sysreg::PMEVTYPER`), and zeroes it.
///
/// # Safety
/// Must run inside [`probe`]: each `msr` may trap under a hypervisor.
unsafe fn program(n: u64, event: u16) {
    let typer = (PMEVTYPER::EvtCount.val(event.into())
        + PMEVTYPER::P::CLEAR
        + PMEVTYPER::U::CLEAR
        + PMEVTYPER::NSK::CLEAR
        + PMEVTYPER::NSU::CLEAR
        + PMEVTYPER::NSH::CLEAR)
        .value;
    // SAFETY: PMSELR_EL0 selects counter `n`, which exists (the caller's bound); the ISB makes
    // the selection visible to the indirect PMXEVTYPER/PMXEVCNTR writes. PMU control only.
    unsafe {
        asm!(
            "msr pmselr_el0, {n}",
            "isb",
            "msr pmxevtyper_el0, {t}",
            "msr pmxevcntr_el0, xzr",
            n = in(reg) n,
            t = in(reg) typer,
            options(nomem, nostack)
        )
    };
}

/// Counter `n` (0 to [`MAX`] - 1; 0 for any other), read directly (PMEVCNTR<n>_EL0), without
/// the PMSELR_EL0 write and ISB of the indirect path.
fn counter(n: usize) -> u64 {
    macro_rules! read {
        ($reg:literal) => {{
            let v: u64;
            // SAFETY: reading an event counter has no side effect; the caller's counters were
            // programmed and read inside a probe without a trap.
            unsafe { asm!(concat!("mrs {}, ", $reg), out(reg) v, options(nomem, nostack)) };
            v
        }};
    }
    match n {
        0 => read!("pmevcntr0_el0"),
        1 => read!("pmevcntr1_el0"),
        2 => read!("pmevcntr2_el0"),
        3 => read!("pmevcntr3_el0"),
        4 => read!("pmevcntr4_el0"),
        5 => read!("pmevcntr5_el0"),
        6 => read!("pmevcntr6_el0"),
        7 => read!("pmevcntr7_el0"),
        8 => read!("pmevcntr8_el0"),
        _ => 0,
    }
}

// The table must fit the direct reads above.
const _: () = assert!(MAX <= 9);

/// The self-check: counter 0 counts SW_INCR (event 0x00, which every PMUv3 implements) while
/// PMSWINC_EL0 is written `k` times; returns what it counted (`k` when programming works).
/// Counter 0 is disabled again afterwards. Call only with PMCR_EL0.N ≥ 1 ([`ids`] succeeded).
pub fn sw_incr_check(k: u32) -> Result<u64, Fault> {
    // SAFETY: every instruction that may trap is an `msr`/`mrs` of a PMU register in asm or
    // the PMCR accessor; skipped, it leaves the counter unprogrammed or its output 0, and the
    // caught fault makes the count unused.
    unsafe {
        probe(|| {
            // SAFETY: PMCNTENCLR_EL0.P0 stops counter 0 while it is programmed.
            asm!("msr pmcntenclr_el0, {m}", m = in(reg) 1u64, options(nomem, nostack));
            // SAFETY: inside this probe; counter 0 exists (N ≥ 1).
            program(0, SW_INCR);
            PMCR.modify(PMCR_EL0::E::SET);
            // SAFETY: PMCNTENSET_EL0.P0 starts counter 0; PMU control only.
            asm!("msr pmcntenset_el0, {m}", "isb", m = in(reg) 1u64, options(nomem, nostack));
            for _ in 0..k {
                // SAFETY: PMSWINC_EL0.P0 increments counter 0 (it counts SW_INCR).
                asm!("msr pmswinc_el0, {m}", m = in(reg) 1u64, options(nomem, nostack));
            }
            let v: u64;
            // SAFETY: reads counter 0, then stops it; PMU only.
            asm!(
                "isb",
                "mrs {v}, pmevcntr0_el0",
                "msr pmcntenclr_el0, {m}",
                v = out(reg) v,
                m = in(reg) 1u64,
                options(nomem, nostack)
            );
            v & u64::from(u32::MAX)
        })
    }
}

/// The event counters as programmed for the chosen events: slot i on counter i.
#[derive(Clone, Copy, Debug)]
pub struct Events {
    choice: Choice,
}

/// Programs the events `Choice::select` picks from `ids` for the core `midr` on counters 0,
/// 1, …, enables them, resets every event counter and reads them once (so that a trap shows
/// here); the reason when none is chosen or an access traps.
pub fn events(ids: &Ids, midr: u64) -> Result<Events, Unavailable> {
    let choice = Choice::select(ids.pmceid0, ids.pmceid1, ids.counters, midr);
    if choice.is_empty() {
        return Err(Unavailable::NoMemoryEvents);
    }
    let used = (1u64 << choice.len()) - 1; // len ≤ MAX < 32
    let all = (1u64 << ids.counters.min(31)) - 1;
    // SAFETY: every instruction that may trap is an `msr`/`mrs` of a PMU register in asm or
    // the PMCR accessor; a skipped one leaves a counter unprogrammed, and the caught fault
    // discards the whole set-up.
    unsafe {
        probe(|| {
            // SAFETY: stops every event counter EL1 has (not the cycle counter, bit 31).
            asm!("msr pmcntenclr_el0, {m}", m = in(reg) all, options(nomem, nostack));
            for (n, number) in (0u64..).zip(choice.numbers()) {
                // SAFETY: inside this probe; n < len ≤ PMCR_EL0.N.
                program(n, number);
            }
            // P resets every event counter (it reads 0, so `modify` does not repeat it); LP
            // stays 0: 32-bit event counters, as `Counts::since` expects.
            PMCR.modify(PMCR_EL0::E::SET + PMCR_EL0::P::SET + PMCR_EL0::LP::CLEAR);
            // SAFETY: PMCNTENSET_EL0 starts the chosen counters; PMU control only.
            asm!("msr pmcntenset_el0, {m}", "isb", m = in(reg) used, options(nomem, nostack));
            // One direct read of each programmed counter, so that a trap of the direct
            // reads (`Events::read`) shows here, inside the probe.
            for n in 0..choice.len() {
                core::hint::black_box(counter(n));
            }
        })
    }
    .map_err(|_| Unavailable::Trapped)?;
    Ok(Events { choice })
}

impl Events {
    /// The events counted, slot by slot.
    pub fn choice(&self) -> &Choice {
        &self.choice
    }

    /// The counters now, ordered after the instructions before (one ISB, then one `mrs` per
    /// event); two readings give a sample's counts with `Counts::since`.
    pub fn read(&self) -> Counts {
        let mut values = [0u64; MAX];
        // SAFETY: an ISB only synchronises the context; no memory access.
        unsafe { asm!("isb", options(nomem, nostack)) };
        for (n, v) in values.iter_mut().enumerate().take(self.choice.len()) {
            *v = counter(n);
        }
        Counts::new(values)
    }
}
