//! Deterministic pseudo-random numbers for the latency kernel's pointer chase: the same seed
//! gives the same chase on every run and every machine, so results can be compared.

/// Marsaglia's xorshift64 generator (shifts 13, 7, 17): fast, tiny, period 2^64 − 1. Not
/// for anything but spreading a working set's lines over a cycle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct XorShift64(u64);

impl XorShift64 {
    /// The state used when the seed would give state 0 (which xorshift would never leave):
    /// 2^64 / φ.
    pub const ZERO_STATE: u64 = 0x9e37_79b9_7f4a_7c15;

    /// A generator started from `seed`. The seed goes through the SplitMix64 mixer first, so
    /// that small seeds (0, 1, 2, …) give well-spread states and differ from the first
    /// output on; a seed whose mixed state would be 0 gets [`Self::ZERO_STATE`].
    pub const fn new(seed: u64) -> Self {
        let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        XorShift64(if z == 0 { Self::ZERO_STATE } else { z })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }

    /// A number in `0..n` (0 when `n` is 0), by Lemire's multiply-high: the high half of
    /// `random × n`. The bias is below `n / 2^64`, far below anything a chase could show.
    pub fn below(&mut self, n: u64) -> u64 {
        let wide = u128::from(self.next_u64()).wrapping_mul(u128::from(n));
        u64::try_from(wide >> 64).unwrap_or(0)
    }
}

/// Fills `order` with a random cyclic permutation by Sattolo's algorithm: `order[i]` is the
/// element after `i`, and following `0 → order[0] → …` visits every element exactly once
/// before coming back to 0 (one cycle, no shorter loop a prefetcher or cache could settle
/// in). Each of the `(n − 1)!` cycles is (nearly) equally likely. Deterministic for a
/// given generator state.
///
/// Elements are `u32`: a slice longer than 2^32 is filled only in its first 2^32 entries.
pub fn sattolo(order: &mut [u32], rng: &mut XorShift64) {
    let limit = usize::try_from(1u64 << 32).unwrap_or(usize::MAX);
    let len = order.len().min(limit);
    let Some(order) = order.get_mut(..len) else {
        return;
    };
    for (slot, i) in order.iter_mut().zip(0u32..) {
        *slot = i;
    }
    sattolo_swaps(order.len() as u64, rng, |i, j| {
        if let (Ok(i), Ok(j)) = (usize::try_from(i), usize::try_from(j)) {
            order.swap(i, j);
        }
    });
}

/// The swaps of Sattolo's algorithm over `n` elements that start as the identity: for `i`
/// from `n − 1` down to 1, swap element `i` with one strictly below it. [`sattolo`] applies
/// them to a slice; the firmware applies them to the cache lines of its test buffer.
pub fn sattolo_swaps(n: u64, rng: &mut XorShift64, mut swap: impl FnMut(u64, u64)) {
    for i in (1..n).rev() {
        swap(i, rng.below(i));
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec;
    use std::vec::Vec;

    /// Follows the cycle from 0 and checks that it visits every element once.
    fn is_one_cycle(order: &[u32]) -> bool {
        let mut seen = vec![false; order.len()];
        let mut at = 0usize;
        for _ in 0..order.len() {
            if seen[at] {
                return false;
            }
            seen[at] = true;
            at = order[at] as usize;
        }
        at == 0 && seen.iter().all(|&s| s)
    }

    fn cycle(n: usize, seed: u64) -> Vec<u32> {
        let mut order = vec![u32::MAX; n];
        sattolo(&mut order, &mut XorShift64::new(seed));
        order
    }

    #[test]
    fn one_cycle_through_every_element() {
        assert!(cycle(0, 1).is_empty());
        assert_eq!(cycle(1, 1), [0]);
        assert_eq!(cycle(2, 1), [1, 0]);
        for n in [3, 4, 5, 63, 64, 65, 1000, 4096] {
            for seed in [0, 1, 42, u64::MAX] {
                assert!(is_one_cycle(&cycle(n, seed)), "n = {n}, seed = {seed}");
            }
        }
        // Not the identity shifted by one (the chase must not walk lines in order).
        let c = cycle(4096, 7);
        let sequential = c
            .iter()
            .enumerate()
            .filter(|&(i, &v)| v as usize == i + 1)
            .count();
        assert!(sequential < 16, "{sequential}");
    }

    #[test]
    fn both_cycles_of_three_appear() {
        // n = 3 has two cycles, 0→1→2→0 ([1, 2, 0]) and 0→2→1→0 ([2, 0, 1]).
        let mut counts = [0u32; 2];
        for seed in 1..=1000 {
            match cycle(3, seed).as_slice() {
                [1, 2, 0] => counts[0] += 1,
                [2, 0, 1] => counts[1] += 1,
                other => panic!("not a 3-cycle: {other:?}"),
            }
        }
        assert!(counts.iter().all(|&c| c > 400), "{counts:?}");
    }

    #[test]
    fn deterministic() {
        assert_eq!(cycle(4096, 99), cycle(4096, 99));
        assert_ne!(cycle(4096, 99), cycle(4096, 100));
        // Pinned, so that a change of the chase order between versions is noticed
        // (0 → 5 → 1 → 2 → 6 → 4 → 7 → 3 → 0).
        assert_eq!(cycle(8, 1), [5, 2, 6, 0, 7, 1, 4, 3]);
        // Known first outputs: SplitMix64(1) = 0x910a2dec89025cc1 is the state, then one
        // xorshift64 (13, 7, 17) step.
        let mut r = XorShift64::new(1);
        assert_eq!(r, XorShift64(0x910a_2dec_8902_5cc1));
        assert_eq!(r.next_u64(), 0x7274_658b_cb6f_4838);
        // Seed 0 gives a fixed non-zero state; a state of 0 is never used.
        assert_eq!(XorShift64::new(0), XorShift64(0xe220_a839_7b1d_cdaf));
        // The one seed SplitMix64 maps to 0 (−2^64/φ mod 2^64) gets the fixed state.
        let bad = 0u64.wrapping_sub(0x9e37_79b9_7f4a_7c15);
        assert_eq!(XorShift64::new(bad), XorShift64(XorShift64::ZERO_STATE));
        let mut r = XorShift64::new(0);
        assert!((0..1000).all(|_| r.next_u64() != 0));
    }

    #[test]
    fn below_stays_below() {
        let mut r = XorShift64::new(5);
        assert_eq!(r.below(0), 0);
        assert_eq!(r.below(1), 0);
        let mut hist = [0u32; 10];
        for _ in 0..100_000 {
            let x = r.below(10);
            hist[x as usize] += 1;
        }
        // Roughly uniform: each bucket within 5 % of 10 000.
        assert!(
            hist.iter().all(|&h| (9_500..=10_500).contains(&h)),
            "{hist:?}"
        );
        assert!((0..1000).all(|_| r.below(u64::MAX) < u64::MAX));
    }
}
