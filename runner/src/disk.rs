//! What the firmware paths read: U-Boot's environment in its second flash bank (made with
//! `mkenvimage`), U-Boot's own default environment (found in `u-boot.bin`), and MBR disks
//! with one FAT partition (`sfdisk` and mtools: no root, no loop device).

use crate::sys::{tool_failed, Fail, Sys};
use std::path::Path;

/// A path as an argument.
pub fn arg(path: &Path) -> String {
    path.display().to_string()
}

/// Runs `program args…`; `Err` with `failed` (status 3) when it fails or is missing.
pub fn run(sys: &mut dyn Sys, program: &str, args: &[String], failed: &str) -> Result<(), Fail> {
    if sys.tool(program, args, None) {
        Ok(())
    } else {
        Err(tool_failed(failed))
    }
}

/// U-Boot's environment `text` (one `name=value` a line) as the second flash bank: an
/// `mkenvimage` image in a 64 MiB file, `dir/env.bin`. Returns QEMU's option.
pub fn flash_env(sys: &mut dyn Sys, dir: &Path, text: &str) -> Result<Vec<String>, Fail> {
    let (txt, bin) = (dir.join("env.txt"), dir.join("env.bin"));
    sys.write(&txt, text.as_bytes())
        .map_err(|e| tool_failed(format!("cannot write {}: {e}", txt.display())))?;
    let args = ["-s", "0x40000", "-o", &arg(&bin), &arg(&txt)].map(String::from);
    run(sys, "mkenvimage", &args, "mkenvimage failed")?;
    sys.set_len(&bin, 64 << 20).map_err(|e| {
        tool_failed(format!(
            "mkenvimage failed: cannot pad {}: {e}",
            bin.display()
        ))
    })?;
    Ok(vec![
        "-drive".into(),
        format!("if=pflash,unit=1,format=raw,file={}", bin.display()),
    ])
}

/// An MBR disk image `path` with one 16 MiB FAT16 partition of type `kind` (a sparse file);
/// files go in with `mcopy -i PATH@@1M`.
pub fn fat_disk(sys: &mut dyn Sys, path: &Path, kind: &str) -> Result<(), Fail> {
    let sfdisk = sys
        .which("sfdisk")
        .ok_or_else(|| tool_failed("sfdisk missing (package fdisk)"))?;
    if ["mformat", "mcopy", "mmd"]
        .iter()
        .any(|t| sys.which(t).is_none())
    {
        return Err(tool_failed("mformat/mcopy/mmd missing (package mtools)"));
    }
    let failed = || tool_failed(format!("sfdisk could not partition {}", path.display()));
    sys.set_len(path, 17 << 20).map_err(|_| failed())?;
    let table = format!("start=2048, size=32768, type={kind}, bootable\n");
    if !sys.tool(
        &arg(&sfdisk),
        &["-q".into(), arg(path)],
        Some(table.as_bytes()),
    ) {
        return Err(failed());
    }
    let args = [
        "-i",
        &format!("{}@@1M", path.display()),
        "-T",
        "32768",
        "-h",
        "64",
        "-s",
        "32",
        "-H",
        "2048",
        "-v",
        "MAIRBENCH",
        "::",
    ]
    .map(String::from);
    run(
        sys,
        "mformat",
        &args,
        "mformat could not make the FAT file system",
    )
}

/// `mcopy -i DISK@@1M FROM ::TO`.
pub fn mcopy(disk: &Path, from: &Path, to: &str) -> Vec<String> {
    vec![
        "-i".into(),
        format!("{}@@1M", disk.display()),
        arg(from),
        format!("::{to}"),
    ]
}

/// U-Boot's own default environment, one `name=value` a line: the NUL-separated block of
/// `u-boot.bin` that holds `distro_bootcmd`, `bootcmd` and `bootdelay` (and must hold
/// `kernel_addr_r`); `None` without it.
pub fn default_env(uboot: &[u8]) -> Option<Vec<String>> {
    let text: String = String::from_utf8_lossy(uboot).replace('\0', "\n");
    let is_var = |l: &&str| {
        let Some((name, _)) = l.split_once('=') else {
            return false;
        };
        let mut c = name.chars();
        c.next()
            .is_some_and(|f| f.is_ascii_alphabetic() || f == '_')
            && c.all(|x| x.is_ascii_alphanumeric() || x == '_' || x == '.')
    };
    let has = |lines: &[&str], name: &str| lines.iter().any(|l| l.starts_with(&format!("{name}=")));
    let block = text.split("\n\n").find_map(|block| {
        let lines: Vec<&str> = block.lines().collect();
        ["distro_bootcmd", "bootcmd", "bootdelay"]
            .iter()
            .all(|n| has(&lines, n))
            .then_some(lines)
    })?;
    let vars: Vec<&str> = block.into_iter().filter(is_var).collect();
    (has(&vars, "bootdelay") && has(&vars, "kernel_addr_r"))
        .then(|| vars.into_iter().map(str::to_owned).collect())
}

/// `env` with `name` set to `value` (replacing its line, else appended).
pub fn set(env: &mut Vec<String>, name: &str, value: &str) {
    let line = format!("{name}={value}");
    match env.iter_mut().find(|l| l.starts_with(&format!("{name}="))) {
        Some(l) => *l = line,
        None => env.push(line),
    }
}

/// U-Boot's default environment for the distro boot: `bootdelay` the delay, `bootcmd` then
/// saying so and powering off when distro boot comes back (no boot.scr, or it failed),
/// `kernel_addr_r` the load address when `load` is given.
pub fn script_env(mut env: Vec<String>, delay: u64, load: Option<&str>) -> Option<String> {
    set(&mut env, "bootdelay", &delay.to_string());
    let bootcmd = env
        .iter()
        .find_map(|l| l.strip_prefix("bootcmd="))?
        .to_owned();
    if !bootcmd.starts_with("run distro_bootcmd") {
        return None;
    }
    let off = "echo \"mairbench: distro boot did not start mairbench; powering off\"; poweroff";
    set(&mut env, "bootcmd", &format!("{bootcmd}; {off}"));
    if let Some(load) = load {
        set(&mut env, "kernel_addr_r", load);
    }
    Some(env.iter().map(|l| format!("{l}\n")).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sys::fake::Fake;

    const UBOOT: &[u8] = b"\x7fjunk\0\0arch=arm\0bootcmd=run distro_bootcmd\0bootdelay=2\0\
        distro_bootcmd=for target in ${boot_targets}; do run bootcmd_${target}; done\0\
        kernel_addr_r=0x40400000\0fdt_addr=0x40000000\0\0more junk\0";

    #[test]
    fn the_default_environment_is_found_and_changed() {
        let env = default_env(UBOOT).unwrap();
        assert_eq!(env[0], "arch=arm");
        assert_eq!(env.len(), 6);
        let text = script_env(env.clone(), 0, Some("0x40600000")).unwrap();
        assert!(text.contains("\nbootdelay=0\n"), "{text}");
        assert!(text.contains("\nkernel_addr_r=0x40600000\n"), "{text}");
        assert!(text.contains("bootcmd=run distro_bootcmd; echo \"mairbench: distro boot did not start mairbench; powering off\"; poweroff\n"));
        assert!(default_env(b"bootcmd=x\0bootdelay=2\0").is_none());
    }

    #[test]
    fn a_fat_disk_and_a_flash_environment() {
        let mut sys = Fake::default();
        fat_disk(&mut sys, Path::new("/w/disk.img"), "ef").unwrap();
        let q = flash_env(&mut sys, Path::new("/w"), "bootdelay=0\n").unwrap();
        assert_eq!(q, ["-drive", "if=pflash,unit=1,format=raw,file=/w/env.bin"]);
        assert_eq!(
            sys.calls,
            [
                "sfdisk -q /w/disk.img",
                "mformat -i /w/disk.img@@1M -T 32768 -h 64 -s 32 -H 2048 -v MAIRBENCH ::",
                "mkenvimage -s 0x40000 -o /w/env.bin /w/env.txt",
            ]
        );
        assert_eq!(sys.lens[Path::new("/w/env.bin")], 64 << 20);
        let mut sys = Fake {
            missing: vec!["mmd"],
            ..Fake::default()
        };
        let e = fat_disk(&mut sys, Path::new("/w/d"), "e").unwrap_err();
        assert_eq!(
            (e.status, e.message.as_str()),
            (3, "mformat/mcopy/mmd missing (package mtools)")
        );
    }
}
