//! The clock of a core without the generic timer (the Cortex-A8 and A9): a SoC timer that
//! the device tree names and core knows (`platform::soc_timer`: the i.MX6's GPT, the Allwinner
//! A10's timer 1), programmed to count from a fixed-rate source, its 32-bit count extended to
//! 64 bits. The run then says which clock timed it.

use super::global::Global;
use mairbench_core::platform::{soc_timer, SocTimerKind};

/// The GPT's registers (Linux's drivers/clocksource/timer-imx-gpt.c names them): control,
/// prescaler, interrupt enable and counter.
const GPT_CR: u64 = 0x00;
const GPT_PR: u64 = 0x04;
const GPT_IR: u64 = 0x0c;
const GPT_CNT: u64 = 0x24;
/// GPT_CR: enabled (TEN), on in wait mode (WAITEN), free-running (FRR), the crystal
/// oscillator divided (CLKSRC `0b101`), its 24 MHz input enabled (24MEN).
const GPT_CR_OSC_DIV8: u32 = 1 | 1 << 3 | 1 << 9 | 0b101 << 6 | 1 << 10;
/// GPT_PR: PRESCALER24M 7 (divide by 8), PRESCALER 0.
const GPT_PR_DIV8: u32 = 7 << 12;

/// The Allwinner A10 timer block's timer 1 (Linux's drivers/clocksource/timer-sun4i.c:
/// `TIMER_CTL_REG(1)`, `TIMER_INTVAL_REG(1)`, `TIMER_CNTVAL_REG(1)`).
const SUN4I_CTL1: u64 = 0x20;
const SUN4I_INTVAL1: u64 = 0x24;
const SUN4I_CNTVAL1: u64 = 0x28;
/// TIMER_CTL: enabled, reloading, clock source 1 (the 24 MHz oscillator), prescale 1.
const SUN4I_CTL_OSC24: u32 = 1 | 1 << 1 | 1 << 2;

/// The timer's registers (0: none in use), its rate in Hz, and its kind.
static TIMER: Global<(u64, u64, SocTimerKind)> = Global::new((0, 0, SocTimerKind::ImxGptOsc8));
/// The last count read, extended to 64 bits.
static LAST: Global<u64> = Global::new(0);

/// Where this core has no generic timer: the timer the device tree `dtb` names, programmed
/// and from now on the run's clock; its name, address and rate.
pub fn start_from(dtb: Option<&[u8]>, generic_timer: bool) -> Option<(&'static str, u64, u64)> {
    if generic_timer {
        return None;
    }
    let (base, kind) = dtb.and_then(soc_timer)?;
    start(base, kind);
    Some((kind.name(), base, kind.hz()))
}

/// The identity map's region for the timer in use (it stays mapped as Device memory).
pub fn region() -> Option<(&'static str, u64)> {
    let (base, _, _) = TIMER.get();
    (base != 0).then_some(("clock", base))
}

fn write(base: u64, off: u64, v: u32) {
    // SAFETY: a register of the timer the device tree names, accessible as Strongly-ordered
    // memory (the early map, then the identity map's "clock" region); only this module
    // drives it.
    unsafe { core::ptr::write_volatile((base + off) as *mut u32, v) }
}

/// Programs the timer and makes it the clock.
fn start(base: u64, kind: SocTimerKind) {
    match kind {
        SocTimerKind::ImxGptOsc8 => {
            // As Linux's `_mxc_timer_init` and `imx6dl_gpt_setup_tctl`: stopped, no
            // interrupts, the prescalers, then on.
            write(base, GPT_CR, 0);
            write(base, GPT_IR, 0);
            write(base, GPT_PR, GPT_PR_DIV8);
            write(base, GPT_CR, GPT_CR_OSC_DIV8);
        }
        SocTimerKind::Sun4iTimer1Osc24 => {
            // As Linux's `sun4i_timer_init`: the longest interval, then on, reloading.
            write(base, SUN4I_CTL1, 0);
            write(base, SUN4I_INTVAL1, u32::MAX);
            write(base, SUN4I_CTL1, SUN4I_CTL_OSC24);
        }
    }
    TIMER.set((base, kind.hz(), kind));
}

/// The timer's rate, Hz, when it is the clock.
pub fn hz() -> Option<u64> {
    let (base, hz, _) = TIMER.get();
    (base != 0).then_some(hz)
}

/// The count, extended to 64 bits (a wrap every 2^32 ticks: 24 minutes at 3 MHz, 3 at
/// 24 MHz), when the timer is the clock; a timer that counts down is read inverted, as Linux
/// reads the A10's. A count that reads behind the last one by less than half the range is a
/// read that raced another CPU's, not a wrap: the last count is returned.
pub fn count() -> Option<u64> {
    let (base, _, kind) = TIMER.get();
    if base == 0 {
        return None;
    }
    let (off, down) = match kind {
        SocTimerKind::ImxGptOsc8 => (GPT_CNT, false),
        SocTimerKind::Sun4iTimer1Osc24 => (SUN4I_CNTVAL1, true),
    };
    // SAFETY: as in `write`: the counter register of the timer in use.
    let raw = unsafe { core::ptr::read_volatile((base + off) as *const u32) };
    let now = if down { !raw } else { raw };
    let last = LAST.get();
    let mut next = (last & !0xffff_ffff) | u64::from(now);
    if next < last {
        if last - next < 1 << 31 {
            return Some(last);
        }
        next += 1 << 32;
    }
    LAST.set(next);
    Some(next)
}
