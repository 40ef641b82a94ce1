//! The contents of the report's files: `results.csv`, `results.json`, `scaling.csv`,
//! `loaded_latency.csv` and `pmu.csv`.

use super::notes::{EMULATED_CAVEAT, KVM_NOTE};
use crate::read::model::{self, LoadedLatency, Measurement, Run};
use crate::read::text::csv_row;
use serde_json::json;

/// `results.csv`: one row per measurement, in log order; `start` and `line_state` as the
/// record has them (empty when it has none); `emulated` on every row and last, so that no
/// row read alone passes an emulator's timing for a memory type's. The PMU counts are in
/// `pmu.csv` ([`pmu_csv`]). A twin log's second column is `source` ([`model::RowKind::key`]).
pub fn csv(run: &Run) -> String {
    let mut out = format!(
        "kernel,{},granule,size_bytes,unit,best,median,cv_pct,reps,start,line_state,\
         emulated\n",
        run.rows().key
    );
    let text = |s: &Option<String>| s.clone().unwrap_or_default();
    for m in &run.measurements {
        csv_row(
            &mut out,
            &[
                &m.kernel,
                &m.memtype,
                &m.granule,
                &m.size,
                &m.unit.id(),
                &m.best,
                &m.median,
                &m.cv_pct,
                &m.reps,
                &text(&m.start),
                &text(&m.line_state),
                &run.emulated,
            ],
        );
    }
    out
}

/// `pmu.csv`: one row per PMU event counted at a measured point (kernel, memory type,
/// granule, size), in log order and core's `pmu::EVENTS` order within a point; `per_line` is
/// events per 64-byte line the fastest sample covered. Points whose `pmu` is `null` (no
/// event counts, e.g. QEMU) or absent have no row.
pub fn pmu_csv(run: &Run) -> String {
    let mut out = format!(
        "kernel,{},granule,size_bytes,event,per_line\n",
        run.rows().key
    );
    for m in &run.measurements {
        for (event, per_line) in m.pmu.iter().flatten() {
            csv_row(
                &mut out,
                &[&m.kernel, &m.memtype, &m.granule, &m.size, event, per_line],
            );
        }
    }
    out
}

/// A point's `pmu` as `results.json` holds it: event → count per 64-byte line, or `null`.
fn pmu_json(m: &Measurement) -> serde_json::Value {
    m.pmu.as_ref().map_or(serde_json::Value::Null, |counts| {
        counts
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect::<serde_json::Map<_, _>>()
            .into()
    })
}

/// A loaded-latency point as `results.json` holds it (the record's fields).
fn loaded_latency_json(p: &LoadedLatency) -> serde_json::Value {
    json!({
        "kernel": p.kernel, "memtype": p.memtype, "cores": p.cores,
        "bytes_per_core": p.bytes_per_core, "chase_memtype": p.chase_memtype,
        "chase_granule": p.chase_granule, "chase_bytes": p.chase_bytes, "loads": p.loads,
        "idle_ns": p.idle_ns, "loaded_ns": p.loaded_ns, "ratio": p.ratio,
        "stream_mbps": p.stream_mbps, "reps": p.reps,
    })
}

/// `loaded_latency.csv`: one row per loaded-latency point, in log order (ns per load; MB/s,
/// MB = 10^6 B; bytes).
pub fn loaded_latency_csv(run: &Run) -> String {
    let mut out = String::from(
        "kernel,memtype,cores,bytes_per_core,chase_memtype,chase_granule,chase_bytes,loads,\
         idle_ns,loaded_ns,ratio,stream_mbps,reps\n",
    );
    for p in &run.loaded_latency {
        csv_row(
            &mut out,
            &[
                &p.kernel,
                &p.memtype,
                &p.cores,
                &p.bytes_per_core,
                &p.chase_memtype,
                &p.chase_granule,
                &p.chase_bytes,
                &p.loads,
                &p.idle_ns,
                &p.loaded_ns,
                &p.ratio,
                &p.stream_mbps,
                &p.reps,
            ],
        );
    }
    out
}

/// `results.json`: the run as one JSON document (non-finite numbers become `null`). A twin
/// log's measurements and skips name their `source` in place of `memtype`, and the document
/// has the twin's `kernel`, `machine` and `sources` (name, size_bytes or error, errno,
/// detail).
pub fn json(run: &Run) -> serde_json::Value {
    let mut doc = firmware_json(run);
    if run.twin {
        for list in ["measurements", "skipped"] {
            for item in doc[list].as_array_mut().into_iter().flatten() {
                if let Some(o) = item.as_object_mut() {
                    if let Some(v) = o.remove(model::MEMTYPE_ROWS.key) {
                        o.insert(run.rows().key.into(), v);
                    }
                }
            }
        }
        doc["twin"] = json!(true);
        doc["kernel"] = json!(run.kernel);
        doc["machine"] = json!(run.machine);
        doc["baseline"] = json!(run.rows().baseline);
        doc["sources"] = run
            .sources
            .iter()
            .map(|s| {
                json!({
                    "source": s.name, "size_bytes": s.size, "error": s.error,
                    "errno": s.errno, "detail": s.detail,
                })
            })
            .collect();
    }
    doc
}

fn firmware_json(run: &Run) -> serde_json::Value {
    json!({
        "platform": run.platform,
        "emulated": run.emulated,
        "caveat": if run.emulated {
            Some(EMULATED_CAVEAT)
        } else {
            run.kvm().then_some(KVM_NOTE)
        },
        "accel": run.accel,
        "midr": run.midr,
        "version": run.version,
        "arch": run.arch(),
        "status": run.status,
        "caches": run.caches.iter().map(|c| json!({
            "level": c.level, "type": c.kind, "size_bytes": c.size,
        })).collect::<Vec<_>>(),
        "measurements": run.measurements.iter().map(|m| json!({
            "kernel": m.kernel, "memtype": m.memtype, "granule": m.granule, "size_bytes": m.size,
            "unit": m.unit.id(),
            "best": m.best, "median": m.median, "cv_pct": m.cv_pct, "reps": m.reps,
            "start": m.start, "line_state": m.line_state, "pmu": pmu_json(m),
        })).collect::<Vec<_>>(),
        "skipped": run.skipped.iter().map(|s| json!({
            "kernel": s.kernel, "memtype": s.memtype, "granule": s.granule, "size_bytes": s.size,
            "why": s.why,
        })).collect::<Vec<_>>(),
        "verdicts": verdicts_json(run),
        "scaling": run.scaling.iter().map(|p| json!({
            "kernel": p.kernel, "memtype": p.memtype, "cores": p.cores,
            "aggregate_mbps": p.aggregate_mbps, "per_core_min_mbps": p.per_core_min_mbps,
            "per_core_max_mbps": p.per_core_max_mbps, "span_ticks": p.span_ticks,
            "start_skew_ticks": p.start_skew_ticks,
        })).collect::<Vec<_>>(),
        "loaded_latency": run.loaded_latency.iter().map(loaded_latency_json).collect::<Vec<_>>(),
    })
}

/// `scaling.csv`: one row per multi-core point, in log order (MB/s, MB = 10^6 B; span and
/// skew in CNTVCT ticks, empty for logs of firmware that did not write them).
pub fn scaling_csv(run: &Run) -> String {
    let mut out = String::from(
        "kernel,memtype,cores,aggregate_mbps,per_core_min_mbps,per_core_max_mbps,span_ticks,\
         start_skew_ticks\n",
    );
    let ticks = |t: Option<u64>| t.map_or(String::new(), |t| t.to_string());
    for p in &run.scaling {
        csv_row(
            &mut out,
            &[
                &p.kernel,
                &p.memtype,
                &p.cores,
                &p.aggregate_mbps,
                &p.per_core_min_mbps,
                &p.per_core_max_mbps,
                &ticks(p.span_ticks),
                &ticks(p.start_skew_ticks),
            ],
        );
    }
    out
}

/// The verdicts as `results.json` holds them: name, status, evidence (key → number), why.
pub fn verdicts_json(run: &Run) -> serde_json::Value {
    run.verdicts
        .iter()
        .map(|v| {
            let evidence: serde_json::Map<String, serde_json::Value> = v
                .evidence
                .iter()
                .map(|(k, n)| (k.clone(), json!(n)))
                .collect();
            let mut j =
                json!({"name": v.name, "status": v.status, "evidence": evidence, "why": v.why});
            if let Some(note) = &v.core_note {
                j["core_note"] = json!(note);
            }
            j
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::testing::{loaded_run, m};
    use super::*;
    use crate::read::model::Unit;

    #[test]
    fn loaded_latency_csv_and_json() {
        let run = loaded_run();
        let csv = loaded_latency_csv(&run);
        assert_eq!(
            csv.lines().next(),
            Some("kernel,memtype,cores,bytes_per_core,chase_memtype,chase_granule,chase_bytes,loads,idle_ns,loaded_ns,ratio,stream_mbps,reps")
        );
        assert_eq!(
            csv.lines().nth(1),
            Some("read-ldp,device-ngnre,4,1048576,normal-wb,2M,8388608,131072,100,250,2.5,3000,3")
        );
        assert_eq!(csv.lines().count(), 5, "every record, in log order");
        let j = json(&run);
        assert_eq!(j["loaded_latency"].as_array().map(Vec::len), Some(4));
        assert_eq!(j["loaded_latency"][0]["memtype"], "device-ngnre");
        assert_eq!(j["loaded_latency"][0]["ratio"], 2.5);
        assert_eq!(j["loaded_latency"][0]["chase_granule"], "2M");
        // None: an empty list.
        assert_eq!(json(&Run::default())["loaded_latency"], json!([]));
    }

    #[test]
    fn pmu_start_and_line_state_in_the_csv_and_json() {
        let mut counted = m("normal-wb", 4096, 100.0);
        counted.pmu = Some(vec![
            ("l1d_cache_refill".into(), 0.02),
            ("bus_access".into(), 4.0),
        ]);
        counted.start = Some("invalidated".into());
        let mut maint = m("normal-nc", 4096, 7.5);
        (maint.kernel, maint.unit) = ("maint-civac".into(), Unit::NsPerLine);
        maint.start = Some("invalidated".into());
        maint.line_state = Some("no-line".into());
        let run = Run {
            measurements: vec![counted, maint, m("normal-wb", 8192, 100.0)],
            ..Run::default()
        };
        let rows: Vec<String> = csv(&run).lines().map(str::to_owned).collect();
        assert_eq!(
            rows,
            [
                "kernel,memtype,granule,size_bytes,unit,best,median,cv_pct,reps,start,line_state,emulated",
                "read-ldp,normal-wb,4K,4096,mbps,100,100,1.5,3,invalidated,,false",
                "maint-civac,normal-nc,4K,4096,ns_per_line,7.5,7.5,1.5,3,invalidated,no-line,false",
                "read-ldp,normal-wb,4K,8192,mbps,100,100,1.5,3,,,false",
            ]
        );
        assert_eq!(
            pmu_csv(&run),
            "kernel,memtype,granule,size_bytes,event,per_line\n\
             read-ldp,normal-wb,4K,4096,l1d_cache_refill,0.02\n\
             read-ldp,normal-wb,4K,4096,bus_access,4\n"
        );
        let j = json(&run);
        assert_eq!(
            j["measurements"][0]["pmu"],
            json!({"l1d_cache_refill": 0.02, "bus_access": 4.0})
        );
        assert_eq!(j["measurements"][0]["start"], "invalidated");
        assert_eq!(j["measurements"][0]["line_state"], serde_json::Value::Null);
        assert_eq!(j["measurements"][1]["line_state"], "no-line");
        assert_eq!(j["measurements"][1]["pmu"], serde_json::Value::Null);
    }
}
