//! Starting the secondary CPUs: their stack blocks, the boot CPU's translation regime
//! published for them, PSCI CPU_ON, the spin-table or (32-bit Arm) mailbox release, and the
//! hello each says (`online`) before it serves jobs ([`super::jobs`]).

pub use super::spin::{release, release_mailbox};
use super::{BLOCK, SECONDARY_BLOCKS};
pub use crate::arch::cpu::AFFINITY;
use crate::arch::global::Global;
use crate::arch::timer::Deadline;
use crate::arch::{cache, cpu, exceptions, mmu};
use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicU64, Ordering};
use mairbench_core::platform::{Armv7Only, PsciConduit, MAX_CPUS};
use mairbench_core::topology::Caches;

/// One CPU's stack block, page-aligned so its guard pages can stay unmapped.
#[repr(C, align(4096))]
struct StackBlock([u8; BLOCK as usize]);

/// The secondary CPUs' stack blocks. Rust never reads or writes them (only their address is
/// taken); each CPU's entry code points its stack pointers into its own block. `linker.ld`
/// puts the section in the image's NOLOAD stacks, so it costs no bytes in the file.
#[export_name = "__secondary_stacks"]
#[link_section = ".stacks.secondary"]
static mut SECONDARY_STACKS: [StackBlock; SECONDARY_BLOCKS] =
    [const { StackBlock([0; BLOCK as usize]) }; SECONDARY_BLOCKS];

const _: () = assert!(core::mem::size_of::<StackBlock>() as u64 == BLOCK);
const _: () = assert!(BLOCK.is_multiple_of(4096) && BLOCK >= 8 * 4096);

/// The boot CPU's translation regime as the secondaries' entry code reads it with their MMU
/// off, before they touch any stack (`secondary_el1`, boot/aarch64/entry.S): written by `publish`,
/// cleaned to memory, `published` last. Whole words at the offsets `arch` hands the assembly
/// (`HANDOFF_*`); `published` first, for the `LDAR` that waits on it.
#[repr(C)]
pub(crate) struct Handoff {
    /// 1 once the other words are whole in memory.
    pub(crate) published: AtomicU64,
    /// MAIR_EL1.
    pub(crate) mair: AtomicU64,
    /// TCR_EL1.
    pub(crate) tcr: AtomicU64,
    /// TTBR0_EL1.
    pub(crate) ttbr0: AtomicU64,
    /// How many stack blocks the tables map (checked by `mmu::activate`): blocks
    /// `1..=blocks` may turn the MMU on.
    pub(crate) blocks: AtomicU64,
}

const _: () = assert!(core::mem::offset_of!(Handoff, published) == 0);

/// The regime handed to the secondaries (see [`Handoff`]).
#[export_name = "mb_secondary_handoff"]
static HANDOFF: Handoff = Handoff {
    published: AtomicU64::new(0),
    mair: AtomicU64::new(0),
    tcr: AtomicU64::new(0),
    ttbr0: AtomicU64::new(0),
    blocks: AtomicU64::new(0),
};

/// Per stack block: 0 until the CPU is up, then `1 | entry_el << 1`.
static ONLINE: [AtomicU64; MAX_CPUS] = [const { AtomicU64::new(0) }; MAX_CPUS];
/// Per stack block: the CPU's own MPIDR_EL1 and MIDR_EL1, written before `ONLINE`.
static CPU_MPIDR: [AtomicU64; MAX_CPUS] = [const { AtomicU64::new(0) }; MAX_CPUS];
static CPU_MIDR: [AtomicU64; MAX_CPUS] = [const { AtomicU64::new(0) }; MAX_CPUS];
/// Per stack block: the data and unified caches the CPU's own CLIDR_EL1 and CCSIDR_EL1
/// describe, written before `ONLINE` (a big.LITTLE board's clusters differ). Uninitialized
/// until then, so that the table costs no bytes in the image.
static CPU_CACHES: [Global<MaybeUninit<Caches>>; MAX_CPUS] =
    [const { Global::new(MaybeUninit::uninit()) }; MAX_CPUS];
/// Per stack block: the CPU's translation-regime registers with its MMU on, written before
/// `ONLINE`.
static CPU_REGS: [Global<Regs>; MAX_CPUS] = [const {
    Global::new(Regs {
        sctlr: 0,
        mair: 0,
        tcr: 0,
        ttbr0: 0,
    })
}; MAX_CPUS];

/// The registers that make a CPU's view of memory: every CPU must hold the same values for
/// the memory types, shareability and tables to agree between cores.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Regs {
    /// SCTLR_EL1: MMU, caches, alignment checks.
    pub sctlr: u64,
    /// MAIR_EL1: the eight memory attributes.
    pub mair: u64,
    /// TCR_EL1: granule, sizes, table-walk cacheability and shareability.
    pub tcr: u64,
    /// TTBR0_EL1: the tables (and ASID).
    pub ttbr0: u64,
}

impl Regs {
    /// The values, in the order of [`Regs::NAMES`].
    pub fn values(&self) -> [u64; 4] {
        [self.sctlr, self.mair, self.tcr, self.ttbr0]
    }
}

/// Where the secondary stacks live: (start of the area, bytes per CPU).
pub fn stack_area() -> (u64, u64) {
    (core::ptr::addr_of!(SECONDARY_STACKS) as u64, BLOCK)
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
fn publish(regime: mmu::Regime, blocks: usize) {
    HANDOFF.mair.store(regime.mair, Ordering::Relaxed);
    HANDOFF.tcr.store(regime.tcr, Ordering::Relaxed);
    HANDOFF.ttbr0.store(regime.ttbr0, Ordering::Relaxed);
    HANDOFF.blocks.store(blocks as u64, Ordering::Relaxed);
    let at = core::ptr::addr_of!(HANDOFF) as u64;
    let len = core::mem::size_of::<Handoff>() as u64;
    cache::clean_invalidate(at, len);
    // Only now, with the whole regime in memory, may a waiting CPU read it: a CPU that read
    // it while it was being written could see half of it.
    HANDOFF.published.store(1, Ordering::Release);
    cache::clean_invalidate(at, len);
    super::wake(); // spin-table CPUs released earlier wait for it
}

/// What [`mmu::activate`] needs to know of the first `count` secondary CPUs: their stacks, to
/// check that the tables map them, and `publish`, to hand them the checked regime.
pub fn secondaries(count: usize) -> mmu::Secondaries {
    mmu::Secondaries {
        count,
        stacks,
        publish,
    }
}

/// How one secondary CPU is started.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// PSCI CPU_ON through this conduit.
    Psci(PsciConduit),
    /// Its boot loader's spin table: the entry address goes to `release` (physical).
    SpinTable {
        /// The CPU's `cpu-release-addr`.
        release: u64,
    },
    /// The BCM2836's local mailbox 3 (32-bit Arm, `brcm,bcm2836-smp`): the entry address goes
    /// to its set register `set` (physical), which the CPU's boot stub polls.
    Mailbox {
        /// The register ([`mairbench_core::platform::Enable::Bcm2836`]).
        set: u64,
        /// Only the 32-bit image has such a CPU.
        armv7: Armv7Only,
    },
}

/// How long a BCM2836 CPU's boot stub has to take the entry address from its mailbox (it
/// clears the mailbox before it jumps).
pub const MAILBOX_WAIT_NS: u64 = 1_000_000_000;

/// Why a CPU is not running.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotStarted {
    /// PSCI refused, with its error code.
    Refused(i64),
    /// The call trapped: no PSCI after all.
    Trapped,
    /// Started, but the CPU did not report within the wait.
    Silent,
    /// Its stack block is beyond those the tables map.
    NoStack,
    /// Its spin table's release address or its mailbox lies in the image or is unaligned (or
    /// the MMU was already on).
    BadRelease,
    /// Its mailbox still held the entry address [`MAILBOX_WAIT_NS`] after the write: no boot
    /// stub waits on it (the address was withdrawn).
    NotTaken(Armv7Only),
}

/// A secondary CPU that reported.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Up {
    /// Exception level it was started in.
    pub entry_el: u64,
    /// Its own MPIDR_EL1.
    pub mpidr: u64,
    /// Its own MIDR_EL1 (multi-cluster parts differ).
    pub midr: u64,
    /// Its translation-regime registers, read by itself with its MMU on.
    pub regs: Regs,
    /// Its data and unified caches, as it reads them itself.
    pub caches: Caches,
}

/// Starts the CPU `mpidr` on stack block `block` (1..=SECONDARY_BLOCKS) with `method`,
/// without waiting for it (see [`wait_online`]).
pub fn launch(method: Method, mpidr: u64, block: usize) -> Result<(), NotStarted> {
    extern "C" {
        fn secondary_entry();
    }
    let published = HANDOFF.published.load(Ordering::Acquire) != 0;
    let mapped = if published {
        HANDOFF.blocks.load(Ordering::Relaxed) as usize
    } else {
        0
    };
    if !(1..=SECONDARY_BLOCKS.min(mapped)).contains(&block) {
        return Err(NotStarted::NoStack);
    }
    match method {
        Method::Psci(conduit) => {
            let entry = secondary_entry as *const () as u64;
            let call = || match conduit {
                PsciConduit::Hvc => super::cpu_on::<smccc::Hvc>(mpidr, entry, block),
                PsciConduit::Smc => super::cpu_on::<smccc::Smc>(mpidr, entry, block),
            };
            // SAFETY: the only instruction that may trap is the conduit's HVC or SMC inside
            // the smccc call; stepping over it leaves the call returning garbage, ignored.
            match unsafe { exceptions::probe(call) } {
                Err(_) => Err(NotStarted::Trapped),
                Ok(Err(e)) => Err(NotStarted::Refused(i64::from(e))),
                Ok(Ok(())) => Ok(()),
            }
        }
        // Released earlier, with the MMU off: see `release` and `release_mailbox`.
        Method::SpinTable { .. } | Method::Mailbox { .. } => Ok(()),
    }
}

/// Waits until every block of `blocks` has reported or `wait_ns` nanoseconds have passed.
pub fn wait_online(blocks: impl Iterator<Item = usize> + Clone, wait_ns: u64) {
    let deadline = Deadline::after_ns(wait_ns);
    let up = |b: usize| {
        ONLINE
            .get(b)
            .is_some_and(|w| w.load(Ordering::Acquire) != 0)
    };
    while !blocks.clone().all(up) && !deadline.expired() {
        core::hint::spin_loop();
    }
}

/// The CPU of stack block `block`, if it has reported.
pub fn online(block: usize) -> Option<Up> {
    let word = ONLINE.get(block)?.load(Ordering::Acquire);
    (word != 0).then(|| Up {
        entry_el: (word >> 1) & 3,
        mpidr: CPU_MPIDR
            .get(block)
            .map_or(0, |m| m.load(Ordering::Relaxed)),
        midr: CPU_MIDR.get(block).map_or(0, |m| m.load(Ordering::Relaxed)),
        regs: CPU_REGS.get(block).map_or(Regs::default(), Global::get),
        caches: CPU_CACHES.get(block).map_or(Caches::NONE, |c| {
            // SAFETY: `ONLINE` holds a nonzero word for this block (seen by the Acquire load
            // above), which `secondary_main` stores with Release after it wrote the caches.
            unsafe { c.get().assume_init() }
        }),
    })
}

/// `mairbench.selftest=caches-off`: turns this CPU's data cache off for the measurements, when
/// no secondary CPU is running yet (spin-table CPUs released early may already be). Returns
/// the DC CISW operations of the set/way clean, or why it was not done.
pub fn data_cache_off() -> Result<u64, &'static str> {
    if (1..=SECONDARY_BLOCKS).any(|b| online(b).is_some()) {
        return Err("secondary CPUs already run with their caches on");
    }
    // SAFETY: no secondary CPU has reported, and the caller starts none before this returns
    // (the boot CPU is the only one running mairbench code).
    Ok(unsafe { mmu::data_cache_off() })
}

/// Rust entry of a secondary CPU (from `secondary_el1`, boot/aarch64/entry.S), on its own stacks,
/// with the MMU and caches already on with the boot CPU's regime: its entry code turned them
/// on before its first stack access (see there why).
#[no_mangle]
extern "C" fn secondary_main(b: usize, entry_el: usize) -> ! {
    // Its counter reads (the job spans) follow its own core's errata.
    cpu::own_counter_errata();
    let id = cpu::cpu_id();
    if let (Some(slot), Some(mpidr), Some(midr), Some(regs), Some(caches)) = (
        ONLINE.get(b),
        CPU_MPIDR.get(b),
        CPU_MIDR.get(b),
        CPU_REGS.get(b),
        CPU_CACHES.get(b),
    ) {
        mpidr.store(id.mpidr & AFFINITY, Ordering::Relaxed);
        midr.store(id.midr, Ordering::Relaxed);
        regs.set(Regs::own());
        caches.set(MaybeUninit::new(Caches::from(cpu::cache_levels())));
        slot.store(1 | (entry_el as u64 & 3) << 1, Ordering::Release);
    }
    super::jobs::serve(b)
}
