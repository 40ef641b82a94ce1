//! The architectures mairbench runs on ([`ARCHES`]): each run's `start` record names its
//! own (`arch`), and the host reads logs of either with the same commands.

/// An architecture mairbench runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arch {
    /// 64-bit Arm (Armv8-A and later, AArch64 state).
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
