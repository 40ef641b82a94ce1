//! Statistics of repeated timings, and the unit conversions of the report, in integer and
//! fixed-point arithmetic only (no floating point: its formatting code would not fit the
//! image, and integer results are exact and reproducible).
//!
//! Samples are times (timer ticks): the best one is the smallest.

use crate::kernel::Unit;

/// Most repetitions (timed samples) of one measurement.
pub const MAX_REPS: usize = 64;

/// What a set of samples says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Summary {
    /// Number of samples.
    pub n: u32,
    /// The smallest sample (the best time).
    pub best: u64,
    /// The largest sample (the worst time).
    pub worst: u64,
    /// The median; the lower of the two middle samples when `n` is even.
    pub median: u64,
    /// The arithmetic mean, rounded to the nearest integer (halves up).
    pub mean: u64,
    /// Coefficient of variation (population standard deviation / mean) in thousandths,
    /// i.e. tenths of a percent (`123` = 12.3 %), rounded to the nearest; 0 when the mean is
    /// 0.
    pub cv_permille: u32,
}

/// Sorts `samples` in place (ascending) and summarizes them; `None` when there are none.
///
/// The sort is an insertion sort: no allocation, and quick for the few dozen samples of a
/// measurement ([`MAX_REPS`]).
pub fn summarize(samples: &mut [u64]) -> Option<Summary> {
    insertion_sort(samples);
    let best = *samples.first()?;
    let worst = *samples.last()?;
    let count = samples.len();
    let median = *samples.get(count.saturating_sub(1) / 2)?;
    let n = u128::try_from(count).ok()?;
    let sum = samples
        .iter()
        .try_fold(0u128, |s, &x| s.checked_add(u128::from(x)))?;
    let (mean, _) = div_rem(sum.checked_add(n / 2)?, n)?;
    Some(Summary {
        n: u32::try_from(count).unwrap_or(u32::MAX),
        best,
        worst,
        median,
        mean: u64::try_from(mean).unwrap_or(u64::MAX),
        cv_permille: cv_permille(samples, worst),
    })
}

fn insertion_sort(v: &mut [u64]) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 {
            let prev = j.wrapping_sub(1);
            match (v.get(prev), v.get(j)) {
                (Some(a), Some(b)) if a > b => v.swap(prev, j),
                _ => break,
            }
            j = prev;
        }
    }
}

/// Coefficient of variation in thousandths, rounded to the nearest.
///
/// With `n` samples, `s1` their sum and `s2` the sum of their squares, the population
/// variance is `(n·s2 − s1²) / n²` and the mean `s1 / n`, so
/// `cv = sqrt(n·s2 − s1²) / s1` exactly, and `round(1000·cv)` is the integer `m` with
/// `m = (⌊sqrt(4·10⁶·(n·s2 − s1²) / s1²)⌋ + 1) / 2` (all floors), which integer square roots
/// compute exactly. Large samples are first shifted right (the ratio does not change with
/// the scale, and the bits lost are far below a thousandth) until the sums fit in `u128`.
fn cv_permille(samples: &[u64], max: u64) -> u32 {
    let Ok(n) = u128::try_from(samples.len()) else {
        return u32::MAX;
    };
    // Bits the sums may use: 4·10⁶·n²·max² < 2^(22 + 2·(n_bits + max_bits)) must stay below
    // 2^128; the loop below catches what this estimate misses.
    let n_bits = u128::BITS.saturating_sub(n.leading_zeros());
    let max_bits = u64::BITS.saturating_sub(max.leading_zeros());
    let room = 105u32.saturating_sub(n_bits.saturating_mul(2)) / 2;
    let mut shift = max_bits.saturating_sub(room);
    loop {
        if let Some(cv) = cv_shifted(samples, n, shift) {
            return cv;
        }
        if shift >= u64::BITS {
            return 0; // every sample is 0 after the shift: nothing to say
        }
        shift = shift.saturating_add(1);
    }
}

fn cv_shifted(samples: &[u64], n: u128, shift: u32) -> Option<u32> {
    let (mut s1, mut s2) = (0u128, 0u128);
    for &x in samples {
        let x = u128::from(x.checked_shr(shift).unwrap_or(0));
        s1 = s1.checked_add(x)?;
        s2 = s2.checked_add(x.checked_mul(x)?)?;
    }
    if s1 == 0 {
        return Some(0);
    }
    // n·s2 ≥ s1² (Cauchy–Schwarz), so the subtraction cannot go below zero.
    let spread = n.checked_mul(s2)?.checked_sub(s1.checked_mul(s1)?)?;
    let (scaled, _) = div_rem(spread.checked_mul(4_000_000)?, s1.checked_mul(s1)?)?;
    let twice = isqrt(scaled); // ⌊2000·cv⌋
    Some(u32::try_from(twice.checked_add(1)? / 2).unwrap_or(u32::MAX))
}

/// `⌊√v⌋`, one bit of the root at a time (what `u128::isqrt` returns, without the 512-byte
/// lookup table and the code it brings into the firmware image).
fn isqrt(v: u128) -> u128 {
    let (mut rem, mut root) = (v, 0u128);
    // The highest power of 4 not above `v`.
    let mut bit = match v.checked_ilog2() {
        Some(log) => 1u128 << (log & !1),
        None => return 0,
    };
    while bit != 0 {
        // `root` holds the bits found so far shifted up past `bit`, so the sum cannot wrap.
        let trial = root.wrapping_add(bit);
        root >>= 1;
        if rem >= trial {
            rem = rem.wrapping_sub(trial);
            root = root.wrapping_add(bit);
        }
        bit >>= 2;
    }
    root
}

/// `(num / den, num % den)`; `None` when `den` is 0.
///
/// Long division, one bit of the quotient at a time: every `u128` division of the firmware
/// comes here, so that its image carries these few instructions rather than
/// compiler_builtins' `__udivti3` and `__umodti3` (about 850 bytes); the few divisions per
/// measured point do not notice the 128 steps.
pub fn div_rem(num: u128, den: u128) -> Option<(u128, u128)> {
    if den == 0 {
        return None;
    }
    let (mut q, mut r) = (0u128, 0u128);
    for i in (0..u128::BITS).rev() {
        // `r < den` before the shift: a bit carried out of `r` means `2r + bit ≥ den`, and
        // the wrapping subtraction below gives the remainder exactly.
        let carry = r >> 127;
        r = (r << 1) | ((num >> i) & 1);
        q <<= 1;
        if carry != 0 || r >= den {
            r = r.wrapping_sub(den);
            q |= 1;
        }
    }
    Some((q, r))
}

/// `num / den` rounded to the nearest integer (halves up); `None` when `den` is 0 or the
/// result does not fit in a `u64`.
pub(crate) fn div_round(num: u128, den: u128) -> Option<u64> {
    let (q, r) = div_rem(num, den)?;
    // r ≥ den − r  ⇔  the remainder is at least half of den.
    let q = if r >= den.checked_sub(r)? {
        q.checked_add(1)?
    } else {
        q
    };
    u64::try_from(q).ok()
}

/// Bandwidth in MB/s (10^6 bytes per second) of `bytes` moved in `ticks` of a timer
/// running at `freq_hz`, rounded to the nearest; `None` when `ticks` or `freq_hz` is 0, or
/// the result does not fit in a `u64`.
///
/// 1 MiB in 62 500 ticks at 62.5 MHz (1 ms) is 1048.576 MB/s, so `Some(1049)`.
pub fn mbps(bytes: u64, ticks: u64, freq_hz: u64) -> Option<u64> {
    if freq_hz == 0 {
        return None;
    }
    let num = u128::from(bytes).checked_mul(u128::from(freq_hz))?;
    let den = u128::from(ticks).checked_mul(1_000_000)?;
    div_round(num, den)
}

/// Time per unit (per load, per line) in hundredths of a nanosecond: `ticks` of a timer at
/// `freq_hz` spent on `units` units, rounded to the nearest; `None` when `units` or
/// `freq_hz` is 0, or the result does not fit in a `u64`.
///
/// 1000 loads in 625 ticks at 62.5 MHz (10 µs) take 10 ns each, so `Some(1000)`.
pub fn per_unit_centi_ns(ticks: u64, units: u64, freq_hz: u64) -> Option<u64> {
    // ticks / freq seconds = ticks · 10^11 / freq hundredths of a nanosecond.
    let num = u128::from(ticks).checked_mul(100_000_000_000)?;
    let den = u128::from(freq_hz).checked_mul(u128::from(units))?;
    div_round(num, den)
}

/// A sample of `ticks` over `total` bytes, loads or lines in `unit`: MB/s ([`mbps`]) or
/// hundredths of a ns per load or line ([`per_unit_centi_ns`]).
pub fn in_unit(unit: Unit, total: u64, ticks: u64, freq_hz: u64) -> Option<u64> {
    match unit {
        Unit::Bandwidth => mbps(total, ticks, freq_hz),
        Unit::NsPerLoad | Unit::NsPerLine => per_unit_centi_ns(ticks, total, freq_hz),
    }
}

/// `value / reference` in thousandths (`1000` = 1.000×), rounded to the nearest; `None`
/// when `reference` is 0 or the result does not fit in a `u64`.
pub fn ratio_permille(value: u64, reference: u64) -> Option<u64> {
    div_round(u128::from(value).checked_mul(1000)?, u128::from(reference))
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    #[test]
    fn isqrt_is_the_floor_of_the_root() {
        let mut values: Vec<u128> = (0..2000).collect();
        for k in 1..128 {
            let p = 1u128 << k;
            values.extend([p - 1, p, p + 1]);
        }
        for r in [3u128, 1_000_003, 0x1_0000_0001, u64::MAX as u128] {
            values.extend([r * r - 1, r * r, r * r + 1]);
        }
        values.extend([
            u128::MAX,
            u128::MAX - 1,
            0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
        ]);
        for v in values {
            assert_eq!(isqrt(v), v.isqrt(), "{v}");
        }
    }

    #[test]
    fn div_rem_is_the_quotient_and_remainder() {
        let mut values: Vec<u128> = (0..300).collect();
        for k in 1..128 {
            let p = 1u128 << k;
            values.extend([p - 1, p, p + 1]);
        }
        values.extend([
            u128::MAX,
            u128::MAX - 1,
            1_000_000_000,
            100_000_000_000,
            0x0123_4567_89ab_cdef_fedc_ba98_7654_3210,
        ]);
        for &n in &values {
            assert_eq!(div_rem(n, 0), None);
            for &d in values.iter().filter(|&&d| d != 0) {
                assert_eq!(div_rem(n, d), Some((n / d, n % d)), "{n} / {d}");
            }
        }
    }

    fn sum(v: &[u64]) -> Summary {
        let mut v = v.to_vec();
        summarize(&mut v).unwrap()
    }

    /// Reference CV in thousandths, in floating point (tests only).
    fn cv_float(v: &[u64]) -> f64 {
        let n = v.len() as f64;
        let mean = v.iter().map(|&x| x as f64).sum::<f64>() / n;
        let var = v.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / n;
        1000.0 * var.sqrt() / mean
    }

    #[test]
    fn empty_and_single() {
        assert_eq!(summarize(&mut []), None);
        assert_eq!(
            sum(&[7]),
            Summary {
                n: 1,
                best: 7,
                worst: 7,
                median: 7,
                mean: 7,
                cv_permille: 0
            }
        );
    }

    #[test]
    fn best_median_mean_odd_and_even() {
        let mut v = [50, 10, 40, 20, 30];
        let s = summarize(&mut v).unwrap();
        assert_eq!(v, [10, 20, 30, 40, 50]);
        assert_eq!(
            (s.n, s.best, s.worst, s.median, s.mean),
            (5, 10, 50, 30, 30)
        );
        // Even n: the lower median; the mean rounds halves up (25 / 4 = 6.25 → 6,
        // 26 / 4 = 6.5 → 7).
        let s = sum(&[9, 1, 7, 8]);
        assert_eq!((s.n, s.best, s.median, s.mean), (4, 1, 7, 6));
        assert_eq!(sum(&[1, 8, 9, 8]).mean, 7);
        assert_eq!(sum(&[3, 3, 1, 1]).median, 1);
        // Duplicates and already sorted / reversed input.
        let s = sum(&[5, 5, 5, 1, 5]);
        assert_eq!((s.best, s.median), (1, 5));
        let mut desc: Vec<u64> = (0..MAX_REPS as u64).rev().collect();
        let s = summarize(&mut desc).unwrap();
        assert!(desc.windows(2).all(|w| w[0] <= w[1]));
        assert_eq!((s.n, s.best, s.worst, s.median), (64, 0, 63, 31));
    }

    #[test]
    fn coefficient_of_variation_hand_computed() {
        // Constant: no spread.
        assert_eq!(sum(&[1234; 10]).cv_permille, 0);
        // {9, 10, 11}: mean 10, population variance 2/3, stddev 0.8165: 8.165 % → 82.
        assert_eq!(sum(&[9, 10, 11]).cv_permille, 82);
        // {1, 3}: mean 2, stddev 1: 50 % → 500.
        assert_eq!(sum(&[1, 3]).cv_permille, 500);
        // {2, 4, 4, 4, 5, 5, 7, 9}: mean 5, stddev 2 (the textbook example): 40 % → 400.
        assert_eq!(sum(&[2, 4, 4, 4, 5, 5, 7, 9]).cv_permille, 400);
        // {0, 0, 0, 4}: mean 1, stddev sqrt(3) = 1.732: 173.2 % → 1732.
        assert_eq!(sum(&[0, 0, 0, 4]).cv_permille, 1732);
        // {100, 101}: mean 100.5, stddev 0.5: 0.4975 % → 4.975 → 5.
        assert_eq!(sum(&[100, 101]).cv_permille, 5);
        // All zeros: the mean is 0, the CV is said to be 0.
        assert_eq!(sum(&[0, 0, 0]).cv_permille, 0);
    }

    #[test]
    fn coefficient_of_variation_matches_floating_point() {
        let mut x = 0x1234_5678_9abc_def1u64;
        for round in 0..2000u32 {
            let n = 1 + (round as usize % MAX_REPS);
            let scale = [10u64, 1_000, 1 << 20, 1 << 40, 1 << 62, u64::MAX][round as usize % 6];
            let v: Vec<u64> = (0..n)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    ((u128::from(x) * u128::from(scale)) >> 64) as u64
                })
                .collect();
            let got = sum(&v).cv_permille;
            let want = cv_float(&v);
            if want.is_finite() {
                assert!(
                    (f64::from(got) - want).abs() <= 0.5 + 1e-6,
                    "{v:?}: {got} vs {want}"
                );
            }
        }
    }

    #[test]
    fn extreme_values_never_overflow() {
        let s = sum(&[u64::MAX; MAX_REPS]);
        assert_eq!(
            (s.best, s.median, s.mean, s.cv_permille),
            (u64::MAX, u64::MAX, u64::MAX, 0)
        );
        let s = sum(&[0, u64::MAX]);
        assert_eq!((s.mean, s.cv_permille), (u64::MAX / 2 + 1, 1000));
        let s = sum(&[u64::MAX, u64::MAX - 1, 1]);
        assert_eq!(s.median, u64::MAX - 1);
        // Many samples (more than MAX_REPS is allowed, just slow to sort).
        let mut big = std::vec![u64::MAX; 5000];
        big[0] = 0;
        let s = summarize(&mut big).unwrap();
        assert_eq!((s.n, s.best), (5000, 0));
        assert_eq!(s.cv_permille, cv_float(&big).round() as u32);
    }

    #[test]
    fn bandwidth() {
        // 1 MiB in 1 ms (62 500 ticks at 62.5 MHz) = 1048.576 MB/s.
        assert_eq!(mbps(1 << 20, 62_500, 62_500_000), Some(1049));
        // 1 GB in 1 s at 24 MHz.
        assert_eq!(mbps(1_000_000_000, 24_000_000, 24_000_000), Some(1000));
        // Rounding: 1.5 MB/s → 2, 1.4999 → 1.
        assert_eq!(mbps(1_500_000, 1, 1), Some(2));
        assert_eq!(mbps(1_499_999, 1, 1), Some(1));
        assert_eq!(mbps(0, 5, 5), Some(0));
        assert_eq!(mbps(1, 0, 62_500_000), None);
        assert_eq!(mbps(1, 1, 0), None);
        // Extremes: no overflow, None when the result does not fit.
        assert_eq!(mbps(u64::MAX, 1, u64::MAX), None);
        assert_eq!(mbps(u64::MAX, u64::MAX, u64::MAX), Some(18_446_744_073_710));
        assert_eq!(mbps(u64::MAX, 1, 1_000_000), Some(u64::MAX));
    }

    #[test]
    fn time_per_unit() {
        // 1000 loads in 10 µs (625 ticks at 62.5 MHz): 10 ns each = 1000 hundredths.
        assert_eq!(per_unit_centi_ns(625, 1000, 62_500_000), Some(1000));
        // One tick of a 24 MHz timer is 41.666… ns → 4167 hundredths.
        assert_eq!(per_unit_centi_ns(1, 1, 24_000_000), Some(4167));
        // 5 ticks for 3 lines at 1 GHz: 1.666… ns → 167.
        assert_eq!(per_unit_centi_ns(5, 3, 1_000_000_000), Some(167));
        assert_eq!(per_unit_centi_ns(0, 3, 1_000), Some(0));
        assert_eq!(per_unit_centi_ns(1, 0, 1_000), None);
        assert_eq!(per_unit_centi_ns(1, 1, 0), None);
        assert_eq!(per_unit_centi_ns(u64::MAX, 1, 1), None);
        assert_eq!(
            per_unit_centi_ns(u64::MAX, u64::MAX, u64::MAX),
            Some(0) // 10^11 / 2^64 of a unit
        );
        assert_eq!(
            per_unit_centi_ns(u64::MAX, 1, u64::MAX),
            Some(100_000_000_000)
        );
    }

    #[test]
    fn ratios() {
        assert_eq!(ratio_permille(1, 1), Some(1000));
        assert_eq!(ratio_permille(1, 3), Some(333));
        assert_eq!(ratio_permille(2, 3), Some(667));
        assert_eq!(ratio_permille(100, 7), Some(14_286));
        assert_eq!(ratio_permille(0, 7), Some(0));
        assert_eq!(ratio_permille(7, 0), None);
        assert_eq!(ratio_permille(u64::MAX, u64::MAX), Some(1000));
        assert_eq!(ratio_permille(u64::MAX, 1), None);
        assert_eq!(ratio_permille(1, u64::MAX), Some(0));
    }
}
