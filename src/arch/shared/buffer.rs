//! The test buffer as the firmware touches it: [`Window`]s onto its aliases.
//!
//! A `Window` is the token that makes the buffer helpers and the measured loops honestly
//! safe. Only [`super::mmu::activate`] makes one, for a whole alias, after checking in the
//! translation tables that the alias maps the buffer read-write and that the buffer lies
//! outside the image (so no Rust object lives in it). Every other window is a part of one.
//! All accesses through a window are single volatile or assembly accesses of whole aligned
//! words, so the alias's memory type governs each of them and no Rust reference into the
//! buffer ever exists: two windows of different aliases may overlap in physical memory.

use super::bulk::{mb_fill_pair, mb_fill_xor, mb_find_lines, mb_find_pair, mb_find_xor};
use super::exceptions::Fault;
use super::{bulk, cache, probes};
use mairbench_core::pattern::Pattern;

/// Bytes per iteration of the assembly lay and check loops.
const BLOCK: u64 = 64;

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

    /// Writes `p` to every word, as [`Window::fill`] does, with `stp` pairs (much faster).
    pub fn lay(&self, p: Pattern) {
        let (bulk, tail) = self.split();
        if bulk.len != 0 {
            // SAFETY: aligned stores inside the window (see `Window`): `bulk` starts 16-byte
            // aligned (checked by `split`) and its length is a non-zero multiple of 64.
            unsafe {
                match p {
                    Pattern::Xor(key) => mb_fill_xor(bulk.va, bulk.len, key),
                    Pattern::Pair(even, odd) => mb_fill_pair(bulk.va, bulk.len, even, odd),
                    // What a kernel leaves, never laid for speed: word by word.
                    Pattern::Lines(..) => bulk.fill(|off| p.at(off)),
                }
            }
        }
        if let Some(tail) = tail {
            let at = tail.offset - self.offset;
            tail.fill(|off| p.at(at + off));
        }
    }

    /// The offset of the first word that differs from `p`, if any: [`Window::mismatches`]'s
    /// second half, checked with `ldp` pairs (much faster).
    pub fn first_mismatch(&self, p: Pattern) -> Option<u64> {
        let (bulk, tail) = self.split();
        let found = if bulk.len == 0 {
            0
        } else {
            // SAFETY: aligned loads inside the window, as in `lay`; loads only.
            unsafe {
                match p {
                    Pattern::Xor(key) => mb_find_xor(bulk.va, bulk.len, key),
                    Pattern::Pair(even, odd) => mb_find_pair(bulk.va, bulk.len, even, odd),
                    Pattern::Lines(first, key) => mb_find_lines(bulk.va, bulk.len, key, first),
                }
            }
        };
        // The word within the block found (or the tail), word by word.
        let rest = self.part(found.min(self.len), self.len - found.min(self.len))?;
        let scan = rest.part(0, rest.len.min(BLOCK))?;
        let at = |w: &Window| w.offset - self.offset;
        if let (_, Some(off)) = scan.mismatches(|off| p.at(at(&scan) + off)) {
            return Some(at(&scan) + off);
        }
        let tail = tail?;
        tail.mismatches(|off| p.at(at(&tail) + off))
            .1
            .map(|off| at(&tail) + off)
    }

    /// The window as a part that the assembly loops take (16-byte aligned start, a multiple
    /// of 64 bytes; maybe empty) and the words after it.
    fn split(&self) -> (Window, Option<Window>) {
        let bulk = if self.va.is_multiple_of(16) {
            self.len - self.len % BLOCK
        } else {
            0
        };
        let head = Window { len: bulk, ..*self };
        (
            head,
            self.part(bulk, self.len - bulk).filter(|t| !t.is_empty()),
        )
    }

    /// Cleans and invalidates the window to the point of coherency, then DSB SY.
    pub fn clean_invalidate(&self) {
        cache::clean_invalidate(self.va, self.len);
    }

    /// Cleans an outer cache's lines of the window by physical address (an L2C-310 that the
    /// CPU's maintenance by VA does not reach; nothing where there is none).
    pub fn clean_outer(&self) {
        cache::outer_clean(self.va, self.len);
    }

    /// Invalidates the window to the point of coherency (dirty data is lost), then DSB SY.
    pub fn invalidate(&self) {
        // SAFETY: the window holds no Rust object, so dropping its dirty lines loses only
        // test data (see `Window`).
        unsafe { cache::invalidate(self.va, self.len) }
    }

    /// Loads the 64-bit word at byte `off` (any alignment) with one `LDR`, catching a fault
    /// (real cores fault on unaligned accesses to Device memory). `None` when the word is not
    /// inside the window.
    pub fn try_load(&self, off: u64) -> Option<Result<u64, Fault>> {
        (off.checked_add(8)? <= self.len).then(|| {
            // SAFETY: a load of test data inside the window: no side effect but a fault.
            unsafe { probes::try_load(self.va + off) }
        })
    }

    /// Zeroes the `DC ZVA` block at the window's start (the block must fit), catching a
    /// fault (real cores fault on `DC ZVA` to Device memory). `None` when DC ZVA is
    /// prohibited or its block does not fit.
    pub fn try_zero_block(&self) -> Option<Result<(), Fault>> {
        let block = bulk::zero_block_size()?;
        (block <= self.len && self.va.is_multiple_of(block)).then(|| {
            // SAFETY: the block lies inside the window (test data only).
            unsafe { bulk::try_zero_block(self.va) }
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
    /// A digest of every line's pointer, relative to the target (see [`Chain::intact`]).
    digest: u64,
}

/// One line's part of a chain's digest: line `i` points `rel` bytes into the target
/// (splitmix64's finalizer over both, so that a changed or moved pointer changes the sum).
fn mix(i: u64, rel: u64) -> u64 {
    let mut z = rel ^ i.wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

impl Chain {
    /// Lays a chase over `target` by writing through `via` (the same memory through another
    /// alias, normally `normal-wb`): the first word of line `i` gets the address, in
    /// `target`, of the line after `i` in a random cyclic order (Sattolo's algorithm), so a
    /// chase from the first line visits every line once per lap. `None` unless `via` and
    /// `target` are the same memory and `line` is a non-zero multiple of 8 dividing it.
    pub fn lay(via: Window, target: Window, line: u64, seed: u64) -> Option<Chain> {
        let mut chain = Chain {
            via,
            target,
            line,
            digest: 0,
        };
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
        let mut digest = 0u64;
        for i in 0..lines {
            let rel = chain.get(i) * line;
            chain.put(i, target.va + rel);
            digest = digest.wrapping_add(mix(i, rel));
        }
        chain.digest = digest;
        Some(chain)
    }

    /// Lines in the chain: at least one (`lay` refuses a `line` of 0 or an empty `via`);
    /// `max(1)` says so to the compiler, which then adds no division-by-zero panic.
    pub fn lines(&self) -> u64 {
        self.via.len / self.line.max(1)
    }

    /// The alias the pointers point into.
    pub fn target(&self) -> &Window {
        &self.target
    }

    /// The first word of line `i` (`i < lines`), through `via`.
    fn get(&self, i: u64) -> u64 {
        let at = (i % self.lines().max(1)) * self.line;
        // SAFETY: a line start inside the `via` window, aligned to 8.
        unsafe { core::ptr::read_volatile((self.via.va + at) as *const u64) }
    }

    fn put(&self, i: u64, value: u64) {
        let at = (i % self.lines().max(1)) * self.line;
        // SAFETY: as in `get`; the window holds test data only.
        unsafe { core::ptr::write_volatile((self.via.va + at) as *mut u64, value) }
    }

    /// Moves the chain to point into `to`, the same memory through another alias (same
    /// lines, same order): one sequential pass instead of a new permutation.
    pub fn rebase(self, to: Window) -> Option<Chain> {
        if !to.same_memory(&self.target) {
            return None;
        }
        let delta = to.va.wrapping_sub(self.target.va);
        // Line by line (`via` is whole lines: `lay`), not `step_by`, whose step of 0 panics.
        for i in 0..self.lines() {
            let word = (self.via.va + i * self.line) as *mut u64;
            // SAFETY: a line start inside the `via` window, aligned to 8 (see `get`); the
            // window holds test data only.
            unsafe {
                core::ptr::write_volatile(word, core::ptr::read_volatile(word).wrapping_add(delta))
            };
        }
        Some(Chain { target: to, ..self })
    }

    /// Whether the chain is intact: every line still holds the pointer it was laid with
    /// (the digest of all pointers, relative to the target, is unchanged; one sequential pass
    /// through `via`, where walking the cycle would take a random access per line). As laid,
    /// the chain is one cycle: Sattolo's swaps make one (`mairbench_core::random` tests it).
    pub fn intact(&self) -> bool {
        let mut digest = 0u64;
        for i in 0..self.lines() {
            let at = i * self.line;
            // SAFETY: a line start inside the `via` window, aligned to 8 (see `get`).
            let word = unsafe { core::ptr::read_volatile((self.via.va + at) as *const u64) };
            let rel = word.wrapping_sub(self.target.va);
            if !rel.is_multiple_of(self.line) || rel >= self.target.len {
                return false;
            }
            digest = digest.wrapping_add(mix(i, rel));
        }
        digest == self.digest
    }
}
