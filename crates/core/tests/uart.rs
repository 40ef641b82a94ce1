//! The UART drivers against a fake register file.

use std::cell::{Cell, RefCell};

use embedded_hal::delay::DelayNs;
use embedded_io::Write;
use mairbench_core::platform::ConsoleKind;
use mairbench_core::uart::{Mmio, Ns16550, Pl011, Uart, POLL_INTERVAL_NS, TIMEOUT_NS};

/// Status reads of a wait that times out: one, then one after each poll interval.
const FULL_WAIT_READS: usize = (TIMEOUT_NS / POLL_INTERVAL_NS) as usize + 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Access {
    Read8(usize),
    Read16(usize),
    Read32(usize),
    Write8(usize, u8),
    Write16(usize, u16),
    Write32(usize, u32),
}

/// A register file: plain memory, except the status register at `status`,
/// which reads `busy` for the first `busy_reads` reads and `ready` after. It is also
/// the drivers' delay, which only counts the nanoseconds waited (`waited_ns`).
struct Fake {
    mem: RefCell<[u8; 0x1000]>,
    status: usize,
    busy: u32,
    ready: u32,
    busy_reads: Cell<u64>,
    waited_ns: Cell<u64>,
    log: RefCell<Vec<Access>>,
}

impl Fake {
    fn new(status: usize, busy: u32, ready: u32) -> Fake {
        Fake {
            mem: RefCell::new([0; 0x1000]),
            status,
            busy,
            ready,
            busy_reads: Cell::new(0),
            waited_ns: Cell::new(0),
            log: RefCell::new(Vec::new()),
        }
    }

    fn pl011() -> Fake {
        let fake = Fake::new(0x18, 1 << 5 | 1 << 3, 0); // FR: TXFF and BUSY, then idle
        fake.mem.borrow_mut()[0x30..0x34].copy_from_slice(&0x301u32.to_le_bytes());
        fake
    }

    fn ns16550(reg_shift: u8) -> Fake {
        Fake::new(5 << reg_shift, 0, 0x60) // LSR: nothing, then THRE | TEMT
    }

    fn status(&self) -> u32 {
        let left = self.busy_reads.get();
        if left == 0 {
            return self.ready;
        }
        self.busy_reads.set(left - 1);
        self.busy
    }

    fn log(&self) -> Vec<Access> {
        self.log.borrow().clone()
    }

    fn writes(&self) -> Vec<Access> {
        let log = self.log.borrow();
        let writes = log.iter().filter(|a| {
            matches!(
                a,
                Access::Write8(..) | Access::Write16(..) | Access::Write32(..)
            )
        });
        writes.copied().collect()
    }

    fn status_reads(&self) -> usize {
        let log = self.log.borrow();
        let reads = log
            .iter()
            .filter(|a| matches!(a, Access::Read8(o) | Access::Read16(o) | Access::Read32(o) if *o == self.status));
        reads.count()
    }
}

impl Mmio for &Fake {
    fn read32(&self, off: usize) -> u32 {
        self.log.borrow_mut().push(Access::Read32(off));
        if off == self.status {
            return self.status();
        }
        let mem = self.mem.borrow();
        u32::from_le_bytes(mem[off..off + 4].try_into().unwrap())
    }

    fn write32(&mut self, off: usize, v: u32) {
        self.log.borrow_mut().push(Access::Write32(off, v));
        self.mem.borrow_mut()[off..off + 4].copy_from_slice(&v.to_le_bytes());
    }

    fn read16(&self, off: usize) -> u16 {
        self.log.borrow_mut().push(Access::Read16(off));
        if off == self.status {
            return self.status() as u16;
        }
        let mem = self.mem.borrow();
        u16::from_le_bytes(mem[off..off + 2].try_into().unwrap())
    }

    fn write16(&mut self, off: usize, v: u16) {
        self.log.borrow_mut().push(Access::Write16(off, v));
        self.mem.borrow_mut()[off..off + 2].copy_from_slice(&v.to_le_bytes());
    }

    fn read8(&self, off: usize) -> u8 {
        self.log.borrow_mut().push(Access::Read8(off));
        if off == self.status {
            return self.status() as u8;
        }
        self.mem.borrow()[off]
    }

    fn write8(&mut self, off: usize, v: u8) {
        self.log.borrow_mut().push(Access::Write8(off, v));
        self.mem.borrow_mut()[off] = v;
    }
}

impl DelayNs for &Fake {
    fn delay_ns(&mut self, ns: u32) {
        self.waited_ns.set(self.waited_ns.get() + u64::from(ns));
    }
}

#[test]
fn pl011_writes_each_byte_to_dr_after_checking_fr() {
    let fake = Fake::pl011();
    let mut uart = Pl011::new(&fake, &fake);
    assert_eq!(uart.write(b"ok\r\n"), Ok(4));
    let mut expected = vec![Access::Read32(0x30)];
    for b in b"ok\r\n" {
        expected.extend([Access::Read32(0x18), Access::Write32(0x000, u32::from(*b))]);
    }
    assert_eq!(fake.log(), expected);
}

#[test]
fn pl011_sets_only_missing_enable_bits() {
    for (cr, written) in [
        (0x301, None),
        (0x101, None),
        (0x000, Some(0x101)),
        (0x200, Some(0x301)),
        (0x001, Some(0x101)),
        (0x300, Some(0x301)),
        (0x0086, Some(0x0187)), // other bits (here SIREN, SIRLP, LBE) are kept
        (0xff86, Some(0xff87)),
    ] {
        let fake = Fake::pl011();
        fake.mem.borrow_mut()[0x30..0x34].copy_from_slice(&u32::to_le_bytes(cr));
        let _uart = Pl011::new(&fake, &fake);
        let expected: Vec<_> = written
            .map(|v| Access::Write32(0x30, v))
            .into_iter()
            .collect();
        assert_eq!(fake.writes(), expected, "UARTCR was {cr:#x}");
    }
}

#[test]
fn pl011_waits_while_tx_fifo_full() {
    let fake = Fake::pl011();
    let mut uart = Pl011::new(&fake, &fake);
    fake.busy_reads.set(5);
    uart.write_all(b"x").unwrap();
    assert_eq!(fake.status_reads(), 6);
    assert_eq!(
        fake.log().last(),
        Some(&Access::Write32(0, u32::from(b'x')))
    );
}

#[test]
fn pl011_flush_waits_for_busy_clear() {
    let fake = Fake::pl011();
    let mut uart = Pl011::new(&fake, &fake);
    fake.busy_reads.set(3);
    uart.flush().unwrap();
    assert_eq!(fake.status_reads(), 4);
    assert_eq!(fake.writes(), []);
}

#[test]
fn pl011_dead_uart_drops_bytes_and_recovers() {
    let fake = Fake::pl011();
    let mut uart = Pl011::new(&fake, &fake);
    fake.busy_reads.set(u64::MAX);
    assert_eq!(uart.write(b"abc"), Ok(3));
    // The time bound for the first byte, then one read per byte while stalled.
    assert_eq!(fake.status_reads(), FULL_WAIT_READS + 2);
    assert_eq!(fake.waited_ns.get(), u64::from(TIMEOUT_NS));
    uart.flush().unwrap();
    assert_eq!(fake.status_reads(), FULL_WAIT_READS + 3);
    assert_eq!(fake.waited_ns.get(), u64::from(TIMEOUT_NS));
    assert_eq!(fake.writes(), []);

    fake.busy_reads.set(0);
    uart.write_all(b"d").unwrap();
    assert_eq!(fake.writes(), [Access::Write32(0, u32::from(b'd'))]);
}

#[test]
fn ns16550_uses_reg_shift_and_io_width() {
    for reg_shift in [0u8, 2] {
        for io_width in [1u8, 4] {
            let fake = Fake::ns16550(reg_shift);
            let mut uart = Ns16550::new(&fake, reg_shift, io_width, &fake);
            assert_eq!(fake.log(), [], "new() touches no register");
            uart.write_all(b"hi").unwrap();
            uart.flush().unwrap();
            let lsr = 5 << reg_shift;
            let (read, write): (Access, fn(u8) -> Access) = if io_width == 4 {
                (Access::Read32(lsr), |b| Access::Write32(0, u32::from(b)))
            } else {
                (Access::Read8(lsr), |b| Access::Write8(0, b))
            };
            let expected = [read, write(b'h'), read, write(b'i'), read];
            assert_eq!(
                fake.log(),
                expected,
                "reg_shift {reg_shift} io_width {io_width}"
            );
        }
    }
}

#[test]
fn ns16550_never_writes_divisor_or_line_control() {
    let fake = Fake::ns16550(2);
    let mut uart = Ns16550::new(&fake, 2, 4, &fake);
    for line in ["first\r\n", "second\r\n"] {
        uart.write_all(line.as_bytes()).unwrap();
        uart.flush().unwrap();
    }
    // Only THR (offset 0, with DLAB never set since LCR at 3 << 2 is never written).
    assert!(fake
        .writes()
        .iter()
        .all(|a| matches!(a, Access::Write32(0, _))));
    assert_eq!(fake.writes().len(), 15);
}

#[test]
fn ns16550_waits_for_thre_and_flush_for_temt() {
    let fake = Fake::ns16550(0);
    let mut uart = Ns16550::new(&fake, 0, 1, &fake);
    fake.busy_reads.set(7);
    uart.write_all(b"x").unwrap();
    assert_eq!(fake.status_reads(), 8);
    assert_eq!(fake.writes(), [Access::Write8(0, b'x')]);

    // THRE set but TEMT clear: the shift register is still sending.
    let fake = Fake::new(5, 0x20, 0x60);
    let mut uart = Ns16550::new(&fake, 0, 1, &fake);
    fake.busy_reads.set(4);
    uart.flush().unwrap();
    assert_eq!(fake.status_reads(), 5);
}

#[test]
fn ns16550_dead_uart_is_bounded() {
    let fake = Fake::ns16550(2);
    let mut uart = Ns16550::new(&fake, 2, 4, &fake);
    fake.busy_reads.set(u64::MAX);
    assert_eq!(uart.write(b"ab"), Ok(2));
    uart.flush().unwrap();
    assert_eq!(fake.status_reads(), FULL_WAIT_READS + 2);
    assert_eq!(fake.waited_ns.get(), u64::from(TIMEOUT_NS));
    assert_eq!(fake.writes(), []);
}

#[test]
fn ns16550_clamps_reg_shift() {
    let fake = Fake::ns16550(7);
    let mut uart = Ns16550::new(&fake, 200, 1, &fake);
    uart.write_all(b"z").unwrap();
    assert_eq!(fake.log(), [Access::Read8(5 << 7), Access::Write8(0, b'z')]);
}

#[test]
fn uart_follows_console_kind_and_formats() {
    let fake = Fake::pl011();
    let mut uart = Uart::new(ConsoleKind::Pl011, &fake, &fake);
    assert!(matches!(uart, Uart::Pl011(_)));
    write!(uart, "{}\r\n", 42).unwrap();
    assert_eq!(fake.writes().len(), 4);

    let fake = Fake::ns16550(2);
    let kind = ConsoleKind::Ns16550 {
        reg_shift: 2,
        io_width: 4,
    };
    let mut uart = Uart::new(kind, &fake, &fake);
    assert!(matches!(uart, Uart::Ns16550(_)));
    uart.write_all(b"A").unwrap();
    uart.flush().unwrap();
    assert_eq!(
        fake.log(),
        [
            Access::Read32(20),
            Access::Write32(0, 0x41),
            Access::Read32(20)
        ]
    );
}

#[test]
fn formatted_output_reaches_the_data_register() {
    let fake = Fake::ns16550(0);
    let mut uart = Ns16550::new(&fake, 0, 1, &fake);
    write!(uart, "{:#x}\r\n", 0x900_0000).unwrap();
    let sent: Vec<u8> = fake
        .writes()
        .iter()
        .map(|a| match a {
            Access::Write8(0, b) => *b,
            other => panic!("unexpected {other:?}"),
        })
        .collect();
    assert_eq!(sent, b"0x9000000\r\n");
}

#[test]
fn copies_carry_the_stall() {
    // `&Fake` is `Copy`, so the drivers over it are: a `Cell` can hold one.
    fn assert_copy<T: Copy>(_: &T) {}
    let fake = Fake::pl011();
    let cell = Cell::new(Uart::new(ConsoleKind::Pl011, &fake, &fake));
    fake.busy_reads.set(u64::MAX);
    let mut uart = cell.get();
    assert_copy(&uart);
    uart.write_all(b"a").unwrap();
    assert_eq!(fake.status_reads(), FULL_WAIT_READS);
    cell.set(uart);

    // The stored copy is stalled: one status read per byte.
    let mut again = cell.get();
    again.write_all(b"bc").unwrap();
    assert_eq!(fake.status_reads(), FULL_WAIT_READS + 2);
    assert_eq!(fake.waited_ns.get(), u64::from(TIMEOUT_NS));

    // A copy is independent: recovering one leaves the other stalled.
    fake.busy_reads.set(0);
    again.write_all(b"d").unwrap();
    assert_eq!(fake.writes(), [Access::Write32(0, u32::from(b'd'))]);
    fake.busy_reads.set(u64::MAX);
    let mut stored = cell.get();
    let before = fake.status_reads();
    stored.write_all(b"e").unwrap();
    assert_eq!(
        fake.status_reads(),
        before + 1,
        "the stored copy is still stalled"
    );

    let fake = Fake::pl011();
    assert_copy(&Pl011::new(&fake, &fake));
    assert_copy(&Ns16550::new(&fake, 0, 1, &fake));
}

#[test]
fn waits_are_bounded_by_time_not_reads() {
    // Ready on the last read before the time runs out: the byte goes out, no stall.
    let fake = Fake::pl011();
    let mut uart = Pl011::new(&fake, &fake);
    fake.busy_reads.set(FULL_WAIT_READS as u64 - 1);
    uart.write_all(b"x").unwrap();
    assert_eq!(fake.status_reads(), FULL_WAIT_READS);
    assert_eq!(fake.waited_ns.get(), u64::from(TIMEOUT_NS));
    assert_eq!(fake.writes(), [Access::Write32(0, u32::from(b'x'))]);
    fake.busy_reads.set(1);
    uart.write_all(b"y").unwrap();
    assert_eq!(fake.status_reads(), FULL_WAIT_READS + 2, "not stalled");
    assert_eq!(
        fake.waited_ns.get(),
        u64::from(TIMEOUT_NS + POLL_INTERVAL_NS)
    );

    // One read later is too late: the byte is dropped after exactly the time bound.
    let fake = Fake::ns16550(0);
    let mut uart = Ns16550::new(&fake, 0, 1, &fake);
    fake.busy_reads.set(FULL_WAIT_READS as u64);
    uart.write_all(b"x").unwrap();
    assert_eq!(fake.status_reads(), FULL_WAIT_READS);
    assert_eq!(fake.waited_ns.get(), u64::from(TIMEOUT_NS));
    assert_eq!(fake.writes(), []);
}

#[test]
fn a_stalled_uart_costs_one_read_per_byte_and_no_waiting() {
    for kind in [
        ConsoleKind::Pl011,
        ConsoleKind::Ns16550 {
            reg_shift: 2,
            io_width: 4,
        },
    ] {
        let fake = match kind {
            ConsoleKind::Ns16550 { reg_shift, .. } => Fake::ns16550(reg_shift),
            _ => Fake::pl011(),
        };
        let mut uart = Uart::new(kind, &fake, &fake);
        let setup = fake.log().len();
        fake.busy_reads.set(u64::MAX);
        uart.write_all(b"a").unwrap();
        assert_eq!(fake.waited_ns.get(), u64::from(TIMEOUT_NS), "{kind:?}");
        let line = [b'.'; 1000];
        uart.write_all(&line).unwrap();
        uart.flush().unwrap();
        assert_eq!(fake.status_reads(), FULL_WAIT_READS + 1001, "{kind:?}");
        assert_eq!(fake.log().len(), setup + FULL_WAIT_READS + 1001, "{kind:?}");
        assert_eq!(fake.waited_ns.get(), u64::from(TIMEOUT_NS), "{kind:?}");
        assert_eq!(fake.writes(), [], "{kind:?}");
    }
}

#[test]
fn status_bits_other_than_the_awaited_one_are_ignored() {
    // PL011: RXFE and TXFE set, TXFF and BUSY clear: ready at once.
    let fake = Fake::new(0x18, 0xff, 0xff & !(1 << 5 | 1 << 3));
    fake.mem.borrow_mut()[0x30..0x34].copy_from_slice(&0x301u32.to_le_bytes());
    let mut uart = Pl011::new(&fake, &fake);
    uart.write_all(b"p").unwrap();
    uart.flush().unwrap();
    assert_eq!(fake.status_reads(), 2);
    assert_eq!(fake.waited_ns.get(), 0);
    assert_eq!(fake.writes(), [Access::Write32(0, u32::from(b'p'))]);

    // PL011: only BUSY set, so a byte may go but the flush waits.
    let fake = Fake::new(0x18, 1 << 3, 0);
    let mut uart = Pl011::new(&fake, &fake);
    fake.busy_reads.set(3);
    uart.write_all(b"q").unwrap();
    assert_eq!(
        fake.status_reads(),
        1,
        "BUSY alone does not hold a byte back"
    );
    uart.flush().unwrap();
    assert_eq!(fake.status_reads(), 4);

    // 16550 with 32-bit accesses: padding bits above the 8-bit LSR are ignored.
    let fake = Fake::new(5 << 2, 0xffff_ff00, 0xffff_ff60);
    let mut uart = Ns16550::new(&fake, 2, 4, &fake);
    fake.busy_reads.set(2);
    uart.write_all(b"r").unwrap();
    assert_eq!(fake.status_reads(), 3);
    assert_eq!(fake.waited_ns.get(), u64::from(2 * POLL_INTERVAL_NS));
    assert_eq!(fake.writes(), [Access::Write32(0, u32::from(b'r'))]);
}

/// One family for the common protocol tests: its kind, how the fake is set up (status
/// register, busy and ready values, other registers preset), how the status is read, and
/// the accesses that send one byte after the status read said ready.
struct Family {
    kind: ConsoleKind,
    status: usize,
    busy: u32,
    ready: u32,
    preset: &'static [(usize, u32)],
    read: fn(usize) -> Access,
    sends: fn(u8) -> Vec<Access>,
}

impl Family {
    fn fake(&self) -> Fake {
        let fake = Fake::new(self.status, self.busy, self.ready);
        for &(off, v) in self.preset {
            fake.mem.borrow_mut()[off..off + 4].copy_from_slice(&v.to_le_bytes());
        }
        fake
    }
}

const W32: fn(usize, u32) -> Access = Access::Write32;

fn families() -> Vec<Family> {
    vec![
        Family {
            // UTS.TXFULL, then clear; UCR1.UARTEN and UCR2.TXEN already set; USR2.TXDC.
            kind: ConsoleKind::Imx,
            status: 0xb4,
            busy: 1 << 4,
            ready: 0,
            preset: &[(0x80, 1), (0x84, 1 << 2 | 1), (0x98, 1 << 3)],
            read: Access::Read32,
            sends: |b| vec![W32(0x40, u32::from(b))],
        },
        Family {
            // STAT (at 0x10 + 0x04): TDRE and TC set when ready.
            kind: ConsoleKind::Lpuart {
                regs_at: 0x10,
                big_endian: false,
            },
            status: 0x14,
            busy: 0,
            ready: 1 << 23 | 1 << 22,
            preset: &[],
            read: Access::Read32,
            sends: |b| vec![W32(0x1c, u32::from(b))],
        },
        Family {
            // LS1021A: registers from 0, big-endian.
            kind: ConsoleKind::Lpuart {
                regs_at: 0,
                big_endian: true,
            },
            status: 0x04,
            busy: 0,
            ready: (1u32 << 23 | 1 << 22).swap_bytes(),
            preset: &[],
            read: Access::Read32,
            sends: |b| vec![W32(0x0c, u32::from(b).swap_bytes())],
        },
        Family {
            // STATUS.TX_FULL, then TX_EMPTY; CONTROL.TX_EN already set.
            kind: ConsoleKind::Meson,
            status: 0x0c,
            busy: 1 << 21,
            ready: 1 << 22,
            preset: &[(0x08, 1 << 12)],
            read: Access::Read32,
            sends: |b| vec![W32(0x00, u32::from(b))],
        },
        Family {
            // SR.TXFULL, then TXEMPTY; CR with TX_EN and RX_EN.
            kind: ConsoleKind::Cadence,
            status: 0x2c,
            busy: 1 << 4,
            ready: 1 << 3,
            preset: &[(0x00, 0x14)],
            read: Access::Read32,
            sends: |b| vec![W32(0x30, u32::from(b))],
        },
        Family {
            // STAT.TX_FIFO_FUL, then TX_EMP.
            kind: ConsoleKind::Armada3700,
            status: 0x0c,
            busy: 1 << 11,
            ready: 1 << 6,
            preset: &[],
            read: Access::Read32,
            sends: |b| vec![W32(0x04, u32::from(b))],
        },
        Family {
            // SCFSR (16-bit): TDFE and TEND when ready; SCFTDR 8-bit, then TDFE and TEND
            // cleared by writing them 0 and every other bit 1.
            kind: ConsoleKind::Scif,
            status: 0x10,
            busy: 0,
            ready: 1 << 6 | 1 << 5,
            preset: &[],
            read: Access::Read16,
            sends: |b| vec![Access::Write8(0x0c, b), Access::Write16(0x10, 0xff9f)],
        },
        Family {
            // Samsung with the FIFO on (UFCON.FIFOMODE): UFSTAT.TX_FULL, then clear
            // (count 0); UTXH written 8 bits wide.
            kind: ConsoleKind::Samsung,
            status: 0x18,
            busy: 1 << 24 | 0x40 << 16,
            ready: 0,
            preset: &[(0x08, 1)],
            read: Access::Read32,
            sends: |b| vec![Access::Write8(0x20, b)],
        },
        Family {
            // Samsung without the FIFO: UTRSTAT.TXFE and TXE when ready.
            kind: ConsoleKind::Samsung,
            status: 0x10,
            busy: 0,
            ready: 1 << 2 | 1 << 1,
            preset: &[],
            read: Access::Read32,
            sends: |b| vec![Access::Write8(0x20, b)],
        },
        Family {
            // STM32H7: ISR.TXE (TXFNF) and TC when ready; TDR 32 bits wide.
            kind: ConsoleKind::Stm32,
            status: 0x1c,
            busy: 0,
            ready: 1 << 7 | 1 << 6,
            preset: &[],
            read: Access::Read32,
            sends: |b| vec![W32(0x28, u32::from(b))],
        },
        Family {
            // SR.TX_EMPTY; ISR.TX_READY clear (so a busy SR is followed by an ISR read).
            kind: ConsoleKind::UartDm,
            status: 0x08,
            busy: 0,
            ready: 1 << 3,
            preset: &[],
            read: Access::Read32,
            sends: |b| vec![W32(0x10, 0x300), W32(0x40, 1), W32(0x70, u32::from(b))],
        },
        Family {
            // SE_GENI_STATUS.M_GENI_CMD_ACTIVE, then clear; M_IRQ_STATUS with the TX
            // watermark reached.
            kind: ConsoleKind::Geni,
            status: 0x40,
            busy: 1,
            ready: 0,
            preset: &[(0x610, 1 << 30)],
            read: Access::Read32,
            sends: |b| {
                vec![
                    W32(0x618, 1 << 30 | 1),
                    W32(0x270, 1),
                    W32(0x600, 1 << 27),
                    Access::Read32(0x610),
                    W32(0x700, u32::from(b)),
                    W32(0x618, 1 << 30),
                ]
            },
        },
    ]
}

#[test]
fn each_family_reads_its_status_then_sends_in_its_order() {
    for f in families() {
        let fake = f.fake();
        let mut uart = Uart::new(f.kind, &fake, &fake);
        let setup = fake.log();
        uart.write_all(b"ok").unwrap();
        let mut expected = setup.clone();
        for &b in b"ok" {
            expected.push((f.read)(f.status));
            expected.extend((f.sends)(b));
        }
        assert_eq!(fake.log(), expected, "{:?}", f.kind);
        assert_eq!(fake.waited_ns.get(), 0, "{:?}", f.kind);
    }
}

#[test]
fn each_family_waits_bounded_then_stalls_then_recovers() {
    for f in families() {
        let fake = f.fake();
        let mut uart = Uart::new(f.kind, &fake, &fake);
        // Not ready for 5 reads: 5 poll intervals, then the byte.
        fake.busy_reads.set(5);
        uart.write_all(b"x").unwrap();
        assert_eq!(fake.status_reads(), 6, "{:?}", f.kind);
        assert_eq!(
            fake.waited_ns.get(),
            u64::from(5 * POLL_INTERVAL_NS),
            "{:?}",
            f.kind
        );
        assert_eq!(fake.writes().last(), (f.sends)(b'x').last(), "{:?}", f.kind);
        assert!(!uart.stalled());

        // Dead: one time bound for the first byte, then one status read per byte.
        let fake = f.fake();
        let mut uart = Uart::new(f.kind, &fake, &fake);
        let setup_writes = fake.writes();
        fake.busy_reads.set(u64::MAX);
        uart.write_all(b"abc").unwrap();
        assert!(uart.stalled(), "{:?}", f.kind);
        assert_eq!(fake.status_reads(), FULL_WAIT_READS + 2, "{:?}", f.kind);
        assert_eq!(fake.waited_ns.get(), u64::from(TIMEOUT_NS), "{:?}", f.kind);
        assert_eq!(fake.writes(), setup_writes, "{:?}: nothing sent", f.kind);

        // Alive again: the next byte goes out and the stall is over.
        fake.busy_reads.set(0);
        uart.write_all(b"d").unwrap();
        assert!(!uart.stalled(), "{:?}", f.kind);
        assert_eq!(fake.writes().last(), (f.sends)(b'd').last(), "{:?}", f.kind);
    }
}

#[test]
fn each_family_flush_waits_for_the_transmitter() {
    for f in families() {
        let fake = f.fake();
        let mut uart = Uart::new(f.kind, &fake, &fake);
        let writes = fake.writes();
        fake.busy_reads.set(3);
        uart.flush().unwrap();
        // i.MX flushes on USR2 (plain memory here), the others on their status register.
        let reads = if f.kind == ConsoleKind::Imx { 0 } else { 4 };
        assert_eq!(fake.status_reads(), reads, "{:?}", f.kind);
        assert_eq!(
            fake.writes(),
            writes,
            "{:?}: a flush writes nothing",
            f.kind
        );
        assert!(!uart.stalled(), "{:?}", f.kind);
    }
    // i.MX: the flush waits for USR2.TXDC.
    let fake = Fake::new(0x98, 0, 1 << 3);
    fake.mem.borrow_mut()[0x80..0x88].copy_from_slice(&[1, 0, 0, 0, 5, 0, 0, 0]);
    let mut uart = Uart::new(ConsoleKind::Imx, &fake, &fake);
    fake.busy_reads.set(3);
    uart.flush().unwrap();
    assert_eq!(fake.status_reads(), 4);
}

#[test]
fn imx_meson_cadence_enable_the_transmitter_only_when_off() {
    // i.MX at QEMU's reset values: UCR1 0, UCR2 with SRST (1 = not in reset) only.
    let fake = Fake::new(0xb4, 0, 0);
    fake.mem.borrow_mut()[0x84] = 1;
    let _ = Uart::new(ConsoleKind::Imx, &fake, &fake);
    assert_eq!(fake.writes(), [W32(0x80, 1), W32(0x84, 1 << 2 | 1)]);
    // Meson: CONTROL keeps its other bits.
    let fake = Fake::new(0x0c, 0, 0);
    fake.mem.borrow_mut()[0x08..0x0c].copy_from_slice(&0x8000_0003u32.to_le_bytes());
    let _ = Uart::new(ConsoleKind::Meson, &fake, &fake);
    assert_eq!(fake.writes(), [W32(0x08, 0x8000_1003)]);
    // Cadence: TX_DIS cleared, TX_EN set, the self-clearing resets written 0.
    for (cr, written) in [
        (0x28, Some(0x18)),
        (0x3b, Some(0x18)),
        (0x14, None),
        (0x34, Some(0x14)),
    ] {
        let fake = Fake::new(0x2c, 0, 0);
        fake.mem.borrow_mut()[0..4].copy_from_slice(&u32::to_le_bytes(cr));
        let _ = Uart::new(ConsoleKind::Cadence, &fake, &fake);
        let expected: Vec<_> = written.map(|v| W32(0, v)).into_iter().collect();
        assert_eq!(fake.writes(), expected, "CR was {cr:#x}");
    }
    // GENI writes the TX watermark; the others nothing.
    let fake = Fake::new(0x40, 0, 0);
    let _ = Uart::new(ConsoleKind::Geni, &fake, &fake);
    assert_eq!(fake.writes(), [W32(0x80c, 2)]);
    for kind in [
        ConsoleKind::SbsaUart,
        ConsoleKind::UartDm,
        ConsoleKind::Armada3700,
        ConsoleKind::Scif,
        ConsoleKind::Lpuart {
            regs_at: 0x10,
            big_endian: false,
        },
    ] {
        let fake = Fake::new(0x18, 0, 0);
        let _ = Uart::new(kind, &fake, &fake);
        assert_eq!(
            fake.log(),
            [],
            "{kind:?} touches nothing before the first byte"
        );
    }
}

#[test]
fn uartdm_takes_isr_tx_ready_when_the_transmitter_is_not_empty() {
    // SR never empty (a stream of bytes), ISR.TX_READY set: the previous byte is in the
    // FIFO, so the next may go.
    let fake = Fake::new(0x08, 0, 0);
    fake.mem.borrow_mut()[0x14] = 0x80;
    let mut uart = Uart::new(ConsoleKind::UartDm, &fake, &fake);
    uart.write_all(b"q").unwrap();
    assert_eq!(
        fake.log(),
        [
            Access::Read32(0x08),
            Access::Read32(0x14),
            W32(0x10, 0x300),
            W32(0x40, 1),
            W32(0x70, u32::from(b'q'))
        ]
    );
    // Neither: a dead UARTDM costs two reads per byte once stalled.
    fake.mem.borrow_mut()[0x14] = 0;
    uart.write_all(b"r").unwrap();
    let before = fake.log().len();
    uart.write_all(b"st").unwrap();
    assert_eq!(fake.log().len(), before + 4);
    assert!(uart.stalled());
}

#[test]
fn geni_aborts_the_command_when_the_fifo_never_has_room() {
    let fake = Fake::new(0x40, 0, 0); // no command running; M_IRQ_STATUS stays 0
    let mut uart = Uart::new(ConsoleKind::Geni, &fake, &fake);
    uart.write_all(b"g").unwrap();
    assert_eq!(fake.waited_ns.get(), u64::from(TIMEOUT_NS));
    assert_eq!(
        fake.writes(),
        [
            W32(0x80c, 2),
            W32(0x618, 1 << 30 | 1),
            W32(0x270, 1),
            W32(0x600, 1 << 27),
            W32(0x604, 1 << 1), // M_GENI_CMD_ABORT; the byte is dropped
        ]
    );
    assert!(uart.stalled());
    // Stalled: the next byte's watermark wait is one read, no waiting.
    uart.write_all(b"h").unwrap();
    assert_eq!(fake.waited_ns.get(), u64::from(TIMEOUT_NS));
    assert_eq!(fake.writes().last(), Some(&W32(0x604, 1 << 1)));
}

#[test]
fn samsung_reads_the_fifo_mode_once_and_writes_nothing_to_take_over() {
    // FIFO on: UFSTAT, ready when TX_FULL is clear; off: UTRSTAT, ready when TXFE is set.
    for (ufcon, status, ready) in [(1u32, 0x18, 0), (0, 0x10, 1 << 1)] {
        let fake = Fake::new(status, 0, ready);
        fake.mem.borrow_mut()[0x08..0x0c].copy_from_slice(&ufcon.to_le_bytes());
        let mut uart = Uart::new(ConsoleKind::Samsung, &fake, &fake);
        assert_eq!(fake.log(), [Access::Read32(0x08)]);
        // UFCON changing under the driver does not change how it waits.
        fake.mem.borrow_mut()[0x08..0x0c].copy_from_slice(&(ufcon ^ 1).to_le_bytes());
        uart.write_all(b"e").unwrap();
        assert_eq!(
            fake.log()[1..],
            [Access::Read32(status), Access::Write8(0x20, b'e')],
            "UFCON {ufcon}"
        );
    }
}

#[test]
fn samsung_flush_waits_for_an_empty_fifo_or_transmitter() {
    // FIFO on: bytes still counted in UFSTAT are not sent yet, though it is not full.
    let fake = Fake::new(0x18, 3 << 16, 0);
    fake.mem.borrow_mut()[0x08] = 1;
    let mut uart = Uart::new(ConsoleKind::Samsung, &fake, &fake);
    fake.busy_reads.set(2);
    uart.write_all(b"f").unwrap();
    assert_eq!(fake.status_reads(), 1, "a FIFO with room takes the byte");
    uart.flush().unwrap();
    assert_eq!(fake.status_reads(), 1 + 2);
    // FIFO off: UTRSTAT.TXFE alone lets a byte go; the flush waits for TXE.
    let fake = Fake::new(0x10, 1 << 1, 1 << 2 | 1 << 1);
    let mut uart = Uart::new(ConsoleKind::Samsung, &fake, &fake);
    fake.busy_reads.set(3);
    uart.write_all(b"g").unwrap();
    assert_eq!(fake.status_reads(), 1);
    uart.flush().unwrap();
    assert_eq!(fake.status_reads(), 1 + 3);
    assert!(!uart.stalled());
}

#[test]
fn stm32_sends_on_txe_and_flushes_on_tc() {
    // TXE (TXFNF) set, TC clear: a byte goes at once, the flush waits for TC.
    let fake = Fake::new(0x1c, 1 << 7, 1 << 7 | 1 << 6);
    let mut uart = Uart::new(ConsoleKind::Stm32, &fake, &fake);
    assert_eq!(fake.log(), [], "nothing written to take over");
    fake.busy_reads.set(4);
    uart.write_all(b"h").unwrap();
    assert_eq!(
        fake.log(),
        [Access::Read32(0x1c), W32(0x28, u32::from(b'h'))]
    );
    uart.flush().unwrap();
    assert_eq!(fake.status_reads(), 1 + 4);
    assert_eq!(fake.waited_ns.get(), u64::from(3 * POLL_INTERVAL_NS));
}

#[test]
fn sbsa_uart_is_driven_as_a_pl011_without_the_control_register() {
    let fake = Fake::pl011();
    let mut uart = Uart::new(ConsoleKind::SbsaUart, &fake, &fake);
    uart.write_all(b"s").unwrap();
    assert_eq!(
        fake.log(),
        [Access::Read32(0x18), W32(0x00, u32::from(b's'))]
    );
}

#[path = "acpi/tables.rs"]
mod tables;

/// The consoles ACPI names reach their drivers: the kind `acpi::discover` finds is the
/// kind `Uart::new` drives, with the register layout the table gave.
#[test]
fn acpi_consoles_are_driven() {
    use mairbench_core::acpi::discover;
    use tables::{assemble, spcr, Gas, RSDP};
    let found = |interface: u8, bit_width: u8, access_size: u8, address: u64| {
        let gas = Gas {
            space: 0,
            bit_width,
            access_size,
            address,
        };
        let (mem, _) = assemble(&[spcr(interface, gas, 7)]);
        discover(&mem, RSDP).console
    };
    // EDK2's Raspberry Pi mini-UART (type 0x10, 32-bit, dword, the auxiliary block): 32-bit
    // accesses 4 bytes apart, from 0x40 past the block.
    let mini_uart = found(0x10, 32, 3, 0x3f21_5000);
    assert_eq!(mini_uart.base, 0x3f21_5040);
    // Marvell's 16550 (type 0x01, bit width 32, byte access): byte accesses 4 bytes apart.
    let marvell = found(0x01, 32, 1, 0xf051_2000);
    for (console, read, write) in [
        (
            mini_uart,
            Access::Read32(0x14),
            Access::Write32(0, u32::from(b'A')),
        ),
        (marvell, Access::Read8(0x14), Access::Write8(0, b'A')),
    ] {
        let fake = Fake::ns16550(2);
        let mut uart = Uart::new(console.kind, &fake, &fake);
        uart.write_all(b"A").unwrap();
        uart.flush().unwrap();
        assert_eq!(fake.log(), [read, write, read], "{console:?}");
    }
    // A Snapdragon's GENI engine (type 0x13): the GENI driver, which sets its TX watermark.
    let geni = found(0x13, 32, 0x20, 0x0089_4000);
    let fake = Fake::new(0x40, 0, 0);
    let uart = Uart::new(geni.kind, &fake, &fake);
    assert!(matches!(uart, Uart::Geni(_)));
    assert_eq!(fake.log(), [Access::Write32(0x80c, 2)]);
}
