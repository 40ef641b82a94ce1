//! Finding the device tree with the MMU still off: at the boot loader's `x0`, else where QEMU
//! `virt` puts it. A blob is taken only where its header reads as a device tree.

use super::exceptions;

/// Where QEMU `virt` puts the device tree when it starts an ELF (x0 = 0): the base of RAM.
pub const QEMU_VIRT_DTB: usize = 0x4000_0000;

/// Finds the device tree, with the MMU still off: at the boot loader's `x0`, else (QEMU
/// starting an ELF with x0 = 0, U-Boot's `bootm` of a standalone program with no tree in x0)
/// at the start of QEMU virt RAM, and only if the blob there is QEMU's own virt tree (on a
/// board that RAM may hold a stale one).
pub fn find_dtb(x0: usize) -> Option<(usize, &'static [u8])> {
    find_dtb_at(x0).or_else(|| {
        find_dtb_at(QEMU_VIRT_DTB)
            .filter(|(_, blob)| mairbench_core::platform::is_qemu_virt_dtb(blob))
    })
}

/// The device tree at `addr` only, if one is there (MMU off).
pub fn find_dtb_at(addr: usize) -> Option<(usize, &'static [u8])> {
    if super::cpu::mmu_on() {
        return None;
    }
    // SAFETY: the MMU is off (checked above), so addresses are physical, and the boot
    // loader hands over the device tree for reading; nothing in the firmware writes below
    // its own image (the test buffer is placed away from the blob).
    let header = unsafe { memory_at(addr, 40)? };
    let size = mairbench_core::platform::dtb_size(header)?;
    // SAFETY: as above; the header says the blob is `size` bytes long.
    Some((addr, unsafe { memory_at(addr, size)? }))
}

/// Reads `len` bytes of physical memory at `addr` as a byte slice, or `None` if reading its
/// first word faults (nothing there) or `addr` is 0 or unaligned.
///
/// # Safety
/// The MMU must be off; `[addr, addr+len)` must be memory (not device registers) that
/// nothing writes for the rest of the run.
unsafe fn memory_at(addr: usize, len: usize) -> Option<&'static [u8]> {
    if addr == 0 || !addr.is_multiple_of(8) {
        return None;
    }
    let first_word = || {
        // SAFETY: an aligned load of memory (the caller's promise); a fault is caught.
        unsafe { core::ptr::read_volatile(addr as *const u64) }
    };
    // SAFETY: the only instruction that may fault is the volatile load; its value is unused.
    unsafe { exceptions::probe(first_word) }.ok()?;
    // SAFETY: the caller promises memory that nothing writes; with the MMU off it is directly
    // addressable.
    Some(unsafe { core::slice::from_raw_parts(addr as *const u8, len) })
}
