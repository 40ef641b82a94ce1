//! Qualcomm UARTDM (`qcom,msm-uartdm-v1.4`, `qcom,msm-uartdm-v1.3`, `qcom,msm-uartdm`).
//!
//! Register layout as Linux `drivers/tty/serial/msm_serial.c` uses it for every UARTDM
//! version: SR at 0x08, CR at 0x10, ISR at 0x14, NCF_TX at 0x40, TF at 0x70. (U-Boot
//! `drivers/serial/serial_msm.c` uses the v1.4 copies at 0xA4, 0xA8, 0xB4 and 0x100; the
//! v1.3 layout has only the former.) One byte per transfer, as U-Boot's `putc` sends:
//! wait for `SR.TX_EMPTY` or `ISR.TX_READY` (the previous transfer has been taken into the
//! FIFO), then write `RESET_TX_READY` to CR, 1 to NCF_TX, and the byte to TF. Flushing
//! waits for `SR.TX_EMPTY`.
use embedded_hal::delay::DelayNs;
use tock_registers::LocalRegisterCopy;

use super::{Driver, Mmio, Regs};

mod bits {
    #![allow(missing_docs)]
    tock_registers::register_bitfields! {u32,
        /// SR, status register.
        pub SR [
            /// Transmitter empty: FIFO and shift register.
            TX_EMPTY OFFSET(3) NUMBITS(1) [],
        ],
        /// ISR, interrupt status register.
        pub ISR [
            /// The characters of the last transfer are all in the FIFO.
            TX_READY OFFSET(7) NUMBITS(1) [],
        ],
        /// CR, command register.
        pub CR [
            /// The command.
            CMD OFFSET(4) NUMBITS(8) [
                ResetTxReady = 0x30,
            ],
        ],
        /// TF, transmit FIFO (one word: up to four bytes, the first in the low byte).
        pub TF [
            /// The byte to send.
            DATA OFFSET(0) NUMBITS(8) [],
        ]
    }
}

use bits::{CR, ISR, SR, TF};

const SR_OFF: usize = 0x08;
const CR_OFF: usize = 0x10;
const ISR_OFF: usize = 0x14;
const NCF_TX_OFF: usize = 0x40;
const TF_OFF: usize = 0x70;

/// The UARTDM's registers, 32-bit accesses.
#[derive(Debug, Clone, Copy)]
pub struct UartDmRegs<M: Mmio> {
    mmio: M,
}

/// Qualcomm UARTDM driver.
pub type UartDm<M, D> = Driver<UartDmRegs<M>, D>;

impl<M: Mmio> UartDmRegs<M> {
    fn empty(&self) -> bool {
        LocalRegisterCopy::<u32, SR::Register>::new(self.mmio.read32(SR_OFF)).is_set(SR::TX_EMPTY)
    }
}

impl<M: Mmio> Regs for UartDmRegs<M> {
    /// Two reads unless the first says the transmitter is empty.
    fn ready(&self) -> bool {
        self.empty()
            || LocalRegisterCopy::<u32, ISR::Register>::new(self.mmio.read32(ISR_OFF))
                .is_set(ISR::TX_READY)
    }

    fn send(&mut self, byte: u8) {
        let reset = CR::CMD::ResetTxReady;
        self.mmio.write32(CR_OFF, reset.into());
        self.mmio.write32(NCF_TX_OFF, 1);
        let tf = TF::DATA.val(u32::from(byte));
        self.mmio.write32(TF_OFF, tf.into());
    }

    fn idle(&self) -> bool {
        self.empty()
    }
}

impl<M: Mmio, D: DelayNs> Driver<UartDmRegs<M>, D> {
    /// Takes over a UARTDM whose clock, mode and frame format are already set, waiting
    /// with `delay`; writes nothing.
    pub fn new(mmio: M, delay: D) -> Self {
        Driver::with_regs(UartDmRegs { mmio }, delay)
    }
}
