//! The 32-bit image (`armv7-unknown-linux-gnueabihf`, `MAIRBENCH_ARCH=armv7`), booted through
//! the runner in `qemu-system-arm -machine virt`: the boot matrix's three `armv7_*` rows
//! (matrix.rs), each booted once. What they must show is correctness, never speed (QEMU
//! models no caches):
//!
//! - `armv7_a7_svc`: a Cortex-A7 entered in SVC mode by QEMU's `-kernel`, the quick sweep
//!   (what `MAIRBENCH_ARCH=armv7 ./run.sh mairbench.quick` runs, and docs/lab-armv7.md
//!   shows): the start record says `armv7`, the run passes, and the six ARMv7 memory types
//!   (no nGRE or GRE) are each mapped, proven and measured;
//! - `armv7_a15_hyp_4_cpus`: four Cortex-A15s entered in HYP mode (`virtualization=on`), which
//!   the image leaves for SVC: every CPU runs, with the boot CPU's registers;
//! - `armv7_a7_uboot_bootz`: Debian's `qemu_arm` U-Boot boots it by `bootz`, in SVC mode;
//! - `armv7_a7_uboot_bootm`: the same U-Boot boots it by `bootm` of a Linux kernel uImage
//!   (`mkimage -A arm -O linux -T kernel`), copied to the load address and entered as by
//!   `bootz`.
//!
//!
//! And on QEMU's 32-bit boards' machines, each with the board's own tree from Debian's armhf
//! kernel (fetched by qemu/dtbs, not committed: a missing tree is named by the runner, exit
//! status 3, and the row fails), the `armv7_board_*` rows:
//!
//! - `mcimx6ul-evk`: one Cortex-A7 entered in HYP mode, RAM at 0x8000_0000, PSCI over SMC:
//!   the run passes with the six types mapped, proven and measured;
//! - `orangepi-pc` (HYP mode, PSCI over SMC) and `raspi2b` (SVC mode, no PSCI, RAM at 0):
//!   four Cortex-A7s, all running, nothing warned: the H3's tree names no enable-method and
//!   QEMU adds `/psci`, so the image starts them by PSCI CPU_ON, as Linux's ARM code does; the
//!   Pi 2B's names `brcm,bcm2836-smp`, and the image writes each CPU's entry to its mailbox in
//!   the `brcm,bcm2836-l1-intc` node's registers, which QEMU's boot stub polls. Its tree
//!   without that node, or with a mailbox written twice (so that no stub takes the second
//!   address), names the CPUs not started, with the reason, after a bounded wait at most;
//! - `sabrelite` (Cortex-A9) and `cubieboard` (Cortex-A8): no generic timer and no LPAE, so
//!   the image builds short-descriptor tables with TEX remap and proves each alias by its
//!   address (QEMU's short-descriptor PAR reports no attributes). On the SABRE Lite the
//!   i.MX6's GPT times the run, the L2C-310 is mapped and said disabled, its clean is timed
//!   beside the CPU's (the `outer_maint` record: its counts, and each figure against its
//!   ticks, never a speed), and the run passes on the boot CPU; on the Cubieboard the A10's timer 1 times it, and the run ends `fail`,
//!   exit status 1, on the `serror` check alone. The Cubieboard's tree without its timer
//!   block leaves the image no clock: the `timer` check fails and the benchmark is not run,
//!   instead of hanging or printing figures of nothing.
//!
//! Each row's checks are a function of the run, and [`armv7_checks_fail_on_a_wrong_run`] (and
//! [`armv7_board_checks_fail_on_a_wrong_run`]) make sure each of them fails on a run that
//! differs in what it checks.

use crate::common::{Run, MEMTYPES_ARMV7};
use crate::matrix;
use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// MIDR's primary part number (bits 15:4): 0xc07 Cortex-A7, 0xc0f Cortex-A15.
fn part(run: &Run) -> u64 {
    let midr = run.one("start")["midr"].as_str().unwrap_or("").to_owned();
    let midr = u64::from_str_radix(midr.trim_start_matches("0x"), 16)
        .unwrap_or_else(|_| panic!("no MIDR in {}", run.one("start")));
    (midr >> 4) & 0xfff
}

/// A passing run of the 32-bit image on the core of MIDR part `core`, entered at `entry_el`
/// (the mode, as the records count it: SVC 1, HYP 2) and running in SVC (1), with a `hello`
/// from each of `cpus` CPUs.
fn armv7_pass(run: &Run, core: u64, entry_el: u64, cpus: usize) {
    run.assert_pass();
    let start = run.one("start");
    assert_eq!(start["arch"], "armv7", "{start}");
    assert_eq!(start["entry_el"], entry_el, "{start}");
    assert_eq!(start["el"], 1, "runs in SVC mode: {start}");
    assert_eq!(start["emulated"], true, "{start}");
    assert_eq!(part(run), core, "MIDR part: {start}");
    let hellos = run.of_kind("hello");
    assert_eq!(hellos.len(), cpus, "{run}");
    for (n, hello) in hellos.iter().enumerate() {
        assert_eq!(hello["cpu"], n, "{hello}");
        assert_eq!(hello["entry_el"], entry_el, "{hello}");
        assert_eq!(hello["el"], 1, "{hello}");
        assert_eq!(hello["midr"], start["midr"], "{hello}");
    }
}

/// The quick sweep on a Cortex-A7 entered in SVC mode by QEMU's `-kernel`, which loads the
/// zImage-headed raw image at 0x4001_0000 with the MMU off.
fn svc_on_a7(run: &Run) {
    armv7_pass(run, 0xc07, 1, 1);
    let start = run.one("start");
    assert_eq!(start["image_base"], "0x40010000", "{start}");
    assert_eq!(start["entry_mmu"], false, "{start}");
    assert_eq!(
        start["psci"], "hvc",
        "QEMU's PSCI conduit from SVC: {start}"
    );
    // virt has no outer cache: its timing is not run, and the run says why, once.
    assert!(run.of_kind("outer_maint").is_empty(), "{run}");
    let said: Vec<_> = run
        .console
        .lines()
        .filter(|l| l.starts_with("outer cache timing: "))
        .map(str::trim_end)
        .collect();
    assert_eq!(
        said,
        ["outer cache timing: not timed: the device tree names no L2C-310 (arm,pl310-cache)"],
        "{run}"
    );
}

/// The six ARMv7 memory types, and only they: MAIR1:MAIR0 holds their bytes, each has a page
/// and a 2 MiB-block alias of one buffer, proven (attribute, data through every other alias,
/// the provoked faults), and the quick sweep measures each through every kernel.
fn six_types(run: &Run) {
    let names: Vec<&str> = MEMTYPES_ARMV7.iter().map(|(n, _)| *n).collect();
    run.assert_memory_proven_for(&MEMTYPES_ARMV7);
    let mmu = run.one("mmu");
    // MAIR1 0x00000400 (slots 4 and 5: Strongly-ordered, Device), MAIR0 0x44aaeeff.
    assert_eq!(mmu["mair"], "0x0000040044aaeeff", "MAIR1:MAIR0: {mmu}");
    let sctlr = u64::from_str_radix(
        mmu["sctlr"].as_str().unwrap_or("").trim_start_matches("0x"),
        16,
    )
    .unwrap_or_else(|_| panic!("no SCTLR in {mmu}"));
    assert_eq!(sctlr & 0b101, 0b101, "MMU and D-cache on: {mmu}");
    assert_eq!(run.one("config")["types"], serde_json::json!(names));
    let aliases: Vec<&str> = run
        .of_kind("map")
        .into_iter()
        .filter(|m| m["what"] == "buffer alias")
        .map(|m| m["memtype"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(aliases, names, "the page aliases in the memory map");
    let results = run.results();
    let kernels: std::collections::BTreeSet<&str> = results
        .iter()
        .map(|r| r["kernel"].as_str().unwrap_or(""))
        .collect();
    assert!(!kernels.is_empty(), "no results:\n{run}");
    for kernel in kernels {
        let mut measured: Vec<&str> = Vec::new();
        for r in results.iter().filter(|r| r["kernel"] == kernel) {
            let memtype = r["memtype"].as_str().unwrap_or("");
            if !measured.contains(&memtype) {
                measured.push(memtype);
            }
        }
        assert_eq!(measured, names, "{kernel} measured through");
    }
    // The report's policy is a row of each table, as the lab reads it.
    for row in ["  normal-wb    ", "  normal-wb-nowa    "] {
        assert!(run.console.contains(row), "no {row:?} row:\n{run}");
    }
    for absent in ["device-ngre", "device-gre"] {
        assert!(!run.console.contains(absent), "{absent} on ARMv7:\n{run}");
    }
}

/// Four Cortex-A15s entered in HYP mode, all running in SVC with the boot CPU's tables: the
/// `hello` of each, the SMP checks and the `smp-config` verdict.
fn hyp_on_four_a15s(run: &Run) {
    armv7_pass(run, 0xc0f, 2, 4);
    let start = run.one("start");
    // With virtualization=on QEMU's tree names PSCI over SMC, as on AArch64 from EL2.
    assert_eq!(start["psci"], "smc", "{start}");
    let mmu = run.one("mmu");
    let hellos = run.of_kind("hello");
    for hello in &hellos {
        for reg in ["sctlr", "mair", "tcr"] {
            assert_eq!(hello[reg], mmu[reg], "{reg} of {hello} vs {mmu}");
        }
        assert_eq!(hello["ttbr0"], hellos[0]["ttbr0"], "{hello}");
    }
    let mpidrs: std::collections::BTreeSet<String> =
        hellos.iter().map(|h| h["mpidr"].to_string()).collect();
    assert_eq!(mpidrs.len(), 4, "four distinct CPUs: {hellos:?}");
    for name in ["smp-registers", "smp-shared-line", "smp-counters"] {
        let checks: Vec<_> = run
            .of_kind("check")
            .into_iter()
            .filter(|c| c["name"] == name)
            .collect();
        assert_eq!(checks.len(), 1, "{name} checks:\n{run}");
        assert_eq!(checks[0]["ok"], true, "{}", checks[0]);
    }
    let verdict = run
        .of_kind("verdict")
        .into_iter()
        .find(|v| v["name"] == "smp-config")
        .unwrap_or_else(|| panic!("no smp-config verdict:\n{run}"));
    assert_eq!(verdict["status"], "pass", "{verdict}");
    assert_eq!(verdict["evidence"]["started"], 4, "{verdict}");
    assert!(
        run.console.contains("cpus: 4 of 4 running"),
        "no 'cpus: 4 of 4 running':\n{run}"
    );
    run.assert_memory_proven_for(&MEMTYPES_ARMV7);
}

/// Debian's `qemu_arm` U-Boot boots the image by `bootz` (its zImage header) from the runner's
/// load address, in SVC mode, with U-Boot's own copy of the device tree in r2.
fn uboot_bootz(run: &Run) {
    armv7_pass(run, 0xc07, 1, 1);
    let start = run.one("start");
    assert!(
        run.console.contains("Kernel image @ 0x40400000 ["),
        "bootz's line:\n{run}"
    );
    assert_eq!(start["image_base"], "0x40400000", "{start}");
    uboots_tree(run);
    run.assert_memory_proven_for(&MEMTYPES_ARMV7);
}

/// U-Boot's `bootm` of the image as a Linux kernel uImage preloaded at 0x4400_0000: U-Boot
/// reads its header, copies the image to its load address, 0x4040_0000, and enters it there
/// by the Linux protocol with the MMU off, in SVC mode, r2 = U-Boot's tree and the bootargs
/// in its /chosen.
fn uboot_bootm(run: &Run) {
    armv7_pass(run, 0xc07, 1, 1);
    for line in [
        "## Booting kernel from Legacy Image at 44000000 ...",
        "Image Type:   ARM Linux Kernel Image (uncompressed)",
        "Load Address: 40400000",
    ] {
        assert!(run.console.contains(line), "no {line:?}:\n{run}");
    }
    let start = run.one("start");
    assert_eq!(start["image_base"], "0x40400000", "{start}");
    assert_eq!(start["entry_mmu"], false, "{start}");
    assert_eq!(start["bootargs_from"], "dtb", "{start}");
    uboots_tree(run);
    run.assert_memory_proven_for(&MEMTYPES_ARMV7);
}

/// The image found the tree where U-Boot said it put it ("Loading Device Tree to 4dcf0000,
/// end ...").
fn uboots_tree(run: &Run) {
    let start = run.one("start");
    let moved = run
        .console
        .lines()
        .find_map(|l| l.trim().strip_prefix("Loading Device Tree to "))
        .and_then(|l| l.split(',').next())
        .unwrap_or_else(|| panic!("U-Boot did not say where the tree went:\n{run}"));
    assert_eq!(start["dtb"], format!("0x{moved}"), "{start}");
}

/// A board machine's `start` record: its tree's model, console and RAM, and PSCI as the tree
/// names it.
fn board_start(run: &Run, platform: &str, console: (&str, &str), ram_base: &str, psci: &str) {
    let start = run.one("start");
    assert_eq!(start["platform"], platform, "{start}");
    assert_eq!(start["console"], console.0, "{start}");
    assert_eq!(start["console_base"], console.1, "{start}");
    assert_eq!(start["ram_base"], ram_base, "{start}");
    assert_eq!(start["psci"], psci, "{start}");
    assert_eq!(start["bootargs_from"], "dtb", "{start}");
}

/// The i.MX6UL EVK: one Cortex-A7 entered in HYP mode, the board's 512 MiB at 0x8000_0000 (the
/// image loaded 64 KiB in), PSCI over SMC, the console on UART1; nothing warned.
fn imx6ul_evk(run: &Run) {
    armv7_pass(run, 0xc07, 2, 1);
    board_start(
        run,
        "Freescale i.MX6 UltraLite 14x14 EVK Board",
        ("imx", "0x2020000"),
        "0x80000000",
        "smc",
    );
    let start = run.one("start");
    assert_eq!(start["ram_size"], 512u64 << 20, "{start}");
    assert_eq!(start["image_base"], "0x80010000", "{start}");
    assert_eq!(run.one("end")["warnings"], 0, "{}", run.one("end"));
    assert!(
        run.of_kind("cpu").is_empty(),
        "one CPU, none left:
{run}"
    );
}

/// Four Cortex-A7s, all running: the boot CPU starts the three others (`mpidrs`, in order)
/// and each says hello with the boot CPU's registers; no CPU is left, nothing warned, the
/// `smp-config` verdict passes on 4 of 4, and the run passes with the memory proof.
fn four_a7s(run: &Run, entry_el: u64, mpidrs: [&str; 4]) {
    armv7_pass(run, 0xc07, entry_el, 4);
    let started: Vec<&str> = run
        .of_kind("hello")
        .iter()
        .map(|h| h["mpidr"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(started, mpidrs, "{run}");
    assert!(run.of_kind("cpu").is_empty(), "a CPU not started:\n{run}");
    assert_eq!(run.one("end")["warnings"], 0, "{}", run.one("end"));
    let verdict = run
        .of_kind("verdict")
        .into_iter()
        .find(|v| v["name"] == "smp-config")
        .unwrap_or_else(|| panic!("no smp-config verdict:\n{run}"));
    assert_eq!(verdict["status"], "pass", "{verdict}");
    assert_eq!(verdict["evidence"]["cpus"], 4, "{verdict}");
    assert_eq!(verdict["evidence"]["started"], 4, "{verdict}");
    assert!(
        run.console.contains("cpus: 4 of 4 running"),
        "no 'cpus: 4 of 4 running':\n{run}"
    );
    run.assert_memory_proven_for(&MEMTYPES_ARMV7);
}

/// The Orange Pi PC (Allwinner H3): HYP mode, PSCI over SMC, RAM at 0x4000_0000, UART0; its
/// tree names no enable-method, so its CPUs are started by PSCI CPU_ON, as Linux's ARM code
/// starts them.
fn orangepi_pc(run: &Run) {
    four_a7s(run, 2, ["0x0", "0x1", "0x2", "0x3"]);
    board_start(
        run,
        "Xunlong Orange Pi PC",
        ("ns16550", "0x1c28000"),
        "0x40000000",
        "smc",
    );
}

/// The Raspberry Pi 2B (BCM2836): SVC mode, no PSCI, RAM at 0, the PL011; its CPUs' MPIDRs
/// carry cluster 0xf, and the three others are released from QEMU's boot stub through their
/// mailboxes (`brcm,bcm2836-smp`).
fn raspi2b(run: &Run) {
    four_a7s(run, 1, ["0xf00", "0xf01", "0xf02", "0xf03"]);
    board_start(
        run,
        "Raspberry Pi 2 Model B",
        ("pl011", "0x3f201000"),
        "0x0",
        "none",
    );
    assert_eq!(
        run.one("start")["image_base"],
        "0x10000",
        "{}",
        run.one("start")
    );
}

/// A core without the generic timer (MIDR part `core`, 0xc08 Cortex-A8) and without a SoC
/// timer the image knows, entered in SVC mode: the `timer` check fails saying the counter's
/// frequency is 0 Hz, the run ends `fail` with `timer` among its failed checks and the runner's
/// exit status is 1, and the runner's explanation names it.
fn no_generic_timer(run: &Run, core: u64, platform: &str) {
    run.assert_framed();
    assert_eq!(
        run.status, 1,
        "runner status:
{run}"
    );
    let start = run.one("start");
    assert_eq!(start["arch"], "armv7", "{start}");
    assert_eq!(start["entry_el"], 1, "{start}");
    assert_eq!(start["platform"], platform, "{start}");
    assert_eq!(start["cntfrq_hz"], 0, "{start}");
    assert_eq!(part(run), core, "MIDR part: {start}");
    let timer: Vec<&Value> = run
        .of_kind("check")
        .into_iter()
        .filter(|c| c["name"] == "timer")
        .collect();
    assert_eq!(
        timer.len(),
        1,
        "timer checks:
{run}"
    );
    assert_eq!(timer[0]["ok"], false, "{}", timer[0]);
    assert_eq!(
        timer[0]["detail"], "CNTVCT advances, CNTFRQ 0 Hz",
        "{}",
        timer[0]
    );
    assert!(
        run.console
            .contains("FAIL timer: CNTVCT advances, CNTFRQ 0 Hz"),
        "the timer's FAIL line:
{run}"
    );
    let end = run.one("end");
    assert_eq!(end["status"], "fail", "{end}");
    let failed = end["failed_checks"].as_array().cloned().unwrap_or_default();
    assert!(failed.contains(&"timer".into()), "{end}");
    assert!(
        run.stderr
            .contains("check timer failed: CNTVCT advances, CNTFRQ 0 Hz"),
        "the runner's why:
{}",
        run.stderr
    );
}

/// A core without LPAE (the Cortex-A8 and A9): the firmware's own short-descriptor tables with
/// TEX remap (TTBCR 0; NMRR:PRRR from core's table in place of MAIR1:MAIR0; SCTLR's M, C and
/// TRE), and each alias proven by its address alone: QEMU's short-descriptor PAR reports no
/// attributes (`address-only`, said once).
fn short_descriptors(run: &Run) {
    let mmu = run.one("mmu");
    assert_eq!(mmu["tcr"], "0x0", "TTBCR: {mmu}");
    assert_eq!(mmu["mair"], "0x002d002dff0a04aa", "NMRR:PRRR: {mmu}");
    let sctlr = u64::from_str_radix(
        mmu["sctlr"].as_str().unwrap_or("").trim_start_matches("0x"),
        16,
    )
    .unwrap_or_else(|_| panic!("no SCTLR in {mmu}"));
    assert_eq!(
        sctlr & (1 | 1 << 2 | 1 << 28),
        1 | 1 << 2 | 1 << 28,
        "M, C, TRE: {mmu}"
    );
    let proofs = run.of_kind("memtype");
    let names: Vec<&str> = MEMTYPES_ARMV7.iter().map(|(n, _)| *n).collect();
    let proven: Vec<&str> = proofs
        .iter()
        .map(|m| m["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        proven,
        [names.clone(), names].concat(),
        "page, then block aliases"
    );
    for m in &proofs {
        assert_eq!(m["verdict"], "address-only", "{m}");
        assert_eq!(m["ok"], true, "{m}");
    }
    assert_eq!(
        run.console
            .matches("note: this PAR gives addresses only (QEMU's)")
            .count(),
        1,
        "the note, once:\n{run}"
    );
}

/// The device pages a board's identity map holds besides the console: (name, address).
fn device_pages(run: &Run) -> Vec<(String, String)> {
    run.of_kind("map")
        .into_iter()
        .filter(|m| m["memtype"] == "device-ngnrne" && m["what"] != "console")
        .filter(|m| !m["what"].as_str().unwrap_or("").starts_with("buffer"))
        .map(|m| (m["what"].to_string(), m["va"].to_string()))
        .collect()
}

/// The i.MX6Q SABRE Lite: Cortex-A9s (no generic timer, no LPAE), RAM at 0x1000_0000,
/// console on UART2, no PSCI. The GPT times the run (the start record's `clock`, its 3 MHz
/// in `counter_hz`, the timer check in its name), the L2C-310 is mapped and said disabled
/// (nothing enabled it), the tables are short descriptors, and the run passes on the boot
/// CPU, the others warned of.
fn sabrelite(run: &Run) {
    run.assert_pass();
    let start = run.one("start");
    assert_eq!(start["arch"], "armv7", "{start}");
    assert_eq!(start["entry_el"], 1, "{start}");
    assert_eq!(part(run), 0xc09, "MIDR part: {start}");
    assert_eq!(start["cntfrq_hz"], 0, "{start}");
    assert_eq!(start["counter_hz"], 3_000_000, "{start}");
    assert_eq!(
        start["clock"], "the i.MX6 GPT (24 MHz oscillator / 8)",
        "{start}"
    );
    board_start(
        run,
        "Freescale i.MX6 Quad SABRE Lite Board",
        ("imx", "0x21e8000"),
        "0x10000000",
        "none",
    );
    let timer = run
        .of_kind("check")
        .into_iter()
        .find(|c| c["name"] == "timer")
        .unwrap_or_else(|| panic!("no timer check:\n{run}"));
    assert_eq!(
        timer["detail"], "the i.MX6 GPT (24 MHz oscillator / 8): its counter advances, 3000000 Hz",
        "{timer}"
    );
    assert_eq!(timer["ok"], true, "{timer}");
    assert_eq!(
        device_pages(run),
        [
            ("\"outer cache\"".to_owned(), "\"0xa02000\"".to_owned()),
            ("\"clock\"".to_owned(), "\"0x2098000\"".to_owned())
        ],
        "the L2C-310's and the GPT's pages"
    );
    assert!(
        run.console.contains(
            "outer cache: L2C-310 at 0xa02000 (CACHE_ID part 3, RTL release 8), disabled"
        ),
        "{run}"
    );
    outer_timing(run);
    short_descriptors(run);
    assert!(!run.results().is_empty(), "no results:\n{run}");
    assert_eq!(
        run.of_kind("cpu").len(),
        3,
        "three CPUs not started:\n{run}"
    );
}

/// The SABRE Lite's L2C-310 clean timed beside the CPU's (core's `pl310::timing`): one
/// `outer_maint` record after the `maintenance` record, 64 KiB in 8 passes, 2048 lines of 32
/// bytes at each level, 16 pages each translated and synced, per-line figures and ratio those
/// of its ticks at the GPT's 3 MHz, and a human line that names both levels and says the
/// controller is disabled, so its figure is the register path's cost only. No speed is
/// compared: QEMU models no caches.
fn outer_timing(run: &Run) {
    let t = run.one("outer_maint");
    let kinds: Vec<_> = run.records.iter().map(|r| r["kind"].clone()).collect();
    let at = |kind: &str| kinds.iter().position(|k| k == kind);
    assert_eq!(at("outer_maint"), at("maintenance").map(|i| i + 1), "{run}");
    assert_eq!(t["enabled"], false, "QEMU's L2C-310 is disabled: {t}");
    for (field, v) in [
        ("bytes", 65536),
        ("reps", 8),
        ("freq_hz", 3_000_000),
        ("cpu_line", 32),
        ("cpu_lines", 2048),
        ("outer_line", 32),
        ("outer_lines", 2048),
        ("pages", 16),
        ("syncs", 16),
    ] {
        assert_eq!(t[field], v, "{field}: {t}");
    }
    let ticks = |level: &str| {
        t[format!("{level}_ticks")]
            .as_u64()
            .unwrap_or_else(|| panic!("no {level}_ticks: {t}"))
    };
    // Each figure is its ticks at 3 MHz over 2048 lines, in ns to two decimals; null when the
    // best pass took no tick.
    let near = |field: &str, want: Option<f64>| match (t[field].as_f64(), want) {
        (Some(got), Some(want)) => assert!((got - want).abs() <= 0.006, "{field}: {t}"),
        (None, None) => assert!(t[field].is_null(), "{field}: {t}"),
        _ => panic!("{field}: {t}"),
    };
    let (cpu, outer) = (ticks("cpu"), ticks("outer"));
    let per_line = |ticks: u64| (ticks > 0).then(|| ticks as f64 * 1e9 / 3e6 / 2048.0);
    near("cpu_ns_per_line", per_line(cpu));
    near("outer_ns_per_line", per_line(outer));
    near(
        "ratio",
        (cpu > 0 && outer > 0).then(|| outer as f64 / cpu as f64),
    );
    let line = run
        .console
        .lines()
        .find(|l| l.starts_with("outer cache timing: "))
        .unwrap_or_else(|| panic!("no outer cache timing line:\n{run}"));
    for part in [
        "outer cache timing: cleaning 64 KiB, best of 8 passes: the CPU's DCCMVAC per 32-byte \
         line "
            .to_owned(),
        format!("(2048 lines in {cpu} ticks, DSB included); the L2C-310's CLEAN_LINE_PA per 32-byte line "),
        format!("(2048 lines in {outer} ticks, with 16 ATS1CPR translations and 16 CACHE_SYNCs)"),
        "; the controller is disabled and holds no lines, so its figure is the register path's \
         cost only, not a clean's; QEMU models no caches: neither figure, nor their ratio, is \
         silicon's"
            .to_owned(),
    ] {
        assert!(line.contains(&part), "{part:?} not in {line:?}");
    }
}

/// The Cubieboard (Allwinner A10): one Cortex-A8 (no generic timer, no LPAE), RAM at
/// 0x4000_0000, UART0, no PSCI. The A10's timer 1 times the run (24 MHz), the tables are short
/// descriptors, the benchmark runs; the run ends `fail`, exit status 1, on the `serror` check
/// alone (QEMU's Cubieboard reports no external abort for the probe).
fn cubieboard(run: &Run) {
    run.assert_framed();
    assert_eq!(run.status, 1, "runner status:\n{run}");
    let start = run.one("start");
    assert_eq!(start["arch"], "armv7", "{start}");
    assert_eq!(start["entry_el"], 1, "{start}");
    assert_eq!(part(run), 0xc08, "MIDR part: {start}");
    assert_eq!(start["cntfrq_hz"], 0, "{start}");
    assert_eq!(start["counter_hz"], 24_000_000, "{start}");
    assert_eq!(
        start["clock"], "the Allwinner A10 timer 1 (24 MHz oscillator)",
        "{start}"
    );
    board_start(
        run,
        "Cubietech Cubieboard",
        ("ns16550", "0x1c28000"),
        "0x40000000",
        "none",
    );
    let timer = run
        .of_kind("check")
        .into_iter()
        .find(|c| c["name"] == "timer")
        .unwrap_or_else(|| panic!("no timer check:\n{run}"));
    assert_eq!(timer["ok"], true, "{timer}");
    short_descriptors(run);
    assert!(!run.results().is_empty(), "no results:\n{run}");
    let end = run.one("end");
    assert_eq!(end["status"], "fail", "{end}");
    assert_eq!(end["failed_checks"], serde_json::json!(["serror"]), "{end}");
}

/// The Cubieboard with its tree's timer block taken out: a core without the generic timer and
/// without a SoC timer the image knows. The timer check fails, the tables and the proof are
/// made all the same, and the benchmark is not run, with a sentence, rather than timed by a
/// counter that reads 0; exit status 1.
#[test]
fn armv7_a_core_with_no_clock_at_all_runs_no_benchmark() {
    let tree = crate::common::deps::cache("MAIRBENCH_DTB_DIR", "dtbs")
        .join("all-armhf/sun4i-a10-cubieboard.dtb");
    let blob = std::fs::read(&tree).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the test command fetches it: qemu/dtbs)",
            tree.display()
        )
    });
    let cut = crate::common::dtb::without(&blob, &["/soc/timer@1c20c00"]);
    assert_ne!(
        cut.len(),
        blob.len(),
        "no /soc/timer@1c20c00 in {}",
        tree.display()
    );
    let path = crate::common::dtb::tmp("cubieboard-without-its-timer.dtb");
    std::fs::write(&path, cut).unwrap();
    let run = crate::common::boot(
        &[
            ("MAIRBENCH_ARCH", "armv7"),
            ("MAIRBENCH_MACHINE", "cubieboard"),
            ("MAIRBENCH_DTB", path.to_str().unwrap()),
        ],
        matrix::SHORT,
    );
    no_generic_timer(&run, 0xc08, "Cubietech Cubieboard");
    assert!(
        run.one("start").get("clock").is_none(),
        "{}",
        run.one("start")
    );
    short_descriptors(&run);
    assert!(
        run.console
            .contains("benchmark: not run: no clock (the timer check failed)"),
        "{run}"
    );
    assert!(
        run.results().is_empty(),
        "results timed by no clock:\n{run}"
    );
}

/// The Pi 2B's tree from the cache, `edit`ed, written as `name` and booted quickly on QEMU's
/// raspi2b: the run.
fn pi2b_with(name: &str, edit: impl FnOnce(&[u8]) -> Vec<u8>) -> Run {
    let tree = crate::common::deps::cache("MAIRBENCH_DTB_DIR", "dtbs")
        .join("all-armhf/bcm2836-rpi-2-b.dtb");
    let blob = std::fs::read(&tree).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the test command fetches it: qemu/dtbs)",
            tree.display()
        )
    });
    let edited = edit(&blob);
    assert_ne!(edited, blob, "{name}: the edit changed nothing");
    let path = crate::common::dtb::tmp(name);
    std::fs::write(&path, edited).unwrap();
    crate::common::boot(
        &[
            ("MAIRBENCH_ARCH", "armv7"),
            ("MAIRBENCH_MACHINE", "raspi2b"),
            ("MAIRBENCH_DTB", path.to_str().unwrap()),
        ],
        matrix::SHORT,
    )
}

/// A CPU not started, with its `cpu` record's reason and its console line.
fn not_started(run: &Run, mpidr: &str, why: &str) {
    let named = run
        .of_kind("cpu")
        .into_iter()
        .any(|c| c["mpidr"] == mpidr && c["started"] == false && c["why"] == why);
    assert!(named, "no cpu record for {mpidr}: {why:?}:\n{run}");
    let line = format!("cpu {mpidr}: not started: {why}");
    assert!(run.console.contains(&line), "no {line:?}:\n{run}");
}

/// The Pi 2B's tree without its `brcm,bcm2836-l1-intc` node: no mailbox to write, so each
/// other CPU is named, not started, and the run passes on the boot CPU, without waiting.
#[test]
fn armv7_a_pi2b_tree_without_its_l1_intc_names_each_other_cpu() {
    let run = pi2b_with("rpi-2-b-without-l1-intc.dtb", |blob| {
        crate::common::dtb::without(blob, &["/soc/local_intc@40000000"])
    });
    run.assert_pass();
    let why = "brcm,bcm2836-smp, but no brcm,bcm2836-l1-intc node whose registers hold its \
               mailbox";
    for mpidr in ["0xf01", "0xf02", "0xf03"] {
        not_started(&run, mpidr, why);
    }
    assert_eq!(run.of_kind("hello").len(), 1, "{run}");
    assert!(run.console.contains("cpus: 1 of 4 running"), "{run}");
}

/// The Pi 2B's tree with its last CPU's `reg` made the second's, 0xf01: the second CPU's
/// mailbox is written twice, and the second time no boot stub waits on it any more (that CPU
/// took the first and runs). The wait for it is bounded: that CPU is named, the others run.
#[test]
fn armv7_a_bcm2836_mailbox_nobody_takes_is_named_after_a_bounded_wait() {
    let run = pi2b_with("rpi-2-b-cpu-f01-twice.dtb", |blob| {
        let reg = 0xf01u32.to_be_bytes().to_vec();
        crate::common::dtb::with_props(blob, &[("/cpus/cpu@3", "reg", reg)])
    });
    run.assert_pass();
    let why = "nothing took the entry address from its mailbox within 1000 ms (no boot stub \
               waits on it)";
    not_started(&run, "0xf01", why);
    assert_eq!(run.of_kind("cpu").len(), 1, "{run}");
    assert_eq!(run.of_kind("hello").len(), 3, "{run}");
    assert!(run.console.contains("cpus: 3 of 4 running"), "{run}");
}

#[test]
fn armv7_on_the_imx6ul_evk_machine_one_cortex_a7_with_the_six_types() {
    let run = matrix::run("armv7_board_mcimx6ul_evk");
    imx6ul_evk(run);
    six_types(run);
}

#[test]
fn armv7_on_the_orangepi_pc_machine_starts_its_four_cpus_by_psci() {
    orangepi_pc(matrix::run("armv7_board_orangepi_pc"));
}

#[test]
fn armv7_on_the_raspi2b_machine_starts_its_four_cpus_through_their_mailboxes() {
    raspi2b(matrix::run("armv7_board_raspi2b"));
}

#[test]
fn armv7_on_the_sabrelite_machine_short_descriptors_and_the_gpt_clock() {
    sabrelite(matrix::run("armv7_board_sabrelite"));
}

#[test]
fn armv7_on_the_cubieboard_machine_short_descriptors_and_no_clock() {
    cubieboard(matrix::run("armv7_board_cubieboard"));
}

#[test]
fn armv7_quick_run_on_a_cortex_a7_entered_in_svc() {
    svc_on_a7(matrix::run("armv7_a7_svc"));
}

#[test]
fn armv7_maps_proves_and_measures_the_six_armv7_memory_types() {
    six_types(matrix::run("armv7_a7_svc"));
}

#[test]
fn armv7_hyp_entry_on_four_cortex_a15s_runs_every_cpu_in_svc() {
    hyp_on_four_a15s(matrix::run("armv7_a15_hyp_4_cpus"));
}

#[test]
fn armv7_boots_through_uboot_bootz() {
    uboot_bootz(matrix::run("armv7_a7_uboot_bootz"));
}

#[test]
fn armv7_boots_through_uboot_bootm_of_a_linux_uimage() {
    uboot_bootm(matrix::run("armv7_a7_uboot_bootm"));
}

/// A copy of `run` changed by `change`.
fn changed(run: &Run, change: &dyn Fn(&mut Run)) -> Run {
    let mut copy = Run {
        status: run.status,
        console: run.console.clone(),
        stderr: run.stderr.clone(),
        records: run.records.clone(),
        wall: run.wall,
    };
    change(&mut copy);
    copy
}

/// The first record of `kind` (the `n`th with `nth`), to change.
fn record<'r>(run: &'r mut Run, kind: &str, nth: usize) -> &'r mut Value {
    run.records
        .iter_mut()
        .filter(|r| r["kind"] == kind)
        .nth(nth)
        .unwrap_or_else(|| panic!("no {kind} record {nth}"))
}

/// Sets `field` of the `nth` record of `kind` to `v`.
fn set(run: &mut Run, kind: &str, nth: usize, field: &str, v: Value) {
    record(run, kind, nth)[field] = v;
}

/// Sets `field` of the record of `kind` (`check` or `verdict`) called `name` to `v`.
fn set_named(run: &mut Run, kind: &str, name: &str, field: &str, v: Value) {
    let r = run
        .records
        .iter_mut()
        .find(|r| r["kind"] == kind && r["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} record {name}"));
    r[field] = v;
}

/// Each check above fails on its row's run changed in one thing it checks (a wrong value in
/// place of the right one), so that none of them passes whatever the firmware does. The runs
/// are the rows' own: no boot of its own.
#[test]
fn armv7_checks_fail_on_a_wrong_run() {
    let a7: &[Change] = &[
        ("arch aarch64", |r| {
            set(r, "start", 0, "arch", "aarch64".into())
        }),
        ("entered in HYP", |r| {
            set(r, "start", 0, "entry_el", 2.into())
        }),
        ("running in HYP", |r| set(r, "start", 0, "el", 2.into())),
        ("a Cortex-A15", |r| {
            set(r, "start", 0, "midr", "0x414fc0f0".into())
        }),
        ("loaded elsewhere", |r| {
            set(r, "start", 0, "image_base", "0x40400000".into())
        }),
        ("MMU on at entry", |r| {
            set(r, "start", 0, "entry_mmu", true.into())
        }),
        ("PSCI over SMC", |r| {
            set(r, "start", 0, "psci", "smc".into())
        }),
        ("an outer cache timed", |r| {
            r.console = r
                .console
                .replace("outer cache timing: not timed: ", "outer cache timing: ")
        }),
        ("end status fail", |r| {
            set(r, "end", 0, "status", "fail".into())
        }),
        ("exit status 1", |r| r.status = 1),
        ("two hellos", |r| {
            let hello = record(r, "hello", 0).clone();
            r.records.insert(2, hello);
        }),
    ];
    let types: &[Change] = &[
        ("a wrong PAR attribute", |r| {
            set(r, "memtype", 2, "par_attr", "0xbb".into())
        }),
        ("device-gre proven", |r| {
            set(r, "memtype", 5, "name", "device-gre".into())
        }),
        ("AArch64's MAIR", |r| {
            set(r, "mmu", 0, "mair", "0x0c08040044bbccff".into())
        }),
        ("D-cache off", |r| {
            set(r, "mmu", 0, "sctlr", "0xcd1079".into())
        }),
        ("nGRE configured", |r| {
            let types = &mut record(r, "config", 0)["types"];
            types.as_array_mut().unwrap().push("device-ngre".into());
        }),
        ("a page alias missing from the map", |r| {
            let at = r
                .records
                .iter()
                .position(|m| m["kind"] == "map" && m["memtype"] == "normal-nc")
                .unwrap();
            r.records.remove(at);
        }),
        ("normal-wb-nowa not measured", |r| {
            r.records
                .retain(|m| !(m["kind"] == "result" && m["memtype"] == "normal-wb-nowa"));
        }),
        ("a coherence mismatch", |r| {
            set(r, "coherence", 3, "mismatches", 1.into())
        }),
        ("a fault not survived", |r| {
            set(r, "fault", 1, "ok", false.into())
        }),
        ("no normal-wb-nowa row", |r| {
            r.console = r
                .console
                .replace("  normal-wb-nowa    ", "  normal-wb-nowa+   ");
        }),
        ("device-gre on the console", |r| {
            r.console.push_str("device-gre\n")
        }),
    ];
    let hyp: &[Change] = &[
        ("entered in SVC", |r| {
            set(r, "start", 0, "entry_el", 1.into())
        }),
        ("a Cortex-A7", |r| {
            set(r, "start", 0, "midr", "0x410fc075".into())
        }),
        ("PSCI over HVC", |r| {
            set(r, "start", 0, "psci", "hvc".into())
        }),
        ("three hellos", |r| {
            let at = r
                .records
                .iter()
                .rposition(|m| m["kind"] == "hello")
                .unwrap();
            r.records.remove(at);
        }),
        ("a secondary at HYP", |r| set(r, "hello", 3, "el", 2.into())),
        ("a secondary's SCTLR", |r| {
            set(r, "hello", 2, "sctlr", "0xcd107d".into())
        }),
        ("a secondary's TTBR0", |r| {
            set(r, "hello", 1, "ttbr0", "0x40000000".into())
        }),
        ("one CPU twice", |r| {
            set(r, "hello", 3, "mpidr", "0x2".into())
        }),
        ("smp-registers failed", |r| {
            set_named(r, "check", "smp-registers", "ok", false.into())
        }),
        ("smp-config warns", |r| {
            set_named(r, "verdict", "smp-config", "status", "warn".into())
        }),
        ("3 of 4 running", |r| {
            r.console = r
                .console
                .replace("cpus: 4 of 4 running", "cpus: 3 of 4 running");
        }),
        ("a wrong PAR attribute", |r| {
            set(r, "memtype", 7, "par_attr", "0x44".into())
        }),
    ];
    let uboot: &[Change] = &[
        ("no bootz", |r| {
            r.console = r.console.replace("Kernel image @", "Image @")
        }),
        ("QEMU's load address", |r| {
            set(r, "start", 0, "image_base", "0x40010000".into())
        }),
        ("QEMU's tree", |r| {
            set(r, "start", 0, "dtb", "0x48000000".into())
        }),
        ("entered in HYP", |r| {
            set(r, "start", 0, "entry_el", 2.into())
        }),
        ("a Cortex-A15", |r| {
            set(r, "start", 0, "midr", "0x414fc0f0".into())
        }),
        ("a wrong PAR attribute", |r| {
            set(r, "memtype", 0, "par_attr", "0xee".into())
        }),
    ];
    let bootm: &[Change] = &[
        ("bootz's", |r| {
            r.console = r.console.replace("Legacy Image at", "Image at")
        }),
        ("a standalone uImage", |r| {
            r.console = r
                .console
                .replace("ARM Linux Kernel Image", "ARM Standalone Program")
        }),
        ("not copied", |r| {
            set(r, "start", 0, "image_base", "0x44000040".into())
        }),
        ("MMU on at entry", |r| {
            set(r, "start", 0, "entry_mmu", true.into())
        }),
        ("bootargs by semihosting", |r| {
            set(r, "start", 0, "bootargs_from", "semihosting".into())
        }),
        ("QEMU's tree", |r| {
            set(r, "start", 0, "dtb", "0x40000000".into())
        }),
    ];
    refuse_wrong_runs(&[
        ("armv7_a7_svc", svc_on_a7, a7),
        ("armv7_a7_svc", six_types, types),
        ("armv7_a15_hyp_4_cpus", hyp_on_four_a15s, hyp),
        ("armv7_a7_uboot_bootz", uboot_bootz, uboot),
        ("armv7_a7_uboot_bootm", uboot_bootm, bootm),
    ]);
}

/// A change of a run: what it changes, and how.
type Change = (&'static str, fn(&mut Run));
/// A row, a check of its run, and the changes the check must refuse.
type Case<'a> = (&'a str, fn(&Run), &'a [Change]);

/// Each case's check passes its row's run and fails on each of its changes of it.
fn refuse_wrong_runs(cases: &[Case]) {
    let mut passed = Vec::new();
    for &(row, check, changes) in cases {
        let run = matrix::run(row);
        check(run);
        for (what, change) in changes {
            let wrong = changed(run, change);
            if catch_unwind(AssertUnwindSafe(|| check(&wrong))).is_ok() {
                passed.push(format!("{row}: {what}"));
            }
        }
    }
    assert!(
        passed.is_empty(),
        "checks that passed a wrong run:\n  {}",
        passed.join("\n  ")
    );
}

/// The board rows' checks, as [`armv7_checks_fail_on_a_wrong_run`] does for virt's.
#[test]
fn armv7_board_checks_fail_on_a_wrong_run() {
    let evk: &[Change] = &[
        ("entered in SVC", |r| {
            set(r, "start", 0, "entry_el", 1.into())
        }),
        ("another board", |r| {
            set(
                r,
                "start",
                0,
                "platform",
                "Freescale i.MX6 Quad SABRE Lite Board".into(),
            )
        }),
        ("RAM elsewhere", |r| {
            set(r, "start", 0, "ram_base", "0x40000000".into())
        }),
        ("128 MiB", |r| {
            set(r, "start", 0, "ram_size", (128u64 << 20).into())
        }),
        ("no PSCI", |r| set(r, "start", 0, "psci", "none".into())),
        ("a warning", |r| set(r, "end", 0, "warnings", 1.into())),
        ("exit status 1", |r| r.status = 1),
    ];
    let orangepi: &[Change] = &[
        ("one not started", |r| {
            r.records
                .retain(|h| !(h["kind"] == "hello" && h["cpu"] == 3));
        }),
        ("a cpu record", |r| {
            let mut left = record(r, "hello", 3).clone();
            left["kind"] = "cpu".into();
            r.records.push(left);
        }),
        ("another CPU", |r| set(r, "hello", 2, "mpidr", "0x5".into())),
        ("a warning", |r| set(r, "end", 0, "warnings", 1.into())),
        ("3 of 4 running", |r| {
            r.console = r
                .console
                .replace("cpus: 4 of 4 running", "cpus: 3 of 4 running");
        }),
        ("smp-config warns", |r| {
            set_named(r, "verdict", "smp-config", "status", "warn".into())
        }),
        ("entered in SVC", |r| {
            set(r, "start", 0, "entry_el", 1.into())
        }),
        ("the PL011", |r| {
            set(r, "start", 0, "console", "pl011".into())
        }),
    ];
    let pi2: &[Change] = &[
        ("entered in HYP", |r| {
            set(r, "start", 0, "entry_el", 2.into())
        }),
        ("PSCI", |r| set(r, "start", 0, "psci", "smc".into())),
        ("one not started", |r| {
            r.records
                .retain(|h| !(h["kind"] == "hello" && h["cpu"] == 1));
        }),
        ("cluster 0", |r| set(r, "hello", 1, "mpidr", "0x1".into())),
        ("a wrong PAR attribute", |r| {
            set(r, "memtype", 1, "par_attr", "0xff".into())
        }),
    ];
    let a9: &[Change] = &[
        ("the timer failed", |r| {
            set_named(r, "check", "timer", "ok", false.into())
        }),
        ("exit status 1", |r| r.status = 1),
        ("a Cortex-A7", |r| {
            set(r, "start", 0, "midr", "0x410fc075".into())
        }),
        ("no clock named", |r| {
            if let Some(start) = record(r, "start", 0).as_object_mut() {
                start.remove("clock");
            }
        }),
        ("another rate", |r| {
            set(r, "start", 0, "counter_hz", 62_500_000.into())
        }),
        ("an exact proof", |r| {
            set(r, "memtype", 3, "verdict", "exact".into())
        }),
        ("LPAE's TTBCR", |r| {
            set(r, "mmu", 0, "tcr", "0x80803500".into())
        }),
        ("MAIR1:MAIR0", |r| {
            set(r, "mmu", 0, "mair", "0x0000040044aaeeff".into())
        }),
        ("no outer cache page", |r| {
            r.records.retain(|m| m["what"] != "outer cache");
        }),
        ("no outer timing", |r| {
            r.records.retain(|m| m["kind"] != "outer_maint");
        }),
        ("the outer timing without its syncs", |r| {
            set(r, "outer_maint", 0, "syncs", 0.into())
        }),
        ("a line miscounted", |r| {
            set(r, "outer_maint", 0, "outer_lines", 2047.into())
        }),
        ("the controller said enabled", |r| {
            set(r, "outer_maint", 0, "enabled", true.into())
        }),
        ("a figure not of its ticks", |r| {
            set(r, "outer_maint", 0, "outer_ns_per_line", 0.5.into())
        }),
        ("the timing's line without its caveat", |r| {
            r.console = r
                .console
                .replace("the controller is disabled and holds", "it holds");
        }),
        ("the note on every alias", |r| {
            r.console = r.console.replace(
                "ok   memtype",
                "     note: this PAR gives addresses only (QEMU's)\nok   memtype",
            );
        }),
        ("no results", |r| {
            r.records.retain(|m| m["kind"] != "result")
        }),
    ];
    let a8: &[Change] = &[
        ("entered in HYP", |r| {
            set(r, "start", 0, "entry_el", 2.into())
        }),
        ("a Cortex-A9", |r| {
            set(r, "start", 0, "midr", "0x410fc090".into())
        }),
        ("the i.MX6's clock", |r| {
            set(
                r,
                "start",
                0,
                "clock",
                "the i.MX6 GPT (24 MHz oscillator / 8)".into(),
            )
        }),
        ("the timer failed", |r| {
            set_named(r, "check", "timer", "ok", false.into())
        }),
        ("a wrong-attr proof", |r| {
            set(r, "memtype", 0, "verdict", "wrong-attr".into())
        }),
        ("no results", |r| {
            r.records.retain(|m| m["kind"] != "result")
        }),
        ("the timer among the failed", |r| {
            set(
                r,
                "end",
                0,
                "failed_checks",
                serde_json::json!(["serror", "timer"]),
            )
        }),
        ("exit status 0", |r| r.status = 0),
    ];
    refuse_wrong_runs(&[
        ("armv7_board_mcimx6ul_evk", imx6ul_evk, evk),
        ("armv7_board_orangepi_pc", orangepi_pc, orangepi),
        ("armv7_board_raspi2b", raspi2b, pi2),
        ("armv7_board_sabrelite", sabrelite, a9),
        ("armv7_board_cubieboard", cubieboard, a8),
    ]);
}
