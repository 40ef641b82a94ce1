//! `device-read-cliff`: information, how much slower Device reads are than write-back ones
//! in DRAM.

use core::fmt;

use super::points::{faster, named, Times, View, DEVICES};
use super::DRAM_TIMES;
use super::{Basis, Evidence, Name, Scope, Spec, Status, Sweep, Verdict, STEP_RATIO};
use crate::format::Bytes;
use crate::kernel::{Kernel, Unit};
use crate::memtype::{Role, MEMTYPES};

pub const SPEC: Spec = Spec {
    name: Name::DeviceReadCliff,
    id: "device-read-cliff",
    checks: "Information: how much slower Device reads (read-ldp, device-ngnre first) are than normal-wb's in DRAM, against the public report \"Performance Anomaly Investigation\" (≈10×).",
    threshold: "At the smallest size ≥ 4× the last cache step: the last level CLIDR_EL1 reports, or a system cache the normal-wb latency curve shows past it (then capped at the largest size past it when the buffer holds no 4×, and said so); pass with the ratio quoted; a ratio < 1.30× (no cliff) is a warn.",
    failure: "Never a fail. No cliff at all means normal-wb streams no faster than Device memory (caches or prefetch not working), or the Device alias is not Device. A large cliff is what a buffer mapped as Device costs: map DMA buffers that the CPU reads as normal memory with maintenance.",
    next: "For a warn, look at the device-ngnre memtype record: a Normal par_attr means the alias is not Device. With the right attribute, rerun with mairbench.kernels=read-ldp,latency mairbench.types=normal-wb,device-ngnre: a normal-wb curve as flat as Device's is caches-on's or uncached's finding.",
    basis: Basis::Timing,
    scope: Scope::Core,
};

/// The public report "Performance Anomaly Investigation" (a dma-buf mapped as Device memory)
/// found Device reads ≈10× slower than heap memory: the reference `device-read-cliff`
/// quotes (hundredths).
pub const REFERENCE_CLIFF: u64 = 1000;

/// Why `device-read-cliff` came out as it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// Device vs WB reads in DRAM.
    Cliff {
        /// The Device type measured.
        memtype: &'static str,
        /// Where.
        size: u64,
        /// WB over Device, hundredths.
        ratio: u64,
        /// A system cache the registers do not report that the DRAM point is past: its size,
        /// and the bound the buffer could not reach when the point is capped.
        past: Option<(u64, Option<u64>)>,
    },
    /// No read points of the write-back and a Device type in DRAM.
    Missing,
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let wb = const { named(Role::WriteBack) };
        match *self {
            Why::Cliff {
                memtype,
                size,
                ratio,
                ..
            } if ratio >= STEP_RATIO => write!(
                f,
                "{memtype} reads at {} are {} slower than {wb}'s (\"Performance Anomaly Investigation\": ≈10x)",
                Bytes(size),
                Times(ratio)
            )?,
            Why::Cliff {
                memtype,
                size,
                ratio,
                ..
            } => write!(
                f,
                "{wb} reads at {} run at only {} {memtype}'s speed (\"Performance Anomaly Investigation\": ≈10x): no cliff, so {wb} streams no faster than Device memory",
                Bytes(size),
                Times(ratio)
            )?,
            Why::Missing => write!(
                f,
                "not measured: no {} points of {wb} and a Device type at 4x the last cache step or more",
                Kernel::ReadLdp.spec().name
            )?,
        }
        match *self {
            Why::Cliff {
                past: Some((cache, None)),
                ..
            } => write!(
                f,
                concat!(
                    "; DRAM past the {} system cache ",
                    crate::arch_name!(clidr),
                    " does not report"
                ),
                Bytes(cache)
            ),
            Why::Cliff {
                past: Some((cache, Some(bound))),
                ..
            } => write!(
                f,
                concat!(
                    "; capped: DRAM is {DRAM_TIMES}x the {} system cache ",
                    crate::arch_name!(clidr),
                    " does not report, {}, more than the buffer holds (mairbench.buffer=), so these reads may still hit it"
                ),
                Bytes(cache),
                Bytes(bound),
                DRAM_TIMES = DRAM_TIMES
            ),
            _ => Ok(()),
        }
    }
}

// Not inlined: see `super::judge`.
#[inline(never)]
pub(super) fn judge<S: Sweep + ?Sized>(v: &View<'_, '_, S>) -> Verdict {
    let mut e = Evidence::new();
    let k = Kernel::ReadLdp;
    let wb = super::points::position(Role::WriteBack);
    // The write-back DRAM point, then the first Device type measured there.
    let found = v.dram(k, wb).and_then(|(point, wb)| {
        DEVICES.iter().find_map(|&t| {
            let dev = v.value(k, t, point.size)?;
            Some((t, point, wb, dev, faster(Unit::Bandwidth, wb, dev)?))
        })
    });
    let (status, why) = match found {
        None => (Status::NotApplicable, Why::Missing),
        Some((t, point, wb, dev, ratio)) => {
            let size = point.size;
            e.whole("size_bytes", size);
            e.whole("wb_mbps", wb);
            e.whole("device_mbps", dev);
            e.hundredths("ratio", ratio);
            e.hundredths("reference_ratio", REFERENCE_CLIFF);
            let finding = v.finding;
            let past = finding.system_cache().map(|c| {
                e.whole("system_cache_bytes", c.size);
                let capped = point.capped.then(|| finding.bound());
                if let Some(bound) = capped {
                    e.whole("dram_bound_bytes", bound);
                }
                (c.size, capped)
            });
            let status = if ratio < STEP_RATIO {
                Status::Warn
            } else {
                Status::Pass
            };
            let memtype = MEMTYPES.get(t).map_or("", |t| t.name);
            (
                status,
                Why::Cliff {
                    memtype,
                    size,
                    ratio,
                    past,
                },
            )
        }
    };
    Verdict::new(SPEC.name, status, e, super::Why::DeviceReadCliff(why))
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::super::judge;
    use super::super::testing::*;
    use super::*;
    use crate::memtype::{self, MemType};
    use crate::paging::Granule;
    use std::format;

    #[test]
    fn device_read_cliff_verdicts() {
        let caches = a72_caches();
        // No cliff: Device as fast as the write-back type in DRAM.
        fn no_cliff(kernel: Kernel, t: &MemType, g: Granule, size: u64) -> Option<u64> {
            match (kernel, t.role) {
                (Kernel::ReadLdp, Role::Device) => Some(3_800),
                _ => a72(kernel, t, g, size),
            }
        }
        let s = sweep(32 * MIB, no_cliff);
        let v = judge(&inputs(&caches, &s));
        assert_eq!(status(&v, Name::DeviceReadCliff), Status::Warn);
        let preferred = MEMTYPES[memtype::DEVICE_NGNRE].name;
        assert!(why(&v, Name::DeviceReadCliff).starts_with(&format!(
            "{} reads at 4 MiB run at only 1.1x {preferred}'s speed",
            name(Role::WriteBack)
        )));
        // The sweep stops at 2 MiB < 4x the 1 MiB L2: n/a.
        let s = sweep(2 * MIB, a72);
        let v = judge(&inputs(&caches, &s));
        assert_eq!(status(&v, Name::DeviceReadCliff), Status::NotApplicable);
        // Only the table's last Device type measured: it is used.
        fn last_only(kernel: Kernel, t: &MemType, g: Granule, size: u64) -> Option<u64> {
            let last = memtype::with_role(Role::Device).last().map(|d| d.index);
            (t.role != Role::Device || Some(t.index) == last)
                .then(|| a72(kernel, t, g, size))
                .flatten()
        }
        let s = sweep(32 * MIB, last_only);
        let v = judge(&inputs(&caches, &s));
        let last = memtype::with_role(Role::Device).last().unwrap().name;
        assert!(why(&v, Name::DeviceReadCliff).starts_with(&format!("{last} reads at 4 MiB")));
    }

    /// Ampere Altra-like: the 64 KB L1D and 1 MB L2 of its Neoverse N1 cores, which CLIDR_EL1
    /// reports, and the 32 MB System Level Cache of its mesh, which it does not (Ampere's
    /// figures: see `system_cache`'s tests). Illustrative speeds: write-back reads 8 GB/s out
    /// of the system cache, 4 GB/s from DRAM; Device reads 0.4 GB/s.
    fn altra(kernel: Kernel, t: &MemType, _: Granule, size: u64) -> Option<u64> {
        let at = |l1, l2, slc, dram| match size {
            s if s <= 64 * KIB => l1,
            s if s <= MIB => l2,
            s if s <= 32 * MIB => slc,
            _ => dram,
        };
        Some(match (kernel, t.role) {
            (Kernel::ReadLdp, Role::WriteBack) => at(20_000, 10_000, 8_000, 4_000),
            (Kernel::ReadLdp, Role::Device) => 400,
            (Kernel::Latency, Role::WriteBack) => at(150, 500, 3_000, 12_000),
            _ => return None,
        })
    }

    #[test]
    fn a_system_cache_moves_the_cliff_to_dram() {
        let caches = [level(1, 64 * KIB), level(2, MIB)];
        let device = MEMTYPES[memtype::DEVICE_NGNRE].name;
        // mairbench.buffer=256M: 4x the system cache is measured.
        let v = judge(&inputs(&caches, &sweep(256 * MIB, altra)));
        assert_eq!(status(&v, Name::DeviceReadCliff), Status::Pass);
        assert_eq!(ev(&v, Name::DeviceReadCliff, "size_bytes"), Some(128 * MIB));
        assert_eq!(ev(&v, Name::DeviceReadCliff, "ratio"), Some(1000));
        assert_eq!(
            ev(&v, Name::DeviceReadCliff, "system_cache_bytes"),
            Some(32 * MIB)
        );
        assert_eq!(ev(&v, Name::DeviceReadCliff, "dram_bound_bytes"), None);
        assert_eq!(
            why(&v, Name::DeviceReadCliff),
            format!("{device} reads at 128 MiB are 10.0x slower than {}'s (\"Performance Anomaly Investigation\": ≈10x); DRAM past the 32 MiB system cache CLIDR_EL1 does not report", name(Role::WriteBack))
        );
        // 64 MiB: past the system cache but short of 4x it: capped, and said so.
        let v = judge(&inputs(&caches, &sweep(64 * MIB, altra)));
        assert_eq!(ev(&v, Name::DeviceReadCliff, "size_bytes"), Some(64 * MIB));
        assert_eq!(
            ev(&v, Name::DeviceReadCliff, "dram_bound_bytes"),
            Some(128 * MIB)
        );
        assert!(why(&v, Name::DeviceReadCliff).ends_with(
            "; capped: DRAM is 4x the 32 MiB system cache CLIDR_EL1 does not report, 128 MiB, \
             more than the buffer holds (mairbench.buffer=), so these reads may still hit it"
        ));
        // The same curves under emulation: the reported L2 decides, as before.
        let s = sweep(256 * MIB, altra);
        let mut i = inputs(&caches, &s);
        i.emulated = true;
        let v = judge(&i);
        assert_eq!(ev(&v, Name::DeviceReadCliff, "size_bytes"), Some(4 * MIB));
        assert_eq!(ev(&v, Name::DeviceReadCliff, "system_cache_bytes"), None);
    }
}
