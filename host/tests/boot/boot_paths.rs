//! Boot paths beyond the boot matrix (matrix.rs, which has `bootm` entry with caches on for a
//! FEAT_CCIDX CPU and for one without): the ELF itself under QEMU `-kernel` (linked at QEMU
//! virt's kernel address), PSCI over a conduit the firmware has left, the console without a
//! device tree, and a gdb session.
//!
//! Some runs start QEMU directly rather than through `qemu/run`, where the runner has no
//! setting for what they need (the ELF as `-kernel`, a device tree the runner does not pass);
//! those are stopped as soon as the console shows what the test waits for.

use crate::common;
use crate::common::{firmware, records, root};
use crate::matrix;
use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Runs `qemu-system-aarch64 args` until it exits, `stop` matches the console so far, or
/// `limit` passes; QEMU is then killed.
fn qemu_direct(args: &[&str], stop: impl Fn(&str) -> bool, limit: Duration) -> common::Qemu {
    common::qemu(
        Command::new("qemu-system-aarch64")
            .args(["-nographic", "-monitor", "none", "-net", "none"])
            .args(args),
        stop,
        limit,
    )
}

/// The verdict of `qemu/judge` on a console log and QEMU's exit status.
fn judge(console: &str, status: i32) -> i32 {
    // A file of its own per call: two tests judge at once.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let log = std::env::temp_dir().join(format!(
        "mairbench-boot-paths-{}-{n}.log",
        std::process::id()
    ));
    std::fs::write(&log, console).expect("log written");
    let verdict = Command::new(root().join("qemu/judge"))
        .arg(&log)
        .arg(status.to_string())
        .status()
        .expect("qemu/judge runs");
    let _ = std::fs::remove_file(&log);
    verdict.code().unwrap_or(-1)
}

fn one<'a>(records: &'a [serde_json::Value], kind: &str) -> &'a serde_json::Value {
    let found: Vec<_> = records.iter().filter(|r| r["kind"] == kind).collect();
    assert_eq!(found.len(), 1, "{} {kind} records", found.len());
    found[0]
}

/// `qemu-system-aarch64 -M virt -kernel` of the ELF: QEMU loads it where it is linked
/// (0x40200000), enters with x0 = 0 and puts its device tree at the base of RAM.
#[test]
fn elf_under_qemu_kernel() {
    let elf = firmware();
    let run = qemu_direct(
        &[
            "-machine",
            "virt",
            "-cpu",
            "cortex-a72",
            "-m",
            "256M",
            "-semihosting",
            "-kernel",
            elf.to_str().unwrap(),
            "-append",
            "mairbench.quick",
        ],
        |_| false,
        Duration::from_secs(60),
    );
    let status = run.exited.expect("QEMU exits by itself (semihosting)");
    assert_eq!(judge(&run.console, status), 0, "{run}");
    let records = records(&run.console);
    let start = one(&records, "start");
    assert_eq!(start["image_base"], "0x40200000", "{run}");
    assert_eq!(start["dtb"], "0x40000000", "{run}");
    assert_eq!(start["bootargs_from"], "dtb");
    assert!(run.console.contains("; x0 0x0\n"), "{run}");
    let checks: Vec<_> = records.iter().filter(|r| r["kind"] == "check").collect();
    let relocations = checks.iter().find(|c| c["name"] == "relocations").unwrap();
    assert_eq!(relocations["ok"], true);
    let serror = checks.iter().find(|c| c["name"] == "serror").unwrap();
    assert_eq!(serror["ok"], true, "SError unmasked at EL1");
}

/// The ELF's program headers put it at QEMU virt's kernel address, not at 0 (where QEMU
/// would load it into flash), and the raw Image made from it still starts with the header.
#[test]
fn elf_linked_at_the_qemu_virt_kernel_address() {
    let elf = std::fs::read(firmware()).expect("ELF readable");
    assert_eq!(&elf[..4], b"\x7fELF");
    let le64 = |at: usize| u64::from_le_bytes(elf[at..at + 8].try_into().unwrap());
    let le16 = |at: usize| u16::from_le_bytes(elf[at..at + 2].try_into().unwrap());
    assert_eq!(le64(0x18), 0x4020_0000, "e_entry");
    let (phoff, phentsize, phnum) = (le64(0x20) as usize, le16(0x36) as usize, le16(0x38));
    let loads: Vec<(u64, u64)> = (0..phnum as usize)
        .map(|i| phoff + i * phentsize)
        .filter(|&ph| u32::from_le_bytes(elf[ph..ph + 4].try_into().unwrap()) == 1)
        .map(|ph| (le64(ph + 0x10), le64(ph + 0x18)))
        .collect();
    assert!(!loads.is_empty());
    for (vaddr, paddr) in loads {
        assert!(vaddr >= 0x4020_0000, "PT_LOAD at {vaddr:#x}");
        assert_eq!(vaddr, paddr);
    }
}

/// Entered at EL2 with a device tree naming PSCI over HVC: an HVC from EL1 would land in the
/// EL2 the firmware left (the boot loader's vectors, here nobody's). It must say so, start no
/// CPU through it, and end with its final message (no semihosting: nothing else stops QEMU).
/// Calling it hangs at the first CPU_ON instead.
#[test]
fn psci_over_hvc_entered_at_el2_is_not_called() {
    let dtb = root().join("host/tests/data/pi3-psci-hvc.dtb");
    let image = firmware().with_extension("bin");
    // qemu/run makes the raw Image; boot once so that it exists and is current.
    matrix::run("kernel_a72_el1").assert_pass();
    let run = qemu_direct(
        &[
            "-machine",
            "raspi3b",
            "-serial",
            "null",
            "-serial",
            "stdio",
            "-dtb",
            dtb.to_str().unwrap(),
            "-kernel",
            image.to_str().unwrap(),
            "-append",
            // What qemu/run passes: the pi3 device tree alone does not say it is QEMU, and
            // the verdicts judge timings only on hardware.
            common::with_host("mairbench.quick").as_str(),
        ],
        |console| console.contains("the core now waits (wfe)"),
        Duration::from_secs(60),
    );
    let records = records(&run.console);
    let start = one(&records, "start");
    assert_eq!(start["entry_el"], 2, "{run}");
    assert_eq!(start["psci"], "hvc");
    assert!(
        run.console
            .contains("psci: hvc unusable: HVC would land in EL2"),
        "{run}"
    );
    let cpu = one(&records, "cpu");
    assert_eq!(cpu["mpidr"], "0x1");
    assert_eq!(cpu["started"], false);
    assert_eq!(cpu["why"], "PSCI over hvc is unusable from here");
    let end = one(&records, "end");
    assert_eq!(end["status"], "pass", "{run}");
    // The unusable conduit, the CPU it leaves down, and the smp-config verdict that counts
    // it.
    assert_eq!(
        end["warned"],
        serde_json::json!(["psci", "cpu", "smp-config"]),
        "{end}"
    );
    assert!(
        run.console
            .contains("no semihosting or PSCI to power off with"),
        "{run}"
    );
}

/// QEMU virt with an ELF `-kernel` and, as `-dtb`, the 1 MiB tree QEMU itself dumps
/// (`dumpdtb`) leaves RAM without any device tree (measured on QEMU 10.0.2: it loads neither
/// its own tree nor the file, and says nothing), which is how a standalone image starts on a
/// real board. Where semihosting answers the machine is QEMU and the console is QEMU virt's
/// PL011; where nothing says QEMU the firmware must not write to that guessed address: the
/// console stays silent. The first run also checks the premise (no device tree found).
#[test]
fn without_device_tree_the_console_is_guessed_only_on_qemu() {
    let elf = firmware();
    let elf = elf.to_str().unwrap();
    let dir = std::env::temp_dir().join(format!("mairbench-no-dtb-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dtb = dir.join("virt.dtb");
    common::dumpdtb("virt", &["-cpu", "cortex-a72", "-m", "256M"], &dtb);
    let dtb = dtb.to_str().unwrap().to_owned();
    let base = [
        "-machine",
        "virt",
        "-cpu",
        "cortex-a72",
        "-m",
        "256M",
        "-kernel",
        elf,
        "-dtb",
        &dtb,
    ];

    // mairbench.host= as qemu/run passes it: without a device tree nothing else says QEMU,
    // and the verdicts judge timings only on hardware.
    let config = format!(
        "enable=on,target=native,arg=mairbench,arg=mairbench.quick,arg=mairbench.host={}",
        common::qemu_host()
    );
    let semihosting = ["-semihosting-config", config.as_str()];
    let run = qemu_direct(
        &[&base[..], &semihosting[..]].concat(),
        |_| false,
        Duration::from_secs(60),
    );
    let status = run.exited.expect("QEMU exits by itself (semihosting)");
    assert_eq!(judge(&run.console, status), 0, "{run}");
    let records = records(&run.console);
    let start = one(&records, "start");
    assert_eq!(start["dtb"], "0x0", "the premise: no device tree\n{run}");
    assert_eq!(start["semihosting"], true);
    assert_eq!(start["console"], "pl011");
    assert_eq!(start["bootargs_from"], "semihosting");

    // The same without semihosting: the run takes about a second; nothing may appear.
    let run = qemu_direct(&base, |_| false, Duration::from_secs(4));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(
        run.exited, None,
        "nothing can stop QEMU: it runs until killed"
    );
    assert!(
        run.console.trim().is_empty(),
        "wrote to a guessed console address:\n{run}"
    );
}

/// `MAIRBENCH_GDB=1`: QEMU waits, halted, for gdb; the runner prints the command that
/// attaches; `gdb-multiarch -batch` with that command stops at `rust_main` with symbols.
/// gdb-multiarch is installed by ./test.sh before the tests (group gdb of qemu/packages).
#[test]
fn gdb_stops_at_rust_main() {
    if !common::deps::need("gdb") {
        return;
    }
    let elf = firmware();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free TCP port")
        .port()
        .to_string();
    let mut runner = Command::new(root().join("qemu/run"))
        .arg(&elf)
        .arg("mairbench.quick")
        .env("MAIRBENCH_GDB", "1")
        .env("MAIRBENCH_GDB_PORT", &port)
        .env("MAIRBENCH_TIMEOUT", "60")
        .env("MAIRBENCH_INSTALL", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("qemu/run starts");
    let mut stderr = BufReader::new(runner.stderr.take().unwrap());
    let mut hint = String::new();
    for _ in 0..20 {
        let mut line = String::new();
        if stderr.read_line(&mut line).unwrap_or(0) == 0 {
            break;
        }
        if line.contains("gdb-multiarch") {
            hint = line;
            break;
        }
    }
    let expected = format!(
        "gdb-multiarch -q {} -ex 'target remote :{port}'",
        elf.display()
    );
    assert_eq!(hint.trim(), expected, "the runner's hint");
    // QEMU listens once it has started; gdb retries until then.
    let started = Instant::now();
    let output = loop {
        let output = Command::new("gdb-multiarch")
            .args(["-q", "-batch", "-nx"])
            .arg(&elf)
            .args(["-ex", &format!("target remote :{port}")])
            .args(["-ex", "break rust_main", "-ex", "continue"])
            .args(["-ex", "info registers pc", "-ex", "kill"])
            .stdin(Stdio::null())
            .output()
            .expect("gdb-multiarch runs");
        let text = String::from_utf8_lossy(&output.stdout).into_owned()
            + &String::from_utf8_lossy(&output.stderr);
        if !text.contains("Connection refused") || started.elapsed() > Duration::from_secs(20) {
            break text;
        }
        std::thread::sleep(Duration::from_millis(200));
    };
    let status = runner.wait().expect("qemu/run ends once gdb killed QEMU");
    assert!(output.contains("Breakpoint 1, "), "{output}");
    assert!(
        output.contains("<mairbench::arch::aarch64::rust_main"),
        "pc inside rust_main:\n{output}"
    );
    assert_ne!(status.code(), Some(124), "the runner did not time out");
}
