//! Waiting on the CPU's counter (the Arm generic timer's virtual counter, CNTVCT_EL0 or
//! CNTVCT, which counts at CNTFRQ Hz), as an `embedded_hal::delay::DelayNs` and as deadlines.
//!
//! Every wait is wrap-safe (elapsed ticks are a wrapping difference of two counter reads)
//! and none divides by the frequency: where CNTFRQ_EL0 reads 0 (a boot loader that never
//! programmed it) the length of a tick is unknown, and every delay and deadline is over at
//! once rather than spinning on a counter that might not run.

use embedded_hal::delay::DelayNs;

/// Nanoseconds in a second.
const NS_PER_S: u64 = 1_000_000_000;

/// The counter's frequency, Hz (CNTFRQ_EL0 holds it in bits \[31:0\]).
fn frequency() -> u64 {
    super::cpu::counter_hz()
}

/// The virtual counter, read after the instructions before it.
fn now() -> u64 {
    super::cpu::counter()
}

/// Counter ticks in `ns` nanoseconds at `hz`, rounded up (so a wait is never shorter than
/// asked); 0 when `hz` is 0. Saturates instead of overflowing for very long waits.
fn ticks_in(ns: u64, hz: u64) -> u64 {
    let whole = (ns / NS_PER_S).saturating_mul(hz);
    let part = (ns % NS_PER_S) * hz; // < 10^9 * 2^32: no overflow
    whole.saturating_add(part.div_ceil(NS_PER_S))
}

/// A point in time on the generic timer, for waits with a timeout.
#[derive(Clone, Copy, Debug)]
pub struct Deadline {
    start: u64,
    ticks: u64,
}

impl Deadline {
    /// The deadline `ns` nanoseconds from now.
    pub fn after_ns(ns: u64) -> Self {
        Deadline {
            ticks: ticks_in(ns, frequency()),
            start: now(),
        }
    }

    /// The deadline `us` microseconds from now.
    pub fn after_us(us: u32) -> Self {
        Self::after_ns(u64::from(us) * 1_000)
    }

    /// Whether the deadline has passed (always, where CNTFRQ_EL0 is 0).
    pub fn expired(&self) -> bool {
        now().wrapping_sub(self.start) >= self.ticks
    }

    /// Spins until the deadline has passed.
    pub fn wait(&self) {
        while !self.expired() {
            core::hint::spin_loop();
        }
    }
}

/// The generic timer as a delay source: each delay spins on CNTVCT_EL0 until it has moved
/// past the deadline. A zero-sized handle, `Copy`, usable on any core and at any EL.
#[derive(Clone, Copy, Debug, Default)]
pub struct GenericTimer;

impl DelayNs for GenericTimer {
    fn delay_ns(&mut self, ns: u32) {
        Deadline::after_ns(u64::from(ns)).wait();
    }

    fn delay_us(&mut self, us: u32) {
        Deadline::after_us(us).wait();
    }

    fn delay_ms(&mut self, ms: u32) {
        Deadline::after_ns(u64::from(ms) * 1_000_000).wait();
    }
}
