//! `maintenance`: cache maintenance by VA reaches the point of coherency.

use core::fmt;

use super::points::{named, View};
use super::{Basis, Evidence, Name, Spec, Status, Sweep, Verdict};
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
    /// The invalidate did not drop the stale line.
    InvalidateKept,
    /// The invalidate was not tried.
    InvalidateUntried,
    /// The line was not held before the invalidate (silicon).
    LineNotHeld,
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (wb, nc) = (named(Role::WriteBack), named(Role::NonCacheable));
        match self {
            Why::Ok => write!(
                f,
                "data cleaned through {wb} read back through {nc}, and DC IVAC made {wb} read what {nc} wrote"
            ),
            Why::CleanLost => write!(
                f,
                "data written through {wb} and cleaned with DC CVAC did not read back through {nc}: maintenance does not reach the point of coherency"
            ),
            Why::InvalidateKept => write!(
                f,
                "after DC IVAC {wb} still read its old line instead of what {nc} wrote: the invalidate did not reach the cache holding it"
            ),
            Why::InvalidateUntried => write!(
                f,
                "cleaned data read back through {nc}; the invalidate was not tried"
            ),
            Why::LineNotHeld => write!(
                f,
                "cleaned data read back through {nc}, but {wb} read memory's new data before DC IVAC: the line was not held in a cache, so the invalidate tested nothing"
            ),
        }
    }
}

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
    let (status, why) = if !m.cleaned_visible {
        (Status::Fail, Why::CleanLost)
    } else {
        match (m.invalidate_dropped, m.stale_before_invalidate) {
            (Some(false), _) => (Status::Fail, Why::InvalidateKept),
            (None, _) => (Status::Warn, Why::InvalidateUntried),
            (Some(true), Some(false)) if !v.i.emulated => (Status::Warn, Why::LineNotHeld),
            (Some(true), _) => (Status::Pass, Why::Ok),
        }
    };
    Verdict::new(SPEC.name, status, e, super::Why::Maintenance(why))
}

#[cfg(test)]
mod tests {
    use super::super::judge;
    use super::super::testing::*;
    use super::*;

    #[test]
    fn its_record() {
        extern crate std;
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
}
