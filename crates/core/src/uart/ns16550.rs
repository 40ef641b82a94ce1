//! 16550-compatible UARTs (8250, DesignWare APB UART, the Pi's mini-UART, TI, Tegra,
//! MediaTek, Rockchip, ...), with the register spacing and access width of the device tree.
//!
//! Registers from the *PC16550D* data sheet (National Semiconductor); cross-checked with
//! Linux `drivers/tty/serial/8250/8250_port.c` and U-Boot `drivers/serial/ns16550.c`.
use embedded_hal::delay::DelayNs;
use tock_registers::LocalRegisterCopy;

use super::{Driver, Mmio, Regs};

mod bits {
    #![allow(missing_docs)]
    tock_registers::register_bitfields! {u8,
        /// THR, transmit holding register (DLAB = 0).
        pub THR [
            /// The byte to send.
            DATA OFFSET(0) NUMBITS(8) [],
        ],
        /// LSR, line status register.
        pub LSR [
            /// Transmit holding register empty: room for a byte.
            THRE OFFSET(5) NUMBITS(1) [],
            /// Transmitter empty: holding and shift registers both empty.
            TEMT OFFSET(6) NUMBITS(1) [],
        ]
    }
}

use bits::{LSR, THR};

/// Register numbers of the 16550 (before `reg_shift`).
const THR_REG: u8 = 0;
const LSR_REG: u8 = 5;
/// Largest `reg_shift` taken.
pub(crate) const MAX_REG_SHIFT: u8 = 7;

/// A 16550's registers: number `i` at byte offset `i << reg_shift`, 8 or 32 bits wide.
#[derive(Debug, Clone, Copy)]
pub struct Ns16550Regs<M: Mmio> {
    mmio: M,
    reg_shift: u8,
    wide: bool,
}

/// 16550-compatible UART driver.
pub type Ns16550<M, D> = Driver<Ns16550Regs<M>, D>;

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
        LocalRegisterCopy::new(self.read(LSR_REG))
    }
}

impl<M: Mmio> Regs for Ns16550Regs<M> {
    fn ready(&self) -> bool {
        self.line_status().is_set(LSR::THRE)
    }

    fn send(&mut self, byte: u8) {
        let thr = THR::DATA.val(byte);
        self.write(THR_REG, thr.into());
    }

    fn idle(&self) -> bool {
        self.line_status().is_set(LSR::TEMT)
    }
}

impl<M: Mmio, D: DelayNs> Driver<Ns16550Regs<M>, D> {
    /// Takes over a 16550 whose divisor and line control are already set, waiting with
    /// `delay`; writes nothing. Register `i` is at byte offset `i << reg_shift`
    /// (`reg_shift` above 7 is taken as 7) and is accessed with 32-bit accesses when
    /// `io_width` is 4, 8-bit accesses otherwise.
    pub fn new(mmio: M, reg_shift: u8, io_width: u8, delay: D) -> Self {
        let regs = Ns16550Regs {
            mmio,
            reg_shift: reg_shift.min(MAX_REG_SHIFT),
            wide: io_width == 4,
        };
        Driver::with_regs(regs, delay)
    }
}
