//! CP15 registers as raw words, each named with its encoding: `MRC`/`MCR p15` for the 32-bit
//! ones, `MRRC`/`MCRR p15` for LPAE's 64-bit ones (Arm ARM DDI 0406C, B4.1 and B8.2).
//!
//! Written here rather than taken from `aarch32-cpu` (0.4), whose registers are the same
//! encodings in the same style: that crate recognises its targets by name (`armv7a-*`) and
//! does not build for `armv7-unknown-linux-gnueabihf`, the target this image must use (see
//! `.cargo/config.toml`: the only 32-bit target whose prebuilt `core` is position
//! independent).

/// A 32-bit CP15 register: `MRC/MCR p15, OP1, Rt, CRn, CRm, OP2`.
pub trait Reg {
    /// CRn.
    const CRN: u32;
    /// opc1.
    const OP1: u32;
    /// CRm.
    const CRM: u32;
    /// opc2.
    const OP2: u32;
}

/// A 64-bit CP15 register: `MRRC/MCRR p15, OP1, Rt, Rt2, CRm`.
pub trait Reg64 {
    /// opc1.
    const OP1: u32;
    /// CRm.
    const CRM: u32;
}

macro_rules! reg {
    ($($(#[$doc:meta])* $name:ident: $crn:literal, $op1:literal, $crm:literal, $op2:literal;)*) => {$(
        $(#[$doc])*
        pub struct $name;
        impl Reg for $name {
            const CRN: u32 = $crn;
            const OP1: u32 = $op1;
            const CRM: u32 = $crm;
            const OP2: u32 = $op2;
        }
    )*};
}

macro_rules! reg64 {
    ($($(#[$doc:meta])* $name:ident: $op1:literal, $crm:literal;)*) => {$(
        $(#[$doc])*
        pub struct $name;
        impl Reg64 for $name {
            const OP1: u32 = $op1;
            const CRM: u32 = $crm;
        }
    )*};
}

reg! {
    /// MIDR: implementer, part number, revision.
    Midr: 0, 0, 0, 0;
    /// MPIDR: this core's affinity.
    Mpidr: 0, 0, 0, 5;
    /// CTR: the cache lines' sizes.
    Ctr: 0, 0, 0, 1;
    /// ID_PFR1: the generic timer, the virtualization and security extensions.
    IdPfr1: 0, 0, 1, 1;
    /// ID_DFR0: the performance monitors' version.
    IdDfr0: 0, 0, 1, 2;
    /// ID_MMFR0: the VMSA (5 or more: LPAE).
    IdMmfr0: 0, 0, 1, 4;
    /// CCSIDR: the geometry of the cache CSSELR selects.
    Ccsidr: 0, 1, 0, 0;
    /// CLIDR: the cache levels.
    Clidr: 0, 1, 0, 1;
    /// CSSELR: which cache CCSIDR describes.
    Csselr: 0, 2, 0, 0;
    /// SCTLR: MMU, caches, alignment checks, TEX remap.
    Sctlr: 1, 0, 0, 0;
    /// ACTLR: the core's own controls (its SMP bit takes it into coherency).
    Actlr: 1, 0, 0, 1;
    /// TTBR0 as the 32-bit register of the short-descriptor format (TTBCR.EAE clear).
    Ttbr0: 2, 0, 0, 0;
    /// TTBCR: EAE selects LPAE; the walk's attributes.
    Ttbcr: 2, 0, 0, 2;
    /// DACR: the sixteen domains' access (short descriptors).
    Dacr: 3, 0, 0, 0;
    /// DFSR: a data abort's status.
    Dfsr: 5, 0, 0, 0;
    /// IFSR: a prefetch abort's status.
    Ifsr: 5, 0, 0, 1;
    /// DFAR: a data abort's address.
    Dfar: 6, 0, 0, 0;
    /// IFAR: a prefetch abort's address.
    Ifar: 6, 0, 0, 2;
    /// PAR in the short-descriptor format (TTBCR.EAE clear).
    Par: 7, 0, 4, 0;
    /// ATS1CPR: stage 1 translation of an address as a PL1 read; the result is in PAR.
    Ats1cpr: 7, 0, 8, 0;
    /// MAIR0: attribute bytes 0-3 (LPAE); PRRR under TEX remap (the same encoding).
    Mair0: 10, 0, 2, 0;
    /// MAIR1: attribute bytes 4-7 (LPAE); NMRR under TEX remap (the same encoding).
    Mair1: 10, 0, 2, 1;
    /// TPIDRPRW: a PL1-only software thread ID (this CPU's counter errata).
    Tpidrprw: 13, 0, 0, 4;
    /// CNTFRQ: the generic timer's frequency, Hz.
    CntFrq: 14, 0, 0, 0;
}

reg64! {
    /// TTBR0 as LPAE's 64-bit register.
    Ttbr0Lpae: 0, 2;
    /// PAR in the long-descriptor format, as ATS1CPR leaves it with TTBCR.EAE set.
    ParLpae: 0, 7;
    /// CNTVCT: the generic timer's virtual count.
    CntVct: 1, 14;
}

/// The value of register `R`.
#[inline(always)]
pub fn read<R: Reg>() -> u32 {
    let v: u32;
    // SAFETY: reads a register (the readable ones above: no side effects).
    unsafe {
        core::arch::asm!(
            "mrc p15, {op1}, {v}, c{crn}, c{crm}, {op2}",
            op1 = const R::OP1, crn = const R::CRN, crm = const R::CRM, op2 = const R::OP2,
            v = out(reg) v,
            options(nomem, nostack, preserves_flags)
        )
    };
    v
}

/// Writes register `R`.
///
/// # Safety
/// What the write changes (translation, caches, an operation's effect) must be sound for
/// the running code.
#[inline(always)]
pub unsafe fn write<R: Reg>(v: u32) {
    // SAFETY: the caller's.
    unsafe {
        core::arch::asm!(
            "mcr p15, {op1}, {v}, c{crn}, c{crm}, {op2}",
            op1 = const R::OP1, crn = const R::CRN, crm = const R::CRM, op2 = const R::OP2,
            v = in(reg) v,
            options(nostack, preserves_flags)
        )
    };
}

/// The value of the 64-bit register `R`.
#[inline(always)]
pub fn read64<R: Reg64>() -> u64 {
    let (lo, hi): (u32, u32);
    // SAFETY: reads a register (no side effects).
    unsafe {
        core::arch::asm!(
            "mrrc p15, {op1}, {lo}, {hi}, c{crm}",
            op1 = const R::OP1, crm = const R::CRM,
            lo = out(reg) lo, hi = out(reg) hi,
            options(nomem, nostack, preserves_flags)
        )
    };
    u64::from(hi) << 32 | u64::from(lo)
}

/// Writes the 64-bit register `R`.
///
/// # Safety
/// As for [`write`].
#[inline(always)]
pub unsafe fn write64<R: Reg64>(v: u64) {
    // SAFETY: the caller's.
    unsafe {
        core::arch::asm!(
            "mcrr p15, {op1}, {lo}, {hi}, c{crm}",
            op1 = const R::OP1, crm = const R::CRM,
            lo = in(reg) v as u32, hi = in(reg) (v >> 32) as u32,
            options(nostack, preserves_flags)
        )
    };
}
