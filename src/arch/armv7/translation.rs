//! The ARMv7 side of stage-1 translation at PL1 (`super::mmu` is the rest): the registers of
//! both regimes and turning one on, and address translation (`ATS1CPR`, and the PAR of either
//! format).
//!
//! - **LPAE** (Cortex-A7, A15, A17): long descriptors (core's `Mapper`), MAIR0/MAIR1, TTBCR
//!   with EAE set, the 64-bit TTBR0.
//! - **Short descriptors with TEX remap** (Cortex-A5, A8, A9, which have no LPAE): core's
//!   `ShortMapper` in a first-level table of 16 KiB and second-level tables of 1 KiB carved from
//!   the same pool, PRRR/NMRR (the registers MAIR0/MAIR1 are with EAE clear), SCTLR.TRE, the
//!   32-bit TTBR0, every domain a client (DACR).
//!
//! A memory type's slot is the same in both: its AttrIndx under LPAE, its TEX remap region
//! (`TEX[0]:C:B`) under short descriptors.

use super::barrier::isb;
use super::cache;
use super::regs::{
    read, read64, write, write64, Ats1cpr, Dacr, IdMmfr0, Mair0, Mair1, Par as ParShort, ParLpae,
    Sctlr, Ttbcr, Ttbr0, Ttbr0Lpae,
};
use mairbench_core::memtype::armv7;
use mairbench_core::paging::short::{self, ShortMapper, L1, L2};
use mairbench_core::paging::{lpae, Access, Granule, Layout, MapError, Mapper, Table};

/// Whether the core has LPAE (ID_MMFR0.VMSA is 5 or more).
pub fn lpae() -> bool {
    mairbench_core::arch::armv7_features(read::<IdMmfr0>(), 0).lpae
}

/// Whether the short-descriptor regime is the one on (TTBCR.EAE clear).
fn short_on() -> bool {
    read::<Ttbcr>() & 1 << 31 == 0
}

/// TTBR0 in the regime that is on: LPAE's 64-bit register, or the short-descriptor format's
/// 32-bit one (an `MRRC` of it is undefined on a core without LPAE).
pub fn ttbr0() -> u64 {
    if short_on() {
        read::<Ttbr0>().into()
    } else {
        read64::<Ttbr0Lpae>()
    }
}

/// The translation layout: a 32-bit address space in either regime (LPAE's from level 1;
/// the short-descriptor tables cover the same 4 GiB).
pub fn va_layout() -> Result<Layout, &'static str> {
    Ok(lpae::LAYOUT)
}

/// The names of [`registers`]' three values, as the report prints them: the attribute
/// registers are MAIR1:MAIR0 under LPAE, NMRR:PRRR under TEX remap.
pub fn register_names() -> [&'static str; 3] {
    if lpae() {
        ["SCTLR", "MAIR1:MAIR0", "TTBCR"]
    } else {
        ["SCTLR", "NMRR:PRRR", "TTBCR"]
    }
}

/// The tables of either regime (see the module's summary), mapped through one interface: the
/// LPAE mapper's.
pub enum Tables<'a> {
    /// Long descriptors.
    Long(Mapper<'a>),
    /// Short descriptors with TEX remap.
    Short {
        /// The mapper over the first-level table and the second-level pool.
        mapper: ShortMapper<'a>,
        /// The first-level table's physical address.
        l1_pa: u32,
        /// 4 KiB tables of the pool taken before the second-level ones: those skipped to align
        /// the first-level table to 16 KiB, and its four.
        head: usize,
    },
}

impl Tables<'_> {
    /// Maps `size` bytes at `va` to `pa` as memory type `index` (its slot), by `granule`.
    pub fn map(
        &mut self,
        va: u64,
        pa: u64,
        size: u64,
        index: u8,
        access: Access,
        granule: Granule,
    ) -> Result<(), MapError> {
        match self {
            Tables::Long(m) => m.map(va, pa, size, index, access, granule),
            Tables::Short { mapper, .. } => {
                mapper.map_granule(va, pa, size, index, access, granule)
            }
        }
    }

    /// Whether `[va, va + len)` maps `[pa, pa + len)` with `access`, and as memory type
    /// `index` where one is given.
    pub fn maps(&self, va: u64, pa: u64, len: u64, access: Access, index: Option<u8>) -> bool {
        match self {
            Tables::Long(m) => m.maps(va, pa, len, access, index),
            Tables::Short { mapper, .. } => mapper.maps(va, pa, len, access, index),
        }
    }

    /// 4 KiB tables of the pool in use.
    pub fn tables_used(&self) -> usize {
        match self {
            Tables::Long(m) => m.tables_used(),
            Tables::Short { mapper, head, .. } => head + mapper.tables_used().div_ceil(4),
        }
    }
}

/// Registers that set up the translation regime.
#[derive(Clone, Copy, Debug)]
pub struct Regime {
    /// MAIR1 in bits 63:32, MAIR0 in 31:0: attribute byte `n` at bits `8n+7:8n`, as in
    /// MAIR_EL1.
    pub mair: u64,
    /// TTBCR (EAE set).
    pub tcr: u64,
    /// TTBR0: the level-1 table's physical address.
    pub ttbr0: u64,
}

impl Regime {
    /// The regime of `tables` with the memory types' attributes: under TEX remap, `mair`
    /// holds NMRR:PRRR (the same registers) and TTBCR is 0.
    pub fn of(tables: &Tables<'_>) -> Regime {
        match tables {
            Tables::Long(mapper) => {
                let (mair0, mair1) = armv7::mair0_mair1();
                Regime {
                    mair: u64::from(mair1) << 32 | u64::from(mair0),
                    tcr: lpae::TTBCR.into(),
                    ttbr0: mapper.root_pa(),
                }
            }
            Tables::Short { l1_pa, .. } => Regime {
                mair: u64::from(armv7::NMRR) << 32 | u64::from(armv7::PRRR),
                tcr: 0,
                ttbr0: short::ttbr0(*l1_pa).into(),
            },
        }
    }
}

/// SCTLR bits set to turn LPAE translation on: M (MMU), C (data caches), I (instruction
/// caches) and WXN (bit 19: any writable page is also execute-never: W^X). The secondaries'
/// entry code sets the same (`SCTLR_MMU_ON`, boot/armv7/entry.S).
pub(super) const SCTLR_MMU_ON: u64 = 1 | 1 << 2 | 1 << 12 | 1 << 19;

/// The same under TEX remap: M, C, I and TRE (bit 28). Not WXN: the cores without LPAE have
/// no Virtualization Extensions, where SCTLR bit 19 is reserved (Arm ARM DDI 0406C, B4.1.130);
/// the descriptors' XN bits keep data from executing. The secondaries' entry code sets the same
/// (`SCTLR_MMU_ON_SHORT`).
pub(super) const SCTLR_MMU_ON_SHORT: u64 = 1 | 1 << 2 | 1 << 12 | 1 << 28;

/// DACR with every domain a client: the descriptors' permissions are checked.
const DACR_CLIENTS: u32 = 0x5555_5555;

/// Turns the boot CPU's MMU and both caches on with `regime` (see the AArch64 image's
/// `enable`: the same steps with CP15's registers).
///
/// # Safety
/// As the AArch64 image's: the tables identity-map the running code and every object and
/// stack in use as Normal write-back, and stay unchanged; the caches hold nothing newer than
/// memory for `stale`.
pub(super) unsafe fn enable(regime: &Regime, stale: &[(u64, u64)]) {
    for &(va, len) in stale {
        // SAFETY: the caller says memory, not the cache, holds the truth for `stale`.
        unsafe { cache::invalidate(va, len) };
    }
    let long = regime.tcr & 1 << 31 != 0;
    // SAFETY: the attributes, the control register and the table base. The early map's
    // regime is on (boot/armv7/entry.S) with the same attributes in the same slots, and the
    // new tables map the running code, its data and stacks identically (the caller's promise),
    // so every access between these writes translates alike in both.
    unsafe {
        write::<Mair0>(regime.mair as u32);
        write::<Mair1>((regime.mair >> 32) as u32);
        write::<Ttbcr>(regime.tcr as u32);
        if long {
            write64::<Ttbr0Lpae>(regime.ttbr0);
        } else {
            write::<Dacr>(DACR_CLIENTS);
            write::<Ttbr0>(regime.ttbr0 as u32);
        }
    }
    isb();
    // SAFETY: TLBIALL, ICIALLU and BPIALL: invalidate what a boot loader left; no data.
    unsafe {
        core::arch::asm!(
            "mcr p15, 0, {z}, c8, c7, 0",
            "dsb sy",
            "isb",
            "mcr p15, 0, {z}, c7, c5, 0",
            "mcr p15, 0, {z}, c7, c5, 6",
            "dsb sy",
            z = in(reg) 0u32,
            options(nostack, nomem)
        )
    };
    let on = if long {
        SCTLR_MMU_ON
    } else {
        SCTLR_MMU_ON_SHORT
    };
    // SAFETY: the caller's promise: the tables map what runs now. Under TEX remap the early
    // map had the same PRRR/NMRR and TRE (boot/armv7/entry.S), so no attribute changes.
    unsafe { write::<Sctlr>(read::<Sctlr>() | on as u32) };
    isb();
    super::outer::attach();
}

/// The current SCTLR, MAIR1:MAIR0 and TTBCR, for the report.
pub fn registers() -> (u64, u64, u64) {
    let mair = u64::from(read::<Mair1>()) << 32 | u64::from(read::<Mair0>());
    (read::<Sctlr>().into(), mair, read::<Ttbcr>().into())
}

/// Turns the data cache off (SCTLR.C clear) for the rest of the run and cleans and
/// invalidates every data/unified cache level by set/way (`mairbench.selftest=caches-off`).
/// Returns the DCCISW operations issued.
///
/// # Safety
/// No other CPU may be running with its caches on and sharing memory with this one.
pub unsafe fn data_cache_off() -> u64 {
    extern "C" {
        fn mb_dcache_off() -> u32;
    }
    // SAFETY: the routine touches no memory between clearing SCTLR.C and the set/way clean;
    // it keeps the AAPCS callee-saved registers; the caller promised no other CPU runs.
    unsafe { mb_dcache_off() }.into()
}

/// What `ATS1CPR` found for one virtual address (the PAR of either format decoded).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Par {
    /// The address translates.
    Ok {
        /// Output physical address (page offset included).
        pa: u64,
        /// The memory attribute, in MAIR encoding: PAR.ATTR, or under TEX remap the byte of
        /// the attributes the short-descriptor PAR reports (core's `short::lpae_byte_of`);
        /// `None` when that PAR reports none (QEMU's).
        attr: Option<u8>,
    },
    /// The walk faulted; FST is the fault status code (as in a long-format DFSR).
    Fault {
        /// PAR.FST.
        fst: u8,
    },
}

impl Par {
    /// The translated address and the attribute byte, if reported; `None` for a fault.
    pub fn reading(self) -> Option<(u64, Option<u8>)> {
        match self {
            Par::Ok { pa, attr } => Some((pa, attr)),
            Par::Fault { .. } => None,
        }
    }
}

/// Translates `va` as a PL1 read would (`ATS1CPR`), without accessing it.
pub fn at_s1e1r(va: u64) -> Par {
    // SAFETY: ATS1CPR only writes PAR, read after the ISB; no memory is accessed.
    unsafe { write::<Ats1cpr>(va as u32) };
    isb();
    if short_on() {
        let raw = read::<ParShort>();
        return match short::decode_par(raw) {
            Err(fs) => Par::Fault { fst: fs as u8 },
            Ok(par) => Par::Ok {
                pa: u64::from(par.pa) | (va & 0xfff),
                attr: short::par_reports_attributes(&par).then(|| short::lpae_byte_of(&par)),
            },
        };
    }
    let par = read64::<ParLpae>();
    if par & 1 != 0 {
        Par::Fault {
            fst: (par >> 1 & 0x3f) as u8,
        }
    } else {
        Par::Ok {
            pa: par & 0xff_ffff_f000 | (va & 0xfff),
            attr: Some((par >> 56) as u8),
        }
    }
}

/// The tables of this core's regime over `pool` (4 KiB tables at physical address
/// `pool_pa`): LPAE's where the core has it, else a short-descriptor first-level table (the
/// first four tables from a 16 KiB boundary) and second-level tables (four in each 4 KiB table
/// after it).
pub fn mapper(pool: &mut [Table], pool_pa: u64, layout: Layout) -> Result<Tables<'_>, MapError> {
    if lpae() {
        return Mapper::new(pool, pool_pa, layout).map(|m| Tables::Long(m.armv7()));
    }
    let skip = ((pool_pa.next_multiple_of(16 << 10) - pool_pa) / 4096) as usize;
    let head = skip + 4;
    let exhausted = MapError::PoolExhausted {
        needed: head + 1,
        free: pool.len(),
    };
    let rest = pool.get_mut(skip..).ok_or(exhausted)?;
    let l1_pa = u32::try_from(pool_pa + skip as u64 * 4096)
        .map_err(|_| MapError::PoolAddress { pool_pa })?;
    if rest.len() <= 4 {
        return Err(exhausted);
    }
    let (l1, l2s) = rest.split_at_mut(4);
    // SAFETY: `l1` is four contiguous 4 KiB tables, 16 KiB in all, starting on a 16 KiB
    // boundary (the pool is identity-mapped: its virtual addresses are `pool_pa`'s), which is
    // `L1`'s size and alignment; `l2s` is whole 4 KiB tables, each four 1 KiB `L2`s. Both
    // borrow the pool mutably for the mapper's life, and every bit pattern is valid in each.
    let (l1, l2s) = unsafe {
        (
            &mut *l1.as_mut_ptr().cast::<L1>(),
            core::slice::from_raw_parts_mut(l2s.as_mut_ptr().cast::<L2>(), l2s.len() * 4),
        )
    };
    let mapper = ShortMapper::new(l1, l2s, l1_pa + (16 << 10))?;
    Ok(Tables::Short {
        mapper,
        l1_pa,
        head,
    })
}

/// How the buffer's alias slots are aligned: 2 MiB (what the block aliases need), in a 4 GiB address space.
pub const ALIAS_ALIGN: u64 = 2 << 20;

/// Where the buffer's aliases go: half the address space up where the identity map (`taken`:
/// start, length) leaves it free, else the largest 2 MiB-aligned stretch it leaves (a board
/// whose RAM is in the upper half, as the i.MX6UL EVK's at 0x8000_0000).
pub fn alias_window(va_limit: u64, taken: impl Iterator<Item = (u64, u64)> + Clone) -> (u64, u64) {
    let half = va_limit / 2;
    if taken
        .clone()
        .all(|(base, len)| base.saturating_add(len) <= half)
    {
        return (half, va_limit - half);
    }
    mairbench_core::placement::largest_gap(va_limit, ALIAS_ALIGN, taken)
}
