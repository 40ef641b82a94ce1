//! Runs the report's tests build (and `write::report`'s).

use crate::read::model::{LoadedLatency, Measurement, Run, Scaling, Unit};

/// A `read-ldp` point of `memtype` at `size` (cv 1.5 %, best of 3).
pub(crate) fn m(memtype: &str, size: u64, best: f64) -> Measurement {
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

/// A `read-ldp` scaling point of `memtype` with `cores` at once, 1000 MB/s a core.
pub(crate) fn scaling(memtype: &str, cores: u64, skew: Option<u64>) -> Scaling {
    Scaling {
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
pub(crate) fn row<'a>(t: &'a str, name: &str) -> Vec<&'a str> {
    t.lines()
        .find(|l| l.trim_start().starts_with(&format!("{name} ")))
        .unwrap_or_else(|| panic!("no {name} row in {t}"))
        .split_whitespace()
        .collect()
}

/// A loaded-latency point: 100 ns idle, `loaded_ns` loaded, with 4 cores.
pub(crate) fn loaded(memtype: &str, kernel: &str, loaded_ns: f64) -> LoadedLatency {
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

/// A run with loaded-latency points (a repeated one: the last counts) and one scaling point.
pub(crate) fn loaded_run() -> Run {
    Run {
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
    }
}
