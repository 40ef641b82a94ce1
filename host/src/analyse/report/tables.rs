//! The tables `cargo host report` prints: a header about the run, its verdicts, then per
//! kernel a table of best values, then the sections ([`super::sections`]).

use super::cells::{column_width, points, ratio_to_baseline, series_of, state};
use super::clusters::{clusters_section, core_to_core_table, sweep_heading};
use super::sections::{loaded_latency_table, prediction_sheet, scaling_table};
use super::twin::{twin_diagnosis, twin_header};
use crate::read::model::{distinct, Measurement, Run, Unit};
use crate::read::text::{or_dash, size_label, value_label};
use mairbench_core::verdict::STATUSES;
use std::fmt::Write as _;

/// The summary: a header about the run, then per kernel a table of best values (rows =
/// memory types, columns = sizes) with the ratio to the write-back reference. A twin log's
/// header names its Linux kernel and machine, then its sources (mapped, or the error that
/// refused them); its rows are sources, compared with the twin's reference
/// ([`RowKind::baseline`](crate::read::model::RowKind::baseline)).
pub fn tables(run: &Run) -> String {
    let mut out = String::new();
    if run.twin {
        twin_header(&mut out, run);
        out.push_str(&twin_diagnosis(run));
        return body(out, run);
    }
    let _ = writeln!(
        out,
        "mairbench {} on {} ({}, MIDR {}){}",
        or_dash(&run.version),
        or_dash(&run.platform),
        or_dash(run.arch()),
        or_dash(&run.midr),
        state(run)
    );
    if !run.caches.is_empty() {
        let caches: Vec<String> = run
            .caches
            .iter()
            .map(|c| format!("L{} {} {}", c.level, c.kind, size_label(c.size)))
            .collect();
        let _ = writeln!(out, "caches: {}", caches.join(", "));
    }
    body(out, run)
}

/// Everything after the header: verdicts, the per-kernel tables, skips, scaling, loaded
/// latency and the prediction sheet.
fn body(mut out: String, run: &Run) -> String {
    verdict_table(&mut out, run);
    for kernel in distinct(run.measurements.iter().map(|m| m.kernel.as_str())) {
        out.push('\n');
        kernel_table(&mut out, run, kernel);
    }
    for s in &run.skipped {
        let at = s
            .size
            .map(|s| format!(" at {}", size_label(s)))
            .unwrap_or_default();
        let _ = writeln!(out, "skipped: {} on {}{at}: {}", s.kernel, s.memtype, s.why);
    }
    scaling_table(&mut out, run);
    loaded_latency_table(&mut out, run);
    core_to_core_table(&mut out, run);
    clusters_section(&mut out, run);
    for c in run.clusters.iter().filter(|c| c.role == "swept") {
        sweep_heading(&mut out, c);
        verdict_table(&mut out, &c.sweep);
        for kernel in distinct(c.sweep.measurements.iter().map(|m| m.kernel.as_str())) {
            out.push('\n');
            kernel_table(&mut out, &c.sweep, kernel);
        }
    }
    prediction_sheet(&mut out, run);
    out
}

/// The verdicts, first of the report: a count per status, then one line per verdict as the
/// firmware prints it (name, status, why). Nothing when the log has none.
pub fn verdict_table(out: &mut String, run: &Run) {
    if run.verdicts.is_empty() {
        return;
    }
    let counts: Vec<String> = STATUSES
        .iter()
        .rev()
        .map(|s| {
            let n = run.verdicts.iter().filter(|v| v.status == s.name()).count();
            format!("{} {n}", s.name())
        })
        .collect();
    let _ = writeln!(
        out,
        "\nverdicts ({}; what each checks: docs/bringup.md, \"Verdicts\")",
        counts.join(", ")
    );
    let width = run.verdicts.iter().map(|v| v.name.len()).max().unwrap_or(0);
    for v in &run.verdicts {
        let _ = writeln!(out, "  {:<width$}  {:<4}  {}", v.name, v.status, v.why);
        if let Some(note) = &v.core_note {
            let _ = writeln!(out, "  {:<width$}        core: {note}", "");
        }
    }
}

fn kernel_table(out: &mut String, run: &Run, kernel: &str) {
    let of: Vec<&Measurement> = run
        .measurements
        .iter()
        .filter(|m| m.kernel == kernel)
        .collect();
    let Some(unit) = of.first().map(|m| m.unit) else {
        return;
    };
    let reps = of.iter().map(|m| m.reps).max().unwrap_or(0);
    let mut sizes: Vec<u64> = of.iter().map(|m| m.size).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let names = series_of(run, of.iter().copied());
    let types = distinct(names.iter().map(String::as_str));
    let p = points(run, kernel);

    let mb = if unit == Unit::MegabytesPerSecond {
        "; MB = 10^6 B"
    } else {
        ""
    };
    let _ = writeln!(out, "{kernel} ({}, best of {reps}{mb})", unit.label());
    // As wide as "memory type" for a twin log's `source` heading too.
    let name_width = column_width(types.iter().copied(), "memory type");
    let cells: Vec<Vec<String>> = types
        .iter()
        .map(|t| {
            sizes
                .iter()
                .map(|s| {
                    p.get(&(t.to_string(), *s))
                        .map_or("-".into(), |m| value_label(unit, m.best))
                })
                .collect()
        })
        .collect();
    let widths: Vec<usize> = sizes
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let widest = cells.iter().map(|row| row[i].len()).max().unwrap_or(0);
            widest.max(size_label(*s).len()) + 2
        })
        .collect();
    let rows = run.rows();
    let _ = write!(out, "  {:<name_width$}", rows.label);
    for (s, w) in sizes.iter().zip(&widths) {
        let _ = write!(out, "{:>w$}", size_label(*s));
    }
    let _ = writeln!(out, "{:>10}", rows.vs());
    for (t, row) in types.iter().zip(&cells) {
        let _ = write!(out, "  {t:<name_width$}");
        for (cell, w) in row.iter().zip(&widths) {
            let _ = write!(out, "{cell:>w$}");
        }
        let ratio =
            ratio_to_baseline(run, kernel, t).map_or("-".into(), |(r, _)| format!("{r:.3}x"));
        let _ = writeln!(out, "{ratio:>10}");
    }
    let _ = writeln!(
        out,
        "  ({} is better; {} = this {} / {} at the largest size both were measured at)",
        unit.better(),
        rows.vs(),
        rows.short,
        rows.baseline
    );
}

#[cfg(test)]
mod tests {
    use super::super::files::{csv, json, verdicts_json};
    use super::super::notes::{EMULATED_CAVEAT, KVM_NOTE};
    use super::super::testing::{loaded_run, m, row, scaling};
    use super::*;
    use crate::read::model::PAGES;
    use serde_json::json;

    #[test]
    fn ratio_uses_the_largest_common_size() {
        let run = Run {
            measurements: vec![
                m("normal-wb", 4096, 100.0),
                m("normal-wb", 8192, 200.0),
                m("normal-nc", 4096, 50.0),
                m("normal-nc", 8192, 50.0),
                m("normal-nc", 16384, 1.0),
            ],
            ..Run::default()
        };
        assert_eq!(
            ratio_to_baseline(&run, "read-ldp", "normal-nc"),
            Some((0.25, 8192))
        );
        let t = tables(&run);
        assert!(t.contains("read-ldp (MB/s, best of 3; MB = 10^6 B)"), "{t}");
        assert!(t.contains("0.250x"), "{t}");
        assert_eq!(
            csv(&run).lines().nth(1),
            Some("read-ldp,normal-wb,4K,4096,mbps,100,100,1.5,3,,,false")
        );
    }

    /// A run QEMU ran under KVM is no emulated run: the header and the JSON say KVM, with
    /// the KVM note for a caveat; under TCG the caveat is the emulated one.
    #[test]
    fn kvm_runs_are_told_from_tcg() {
        let log = |start: &str| {
            crate::read::log::parse(
                format!(
                    "@mb {{\"kind\":\"start\",\"schema\":1,\"platform\":\"linux,dummy-virt\",{start}}}\n\
                     @mb {{\"kind\":\"end\",\"status\":\"pass\"}}\n"
                )
                .as_bytes(),
            )
            .run
        };
        let kvm = log("\"emulated\":false,\"host\":\"qemu-10.0.2\",\"accel\":\"kvm\"");
        assert!(kvm.kvm() && !kvm.emulated);
        assert!(
            tables(&kvm).contains(", QEMU under KVM; status pass"),
            "{}",
            tables(&kvm)
        );
        let j = json(&kvm);
        assert_eq!(
            (j["caveat"].as_str(), j["accel"].as_str()),
            (Some(KVM_NOTE), Some("kvm"))
        );
        let tcg = log("\"emulated\":true,\"accel\":\"tcg\",\"emulated_by\":[\"bootarg\"]");
        assert!(!tcg.kvm() && tcg.emulated);
        assert!(
            tables(&tcg).contains(", emulated; status pass"),
            "{}",
            tables(&tcg)
        );
        assert_eq!(json(&tcg)["caveat"], EMULATED_CAVEAT);
        // Older logs: no accel, read as before.
        let old = log("\"emulated\":true");
        assert_eq!((old.accel.as_deref(), old.kvm()), (None, false));
    }

    #[test]
    fn a_verdicts_core_note_is_quoted() {
        let note = "Cortex-A55 only memory both inner and outer write-back is cached (TRM)";
        let run = Run {
            verdicts: vec![crate::read::model::Verdict {
                name: "write-through".into(),
                status: "pass".into(),
                evidence: vec![],
                why: "as documented".into(),
                core_note: Some(note.into()),
            }],
            ..Run::default()
        };
        let mut t = String::new();
        verdict_table(&mut t, &run);
        assert!(
            t.contains(&format!(
                "\n  write-through  pass  as documented\n                       core: {note}\n"
            )),
            "{t}"
        );
        assert_eq!(verdicts_json(&run)[0]["core_note"], note);
    }

    #[test]
    fn verdicts_come_first() {
        let run = Run {
            measurements: vec![m("normal-wb", 4096, 100.0)],
            verdicts: vec![
                crate::read::model::Verdict {
                    name: "caches-on".into(),
                    status: "fail".into(),
                    evidence: vec![("sctlr_c".into(), 0.0)],
                    why: "SCTLR_EL1.C is clear".into(),
                    core_note: None,
                },
                crate::read::model::Verdict {
                    name: "device-read-cliff".into(),
                    status: "n/a".into(),
                    evidence: vec![],
                    why: "not measured".into(),
                    core_note: None,
                },
            ],
            ..Run::default()
        };
        let t = tables(&run);
        let verdicts = t.find("verdicts (fail 1, warn 0, pass 0, n/a 1;").unwrap();
        assert!(verdicts < t.find("read-ldp (MB/s").unwrap(), "{t}");
        assert!(
            t.contains("\n  caches-on          fail  SCTLR_EL1.C is clear\n"),
            "{t}"
        );
        assert!(
            t.contains("\n  device-read-cliff  n/a   not measured\n"),
            "{t}"
        );
        let j = json(&run);
        assert_eq!(
            j["verdicts"],
            json!([
                {"name": "caches-on", "status": "fail", "evidence": {"sctlr_c": 0.0}, "why": "SCTLR_EL1.C is clear"},
                {"name": "device-read-cliff", "status": "n/a", "evidence": {}, "why": "not measured"},
            ])
        );
    }

    #[test]
    fn scaling_table_shows_the_skew_at_the_most_cores() {
        let mut run = Run {
            scaling: vec![
                scaling("normal-wb", 1, Some(0)),
                scaling("normal-wb", 4, Some(96)),
                scaling("normal-nc", 4, None),
            ],
            timer_hz: Some(24_000_000),
            ..Run::default()
        };
        let t = tables(&run);
        // 96 ticks of 24 MHz: 4000 ns; a point without skew: blank.
        assert!(
            t.contains(
                "  memory type     1 core  4 cores   skew at 4 (ns)   per core at 4 (MB/s)\n"
            ),
            "{t}"
        );
        assert_eq!(
            row(&t, "normal-wb"),
            ["normal-wb", "1000", "4000", "4000", "900", "to", "1100"]
        );
        assert_eq!(
            row(&t, "normal-nc"),
            ["normal-nc", "-", "4000", "900", "to", "1100"]
        );
        assert!(
            t.contains("(skew: latest core's start - earliest core's start"),
            "{t}"
        );
        // No counter frequency in the log: ticks, said so.
        run.timer_hz = None;
        let t = tables(&run);
        assert!(t.contains("   skew at 4 (ticks)   "), "{t}");
        assert_eq!(row(&t, "normal-wb")[3], "96");
        // An older log (no skew anywhere): no column.
        for p in &mut run.scaling {
            (p.span_ticks, p.start_skew_ticks) = (None, None);
        }
        let t = tables(&run);
        assert!(!t.contains("skew"), "{t}");
        assert_eq!(
            row(&t, "normal-wb"),
            ["normal-wb", "1000", "4000", "900", "to", "1100"]
        );
    }

    #[test]
    fn loaded_latency_table() {
        let run = loaded_run();
        let t = tables(&run);
        let at = t.find("\nloaded latency (ns per load, best of 3; stream MB/s: MB = 10^6 B)\n");
        assert!(at.is_some(), "{t}");
        assert!(
            t.find("scaling read-ldp") < at && at < t.find("prediction sheet"),
            "{t}"
        );
        assert!(
            t.contains(
                "  the boot core's chase: 131072 dependent loads over 8 MiB of normal-wb (2M)"
            ),
            "{t}"
        );
        let lines: Vec<&str> = t[at.unwrap()..]
            .lines()
            .skip(4)
            .take(4)
            .map(str::trim_end)
            .collect();
        assert!(
            lines[0].split_whitespace().eq([
                "streams",
                "memory",
                "type",
                "cores",
                "idle",
                "(ns/load)",
                "loaded",
                "(ns/load)",
                "ratio",
                "stream",
                "MB/s"
            ]),
            "{t}"
        );
        let words = |l: &str| l.split_whitespace().map(str::to_owned).collect::<Vec<_>>();
        // Kernels in log order, memory types in core's order within each.
        assert_eq!(
            words(lines[1]),
            [
                "read-ldp",
                "normal-wb",
                "4",
                "100.00",
                "120.00",
                "1.200x",
                "3000"
            ]
        );
        assert_eq!(words(lines[2])[..2], ["read-ldp", "device-ngnre"]);
        assert_eq!(words(lines[3])[..2], ["write-stp", "normal-wb"]);
        // None: no table.
        assert!(!tables(&Run::default()).contains("loaded latency"));
    }

    /// A `latency` point of `memtype` on `granule` at `size` (cv 0, one repetition).
    fn at(memtype: &str, granule: &str, size: u64, best: f64) -> Measurement {
        Measurement {
            memtype: memtype.into(),
            kernel: "latency".into(),
            granule: granule.into(),
            size,
            unit: Unit::NsPerLoad,
            best,
            median: best,
            cv_pct: 0.0,
            reps: 1,
            pmu: None,
            start: None,
            line_state: None,
        }
    }

    #[test]
    fn report_keys_by_memtype_and_granule() {
        let new = Run {
            measurements: vec![
                at("normal-wb", "2M", 4096, 2.0),
                at("normal-nc", "2M", 4096, 3.0),
                at("normal-wb", "4K", 4096, 4.0),
            ],
            ..Run::default()
        };
        let t = tables(&new);
        assert_eq!(row(&t, "normal-wb"), ["normal-wb", "2.00", "1.000x"], "{t}");
        assert_eq!(row(&t, "normal-nc"), ["normal-nc", "3.00", "1.500x"], "{t}");
        // The page row, against normal-wb on blocks: the cost of the page walks.
        assert_eq!(row(&t, "normal-wb (4K)")[2..], ["4.00", "2.000x"], "{t}");
        let csv = csv(&new);
        assert!(csv.starts_with(
            "kernel,memtype,granule,size_bytes,unit,best,median,cv_pct,reps,start,line_state,\
             emulated\n"
        ));
        assert!(
            csv.contains("\nlatency,normal-wb,4K,4096,ns_per_load,4,4,0,1,,,false\n"),
            "{csv}"
        );
        assert_eq!(json(&new)["measurements"][0]["granule"], "2M");
        // An old log (latency on pages, no granule field) keeps the plain names.
        let old = Run {
            measurements: vec![
                at("normal-wb", PAGES, 4096, 8.0),
                at("normal-nc", PAGES, 4096, 8.0),
            ],
            ..Run::default()
        };
        assert!(tables(&old).contains("\n  normal-nc "));
    }
}
