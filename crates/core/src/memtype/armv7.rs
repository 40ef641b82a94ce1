//! The memory types on 32-bit Arm (ARMv7-A): the table's ARMv7 columns ([`ARMV7`], one
//! entry per row of [`MEMTYPES`](super::MEMTYPES), by position) and the register values they give under the
//! two translation regimes, with decoders for both.
//!
//! - **LPAE** (long descriptors: Cortex-A7, A15, A17): a descriptor's AttrIndx selects one
//!   of eight attribute bytes of MAIR0 (slots 0-3) and MAIR1 (slots 4-7), encoded as
//!   MAIR_EL1's, except that ARMv7 has no transient hints and defines only two Device
//!   encodings: `0x00` Strongly-ordered and `0x04` Device ([`describe_lpae_byte`]).
//! - **TEX remap** (short descriptors with SCTLR.TRE set: Cortex-A5, A8, A9, which have no
//!   LPAE): a descriptor's TEX\[0\], C and B bits select region `n` of eight; PRRR's TRn says
//!   Strongly-ordered, Device or Normal, NMRR's IRn and ORn the Normal region's inner and
//!   outer cacheability: non-cacheable, write-back write-allocate, write-through, or
//!   write-back no write-allocate ([`Region`]; read allocation is implied).
//!
//! A type keeps its row, so its slot (AttrIndx, or TEX remap region) is its position in
//! [`MEMTYPES`](super::MEMTYPES) on both architectures. Armv8's Device-nGnRnE and Device-nGnRE are ARMv7's
//! Strongly-ordered and Device (the Armv8 Arm ARM, DDI 0487, "Device memory": each is
//! "equivalent to" the earlier type), so those rows keep their names; nGRE and GRE have no
//! ARMv7 encoding. The write-back row with allocation hints is, on ARMv7, write-back with
//! read allocation and no write allocation: Linux's `writeback` policy, what a kernel built
//! without CONFIG_SMP maps RAM with (the public report "PROBLEM: ARM Cache policy on single
//! armv7 processor lead to low DRAM performance", Zhao Yibin), and the one write-back policy
//! besides write-allocate that TEX remap can express; it is named for it,
//! `normal-wb-nowa`.
//!
//! References: Arm ARM for ARMv7-A and ARMv7-R (DDI 0406C), the register descriptions
//! "MAIR0 and MAIR1", "PRRR" and "NMRR", and "Short-descriptor format memory region
//! attributes, with TEX remap". Linux programs the same registers: arch/arm/mm/
//! proc-v7-3level.S (MAIR0 `0xeeaa4400`, MAIR1 `0xff000004`) and proc-v7-2level.S (PRRR
//! `0xff0a81a8`, NMRR `0x40e040e0`), which the tests decode.

use super::MEMTYPES as ROWS;
use super::{describe_mair_byte, Cacheability, DeviceType, MairAttr, MemType};

/// A Normal region's cacheability under TEX remap: NMRR's IRn or ORn field (its value is
/// the discriminant).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Region {
    /// `0b00`: non-cacheable.
    NonCacheable = 0b00,
    /// `0b01`: write-back, write-allocate.
    WriteBackWriteAllocate = 0b01,
    /// `0b10`: write-through, no write-allocate.
    WriteThrough = 0b10,
    /// `0b11`: write-back, no write-allocate.
    WriteBackNoWriteAllocate = 0b11,
}

/// What a TEX remap region is: PRRR's TRn, and for Normal memory NMRR's IRn and ORn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Remap {
    /// TRn `0b00`: Strongly-ordered.
    StronglyOrdered,
    /// TRn `0b01`: Device.
    Device,
    /// TRn `0b10`: Normal, with its inner and outer cacheability.
    Normal {
        /// NMRR.IRn.
        inner: Region,
        /// NMRR.ORn.
        outer: Region,
    },
}

impl core::fmt::Display for Remap {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let (level, words) = match self {
            Remap::StronglyOrdered => return f.write_str("`0b00` Strongly-ordered"),
            Remap::Device => return f.write_str("`0b01` Device"),
            Remap::Normal { inner, outer } if inner != outer => {
                return write!(
                    f,
                    "`0b10` Normal, IRn `{:#04b}`, ORn `{:#04b}`",
                    *inner as u8, *outer as u8
                )
            }
            Remap::Normal { inner, .. } => (*inner as u8, inner.words()),
        };
        write!(f, "`0b10` Normal; `{level:#04b}` {words}")
    }
}

impl Region {
    /// The region's cacheability in words.
    pub const fn words(self) -> &'static str {
        match self {
            Region::NonCacheable => "non-cacheable",
            Region::WriteBackWriteAllocate => "write-back, write-allocate",
            Region::WriteThrough => "write-through",
            Region::WriteBackNoWriteAllocate => "write-back, no write-allocate",
        }
    }
}

/// One memory type on ARMv7-A.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Armv7Type {
    /// Its name on ARMv7: the row's, but where the encoding differs from the AArch64 one.
    pub name: &'static str,
    /// Its MAIR0/MAIR1 attribute byte under LPAE.
    pub lpae: u8,
    /// Its region under TEX remap.
    pub remap: Remap,
    /// The type in words, as [`describe_lpae_byte`] prints its byte.
    pub summary: &'static str,
}

const fn normal(name: &'static str, lpae: u8, level: Region, summary: &'static str) -> Armv7Type {
    Armv7Type {
        name,
        lpae,
        remap: Remap::Normal {
            inner: level,
            outer: level,
        },
        summary,
    }
}

/// The ARMv7 columns of the memory-type table: entry `i` is row `i` of [`MEMTYPES`](super::MEMTYPES) on
/// ARMv7-A, `None` where ARMv7 has no such type. Kept beside the table rather than in its
/// rows so that the AArch64 image, which never reads them, holds none of them.
pub const ARMV7: [Option<Armv7Type>; ROWS.len()] = [
    Some(normal(
        "normal-wb",
        0xff,
        Region::WriteBackWriteAllocate,
        "Normal, inner+outer write-back, read+write allocate",
    )),
    Some(normal(
        "normal-wb-nowa",
        0xee,
        Region::WriteBackNoWriteAllocate,
        "Normal, inner+outer write-back, read allocate",
    )),
    Some(normal(
        "normal-wt",
        0xaa,
        Region::WriteThrough,
        "Normal, inner+outer write-through, read allocate",
    )),
    Some(normal(
        "normal-nc",
        0x44,
        Region::NonCacheable,
        "Normal, inner+outer non-cacheable",
    )),
    Some(Armv7Type {
        name: "device-ngnrne",
        lpae: 0x00,
        remap: Remap::StronglyOrdered,
        summary: "Strongly-ordered",
    }),
    Some(Armv7Type {
        name: "device-ngnre",
        lpae: 0x04,
        remap: Remap::Device,
        summary: "Device",
    }),
    None,
    None,
];

/// The memory types the 32-bit image maps, in slot order: the rows of the table ARMv7 has
/// (the first six; Device-nGRE and Device-GRE have no ARMv7 encoding), with ARMv7's names,
/// LPAE attribute bytes (in `mair`, the MAIR0/MAIR1 byte) and summaries. A row's role (what it
/// stands for in the comparisons) is the table's: `normal-wb-nowa` is the write-back row
/// without write allocation.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)] // bounded by the loop
pub const MEMTYPES: [MemType; 6] = {
    let mut out = [ROWS[0]; 6];
    let mut i = 0;
    while i < out.len() {
        let row = ROWS[i];
        let Some(t) = ARMV7[i] else {
            panic!("each of the first six rows has an ARMv7 type")
        };
        out[i] = MemType {
            name: t.name,
            index: row.index,
            mair: t.lpae,
            role: row.role,
            summary: t.summary,
        };
        i += 1;
    }
    out
};

/// The ARMv7 type called `name`, with its slot (its row in [`MEMTYPES`](super::MEMTYPES)).
pub fn by_name(name: &str) -> Option<(usize, &'static Armv7Type)> {
    ARMV7
        .iter()
        .enumerate()
        .find_map(|(i, t)| t.as_ref().filter(|t| t.name == name).map(|t| (i, t)))
}

/// MAIR0 and MAIR1 under LPAE: attribute byte `n` (MAIR0 for slots 0-3, MAIR1 for 4-7,
/// slot `n % 4` at bits `[8k+7:8k]`) is the [`ARMV7`] entry's; a slot without a type holds
/// `0x00`, Strongly-ordered, which no descriptor selects.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)] // bounded by the loop
pub const fn mair0_mair1() -> (u32, u32) {
    let (mut mair0, mut mair1) = (0u32, 0u32);
    let mut n = 0;
    while n < ARMV7.len() {
        if let Some(t) = ARMV7[n] {
            let byte = (t.lpae as u32) << (8 * (n % 4));
            if n < 4 {
                mair0 |= byte;
            } else {
                mair1 |= byte;
            }
        }
        n += 1;
    }
    (mair0, mair1)
}

/// MAIR0 under LPAE ([`mair0_mair1`]).
pub const MAIR0: u32 = mair0_mair1().0;
/// MAIR1 under LPAE ([`mair0_mair1`]).
pub const MAIR1: u32 = mair0_mair1().1;

/// PRRR's shareability bits, as Linux's proc-v7-2level.S sets them (`0xff0a0000` of its
/// PRRR): DS0 = 0 and DS1 = 1 (a Device region is Shareable when its descriptor's S bit is
/// set), NS0 = 0 and NS1 = 1 (likewise for Normal regions), NOSn = 1 (a Shareable Normal
/// region is Inner Shareable, not Outer).
pub const PRRR_SHAREABILITY: u32 = 0xff0a_0000;

/// PRRR and NMRR under TEX remap: region `n` is the [`ARMV7`] entry `n`'s; a region without
/// a type is Strongly-ordered (TRn = 0), which no descriptor selects.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)] // bounded by the loop
pub const fn prrr_nmrr() -> (u32, u32) {
    let (mut prrr, mut nmrr) = (PRRR_SHAREABILITY, 0);
    // Region n's fields are at bit 2n (TRn, IRn) and 16 + 2n (ORn).
    let mut n = 0;
    while n < ARMV7.len() {
        let at = 2 * n as u32;
        if let Some(t) = ARMV7[n] {
            match t.remap {
                Remap::StronglyOrdered => {}
                Remap::Device => prrr |= 0b01 << at,
                Remap::Normal { inner, outer } => {
                    prrr |= 0b10 << at;
                    nmrr |= (inner as u32) << at | (outer as u32) << (at + 16);
                }
            }
        }
        n += 1;
    }
    (prrr, nmrr)
}

/// PRRR under TEX remap ([`prrr_nmrr`]).
pub const PRRR: u32 = prrr_nmrr().0;
/// NMRR under TEX remap ([`prrr_nmrr`]).
pub const NMRR: u32 = prrr_nmrr().1;

/// What region `n` (0-7) of `prrr` and `nmrr` is; `None` for TRn = `0b11`, which the
/// architecture reserves.
pub fn decode_remap(prrr: u32, nmrr: u32, n: u8) -> Option<Remap> {
    let at = u32::from(n & 7).wrapping_mul(2);
    let region = |v: u32| match v & 0b11 {
        0b00 => Region::NonCacheable,
        0b01 => Region::WriteBackWriteAllocate,
        0b10 => Region::WriteThrough,
        _ => Region::WriteBackNoWriteAllocate,
    };
    match (prrr >> at) & 0b11 {
        0b00 => Some(Remap::StronglyOrdered),
        0b01 => Some(Remap::Device),
        0b10 => Some(Remap::Normal {
            inner: region(nmrr >> at),
            outer: region(nmrr >> at.wrapping_add(16)),
        }),
        _ => None,
    }
}

/// The TEX\[0\], C and B bits of a short descriptor that select TEX remap region `n`
/// (`n = TEX[0]:C:B`).
pub const fn remap_bits(n: u8) -> (bool, bool, bool) {
    (n & 0b100 != 0, n & 0b010 != 0, n & 0b001 != 0)
}

/// Decodes a MAIR0/MAIR1 attribute byte as ARMv7-A defines it: `0x00` Strongly-ordered
/// (reported as Device-nGnRnE, its Armv8 equivalent), `0x04` Device (Device-nGnRE); Normal
/// memory as MAIR_EL1's non-transient encodings `0b10RW` and `0b11RW` and `0b0100`;
/// everything else, Armv8's nGRE and GRE and its transient encodings among them, is
/// UNPREDICTABLE on ARMv7.
pub fn describe_lpae_byte(b: u8) -> MairAttr {
    let nibble_ok = |f: u8| f == 0b0100 || f & 0b1000 != 0;
    match describe_mair_byte(b) {
        MairAttr::Device(DeviceType::NGRE | DeviceType::GRE) => MairAttr::Unpredictable(b),
        MairAttr::Normal { .. } if !nibble_ok(b >> 4) || !nibble_ok(b & 0xf) => {
            MairAttr::Unpredictable(b)
        }
        attr => attr,
    }
}

/// The TEX remap region an LPAE attribute byte's Normal cacheability corresponds to (read
/// allocation, which TEX remap implies, left aside); `None` for a write-through level with
/// write allocation, which TEX remap cannot express.
pub fn region_of(level: Cacheability) -> Option<Region> {
    match level {
        Cacheability::NonCacheable => Some(Region::NonCacheable),
        Cacheability::WriteBack(p) if p.write_allocate => Some(Region::WriteBackWriteAllocate),
        Cacheability::WriteBack(_) => Some(Region::WriteBackNoWriteAllocate),
        Cacheability::WriteThrough(p) if !p.write_allocate => Some(Region::WriteThrough),
        Cacheability::WriteThrough(_) => None,
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::memtype::Role;
    use std::string::ToString;

    /// Linux's LPAE values (proc-v7-3level.S): slot 0 Strongly-ordered (UNCACHED), 1
    /// non-cacheable (BUFFERABLE), 2 write-through (WRITETHROUGH), 3 write-back without
    /// write allocation (WRITEBACK, the UP policy), 4 Device (DEV_SHARED), 7 write-back
    /// write-allocate (WRITEALLOC, the SMP policy).
    #[test]
    fn linux_lpae_mair_decodes_to_its_policies() {
        let (mair0, mair1): (u32, u32) = (0xeeaa_4400, 0xff00_0004);
        let byte = |n: u32| {
            let word = if n < 4 { mair0 } else { mair1 };
            (word >> (8 * (n % 4))) as u8
        };
        let text = |n| describe_lpae_byte(byte(n)).to_string();
        assert_eq!(
            text(0),
            "Device-nGnRnE (non-gathering, non-reordering, no early write acknowledgement)"
        );
        assert_eq!(text(1), "Normal, inner+outer non-cacheable");
        assert_eq!(
            text(2),
            "Normal, inner+outer write-through non-transient, read allocate"
        );
        assert_eq!(
            text(3),
            "Normal, inner+outer write-back non-transient, read allocate"
        );
        assert_eq!(
            describe_lpae_byte(byte(4)),
            MairAttr::Device(DeviceType::NGnRE)
        );
        assert_eq!(
            text(7),
            "Normal, inner+outer write-back non-transient, read+write allocate"
        );
        // Ours: the same bytes where Linux has the type (its WRITEBACK is our nowa).
        let ours = |name| by_name(name).unwrap().1.lpae;
        assert_eq!(ours("normal-wb"), byte(7));
        assert_eq!(ours("normal-wb-nowa"), byte(3));
        assert_eq!(ours("normal-wt"), byte(2));
        assert_eq!(ours("normal-nc"), byte(1));
        assert_eq!(ours("device-ngnrne"), byte(0));
        assert_eq!(ours("device-ngnre"), byte(4));
    }

    /// Linux's TEX remap values (proc-v7-2level.S, its table of n, TR, IR, OR): 0
    /// UNCACHED Strongly-ordered, 1 BUFFERABLE Normal non-cacheable, 2 WRITETHROUGH, 3
    /// WRITEBACK (write-back, no write allocation), 4 DEV_SHARED Device, 7 WRITEALLOC.
    #[test]
    fn linux_tex_remap_decodes_to_its_policies() {
        let (prrr, nmrr) = (0xff0a_81a8, 0x40e0_40e0);
        let normal = |r| Some(Remap::Normal { inner: r, outer: r });
        assert_eq!(decode_remap(prrr, nmrr, 0), Some(Remap::StronglyOrdered));
        assert_eq!(decode_remap(prrr, nmrr, 1), normal(Region::NonCacheable));
        assert_eq!(decode_remap(prrr, nmrr, 2), normal(Region::WriteThrough));
        assert_eq!(
            decode_remap(prrr, nmrr, 3),
            normal(Region::WriteBackNoWriteAllocate)
        );
        assert_eq!(decode_remap(prrr, nmrr, 4), Some(Remap::Device));
        assert_eq!(
            decode_remap(prrr, nmrr, 7),
            normal(Region::WriteBackWriteAllocate)
        );
        assert_eq!(prrr & 0xffff_0000, PRRR_SHAREABILITY);
        assert_eq!(decode_remap(0b11, 0, 0), None, "TRn 0b11 is reserved");
    }

    /// Ours, encoded and decoded again: every region is its entry's, and the unused ones
    /// are Strongly-ordered.
    #[test]
    fn our_registers_decode_to_the_table() {
        let (prrr, nmrr) = prrr_nmrr();
        let (mair0, mair1) = mair0_mair1();
        for n in 0..8u8 {
            let t = ARMV7[usize::from(n)];
            let want = t.map_or(Remap::StronglyOrdered, |t| t.remap);
            assert_eq!(decode_remap(prrr, nmrr, n), Some(want), "region {n}");
            let word = if n < 4 { mair0 } else { mair1 };
            let byte = (word >> (8 * (n % 4))) as u8;
            assert_eq!(byte, t.map_or(0, |t| t.lpae), "slot {n}");
        }
        // By hand: slots 3..0 are 44 aa ee ff, 7..4 00 00 04 00.
        assert_eq!((mair0, mair1), (0x44aa_eeff, 0x0000_0400));
        assert_eq!(prrr, 0xff0a_04aa);
        assert_eq!(nmrr, 0x002d_002d);
        assert_eq!(remap_bits(3), (false, true, true));
        assert_eq!(remap_bits(5), (true, false, true));
    }

    /// Each entry's two encodings are one type: the LPAE byte decodes (as ARMv7 defines it)
    /// to the row's class, to the summary, and to the TEX remap region.
    #[test]
    fn each_entry_is_one_type_under_both_regimes() {
        for (i, t) in ARMV7.iter().enumerate() {
            let Some(t) = t else { continue };
            let row = &ROWS[i];
            let attr = describe_lpae_byte(t.lpae);
            assert_eq!(attr.class(), Some(row.class()), "{}", t.name);
            assert_eq!(by_name(t.name), Some((i, t)));
            match (attr, t.remap) {
                (
                    MairAttr::Normal { inner, outer },
                    Remap::Normal {
                        inner: i2,
                        outer: o2,
                    },
                ) => {
                    assert_eq!(region_of(inner), Some(i2), "{}", t.name);
                    assert_eq!(region_of(outer), Some(o2), "{}", t.name);
                    let words = attr.to_string().replace(" non-transient", "");
                    assert_eq!(words, t.summary, "{}", t.name);
                }
                (MairAttr::Device(DeviceType::NGnRnE), Remap::StronglyOrdered) => {
                    assert_eq!(t.summary, "Strongly-ordered");
                }
                (MairAttr::Device(DeviceType::NGnRE), Remap::Device) => {
                    assert_eq!(t.summary, "Device");
                }
                other => panic!("{}: {other:?}", t.name),
            }
            // The same name on both architectures, but for the write-back type with hints,
            // whose ARMv7 one allocates on reads.
            assert_eq!(
                t.name == row.name,
                row.role != Role::WriteBackHinted,
                "{}",
                t.name
            );
        }
        assert_eq!(by_name("normal-wb").unwrap().1.lpae, ROWS[0].mair);
        // The report's policy is there, with its own name; Armv8's reordering Device
        // types are not.
        assert!(by_name("normal-wb-nowa").is_some());
        assert!(by_name("normal-wb-noalloc").is_none());
        assert!(by_name("device-ngre").is_none() && by_name("device-gre").is_none());
    }

    #[test]
    fn armv7_lpae_bytes() {
        // Armv8-only encodings are UNPREDICTABLE on ARMv7.
        for b in [0x08, 0x0c, 0x11, 0x72, 0x1f, 0x40] {
            assert_eq!(describe_lpae_byte(b), MairAttr::Unpredictable(b), "{b:#x}");
        }
        // Exactly 2 Device + 9 * 9 Normal encodings (per level: 0b0100, 0b10RW, 0b11RW).
        let defined = (0..=255u8)
            .filter(|&b| describe_lpae_byte(b) != MairAttr::Unpredictable(b))
            .count();
        assert_eq!(defined, 2 + 9 * 9);
    }

    #[test]
    fn the_32_bit_types_are_the_rows_armv7_has() {
        assert_eq!(MEMTYPES.len(), ARMV7.iter().flatten().count());
        for (i, t) in MEMTYPES.iter().enumerate() {
            let v7 = ARMV7[i].unwrap();
            assert_eq!((t.index as usize, t.name, t.mair), (i, v7.name, v7.lpae));
            assert_eq!(t.role, ROWS[i].role);
        }
        assert_eq!(MEMTYPES[1].name, "normal-wb-nowa");
        let (mair0, mair1) = mair0_mair1();
        let bytes = [mair0.to_le_bytes(), mair1.to_le_bytes()].concat();
        assert!(MEMTYPES.iter().all(|t| bytes[t.index as usize] == t.mair));
    }
}
