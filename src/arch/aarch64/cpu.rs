//! The CPU running the code: identification, the virtual counter, waiting for good, and the
//! cache geometry and `DC ZVA` block its ID registers report.

use core::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use mairbench_core::counter::{self, Errata};

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

/// Reads the CPU identification registers (`cntfrq`: the counter's rate the firmware times
/// with, [`counter_hz`]).
pub fn cpu_id() -> CpuId {
    use aarch64_cpu::registers::{CurrentEL, Readable, MIDR_EL1, MPIDR_EL1};
    CpuId {
        midr: MIDR_EL1.get(),
        mpidr: MPIDR_EL1.get(),
        cntfrq: counter_hz(),
        el: CurrentEL.read(CurrentEL::EL),
    }
}

/// The counter's rate set by [`set_counter_hz`] (0: CNTFRQ_EL0's).
static COUNTER_HZ: AtomicU64 = AtomicU64::new(0);

/// Times with `hz` instead of CNTFRQ_EL0 from now on: the device tree's `/timer`
/// `clock-frequency`, which Linux prefers where a boot loader left CNTFRQ_EL0 wrong (below
/// EL3 the firmware cannot write the register). Set before the secondary CPUs start.
pub fn set_counter_hz(hz: u64) {
    COUNTER_HZ.store(hz, Ordering::Relaxed);
}

/// The counter's rate, Hz: [`set_counter_hz`]'s, else CNTFRQ_EL0 (its bits 31:0).
pub fn counter_hz() -> u64 {
    use aarch64_cpu::registers::{Readable, CNTFRQ_EL0};
    match COUNTER_HZ.load(Ordering::Relaxed) {
        0 => CNTFRQ_EL0.get() & u64::from(u32::MAX),
        hz => hz,
    }
}

/// CNTFRQ_EL0 itself (bits 31:0), whatever the firmware times with.
pub fn cntfrq_register() -> u64 {
    use aarch64_cpu::registers::{Readable, CNTFRQ_EL0};
    CNTFRQ_EL0.get() & u64::from(u32::MAX)
}

/// The counter errata of this machine, not of its cores ([`Errata::bits`]: the device tree's
/// and ACPI's), set once before the secondary CPUs start.
static MACHINE_ERRATA: AtomicU8 = AtomicU8::new(0);

/// The machine's counter errata are `errata` ([`mairbench_core::platform::counter_errata`]);
/// this CPU reads the counter by them and its own core's from now on ([`own_counter_errata`]).
pub fn set_counter_errata(errata: Errata) {
    MACHINE_ERRATA.store(errata.bits(), Ordering::Relaxed);
    own_counter_errata();
}

/// This CPU reads the counter by the machine's errata and its own core's, by its own MIDR
/// (Linux decides per CPU: on an S922X the A73s have 858921, the A53 boot CPU none). Kept in
/// TPIDR_EL1, which nothing else uses and every CPU has its own of (boot/aarch64/entry.S zeroes
/// it).
pub fn own_counter_errata() {
    use aarch64_cpu::registers::{Readable, Writeable, MIDR_EL1, TPIDR_EL1};
    let machine = Errata::from_bits(MACHINE_ERRATA.load(Ordering::Relaxed));
    let core = mairbench_core::cores::counter_erratum(MIDR_EL1.get());
    TPIDR_EL1.set(u64::from(machine.with_core(core).bits()));
}

/// The counter errata this CPU's reads follow.
pub fn counter_errata() -> Errata {
    use aarch64_cpu::registers::{Readable, TPIDR_EL1};
    Errata::from_bits(TPIDR_EL1.get() as u8)
}

/// The virtual counter, read after the instructions before it (ISB), without the errata's
/// workarounds: for waits (`super::timer`), where a rare wrong read costs nothing.
#[inline(always)]
pub fn counter() -> u64 {
    use aarch64_cpu::registers::{Readable, CNTVCT_EL0};
    aarch64_cpu::asm::barrier::isb(aarch64_cpu::asm::barrier::SY);
    CNTVCT_EL0.get()
}

/// The virtual counter CNTVCT_EL0, ordered after the instructions before it, read by this
/// CPU's errata rules ([`own_counter_errata`]).
pub fn ticks() -> u64 {
    use aarch64_cpu::registers::{Readable, CNTVCT_EL0};
    aarch64_cpu::asm::barrier::isb(aarch64_cpu::asm::barrier::SY);
    counter::read(counter_errata(), || CNTVCT_EL0.get())
}

/// [`ticks`], with every later load made to depend on the value read, so that none of them
/// is performed before the counter is (Linux's `arch_counter_enforce_ordering`: the value
/// XOR itself added to SP, and a load from there): the start of a timed interval.
pub fn ticks_before_loads() -> u64 {
    let t = ticks();
    // SAFETY: loads one word from the stack pointer (t ^ t is 0) into the zero register: a
    // readable address, and nothing changes but the dependency it creates.
    unsafe {
        core::arch::asm!(
            "eor {tmp}, {t}, {t}",
            "add {tmp}, sp, {tmp}",
            "ldr xzr, [{tmp}]",
            t = in(reg) t,
            tmp = out(reg) _,
            options(nostack, readonly, preserves_flags),
        );
    }
    t
}

/// Waits for events forever: the last resort when no way to stop the machine exists.
pub fn park() -> ! {
    loop {
        aarch64_cpu::asm::wfe();
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

/// The block size `DC ZVA` zeroes, in bytes, or `None` where DCZID_EL0.DZP prohibits it.
pub fn zva_block_size() -> Option<u64> {
    use super::sysreg::{DCZID, DCZID_EL0};
    use tock_registers::interfaces::Readable;
    (!DCZID.is_set(DCZID_EL0::DZP)).then(|| 4 << DCZID.read(DCZID_EL0::BS))
}

/// Whether SError is unmasked (PSTATE.A clear), so an external abort is taken and reported.
pub fn serror_unmasked() -> bool {
    use aarch64_cpu::registers::{Readable, DAIF};
    DAIF.matches_all(DAIF::A::Unmasked)
}

/// The EL2 trap registers boot/aarch64/entry.S zeroed before it dropped to EL1 from `entry_el`: the
/// fine-grained trap registers where ID_AA64MMFR0_EL1.FGT (bits 59:56) says they exist,
/// HCRX_EL2 where ID_AA64MMFR1_EL1.HCX (bits 43:40) does (the same tests as the entry code).
pub fn el2_traps_zeroed(entry_el: u64) -> impl Iterator<Item = &'static str> {
    use aarch64_cpu::registers::{Readable, ID_AA64MMFR0_EL1, ID_AA64MMFR1_EL1};
    let below = entry_el >= 2;
    let fgt = below && (ID_AA64MMFR0_EL1.get() >> 56) & 0xf != 0;
    let hcx = below && (ID_AA64MMFR1_EL1.get() >> 40) & 0xf != 0;
    const FGT_REGS: [&str; 5] = [
        "HFGRTR_EL2",
        "HFGWTR_EL2",
        "HFGITR_EL2",
        "HDFGRTR_EL2",
        "HDFGWTR_EL2",
    ];
    FGT_REGS
        .iter()
        .copied()
        .filter(move |_| fgt)
        .chain(core::iter::once("HCRX_EL2").filter(move |_| hcx))
}

/// Whether this CPU's stage 1 translation is on (SCTLR_EL1.M).
pub fn mmu_on() -> bool {
    use aarch64_cpu::registers::{Readable, SCTLR_EL1};
    SCTLR_EL1.is_set(SCTLR_EL1::M)
}

/// MPIDR_EL1's affinity fields: Aff3 \[39:32\] and Aff2..Aff0 \[23:0\].
pub const AFFINITY: u64 = 0xff_00ff_ffff;

/// The ARMv7 cores' SMP bits: nothing to say on AArch64 (its cores' CPUECTLR.SMPEN is the
/// boot firmware's, `boot/aarch64/entry.S`).
pub fn smp_bits() -> Option<mairbench_core::cores::armv7::SmpSetup> {
    None
}
