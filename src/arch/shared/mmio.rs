//! Memory-mapped device registers, for the drivers of `mairbench_core::uart`.

use mairbench_core::uart::Mmio;

/// A device register block at a physical address (the MMU is off or maps it 1:1 as Device).
#[derive(Clone, Copy, Debug)]
pub struct Device {
    base: usize,
}

impl Device {
    /// The register block at `base`, as described by the device tree.
    ///
    /// # Safety
    ///
    /// `base` must be the physical address of a device's register block, covering every
    /// offset a driver passes to the [`Mmio`] methods (aligned to the access width), and
    /// that block must stay accessible as Device memory for as long as the `Device` (or a
    /// copy) is used: the MMU off, or the block identity-mapped with a Device memory type.
    /// Nothing else may drive the device meanwhile: reads and writes of its registers have
    /// side effects that another driver would not expect.
    pub unsafe fn at(base: u64) -> Self {
        Device {
            base: base as usize,
        }
    }
}

impl Mmio for Device {
    fn read32(&self, off: usize) -> u32 {
        // SAFETY: by the contract of `Device::at`, `base` is a register block accessible as
        // Device memory that only this driver drives; the driver passes offsets of registers
        // inside it, aligned to their width.
        unsafe { core::ptr::read_volatile((self.base + off) as *const u32) }
    }

    fn write32(&mut self, off: usize, value: u32) {
        // SAFETY: as in `read32` (the contract of `Device::at`).
        unsafe { core::ptr::write_volatile((self.base + off) as *mut u32, value) }
    }

    fn read16(&self, off: usize) -> u16 {
        // SAFETY: as in `read32` (the contract of `Device::at`).
        unsafe { core::ptr::read_volatile((self.base + off) as *const u16) }
    }

    fn write16(&mut self, off: usize, value: u16) {
        // SAFETY: as in `read32` (the contract of `Device::at`).
        unsafe { core::ptr::write_volatile((self.base + off) as *mut u16, value) }
    }

    fn read8(&self, off: usize) -> u8 {
        // SAFETY: as in `read32` (the contract of `Device::at`).
        unsafe { core::ptr::read_volatile((self.base + off) as *const u8) }
    }

    fn write8(&mut self, off: usize, value: u8) {
        // SAFETY: as in `read32` (the contract of `Device::at`).
        unsafe { core::ptr::write_volatile((self.base + off) as *mut u8, value) }
    }
}
