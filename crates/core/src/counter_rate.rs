//! The counter's rate when CNTFRQ_EL0 does not give it: the Linux twin times with
//! CNTVCT_EL0, whose ticks it turns into nanoseconds and MB/s by CNTFRQ_EL0's rate. Firmware
//! sets the register; where nothing did (it reads 0: user-mode QEMU 10.0.2 answers 0, where
//! 7.2 answered 62.5 MHz), the twin counts the counter's ticks over a span of the system's
//! monotonic clock (`clock_gettime(CLOCK_MONOTONIC)`) and times with that rate, which it
//! says; when it cannot measure one either, the run's `timer` check fails with the reason
//! and nothing is timed. Never a division by zero.
//!
//! Pure: the twin hands [`Rate::of`] what it measured.

use core::fmt;

/// How long the twin counts ticks against the monotonic clock: 20 ms, which a microsecond of
/// system-call jitter at either end moves by 0.01 %.
pub const MEASURE_NS: u64 = 20_000_000;

/// The shortest span a measurement is believed over (a clock that jumped back, or a span cut
/// short, says nothing): 1 ms.
pub const MIN_MEASURE_NS: u64 = 1_000_000;

/// Counter rates boards and emulators use, Hz: FEAT_ECV's and Armv8.6's fixed 1 GHz, QEMU's
/// 62.5 MHz (before 9.0, and user mode), the Raspberry Pi 4's 54 MHz, and the common
/// crystal-derived rates. A measured rate within [`SNAP_PERMILLE`] of one is taken to be it.
pub const COMMON_RATES: [u64; 10] = [
    1_000_000_000,
    200_000_000,
    100_000_000,
    62_500_000,
    54_000_000,
    50_000_000,
    26_000_000,
    25_000_000,
    24_000_000,
    19_200_000,
];

/// How near a measured rate must be to one of [`COMMON_RATES`] to be taken as it, in
/// thousandths (0.5 %).
pub const SNAP_PERMILLE: u64 = 5;

/// Why no rate could be measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoRate {
    /// The monotonic clock could not be read: the errno of `clock_gettime`.
    Clock(i64),
    /// The counter did not move over the span.
    Stalled,
    /// The span was shorter than [`MIN_MEASURE_NS`] (or the clock went backwards).
    TooShort,
}

/// The counter's rate the twin times with, and where it comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rate {
    /// CNTFRQ_EL0's (not 0).
    Register(u64),
    /// CNTFRQ_EL0 reads 0: `ticks` of the counter over `ns` of the monotonic clock, `hz`
    /// once rounded ([`measured_hz`]).
    Measured {
        /// The rate timed with, Hz.
        hz: u64,
        /// Ticks counted.
        ticks: u64,
        /// Over this many nanoseconds.
        ns: u64,
    },
    /// CNTFRQ_EL0 reads 0 and no rate could be measured.
    Unknown(NoRate),
}

impl Rate {
    /// The rate from CNTFRQ_EL0's `cntfrq`, else (`cntfrq` 0) from `measure`, called only
    /// then: the counter's ticks over a span of the monotonic clock and the span in ns, or
    /// the errno of a failed clock read.
    pub fn of(cntfrq: u64, measure: impl FnOnce() -> Result<(u64, u64), i64>) -> Rate {
        if cntfrq != 0 {
            return Rate::Register(cntfrq);
        }
        let (ticks, ns) = match measure() {
            Ok(m) => m,
            Err(errno) => return Rate::Unknown(NoRate::Clock(errno)),
        };
        match measured_hz(ticks, ns) {
            Ok(hz) => Rate::Measured { hz, ticks, ns },
            Err(why) => Rate::Unknown(why),
        }
    }

    /// The rate to time with, Hz; 0 when unknown (the twin then times nothing).
    pub fn hz(self) -> u64 {
        match self {
            Rate::Register(hz) | Rate::Measured { hz, .. } => hz,
            Rate::Unknown(_) => 0,
        }
    }

    /// Whether it was measured, not read from CNTFRQ_EL0.
    pub fn measured(self) -> bool {
        matches!(self, Rate::Measured { .. })
    }
}

/// The rate of a counter that moved `ticks` over `ns` nanoseconds: one of [`COMMON_RATES`]
/// when within [`SNAP_PERMILLE`] of it, else rounded to the nearest kHz (at least 1 kHz).
pub fn measured_hz(ticks: u64, ns: u64) -> Result<u64, NoRate> {
    if ns < MIN_MEASURE_NS {
        return Err(NoRate::TooShort);
    }
    if ticks == 0 {
        return Err(NoRate::Stalled);
    }
    let raw = u128::from(ticks)
        .saturating_mul(1_000_000_000)
        .checked_div(u128::from(ns))
        .ok_or(NoRate::TooShort)?;
    let raw = u64::try_from(raw).unwrap_or(u64::MAX);
    let near = |common: u64| raw.abs_diff(common) <= (common / 1000).saturating_mul(SNAP_PERMILLE);
    if let Some(&common) = COMMON_RATES.iter().find(|&&c| near(c)) {
        return Ok(common);
    }
    let khz = raw.saturating_add(500) / 1000;
    Ok(khz.max(1).saturating_mul(1000))
}

impl fmt::Display for NoRate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            NoRate::Clock(errno) => {
                write!(f, "clock_gettime(CLOCK_MONOTONIC) failed (errno {errno})")
            }
            NoRate::Stalled => f.write_str(concat!(crate::arch_name!(cntvct), " did not move")),
            NoRate::TooShort => f.write_str("the monotonic clock's span was too short"),
        }
    }
}

/// What the `timer` check and the first line say of the rate: `CNTFRQ_EL0 24000000 Hz`,
/// or, with the register at 0, the measured rate or why there is none.
impl fmt::Display for Rate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Rate::Register(hz) => write!(f, concat!(crate::arch_name!(cntfrq), " {} Hz"), hz),
            Rate::Measured { hz, ticks, ns } => write!(
                f,
                concat!(
                    crate::arch_name!(cntfrq),
                    " 0 Hz; the counter's rate measured against CLOCK_MONOTONIC: {hz} Hz \
                     ({ticks} ticks in {ns} ns)"
                ),
                hz = hz,
                ticks = ticks,
                ns = ns
            ),
            Rate::Unknown(why) => write!(
                f,
                concat!(
                    crate::arch_name!(cntfrq),
                    " 0 Hz and the counter's rate not measured: {why}; nothing can be timed"
                ),
                why = why
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;

    #[test]
    fn the_register_is_kept_and_nothing_is_measured() {
        let r = Rate::of(62_500_000, || {
            panic!("measured although CNTFRQ_EL0 gave a rate")
        });
        assert_eq!(r, Rate::Register(62_500_000));
        assert_eq!(r.hz(), 62_500_000);
        assert!(!r.measured());
        assert_eq!(r.to_string(), "CNTFRQ_EL0 62500000 Hz");
    }

    #[test]
    fn a_zero_register_falls_back_to_the_measured_rate() {
        // User-mode QEMU 10: CNTFRQ_EL0 0, its counter in nanoseconds.
        let r = Rate::of(0, || Ok((20_001_500, 20_000_000)));
        assert_eq!(
            r,
            Rate::Measured {
                hz: 1_000_000_000,
                ticks: 20_001_500,
                ns: 20_000_000
            }
        );
        assert_eq!(r.hz(), 1_000_000_000);
        assert!(r.measured());
        assert!(r
            .to_string()
            .contains("measured against CLOCK_MONOTONIC: 1000000000 Hz"));
        // QEMU 7.2's rate, a little off.
        assert_eq!(Rate::of(0, || Ok((1_250_400, 20_000_000))).hz(), 62_500_000);
    }

    #[test]
    fn an_unmeasurable_rate_is_zero_and_says_why_never_a_division_by_zero() {
        for (measured, why) in [
            (Err(38), NoRate::Clock(38)),
            (Ok((0, 20_000_000)), NoRate::Stalled),
            (Ok((1_000, 0)), NoRate::TooShort),
            (Ok((u64::MAX, 999_999)), NoRate::TooShort),
        ] {
            let r = Rate::of(0, || measured);
            assert_eq!(r, Rate::Unknown(why));
            assert_eq!(r.hz(), 0);
            assert!(r.to_string().contains("not measured"), "{r}");
        }
        assert!(Rate::Unknown(NoRate::Clock(38))
            .to_string()
            .contains("errno 38"));
    }

    #[test]
    fn measured_rates_snap_to_common_ones_else_to_a_khz() {
        assert_eq!(measured_hz(1_080_000, 20_000_000), Ok(54_000_000));
        // 0.4 % off 24 MHz: taken as 24 MHz; 2 % off: not.
        assert_eq!(measured_hz(481_920, 20_000_000), Ok(24_000_000));
        assert_eq!(measured_hz(489_600, 20_000_000), Ok(24_480_000));
        assert_eq!(measured_hz(123_456_789, 20_000_000), Ok(6_172_839_000));
        // A very slow counter is at least 1 kHz.
        assert_eq!(measured_hz(1, 20_000_000), Ok(1_000));
        assert_eq!(measured_hz(u64::MAX, u64::MAX), Ok(1_000_000_000));
    }
}
