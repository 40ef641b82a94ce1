//! The command lines and files of each boot path, with a fake system.

use super::*;
use crate::qemu::machine;
use crate::settings::Env;
use crate::sys::fake::Fake;

fn ctx() -> Ctx {
    Ctx {
        work: "/w".into(),
        image: "/w/Image".into(),
        bootargs: "mairbench.quick mairbench.host=qemu-10.0.2 mairbench.accel=tcg".into(),
        uboot_bin: "/u/u-boot.bin".into(),
        edk2_bin: "/e/QEMU_EFI.fd".into(),
        root: "/r".into(),
        target: "/t".into(),
    }
}

/// The boot path's part of the command line for these settings, its path and the fake.
fn boot_line(pairs: &[(&str, &str)], sys: &mut Fake) -> Result<(String, Path), Fail> {
    let c = Config::read(Env::from_pairs(pairs.iter().copied()), "mairbench.quick").unwrap();
    let mut q = machine(&c, None);
    let before = q.len();
    let path = boot(&c, &ctx(), sys, &mut q)?;
    Ok((q[before..].join(" "), path))
}

const ARGS: &str = "mairbench.quick mairbench.host=qemu-10.0.2 mairbench.accel=tcg";

#[test]
fn kernel_and_el3_loader() {
    let mut sys = Fake::default();
    let (line, path) = boot_line(&[], &mut sys).unwrap();
    assert_eq!(line, format!("-kernel /w/Image -append {ARGS}"));
    assert_eq!(path, Path::default());
    let (line, path) = boot_line(&[("MAIRBENCH_EL", "3")], &mut sys).unwrap();
    assert_eq!(
        line,
        "-device loader,file=/w/Image,addr=0x40200000,force-raw=on -device loader,addr=0x40200000,cpu-num=0"
    );
    assert!(path.by_semihosting);
    assert!(sys.calls.is_empty());
}

#[test]
fn the_32_bit_image_by_the_linux_protocol() {
    // QEMU's -kernel loads the raw image at 0x40010000 and enters it as a Linux zImage: SVC
    // mode (HYP with MAIRBENCH_EL=2), r2 = the device tree, the bootargs in its /chosen.
    let mut sys = Fake::default();
    for el in ["1", "2"] {
        let pairs = [("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_EL", el)];
        let (line, path) = boot_line(&pairs, &mut sys).unwrap();
        assert_eq!(line, format!("-kernel /w/Image -append {ARGS}"));
        assert_eq!(path, Path::default());
    }
    assert!(sys.calls.is_empty());
}

#[test]
fn uboot_bootz_of_the_32_bit_image() {
    // The same path as booti's: the image preloaded at MAIRBENCH_LOAD, the environment in
    // the second flash bank; ctx() names the AArch64 U-Boot, run.rs the arch's.
    let mut sys = Fake::default();
    let pairs = [("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_BOOT", "uboot")];
    let (line, _) = boot_line(&pairs, &mut sys).unwrap();
    assert_eq!(
        line,
        "-drive if=pflash,unit=1,format=raw,file=/w/env.bin -bios /u/u-boot.bin \
         -device loader,file=/w/Image,addr=0x40400000,force-raw=on"
    );
    assert_eq!(
        sys.text("/w/env.txt"),
        format!("bootdelay=0\nautostart=yes\nbootcmd=setenv bootargs '{ARGS}'; bootz 0x40400000 - ${{fdtcontroladdr}}\n")
    );
    assert_eq!(
        crate::arch::Arch::Armv7.uboot(),
        "/usr/lib/u-boot/qemu_arm/u-boot.bin"
    );
}

#[test]
fn uboot_booti_without_a_prompt() {
    let mut sys = Fake::default();
    let (line, _) = boot_line(
        &[
            ("MAIRBENCH_BOOT", "uboot"),
            ("MAIRBENCH_LOAD", "0x40600000"),
        ],
        &mut sys,
    )
    .unwrap();
    assert_eq!(
        line,
        "-drive if=pflash,unit=1,format=raw,file=/w/env.bin -bios /u/u-boot.bin \
         -device loader,file=/w/Image,addr=0x40600000,force-raw=on"
    );
    assert_eq!(
        sys.text("/w/env.txt"),
        format!("bootdelay=0\nautostart=yes\nbootcmd=setenv bootargs '{ARGS}'; booti 0x40600000 - ${{fdtcontroladdr}}\n")
    );
}

#[test]
fn uboot_bootm_of_a_standalone_uimage() {
    let mut sys = Fake::default();
    let (line, path) = boot_line(&[("MAIRBENCH_BOOT", "uboot-bootm")], &mut sys).unwrap();
    assert!(
        line.ends_with("-device loader,file=/w/uImage,addr=0x44000000,force-raw=on"),
        "{line}"
    );
    assert!(path.by_semihosting);
    assert_eq!(
        sys.calls[0],
        "mkimage -A arm64 -O u-boot -T standalone -C none -a 0x40400000 -e 0x40400000 -n mairbench -d /w/Image /w/uImage"
    );
    assert!(sys.text("/w/env.txt").ends_with("; bootm 0x44000000\n"));
    let mut sys = Fake {
        failing: vec!["mkimage"],
        ..Fake::default()
    };
    let e = boot_line(&[("MAIRBENCH_BOOT", "uboot-bootm")], &mut sys).unwrap_err();
    assert_eq!((e.status, e.message.as_str()), (3, "mkimage failed"));
}

#[test]
fn uboot_bootm_of_the_32_bit_image_as_a_linux_uimage() {
    // A Linux kernel uImage: bootm copies it to MAIRBENCH_LOAD and enters it as bootz does,
    // with U-Boot's device tree (the bootargs in its /chosen, not through semihosting).
    let mut sys = Fake::default();
    let pairs = [
        ("MAIRBENCH_ARCH", "armv7"),
        ("MAIRBENCH_BOOT", "uboot-bootm"),
    ];
    let (line, path) = boot_line(&pairs, &mut sys).unwrap();
    assert_eq!(
        line,
        "-drive if=pflash,unit=1,format=raw,file=/w/env.bin -bios /u/u-boot.bin \
         -device loader,file=/w/uImage,addr=0x44000000,force-raw=on"
    );
    assert_eq!(path, Path::default());
    assert_eq!(
        sys.calls[0],
        "mkimage -A arm -O linux -T kernel -C none -a 0x40400000 -e 0x40400000 -n mairbench -d /w/Image /w/uImage"
    );
    assert_eq!(
        sys.text("/w/env.txt"),
        format!("bootdelay=0\nautostart=yes\nbootcmd=setenv bootargs '{ARGS}'; bootm 0x44000000 - ${{fdtcontroladdr}}\n")
    );
}

const UBOOT: &[u8] = b"\0\0bootcmd=run distro_bootcmd\0bootdelay=2\0distro_bootcmd=run x\0kernel_addr_r=0x40400000\0\0";

#[test]
fn uboot_script_from_a_fat_disk() {
    let mut sys = Fake::default();
    sys.files.insert("/u/u-boot.bin".into(), UBOOT.to_vec());
    let (line, _) = boot_line(&[("MAIRBENCH_BOOT", "uboot-script")], &mut sys).unwrap();
    assert_eq!(
        line,
        "-drive if=pflash,unit=1,format=raw,file=/w/env.bin -bios /u/u-boot.bin \
         -drive if=none,file=/w/disk.img,format=raw,id=boot -device virtio-blk-device,drive=boot"
    );
    assert_eq!(sys.text("/w/mairbench.txt"), format!("bootargs={ARGS}\n"));
    assert_eq!(
        sys.calls[0],
        "mkimage -A arm64 -O linux -T script -C none -n mairbench -d /r/boot/boot.cmd /w/boot.scr"
    );
    assert!(sys
        .calls
        .contains(&"mcopy -i /w/disk.img@@1M /w/Image ::mairbench.bin".to_owned()));
    assert!(sys.text("/w/env.txt").contains("\nbootdelay=0\n"));
    // Without U-Boot's default environment: its own delay, unless MAIRBENCH_LOAD must apply.
    let mut sys = Fake::default();
    let (line, _) = boot_line(&[("MAIRBENCH_BOOT", "uboot-script")], &mut sys).unwrap();
    assert!(line.starts_with("-bios /u/u-boot.bin -drive"), "{line}");
    let e = boot_line(
        &[
            ("MAIRBENCH_BOOT", "uboot-script"),
            ("MAIRBENCH_LOAD", "0x40600000"),
        ],
        &mut sys,
    )
    .unwrap_err();
    assert_eq!(e.status, 2, "{e:?}");
}

#[test]
fn uboot_on_a_stand_in_board() {
    let mut sys = Fake::default();
    sys.files.insert("/u/u-boot.bin".into(), UBOOT.to_vec());
    let pairs = [
        ("MAIRBENCH_BOOT", "uboot"),
        ("MAIRBENCH_SERIAL", "pty"),
        ("MAIRBENCH_BOOTDELAY", "7"),
    ];
    let (line, _) = boot_line(&pairs, &mut sys).unwrap();
    assert!(line.starts_with("-drive if=none,file=/w/disk.img,format=raw,id=boot -device virtio-blk-device,drive=boot -drive if=pflash"), "{line}");
    let env = sys.text("/w/env.txt");
    assert!(
        env.contains("bootdelay=7\n") && env.contains("kernel_addr_r=0x40400000\n"),
        "{env}"
    );
    assert!(env.ends_with(&format!("autostart=yes\nbootcmd=setenv bootargs '{ARGS}'; booti 0x40400000 - ${{fdtcontroladdr}}\n")), "{env}");
    let e = boot_line(&pairs, &mut Fake::default()).unwrap_err();
    assert!(e.message.contains("MAIRBENCH_SERIAL=pty needs it"), "{e:?}");
}

#[test]
fn uefi_with_acpi_or_the_device_tree() {
    let mut sys = Fake::default();
    let c = Config::read(Env::from_pairs([("MAIRBENCH_BOOT", "uefi-dt")]), "").unwrap();
    let mut q = machine(&c, None);
    let path = boot(&c, &ctx(), &mut sys, &mut q).unwrap();
    assert!(path.by_firmware);
    let line = q.join(" ");
    assert!(line.contains("-machine virt,acpi=off -cpu"), "{line}");
    assert!(
        line.ends_with(
            "-drive if=pflash,unit=0,format=raw,readonly=on,file=/t/edk2/QEMU_EFI-pflash.raw \
         -drive if=pflash,unit=1,format=raw,file=/w/vars.fd \
         -drive if=none,file=/w/esp.img,format=raw,id=esp -device virtio-blk-device,drive=esp"
        ),
        "{line}"
    );
    assert_eq!(
        sys.text("/w/startup.nsh"),
        format!("fs0:\\EFI\\mairbench\\mairbench.efi {ARGS}\r\n")
    );
    assert!(sys
        .calls
        .contains(&"mcopy -i /w/esp.img@@1M /w/Image ::EFI/mairbench/mairbench.efi".to_owned()));
    let mut sys = Fake::default();
    let (line, _) = boot_line(
        &[("MAIRBENCH_BOOT", "uefi"), ("MAIRBENCH_UEFI_IMAGE", "0")],
        &mut sys,
    )
    .unwrap();
    assert!(!line.contains("acpi=off"));
    assert!(
        !sys.calls.iter().any(|c| c.contains("mairbench.efi")),
        "{:?}",
        sys.calls
    );
}

#[test]
fn uboot_efi_loads_the_image_from_the_esp() {
    let mut sys = Fake::default();
    let (line, path) = boot_line(&[("MAIRBENCH_BOOT", "uboot-efi")], &mut sys).unwrap();
    assert!(path.by_firmware);
    assert!(
        line.ends_with("-drive if=pflash,unit=1,format=raw,file=/w/env.bin -bios /u/u-boot.bin"),
        "{line}"
    );
    assert!(sys.text("/w/env.txt").contains("if load virtio 0:1 0x40400000 /EFI/mairbench/mairbench.efi; then bootefi 0x40400000 ${fdtcontroladdr}; fi"));
    assert!(!sys
        .files
        .contains_key(std::path::Path::new("/w/startup.nsh")));
}

#[test]
fn a_failing_tool_is_named() {
    for (boot, tool, says) in [
        ("uboot", "mkenvimage", "mkenvimage failed"),
        (
            "uboot-script",
            "sfdisk",
            "sfdisk could not partition /w/disk.img",
        ),
        (
            "uboot-script",
            "mformat",
            "mformat could not make the FAT file system",
        ),
        (
            "uboot-script",
            "mcopy",
            "mcopy could not fill the FAT file system",
        ),
        ("uefi", "mmd", "mmd could not make \\EFI\\mairbench"),
    ] {
        let mut sys = Fake {
            failing: vec![tool],
            ..Fake::default()
        };
        let e = boot_line(&[("MAIRBENCH_BOOT", boot)], &mut sys).unwrap_err();
        assert_eq!((e.status, e.message.as_str()), (3, says), "{boot}/{tool}");
    }
}
