//! The test buffer as the firmware touches it: [`Window`]s onto its aliases.
//!
//! A `Window` is the token that makes the buffer helpers and the measured loops honestly
//! safe. Only [`super::mmu::activate`] makes one, for a whole alias, after checking in the
//! translation tables that the alias maps the buffer read-write and that the buffer lies
//! outside the image (so no Rust object lives in it). Every other window is a part of one.
//! All accesses through a window are single volatile or assembly accesses of whole aligned
//! words, so the alias's memory type governs each of them and no Rust reference into the
//! buffer ever exists: two windows of different aliases may overlap in physical memory.

use super::exceptions::{self, Fault};
use super::mmu;

/// A range of one alias of the test buffer (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    va: u64,
    /// Offset from the start of the buffer: windows of two aliases at the same offset are
    /// the same physical memory.
    offset: u64,
    len: u64,
}

impl Window {
    /// A window onto `[va, va+len)`, which is the part of the buffer at `offset`.
    ///
    /// # Safety
    /// `[va, va+len)` must stay mapped read-write, as memory at buffer offset `offset`, for
    /// the rest of the run; no Rust object may live in that memory; `va`, `offset` and `len`
    /// must be multiples of 8.
    pub(super) unsafe fn new(va: u64, offset: u64, len: u64) -> Window {
        Window { va, offset, len }
    }

    /// Its first virtual address.
    pub fn va(&self) -> u64 {
        self.va
    }

    /// Its length in bytes.
    pub fn len(&self) -> u64 {
        self.len
    }

    /// Whether it is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Its offset from the start of the buffer.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// The part `[off, off+len)` of this window; `None` unless it lies inside and both are
    /// multiples of 8.
    pub fn part(&self, off: u64, len: u64) -> Option<Window> {
        let end = off.checked_add(len)?;
        (end <= self.len && off.is_multiple_of(8) && len.is_multiple_of(8)).then(|| Window {
            va: self.va + off,
            offset: self.offset + off,
            len,
        })
    }

    /// Whether `other` is the same memory (same offset and length), maybe through another
    /// alias.
    pub fn same_memory(&self, other: &Window) -> bool {
        self.offset == other.offset && self.len == other.len
    }

    /// Writes `pattern(offset)` to every word, `offset` counted from the window's start.
    pub fn fill(&self, pattern: impl Fn(u64) -> u64) {
        for off in (0..self.len).step_by(8) {
            // SAFETY: an aligned word inside the window (see `Window`).
            unsafe { core::ptr::write_volatile((self.va + off) as *mut u64, pattern(off)) };
        }
    }

    /// Counts the words that differ from `pattern(offset)`; also returns the offset of the
    /// first.
    pub fn mismatches(&self, pattern: impl Fn(u64) -> u64) -> (u64, Option<u64>) {
        let mut count = 0;
        let mut first = None;
        for off in (0..self.len).step_by(8) {
            // SAFETY: an aligned word inside the window (see `Window`).
            let word = unsafe { core::ptr::read_volatile((self.va + off) as *const u64) };
            if word != pattern(off) {
                count += 1;
                first.get_or_insert(off);
            }
        }
        (count, first)
    }

    /// Cleans and invalidates the window to the point of coherency, then DSB SY.
    pub fn clean_invalidate(&self) {
        mmu::clean_invalidate(self.va, self.len);
    }

    /// Invalidates the window to the point of coherency (dirty data is lost), then DSB SY.
    pub fn invalidate(&self) {
        // SAFETY: the window holds no Rust object, so dropping its dirty lines loses only
        // test data (see `Window`).
        unsafe { mmu::invalidate(self.va, self.len) }
    }

    /// Loads the 64-bit word at byte `off` (any alignment) with one `LDR`, catching a fault
    /// (real cores fault on unaligned accesses to Device memory). `None` when the word is not
    /// inside the window.
    pub fn try_load(&self, off: u64) -> Option<Result<u64, Fault>> {
        (off.checked_add(8)? <= self.len).then(|| {
            // SAFETY: a load of test data inside the window: no side effect but a fault.
            unsafe { super::try_load(self.va + off) }
        })
    }

    /// Zeroes the `DC ZVA` block at the window's start (the block must fit), catching a
    /// fault (real cores fault on `DC ZVA` to Device memory). `None` when DC ZVA is
    /// prohibited or its block does not fit.
    pub fn try_zero_block(&self) -> Option<Result<(), Fault>> {
        let block = super::zva_block_size()?;
        (block <= self.len && self.va.is_multiple_of(block)).then(|| {
            // SAFETY: DC ZVA zeroes one block inside the window (test data only); a fault is
            // caught by the probe and stepped over, and nothing else is touched.
            unsafe {
                exceptions::probe(
                    || core::arch::asm!("dc zva, {a}", a = in(reg) self.va, options(nostack)),
                )
            }
        })
    }
}

/// A pointer chase laid in the buffer: every `line` bytes of the window, the first word
/// holds the address, in the target alias, of the next line in one random cycle.
#[derive(Clone, Copy, Debug)]
pub struct Chain {
    /// Where the chain is written and checked (the `normal-wb` alias).
    via: Window,
    /// The alias the pointers point into.
    target: Window,
    line: u64,
}

impl Chain {
    /// Lays a chase over `target` by writing through `via` (the same memory through another
    /// alias, normally `normal-wb`): the first word of line `i` gets the address, in
    /// `target`, of the line after `i` in a random cyclic order (Sattolo's algorithm), so a
    /// chase from the first line visits every line once per lap. `None` unless `via` and
    /// `target` are the same memory and `line` is a non-zero multiple of 8 dividing it.
    pub fn lay(via: Window, target: Window, line: u64, seed: u64) -> Option<Chain> {
        let chain = Chain { via, target, line };
        let ok = via.same_memory(&target)
            && line != 0
            && line.is_multiple_of(8)
            && !via.is_empty()
            && via.len.is_multiple_of(line);
        if !ok {
            return None;
        }
        let lines = chain.lines();
        for i in 0..lines {
            chain.put(i, i);
        }
        let mut rng = mairbench_core::random::XorShift64::new(seed);
        mairbench_core::random::sattolo_swaps(lines, &mut rng, |i, j| {
            let (a, b) = (chain.get(i), chain.get(j));
            chain.put(i, b);
            chain.put(j, a);
        });
        for i in 0..lines {
            chain.put(i, target.va + chain.get(i) * line);
        }
        Some(chain)
    }

    /// Lines in the chain.
    pub fn lines(&self) -> u64 {
        self.via.len / self.line
    }

    /// The alias the pointers point into.
    pub fn target(&self) -> &Window {
        &self.target
    }

    /// The first word of line `i` (`i < lines`), through `via`.
    fn get(&self, i: u64) -> u64 {
        let at = (i % self.lines()) * self.line;
        // SAFETY: a line start inside the `via` window, aligned to 8.
        unsafe { core::ptr::read_volatile((self.via.va + at) as *const u64) }
    }

    fn put(&self, i: u64, value: u64) {
        let at = (i % self.lines()) * self.line;
        // SAFETY: as in `get`; the window holds test data only.
        unsafe { core::ptr::write_volatile((self.via.va + at) as *mut u64, value) }
    }

    /// Moves the chain to point into `to`, the same memory through another alias (same
    /// lines, same order): one sequential pass instead of a new permutation.
    pub fn rebase(self, to: Window) -> Option<Chain> {
        if !to.same_memory(&self.target) {
            return None;
        }
        for i in 0..self.lines() {
            self.put(
                i,
                self.get(i).wrapping_sub(self.target.va).wrapping_add(to.va),
            );
        }
        Some(Chain { target: to, ..self })
    }

    /// Whether the chain is intact: from the first line, following the pointers (read
    /// through `via`) returns to the start after exactly `lines` steps.
    pub fn intact(&self) -> bool {
        let lines = self.lines();
        let mut at = self.target.va;
        for step in 1..=lines {
            let offset = at.wrapping_sub(self.target.va);
            if !offset.is_multiple_of(self.line) || offset / self.line >= lines {
                return false;
            }
            at = self.get(offset / self.line);
            if at == self.target.va {
                return step == lines;
            }
        }
        false
    }
}
