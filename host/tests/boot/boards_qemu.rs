//! QEMU's real-board machines, each booted with the board's own device tree from Debian's
//! arm64 kernel package (fetched by qemu/dtbs, not committed): `raspi4b` (Raspberry Pi 4B,
//! spin-table CPUs, the mini-UART), `imx8mp-evk` (i.MX 8M Plus EVK, PSCI over SMC, an i.MX
//! UART) and `xlnx-zcu102` (ZCU102, PSCI over SMC, a Cadence UART). The Pi 3B is the boot
//! matrix's row `raspi3b_with_the_boards_own_device_tree`.
//!
//! Each machine must show the console of the device tree's stdout-path, pass the memory proof
//! and the quick run, and give one `hello` record per CPU (four). The runs are the boot
//! matrix's (matrix.rs) but for a device tree of another board and a machine booted by hand.
//! Each machine has four vCPUs, enough to fill a small host: it holds the slots of four CPUs
//! ([`common::slot`]).

use crate::common::{self, boot, root, Run};
use crate::matrix::{self, SHORT};
use std::collections::BTreeSet;

const QUICK: &[&str] = &["mairbench.quick"];

/// The settings for `machine`, as the boot matrix's rows of these machines have them. Four
/// running CPUs make a quick run take 10 s to 20 s of wall time on a loaded 2-core host (virt
/// with MAIRBENCH_SMP=4: 11 s, against 1 s with one), so QEMU gets more than the usual 60 s.
fn on(machine: &str) -> Vec<(&str, &str)> {
    vec![("MAIRBENCH_MACHINE", machine), ("MAIRBENCH_TIMEOUT", "80")]
}

/// The runner names the QEMU it runs, once, on stderr.
fn assert_qemu_named(run: &Run) {
    let lines: Vec<_> = run
        .stderr
        .lines()
        .filter(|l| l.starts_with("mairbench: QEMU emulator version "))
        .collect();
    assert_eq!(lines.len(), 1, "stderr:\n{}", run.stderr);
}

/// The firmware's own verdict as QEMU's exit status (semihosting SYS_EXIT: 0 pass, 1 fail),
/// which does not need a console: the runner exits 0 only with a passing end record and QEMU
/// status 0, and otherwise says QEMU's exit status on stderr.
fn firmware_exit_status(run: &Run) -> i32 {
    if run.status == 0 {
        return 0;
    }
    assert_eq!(
        run.status, 1,
        "the runner neither passed nor failed:\n{}",
        run.stderr
    );
    let said = run
        .stderr
        .split("(QEMU exit status ")
        .nth(1)
        .and_then(|rest| rest.split(')').next())
        .unwrap_or_else(|| panic!("no QEMU exit status on stderr:\n{}", run.stderr));
    said.parse().expect("a number")
}

/// Four CPUs said hello, MPIDR 0 to 3, each entered at `entry_el` and running at EL1; none
/// was left behind.
fn assert_four_cpus(run: &Run, entry_el: u64) {
    let hellos = run.of_kind("hello");
    assert_eq!(hellos.len(), 4, "four hello records:\n{}", run.console);
    let mpidrs: BTreeSet<&str> = hellos.iter().filter_map(|h| h["mpidr"].as_str()).collect();
    assert_eq!(mpidrs, BTreeSet::from(["0x0", "0x1", "0x2", "0x3"]));
    for hello in &hellos {
        assert_eq!(hello["entry_el"], entry_el, "{hello}");
        assert_eq!(hello["el"], 1, "{hello}");
    }
    let left: Vec<_> = run
        .of_kind("cpu")
        .into_iter()
        .filter(|c| c["started"] == false)
        .collect();
    assert!(left.is_empty(), "CPUs not started: {left:?}");
}

/// QEMU 10's Raspberry Pi 4B: four Cortex-A72 (r0p3) and 2 GiB, of which QEMU's /memory names
/// the first 960 MiB (below the VideoCore's part); entered at EL2; no PSCI.
fn assert_raspi4b_start(run: &Run) {
    let start = run.one("start");
    assert_eq!(start["platform"], "Raspberry Pi 4 Model B");
    assert_eq!(start["entry_el"], 2);
    assert_eq!(start["midr"], "0x410fd083", "Cortex-A72 r0p3");
    assert_eq!(
        start["console"], "ns16550",
        "the mini-UART, driven as a 16550"
    );
    assert_eq!(
        start["console_base"], "0xfe215040",
        "0x7e215040 through the soc ranges"
    );
    assert_eq!(start["psci"], "none");
    assert_eq!(start["image_base"], "0x200000");
    assert_eq!(start["ram_base"], "0x0");
    assert_eq!(start["ram_size"], 960u64 << 20);
    assert_eq!(
        start["bootargs"],
        common::with_host(&matrix::QUICK_SMALL.join(" ")).as_str()
    );
}

#[test]
fn raspi4b_boots_at_el2_and_proves_the_memory_types() {
    let run = matrix::run("raspi4b");
    run.assert_pass();
    assert_qemu_named(run);
    assert_raspi4b_start(run);
    assert!(
        run.console.contains("PSCI is unavailable"),
        "{}",
        run.console
    );
    run.assert_memory_proven();
    let boot_cpu: Vec<_> = run
        .of_kind("hello")
        .into_iter()
        .filter(|h| h["cpu"] == 0)
        .collect();
    assert_eq!(boot_cpu.len(), 1, "{}", run.console);
    assert_eq!(boot_cpu[0]["mpidr"], "0x0");
    assert_eq!(boot_cpu[0]["entry_el"], 2);
    let kernels: BTreeSet<_> = run
        .results()
        .iter()
        .filter_map(|r| r["kernel"].as_str())
        .collect();
    assert_eq!(
        kernels,
        BTreeSet::from(["read-ldp", "write-stp", "write-line"])
    );
}

/// The three secondaries, released through the spin table (their enable-method).
#[test]
fn raspi4b_all_four_cpus_through_the_spin_table() {
    let run = matrix::run("raspi4b");
    run.assert_pass();
    assert_raspi4b_start(run);
    run.assert_memory_proven();
    assert_four_cpus(run, 2);
}

/// MAIRBENCH_DTB replaces the board's device tree: the Raspberry Pi 400's (same SoC and
/// console) names its own model.
#[test]
fn raspi4b_boots_the_device_tree_mairbench_dtb_names() {
    let out = std::process::Command::new(root().join("qemu/dtbs"))
        .output()
        .expect("qemu/dtbs runs");
    assert!(out.status.success(), "qemu/dtbs failed");
    let dir = String::from_utf8(out.stdout).expect("a path");
    let dtb = format!("{}/all/broadcom/bcm2711-rpi-400.dtb", dir.trim());
    let mut env = on("raspi4b");
    env.push(("MAIRBENCH_DTB", &dtb));
    let run = boot(&env, SHORT);
    run.assert_pass();
    assert_eq!(run.one("start")["platform"], "Raspberry Pi 400");
}

/// The image runs to its end, whatever the console shows: the firmware's exit status says
/// pass (the boot matrix's quick row `pass`), and fail when the proof is made to fail (its
/// row `fail`: a short run with `mairbench.selftest=bad-attr`).
fn assert_runs_to_its_verdict(pass: &str, fail: &str) {
    let (pass, fail) = ((pass, matrix::run(pass)), (fail, matrix::run(fail)));
    assert_qemu_named(pass.1);
    assert_eq!(
        firmware_exit_status(pass.1),
        0,
        "{}: {}",
        pass.0,
        pass.1.stderr
    );
    assert_eq!(fail.1.status, 1, "{}: {}", fail.0, fail.1.stderr);
    assert_eq!(
        firmware_exit_status(fail.1),
        1,
        "{}: {}",
        fail.0,
        fail.1.stderr
    );
}

#[test]
fn a_board_machine_booted_by_hand_is_told_by_its_behaviour() {
    // No mairbench.host= and the board's own device tree, in which nothing marks QEMU: the
    // firmware must tell TCG by its tells, or judge flat curves as a board (four false FAILs
    // before it did: caches-on, uncached, write-allocate, write-through).
    let mut env = on("raspi4b");
    env.push(("MAIRBENCH_HOST_BOOTARG", "0"));
    let run = boot(&env, QUICK);
    run.assert_pass();
    let start = run.one("start");
    assert!(start["host"].is_null(), "{start}");
    assert_eq!(start["emulated"], true, "{start}");
    assert_eq!(
        start["emulated_by"],
        serde_json::json!(["tells"]),
        "{start}"
    );
    let tells: Vec<&str> = start["emulation_tells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t.as_str().unwrap())
        .collect();
    // QEMU's PMU event list alone decides (the cycle counter's rate, measured against the
    // counter on a loaded host, may stray).
    assert!(tells.contains(&"qemu-pmu-events"), "{tells:?}");
    assert!(
        run.console
            .contains("under an emulator say so with mairbench.host=<name>"),
        "{}",
        run.console
    );
    for v in run.of_kind("verdict") {
        assert_ne!(v["status"], "fail", "{v}");
    }
    assert_eq!(run.one("end")["warned"], serde_json::json!(["emulation"]));
}

#[test]
fn imx8mp_evk_runs_the_firmware_to_its_verdict() {
    assert_runs_to_its_verdict("imx8mp_evk", "imx8mp_evk_bad_attr");
}

#[test]
fn xlnx_zcu102_runs_the_firmware_to_its_verdict_at_el1_and_el2() {
    assert_runs_to_its_verdict("xlnx_zcu102", "xlnx_zcu102_bad_attr");
    let el2 = matrix::run("xlnx_zcu102_el2");
    assert_eq!(firmware_exit_status(el2), 0, "{}", el2.stderr);
}

/// The console on the i.MX UART (UART2, the EVK's stdout-path).
#[test]
fn imx8mp_evk_console_on_uart2_proof_and_four_psci_cpus() {
    let run = matrix::run("imx8mp_evk");
    run.assert_pass();
    let start = run.one("start");
    assert_eq!(start["platform"], "NXP i.MX8MPlus EVK board");
    assert_eq!(start["entry_el"], 2);
    assert_eq!(start["midr"], "0x410fd034", "Cortex-A53 r0p4");
    assert_eq!(start["console_base"], "0x30890000", "UART2");
    assert_eq!(start["psci"], "smc");
    assert_eq!(start["image_base"], "0x40200000");
    assert_eq!(start["ram_base"], "0x40000000");
    assert_eq!(start["ram_size"], 6u64 << 30);
    assert_eq!(
        start["bootargs"],
        common::with_host(&matrix::QUICK_SMALL.join(" ")).as_str()
    );
    run.assert_memory_proven();
    assert_four_cpus(run, 2);
}

/// The console on the Cadence UART (UART0, the ZCU102's stdout-path).
#[test]
fn xlnx_zcu102_console_on_uart0_proof_and_four_psci_cpus() {
    let run = matrix::run("xlnx_zcu102");
    run.assert_pass();
    let start = run.one("start");
    assert_eq!(start["platform"], "ZynqMP ZCU102 Rev1.0");
    assert_eq!(start["entry_el"], 1);
    assert_eq!(start["midr"], "0x410fd034", "Cortex-A53 r0p4");
    assert_eq!(start["console_base"], "0xff000000", "UART0");
    assert_eq!(start["psci"], "smc");
    assert_eq!(start["image_base"], "0x200000");
    assert_eq!(start["ram_base"], "0x0");
    assert_eq!(start["ram_size"], 2u64 << 30);
    assert_eq!(
        start["bootargs"],
        common::with_host("mairbench.quick").as_str()
    );
    run.assert_memory_proven();
    assert_four_cpus(run, 1);
}

/// MAIRBENCH_EL=2 (virtualization=on): the console, the proof and four CPUs entered at EL2.
#[test]
fn xlnx_zcu102_entered_at_el2_with_virtualization() {
    let run = matrix::run("xlnx_zcu102_el2");
    run.assert_pass();
    assert_eq!(run.one("start")["entry_el"], 2);
    run.assert_memory_proven();
    assert_four_cpus(run, 2);
}

/// What the boards are cannot be changed: refused with status 2 before QEMU runs.
#[test]
fn real_board_machines_refuse_settings_that_do_not_apply() {
    let cases: &[(&str, &str, &str)] = &[
        ("raspi4b", "MAIRBENCH_EL", "1"),
        ("raspi4b", "MAIRBENCH_SMP", "2"),
        ("raspi4b", "MAIRBENCH_MEM", "1G"),
        ("raspi4b", "MAIRBENCH_BOOT", "uboot"),
        ("raspi4b", "MAIRBENCH_SEMIHOSTING", "0"),
        ("imx8mp-evk", "MAIRBENCH_EL", "1"),
        ("imx8mp-evk", "MAIRBENCH_CPU", "cortex-a72"),
        ("imx8mp-evk", "MAIRBENCH_BOOT", "uboot-script"),
        ("xlnx-zcu102", "MAIRBENCH_EL", "3"),
        ("xlnx-zcu102", "MAIRBENCH_SMP", "6"),
        ("xlnx-zcu102", "MAIRBENCH_BOOT", "uboot-bootm"),
    ];
    for &(machine, k, v) in cases {
        let run = boot(&[("MAIRBENCH_MACHINE", machine), (k, v)], &[]);
        assert_eq!(run.status, 2, "{machine} {k}={v}: {}", run.stderr);
        assert!(
            run.stderr.contains(machine),
            "{machine} {k}={v}: {}",
            run.stderr
        );
        assert!(run.console.is_empty(), "{machine} {k}={v}: QEMU ran");
    }
}
