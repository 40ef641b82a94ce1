//! Polled console drivers for the PL011 and 16550-compatible UARTs.
//!
//! The drivers leave baud rate, divisor and line control as the boot loader (or
//! QEMU) set them, and translate nothing: the caller sends `"\r\n"`.
//!
//! Every wait for the UART is bounded by [`POLL_BUDGET`] status reads, so a dead
//! or absent UART cannot hang the firmware. When the budget runs out the byte is
//! dropped and the driver becomes *stalled*: from then on it reads the status
//! once per byte, dropping the byte unless the UART is ready, so a dead console
//! costs one read per byte instead of a million. The first ready status clears
//! the stall. The stall lives in the driver value: keep one driver for the
//! console rather than building one per write. The drivers are `Copy` when their
//! [`Mmio`] is, so that one driver can live in a `Cell`; a copy carries the stall
//! with it, and the stall the caller keeps is the one of the copy it stores back.
use core::convert::Infallible;

use embedded_io::{ErrorType, Write};

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

/// Status reads before a wait for the UART gives up.
pub const POLL_BUDGET: u32 = 1_000_000;

/// Bounded waiting, shared by both drivers.
#[derive(Debug, Clone, Copy, Default)]
struct Poller {
    stalled: bool,
}

impl Poller {
    /// Polls `ready` up to [`POLL_BUDGET`] times (once when stalled).
    fn wait(&mut self, mut ready: impl FnMut() -> bool) -> bool {
        let budget = if self.stalled { 1 } else { POLL_BUDGET };
        self.stalled = !(0..budget).any(|_| ready());
        !self.stalled
    }
}

const PL011_DR: usize = 0x000;
const PL011_FR: usize = 0x018;
const PL011_CR: usize = 0x030;
const PL011_FR_BUSY: u32 = 1 << 3;
const PL011_FR_TXFF: u32 = 1 << 5;
const PL011_CR_UARTEN: u32 = 1 << 0;
const PL011_CR_TXE: u32 = 1 << 8;

/// Arm PL011 UART, with 32-bit register accesses.
///
/// `Clone` and `Copy` when `M` is: a copy carries the stall state with it.
#[derive(Debug, Clone, Copy)]
pub struct Pl011<M: Mmio> {
    mmio: M,
    poll: Poller,
}

impl<M: Mmio> Pl011<M> {
    /// Takes over a PL011 whose baud rate and line control are already set.
    /// Sets `UARTCR.UARTEN` and `UARTCR.TXE` if either is clear (keeping the
    /// other bits); writes nothing else.
    pub fn new(mut mmio: M) -> Self {
        let cr = mmio.read32(PL011_CR);
        let on = PL011_CR_UARTEN | PL011_CR_TXE;
        if cr & on != on {
            mmio.write32(PL011_CR, cr | on);
        }
        Pl011 {
            mmio,
            poll: Poller::default(),
        }
    }

    fn put(&mut self, byte: u8) {
        let mmio = &self.mmio;
        if self
            .poll
            .wait(|| mmio.read32(PL011_FR) & PL011_FR_TXFF == 0)
        {
            self.mmio.write32(PL011_DR, u32::from(byte));
        }
    }
}

impl<M: Mmio> ErrorType for Pl011<M> {
    type Error = Infallible;
}

impl<M: Mmio> Write for Pl011<M> {
    /// Sends all of `buf`, waiting while the transmit FIFO is full.
    fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        buf.iter().for_each(|&b| self.put(b));
        Ok(buf.len())
    }

    /// Waits until the UART has sent everything (`UARTFR.BUSY` clear).
    fn flush(&mut self) -> Result<(), Infallible> {
        let mmio = &self.mmio;
        self.poll
            .wait(|| mmio.read32(PL011_FR) & PL011_FR_BUSY == 0);
        Ok(())
    }
}

const NS16550_THR: u8 = 0;
const NS16550_LSR: u8 = 5;
const NS16550_LSR_THRE: u8 = 1 << 5;
const NS16550_LSR_TEMT: u8 = 1 << 6;
const NS16550_MAX_REG_SHIFT: u8 = 7;

/// 16550-compatible UART (8250, DesignWare APB UART, ...).
///
/// `Clone` and `Copy` when `M` is: a copy carries the stall state with it.
#[derive(Debug, Clone, Copy)]
pub struct Ns16550<M: Mmio> {
    regs: Ns16550Regs<M>,
    poll: Poller,
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
}

impl<M: Mmio> Ns16550<M> {
    /// Takes over a 16550 whose divisor and line control are already set; writes
    /// nothing. Register `i` is at byte offset `i << reg_shift` (`reg_shift`
    /// above 7 is taken as 7) and is accessed with 32-bit accesses when
    /// `io_width` is 4, 8-bit accesses otherwise.
    pub fn new(mmio: M, reg_shift: u8, io_width: u8) -> Self {
        let regs = Ns16550Regs {
            mmio,
            reg_shift: reg_shift.min(NS16550_MAX_REG_SHIFT),
            wide: io_width == 4,
        };
        Ns16550 {
            regs,
            poll: Poller::default(),
        }
    }

    fn put(&mut self, byte: u8) {
        let regs = &self.regs;
        if self
            .poll
            .wait(|| regs.read(NS16550_LSR) & NS16550_LSR_THRE != 0)
        {
            self.regs.write(NS16550_THR, byte);
        }
    }
}

impl<M: Mmio> ErrorType for Ns16550<M> {
    type Error = Infallible;
}

impl<M: Mmio> Write for Ns16550<M> {
    /// Sends all of `buf`, waiting for `LSR.THRE` before each byte.
    fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        buf.iter().for_each(|&b| self.put(b));
        Ok(buf.len())
    }

    /// Waits until the UART has sent everything (`LSR.TEMT` set).
    fn flush(&mut self) -> Result<(), Infallible> {
        let regs = &self.regs;
        self.poll
            .wait(|| regs.read(NS16550_LSR) & NS16550_LSR_TEMT != 0);
        Ok(())
    }
}

/// Either console driver, chosen from a discovered [`ConsoleKind`].
///
/// `Clone` and `Copy` when `M` is, so the firmware can keep its one console
/// driver, stall state included, in a global cell.
#[derive(Debug, Clone, Copy)]
pub enum Uart<M: Mmio> {
    /// A PL011.
    Pl011(Pl011<M>),
    /// A 16550.
    Ns16550(Ns16550<M>),
}

impl<M: Mmio> Uart<M> {
    /// The driver for `kind`, over `mmio` (which maps the UART's registers).
    pub fn new(kind: ConsoleKind, mmio: M) -> Self {
        match kind {
            ConsoleKind::Pl011 => Uart::Pl011(Pl011::new(mmio)),
            ConsoleKind::Ns16550 {
                reg_shift,
                io_width,
            } => Uart::Ns16550(Ns16550::new(mmio, reg_shift, io_width)),
        }
    }
}

impl<M: Mmio> ErrorType for Uart<M> {
    type Error = Infallible;
}

impl<M: Mmio> Write for Uart<M> {
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
