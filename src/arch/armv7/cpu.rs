//! The CPU running the code: identification, the counter, waiting for good, the cache
//! geometry its ID registers report, and what the entry left of the mode and masks.

use super::barrier::isb;
use super::global::Global;
use super::regs::{
    read, read64, write, Actlr, Ccsidr, Clidr, CntFrq, CntVct, Csselr, IdPfr1, Midr, Mpidr, Sctlr,
    Tpidrprw,
};
use core::sync::atomic::{AtomicU32, AtomicU64, AtomicU8, Ordering};
use mairbench_core::cores::armv7::{Actlr as SmpBits, SmpSetup};
use mairbench_core::counter::{self, Errata};

/// What identifies the CPU, as the `start` record reports it.
#[derive(Clone, Copy, Debug)]
pub struct CpuId {
    /// MIDR.
    pub midr: u64,
    /// MPIDR.
    pub mpidr: u64,
    /// The counter's frequency, Hz ([`counter_hz`]).
    pub cntfrq: u64,
    /// The privilege level the run is at (SVC mode: PL1, reported as EL1).
    pub el: u64,
}

/// This CPU's identification.
pub fn cpu_id() -> CpuId {
    CpuId {
        midr: read::<Midr>().into(),
        mpidr: read::<Mpidr>().into(),
        cntfrq: counter_hz(),
        el: mairbench_core::arch::armv7_mode(cpsr()).map_or(1, |m| m.el.into()),
    }
}

/// CPSR.
fn cpsr() -> u32 {
    let v: u32;
    // SAFETY: reads CPSR only.
    unsafe {
        core::arch::asm!("mrs {}, cpsr", out(reg) v, options(nomem, nostack, preserves_flags))
    };
    v
}

/// Whether the core has the generic timer (ID_PFR1.GenTimer): the Cortex-A7 and A15 do,
/// the A8 and A9 do not. Read once.
pub fn generic_timer() -> bool {
    static KNOWN: AtomicU8 = AtomicU8::new(0);
    match KNOWN.load(Ordering::Relaxed) {
        1 => true,
        2 => false,
        _ => {
            let has = mairbench_core::arch::armv7_features(0, read::<IdPfr1>()).generic_timer;
            KNOWN.store(if has { 1 } else { 2 }, Ordering::Relaxed);
            has
        }
    }
}

/// The counter frequency the run uses (0: not set, CNTFRQ is read instead).
static COUNTER_HZ: AtomicU64 = AtomicU64::new(0);

/// Makes `hz` the counter's frequency for the rest of the run (the device tree's, where
/// CNTFRQ reads 0).
pub fn set_counter_hz(hz: u64) {
    COUNTER_HZ.store(hz, Ordering::Relaxed);
}

/// The counter's frequency, Hz: a SoC timer's where one is the clock
/// ([`super::soc_timer`]), else what [`set_counter_hz`] set, else CNTFRQ.
pub fn counter_hz() -> u64 {
    if let Some(hz) = super::soc_timer::hz() {
        return hz;
    }
    match COUNTER_HZ.load(Ordering::Relaxed) {
        0 => cntfrq_register(),
        hz => hz,
    }
}

/// CNTFRQ as the register reads (0 without a generic timer).
pub fn cntfrq_register() -> u64 {
    if generic_timer() {
        read::<CntFrq>().into()
    } else {
        0
    }
}

/// The machine's counter errata, for every CPU (each adds its core's own).
static MACHINE_ERRATA: AtomicU8 = AtomicU8::new(0);

/// Sets the machine's counter errata and this CPU's.
pub fn set_counter_errata(errata: Errata) {
    MACHINE_ERRATA.store(errata.bits(), Ordering::Relaxed);
    own_counter_errata();
}

/// This CPU's counter errata (the machine's and its core's) into TPIDRPRW, where
/// [`ticks`] reads them.
pub fn own_counter_errata() {
    let machine = Errata::from_bits(MACHINE_ERRATA.load(Ordering::Relaxed));
    let core = mairbench_core::cores::counter_erratum(read::<Midr>().into());
    // SAFETY: TPIDRPRW is a software thread ID register; only this code uses it.
    unsafe { write::<Tpidrprw>(machine.with_core(core).bits().into()) };
}

/// This CPU's counter errata.
pub fn counter_errata() -> Errata {
    Errata::from_bits(read::<Tpidrprw>() as u8)
}

/// The virtual counter, read after the instructions before it (ISB), without the errata's
/// workarounds: for waits (`super::timer`). Without a generic timer (the Cortex-A8 and A9),
/// the SoC timer that is the clock ([`super::soc_timer`]), else 0 (the timer check then
/// fails, and every wait ends at once).
#[inline(always)]
pub fn counter() -> u64 {
    isb();
    if generic_timer() {
        read64::<CntVct>()
    } else {
        super::soc_timer::count().unwrap_or(0)
    }
}

/// The virtual counter CNTVCT, ordered after the instructions before it, read by this CPU's
/// errata rules ([`own_counter_errata`]); without a generic timer, as [`counter`].
pub fn ticks() -> u64 {
    isb();
    if !generic_timer() {
        return super::soc_timer::count().unwrap_or(0);
    }
    counter::read(counter_errata(), read64::<CntVct>)
}

/// [`ticks`], then a load whose address depends on the value read, so that loads after it
/// wait for the counter read (as the AArch64 image's does).
pub fn ticks_before_loads() -> u64 {
    let t = ticks();
    // SAFETY: loads the word at the stack pointer (plus zero): mapped, read-only here.
    unsafe {
        core::arch::asm!(
            "eor {tmp}, {t}, {t}",
            "ldr {tmp}, [sp, {tmp}]",
            t = in(reg) t as u32,
            tmp = out(reg) _,
            options(nostack, readonly, preserves_flags),
        );
    }
    t
}

/// Waits for good (WFE in a loop).
pub fn park() -> ! {
    loop {
        super::barrier::wfe();
    }
}

/// CLIDR.
pub fn clidr() -> u64 {
    read::<Clidr>().into()
}

/// CCSIDR of cache `level` (0-based), data or unified, or instruction; ARMv7 has no CCIDX.
pub fn ccsidr(level: u8, instruction: bool) -> (u64, bool) {
    // SAFETY: CSSELR only selects which cache CCSIDR describes.
    unsafe { write::<Csselr>(u32::from(level & 7) << 1 | u32::from(instruction)) };
    isb();
    (read::<Ccsidr>().into(), false)
}

/// The cache levels CLIDR and CCSIDR describe, and how many there are.
pub fn cache_levels() -> (
    [mairbench_core::cache::CacheLevel; mairbench_core::cache::MAX_LEVELS],
    usize,
) {
    mairbench_core::cache::levels(clidr(), false, |level, instruction| {
        ccsidr(level, instruction).0
    })
}

/// No `DC ZVA` in A32.
pub fn zva_block_size() -> Option<u64> {
    None
}

/// Whether asynchronous aborts are unmasked (CPSR.A clear).
pub fn serror_unmasked() -> bool {
    cpsr() & (1 << 8) == 0
}

/// The AArch64 EL2 trap registers a hypervisor should zero: none on ARMv7.
pub fn el2_traps_zeroed(_entry_el: u64) -> impl Iterator<Item = &'static str> {
    core::iter::empty()
}

/// Whether the firmware's own translation regime is on, so that addresses may no longer be
/// physical. The entry code's early identity map (boot/armv7/entry.S) sets SCTLR.M with the
/// data cache off; the firmware's regime sets SCTLR.C too, so C is what tells them apart.
pub fn mmu_on() -> bool {
    read::<Sctlr>() & 0b101 == 0b101
}

/// MPIDR's affinity fields on ARMv7: Aff2..Aff0 \[23:0\].
pub const AFFINITY: u64 = 0xff_ffff;

/// The ACTLR bits the boot CPU's core needs to take part in coherency (0: none known), which
/// each secondary sets in its entry code (`secondary_entry`, boot/armv7/entry.S) before its
/// caches go on, as Linux's secondary start-up does (its `__v7_setup` runs on every CPU).
#[export_name = "mb_smp_needs"]
static SMP_NEEDS: AtomicU32 = AtomicU32::new(0);

/// What [`set_smp_bits`] found and did.
static SMP_SETUP: Global<Option<SmpSetup>> = Global::new(None);

/// Sets the ACTLR bits the core needs to take part in coherency (SMP, and FW on the A5 and
/// A9), as Linux's SMP setup does before it turns the caches on, where the boot loader left
/// them clear; remembers what it found for [`smp_bits`]. The boot CPU calls it before memory
/// set-up turns the caches on.
pub fn set_smp_bits() {
    let midr = read::<Midr>();
    let found = read::<Actlr>();
    let judged = mairbench_core::cores::armv7::judge(midr, found);
    if let SmpBits::Set(core) | SmpBits::Missing(core, _) = judged {
        // With the data cache off: memory holds it for the secondaries' entry.
        SMP_NEEDS.store(core.needs, Ordering::Relaxed);
    }
    if let SmpBits::Missing(_, bits) = judged {
        // SAFETY: sets bits that only take this core into coherency, with its data cache off
        // (the early map runs with SCTLR.C clear); where ACTLR is not writable here the write
        // is ignored, and a trap is caught.
        let _ = unsafe { super::exceptions::probe(|| write::<Actlr>(found | bits)) };
    }
    SMP_SETUP.set(SmpSetup::of(midr, found, read::<Actlr>()));
}

/// What the boot CPU's ACTLR said of its SMP bits, and whether the image set them.
pub fn smp_bits() -> Option<SmpSetup> {
    SMP_SETUP.get()
}
