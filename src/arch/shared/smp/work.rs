//! What one CPU does for a job and reports: a timed loop's [`Span`], and a [`Stream`] that
//! loads memory until it is stopped. The mailbox that hands jobs out is `jobs`, which imports
//! this module.

use crate::arch::barrier::dsb_sy;
use crate::arch::buffer::Window;
use crate::arch::cpu::ticks;
use crate::arch::kernels::Loop;
use core::sync::atomic::{AtomicU64, Ordering};

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
    dsb_sy();
    let start = ticks();
    for _ in 0..passes {
        body.run();
    }
    dsb_sy();
    Span {
        start,
        end: ticks(),
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
    /// Adds 1 to `running` once its first part has run.
    pub(super) fn run(&self, stop: impl Fn() -> bool, running: &AtomicU64) -> u64 {
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
            // `whole` is not empty (`new`): `max(1)` tells the compiler, which then adds no
            // division-by-zero panic.
            off = (off + self.chunk) % self.whole.len().max(1);
            if bytes == self.chunk {
                running.fetch_add(1, Ordering::AcqRel);
            }
            if stop() {
                return bytes;
            }
        }
    }
}
