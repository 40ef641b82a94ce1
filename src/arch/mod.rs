//! Everything specific to AArch64: boot assembly, system registers, exceptions, MMIO, exit.
//! All `unsafe` code of the firmware lives below this module.

use core::arch::global_asm;
use core::cell::UnsafeCell;

pub mod exceptions;
pub mod exit;
pub mod mmio;
pub mod pmu;
pub mod semihosting;

global_asm!(include_str!("../../boot/entry.S"));
global_asm!(include_str!("../../boot/vectors.S"));

/// A value shared between the main flow and the exception handlers of the one core that runs
/// the firmware. Values are copied in and out whole with volatile accesses, so no reference
/// into the cell ever exists and an exception taken between two accesses sees a whole value.
pub struct Global<T: Copy>(UnsafeCell<T>);

// SAFETY: only the boot core runs firmware code, interrupts stay masked, and every access
// copies the whole value (see `get`/`set`); nothing is ever borrowed from the cell.
unsafe impl<T: Copy + Send> Sync for Global<T> {}

impl<T: Copy> Global<T> {
    /// A global with an initial value.
    pub const fn new(value: T) -> Self {
        Global(UnsafeCell::new(value))
    }

    /// A copy of the current value.
    pub fn get(&self) -> T {
        // SAFETY: the pointer comes from a live `UnsafeCell`, is aligned, and no reference
        // into the cell exists (see the type's documentation).
        unsafe { self.0.get().read_volatile() }
    }

    /// Replaces the value.
    pub fn set(&self, value: T) {
        // SAFETY: as in `get`.
        unsafe { self.0.get().write_volatile(value) }
    }
}

/// Identification of the CPU running the firmware.
#[derive(Clone, Copy, Debug)]
pub struct CpuId {
    /// MIDR_EL1: implementer, part number, revision.
    pub midr: u64,
    /// MPIDR_EL1: affinity of this core.
    pub mpidr: u64,
    /// CNTFRQ_EL0: frequency of the generic timer, Hz.
    pub cntfrq: u64,
    /// The exception level the firmware runs at now.
    pub el: u64,
}

/// Reads the CPU identification registers.
pub fn cpu_id() -> CpuId {
    use aarch64_cpu::registers::{CurrentEL, Readable, CNTFRQ_EL0, MIDR_EL1, MPIDR_EL1};
    CpuId {
        midr: MIDR_EL1.get(),
        mpidr: MPIDR_EL1.get(),
        cntfrq: CNTFRQ_EL0.get(),
        el: CurrentEL.read(CurrentEL::EL),
    }
}

/// The virtual counter CNTVCT_EL0, ordered after the instructions before it.
pub fn ticks() -> u64 {
    use aarch64_cpu::registers::{Readable, CNTVCT_EL0};
    aarch64_cpu::asm::barrier::isb(aarch64_cpu::asm::barrier::SY);
    CNTVCT_EL0.get()
}

/// Reads `len` bytes of physical memory at `addr` as a byte slice, or `None` if reading its
/// first word faults (nothing there).
pub fn memory_at(addr: usize, len: usize) -> Option<&'static [u8]> {
    if addr == 0 || !addr.is_multiple_of(8) {
        return None;
    }
    // SAFETY: an aligned load from an address the caller believes to be RAM; a fault is
    // caught by the probe and reported as `None`.
    exceptions::probe(|| unsafe { core::ptr::read_volatile(addr as *const u64) }).ok()?;
    // SAFETY: the firmware runs with the MMU off, so physical memory is directly addressable,
    // the region was handed over by the boot loader for reading, and nothing writes it.
    Some(unsafe { core::slice::from_raw_parts(addr as *const u8, len) })
}

/// Waits for events forever: the last resort when no way to stop the machine exists.
pub fn park() -> ! {
    loop {
        aarch64_cpu::asm::wfe();
    }
}

/// Whether FP/SIMD instructions execute (not trapped): computes 1.0 + 1.0 in a SIMD register.
pub fn fp_simd_works() -> bool {
    let bits = exceptions::probe(|| {
        let bits: u64;
        // SAFETY: register-only FP arithmetic; a trap is caught by the probe.
        unsafe {
            core::arch::asm!(
                "fmov d16, #1.0",
                "fadd d16, d16, d16",
                "fmov {}, d16",
                out(reg) bits,
                out("d16") _,
                options(nomem, nostack),
            )
        };
        bits
    });
    bits == Ok(2.0f64.to_bits())
}
