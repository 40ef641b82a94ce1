//! The report's sections on the kinds of core and on the CPUs' pairs: one row per cluster
//! (its CPUs, core, capacity, headline figures and verdicts), each other cluster's own sweep,
//! and the core-to-core latency matrix.

use crate::read::model::{distinct, Cluster, Run, FIRMWARE_BASELINE};
use crate::read::text::{csv_row, or_dash, size_label};
use mairbench_core::kernel::Kernel;
use std::fmt::Write as _;

/// The sweep a cluster's figures come from: the run's own for the boot CPU's cluster, its
/// own for a swept one, none for a cluster with no CPU running.
pub fn sweep_of<'r>(run: &'r Run, c: &'r Cluster) -> Option<&'r Run> {
    match c.role.as_str() {
        "boot" => Some(run),
        "swept" => Some(&c.sweep),
        _ => None,
    }
}

/// `kernel` on `normal-wb` (pages) at the smallest and the largest size it was measured at.
fn ends(run: &Run, kernel: &str) -> Option<(f64, f64)> {
    let mut points: Vec<_> = run
        .measurements
        .iter()
        .filter(|m| m.kernel == kernel && m.memtype == FIRMWARE_BASELINE && m.granule == "4K")
        .collect();
    points.sort_by_key(|m| m.size);
    Some((points.first()?.best, points.last()?.best))
}

/// `fail N, warn N, pass N` of a run's verdicts (the statuses it has), or `-`.
fn verdict_counts(run: &Run) -> String {
    let counts: Vec<String> = ["fail", "warn", "pass", "n/a"]
        .iter()
        .map(|s| (s, run.verdicts.iter().filter(|v| v.status == *s).count()))
        .filter(|(_, n)| *n > 0)
        .map(|(s, n)| format!("{s} {n}"))
        .collect();
    if counts.is_empty() {
        "-".into()
    } else {
        counts.join(", ")
    }
}

/// One row per cluster. Nothing without `cluster` records.
pub(super) fn clusters_section(out: &mut String, run: &Run) {
    if run.clusters.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nclusters: one row per kind of core; read-ldp (read-ldm on armv7) on normal-wb in MB/s at the smallest \
         and largest size (MB = 10^6 B), latency in ns at the largest (docs/output.md)"
    );
    let _ = writeln!(
        out,
        "  {:<7}  {:>4}  {:<16}  {:>8}  {:<10}  {:>10}  {:<11}  {:>9}  {:>9}  {:>9}  verdicts",
        "cluster",
        "cpus",
        "core",
        "capacity",
        "MIDR",
        "last cache",
        "role",
        "read min",
        "read max",
        "latency"
    );
    for c in &run.clusters {
        let sweep = sweep_of(run, c);
        // A cluster's sweep is the run's architecture's: its kernels go by the run's names.
        let of = |k: Kernel| sweep.zip(run.kernel_name(k)).and_then(|(r, k)| ends(r, k));
        let read = of(Kernel::ReadLdp);
        let latency = of(Kernel::Latency).map(|(_, l)| l);
        let cell =
            |v: Option<f64>, places: usize| v.map_or("-".into(), |v| format!("{v:.places$}"));
        let _ = writeln!(
            out,
            "  {:<7}  {:>4}  {:<16}  {:>8}  {:<10}  {:>10}  {:<11}  {:>9}  {:>9}  {:>9}  {}",
            c.index,
            c.cpus,
            c.compatible.as_deref().map_or("-", or_dash),
            c.capacity.map_or("-".into(), |v| v.to_string()),
            c.midr.as_deref().map_or("-", or_dash),
            c.last_cache.map_or("-".into(), size_label),
            c.role,
            cell(read.map(|r| r.0), 0),
            cell(read.map(|r| r.1), 0),
            cell(latency, 2),
            sweep.map_or("-".into(), verdict_counts)
        );
    }
}

/// The heading of swept cluster `c`'s own verdicts and tables (which the report's body
/// prints after [`clusters_section`]).
pub(super) fn sweep_heading(out: &mut String, c: &Cluster) {
    let _ = writeln!(
        out,
        "\ncluster {}: its sweep on CPU {} ({}), as the boot CPU's above",
        c.index,
        c.representative,
        c.compatible.as_deref().unwrap_or("no compatible")
    );
}

/// The core-to-core latency matrix: rows from, columns to, one-way ns. Nothing without
/// `core_to_core` records.
pub(super) fn core_to_core_table(out: &mut String, run: &Run) {
    let pairs = &run.core_to_core;
    let Some(first) = pairs.first() else {
        return;
    };
    let froms = distinct(pairs.iter().map(|p| p.from.as_str()));
    let tos = distinct(pairs.iter().map(|p| p.to.as_str()));
    let _ = writeln!(
        out,
        "\ncore-to-core: one cache line bounced between each pair of CPUs, {} round trips; ns \
         per one-way hop (half a round trip){}",
        first.rounds,
        if run.emulated {
            " (emulated: QEMU's vCPU threads, not a coherence fabric)"
        } else {
            ""
        }
    );
    let _ = write!(out, "  {:>10}", "from \\ to");
    for to in &tos {
        let _ = write!(out, " {to:>10}");
    }
    out.push('\n');
    for from in &froms {
        let _ = write!(out, "  {from:>10}");
        for to in &tos {
            let cell = pairs
                .iter()
                .find(|p| &p.from == from && &p.to == to)
                .map(|p| p.ns_per_hop.map_or("-".into(), |ns| format!("{ns:.2}")))
                .unwrap_or_default();
            let _ = write!(out, " {cell:>10}");
        }
        out.push('\n');
    }
}

/// `core_to_core.csv`: one row per pair (`ns_per_hop` empty when it did not finish).
pub fn core_to_core_csv(run: &Run) -> String {
    let mut out = String::from("from,to,from_cluster,to_cluster,rounds,ns_per_hop\n");
    let opt = |v: Option<u64>| v.map_or(String::new(), |v| v.to_string());
    for p in &run.core_to_core {
        csv_row(
            &mut out,
            &[
                &p.from,
                &p.to,
                &opt(p.from_cluster),
                &opt(p.to_cluster),
                &p.rounds,
                &p.ns_per_hop.map_or(String::new(), |ns| format!("{ns:.2}")),
            ],
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::log::parse;

    /// A big.LITTLE log, shaped as the firmware writes it: two clusters, the second swept.
    const LOG: &[u8] = br#"@mb {"kind":"start","schema":1,"platform":"rk3399","emulated":false,"midr":"0x410fd034"}
@mb {"kind":"cache","level":1,"type":"separate","size":32768,"line":64,"ways":4,"sets":128}
@mb {"kind":"result","memtype":"normal-wb","kernel":"read-ldp","granule":"4K","size":4096,"reps":3,"cv_pct":1.0,"best_mbps":9000,"median_mbps":8900}
@mb {"kind":"result","memtype":"normal-wb","kernel":"read-ldp","granule":"4K","size":33554432,"reps":3,"cv_pct":1.0,"best_mbps":2500,"median_mbps":2400}
@mb {"kind":"verdict","name":"caches-on","status":"pass","evidence":{},"why":"on"}
@mb {"kind":"cluster","cluster":0,"group":0,"cpus":4,"representative":"0x0","capacity":485,"compatible":"arm,cortex-a53","midr":"0x410fd034","last_cache":524288,"source":"cpu-map","role":"boot"}
@mb {"kind":"cluster","cluster":1,"group":1,"cpus":2,"representative":"0x100","capacity":1024,"compatible":"arm,cortex-a72","midr":"0x410fd082","last_cache":1048576,"source":"cpu-map","role":"swept"}
@mb {"kind":"core_to_core","from":"0x0","to":"0x1","from_cluster":0,"to_cluster":0,"rounds":1000,"ticks":120000,"freq_hz":24000000,"ns_per_hop":62.50}
@mb {"kind":"core_to_core","from":"0x0","to":"0x100","from_cluster":0,"to_cluster":1,"rounds":1000,"ticks":null,"freq_hz":24000000,"ns_per_hop":null}
@mb {"kind":"core_to_core","from":"0x1","to":"0x100","from_cluster":0,"to_cluster":1,"rounds":1000,"ticks":480000,"freq_hz":24000000,"ns_per_hop":250.00}
@mb {"kind":"cache","cluster":1,"level":2,"type":"unified","size":1048576,"line":64,"ways":16,"sets":1024}
@mb {"kind":"result","cluster":1,"memtype":"normal-wb","kernel":"read-ldp","granule":"4K","size":4096,"reps":3,"cv_pct":1.0,"best_mbps":20000,"median_mbps":19000}
@mb {"kind":"result","cluster":1,"memtype":"normal-wb","kernel":"read-ldp","granule":"4K","size":33554432,"reps":3,"cv_pct":1.0,"best_mbps":4000,"median_mbps":3900}
@mb {"kind":"verdict","cluster":1,"name":"caches-on","status":"fail","evidence":{},"why":"off"}
@mb {"kind":"end","status":"fail"}
"#;

    #[test]
    fn a_row_per_cluster_each_from_its_own_sweep() {
        let run = parse(LOG).run;
        // The other cluster's records stay out of the run's own figures.
        assert_eq!(run.measurements.len(), 2);
        assert_eq!(run.verdicts.len(), 1);
        assert_eq!(run.clusters[1].sweep.measurements.len(), 2);
        assert_eq!(run.clusters[1].sweep.midr, "0x410fd082");
        let mut out = String::new();
        clusters_section(&mut out, &run);
        sweep_heading(&mut out, &run.clusters[1]);
        let rows: Vec<&str> = out
            .lines()
            .filter(|l| l.starts_with("  0 ") || l.starts_with("  1 "))
            .collect();
        assert_eq!(rows.len(), 2, "{out}");
        assert!(
            rows[0].contains("arm,cortex-a53")
                && rows[0].contains("9000")
                && rows[0].contains("2500"),
            "{out}"
        );
        assert!(rows[0].contains("pass 1"), "{out}");
        assert!(
            rows[1].contains("arm,cortex-a72")
                && rows[1].contains("20000")
                && rows[1].contains("4000"),
            "{out}"
        );
        assert!(rows[1].contains("fail 1"), "{out}");
        assert!(
            out.contains("cluster 1: its sweep on CPU 0x100 (arm,cortex-a72)"),
            "{out}"
        );
    }

    #[test]
    fn the_matrix_has_a_cell_per_pair_and_a_dash_where_it_gave_up() {
        let run = parse(LOG).run;
        let mut out = String::new();
        core_to_core_table(&mut out, &run);
        let lines: Vec<&str> = out.lines().skip(1).collect();
        assert!(
            lines[1].contains("0x1") && lines[1].contains("0x100"),
            "{out}"
        );
        assert!(
            lines[2].contains("62.50") && lines[2].trim_end().ends_with('-'),
            "{out}"
        );
        assert!(lines[3].trim_end().ends_with("250.00"), "{out}");
        let csv = core_to_core_csv(&run);
        assert_eq!(csv.lines().nth(2), Some("0x0,0x100,0,1,1000,"));
        assert_eq!(csv.lines().count(), 4);
    }
}
