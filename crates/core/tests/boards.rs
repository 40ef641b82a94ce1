//! Platform discovery from the device trees of real boards.
//!
//! The DTBs are Linux's, from Debian's arm64 kernel image package: `qemu/dtbs`
//! (which `test.sh` runs first) puts them into `$MAIRBENCH_DTB_DIR`, else
//! `${XDG_CACHE_HOME:-$HOME/.cache}/mairbench/dtbs`; they are not in the
//! repository. Every expected value below was read from the DTB decompiled with
//! `dtc -I dtb -O dts`. Board DTBs are what the kernel tree ships, before the
//! boot loader edits them: a `/memory` placeholder (the Pi 4's is empty) or
//! none at all (RK3399, H6), filled in by U-Boot or the Pi firmware at boot.

mod common;

use common::board;

use mairbench_core::platform::{
    discover, ConsoleInfo, ConsoleKind, Enable, MemRegion, Platform, Problem, Problems,
    PsciConduit, ARMV7, QEMU_VIRT,
};

const MIB: u64 = 1 << 20;

/// 16550 registers 4 bytes apart, accessed 32 bits wide (`reg-shift = <2>`,
/// `reg-io-width = <4>`): the Synopsys DesignWare APB UART of Rockchip and
/// Allwinner SoCs.
const DW_APB_UART: ConsoleKind = ConsoleKind::Ns16550 {
    reg_shift: 2,
    io_width: 4,
};

/// `dtb` with the one occurrence of `from` replaced by `to`, of the same length.
fn patched(mut dtb: Vec<u8>, from: &[u8], to: &[u8]) -> Vec<u8> {
    assert_eq!(from.len(), to.len());
    let at: Vec<_> = dtb
        .windows(from.len())
        .enumerate()
        .filter(|(_, w)| *w == from)
        .map(|(at, _)| at)
        .collect();
    assert_eq!(at.len(), 1, "{:?} must occur once", from.escape_ascii());
    dtb[at[0]..at[0] + to.len()].copy_from_slice(to);
    dtb
}

fn problems(list: &[Problem]) -> Problems {
    let mut set = Problems::NONE;
    list.iter().for_each(|&p| set.insert(p));
    set
}

/// What every board DTB gives: a valid tree, not QEMU, no bootargs.
fn assert_real_board(p: &Platform<'_>, model: &str) {
    assert!(p.dtb_ok);
    assert_eq!(p.model, model);
    assert!(!p.emulated);
    assert_eq!(p.bootargs, "");
    // Every problem has its sentence for the console.
    for problem in p.problems.iter() {
        assert!(!problem.message().is_empty());
    }
}

/// The stdout-path of both Pis is `serial1`, the mini-UART: an "8250-like"
/// `brcm,bcm2835-aux-uart`, driven as a 16550 with 32-bit registers 4 bytes apart
/// (as Linux's 8250_bcm2835aux does).
const PI_MINI_UART: &[u8] = b"serial1:115200n8\0";
/// The same DTB with the PL011 as console, as a boot loader leaves it when the
/// PL011 is wired to the header pins (Bluetooth disabled): stdout-path names
/// `serial0`, the PL011 at 0x7e201000 on the VideoCore bus. Same length, so the
/// DTB is patched in place.
const PI_PL011: &[u8] = b"serial0:115200n8\0";

#[test]
fn raspberry_pi_3_model_b() {
    let dtb = board("bcm2837-rpi-3-b.dtb");
    let p = discover(Some(&dtb));
    assert_real_board(&p, "Raspberry Pi 3 Model B");
    // Four cores released by spin-table, each polling its own word of the armstub.
    let cpus: Vec<_> = p.cpus().iter().map(|c| (c.mpidr, c.enable)).collect();
    let spin = |release| Enable::SpinTable { release };
    assert_eq!(
        cpus,
        [
            (0, spin(0xd8)),
            (1, spin(0xe0)),
            (2, spin(0xe8)),
            (3, spin(0xf0))
        ]
    );
    // The mini-UART at 0x7e215040 on the VideoCore bus, 0x3f215040 for the CPU.
    assert_eq!(p.console, mini_uart(0x3f21_5040));
    assert!(p.console_from_dtb);
    // The firmware's placeholder: `reg = <0x0 0x40000000>` (1 and 1 cells).
    let ram = MemRegion {
        base: 0,
        size: 1024 * MIB,
    };
    assert_eq!(p.ram_regions(), [ram]);
    assert!(p.ram_from_dtb);
    // Secondary cores use spin-table; there is no /psci.
    assert_eq!(p.psci, None);
    assert_eq!(p.problems, problems(&[Problem::NoPsci]));
}

#[test]
fn raspberry_pi_2_model_b_cpus_wait_on_their_mailboxes() {
    // Debian's armhf tree: /cpus names `brcm,bcm2836-smp` for CPUs 0xf00 to 0xf03, and
    // `local_intc@40000000` (`brcm,bcm2836-l1-intc`, reg <0x40000000 0x100>) sits on /soc,
    // whose ranges map it one to one. Each CPU's mailbox 3 set register: 0x8c + 16 × its
    // number.
    let dtb = board("all-armhf/bcm2836-rpi-2-b.dtb");
    let p = discover(Some(&dtb));
    assert_real_board(&p, "Raspberry Pi 2 Model B");
    let cpus: Vec<_> = p.cpus().iter().map(|c| (c.mpidr, c.enable)).collect();
    let mailbox = |set| Enable::Bcm2836 {
        mailbox: Some(set),
        armv7: ARMV7,
    };
    assert_eq!(
        cpus,
        [
            (0xf00, mailbox(0x4000_008c)),
            (0xf01, mailbox(0x4000_009c)),
            (0xf02, mailbox(0x4000_00ac)),
            (0xf03, mailbox(0x4000_00bc))
        ]
    );
    assert_eq!(p.unknown_enable, None);
    assert_eq!(p.psci, None);
}

#[test]
fn orange_pi_pc_cpus_name_no_method() {
    // Debian's armhf tree for the Allwinner H3 names no enable-method and has no /psci (U-Boot
    // adds it on the board, QEMU's orangepi-pc machine too): the CPUs are Enable::Other, for
    // the 32-bit image to start by PSCI once a /psci node is there.
    let dtb = board("all-armhf/sun8i-h3-orangepi-pc.dtb");
    let p = discover(Some(&dtb));
    let cpus: Vec<_> = p.cpus().iter().map(|c| (c.mpidr, c.enable)).collect();
    assert_eq!(cpus, (0..4).map(|m| (m, Enable::Other)).collect::<Vec<_>>());
    assert_eq!(p.unknown_enable, None);
    assert_eq!(p.psci, None);
}

fn mini_uart(base: u64) -> ConsoleInfo {
    ConsoleInfo {
        kind: ConsoleKind::Ns16550 {
            reg_shift: 2,
            io_width: 4,
        },
        base,
    }
}

#[test]
fn raspberry_pi_3_pl011_through_the_soc_ranges() {
    // /soc: ranges = <0x7e000000 0x3f000000 0x1000000 ...>.
    let dtb = patched(board("bcm2837-rpi-3-b.dtb"), PI_MINI_UART, PI_PL011);
    let p = discover(Some(&dtb));
    assert_eq!(
        p.console,
        ConsoleInfo {
            kind: ConsoleKind::Pl011,
            base: 0x3f20_1000
        }
    );
    assert!(p.console_from_dtb);
    assert_eq!(p.problems, problems(&[Problem::NoPsci]));
}

#[test]
fn raspberry_pi_4_model_b() {
    let dtb = board("bcm2711-rpi-4-b.dtb");
    let p = discover(Some(&dtb));
    assert_real_board(&p, "Raspberry Pi 4 Model B");
    // The mini-UART: 0x7e215040 on the VideoCore bus, 0xfe215040 for the CPU.
    assert_eq!(p.console, mini_uart(0xfe21_5040));
    assert!(p.console_from_dtb);
    // `memory@0 { reg = <0x0 0x0 0x0>; }`: empty until the firmware fills it.
    assert_eq!(p.ram_regions(), [QEMU_VIRT.ram]);
    assert!(!p.ram_from_dtb);
    assert_eq!(p.psci, None);
    assert_eq!(p.problems, problems(&[Problem::NoMemory, Problem::NoPsci]));
}

#[test]
fn raspberry_pi_4_pl011_through_the_soc_ranges() {
    // /soc has 1 address cell, the root 2:
    // ranges = <0x7e000000 0x0 0xfe000000 0x1800000 ...>.
    let dtb = patched(board("bcm2711-rpi-4-b.dtb"), PI_MINI_UART, PI_PL011);
    let p = discover(Some(&dtb));
    assert_eq!(
        p.console,
        ConsoleInfo {
            kind: ConsoleKind::Pl011,
            base: 0xfe20_1000
        }
    );
    assert!(p.console_from_dtb);
    assert_eq!(p.problems, problems(&[Problem::NoMemory, Problem::NoPsci]));
}

#[test]
fn rk3399_rockpro64() {
    // stdout-path = "serial2:1500000n8"; serial2 = "/serial@ff1a0000", a root
    // child with 2 address cells: "rockchip,rk3399-uart", "snps,dw-apb-uart".
    let dtb = board("rk3399-rockpro64.dtb");
    let p = discover(Some(&dtb));
    assert_real_board(&p, "Pine64 RockPro64 v2.1");
    // Four Cortex-A53 (cluster 0) and two Cortex-A72 (cluster 1), all started through PSCI.
    let mpidrs: Vec<_> = p.cpus().iter().map(|c| (c.mpidr, c.psci())).collect();
    assert_eq!(
        mpidrs,
        [
            (0, true),
            (1, true),
            (2, true),
            (3, true),
            (0x100, true),
            (0x101, true)
        ]
    );
    assert_eq!(
        p.console,
        ConsoleInfo {
            kind: DW_APB_UART,
            base: 0xff1a_0000
        }
    );
    assert!(p.console_from_dtb);
    assert_eq!(p.psci, Some(PsciConduit::Smc));
    // No memory node: U-Boot adds it.
    assert!(!p.ram_from_dtb);
    assert_eq!(p.problems, problems(&[Problem::NoMemory]));
}

#[test]
fn imx8mq_evk() {
    // stdout-path = "/soc@0/bus@30800000/serial@30860000": an i.MX UART
    // ("fsl,imx8mq-uart", "fsl,imx6q-uart"), UART1.
    let dtb = board("imx8mq-evk.dtb");
    let p = discover(Some(&dtb));
    assert_real_board(&p, "NXP i.MX8MQ EVK");
    assert_eq!(
        p.console,
        ConsoleInfo {
            kind: ConsoleKind::Imx,
            base: 0x3086_0000
        }
    );
    assert!(p.console_from_dtb);
    // memory@40000000: reg = <0x0 0x40000000 0x0 0xc0000000>.
    let ram = MemRegion {
        base: 0x4000_0000,
        size: 3072 * MIB,
    };
    assert_eq!(p.ram_regions(), [ram]);
    assert!(p.ram_from_dtb);
    assert_eq!(p.psci, Some(PsciConduit::Smc));
    assert_eq!(p.problems, Problems::NONE);
}

#[test]
fn imx8mp_evk_and_zcu102() {
    // i.MX8MP EVK: stdout-path = &uart2, "fsl,imx8mp-uart", "fsl,imx6q-uart" at
    // 0x30890000. ZCU102: stdout-path = "serial0:115200n8", serial0 = &uart0,
    // "xlnx,zynqmp-uart", "cdns,uart-r1p12" at 0xff000000.
    for (name, model, kind, base) in [
        (
            "imx8mp-evk.dtb",
            "NXP i.MX8MPlus EVK board",
            ConsoleKind::Imx,
            0x3089_0000,
        ),
        (
            "zynqmp-zcu102-rev1.0.dtb",
            "ZynqMP ZCU102 Rev1.0",
            ConsoleKind::Cadence,
            0xff00_0000,
        ),
    ] {
        let dtb = board(name);
        let p = discover(Some(&dtb));
        // Not assert_real_board: the ZCU102's DTB carries bootargs ("earlycon").
        assert!(p.dtb_ok && !p.emulated, "{name}");
        assert_eq!(p.model, model);
        assert_eq!(p.console, ConsoleInfo { kind, base }, "{name}");
        assert!(p.console_from_dtb, "{name}");
        for problem in p.problems.iter() {
            assert!(
                !matches!(
                    problem,
                    Problem::NoStdoutPath
                        | Problem::StdoutNotFound
                        | Problem::ConsoleUnsupported
                        | Problem::ConsoleNoAddress
                        | Problem::NoConsole
                ),
                "{name}: {problem:?}"
            );
        }
    }
}

#[test]
fn allwinner_h6_pine_h64() {
    // stdout-path = "serial0:115200n8"; serial0 = "/soc/serial@5000000",
    // "snps,dw-apb-uart" on a bus with empty (identity) ranges.
    let dtb = board("sun50i-h6-pine-h64.dtb");
    let p = discover(Some(&dtb));
    assert_real_board(&p, "Pine H64 model A");
    assert_eq!(
        p.console,
        ConsoleInfo {
            kind: DW_APB_UART,
            base: 0x0500_0000
        }
    );
    assert!(p.console_from_dtb);
    assert_eq!(p.psci, Some(PsciConduit::Smc));
    assert!(!p.ram_from_dtb);
    assert_eq!(p.problems, problems(&[Problem::NoMemory]));
}
