//! What each common Arm core does where the architecture lets it choose: one table
//! ([`CORES`]), keyed by MIDR_EL1's implementer and part number, each statement with the
//! document that makes it. A core that is not in the table, or a question its row leaves
//! empty, gets only the architecture's guarantees; the verdicts then say so.
//!
//! Only what a public source states is here. Sources, as the rows cite them:
//! - the core's Technical Reference Manual (Arm document number and section);
//! - TF-A (`ARM-software/arm-trusted-firmware`): `include/lib/cpus/aarch64/<core>.h` and
//!   `lib/cpus/aarch64/<core>.S`, where the reset code sets the core's bits;
//! - Linux (`arch/arm64/include/asm/cputype.h` for the part numbers,
//!   `arch/arm64/kernel/cpu_errata.c` for errata);
//! - Arm's machine-readable PMU event lists (`ARM-software/data`, `pmu/<core>.json`).
//!
//! Left out for want of a source (looked for, not found): how the cores but the A53, A35 and
//! A55 treat write-through memory; whether any core but the A76 upgrades DC IVAC
//! to DC CIVAC; the read-allocate thresholds of the A53 and A55; the L1 line sizes; anything
//! about Apple, Qualcomm and Ampere cores' caches.

use crate::counter::Erratum;

/// One statement about a core and the document that makes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cited {
    /// What the core does, one sentence.
    pub says: &'static str,
    /// Where that is written.
    pub source: &'static str,
}

/// One core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Core {
    /// Its name, e.g. `Cortex-A53`.
    pub name: &'static str,
    /// MIDR_EL1.Implementer (bits 31:24).
    pub implementer: u8,
    /// MIDR_EL1.PartNum (bits 15:4).
    pub part: u16,
    /// The source of the part number.
    pub midr_source: &'static str,
    /// CPUECTLR_EL1.SMPEN (bit 6 of `S3_1_C15_C2_1`) exists and must be set before the
    /// caches and the MMU are enabled (TF-A's reset code sets it at EL3); `None`: the core has
    /// no such bit (DynamIQ cores: TF-A defines CPUECTLR_EL1 at `S3_0_C15_C1_4` with no SMP
    /// bit) or nothing says it has.
    pub smpen: Option<Cited>,
    /// Normal write-through memory is cached as non-cacheable, documented.
    pub wt_as_nc: Option<Cited>,
    /// A streaming mode in which a run of full-line write misses stops allocating, and how
    /// it is left.
    pub streaming: Option<Cited>,
    /// DC IVAC executes as DC CIVAC (an invalidate also cleans), documented.
    pub ivac_as_civac: Option<Cited>,
    /// A generic-counter erratum Linux matches by this core's MIDR, every revision.
    pub counter: Option<Erratum>,
    /// The PMU events the verdicts count that the core implements (L1D_CACHE_REFILL 0x03,
    /// MEM_ACCESS 0x13, L2D_CACHE_REFILL 0x17, BUS_ACCESS 0x19), from Arm's event list.
    pub events: &'static [u16],
}

/// Implementer codes (Linux `cputype.h`: `ARM_CPU_IMP_ARM`).
const ARM: u8 = 0x41;

/// The events of [`Core::events`] every core of the table lists.
const VERDICT_EVENTS: [u16; 4] = [0x03, 0x13, 0x17, 0x19];

const CPUTYPE: &str = "Linux arch/arm64/include/asm/cputype.h";

/// TF-A's reset code setting CPUECTLR_EL1.SMPEN.
const fn smpen(source: &'static str) -> Option<Cited> {
    Some(Cited {
        says: "CPUECTLR_EL1.SMPEN (bit 6 of S3_1_C15_C2_1) must be set before the data cache \
               and the MMU are enabled; TF-A's reset code sets it at EL3",
        source,
    })
}

/// A core whose PMU event list mentions write streaming mode and nothing more is known.
const fn streaming_by_events(source: &'static str) -> Option<Cited> {
    Some(Cited {
        says: "has a write streaming mode: full-line writes go to L2 without allocating in \
               L1 (its PMU's L1D_CACHE_WB event excludes them)",
        source,
    })
}

/// A DynamIQ core with only part number, streaming mode and events known.
const fn dynamiq(
    name: &'static str,
    part: u16,
    streaming: Option<Cited>,
    counter: Option<Erratum>,
) -> Core {
    Core {
        name,
        implementer: ARM,
        part,
        midr_source: CPUTYPE,
        smpen: None,
        wt_as_nc: None,
        streaming,
        ivac_as_civac: None,
        counter,
        events: &VERDICT_EVENTS,
    }
}

/// Every core with documented behaviour, by part number.
pub const CORES: [Core; 15] = [
    Core {
        name: "Cortex-A53",
        implementer: ARM,
        part: 0xd03,
        midr_source: CPUTYPE,
        smpen: smpen(
            "TF-A cortex_a53.h CORTEX_A53_ECTLR_SMP_BIT; Cortex-A53 TRM (DDI 0500F) \
             \"Data cache coherency\": you must set the SMPEN bit before enabling the data cache",
        ),
        wt_as_nc: Some(Cited {
            says: "downgrades memory marked Inner Write-Through to non-cacheable (and Outer \
                   Write-Through or Outer Non-cacheable, even if the inner attributes are \
                   write-back)",
            source: "Cortex-A53 TRM (DDI 0500D) section 7.5 \"Additional memory attributes\"",
        }),
        streaming: Some(Cited {
            says: "switches into read allocate mode after a threshold number of consecutive \
                   full-line write misses (writes that miss do not allocate); it continues until \
                   a cacheable write burst that is not a full line, or a load to the line being \
                   written",
            source: "Cortex-A53 TRM (DDI 0500) Level 1 memory system, \"Data cache coherency\" \
                     and read allocate mode; CPUACTLR_EL1.L1RADIS and RADIS set the thresholds",
        }),
        ivac_as_civac: None,
        counter: None,
        events: &VERDICT_EVENTS,
    },
    Core {
        name: "Cortex-A35",
        implementer: ARM,
        part: 0xd04,
        midr_source: CPUTYPE,
        smpen: smpen("TF-A cortex_a35.h CORTEX_A35_CPUECTLR_SMPEN_BIT"),
        wt_as_nc: Some(Cited {
            says: "downgrades memory marked Inner Write-Through to non-cacheable (and Outer \
                   Write-Through or Outer Non-cacheable, even if the inner attributes are \
                   write-back)",
            source: "Cortex-A35 TRM (100236) section A7.3 \"Support for memory types\"",
        }),
        streaming: Some(Cited {
            says: "switches to read allocate (write streaming) mode once it detects three full \
                   cache lines written; writes that miss go to L2 until a write burst that is \
                   not a full line, or a load to the line being written",
            source: "Cortex-A35 TRM section A5.6 \"About read allocate mode\"",
        }),
        ivac_as_civac: None,
        counter: None,
        events: &VERDICT_EVENTS,
    },
    Core {
        name: "Cortex-A55",
        implementer: ARM,
        part: 0xd05,
        midr_source: CPUTYPE,
        smpen: None,
        wt_as_nc: Some(Cited {
            says: "only memory both inner and outer write-back is cached; all other memory \
                   types, write-through among them, are non-cacheable",
            source: "Cortex-A55 TRM (100442) \"Support for memory types\"",
        }),
        streaming: Some(Cited {
            says: "has a write streaming mode (CPUECTLR_EL1.L1WSCTL sets its threshold); with \
                   the write-allocate hint, streaming writes still allocate in L2",
            source: "Cortex-A55 TRM (100442) \"Optional integrated L2 cache\"; TF-A \
                     cortex_a55.h CORTEX_A55_CPUECTLR_EL1_L1WSCTL",
        }),
        ivac_as_civac: None,
        counter: None,
        events: &VERDICT_EVENTS,
    },
    Core {
        name: "Cortex-A57",
        implementer: ARM,
        part: 0xd07,
        midr_source: CPUTYPE,
        smpen: smpen("TF-A cortex_a57.h CORTEX_A57_ECTLR_SMP_BIT"),
        wt_as_nc: None,
        streaming: Some(Cited {
            says: "has write streaming no-allocate thresholds for L1 and L2 \
                   (CPUACTLR_EL1.DIS_L1_STREAMING and DIS_STREAMING turn them off)",
            source: "TF-A cortex_a57.h CORTEX_A57_CPUACTLR_EL1_DIS_STREAMING; U-Boot \
                     arch/arm/cpu/armv8/start.S apply_a57_core_errata (erratum 828024)",
        }),
        ivac_as_civac: None,
        counter: None,
        events: &VERDICT_EVENTS,
    },
    Core {
        name: "Cortex-A72",
        implementer: ARM,
        part: 0xd08,
        midr_source: CPUTYPE,
        smpen: smpen("TF-A cortex_a72.h CORTEX_A72_ECTLR_SMP_BIT"),
        wt_as_nc: None,
        streaming: None,
        ivac_as_civac: None,
        counter: None,
        events: &VERDICT_EVENTS,
    },
    Core {
        name: "Cortex-A73",
        implementer: ARM,
        part: 0xd09,
        midr_source: CPUTYPE,
        smpen: smpen("TF-A cortex_a73.h CORTEX_A73_CPUECTLR_SMP_BIT"),
        wt_as_nc: None,
        streaming: None,
        ivac_as_civac: None,
        counter: Some(Erratum::CortexA73_858921),
        events: &VERDICT_EVENTS,
    },
    Core {
        name: "Cortex-A76",
        implementer: ARM,
        part: 0xd0b,
        midr_source: CPUTYPE,
        smpen: None,
        wt_as_nc: None,
        streaming: Some(Cited {
            says: "switches into write streaming mode when stores are pending to a full line \
                   waiting for its linefill (or on DC ZVA); writes that miss go to L2 or \
                   beyond, until it can no longer form full lines or sees many stores hit",
            source: "Cortex-A76 TRM (100798) section A6.2.6 \"Write streaming mode\"",
        }),
        ivac_as_civac: Some(Cited {
            says: "DC IVAC is treated as DC CIVAC except for permission checking and \
                   watchpoint matching",
            source: "Cortex-A76 TRM (100798) section A6.2.4",
        }),
        counter: None,
        events: &VERDICT_EVENTS,
    },
    dynamiq(
        "Cortex-A78",
        0xd41,
        streaming_by_events("ARM-software/data pmu/cortex-a78.json, L1D_CACHE_WB (0x15)"),
        None,
    ),
    dynamiq(
        "Cortex-A510",
        0xd46,
        streaming_by_events(
            "ARM-software/data pmu/cortex-a510.json, L1D_WS_MODE_ENTRY (0xc4), L1D_WS_MODE (0xc5)",
        ),
        None,
    ),
    dynamiq(
        "Cortex-A710",
        0xd47,
        streaming_by_events("ARM-software/data pmu/cortex-a710.json, L1D_CACHE_WB (0x15)"),
        None,
    ),
    dynamiq(
        "Cortex-X1",
        0xd44,
        streaming_by_events("ARM-software/data pmu/cortex-x1.json, L1D_CACHE_WB (0x15)"),
        None,
    ),
    dynamiq(
        "Neoverse-N1",
        0xd0c,
        Some(Cited {
            says: "has a write streaming mode whose L2 threshold CPUECTLR_EL1.WS_THR_L2 sets \
                   (TF-A changes it for erratum 1220197)",
            source: "TF-A neoverse_n1.h NEOVERSE_N1_WS_THR_L2_MASK",
        }),
        None,
    ),
    dynamiq(
        "Neoverse-N2",
        0xd49,
        streaming_by_events("ARM-software/data pmu/neoverse-n2.json, L1D_CACHE_WB (0x15)"),
        None,
    ),
    dynamiq(
        "Neoverse-V1",
        0xd40,
        streaming_by_events("ARM-software/data pmu/neoverse-v1.json, L1D_CACHE_WB (0x15)"),
        None,
    ),
    dynamiq(
        "Neoverse-V2",
        0xd4f,
        streaming_by_events("ARM-software/data pmu/neoverse-v2.json, L1D_CACHE_WB (0x15)"),
        None,
    ),
];

/// The source of [`Core::events`] for every row.
pub const EVENTS_SOURCE: &str = "ARM-software/data pmu/<core>.json (Arm's event lists)";

/// Writes the table as Markdown: one row per core (name, MIDR implementer and part, then each
/// statement with its source, `-` where none is documented). `docs/bringup.md` holds exactly
/// this between its `cores` markers.
pub fn write_markdown<W: core::fmt::Write + ?Sized>(w: &mut W) -> core::fmt::Result {
    w.write_str(
        "| core | MIDR | SMPEN | write-through | write streaming | DC IVAC | counter erratum |\n\
         |---|---|---|---|---|---|---|\n",
    )?;
    let cell = |c: Option<Cited>| -> ([&'static str; 2], bool) {
        match c {
            Some(c) => ([c.says, c.source], true),
            None => (["-", ""], false),
        }
    };
    for c in &CORES {
        write!(w, "| {} | {:#04x}/{:#05x} |", c.name, c.implementer, c.part)?;
        for fact in [c.smpen, c.wt_as_nc, c.streaming, c.ivac_as_civac] {
            match cell(fact) {
                ([says, source], true) => write!(w, " {says} ({source}) |")?,
                ([dash, _], _) => write!(w, " {dash} |")?,
            }
        }
        match c.counter {
            Some(e) => writeln!(w, " {} (Linux cpu_errata.c) |", e.name())?,
            None => w.write_str(" - |\n")?,
        }
    }
    Ok(())
}

/// The row of the core whose MIDR_EL1 is `midr`, if the table has it.
pub fn by_midr(midr: u64) -> Option<&'static Core> {
    let implementer = (midr >> 24) & 0xff;
    let part = (midr >> 4) & 0xfff;
    CORES
        .iter()
        .find(|c| u64::from(c.implementer) == implementer && u64::from(c.part) == part)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_are_distinct_and_sourced() {
        for (i, c) in CORES.iter().enumerate() {
            for other in &CORES[i + 1..] {
                assert!(
                    (c.implementer, c.part) != (other.implementer, other.part),
                    "{}",
                    c.name
                );
                assert_ne!(c.name, other.name);
            }
            for cited in [c.smpen, c.wt_as_nc, c.streaming, c.ivac_as_civac]
                .into_iter()
                .flatten()
            {
                assert!(
                    !cited.says.is_empty() && !cited.source.is_empty(),
                    "{}",
                    c.name
                );
                assert!(!cited.says.contains("  ") && !cited.source.contains("  "));
            }
        }
    }

    #[test]
    fn lookups_by_midr() {
        // A Raspberry Pi 4's Cortex-A72 r0p3, a Pine64's A53 r0p4, an RK3399's A72.
        assert_eq!(by_midr(0x410f_d083).map(|c| c.name), Some("Cortex-A72"));
        assert_eq!(by_midr(0x410f_d034).map(|c| c.name), Some("Cortex-A53"));
        assert_eq!(
            by_midr(0x410f_d092).and_then(|c| c.counter),
            Some(Erratum::CortexA73_858921)
        );
        // Another implementer's part 0xd03 is not an A53; an unknown part is no row.
        assert_eq!(by_midr(0x510f_d030), None);
        assert_eq!(by_midr(0x410f_d990), None);
        // SMPEN: the pre-DynamIQ cores only.
        assert!(by_midr(0x410f_d034).unwrap().smpen.is_some());
        assert!(by_midr(0x410f_d050).unwrap().smpen.is_none());
        assert!(by_midr(0x410f_d050).unwrap().wt_as_nc.is_some());
    }
}
