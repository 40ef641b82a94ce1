//! A whole log folded into a [`Parsed`]: each record read, checked for what the schema does
//! not know, and taken into the run by its kind.

use super::line::{clean, last_end, record, End};
use super::parsed::{Evidence, Kept, Parsed, Problem};
use super::schema::{event_index, unknowns};
use crate::read::model::{
    self, CacheLevel, CoreToCore, LoadedLatency, Measurement, Run, Scaling, Skipped, Unit, PAGES,
};
use mairbench_core::kernel;
use mairbench_core::pmu;
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// One record: its fields.
type Fields = Map<String, Value>;

/// Parses a console log. Never fails: what cannot be used becomes a [`Problem`], and so
/// does the first record of each kind the schema does not know and the first occurrence of
/// each field a known kind does not have.
///
/// ```
/// let log = b"U-Boot\r\n\x1b[0mnoise @mb {\"kind\":\"start\",\"schema\":1}\r\n@mb {\"kind\":\"en";
/// let parsed = mairbench_host::read::log::parse(log);
/// assert_eq!(parsed.start_line, Some(2));
/// assert_eq!(parsed.problems[0].line, 3);
/// ```
pub fn parse(bytes: &[u8]) -> Parsed {
    let mut p = Parsed::default();
    let mut warned = BTreeSet::new();
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = i + 1;
        match record(raw) {
            None => {}
            Some(Err(what)) => p.problems.push(Problem::new(line, what)),
            Some(Ok(fields)) => {
                for (key, what) in unknowns(&fields) {
                    if warned.insert(key) {
                        p.problems.push(Problem::unknown(line, what));
                    }
                }
                take(&mut p, line, &fields);
                let kind = text(&fields, "kind").unwrap_or_default();
                p.last_record = Some((line, kind));
            }
        }
        let words = clean(&String::from_utf8_lossy(raw));
        if !words.trim().is_empty() {
            p.last_text = Some((line, words.trim().to_owned()));
        }
    }
    // A final line feed ends the last line; it does not start another.
    p.lines = bytes.split(|&b| b == b'\n').count()
        - usize::from(bytes.last().is_none_or(|&b| b == b'\n'));
    // Whether the run passed has one answer, the runner's judge's: an end record cut short
    // after a passing one fails the run here too.
    if p.run.status.as_deref() == Some("pass") && last_end(bytes) == End::Fail {
        p.run.status = Some("fail".into());
    }
    p
}

fn text(fields: &Map<String, Value>, key: &str) -> Option<String> {
    fields.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// The strings of an array field (other items skipped); empty when absent or not an array.
fn strings(fields: &Map<String, Value>, key: &str) -> Vec<String> {
    fields
        .get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn number(fields: &Map<String, Value>, key: &str) -> Option<f64> {
    fields.get(key).and_then(Value::as_f64)
}

/// A field that is a whole number (`None` when absent, negative, fractional or not a number).
fn whole(fields: &Map<String, Value>, key: &str) -> Option<u64> {
    fields.get(key).and_then(Value::as_u64)
}

/// Folds one record into the parse: a record of another cluster's sweep into that cluster's
/// own run, the others into the run.
fn take(p: &mut Parsed, line: usize, f: &Fields) {
    let kind = f.get("kind").and_then(Value::as_str).unwrap_or_default();
    if kind == "cluster" {
        match cluster(f, &p.run) {
            Some(c) => p.run.clusters.push(c),
            None => p.problems.push(Problem::new(
                line,
                "a cluster record without cluster, cpus, representative or role",
            )),
        }
        return;
    }
    if let Some(index) = f.get("cluster") {
        let Some(c) = index
            .as_u64()
            .and_then(|i| p.run.clusters.iter_mut().find(|c| c.index == i))
        else {
            p.problems.push(Problem::new(
                line,
                format!("a {kind} record of cluster {index}, which no cluster record names"),
            ));
            return;
        };
        let mut own = Parsed {
            run: std::mem::take(&mut *c.sweep),
            ..Parsed::default()
        };
        take_run(&mut own, line, f);
        *c.sweep = own.run;
        p.problems.extend(own.problems);
        p.evidence.integrity.extend(own.evidence.integrity);
        return;
    }
    take_run(p, line, f);
}

/// A `cluster` record; its sweep's run starts with what `run` says of the machine (the
/// cluster's own MIDR aside).
fn cluster(f: &Fields, run: &Run) -> Option<model::Cluster> {
    let midr = text(f, "midr");
    let sweep = Run {
        platform: run.platform.clone(),
        emulated: run.emulated,
        emulated_by: run.emulated_by.clone(),
        accel: run.accel.clone(),
        midr: midr.clone().unwrap_or_default(),
        version: run.version.clone(),
        timer_hz: run.timer_hz,
        ..Run::default()
    };
    Some(model::Cluster {
        index: whole(f, "cluster")?,
        cpus: whole(f, "cpus")?,
        representative: text(f, "representative")?,
        compatible: text(f, "compatible"),
        capacity: whole(f, "capacity"),
        midr,
        last_cache: whole(f, "last_cache"),
        role: text(f, "role")?,
        sweep: Box::new(sweep),
    })
}

/// Folds one record of the run (or of one cluster's sweep) into `p`: what its kind adds to
/// the run, then, when it explains a failure, the record itself ([`keep_evidence`]).
fn take_run(p: &mut Parsed, line: usize, f: &Fields) {
    let problem = |what: &str| Problem::new(line, what);
    match f.get("kind").and_then(Value::as_str).unwrap_or_default() {
        "start" => take_start(p, line, f),
        "end" => take_end(p, line, f),
        "cache" => match (whole(f, "level"), number(f, "size")) {
            (Some(level), Some(size)) => {
                let kind = text(f, "type").unwrap_or_default();
                if kind != "instruction" {
                    p.run.caches.push(CacheLevel {
                        level: u8::try_from(level).unwrap_or(u8::MAX),
                        kind,
                        size: size as u64,
                    });
                }
            }
            _ => p
                .problems
                .push(problem("a cache record without level or size")),
        },
        "result" => take_result(p, line, f),
        "verdict" => match verdict_record(f) {
            Some(v) => {
                p.run.verdicts.retain(|old| old.name != v.name);
                p.run.verdicts.push(v);
            }
            None => p
                .problems
                .push(problem("a verdict record without name, status or why")),
        },
        "scaling" => match scaling(f) {
            Some(s) => p.run.scaling.push(s),
            None => p.problems.push(problem(
                "a scaling record without memtype, kernel, cores or a bandwidth",
            )),
        },
        "loaded_latency" => match loaded_latency(f) {
            Some(l) => p.run.loaded_latency.push(l),
            None => p.problems.push(problem(
                "a loaded_latency record without one of its fields (docs/records.md)",
            )),
        },
        "source" => take_source(p, line, f),
        "core_to_core" => match core_to_core(f) {
            Some(pair) => p.run.core_to_core.push(pair),
            None => p
                .problems
                .push(problem("a core_to_core record without from, to or rounds")),
        },
        "timer" => {
            if let Some(hz) = whole(f, "freq_hz").filter(|&hz| hz > 0) {
                p.run.timer_hz = Some(hz);
            }
        }
        _ => {}
    }
    keep_evidence(&mut p.evidence, line, f);
}

/// A `start` record: the run starts over (an earlier one is left out, and said so).
fn take_start(p: &mut Parsed, line: usize, f: &Fields) {
    if let Some(earlier) = p.start_line {
        p.problems.push(Problem::new(
            line,
            format!("another start record: the run started at line {earlier} is left out"),
        ));
    }
    *p = Parsed {
        run: Run {
            platform: text(f, "platform").unwrap_or_default(),
            emulated: f.get("emulated").and_then(Value::as_bool).unwrap_or(false),
            emulated_by: strings(f, "emulated_by"),
            accel: text(f, "accel"),
            midr: text(f, "midr").unwrap_or_default(),
            version: text(f, "version").unwrap_or_default(),
            arch: text(f, "arch"),
            twin: f.contains_key("kernel"),
            kernel: text(f, "kernel").unwrap_or_default(),
            machine: text(f, "machine").unwrap_or_default(),
            timer_hz: whole(f, "cntfrq_hz"),
            ..Run::default()
        },
        problems: std::mem::take(&mut p.problems),
        start_line: Some(line),
        schema: whole(f, "schema"),
        selftest: text(f, "bootargs")
            .as_deref()
            .and_then(selftest_of)
            .map(|t| (line, t)),
        ..Parsed::default()
    };
}

/// An `end` record: the run's status and what the firmware said failed or warned.
fn take_end(p: &mut Parsed, line: usize, f: &Fields) {
    p.end_line = Some(line);
    p.run.status = Some(text(f, "status").unwrap_or_else(|| "unknown".into()));
    p.reason = text(f, "reason");
    let names = |key: &str, omitted: &str| {
        let omitted = whole(f, omitted).unwrap_or(0);
        (strings(f, key), omitted)
    };
    p.failed_checks = names("failed_checks", "failed_checks_omitted");
    p.warned = names("warned", "warned_omitted");
}

/// A `result` record: a measured point or a skipped one (a twin's names its source).
fn take_result(p: &mut Parsed, line: usize, f: &Fields) {
    match result(f) {
        Ok(entry) => {
            if !f.contains_key("memtype") {
                p.run.twin = true;
            }
            match entry {
                // A point taken again after its kernel's sweep replaces its first take.
                Entry::Measured(m) if f.contains_key("retake_of") => {
                    let same = |o: &Measurement| {
                        (&o.memtype, &o.kernel, &o.granule, o.size)
                            == (&m.memtype, &m.kernel, &m.granule, m.size)
                    };
                    p.run.measurements.retain(|o| !same(o));
                    p.run.measurements.push(m);
                }
                Entry::Measured(m) => p.run.measurements.push(m),
                Entry::Skipped(s) => p.run.skipped.push(s),
            }
        }
        Err(Unread::Bad(what)) => p.problems.push(Problem::new(line, what)),
        Err(Unread::Unknown(what)) => p.problems.push(Problem::unknown(line, what)),
    }
}

/// A `source` record of the twin.
fn take_source(p: &mut Parsed, line: usize, f: &Fields) {
    match text(f, "source") {
        Some(name) => {
            p.run.twin = true;
            p.run.sources.push(model::Source {
                name,
                size: whole(f, "size"),
                error: text(f, "error"),
                errno: whole(f, "errno"),
                detail: text(f, "detail").unwrap_or_default(),
                expected: text(f, "expected"),
                driver: text(f, "driver"),
            });
        }
        None => p
            .problems
            .push(Problem::new(line, "a source record without source")),
    }
}

/// Keeps the records that explain a failure or a warning ([`Evidence`]).
fn keep_evidence(e: &mut Evidence, line: usize, f: &Fields) {
    let kept = || Kept {
        line,
        fields: f.clone(),
    };
    let failed = f.get("ok") == Some(&Value::Bool(false));
    match f.get("kind").and_then(Value::as_str).unwrap_or_default() {
        "exception" => e.exceptions.push(kept()),
        "panic" => e.panics.push(kept()),
        "cpu" => e.cpus.push(kept()),
        "memtype" if failed => e.memtypes.push(kept()),
        "check" if failed => e.checks.push(kept()),
        "result" if f.contains_key("integrity_fail_offset") => e.integrity.push(kept()),
        _ => {}
    }
}

enum Entry {
    Measured(Measurement),
    Skipped(Skipped),
}

/// Why a result record was not used.
enum Unread {
    /// It lacks what it must have.
    Bad(String),
    /// It names a kernel this tool does not know.
    Unknown(String),
}

fn result(f: &Map<String, Value>) -> Result<Entry, Unread> {
    // mairbench-linux's records name their source where the firmware's name a memory type;
    // the source takes the memory type's place in the model.
    let memtype = text(f, "memtype").or_else(|| text(f, "source"));
    let (Some(memtype), Some(kernel)) = (memtype, text(f, "kernel")) else {
        return Err(Unread::Bad(
            "a result record without memtype (or source) or kernel".into(),
        ));
    };
    let size = whole(f, "size");
    let granule = text(f, "granule").unwrap_or_else(|| PAGES.into());
    if let Some(why) = f.get("skipped") {
        return Ok(Entry::Skipped(Skipped {
            memtype,
            kernel,
            granule,
            size,
            why: why.as_str().map_or_else(|| why.to_string(), str::to_owned),
        }));
    }
    let size = size.ok_or_else(|| Unread::Bad("a result record without size".into()))?;
    // The kernel's unit, from core's kernel table, says which fields hold the values.
    let Some(spec) = kernel::by_name(&kernel) else {
        return Err(Unread::Unknown(format!(
            "a result record for unknown kernel '{kernel}' left out (written by a newer firmware?)"
        )));
    };
    let (best, median) = (spec.unit.best_field(), spec.unit.median_field());
    let (Some(best_value), Some(median_value)) = (number(f, best), number(f, median)) else {
        return Err(Unread::Bad(format!(
            "a result record for {kernel} on {memtype} without {best} or {median}"
        )));
    };
    Ok(Entry::Measured(Measurement {
        memtype,
        kernel,
        granule,
        size,
        unit: Unit::from(spec.unit),
        best: best_value,
        median: median_value,
        cv_pct: number(f, "cv_pct").unwrap_or(f64::NAN),
        reps: whole(f, "reps").unwrap_or(0),
        pmu: pmu_counts(f),
        start: text(f, "start"),
        line_state: text(f, "line_state"),
    }))
}

/// A `result`'s `pmu` object: (event, count per 64-byte line) in core's `pmu::EVENTS` order,
/// events it does not know after them in the record's order, values that are not numbers
/// left out; `None` for `null`, absent or not an object.
fn pmu_counts(f: &Map<String, Value>) -> Option<Vec<(String, f64)>> {
    let mut counts: Vec<(String, f64)> = f
        .get("pmu")?
        .as_object()?
        .iter()
        .filter_map(|(k, v)| Some((k.clone(), v.as_f64()?)))
        .collect();
    counts.sort_by_key(|(k, _)| event_index(k).unwrap_or(pmu::EVENTS.len()));
    Some(counts)
}

/// A `loaded_latency` record's point; `None` when one of its fields is missing (the
/// firmware writes them all).
fn loaded_latency(f: &Map<String, Value>) -> Option<LoadedLatency> {
    Some(LoadedLatency {
        memtype: text(f, "memtype")?,
        kernel: text(f, "kernel")?,
        cores: whole(f, "cores")?,
        bytes_per_core: whole(f, "bytes_per_core")?,
        chase_memtype: text(f, "chase_memtype")?,
        chase_granule: text(f, "chase_granule")?,
        chase_bytes: whole(f, "chase_bytes")?,
        loads: whole(f, "loads")?,
        idle_ns: number(f, "idle_ns")?,
        loaded_ns: number(f, "loaded_ns")?,
        ratio: number(f, "ratio")?,
        stream_mbps: whole(f, "stream_mbps")?,
        reps: whole(f, "reps")?,
    })
}

/// A `core_to_core` record's pair; `None` when from, to or rounds is missing.
fn core_to_core(f: &Map<String, Value>) -> Option<CoreToCore> {
    Some(CoreToCore {
        from: text(f, "from")?,
        to: text(f, "to")?,
        from_cluster: whole(f, "from_cluster"),
        to_cluster: whole(f, "to_cluster"),
        rounds: whole(f, "rounds")?,
        ns_per_hop: number(f, "ns_per_hop"),
    })
}

/// A `scaling` record's point; `None` when a field it always has is missing.
fn scaling(f: &Map<String, Value>) -> Option<Scaling> {
    Some(Scaling {
        memtype: text(f, "memtype")?,
        kernel: text(f, "kernel")?,
        cores: whole(f, "cores")?,
        aggregate_mbps: whole(f, "aggregate_mbps")?,
        per_core_min_mbps: whole(f, "per_core_min_mbps")?,
        per_core_max_mbps: whole(f, "per_core_max_mbps")?,
        span_ticks: whole(f, "span_ticks"),
        start_skew_ticks: whole(f, "start_skew_ticks"),
    })
}

/// A `verdict` record; `None` when its name, status or why is missing. Evidence that is not
/// a number is left out.
fn verdict_record(f: &Map<String, Value>) -> Option<model::Verdict> {
    let evidence = f
        .get("evidence")
        .and_then(Value::as_object)
        .map(|o| {
            o.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_f64()?)))
                .collect()
        })
        .unwrap_or_default();
    Some(model::Verdict {
        name: text(f, "name")?,
        status: text(f, "status")?,
        evidence,
        why: text(f, "why")?,
        core_note: text(f, "core_note"),
    })
}

/// The self-test `bootargs` ask for (the last `mairbench.selftest=` wins, as in the
/// firmware), unless it is `none`.
fn selftest_of(bootargs: &str) -> Option<String> {
    let asked = mairbench_core::bootargs::tokens(bootargs)
        .filter_map(|t| t.strip_prefix("mairbench.selftest="))
        .last()?;
    (asked != "none").then(|| asked.trim_matches('"').to_owned())
}

#[cfg(test)]
mod tests {
    use super::super::schema::mismatches;
    use super::*;

    #[test]
    fn an_end_record_cut_short_after_a_passing_one_fails_the_run_as_the_judge_does() {
        let log = b"@mb {\"kind\":\"end\",\"status\":\"pass\"}\n@mb {\"kind\":\"end\",\"st\n";
        assert_eq!(parse(log).run.status.as_deref(), Some("fail"));
        assert_eq!(parse(&log[..36]).run.status.as_deref(), Some("pass"));
    }

    #[test]
    fn a_point_taken_again_replaces_its_first_take() {
        let log = br#"@mb {"kind":"result","memtype":"normal-wb","kernel":"read-ldp","size":4096,"reps":3,"cv_pct":0.3,"best_mbps":9000,"median_mbps":8900}
@mb {"kind":"result","memtype":"normal-wb","kernel":"read-ldp","size":8192,"reps":3,"cv_pct":0.3,"best_mbps":2000,"median_mbps":1900}
@mb {"kind":"result","memtype":"normal-nc","kernel":"read-ldp","size":8192,"reps":3,"cv_pct":0.3,"best_mbps":800,"median_mbps":790}
@mb {"kind":"result","memtype":"normal-wb","kernel":"read-ldp","size":8192,"reps":3,"cv_pct":0.2,"best_mbps":9100,"median_mbps":9000,"retake_of":2000}
"#;
        let m = parse(log).run.measurements;
        let got: Vec<_> = m
            .iter()
            .map(|m| (m.memtype.as_str(), m.size, m.best))
            .collect();
        let nc = ("normal-nc", 8192, 800.0);
        assert_eq!(
            got,
            [("normal-wb", 4096, 9000.0), nc, ("normal-wb", 8192, 9100.0)]
        );
    }

    #[test]
    fn golden_logs_conform_to_the_schema() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
        for name in [
            "qemu-quick.log",
            "qemu-kernels.log",
            "qemu-smp.log",
            "handmade-board.log",
            "handmade-verdicts-a.log",
            "handmade-verdicts-b.log",
            "handmade-pmu.log",
            "truncated.log",
            "qemu10-firmware-4k-64k.log",
            "qemu10-linux-4k-64k.log",
        ] {
            let bytes = std::fs::read(dir.join(name)).unwrap();
            for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
                if let Some(Ok(fields)) = record(raw) {
                    let wrong = mismatches(&fields);
                    assert!(wrong.is_empty(), "{name} line {}: {wrong:?}", i + 1);
                }
            }
            let p = parse(&bytes);
            assert!(
                p.problems.iter().all(|q| !q.unknown),
                "{name}: {:?}",
                p.problems
            );
        }
    }

    #[test]
    fn twin_start_and_source_records() {
        let log = br#"@mb {"kind":"start","schema":1,"platform":"linux,dummy-virt","emulated":true,"midr":"0x410fd083","kernel":"Linux 6.12.95+deb12-arm64","machine":"aarch64"}
@mb {"kind":"source","source":"anon","size":65536,"detail":"mmap MAP_PRIVATE|MAP_ANONYMOUS"}
@mb {"kind":"result","source":"anon","kernel":"read-ldp","size":4096,"reps":3,"cv_pct":0.3,"best_mbps":12878,"median_mbps":12829}
@mb {"kind":"source","source":"dma-heap:*","error":"ENOENT","errno":2,"detail":"open"}
@mb {"kind":"source","size":1}
"#;
        let p = parse(log);
        let r = &p.run;
        assert!(r.twin);
        assert_eq!(
            (r.kernel.as_str(), r.machine.as_str(), r.rows()),
            ("Linux 6.12.95+deb12-arm64", "aarch64", model::SOURCE_ROWS)
        );
        assert_eq!((r.rows().baseline, r.rows().label), ("anon", "source"));
        assert_eq!(r.measurements[0].memtype, "anon");
        assert_eq!(
            r.sources,
            [
                model::Source {
                    name: "anon".into(),
                    size: Some(65536),
                    error: None,
                    errno: None,
                    detail: "mmap MAP_PRIVATE|MAP_ANONYMOUS".into(),
                    ..Default::default()
                },
                model::Source {
                    name: "dma-heap:*".into(),
                    size: None,
                    error: Some("ENOENT".into()),
                    errno: Some(2),
                    detail: "open".into(),
                    ..Default::default()
                }
            ]
        );
        let seen: Vec<_> = p
            .problems
            .iter()
            .map(|q| (q.line, q.what.as_str()))
            .collect();
        assert_eq!(seen, [(5, "a source record without source")]);
        // A start record without kernel, results with memtype: the firmware's.
        let fw = parse(br#"@mb {"kind":"start","schema":1}
@mb {"kind":"result","memtype":"normal-wb","kernel":"read-ldp","size":4096,"reps":3,"cv_pct":0.3,"best_mbps":1,"median_mbps":1}
"#);
        assert!(!fw.run.twin);
        assert_eq!(
            (fw.run.rows().baseline, fw.run.rows().label),
            ("normal-wb", "memory type")
        );
        // Results naming a source make a twin log even without a start record's kernel.
        let twin = parse(br#"@mb {"kind":"start","schema":1}
@mb {"kind":"result","source":"anon","kernel":"read-ldp","size":4096,"reps":3,"cv_pct":0.3,"best_mbps":1,"median_mbps":1}
"#);
        assert!(twin.run.twin);
    }

    #[test]
    fn verdict_records() {
        let log = br#"@mb {"kind":"start","schema":1,"platform":"p","emulated":false}
@mb {"kind":"verdict","name":"clock","status":"warn","evidence":{"core_mhz":24.00,"ticks":5},"why":"slow"}
@mb {"kind":"verdict","name":"uncached","status":"pass","evidence":{},"why":"flat"}
@mb {"kind":"verdict","name":"clock","status":"pass","evidence":{"core_mhz":1800.00,"bad":"x"},"why":"fine"}
@mb {"kind":"verdict","name":"maintenance","status":"pass"}
"#;
        let p = parse(log);
        let seen: Vec<_> = p
            .run
            .verdicts
            .iter()
            .map(|v| (v.name.as_str(), v.status.as_str(), v.why.as_str()))
            .collect();
        // A repeated name keeps the last; one without why is a problem, not a verdict.
        assert_eq!(
            seen,
            [("uncached", "pass", "flat"), ("clock", "pass", "fine")]
        );
        assert_eq!(
            p.run.verdicts[1].evidence,
            [("core_mhz".to_owned(), 1800.0)]
        );
        let problems: Vec<_> = p
            .problems
            .iter()
            .map(|q| (q.line, q.what.as_str()))
            .collect();
        assert_eq!(
            problems,
            [(5, "a verdict record without name, status or why")]
        );
        // The schema: evidence is an object of numbers, every field always present.
        let fields = |json: &str| match serde_json::from_str(json).unwrap() {
            Value::Object(m) => m,
            _ => unreachable!(),
        };
        assert!(mismatches(&fields(
            r#"{"kind":"verdict","name":"clock","status":"n/a","evidence":{},"why":"w"}"#
        ))
        .is_empty());
        assert_eq!(
            mismatches(&fields(
                r#"{"kind":"verdict","name":"clock","status":"n/a","evidence":{"a":"1"}}"#
            )),
            [
                "verdict.evidence: {\"a\":\"1\"} where the schema says object of numbers",
                "verdict: no field 'why', which is always present"
            ]
        );
    }

    #[test]
    fn scaling_records() {
        let log = br#"@mb {"kind":"start","schema":1,"platform":"p","emulated":false}
@mb {"kind":"scaling","memtype":"normal-wb","kernel":"read-ldp","cores":2,"bytes_per_core":262144,"aggregate_mbps":9000,"per_core_min_mbps":4400,"per_core_max_mbps":4600}
@mb {"kind":"scaling","memtype":"normal-wb","kernel":"write-stp","cores":1}
@mb {"kind":"scaling","memtype":"normal-nc","kernel":"read-ldp","cores":2,"bytes_per_core":262144,"aggregate_mbps":8000,"per_core_min_mbps":4400,"per_core_max_mbps":4600,"span_ticks":4096,"start_skew_ticks":96}
"#;
        let p = parse(log);
        assert_eq!(
            p.run.scaling,
            [
                Scaling {
                    memtype: "normal-wb".into(),
                    kernel: "read-ldp".into(),
                    cores: 2,
                    aggregate_mbps: 9000,
                    per_core_min_mbps: 4400,
                    per_core_max_mbps: 4600,
                    span_ticks: None,
                    start_skew_ticks: None,
                },
                Scaling {
                    memtype: "normal-nc".into(),
                    kernel: "read-ldp".into(),
                    cores: 2,
                    aggregate_mbps: 8000,
                    per_core_min_mbps: 4400,
                    per_core_max_mbps: 4600,
                    span_ticks: Some(4096),
                    start_skew_ticks: Some(96),
                }
            ]
        );
        let seen: Vec<_> = p.problems.iter().map(|q| (q.line, q.unknown)).collect();
        assert_eq!(seen, [(3, false)], "{:?}", p.problems);
    }

    #[test]
    fn loaded_latency_records_and_the_timer() {
        let log = br#"@mb {"kind":"start","schema":1,"platform":"p","emulated":false,"cntfrq_hz":24000000}
@mb {"kind":"timer","freq_hz":54000000,"overhead_ticks":2,"pmu_cycles":true,"sample_bytes":262144,"reps":3}
@mb {"kind":"loaded_latency","memtype":"device-ngnre","kernel":"read-ldp","cores":4,"bytes_per_core":262144,"chase_memtype":"normal-wb","chase_granule":"2M","chase_bytes":8388608,"loads":131072,"idle_ns":110.50,"loaded_ns":160.25,"ratio":1.450,"stream_mbps":900,"reps":3}
@mb {"kind":"loaded_latency","memtype":"normal-wb","kernel":"read-ldp","cores":4,"idle_ns":110.50}
"#;
        let p = parse(log);
        // The timer record's frequency wins over the start record's CNTFRQ.
        assert_eq!(p.run.timer_hz, Some(54_000_000));
        assert_eq!(
            p.run.loaded_latency,
            [LoadedLatency {
                memtype: "device-ngnre".into(),
                kernel: "read-ldp".into(),
                cores: 4,
                bytes_per_core: 262144,
                chase_memtype: "normal-wb".into(),
                chase_granule: "2M".into(),
                chase_bytes: 8 << 20,
                loads: 131072,
                idle_ns: 110.5,
                loaded_ns: 160.25,
                ratio: 1.45,
                stream_mbps: 900,
                reps: 3,
            }]
        );
        let seen: Vec<_> = p
            .problems
            .iter()
            .map(|q| (q.line, q.what.as_str(), q.unknown))
            .collect();
        assert_eq!(
            seen,
            [(
                4,
                "a loaded_latency record without one of its fields (docs/records.md)",
                false
            )]
        );
        // Without a timer record, the start record's CNTFRQ.
        let p = parse(br#"@mb {"kind":"start","schema":1,"cntfrq_hz":24000000}"#);
        assert_eq!(p.run.timer_hz, Some(24_000_000));
        assert_eq!(
            parse(b"@mb {\"kind\":\"start\",\"schema\":1}").run.timer_hz,
            None
        );
    }

    #[test]
    fn pmu_start_and_line_state_of_results() {
        let log = br#"@mb {"kind":"start","schema":1,"platform":"p","emulated":false}
@mb {"kind":"result","memtype":"normal-wb","kernel":"read-ldp","size":4096,"reps":3,"cv_pct":1.0,"best_mbps":100,"median_mbps":90,"pmu":{"l2d_cache":0.50,"bus_access":0.25,"l1d_cache_refill":1.00},"start":"invalidated"}
@mb {"kind":"result","memtype":"normal-nc","kernel":"maint-civac","size":4096,"reps":3,"cv_pct":1.0,"ns_per_line":7.5,"median_ns_per_line":8.0,"best_mbps":8533,"pmu":null,"start":"invalidated","line_state":"no-line"}
@mb {"kind":"result","memtype":"normal-wb","kernel":"read-ldp","size":8192,"reps":3,"cv_pct":1.0,"best_mbps":100,"median_mbps":90,"pmu":{"l3d_cache":2.00,"l1d_cache":4.00}}
@mb {"kind":"result","memtype":"normal-wb","kernel":"read-ldp","size":16384,"reps":3,"cv_pct":1.0,"best_mbps":100,"median_mbps":90,"pmu":{"l3d_cache":3.00}}
@mb {"kind":"result","memtype":"normal-wb","kernel":"read-ldp","size":32768,"reps":3,"cv_pct":1.0,"best_mbps":100,"median_mbps":90}
"#;
        let p = parse(log);
        let m = &p.run.measurements;
        let pmu = |i: usize| m[i].pmu.clone();
        let counts = |c: &[(&str, f64)]| Some(c.iter().map(|&(k, v)| (k.to_owned(), v)).collect());
        // In core's event order, whatever the record's.
        assert_eq!(
            pmu(0),
            counts(&[
                ("l1d_cache_refill", 1.0),
                ("bus_access", 0.25),
                ("l2d_cache", 0.5)
            ])
        );
        assert_eq!(m[0].start.as_deref(), Some("invalidated"));
        assert_eq!(m[0].line_state, None);
        assert_eq!(pmu(1), None, "null: nothing counted");
        assert_eq!(m[1].line_state.as_deref(), Some("no-line"));
        // An event core does not name is kept after the known ones, and warned about once.
        assert_eq!(pmu(2), counts(&[("l1d_cache", 4.0), ("l3d_cache", 2.0)]));
        assert_eq!((pmu(4), m[4].start.clone()), (None, None), "an older log");
        let seen: Vec<_> = p
            .problems
            .iter()
            .map(|q| (q.line, q.what.as_str(), q.unknown))
            .collect();
        assert_eq!(
            seen,
            [(
                4,
                "unknown PMU event 'l3d_cache' in a result record's pmu, kept as written \
                 (written by a newer firmware?)",
                true
            )]
        );
        // The schema check names it too; known events and null conform.
        let fields = |raw: &[u8]| record(raw).unwrap().unwrap();
        let lines: Vec<&[u8]> = log.split(|&b| b == b'\n').collect();
        let unknown = "result.pmu: unknown event 'l3d_cache' (not in pmu::EVENTS)".to_owned();
        assert!(mismatches(&fields(lines[3])).contains(&unknown));
        for known in [lines[1], lines[2]] {
            assert!(
                mismatches(&fields(known))
                    .iter()
                    .all(|w| !w.contains("pmu")),
                "{:?}",
                mismatches(&fields(known))
            );
        }
    }
}
