//! Emulation is unmistakable: qemu/run names QEMU on the command line (`mairbench.host=`), so
//! a run of one of QEMU's board machines, which boot the real board's device tree, says
//! `emulated` as QEMU's virt does; and everything made from such a log (the firmware's
//! tables, `cargo host report`'s tables, CSV, JSON and charts, `cargo host compare`) says
//! that its timings do not reflect memory types.

use crate::common;

use crate::common::{boot, qemu_host, Run};
use crate::matrix;
use mairbench_host::analyse::report::{EMULATED_CAVEAT, EMULATED_STEPS};
use mairbench_host::draw::EMULATED_NOTE;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The reminder the firmware prints under each kernel table's title in an emulated run.
const TABLE_REMINDER: &str =
    "  (emulated: QEMU models no caches; these timings do not reflect memory types)";

/// A fresh, empty directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "mairbench-host-emulation-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `cargo host` with `args`; returns its stdout, having checked it exited 0.
fn host(args: &[&std::ffi::OsStr]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_mairbench-host"))
        .args(args)
        .output()
        .expect("the host tool starts");
    let stdout = String::from_utf8_lossy(&o.stdout).into_owned();
    assert_eq!(
        o.status.code(),
        Some(0),
        "{args:?}\n{stdout}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    stdout
}

/// What the firmware says about emulation in `run`, checked in words and in `start`.
fn assert_emulated(run: &Run, by: &[&str]) {
    run.assert_pass();
    let start = run.one("start");
    assert_eq!(start["emulated"], true, "{start}");
    assert_eq!(start["host"], qemu_host().as_str());
    assert_eq!(start["emulated_by"], serde_json::json!(by), "{start}");
    assert!(
        run.console.contains(
            "emulated machine: QEMU models no caches, so timings do not reflect memory types"
        ),
        "{}",
        run.console
    );
    let said = format!(
        "emulated: said by mairbench.host={} (the runner)",
        qemu_host()
    );
    assert!(run.console.contains(&said), "{}", run.console);
    // Under the title of every table of timings (mairbench.quick: read-ldp and write-stp,
    // then the scaling table where more than one core runs).
    let lines: Vec<&str> = run.console.lines().collect();
    let mut tables = 0;
    for (i, line) in lines.iter().enumerate() {
        if line.contains(", best of ") {
            tables += 1;
            assert_eq!(lines.get(i + 1).copied(), Some(TABLE_REMINDER), "{line}");
        }
    }
    assert!(tables >= 2, "{}", run.console);
    assert_eq!(run.console.matches(TABLE_REMINDER).count(), tables);
}

/// `cargo host report` of `console` in `dir`: the caveat in the terminal, on every CSV row,
/// in the JSON and in every chart.
fn assert_report_says_emulated(console: &str, dir: &Path) -> PathBuf {
    let log = dir.join("console.log");
    std::fs::write(&log, console).unwrap();
    let out = dir.join("report");
    let stdout = host(&[
        "report".as_ref(),
        log.as_os_str(),
        "--out".as_ref(),
        out.as_os_str(),
    ]);
    assert!(stdout.contains(EMULATED_CAVEAT), "{stdout}");
    assert!(
        stdout.contains(&format!("note: {EMULATED_STEPS}")),
        "{stdout}"
    );
    // As the lab (step 2f) quotes them: the header's end and the note's line.
    let caveat = format!("note: {EMULATED_CAVEAT}");
    assert!(stdout.lines().any(|l| l == caveat), "{stdout}");
    assert!(
        stdout
            .lines()
            .next()
            .unwrap()
            .contains(", emulated; status "),
        "{stdout}"
    );
    let lab = std::fs::read_to_string(common::root().join("docs/lab.md")).unwrap();
    assert!(
        lab.contains(&format!("`{caveat}`")),
        "docs/lab.md quotes the note"
    );
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let mut rows = csv.lines();
    assert!(rows.next().unwrap().ends_with(",emulated"), "{csv}");
    assert!(rows.clone().count() > 0);
    assert!(rows.all(|r| r.ends_with(",true")), "{csv}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap();
    assert_eq!(json["emulated"], true);
    assert_eq!(json["caveat"], EMULATED_CAVEAT);
    let mut charts = 0;
    for entry in std::fs::read_dir(&out).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "svg") {
            charts += 1;
            let svg = std::fs::read_to_string(&path).unwrap();
            assert!(svg.contains(EMULATED_NOTE), "{}", path.display());
        }
    }
    assert!(charts > 0, "no chart in {}", out.display());
    log
}

#[test]
fn qemu_virt_is_emulated_by_the_bootarg_its_device_tree_and_its_tells() {
    let run = matrix::run("kernel_a72_el1");
    assert_emulated(run, &["bootarg", "dtb", "tells"]);
    assert!(run
        .console
        .contains("; device tree: root compatible linux,dummy-virt"));
    // TCG, said by the runner and shown by the machine.
    assert_eq!(run.one("start")["accel"], "tcg");
    assert_report_says_emulated(&run.console, &scratch("virt"));
}

/// A QEMU booted by hand that claims KVM (`mairbench.accel=kvm`) while the machine shows
/// TCG's tells is judged TCG: emulated, with a warning that names the conflict. Nothing
/// said at all: TCG by the tells.
#[test]
fn kvm_said_against_tcg_tells_is_judged_tcg_with_a_warning() {
    let env = [("MAIRBENCH_HOST_BOOTARG", "0")];
    let run = boot(
        &env,
        &[
            "mairbench.quick",
            "mairbench.kernels=read-ldp",
            "mairbench.sizes=4K",
            "mairbench.host=qemu-by-hand",
            "mairbench.accel=kvm",
        ],
    );
    run.assert_pass();
    let start = run.one("start");
    assert_eq!(
        (&start["emulated"], &start["accel"]),
        (&serde_json::json!(true), &serde_json::json!("tcg")),
        "{start}"
    );
    assert!(
        run.console
            .contains("emulated: accel=kvm, but TCG's tells: judged TCG"),
        "{}",
        run.console
    );
    assert!(run.one("end")["warnings"].as_u64() >= Some(1));
    assert!(!run.console.contains("QEMU under KVM"), "{}", run.console);
    let run = boot(
        &env,
        &[
            "mairbench.quick",
            "mairbench.kernels=read-ldp",
            "mairbench.sizes=4K",
        ],
    );
    run.assert_pass();
    let start = run.one("start");
    assert_eq!(start["accel"], "tcg", "{start}");
    assert!(start.get("host").is_none(), "{start}");
}

#[test]
fn a_board_machine_is_emulated_by_the_bootarg_and_its_tells_and_every_report_says_so() {
    // raspi3b boots the Pi 3B's own device tree: nothing in it marks QEMU, but the runner
    // does, and QEMU's TCG shows (its PMU's event list).
    let run = matrix::run("raspi3b_with_the_boards_own_device_tree");
    assert_emulated(run, &["bootarg", "tells"]);
    assert_eq!(run.one("start")["platform"], "Raspberry Pi 3 Model B");
    assert!(run
        .console
        .contains("; nothing in the device tree marks QEMU"));
    let dir = scratch("raspi3b");
    let log = assert_report_says_emulated(&run.console, &dir);

    // Compared with a real board's log (not emulated), in either order: the caveat in the
    // terminal and in the chart.
    let board = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/handmade-board.log");
    for (i, (a, b)) in [(&board, &log), (&log, &board)].into_iter().enumerate() {
        let out = dir.join(format!("compare-{i}"));
        let stdout = host(&[
            "compare".as_ref(),
            a.as_os_str(),
            b.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
        ]);
        assert!(stdout.contains(EMULATED_CAVEAT), "{stdout}");
        // Every chart compare draws (one per kernel both logs measured) carries the note.
        let charts: Vec<_> = std::fs::read_dir(&out)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "svg"))
            .collect();
        assert!(!charts.is_empty(), "no compare chart in {}", out.display());
        for chart in charts {
            let svg = std::fs::read_to_string(&chart).unwrap();
            assert!(svg.contains(EMULATED_NOTE), "{}", chart.display());
        }
    }
}
