//! Where the test buffer goes: the highest aligned window of RAM clear of the image, the
//! DTB and anything else in use, and the `buffer=` size syntax.

use core::fmt;

use crate::format::Bytes;

/// Where the buffer goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Placement {
    /// Physical address of the first byte (a multiple of the alignment asked for).
    pub base: u64,
    /// Bytes: the size asked for, or less if `shrunk`.
    pub size: u64,
    /// The size asked for did not fit; `size` is the largest aligned window that did.
    pub shrunk: bool,
}

/// Why no buffer could be placed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PlacementError {
    /// The alignment is not a power of two.
    BadAlign {
        /// The alignment given.
        align: u64,
    },
    /// A buffer of zero bytes was asked for.
    ZeroSize,
    /// Not even `min` bytes fit in an aligned window of free RAM.
    NoRoom {
        /// Largest free aligned window, in bytes (a multiple of `align`, maybe 0).
        largest: u64,
        /// The minimum acceptable size.
        min: u64,
        /// The alignment.
        align: u64,
    },
}

impl fmt::Display for PlacementError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            PlacementError::BadAlign { align } => {
                write!(f, "buffer alignment {align:#x} is not a power of two")
            }
            PlacementError::ZeroSize => f.write_str("a buffer of zero bytes was asked for"),
            PlacementError::NoRoom {
                largest: 0,
                min,
                align,
            } => write!(
                f,
                "no room for a buffer of at least {}: no {}-aligned window of RAM is free",
                Bytes(min),
                Bytes(align)
            ),
            PlacementError::NoRoom {
                largest,
                min,
                align,
            } => write!(
                f,
                "no room for a buffer of at least {}: the largest free {}-aligned window of RAM is {}",
                Bytes(min),
                Bytes(align),
                Bytes(largest)
            ),
        }
    }
}

/// Places a buffer of `want` bytes in `ram` (base, size), overlapping none of the
/// `avoid` regions (base, size; the image, the DTB, ...; empty ones are ignored).
///
/// Returns the highest `align`-aligned window of `want` bytes that fits; if none does,
/// the largest aligned window of free RAM (its size a multiple of `align`; the highest
/// one on a tie) with `shrunk = true`, provided it holds at least `min` bytes; else an
/// error. `align` must be a power of two.
pub fn place_buffer(
    ram: (u64, u64),
    avoid: &[(u64, u64)],
    want: u64,
    align: u64,
    min: u64,
) -> Result<Placement, PlacementError> {
    if !align.is_power_of_two() {
        return Err(PlacementError::BadAlign { align });
    }
    if want == 0 {
        return Err(PlacementError::ZeroSize);
    }
    let mask = align.wrapping_sub(1);
    let (ram_base, ram_end) = (ram.0, ram.0.saturating_add(ram.1));
    let inside = |x: u64| {
        avoid
            .iter()
            .any(|&(base, size)| base <= x && x < base.saturating_add(size))
    };
    let mut full: Option<u64> = None;
    let mut largest: Option<(u64, u64)> = None; // (size, base)
                                                // Every free gap starts at the RAM base or at the end of an avoided region, and ends
                                                // at the next avoided region or the end of RAM.
    let starts = core::iter::once(ram_base).chain(avoid.iter().map(|&(b, s)| b.saturating_add(s)));
    for lo in starts.filter(|&lo| ram_base <= lo && lo < ram_end && !inside(lo)) {
        let hi = avoid
            .iter()
            .filter(|&&(base, size)| size != 0 && base > lo)
            .map(|&(base, _)| base)
            .fold(ram_end, u64::min);
        if let Some(base) = hi.checked_sub(want).map(|top| top & !mask) {
            if base >= lo {
                full = full.max(Some(base));
            }
        }
        if let Some(first) = lo.checked_add(mask).map(|x| x & !mask) {
            let size = (hi & !mask).saturating_sub(first);
            if size > 0 {
                largest = largest.max(Some((size, first)));
            }
        }
    }
    match (full, largest) {
        (Some(base), _) => Ok(Placement {
            base,
            size: want,
            shrunk: false,
        }),
        (None, Some((size, base))) if size >= min => Ok(Placement {
            base,
            size,
            shrunk: true,
        }),
        (None, largest) => Err(PlacementError::NoRoom {
            largest: largest.map_or(0, |(size, _)| size),
            min,
            align,
        }),
    }
}

/// Parses a size: decimal (`4096`) or `0x` hexadecimal (`0x1000`) digits, optionally
/// followed by `K`, `M` or `G` (either case; 2^10, 2^20, 2^30). `None` for an empty or
/// malformed string, zero, or more than `u64::MAX` bytes.
pub fn parse_size(s: &str) -> Option<u64> {
    let (digits, radix) = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => (hex, 16),
        None => (s, 10),
    };
    let (digits, shift) = match digits.as_bytes().last()? {
        b'k' | b'K' => (digits.get(..digits.len().saturating_sub(1))?, 10),
        b'm' | b'M' => (digits.get(..digits.len().saturating_sub(1))?, 20),
        b'g' | b'G' => (digits.get(..digits.len().saturating_sub(1))?, 30),
        _ => (digits, 0),
    };
    if digits.is_empty() {
        return None;
    }
    let mut value: u64 = 0;
    for c in digits.chars() {
        let digit = u64::from(c.to_digit(radix)?);
        value = value.checked_mul(radix.into())?.checked_add(digit)?;
    }
    let bytes = value.checked_mul(1u64 << shift)?;
    (bytes != 0).then_some(bytes)
}

/// The largest `align`-aligned stretch of `[align, limit)` that no range of `taken`
/// (start, length) touches: its start and length, `(0, 0)` when there is none. The 32-bit
/// image puts its buffer aliases there when its RAM, and so its identity map, lies in the
/// upper half of the address space (`align` a power of two).
pub fn largest_gap(
    limit: u64,
    align: u64,
    taken: impl Iterator<Item = (u64, u64)> + Clone,
) -> (u64, u64) {
    let up = |x: u64| x.checked_next_multiple_of(align).unwrap_or(u64::MAX);
    let end_of = |(base, len): (u64, u64)| base.saturating_add(len);
    let starts = core::iter::once(align).chain(taken.clone().map(|r| up(end_of(r))));
    let mut best = (0, 0);
    for start in starts {
        // The stretch ends at the first range at or above its start; none may begin below
        // it and reach into it.
        let mut end = limit;
        let mut clear = start < limit;
        for r in taken.clone() {
            if r.0 >= start {
                end = end.min(r.0 & !align.wrapping_sub(1));
            } else if end_of(r) > start {
                clear = false;
            }
        }
        let len = end.saturating_sub(start);
        if clear && len > best.1 {
            best = (start, len);
        }
    }
    best
}

#[cfg(test)]
#[allow(clippy::unwrap_used, reason = "tests")]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;

    const MIB: u64 = 1 << 20;
    const GIB: u64 = 1 << 30;
    const ALIGN: u64 = 2 * MIB;

    fn place(
        ram: (u64, u64),
        avoid: &[(u64, u64)],
        want: u64,
    ) -> Result<Placement, PlacementError> {
        place_buffer(ram, avoid, want, ALIGN, 4 * MIB)
    }

    fn fits(base: u64, size: u64, shrunk: bool) -> Result<Placement, PlacementError> {
        Ok(Placement { base, size, shrunk })
    }

    #[test]
    fn highest_window_of_free_ram() {
        // QEMU virt: 128 MiB at 1 GiB, image at the bottom, DTB right after it.
        let ram = (GIB, 128 * MIB);
        let image = (GIB + 0x20_0000, 0x12_3000);
        let dtb = (GIB + 0x40_0000, 0x10_0000);
        assert_eq!(
            place(ram, &[image, dtb], 32 * MIB),
            fits(GIB + 96 * MIB, 32 * MIB, false)
        );
        // Nothing to avoid.
        assert_eq!(
            place(ram, &[], 32 * MIB),
            fits(GIB + 96 * MIB, 32 * MIB, false)
        );
        // A size that is not a multiple of the alignment: the base is still aligned.
        assert_eq!(
            place(ram, &[], 3 * MIB),
            fits(GIB + 124 * MIB, 3 * MIB, false)
        );
    }

    #[test]
    fn avoid_at_top_bottom_middle() {
        let ram = (GIB, 128 * MIB);
        // DTB in the last MiB of RAM: the buffer ends at the 2 MiB boundary below it.
        let top = (GIB + 127 * MIB, MIB);
        assert_eq!(
            place(ram, &[top], 32 * MIB),
            fits(GIB + 94 * MIB, 32 * MIB, false)
        );
        // Bottom: irrelevant to the highest window.
        let bottom = (GIB, 8 * MIB);
        assert_eq!(
            place(ram, &[bottom], 32 * MIB),
            fits(GIB + 96 * MIB, 32 * MIB, false)
        );
        // Middle: 64..72 MiB taken; 48 MiB fits above it (72..128 MiB).
        let middle = (GIB + 64 * MIB, 8 * MIB);
        assert_eq!(
            place(ram, &[middle], 48 * MIB),
            fits(GIB + 80 * MIB, 48 * MIB, false)
        );
        // 60 MiB fits only below the middle region (0..64 MiB).
        assert_eq!(
            place(ram, &[middle], 60 * MIB),
            fits(GIB + 4 * MIB, 60 * MIB, false)
        );
        // Unsorted, overlapping and out-of-RAM avoid regions.
        let avoid = [
            (GIB + 100 * MIB, 4 * MIB),
            top,
            (GIB + 99 * MIB, 2 * MIB),
            (0, GIB + MIB),
        ];
        // Free above 104 MiB up to 127 MiB: the highest aligned 16 MiB ends at 126 MiB.
        assert_eq!(
            place(ram, &avoid, 16 * MIB),
            fits(GIB + 110 * MIB, 16 * MIB, false)
        );
        // 40 MiB does not fit there; below 99 MiB (from 1 MiB, aligned 2 MiB) it does.
        assert_eq!(
            place(ram, &avoid, 40 * MIB),
            fits(GIB + 58 * MIB, 40 * MIB, false)
        );
    }

    #[test]
    fn reserved_memory_is_avoided() {
        // QEMU virt with 256 MiB and 0x4c000000 + 64 MiB reserved (no-map): the top of RAM
        // is taken, so the buffer ends where the reservation starts.
        let ram = (GIB, 256 * MIB);
        let image = (GIB + 0x20_0000, 0x14_0000);
        let dtb = (GIB + 128 * MIB, MIB);
        let secmon = (0x4c00_0000, 64 * MIB);
        assert_eq!(
            place(ram, &[image, dtb, secmon], 32 * MIB),
            fits(0x4a00_0000, 32 * MIB, false)
        );
        // A board's many small reservations (64 of 4 KiB, one every MiB above the DTB) as
        // well: no 32 MiB window is left above the DTB, so the buffer goes below it.
        let many: std::vec::Vec<_> = [image, dtb, secmon]
            .into_iter()
            .chain((0..64).map(|i| (GIB + 129 * MIB + i * MIB, 0x1000)))
            .collect();
        assert_eq!(
            place(ram, &many, 32 * MIB),
            fits(GIB + 96 * MIB, 32 * MIB, false)
        );
        // Reservations covering all RAM above the image but 6 MiB: shrunk to what is left.
        let tight = [image, (GIB + 8 * MIB, 242 * MIB)];
        assert_eq!(
            place(ram, &tight, 32 * MIB),
            fits(GIB + 250 * MIB, 6 * MIB, true)
        );
    }

    #[test]
    fn too_large_shrinks_to_largest_free_window() {
        let ram = (GIB, 128 * MIB);
        // Larger than RAM: all of it.
        assert_eq!(place(ram, &[], 256 * MIB), fits(GIB, 128 * MIB, true));
        // The image at 30..31 MiB leaves 0..30 MiB and 32..128 MiB (aligned): the larger.
        let image = (GIB + 30 * MIB, MIB);
        assert_eq!(
            place(ram, &[image], 100 * MIB),
            fits(GIB + 32 * MIB, 96 * MIB, true)
        );
        // Two equal windows: the higher one.
        let halves = (GIB + 63 * MIB, 2 * MIB); // 0..62 and 66..128 (62 MiB each)
        assert_eq!(
            place(ram, &[halves], 100 * MIB),
            fits(GIB + 66 * MIB, 62 * MIB, true)
        );
        // Unaligned RAM: the window is rounded in to 2 MiB boundaries.
        let odd = (GIB + MIB, 16 * MIB + 0x1000);
        assert_eq!(
            place(odd, &[], 64 * MIB),
            fits(GIB + 2 * MIB, 14 * MIB, true)
        );
    }

    #[test]
    fn nothing_fits() {
        let ram = (GIB, 128 * MIB);
        // Avoided regions every 4 MiB leave only 2 MiB windows, less than the 4 MiB minimum.
        let avoid: std::vec::Vec<_> = (0..32).map(|i| (GIB + i * 4 * MIB, 2 * MIB)).collect();
        let err = place(ram, &avoid, 32 * MIB).unwrap_err();
        assert_eq!(
            err,
            PlacementError::NoRoom {
                largest: 2 * MIB,
                min: 4 * MIB,
                align: ALIGN
            }
        );
        assert_eq!(
            err.to_string(),
            "no room for a buffer of at least 4 MiB: \
             the largest free 2 MiB-aligned window of RAM is 2 MiB"
        );
        // Everything avoided; empty RAM; RAM smaller than the alignment.
        let all = place(ram, &[ram], MIB).unwrap_err();
        assert_eq!(
            all.to_string(),
            "no room for a buffer of at least 4 MiB: no 2 MiB-aligned window of RAM is free"
        );
        assert!(place((GIB, 0), &[], MIB).is_err());
        assert!(place((GIB + 0x1000, MIB), &[], 0x1000).is_err());
        // Bad arguments.
        assert_eq!(
            place_buffer(ram, &[], MIB, 3, 0),
            Err(PlacementError::BadAlign { align: 3 })
        );
        assert_eq!(
            place_buffer(ram, &[], MIB, 0, 0),
            Err(PlacementError::BadAlign { align: 0 })
        );
        assert_eq!(
            place_buffer(ram, &[], 0, ALIGN, 0),
            Err(PlacementError::ZeroSize)
        );
    }

    #[test]
    fn extreme_values_do_not_panic() {
        let max = u64::MAX;
        let cases = [
            ((max - MIB, 2 * MIB), &[][..], MIB),
            ((0, max), &[(max, max)][..], max),
            ((0, max), &[(0, 1)][..], max - 1),
            ((max, max), &[(max, 0)][..], 1),
            ((0, max), &[][..], 1 << 63),
        ];
        for (ram, avoid, want) in cases {
            for align in [1, ALIGN, 1 << 63] {
                let _ = place_buffer(ram, avoid, want, align, 0);
            }
        }
        assert_eq!(
            place_buffer((0, max), &[], 1 << 63, 1 << 63, 0),
            fits(0, 1 << 63, false)
        );
    }

    #[test]
    fn sizes() {
        assert_eq!(parse_size("32M"), Some(32 * MIB));
        assert_eq!(parse_size("512K"), Some(512 * 1024));
        assert_eq!(parse_size("1G"), Some(GIB));
        assert_eq!(parse_size("1g"), Some(GIB));
        assert_eq!(parse_size("4096"), Some(4096));
        assert_eq!(parse_size("0x1000"), Some(0x1000));
        assert_eq!(parse_size("0X2m"), Some(2 * MIB));
        assert_eq!(parse_size("0x10K"), Some(16 * 1024));
        assert_eq!(parse_size("18446744073709551615"), Some(u64::MAX));
        assert_eq!(parse_size("16777215G"), Some(16_777_215 * GIB));
        for bad in [
            "",
            "0",
            "0x0",
            "0K",
            "K",
            "0x",
            "0xK",
            "x10",
            "12 M",
            " 12",
            "12MB",
            "1.5M",
            "-1",
            "+1",
            "12Q",
            "18446744073709551616",
            "17179869184G",
            "0x1_000",
            "１２",
            "0xg",
        ] {
            assert_eq!(parse_size(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn the_largest_gap_is_found() {
        const MIB: u64 = 1 << 20;
        // The i.MX6UL EVK: its UART low, its RAM (image, device tree) at 2 GiB.
        let taken = [
            (0x0202_0000, 0x1000),
            (0x8001_0000, 0xa0_0000),
            (0x8800_0000, 0x1_0000),
        ];
        let (start, len) = largest_gap(1 << 32, 2 * MIB, taken.iter().copied());
        assert_eq!((start, start + len), (0x0220_0000, 0x8000_0000));
        // Nothing taken: everything from `align` up.
        assert_eq!(
            largest_gap(1 << 32, 2 * MIB, [].iter().copied()),
            (2 * MIB, (1 << 32) - 2 * MIB)
        );
        // The top stretch wins when it is larger.
        let low = [(0x4000_0000, 0x100_0000)];
        assert_eq!(
            largest_gap(1 << 32, 2 * MIB, low.iter().copied()),
            (0x4100_0000, 0xbf00_0000)
        );
        // Overlapping and unaligned ranges; a range reaching past the limit.
        let odd = [
            (0x1000, 0x20_0000),
            (0x10_0000, 0x40_0000),
            (0xffff_0000, 0x2_0000),
        ];
        let (s, l) = largest_gap(1 << 32, 2 * MIB, odd.iter().copied());
        assert_eq!((s, s + l), (0x60_0000, 0xffe0_0000));
        assert_eq!(
            largest_gap(4 * MIB, 2 * MIB, [(0, 4 * MIB)].iter().copied()),
            (0, 0)
        );
    }
}
