//! `boot/rpi4-sdcard` writes a Raspberry Pi 4 boot partition: the firmware files (faked here by
//! files of known content), config.txt, U-Boot, boot.scr made from boot/boot.cmd, the image
//! and mairbench.txt; and it refuses to write a partial card when a firmware file is missing.

use crate::common;

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A fresh directory under the target directory (removed first if a previous run left it).
fn scratch(name: &str) -> PathBuf {
    let dir = common::root().join("target/rpi4-test").join(name);
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Fake firmware, DTB, U-Boot and image: each file holds its own name.
fn fakes(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let fw = dir.join("firmware");
    fs::create_dir_all(&fw).unwrap();
    for f in ["start4.elf", "fixup4.dat", "bcm2711-rpi-4-b.dtb"] {
        fs::write(fw.join(f), format!("fake {f}")).unwrap();
    }
    let uboot = dir.join("u-boot-rpi4.bin");
    fs::write(&uboot, "fake u-boot").unwrap();
    let image = dir.join("image.bin");
    fs::write(&image, "fake mairbench image").unwrap();
    (fw, uboot, image)
}

fn sdcard(args: &[&Path], extra: &[&str]) -> std::process::Output {
    Command::new(common::root().join("boot/rpi4-sdcard"))
        .args(args)
        .args(extra)
        .output()
        .expect("boot/rpi4-sdcard runs")
}

#[test]
fn writes_a_complete_boot_partition() {
    let dir = scratch("complete");
    let (fw, uboot, image) = fakes(&dir);
    let card = dir.join("card");
    let out = Command::new(common::root().join("boot/rpi4-sdcard"))
        .arg("--firmware")
        .arg(&fw)
        .arg("--uboot")
        .arg(&uboot)
        .arg("--image")
        .arg(&image)
        .args(["--bootargs", "mairbench.kernels=read-ldp mairbench.reps=5"])
        .arg(&card)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    let mut files: Vec<String> = fs::read_dir(&card)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "bcm2711-rpi-4-b.dtb",
            "boot.scr",
            "config.txt",
            "fixup4.dat",
            "mairbench.bin",
            "mairbench.txt",
            "start4.elf",
            "u-boot.bin"
        ]
    );
    let read = |f: &str| fs::read_to_string(card.join(f)).unwrap();
    for f in ["start4.elf", "fixup4.dat", "bcm2711-rpi-4-b.dtb"] {
        assert_eq!(read(f), format!("fake {f}"), "{f} copied");
    }
    assert_eq!(read("u-boot.bin"), "fake u-boot");
    assert_eq!(read("mairbench.bin"), "fake mairbench image");
    assert_eq!(
        read("mairbench.txt"),
        "bootargs=mairbench.kernels=read-ldp mairbench.reps=5\n"
    );

    // config.txt: exactly these settings, comments aside.
    let config = read("config.txt");
    let settings: Vec<&str> = config
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert_eq!(
        settings,
        ["arm_64bit=1", "enable_uart=1", "kernel=u-boot.bin"]
    );

    // boot.scr: a legacy U-Boot image (magic 0x27051956) of type script holding boot/boot.cmd.
    let scr = fs::read(card.join("boot.scr")).unwrap();
    assert_eq!(&scr[..4], &[0x27, 0x05, 0x19, 0x56], "uImage magic");
    assert_eq!(scr[30], 6, "image type: script");
    let cmd = fs::read(common::root().join("boot/boot.cmd")).unwrap();
    assert!(
        scr.windows(cmd.len()).any(|w| w == cmd.as_slice()),
        "boot.scr carries boot/boot.cmd unchanged"
    );
}

#[test]
fn a_missing_firmware_file_writes_nothing() {
    let dir = scratch("missing");
    let (fw, uboot, image) = fakes(&dir);
    fs::remove_file(fw.join("fixup4.dat")).unwrap();
    let card = dir.join("card");
    let out = sdcard(
        &[
            Path::new("--firmware"),
            &fw,
            Path::new("--uboot"),
            &uboot,
            Path::new("--image"),
            &image,
            &card,
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(3));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("missing:") && err.contains("fixup4.dat"),
        "{err}"
    );
    assert!(!card.exists(), "no partial card");
}

#[test]
fn usage_errors() {
    let dir = scratch("usage");
    let out = sdcard(&[&dir.join("card")], &[]);
    assert_eq!(out.status.code(), Some(2), "no firmware given");
    assert!(String::from_utf8_lossy(&out.stderr).contains("--firmware"));
    let out = sdcard(&[], &["--bogus"]);
    assert_eq!(out.status.code(), Some(2));
}
