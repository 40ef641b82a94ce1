//! Walking somebody else's stage 1 tables: the lower VA range of the EL1&0 regime as
//! TTBR0_EL1 and TCR_EL1 describe it, 4 KiB granule, descriptors read through a caller's
//! function (a debugger reading guest physical memory), down to the leaf, whose memory type
//! follows from its AttrIndx and MAIR_EL1.
//!
//! Arm ARM (DDI 0487) chapter D8 "The AArch64 Virtual Memory System Architecture":
//! "Translation table descriptor formats" (bit 0 valid, bit 1 table/page vs block; a level 3
//! descriptor with bit 1 clear is reserved and faults; level 0 holds no block with a 4 KiB
//! granule unless TCR_EL1.DS = 1), "Memory region attributes" (AttrIndx, bits \[4:2\], picks
//! MAIR_EL1's byte `AttrIndx`), "The Contiguous bit" (bit 52), "Software-reserved bits"
//! (bits \[58:55\]); the register descriptions of TTBR0_EL1 (ASID in \[63:48\], BADDR in
//! \[47:1\], CnP bit 0) and TCR_EL1 (T0SZ \[5:0\], EPD0 bit 7, TG0 \[15:14\], DS bit 59).
//!
//! The same walk serves 32-bit Arm's LPAE (ARMv7-A with the Large Physical Address Extension,
//! Arm ARM DDI 0406C, B3.6 "Long-descriptor translation table format"): its level 1 to 3
//! descriptors have the same bits (output address \[39:12\], AttrIndx, AP, SH, AF, nG,
//! Contiguous, PXN, XN), MAIR1:MAIR0 are one MAIR_EL1, and [`Regime::lpae`] reads TTBR0 (64
//! bits, ASID in \[55:48\]) and TTBCR (EAE bit 31, T0SZ \[2:0\], EPD0 bit 7).
//!
//! What is refused, with a [`WalkError`]: a TG0 other than 4 KiB, TCR_EL1.DS = 1 (52-bit
//! addresses, FEAT_LPA2: other descriptor formats), EPD0 = 1, a T0SZ outside 16..=39, a VA
//! beyond T0SZ's range; a descriptor that cannot be read, is invalid or reserved stops the
//! walk at its level.

use core::fmt;

use super::{entry_index, shift, Desc, Layout, DESC, ENTRIES};
use crate::memtype::{describe_mair_byte, MemType, MEMTYPES};

/// Output address bits \[47:12\] of a table, block or page descriptor (and of TTBR0_EL1's
/// BADDR for a 4 KiB-aligned table).
const OA_MASK: u64 = 0x0000_ffff_ffff_f000;

/// The lower VA range's translation regime: where its root table is and its shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Regime {
    /// Physical address of the root table (TTBR0_EL1.BADDR).
    pub root: u64,
    /// VA bits and root level, from TCR_EL1.T0SZ.
    pub layout: Layout,
    /// The ASID in TTBR0_EL1 \[63:48\] (meaningful when TCR_EL1.A1 = 0).
    pub asid: u16,
}

/// Why a walk did not reach a leaf.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WalkError {
    /// TCR_EL1.TG0 is not 0b00 (4 KiB): the raw field.
    Granule(u8),
    /// TCR_EL1.DS = 1: 52-bit addresses with FEAT_LPA2 descriptors, not decoded here.
    Lpa2,
    /// TCR_EL1.EPD0 = 1: walks of TTBR0_EL1 are disabled.
    WalksDisabled,
    /// TCR_EL1.T0SZ outside 16..=39 (the 4 KiB granule's range without FEAT_LPA2/TTST).
    T0sz(u8),
    /// A 32-bit TTBCR with EAE = 0: short descriptors, not walked here.
    ShortDescriptors,
    /// The VA lies beyond the range T0SZ gives TTBR0_EL1.
    OutOfRange {
        /// The VA asked for.
        va: u64,
        /// VA bits the regime translates.
        va_bits: u8,
    },
    /// The descriptor at `at` (a physical address) could not be read.
    Unreadable {
        /// Level of the table.
        level: u8,
        /// Physical address of the descriptor.
        at: u64,
    },
    /// An invalid descriptor (bit 0 clear): a translation fault at `level`.
    Invalid {
        /// Level of the table.
        level: u8,
        /// The descriptor as read.
        descriptor: u64,
    },
    /// A reserved encoding: a block at level 0, or bit 1 clear at level 3.
    Reserved {
        /// Level of the table.
        level: u8,
        /// The descriptor as read.
        descriptor: u64,
    },
}

impl fmt::Display for WalkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            WalkError::Granule(tg0) => write!(
                f,
                "TCR_EL1.TG0 is {tg0:#04b}, not 0b00 (4 KiB): another granule, not walked"
            ),
            WalkError::Lpa2 => {
                f.write_str("TCR_EL1.DS is 1 (52-bit addresses, FEAT_LPA2 descriptors): not walked")
            }
            WalkError::WalksDisabled => {
                f.write_str("TCR_EL1.EPD0 is 1: TTBR0_EL1 walks are disabled")
            }
            WalkError::T0sz(t) => write!(f, "TCR_EL1.T0SZ is {t}, outside 16..=39"),
            WalkError::ShortDescriptors => {
                f.write_str("TTBCR.EAE is 0 (short descriptors): not walked")
            }
            WalkError::OutOfRange { va, va_bits } => {
                write!(f, "VA {va:#x} lies beyond TTBR0_EL1's {va_bits}-bit range")
            }
            WalkError::Unreadable { level, at } => {
                write!(f, "level {level} descriptor at PA {at:#x} unreadable")
            }
            WalkError::Invalid { level, descriptor } => write!(
                f,
                "level {level} descriptor {descriptor:#018x} invalid (translation fault)"
            ),
            WalkError::Reserved { level, descriptor } => write!(
                f,
                "level {level} descriptor {descriptor:#018x} is a reserved encoding"
            ),
        }
    }
}

impl Regime {
    /// The regime TTBR0_EL1 `ttbr0` and TCR_EL1 `tcr` describe, or why it is not one this
    /// module walks.
    pub fn new(ttbr0: u64, tcr: u64) -> Result<Regime, WalkError> {
        // Field extraction: each value is masked to its width first.
        let t0sz = (tcr & 0x3f) as u8;
        let tg0 = ((tcr >> 14) & 0b11) as u8;
        if tcr >> 59 & 1 == 1 {
            return Err(WalkError::Lpa2);
        }
        if tg0 != 0 {
            return Err(WalkError::Granule(tg0));
        }
        if tcr >> 7 & 1 == 1 {
            return Err(WalkError::WalksDisabled);
        }
        let layout = 64u8
            .checked_sub(t0sz)
            .and_then(Layout::with_va_bits)
            .ok_or(WalkError::T0sz(t0sz))?;
        // The root table holds 2^(va_bits - shift(start)) entries of 8 bytes, aligned to
        // its size (at least 64 bytes); BADDR bits below that are RES0.
        let root_bits = u32::from(layout.va_bits)
            .saturating_sub(shift(layout.start_level))
            .saturating_add(3)
            .max(6);
        let align = !(1u64 << root_bits).wrapping_sub(1);
        Ok(Regime {
            root: ttbr0 & 0x0000_ffff_ffff_fffe & align,
            layout,
            asid: (ttbr0 >> 48) as u16,
        })
    }
}

impl Regime {
    /// The lower VA range of 32-bit Arm's PL1&0 regime under LPAE, as TTBR0 `ttbr0` (64 bits)
    /// and TTBCR `ttbcr` describe it: 32 - T0SZ VA bits, from level 1 (T0SZ 0 or 1) or
    /// level 2; or why it is not one this module walks. With TTBCR.T1SZ non-zero TTBR1 takes
    /// the top of the range: a VA there is walked here as TTBR0's, so callers walk user VAs.
    pub fn lpae(ttbr0: u64, ttbcr: u64) -> Result<Regime, WalkError> {
        if ttbcr >> 31 & 1 == 0 {
            return Err(WalkError::ShortDescriptors);
        }
        if ttbcr >> 7 & 1 == 1 {
            return Err(WalkError::WalksDisabled);
        }
        // A 3-bit field: 25 to 32 VA bits, which Layout takes.
        let t0sz = (ttbcr & 0b111) as u8;
        let layout = 32u8
            .checked_sub(t0sz)
            .and_then(Layout::with_va_bits)
            .ok_or(WalkError::T0sz(t0sz))?;
        // The root table: 2^(va_bits - shift(start)) entries of 8 bytes, aligned to its size.
        let root_bits = u32::from(layout.va_bits)
            .saturating_sub(shift(layout.start_level))
            .saturating_add(3);
        let align = !(1u64 << root_bits).wrapping_sub(1);
        Ok(Regime {
            root: ttbr0 & 0x00ff_ffff_ffff & align,
            layout,
            asid: (ttbr0 >> 48) as u8 as u16,
        })
    }
}

/// The leaf descriptor of a VA, and where the walk found it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Leaf {
    /// The VA walked.
    pub va: u64,
    /// The physical address it translates to.
    pub pa: u64,
    /// Level of the leaf: 3 for a page, 2 or 1 for a block.
    pub level: u8,
    /// The leaf descriptor.
    pub descriptor: u64,
    /// Physical address of the leaf descriptor.
    pub at: u64,
}

impl Leaf {
    /// Bytes the descriptor maps: 4 KiB (a page), 2 MiB or 1 GiB (a block).
    pub fn size(&self) -> u64 {
        1 << shift(self.level)
    }

    /// Whether the leaf is a page (level 3), not a block.
    pub fn is_page(&self) -> bool {
        self.level == 3
    }

    /// AttrIndx, bits \[4:2\]: which MAIR_EL1 byte is the memory type.
    pub fn attr_index(&self) -> u8 {
        // A 3-bit field.
        Desc::new(self.descriptor).read(DESC::ATTR_INDX) as u8
    }

    /// The Contiguous bit (52): one of 16 adjacent, aligned entries with the same
    /// attributes, which a TLB may hold as one.
    pub fn contiguous(&self) -> bool {
        Desc::new(self.descriptor).is_set(DESC::CONTIGUOUS)
    }

    /// The access flag (10).
    pub fn accessed(&self) -> bool {
        Desc::new(self.descriptor).is_set(DESC::AF)
    }

    /// nG (11): the entry is tagged with the ASID.
    pub fn not_global(&self) -> bool {
        Desc::new(self.descriptor).is_set(DESC::NG)
    }

    /// AP\[2:1\] (bits \[7:6\]): bit 1 of the value = read-only, bit 0 = EL0 may access.
    pub fn ap(&self) -> u8 {
        Desc::new(self.descriptor).read(DESC::AP) as u8
    }

    /// SH\[1:0\] (bits \[9:8\]): 0 non-, 2 outer, 3 inner shareable.
    pub fn shareability(&self) -> u8 {
        Desc::new(self.descriptor).read(DESC::SH) as u8
    }

    /// UXN (54) and PXN (53).
    pub fn execute_never(&self) -> (bool, bool) {
        let d = Desc::new(self.descriptor);
        (d.is_set(DESC::UXN), d.is_set(DESC::PXN))
    }

    /// The software-reserved bits \[58:55\], as a 4-bit value (Linux keeps PTE_DIRTY,
    /// PTE_SPECIAL... there; what each means is the kernel's, not the architecture's).
    pub fn software(&self) -> u8 {
        ((self.descriptor >> 55) & 0xf) as u8
    }

    /// The leaf's MAIR_EL1 attribute byte: byte [`Leaf::attr_index`] of `mair`.
    pub fn mair_byte(&self, mair: u64) -> u8 {
        (mair >> (8 * u32::from(self.attr_index()))) as u8
    }

    /// The memory type of core's table ([`MEMTYPES`]) whose MAIR byte the leaf's is under
    /// `mair`; `None` for a byte no row has (decode it with [`describe_mair_byte`]).
    pub fn memtype(&self, mair: u64) -> Option<&'static MemType> {
        memtype_of_mair_byte(self.mair_byte(mair))
    }

    /// The leaf in one line, its memory type named from `mair`: "level 3 page at PA
    /// 0x4a2b3000, AttrIndx 2 = MAIR 0x44 normal-nc, contiguous no, AF yes, nG yes, AP 0b01,
    /// SH 0b11, UXN yes, PXN yes, software bits 0b0011, descriptor 0x...".
    pub fn describe(&self, mair: u64) -> Described<'_> {
        Described { leaf: self, mair }
    }
}

/// What [`Leaf::describe`] returns.
pub struct Described<'l> {
    leaf: &'l Leaf,
    mair: u64,
}

impl fmt::Display for Described<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let l = self.leaf;
        let yes = |b: bool| if b { "yes" } else { "no" };
        let kind = match l.level {
            3 => "page",
            2 => "2 MiB block",
            _ => "1 GiB block",
        };
        let byte = l.mair_byte(self.mair);
        write!(
            f,
            "level {} {kind} at PA {:#x}, AttrIndx {} = MAIR {byte:#04x} ",
            l.level,
            l.pa,
            l.attr_index()
        )?;
        match memtype_of_mair_byte(byte) {
            Some(t) => f.write_str(t.name)?,
            None => write!(f, "({})", describe_mair_byte(byte))?,
        }
        let (uxn, pxn) = l.execute_never();
        write!(
            f,
            ", contiguous {}, AF {}, nG {}, AP {:#04b}, SH {:#04b}, UXN {}, PXN {}, \
             software bits {:#06b}, descriptor {:#018x}",
            yes(l.contiguous()),
            yes(l.accessed()),
            yes(l.not_global()),
            l.ap(),
            l.shareability(),
            yes(uxn),
            yes(pxn),
            l.software(),
            l.descriptor
        )
    }
}

/// The memory type of core's table with MAIR attribute byte `byte`.
pub fn memtype_of_mair_byte(byte: u8) -> Option<&'static MemType> {
    MEMTYPES.iter().find(|t| t.mair == byte)
}

/// Walks `regime`'s tables for `va` as the MMU would, reading each descriptor (8 bytes,
/// little-endian, at a physical address) with `read`; the leaf, or why there is none.
pub fn walk(
    regime: &Regime,
    va: u64,
    mut read: impl FnMut(u64) -> Option<u64>,
) -> Result<Leaf, WalkError> {
    let layout = regime.layout;
    if va >= layout.va_limit() {
        return Err(WalkError::OutOfRange {
            va,
            va_bits: layout.va_bits,
        });
    }
    let mut table = regime.root;
    let mut level = layout.start_level;
    loop {
        // entry_index is below ENTRIES (512): the offset fits.
        let at = table | ((entry_index(va, level) as u64) << 3);
        let descriptor = read(at).ok_or(WalkError::Unreadable { level, at })?;
        let d = Desc::new(descriptor);
        if !d.is_set(DESC::VALID) {
            return Err(WalkError::Invalid { level, descriptor });
        }
        let table_or_page = d.matches_all(DESC::TYPE::TableOrPage);
        if level == 3 || !table_or_page {
            // Pages at level 3; blocks at levels 1 and 2 only.
            if table_or_page != (level == 3) || level == 0 {
                return Err(WalkError::Reserved { level, descriptor });
            }
            let offset_mask = (1u64 << shift(level)).wrapping_sub(1);
            return Ok(Leaf {
                va,
                pa: (descriptor & OA_MASK & !offset_mask) | (va & offset_mask),
                level,
                descriptor,
                at,
            });
        }
        table = descriptor & OA_MASK;
        // Below 3 here (a leaf at level 3 returned above).
        level = level.saturating_add(1);
    }
}

const _: () = assert!(ENTRIES == 512);

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::collections::BTreeMap;

    /// TCR_EL1 as Debian's arm64 6.12 kernel runs under QEMU's cortex-a72 (what
    /// `host/tests/linux/linux.rs` read): T0SZ 16 (48-bit VA), TG0 4 KiB, EPD0 0, DS 0.
    const LINUX_TCR: u64 = 0x0050_0074_b550_3510;
    /// MAIR_EL1 as the same kernel runs (read the same way), by Linux's MT_* indexes
    /// (arch/arm64/include/asm/memory.h): NORMAL 0xff at 0, NORMAL_TAGGED at 1 (0xff as
    /// read here, on a CPU without MTE), NORMAL_NC 0x44 at 2, DEVICE_nGnRnE 0x00 at 3, DEVICE_nGnRE 0x04 at 4.
    const LINUX_MAIR: u64 = 0x0000_0004_0044_ffff;

    struct Mem(BTreeMap<u64, u64>);

    impl Mem {
        fn read(&self, pa: u64) -> Option<u64> {
            self.0.get(&pa).copied()
        }
    }

    const ROOT: u64 = 0x4100_0000;
    const L1: u64 = 0x4100_1000;
    const L2: u64 = 0x4100_2000;
    const L3: u64 = 0x4100_3000;

    fn idx(va: u64, level: u8) -> u64 {
        entry_index(va, level) as u64 * 8
    }

    /// Tables for `va` down to level 3, whose entry is `leaf`.
    fn mem_for(va: u64, leaf: u64) -> Mem {
        let mut m = BTreeMap::new();
        m.insert(ROOT + idx(va, 0), L1 | 0b11);
        m.insert(L1 + idx(va, 1), L2 | 0b11);
        m.insert(L2 + idx(va, 2), L3 | 0b11);
        m.insert(L3 + idx(va, 3), leaf);
        Mem(m)
    }

    fn regime() -> Regime {
        // ASID 0x2a, CnP set: neither is part of the root's address.
        Regime::new(ROOT | (0x2a << 48) | 1, LINUX_TCR).unwrap()
    }

    #[test]
    fn linux_regime_is_48_bits_from_level_0() {
        let r = regime();
        assert_eq!(r.root, ROOT);
        assert_eq!(r.asid, 0x2a);
        assert_eq!(r.layout.va_bits, 48);
        assert_eq!(r.layout.start_level, 0);
        // 39 bits: a 512-entry root at level 1; 31 bits: a 2-entry root at level 1, aligned
        // to 64 bytes only; 30 bits: a 512-entry root at level 2.
        let r39 = Regime::new(0x4000_1000, 25).unwrap();
        assert_eq!((r39.layout.start_level, r39.root), (1, 0x4000_1000));
        let r31 = Regime::new(0x4000_1048, 33).unwrap();
        assert_eq!((r31.layout.start_level, r31.root), (1, 0x4000_1040));
        let r30 = Regime::new(0x4000_1040, 34).unwrap();
        assert_eq!((r30.layout.start_level, r30.root), (2, 0x4000_1000));
    }

    /// TTBR0 and TTBCR as Debian's armhf LPAE 6.12 kernel runs under QEMU's cortex-a15 (what
    /// `host/tests/linux/linux_armhf.rs` reads): EAE, T0SZ 0, T1SZ 2 (its 3G/1G split).
    #[test]
    fn lpae_regime_is_32_bits_from_level_1() {
        let r = Regime::lpae(0x0042_0000_4a5b_6fe0, 0xb502_3500).unwrap();
        assert_eq!((r.layout.va_bits, r.layout.start_level), (32, 1));
        // A 4-entry root, 32-byte aligned; the ASID is not part of it.
        assert_eq!((r.root, r.asid), (0x4a5b_6fe0, 0x42));
        let r30 = Regime::lpae(0x4a5b_6fe0, 0x8000_0002).unwrap();
        assert_eq!((r30.layout.va_bits, r30.layout.start_level), (30, 2));
        assert_eq!(r30.root, 0x4a5b_6000);
        assert_eq!(Regime::lpae(0, 0x2), Err(WalkError::ShortDescriptors));
        assert_eq!(Regime::lpae(0, 0x8000_0080), Err(WalkError::WalksDisabled));
        // A user page at 0x76f1_2000 through the 32-bit regime: level 1 index 1, as the MMU.
        let va = 0x76f1_2000;
        let mut m = BTreeMap::new();
        m.insert(0x4a5b_6fe0 + 8, L2 | 0b11);
        m.insert(L2 + idx(va, 2), L3 | 0b11);
        m.insert(
            L3 + idx(va, 3),
            0x5000_1000 | 0b11 | (7 << 2) | (1 << 10) | (1 << 11),
        );
        let leaf = walk(&r, va + 0x10, |pa| m.get(&pa).copied()).unwrap();
        assert_eq!(
            (leaf.pa, leaf.level, leaf.attr_index()),
            (0x5000_1010, 3, 7)
        );
        // Linux's LPAE MAIR1:MAIR0 (proc-v7-3level.S): index 7, L_PTE_MT_WRITEALLOC, is 0xff.
        assert_eq!(
            leaf.memtype(0xff00_0004_eeaa_4400).map(|t| t.name),
            Some("normal-wb")
        );
        assert!(!std::format!("{}", WalkError::ShortDescriptors).is_empty());
    }

    #[test]
    fn refused_regimes() {
        assert_eq!(
            Regime::new(ROOT, LINUX_TCR | (1 << 14)),
            Err(WalkError::Granule(1))
        );
        assert_eq!(
            Regime::new(ROOT, LINUX_TCR | (1 << 59)),
            Err(WalkError::Lpa2)
        );
        assert_eq!(
            Regime::new(ROOT, LINUX_TCR | (1 << 7)),
            Err(WalkError::WalksDisabled)
        );
        assert_eq!(
            Regime::new(ROOT, (LINUX_TCR & !0x3f) | 12),
            Err(WalkError::T0sz(12))
        );
        assert_eq!(
            Regime::new(ROOT, (LINUX_TCR & !0x3f) | 40),
            Err(WalkError::T0sz(40))
        );
        for e in [WalkError::Granule(1), WalkError::T0sz(12), WalkError::Lpa2] {
            assert!(!std::format!("{e}").is_empty());
        }
    }

    /// A user page as Linux maps it: pgprot_writecombine (AttrIndx 2), nG, AF, inner
    /// shareable, EL0 read-write (AP 0b01), UXN and PXN, PTE_SPECIAL (bit 56).
    #[test]
    fn a_page_with_its_memory_type() {
        let va = 0xffff_8a7f_3000 + 0x123;
        let pa_page = 0x4a2b_3000;
        let leaf_desc = pa_page
            | 0b11
            | (2 << 2)
            | (0b01 << 6)
            | (0b11 << 8)
            | (1 << 10)
            | (1 << 11)
            | (1 << 53)
            | (1 << 54)
            | (1 << 56);
        let m = mem_for(va, leaf_desc);
        let leaf = walk(&regime(), va, |pa| m.read(pa)).unwrap();
        assert_eq!(leaf.pa, pa_page + 0x123);
        assert_eq!(leaf.level, 3);
        assert!(leaf.is_page());
        assert_eq!(leaf.size(), 4096);
        assert_eq!(leaf.at, L3 + idx(va, 3));
        assert_eq!(leaf.attr_index(), 2);
        assert_eq!(leaf.mair_byte(LINUX_MAIR), 0x44);
        assert_eq!(leaf.memtype(LINUX_MAIR).map(|t| t.name), Some("normal-nc"));
        assert!(!leaf.contiguous());
        assert!(leaf.accessed() && leaf.not_global());
        assert_eq!(leaf.ap(), 0b01);
        assert_eq!(leaf.shareability(), 0b11);
        assert_eq!(leaf.execute_never(), (true, true));
        assert_eq!(leaf.software(), 0b0010);
        let line = std::format!("{}", leaf.describe(LINUX_MAIR));
        assert!(
            line.starts_with("level 3 page at PA 0x4a2b3123, AttrIndx 2 = MAIR 0x44 normal-nc, contiguous no, AF yes, nG yes"),
            "{line}"
        );
    }

    /// Every Linux MT_* index lands on the firmware's memory type of the same MAIR byte.
    #[test]
    fn linux_attr_indexes_name_core_memory_types() {
        let va = 0x1000;
        for (index, name) in [
            (0, Some("normal-wb")),
            (1, Some("normal-wb")),
            (2, Some("normal-nc")),
            (3, Some("device-ngnrne")),
            (4, Some("device-ngnre")),
            (5, Some("device-ngnrne")), // MAIR byte 5 is 0x00 in LINUX_MAIR
        ] {
            let m = mem_for(va, 0x5000_0000 | 0b11 | (index << 2) | (1 << 10));
            let leaf = walk(&regime(), va, |pa| m.read(pa)).unwrap();
            assert_eq!(leaf.memtype(LINUX_MAIR).map(|t| t.name), name, "{index}");
        }
        // A byte no row has (Tagged Normal, 0xf0) is named by its decoding.
        let m = mem_for(va, 0x5000_0000 | 0b11 | (1 << 2));
        let leaf = walk(&regime(), va, |pa| m.read(pa)).unwrap();
        let mair = LINUX_MAIR & !0xff00 | 0xf000;
        assert!(leaf.memtype(mair).is_none());
        let line = std::format!("{}", leaf.describe(mair));
        assert!(line.contains("MAIR 0xf0 ("), "{line}");
    }

    #[test]
    fn contiguous_pages_and_blocks() {
        let va = 0x7f00_0020_1000;
        let m = mem_for(va, 0x4000_0000 | 0b11 | (1 << 52));
        let leaf = walk(&regime(), va, |pa| m.read(pa)).unwrap();
        assert!(leaf.contiguous());
        // A 2 MiB block at level 2: the PA keeps the VA's low 21 bits.
        let mut m = mem_for(va, 0);
        m.0.insert(L2 + idx(va, 2), 0x4020_0000 | 0b01 | (1 << 10));
        let leaf = walk(&regime(), va, |pa| m.read(pa)).unwrap();
        assert_eq!((leaf.level, leaf.size()), (2, 2 << 20));
        assert_eq!(leaf.pa, 0x4020_0000 | (va & 0x1f_ffff));
        assert!(!leaf.is_page());
        assert!(std::format!("{}", leaf.describe(LINUX_MAIR)).starts_with("level 2 2 MiB block"));
        // A 1 GiB block at level 1.
        m.0.insert(L1 + idx(va, 1), 0x8000_0000 | 0b01);
        let leaf = walk(&regime(), va, |pa| m.read(pa)).unwrap();
        assert_eq!(leaf.pa, 0x8000_0000 | (va & 0x3fff_ffff));
    }

    #[test]
    fn faults_and_reserved_encodings_stop_the_walk() {
        let va = 0x40_0000;
        // Not present: the pte is 0 (Linux leaves a PFN-map page absent until it faults).
        let m = mem_for(va, 0);
        assert_eq!(
            walk(&regime(), va, |pa| m.read(pa)),
            Err(WalkError::Invalid {
                level: 3,
                descriptor: 0
            })
        );
        // Bit 1 clear at level 3 is reserved.
        let m = mem_for(va, 0x4000_0000 | 0b01);
        assert!(matches!(
            walk(&regime(), va, |pa| m.read(pa)),
            Err(WalkError::Reserved { level: 3, .. })
        ));
        // No block at level 0.
        let mut m = mem_for(va, 0);
        m.0.insert(ROOT + idx(va, 0), 0b01);
        assert!(matches!(
            walk(&regime(), va, |pa| m.read(pa)),
            Err(WalkError::Reserved { level: 0, .. })
        ));
        // A table that points nowhere readable.
        let mut m = mem_for(va, 0);
        m.0.insert(L1 + idx(va, 1), 0x9000_0000 | 0b11);
        assert_eq!(
            walk(&regime(), va, |pa| m.read(pa)),
            Err(WalkError::Unreadable {
                level: 2,
                at: 0x9000_0000 + idx(va, 2)
            })
        );
        // Beyond the 48-bit range.
        assert_eq!(
            walk(&regime(), 1 << 48, |pa| m.read(pa)),
            Err(WalkError::OutOfRange {
                va: 1 << 48,
                va_bits: 48
            })
        );
        assert!(std::format!(
            "{}",
            WalkError::Invalid {
                level: 3,
                descriptor: 0
            }
        )
        .contains("translation fault"));
    }

    /// The attribute bits above the output address do not leak into the PA.
    #[test]
    fn upper_attributes_stay_out_of_the_pa() {
        let va = 0x1000;
        let m = mem_for(va, 0x4000_0000 | 0b11 | (0xf << 55) | (0b111 << 51));
        let leaf = walk(&regime(), va, |pa| m.read(pa)).unwrap();
        assert_eq!(leaf.pa, 0x4000_0000);
        assert_eq!(leaf.software(), 0xf);
        // And in table descriptors (APTable, XNTable... in bits 59-63).
        let mut m = mem_for(va, 0x4000_0000 | 0b11);
        m.0.insert(ROOT + idx(va, 0), L1 | 0b11 | (0b11111 << 59));
        assert_eq!(
            walk(&regime(), va, |pa| m.read(pa)).unwrap().pa,
            0x4000_0000
        );
    }
}
