//! A real board's device tree under QEMU: the Raspberry Pi 3B machine with the Pi 3B DTB of
//! Debian's arm64 kernel package (fetched by qemu/dtbs, not committed). No PSCI (spin-table),
//! the mini-UART as console, RAM at 0, entered at EL2; the run ends through semihosting. The
//! quick run is the boot matrix's row `raspi3b_with_the_boards_own_device_tree` (matrix.rs);
//! here, the settings that do not apply to the board.

use crate::common::boot;

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
