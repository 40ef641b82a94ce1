//! The spin-table release (`enable-method = "spin-table"`, arm64's boot protocol): a CPU
//! parked by its boot loader polls a release address and jumps to what is written there.

use super::start::NotStarted;
use super::SECONDARY_BLOCKS;
use crate::arch::image::image_layout;
use crate::arch::{cache, cpu};
use core::sync::atomic::{AtomicU64, Ordering};
use mairbench_core::platform::{Armv7Only, MAX_CPUS};

/// Per stack block: `SPIN_KEY | (MPIDR & AFFINITY)` of the CPU a spin table releases into
/// it. `spin_table_entry` (boot/aarch64/entry.S) looks its own MPIDR up here, with its MMU off, to
/// find its block; each entry is cleaned to memory before the CPU is released.
#[export_name = "mb_spin_mpidr"]
static SPIN_MPIDR: [AtomicU64; MAX_CPUS] = [const { AtomicU64::new(0) }; MAX_CPUS];

/// Marks a used entry of `SPIN_MPIDR` (an MPIDR never has bit 63 set).
const SPIN_KEY: u64 = 1 << 63;

/// Releases the CPU `mpidr` from its boot loader's spin table into stack block `block`:
/// its MPIDR goes to `mb_spin_mpidr[block]` (where `spin_table_entry` looks itself up), the
/// entry address to its release word `release`, then DSB SY and SEV. Done with the MMU off,
/// before the tables exist, so that no release page needs mapping: the CPU waits in its
/// entry code (`secondary_el1`, boot/aarch64/entry.S), with no stack, until the boot CPU publishes
/// its translation regime.
pub fn release(mpidr: u64, block: usize, release: u64) -> Result<(), NotStarted> {
    extern "C" {
        fn spin_table_entry();
    }
    let image = image_layout();
    let slot = SPIN_MPIDR
        .get(block)
        .filter(|_| (1..=SECONDARY_BLOCKS).contains(&block))
        .ok_or(NotStarted::NoStack)?;
    let in_image = (image.start..image.end).contains(&release);
    if cpu::mmu_on() || in_image || !release.is_multiple_of(8) {
        return Err(NotStarted::BadRelease);
    }
    slot.store(SPIN_KEY | (mpidr & cpu::AFFINITY), Ordering::Release);
    cache::clean_invalidate(slot as *const AtomicU64 as u64, 8);
    let entry = spin_table_entry as *const () as u64;
    // SAFETY: the device tree names `release` as this CPU's `cpu-release-addr`: a word its
    // boot loader's spin loop polls and that nothing of the firmware uses (it is outside the
    // image, checked above); the MMU is off (checked), so it is a physical address, aligned.
    unsafe { core::ptr::write_volatile(release as *mut u64, entry) };
    cache::clean_invalidate(release, 8);
    super::wake();
    Ok(())
}

/// The BCM2836's mailboxes are 32-bit Arm's: the AArch64 image's core makes no
/// `Enable::Bcm2836` (its [`Armv7Only`] mark is an empty type there), so this is never called.
pub fn release_mailbox(
    _mpidr: u64,
    _block: usize,
    _set: u64,
    armv7: Armv7Only,
) -> Result<(), NotStarted> {
    Err(NotStarted::NotTaken(armv7))
}
