//! The clock around the measured loops ([`time`]): the counter, the cycle counter and the
//! chosen PMU events over one interval, with the barriers that keep the loop inside it.
//! Shared by both architectures' `kernels`.

use super::Loop;
use crate::arch::barrier::dsb_sy;
use crate::arch::cpu::{ticks, ticks_before_loads};
use crate::arch::pmu::{self, Events};
use mairbench_core::pmu::Counts;

/// One timed sample.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sample {
    /// CNTVCT_EL0 ticks (DSB SY and ISB before the first read, so stores made before the
    /// sample have completed; DSB SY and ISB before the second, so stores count as done only
    /// when complete).
    pub ticks: u64,
    /// PMCCNTR_EL0 cycles over the same interval (0 without a usable PMU).
    pub cycles: u64,
    /// The chosen PMU events over the same interval (read outside it), all 0 when none
    /// counts.
    pub events: Counts,
    /// The two counter reads, when the second was below the first (a counter erratum or a
    /// broken counter): the sample cannot be true.
    pub backwards: Option<(u64, u64)>,
}

impl Sample {
    /// Both samples' counts together (a sample timed as several intervals: one per pass).
    pub fn add(self, other: Sample) -> Sample {
        Sample {
            ticks: self.ticks.wrapping_add(other.ticks),
            cycles: self.cycles.wrapping_add(other.cycles),
            backwards: self.backwards.or(other.backwards),
            events: Counts::new(core::array::from_fn(|i| {
                self.events.get(i).wrapping_add(other.events.get(i))
            })),
        }
    }
}

/// What a sample counts besides CNTVCT_EL0.
#[derive(Clone, Copy, Debug)]
pub struct Meter {
    /// PMCCNTR_EL0 too.
    pub cycles: bool,
    /// The chosen PMU events too (read just outside the timed interval).
    pub events: Option<Events>,
}

/// Times `passes` runs of `body`: the one place a sample is timed.
pub fn time(passes: u64, meter: Meter, body: &mut Loop) -> Sample {
    timed(meter, || {
        for _ in 0..passes {
            body.run();
        }
    })
}

/// The interval of `run` on the counters. The DSB SY first drains what came before (on
/// Non-cacheable and Device aliases the write buffer of an untimed re-write would otherwise
/// still be emptying into the timed region); the ISB of each read orders it after them.
#[inline(always)]
fn timed(meter: Meter, run: impl FnOnce()) -> Sample {
    dsb_sy();
    let e0 = meter.events.map(|e| e.read());
    let c0 = if meter.cycles { pmu::cycles() } else { 0 };
    let t0 = ticks_before_loads();
    run();
    dsb_sy();
    let t1 = ticks();
    let c1 = if meter.cycles { pmu::cycles() } else { 0 };
    let events = match (meter.events, e0) {
        (Some(e), Some(e0)) => e.read().since(&e0),
        _ => Counts::default(),
    };
    Sample {
        ticks: t1.wrapping_sub(t0),
        cycles: c1.wrapping_sub(c0),
        events,
        backwards: (t1 < t0).then_some((t0, t1)),
    }
}

/// The cost of reading the clock itself: the smallest interval [`time`] measures around
/// nothing (the same barriers and reads).
pub fn timer_overhead() -> u64 {
    (0..64)
        .map(|_| {
            let meter = Meter {
                cycles: false,
                events: None,
            };
            timed(meter, || {}).ticks
        })
        .min()
        .unwrap_or(0)
}
