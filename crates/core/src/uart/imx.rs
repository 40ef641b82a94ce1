//! NXP i.MX UART (`fsl,imx21-uart`, `fsl,imx6q-uart` and the SoCs listing them: i.MX 8M
//! and others), the register model Linux calls imx21.
//!
//! Registers from the *i.MX 8M Plus Applications Processor Reference Manual* (NXP
//! IMX8MPRM), chapter "UART": UTXD at 0x40, UCR1 at 0x80, UCR2 at 0x84, USR2 at 0x98,
//! UTS at 0xB4; cross-checked with Linux `drivers/tty/serial/imx.c` (its early console
//! waits for `UTS.TXFULL` clear, then writes UTXD) and U-Boot
//! `drivers/serial/serial_mxc.c`.
use embedded_hal::delay::DelayNs;
use tock_registers::LocalRegisterCopy;

use super::{Driver, Mmio, Regs};

mod bits {
    #![allow(missing_docs)]
    tock_registers::register_bitfields! {u32,
        /// UTXD, transmitter register.
        pub UTXD [
            /// The byte to send.
            TX_DATA OFFSET(0) NUMBITS(8) [],
        ],
        /// UCR1, control register 1.
        pub UCR1 [
            /// UART enable.
            UARTEN OFFSET(0) NUMBITS(1) [],
        ],
        /// UCR2, control register 2.
        pub UCR2 [
            /// Software reset, active low: 0 holds the UART in reset.
            SRST OFFSET(0) NUMBITS(1) [],
            /// Transmitter enable.
            TXEN OFFSET(2) NUMBITS(1) [],
        ],
        /// USR2, status register 2.
        pub USR2 [
            /// Transmission complete: FIFO and shift register empty.
            TXDC OFFSET(3) NUMBITS(1) [],
        ],
        /// UTS, test register (status of the FIFOs).
        pub UTS [
            /// Transmit FIFO full.
            TXFULL OFFSET(4) NUMBITS(1) [],
        ]
    }
}

use bits::{UCR1, UCR2, USR2, UTS, UTXD};

const UTXD_OFF: usize = 0x40;
const UCR1_OFF: usize = 0x80;
const UCR2_OFF: usize = 0x84;
const USR2_OFF: usize = 0x98;
const UTS_OFF: usize = 0xb4;

/// The i.MX UART's registers, 32-bit accesses.
#[derive(Debug, Clone, Copy)]
pub struct ImxRegs<M: Mmio> {
    mmio: M,
}

/// NXP i.MX UART driver.
pub type Imx<M, D> = Driver<ImxRegs<M>, D>;

impl<M: Mmio> Regs for ImxRegs<M> {
    fn ready(&self) -> bool {
        let uts = LocalRegisterCopy::<u32, UTS::Register>::new(self.mmio.read32(UTS_OFF));
        !uts.is_set(UTS::TXFULL)
    }

    fn send(&mut self, byte: u8) {
        let utxd = UTXD::TX_DATA.val(u32::from(byte));
        self.mmio.write32(UTXD_OFF, utxd.into());
    }

    fn idle(&self) -> bool {
        let usr2 = LocalRegisterCopy::<u32, USR2::Register>::new(self.mmio.read32(USR2_OFF));
        usr2.is_set(USR2::TXDC)
    }
}

impl<M: Mmio, D: DelayNs> Driver<ImxRegs<M>, D> {
    /// Takes over an i.MX UART whose baud rate and frame format are already set, waiting
    /// with `delay`. Sets `UCR1.UARTEN` and `UCR2.TXEN` where clear (keeping the other
    /// bits, `UCR2.SRST` written as read), as QEMU's machines leave them at reset; writes
    /// nothing else.
    pub fn new(mut mmio: M, delay: D) -> Self {
        let mut ucr1 = LocalRegisterCopy::<u32, UCR1::Register>::new(mmio.read32(UCR1_OFF));
        if !ucr1.is_set(UCR1::UARTEN) {
            ucr1.modify(UCR1::UARTEN::SET);
            mmio.write32(UCR1_OFF, ucr1.get());
        }
        let mut ucr2 = LocalRegisterCopy::<u32, UCR2::Register>::new(mmio.read32(UCR2_OFF));
        if !ucr2.is_set(UCR2::TXEN) {
            ucr2.modify(UCR2::TXEN::SET);
            mmio.write32(UCR2_OFF, ucr2.get());
        }
        Driver::with_regs(ImxRegs { mmio }, delay)
    }
}
