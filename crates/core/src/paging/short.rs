//! ARMv7 short-descriptor translation tables, for the cores without LPAE (Cortex-A5, A8,
//! A9): a first-level table of 4096 word entries (16 KiB, 1 MiB each) holding sections or
//! pointers to second-level tables of 256 entries (1 KiB, 4 KiB small pages each), with TEX
//! remap: a leaf's TEX\[0\], C and B bits select the PRRR/NMRR region of its memory type
//! ([`crate::memtype::armv7`]). TTBR0 alone translates (TTBCR.N = 0); every mapping is in
//! domain 0, global and Shareable.
//!
//! Arm ARM for ARMv7-A (DDI 0406C), "Short-descriptor translation table format": the
//! first-level descriptor formats (page table `0b01`, section `0b10` with bit 18 clear) and
//! the second-level ones (small page `0b1x`, bit 0 XN), and "Memory access control": with
//! AP\[0\] set, AP\[2:0\] = `0b001` is read/write at PL1 and no access at PL0, `0b101`
//! read-only at PL1, in the full access-permissions model and, AP\[0\] being then the access
//! flag, in the simplified one (SCTLR.AFE = 1) alike.

use super::{Access, MapError};

/// Bytes a first-level entry maps: a 1 MiB section.
pub const SECTION: u32 = 1 << 20;

/// Bytes a second-level entry maps: a 4 KiB small page.
pub const SMALL_PAGE: u32 = 1 << 12;

/// A first-level table: 4096 entries, 16 KiB aligned (TTBR0 with TTBCR.N = 0).
#[derive(Clone)]
#[repr(C, align(16384))]
pub struct L1(pub [u32; 4096]);

/// A second-level table: 256 entries, 1 KiB aligned.
#[derive(Clone)]
#[repr(C, align(1024))]
pub struct L2(pub [u32; 256]);

impl L1 {
    /// A table of faulting entries.
    pub const EMPTY: L1 = L1([0; 4096]);
}

impl L2 {
    /// A table of faulting entries.
    pub const EMPTY: L2 = L2([0; 256]);
}

/// The leaf size of a short-descriptor mapping.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leaf {
    /// A 4 KiB small page in a second-level table.
    SmallPage,
    /// A 1 MiB section in the first-level table.
    Section,
}

impl Leaf {
    /// Bytes per mapping.
    pub const fn size(self) -> u32 {
        match self {
            Leaf::SmallPage => SMALL_PAGE,
            Leaf::Section => SECTION,
        }
    }
}

/// AP\[2\] (read-only) and XN of `access`; AP\[1:0\] are always `0b01` (PL1 only, with
/// AP\[0\] set: the access flag where SCTLR.AFE is set).
const fn permissions(access: Access) -> (bool, bool) {
    match access {
        Access::ReadExecute => (true, false),
        Access::ReadOnly => (true, true),
        Access::ReadWrite => (false, true),
    }
}

/// Where a leaf descriptor's fields lie (bit numbers): a small page's and a section's differ
/// but for B (bit 2) and C (bit 3); both are `0b10` in bits 1:0 (a section's bit 18, clear,
/// says it is not a supersection; a small page's bit 0 is XN).
struct Fields {
    s: u32,
    ap2: u32,
    tex0: u32,
    ap: u32,
    xn: u32,
    size: u32,
}

impl Leaf {
    const fn fields(self) -> Fields {
        match self {
            Leaf::SmallPage => Fields {
                s: 10,
                ap2: 9,
                tex0: 6,
                ap: 4,
                xn: 0,
                size: SMALL_PAGE,
            },
            Leaf::Section => Fields {
                s: 16,
                ap2: 15,
                tex0: 12,
                ap: 10,
                xn: 4,
                size: SECTION,
            },
        }
    }
}

/// A `leaf` descriptor mapping the page or section at `pa` in TEX remap region `region`
/// (0-7), Shareable, global, in domain 0, with `access`'s permissions.
const fn leaf(leaf: Leaf, pa: u32, region: u8, access: Access) -> u32 {
    let f = leaf.fields();
    let (read_only, xn) = permissions(access);
    let (tex0, c, b) = crate::memtype::armv7::remap_bits(region);
    (pa & !f.size.wrapping_sub(1))
        | 1 << f.s
        | (read_only as u32) << f.ap2
        | (tex0 as u32) << f.tex0
        | 0b01 << f.ap
        | (xn as u32) << f.xn
        | (c as u32) << 3
        | (b as u32) << 2
        | 0b10
}

/// A second-level small-page descriptor mapping the 4 KiB page at `pa` (`leaf`).
pub const fn small_page(pa: u32, region: u8, access: Access) -> u32 {
    leaf(Leaf::SmallPage, pa, region, access)
}

/// A first-level section descriptor mapping the 1 MiB at `pa` (`leaf`).
pub const fn section(pa: u32, region: u8, access: Access) -> u32 {
    leaf(Leaf::Section, pa, region, access)
}

/// A first-level page-table descriptor pointing to the second-level table at `pa` (1 KiB
/// aligned), in domain 0.
pub const fn page_table(pa: u32) -> u32 {
    (pa & !0x3ff) | 0b01
}

/// A mapping as the tables hold it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Translation {
    /// Physical address of the translated VA.
    pub pa: u32,
    /// TEX remap region (`TEX[0]:C:B`).
    pub region: u8,
    /// Permissions.
    pub access: Access,
    /// What maps it.
    pub leaf: Leaf,
}

/// The TEX remap region and permissions of a valid `kind` descriptor `d`; `None` for one
/// [`small_page`] or [`section`] would not have written.
fn attributes(d: u32, kind: Leaf) -> Option<(u8, Access)> {
    let f = kind.fields();
    let bit = |n: u32| d >> n & 1 != 0;
    let region = (bit(f.tex0) as u8) << 2 | (bit(3) as u8) << 1 | bit(2) as u8;
    let access = match (d >> f.ap & 0b11, bit(f.ap2), bit(f.xn)) {
        (0b01, true, false) => Access::ReadExecute,
        (0b01, true, true) => Access::ReadOnly,
        (0b01, false, true) => Access::ReadWrite,
        _ => return None,
    };
    Some((region, access))
}

/// One mapping request, as [`ShortMapper::pass`] needs it.
struct Job {
    va: u32,
    pa: u32,
    size: u32,
    leaf: Leaf,
    region: u8,
    access: Access,
}

/// Builds short-descriptor tables: a first-level table and a pool of second-level tables
/// taken in order. Every `map` either succeeds or changes nothing.
pub struct ShortMapper<'a> {
    l1: &'a mut L1,
    pool: &'a mut [L2],
    pool_pa: u32,
    used: usize,
}

impl<'a> ShortMapper<'a> {
    /// An empty address space: zeroes `l1`; second-level tables come from `pool`, whose
    /// first table is at physical address `pool_pa` (1 KiB aligned).
    pub fn new(l1: &'a mut L1, pool: &'a mut [L2], pool_pa: u32) -> Result<Self, MapError> {
        let bytes = u32::try_from(pool.len())
            .ok()
            .and_then(|n| n.checked_mul(1024));
        if !pool_pa.is_multiple_of(1024) || bytes.and_then(|b| pool_pa.checked_add(b)).is_none() {
            return Err(MapError::PoolAddress {
                pool_pa: u64::from(pool_pa),
            });
        }
        *l1 = L1::EMPTY;
        Ok(ShortMapper {
            l1,
            pool,
            pool_pa,
            used: 0,
        })
    }

    /// Second-level tables taken from the pool.
    pub fn tables_used(&self) -> usize {
        self.used
    }

    /// The second-level table a page-table descriptor points to, if it is one of the pool's
    /// taken tables.
    fn l2_index(&self, d: u32) -> Option<usize> {
        let offset = (d & !0x3ff).checked_sub(self.pool_pa)?;
        let i = usize::try_from(offset / 1024).ok()?;
        (i < self.used).then_some(i)
    }

    /// Maps `size` bytes at `va` to `pa` with TEX remap `region` (0-7) and `access`, by
    /// `leaf`s; `va`, `pa` and `size` must be multiples of the leaf's size and the range
    /// unmapped.
    pub fn map(
        &mut self,
        va: u32,
        pa: u32,
        size: u32,
        leaf: Leaf,
        region: u8,
        access: Access,
    ) -> Result<(), MapError> {
        let (va64, pa64, size64) = (u64::from(va), u64::from(pa), u64::from(size));
        let step = leaf.size();
        if region > 7 {
            return Err(MapError::BadMemType { index: region });
        }
        if size == 0 {
            return Err(MapError::Empty { va: va64 });
        }
        if ![va, pa, size].iter().all(|x| x.is_multiple_of(step)) {
            return Err(MapError::Misaligned {
                va: va64,
                pa: pa64,
                size: size64,
                align: u64::from(step),
            });
        }
        let last = size.wrapping_sub(1);
        if va.checked_add(last).is_none() {
            let va_bits = 32;
            return Err(MapError::VaOutOfRange {
                va: va64,
                size: size64,
                va_bits,
            });
        }
        if pa.checked_add(last).is_none() {
            return Err(MapError::PaOutOfRange {
                pa: pa64,
                size: size64,
                pa_bits: 32,
            });
        }
        let job = Job {
            va,
            pa,
            size,
            leaf,
            region,
            access,
        };
        self.pass(&job, false)?;
        self.pass(&job, true)
    }

    /// Walks the range; checks it is free and counts the tables it needs (`write` false:
    /// fails without a change when they are not there), or writes it (`write` true).
    fn pass(&mut self, job: &Job, write: bool) -> Result<(), MapError> {
        let &Job {
            va,
            pa,
            size,
            leaf,
            region,
            access,
        } = job;
        let mut fresh = 0usize;
        let mut fresh_at: Option<u32> = None;
        let mut off = 0u32;
        while off < size {
            let (v, p) = (va.wrapping_add(off), pa.wrapping_add(off));
            let mb = usize::try_from(v >> 20).unwrap_or(usize::MAX);
            let overlap = MapError::Overlap { va: u64::from(v) };
            let entry = *self.l1.0.get(mb).ok_or(overlap)?;
            match leaf {
                Leaf::Section => {
                    if entry != 0 {
                        return Err(overlap);
                    }
                    if write {
                        if let Some(e) = self.l1.0.get_mut(mb) {
                            *e = section(p, region, access);
                        }
                    }
                }
                Leaf::SmallPage => {
                    let slot = usize::try_from(v >> 12 & 0xff).unwrap_or(0);
                    let table = match entry & 0b11 {
                        0 => None,
                        0b01 => Some(
                            self.l2_index(entry)
                                .ok_or(MapError::Corrupt { va: u64::from(v) })?,
                        ),
                        _ => return Err(overlap),
                    };
                    match (table, write) {
                        (Some(t), _) => {
                            let d = self.pool.get_mut(t).and_then(|t| t.0.get_mut(slot));
                            match d {
                                Some(d) if *d != 0 => return Err(overlap),
                                Some(d) if write => *d = small_page(p, region, access),
                                _ => {}
                            }
                        }
                        (None, false) => {
                            // One new table per megabyte the range enters.
                            if fresh_at != Some(v >> 20) {
                                fresh = fresh.saturating_add(1);
                                fresh_at = Some(v >> 20);
                            }
                        }
                        (None, true) => {
                            let t = self.used;
                            let table_pa = u32::try_from(t)
                                .ok()
                                .and_then(|t| t.checked_mul(1024))
                                .and_then(|o| self.pool_pa.checked_add(o));
                            let (Some(l2), Some(table_pa)) = (self.pool.get_mut(t), table_pa)
                            else {
                                return Err(MapError::PoolExhausted { needed: 1, free: 0 });
                            };
                            *l2 = L2::EMPTY;
                            if let Some(d) = l2.0.get_mut(slot) {
                                *d = small_page(p, region, access);
                            }
                            if let Some(e) = self.l1.0.get_mut(mb) {
                                *e = page_table(table_pa);
                            }
                            self.used = t.saturating_add(1);
                        }
                    }
                }
            }
            off = off.saturating_add(leaf.size());
        }
        let free = self.pool.len().saturating_sub(self.used);
        if !write && fresh > free {
            return Err(MapError::PoolExhausted {
                needed: fresh,
                free,
            });
        }
        Ok(())
    }

    /// Maps `size` bytes at `va` to `pa` in the LPAE mapper's terms ([`super::Mapper::map`]):
    /// `granule`'s 4 KiB pages as small pages, its 2 MiB blocks as pairs of 1 MiB sections,
    /// memory type `index` as TEX remap region `index` (a type's region is its slot).
    /// Addresses beyond 32 bits are out of range.
    pub fn map_granule(
        &mut self,
        va: u64,
        pa: u64,
        size: u64,
        index: u8,
        access: Access,
        granule: super::Granule,
    ) -> Result<(), MapError> {
        let va32 = u32::try_from(va).map_err(|_| MapError::VaOutOfRange {
            va,
            size,
            va_bits: 32,
        })?;
        let pa32 = u32::try_from(pa).map_err(|_| MapError::PaOutOfRange {
            pa,
            size,
            pa_bits: 32,
        })?;
        let size32 = u32::try_from(size).map_err(|_| MapError::VaOutOfRange {
            va,
            size,
            va_bits: 32,
        })?;
        if !size.is_multiple_of(granule.size()) {
            return Err(MapError::Misaligned {
                va,
                pa,
                size,
                align: granule.size(),
            });
        }
        let leaf = match granule {
            super::Granule::Page => Leaf::SmallPage,
            super::Granule::Block => Leaf::Section,
        };
        self.map(va32, pa32, size32, leaf, index, access)
    }

    /// Whether `[va, va + len)` maps to `[pa, pa + len)` with `access` throughout, and with
    /// TEX remap region `region` where one is given; false for an empty or wrapping range.
    pub fn maps(&self, va: u64, pa: u64, len: u64, access: Access, region: Option<u8>) -> bool {
        let Some(end) = va.checked_add(len).filter(|&e| len != 0 && e <= 1 << 32) else {
            return false;
        };
        let mut at = va;
        while at < end {
            let Some(t) = u32::try_from(at).ok().and_then(|a| self.translate(a)) else {
                return false;
            };
            if Some(u64::from(t.pa)) != pa.checked_add(at.wrapping_sub(va))
                || t.access != access
                || region.is_some_and(|r| r != t.region)
            {
                return false;
            }
            // The first byte after this leaf.
            at = (at | u64::from(t.leaf.size()).wrapping_sub(1)).saturating_add(1);
        }
        true
    }

    /// What the tables map `va` to, if anything.
    pub fn translate(&self, va: u32) -> Option<Translation> {
        let mb = usize::try_from(va >> 20).ok()?;
        let entry = *self.l1.0.get(mb)?;
        match entry & 0b11 {
            0b10 if entry & (1 << 18) == 0 => {
                let (region, access) = attributes(entry, Leaf::Section)?;
                Some(Translation {
                    pa: (entry & !(SECTION - 1)) | (va & (SECTION - 1)),
                    region,
                    access,
                    leaf: Leaf::Section,
                })
            }
            0b01 => {
                let t = self.l2_index(entry)?;
                let slot = usize::try_from(va >> 12 & 0xff).ok()?;
                let d = *self.pool.get(t)?.0.get(slot)?;
                if d & 0b10 == 0 {
                    return None;
                }
                let (region, access) = attributes(d, Leaf::SmallPage)?;
                Some(Translation {
                    pa: (d & !(SMALL_PAGE - 1)) | (va & (SMALL_PAGE - 1)),
                    region,
                    access,
                    leaf: Leaf::SmallPage,
                })
            }
            _ => None,
        }
    }
}

/// TTBR0 for the first-level table at `l1_pa` (16 KiB aligned): table walks Inner
/// Shareable (S and NOS set), inner and outer write-back write-allocate (IRGN = `0b01`: bit 6
/// set, bit 0 clear; RGN = `0b01`), as Linux's `TTB_FLAGS_SMP` (proc-v7-2level.S) sets them.
pub const fn ttbr0(l1_pa: u32) -> u32 {
    (l1_pa & !0x3fff) | 1 << 6 | 0b01 << 3 | 1 << 5 | 1 << 1
}

/// What a short-descriptor PAR reports for a translation (ATS1CPR with TTBCR.EAE = 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Par {
    /// Physical address of the page, bits \[31:12\].
    pub pa: u32,
    /// Inner attributes, PAR\[6:4\]: `0b000` Non-cacheable, `0b001` Strongly-ordered,
    /// `0b011` Device, `0b101` write-back write-allocate, `0b110` write-through, `0b111`
    /// write-back no write-allocate.
    pub inner: u8,
    /// Outer attributes, PAR\[3:2\], as NMRR's ORn: `0b00` Non-cacheable, `0b01` write-back
    /// write-allocate, `0b10` write-through, `0b11` write-back no write-allocate.
    pub outer: u8,
    /// Shareable (PAR\[7\]).
    pub shareable: bool,
}

/// Decodes a short-descriptor-format PAR: `Err` with the fault status bits where the
/// translation aborted (F, bit 0, set).
pub fn decode_par(par: u32) -> Result<Par, u32> {
    if par & 1 != 0 {
        return Err(par >> 1 & 0x3f);
    }
    Ok(Par {
        pa: par & !(SMALL_PAGE - 1),
        inner: (par >> 4 & 0b111) as u8,
        outer: (par >> 2 & 0b11) as u8,
        shareable: par >> 7 & 1 != 0,
    })
}

/// The PAR attributes a TEX remap region gives, as [`decode_par`] reports them: `(inner,
/// outer)`.
pub fn par_attributes(remap: crate::memtype::armv7::Remap) -> (u8, u8) {
    use crate::memtype::armv7::{Region, Remap};
    let inner = |r: Region| match r {
        Region::NonCacheable => 0b000,
        Region::WriteBackWriteAllocate => 0b101,
        Region::WriteThrough => 0b110,
        Region::WriteBackNoWriteAllocate => 0b111,
    };
    match remap {
        Remap::StronglyOrdered => (0b001, 0b00),
        Remap::Device => (0b011, 0b00),
        Remap::Normal { inner: i, outer } => (inner(i), outer as u8),
    }
}

/// The MAIR0/MAIR1 attribute byte that gives the attributes a short-descriptor PAR reports
/// (`par`'s inner and outer fields, as [`par_attributes`] writes them), so that the proof
/// compares it with the alias's byte as it compares an LPAE PAR's: Strongly-ordered `0x00`,
/// Device `0x04`, Normal with a nibble per level (non-cacheable `0x4`, write-back
/// write-allocate `0xf`, write-through `0xa`, write-back no write-allocate `0xe`). The inner
/// codes `0b010` and `0b100`, which the architecture reserves, give `0x01`, an encoding MAIR
/// leaves UNPREDICTABLE: the proof finds it wrong.
pub fn lpae_byte_of(par: &Par) -> u8 {
    let nibble = |code: u8| match code {
        0b000 => Some(0x4),
        0b101 => Some(0xf),
        0b110 => Some(0xa),
        0b111 => Some(0xe),
        _ => None,
    };
    let outer = [0x4, 0xf, 0xa, 0xe];
    match par.inner {
        0b001 => 0x00,
        0b011 => 0x04,
        inner => nibble(inner).map_or(0x01, |i| {
            outer
                .get(usize::from(par.outer & 3))
                .map_or(0x01, |o| o << 4 | i)
        }),
    }
}

/// Whether a translated short-descriptor PAR reports memory attributes at all. Every type
/// this image maps gives a PAR with a non-zero bit in \[7:2\]: Strongly-ordered and Device
/// have non-zero inner attributes, cacheable Normal ones non-zero inner and outer, and
/// Non-cacheable Normal pages are Shareable (PRRR.NS1 with the descriptors' S bit) with
/// PAR.SH set. QEMU's short-descriptor PAR holds the address and NS bit only ("We do not set
/// any attribute bits in the PAR", target/arm's `do_ats_write`): all zero.
pub fn par_reports_attributes(par: &Par) -> bool {
    par.inner != 0 || par.outer != 0 || par.shareable
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::boxed::Box;
    use std::vec;

    fn tables(l2s: usize) -> (Box<L1>, std::vec::Vec<L2>) {
        (Box::new(L1::EMPTY), vec![L2::EMPTY; l2s])
    }

    #[test]
    fn descriptors_by_hand() {
        // Region 3 (C and B), read/write, never executable: PA | S | AP[1:0] = 01 | C | B |
        // small page | XN.
        assert_eq!(
            small_page(0x8000_1000, 3, Access::ReadWrite),
            0x8000_1000 | 0x400 | 0x10 | 0x8 | 0x4 | 0x2 | 0x1
        );
        // Region 4 (TEX[0]), read-only executable: AP[2] set, XN clear.
        assert_eq!(
            small_page(0x1000, 4, Access::ReadExecute),
            0x1000 | 0x400 | 0x200 | 0x40 | 0x10 | 0x2
        );
        assert_eq!(
            section(0x8010_0000, 5, Access::ReadOnly),
            0x8010_0000 | 0x1_0000 | 0x8000 | 0x1000 | 0x400 | 0x10 | 0x4 | 0x2
        );
        assert_eq!(page_table(0x4000_0400), 0x4000_0401);
        // Linux's TTB_FLAGS_SMP: IRGN WBWA (bit 6), RGN WBWA (bits 4:3 = 01), NOS (bit 5),
        // S (bit 1).
        assert_eq!(ttbr0(0x4000_4000), 0x4000_4000 | 0x40 | 0x08 | 0x20 | 0x02);
    }

    #[test]
    fn pages_and_sections_translate_back() {
        let (mut l1, mut pool) = tables(4);
        let mut m = ShortMapper::new(&mut l1, &mut pool, 0x4010_0000).unwrap();
        m.map(
            0x8000_0000,
            0x4000_0000,
            3 * SMALL_PAGE,
            Leaf::SmallPage,
            1,
            Access::ReadWrite,
        )
        .unwrap();
        m.map(
            0x9000_0000,
            0x4000_0000,
            2 * SECTION,
            Leaf::Section,
            5,
            Access::ReadOnly,
        )
        .unwrap();
        assert_eq!(m.tables_used(), 1);
        assert_eq!(
            m.translate(0x8000_2abc),
            Some(Translation {
                pa: 0x4000_2abc,
                region: 1,
                access: Access::ReadWrite,
                leaf: Leaf::SmallPage
            })
        );
        assert_eq!(
            m.translate(0x9012_3456),
            Some(Translation {
                pa: 0x4012_3456,
                region: 5,
                access: Access::ReadOnly,
                leaf: Leaf::Section
            })
        );
        assert_eq!(m.translate(0x8000_3000), None);
        assert_eq!(m.translate(0x9020_0000), None);
        // The same physical pages again, another region: a second alias.
        m.map(
            0x8010_0000,
            0x4000_0000,
            SMALL_PAGE,
            Leaf::SmallPage,
            7,
            Access::ReadWrite,
        )
        .unwrap();
        assert_eq!(m.tables_used(), 2);
        assert_eq!(
            m.translate(0x8010_0000).map(|t| (t.pa, t.region)),
            Some((0x4000_0000, 7))
        );
    }

    #[test]
    fn bad_requests_change_nothing() {
        let (mut l1, mut pool) = tables(1);
        let mut m = ShortMapper::new(&mut l1, &mut pool, 0x4010_0000).unwrap();
        let page = |m: &mut ShortMapper<'_>, va, size| {
            m.map(va, 0x4000_0000, size, Leaf::SmallPage, 0, Access::ReadWrite)
        };
        assert_eq!(page(&mut m, 0x1000, 0), Err(MapError::Empty { va: 0x1000 }));
        assert!(matches!(
            page(&mut m, 0x1800, 0x1000),
            Err(MapError::Misaligned { .. })
        ));
        assert!(matches!(
            page(&mut m, 0xffff_f000, 0x2000),
            Err(MapError::VaOutOfRange { va_bits: 32, .. })
        ));
        assert_eq!(
            m.map(0, 0, SMALL_PAGE, Leaf::SmallPage, 8, Access::ReadWrite),
            Err(MapError::BadMemType { index: 8 })
        );
        // Two megabytes of pages need two tables; the pool has one: refused whole.
        assert_eq!(
            page(&mut m, 0x000f_f000, 0x2000),
            Err(MapError::PoolExhausted { needed: 2, free: 1 })
        );
        assert_eq!(m.translate(0x000f_f000), None);
        assert_eq!(m.tables_used(), 0);
        page(&mut m, 0x1000, 0x1000).unwrap();
        assert_eq!(
            page(&mut m, 0, 0x2000),
            Err(MapError::Overlap { va: 0x1000 })
        );
        assert_eq!(m.translate(0), None, "the refused map wrote nothing");
        assert_eq!(
            m.map(0, 0, SECTION, Leaf::Section, 0, Access::ReadWrite),
            Err(MapError::Overlap { va: 0 }),
            "a section over a megabyte of pages"
        );
        assert!(matches!(
            ShortMapper::new(&mut L1::EMPTY.clone(), &mut [], 0x4010_0200),
            Err(MapError::PoolAddress { .. })
        ));
    }

    #[test]
    fn granules_map_as_the_lpae_mapper_asks_and_maps_checks_them() {
        use super::super::Granule;
        let (mut l1, mut pool) = tables(8);
        let mut m = ShortMapper::new(&mut l1, &mut pool, 0x4010_0000).unwrap();
        m.map_granule(
            0x8000_0000,
            0x4000_0000,
            0x20_0000,
            3,
            Access::ReadWrite,
            Granule::Page,
        )
        .unwrap();
        m.map_granule(
            0xa000_0000,
            0x4000_0000,
            0x40_0000,
            1,
            Access::ReadWrite,
            Granule::Block,
        )
        .unwrap();
        // Two megabytes of pages: two second-level tables; the blocks are sections.
        assert_eq!(m.tables_used(), 2);
        assert_eq!(m.translate(0xa030_0000).unwrap().leaf, Leaf::Section);
        let rw = Access::ReadWrite;
        assert!(m.maps(0x8000_0000, 0x4000_0000, 0x20_0000, rw, Some(3)));
        assert!(m.maps(0xa000_0000, 0x4000_0000, 0x40_0000, rw, None));
        assert!(m.maps(0xa010_0000, 0x4010_0000, 0x1000, rw, Some(1)));
        // Wrong region, PA, access, a hole past the end, an empty or too-wide range.
        assert!(!m.maps(0x8000_0000, 0x4000_0000, 0x20_0000, rw, Some(1)));
        assert!(!m.maps(0x8000_0000, 0x4000_1000, 0x1000, rw, None));
        assert!(!m.maps(0x8000_0000, 0x4000_0000, 0x1000, Access::ReadOnly, None));
        assert!(!m.maps(0x8000_0000, 0x4000_0000, 0x20_1000, rw, None));
        assert!(!m.maps(0x8000_0000, 0x4000_0000, 0, rw, None));
        assert!(!m.maps(0xffff_f000, 0, 0x2000, rw, None));
        // Refused: beyond 32 bits, or a block alias of a size no whole number of blocks.
        let big = m.map_granule(1 << 32, 0, 0x1000, 0, rw, Granule::Page);
        assert!(matches!(
            big,
            Err(MapError::VaOutOfRange { va_bits: 32, .. })
        ));
        let high = m.map_granule(0x1000, 1 << 32, 0x1000, 0, rw, Granule::Page);
        assert!(matches!(
            high,
            Err(MapError::PaOutOfRange { pa_bits: 32, .. })
        ));
        let odd = m.map_granule(0xc000_0000, 0, 0x10_0000, 0, rw, Granule::Block);
        assert!(matches!(odd, Err(MapError::Misaligned { .. })));
    }

    /// A PAR that reports a type's attributes gives that type's LPAE byte; QEMU's (address
    /// only) reports none.
    #[test]
    fn par_attributes_name_the_type() {
        use crate::memtype::armv7::ARMV7;
        for t in ARMV7.iter().flatten() {
            let (inner, outer) = par_attributes(t.remap);
            let shareable = !matches!(t.remap, crate::memtype::armv7::Remap::StronglyOrdered);
            let par = Par {
                pa: 0x4000_0000,
                inner,
                outer,
                shareable,
            };
            assert_eq!(lpae_byte_of(&par), t.lpae, "{}", t.name);
            assert!(par_reports_attributes(&par), "{}", t.name);
        }
        let qemu = decode_par(0x4000_1000 | 1 << 9).unwrap();
        assert!(!par_reports_attributes(&qemu));
        // Inner write-back, outer write-through: no type of the table, its byte all the same.
        let mixed = decode_par(0x4000_1000 | 0b101 << 4 | 0b10 << 2 | 1 << 7).unwrap();
        assert_eq!(lpae_byte_of(&mixed), 0xaf);
        // A reserved inner code.
        let reserved = decode_par(0x4000_1000 | 0b100 << 4 | 1 << 7).unwrap();
        assert_eq!(lpae_byte_of(&reserved), 0x01);
    }

    /// Each ARMv7 type's region reads back from PAR as the attributes its remap gives.
    #[test]
    fn par_decodes() {
        use crate::memtype::armv7::{by_name, Remap};
        assert_eq!(decode_par(0x0000_0013), Err(0x09), "a fault: its status");
        // A write-back write-allocate Shareable page at 0x4000_1000.
        let par = decode_par(0x4000_1000 | 0b101 << 4 | 0b01 << 2 | 1 << 7).unwrap();
        let wb = by_name("normal-wb").unwrap().1.remap;
        assert_eq!((par.inner, par.outer), par_attributes(wb));
        assert_eq!((par.pa, par.shareable), (0x4000_1000, true));
        assert_eq!(par_attributes(Remap::StronglyOrdered), (0b001, 0));
        assert_eq!(
            par_attributes(by_name("normal-wb-nowa").unwrap().1.remap),
            (0b111, 0b11)
        );
    }
}
