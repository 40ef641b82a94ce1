//! What each common Arm core does where the architecture lets it choose: one table
//! ([`CORES`]), keyed by MIDR_EL1's implementer and part number, each statement with the
//! document that makes it. A core that is not in the table, or a question its row leaves
//! empty, gets only the architecture's guarantees; the verdicts then say so.
//!
//! The 32-bit cores (Cortex-A5 to A17, ARMv7-A) are rows too, keyed by MIDR, whose fields
//! are laid out as MIDR_EL1's: a 32-bit log names its core, and the verdicts quote what its
//! TRM documents. The bits of their Auxiliary Control Register that SMP needs are
//! [`armv7`]'s.
//!
//! Only what a public source states is here. Sources, as the rows cite them:
//! - the core's Technical Reference Manual (Arm document number and section);
//! - TF-A (`ARM-software/arm-trusted-firmware`): `include/lib/cpus/aarch64/<core>.h` and
//!   `lib/cpus/aarch64/<core>.S`, where the reset code sets the core's bits;
//! - Linux (`arch/arm64/include/asm/cputype.h` for the part numbers,
//!   `arch/arm64/kernel/cpu_errata.c` for errata);
//! - Arm's machine-readable PMU event lists (`ARM-software/data`, `pmu/<core>.json`).
//!
//! Some statements hold for a range of a core's revisions only ([`Revised`], by MIDR_EL1's
//! Variant and Revision): the errata whose workarounds change what a data cache clean does,
//! or what the no-allocate hint does.
//!
//! Left out for want of a source (looked for, not found): how the cores but the A53, A35 and
//! A55 treat write-through memory; whether any core but the A76 upgrades DC IVAC
//! to DC CIVAC; the read-allocate thresholds of the A53 and A55; the L1 line sizes; anything
//! about Apple, Qualcomm and Ampere cores' caches; the Cortex-A72's write streaming mode and
//! its thresholds (TF-A's `cortex_a72.h` defines none, unlike `cortex_a57.h`; the A72 TRM's
//! CPUACTLR_EL1 table was not readable past its first bits); why the A72 would ignore the
//! no-allocate hint (TF-A defines CPUACTLR_EL1 bit 49, `NO_ALLOC_WBWA`, for it but sets it for
//! no A72 erratum); the reset value of the A55's CPUECTLR_EL1.L2WSCTL; the titles of the A53's
//! erratum 855873 and the A57's 806969 and 828024 (Arm's errata notices, not read: what is
//! here is what TF-A, U-Boot and Linux do about them); of the 32-bit cores, how the A7, A8,
//! A12 and A17 treat write-through memory, the A15's write streaming thresholds, and anything
//! about the A8, A12 and A17 but their part numbers.

use crate::counter::Erratum;

pub mod armv7;

/// One statement about a core and the document that makes it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cited {
    /// What the core does, one sentence.
    pub says: &'static str,
    /// Where that is written.
    pub source: &'static str,
}

/// A core's revision, `rNpM`: MIDR_EL1.Variant (bits 23:20) is N, MIDR_EL1.Revision (bits 3:0)
/// is M. Ordered as TF-A's `cpu_get_rev_var` compares them (variant, then revision).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Revision {
    /// MIDR_EL1.Variant.
    pub variant: u8,
    /// MIDR_EL1.Revision.
    pub revision: u8,
}

impl Revision {
    /// `rNpM`.
    pub const fn new(variant: u8, revision: u8) -> Self {
        Revision { variant, revision }
    }

    /// The revision of the core whose MIDR_EL1 is `midr`.
    pub const fn of(midr: u64) -> Self {
        Revision {
            variant: ((midr >> 20) & 0xf) as u8,
            revision: (midr & 0xf) as u8,
        }
    }
}

impl core::fmt::Display for Revision {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(
            f,
            "r{}p{}",
            u64::from(self.variant),
            u64::from(self.revision)
        )
    }
}

/// A statement that holds for some revisions of a core only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Revised {
    /// The first revision it holds for.
    pub first: Revision,
    /// The last, inclusive; `None`: every later one too.
    pub last: Option<Revision>,
    /// The statement and its source.
    pub cited: Cited,
}

impl Revised {
    /// Whether it holds for `revision`.
    pub fn holds_for(&self, revision: Revision) -> bool {
        revision >= self.first && self.last.is_none_or(|last| revision <= last)
    }
}

/// The revisions a [`Revised`] holds for: `r0p0 to r0p2`, `r0p3 and later`.
impl core::fmt::Display for Revised {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.last {
            Some(last) if last == self.first => write!(f, "{}", self.first),
            Some(last) => write!(f, "{} to {last}", self.first),
            None => write!(f, "{} and later", self.first),
        }
    }
}

/// One core.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Core {
    /// Its name, e.g. `Cortex-A53`.
    pub name: &'static str,
    /// MIDR_EL1.Implementer (bits 31:24; MIDR's on a 32-bit core).
    pub implementer: u8,
    /// MIDR_EL1.PartNum (bits 15:4; MIDR's on a 32-bit core), as [`MIDR_SOURCE`] gives it.
    pub part: u16,
    /// CPUECTLR_EL1.SMPEN (bit 6 of `S3_1_C15_C2_1`) exists and must be set before the
    /// caches and the MMU are enabled (TF-A's reset code sets it at EL3); `None`: the core has
    /// no such bit (DynamIQ cores: TF-A defines CPUECTLR_EL1 at `S3_0_C15_C1_4` with no SMP
    /// bit) or nothing says it has.
    pub smpen: Option<&'static Cited>,
    /// Normal write-through memory is cached as non-cacheable, documented.
    pub wt_as_nc: Option<&'static Cited>,
    /// A streaming mode in which a run of full-line write misses stops allocating, and how
    /// it is left.
    pub streaming: Option<&'static Cited>,
    /// DC IVAC executes as DC CIVAC (an invalidate also cleans), documented.
    pub ivac_as_civac: Option<&'static Cited>,
    /// Errata on these revisions that software works around by executing DC CVAC and DC
    /// CVAU as DC CIVAC (Linux's `ARM64_WORKAROUND_CLEAN_CACHE`). mairbench's own DC CVAC is
    /// not promoted: a clean that did not reach memory on such a revision names them.
    pub clean_errata: Option<&'static Revised>,
    /// On these revisions a control bit that firmware sets at EL3 for an erratum makes DC CVAC
    /// execute as DC CIVAC, so a clean also drops the line. mairbench's EL3 entry sets it
    /// too (boot/aarch64/entry.S, checked against this field by a test).
    pub clean_as_civac: Option<&'static Revised>,
    /// On these revisions the no-allocate hint is not honoured: an erratum workaround that
    /// firmware applies at EL3 disables it, or the core does not implement it; write-back
    /// no-allocate memory then allocates like write-back.
    pub noalloc_disabled: Option<&'static Revised>,
    /// A generic-counter erratum Linux matches by this core's MIDR, every revision.
    pub counter: Option<Erratum>,
}

/// Implementer codes (Linux `cputype.h`: `ARM_CPU_IMP_ARM`).
const ARM: u8 = 0x41;

/// The PMU events the verdicts count (L1D_CACHE_REFILL 0x03, MEM_ACCESS 0x13,
/// L2D_CACHE_REFILL 0x17, BUS_ACCESS 0x19), which every core of the table implements (Arm's
/// event list of each). The same for every row, so not a field of each (16 bytes of relocated
/// data a row in the firmware, which never reads it).
pub const VERDICT_EVENTS: [u16; 4] = [0x03, 0x13, 0x17, 0x19];

/// The source of every row's implementer and part number (one for the whole table, not a
/// field of each row, which would cost the firmware 16 bytes of relocated data a row).
pub const MIDR_SOURCE: &str = "Linux arch/arm64/include/asm/cputype.h; the 32-bit cores' \
                                (parts 0xc05 to 0xc0f) arch/arm/include/asm/cputype.h \
                                ARM_CPU_PART_CORTEX_A*";

/// What TF-A's reset code setting CPUECTLR_EL1.SMPEN does, in every row that cites it.
const SMPEN: &str = "CPUECTLR_EL1.SMPEN (bit 6 of S3_1_C15_C2_1) must be set before the data \
                     cache and the MMU are enabled; TF-A's reset code sets it at EL3";

/// What a PMU event list that mentions write streaming mode says, in every row citing one.
const STREAMING_BY_EVENTS: &str = "has a write streaming mode: full-line writes go to L2 \
                                   without allocating in L1 (its PMU's L1D_CACHE_WB event \
                                   excludes them)";

/// TF-A's reset code setting CPUECTLR_EL1.SMPEN, cited from `$source`. A macro, not a
/// `const fn`: the row refers to the statement, which must be a constant to be `'static`.
macro_rules! smpen {
    ($source:expr $(,)?) => {
        Some(&Cited {
            says: SMPEN,
            source: $source,
        })
    };
}

/// A core whose PMU event list (`$source`) mentions write streaming mode and nothing more is
/// known.
macro_rules! streaming_by_events {
    ($source:expr $(,)?) => {
        Some(&Cited {
            says: STREAMING_BY_EVENTS,
            source: $source,
        })
    };
}

/// A DynamIQ core with only part number and streaming mode known.
const fn dynamiq(
    name: &'static str,
    part: u16,
    streaming: Option<&'static Cited>,
    counter: Option<Erratum>,
) -> Core {
    Core {
        name,
        implementer: ARM,
        part,
        smpen: None,
        wt_as_nc: None,
        streaming,
        ivac_as_civac: None,
        clean_errata: None,
        clean_as_civac: None,
        noalloc_disabled: None,
        counter,
    }
}

/// A 32-bit (ARMv7-A) core: no CPUECTLR_EL1 (its SMP bit is ACTLR's, [`armv7`]), no
/// cleaning errata, no counter erratum known.
const fn armv7(
    name: &'static str,
    part: u16,
    wt_as_nc: Option<&'static Cited>,
    streaming: Option<&'static Cited>,
    noalloc_disabled: Option<&'static Revised>,
) -> Core {
    Core {
        name,
        implementer: ARM,
        part,
        smpen: None,
        wt_as_nc,
        streaming,
        ivac_as_civac: None,
        clean_errata: None,
        clean_as_civac: None,
        noalloc_disabled,
        counter: None,
    }
}

/// The Cortex-A5 TRM's treatment of memory attributes, cited by each of its statements.
const A5_MEMORY_TYPES: &str = "Cortex-A5 TRM (DDI 0433), Level 1 Memory System, the treatment \
                               of each memory type (restated in Microchip's SAMA5 datasheets, \
                               \"Memory Types\", \"Treatment of Memory Attributes\")";

/// Every 64-bit core with documented behaviour, by part number ([`CORES_ARMV7`]: the 32-bit
/// ones; [`all`]: both).
pub const CORES: [Core; 15] = [
    Core {
        name: "Cortex-A53",
        implementer: ARM,
        part: 0xd03,
        smpen: smpen!(
            "TF-A cortex_a53.h CORTEX_A53_ECTLR_SMP_BIT; Cortex-A53 TRM (DDI 0500F) \
             \"Data cache coherency\": you must set the SMPEN bit before enabling the data cache",
        ),
        wt_as_nc: Some(&Cited {
            says: "downgrades memory marked Inner Write-Through to non-cacheable (and Outer \
                   Write-Through or Outer Non-cacheable, even if the inner attributes are \
                   write-back)",
            source: "Cortex-A53 TRM (DDI 0500D) section 7.5 \"Additional memory attributes\"",
        }),
        streaming: Some(&Cited {
            says: "switches into read allocate mode after a threshold number of consecutive \
                   full-line write misses (writes that miss do not allocate); it continues until \
                   a cacheable write burst that is not a full line, or a load to the line being \
                   written",
            source: "Cortex-A53 TRM (DDI 0500) Level 1 memory system, \"Data cache coherency\" \
                     and read allocate mode; CPUACTLR_EL1.L1RADIS and RADIS set the thresholds",
        }),
        ivac_as_civac: None,
        clean_errata: Some(&Revised {
            first: Revision::new(0, 0),
            last: Some(Revision::new(0, 2)),
            cited: Cited {
                says: "has errata 826319, 827319, 824069 and (to r0p1) 819472, which Linux \
                       works around by executing DC CVAC and DC CVAU as DC CIVAC",
                source: "Linux arch/arm64 kernel/cpu_errata.c workaround_clean_cache, \
                         include/asm/assembler.h dcache_by_line_op",
            },
        }),
        clean_as_civac: Some(&Revised {
            first: Revision::new(0, 3),
            last: None,
            cited: Cited {
                says: "executes a data cache clean as clean and invalidate once \
                       CPUACTLR_EL1.ENDCCASCI (bit 44) is set, as TF-A and U-Boot do at EL3 for \
                       erratum 855873 (which earlier revisions have too, without the bit)",
                source: "TF-A cortex_a53.S ERRATUM(855873), cortex_a53.h \
                         CORTEX_A53_CPUACTLR_EL1_ENDCCASCI; U-Boot armv8/start.S \
                         CONFIG_ARM_ERRATA_855873",
            },
        }),
        noalloc_disabled: None,
        counter: None,
    },
    Core {
        name: "Cortex-A35",
        implementer: ARM,
        part: 0xd04,
        smpen: smpen!("TF-A cortex_a35.h CORTEX_A35_CPUECTLR_SMPEN_BIT"),
        wt_as_nc: Some(&Cited {
            says: "downgrades memory marked Inner Write-Through to non-cacheable (and Outer \
                   Write-Through or Outer Non-cacheable, even if the inner attributes are \
                   write-back)",
            source: "Cortex-A35 TRM (100236) section A7.3 \"Support for memory types\"",
        }),
        streaming: Some(&Cited {
            says: "switches to read allocate (write streaming) mode once it detects three full \
                   cache lines written; writes that miss go to L2 until a write burst that is \
                   not a full line, or a load to the line being written",
            source: "Cortex-A35 TRM section A5.6 \"About read allocate mode\"",
        }),
        ivac_as_civac: None,
        clean_errata: None,
        clean_as_civac: None,
        noalloc_disabled: None,
        counter: None,
    },
    Core {
        name: "Cortex-A55",
        implementer: ARM,
        part: 0xd05,
        smpen: None,
        wt_as_nc: Some(&Cited {
            says: "only memory both inner and outer write-back is cached; all other memory \
                   types, write-through among them, are non-cacheable",
            source: "Cortex-A55 TRM (100442) \"Support for memory types\"",
        }),
        streaming: Some(&Cited {
            says: "has a write streaming mode in steps, each past a count of consecutive \
                   streaming lines set in CPUECTLR_EL1: past L1WSCTL's, writes stop allocating \
                   in L1 (with the write-allocate hint they still allocate in L2); past \
                   L2WSCTL's, in L2 too; past L3WSCTL's (the 1024th line at reset), in L3 too",
            source: "Cortex-A55 TRM (100442) \"Optional integrated L2 cache\", B2.30 \
                     CPUECTLR_EL1; TF-A cortex_a55.h CORTEX_A55_CPUECTLR_EL1_L1WSCTL",
        }),
        ivac_as_civac: None,
        clean_errata: None,
        clean_as_civac: None,
        noalloc_disabled: None,
        counter: None,
    },
    Core {
        name: "Cortex-A57",
        implementer: ARM,
        part: 0xd07,
        smpen: smpen!("TF-A cortex_a57.h CORTEX_A57_ECTLR_SMP_BIT"),
        wt_as_nc: None,
        streaming: Some(&Cited {
            says: "has write streaming no-allocate thresholds for L1 and L2 \
                   (CPUACTLR_EL1.DIS_L1_STREAMING and DIS_STREAMING turn them off)",
            source: "TF-A cortex_a57.h CORTEX_A57_CPUACTLR_EL1_DIS_STREAMING; U-Boot \
                     arch/arm/cpu/armv8/start.S apply_a57_core_errata (erratum 828024)",
        }),
        ivac_as_civac: None,
        clean_errata: None,
        clean_as_civac: None,
        noalloc_disabled: Some(&Revised {
            first: Revision::new(0, 0),
            last: Some(Revision::new(1, 1)),
            cited: Cited {
                says: "has errata 806969 (r0p0) and 828024, for which TF-A and U-Boot set \
                       CPUACTLR_EL1 bit 49 at EL3, disabling the non-allocate hint of \
                       write-back no-allocate memory (828024's also turns write streaming off)",
                source: "TF-A cortex_a57.S ERRATUM(806969), ERRATUM(828024), cortex_a57.h \
                         CORTEX_A57_CPUACTLR_EL1_NO_ALLOC_WBWA; U-Boot armv8/start.S \
                         CONFIG_ARM_ERRATA_828024",
            },
        }),
        counter: None,
    },
    Core {
        name: "Cortex-A72",
        implementer: ARM,
        part: 0xd08,
        smpen: smpen!("TF-A cortex_a72.h CORTEX_A72_ECTLR_SMP_BIT"),
        wt_as_nc: None,
        streaming: None,
        ivac_as_civac: None,
        clean_errata: None,
        clean_as_civac: None,
        noalloc_disabled: None,
        counter: None,
    },
    Core {
        name: "Cortex-A73",
        implementer: ARM,
        part: 0xd09,
        smpen: smpen!("TF-A cortex_a73.h CORTEX_A73_CPUECTLR_SMP_BIT"),
        wt_as_nc: None,
        streaming: None,
        ivac_as_civac: None,
        clean_errata: None,
        clean_as_civac: None,
        noalloc_disabled: None,
        counter: Some(Erratum::CortexA73_858921),
    },
    Core {
        name: "Cortex-A76",
        implementer: ARM,
        part: 0xd0b,
        smpen: None,
        wt_as_nc: None,
        streaming: Some(&Cited {
            says: "switches into write streaming mode when stores are pending to a full line \
                   waiting for its linefill (or on DC ZVA); writes that miss go to L2 or \
                   beyond, until it can no longer form full lines or sees many stores hit",
            source: "Cortex-A76 TRM (100798) section A6.2.6 \"Write streaming mode\"",
        }),
        ivac_as_civac: Some(&Cited {
            says: "DC IVAC is treated as DC CIVAC except for permission checking and \
                   watchpoint matching",
            source: "Cortex-A76 TRM (100798) section A6.2.4",
        }),
        clean_errata: None,
        clean_as_civac: None,
        noalloc_disabled: None,
        counter: None,
    },
    dynamiq(
        "Cortex-A78",
        0xd41,
        streaming_by_events!("ARM-software/data pmu/cortex-a78.json, L1D_CACHE_WB (0x15)"),
        None,
    ),
    dynamiq(
        "Cortex-A510",
        0xd46,
        streaming_by_events!(
            "ARM-software/data pmu/cortex-a510.json, L1D_WS_MODE_ENTRY (0xc4), L1D_WS_MODE (0xc5)",
        ),
        None,
    ),
    dynamiq(
        "Cortex-A710",
        0xd47,
        streaming_by_events!("ARM-software/data pmu/cortex-a710.json, L1D_CACHE_WB (0x15)"),
        None,
    ),
    dynamiq(
        "Cortex-X1",
        0xd44,
        streaming_by_events!("ARM-software/data pmu/cortex-x1.json, L1D_CACHE_WB (0x15)"),
        None,
    ),
    dynamiq(
        "Neoverse-N1",
        0xd0c,
        Some(&Cited {
            says: "has a write streaming mode whose L2 threshold CPUECTLR_EL1.WS_THR_L2 sets \
                   (TF-A changes it for erratum 1220197)",
            source: "TF-A neoverse_n1.h NEOVERSE_N1_WS_THR_L2_MASK",
        }),
        None,
    ),
    dynamiq(
        "Neoverse-N2",
        0xd49,
        streaming_by_events!("ARM-software/data pmu/neoverse-n2.json, L1D_CACHE_WB (0x15)"),
        None,
    ),
    dynamiq(
        "Neoverse-V1",
        0xd40,
        streaming_by_events!("ARM-software/data pmu/neoverse-v1.json, L1D_CACHE_WB (0x15)"),
        None,
    ),
    dynamiq(
        "Neoverse-V2",
        0xd4f,
        streaming_by_events!("ARM-software/data pmu/neoverse-v2.json, L1D_CACHE_WB (0x15)"),
        None,
    ),
];

/// Every 32-bit (ARMv7-A) core with documented behaviour, by part number: a table of its own,
/// so that the AArch64 image, which never meets them, holds none of their text ([`all`]).
pub const CORES_ARMV7: [Core; 7] = [
    armv7(
        "Cortex-A5",
        0xc05,
        Some(&Cited {
            says: "does not support write-through caching: memory marked write-through is \
                   treated as non-cacheable",
            source: A5_MEMORY_TYPES,
        }),
        Some(&Cited {
            says: "can switch write-back write-allocate memory dynamically to no write \
                   allocate when more than three full cache lines are written in succession",
            source: A5_MEMORY_TYPES,
        }),
        Some(&Revised {
            first: Revision::new(0, 0),
            last: None,
            cited: Cited {
                says: "does not support write-back no write-allocate: such memory is treated \
                       as write-back write-allocate",
                source: A5_MEMORY_TYPES,
            },
        }),
    ),
    armv7(
        "Cortex-A7",
        0xc07,
        None,
        Some(&Cited {
            says: "switches into L1 read allocate mode (writes that miss stop allocating in \
                   L1) once a full cache line is written before its linefill completes on 3 \
                   consecutive lines, and into an equivalent L2 mode after 127; ACTLR.L1RADIS \
                   and L2RADIS disable them",
            source: "Arm knowledge article KA16133 (Cortex-A7 read allocate mode); Cortex-A7 \
                     TRM (DDI 0464) \"Auxiliary Control Register\" L1RADIS, L2RADIS",
        }),
        None,
    ),
    armv7("Cortex-A8", 0xc08, None, None, None),
    armv7(
        "Cortex-A9",
        0xc09,
        Some(&Cited {
            says: "treats all pages marked write-through as non-cacheable (and, while \
                   ACTLR.SMP is clear, all pages marked Shared)",
            source: "Cortex-A9 TRM (DDI 0388) section 7.4.3 \"Cortex-A9 behavior for Normal \
                     Memory Cacheable memory regions\"",
        }),
        None,
        None,
    ),
    armv7("Cortex-A12", 0xc0d, None, None, None),
    armv7(
        "Cortex-A15",
        0xc0f,
        Some(&Cited {
            says: "treats all write-through pages as write-through no-allocate: no line of a \
                   write-through page allocates in L1 or L2, and their requests go to the AXI \
                   master without a cache lookup",
            source: "Cortex-A15 TRM (DDI 0438C) chapter 6, Level 1 Memory System, memory \
                     types, \"Write-Through\"",
        }),
        None,
        None,
    ),
    armv7("Cortex-A17", 0xc0e, None, None, None),
];

/// The rows [`all`] adds to [`CORES`]: none in the AArch64 image.
#[cfg(all(target_arch = "aarch64", target_os = "none"))]
const ARMV7_ROWS: &[Core] = &[];
/// The rows [`all`] adds to [`CORES`]: the 32-bit cores.
#[cfg(not(all(target_arch = "aarch64", target_os = "none")))]
const ARMV7_ROWS: &[Core] = &CORES_ARMV7;

/// Every row: [`CORES`], then [`CORES_ARMV7`] (but in the AArch64 image).
pub fn all() -> impl Iterator<Item = &'static Core> + Clone {
    CORES.iter().chain(ARMV7_ROWS)
}

/// The source of [`VERDICT_EVENTS`] for every row.
pub const EVENTS_SOURCE: &str = "ARM-software/data pmu/<core>.json (Arm's event lists)";

/// Writes the table as Markdown: one row per core (name, MIDR implementer and part, then each
/// statement with its source, a revised one after the revisions it holds for, `-` where none
/// is documented). `docs/bringup.md` holds exactly this between its `cores` markers.
pub fn write_markdown<W: core::fmt::Write + ?Sized>(w: &mut W) -> core::fmt::Result {
    w.write_str(
        "| core | MIDR | SMPEN | write-through | write streaming | DC IVAC | DC CVAC errata | \
         DC CVAC as CIVAC | no-allocate hint | counter erratum |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    )?;
    let cell = |c: Option<&'static Cited>| -> ([&'static str; 2], bool) {
        match c {
            Some(c) => ([c.says, c.source], true),
            None => (["-", ""], false),
        }
    };
    for c in all() {
        write!(w, "| {} | {:#04x}/{:#05x} |", c.name, c.implementer, c.part)?;
        for fact in [c.smpen, c.wt_as_nc, c.streaming, c.ivac_as_civac] {
            match cell(fact) {
                ([says, source], true) => write!(w, " {says} ({source}) |")?,
                ([dash, _], _) => write!(w, " {dash} |")?,
            }
        }
        for fact in [c.clean_errata, c.clean_as_civac, c.noalloc_disabled] {
            match fact {
                Some(r) => write!(w, " {r}: {} ({}) |", r.cited.says, r.cited.source)?,
                None => w.write_str(" - |")?,
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
    all().find(|c| u64::from(c.implementer) == implementer && u64::from(c.part) == part)
}

/// The generic-counter erratum the core of MIDR_EL1 `midr` has (its row's `counter`), for
/// [`Errata::with_core`](crate::counter::Errata::with_core).
pub fn counter_erratum(midr: u64) -> Option<Erratum> {
    by_midr(midr).and_then(|c| c.counter)
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use crate::counter::Errata;
    use std::vec::Vec;

    #[test]
    fn errata_from_the_device_tree_and_the_core() {
        let none = |_: &str| false;
        let core = counter_erratum;
        assert!(Errata::of(none, core(0x410f_d083)).is_empty()); // Cortex-A72 r0p3
        let a73 = Errata::of(none, core(0x410f_d092)); // Cortex-A73 r0p2
        assert_eq!(a73.iter().collect::<Vec<_>>(), [Erratum::CortexA73_858921]);
        let pine64 = Errata::of(|p| p == "allwinner,erratum-unknown1", core(0x410f_d034));
        assert_eq!(
            pine64.iter().map(Erratum::name).collect::<Vec<_>>(),
            ["allwinner-unknown1"]
        );
        let ls = Errata::of(|p| p == "fsl,erratum-a008585", core(0x410f_d072));
        assert!(ls.has(Erratum::FslA008585) && !ls.has(Erratum::CortexA73_858921));
        // Other implementers' part 0xd09 are not the A73; a property is not a core erratum.
        assert!(Errata::of(none, core(0x510f_d090)).is_empty());
        assert!(Errata::of(|_| true, None)
            .iter()
            .all(|e| e.property().is_some()));
    }

    #[test]
    fn each_cpu_of_a_big_little_board_has_its_own_core_erratum() {
        // Amlogic S922X / A311D: the boot CPU is a Cortex-A53 (no counter erratum), the
        // big cluster Cortex-A73s have 858921 (Linux: ate_match_local_cap_id, per CPU).
        let machine = Errata::NONE;
        assert!(machine.with_core(counter_erratum(0x410f_d034)).is_empty()); // A53 r0p4
        assert_eq!(
            machine
                .with_core(counter_erratum(0x410f_d092))
                .iter()
                .collect::<Vec<_>>(), // A73 r0p2
            [Erratum::CortexA73_858921]
        );
        // The machine's errata stay on every CPU.
        let soc = Errata::of(|p| p == "allwinner,erratum-unknown1", None);
        assert!(soc
            .with_core(counter_erratum(0x410f_d034))
            .has(Erratum::AllwinnerUnknown1));
        let both = soc.with_core(counter_erratum(0x410f_d092));
        assert!(both.has(Erratum::AllwinnerUnknown1) && both.has(Erratum::CortexA73_858921));
    }

    #[test]
    fn rows_are_distinct_and_sourced() {
        let rows: std::vec::Vec<&Core> = all().collect();
        for (i, c) in rows.iter().enumerate() {
            for other in &rows[i + 1..] {
                assert!(
                    (c.implementer, c.part) != (other.implementer, other.part),
                    "{}",
                    c.name
                );
                assert_ne!(c.name, other.name);
            }
            let revised = [c.clean_errata, c.clean_as_civac, c.noalloc_disabled];
            for r in revised.iter().flatten() {
                assert!(r.last.is_none_or(|last| last >= r.first), "{}", c.name);
            }
            for cited in [c.smpen, c.wt_as_nc, c.streaming, c.ivac_as_civac]
                .into_iter()
                .chain(revised.map(|r| r.map(|r| &r.cited)))
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
        // The 32-bit cores, by MIDR: a QEMU Cortex-A7 r0p5, an i.MX6Q's A9 r2p10, a
        // Cortex-A8 r3p2, an A15 r2p4; no SMPEN (their SMP bit is ACTLR's).
        for (midr, name) in [
            (0x410f_c075, "Cortex-A7"),
            (0x412f_c09a, "Cortex-A9"),
            (0x413f_c082, "Cortex-A8"),
            (0x412f_c0f4, "Cortex-A15"),
            (0x410f_c051, "Cortex-A5"),
            (0x410f_c0e1, "Cortex-A17"),
        ] {
            let c = by_midr(midr).unwrap();
            assert_eq!(c.name, name);
            assert!(c.smpen.is_none() && c.counter.is_none(), "{name}");
        }
        assert!(by_midr(0x412f_c09a)
            .unwrap()
            .wt_as_nc
            .unwrap()
            .source
            .contains("DDI 0388"));
        // The Cortex-A5 never honours the no-allocate hint, on every revision.
        let a5 = by_midr(0x410f_c051).unwrap().noalloc_disabled.unwrap();
        assert!(a5.holds_for(Revision::new(0, 0)) && a5.holds_for(Revision::new(0, 1)));
        // Every core whose SMP bits core knows has a row, under the same part.
        for c in &armv7::ARMV7_SMP {
            assert!(by_midr(0x410f_0000 | u64::from(c.part) << 4).is_some());
        }
        // SMPEN: the pre-DynamIQ cores only.
        assert!(by_midr(0x410f_d034).unwrap().smpen.is_some());
        assert!(by_midr(0x410f_d050).unwrap().smpen.is_none());
        assert!(by_midr(0x410f_d050).unwrap().wt_as_nc.is_some());
    }

    #[test]
    fn revisions() {
        // A Pine64's A53 r0p4; a Juno's A57 r1p0 and A53 r0p0.
        assert_eq!(Revision::of(0x410f_d034), Revision::new(0, 4));
        assert_eq!(Revision::of(0x411f_d070), Revision::new(1, 0));
        assert_eq!(std::format!("{}", Revision::of(0x411f_d070)), "r1p0");
        assert!(Revision::new(1, 0) > Revision::new(0, 15));
        let a53 = by_midr(0x410f_d030).unwrap();
        let clean = a53.clean_errata.unwrap();
        let bit = a53.clean_as_civac.unwrap();
        for (midr, errata, civac) in [
            (0x410f_d030, true, false),
            (0x410f_d032, true, false),
            (0x410f_d033, false, true),
            (0x410f_d034, false, true),
        ] {
            let r = Revision::of(midr);
            assert_eq!(clean.holds_for(r), errata, "{r}");
            assert_eq!(bit.holds_for(r), civac, "{r}");
        }
        assert_eq!(std::format!("{clean}"), "r0p0 to r0p2");
        assert_eq!(std::format!("{bit}"), "r0p3 and later");
        let a57 = by_midr(0x411f_d070).unwrap().noalloc_disabled.unwrap();
        assert!(a57.holds_for(Revision::new(1, 1)));
        assert!(!a57.holds_for(Revision::new(1, 2)));
        // The A72 has no documented reason to ignore the hint.
        assert!(by_midr(0x410f_d083).unwrap().noalloc_disabled.is_none());
        // The A55's streaming stops allocating in L2 too past L2WSCTL's count (its TRM's
        // CPUECTLR_EL1), not only in L1.
        let a55 = by_midr(0x412f_d050).unwrap().streaming.unwrap().says;
        assert!(a55.contains("L2WSCTL") && a55.contains("L3WSCTL"), "{a55}");
    }
}
