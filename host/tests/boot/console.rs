//! The console a person sees, in QEMU: on a terminal the runner shows the human lines only and
//! keeps the whole log, records included, in a file it names; piped, everything comes through
//! unchanged; MAIRBENCH_RECORDS forces either; `cargo host run --quiet` hides the records
//! while its console.log keeps them. The terminal is a pseudo-terminal from util-linux's
//! `script`.

use crate::common::{boot, firmware, records, root};
use std::process::{Command, Output};

/// Runs `qemu/run` on the firmware under a pseudo-terminal with `env`; returns what the
/// terminal showed (stdout and stderr, `\r` removed) and the exit status.
fn on_terminal(env: &[(&str, &str)], bootargs: &str) -> (String, i32) {
    let cmd = format!(
        "'{}' '{}' {bootargs}",
        root().join("qemu/run").display(),
        firmware().display()
    );
    let mut script = Command::new("script");
    script
        .args(["-qec", &cmd, "/dev/null"])
        .env_remove("MAIRBENCH_RECORDS")
        .env_remove("MAIRBENCH_LOG")
        .env("MAIRBENCH_TIMEOUT", "60")
        .env("MAIRBENCH_INSTALL", "0");
    for (k, v) in env {
        script.env(k, v);
    }
    let out: Output = script
        .output()
        .expect("util-linux's script runs (package bsdutils or util-linux)");
    let shown = String::from_utf8_lossy(&out.stdout).replace('\r', "");
    (shown, out.status.code().unwrap_or(-1))
}

/// The file named by the runner's "the whole console log" line.
fn named_log(shown: &str) -> Option<std::path::PathBuf> {
    shown
        .lines()
        .find_map(|l| l.strip_prefix("mairbench: the whole console log, records included: "))
        .map(Into::into)
}

#[test]
fn on_a_terminal_the_human_lines_are_shown_and_the_whole_log_kept() {
    let (shown, status) = on_terminal(&[], "mairbench.quick");
    assert_eq!(status, 0, "{shown}");
    assert!(
        !shown.contains("@mb {"),
        "records on the terminal:\n{shown}"
    );
    assert!(shown.contains("mairbench: status pass"), "{shown}");
    assert!(shown.contains("ok   memtype"), "{shown}");
    let log = named_log(&shown).unwrap_or_else(|| panic!("no log named:\n{shown}"));
    assert!(
        log.parent().unwrap().ends_with("mairbench-logs"),
        "{}",
        log.display()
    );
    let kept = std::fs::read_to_string(&log).unwrap().replace('\r', "");
    let _ = std::fs::remove_file(&log);
    let kept_records = records(&kept);
    assert_eq!(kept_records.first().unwrap()["kind"], "start");
    assert_eq!(kept_records.last().unwrap()["kind"], "end");
    assert!(kept_records.len() > 100, "{} records", kept_records.len());
    // Every human line of the log was shown, in order (the runner's own lines between them).
    let mut shown_lines = shown.lines();
    for line in kept.lines().filter(|l| !l.contains("@mb {")) {
        assert!(
            shown_lines.any(|s| s == line),
            "not shown: {line:?}\n{shown}"
        );
    }
}

#[test]
fn mairbench_records_forces_either_way() {
    let (shown, status) = on_terminal(&[("MAIRBENCH_RECORDS", "1")], "mairbench.quick");
    assert_eq!(status, 0, "{shown}");
    assert_eq!(records(&shown).last().unwrap()["kind"], "end");
    assert_eq!(named_log(&shown), None, "{shown}");

    let piped = boot(&[("MAIRBENCH_RECORDS", "0")], &["mairbench.quick"]);
    assert_eq!(piped.status, 0, "{}", piped.stderr);
    assert!(piped.records.is_empty(), "{}", piped.console);
    assert!(piped.console.contains("mairbench: status pass"));
    let log = named_log(&piped.stderr).unwrap_or_else(|| panic!("{}", piped.stderr));
    let kept = std::fs::read_to_string(&log).unwrap();
    let _ = std::fs::remove_file(&log);
    assert_eq!(records(&kept).last().unwrap()["kind"], "end");

    let bad = boot(&[("MAIRBENCH_RECORDS", "yes")], &["mairbench.quick"]);
    assert_eq!(bad.status, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("MAIRBENCH_RECORDS"), "{}", bad.stderr);
}

#[test]
fn host_run_quiet_hides_the_records_and_keeps_them_in_console_log() {
    let out = std::env::temp_dir().join(format!("mairbench-console-{}", std::process::id()));
    let run = Command::new(env!("CARGO_BIN_EXE_mairbench-host"))
        .args(["run", "--no-build", "--quiet", "--out"])
        .arg(&out)
        .args(["--", "mairbench.quick"])
        // Even forced on, --quiet wins; the runner still hands the host tool every record.
        .env("MAIRBENCH_RECORDS", "1")
        .env("MAIRBENCH_TIMEOUT", "60")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert_eq!(
        run.status.code(),
        Some(0),
        "{stdout}{}",
        String::from_utf8_lossy(&run.stderr)
    );
    assert!(!stdout.contains("@mb {"), "{stdout}");
    assert!(stdout.contains("mairbench: status pass"), "{stdout}");
    let kept = std::fs::read_to_string(out.join("console.log")).unwrap();
    let _ = std::fs::remove_dir_all(&out);
    assert_eq!(records(&kept).last().unwrap()["kind"], "end");
}

#[test]
fn nothing_is_dropped_silently_sizes_types_kernels_and_table_columns() {
    // One typo in each list leaves out that entry only; a range beyond the 32 MiB buffer is
    // cut there with a word; a 14-size table names the sizes it does not show.
    let run = boot(
        &[],
        &[
            "mairbench.quick",
            "mairbench.sizes=4K-64M",
            "mairbench.types=normal-wb,normal-wbb",
            "mairbench.kernels=read-ldp,raed-ldp",
        ],
    );
    run.assert_pass();
    let config = run.one("config");
    assert_eq!(config["types"], serde_json::json!(["normal-wb"]));
    for said in [
        "option 'mairbench.types': unknown entry 'normal-wbb' left out",
        "option 'mairbench.kernels': unknown entry 'raed-ldp' left out",
        "option 'mairbench.sizes': sizes above 32 MiB left out: the buffer is 32 MiB",
        "(9 of 14 sizes shown; left out: 16 KiB, 128 KiB, 512 KiB, 4 MiB, 16 MiB;",
    ] {
        assert!(
            run.console.contains(said),
            "not said: {said}\n{}",
            run.console
        );
    }
    let end = run.one("end");
    assert_eq!(end["warnings"], 3, "{end}");
    assert_eq!(end["warned"], serde_json::json!(["bootargs"]), "{end}");
    let results = run.results();
    assert!(results
        .iter()
        .all(|r| r["kernel"] == "read-ldp" && r["memtype"] == "normal-wb"));
    let sizes: Vec<u64> = results.iter().filter_map(|r| r["size"].as_u64()).collect();
    assert_eq!(sizes.len(), 14, "{sizes:?}");
    assert_eq!(sizes.last(), Some(&(32 << 20)));
}
