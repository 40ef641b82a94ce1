//! Secondary CPUs: started with PSCI CPU_ON at `secondary_entry` (boot/entry.S), they drop to
//! EL1, take their own stacks, turn the MMU on with the boot CPU's translation regime and say
//! hello through a per-CPU slot. For now they then wait (`wfe`).

use super::{mmu, Global};
use core::sync::atomic::{AtomicU64, Ordering};
use mairbench_core::platform::{PsciConduit, MAX_CPUS};

/// Stack blocks for secondary CPUs (linker.ld): 1..=SECONDARY_BLOCKS.
pub const SECONDARY_BLOCKS: usize = MAX_CPUS - 1;
const BLOCK: u64 = 0x8000;

/// The boot CPU's regime, cleaned to memory so that a CPU with its MMU off can read it.
static REGIME: Global<Option<mmu::Regime>> = Global::new(None);

/// Per stack block: 0 until the CPU is up, then `1 | entry_el << 1 | (MPIDR & 0xff_ffff) << 8`.
static ONLINE: [AtomicU64; MAX_CPUS] = [const { AtomicU64::new(0) }; MAX_CPUS];

/// Where the secondary stacks live: (start of the area, bytes per CPU).
pub fn stack_area() -> (u64, u64) {
    extern "C" {
        static __secondary_stacks: u8;
    }
    (core::ptr::addr_of!(__secondary_stacks) as u64, BLOCK)
}

/// Publishes the translation regime for the secondaries (written back to memory).
pub fn publish(regime: mmu::Regime) {
    REGIME.set(Some(regime));
    let at = core::ptr::addr_of!(REGIME) as u64;
    mmu::clean_invalidate(at, core::mem::size_of_val(&REGIME) as u64);
}

/// What became of one CPU_ON.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Start {
    /// Up at EL1; entered at `entry_el`, reporting `mpidr`.
    Up {
        /// Exception level it was started in.
        entry_el: u64,
        /// Its own MPIDR_EL1 (affinity bits).
        mpidr: u64,
    },
    /// PSCI refused, with its error code.
    Refused(i64),
    /// The call trapped: no PSCI after all.
    Trapped,
    /// Accepted, but the CPU did not report within the wait.
    Silent,
}

/// Starts the CPU `mpidr` on stack block `block` (1..=SECONDARY_BLOCKS) and waits up to
/// `wait_ticks` of CNTVCT for it to report.
pub fn start(conduit: PsciConduit, mpidr: u64, block: usize, wait_ticks: u64) -> Start {
    extern "C" {
        fn secondary_entry();
    }
    let Some(slot) = ONLINE
        .get(block)
        .filter(|_| (1..=SECONDARY_BLOCKS).contains(&block))
    else {
        return Start::Refused(-2);
    };
    let entry = secondary_entry as *const () as u64;
    let call = || match conduit {
        PsciConduit::Hvc => smccc::psci::cpu_on::<smccc::Hvc>(mpidr, entry, block as u64),
        PsciConduit::Smc => smccc::psci::cpu_on::<smccc::Smc>(mpidr, entry, block as u64),
    };
    match super::exceptions::probe(call) {
        Err(_) => return Start::Trapped,
        Ok(Err(e)) => return Start::Refused(i64::from(e)),
        Ok(Ok(())) => {}
    }
    let t0 = super::ticks();
    while super::ticks().wrapping_sub(t0) < wait_ticks {
        let word = slot.load(Ordering::Acquire);
        if word != 0 {
            return Start::Up {
                entry_el: (word >> 1) & 3,
                mpidr: word >> 8,
            };
        }
        core::hint::spin_loop();
    }
    Start::Silent
}

/// Rust entry of a secondary CPU (from boot/entry.S), on its own stacks, MMU off.
#[no_mangle]
extern "C" fn secondary_main(block: u64, entry_el: u64) -> ! {
    use aarch64_cpu::registers::{Readable, MPIDR_EL1};
    if let Some(regime) = REGIME.get() {
        let (area, size) = stack_area();
        let own = area + block.saturating_sub(1) * size;
        mmu::enable(&regime, &[(own, size)]);
        if let Some(slot) = ONLINE.get(block as usize) {
            let mpidr = MPIDR_EL1.get() & 0xff_ffff;
            slot.store(1 | (entry_el & 3) << 1 | mpidr << 8, Ordering::Release);
        }
    }
    super::park()
}
