//! Qualcomm GENI serial engine in UART mode (`qcom,geni-debug-uart`, `qcom,geni-uart`).
//!
//! **Assumed**: the boot loader left the serial engine running the UART protocol, in FIFO
//! mode, with its clocks, packing and frame format set (as it does for the debug console
//! it printed on). Nothing of that is checked or set here.
//!
//! The protocol, one byte per command as U-Boot `drivers/serial/serial_msm_geni.c` sends
//! (register layout as there and in Linux `drivers/tty/serial/qcom_geni_serial.c` and
//! `include/linux/soc/qcom/geni-se.h`):
//! 1. wait until `SE_GENI_STATUS.M_GENI_CMD_ACTIVE` is clear (the previous command,
//!    possibly the boot loader's, has finished);
//! 2. clear `M_CMD_DONE` and `M_TX_FIFO_WATERMARK` in `SE_GENI_M_IRQ_CLEAR`;
//! 3. write the length, 1, to `SE_UART_TX_TRANS_LEN`, then `UART_START_TX` to
//!    `SE_GENI_M_CMD0`;
//! 4. wait for `SE_GENI_M_IRQ_STATUS.M_TX_FIFO_WATERMARK` (room in the TX FIFO); if it
//!    does not come, abort the command (`M_GENI_CMD_ABORT` in `SE_GENI_M_CMD_CTRL_REG`)
//!    and drop the byte;
//!    (when the driver is stalled, one read, no waiting, as for every stalled wait);
//! 5. write the byte to `SE_GENI_TX_FIFOn` (the first byte of a FIFO word is its low byte
//!    whatever the packing) and clear `M_TX_FIFO_WATERMARK`.
//!
//! [`Geni::new`] writes the TX watermark (2 words, Linux's and U-Boot's `DEF_TX_WM`).
//! Flushing waits for `M_GENI_CMD_ACTIVE` clear. Both waits are bounded as every wait is.
use embedded_hal::delay::DelayNs;
use tock_registers::LocalRegisterCopy;

use super::{Driver, Mmio, Poller, Regs};

mod bits {
    #![allow(missing_docs)]
    tock_registers::register_bitfields! {u32,
        /// SE_GENI_STATUS.
        pub STATUS [
            /// The main sequencer is running a command.
            M_GENI_CMD_ACTIVE OFFSET(0) NUMBITS(1) [],
        ],
        /// SE_GENI_M_CMD0, main sequencer command.
        pub M_CMD0 [
            /// The command.
            OPCODE OFFSET(27) NUMBITS(5) [
                UartStartTx = 1,
            ],
        ],
        /// SE_GENI_M_CMD_CTRL_REG.
        pub M_CMD_CTRL [
            /// Abort the running command.
            M_GENI_CMD_ABORT OFFSET(1) NUMBITS(1) [],
        ],
        /// SE_GENI_M_IRQ_STATUS and SE_GENI_M_IRQ_CLEAR.
        pub M_IRQ [
            /// The command is done.
            M_CMD_DONE OFFSET(0) NUMBITS(1) [],
            /// The TX FIFO is at or below the watermark.
            M_TX_FIFO_WATERMARK OFFSET(30) NUMBITS(1) [],
        ],
        /// SE_GENI_TX_FIFOn, one FIFO word.
        pub TX_FIFO [
            /// The byte to send (the first byte of the word).
            DATA OFFSET(0) NUMBITS(8) [],
        ]
    }
}

use bits::{M_CMD0, M_CMD_CTRL, M_IRQ, STATUS, TX_FIFO};

const SE_GENI_STATUS: usize = 0x040;
const SE_UART_TX_TRANS_LEN: usize = 0x270;
const SE_GENI_M_CMD0: usize = 0x600;
const SE_GENI_M_CMD_CTRL_REG: usize = 0x604;
const SE_GENI_M_IRQ_STATUS: usize = 0x610;
const SE_GENI_M_IRQ_CLEAR: usize = 0x618;
const SE_GENI_TX_FIFON: usize = 0x700;
const SE_GENI_TX_WATERMARK_REG: usize = 0x80c;
/// TX watermark, in FIFO words.
const TX_WATERMARK_WORDS: u32 = 2;

/// The serial engine's registers, 32-bit accesses.
#[derive(Debug, Clone, Copy)]
pub struct GeniRegs<M: Mmio> {
    mmio: M,
}

/// Qualcomm GENI UART driver.
pub type Geni<M, D> = Driver<GeniRegs<M>, D>;

impl<M: Mmio> GeniRegs<M> {
    fn irq_status(&self) -> LocalRegisterCopy<u32, M_IRQ::Register> {
        LocalRegisterCopy::new(self.mmio.read32(SE_GENI_M_IRQ_STATUS))
    }
}

impl<M: Mmio> Regs for GeniRegs<M> {
    /// No command running.
    fn ready(&self) -> bool {
        let s = LocalRegisterCopy::<u32, STATUS::Register>::new(self.mmio.read32(SE_GENI_STATUS));
        !s.is_set(STATUS::M_GENI_CMD_ACTIVE)
    }

    /// Writes the byte to the FIFO (step 5).
    fn send(&mut self, byte: u8) {
        let word = TX_FIFO::DATA.val(u32::from(byte));
        self.mmio.write32(SE_GENI_TX_FIFON, word.into());
        let wm = M_IRQ::M_TX_FIFO_WATERMARK::SET;
        self.mmio.write32(SE_GENI_M_IRQ_CLEAR, wm.into());
    }

    fn idle(&self) -> bool {
        self.ready()
    }

    #[allow(
        clippy::arithmetic_side_effects,
        reason = "FieldValue's `+` combines disjoint fields"
    )]
    fn put<D: DelayNs>(&mut self, poll: &mut Poller<D>, byte: u8) {
        // An idle sequencer ends a stall, but a FIFO that never had room should cost one
        // read per byte too: a stalled engine gets one look at the watermark.
        let was_stalled = poll.stalled();
        if !poll.wait(&mut || self.ready()) {
            return;
        }
        if was_stalled {
            poll.stall();
        }
        let stale = M_IRQ::M_CMD_DONE::SET + M_IRQ::M_TX_FIFO_WATERMARK::SET;
        self.mmio.write32(SE_GENI_M_IRQ_CLEAR, stale.into());
        self.mmio.write32(SE_UART_TX_TRANS_LEN, 1);
        let cmd = M_CMD0::OPCODE::UartStartTx;
        self.mmio.write32(SE_GENI_M_CMD0, cmd.into());
        if poll.wait(&mut || self.irq_status().is_set(M_IRQ::M_TX_FIFO_WATERMARK)) {
            self.send(byte);
        } else {
            let abort = M_CMD_CTRL::M_GENI_CMD_ABORT::SET;
            self.mmio.write32(SE_GENI_M_CMD_CTRL_REG, abort.into());
        }
    }
}

impl<M: Mmio, D: DelayNs> Driver<GeniRegs<M>, D> {
    /// Takes over a serial engine the boot loader left in UART mode (see the module
    /// documentation), waiting with `delay`; writes the TX watermark, nothing else.
    pub fn new(mut mmio: M, delay: D) -> Self {
        mmio.write32(SE_GENI_TX_WATERMARK_REG, TX_WATERMARK_WORDS);
        Driver::with_regs(GeniRegs { mmio }, delay)
    }
}
