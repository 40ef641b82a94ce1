//! The test buffer's bulk work in assembly (buffer.S): laying and checking patterns 64 bytes
//! at a time, and `DC ZVA`. `super::buffer`'s [`Window`](super::buffer::Window) calls them on
//! its own ranges only.

use super::cpu::zva_block_size;
use super::exceptions::{self, Fault};

core::arch::global_asm!(include_str!("buffer.S"));

extern "C" {
    pub(super) fn mb_fill_xor(va: u64, len: u64, key: u64);
    pub(super) fn mb_fill_pair(va: u64, len: u64, even: u64, odd: u64);
    pub(super) fn mb_find_xor(va: u64, len: u64, key: u64) -> u64;
    pub(super) fn mb_find_pair(va: u64, len: u64, even: u64, odd: u64) -> u64;
    pub(super) fn mb_find_lines(va: u64, len: u64, key: u64, first: u64) -> u64;
}

/// The `DC ZVA` block, bytes; `None` where DC ZVA is prohibited.
pub(super) fn zero_block_size() -> Option<u64> {
    zva_block_size()
}

/// `DC ZVA` of the block at `va`, a fault caught (real cores fault on `DC ZVA` to Device
/// memory).
///
/// # Safety
/// `va` is block-aligned and the block is test data only.
pub(super) unsafe fn try_zero_block(va: u64) -> Result<(), Fault> {
    // SAFETY: as the caller promises; a fault is caught by the probe and stepped over.
    unsafe {
        exceptions::probe(|| core::arch::asm!("dc zva, {a}", a = in(reg) va, options(nostack)))
    }
}
