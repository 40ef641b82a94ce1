//! Cache geometry as the identification registers describe it (Arm ARM DDI 0487, register
//! descriptions "CLIDR_EL1, Cache Level ID Register", "CCSIDR_EL1, Current Cache Size ID
//! Register", "CSSELR_EL1", "CTR_EL0, Cache Type Register", "DCZID_EL0" and
//! "ID_AA64MMFR2_EL1").
//!
//! A caution from the Arm ARM, worth repeating in the report: CCSIDR_EL1's NumSets,
//! Associativity and LineSize "define the architecturally visible parameters that are
//! required for the cache maintenance by Set/Way instructions. They are not guaranteed to
//! represent the actual microarchitectural features of a design." The sizes below are what
//! the registers say, a hint for choosing working sets, not a measurement. System caches
//! beyond the point of coherency do not appear at all.

/// Most cache levels CLIDR_EL1 can describe.
pub const MAX_LEVELS: usize = 7;

/// What CLIDR_EL1's Ctype field says about one cache level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CacheType {
    /// `0b001`: instruction cache only.
    Instruction,
    /// `0b010`: data cache only.
    Data,
    /// `0b011`: separate instruction and data caches.
    Separate,
    /// `0b100`: unified cache.
    Unified,
}

impl CacheType {
    /// Decodes a 3-bit Ctype field; `None` for "no cache" (`0b000`) and the reserved values.
    pub fn from_ctype(ctype: u64) -> Option<CacheType> {
        match ctype {
            0b001 => Some(CacheType::Instruction),
            0b010 => Some(CacheType::Data),
            0b011 => Some(CacheType::Separate),
            0b100 => Some(CacheType::Unified),
            _ => None,
        }
    }

    /// Whether the level has a data or unified cache (the kind CCSIDR is read for here).
    pub fn has_data(self) -> bool {
        !matches!(self, CacheType::Instruction)
    }

    /// The type in words: `instruction`, `data`, `separate` or `unified`.
    pub fn name(self) -> &'static str {
        match self {
            CacheType::Instruction => "instruction",
            CacheType::Data => "data",
            CacheType::Separate => "separate",
            CacheType::Unified => "unified",
        }
    }
}

/// One data or unified cache level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CacheLevel {
    /// Level, 1-based (L1, L2, ...).
    pub level: u8,
    /// What CLIDR_EL1 says is at this level (`Separate`: the data half of it is described).
    pub kind: CacheType,
    /// Line size in bytes.
    pub line: u32,
    /// Associativity (ways).
    pub ways: u32,
    /// Number of sets.
    pub sets: u32,
}

impl CacheLevel {
    /// The filler of the unused entries of [`levels`]'s array: level 0, size 0.
    pub const NONE: CacheLevel = CacheLevel {
        level: 0,
        kind: CacheType::Unified,
        line: 0,
        ways: 0,
        sets: 0,
    };

    /// Size in bytes: line × ways × sets (saturating; the fields cannot overflow it). Not
    /// inlined: one copy for its dozen callers.
    #[inline(never)]
    pub fn size(&self) -> u64 {
        u64::from(self.line)
            .saturating_mul(self.ways.into())
            .saturating_mul(self.sets.into())
    }
}

/// The Ctype field of cache level `level` (1-based) in CLIDR_EL1: bits
/// `[3·level−1 : 3·level−3]`.
fn ctype(clidr: u64, level: u8) -> u64 {
    let shift = u32::from(level.saturating_sub(1)).saturating_mul(3);
    clidr.checked_shr(shift).unwrap_or(0) & 0b111
}

/// CLIDR_EL1.LoC, bits \[26:24\]: the level of coherence (the first level, 1-based, that
/// need not be maintained to reach the point of coherency; 0 = none).
pub fn level_of_coherence(clidr: u64) -> u8 {
    ((clidr >> 24) & 0b111) as u8
}

/// Decodes one CCSIDR_EL1 value of cache level `level` (1-based, of type `kind`).
///
/// Without FEAT_CCIDX (32-bit format): LineSize \[2:0\] = log2(line bytes) − 4,
/// Associativity \[12:3\] = ways − 1, NumSets \[27:13\] = sets − 1. With FEAT_CCIDX (64-bit
/// format): LineSize \[2:0\], Associativity \[23:3\], NumSets \[55:32\].
pub fn decode_ccsidr(level: u8, kind: CacheType, ccsidr: u64, ccidx: bool) -> CacheLevel {
    let field = |shift: u32, bits: u32| -> u32 {
        let mask = (1u64 << bits).wrapping_sub(1);
        // At most 24 bits: always fits, and + 1 cannot overflow.
        u32::try_from((ccsidr >> shift) & mask)
            .unwrap_or(0)
            .saturating_add(1)
    };
    let (ways, sets) = if ccidx {
        (field(3, 21), field(32, 24))
    } else {
        (field(3, 10), field(13, 15))
    };
    CacheLevel {
        level,
        kind,
        line: 16u32 << (ccsidr & 0b111),
        ways,
        sets,
    }
}

/// The data and unified cache levels of `clidr` (CLIDR_EL1), innermost first: the first
/// `count` entries of the array (the rest are [`CacheLevel::NONE`]). Each is described by the
/// CCSIDR_EL1 value `ccsidr_of(level − 1, false)` returns — the arguments are CSSELR_EL1's
/// Level and InD fields, so the caller writes `(level << 1) | ind` to CSSELR_EL1, issues an
/// ISB, then reads CCSIDR_EL1.
///
/// `ccidx`: FEAT_CCIDX is implemented (see [`ccidx`]), so CCSIDR_EL1 has the 64-bit
/// format. The scan stops at the first level with no cache (`0b000`, as the Arm ARM
/// prescribes: no architected caches exist further out); instruction-only and reserved
/// levels are skipped without reading CCSIDR. Not inlined: the firmware's callers share one
/// copy.
#[inline(never)]
pub fn levels(
    clidr: u64,
    ccidx: bool,
    mut ccsidr_of: impl FnMut(u8, bool) -> u64,
) -> ([CacheLevel; MAX_LEVELS], usize) {
    let mut out = [CacheLevel::NONE; MAX_LEVELS];
    let mut count = 0usize;
    for level in 1..=MAX_LEVELS as u8 {
        let field = ctype(clidr, level);
        if field == 0 {
            break;
        }
        let Some(kind) = CacheType::from_ctype(field).filter(|k| k.has_data()) else {
            continue;
        };
        let ccsidr = ccsidr_of(level.saturating_sub(1), false);
        if let Some(slot) = out.get_mut(count) {
            *slot = decode_ccsidr(level, kind, ccsidr, ccidx);
            count = count.saturating_add(1);
        }
    }
    (out, count)
}

/// Size in bytes of the outermost data or unified cache among `levels` (as [`levels`]
/// returns them, either the first `count` entries or the whole array: fillers are skipped),
/// if any.
pub fn last_level_bytes(levels: &[CacheLevel]) -> Option<u64> {
    levels
        .iter()
        .rev()
        .find(|l| l.level != 0)
        .map(CacheLevel::size)
}

/// Whether ID_AA64MMFR2_EL1 says FEAT_CCIDX is implemented (CCIDX, bits \[23:20\], is
/// `0b0001`: CCSIDR_EL1 has the 64-bit format).
pub fn ccidx(id_aa64mmfr2: u64) -> bool {
    (id_aa64mmfr2 >> 20) & 0xf == 0b0001
}

/// Smallest data cache line in bytes, from CTR_EL0: `4 << DminLine` (bits \[19:16\], log2
/// of the number of 4-byte words). The stride of data cache maintenance by address.
pub fn dminline_bytes(ctr: u64) -> u64 {
    4u64 << ((ctr >> 16) & 0xf)
}

/// Block size in bytes that one `DC ZVA` zeroes, from DCZID_EL0: `4 << BS` (bits \[3:0\]);
/// `None` when DZP (bit 4) prohibits the instruction.
pub fn zva_block_bytes(dczid: u64) -> Option<u64> {
    (dczid & 0x10 == 0).then(|| 4u64 << (dczid & 0xf))
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    const KIB: u64 = 1 << 10;
    const MIB: u64 = 1 << 20;

    /// CLIDR_EL1 of the Cortex-A53 and Cortex-A72 (TRMs; QEMU reports the same):
    /// 0x0a20_0023 = 0b0000_1010_0010_0000_0000_0000_0010_0011
    /// - Ctype1 [2:0] = 0b011: L1 has separate instruction and data caches;
    /// - Ctype2 [5:3] = 0b100: L2 is unified;
    /// - Ctype3 [8:6] = 0b000: nothing further out;
    /// - LoUIS [23:21] = 1, LoC [26:24] = 2, LoUU [29:27] = 1.
    const CLIDR_A53_A72: u64 = 0x0a20_0023;

    /// Replays CCSIDR values per CSSELR Level (level − 1); only data/unified caches may be
    /// asked about.
    fn regs(values: &[u64]) -> impl FnMut(u8, bool) -> u64 + '_ {
        move |level, ind| {
            assert!(!ind, "asked about an instruction cache");
            values.get(usize::from(level)).copied().unwrap_or(0)
        }
    }

    /// The levels found, checking that the rest of the array is filler.
    fn found((all, count): ([CacheLevel; MAX_LEVELS], usize)) -> Vec<CacheLevel> {
        assert!(count <= MAX_LEVELS);
        assert!(all[count..].iter().all(|&l| l == CacheLevel::NONE));
        assert_eq!(last_level_bytes(&all), last_level_bytes(&all[..count]));
        all[..count].to_vec()
    }

    #[test]
    fn cortex_a72() {
        // L1D CCSIDR 0x701f_e00a:
        //   LineSize [2:0] = 0b010 → 2^(2+4) = 64 B lines;
        //   Associativity [12:3] = (0x701fe00a >> 3) & 0x3ff = 0x001 → 2 ways;
        //   NumSets [27:13] = (0x701fe00a >> 13) & 0x7fff = 0x0ff → 256 sets;
        //   64 × 2 × 256 = 32 KiB. Bits [31:28] = 0b0111 are the old WT/WB/RA/WA flags.
        // L2 CCSIDR 0x707f_e07a:
        //   LineSize = 0b010 → 64 B; Associativity = 0x00f → 16 ways;
        //   NumSets = 0x3ff → 1024 sets; 64 × 16 × 1024 = 1 MiB.
        let l = found(levels(
            CLIDR_A53_A72,
            false,
            regs(&[0x701f_e00a, 0x707f_e07a]),
        ));
        assert_eq!(
            l.as_slice(),
            [
                CacheLevel {
                    level: 1,
                    kind: CacheType::Separate,
                    line: 64,
                    ways: 2,
                    sets: 256
                },
                CacheLevel {
                    level: 2,
                    kind: CacheType::Unified,
                    line: 64,
                    ways: 16,
                    sets: 1024
                },
            ]
        );
        assert_eq!(l.as_slice()[0].size(), 32 * KIB);
        assert_eq!(last_level_bytes(&l), Some(MIB));
        assert_eq!(level_of_coherence(CLIDR_A53_A72), 2);
        // CTR_EL0 0x8444_c004: DminLine [19:16] = 4 → 4 << 4 = 64 B.
        assert_eq!(dminline_bytes(0x8444_c004), 64);
    }

    #[test]
    fn cortex_a53() {
        // L1D CCSIDR 0x700f_e01a: LineSize 0b010 → 64 B; Associativity
        //   (>> 3) & 0x3ff = 3 → 4 ways; NumSets (>> 13) & 0x7fff = 0x7f → 128 sets;
        //   64 × 4 × 128 = 32 KiB.
        // L2 CCSIDR 0x703f_e07a (the 512 KiB option): 64 B lines; Associativity 15 → 16 ways;
        //   NumSets 0x1ff → 512 sets; 64 × 16 × 512 = 512 KiB.
        let mut asked = Vec::new();
        let l = found(levels(CLIDR_A53_A72, false, |level, ind| {
            asked.push((level, ind));
            [0x700f_e01a, 0x703f_e07a][usize::from(level)]
        }));
        assert_eq!(asked, [(0, false), (1, false)]);
        let sizes: Vec<_> = l
            .iter()
            .map(|c| (c.level, c.ways, c.sets, c.size()))
            .collect();
        assert_eq!(sizes, [(1, 4, 128, 32 * KIB), (2, 16, 512, 512 * KIB)]);
        assert_eq!(last_level_bytes(&l), Some(512 * KIB));
    }

    #[test]
    fn ccidx_format_and_three_levels() {
        // A Neoverse-like core: L1 separate, L2 unified, L3 unified (CLIDR 0b100_100_011).
        let clidr = 0b100_100_011;
        // FEAT_CCIDX: L3 of 2 MiB, 16 ways, 64 B lines → 2048 sets:
        //   NumSets [55:32] = 2047, Associativity [23:3] = 15, LineSize = 2.
        let l3 = (2047u64 << 32) | (15 << 3) | 2;
        // L1D 64 KiB 4-way 64 B (256 sets), L2 1 MiB 8-way 64 B (2048 sets).
        let l1 = (255u64 << 32) | (3 << 3) | 2;
        let l2 = (2047u64 << 32) | (7 << 3) | 2;
        let l = found(levels(clidr, true, regs(&[l1, l2, l3])));
        let sizes: Vec<_> = l.iter().map(|c| c.size()).collect();
        assert_eq!(sizes, [64 * KIB, MIB, 2 * MIB]);
        assert_eq!(l.last().map(|c| c.kind), Some(CacheType::Unified));
        // The same values read in the 32-bit format would be wrong, not a panic.
        let wrong = found(levels(clidr, false, regs(&[l1, l2, l3])));
        assert_eq!(wrong.as_slice()[2].sets, 1);
        // Wide fields: up to 2^21 ways and 2^24 sets.
        let max = decode_ccsidr(1, CacheType::Data, u64::MAX, true);
        assert_eq!((max.line, max.ways, max.sets), (2048, 1 << 21, 1 << 24));
        assert_eq!(max.size(), 1 << 56);
        assert!(ccidx(0x0010_0000));
        assert!(!ccidx(0x0020_0000) && !ccidx(0));
    }

    #[test]
    fn instruction_only_and_reserved_levels_are_skipped() {
        // L1 instruction only, L2 data only, L3 reserved (0b101), L4 unified, L5 none,
        // L6 unified (after the end: ignored).
        let clidr = 0b100_000_100_101_010_001;
        let mut asked = Vec::new();
        let l = found(levels(clidr, false, |level, _| {
            asked.push(level);
            0x701f_e00a
        }));
        assert_eq!(asked, [1, 3]);
        let kinds: Vec<_> = l.iter().map(|c| (c.level, c.kind)).collect();
        assert_eq!(kinds, [(2, CacheType::Data), (4, CacheType::Unified)]);
        assert_eq!(CacheType::Separate.name(), "separate");
    }

    #[test]
    fn no_caches() {
        let l = found(levels(0, false, |_, _| unreachable!()));
        assert!(l.is_empty());
        assert_eq!(last_level_bytes(&l), None);
        assert_eq!(l, found(levels(0x0a00_0000, true, |_, _| 0)));
    }

    #[test]
    fn garbage_never_panics() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..10_000 {
            let clidr = next();
            let ccidx = clidr & 1 == 0;
            let l = found(levels(clidr, ccidx, |_, _| next()));
            assert!(l.len() <= MAX_LEVELS);
            for c in l.iter() {
                assert!((1..=7).contains(&c.level));
                assert!(c.line >= 16 && c.line <= 2048);
                assert!(c.ways >= 1 && c.sets >= 1);
                let _ = c.size();
            }
            let _ = last_level_bytes(&l);
            let _ = dminline_bytes(next());
            let _ = zva_block_bytes(next());
            let _ = level_of_coherence(clidr);
        }
        let all = found(levels(u64::MAX, false, |_, _| u64::MAX));
        assert_eq!(all.len(), 0); // Ctype1 = 0b111 is reserved, and so are the others
        let seven = found(levels(0o4444444, false, |_, _| u64::MAX));
        assert_eq!(seven.len(), 7);
        assert_eq!(seven.last().map(|c| c.size()), Some(2048 * 1024 * 32768));
        assert_eq!(dminline_bytes(u64::MAX), 4 << 15);
    }

    #[test]
    fn zva_block() {
        // DCZID_EL0 = 4: 4 << 4 = 64 B blocks (Cortex-A53/A72).
        assert_eq!(zva_block_bytes(4), Some(64));
        assert_eq!(zva_block_bytes(0x14), None);
        assert_eq!(zva_block_bytes(0xf), Some(4 << 15));
    }
}
