//! The BCM2836's release (`enable-method = "brcm,bcm2836-smp"`, the Raspberry Pi 2B): each
//! secondary CPU waits in its boot stub until its local mailbox 3 holds an address, clears the
//! mailbox and jumps there (QEMU's hw/arm/raspi.c, the 32-bit `smpboot`: MPIDR's low two bits
//! pick the mailbox, "clear mbox", `bx r3`). The boot CPU writes the physical address of
//! `mailbox_entry` (boot/armv7/entry.S) to the mailbox's set register, then DSB SY and SEV, as
//! Linux's arch/arm/mach-bcm/platsmp.c (`bcm2836_boot_secondary`) does with
//! `secondary_startup`. Done, as the spin-table release on AArch64, before the firmware's
//! tables exist: the released CPU waits in its entry code for the boot CPU's translation
//! regime, and the register is reached through the early map, Strongly-ordered.

use super::start::{NotStarted, MAILBOX_WAIT_NS};
use super::SECONDARY_BLOCKS;
use crate::arch::image::image_layout;
use crate::arch::mmio::Device;
use crate::arch::timer::Deadline;
use crate::arch::{cache, cpu};
use core::sync::atomic::{AtomicU32, Ordering};
use mairbench_core::platform::{Armv7Only, BCM2836_MAILBOX3_CLR_OFFSET, MAX_CPUS};
use mairbench_core::uart::Mmio;

/// Per stack block: `RELEASE_KEY | (MPIDR & AFFINITY)` of the CPU a mailbox releases into it.
/// `mailbox_entry` (boot/armv7/entry.S) looks its own MPIDR up here, with its MMU off, to find
/// its block: nothing the stub leaves in its registers says it (QEMU's leaves the mailbox's
/// number in r0). Each entry is cleaned to memory before its CPU is released.
#[export_name = "mb_release_mpidr"]
static RELEASE_MPIDR: [AtomicU32; MAX_CPUS] = [const { AtomicU32::new(0) }; MAX_CPUS];

/// Marks a used entry of `RELEASE_MPIDR` (the affinity fields are MPIDR's bits 23:0).
const RELEASE_KEY: u32 = 1 << 31;

/// Releases the CPU `mpidr` into stack block `block` through its mailbox 3, whose set register
/// is at `set` (core's `Enable::Bcm2836`, from the tree's `brcm,bcm2836-l1-intc` node): its
/// MPIDR to `mb_release_mpidr[block]`, `mailbox_entry`'s address to the mailbox, DSB SY and SEV;
/// then waits, at most [`MAILBOX_WAIT_NS`], until the mailbox reads 0 again, which its stub does
/// before it jumps. A mailbox nobody took is cleared again, so that no stub that comes later
/// starts a CPU the run counts as not started.
pub fn release_mailbox(
    mpidr: u64,
    block: usize,
    set: u64,
    armv7: Armv7Only,
) -> Result<(), NotStarted> {
    extern "C" {
        fn mailbox_entry();
    }
    let slot = RELEASE_MPIDR
        .get(block)
        .filter(|_| (1..=SECONDARY_BLOCKS).contains(&block))
        .ok_or(NotStarted::NoStack)?;
    let image = image_layout();
    let in_image = (image.start..image.end).contains(&set);
    if cpu::mmu_on() || in_image || !set.is_multiple_of(4) {
        return Err(NotStarted::BadRelease);
    }
    slot.store(
        RELEASE_KEY | (mpidr & cpu::AFFINITY) as u32,
        Ordering::Release,
    );
    cache::clean_invalidate(slot as *const AtomicU32 as u64, 4);
    // The image runs identity-mapped: the function's address is its physical address.
    let entry = mailbox_entry as *const () as u32;
    // SAFETY: `set` is the CPU's mailbox 3 set register and `set + 0x40` its clear register,
    // both inside the registers of the tree's brcm,bcm2836-l1-intc node (core checks that), a
    // device outside the image (checked), aligned (checked). This runs before memory set-up
    // builds the firmware's tables (`Plan::release_spin_tables`, which `main` calls first;
    // the caches, off until then, are checked), so the early map is in use, which maps every
    // address outside the image's and the tree's blocks Strongly-ordered (boot/armv7/entry.S,
    // `early_map`). Only this function writes the mailbox, once per CPU.
    let mut mailbox = unsafe { Device::at(set) };
    let clear = BCM2836_MAILBOX3_CLR_OFFSET as usize;
    mailbox.write32(0, entry);
    super::wake();
    let deadline = Deadline::after_ns(MAILBOX_WAIT_NS);
    while mailbox.read32(clear) != 0 {
        if deadline.expired() {
            mailbox.write32(clear, u32::MAX);
            return Err(NotStarted::NotTaken(armv7));
        }
        core::hint::spin_loop();
    }
    Ok(())
}
