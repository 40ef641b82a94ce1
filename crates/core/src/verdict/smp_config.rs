//! `smp-config`: every started CPU runs with the boot CPU's settings, coherently.

use core::fmt;

use super::points::{named, View};
use super::{Basis, Evidence, Name, Scope, Spec, Status, Sweep, Verdict};
use crate::cores::armv7::{self, SmpSetup};
use crate::memtype::Role;
use crate::record::Record;
use crate::schema;

pub const SPEC: Spec = Spec {
    name: Name::SmpConfig,
    id: "smp-config",
    checks: "Every started CPU's SCTLR_EL1, MAIR_EL1, TCR_EL1 and TTBR0_EL1 equal the boot CPU's, and a value written to a shared normal-wb line by one core is read by another. On 32-bit Arm, also that the boot CPU's ACTLR has the bits its core needs to take part in coherency (SMP, and FW on the Cortex-A5 and A9; the smp_bits record).",
    threshold: "All equal and the shared line exact (no threshold); a CPU of /cpus that did not start is a warn; one CPU running is n/a. On 32-bit Arm a clear ACTLR.SMP fails where more than one CPU runs or where the core's manual says Shareable memory is then not cached (Cortex-A5, A9), and warns otherwise, as a clear FW does; not judged under QEMU, whose ACTLR reads as zero and ignores writes.",
    failure: "A secondary core runs with other translation or cache settings (its boot path skipped a register), or the cores are not coherent (SMPEN not set, ACTLR.SMP clear on 32-bit Arm, the cluster outside the coherent interconnect).",
    next: "The smp-registers check names the first CPU and register that differ: that CPU's boot path (its PSCI CPU_ON entry or spin table) left the register as it found it. Equal registers with a failed smp-shared-line point at coherency: SMPEN (CPUECTLR_EL1) on each core and the cluster's port on the interconnect. For a warn, each cpu record says why that CPU did not start. On 32-bit Arm the smp_bits record gives ACTLR at entry and after the image's write: a write that did not take is Non-secure PL1 without NSACR.NS_SMP, so set the bits in the secure firmware or the boot loader before the caches go on (U-Boot's CONFIG_ARMV7_SET_CORTEX_SMPEN, Linux's arch/arm/mm/proc-v7.S).",
    basis: Basis::Data,
    scope: Scope::Machine,
};

/// Whether the SMP bits of 32-bit Arm are judged: everywhere but in the AArch64 bare-metal
/// image, which no ARMv7 core runs (its `smp_bits` input is always `None`), so that the code
/// that judges and words them is left out of it (about 800 bytes of its text).
const BITS: bool = !cfg!(all(target_arch = "aarch64", target_os = "none"));

/// What the secondary CPUs showed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Smp {
    /// CPUs of `/cpus` the firmware tried to run (the boot CPU included, up to its cap).
    pub cpus: u32,
    /// CPUs running (the boot CPU included).
    pub started: u32,
    /// Started CPUs whose SCTLR_EL1, MAIR_EL1, TCR_EL1 or TTBR0_EL1 differ from the boot
    /// CPU's.
    pub differing: u32,
    /// The first such CPU's MPIDR_EL1 affinity and the first register that differs
    /// (`"SCTLR_EL1"`, `"MAIR_EL1"`, `"TCR_EL1"` or `"TTBR0_EL1"`).
    pub first_differing: Option<(u64, &'static str)>,
    /// A value one core wrote to a shared write-back line was read exactly by another (and
    /// back).
    pub shared_line_ok: bool,
}

impl Smp {
    /// Writes its `smp` record, from which [`crate::verdict`] can judge a log again.
    pub fn record(&self, out: &mut impl fmt::Write) -> fmt::Result {
        let r = Record::new(out, &schema::SMP)
            .u64("cpus", self.cpus.into())
            .u64("started", self.started.into())
            .u64("differing", self.differing.into());
        match self.first_differing {
            Some((mpidr, register)) => r
                .hex("first_differing_mpidr", mpidr)
                .str("first_differing_register", register),
            None => r
                .null("first_differing_mpidr")
                .null("first_differing_register"),
        }
        .bool("shared_line_ok", self.shared_line_ok)
        .finish()
    }
}

/// Why `smp-config` came out as it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Why {
    /// Only the boot CPU runs.
    Single,
    /// Every started CPU matches the boot CPU.
    Ok {
        /// CPUs running.
        started: u32,
    },
    /// Some CPUs of /cpus did not start (the rest match).
    Missing {
        /// CPUs running.
        started: u32,
        /// CPUs tried.
        cpus: u32,
    },
    /// A started CPU's registers differ.
    Differ {
        /// How many differ.
        differing: u32,
        /// CPUs running.
        started: u32,
        /// The first one's MPIDR and register.
        first: Option<(u64, &'static str)>,
    },
    /// The shared-line check failed.
    Shared,
    /// The boot CPU's ACTLR lacks bits its core needs to take part in coherency (32-bit
    /// Arm).
    Bits {
        /// What was found and done.
        setup: SmpSetup,
        /// CPUs running.
        started: u32,
    },
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let wb = const { named(Role::WriteBack) };
        match *self {
            Why::Single => f.write_str("only the boot CPU runs"),
            Why::Ok { started } => write!(
                f,
                concat!(
                    "all {} CPUs run with the boot CPU's ",
                    crate::arch_name!(regime),
                    ", and a shared {wb} line read back across cores"
                ),
                u64::from(started),
                wb = wb
            ),
            Why::Missing { started, cpus } => write!(
                f,
                "{} of {} CPUs started (the cpu records say why); those running match the boot CPU",
                u64::from(started),
                u64::from(cpus)
            ),
            Why::Differ {
                differing,
                started,
                first,
            } => {
                write!(
                    f,
                    "{} of {} CPUs run with other settings than the boot CPU",
                    u64::from(differing),
                    u64::from(started)
                )?;
                if let Some((mpidr, register)) = first {
                    write!(f, " (MPIDR {mpidr:#x}: {register})")?;
                }
                f.write_str(": its boot path left a register unset")
            }
            Why::Shared => write!(
                f,
                "a value one core wrote to a shared {wb} line was not read by another: the cores are not coherent"
            ),
            Why::Bits { .. } if !BITS => Ok(()),
            Why::Bits { setup, started } => {
                let missing = setup.missing();
                write!(
                    f,
                    "ACTLR {:#x}: the {}'s {} clear",
                    u64::from(setup.actlr),
                    setup.core.name(),
                    armv7::names(missing)
                )?;
                f.write_str(if setup.entry == setup.actlr {
                    " and the image's write to set it ignored"
                } else {
                    " after the image's write"
                })?;
                if missing & armv7::SMP != 0 {
                    match setup.core.clear {
                        Some(c) => write!(f, ": {} ({})", c.says, c.source)?,
                        None => f.write_str(": the core takes no part in coherency")?,
                    }
                    if started > 1 {
                        write!(f, "; {} CPUs run", u64::from(started))?;
                    }
                } else {
                    f.write_str(": cache and TLB maintenance is not broadcast to the other cores")?;
                }
                f.write_str(
                    ". Set it before the caches go on in the secure firmware or the boot loader \
                     (Secure PL1, or NSACR.NS_SMP set for Non-secure PL1), as Linux's SMP setup \
                     (arch/arm/mm/proc-v7.S) and U-Boot's CONFIG_ARMV7_SET_CORTEX_SMPEN do",
                )
            }
        }
    }
}

fn verdict(status: Status, e: Evidence, why: Why) -> Verdict {
    Verdict::new(SPEC.name, status, e, super::Why::SmpConfig(why))
}

// Not inlined: see `super::judge`.
#[inline(never)]
pub(super) fn judge<S: Sweep + ?Sized>(v: &View<'_, '_, S>) -> Verdict {
    let mut e = Evidence::new();
    // The SMP bits, judged on hardware only: QEMU's ACTLR reads as zero and ignores writes.
    let bits = v.i.smp_bits.filter(|_| BITS && !v.i.emulated);
    if let Some(b) = bits {
        e.whole("actlr", b.actlr.into());
        e.whole("actlr_missing", b.missing().into());
    }
    let running = v.i.smp.filter(|s| s.cpus > 1 || s.started > 1);
    let started = running.map_or(1, |s| s.started);
    // A clear SMP bit fails where it costs the data cache (A5, A9) or more than one CPU
    // runs; else (one CPU, or FW alone) it warns.
    let bits = bits.filter(|b| !b.ok()).map(|setup| {
        let smp = setup.missing() & armv7::SMP != 0;
        let status = if smp && (setup.core.uncached || started > 1) {
            Status::Fail
        } else {
            Status::Warn
        };
        (status, Why::Bits { setup, started })
    });
    let Some(s) = running else {
        return match bits {
            Some((status, why)) => verdict(status, e, why),
            None => verdict(Status::NotApplicable, e, Why::Single),
        };
    };
    e.whole("cpus", s.cpus.into());
    e.whole("started", s.started.into());
    e.whole("differing", s.differing.into());
    if let Some((mpidr, _)) = s.first_differing {
        e.whole("first_differing_mpidr", mpidr);
    }
    if s.started > 1 {
        e.flag("shared_line_ok", s.shared_line_ok);
    }
    let (status, why) = if s.differing > 0 {
        let why = Why::Differ {
            differing: s.differing,
            started: s.started,
            first: s.first_differing,
        };
        (Status::Fail, why)
    } else if s.started > 1 && !s.shared_line_ok {
        (Status::Fail, Why::Shared)
    } else if let Some(bits) = bits {
        bits
    } else if s.started < s.cpus {
        let why = Why::Missing {
            started: s.started,
            cpus: s.cpus,
        };
        (Status::Warn, why)
    } else {
        (Status::Pass, Why::Ok { started: s.started })
    };
    verdict(status, e, why)
}

#[cfg(test)]
mod tests {
    use super::super::judge;
    use super::super::testing::*;
    use super::*;

    #[test]
    fn its_record() {
        extern crate std;
        let mut line = std::string::String::new();
        let s = Smp {
            cpus: 4,
            started: 3,
            differing: 1,
            first_differing: Some((0x81, "TCR_EL1")),
            shared_line_ok: true,
        };
        s.record(&mut line).unwrap();
        assert_eq!(line, "@mb {\"kind\":\"smp\",\"cpus\":4,\"started\":3,\"differing\":1,\"first_differing_mpidr\":\"0x81\",\"first_differing_register\":\"TCR_EL1\",\"shared_line_ok\":true}\n");
    }

    #[test]
    fn smp_verdicts() {
        let caches = a72_caches();
        let s = sweep(32 * MIB, a72);
        let smp = |cpus, started, differing, first, shared| {
            let mut i = inputs(&caches, &s);
            i.smp = Some(Smp {
                cpus,
                started,
                differing,
                first_differing: first,
                shared_line_ok: shared,
            });
            let v = judge(&i);
            (status(&v, Name::SmpConfig), why(&v, Name::SmpConfig))
        };
        assert_eq!(smp(4, 4, 0, None, true).0, Status::Pass);
        assert_eq!(
            smp(4, 3, 0, None, true),
            (
                Status::Warn,
                "3 of 4 CPUs started (the cpu records say why); those running match the boot CPU"
                    .into()
            )
        );
        assert_eq!(smp(2, 1, 0, None, false).0, Status::Warn);
        assert_eq!(
            smp(4, 4, 1, Some((0x81, "TCR_EL1")), true),
            (
                Status::Fail,
                "1 of 4 CPUs run with other settings than the boot CPU (MPIDR 0x81: TCR_EL1): its boot path left a register unset".into()
            )
        );
        assert_eq!(smp(4, 4, 0, None, false).0, Status::Fail);
        assert_eq!(smp(1, 1, 0, None, false).0, Status::NotApplicable);
        let mut i = inputs(&caches, &s);
        i.smp = None;
        i.emulated = true;
        assert_eq!(status(&judge(&i), Name::SmpConfig), Status::NotApplicable);
    }

    #[test]
    fn the_smp_bits_on_32_bit_boards() {
        let caches = a72_caches();
        let s = sweep(32 * MIB, a72);
        // (MIDR, ACTLR at entry, ACTLR after the image's write, CPUs running, emulated).
        let judged = |midr: u32, entry: u32, now: u32, started: u32, emulated: bool| {
            let mut i = inputs(&caches, &s);
            i.smp = (started > 1).then_some(Smp {
                cpus: started,
                started,
                differing: 0,
                first_differing: None,
                shared_line_ok: true,
            });
            i.smp_bits = SmpSetup::of(midr, entry, now);
            i.emulated = emulated;
            let v = judge(&i);
            (status(&v, Name::SmpConfig), why(&v, Name::SmpConfig))
        };
        let a7 = 0x410f_c075; // an Allwinner H3's Cortex-A7 r0p5
        let a9 = 0x412f_c09a; // an i.MX6Q's Cortex-A9 r2p10
                              // A vendor loader left the A7's SMP bit clear and the image runs in Non-secure SVC
                              // without NSACR.NS_SMP: its write is ignored. One CPU: a warn naming the next step.
        let (st, why) = judged(a7, 0x0, 0x0, 1, false);
        assert_eq!(st, Status::Warn, "{why}");
        assert!(
            why.starts_with("ACTLR 0x0: the Cortex-A7's SMP clear and the image's write to set it ignored: with ACTLR.SMP clear the core takes no part in coherency"),
            "{why}"
        );
        assert!(
            why.contains("DDI 0464") && why.contains("NSACR.NS_SMP"),
            "{why}"
        );
        // Four A7s running so: not coherent, a fail.
        let (st, why) = judged(a7, 0x0, 0x0, 4, false);
        assert_eq!(st, Status::Fail, "{why}");
        assert!(why.contains("; 4 CPUs run."), "{why}");
        // The image set the bit itself (Secure SVC): nothing to say.
        assert_eq!(judged(a7, 0x0, 0x40, 1, false).0, Status::NotApplicable);
        assert_eq!(judged(a7, 0x0, 0x40, 4, false).0, Status::Pass);
        // A Cortex-A9 with SMP clear caches no Shareable memory: a fail on one CPU too.
        let (st, why) = judged(a9, 0x0, 0x0, 1, false);
        assert_eq!(st, Status::Fail, "{why}");
        assert!(
            why.contains("SMP and FW clear")
                && why.contains("Non-cacheable")
                && why.contains("DDI 0388"),
            "{why}"
        );
        // SMP set, FW clear (a BSP that leaves ACTLR[0] 0): maintenance not broadcast, a warn.
        let (st, why) = judged(a9, 0x40, 0x40, 2, false);
        assert_eq!(st, Status::Warn, "{why}");
        assert!(
            why.contains("FW clear") && why.contains("not broadcast"),
            "{why}"
        );
        // Under QEMU (ACTLR reads as zero, writes ignored) the bits are not judged.
        assert_eq!(judged(a7, 0x0, 0x0, 1, true).0, Status::NotApplicable);
        assert_eq!(judged(a7, 0x0, 0x0, 4, true).0, Status::Pass);
        // A register difference still comes first.
        let mut i = inputs(&caches, &s);
        i.smp_bits = SmpSetup::of(a7, 0, 0);
        i.smp = Some(Smp {
            cpus: 2,
            started: 2,
            differing: 1,
            first_differing: Some((1, "TCR_EL1")),
            shared_line_ok: true,
        });
        let v = judge(&i);
        assert_eq!(status(&v, Name::SmpConfig), Status::Fail);
        assert!(super::super::testing::why(&v, Name::SmpConfig).contains("other settings"));
    }
}
