//! `device-read-cliff`: information, how much slower Device reads are than write-back ones
//! in DRAM.

use core::fmt;

use super::points::{devices, faster, named, Times, View};
use super::{Basis, Evidence, Name, Spec, Status, Sweep, Verdict, STEP_RATIO};
use crate::cache::CacheLevel;
use crate::format::Bytes;
use crate::kernel::{Kernel, Unit};
use crate::memtype::{Role, MEMTYPES};

pub const SPEC: Spec = Spec {
    name: Name::DeviceReadCliff,
    id: "device-read-cliff",
    checks: "Information: how much slower Device reads (read-ldp, device-ngnre first) are than normal-wb's in DRAM, against the public report \"Performance Anomaly Investigation\" (≈10×).",
    threshold: "At the smallest size ≥ 4× the last-level cache; pass with the ratio quoted; a ratio < 1.30× (no cliff) is a warn.",
    failure: "Never a fail. No cliff at all means normal-wb streams no faster than Device memory (caches or prefetch not working), or the Device alias is not Device. A large cliff is what a buffer mapped as Device costs: map DMA buffers that the CPU reads as normal memory with maintenance.",
    next: "For a warn, look at the device-ngnre memtype record: a Normal par_attr means the alias is not Device. With the right attribute, rerun with mairbench.kernels=read-ldp,latency mairbench.types=normal-wb,device-ngnre: a normal-wb curve as flat as Device's is caches-on's or uncached's finding.",
    basis: Basis::Timing,
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
    },
    /// No read points of the write-back and a Device type in DRAM.
    Missing,
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let wb = named(Role::WriteBack);
        match *self {
            Why::Cliff {
                memtype,
                size,
                ratio,
            } if ratio >= STEP_RATIO => write!(
                f,
                "{memtype} reads at {} are {} slower than {wb}'s (\"Performance Anomaly Investigation\": ≈10x)",
                Bytes(size),
                Times(ratio)
            ),
            Why::Cliff {
                memtype,
                size,
                ratio,
            } => write!(
                f,
                "{wb} reads at {} run at only {} {memtype}'s speed (\"Performance Anomaly Investigation\": ≈10x): no cliff, so {wb} streams no faster than Device memory",
                Bytes(size),
                Times(ratio)
            ),
            Why::Missing => write!(
                f,
                "not measured: no {} points of {wb} and a Device type at 4x the last-level cache or more",
                Kernel::ReadLdp.spec().name
            ),
        }
    }
}

pub(super) fn judge<S: Sweep + ?Sized>(v: &View<'_, '_, S>) -> Verdict {
    let mut e = Evidence::new();
    let k = Kernel::ReadLdp;
    let dram = super::points::dram_bound(v.caches().map(CacheLevel::size));
    let wb = super::points::position(Role::WriteBack);
    let found = devices().find_map(|t| {
        let (size, wb) = v.at_least(k, wb, dram)?;
        let dev = v.value(k, t, size)?;
        Some((t, size, wb, dev, faster(Unit::Bandwidth, wb, dev)?))
    });
    let (status, why) = match found {
        None => (Status::NotApplicable, Why::Missing),
        Some((t, size, wb, dev, ratio)) => {
            e.push("size_bytes", size, 0);
            e.push("wb_mbps", wb, 0);
            e.push("device_mbps", dev, 0);
            e.push("ratio", ratio, 2);
            e.push("reference_ratio", REFERENCE_CLIFF, 2);
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
}
