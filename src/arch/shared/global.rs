//! State shared between the main flow and the exception handlers of a core ([`Global`]), and
//! the run's results store, handed out once.

use core::cell::UnsafeCell;
use core::mem::{align_of, size_of, MaybeUninit};

/// A value shared between the main flow and the exception handlers of a core. Values are
/// copied in and out whole with volatile accesses, so no reference into the cell ever exists
/// and an exception taken between two accesses sees a whole value. Between cores a `Global`
/// is handed over only through an atomic with Release/Acquire ordering, or (the translation
/// regime) written back to memory before PSCI starts the reader (see `smp`): the boot CPU's
/// state (console, tally, probes) is its own, each secondary reads only its job slot.
pub struct Global<T: Copy>(UnsafeCell<T>);

// SAFETY: interrupts stay masked, every access copies the whole value (see `get`/`set`) and
// nothing is ever borrowed from the cell; a cell used by two cores is written by one before a
// Release store (or before PSCI CPU_ON) and read by the other after the matching Acquire load
// (or after it starts), so accesses never race.
unsafe impl<T: Copy + Send> Sync for Global<T> {}

impl<T: Copy> Global<T> {
    /// A global with an initial value.
    pub const fn new(value: T) -> Self {
        Global(UnsafeCell::new(value))
    }

    /// A copy of the current value.
    pub fn get(&self) -> T {
        if !Self::WORDS {
            // SAFETY: the pointer comes from a live `UnsafeCell`, is aligned, and no reference
            // into the cell exists (see the type's documentation).
            return unsafe { self.0.get().read_volatile() };
        }
        let mut value = MaybeUninit::<T>::uninit();
        let (from, to) = (
            self.0.get().cast::<Word>(),
            value.as_mut_ptr().cast::<Word>(),
        );
        for i in 0..size_of::<T>() / size_of::<Word>() {
            // SAFETY: `WORDS`: T is whole, aligned 8-byte words, so word `i` lies inside both
            // the live cell (no reference into it exists) and `value`; a `MaybeUninit` word
            // carries padding as it is.
            unsafe { to.add(i).write(from.add(i).read_volatile()) }
        }
        // SAFETY: every byte of a valid T was copied.
        unsafe { value.assume_init() }
    }

    /// Replaces the value.
    pub fn set(&self, value: T) {
        if !Self::WORDS {
            // SAFETY: as in `get`.
            return unsafe { self.0.get().write_volatile(value) };
        }
        let (from, to) = (
            (&raw const value).cast::<Word>(),
            self.0.get().cast::<Word>(),
        );
        for i in 0..size_of::<T>() / size_of::<Word>() {
            // SAFETY: as in `get`, the other way round.
            unsafe { to.add(i).write_volatile(from.add(i).read()) }
        }
    }

    /// Whether T is copied a word at a time: its size and alignment are multiples of 8.
    /// A volatile copy of a whole struct is made a byte at a time (its console driver, 32
    /// bytes, took 64 loads and stores a copy); by words it takes 8, the same volatile,
    /// whole-value copy (neither is atomic against an exception in its middle, which the
    /// type's documentation rules out).
    const WORDS: bool =
        size_of::<T>().is_multiple_of(size_of::<Word>()) && align_of::<T>().is_multiple_of(8);
}

/// The unit of a [`Global`]'s word-wise copies.
type Word = MaybeUninit<u64>;

/// A [`Global`] that starts empty, read and written as an `Option<T>`: a flag and the value,
/// both zero bytes at first, so that the static lies in the BSS. (A `Global<Option<T>>` whose
/// `None` is not zero bytes is initialised data, and one byte of `.data` costs the image file
/// a page: `linker.ld`.)
pub struct Slot<T: Copy> {
    filled: Global<bool>,
    value: Global<MaybeUninit<T>>,
}

impl<T: Copy> Slot<T> {
    /// An empty slot.
    pub const fn empty() -> Self {
        Slot {
            filled: Global::new(false),
            value: Global::new(MaybeUninit::zeroed()),
        }
    }

    /// A copy of the value, if there is one.
    pub fn get(&self) -> Option<T> {
        // SAFETY: `filled` is set only after `value` was written with a whole T (`set`).
        self.filled
            .get()
            .then(|| unsafe { self.value.get().assume_init() })
    }

    /// Replaces the value, or empties the slot.
    pub fn set(&self, value: Option<T>) {
        match value {
            Some(v) => {
                self.value.set(MaybeUninit::new(v));
                self.filled.set(true);
            }
            None => self.filled.set(false),
        }
    }
}

/// The run's results store (about 70 KiB, too large for a stack): in the image's BSS.
static mut RESULTS: mairbench_core::results::Results = mairbench_core::results::Results::new();
static RESULTS_TAKEN: Global<bool> = Global::new(false);

/// The results store of the verdicts, handed out once; `None` afterwards.
pub fn results_store() -> Option<&'static mut mairbench_core::results::Results> {
    if RESULTS_TAKEN.get() {
        return None;
    }
    RESULTS_TAKEN.set(true);
    // SAFETY: `RESULTS_TAKEN` makes this the one reference ever made to `RESULTS`, which only
    // the boot CPU's main flow uses (no exception handler or other CPU touches it).
    Some(unsafe { &mut *core::ptr::addr_of_mut!(RESULTS) })
}

/// The clusters the tables describe (about 14 KiB: a stack frame that held it would hold it
/// for the whole run), uninitialized in the image's BSS until written.
static mut TOPOLOGY: MaybeUninit<mairbench_core::topology::Topology<'static>> =
    MaybeUninit::uninit();
static TOPOLOGY_TAKEN: Global<bool> = Global::new(false);

/// The place of the clusters the tables describe, handed out once; `None` afterwards.
pub fn topology_store(
) -> Option<&'static mut MaybeUninit<mairbench_core::topology::Topology<'static>>> {
    if TOPOLOGY_TAKEN.get() {
        return None;
    }
    TOPOLOGY_TAKEN.set(true);
    // SAFETY: `TOPOLOGY_TAKEN` makes this the one reference ever made to `TOPOLOGY`, which
    // only the boot CPU's main flow uses.
    Some(unsafe { &mut *core::ptr::addr_of_mut!(TOPOLOGY) })
}
