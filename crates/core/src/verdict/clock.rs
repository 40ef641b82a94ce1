//! `clock`: the core clock from the PMU cycle counter against the generic timer.

use core::fmt;

use super::points::{ratio_centi, View};
use super::{Basis, Evidence, Name, Scope, Spec, Status, Sweep, Verdict};
use crate::format::Decimal;

pub const SPEC: Spec = Spec {
    name: Name::Clock,
    id: "clock",
    checks: "The core clock from PMCCNTR_EL0 cycles over CNTVCT_EL0 ticks times CNTFRQ_EL0.",
    threshold: "Fail: the cycle counter did not advance. Warn: cycles per tick within ±2 % of 1 (the counter runs at the timer's rate), or a core below 100 MHz.",
    failure: "The PMU cycle counter does not count core cycles (an emulator, or a platform that clocks it from the timer), or the boot loader left the core PLL in bypass: every bandwidth is then low together.",
    next: "Read the verdict's cycles_per_tick and core_mhz: about 1 cycle per tick means PMCCNTR_EL0 counts at the timer's rate (an emulator, or a SoC that clocks it so); a core below 100 MHz means the boot loader left the core PLL in bypass: check its clock set-up (U-Boot's clk dump, the SoC's reference manual).",
    basis: Basis::Timing,
    scope: Scope::Machine,
};

/// The cycle counter "runs at the timer's rate" when cycles per tick lie within ±2 % of 1
/// (thousandths: 980 to 1020).
pub const TIMER_RATE_BAND: (u64, u64) = (980, 1020);

/// A core clock below 100 MHz is a `warn`: application cores run at hundreds of MHz or more
/// once the boot loader has set their PLL; below that the PLL is usually still in bypass (the
/// reference oscillator, 19.2–54 MHz), or the "board" is an FPGA prototype.
pub const SLOW_CORE_HZ: u64 = 100_000_000;

/// [`SLOW_CORE_HZ`] in hundredths of a MHz.
const SLOW_CORE_CENTI_MHZ: u64 = SLOW_CORE_HZ / 10_000;

/// The clock cross-check: PMCCNTR_EL0 and CNTVCT_EL0 read around the same interval.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clock {
    /// PMCCNTR_EL0 cycles over the interval.
    pub cycles: u64,
    /// CNTVCT_EL0 ticks over the interval.
    pub ticks: u64,
    /// CNTFRQ_EL0.
    pub timer_hz: u64,
}

/// Why `clock` came out as it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// Under emulation: the cycle counter counts no cycles.
    Emulated,
    /// The cycle counter did not advance.
    Stopped {
        /// Timer ticks over the interval.
        ticks: u64,
    },
    /// The core clock; the numbers say whether it is plausible.
    Rate {
        /// Core clock, hundredths of a MHz.
        centi_mhz: u64,
        /// Cycles per tick, thousandths.
        per_tick: u64,
        /// CNTFRQ_EL0.
        timer_hz: u64,
    },
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Why::Emulated => f.write_str(concat!(
                "under QEMU ",
                crate::arch_name!(pmccntr),
                " counts virtual nanoseconds, not core cycles"
            )),
            Why::Stopped { ticks } => write!(
                f,
                concat!(
                    crate::arch_name!(pmccntr),
                    " did not advance over {ticks} timer ticks: the cycle counter does not count"
                ),
                ticks = ticks
            ),
            Why::Rate {
                centi_mhz,
                per_tick,
                timer_hz,
            } => {
                write!(
                    f,
                    "the core runs at {} MHz ({} cycles per tick of the {} Hz timer)",
                    super::points::centi(centi_mhz),
                    Decimal {
                        scaled: per_tick,
                        places: 3
                    },
                    timer_hz
                )?;
                if (TIMER_RATE_BAND.0..=TIMER_RATE_BAND.1).contains(&per_tick) {
                    f.write_str(": the cycle counter runs at the timer's rate, not the core's")
                } else if centi_mhz < SLOW_CORE_CENTI_MHZ {
                    f.write_str(": below 100 MHz, the core PLL is likely still in bypass")
                } else {
                    Ok(())
                }
            }
        }
    }
}

fn verdict(status: Status, e: Evidence, why: Why) -> Verdict {
    Verdict::new(SPEC.name, status, e, super::Why::Clock(why))
}

// Not inlined: see `super::judge`.
#[inline(never)]
pub(super) fn judge<S: Sweep + ?Sized>(v: &View<'_, '_, S>) -> Verdict {
    let mut e = Evidence::new();
    let Some(c) = v.i.clock.filter(|c| c.ticks > 0 && c.timer_hz > 0) else {
        let why = super::Why::Missing("the PMU cycle counter is not usable");
        return Verdict::new(SPEC.name, Status::NotApplicable, e, why);
    };
    e.whole("cycles", c.cycles);
    e.whole("ticks", c.ticks);
    e.whole("timer_hz", c.timer_hz);
    if c.cycles == 0 {
        return verdict(Status::Fail, e, Why::Stopped { ticks: c.ticks });
    }
    // cycles / ticks × timer_hz (core's PMU rule), in hundredths of a MHz (10^4 Hz).
    let centi_mhz =
        crate::pmu::cycle_rate_hz(c.cycles, c.ticks, c.timer_hz).map_or(u64::MAX, |hz| hz / 10_000);
    // Cycles per tick in thousandths, rounded.
    let per_tick = ratio_centi(c.cycles.saturating_mul(10), c.ticks).unwrap_or(u64::MAX);
    e.hundredths("core_mhz", centi_mhz);
    e.push("cycles_per_tick", per_tick, 3);
    let at_timer_rate = (TIMER_RATE_BAND.0..=TIMER_RATE_BAND.1).contains(&per_tick);
    let slow = centi_mhz < SLOW_CORE_CENTI_MHZ;
    let status = if at_timer_rate || slow {
        Status::Warn
    } else {
        Status::Pass
    };
    let why = Why::Rate {
        centi_mhz,
        per_tick,
        timer_hz: c.timer_hz,
    };
    verdict(status, e, why)
}

#[cfg(test)]
mod tests {
    use super::super::judge;
    use super::super::testing::*;
    use super::*;

    #[test]
    fn clock_verdicts() {
        let caches = a72_caches();
        let s = sweep(32 * MIB, a72);
        let clock = |cycles, ticks, timer_hz| {
            let mut i = inputs(&caches, &s);
            i.clock = Some(Clock {
                cycles,
                ticks,
                timer_hz,
            });
            let v = judge(&i);
            (status(&v, Name::Clock), why(&v, Name::Clock))
        };
        assert_eq!(clock(1_800_000, 1_000, 19_200_000).0, Status::Pass);
        // The cycle counter at the timer's rate (±2 %).
        let (st, w) = clock(1_010, 1_000, 54_000_000);
        assert_eq!(st, Status::Warn);
        assert_eq!(w, "the core runs at 54.54 MHz (1.010 cycles per tick of the 54000000 Hz timer): the cycle counter runs at the timer's rate, not the core's");
        // A PLL left in bypass: 24 MHz.
        let (st, w) = clock(1_250, 1_000, 19_200_000);
        assert_eq!(st, Status::Warn);
        assert!(
            w.ends_with("below 100 MHz, the core PLL is likely still in bypass"),
            "{w}"
        );
        assert_eq!(
            clock(0, 5_000, 19_200_000),
            (
                Status::Fail,
                "PMCCNTR_EL0 did not advance over 5000 timer ticks: the cycle counter does not count".into()
            )
        );
        assert_eq!(clock(100, 0, 19_200_000).0, Status::NotApplicable);
        assert_eq!(clock(u64::MAX, 1, u64::MAX).0, Status::Pass);
    }
}
