//! Samsung Exynos UART (`samsung,exynos4210-uart`, which the Exynos 4 and 5 trees name),
//! the exynos4210 register layout.
//!
//! Registers as Linux `drivers/tty/serial/samsung_tty.c` and
//! `include/linux/serial_s3c.h` give them: UFCON at 0x08 (bit 0, FIFO mode), UTRSTAT at
//! 0x10 (bit 1 TXFE, transmit buffer empty; bit 2 TXE, transmitter empty), UFSTAT at 0x18
//! (bits 16..24 the TX FIFO count, bit 24 TX FIFO full, `S5PV210_UFSTAT_TXFULL`), UTXH at
//! 0x20. As Linux's early console for this compatible (`samsung_early_putc`, with
//! `s5pv210_early_console_data`): with the FIFO on, wait while UFSTAT's TX-FIFO-full bit is
//! set, else until UTRSTAT.TXFE; then write the byte to UTXH with an 8-bit access. The
//! flush waits, as Linux's `s3c24xx_serial_tx_empty`, for an empty TX FIFO (count 0, not
//! full), or without the FIFO for UTRSTAT.TXE.
use embedded_hal::delay::DelayNs;
use tock_registers::LocalRegisterCopy;

use super::{Driver, Mmio, Regs};

mod bits {
    #![allow(missing_docs)]
    tock_registers::register_bitfields! {u32,
        /// UFCON, FIFO control.
        pub UFCON [
            /// FIFO mode.
            FIFOMODE OFFSET(0) NUMBITS(1) [],
        ],
        /// UTRSTAT, transmit and receive status.
        pub UTRSTAT [
            /// Transmit buffer empty.
            TXFE OFFSET(1) NUMBITS(1) [],
            /// Transmitter (buffer and shift register) empty.
            TXE OFFSET(2) NUMBITS(1) [],
        ],
        /// UFSTAT, FIFO status (exynos4210 layout).
        pub UFSTAT [
            /// Bytes in the TX FIFO.
            TX_COUNT OFFSET(16) NUMBITS(8) [],
            /// TX FIFO full.
            TX_FULL OFFSET(24) NUMBITS(1) [],
        ]
    }
}

use bits::{UFCON, UFSTAT, UTRSTAT};

const UFCON_OFF: usize = 0x08;
const UTRSTAT_OFF: usize = 0x10;
const UFSTAT_OFF: usize = 0x18;
const UTXH_OFF: usize = 0x20;

/// The Samsung UART's registers: 32-bit status reads, 8-bit data writes.
#[derive(Debug, Clone, Copy)]
pub struct SamsungRegs<M: Mmio> {
    mmio: M,
    /// UFCON's FIFO mode, read once when the driver takes over.
    fifo: bool,
}

/// Samsung Exynos UART driver.
pub type Samsung<M, D> = Driver<SamsungRegs<M>, D>;

impl<M: Mmio> Regs for SamsungRegs<M> {
    fn ready(&self) -> bool {
        if self.fifo {
            let s = LocalRegisterCopy::<u32, UFSTAT::Register>::new(self.mmio.read32(UFSTAT_OFF));
            !s.is_set(UFSTAT::TX_FULL)
        } else {
            let s = LocalRegisterCopy::<u32, UTRSTAT::Register>::new(self.mmio.read32(UTRSTAT_OFF));
            s.is_set(UTRSTAT::TXFE)
        }
    }

    fn send(&mut self, byte: u8) {
        self.mmio.write8(UTXH_OFF, byte);
    }

    fn idle(&self) -> bool {
        if self.fifo {
            let s = LocalRegisterCopy::<u32, UFSTAT::Register>::new(self.mmio.read32(UFSTAT_OFF));
            !s.is_set(UFSTAT::TX_FULL) && s.read(UFSTAT::TX_COUNT) == 0
        } else {
            let s = LocalRegisterCopy::<u32, UTRSTAT::Register>::new(self.mmio.read32(UTRSTAT_OFF));
            s.is_set(UTRSTAT::TXE)
        }
    }
}

impl<M: Mmio, D: DelayNs> Driver<SamsungRegs<M>, D> {
    /// Takes over a Samsung UART whose baud rate and frame format are already set, waiting
    /// with `delay`; reads UFCON once for the FIFO mode and writes nothing.
    pub fn new(mmio: M, delay: D) -> Self {
        let ufcon = LocalRegisterCopy::<u32, UFCON::Register>::new(mmio.read32(UFCON_OFF));
        let fifo = ufcon.is_set(UFCON::FIFOMODE);
        Driver::with_regs(SamsungRegs { mmio, fifo }, delay)
    }
}
