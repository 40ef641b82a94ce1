//! The settings of one run, read from [`Env`] and checked against each other: every refusal
//! (status 2) is said here, before any tool runs.

use crate::arch::{Arch, MAX_MEM_32_MIB};
use crate::boards::{self, Board};
use crate::settings::Env;
use std::path::PathBuf;

/// A boot path, `MAIRBENCH_BOOT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Boot {
    /// QEMU's `-kernel` (the generic loader at EL3).
    Kernel,
    /// U-Boot's `booti`.
    Uboot,
    /// U-Boot's `bootm` of a standalone uImage.
    UbootBootm,
    /// U-Boot's distro boot of `boot.scr` on a FAT disk.
    UbootScript,
    /// EDK2 with QEMU's ACPI tables.
    Uefi,
    /// EDK2 with the device tree (`acpi=off`).
    UefiDt,
    /// U-Boot's `bootefi`.
    UbootEfi,
    /// Debian's arm64 Linux with the twin in an initramfs.
    Linux,
}

impl Boot {
    fn from(name: &str) -> Boot {
        match name {
            "uboot" => Boot::Uboot,
            "uboot-bootm" => Boot::UbootBootm,
            "uboot-script" => Boot::UbootScript,
            "uefi" => Boot::Uefi,
            "uefi-dt" => Boot::UefiDt,
            "uboot-efi" => Boot::UbootEfi,
            "linux" => Boot::Linux,
            _ => Boot::Kernel,
        }
    }

    /// Whether U-Boot runs first (`uboot`, `uboot-bootm`, `uboot-script`, `uboot-efi`).
    pub fn is_uboot(self) -> bool {
        matches!(
            self,
            Boot::Uboot | Boot::UbootBootm | Boot::UbootScript | Boot::UbootEfi
        )
    }

    /// Whether EDK2 runs first.
    pub fn is_uefi(self) -> bool {
        matches!(self, Boot::Uefi | Boot::UefiDt)
    }
}

/// Where the console goes, `MAIRBENCH_SERIAL`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Serial {
    /// On the runner's stdout.
    Stdio,
    /// On a pseudo-terminal (a stand-in board).
    Pty,
    /// Nowhere: judged by QEMU's exit status.
    None,
}

/// One run's settings, checked.
#[derive(Debug, Clone)]
pub struct Config {
    /// The settings as given (for the ones read where they are used).
    pub env: Env,
    /// The image's architecture: its ELF's, which `MAIRBENCH_ARCH` must agree with.
    pub arch: Arch,
    /// `MAIRBENCH_MACHINE`.
    pub machine: &'static str,
    /// `MAIRBENCH_BOOT`, by name.
    pub boot_name: &'static str,
    /// `MAIRBENCH_BOOT`.
    pub boot: Boot,
    /// `MAIRBENCH_CPU`.
    pub cpu: String,
    /// `MAIRBENCH_ACCEL=kvm`.
    pub kvm: bool,
    /// The entry exception level.
    pub el: u8,
    /// `MAIRBENCH_SMP`.
    pub smp: u64,
    /// `MAIRBENCH_CLUSTERS`: the CPUs split evenly into this many clusters.
    pub clusters: u64,
    /// `virt`'s GIC version.
    pub gic: u8,
    /// `MAIRBENCH_MEM`.
    pub mem: String,
    /// `MAIRBENCH_LOAD`, as written.
    pub load: String,
    /// Seconds before QEMU is killed; 0: no limit (a gdb session).
    pub limit: u64,
    /// `MAIRBENCH_SEMIHOSTING=1`.
    pub semihosting: bool,
    /// `MAIRBENCH_SERIAL`.
    pub serial: Serial,
    /// `MAIRBENCH_DISPLAY=ramfb`.
    pub ramfb: bool,
    /// `MAIRBENCH_MONITOR`.
    pub monitor: Option<String>,
    /// U-Boot's autoboot delay, seconds.
    pub bootdelay: u64,
    /// `MAIRBENCH_ICOUNT=1`.
    pub icount: bool,
    /// The gdb stub's port, with `MAIRBENCH_GDB=1`.
    pub gdb: Option<u16>,
    /// `MAIRBENCH_DTB`.
    pub dtb: Option<PathBuf>,
}

/// The number setting `name` holds (checked by the table), else `default`.
fn number<T: std::str::FromStr>(env: &Env, name: &str, default: T) -> T {
    env.get(name)
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The image's architecture: `image`, its ELF's (when known), which `MAIRBENCH_ARCH` must name
/// when set, else `MAIRBENCH_ARCH`'s, else AArch64.
fn image_arch(image: Option<Arch>, env: &Env) -> Result<Arch, String> {
    let named = env.get("MAIRBENCH_ARCH").map(Arch::from_name);
    match (image, named) {
        (Some(image), Some(named)) if image != named => Err(format!(
            "MAIRBENCH_ARCH={} names {}, but the image given is {} ({}): build it with \
                     --target {} (./run.sh does with MAIRBENCH_ARCH={0})",
            named.name(),
            named.image(),
            image.image(),
            image.target(),
            named.target(),
        )),
        (Some(arch), _) | (None, Some(arch)) => Ok(arch),
        (None, None) => Ok(Arch::Aarch64),
    }
}

/// A RAM size as QEMU's `-m` reads it (a number of MiB, or with a suffix `M`, `G` or `T`), in
/// whole MiB; `None` for what this does not read (QEMU then judges it).
fn mebibytes(size: &str) -> Option<u64> {
    let (digits, scale) = match size.char_indices().last()? {
        (at, 'M' | 'm') => (&size[..at], 1),
        (at, 'G' | 'g') => (&size[..at], 1 << 10),
        (at, 'T' | 't') => (&size[..at], 1 << 20),
        _ => (size, 1),
    };
    digits.parse::<u64>().ok()?.checked_mul(scale)
}

fn known(list: &[&'static str], name: &str) -> &'static str {
    list.iter()
        .find(|n| **n == name)
        .copied()
        .unwrap_or(list[0])
}

impl Config {
    /// Reads and checks the settings of `env` for a run with `bootargs` (the command line
    /// given, before `mairbench.host=`) of the image `MAIRBENCH_ARCH` names; `Err` is the
    /// refusal's message (status 2).
    pub fn read(env: Env, bootargs: &str) -> Result<Config, String> {
        Config::read_as(None, env, bootargs)
    }

    /// [`Config::read`] for an image of architecture `image` (its ELF's; `None` when unknown,
    /// then `MAIRBENCH_ARCH`'s), which `MAIRBENCH_ARCH`, when set, must name.
    pub fn read_as(image: Option<Arch>, env: Env, bootargs: &str) -> Result<Config, String> {
        env.validate()?;
        let arch = image_arch(image, &env)?;
        let get = |name: &str| env.get(name).map(str::to_owned);
        let machine = known(
            &crate::settings::MACHINES,
            env.get("MAIRBENCH_MACHINE").unwrap_or("virt"),
        );
        let boot_name = known(
            &crate::settings::BOOTS,
            env.get("MAIRBENCH_BOOT").unwrap_or("kernel"),
        );
        let boot = Boot::from(boot_name);
        let default_el = boards::find(machine).map_or(1, |b| b.el);
        let el = number(&env, "MAIRBENCH_EL", default_el);
        let smp = number(&env, "MAIRBENCH_SMP", 1);
        let serial = match env.get("MAIRBENCH_SERIAL") {
            Some("pty") => Serial::Pty,
            Some("none") => Serial::None,
            _ => Serial::Stdio,
        };
        let default_mem = if boot == Boot::Linux { "512M" } else { "256M" };
        let gdb = env.get("MAIRBENCH_GDB") == Some("1");
        // No time limit for a gdb session, unless one is set: it would end the session under
        // the debugger's feet.
        let limit = number(&env, "MAIRBENCH_TIMEOUT", if gdb { 0 } else { 60 });
        let bootdelay = number(
            &env,
            "MAIRBENCH_BOOTDELAY",
            if serial == Serial::Pty { 5 } else { 0 },
        );
        let gic = number(&env, "MAIRBENCH_GIC", if smp > 8 { 3 } else { 2 });
        let config = Config {
            machine,
            boot_name,
            boot,
            cpu: get("MAIRBENCH_CPU").unwrap_or_else(|| arch.default_cpu().into()),
            kvm: env.get("MAIRBENCH_ACCEL") == Some("kvm"),
            el,
            smp,
            clusters: number(&env, "MAIRBENCH_CLUSTERS", 1),
            gic,
            mem: get("MAIRBENCH_MEM").unwrap_or_else(|| default_mem.into()),
            load: get("MAIRBENCH_LOAD").unwrap_or_else(|| "0x40400000".into()),
            limit,
            semihosting: env.get("MAIRBENCH_SEMIHOSTING") != Some("0"),
            serial,
            ramfb: env.get("MAIRBENCH_DISPLAY") == Some("ramfb"),
            monitor: get("MAIRBENCH_MONITOR"),
            bootdelay,
            icount: env.get("MAIRBENCH_ICOUNT") == Some("1"),
            gdb: gdb.then(|| number(&env, "MAIRBENCH_GDB_PORT", 1234)),
            dtb: get("MAIRBENCH_DTB").map(PathBuf::from),
            env,
            arch,
        };
        config.arch_settings()?;
        config.kvm_settings()?;
        config.console_settings()?;
        config.machine_settings()?;
        config.boot_settings(bootargs)?;
        Ok(config)
    }

    /// The load address, a number (checked as hex by the table).
    pub fn load_address(&self) -> u64 {
        u64::from_str_radix(self.load.trim_start_matches("0x"), 16).unwrap_or(0)
    }

    /// What the 32-bit image cannot do (yet): it boots by QEMU's `-kernel`, U-Boot's `bootz` or
    /// U-Boot's `bootm` of a Linux kernel uImage under TCG, in SVC or HYP mode, with its RAM
    /// below 4 GiB (the machine: [`Config::machine_settings`]); its twin runs under Debian's
    /// armhf Linux (`linux`).
    fn arch_settings(&self) -> Result<(), String> {
        if self.arch != Arch::Armv7 {
            return Ok(());
        }
        if !matches!(
            self.boot,
            Boot::Kernel | Boot::Uboot | Boot::UbootBootm | Boot::Linux
        ) {
            return Err(format!("the 32-bit image (MAIRBENCH_ARCH=armv7) boots by QEMU's -kernel, U-Boot's bootz or U-Boot's bootm of a uImage only for now (MAIRBENCH_BOOT=kernel, uboot or uboot-bootm; its twin by linux), not by MAIRBENCH_BOOT={}", self.boot_name));
        }
        if self.kvm {
            return Err("MAIRBENCH_ACCEL=kvm runs the AArch64 image only, not the 32-bit image (MAIRBENCH_ARCH=armv7)".into());
        }
        if self.el == 3 {
            return Err("the 32-bit image (MAIRBENCH_ARCH=armv7) is entered in SVC mode (MAIRBENCH_EL=1) or HYP mode (MAIRBENCH_EL=2); MAIRBENCH_EL=3 does not apply".into());
        }
        if self.machine == "virt" && mebibytes(&self.mem).is_some_and(|m| m > MAX_MEM_32_MIB) {
            return Err(format!("the 32-bit image's virt (MAIRBENCH_ARCH=armv7) has at most 3G of RAM, from 0x40000000 to 4 GiB: not MAIRBENCH_MEM={}", self.mem));
        }
        Ok(())
    }

    /// What cannot run under KVM.
    fn kvm_settings(&self) -> Result<(), String> {
        if !self.kvm {
            return Ok(());
        }
        if self.machine != "virt" {
            return Err(format!(
                "MAIRBENCH_ACCEL=kvm runs the virt machine only, not {}",
                self.machine
            ));
        }
        if self.el != 1 {
            return Err(format!(
                "MAIRBENCH_ACCEL=kvm enters at EL1 only, not MAIRBENCH_EL={}",
                self.el
            ));
        }
        if let Some(cpu) = self.env.get("MAIRBENCH_CPU").filter(|c| *c != "host") {
            return Err(format!(
                "MAIRBENCH_ACCEL=kvm runs the host's CPU (-cpu host), not MAIRBENCH_CPU={cpu}"
            ));
        }
        if self.icount {
            return Err("MAIRBENCH_ICOUNT=1 needs TCG, not MAIRBENCH_ACCEL=kvm".into());
        }
        Ok(())
    }

    /// The serial line, the display, the monitor and U-Boot's delay.
    fn console_settings(&self) -> Result<(), String> {
        if self.serial == Serial::None {
            if self.machine != "virt" {
                return Err("MAIRBENCH_SERIAL=none applies to MAIRBENCH_MACHINE=virt only".into());
            }
            if !self.semihosting {
                return Err("MAIRBENCH_SERIAL=none judges the run by QEMU's exit status, which needs semihosting: not MAIRBENCH_SEMIHOSTING=0".into());
            }
            if self.boot == Boot::Linux {
                return Err("MAIRBENCH_SERIAL=none does not apply to MAIRBENCH_BOOT=linux".into());
            }
        }
        if self.ramfb && self.machine != "virt" {
            return Err("MAIRBENCH_DISPLAY=ramfb applies to MAIRBENCH_MACHINE=virt only".into());
        }
        let prompt = matches!(self.boot, Boot::Uboot | Boot::UbootScript);
        if self.serial == Serial::Pty && !prompt {
            return Err(format!("MAIRBENCH_SERIAL=pty applies to the U-Boot paths MAIRBENCH_BOOT=uboot and uboot-script (a prompt to type into), not MAIRBENCH_BOOT={}", self.boot_name));
        }
        if self.env.is_set("MAIRBENCH_BOOTDELAY") && !prompt {
            return Err(format!("MAIRBENCH_BOOTDELAY applies to the U-Boot paths MAIRBENCH_BOOT=uboot and uboot-script, not MAIRBENCH_BOOT={}", self.boot_name));
        }
        Ok(())
    }

    /// The machine: `virt`'s EL and GIC, or what a board's machine allows.
    fn machine_settings(&self) -> Result<(), String> {
        if let Some(dtb) = &self.dtb {
            if !dtb.is_file() {
                return Err(format!(
                    "no device tree at {} (MAIRBENCH_DTB)",
                    dtb.display()
                ));
            }
        }
        if !self.smp.is_multiple_of(self.clusters) {
            return Err(format!("MAIRBENCH_CLUSTERS must be a count of clusters that divides MAIRBENCH_SMP={} evenly, not '{}'", self.smp, self.clusters));
        }
        let Some(board) = boards::find(self.machine) else {
            if self.gic == 2 && self.smp > 8 {
                return Err(format!(
                    "MAIRBENCH_GIC=2 serves at most 8 CPUs, not MAIRBENCH_SMP={}",
                    self.smp
                ));
            }
            return Ok(());
        };
        self.board_settings(board)
    }

    /// What a board's machine allows: the image of its architecture, the mode QEMU enters it
    /// in, `-kernel`, its own CPUs and RAM, and a way out.
    fn board_settings(&self, board: &Board) -> Result<(), String> {
        let Board { name, has, .. } = *board;
        if board.arch != self.arch {
            return Err(match board.arch {
                Arch::Aarch64 => format!("MAIRBENCH_MACHINE={name} is a 64-bit board: the 32-bit image (MAIRBENCH_ARCH=armv7) runs on MAIRBENCH_MACHINE=virt and on the 32-bit boards' machines {}", boards::names(Arch::Armv7)),
                Arch::Armv7 => format!("MAIRBENCH_MACHINE={name} is a 32-bit board ({has}): the 32-bit image runs on it (MAIRBENCH_ARCH=armv7); the AArch64 image runs on MAIRBENCH_MACHINE=virt and on {}", boards::names(Arch::Aarch64)),
            });
        }
        let el_ok = self.el == board.el || (board.el2_too && self.el == 2);
        if !el_ok {
            return Err(if board.el2_too {
                format!("{name} is entered at EL1, or EL2 with MAIRBENCH_EL=2; MAIRBENCH_EL={} does not apply", self.el)
            } else {
                format!(
                    "{name} is entered at {}; MAIRBENCH_EL={} does not apply",
                    board.entry(),
                    self.el
                )
            });
        }
        if self.boot != Boot::Kernel {
            return Err(format!("{name} boots with MAIRBENCH_BOOT=kernel only"));
        }
        if [
            "MAIRBENCH_SMP",
            "MAIRBENCH_CLUSTERS",
            "MAIRBENCH_MEM",
            "MAIRBENCH_CPU",
        ]
        .iter()
        .any(|s| self.env.is_set(s))
        {
            return Err(format!(
                "{name} has {has}: MAIRBENCH_SMP, _CLUSTERS, _MEM and _CPU do not apply"
            ));
        }
        if !board.psci && !self.semihosting {
            return Err(format!(
                "{name} has no PSCI: MAIRBENCH_SEMIHOSTING=0 would leave no way to exit"
            ));
        }
        Ok(())
    }

    /// What each boot path refuses.
    fn boot_settings(&self, bootargs: &str) -> Result<(), String> {
        let newline = || {
            if bootargs.contains('\n') {
                Err("bootargs cannot contain a newline".to_owned())
            } else {
                Ok(())
            }
        };
        match self.boot {
            Boot::Kernel if self.el == 3 && !self.semihosting => Err(
                "at EL3 QEMU offers no PSCI: MAIRBENCH_SEMIHOSTING=0 would leave no way to exit"
                    .into(),
            ),
            Boot::Kernel => Ok(()),
            Boot::Uefi | Boot::UefiDt => {
                if self.machine != "virt" {
                    return Err(format!(
                        "MAIRBENCH_BOOT={} runs on MAIRBENCH_MACHINE=virt only",
                        self.boot_name
                    ));
                }
                if self.el == 3 {
                    return Err("EDK2 for QEMU virt does not run with secure=on (EL3); use MAIRBENCH_EL=1 or 2".into());
                }
                newline()
            }
            Boot::Linux => {
                if self.machine != "virt" {
                    return Err("MAIRBENCH_BOOT=linux runs on MAIRBENCH_MACHINE=virt only".into());
                }
                if self.el == 3 {
                    return Err("Linux boots at EL1 or EL2; MAIRBENCH_EL=3 does not apply to MAIRBENCH_BOOT=linux".into());
                }
                newline()
            }
            _ => self.uboot_settings(bootargs),
        }
    }

    /// What every U-Boot path refuses.
    fn uboot_settings(&self, bootargs: &str) -> Result<(), String> {
        if self.el == 3 {
            return Err("Debian's U-Boot for QEMU does not boot with secure=on (EL3); use MAIRBENCH_EL=1 or 2".into());
        }
        if self.load_address() & 0x1f_ffff != 0 {
            return Err(format!("MAIRBENCH_LOAD {} is not 2 MiB-aligned", self.load));
        }
        if self.boot == Boot::UbootScript {
            if bootargs.contains('\n') {
                return Err("bootargs cannot contain a newline".into());
            }
        } else if bootargs.contains('\'') {
            return Err("bootargs for the uboot path cannot contain a single quote".into());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pairs: &[(&str, &str)], bootargs: &str) -> Result<Config, String> {
        Config::read(Env::from_pairs(pairs.iter().copied()), bootargs)
    }

    #[test]
    fn defaults_are_the_tables() {
        let c = read(&[], "").unwrap();
        assert_eq!(
            (c.machine, c.boot, c.el, c.smp, c.gic),
            ("virt", Boot::Kernel, 1, 1, 2)
        );
        assert_eq!(
            (c.cpu.as_str(), c.mem.as_str(), c.limit),
            ("cortex-a72", "256M", 60)
        );
        assert_eq!(
            (c.semihosting, c.serial, c.bootdelay, c.gdb),
            (true, Serial::Stdio, 0, None)
        );
        let linux = read(&[("MAIRBENCH_BOOT", "linux")], "").unwrap();
        assert_eq!(linux.mem, "512M");
        let pi = read(&[("MAIRBENCH_MACHINE", "raspi4b")], "").unwrap();
        assert_eq!(pi.el, 2);
        let zcu = read(&[("MAIRBENCH_MACHINE", "xlnx-zcu102")], "").unwrap();
        assert_eq!(zcu.el, 1);
        let pty = read(
            &[("MAIRBENCH_SERIAL", "pty"), ("MAIRBENCH_BOOT", "uboot")],
            "",
        )
        .unwrap();
        assert_eq!(pty.bootdelay, 5);
        let gdb = read(&[("MAIRBENCH_GDB", "1")], "").unwrap();
        assert_eq!((gdb.gdb, gdb.limit), (Some(1234), 0));
        let big = read(&[("MAIRBENCH_SMP", "9")], "").unwrap();
        assert_eq!(big.gic, 3);
    }

    /// Runner settings, as `(name, value)` pairs.
    type Pairs = &'static [(&'static str, &'static str)];

    /// Settings that cannot go together, the bootargs, and what the refusal says.
    #[rustfmt::skip]
    const REFUSED: &[(Pairs, &str, &str)] = &[
        (&[("MAIRBENCH_GIC", "2"), ("MAIRBENCH_SMP", "9")], "", "MAIRBENCH_GIC=2 serves at most 8"),
        (&[("MAIRBENCH_MACHINE", "raspi3b"), ("MAIRBENCH_EL", "1")], "", "raspi3b is entered at EL2"),
        (&[("MAIRBENCH_MACHINE", "xlnx-zcu102"), ("MAIRBENCH_EL", "3")], "", "xlnx-zcu102 is entered at EL1"),
        (&[("MAIRBENCH_MACHINE", "imx8mp-evk"), ("MAIRBENCH_SMP", "2")], "", "_CPU do not apply"),
        (&[("MAIRBENCH_MACHINE", "raspi4b"), ("MAIRBENCH_CLUSTERS", "1")], "", "MAIRBENCH_SMP, _CLUSTERS, _MEM and _CPU do not apply"),
        (&[("MAIRBENCH_SMP", "4"), ("MAIRBENCH_CLUSTERS", "3")], "", "MAIRBENCH_CLUSTERS must be a count of clusters that divides MAIRBENCH_SMP=4 evenly, not '3'"),
        (&[("MAIRBENCH_SMP", "4"), ("MAIRBENCH_CLUSTERS", "0")], "", "MAIRBENCH_CLUSTERS must be a count of clusters that divides MAIRBENCH_SMP evenly, not '0'"),
        (&[("MAIRBENCH_MACHINE", "raspi4b"), ("MAIRBENCH_BOOT", "uboot")], "", "boots with MAIRBENCH_BOOT=kernel only"),
        (&[("MAIRBENCH_MACHINE", "raspi4b"), ("MAIRBENCH_SEMIHOSTING", "0")], "", "has no PSCI"),
        (&[("MAIRBENCH_EL", "3"), ("MAIRBENCH_SEMIHOSTING", "0")], "", "at EL3 QEMU offers no PSCI"),
        (&[("MAIRBENCH_BOOT", "uboot"), ("MAIRBENCH_EL", "3")], "", "secure=on (EL3)"),
        (&[("MAIRBENCH_BOOT", "uboot-bootm"), ("MAIRBENCH_LOAD", "0x40400001")], "", "is not 2 MiB-aligned"),
        (&[("MAIRBENCH_BOOT", "uboot")], "it's", "cannot contain a single quote"),
        (&[("MAIRBENCH_BOOT", "uboot-script")], "a\nb", "cannot contain a newline"),
        (&[("MAIRBENCH_BOOT", "uefi"), ("MAIRBENCH_EL", "3")], "", "EDK2 for QEMU virt does not run"),
        (&[("MAIRBENCH_BOOT", "uefi-dt"), ("MAIRBENCH_MACHINE", "raspi4b")], "", "boots with MAIRBENCH_BOOT=kernel only"),
        (&[("MAIRBENCH_BOOT", "linux"), ("MAIRBENCH_EL", "3")], "", "Linux boots at EL1 or EL2"),
        (&[("MAIRBENCH_BOOT", "linux"), ("MAIRBENCH_SERIAL", "none")], "", "does not apply to MAIRBENCH_BOOT=linux"),
        (&[("MAIRBENCH_BOOT", "linux"), ("MAIRBENCH_IVSHMEM", "24M")], "", "MAIRBENCH_IVSHMEM must be a power of two"),
        (&[("MAIRBENCH_SERIAL", "pty")], "", "MAIRBENCH_SERIAL=pty applies to the U-Boot paths"),
        (&[("MAIRBENCH_SERIAL", "none"), ("MAIRBENCH_MACHINE", "raspi3b")], "", "MAIRBENCH_SERIAL=none applies to MAIRBENCH_MACHINE=virt only"),
        (&[("MAIRBENCH_BOOTDELAY", "3")], "", "MAIRBENCH_BOOTDELAY applies to the U-Boot paths"),
        (&[("MAIRBENCH_DISPLAY", "ramfb"), ("MAIRBENCH_MACHINE", "raspi3b")], "", "applies to MAIRBENCH_MACHINE=virt only"),
        (&[("MAIRBENCH_ACCEL", "kvm"), ("MAIRBENCH_MACHINE", "raspi3b")], "", "MAIRBENCH_ACCEL=kvm runs the virt machine only"),
        (&[("MAIRBENCH_ACCEL", "kvm"), ("MAIRBENCH_EL", "2")], "", "MAIRBENCH_ACCEL=kvm enters at EL1 only"),
        (&[("MAIRBENCH_ACCEL", "kvm"), ("MAIRBENCH_CPU", "max")], "", "runs the host's CPU (-cpu host)"),
        (&[("MAIRBENCH_ACCEL", "kvm"), ("MAIRBENCH_ICOUNT", "1")], "", "needs TCG"),
        (&[("MAIRBENCH_DTB", "/nonexistent.dtb")], "", "no device tree at /nonexistent.dtb"),
        (&[("MAIRBENCH_ARCH", "armv8")], "", "MAIRBENCH_ARCH must be aarch64 or armv7, not 'armv8'"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_MACHINE", "raspi3b")], "", "MAIRBENCH_MACHINE=raspi3b is a 64-bit board: the 32-bit image (MAIRBENCH_ARCH=armv7) runs on MAIRBENCH_MACHINE=virt and on the 32-bit boards' machines mcimx6ul-evk orangepi-pc raspi2b sabrelite cubieboard"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_MACHINE", "xlnx-zcu102")], "", "MAIRBENCH_MACHINE=xlnx-zcu102 is a 64-bit board"),
        // The 32-bit boards: the AArch64 image, and what their machines fix.
        (&[("MAIRBENCH_MACHINE", "raspi2b")], "", "MAIRBENCH_MACHINE=raspi2b is a 32-bit board (4 Cortex-A7 and 1 GiB): the 32-bit image runs on it (MAIRBENCH_ARCH=armv7); the AArch64 image runs on MAIRBENCH_MACHINE=virt and on raspi3b raspi4b imx8mp-evk xlnx-zcu102"),
        (&[("MAIRBENCH_ARCH", "aarch64"), ("MAIRBENCH_MACHINE", "mcimx6ul-evk")], "", "MAIRBENCH_MACHINE=mcimx6ul-evk is a 32-bit board (1 Cortex-A7 and 512 MiB)"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_MACHINE", "mcimx6ul-evk"), ("MAIRBENCH_EL", "1")], "", "mcimx6ul-evk is entered at HYP mode (MAIRBENCH_EL=2); MAIRBENCH_EL=1 does not apply"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_MACHINE", "raspi2b"), ("MAIRBENCH_EL", "2")], "", "raspi2b is entered at SVC mode (MAIRBENCH_EL=1); MAIRBENCH_EL=2 does not apply"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_MACHINE", "sabrelite"), ("MAIRBENCH_EL", "3")], "", "MAIRBENCH_EL=3 does not apply"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_MACHINE", "orangepi-pc"), ("MAIRBENCH_BOOT", "uboot")], "", "orangepi-pc boots with MAIRBENCH_BOOT=kernel only"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_MACHINE", "cubieboard"), ("MAIRBENCH_BOOT", "uboot-bootm")], "", "cubieboard boots with MAIRBENCH_BOOT=kernel only"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_MACHINE", "orangepi-pc"), ("MAIRBENCH_SMP", "2")], "", "orangepi-pc has 4 Cortex-A7 and 1 GiB: MAIRBENCH_SMP, _CLUSTERS, _MEM and _CPU do not apply"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_MACHINE", "mcimx6ul-evk"), ("MAIRBENCH_MEM", "256M")], "", "mcimx6ul-evk has 1 Cortex-A7 and 512 MiB: MAIRBENCH_SMP, _CLUSTERS, _MEM and _CPU do not apply"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_MACHINE", "sabrelite"), ("MAIRBENCH_MEM", "4G")], "", "sabrelite has 4 Cortex-A9 and 1 GiB"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_MACHINE", "cubieboard"), ("MAIRBENCH_CPU", "cortex-a8")], "", "cubieboard has 1 Cortex-A8 and 1 GiB"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_MACHINE", "raspi2b"), ("MAIRBENCH_SEMIHOSTING", "0")], "", "raspi2b has no PSCI"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_MACHINE", "sabrelite"), ("MAIRBENCH_SEMIHOSTING", "0")], "", "sabrelite has no PSCI"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_MACHINE", "raspi2b"), ("MAIRBENCH_SERIAL", "none")], "", "MAIRBENCH_SERIAL=none applies to MAIRBENCH_MACHINE=virt only"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_MACHINE", "orangepi-pc"), ("MAIRBENCH_DISPLAY", "ramfb")], "", "applies to MAIRBENCH_MACHINE=virt only"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_MACHINE", "cubieboard"), ("MAIRBENCH_ACCEL", "kvm")], "", "MAIRBENCH_ACCEL=kvm runs the AArch64 image only"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_BOOT", "uboot-script")], "", "boots by QEMU's -kernel, U-Boot's bootz or U-Boot's bootm of a uImage only for now (MAIRBENCH_BOOT=kernel, uboot or uboot-bootm; its twin by linux), not by MAIRBENCH_BOOT=uboot-script"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_BOOT", "uboot-script")], "", "not by MAIRBENCH_BOOT=uboot-script"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_BOOT", "uboot-efi")], "", "not by MAIRBENCH_BOOT=uboot-efi"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_BOOT", "uboot"), ("MAIRBENCH_EL", "3")], "", "MAIRBENCH_EL=3 does not apply"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_BOOT", "uefi")], "", "not by MAIRBENCH_BOOT=uefi"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_BOOT", "linux"), ("MAIRBENCH_MACHINE", "raspi2b")], "", "raspi2b boots with MAIRBENCH_BOOT=kernel only"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_BOOT", "linux"), ("MAIRBENCH_EL", "3")], "", "MAIRBENCH_EL=3 does not apply"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_ACCEL", "kvm")], "", "MAIRBENCH_ACCEL=kvm runs the AArch64 image only"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_EL", "3")], "", "MAIRBENCH_EL=3 does not apply"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_MEM", "3073M")], "", "at most 3G of RAM, from 0x40000000 to 4 GiB: not MAIRBENCH_MEM=3073M"),
        (&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_MEM", "4G")], "", "not MAIRBENCH_MEM=4G"),
    ];

    #[test]
    fn settings_that_cannot_go_together_are_refused_naming_them() {
        for (pairs, bootargs, says) in REFUSED {
            let err = read(pairs, bootargs).unwrap_err();
            assert!(err.contains(says), "{pairs:?}: {err}");
        }
        // KVM with the host's CPU named is what KVM runs.
        assert!(read(&[("MAIRBENCH_ACCEL", "kvm"), ("MAIRBENCH_CPU", "host")], "").is_ok());
    }

    #[test]
    fn the_32_bit_image_has_its_own_defaults_and_limits() {
        let c = read(&[("MAIRBENCH_ARCH", "armv7")], "").unwrap();
        assert_eq!(
            (
                c.arch,
                c.cpu.as_str(),
                c.mem.as_str(),
                c.el,
                c.machine,
                c.boot
            ),
            (Arch::Armv7, "cortex-a7", "256M", 1, "virt", Boot::Kernel)
        );
        assert_eq!(read(&[], "").unwrap().arch, Arch::Aarch64);
        for ok in ["3G", "3072M", "3072", "1G"] {
            assert!(
                read(&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_MEM", ok)], "").is_ok(),
                "{ok}"
            );
        }
        assert!(read(&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_EL", "2")], "").is_ok());
        // The AArch64 image keeps what it had.
        assert!(read(&[("MAIRBENCH_MEM", "4G"), ("MAIRBENCH_BOOT", "uboot")], "").is_ok());
        assert_eq!(
            [
                mebibytes("3G"),
                mebibytes("512m"),
                mebibytes("2048"),
                mebibytes("1T")
            ],
            [Some(3072), Some(512), Some(2048), Some(1 << 20)]
        );
        assert_eq!(
            [mebibytes(""), mebibytes("1.5G"), mebibytes("G")],
            [None; 3]
        );
    }

    #[test]
    fn the_32_bit_boards_take_the_32_bit_image_in_the_mode_qemu_enters() {
        for (machine, el) in [
            ("mcimx6ul-evk", 2),
            ("orangepi-pc", 2),
            ("raspi2b", 1),
            ("sabrelite", 1),
            ("cubieboard", 1),
        ] {
            let armv7 = [("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_MACHINE", machine)];
            let c = read(&armv7, "mairbench.quick").unwrap();
            assert_eq!(
                (c.arch, c.machine, c.el, c.boot),
                (Arch::Armv7, machine, el, Boot::Kernel)
            );
            // The mode named as QEMU enters it is no refusal.
            let el = el.to_string();
            let named = [armv7[0], armv7[1], ("MAIRBENCH_EL", el.as_str())];
            assert!(read(&named, "").is_ok(), "{machine}");
            // The ELF's architecture is enough.
            let env = Env::from_pairs([("MAIRBENCH_MACHINE", machine)]);
            assert!(
                Config::read_as(Some(Arch::Armv7), env, "").is_ok(),
                "{machine}"
            );
        }
        // Where the tree names PSCI, the run may power off through it.
        for machine in ["mcimx6ul-evk", "orangepi-pc"] {
            let off = [
                ("MAIRBENCH_ARCH", "armv7"),
                ("MAIRBENCH_MACHINE", machine),
                ("MAIRBENCH_SEMIHOSTING", "0"),
            ];
            assert!(read(&off, "").is_ok(), "{machine}");
        }
        // The AArch64 boards keep what they had.
        for machine in ["raspi3b", "raspi4b", "imx8mp-evk", "xlnx-zcu102"] {
            assert!(
                read(&[("MAIRBENCH_MACHINE", machine)], "").is_ok(),
                "{machine}"
            );
        }
        let unknown = read(
            &[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_MACHINE", "bpim2u")],
            "",
        );
        assert!(unknown.unwrap_err().contains("cubieboard"));
    }

    #[test]
    fn the_image_is_the_elf_given_and_must_be_the_one_named() {
        let env = |pairs: &[(&'static str, &'static str)]| Env::from_pairs(pairs.iter().copied());
        let c = Config::read_as(Some(Arch::Armv7), env(&[]), "").unwrap();
        assert_eq!((c.arch, c.cpu.as_str()), (Arch::Armv7, "cortex-a7"));
        let named = Config::read_as(Some(Arch::Armv7), env(&[("MAIRBENCH_ARCH", "armv7")]), "");
        assert_eq!(named.unwrap().arch, Arch::Armv7);
        let other = Config::read_as(Some(Arch::Aarch64), env(&[("MAIRBENCH_ARCH", "armv7")]), "")
            .unwrap_err();
        assert_eq!(
            other,
            "MAIRBENCH_ARCH=armv7 names the 32-bit image, but the image given is the AArch64 \
             image (aarch64-unknown-none): build it with --target armv7-unknown-linux-gnueabihf (./run.sh \
             does with MAIRBENCH_ARCH=armv7)"
        );
        // A file that is no image of either: the setting's architecture, so that its settings
        // are checked before the file is refused.
        let unknown = Config::read_as(None, env(&[("MAIRBENCH_ARCH", "armv7")]), "").unwrap();
        assert_eq!(unknown.arch, Arch::Armv7);
        // The 32-bit image's refusals apply to the ELF's architecture, unnamed.
        let board = Config::read_as(
            Some(Arch::Armv7),
            env(&[("MAIRBENCH_MACHINE", "raspi4b")]),
            "",
        );
        assert!(board.unwrap_err().contains("is a 64-bit board"));
    }
}
