//! NXP LPUART with 32-bit registers: `fsl,imx7ulp-lpuart` and the i.MX 8 / i.MX 9 parts
//! listing it or `fsl,imx8qxp-lpuart` (registers from offset 0x10, after the VERID,
//! PARAM, GLOBAL and PINCFG registers), `fsl,ls1028a-lpuart` (from offset 0) and
//! `fsl,ls1021a-lpuart` (from offset 0, big-endian). The 8-bit LPUART of Vybrid
//! (`fsl,vf610-lpuart`) is not driven.
//!
//! Registers from the *i.MX 8ULP Reference Manual* (NXP IMX8ULPRM), chapter "LPUART":
//! STAT at 0x14, DATA at 0x1C; cross-checked with Linux
//! `drivers/tty/serial/fsl_lpuart.c` (its `lpuart32` early consoles, `IMX_REG_OFF`) and
//! U-Boot `drivers/serial/serial_lpuart.c`.
use embedded_hal::delay::DelayNs;
use tock_registers::LocalRegisterCopy;

use super::{Driver, Mmio, Regs};

mod bits {
    #![allow(missing_docs)]
    tock_registers::register_bitfields! {u32,
        /// STAT, status register.
        pub STAT [
            /// Transmission complete: nothing left to send.
            TC OFFSET(22) NUMBITS(1) [],
            /// Transmit data register empty: room for a byte.
            TDRE OFFSET(23) NUMBITS(1) [],
        ],
        /// DATA, data register.
        pub DATA [
            /// The byte to send.
            R0T0 OFFSET(0) NUMBITS(8) [],
        ]
    }
}

use bits::{DATA, STAT};

/// Offsets from the first of the LPUART32 registers (BAUD).
const STAT_OFF: usize = 0x04;
const DATA_OFF: usize = 0x0c;

/// An LPUART's registers: 32-bit, from `regs_at`, little- or big-endian.
#[derive(Debug, Clone, Copy)]
pub struct LpuartRegs<M: Mmio> {
    mmio: M,
    regs_at: usize,
    big_endian: bool,
}

/// NXP LPUART driver.
pub type Lpuart<M, D> = Driver<LpuartRegs<M>, D>;

impl<M: Mmio> LpuartRegs<M> {
    fn read(&self, off: usize) -> u32 {
        let v = self.mmio.read32(self.regs_at.saturating_add(off));
        if self.big_endian {
            v.swap_bytes()
        } else {
            v
        }
    }

    fn write(&mut self, off: usize, v: u32) {
        let v = if self.big_endian { v.swap_bytes() } else { v };
        self.mmio.write32(self.regs_at.saturating_add(off), v);
    }

    fn status(&self) -> LocalRegisterCopy<u32, STAT::Register> {
        LocalRegisterCopy::new(self.read(STAT_OFF))
    }
}

impl<M: Mmio> Regs for LpuartRegs<M> {
    fn ready(&self) -> bool {
        self.status().is_set(STAT::TDRE)
    }

    fn send(&mut self, byte: u8) {
        let data = DATA::R0T0.val(u32::from(byte));
        self.write(DATA_OFF, data.into());
    }

    fn idle(&self) -> bool {
        self.status().is_set(STAT::TC)
    }
}

impl<M: Mmio, D: DelayNs> Driver<LpuartRegs<M>, D> {
    /// Takes over an LPUART whose baud rate and frame format are already set, its
    /// registers from byte `regs_at` (0 or 0x10), big-endian if `big_endian`, waiting
    /// with `delay`; writes nothing.
    pub fn new(mmio: M, regs_at: u8, big_endian: bool, delay: D) -> Self {
        let regs = LpuartRegs {
            mmio,
            regs_at: usize::from(regs_at),
            big_endian,
        };
        Driver::with_regs(regs, delay)
    }
}
