//! A real board's device tree under QEMU: the Raspberry Pi 3B machine with the Pi 3B DTB of
//! Debian's arm64 kernel package (fetched by qemu/dtbs, not committed). No PSCI (spin-table),
//! the mini-UART as console, RAM at 0, entered at EL2; the run ends through semihosting.

use crate::common;
use crate::common::boot;

#[test]
fn raspi3b_with_the_boards_own_device_tree() {
    let run = boot(&[("MAIRBENCH_MACHINE", "raspi3b")], &["mairbench.quick"]);
    run.assert_pass();
    let start = run.one("start");
    assert_eq!(start["platform"], "Raspberry Pi 3 Model B");
    assert_eq!(start["entry_el"], 2);
    assert_eq!(start["midr"], "0x410fd034", "Cortex-A53");
    assert_eq!(
        start["console"], "ns16550",
        "the mini-UART, driven as a 16550"
    );
    assert_eq!(
        start["console_base"], "0x3f215040",
        "0x7e215040 through the soc ranges"
    );
    assert_eq!(start["psci"], "none");
    assert_eq!(start["ram_base"], "0x0");
    assert_eq!(
        start["bootargs"],
        common::with_host("mairbench.quick").as_str()
    );
    assert!(
        run.console.contains("PSCI is unavailable"),
        "{}",
        run.console
    );
    run.assert_memory_proven();
}

#[test]
fn raspi3b_refuses_settings_that_do_not_apply() {
    for (k, v) in [
        ("MAIRBENCH_EL", "1"),
        ("MAIRBENCH_SMP", "2"),
        ("MAIRBENCH_BOOT", "uboot"),
    ] {
        let run = boot(&[("MAIRBENCH_MACHINE", "raspi3b"), (k, v)], &[]);
        assert_eq!(run.status, 2, "{k}={v}: {}", run.stderr);
        assert!(run.stderr.contains("raspi3b"), "{k}={v}: {}", run.stderr);
    }
}
