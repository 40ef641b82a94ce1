//! The ARMv7 Performance Monitors (PMUv2, and PMUv3 in AArch32), through CP15: the cycle
//! counter (PMCCNTR) and the event counters, selected through PMSELR as PMXEVTYPER and
//! PMXEVCNTR. The event numbers are the architecture's common ones, shared with AArch64
//! (Arm ARM DDI 0406C, C12.8 "Event numbers"), so core chooses them the same way.

use super::exceptions::{probe, Fault};
use super::regs::{read, IdDfr0};
use core::arch::asm;
use mairbench_core::pmu::{Choice, Counts, Unavailable, MAX, SW_INCR};

/// What ID_DFR0 and PMCR say of the PMU.
#[derive(Clone, Copy, Debug)]
pub struct Pmu {
    /// ID_DFR0.PerfMon (bits 27:24): 2 PMUv1, 3 PMUv2, 4 and up PMUv3.
    pub version: u64,
    /// PMCR.N: event counters implemented (0 when PMCR trapped).
    pub counters: u64,
    /// Reading PMCR took an exception.
    pub trapped: bool,
}

/// PMCR.
fn pmcr() -> u32 {
    let v: u32;
    // SAFETY: reads PMCR; may trap, which callers run inside a probe.
    unsafe { asm!("mrc p15, 0, {}, c9, c12, 0", out(reg) v, options(nomem, nostack)) };
    v
}

/// Writes PMCR.
unsafe fn set_pmcr(v: u32) {
    // SAFETY: the caller's: the PMU is this run's alone.
    unsafe { asm!("mcr p15, 0, {}, c9, c12, 0", "isb", in(reg) v, options(nomem, nostack)) };
}

/// The PMU, if ID_DFR0 says there is an architected one (PerfMon 2 to 14).
pub fn pmu() -> Option<Pmu> {
    let version = u64::from(read::<IdDfr0>() >> 24 & 0xf);
    if !(2..0xf).contains(&version) {
        return None;
    }
    // SAFETY: reading PMCR changes nothing; a trap is caught.
    let n = unsafe { probe(|| pmcr() >> 11 & 0x1f) };
    Some(Pmu {
        version,
        counters: n.map_or(0, u64::from),
        trapped: n.is_err(),
    })
}

/// Starts the cycle counter (PMCR.E, PMCR.D clear: every cycle; PMCNTENSET.C).
pub fn start_cycle_counter() -> Result<(), Fault> {
    // SAFETY: the PMU is this run's alone; a trap is caught.
    unsafe {
        probe(|| {
            set_pmcr(pmcr() & !(1 << 3) | 1);
            asm!("mcr p15, 0, {c}, c9, c12, 1", "isb", c = in(reg) 1u32 << 31, options(nomem, nostack));
        })
    }
}

/// PMCCNTR (32 bits on ARMv7: it wraps every few seconds, so spans are wrapping differences).
pub fn cycles() -> u64 {
    let c: u32;
    // SAFETY: reads PMCCNTR.
    unsafe { asm!("isb", "mrc p15, 0, {}, c9, c13, 0", out(reg) c, options(nomem, nostack)) };
    c.into()
}

/// The bits PMCCNTR counts in: 32 on ARMv7.
const CYCLE_MASK: u64 = u32::MAX as u64;

#[path = "../shared/cycle_rate.rs"]
mod cycle_rate;
pub use cycle_rate::cycle_rate_hz;

/// The common events the PMU implements, and its counters.
#[derive(Clone, Copy, Debug)]
pub struct Ids {
    /// PMCEID0.
    pub pmceid0: u64,
    /// PMCEID1.
    pub pmceid1: u64,
    /// PMCR.N.
    pub counters: u64,
}

/// What the PMU offers, or why it offers nothing.
pub fn ids() -> Result<Ids, Unavailable> {
    let pmu = pmu().ok_or(Unavailable::NoPmu)?;
    if pmu.trapped {
        return Err(Unavailable::Trapped);
    }
    if pmu.counters == 0 {
        return Err(Unavailable::NoCounters);
    }
    // SAFETY: reads the event ID registers; a trap is caught.
    unsafe {
        probe(|| {
            let (p0, p1): (u32, u32);
            asm!("mrc p15, 0, {}, c9, c12, 6", "mrc p15, 0, {}, c9, c12, 7", out(reg) p0, out(reg) p1,
                 options(nomem, nostack));
            Ids {
                pmceid0: p0.into(),
                pmceid1: p1.into(),
                counters: pmu.counters,
            }
        })
    }
    .map_err(|_| Unavailable::Trapped)
}

/// Counter `n` counts `event` at PL1 (PMXEVTYPER's filter bits clear), from 0.
unsafe fn program(n: u32, event: u16) {
    // SAFETY: the caller's: the PMU is this run's alone.
    unsafe {
        asm!(
            "mcr p15, 0, {n}, c9, c12, 5",
            "isb",
            "mcr p15, 0, {t}, c9, c13, 1",
            "mcr p15, 0, {z}, c9, c13, 2",
            n = in(reg) n,
            t = in(reg) u32::from(event),
            z = in(reg) 0u32,
            options(nomem, nostack)
        )
    };
}

/// Event counter `n`.
fn counter(n: usize) -> u64 {
    let v: u32;
    // SAFETY: selects and reads one event counter.
    unsafe {
        asm!(
            "mcr p15, 0, {n}, c9, c12, 5",
            "isb",
            "mrc p15, 0, {v}, c9, c13, 2",
            n = in(reg) n as u32,
            v = out(reg) v,
            options(nomem, nostack)
        )
    };
    v.into()
}

/// Counts `k` SW_INCR writes on counter 0 and returns the count (the `pmu` check).
pub fn sw_incr_check(k: u32) -> Result<u64, Fault> {
    // SAFETY: the PMU is this run's alone; a trap is caught.
    unsafe {
        probe(|| {
            asm!("mcr p15, 0, {m}, c9, c12, 2", m = in(reg) 1u32, options(nomem, nostack));
            program(0, SW_INCR);
            set_pmcr(pmcr() | 1);
            asm!("mcr p15, 0, {m}, c9, c12, 1", "isb", m = in(reg) 1u32, options(nomem, nostack));
            for _ in 0..k {
                asm!("mcr p15, 0, {m}, c9, c12, 4", m = in(reg) 1u32, options(nomem, nostack));
            }
            let v = counter(0);
            asm!("mcr p15, 0, {m}, c9, c12, 2", m = in(reg) 1u32, options(nomem, nostack));
            v
        })
    }
}

/// The chosen events, counting.
#[derive(Clone, Copy, Debug)]
pub struct Events {
    choice: Choice,
}

/// Chooses the memory events (core's [`Choice`]), programs and starts their counters.
pub fn events(ids: &Ids, midr: u64) -> Result<Events, Unavailable> {
    let choice = Choice::select(ids.pmceid0, ids.pmceid1, ids.counters, midr);
    if choice.is_empty() {
        return Err(Unavailable::NoMemoryEvents);
    }
    let used = (1u32 << choice.len()) - 1; // len ≤ MAX < 32
    let all = (1u32 << ids.counters.min(31)) - 1;
    // SAFETY: the PMU is this run's alone; a trap is caught.
    unsafe {
        probe(|| {
            asm!("mcr p15, 0, {m}, c9, c12, 2", m = in(reg) all, options(nomem, nostack));
            for (n, number) in (0u32..).zip(choice.numbers()) {
                program(n, number);
            }
            // E and P (reset the event counters), not the cycle counter's D or C.
            set_pmcr(pmcr() | 1 | 1 << 1);
            asm!("mcr p15, 0, {m}, c9, c12, 1", "isb", m = in(reg) used, options(nomem, nostack));
            for n in 0..choice.len() {
                core::hint::black_box(counter(n));
            }
        })
    }
    .map_err(|_| Unavailable::Trapped)?;
    Ok(Events { choice })
}

impl Events {
    /// The events chosen.
    pub fn choice(&self) -> &Choice {
        &self.choice
    }

    /// Their counts now.
    pub fn read(&self) -> Counts {
        let mut values = [0u64; MAX];
        for (n, v) in values.iter_mut().enumerate().take(self.choice.len()) {
            *v = counter(n);
        }
        Counts::new(values)
    }
}
