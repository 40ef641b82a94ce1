//! Secondary CPUs: started with PSCI CPU_ON at `secondary_entry`, or released from their boot
//! loader's spin table to `spin_table_entry` (boot/entry.S), they drop to EL1, take their own
//! stacks, turn the MMU on with the boot CPU's translation regime and say hello through a
//! per-CPU slot (with its own SCTLR/MAIR/TCR/TTBR0 for the boot CPU to compare). Then each
//! waits for jobs, started together with the other CPUs of the job at one CNTVCT value: a
//! measured loop, timed on the counter all cores share (start and end, so that the boot CPU
//! knows the skew and the span of the whole job); a stream that runs until stopped (load for
//! the boot CPU's measurement); or one round of the shared-line test.
//!
//! Every per-CPU size derives from `mairbench_core::platform::MAX_CPUS`: one stack block,
//! one slot of each table below per CPU; block 0 is the boot CPU's (it has its own stacks).

use super::buffer::Window;
use super::kernels::Loop;
use super::timer::Deadline;
use super::{mmu, Global};
use aarch64_cpu::asm::barrier::{dsb, SY};
use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicU64, Ordering};
use mairbench_core::platform::{PsciConduit, MAX_CPUS};

/// Stack blocks for secondary CPUs: 1..=SECONDARY_BLOCKS.
pub const SECONDARY_BLOCKS: usize = MAX_CPUS - 1;
/// Bytes of one secondary CPU's stack block: `[guard 4 KiB][stack 16 KiB][guard 4 KiB]
/// [exception stack 8 KiB]`. boot/entry.S gets it as `SECONDARY_BLOCK` (see `arch`).
pub const BLOCK: u64 = 0x8000;

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

/// The boot CPU's regime and how many stack blocks its tables map (checked by
/// `mmu::activate`), cleaned to memory so that a CPU with its MMU off can read them.
static REGIME: Global<Option<(mmu::Regime, usize)>> = Global::new(None);

/// Per stack block: 0 until the CPU is up, then `1 | entry_el << 1`.
static ONLINE: [AtomicU64; MAX_CPUS] = [const { AtomicU64::new(0) }; MAX_CPUS];
/// Per stack block: the CPU's own MPIDR_EL1 and MIDR_EL1, written before `ONLINE`.
static CPU_MPIDR: [AtomicU64; MAX_CPUS] = [const { AtomicU64::new(0) }; MAX_CPUS];
static CPU_MIDR: [AtomicU64; MAX_CPUS] = [const { AtomicU64::new(0) }; MAX_CPUS];
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
    /// The registers' names, in the order of [`Regs::values`].
    pub const NAMES: [&'static str; 4] = ["SCTLR_EL1", "MAIR_EL1", "TCR_EL1", "TTBR0_EL1"];

    /// The values, in the order of [`Regs::NAMES`].
    pub fn values(&self) -> [u64; 4] {
        [self.sctlr, self.mair, self.tcr, self.ttbr0]
    }

    /// The calling CPU's own.
    pub fn own() -> Regs {
        use aarch64_cpu::registers::{Readable, MAIR_EL1, SCTLR_EL1, TCR_EL1, TTBR0_EL1};
        Regs {
            sctlr: SCTLR_EL1.get(),
            mair: MAIR_EL1.get(),
            tcr: TCR_EL1.get(),
            ttbr0: TTBR0_EL1.get(),
        }
    }
}

/// Per stack block: `SPIN_KEY | (MPIDR & AFFINITY)` of the CPU a spin table releases into
/// it. `spin_table_entry` (boot/entry.S) looks its own MPIDR up here, with its MMU off, to
/// find its block; each entry is cleaned to memory before the CPU is released.
#[export_name = "mb_spin_mpidr"]
static SPIN_MPIDR: [AtomicU64; MAX_CPUS] = [const { AtomicU64::new(0) }; MAX_CPUS];
/// Marks a used entry of `SPIN_MPIDR` (an MPIDR never has bit 63 set).
const SPIN_KEY: u64 = 1 << 63;
/// MPIDR_EL1's affinity fields: Aff3 \[39:32\] and Aff2..Aff0 \[23:0\].
pub const AFFINITY: u64 = 0xff_00ff_ffff;

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
pub(super) fn publish(regime: mmu::Regime, blocks: usize) {
    REGIME.set(Some((regime, blocks)));
    let at = core::ptr::addr_of!(REGIME) as u64;
    mmu::clean_invalidate(at, core::mem::size_of_val(&REGIME) as u64);
    // Only now, with the whole regime in memory, may a waiting CPU read it: a CPU that read
    // it while it was being written could see half of it.
    PUBLISHED.store(1, Ordering::Release);
    mmu::clean_invalidate(core::ptr::addr_of!(PUBLISHED) as u64, 8);
    aarch64_cpu::asm::sev(); // spin-table CPUs released earlier wait for it
}

/// 1 once `REGIME` is whole in memory (see `publish`).
static PUBLISHED: AtomicU64 = AtomicU64::new(0);

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
}

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
    /// Its spin table's release address lies in the image or is unaligned (or the MMU was
    /// already on).
    BadRelease,
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
}

/// Starts the CPU `mpidr` on stack block `block` (1..=SECONDARY_BLOCKS) with `method`,
/// without waiting for it (see [`wait_online`]).
pub fn launch(method: Method, mpidr: u64, block: usize) -> Result<(), NotStarted> {
    extern "C" {
        fn secondary_entry();
    }
    let mapped = REGIME.get().map_or(0, |(_, blocks)| blocks);
    if !(1..=SECONDARY_BLOCKS.min(mapped)).contains(&block) {
        return Err(NotStarted::NoStack);
    }
    match method {
        Method::Psci(conduit) => {
            let entry = secondary_entry as *const () as u64;
            let call = || match conduit {
                PsciConduit::Hvc => smccc::psci::cpu_on::<smccc::Hvc>(mpidr, entry, block as u64),
                PsciConduit::Smc => smccc::psci::cpu_on::<smccc::Smc>(mpidr, entry, block as u64),
            };
            // SAFETY: the only instruction that may trap is the conduit's HVC or SMC inside
            // the smccc call; stepping over it leaves the call returning garbage, ignored.
            match unsafe { super::exceptions::probe(call) } {
                Err(_) => Err(NotStarted::Trapped),
                Ok(Err(e)) => Err(NotStarted::Refused(i64::from(e))),
                Ok(Ok(())) => Ok(()),
            }
        }
        // Released earlier, with the MMU off: see `release`.
        Method::SpinTable { .. } => Ok(()),
    }
}

/// Releases the CPU `mpidr` from its boot loader's spin table into stack block `block`:
/// its MPIDR goes to `mb_spin_mpidr[block]` (where `spin_table_entry` looks itself up), the
/// entry address to its release word `release`, then DSB SY and SEV. Done with the MMU off,
/// before the tables exist, so that no release page needs mapping: the CPU waits in
/// `secondary_main` until the boot CPU publishes its translation regime.
pub fn release(mpidr: u64, block: usize, release: u64) -> Result<(), NotStarted> {
    use aarch64_cpu::registers::{Readable, SCTLR_EL1};
    extern "C" {
        fn spin_table_entry();
    }
    let image = super::image_layout();
    let slot = SPIN_MPIDR
        .get(block)
        .filter(|_| (1..=SECONDARY_BLOCKS).contains(&block))
        .ok_or(NotStarted::NoStack)?;
    let in_image = (image.start..image.end).contains(&release);
    if SCTLR_EL1.is_set(SCTLR_EL1::M) || in_image || !release.is_multiple_of(8) {
        return Err(NotStarted::BadRelease);
    }
    slot.store(SPIN_KEY | (mpidr & AFFINITY), Ordering::Release);
    mmu::clean_invalidate(slot as *const AtomicU64 as u64, 8);
    let entry = spin_table_entry as *const () as u64;
    // SAFETY: the device tree names `release` as this CPU's `cpu-release-addr`: a word its
    // boot loader's spin loop polls and that nothing of the firmware uses (it is outside the
    // image, checked above); the MMU is off (checked), so it is a physical address, aligned.
    unsafe { core::ptr::write_volatile(release as *mut u64, entry) };
    mmu::clean_invalidate(release, 8);
    aarch64_cpu::asm::sev();
    Ok(())
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
    })
}

/// Where one CPU's part of a job began and ended, on the counter every core shares
/// (CNTVCT_EL0: the system counter, with the same CNTVOFF on every core), and what it did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Span {
    /// CNTVCT_EL0 when its loop began (after DSB SY and ISB).
    pub start: u64,
    /// CNTVCT_EL0 when its loop had ended (after DSB SY and ISB: stores complete).
    pub end: u64,
    /// Bytes a stream moved; 0 for a timed loop.
    pub bytes: u64,
}

impl Span {
    /// Ticks from start to end.
    pub fn ticks(&self) -> u64 {
        self.end.wrapping_sub(self.start)
    }
}

/// Times `passes` runs of `body` on this CPU: DSB SY (stores before it drained), the counter,
/// the loop, DSB SY, the counter.
pub fn span(passes: u64, body: &mut Loop) -> Span {
    dsb(SY);
    let start = super::ticks();
    for _ in 0..passes {
        body.run();
    }
    dsb(SY);
    Span {
        start,
        end: super::ticks(),
        bytes: 0,
    }
}

/// A stream for a loaded measurement: `make`'s loop over `chunk`-byte parts of `whole`, one
/// after the other, round and round, until the job is stopped.
#[derive(Clone, Copy, Debug)]
pub struct Stream {
    whole: Window,
    chunk: u64,
    make: fn(&Window) -> Option<Loop>,
}

impl Stream {
    /// The stream of `make` (e.g. `Loop::read_ldp`) over `whole` in parts of `chunk` bytes;
    /// `None` unless `chunk` divides `whole` and `make` accepts every part.
    pub fn new(whole: Window, chunk: u64, make: fn(&Window) -> Option<Loop>) -> Option<Stream> {
        let ok = chunk != 0 && !whole.is_empty() && whole.len().is_multiple_of(chunk);
        let parts = ok.then(|| whole.len() / chunk)?;
        (0..parts)
            .all(|i| {
                whole
                    .part(i * chunk, chunk)
                    .and_then(|w| make(&w))
                    .is_some()
            })
            .then_some(Stream { whole, chunk, make })
    }

    /// Runs the parts, starting at the first, until `stop` says so; returns the bytes moved.
    fn run(&self, stop: impl Fn() -> bool) -> u64 {
        let mut off = 0;
        let mut bytes = 0;
        loop {
            if let Some(mut body) = self
                .whole
                .part(off, self.chunk)
                .and_then(|w| (self.make)(&w))
            {
                body.run();
            }
            bytes += self.chunk;
            off = (off + self.chunk) % self.whole.len();
            if bytes == self.chunk {
                RUNNING.fetch_add(1, Ordering::AcqRel);
            }
            if stop() {
                return bytes;
            }
        }
    }
}

/// One CPU's share of a job.
#[derive(Clone, Copy, Debug)]
pub enum Job {
    /// Time `passes` runs of `body`.
    Timed {
        /// The measured loop over this CPU's part of the buffer.
        body: Loop,
        /// Passes timed as one sample.
        passes: u64,
    },
    /// Stream until the boot CPU stops the job (see [`run_loaded`]).
    Stream(Stream),
    /// One round of the shared-line test (see [`exchange_tokens`]): read this CPU's
    /// [`shared_word`], then write `write` into it.
    Token {
        /// What this CPU writes.
        write: u64,
    },
}

/// Per stack block: the job posted to that CPU, valid once `POSTED` holds its sequence
/// number (written before the Release store, read after the Acquire load). Uninitialized
/// until then, so the table costs no bytes in the image.
static JOBS: [Global<MaybeUninit<Job>>; MAX_CPUS] =
    [const { Global::new(MaybeUninit::uninit()) }; MAX_CPUS];
/// Per stack block: the sequence number of the job posted to that CPU.
static POSTED: [AtomicU64; MAX_CPUS] = [const { AtomicU64::new(0) }; MAX_CPUS];
/// Per stack block: what the CPU did in its last job (for a token round: `bytes` holds the
/// word it read), valid once `FINISHED` holds that job's sequence number.
static OUTCOME: [Global<Span>; MAX_CPUS] = [const {
    Global::new(Span {
        start: 0,
        end: 0,
        bytes: 0,
    })
}; MAX_CPUS];
/// Per stack block: the sequence number of the job the CPU finished.
static FINISHED: [AtomicU64; MAX_CPUS] = [const { AtomicU64::new(0) }; MAX_CPUS];
/// How many CPUs of the current job have arrived at the start line.
static ARRIVED: AtomicU64 = AtomicU64::new(0);
/// The sequence number of the job that may start.
static GO: AtomicU64 = AtomicU64::new(0);
/// When the job that may start begins: every CPU waits for this CNTVCT value, so that they
/// start together however late each woke from WFE (written before `GO`).
static START_AT: AtomicU64 = AtomicU64::new(0);
/// How many streams of the current loaded job have moved their first part.
static RUNNING: AtomicU64 = AtomicU64::new(0);
/// The sequence number of the loaded job whose streams must stop.
static STOP: AtomicU64 = AtomicU64::new(0);
/// The sequence number of the last job posted (jobs are numbered from 1).
static SEQ: AtomicU64 = AtomicU64::new(0);

/// The shared-line test's words: CPU `b` (its stack block; 0 is the boot CPU) owns word `b`,
/// so the CPUs of eight consecutive blocks share one 64-byte line. Normal write-back, Inner
/// Shareable (the image's mapping), never cleaned or invalidated by VA: only the hardware's
/// coherence carries a word from one core to another.
#[repr(C, align(64))]
struct Shared([AtomicU64; MAX_CPUS]);

static SHARED: Shared = Shared([const { AtomicU64::new(0) }; MAX_CPUS]);

/// The shared-line test's word of the CPU of stack block `block` (0: the boot CPU): CPUs
/// `8k..8k+7` share one 64-byte line of Normal write-back, Inner Shareable memory that no
/// code cleans or invalidates by VA. Plain loads and stores (relaxed atomics).
pub fn shared_word(block: usize) -> Option<&'static AtomicU64> {
    SHARED.0.get(block)
}

/// How long after the start line a job begins (see `START_AT`), in microseconds: long
/// enough for a core to wake from WFE.
const START_MARGIN_US: u64 = 100;

/// Posts `job(i)` to the `i`th CPU of `blocks` (then SEV); the job's sequence number, or
/// `None` if a block is out of range.
fn post(blocks: &[usize], job: impl Fn(usize) -> Job) -> Option<u64> {
    let seq = SEQ.fetch_add(1, Ordering::Relaxed) + 1;
    ARRIVED.store(0, Ordering::SeqCst);
    RUNNING.store(0, Ordering::SeqCst);
    for (i, &block) in blocks.iter().enumerate() {
        JOBS.get(block)?.set(MaybeUninit::new(job(i)));
        POSTED.get(block)?.store(seq, Ordering::Release);
    }
    aarch64_cpu::asm::sev();
    Some(seq)
}

/// Posts `job(i)` to the `i`th CPU of `blocks`, lines them up and lets them go at a common
/// CNTVCT value, which this CPU waits for too before returning. `None` if a CPU did not
/// line up before `deadline` (or a block is out of range); the sequence number otherwise.
fn start(blocks: &[usize], job: impl Fn(usize) -> Job, deadline: &Deadline) -> Option<u64> {
    use aarch64_cpu::registers::{Readable, CNTFRQ_EL0};
    let seq = post(blocks, job)?;
    while ARRIVED.load(Ordering::Acquire) < blocks.len() as u64 {
        if deadline.expired() {
            return None;
        }
        core::hint::spin_loop();
    }
    let margin = (CNTFRQ_EL0.get() & u64::from(u32::MAX)) * START_MARGIN_US / 1_000_000;
    let at = super::ticks().wrapping_add(margin);
    START_AT.store(at, Ordering::Relaxed);
    GO.store(seq, Ordering::Release);
    aarch64_cpu::asm::sev();
    wait_until(at);
    Some(seq)
}

/// Spins until CNTVCT_EL0 has reached `at` (wrap-safe); returns at once when it has.
fn wait_until(at: u64) {
    while (at.wrapping_sub(super::ticks()) as i64) > 0 {
        core::hint::spin_loop();
    }
}

/// What the CPU of `block` reported for job `seq`, waiting for it until `deadline`.
fn outcome(block: usize, seq: u64, deadline: &Deadline) -> Option<Span> {
    let finished = FINISHED.get(block)?;
    while finished.load(Ordering::Acquire) != seq {
        if deadline.expired() {
            return None;
        }
        core::hint::spin_loop();
    }
    Some(OUTCOME.get(block)?.get())
}

/// Runs `own` on this (boot) CPU and each `(block, job)` of `others` on the secondary CPU of
/// that stack block, all started at the same counter value; writes each CPU's span (boot
/// CPU first) to `spans_out`. `None` if a CPU did not line up or finish within `limit_ns`
/// nanoseconds.
pub fn run_together(
    own: (Loop, u64),
    others: &[(usize, Loop, u64)],
    limit_ns: u64,
    spans_out: &mut [Span],
) -> Option<()> {
    let deadline = Deadline::after_ns(limit_ns);
    let mut blocks = [0usize; MAX_CPUS];
    for (slot, &(block, ..)) in blocks.iter_mut().zip(others) {
        *slot = block;
    }
    let blocks = blocks.get(..others.len())?;
    let job = |i: usize| {
        let (_, body, passes) = others[i];
        Job::Timed { body, passes }
    };
    let seq = start(blocks, job, &deadline)?;
    let (mut body, passes) = own;
    *spans_out.first_mut()? = span(passes, &mut body);
    for (out, &block) in spans_out.iter_mut().skip(1).zip(blocks) {
        *out = outcome(block, seq, &deadline)?;
    }
    Some(())
}

/// Times `samples_out.len()` samples of `passes` runs of `own` on this (boot) CPU, one after
/// the other, while each `(block, stream)` of `others` streams on the secondary CPU of that
/// stack block: each stream starts as soon as its CPU sees the job, this CPU starts timing
/// once every stream has moved its first part, and stops them after the last sample. Writes
/// each stream's span to `streams_out`. `None` if a CPU did not start streaming or stop
/// within `limit_ns` nanoseconds.
pub fn run_loaded(
    own: &mut Loop,
    passes: u64,
    samples_out: &mut [Span],
    others: &[(usize, Stream)],
    limit_ns: u64,
    streams_out: &mut [Span],
) -> Option<()> {
    let deadline = Deadline::after_ns(limit_ns);
    let mut blocks = [0usize; MAX_CPUS];
    for (slot, &(block, _)) in blocks.iter_mut().zip(others) {
        *slot = block;
    }
    let blocks = blocks.get(..others.len())?;
    // No common start: the timing waits until every stream runs.
    let posted = post(blocks, |i| Job::Stream(others[i].1));
    let measured = posted.and_then(|_| {
        while RUNNING.load(Ordering::Acquire) < others.len() as u64 {
            if deadline.expired() {
                return None;
            }
            core::hint::spin_loop();
        }
        for sample in samples_out.iter_mut() {
            *sample = span(passes, own);
        }
        Some(())
    });
    // Stop the streams whatever happened, so that no CPU streams on into the next job.
    STOP.store(SEQ.load(Ordering::Relaxed), Ordering::Release);
    let seq = posted?;
    for (out, &block) in streams_out.iter_mut().zip(blocks) {
        *out = outcome(block, seq, &deadline)?;
    }
    measured
}

/// One round of the shared-line test: this CPU has written its tokens into every CPU's
/// [`shared_word`]; each CPU of `blocks`, started together, reads its own word and writes
/// `token(block)` into it, with no cache maintenance on either side. Returns, per CPU of
/// `blocks` in order, the word it read (`None` for one that did not answer within
/// `limit_ns`); the caller then reads the words the CPUs wrote.
pub fn exchange_tokens(
    blocks: &[usize],
    token: impl Fn(usize) -> u64,
    limit_ns: u64,
    read_out: &mut [Option<u64>],
) {
    let deadline = Deadline::after_ns(limit_ns);
    let seq = start(
        blocks,
        |i| Job::Token {
            write: token(blocks[i]),
        },
        &deadline,
    );
    for (out, &block) in read_out.iter_mut().zip(blocks) {
        *out = seq.and_then(|seq| outcome(block, seq, &deadline).map(|s| s.bytes));
    }
}

/// A secondary CPU's life after hello: wait for a job, line up and start at the common
/// start time (a stream starts at once), do it, report.
fn serve(block: usize) -> ! {
    let (Some(posted), Some(finished), Some(job), Some(out), Some(word)) = (
        POSTED.get(block),
        FINISHED.get(block),
        JOBS.get(block),
        OUTCOME.get(block),
        shared_word(block),
    ) else {
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
        // SAFETY: `seq` is not 0, so `post` posted it: it wrote this slot's job before its
        // Release store of `seq`, which the Acquire load above saw.
        let job = unsafe { job.get().assume_init() };
        if !matches!(job, Job::Stream(_)) {
            ARRIVED.fetch_add(1, Ordering::AcqRel);
            while GO.load(Ordering::Acquire) != seq {
                aarch64_cpu::asm::wfe();
            }
            wait_until(START_AT.load(Ordering::Relaxed));
        }
        let span = match job {
            Job::Timed { mut body, passes } => span(passes, &mut body),
            Job::Stream(stream) => {
                dsb(SY);
                let start = super::ticks();
                let bytes = stream.run(|| STOP.load(Ordering::Acquire) == seq);
                dsb(SY);
                Span {
                    start,
                    end: super::ticks(),
                    bytes,
                }
            }
            Job::Token { write } => {
                // Plain loads and stores (relaxed atomics), no maintenance: coherence only.
                let seen = word.load(Ordering::Relaxed);
                word.store(write, Ordering::Relaxed);
                Span {
                    bytes: seen,
                    ..Span::default()
                }
            }
        };
        out.set(span);
        finished.store(seq, Ordering::Release);
    }
}

/// Rust entry of a secondary CPU (from boot/entry.S), on its own stacks, MMU off.
#[no_mangle]
extern "C" fn secondary_main(block: u64, entry_el: u64) -> ! {
    use aarch64_cpu::registers::{Readable, MIDR_EL1, MPIDR_EL1};
    // A CPU released from a spin table may arrive before the boot CPU has built its tables:
    // it waits for them (the boot CPU publishes them to memory, then SEV).
    while PUBLISHED.load(Ordering::Acquire) == 0 {
        aarch64_cpu::asm::wfe();
    }
    match REGIME.get() {
        Some((regime, blocks)) if (1..=blocks).contains(&(block as usize)) => {
            let (area, size) = stack_area();
            let own = area + block.saturating_sub(1) * size;
            // SAFETY: the boot CPU's regime, which `mmu::activate` checked identity-maps the
            // image and the stacks of blocks 1..=blocks (this block among them); this CPU
            // has run with its caches off, so memory holds the truth for its stacks.
            unsafe { mmu::enable(&regime, &[(own, size)]) };
            let b = block as usize;
            if let (Some(slot), Some(mpidr), Some(midr), Some(regs)) = (
                ONLINE.get(b),
                CPU_MPIDR.get(b),
                CPU_MIDR.get(b),
                CPU_REGS.get(b),
            ) {
                mpidr.store(MPIDR_EL1.get() & AFFINITY, Ordering::Relaxed);
                midr.store(MIDR_EL1.get(), Ordering::Relaxed);
                regs.set(Regs::own());
                slot.store(1 | (entry_el & 3) << 1, Ordering::Release);
            }
            serve(block as usize)
        }
        _ => super::park(),
    }
}
