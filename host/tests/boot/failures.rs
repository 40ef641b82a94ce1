//! Failures explained, in QEMU: the fault, panic, bad-attr, hang and missing-cpu selftests
//! boot, and `cargo host report` of each log leads with why, from the records (the
//! exception's class, ESR, ELR and addr2line command; the panic's message and location; the
//! failed proof's alias and attributes; the last record and line before silence; the CPU not
//! started with its PSCI error named). qemu/run prints the same lead (its judge, qemu/judge).

use crate::common::Run;
use crate::matrix;
use std::path::PathBuf;
use std::process::Command;

/// `cargo host report` of the run's console log: its exit status, stdout and stderr.
fn report(name: &str, run: &Run) -> (i32, String, String) {
    let dir = std::env::temp_dir().join(format!("mairbench-failures-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let log: PathBuf = dir.join(format!("{name}.log"));
    std::fs::write(&log, &run.console).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_mairbench-host"))
        .arg("report")
        .arg(&log)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&log);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The report's lead: its first lines up to the first blank one; it must come first.
fn lead(stdout: &str) -> &str {
    assert!(
        stdout.starts_with("why the run "),
        "no lead first:\n{stdout}"
    );
    stdout.split("\n\n").next().unwrap()
}

/// `want` with the line the lead puts first for a run whose bootargs ask for a self-test:
/// the failure was asked for on purpose.
fn asked(run: &Run, test: &str, want: String) -> String {
    let (head, rest) = want.split_once('\n').expect("a heading");
    format!(
        "{head}\n  line {}: the bootargs ask for mairbench.selftest={test}: what follows was \
         asked for on purpose, a demonstration, not a finding about the board\n{rest}",
        line_of(run, "start")
    )
}

/// The 1-based line of the log that holds the one record of `kind`.
fn line_of(run: &Run, kind: &str) -> usize {
    let key = format!("@mb {{\"kind\":\"{kind}\"");
    let lines: Vec<usize> = run
        .console
        .lines()
        .enumerate()
        .filter(|(_, l)| l.contains(&key))
        .map(|(i, _)| i + 1)
        .collect();
    assert_eq!(lines.len(), 1, "{kind} records at {lines:?}");
    lines[0]
}

#[test]
fn a_fault_is_explained_by_class_registers_and_source_line() {
    let run = matrix::run("quick_fault");
    assert_eq!(run.status, 1, "{}", run.stderr);
    let e = run.one("exception");
    let (status, stdout, stderr) = report("fault", run);
    assert_eq!(status, 1, "{stderr}");
    let lead = lead(&stdout);
    let want = format!(
        "why the run failed:\n  \
         line {}: unexpected synchronous exception (current EL, SP_EL0): unknown reason \
         (undefined instruction)\n    \
         ESR_EL1 {} (EC 0x0), FAR_EL1 not valid for this class, ELR_EL1 {} (linked at {})\n    \
         source line: addr2line -e target/aarch64-unknown-none/release/mairbench -f -C {}",
        line_of(run, "exception"),
        e["esr"].as_str().unwrap(),
        e["elr"].as_str().unwrap(),
        e["elr_link"].as_str().unwrap(),
        e["elr_link"].as_str().unwrap(),
    );
    let want = asked(run, "fault", want);
    assert_eq!(lead, want);
    // The runner's own verdict leads with the same (its judge, the one of qemu/judge).
    assert!(run.stderr.contains(&want), "{}", run.stderr);
}

#[test]
fn a_panic_is_explained_by_message_and_location() {
    let run = matrix::run("quick_panic");
    let p = run.one("panic");
    let (status, stdout, stderr) = report("panic", run);
    assert_eq!(status, 1, "{stderr}");
    let want = format!(
        "why the run failed:\n  line {}: panic at src/main.rs:{}: selftest: panicking on \
         purpose",
        line_of(run, "panic"),
        p["line"]
    );
    assert_eq!(lead(&stdout), asked(run, "panic", want));
    assert!(stderr.contains("the run failed: panic."), "{stderr}");
}

#[test]
fn a_failed_proof_is_explained_by_alias_attributes_and_pa() {
    // bad-attr maps normal-nc with device-ngnrne's AttrIndx.
    let run = matrix::run("bad_attr");
    assert_eq!(run.status, 1, "{}", run.stderr);
    let bad: Vec<_> = run
        .of_kind("memtype")
        .into_iter()
        .filter(|m| m["ok"] == false)
        .collect();
    assert_eq!(bad.len(), 1, "{bad:?}");
    let line = run
        .console
        .lines()
        .position(|l| l.contains("\"kind\":\"memtype\"") && l.contains("\"ok\":false"))
        .unwrap()
        + 1;
    let (status, stdout, stderr) = report("bad-attr", run);
    assert_eq!(status, 1, "{stderr}");
    let want = asked(
        run,
        "bad-attr",
        format!(
            "why the run failed:\n  \
             line {line}: memtype proof failed for alias normal-nc (4K pages): wrong-attr: the \
             attribute is of the other class (Normal for Device, or the reverse)\n    \
             expected attribute MAIR[3] 0x44 (Normal, inner+outer non-cacheable), found \
             PAR_EL1.ATTR 0x00 (Device-nGnRnE (non-gathering, non-reordering, no early write \
             acknowledgement)), at PA {} (VA {} to {}, 32 MiB); its descriptors use AttrIndx \
             4, not the type's slot 3",
            bad[0]["pa"].as_str().unwrap(),
            bad[0]["va"].as_str().unwrap(),
            bad[0]["va_end"].as_str().unwrap(),
        ),
    );
    assert_eq!(lead(&stdout), want);
    // The memtype check's own failure is that proof: said once.
    assert!(!lead(&stdout).contains("check memtype"), "{stdout}");
}

#[test]
fn a_hang_is_explained_by_the_last_record_and_line() {
    let run = matrix::run("hang");
    assert_eq!(run.status, 124, "{}", run.stderr);
    let last = run.console.lines().count();
    assert_eq!(
        run.console.lines().last(),
        Some("selftest: hanging on purpose; the runner's timeout must end this"),
        "{}",
        run.console
    );
    let lines: Vec<&str> = run.console.lines().collect();
    let last_record = lines.iter().rposition(|l| l.starts_with("@mb ")).unwrap() + 1;
    let (status, stdout, stderr) = report("hang", run);
    assert_eq!(status, 1, "{stderr}");
    let want = format!(
        "why the run is incomplete:\n  \
         no end record: the firmware hung, or QEMU was killed by MAIRBENCH_TIMEOUT, or the \
         capture stopped early\n  \
         last record: line {last_record}, hello\n  \
         last line before silence: line {last}: selftest: hanging on purpose; the runner's \
         timeout must end this"
    );
    let want = asked(run, "hang", want);
    assert_eq!(lead(&stdout), want);
    // The runner says it after its TIMEOUT line.
    let timeout = run.stderr.find("TIMEOUT").expect("a TIMEOUT line");
    assert!(run.stderr[timeout..].contains(&want), "{}", run.stderr);
}

#[test]
fn a_missing_cpu_is_counted_alike_and_its_psci_error_named() {
    let run = matrix::run("a_core_that_cannot_start_is_named_and_the_run_goes_on");
    run.assert_pass();
    let cpu = run.one("cpu");
    assert_eq!(cpu["mpidr"], "0xff00");
    assert_eq!(cpu["why"], "PSCI CPU_ON returned -2");
    // The cpus: line and the smp-config verdict count the same CPUs: the two of /cpus and
    // the missing one the selftest asked PSCI for.
    let smp = run.one("smp");
    assert_eq!(
        (smp["cpus"].as_u64(), smp["started"].as_u64()),
        (Some(3), Some(2))
    );
    assert!(
        run.console
            .lines()
            .any(|l| l == "cpus: 2 of 3 running at EL1"),
        "{}",
        run.console
    );
    let verdict = run
        .of_kind("verdict")
        .into_iter()
        .find(|v| v["name"] == "smp-config")
        .unwrap();
    assert_eq!(verdict["evidence"]["cpus"], 3, "{verdict}");
    assert!(
        verdict["why"]
            .as_str()
            .unwrap()
            .starts_with("2 of 3 CPUs started"),
        "{verdict}"
    );
    let (status, stdout, stderr) = report("missing-cpu", run);
    assert_eq!(status, 0, "{stderr}");
    let want = format!(
        "why the run warned:\n  line {}: CPU 0xff00 did not start: PSCI CPU_ON returned -2 \
         INVALID_PARAMETERS",
        line_of(run, "cpu")
    );
    assert_eq!(lead(&stdout), asked(run, "missing-cpu", want));
}
