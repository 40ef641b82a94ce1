//! The commands that read logs, over a checked-in armv7 log (`qemu10-armv7-quick.log`, the
//! 32-bit image's `mairbench.quick` run) alone and beside an AArch64 one
//! (`qemu10-quick.log`): the same commands, each log under its own names, compared by row of
//! core's tables.

use std::ffi::OsStr;

use crate::common::tool::{self, data};
use mairbench_core::arch::Arch;
use mairbench_core::kernel::Kernel;
use mairbench_core::memtype::{self, Role};

const ARMV7: &str = "qemu10-armv7-quick.log";
const AARCH64: &str = "qemu10-quick.log";

fn run(test: &str, command: &str, logs: &[&str]) -> tool::Done {
    let paths: Vec<_> = logs.iter().map(|l| data(l)).collect();
    let args: Vec<&OsStr> = std::iter::once(command.as_ref())
        .chain(paths.iter().map(|p| p.as_os_str()))
        .collect();
    let d = tool::run("armv7", &args, test);
    assert_eq!(d.code, Some(0), "{}\n{}", d.stdout, d.stderr);
    d
}

/// The name of `kernel` on 32-bit Arm.
fn a32(kernel: Kernel) -> &'static str {
    Arch::Armv7.kernel(kernel).unwrap().name
}

#[test]
fn report_of_an_armv7_log_uses_its_names() {
    let d = run("report", "report", &[ARMV7]);
    let (read, write) = (a32(Kernel::ReadLdp), a32(Kernel::WriteStp));
    assert_eq!((read, write), ("read-ldm", "write-stm"));
    // Its charts, named and titled as the log names its kernels.
    let chart = d.file(&format!("{read}-{write}.svg"));
    assert!(chart.contains(read) && chart.contains(write), "{chart}");
    assert!(!chart.contains("read-ldp"), "{chart}");
    d.file(&format!("ratio-{read}-{write}.svg"));
    // Its tables: the hinted write-back row as armv7 names it, in the row's place.
    let table = d
        .stdout
        .split(&format!("\n{read} (MB/s"))
        .nth(1)
        .unwrap_or_else(|| panic!("{}", d.stdout));
    let rows: Vec<&str> = table
        .lines()
        .skip(2)
        .take(2)
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    assert_eq!(rows, ["normal-wb", "normal-wb-nowa"], "{}", d.stdout);
}

#[test]
fn verdicts_of_an_armv7_log_agree() {
    // Today's sentences in the log's names: the 32-bit image's own verdict records name
    // PMCCNTR and DCIMVAC, so a sentence worded as for AArch64 (PMCCNTR_EL0, DC IVAC)
    // would differ from them.
    let d = run("verdicts", "verdicts", &[ARMV7]);
    for aarch64 in [
        "PMCCNTR_EL0",
        "DC IVAC",
        "SCTLR_EL1",
        "read-ldp",
        "normal-wb-noalloc",
    ] {
        assert!(!d.stdout.contains(aarch64), "{aarch64}: {}", d.stdout);
    }
    assert!(
        d.stdout.contains("under QEMU PMCCNTR counts"),
        "{}",
        d.stdout
    );
    assert!(
        d.stdout.contains("DCIMVAC made normal-wb read"),
        "{}",
        d.stdout
    );
    let json = d.file("verdicts.json");
    assert!(
        json.contains("DCIMVAC") && !json.contains("DC IVAC"),
        "{json}"
    );
    // Every input of every verdict found in the 32-bit image's records.
    assert!(!d.stdout.contains("inputs the log lacks"), "{}", d.stdout);
    assert!(
        d.stdout
            .contains("today's judgement agrees with the log's verdict records"),
        "{}",
        d.stdout
    );
}

#[test]
fn fleet_of_both_architectures() {
    let d = run("table", "table", &[AARCH64, ARMV7]);
    let out = &d.stdout;
    let logs: Vec<&str> = out.lines().filter(|l| l.starts_with('#')).take(2).collect();
    assert!(
        logs[0].contains(" aarch64 ") && logs[0].ends_with(AARCH64),
        "{out}"
    );
    assert!(
        logs[1].contains(" armv7 ") && logs[1].ends_with(ARMV7),
        "{out}"
    );
    // The write-back row without (write) allocation is found in both logs: no footnote for
    // that column in either row.
    let hinted = memtype::MEMTYPES[memtype::position(Role::WriteBackHinted).unwrap()].name;
    assert!(!out.contains("WB-noalloc/WB write: no"), "{out}");
    assert!(!out.contains(&format!("point of {hinted}")), "{out}");
    let note = out
        .lines()
        .find(|l| l.starts_with("WB-noalloc/WB write: "))
        .unwrap();
    assert!(
        note.contains("On armv7") && note.contains("normal-wb-nowa, write-back, no write-allocate"),
        "{note}"
    );
    let csv = d.file("fleet.csv");
    let lines: Vec<&str> = csv.lines().collect();
    assert!(lines[0].contains(",accel,arch,"), "{csv}");
    assert!(lines[1].contains(",tcg,aarch64,"), "{csv}");
    assert!(lines[2].contains(",tcg,armv7,"), "{csv}");
    let json = d.file("fleet.json");
    assert!(
        json.contains("\"memtype\": \"normal-wb-nowa\"")
            || json.contains("\"memtype\":\"normal-wb-nowa\""),
        "{json}"
    );
}

#[test]
fn compare_across_architectures_by_row() {
    let d = run("compare", "compare", &[AARCH64, ARMV7]);
    let out = &d.stdout;
    assert!(
        out.contains("architectures differ: A is aarch64, B armv7"),
        "{out}"
    );
    assert!(
        out.contains("read-ldm is read-ldp") && out.contains("normal-wb-nowa is normal-wb-noalloc"),
        "{out}"
    );
    // The streaming kernels are compared, under A's names, and so is the hinted row (in an
    // order the runs' timings set).
    let mut kernels: Vec<&str> = out
        .lines()
        .skip_while(|l| !l.starts_with("kernel "))
        .skip(1)
        .take_while(|l| !l.is_empty() && !l.starts_with("moved"))
        .map(|l| l.split_whitespace().next().unwrap())
        .collect();
    kernels.sort_unstable();
    assert_eq!(kernels, ["read-ldp", "write-line", "write-stp"], "{out}");
    let csv = d.file("compare.csv");
    assert!(
        csv.lines()
            .any(|l| l.starts_with("read-ldp,normal-wb-noalloc,")),
        "{csv}"
    );
    let chart = d.file("compare-read-ldp.svg");
    assert!(chart.contains("read-ldp (B: read-ldm)"), "{chart}");
}

/// The armv7 log as a board would have written it: not emulated, and its `smp_bits` record
/// saying the Cortex-A7's SMP bit was clear at entry and stayed clear (a vendor loader that
/// left it so, the image in Non-secure SVC without NSACR.NS_SMP).
fn on_a_board_with_smp_clear() -> std::path::PathBuf {
    let log = std::fs::read_to_string(data(ARMV7)).unwrap();
    let mut out = String::new();
    for line in log.lines() {
        if line.starts_with("@mb {\"kind\":\"start\"") {
            out.push_str(&line.replace("\"emulated\":true", "\"emulated\":false"));
            out.push_str(
                "\n@mb {\"kind\":\"smp_bits\",\"core\":\"Cortex-A7\",\"needs\":\"0x40\",\
                 \"entry\":\"0x0\",\"actlr\":\"0x0\",\"missing\":\"0x40\",\
                 \"set_by_image\":false}\n",
            );
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    let path = tool::scratch("armv7", "smp-clear-log").join("board.log");
    std::fs::write(&path, out).unwrap();
    path
}

#[test]
fn verdicts_judge_the_smp_bits_of_a_32_bit_board() {
    let log = on_a_board_with_smp_clear();
    let d = tool::run(
        "armv7",
        &["verdicts".as_ref(), log.as_os_str()],
        "smp-clear",
    );
    let line = d
        .stdout
        .lines()
        .find(|l| l.contains("smp-config") && l.contains("ACTLR"))
        .unwrap_or_else(|| panic!("{}\n{}", d.stdout, d.stderr));
    assert!(line.contains("warn"), "{line}");
    assert!(
        line.contains("the Cortex-A7's SMP clear and the image's write to set it ignored"),
        "{line}"
    );
    assert!(
        line.contains("DDI 0464") && line.contains("NSACR.NS_SMP"),
        "{line}"
    );
    // The checked-in log is QEMU's: its SMP bits are not judged there (no smp_bits record
    // either), and smp-config stays as logged.
    let d = run("verdicts-qemu", "verdicts", &[ARMV7]);
    assert!(!d.stdout.contains("ACTLR"), "{}", d.stdout);
}
