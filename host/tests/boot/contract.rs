//! Error paths and the command line, in QEMU: deliberate faults and panics end the run with
//! status fail and a non-zero exit within seconds; a hang is killed by the runner's timeout;
//! bootargs the firmware does not know are named and ignored.

use crate::common;
use crate::common::{boot, firmware, Run};
use crate::matrix;
use std::process::Command;
use std::time::Duration;

/// An addr2line: llvm-addr2line of the toolchain's llvm-tools, else one on PATH.
fn addr2line() -> std::path::PathBuf {
    let sysroot = Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    let in_tools = std::fs::read_dir(std::path::Path::new(&sysroot).join("lib/rustlib"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|d| d.path().join("bin/llvm-addr2line"))
        .find(|p| p.is_file());
    in_tools
        .or_else(|| {
            ["llvm-addr2line", "addr2line"]
                .into_iter()
                .find(|c| Command::new(c).arg("--version").output().is_ok())
                .map(Into::into)
        })
        .expect("an addr2line: llvm-addr2line (llvm-tools or package llvm) or binutils' addr2line")
}

/// The exception report's addr2line command, run: the source file and line it names.
fn source_line(run: &Run) -> String {
    let prefix = "!! source line: addr2line -e target/aarch64-unknown-none/release/mairbench ";
    let addr = run
        .console
        .lines()
        .find_map(|l| l.strip_prefix(prefix))
        .unwrap_or_else(|| panic!("no addr2line command in:\n{}", run.console));
    assert_eq!(Some(addr), run.one("exception")["elr_link"].as_str());
    let out = Command::new(addr2line())
        .arg("-e")
        .arg(firmware())
        .arg(addr)
        .output()
        .expect("addr2line runs");
    String::from_utf8_lossy(&out.stdout).trim().to_owned()
}

/// A hex string record field as a number.
fn hex(v: &serde_json::Value) -> u64 {
    u64::from_str_radix(v.as_str().unwrap().trim_start_matches("0x"), 16).unwrap()
}

#[test]
fn unexpected_exception_is_reported_in_words_and_fails_the_run() {
    let run = matrix::run("fault");
    run.assert_framed();
    let e = run.one("exception");
    assert_eq!(e["class"], "unknown reason (undefined instruction)");
    assert_eq!(e["vector"], "synchronous");
    assert_eq!(e["ec"], "0x0");
    assert!(e["esr"].as_str().unwrap().starts_with("0x2000000"), "{e}");
    assert!(run.console.contains("!! unexpected synchronous exception"));
    // An undefined instruction does not set FAR_EL1: what it holds is stale, not printed.
    assert_eq!(e["far_valid"], false, "{e}");
    assert!(!run.console.contains("FAR_EL1"), "{}", run.console);
    // Booted by -kernel the image runs where it was linked; UDF is in
    // src/arch/aarch64/exceptions.rs.
    assert_eq!(e["elr_link"], e["elr"]);
    let line = source_line(run);
    assert!(line.contains("src/arch/aarch64/exceptions.rs:"), "{line}");
    let end = run.one("end");
    assert_eq!(end["status"], "fail");
    assert_eq!(end["reason"], "unexpected exception");
    assert_eq!(run.status, 1, "{}", run.stderr);
    assert!(run.wall < Duration::from_secs(10), "took {:?}", run.wall);
}

#[test]
fn elr_is_given_as_its_link_address_where_the_image_runs_elsewhere() {
    // U-Boot loads the image at 0x40400000, 2 MiB above the link base: elr_link is elr moved
    // back by that, and the addr2line command still names the UDF's source line.
    let run = boot(
        &[
            ("MAIRBENCH_BOOT", "uboot"),
            ("MAIRBENCH_LOAD", "0x40400000"),
        ],
        &["mairbench.selftest=fault"],
    );
    let e = run.one("exception");
    assert_eq!(hex(&e["elr"]) - hex(&e["elr_link"]), 0x20_0000, "{e}");
    let line = source_line(&run);
    assert!(line.contains("src/arch/aarch64/exceptions.rs:"), "{line}");
    assert_eq!(run.status, 1, "{}", run.stderr);
}

#[test]
fn panic_prints_message_and_location_and_fails_the_run() {
    let run = matrix::run("panic");
    run.assert_framed();
    let p = run.one("panic");
    assert_eq!(p["message"], "selftest: panicking on purpose");
    assert_eq!(p["file"], "src/main.rs");
    assert!(p["line"].as_u64().unwrap() > 0);
    // A panic is no exception: no registers, no stale FAR.
    assert!(run.of_kind("exception").is_empty());
    assert!(!run.console.contains("FAR_EL1"), "{}", run.console);
    assert_eq!(run.one("end")["status"], "fail");
    assert_eq!(run.status, 1);
}

#[test]
fn without_semihosting_the_run_ends_through_psci() {
    // HLT is then an undefined instruction: the firmware probes it, survives, and powers off
    // with PSCI SYSTEM_OFF (QEMU exit status 0); the runner judges by the end record.
    let run = boot(&[("MAIRBENCH_SEMIHOSTING", "0")], &["mairbench.quick"]);
    run.assert_pass();
    assert_eq!(run.one("start")["semihosting"], false);
    let failed = boot(
        &[("MAIRBENCH_SEMIHOSTING", "0")],
        &["mairbench.selftest=fault"],
    );
    assert_eq!(failed.one("end")["status"], "fail");
    assert_eq!(
        failed.status, 1,
        "a failed run must not exit 0: {}",
        failed.stderr
    );
}

#[test]
fn a_hung_firmware_is_killed_by_the_timeout() {
    let run = matrix::run("hang");
    assert_eq!(run.status, 124, "{}", run.stderr);
    assert!(run.stderr.contains("TIMEOUT"), "{}", run.stderr);
    assert!(run.of_kind("end").is_empty());
    assert!(run.wall < Duration::from_secs(15), "took {:?}", run.wall);
}

#[test]
fn unknown_bootargs_are_named_and_ignored() {
    let run = boot(
        &[],
        &[
            "console=ttyAMA0",
            "mairbench.bogus=1",
            "mairbench.quick",
            "mairbench.quick=maybe",
            "mairbench.rep=1",
        ],
    );
    run.assert_pass();
    let bogus = run
        .console
        .lines()
        .find(|l| l.contains("unknown option 'mairbench.bogus' ignored"))
        .expect("the unknown key is named");
    assert!(!bogus.contains("did you mean"), "{bogus}");
    assert!(run
        .console
        .contains("unknown option 'mairbench.rep' ignored; did you mean 'mairbench.reps'?"));
    // The typo is ignored, so the quick set's three repetitions stay.
    let results = run.results();
    assert!(!results.is_empty() && results.iter().all(|r| r["reps"] != 1));
    assert!(run
        .console
        .contains("'console=ttyAMA0' is not a mairbench option"));
    assert!(run.console.contains("bad value 'maybe'"));
    assert_eq!(run.one("end")["warnings"], 3);
    assert_eq!(
        run.one("start")["bootargs"],
        common::with_host(
            "console=ttyAMA0 mairbench.bogus=1 mairbench.quick mairbench.quick=maybe \
             mairbench.rep=1"
        )
        .as_str()
    );
}

#[test]
fn bad_runner_settings_are_refused_clearly() {
    for (k, v) in [
        ("MAIRBENCH_EL", "4"),
        ("MAIRBENCH_BOOT", "pxe"),
        ("MAIRBENCH_SMP", "zero"),
    ] {
        let run = boot(&[(k, v)], &[]);
        assert_eq!(run.status, 2, "{k}={v}: {}", run.stderr);
        assert!(run.stderr.contains(k), "{k}={v}: {}", run.stderr);
    }
}

#[test]
fn a_stack_overflow_hits_the_guard_page_and_is_reported() {
    let run = boot(&[], &["mairbench.selftest=stack-overflow"]);
    run.assert_framed();
    let e = run.one("exception");
    assert_eq!(e["class"], "data abort");
    // The fault address lies in the guard page the memory proof also faulted on.
    let page = |v: &serde_json::Value| {
        u64::from_str_radix(v.as_str().unwrap().trim_start_matches("0x"), 16).unwrap() >> 12
    };
    let guard = run
        .of_kind("fault")
        .into_iter()
        .find(|f| f["test"] == "guard-page-load")
        .unwrap();
    assert_eq!(page(&e["far"]), page(&guard["va"]), "{}", run.console);
    assert_eq!(e["far_valid"], true, "{e}");
    assert!(run
        .console
        .contains(&format!("FAR_EL1 {}", e["far"].as_str().unwrap())));
    let line = source_line(&run);
    assert!(line.contains("src/main.rs:"), "{line}");
    assert!(run
        .console
        .contains("the main stack overflowed into its guard page"));
    assert_eq!(run.one("end")["status"], "fail");
    assert_eq!(run.status, 1);
}

#[test]
fn a_failed_run_names_its_failed_checks_and_warnings() {
    // bad-attr maps one alias with the wrong MAIR index: the memtype check fails; the unknown
    // option is a bootargs warning. Both are named in the end record, on the last line and in
    // the host tool's verdict.
    let run = boot(
        &[],
        &[
            "mairbench.quick",
            "mairbench.selftest=bad-attr",
            "mairbench.bogus=1",
        ],
    );
    run.assert_framed();
    let end = run.one("end");
    assert_eq!(end["status"], "fail");
    assert_eq!(
        end["failed_checks"],
        serde_json::json!(["memtype"]),
        "{end}"
    );
    assert_eq!(end["warned"], serde_json::json!(["bootargs"]), "{end}");
    assert!(end.get("failed_checks_omitted").is_none(), "{end}");
    let last = run
        .console
        .lines()
        .find(|l| l.starts_with("mairbench: status"))
        .unwrap();
    assert!(
        last.contains("1 failed: memtype, 1 warning: bootargs"),
        "{last}"
    );
    let dir = std::env::temp_dir().join(format!("mairbench-contract-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("console.log");
    std::fs::write(&log, &run.console).unwrap();
    let report = std::process::Command::new(env!("CARGO_BIN_EXE_mairbench-host"))
        .arg("report")
        .arg(&log)
        .arg("--out")
        .arg(dir.join("out"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&report.stderr);
    assert_eq!(report.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("the run failed: failed checks: memtype; warnings: bootargs."),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
