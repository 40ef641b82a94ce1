//! The `cargo host` command line on checked-in logs (golden files produced by the real
//! firmware in QEMU, a hand-made board log, a truncated one) and on broken inputs; plus one
//! end-to-end `run` in QEMU.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common::tool::{self, data, Done};

fn scratch(name: &str) -> PathBuf {
    tool::scratch("cli", name)
}

fn host(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_mairbench-host"))
        .args(args)
        .output()
        .expect("the host tool starts")
}

fn report(log: &Path, test: &str) -> Done {
    tool::run("cli", &["report".as_ref(), log.as_os_str()], test)
}

/// The one sentence on stderr (notes about skipped lines come before it).
fn sentence(d: &Done) -> &str {
    d.stderr.lines().last().unwrap_or_default()
}

#[test]
fn quick_log_report() {
    let d = report(&data("qemu-quick.log"), "quick");
    assert_eq!(d.code, Some(0), "{}", d.stderr);
    let rows = d.csv_rows("results.csv");
    assert_eq!(rows.len(), 2 * 8 * 3);
    assert_eq!(
        rows[0],
        "read-ldp,normal-wb,4K,4096,mbps,12196,12170,0.2,3,invalidated,,true"
    );
    assert!(rows.contains(
        &"read-ldp,normal-wb,4K,4194304,mbps,6658,6654,3.8,3,invalidated,,true".to_owned()
    ));
    assert!(
        d.stdout.contains("read-ldp (MB/s, best of 3; MB = 10^6 B)"),
        "{}",
        d.stdout
    );
    assert!(d
        .stdout
        .contains("QEMU models no caches: these timings do not reflect memory types"));
    let json: serde_json::Value = serde_json::from_str(&d.file("results.json")).unwrap();
    assert_eq!(json["platform"], "linux,dummy-virt");
    assert_eq!(json["emulated"], true);
    assert_eq!(
        json["caveat"],
        "QEMU models no caches: these timings do not reflect memory types"
    );
    assert_eq!(json["status"], "pass");
    assert_eq!(json["caches"].as_array().unwrap().len(), 2);
    assert_eq!(json["measurements"].as_array().unwrap().len(), 48);
    assert!(d.out.join("read-ldp-write-stp.svg").is_file());
    assert!(d.out.join("ratio-read-ldp-write-stp.svg").is_file());
    assert!(
        !d.out.join("scaling.csv").exists(),
        "one core: no scaling file"
    );
    // The prediction sheet: kernels x types, ratio to normal-wb at the largest size.
    let sheet = d
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("prediction sheet:"))
        .collect::<Vec<_>>();
    assert!(
        sheet[1].split_whitespace().eq([
            "kernel",
            "normal-wb",
            "normal-wb-noalloc",
            "normal-wt",
            "normal-nc",
            "device-ngnrne",
            "device-ngnre",
            "device-ngre",
            "device-gre",
            "at"
        ]),
        "{}",
        d.stdout
    );
    assert!(
        sheet[2].starts_with("  read-ldp        1.000x"),
        "{}",
        sheet[2]
    );
    assert!(
        sheet[3].starts_with("  write-stp       1.000x"),
        "{}",
        sheet[3]
    );
    assert!(
        !d.out.join("latency.svg").exists(),
        "no latency results, no latency chart"
    );
    assert!(d.stdout.contains("results.csv") && d.stdout.contains("read-ldp-write-stp.svg"));
}

#[test]
fn kernels_log_report() {
    let d = report(&data("qemu-kernels.log"), "kernels");
    assert_eq!(d.code, Some(0), "{}", d.stderr);
    assert!(
        d.file("results.csv")
            .starts_with("kernel,memtype,granule,size_bytes,"),
        "the granule column"
    );
    assert!(!d.stderr.contains("granule"), "{}", d.stderr);
    let rows = d.csv_rows("results.csv");
    // Six kernels on eight types at nine sizes, and latency's normal-wb row on 4 KiB pages.
    assert_eq!(rows.len(), 6 * 8 * 9 + 9);
    assert!(rows.contains(
        &"latency,device-gre,2M,1048576,ns_per_load,45.2,45.84,1.1,3,invalidated,,true".to_owned()
    ));
    assert!(rows.contains(
        &"latency,normal-wb,4K,1048576,ns_per_load,20.2,21.17,2.7,3,invalidated,,true".to_owned()
    ));
    assert!(rows.contains(
        &"maint-civac,normal-wb,4K,4096,ns_per_line,43.29,44,9.1,3,written,dirty,true".to_owned()
    ));
    assert!(d.stdout.contains("latency (ns per load, best of 3)"));
    assert!(d.stdout.contains("(lower is better;"));
    for svg in [
        "read-ldp-write-stp.svg",
        "copy-to-copy-from.svg",
        "latency.svg",
        "maint-civac.svg",
        "ratio-latency.svg",
    ] {
        assert!(d.file(svg).contains("<svg"), "{svg}");
    }
}

#[test]
fn board_log_with_uboot_crlf_escapes_and_noise() {
    let d = report(&data("handmade-board.log"), "board");
    assert_eq!(d.code, Some(0), "{}", d.stderr);
    assert_eq!(
        d.csv_rows("results.csv").len(),
        48,
        "noise before @mb and escapes are ignored"
    );
    assert!(d.stdout.contains("example,rk3399"));
    assert!(
        !d.stdout.contains("QEMU models no caches"),
        "a board is not emulated"
    );
    assert!(d
        .csv_rows("results.csv")
        .iter()
        .all(|row| row.ends_with(",false")));
    let json: serde_json::Value = serde_json::from_str(&d.file("results.json")).unwrap();
    assert_eq!(json["caveat"], serde_json::Value::Null);
    assert!(d.stderr.is_empty(), "{}", d.stderr);
    // A log of older firmware: no start, line_state or pmu, no loaded latency, no skew.
    let point = &json["measurements"][0];
    for key in ["start", "line_state", "pmu"] {
        assert_eq!(point[key], serde_json::Value::Null, "{key}");
    }
    assert_eq!(json["loaded_latency"], serde_json::json!([]));
    assert!(d
        .csv_rows("results.csv")
        .iter()
        .all(|row| row.ends_with(",,,false")));
    for absent in ["pmu.csv", "loaded_latency.csv"] {
        assert!(!d.out.join(absent).exists(), "{absent}");
    }
    assert!(!d.stdout.contains("loaded latency") && !d.stdout.contains("skew"));
}

/// The hand-made log with PMU counts (host/tests/data/README.md): `pmu` objects reach
/// results.json and pmu.csv, one row per event counted, in core's event order.
#[test]
fn pmu_counts_reach_results_json_and_pmu_csv() {
    let d = report(&data("handmade-pmu.log"), "pmu");
    assert_eq!(d.code, Some(0), "{}", d.stderr);
    assert!(d.stderr.is_empty(), "{}", d.stderr);
    let rows = d.csv_rows("pmu.csv");
    assert!(d
        .file("pmu.csv")
        .starts_with("kernel,memtype,granule,size_bytes,event,per_line\n"));
    // Four points, six events each (the first six of core's table: six counters).
    assert_eq!(rows.len(), 4 * 6);
    let events: Vec<&str> = rows[..6]
        .iter()
        .map(|r| r.split(',').nth(4).unwrap())
        .collect();
    let table: Vec<&str> = mairbench_core::pmu::EVENTS[..6]
        .iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(events, table);
    assert!(rows.contains(&"read-ldp,normal-nc,4K,16384,bus_access,4".to_owned()));
    assert!(rows.contains(&"maint-civac,normal-wb,4K,16384,l1d_cache_wb,1".to_owned()));
    assert!(rows.contains(&"latency,normal-wb,2M,8388608,l2d_cache_refill,0.88".to_owned()));
    let json: serde_json::Value = serde_json::from_str(&d.file("results.json")).unwrap();
    let m = &json["measurements"];
    assert_eq!(m[0]["pmu"]["l1d_cache_refill"], 0.02);
    assert_eq!(m[0]["pmu"].as_object().unwrap().len(), 6);
    assert_eq!(m[1]["pmu"]["bus_access"], 4.0);
    assert_eq!(m[2]["start"], "written");
    assert_eq!(m[2]["line_state"], "dirty");
    assert_eq!(
        d.csv_rows("results.csv")[2],
        "maint-civac,normal-wb,4K,16384,ns_per_line,8.59,8.73,1.1,3,written,dirty,false"
    );
    assert!(d.stdout.contains("pmu.csv"), "{}", d.stdout);
}

#[test]
fn truncated_log_still_reports_then_fails() {
    let d = report(&data("truncated.log"), "truncated");
    assert_eq!(d.code, Some(1));
    assert_eq!(d.csv_rows("results.csv").len(), 29);
    assert!(d.out.join("results.json").is_file());
    assert_eq!(
        sentence(&d),
        format!(
            "{} line 210: the run is truncated: the log ends with a record cut short and has no end record.",
            data("truncated.log").display()
        )
    );
}

/// Writes `contents` as a log in a scratch directory and reports it.
fn report_text(test: &str, contents: &[u8]) -> Done {
    let dir = scratch(&format!("{test}-in"));
    let log = dir.join("console.log");
    std::fs::write(&log, contents).unwrap();
    report(&log, test)
}

const START: &str = r#"@mb {"kind":"start","schema":1,"platform":"p","emulated":false}"#;
const RESULT: &str = r#"@mb {"kind":"result","memtype":"normal-wb","kernel":"read-ldp","size":4096,"reps":3,"cv_pct":1.0,"best_mbps":100,"median_mbps":90}"#;

#[test]
fn one_sentence_errors() {
    let d = report_text("empty", b"");
    assert_eq!(d.code, Some(2));
    assert!(
        sentence(&d).ends_with("console.log is empty: not a mairbench log."),
        "{}",
        d.stderr
    );
    assert_eq!(d.stderr.lines().count(), 1);

    let d = report_text("nostart", b"U-Boot 2023.01\nhello\n");
    assert_eq!(d.code, Some(2));
    assert!(
        sentence(&d).ends_with("is not a mairbench log: none of its 2 lines holds a start record."),
        "{}",
        d.stderr
    );

    let d = report_text("schema", b"boot\n@mb {\"kind\":\"start\",\"schema\":2}\n");
    assert_eq!(d.code, Some(2));
    assert!(
        sentence(&d).ends_with(
            "console.log line 2: the start record has schema 2, but this tool reads schema 1 only."
        ),
        "{}",
        d.stderr
    );
    assert!(!d.out.join("results.csv").exists());

    let log = format!("{START}\n{RESULT}\n@mb {{\"kind\":\"end\",\"status\":\"fail\",\"reason\":\"2 checks failed\"}}\n");
    let d = report_text("failed", log.as_bytes());
    assert_eq!(d.code, Some(1));
    assert!(
        sentence(&d)
            .ends_with("console.log line 3, the end record: the run failed: 2 checks failed."),
        "{}",
        d.stderr
    );
    assert_eq!(
        d.csv_rows("results.csv"),
        ["read-ldp,normal-wb,4K,4096,mbps,100,90,1,3,,,false"]
    );

    let d = report(&scratch("a-directory"), "directory");
    assert_eq!(d.code, Some(2));
    assert!(sentence(&d).starts_with("cannot read "), "{}", d.stderr);

    let d = report(&data("no-such.log"), "missing");
    assert_eq!(d.code, Some(2));
    assert!(sentence(&d).starts_with("cannot read "), "{}", d.stderr);

    let o = host(&["report".as_ref()]);
    assert_eq!(o.status.code(), Some(2), "bad usage");
}

fn compare(a: &Path, b: &Path, test: &str) -> Done {
    tool::run(
        "cli",
        &["compare".as_ref(), a.as_os_str(), b.as_os_str()],
        test,
    )
}

#[test]
fn compare_golden_logs() {
    let d = compare(
        &data("qemu-quick.log"),
        &data("qemu-kernels.log"),
        "compare",
    );
    assert_eq!(d.code, Some(0), "{}", d.stderr);
    let rows = d.csv_rows("compare.csv");
    // Common points: read-ldp and write-stp, eight types, 4 KiB and 256 KiB.
    assert_eq!(rows.len(), 2 * 8 * 2);
    let change = |row: &String| -> f64 {
        let ratio: f64 = row.split(',').nth(6).unwrap().parse().unwrap();
        ratio.ln().abs()
    };
    for pair in rows.windows(2) {
        assert!(change(&pair[0]) >= change(&pair[1]), "{pair:?}");
    }
    assert!(d.file("compare-read-ldp.svg").contains("<svg"));
    assert!(d.file("compare-write-stp.svg").contains("<svg"));
    assert!(!d.out.join("compare.svg").exists());
    // The summary first, then only the points beyond the runs' spread.
    assert!(
        d.stdout.contains("per kernel: geometric mean of B/A; better/worse count significant points (best and median beyond the threshold, 3 adjacent sizes agreeing)"),
        "{}",
        d.stdout
    );
    let listed = d
        .stdout
        .lines()
        .filter(|l| l.contains("is better)") && l.contains(" KiB"))
        .count();
    let same = rows
        .iter()
        .filter(|r| r.split(',').nth(7) == Some("same"))
        .count();
    assert_eq!(listed, rows.len() - same, "{}", d.stdout);

    // A plain quick run against an icount one (host/tests/data/README.md): under icount the
    // Device types leave TCG's slow path out of the clock, so the whole class moved against
    // the Normal types, named once per kernel; and nothing of the sort between a log and
    // itself.
    let d = compare(
        &data("qemu10-quick.log"),
        &data("qemu10-quick-icount.log"),
        "compare-class",
    );
    assert_eq!(d.code, Some(0), "{}", d.stderr);
    let shifts: Vec<&str> = d
        .stdout
        .lines()
        .filter(|l| l.contains("(Device types, MB/s, higher is better)"))
        .collect();
    assert_eq!(shifts.len(), 3, "{}", d.stdout);
    for kernel in ["read-ldp", "write-stp", "write-line"] {
        assert!(
            shifts.iter().any(|l| l.starts_with(kernel)
                && l.contains("4 KiB to 4 MiB")
                && l.ends_with("B (Device types, MB/s, higher is better)")),
            "{kernel}: {shifts:?}"
        );
    }

    let d = compare(
        &data("qemu-kernels.log"),
        &data("qemu-kernels.log"),
        "compare-self",
    );
    assert!(!d.stdout.contains("(Device types, "), "{}", d.stdout);
    assert_eq!(d.code, Some(0), "{}", d.stderr);
    let rows = d.csv_rows("compare.csv");
    assert_eq!(rows.len(), 441);
    for row in rows {
        let f: Vec<&str> = row.split(',').collect();
        assert_eq!((f[6], f[7]), ("1", "same"), "{row}");
    }
}

/// The hand-made verdict logs (host/tests/data/README.md): the report leads with the
/// verdicts and writes them to results.json; compare lists those whose status changed.
#[test]
fn verdicts_lead_the_report_and_compare_lists_changes() {
    let d = report(&data("handmade-verdicts-a.log"), "verdicts-a");
    assert_eq!(d.code, Some(0), "{}", d.stderr);
    let lines: Vec<&str> = d.stdout.lines().collect();
    assert!(
        lines[0].starts_with("mairbench 0.1.0 on example,a72-board"),
        "{}",
        d.stdout
    );
    assert_eq!(lines[1], "caches: L1 separate 32 KiB, L2 unified 1 MiB");
    assert_eq!(
        lines[3],
        "verdicts (fail 0, warn 0, pass 9, n/a 0; what each checks: docs/bringup.md, \"Verdicts\")"
    );
    assert_eq!(
        lines[4],
        "  caches-on          pass  SCTLR_EL1.C and I are set; normal-wb reads at 16 KiB are 19.8x faster than normal-nc's"
    );
    let names: Vec<&str> = lines[4..13]
        .iter()
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    let table: Vec<&str> = mairbench_core::verdict::VERDICTS
        .iter()
        .map(|v| v.id)
        .collect();
    assert_eq!(names, table);
    assert_eq!(lines[13..15], ["", "files written:"], "{}", d.stdout);
    let json: serde_json::Value = serde_json::from_str(&d.file("results.json")).unwrap();
    let verdicts = json["verdicts"].as_array().unwrap();
    assert_eq!(verdicts.len(), 9);
    assert_eq!(verdicts[5]["name"], "device-read-cliff");
    assert_eq!(verdicts[5]["status"], "pass");
    assert_eq!(verdicts[5]["evidence"]["ratio"], 10.0);
    assert_eq!(verdicts[5]["evidence"]["reference_ratio"], 10.0);
    assert!(verdicts[5]["why"]
        .as_str()
        .unwrap()
        .contains("\"Performance Anomaly Investigation\": ≈10x"));

    // The caches-off run fails; its verdicts are still reported and written.
    let d = report(&data("handmade-verdicts-b.log"), "verdicts-b");
    assert_eq!(d.code, Some(1), "{}", d.stderr);
    assert!(
        d.stdout
            .contains("verdicts (fail 4, warn 2, pass 3, n/a 0;"),
        "{}",
        d.stdout
    );
    assert!(d
        .stdout
        .contains("  caches-on          fail  SCTLR_EL1.C is clear: "));
    let json: serde_json::Value = serde_json::from_str(&d.file("results.json")).unwrap();
    assert_eq!(json["verdicts"][0]["status"], "fail");
    assert_eq!(json["verdicts"][0]["evidence"]["sctlr_c"], 0.0);

    // A log without verdicts (older firmware): no verdict lines, an empty list in
    // results.json.
    let d = report(&data("handmade-board.log"), "verdicts-none");
    assert!(!d.stdout.contains("verdicts ("), "{}", d.stdout);
    let json: serde_json::Value = serde_json::from_str(&d.file("results.json")).unwrap();
    assert_eq!(json["verdicts"], serde_json::json!([]));

    let d = compare(
        &data("handmade-verdicts-a.log"),
        &data("handmade-verdicts-b.log"),
        "verdicts-compare",
    );
    assert_eq!(d.code, Some(1), "{}", d.stderr);
    let changed: Vec<&str> = d
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("verdicts that changed"))
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(
        changed[0], "verdicts that changed (6 of them):",
        "{}",
        d.stdout
    );
    let rows: Vec<Vec<&str>> = changed[1..]
        .iter()
        .map(|l| l.split_whitespace().take(4).collect())
        .collect();
    assert_eq!(
        rows,
        [
            ["caches-on", "pass", "->", "fail"],
            ["write-allocate", "pass", "->", "fail"],
            ["write-through", "pass", "->", "fail"],
            ["maintenance", "pass", "->", "warn"],
            ["smp-config", "pass", "->", "warn"],
            ["cache-geometry", "pass", "->", "fail"],
        ]
    );
    assert!(changed[1].ends_with("SCTLR_EL1.C is clear: the caches are disabled for the measurements, so every access goes to memory"));
    let d = compare(
        &data("handmade-verdicts-a.log"),
        &data("handmade-verdicts-a.log"),
        "verdicts-same",
    );
    assert_eq!(d.code, Some(0), "{}", d.stderr);
    assert!(
        d.stdout.contains("verdicts: none changed (9 in A, 9 in B)"),
        "{}",
        d.stdout
    );
    // Against a run without verdicts, every verdict changed from none.
    let d = compare(
        &data("handmade-verdicts-b.log"),
        &data("handmade-board.log"),
        "verdicts-vs-none",
    );
    assert!(
        d.stdout.contains("verdicts that changed (9 of them):"),
        "{}",
        d.stdout
    );
    assert!(
        d.stdout.contains("  caches-on          fail -> none  "),
        "{}",
        d.stdout
    );
}

#[test]
fn smp_log_report_has_scaling() {
    let d = report(&data("qemu-smp.log"), "smp");
    assert_eq!(d.code, Some(0), "{}", d.stderr);
    let rows = d.csv_rows("scaling.csv");
    // read-ldp and write-stp, eight types, 1 and 2 cores.
    assert_eq!(rows.len(), 2 * 8 * 2);
    assert_eq!(rows[1], "read-ldp,normal-wb,2,17551,9107,10324,1867,68");
    let json: serde_json::Value = serde_json::from_str(&d.file("results.json")).unwrap();
    assert_eq!(json["scaling"].as_array().unwrap().len(), 32);
    assert_eq!(json["scaling"][1]["aggregate_mbps"], 17551);
    assert!(d.file("scaling-read-ldp-write-stp.svg").contains("<svg"));
    assert!(
        d.stdout
            .contains("scaling read-ldp (aggregate MB/s with 1 to 2 cores at once; MB = 10^6 B)"),
        "{}",
        d.stdout
    );
    // The skew at 2 cores: 68 ticks of 62.5 MHz, 1088 ns (the console's table says the same).
    assert!(
        d.stdout.contains(
            "  memory type           1 core  2 cores   skew at 2 (ns)   per core at 2 (MB/s)\n"
        ),
        "{}",
        d.stdout
    );
    assert!(
        d.stdout.lines().any(|l| l.split_whitespace().eq([
            "normal-wb",
            "8287",
            "17551",
            "1088",
            "9107",
            "to",
            "10324"
        ])),
        "{}",
        d.stdout
    );
    // QEMU's results: start named, nothing counted.
    assert_eq!(json["measurements"][0]["pmu"], serde_json::Value::Null);
    assert_eq!(json["measurements"][0]["start"], "invalidated");
    assert!(!d.out.join("pmu.csv").exists(), "QEMU counts no event");
    assert!(d.stderr.is_empty(), "{}", d.stderr);

    // The loaded latency, after the scaling tables: streams' kernel x memory type.
    let table: Vec<&str> = d
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("loaded latency ("))
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(
        table[0], "loaded latency (ns per load, best of 3; stream MB/s: MB = 10^6 B)",
        "{}",
        d.stdout
    );
    assert!(
        d.stdout.find("scaling write-stp") < d.stdout.find("loaded latency ("),
        "{}",
        d.stdout
    );
    assert!(table[1].contains("8192 dependent loads over 2 MiB of normal-wb (2M)"));
    assert!(table[3].split_whitespace().eq([
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
    ]));
    let rows: Vec<Vec<&str>> = table[4..10]
        .iter()
        .map(|l| l.split_whitespace().collect())
        .collect();
    assert_eq!(
        rows[0],
        [
            "read-ldp",
            "normal-wb",
            "2",
            "186.34",
            "229.58",
            "1.232x",
            "12608"
        ]
    );
    let names: Vec<(&str, &str)> = rows.iter().map(|r| (r[0], r[1])).collect();
    assert_eq!(
        names,
        [
            ("read-ldp", "normal-wb"),
            ("read-ldp", "normal-nc"),
            ("read-ldp", "device-ngnre"),
            ("write-stp", "normal-wb"),
            ("write-stp", "normal-nc"),
            ("write-stp", "device-ngnre"),
        ]
    );
    let rows = d.csv_rows("loaded_latency.csv");
    assert_eq!(rows.len(), 6);
    assert_eq!(
        rows[2],
        "read-ldp,device-ngnre,2,262144,normal-wb,2M,2097152,8192,186.34,229.13,1.23,1098,3"
    );
    let loaded = json["loaded_latency"].as_array().unwrap();
    assert_eq!(loaded.len(), 6);
    assert_eq!(loaded[5]["kernel"], "write-stp");
    assert_eq!(loaded[5]["memtype"], "device-ngnre");
    assert_eq!(loaded[5]["loaded_ns"], 225.82);
    assert_eq!(loaded[5]["stream_mbps"], 1016);

    // Compared with itself: every loaded-latency point listed, none changed.
    let c = compare(&data("qemu-smp.log"), &data("qemu-smp.log"), "smp-compare");
    assert_eq!(c.code, Some(0), "{}", c.stderr);
    let listed: Vec<&str> = c
        .stdout
        .lines()
        .skip_while(|l| !l.starts_with("loaded latency: ratio = loaded / idle"))
        .skip(2)
        .take_while(|l| !l.is_empty())
        .collect();
    assert_eq!(listed.len(), 6, "{}", c.stdout);
    assert!(
        listed.iter().all(|l| l.contains(" 1.000x  same ")),
        "{}",
        c.stdout
    );
    let rows = c.csv_rows("compare-loaded-latency.csv");
    assert_eq!(rows.len(), 6);
    assert!(rows[0]
        .starts_with("read-ldp,normal-wb,2,186.34,229.58,1.232,186.34,229.58,1.232,1,same,5"));
    // Against a one-core run: no loaded-latency point in common, said in one line.
    let c = compare(
        &data("qemu-smp.log"),
        &data("qemu-quick.log"),
        "smp-vs-quick",
    );
    assert_eq!(c.code, Some(0), "{}", c.stderr);
    assert!(
        c.stdout.contains("loaded latency: no point in common (same streams' kernel, memory type and cores; 6 in A, 0 in B)"),
        "{}",
        c.stdout
    );
    assert!(!c.out.join("compare-loaded-latency.csv").exists());
}

#[test]
fn report_without_out_writes_nothing() {
    let dir = scratch("no-out");
    let o = Command::new(env!("CARGO_BIN_EXE_mairbench-host"))
        .current_dir(&dir)
        .args(["report".as_ref(), data("qemu-quick.log").as_os_str()])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(
        stdout.contains("read-ldp (MB/s, best of 3; MB = 10^6 B)"),
        "{stdout}"
    );
    assert!(!stdout.contains("files written"), "{stdout}");
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        0,
        "nothing written"
    );
}

#[test]
fn compare_without_out_writes_nothing() {
    // Two firmware logs (the comparison), then a firmware and a twin log (the classification).
    for (a, b, shows) in [
        (
            "qemu-quick.log",
            "qemu-kernels.log",
            "per kernel: geometric mean of B/A",
        ),
        (
            "qemu10-firmware-4k-64k.log",
            "qemu10-linux-4k-64k.log",
            "which memory type each Linux source behaves like",
        ),
    ] {
        let dir = scratch(&format!("compare-no-out-{a}"));
        let o = Command::new(env!("CARGO_BIN_EXE_mairbench-host"))
            .current_dir(&dir)
            .args(["compare".as_ref(), data(a).as_os_str(), data(b).as_os_str()])
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&o.stdout);
        assert_eq!(o.status.code(), Some(0), "{a} {b}: {stdout}");
        assert!(stdout.contains(shows), "{a} {b}: {stdout}");
        assert!(!stdout.contains("files written"), "{stdout}");
        assert_eq!(
            std::fs::read_dir(&dir).unwrap().count(),
            0,
            "nothing written"
        );
    }
}

#[test]
fn run_in_qemu_end_to_end() {
    common::firmware();
    let out = scratch("run");
    let o = host(&[
        "run".as_ref(),
        "--out".as_ref(),
        out.as_os_str(),
        "--".as_ref(),
        "mairbench.quick".as_ref(),
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        stdout.contains("@mb {\"kind\":\"start\""),
        "the console is streamed"
    );
    for f in ["console.log", "results.csv", "results.json"] {
        assert!(out.join(f).is_file(), "{f}");
    }
    let svgs = std::fs::read_dir(&out)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .path()
                .extension()
                .is_some_and(|x| x == "svg")
        })
        .count();
    assert!(svgs >= 1);
    assert_eq!(
        std::fs::read_to_string(out.join("results.csv"))
            .unwrap()
            .lines()
            .count(),
        // The header, then the quick run's points: read-ldp, write-stp and write-line on
        // the eight types at three sizes.
        1 + 3 * 8 * 3
    );
}

#[test]
fn a_twin_report_leads_with_each_sources_diagnosis_against_anon() {
    let dir = scratch("twin-diagnosis");
    let o = Command::new(env!("CARGO_BIN_EXE_mairbench-host"))
        .current_dir(&dir)
        .args([
            "report".as_ref(),
            data("qemu10-linux-4k-64k.log").as_os_str(),
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(0), "{stdout}");
    let lead = stdout.find("diagnosis against anon").expect("a diagnosis");
    assert!(
        lead < stdout.find("read-ldp (MB/s").unwrap(),
        "before the tables: {stdout}"
    );
    // QEMU 10's slow path for Device pages shows on res2 (Device-nGnRE); Normal-NC (res2_wc)
    // and the udmabuf time like anon under emulation, and the summary says what that means.
    // Judged at all five working sets: res2_wc's 1.3× at 4 KiB (anon's slowest point) is
    // shown, its median is 1.0×.
    for line in [
        "  pci:0000:00:01.0:res2: reads 12× and writes 13× slower than anon: uncached both ways",
        "(median of 5 working sets, 4 KiB to 64 KiB: reads 12× to 14×, writes 12× to 14×)",
        "  udmabuf: times like anon (reads within 1.0×, writes within 1.2×): cached",
        "  pci:0000:00:01.0:res2_wc: times like anon",
        "    read   L1-sized (4 KiB): 14× ±0.3 %  L2-sized: -  DRAM-sized: -  all 5 sizes: \
         median 12× ±1.3 %, 12× to 14×",
        "    read   L1-sized (4 KiB): 1.3× ±0.3 %  L2-sized: -  DRAM-sized: -  all 5 sizes: \
         median 1.0× ±0.0 %, 1.0× to 1.3×",
        "(emulated: QEMU models no caches;",
    ] {
        assert!(stdout.contains(line), "{line:?} in:\n{stdout}");
    }
    assert!(
        !stdout.contains("  anon: "),
        "the reference is not diagnosed: {stdout}"
    );
    // Emulated: no working set is asked for (caches are not modelled).
    assert!(!stdout.contains("working set measured"), "{stdout}");
}
