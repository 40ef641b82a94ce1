//! The memory-type aliases in QEMU: the report, the buffer options (a size, and part of a
//! block rounded down: rows of the boot matrix), the negative test of the proof and the
//! optional Device-memory fault probes. (Correctness only: QEMU has no caches.)

use crate::common::boot;
use crate::matrix;

#[test]
fn report_shows_registers_map_and_tables() {
    let run = matrix::run("kernel_a72_el1");
    run.assert_pass();
    let mmu = run.one("mmu");
    assert_eq!(
        mmu["mair"], "0x0c08040044bbccff",
        "MAIR_EL1 from the eight types"
    );
    assert_eq!(mmu["buffer_size"], 32 << 20, "default buffer");
    assert_eq!(mmu["buffer_shrunk"], false);
    assert!(mmu["tables_used"].as_u64().unwrap() <= mmu["tables_total"].as_u64().unwrap());
    let sctlr =
        u64::from_str_radix(mmu["sctlr"].as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
    assert_eq!(sctlr & 0b101, 0b101, "MMU and D-cache on");
    let map = run.of_kind("map");
    let perm = |what: &str| {
        map.iter()
            .find(|m| m["what"] == what)
            .map(|m| m["perm"].as_str().unwrap().to_owned())
            .unwrap_or_else(|| panic!("no {what} in the map"))
    };
    assert_eq!(perm("text"), "r-x");
    assert_eq!(perm("rodata"), "r--");
    assert_eq!(perm("stack"), "rw-");
    assert_eq!(perm("device tree"), "r--");
    let console = map.iter().find(|m| m["what"] == "console").unwrap();
    assert_eq!(console["memtype"], "device-ngnrne");
    assert!(run.console.contains("memory map:"));
    assert!(run.console.contains("MAIR_EL1 0x0c08040044bbccff"));
}

#[test]
fn a_wrong_attr_index_fails_the_proof_naming_the_alias() {
    let run = matrix::run("bad_attr");
    run.assert_framed();
    let bad: Vec<_> = run
        .of_kind("memtype")
        .into_iter()
        .filter(|m| m["ok"] == false)
        .collect();
    assert_eq!(bad.len(), 1, "{}", run.console);
    assert_eq!(bad[0]["name"], "normal-nc");
    assert_eq!(bad[0]["par_attr"], "0x00");
    assert!(
        run.console.contains("FAIL memtype: normal-nc"),
        "{}",
        run.console
    );
    assert!(
        run.console
            .contains("WRONG attribute: PAR_EL1 reports Device-nGnRnE"),
        "{}",
        run.console
    );
    assert_eq!(bad[0]["verdict"], "wrong-attr");
    assert_eq!(run.one("end")["status"], "fail");
    assert_eq!(run.status, 1);
}

#[test]
fn a_buffer_larger_than_ram_shrinks_and_says_so() {
    let run = boot(
        &[("MAIRBENCH_MEM", "128M")],
        &["mairbench.quick", "mairbench.buffer=1G"],
    );
    run.assert_pass();
    let mmu = run.one("mmu");
    assert_eq!(mmu["buffer_shrunk"], true);
    let size = mmu["buffer_size"].as_u64().unwrap();
    assert!((2 << 20..128 << 20).contains(&size), "{size}");
    assert!(run.console.contains("smaller than asked"));
    run.assert_memory_proven();
}

#[test]
fn bad_buffer_and_types_are_warnings_and_defaults_stay() {
    let run = boot(
        &[],
        &[
            "mairbench.quick",
            "mairbench.buffer=lots",
            "mairbench.types=bogus",
        ],
    );
    run.assert_pass();
    assert_eq!(run.one("end")["warnings"], 2);
    assert_eq!(run.one("mmu")["buffer_size"], 32 << 20);
    assert_eq!(run.one("config")["types"].as_array().unwrap().len(), 8);
}

#[test]
fn types_restrict_later_measurements() {
    let run = boot(
        &[],
        &["mairbench.quick", "mairbench.types=normal-wb,device-gre"],
    );
    run.assert_pass();
    assert_eq!(
        run.one("config")["types"],
        serde_json::json!(["normal-wb", "device-gre"])
    );
    assert!(run.console.contains("measurements restricted to"));
    // The proof itself always covers every alias.
    run.assert_memory_proven();
}

#[test]
fn device_fault_probes_are_information_only() {
    let run = matrix::run("device_faults");
    run.assert_pass();
    let probes = run.of_kind("device-fault");
    assert_eq!(
        probes.len(),
        8,
        "two accesses on each of four Device aliases"
    );
    for p in probes {
        assert_eq!(p["informational"], true);
        // QEMU 7.2 models neither fault; real cores take an alignment fault here.
        assert!(p["faulted"].is_boolean());
    }
}
