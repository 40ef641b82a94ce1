//! `cargo host verdicts`: a log's verdicts judged again from its records agree with the
//! firmware's own, on a live QEMU run and on synthetic logs of boards shaped like a
//! Cortex-A72 (healthy, caches off, the public reports' figures) and a Cortex-A53 whose
//! full-line writes stream past L1, where the verdicts really pass, warn and fail.

use crate::common;

use crate::matrix;
use mairbench_core::cache::{CacheLevel, CacheType};
use mairbench_core::kernel::{Kernel, Unit, KERNELS};
use mairbench_core::memtype::{self, Role, MEMTYPES};
use mairbench_core::paging::Granule;
use mairbench_core::results::Results;
use mairbench_core::sweep::Sizes;
use mairbench_core::verdict::{self, Clock, Inputs, Maintenance, Smp, Stale, Verdicts};
use mairbench_host::analyse::verdicts::rejudge;
use std::fmt::Write as _;

const KIB: u64 = 1 << 10;
const MIB: u64 = 1 << 20;

type Curve = fn(Kernel, Role, u64) -> Option<u64>;

fn tiers(size: u64, l1: u64, l2: u64, dram: u64) -> u64 {
    match size {
        s if s <= 32 * KIB => l1,
        s if s <= MIB => l2,
        _ => dram,
    }
}

/// An A72-like board (MB/s; latency in hundredths of a ns).
fn a72(k: Kernel, r: Role, size: u64) -> Option<u64> {
    use Role::*;
    Some(match (k, r) {
        (Kernel::ReadLdp, WriteBack | WriteThrough) => tiers(size, 20_000, 10_000, 4_000),
        (Kernel::ReadLdp, WriteBackHinted) => 1_100,
        (Kernel::ReadLdp, NonCacheable) => 1_000,
        (Kernel::ReadLdp, Device) => 400,
        (Kernel::WriteStp, WriteBack) => tiers(size, 16_000, 8_000, 3_000),
        (Kernel::WriteStp, WriteBackHinted | WriteThrough) => 2_500,
        (Kernel::WriteStp, NonCacheable) => 2_000,
        (Kernel::WriteStp, Device) => 1_500,
        (Kernel::Latency, WriteBack) => tiers(size, 150, 1_000, 12_000),
        (Kernel::Latency, _) => 15_000,
        _ => return None,
    })
}

/// The caches off: every Normal type like the non-cacheable one.
fn caches_off(k: Kernel, r: Role, size: u64) -> Option<u64> {
    match r {
        Role::Device => a72(k, r, size),
        _ => a72(k, Role::NonCacheable, size),
    }
}

/// The public reports: Device reads 10x slower than heap memory in DRAM; no-allocate
/// writes 7 MB/s against 120 MB/s.
fn public_reports(k: Kernel, r: Role, size: u64) -> Option<u64> {
    use Role::*;
    Some(match (k, r) {
        (Kernel::ReadLdp, WriteBack | WriteThrough) => tiers(size, 2_000, 800, 160),
        (Kernel::ReadLdp, WriteBackHinted) => 28,
        (Kernel::ReadLdp, NonCacheable) => 30,
        (Kernel::ReadLdp, Device) => 16,
        (Kernel::WriteStp, WriteBack) => tiers(size, 1_500, 600, 120),
        (Kernel::WriteStp, WriteBackHinted) => 7,
        (Kernel::WriteStp, WriteThrough) => 9,
        (Kernel::WriteStp, _) => 110,
        _ => return None,
    })
}

/// A53-like: full-line writes stream past L1 (read allocate mode).
fn a53_streaming(k: Kernel, r: Role, size: u64) -> Option<u64> {
    match (k, r) {
        (Kernel::WriteStp, Role::WriteBack) => Some(2_400),
        (Kernel::WriteStp, Role::WriteBackHinted) => Some(2_300),
        (Kernel::WriteStp, Role::WriteThrough | Role::NonCacheable) => Some(2_000),
        _ => a72(k, r, size),
    }
}

struct Board {
    curve: Curve,
    midr: u64,
    sctlr: u64,
    stale_words: u64,
}

/// The board's log, as the firmware writes it, and the verdicts judged from the same inputs
/// directly.
fn board_log(b: &Board) -> (String, Verdicts) {
    let caches = [
        CacheLevel {
            level: 1,
            kind: CacheType::Separate,
            line: 64,
            ways: 4,
            sets: 128,
        },
        CacheLevel {
            level: 2,
            kind: CacheType::Unified,
            line: 64,
            ways: 16,
            sets: 1024,
        },
    ];
    let sizes: Vec<u64> = (12..=25).map(|s| 1u64 << s).collect();
    let mut results = Results::new();
    results.reset(Sizes::from_ascending(sizes.iter().copied()));
    let mut log = String::new();
    let w = &mut log;
    writeln!(w, "@mb {{\"kind\":\"start\",\"schema\":1,\"midr\":\"{:#x}\",\"emulated\":false,\"cntfrq_hz\":54000000}}", b.midr).unwrap();
    writeln!(w, "@mb {{\"kind\":\"mmu\",\"sctlr\":\"{:#x}\"}}", b.sctlr).unwrap();
    for c in &caches {
        writeln!(
            w,
            "@mb {{\"kind\":\"cache\",\"level\":{},\"type\":\"{}\",\"size\":{},\"line\":{},\"ways\":{},\"sets\":{}}}",
            c.level,
            c.kind.name(),
            c.size(),
            c.line,
            c.ways,
            c.sets
        )
        .unwrap();
    }
    writeln!(
        w,
        "@mb {{\"kind\":\"config\",\"cycle_mhz\":1500.0,\"cycle_hz\":1500000000}}"
    )
    .unwrap();
    writeln!(w, "@mb {{\"kind\":\"timer\",\"freq_hz\":54000000}}").unwrap();
    let stale = Stale {
        stale_words: b.stale_words,
        words: 8192,
    };
    writeln!(w, "@mb {{\"kind\":\"coherence\",\"writer\":\"normal-wb\",\"reader\":\"normal-nc\",\"bytes\":65536,\"maintenance\":false,\"mismatches\":{},\"informational\":true}}", stale.stale_words).unwrap();
    let maintenance = Maintenance {
        cleaned_visible: true,
        stale_before_invalidate: Some(true),
        invalidate_dropped: Some(true),
    };
    maintenance.record(4096, w).unwrap();
    let smp = Smp {
        cpus: 4,
        started: 4,
        differing: 0,
        first_differing: None,
        shared_line_ok: true,
    };
    smp.record(w).unwrap();
    for spec in KERNELS.iter().filter(|k| {
        matches!(
            k.kernel,
            Kernel::ReadLdp | Kernel::WriteStp | Kernel::Latency
        )
    }) {
        for t in MEMTYPES.iter() {
            for &size in &sizes {
                let granule = if spec.kernel == Kernel::Latency {
                    Granule::Block
                } else {
                    Granule::Page
                };
                let Some(v) = (b.curve)(spec.kernel, t.role, size) else {
                    continue;
                };
                results.put(spec.kernel, usize::from(t.index), granule, size, v, []);
                let value = match spec.unit {
                    Unit::Bandwidth => v.to_string(),
                    _ => format!("{}.{:02}", v / 100, v % 100),
                };
                writeln!(
                    w,
                    "@mb {{\"kind\":\"result\",\"memtype\":\"{}\",\"kernel\":\"{}\",\"granule\":\"{}\",\"size\":{size},\"{}\":{value},\"pmu\":null}}",
                    t.name,
                    spec.name,
                    granule.name(),
                    spec.unit.best_field()
                )
                .unwrap();
            }
        }
    }
    let inputs = Inputs {
        emulated: false,
        sctlr_c: b.sctlr & (1 << 2) != 0,
        sctlr_i: b.sctlr & (1 << 12) != 0,
        caches: &caches,
        sweep: &results,
        stale: Some(stale),
        maintenance: Some(maintenance),
        smp: Some(smp),
        smp_bits: None,
        clock: Some(Clock {
            cycles: 1_500_000_000,
            ticks: 54_000_000,
            timer_hz: 54_000_000,
        }),
        core: mairbench_core::cores::by_midr(b.midr),
        revision: Some(mairbench_core::cores::Revision::of(b.midr)),
        hypervisor: None,
    };
    let verdicts = verdict::judge(&inputs);
    for v in verdicts.iter() {
        v.record(w).unwrap();
    }
    (log, verdicts)
}

fn statuses(v: &Verdicts) -> Vec<(&'static str, &'static str)> {
    v.iter().map(|v| (v.name.id(), v.status.name())).collect()
}

#[test]
fn synthetic_boards_are_judged_again_as_they_were() {
    const A72: u64 = 0x410f_d083;
    const A53: u64 = 0x410f_d034;
    const ON: u64 = 0x30d0_1805;
    let boards = [
        ("a72", a72 as Curve, A72, ON, 8192, "pass"),
        ("a72 caches off", caches_off, A72, ON, 0, "fail"),
        (
            "a72 with SCTLR.C clear",
            a72,
            A72,
            ON & !(1 << 2),
            8192,
            "fail",
        ),
        ("public reports", public_reports, A72, ON, 8192, "pass"),
        ("a53 streaming", a53_streaming, A53, ON, 8192, "warn"),
        (
            "a53 streaming, core unknown",
            a53_streaming,
            0x410f_d990,
            ON,
            8192,
            "fail",
        ),
    ];
    for (name, curve, midr, sctlr, stale_words, worst) in boards {
        let (log, direct) = board_log(&Board {
            curve,
            midr,
            sctlr,
            stale_words,
        });
        let again = rejudge(log.as_bytes());
        assert_eq!(again.missing, Vec::<String>::new(), "{name}");
        assert_eq!(again.verdicts, direct, "{name}");
        assert!(
            again.differences().is_empty(),
            "{name}: {:?}",
            again.differences()
        );
        assert_eq!(
            again.verdicts.worst().name(),
            worst,
            "{name}: {:?}",
            statuses(&direct)
        );
    }
}

#[test]
fn a_changed_verdict_is_named() {
    // The log says pass where today's logic fails: the difference is named with both.
    let (log, _) = board_log(&Board {
        curve: caches_off,
        midr: 0x410f_d083,
        sctlr: 0x30d0_1805,
        stale_words: 0,
    });
    let edited = log.replace(
        "\"name\":\"caches-on\",\"status\":\"fail\"",
        "\"name\":\"caches-on\",\"status\":\"pass\"",
    );
    assert_ne!(edited, log);
    let again = rejudge(edited.as_bytes());
    let d = again.differences();
    assert_eq!(d.len(), 1, "{d:?}");
    assert_eq!(d[0].0, "caches-on");
    assert_eq!(d[0].1.map(|(s, _)| s), Some("pass"));
    assert!(d[0].2.starts_with("fail: "), "{d:?}");
    // A log that lacks inputs says which.
    let bare = rejudge(b"@mb {\"kind\":\"start\",\"schema\":1}\n");
    assert!(
        bare.missing.iter().any(|m| m.contains("mmu")),
        "{:?}",
        bare.missing
    );
    assert!(bare.missing.iter().any(|m| m.contains("maintenance")));
    // Garbage and truncated records: never a panic.
    let _ = rejudge(b"@mb {\"kind\":\"result\",\"size\":\"x\"}\n@mb {\"kind\":\"cach");
    let _ = rejudge(&log.as_bytes()[..log.len() / 2]);
    let _ = memtype::position(Role::WriteBack);
}

#[test]
fn a_live_run_is_judged_again_as_it_was() {
    for (smp, row) in [("1", "kernel_a72_el1"), ("2", "two_cpus_quick")] {
        let run = matrix::run(row);
        run.assert_pass();
        let again = rejudge(run.console.as_bytes());
        assert_eq!(again.missing, Vec::<String>::new(), "SMP {smp}");
        assert!(
            again.differences().is_empty(),
            "SMP {smp}: {:?}",
            again.differences()
        );
        assert_eq!(again.logged.len(), verdict::VERDICTS.len());
    }
}

#[test]
fn the_verdicts_command() {
    use common::tool::{self, data};
    // An old firmware's QEMU log: the inputs it lacks are named, the differences printed, and
    // verdicts.json holds today's records with the log's status beside them.
    let log = data("qemu-quick.log");
    let done = tool::run("rejudge", &["verdicts".as_ref(), log.as_os_str()], "quick");
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(done.stdout.contains("judged again from its records"));
    assert!(done
        .stdout
        .contains("inputs the log lacks:\n  - no maintenance record"));
    assert!(done
        .stdout
        .contains("where today's judgement differs from the log's verdict records:"));
    let json = done.json("verdicts.json");
    let v = json["verdicts"].as_array().unwrap();
    assert_eq!(v.len(), verdict::VERDICTS.len());
    assert_eq!(v[4]["name"], "maintenance");
    assert_eq!(v[4]["status"], "n/a");
    assert_eq!(v[4]["log_status"], "pass");
    assert!(!json["missing"].as_array().unwrap().is_empty());
    // A synthetic board that fails today: exit status 1, naming the verdicts.
    let (text, _) = board_log(&Board {
        curve: caches_off,
        midr: 0x410f_d083,
        sctlr: 0x30d0_1805,
        stale_words: 0,
    });
    let dir = tool::scratch("rejudge", "off-input");
    let file = dir.join("off.log");
    std::fs::write(&file, text).unwrap();
    let done = tool::run("rejudge", &["verdicts".as_ref(), file.as_os_str()], "off");
    assert_eq!(done.code, Some(1), "{}", done.stdout);
    assert!(
        done.stderr.contains("failing today: caches-on"),
        "{}",
        done.stderr
    );
    assert!(done
        .stdout
        .contains("today's judgement agrees with the log's verdict records"));
    // Not a log: exit status 2.
    let junk = dir.join("junk.txt");
    std::fs::write(&junk, "hello\n").unwrap();
    let done = tool::run("rejudge", &["verdicts".as_ref(), junk.as_os_str()], "junk");
    assert_eq!(done.code, Some(2), "{}", done.stderr);
    assert!(done.stderr.contains("holds no mairbench records"));
}
