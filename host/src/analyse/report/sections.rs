//! The report's sections after the per-kernel tables: the multi-core scaling, the loaded
//! latency and the prediction sheet.

use super::cells::{column_width, ratio_to_baseline, series_of};
use crate::read::model::{distinct, in_table_order, loaded_latency_rows, Run, Unit};
use crate::read::text::size_label;
use mairbench_core::sweep::ticks_to_ns;
use std::fmt::Write as _;

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
pub(super) fn scaling_table(out: &mut String, run: &Run) {
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

/// The loaded latency: the boot core's chase idle and while the other cores stream through
/// a memory type; rows = (streams' kernel, memory type), columns = cores, idle and loaded
/// ns per load, their ratio and the streams' MB/s. Nothing without records.
pub(super) fn loaded_latency_table(out: &mut String, run: &Run) {
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
/// value to the baseline's ([`RowKind::baseline`](crate::read::model::RowKind::baseline)) at the largest size both were
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

#[cfg(test)]
mod tests {
    use super::super::testing::m;
    use super::*;

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
            .retain(|m| m.memtype != crate::read::model::FIRMWARE_BASELINE);
        sheet.clear();
        prediction_sheet(&mut sheet, &run);
        assert!(sheet.is_empty(), "{sheet}");
    }
}
