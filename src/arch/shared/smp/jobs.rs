//! The job mailbox of the secondary CPUs: the boot CPU posts one job per CPU, lines them up
//! and lets them go at one CNTVCT value (a measured loop, a token round of the shared-line
//! test) or lets them stream until stopped, and collects what each reports; each secondary
//! [`serve`]s jobs after its hello.

use crate::arch::barrier::dsb_sy;
use crate::arch::cpu::{park, ticks};
use crate::arch::global::Global;
use crate::arch::kernels::Loop;
use crate::arch::timer::Deadline;
use core::mem::MaybeUninit;
use core::sync::atomic::{AtomicU64, Ordering};
use mairbench_core::counter_offset::Round;
use mairbench_core::platform::MAX_CPUS;

pub use super::work::{span, Span, Stream};

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
    /// One round of the counter exchange (see [`clock_round`]): at once, read this CPU's
    /// CNTVCT_EL0 and CNTFRQ_EL0.
    Clock,
    /// Time `passes` runs of `body` at once, alone (see [`run_alone`]).
    Alone {
        /// The loop: one point's, of another cluster's sweep.
        body: Loop,
        /// Passes timed as one sample (0: one untimed run, a warm-up).
        passes: u64,
    },
    /// One side of a cache line bounced between two CPUs (the core-to-core latency, in
    /// `smp/bounce.rs`, which posts it and imports this module, not the other way round).
    Bounce {
        /// 0: writes the odd values and times; 1: writes the even ones.
        side: u64,
        /// Timed round trips.
        rounds: u64,
        /// The side's code, called with the side, the rounds and the job's sequence number.
        play: fn(u64, u64, u64) -> Span,
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
/// word it read; for a counter round: `start` its CNTVCT_EL0, `bytes` its CNTFRQ_EL0), valid
/// once `FINISHED` holds that job's sequence number.
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
pub(super) fn post(blocks: &[usize], job: impl Fn(usize) -> Job) -> Option<u64> {
    let seq = next_seq();
    for (i, &block) in blocks.iter().enumerate() {
        hand(block, seq, job(i))?;
    }
    super::wake();
    Some(seq)
}

/// The next job's sequence number, `ARRIVED` and `RUNNING` reset for it. Not inlined, as
/// [`hand`].
#[inline(never)]
fn next_seq() -> u64 {
    let seq = SEQ.fetch_add(1, Ordering::Relaxed) + 1;
    ARRIVED.store(0, Ordering::SeqCst);
    RUNNING.store(0, Ordering::SeqCst);
    seq
}

/// Gives `job`, numbered `seq`, to the CPU of `block`; `None` if the block is out of range.
/// Not inlined: one copy for every caller of the generic [`post`].
#[inline(never)]
fn hand(block: usize, seq: u64, job: Job) -> Option<()> {
    JOBS.get(block)?.set(MaybeUninit::new(job));
    POSTED.get(block)?.store(seq, Ordering::Release);
    Some(())
}

/// Posts `job(i)` to the `i`th CPU of `blocks`, lines them up and lets them go at a common
/// CNTVCT value, which this CPU waits for too before returning. `None` if a CPU did not
/// line up before `deadline` (or a block is out of range); the sequence number otherwise.
fn start(blocks: &[usize], job: impl Fn(usize) -> Job, deadline: &Deadline) -> Option<u64> {
    let seq = post(blocks, job)?;
    while ARRIVED.load(Ordering::Acquire) < blocks.len() as u64 {
        if deadline.expired() {
            return None;
        }
        core::hint::spin_loop();
    }
    let margin = crate::arch::cpu::counter_hz() * START_MARGIN_US / 1_000_000;
    let at = ticks().wrapping_add(margin);
    START_AT.store(at, Ordering::Relaxed);
    GO.store(seq, Ordering::Release);
    super::wake();
    wait_until(at);
    Some(seq)
}

/// Spins until CNTVCT_EL0 has reached `at` (wrap-safe); returns at once when it has.
fn wait_until(at: u64) {
    while (at.wrapping_sub(ticks()) as i64) > 0 {
        core::hint::spin_loop();
    }
}

/// What the CPU of `block` reported for job `seq`, waiting for it until `deadline`.
pub(super) fn outcome(block: usize, seq: u64, deadline: &Deadline) -> Option<Span> {
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

/// One round of the counter exchange with the CPU of `block`: this CPU's counter before it
/// posts the job, that CPU's counter and CNTFRQ_EL0 as it serves it, and this CPU's counter
/// once the answer has arrived; `None` if it did not answer within `limit_ns`.
pub fn clock_round(block: usize, limit_ns: u64) -> Option<(Round, u64)> {
    let deadline = Deadline::after_ns(limit_ns);
    // Every later load waits for the read, and the Release store that posts the job for
    // every earlier load: the read is over before the other CPU can see the job.
    let asked = crate::arch::cpu::ticks_before_loads();
    let seq = post(&[block], |_| Job::Clock)?;
    let answer = outcome(block, seq, &deadline)?;
    dsb_sy();
    let back = ticks();
    let round = Round {
        asked,
        answered: answer.start,
        back,
    };
    Some((round, answer.bytes))
}

/// Runs `body` on the CPU of `block` alone, at once, `passes` times timed (its own counter
/// reads around them), or once untimed when `passes` is 0; `None` if it did not finish
/// within `limit_ns` nanoseconds.
pub fn run_alone(block: usize, body: Loop, passes: u64, limit_ns: u64) -> Option<Span> {
    let deadline = Deadline::after_ns(limit_ns);
    let seq = post(&[block], |_| Job::Alone { body, passes })?;
    outcome(block, seq, &deadline)
}

/// A secondary CPU's life after hello: wait for a job, line up and start at the common
/// start time (a stream starts at once), do it, report.
pub(super) fn serve(block: usize) -> ! {
    let (Some(posted), Some(finished), Some(job), Some(out), Some(word)) = (
        POSTED.get(block),
        FINISHED.get(block),
        JOBS.get(block),
        OUTCOME.get(block),
        shared_word(block),
    ) else {
        park()
    };
    let mut done = 0;
    loop {
        let seq = posted.load(Ordering::Acquire);
        if seq == done {
            crate::arch::barrier::wfe();
            continue;
        }
        done = seq;
        // SAFETY: `seq` is not 0, so `post` posted it: it wrote this slot's job before its
        // Release store of `seq`, which the Acquire load above saw.
        let job = unsafe { job.get().assume_init() };
        let alone = matches!(job, Job::Alone { .. } | Job::Bounce { .. });
        if !alone && !matches!(job, Job::Stream(_) | Job::Clock) {
            ARRIVED.fetch_add(1, Ordering::AcqRel);
            while GO.load(Ordering::Acquire) != seq {
                crate::arch::barrier::wfe();
            }
            wait_until(START_AT.load(Ordering::Relaxed));
        }
        let span = match job {
            Job::Timed { mut body, passes } => span(passes, &mut body),
            Job::Alone {
                mut body,
                passes: 0,
            } => {
                body.run();
                Span::default()
            }
            Job::Alone { mut body, passes } => span(passes, &mut body),
            Job::Bounce { side, rounds, play } => play(side, rounds, seq),
            Job::Stream(stream) => {
                dsb_sy();
                let start = ticks();
                let bytes = stream.run(|| STOP.load(Ordering::Acquire) == seq, &RUNNING);
                dsb_sy();
                Span {
                    start,
                    end: ticks(),
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
            Job::Clock => {
                // After the Acquire load that saw the job (DSB: it has completed); the store
                // of the value, then the Release store of `finished`, come after the read.
                dsb_sy();
                Span {
                    start: ticks(),
                    end: 0,
                    bytes: crate::arch::cpu::cntfrq_register(),
                }
            }
        };
        out.set(span);
        finished.store(seq, Ordering::Release);
    }
}
