//! All the cores: PSCI CPU_ON (or a spin-table release) starts every CPU of /cpus, each
//! reports from EL1 on its own stacks with the boot CPU's tables and then runs its share of
//! the scaling measurements; a CPU that cannot start is named by MPIDR and the run goes on.
//! Every CPU's regime registers equal the boot CPU's, tokens cross cores through a shared
//! write-back line, and the loaded latency runs with two or more CPUs. (No speed is
//! compared.) Big counts run a reduced benchmark to stay within CI's budget. The runs are
//! the boot matrix's (matrix.rs), which also holds the CPU that cannot start, the scaling
//! with nothing to run and more CPUs than a GICv2 serves.

use crate::common;
use crate::common::{boot, Run};
use crate::matrix;
use serde_json::Value;

/// The one check record called `name`.
fn check<'r>(run: &'r Run, name: &str) -> &'r Value {
    let found: Vec<_> = run
        .of_kind("check")
        .into_iter()
        .filter(|c| c["name"] == name)
        .collect();
    assert_eq!(found.len(), 1, "{name} checks in:\n{}", run.console);
    found[0]
}

fn decimal(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Every `hello` record carries SCTLR_EL1, MAIR_EL1, TCR_EL1 (those of the `mmu` record,
/// written by the boot CPU, formatted alike) and TTBR0_EL1 (one for all), and the checks
/// that compare them, pass tokens through a shared line and compare the counters say so for
/// `n` CPUs.
fn same_registers_and_shared_line(run: &Run, n: usize) {
    let mmu = run.one("mmu");
    let hellos = run.of_kind("hello");
    assert_eq!(hellos.len(), n);
    let ttbr0 = &hellos[0]["ttbr0"];
    assert!(
        ttbr0.as_str().is_some_and(|t| t.starts_with("0x")),
        "{ttbr0}"
    );
    for h in &hellos {
        for reg in ["sctlr", "mair", "tcr"] {
            assert_eq!(h[reg], mmu[reg], "{reg} of {h} vs {mmu}");
        }
        assert_eq!(&h["ttbr0"], ttbr0, "{h}");
    }
    if n == 1 {
        assert!(run.of_kind("check").iter().all(|c| ![
            "smp-registers",
            "smp-shared-line",
            "smp-counters"
        ]
        .contains(&c["name"].as_str().unwrap_or(""))));
        assert!(
            run.console.contains(
                "smp: one CPU running: no registers to compare, no shared-line or counter test"
            ),
            "{}",
            run.console
        );
        return;
    }
    let regs = check(run, "smp-registers");
    assert_eq!(regs["ok"], true, "{regs}");
    assert_eq!(
        regs["detail"],
        format!(
            "{} secondary CPUs: SCTLR_EL1, MAIR_EL1, TCR_EL1 and TTBR0_EL1 equal the boot CPU's",
            n - 1
        )
    );
    // Each secondary's counter: its own CNTFRQ_EL0 is the boot CPU's, and the rounds allow
    // an offset of 0 (QEMU's CPUs read one host clock).
    let freq = run.one("timer")["freq_hz"].clone();
    let counters = run.of_kind("counter");
    assert_eq!(counters.len(), n - 1, "{}", run.console);
    for c in &counters {
        assert_eq!(c["cntfrq_hz"], freq, "{c}");
        assert_eq!(c["rounds"], 8, "{c}");
        let (min, max) = (&c["offset_min_ticks"], &c["offset_max_ticks"]);
        let (min, max) = (min.as_i64().unwrap(), max.as_i64().unwrap());
        assert!(min <= 0 && 0 <= max, "{c}");
        let trip = c["round_trip_ticks"].as_u64().unwrap();
        assert!(
            (max - min) as u64 <= trip,
            "a bound no wider than its round trip: {c}"
        );
    }
    let counted = check(run, "smp-counters");
    assert_eq!(counted["ok"], true, "{counted}");
    assert!(
        counted["detail"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{n} CPUs: CNTFRQ_EL0 {freq} Hz on each")),
        "{counted}"
    );
    let line = check(run, "smp-shared-line");
    assert_eq!(line["ok"], true, "{line}");
    assert!(
        line["detail"]
            .as_str()
            .unwrap()
            .starts_with(&format!("{n} CPUs exchanged tokens")),
        "{line}"
    );
}

/// Every `scaling` record's aggregate is its bytes over its span, recomputed from its own
/// fields and the timer's frequency (MB = 10^6 B, rounded to the nearest), and its start
/// skew lies within the span.
fn scaling_aggregates_are_bytes_over_span(run: &Run) {
    let freq = run.one("timer")["freq_hz"].as_u64().unwrap() as f64;
    let scaling = run.of_kind("scaling");
    assert!(!scaling.is_empty(), "{}", run.console);
    for s in scaling {
        let field = |k: &str| s[k].as_u64().unwrap_or_else(|| panic!("{k} in {s}"));
        let (span, skew, cores) = (
            field("span_ticks"),
            field("start_skew_ticks"),
            field("cores"),
        );
        assert!(span > 0 && skew < span, "{s}");
        let bytes = (field("bytes_per_core") * cores) as f64;
        let expect = bytes * freq / span as f64 / 1e6;
        let got = field("aggregate_mbps") as f64;
        assert!(
            (got - expect).abs() <= 0.5 + 1e-9 * expect,
            "{s}: {expect:.3} MB/s"
        );
        if cores == 1 {
            assert_eq!(skew, 0, "{s}");
        }
        // The span covers every core's own time: the aggregate is at most cores x the
        // slowest core's bandwidth (+1 each for rounding).
        assert!(
            field("aggregate_mbps") <= cores * (field("per_core_min_mbps") + 1),
            "{s}"
        );
    }
}

/// With `n` CPUs: a `loaded_latency` record per (stream kernel, type) expected, each
/// self-consistent, and the check passed; with one CPU none, and the console says why.
fn loaded_latency(run: &Run, n: usize, kernels: &[&str], types: &[&str]) {
    let records = run.of_kind("loaded_latency");
    if n == 1 {
        assert!(records.is_empty(), "{}", run.console);
        assert!(
            run.console.contains(
                "loaded latency: not run (one CPU running: no other core to load memory with)"
            ),
            "{}",
            run.console
        );
        return;
    }
    let seen: Vec<(&str, &str)> = records
        .iter()
        .map(|r| {
            (
                r["kernel"].as_str().unwrap(),
                r["memtype"].as_str().unwrap(),
            )
        })
        .collect();
    let expected: Vec<(&str, &str)> = kernels
        .iter()
        .flat_map(|k| types.iter().map(move |t| (*k, *t)))
        .collect();
    assert_eq!(seen, expected, "{}", run.console);
    for r in &records {
        assert_eq!(r["cores"], n as u64, "{r}");
        assert_eq!(r["chase_memtype"], "normal-wb", "{r}");
        assert!(["4K", "2M"].contains(&r["chase_granule"].as_str().unwrap()));
        let chase = r["chase_bytes"].as_u64().unwrap();
        assert!(chase.is_power_of_two() && chase >= 256 << 10, "{r}");
        assert!(r["loads"].as_u64().unwrap() > 0 && r["reps"].as_u64().unwrap() > 0);
        assert!(r["stream_mbps"].as_u64().unwrap() > 0, "{r}");
        let (idle, loaded) = (decimal(&r["idle_ns"]), decimal(&r["loaded_ns"]));
        assert!(idle > 0.0 && loaded > 0.0, "{r}");
        let ratio = decimal(&r["ratio"]);
        assert!((ratio - loaded / idle).abs() <= 0.001 + ratio * 1e-3, "{r}");
    }
    assert_eq!(check(run, "loaded-latency")["ok"], true);
}

/// The memory types the loaded latency streams through, in table order.
const LOADED: [&str; 3] = ["normal-wb", "normal-nc", "device-ngnre"];

fn four_cores(el: &str) {
    let run = matrix::run(&format!("four_cores_from_el{el}"));
    run.assert_pass();
    let hellos = run.of_kind("hello");
    let mpidrs: Vec<_> = hellos
        .iter()
        .map(|h| h["mpidr"].as_str().unwrap())
        .collect();
    assert_eq!(mpidrs, ["0x0", "0x1", "0x2", "0x3"], "{}", run.console);
    for h in &hellos {
        assert_eq!(h["el"], 1);
        assert_eq!(h["entry_el"].to_string(), el);
    }
    assert!(run.of_kind("cpu").is_empty());
    assert_eq!(run.one("end")["warnings"], 0);
    run.assert_memory_proven();
    // Read and write kernels on 1..4 cores at once, over disjoint parts of every alias.
    let scaling = run.of_kind("scaling");
    assert_eq!(scaling.len(), 2 * 8 * 4, "{}", run.console);
    for s in &scaling {
        let cores = s["cores"].as_u64().unwrap();
        assert!((1..=4).contains(&cores));
        assert!(s["aggregate_mbps"].as_u64().unwrap() > 0, "{s}");
        assert!(
            s["per_core_min_mbps"].as_u64().unwrap() <= s["per_core_max_mbps"].as_u64().unwrap()
        );
    }
    assert_eq!(check(run, "scaling")["ok"], true);
    scaling_aggregates_are_bytes_over_span(run);
    same_registers_and_shared_line(run, 4);
    loaded_latency(run, 4, &["read-ldp", "write-stp"], &LOADED);
}

#[test]
fn four_cores_from_el1() {
    four_cores("1");
}

#[test]
fn four_cores_from_el2() {
    four_cores("2");
}

/// `n` CPUs on virt: every one says hello once, from EL1, with its MIDR; none is refused.
/// The run is the boot matrix's `row`.
fn every_cpu_says_hello(n: usize, row: &str) {
    let (run, bootargs) = (matrix::run(row), matrix::row_named(row).bootargs);
    run.assert_pass();
    let hellos = run.of_kind("hello");
    let mut mpidrs: Vec<u64> = hellos
        .iter()
        .map(|h| {
            u64::from_str_radix(h["mpidr"].as_str().unwrap().trim_start_matches("0x"), 16).unwrap()
        })
        .collect();
    mpidrs.sort_unstable();
    mpidrs.dedup();
    assert_eq!(mpidrs.len(), n, "{}", run.console);
    for h in &hellos {
        assert_eq!(h["el"], 1);
        assert_eq!(h["midr"], run.one("start")["midr"], "{h}");
    }
    let blocks: Vec<u64> = hellos.iter().map(|h| h["cpu"].as_u64().unwrap()).collect();
    assert_eq!(blocks, (0..n as u64).collect::<Vec<_>>());
    assert!(run.of_kind("cpu").is_empty(), "{}", run.console);
    assert_eq!(run.one("end")["warnings"], 0);
    assert!(run
        .console
        .contains(&format!("cpus: {n} of {n} running at EL1")));
    run.assert_memory_proven();
    same_registers_and_shared_line(run, n);
    if bootargs.contains(&"mairbench.kernels=read-ldp") {
        loaded_latency(run, n, &["read-ldp"], &["normal-wb"]);
    } else {
        loaded_latency(run, n, &["read-ldp", "write-stp"], &LOADED);
    }
    if n > 1 {
        scaling_aggregates_are_bytes_over_span(run);
        let most = run
            .of_kind("scaling")
            .iter()
            .map(|s| s["cores"].as_u64().unwrap())
            .max();
        assert_eq!(most, Some(n as u64), "the scaling reaches every core");
        // Only the selected kernels scale.
        if bootargs.contains(&"mairbench.kernels=read-ldp") {
            for s in run.of_kind("scaling") {
                assert_eq!(s["kernel"], "read-ldp", "{s}");
            }
        }
    }
}

#[test]
fn one_two_and_three_cpus() {
    for (n, row) in [
        (1, "kernel_a72_el1"),
        (2, "two_cpus_quick"),
        (3, "three_cpus_quick"),
    ] {
        every_cpu_says_hello(n, row);
    }
}

#[test]
fn six_cpus_as_on_an_rk3399() {
    every_cpu_says_hello(6, "six_cpus_reduced");
}

#[test]
fn eight_cpus_the_most_a_gicv2_serves() {
    every_cpu_says_hello(8, "eight_cpus_reduced");
}

#[test]
fn sixteen_cpus_with_a_gicv3() {
    // qemu/run picks gic-version=3 above eight CPUs; the scaling measures 1, 2, 4, 8, 16.
    every_cpu_says_hello(16, "sixteen_cpus_reduced");
}

#[test]
fn the_pi_3s_spin_table_releases_all_four_cores() {
    // The Pi 3B's quick run, the boot matrix's.
    let run = matrix::run("raspi3b_with_the_boards_own_device_tree");
    run.assert_pass();
    let hellos = run.of_kind("hello");
    let mpidrs: Vec<_> = hellos
        .iter()
        .map(|h| h["mpidr"].as_str().unwrap())
        .collect();
    assert_eq!(mpidrs, ["0x0", "0x1", "0x2", "0x3"], "{}", run.console);
    assert!(hellos
        .iter()
        .all(|h| h["entry_el"] == 2 && h["midr"] == "0x410fd034"));
    assert!(run.of_kind("cpu").is_empty(), "{}", run.console);
    same_registers_and_shared_line(run, 4);
    // Released with the MMU off: the armstub's page (the release words) is not mapped.
    assert!(run
        .of_kind("map")
        .iter()
        .all(|m| m["what"] != "cpu-release-addr"));
}

/// A bigger machine is not bad input: QEMU's own device tree of a 300-CPU virt machine
/// (`dumpdtb`), booted on one CPU. The firmware asks PSCI for the first 255 others (each
/// refused, each named), counts the 44 beyond its 256 and says so, and the run goes on.
#[test]
fn three_hundred_cpus_in_the_device_tree_are_named_not_a_crash() {
    let dtb = std::path::PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join(format!("{}-virt-300-cpus.dtb", std::process::id()));
    common::dumpdtb(
        "virt,gic-version=3",
        &["-cpu", "cortex-a72", "-smp", "300", "-m", "256M"],
        &dtb,
    );
    let run = boot(
        &[
            ("MAIRBENCH_DTB", dtb.to_str().unwrap()),
            ("MAIRBENCH_GIC", "3"),
        ],
        matrix::REDUCED,
    );
    run.assert_pass();
    assert_eq!(run.of_kind("hello").len(), 1, "{}", run.console);
    let refused = run.of_kind("cpu");
    assert_eq!(refused.len(), 255, "{}", run.console);
    assert!(refused.iter().all(|c| c["started"] == false
        && c["why"]
            .as_str()
            .unwrap()
            .starts_with("PSCI CPU_ON returned")));
    assert!(
        run.console
            .contains("cpus: 44 more CPUs in /cpus beyond the firmware's 256: not started"),
        "{}",
        run.console
    );
    assert!(run.console.contains("cpus: 1 of 300 running at EL1"));
    // 255 refusals, the CPUs beyond the cap, the smp-config verdict.
    assert_eq!(run.one("end")["warnings"], 255 + 1 + 1);
    let _ = std::fs::remove_file(&dtb);
}

/// A big.LITTLE board's clusters, as QEMU can show them: its device tree's `cpu-map` puts
/// the four CPUs in two clusters with different `capacity-dmips-mhz` (QEMU runs one CPU model,
/// so the clusters differ in the tree alone). The boot CPU's sweep is the run's own; the other
/// cluster is swept again on its representative, a secondary CPU, whose records carry its
/// cluster, and judged on the verdicts each cluster has.
#[test]
fn the_cluster_the_boot_cpu_is_not_in_is_swept_on_its_own_cpu() {
    let dtb = common::dtb::virt_two_clusters("two-clusters.dtb");
    let dtb = dtb.to_str().unwrap();
    let run = boot(
        &[("MAIRBENCH_SMP", "4"), ("MAIRBENCH_DTB", dtb)],
        &[
            "mairbench.quick",
            "mairbench.kernels=read-ldp,latency",
            "mairbench.types=normal-wb,normal-nc",
        ],
    );
    run.assert_pass();
    let clusters = run.of_kind("cluster");
    let field = |c: &Value, k: &str| c[k].to_string();
    let rows: Vec<_> = clusters
        .iter()
        .map(|c| {
            [
                "cluster",
                "cpus",
                "representative",
                "capacity",
                "source",
                "role",
            ]
            .map(|k| field(c, k))
            .join(" ")
        })
        .collect();
    assert_eq!(
        rows,
        [
            "0 2 \"0x0\" 485 \"cpu-map\" \"boot\"",
            "1 2 \"0x2\" 1024 \"cpu-map\" \"swept\""
        ],
        "{}",
        run.console
    );
    // The second cluster's sweep: every point the boot CPU measured, measured again on CPU
    // 0x2 and verified; its own caches and timer; no PMU counts (its PMU is not programmed).
    let results = run.results();
    let key = |r: &Value| {
        format!(
            "{} {} {} {}",
            r["kernel"], r["memtype"], r["granule"], r["size"]
        )
    };
    let measured = |cluster: Option<u64>| {
        let mut keys: Vec<_> = results
            .iter()
            .filter(|r| r.get("skipped").is_none())
            .filter(|r| r.get("cluster").and_then(Value::as_u64) == cluster)
            .map(|r| key(r))
            .collect();
        keys.sort();
        keys
    };
    assert!(!measured(None).is_empty());
    assert_eq!(measured(Some(1)), measured(None), "{}", run.console);
    for r in results.iter().filter(|r| r.get("cluster").is_some()) {
        assert_eq!(r["integrity"], "ok", "{r}");
        assert_eq!(r["pmu"], Value::Null, "{r}");
    }
    let on = |kind: &str| {
        run.of_kind(kind)
            .into_iter()
            .filter(|r| r.get("cluster").is_some())
            .count()
    };
    assert_eq!(
        on("cache"),
        run.of_kind("cache").len() / 2,
        "{}",
        run.console
    );
    assert_eq!(on("timer"), 1);
    // Its verdicts: those judged per cluster, once each; the machine's were judged once.
    let verdicts = |cluster: bool| {
        run.of_kind("verdict")
            .iter()
            .filter(|v| v.get("cluster").is_some() == cluster)
            .map(|v| v["name"].as_str().unwrap().to_owned())
            .collect::<Vec<_>>()
    };
    let per_cluster: Vec<_> = mairbench_core::verdict::VERDICTS
        .iter()
        .filter(|s| s.scope == mairbench_core::verdict::Scope::Core)
        .map(|s| s.id.to_owned())
        .collect();
    assert_eq!(verdicts(true), per_cluster);
    assert_eq!(
        verdicts(false).len(),
        mairbench_core::verdict::VERDICTS.len()
    );
}
