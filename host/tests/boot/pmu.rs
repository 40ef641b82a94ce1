//! PMU evidence in QEMU: the `config` record says which events are counted (none: QEMU's TCG
//! PMU counts no memory event) and why, with PMCEID0/1_EL0 as the core reads them and the
//! cycle counter's rate; the event counters' self-check (SW_INCR) passes. QEMU's events are
//! those of its target/arm/cpregs-pmu.c `pm_events[]`: SW_INCR (0x00) and CPU_CYCLES (0x11)
//! always, INST_RETIRED (0x08) only with `-icount`, STALL_FRONTEND/BACKEND (0x23/0x24) from
//! PMUv3p1 and STALL (0x3C) from PMUv3p4. The runs are quick runs of the boot matrix
//! (matrix.rs): the boot checks and the config record are all this file reads.

use crate::common::Run;
use crate::matrix;
use mairbench_core::pmu::{described, Choice, Unavailable, EVENTS};
use serde_json::Value;

fn hex(v: &Value) -> u64 {
    let s = v
        .as_str()
        .unwrap_or_else(|| panic!("{v} is not a hex string"));
    u64::from_str_radix(s.trim_start_matches("0x"), 16).unwrap()
}

/// The run's config record, after checking what every QEMU run must say about the PMU.
fn config(run: &Run) -> &Value {
    run.assert_pass();
    let config = run.one("config");
    // No memory event counts under QEMU, and the record says why, once.
    assert_eq!(config["pmu_events"], serde_json::json!([]), "{config}");
    assert_eq!(
        config["pmu_reason"],
        Unavailable::NoMemoryEvents.why(),
        "{config}"
    );
    assert!(
        run.console
            .contains("pmu: no memory events: the PMU implements none of the memory events"),
        "{}",
        run.console
    );
    // What the firmware chose is what the core's selection makes of the registers it read.
    let (p0, p1) = (hex(&config["pmceid0"]), hex(&config["pmceid1"]));
    let midr = hex(&run.one("start")["midr"]);
    assert!(Choice::select(p0, p1, 31, midr).is_empty());
    for e in EVENTS {
        assert_ne!(described(p0, p1, e.number), Some(true), "{}", e.name);
    }
    // SW_INCR and CPU_CYCLES are always there.
    assert_eq!(described(p0, p1, 0x00), Some(true));
    assert_eq!(described(p0, p1, 0x11), Some(true));
    // The self-check programmed a counter, and it counted every software increment.
    let checks = run.of_kind("check");
    let check = checks
        .iter()
        .find(|c| c["name"] == "pmu-events")
        .unwrap_or_else(|| panic!("no pmu-events check in:\n{}", run.console));
    assert_eq!(check["ok"], true, "{check}");
    let detail = check["detail"].as_str().unwrap();
    assert!(
        detail.contains("counted 100 SW_INCR for 100 writes"),
        "{detail}"
    );
    // QEMU's cycle counter counts virtual nanoseconds: 1000 MHz, whatever the timer's rate
    // (62.5 MHz for the Cortex models, 1 GHz for max). Within 5 % (a loaded host delays a
    // read at either end of the 1 ms interval).
    let mhz = config["cycle_mhz"].as_f64().expect("cycle_mhz is a number");
    assert!((950.0..=1050.0).contains(&mhz), "cycle_mhz {mhz}");
    assert!(run
        .console
        .contains(" MHz over 1 ms of CNTVCT_EL0 (under QEMU"));
    config
}

#[test]
fn virt_cortex_a72_counts_no_memory_event_and_says_why() {
    let run = matrix::run("kernel_a72_el1");
    let config = config(run);
    // PMUv3 (no v3.1 events): exactly SW_INCR and CPU_CYCLES.
    assert_eq!(config["pmceid0"], "0x20001");
    assert_eq!(config["pmceid1"], "0x0");
}

#[test]
fn cpu_max_reports_what_qemus_pmceid_says() {
    let run = matrix::run("kernel_max_el1");
    let config = config(run);
    let (p0, p1) = (hex(&config["pmceid0"]), hex(&config["pmceid1"]));
    assert_eq!(p0, 0x20001, "no INST_RETIRED without -icount");
    // PMUv3p1's stall events and PMUv3p4's STALL, nothing else.
    assert_eq!(described(p0, p1, 0x23), Some(true));
    assert_eq!(described(p0, p1, 0x24), Some(true));
    assert_eq!(described(p0, p1, 0x3c), Some(true));
    assert_eq!(p1, 0x1000_0018);
}

#[test]
fn icount_adds_inst_retired_so_pmceid_is_read_not_assumed() {
    let run = matrix::run("icount");
    let config = config(run);
    assert_eq!(
        config["pmceid0"], "0x20101",
        "INST_RETIRED (0x08) under -icount"
    );
}

#[test]
fn the_self_check_counts_after_entry_at_el2_and_el3() {
    // MDCR_EL2 (HPMN = N) and MDCR_EL3 (0, Non-secure EL1) as the boot code sets them: the
    // filters (P = NSK = 0) count at EL1 either way.
    for el in ["2", "3"] {
        let run = matrix::run(&format!("kernel_a53_el{el}"));
        assert_eq!(run.one("start")["entry_el"], el.parse::<u64>().unwrap());
        let config = config(run);
        assert_eq!(config["pmceid0"], "0x20001", "EL{el}");
    }
}
