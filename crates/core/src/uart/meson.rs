//! Amlogic meson UART (`amlogic,meson-ao-uart`, `amlogic,meson-gx-uart` and the other
//! `amlogic,meson-*-uart`).
//!
//! Registers from the *S905 Datasheet* (Amlogic), section "UART": WFIFO at 0x00, CONTROL
//! at 0x08, STATUS at 0x0C; cross-checked with Linux `drivers/tty/serial/meson_uart.c`
//! (whose early console also sets `CONTROL.TX_EN`) and U-Boot
//! `drivers/serial/serial_meson.c`.
use embedded_hal::delay::DelayNs;
use tock_registers::LocalRegisterCopy;

use super::{Driver, Mmio, Regs};

mod bits {
    #![allow(missing_docs)]
    tock_registers::register_bitfields! {u32,
        /// WFIFO, write FIFO.
        pub WFIFO [
            /// The byte to send.
            DATA OFFSET(0) NUMBITS(8) [],
        ],
        /// CONTROL.
        pub CONTROL [
            /// Transmitter enable.
            TX_EN OFFSET(12) NUMBITS(1) [],
        ],
        /// STATUS.
        pub STATUS [
            /// Transmit FIFO full.
            TX_FULL OFFSET(21) NUMBITS(1) [],
            /// Transmit FIFO empty.
            TX_EMPTY OFFSET(22) NUMBITS(1) [],
            /// The transmitter is sending.
            XMIT_BUSY OFFSET(25) NUMBITS(1) [],
        ]
    }
}

use bits::{CONTROL, STATUS, WFIFO};

const WFIFO_OFF: usize = 0x00;
const CONTROL_OFF: usize = 0x08;
const STATUS_OFF: usize = 0x0c;

/// The meson UART's registers, 32-bit accesses.
#[derive(Debug, Clone, Copy)]
pub struct MesonRegs<M: Mmio> {
    mmio: M,
}

/// Amlogic meson UART driver.
pub type Meson<M, D> = Driver<MesonRegs<M>, D>;

impl<M: Mmio> MesonRegs<M> {
    fn status(&self) -> LocalRegisterCopy<u32, STATUS::Register> {
        LocalRegisterCopy::new(self.mmio.read32(STATUS_OFF))
    }
}

impl<M: Mmio> Regs for MesonRegs<M> {
    fn ready(&self) -> bool {
        !self.status().is_set(STATUS::TX_FULL)
    }

    fn send(&mut self, byte: u8) {
        let w = WFIFO::DATA.val(u32::from(byte));
        self.mmio.write32(WFIFO_OFF, w.into());
    }

    fn idle(&self) -> bool {
        let s = self.status();
        s.is_set(STATUS::TX_EMPTY) && !s.is_set(STATUS::XMIT_BUSY)
    }
}

impl<M: Mmio, D: DelayNs> Driver<MesonRegs<M>, D> {
    /// Takes over a meson UART whose baud rate is already set, waiting with `delay`. Sets
    /// `CONTROL.TX_EN` if clear (keeping the other bits); writes nothing else.
    pub fn new(mut mmio: M, delay: D) -> Self {
        let mut c = LocalRegisterCopy::<u32, CONTROL::Register>::new(mmio.read32(CONTROL_OFF));
        if !c.is_set(CONTROL::TX_EN) {
            c.modify(CONTROL::TX_EN::SET);
            mmio.write32(CONTROL_OFF, c.get());
        }
        Driver::with_regs(MesonRegs { mmio }, delay)
    }
}
