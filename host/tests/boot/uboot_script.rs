//! The real-board U-Boot flow in QEMU: `boot/boot.cmd`, made into `boot.scr` with mkimage, on
//! the FAT partition of an MBR virtio disk with `mairbench.bin` and `mairbench.txt`; Debian's
//! U-Boot finds the script through its own distro boot, and the script runs `booti` with the
//! device tree U-Boot runs on (MAIRBENCH_BOOT=uboot-script of `qemu/run`).

use crate::common;
use crate::common::boot;

fn uboot_script(el: u64) {
    let el_s = el.to_string();
    let run = boot(
        &[("MAIRBENCH_BOOT", "uboot-script"), ("MAIRBENCH_EL", &el_s)],
        &["mairbench.quick"],
    );
    run.assert_pass();
    // Distro boot found the script on the disk and sourced it; the script said what it did.
    for seen in [
        "U-Boot",
        "Scanning virtio 0:1",
        "Found U-Boot script /boot.scr",
        "## Executing script",
        "mairbench: bootargs from /mairbench.txt",
        "mairbench: loading /mairbench.bin",
        "mairbench: booti ",
    ] {
        assert!(
            run.console.contains(seen),
            "no {seen:?} in:\n{}",
            run.console
        );
    }
    assert!(!run.console.contains("FAILED"), "{}", run.console);
    let start = run.one("start");
    assert_eq!(start["entry_el"], el, "{}", run.console);
    assert_eq!(start["entry_mmu"], false);
    // mairbench.txt -> bootargs -> /chosen/bootargs of the tree booti handed over.
    assert_eq!(
        start["bootargs"],
        common::with_host("mairbench.quick").as_str(),
        "{}",
        run.console
    );
    assert_eq!(start["bootargs_from"], "dtb", "{}", run.console);
    // Loaded to U-Boot's kernel_addr_r (0x40400000 in Debian's qemu_arm64 build), run in place.
    assert_eq!(start["image_base"], "0x40400000", "{}", run.console);
    run.assert_memory_proven();
}

#[test]
fn uboot_script_el1() {
    uboot_script(1);
}

#[test]
fn uboot_script_el2() {
    uboot_script(2);
}
