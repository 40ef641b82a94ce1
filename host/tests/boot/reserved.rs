//! Reserved memory in QEMU: virt booted with its own device tree plus `/memreserve/` and
//! `/reserved-memory` (`MAIRBENCH_DTB`). The buffer must stay clear of every fixed
//! reservation, the memory map must list them, and an image loaded into reserved memory
//! must fail the run.

use crate::common::dtb::{self, reserved_memory, Node};
use crate::common::{boot, Run};
use mairbench_host::read::log;
use serde_json::Value;

const MIB: u64 = 1 << 20;
/// A short run: the memory setup, proof and map are what is looked at.
const BOOTARGS: [&str; 4] = [
    "mairbench.quick",
    "mairbench.kernels=read-ldp",
    "mairbench.sizes=4K-4K",
    "mairbench.types=normal-wb",
];

fn hex(v: &Value) -> u64 {
    let s = v
        .as_str()
        .unwrap_or_else(|| panic!("not a hex string: {v}"));
    u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap()
}

fn overlap(a: (u64, u64), b: (u64, u64)) -> bool {
    a.0 < b.0 + b.1 && b.0 < a.0 + a.1
}

fn boot_with(dtb: &std::path::Path) -> Run {
    boot(&[("MAIRBENCH_DTB", dtb.to_str().unwrap())], &BOOTARGS)
}

#[test]
fn the_buffer_avoids_reserved_memory_and_the_map_shows_it() {
    let run = boot_with(&dtb::virt_reserved("avoided.dtb"));
    run.assert_pass();
    for r in &run.records {
        let wrong = log::mismatches(r.as_object().unwrap());
        assert!(wrong.is_empty(), "{wrong:?} in {r}");
    }

    // The reservations, in device-tree order; the disabled child is not among them.
    let listed: Vec<_> = run
        .of_kind("reserved")
        .iter()
        .map(|r| {
            (
                r["source"].as_str().unwrap().to_owned(),
                r["name"].as_str().unwrap().to_owned(),
                r.get("pa").map(hex),
                r["size"].as_u64().unwrap(),
                r["no_map"].as_bool().unwrap(),
            )
        })
        .collect();
    let entry = |source: &str, name: &str, pa, size, no_map| {
        (source.to_owned(), name.to_owned(), pa, size, no_map)
    };
    assert_eq!(
        listed,
        [
            entry("memreserve", "", Some(0x4900_0000), MIB, false),
            entry(
                "reserved-memory",
                "secmon@4c000000",
                Some(0x4c00_0000),
                64 * MIB,
                true
            ),
            entry("reserved-memory", "linux,cma", None, 16 * MIB, false),
        ],
        "{}",
        run.console
    );

    // The buffer: clear of both fixed ranges and of the device tree. Without them it went
    // to the top of RAM, 0x4e000000, inside secmon; now it is the highest 32 MiB below it,
    // where the disabled reservation is, which does not count.
    let mmu = run.one("mmu");
    let buffer = (hex(&mmu["buffer_pa"]), mmu["buffer_size"].as_u64().unwrap());
    assert_eq!(buffer, (0x4a00_0000, 32 * MIB), "{}", run.console);
    assert_eq!(mmu["buffer_shrunk"], false);
    for fixed in [(0x4900_0000, MIB), (0x4c00_0000, 64 * MIB)] {
        assert!(!overlap(buffer, fixed), "{buffer:x?} overlaps {fixed:x?}");
    }
    let dtb_pa = hex(&run.one("start")["dtb"]);
    assert!(!overlap(buffer, (dtb_pa, 4096)), "buffer over the DTB");

    // The memory map shows them, unmapped; no map record maps any of it.
    for line in [
        "0x49000000              1 MiB  unmapped           ---  reserved: memreserve",
        "0x4c000000             64 MiB  unmapped           ---  reserved (no-map): \
         reserved-memory secmon@4c000000",
        "16 MiB  unmapped           ---  reserved (dynamic): reserved-memory linux,cma \
         (placed by an OS)",
    ] {
        assert!(
            run.console.contains(line),
            "no {line:?} in\n{}",
            run.console
        );
    }
    for m in run.of_kind("map") {
        let mapped = (hex(&m["pa"]), m["size"].as_u64().unwrap());
        assert!(
            !overlap(mapped, (0x4c00_0000, 64 * MIB)),
            "mapped over secmon: {m}"
        );
    }

    let check: Vec<_> = run
        .of_kind("check")
        .into_iter()
        .filter(|c| c["name"] == "reserved")
        .collect();
    assert_eq!(check.len(), 1);
    assert_eq!(check[0]["ok"], true);
    let detail = check[0]["detail"].as_str().unwrap();
    assert!(detail.contains("none of the 2 reserved ranges"), "{detail}");
    assert_eq!(run.one("end")["warnings"], 0);
}

#[test]
fn an_image_in_reserved_memory_fails_the_run() {
    // The image is loaded at 0x40200000: reserve the first 8 MiB of RAM, as TF-A's might be.
    let tfa = Node::new("tfa@40000000")
        .reg(0x4000_0000, 8 * MIB)
        .prop("no-map", []);
    let path = dtb::virt_with("image-clash.dtb", &[], &[reserved_memory(vec![tfa])]);
    let run = boot_with(&path);
    run.assert_framed();
    assert_eq!(run.status, 1, "{}", run.console);
    let end = run.one("end");
    assert_eq!(end["status"], "fail");
    assert_eq!(
        end["failed"], 1,
        "only the reserved check fails:\n{}",
        run.console
    );
    let failed: Vec<_> = run
        .of_kind("check")
        .into_iter()
        .filter(|c| c["ok"] == false)
        .collect();
    assert_eq!(failed[0]["name"], "reserved");
    let detail = failed[0]["detail"].as_str().unwrap();
    assert!(
        detail.starts_with("the image 0x40200000-")
            && detail.contains("overlaps reserved (no-map) 0x40000000+8 MiB")
            && detail.contains("tfa@40000000"),
        "{detail}"
    );
    // The run went on: the buffer is placed above the reservation and proven.
    let mmu = run.one("mmu");
    assert!(hex(&mmu["buffer_pa"]) >= 0x4080_0000);
    assert_eq!(run.of_kind("memtype").len(), 16);
}

#[test]
fn a_missing_dtb_file_is_a_bad_setting() {
    let run = boot(&[("MAIRBENCH_DTB", "/nonexistent/virt.dtb")], &BOOTARGS);
    assert_eq!(run.status, 2, "{}", run.stderr);
    assert!(
        run.stderr
            .contains("no device tree at /nonexistent/virt.dtb (MAIRBENCH_DTB)"),
        "{}",
        run.stderr
    );
}

#[test]
fn more_reservations_than_any_cap_are_all_avoided_and_counted() {
    // 100 reservations of 64 KiB, 512 KiB apart, over the top 50 MiB of RAM: where the
    // buffer would go. More than the firmware keeps (mairbench_core::reserved::MAX_RESERVED):
    // the ones beyond widen their neighbours, and the buffer still touches none of them.
    let ranges: Vec<(u64, u64)> = (0..100u64)
        .map(|i| (0x4ce0_0000 + i * 512 * 1024, 64 * 1024))
        .collect();
    let children = ranges
        .iter()
        .map(|&(pa, size)| Node::new(String::leak(format!("carveout@{pa:x}"))).reg(pa, size))
        .collect();
    let run = boot_with(&dtb::virt_with(
        "many.dtb",
        &[],
        &[reserved_memory(children)],
    ));
    run.assert_pass();
    let mmu = run.one("mmu");
    let buffer = (hex(&mmu["buffer_pa"]), mmu["buffer_size"].as_u64().unwrap());
    for &r in &ranges {
        assert!(!overlap(buffer, r), "{buffer:x?} overlaps {r:x?}\n{run}");
    }
    let check: Vec<_> = run
        .of_kind("check")
        .into_iter()
        .filter(|c| c["name"] == "reserved")
        .collect();
    assert_eq!(check.len(), 1, "{run}");
    assert_eq!(check[0]["ok"], true, "{run}");
    let detail = check[0]["detail"].as_str().unwrap();
    assert!(
        detail.contains("none of the 100 reserved ranges"),
        "{detail}"
    );
    assert!(
        run.console
            .contains("device tree: more than 64 reserved ranges: each further one widens"),
        "{run}"
    );
}
