//! `maintenance`: cache maintenance by VA reaches the point of coherency.

use core::fmt;

use super::points::{named, View};
use super::{Basis, CoreNote, Evidence, Name, Scope, Spec, Status, Sweep, Verdict};
use crate::memtype::Role;
use crate::record::Record;
use crate::schema;

pub const SPEC: Spec = Spec {
    name: Name::Maintenance,
    id: "maintenance",
    checks: "Data written through normal-wb and cleaned (DC CVAC) is visible through normal-nc; after normal-nc overwrites it, DC IVAC makes normal-wb read the new data.",
    threshold: "Both exact (no threshold); invalidate not tried, or on silicon a line that was not held before the invalidate, is a warn.",
    failure: "Cache maintenance by VA does not reach the point of coherency: an outer cache (e.g. a PL310-style controller) that needs its own maintenance, the wrong PoC, or aliases that do not reach the same memory.",
    next: "The maintenance record says which step failed: cleaned_visible false is the clean (DC CVAC did not reach the point of coherency: an outer cache such as a PL310 needs maintenance by PA too), stale_before_invalidate or invalidate_dropped the invalidate (DC IVAC). Rerun once: the same step failing again rules out a line evicted by chance.",
    basis: Basis::Data,
    scope: Scope::Machine,
};

/// The maintenance experiment, on one range: (1) write data A through the write-back alias
/// and clean it with `DC CVAC`; read through the non-cacheable alias; (2) write data B
/// through the non-cacheable alias (memory now holds B; on silicon the write-back alias still
/// holds a clean line of A); read through the write-back alias without maintenance;
/// (3) `DC IVAC` through the write-back alias, then read through it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Maintenance {
    /// Step (1): the non-cacheable alias read exactly A.
    pub cleaned_visible: bool,
    /// Step (2): the write-back alias still read A (the line was held in the cache, so step
    /// 3 tests something); `None` when not tried. Under emulation it reads B, which is
    /// expected.
    pub stale_before_invalidate: Option<bool>,
    /// Step (3): the write-back alias read exactly B (the invalidate dropped the stale
    /// line); `None` when not tried.
    pub invalidate_dropped: Option<bool>,
}

impl Maintenance {
    /// Writes its `maintenance` record (the experiment over `bytes`), from which
    /// [`crate::verdict`] can judge a log again.
    pub fn record(&self, bytes: u64, out: &mut impl fmt::Write) -> fmt::Result {
        let mut r = Record::new(out, &schema::MAINTENANCE)
            .u64("bytes", bytes)
            .bool("cleaned_visible", self.cleaned_visible);
        for (key, v) in [
            ("stale_before_invalidate", self.stale_before_invalidate),
            ("invalidate_dropped", self.invalidate_dropped),
        ] {
            r = match v {
                Some(v) => r.bool(key, v),
                None => r.null(key),
            };
        }
        r.finish()
    }
}

/// Why `maintenance` came out as it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// Both maintenance steps exact.
    Ok,
    /// Cleaned data did not reach the non-cacheable alias.
    CleanLost,
    /// Cleaned data did not reach the non-cacheable alias, on a core revision with documented
    /// errata in its data cache clean (the verdict's core note names them).
    CleanLostOnErratum,
    /// The invalidate did not drop the stale line.
    InvalidateKept,
    /// The invalidate was not tried.
    InvalidateUntried,
    /// The line was not held before the invalidate (silicon).
    LineNotHeld,
    /// The line was not held before the invalidate, on a core revision that executes DC CVAC
    /// as DC CIVAC when an erratum's workaround is set (the core note names it).
    CleanInvalidates,
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (wb, nc) = (
            const { named(Role::WriteBack) },
            const { named(Role::NonCacheable) },
        );
        match self {
            Why::Ok => write!(
                f,
                concat!(
                    "data cleaned through {wb} read back through {nc}, and ",
                    crate::arch_name!(dc_ivac),
                    " made {wb} read what {nc} wrote"
                ),
                wb = wb,
                nc = nc
            ),
            Why::CleanLost | Why::CleanLostOnErratum => {
                write!(
                    f,
                    concat!(
                        "data written through {wb} and cleaned with ",
                        crate::arch_name!(dc_cvac),
                        " did not read back through {nc}"
                    ),
                    wb = wb,
                    nc = nc
                )?;
                f.write_str(match self {
                    Why::CleanLost => ": maintenance does not reach the point of coherency",
                    _ => ", on a revision of this core with errata in its data cache clean (the core note): suspect them before the board",
                })
            }
            Why::InvalidateKept => write!(
                f,
                concat!(
                    "after ",
                    crate::arch_name!(dc_ivac),
                    " {wb} still read its old line instead of what {nc} wrote: the invalidate did not reach the cache holding it"
                ),
                wb = wb,
                nc = nc
            ),
            Why::InvalidateUntried => write!(
                f,
                "cleaned data read back through {nc}; the invalidate was not tried"
            ),
            Why::LineNotHeld | Why::CleanInvalidates => {
                write!(
                    f,
                    concat!(
                        "cleaned data read back through {nc}, but {wb} read memory's new data before ",
                        crate::arch_name!(dc_ivac),
                        ": "
                    ),
                    nc = nc,
                    wb = wb
                )?;
                f.write_str(match self {
                    Why::LineNotHeld => "the line was not held in a cache",
                    _ => concat!(
                        "on this core revision an erratum's workaround makes ",
                        crate::arch_name!(dc_cvac),
                        " clean and invalidate (the core note), so the clean dropped the line"
                    ),
                })?;
                f.write_str(", so the invalidate tested nothing")
            }
        }
    }
}

// Not inlined: see `super::judge`.
#[inline(never)]
pub(super) fn judge<S: Sweep + ?Sized>(v: &View<'_, '_, S>) -> Verdict {
    let mut e = Evidence::new();
    let Some(m) = v.i.maintenance else {
        let why = super::Why::Missing("the maintenance experiment did not run");
        return Verdict::new(SPEC.name, Status::NotApplicable, e, why);
    };
    e.flag("cleaned_visible", m.cleaned_visible);
    if let Some(s) = m.stale_before_invalidate {
        e.flag("stale_before_invalidate", s);
    }
    if let Some(d) = m.invalidate_dropped {
        e.flag("invalidate_dropped", d);
    }
    // What the core's row says of its data cache clean, for this revision: errata worked
    // around by executing cleans as clean and invalidate (in software, or by a bit firmware
    // sets at EL3, which also makes a clean drop the line).
    let (core, revision) = (v.i.core, v.i.revision);
    let civac = CoreNote::revised(core, revision, |c| c.clean_as_civac);
    let errata = CoreNote::revised(core, revision, |c| c.clean_errata).or(civac);
    let (status, why, note) = if !m.cleaned_visible {
        match errata {
            Some(_) => (Status::Fail, Why::CleanLostOnErratum, errata),
            None => (Status::Fail, Why::CleanLost, None),
        }
    } else {
        match (m.invalidate_dropped, m.stale_before_invalidate) {
            (Some(false), _) => (Status::Fail, Why::InvalidateKept, None),
            (None, _) => (Status::Warn, Why::InvalidateUntried, None),
            (Some(true), Some(false)) if !v.i.emulated => match civac {
                Some(_) => (Status::Warn, Why::CleanInvalidates, civac),
                None => (Status::Warn, Why::LineNotHeld, None),
            },
            (Some(true), _) => (Status::Pass, Why::Ok, None),
        }
    };
    Verdict::new(SPEC.name, status, e, super::Why::Maintenance(why)).noting(note)
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::super::judge;
    use super::super::testing::*;
    use super::*;
    use std::string::{String, ToString};

    #[test]
    fn its_record() {
        let mut line = std::string::String::new();
        let m = Maintenance {
            cleaned_visible: true,
            stale_before_invalidate: None,
            invalidate_dropped: Some(false),
        };
        m.record(4096, &mut line).unwrap();
        assert_eq!(line, "@mb {\"kind\":\"maintenance\",\"bytes\":4096,\"cleaned_visible\":true,\"stale_before_invalidate\":null,\"invalidate_dropped\":false}\n");
    }

    #[test]
    fn maintenance_verdicts() {
        let caches = a72_caches();
        let s = sweep(32 * MIB, a72);
        let cases = [
            (true, Some(true), Some(true), false, Status::Pass),
            (false, Some(true), Some(true), false, Status::Fail),
            (true, Some(true), Some(false), false, Status::Fail),
            (true, Some(true), None, false, Status::Warn),
            (true, Some(false), Some(true), false, Status::Warn),
            (true, Some(false), Some(true), true, Status::Pass),
            (true, None, Some(true), false, Status::Pass),
            (false, None, None, true, Status::Fail),
        ];
        for (cleaned, held, dropped, emulated, want) in cases {
            let mut i = inputs(&caches, &s);
            i.emulated = emulated;
            i.maintenance = Some(Maintenance {
                cleaned_visible: cleaned,
                stale_before_invalidate: held,
                invalidate_dropped: dropped,
            });
            let v = judge(&i);
            assert_eq!(
                status(&v, Name::Maintenance),
                want,
                "{cleaned} {held:?} {dropped:?} {emulated}: {}",
                why(&v, Name::Maintenance)
            );
        }
        let mut i = inputs(&caches, &s);
        i.maintenance = None;
        assert_eq!(status(&judge(&i), Name::Maintenance), Status::NotApplicable);
    }

    /// The maintenance verdict of an `midr` core whose experiment came out `m`: status, why,
    /// core note.
    fn on(midr: u64, m: Maintenance) -> (Status, String, Option<String>) {
        let caches = a72_caches();
        let s = sweep(32 * MIB, a72);
        let mut i = inputs(&caches, &s);
        i.core = crate::cores::by_midr(midr);
        i.revision = Some(crate::cores::Revision::of(midr));
        i.maintenance = Some(m);
        let v = judge(&i);
        let v = v.get(Name::Maintenance).unwrap();
        (
            v.status,
            v.why.to_string(),
            v.core_note.map(|n| n.to_string()),
        )
    }

    #[test]
    fn a_lost_clean_on_an_a53_with_clean_errata_names_them() {
        let lost = Maintenance {
            cleaned_visible: false,
            stale_before_invalidate: Some(true),
            invalidate_dropped: Some(true),
        };
        // r0p2: Linux's ARM64_WORKAROUND_CLEAN_CACHE revisions.
        let (status, why, note) = on(0x410f_d032, lost);
        assert_eq!(status, Status::Fail);
        assert!(why.contains("errata in its data cache clean"), "{why}");
        assert!(!why.contains("does not reach"), "{why}");
        let note = note.unwrap();
        assert!(note.starts_with("Cortex-A53 r0p2 (r0p0 to r0p2)"), "{note}");
        assert!(
            note.contains("826319") && note.contains("cpu_errata.c"),
            "{note}"
        );
        // r0p4: erratum 855873, whose workaround is the bit firmware sets.
        let (_, why, note) = on(0x410f_d034, lost);
        assert!(why.contains("errata in its data cache clean"), "{why}");
        assert!(note.unwrap().contains("855873"));
        // The A72 has no such errata: the board is blamed, as before.
        let (status, why, note) = on(0x410f_d083, lost);
        assert_eq!(status, Status::Fail);
        assert!(
            why.contains("does not reach the point of coherency"),
            "{why}"
        );
        assert_eq!(note, None);
    }

    #[test]
    fn a_clean_that_invalidates_explains_the_line_not_held() {
        let not_held = Maintenance {
            cleaned_visible: true,
            stale_before_invalidate: Some(false),
            invalidate_dropped: Some(true),
        };
        // An A53 r0p3 or later, where firmware's 855873 workaround makes DC CVAC clean and
        // invalidate: still a warn (the invalidate tested nothing), with the reason.
        for midr in [0x410f_d033, 0x410f_d034] {
            let (status, why, note) = on(midr, not_held);
            assert_eq!(status, Status::Warn);
            assert!(why.contains("the clean dropped the line"), "{why}");
            let note = note.unwrap();
            assert!(
                note.contains("(r0p3 and later)") && note.contains("ENDCCASCI"),
                "{note}"
            );
        }
        // r0p2 has no such bit: the line was simply not held.
        for midr in [0x410f_d032, 0x410f_d083] {
            let (status, why, note) = on(midr, not_held);
            assert_eq!(status, Status::Warn);
            assert!(why.contains("was not held in a cache"), "{why}");
            assert_eq!(note, None);
        }
    }
}
