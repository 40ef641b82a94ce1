//! The runner's settings: one table ([`SETTINGS`]) of every `MAIRBENCH_*` variable the runner
//! reads, its meaning, its default and what a value must look like. `docs/runner.md`'s table is
//! rendered from it ([`write_markdown`]; `runner/tests/settings_doc.rs` checks the document,
//! `MAIRBENCH_BLESS=1` rewrites it), and [`Env`] answers only for names of the table.

use std::collections::BTreeMap;
use std::fmt::Write as _;

/// One setting: an environment variable of the runner.
#[derive(Debug)]
pub struct Setting {
    /// The variable, `MAIRBENCH_…`.
    pub name: &'static str,
    /// What it means (Markdown, one table cell).
    pub meaning: &'static str,
    /// Its default, in words (Markdown, one table cell).
    pub default: &'static str,
    /// What a value must be; any other is refused with status 2 before any tool runs.
    pub valid: Valid,
}

/// What a setting's value must be.
#[derive(Debug)]
pub enum Valid {
    /// Any text.
    Any,
    /// One of these words.
    OneOf(&'static [&'static str]),
    /// A whole number from `min` to `max`, written without a sign or leading zero; `what`
    /// names it in the message.
    Number {
        /// The smallest value.
        min: u64,
        /// The largest value.
        max: u64,
        /// What the value is, in words ("whole seconds").
        what: &'static str,
    },
    /// A hex address, `0x…`.
    Hex,
    /// A power of two in MiB: `16M`.
    PowerOfTwoMiB,
    /// Any text without a comma (QEMU would read it as the start of an option).
    NoComma,
}

/// The boot paths, `MAIRBENCH_BOOT`'s values.
pub const BOOTS: [&str; 8] = [
    "kernel",
    "uboot",
    "uboot-bootm",
    "uboot-script",
    "uefi",
    "uefi-dt",
    "uboot-efi",
    "linux",
];

/// The images' architectures, `MAIRBENCH_ARCH`'s values.
pub const ARCHS: [&str; 2] = ["aarch64", "armv7"];

/// The machines, `MAIRBENCH_MACHINE`'s values: `virt` and the boards' of
/// [`crate::boards::BOARDS`].
pub use crate::boards::MACHINES;

impl Valid {
    /// `Err` with the message (naming `name`) when `value` is not valid.
    pub fn check(&self, name: &str, value: &str) -> Result<(), String> {
        let ok = match self {
            Valid::Any => true,
            Valid::OneOf(words) => words.contains(&value),
            Valid::Number { min, max, .. } => number(value).is_some_and(|n| n >= *min && n <= *max),
            Valid::Hex => value.strip_prefix("0x").is_some_and(|h| {
                !h.is_empty() && h.len() <= 16 && h.chars().all(|c| c.is_ascii_hexdigit())
            }),
            Valid::PowerOfTwoMiB => value
                .strip_suffix('M')
                .and_then(number)
                .is_some_and(|n| n > 0 && n.is_power_of_two()),
            Valid::NoComma => !value.contains(','),
        };
        if ok {
            return Ok(());
        }
        Err(match self {
            Valid::Any => unreachable!("any value is valid"),
            Valid::OneOf(words) => format!("{name} must be {}, not '{value}'", either(words)),
            Valid::Number { what, .. } => format!("{name} must be {what}, not '{value}'"),
            Valid::Hex => format!("{name} must be a hex address, not '{value}'"),
            Valid::PowerOfTwoMiB => {
                format!("{name} must be a power of two in MiB (e.g. 16M), not '{value}'")
            }
            Valid::NoComma => format!("{name} cannot contain a comma: {value}"),
        })
    }
}

/// A whole number without sign or leading zero (`0` itself allowed).
fn number(text: &str) -> Option<u64> {
    let digits = !text.is_empty() && text.chars().all(|c| c.is_ascii_digit());
    (digits && (text == "0" || !text.starts_with('0')))
        .then(|| text.parse().ok())
        .flatten()
}

/// `"a, b or c"`.
pub fn either(words: &[&str]) -> String {
    match words {
        [] => String::new(),
        [one] => (*one).to_owned(),
        [rest @ .., last] => format!("{} or {last}", rest.join(", ")),
    }
}

/// Every setting of the runner, in the order `docs/runner.md` lists them. `MAIRBENCH_INSTALL`
/// is read by `qemu/deps`, which the runner calls.
pub const SETTINGS: &[Setting] = &[
    Setting {
        name: "MAIRBENCH_ARCH",
        meaning: r#"which image: `aarch64` (`aarch64-unknown-none`, booted by `qemu-system-aarch64`) or `armv7` (the 32-bit image, `armv7-unknown-linux-gnueabihf`, a `no_std` executable all the same, booted by `qemu-system-arm`: see "The 32-bit image" below). `./run.sh` builds and runs the image it names; `qemu/run` boots the ELF it is given, whose `e_machine` says which it is (183 AArch64, 40 Arm; any other file is refused with status 2), and refuses with status 2 an ELF of the other architecture than the one this names"#,
        default: r#"`aarch64`; `qemu/run`: the ELF's"#,
        valid: Valid::OneOf(&ARCHS),
    },
    Setting {
        name: "MAIRBENCH_CPU",
        meaning: r#"QEMU CPU model (`cortex-a53`, `cortex-a72`, `max`, …); one this QEMU does not offer for `virt` (`qemu-system-aarch64 -machine virt -cpu help`) is refused with status 2, the models it offers named; so is a 32-bit model (`cortex-a7`, `cortex-a15`, …: those `qemu-system-arm` offers too, but `max`), on which the AArch64 image cannot run, the refusal naming `MAIRBENCH_ARCH=armv7`. The 32-bit image runs on the models `qemu-system-arm`'s `virt` takes, `cortex-a7`, `cortex-a15` and `max`; a 64-bit model, or another 32-bit one (`cortex-a8`, `cortex-a9`: board machines only), is refused with status 2, those named"#,
        default: r#"`cortex-a72`; `armv7`: `cortex-a7`"#,
        valid: Valid::Any,
    },
    Setting {
        name: "MAIRBENCH_ACCEL",
        meaning: r#"how QEMU runs the guest, passed on as `mairbench.accel=`: `tcg` translates every instruction and models no caches (the run is emulated, its timing verdicts `n/a`); `kvm` runs it on the host's own cores and caches (`-accel kvm -cpu host`, `virt` at EL1 only, on an arm64 host with `/dev/kvm`; elsewhere status 3 and why): its timings count and its verdicts are judged, as a KVM guest's (see "In a guest" in [verdicts.md](verdicts.md))"#,
        default: r#"`tcg`"#,
        valid: Valid::OneOf(&["tcg", "kvm"]),
    },
    Setting {
        name: "MAIRBENCH_EL",
        meaning: r#"entry exception level: 1 plain, 2 `virtualization=on`, 3 `secure=on`; the 32-bit image is entered in SVC mode (1) or HYP mode (2), and 3 is refused"#,
        default: r#"`1`"#,
        valid: Valid::OneOf(&["1", "2", "3"]),
    },
    Setting {
        name: "MAIRBENCH_BOOT",
        meaning: r#"`kernel`: QEMU `-kernel`; `uboot`: Debian's U-Boot as `-bios`, running `booti` without a prompt; `uboot-bootm`: U-Boot's `bootm` of a standalone uImage (MMU and caches on at entry, no DTB in x0); `uboot-script`: U-Boot's distro boot finds `boot.scr` (`boot/boot.cmd`) on a virtio FAT disk; `uefi`: EDK2 (Debian's `qemu-efi-aarch64`) with QEMU's ACPI tables starts the image as a UEFI application from a FAT disk (its shell's `startup.nsh`, the bootargs as load options); `uefi-dt`: the same with `-machine virt,acpi=off` (the device tree as a configuration table); `uboot-efi`: U-Boot's `bootefi` of the image from that disk (see [uefi.md](uefi.md)); `linux`: Debian's arm64 Linux 6.12 (bookworm-backports, fetched once by `qemu/deps linux`) with an initramfs the runner writes, running the Linux twin with the bootargs as its arguments (see [twin.md](twin.md)). The 32-bit image boots by `kernel` (QEMU's `-kernel`, the Linux protocol: SVC mode, r2 = the device tree) by `uboot`, which is then `bootz` of its zImage header in Debian's `qemu_arm` U-Boot, and by `uboot-bootm`, which is then that U-Boot's `bootm` of a Linux kernel uImage (`mkimage -A arm -O linux -T kernel`: entered as by `bootz`, at `MAIRBENCH_LOAD`, r2 = U-Boot's device tree); its `linux` boot is Debian's armhf LPAE Linux 6.12 (`linux-image-armmp-lpae`, fetched once by `qemu/deps linux-armhf`) on `virt` running the 32-bit twin; the other paths are refused with status 2 for now"#,
        default: r#"`kernel`"#,
        valid: Valid::OneOf(&BOOTS),
    },
    Setting {
        name: "MAIRBENCH_BOOTDELAY",
        meaning: r#"U-Boot's autoboot delay, whole seconds (0 to 3600), on the U-Boot paths: the time a person or `cargo host console` has to stop it"#,
        default: r#"`5` with `MAIRBENCH_SERIAL=pty` (the stand-in board), else `0`"#,
        valid: Valid::Number {
            min: 0,
            max: 3600,
            what: "whole seconds (0 to 3600)",
        },
    },
    Setting {
        name: "MAIRBENCH_TWIN",
        meaning: r#"`linux` boot: the twin executable to put in the initramfs (`none`: `/init` only prints what the sources rely on: `/dev/udmabuf`, `/dev/dma_heap`, `/dev/dri`, the PCI devices and BARs)"#,
        default: r#"`mairbench-linux` next to the image, built first when the image is this workspace's release firmware"#,
        valid: Valid::Any,
    },
    Setting {
        name: "MAIRBENCH_IVSHMEM",
        meaning: r#"`linux` boot: size of the `ivshmem-plain` PCI device's RAM-backed BAR (a power of two, e.g. `16M`)"#,
        default: r#"`16M`"#,
        valid: Valid::PowerOfTwoMiB,
    },
    Setting {
        name: "MAIRBENCH_LINUX_DIR",
        meaning: r#"`linux` boot: where Debian's arm64 kernel and busybox are cached (`qemu/deps linux` fetches them there); a kernel of the other architecture there is refused with status 2"#,
        default: r#"`~/.cache/mairbench/linux`"#,
        valid: Valid::Any,
    },
    Setting {
        name: "MAIRBENCH_LINUX_ARMHF_DIR",
        meaning: r#"`linux` boot of the 32-bit twin (`MAIRBENCH_ARCH=armv7`): where Debian's armhf LPAE kernel and busybox are cached (`qemu/deps linux-armhf` fetches them there); a kernel of the other architecture there is refused with status 2"#,
        default: r#"`~/.cache/mairbench/linux-armhf`"#,
        valid: Valid::Any,
    },
    Setting {
        name: "MAIRBENCH_LINUX_MODULES",
        meaning: r#"`linux` boot: `vgem`: `/init` loads vgem and what it depends on (kept by `qemu/deps linux`), giving `/dev/dri/card0` with no device behind it; `none`: no module (see [twin-qemu.md](twin-qemu.md#in-qemu))"#,
        default: r#"`vgem`"#,
        valid: Valid::OneOf(&["vgem", "none"]),
    },
    Setting {
        name: "MAIRBENCH_LINUX_DEVICES",
        meaning: r#"`linux` boot: extra QEMU `-device` specs, space-separated (e.g. `bochs-display,romfile=`: see [twin-qemu.md](twin-qemu.md#in-qemu))"#,
        default: r#"none"#,
        valid: Valid::Any,
    },
    Setting {
        name: "MAIRBENCH_HOST_BOOTARG",
        meaning: r#"`0`: leave out `mairbench.host=`, as a board machine booted by hand would be; the firmware then judges the run emulated only by QEMU's tells (its PMU's event list, a cycle counter in virtual nanoseconds, CNTFRQ_EL0 not the device tree's)"#,
        default: r#"`1`"#,
        valid: Valid::OneOf(&["0", "1"]),
    },
    Setting {
        name: "MAIRBENCH_UEFI_IMAGE",
        meaning: r#"`0`: the UEFI paths' disk without the image (the firmware never starts it: a test of the runner's time limit)"#,
        default: r#"`1`"#,
        valid: Valid::OneOf(&["0", "1"]),
    },
    Setting {
        name: "MAIRBENCH_SMP",
        meaning: r#"CPU count (on `virt`, more than 8 take a GICv3)"#,
        default: r#"`1`"#,
        valid: Valid::Number {
            min: 1,
            max: u64::MAX,
            what: "a CPU count",
        },
    },
    Setting {
        name: "MAIRBENCH_CLUSTERS",
        meaning: r#"`virt`: the CPUs split evenly into this many clusters (`-smp N,clusters=C,cores=N/C`), which QEMU's device tree (`cpu-map`) and ACPI PPTT then name: the firmware sweeps each cluster on its own CPU (one CPU model still runs them all); a count that does not divide `MAIRBENCH_SMP` is refused"#,
        default: r#"`1`"#,
        valid: Valid::Number {
            min: 1,
            max: u64::MAX,
            what: "a count of clusters that divides MAIRBENCH_SMP evenly",
        },
    },
    Setting {
        name: "MAIRBENCH_GIC",
        meaning: r#"`virt`'s interrupt controller: `2` (at most 8 CPUs) or `3`"#,
        default: r#"`2`, `3` above 8 CPUs"#,
        valid: Valid::OneOf(&["2", "3"]),
    },
    Setting {
        name: "MAIRBENCH_ICOUNT",
        meaning: r#"`1`: deterministic virtual time (`-icount shift=0,sleep=off`)"#,
        default: r#"off"#,
        valid: Valid::OneOf(&["0", "1"]),
    },
    Setting {
        name: "MAIRBENCH_LOAD",
        meaning: r#"load address of the image on the U-Boot path (2 MiB-aligned; `uboot-script`: U-Boot's `kernel_addr_r`, which a set value replaces)"#,
        default: r#"`0x40400000`"#,
        valid: Valid::Hex,
    },
    Setting {
        name: "MAIRBENCH_INSTALL",
        meaning: r#"`0`: install and download nothing (`qemu/deps`, `lava/deps`): a missing package is named and the run ends with status 3 (the tests run with it; `./test.sh` installs everything first)"#,
        default: r#"`1`"#,
        valid: Valid::OneOf(&["0", "1"]),
    },
    Setting {
        name: "MAIRBENCH_MACHINE",
        meaning: r#"`virt`, or a real board's machine booted with the board's own DTB from Debian's arm64 kernel package (armhf for the 32-bit boards below; kernel boot only, the machine's CPUs and RAM, the UART of the DTB's stdout-path on stdio): `raspi3b` (Raspberry Pi 3B: 4 Cortex-A53, 1 GiB, EL2, spin-table, no PSCI, mini-UART), `raspi4b` (Raspberry Pi 4B: 4 Cortex-A72, 2 GiB, EL2, spin-table, no PSCI, mini-UART), `imx8mp-evk` (i.MX 8M Plus EVK: 4 Cortex-A53, 6 GiB, EL2, PSCI, i.MX UART2), `xlnx-zcu102` (ZCU102: 4 Cortex-A53, 2 GiB, EL1 or with `MAIRBENCH_EL=2` EL2, PSCI, Cadence UART0); each machine's CPUs are started (spin-table on the Pis, PSCI on the others). The 32-bit image (`MAIRBENCH_ARCH=armv7`) runs on `virt` and on 32-bit boards' machines, each with its tree from Debian's armhf kernel package: `mcimx6ul-evk` (i.MX6UL EVK: 1 Cortex-A7, 512 MiB, HYP mode, PSCI, i.MX UART1), `orangepi-pc` (Orange Pi PC, Allwinner H3: 4 Cortex-A7, 1 GiB, HYP mode, PSCI, UART0), `raspi2b` (Raspberry Pi 2B: 4 Cortex-A7, 1 GiB, SVC mode, no PSCI, PL011), `sabrelite` (i.MX6Q SABRE Lite: 4 Cortex-A9, 1 GiB, SVC mode, no PSCI, i.MX UART2), `cubieboard` (Cubieboard, Allwinner A10: 1 Cortex-A8, 1 GiB, SVC mode, no PSCI, UART0); the Orange Pi PC's CPUs are started by PSCI (its tree names no enable-method: as Linux's ARM code, the image then takes QEMU's `/psci`), the Pi 2B's through their `brcm,bcm2836-smp` mailboxes, the SABRE Lite's not (only its boot CPU runs), and on the Cortex-A9 and A8, which have no generic timer and no LPAE, the image builds short-descriptor tables and times the run by the SoC's timer (the i.MX6 GPT, the A10's timer 1; see [armv7.md](armv7.md)). A board of the other image's architecture is refused with status 2, naming the boards that image runs on"#,
        default: r#"`virt`"#,
        valid: Valid::OneOf(&MACHINES),
    },
    Setting {
        name: "MAIRBENCH_DTB",
        meaning: r#"device tree for a real board's machine; for `virt`, one in place of QEMU's own (`-dtb`): QEMU still writes `/memory` and `/chosen`, the rest must describe the same machine (dump it with `qemu-system-aarch64 -M virt,dumpdtb=virt.dtb -cpu cortex-a72 -m 256M -nographic` and the same `-smp`, then add nodes such as `/reserved-memory`)"#,
        default: r#"a board's machine: that board's, fetched by `qemu/dtbs`; `virt`: none"#,
        valid: Valid::Any,
    },
    Setting {
        name: "MAIRBENCH_MEM",
        meaning: r#"RAM size; the 32-bit image's `virt` (`highmem=off`) has at most `3G`, from 0x4000_0000 to 4 GiB, and more is refused with status 2"#,
        default: r#"`256M`; `linux` boot `512M`"#,
        valid: Valid::Any,
    },
    Setting {
        name: "MAIRBENCH_TIMEOUT",
        meaning: r#"seconds before QEMU is killed"#,
        default: r#"`60`"#,
        valid: Valid::Number {
            min: 1,
            max: u64::MAX,
            what: "whole seconds",
        },
    },
    Setting {
        name: "MAIRBENCH_LOG",
        meaning: r#"file that keeps the whole console log, records included"#,
        default: r#"on a terminal `target/mairbench-logs/<time>-<pid>.log`, named at the end; else none"#,
        valid: Valid::Any,
    },
    Setting {
        name: "MAIRBENCH_RECORDS",
        meaning: r#"`1`: print the `@mb {json}` records; `0`: the human lines only (the log keeps everything)"#,
        default: r#"`0` when stdout is a terminal; `1` when piped or redirected (the host tool and scripts read them)"#,
        valid: Valid::OneOf(&["0", "1"]),
    },
    Setting {
        name: "MAIRBENCH_SEMIHOSTING",
        meaning: r#"`0`: no `-semihosting`, the firmware powers off through PSCI"#,
        default: r#"`1`"#,
        valid: Valid::OneOf(&["0", "1"]),
    },
    Setting {
        name: "MAIRBENCH_SERIAL",
        meaning: r#"`pty`: a stand-in board for `cargo host console` (`MAIRBENCH_BOOT=uboot` or `uboot-script` only; elsewhere status 2): QEMU's UART goes to a pseudo-terminal, named on stderr in one line, `mairbench: serial console on /dev/pts/N`; the runner types nothing, U-Boot counts down `MAIRBENCH_BOOTDELAY` seconds and, unless someone stops it, boots as the path does; `mairbench.bin` is also on a virtio MBR+FAT disk (`virtio scan; load virtio 0:1 ${kernel_addr_r} mairbench.bin`). The log is kept (QEMU's log of the terminal), printed on stdout when QEMU exits and judged as always; QEMU still exits when the firmware ends, or at `MAIRBENCH_TIMEOUT`; `none`: no serial line at all (`virt` only, `-serial none`): nothing is logged and the run is judged by QEMU's exit status alone (the firmware's semihosting `SYS_EXIT`, so not with `MAIRBENCH_SEMIHOSTING=0`); what the firmware says is on a framebuffer (`MAIRBENCH_DISPLAY`, `mairbench.console=fb`)"#,
        default: r#"`stdio`: the console on stdout"#,
        valid: Valid::OneOf(&["stdio", "pty", "none"]),
    },
    Setting {
        name: "MAIRBENCH_DISPLAY",
        meaning: r#"`ramfb`: QEMU's `ramfb` display device (`virt` only), which EDK2 (`MAIRBENCH_BOOT=uefi`; Debian's `QEMU_EFI.fd` has `QemuRamfbDxe`) offers as the GOP framebuffer; nothing is shown (`-nographic`): read it with `screendump` through `MAIRBENCH_MONITOR`. QEMU says on stderr that it has no `vgabios-ramfb.bin` (an x86 option ROM; harmless)"#,
        default: r#"`none`"#,
        valid: Valid::OneOf(&["ramfb", "none"]),
    },
    Setting {
        name: "MAIRBENCH_MONITOR",
        meaning: r#"a path: QEMU's human monitor listens on a Unix socket there (it does not wait for a client), for `screendump "FILE"`, `pmemsave ADDR SIZE "FILE"` (quote the file: HMP reads an unquoted `/` as a division) and the like while the run goes on; `host/tests/boot/framebuffer.rs` reads the screen this way"#,
        default: r#"none (`-monitor none`)"#,
        valid: Valid::NoComma,
    },
    Setting {
        name: "MAIRBENCH_GDB",
        meaning: r#"`1`: QEMU starts halted with a gdb stub, and the runner prints the one command that attaches with symbols (`gdb-multiarch -q target/aarch64-unknown-none/release/mairbench -ex 'target remote :1234'`; `qemu/deps gdb` installs gdb-multiarch). No time limit then, unless `MAIRBENCH_TIMEOUT` is set"#,
        default: r#"`0`"#,
        valid: Valid::OneOf(&["0", "1"]),
    },
    Setting {
        name: "MAIRBENCH_GDB_PORT",
        meaning: r#"TCP port of the gdb stub"#,
        default: r#"`1234`"#,
        valid: Valid::Number {
            min: 1,
            max: 65535,
            what: "a TCP port",
        },
    },
];

/// The setting called `name`.
pub fn setting(name: &str) -> Option<&'static Setting> {
    SETTINGS.iter().find(|s| s.name == name)
}

/// The runner's environment: the values of the table's variables that are set and not empty
/// (an empty value means the default, as an unset one).
#[derive(Debug, Clone, Default)]
pub struct Env(BTreeMap<String, String>);

impl Env {
    /// The settings of this process's environment.
    pub fn from_process() -> Env {
        Env::from_pairs(std::env::vars().filter(|(k, _)| setting(k).is_some()))
    }

    /// Settings from `(name, value)` pairs (a later pair replaces an earlier one).
    pub fn from_pairs<K: Into<String>, V: Into<String>>(
        pairs: impl IntoIterator<Item = (K, V)>,
    ) -> Env {
        Env(pairs
            .into_iter()
            .map(|(k, v)| (k.into(), v.into()))
            .filter(|(_, v)| !v.is_empty())
            .collect())
    }

    /// The value of setting `name`, when set. Panics for a name the table lacks: every
    /// setting the runner reads is in [`SETTINGS`].
    pub fn get(&self, name: &str) -> Option<&str> {
        assert!(
            setting(name).is_some(),
            "{name} is not in the settings table"
        );
        self.0.get(name).map(String::as_str)
    }

    /// Whether setting `name` is set.
    pub fn is_set(&self, name: &str) -> bool {
        self.get(name).is_some()
    }

    /// Checks every value that is set against its setting's [`Valid`].
    pub fn validate(&self) -> Result<(), String> {
        for s in SETTINGS {
            if let Some(value) = self.get(s.name) {
                s.valid.check(s.name, value)?;
            }
        }
        Ok(())
    }
}

/// Writes the settings table of `docs/runner.md`: a header row, then one row per setting.
pub fn write_markdown(out: &mut String) {
    out.push_str("| variable | meaning | default |\n| --- | --- | --- |\n");
    for s in SETTINGS {
        let _ = writeln!(out, "| `{}` | {} | {} |", s.name, s.meaning, s.default);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_checked_as_the_table_says() {
        let check = |name: &str, value: &str| setting(name).unwrap().valid.check(name, value);
        assert_eq!(
            check("MAIRBENCH_ACCEL", "hvf").unwrap_err(),
            "MAIRBENCH_ACCEL must be tcg or kvm, not 'hvf'"
        );
        assert!(check("MAIRBENCH_SMP", "16").is_ok());
        for bad in ["0", "zero", "01", "-1", ""] {
            assert!(check("MAIRBENCH_SMP", bad).is_err(), "{bad}");
        }
        assert!(check("MAIRBENCH_BOOTDELAY", "0").is_ok());
        assert!(check("MAIRBENCH_BOOTDELAY", "3601").is_err());
        assert!(check("MAIRBENCH_GDB_PORT", "65536").is_err());
        assert!(check("MAIRBENCH_LOAD", "0x40400000").is_ok());
        assert!(check("MAIRBENCH_LOAD", "high").is_err());
        assert!(check("MAIRBENCH_IVSHMEM", "16M").is_ok());
        assert!(check("MAIRBENCH_IVSHMEM", "24M").is_err());
        assert_eq!(
            check("MAIRBENCH_MONITOR", "/tmp/a,b").unwrap_err(),
            "MAIRBENCH_MONITOR cannot contain a comma: /tmp/a,b"
        );
        assert_eq!(
            check("MAIRBENCH_BOOT", "pxe").unwrap_err(),
            "MAIRBENCH_BOOT must be kernel, uboot, uboot-bootm, uboot-script, uefi, uefi-dt, \
             uboot-efi or linux, not 'pxe'"
        );
    }

    #[test]
    fn names_are_unique_and_empty_values_unset() {
        for (i, s) in SETTINGS.iter().enumerate() {
            assert!(s.name.starts_with("MAIRBENCH_"), "{}", s.name);
            assert!(SETTINGS[..i].iter().all(|t| t.name != s.name), "{}", s.name);
            assert!(
                !s.meaning.contains('\n') && !s.default.contains('\n'),
                "{}",
                s.name
            );
        }
        let env = Env::from_pairs([("MAIRBENCH_EL", ""), ("MAIRBENCH_SMP", "2")]);
        assert_eq!(
            (env.get("MAIRBENCH_EL"), env.get("MAIRBENCH_SMP")),
            (None, Some("2"))
        );
    }
}
