//! The runner's own contract, mostly without booting anything: its exit statuses (2 a bad
//! setting, 3 a tool that failed, 124 a timeout) and its verdict (`qemu/judge`), with fake
//! tools and a fake QEMU put first on PATH.

use crate::common::{firmware, root};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// A fresh directory under the system's temporary directory, removed when dropped.
struct Scratch(PathBuf);

impl Scratch {
    fn new(name: &str) -> Scratch {
        let dir =
            std::env::temp_dir().join(format!("mairbench-runner-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        Scratch(dir)
    }

    fn file(&self, name: &str, text: &str) -> PathBuf {
        let path = self.0.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    /// An executable bash script on the scratch directory, which fakes a tool. A fake QEMU
    /// answers `--version` as QEMU 10.0.2 does (the runner and its installer ask), and `-cpu help`
    /// with two models (qemu/run checks MAIRBENCH_CPU).
    fn tool(&self, name: &str, body: &str) {
        use std::os::unix::fs::PermissionsExt;
        // A fake QEMU answers `--version` as a new enough one does, so that the installer
        // leaves it alone.
        let version = if name == "qemu-system-aarch64" {
            "[[ \"${1:-}\" == --version ]] && { echo 'QEMU emulator version 10.0.2 (fake)'; exit 0; }\n\
             [[ \" $* \" == *' -cpu help '* ]] && { printf 'Available CPUs:\\n  cortex-a53\\n  cortex-a72\\n'; exit 0; }\n"
        } else {
            ""
        };
        let path = self.file(name, &format!("#!/usr/bin/env bash\n{version}{body}\n"));
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What one run of a script printed and its exit status.
struct Out {
    status: i32,
    stdout: String,
    stderr: String,
}

/// Runs `qemu/<script>` with `args` and `env`, with `fakes` (if any) first on PATH.
fn script(name: &str, args: &[&str], env: &[(&str, &str)], fakes: Option<&Scratch>) -> Out {
    let mut cmd = Command::new(root().join("qemu").join(name));
    cmd.args(args)
        .env("MAIRBENCH_TIMEOUT", "30")
        .stdin(Stdio::null());
    if let Some(fakes) = fakes {
        let path = std::env::var("PATH").unwrap_or_default();
        cmd.env("PATH", format!("{}:{path}", fakes.0.display()));
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("the script starts");
    Out {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

fn run_elf(elf: &Path, env: &[(&str, &str)], fakes: Option<&Scratch>) -> Out {
    script(
        "run",
        &[elf.to_str().unwrap(), "mairbench.quick"],
        env,
        fakes,
    )
}

/// An ELF header and nothing else (64 bytes): `class` 1 (32-bit) or 2 (64-bit) and `e_machine`
/// `machine` (183 AArch64, 40 Arm), all the runner reads before objcopy, which fails on it (a
/// 64-bit header's section table at 0x1000, past the end).
fn elf_header(dir: &Scratch, name: &str, class: u8, machine: u16) -> PathBuf {
    let mut elf = b"\x7fELF".to_vec();
    elf.extend([class, 1, 1, 0]);
    elf.extend([0; 8]);
    elf.extend([3, 0]);
    elf.extend(machine.to_le_bytes());
    elf.resize(0x28, 0);
    elf.extend(0x1000u64.to_le_bytes());
    elf.resize(0x3a, 0);
    elf.extend([64, 0, 1, 0]);
    elf.resize(64, 0);
    let path = dir.0.join(name);
    std::fs::write(&path, elf).unwrap();
    path
}

#[test]
fn a_file_that_is_not_an_image_is_refused_with_status_2() {
    let dir = Scratch::new("not-elf");
    let bogus = dir.file("mairbench", "this is not an ELF file\n");
    let out = run_elf(&bogus, &[], None);
    assert_eq!(out.status, 2, "{}", out.stderr);
    assert!(out.stderr.contains("is not an ELF file"), "{}", out.stderr);
    let x86 = elf_header(&dir, "x86", 2, 62);
    let out = run_elf(&x86, &[], None);
    assert_eq!(out.status, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("is an ELF for machine 62, neither AArch64 (183) nor 32-bit Arm (40)"),
        "{}",
        out.stderr
    );
    // An AArch64 ELF header with nothing behind it: objcopy fails, status 3.
    let cut = elf_header(&dir, "cut", 2, 183);
    let out = run_elf(&cut, &[], None);
    assert_eq!(out.status, 3, "{}", out.stderr);
    assert!(out.stderr.contains("objcopy failed"), "{}", out.stderr);
    assert!(!dir.0.join("cut.bin").exists());
    // An image of the other architecture than MAIRBENCH_ARCH names.
    let out = run_elf(&cut, &[("MAIRBENCH_ARCH", "armv7")], None);
    assert_eq!(out.status, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "MAIRBENCH_ARCH=armv7 names the 32-bit image, but the image given is the AArch64 image"
        ),
        "{}",
        out.stderr
    );
}

#[test]
fn bad_settings_give_status_2_before_any_tool_runs() {
    // The image is not an ELF either: the settings are refused before objcopy could fail.
    let dir = Scratch::new("bad-settings");
    let bogus = dir.file("mairbench", "not an ELF\n");
    for (k, v) in [
        ("MAIRBENCH_EL", "4"),
        ("MAIRBENCH_BOOT", "pxe"),
        ("MAIRBENCH_SMP", "zero"),
        // Four CPUs do not split evenly into three clusters.
        ("MAIRBENCH_CLUSTERS", "3"),
        ("MAIRBENCH_CLUSTERS", "0"),
        ("MAIRBENCH_TIMEOUT", "0"),
        ("MAIRBENCH_MACHINE", "pc"),
        ("MAIRBENCH_DTB", "/nonexistent.dtb"),
        ("MAIRBENCH_LOG", "/nonexistent/console.log"),
        ("MAIRBENCH_ACCEL", "hvf"),
        ("MAIRBENCH_DISPLAY", "vga"),
        ("MAIRBENCH_SERIAL", "none"),
        ("MAIRBENCH_MONITOR", "/tmp/a,b"),
        ("MAIRBENCH_BOOTDELAY", "5s"),
        ("MAIRBENCH_BOOTDELAY", "3"),
    ] {
        let mut env = vec![(k, v)];
        if k == "MAIRBENCH_DTB" {
            env.push(("MAIRBENCH_MACHINE", "raspi3b"));
        }
        if k == "MAIRBENCH_CLUSTERS" {
            env.push(("MAIRBENCH_SMP", "4"));
        }
        // Whole seconds on a U-Boot path; any delay on a path without U-Boot.
        if (k, v) == ("MAIRBENCH_BOOTDELAY", "5s") {
            env.push(("MAIRBENCH_BOOT", "uboot"));
        }
        // No serial line is judged by the exit status: semihosting's, which this lacks.
        if k == "MAIRBENCH_SERIAL" {
            env.push(("MAIRBENCH_SEMIHOSTING", "0"));
        }
        let out = run_elf(&bogus, &env, None);
        assert_eq!(out.status, 2, "{k}={v}: {}", out.stderr);
        assert!(out.stderr.contains(k), "{k}={v}: {}", out.stderr);
    }
    // A CPU model this QEMU does not offer (QEMU itself would refuse to start, and the run
    // end without an end record): refused, the models it offers named. The CPU model is
    // checked for an image, after its header.
    let bogus = elf_header(&dir, "aarch64", 2, 183);
    let out = run_elf(&bogus, &[("MAIRBENCH_CPU", "cortex-a99")], None);
    assert_eq!(out.status, 2, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("MAIRBENCH_CPU=cortex-a99 is not a CPU model of this QEMU; it offers: "),
        "{}",
        out.stderr
    );
    for model in ["cortex-a53", "cortex-a72", "max", "neoverse-n1"] {
        assert!(
            out.stderr.split_whitespace().any(|w| w == model),
            "{model}: {}",
            out.stderr
        );
    }
    // A 32-bit core, which QEMU offers, on which the AArch64 image hung for the whole time
    // limit: refused before QEMU starts, the models with AArch64 named.
    let out = run_elf(&bogus, &[("MAIRBENCH_CPU", "cortex-a7")], None);
    assert_eq!(out.status, 2, "{}", out.stderr);
    let (said, models) = out.stderr.split_once("the models with AArch64: ").unwrap();
    assert!(
        said.contains("MAIRBENCH_CPU=cortex-a7 is a 32-bit core")
            && said.contains("the 32-bit image runs on it: MAIRBENCH_ARCH=armv7"),
        "{}",
        out.stderr
    );
    let models: Vec<&str> = models.split_whitespace().collect();
    assert!(
        models.contains(&"cortex-a72") && models.contains(&"max"),
        "{models:?}"
    );
    assert!(!models.contains(&"cortex-a15"), "{models:?}");
    // The 32-bit image: a 64-bit model, and a 32-bit one that qemu-system-arm's virt does not
    // take, are refused, the models it takes named.
    let arm = elf_header(&dir, "armv7", 1, 40);
    for (cpu, says) in [
        ("cortex-a72", "MAIRBENCH_CPU=cortex-a72 is a 64-bit model"),
        ("cortex-a9", "MAIRBENCH_CPU=cortex-a9 is a model of qemu-system-arm that its virt machine does not take"),
    ] {
        let out = run_elf(&arm, &[("MAIRBENCH_CPU", cpu)], None);
        assert_eq!(out.status, 2, "{cpu}: {}", out.stderr);
        assert!(out.stderr.contains(says), "{cpu}: {}", out.stderr);
        assert!(out.stderr.contains("cortex-a7 cortex-a15 max"), "{cpu}: {}", out.stderr);
    }
    // The 32-bit image on a path it does not boot by yet.
    let out = run_elf(&arm, &[("MAIRBENCH_BOOT", "uefi")], None);
    assert_eq!(out.status, 2, "{}", out.stderr);
    assert!(
        out.stderr.contains(
            "boots by QEMU's -kernel, U-Boot's bootz or U-Boot's bootm of a uImage only for now"
        ),
        "{}",
        out.stderr
    );
    // A board of the other image's architecture, each way, named by the ELF alone; and a
    // setting a 32-bit board's machine fixes.
    let boards: [(&std::path::Path, &str, &str); 3] = [
        (&arm, "raspi4b", "MAIRBENCH_MACHINE=raspi4b is a 64-bit board: the 32-bit image (MAIRBENCH_ARCH=armv7) runs on MAIRBENCH_MACHINE=virt and on the 32-bit boards' machines mcimx6ul-evk orangepi-pc raspi2b sabrelite cubieboard"),
        (&bogus, "mcimx6ul-evk", "MAIRBENCH_MACHINE=mcimx6ul-evk is a 32-bit board (1 Cortex-A7 and 512 MiB): the 32-bit image runs on it (MAIRBENCH_ARCH=armv7)"),
        (&arm, "sabrelite", "sabrelite has 4 Cortex-A9 and 1 GiB: MAIRBENCH_SMP, _CLUSTERS, _MEM and _CPU do not apply"),
    ];
    for (elf, machine, says) in boards {
        let mut env = vec![("MAIRBENCH_MACHINE", machine)];
        if machine == "sabrelite" {
            env.push(("MAIRBENCH_MEM", "2G"));
        }
        let out = run_elf(elf, &env, None);
        assert_eq!(out.status, 2, "{machine}: {}", out.stderr);
        assert!(out.stderr.contains(says), "{machine}: {}", out.stderr);
    }
    let usage = script("run", &[], &[], None);
    assert_eq!(usage.status, 2, "{}", usage.stderr);
    assert!(usage.stderr.contains("usage"), "{}", usage.stderr);
    let missing = script("run", &["/nonexistent/mairbench"], &[], None);
    assert_eq!(missing.status, 2, "{}", missing.stderr);
    assert!(missing.stderr.contains("no image"), "{}", missing.stderr);
}

#[test]
fn bad_uboot_settings_still_give_status_2() {
    let elf = firmware();
    for env in [
        [("MAIRBENCH_BOOT", "uboot"), ("MAIRBENCH_EL", "3")],
        [
            ("MAIRBENCH_BOOT", "uboot-bootm"),
            ("MAIRBENCH_LOAD", "0x40400001"),
        ],
        [
            ("MAIRBENCH_BOOT", "uboot-script"),
            ("MAIRBENCH_LOAD", "high"),
        ],
        [("MAIRBENCH_EL", "3"), ("MAIRBENCH_SEMIHOSTING", "0")],
    ] {
        let out = run_elf(&elf, &env, None);
        assert_eq!(out.status, 2, "{env:?}: {}", out.stderr);
    }
}

/// MAIRBENCH_ACCEL=kvm: settings that cannot apply under KVM give status 2 and say why; a
/// host that cannot run an arm64 guest under KVM gives status 3 and says why, never running
/// QEMU (under TCG such a run would pass for KVM's).
#[test]
fn kvm_is_refused_where_it_cannot_run() {
    let elf = firmware();
    for (k, v) in [
        ("MAIRBENCH_EL", "2"),
        ("MAIRBENCH_MACHINE", "raspi3b"),
        ("MAIRBENCH_CPU", "cortex-a53"),
        ("MAIRBENCH_ICOUNT", "1"),
    ] {
        let out = run_elf(&elf, &[("MAIRBENCH_ACCEL", "kvm"), (k, v)], None);
        assert_eq!(out.status, 2, "{k}={v}: {}", out.stderr);
        assert!(
            out.stderr.contains("MAIRBENCH_ACCEL=kvm"),
            "{k}={v}: {}",
            out.stderr
        );
    }
    let kvm = Path::new("/dev/kvm").exists();
    let arm64 = std::env::consts::ARCH == "aarch64";
    // A QEMU that would pass: only the host's refusal may end the run.
    let fakes = Scratch::new("kvm");
    fakes.tool(
        "qemu-system-aarch64",
        r#"case "$*" in *--version*) echo "QEMU emulator version 10.0.2";; *) echo '@mb {"kind":"end","status":"pass"}';; esac"#,
    );
    if !arm64 {
        let out = run_elf(&elf, &[("MAIRBENCH_ACCEL", "kvm")], Some(&fakes));
        assert_eq!(out.status, 3, "{}", out.stderr);
        assert!(out.stderr.contains("needs an arm64 host"), "{}", out.stderr);
        assert!(out.stdout.is_empty(), "QEMU ran: {}", out.stdout);
    }
    if !kvm {
        // The same on an arm64 host (uname says so) without /dev/kvm.
        fakes.tool("uname", "echo aarch64");
        let out = run_elf(&elf, &[("MAIRBENCH_ACCEL", "kvm")], Some(&fakes));
        assert_eq!(out.status, 3, "{}", out.stderr);
        assert!(out.stderr.contains("needs /dev/kvm"), "{}", out.stderr);
        assert!(out.stdout.is_empty(), "QEMU ran: {}", out.stdout);
    }
}

/// Each U-Boot path with one of its tools failing: status 3 and the tool named.
#[test]
fn a_failing_boot_tool_gives_status_3() {
    let elf = firmware();
    for (boot, tool) in [
        ("uboot", "mkenvimage"),
        ("uboot-bootm", "mkimage"),
        ("uboot-script", "mkimage"),
        ("uboot-script", "sfdisk"),
        ("uboot-script", "mformat"),
        ("uboot-script", "mcopy"),
    ] {
        let fakes = Scratch::new(&format!("{boot}-{tool}"));
        fakes.tool(tool, "echo \"failing on purpose\" >&2; exit 1");
        // Never reached: a QEMU that would pass, so that only the tool can fail the run.
        fakes.tool(
            "qemu-system-aarch64",
            r#"echo '@mb {"kind":"end","status":"pass"}'"#,
        );
        let out = run_elf(&elf, &[("MAIRBENCH_BOOT", boot)], Some(&fakes));
        assert_eq!(out.status, 3, "{boot} with {tool} failing: {}", out.stderr);
        assert!(out.stderr.contains(tool), "{boot}/{tool}: {}", out.stderr);
        assert!(
            out.stdout.is_empty(),
            "{boot}/{tool}: QEMU ran: {}",
            out.stdout
        );
    }
}

/// qemu/run with a fake QEMU that prints `console` and exits with `exit`.
fn with_fake_qemu(name: &str, console: &str, exit: i32, env: &[(&str, &str)]) -> Out {
    let fakes = Scratch::new(name);
    let log = fakes.file("console.txt", console);
    fakes.tool(
        "qemu-system-aarch64",
        &format!("cat '{}'; exit {exit}", log.display()),
    );
    run_elf(&firmware(), env, Some(&fakes))
}

#[test]
fn the_verdict_does_not_depend_on_the_order_of_the_end_records_fields() {
    let out = with_fake_qemu(
        "order",
        "@mb {\"kind\":\"start\",\"schema\":1}\n\
         @mb {\"kind\":\"end\",\"checks\":3,\"failed\":0,\"reason\":null,\"status\":\"pass\"}\n",
        0,
        &[],
    );
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(out.stdout.contains("\"status\":\"pass\""), "{}", out.stdout);
}

#[test]
fn a_failed_or_missing_end_record_or_a_failing_qemu_gives_status_1() {
    let fail = "@mb {\"kind\":\"end\",\"checks\":3,\"status\":\"fail\"}\n";
    let out = with_fake_qemu("fail", fail, 0, &[]);
    assert_eq!(out.status, 1, "{}", out.stderr);
    assert!(out.stderr.contains("the run failed"), "{}", out.stderr);

    let out = with_fake_qemu("none", "@mb {\"kind\":\"start\",\"schema\":1}\n", 0, &[]);
    assert_eq!(out.status, 1, "{}", out.stderr);
    assert!(
        out.stderr.contains("without an end record"),
        "{}",
        out.stderr
    );

    let pass = "@mb {\"kind\":\"end\",\"status\":\"pass\"}\n";
    let out = with_fake_qemu("qemu-failed", pass, 1, &[]);
    assert_eq!(out.status, 1, "{}", out.stderr);
    assert!(out.stderr.contains("QEMU exit status 1"), "{}", out.stderr);
}

#[test]
fn the_console_log_is_kept_where_mairbench_log_says() {
    let dir = Scratch::new("log");
    let log = dir.0.join("kept.log");
    let out = with_fake_qemu(
        "log-qemu",
        "hello\n@mb {\"kind\":\"end\",\"status\":\"pass\"}\n",
        0,
        &[("MAIRBENCH_LOG", log.to_str().unwrap())],
    );
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(std::fs::read_to_string(&log)
        .unwrap()
        .starts_with("hello\n"));
}

#[test]
fn a_qemu_that_never_finishes_is_killed_with_status_124() {
    let fakes = Scratch::new("hang");
    fakes.tool("qemu-system-aarch64", "echo booting; exec sleep 60");
    let started = std::time::Instant::now();
    let out = run_elf(&firmware(), &[("MAIRBENCH_TIMEOUT", "1")], Some(&fakes));
    assert_eq!(out.status, 124, "{}", out.stderr);
    assert!(out.stderr.contains("TIMEOUT"), "{}", out.stderr);
    assert!(
        started.elapsed().as_secs() < 20,
        "took {:?}",
        started.elapsed()
    );
}

/// `qemu/judge LOG [QEMU_STATUS]` on logs written here.
fn judge(name: &str, console: &str, qemu_status: Option<&str>) -> Out {
    let dir = Scratch::new(name);
    let log = dir.file("console.log", console);
    let mut args = vec![log.to_str().unwrap().to_owned()];
    args.extend(qemu_status.map(str::to_owned));
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    script("judge", &args, &[], None)
}

#[test]
fn judge_finds_status_pass_anywhere_among_the_top_level_members() {
    for (i, (console, want)) in [
        ("@mb {\"kind\":\"end\",\"status\":\"pass\",\"checks\":1}\n", 0),
        ("@mb {\"kind\":\"end\",\"checks\":1,\"status\":\"pass\"}\n", 0),
        ("@mb {\"kind\":\"end\", \"checks\": 1, \"status\" : \"pass\" }\r\n", 0),
        ("U-Boot 2023\r\n@mb {\"kind\":\"end\",\"run_us\":5,\"status\":\"pass\",\"reason\":null}\r\n", 0),
        // The last end record decides.
        ("@mb {\"kind\":\"end\",\"status\":\"fail\"}\n@mb {\"kind\":\"end\",\"status\":\"pass\"}\n", 0),
        ("@mb {\"kind\":\"end\",\"status\":\"pass\"}\n@mb {\"kind\":\"end\",\"status\":\"fail\"}\n", 1),
        ("@mb {\"kind\":\"end\",\"checks\":1,\"status\":\"fail\"}\n", 1),
        // Not a top-level member, or not the value pass.
        ("@mb {\"kind\":\"end\",\"x\":{\"status\":\"pass\"},\"status\":\"fail\"}\n", 1),
        ("@mb {\"kind\":\"end\",\"reason\":\"\\\"status\\\":\\\"pass\\\"\",\"status\":\"fail\"}\n", 1),
        ("@mb {\"kind\":\"end\",\"pass\":\"status\"}\n", 1),
        ("@mb {\"kind\":\"end\",\"status\":[\"pass\"]}\n", 1),
        // A truncated record, another kind, no record at all.
        ("@mb {\"kind\":\"end\",\"checks\":1,\"status\":\"pass\"\n", 1),
        ("@mb {\"kind\":\"start\",\"status\":\"pass\"}\n", 1),
        ("mairbench: status pass\n", 1),
    ]
    .into_iter()
    .enumerate()
    {
        let out = judge(&format!("case{i}"), console, None);
        assert_eq!(out.status, want, "{console:?}: {}", out.stderr);
    }
}

#[test]
fn judge_needs_qemu_to_have_exited_with_0_and_a_readable_log() {
    let pass = "@mb {\"kind\":\"end\",\"status\":\"pass\"}\n";
    assert_eq!(judge("q0", pass, Some("0")).status, 0);
    let out = judge("q1", pass, Some("1"));
    assert_eq!(out.status, 1);
    assert!(out.stderr.contains("QEMU exit status 1"), "{}", out.stderr);
    assert_eq!(judge("qx", pass, Some("x")).status, 2);
    let out = script("judge", &["/nonexistent/console.log"], &[], None);
    assert_eq!(out.status, 2, "{}", out.stderr);
    assert_eq!(script("judge", &[], &[], None).status, 2);
}

/// A failed run is explained by the lead of `cargo host report` (the runner's judge reads the
/// log with the host tool's reader): a panic, or the last line before the console went silent.
#[test]
fn judge_explains_a_failed_run_with_the_lead_of_the_report() {
    let out = judge(
        "why",
        "@mb {\"kind\":\"start\",\"schema\":1}\n\
         !! panic: panicked at src/main.rs:7:5:\n\
         oops\n\
         @mb {\"kind\":\"panic\",\"message\":\"oops\",\"file\":\"src/main.rs\",\"line\":7}\n\
         @mb {\"kind\":\"end\",\"status\":\"fail\",\"reason\":\"panic\"}\n",
        None,
    );
    assert_eq!(out.status, 1, "{}", out.stderr);
    assert!(
        out.stderr.ends_with(
            "the run failed\nwhy the run failed:\n  line 4: panic at src/main.rs:7: oops\n"
        ),
        "{}",
        out.stderr
    );
    let out = judge(
        "why-silent",
        "@mb {\"kind\":\"start\",\"schema\":1}\nselftest: hanging\r\n\n",
        None,
    );
    assert_eq!(out.status, 1, "{}", out.stderr);
    assert!(
        out.stderr
            .contains("without an end record\nwhy the run is incomplete:\n"),
        "{}",
        out.stderr
    );
    assert!(
        out.stderr
            .contains("last line before silence: line 2: selftest: hanging\n"),
        "{}",
        out.stderr
    );
    // A passing run is not explained.
    let out = judge(
        "why-pass",
        "@mb {\"kind\":\"end\",\"status\":\"pass\"}\n",
        None,
    );
    assert_eq!((out.status, out.stderr.as_str()), (0, ""));
}
