//! Everything specific to AArch64: boot assembly, system registers, exceptions, MMIO, exit.
//! All `unsafe` code of the firmware lives below this module.

use core::arch::global_asm;
use core::cell::UnsafeCell;

pub mod exceptions;
pub mod exit;
pub mod kernels;
pub mod mmio;
pub mod mmu;
pub mod pmu;
pub mod semihosting;
pub mod smp;
pub mod timer;

global_asm!(include_str!("../../boot/entry.S"));
global_asm!(include_str!("../../boot/vectors.S"));

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
        // SAFETY: the pointer comes from a live `UnsafeCell`, is aligned, and no reference
        // into the cell exists (see the type's documentation).
        unsafe { self.0.get().read_volatile() }
    }

    /// Replaces the value.
    pub fn set(&self, value: T) {
        // SAFETY: as in `get`.
        unsafe { self.0.get().write_volatile(value) }
    }
}

/// Identification of the CPU running the firmware.
#[derive(Clone, Copy, Debug)]
pub struct CpuId {
    /// MIDR_EL1: implementer, part number, revision.
    pub midr: u64,
    /// MPIDR_EL1: affinity of this core.
    pub mpidr: u64,
    /// CNTFRQ_EL0: frequency of the generic timer, Hz.
    pub cntfrq: u64,
    /// The exception level the firmware runs at now.
    pub el: u64,
}

/// Reads the CPU identification registers.
pub fn cpu_id() -> CpuId {
    use aarch64_cpu::registers::{CurrentEL, Readable, CNTFRQ_EL0, MIDR_EL1, MPIDR_EL1};
    CpuId {
        midr: MIDR_EL1.get(),
        mpidr: MPIDR_EL1.get(),
        cntfrq: CNTFRQ_EL0.get(),
        el: CurrentEL.read(CurrentEL::EL),
    }
}

/// The virtual counter CNTVCT_EL0, ordered after the instructions before it.
pub fn ticks() -> u64 {
    use aarch64_cpu::registers::{Readable, CNTVCT_EL0};
    aarch64_cpu::asm::barrier::isb(aarch64_cpu::asm::barrier::SY);
    CNTVCT_EL0.get()
}

/// Reads `len` bytes of physical memory at `addr` as a byte slice, or `None` if reading its
/// first word faults (nothing there).
pub fn memory_at(addr: usize, len: usize) -> Option<&'static [u8]> {
    if addr == 0 || !addr.is_multiple_of(8) {
        return None;
    }
    // SAFETY: an aligned load from an address the caller believes to be RAM; a fault is
    // caught by the probe and reported as `None`.
    exceptions::probe(|| unsafe { core::ptr::read_volatile(addr as *const u64) }).ok()?;
    // SAFETY: the firmware runs with the MMU off, so physical memory is directly addressable,
    // the region was handed over by the boot loader for reading, and nothing writes it.
    Some(unsafe { core::slice::from_raw_parts(addr as *const u8, len) })
}

/// Waits for events forever: the last resort when no way to stop the machine exists.
pub fn park() -> ! {
    loop {
        aarch64_cpu::asm::wfe();
    }
}

/// Whether FP/SIMD instructions execute (not trapped): computes 1.0 + 1.0 in a SIMD register.
pub fn fp_simd_works() -> bool {
    let bits = exceptions::probe(|| {
        let bits: u64;
        // SAFETY: register-only FP arithmetic; a trap is caught by the probe.
        unsafe {
            core::arch::asm!(
                "fmov d16, #1.0",
                "fadd d16, d16, d16",
                "fmov {}, d16",
                out(reg) bits,
                out("d16") _,
                options(nomem, nostack),
            )
        };
        bits
    });
    bits == Ok(2.0f64.to_bits())
}

/// Loads the 64-bit word at `va` with a single `LDR`, catching a fault.
pub fn try_load(va: u64) -> Result<u64, exceptions::Fault> {
    exceptions::probe(|| {
        let value: u64;
        // SAFETY: one load whose fault, if any, the probe catches and steps over; nothing
        // else is touched.
        unsafe {
            core::arch::asm!("ldr {v}, [{a}]", a = in(reg) va, v = out(reg) value, options(nostack, readonly))
        };
        value
    })
}

/// Stores `value` at `va` with a single `STR`, catching a fault.
pub fn try_store(va: u64, value: u64) -> Result<(), exceptions::Fault> {
    exceptions::probe(|| {
        // SAFETY: one store whose fault, if any, the probe catches and steps over. Callers
        // store a word's current value, so a store that unexpectedly succeeds changes nothing.
        unsafe {
            core::arch::asm!("str {v}, [{a}]", a = in(reg) va, v = in(reg) value, options(nostack))
        };
    })
}

/// Where the linker put the parts of the image, at run time (after relocation).
#[derive(Clone, Copy, Debug)]
pub struct ImageLayout {
    /// Start of the image (the Image header, then code).
    pub start: u64,
    /// Start of read-only data (end of code).
    pub rodata: u64,
    /// Start of read-write data (end of read-only data).
    pub data: u64,
    /// Unmapped page below the main stack.
    pub stack_guard: u64,
    /// Main stack, `[stack_bottom, stack_top)`.
    pub stack_bottom: u64,
    /// Top of the main stack.
    pub stack_top: u64,
    /// Unmapped page below the exception stack.
    pub exception_guard: u64,
    /// Exception stack, `[exception_bottom, exception_top)`.
    pub exception_bottom: u64,
    /// Top of the exception stack.
    pub exception_top: u64,
    /// Translation-table pool, `[tables, end)`.
    pub tables: u64,
    /// End of the image (image_size in the header).
    pub end: u64,
}

/// The image's layout from the linker script's symbols.
pub fn image_layout() -> ImageLayout {
    extern "C" {
        static __image_start: u8;
        static __rodata_start: u8;
        static __data_start: u8;
        static __stack_bottom: u8;
        static __stack_top: u8;
        static __exception_stack_bottom: u8;
        static __exception_stack_top: u8;
        static __tables_start: u8;
        static __image_end: u8;
    }
    macro_rules! addr {
        ($sym:ident) => {
            // Only the address of a linker-script symbol is taken, never its contents.
            core::ptr::addr_of!($sym) as u64
        };
    }
    let stack_bottom = addr!(__stack_bottom);
    let exception_bottom = addr!(__exception_stack_bottom);
    ImageLayout {
        start: addr!(__image_start),
        rodata: addr!(__rodata_start),
        data: addr!(__data_start),
        stack_guard: stack_bottom - 4096,
        stack_bottom,
        stack_top: addr!(__stack_top),
        exception_guard: exception_bottom - 4096,
        exception_bottom,
        exception_top: addr!(__exception_stack_top),
        tables: addr!(__tables_start),
        end: addr!(__image_end),
    }
}

/// Access to the test buffer through one of its aliases: whole aligned 64-bit words, each a
/// single volatile access, so the memory type of the alias governs every access.
pub mod buffer {
    /// Writes `pattern(offset)` to every word of `[va, va+len)`.
    pub fn fill(va: u64, len: u64, pattern: impl Fn(u64) -> u64) {
        for off in (0..len).step_by(8) {
            // SAFETY: the caller passes a range inside a mapped, writable alias of the test
            // buffer, which no Rust object occupies; `va` is 8-byte aligned.
            unsafe { core::ptr::write_volatile((va + off) as *mut u64, pattern(off)) };
        }
    }

    /// Lays a pointer chase over `lines` cache lines of `line` bytes: writing through `via`
    /// (the `normal-wb` alias), the first word of line `i` gets the address, in the alias at
    /// `target`, of the line after `i` in a random cyclic order (Sattolo's algorithm), so a
    /// chase from `target` visits every line once per lap.
    pub fn lay_chase(via: u64, target: u64, lines: u64, line: u64, seed: u64) {
        let word = |i: u64| (via + i * line) as *mut u64;
        for i in 0..lines {
            // SAFETY: line starts inside the caller's range of the writable alias `via`.
            unsafe { core::ptr::write_volatile(word(i), i) };
        }
        let mut rng = mairbench_core::random::XorShift64::new(seed);
        mairbench_core::random::sattolo_swaps(lines, &mut rng, |i, j| {
            // SAFETY: i and j < lines: line starts inside the caller's range (as above).
            unsafe {
                let (a, b) = (word(i).read_volatile(), word(j).read_volatile());
                word(i).write_volatile(b);
                word(j).write_volatile(a);
            }
        });
        for i in 0..lines {
            // SAFETY: as above.
            unsafe {
                let next = word(i).read_volatile();
                word(i).write_volatile(target + next * line);
            }
        }
    }

    /// Moves a chase laid for the alias at `from` to the alias at `to` (same lines, same
    /// order): one sequential pass instead of a new random permutation.
    pub fn rebase_chase(via: u64, lines: u64, line: u64, from: u64, to: u64) {
        for i in 0..lines {
            let word = (via + i * line) as *mut u64;
            // SAFETY: line starts inside the caller's range of the writable alias `via`.
            unsafe {
                word.write_volatile(word.read_volatile().wrapping_sub(from).wrapping_add(to))
            };
        }
    }

    /// Whether the chase laid by [`lay_chase`] is intact: from `target`, following the
    /// pointers (read through `via`) returns to the start after exactly `lines` steps.
    pub fn chase_intact(via: u64, target: u64, lines: u64, line: u64) -> bool {
        let mut at = target;
        for step in 1..=lines {
            let offset = at.wrapping_sub(target);
            if !offset.is_multiple_of(line) || offset / line >= lines {
                return false;
            }
            // SAFETY: `offset` was just checked to be a line start inside the range.
            at = unsafe { core::ptr::read_volatile((via + offset) as *const u64) };
            if at == target {
                return step == lines;
            }
        }
        false
    }

    /// Counts the words of `[va, va+len)` that differ from `pattern(offset)`; also returns
    /// the offset of the first.
    pub fn mismatches(va: u64, len: u64, pattern: impl Fn(u64) -> u64) -> (u64, Option<u64>) {
        let mut count = 0;
        let mut first = None;
        for off in (0..len).step_by(8) {
            // SAFETY: as in `fill`, for a readable alias.
            let word = unsafe { core::ptr::read_volatile((va + off) as *const u64) };
            if word != pattern(off) {
                count += 1;
                first.get_or_insert(off);
            }
        }
        (count, first)
    }
}

/// CLIDR_EL1: which cache levels exist and of what type.
pub fn clidr() -> u64 {
    use aarch64_cpu::registers::{Readable, CLIDR_EL1};
    CLIDR_EL1.get()
}

/// CCSIDR_EL1 of cache `level` (0-based), instruction or data/unified side, and whether it
/// uses the 64-bit FEAT_CCIDX format (ID_AA64MMFR2_EL1.CCIDX).
pub fn ccsidr(level: u8, instruction: bool) -> (u64, bool) {
    use aarch64_cpu::registers::{Readable, Writeable, CCSIDR_EL1, CSSELR_EL1, ID_AA64MMFR2_EL1};
    CSSELR_EL1.set(u64::from(level & 7) << 1 | u64::from(instruction));
    aarch64_cpu::asm::barrier::isb(aarch64_cpu::asm::barrier::SY);
    let ccidx = (ID_AA64MMFR2_EL1.get() >> 20) & 0xf != 0;
    (CCSIDR_EL1.get(), ccidx)
}

/// The block size `DC ZVA` zeroes, in bytes, or `None` where DCZID_EL0.DZP prohibits it.
pub fn zva_block_size() -> Option<u64> {
    let dczid: u64;
    // SAFETY: reading DCZID_EL0 has no side effect.
    unsafe { core::arch::asm!("mrs {}, dczid_el0", out(reg) dczid, options(nomem, nostack)) };
    (dczid & (1 << 4) == 0).then(|| 4 << (dczid & 0xf))
}

/// Zeroes the `DC ZVA` block at `va` (size from DCZID_EL0), catching a fault.
pub fn try_zero_block(va: u64) -> Result<(), exceptions::Fault> {
    exceptions::probe(|| {
        // SAFETY: zeroes one block of the test buffer (callers pass an alias of it); a fault
        // is caught by the probe and stepped over.
        unsafe { core::arch::asm!("dc zva, {a}", a = in(reg) va, options(nostack)) };
    })
}
