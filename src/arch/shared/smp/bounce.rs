//! The core-to-core latency: one cache line of Normal write-back, Inner Shareable memory
//! bounced between two CPUs, each waiting for the other's value before it writes the next
//! (plain loads and stores: only the hardware's coherence carries the line). Side 0 times
//! `rounds` round trips, after one untimed round that waits for side 1 to start.

use super::jobs::{self, Job, Span};
use crate::arch::barrier::dsb_sy;
use crate::arch::cpu::ticks;
use crate::arch::timer::Deadline;
use core::sync::atomic::{AtomicU64, Ordering};

/// The bounced word, alone in its 64-byte line.
#[repr(C, align(64))]
struct Line(AtomicU64);

static LINE: Line = Line(AtomicU64::new(0));
/// The sequence number of a bounce whose sides must give up (it took too long).
static ABORT: AtomicU64 = AtomicU64::new(0);

/// Waits until the word holds `value`; false when `stop` says to give up first.
fn wait_for(value: u64, stop: &impl Fn() -> bool) -> bool {
    while LINE.0.load(Ordering::Acquire) != value {
        if stop() {
            return false;
        }
        core::hint::spin_loop();
    }
    true
}

/// Plays side `side` (0 or 1) of `rounds` timed round trips plus one untimed: side 0 writes
/// the odd values, side 1 the even ones. Side 0's span covers the timed rounds (`bytes`: the
/// rounds, 0 when it gave up); side 1's is empty.
fn play(side: u64, rounds: u64, stop: &impl Fn() -> bool) -> Span {
    let mut start = 0;
    for k in 0..=rounds {
        let (wait, write) = (2 * k + side, 2 * k + side + 1);
        if !wait_for(wait, stop) {
            return Span::default();
        }
        if k == 1 && side == 0 {
            // The untimed round is over: side 1 is running.
            dsb_sy();
            start = ticks();
        }
        LINE.0.store(write, Ordering::Release);
    }
    if side == 1 || !wait_for(2 * rounds + 2, stop) {
        return Span::default();
    }
    Span {
        start,
        end: ticks(),
        bytes: rounds,
    }
}

/// A secondary CPU's side of the bounce job `seq` (the job's `play`).
fn serve(side: u64, rounds: u64, seq: u64) -> Span {
    play(side, rounds, &|| ABORT.load(Ordering::Relaxed) == seq)
}

/// Bounces the line `rounds` times between CPU `a` (a stack block; `None`: this, the boot
/// CPU) and the secondary CPU of block `b`; returns side 0's span (`bytes`: the rounds), or
/// `None` when the pair did not finish within `limit_ns` nanoseconds (both then give up).
pub fn bounce(a: Option<usize>, b: usize, rounds: u64, limit_ns: u64) -> Option<Span> {
    let deadline = Deadline::after_ns(limit_ns);
    LINE.0.store(0, Ordering::Release);
    let span = match a {
        None => {
            let seq = jobs::post(&[b], |_| Job::Bounce {
                side: 1,
                rounds,
                play: serve,
            })?;
            let span = play(0, rounds, &|| deadline.expired());
            if span.bytes == 0 {
                ABORT.store(seq, Ordering::Relaxed);
            }
            jobs::outcome(b, seq, &Deadline::after_ns(limit_ns))?;
            span
        }
        Some(a) => {
            let seq = jobs::post(&[a, b], |i| Job::Bounce {
                side: i as u64,
                rounds,
                play: serve,
            })?;
            let span = jobs::outcome(a, seq, &deadline);
            if span.is_none() {
                ABORT.store(seq, Ordering::Relaxed);
            }
            jobs::outcome(b, seq, &Deadline::after_ns(limit_ns))?;
            span?
        }
    };
    (span.bytes != 0).then_some(span)
}
