//! The image as a UEFI application (its PE/COFF face, boot/aarch64/entry.S): EDK2 for QEMU virt
//! with the device tree as a configuration table (MAIRBENCH_BOOT=uefi-dt), with ACPI alone
//! (uefi), U-Boot's bootefi (uboot-efi), and a firmware that never finds the image.
//!
//! The runs are rows of the boot matrix (matrix.rs): `edk2_device_tree`, `uboot_bootefi_el1`
//! and `_el2`, `edk2_acpi_four_cpus_from_the_madt`,
//! `firmware_that_never_starts_the_image_times_out_clearly` and
//! `uboot_without_the_image_fails_clearly`; here, what an image started over a device tree
//! must show. EDK2 starts slowly under TCG (its UEFI shell waits 5 s before startup.nsh):
//! about 12 s a boot.

use crate::common::{with_host, Run};
use crate::matrix::Row;
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
pub fn with_dtb(_: &Row, run: &Run) {
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

/// Two clusters from QEMU's PPTT (`MAIRBENCH_CLUSTERS=2`): the boot CPU's, and the other swept
/// on its first CPU, whose results carry the cluster.
pub fn pptt_clusters(_: &Row, run: &Run) {
    let clusters: Vec<_> = run
        .of_kind("cluster")
        .iter()
        .map(|c| format!("{} {} {}", c["cluster"], c["representative"], c["role"]))
        .collect();
    assert_eq!(
        clusters,
        ["0 \"0x0\" \"boot\"", "1 \"0x2\" \"swept\""],
        "{}",
        run.console
    );
    let swept = run
        .results()
        .iter()
        .filter(|r| r.get("skipped").is_none())
        .filter(|r| r.get("cluster").and_then(Value::as_u64) == Some(1))
        .count();
    assert!(swept > 0, "no point swept on cluster 1: {}", run.console);
}
