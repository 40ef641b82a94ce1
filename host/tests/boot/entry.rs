//! What the entry code leaves the firmware, booted by QEMU's `-kernel` on every CPU model at
//! every entry EL: the check of the boot matrix's `kernel_*` rows (matrix.rs), which also
//! hold the U-Boot `booti` and `bootm` rows.

use crate::common::Run;
use crate::matrix::Row;

/// The `start` record and the first checks of a quick run entered at the row's EL on its CPU
/// model.
pub fn kernel(row: &Row, run: &Run) {
    let (cpu, el) = (row.cpu, row.el);
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
}
