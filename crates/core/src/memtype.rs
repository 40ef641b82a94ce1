//! The memory types under test: the one table ([`MEMTYPES`]) from which the MAIR value,
//! the descriptors' AttrIndx and the report's names all derive.
//!
//! Arm ARM (DDI 0487) references: "Memory region attributes" in chapter D8, "The
//! AArch64 Virtual Memory System Architecture" (a descriptor's AttrIndx selects one of
//! the eight attribute fields of MAIR_EL1); the register description "MAIR_EL1, Memory
//! Attribute Indirection Register (EL1)" (the field encoding [`describe_mair_byte`]
//! decodes); and "Memory types and attributes" in chapter B2, "The AArch64 Application
//! Level Memory Model" (what Device-nGnRnE, write-back, transient, ... mean).

use core::fmt;

pub mod armv7;

/// What kind of memory a [`MemType`] is, as far as the benchmark cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    /// Normal memory.
    Normal {
        /// Cacheable at the inner or the outer level (or both).
        cacheable: bool,
    },
    /// Device memory (never cached).
    Device,
}

/// What a memory type stands for in the comparisons the verdicts and reports make. Code that
/// needs "the write-back type" or "the Device types" asks the table by role
/// ([`position`], [`with_role`]), never by name, so a type renamed or re-encoded in
/// [`MEMTYPES`] keeps its part.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// The reference: Normal write-back with read and write allocation, what an operating
    /// system gives its heap (and the firmware its own image, stack and tables).
    WriteBack,
    /// Write-back with other allocation or transient hints, set against [`Role::WriteBack`]
    /// to show whether the core honours the hints.
    WriteBackHinted,
    /// Normal write-through.
    WriteThrough,
    /// Normal non-cacheable.
    NonCacheable,
    /// Device memory (never cached).
    Device,
}

impl Role {
    /// The [`Class`] every type of this role has.
    pub const fn class(self) -> Class {
        match self {
            Role::WriteBack | Role::WriteBackHinted | Role::WriteThrough => {
                Class::Normal { cacheable: true }
            }
            Role::NonCacheable => Class::Normal { cacheable: false },
            Role::Device => Class::Device,
        }
    }
}

/// One memory type: a MAIR_EL1 attribute field and the slot it occupies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MemType {
    /// Name used on the command line and in the report, e.g. `normal-wb`.
    pub name: &'static str,
    /// MAIR_EL1 slot, i.e. the descriptors' AttrIndx (equals the position in [`MEMTYPES`]).
    pub index: u8,
    /// The MAIR_EL1 attribute byte.
    pub mair: u8,
    /// What it stands for in the comparisons (its [`Class`] follows from it).
    pub role: Role,
    /// The attribute byte in words, as [`describe_mair_byte`] prints it.
    pub summary: &'static str,
}

/// Every memory type, in MAIR slot order (`MEMTYPES[i].index == i`).
pub const MEMTYPES: [MemType; 8] = [
    MemType {
        name: "normal-wb",
        index: 0,
        mair: 0xff,
        role: Role::WriteBack,
        summary: "Normal, inner+outer write-back non-transient, read+write allocate",
    },
    MemType {
        name: "normal-wb-noalloc",
        index: 1,
        mair: 0xcc,
        role: Role::WriteBackHinted,
        summary: "Normal, inner+outer write-back non-transient, no allocate",
    },
    MemType {
        name: "normal-wt",
        index: 2,
        mair: 0xbb,
        role: Role::WriteThrough,
        summary: "Normal, inner+outer write-through non-transient, read+write allocate",
    },
    MemType {
        name: "normal-nc",
        index: 3,
        mair: 0x44,
        role: Role::NonCacheable,
        summary: "Normal, inner+outer non-cacheable",
    },
    MemType {
        name: "device-ngnrne",
        index: 4,
        mair: 0x00,
        role: Role::Device,
        summary: "Device-nGnRnE (non-gathering, non-reordering, no early write acknowledgement)",
    },
    MemType {
        name: "device-ngnre",
        index: 5,
        mair: 0x04,
        role: Role::Device,
        summary: "Device-nGnRE (non-gathering, non-reordering, early write acknowledgement)",
    },
    MemType {
        name: "device-ngre",
        index: 6,
        mair: 0x08,
        role: Role::Device,
        summary: "Device-nGRE (non-gathering, reordering, early write acknowledgement)",
    },
    MemType {
        name: "device-gre",
        index: 7,
        mair: 0x0c,
        role: Role::Device,
        summary: "Device-GRE (gathering, reordering, early write acknowledgement)",
    },
];

impl MemType {
    /// Normal (cacheable or not) or Device, from its [`Role`].
    pub const fn class(&self) -> Class {
        self.role.class()
    }
}

/// Position in [`MEMTYPES`] of the first type whose MAIR byte satisfies `wanted`
/// (`MEMTYPES.len()` when none does; the constants below assert they found one).
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)] // bounded by the loop
const fn first(wanted: Wanted) -> usize {
    let mut i = 0;
    while i < MEMTYPES.len() {
        let t = &MEMTYPES[i];
        let hit = match wanted {
            Wanted::Role(r) => t.role as u8 == r as u8,
            Wanted::Mair(m) => t.mair == m,
        };
        if hit {
            return i;
        }
        i += 1;
    }
    MEMTYPES.len()
}

#[derive(Clone, Copy)]
enum Wanted {
    Role(Role),
    Mair(u8),
}

/// Position in [`MEMTYPES`] of the first type of `role`, if the table has one.
pub const fn position(role: Role) -> Option<usize> {
    match first(Wanted::Role(role)) {
        i if i < MEMTYPES.len() => Some(i),
        _ => None,
    }
}

/// The types of `role`, in table order.
pub fn with_role(role: Role) -> impl Iterator<Item = &'static MemType> + Clone {
    MEMTYPES.iter().filter(move |t| t.role == role)
}

/// Position in [`MEMTYPES`] of the [`Role::WriteBack`] type, the reference every other type
/// is set against and what the firmware maps its own image, stack and page tables with.
pub const NORMAL_WB: usize = first(Wanted::Role(Role::WriteBack));

/// Position in [`MEMTYPES`] of the type the firmware maps MMIO (the UART) with:
/// Device-nGnRnE (MAIR byte `0x00`), the strictest, Linux's `pgprot_noncached`.
pub const DEVICE_NGNRNE: usize = first(Wanted::Mair(0x00));

/// Position in [`MEMTYPES`] of Device-nGnRE (MAIR byte `0x04`), what Linux's
/// `pgprot_device` maps (a PCI BAR, the dma-buf of the public report "Performance Anomaly
/// Investigation"): `device-read-cliff` looks at it first.
pub const DEVICE_NGNRE: usize = first(Wanted::Mair(0x04));

crate::assert_in_order!(MEMTYPES.index);
// The positions above found their type, checked at compile time (a slip here is a build
// error, never a panic).
#[allow(clippy::indexing_slicing, clippy::panic)]
const _: () = {
    assert!(NORMAL_WB < MEMTYPES.len() && MEMTYPES[NORMAL_WB].mair == 0xff);
    assert!(DEVICE_NGNRNE < MEMTYPES.len());
    assert!(DEVICE_NGNRE < MEMTYPES.len());
    assert!(MEMTYPES[DEVICE_NGNRNE].role as u8 == Role::Device as u8);
    assert!(MEMTYPES[DEVICE_NGNRE].role as u8 == Role::Device as u8);
};

/// The memory type called `name` (exact match), if any.
pub fn by_name(name: &str) -> Option<&'static MemType> {
    MEMTYPES.iter().find(|t| t.name == name)
}

/// The memory type called `name` by either architecture (exact match): a row of
/// [`MEMTYPES`] by its name, or a row of [`armv7::MEMTYPES`] by its ARMv7 name
/// (`normal-wb-nowa`). Either way its `index` is its row and its `role` the row's, so records
/// of both architectures are compared by row. Not in the AArch64 image, which never reads
/// ARMv7 names (as [`crate::kernel::by_name`] finds A32 names outside it only).
#[cfg(not(target_arch = "aarch64"))]
pub fn by_any_name(name: &str) -> Option<&'static MemType> {
    by_name(name).or_else(|| armv7::MEMTYPES.iter().find(|t| t.name == name))
}

/// The MAIR_EL1 value: attribute field `n` (bits `[8n+7:8n]`) is `MEMTYPES[n].mair`.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)] // bounded by the loop
pub const fn mair_el1() -> u64 {
    let mut value = 0;
    let mut i = 0;
    while i < MEMTYPES.len() {
        value |= (MEMTYPES[i].mair as u64) << (8 * MEMTYPES[i].index as u32);
        i += 1;
    }
    value
}

/// What Linux maps with each type, by row of [`MEMTYPES`], for the documentation (kept
/// beside the table, as [`armv7::ARMV7`] is, so that the image holds none of it): arm64's
/// arch/arm64/include/asm/pgtable.h and memory.h (`MT_*`, `pgprot_*`), 32-bit Arm's
/// arch/arm/mm/proc-v7-3level.S and mmu.c (`L_PTE_MT_*`, the cache policies).
pub const LINUX: [&str; MEMTYPES.len()] = [
    "arm64 `MT_NORMAL` (RAM, `PAGE_KERNEL`); arm `writealloc` (RAM of an SMP kernel)",
    "arm64: none; arm `writeback` (RAM of a kernel without CONFIG_SMP), the ARMv7 type",
    "arm64: none; arm `writethrough`",
    "arm64 `MT_NORMAL_NC` (`pgprot_writecombine`); arm `L_PTE_MT_BUFFERABLE`",
    "arm64 `MT_DEVICE_nGnRnE` (`pgprot_noncached`); arm `L_PTE_MT_UNCACHED`",
    "arm64 `MT_DEVICE_nGnRE` (`pgprot_device`, `ioremap`, many dma-bufs); arm `L_PTE_MT_DEV_SHARED`",
    "none",
    "none",
];

/// Writes the table as Markdown: one row per slot with its AArch64 type (name, MAIR_EL1
/// byte, meaning), its ARMv7 type (name, MAIR0/MAIR1 byte under LPAE, TEX remap region)
/// and what Linux maps with it. `docs/memory-types.md` holds exactly this between its
/// `memtypes` markers.
pub fn write_markdown<W: fmt::Write + ?Sized>(w: &mut W) -> fmt::Result {
    w.write_str(
        "| slot | AArch64 name | MAIR_EL1 | meaning | ARMv7 name | LPAE MAIR0/1 | TEX remap \
         (TRn; IRn = ORn) | Linux |\n|---|---|---|---|---|---|---|---|\n",
    )?;
    for ((t, v7), linux) in MEMTYPES.iter().zip(&armv7::ARMV7).zip(LINUX) {
        write!(
            w,
            "| {} | `{}` | `{:#04x}` | {} |",
            t.index, t.name, t.mair, t.summary
        )?;
        match v7 {
            Some(v) => write!(w, " `{}` | `{:#04x}` | {} |", v.name, v.lpae, v.remap)?,
            None => w.write_str(" none | - | - |")?,
        }
        writeln!(w, " {linux} |")?;
    }
    Ok(())
}

/// The cacheability of one level (inner or outer) of a Normal memory attribute.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cacheability {
    /// Non-cacheable (`0b0100`).
    NonCacheable,
    /// Write-through cacheable.
    WriteThrough(Policy),
    /// Write-back cacheable.
    WriteBack(Policy),
}

/// Allocation hints of a cacheable level.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Policy {
    /// Transient hint (the data is expected to be used only briefly).
    pub transient: bool,
    /// Read-allocate hint (R, bit 1 of the 4-bit field).
    pub read_allocate: bool,
    /// Write-allocate hint (W, bit 0 of the 4-bit field).
    pub write_allocate: bool,
}

/// The four Device memory types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeviceType {
    /// Non-gathering, non-reordering, no early write acknowledgement.
    NGnRnE,
    /// Non-gathering, non-reordering, early write acknowledgement.
    NGnRE,
    /// Non-gathering, reordering, early write acknowledgement.
    NGRE,
    /// Gathering, reordering, early write acknowledgement.
    GRE,
}

/// A MAIR attribute byte, decoded by [`describe_mair_byte`]; `Display` prints it in words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MairAttr {
    /// Device memory (`0b0000_dd00`).
    Device(DeviceType),
    /// Normal memory.
    Normal {
        /// Inner cacheability (bits \[3:0\]).
        inner: Cacheability,
        /// Outer cacheability (bits \[7:4\]).
        outer: Cacheability,
    },
    /// An encoding the base architecture calls UNPREDICTABLE or reserved.
    Unpredictable(u8),
}

impl MairAttr {
    /// The [`Class`] of this attribute; `None` for [`MairAttr::Unpredictable`].
    pub fn class(&self) -> Option<Class> {
        match *self {
            MairAttr::Device(_) => Some(Class::Device),
            MairAttr::Normal { inner, outer } => Some(Class::Normal {
                cacheable: inner != Cacheability::NonCacheable
                    || outer != Cacheability::NonCacheable,
            }),
            MairAttr::Unpredictable(_) => None,
        }
    }
}

/// Decodes one 4-bit Normal-memory cacheability field (`0b0000` is not Normal memory).
fn cacheability(field: u8) -> Option<Cacheability> {
    let policy = Policy {
        transient: field & 0b1000 == 0,
        read_allocate: field & 0b0010 != 0,
        write_allocate: field & 0b0001 != 0,
    };
    match field & 0xf {
        0b0100 => Some(Cacheability::NonCacheable),
        // 0b00RW and 0b01RW are transient only with RW != 0b00.
        0b0000 => None,
        0b0001..=0b0011 | 0b1000..=0b1011 => Some(Cacheability::WriteThrough(policy)),
        _ => Some(Cacheability::WriteBack(policy)),
    }
}

/// Decodes any MAIR attribute byte per the Arm ARM's MAIR_EL1 `Attr<n>` encoding, e.g.
/// to print what PAR_EL1.ATTR reported for a translation. Independent of [`MEMTYPES`].
///
/// * `0b0000_dd00`: Device memory, `dd` = nGnRnE, nGnRE, nGRE, GRE.
/// * `0bOOOO_IIII` with outer `O` and inner `I` each one of `0b0100` non-cacheable,
///   `0b00RW` write-through transient, `0b01RW` write-back transient (both with
///   `RW != 0b00`), `0b10RW` write-through non-transient, `0b11RW` write-back
///   non-transient; `R`/`W` are the read/write-allocate hints.
/// * Anything else (`0b0000_xx01`..`0b0000_xx11`, an inner field of `0b0000`) is
///   UNPREDICTABLE in the base architecture. (FEAT_XS and FEAT_MTE2 give a few of these
///   encodings meanings, e.g. `0xf0` Tagged Normal; they are reported as unpredictable.)
pub fn describe_mair_byte(b: u8) -> MairAttr {
    let (outer, inner) = (b >> 4, b & 0xf);
    if outer == 0 {
        return match inner {
            0b0000 => MairAttr::Device(DeviceType::NGnRnE),
            0b0100 => MairAttr::Device(DeviceType::NGnRE),
            0b1000 => MairAttr::Device(DeviceType::NGRE),
            0b1100 => MairAttr::Device(DeviceType::GRE),
            _ => MairAttr::Unpredictable(b),
        };
    }
    match (cacheability(inner), cacheability(outer)) {
        (Some(inner), Some(outer)) => MairAttr::Normal { inner, outer },
        _ => MairAttr::Unpredictable(b),
    }
}

impl fmt::Display for Cacheability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (kind, p) = match *self {
            Cacheability::NonCacheable => return f.write_str("non-cacheable"),
            Cacheability::WriteThrough(p) => ("write-through", p),
            Cacheability::WriteBack(p) => ("write-back", p),
        };
        let transient = if p.transient {
            "transient"
        } else {
            "non-transient"
        };
        let alloc = match (p.read_allocate, p.write_allocate) {
            (true, true) => "read+write allocate",
            (true, false) => "read allocate",
            (false, true) => "write allocate",
            (false, false) => "no allocate",
        };
        write!(f, "{kind} {transient}, {alloc}")
    }
}

impl fmt::Display for DeviceType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DeviceType::NGnRnE => {
                "Device-nGnRnE (non-gathering, non-reordering, no early write acknowledgement)"
            }
            DeviceType::NGnRE => {
                "Device-nGnRE (non-gathering, non-reordering, early write acknowledgement)"
            }
            DeviceType::NGRE => {
                "Device-nGRE (non-gathering, reordering, early write acknowledgement)"
            }
            DeviceType::GRE => "Device-GRE (gathering, reordering, early write acknowledgement)",
        })
    }
}

impl fmt::Display for MairAttr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MairAttr::Device(d) => fmt::Display::fmt(d, f),
            MairAttr::Normal { inner, outer } if inner == outer => {
                write!(f, "Normal, inner+outer {inner}")
            }
            MairAttr::Normal { inner, outer } => write!(f, "Normal, inner {inner}, outer {outer}"),
            // The byte as a u64: the image's one hexadecimal formatter, not a u8 one too.
            MairAttr::Unpredictable(b) => {
                write!(f, "UNPREDICTABLE or reserved ({:#04x})", u64::from(*b))
            }
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    #[cfg(target_pointer_width = "64")]
    use aarch64_paging::mair::{Mair, MairAttribute, NormalMemory};
    use std::string::ToString;

    #[test]
    fn mair_value_by_hand() {
        // Slot n is byte n, slot 0 the lowest: the table's bytes read as a little-endian
        // word (computed here without mair_el1's shifts). The shipped table, slot 7 .. slot
        // 0, is device-gre 0c, device-ngre 08, device-ngnre 04, device-ngnrne 00, normal-nc
        // 44, normal-wt bb, normal-wb-noalloc cc, normal-wb ff: 0x0c08_0400_44bb_ccff.
        let bytes: [u8; 8] = core::array::from_fn(|i| MEMTYPES[i].mair);
        assert_eq!(mair_el1(), u64::from_le_bytes(bytes));
    }

    #[test]
    fn table_shape() {
        for (i, t) in MEMTYPES.iter().enumerate() {
            assert_eq!(t.index as usize, i, "{}", t.name);
            assert_eq!(by_name(t.name), Some(t));
        }
        assert_eq!(MEMTYPES[NORMAL_WB].name, "normal-wb");
        assert_eq!(MEMTYPES[DEVICE_NGNRNE].name, "device-ngnrne");
        assert_eq!(by_name("normal"), None);
        assert_eq!(by_name("Normal-WB"), None);
        assert_eq!(by_name(""), None);
    }

    /// Each table byte decoded independently: class and summary agree with the table.
    #[test]
    fn table_bytes_decode_to_their_class_and_summary() {
        for t in &MEMTYPES {
            let d = describe_mair_byte(t.mair);
            assert_eq!(d.class(), Some(t.class()), "{}", t.name);
            assert_eq!(d.to_string(), t.summary, "{}", t.name);
        }
    }

    #[test]
    fn decoded_policies_by_hand() {
        let wb = |r, w| {
            Cacheability::WriteBack(Policy {
                transient: false,
                read_allocate: r,
                write_allocate: w,
            })
        };
        let wt = |r, w| {
            Cacheability::WriteThrough(Policy {
                transient: false,
                read_allocate: r,
                write_allocate: w,
            })
        };
        let normal = |c| MairAttr::Normal { inner: c, outer: c };
        assert_eq!(describe_mair_byte(0xff), normal(wb(true, true)));
        assert_eq!(describe_mair_byte(0xcc), normal(wb(false, false)));
        assert_eq!(describe_mair_byte(0xbb), normal(wt(true, true)));
        assert_eq!(describe_mair_byte(0x44), normal(Cacheability::NonCacheable));
        assert_eq!(
            describe_mair_byte(0x00),
            MairAttr::Device(DeviceType::NGnRnE)
        );
        assert_eq!(
            describe_mair_byte(0x04),
            MairAttr::Device(DeviceType::NGnRE)
        );
        assert_eq!(describe_mair_byte(0x08), MairAttr::Device(DeviceType::NGRE));
        assert_eq!(describe_mair_byte(0x0c), MairAttr::Device(DeviceType::GRE));
        // Transient encodings, and different inner and outer policies.
        assert_eq!(
            describe_mair_byte(0x72).to_string(),
            "Normal, inner write-through transient, read allocate, \
             outer write-back transient, read+write allocate"
        );
        assert_eq!(
            describe_mair_byte(0x4e).to_string(),
            "Normal, inner write-back non-transient, read allocate, outer non-cacheable"
        );
        assert_eq!(
            describe_mair_byte(0x11).to_string(),
            "Normal, inner+outer write-through transient, write allocate"
        );
        assert_eq!(
            describe_mair_byte(0x4e).class(),
            Some(Class::Normal { cacheable: true })
        );
    }

    #[test]
    fn unpredictable_encodings() {
        // Device with non-zero low bits; Normal with an inner field of 0b0000.
        for b in [0x01, 0x02, 0x03, 0x05, 0x0f, 0x40, 0xf0, 0x10] {
            assert_eq!(describe_mair_byte(b), MairAttr::Unpredictable(b), "{b:#x}");
            assert_eq!(describe_mair_byte(b).class(), None);
        }
        assert_eq!(
            describe_mair_byte(0xf0).to_string(),
            "UNPREDICTABLE or reserved (0xf0)"
        );
        // Exactly 4 Device + 15 * 15 Normal encodings are defined.
        let defined = (0..=255u8)
            .filter(|&b| describe_mair_byte(b) != MairAttr::Unpredictable(b))
            .count();
        assert_eq!(defined, 4 + 15 * 15);
    }

    /// Oracle: the aarch64-paging crate's MAIR constants and its 4-bit field values
    /// (its `NormalMemory` discriminants; not its `TryFrom<u8>`, which maps 0b0001 to
    /// write-back non-transient write-allocate instead of write-through transient). 64-bit
    /// hosts only, as the crate builds.
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn against_aarch64_paging() {
        use NormalMemory as N;
        // Every Normal field value, decoded by us, against its name in aarch64-paging.
        let all = [
            (
                N::WriteThroughTransientWriteAllocate,
                "write-through transient, write allocate",
            ),
            (
                N::WriteThroughTransientReadAllocate,
                "write-through transient, read allocate",
            ),
            (
                N::WriteThroughTransientReadWriteAllocate,
                "write-through transient, read+write allocate",
            ),
            (N::NonCacheable, "non-cacheable"),
            (
                N::WriteBackTransientWriteAllocate,
                "write-back transient, write allocate",
            ),
            (
                N::WriteBackTransientReadAllocate,
                "write-back transient, read allocate",
            ),
            (
                N::WriteBackTransientReadWriteAllocate,
                "write-back transient, read+write allocate",
            ),
            (
                N::WriteThroughNonTransient,
                "write-through non-transient, no allocate",
            ),
            (
                N::WriteThroughNonTransientWriteAllocate,
                "write-through non-transient, write allocate",
            ),
            (
                N::WriteThroughNonTransientReadAllocate,
                "write-through non-transient, read allocate",
            ),
            (
                N::WriteThroughNonTransientReadWriteAllocate,
                "write-through non-transient, read+write allocate",
            ),
            (
                N::WriteBackNonTransient,
                "write-back non-transient, no allocate",
            ),
            (
                N::WriteBackNonTransientWriteAllocate,
                "write-back non-transient, write allocate",
            ),
            (
                N::WriteBackNonTransientReadAllocate,
                "write-back non-transient, read allocate",
            ),
            (
                N::WriteBackNonTransientReadWriteAllocate,
                "write-back non-transient, read+write allocate",
            ),
        ];
        for (n, words) in all {
            let byte = MairAttribute::normal(n, n).0;
            assert_eq!(
                describe_mair_byte(byte).to_string(),
                std::format!("Normal, inner+outer {words}"),
                "{n:?}"
            );
        }
        // The table's MAIR_EL1 built by aarch64-paging from the attributes we decode each
        // byte as (its constructors compose the byte, not us).
        let field = |c: Cacheability| {
            let text = c.to_string();
            all.iter()
                .find(|(_, w)| *w == text)
                .map(|(n, _)| *n)
                .unwrap()
        };
        let theirs = Mair::new(MEMTYPES.map(|t| match describe_mair_byte(t.mair) {
            MairAttr::Device(DeviceType::NGnRnE) => MairAttribute::DEVICE_NGNRNE,
            MairAttr::Device(DeviceType::NGnRE) => MairAttribute::DEVICE_NGNRE,
            MairAttr::Device(DeviceType::NGRE) => MairAttribute::DEVICE_NGRE,
            MairAttr::Device(DeviceType::GRE) => MairAttribute::DEVICE_GRE,
            MairAttr::Normal { inner, outer } => MairAttribute::normal(field(outer), field(inner)),
            MairAttr::Unpredictable(b) => panic!("{}: {b:#x}", t.name),
        }));
        assert_eq!(theirs.0, mair_el1());
    }
}
