//! Cadence UART (`cdns,uart-r1p8`, `cdns,uart-r1p12`, `xlnx,xuartps`, `xlnx,zynqmp-uart`).
//!
//! Register layout as Linux `drivers/tty/serial/xilinx_uartps.c` uses it: CR at 0x00,
//! SR at 0x2C, FIFO at 0x30. Its console write clears `CR.TX_DIS` and sets `CR.TX_EN`
//! before sending, as [`Cadence::new`] does.
use embedded_hal::delay::DelayNs;
use tock_registers::LocalRegisterCopy;

use super::{Driver, Mmio, Regs};

mod bits {
    #![allow(missing_docs)]
    tock_registers::register_bitfields! {u32,
        /// CR, control register.
        pub CR [
            /// Receiver reset (self-clearing).
            RXRST OFFSET(0) NUMBITS(1) [],
            /// Transmitter reset (self-clearing).
            TXRST OFFSET(1) NUMBITS(1) [],
            /// Transmitter enable.
            TX_EN OFFSET(4) NUMBITS(1) [],
            /// Transmitter disable (wins over `TX_EN`).
            TX_DIS OFFSET(5) NUMBITS(1) [],
        ],
        /// SR, channel status register.
        pub SR [
            /// Transmit FIFO empty.
            TXEMPTY OFFSET(3) NUMBITS(1) [],
            /// Transmit FIFO full.
            TXFULL OFFSET(4) NUMBITS(1) [],
            /// The transmitter is sending.
            TACTIVE OFFSET(11) NUMBITS(1) [],
        ],
        /// FIFO, transmit and receive FIFO.
        pub FIFO [
            /// The byte to send.
            DATA OFFSET(0) NUMBITS(8) [],
        ]
    }
}

use bits::{CR, FIFO, SR};

const CR_OFF: usize = 0x00;
const SR_OFF: usize = 0x2c;
const FIFO_OFF: usize = 0x30;

/// The Cadence UART's registers, 32-bit accesses.
#[derive(Debug, Clone, Copy)]
pub struct CadenceRegs<M: Mmio> {
    mmio: M,
}

/// Cadence UART driver.
pub type Cadence<M, D> = Driver<CadenceRegs<M>, D>;

impl<M: Mmio> CadenceRegs<M> {
    fn status(&self) -> LocalRegisterCopy<u32, SR::Register> {
        LocalRegisterCopy::new(self.mmio.read32(SR_OFF))
    }
}

impl<M: Mmio> Regs for CadenceRegs<M> {
    fn ready(&self) -> bool {
        !self.status().is_set(SR::TXFULL)
    }

    fn send(&mut self, byte: u8) {
        let f = FIFO::DATA.val(u32::from(byte));
        self.mmio.write32(FIFO_OFF, f.into());
    }

    fn idle(&self) -> bool {
        let s = self.status();
        s.is_set(SR::TXEMPTY) && !s.is_set(SR::TACTIVE)
    }
}

impl<M: Mmio, D: DelayNs> Driver<CadenceRegs<M>, D> {
    /// Takes over a Cadence UART whose baud rate and mode are already set, waiting with
    /// `delay`. Unless `CR.TX_EN` is set and `CR.TX_DIS` clear, writes CR once with
    /// `TX_EN` set and `TX_DIS` clear, the other bits as read but the two self-clearing
    /// resets 0; writes nothing else.
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "FieldValue's `+` combines disjoint fields"
    )]
    pub fn new(mut mmio: M, delay: D) -> Self {
        let mut cr = LocalRegisterCopy::<u32, CR::Register>::new(mmio.read32(CR_OFF));
        if !cr.is_set(CR::TX_EN) || cr.is_set(CR::TX_DIS) {
            cr.modify(CR::TX_EN::SET + CR::TX_DIS::CLEAR + CR::RXRST::CLEAR + CR::TXRST::CLEAR);
            mmio.write32(CR_OFF, cr.get());
        }
        Driver::with_regs(CadenceRegs { mmio }, delay)
    }
}
