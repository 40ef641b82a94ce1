//! Secondary CPUs: started with PSCI CPU_ON at `secondary_entry` (boot/entry.S), they drop to
//! EL1, take their own stacks, turn the MMU on with the boot CPU's translation regime and say
//! hello through a per-CPU slot. Then each waits for jobs: a measured loop to run, timed on
//! its own clock, started together with the other CPUs of the job.

use super::kernels::{self, Loop};
use super::timer::Deadline;
use super::{mmu, Global};
use core::sync::atomic::{AtomicU64, Ordering};
use mairbench_core::platform::{PsciConduit, MAX_CPUS};

/// Stack blocks for secondary CPUs (linker.ld): 1..=SECONDARY_BLOCKS.
pub const SECONDARY_BLOCKS: usize = MAX_CPUS - 1;
const BLOCK: u64 = 0x8000;

/// The boot CPU's regime and how many stack blocks its tables map (checked by
/// `mmu::activate`), cleaned to memory so that a CPU with its MMU off can read them.
static REGIME: Global<Option<(mmu::Regime, usize)>> = Global::new(None);

/// Per stack block: 0 until the CPU is up, then `1 | entry_el << 1 | (MPIDR & 0xff_ffff) << 8`.
static ONLINE: [AtomicU64; MAX_CPUS] = [const { AtomicU64::new(0) }; MAX_CPUS];

/// Where the secondary stacks live: (start of the area, bytes per CPU).
pub fn stack_area() -> (u64, u64) {
    extern "C" {
        static __secondary_stacks: u8;
    }
    (core::ptr::addr_of!(__secondary_stacks) as u64, BLOCK)
}

/// The stack and the exception stack of stack block `block` (1..=SECONDARY_BLOCKS), as
/// `[start, end)`: the block is `[guard][stack 16 KiB][guard][exception stack 8 KiB]`.
pub fn stacks(block: usize) -> [(u64, u64); 2] {
    const PAGE: u64 = 4096;
    let (area, size) = stack_area();
    let base = area + (block as u64).saturating_sub(1) * size;
    [
        (base + PAGE, base + 5 * PAGE),
        (base + 6 * PAGE, base + 8 * PAGE),
    ]
}

/// Publishes the translation regime for the secondaries (written back to memory), whose
/// tables map the stacks of blocks `1..=blocks`.
pub(super) fn publish(regime: mmu::Regime, blocks: usize) {
    REGIME.set(Some((regime, blocks)));
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
/// `wait_ns` nanoseconds for it to report.
pub fn start(conduit: PsciConduit, mpidr: u64, block: usize, wait_ns: u64) -> Start {
    extern "C" {
        fn secondary_entry();
    }
    let mapped = REGIME.get().map_or(0, |(_, blocks)| blocks);
    let Some(slot) = ONLINE
        .get(block)
        .filter(|_| (1..=SECONDARY_BLOCKS.min(mapped)).contains(&block))
    else {
        return Start::Refused(-2);
    };
    let entry = secondary_entry as *const () as u64;
    let call = || match conduit {
        PsciConduit::Hvc => smccc::psci::cpu_on::<smccc::Hvc>(mpidr, entry, block as u64),
        PsciConduit::Smc => smccc::psci::cpu_on::<smccc::Smc>(mpidr, entry, block as u64),
    };
    // SAFETY: the only instruction that may trap is the conduit's HVC or SMC inside the
    // smccc call; stepping over it leaves the call returning garbage, which is then ignored.
    match unsafe { super::exceptions::probe(call) } {
        Err(_) => return Start::Trapped,
        Ok(Err(e)) => return Start::Refused(i64::from(e)),
        Ok(Ok(())) => {}
    }
    let deadline = Deadline::after_ns(wait_ns);
    while !deadline.expired() {
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

/// One CPU's share of a job: a loop, how many passes to time.
#[derive(Clone, Copy, Debug)]
pub struct Job {
    /// The measured loop over this CPU's part of the buffer.
    pub body: Loop,
    /// Passes timed as one sample.
    pub passes: u64,
}

static JOBS: [Global<Option<Job>>; MAX_CPUS] = [const { Global::new(None) }; MAX_CPUS];
/// Per stack block: the sequence number of the job posted to that CPU.
static POSTED: [AtomicU64; MAX_CPUS] = [const { AtomicU64::new(0) }; MAX_CPUS];
/// Per stack block: `sequence << 40 | ticks` of the job the CPU finished.
static FINISHED: [AtomicU64; MAX_CPUS] = [const { AtomicU64::new(0) }; MAX_CPUS];
/// How many CPUs of the current job have arrived at the start line.
static ARRIVED: AtomicU64 = AtomicU64::new(0);
/// The sequence number of the job that may start.
static GO: AtomicU64 = AtomicU64::new(0);

/// Runs `own` on this (boot) CPU and each `(block, job)` of `others` on the secondary CPU of
/// that stack block, all started together; writes each CPU's ticks (boot CPU first) to
/// `ticks_out`. `None` if a CPU did not line up or finish within `limit_ns` nanoseconds.
pub fn run_together(
    seq: u64,
    own: Job,
    others: &[(usize, Job)],
    limit_ns: u64,
    ticks_out: &mut [u64],
) -> Option<()> {
    ARRIVED.store(0, Ordering::SeqCst);
    for &(block, job) in others {
        JOBS.get(block)?.set(Some(job));
        POSTED.get(block)?.store(seq, Ordering::Release);
    }
    aarch64_cpu::asm::sev();
    let deadline = Deadline::after_ns(limit_ns);
    while ARRIVED.load(Ordering::Acquire) < others.len() as u64 {
        if deadline.expired() {
            return None;
        }
        core::hint::spin_loop();
    }
    GO.store(seq, Ordering::Release);
    aarch64_cpu::asm::sev();
    let mut body = own.body;
    *ticks_out.first_mut()? = kernels::time(own.passes, false, &mut body).ticks;
    for (out, &(block, _)) in ticks_out.iter_mut().skip(1).zip(others) {
        let slot = FINISHED.get(block)?;
        loop {
            let word = slot.load(Ordering::Acquire);
            if word >> 40 == seq & 0xff_ffff {
                *out = word & ((1 << 40) - 1);
                break;
            }
            if deadline.expired() {
                return None;
            }
            core::hint::spin_loop();
        }
    }
    Some(())
}

/// A secondary CPU's life after hello: wait for a job, line up, run it, report its ticks.
fn serve(block: usize) -> ! {
    let (Some(posted), Some(finished), Some(job)) =
        (POSTED.get(block), FINISHED.get(block), JOBS.get(block))
    else {
        super::park()
    };
    let mut done = 0;
    loop {
        let seq = posted.load(Ordering::Acquire);
        if seq == done {
            aarch64_cpu::asm::wfe();
            continue;
        }
        done = seq;
        let Some(Job { mut body, passes }) = job.get() else {
            continue;
        };
        ARRIVED.fetch_add(1, Ordering::AcqRel);
        while GO.load(Ordering::Acquire) != seq {
            aarch64_cpu::asm::wfe();
        }
        let ticks = kernels::time(passes, false, &mut body).ticks;
        finished.store(
            (seq & 0xff_ffff) << 40 | ticks.min((1 << 40) - 1),
            Ordering::Release,
        );
    }
}

/// Rust entry of a secondary CPU (from boot/entry.S), on its own stacks, MMU off.
#[no_mangle]
extern "C" fn secondary_main(block: u64, entry_el: u64) -> ! {
    use aarch64_cpu::registers::{Readable, MPIDR_EL1};
    match REGIME.get() {
        Some((regime, blocks)) if (1..=blocks).contains(&(block as usize)) => {
            let (area, size) = stack_area();
            let own = area + block.saturating_sub(1) * size;
            // SAFETY: the boot CPU's regime, which `mmu::activate` checked identity-maps the
            // image and the stacks of blocks 1..=blocks (this block among them); this CPU
            // has run with its caches off, so memory holds the truth for its stacks.
            unsafe { mmu::enable(&regime, &[(own, size)]) };
            if let Some(slot) = ONLINE.get(block as usize) {
                let mpidr = MPIDR_EL1.get() & 0xff_ffff;
                slot.store(1 | (entry_el & 3) << 1 | mpidr << 8, Ordering::Release);
            }
            serve(block as usize)
        }
        _ => super::park(),
    }
}
