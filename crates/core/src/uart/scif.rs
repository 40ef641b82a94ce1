//! Renesas SCIF and HSCIF as on R-Car Gen2/Gen3 and RZ/G2 (`renesas,scif`,
//! `renesas,rcar-gen3-scif`, `renesas,hscif`, ...): 16-bit registers, the data register
//! 8-bit. The RZ/G2L SCIF (`renesas,scif-r9a07g044`), whose registers are 2 bytes apart,
//! and the SCIFA/SCIFB are other layouts and not driven.
//!
//! Register layout as Linux `drivers/tty/serial/sh-sci.c` uses it (`SCIx_SH4_SCIF_REGTYPE`
//! and the BRG and HSCIF variants, the same for sending): SCSCR at 0x08, SCFTDR at 0x0C,
//! SCFSR at 0x10. Its polled write waits for `SCFSR.TDFE`, writes SCFTDR, then writes
//! SCFSR with `TDFE` and `TEND` 0 (the status flags are cleared by writing 0 after
//! reading 1; writing 1 leaves them), as this driver does.
use embedded_hal::delay::DelayNs;
use tock_registers::LocalRegisterCopy;

use super::{Driver, Mmio, Regs};

mod bits {
    #![allow(missing_docs)]
    tock_registers::register_bitfields! {u16,
        /// SCFSR, serial status register.
        pub SCFSR [
            /// Transmit FIFO data empty: at or below the trigger, room for a byte.
            TDFE OFFSET(5) NUMBITS(1) [],
            /// Transmission end: FIFO and shift register empty.
            TEND OFFSET(6) NUMBITS(1) [],
        ]
    }
    tock_registers::register_bitfields! {u8,
        /// SCFTDR, transmit FIFO data register.
        pub SCFTDR [
            /// The byte to send.
            DATA OFFSET(0) NUMBITS(8) [],
        ]
    }
}

use bits::{SCFSR, SCFTDR};

const SCFTDR_OFF: usize = 0x0c;
const SCFSR_OFF: usize = 0x10;

/// The SCIF's registers.
#[derive(Debug, Clone, Copy)]
pub struct ScifRegs<M: Mmio> {
    mmio: M,
}

/// Renesas SCIF driver.
pub type Scif<M, D> = Driver<ScifRegs<M>, D>;

impl<M: Mmio> ScifRegs<M> {
    fn status(&self) -> LocalRegisterCopy<u16, SCFSR::Register> {
        LocalRegisterCopy::new(self.mmio.read16(SCFSR_OFF))
    }
}

impl<M: Mmio> Regs for ScifRegs<M> {
    fn ready(&self) -> bool {
        self.status().is_set(SCFSR::TDFE)
    }

    #[allow(
        clippy::arithmetic_side_effects,
        reason = "FieldValue's `+` combines disjoint fields"
    )]
    fn send(&mut self, byte: u8) {
        let d = SCFTDR::DATA.val(byte);
        self.mmio.write8(SCFTDR_OFF, d.into());
        // 0 clears a flag, 1 leaves it: clear TDFE and TEND only.
        let flags = (SCFSR::TDFE::SET + SCFSR::TEND::SET).value;
        self.mmio.write16(SCFSR_OFF, !flags);
    }

    fn idle(&self) -> bool {
        self.status().is_set(SCFSR::TEND)
    }
}

impl<M: Mmio, D: DelayNs> Driver<ScifRegs<M>, D> {
    /// Takes over a SCIF whose baud rate, mode and FIFO are already set, waiting with
    /// `delay`; writes nothing.
    pub fn new(mmio: M, delay: D) -> Self {
        Driver::with_regs(ScifRegs { mmio }, delay)
    }
}
