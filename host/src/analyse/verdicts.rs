//! `cargo host verdicts LOG`: core's verdicts judged again from a log's records alone, with
//! today's logic and today's table of cores: the log of an old firmware, or a board's
//! captured last month. Every input comes from a record: `start` (emulated, MIDR), `mmu`
//! (SCTLR_EL1), `cache`, `result` (each point's best value in its unit and its PMU counts per
//! line), `coherence` (the run without maintenance), `maintenance`, `smp`, `smp_bits`, `config`
//! (`cycle_hz`) and `timer`; what a log lacks is named, and the verdicts that needed it say
//! "not measured" as the firmware would.

use mairbench_core::arch::Arch;
use mairbench_core::cache::{CacheLevel, CacheType};
use mairbench_core::cores::armv7::SmpSetup;
use mairbench_core::kernel::{self, Unit};
use mairbench_core::memtype;
use mairbench_core::paging::Granule;
use mairbench_core::results::Results;
use mairbench_core::sweep::Sizes;
use mairbench_core::verdict::{
    self, Clock, Inputs, Maintenance, Scope, Smp, Stale, Status, Verdict, Verdicts,
};
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// One record: its fields.
type Fields = Map<String, Value>;

/// A log's verdicts, judged again.
pub struct Rejudged {
    /// Today's verdicts.
    pub verdicts: Verdicts,
    /// The inputs the log lacks, in words.
    pub missing: Vec<String>,
    /// The log's own `verdict` records: (name, status, why).
    pub logged: Vec<(String, String, String)>,
    /// Each other cluster's sweep, judged again on its own (a big.LITTLE board).
    pub clusters: Vec<ClusterVerdicts>,
    /// The log's architecture (its `start` record's `arch`; AArch64 when it says none), whose
    /// names today's sentences are shown in ([`Rejudged::said`]).
    pub arch: Arch,
}

/// One other cluster's verdicts, judged again from the records that carry its index: the
/// verdicts judged per cluster (`Scope::Core`), with its own caches, sweep and core.
pub struct ClusterVerdicts {
    /// Its index (the `cluster` record's).
    pub index: u64,
    /// Its verdicts, in table order.
    pub verdicts: Vec<Verdict>,
    /// The log's own `verdict` records of the cluster: (name, status, why).
    pub logged: Vec<(String, String, String)>,
}

impl Rejudged {
    /// `text`, a sentence of today's judgement (core words it with AArch64's names on the
    /// host), in the names of the log's architecture: `DCIMVAC`, `read-ldm`, `SCTLR` in an
    /// armv7 log.
    pub fn said(&self, text: &str) -> String {
        self.arch.in_names(text).to_string()
    }

    /// Whether a verdict fails today, the machine's or a cluster's.
    pub fn must_fail(&self) -> bool {
        self.verdicts.must_fail()
            || self
                .clusters
                .iter()
                .any(|c| c.verdicts.iter().any(|v| v.status == Status::Fail))
    }
}

/// A verdict judged otherwise today: its name, the log's status and why (`None`: the log
/// has no such verdict), today's `status: why`.
pub type Difference<'a> = (&'static str, Option<(&'a str, &'a str)>, String);

impl Rejudged {
    /// The verdicts whose status or sentence differs from the log's own, in table order; a
    /// verdict the log lacks differs too.
    pub fn differences(&self) -> Vec<Difference<'_>> {
        self.verdicts
            .iter()
            .filter_map(|v| {
                let name = v.name.id();
                let today = (v.status.name(), self.said(&v.why.to_string()));
                let logged = self
                    .logged
                    .iter()
                    .find(|(n, _, _)| n == name)
                    .map(|(_, s, w)| (s.as_str(), w.as_str()));
                let same = logged.is_some_and(|(s, w)| s == today.0 && w == today.1);
                (!same).then(|| (name, logged, format!("{}: {}", today.0, today.1)))
            })
            .collect()
    }
}

fn str_of<'a>(r: &'a Fields, key: &str) -> Option<&'a str> {
    r.get(key).and_then(Value::as_str)
}

fn bool_of(r: &Fields, key: &str) -> Option<bool> {
    r.get(key).and_then(Value::as_bool)
}

fn u64_of(r: &Fields, key: &str) -> Option<u64> {
    r.get(key).and_then(Value::as_u64)
}

fn hex_of(r: &Fields, key: &str) -> Option<u64> {
    u64::from_str_radix(str_of(r, key)?.strip_prefix("0x")?, 16).ok()
}

/// A two-decimal number as hundredths (`3.91` is 391).
fn centi(v: &Value) -> Option<u64> {
    let x = v.as_f64().filter(|x| x.is_finite() && *x >= 0.0)?;
    Some((x * 100.0).round() as u64)
}

/// The records of the last boot in `bytes` (from its last `start` record; all of them when
/// there is none).
fn last_boot(bytes: &[u8]) -> Vec<Fields> {
    let all: Vec<Fields> = bytes
        .split(|&b| b == b'\n')
        .filter_map(crate::read::log::record)
        .filter_map(Result::ok)
        .collect();
    let from = all
        .iter()
        .rposition(|r| str_of(r, "kind") == Some("start"))
        .unwrap_or(0);
    all.into_iter().skip(from).collect()
}

/// The points of `result` records, as the firmware keeps them for its verdicts.
fn sweep(records: &[Fields]) -> Results {
    let results: Vec<&Fields> = records
        .iter()
        .filter(|r| {
            str_of(r, "kind") == Some("result") && r.get("skipped").is_none_or(Value::is_null)
        })
        .collect();
    let sizes: BTreeSet<u64> = results.iter().filter_map(|r| u64_of(r, "size")).collect();
    let mut out = Results::new();
    out.reset(Sizes::from_ascending(sizes));
    for r in results {
        let point = (|| {
            let spec = kernel::by_name(str_of(r, "kernel")?)?;
            let memtype = memtype::by_any_name(str_of(r, "memtype")?)?;
            let granule = match str_of(r, "granule").unwrap_or("4K") {
                g if g == Granule::Block.name() => Granule::Block,
                _ => Granule::Page,
            };
            let best = match spec.unit {
                Unit::Bandwidth => u64_of(r, spec.unit.best_field())?,
                Unit::NsPerLoad | Unit::NsPerLine => centi(r.get(spec.unit.best_field())?)?,
            };
            let pmu: Vec<(String, u64)> = r
                .get("pmu")
                .and_then(Value::as_object)
                .map(|m| {
                    m.iter()
                        .filter_map(|(k, v)| Some((k.clone(), centi(v)?)))
                        .collect()
                })
                .unwrap_or_default();
            Some((spec.kernel, usize::from(memtype.index), granule, best, pmu))
        })();
        if let (Some((kernel, memtype, granule, best, pmu)), Some(size)) =
            (point, u64_of(r, "size"))
        {
            let counts = pmu.iter().map(|(k, v)| (k.as_str(), *v, 2u8));
            out.put(kernel, memtype, granule, size, best, counts);
        }
    }
    out
}

fn cache_level(r: &Fields) -> Option<CacheLevel> {
    let kind = [
        CacheType::Instruction,
        CacheType::Data,
        CacheType::Separate,
        CacheType::Unified,
    ]
    .into_iter()
    .find(|t| Some(t.name()) == str_of(r, "type"))?;
    Some(CacheLevel {
        level: u8::try_from(u64_of(r, "level")?).ok()?,
        kind,
        line: u32::try_from(u64_of(r, "line")?).ok()?,
        ways: u32::try_from(u64_of(r, "ways")?).ok()?,
        sets: u32::try_from(u64_of(r, "sets")?).ok()?,
    })
}

/// Judges the log `bytes` again. Never fails: a log without the records an input needs
/// names it in [`Rejudged::missing`].
pub fn rejudge(bytes: &[u8]) -> Rejudged {
    // Another cluster's sweep (its records carry `cluster`) is judged on its own.
    let (records, others): (Vec<Fields>, Vec<Fields>) = last_boot(bytes)
        .into_iter()
        .partition(|r| r.get("cluster").is_none() || str_of(r, "kind") == Some("cluster"));
    let first = |kind: &str| records.iter().find(|r| str_of(r, "kind") == Some(kind));
    let mut missing: Vec<String> = Vec::new();
    let start = first("start");
    if start.is_none() {
        missing
            .push("no start record: the run is taken as not emulated, the core as unknown".into());
    }
    let emulated = start
        .and_then(|s| s.get("emulated"))
        .and_then(Value::as_bool);
    let midr = start.and_then(|s| hex_of(s, "midr"));
    let sctlr = first("mmu").and_then(|m| hex_of(m, "sctlr"));
    if sctlr.is_none() {
        missing.push("no mmu record: SCTLR_EL1 unknown, C and I taken as set".into());
    }
    let caches: Vec<CacheLevel> = records
        .iter()
        .filter(|r| str_of(r, "kind") == Some("cache"))
        .filter_map(cache_level)
        .collect();
    if caches.is_empty() {
        missing.push("no cache record: no cache sizes, so the L1 set is the smallest size".into());
    }
    let stale = stale_of(&records, &mut missing);
    let maintenance = maintenance_of(first("maintenance"), &mut missing);
    let smp = smp_of(&records, &mut missing);
    let smp_bits = first("smp_bits").and_then(|r| smp_bits_of(r, midr));
    let clock = clock_of(&records, start, &mut missing);
    let results = sweep(&records);
    let inputs = Inputs {
        emulated: emulated.unwrap_or(false),
        sctlr_c: sctlr.is_none_or(|s| s & (1 << 2) != 0),
        sctlr_i: sctlr.is_none_or(|s| s & (1 << 12) != 0),
        caches: &caches,
        sweep: &results,
        stale,
        maintenance,
        smp,
        smp_bits,
        clock,
        core: midr.and_then(mairbench_core::cores::by_midr),
        revision: midr.map(mairbench_core::cores::Revision::of),
        hypervisor: start.and_then(hypervisor_of),
    };
    let clusters = records
        .iter()
        .filter(|r| str_of(r, "kind") == Some("cluster") && str_of(r, "role") == Some("swept"))
        .filter_map(|c| {
            let index = u64_of(c, "cluster")?;
            let own: Vec<Fields> = others
                .iter()
                .filter(|r| u64_of(r, "cluster") == Some(index))
                .cloned()
                .collect();
            Some(cluster_verdicts(index, hex_of(c, "midr"), &own, &inputs))
        })
        .collect();
    let arch = start
        .and_then(|s| str_of(s, "arch"))
        .and_then(Arch::by_name)
        .unwrap_or(Arch::Aarch64);
    Rejudged {
        verdicts: verdict::judge(&inputs),
        missing,
        logged: logged(&records),
        clusters,
        arch,
    }
}

/// Cluster `index`'s verdicts from its own records `own` (caches, results, verdicts) and
/// core (`midr`); what the machine shares (emulation, SCTLR_EL1, hypervisor) from `machine`.
fn cluster_verdicts(
    index: u64,
    midr: Option<u64>,
    own: &[Fields],
    machine: &Inputs<'_, Results>,
) -> ClusterVerdicts {
    let caches: Vec<CacheLevel> = own
        .iter()
        .filter(|r| str_of(r, "kind") == Some("cache"))
        .filter_map(cache_level)
        .collect();
    let results = sweep(own);
    let inputs = Inputs {
        caches: &caches,
        sweep: &results,
        stale: None,
        maintenance: None,
        smp: None,
        smp_bits: None,
        clock: None,
        core: midr.and_then(mairbench_core::cores::by_midr),
        revision: midr.map(mairbench_core::cores::Revision::of),
        ..*machine
    };
    ClusterVerdicts {
        index,
        verdicts: verdict::judge(&inputs)
            .iter()
            .filter(|v| v.name.scope() == Scope::Core)
            .cloned()
            .collect(),
        logged: logged(own),
    }
}

/// The stale words of the `coherence` record without maintenance (caches-on's input).
fn stale_of(records: &[Fields], missing: &mut Vec<String>) -> Option<Stale> {
    let stale = records
        .iter()
        .find(|r| {
            str_of(r, "kind") == Some("coherence")
                && r.get("maintenance").and_then(Value::as_bool) == Some(false)
        })
        .and_then(|r| {
            Some(Stale {
                stale_words: u64_of(r, "mismatches")?,
                words: u64_of(r, "bytes")? / 8,
            })
        });
    if stale.is_none() {
        missing.push(
            "no coherence record without maintenance: caches-on has no stale words to judge by"
                .into(),
        );
    }
    stale
}

/// The `maintenance` record's findings.
fn maintenance_of(record: Option<&Fields>, missing: &mut Vec<String>) -> Option<Maintenance> {
    let maintenance = record.and_then(|r| {
        Some(Maintenance {
            cleaned_visible: bool_of(r, "cleaned_visible")?,
            stale_before_invalidate: bool_of(r, "stale_before_invalidate"),
            invalidate_dropped: bool_of(r, "invalidate_dropped"),
        })
    });
    if maintenance.is_none() {
        missing.push(
            "no maintenance record (firmware before it wrote one): maintenance is not judged"
                .into(),
        );
    }
    maintenance
}

/// The `smp` record's findings; a log whose secondary CPUs said hello without one is named.
fn smp_of(records: &[Fields], missing: &mut Vec<String>) -> Option<Smp> {
    let smp = records
        .iter()
        .find(|r| str_of(r, "kind") == Some("smp"))
        .and_then(|r| {
            let first_differing = hex_of(r, "first_differing_mpidr").zip(
                str_of(r, "first_differing_register").and_then(|n| {
                    ["SCTLR_EL1", "MAIR_EL1", "TCR_EL1", "TTBR0_EL1"]
                        .into_iter()
                        .find(|&x| x == n)
                }),
            );
            Some(Smp {
                cpus: u32::try_from(u64_of(r, "cpus")?).ok()?,
                started: u32::try_from(u64_of(r, "started")?).ok()?,
                differing: u32::try_from(u64_of(r, "differing")?).ok()?,
                first_differing,
                shared_line_ok: bool_of(r, "shared_line_ok")?,
            })
        });
    if smp.is_none()
        && records
            .iter()
            .any(|r| str_of(r, "kind") == Some("hello") && u64_of(r, "cpu") != Some(0))
    {
        missing.push("no smp record (firmware before it wrote one), though secondary CPUs said hello: smp-config is not judged".into());
    }
    smp
}

/// The `smp_bits` record's ACTLR at entry and after the image's write, judged again on the
/// core the `start` record's MIDR names (a 32-bit log's).
fn smp_bits_of(record: &Fields, midr: Option<u64>) -> Option<SmpSetup> {
    let word = |key| hex_of(record, key).and_then(|v| u32::try_from(v).ok());
    SmpSetup::of(u32::try_from(midr?).ok()?, word("entry")?, word("actlr")?)
}

/// The clock verdict's input: the `config` record's cycle rate (`cycle_hz`, else `cycle_mhz`
/// rounded) against the timer's frequency (the `timer` record's, else the start record's).
fn clock_of(
    records: &[Fields],
    start: Option<&Fields>,
    missing: &mut Vec<String>,
) -> Option<Clock> {
    let first = |kind: &str| records.iter().find(|r| str_of(r, "kind") == Some(kind));
    let timer_hz = first("timer")
        .and_then(|t| u64_of(t, "freq_hz"))
        .or_else(|| start.and_then(|s| u64_of(s, "cntfrq_hz")));
    let config = first("config");
    let exact = config.and_then(|c| u64_of(c, "cycle_hz"));
    let rounded = config
        .and_then(|c| c.get("cycle_mhz"))
        .and_then(Value::as_f64)
        .map(|mhz| (mhz * 1e6).round() as u64);
    if exact.is_none() && rounded.is_some() {
        missing.push(
            "config has cycle_mhz only (firmware before cycle_hz): the clock is judged to 0.1 MHz"
                .into(),
        );
    }
    let cycle_hz = exact.or(rounded);
    cycle_hz.zip(timer_hz).map(|(cycles, hz)| Clock {
        cycles,
        ticks: hz,
        timer_hz: hz,
    })
}

/// The hypervisor the start record names.
fn hypervisor_of(start: &Fields) -> Option<mairbench_core::hypervisor::Hypervisor> {
    use mairbench_core::hypervisor::Hypervisor;
    let h = str_of(start, "hypervisor")?;
    [Hypervisor::Kvm, Hypervisor::Xen, Hypervisor::Other]
        .into_iter()
        .find(|x| x.name() == h)
}

/// The log's own `verdict` records: (name, status, why).
fn logged(records: &[Fields]) -> Vec<(String, String, String)> {
    records
        .iter()
        .filter(|r| str_of(r, "kind") == Some("verdict"))
        .filter_map(|r| {
            Some((
                str_of(r, "name")?.to_owned(),
                str_of(r, "status")?.to_owned(),
                str_of(r, "why")?.to_owned(),
            ))
        })
        .collect()
}

/// A verdict's record as the firmware writes it (without its kind), with the log's own
/// status and why from `logged`.
fn record_with_log(r: &Rejudged, v: &Verdict, logged: &[(String, String, String)]) -> Value {
    let mut line = String::new();
    let _ = v.record(&mut line);
    let mut rec = crate::read::log::record(line.as_bytes())
        .and_then(Result::ok)
        .unwrap_or_default();
    rec.remove("kind");
    // Its sentences in the log's names.
    for key in ["why", "core_note"] {
        if let Some(Value::String(text)) = rec.get_mut(key) {
            *text = r.said(text);
        }
    }
    let logged = logged.iter().find(|(n, _, _)| n == v.name.id());
    rec.insert(
        "log_status".into(),
        logged.map_or(Value::Null, |(_, s, _)| s.clone().into()),
    );
    rec.insert(
        "log_why".into(),
        logged.map_or(Value::Null, |(_, _, w)| w.clone().into()),
    );
    Value::Object(rec)
}

/// `verdicts.json`: today's verdict records (as the firmware writes them), each with the
/// log's own status and why, and the inputs the log lacked.
pub fn json(r: &Rejudged) -> Value {
    let verdicts: Vec<Value> = r
        .verdicts
        .iter()
        .map(|v| record_with_log(r, v, &r.logged))
        .collect();
    let clusters: Vec<Value> = r
        .clusters
        .iter()
        .map(|c| {
            let verdicts: Vec<Value> = c
                .verdicts
                .iter()
                .map(|v| record_with_log(r, v, &c.logged))
                .collect();
            serde_json::json!({ "cluster": c.index, "verdicts": verdicts })
        })
        .collect();
    let missing: Vec<String> = r.missing.iter().map(|m| r.said(m)).collect();
    serde_json::json!({ "verdicts": verdicts, "missing": missing, "clusters": clusters })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A big.LITTLE board's log, shaped as the firmware writes it: the boot CPU's cluster
    /// with its caches on (write-back reads 18x Non-cacheable's at 16 KiB), the other
    /// cluster's sweep with write-back as slow as Non-cacheable (its caches off).
    const LOG: &str = r#"@mb {"kind":"start","schema":1,"platform":"board","emulated":false,"midr":"0x410fd034"}
@mb {"kind":"mmu","sctlr":"0x30d0199d"}
@mb {"kind":"cache","level":1,"type":"separate","size":32768,"line":64,"ways":4,"sets":128}
@mb {"kind":"result","memtype":"normal-wb","kernel":"read-ldp","granule":"4K","size":16384,"reps":3,"cv_pct":1.0,"best_mbps":9000,"median_mbps":8900}
@mb {"kind":"result","memtype":"normal-nc","kernel":"read-ldp","granule":"4K","size":16384,"reps":3,"cv_pct":1.0,"best_mbps":500,"median_mbps":490}
@mb {"kind":"verdict","name":"caches-on","status":"pass","evidence":{},"why":"on"}
@mb {"kind":"cluster","cluster":0,"group":0,"cpus":4,"representative":"0x0","capacity":485,"compatible":"arm,cortex-a53","midr":"0x410fd034","last_cache":32768,"source":"cpu-map","role":"boot"}
@mb {"kind":"cluster","cluster":1,"group":1,"cpus":2,"representative":"0x100","capacity":1024,"compatible":"arm,cortex-a72","midr":"0x410fd082","last_cache":32768,"source":"cpu-map","role":"swept"}
@mb {"kind":"cache","cluster":1,"level":1,"type":"separate","size":32768,"line":64,"ways":2,"sets":256}
@mb {"kind":"result","cluster":1,"memtype":"normal-wb","kernel":"read-ldp","granule":"4K","size":16384,"reps":3,"cv_pct":1.0,"best_mbps":520,"median_mbps":510}
@mb {"kind":"result","cluster":1,"memtype":"normal-nc","kernel":"read-ldp","granule":"4K","size":16384,"reps":3,"cv_pct":1.0,"best_mbps":500,"median_mbps":490}
@mb {"kind":"end","status":"pass"}
"#;

    #[test]
    fn each_cluster_is_judged_on_its_own_sweep() {
        let r = rejudge(LOG.as_bytes());
        let on_boot = r.verdicts.get(verdict::Name::CachesOn).unwrap();
        assert_eq!(on_boot.status, Status::Pass, "{on_boot}");
        assert_eq!(r.clusters.len(), 1);
        let c = &r.clusters[0];
        assert_eq!(c.index, 1);
        // Only the verdicts judged per cluster, none of the machine's.
        assert!(c.verdicts.iter().all(|v| v.name.scope() == Scope::Core));
        assert!(c.verdicts.iter().any(|v| v.name == verdict::Name::CachesOn));
        let caches_on = c
            .verdicts
            .iter()
            .find(|v| v.name == verdict::Name::CachesOn)
            .unwrap();
        assert_eq!(caches_on.status, Status::Fail, "{caches_on}");
        assert!(r.must_fail());
        let json = json(&r);
        assert_eq!(json["clusters"][0]["cluster"], 1);
        assert_eq!(json["clusters"][0]["verdicts"][0]["status"], "fail");
    }

    #[test]
    fn an_armv7_sweep_is_judged_by_row() {
        use mairbench_core::kernel::Kernel;
        use mairbench_core::memtype::{self, Role};
        use mairbench_core::verdict::Sweep as _;
        let records = last_boot(crate::read::armv7_sample::LOG.as_bytes());
        let results = sweep(&records);
        // write-stm on normal-wb-nowa is write-stp's point on the hinted write-back row,
        // which write-allocate judges.
        let hinted = memtype::position(Role::WriteBackHinted).unwrap();
        let best = |k, row| results.best(k, row, Granule::Page, 16384);
        assert_eq!(best(Kernel::WriteStp, hinted), Some(6593));
        assert_eq!(best(Kernel::WriteLine, hinted), Some(64795));
        assert_eq!(best(Kernel::ReadLdp, memtype::NORMAL_WB), Some(6481));
        assert_eq!(best(Kernel::MaintCivac, memtype::DEVICE_NGNRE), Some(160));
    }
}
