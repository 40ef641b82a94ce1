//! ARMv7 long-descriptor (LPAE) translation, for Cortex-A7, A15 and A17: the tables
//! [`Mapper`](super::Mapper) builds for a 32-bit address space. With TTBCR.EAE set and
//! T0SZ = 0, TTBR0 translates all 32 bits from a level 1 table of four 1 GiB entries through
//! level 2 (2 MiB) and level 3 (4 KiB) tables, and ARMv7's long descriptors put AttrIndx,
//! AP\[2:1\], SH, AF, nG, the output address, PXN and XN where VMSAv8-64's stage 1
//! descriptors have them (Arm ARM DDI 0406C, "Long-descriptor translation table format"), so
//! one builder serves both, for physical addresses below 2^40.

use super::Layout;

/// The 32-bit address space: `va_bits` 32, the root at level 1.
pub const LAYOUT: Layout = Layout {
    va_bits: 32,
    start_level: 1,
};

/// TTBCR for LPAE: EAE (bit 31) set; T0SZ = 0 (TTBR0 translates every address); table walks
/// through TTBR0 Inner Shareable (SH0 = `0b11`, bits 13:12) and inner and outer write-back
/// write-allocate (ORGN0 = IRGN0 = `0b01`, bits 11:10 and 9:8); EPD1 (bit 23) set: no walks
/// through TTBR1. (Linux's proc-v7-3level.S sets the same walk attributes, `TTB_FLAGS_SMP`.)
pub const TTBCR: u32 = 1 << 31 | 1 << 23 | 0b11 << 12 | 0b01 << 10 | 0b01 << 8;

#[cfg(test)]
mod tests {
    extern crate std;
    use super::super::{Access, Granule, Mapper, Table};
    use super::*;
    use std::vec;

    #[test]
    fn the_layout_is_four_gigabytes_from_level_one() {
        assert!(LAYOUT.is_valid());
        assert_eq!(Layout::with_va_bits(32), Some(LAYOUT));
        assert_eq!(LAYOUT.va_limit(), 1 << 32);
        assert_eq!(TTBCR, 0x8080_3500);
    }

    /// A page at 3 GiB: the root's fourth entry leads to it, and the descriptor's fields
    /// lie where DDI 0406C's long-descriptor page format has them.
    #[test]
    fn a_page_where_armv7_reads_it() {
        let mut pool = vec![Table::EMPTY; 4];
        let mut m = Mapper::new(&mut pool, 0x4000_0000, LAYOUT).unwrap();
        m.map(
            0xc000_1000,
            0x8000_1000,
            0x1000,
            5,
            Access::ReadWrite,
            Granule::Page,
        )
        .unwrap();
        assert!(
            m.map(0xffff_f000, 0, 0x2000, 0, Access::ReadWrite, Granule::Page)
                .is_err(),
            "beyond 4 GiB"
        );
        let t = m.translate(0xc000_1234).unwrap();
        assert_eq!((t.pa, t.level), (0x8000_1234, 3));
        let d = t.descriptor;
        assert_eq!(d & 0b11, 0b11, "a page");
        assert_eq!(d >> 2 & 0b111, 5, "AttrIndx[2:0]");
        assert_eq!(d >> 6 & 0b11, 0b00, "AP[2:1]: read/write at PL1 only");
        assert_eq!(d >> 8 & 0b11, 0b11, "SH: Inner Shareable");
        assert_eq!(d >> 10 & 1, 1, "AF");
        assert_eq!(d & 0x00ff_ffff_f000, 0x8000_1000, "output address [39:12]");
        assert_eq!(d >> 53 & 0b11, 0b11, "PXN and XN");
        assert_eq!(
            pool[0].0[3] & 0b11,
            0b11,
            "the root's entry for VA[31:30] = 3 is a table"
        );
        assert!(pool[0].0[..3].iter().all(|&e| e == 0));
    }

    /// Code is executable on ARMv7: bit 54 (XN there) clear, PXN clear; data is not.
    #[test]
    fn code_is_executable_under_armv7() {
        let mut pool = vec![Table::EMPTY; 4];
        let mut m = Mapper::new(&mut pool, 0x4000_0000, LAYOUT).unwrap().armv7();
        m.map(
            0x4001_0000,
            0x4001_0000,
            0x1000,
            0,
            Access::ReadExecute,
            Granule::Page,
        )
        .unwrap();
        m.map(
            0x4002_0000,
            0x4002_0000,
            0x1000,
            0,
            Access::ReadOnly,
            Granule::Page,
        )
        .unwrap();
        let code = m.translate(0x4001_0000).unwrap().descriptor;
        let data = m.translate(0x4002_0000).unwrap().descriptor;
        assert_eq!(code >> 53 & 0b11, 0, "XN and PXN clear");
        assert_eq!(data >> 53 & 0b11, 0b11, "XN and PXN set");
        assert_eq!(code >> 6 & 0b11, 0b10, "read-only");
    }
}
