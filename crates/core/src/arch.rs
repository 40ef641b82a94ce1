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

/// Every architecture, by its record name.
pub const ARCHES: [(&str, Arch); 2] = [("aarch64", Arch::Aarch64), ("armv7", Arch::Armv7)];

impl Arch {
    /// Its name in records and on the command line: `aarch64` or `armv7`.
    pub const fn name(self) -> &'static str {
        match self {
            Arch::Aarch64 => "aarch64",
            Arch::Armv7 => "armv7",
        }
    }

    /// The architecture called `name`; a `start` record without an `arch` field (written
    /// before there was a second one) is `aarch64`'s.
    pub fn by_name(name: &str) -> Option<Arch> {
        ARCHES.iter().find(|(n, _)| *n == name).map(|(_, a)| *a)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for (name, arch) in ARCHES {
            assert_eq!(arch.name(), name);
            assert_eq!(Arch::by_name(name), Some(arch));
        }
        assert_eq!(Arch::by_name("arm64"), None);
        assert_eq!(Arch::by_name("ARMv7"), None);
    }
}
