//! Secondary CPUs: started with PSCI CPU_ON at `secondary_entry`, or released from their boot
//! loader's spin table to `spin_table_entry` (boot/aarch64/entry.S), they drop to EL1, turn the MMU
//! on with the boot CPU's translation regime (before any stack use: see `secondary_el1`), take
//! their own stacks and say hello through a per-CPU slot (with its own SCTLR/MAIR/TCR/TTBR0
//! for the boot CPU to compare). Then each waits for jobs, started together with the other
//! CPUs of the job at one CNTVCT value: a measured loop, timed on the counter all cores share
//! (start and end, so that the boot CPU knows the skew and the span of the whole job); a
//! stream that runs until stopped (load for the boot CPU's measurement); or one round of the
//! shared-line test.
//!
//! Every per-CPU size derives from `mairbench_core::platform::MAX_CPUS`: one stack block,
//! one slot of each table below per CPU; block 0 is the boot CPU's (it has its own stacks).
//!
//! - [`start`]: the stacks, starting a CPU (PSCI, spin table), its hello (online);
//! - [`jobs`]: the job mailbox the started CPUs serve (post, start together, run, report);
//! - [`work`]: what a CPU does for a job and reports (a timed loop's span, a stream);
//! - [`bounce`]: a cache line bounced between two CPUs (the core-to-core latency).

#[path = "../../shared/smp/bounce.rs"]
pub mod bounce;
#[path = "../../shared/smp/jobs.rs"]
pub mod jobs;
mod regs;
mod spin;
#[path = "../../shared/smp/start.rs"]
pub mod start;
#[path = "../../shared/smp/work.rs"]
pub mod work;

use mairbench_core::platform::MAX_CPUS;

/// Wakes the CPUs waiting in WFE for what this CPU stored before: DSB SY first, so that those
/// stores have completed when a woken CPU reads its word again. SEV alone may wake it before
/// the store is visible, and it would sleep again until its timeout (a lost wake-up). TF-A
/// does the same (`dsbish(); sev();`, and `dsb(); sev();` with "Required to ensure ordering
/// of the following sev" in its bakery lock). One `asm!` block, not aarch64-cpu's `dsb()` and
/// `sev()`, so that the pair stays adjacent in the image, where a test checks that a DSB
/// immediately precedes every SEV.
#[inline(always)]
pub fn wake() {
    // SAFETY: DSB and SEV change no register and no memory; the default `asm!` options (it
    // may read and write memory) keep the compiler's stores before it.
    unsafe { core::arch::asm!("dsb sy", "sev", options(nostack, preserves_flags)) };
}

/// Whether a CPU whose `enable-method` is absent or unknown is started by PSCI CPU_ON when
/// `/psci` is usable: not on arm64, which needs each CPU's own method (Linux's
/// arch/arm64/kernel/cpu_ops.c, `cpu_read_enable_method`: "missing enable-method property",
/// and the CPU is not started).
pub const PSCI_WITHOUT_METHOD: bool = false;

/// Stack blocks for secondary CPUs: 1..=SECONDARY_BLOCKS.
pub const SECONDARY_BLOCKS: usize = MAX_CPUS - 1;
/// Bytes of one secondary CPU's stack block: `[guard 4 KiB][stack 16 KiB][guard 4 KiB]
/// [exception stack 8 KiB]`. boot/aarch64/entry.S gets it as `SECONDARY_BLOCK` (see `arch`).
pub const BLOCK: u64 = 0x8000;

/// PSCI CPU_ON (its SMC64 form): starts the CPU `mpidr` at `entry` with stack block `block` as its context ID.
fn cpu_on<C: smccc::Call>(mpidr: u64, entry: u64, block: usize) -> Result<(), smccc::psci::Error> {
    smccc::psci::cpu_on::<C>(mpidr, entry, block as u64)
}
