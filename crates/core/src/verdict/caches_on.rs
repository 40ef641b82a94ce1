//! `caches-on`: SCTLR_EL1.C and I are set, and the caches show in the numbers.

use core::fmt;

use super::points::{centi, faster, named, Times, View};
use super::{event, Basis, Evidence, Name, Spec, Status, Sweep, Verdict, CLEAR_RATIO};
use crate::format::Bytes;
use crate::kernel::{Kernel, Unit};
use crate::memtype::Role;

pub const SPEC: Spec = Spec {
    name: Name::CachesOn,
    id: "caches-on",
    checks: "SCTLR_EL1.C and I are set, and the caches show: normal-wb read-ldp at the L1 set clearly beats normal-nc, or the PMU counts ≈0 L1D refills re-reading it, or the no-maintenance demonstration read stale words.",
    threshold: "C and I set; then WB/NC ≥ 1.50×, or ≤ 0.10 l1d_cache_refill per line, or more than 0 stale words.",
    failure: "The data cache is off or unused: a boot stage left SCTLR_EL1.C clear, the core's cache enable (e.g. CPUECTLR_EL1.SMPEN on Cortex-A53/A72) is not set, or normal-wb is not mapped cacheable. Every bandwidth is then DRAM-bound.",
    basis: Basis::Mixed,
};

/// "≈0 refills on re-read": at most 0.10 L1D refills per 64-byte line (hundredths). A
/// resident L1 set refills nothing; a set that misses refills 1 per line.
pub const NO_REFILL_PER_LINE: u64 = 10;

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
    /// ≈0 L1D refills re-reading the L1 set.
    Refills {
        /// The L1 set.
        size: u64,
        /// Refills per line, hundredths.
        per_line: u64,
    },
    /// The no-maintenance demonstration read stale words.
    Stale(Stale),
    /// C and I set, but no measurement shows a cache.
    Unseen {
        /// The L1 set and WB over NC there, when measured.
        ratio: Option<(u64, u64)>,
        /// The demonstration, when it ran.
        stale: Option<Stale>,
    },
    /// Nothing measured to judge by.
    Missing,
}

const SET: &str = "SCTLR_EL1.C and I are set";

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (wb, nc) = (named(Role::WriteBack), named(Role::NonCacheable));
        match *self {
            Why::Disabled { c, i } => {
                let which = match (c, i) {
                    (false, false) => "SCTLR_EL1.C and I are clear",
                    (false, true) => "SCTLR_EL1.C is clear",
                    _ => "SCTLR_EL1.I is clear",
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
            Why::Refills { size, per_line } => write!(
                f,
                "{SET}; re-reading {} through {wb} refills {} L1D lines per line",
                Bytes(size),
                centi(per_line)
            ),
            Why::Stale(s) => write!(
                f,
                "{SET}; without maintenance {nc} read {} of {} words stale, so {wb} held dirty lines",
                s.stale_words, s.words
            ),
            Why::Unseen { ratio, stale } => {
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
        e.push("stale_words", s.stale_words, 0);
        e.push("words", s.words, 0);
    }
    let stale_seen = stale.filter(|s| s.stale_words > 0);
    let k = Kernel::ReadLdp;
    let size = v.l1_set();
    let ratio = size.and_then(|size| {
        let wb = v.of(k, Role::WriteBack, size)?;
        let nc = v.of(k, Role::NonCacheable, size)?;
        e.push("size_bytes", size, 0);
        e.push("wb_mbps", wb, 0);
        e.push("nc_mbps", nc, 0);
        let r = faster(Unit::Bandwidth, wb, nc)?;
        e.push("ratio", r, 2);
        e.push("min_ratio", CLEAR_RATIO, 2);
        Some((size, r))
    });
    let refills = size.and_then(|size| {
        let wb = super::points::position(Role::WriteBack);
        let r = i.sweep.pmu(k, wb, size, event::L1D_CACHE_REFILL)?;
        e.push("l1d_cache_refill_per_line", r, 2);
        Some((size, r))
    });
    // Under emulation only the data decides; the timings and counts stay as evidence.
    if i.emulated {
        return match stale_seen {
            Some(s) => verdict(Status::Pass, e, Why::Stale(s)),
            None => Verdict::new(SPEC.name, Status::NotApplicable, e, super::Why::Emulated),
        };
    }
    let why = if let Some((size, ratio)) = ratio.filter(|r| r.1 >= CLEAR_RATIO) {
        Why::Ratio { size, ratio }
    } else if let Some((size, per_line)) = refills.filter(|r| r.1 <= NO_REFILL_PER_LINE) {
        Why::Refills { size, per_line }
    } else if let Some(s) = stale_seen {
        Why::Stale(s)
    } else if ratio.is_some() || refills.is_some() || stale.is_some() {
        return verdict(Status::Fail, e, Why::Unseen { ratio, stale });
    } else {
        return verdict(Status::NotApplicable, e, Why::Missing);
    };
    verdict(Status::Pass, e, why)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::super::testing::*;
    use super::super::{judge, Inputs, NoSweep};
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

    #[test]
    fn by_pmu_refills() {
        let caches = a72_caches();
        // Only the write-back type measured (no non-cacheable one), but the PMU shows no
        // refills.
        fn wb_only(kernel: Kernel, t: &MemType, g: Granule, size: u64) -> Option<u64> {
            (t.role == Role::WriteBack)
                .then(|| a72(kernel, t, g, size))
                .flatten()
        }
        let mut s = sweep(32 * MIB, wb_only);
        s.pmu = |_, _, size, event| {
            (event == event::L1D_CACHE_REFILL).then_some(if size <= 32 * KIB { 1 } else { 100 })
        };
        let mut i = inputs(&caches, &s);
        i.stale = None;
        let v = judge(&i);
        assert_eq!(status(&v, Name::CachesOn), Status::Pass);
        assert_eq!(
            why(&v, Name::CachesOn),
            format!(
                "SCTLR_EL1.C and I are set; re-reading 16 KiB through {} refills 0.01 L1D lines per line",
                name(Role::WriteBack)
            )
        );
        // One refill per line and nothing else: fail.
        s.pmu = |_, _, _, event| (event == event::L1D_CACHE_REFILL).then_some(100);
        let mut i = inputs(&caches, &s);
        i.stale = None;
        let v = judge(&i);
        assert_eq!(status(&v, Name::CachesOn), Status::Fail);
        assert_eq!(
            why(&v, Name::CachesOn),
            "SCTLR_EL1.C and I are set but no measurement shows a cache"
        );
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
            clock: None,
            core: None,
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
