//! The generic timer's frequency from the device tree, which the firmware writes to
//! CNTFRQ_EL0 when it is entered at EL3 and the register reads 0.

mod common;

use std::path::PathBuf;

use common::{fixture, minimal_tree};
use mairbench_core::platform::{cntfrq_to_program, timer_frequency};

/// Where `qemu/dtbs` keeps the real boards' DTBs (as in `tests/boards.rs`).
fn board(name: &str) -> Vec<u8> {
    let dir = std::env::var_os("MAIRBENCH_DTB_DIR").map_or_else(
        || {
            std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
                .expect("neither MAIRBENCH_DTB_DIR, XDG_CACHE_HOME nor HOME is set")
                .join("mairbench/dtbs")
        },
        PathBuf::from,
    );
    let path = dir.join(name);
    std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{}: {e}: run qemu/dtbs (test.sh does)", path.display()))
}

#[test]
fn imx8mp_evk_states_8_mhz() {
    // `dtc -I dtb -O dts imx8mp-evk.dtb`: timer { compatible = "arm,armv8-timer";
    // clock-frequency = <8000000>; ... }
    assert_eq!(timer_frequency(&board("imx8mp-evk.dtb")), Some(8_000_000));
}

#[test]
fn qemu_and_most_boards_leave_it_to_firmware() {
    // QEMU's virt timer node has no clock-frequency, nor have the Pis' and RK3399's.
    assert_eq!(timer_frequency(&fixture("qemu-virt.dtb")), None);
    assert_eq!(timer_frequency(&fixture("qemu-virt-el3.dtb")), None);
    assert_eq!(timer_frequency(&board("bcm2837-rpi-3-b.dtb")), None);
    assert_eq!(timer_frequency(&board("rk3399-rockpro64.dtb")), None);
}

#[test]
fn found_by_path_or_by_compatible() {
    let at_path = minimal_tree("/uart@1c090000", |b| {
        b.begin("timer")
            .cells("clock-frequency", &[19_200_000])
            .end();
    });
    assert_eq!(timer_frequency(&at_path), Some(19_200_000));
    let by_compatible = minimal_tree("/uart@1c090000", |b| {
        b.begin("arch-timer")
            .str("compatible", "arm,armv7-timer")
            .cells("clock-frequency", &[24_000_000])
            .end();
    });
    assert_eq!(timer_frequency(&by_compatible), Some(24_000_000));
    let other = minimal_tree("/uart@1c090000", |b| {
        b.begin("clock").str("compatible", "fixed-clock");
        b.cells("clock-frequency", &[24_000_000]).end();
    });
    assert_eq!(timer_frequency(&other), None, "not the timer's clock");
}

#[test]
fn malformed_or_zero_is_none() {
    for value in [&[][..], &[0, 0, 0][..], &[0, 0, 0, 0][..], &[0; 8][..]] {
        let dtb = minimal_tree("/uart@1c090000", |b| {
            b.begin("timer").prop("clock-frequency", value).end();
        });
        assert_eq!(timer_frequency(&dtb), None, "{value:?}");
    }
    assert_eq!(timer_frequency(&[]), None);
    assert_eq!(timer_frequency(&fixture("garbage.dtb")), None);
    assert_eq!(timer_frequency(&fixture("truncated.dtb")), None);
}

#[test]
fn programmed_only_when_cntfrq_reads_zero() {
    assert_eq!(cntfrq_to_program(0, Some(8_000_000)), Some(8_000_000));
    assert_eq!(cntfrq_to_program(0, None), None);
    assert_eq!(cntfrq_to_program(0, Some(0)), None);
    assert_eq!(cntfrq_to_program(62_500_000, Some(8_000_000)), None);
    assert_eq!(cntfrq_to_program(1, None), None);
}
