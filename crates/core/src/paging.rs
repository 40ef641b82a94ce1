//! Stage 1 translation tables for EL1&0, 4 KiB granule, built in a caller-provided pool.
//!
//! Arm ARM (DDI 0487) references, chapter D8 "The AArch64 Virtual Memory System
//! Architecture": "Translation table descriptor formats" (VMSAv8-64 table, block and
//! page descriptors: the bit layout of [`page_descriptor`], [`block_descriptor`] and
//! [`table_descriptor`]), "Translation process" / "Translation granule" (4 KiB granule:
//! 512 entries per table, level 0 entries span 512 GiB, level 1 1 GiB, level 2 2 MiB,
//! level 3 4 KiB; the initial lookup level implied by TCR_EL1.T0SZ), "Memory access
//! control" (AP\[2:1\], PXN, UXN), "Memory region attributes" (AttrIndx, SH, AF); and
//! the register descriptions "TCR_EL1, Translation Control Register (EL1)" and
//! "ID_AA64MMFR0_EL1, AArch64 Memory Model Feature Register 0" (PARange).
//!
//! Only the lower (TTBR0_EL1) VA range is used. Every mapping is global (nG = 0),
//! EL1-only, inner shareable, with the access flag set so no Access flag faults occur.

use core::fmt;

use tock_registers::LocalRegisterCopy;

pub mod lpae;
pub mod short;
pub mod walk;

/// The descriptor fields, as tock-registers bitfields.
mod bits {
    #![allow(missing_docs)]
    tock_registers::register_bitfields! {u64,
        pub DESC [
            /// Descriptor is valid.
            VALID OFFSET(0) NUMBITS(1) [],
            /// At levels 0-2: 0 = block, 1 = table. At level 3: must be 1 (page).
            TYPE OFFSET(1) NUMBITS(1) [Block = 0, TableOrPage = 1],
            /// Index of the MAIR_EL1 attribute field (the memory type).
            ATTR_INDX OFFSET(2) NUMBITS(3) [],
            /// Non-secure (only meaningful in Secure state).
            NS OFFSET(5) NUMBITS(1) [],
            /// AP\[2:1\]: AP\[2\] = read-only, AP\[1\] = EL0 access.
            AP OFFSET(6) NUMBITS(2) [ReadWriteEl1 = 0b00, ReadOnlyEl1 = 0b10],
            /// Shareability.
            SH OFFSET(8) NUMBITS(2) [Non = 0b00, Outer = 0b10, Inner = 0b11],
            /// Access flag.
            AF OFFSET(10) NUMBITS(1) [],
            /// Not global (ASID-tagged).
            NG OFFSET(11) NUMBITS(1) [],
            /// Output address bits \[47:12\].
            OA OFFSET(12) NUMBITS(36) [],
            /// Contiguous hint.
            CONTIGUOUS OFFSET(52) NUMBITS(1) [],
            /// Privileged execute-never.
            PXN OFFSET(53) NUMBITS(1) [],
            /// Unprivileged execute-never (XN).
            UXN OFFSET(54) NUMBITS(1) [],
        ]
    }
}

use bits::DESC;

type Desc = LocalRegisterCopy<u64, DESC::Register>;

/// Bytes in a page and in a translation table.
pub const PAGE_SIZE: u64 = 4096;

/// Entries in a translation table.
const ENTRIES: u64 = 512;

/// Largest output address + 1 (48-bit OA: no FEAT_LPA).
const OA_LIMIT: u64 = 1 << 48;

/// One 4 KiB translation table.
#[derive(Clone)]
#[repr(C, align(4096))]
pub struct Table(pub [u64; 512]);

impl Table {
    /// A table of invalid descriptors.
    pub const EMPTY: Table = Table([0; 512]);
}

/// Access permissions of a mapping (EL1 only; EL0 never has access).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// Read-only and executable at EL1 (code): AP = 0b10, UXN = 1, PXN = 0.
    ReadExecute,
    /// Read-only, never executable: AP = 0b10, UXN = PXN = 1.
    ReadOnly,
    /// Read-write, never executable: AP = 0b00, UXN = PXN = 1.
    ReadWrite,
}

impl Access {
    /// The permissions as the memory map prints them: `r-x`, `r--` or `rw-`.
    pub const fn name(self) -> &'static str {
        match self {
            Access::ReadExecute => "r-x",
            Access::ReadOnly => "r--",
            Access::ReadWrite => "rw-",
        }
    }
}

/// The leaf descriptor shared by pages and blocks; `pa` is masked to bits \[47:12\].
#[allow(
    clippy::arithmetic_side_effects,
    reason = "FieldValue's `+` combines disjoint fields"
)]
fn leaf(pa: u64, memtype_index: u8, access: Access, page: bool) -> u64 {
    let (ap, pxn) = match access {
        Access::ReadExecute => (DESC::AP::ReadOnlyEl1, DESC::PXN::CLEAR),
        Access::ReadOnly => (DESC::AP::ReadOnlyEl1, DESC::PXN::SET),
        Access::ReadWrite => (DESC::AP::ReadWriteEl1, DESC::PXN::SET),
    };
    let kind = if page {
        DESC::TYPE::TableOrPage
    } else {
        DESC::TYPE::Block
    };
    let mut d = Desc::new(0);
    d.write(
        DESC::VALID::SET
            + kind
            + DESC::ATTR_INDX.val(u64::from(memtype_index))
            + DESC::NS::CLEAR
            + ap
            + DESC::SH::Inner
            + DESC::AF::SET
            + DESC::NG::CLEAR
            + DESC::OA.val(pa >> 12)
            + DESC::CONTIGUOUS::CLEAR
            + pxn
            + DESC::UXN::SET,
    );
    d.get()
}

/// A level 3 page descriptor mapping the 4 KiB page at `pa`: valid, page, AttrIndx =
/// `memtype_index` (bits above 2 dropped), inner shareable, AF = 1, global, EL1-only;
/// permissions per [`Access`]. Bits of `pa` outside \[47:12\] are dropped. (SH is
/// ignored for Device and Normal non-cacheable memory, which are always Outer Shareable.)
pub fn page_descriptor(pa: u64, memtype_index: u8, access: Access) -> u64 {
    leaf(pa, memtype_index, access, true)
}

/// A level 1 (1 GiB) or level 2 (2 MiB) block descriptor with the same attributes as
/// [`page_descriptor`]. `pa` must be aligned to the block size (bits below it are RES0;
/// [`Mapper::map`] checks this); bits outside \[47:12\] are dropped.
pub fn block_descriptor(pa: u64, memtype_index: u8, access: Access) -> u64 {
    leaf(pa, memtype_index, access, false)
}

/// A table descriptor pointing to the next-level table at `pa` (4 KiB aligned), with no
/// hierarchical restrictions (APTable, PXNTable, UXNTable, NSTable all 0).
#[allow(
    clippy::arithmetic_side_effects,
    reason = "FieldValue's `+` combines disjoint fields"
)]
pub fn table_descriptor(pa: u64) -> u64 {
    let mut d = Desc::new(0);
    d.write(DESC::VALID::SET + DESC::TYPE::TableOrPage + DESC::OA.val(pa >> 12));
    d.get()
}

/// Log2 of the bytes one entry of a table at `level` (0..=3) maps.
const fn shift(level: u8) -> u32 {
    // 39, 30, 21, 12. Levels above 3 are never passed; saturate instead of wrapping.
    12u32.saturating_add(9u32.saturating_mul(3u32.saturating_sub(level as u32)))
}

/// Index of `va`'s entry in its table at `level`.
fn entry_index(va: u64, level: u8) -> usize {
    // Masked to 0..512, so the cast is lossless.
    ((va >> shift(level)) & (ENTRIES - 1)) as usize
}

/// The address space shape: VA size and the level of the root table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    /// Bits of virtual address translated through TTBR0_EL1 (TCR_EL1.T0SZ = 64 - va_bits).
    pub va_bits: u8,
    /// Level of the root table (0..=2), implied by `va_bits` for a 4 KiB granule.
    pub start_level: u8,
}

impl Layout {
    /// The layout whose identity map covers every physical address: `va_bits` is
    /// `pa_bits` clamped to 39..=48, the root at level 0 if `va_bits > 39`, else 1.
    pub fn for_pa_bits(pa_bits: u8) -> Layout {
        let va_bits = pa_bits.clamp(39, 48);
        Layout {
            va_bits,
            start_level: if va_bits > 39 { 0 } else { 1 },
        }
    }

    /// The layout for `va_bits` in 25..=48 (T0SZ 16..=39), with the root level the 4 KiB
    /// granule implies; `None` outside that range.
    pub fn with_va_bits(va_bits: u8) -> Option<Layout> {
        let levels = va_bits.checked_sub(4)? / 9; // ceil((va_bits - 12) / 9)
        let start_level = 4u8.checked_sub(levels)?;
        (25..=48).contains(&va_bits).then_some(Layout {
            va_bits,
            start_level,
        })
    }

    /// Whether `va_bits` is in 25..=48 and `start_level` is the one it implies.
    pub fn is_valid(&self) -> bool {
        Layout::with_va_bits(self.va_bits) == Some(*self)
    }

    /// One past the highest mappable VA, `2^va_bits`; 0 for an invalid layout.
    pub fn va_limit(&self) -> u64 {
        if self.is_valid() {
            1 << self.va_bits
        } else {
            0
        }
    }
}

/// Physical address bits from ID_AA64MMFR0_EL1.PARange (bits \[3:0\]; higher bits are
/// ignored, so the whole register may be passed): 0→32, 1→36, 2→40, 3→42, 4→44, 5→48,
/// 6→52; reserved values give `None`. 52 is reported as is; [`Layout::for_pa_bits`]
/// and [`tcr_el1`] cap what is used at 48 bits (no FEAT_LPA descriptors here).
pub fn pa_bits(id_aa64mmfr0_parange: u64) -> Option<u8> {
    match id_aa64mmfr0_parange & 0xf {
        0 => Some(32),
        1 => Some(36),
        2 => Some(40),
        3 => Some(42),
        4 => Some(44),
        5 => Some(48),
        6 => Some(52),
        _ => None,
    }
}

/// The TCR_EL1 value for `layout` on a CPU whose ID_AA64MMFR0_EL1.PARange is `parange`
/// (bits \[3:0\] used):
///
/// | field | bits | value |
/// |---|---|---|
/// | T0SZ | \[5:0\] | `64 - va_bits`: TTBR0 translates `va_bits` bits |
/// | EPD0 | \[7\] | 0: TTBR0 walks enabled |
/// | IRGN0 | \[9:8\] | 0b01: walks are inner write-back read+write-allocate cacheable |
/// | ORGN0 | \[11:10\] | 0b01: walks are outer write-back read+write-allocate cacheable |
/// | SH0 | \[13:12\] | 0b11: walks are inner shareable |
/// | TG0 | \[15:14\] | 0b00: 4 KiB granule |
/// | T1SZ | \[21:16\] | = T0SZ: unused (EPD1 = 1) but kept in range |
/// | A1 | \[22\] | 0: the ASID comes from TTBR0_EL1 |
/// | EPD1 | \[23\] | 1: no TTBR1 walks; upper-range VAs fault |
/// | IRGN1, ORGN1, SH1 | \[29:24\] | 0: unused (EPD1 = 1) |
/// | TG1 | \[31:30\] | 0b10: 4 KiB, so no field holds a reserved encoding |
/// | IPS | \[34:32\] | `min(parange, 5)`: intermediate PA size, capped at 48 bits |
/// | AS, TBI0/1, HA, HD, ... | \[63:36\] | 0: 8-bit ASID, no top-byte ignore, no hardware AF/dirty updates |
///
/// `layout` should be [valid](Layout::is_valid); T0SZ is computed saturating otherwise.
pub fn tcr_el1(layout: &Layout, parange: u64) -> u64 {
    let t0sz = u64::from(64u8.saturating_sub(layout.va_bits) & 0x3f);
    let irgn0 = 0b01 << 8;
    let orgn0 = 0b01 << 10;
    let sh0 = 0b11 << 12;
    let tg0 = 0b00 << 14;
    let t1sz = t0sz << 16;
    let epd1 = 1 << 23;
    let tg1 = 0b10 << 30;
    let ips = (parange & 0xf).min(5) << 32;
    t0sz | irgn0 | orgn0 | sh0 | tg0 | t1sz | epd1 | tg1 | ips
}

/// The size of the leaf mappings [`Mapper::map`] creates.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Granule {
    /// 4 KiB level 3 pages.
    Page,
    /// 2 MiB level 2 blocks.
    Block,
}

impl Granule {
    /// The granule as records name it: `4K` or `2M`.
    pub const fn name(self) -> &'static str {
        match self {
            Granule::Page => "4K",
            Granule::Block => "2M",
        }
    }

    /// Bytes per mapping: 4 KiB or 2 MiB.
    pub const fn size(self) -> u64 {
        1 << shift(self.level())
    }

    /// Level of the leaf descriptors: 3 for pages, 2 for blocks.
    pub const fn level(self) -> u8 {
        match self {
            Granule::Page => 3,
            Granule::Block => 2,
        }
    }
}

/// Why [`Mapper::new`] or [`Mapper::map`] refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MapError {
    /// `va_bits` outside 25..=48 or a root level that does not match it.
    BadLayout(Layout),
    /// The pool's physical address is not 4 KiB aligned, or the pool ends above 2^48.
    PoolAddress {
        /// Physical address of the pool.
        pool_pa: u64,
    },
    /// Memory type index above 7.
    BadMemType {
        /// The index given.
        index: u8,
    },
    /// A mapping of zero bytes.
    Empty {
        /// Start of the mapping.
        va: u64,
    },
    /// `va`, `pa` or `size` not a multiple of the granule.
    Misaligned {
        /// Start of the mapping.
        va: u64,
        /// Physical start.
        pa: u64,
        /// Bytes.
        size: u64,
        /// Required alignment.
        align: u64,
    },
    /// The mapping ends above `2^va_bits`.
    VaOutOfRange {
        /// Start of the mapping.
        va: u64,
        /// Bytes.
        size: u64,
        /// VA bits of the layout.
        va_bits: u8,
    },
    /// The physical range ends above what the tables map (2^48; 2^32 for short descriptors).
    PaOutOfRange {
        /// Physical start.
        pa: u64,
        /// Bytes.
        size: u64,
        /// Physical address bits the tables map.
        pa_bits: u8,
    },
    /// Part of the range is already mapped.
    Overlap {
        /// Start of the first granule-sized piece that is already (partly) mapped.
        va: u64,
    },
    /// The pool has too few free tables; nothing was changed.
    PoolExhausted {
        /// Tables the mapping needs.
        needed: usize,
        /// Tables still free in the pool.
        free: usize,
    },
    /// A table descriptor points outside the pool (cannot happen for tables built by
    /// [`Mapper`] alone).
    Corrupt {
        /// The address being mapped when the walk met it.
        va: u64,
    },
}

impl fmt::Display for MapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            MapError::BadLayout(l) => write!(
                f,
                "unsupported address space layout: {} VA bits with the root table at level {}",
                l.va_bits, l.start_level
            ),
            MapError::PoolAddress { pool_pa } => write!(
                f,
                "the page table pool at {pool_pa:#x} is not 4 KiB aligned or does not fit below 2^48"
            ),
            MapError::BadMemType { index } => {
                write!(f, "memory type index {index} is not a MAIR slot (0 to 7)")
            }
            MapError::Empty { va } => write!(f, "nothing to map: zero bytes at {va:#x}"),
            MapError::Misaligned {
                va,
                pa,
                size,
                align,
            } => write!(
                f,
                "cannot map {size:#x} bytes from VA {va:#x} to PA {pa:#x}: \
                 address or size is not a multiple of {align:#x}"
            ),
            MapError::VaOutOfRange { va, size, va_bits } => write!(
                f,
                "cannot map {size:#x} bytes at VA {va:#x}: beyond the {va_bits}-bit address space"
            ),
            MapError::PaOutOfRange { pa, size, pa_bits } => write!(
                f,
                "cannot map {size:#x} bytes at PA {pa:#x}: beyond {pa_bits}-bit physical addresses"
            ),
            MapError::Overlap { va } => write!(f, "VA {va:#x} is already mapped"),
            MapError::PoolExhausted { needed, free } => write!(
                f,
                "page table pool exhausted: the mapping needs {needed} more tables, {free} are free"
            ),
            MapError::Corrupt { va } => write!(
                f,
                "corrupt page tables: a table descriptor on the walk to VA {va:#x} points outside the pool"
            ),
        }
    }
}

/// Index of the table a table descriptor points to, if it is one of the first `count`
/// tables of a pool at `pool_pa`.
fn table_index(pool_pa: u64, count: usize, desc: u64) -> Option<usize> {
    let offset = (Desc::new(desc).read(DESC::OA) << 12).checked_sub(pool_pa)?;
    let i = usize::try_from(offset / PAGE_SIZE).ok()?;
    (offset % PAGE_SIZE == 0 && i < count).then_some(i)
}

/// Tables at levels `first..=leaf` that an empty subtree needs to cover `[va, end)`
/// (`va < end`).
fn fresh_tables(first: u8, leaf: u8, va: u64, end: u64) -> usize {
    let last = end.saturating_sub(1);
    (first..=leaf)
        .map(|level| {
            // A table at `level` covers one entry of level - 1.
            let s = shift(level.saturating_sub(1));
            usize::try_from((last >> s).saturating_sub(va >> s)).unwrap_or(usize::MAX)
        })
        .fold(0usize, |n, ids| n.saturating_add(ids).saturating_add(1))
}

/// Builds stage 1 tables in a caller-provided pool of [`Table`]s: `pool[0]` is the root,
/// further tables are taken in order. Every `map` either succeeds or changes nothing.
pub struct Mapper<'a> {
    pool: &'a mut [Table],
    pool_pa: u64,
    layout: Layout,
    used: usize,
    /// ARMv7's long descriptors ([`Mapper::armv7`]).
    armv7: bool,
}

/// One mapping request, as [`Mapper::pass`] needs it.
struct Job {
    va: u64,
    pa: u64,
    leaf: u8,
    memtype_index: u8,
    access: Access,
}

impl<'a> Mapper<'a> {
    /// Starts an empty address space in `pool`, whose first table is at physical address
    /// `pool_pa` (table `i` at `pool_pa + i * 4096`). Zeroes `pool[0]`, the root.
    pub fn new(pool: &'a mut [Table], pool_pa: u64, layout: Layout) -> Result<Self, MapError> {
        if !layout.is_valid() {
            return Err(MapError::BadLayout(layout));
        }
        let pool_end = u64::try_from(pool.len())
            .ok()
            .and_then(|n| n.checked_mul(PAGE_SIZE))
            .and_then(|bytes| pool_pa.checked_add(bytes));
        if !pool_pa.is_multiple_of(PAGE_SIZE) || pool_end.is_none_or(|end| end > OA_LIMIT) {
            return Err(MapError::PoolAddress { pool_pa });
        }
        let root = pool
            .first_mut()
            .ok_or(MapError::PoolExhausted { needed: 1, free: 0 })?;
        *root = Table::EMPTY;
        Ok(Mapper {
            pool,
            pool_pa,
            layout,
            used: 1,
            armv7: false,
        })
    }

    /// The same mapper writing ARMv7's long descriptors (LPAE, [`lpae`]): they put every field
    /// where VMSAv8-64 does, but bit 54 is XN for every privilege level (VMSAv8-64's UXN
    /// concerns EL0 only), so executable code is mapped with it clear.
    pub fn armv7(self) -> Self {
        Mapper {
            armv7: true,
            ..self
        }
    }

    /// Maps `size` bytes at `va` to `pa` with memory type `memtype_index` (MAIR slot)
    /// and `access`, using 4 KiB pages or 2 MiB blocks. `va`, `pa` and `size` must be
    /// multiples of the granule; the range must be unmapped and below `2^va_bits`.
    /// Takes next-level tables from the pool as needed. On error nothing is changed.
    pub fn map(
        &mut self,
        va: u64,
        pa: u64,
        size: u64,
        memtype_index: u8,
        access: Access,
        granule: Granule,
    ) -> Result<(), MapError> {
        let align = granule.size();
        if memtype_index > 7 {
            return Err(MapError::BadMemType {
                index: memtype_index,
            });
        }
        if size == 0 {
            return Err(MapError::Empty { va });
        }
        if !(va | pa | size).is_multiple_of(align) {
            return Err(MapError::Misaligned {
                va,
                pa,
                size,
                align,
            });
        }
        let va_bits = self.layout.va_bits;
        let end = va
            .checked_add(size)
            .filter(|&end| end <= self.layout.va_limit())
            .ok_or(MapError::VaOutOfRange { va, size, va_bits })?;
        if pa.checked_add(size).is_none_or(|pa_end| pa_end > OA_LIMIT) {
            return Err(MapError::PaOutOfRange {
                pa,
                size,
                pa_bits: 48,
            });
        }
        let job = Job {
            va,
            pa,
            leaf: granule.level(),
            memtype_index,
            access,
        };
        let root = self.layout.start_level;
        // Dry run: find overlaps and count the new tables; then write.
        let needed = self.pass(0, root, va, end, &job, false)?;
        let free = self.pool.len().saturating_sub(self.used);
        if needed > free {
            return Err(MapError::PoolExhausted { needed, free });
        }
        self.pass(0, root, va, end, &job, true).map(|_| ())
    }

    /// Walks `[va, end)` inside table `t` at `level`. Without `write`, only checks for
    /// overlaps and returns how many tables are missing; with `write`, fills in the
    /// descriptors (the dry run has guaranteed there is no overlap and enough tables).
    fn pass(
        &mut self,
        t: usize,
        level: u8,
        mut va: u64,
        end: u64,
        job: &Job,
        write: bool,
    ) -> Result<usize, MapError> {
        let corrupt = MapError::Corrupt { va };
        let span = 1u64 << shift(level);
        let mut missing = 0usize;
        while va < end {
            // va < end <= 2^48, so the next entry boundary cannot overflow.
            let next = ((va | span.wrapping_sub(1)).wrapping_add(1)).min(end);
            let i = entry_index(va, level);
            let entry = Desc::new(self.entry(t, i).ok_or(corrupt)?);
            if level == job.leaf {
                if entry.is_set(DESC::VALID) {
                    return Err(MapError::Overlap { va });
                }
                if write {
                    let pa = job.pa.wrapping_add(va.wrapping_sub(job.va));
                    let mut desc = leaf(pa, job.memtype_index, job.access, level == 3);
                    if self.armv7 && job.access == Access::ReadExecute {
                        desc &= !(1 << 54);
                    }
                    self.set_entry(t, i, desc).ok_or(corrupt)?;
                }
            } else if !entry.is_set(DESC::VALID) {
                if write {
                    let child = self.alloc().ok_or(corrupt)?;
                    let child_pa = self.table_pa(child).ok_or(corrupt)?;
                    self.set_entry(t, i, table_descriptor(child_pa))
                        .ok_or(corrupt)?;
                    self.pass(child, level.saturating_add(1), va, next, job, true)?;
                } else {
                    let new = fresh_tables(level.saturating_add(1), job.leaf, va, next);
                    missing = missing.saturating_add(new);
                }
            } else if entry.matches_all(DESC::TYPE::TableOrPage) && level < 3 {
                let child = table_index(self.pool_pa, self.used, entry.get()).ok_or(corrupt)?;
                let new = self.pass(child, level.saturating_add(1), va, next, job, write)?;
                missing = missing.saturating_add(new);
            } else {
                // A block where a table is needed.
                return Err(MapError::Overlap { va });
            }
            va = next;
        }
        Ok(missing)
    }

    fn entry(&self, t: usize, i: usize) -> Option<u64> {
        self.pool.get(t)?.0.get(i).copied()
    }

    fn set_entry(&mut self, t: usize, i: usize, desc: u64) -> Option<()> {
        *self.pool.get_mut(t)?.0.get_mut(i)? = desc;
        Some(())
    }

    /// Takes the next table from the pool and zeroes it.
    fn alloc(&mut self) -> Option<usize> {
        let i = self.used;
        *self.pool.get_mut(i)? = Table::EMPTY;
        self.used = i.checked_add(1)?;
        Some(i)
    }

    fn table_pa(&self, i: usize) -> Option<u64> {
        let offset = u64::try_from(i).ok()?.checked_mul(PAGE_SIZE)?;
        self.pool_pa.checked_add(offset)
    }

    /// Physical address of the root table (for TTBR0_EL1).
    pub fn root_pa(&self) -> u64 {
        self.pool_pa
    }

    /// The address space layout.
    pub fn layout(&self) -> Layout {
        self.layout
    }

    /// [`translate`] on the tables built so far.
    pub fn translate(&self, va: u64) -> Option<Translation> {
        translate(self.pool, self.pool_pa, &self.layout, va)
    }

    /// Tables of the pool in use, the root included.
    pub fn tables_used(&self) -> usize {
        self.used
    }

    /// Whether every byte of `[va, va+len)` translates to `pa` plus its offset, with
    /// `access` and (when given) the MAIR slot `memtype_index`: checked leaf by leaf with
    /// [`translate`], so a 2 MiB block costs one walk. An empty range is not mapped.
    pub fn maps(
        &self,
        va: u64,
        pa: u64,
        len: u64,
        access: Access,
        memtype_index: Option<u8>,
    ) -> bool {
        let Some(end) = va.checked_add(len).filter(|_| len != 0) else {
            return false;
        };
        let mut at = va;
        while at < end {
            let Some(t) = self.translate(at) else {
                return false;
            };
            let want = pa.checked_add(at.wrapping_sub(va));
            if Some(t.pa) != want
                || t.access() != Some(access)
                || memtype_index.is_some_and(|i| i != t.memtype_index())
            {
                return false;
            }
            // The first byte after this leaf.
            let Some(next) = (at | ((1u64 << shift(t.level)).wrapping_sub(1))).checked_add(1)
            else {
                return true;
            };
            at = next;
        }
        true
    }
}

/// The result of a software walk by [`translate`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Translation {
    /// The physical address `va` translates to.
    pub pa: u64,
    /// Level of the leaf descriptor: 3 for a page, 2 or 1 for a block.
    pub level: u8,
    /// The leaf descriptor.
    pub descriptor: u64,
}

impl Translation {
    /// The descriptor's AttrIndx (MAIR slot).
    pub fn memtype_index(&self) -> u8 {
        // A 3-bit field.
        Desc::new(self.descriptor).read(DESC::ATTR_INDX) as u8
    }

    /// The descriptor's permissions, if they are one of the three [`Access`] encodings.
    pub fn access(&self) -> Option<Access> {
        let d = Desc::new(self.descriptor);
        let ap = d.read(DESC::AP);
        // Code has UXN set in VMSAv8-64's descriptors and clear in ARMv7's, where the bit
        // is XN for every level ([`Mapper::armv7`]).
        match (ap, d.is_set(DESC::PXN), d.is_set(DESC::UXN)) {
            (0b10, false, _) => Some(Access::ReadExecute),
            (0b10, true, true) => Some(Access::ReadOnly),
            (0b00, true, true) => Some(Access::ReadWrite),
            _ => None,
        }
    }
}

/// Walks the tables in `pool` (root `pool[0]`, table `i` at `pool_pa + i * 4096`) like
/// the MMU would for `va`: `None` for an unmapped `va`, a `va` beyond the layout, an
/// invalid layout, a reserved descriptor or a table descriptor pointing outside `pool`.
pub fn translate(pool: &[Table], pool_pa: u64, layout: &Layout, va: u64) -> Option<Translation> {
    if va >= layout.va_limit() {
        return None;
    }
    let mut table = pool.first()?;
    let mut level = layout.start_level;
    loop {
        let descriptor = *table.0.get(entry_index(va, level))?;
        let d = Desc::new(descriptor);
        if !d.is_set(DESC::VALID) {
            return None;
        }
        let oa = d.read(DESC::OA) << 12;
        let table_or_page = d.matches_all(DESC::TYPE::TableOrPage);
        if level == 3 || !table_or_page {
            // Pages at level 3; blocks at levels 1 and 2 only (4 KiB granule, no LPA2).
            if table_or_page != (level == 3) || level == 0 {
                return None;
            }
            let offset_mask = (1u64 << shift(level)).wrapping_sub(1);
            return Some(Translation {
                pa: (oa & !offset_mask) | (va & offset_mask),
                level,
                descriptor,
            });
        }
        table = pool.get(table_index(pool_pa, pool.len(), descriptor)?)?;
        level = level.checked_add(1)?;
    }
}

/// Tables (root included) that mapping `regions` (VA, size, granule) into an empty
/// address space with `layout` takes, counting tables shared between regions once:
/// equal to [`Mapper::tables_used`] after mapping them all. The regions are taken as
/// given (they should be valid for [`Mapper::map`] and disjoint); empty ones are ignored.
pub fn tables_needed<I, R>(layout: &Layout, regions: I) -> usize
where
    I: IntoIterator<Item = R> + Clone,
    R: core::borrow::Borrow<(u64, u64, Granule)>,
{
    let below_root = layout.start_level.saturating_add(1);
    (below_root..=3)
        .map(|level| distinct_tables(regions.clone(), level))
        .fold(1usize, usize::saturating_add)
}

/// Distinct tables at `level` the regions need: the union of each region's range of
/// table numbers (VA >> the span of one table), counted without allocating.
fn distinct_tables<I, R>(regions: I, level: u8) -> usize
where
    I: IntoIterator<Item = R> + Clone,
    R: core::borrow::Borrow<(u64, u64, Granule)>,
{
    let s = shift(level.saturating_sub(1));
    let ids = |r: R| {
        let &(va, size, granule) = r.borrow();
        (size != 0 && granule.level() >= level)
            .then(|| (va >> s, va.saturating_add(size.saturating_sub(1)) >> s))
    };
    let mut count = 0u64;
    let mut next_uncounted = 0u64;
    // Repeatedly count the lowest run of uncounted ids; each round finishes a region.
    loop {
        let mut lowest = None;
        for (first, last) in regions.clone().into_iter().filter_map(ids) {
            let run = (first.max(next_uncounted), last);
            if last >= next_uncounted && lowest.is_none_or(|l| run < l) {
                lowest = Some(run);
            }
        }
        let Some((first, last)) = lowest else {
            break;
        };
        count = count.saturating_add(last.saturating_sub(first).saturating_add(1));
        // Never true (a VA shifted right by at least 21 bits), but guarantees progress.
        if last == u64::MAX {
            break;
        }
        next_uncounted = last.saturating_add(1);
    }
    usize::try_from(count).unwrap_or(usize::MAX)
}
