//! Runs the comparison's tests build: full sweeps of several kernels with a deterministic
//! noise, points the host slowed, and a planted change.

use crate::read::model::{Measurement, Run, Unit};
use mairbench_core::memtype;

/// A full sweep of one kernel: eight memory types x `sizes` sizes from 4 KiB, MB/s, each
/// point's value from `value(type index, size index)`, best = median.
pub(super) fn sweep(
    kernel: &str,
    sizes: u32,
    value: impl Fn(usize, u32) -> f64,
) -> Vec<Measurement> {
    let mut out = Vec::new();
    for s in 0..sizes {
        for (t, memtype) in memtype::MEMTYPES.iter().enumerate() {
            let v = value(t, s);
            out.push(Measurement {
                memtype: memtype.name.into(),
                kernel: kernel.into(),
                granule: "4K".into(),
                size: 4096 << s,
                unit: Unit::MegabytesPerSecond,
                best: v,
                median: v,
                cv_pct: 0.5,
                reps: 3,
                pmu: None,
                start: None,
                line_state: None,
            });
        }
    }
    out
}

/// A deterministic noise in [-1, 1) from a point's coordinates (a hash, no dependency).
pub(super) fn jitter(k: usize, t: usize, s: u32, run: u64) -> f64 {
    let mut h = (k as u64) << 40 ^ (t as u64) << 20 ^ u64::from(s) << 4 ^ run;
    h = h.wrapping_mul(0x9E37_79B9_7F4A_7C15);
    h ^= h >> 29;
    h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
    h ^= h >> 32;
    (h % 2000) as f64 / 1000.0 - 1.0
}

pub(super) const KERNELS: [&str; 6] = [
    "read-ldp",
    "write-stp",
    "read-ldnp",
    "copy-to",
    "copy-from",
    "write-line",
];

/// A run of six kernels x 8 types x 12 sizes: a base value per type, times 1 +- 2 %
/// noise, times `factor`; `slow(k, t, s)` says which points the host slowed by 1.7x.
pub(super) fn noisy_run(
    run: u64,
    factor: f64,
    slow: impl Fn(usize, usize, u32) -> bool,
    planted: Option<(&str, &str, f64)>,
) -> Run {
    let mut measurements = Vec::new();
    for (k, kernel) in KERNELS.iter().enumerate() {
        measurements.extend(sweep(kernel, 12, |t, s| {
            let base = if t < 4 { 4000.0 } else { 400.0 } * (1.0 + 0.1 * t as f64);
            let mut v = base * factor * (1.0 + 0.02 * jitter(k, t, s, run));
            if slow(k, t, s) {
                v /= 1.7;
            }
            if let Some((pk, pt, f)) = planted {
                if pk == *kernel && memtype::MEMTYPES[t].name == pt {
                    v *= f;
                }
            }
            v
        }));
    }
    Run {
        measurements,
        ..Run::default()
    }
}
