//! The data patterns the benchmark lays in the test buffer and checks afterwards: a value per
//! 64-bit word, a function of the word's byte offset, simple enough for an assembly loop to
//! lay and check with `stp`/`ldp` pairs.

/// What a point lays before a kernel that reads (and expects after it): the words keyed by
/// [`crate::sweep::SEED`]. The firmware and the Linux twin lay the same.
pub const LAID: Pattern = Pattern::Xor(crate::sweep::SEED);

/// What the write kernels leave (`stream.S`'s write-stp, write-stp-q and write-stnp store
/// the public dma-buf report's 0xdeadbeef and 0xcafebabe, alternating).
pub const WRITTEN: Pattern = Pattern::Pair(0xdead_beef, 0xcafe_babe);

/// What write-line leaves over [`LAID`]: its value in the first word of every 64-byte line,
/// the laid words in the other seven.
pub const LINE_WRITTEN: Pattern = Pattern::Lines(0xdead_beef, crate::sweep::SEED);

/// What a triad's `b` array holds: the dma-buf report's words in one pattern (see
/// [`WRITTEN`]).
pub const TRIAD_B: Pattern = WRITTEN;

/// What a triad's `c` array holds: [`LAID`]'s key and its complement, alternating.
pub const TRIAD_C: Pattern = Pattern::Pair(crate::sweep::SEED, !crate::sweep::SEED);

/// What the triad leaves in `a`: `b + 3 * c` in each 32-bit lane (wrapping), as the
/// assembly's `mla` computes it.
pub const TRIAD_A: Pattern = match (TRIAD_B, TRIAD_C) {
    (Pattern::Pair(b0, b1), Pattern::Pair(c0, c1)) => {
        Pattern::Pair(triad_lanes(b0, c0), triad_lanes(b1, c1))
    }
    _ => panic!("the triad's arrays are pairs"),
};

/// `b + 3 * c` in each of the two 32-bit lanes of a word.
const fn triad_lanes(b: u64, c: u64) -> u64 {
    let low = (b as u32).wrapping_add((c as u32).wrapping_mul(3));
    let high = ((b >> 32) as u32).wrapping_add(((c >> 32) as u32).wrapping_mul(3));
    (high as u64) << 32 | low as u64
}

/// A value for every 64-bit word of a window, by its byte offset from the window's start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// `offset ^ key`: every word differs from its neighbours and from other windows' words.
    Xor(u64),
    /// The first value at offsets that are multiples of 16, the second in between (what the
    /// write kernels store: `stp` of a register pair).
    Pair(u64, u64),
    /// The value at offsets that are multiples of 64 (the first word of each line), the
    /// words of `Xor(key)` in between (what write-line leaves over a laid window).
    Lines(u64, u64),
}

impl Pattern {
    /// The word at byte offset `off` (a multiple of 8).
    pub const fn at(self, off: u64) -> u64 {
        match self {
            Pattern::Xor(key) => off ^ key,
            Pattern::Pair(even, odd) => {
                if off.is_multiple_of(16) {
                    even
                } else {
                    odd
                }
            }
            Pattern::Lines(first, key) => {
                if off.is_multiple_of(64) {
                    first
                } else {
                    off ^ key
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_triads_result_is_b_plus_three_c_in_each_lane() {
        for off in [0, 8, 16, 24] {
            let lanes = |p: Pattern| {
                let w = p.at(off);
                [w as u32, (w >> 32) as u32]
            };
            let [a, b, c] = [TRIAD_A, TRIAD_B, TRIAD_C].map(lanes);
            for i in 0..2 {
                assert_eq!(
                    a[i],
                    b[i].wrapping_add(c[i].wrapping_mul(3)),
                    "lane {i} at {off}"
                );
            }
            // No lane is left as laid or as either operand.
            assert!(a[0] != b[0] && a[0] != c[0] && a[1] != b[1] && a[1] != c[1]);
        }
    }

    #[test]
    fn words_by_offset() {
        let x = Pattern::Xor(0xff00);
        assert_eq!([x.at(0), x.at(8), x.at(16)], [0xff00, 0xff08, 0xff10]);
        // The pair of a 16-byte step: the second word is the first with bit 3 flipped, as
        // the assembly computes it.
        for off in (0..4096).step_by(16) {
            assert_eq!(x.at(off + 8), x.at(off) ^ 8);
        }
        let p = Pattern::Pair(1, 2);
        assert_eq!([p.at(0), p.at(8), p.at(16), p.at(24)], [1, 2, 1, 2]);
        let l = Pattern::Lines(7, 0xff00);
        assert_eq!(
            [l.at(0), l.at(8), l.at(56), l.at(64)],
            [7, 0xff08, 0xff38, 7]
        );
        // Over the laid window it differs only in each line's first word.
        for off in (0..4096).step_by(8) {
            assert_eq!(LINE_WRITTEN.at(off) == LAID.at(off), off % 64 != 0);
        }
    }
}
