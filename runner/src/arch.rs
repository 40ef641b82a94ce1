//! The image's architecture: which one an ELF is (its `e_machine`), what QEMU boots each with,
//! and which of QEMU's CPU models can run it. The AArch64 image (`aarch64-unknown-none`) runs
//! in `qemu-system-aarch64`, the 32-bit one (`armv7-unknown-linux-gnueabihf`, a `no_std`
//! executable all the same: `.cargo/config.toml` says why that target; `MAIRBENCH_ARCH=armv7`)
//! in `qemu-system-arm`, on the `virt` machine with a Cortex-A7, Cortex-A15 or `max`.

use std::io::Read as _;
use std::path::Path;

/// An image's architecture.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    /// AArch64: `aarch64-unknown-none`, `e_machine` EM_AARCH64 (183).
    Aarch64,
    /// 32-bit Armv7-A: `armv7-unknown-linux-gnueabihf`, `e_machine` EM_ARM (40).
    Armv7,
}

/// `e_machine` of an AArch64 ELF.
const EM_AARCH64: u16 = 183;
/// `e_machine` of a 32-bit Arm ELF.
const EM_ARM: u16 = 40;

/// The CPU models qemu-system-arm's `virt` takes (QEMU 10.0.2 names them when given another:
/// "The valid models are: cortex-a7, cortex-a15, max"). Its `-cpu help` lists every 32-bit
/// model, `cortex-a8` and `cortex-a9` among them, whichever machine is named; those run on
/// board machines only.
pub const VIRT_32: [&str; 3] = ["cortex-a7", "cortex-a15", "max"];

/// The most RAM 32-bit `virt` has below 4 GiB, MiB: from 0x4000_0000 to the end of the 32-bit
/// space (QEMU 10.0.2 with `highmem=off` refuses more: "Addressing limited to 32 bits").
pub const MAX_MEM_32_MIB: u64 = 3 * 1024;

impl Arch {
    /// Its `MAIRBENCH_ARCH` value.
    pub const fn name(self) -> &'static str {
        match self {
            Arch::Aarch64 => "aarch64",
            Arch::Armv7 => "armv7",
        }
    }

    /// The architecture a `MAIRBENCH_ARCH` value names (checked by the settings table).
    pub fn from_name(name: &str) -> Arch {
        match name {
            "armv7" => Arch::Armv7,
            _ => Arch::Aarch64,
        }
    }

    /// The Rust target the image is built for.
    pub const fn target(self) -> &'static str {
        match self {
            Arch::Aarch64 => "aarch64-unknown-none",
            Arch::Armv7 => "armv7-unknown-linux-gnueabihf",
        }
    }

    /// How the image is named in messages.
    pub const fn image(self) -> &'static str {
        match self {
            Arch::Aarch64 => "the AArch64 image",
            Arch::Armv7 => "the 32-bit image",
        }
    }

    /// The QEMU that boots it.
    pub const fn qemu(self) -> &'static str {
        match self {
            Arch::Aarch64 => "qemu-system-aarch64",
            Arch::Armv7 => "qemu-system-arm",
        }
    }

    /// Debian's U-Boot for QEMU `virt` (package `u-boot-qemu`): `qemu_arm64`'s, or `qemu_arm`'s
    /// (CPU_V7A with LPAE, `bootz`, `SYS_LOAD_ADDR` 0x40200000).
    pub const fn uboot(self) -> &'static str {
        match self {
            Arch::Aarch64 => "/usr/lib/u-boot/qemu_arm64/u-boot.bin",
            Arch::Armv7 => "/usr/lib/u-boot/qemu_arm/u-boot.bin",
        }
    }

    /// U-Boot's command that boots the raw image by the Linux protocol: `booti` (an arm64
    /// Image header) or `bootz` (a zImage header).
    pub const fn uboot_linux(self) -> &'static str {
        match self {
            Arch::Aarch64 => "booti",
            Arch::Armv7 => "bootz",
        }
    }

    /// The Linux boot's kernel (`qemu/deps` group and cache directory alike): `linux`, Debian's
    /// arm64 kernel, or `linux-armhf`, Debian's armhf LPAE kernel (`linux-image-armmp-lpae`,
    /// which runs on `virt`'s Cortex-A7 and A15).
    pub const fn linux(self) -> &'static str {
        match self {
            Arch::Aarch64 => "linux",
            Arch::Armv7 => "linux-armhf",
        }
    }

    /// The setting that names that kernel's cache.
    pub const fn linux_dir(self) -> &'static str {
        match self {
            Arch::Aarch64 => "MAIRBENCH_LINUX_DIR",
            Arch::Armv7 => "MAIRBENCH_LINUX_ARMHF_DIR",
        }
    }

    /// How that kernel is named in messages.
    pub const fn linux_kernel(self) -> &'static str {
        match self {
            Arch::Aarch64 => "Debian's arm64 kernel",
            Arch::Armv7 => "Debian's armhf LPAE kernel",
        }
    }

    /// The architecture of the Linux kernel image whose first bytes are `head`: an arm64
    /// `Image` (magic `ARM\x64` at 0x38, Linux's arm64/booting.rst) or a 32-bit `zImage`
    /// (0x016F2818 at 0x24, Linux's arm/booting.rst); `None` for anything else.
    pub fn of_kernel(head: &[u8]) -> Option<Arch> {
        if head.get(0x38..0x3c) == Some(b"ARM\x64") {
            Some(Arch::Aarch64)
        } else if head.get(0x24..0x28) == Some(&0x016F_2818u32.to_le_bytes()) {
            Some(Arch::Armv7)
        } else {
            None
        }
    }

    /// binutils' objcopy for it, where LLVM's is missing.
    pub const fn gnu_objcopy(self) -> &'static str {
        match self {
            Arch::Aarch64 => "aarch64-linux-gnu-objcopy",
            Arch::Armv7 => "arm-none-eabi-objcopy",
        }
    }

    /// The CPU model without `MAIRBENCH_CPU`.
    pub const fn default_cpu(self) -> &'static str {
        match self {
            Arch::Aarch64 => "cortex-a72",
            Arch::Armv7 => "cortex-a7",
        }
    }

    /// The architecture of the ELF whose first bytes are `head`: `e_machine` 183 (with a 64-bit
    /// header) or 40 (with a 32-bit one), little-endian; `Err` says what it is instead.
    pub fn of_elf(head: &[u8]) -> Result<Arch, String> {
        if head.len() < 20 || !head.starts_with(b"\x7fELF") {
            return Err("is not an ELF file".into());
        }
        let (class, data) = (head[4], head[5]);
        if data != 1 {
            return Err("is a big-endian ELF: the images are little-endian".into());
        }
        let machine = u16::from_le_bytes([head[18], head[19]]);
        match (machine, class) {
            (EM_AARCH64, 2) => Ok(Arch::Aarch64),
            (EM_ARM, 1) => Ok(Arch::Armv7),
            (EM_AARCH64 | EM_ARM, _) => Err(format!(
                "is an ELF of machine {machine} with a {}-bit header, which no image has",
                if class == 2 { 64 } else { 32 }
            )),
            _ => Err(format!(
                "is an ELF for machine {machine}, neither AArch64 ({EM_AARCH64}) nor 32-bit Arm \
                 ({EM_ARM})"
            )),
        }
    }

    /// The architecture of the ELF at `path`; `Err` is the refusal's message (status 2).
    pub fn of_file(path: &Path) -> Result<Arch, String> {
        let mut head = Vec::with_capacity(20);
        let read = std::fs::File::open(path).and_then(|f| f.take(20).read_to_end(&mut head));
        let why = match read {
            Ok(_) => Arch::of_elf(&head),
            Err(e) => Err(format!("cannot be read: {e}")),
        };
        why.map_err(|why| {
            format!(
                "{} {why}; the runner boots the firmware's ELF (target/{}/release/mairbench or \
                 target/{}/release/mairbench)",
                path.display(),
                Arch::Aarch64.target(),
                Arch::Armv7.target()
            )
        })
    }
}

/// The CPU models of a QEMU's `-cpu help` (a heading, then one name a line); none when the
/// text is not such a list.
pub fn models(help: &str) -> Vec<String> {
    let mut lines = help.lines();
    if lines.next() != Some("Available CPUs:") {
        return Vec::new();
    }
    lines
        .filter_map(|l| l.split_whitespace().next())
        .map(str::to_owned)
        .collect()
}

/// Why `cpu` cannot run the image of `arch`, given the models qemu-system-aarch64 offers
/// (`aarch64`) and those qemu-system-arm offers (`arm`, the 32-bit ones); a list is empty when
/// unknown, and the one of the image's own QEMU empty leaves the judgement to QEMU.
pub fn models_refuse(arch: Arch, cpu: &str, aarch64: &[String], arm: &[String]) -> Option<String> {
    match arch {
        Arch::Aarch64 => refuse_for_aarch64(cpu, aarch64, arm),
        Arch::Armv7 => refuse_for_armv7(cpu, aarch64, arm),
    }
}

/// The AArch64 image: not a model of qemu-system-aarch64, or a 32-bit core (on which the image
/// hung until the time limit). `max` is in both lists and has AArch64 in qemu-system-aarch64.
fn refuse_for_aarch64(cpu: &str, offered: &[String], arm: &[String]) -> Option<String> {
    if offered.is_empty() {
        return None;
    }
    if !offered.iter().any(|m| m == cpu) {
        return Some(format!(
            "MAIRBENCH_CPU={cpu} is not a CPU model of this QEMU; it offers: {}",
            offered.join(" ")
        ));
    }
    let bits32 = |m: &str| m != "max" && arm.iter().any(|a| a == m);
    if !bits32(cpu) {
        return None;
    }
    let aarch64: Vec<&str> = offered
        .iter()
        .map(String::as_str)
        .filter(|m| !bits32(m))
        .collect();
    let armv7 = if VIRT_32.contains(&cpu) {
        "the 32-bit image runs on it: MAIRBENCH_ARCH=armv7".to_owned()
    } else {
        format!(
            "the 32-bit image (MAIRBENCH_ARCH=armv7) runs on virt with {}",
            VIRT_32.join(" ")
        )
    };
    Some(format!(
        "MAIRBENCH_CPU={cpu} is a 32-bit core (qemu-system-arm offers it): the AArch64 image \
         cannot run on it; {armv7}; the models with AArch64: {}",
        aarch64.join(" ")
    ))
}

/// The 32-bit image: a model qemu-system-arm's `virt` takes ([`VIRT_32`]), else refused as a
/// 64-bit core (qemu-system-aarch64 alone offers it), a 32-bit core that `virt` does not take,
/// or no model at all.
fn refuse_for_armv7(cpu: &str, aarch64: &[String], arm: &[String]) -> Option<String> {
    if arm.is_empty() {
        return None;
    }
    let virt: Vec<&str> = VIRT_32
        .iter()
        .copied()
        .filter(|m| arm.iter().any(|a| a == m))
        .collect();
    if virt.contains(&cpu) {
        return None;
    }
    let models = virt.join(" ");
    Some(if arm.iter().any(|a| a == cpu) {
        format!(
            "MAIRBENCH_CPU={cpu} is a model of qemu-system-arm that its virt machine does not \
             take: the 32-bit image runs on virt with {models}"
        )
    } else if aarch64.iter().any(|a| a == cpu) {
        format!(
            "MAIRBENCH_CPU={cpu} is a 64-bit model (qemu-system-arm does not offer it): the \
             32-bit image runs on the 32-bit models qemu-system-arm offers for virt, {models}; \
             the AArch64 image (MAIRBENCH_ARCH=aarch64) runs on {cpu}"
        )
    } else {
        format!(
            "MAIRBENCH_CPU={cpu} is not a CPU model of qemu-system-arm; for virt it offers \
             {models}"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first 20 bytes of an ELF header: class, data, `e_machine`.
    fn header(class: u8, data: u8, machine: u16) -> Vec<u8> {
        let mut h = b"\x7fELF".to_vec();
        h.extend([class, data, 1, 0]);
        h.extend([0; 8]);
        h.extend([3, 0]);
        h.extend(machine.to_le_bytes());
        h
    }

    #[test]
    fn the_elf_machine_names_the_architecture() {
        assert_eq!(Arch::of_elf(&header(2, 1, 183)), Ok(Arch::Aarch64));
        assert_eq!(Arch::of_elf(&header(1, 1, 40)), Ok(Arch::Armv7));
        let x86 = Arch::of_elf(&header(2, 1, 62)).unwrap_err();
        assert_eq!(
            x86,
            "is an ELF for machine 62, neither AArch64 (183) nor 32-bit Arm (40)"
        );
        assert!(Arch::of_elf(&header(2, 1, 40))
            .unwrap_err()
            .contains("64-bit header"));
        assert!(Arch::of_elf(&header(1, 2, 40))
            .unwrap_err()
            .contains("big-endian"));
        assert_eq!(
            Arch::of_elf(b"not an ELF\n").unwrap_err(),
            "is not an ELF file"
        );
        assert!(Arch::of_elf(&header(1, 1, 40)[..19]).is_err(), "cut short");
    }

    #[test]
    fn a_file_is_read_for_its_header() {
        let dir = tempfile::tempdir().unwrap();
        let (arm, text) = (dir.path().join("arm"), dir.path().join("text"));
        let mut elf = header(1, 1, 40);
        elf.resize(52, 0);
        std::fs::write(&arm, &elf).unwrap();
        std::fs::write(&text, "#!/bin/sh\n").unwrap();
        assert_eq!(Arch::of_file(&arm), Ok(Arch::Armv7));
        let why = Arch::of_file(&text).unwrap_err();
        assert!(
            why.starts_with(&format!("{} is not an ELF file; ", text.display())),
            "{why}"
        );
        assert!(
            why.contains("target/armv7-unknown-linux-gnueabihf/release/mairbench"),
            "{why}"
        );
        let gone = Arch::of_file(&dir.path().join("gone")).unwrap_err();
        assert!(gone.contains("cannot be read"), "{gone}");
    }

    #[test]
    fn each_architecture_has_its_qemu_target_and_model() {
        for (arch, name) in [(Arch::Aarch64, "aarch64"), (Arch::Armv7, "armv7")] {
            assert_eq!(Arch::from_name(name), arch);
            assert_eq!(arch.name(), name);
        }
        assert_eq!(
            (
                Arch::Armv7.qemu(),
                Arch::Armv7.target(),
                Arch::Armv7.default_cpu()
            ),
            (
                "qemu-system-arm",
                "armv7-unknown-linux-gnueabihf",
                "cortex-a7"
            )
        );
        assert_eq!(
            (Arch::Aarch64.qemu(), Arch::Aarch64.default_cpu()),
            ("qemu-system-aarch64", "cortex-a72")
        );
    }

    /// As QEMU 10.0.2 lists them (shortened): qemu-system-aarch64, then qemu-system-arm.
    fn lists() -> (Vec<String>, Vec<String>) {
        let aarch64 = models(
            "Available CPUs:\n  a64fx\n  cortex-a15\n  cortex-a53\n  cortex-a7\n  cortex-a72\n  \
             cortex-a9\n  max\n  pxa250 (deprecated)\n",
        );
        let arm = models(
            "Available CPUs:\n  cortex-a15\n  cortex-a7\n  cortex-a9\n  max\n  pxa250 (deprecated)\n",
        );
        (aarch64, arm)
    }

    #[test]
    fn a_cpu_model_is_refused_when_qemu_lacks_it_or_it_has_no_aarch64() {
        let (aarch64, arm) = lists();
        let refuse =
            |cpu: &str, a: &[String], b: &[String]| models_refuse(Arch::Aarch64, cpu, a, b);
        assert_eq!(aarch64.len(), 8);
        for ok in ["cortex-a53", "cortex-a72", "a64fx", "max"] {
            assert_eq!(refuse(ok, &aarch64, &arm), None, "{ok}");
        }
        let a7 = refuse("cortex-a7", &aarch64, &arm).unwrap();
        assert!(
            a7.starts_with(
                "MAIRBENCH_CPU=cortex-a7 is a 32-bit core (qemu-system-arm offers it): the \
                 AArch64 image cannot run on it; the 32-bit image runs on it: MAIRBENCH_ARCH=armv7;"
            ),
            "{a7}"
        );
        assert!(
            a7.ends_with("the models with AArch64: a64fx cortex-a53 cortex-a72 max"),
            "{a7}"
        );
        // A 32-bit core that virt does not take for the 32-bit image either.
        let a9 = refuse("cortex-a9", &aarch64, &arm).unwrap();
        assert!(
            a9.contains("the 32-bit image (MAIRBENCH_ARCH=armv7) runs on virt with cortex-a7 cortex-a15 max;"),
            "{a9}"
        );
        let typo = refuse("cortex-a75", &aarch64, &arm).unwrap();
        assert!(typo.contains("is not a CPU model of this QEMU"), "{typo}");
        // A QEMU that lists nothing leaves the judgement to itself; without qemu-system-arm's
        // list no model is taken for 32-bit.
        assert_eq!(refuse("cortex-a7", &[], &arm), None);
        assert_eq!(refuse("cortex-a7", &aarch64, &[]), None);
        assert!(models("qemu-system-aarch64: unsupported machine\n").is_empty());
    }

    #[test]
    fn the_32_bit_image_runs_on_the_models_virt_takes_in_qemu_system_arm() {
        let (aarch64, arm) = lists();
        let refuse = |cpu: &str, a: &[String], b: &[String]| models_refuse(Arch::Armv7, cpu, a, b);
        for ok in ["cortex-a7", "cortex-a15", "max"] {
            assert_eq!(refuse(ok, &aarch64, &arm), None, "{ok}");
        }
        let a72 = refuse("cortex-a72", &aarch64, &arm).unwrap();
        assert_eq!(
            a72,
            "MAIRBENCH_CPU=cortex-a72 is a 64-bit model (qemu-system-arm does not offer it): the \
             32-bit image runs on the 32-bit models qemu-system-arm offers for virt, cortex-a7 \
             cortex-a15 max; the AArch64 image (MAIRBENCH_ARCH=aarch64) runs on cortex-a72"
        );
        let a9 = refuse("cortex-a9", &aarch64, &arm).unwrap();
        assert_eq!(
            a9,
            "MAIRBENCH_CPU=cortex-a9 is a model of qemu-system-arm that its virt machine does \
             not take: the 32-bit image runs on virt with cortex-a7 cortex-a15 max"
        );
        let typo = refuse("cortex-a77", &aarch64, &arm).unwrap();
        assert!(
            typo.starts_with("MAIRBENCH_CPU=cortex-a77 is not a CPU model of qemu-system-arm"),
            "{typo}"
        );
        // Without qemu-system-arm's list, QEMU judges; without qemu-system-aarch64's, a 64-bit
        // model is not a model at all.
        assert_eq!(refuse("cortex-a72", &aarch64, &[]), None);
        assert!(refuse("cortex-a72", &[], &arm)
            .unwrap()
            .contains("is not a CPU model of qemu-system-arm"));
    }
}
