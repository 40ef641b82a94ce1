//! ST STM32 USART, the STM32H7 layout (`st,stm32h7-uart`: STM32MP1).
//!
//! Registers as Linux `drivers/tty/serial/stm32-usart.h` and `stm32-usart.c` give them for
//! `stm32h7_info`: ISR at 0x1C, TDR at 0x28; ISR bit 7 is TXE (`USART_SR_TXE`), or TXFNF
//! (TX FIFO not full) with the FIFO on, and bit 6 is TC (`USART_SR_TC`, transmission
//! complete). As Linux's early console for it (`early_stm32_usart_console_putchar`, in
//! later kernels than Debian 12's 6.1): wait for ISR bit 7, then write the byte to TDR with
//! a 32-bit access; the flush waits for TC, as `stm32_usart_tx_empty`.
//! Not the STM32F4 layout (`st,stm32-uart`), whose registers are elsewhere.
use embedded_hal::delay::DelayNs;
use tock_registers::LocalRegisterCopy;

use super::{Driver, Mmio, Regs};

mod bits {
    #![allow(missing_docs)]
    tock_registers::register_bitfields! {u32,
        /// ISR, interrupt and status register.
        pub ISR [
            /// Transmission complete.
            TC OFFSET(6) NUMBITS(1) [],
            /// TDR empty, or with the FIFO on, TX FIFO not full.
            TXE_TXFNF OFFSET(7) NUMBITS(1) [],
        ],
        /// TDR, transmit data register.
        pub TDR [
            /// The byte to send.
            DATA OFFSET(0) NUMBITS(8) [],
        ]
    }
}

use bits::{ISR, TDR};

const ISR_OFF: usize = 0x1c;
const TDR_OFF: usize = 0x28;

/// The STM32 USART's registers, 32-bit accesses.
#[derive(Debug, Clone, Copy)]
pub struct Stm32Regs<M: Mmio> {
    mmio: M,
}

/// ST STM32 USART driver.
pub type Stm32<M, D> = Driver<Stm32Regs<M>, D>;

impl<M: Mmio> Stm32Regs<M> {
    fn isr(&self) -> LocalRegisterCopy<u32, ISR::Register> {
        LocalRegisterCopy::new(self.mmio.read32(ISR_OFF))
    }
}

impl<M: Mmio> Regs for Stm32Regs<M> {
    fn ready(&self) -> bool {
        self.isr().is_set(ISR::TXE_TXFNF)
    }

    fn send(&mut self, byte: u8) {
        let w = TDR::DATA.val(u32::from(byte));
        self.mmio.write32(TDR_OFF, w.into());
    }

    fn idle(&self) -> bool {
        self.isr().is_set(ISR::TC)
    }
}

impl<M: Mmio, D: DelayNs> Driver<Stm32Regs<M>, D> {
    /// Takes over an STM32 USART whose baud rate and frame format are already set and that
    /// is enabled (CR1.UE and TE, as the boot loader leaves its console), waiting with
    /// `delay`; writes nothing else.
    pub fn new(mmio: M, delay: D) -> Self {
        Driver::with_regs(Stm32Regs { mmio }, delay)
    }
}
