//! The boot matrix and the output contract, in QEMU: every CPU model at every entry EL with
//! `-kernel`, and Debian's U-Boot `booti` at EL1 and EL2 with the image at two addresses.

use crate::common;
use crate::common::boot;

fn kernel(cpu: &str, el: u64) {
    let el_s = el.to_string();
    let run = boot(
        &[("MAIRBENCH_CPU", cpu), ("MAIRBENCH_EL", &el_s)],
        &["mairbench.quick"],
    );
    run.assert_pass();
    let start = run.one("start");
    assert_eq!(start["entry_el"], el, "{}", run.console);
    assert_eq!(start["el"], 1);
    assert_eq!(start["entry_mmu"], false);
    assert_eq!(start["emulated"], true);
    assert_eq!(start["semihosting"], true);
    assert_eq!(start["console"], "pl011");
    // QEMU's PSCI: hvc from EL1, smc from EL2 (it emulates EL3), none at EL3 (measured on QEMU 7.2).
    let psci = ["hvc", "smc", "none"][el as usize - 1];
    assert_eq!(start["psci"], psci, "{}", run.console);
    // The EL2 trap registers zeroed on the way down: the fine-grained ones and HCRX_EL2 on
    // `max` (FEAT_FGT, FEAT_HCX), none on the v8.0 cores (where writing them is UNDEFINED).
    let zeroed = &start["el2_traps_zeroed"];
    if cpu == "max" && el >= 2 {
        assert_eq!(
            *zeroed,
            serde_json::json!([
                "HFGRTR_EL2",
                "HFGWTR_EL2",
                "HFGITR_EL2",
                "HDFGRTR_EL2",
                "HDFGWTR_EL2",
                "HCRX_EL2"
            ]),
            "{start}"
        );
    } else {
        assert!(zeroed.is_null(), "{start}");
    }
    // At EL3 the entry code sets SMPEN on the cores that have it (A53, A72), not on max, and
    // CPUACTLR_EL1.ENDCCASCI on QEMU's A53 (r0p4: erratum 855873's workaround, from r0p3;
    // QEMU's register is read-as-zero, write-ignored, so the write must not trap).
    assert_eq!(
        run.console
            .contains("el3: Cortex-A53 r0p4 executes a data cache clean as clean and")
            && run
                .console
                .contains("the entry code set it, so DC CVAC also drops the line"),
        el == 3 && cpu == "cortex-a53",
        "{}",
        run.console
    );
    if el == 3 {
        assert_eq!(start["smpen_set"], cpu != "max", "{start}");
        assert!(
            run.console.contains("EL3 entry is supported on QEMU only"),
            "{}",
            run.console
        );
    } else {
        assert!(start["smpen_set"].is_null(), "{start}");
    }
    // What the boot code promises EL1: relocated, timer, FP/SIMD and the PMU usable.
    let checks: Vec<_> = run
        .of_kind("check")
        .iter()
        .map(|c| c["name"].clone())
        .collect();
    assert_eq!(
        checks[..4],
        ["relocations", "timer", "fp-simd", "pmu-cycles"]
    );
    run.assert_memory_proven();
}

macro_rules! kernel_matrix {
    ($($name:ident: $cpu:literal, $el:literal;)*) => {
        $(#[test] fn $name() { kernel($cpu, $el) })*
    };
}

kernel_matrix! {
    kernel_a53_el1: "cortex-a53", 1;
    kernel_a53_el2: "cortex-a53", 2;
    kernel_a53_el3: "cortex-a53", 3;
    kernel_a72_el1: "cortex-a72", 1;
    kernel_a72_el2: "cortex-a72", 2;
    kernel_a72_el3: "cortex-a72", 3;
    kernel_max_el1: "max", 1;
    kernel_max_el2: "max", 2;
    kernel_max_el3: "max", 3;
}

fn uboot(el: u64, load: &str) {
    let el_s = el.to_string();
    let run = boot(
        &[
            ("MAIRBENCH_BOOT", "uboot"),
            ("MAIRBENCH_EL", &el_s),
            ("MAIRBENCH_LOAD", load),
        ],
        &["mairbench.quick"],
    );
    run.assert_pass();
    let start = run.one("start");
    assert_eq!(start["entry_el"], el, "{}", run.console);
    // booti ran the image in place (flags bit 3), so it relocated itself to the load address.
    let base = u64::from_str_radix(load.trim_start_matches("0x"), 16).unwrap();
    assert_eq!(start["image_base"], format!("{base:#x}"), "{}", run.console);
    assert_eq!(
        start["bootargs"],
        common::with_host("mairbench.quick").as_str()
    );
    assert!(run.console.contains("U-Boot"), "{}", run.console);
    run.assert_memory_proven();
}

#[test]
fn uboot_el1_at_0x40400000() {
    uboot(1, "0x40400000");
}

#[test]
fn uboot_el1_at_0x48000000() {
    uboot(1, "0x48000000");
}

#[test]
fn uboot_el2_at_0x40400000() {
    uboot(2, "0x40400000");
}

#[test]
fn uboot_el2_at_0x4a200000() {
    uboot(2, "0x4a200000");
}

/// U-Boot's `bootm` of a standalone program enters with the MMU and D-cache on and no device
/// tree in x0: the firmware must turn them off (cleaning the cache) and find QEMU's DTB.
fn bootm(el: u64) {
    let el_s = el.to_string();
    let run = boot(
        &[("MAIRBENCH_BOOT", "uboot-bootm"), ("MAIRBENCH_EL", &el_s)],
        &["mairbench.quick"],
    );
    run.assert_pass();
    let start = run.one("start");
    assert_eq!(start["entry_el"], el, "{}", run.console);
    assert_eq!(start["entry_mmu"], true, "{}", run.console);
    assert_eq!(start["entry_dcache"], true, "{}", run.console);
    assert_eq!(start["dtb"], "0x40000000");
    assert_eq!(
        start["bootargs"],
        common::with_host("mairbench.quick").as_str()
    );
    assert_eq!(start["bootargs_from"], "semihosting");
    run.assert_memory_proven();
}

#[test]
fn uboot_bootm_el1_mmu_and_caches_on_at_entry() {
    bootm(1);
}

#[test]
fn uboot_bootm_el2_mmu_and_caches_on_at_entry() {
    bootm(2);
}
