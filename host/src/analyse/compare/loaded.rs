//! Loaded-latency points (`loaded_latency` records) compared by their `ratio` (loaded / idle
//! ns per load): B's ratio over A's, significant beyond [`MIN_CHANGE_PCT`] % (the record has
//! no spread; there are a few such points, not a thousand).

use super::judge::MIN_CHANGE_PCT;
use crate::read::model::{loaded_latency_rows, LoadedLatency, Run};
use crate::read::text::csv_row;
use std::fmt::Write as _;

/// A loaded-latency point both runs measured: same streams' kernel, memory type and core
/// count.
#[derive(Clone, Debug, PartialEq)]
pub struct LoadedChange {
    /// The streams' kernel.
    pub kernel: String,
    /// The streams' memory type.
    pub memtype: String,
    /// CPUs running (the chase and `cores - 1` streams).
    pub cores: u64,
    /// Run A's point.
    pub a: LoadedLatency,
    /// Run B's point.
    pub b: LoadedLatency,
}

impl LoadedChange {
    /// B's slowdown over A's: B's `ratio` / A's `ratio` (NaN when A's is not positive).
    pub fn change(&self) -> f64 {
        if self.a.ratio > 0.0 {
            self.b.ratio / self.a.ratio
        } else {
            f64::NAN
        }
    }

    /// Whether |change - 1| exceeds [`MIN_CHANGE_PCT`] (the rule of [`Change`](super::judge::Change) with both cvs
    /// unknown, as a `loaded_latency` record has none).
    pub fn significant(&self) -> bool {
        let c = self.change();
        c.is_finite() && (c - 1.0).abs() * 100.0 > MIN_CHANGE_PCT
    }

    /// Which run's chase suffers less from the streams: `"A"`, `"B"` or `"same"` when the
    /// change is not [significant](LoadedChange::significant) (a lower ratio is better).
    pub fn better(&self) -> &'static str {
        if !self.significant() {
            "same"
        } else if self.change() < 1.0 {
            "B"
        } else {
            "A"
        }
    }
}

/// The loaded-latency points both runs measured, in the order of A's report table (a
/// repeated point keeps the last).
pub fn loaded_changes(a: &Run, b: &Run) -> Vec<LoadedChange> {
    let in_b = loaded_latency_rows(b);
    loaded_latency_rows(a)
        .into_iter()
        .filter_map(|pa| {
            let pb = in_b.iter().find(|p| {
                (p.kernel.as_str(), p.memtype.as_str(), p.cores)
                    == (pa.kernel.as_str(), pa.memtype.as_str(), pa.cores)
            })?;
            Some(LoadedChange {
                kernel: pa.kernel.clone(),
                memtype: pa.memtype.clone(),
                cores: pa.cores,
                a: pa.clone(),
                b: (*pb).clone(),
            })
        })
        .collect()
}

/// The loaded-latency points of both runs for the terminal: every common point with both
/// ratios and idle/loaded ns, the change of the ratio and the better run; nothing when
/// neither run has loaded-latency points, one line when they have none in common.
pub fn loaded_table(a: &Run, b: &Run) -> String {
    if a.loaded_latency.is_empty() && b.loaded_latency.is_empty() {
        return String::new();
    }
    let changes = loaded_changes(a, b);
    if changes.is_empty() {
        return format!(
            "loaded latency: no point in common (same streams' kernel, memory type and cores; \
             {} in A, {} in B)\n",
            a.loaded_latency.len(),
            b.loaded_latency.len()
        );
    }
    let mut out = format!(
        "loaded latency: ratio = loaded / idle ns per load of the boot core's chase; B/A of \
         the ratios counts when |B/A - 1| > {MIN_CHANGE_PCT:.0} %\n\
         {:<11}{:<16}{:>6}{:>22}{:>22}{:>9}{:>9}{:>9}  better\n",
        "streams",
        "memory type",
        "cores",
        "A idle/loaded (ns)",
        "B idle/loaded (ns)",
        "A",
        "B",
        "B/A"
    );
    for c in &changes {
        let pair = |p: &LoadedLatency| format!("{:.2}/{:.2}", p.idle_ns, p.loaded_ns);
        let _ = writeln!(
            out,
            "{:<11}{:<16}{:>6}{:>22}{:>22}{:>8.3}x{:>8.3}x{:>8.3}x  {} (lower ratio is better)",
            c.kernel,
            c.memtype,
            c.cores,
            pair(&c.a),
            pair(&c.b),
            c.a.ratio,
            c.b.ratio,
            c.change(),
            c.better()
        );
    }
    out
}

/// `compare-loaded-latency.csv`: one row per loaded-latency point both runs measured, in
/// [`loaded_changes`]' order (ns per load; the ratios are loaded / idle).
pub fn loaded_csv(changes: &[LoadedChange]) -> String {
    let mut out = String::from(
        "kernel,memtype,cores,a_idle_ns,a_loaded_ns,a_ratio,b_idle_ns,b_loaded_ns,b_ratio,\
         ratio_b_over_a,better,threshold_pct\n",
    );
    for c in changes {
        csv_row(
            &mut out,
            &[
                &c.kernel,
                &c.memtype,
                &c.cores,
                &c.a.idle_ns,
                &c.a.loaded_ns,
                &c.a.ratio,
                &c.b.idle_ns,
                &c.b.loaded_ns,
                &c.b.ratio,
                &c.change(),
                &c.better(),
                &MIN_CHANGE_PCT,
            ],
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A `read-ldp` loaded-latency point of `memtype` with `cores` and a loaded/idle `ratio`.
    fn point(memtype: &str, cores: u64, ratio: f64) -> LoadedLatency {
        LoadedLatency {
            memtype: memtype.into(),
            kernel: "read-ldp".into(),
            cores,
            bytes_per_core: 1 << 20,
            chase_memtype: "normal-wb".into(),
            chase_granule: "2M".into(),
            chase_bytes: 8 << 20,
            loads: 131072,
            idle_ns: 100.0,
            loaded_ns: 100.0 * ratio,
            ratio,
            stream_mbps: 3000,
            reps: 3,
        }
    }

    /// Runs A and B: one point within 5 %, one worse, one better, one at another core count.
    fn pair() -> (Run, Run) {
        let a = Run {
            loaded_latency: vec![
                point("normal-wb", 4, 1.20),
                point("normal-nc", 4, 1.20),
                point("device-ngnre", 4, 2.00),
                point("device-gre", 4, 1.50),
            ],
            ..Run::default()
        };
        let b = Run {
            loaded_latency: vec![
                // 1.22 / 1.20: 1.7 %, within 5 %.
                point("normal-wb", 4, 1.22),
                // 1.30 / 1.20: 8.3 % worse.
                point("normal-nc", 4, 1.30),
                // 1.50 / 2.00: 25 % better.
                point("device-ngnre", 4, 1.50),
                // Another core count: not the same point.
                point("device-gre", 2, 1.10),
            ],
            ..Run::default()
        };
        (a, b)
    }

    #[test]
    fn loaded_latency_by_the_ratio() {
        let (a, b) = pair();
        let c = loaded_changes(&a, &b);
        let seen: Vec<_> = c.iter().map(|c| (c.memtype.as_str(), c.better())).collect();
        assert_eq!(
            seen,
            [
                ("normal-wb", "same"),
                ("normal-nc", "A"),
                ("device-ngnre", "B")
            ]
        );
        assert!((c[2].change() - 0.75).abs() < 1e-12);
        let csv = loaded_csv(&c);
        assert_eq!(
            csv.lines().nth(3),
            Some("read-ldp,device-ngnre,4,100,200,2,100,150,1.5,0.75,B,5")
        );
    }

    #[test]
    fn loaded_latency_table() {
        let (a, b) = pair();
        let t = loaded_table(&a, &b);
        assert!(t.contains("counts when |B/A - 1| > 5 %"), "{t}");
        let words: Vec<&str> = t.lines().nth(4).unwrap().split_whitespace().collect();
        assert_eq!(
            words,
            [
                "read-ldp",
                "device-ngnre",
                "4",
                "100.00/200.00",
                "100.00/150.00",
                "2.000x",
                "1.500x",
                "0.750x",
                "B",
                "(lower",
                "ratio",
                "is",
                "better)"
            ],
            "{t}"
        );
        // Nothing in common: one line; neither has points: nothing.
        let other = Run {
            loaded_latency: vec![point("device-gre", 2, 1.1)],
            ..Run::default()
        };
        assert_eq!(
            loaded_table(&a, &other),
            "loaded latency: no point in common (same streams' kernel, memory type and cores; 4 in A, 1 in B)\n"
        );
        assert_eq!(loaded_table(&Run::default(), &Run::default()), "");
    }
}
