//! The architectures mairbench runs on ([`ARCHES`]): each run's `start` record names its
//! own (`arch`), and the host reads logs of either with the same commands.

/// An architecture mairbench runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Arch {
    /// 64-bit Arm (Armv8-A and later, AArch64 state); the default, as a log written before
    /// there were two is AArch64's.
    #[default]
    Aarch64,
    /// 32-bit Arm (ARMv7-A, and Armv8-A cores in AArch32 state): the memory types of
    /// [`crate::memtype::armv7`].
    Armv7,
}

/// Every architecture.
pub const ARCHES: [Arch; 2] = [Arch::Aarch64, Arch::Armv7];

impl Arch {
    /// Its name in records and on the command line: `aarch64` or `armv7`.
    pub const fn name(self) -> &'static str {
        match self {
            Arch::Aarch64 => "aarch64",
            Arch::Armv7 => "armv7",
        }
    }

    /// The architecture called `name` (exactly).
    pub fn by_name(name: &str) -> Option<Arch> {
        ARCHES.into_iter().find(|a| a.name() == name)
    }

    /// The names its registers, instructions and levels go by ([`Names`]).
    pub const fn names(self) -> &'static Names {
        match self {
            Arch::Aarch64 => &AARCH64_NAMES,
            Arch::Armv7 => &ARMV7_NAMES,
        }
    }
}

/// The names that differ between the architectures: registers, instructions and levels, as
/// the human lines and the records' text values name them ([`Arch::names`]). Each is also the
/// [`arch_name!`](crate::arch_name) literal of the same name, which the firmware and core's
/// sentences splice into their format strings at compile time (`concat!`), so that the
/// AArch64 image's strings stay whole: sources, the Arm ARM (DDI 0487 for AArch64,
/// DDI 0406C for ARMv7-A).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Names {
    /// The virtual count of the generic timer. `CNTVCT_EL0` or `CNTVCT`.
    pub cntvct: &'static str,
    /// The generic timer's frequency register. `CNTFRQ_EL0` or `CNTFRQ`.
    pub cntfrq: &'static str,
    /// The virtual counter's offset, set by the hypervisor level. `CNTVOFF_EL2` or `CNTVOFF`.
    pub cntvoff: &'static str,
    /// The PMU's cycle counter. `PMCCNTR_EL0` or `PMCCNTR`.
    pub pmccntr: &'static str,
    /// The PMU's software increment register. `PMSWINC_EL0` or `PMSWINC`.
    pub pmswinc: &'static str,
    /// The PMU's implemented common events 0x00-0x1F. `PMCEID0_EL0` or `PMCEID0`.
    pub pmceid0: &'static str,
    /// The PMU's implemented common events 0x20-0x3F. `PMCEID1_EL0` or `PMCEID1`.
    pub pmceid1: &'static str,
    /// Both event identification registers. `PMCEID0/1_EL0` or `PMCEID0/1`.
    pub pmceid: &'static str,
    /// The number of event counters. `PMCR_EL0.N` or `PMCR.N`.
    pub pmcr_n: &'static str,
    /// The ID field giving the PMU's version. `PMUVer` or `PerfMon`.
    pub pmu_version: &'static str,
    /// That field with its ID register. `ID_AA64DFR0_EL1.PMUVer` or `ID_DFR0.PerfMon`.
    pub pmu_id: &'static str,
    /// The prefix of an exception (AArch64) or privilege (ARMv7) level's number. `EL` or `PL`.
    pub level: &'static str,
    /// The level the firmware runs at: EL1, or PL1 (SVC mode). `EL1` or `PL1`.
    pub kernel_level: &'static str,
    /// The floating-point and vector instructions. `FP/SIMD` or `VFP/NEON`.
    pub fp_simd: &'static str,
    /// The asynchronous external abort (capitalized: it starts a sentence). `SError` or
    /// `Asynchronous abort`.
    pub serror: &'static str,
    /// The bit that masks it. `PSTATE.A` or `CPSR.A`.
    pub async_mask: &'static str,
    /// The system control register of the firmware's level. `SCTLR_EL1` or `SCTLR`.
    pub sctlr: &'static str,
    /// The translation-regime registers every CPU must share, as a list. `SCTLR_EL1,
    /// MAIR_EL1, TCR_EL1 and TTBR0_EL1` or `SCTLR, MAIR1:MAIR0, TTBCR and TTBR0`.
    pub regime: &'static str,
    /// Data cache invalidate by address to the point of coherency. `DC IVAC` or `DCIMVAC`.
    pub dc_ivac: &'static str,
    /// Data cache clean by address to the point of coherency. `DC CVAC` or `DCCMVAC`.
    pub dc_cvac: &'static str,
    /// Data cache clean and invalidate by address to the point of coherency. `DC CIVAC` or
    /// `DCCIMVAC`.
    pub dc_civac: &'static str,
    /// Data cache clean and invalidate by set/way. `DC CISW` or `DCCISW`.
    pub dc_cisw: &'static str,
    /// The cache level ID register. `CLIDR_EL1` or `CLIDR`.
    pub clidr: &'static str,
    /// The cache size ID register. `CCSIDR_EL1` or `CCSIDR`.
    pub ccsidr: &'static str,
    /// The address translation instruction the proof of mapping uses, and where it reports.
    /// `AT S1E1R + PAR_EL1` or `ATS1CPR + PAR`.
    pub at_par: &'static str,
    /// The physical address register. `PAR_EL1` or `PAR`.
    pub par: &'static str,
    /// The exception syndrome: AArch64's register, or ARMv7's exception (its DFSR or IFSR
    /// for an abort) put in its terms. `ESR_EL1` or `syndrome (ESR terms)`.
    pub esr: &'static str,
    /// The fault address register. `FAR_EL1` or `DFAR/IFAR`.
    pub far: &'static str,
    /// The faulting instruction's address. `ELR_EL1` or `PC`.
    pub elr: &'static str,
    /// The Rust target the image is built for (its ELF's folder under target/).
    /// `aarch64-unknown-none` or `armv7-unknown-linux-gnueabihf`.
    pub target: &'static str,
    /// Why the zeroing instruction is not tried. `DC ZVA is prohibited here
    /// (DCZID_EL0.DZP)` or `A32 has no DC ZVA`.
    pub zva_refused: &'static str,
    /// What real cores fault on in Device memory, as the device-fault line lists it.
    /// `unaligned accesses and on DC ZVA` or `unaligned accesses`.
    pub device_faulting: &'static str,
    /// The register a boot loader passes the device tree's address in (Linux's boot
    /// protocols: Documentation/arch/arm64/booting.rst, arm/booting.rst). `x0` or `r2`.
    pub dtb_reg: &'static str,
}

impl Names {
    /// Every name, in the fields' order.
    pub const fn each(&self) -> [&'static str; 33] {
        [
            self.cntvct,
            self.cntfrq,
            self.cntvoff,
            self.pmccntr,
            self.pmswinc,
            self.pmceid0,
            self.pmceid1,
            self.pmceid,
            self.pmcr_n,
            self.pmu_version,
            self.pmu_id,
            self.level,
            self.kernel_level,
            self.fp_simd,
            self.serror,
            self.async_mask,
            self.sctlr,
            self.regime,
            self.dc_ivac,
            self.dc_cvac,
            self.dc_civac,
            self.dc_cisw,
            self.clidr,
            self.ccsidr,
            self.at_par,
            self.par,
            self.esr,
            self.far,
            self.elr,
            self.target,
            self.zva_refused,
            self.device_faulting,
            self.dtb_reg,
        ]
    }
}

/// The [`Names`] of `$arch` (`aarch64` or `armv7`), from [`arch_name!`](crate::arch_name).
macro_rules! names_of {
    ($arch:ident) => {
        Names {
            cntvct: crate::arch_name!($arch, cntvct),
            cntfrq: crate::arch_name!($arch, cntfrq),
            cntvoff: crate::arch_name!($arch, cntvoff),
            pmccntr: crate::arch_name!($arch, pmccntr),
            pmswinc: crate::arch_name!($arch, pmswinc),
            pmceid0: crate::arch_name!($arch, pmceid0),
            pmceid1: crate::arch_name!($arch, pmceid1),
            pmceid: crate::arch_name!($arch, pmceid),
            pmcr_n: crate::arch_name!($arch, pmcr_n),
            pmu_version: crate::arch_name!($arch, pmu_version),
            pmu_id: crate::arch_name!($arch, pmu_id),
            level: crate::arch_name!($arch, level),
            kernel_level: crate::arch_name!($arch, kernel_level),
            fp_simd: crate::arch_name!($arch, fp_simd),
            serror: crate::arch_name!($arch, serror),
            async_mask: crate::arch_name!($arch, async_mask),
            sctlr: crate::arch_name!($arch, sctlr),
            regime: crate::arch_name!($arch, regime),
            dc_ivac: crate::arch_name!($arch, dc_ivac),
            dc_cvac: crate::arch_name!($arch, dc_cvac),
            dc_civac: crate::arch_name!($arch, dc_civac),
            dc_cisw: crate::arch_name!($arch, dc_cisw),
            clidr: crate::arch_name!($arch, clidr),
            ccsidr: crate::arch_name!($arch, ccsidr),
            at_par: crate::arch_name!($arch, at_par),
            par: crate::arch_name!($arch, par),
            esr: crate::arch_name!($arch, esr),
            far: crate::arch_name!($arch, far),
            elr: crate::arch_name!($arch, elr),
            target: crate::arch_name!($arch, target),
            zva_refused: crate::arch_name!($arch, zva_refused),
            device_faulting: crate::arch_name!($arch, device_faulting),
            dtb_reg: crate::arch_name!($arch, dtb_reg),
        }
    };
}

/// AArch64's [`Names`].
const AARCH64_NAMES: Names = names_of!(aarch64);
/// ARMv7's [`Names`].
const ARMV7_NAMES: Names = names_of!(armv7);

/// One of the [`Names`] as a string literal, for `concat!` and format strings:
/// `arch_name!(aarch64, cntvct)` or `arch_name!(armv7, cntvct)` for an architecture's,
/// `arch_name!(cntvct)` for the one this build is for (ARMv7's on 32-bit Arm, else AArch64's:
/// the host's tools and tests name registers as the AArch64 image does).
#[macro_export]
macro_rules! arch_name {
    (aarch64, cntvct) => { "CNTVCT_EL0" };
    (armv7, cntvct) => { "CNTVCT" };
    (aarch64, cntfrq) => { "CNTFRQ_EL0" };
    (armv7, cntfrq) => { "CNTFRQ" };
    (aarch64, cntvoff) => { "CNTVOFF_EL2" };
    (armv7, cntvoff) => { "CNTVOFF" };
    (aarch64, pmccntr) => { "PMCCNTR_EL0" };
    (armv7, pmccntr) => { "PMCCNTR" };
    (aarch64, pmswinc) => { "PMSWINC_EL0" };
    (armv7, pmswinc) => { "PMSWINC" };
    (aarch64, pmceid0) => { "PMCEID0_EL0" };
    (armv7, pmceid0) => { "PMCEID0" };
    (aarch64, pmceid1) => { "PMCEID1_EL0" };
    (armv7, pmceid1) => { "PMCEID1" };
    (aarch64, pmceid) => { "PMCEID0/1_EL0" };
    (armv7, pmceid) => { "PMCEID0/1" };
    (aarch64, pmcr_n) => { "PMCR_EL0.N" };
    (armv7, pmcr_n) => { "PMCR.N" };
    (aarch64, pmu_version) => { "PMUVer" };
    (armv7, pmu_version) => { "PerfMon" };
    (aarch64, pmu_id) => { "ID_AA64DFR0_EL1.PMUVer" };
    (armv7, pmu_id) => { "ID_DFR0.PerfMon" };
    (aarch64, level) => { "EL" };
    (armv7, level) => { "PL" };
    (aarch64, kernel_level) => { "EL1" };
    (armv7, kernel_level) => { "PL1" };
    (aarch64, fp_simd) => { "FP/SIMD" };
    (armv7, fp_simd) => { "VFP/NEON" };
    (aarch64, serror) => { "SError" };
    (armv7, serror) => { "Asynchronous abort" };
    (aarch64, async_mask) => { "PSTATE.A" };
    (armv7, async_mask) => { "CPSR.A" };
    (aarch64, sctlr) => { "SCTLR_EL1" };
    (armv7, sctlr) => { "SCTLR" };
    (aarch64, regime) => { "SCTLR_EL1, MAIR_EL1, TCR_EL1 and TTBR0_EL1" };
    (armv7, regime) => { "SCTLR, MAIR1:MAIR0, TTBCR and TTBR0" };
    (aarch64, dc_ivac) => { "DC IVAC" };
    (armv7, dc_ivac) => { "DCIMVAC" };
    (aarch64, dc_cvac) => { "DC CVAC" };
    (armv7, dc_cvac) => { "DCCMVAC" };
    (aarch64, dc_civac) => { "DC CIVAC" };
    (armv7, dc_civac) => { "DCCIMVAC" };
    (aarch64, dc_cisw) => { "DC CISW" };
    (armv7, dc_cisw) => { "DCCISW" };
    (aarch64, clidr) => { "CLIDR_EL1" };
    (armv7, clidr) => { "CLIDR" };
    (aarch64, ccsidr) => { "CCSIDR_EL1" };
    (armv7, ccsidr) => { "CCSIDR" };
    (aarch64, at_par) => { "AT S1E1R + PAR_EL1" };
    (armv7, at_par) => { "ATS1CPR + PAR" };
    (aarch64, par) => { "PAR_EL1" };
    (armv7, par) => { "PAR" };
    (aarch64, esr) => { "ESR_EL1" };
    (armv7, esr) => { "syndrome (ESR terms)" };
    (aarch64, far) => { "FAR_EL1" };
    (armv7, far) => { "DFAR/IFAR" };
    (aarch64, elr) => { "ELR_EL1" };
    (armv7, elr) => { "PC" };
    (aarch64, target) => { "aarch64-unknown-none" };
    (armv7, target) => { "armv7-unknown-linux-gnueabihf" };
    (aarch64, zva_refused) => { "DC ZVA is prohibited here (DCZID_EL0.DZP)" };
    (armv7, zva_refused) => { "A32 has no DC ZVA" };
    (aarch64, device_faulting) => { "unaligned accesses and on DC ZVA" };
    (armv7, device_faulting) => { "unaligned accesses" };
    (aarch64, dtb_reg) => { "x0" };
    (armv7, dtb_reg) => { "r2" };
    ($name:ident) => {
        $crate::arch_name!(@built $name)
    };
    (@built $name:ident) => {
        $crate::__arch_name_built!($name)
    };
}

/// [`arch_name!`](crate::arch_name) of the architecture this build is for: ARMv7's.
#[cfg(target_arch = "arm")]
#[doc(hidden)]
#[macro_export]
macro_rules! __arch_name_built {
    ($name:ident) => {
        $crate::arch_name!(armv7, $name)
    };
}

/// [`arch_name!`](crate::arch_name) of the architecture this build is for: AArch64's.
#[cfg(not(target_arch = "arm"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __arch_name_built {
    ($name:ident) => {
        $crate::arch_name!(aarch64, $name)
    };
}

/// Each architecture's tables: what its image measures, under its names. Not in the AArch64
/// image, which holds no ARMv7 table; the host reads logs of both with them.
#[cfg(not(target_arch = "aarch64"))]
impl Arch {
    /// The memory types its image maps, in slot order (a type's `index` is its row of
    /// [`crate::memtype::MEMTYPES`]).
    pub fn memtypes(self) -> &'static [crate::memtype::MemType] {
        match self {
            Arch::Aarch64 => &crate::memtype::MEMTYPES,
            Arch::Armv7 => &crate::memtype::armv7::MEMTYPES,
        }
    }

    /// The kernels its image measures, in table order (a kernel's `kernel` is its row of
    /// [`crate::kernel::KERNELS`]).
    pub fn kernels(self) -> &'static [crate::kernel::KernelSpec] {
        match self {
            Arch::Aarch64 => &crate::kernel::KERNELS,
            Arch::Armv7 => &crate::kernel::armv7::KERNELS,
        }
    }

    /// Row `kernel` of the kernel table as this architecture has it (its name, its summary);
    /// `None` where it has no such loop (`read-ldnp`, `write-stnp`, `fill-zva` on ARMv7).
    pub fn kernel(
        self,
        kernel: crate::kernel::Kernel,
    ) -> Option<&'static crate::kernel::KernelSpec> {
        self.kernels().iter().find(|k| k.kernel == kernel)
    }

    /// Row `row` of the memory-type table as this architecture has it; `None` where it has
    /// no such type (Device-nGRE and Device-GRE on ARMv7).
    pub fn memtype(self, row: usize) -> Option<&'static crate::memtype::MemType> {
        self.memtypes().iter().find(|t| usize::from(t.index) == row)
    }
}

/// Sentences that a build for another architecture than 32-bit Arm wrote (the host's: its
/// [`arch_name!`](crate::arch_name) and kernel and memory-type names are AArch64's), in the
/// names of a log's architecture: what the host prints when it judges a log again. Not in
/// the AArch64 image.
#[cfg(not(target_arch = "aarch64"))]
impl Arch {
    /// Each name that differs on this architecture, as (AArch64's, this one's): the
    /// registers, instructions and levels of [`Names`], the other levels a sentence names
    /// ([`OTHER_LEVELS`]), then the kernels and the memory types it has.
    pub fn renames(self) -> impl Iterator<Item = (&'static str, &'static str)> {
        let levels = match self {
            Arch::Aarch64 => &[][..],
            Arch::Armv7 => &OTHER_LEVELS[..],
        };
        let names = AARCH64_NAMES
            .each()
            .into_iter()
            .zip(self.names().each())
            .chain(levels.iter().copied());
        let kernels = Arch::Aarch64
            .kernels()
            .iter()
            .filter_map(move |k| Some((k.name, self.kernel(k.kernel)?.name)));
        let memtypes = Arch::Aarch64
            .memtypes()
            .iter()
            .filter_map(move |t| Some((t.name, self.memtype(usize::from(t.index))?.name)));
        names.chain(kernels).chain(memtypes).filter(|(a, b)| a != b)
    }

    /// The longest name of [`Arch::renames`] that starts `text` and ends at a word's end
    /// (not followed by a letter, digit, `_` or `-`), with this architecture's name for it.
    fn rename_at(self, text: &str) -> Option<(&'static str, &'static str)> {
        self.renames()
            .filter(|(from, _)| {
                text.strip_prefix(from)
                    .is_some_and(|rest| !rest.starts_with(is_word))
            })
            .max_by_key(|(from, _)| from.len())
    }

    /// `text` in this architecture's names ([`InNames`]).
    pub fn in_names(self, text: &str) -> InNames<'_> {
        InNames { arch: self, text }
    }
}

/// The exception levels other than the firmware's own ([`Names::kernel_level`]) as ARMv7
/// names them: its privilege levels, PL0 user mode and PL2 Hyp mode (Arm ARM DDI 0406C,
/// B1.3.1 "ARM processor modes"). EL3 has no PL of its own there (Monitor mode is Secure
/// PL1), so it is left as written.
#[cfg(not(target_arch = "aarch64"))]
const OTHER_LEVELS: [(&str, &str); 2] = [("EL0", "PL0"), ("EL2", "PL2")];

/// A character that continues a name.
#[cfg(not(target_arch = "aarch64"))]
fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

/// A sentence written with AArch64's names, displayed in [`InNames::arch`]'s: every name of
/// [`Arch::renames`] that stands as a word of its own (`DC IVAC` becomes `DCIMVAC`, `read-ldp`
/// `read-ldm`, `SCTLR_EL1` `SCTLR`), the rest as it is.
#[cfg(not(target_arch = "aarch64"))]
#[derive(Debug, Clone, Copy)]
pub struct InNames<'a> {
    /// The architecture whose names it is shown in.
    pub arch: Arch,
    /// The sentence.
    pub text: &'a str,
}

#[cfg(not(target_arch = "aarch64"))]
impl core::fmt::Display for InNames<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        if self.arch == Arch::Aarch64 {
            return f.write_str(self.text);
        }
        let mut rest = self.text;
        let mut at_start = true;
        while let Some(c) = rest.chars().next() {
            if at_start {
                if let Some((from, to)) = self.arch.rename_at(rest) {
                    f.write_str(to)?;
                    rest = rest.get(from.len()..).unwrap_or("");
                    at_start = false;
                    continue;
                }
            }
            write!(f, "{c}")?;
            at_start = !is_word(c);
            rest = rest.get(c.len_utf8()..).unwrap_or("");
        }
        Ok(())
    }
}

/// An ARMv7 processor mode (CPSR.M, bits 4:0), as the 32-bit image's entry reports it: its
/// name and the exception level it stands for in records (`entry_el`; Arm ARM DDI 0406C,
/// "ARM processor modes": User is PL0, the exception modes and System PL1, Hyp PL2, Monitor
/// the Secure PL1 mode that Armv8 calls EL3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mode {
    /// `usr`, `fiq`, `irq`, `svc`, `mon`, `abt`, `hyp`, `und` or `sys`.
    pub name: &'static str,
    /// 0 to 3.
    pub el: u8,
}

/// The mode CPSR.M encodes in `cpsr`'s bits 4:0; `None` for an encoding ARMv7 reserves.
/// U-Boot's `bootz`/`bootm` enter in SVC (`0x13`), or in HYP (`0x1a`) with virtualization.
pub fn armv7_mode(cpsr: u32) -> Option<Mode> {
    let (name, el) = match cpsr & 0x1f {
        0x10 => ("usr", 0),
        0x11 => ("fiq", 1),
        0x12 => ("irq", 1),
        0x13 => ("svc", 1),
        0x16 => ("mon", 3),
        0x17 => ("abt", 1),
        0x1a => ("hyp", 2),
        0x1b => ("und", 1),
        0x1f => ("sys", 1),
        _ => return None,
    };
    Some(Mode { name, el })
}

/// What an ARMv7 core's ID registers say the 32-bit image can use (Arm ARM DDI 0406C,
/// "ID_MMFR0" and "ID_PFR1").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Armv7Features {
    /// ID_MMFR0.VMSA (bits 3:0) is 5 or more: long descriptors (LPAE), so the memory types
    /// go in MAIR0/MAIR1; else short descriptors with TEX remap (PRRR/NMRR).
    pub lpae: bool,
    /// ID_PFR1.GenTimer (bits 19:16) is not 0: CNTVCT times the run.
    pub generic_timer: bool,
    /// ID_PFR1.Virtualization (bits 15:12) is not 0: the core has HYP mode.
    pub virtualization: bool,
}

/// Reads [`Armv7Features`] from ID_MMFR0 and ID_PFR1. As QEMU 10 presents them: VMSA 5 on
/// the Cortex-A7 and A15, 3 on the A8 and A9 (the A9's ID_MMFR0 is `0x00100103`); GenTimer 1
/// on the A7, 0 on the A8 and A9.
pub fn armv7_features(id_mmfr0: u32, id_pfr1: u32) -> Armv7Features {
    Armv7Features {
        lpae: id_mmfr0 & 0xf >= 5,
        generic_timer: id_pfr1 >> 16 & 0xf != 0,
        virtualization: id_pfr1 >> 12 & 0xf != 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for arch in ARCHES {
            assert_eq!(Arch::by_name(arch.name()), Some(arch));
        }
        assert_eq!(Arch::by_name("armv7"), Some(Arch::Armv7));
        assert_eq!(Arch::by_name("arm64"), None);
        assert_eq!(Arch::by_name("ARMv7"), None);
    }

    #[test]
    fn sentences_in_a_log_s_names() {
        extern crate std;
        use std::string::ToString;
        let v7 = |text: &str| Arch::Armv7.in_names(text).to_string();
        // The host's sentences of an armv7 log, as core words them for AArch64.
        assert_eq!(
            v7("SCTLR_EL1.C and I are set but no measurement shows a cache: normal-wb reads"),
            "SCTLR.C and I are set but no measurement shows a cache: normal-wb reads"
        );
        assert_eq!(
            v7("under QEMU PMCCNTR_EL0 counts virtual nanoseconds, not core cycles"),
            "under QEMU PMCCNTR counts virtual nanoseconds, not core cycles"
        );
        assert_eq!(
            v7("and DC IVAC made normal-wb read what normal-nc wrote"),
            "and DCIMVAC made normal-wb read what normal-nc wrote"
        );
        // The hinted write-back type by its role (the table's name may change: the lab's
        // renaming exercise, host/tests/tooling/rename.rs).
        let hinted = crate::memtype::position(crate::memtype::Role::WriteBackHinted)
            .and_then(|i| crate::memtype::MEMTYPES.get(i))
            .map_or("", |t| t.name);
        assert_eq!(
            v7(&std::format!("{hinted} writes (write-stp) at 4 KiB")),
            "normal-wb-nowa writes (write-stm) at 4 KiB"
        );
        assert_eq!(
            v7("all 4 CPUs run with the boot CPU's SCTLR_EL1, MAIR_EL1, TCR_EL1 and TTBR0_EL1"),
            "all 4 CPUs run with the boot CPU's SCTLR, MAIR1:MAIR0, TTBCR and TTBR0"
        );
        // Only whole words: a longer name, or one inside another word, stays.
        assert_eq!(v7("read-ldpx EL2x xDC IVAC"), "read-ldpx EL2x xDC IVAC");
        assert_eq!(v7("at EL1."), "at PL1.");
        assert_eq!(
            v7("entered at EL2, run at EL1, loops at EL0; EL3 stays"),
            "entered at PL2, run at PL1, loops at PL0; EL3 stays"
        );
        // AArch64's own logs are shown as written.
        let text = std::format!("DC IVAC on {hinted}");
        assert_eq!(Arch::Aarch64.in_names(&text).to_string(), text);
        // Every rename is of a name that differs, none of a name to itself.
        assert!(Arch::Armv7.renames().all(|(a, b)| a != b && !a.is_empty()));
        assert!(Arch::Aarch64.renames().next().is_none());
    }

    #[test]
    fn aarch64_names_are_the_image_s_strings() {
        // The AArch64 column: exactly the strings the AArch64 image printed before the
        // table existed; its output must not change.
        let n = Arch::Aarch64.names();
        let joined = [
            n.cntvct,
            n.cntfrq,
            n.cntvoff,
            n.pmccntr,
            n.pmswinc,
            n.pmceid0,
            n.pmceid1,
            n.pmceid,
            n.pmcr_n,
            n.pmu_version,
            n.pmu_id,
            n.level,
            n.kernel_level,
            n.fp_simd,
            n.serror,
            n.async_mask,
            n.sctlr,
            n.regime,
            n.dc_ivac,
            n.dc_cvac,
            n.dc_civac,
            n.dc_cisw,
            n.clidr,
            n.ccsidr,
            n.at_par,
            n.par,
            n.esr,
            n.far,
            n.elr,
            n.target,
            n.zva_refused,
            n.device_faulting,
            n.dtb_reg,
        ]
        .join("|");
        assert_eq!(
            joined,
            "CNTVCT_EL0|CNTFRQ_EL0|CNTVOFF_EL2|PMCCNTR_EL0|PMSWINC_EL0|PMCEID0_EL0|PMCEID1_EL0|\
             PMCEID0/1_EL0|PMCR_EL0.N|PMUVer|ID_AA64DFR0_EL1.PMUVer|EL|EL1|FP/SIMD|SError|\
             PSTATE.A|SCTLR_EL1|SCTLR_EL1, MAIR_EL1, TCR_EL1 and TTBR0_EL1|DC IVAC|DC CVAC|\
             DC CIVAC|DC CISW|CLIDR_EL1|CCSIDR_EL1|AT S1E1R + PAR_EL1|PAR_EL1|ESR_EL1|FAR_EL1|\
             ELR_EL1|aarch64-unknown-none|DC ZVA is prohibited here (DCZID_EL0.DZP)|\
             unaligned accesses and on DC ZVA|x0"
        );
        // The literals the sentences splice in are the table's, and the host's build (not
        // 32-bit Arm) names AArch64's.
        assert_eq!(crate::arch_name!(aarch64, dc_ivac), n.dc_ivac);
        assert_eq!(crate::arch_name!(cntvct), n.cntvct);
        assert_eq!(
            concat!(crate::arch_name!(cntvct), " advances"),
            "CNTVCT_EL0 advances"
        );
    }

    #[test]
    fn armv7_names() {
        // Arm ARM DDI 0406C's names (ARMv7-A): CP15 registers without an _ELn suffix,
        // privilege levels, the by-MVA cache operations; the regime registers in the order
        // the 32-bit image's smp-registers check lists them.
        let n = Arch::Armv7.names();
        assert_eq!(
            (n.cntvct, n.cntfrq, n.pmccntr),
            ("CNTVCT", "CNTFRQ", "PMCCNTR")
        );
        assert_eq!((n.pmu_id, n.pmcr_n), ("ID_DFR0.PerfMon", "PMCR.N"));
        assert_eq!((n.kernel_level, n.async_mask), ("PL1", "CPSR.A"));
        assert_eq!(
            (n.dc_ivac, n.dc_cvac, n.dc_civac),
            ("DCIMVAC", "DCCMVAC", "DCCIMVAC")
        );
        assert_eq!(n.regime, "SCTLR, MAIR1:MAIR0, TTBCR and TTBR0");
        // No ARMv7 name carries an AArch64 suffix or instruction form.
        let a = Arch::Aarch64.names();
        for (v7, a64) in [
            (n.cntvct, a.cntvct),
            (n.cntfrq, a.cntfrq),
            (n.cntvoff, a.cntvoff),
            (n.pmswinc, a.pmswinc),
            (n.pmceid, a.pmceid),
            (n.sctlr, a.sctlr),
            (n.clidr, a.clidr),
            (n.ccsidr, a.ccsidr),
            (n.par, a.par),
            (n.at_par, a.at_par),
            (n.dc_cisw, a.dc_cisw),
        ] {
            assert!(!v7.contains("_EL") && !v7.starts_with("DC "), "{v7}");
            assert_ne!(v7, a64);
        }
    }

    #[test]
    fn each_architecture_names_the_rows_it_has() {
        use crate::kernel::{Kernel, KERNELS};
        use crate::memtype::{self, Role, MEMTYPES};
        for arch in ARCHES {
            for t in arch.memtypes() {
                let row = usize::from(t.index);
                assert_eq!(arch.memtype(row), Some(t));
                // A name both architectures use finds the AArch64 row's entry: the same row.
                let found = memtype::by_any_name(t.name).map(|f| (f.index, f.role));
                assert_eq!(found, Some((t.index, t.role)), "{}", t.name);
                assert_eq!(t.role, MEMTYPES[row].role, "{}", t.name);
            }
            for k in arch.kernels() {
                assert_eq!(arch.kernel(k.kernel), Some(k));
                let found = crate::kernel::by_name(k.name).map(|f| f.kernel);
                assert_eq!(found, Some(k.kernel), "{}", k.name);
            }
        }
        assert_eq!(Arch::Aarch64.kernels().len(), KERNELS.len());
        assert_eq!(Arch::Aarch64.memtypes().len(), MEMTYPES.len());
        let v7 = Arch::Armv7;
        assert_eq!(v7.kernel(Kernel::ReadLdp).map(|k| k.name), Some("read-ldm"));
        assert_eq!(
            v7.kernel(Kernel::MaintIvac).map(|k| k.name),
            Some("maint-dcimvac")
        );
        assert_eq!(v7.kernel(Kernel::FillZva), None);
        let hinted = memtype::position(Role::WriteBackHinted).unwrap();
        assert_eq!(v7.memtype(hinted).map(|t| t.name), Some("normal-wb-nowa"));
        assert_eq!(v7.memtype(7), None);
        let nowa = memtype::by_any_name("normal-wb-nowa").unwrap();
        assert_eq!(
            (usize::from(nowa.index), nowa.role),
            (hinted, Role::WriteBackHinted)
        );
        assert_eq!(memtype::by_name("normal-wb-nowa"), None);
        assert_eq!(memtype::by_any_name("normal-wb-wa"), None);
    }

    #[test]
    fn armv7_id_registers() {
        // The Cortex-A9 of QEMU (ID_MMFR0 0x00100103): short descriptors; no generic timer.
        let a9 = armv7_features(0x0010_0103, 0x0000_0011);
        assert!(!a9.lpae && !a9.generic_timer && !a9.virtualization);
        // Shaped as a Cortex-A7: VMSA 5, and GenTimer, Virtualization and Security set.
        let a7 = armv7_features(0x1010_1105, 0x0001_1131);
        assert!(a7.lpae && a7.generic_timer && a7.virtualization);
        assert!(
            !armv7_features(0x4, 0).lpae,
            "VMSA 4: PXN, still short descriptors"
        );
    }

    #[test]
    fn armv7_modes() {
        // U-Boot's entries: SVC with IRQ and FIQ masked (0x1d3), HYP (0x1da, as the probe of
        // QEMU's virt with virtualization=on read it: 0x1a in the low bits).
        assert_eq!(armv7_mode(0x1d3), Some(Mode { name: "svc", el: 1 }));
        assert_eq!(armv7_mode(0x1da), Some(Mode { name: "hyp", el: 2 }));
        assert_eq!(armv7_mode(0x16).map(|m| m.el), Some(3));
        for reserved in [0x00, 0x14, 0x15, 0x18, 0x19, 0x1c, 0x1d, 0x1e] {
            assert_eq!(armv7_mode(reserved), None, "{reserved:#x}");
        }
        assert_eq!((0..32).filter_map(armv7_mode).count(), 9);
    }
}
