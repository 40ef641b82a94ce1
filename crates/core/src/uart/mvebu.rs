//! Marvell Armada 3700 UART (`marvell,armada-3700-uart`, the standard UART1; the
//! extended UART2, `marvell,armada-3700-uart-ext`, has another layout and is not driven).
//!
//! Register layout as Linux `drivers/tty/serial/mvebu-uart.c` (its standard layout) and
//! U-Boot `drivers/serial/serial_mvebu_a3700.c` use it: TSH at 0x04, STAT at 0x0C.
use embedded_hal::delay::DelayNs;
use tock_registers::LocalRegisterCopy;

use super::{Driver, Mmio, Regs};

mod bits {
    #![allow(missing_docs)]
    tock_registers::register_bitfields! {u32,
        /// TSH, transmitter holding register.
        pub TSH [
            /// The byte to send.
            DATA OFFSET(0) NUMBITS(8) [],
        ],
        /// STAT, status register.
        pub STAT [
            /// Transmitter empty: FIFO and shift register.
            TX_EMP OFFSET(6) NUMBITS(1) [],
            /// Transmit FIFO full.
            TX_FIFO_FUL OFFSET(11) NUMBITS(1) [],
        ]
    }
}

use bits::{STAT, TSH};

const TSH_OFF: usize = 0x04;
const STAT_OFF: usize = 0x0c;

/// The Armada 3700 UART's registers, 32-bit accesses.
#[derive(Debug, Clone, Copy)]
pub struct Armada3700Regs<M: Mmio> {
    mmio: M,
}

/// Marvell Armada 3700 UART driver.
pub type Armada3700<M, D> = Driver<Armada3700Regs<M>, D>;

impl<M: Mmio> Armada3700Regs<M> {
    fn status(&self) -> LocalRegisterCopy<u32, STAT::Register> {
        LocalRegisterCopy::new(self.mmio.read32(STAT_OFF))
    }
}

impl<M: Mmio> Regs for Armada3700Regs<M> {
    fn ready(&self) -> bool {
        !self.status().is_set(STAT::TX_FIFO_FUL)
    }

    fn send(&mut self, byte: u8) {
        let t = TSH::DATA.val(u32::from(byte));
        self.mmio.write32(TSH_OFF, t.into());
    }

    fn idle(&self) -> bool {
        self.status().is_set(STAT::TX_EMP)
    }
}

impl<M: Mmio, D: DelayNs> Driver<Armada3700Regs<M>, D> {
    /// Takes over an Armada 3700 UART whose baud rate is already set, waiting with
    /// `delay`; writes nothing.
    pub fn new(mmio: M, delay: D) -> Self {
        Driver::with_regs(Armada3700Regs { mmio }, delay)
    }
}
