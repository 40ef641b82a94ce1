//! One run, start to end: the settings, what the machine needs (a board's device tree, KVM,
//! the installed packages, the CPU model), the image, the boot path, QEMU, the verdict.

use crate::arch::{models, models_refuse, Arch};
use crate::boot::{self, Ctx};
use crate::config::{Boot, Config, Serial};
use crate::console::{self, output_within, Console, Ended};
use crate::judge::{self, End};
use crate::linux::{self, Linux};
use crate::qemu::{self, QEMU, QEMU_ARM};
use crate::settings::Env;
use crate::sys::{bad, tool_failed, which, Fail, Real};
use std::path::{Path, PathBuf};

/// Debian's EDK2 for QEMU virt.
pub const EDK2_BIN: &str = "/usr/share/qemu-efi-aarch64/QEMU_EFI.fd";

/// The workspace this runner was built from (qemu/deps, qemu/dtbs, boot/boot.cmd).
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Cargo's target directory: CARGO_TARGET_DIR, else the workspace's `target`.
fn target_dir(root: &Path) -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .filter(|t| !t.is_empty())
        .map_or_else(|| root.join("target"), PathBuf::from)
}

/// Boots `elf` with `bootargs` and judges the run: the runner's exit status.
pub fn run(elf: &Path, bootargs: &[String]) -> i32 {
    match try_run(elf, bootargs) {
        Ok(status) => status,
        Err(fail) => {
            eprintln!("mairbench: {}", fail.message);
            fail.status
        }
    }
}

fn try_run(elf: &Path, bootargs: &[String]) -> Result<i32, Fail> {
    if !elf.is_file() {
        return Err(bad(format!(
            "no image at {} (build it with cargo build --release)",
            elf.display()
        )));
    }
    let given = bootargs.join(" ");
    let (root, target) = (root(), target_dir(&root()));
    let work = tempfile::Builder::new()
        .prefix("mairbench.")
        .tempdir()
        .map_err(|e| tool_failed(format!("cannot make a temporary directory: {e}")))?;
    let (c, console) = settings(elf, &given, &target, work.path())?;
    let board_dtb = board_dtb(&c, &root)?;
    let linux = match c.boot {
        Boot::Linux => Some(linux_settings(&c, elf, &root)?),
        _ => None,
    };
    kvm_host(&c)?;
    install_deps(&c, &root)?;
    cpu_model(&c)?;
    let image = work.path().join("Image");
    if linux.is_none() {
        image_from_elf(elf, &image, c.arch)?;
    }
    let version = output_within(c.arch.qemu(), &["--version"], 5).unwrap_or_default();
    let host_args = host_args(&c, &version);
    let ctx = Ctx {
        work: work.path().to_owned(),
        image,
        bootargs: [given.clone()]
            .into_iter()
            .chain(host_args.iter().cloned())
            .filter(|a| !a.is_empty())
            .collect::<Vec<_>>()
            .join(" "),
        uboot_bin: c.arch.uboot().into(),
        edk2_bin: EDK2_BIN.into(),
        root,
        target,
    };
    let mut q = qemu::machine(&c, board_dtb.as_deref());
    let path = match &linux {
        Some(l) => {
            let args: Vec<String> = bootargs.iter().chain(&host_args).cloned().collect();
            linux::boot(&c, l, work.path(), &mut Real, &args, &mut q)?;
            boot::Path::default()
        }
        None => {
            let path = boot::boot(&c, &ctx, &mut Real, &mut q)?;
            q.extend(qemu::semihosting(&c, path.by_semihosting, &ctx.bootargs));
            path
        }
    };
    qemu::finish(&c, &mut q, &console.log);
    eprintln!("mairbench: {}", version.lines().next().unwrap_or(""));
    if let Some(port) = c.gdb {
        eprintln!("mairbench: QEMU is halted, waiting for gdb on port {port}; attach with:");
        eprintln!(
            "  gdb-multiarch -q {} -ex 'target remote :{port}'",
            elf.display()
        );
    }
    let ended = match c.serial {
        Serial::Pty => console::run_pty(&q, c.limit, &console, work.path()),
        _ => console::run(&q, c.limit, &console),
    }
    .map_err(|e| tool_failed(format!("{} could not be run: {e}", c.arch.qemu())))?;
    if console.named {
        eprintln!(
            "mairbench: the whole console log, records included: {}",
            console.log.display()
        );
    }
    Ok(verdict(&c, &console.log, ended, &path, linux.as_ref()))
}

/// The run's settings and console for the image `elf`, whose architecture its ELF header
/// says: the settings are refused first, whatever the file is, then a file that is no image.
fn settings(
    elf: &Path,
    given: &str,
    target: &Path,
    work: &Path,
) -> Result<(Config, Console), Fail> {
    let arch = Arch::of_file(elf);
    let c =
        Config::read_as(arch.as_ref().ok().copied(), Env::from_process(), given).map_err(bad)?;
    let console = console_output(&c, target, work)?;
    arch.map_err(bad)?;
    Ok((c, console))
}

/// Where the console goes: MAIRBENCH_RECORDS (else records only when stdout is not a
/// terminal) and MAIRBENCH_LOG (else a file under target/mairbench-logs when records are
/// hidden, else one in `work`).
fn console_output(c: &Config, target: &Path, work: &Path) -> Result<Console, Fail> {
    use std::io::IsTerminal as _;
    let records = match c.env.get("MAIRBENCH_RECORDS") {
        Some(r) => r == "1",
        None => !std::io::stdout().is_terminal(),
    };
    let (log, named) = match c.env.get("MAIRBENCH_LOG") {
        Some(log) => (PathBuf::from(log), false),
        None if records => (work.join("console.log"), false),
        None => {
            let dir = target.join("mairbench-logs");
            std::fs::create_dir_all(&dir).map_err(|_| {
                bad(format!(
                    "cannot create {} for the console log (or set MAIRBENCH_LOG)",
                    dir.display()
                ))
            })?;
            (
                dir.join(format!("{}-{}.log", now(), std::process::id())),
                true,
            )
        }
    };
    std::fs::File::create(&log).map_err(|_| {
        bad(format!(
            "cannot write the console log at {} (MAIRBENCH_LOG)",
            log.display()
        ))
    })?;
    Ok(Console {
        records,
        log,
        named,
    })
}

/// The local time as `YYYYmmdd-HHMMSS`.
fn now() -> String {
    // SAFETY: time(2) and localtime_r(3) write only the values given.
    let tm = unsafe {
        let t = libc::time(std::ptr::null_mut());
        let mut tm: libc::tm = std::mem::zeroed();
        libc::localtime_r(&t, &mut tm);
        tm
    };
    format!(
        "{:04}{:02}{:02}-{:02}{:02}{:02}",
        tm.tm_year + 1900,
        tm.tm_mon + 1,
        tm.tm_mday,
        tm.tm_hour,
        tm.tm_min,
        tm.tm_sec
    )
}

/// A board machine's device tree: MAIRBENCH_DTB, else the board's own from qemu/dtbs's cache
/// (that of the kernel package of the board's architecture: arm64 or armhf).
fn board_dtb(c: &Config, root: &Path) -> Result<Option<PathBuf>, Fail> {
    let Some(board) = crate::boards::find(c.machine) else {
        return Ok(None);
    };
    if let Some(dtb) = &c.dtb {
        return Ok(Some(dtb.clone()));
    }
    let out = std::process::Command::new(root.join("qemu/dtbs"))
        .arg(board.package())
        .stdin(std::process::Stdio::null())
        .output()
        .ok()
        .filter(|o| o.status.success())
        .ok_or_else(|| {
            tool_failed(format!(
                "no device tree for {} (qemu/dtbs failed)",
                c.machine
            ))
        })?;
    let dtb = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim_end()).join(board.dtb);
    if !dtb.is_file() {
        return Err(tool_failed(format!(
            "no device tree at {} (qemu/dtbs did not fetch it)",
            dtb.display()
        )));
    }
    Ok(Some(dtb))
}

/// The Linux boot's twin, and what it says about RAM hidden from Linux.
fn linux_settings(c: &Config, elf: &Path, root: &Path) -> Result<Linux, Fail> {
    if !linux::kernel_args(&c.mem).1 {
        eprintln!("mairbench: MAIRBENCH_MEM={} is not a size of at least 256M: no RAM is hidden from Linux, no devmem-ram source", c.mem);
    }
    linux::settings(c, elf, root)
}

/// MAIRBENCH_ACCEL=kvm needs an arm64 host that offers /dev/kvm: else status 3, before QEMU
/// runs (under TCG such a run would pass for KVM's).
fn kvm_host(c: &Config) -> Result<(), Fail> {
    if !c.kvm {
        return Ok(());
    }
    let arch = output_within("uname", &["-m"], 5).unwrap_or_default();
    let arch = arch.trim();
    if arch != "aarch64" {
        return Err(tool_failed(format!(
            "MAIRBENCH_ACCEL=kvm needs an arm64 host; this one is {arch} (use tcg, the default)"
        )));
    }
    // SAFETY: access(2) on a NUL-terminated path.
    let rw = unsafe { libc::access(c"/dev/kvm".as_ptr(), libc::R_OK | libc::W_OK) } == 0;
    if !rw {
        return Err(tool_failed("MAIRBENCH_ACCEL=kvm needs /dev/kvm, readable and writable here (is KVM enabled, and are you in the kvm group?)"));
    }
    Ok(())
}

/// Installs QEMU (and U-Boot, EDK2 or Debian's kernel for their boot paths) when missing,
/// through qemu/deps.
fn install_deps(c: &Config, root: &Path) -> Result<(), Fail> {
    // A kernel boot needs QEMU alone: where it is found, qemu/deps (a shell and dpkg's
    // status) has nothing to add.
    let kernel_only = !(c.boot.is_uboot() || c.boot.is_uefi() || c.boot == Boot::Linux);
    if kernel_only && which(c.arch.qemu()).is_some() {
        return Ok(());
    }
    let mut groups = Vec::new();
    if c.boot.is_uboot() || c.boot.is_uefi() {
        groups.push("uboot");
    }
    if c.boot.is_uefi() {
        groups.push("uefi");
    }
    if c.boot == Boot::Linux {
        groups.push(c.arch.linux());
    }
    let ok = std::process::Command::new(root.join("qemu/deps"))
        .args(&groups)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        return Err(tool_failed(
            "what this run needs is missing (qemu/deps said what, above)",
        ));
    }
    if which(c.arch.qemu()).is_none() {
        return Err(tool_failed(format!(
            "{} is missing (package qemu-system-arm)",
            c.arch.qemu()
        )));
    }
    if c.boot.is_uboot() && !Path::new(c.arch.uboot()).is_file() {
        return Err(tool_failed(format!(
            "no U-Boot for QEMU at {} (package u-boot-qemu)",
            c.arch.uboot()
        )));
    }
    if c.boot.is_uefi() && !Path::new(EDK2_BIN).is_file() {
        return Err(tool_failed(format!(
            "no EDK2 for QEMU virt at {EDK2_BIN} (package qemu-efi-aarch64)"
        )));
    }
    Ok(())
}

/// MAIRBENCH_CPU must be a model the image's QEMU offers for virt (`-cpu help`: a heading,
/// then one name a line), else QEMU would refuse to start, and one that runs the image
/// ([`models_refuse`]). A QEMU that gives no such list within 5 s leaves the judgement to QEMU
/// itself.
fn cpu_model(c: &Config) -> Result<(), Fail> {
    // The default model (no MAIRBENCH_CPU) is every QEMU's: asking costs a QEMU start.
    if c.machine != "virt" || c.kvm || c.env.get("MAIRBENCH_CPU").is_none() {
        return Ok(());
    }
    let list = |qemu: &str| {
        let help = output_within(qemu, &["-machine", "virt", "-cpu", "help"], 5);
        models(&help.unwrap_or_default())
    };
    let has = |list: &[String]| list.contains(&c.cpu);
    // qemu-system-arm, from the same package, offers the 32-bit models only: the other QEMU's
    // list is asked for only to say why a model is refused.
    let (aarch64, arm) = match c.arch {
        Arch::Aarch64 => {
            let aarch64 = list(QEMU);
            let arm = if has(&aarch64) {
                list(QEMU_ARM)
            } else {
                Vec::new()
            };
            (aarch64, arm)
        }
        Arch::Armv7 => {
            let arm = list(QEMU_ARM);
            let aarch64 = if has(&arm) { Vec::new() } else { list(QEMU) };
            (aarch64, arm)
        }
    };
    models_refuse(c.arch, &c.cpu, &aarch64, &arm).map_or(Ok(()), |why| Err(bad(why)))
}

/// The raw Image (what a boot loader loads) from the ELF, into `image`; a copy is kept next
/// to the ELF (`ELF.bin`).
fn image_from_elf(elf: &Path, image: &Path, arch: Arch) -> Result<(), Fail> {
    let kept = PathBuf::from(format!("{}.bin", elf.display()));
    // The copy made from this very ELF (written after it): no objcopy again.
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    if let (Some(made), Some(built)) = (modified(&kept), modified(elf)) {
        if made > built && std::fs::copy(&kept, image).is_ok() {
            return Ok(());
        }
    }
    let sysroot = output_within("rustc", &["--print", "sysroot"], 30).unwrap_or_default();
    let llvm = std::fs::read_dir(Path::new(sysroot.trim()).join("lib/rustlib"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin/llvm-objcopy"))
        .find(|p| p.is_file());
    let objcopy = llvm
        .or_else(|| which("rust-objcopy"))
        .or_else(|| which(arch.gnu_objcopy()))
        .ok_or_else(|| tool_failed("no objcopy for the image (rustup component add llvm-tools)"))?;
    let ok = std::process::Command::new(&objcopy)
        .args(["-O", "binary"])
        .arg(elf)
        .arg(image)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        return Err(tool_failed(format!("objcopy failed on {}", elf.display())));
    }
    let part = PathBuf::from(format!("{}.bin.{}", elf.display(), std::process::id()));
    if std::fs::copy(image, &part).is_ok() {
        let _ = std::fs::rename(&part, &kept);
    }
    Ok(())
}

/// `mairbench.host=qemu-<version>` and `mairbench.accel=tcg|kvm`, which every boot path
/// carries: QEMU's board machines boot the real boards' device trees, in which nothing marks
/// QEMU. MAIRBENCH_HOST_BOOTARG=0: none, as a person booting by hand would give.
fn host_args(c: &Config, version: &str) -> Vec<String> {
    if c.env.get("MAIRBENCH_HOST_BOOTARG") == Some("0") {
        return vec![];
    }
    let number: String = version
        .lines()
        .find_map(|l| l.strip_prefix("QEMU emulator version "))
        .map(|v| {
            v.chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect()
        })
        .unwrap_or_default();
    let host = if number.is_empty() {
        "qemu".to_owned()
    } else {
        format!("qemu-{number}")
    };
    let accel = if c.kvm { "kvm" } else { "tcg" };
    vec![
        format!("mairbench.host={host}"),
        format!("mairbench.accel={accel}"),
    ]
}

/// The run's exit status: 124 when QEMU was killed, else the judge's (QEMU's exit status
/// alone without a serial line; the Linux smoke check's without a twin).
fn verdict(c: &Config, log: &Path, ended: Ended, path: &boot::Path, linux: Option<&Linux>) -> i32 {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    if ended.timed_out {
        if path.by_firmware
            && c.serial != Serial::None
            && !text.contains("started as a UEFI application")
        {
            eprintln!("mairbench: TIMEOUT: the firmware ({}) never started the image: no line of mairbench within {} s (QEMU was killed; see the log for where the firmware stopped)", c.boot_name, c.limit);
            return 124;
        }
        eprintln!(
            "mairbench: TIMEOUT: QEMU was killed after {} s without finishing",
            c.limit
        );
        // Where the console went silent (the judge explains; its status is not the run's).
        if c.serial != Serial::None {
            // As `timeout` reports it: 137 when QEMU had to be killed with SIGKILL.
            let status = if ended.status == 128 + libc::SIGKILL {
                137
            } else {
                124
            };
            judge::judge(log, Some(status));
        }
        return 124;
    }
    if c.serial == Serial::None {
        eprintln!("mairbench: no serial line (MAIRBENCH_SERIAL=none): judged by QEMU's exit status {} alone", ended.status);
        return i32::from(ended.status != 0);
    }
    if let Some(l) = linux {
        if let Some(status) = judge_linux(&text, ended.status, l) {
            return status;
        }
    }
    match judge::judge(log, Some(ended.status)) {
        2 => {
            eprintln!("mairbench: the judge could not read {}", log.display());
            3
        }
        status => status,
    }
}

/// The Linux boot without a twin passes when /init finished its smoke check and QEMU exited
/// with 0; with a twin, says why there is no end record when there is none (the judge then
/// fails the run).
fn judge_linux(text: &str, status: i32, l: &Linux) -> Option<i32> {
    let Some(twin) = &l.twin else {
        if text.contains("mairbench: /init: smoke check done") && status == 0 {
            return Some(0);
        }
        eprintln!("mairbench: the Linux smoke check did not finish (QEMU exit status {status}; see the log)");
        return Some(1);
    };
    if judge::last_end(text.as_bytes()) != End::Missing {
        return None;
    }
    if text.contains("mairbench: /init: no executable /mairbench-linux") {
        eprintln!(
            "mairbench: the initramfs had no executable /mairbench-linux ({})",
            twin.display()
        );
    } else if let Some(exit) = text.lines().rev().find_map(|l| {
        l.find("mairbench: /init: /mairbench-linux exited with status")
            .map(|at| &l[at + "mairbench: /init: ".len()..])
    }) {
        eprintln!(
            "mairbench: {} wrote no end record: {}",
            twin.display(),
            exit.trim_end()
        );
    } else if !text.contains("mairbench: /init: reached") {
        eprintln!("mairbench: Linux never reached /init (see the log for the kernel's last words)");
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(pairs: &[(&str, &str)]) -> Config {
        Config::read(Env::from_pairs(pairs.iter().copied()), "").unwrap()
    }

    #[test]
    fn the_command_line_names_qemu_and_its_accelerator() {
        let version = "QEMU emulator version 10.0.2 (Debian 1:10.0.2+ds-2)\nCopyright\n";
        assert_eq!(
            host_args(&config(&[]), version),
            ["mairbench.host=qemu-10.0.2", "mairbench.accel=tcg"]
        );
        assert_eq!(
            host_args(&config(&[]), "")[0],
            "mairbench.host=qemu",
            "a QEMU that does not say its version"
        );
        assert_eq!(
            host_args(&config(&[("MAIRBENCH_ACCEL", "kvm")]), version)[1],
            "mairbench.accel=kvm"
        );
        assert!(host_args(&config(&[("MAIRBENCH_HOST_BOOTARG", "0")]), version).is_empty());
    }

    #[test]
    fn a_linux_twin_without_an_end_record_is_explained() {
        let twin = Linux {
            twin: Some("/t/mairbench-linux".into()),
            dir: "/l".into(),
        };
        let exited = "mairbench: /init: reached\nmairbench: /init: /mairbench-linux exited with status 3\r\n";
        assert_eq!(
            judge_linux(exited, 0, &twin),
            None,
            "the judge then fails the run"
        );
        let smoke = Linux {
            twin: None,
            dir: "/l".into(),
        };
        let done = "mairbench: /init: smoke check done (no twin)\n";
        assert_eq!(judge_linux(done, 0, &smoke), Some(0));
        assert_eq!(judge_linux(done, 1, &smoke), Some(1));
        assert_eq!(judge_linux("", 0, &smoke), Some(1));
    }
}
