//! `write-through`: write-through stores reach memory.

use core::fmt;

use super::points::{faster, named, Times, View, Writes};
use super::{Basis, CoreNote, Evidence, Name, Scope, Spec, Status, Sweep, Verdict, CLEAR_RATIO};
use crate::format::Bytes;
use crate::kernel::{Kernel, Unit};
use crate::memtype::Role;

pub const SPEC: Spec = Spec {
    name: Name::WriteThrough,
    id: "write-through",
    checks: "normal-wt writes at the L1 set are clearly slower than normal-wb's: every store reaches memory. Judged by write-line where measured, else by write-stp (whose full-line stream a write streaming mode may keep from allocating even on write-back: then a warn).",
    threshold: "WB/WT ≥ 1.50× pass; 1.20× to 1.50× warn; < 1.20× fail (WT behaves as WB).",
    failure: "The write-through alias is written back: its MAIR byte or AttrIndx is wrong (a WT mapping mis-set to WB), so data another observer reads without maintenance is stale. A core may implement WT as non-cacheable (the Cortex-A53 TRM says so); that still passes.",
    next: "Check the normal-wt memtype record: a par_attr other than its mair byte (0xbb) is the mapping. With the right byte, rerun with mairbench.kernels=write-line,write-stp mairbench.types=normal-wb,normal-wt: write-line is the deciding kernel; when write-allocate failed too, its cause (write-back writes that do not allocate) comes first.",
    basis: Basis::Timing,
    scope: Scope::Core,
};

/// Below this ratio (hundredths) a write-through alias is "as fast as write-back": 1.20×.
/// Between it and [`CLEAR_RATIO`] the difference is real but too small to be conclusive.
pub const SAME_RATIO: u64 = 120;

/// Why `write-through` came out as it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// WT writes compared with WB's; the ratio says how.
    Compared {
        /// The write kernel.
        kernel: Kernel,
        /// The L1 set.
        size: u64,
        /// WB over WT, hundredths.
        ratio: u64,
    },
    /// The same, on a core documented to treat write-through as non-cacheable.
    AsNonCacheable {
        /// The write kernel.
        kernel: Kernel,
        /// The L1 set.
        size: u64,
        /// WB over WT, hundredths.
        ratio: u64,
    },
    /// WB writes no faster than WT's on a core whose full-line writes stream past L1: the
    /// write-stp kernel cannot tell the two apart there.
    Streaming {
        /// The L1 set.
        size: u64,
        /// WB over WT, hundredths.
        ratio: u64,
    },
    /// WB writes no faster than WT's because write-back writes themselves do not allocate
    /// (`write-allocate` fails and says so): nothing here tells the two apart.
    WriteBackNoAlloc {
        /// The write kernel.
        kernel: Kernel,
        /// The L1 set.
        size: u64,
        /// WB over WT, hundredths.
        ratio: u64,
    },
    /// No write points of both types at the L1 set.
    Missing,
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (wb, wt) = (
            const { named(Role::WriteBack) },
            const { named(Role::WriteThrough) },
        );
        // Every comparison opens alike: WB's writes at the L1 set against WT's.
        let (kernel, size, ratio, only) = match *self {
            Why::Compared {
                kernel,
                size,
                ratio,
            }
            | Why::AsNonCacheable {
                kernel,
                size,
                ratio,
            } => (kernel, size, ratio, ""),
            Why::WriteBackNoAlloc {
                kernel,
                size,
                ratio,
            } => (kernel, size, ratio, "only "),
            // Only write-stp's full-line stream is taken for streaming.
            Why::Streaming { size, ratio } => (Kernel::WriteStp, size, ratio, "only "),
            Why::Missing => {
                return write!(
                    f,
                    "not measured: no {} points of {wb} and {wt} at the L1 set",
                    Kernel::WriteStp.spec().name
                )
            }
        };
        write!(
            f,
            "{wb} {} at {} run at {only}{} {wt}'s speed",
            Writes(kernel),
            Bytes(size),
            Times(ratio)
        )?;
        let clear = ratio >= CLEAR_RATIO;
        match *self {
            Why::Compared { .. } => f.write_str(if clear {
                ": write-through stores reach memory"
            } else if ratio >= SAME_RATIO {
                ": a small difference, not conclusive"
            } else {
                ": the write-through alias behaves as write-back (check its MAIR byte and AttrIndx)"
            }),
            Why::AsNonCacheable { .. } => f.write_str(if clear {
                ": this core treats write-through as non-cacheable, as documented, and its stores reach memory"
            } else {
                ", though this core is documented to treat write-through as non-cacheable: the alias is not what it claims (check its MAIR byte and AttrIndx)"
            }),
            Why::Streaming { .. } => write!(
                f,
                ", but this core's full-line writes stream past L1 without allocating, so {} cannot tell write-through from write-back here",
                Kernel::WriteStp.spec().name
            ),
            Why::WriteBackNoAlloc { .. } => f.write_str(
                " because write-back writes themselves do not allocate (write-allocate fails on it), so they cannot show whether write-through stores reach memory",
            ),
            Why::Missing => Ok(()),
        }
    }
}

/// `allocate` is the same sweep's `write-allocate` verdict: its cause is not blamed on the
/// write-through alias.
// Not inlined: see `super::judge`.
#[inline(never)]
pub(super) fn judge<S: Sweep + ?Sized>(v: &View<'_, '_, S>, allocate: &Verdict) -> Verdict {
    let mut e = Evidence::new();
    let k = v.write_kernel;
    let measured = v.l1_set.and_then(|size| {
        let wb = v.of(k, Role::WriteBack, size)?;
        let wt = v.of(k, Role::WriteThrough, size)?;
        Some((size, wb, wt, faster(Unit::Bandwidth, wb, wt)?))
    });
    let core = v.i.core;
    let as_nc = core.and_then(|c| c.wt_as_nc);
    // Only write-stp's full-line stream can be kept from allocating by a streaming mode.
    let streaming = core
        .and_then(|c| c.streaming)
        .filter(|_| k == Kernel::WriteStp);
    let mut note = None;
    let (status, why) = match measured {
        None => (Status::NotApplicable, Why::Missing),
        Some((size, wb, wt, ratio)) => {
            e.whole("size_bytes", size);
            e.whole("wb_mbps", wb);
            e.whole("wt_mbps", wt);
            e.hundredths("ratio", ratio);
            e.hundredths("min_ratio", CLEAR_RATIO);
            e.hundredths("same_below", SAME_RATIO);
            if k == Kernel::WriteLine {
                e.flag("partial_line", true);
            }
            let clear = ratio >= CLEAR_RATIO;
            if !clear && super::write_allocate::wb_does_not_allocate(v, allocate) {
                // One cause, named once: write-allocate's.
                (
                    Status::NotApplicable,
                    Why::WriteBackNoAlloc {
                        kernel: k,
                        size,
                        ratio,
                    },
                )
            } else if !clear && streaming.is_some() {
                note = CoreNote::of(core, |c| c.streaming);
                (Status::Warn, Why::Streaming { size, ratio })
            } else if as_nc.is_some() {
                // A documented downgrade is never the board's failure: short of the ratio, a
                // warn naming the mismatch.
                note = CoreNote::of(core, |c| c.wt_as_nc);
                let status = if clear { Status::Pass } else { Status::Warn };
                let why = Why::AsNonCacheable {
                    kernel: k,
                    size,
                    ratio,
                };
                (status, why)
            } else {
                note = CoreNote::of(core, |_| None);
                let status = if clear {
                    Status::Pass
                } else if ratio >= SAME_RATIO {
                    Status::Warn
                } else {
                    Status::Fail
                };
                let why = Why::Compared {
                    kernel: k,
                    size,
                    ratio,
                };
                (status, why)
            }
        }
    };
    Verdict::new(SPEC.name, status, e, super::Why::WriteThrough(why)).noting(note)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::super::judge;
    use super::super::testing::*;
    use super::*;
    use crate::memtype::MemType;
    use crate::paging::Granule;
    use std::format;

    #[test]
    fn write_through_verdicts() {
        let caches = a72_caches();
        // WT = WB: mis-set, fail.
        let s = sweep(32 * MIB, wt_is_wb);
        let v = judge(&inputs(&caches, &s));
        assert_eq!(status(&v, Name::WriteThrough), Status::Fail);
        assert_eq!(
            why(&v, Name::WriteThrough),
            format!(
                "{} writes at 16 KiB run at 1.0x {}'s speed: the write-through alias behaves as write-back (check its MAIR byte and AttrIndx)",
                name(Role::WriteBack),
                name(Role::WriteThrough)
            )
        );
        // WT only 1.3x slower: warn.
        fn wt_close(kernel: Kernel, t: &MemType, g: Granule, size: u64) -> Option<u64> {
            match (kernel, t.role) {
                (Kernel::WriteStp, Role::WriteThrough) => Some(12_300),
                _ => a72(kernel, t, g, size),
            }
        }
        let s = sweep(32 * MIB, wt_close);
        let v = judge(&inputs(&caches, &s));
        assert_eq!(status(&v, Name::WriteThrough), Status::Warn);
        assert!(why(&v, Name::WriteThrough).ends_with(&format!(
            "1.3x {}'s speed: a small difference, not conclusive",
            name(Role::WriteThrough)
        )));
        // No writes measured: n/a.
        fn no_writes(kernel: Kernel, t: &MemType, g: Granule, size: u64) -> Option<u64> {
            (kernel != Kernel::WriteStp)
                .then(|| a72(kernel, t, g, size))
                .flatten()
        }
        let s = sweep(32 * MIB, no_writes);
        let v = judge(&inputs(&caches, &s));
        assert_eq!(status(&v, Name::WriteThrough), Status::NotApplicable);
    }
}
