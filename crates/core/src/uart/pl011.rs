//! Arm PL011 (`arm,pl011`) and the SBSA generic UART (`arm,sbsa-uart`), its subset.
//!
//! Registers from the *PrimeCell UART (PL011) Technical Reference Manual* (Arm DDI 0183)
//! and the *Server Base System Architecture*, appendix "Generic UART" (Arm DEN 0029);
//! cross-checked with Linux `drivers/tty/serial/amba-pl011.c`.
use embedded_hal::delay::DelayNs;
use tock_registers::LocalRegisterCopy;

use super::{Driver, Mmio, Regs};

mod bits {
    #![allow(missing_docs)]
    tock_registers::register_bitfields! {u32,
        /// UARTDR, data register.
        pub DR [
            /// The byte to send.
            DATA OFFSET(0) NUMBITS(8) [],
        ],
        /// UARTFR, flag register.
        pub FR [
            /// The UART is sending (data in the FIFO or the shift register).
            BUSY OFFSET(3) NUMBITS(1) [],
            /// Transmit FIFO full.
            TXFF OFFSET(5) NUMBITS(1) [],
        ],
        /// UARTCR, control register (not in the SBSA UART).
        pub CR [
            /// UART enable.
            UARTEN OFFSET(0) NUMBITS(1) [],
            /// Transmit enable.
            TXE OFFSET(8) NUMBITS(1) [],
        ]
    }
}

use bits::{CR, DR, FR};

/// Byte offsets of the PL011 registers.
const DR_OFF: usize = 0x000;
const FR_OFF: usize = 0x018;
const CR_OFF: usize = 0x030;

/// The PL011's registers, 32-bit accesses.
#[derive(Debug, Clone, Copy)]
pub struct Pl011Regs<M: Mmio> {
    mmio: M,
}

/// Arm PL011 UART driver.
pub type Pl011<M, D> = Driver<Pl011Regs<M>, D>;

impl<M: Mmio> Pl011Regs<M> {
    fn flags(&self) -> LocalRegisterCopy<u32, FR::Register> {
        LocalRegisterCopy::new(self.mmio.read32(FR_OFF))
    }
}

impl<M: Mmio> Regs for Pl011Regs<M> {
    fn ready(&self) -> bool {
        !self.flags().is_set(FR::TXFF)
    }

    fn send(&mut self, byte: u8) {
        let dr = DR::DATA.val(u32::from(byte));
        self.mmio.write32(DR_OFF, dr.into());
    }

    fn idle(&self) -> bool {
        !self.flags().is_set(FR::BUSY)
    }
}

impl<M: Mmio, D: DelayNs> Driver<Pl011Regs<M>, D> {
    /// Takes over a PL011 whose baud rate and line control are already set, waiting with
    /// `delay`. Sets `UARTCR.UARTEN` and `UARTCR.TXE` if either is clear (keeping the
    /// other bits); writes nothing else.
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "FieldValue's `+` combines disjoint fields"
    )]
    pub fn new(mut mmio: M, delay: D) -> Self {
        let mut cr = LocalRegisterCopy::<u32, CR::Register>::new(mmio.read32(CR_OFF));
        let on = CR::UARTEN::SET + CR::TXE::SET;
        if !cr.matches_all(on) {
            cr.modify(on);
            mmio.write32(CR_OFF, cr.get());
        }
        Driver::with_regs(Pl011Regs { mmio }, delay)
    }

    /// Takes over an SBSA generic UART: the PL011's data and flag registers only, no
    /// control register (the SBSA leaves enabling to firmware), so nothing is read or
    /// written until the first byte.
    pub fn sbsa(mmio: M, delay: D) -> Self {
        Driver::with_regs(Pl011Regs { mmio }, delay)
    }
}
