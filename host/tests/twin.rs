//! mairbench-linux, the Linux twin, under user-mode QEMU (`qemu-aarch64`, Debian's
//! qemu-user; ./test.sh installs it and builds the twin): no kernel boot, the twin's own
//! system calls served by QEMU's Linux emulation. Its records must parse with the host's
//! reader and conform to the schema, and the run must be framed and pass.

mod common;

use mairbench_host::{log, records};
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// The twin's ELF, built by `cargo build --release -p mairbench-linux` (./test.sh does).
fn twin() -> PathBuf {
    let elf = common::root().join("target/aarch64-unknown-none/release/mairbench-linux");
    assert!(
        elf.exists(),
        "no twin at {}: run `cargo build --release -p mairbench-linux` first (./test.sh does)",
        elf.display()
    );
    elf
}

/// Runs the twin with `args`: exit status, stdout.
fn run(args: &[&str]) -> (i32, String) {
    let out = Command::new("qemu-aarch64")
        .arg(twin())
        .args(args)
        .output()
        .expect("qemu-aarch64 (Debian's qemu-user; ./test.sh installs it)");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
    (out.status.code().unwrap_or(-1), stdout)
}

fn of_kind<'r>(records: &'r [Value], kind: &str) -> Vec<&'r Value> {
    records.iter().filter(|r| r["kind"] == kind).collect()
}

#[test]
fn anon_sweep_is_framed_conforms_and_passes() {
    let (status, stdout) = run(&[
        "mairbench.sizes=4K-64K",
        "mairbench.reps=3",
        "mairbench.host=qemu-user",
    ]);
    let records = records(&stdout).expect("every record line is JSON");
    for (i, r) in records.iter().enumerate() {
        let wrong = log::mismatches(r.as_object().unwrap());
        assert!(wrong.is_empty(), "record {i}: {wrong:?} in\n{r}");
    }
    let parsed = log::parse(stdout.as_bytes());
    assert!(parsed.problems.is_empty(), "{:?}", parsed.problems);

    assert_eq!(
        records.first().map(|r| &r["kind"]),
        Some(&"start".into()),
        "{stdout}"
    );
    assert_eq!(
        records.last().map(|r| &r["kind"]),
        Some(&"end".into()),
        "{stdout}"
    );
    let start = records.first().unwrap();
    assert_eq!(start["bootargs_from"], "argv");
    assert_eq!(start["machine"], "aarch64");
    assert!(
        start["kernel"].as_str().unwrap().starts_with("Linux "),
        "{start}"
    );
    assert_eq!(start["emulated"], true);
    assert_eq!(start["host"], "qemu-user");
    assert!(start["cntfrq_hz"].as_u64().unwrap() > 0);

    let results = of_kind(&records, "result");
    // 4K, 8K, 16K, 32K, 64K, each with read-ldp and write-stp.
    assert_eq!(results.len(), 10, "{stdout}");
    let mut seen = Vec::new();
    for r in &results {
        assert_eq!(r["source"], "anon", "{r}");
        assert!(r.get("memtype").is_none(), "{r}");
        assert_eq!(r["integrity"], "ok", "{r}");
        assert_eq!(r["reps"], 3, "{r}");
        assert!(r["best_ticks"].as_u64().unwrap() <= r["median_ticks"].as_u64().unwrap());
        let size = r["size"].as_u64().unwrap();
        let passes = r["passes"].as_u64().unwrap();
        assert_eq!(r["bytes"].as_u64().unwrap(), size * passes, "{r}");
        assert!(r["best_mbps"].as_u64().unwrap() > 0, "{r}");
        seen.push((r["kernel"].as_str().unwrap().to_owned(), size));
    }
    for size in [4096u64, 8192, 16384, 32768, 65536] {
        for k in ["read-ldp", "write-stp"] {
            assert!(
                seen.contains(&(k.to_owned(), size)),
                "{k} at {size}: {seen:?}"
            );
        }
    }
    let end = records.last().unwrap();
    assert_eq!(end["status"], "pass", "{stdout}");
    assert_eq!(end["failed"], 0);
    assert_eq!(end["warnings"], 0);
    assert_eq!(status, 0, "{stdout}");
}

#[test]
fn bad_options_warn_and_keep_defaults() {
    let (status, stdout) = run(&[
        "mairbench.quick",
        "mairbench.reps=lots",
        "mairbench.nonsense",
    ]);
    let records = records(&stdout).expect("every record line is JSON");
    for r in &records {
        let wrong = log::mismatches(r.as_object().unwrap());
        assert!(wrong.is_empty(), "{wrong:?} in\n{r}");
    }
    assert!(
        stdout.contains("bootargs: option 'mairbench.reps': 'lots'"),
        "{stdout}"
    );
    assert!(
        stdout.contains("unknown option 'mairbench.nonsense'"),
        "{stdout}"
    );
    // The quick sweep (4K, 256K, 4M), two kernels, the quick reps (3).
    let results = of_kind(&records, "result");
    assert_eq!(results.len(), 6, "{stdout}");
    assert!(results.iter().all(|r| r["reps"] == 3));
    let end = records.last().unwrap();
    assert_eq!(end["kind"], "end");
    assert_eq!(end["warnings"], 2, "{stdout}");
    assert_eq!(end["status"], "pass");
    assert_eq!(status, 0);
}
