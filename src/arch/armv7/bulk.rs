//! The test buffer's bulk work, laying and checking patterns, in Rust: the 32-bit image has
//! no assembly for it yet, so each word is one volatile 64-bit access (two 32-bit ones on
//! ARMv7). `super::buffer`'s [`Window`](super::buffer::Window) calls these on its own ranges
//! only, with the same contracts as the AArch64 image's assembly: 64-byte blocks, 16-byte
//! aligned; a find returns the offset of the first block holding a mismatch, or `len`.

use super::exceptions::Fault;
use mairbench_core::pattern::Pattern;

/// The pattern's word at offset `off` of a range.
fn word(va: u64, off: u64) -> *mut u64 {
    (va + off) as usize as *mut u64
}

/// Lays `p` over `[va, va + len)`.
unsafe fn lay(va: u64, len: u64, p: Pattern) {
    for off in (0..len).step_by(8) {
        // SAFETY: the caller's range (test memory only).
        unsafe { word(va, off).write_volatile(p.at(off)) };
    }
}

/// The first 64-byte block of `[va, va + len)` holding a word other than `p`'s, or `len`.
unsafe fn find(va: u64, len: u64, p: Pattern) -> u64 {
    // SAFETY: the caller's range.
    let bad = |off: u64| unsafe { word(va, off).read_volatile() } != p.at(off);
    (0..len)
        .step_by(8)
        .find(|&off| bad(off))
        .map_or(len, |off| off & !63)
}

pub(super) unsafe fn mb_fill_xor(va: u64, len: u64, key: u64) {
    // SAFETY: as the caller promises.
    unsafe { lay(va, len, Pattern::Xor(key)) }
}

pub(super) unsafe fn mb_fill_pair(va: u64, len: u64, even: u64, odd: u64) {
    // SAFETY: as the caller promises.
    unsafe { lay(va, len, Pattern::Pair(even, odd)) }
}

pub(super) unsafe fn mb_find_xor(va: u64, len: u64, key: u64) -> u64 {
    // SAFETY: as the caller promises.
    unsafe { find(va, len, Pattern::Xor(key)) }
}

pub(super) unsafe fn mb_find_pair(va: u64, len: u64, even: u64, odd: u64) -> u64 {
    // SAFETY: as the caller promises.
    unsafe { find(va, len, Pattern::Pair(even, odd)) }
}

pub(super) unsafe fn mb_find_lines(va: u64, len: u64, key: u64, first: u64) -> u64 {
    // SAFETY: as the caller promises.
    unsafe { find(va, len, Pattern::Lines(first, key)) }
}

/// No `DC ZVA` in A32.
pub(super) fn zero_block_size() -> Option<u64> {
    None
}

/// Never called: [`zero_block_size`] is `None`.
pub(super) unsafe fn try_zero_block(_va: u64) -> Result<(), Fault> {
    Ok(())
}
