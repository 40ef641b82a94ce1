//! Synthetic boards shaped from core's table of cores: for every row, a healthy board that
//! does what the row documents (full-line writes that stream past L1, write-through cached
//! as non-cacheable) gets no `fail`; the same board with its caches off, or its Device alias
//! read at write-back speed, fails what it must, and the public report's 10x Device read
//! cliff is quoted.

extern crate std;

use super::testing::*;
use super::*;
use crate::cores::{Core, CORES};
use crate::kernel::Kernel;
use crate::memtype::{MemType, Role};
use crate::paging::Granule;
use std::format;
use std::string::ToString;
use std::vec::Vec;

/// Full-line writes that stream past L1 (A53 read allocate mode, A76 write streaming):
/// every Normal type's write-stp runs at L2 or DRAM speed, write-back only a little faster.
fn streams(kernel: Kernel, t: &MemType, g: Granule, size: u64) -> Option<u64> {
    match (kernel, t.role) {
        (Kernel::WriteStp, Role::WriteBack) => Some(2_400),
        (Kernel::WriteStp, Role::WriteBackHinted) => Some(2_300),
        (Kernel::WriteStp, Role::WriteThrough | Role::NonCacheable) => Some(2_000),
        _ => a72(kernel, t, g, size),
    }
}

/// Write-through cached as non-cacheable (Cortex-A55): WT reads and writes like NC's.
fn wt_as_nc(kernel: Kernel, t: &MemType, g: Granule, size: u64) -> Option<u64> {
    let t = match t.role {
        Role::WriteThrough => as_role(t, Role::NonCacheable),
        _ => t,
    };
    a72(kernel, t, g, size)
}

/// Both (Cortex-A55).
fn streams_and_wt_as_nc(kernel: Kernel, t: &MemType, g: Granule, size: u64) -> Option<u64> {
    let t = match t.role {
        Role::WriteThrough => as_role(t, Role::NonCacheable),
        _ => t,
    };
    streams(kernel, t, g, size)
}

/// The healthy board of a row.
fn healthy(c: &Core) -> Curve {
    match (c.streaming.is_some(), c.wt_as_nc.is_some()) {
        (false, false) => a72,
        (true, false) => streams,
        (false, true) => wt_as_nc,
        (true, true) => streams_and_wt_as_nc,
    }
}

fn midr(c: &Core) -> u64 {
    u64::from(c.implementer) << 24 | 0xf << 16 | u64::from(c.part) << 4
}

fn failed(v: &Verdicts) -> Vec<&'static str> {
    v.named(Status::Fail).collect()
}

#[test]
fn every_documented_core_passes_when_healthy() {
    let caches = a72_caches();
    for c in &CORES {
        let s = sweep(32 * MIB, healthy(c));
        let mut i = inputs(&caches, &s);
        i.core = crate::cores::by_midr(midr(c));
        assert_eq!(i.core.map(|r| r.name), Some(c.name));
        let v = judge(&i);
        assert_eq!(
            failed(&v),
            Vec::<&str>::new(),
            "{}: {:?}",
            c.name,
            statuses(&v)
        );
        let wt = v.get(Name::WriteThrough).unwrap();
        let wa = v.get(Name::WriteAllocate).unwrap();
        if c.streaming.is_some() {
            // Full-line writes cannot show allocation or write-through here: warns that say
            // why, quoting the row.
            for v in [wt, wa] {
                assert_eq!(v.status, Status::Warn, "{}", c.name);
                assert!(v.why.to_string().contains("stream past L1"), "{}", c.name);
                let note = v.core_note.unwrap().to_string();
                assert!(note.starts_with(c.name), "{note}");
            }
        } else {
            assert_eq!(wt.status, Status::Pass, "{}", c.name);
            assert_eq!(wa.status, Status::Pass, "{}", c.name);
        }
        // Without streaming, a core that caches write-through as non-cacheable passes as
        // documented.
        if c.wt_as_nc.is_some() {
            let s = sweep(32 * MIB, wt_as_nc);
            let mut i = inputs(&caches, &s);
            i.core = Some(c);
            let v = judge(&i);
            let wt = v.get(Name::WriteThrough).unwrap();
            assert_eq!(wt.status, Status::Pass, "{}", c.name);
            assert!(wt.why.to_string().contains("as documented"), "{}", c.name);
            let note = wt.core_note.unwrap().to_string();
            assert!(note.starts_with(c.name) && note.contains("TRM"), "{note}");
        }
    }
}

#[test]
fn the_same_boards_broken_fail() {
    let caches = a72_caches();
    for c in &CORES {
        let core = crate::cores::by_midr(midr(c));
        // Caches off: every Normal type like the non-cacheable one.
        let s = sweep(32 * MIB, caches_off);
        let mut i = inputs(&caches, &s);
        i.core = core;
        i.stale = Some(Stale {
            stale_words: 0,
            words: 8192,
        });
        let v = judge(&i);
        assert!(
            failed(&v).contains(&"caches-on"),
            "{}: {:?}",
            c.name,
            statuses(&v)
        );
        // The non-cacheable alias read at write-back speed (its attributes not applied).
        let s = sweep(32 * MIB, nc_cached);
        let mut i = inputs(&caches, &s);
        i.core = core;
        assert!(failed(&judge(&i)).contains(&"uncached"), "{}", c.name);
        // The public report's cliff: Device reads 10x slower than write-back in DRAM.
        let s = sweep(32 * MIB, healthy(c));
        let mut i = inputs(&caches, &s);
        i.core = core;
        let v = judge(&i);
        assert_eq!(
            status(&v, Name::DeviceReadCliff),
            Status::Pass,
            "{}",
            c.name
        );
        assert_eq!(ev(&v, Name::DeviceReadCliff, "ratio"), Some(1000));
    }
}

#[test]
fn a_documented_downgrade_that_does_not_show_is_a_warn() {
    // A Cortex-A55 whose write-through alias writes as fast as write-back: the TRM says WT is
    // non-cacheable, so the alias is not what it claims; a warn naming the mismatch.
    let a55 = CORES.iter().find(|c| c.wt_as_nc.is_some()).unwrap();
    // Its row without the streaming mode, which would make write-stp unable to tell.
    let row = Core {
        streaming: None,
        ..*a55
    };
    let caches = a72_caches();
    let s = sweep(32 * MIB, wt_is_wb);
    let mut i = inputs(&caches, &s);
    i.core = Some(&row);
    let v = judge(&i);
    assert_eq!(status(&v, Name::WriteThrough), Status::Warn);
    assert!(why(&v, Name::WriteThrough)
        .contains("though this core is documented to treat write-through as non-cacheable"));
}

#[test]
fn a_core_not_in_the_table_is_judged_by_the_architecture() {
    let caches = a72_caches();
    let s = sweep(32 * MIB, streams);
    let mut i = inputs(&caches, &s);
    i.core = None;
    let v = judge(&i);
    // Without a documented streaming mode, write-back writes no faster than NC's fail.
    assert_eq!(status(&v, Name::WriteAllocate), Status::Fail);
    let note = v.get(Name::WriteAllocate).unwrap().core_note;
    assert_eq!(note, Some(CoreNote::Unknown));
    assert!(note
        .unwrap()
        .to_string()
        .contains("architecture's guarantees"));
    let mut line = std::string::String::new();
    v.get(Name::WriteAllocate)
        .unwrap()
        .record(&mut line)
        .unwrap();
    assert!(line.contains("\"core_note\":\"this core is not in the table of cores"));
}

/// write-line measured too: one store per line, which no streaming mode takes for a
/// full-line stream, so the lines allocate as the memory type says (the A72 board's write
/// figures), while write-stp still streams.
fn streams_with_line(kernel: Kernel, t: &MemType, g: Granule, size: u64) -> Option<u64> {
    match kernel {
        Kernel::WriteLine => a72(Kernel::WriteStp, t, g, size),
        _ => streams(kernel, t, g, size),
    }
}

/// The same, write-through cached as non-cacheable (the A53, A35, A55 TRMs).
fn streams_with_line_wt_as_nc(kernel: Kernel, t: &MemType, g: Granule, size: u64) -> Option<u64> {
    let t = match t.role {
        Role::WriteThrough => as_role(t, Role::NonCacheable),
        _ => t,
    };
    streams_with_line(kernel, t, g, size)
}

/// write-line shows write-back lines that do not allocate (a mis-set MAIR byte, an outer
/// cache that does not allocate): no faster than non-cacheable ones.
fn line_does_not_allocate(kernel: Kernel, t: &MemType, g: Granule, size: u64) -> Option<u64> {
    match (kernel, t.role) {
        (Kernel::WriteLine, Role::WriteBack) => Some(2_100),
        _ => streams_with_line(kernel, t, g, size),
    }
}

#[test]
fn write_line_judges_allocation_where_streaming_hides_it() {
    let caches = a72_caches();
    for c in CORES.iter().filter(|c| c.streaming.is_some()) {
        let curve: Curve = if c.wt_as_nc.is_some() {
            streams_with_line_wt_as_nc
        } else {
            streams_with_line
        };
        let s = sweep(32 * MIB, curve);
        let mut i = inputs(&caches, &s);
        i.core = Some(c);
        let v = judge(&i);
        assert_eq!(
            failed(&v),
            Vec::<&str>::new(),
            "{}: {:?}",
            c.name,
            statuses(&v)
        );
        for name in [Name::WriteAllocate, Name::WriteThrough] {
            let verdict = v.get(name).unwrap();
            assert_eq!(verdict.status, Status::Pass, "{}: {}", c.name, verdict.why);
            assert!(
                verdict
                    .why
                    .to_string()
                    .contains("partial-line writes (write-line)"),
                "{}: {}",
                c.name,
                verdict.why
            );
            assert_eq!(verdict.evidence.get("partial_line"), Some((1, 0)));
        }
        // The board broken under it: write-line's lines do not allocate, and the verdict
        // fails, the core's streaming mode no excuse.
        let s = sweep(32 * MIB, line_does_not_allocate);
        let mut i = inputs(&caches, &s);
        i.core = Some(c);
        let v = judge(&i);
        assert_eq!(status(&v, Name::WriteAllocate), Status::Fail, "{}", c.name);
        assert!(why(&v, Name::WriteAllocate).contains("write-back writes do not allocate"));
    }
}

/// A KVM guest on a host with FEAT_S2FWB: stage 2 forces Normal write-back, so the
/// non-cacheable and write-through aliases behave as write-back.
fn stage2_forces_wb(kernel: Kernel, t: &MemType, g: Granule, size: u64) -> Option<u64> {
    let t = match t.role {
        Role::NonCacheable | Role::WriteThrough | Role::WriteBackHinted => {
            as_role(t, Role::WriteBack)
        }
        _ => t,
    };
    a72(kernel, t, g, size)
}

#[test]
fn a_hypervisor_that_forces_write_back_is_no_failure_of_the_board() {
    let caches = a72_caches();
    let s = sweep(32 * MIB, stage2_forces_wb);
    let mut i = inputs(&caches, &s);
    i.stale = Some(Stale {
        stale_words: 0,
        words: 8192,
    });
    // Not known to be a guest: the board fails what it must.
    let v = judge(&i);
    let f = failed(&v);
    assert!(
        f.contains(&"uncached") && f.contains(&"write-through"),
        "{f:?}"
    );
    // A KVM guest: n/a with the reason, the numbers kept.
    i.hypervisor = Some(crate::hypervisor::Hypervisor::Kvm);
    let v = judge(&i);
    assert_eq!(failed(&v), Vec::<&str>::new(), "{:?}", statuses(&v));
    for name in [Name::Uncached, Name::WriteThrough] {
        assert_eq!(status(&v, name), Status::NotApplicable);
        assert!(why(&v, name).starts_with("in a guest of kvm: a hypervisor's stage 2"));
    }
    assert!(ev(&v, Name::WriteThrough, "ratio").is_some());
    // SCTLR_EL1.C clear still fails, guest or not.
    i.sctlr_c = false;
    assert_eq!(status(&judge(&i), Name::CachesOn), Status::Fail);
}

/// The armv7 report's board (Zhao Yibin, "ARM Cache policy on single armv7 processor lead
/// to low DRAM performance"): write-back writes do not allocate, so they run as slowly as the
/// hinted, write-through and non-cacheable ones (7 MB/s against 120 with allocation); reads
/// are cached.
fn wb_writes_do_not_allocate(kernel: Kernel, t: &MemType, g: Granule, size: u64) -> Option<u64> {
    match (kernel, t.role) {
        (Kernel::WriteStp | Kernel::WriteLine, Role::Device) => Some(6),
        (Kernel::WriteStp | Kernel::WriteLine, _) => Some(7),
        _ => public_reports(kernel, t, g, size),
    }
}

/// What that board's PMU counts per line (hundredths) for the write kernels, every event of
/// core's table: writes that do not allocate refill nothing (Arm's L1D_CACHE_REFILL excludes
/// them) and leave L1 through every alias.
fn counts_without_allocation(role: Role, _: u64, event: &str) -> u64 {
    match event {
        "bus_access" | "bus_access_wr" | "mem_access" => 100,
        // Non-cacheable stores do not look up L2 on many cores: an event that does not see
        // them decides nothing.
        "l2d_cache" if role == Role::NonCacheable => 0,
        "l2d_cache" => 100,
        _ => 0,
    }
}

/// A healthy allocating board's counts: re-written lines stay in L1 (no refill, nothing out)
/// where they fit, refill where they do not; non-cacheable stores go out.
fn counts_with_allocation(role: Role, size: u64, event: &str) -> u64 {
    let fits = size <= 32 * KIB;
    match (event, role) {
        ("l1d_cache_refill", Role::WriteBack) if !fits => 100,
        ("bus_access" | "bus_access_wr", Role::NonCacheable) => 100,
        ("bus_access" | "bus_access_wr" | "l2d_cache", Role::WriteBack) if !fits => 100,
        ("mem_access", _) => 100,
        _ => 0,
    }
}

/// Event sets a PMU may count, as bit masks over [`EVENT_SETS`]' names.
const EVENT_NAMES: [&str; 6] = [
    "l1d_cache_refill",
    "bus_access",
    "l2d_cache",
    "bus_access_wr",
    "mem_access",
    "l2d_cache_refill",
];

/// Counts of `board` for the write kernels, only the events of mask `SET` (bits over
/// [`EVENT_NAMES`]).
fn counted<const SET: u8, const ALLOCATES: bool>(
    kernel: Kernel,
    t: &MemType,
    size: u64,
    event: &str,
) -> Option<u64> {
    let bit = EVENT_NAMES.iter().position(|&e| e == event)?;
    let counted = SET & (1 << bit) != 0 && matches!(kernel, Kernel::WriteStp | Kernel::WriteLine);
    counted.then(|| {
        if ALLOCATES {
            counts_with_allocation(t.role, size, event)
        } else {
            counts_without_allocation(t.role, size, event)
        }
    })
}

/// The event sets tried: none, refills alone (the old escape), the table of cores' set
/// (l1d_cache_refill, mem_access, l2d_cache_refill, bus_access: [`crate::cores::VERDICT_EVENTS`]),
/// l2d_cache alone, the bus split alone, and everything.
const EVENT_SETS: [(&str, super::testing::Pmu, super::testing::Pmu); 6] = [
    ("no PMU", no_pmu, no_pmu),
    (
        "l1d_cache_refill",
        counted::<0b000001, false>,
        counted::<0b000001, true>,
    ),
    (
        "the table of cores' events",
        counted::<0b110011, false>,
        counted::<0b110011, true>,
    ),
    (
        "l2d_cache",
        counted::<0b000100, false>,
        counted::<0b000100, true>,
    ),
    (
        "bus_access_wr",
        counted::<0b001000, false>,
        counted::<0b001000, true>,
    ),
    (
        "every event",
        counted::<0b111111, false>,
        counted::<0b111111, true>,
    ),
];

#[test]
fn write_back_writes_that_do_not_allocate_fail_with_any_pmu() {
    // The armv7 report's case with a PMU that counts ≈0 L1D refills per line (no write
    // allocates, so none refills) used to skip the fail and then warn that the core
    // "allocates despite the no-allocate hint": the opposite of the truth.
    let caches = a72_caches();
    assert_eq!(
        crate::cores::VERDICT_EVENTS,
        [0x03, 0x13, 0x17, 0x19],
        "the table of cores' event set changed: update EVENT_SETS"
    );
    for core in [None].into_iter().chain(CORES.iter().map(Some)) {
        for (set, without, with) in EVENT_SETS {
            let who = format!("{} with {set}", core.map_or("no core", |c| c.name));
            let mut s = sweep(32 * MIB, wb_writes_do_not_allocate);
            s.pmu = without;
            let mut i = inputs(&caches, &s);
            i.core = core;
            let v = judge(&i);
            assert_eq!(status(&v, Name::WriteAllocate), Status::Fail, "{who}");
            let text = why(&v, Name::WriteAllocate);
            assert!(
                text.contains("write-back writes do not allocate"),
                "{who}: {text}"
            );
            assert!(!text.contains("allocates despite"), "{who}: {text}");
            // One story: write-through names write-allocate's cause, not the alias.
            let wt = why(&v, Name::WriteThrough);
            assert_eq!(
                status(&v, Name::WriteThrough),
                Status::NotApplicable,
                "{who}: {wt}"
            );
            assert!(
                wt.contains("write-back writes themselves do not allocate"),
                "{who}: {wt}"
            );
            assert!(!wt.contains("MAIR byte"), "{who}: {wt}");
            // The same events on a board whose writes allocate: no write-allocate fail.
            let mut s = sweep(32 * MIB, a72);
            s.pmu = with;
            let mut i = inputs(&caches, &s);
            i.core = core;
            let v = judge(&i);
            assert_eq!(status(&v, Name::WriteAllocate), Status::Pass, "{who}");
            assert_eq!(status(&v, Name::WriteThrough), Status::Pass, "{who}");
        }
    }
}

#[test]
fn the_pmu_confirms_allocation_only_by_comparison() {
    // write-line's write-back lines no faster than non-cacheable ones. Refills alone (≈0 per
    // line) are no evidence: fail, as without a PMU. An outward event that sees NC's stores
    // leave and none of WB's is: no fail, and the sentence names the event.
    let caches = a72_caches();
    let mut s = sweep(32 * MIB, line_does_not_allocate);
    let mut i = inputs(&caches, &s);
    i.core = None;
    assert_eq!(status(&judge(&i), Name::WriteAllocate), Status::Fail);
    s.pmu = |k, t, _, event| {
        (k == Kernel::WriteLine && t.role == Role::WriteBack && event == event::L1D_CACHE_REFILL)
            .then_some(1)
    };
    let mut i = inputs(&caches, &s);
    i.core = None;
    let v = judge(&i);
    assert_eq!(status(&v, Name::WriteAllocate), Status::Fail);
    assert_eq!(
        ev(&v, Name::WriteAllocate, "l1d_cache_refill_per_line"),
        Some(1)
    );
    s.pmu = counted::<0b000010, true>;
    let mut i = inputs(&caches, &s);
    i.core = None;
    let v = judge(&i);
    let text = why(&v, Name::WriteAllocate);
    assert_ne!(status(&v, Name::WriteAllocate), Status::Fail, "{text}");
    assert_eq!(
        ev(&v, Name::WriteAllocate, "wb_bus_access_per_line"),
        Some(0)
    );
    assert_eq!(
        ev(&v, Name::WriteAllocate, "nc_bus_access_per_line"),
        Some(100)
    );
}
