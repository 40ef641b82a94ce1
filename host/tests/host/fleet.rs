//! `cargo host table`: the fleet table over checked-in logs (two firmware QEMU logs, one at
//! the default sizes and one quick, a hand-made board log, a log without results, a truncated
//! one), its files, and its errors.

use std::ffi::OsStr;
use std::process::Command;

use crate::common::tool::{self, data};
use mairbench_core::memtype::{self, Role, MEMTYPES};
use mairbench_core::verdict::VERDICTS;

const LOGS: [&str; 5] = [
    "qemu10-firmware-docs.log",
    "qemu10-quick.log",
    "handmade-board.log",
    "handmade-verdicts-b.log",
    "truncated.log",
];

#[test]
fn fleet_table_over_qemu_and_board_logs() {
    let paths: Vec<_> = LOGS.iter().map(|l| data(l)).collect();
    let args: Vec<&OsStr> = std::iter::once("table".as_ref())
        .chain(paths.iter().map(|p| p.as_os_str()))
        .collect();
    let d = tool::run("fleet", &args, "five");
    assert_eq!(d.code, Some(0), "{}\n{}", d.stdout, d.stderr);
    // A failed and a truncated run are warnings.
    assert!(
        d.stderr.contains("warning: ") && d.stderr.contains("truncated"),
        "{}",
        d.stderr
    );
    let out = &d.stdout;
    for (i, log) in LOGS.iter().enumerate() {
        let line = out
            .lines()
            .find(|l| l.starts_with(&format!("#{} ", i + 1)) && l.ends_with(log))
            .unwrap_or_else(|| panic!("no row for {log}:\n{out}"));
        assert!(line.contains("0.1.0"), "{line}");
    }
    assert!(
        out.contains("example,rk3399") && out.contains("0x410fd034"),
        "{out}"
    );
    for spec in VERDICTS {
        assert!(out.contains(spec.id), "no column {}:\n{out}", spec.id);
    }
    for h in [
        "Device/WB read",
        "NC/WB write",
        "WB-noalloc/WB write",
        "WT/WB write",
        "latency ns",
    ] {
        assert!(out.contains(h), "{h}:\n{out}");
    }
    // The docs log has every figure; QEMU's Device path is about 10x slower than Normal.
    let row1 = out.lines().filter(|l| l.starts_with("#1 ")).nth(2).unwrap();
    assert!(!row1.contains("-["), "{row1}");
    assert_eq!(row1.matches(" cv ").count(), 5, "{row1}");
    // The quick log has no latency at DRAM size: a dash and a footnote that says why.
    let wb = MEMTYPES[memtype::NORMAL_WB].name;
    assert!(
        out.contains(&format!(
            "#2 latency ns: no latency point of {wb} at DRAM size"
        )),
        "{out}"
    );
    assert!(
        out.contains("#4 NC/WB write: the log has no measured point at all"),
        "{out}"
    );

    let csv = d.file("fleet.csv");
    let lines: Vec<&str> = csv.lines().collect();
    assert_eq!(lines.len(), 1 + LOGS.len(), "{csv}");
    assert!(lines[0].starts_with("log,board,midr,firmware,date,emulated,accel,"));
    assert!(lines[0].contains("device_wb_read_dram,device_wb_read_dram_cv_pct"));
    assert!(lines[2].contains(",true,tcg,"), "{}", lines[2]);

    let j = d.json("fleet.json");
    let logs = j["logs"].as_array().unwrap();
    assert_eq!(logs.len(), LOGS.len());
    let dev = &logs[0]["figures"]["device_wb_read_dram"];
    let ratio = dev["value"].as_f64().unwrap();
    assert!(ratio > 0.02 && ratio < 0.5, "{dev}");
    assert_eq!(dev["size_bytes"], 4 << 20, "4x the 1 MiB L2");
    assert_eq!(dev["kernel"], "read-ldp");
    let device = memtype::with_role(Role::Device)
        .map(|t| t.name)
        .collect::<Vec<_>>();
    assert!(device.contains(&dev["memtype"].as_str().unwrap()), "{dev}");
    let nc = &logs[0]["figures"]["nc_wb_write_l1"];
    assert_eq!(nc["size_bytes"], 16 << 10, "half the 32 KiB L1");
    assert!(nc["cv_pct"].as_f64().unwrap() >= 0.0);
    assert_eq!(
        logs[1]["figures"]["latency_ns_dram"]["value"],
        serde_json::Value::Null
    );
    assert!(logs[1]["figures"]["latency_ns_dram"]["missing"].is_string());
    assert_eq!(logs[3]["verdicts"]["caches-on"], "fail");
    assert_eq!(logs[2]["verdicts"]["caches-on"], serde_json::Value::Null);
    assert_eq!(logs[2]["emulated"], false);
    assert!(logs[0]["date"].as_str().unwrap().len() == 10);

    let svg = d.file("fleet.svg");
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(200)]);
    for h in [
        "Device/WB read",
        "WT/WB write",
        "example,rk3399",
        "(no ratio)",
    ] {
        assert!(svg.contains(h), "{h} not in the chart");
    }
}

fn host(args: &[&OsStr]) -> (Option<i32>, String) {
    let o = Command::new(env!("CARGO_BIN_EXE_mairbench-host"))
        .args(args)
        .output()
        .expect("the host tool starts");
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn fleet_table_errors() {
    let quick = data("qemu10-quick.log");
    let (code, err) = host(&["table".as_ref(), quick.as_os_str()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("two or more logs"), "{err}");
    let missing = data("no-such.log");
    let (code, err) = host(&["table".as_ref(), quick.as_os_str(), missing.as_os_str()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("cannot read") && err.contains("no-such.log"),
        "{err}"
    );
    let readme = data("README.md");
    let (code, err) = host(&["table".as_ref(), quick.as_os_str(), readme.as_os_str()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("README.md"), "{err}");
    let twin = data("qemu10-linux-4k-64k.log");
    let (code, err) = host(&["table".as_ref(), quick.as_os_str(), twin.as_os_str()]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("mairbench-linux"), "{err}");
}
