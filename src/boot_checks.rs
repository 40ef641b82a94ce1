//! The boot checks: what the boot code promised (relocated; timer, FP/SIMD and PMU usable
//! from EL1; SError unmasked; the caches cleaned when entered with them on), then what the
//! PMU counts (cycle rate, event counters programmed for the memory events).

use crate::arch::boot::{serror_unmasked, setway_ops_expected};
use crate::arch::cpu::{ticks, CpuId};
use crate::arch::{self, probes};
use crate::{run, say};
use mairbench_core::arch_name;
use mairbench_core::emulation::{Observed, Tells};
use mairbench_core::pmu::Unavailable;
use mairbench_core::record::Record;

/// What the PMU offers the run, as [`boot_checks`] found it.
pub struct PmuState {
    /// Whether PMCCNTR_EL0 counts at EL1.
    pub cycles: bool,
    /// PMCCNTR_EL0's rate against CNTVCT_EL0, Hz.
    pub cycle_hz: Option<u64>,
    /// PMCEID0/1_EL0 and PMCR_EL0.N, where readable.
    ids: Option<arch::pmu::Ids>,
    /// The event counters programmed for the chosen events, or why none counts.
    pub events: Result<arch::pmu::Events, Unavailable>,
}

impl PmuState {
    /// Adds the `config` record's PMU fields.
    pub fn config<'w, W: core::fmt::Write>(&self, mut record: Record<'w, W>) -> Record<'w, W> {
        let names = self.events.as_ref().ok().map(|e| e.choice().names());
        record = record
            .strs("pmu_events", names.into_iter().flatten())
            .opt_str("pmu_reason", self.events.as_ref().err().map(|u| u.why()));
        if let Some(ids) = &self.ids {
            record = record
                .hex("pmceid0", ids.pmceid0)
                .hex("pmceid1", ids.pmceid1);
        }
        record
            .opt_decimal("cycle_mhz", self.cycle_hz.map(tenths_mhz), 1)
            .opt_u64("cycle_hz", self.cycle_hz)
    }
}

/// Hz in tenths of MHz, rounded to nearest.
fn tenths_mhz(hz: u64) -> u64 {
    hz.saturating_add(50_000) / 100_000
}

/// Writes of PMSWINC_EL0 in the event counters' self-check.
const SW_INCR_WRITES: u32 = 100;

/// What the boot code promised: relocated, and timer, FP/SIMD and PMU usable from EL1; then
/// what the PMU counts (cycle rate, event counters programmed for the memory events), and
/// whether the counter can time the loops. Not inlined into `main`: inside that large frame
/// the same code takes more instructions.
#[inline(never)]
pub fn boot_checks(
    cpu: &CpuId,
    bad_relocs: u64,
    soc_clock: Option<&'static str>,
) -> (PmuState, bool) {
    run::check(
        "relocations",
        bad_relocs == 0,
        format_args!("{bad_relocs} of an unsupported type left unapplied"),
    );
    let t0 = ticks();
    let t1 = (0..1_000_000)
        .map(|_| ticks())
        .find(|&t| t != t0)
        .unwrap_or(t0);
    let clock = t1 > t0 && cpu.cntfrq != 0;
    if let Some(name) = soc_clock {
        run::check(
            "timer",
            clock,
            format_args!("{name}: its counter advances, {} Hz", cpu.cntfrq),
        );
        return (pmu_checks(cpu), clock);
    }
    run::check(
        "timer",
        clock,
        format_args!(
            concat!(
                arch_name!(cntvct),
                " advances, ",
                arch_name!(cntfrq),
                " {} Hz"
            ),
            cpu.cntfrq
        ),
    );
    (pmu_checks(cpu), clock)
}

/// The FP/SIMD check, then what the PMU offers.
fn pmu_checks(cpu: &CpuId) -> PmuState {
    run::check(
        "fp-simd",
        probes::fp_simd_works(),
        format_args!(concat!(
            arch_name!(fp_simd),
            " instructions execute at ",
            arch_name!(kernel_level)
        )),
    );
    let Some(pmu) = arch::pmu::pmu() else {
        say!(concat!(
            "pmu: none (",
            arch_name!(pmu_id),
            "); cycle counts unavailable; no event counts"
        ));
        return PmuState {
            cycles: false,
            cycle_hz: None,
            ids: None,
            events: Err(Unavailable::NoPmu),
        };
    };
    let started = arch::pmu::start_cycle_counter();
    let c0 = arch::pmu::cycles();
    let c1 = (0..1_000_000)
        .map(|_| arch::pmu::cycles())
        .find(|&c| c != c0)
        .unwrap_or(c0);
    let cycles = run::check(
        "pmu-cycles",
        started.is_ok() && c1 > c0,
        format_args!(
            concat!(
                arch_name!(pmu_version),
                " {}, {} event counters, ",
                arch_name!(pmccntr),
                " counts at ",
                arch_name!(kernel_level)
            ),
            pmu.version, pmu.counters
        ),
    );
    let cycle_hz = cycles
        .then(|| arch::pmu::cycle_rate_hz(cpu.cntfrq))
        .flatten();
    if let Some(hz) = cycle_hz {
        say!(
            concat!(
                "pmu: ",
                arch_name!(pmccntr),
                " at {}.{} MHz over 1 ms of ",
                arch_name!(cntvct),
                "{}"
            ),
            tenths_mhz(hz) / 10,
            tenths_mhz(hz) % 10,
            if run::emulated() {
                " (under QEMU: virtual nanoseconds, not cycles)"
            } else {
                ""
            }
        );
    }
    let ids = arch::pmu::ids();
    let events = ids.and_then(|ids| {
        // SW_INCR is architecturally required: a wrong count means programming failed.
        match arch::pmu::sw_incr_check(SW_INCR_WRITES) {
            Ok(n) => {
                run::check(
                    "pmu-events",
                    n == u64::from(SW_INCR_WRITES),
                    format_args!(
                        concat!(
                            "event counter 0 counted {n} SW_INCR for {} writes of ",
                            arch_name!(pmswinc),
                            "; ",
                            arch_name!(pmceid0),
                            " {:#x}, ",
                            arch_name!(pmceid1),
                            " {:#x}"
                        ),
                        u64::from(SW_INCR_WRITES),
                        ids.pmceid0,
                        ids.pmceid1,
                        n = n
                    ),
                );
            }
            Err(_) => return Err(Unavailable::Trapped),
        }
        arch::pmu::events(&ids, cpu.midr)
    });
    match &events {
        Ok(e) => say!(
            "pmu: counting {} of {} events on {} counters: {}",
            e.choice().len(),
            mairbench_core::pmu::MAX,
            pmu.counters,
            Listed(e.choice())
        ),
        Err(why) => match &ids {
            Ok(ids) => say!(
                concat!(
                    "pmu: no memory events: {}: ",
                    arch_name!(pmceid0),
                    " {:#x}, ",
                    arch_name!(pmceid1),
                    " {:#x}; every result's pmu is null"
                ),
                why.why(),
                ids.pmceid0,
                ids.pmceid1
            ),
            Err(_) => say!(
                "pmu: no memory events: {}; every result's pmu is null",
                why.why()
            ),
        },
    }
    PmuState {
        cycles,
        cycle_hz,
        ids: ids.ok(),
        events,
    }
}

/// The chosen events' names, separated by commas.
struct Listed<'a>(&'a mairbench_core::pmu::Choice);

impl core::fmt::Display for Listed<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for (i, name) in self.0.names().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

/// What the entry code promised besides EL1's state: SError unmasked, and, when entered with
/// the caches on, a set/way clean of every level below the point of coherency, decoded in the
/// CCSIDR_EL1 layout the CPU has.
pub fn entry_checks(entry_sctlr: u64, setway_ops: u64) {
    run::check(
        "serror",
        serror_unmasked(),
        format_args!(concat!(
            arch_name!(serror),
            " unmasked at ",
            arch_name!(kernel_level),
            " (",
            arch_name!(async_mask),
            " clear): an external abort is reported"
        )),
    );
    if let Some(setup) = crate::arch::cpu::smp_bits() {
        // What was found and done, for the smp-config verdict and the host's re-judging.
        let _ = setup.record(&mut crate::console::Console);
        if setup.ok() {
            run::check("smp-bits", true, format_args!("{setup}"));
        } else if run::emulated() {
            say!(
                "smp-bits: ACTLR {:#x}: not judged, QEMU models no caches and no coherency \
                 (its ACTLR reads as zero and ignores writes)",
                setup.actlr
            );
        } else {
            run::warn("smp-bits");
            say!("smp-bits: {setup}");
        }
    }
    if entry_sctlr & 0b101 != 0 {
        let (expected, ccidx) = setway_ops_expected();
        run::check(
            "entry-clean",
            setway_ops == expected,
            format_args!(
                concat!(
                    "entered with the MMU or D-cache on: {setway_ops} ",
                    arch_name!(dc_cisw),
                    " operations issued, {expected} lines by set/way below LoC (",
                    arch_name!(ccsidr),
                    " {})"
                ),
                if ccidx {
                    "in the FEAT_CCIDX layout"
                } else {
                    "in the 32-bit layout"
                },
                setway_ops = setway_ops,
                expected = expected
            ),
        );
    }
}

/// What the machine shows of QEMU's TCG ([`mairbench_core::emulation::Tells`]), read quietly
/// before the `start` record (which says whether the run is emulated): CNTFRQ_EL0, the
/// device tree's `/timer` rate, PMCEID0_EL0 and the cycle counter's rate over 1 ms of the
/// counter. [`boot_checks`] reads the PMU again and reports it.
pub fn tells(cpu: &CpuId, dt_timer_hz: Option<u64>) -> Tells {
    let cycles = arch::pmu::pmu()
        .filter(|p| !p.trapped)
        .filter(|_| arch::pmu::start_cycle_counter().is_ok())
        .and_then(|_| arch::pmu::cycle_rate_hz(cpu.cntfrq));
    Tells::of(&Observed {
        cntfrq_hz: cpu.cntfrq,
        dt_timer_hz,
        pmceid0: arch::pmu::ids().ok().map(|ids| ids.pmceid0),
        // The rate over one second of ticks: cycles per CNTFRQ_EL0 ticks.
        cycles_ticks: cycles.map(|hz| (hz, cpu.cntfrq)),
        ..Observed::default()
    })
}
