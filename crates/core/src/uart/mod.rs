//! Polled console drivers, one module per UART family (docs/boards.md).
//!
//! The drivers leave baud rate, divisor and line control as the boot loader (or
//! QEMU) set them, and translate nothing: the caller sends `"\r\n"`. They only send.
//!
//! Every wait for the UART is bounded in time: the driver reads the status, and while the
//! UART is not ready waits [`POLL_INTERVAL_NS`] with its [`DelayNs`] and reads again, for
//! at most [`TIMEOUT_NS`] (10 ms) of waiting, so a dead or absent UART cannot hang the
//! firmware. 10 ms is more than a byte takes at 1200 baud and than a 32-byte FIFO takes
//! to drain at 38400 baud. When the time runs out the byte is dropped and the driver
//! becomes *stalled*: from then on it reads the status once per byte, without waiting,
//! dropping the byte unless the UART is ready, so a dead console costs one read per byte
//! instead of 10 ms (two for the Qualcomm UARTDM, whose readiness is spread over two
//! registers). The first ready status clears the stall. The stall lives in the
//! driver value: keep one driver for the console rather than building one per write. The
//! drivers are `Copy` when their [`Mmio`] and [`DelayNs`] are, so that one driver can
//! live in a `Cell`; a copy carries the stall with it, and the stall the caller keeps is
//! the one of the copy it stores back.
//!
//! Each family is a [`Regs`] implementation (its registers described as tock-registers
//! bitfields; a status read through [`Mmio`] is inspected as a
//! [`tock_registers::LocalRegisterCopy`], and writes are built from field values) driven
//! by the one [`Driver`], which owns the waiting.
use core::convert::Infallible;

use embedded_hal::delay::DelayNs;
use embedded_io::{ErrorType, Write};

use crate::platform::ConsoleKind;

mod cadence;
mod geni;
mod imx;
mod lpuart;
mod meson;
mod mvebu;
mod ns16550;
mod pl011;
mod samsung;
mod scif;
mod stm32;
mod uartdm;

pub use cadence::{Cadence, CadenceRegs};
pub use geni::{Geni, GeniRegs};
pub use imx::{Imx, ImxRegs};
pub use lpuart::{Lpuart, LpuartRegs};
pub use meson::{Meson, MesonRegs};
pub use mvebu::{Armada3700, Armada3700Regs};
pub use ns16550::{Ns16550, Ns16550Regs};
pub use pl011::{Pl011, Pl011Regs};
pub use samsung::{Samsung, SamsungRegs};
pub use scif::{Scif, ScifRegs};
pub use stm32::{Stm32, Stm32Regs};
pub use uartdm::{UartDm, UartDmRegs};

/// Register access for a memory-mapped device; offsets in bytes from the device base.
pub trait Mmio {
    /// Reads the 32-bit register at `off`.
    fn read32(&self, off: usize) -> u32;
    /// Writes the 32-bit register at `off`.
    fn write32(&mut self, off: usize, v: u32);
    /// Reads the 16-bit register at `off`.
    fn read16(&self, off: usize) -> u16;
    /// Writes the 16-bit register at `off`.
    fn write16(&mut self, off: usize, v: u16);
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

/// Bounded waiting with the stall state, shared by all drivers.
#[derive(Debug, Clone, Copy)]
pub struct Poller<D: DelayNs> {
    delay: D,
    stalled: bool,
}

impl<D: DelayNs> Poller<D> {
    /// A poller waiting with `delay`, not stalled.
    pub fn new(delay: D) -> Self {
        Poller {
            delay,
            stalled: false,
        }
    }

    /// Whether the last wait timed out (or found the UART not ready while stalled).
    pub fn stalled(&self) -> bool {
        self.stalled
    }

    /// Marks the poller stalled: the next wait polls once, without waiting.
    pub(crate) fn stall(&mut self) {
        self.stalled = true;
    }

    /// Polls `ready`, [`POLL_INTERVAL_NS`] apart, until it holds or [`TIMEOUT_NS`] of
    /// waiting have passed; polls it once, without waiting, when stalled. Returns whether
    /// it held.
    ///
    /// `ready` is a trait object and the loop is never inlined: one copy of it serves every
    /// family's waits, instead of one per family and call (which cost the firmware about
    /// 1 KiB); a status read through a call is still far shorter than a byte time.
    #[inline(never)]
    pub fn wait(&mut self, ready: &mut dyn FnMut() -> bool) -> bool {
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

/// The transmit protocol of one UART family, over its registers.
pub trait Regs {
    /// Whether the UART can take a byte now (one status read where the family allows).
    fn ready(&self) -> bool;
    /// Hands `byte` to the UART; called only after [`ready`](Self::ready) held.
    fn send(&mut self, byte: u8);
    /// Whether everything handed over has left the UART.
    fn idle(&self) -> bool;
    /// Sends `byte`, waiting through `poll` for [`ready`](Self::ready) first; the byte is
    /// dropped when the wait times out. A family whose protocol has more than one wait per
    /// byte overrides it.
    fn put<D: DelayNs>(&mut self, poll: &mut Poller<D>, byte: u8) {
        if poll.wait(&mut || self.ready()) {
            self.send(byte);
        }
    }
}

/// A console driver: a family's [`Regs`] and the bounded waiting.
///
/// `Clone` and `Copy` when `R` and `D` are: a copy carries the stall state with it.
#[derive(Debug, Clone, Copy)]
pub struct Driver<R: Regs, D: DelayNs> {
    regs: R,
    poll: Poller<D>,
}

impl<R: Regs, D: DelayNs> Driver<R, D> {
    /// The driver of `regs`, waiting with `delay`.
    pub fn with_regs(regs: R, delay: D) -> Self {
        Driver {
            regs,
            poll: Poller::new(delay),
        }
    }

    /// Whether the driver is stalled (see the module documentation).
    pub fn stalled(&self) -> bool {
        self.poll.stalled()
    }
}

impl<R: Regs, D: DelayNs> ErrorType for Driver<R, D> {
    type Error = Infallible;
}

impl<R: Regs, D: DelayNs> Write for Driver<R, D> {
    /// Sends all of `buf`, waiting for the UART before each byte.
    fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        buf.iter().for_each(|&b| self.regs.put(&mut self.poll, b));
        Ok(buf.len())
    }

    /// Waits until the UART has sent everything.
    fn flush(&mut self) -> Result<(), Infallible> {
        let regs = &self.regs;
        self.poll.wait(&mut || regs.idle());
        Ok(())
    }
}

/// Every console driver, chosen from a discovered [`ConsoleKind`].
///
/// `Clone` and `Copy` when `M` and `D` are, so the firmware can keep its one console
/// driver, stall state included, in a global cell.
#[derive(Debug, Clone, Copy)]
pub enum Uart<M: Mmio, D: DelayNs> {
    /// An Arm PL011 (or SBSA generic UART).
    Pl011(Pl011<M, D>),
    /// A 16550.
    Ns16550(Ns16550<M, D>),
    /// An NXP i.MX UART.
    Imx(Imx<M, D>),
    /// An NXP LPUART (32-bit registers).
    Lpuart(Lpuart<M, D>),
    /// An Amlogic meson UART.
    Meson(Meson<M, D>),
    /// A Qualcomm GENI serial engine in UART mode.
    Geni(Geni<M, D>),
    /// A Qualcomm UARTDM.
    UartDm(UartDm<M, D>),
    /// A Cadence UART (Xilinx Zynq UltraScale+).
    Cadence(Cadence<M, D>),
    /// A Marvell Armada 3700 UART.
    Armada3700(Armada3700<M, D>),
    /// A Renesas SCIF.
    Scif(Scif<M, D>),
    /// A Samsung Exynos UART.
    Samsung(Samsung<M, D>),
    /// An ST STM32 USART (STM32H7 layout).
    Stm32(Stm32<M, D>),
}

/// Runs `$body` with `$u` bound to the driver inside any [`Uart`].
macro_rules! each_uart {
    ($uart:expr, $u:ident => $body:expr) => {
        match $uart {
            Uart::Pl011($u) => $body,
            Uart::Ns16550($u) => $body,
            Uart::Imx($u) => $body,
            Uart::Lpuart($u) => $body,
            Uart::Meson($u) => $body,
            Uart::Geni($u) => $body,
            Uart::UartDm($u) => $body,
            Uart::Cadence($u) => $body,
            Uart::Armada3700($u) => $body,
            Uart::Scif($u) => $body,
            Uart::Samsung($u) => $body,
            Uart::Stm32($u) => $body,
        }
    };
}

impl<M: Mmio, D: DelayNs> Uart<M, D> {
    /// The driver for `kind`, over `mmio` (which maps the UART's registers), waiting with
    /// `delay`.
    pub fn new(kind: ConsoleKind, mmio: M, delay: D) -> Self {
        match kind {
            ConsoleKind::Pl011 => Uart::Pl011(Pl011::new(mmio, delay)),
            ConsoleKind::SbsaUart => Uart::Pl011(Pl011::sbsa(mmio, delay)),
            ConsoleKind::Ns16550 {
                reg_shift,
                io_width,
            } => Uart::Ns16550(Ns16550::new(mmio, reg_shift, io_width, delay)),
            ConsoleKind::Imx => Uart::Imx(Imx::new(mmio, delay)),
            ConsoleKind::Lpuart {
                regs_at,
                big_endian,
            } => Uart::Lpuart(Lpuart::new(mmio, regs_at, big_endian, delay)),
            ConsoleKind::Meson => Uart::Meson(Meson::new(mmio, delay)),
            ConsoleKind::Geni => Uart::Geni(Geni::new(mmio, delay)),
            ConsoleKind::UartDm => Uart::UartDm(UartDm::new(mmio, delay)),
            ConsoleKind::Cadence => Uart::Cadence(Cadence::new(mmio, delay)),
            ConsoleKind::Armada3700 => Uart::Armada3700(Armada3700::new(mmio, delay)),
            ConsoleKind::Scif => Uart::Scif(Scif::new(mmio, delay)),
            ConsoleKind::Samsung => Uart::Samsung(Samsung::new(mmio, delay)),
            ConsoleKind::Stm32 => Uart::Stm32(Stm32::new(mmio, delay)),
        }
    }

    /// Whether the driver is stalled (see the module documentation).
    pub fn stalled(&self) -> bool {
        each_uart!(self, u => u.stalled())
    }
}

impl<M: Mmio, D: DelayNs> ErrorType for Uart<M, D> {
    type Error = Infallible;
}

impl<M: Mmio, D: DelayNs> Write for Uart<M, D> {
    fn write(&mut self, buf: &[u8]) -> Result<usize, Infallible> {
        each_uart!(self, u => u.write(buf))
    }

    fn flush(&mut self) -> Result<(), Infallible> {
        each_uart!(self, u => u.flush())
    }
}
