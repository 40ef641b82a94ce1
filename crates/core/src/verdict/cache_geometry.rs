//! `cache-geometry`: each cache the registers report shows as a step in the write-back curve.

use core::fmt;

use super::points::{faster, named, position, Step, Times, View};
use super::{Basis, Evidence, Name, Scope, Spec, Status, Sweep, Verdict, STEP_RATIO};
use crate::format::Bytes;
use crate::kernel::Kernel;
use crate::memtype::Role;

pub const SPEC: Spec = Spec {
    name: Name::CacheGeometry,
    id: "cache-geometry",
    checks: "Each data cache CLIDR_EL1/CCSIDR_EL1 report shows as a step in the normal-wb curve (latency on 2 MiB blocks when measured, else read-ldp) across its size.",
    threshold: "A step ≥ 1.30× (inside ≤ C/2 vs outside ≥ 2·C) across every level: pass; across some: warn; across none: fail.",
    failure: "CCSIDR_EL1 describes the set/way view, not necessarily the real cache (the Arm ARM says so): a level without a step may be smaller, larger, shared with other cores or partitioned; no step at all means the caches are not in use.",
    next: "Rerun with mairbench.kernels=latency and mairbench.sizes= from a quarter to eight times the level without a step: a step at another size is the real cache's size; no step anywhere while caches-on fails is the cache being off.",
    basis: Basis::Timing,
    scope: Scope::Core,
};

/// Evidence keys of the step across each level.
const LEVEL_STEP: [&str; 7] = [
    "l1_step", "l2_step", "l3_step", "l4_step", "l5_step", "l6_step", "l7_step",
];

/// Why `cache-geometry` came out as it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// Steps across every reported level.
    Ok {
        /// The kernel used.
        kernel: Kernel,
        /// Levels judged.
        levels: u8,
    },
    /// A level without a step (some or none with one).
    Missing {
        /// The kernel used.
        kernel: Kernel,
        /// The first level without a step.
        level: u8,
        /// Its size.
        cache: u64,
        /// The size inside (≤ half the cache).
        inside: u64,
        /// The size outside (≥ twice the cache).
        outside: u64,
        /// The step seen there, hundredths.
        step: u64,
        /// Levels with a step.
        stepped: u8,
        /// Levels judged.
        levels: u8,
    },
    /// No cache reported, yet the write-back curve steps.
    Unreported {
        /// The kernel used.
        kernel: Kernel,
        /// The largest step between adjacent sizes, hundredths.
        step: u64,
        /// Between this size and the next.
        at: u64,
    },
    /// No latency or read points of the write-back type.
    NotMeasured,
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let wb = const { named(Role::WriteBack) };
        match *self {
            // Small counts as u64: one integer Display in the image for all.
            Why::Ok { kernel, levels } => write!(
                f,
                "{wb} {} steps across each of the {levels} reported caches",
                kernel.spec().name,
                levels = u64::from(levels)
            ),
            Why::Missing {
                kernel,
                level,
                cache,
                inside,
                outside,
                step,
                stepped,
                levels,
            } => write!(
                f,
                "{wb} {} shows no step across L{level} ({}): {} from {} to {}, a cache gives at least {}; {stepped} of {levels} reported caches show",
                kernel.spec().name,
                Bytes(cache),
                Times(step),
                Bytes(inside),
                Bytes(outside),
                Times(STEP_RATIO),
                level = u64::from(level),
                stepped = u64::from(stepped),
                levels = u64::from(levels)
            ),
            Why::Unreported { kernel, step, at } => write!(
                f,
                concat!(
                    crate::arch_name!(clidr),
                    " reports no data cache, yet {wb} {} steps {} after {}"
                ),
                kernel.spec().name,
                Times(step),
                Bytes(at),
                wb = wb
            ),
            Why::NotMeasured => write!(
                f,
                "not measured: no {} or {} points of {wb}",
                Kernel::Latency.spec().name,
                Kernel::ReadLdp.spec().name
            ),
        }
    }
}

fn verdict(status: Status, e: Evidence, why: Why) -> Verdict {
    Verdict::new(SPEC.name, status, e, super::Why::CacheGeometry(why))
}

// Not inlined: see `super::judge`.
#[inline(never)]
pub(super) fn judge<S: Sweep + ?Sized>(v: &View<'_, '_, S>) -> Verdict {
    let mut e = Evidence::new();
    let wb = position(Role::WriteBack);
    // Latency when measured (the chase shows every level), else read-ldp.
    let kernel = [Kernel::Latency, Kernel::ReadLdp]
        .iter()
        .copied()
        .find(|&k| {
            v.i.sweep
                .sizes()
                .iter()
                .any(|&s| v.value(k, wb, s).is_some())
        });
    let Some(kernel) = kernel else {
        return verdict(Status::NotApplicable, e, Why::NotMeasured);
    };
    if v.caches().next().is_none() {
        let (status, why) = unreported(v, kernel, &mut e);
        return Verdict::new(SPEC.name, status, e, why);
    }
    let (mut levels, mut stepped) = (0u8, 0u8);
    let mut missing: Option<(u8, u64, Step)> = None;
    for c in v.caches() {
        let Some(step) = v.step(kernel, wb, c.size()) else {
            continue;
        };
        levels = levels.saturating_add(1);
        if let Some(k) = LEVEL_STEP.get(usize::from(c.level).saturating_sub(1)) {
            e.hundredths(k, step.ratio);
        }
        if step.ratio >= STEP_RATIO {
            stepped = stepped.saturating_add(1);
        } else if missing.is_none() {
            missing = Some((c.level, c.size(), step));
        }
    }
    e.hundredths("min_step", STEP_RATIO);
    let Some((level, cache, step)) = missing else {
        return if levels == 0 {
            let why = super::Why::Missing(
                "the sweep does not reach from half to twice any reported cache size",
            );
            Verdict::new(SPEC.name, Status::NotApplicable, e, why)
        } else {
            verdict(Status::Pass, e, Why::Ok { kernel, levels })
        };
    };
    let status = if stepped == 0 {
        Status::Fail
    } else {
        Status::Warn
    };
    let why = Why::Missing {
        kernel,
        level,
        cache,
        inside: step.inside,
        outside: step.outside,
        step: step.ratio,
        stepped,
        levels,
    };
    verdict(status, e, why)
}

/// No cache reported: a warn when the write-back curve steps between adjacent sizes anyway,
/// else n/a (the evidence of a step goes to `e`).
fn unreported<S: Sweep + ?Sized>(
    v: &View<'_, '_, S>,
    kernel: Kernel,
    e: &mut Evidence,
) -> (Status, super::Why) {
    let unit = kernel.spec().unit;
    let wb = position(Role::WriteBack);
    // The largest step between adjacent measured points (the last of equals) and the size
    // before it: a plain loop, which takes far fewer instructions than zipped iterators.
    let mut biggest: Option<(u64, u64)> = None;
    let mut before: Option<(u64, u64)> = None;
    for &size in v.i.sweep.sizes() {
        let Some(value) = v.value(kernel, wb, size) else {
            continue;
        };
        if let Some((at, step)) = before.and_then(|(at, b)| Some((at, faster(unit, b, value)?))) {
            if biggest.is_none_or(|(_, most)| step >= most) {
                biggest = Some((at, step));
            }
        }
        before = Some((size, value));
    }
    match biggest {
        Some((at, step)) if step >= STEP_RATIO => {
            e.hundredths("step", step);
            e.hundredths("min_step", STEP_RATIO);
            e.whole("after_bytes", at);
            let why = Why::Unreported { kernel, step, at };
            (Status::Warn, super::Why::CacheGeometry(why))
        }
        _ => {
            let why = super::Why::Missing(concat!(
                crate::arch_name!(clidr),
                " reports no data or unified cache, and the sweep shows none"
            ));
            (Status::NotApplicable, why)
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::super::judge;
    use super::super::testing::*;
    use super::*;
    use crate::cache::CacheLevel;
    use std::format;

    #[test]
    fn cache_geometry_verdicts() {
        let wb = name(Role::WriteBack);
        // CCSIDR says L2 is 4 MiB, the curve steps at 1 MiB: no step across 2..8 MiB.
        let caches = [level(1, 32 * KIB), level(2, 4 * MIB)];
        let s = sweep(32 * MIB, a72);
        let v = judge(&inputs(&caches, &s));
        assert_eq!(status(&v, Name::CacheGeometry), Status::Warn);
        assert_eq!(
            why(&v, Name::CacheGeometry),
            format!("{wb} latency shows no step across L2 (4 MiB): 1.0x from 2 MiB to 8 MiB, a cache gives at least 1.3x; 1 of 2 reported caches show")
        );
        // No caches reported, yet the curve steps: warn.
        let s = sweep(32 * MIB, a72);
        let v = judge(&inputs(&[], &s));
        assert_eq!(status(&v, Name::CacheGeometry), Status::Warn);
        assert_eq!(
            why(&v, Name::CacheGeometry),
            format!("CLIDR_EL1 reports no data cache, yet {wb} latency steps 12.0x after 1 MiB")
        );
        // ... and flat: n/a.
        let s = sweep(32 * MIB, caches_off);
        let v = judge(&inputs(&[], &s));
        assert_eq!(status(&v, Name::CacheGeometry), Status::NotApplicable);
        // A sweep that cannot bracket any level: n/a.
        let s = sweep(32 * KIB, a72);
        let v = judge(&inputs(&a72_caches(), &s));
        assert_eq!(status(&v, Name::CacheGeometry), Status::NotApplicable);
        // Fillers of level 0 are ignored.
        let mut padded = [CacheLevel::NONE; crate::cache::MAX_LEVELS];
        padded[..2].copy_from_slice(&a72_caches());
        let s = sweep(32 * MIB, a72);
        let v = judge(&inputs(&padded, &s));
        assert_eq!(status(&v, Name::CacheGeometry), Status::Pass);
        assert_eq!(status(&v, Name::DeviceReadCliff), Status::Pass);
    }
}
