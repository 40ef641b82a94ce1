//! Memory-mapped device registers, for the drivers of `mairbench_core::uart`.

use mairbench_core::uart::Mmio;

/// A device register block at a physical address (the MMU is off or maps it 1:1 as Device).
#[derive(Clone, Copy, Debug)]
pub struct Device {
    base: usize,
}

impl Device {
    /// The register block at `base`, as described by the device tree.
    pub fn at(base: u64) -> Self {
        Device {
            base: base as usize,
        }
    }
}

impl Mmio for Device {
    fn read32(&self, off: usize) -> u32 {
        // SAFETY: `base` is a device's register block from the device tree (or the QEMU virt
        // default); the driver passes offsets of registers inside it, aligned to their width.
        unsafe { core::ptr::read_volatile((self.base + off) as *const u32) }
    }

    fn write32(&mut self, off: usize, value: u32) {
        // SAFETY: as in `read32`.
        unsafe { core::ptr::write_volatile((self.base + off) as *mut u32, value) }
    }

    fn read8(&self, off: usize) -> u8 {
        // SAFETY: as in `read32`.
        unsafe { core::ptr::read_volatile((self.base + off) as *const u8) }
    }

    fn write8(&mut self, off: usize, value: u8) {
        // SAFETY: as in `read32`.
        unsafe { core::ptr::write_volatile((self.base + off) as *mut u8, value) }
    }
}
