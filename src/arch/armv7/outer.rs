//! The outer cache of a 32-bit board: an L2C-310 (PL310) that the device tree names
//! (`arm,pl310-cache`: the i.MX6, the Zynq-7000, OMAP4). The CPU's maintenance by virtual
//! address does not reach it, so where the boot loader left it enabled, cleaning or
//! invalidating a range to the point of coherency also cleans or invalidates the range's
//! physical lines in it, in Linux's order (arch/arm/mm/dma-mapping.c,
//! `__dma_page_cpu_to_dev` and `__dma_page_dev_to_cpu`): the inner caches first when
//! cleaning, the outer cache first when invalidating. Core's `pl310` drives it, with bounded
//! waits; the controller's page is mapped Strongly-ordered with the console's.
//!
//! [`time`] times that maintenance beside the CPU's (core's `pl310::timing`): a clean of
//! 64 KiB of the buffer by `DCCMVAC`, then by the L2C-310's `CLEAN_LINE_PA` with each page's
//! `ATS1CPR` and CACHE_SYNC, the Kirkwood report's VA-to-PA cost on the silicon that still
//! has such a cache.

use super::cache::dcache_line;
use super::cpu;
use super::global::Global;
use super::kernels::Loop;
use super::mmio::Device;
use super::mmu::{at_s1e1r, Par};
use super::timer::GenericTimer;
use crate::console::Console;
use crate::memory::Alias;
use crate::say;
use mairbench_core::pl310::timing::{self, Machine};
use mairbench_core::pl310::{Op, Pl310, Pl310Error};

/// The controller's registers (0: none named).
static BASE: Global<u64> = Global::new(0);
/// Whether it is mapped, an L2C-310 and enabled: maintained along with the inner caches.
static ON: Global<bool> = Global::new(false);
/// The first failure of its maintenance, said once.
static FAILED: Global<bool> = Global::new(false);
/// Whether [`clean`] has said what it adds to the maintenance experiment.
static CLEAN_SAID: Global<bool> = Global::new(false);

/// The controller the device tree `dtb` names, as the identity map's region: its name and
/// base. Remembered for [`attach`].
pub fn device(dtb: Option<&[u8]>) -> Option<(&'static str, u64)> {
    let base = mairbench_core::platform::pl310(dtb?)?;
    BASE.set(base);
    Some(("outer cache", base))
}

/// The controller, once its page is mapped.
fn controller() -> Option<Pl310<Device, GenericTimer>> {
    let base = BASE.get();
    // SAFETY: `base` is the L2C-310's register block the device tree names, identity-mapped
    // Strongly-ordered by the memory set-up before this is called (`attach` runs with the MMU
    // on); nothing else drives it.
    (base != 0).then(|| Pl310::new(unsafe { Device::at(base) }, GenericTimer))
}

/// With the MMU on and the controller's page mapped: says what the controller is and whether
/// it is enabled, and from then on maintains it where it is.
pub fn attach() {
    let Some(l2) = controller() else { return };
    let (part, rtl) = l2.id();
    let on = l2.enabled();
    say!(
        "outer cache: {} at {:#x} (CACHE_ID part {part}, RTL release {rtl}), {}",
        if part == 0b0011 {
            "L2C-310"
        } else {
            "not an L2C-310"
        },
        BASE.get(),
        if on {
            "enabled: maintained by physical address with the CPU's caches"
        } else {
            "disabled or unknown: left alone"
        }
    );
    ON.set(on);
}

/// The physical address of `va` (`ATS1CPR`, then the PAR), if it translates.
fn translate(va: u64) -> Option<u64> {
    match at_s1e1r(va) {
        Par::Ok { pa, .. } => Some(pa),
        Par::Fault { .. } => None,
    }
}

/// Applies `op` to the outer cache's lines of `[va, va + len)`, page by page through the
/// translation of each (`ATS1CPR`); a page that does not translate is skipped. Nothing when
/// no enabled controller is attached.
pub fn maintain(op: Op, va: u64, len: u64) {
    if !ON.get() {
        return;
    }
    let Some(mut l2) = controller() else { return };
    if let Some(e) = l2.by_page(op, va, len, translate).error {
        if !FAILED.get() {
            FAILED.set(true);
            say!(
                "outer cache: maintenance {}",
                match e {
                    Pl310Error::Address => "skipped: a range above 4 GiB",
                    Pl310Error::Stalled => "dropped: the controller stayed busy",
                }
            );
        }
    }
}

/// Cleans the outer cache's lines of `[va, va + len)` after the CPU's own clean by VA (the
/// maintenance experiment's `DCCMVAC`), saying so the first time: a clean by VA alone leaves
/// the data in an enabled L2C-310, where a Non-cacheable read does not see it.
pub fn clean(va: u64, len: u64) {
    if !ON.get() {
        return;
    }
    if !CLEAN_SAID.get() {
        CLEAN_SAID.set(true);
        say!(
            "outer cache: each clean by VA below is followed by CLEAN_LINE_PA of the L2C-310, as a \
             driver's clean to memory must be (Linux's outer_clean_range)"
        );
    }
    maintain(Op::Clean, va, len);
}

/// Bytes each timed pass cleans: 16 pages, 2048 lines of the L2C-310. A tick of the i.MX6's
/// GPT is 333 ns; QEMU's CPU clean of this range, at about 1.3 ns a line, spans 8 of them.
const TIMED: u64 = 64 * 1024;

/// Passes timed; the best of each level is kept.
const REPS: u64 = 8;

/// The CPU's side of the timing: the counter, the buffer's loops and the translation.
struct Cpu {
    /// Reads the range first, so that the writes hit lines it allocated (as a maintenance
    /// kernel's re-write does: `bench::prepare`'s `Redirty`).
    read: Loop,
    /// Writes the range: its lines dirty.
    write: Loop,
    /// DCCMVAC per line, then DSB: the maint-dccmvac kernel's loop.
    clean: Loop,
}

impl Machine for Cpu {
    fn now(&mut self) -> u64 {
        cpu::counter()
    }
    fn dirty(&mut self, _: u64, _: u64) {
        self.read.run();
        self.write.run();
    }
    fn cpu_clean(&mut self, _: u64, _: u64) {
        self.clean.run();
    }
    fn translate(&mut self, va: u64) -> Option<u64> {
        translate(va)
    }
}

/// Times cleaning the first 64 KiB of `wb` (the buffer through normal-wb, test data only) at
/// both levels, with a human line and an `outer_maint` record; or says once why not. A
/// disabled controller is timed too: Linux's `l2c_enable` (arch/arm/mm/cache-l2x0.c) hands a
/// controller it knows to be disabled a maintenance operation (INV_WAY) and a CACHE_SYNC and
/// waits for both, so it takes them; it holds no lines, and the line says its figure is the
/// register path's cost only. QEMU's model of it (hw/misc/arm_l2x0.c) ignores the
/// maintenance writes and reads them as complete. `clock`: whether the timer check passed.
pub fn time(wb: &Alias, clock: bool) {
    let why = if BASE.get() == 0 {
        "the device tree names no L2C-310 (arm,pl310-cache)"
    } else if !clock || cpu::counter_hz() == 0 {
        "no clock (the timer check failed)"
    } else {
        match timed(wb) {
            Ok(()) => return,
            Err(why) => why,
        }
    };
    say!("outer cache timing: not timed: {why}");
}

/// [`time`] once a controller and a clock are there.
fn timed(wb: &Alias) -> Result<(), &'static str> {
    let mut l2 = controller().ok_or("no controller")?;
    if l2.id().0 != 0b0011 {
        return Err("the controller is not an L2C-310");
    }
    let small = "the buffer's first 64 KiB do not suit the loops";
    let w = wb.window(0, TIMED).ok_or(small)?;
    let mut machine = Cpu {
        read: Loop::read_ldp(&w).ok_or(small)?,
        write: Loop::write_stp(&w).ok_or(small)?,
        clean: Loop::cvac(&w).ok_or(small)?,
    };
    let t = timing::time_clean(
        &mut l2,
        &mut machine,
        (w.va(), w.len()),
        dcache_line(),
        REPS,
        cpu::counter_hz(),
    )
    .map_err(|e| match e {
        Pl310Error::Address => "the buffer lies above 4 GiB",
        Pl310Error::Stalled => "the controller stayed busy",
    })?;
    say!(
        "outer cache timing: {t}{}",
        if crate::run::emulated() {
            "; QEMU models no caches: neither figure, nor their ratio, is silicon's"
        } else {
            ""
        }
    );
    let _ = t.record(&mut Console);
    Ok(())
}
