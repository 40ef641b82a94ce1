//! Polled console drivers for the PL011 and 16550-compatible UARTs.
//!
//! The drivers leave baud rate, divisor and line control as the boot loader (or
//! QEMU) set them, and translate nothing: the caller sends `"\r\n"`.
//!
//! Every wait for the UART is bounded in time: the driver reads the status, and while the
//! UART is not ready waits [`POLL_INTERVAL_NS`] with its [`DelayNs`] and reads again, for
//! at most [`TIMEOUT_NS`] (10 ms) of waiting, so a dead or absent UART cannot hang the
//! firmware. 10 ms is more than a byte takes at 1200 baud and than a 32-byte FIFO takes
//! to drain at 38400 baud. When the time runs out the byte is dropped and the driver
//! becomes *stalled*: from then on it reads the status once per byte, without waiting,
//! dropping the byte unless the UART is ready, so a dead console costs one read per byte
//! instead of 10 ms. The first ready status clears the stall. The stall lives in the
//! driver value: keep one driver for the console rather than building one per write. The
//! drivers are `Copy` when their [`Mmio`] and [`DelayNs`] are, so that one driver can
//! live in a `Cell`; a copy carries the stall with it, and the stall the caller keeps is
//! the one of the copy it stores back.
//!
//! The registers are described as tock-registers bitfields; a status read through
//! [`Mmio`] is inspected as a [`LocalRegisterCopy`], and writes are built from field
//! values.
use core::convert::Infallible;

use embedded_hal::delay::DelayNs;
use embedded_io::{ErrorType, Write};
use tock_registers::LocalRegisterCopy;

use crate::platform::ConsoleKind;

/// Register access for a memory-mapped device; offsets in bytes from the device base.
pub trait Mmio {
    /// Reads the 32-bit register at `off`.
    fn read32(&self, off: usize) -> u32;
    /// Writes the 32-bit register at `off`.
    fn write32(&mut self, off: usize, v: u32);
    /// Reads the 8-bit register at `off`.
    fn read8(&self, off: usize) -> u8;
    /// Writes the 8-bit register at `off`.
    fn write8(&mut self, off: usize, v: u8);
}

/// Time a wait for the UART may take before it gives up, in nanoseconds (10 ms).
pub const TIMEOUT_NS: u32 = 10_000_000;

/// Delay between two status reads while the UART is not ready, in nanoseconds (1 µs,
/// a small fraction of a byte time at 115200 baud, 87 µs).
pub const POLL_INTERVAL_NS: u32 = 1_000;

/// Bounded waiting, shared by both drivers.
#[derive(Debug, Clone, Copy)]
struct Poller<D: DelayNs> {
    delay: D,
    stalled: bool,
}

impl<D: DelayNs> Poller<D> {
    fn new(delay: D) -> Self {
        Poller {
            delay,
            stalled: false,
        }
    }

    /// Polls `ready`, [`POLL_INTERVAL_NS`] apart, until it holds or [`TIMEOUT_NS`] of
    /// waiting have passed; polls it once, without waiting, when stalled.
    fn wait(&mut self, mut ready: impl FnMut() -> bool) -> bool {
        let mut waited: u32 = 0;
        loop {
            if ready() {
                self.stalled = false;
                return true;
            }
            if self.stalled || waited >= TIMEOUT_NS {
                self.stalled = true;
                return false;
            }
            self.delay.delay_ns(POLL_INTERVAL_NS);
            waited = waited.saturating_add(POLL_INTERVAL_NS);
        }
    }
}

/// The registers the drivers touch, as tock-registers bitfields.
mod bits {
    #![allow(missing_docs)]
    tock_registers::register_bitfields! {u32,
        /// PL011 UARTDR, data register.
        pub DR [
            /// The byte to send.
            DATA OFFSET(0) NUMBITS(8) [],
        ],
        /// PL011 UARTFR, flag register.
        pub FR [
            /// The UART is sending (data in the FIFO or the shift register).
            BUSY OFFSET(3) NUMBITS(1) [],
            /// Transmit FIFO full.
            TXFF OFFSET(5) NUMBITS(1) [],
        ],
        /// PL011 UARTCR, control register.
        pub CR [
            /// UART enable.
            UARTEN OFFSET(0) NUMBITS(1) [],
            /// Transmit enable.
            TXE OFFSET(8) NUMBITS(1) [],
        ]
    }
    tock_registers::register_bitfields! {u8,
        /// 16550 THR, transmit holding register (DLAB = 0).
        pub THR [
            /// The byte to send.
            DATA OFFSET(0) NUMBITS(8) [],
        ],
        /// 16550 LSR, line status register.
        pub LSR [
            /// Transmit holding register empty: room for a byte.
            THRE OFFSET(5) NUMBITS(1) [],
            /// Transmitter empty: holding and shift registers both empty.
            TEMT OFFSET(6) NUMBITS(1) [],
        ]
    }
}

use bits::{CR, DR, FR, LSR, THR};

/// Byte offsets of the PL011 registers.
const PL011_DR: usize = 0x000;
const PL011_FR: usize = 0x018;
const PL011_CR: usize = 0x030;

/// Arm PL011 UART, with 32-bit register accesses.
///
/// `Clone` and `Copy` when `M` and `D` are: a copy carries the stall state with it.
#[derive(Debug, Clone, Copy)]
pub struct Pl011<M: Mmio, D: DelayNs> {
    mmio: M,
    poll: Poller<D>,
}

impl<M: Mmio, D: DelayNs> Pl011<M, D> {
    /// Takes over a PL011 whose baud rate and line control are already set, waiting with
    /// `delay`. Sets `UARTCR.UARTEN` and `UARTCR.TXE` if either is clear (keeping the
    /// other bits); writes nothing else.
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "FieldValue's `+` combines disjoint fields"
    )]
    pub fn new(mut mmio: M, delay: D) -> Self {
        let mut cr = LocalRegisterCopy::<u32, CR::Register>::new(mmio.read32(PL011_CR));
        let on = CR::UARTEN::SET + CR::TXE::SET;
        if !cr.matches_all(on) {
            cr.modify(on);
            mmio.write32(PL011_CR, cr.get());
        }
        Pl011 {
            mmio,
            poll: Poller::new(delay),
        }
    }

    fn flags(mmio: &M) -> LocalRegisterCopy<u32, FR::Register> {
        LocalRegisterCopy::new(mmio.read32(PL011_FR))
    }

    fn put(&mut self, byte: u8) {
        let mmio = &self.mmio;
        if self.poll.wait(|| !Self::flags(mmio).is_set(FR::TXFF)) {
            let dr = DR::DATA.val(u32::from(byte));
            self.mmio.write32(PL011_DR, dr.into());
        }
    }
}

impl<M: Mmio, D: DelayNs> ErrorType for Pl011<M, D> {
    type Error = Infallible;
}

impl<M: Mmio, D: DelayNs> Write for Pl011<M, D> {
    /// Sends all of `buf`, waiting while the transmit FIFO is full.
    fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        buf.iter().for_each(|&b| self.put(b));
        Ok(buf.len())
    }

    /// Waits until the UART has sent everything (`UARTFR.BUSY` clear).
    fn flush(&mut self) -> Result<(), Infallible> {
        let mmio = &self.mmio;
        self.poll.wait(|| !Self::flags(mmio).is_set(FR::BUSY));
        Ok(())
    }
}

/// Register numbers of the 16550 (before `reg_shift`).
const NS16550_THR: u8 = 0;
const NS16550_LSR: u8 = 5;
const NS16550_MAX_REG_SHIFT: u8 = 7;

/// 16550-compatible UART (8250, DesignWare APB UART, ...).
///
/// `Clone` and `Copy` when `M` and `D` are: a copy carries the stall state with it.
#[derive(Debug, Clone, Copy)]
pub struct Ns16550<M: Mmio, D: DelayNs> {
    regs: Ns16550Regs<M>,
    poll: Poller<D>,
}

#[derive(Debug, Clone, Copy)]
struct Ns16550Regs<M: Mmio> {
    mmio: M,
    reg_shift: u8,
    wide: bool,
}

impl<M: Mmio> Ns16550Regs<M> {
    fn read(&self, reg: u8) -> u8 {
        let off = usize::from(reg) << self.reg_shift;
        if self.wide {
            // The registers are 8 bits wide; the rest of a 32-bit access is padding.
            self.mmio.read32(off) as u8
        } else {
            self.mmio.read8(off)
        }
    }

    fn write(&mut self, reg: u8, v: u8) {
        let off = usize::from(reg) << self.reg_shift;
        if self.wide {
            self.mmio.write32(off, u32::from(v));
        } else {
            self.mmio.write8(off, v);
        }
    }

    fn line_status(&self) -> LocalRegisterCopy<u8, LSR::Register> {
        LocalRegisterCopy::new(self.read(NS16550_LSR))
    }
}

impl<M: Mmio, D: DelayNs> Ns16550<M, D> {
    /// Takes over a 16550 whose divisor and line control are already set, waiting with
    /// `delay`; writes nothing. Register `i` is at byte offset `i << reg_shift`
    /// (`reg_shift` above 7 is taken as 7) and is accessed with 32-bit accesses when
    /// `io_width` is 4, 8-bit accesses otherwise.
    pub fn new(mmio: M, reg_shift: u8, io_width: u8, delay: D) -> Self {
        let regs = Ns16550Regs {
            mmio,
            reg_shift: reg_shift.min(NS16550_MAX_REG_SHIFT),
            wide: io_width == 4,
        };
        Ns16550 {
            regs,
            poll: Poller::new(delay),
        }
    }

    fn put(&mut self, byte: u8) {
        let regs = &self.regs;
        if self.poll.wait(|| regs.line_status().is_set(LSR::THRE)) {
            let thr = THR::DATA.val(byte);
            self.regs.write(NS16550_THR, thr.into());
        }
    }
}

impl<M: Mmio, D: DelayNs> ErrorType for Ns16550<M, D> {
    type Error = Infallible;
}

impl<M: Mmio, D: DelayNs> Write for Ns16550<M, D> {
    /// Sends all of `buf`, waiting for `LSR.THRE` before each byte.
    fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        buf.iter().for_each(|&b| self.put(b));
        Ok(buf.len())
    }

    /// Waits until the UART has sent everything (`LSR.TEMT` set).
    fn flush(&mut self) -> Result<(), Infallible> {
        let regs = &self.regs;
        self.poll.wait(|| regs.line_status().is_set(LSR::TEMT));
        Ok(())
    }
}

/// Either console driver, chosen from a discovered [`ConsoleKind`].
///
/// `Clone` and `Copy` when `M` and `D` are, so the firmware can keep its one console
/// driver, stall state included, in a global cell.
#[derive(Debug, Clone, Copy)]
pub enum Uart<M: Mmio, D: DelayNs> {
    /// A PL011.
    Pl011(Pl011<M, D>),
    /// A 16550.
    Ns16550(Ns16550<M, D>),
}

impl<M: Mmio, D: DelayNs> Uart<M, D> {
    /// The driver for `kind`, over `mmio` (which maps the UART's registers), waiting with
    /// `delay`.
    pub fn new(kind: ConsoleKind, mmio: M, delay: D) -> Self {
        match kind {
            ConsoleKind::Pl011 => Uart::Pl011(Pl011::new(mmio, delay)),
            ConsoleKind::Ns16550 {
                reg_shift,
                io_width,
            } => Uart::Ns16550(Ns16550::new(mmio, reg_shift, io_width, delay)),
        }
    }
}

impl<M: Mmio, D: DelayNs> ErrorType for Uart<M, D> {
    type Error = Infallible;
}

impl<M: Mmio, D: DelayNs> Write for Uart<M, D> {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        match self {
            Uart::Pl011(u) => u.write(buf),
            Uart::Ns16550(u) => u.write(buf),
        }
    }

    fn flush(&mut self) -> Result<(), Infallible> {
        match self {
            Uart::Pl011(u) => u.flush(),
            Uart::Ns16550(u) => u.flush(),
        }
    }
}
