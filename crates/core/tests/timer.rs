//! The generic timer's frequency from the device tree, which the firmware writes to
//! CNTFRQ_EL0 when it is entered at EL3 and the register reads 0.

mod common;

use std::path::PathBuf;

use common::{fixture, minimal_tree};
use mairbench_core::counter::{Errata, Erratum};
use mairbench_core::platform::{
    cntfrq_to_program, counter_errata, counter_from_dtb, timer_frequency,
};

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

/// A board DTB of the census (`qemu/dtbs` puts every board of Debian's kernel package under
/// `all/<vendor>/`).
fn census(path: &str) -> Vec<u8> {
    board(&format!("all/{path}"))
}

/// The errata of a CPU of MIDR `midr` on the machine of `dtb`.
fn errata(dtb: Option<&[u8]>, midr: u64) -> Vec<Erratum> {
    counter_errata(dtb, Errata::NONE)
        .with_core(mairbench_core::cores::counter_erratum(midr))
        .iter()
        .collect()
}

#[test]
fn counter_errata_of_real_boards() {
    // Pine64 (Allwinner A64, Cortex-A53 r0p4): the timer node has allwinner,erratum-unknown1.
    let pine64 = census("allwinner/sun50i-a64-pine64-plus.dtb");
    assert_eq!(
        errata(Some(&pine64), 0x410f_d034),
        [Erratum::AllwinnerUnknown1]
    );
    // LS1043A RDB (Cortex-A53): fsl,erratum-a008585.
    let ls1043 = census("freescale/fsl-ls1043a-rdb.dtb");
    assert_eq!(errata(Some(&ls1043), 0x410f_d034), [Erratum::FslA008585]);
    // The Pi 4 and RK3399 carry none; a Cortex-A73 (the RK3399's big cores are A72s) by MIDR.
    let pi4 = board("bcm2711-rpi-4-b.dtb");
    assert_eq!(errata(Some(&pi4), 0x410f_d083), []);
    let rk3399 = board("rk3399-rockpro64.dtb");
    assert_eq!(errata(Some(&rk3399), 0x410f_d034), []);
    assert_eq!(
        errata(Some(&rk3399), 0x410f_d092),
        [Erratum::CortexA73_858921]
    );
    // No device tree, or a broken one: only the MIDR's.
    assert_eq!(errata(None, 0x410f_d034), []);
    assert_eq!(
        errata(Some(b"not a dtb"), 0x410f_d092),
        [Erratum::CortexA73_858921]
    );
}

#[test]
fn counter_errata_census() {
    // Every board DTB of Debian's package: the A64 boards and the LS1043A/LS2080A family name
    // their erratum (18 and 5 in bookworm's 6.1); none names the HiSilicon one any longer.
    let dir = std::path::Path::new(&std::env::var_os("MAIRBENCH_DTB_DIR").map_or_else(
        || {
            std::env::var_os("XDG_CACHE_HOME")
                .map(PathBuf::from)
                .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")))
                .unwrap()
                .join("mairbench/dtbs")
        },
        PathBuf::from,
    ))
    .join("all");
    let mut seen = std::collections::BTreeMap::<&str, usize>::new();
    for vendor in std::fs::read_dir(&dir).expect("qemu/dtbs ran").flatten() {
        for f in std::fs::read_dir(vendor.path())
            .into_iter()
            .flatten()
            .flatten()
        {
            let dtb = std::fs::read(f.path()).unwrap();
            for e in counter_errata(Some(&dtb), Errata::NONE).iter() {
                *seen.entry(e.name()).or_default() += 1;
            }
        }
    }
    println!("counter errata named by board DTBs: {seen:?}");
    assert!(
        seen.get("allwinner-unknown1").copied().unwrap_or(0) >= 10,
        "{seen:?}"
    );
    assert!(
        seen.get("fsl-a008585").copied().unwrap_or(0) >= 2,
        "{seen:?}"
    );
    assert!(!seen.contains_key("cortex-a73-858921"), "{seen:?}");
}

#[test]
fn the_trees_rate_below_el3_on_silicon_only() {
    // A board whose boot loader left CNTFRQ_EL0 at 0 or wrong: the tree's rate, as Linux.
    assert_eq!(counter_from_dtb(0, Some(8_000_000), false), Some(8_000_000));
    assert_eq!(
        counter_from_dtb(24_000_000, Some(8_000_000), false),
        Some(8_000_000)
    );
    // The same rate, no tree rate, or a zero: the register's.
    assert_eq!(counter_from_dtb(8_000_000, Some(8_000_000), false), None);
    assert_eq!(counter_from_dtb(8_000_000, None, false), None);
    assert_eq!(counter_from_dtb(8_000_000, Some(0), false), None);
    // QEMU's imx8mp-evk boots the board's tree (8 MHz) and counts 62.5 MHz: the register's.
    let imx = board("imx8mp-evk.dtb");
    let hz = timer_frequency(&imx).map(u64::from);
    assert_eq!(hz, Some(8_000_000));
    assert_eq!(counter_from_dtb(62_500_000, hz, true), None);
}
