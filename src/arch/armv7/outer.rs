//! The outer cache of a 32-bit board: an L2C-310 (PL310) that the device tree names
//! (`arm,pl310-cache`: the i.MX6, the Zynq-7000, OMAP4). The CPU's maintenance by virtual
//! address does not reach it, so where the boot loader left it enabled, cleaning or
//! invalidating a range to the point of coherency also cleans or invalidates the range's
//! physical lines in it, in Linux's order (arch/arm/mm/dma-mapping.c,
//! `__dma_page_cpu_to_dev` and `__dma_page_dev_to_cpu`): the inner caches first when
//! cleaning, the outer cache first when invalidating. Core's `pl310` drives it, with bounded
//! waits; the controller's page is mapped Strongly-ordered with the console's.

use super::global::Global;
use super::mmio::Device;
use super::mmu::{at_s1e1r, Par};
use super::timer::GenericTimer;
use crate::say;
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

/// Applies `op` to the outer cache's lines of `[va, va + len)`, page by page through the
/// translation of each (`ATS1CPR`); a page that does not translate is skipped. Nothing when
/// no enabled controller is attached.
pub fn maintain(op: Op, va: u64, len: u64) {
    if !ON.get() {
        return;
    }
    let Some(mut l2) = controller() else { return };
    let end = va.saturating_add(len);
    let mut at = va;
    while at < end {
        let page_end = (at | 0xfff).saturating_add(1).min(end);
        if let Par::Ok { pa, .. } = at_s1e1r(at) {
            if let Err(e) = l2.range(op, pa, page_end - at) {
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
        at = page_end;
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
