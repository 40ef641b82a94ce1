//! Synthetic boards for the verdicts' tests: sweeps shaped like real cache hierarchies,
//! keyed by memory-type role (never by name, so a type renamed in core's table keeps them).

extern crate std;

use std::string::{String, ToString};
use std::vec::Vec;

use super::*;
use crate::cache::CacheType;
use crate::kernel::Kernel;
use crate::memtype::{self, MemType, Role, MEMTYPES};
use crate::paging::Granule;

pub(super) const KIB: u64 = 1 << 10;
pub(super) const MIB: u64 = 1 << 20;

pub(super) fn level(level: u8, size: u64) -> CacheLevel {
    // 64 B lines, 4 ways: sets = size / 256.
    CacheLevel {
        level,
        kind: if level == 1 {
            CacheType::Separate
        } else {
            CacheType::Unified
        },
        line: 64,
        ways: 4,
        sets: u32::try_from(size / 256).unwrap(),
    }
}

/// Cortex-A72-like: L1D 32 KiB, L2 1 MiB.
pub(super) fn a72_caches() -> [CacheLevel; 2] {
    [level(1, 32 * KIB), level(2, MIB)]
}

/// A board's value of a kernel on a memory type at a size (`None`: not measured).
pub(super) type Curve = fn(Kernel, &MemType, Granule, u64) -> Option<u64>;
/// A board's PMU count per line of an event (`None`: not counted).
pub(super) type Pmu = fn(Kernel, &MemType, u64, &str) -> Option<u64>;

/// A synthetic sweep: powers of two from 4 KiB to `max`, values from `curve`, PMU counts
/// from `pmu`.
pub(super) struct Synthetic {
    pub(super) sizes: Vec<u64>,
    pub(super) curve: Curve,
    pub(super) pmu: Pmu,
}

pub(super) fn no_pmu(_: Kernel, _: &MemType, _: u64, _: &str) -> Option<u64> {
    None
}

pub(super) fn sweep(max: u64, curve: Curve) -> Synthetic {
    Synthetic {
        sizes: (12..=max.trailing_zeros()).map(|s| 1u64 << s).collect(),
        curve,
        pmu: no_pmu,
    }
}

impl Sweep for Synthetic {
    fn sizes(&self) -> &[u64] {
        &self.sizes
    }
    fn best(&self, kernel: Kernel, memtype: usize, granule: Granule, size: u64) -> Option<u64> {
        let t = MEMTYPES.get(memtype)?;
        self.sizes
            .contains(&size)
            .then(|| (self.curve)(kernel, t, granule, size))
            .flatten()
    }
    fn pmu(&self, kernel: Kernel, memtype: usize, size: u64, event: &str) -> Option<u64> {
        (self.pmu)(kernel, MEMTYPES.get(memtype)?, size, event)
    }
}

/// The name core's table gives the first type of `role`.
pub(super) fn name(role: Role) -> &'static str {
    points::named(role)
}

/// The type `t` behaving as a type of `role` would: a mis-set or downgraded alias.
pub(super) fn as_role(t: &MemType, role: Role) -> &'static MemType {
    memtype::position(role)
        .and_then(|i| MEMTYPES.get(i))
        .unwrap_or(&MEMTYPES[t.index as usize])
}

/// Three levels of a cached curve (L1 ≤ 32 KiB, L2 ≤ 1 MiB, DRAM).
pub(super) fn tiers(size: u64, l1: u64, l2: u64, dram: u64) -> u64 {
    if size <= 32 * KIB {
        l1
    } else if size <= MIB {
        l2
    } else {
        dram
    }
}

/// Cortex-A72-like curves: WB reads ~20 GB/s in L1, ~10 in L2, ~4 in DRAM; NC flat
/// ~1 GB/s; Device ~0.4; WB-noalloc and WT writes go to memory; latency 1.5 / 10 / 120 ns.
pub(super) fn a72(kernel: Kernel, t: &MemType, _: Granule, size: u64) -> Option<u64> {
    use Role::*;
    Some(match (kernel, t.role) {
        (Kernel::ReadLdp, WriteBack | WriteThrough) => tiers(size, 20_000, 10_000, 4_000),
        (Kernel::ReadLdp, WriteBackHinted) => 1_100,
        (Kernel::ReadLdp, NonCacheable) => 1_000,
        (Kernel::ReadLdp, _) => 400,
        (Kernel::WriteStp, WriteBack) => tiers(size, 16_000, 8_000, 3_000),
        (Kernel::WriteStp, WriteBackHinted | WriteThrough) => 2_500,
        (Kernel::WriteStp, NonCacheable) => 2_000,
        (Kernel::WriteStp, _) => 1_500,
        (Kernel::Latency, WriteBack) => tiers(size, 150, 1_000, 12_000),
        (Kernel::Latency, _) => 15_000,
        _ => return None,
    })
}

/// The figures of the public reports on an A72-like cache hierarchy: Device reads ≈10×
/// slower than heap (normal-wb) in DRAM while writes look fine; write-back no-allocate
/// 7 MB/s write, 28 MB/s read vs 120/160 MB/s with read-write-allocate.
pub(super) fn public_reports(kernel: Kernel, t: &MemType, _: Granule, size: u64) -> Option<u64> {
    use Role::*;
    Some(match (kernel, t.role) {
        (Kernel::ReadLdp, WriteBack | WriteThrough) => tiers(size, 2_000, 800, 160),
        (Kernel::ReadLdp, WriteBackHinted) => 28,
        (Kernel::ReadLdp, NonCacheable) => 30,
        (Kernel::ReadLdp, _) => 16,
        (Kernel::WriteStp, WriteBack) => tiers(size, 1_500, 600, 120),
        (Kernel::WriteStp, WriteBackHinted) => 7,
        (Kernel::WriteStp, WriteThrough) => 9,
        (Kernel::WriteStp, _) => 110,
        _ => return None,
    })
}

/// Caches off (or the write-back type not cacheable): every Normal type like the
/// non-cacheable one.
pub(super) fn caches_off(kernel: Kernel, t: &MemType, _: Granule, _: u64) -> Option<u64> {
    let device = t.role == Role::Device;
    Some(match kernel {
        Kernel::ReadLdp if device => 400,
        Kernel::ReadLdp => 1_000 + u64::from(t.role == Role::WriteBack) * 20,
        Kernel::WriteStp if device => 1_500,
        Kernel::WriteStp => 2_000,
        Kernel::Latency => 15_000,
        _ => return None,
    })
}

/// The A72 board, but the core ignores the no-allocate hint (hinted = WB).
pub(super) fn ignores_noalloc(kernel: Kernel, t: &MemType, g: Granule, size: u64) -> Option<u64> {
    let t = match t.role {
        Role::WriteBackHinted => as_role(t, Role::WriteBack),
        _ => t,
    };
    a72(kernel, t, g, size)
}

/// The A72 board with the WT alias mis-set to write-back (WT = WB).
pub(super) fn wt_is_wb(kernel: Kernel, t: &MemType, g: Granule, size: u64) -> Option<u64> {
    let t = match t.role {
        Role::WriteThrough => as_role(t, Role::WriteBack),
        _ => t,
    };
    a72(kernel, t, g, size)
}

/// The A72 board with the non-cacheable alias mapped cacheable by mistake (NC = WB).
pub(super) fn nc_cached(kernel: Kernel, t: &MemType, g: Granule, size: u64) -> Option<u64> {
    let t = match t.role {
        Role::NonCacheable => as_role(t, Role::WriteBack),
        _ => t,
    };
    a72(kernel, t, g, size)
}

/// QEMU: flat curves, every type alike (Device slower through the TCG slow path).
pub(super) fn emulated(kernel: Kernel, t: &MemType, _: Granule, _: u64) -> Option<u64> {
    let device = t.role == Role::Device;
    Some(match kernel {
        Kernel::ReadLdp | Kernel::WriteStp if device => 1_200,
        Kernel::ReadLdp | Kernel::WriteStp => 12_000,
        Kernel::Latency => 500,
        _ => return None,
    })
}

/// A healthy board's inputs besides the sweep: caches on, both data experiments exact, four
/// CPUs alike, a 1.5 GHz core on a 54 MHz timer.
pub(super) fn inputs<'a>(caches: &'a [CacheLevel], sweep: &'a Synthetic) -> Inputs<'a, Synthetic> {
    Inputs {
        emulated: false,
        sctlr_c: true,
        sctlr_i: true,
        caches,
        sweep,
        stale: Some(Stale {
            stale_words: 8192,
            words: 8192,
        }),
        maintenance: Some(Maintenance {
            cleaned_visible: true,
            stale_before_invalidate: Some(true),
            invalidate_dropped: Some(true),
        }),
        smp: Some(Smp {
            cpus: 4,
            started: 4,
            differing: 0,
            first_differing: None,
            shared_line_ok: true,
        }),
        smp_bits: None,
        clock: Some(Clock {
            cycles: 1_500_000_000,
            ticks: 54_000_000,
            timer_hz: 54_000_000,
        }),
        core: crate::cores::by_midr(A72_MIDR),
        revision: Some(crate::cores::Revision::of(A72_MIDR)),
        hypervisor: None,
    }
}

/// A Cortex-A72 r0p3's MIDR_EL1 (a Raspberry Pi 4's).
pub(super) const A72_MIDR: u64 = 0x410f_d083;

pub(super) fn status(v: &Verdicts, name: Name) -> Status {
    v.get(name).unwrap().status
}

pub(super) fn why(v: &Verdicts, name: Name) -> String {
    v.get(name).unwrap().why.to_string()
}

pub(super) fn ev(v: &Verdicts, name: Name, key: &str) -> Option<u64> {
    v.get(name).unwrap().evidence.get(key).map(|(v, _)| v)
}

pub(super) fn statuses(v: &Verdicts) -> Vec<(&'static str, &'static str)> {
    v.iter().map(|v| (v.name.id(), v.status.name())).collect()
}
