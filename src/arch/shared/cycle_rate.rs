//! The cycle counter's rate against the counter's, as each architecture's `pmu` measures it
//! (its `cycles` and `CYCLE_MASK`: PMCCNTR_EL0's 64 bits, or ARMv7's 32-bit PMCCNTR, whose
//! spans are differences modulo 2^32).

use super::{cycles, CYCLE_MASK};
use crate::arch::cpu::ticks;

/// The cycle counter's rate over about 1 ms of the counter at `timer_hz`, Hz; `None` without a
/// timer frequency or when the timer does not advance. Call only once the cycle counter
/// counts (`super::start_cycle_counter` succeeded). A first, one-tick pass brings the code in (an
/// emulator translates it, silicon fetches it), so that the counter reads at both ends of the
/// measured interval are equally late.
pub fn cycle_rate_hz(timer_hz: u64) -> Option<u64> {
    let _ = rate_over(1, timer_hz);
    rate_over((timer_hz / 1000).max(1), timer_hz)
}

fn rate_over(span: u64, timer_hz: u64) -> Option<u64> {
    let t0 = ticks();
    let c0 = cycles();
    // A bound on the spin: a timer that stops is not a hang (100 M reads is seconds).
    let t1 = (0..100_000_000u32)
        .map(|_| ticks())
        .find(|t| t.wrapping_sub(t0) >= span)?;
    let c1 = cycles();
    let counted = c1.wrapping_sub(c0) & CYCLE_MASK;
    mairbench_core::pmu::cycle_rate_hz(counted, t1.wrapping_sub(t0), timer_hz)
}
