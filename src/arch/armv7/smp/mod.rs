//! Secondary CPUs on 32-bit Arm: started with PSCI CPU_ON at `secondary_entry`
//! (boot/armv7/entry.S), or on the BCM2836 (Raspberry Pi 2B) released from its boot stub
//! through their mailboxes to `mailbox_entry` ([`mailbox`]), they drop to SVC mode, turn the
//! MMU on with the boot CPU's translation regime, take their own stacks and say hello, then
//! serve jobs: the same code as the AArch64 image's (`src/arch/shared/smp`), with the
//! registers and the entry of this architecture. There are no spin tables on 32-bit Arm.

#[path = "../../shared/smp/bounce.rs"]
pub mod bounce;
#[path = "../../shared/smp/jobs.rs"]
pub mod jobs;
mod mailbox;
mod regs;
mod spin;
#[path = "../../shared/smp/start.rs"]
pub mod start;
#[path = "../../shared/smp/work.rs"]
pub mod work;

use mairbench_core::platform::MAX_CPUS;

/// Wakes the CPUs waiting in WFE for what this CPU stored before: DSB SY first, so that those
/// stores have completed when a woken CPU reads its word again (as the AArch64 image's).
#[inline(always)]
pub fn wake() {
    // SAFETY: DSB and SEV change no register and no memory; the default `asm!` options (it
    // may read and write memory) keep the compiler's stores before it.
    unsafe { core::arch::asm!("dsb sy", "sev", options(nostack, preserves_flags)) };
}

/// Whether a CPU whose `enable-method` is absent or unknown is started by PSCI CPU_ON when
/// `/psci` is usable: yes, as Linux's ARM code does. Its arch/arm/kernel/setup.c
/// (`setup_arch`) takes PSCI for every CPU of a machine without SMP code of its own, whatever
/// the CPUs name (`if (!mdesc->smp_init || !mdesc->smp_init()) { if (psci_smp_available())
/// smp_set_ops(&psci_smp_ops); ...`), and arch/arm/kernel/psci_smp.c's `psci_smp_available`
/// asks only that `/psci` gave CPU_ON. The Orange Pi PC's tree names no method: QEMU's
/// `orangepi-pc` adds the `/psci` node (hw/arm/boot.c, `fdt_add_psci_node`, for the machine's
/// `psci_conduit`, SMC). Here a method the tree names and the firmware knows comes first.
pub const PSCI_WITHOUT_METHOD: bool = true;

/// Stack blocks for secondary CPUs: 1..=SECONDARY_BLOCKS.
pub const SECONDARY_BLOCKS: usize = MAX_CPUS - 1;
/// Bytes of one secondary CPU's stack block: `[guard 4 KiB][stack 16 KiB][guard 4 KiB]
/// [exception stack 8 KiB]`. boot/armv7/entry.S gets it as `SECONDARY_BLOCK` (see `arch`).
pub const BLOCK: u64 = 0x8000;

/// PSCI CPU_ON (its SMC32 form: a 32-bit caller has no SMC64 calls): starts the CPU `mpidr` at `entry` with stack block `block` as its context ID.
fn cpu_on<C: smccc::Call>(mpidr: u64, entry: u64, block: usize) -> Result<(), smccc::psci::Error> {
    smccc::psci::cpu_on_32::<C>(mpidr as u32, entry as u32, block as u32)
}
