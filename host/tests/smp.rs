//! All the cores: PSCI CPU_ON starts every CPU of /cpus, each reports from EL1 on its own
//! stacks with the boot CPU's tables and then runs its share of the scaling measurements; a
//! CPU that cannot start is named by MPIDR and the run goes on. (No speed is compared.)

mod common;
use common::boot;

fn four_cores(el: &str) {
    let run = boot(
        &[("MAIRBENCH_SMP", "4"), ("MAIRBENCH_EL", el)],
        &["mairbench.quick"],
    );
    run.assert_pass();
    let hellos = run.of_kind("hello");
    let mpidrs: Vec<_> = hellos
        .iter()
        .map(|h| h["mpidr"].as_str().unwrap())
        .collect();
    assert_eq!(mpidrs, ["0x0", "0x1", "0x2", "0x3"], "{}", run.console);
    for h in &hellos {
        assert_eq!(h["el"], 1);
        assert_eq!(h["entry_el"].to_string(), el);
    }
    assert!(run.of_kind("cpu").is_empty());
    assert_eq!(run.one("end")["warnings"], 0);
    run.assert_memory_proven();
    // Read and write kernels on 1..4 cores at once, over disjoint parts of every alias.
    let scaling = run.of_kind("scaling");
    assert_eq!(scaling.len(), 2 * 8 * 4, "{}", run.console);
    for s in &scaling {
        let cores = s["cores"].as_u64().unwrap();
        assert!((1..=4).contains(&cores));
        assert!(s["aggregate_mbps"].as_u64().unwrap() > 0, "{s}");
        assert!(
            s["per_core_min_mbps"].as_u64().unwrap() <= s["per_core_max_mbps"].as_u64().unwrap()
        );
    }
    let check = run
        .of_kind("check")
        .into_iter()
        .find(|c| c["name"] == "scaling")
        .unwrap();
    assert_eq!(check["ok"], true);
}

#[test]
fn four_cores_from_el1() {
    four_cores("1");
}

#[test]
fn four_cores_from_el2() {
    four_cores("2");
}

#[test]
fn a_core_that_cannot_start_is_named_and_the_run_goes_on() {
    let run = boot(
        &[("MAIRBENCH_SMP", "2")],
        &["mairbench.quick", "mairbench.selftest=missing-cpu"],
    );
    run.assert_pass();
    assert_eq!(run.of_kind("hello").len(), 2);
    let failed = run.one("cpu");
    assert_eq!(failed["mpidr"], "0xff00");
    assert_eq!(failed["started"], false);
    // PSCI INVALID_PARAMETERS.
    assert_eq!(failed["why"], "PSCI CPU_ON returned -2");
    assert_eq!(run.one("end")["warnings"], 1);
}
