//! The report of one run: summary tables for the terminal (per kernel, the multi-core
//! scaling, the loaded latency, the prediction sheet), and the files (`results.csv`,
//! `results.json`, `scaling.csv`, `loaded_latency.csv`, `pmu.csv`, SVG charts) written into
//! an output directory.

use crate::chart;
use crate::model::{self, distinct, LoadedLatency, Measurement, Run, Unit};
use mairbench_core::diagnosis;
use mairbench_core::format::Bytes;
use mairbench_core::kernel::Kernel;
use mairbench_core::sweep::ticks_to_ns;
use mairbench_core::verdict::STATUSES;
use serde_json::json;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// What to say about timings taken in an emulator.
pub const EMULATED_CAVEAT: &str =
    "QEMU models no caches: these timings do not reflect memory types";

/// What `report` says of a run QEMU ran under KVM (the `start` record's `accel`).
pub const KVM_NOTE: &str = "QEMU under KVM: the cores and caches are the host's own, so these \
timings count; they are a guest's (the host's stage 2 may override the memory types asked for) \
and only the device tree is QEMU's";

/// What the steps and ratios of an emulated run are (docs/lab.md, step 2e), said after
/// [`EMULATED_CAVEAT`] under the tables and the prediction sheet.
pub const EMULATED_STEPS: &str = "under QEMU the curves step where the host CPU's own caches \
     end (its L1 and L2 data caches, whatever the cache: lines say) and where a sweep outgrows \
     QEMU's software TLB (4 KiB entries: 1 MiB by default, 2 MiB or more once a boot loader \
     has grown it; latency rises about ten times there, read-ldp about 1.5 times); between \
     Normal rows, and for latency from 2 MiB up, a ratio to normal-wb (vs wb, the prediction \
     sheet) is host noise: single points 0.7x to 1.7x apart on a loaded host (docs/lab.md, \
     step 2e)";

/// A size in binary units as the firmware prints it (core's [`Bytes`]): `4 KiB`, `1 MiB`,
/// or bytes when it is not a whole KiB.
pub fn size_label(size: u64) -> String {
    Bytes(size).to_string()
}

/// A value as the tables print it: whole MB/s, ns to two decimals.
pub fn value_label(unit: Unit, value: f64) -> String {
    match unit {
        Unit::MegabytesPerSecond => format!("{value:.0}"),
        _ => format!("{value:.2}"),
    }
}

/// The measurements of one kernel by (row, size), a row being a memory type on one granule
/// ([`model::series`]); a repeated point keeps the last.
fn points<'a>(run: &'a Run, kernel: &str) -> BTreeMap<(String, u64), &'a Measurement> {
    let mixed = model::mixed_granules(&run.measurements, kernel);
    run.measurements
        .iter()
        .filter(|m| m.kernel == kernel)
        .map(|m| ((model::series(m, mixed), m.size), m))
        .collect()
}

/// The row names ([`model::series`]) of `of`, in order, repeats included.
fn series_of<'a>(run: &Run, of: impl IntoIterator<Item = &'a Measurement>) -> Vec<String> {
    of.into_iter().map(|m| run.series(m)).collect()
}

/// `memtype`'s best value over the baseline's ([`model::RowKind::baseline`]: the write-back
/// reference, or the twin's reference in a twin log) at the largest size both were measured
/// at (`memtype` a row name, perhaps marked with its granule, see [`model::series`]).
pub fn ratio_to_baseline(run: &Run, kernel: &str, memtype: &str) -> Option<(f64, u64)> {
    let p = points(run, kernel);
    p.iter()
        .rev()
        .filter(|((t, _), _)| t == memtype)
        .find_map(|((_, size), m)| {
            let base = p.get(&(run.rows().baseline.to_owned(), *size))?;
            (base.best != 0.0).then(|| (m.best / base.best, *size))
        })
}

/// The summary: a header about the run, then per kernel a table of best values (rows =
/// memory types, columns = sizes) with the ratio to the write-back reference. A twin log's
/// header names its Linux kernel and machine, then its sources (mapped, or the error that
/// refused them); its rows are sources, compared with the twin's reference
/// ([`model::RowKind::baseline`]).
pub fn tables(run: &Run) -> String {
    let mut out = String::new();
    if run.twin {
        twin_header(&mut out, run);
        out.push_str(&twin_diagnosis(run));
        return body(out, run);
    }
    let _ = writeln!(
        out,
        "mairbench {} on {} (MIDR {}){}",
        or_dash(&run.version),
        or_dash(&run.platform),
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

/// The end of a header's first line: `, emulated` when the run was, and its status.
fn state(run: &Run) -> String {
    format!(
        "{}; status {}",
        if run.emulated {
            ", emulated"
        } else if run.kvm() {
            ", QEMU under KVM"
        } else {
            ""
        },
        run.status.as_deref().unwrap_or("none (no end record)")
    )
}

/// The twin's header: what ran where, then one line per source.
fn twin_header(out: &mut String, run: &Run) {
    let _ = writeln!(
        out,
        "mairbench-linux {} on {} {} ({}, MIDR {}){}",
        or_dash(&run.version),
        or_dash(&run.kernel),
        or_dash(&run.machine),
        or_dash(&run.platform),
        or_dash(&run.midr),
        state(run)
    );
    if run.sources.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "
sources ({}):",
        run.sources.len()
    );
    let width = run.sources.iter().map(|s| s.name.len()).max().unwrap_or(0);
    for s in &run.sources {
        let what = match (&s.error, s.size) {
            (Some(e), _) => {
                let errno = s.errno.map(|n| format!(" (errno {n})")).unwrap_or_default();
                format!("refused: {e}{errno} at {}", or_dash(&s.detail))
            }
            (None, Some(size)) => format!("{} mapped ({})", size_label(size), s.detail),
            (None, None) => format!("mapped, size unknown ({})", s.detail),
        };
        let _ = writeln!(out, "  {:<width$}  {what}", s.name);
    }
}

/// The twin's diagnosis of each source against its reference (core's [`diagnosis`]): per
/// source the finding in one sentence, judged at every working set both measured, then its
/// read (`read-ldp`), write (`write-stp`) and copy (`copy-from`: out of the source)
/// slowdowns at the L1-, L2- and DRAM-sized working sets ([`diagnosis::levels`] from the
/// log's caches) and over all of them. Empty for a log with no source but the reference.
pub fn twin_diagnosis(run: &Run) -> String {
    let base = run.rows().baseline;
    let caches: Vec<u64> = run.caches.iter().map(|c| c.size).collect();
    let mut sizes: Vec<u64> = run.measurements.iter().map(|m| m.size).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let sweep = diagnosis::Sweep {
        sizes: &sizes,
        caches: &caches,
        emulated: run.emulated,
    };
    let at = |kernel: &str, row: &str, size: u64| {
        run.measurements.iter().find(|m| {
            m.kernel == kernel
                && m.memtype == row
                && m.size == size
                && m.unit == Unit::MegabytesPerSecond
        })
    };
    let series = |kernel: &str, row: &str| {
        diagnosis::Series::of(sizes.iter().map(|&size| {
            let figure = at(kernel, base, size)
                .zip(at(kernel, row, size))
                .and_then(|(a, s)| {
                    // Whole MB/s: the record's own precision.
                    let mbps = |m: &Measurement| (m.best.round() as u64, m.median.round() as u64);
                    diagnosis::Slower::of(mbps(a), mbps(s))
                });
            (size, figure)
        }))
    };
    let rows = distinct(
        run.measurements
            .iter()
            .map(|m| m.memtype.as_str())
            .filter(|r| *r != base),
    );
    if rows.is_empty() {
        return String::new();
    }
    let mut out = format!("\n{}\n", diagnosis::Header(base));
    for row in rows {
        let figures = diagnosis::Figures::new(
            &sweep,
            series("read-ldp", row),
            series("write-stp", row),
            series("copy-from", row),
        );
        let _ = write!(
            out,
            "{}",
            diagnosis::Block {
                name: row,
                figures: &figures
            }
        );
    }
    if run.emulated {
        let _ = writeln!(out, "  ({})", diagnosis::EMULATED);
    }
    out
}

/// Everything after the header: verdicts, the per-kernel tables, skips, scaling, loaded
/// latency and the prediction sheet.
fn body(mut out: String, run: &Run) -> String {
    verdict_table(&mut out, run);
    for kernel in distinct(run.measurements.iter().map(|m| m.kernel.as_str())) {
        out.push('\n');
        table(&mut out, run, kernel);
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

/// The memory types of `names` in core's table order ([`model::table_position`]), unknown
/// ones after, in first-seen order.
fn in_table_order<'a>(names: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut types = distinct(names);
    types.sort_by_key(|t| model::table_position(t));
    types
}

/// A scaling point's start skew as the scaling table prints it: whole ns of the run's
/// counter (core's `ticks_to_ns`, rounded down, as the firmware's console table), or ticks
/// when the log names no counter frequency; with the unit's name.
pub fn skew_label(run: &Run, ticks: u64) -> (String, &'static str) {
    match run.timer_hz {
        Some(hz) => (ticks_to_ns(ticks, hz).to_string(), "ns"),
        None => (ticks.to_string(), "ticks"),
    }
}

/// Per scaling kernel: rows = memory types, columns = cores at once, cells = aggregate
/// MB/s, then the start skew at the most cores (ns; only where the log has
/// `start_skew_ticks`, blank for a point without) and the slowest and fastest core at the
/// most cores. Nothing without records.
fn scaling_table(out: &mut String, run: &Run) {
    for kernel in distinct(run.scaling.iter().map(|p| p.kernel.as_str())) {
        let of: Vec<_> = run.scaling.iter().filter(|p| p.kernel == kernel).collect();
        let mut cores: Vec<u64> = of.iter().map(|p| p.cores).collect();
        cores.sort_unstable();
        cores.dedup();
        let most = cores.last().copied().unwrap_or(0);
        let types = in_table_order(of.iter().map(|p| p.memtype.as_str()));
        let _ = writeln!(
            out,
            "\nscaling {kernel} (aggregate MB/s with 1 to {most} cores at once; MB = 10^6 B)"
        );
        let name_width = column_width(types.iter().copied(), "memory type");
        let _ = write!(out, "  {:<name_width$}", "memory type");
        for n in &cores {
            let _ = write!(
                out,
                "{:>9}",
                format!("{n} core{}", if *n == 1 { "" } else { "s" })
            );
        }
        // Older logs have no skew: no column.
        let skew_unit = of
            .iter()
            .find_map(|p| p.start_skew_ticks)
            .map(|t| skew_label(run, t).1);
        let skew_width = skew_unit.map_or(0, |u| format!("   skew at {most} ({u})").len());
        if let Some(unit) = skew_unit {
            let _ = write!(out, "   skew at {most} ({unit})");
        }
        let _ = writeln!(out, "   per core at {most} (MB/s)");
        for t in types {
            let _ = write!(out, "  {t:<name_width$}");
            let at = |n: u64| of.iter().rev().find(|p| p.memtype == t && p.cores == n);
            for n in &cores {
                let cell = at(*n).map_or("-".into(), |p| p.aggregate_mbps.to_string());
                let _ = write!(out, "{cell:>9}");
            }
            if skew_unit.is_some() {
                let skew = at(most)
                    .and_then(|p| p.start_skew_ticks)
                    .map_or(String::new(), |t| skew_label(run, t).0);
                let _ = write!(out, "{skew:>skew_width$}");
            }
            let spread = at(most).map_or("-".into(), |p| {
                format!("{} to {}", p.per_core_min_mbps, p.per_core_max_mbps)
            });
            let _ = writeln!(out, "   {spread}");
        }
        if skew_unit.is_some() {
            let _ = writeln!(
                out,
                "  (skew: latest core's start - earliest core's start on the shared counter)"
            );
        }
    }
}

/// The loaded-latency points as the table shows them: per (streams' kernel, memory type),
/// in the log's kernel order and core's memory type order, the last record of each.
pub fn loaded_latency_rows(run: &Run) -> Vec<&LoadedLatency> {
    let mut rows = Vec::new();
    for kernel in distinct(run.loaded_latency.iter().map(|p| p.kernel.as_str())) {
        let of = run.loaded_latency.iter().filter(|p| p.kernel == kernel);
        for t in in_table_order(of.clone().map(|p| p.memtype.as_str())) {
            if let Some(p) = of.clone().rev().find(|p| p.memtype == t) {
                rows.push(p);
            }
        }
    }
    rows
}

/// The loaded latency: the boot core's chase idle and while the other cores stream through
/// a memory type; rows = (streams' kernel, memory type), columns = cores, idle and loaded
/// ns per load, their ratio and the streams' MB/s. Nothing without records.
fn loaded_latency_table(out: &mut String, run: &Run) {
    let rows = loaded_latency_rows(run);
    let Some(first) = rows.first() else {
        return;
    };
    let reps = rows.iter().map(|p| p.reps).max().unwrap_or(0);
    let _ = writeln!(
        out,
        "\nloaded latency (ns per load, best of {reps}; stream MB/s: MB = 10^6 B)\n  the boot \
         core's chase: {} dependent loads over {} of {} ({}); idle: the other cores wait;\n  \
         loaded: they stream through the memory type named",
        first.loads,
        size_label(first.chase_bytes),
        first.chase_memtype,
        first.chase_granule
    );
    let kernel_width = column_width(rows.iter().map(|p| p.kernel.as_str()), "streams");
    let name_width = column_width(rows.iter().map(|p| p.memtype.as_str()), "memory type");
    let _ = writeln!(
        out,
        "  {:<kernel_width$}{:<name_width$}{:>6}{:>16}{:>18}{:>9}{:>13}",
        "streams",
        "memory type",
        "cores",
        "idle (ns/load)",
        "loaded (ns/load)",
        "ratio",
        "stream MB/s"
    );
    for p in &rows {
        let _ = writeln!(
            out,
            "  {:<kernel_width$}{:<name_width$}{:>6}{:>16.2}{:>18.2}{:>8.3}x{:>13}",
            p.kernel, p.memtype, p.cores, p.idle_ns, p.loaded_ns, p.ratio, p.stream_mbps
        );
    }
    let _ = writeln!(
        out,
        "  (ratio = loaded / idle: 1.000x is no slowdown; cores = the chase and cores - 1 streams)"
    );
}

/// The prediction sheet: per kernel (rows) and memory type (columns), the ratio of its best
/// value to the baseline's ([`model::RowKind::baseline`]) at the largest size both were
/// measured at, the numbers a student predicts before the run. Nothing when no kernel has the
/// baseline.
pub fn prediction_sheet(out: &mut String, run: &Run) {
    let baseline = run.rows().baseline;
    let kernels: Vec<&str> = distinct(run.measurements.iter().map(|m| m.kernel.as_str()))
        .into_iter()
        .filter(|k| ratio_to_baseline(run, k, baseline).is_some())
        .collect();
    if kernels.is_empty() {
        return;
    }
    let names = series_of(run, &run.measurements);
    let types = in_table_order(names.iter().map(String::as_str));
    let _ = writeln!(
        out,
        "\nprediction sheet: best value / {baseline}'s at the largest size both were measured \
         at"
    );
    let kernel_width = column_width(kernels.iter().copied(), "kernel");
    let widths: Vec<usize> = types.iter().map(|t| t.len().max(6) + 2).collect();
    let _ = write!(out, "  {:<kernel_width$}", "kernel");
    for (t, w) in types.iter().zip(&widths) {
        let _ = write!(out, "{t:>w$}");
    }
    let _ = writeln!(out, "  at");
    for kernel in kernels {
        let _ = write!(out, "  {kernel:<kernel_width$}");
        let mut size = None;
        for (t, w) in types.iter().zip(&widths) {
            let cell = ratio_to_baseline(run, kernel, t).map_or("-".into(), |(r, at)| {
                size = size.max(Some(at));
                format!("{r:.3}x")
            });
            let _ = write!(out, "{cell:>w$}");
        }
        let unit = run.unit_of(kernel);
        let _ = writeln!(
            out,
            "  {} ({}, {} is better)",
            size.map_or("-".into(), size_label),
            unit.map_or("", |u| u.label()),
            unit.map_or("lower", Unit::better)
        );
    }
}

/// The width of a table's name column: its longest name or `heading`, whichever is longer,
/// and two spaces.
fn column_width<'a>(names: impl IntoIterator<Item = &'a str>, heading: &str) -> usize {
    names
        .into_iter()
        .map(str::len)
        .chain([heading.len()])
        .max()
        .unwrap_or(0)
        + 2
}

fn or_dash(s: &str) -> &str {
    if s.is_empty() {
        "-"
    } else {
        s
    }
}

fn table(out: &mut String, run: &Run, kernel: &str) {
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

/// One CSV field, quoted when it needs to be.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// Appends one CSV row to `out`: `fields` as they display, each quoted when it needs to be
/// ([`csv_field`]), separated by commas, then a line feed.
pub fn csv_row(out: &mut String, fields: &[&dyn std::fmt::Display]) {
    for (i, field) in fields.iter().enumerate() {
        if i != 0 {
            out.push(',');
        }
        out.push_str(&csv_field(&field.to_string()));
    }
    out.push('\n');
}

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

/// The files a report wrote, and the charts it could not draw.
#[derive(Debug, Default)]
pub struct Written {
    /// Paths written, in order.
    pub files: Vec<PathBuf>,
    /// One line per chart that failed.
    pub warnings: Vec<String>,
}

impl Written {
    /// Writes `contents` to `dir/name` and records it.
    pub fn file(&mut self, dir: &Path, name: &str, contents: &str) -> Result<(), String> {
        let path = dir.join(name);
        std::fs::write(&path, contents)
            .map_err(|e| format!("cannot write {}: {e}.", path.display()))?;
        self.files.push(path);
        Ok(())
    }

    /// Writes `value` to `dir/name` as pretty-printed JSON with a final newline, and records
    /// it.
    pub fn json(
        &mut self,
        dir: &Path,
        name: &str,
        value: &serde_json::Value,
    ) -> Result<(), String> {
        let text = serde_json::to_string_pretty(value).unwrap_or_default();
        self.file(dir, name, &(text + "\n"))
    }

    /// Writes a chart, or notes why there is none.
    pub fn chart(
        &mut self,
        dir: &Path,
        name: &str,
        svg: Result<String, String>,
    ) -> Result<(), String> {
        match svg {
            Ok(svg) => self.file(dir, name, &svg),
            Err(e) => {
                self.warnings.push(format!("no {name}: {e}"));
                Ok(())
            }
        }
    }
}

/// The charts of a report: kernels drawn side by side, and the chart's title. Each group
/// present in a run gives `<kernels>.svg` (best value over size) and `ratio-<kernels>.svg`
/// (over the baseline's, [`model::RowKind::baseline`]), named after the kernels of the group
/// the run measured (their names in core's kernel table).
pub const CHARTS: [(&[Kernel], &str); 8] = [
    (&[Kernel::ReadLdp, Kernel::WriteStp], "Streaming bandwidth"),
    (
        &[Kernel::ReadLdpQ, Kernel::WriteStpQ],
        "Streaming bandwidth, 128-bit pairs",
    ),
    (
        &[Kernel::ReadLdnp, Kernel::WriteStnp],
        "Streaming bandwidth, non-temporal pairs",
    ),
    (
        &[
            Kernel::CopyTo,
            Kernel::CopyFrom,
            Kernel::CopyToQ,
            Kernel::CopyFromQ,
        ],
        "Copy bandwidth",
    ),
    (&[Kernel::Latency], "Load latency"),
    (&[Kernel::FillZva], "DC ZVA fill"),
    (
        &[Kernel::MaintCivac, Kernel::MaintCvac, Kernel::MaintIvac],
        "Cache maintenance by VA",
    ),
    (
        &[Kernel::WriteLine],
        "Partial-line writes (one store per line)",
    ),
];

/// Writes `results.csv`, `results.json`, `scaling.csv` (when the run has multi-core points),
/// `loaded_latency.csv` (when it has loaded-latency points), `pmu.csv` (when a point has PMU
/// counts) and the charts ([`CHARTS`], and `scaling-<kernels>.svg`) into `dir` (created when missing).
/// The error is one sentence.
pub fn write(run: &Run, dir: &Path) -> Result<Written, String> {
    std::fs::create_dir_all(dir)
        .map_err(|e| format!("cannot create the output directory {}: {e}.", dir.display()))?;
    let mut w = Written::default();
    w.file(dir, "results.csv", &csv(run))?;
    w.json(dir, "results.json", &json(run))?;
    if !run.scaling.is_empty() {
        w.file(dir, "scaling.csv", &scaling_csv(run))?;
    }
    if !run.loaded_latency.is_empty() {
        w.file(dir, "loaded_latency.csv", &loaded_latency_csv(run))?;
    }
    if run.measurements.iter().any(|m| m.pmu.is_some()) {
        w.file(dir, "pmu.csv", &pmu_csv(run))?;
    }
    for (group, title) in CHARTS {
        let present: Vec<&str> = group
            .iter()
            .map(|k| k.spec().name)
            .filter(|k| run.measurements.iter().any(|m| m.kernel == *k))
            .collect();
        if present.is_empty() {
            continue;
        }
        let stem = present.join("-");
        w.chart(
            dir,
            &format!("{stem}.svg"),
            chart::panels_of(run, &present, title),
        )?;
        let baseline = run.rows().baseline;
        let ratio_title = format!("{title}, ratio to {baseline}");
        let svg = chart::ratio(run, &present, baseline, &ratio_title);
        w.chart(dir, &format!("ratio-{stem}.svg"), svg)?;
    }
    let scaled = distinct(run.scaling.iter().map(|p| p.kernel.as_str()));
    if !scaled.is_empty() {
        let svg = chart::scaling(run, "Multi-core scaling");
        w.chart(dir, &format!("scaling-{}.svg", scaled.join("-")), svg)?;
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(memtype: &str, size: u64, best: f64) -> Measurement {
        Measurement {
            memtype: memtype.into(),
            kernel: "read-ldp".into(),
            granule: "4K".into(),
            size,
            unit: Unit::MegabytesPerSecond,
            best,
            median: best,
            cv_pct: 1.5,
            reps: 3,
            pmu: None,
            start: None,
            line_state: None,
        }
    }

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

    #[test]
    fn csv_rows_quote_what_needs_it() {
        let mut out = String::new();
        csv_row(&mut out, &[&"a,b", &"say \"x\"", &1.5, &42u64, &false, &""]);
        csv_row(&mut out, &[&"one"]);
        assert_eq!(out, "\"a,b\",\"say \"\"x\"\"\",1.5,42,false,\none\n");
    }

    #[test]
    fn every_kernel_has_exactly_one_chart() {
        let charted: Vec<&str> = CHARTS
            .iter()
            .flat_map(|(g, _)| g.iter().map(|k| k.spec().name))
            .collect();
        let known: Vec<&str> = mairbench_core::kernel::KERNELS
            .iter()
            .map(|k| k.name)
            .collect();
        let mut sorted = charted.clone();
        sorted.sort_unstable();
        let mut want = known.clone();
        want.sort_unstable();
        assert_eq!(
            sorted, want,
            "CHARTS names each kernel of core's table once"
        );
    }

    #[test]
    fn prediction_sheet_in_table_order() {
        let mut run = Run {
            measurements: vec![
                m("device-gre", 8192, 20.0),
                m("normal-wb", 4096, 100.0),
                m("normal-wb", 8192, 200.0),
                m("normal-nc", 8192, 50.0),
            ],
            ..Run::default()
        };
        let mut sheet = String::new();
        prediction_sheet(&mut sheet, &run);
        let lines: Vec<&str> = sheet.lines().collect();
        assert!(
            lines[2].split_whitespace().eq([
                "kernel",
                "normal-wb",
                "normal-nc",
                "device-gre",
                "at"
            ]),
            "{sheet}"
        );
        assert!(
            lines[3].split_whitespace().eq([
                "read-ldp", "1.000x", "0.250x", "0.100x", "8", "KiB", "(MB/s,", "higher", "is",
                "better)"
            ]),
            "{sheet}"
        );
        // Without the baseline, no sheet.
        run.measurements
            .retain(|m| m.memtype != crate::model::FIRMWARE_BASELINE);
        sheet.clear();
        prediction_sheet(&mut sheet, &run);
        assert!(sheet.is_empty(), "{sheet}");
    }

    /// A run QEMU ran under KVM is no emulated run: the header and the JSON say KVM, with
    /// the KVM note for a caveat; under TCG the caveat is the emulated one.
    #[test]
    fn kvm_runs_are_told_from_tcg() {
        let log = |start: &str| {
            crate::log::parse(
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
            verdicts: vec![crate::model::Verdict {
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
                crate::model::Verdict {
                    name: "caches-on".into(),
                    status: "fail".into(),
                    evidence: vec![("sctlr_c".into(), 0.0)],
                    why: "SCTLR_EL1.C is clear".into(),
                    core_note: None,
                },
                crate::model::Verdict {
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

    fn scaling(memtype: &str, cores: u64, skew: Option<u64>) -> crate::model::Scaling {
        crate::model::Scaling {
            memtype: memtype.into(),
            kernel: "read-ldp".into(),
            cores,
            aggregate_mbps: 1000 * cores,
            per_core_min_mbps: 900,
            per_core_max_mbps: 1100,
            span_ticks: skew.map(|s| s + 4000),
            start_skew_ticks: skew,
        }
    }

    /// The words of the table row that starts with `name`.
    fn row<'a>(t: &'a str, name: &str) -> Vec<&'a str> {
        t.lines()
            .find(|l| l.trim_start().starts_with(&format!("{name} ")))
            .unwrap_or_else(|| panic!("no {name} row in {t}"))
            .split_whitespace()
            .collect()
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

    fn loaded(memtype: &str, kernel: &str, loaded_ns: f64) -> LoadedLatency {
        LoadedLatency {
            memtype: memtype.into(),
            kernel: kernel.into(),
            cores: 4,
            bytes_per_core: 1 << 20,
            chase_memtype: "normal-wb".into(),
            chase_granule: "2M".into(),
            chase_bytes: 8 << 20,
            loads: 131072,
            idle_ns: 100.0,
            loaded_ns,
            ratio: loaded_ns / 100.0,
            stream_mbps: 3000,
            reps: 3,
        }
    }

    #[test]
    fn loaded_latency_table_csv_and_json() {
        let run = Run {
            measurements: vec![m("normal-wb", 4096, 100.0)],
            scaling: vec![scaling("normal-wb", 4, Some(1))],
            loaded_latency: vec![
                loaded("device-ngnre", "read-ldp", 250.0),
                loaded("normal-wb", "read-ldp", 999.0),
                loaded("normal-wb", "write-stp", 130.0),
                // A repeated point: the last counts.
                loaded("normal-wb", "read-ldp", 120.0),
            ],
            ..Run::default()
        };
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
        // None: no table, an empty list.
        let none = Run::default();
        assert!(!tables(&none).contains("loaded latency"));
        assert_eq!(json(&none)["loaded_latency"], json!([]));
    }

    #[test]
    fn pmu_start_and_line_state_in_the_files() {
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
        // pmu.csv is written only when a point has counts.
        let dir = std::env::temp_dir().join(format!("mairbench-host-pmu-{}", std::process::id()));
        let names = |run: &Run| -> Vec<String> {
            let _ = std::fs::remove_dir_all(&dir);
            let w = write(run, &dir).unwrap();
            w.files
                .iter()
                .filter_map(|f| f.file_name()?.to_str().map(str::to_owned))
                .filter(|f| f.ends_with(".csv"))
                .collect()
        };
        assert_eq!(names(&run), ["results.csv", "pmu.csv"]);
        let mut uncounted = run.clone();
        uncounted.measurements.iter_mut().for_each(|m| m.pmu = None);
        uncounted.loaded_latency = vec![loaded("normal-wb", "read-ldp", 120.0)];
        assert_eq!(names(&uncounted), ["results.csv", "loaded_latency.csv"]);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn labels() {
        assert_eq!(size_label(4096), "4 KiB");
        assert_eq!(size_label(3 << 20), "3 MiB");
        assert_eq!(size_label(100), "100 B");
        assert_eq!(csv_field("a,\"b"), "\"a,\"\"b\"");
    }
}
