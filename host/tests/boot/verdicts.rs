//! The verdicts in QEMU: one `verdict` record per entry of core's table, in its order, after
//! the measurements and before `end`; under emulation the timing and PMU verdicts are `n/a`
//! and the data-based ones are judged; `mairbench.selftest=caches-off` fails `caches-on` and
//! the run.

use crate::common;
use crate::common::{boot, Run};
use crate::matrix;
use mairbench_core::verdict::{Basis, Status, VERDICTS};

fn verdicts(run: &Run) -> Vec<(String, String)> {
    run.of_kind("verdict")
        .iter()
        .map(|v| {
            (
                v["name"].as_str().unwrap().to_owned(),
                v["status"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn status_of(run: &Run, name: &str) -> String {
    verdicts(run)
        .into_iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no verdict {name} in:\n{}", run.console))
        .1
}

/// Each verdict once, in the table's order, as the last records before `end`; the block of
/// human lines right above the status line.
fn assert_block(run: &Run) {
    let names: Vec<_> = verdicts(run).into_iter().map(|(n, _)| n).collect();
    let table: Vec<_> = VERDICTS.iter().map(|s| s.id.to_owned()).collect();
    assert_eq!(names, table, "console:\n{}", run.console);
    let kinds: Vec<_> = run.records.iter().map(|r| r["kind"].clone()).collect();
    let n = kinds.len();
    assert!(
        kinds[n - 1 - VERDICTS.len()..n - 1]
            .iter()
            .all(|k| k == "verdict"),
        "verdicts are not the last records before end:\n{}",
        run.console
    );
    for (_, status) in verdicts(run) {
        assert!(Status::by_name(&status).is_some(), "status {status}");
    }
    let lines: Vec<&str> = run.console.lines().collect();
    let status_line = lines
        .iter()
        .rposition(|l| l.starts_with("mairbench: status"))
        .expect("a status line");
    let human: Vec<&&str> = lines[..status_line]
        .iter()
        .filter(|l| l.trim_start().starts_with("verdict "))
        .collect();
    assert_eq!(human.len(), VERDICTS.len(), "console:\n{}", run.console);
}

#[test]
fn emulated_run_judges_data_and_leaves_timing_open() {
    let run = matrix::run("kernel_a72_el1");
    run.assert_pass();
    assert_block(run);
    for spec in VERDICTS.iter() {
        let status = status_of(run, spec.id);
        match spec.basis {
            Basis::Timing => assert_eq!(status, "n/a", "{} under QEMU", spec.id),
            _ => assert_ne!(status, "fail", "{} under QEMU:\n{}", spec.id, run.console),
        }
    }
    // The maintenance experiment is data: QEMU has no caches, and clean/invalidate still
    // leave the data where the architecture says.
    assert_eq!(status_of(run, "maintenance"), "pass");
    // One CPU: nothing to compare.
    assert_eq!(status_of(run, "smp-config"), "n/a");
    let maintenance = run
        .of_kind("verdict")
        .into_iter()
        .find(|v| v["name"] == "maintenance")
        .unwrap();
    assert!(
        maintenance["evidence"].as_object().is_some(),
        "{maintenance}"
    );
}

#[test]
fn four_cpus_pass_smp_config() {
    let run = matrix::run("four_cores_from_el1");
    run.assert_pass();
    assert_block(run);
    assert_eq!(status_of(run, "smp-config"), "pass", "{}", run.console);
}

#[test]
fn caches_off_fails_caches_on_and_the_run() {
    let run = boot(
        &[],
        &[
            "mairbench.quick",
            "mairbench.selftest=caches-off",
            "mairbench.kernels=read-ldp",
        ],
    );
    run.assert_framed();
    assert_block(&run);
    assert_eq!(status_of(&run, "caches-on"), "fail");
    let end = run.one("end");
    assert_eq!(end["status"], "fail", "{end}");
    assert_eq!(
        end["failed_checks"],
        serde_json::json!(["caches-on"]),
        "{end}"
    );
    assert_eq!(run.status, 1, "runner status; stderr:\n{}", run.stderr);
    let mmu = run.one("mmu");
    let sctlr =
        u64::from_str_radix(mmu["sctlr"].as_str().unwrap().trim_start_matches("0x"), 16).unwrap();
    assert_eq!(sctlr & (1 << 2), 0, "SCTLR_EL1.C in {mmu}");
    assert!(run.of_kind("hello").is_empty());
}

#[test]
fn a_guest_says_whose() {
    // A device tree with Xen's /hypervisor node: the start record names the hypervisor and
    // the console says what its stage 2 may do to the memory types; the run goes on. (KVM is
    // told by its SMCCC UID, which QEMU's own PSCI does not answer: no hypervisor there.)
    let xen = common::dtb::virt_with(
        "xen-guest.dtb",
        &[],
        &[common::dtb::Node::new("hypervisor").prop("compatible", "xen,xen-4.17\0xen,xen\0")],
    );
    let run = boot(
        &[("MAIRBENCH_DTB", xen.to_str().unwrap())],
        &[
            "mairbench.quick",
            "mairbench.kernels=read-ldp",
            "mairbench.sizes=4K",
        ],
    );
    run.assert_pass();
    assert_eq!(run.one("start")["hypervisor"], "xen");
    assert!(
        run.console.contains("hypervisor: in a guest of xen"),
        "{}",
        run.console
    );
    let plain = boot(
        &[],
        &[
            "mairbench.quick",
            "mairbench.kernels=read-ldp",
            "mairbench.sizes=4K",
        ],
    );
    assert!(plain.one("start")["hypervisor"].is_null());
}
