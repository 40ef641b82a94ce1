//! The boot matrix: one table of the configurations this binary boots, as kvm-unit-tests'
//! `arm/unittests.cfg` lists its runs. Each row is a machine, its CPU model and count, the EL
//! the firmware is entered at, the boot path, the kernel command line and any further runner
//! settings, and what the run must show: how it ends, and the records and lines expected.
//!
//! [`every_row_shows_what_it_must`] boots every row, as many at once as the host has cores
//! (each QEMU holds its slots, [`common::slot`]), and names each row that fails. A row is
//! booted once per test process ([`run`]): the tests whose checks are more than a table can
//! say read the run of the row that has their configuration, so that one boot serves all
//! of them. [`shared`] finds the row of a configuration given as settings and bootargs (the
//! documentation's excerpts, the schema's runs), or boots it when no row has it.
//!
//! Besides what its `shows` column says, every row is checked for what its columns say: a
//! run that shows a `start` record was entered at the row's EL, and a passing run has a
//! `hello` record from each of the row's CPUs.
//!
//! `MAIRBENCH_ROWS=TEXT` boots only the rows whose name contains TEXT (while working on
//! them; the tests that read other rows boot those as they need them).

use crate::common::{self, Run};
use crate::{entry, uefi};
use serde_json::Value;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, OnceLock};
use std::time::Instant;
// The table's words.
use Outcome::{Fail, Status};
use Path::*;
use Show::*;
use V::*;

/// How the firmware is started: `MAIRBENCH_BOOT` (docs/runner.md).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    /// QEMU's `-kernel` of the raw image (at EL3, QEMU's generic loader).
    Kernel,
    /// Debian's U-Boot, `booti` of the image loaded at this address.
    Booti(&'static str),
    /// The 32-bit image through Debian's `qemu_arm` U-Boot: `bootz` of its zImage header, at
    /// the runner's load address.
    Bootz,
    /// U-Boot's `bootm` of a standalone uImage: entered with the MMU and D-cache on (the
    /// 32-bit image: of a Linux kernel uImage, entered as by `bootz`).
    Bootm,
    /// U-Boot's distro boot of `boot.scr` (boot/boot.cmd) from a virtio disk.
    Script,
    /// U-Boot's `bootefi` of the image on an EFI system partition.
    UbootEfi,
    /// EDK2, its ACPI tables and no device tree.
    Uefi,
    /// EDK2 with `acpi=off`: the device tree as a configuration table.
    UefiDt,
}

impl Path {
    /// The runner's settings for this path.
    fn settings(self) -> Vec<(&'static str, &'static str)> {
        match self {
            Path::Kernel => vec![],
            Path::Booti(load) => vec![("MAIRBENCH_BOOT", "uboot"), ("MAIRBENCH_LOAD", load)],
            Path::Bootz => vec![("MAIRBENCH_BOOT", "uboot")],
            Path::Bootm => vec![("MAIRBENCH_BOOT", "uboot-bootm")],
            Path::Script => vec![("MAIRBENCH_BOOT", "uboot-script")],
            Path::UbootEfi => vec![("MAIRBENCH_BOOT", "uboot-efi")],
            Path::Uefi => vec![("MAIRBENCH_BOOT", "uefi")],
            Path::UefiDt => vec![("MAIRBENCH_BOOT", "uefi-dt")],
        }
    }
}

/// How the run ends.
#[derive(Clone, Copy, Debug)]
pub enum Outcome {
    /// Framed by `start` and `end`, end status pass, runner exit status 0.
    Pass,
    /// Framed, end status fail, runner exit status 1.
    Fail,
    /// The runner's exit status, whatever the records (2 a refused setting, 124 a timeout).
    Status(i32),
}

/// A value a record's field must have.
#[derive(Clone, Copy, Debug)]
pub enum V {
    S(&'static str),
    N(u64),
    B(bool),
    /// The field is not there at all.
    Absent,
}

impl V {
    fn check(self, record: &Value, field: &str) {
        match self {
            V::S(s) => assert_eq!(record[field], s, "{field} in {record}"),
            V::N(n) => assert_eq!(record[field], n, "{field} in {record}"),
            V::B(b) => assert_eq!(record[field], b, "{field} in {record}"),
            V::Absent => assert!(record.get(field).is_none(), "{field} in {record}"),
        }
    }
}

/// What a run must show.
#[derive(Clone, Copy)]
pub enum Show {
    /// The `start` record's field.
    Start(&'static str, V),
    /// The field of the one record of a kind.
    One(&'static str, &'static str, V),
    /// The field of every record of a kind (at least one).
    Every(&'static str, &'static str, V),
    /// How many records of a kind.
    Count(&'static str, usize),
    /// No record at all.
    NoRecords,
    /// The console shows this text.
    Line(&'static str),
    /// The console does not show this text.
    NoLine(&'static str),
    /// The runner's stderr contains this.
    Stderr(&'static str),
    /// The first `check` record of this name passed, its detail containing the text.
    Check(&'static str, &'static str),
    /// The `verdict` record of this name has this status.
    Verdict(&'static str, &'static str),
    /// The `end` record counts this many warnings.
    Warnings(u64),
    /// The `end` record names these warnings.
    Warned(&'static [&'static str]),
    /// The firmware saw these bootargs and what qemu/run appends (`mairbench.host=`, `.accel=`).
    Bootargs(&'static str),
    /// The memory-type proof: [`Run::assert_memory_proven`].
    MemoryProven,
    /// A check of its own, named.
    Also(&'static str, fn(&Row, &Run)),
    /// Each of a group of items.
    All(&'static [Show]),
}

impl Show {
    fn check(self, row: &Row, run: &Run) {
        match self {
            Show::Start(field, v) => v.check(run.one("start"), field),
            Show::One(kind, field, v) => v.check(run.one(kind), field),
            Show::Every(kind, field, v) => {
                let all = run.of_kind(kind);
                assert!(!all.is_empty(), "no {kind} record");
                all.into_iter().for_each(|r| v.check(r, field));
            }
            Show::Count(kind, n) => {
                // Results as the host reads them: a point taken again counts once.
                let got = match kind {
                    "result" => run.results().len(),
                    _ => run.of_kind(kind).len(),
                };
                assert_eq!(got, n, "{got} {kind} records, not {n}");
            }
            Show::NoRecords => assert!(run.records.is_empty(), "records"),
            Show::Line(text) => assert!(run.console.contains(text), "no {text:?} on the console"),
            Show::NoLine(text) => assert!(!run.console.contains(text), "{text:?} on the console"),
            Show::Stderr(text) => assert!(run.stderr.contains(text), "no {text:?} on stderr"),
            Show::Check(name, detail) => {
                let check = run
                    .of_kind("check")
                    .into_iter()
                    .find(|c| c["name"] == name)
                    .unwrap_or_else(|| panic!("no {name} check"));
                assert_eq!(check["ok"], true, "{check}");
                let said = check["detail"].as_str().unwrap_or("");
                assert!(said.contains(detail), "{detail:?} not in {check}");
            }
            Show::Verdict(name, status) => {
                let verdict = run
                    .of_kind("verdict")
                    .into_iter()
                    .find(|v| v["name"] == name)
                    .unwrap_or_else(|| panic!("no {name} verdict"));
                assert_eq!(verdict["status"], status, "{verdict}");
            }
            Show::Warnings(n) => assert_eq!(run.one("end")["warnings"], n, "{}", run.one("end")),
            Show::Warned(names) => {
                let end = run.one("end");
                assert_eq!(end["warned"], serde_json::json!(names), "{end}");
            }
            Show::Bootargs(args) => {
                assert_eq!(
                    run.one("start")["bootargs"],
                    common::with_host(args).as_str()
                );
            }
            Show::MemoryProven => run.assert_memory_proven(),
            Show::Also(_, check) => check(row, run),
            Show::All(shows) => shows.iter().for_each(|show| show.check(row, run)),
        }
    }

    /// The item as the failure message names it.
    fn name(&self) -> String {
        match self {
            Show::Also(what, _) => (*what).to_owned(),
            Show::Start(field, v) => format!("start.{field} {v:?}"),
            Show::One(kind, field, v) => format!("{kind}.{field} {v:?}"),
            Show::Every(kind, field, v) => format!("every {kind}.{field} {v:?}"),
            Show::Count(kind, n) => format!("{n} {kind} records"),
            Show::NoRecords => "no records".to_owned(),
            Show::Line(text) => format!("line {text:?}"),
            Show::NoLine(text) => format!("no line {text:?}"),
            Show::Stderr(text) => format!("stderr {text:?}"),
            Show::Check(name, detail) => format!("check {name} {detail:?}"),
            Show::Verdict(name, status) => format!("verdict {name} {status}"),
            Show::Warnings(n) => format!("{n} warnings"),
            Show::Warned(names) => format!("warned {names:?}"),
            Show::Bootargs(args) => format!("bootargs {args:?}"),
            Show::MemoryProven => "memory proven".to_owned(),
            Show::All(shows) => {
                let names: Vec<String> = shows.iter().map(Show::name).collect();
                names.join(", ")
            }
        }
    }
}

/// One configuration and what its run must show.
pub struct Row {
    pub name: &'static str,
    /// `MAIRBENCH_MACHINE`: virt, or a real board's machine.
    pub machine: &'static str,
    /// The CPU model: `MAIRBENCH_CPU` on virt; a real board's machine has its own.
    pub cpu: &'static str,
    /// Emulated CPUs: `MAIRBENCH_SMP` on virt; on a real board's machine the CPUs that run
    /// (the AArch64 boards' four; the 32-bit boards' boot CPU: the image does not start the
    /// others).
    pub cpus: usize,
    /// The EL the firmware is entered at (`MAIRBENCH_EL`, where the machine offers a choice).
    pub el: u64,
    pub path: Path,
    pub bootargs: &'static [&'static str],
    /// Further runner settings.
    pub env: &'static [(&'static str, &'static str)],
    pub outcome: Outcome,
    pub shows: &'static [Show],
}

const fn row(
    name: &'static str,
    machine: &'static str,
    cpu: &'static str,
    cpus: usize,
    el: u64,
    path: Path,
    bootargs: &'static [&'static str],
) -> Row {
    Row {
        name,
        machine,
        cpu,
        cpus,
        el,
        path,
        bootargs,
        env: &[],
        outcome: Outcome::Pass,
        shows: &[],
    }
}

impl Row {
    const fn env(self, env: &'static [(&'static str, &'static str)]) -> Row {
        Row { env, ..self }
    }

    const fn ends(self, outcome: Outcome) -> Row {
        Row { outcome, ..self }
    }

    const fn shows(self, shows: &'static [Show]) -> Row {
        Row { shows, ..self }
    }

    /// The EL QEMU enters a real board's machine at unless told otherwise (the 32-bit
    /// image's: the mode, SVC 1, HYP 2).
    fn machine_el(&self) -> u64 {
        match self.machine {
            "virt" | "xlnx-zcu102" | "raspi2b" | "sabrelite" | "cubieboard" => 1,
            _ => 2,
        }
    }

    /// The CPU model the runner picks on virt without `MAIRBENCH_CPU`: the 32-bit image's
    /// (`MAIRBENCH_ARCH=armv7` among the row's settings) or the AArch64 image's.
    fn default_cpu(&self) -> &'static str {
        match self.env.iter().find(|(k, _)| *k == "MAIRBENCH_ARCH") {
            Some((_, "armv7")) => "cortex-a7",
            _ => "cortex-a72",
        }
    }

    /// The runner settings of the row.
    pub fn settings(&self) -> Vec<(&'static str, String)> {
        let mut env = Vec::new();
        if self.machine == "virt" {
            if self.cpu != self.default_cpu() {
                env.push(("MAIRBENCH_CPU", self.cpu.to_owned()));
            }
            if self.cpus != 1 {
                env.push(("MAIRBENCH_SMP", self.cpus.to_string()));
            }
        } else {
            env.push(("MAIRBENCH_MACHINE", self.machine.to_owned()));
        }
        if self.el != self.machine_el() {
            env.push(("MAIRBENCH_EL", self.el.to_string()));
        }
        let rest = self
            .path
            .settings()
            .into_iter()
            .chain(self.env.iter().copied());
        env.extend(rest.map(|(k, v)| (k, v.to_owned())));
        env
    }

    /// Boots the row (again: [`run`] gives the run all share).
    pub fn boot(&self) -> Run {
        let settings = self.settings();
        let env: Vec<(&str, &str)> = settings.iter().map(|(k, v)| (*k, v.as_str())).collect();
        common::boot(&env, self.bootargs)
    }

    /// The largest share of the host the row may take, for the order rows start in (the
    /// longest first, so that the last to finish are short).
    fn effort(&self) -> u64 {
        let timeout = self
            .env
            .iter()
            .find(|(k, _)| *k == "MAIRBENCH_TIMEOUT")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(60);
        let cpus = if self.machine == "virt" { self.cpus } else { 4 };
        timeout * cpus.min(common::slots() * 2) as u64
    }

    /// Asserts what the run of the row must show.
    pub fn check(&self, run: &Run) {
        match self.outcome {
            Outcome::Pass => run.assert_pass(),
            Outcome::Fail => {
                run.assert_framed();
                assert_eq!(run.one("end")["status"], "fail", "{run}");
                assert_eq!(run.status, 1, "runner status:\n{run}");
            }
            Outcome::Status(status) => assert_eq!(run.status, status, "runner status:\n{run}"),
        }
        if !run.of_kind("start").is_empty() {
            assert_eq!(run.one("start")["entry_el"], self.el, "entry EL:\n{run}");
        }
        if let Outcome::Pass = self.outcome {
            let hellos = run.of_kind("hello").len();
            assert_eq!(hellos, self.cpus, "hello records:\n{run}");
        }
        for show in self.shows {
            let checked = catch_unwind(AssertUnwindSafe(|| show.check(self, run)));
            if let Err(e) = checked {
                panic!("{}: {}\n{run}", show.name(), message(&*e));
            }
        }
    }
}

/// The row as a failure names it.
impl std::fmt::Display for Row {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let settings: Vec<String> = self
            .settings()
            .iter()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        write!(
            f,
            "{} ({} {} x{}, EL{}, {:?}; `{}` `{}`)",
            self.name,
            self.machine,
            self.cpu,
            self.cpus,
            self.el,
            self.path,
            settings.join(" "),
            self.bootargs.join(" ")
        )
    }
}

/// What a panic said.
fn message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| (*s).to_owned()))
        .unwrap_or_else(|| "a panic without a message".to_owned())
}

const QUICK: &[&str] = &["mairbench.quick"];
/// The quick kernels at small sizes, once each: a board's four CPUs under TCG make the quick
/// sweep the longest part of a run whose checks are the boot's and the kernels' names.
pub const QUICK_SMALL: &[&str] = &[
    "mairbench.quick",
    "mairbench.sizes=4K-64K",
    "mairbench.reps=1",
];
/// The proof and one point of one kernel: for runs that check the boot, not the measurements.
pub const SHORT: &[&str] = &[
    "mairbench.quick",
    "mairbench.kernels=read-ldp",
    "mairbench.types=normal-wb",
    "mairbench.sizes=4K-4K",
];
/// A reduced run for many CPUs: the proof, one type, one size, one rep (the scaling still
/// covers every core count it measures).
pub const REDUCED: &[&str] = &[
    "mairbench.quick",
    "mairbench.types=normal-wb",
    "mairbench.kernels=read-ldp",
    "mairbench.sizes=4K-4K",
    "mairbench.reps=1",
];
/// Four CPUs of a real board's machine make a quick run take 10 s to 20 s of wall time on a
/// loaded 2-core host (virt with four: 11 s, against 1 s with one), so QEMU gets more time.
const BOARD: &[(&str, &str)] = &[("MAIRBENCH_TIMEOUT", "80")];

/// `-kernel` at every EL of every CPU model: what the entry code leaves ([`entry::kernel`]).
const ENTRY: &[Show] = &[Also("entry", entry::kernel), MemoryProven];
/// `booti` runs the image in place (flags bit 3): it relocates itself to the load address.
const BOOTI: &[Show] = &[Bootargs("mairbench.quick"), Line("U-Boot"), MemoryProven];
/// `bootm` of a standalone program enters with the MMU and D-cache on and no device tree in
/// x0: the firmware turns them off (cleaning the cache) and finds QEMU's DTB.
const BOOTM: &[Show] = &[
    Start("entry_mmu", B(true)),
    Start("entry_dcache", B(true)),
    Start("dtb", S("0x40000000")),
    Bootargs("mairbench.quick"),
    Start("bootargs_from", S("semihosting")),
    MemoryProven,
];
/// The real-board U-Boot flow (docs/uboot.md): U-Boot's distro boot finds `boot.scr`
/// (boot/boot.cmd) on the FAT partition of an MBR virtio disk and sources it; the script says
/// what it does and `booti`s `mairbench.bin` with the device tree U-Boot runs on, whose
/// /chosen/bootargs `mairbench.txt` gave; loaded to U-Boot's kernel_addr_r (0x40400000 in
/// Debian's qemu_arm64 build), run in place.
const SCRIPT: &[Show] = &[
    Line("U-Boot"),
    Line("Scanning virtio 0:1"),
    Line("Found U-Boot script /boot.scr"),
    Line("## Executing script"),
    Line("mairbench: bootargs from /mairbench.txt"),
    Line("mairbench: loading /mairbench.bin"),
    Line("mairbench: booti "),
    NoLine("FAILED"),
    Start("entry_mmu", B(false)),
    Bootargs("mairbench.quick"),
    Start("bootargs_from", S("dtb")),
    Start("image_base", S("0x40400000")),
    MemoryProven,
];
/// An image UEFI started over a device tree ([`uefi::with_dtb`]).
const UEFI_DT: Show = Also("a UEFI application over a device tree", uefi::with_dtb);
/// U-Boot's bootefi of the image read from the EFI system partition, U-Boot's bootargs as
/// load options.
const BOOTEFI: &[Show] = &[UEFI_DT, Line("Booting /\\EFI\\mairbench\\mairbench.efi")];
/// The proof and one point of one kernel, then the proof made to fail.
const SHORT_BAD_ATTR: &[&str] = &[
    "mairbench.quick",
    "mairbench.kernels=read-ldp",
    "mairbench.types=normal-wb",
    "mairbench.sizes=4K-4K",
    "mairbench.selftest=bad-attr",
];

/// The 32-bit image (`MAIRBENCH_ARCH=armv7`: the runner boots it in qemu-system-arm).
const ARMV7: &[(&str, &str)] = &[("MAIRBENCH_ARCH", "armv7")];

/// The boot matrix. A row named after a test is that test, whole; the others are
/// configurations that tests read (their names say the configuration, or the test that
/// reads it first).
#[rustfmt::skip]
pub const MATRIX: &[Row] = &[
    // QEMU's -kernel: every CPU model at every entry EL (EL3: QEMU's generic loader).
    //  name                machine cpu           cpus el path    bootargs
    row("kernel_a53_el1",   "virt", "cortex-a53", 1,   1, Kernel, QUICK).shows(ENTRY),
    row("kernel_a53_el2",   "virt", "cortex-a53", 1,   2, Kernel, QUICK).shows(ENTRY),
    row("kernel_a53_el3",   "virt", "cortex-a53", 1,   3, Kernel, QUICK).shows(ENTRY),
    row("kernel_a72_el1",   "virt", "cortex-a72", 1,   1, Kernel, QUICK).shows(ENTRY),
    row("kernel_a72_el2",   "virt", "cortex-a72", 1,   2, Kernel, QUICK).shows(ENTRY),
    row("kernel_a72_el3",   "virt", "cortex-a72", 1,   3, Kernel, QUICK).shows(ENTRY),
    row("kernel_max_el1",   "virt", "max",        1,   1, Kernel, QUICK).shows(ENTRY),
    row("kernel_max_el2",   "virt", "max",        1,   2, Kernel, QUICK).shows(ENTRY),
    row("kernel_max_el3",   "virt", "max",        1,   3, Kernel, QUICK).shows(ENTRY),

    // Debian's U-Boot: booti at EL1 and EL2 with the image at two addresses each, bootm of a
    // uImage (caches on at entry; the set/way clean in both CCSIDR_EL1 layouts: neoverse-v1
    // has FEAT_CCIDX, max does not, measured on QEMU 10.0.2), and distro boot of boot.scr.
    row("uboot_el1_at_0x40400000", "virt", "cortex-a72", 1, 1, Booti("0x40400000"), QUICK)
        .shows(&[Start("image_base", S("0x40400000")), All(BOOTI)]),
    row("uboot_el1_at_0x48000000", "virt", "cortex-a72", 1, 1, Booti("0x48000000"), QUICK)
        .shows(&[Start("image_base", S("0x48000000")), All(BOOTI)]),
    row("uboot_el2_at_0x40400000", "virt", "cortex-a72", 1, 2, Booti("0x40400000"), QUICK)
        .shows(&[Start("image_base", S("0x40400000")), All(BOOTI)]),
    row("uboot_el2_at_0x4a200000", "virt", "cortex-a72", 1, 2, Booti("0x4a200000"), QUICK)
        .shows(&[Start("image_base", S("0x4a200000")), All(BOOTI)]),
    row("uboot_bootm_el1_mmu_and_caches_on_at_entry", "virt", "cortex-a72", 1, 1, Bootm, QUICK)
        .shows(BOOTM),
    row("uboot_bootm_el2_mmu_and_caches_on_at_entry", "virt", "cortex-a72", 1, 2, Bootm, QUICK)
        .shows(BOOTM),
    row("bootm_with_caches_on_ccidx_cpu", "virt", "neoverse-v1", 1, 1, Bootm, QUICK)
        .shows(&[Start("entry_mmu", B(true)), Check("entry-clean", "FEAT_CCIDX layout")]),
    row("bootm_with_caches_on_max",       "virt", "max",         1, 1, Bootm, QUICK)
        .shows(&[Start("entry_mmu", B(true)), Check("entry-clean", "32-bit layout")]),
    row("uboot_script_el1", "virt", "cortex-a72", 1, 1, Script, QUICK).shows(SCRIPT),
    row("uboot_script_el2", "virt", "cortex-a72", 1, 2, Script, QUICK).shows(SCRIPT),

    // UEFI: EDK2 over a device tree (its shell runs startup.nsh) and over ACPI alone (the
    // platform from the RSDP, four CPUs from the MADT started over PSCI, FADT: HVC, the
    // console from the SPCR), U-Boot's bootefi, and firmware that never finds the image.
    row("edk2_device_tree",  "virt", "cortex-a72", 1, 1, UefiDt,   QUICK)
        .shows(&[UEFI_DT, Line("startup.nsh")]),
    row("uboot_bootefi_el1", "virt", "cortex-a72", 1, 1, UbootEfi, QUICK).shows(BOOTEFI),
    row("uboot_bootefi_el2", "virt", "cortex-a72", 1, 2, UbootEfi, QUICK).shows(BOOTEFI),
    // One kernel on two types: four emulated CPUs on a 2-core host run the scaling tables
    // slowly, and this row is about the tables and the CPUs, not the measurements.
    // Two clusters of two (MAIRBENCH_CLUSTERS): QEMU's PPTT names them.
    row("edk2_acpi_four_cpus_from_the_madt", "virt", "cortex-a72", 4, 1, Uefi,
        &["mairbench.quick", "mairbench.kernels=read-ldp", "mairbench.types=normal-wb,normal-nc",
          "mairbench.sizes=4K-64K", "mairbench.reps=1"])
        .env(&[("MAIRBENCH_TIMEOUT", "120"), ("MAIRBENCH_CLUSTERS", "2")])
        .shows(&[Line("ACPI RSDP at 0x"), Start("firmware", S("uefi")), Start("tables", S("acpi")),
                 Start("platform", S("BOCHS BXPC")), Start("psci", S("hvc")),
                 Start("console", S("pl011")), Start("emulated", B(true)),
                 Start("bootargs_from", S("uefi")), Verdict("smp-config", "pass"),
                 // The clusters from QEMU's PPTT (read before the MMU is on: the firmware
                 // does not map ACPI's tables), the other one swept on its own CPU, and the
                 // core-to-core matrix of the four CPUs' six pairs.
                 Every("cluster", "source", S("pptt")), Every("cluster", "cpus", N(2)),
                 Count("cluster", 2), Also("the PPTT's second cluster swept", uefi::pptt_clusters),
                 Count("core_to_core", 6)]),
    // EDK2's shell cannot run startup.nsh's command and waits: the runner says so at its limit
    // (5 s: whether EDK2 reached its shell by then or not, no line of mairbench came).
    row("firmware_that_never_starts_the_image_times_out_clearly",
        "virt", "cortex-a72", 1, 1, UefiDt, QUICK)
        .env(&[("MAIRBENCH_UEFI_IMAGE", "0"), ("MAIRBENCH_TIMEOUT", "5")]).ends(Status(124))
        .shows(&[Stderr("the firmware (uefi-dt) never started the image"), NoRecords]),
    // U-Boot that finds no image says so and powers off: a failed run, not a hang.
    row("uboot_without_the_image_fails_clearly", "virt", "cortex-a72", 1, 1, UbootEfi, QUICK)
        .env(&[("MAIRBENCH_UEFI_IMAGE", "0")]).ends(Status(1))
        .shows(&[Line("mairbench: bootefi did not start mairbench; powering off")]),

    // QEMU's real boards' machines with the board's own device tree (qemu/dtbs): the Pi 3B
    // (spin-table, the mini-UART driven as a 16550 at 0x7e215040 through the soc ranges, no
    // PSCI, RAM at 0), the Pi 4B, the i.MX 8M Plus EVK and the ZCU102 (boards_qemu.rs).
    row("raspi3b_with_the_boards_own_device_tree", "raspi3b", "cortex-a53", 4, 2, Kernel, QUICK)
        .shows(&[Start("platform", S("Raspberry Pi 3 Model B")), Start("midr", S("0x410fd034")),
                 Start("console", S("ns16550")), Start("console_base", S("0x3f215040")),
                 Start("psci", S("none")), Start("ram_base", S("0x0")),
                 Bootargs("mairbench.quick"), Line("PSCI is unavailable"), MemoryProven]),
    row("raspi4b",              "raspi4b",     "cortex-a72", 4, 2, Kernel, QUICK_SMALL).env(BOARD),
    row("imx8mp_evk",           "imx8mp-evk",  "cortex-a53", 4, 2, Kernel, QUICK_SMALL).env(BOARD),
    row("imx8mp_evk_bad_attr",  "imx8mp-evk",  "cortex-a53", 4, 2, Kernel, SHORT_BAD_ATTR)
        .env(BOARD).ends(Fail),
    row("xlnx_zcu102",          "xlnx-zcu102", "cortex-a53", 4, 1, Kernel, QUICK).env(BOARD),
    row("xlnx_zcu102_el2",      "xlnx-zcu102", "cortex-a53", 4, 2, Kernel, SHORT).env(BOARD),
    row("xlnx_zcu102_bad_attr", "xlnx-zcu102", "cortex-a53", 4, 1, Kernel, SHORT_BAD_ATTR)
        .env(BOARD).ends(Fail),

    // Cores (smp.rs): virt with 2 to 16 CPUs (a GICv3 above eight), a CPU that PSCI refuses,
    // a scaling that has nothing to run, and more CPUs than a GICv2 serves.
    row("two_cpus_quick",       "virt", "cortex-a72", 2,  1, Kernel, QUICK),
    row("three_cpus_quick",     "virt", "cortex-a72", 3,  1, Kernel, QUICK),
    row("four_cores_from_el1",  "virt", "cortex-a72", 4,  1, Kernel, QUICK_SMALL),
    row("four_cores_from_el2",  "virt", "cortex-a72", 4,  2, Kernel, QUICK_SMALL),
    row("six_cpus_reduced",     "virt", "cortex-a72", 6,  1, Kernel, REDUCED),
    row("eight_cpus_reduced",   "virt", "cortex-a72", 8,  1, Kernel, REDUCED),
    row("sixteen_cpus_reduced", "virt", "cortex-a72", 16, 1, Kernel, REDUCED)
        .env(&[("MAIRBENCH_TIMEOUT", "240")]),
    // PSCI INVALID_PARAMETERS for the CPU the selftest asks for; the smp-config verdict
    // counts it.
    row("a_core_that_cannot_start_is_named_and_the_run_goes_on", "virt", "cortex-a72", 2, 1,
        Kernel, &["mairbench.quick", "mairbench.selftest=missing-cpu"])
        .shows(&[One("cpu", "mpidr", S("0xff00")), One("cpu", "started", B(false)),
                 One("cpu", "why", S("PSCI CPU_ON returned -2")),
                 Warned(&["cpu", "smp-config"])]),
    row("scaling_runs_only_selected_kernels", "virt", "cortex-a72", 2, 1, Kernel,
        &["mairbench.quick", "mairbench.types=normal-wb", "mairbench.kernels=latency",
          "mairbench.sizes=4K-4K", "mairbench.reps=1"])
        .shows(&[Count("scaling", 0), Count("loaded_latency", 0),
                 Line("scaling: not run (none of read-ldp, write-stp, copy-to, triad is among \
                       the selected kernels)"),
                 Line("loaded latency: not run (read-ldp and write-stp are not among the \
                       selected kernels)")]),
    row("scaling_copies_and_triads", "virt", "cortex-a72", 2, 1, Kernel,
        &["mairbench.kernels=copy-to,triad", "mairbench.types=normal-wb,device-ngnrne",
          "mairbench.sizes=4K-8K", "mairbench.reps=1"])
        .shows(&[Count("scaling", 2 * 2 * 2),
                 Check("scaling", "copy-to, triad on 1 to 2 cores at once: every core \
                        finished, data verified"),
                 Also("scaling_bytes_are_counted_as_each_kernel_counts_them", |_, run| {
                     for s in run.of_kind("scaling") {
                         // Each core's part: half copied (counted once), three quarters
                         // the triad's arrays (counted as STREAM counts them).
                         let bytes = s["bytes_per_core"].as_u64().unwrap();
                         let part = 4u64 << 20;
                         let moved = if s["kernel"] == "copy-to" { part / 2 } else { part / 4 * 3 };
                         assert_eq!(bytes % moved, 0, "{s}");
                         assert!(s["aggregate_mbps"].as_u64().unwrap() > 0, "{s}");
                     }
                 })]),
    row("more_cpus_than_gicv2_serves_is_a_bad_setting", "virt", "cortex-a72", 9, 1, Kernel, &[])
        .env(&[("MAIRBENCH_GIC", "2")]).ends(Status(2)).shows(&[Stderr("MAIRBENCH_GIC")]),

    // The 32-bit image (armv7.rs): SVC entry on a Cortex-A7 by QEMU's -kernel (the run of
    // `MAIRBENCH_ARCH=armv7 ./run.sh mairbench.quick`, docs/lab-armv7.md's excerpt), HYP
    // entry on four Cortex-A15s (reduced: the proof covers every alias all the same), and
    // U-Boot's bootz (the proof and one point). U-Boot with more than one CPU fails today:
    // the boot CPU keeps U-Boot's SCTLR.Z, and smp-registers says so.
    row("armv7_a7_svc",         "virt", "cortex-a7",  1, 1, Kernel, QUICK).env(ARMV7),
    row("armv7_a15_hyp_4_cpus", "virt", "cortex-a15", 4, 2, Kernel, REDUCED).env(ARMV7),
    row("armv7_a7_uboot_bootz", "virt", "cortex-a7",  1, 1, Bootz,  SHORT).env(ARMV7),
    // U-Boot's bootm of the image as a Linux kernel uImage: entered as by bootz.
    row("armv7_a7_uboot_bootm", "virt", "cortex-a7",  1, 1, Bootm,  SHORT).env(ARMV7),
    // QEMU's 32-bit boards' machines with the board's own tree from Debian's armhf kernel
    // (armv7.rs): the i.MX6UL EVK (one Cortex-A7, the report's shape) passes with the six
    // types; the Orange Pi PC (PSCI, its tree naming no method) and the Pi 2B (its
    // brcm,bcm2836-smp mailboxes) pass with their four CPUs running; the SABRE Lite
    // (Cortex-A9) and the Cubieboard (Cortex-A8) fail, saying why: no generic timer.
    row("armv7_board_mcimx6ul_evk", "mcimx6ul-evk", "cortex-a7", 1, 2, Kernel, QUICK_SMALL)
        .env(ARMV7),
    row("armv7_board_orangepi_pc",  "orangepi-pc",  "cortex-a7", 4, 2, Kernel, QUICK_SMALL)
        .env(ARMV7),
    row("armv7_board_raspi2b",      "raspi2b",      "cortex-a7", 4, 1, Kernel, QUICK_SMALL)
        .env(ARMV7),
    // The SABRE Lite's (disabled) L2C-310: its clean timed beside the CPU's, the
    // register path's cost only (armv7.rs checks the record's every figure).
    row("armv7_board_sabrelite",    "sabrelite",    "cortex-a9", 1, 1, Kernel, SHORT)
        .env(ARMV7)
        .shows(&[One("outer_maint", "enabled", B(false)),
                 One("outer_maint", "outer_lines", N(2048)),
                 One("outer_maint", "syncs", N(16)),
                 Line("outer cache timing: cleaning 64 KiB, best of 8 passes: the CPU's \
                       DCCMVAC per 32-byte line "),
                 Line("the controller is disabled and holds no lines, so its figure is the \
                       register path's cost only, not a clean's")]),
    row("armv7_board_cubieboard",   "cubieboard",   "cortex-a8", 1, 1, Kernel, SHORT)
        .env(ARMV7).ends(Fail),

    // Failures on purpose (contract.rs, failures.rs, memory.rs, the documentation).
    row("fault",       "virt", "cortex-a72", 1, 1, Kernel, &["mairbench.selftest=fault"])
        .ends(Fail),
    row("panic",       "virt", "cortex-a72", 1, 1, Kernel, &["mairbench.selftest=panic"])
        .ends(Fail),
    row("hang",        "virt", "cortex-a72", 1, 1, Kernel, &["mairbench.selftest=hang"])
        .env(&[("MAIRBENCH_TIMEOUT", "2")]).ends(Status(124)),
    row("quick_fault", "virt", "cortex-a72", 1, 1, Kernel,
        &["mairbench.quick", "mairbench.selftest=fault"]).ends(Fail),
    row("quick_panic", "virt", "cortex-a72", 1, 1, Kernel,
        &["mairbench.quick", "mairbench.selftest=panic"]).ends(Fail),
    row("bad_attr",    "virt", "cortex-a72", 1, 1, Kernel,
        &["mairbench.quick", "mairbench.selftest=bad-attr"]).ends(Fail),

    // Options (memory.rs, bench.rs, pmu.rs, framebuffer.rs).
    row("device_faults", "virt", "cortex-a72", 1, 1, Kernel,
        &["mairbench.quick", "mairbench.device-faults"]),
    row("buffer_size_from_bootargs", "virt", "cortex-a72", 1, 1, Kernel,
        &["mairbench.quick", "mairbench.buffer=4M"])
        .shows(&[One("mmu", "buffer_size", N(4 << 20)), Every("memtype", "size", N(4 << 20)),
                 MemoryProven]),
    row("a_buffer_of_part_of_a_block_is_rounded_down_with_a_warning", "virt", "cortex-a72", 1,
        1, Kernel, &["mairbench.quick", "mairbench.buffer=5M"])
        .shows(&[One("mmu", "buffer_size", N(4 << 20)), Warnings(1),
                 Line("5 MiB is not a whole number of 2 MiB blocks"), MemoryProven]),
    // Three warnings; the quick defaults stay (read-ldp, write-stp and write-line on the
    // eight types at three sizes).
    row("bad_benchmark_options_warn_and_keep_defaults", "virt", "cortex-a72", 1, 1, Kernel,
        &["mairbench.quick", "mairbench.kernels=bogus,raed-ldp", "mairbench.sizes=1-2",
          "mairbench.reps=0"])
        .shows(&[Warnings(3), Line("'mairbench.kernels'"), Count("result", 3 * 8 * 3)]),
    row("icount", "virt", "cortex-a72", 1, 1, Kernel,
        &["mairbench.quick", "mairbench.kernels=read-ldp,latency,copy-to"])
        .env(&[("MAIRBENCH_ICOUNT", "1")]),
    // mairbench.console=fb where nothing describes a framebuffer: said, and the run goes on
    // on the UART alone, with no fb in its start record.
    row("console_fb_without_a_framebuffer_says_so", "virt", "cortex-a72", 1, 1, Kernel,
        &["mairbench.quick", "mairbench.kernels=read-ldp", "mairbench.sizes=4K-4K",
          "mairbench.console=fb"])
        .shows(&[Line("framebuffer: none described (no UEFI GOP, no simple-framebuffer node): \
                       mairbench.console=fb draws nothing"),
                 Start("fb", Absent), NoLine("the screen keeps this")]),
];

/// The row of this name.
pub fn row_named(name: &str) -> &'static Row {
    MATRIX
        .iter()
        .find(|r| r.name == name)
        .unwrap_or_else(|| panic!("no row {name} in the boot matrix"))
}

/// The run of the row of this name, booted once per test process (by whichever test asks
/// first; the others wait for it).
pub fn run(name: &str) -> &'static Run {
    static RUNS: [OnceLock<Run>; MATRIX.len()] = [const { OnceLock::new() }; MATRIX.len()];
    let at = MATRIX
        .iter()
        .position(|r| r.name == name)
        .unwrap_or_else(|| panic!("no row {name} in the boot matrix"));
    RUNS[at].get_or_init(|| MATRIX[at].boot())
}

/// A run of these settings and bootargs: a row's, where one has exactly them (the row booted
/// once), else a boot of its own.
pub fn shared(env: &[(&str, &str)], bootargs: &[&str]) -> Shared {
    let mut wanted: Vec<(String, String)> = env
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    wanted.sort();
    let found = MATRIX.iter().find(|r| {
        let mut has: Vec<(String, String)> = r
            .settings()
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect();
        has.sort();
        has == wanted && r.bootargs == bootargs
    });
    match found {
        Some(r) => Shared::Row(run(r.name)),
        None => Shared::Own(common::boot(env, bootargs)),
    }
}

/// A run that is a row's or a test's own.
pub enum Shared {
    Row(&'static Run),
    Own(Run),
}

impl std::ops::Deref for Shared {
    type Target = Run;
    fn deref(&self) -> &Run {
        match self {
            Shared::Row(run) => run,
            Shared::Own(run) => run,
        }
    }
}

#[test]
fn every_row_shows_what_it_must() {
    let only = std::env::var("MAIRBENCH_ROWS").ok();
    let mut rows: Vec<&Row> = MATRIX
        .iter()
        .filter(|r| only.as_deref().is_none_or(|o| r.name.contains(o)))
        .collect();
    assert!(
        !rows.is_empty(),
        "no row's name contains MAIRBENCH_ROWS={only:?}"
    );
    rows.sort_by_key(|r| std::cmp::Reverse(r.effort()));
    let (count, queue) = (rows.len(), Mutex::new(rows.into_iter()));
    let failed = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..common::slots() {
            s.spawn(|| loop {
                let next = queue.lock().unwrap_or_else(|e| e.into_inner()).next();
                let Some(row) = next else { break };
                let started = Instant::now();
                let checked = catch_unwind(AssertUnwindSafe(|| row.check(run(row.name))));
                eprintln!("row {}: {:.1} s", row.name, started.elapsed().as_secs_f64());
                if let Err(e) = checked {
                    let failure = format!("row {row}:\n{}", message(&*e));
                    failed
                        .lock()
                        .unwrap_or_else(|e| e.into_inner())
                        .push(failure);
                }
            });
        }
    });
    let failed = failed.into_inner().unwrap_or_else(|e| e.into_inner());
    assert!(
        failed.is_empty(),
        "{} of {count} rows failed:\n\n{}",
        failed.len(),
        failed.join("\n\n")
    );
}
