//! A board and an Ampere Altra-like log for the fleet table's tests.

use crate::read::model::{CacheLevel, Measurement, Run, Unit, Verdict};
use mairbench_core::kernel::Kernel;
use mairbench_core::memtype::{self, Role, MEMTYPES};
use mairbench_core::verdict::VERDICTS;

/// A point of `kernel` on core's first type of `role` (its granule, cv `cv` %).
pub(super) fn m(kernel: Kernel, role: Role, size: u64, best: f64, cv: f64) -> Measurement {
    let spec = kernel.spec();
    Measurement {
        memtype: MEMTYPES[memtype::position(role).unwrap()].name.to_string(),
        kernel: spec.name.to_string(),
        granule: spec.granule.name().to_string(),
        size,
        unit: Unit::from(spec.unit),
        best,
        median: best,
        cv_pct: cv,
        reps: 5,
        pmu: None,
        start: None,
        line_state: None,
    }
}

/// A board with L1 and L2 reported, Device reads, writes and latency at six sizes, and one
/// verdict.
pub(super) fn board() -> Run {
    let mut run = Run {
        platform: "example,board".into(),
        midr: "0x410fd083".into(),
        version: "0.1.0".into(),
        caches: vec![
            CacheLevel {
                level: 1,
                kind: "data".into(),
                size: 32 << 10,
            },
            CacheLevel {
                level: 2,
                kind: "unified".into(),
                size: 1 << 20,
            },
        ],
        ..Run::default()
    };
    for size in [4 << 10, 16 << 10, 32 << 10, 1 << 20, 4 << 20, 8 << 20] {
        run.measurements
            .push(m(Kernel::ReadLdp, Role::WriteBack, size, 4000.0, 3.0));
        run.measurements
            .push(m(Kernel::ReadLdp, Role::Device, size, 400.0, 4.0));
        for (role, v) in [
            (Role::WriteBack, 8000.0),
            (Role::NonCacheable, 2000.0),
            (Role::WriteBackHinted, 4000.0),
        ] {
            run.measurements
                .push(m(Kernel::WriteStp, role, size, v, 0.0));
        }
        run.measurements.push(m(
            Kernel::Latency,
            Role::WriteBack,
            size,
            size as f64 / 65536.0,
            1.0,
        ));
    }
    run.verdicts.push(Verdict {
        name: VERDICTS[0].id.into(),
        status: "pass".into(),
        evidence: vec![],
        why: String::new(),
        core_note: None,
    });
    run
}

/// An Ampere Altra-like log (core's `system_cache` tests cite its figures): 64 KiB L1 and
/// 1 MiB L2 reported, a 32 MiB system cache that is not; sizes 4 KiB to `max`.
pub(super) fn altra(max: u64) -> Run {
    let mut run = Run {
        caches: vec![
            CacheLevel {
                level: 1,
                kind: "data".into(),
                size: 64 << 10,
            },
            CacheLevel {
                level: 2,
                kind: "unified".into(),
                size: 1 << 20,
            },
        ],
        ..Run::default()
    };
    for size in (12..=max.trailing_zeros()).map(|s| 1u64 << s) {
        let ns = match size {
            s if s <= 64 << 10 => 1.5,
            s if s <= 1 << 20 => 5.0,
            s if s <= 32 << 20 => 30.0,
            _ => 120.0,
        };
        run.measurements
            .push(m(Kernel::Latency, Role::WriteBack, size, ns, 1.0));
        run.measurements
            .push(m(Kernel::ReadLdp, Role::WriteBack, size, 4000.0, 1.0));
    }
    run
}
