//! The clock of a core without the generic timer (the Cortex-A8 and A9): a SoC timer that
//! the device tree names and core knows (`platform::soc_timer`: the i.MX6's GPT, the Allwinner
//! A10's timer 1), programmed to count from a fixed-rate source, its 32-bit count extended to
//! 64 bits. The run then says which clock timed it.

use super::global::Global;
use super::mmio::Device;
use mairbench_core::platform::{soc_timer, SocTimerKind};
use mairbench_core::uart::Mmio;

/// The GPT's registers (Linux's drivers/clocksource/timer-imx-gpt.c names them): control,
/// prescaler, interrupt enable and counter.
const GPT_CR: usize = 0x00;
const GPT_PR: usize = 0x04;
const GPT_IR: usize = 0x0c;
const GPT_CNT: usize = 0x24;
/// GPT_CR: enabled (TEN), on in wait mode (WAITEN), free-running (FRR), the crystal
/// oscillator divided (CLKSRC `0b101`), its 24 MHz input enabled (24MEN).
const GPT_CR_OSC_DIV8: u32 = 1 | 1 << 3 | 1 << 9 | 0b101 << 6 | 1 << 10;
/// GPT_PR: PRESCALER24M 7 (divide by 8), PRESCALER 0.
const GPT_PR_DIV8: u32 = 7 << 12;

/// The Allwinner A10 timer block's timer 1 (Linux's drivers/clocksource/timer-sun4i.c:
/// `TIMER_CTL_REG(1)`, `TIMER_INTVAL_REG(1)`, `TIMER_CNTVAL_REG(1)`).
const SUN4I_CTL1: usize = 0x20;
const SUN4I_INTVAL1: usize = 0x24;
const SUN4I_CNTVAL1: usize = 0x28;
/// TIMER_CTL: enabled, reloading, clock source 1 (the 24 MHz oscillator), prescale 1.
const SUN4I_CTL_OSC24: u32 = 1 | 1 << 1 | 1 << 2;

/// The timer's registers (0: none in use) and its kind.
static TIMER: Global<(u64, SocTimerKind)> = Global::new((0, SocTimerKind::ImxGptOsc8));
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
    let (base, _) = TIMER.get();
    (base != 0).then_some(("clock", base))
}

/// The registers of the timer at `base`.
fn regs(base: u64) -> Device {
    // SAFETY: the register block of the timer the device tree names, accessible as
    // Strongly-ordered memory (the early map, then the identity map's "clock" region); only
    // this module drives it.
    unsafe { Device::at(base) }
}

/// Programs the timer and makes it the clock.
fn start(base: u64, kind: SocTimerKind) {
    let mut r = regs(base);
    match kind {
        SocTimerKind::ImxGptOsc8 => {
            // As Linux's `_mxc_timer_init` and `imx6dl_gpt_setup_tctl`: stopped, no
            // interrupts, the prescalers, then on.
            r.write32(GPT_CR, 0);
            r.write32(GPT_IR, 0);
            r.write32(GPT_PR, GPT_PR_DIV8);
            r.write32(GPT_CR, GPT_CR_OSC_DIV8);
        }
        SocTimerKind::Sun4iTimer1Osc24 => {
            // As Linux's `sun4i_timer_init`: the longest interval, then on, reloading.
            r.write32(SUN4I_CTL1, 0);
            r.write32(SUN4I_INTVAL1, u32::MAX);
            r.write32(SUN4I_CTL1, SUN4I_CTL_OSC24);
        }
    }
    TIMER.set((base, kind));
}

/// The timer's rate, Hz, when it is the clock.
pub fn hz() -> Option<u64> {
    let (base, kind) = TIMER.get();
    (base != 0).then_some(kind.hz())
}

/// The count, extended to 64 bits (a wrap every 2^32 ticks: 24 minutes at 3 MHz, 3 at
/// 24 MHz), when the timer is the clock; a timer that counts down is read inverted, as Linux
/// reads the A10's. A count that reads behind the last one by less than half the range is a
/// read that raced another CPU's, not a wrap: the last count is returned.
pub fn count() -> Option<u64> {
    let (base, kind) = TIMER.get();
    if base == 0 {
        return None;
    }
    let (off, down) = match kind {
        SocTimerKind::ImxGptOsc8 => (GPT_CNT, false),
        SocTimerKind::Sun4iTimer1Osc24 => (SUN4I_CNTVAL1, true),
    };
    let raw = regs(base).read32(off);
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
