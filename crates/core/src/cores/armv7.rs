//! The ARMv7 cores' SMP bits (issue 32's `smp-config` on 32-bit Arm): which bits of the
//! Auxiliary Control Register a core needs set to take part in coherency, and what a read
//! ACTLR says. Kept apart from [`CORES`](super::CORES), whose rows the AArch64 image holds.
//!
//! Linux sets them before it turns the MMU on, in an SMP build only: arch/arm/mm/proc-v7.S
//! `__v7_ca5mp_setup`/`__v7_ca9mp_setup` set SMP (bit 6) and FW (bit 0, cache and TLB
//! maintenance broadcast), `__v7_ca7mp_setup`, `__v7_ca12mp_setup`, `__v7_ca15mp_setup` and
//! `__v7_ca17mp_setup` set SMP alone, under `#ifdef CONFIG_SMP` and `ALT_SMP`, so a kernel
//! built without CONFIG_SMP (the public report "PROBLEM: ARM Cache policy on single armv7
//! processor lead to low DRAM performance", Zhao Yibin) leaves them as the boot loader did.

use super::Cited;

/// ACTLR.SMP (bit 6): the core takes part in coherency.
pub const SMP: u32 = 1 << 6;

/// ACTLR.FW (bit 0, Cortex-A5 and A9): cache and TLB maintenance is broadcast.
pub const FW: u32 = 1 << 0;

/// What an ARMv7 core needs of ACTLR.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SmpBits {
    /// Its name, e.g. `Cortex-A7`.
    pub name: &'static str,
    /// MIDR.PartNum (bits 15:4); the implementer is Arm (0x41).
    pub part: u16,
    /// The bits Linux's SMP setup sets ([`SMP`], and [`FW`] on the A5 and A9).
    pub needs: u32,
    /// What a clear SMP bit does on this core, where its manual says.
    pub clear: Option<&'static Cited>,
}

const A9_CLEAR: Cited = Cited {
    says: "with ACTLR.SMP clear the core is not coherent with the others, and Shareable \
           Normal memory is treated as Non-cacheable",
    source: "Cortex-A9 TRM (DDI 0388), \"Auxiliary Control Register\"",
};

/// The ARMv7 cores whose SMP bits Linux sets, by MIDR part number (Linux's
/// arch/arm/include/asm/cputype.h `ARM_CPU_PART_CORTEX_*`). The Cortex-A8 has no SMP bit: it
/// is a uniprocessor.
pub const ARMV7_SMP: [SmpBits; 6] = [
    SmpBits {
        name: "Cortex-A5",
        part: 0xc05,
        needs: SMP | FW,
        clear: None,
    },
    SmpBits {
        name: "Cortex-A7",
        part: 0xc07,
        needs: SMP,
        clear: None,
    },
    SmpBits {
        name: "Cortex-A9",
        part: 0xc09,
        needs: SMP | FW,
        clear: Some(&A9_CLEAR),
    },
    SmpBits {
        name: "Cortex-A12",
        part: 0xc0d,
        needs: SMP,
        clear: None,
    },
    SmpBits {
        name: "Cortex-A15",
        part: 0xc0f,
        needs: SMP,
        clear: None,
    },
    SmpBits {
        name: "Cortex-A17",
        part: 0xc0e,
        needs: SMP,
        clear: None,
    },
];

/// What a read ACTLR says of a core's SMP bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Actlr {
    /// Not an Arm core of [`ARMV7_SMP`]: nothing to say.
    Unknown,
    /// Every bit the core needs is set.
    Set(&'static SmpBits),
    /// These of the bits it needs are clear.
    Missing(&'static SmpBits, u32),
}

/// Judges `actlr` read on the core `midr` names.
pub fn judge(midr: u32, actlr: u32) -> Actlr {
    let part = u16::try_from(midr >> 4 & 0xfff).unwrap_or(0);
    let arm = midr >> 24 == 0x41;
    match ARMV7_SMP.iter().find(|c| arm && c.part == part) {
        None => Actlr::Unknown,
        Some(c) if actlr & c.needs == c.needs => Actlr::Set(c),
        Some(c) => Actlr::Missing(c, c.needs & !actlr),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn by_midr() {
        // A Cortex-A7 r0p5 (MIDR 0x410fc075) and a Cortex-A9 r4p1 (0x414fc091).
        let a7 = 0x410f_c075;
        let a9 = 0x414f_c091;
        assert!(matches!(judge(a7, SMP), Actlr::Set(c) if c.name == "Cortex-A7"));
        assert!(matches!(judge(a7, 0), Actlr::Missing(c, SMP) if c.clear.is_none()));
        assert!(matches!(judge(a9, SMP), Actlr::Missing(c, FW) if c.clear.is_some()));
        assert!(matches!(judge(a9, SMP | FW | 0x40_0000), Actlr::Set(_)));
        // The Cortex-A8 (0x413fc082) has no SMP bit; another implementer's part is not Arm's.
        assert_eq!(judge(0x413f_c082, 0), Actlr::Unknown);
        assert_eq!(judge(0x510f_c075, 0), Actlr::Unknown);
    }

    #[test]
    fn table_shape() {
        for (i, c) in ARMV7_SMP.iter().enumerate() {
            assert!(c.needs & SMP != 0, "{}", c.name);
            assert!(
                ARMV7_SMP[..i].iter().all(|o| o.part != c.part),
                "{}",
                c.name
            );
        }
    }
}
