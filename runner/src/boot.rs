//! The boot paths but Linux's ([`crate::linux`]): what each adds to QEMU's command line and
//! the files it makes first (U-Boot's environment, a uImage, boot.scr, FAT disks, EDK2's
//! flash).

use crate::arch::Arch;
use crate::config::{Boot, Config, Serial};
use crate::disk::{self, arg, fat_disk, flash_env, mcopy, run};
use crate::sys::{bad, tool_failed, Fail, Sys};
use std::path::PathBuf;

/// Where a boot path finds and puts things.
#[derive(Debug, Clone)]
pub struct Ctx {
    /// The run's temporary directory.
    pub work: PathBuf,
    /// The raw Image made from the ELF.
    pub image: PathBuf,
    /// The command line, `mairbench.host=` and `mairbench.accel=` included.
    pub bootargs: String,
    /// Debian's U-Boot for QEMU.
    pub uboot_bin: PathBuf,
    /// Debian's EDK2 for QEMU virt.
    pub edk2_bin: PathBuf,
    /// The workspace (boot/boot.cmd).
    pub root: PathBuf,
    /// Cargo's target directory (EDK2's padded flash is kept there).
    pub target: PathBuf,
}

/// What a boot path says of itself.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Path {
    /// No device tree carries the command line: semihosting does.
    pub by_semihosting: bool,
    /// A firmware (U-Boot's bootefi, EDK2) starts the image, or fails to.
    pub by_firmware: bool,
}

/// Adds the boot path of `c` to `q`, making its files first.
pub fn boot(c: &Config, ctx: &Ctx, sys: &mut dyn Sys, q: &mut Vec<String>) -> Result<Path, Fail> {
    let load = c.load.clone();
    match c.boot {
        Boot::Kernel if c.el == 3 => {
            // The generic loader starts the CPU at its reset EL (EL3) with x0 = 0 and the
            // device tree at the base of RAM; the command line comes through semihosting.
            q.extend([
                "-device".into(),
                format!(
                    "loader,file={},addr=0x40200000,force-raw=on",
                    ctx.image.display()
                ),
                "-device".into(),
                "loader,addr=0x40200000,cpu-num=0".into(),
            ]);
            return Ok(Path {
                by_semihosting: true,
                ..Path::default()
            });
        }
        Boot::Kernel => q.extend([
            "-kernel".into(),
            arg(&ctx.image),
            "-append".into(),
            ctx.bootargs.clone(),
        ]),
        // booti (AArch64) or bootz (32-bit): the Linux protocol, the device tree U-Boot's own.
        Boot::Uboot => {
            let cmd = format!("{} {load} - ${{fdtcontroladdr}}", c.arch.uboot_linux());
            uboot_direct(c, ctx, sys, q, &ctx.image, &load, &cmd)?;
        }
        Boot::UbootBootm => return uboot_bootm(c, ctx, sys, q),
        Boot::UbootScript => uboot_script(c, ctx, sys, q)?,
        Boot::Uefi | Boot::UefiDt => {
            uefi(c, ctx, sys, q)?;
            return Ok(Path {
                by_firmware: true,
                ..Path::default()
            });
        }
        Boot::UbootEfi => {
            uboot_efi(c, ctx, sys, q)?;
            return Ok(Path {
                by_firmware: true,
                ..Path::default()
            });
        }
        Boot::Linux => unreachable!("the Linux boot is crate::linux's"),
    }
    Ok(Path::default())
}

/// The image as a uImage preloaded at 0x44000000 for U-Boot's `bootm`. AArch64's is a
/// standalone program: U-Boot calls it with its MMU and caches still on and no device tree in
/// x0 (the firmware finds QEMU's at the base of RAM). The 32-bit image is a Linux kernel
/// uImage (`mkimage -A arm -O linux -T kernel`): `bootm` copies it to `MAIRBENCH_LOAD` and
/// enters it there by the Linux protocol, as `bootz` does (MMU and caches off, SVC mode or
/// HYP, r2 = U-Boot's device tree with the bootargs in its /chosen).
fn uboot_bootm(
    c: &Config,
    ctx: &Ctx,
    sys: &mut dyn Sys,
    q: &mut Vec<String>,
) -> Result<Path, Fail> {
    if sys.which("mkimage").is_none() {
        return Err(tool_failed("mkimage missing (package u-boot-tools)"));
    }
    let (arch, os, kind, cmd) = match c.arch {
        Arch::Aarch64 => ("arm64", "u-boot", "standalone", "bootm 0x44000000"),
        Arch::Armv7 => (
            "arm",
            "linux",
            "kernel",
            "bootm 0x44000000 - ${fdtcontroladdr}",
        ),
    };
    let uimage = ctx.work.join("uImage");
    let args = [
        "-A",
        arch,
        "-O",
        os,
        "-T",
        kind,
        "-C",
        "none",
        "-a",
        &c.load,
        "-e",
        &c.load,
        "-n",
        "mairbench",
        "-d",
        &arg(&ctx.image),
        &arg(&uimage),
    ]
    .map(String::from);
    run(sys, "mkimage", &args, "mkimage failed")?;
    uboot_direct(c, ctx, sys, q, &uimage, "0x44000000", cmd)?;
    // A standalone program gets no device tree: semihosting carries its command line.
    Ok(Path {
        by_semihosting: c.arch == Arch::Aarch64,
        ..Path::default()
    })
}

/// U-Boot boots at once, no prompt: the whole environment is ours; `image` preloaded at
/// `addr`, `cmd` boots it. With MAIRBENCH_SERIAL=pty a stand-in board instead: U-Boot's whole
/// default environment, a delay to stop autoboot in, and the image on a disk as well.
fn uboot_direct(
    c: &Config,
    ctx: &Ctx,
    sys: &mut dyn Sys,
    q: &mut Vec<String>,
    image: &std::path::Path,
    addr: &str,
    cmd: &str,
) -> Result<(), Fail> {
    let bootcmd = format!("setenv bootargs '{}'; {cmd}", ctx.bootargs);
    let env = if c.serial == Serial::Pty {
        let found = sys
            .read(&ctx.uboot_bin)
            .ok()
            .and_then(|b| disk::default_env(&b));
        let mut env = found.ok_or_else(|| {
            tool_failed(format!(
                "U-Boot's default environment was not found in {} (MAIRBENCH_SERIAL=pty needs it)",
                ctx.uboot_bin.display()
            ))
        })?;
        env.retain(|l| !l.starts_with("bootcmd=") && !l.starts_with("autostart="));
        disk::set(&mut env, "bootdelay", &c.bootdelay.to_string());
        env.extend(["autostart=yes".to_owned(), format!("bootcmd={bootcmd}")]);
        serial_disk(ctx, sys, q)?;
        env.iter().map(|l| format!("{l}\n")).collect()
    } else {
        format!("bootdelay=0\nautostart=yes\nbootcmd={bootcmd}\n")
    };
    q.extend(flash_env(sys, &ctx.work, &env)?);
    q.extend([
        "-bios".into(),
        arg(&ctx.uboot_bin),
        "-device".into(),
        format!("loader,file={},addr={addr},force-raw=on", image.display()),
    ]);
    Ok(())
}

/// The stand-in board's disk: mairbench.bin on the FAT partition of an MBR virtio disk, as on
/// a board's SD card.
fn serial_disk(ctx: &Ctx, sys: &mut dyn Sys, q: &mut Vec<String>) -> Result<(), Fail> {
    let disk = ctx.work.join("disk.img");
    fat_disk(sys, &disk, "e")?;
    let failed = "mcopy could not put mairbench.bin on the disk";
    run(
        sys,
        "mcopy",
        &mcopy(&disk, &ctx.image, "mairbench.bin"),
        failed,
    )?;
    q.extend(virtio_disk(&disk, "boot"));
    Ok(())
}

fn virtio_disk(disk: &std::path::Path, id: &str) -> [String; 4] {
    [
        "-drive".into(),
        format!("if=none,file={},format=raw,id={id}", disk.display()),
        "-device".into(),
        format!("virtio-blk-device,drive={id}"),
    ]
}

/// The real-board flow: boot.scr, mairbench.bin and mairbench.txt on the FAT partition of an
/// MBR disk; nothing preloaded, U-Boot's distro boot finds and sources boot.scr.
fn uboot_script(c: &Config, ctx: &Ctx, sys: &mut dyn Sys, q: &mut Vec<String>) -> Result<(), Fail> {
    let (scr, txt, disk) = (
        ctx.work.join("boot.scr"),
        ctx.work.join("mairbench.txt"),
        ctx.work.join("disk.img"),
    );
    let cmd = ctx.root.join("boot/boot.cmd");
    let args = [
        "-A",
        "arm64",
        "-O",
        "linux",
        "-T",
        "script",
        "-C",
        "none",
        "-n",
        "mairbench",
        "-d",
        &arg(&cmd),
        &arg(&scr),
    ]
    .map(String::from);
    run(sys, "mkimage", &args, "mkimage failed on boot/boot.cmd")?;
    sys.write(&txt, format!("bootargs={}\n", ctx.bootargs).as_bytes())
        .map_err(|e| tool_failed(format!("cannot write {}: {e}", txt.display())))?;
    fat_disk(sys, &disk, "e")?;
    let failed = "mcopy could not fill the FAT file system";
    run(sys, "mcopy", &mcopy(&disk, &scr, "boot.scr"), failed)?;
    run(
        sys,
        "mcopy",
        &mcopy(&disk, &ctx.image, "mairbench.bin"),
        failed,
    )?;
    run(sys, "mcopy", &mcopy(&disk, &txt, "mairbench.txt"), failed)?;
    let load = c.env.get("MAIRBENCH_LOAD");
    let env = sys
        .read(&ctx.uboot_bin)
        .ok()
        .and_then(|b| disk::default_env(&b));
    match env.and_then(|e| disk::script_env(e, c.bootdelay, load)) {
        Some(env) => q.extend(flash_env(sys, &ctx.work, &env)?),
        None if load.is_some() => {
            return Err(bad(format!("MAIRBENCH_LOAD cannot be applied: U-Boot's default environment was not found in {}", ctx.uboot_bin.display())))
        }
        None => eprintln!(
            "mairbench: U-Boot's default environment not found in {}: booting after its autoboot delay",
            ctx.uboot_bin.display()
        ),
    }
    q.extend(["-bios".into(), arg(&ctx.uboot_bin)]);
    q.extend(virtio_disk(&disk, "boot"));
    Ok(())
}

/// The UEFI disk: an EFI system partition with the image as \EFI\mairbench\mairbench.efi
/// (MAIRBENCH_UEFI_IMAGE=0: left out, to see the firmware never start it) and, for EDK2's
/// shell (`shell`), a startup.nsh that starts it with the bootargs as load options.
fn uefi_disk(
    c: &Config,
    ctx: &Ctx,
    sys: &mut dyn Sys,
    q: &mut Vec<String>,
    shell: bool,
) -> Result<(), Fail> {
    let esp = ctx.work.join("esp.img");
    fat_disk(sys, &esp, "ef")?;
    let dirs = [
        "-i",
        &format!("{}@@1M", esp.display()),
        "::EFI",
        "::EFI/mairbench",
    ]
    .map(String::from);
    run(sys, "mmd", &dirs, "mmd could not make \\EFI\\mairbench")?;
    if c.env.get("MAIRBENCH_UEFI_IMAGE") != Some("0") {
        let failed = "mcopy could not put the image on the EFI system partition";
        run(
            sys,
            "mcopy",
            &mcopy(&esp, &ctx.image, "EFI/mairbench/mairbench.efi"),
            failed,
        )?;
    }
    if shell {
        let nsh = ctx.work.join("startup.nsh");
        let text = format!("fs0:\\EFI\\mairbench\\mairbench.efi {}\r\n", ctx.bootargs);
        sys.write(&nsh, text.as_bytes())
            .map_err(|e| tool_failed(format!("cannot write {}: {e}", nsh.display())))?;
        let failed = "mcopy could not put startup.nsh on the EFI system partition";
        run(sys, "mcopy", &mcopy(&esp, &nsh, "startup.nsh"), failed)?;
    }
    q.extend(virtio_disk(&esp, "esp"));
    Ok(())
}

/// EDK2 for QEMU virt in two 64 MiB flash banks: the code, padded once into target/edk2
/// (read-only, shared by runs), and the variables, a fresh empty bank per run. With no boot
/// option stored, EDK2 runs its UEFI shell, which runs startup.nsh after a 5 s countdown.
/// `uefi`: QEMU's ACPI tables; `uefi-dt`: `acpi=off`, the device tree as EFI_DTB_TABLE.
fn uefi(c: &Config, ctx: &Ctx, sys: &mut dyn Sys, q: &mut Vec<String>) -> Result<(), Fail> {
    if c.boot == Boot::UefiDt {
        if let Some(at) = q.iter().position(|a| a == "-machine") {
            q[at + 1].push_str(",acpi=off");
        }
    }
    let code = ctx.target.join("edk2/QEMU_EFI-pflash.raw");
    if !sys.padded_copy(&ctx.edk2_bin, &code, 64 << 20) {
        return Err(tool_failed(format!(
            "could not pad {} into {}",
            ctx.edk2_bin.display(),
            code.display()
        )));
    }
    let vars = ctx.work.join("vars.fd");
    sys.set_len(&vars, 64 << 20)
        .map_err(|_| tool_failed("could not make the EDK2 variable store"))?;
    q.extend([
        "-drive".into(),
        format!(
            "if=pflash,unit=0,format=raw,readonly=on,file={}",
            code.display()
        ),
        "-drive".into(),
        format!("if=pflash,unit=1,format=raw,file={}", vars.display()),
    ]);
    uefi_disk(c, ctx, sys, q, true)
}

/// U-Boot's bootefi, as a board running U-Boot starts UEFI applications: the image read from
/// the EFI system partition, its bootargs as load options, U-Boot's own device tree as
/// EFI_DTB_TABLE.
fn uboot_efi(c: &Config, ctx: &Ctx, sys: &mut dyn Sys, q: &mut Vec<String>) -> Result<(), Fail> {
    uefi_disk(c, ctx, sys, q, false)?;
    let load = &c.load;
    let env = format!(
        "bootdelay=0\nbootcmd=setenv bootargs '{}'; virtio scan; if load virtio 0:1 {load} /EFI/mairbench/mairbench.efi; then bootefi {load} ${{fdtcontroladdr}}; fi; echo 'mairbench: bootefi did not start mairbench; powering off'; poweroff\n",
        ctx.bootargs
    );
    q.extend(flash_env(sys, &ctx.work, &env)?);
    q.extend(["-bios".into(), arg(&ctx.uboot_bin)]);
    Ok(())
}

#[cfg(test)]
#[path = "boot_tests.rs"]
mod tests;
