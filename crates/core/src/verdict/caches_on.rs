//! `caches-on`: SCTLR_EL1.C and I are set, and the caches show in the numbers.

use core::fmt;

use super::held::{self, Direction, Held};
use super::points::{faster, named, Times, View};
use super::{Basis, Evidence, Name, Scope, Spec, Status, Sweep, Verdict, CLEAR_RATIO};
use crate::format::Bytes;
use crate::kernel::{Kernel, Unit};
use crate::memtype::Role;

pub const SPEC: Spec = Spec {
    name: Name::CachesOn,
    id: "caches-on",
    checks: "SCTLR_EL1.C and I are set, and the caches show: normal-wb read-ldp at the L1 set clearly beats normal-nc, or the PMU shows normal-wb's lines stay in L1 where normal-nc's leave, or the no-maintenance demonstration read stale words.",
    threshold: "C and I set; then WB/NC ≥ 1.50×, or an outward event (l2d_cache, bus_access_rd or bus_access) ≥ 0.50 per line through normal-nc and ≤ 0.10 through normal-wb, or l1d_cache_refill ≤ 0.10 per line at the L1 set and ≥ 0.50 at a DRAM set (no refills alone never pass), or more than 0 stale words.",
    failure: "The data cache is off or unused: a boot stage left SCTLR_EL1.C clear, the core's cache enable (e.g. CPUECTLR_EL1.SMPEN on Cortex-A53/A72) is not set, or normal-wb is not mapped cacheable. Every bandwidth is then DRAM-bound.",
    next: "Read sctlr_c in the verdict's evidence: 0 means a boot stage left the data cache off (or mairbench.selftest=caches-off asked for it). With C set, rerun with mairbench.kernels=read-ldp,latency mairbench.types=normal-wb,normal-nc: a normal-wb curve with steps at the CLIDR sizes (cache-geometry) says the cache works and only the ratio fell short; a flat one says the mapping (the normal-wb memtype record's par_attr must be 0xff) or the core's cache enable (the start record's smpen_set at EL3).",
    basis: Basis::Mixed,
    scope: Scope::Core,
};

/// The no-maintenance demonstration (the `coherence` record with `maintenance` false): old
/// data written to memory through the non-cacheable alias, the lines loaded clean through
/// the write-back one, new data written through the write-back one, then the range read
/// through the non-cacheable one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Stale {
    /// Words (8 bytes) the non-cacheable alias read as the old data: the new data was still
    /// in the cache.
    pub stale_words: u64,
    /// Words read.
    pub words: u64,
}

/// Why `caches-on` came out as it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// SCTLR_EL1.C and/or I clear.
    Disabled {
        /// SCTLR_EL1.C.
        c: bool,
        /// SCTLR_EL1.I.
        i: bool,
    },
    /// WB reads beat NC's at the L1 set.
    Ratio {
        /// The L1 set.
        size: u64,
        /// WB over NC, hundredths.
        ratio: u64,
    },
    /// The PMU shows the write-back lines stay in L1 re-reading the L1 set.
    Held {
        /// The L1 set.
        size: u64,
        /// What it counted.
        held: Held,
    },
    /// The no-maintenance demonstration read stale words.
    Stale(Stale),
    /// C and I set, but no measurement shows a cache.
    Unseen {
        /// The L1 set and WB over NC there, when measured.
        ratio: Option<(u64, u64)>,
        /// The demonstration, when it ran.
        stale: Option<Stale>,
        /// The PMU, where it showed the write-back reads leaving L1.
        left: Option<Held>,
    },
    /// Nothing measured to judge by.
    Missing,
}

const SET: &str = concat!(crate::arch_name!(sctlr), ".C and I are set");

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (wb, nc) = (
            const { named(Role::WriteBack) },
            const { named(Role::NonCacheable) },
        );
        match *self {
            Why::Disabled { c, i } => {
                let which = match (c, i) {
                    (false, false) => concat!(crate::arch_name!(sctlr), ".C and I are clear"),
                    (false, true) => concat!(crate::arch_name!(sctlr), ".C is clear"),
                    _ => concat!(crate::arch_name!(sctlr), ".I is clear"),
                };
                write!(
                    f,
                    "{which}: the caches are disabled for the measurements, so every access goes to memory"
                )
            }
            Why::Ratio { size, ratio } => write!(
                f,
                "{SET}; {wb} reads at {} are {} faster than {nc}'s",
                Bytes(size),
                Times(ratio)
            ),
            Why::Held { size, held } => write!(
                f,
                "{SET}; re-reading {} through {wb} stays in L1: {held}",
                Bytes(size)
            ),
            Why::Stale(s) => write!(
                f,
                "{SET}; without maintenance {nc} read {} of {} words stale, so {wb} held dirty lines",
                s.stale_words, s.words
            ),
            Why::Unseen { ratio, stale, left } => {
                write!(f, "{SET} but no measurement shows a cache")?;
                if let Some((size, ratio)) = ratio {
                    write!(
                        f,
                        ": {wb} reads at {} are only {} {nc}'s (a cache gives at least {})",
                        Bytes(size),
                        Times(ratio),
                        Times(CLEAR_RATIO)
                    )?;
                }
                if let Some(s) = stale {
                    write!(
                        f,
                        "{} without maintenance {} of {} words were stale (0 hints the caches are off)",
                        if ratio.is_some() { ";" } else { ":" },
                        s.stale_words,
                        s.words
                    )?;
                }
                if let Some(h) = left {
                    write!(f, "; {h}: the reads leave L1 as the non-cacheable ones do")?;
                }
                Ok(())
            }
            Why::Missing => write!(
                f,
                "not measured: no {} point on {wb} and {nc}, no PMU count, no no-maintenance demonstration",
                Kernel::ReadLdp.spec().name
            ),
        }
    }
}

fn verdict(status: Status, e: Evidence, why: Why) -> Verdict {
    Verdict::new(SPEC.name, status, e, super::Why::CachesOn(why))
}

// Not inlined: see `super::judge`.
#[inline(never)]
pub(super) fn judge<S: Sweep + ?Sized>(v: &View<'_, '_, S>) -> Verdict {
    let i = v.i;
    let mut e = Evidence::new();
    e.flag("sctlr_c", i.sctlr_c);
    e.flag("sctlr_i", i.sctlr_i);
    if !(i.sctlr_c && i.sctlr_i) {
        let why = Why::Disabled {
            c: i.sctlr_c,
            i: i.sctlr_i,
        };
        return verdict(Status::Fail, e, why);
    }
    let stale = i.stale.filter(|s| s.words > 0);
    if let Some(s) = stale {
        e.whole("stale_words", s.stale_words);
        e.whole("words", s.words);
    }
    let stale_seen = stale.filter(|s| s.stale_words > 0);
    let k = Kernel::ReadLdp;
    let size = v.l1_set;
    let ratio = size.and_then(|size| {
        let wb = v.of(k, Role::WriteBack, size)?;
        let nc = v.of(k, Role::NonCacheable, size)?;
        e.whole("size_bytes", size);
        e.whole("wb_mbps", wb);
        e.whole("nc_mbps", nc);
        let r = faster(Unit::Bandwidth, wb, nc)?;
        e.hundredths("ratio", r);
        e.hundredths("min_ratio", CLEAR_RATIO);
        Some((size, r))
    });
    // Only a comparison that shows the lines staying counts (see `held`).
    let before = e.len();
    let pmu = size.and_then(|size| Some((size, held::judge(v, k, Direction::Read, size, &mut e)?)));
    let counted = e.len() > before;
    // Under emulation only the data decides; the timings and counts stay as evidence.
    if i.emulated {
        return match stale_seen {
            Some(s) => verdict(Status::Pass, e, Why::Stale(s)),
            None => Verdict::new(SPEC.name, Status::NotApplicable, e, super::Why::Emulated),
        };
    }
    let (status, why) = if let Some((size, ratio)) = ratio.filter(|r| r.1 >= CLEAR_RATIO) {
        (Status::Pass, Why::Ratio { size, ratio })
    } else if let Some((size, held)) = pmu.filter(|p| p.1.stayed()) {
        (Status::Pass, Why::Held { size, held })
    } else if let Some(s) = stale_seen {
        (Status::Pass, Why::Stale(s))
    } else if ratio.is_some() || counted || stale.is_some() {
        let left = pmu.map(|p| p.1);
        (Status::Fail, Why::Unseen { ratio, stale, left })
    } else {
        (Status::NotApplicable, Why::Missing)
    };
    verdict(status, e, why)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::super::testing::*;
    use super::super::{event, judge, Inputs, NoSweep};
    use super::*;
    use crate::memtype::MemType;
    use crate::paging::Granule;
    use std::format;

    #[test]
    fn sctlr_clear_fails_even_emulated() {
        let caches = a72_caches();
        let s = sweep(32 * MIB, a72);
        for emulated in [false, true] {
            for (c, i, text) in [
                (false, true, "SCTLR_EL1.C is clear"),
                (true, false, "SCTLR_EL1.I is clear"),
                (false, false, "SCTLR_EL1.C and I are clear"),
            ] {
                let mut inp = inputs(&caches, &s);
                (inp.emulated, inp.sctlr_c, inp.sctlr_i) = (emulated, c, i);
                let v = judge(&inp);
                assert_eq!(status(&v, Name::CachesOn), Status::Fail);
                assert!(v.must_fail());
                assert_eq!(
                    why(&v, Name::CachesOn),
                    format!("{text}: the caches are disabled for the measurements, so every access goes to memory")
                );
                assert_eq!(ev(&v, Name::CachesOn, "sctlr_c"), Some(u64::from(c)));
            }
        }
    }

    /// Only the write-back type measured (no non-cacheable one): the PMU alone decides.
    fn wb_only(kernel: Kernel, t: &MemType, g: Granule, size: u64) -> Option<u64> {
        (t.role == Role::WriteBack)
            .then(|| a72(kernel, t, g, size))
            .flatten()
    }

    fn caches_on_with(pmu: super::super::testing::Pmu) -> (Status, std::string::String) {
        let caches = a72_caches();
        let mut s = sweep(32 * MIB, wb_only);
        s.pmu = pmu;
        let mut i = inputs(&caches, &s);
        i.stale = None;
        let v = judge(&i);
        (status(&v, Name::CachesOn), why(&v, Name::CachesOn))
    }

    #[test]
    fn by_pmu_refills_that_stop_where_the_set_fits() {
        // ≈0 refills at the L1 set, one per line at the DRAM set: the lines stay.
        let (status, why) = caches_on_with(|_, _, size, event| {
            (event == event::L1D_CACHE_REFILL).then_some(if size <= 32 * KIB { 1 } else { 100 })
        });
        assert_eq!(status, Status::Pass);
        assert_eq!(
            why,
            format!(
                "SCTLR_EL1.C and I are set; re-reading 16 KiB through {wb} stays in L1: the PMU's l1d_cache_refill counts 0.01 per line through {wb} at the L1 set and 1.00 at 4 MiB",
                wb = name(Role::WriteBack)
            )
        );
        // One refill per line everywhere: fail.
        let (status, why) =
            caches_on_with(|_, _, _, event| (event == event::L1D_CACHE_REFILL).then_some(100));
        assert_eq!(status, Status::Fail);
        assert_eq!(
            why,
            "SCTLR_EL1.C and I are set but no measurement shows a cache"
        );
    }

    #[test]
    fn no_refills_anywhere_are_no_cache() {
        // A write-back alias that is in effect non-cacheable (a stage 2 or HCR_EL2.CD making
        // it so) refills nothing at any size: Arm's L1D_CACHE_REFILL excludes non-cacheable
        // accesses. That is no evidence of a cache.
        let (status, why) =
            caches_on_with(|_, _, _, event| (event == event::L1D_CACHE_REFILL).then_some(0));
        assert_eq!(status, Status::Fail, "{why}");
    }

    #[test]
    fn by_an_outward_event_compared_with_non_cacheable() {
        let caches = a72_caches();
        // Timings that do not show the cache (WB ≈ NC), but l2d_cache sees every NC read
        // leave L1 and none of WB's: pass, naming the event.
        let mut s = sweep(32 * MIB, caches_off);
        s.pmu = |_, t, _, event| {
            (event == event::L2D_CACHE).then_some(if t.role == Role::WriteBack { 2 } else { 100 })
        };
        let mut i = inputs(&caches, &s);
        i.stale = None;
        let v = judge(&i);
        assert_eq!(status(&v, Name::CachesOn), Status::Pass);
        let (wb, nc) = (name(Role::WriteBack), name(Role::NonCacheable));
        assert_eq!(
            why(&v, Name::CachesOn),
            format!("SCTLR_EL1.C and I are set; re-reading 16 KiB through {wb} stays in L1: the PMU's l2d_cache counts 0.02 per line through {wb} and 1.00 through {nc}")
        );
        assert_eq!(ev(&v, Name::CachesOn, "wb_l2d_cache_per_line"), Some(2));
        // The same event seeing WB's reads leave as NC's do: fail, saying so.
        s.pmu = |_, _, _, event| (event == event::L2D_CACHE).then_some(100);
        let mut i = inputs(&caches, &s);
        i.stale = None;
        let v = judge(&i);
        assert_eq!(status(&v, Name::CachesOn), Status::Fail);
        assert!(
            why(&v, Name::CachesOn).ends_with(&format!("; the PMU's l2d_cache counts 1.00 per line through {wb} and 1.00 through {nc}: the reads leave L1 as the non-cacheable ones do")),
            "{}",
            why(&v, Name::CachesOn)
        );
        // An event that does not see NC's reads either decides nothing.
        s.pmu = |_, _, _, event| (event == event::L2D_CACHE).then_some(0);
        let mut i = inputs(&caches, &s);
        i.stale = None;
        assert_eq!(status(&judge(&i), Name::CachesOn), Status::Fail);
    }

    #[test]
    fn by_the_demonstration_alone() {
        let caches = a72_caches();
        let none = NoSweep;
        let mut i = Inputs {
            emulated: false,
            sctlr_c: true,
            sctlr_i: true,
            caches: &caches,
            sweep: &none,
            stale: Some(Stale {
                stale_words: 0,
                words: 8192,
            }),
            maintenance: None,
            smp: None,
            smp_bits: None,
            clock: None,
            core: None,
            revision: None,
            hypervisor: None,
        };
        // 0 stale words alone fails.
        assert_eq!(status(&judge(&i), Name::CachesOn), Status::Fail);
        // Stale words alone pass.
        i.stale = Some(Stale {
            stale_words: 8000,
            words: 8192,
        });
        let v = judge(&i);
        assert_eq!(status(&v, Name::CachesOn), Status::Pass);
        assert_eq!(
            why(&v, Name::CachesOn),
            format!(
                "SCTLR_EL1.C and I are set; without maintenance {} read 8000 of 8192 words stale, so {} held dirty lines",
                name(Role::NonCacheable),
                name(Role::WriteBack)
            )
        );
        // Nothing at all: n/a, naming what is missing.
        i.stale = None;
        let v = judge(&i);
        assert_eq!(status(&v, Name::CachesOn), Status::NotApplicable);
        assert!(why(&v, Name::CachesOn).starts_with("not measured: "));
    }
}
