//! `write-allocate`: write-back writes allocate, and the no-allocate hint shows.

use core::fmt;

use super::held::{self, Direction, Held};
use super::points::{faster, named, position, Times, View, Writes};
use super::{
    Basis, CoreNote, Evidence, Name, Scope, Spec, Status, Sweep, Verdict, CLEAR_RATIO, STEP_RATIO,
};
use crate::format::Bytes;
use crate::kernel::{Kernel, Unit};
use crate::memtype::Role;

pub const SPEC: Spec = Spec {
    name: Name::WriteAllocate,
    id: "write-allocate",
    checks: "normal-wb writes allocate: at the L1 set they clearly beat normal-nc's; normal-wb-noalloc is clearly slower than normal-wb at the L1 or L2 set. Judged by write-line (one store per line, which no write streaming mode takes for a full-line stream) where measured, else by write-stp.",
    threshold: "Fail: WB/NC writes < 1.50× at the L1 set, unless the PMU shows the write-back lines stay (an outward event, l2d_cache, bus_access_wr or bus_access, ≥ 0.50 per line through normal-nc and ≤ 0.10 through normal-wb; or l1d_cache_refill ≤ 0.10 per line at the L1 set and ≥ 0.50 at a DRAM set): no refills alone never pass. Pass: WB/WB-noalloc ≥ 1.50× at the L1 or L2 set; below that a warn (the core ignores the no-allocate hint, which the Arm ARM allows).",
    failure: "normal-wb writes go to DRAM as if no-allocate: the trap of Zhao Yibin's public report \"ARM Cache policy on single armv7 processor lead to low DRAM performance\" (write-back no-allocate ≈7 MB/s write, 28 MB/s read vs 120/160 MB/s with read-write-allocate), where a 32-bit Linux kernel built without CONFIG_SMP maps RAM write-back without write-allocate (arch/arm/mm/proc-v7-2level.S PMD_FLAGS_UP; mm/mmu.c forces write-allocate only when is_smp()). Check the MAIR byte (0xff) and any outer-cache controller's allocation policy.",
    next: "Rerun with mairbench.kernels=write-line,read-ldp mairbench.types=normal-wb,normal-wb-noalloc,normal-nc: normal-wb reads clearly faster than normal-nc while its writes match normal-nc's says the writes do not allocate (the MAIR byte must be 0xff; then an outer cache controller's or the core's write-allocate policy); reads as slow as normal-nc too is caches-on's failure, fix that first.",
    basis: Basis::Timing,
    scope: Scope::Core,
};

/// Why `write-allocate` came out as it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// Hinted writes clearly slower than write-back's.
    Honoured {
        /// The write kernel.
        kernel: Kernel,
        /// Where.
        size: u64,
        /// WB over hinted, hundredths.
        ratio: u64,
    },
    /// Hinted writes about as fast as write-back's, whose own writes were shown to
    /// allocate (by the timings against non-cacheable's, or the PMU: the evidence says which).
    Ignored {
        /// The write kernel.
        kernel: Kernel,
        /// Where (the largest ratio's size).
        size: u64,
        /// WB over hinted, hundredths.
        ratio: u64,
    },
    /// Hinted writes about as fast as write-back's, and nothing shows whether write-back's
    /// writes allocate (no non-cacheable points, no PMU).
    Alike {
        /// The write kernel.
        kernel: Kernel,
        /// Where (the largest ratio's size).
        size: u64,
        /// WB over hinted, hundredths.
        ratio: u64,
    },
    /// Write-back writes do not beat non-cacheable ones at the L1 set.
    None {
        /// The write kernel.
        kernel: Kernel,
        /// The L1 set.
        size: u64,
        /// WB over NC, hundredths.
        ratio: u64,
        /// What the PMU saw, where it decided anything (never that the lines stayed).
        pmu: Option<Held>,
    },
    /// Write-back writes no faster than non-cacheable ones on a core whose full-line writes
    /// stream past L1: the write-stp kernel cannot show allocation there.
    Streaming {
        /// The L1 set.
        size: u64,
        /// WB over NC, hundredths.
        ratio: u64,
    },
    /// No write points of the write-back and hinted types at the L1 or L2 set.
    Missing,
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let wb = const { named(Role::WriteBack) };
        let hinted = const { named(Role::WriteBackHinted) };
        match *self {
            Why::Honoured {
                kernel,
                size,
                ratio,
            } => write!(
                f,
                "{hinted} {} at {} are {} slower than {wb}'s: the allocation hints take effect (public report: 7 vs 120 MB/s)",
                Writes(kernel),
                Bytes(size),
                Times(ratio)
            ),
            Why::Ignored {
                kernel,
                size,
                ratio,
            } => write!(
                f,
                "{wb} {} at {} run at only {} {hinted}'s speed: this core allocates despite the no-allocate hint, which the Arm ARM allows",
                Writes(kernel),
                Bytes(size),
                Times(ratio)
            ),
            Why::Alike {
                kernel,
                size,
                ratio,
            } => write!(
                f,
                "{wb} {} at {} run at only {} {hinted}'s speed, and nothing measured shows whether either allocates (no {} points at the L1 set, no PMU counts)",
                Writes(kernel),
                Bytes(size),
                Times(ratio),
                const { named(Role::NonCacheable) }
            ),
            Why::None {
                kernel,
                size,
                ratio,
                pmu,
            } => {
                write!(
                    f,
                    "{wb} {} at {} are only {} {}'s: write-back writes do not allocate (the public report's trap: 7 MB/s instead of 120)",
                    Writes(kernel),
                    Bytes(size),
                    Times(ratio),
                    const { named(Role::NonCacheable) }
                )?;
                match pmu {
                    Some(h) => write!(f, "; {h}: they leave L1 as the non-cacheable ones do"),
                    None => Ok(()),
                }
            }
            Why::Streaming { size, ratio } => write!(
                f,
                "{wb} writes at {} are only {} {}'s, but this core's full-line writes stream past L1 without allocating, so {} cannot show allocation here",
                Bytes(size),
                Times(ratio),
                const { named(Role::NonCacheable) },
                Kernel::WriteStp.spec().name
            ),
            Why::Missing => write!(
                f,
                "not measured: no {} points of {wb} and {hinted} at the L1 or L2 set",
                Kernel::WriteStp.spec().name
            ),
        }
    }
}

fn verdict(status: Status, e: Evidence, why: Why) -> Verdict {
    Verdict::new(SPEC.name, status, e, super::Why::WriteAllocate(why))
}

// Not inlined: see `super::judge`.
#[inline(never)]
pub(super) fn judge<S: Sweep + ?Sized>(v: &View<'_, '_, S>) -> Verdict {
    let mut e = Evidence::new();
    let k = v.write_kernel;
    let Some(l1) = v.l1_set else {
        let why = super::Why::Missing("no sweep");
        return Verdict::new(SPEC.name, Status::NotApplicable, e, why);
    };
    let wb1 = v.of(k, Role::WriteBack, l1);
    let nc1 = v.of(k, Role::NonCacheable, l1);
    e.whole("size_bytes", l1);
    if k == Kernel::WriteLine {
        e.flag("partial_line", true);
    }
    // Where the PMU counts, only a comparison that shows the lines staying can stand for
    // the timings (see `held`): never the absence of refills alone.
    let pmu = held::judge(v, k, Direction::Write, l1, &mut e);
    let mut shown = pmu.is_some_and(Held::stayed);
    if let (Some(wb), Some(nc)) = (wb1, nc1) {
        e.whole("wb_mbps", wb);
        e.whole("nc_mbps", nc);
        if let Some(r) = faster(Unit::Bandwidth, wb, nc) {
            e.hundredths("wb_over_nc", r);
            if r >= CLEAR_RATIO {
                shown = true;
            } else if !shown {
                e.hundredths("min_ratio", CLEAR_RATIO);
                let core = v.i.core;
                // Full-line writes that a documented streaming mode keeps from allocating
                // cannot show allocation; partial-line ones can.
                let streaming = core
                    .and_then(|c| c.streaming)
                    .filter(|_| k == Kernel::WriteStp);
                let size = l1;
                let (status, why, note) = match streaming {
                    Some(_) => (
                        Status::Warn,
                        Why::Streaming { size, ratio: r },
                        CoreNote::of(core, |c| c.streaming),
                    ),
                    None => (
                        Status::Fail,
                        Why::None {
                            kernel: k,
                            size,
                            ratio: r,
                            pmu,
                        },
                        CoreNote::of(core, |_| None),
                    ),
                };
                return verdict(status, e, why).noting(note);
            }
        }
    }
    // WB over the hinted type at the L1 set and the L2 set: the larger counts.
    let hinted = position(Role::WriteBackHinted);
    let mut best: Option<(u64, u64)> = None;
    for size in [Some(l1), v.l2_set()].into_iter().flatten() {
        let l2 = size != l1;
        let (Some(wb), Some(na)) = (v.of(k, Role::WriteBack, size), v.value(k, hinted, size))
        else {
            continue;
        };
        if l2 {
            e.whole("l2_size_bytes", size);
            e.whole("l2_wb_mbps", wb);
        } else if wb1.is_none() || nc1.is_none() {
            e.whole("wb_mbps", wb);
        }
        e.whole(
            if l2 {
                "l2_noalloc_mbps"
            } else {
                "noalloc_mbps"
            },
            na,
        );
        let Some(r) = faster(Unit::Bandwidth, wb, na) else {
            continue;
        };
        e.hundredths(if l2 { "l2_ratio" } else { "ratio" }, r);
        if best.is_none_or(|b| r > b.1) {
            best = Some((size, r));
        }
    }
    e.hundredths("min_ratio", CLEAR_RATIO);
    let (status, why, note) = match best {
        None => (Status::NotApplicable, Why::Missing, None),
        Some((size, ratio)) if ratio >= CLEAR_RATIO => {
            let why = Why::Honoured {
                kernel: k,
                size,
                ratio,
            };
            (Status::Pass, why, None)
        }
        Some((size, ratio)) => {
            // A revision whose erratum workaround disables the hint says why it is ignored.
            let note = CoreNote::revised(v.i.core, v.i.revision, |c| c.noalloc_disabled);
            let why = if shown {
                Why::Ignored {
                    kernel: k,
                    size,
                    ratio,
                }
            } else {
                Why::Alike {
                    kernel: k,
                    size,
                    ratio,
                }
            };
            (Status::Warn, why, note)
        }
    };
    verdict(status, e, why).noting(note)
}

/// Whether `allocate`, this sweep's `write-allocate` verdict, found that write-back writes
/// do not allocate, and the write-back writes are no faster at the L1 set than beyond L1
/// (flat: a non-cacheable alias that a stage 2 made cached would be as fast as write-back
/// instead, and write-back itself would step). What the verdicts that must not blame another
/// alias for it ask.
pub(super) fn wb_does_not_allocate<S: Sweep + ?Sized>(
    v: &View<'_, '_, S>,
    allocate: &Verdict,
) -> bool {
    let super::Why::WriteAllocate(Why::None { kernel, .. }) = allocate.why else {
        return false;
    };
    let steps = v
        .caches()
        .next()
        .and_then(|l1| v.step(kernel, position(Role::WriteBack), l1.size()))
        .is_some_and(|s| s.ratio >= STEP_RATIO);
    !steps
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::super::testing::*;
    use super::super::{judge, Name};
    use super::*;
    use crate::cores::{by_midr, Revision};
    use crate::memtype::MemType;
    use crate::paging::Granule;
    use std::string::ToString;

    /// The A72-like board whose write-back no-allocate writes allocate as write-back's do.
    fn hint_ignored(kernel: Kernel, t: &MemType, g: Granule, size: u64) -> Option<u64> {
        match t.role {
            Role::WriteBackHinted => a72(kernel, as_role(t, Role::WriteBack), g, size),
            _ => a72(kernel, t, g, size),
        }
    }

    #[test]
    fn an_ignored_hint_is_explained_where_an_erratum_workaround_disables_it() {
        let caches = a72_caches();
        let s = sweep(32 * MIB, hint_ignored);
        // Cortex-A57 r0p0 and r1p1 (errata 806969, 828024: TF-A sets CPUACTLR_EL1 bit 49),
        // r1p2 (neither), and the A72 (TF-A defines the bit, sets it for no erratum).
        for (midr, explained) in [
            (0x410f_d070, true),
            (0x411f_d071, true),
            (0x411f_d072, false),
            (0x410f_d083, false),
        ] {
            let mut i = inputs(&caches, &s);
            i.core = by_midr(midr);
            i.revision = Some(Revision::of(midr));
            let v = judge(&i);
            let v = v.get(Name::WriteAllocate).unwrap();
            assert_eq!(v.status, Status::Warn, "{midr:#x}: {}", v.why);
            assert!(v.why.to_string().contains("despite the no-allocate hint"));
            let note = v.core_note.map(|n| n.to_string());
            match explained {
                true => {
                    let note = note.unwrap();
                    assert!(note.contains("(r0p0 to r1p1)"), "{note}");
                    assert!(note.contains("bit 49") && note.contains("828024"), "{note}");
                }
                false => assert_eq!(note, None, "{midr:#x}"),
            }
        }
        // Without a known revision nothing is claimed.
        let mut i = inputs(&caches, &s);
        i.core = by_midr(0x410f_d070);
        i.revision = None;
        assert_eq!(judge(&i).get(Name::WriteAllocate).unwrap().core_note, None);
    }
}
