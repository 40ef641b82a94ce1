//! The ARMv7 cores' SMP bits (issue 32's `smp-config` on 32-bit Arm): which bits of the
//! Auxiliary Control Register a core needs set to take part in coherency, and what a read
//! ACTLR says. Each core's name is its row of [`CORES_ARMV7`](super::CORES_ARMV7), under the same part.
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
    /// MIDR.PartNum (bits 15:4); the implementer is Arm (0x41).
    pub part: u16,
    /// The bits Linux's SMP setup sets ([`SMP`], and [`FW`] on the A5 and A9).
    pub needs: u32,
    /// What a clear SMP bit does on this core, where its manual says.
    pub clear: Option<&'static Cited>,
    /// Its manual says that with SMP clear Shareable Normal memory is not cached (the A5 and
    /// A9): a clear bit then costs even a single core its data cache.
    pub uncached: bool,
}

impl SmpBits {
    /// Its name, e.g. `Cortex-A7`: its row's of [`CORES_ARMV7`](super::CORES_ARMV7).
    pub fn name(&self) -> &'static str {
        super::CORES_ARMV7
            .iter()
            .find(|c| c.implementer == 0x41 && c.part == self.part)
            .map_or("an Arm core", |c| c.name)
    }
}

const A9_CLEAR: Cited = Cited {
    says: "with ACTLR.SMP clear the core is not coherent with the others, and Shareable \
           Normal memory is treated as Non-cacheable",
    source: "Cortex-A9 TRM (DDI 0388), \"Auxiliary Control Register\" and section 7.4.3",
};

const A5_CLEAR: Cited = Cited {
    says: "with ACTLR.SMP clear, Shareable write-back memory is treated as Non-cacheable",
    source: "Cortex-A5 TRM (DDI 0433), Level 1 Memory System, the treatment of each memory \
             type (restated in Microchip's SAMA5 datasheets, \"Treatment of Memory \
             Attributes\")",
};

/// What the U-Boot option that sets the bit says of every ARMv7 Cortex core with SMP.
const BEFORE_MAINTENANCE: &str = "with ACTLR.SMP clear the core takes no part in coherency; \
                                  the bit must be set before the caches and the MMU are \
                                  enabled and before any cache or TLB maintenance";

const A7_CLEAR: Cited = Cited {
    says: BEFORE_MAINTENANCE,
    source: "Cortex-A7 TRM (DDI 0464), \"Auxiliary Control Register\", SMP; U-Boot \
             arch/arm/cpu/armv7/start.S CONFIG_ARMV7_SET_CORTEX_SMPEN",
};

const A15_CLEAR: Cited = Cited {
    says: BEFORE_MAINTENANCE,
    source: "Cortex-A15 TRM (DDI 0438), \"Auxiliary Control Register\", SMP; U-Boot \
             arch/arm/cpu/armv7/start.S CONFIG_ARMV7_SET_CORTEX_SMPEN",
};

/// The ARMv7 cores whose SMP bits Linux sets, by MIDR part number (Linux's
/// arch/arm/include/asm/cputype.h `ARM_CPU_PART_CORTEX_*`). The Cortex-A8 has no SMP bit: it
/// is a uniprocessor.
pub const ARMV7_SMP: [SmpBits; 6] = [
    SmpBits {
        part: 0xc05,
        needs: SMP | FW,
        clear: Some(&A5_CLEAR),
        uncached: true,
    },
    SmpBits {
        part: 0xc07,
        needs: SMP,
        clear: Some(&A7_CLEAR),
        uncached: false,
    },
    SmpBits {
        part: 0xc09,
        needs: SMP | FW,
        clear: Some(&A9_CLEAR),
        uncached: true,
    },
    SmpBits {
        part: 0xc0d,
        needs: SMP,
        clear: None,
        uncached: false,
    },
    SmpBits {
        part: 0xc0f,
        needs: SMP,
        clear: Some(&A15_CLEAR),
        uncached: false,
    },
    SmpBits {
        part: 0xc0e,
        needs: SMP,
        clear: None,
        uncached: false,
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

/// What the 32-bit image found of a core's SMP bits at entry, and what they are after it set
/// the missing ones (as Linux's SMP setup does, before the caches go on). ACTLR is writable at
/// PL1 in the Secure state, and in the Non-secure state only where NSACR.NS_SMP allows (Arm
/// ARM DDI 0406C, "NSACR"; the cores' TRMs, "Auxiliary Control Register"): elsewhere the
/// write is ignored and the bits stay as the boot loader left them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SmpSetup {
    /// The core's bits.
    pub core: &'static SmpBits,
    /// ACTLR's value at entry.
    pub entry: u32,
    /// ACTLR at entry, judged.
    pub found: Actlr,
    /// ACTLR after the image's write (the same when nothing was missing).
    pub now: Actlr,
    /// ACTLR's value now.
    pub actlr: u32,
}

impl SmpSetup {
    /// Judges ACTLR on the core `midr` names, read at entry (`found`) and after the image
    /// set what was missing (`now`); `None` for a core with nothing to say.
    pub fn of(midr: u32, found: u32, now: u32) -> Option<SmpSetup> {
        let entry = found;
        let found = judge(midr, found);
        let core = match found {
            Actlr::Set(c) | Actlr::Missing(c, _) => c,
            Actlr::Unknown => return None,
        };
        Some(SmpSetup {
            core,
            entry,
            found,
            now: judge(midr, now),
            actlr: now,
        })
    }

    /// Every bit the core needs is set now.
    pub fn ok(&self) -> bool {
        matches!(self.now, Actlr::Set(_))
    }

    /// The bits the core needs that are clear now.
    pub fn missing(&self) -> u32 {
        match self.now {
            Actlr::Missing(_, bits) => bits,
            _ => 0,
        }
    }

    /// Whether the image set bits the boot loader had left clear.
    pub fn set_by_image(&self) -> bool {
        matches!(self.found, Actlr::Missing(..)) && self.actlr != self.entry
    }

    /// Writes its `smp_bits` record, from which [`crate::verdict`] judges a log again
    /// (with the `start` record's MIDR: [`SmpSetup::of`] of `entry` and `actlr`).
    pub fn record(&self, out: &mut impl core::fmt::Write) -> core::fmt::Result {
        let c = self.core;
        crate::record::Record::new(out, &crate::schema::SMP_BITS)
            .str("core", c.name())
            .hex("needs", c.needs.into())
            .hex("entry", self.entry.into())
            .hex("actlr", self.actlr.into())
            .hex("missing", self.missing().into())
            .bool("set_by_image", self.set_by_image())
            .finish()
    }
}

/// The bits of `bits` by name: `SMP`, `FW` or `SMP and FW`.
pub fn names(bits: u32) -> &'static str {
    match (bits & SMP != 0, bits & FW != 0) {
        (true, true) => "SMP and FW",
        (true, false) => "SMP",
        _ => "FW",
    }
}

impl core::fmt::Display for SmpSetup {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match (self.found, self.now) {
            (Actlr::Set(c), _) => write!(
                f,
                "ACTLR {:#x}: {}'s {} set by the boot loader, so its caches take part in coherency",
                self.actlr,
                c.name(),
                names(c.needs)
            ),
            (Actlr::Missing(c, bits), Actlr::Set(_)) => write!(
                f,
                "ACTLR.{} was clear at entry: set before the caches went on, as Linux's SMP setup \
                 does (arch/arm/mm/proc-v7.S), so {}'s caches take part in coherency",
                names(bits),
                c.name()
            ),
            (Actlr::Missing(c, _), Actlr::Missing(_, bits)) => {
                write!(
                    f,
                    "ACTLR {:#x}: {}'s {} clear, and the write to set it was ignored (Non-secure \
                     PL1 without NSACR.NS_SMP): its caches are out of coherency with the other \
                     cores'",
                    self.actlr,
                    c.name(),
                    names(bits)
                )?;
                if let Some(clear) = c.clear {
                    write!(f, "; {} ({})", clear.says, clear.source)?;
                }
                write!(f, ". Set it in the secure firmware or the boot loader")
            }
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    #[test]
    fn by_midr() {
        // A Cortex-A7 r0p5 (MIDR 0x410fc075) and a Cortex-A9 r4p1 (0x414fc091).
        let a7 = 0x410f_c075;
        let a9 = 0x414f_c091;
        assert!(matches!(judge(a7, SMP), Actlr::Set(c) if c.name() == "Cortex-A7"));
        assert!(matches!(judge(a7, 0), Actlr::Missing(c, SMP) if !c.uncached));
        assert!(matches!(judge(a9, SMP), Actlr::Missing(c, FW) if c.uncached));
        // Only the A12 and A17 have no cited consequence of a clear bit.
        for c in &ARMV7_SMP {
            assert_eq!(
                c.clear.is_none(),
                [0xc0d, 0xc0e].contains(&c.part),
                "{}",
                c.name()
            );
            assert!(c.clear.is_some() || !c.uncached);
        }
        assert!(matches!(judge(a9, SMP | FW | 0x40_0000), Actlr::Set(_)));
        // The Cortex-A8 (0x413fc082) has no SMP bit; another implementer's part is not Arm's.
        assert_eq!(judge(0x413f_c082, 0), Actlr::Unknown);
        assert_eq!(judge(0x510f_c075, 0), Actlr::Unknown);
    }

    #[test]
    fn table_shape() {
        for (i, c) in ARMV7_SMP.iter().enumerate() {
            assert!(c.needs & SMP != 0, "{}", c.name());
            assert!(
                ARMV7_SMP[..i].iter().all(|o| o.part != c.part),
                "{}",
                c.name()
            );
        }
    }

    #[test]
    fn what_the_image_did_is_said() {
        use std::string::ToString;
        let a7 = 0x410f_c075;
        let set = SmpSetup::of(a7, SMP, SMP).unwrap();
        assert!(set.ok() && set.to_string().contains("set by the boot loader"));
        let fixed = SmpSetup::of(a7, 0, SMP).unwrap();
        assert!(
            fixed.ok()
                && fixed
                    .to_string()
                    .starts_with("ACTLR.SMP was clear at entry")
        );
        let a9 = 0x414f_c091;
        let stuck = SmpSetup::of(a9, SMP, SMP).unwrap();
        assert!(!stuck.ok());
        let text = stuck.to_string();
        assert!(
            text.contains("FW clear") && text.contains("DDI 0388"),
            "{text}"
        );
        assert_eq!(
            SmpSetup::of(0x410f_c080, 0, 0),
            None,
            "the Cortex-A8: no SMP bit"
        );
    }
}
