//! How long cleaning a range costs at each level of a 32-bit board's caches: the CPU's
//! `DCCMVAC` by virtual address, one operation per CPU line and a DSB, against the L2C-310's
//! `CLEAN_LINE_PA`, one register write per 32-byte line with the translation of each 4 KiB
//! page (`ATS1CPR` and the PAR read: what the L2C-310's maintenance by physical address
//! costs a caller that holds virtual addresses) and each page's CACHE_SYNC, as the firmware's
//! own outer maintenance does it ([`Pl310::by_page`]). This is the nearest case on silicon
//! that still has such a cache of the Kirkwood report ("ARM: mm: implement no-highmem fast
//! path in kmap_atomic_pfn()", Thomas Petazzoni), where each cache maintenance by VA needed a
//! temporary mapping (docs/lab-board.md, step 5).
//!
//! Each pass starts from the range just written (dirty lines, untimed), cleans it in the
//! CPU's caches (timed), then in the outer cache (timed): the order a driver's clean to
//! memory takes (Linux's `__dma_page_cpu_to_dev`, inner first). The best pass of each level
//! is kept.
//!
//! A disabled controller holds no lines: its figure is the cost of the register path alone
//! (the writes, the translations, the syncs), not of a clean; the record and the human line
//! say which ([`Timed::enabled`]). That it takes maintenance operations while disabled at all
//! rests on Linux's `l2c_enable` (arch/arm/mm/cache-l2x0.c), which, on a controller "known to
//! be disabled", writes INV_WAY and CACHE_SYNC and waits for both to finish before it sets
//! CTRL's enable bit.

use core::fmt;

use embedded_hal::delay::DelayNs;

use super::{Op, Pl310, Pl310Error, LINE};
use crate::format::Decimal;
use crate::record::Record;
use crate::stats;
use crate::uart::Mmio;

/// What timing needs of the machine besides the controller.
pub trait Machine {
    /// The counter, in ticks of [`Timed::freq_hz`], ordered after what came before.
    fn now(&mut self) -> u64;
    /// Writes `[va, va + len)` so that its lines are dirty in the CPU's caches (untimed).
    fn dirty(&mut self, va: u64, len: u64);
    /// Cleans `[va, va + len)` to the point of coherency by VA, one `DCCMVAC` per CPU line,
    /// then a DSB.
    fn cpu_clean(&mut self, va: u64, len: u64);
    /// The physical address of `va`, if it translates (`ATS1CPR`, then the PAR).
    fn translate(&mut self, va: u64) -> Option<u64>;
}

/// Lines of `line` bytes that `[start, start + len)` touches; 0 for an empty range or a
/// line of 0 bytes.
pub fn lines_touched(start: u64, len: u64, line: u64) -> u64 {
    let (Some(first), Some(last)) = (
        start.checked_div(line),
        len.checked_sub(1)
            .and_then(|l| start.saturating_add(l).checked_div(line)),
    ) else {
        return 0;
    };
    last.saturating_sub(first).saturating_add(1)
}

/// One timing of both levels' clean of a range: the best pass of each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timed {
    /// Whether the controller was enabled (else it holds no lines: the register path only).
    pub enabled: bool,
    /// Bytes of the range.
    pub bytes: u64,
    /// Passes timed.
    pub reps: u64,
    /// The counter's rate, Hz.
    pub freq_hz: u64,
    /// The CPU's data cache line (CTR.DminLine), bytes.
    pub cpu_line: u64,
    /// CPU lines of the range: one `DCCMVAC` each.
    pub cpu_lines: u64,
    /// The best pass's ticks for the CPU's clean.
    pub cpu_ticks: u64,
    /// L2C-310 lines written (`CLEAN_LINE_PA`), [`LINE`] bytes each.
    pub outer_lines: u64,
    /// Pages translated, each with its CACHE_SYNC.
    pub pages: u64,
    /// The best pass's ticks for the outer cache's clean, translations and syncs included.
    pub outer_ticks: u64,
}

/// Times `reps` passes of cleaning `[va, va + len)` at both levels (see the module's doc):
/// each pass dirties the range, times the CPU's clean, then the controller's clean by page.
/// The first failure of the controller ends the timing.
pub fn time_clean<M: Mmio, D: DelayNs, H: Machine>(
    l2: &mut Pl310<M, D>,
    machine: &mut H,
    (va, len): (u64, u64),
    cpu_line: u64,
    reps: u64,
    freq_hz: u64,
) -> Result<Timed, Pl310Error> {
    let mut timed = Timed {
        enabled: l2.enabled(),
        bytes: len,
        reps,
        freq_hz,
        cpu_line,
        cpu_lines: lines_touched(va, len, cpu_line),
        cpu_ticks: u64::MAX,
        outer_lines: 0,
        pages: 0,
        outer_ticks: u64::MAX,
    };
    for _ in 0..reps {
        machine.dirty(va, len);
        let start = machine.now();
        machine.cpu_clean(va, len);
        let cleaned = machine.now();
        let walk = l2.by_page(Op::Clean, va, len, |at| machine.translate(at));
        let end = machine.now();
        if let Some(e) = walk.error {
            return Err(e);
        }
        timed.cpu_ticks = timed.cpu_ticks.min(cleaned.wrapping_sub(start));
        timed.outer_ticks = timed.outer_ticks.min(end.wrapping_sub(cleaned));
        timed.outer_lines = walk.lines;
        timed.pages = walk.pages;
    }
    if reps == 0 {
        timed.cpu_ticks = 0;
        timed.outer_ticks = 0;
    }
    Ok(timed)
}

impl Timed {
    /// The CPU's clean, hundredths of a ns per CPU line; `None` when the best pass took no
    /// tick (a clock too coarse for it) or nothing was timed.
    pub fn cpu_centi_ns(&self) -> Option<u64> {
        per_line(self.cpu_ticks, self.cpu_lines, self.freq_hz)
    }

    /// The outer cache's clean, hundredths of a ns per L2C-310 line (translations and syncs
    /// included); `None` as for [`Timed::cpu_centi_ns`].
    pub fn outer_centi_ns(&self) -> Option<u64> {
        per_line(self.outer_ticks, self.outer_lines, self.freq_hz)
    }

    /// The outer cache's time for the range over the CPU's, in hundredths; `None` when
    /// either took no tick.
    pub fn ratio_centi(&self) -> Option<u64> {
        if self.outer_ticks == 0 {
            return None;
        }
        stats::div_round(
            u128::from(self.outer_ticks).saturating_mul(100),
            u128::from(self.cpu_ticks),
        )
    }

    /// Writes its `outer_maint` record.
    pub fn record(&self, out: &mut impl fmt::Write) -> fmt::Result {
        Record::new(out, &crate::schema::OUTER_MAINT)
            .bool("enabled", self.enabled)
            .u64("bytes", self.bytes)
            .u64("reps", self.reps)
            .u64("freq_hz", self.freq_hz)
            .u64("cpu_line", self.cpu_line)
            .u64("cpu_lines", self.cpu_lines)
            .u64("cpu_ticks", self.cpu_ticks)
            .opt_decimal("cpu_ns_per_line", self.cpu_centi_ns(), 2)
            .u64("outer_line", LINE)
            .u64("outer_lines", self.outer_lines)
            .u64("pages", self.pages)
            .u64("syncs", self.pages)
            .u64("outer_ticks", self.outer_ticks)
            .opt_decimal("outer_ns_per_line", self.outer_centi_ns(), 2)
            .opt_decimal("ratio", self.ratio_centi(), 2)
            .finish()
    }
}

/// Hundredths of a ns per line; `None` for no tick or no line.
fn per_line(ticks: u64, lines: u64, freq_hz: u64) -> Option<u64> {
    if ticks == 0 || lines == 0 {
        return None;
    }
    stats::per_unit_centi_ns(ticks, lines, freq_hz)
}

/// A figure in hundredths of a ns, or why there is none.
struct Ns(Option<u64>);

impl fmt::Display for Ns {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(scaled) => write!(f, "{} ns", Decimal { scaled, places: 2 }),
            None => f.write_str("under one tick of the clock"),
        }
    }
}

/// A size in KiB where it is whole KiB, else in bytes.
struct Size(u64);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 != 0 && self.0.is_multiple_of(1024) {
            write!(f, "{} KiB", self.0 >> 10)
        } else {
            write!(f, "{} bytes", self.0)
        }
    }
}

/// The human line (without the `outer cache timing: ` the firmware puts before it).
impl fmt::Display for Timed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "cleaning {}, best of {} passes: the CPU's DCCMVAC per {}-byte line {} ({} lines \
             in {} ticks, DSB included); the L2C-310's CLEAN_LINE_PA per {LINE}-byte line {} \
             ({} lines in {} ticks, with {} ATS1CPR translations and {} CACHE_SYNCs)",
            Size(self.bytes),
            self.reps,
            self.cpu_line,
            Ns(self.cpu_centi_ns()),
            self.cpu_lines,
            self.cpu_ticks,
            Ns(self.outer_centi_ns()),
            self.outer_lines,
            self.outer_ticks,
            self.pages,
            self.pages,
        )?;
        if let Some(scaled) = self.ratio_centi() {
            write!(
                f,
                ": {} times the CPU's time for the range",
                Decimal { scaled, places: 2 }
            )?;
        }
        if !self.enabled {
            f.write_str(
                "; the controller is disabled and holds no lines, so its figure is the register \
                 path's cost only, not a clean's",
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use core::cell::{Cell, RefCell};
    use std::rc::Rc;
    use std::string::{String, ToString};
    use std::vec::Vec;

    const CACHE_ID: usize = 0x000;
    const CTRL: usize = 0x100;
    const SYNC: usize = 0x730;

    /// A fake clock every access moves on: each register write costs `WRITE` ticks, each
    /// status read `READ`, each translation `TRANSLATE`, each CPU line `CPU_LINE`.
    const WRITE: u64 = 10;
    const READ: u64 = 1;
    const TRANSLATE: u64 = 100;
    const CPU_LINE: u64 = 3;

    /// An L2C-310 r3p2 whose every access moves the shared clock, with its writes logged.
    #[derive(Clone)]
    struct Regs {
        ctrl: u32,
        clock: Rc<Cell<u64>>,
        writes: Rc<RefCell<Vec<(usize, u32)>>>,
    }

    impl Mmio for Regs {
        fn read32(&self, off: usize) -> u32 {
            match off {
                CACHE_ID => 0x4100_00c8,
                CTRL => self.ctrl,
                _ => {
                    self.clock.set(self.clock.get() + READ);
                    0
                }
            }
        }
        fn write32(&mut self, off: usize, v: u32) {
            self.clock.set(self.clock.get() + WRITE);
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

    /// Pages map to PA = VA + 0x1000_0000, but for `hole`; the CPU's clean moves the clock
    /// `CPU_LINE` per 32-byte line; every call is logged in order.
    struct Fake {
        clock: Rc<Cell<u64>>,
        hole: Option<u64>,
        calls: Vec<&'static str>,
    }

    impl Machine for Fake {
        fn now(&mut self) -> u64 {
            self.clock.get()
        }
        fn dirty(&mut self, _: u64, len: u64) {
            self.calls.push("dirty");
            // Untimed work: moves the clock, outside every timed span.
            self.clock.set(self.clock.get() + len);
        }
        fn cpu_clean(&mut self, va: u64, len: u64) {
            self.calls.push("cpu");
            self.clock
                .set(self.clock.get() + CPU_LINE * lines_touched(va, len, 32));
        }
        fn translate(&mut self, va: u64) -> Option<u64> {
            self.calls.push("translate");
            self.clock.set(self.clock.get() + TRANSLATE);
            (Some(va & !0xfff) != self.hole).then_some(va + 0x1000_0000)
        }
    }

    fn setup(ctrl: u32) -> (Pl310<Regs, NoDelay>, Regs, Fake) {
        let clock = Rc::new(Cell::new(5));
        let regs = Regs {
            ctrl,
            clock: clock.clone(),
            writes: Rc::default(),
        };
        let fake = Fake {
            clock,
            hole: None,
            calls: Vec::new(),
        };
        (Pl310::new(regs.clone(), NoDelay), regs, fake)
    }

    #[test]
    fn lines_of_a_range() {
        assert_eq!(lines_touched(0x1000, 0x1_0000, 32), 2048);
        assert_eq!(lines_touched(0x1000, 0x1_0000, 64), 1024);
        // 41 bytes from 0x18 touch the lines at 0x00, 0x20 and 0x40; 40 end before it.
        assert_eq!(lines_touched(0x18, 41, 32), 3);
        assert_eq!(lines_touched(0x18, 40, 32), 2);
        assert_eq!(lines_touched(0x18, 0, 32), 0);
        assert_eq!(lines_touched(0x18, 8, 0), 0);
        assert_eq!(lines_touched(u64::MAX - 1, 8, 32), 1);
    }

    #[test]
    fn both_levels_are_timed_with_every_line_translation_and_sync() {
        let (mut l2, regs, mut fake) = setup(1);
        // 16 KiB from 0x8000_0000: four pages, 512 lines of 32 bytes.
        let t = time_clean(
            &mut l2,
            &mut fake,
            (0x8000_0000, 0x4000),
            32,
            3,
            1_000_000_000,
        )
        .unwrap();
        assert_eq!(
            (t.enabled, t.bytes, t.reps, t.cpu_line, t.cpu_lines),
            (true, 0x4000, 3, 32, 512)
        );
        assert_eq!((t.outer_lines, t.pages), (512, 4));
        // Per line: a status read, then the write; per page a translation and a sync (its
        // write, then its status read).
        assert_eq!(t.cpu_ticks, 512 * CPU_LINE);
        let outer = 512 * (READ + WRITE) + 4 * (TRANSLATE + WRITE + READ);
        assert_eq!((outer, t.outer_ticks), (6076, outer));
        // Each pass: dirty, the CPU, then the controller page by page.
        let pass = [
            "dirty",
            "cpu",
            "translate",
            "translate",
            "translate",
            "translate",
        ];
        assert_eq!(fake.calls, [pass, pass, pass].concat());
        // Every line's physical address once per pass, a sync after each page's lines.
        let writes = regs.writes.borrow();
        assert_eq!(writes.len(), 3 * (512 + 4));
        let first: Vec<_> = writes[..128 + 1].to_vec();
        let expect: Vec<_> = (0..128)
            .map(|i| (0x7b0, 0x9000_0000 + 32 * i))
            .chain([(SYNC, 0)])
            .collect();
        assert_eq!(first, expect);
        assert_eq!(writes.iter().filter(|w| w.0 == SYNC).count(), 3 * 4);
        assert_eq!(writes[515], (SYNC, 0));
        assert_eq!(writes[514], (0x7b0, 0x9000_3fe0));
        // At 1 GHz a tick is a ns: 3.00 ns per CPU line, the outer cache's own figure, and
        // their ratio for the range.
        assert_eq!(t.cpu_centi_ns(), Some(300));
        // 6076 ns over 512 lines: 11.867 ns.
        assert_eq!(t.outer_centi_ns(), Some(1187));
        // 6076 ticks over 1536: 3.9557.
        assert_eq!(t.ratio_centi(), Some(396));
    }

    #[test]
    fn an_untranslated_page_is_skipped_and_a_stall_ends_it() {
        let (mut l2, regs, mut fake) = setup(1);
        fake.hole = Some(0x8000_1000);
        let t = time_clean(&mut l2, &mut fake, (0x8000_0800, 0x2000), 32, 1, 1).unwrap();
        // 0x8000_0800..0x8000_2800: half a page, a hole, half a page.
        assert_eq!((t.pages, t.outer_lines, t.cpu_lines), (2, 128, 256));
        assert_eq!(regs.writes.borrow().len(), 128 + 2);
        // A controller that never goes idle: the timing fails rather than report a figure.
        struct Busy(Regs);
        impl Mmio for Busy {
            fn read32(&self, off: usize) -> u32 {
                u32::from(off != CACHE_ID && off != CTRL) | self.0.read32(off)
            }
            fn write32(&mut self, off: usize, v: u32) {
                self.0.write32(off, v)
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
        let (_, regs, mut fake) = setup(1);
        let mut busy = Pl310::new(Busy(regs), NoDelay);
        assert_eq!(
            time_clean(&mut busy, &mut fake, (0, 0x1000), 32, 2, 1),
            Err(Pl310Error::Stalled)
        );
    }

    #[test]
    fn the_best_pass_is_kept() {
        // Passes whose first and last are slow: the middle one's figures are kept, for both
        // levels.
        struct Slow(Fake, u32);
        impl Machine for Slow {
            fn now(&mut self) -> u64 {
                self.0.now()
            }
            fn dirty(&mut self, va: u64, len: u64) {
                self.1 += 1;
                self.0.dirty(va, len)
            }
            fn cpu_clean(&mut self, va: u64, len: u64) {
                if self.1 != 2 {
                    self.0.clock.set(self.0.clock.get() + 1000);
                }
                self.0.cpu_clean(va, len)
            }
            fn translate(&mut self, va: u64) -> Option<u64> {
                if self.1 != 2 {
                    self.0.clock.set(self.0.clock.get() + 1000);
                }
                self.0.translate(va)
            }
        }
        let (mut l2, _, fake) = setup(1);
        let mut slow = Slow(fake, 0);
        let t = time_clean(&mut l2, &mut slow, (0, 0x1000), 32, 3, 1).unwrap();
        assert_eq!(t.cpu_ticks, 128 * CPU_LINE);
        assert_eq!(
            t.outer_ticks,
            128 * (READ + WRITE) + TRANSLATE + WRITE + READ
        );
    }

    #[test]
    fn the_record_and_the_line() {
        let (mut l2, _, mut fake) = setup(0);
        // 3 MHz (the i.MX6 GPT): 333.33 ns a tick.
        let t = time_clean(&mut l2, &mut fake, (0x8000_0000, 0x1000), 32, 1, 3_000_000).unwrap();
        assert!(!t.enabled);
        let mut line = String::new();
        t.record(&mut line).unwrap();
        // CPU: 384 ticks for 128 lines, 1000 ns each; outer: 128·11 + 111 = 1519 ticks.
        assert_eq!(
            line,
            "@mb {\"kind\":\"outer_maint\",\"enabled\":false,\"bytes\":4096,\"reps\":1,\
             \"freq_hz\":3000000,\"cpu_line\":32,\"cpu_lines\":128,\"cpu_ticks\":384,\
             \"cpu_ns_per_line\":1000.00,\"outer_line\":32,\"outer_lines\":128,\"pages\":1,\
             \"syncs\":1,\"outer_ticks\":1519,\"outer_ns_per_line\":3955.73,\"ratio\":3.96}\n"
        );
        let human = t.to_string();
        assert_eq!(
            human,
            "cleaning 4 KiB, best of 1 passes: the CPU's DCCMVAC per 32-byte line 1000.00 ns \
             (128 lines in 384 ticks, DSB included); the L2C-310's CLEAN_LINE_PA per 32-byte \
             line 3955.73 ns (128 lines in 1519 ticks, with 1 ATS1CPR translations and 1 \
             CACHE_SYNCs): 3.96 \
             times the CPU's time for the range; the controller is disabled and holds no \
             lines, so its figure is the register path's cost only, not a clean's"
        );
        // No tick: no figure, and no ratio.
        let none = Timed {
            cpu_ticks: 0,
            enabled: true,
            ..t
        };
        assert_eq!((none.cpu_centi_ns(), none.ratio_centi()), (None, None));
        assert!(none
            .to_string()
            .contains("DCCMVAC per 32-byte line under one tick of the clock (128 lines in 0"));
        assert_eq!(Size(100).to_string(), "100 bytes");
        assert_eq!(Size(0x1_0000).to_string(), "64 KiB");
        let mut line = String::new();
        none.record(&mut line).unwrap();
        assert!(line.contains("\"cpu_ns_per_line\":null,") && line.ends_with("\"ratio\":null}\n"));
    }
}
