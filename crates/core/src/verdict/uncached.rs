//! `uncached`: the non-cacheable and Device aliases show no cache.

use core::fmt;

use super::points::{centi, Times, View, UNCACHED};
use super::{event, Basis, Evidence, Name, Scope, Spec, Status, Sweep, Verdict, STEP_RATIO};
use crate::format::Bytes;
use crate::kernel::Kernel;
use crate::memtype::MEMTYPES;

pub const SPEC: Spec = Spec {
    name: Name::Uncached,
    id: "uncached",
    checks: "normal-nc and the Device types show no step in read-ldp across any reported cache size, or the PMU counts a bus access per line read through them.",
    threshold: "No step ≥ 1.30× (inside ≤ C/2 vs outside ≥ 2·C), or ≥ 0.50 bus_access per line; a step with bus accesses per line is a warn.",
    failure: "An alias meant to be uncached is served by a cache: a wrong MAIR byte or AttrIndx, or an interconnect or system cache that caches non-cacheable traffic. Device drivers and DMA buffers on such a mapping see stale data.",
    next: "Compare each uncached alias's memtype record (par_attr against its mair byte): a wrong byte is the mapping. With the right bytes, rerun with mairbench.kernels=read-ldp,latency mairbench.types=normal-wb,normal-nc,device-ngnre and sizes past the last level (mairbench.sizes=): a step in normal-nc at a size no CLIDR level explains is a cache beyond the cores (an interconnect's or a system cache) caching non-cacheable reads.",
    basis: Basis::Timing,
    scope: Scope::Core,
};

/// "A bus access per line": at least 0.50 bus accesses per 64-byte line (hundredths). An
/// uncached read reaches the bus for every line (often in several beats); a cache hit never.
pub const BUS_PER_LINE: u64 = 50;

/// Why `uncached` came out as it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// No uncached type steps across a cache.
    Flat {
        /// The largest step seen, hundredths.
        step: u64,
    },
    /// The PMU counts bus accesses per line on the uncached types.
    Bus {
        /// The smallest count, hundredths per line.
        per_line: u64,
    },
    /// An uncached type steps across a cache.
    Step {
        /// Memory type name.
        memtype: &'static str,
        /// The cache's level.
        level: u8,
        /// Its size in bytes.
        cache: u64,
        /// The step, hundredths.
        step: u64,
        /// Bus accesses per line the PMU counted (then the verdict is a warn).
        bus: Option<u64>,
    },
    /// The PMU counts too few bus accesses on an uncached type.
    NoBus {
        /// The smallest count, hundredths per line.
        per_line: u64,
    },
    /// Nothing measured to judge by.
    Missing,
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let nc = const { super::points::named(crate::memtype::Role::NonCacheable) };
        match *self {
            Why::Flat { step } => write!(
                f,
                "{nc} and Device reads show no step across the reported caches (largest {}, a cache gives at least {})",
                Times(step),
                Times(STEP_RATIO)
            ),
            Why::Bus { per_line } => write!(
                f,
                "the PMU counts {} bus accesses per line read through the uncached aliases: every line goes to the bus",
                centi(per_line)
            ),
            Why::Step {
                memtype,
                level,
                cache,
                step,
                bus,
            } => {
                write!(
                    f,
                    "{memtype} reads step {} across L{level} ({})",
                    Times(step),
                    Bytes(cache),
                    level = u64::from(level)
                )?;
                match bus {
                    Some(b) => write!(
                        f,
                        ", yet the PMU counts {} bus accesses per line: something beyond the core's caches (a system cache, a prefetcher) serves it",
                        centi(b)
                    ),
                    None => f.write_str(": an uncached alias is served by a cache (check its MAIR byte, AttrIndx and the interconnect)"),
                }
            }
            Why::NoBus { per_line } => write!(
                f,
                "the PMU counts only {} bus accesses per line read through an uncached alias: a cache serves it",
                centi(per_line)
            ),
            Why::Missing => write!(
                f,
                "not measured: no {} points of {nc} or Device types across a reported cache, no PMU count",
                Kernel::ReadLdp.spec().name
            ),
        }
    }
}

fn verdict(status: Status, e: Evidence, why: Why) -> Verdict {
    Verdict::new(SPEC.name, status, e, super::Why::Uncached(why))
}

// Not inlined: see `super::judge`.
#[inline(never)]
pub(super) fn judge<S: Sweep + ?Sized>(v: &View<'_, '_, S>) -> Verdict {
    let mut e = Evidence::new();
    let k = Kernel::ReadLdp;
    // The largest step of any uncached type across any reported cache.
    let mut worst: Option<(usize, u8, u64, u64)> = None;
    for &t in &UNCACHED {
        for c in v.caches() {
            let Some(step) = v.step(k, t, c.size()) else {
                continue;
            };
            if worst.is_none_or(|w| step.ratio > w.3) {
                worst = Some((t, c.level, c.size(), step.ratio));
            }
        }
    }
    // The fewest bus accesses per line on an uncached type, at the L1 set.
    let mut bus: Option<u64> = None;
    if let Some(size) = v.l1_set {
        for &t in &UNCACHED {
            if let Some(b) = v.i.sweep.pmu(k, t, size, event::BUS_ACCESS) {
                bus = Some(bus.map_or(b, |fewest| fewest.min(b)));
            }
        }
    }
    if let Some((_, _, cache, step)) = worst {
        e.hundredths("step", step);
        e.hundredths("min_step", STEP_RATIO);
        e.whole("cache_bytes", cache);
    }
    if let Some(b) = bus {
        e.hundredths("bus_access_per_line", b);
        e.hundredths("min_bus_access_per_line", BUS_PER_LINE);
    }
    let bus_ok = bus.map(|b| b >= BUS_PER_LINE);
    let (status, why) = match (worst, bus_ok) {
        (None, None) => (Status::NotApplicable, Why::Missing),
        (Some((t, level, cache, step)), _) if step >= STEP_RATIO => {
            let status = if bus_ok == Some(true) {
                Status::Warn
            } else {
                Status::Fail
            };
            let why = Why::Step {
                memtype: MEMTYPES.get(t).map_or("", |t| t.name),
                level,
                cache,
                step,
                bus: bus.filter(|_| status == Status::Warn),
            };
            (status, why)
        }
        (_, Some(false)) => {
            let per_line = bus.unwrap_or(0);
            (Status::Fail, Why::NoBus { per_line })
        }
        (Some((_, _, _, step)), _) => (Status::Pass, Why::Flat { step }),
        (None, Some(_)) => {
            let per_line = bus.unwrap_or(0);
            (Status::Pass, Why::Bus { per_line })
        }
    };
    verdict(status, e, why)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::super::judge;
    use super::super::testing::*;
    use super::*;
    use crate::memtype::Role;
    use std::format;

    #[test]
    fn uncached_verdicts() {
        let caches = a72_caches();
        // The non-cacheable alias cached by mistake: steps 2.5x across L2, fail.
        let s = sweep(32 * MIB, nc_cached);
        let v = judge(&inputs(&caches, &s));
        assert_eq!(status(&v, Name::Uncached), Status::Fail);
        assert_eq!(
            why(&v, Name::Uncached),
            format!(
                "{} reads step 2.5x across L2 (1 MiB): an uncached alias is served by a cache (check its MAIR byte, AttrIndx and the interconnect)",
                name(Role::NonCacheable)
            )
        );
        // The same step with a bus access per line: something outside the core, a warn.
        let mut s = sweep(32 * MIB, nc_cached);
        s.pmu = |_, t, _, event| {
            (event == event::BUS_ACCESS && t.role != Role::WriteBack).then_some(400)
        };
        let v = judge(&inputs(&caches, &s));
        assert_eq!(status(&v, Name::Uncached), Status::Warn);
        assert!(why(&v, Name::Uncached).contains("yet the PMU counts 4.00 bus accesses per line"));
        // PMU only (no sweep across a cache): a bus access per line passes, none fails.
        let mut s = sweep(16 * KIB, a72);
        s.pmu = |_, _, _, event| (event == event::BUS_ACCESS).then_some(100);
        let v = judge(&inputs(&caches, &s));
        assert_eq!(status(&v, Name::Uncached), Status::Pass);
        assert_eq!(
            why(&v, Name::Uncached),
            "the PMU counts 1.00 bus accesses per line read through the uncached aliases: every line goes to the bus"
        );
        s.pmu = |_, _, _, event| (event == event::BUS_ACCESS).then_some(2);
        let v = judge(&inputs(&caches, &s));
        assert_eq!(status(&v, Name::Uncached), Status::Fail);
        assert_eq!(ev(&v, Name::Uncached, "bus_access_per_line"), Some(2));
        // Nothing across a cache, no PMU: n/a.
        let s = sweep(16 * KIB, a72);
        assert_eq!(
            status(&judge(&inputs(&caches, &s)), Name::Uncached),
            Status::NotApplicable
        );
    }
}
