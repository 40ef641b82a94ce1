//! `smp-config`: every started CPU runs with the boot CPU's settings, coherently.

use core::fmt;

use super::points::{named, View};
use super::{Basis, Evidence, Name, Scope, Spec, Status, Sweep, Verdict};
use crate::memtype::Role;
use crate::record::Record;
use crate::schema;

pub const SPEC: Spec = Spec {
    name: Name::SmpConfig,
    id: "smp-config",
    checks: "Every started CPU's SCTLR_EL1, MAIR_EL1, TCR_EL1 and TTBR0_EL1 equal the boot CPU's, and a value written to a shared normal-wb line by one core is read by another.",
    threshold: "All equal and the shared line exact (no threshold); a CPU of /cpus that did not start is a warn; one CPU running is n/a.",
    failure: "A secondary core runs with other translation or cache settings (its boot path skipped a register), or the cores are not coherent (SMPEN not set, the cluster outside the coherent interconnect).",
    next: "The smp-registers check names the first CPU and register that differ: that CPU's boot path (its PSCI CPU_ON entry or spin table) left the register as it found it. Equal registers with a failed smp-shared-line point at coherency: SMPEN (CPUECTLR_EL1) on each core and the cluster's port on the interconnect. For a warn, each cpu record says why that CPU did not start.",
    basis: Basis::Data,
    scope: Scope::Machine,
};

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
    let Some(s) = v.i.smp.filter(|s| s.cpus > 1 || s.started > 1) else {
        return verdict(Status::NotApplicable, e, Why::Single);
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
}
