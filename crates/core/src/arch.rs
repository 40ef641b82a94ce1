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
