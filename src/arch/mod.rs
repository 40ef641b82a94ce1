//! Everything specific to AArch64: boot assembly, system registers, exceptions, MMIO, exit.
//! All `unsafe` code of the firmware lives below this module.

use core::arch::global_asm;
use core::cell::UnsafeCell;
use mairbench_core::platform::PsciConduit;

pub mod buffer;
pub mod exceptions;
pub mod exit;
pub mod kernels;
pub mod mmio;
pub mod mmu;
pub mod pmu;
pub mod semihosting;
pub mod smp;
pub mod sysreg;
pub mod timer;
pub mod uefi;

// Constants the assembly shares with Rust, defined once here.
global_asm!(
    ".equ SECONDARY_BLOCK, {block}",
    ".equ MAX_CPUS, {cpus}",
    block = const smp::BLOCK,
    cpus = const mairbench_core::platform::MAX_CPUS,
);
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

/// What `boot/entry.S` hands to Rust, at EL1 with the MMU off, on the main stack.
#[derive(Clone, Copy, Debug)]
pub struct Boot {
    /// x0 at entry: the device tree's address from the boot loader (0 when none).
    pub dtb_arg: usize,
    /// The exception level the image was entered at.
    pub entry_el: u64,
    /// Where the image runs.
    pub image_base: usize,
    /// Relocations of a type the entry code does not apply.
    pub bad_relocs: u64,
    /// SCTLR_ELx at entry (MMU and cache bits, before they were turned off).
    pub entry_sctlr: u64,
    /// `DC CISW` operations the entry code issued to clean the caches (0 when they were off).
    pub setway_ops: u64,
    /// CNTFRQ_EL0 as programmed at EL3 from the device tree, when it read 0 there.
    pub cntfrq_programmed: Option<u64>,
    /// CNTVCT_EL0 when Rust started.
    pub start_ticks: u64,
    /// What the UEFI stage left, when the image was started as a UEFI application.
    pub uefi: Option<uefi::Handoff>,
}

/// The Rust entry point, called by `boot/entry.S`: finds the device tree, discovers the
/// platform and starts the console, then runs the firmware.
#[no_mangle]
extern "C" fn rust_main(
    dtb_arg: usize,
    entry_el: u64,
    image_base: usize,
    bad_relocs: u64,
    entry_sctlr: u64,
    setway_ops: u64,
) -> ! {
    let start_ticks = ticks();
    exceptions::set_reporter(crate::report_exception);
    let uefi = uefi::handoff();
    // A UEFI application's device tree is the configuration table's (in x0) or none: QEMU
    // virt's blob at the base of RAM may be stale memory the firmware has reused.
    let dtb = match uefi {
        Some(_) => find_dtb_at(dtb_arg),
        None => find_dtb(dtb_arg),
    };
    // A device tree, else (a UEFI application on an ACPI-only machine) the ACPI tables.
    let mut platform = match (dtb, uefi.and_then(|h| h.tables.rsdp)) {
        (None, Some(rsdp)) => mairbench_core::acpi::discover(&UefiRam, rsdp),
        _ => mairbench_core::platform::discover(dtb.map(|(_, blob)| blob)),
    };
    // Started as a UEFI application: RAM and what in it is not free come from the firmware's
    // memory map (runtime services, ACPI, reserved memory are never used).
    if let Some(handoff) = uefi {
        handoff.memory_map().apply_to(&mut platform);
    }
    // QEMU virt's PL011 is written to only where the machine is known to be QEMU: its device
    // tree (also when found at QEMU virt's RAM base), or, without any device tree, a
    // semihosting host answering. Elsewhere (a real board without a device tree, or with an
    // unsupported console) the run stays silent rather than writing to a guess.
    let qemu_without_dtb = || !platform.dtb_ok && semihosting::available();
    if platform.console_from_dtb || platform.emulated || qemu_without_dtb() {
        // SAFETY: the console just discovered: the UART that `/chosen/stdout-path` of this
        // boot's device tree names (its translated `reg`, of the kind whose register layout
        // the driver uses), or QEMU virt's PL011 where the machine is QEMU's. With the MMU
        // off it is Device memory; memory set-up maps its page 1:1 as Device-nGnRnE. The
        // console is the one driver of it.
        let device = unsafe { mmio::Device::at(platform.console.base) };
        crate::console::init(platform.console.kind, device);
    }
    // Vectors, reporter and console are in place: an SError (an external abort from a bus
    // or a TZASC) is now taken and reported in words instead of staying pending.
    {
        use aarch64_cpu::registers::{ReadWriteable, DAIF};
        DAIF.modify(DAIF::A::Unmasked);
    }
    let boot = Boot {
        dtb_arg,
        entry_el,
        image_base,
        bad_relocs,
        entry_sctlr,
        setway_ops,
        cntfrq_programmed: CNTFRQ_PROGRAMMED.get(),
        start_ticks,
        uefi,
    };
    crate::main(boot, dtb, platform)
}

/// Physical memory as the ACPI reader sees it after ExitBootServices: the write-back RAM of
/// the UEFI memory map (where firmware puts its tables), read with the MMU off.
struct UefiRam;

impl mairbench_core::acpi::Phys for UefiRam {
    fn read(&self, pa: u64, len: usize) -> Option<&[u8]> {
        use aarch64_cpu::registers::{Readable, SCTLR_EL1};
        let end = pa.checked_add(u64::try_from(len).ok()?)?;
        let map = uefi::handoff()?.memory_map();
        let inside = map
            .ram()
            .iter()
            .any(|r| r.base <= pa && r.base.checked_add(r.size).is_some_and(|e| end <= e));
        if !inside || pa == 0 || SCTLR_EL1.is_set(SCTLR_EL1::M) {
            return None;
        }
        // SAFETY: the MMU is off (checked), so `pa` is physical; `[pa, pa+len)` lies in RAM the
        // UEFI map lists as write-back memory (no device registers); the ACPI tables in it are
        // reserved (the map's non-free memory is never used for the buffer, tables or stacks)
        // and nothing writes them.
        Some(unsafe { core::slice::from_raw_parts(pa as usize as *const u8, len) })
    }
}

/// Where QEMU `virt` puts the device tree when it starts an ELF (x0 = 0): the base of RAM.
const QEMU_VIRT_DTB: usize = 0x4000_0000;

/// What `el3_setup` wrote to CNTFRQ_EL0 (`None`: nothing).
static CNTFRQ_PROGRAMMED: Global<Option<u64>> = Global::new(None);

/// Called by `boot/entry.S` at EL3, before the drop to EL1, with the MMU and caches off,
/// relocated, on the main stack: mairbench is the firmware, so it programs CNTFRQ_EL0 (writable
/// only at EL3) from the device tree's `/timer` `clock-frequency` when the register reads 0.
/// No EL1 vectors exist yet: any exception abandons this function (entry.S's EL3 vectors
/// return to the entry code), so a guessed device-tree address that is not memory only means
/// that nothing is programmed.
#[no_mangle]
extern "C" fn el3_setup(dtb_arg: usize) {
    use aarch64_cpu::registers::{Readable, CNTFRQ_EL0};
    use mairbench_core::platform::{cntfrq_to_program, dtb_size, timer_frequency};
    let current = CNTFRQ_EL0.get();
    if current != 0 {
        return;
    }
    let hz = [dtb_arg, QEMU_VIRT_DTB].into_iter().find_map(|addr| {
        if addr == 0 || !addr.is_multiple_of(8) {
            return None;
        }
        // SAFETY: the MMU is off, so the address is physical; the boot loader hands the
        // device tree over for reading, and at QEMU virt's RAM base a load either reads
        // memory or faults, which abandons this function (see above). Nothing writes it.
        let header = unsafe { core::slice::from_raw_parts(addr as *const u8, 40) };
        let size = dtb_size(header)?;
        // SAFETY: as above; the header says the blob is `size` bytes long.
        timer_frequency(unsafe { core::slice::from_raw_parts(addr as *const u8, size) })
    });
    if let Some(hz) = cntfrq_to_program(current, hz) {
        // SAFETY: at EL3 (entry.S calls this only there) CNTFRQ_EL0 is writable; it only
        // tells software the counter's frequency.
        unsafe { core::arch::asm!("msr cntfrq_el0, {}", "isb", in(reg) hz, options(nostack)) };
        CNTFRQ_PROGRAMMED.set(Some(hz));
    }
}

/// Whether PSCI may be called from EL1, and over which conduit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Psci {
    /// The device tree names no conduit.
    Absent,
    /// The device tree's conduit reaches PSCI firmware at a higher EL than the entry EL.
    Usable(PsciConduit),
    /// The device tree's conduit lands in an EL the firmware has left: its vectors are the
    /// boot loader's, or nobody's. Never called.
    Unusable(PsciConduit, &'static str),
}

impl Psci {
    /// The conduit to call, if any.
    pub fn usable(self) -> Option<PsciConduit> {
        match self {
            Psci::Usable(conduit) => Some(conduit),
            Psci::Absent | Psci::Unusable(..) => None,
        }
    }
}

/// Decides whether the device tree's PSCI conduit (`dtb`) may be called from EL1, having been
/// entered at `entry_el`: HVC lands in EL2, so only when entered at EL1 (a hypervisor or
/// QEMU's built-in PSCI there); SMC lands in EL3, so only when entered below it.
pub fn psci_conduit(dtb: Option<PsciConduit>, entry_el: u64) -> Psci {
    match dtb {
        None => Psci::Absent,
        Some(PsciConduit::Hvc) if entry_el >= 2 => Psci::Unusable(
            PsciConduit::Hvc,
            "HVC would land in EL2, which mairbench was entered at and left: no PSCI \
             implementation is there",
        ),
        Some(PsciConduit::Smc) if entry_el >= 3 => Psci::Unusable(
            PsciConduit::Smc,
            "SMC would land in EL3, which mairbench was entered at and left: no PSCI \
             implementation is there",
        ),
        Some(conduit) => Psci::Usable(conduit),
    }
}

/// Whether SError is unmasked (PSTATE.A clear), so an external abort is taken and reported.
pub fn serror_unmasked() -> bool {
    use aarch64_cpu::registers::{Readable, DAIF};
    DAIF.matches_all(DAIF::A::Unmasked)
}

/// The `DC CISW` operations a clean of every data or unified cache level below CLIDR_EL1.LoC
/// takes (sets x ways per level, CCSIDR_EL1 decoded by `mairbench_core::cache`), and whether
/// CCSIDR_EL1 has the FEAT_CCIDX layout: what the entry code must have issued when it was
/// entered with the caches on.
pub fn setway_ops_expected() -> (u64, bool) {
    use mairbench_core::cache::{decode_ccsidr, level_of_coherence, CacheType};
    let clidr = clidr();
    let mut ops = 0u64;
    let mut ccidx = false;
    for level in 0..level_of_coherence(clidr) {
        let ctype = (clidr >> (3 * u64::from(level))) & 7;
        if ctype < 2 {
            continue;
        }
        let (value, is_ccidx) = ccsidr(level, false);
        ccidx = is_ccidx;
        let kind = CacheType::from_ctype(ctype).unwrap_or(CacheType::Unified);
        let geometry = decode_ccsidr(level + 1, kind, value, is_ccidx);
        ops += u64::from(geometry.ways) * u64::from(geometry.sets);
    }
    (ops, ccidx)
}

/// Finds the device tree, with the MMU still off: at the boot loader's `x0`, else at the
/// start of QEMU virt RAM. A blob is taken only where its header reads as a device tree.
pub fn find_dtb(x0: usize) -> Option<(usize, &'static [u8])> {
    find_dtb_at(x0).or_else(|| find_dtb_at(QEMU_VIRT_DTB))
}

/// The device tree at `addr` only, if one is there (MMU off).
fn find_dtb_at(addr: usize) -> Option<(usize, &'static [u8])> {
    use aarch64_cpu::registers::{Readable, SCTLR_EL1};
    if SCTLR_EL1.is_set(SCTLR_EL1::M) {
        return None;
    }
    // SAFETY: the MMU is off (checked above), so addresses are physical, and the boot
    // loader hands over the device tree for reading; nothing in the firmware writes below
    // its own image (the test buffer is placed away from the blob).
    let header = unsafe { memory_at(addr, 40)? };
    let size = mairbench_core::platform::dtb_size(header)?;
    // SAFETY: as above; the header says the blob is `size` bytes long.
    Some((addr, unsafe { memory_at(addr, size)? }))
}

/// Reads `len` bytes of physical memory at `addr` as a byte slice, or `None` if reading its
/// first word faults (nothing there) or `addr` is 0 or unaligned.
///
/// # Safety
/// The MMU must be off; `[addr, addr+len)` must be memory (not device registers) that
/// nothing writes for the rest of the run.
unsafe fn memory_at(addr: usize, len: usize) -> Option<&'static [u8]> {
    if addr == 0 || !addr.is_multiple_of(8) {
        return None;
    }
    let first_word = || {
        // SAFETY: an aligned load of memory (the caller's promise); a fault is caught.
        unsafe { core::ptr::read_volatile(addr as *const u64) }
    };
    // SAFETY: the only instruction that may fault is the volatile load; its value is unused.
    unsafe { exceptions::probe(first_word) }.ok()?;
    // SAFETY: the caller promises memory that nothing writes; with the MMU off it is directly
    // addressable.
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
    let add = || {
        let bits: u64;
        // SAFETY: register-only FP arithmetic.
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
    };
    // SAFETY: only the asm's FP instructions may trap; skipped, `bits` is garbage, which the
    // comparison rejects along with the fault.
    let sum = unsafe { exceptions::probe(add) };
    sum == Ok(2.0f64.to_bits())
}

/// Loads the 64-bit word at `va` with a single `LDR`, catching a fault.
///
/// # Safety
/// Reading `va` must have no effect besides a possible fault (not a device register, for
/// instance).
pub unsafe fn try_load(va: u64) -> Result<u64, exceptions::Fault> {
    let load = || {
        let value: u64;
        // SAFETY: one load, without side effects (the caller's promise).
        unsafe {
            core::arch::asm!("ldr {v}, [{a}]", a = in(reg) va, v = out(reg) value, options(nostack, readonly))
        };
        value
    };
    // SAFETY: the `ldr` is the only instruction that may fault; its value is then unused.
    unsafe { exceptions::probe(load) }
}

/// Loads from `va` after `AT S1E1R` has shown that it does not translate, so the load can
/// only fault: a deliberate translation fault. `None` (nothing tried) when `va` is mapped.
pub fn try_load_unmapped(va: u64) -> Option<Result<u64, exceptions::Fault>> {
    matches!(mmu::at_s1e1r(va), mmu::Par::Fault { .. }).then(|| {
        // SAFETY: `va` does not translate, so the load reads nothing: it faults.
        unsafe { try_load(va) }
    })
}

/// Stores to the image's own code the word that is already there, with a single `STR`,
/// catching the permission fault W^X must raise. `None` (nothing tried) unless `va` is an
/// aligned word of the text.
pub fn try_store_text(va: u64) -> Option<Result<(), exceptions::Fault>> {
    let image = image_layout();
    if !(image.start..image.rodata).contains(&va) || !va.is_multiple_of(8) {
        return None;
    }
    // SAFETY: reading code has no side effect.
    let current = unsafe { try_load(va) }.ok()?;
    let store = || {
        // SAFETY: one store of the word's current value: should it succeed, the text keeps
        // its contents.
        unsafe {
            core::arch::asm!("str {v}, [{a}]", a = in(reg) va, v = in(reg) current, options(nostack))
        };
    };
    // SAFETY: the `str` is the only instruction that may fault; nothing depends on it.
    Some(unsafe { exceptions::probe(store) })
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
    let ccidx = ID_AA64MMFR2_EL1.read(ID_AA64MMFR2_EL1::CCIDX) != 0;
    (CCSIDR_EL1.get(), ccidx)
}

/// The block size `DC ZVA` zeroes, in bytes, or `None` where DCZID_EL0.DZP prohibits it.
pub fn zva_block_size() -> Option<u64> {
    use sysreg::{DCZID, DCZID_EL0};
    use tock_registers::interfaces::Readable;
    (!DCZID.is_set(DCZID_EL0::DZP)).then(|| 4 << DCZID.read(DCZID_EL0::BS))
}

/// `mairbench.selftest=caches-off`: turns this CPU's data cache off for the measurements, when
/// no secondary CPU is running yet (spin-table CPUs released early may already be). Returns
/// the DC CISW operations of the set/way clean, or why it was not done.
pub fn data_cache_off() -> Result<u64, &'static str> {
    if (1..=smp::SECONDARY_BLOCKS).any(|b| smp::online(b).is_some()) {
        return Err("secondary CPUs already run with their caches on");
    }
    // SAFETY: no secondary CPU has reported, and the caller starts none before this returns
    // (the boot CPU is the only one running mairbench code).
    Ok(unsafe { mmu::data_cache_off() })
}

/// The data and unified cache levels CLIDR_EL1 and CCSIDR_EL1 report, innermost first, and
/// how many of the entries are levels.
pub fn cache_levels() -> (
    [mairbench_core::cache::CacheLevel; mairbench_core::cache::MAX_LEVELS],
    usize,
) {
    let ccidx = ccsidr(0, false).1;
    mairbench_core::cache::levels(clidr(), ccidx, |level, instruction| {
        ccsidr(level, instruction).0
    })
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
