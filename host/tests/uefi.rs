//! The image as a UEFI application (its PE/COFF face, boot/entry.S): EDK2 for QEMU virt with
//! the device tree as a configuration table (MAIRBENCH_BOOT=uefi-dt), with ACPI alone
//! (uefi), U-Boot's bootefi (uboot-efi), and a firmware that never finds the image.
//!
//! EDK2 starts slowly under TCG (its UEFI shell waits 5 s before startup.nsh): about 12 s a
//! boot, so this binary boots EDK2 three times and U-Boot once.

mod common;
use common::{boot, with_host, Run};
use serde_json::Value;

fn hex(v: &Value) -> u64 {
    let s = v
        .as_str()
        .unwrap_or_else(|| panic!("not a hex string: {v}"));
    u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap()
}

/// A quick run started as a UEFI application over a device tree: passed, says so in its
/// `start` record, got its bootargs from the load options, and put neither the image nor the
/// buffer on memory the firmware's map keeps (the `reserved` records of source `uefi`).
fn uefi_with_dtb(run: &Run) {
    run.assert_pass();
    let start = run.one("start");
    assert_eq!(start["firmware"], "uefi", "{}", run.console);
    assert_eq!(start["tables"], "dtb", "{}", run.console);
    assert_eq!(start["bootargs"], with_host("mairbench.quick").as_str());
    assert_eq!(start["bootargs_from"], "uefi");
    assert_eq!(start["entry_mmu"], true, "UEFI runs with its MMU on");
    assert!(
        run.console
            .contains("started as a UEFI application; reading the configuration tables"),
        "the ConOut line:\n{}",
        run.console
    );
    assert!(run.console.contains("(EFI_DTB_TABLE)"), "{}", run.console);
    // The firmware's own memory (runtime services at least) is listed and avoided.
    let kept: Vec<(u64, u64, String)> = run
        .of_kind("reserved")
        .into_iter()
        .filter(|r| r["source"] == "uefi")
        .map(|r| {
            (
                hex(&r["pa"]),
                r["size"].as_u64().unwrap(),
                r["name"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert!(
        kept.iter()
            .any(|(_, _, n)| n.starts_with("EfiRuntimeServices")),
        "no runtime-services range in the map: {kept:?}\n{}",
        run.console
    );
    let mmu = run.one("mmu");
    let buffer = (hex(&mmu["buffer_pa"]), mmu["buffer_size"].as_u64().unwrap());
    let overlaps = |(b, s): (u64, u64), (kb, ks): (u64, u64)| b < kb + ks && kb < b + s;
    for (pa, size, name) in &kept {
        assert!(
            !overlaps(buffer, (*pa, *size)),
            "buffer {buffer:#x?} overlaps {name} {pa:#x}+{size:#x}"
        );
        // Every mapped region with a physical address (image, stacks, tables, the buffer's
        // aliases) stays off it too; the device tree is only read, wherever it lies.
        for m in run.of_kind("map") {
            if m["pa"] == "-" || m["what"] == "device tree" || m["what"] == "console" {
                continue;
            }
            let region = (hex(&m["pa"]), m["size"].as_u64().unwrap());
            assert!(
                !overlaps(region, (*pa, *size)),
                "{} {region:#x?} overlaps {name} {pa:#x}+{size:#x}",
                m["what"]
            );
        }
    }
    let reserved = run
        .of_kind("check")
        .into_iter()
        .find(|c| c["name"] == "reserved")
        .expect("a reserved check");
    assert_eq!(reserved["ok"], true, "{}", run.console);
    run.assert_memory_proven();
}

/// EDK2 with `-machine virt,acpi=off`: its UEFI shell runs startup.nsh, which starts the
/// image with the bootargs as load options.
#[test]
fn edk2_device_tree() {
    let run = boot(&[("MAIRBENCH_BOOT", "uefi-dt")], &["mairbench.quick"]);
    eprintln!("uefi-dt wall time: {:?}", run.wall);
    uefi_with_dtb(&run);
    assert!(run.console.contains("startup.nsh"), "{}", run.console);
}

/// U-Boot's bootefi of the image read from the EFI system partition, U-Boot's bootargs as
/// load options, at EL1 and EL2.
#[test]
fn uboot_bootefi() {
    for el in ["1", "2"] {
        let run = boot(
            &[("MAIRBENCH_BOOT", "uboot-efi"), ("MAIRBENCH_EL", el)],
            &["mairbench.quick"],
        );
        eprintln!("uboot-efi EL{el} wall time: {:?}", run.wall);
        uefi_with_dtb(&run);
        assert_eq!(run.one("start")["entry_el"], el.parse::<u64>().unwrap());
        assert!(run
            .console
            .contains("Booting /\\EFI\\mairbench\\mairbench.efi"));
    }
}

/// EDK2 with its ACPI tables (no device tree): the platform from the RSDP, four CPUs from the
/// MADT's GICC entries started through PSCI (FADT: HVC), the console from the SPCR.
#[test]
fn edk2_acpi_four_cpus_from_the_madt() {
    // One kernel on two types: four emulated CPUs on a 2-core host run the scaling tables
    // slowly, and this test is about the tables and the CPUs, not the measurements.
    let run = boot(
        &[
            ("MAIRBENCH_BOOT", "uefi"),
            ("MAIRBENCH_SMP", "4"),
            ("MAIRBENCH_TIMEOUT", "120"),
        ],
        &[
            "mairbench.quick",
            "mairbench.kernels=read-ldp",
            "mairbench.types=normal-wb,normal-nc",
        ],
    );
    eprintln!("uefi (ACPI, 4 CPUs) wall time: {:?}", run.wall);
    run.assert_pass();
    assert!(run.console.contains("ACPI RSDP at 0x"), "{}", run.console);
    let start = run.one("start");
    assert_eq!(start["firmware"], "uefi", "{start}");
    assert_eq!(start["tables"], "acpi", "{start}");
    assert_eq!(start["platform"], "BOCHS BXPC", "{start}");
    assert_eq!(start["psci"], "hvc", "{start}");
    assert_eq!(start["console"], "pl011", "{start}");
    assert_eq!(start["emulated"], true, "{start}");
    assert_eq!(start["bootargs_from"], "uefi", "{start}");
    assert_eq!(run.of_kind("hello").len(), 4, "{}", run.console);
    let smp = run
        .of_kind("verdict")
        .into_iter()
        .find(|v| v["name"] == "smp-config")
        .expect("an smp-config verdict");
    assert_eq!(smp["status"], "pass", "{smp}");
    // The clusters from QEMU's PPTT (read before the MMU is on: the firmware does not map
    // ACPI's tables), one of the four CPUs, and the core-to-core matrix of its six pairs.
    let cluster = run.one("cluster");
    assert_eq!(cluster["source"], "pptt", "{cluster}");
    assert_eq!(cluster["cpus"], 4, "{cluster}");
    assert_eq!(cluster["role"], "boot", "{cluster}");
    assert_eq!(run.of_kind("core_to_core").len(), 6, "{}", run.console);
}

/// A disk without the image: EDK2's shell cannot run startup.nsh's command and waits; the
/// runner ends the run at its time limit and says that the firmware never started the image.
#[test]
fn firmware_that_never_starts_the_image_times_out_clearly() {
    let run = boot(
        &[
            ("MAIRBENCH_BOOT", "uefi-dt"),
            ("MAIRBENCH_UEFI_IMAGE", "0"),
            ("MAIRBENCH_TIMEOUT", "25"),
        ],
        &["mairbench.quick"],
    );
    assert_eq!(run.status, 124, "{}\n{}", run.console, run.stderr);
    assert!(
        run.stderr
            .contains("the firmware (uefi-dt) never started the image"),
        "{}",
        run.stderr
    );
    assert!(run.records.is_empty(), "{}", run.console);
}

/// U-Boot that finds no image says so and powers off: a failed run, not a hang.
#[test]
fn uboot_without_the_image_fails_clearly() {
    let run = boot(
        &[
            ("MAIRBENCH_BOOT", "uboot-efi"),
            ("MAIRBENCH_UEFI_IMAGE", "0"),
        ],
        &["mairbench.quick"],
    );
    assert_eq!(run.status, 1, "{}\n{}", run.console, run.stderr);
    assert!(
        run.console
            .contains("mairbench: bootefi did not start mairbench; powering off"),
        "{}",
        run.console
    );
}
