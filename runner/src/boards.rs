//! QEMU's real boards' machines (`MAIRBENCH_MACHINE`), one table for both images: each
//! machine's architecture (the image that runs on it), its CPUs and RAM, the mode QEMU enters
//! it in, whether its device tree offers PSCI, the board's own device tree (from Debian's
//! kernel packages, fetched by `qemu/dtbs`) and QEMU's options for it. As measured with QEMU
//! 10.0.2 and the trees of Debian 12's `linux-image-*-arm64` and `linux-image-*-armmp`.

use crate::arch::Arch;

/// One board machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Board {
    /// QEMU's machine name, `MAIRBENCH_MACHINE`'s value.
    pub name: &'static str,
    /// The image that runs on it.
    pub arch: Arch,
    /// The board, as people call it.
    pub what: &'static str,
    /// Its CPUs and RAM, as the refusals of settings that do not apply say them.
    pub has: &'static str,
    /// The CPUs QEMU gives it.
    pub cpus: u64,
    /// The exception level (the 32-bit image: the mode, SVC 1, HYP 2) QEMU enters it at.
    pub el: u8,
    /// Whether `MAIRBENCH_EL=2` also boots it (`virtualization=on`) where it enters at EL1.
    pub el2_too: bool,
    /// Whether the board's device tree names PSCI (else no `MAIRBENCH_SEMIHOSTING=0`: no way
    /// to power off).
    pub psci: bool,
    /// The board's device tree, relative to the directory `qemu/dtbs` prints.
    pub dtb: &'static str,
    /// QEMU's options after `-machine NAME` and before `-dtb`: CPUs, RAM, the console (the
    /// UART of the tree's stdout-path on stdio, the ones before it on `null`).
    pub args: &'static [&'static str],
}

/// The console on the first UART (serial0).
const FIRST_UART: &[&str] = &["-nographic", "-monitor", "none", "-serial", "stdio"];

/// The board machines, AArch64's first.
pub const BOARDS: [Board; 9] = [
    // serial0 is the PL011, serial1 the mini-UART that the Pi's device tree names as console
    // (stdout-path serial1); QEMU starts both Pis at EL2, with the RAM the model has.
    Board {
        name: "raspi3b",
        arch: Arch::Aarch64,
        what: "Raspberry Pi 3B",
        has: "4 Cortex-A53 and 1 GiB",
        cpus: 4,
        el: 2,
        el2_too: false,
        psci: false,
        dtb: "bcm2837-rpi-3-b.dtb",
        args: &[
            "-nographic",
            "-monitor",
            "none",
            "-serial",
            "null",
            "-serial",
            "stdio",
        ],
    },
    Board {
        name: "raspi4b",
        arch: Arch::Aarch64,
        what: "Raspberry Pi 4B",
        has: "4 Cortex-A72 and 2 GiB",
        cpus: 4,
        el: 2,
        el2_too: false,
        psci: false,
        dtb: "bcm2711-rpi-4-b.dtb",
        args: &[
            "-nographic",
            "-monitor",
            "none",
            "-serial",
            "null",
            "-serial",
            "stdio",
        ],
    },
    // serial<i> is UART<i+1>; the EVK's stdout-path is UART2 (serial@30890000). RAM at
    // 0x40000000, entered non-secure at EL2, PSCI over SMC.
    Board {
        name: "imx8mp-evk",
        arch: Arch::Aarch64,
        what: "i.MX 8M Plus EVK",
        has: "4 Cortex-A53 and 6 GiB",
        cpus: 4,
        el: 2,
        el2_too: false,
        psci: true,
        dtb: "imx8mp-evk.dtb",
        args: &[
            "-smp",
            "4",
            "-m",
            "6G",
            "-nographic",
            "-monitor",
            "none",
            "-serial",
            "null",
            "-serial",
            "stdio",
        ],
    },
    // serial0 is UART0, the ZCU102's stdout-path; no sound (DisplayPort audio). 2 GiB, not the
    // board's 4: QEMU puts RAM beyond 2 GiB at 0x800000000 but writes /memory as one range
    // from 0, which would name the hole at 0x80000000 as RAM.
    Board {
        name: "xlnx-zcu102",
        arch: Arch::Aarch64,
        what: "ZCU102",
        has: "4 Cortex-A53 and 2 GiB",
        cpus: 4,
        el: 1,
        el2_too: true,
        psci: true,
        dtb: "zynqmp-zcu102-rev1.0.dtb",
        args: &[
            "-m",
            "2G",
            "-nographic",
            "-monitor",
            "none",
            "-audio",
            "none",
            "-serial",
            "stdio",
        ],
    },
    // The 32-bit boards, each with its tree from Debian's armhf kernel (all-armhf/). The
    // EVK: one Cortex-A7 and the board's 512 MiB at 0x80000000 (QEMU's default is 128 MiB),
    // entered in HYP mode, PSCI over SMC, the console UART1 (serial0).
    Board {
        name: "mcimx6ul-evk",
        arch: Arch::Armv7,
        what: "i.MX6UL EVK",
        has: "1 Cortex-A7 and 512 MiB",
        cpus: 1,
        el: 2,
        el2_too: false,
        psci: true,
        dtb: "all-armhf/imx6ul-14x14-evk.dtb",
        args: &[
            "-m",
            "512M",
            "-nographic",
            "-monitor",
            "none",
            "-serial",
            "stdio",
        ],
    },
    // Allwinner H3: four Cortex-A7 (the secondaries powered off until started; the tree
    // names no enable-method, so the 32-bit image starts them by PSCI), 1 GiB at 0x40000000,
    // HYP mode, PSCI over SMC (QEMU adds the /psci node), UART0.
    Board {
        name: "orangepi-pc",
        arch: Arch::Armv7,
        what: "Orange Pi PC",
        has: "4 Cortex-A7 and 1 GiB",
        cpus: 4,
        el: 2,
        el2_too: false,
        psci: true,
        dtb: "all-armhf/sun8i-h3-orangepi-pc.dtb",
        args: &[
            "-m",
            "1G",
            "-nographic",
            "-monitor",
            "none",
            "-serial",
            "stdio",
        ],
    },
    // BCM2836: four Cortex-A7 (secondaries wait in QEMU's boot stub for an address in their
    // mailboxes: the tree's enable-method is brcm,bcm2836-smp), 1 GiB at 0 of which the tree
    // names 960 MiB, SVC mode, no PSCI, the PL011 (serial0).
    Board {
        name: "raspi2b",
        arch: Arch::Armv7,
        what: "Raspberry Pi 2B",
        has: "4 Cortex-A7 and 1 GiB",
        cpus: 4,
        el: 1,
        el2_too: false,
        psci: false,
        dtb: "all-armhf/bcm2836-rpi-2-b.dtb",
        args: FIRST_UART,
    },
    // i.MX6Q: four Cortex-A9 (no LPAE, no generic timer), the board's 1 GiB at 0x10000000
    // (QEMU's default is 128 MiB), SVC mode, no PSCI; the console is UART2 (serial1).
    Board {
        name: "sabrelite",
        arch: Arch::Armv7,
        what: "i.MX6Q SABRE Lite",
        has: "4 Cortex-A9 and 1 GiB",
        cpus: 4,
        el: 1,
        el2_too: false,
        psci: false,
        dtb: "all-armhf/imx6q-sabrelite.dtb",
        args: &[
            "-m",
            "1G",
            "-nographic",
            "-monitor",
            "none",
            "-serial",
            "null",
            "-serial",
            "stdio",
        ],
    },
    // Allwinner A10: one Cortex-A8 (no LPAE, no generic timer), 1 GiB at 0x40000000, SVC
    // mode, no PSCI, UART0.
    Board {
        name: "cubieboard",
        arch: Arch::Armv7,
        what: "Cubieboard",
        has: "1 Cortex-A8 and 1 GiB",
        cpus: 1,
        el: 1,
        el2_too: false,
        psci: false,
        dtb: "all-armhf/sun4i-a10-cubieboard.dtb",
        args: &[
            "-m",
            "1G",
            "-nographic",
            "-monitor",
            "none",
            "-serial",
            "stdio",
        ],
    },
];

/// `virt`, then every board's name: `MAIRBENCH_MACHINE`'s values.
pub const MACHINES: [&str; 1 + BOARDS.len()] = {
    let mut names = ["virt"; 1 + BOARDS.len()];
    let mut i = 0;
    while i < BOARDS.len() {
        names[i + 1] = BOARDS[i].name;
        i += 1;
    }
    names
};

/// The board machine of this name (none for `virt`).
pub fn find(name: &str) -> Option<&'static Board> {
    BOARDS.iter().find(|b| b.name == name)
}

/// The names of the board machines an image runs on, space-separated.
pub fn names(arch: Arch) -> String {
    let names: Vec<&str> = BOARDS
        .iter()
        .filter(|b| b.arch == arch)
        .map(|b| b.name)
        .collect();
    names.join(" ")
}

impl Board {
    /// `qemu/dtbs`'s argument that fetches this board's tree: the Debian architecture of the
    /// kernel package it comes from.
    pub const fn package(&self) -> &'static str {
        match self.arch {
            Arch::Aarch64 => "arm64",
            Arch::Armv7 => "armhf",
        }
    }

    /// Its entry mode as the refusals say it: `EL2`, or for the 32-bit image `SVC mode
    /// (MAIRBENCH_EL=1)` or `HYP mode (MAIRBENCH_EL=2)`.
    pub fn entry(&self) -> String {
        match (self.arch, self.el) {
            (Arch::Aarch64, el) => format!("EL{el}"),
            (Arch::Armv7, 2) => "HYP mode (MAIRBENCH_EL=2)".to_owned(),
            (Arch::Armv7, _) => "SVC mode (MAIRBENCH_EL=1)".to_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_board_is_a_machine_once_with_its_own_tree() {
        assert_eq!(
            MACHINES,
            [
                "virt",
                "raspi3b",
                "raspi4b",
                "imx8mp-evk",
                "xlnx-zcu102",
                "mcimx6ul-evk",
                "orangepi-pc",
                "raspi2b",
                "sabrelite",
                "cubieboard"
            ]
        );
        let mut dtbs: Vec<&str> = BOARDS.iter().map(|b| b.dtb).collect();
        dtbs.sort_unstable();
        dtbs.dedup();
        assert_eq!(dtbs.len(), BOARDS.len(), "a tree each");
        for b in &BOARDS {
            // The 32-bit boards' trees are under all-armhf/, from the armhf package.
            let armhf = b.dtb.starts_with("all-armhf/");
            assert_eq!(armhf, b.arch == Arch::Armv7, "{}", b.name);
            assert_eq!(b.package(), if armhf { "armhf" } else { "arm64" });
            assert!(b.dtb.ends_with(".dtb"), "{}", b.name);
            assert!(b.has.starts_with(&format!("{} Cortex-A", b.cpus)), "{b:?}");
            assert!(matches!(b.el, 1 | 2), "{b:?}");
            // The console on stdio, the QEMU monitor off, no window.
            let args = b.args.join(" ");
            assert!(args.contains("-nographic -monitor none"), "{args}");
            assert!(args.ends_with("-serial stdio"), "{args}");
        }
        assert_eq!(find("virt"), None);
        assert_eq!(find("sabrelite").map(|b| b.arch), Some(Arch::Armv7));
    }

    #[test]
    fn the_settings_table_describes_every_board() {
        let machine = crate::settings::SETTINGS
            .iter()
            .find(|s| s.name == "MAIRBENCH_MACHINE")
            .unwrap();
        for b in &BOARDS {
            let cpus = b.has.split(" and ").next().unwrap();
            let said = format!("`{}` ({}", b.name, b.what);
            let at = machine
                .meaning
                .find(&said)
                .unwrap_or_else(|| panic!("{said}"));
            let rest = &machine.meaning[at..];
            let described = &rest[..rest.find(')').unwrap()];
            assert!(described.contains(&format!(" {cpus}, ")), "{described}");
        }
    }

    #[test]
    fn each_image_has_its_boards() {
        assert_eq!(
            names(Arch::Aarch64),
            "raspi3b raspi4b imx8mp-evk xlnx-zcu102"
        );
        assert_eq!(
            names(Arch::Armv7),
            "mcimx6ul-evk orangepi-pc raspi2b sabrelite cubieboard"
        );
        let entry = |name| find(name).unwrap().entry();
        assert_eq!(entry("mcimx6ul-evk"), "HYP mode (MAIRBENCH_EL=2)");
        assert_eq!(entry("cubieboard"), "SVC mode (MAIRBENCH_EL=1)");
        assert_eq!(entry("raspi4b"), "EL2");
    }
}
