//! The Arm L2C-310 (PL310) outer cache controller of 32-bit boards (i.MX6, Zynq-7000,
//! OMAP4: a device tree's `arm,pl310-cache`, found by [`crate::platform::pl310`]):
//! maintenance by physical address, which the CPU's own cache maintenance by VA does not
//! reach, for the coherence and maintenance checks around it. Driven through the UARTs'
//! [`Mmio`] and their bounded waits ([`Poller`]), so a dead controller cannot hang a run.
//!
//! Registers, as Linux's arch/arm/include/asm/hardware/cache-l2x0.h names them (L2C-310
//! TRM, DDI 0246): CACHE_ID `0x000` (PART, bits 9:6, `0b0011` for the L2C-310; RTL release,
//! bits 5:0, `0` for r0p0), CTRL `0x100` (bit 0: enabled), CACHE_SYNC `0x730`, INV_LINE_PA
//! `0x770`, CLEAN_LINE_PA `0x7b0`, CLEAN_INV_LINE_PA `0x7f0`; a line is 32 bytes. Each
//! operation waits for bit 0 of its register to read clear first (an earlier one still
//! running), as Linux's `cache_wait` does for the L2C-210 and L2C-220; an L2C-310 reads it
//! clear at once. On r0p0, erratum 588369 leaves a clean line valid after a clean and
//! invalidate by PA, so there each line is cleaned, then invalidated (Linux's
//! `l2c310_flush_range_erratum` works around it the same way, by line).

use embedded_hal::delay::DelayNs;

use crate::uart::{Mmio, Poller};

pub mod timing;

/// Bytes in a line of the L2C-310.
pub const LINE: u64 = 32;

/// Bytes in a page of the translation the walk by virtual address goes through
/// ([`Pl310::by_page`]): the smallest the firmware maps, so a page is physically contiguous.
pub const PAGE: u64 = 4096;

const CACHE_ID: usize = 0x000;
const CTRL: usize = 0x100;
const CACHE_SYNC: usize = 0x730;

/// A maintenance operation by physical address: its register's offset is the value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// INV_LINE_PA.
    Invalidate = 0x770,
    /// CLEAN_LINE_PA.
    Clean = 0x7b0,
    /// CLEAN_INV_LINE_PA.
    CleanInvalidate = 0x7f0,
}

/// Why maintenance did not finish.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pl310Error {
    /// The range lies above 4 GiB, beyond the controller's 32-bit addresses.
    Address,
    /// The controller stayed busy beyond the wait's bound (the operation was dropped).
    Stalled,
}

/// What [`Pl310::by_page`] did over a range of virtual addresses.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Walk {
    /// Pages translated and maintained: one translation and one CACHE_SYNC each.
    pub pages: u64,
    /// Pages that did not translate, skipped.
    pub untranslated: u64,
    /// Lines written to the operation's register (see [`Pl310::range`]).
    pub lines: u64,
    /// The first failure; the walk went on with the next page.
    pub error: Option<Pl310Error>,
}

/// An L2C-310 at the registers `regs`.
#[derive(Debug, Clone, Copy)]
pub struct Pl310<M: Mmio, D: DelayNs> {
    regs: M,
    poller: Poller<D>,
}

impl<M: Mmio, D: DelayNs> Pl310<M, D> {
    /// The controller at `regs`, waiting with `delay`.
    pub fn new(regs: M, delay: D) -> Self {
        Pl310 {
            regs,
            poller: Poller::new(delay),
        }
    }

    /// CACHE_ID's part number (bits 9:6; `0b0011` for an L2C-310) and RTL release (bits 5:0).
    pub fn id(&self) -> (u32, u32) {
        let id = self.regs.read32(CACHE_ID);
        (id >> 6 & 0xf, id & 0x3f)
    }

    /// Whether the controller is an L2C-310 and enabled (CTRL bit 0).
    pub fn enabled(&self) -> bool {
        self.id().0 == 0b0011 && self.regs.read32(CTRL) & 1 != 0
    }

    /// Waits for the operation at `reg` to finish (bit 0 clear).
    fn idle(&mut self, reg: usize) -> Result<(), Pl310Error> {
        let regs = &self.regs;
        if self.poller.wait(&mut || regs.read32(reg) & 1 == 0) {
            Ok(())
        } else {
            Err(Pl310Error::Stalled)
        }
    }

    /// Writes `pa` (line-aligned) to the register of `op`, once it is idle.
    fn line(&mut self, op: Op, pa: u32) -> Result<(), Pl310Error> {
        let reg = op as usize;
        self.idle(reg)?;
        self.regs.write32(reg, pa);
        Ok(())
    }

    /// Applies `op` to every line that `[pa, pa + len)` touches, then syncs; returns the
    /// lines it wrote (twice as many writes for a clean and invalidate on r0p0).
    pub fn range(&mut self, op: Op, pa: u64, len: u64) -> Result<u64, Pl310Error> {
        let end = pa.checked_add(len).ok_or(Pl310Error::Address)?;
        if end > 1 << 32 {
            return Err(Pl310Error::Address);
        }
        let split = op == Op::CleanInvalidate && self.id().1 == 0;
        let mut lines = 0u64;
        let mut at = pa & !(LINE - 1);
        while at < end {
            let a = u32::try_from(at).map_err(|_| Pl310Error::Address)?;
            if split {
                self.line(Op::Clean, a)?;
                self.line(Op::Invalidate, a)?;
            } else {
                self.line(op, a)?;
            }
            lines = lines.saturating_add(1);
            at = at.saturating_add(LINE);
        }
        self.sync()?;
        Ok(lines)
    }

    /// Applies `op` to the lines of the virtual range `[va, va + len)`, page by page: each
    /// 4 KiB page's physical address from `translate` (the firmware's `ATS1CPR` and PAR
    /// read), then [`Pl310::range`] over the page's part of the range, with its CACHE_SYNC.
    /// A page that does not translate is skipped, and a failing page does not stop the walk:
    /// the first failure is kept in [`Walk::error`].
    pub fn by_page(
        &mut self,
        op: Op,
        va: u64,
        len: u64,
        mut translate: impl FnMut(u64) -> Option<u64>,
    ) -> Walk {
        let mut walk = Walk::default();
        let end = va.saturating_add(len);
        let mut at = va;
        while at < end {
            let page_end = (at | (PAGE - 1)).saturating_add(1).min(end);
            let part = page_end.saturating_sub(at);
            match translate(at).map(|pa| self.range(op, pa, part)) {
                Some(Ok(lines)) => {
                    walk.pages = walk.pages.saturating_add(1);
                    walk.lines = walk.lines.saturating_add(lines);
                }
                Some(Err(e)) => {
                    walk.pages = walk.pages.saturating_add(1);
                    walk.error = walk.error.or(Some(e));
                }
                None => walk.untranslated = walk.untranslated.saturating_add(1),
            }
            at = page_end;
        }
        walk
    }

    /// CACHE_SYNC: waits until the controller's buffers have drained.
    pub fn sync(&mut self) -> Result<(), Pl310Error> {
        self.regs.write32(CACHE_SYNC, 0);
        self.idle(CACHE_SYNC)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use core::cell::RefCell;
    use std::rc::Rc;
    use std::vec::Vec;

    /// Registers as a map; every write logged; `busy` reads of bit 0 before it clears.
    #[derive(Clone, Default)]
    struct Fake {
        id: u32,
        ctrl: u32,
        busy: Rc<RefCell<u32>>,
        writes: Rc<RefCell<Vec<(usize, u32)>>>,
    }

    impl Mmio for Fake {
        fn read32(&self, off: usize) -> u32 {
            match off {
                CACHE_ID => self.id,
                CTRL => self.ctrl,
                _ => {
                    let mut busy = self.busy.borrow_mut();
                    *busy = busy.saturating_sub(1);
                    u32::from(*busy > 0)
                }
            }
        }
        fn write32(&mut self, off: usize, v: u32) {
            self.writes.borrow_mut().push((off, v));
        }
        fn read16(&self, _: usize) -> u16 {
            0
        }
        fn write16(&mut self, _: usize, _: u16) {}
        fn read8(&self, _: usize) -> u8 {
            0
        }
        fn write8(&mut self, _: usize, _: u8) {}
    }

    #[derive(Clone, Copy)]
    struct NoDelay;
    impl DelayNs for NoDelay {
        fn delay_ns(&mut self, _: u32) {}
    }

    /// An L2C-310 r3p2 (CACHE_ID 0x410000c8: part 3, RTL 8), enabled.
    fn r3p2() -> Fake {
        Fake {
            id: 0x4100_00c8,
            ctrl: 1,
            ..Fake::default()
        }
    }

    #[test]
    fn a_range_is_every_line_it_touches_then_a_sync() {
        let fake = r3p2();
        let mut l2 = Pl310::new(fake.clone(), NoDelay);
        assert!(l2.enabled());
        assert_eq!(l2.id(), (3, 8));
        // 41 bytes from 0x1000_0018 (the last at 0x1000_0040) touch the lines at 0x..00,
        // 0x..20 and 0x..40; 40 would end before the third.
        assert_eq!(l2.range(Op::Clean, 0x1000_0018, 41), Ok(3));
        assert_eq!(
            *fake.writes.borrow(),
            [
                (0x7b0, 0x1000_0000),
                (0x7b0, 0x1000_0020),
                (0x7b0, 0x1000_0040),
                (CACHE_SYNC, 0)
            ]
        );
        assert_eq!(
            l2.range(Op::Invalidate, 0xffff_ffe0, 0x40),
            Err(Pl310Error::Address)
        );
        assert_eq!(
            l2.range(Op::Invalidate, 0, 0),
            Ok(0),
            "nothing, then a sync"
        );
    }

    #[test]
    fn r0p0_cleans_then_invalidates() {
        let fake = Fake {
            id: 0x4100_00c0,
            ..r3p2()
        };
        let mut l2 = Pl310::new(fake.clone(), NoDelay);
        assert_eq!(l2.range(Op::CleanInvalidate, 0x2000, 32), Ok(1));
        assert_eq!(
            *fake.writes.borrow(),
            [(0x7b0, 0x2000), (0x770, 0x2000), (CACHE_SYNC, 0)]
        );
    }

    #[test]
    fn a_busy_controller_is_waited_for_within_the_bound() {
        let fake = r3p2();
        *fake.busy.borrow_mut() = 5;
        let mut l2 = Pl310::new(fake.clone(), NoDelay);
        assert_eq!(l2.range(Op::CleanInvalidate, 0x3000, 32), Ok(1));
        // Never idle: the wait gives up, says so, and the operation is not written.
        *fake.busy.borrow_mut() = u32::MAX;
        fake.writes.borrow_mut().clear();
        assert_eq!(
            l2.range(Op::CleanInvalidate, 0x3000, 32),
            Err(Pl310Error::Stalled)
        );
        assert!(fake.writes.borrow().is_empty());
        // Not an L2C-310 (an L2C-220, part 2), or disabled: not enabled.
        let l220 = Fake {
            id: 0x4100_0084,
            ..r3p2()
        };
        assert!(!Pl310::new(l220, NoDelay).enabled());
        assert!(!Pl310::new(Fake { ctrl: 0, ..r3p2() }, NoDelay).enabled());
    }
}
