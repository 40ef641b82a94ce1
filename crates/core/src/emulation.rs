//! Whether a run is emulated, and what says so: the runner (`mairbench.host=`), tables QEMU
//! wrote (its device tree or ACPI tables, [`Platform::qemu_mark`]), or, when neither does,
//! the machine's own behaviour: QEMU's TCG has [`Tells`] that no real core has. Timings of an
//! emulated run do not reflect memory types, so the verdicts that rest on them are `n/a`.
//!
//! The tells, from QEMU's `target/arm` (its PMU: `pmu_init`, the `pm_events` table; its
//! generic timer: `GTIMER_SCALE`, 16 ns):
//! - CNTFRQ_EL0 is 62.5 MHz and PMCCNTR_EL0 advances exactly 16 per counter tick: a "cycle"
//!   counter of exactly 1 GHz, which is QEMU's virtual nanoseconds, not cycles;
//! - PMCEID0_EL0 lists only SW_INCR and CPU_CYCLES (and INST_RETIRED under `-icount`): the
//!   events QEMU's PMU implements, where every real core's PMU lists its cache events;
//! - CNTFRQ_EL0 reads QEMU's 62.5 MHz while the device tree's `/timer` `clock-frequency`,
//!   written for the real board, says another rate.
//!
//! A real board could show the first or the third alone (a 1 GHz core clocked from the
//! counter's PLL; a boot loader that left CNTFRQ_EL0 wrong), so the run is suspected only on
//! the PMU's event list, or on two tells together.
//!
//! QEMU runs a guest two ways ([`Accel`]): TCG translates every instruction and models no
//! caches, so its timings say nothing about memory types; KVM runs the guest on the host's own
//! cores, whose caches are real, so its timings count (they are a guest's: the host's stage 2
//! may override the memory types asked for, [`crate::hypervisor`]). Only the device tree is
//! QEMU's there. The runner says which (`mairbench.accel=`); else TCG's tells or KVM's SMCCC
//! UID do; a QEMU machine that neither names stays emulated, on the safe side.

use core::fmt;

use crate::format::Decimal;
use crate::hypervisor::Hypervisor;
use crate::platform::{Platform, Tables};

/// How QEMU runs the guest's instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Accel {
    /// The Tiny Code Generator: instructions translated in software, no caches modelled.
    Tcg,
    /// The host's KVM: the guest runs on the host's cores and caches.
    Kvm,
}

impl Accel {
    /// Every accelerator, in the order `mairbench.accel=` lists them.
    pub const ALL: [Accel; 2] = [Accel::Tcg, Accel::Kvm];

    /// Its name, as QEMU's `-accel` and `mairbench.accel=` spell it and the `start` record's
    /// `accel` carries it: `tcg` or `kvm`.
    pub const fn name(self) -> &'static str {
        match self {
            Accel::Tcg => "tcg",
            Accel::Kvm => "kvm",
        }
    }

    /// The accelerator of that name.
    pub fn by_name(name: &str) -> Option<Accel> {
        Accel::ALL.into_iter().find(|a| a.name() == name)
    }
}

/// Who named the accelerator ([`Emulation::accel`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AccelFrom {
    /// The runner: `mairbench.accel=`.
    Bootarg,
    /// The machine: TCG's [`Tells`].
    Tells,
    /// KVM's SMCCC vendor-hypervisor UID, on a machine QEMU describes.
    Uid,
}

/// QEMU's generic counter frequency: 62.5 MHz (a 16 ns tick).
pub const QEMU_CNTFRQ_HZ: u64 = 62_500_000;

/// PMCCNTR_EL0 increments per tick of QEMU's counter: virtual nanoseconds over 16 ns ticks.
pub const QEMU_CYCLES_PER_TICK: u64 = 16;

/// PMCEID0_EL0 as QEMU's PMU reports it: SW_INCR (bit 0) and CPU_CYCLES (bit 17), plus
/// INST_RETIRED (bit 8) under `-icount`.
pub const QEMU_PMCEID0: [u64; 2] = [0x2_0001, 0x2_0101];

/// What the firmware read for the tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Observed {
    /// CNTFRQ_EL0.
    pub cntfrq_hz: u64,
    /// The device tree's `/timer` `clock-frequency`, when it has one.
    pub dt_timer_hz: Option<u64>,
    /// PMCEID0_EL0, when the PMU is usable.
    pub pmceid0: Option<u64>,
    /// PMCCNTR_EL0 cycles and CNTVCT_EL0 ticks over one interval, when the cycle counter is
    /// usable.
    pub cycles_ticks: Option<(u64, u64)>,
    /// The Linux twin: CNTVCT_EL0's step ([`crate::counter::step`]), when it was measured.
    pub counter_step: Option<u64>,
    /// The Linux twin: whether `/proc/cpuinfo` is an arm64 kernel's (it has `CPU implementer`
    /// lines), when it could be read.
    pub cpuinfo_arm64: Option<bool>,
}

/// One tell of QEMU's TCG.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tell {
    /// PMCCNTR_EL0 counted 16 per tick of a 62.5 MHz counter (within 1 %: the two counters
    /// are read one after the other, and under TCG virtual time runs on between the reads).
    CyclesAreNanoseconds,
    /// PMCEID0_EL0 is one of [`QEMU_PMCEID0`].
    QemuEvents,
    /// CNTFRQ_EL0 is 62.5 MHz, the device tree's `/timer` says another rate.
    CntfrqNotTheBoards,
    /// The Linux twin: CNTVCT_EL0 at 62.5 MHz moves a microsecond (about 62 ticks) at a time:
    /// user-mode QEMU derives it from the host's microsecond clock.
    CounterInMicroseconds,
    /// The Linux twin: `/proc/cpuinfo` is not an arm64 kernel's (no `CPU implementer`): the
    /// kernel runs another architecture and user-mode QEMU runs the twin.
    CpuinfoNotArm64,
}

impl Tell {
    /// Every tell, in the order records list them.
    pub const ALL: [Tell; 5] = [
        Tell::CyclesAreNanoseconds,
        Tell::QemuEvents,
        Tell::CntfrqNotTheBoards,
        Tell::CounterInMicroseconds,
        Tell::CpuinfoNotArm64,
    ];

    /// Its name in the `start` record's `emulation_tells`.
    pub const fn name(self) -> &'static str {
        match self {
            Tell::CyclesAreNanoseconds => "cycles-are-ns",
            Tell::QemuEvents => "qemu-pmu-events",
            Tell::CntfrqNotTheBoards => "cntfrq-not-the-boards",
            Tell::CounterInMicroseconds => "counter-in-us",
            Tell::CpuinfoNotArm64 => "cpuinfo-not-arm64",
        }
    }

    const fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// The tells a run showed, with the numbers behind them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Tells {
    bits: u8,
    observed: Observed,
}

impl Tells {
    /// The tells `o` shows.
    pub fn of(o: &Observed) -> Tells {
        let qemu_rate = o.cntfrq_hz == QEMU_CNTFRQ_HZ;
        let ns = o.cycles_ticks.is_some_and(|(cycles, ticks)| {
            let want = u128::from(ticks).saturating_mul(u128::from(QEMU_CYCLES_PER_TICK));
            let got = u128::from(cycles);
            ticks > 0 && got.abs_diff(want).saturating_mul(100) <= want
        });
        let events = o.pmceid0.is_some_and(|p| QEMU_PMCEID0.contains(&p));
        let cntfrq = o.dt_timer_hz.is_some_and(|hz| hz != o.cntfrq_hz);
        // A microsecond of a 62.5 MHz counter is 62.5 ticks; the step is the smallest
        // advance seen (62 or 63).
        let us_steps = o.counter_step.is_some_and(|s| (60..=65).contains(&s));
        let mut bits = 0;
        for (tell, seen) in [
            (Tell::CyclesAreNanoseconds, qemu_rate && ns),
            (Tell::QemuEvents, events),
            (Tell::CntfrqNotTheBoards, qemu_rate && cntfrq),
            (Tell::CounterInMicroseconds, qemu_rate && us_steps),
            (Tell::CpuinfoNotArm64, o.cpuinfo_arm64 == Some(false)),
        ] {
            if seen {
                bits |= tell.bit();
            }
        }
        Tells { bits, observed: *o }
    }

    /// Whether it shows `tell`.
    pub const fn has(&self, tell: Tell) -> bool {
        self.bits & tell.bit() != 0
    }

    /// The tells shown, in [`Tell::ALL`] order.
    pub fn iter(&self) -> impl Iterator<Item = Tell> + '_ {
        Tell::ALL.into_iter().filter(|&t| self.has(t))
    }

    /// Whether they make the run a suspected emulation: QEMU's PMU event list, a
    /// `/proc/cpuinfo` that is not arm64's, or two tells. Not inlined: one copy for its
    /// callers.
    #[inline(never)]
    pub fn suspect(&self) -> bool {
        self.has(Tell::QemuEvents) || self.has(Tell::CpuinfoNotArm64) || self.bits.count_ones() >= 2
    }
}

/// The tells in words, `; `-separated, e.g. `PMCEID0_EL0 is 0x20001, QEMU's PMU events`.
impl fmt::Display for Tells {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let o = &self.observed;
        for (i, t) in self.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            match t {
                Tell::CyclesAreNanoseconds => {
                    let (cycles, ticks) = o.cycles_ticks.unwrap_or((0, 1));
                    let per_tick = crate::stats::div_rem(
                        u128::from(cycles).saturating_mul(1000),
                        u128::from(ticks),
                    )
                    .map_or(0, |(q, _)| q);
                    write!(
                        f,
                        concat!(
                            crate::arch_name!(pmccntr),
                            " counted {} per tick of the 62.5 MHz counter (QEMU's virtual nanoseconds)"
                        ),
                        Decimal {
                            scaled: u64::try_from(per_tick).unwrap_or(u64::MAX),
                            places: 3
                        }
                    )?
                }
                Tell::QemuEvents => write!(
                    f,
                    concat!(
                        crate::arch_name!(pmceid0),
                        " is {:#x}, the events of QEMU's PMU"
                    ),
                    o.pmceid0.unwrap_or(0)
                )?,
                Tell::CntfrqNotTheBoards => write!(
                    f,
                    concat!(
                        crate::arch_name!(cntfrq),
                        " is QEMU's 62.5 MHz, the device tree's /timer says {} Hz"
                    ),
                    o.dt_timer_hz.unwrap_or(0)
                )?,
                Tell::CounterInMicroseconds => write!(
                    f,
                    concat!(
                        crate::arch_name!(cntvct),
                        " at 62.5 MHz moves {} ticks at a time: microseconds, as user-mode QEMU's"
                    ),
                    o.counter_step.unwrap_or(0)
                )?,
                Tell::CpuinfoNotArm64 => f.write_str(
                    "/proc/cpuinfo has no CPU implementer: the kernel is not arm64's, so an \
                     emulator runs this arm64 program",
                )?,
            }
        }
        Ok(())
    }
}

/// Why a run counts as emulated: its runner said so (`mairbench.host=`), its device tree or
/// ACPI tables are QEMU's ([`Platform::qemu_mark`]), or its behaviour is ([`Tells`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Emulation<'a> {
    /// The emulator the runner named ([`crate::bootargs::host`]), e.g. `qemu-10.0.2`.
    pub host: Option<&'a str>,
    /// What in the tables marks QEMU.
    pub dtb: Option<&'static str>,
    /// The tables that were read ([`Platform::tables`]).
    pub tables: Tables,
    /// The tells of QEMU's TCG the machine showed.
    pub tells: Tells,
    /// The accelerator the runner named (`mairbench.accel=`).
    pub accel_said: Option<Accel>,
    /// The hypervisor whose guest the firmware runs in, as [`crate::hypervisor::detect`]
    /// found it.
    pub hypervisor: Option<Hypervisor>,
}

impl<'a> Emulation<'a> {
    /// From the platform found and the command line's `mairbench.host=` (no tells, no
    /// accelerator, no hypervisor yet).
    pub fn of(platform: &Platform<'_>, host: Option<&'a str>) -> Self {
        Emulation {
            host,
            dtb: platform.qemu_mark,
            tables: platform.tables,
            tells: Tells::default(),
            accel_said: None,
            hypervisor: None,
        }
    }

    /// The same, with the tells the machine showed.
    pub fn with_tells(self, tells: Tells) -> Self {
        Emulation { tells, ..self }
    }

    /// The same, with the accelerator the runner named and the hypervisor found.
    pub fn with_accel(self, said: Option<Accel>, hypervisor: Option<Hypervisor>) -> Self {
        Emulation {
            accel_said: said,
            hypervisor,
            ..self
        }
    }

    /// Whether QEMU runs this machine, on anyone's word: the runner, its tables, its tells.
    pub fn qemu(&self) -> bool {
        self.host.is_some() || self.dtb.is_some() || self.tells.suspect()
    }

    /// How QEMU runs it, and who says so, when anyone does. TCG's tells come first: a
    /// machine that shows them is translated, whatever was said (a runner's
    /// `mairbench.accel=kvm` then [conflicts](Emulation::accel_conflict)). Then the runner's
    /// word, then KVM's UID on a machine QEMU describes (its host named or its tables QEMU's).
    pub fn accel(&self) -> Option<(Accel, AccelFrom)> {
        if self.tells.suspect() {
            Some((Accel::Tcg, AccelFrom::Tells))
        } else if let Some(a) = self.accel_said {
            Some((a, AccelFrom::Bootarg))
        } else if self.qemu() && self.hypervisor == Some(Hypervisor::Kvm) {
            Some((Accel::Kvm, AccelFrom::Uid))
        } else {
            None
        }
    }

    /// Whether the runner said KVM while the machine shows TCG's tells.
    pub fn accel_conflict(&self) -> bool {
        self.accel_said == Some(Accel::Kvm) && self.tells.suspect()
    }

    /// Whether QEMU runs the machine under KVM: real cores and caches, timings that count.
    pub fn kvm(&self) -> bool {
        matches!(self.accel(), Some((Accel::Kvm, _)))
    }

    /// Whether the run is emulated in the sense that matters to its numbers: QEMU runs it and
    /// not under KVM (TCG, or an accelerator nobody named: on the safe side), so its timings
    /// do not reflect memory types.
    pub fn emulated(&self) -> bool {
        self.qemu() && !self.kvm()
    }

    /// Whether only the tells say so: nothing named the emulator, the run behaves like one.
    pub fn suspected(&self) -> bool {
        self.host.is_none() && self.dtb.is_none() && self.tells.suspect()
    }

    /// What says so, as the `start` record's `emulated_by` names it: `"bootarg"`, then `"dtb"`
    /// (the device tree is QEMU's) or `"acpi"` (the ACPI tables are), then `"tells"` (the
    /// machine behaves like QEMU's TCG, when that makes it suspected).
    pub fn by(&self) -> impl Iterator<Item = &'static str> {
        let tables = match self.tables {
            Tables::Acpi => "acpi",
            Tables::Dtb | Tables::None => "dtb",
        };
        [
            self.host.map(|_| "bootarg"),
            self.dtb.map(|_| tables),
            self.tells.suspect().then_some("tells"),
        ]
        .into_iter()
        .flatten()
    }

    /// The tables in words, for [`fmt::Display`].
    fn tables_words(&self) -> &'static str {
        match self.tables {
            Tables::Acpi => Tables::Acpi.words(),
            Tables::Dtb | Tables::None => Tables::Dtb.words(),
        }
    }
}

impl fmt::Display for Emulation<'_> {
    /// Why, in words, e.g. `mairbench.host=qemu-10.0.2 (the runner); device tree: root
    /// compatible linux,dummy-virt` (`ACPI tables: ...` from ACPI); `suspected: ...` with the
    /// tells when only they say so; `not emulated` when nothing does.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let tables = self.tables_words();
        match (self.host, self.dtb) {
            (Some(host), Some(mark)) => {
                write!(f, "mairbench.host={host} (the runner); {tables}: {mark}")
            }
            (Some(host), None) => write!(
                f,
                "mairbench.host={host} (the runner); nothing in the {tables} marks QEMU"
            ),
            (None, Some(mark)) => write!(f, "{tables}: {mark}"),
            (None, None) if self.tells.suspect() => write!(
                f,
                "suspected: nothing names an emulator, but the machine behaves like QEMU's TCG: {}",
                self.tells
            ),
            (None, None) => f.write_str("not emulated"),
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;
    use std::vec::Vec;

    /// QEMU 10 `virt` under TCG at EL1: what the firmware reads there.
    const QEMU: Observed = Observed {
        cntfrq_hz: 62_500_000,
        dt_timer_hz: None,
        pmceid0: Some(0x2_0001),
        cycles_ticks: Some((16_000_160, 1_000_010)),
        counter_step: None,
        cpuinfo_arm64: None,
    };

    fn names(t: &Tells) -> Vec<&'static str> {
        t.iter().map(Tell::name).collect()
    }

    #[test]
    fn qemu_shows_its_tells() {
        let t = Tells::of(&QEMU);
        assert_eq!(names(&t), ["cycles-are-ns", "qemu-pmu-events"]);
        assert!(t.suspect());
        assert_eq!(
            t.to_string(),
            "PMCCNTR_EL0 counted 16.000 per tick of the 62.5 MHz counter (QEMU's virtual \
             nanoseconds); PMCEID0_EL0 is 0x20001, the events of QEMU's PMU"
        );
        // A board's device tree naming its own timer rate (a Pi 4's 54 MHz).
        let t = Tells::of(&Observed {
            dt_timer_hz: Some(54_000_000),
            ..QEMU
        });
        assert_eq!(names(&t).len(), 3);
        // Under -icount, INST_RETIRED is listed too.
        assert!(Tells::of(&Observed {
            pmceid0: Some(0x2_0101),
            ..QEMU
        })
        .has(Tell::QemuEvents));
    }

    #[test]
    fn real_boards_show_none_or_one_weak_tell() {
        // A Cortex-A72 at 1.5 GHz on a 54 MHz counter, with its cache events.
        let a72 = Observed {
            cntfrq_hz: 54_000_000,
            dt_timer_hz: None,
            pmceid0: Some(0x7fff_0f3f),
            cycles_ticks: Some((1_500_000_000, 54_000_000)),
            counter_step: Some(1),
            cpuinfo_arm64: Some(true),
        };
        assert_eq!(names(&Tells::of(&a72)), Vec::<&str>::new());
        // A 1 GHz core whose counter runs at exactly 62.5 MHz: one weak tell, not suspected.
        let t = Tells::of(&Observed {
            cntfrq_hz: 62_500_000,
            cycles_ticks: Some((16_000_000, 1_000_000)),
            ..a72
        });
        assert_eq!(names(&t), ["cycles-are-ns"]);
        assert!(!t.suspect());
        // CNTFRQ_EL0 left wrong by a boot loader, not at QEMU's rate: no tell.
        let t = Tells::of(&Observed {
            cntfrq_hz: 0,
            dt_timer_hz: Some(24_000_000),
            ..a72
        });
        assert!(!t.suspect() && t.iter().count() == 0);
        // 2 % off 16 per tick is a real clock, not QEMU's.
        let t = Tells::of(&Observed {
            cycles_ticks: Some((16_320_000, 1_000_000)),
            pmceid0: None,
            ..QEMU
        });
        assert_eq!(names(&t), Vec::<&str>::new());
        // Nothing read (no PMU, no counter interval): no tells, never a panic.
        let t = Tells::of(&Observed {
            cycles_ticks: Some((u64::MAX, 0)),
            ..Observed::default()
        });
        assert!(!t.suspect());
        let _ = t.to_string();
    }

    #[test]
    fn user_mode_qemu_shows_its_tells_to_the_twin() {
        // qemu-aarch64 7.2 on an x86 host: 62.5 MHz claimed, microsecond steps, the host's
        // /proc/cpuinfo; no PMU at EL0.
        let twin = Observed {
            cntfrq_hz: 62_500_000,
            counter_step: Some(62),
            cpuinfo_arm64: Some(false),
            ..Observed::default()
        };
        let t = Tells::of(&twin);
        assert_eq!(names(&t), ["counter-in-us", "cpuinfo-not-arm64"]);
        assert!(t.suspect());
        assert!(t.to_string().contains("moves 62 ticks at a time"));
        // cpuinfo alone says so; the step alone does not.
        assert!(Tells::of(&Observed {
            counter_step: Some(1),
            ..twin
        })
        .suspect());
        assert!(!Tells::of(&Observed {
            cpuinfo_arm64: Some(true),
            ..twin
        })
        .suspect());
        // An arm64 board under Linux: a tick at a time, its own cpuinfo: none.
        let board = Observed {
            cntfrq_hz: 54_000_000,
            counter_step: Some(1),
            cpuinfo_arm64: Some(true),
            ..Observed::default()
        };
        assert_eq!(names(&Tells::of(&board)), Vec::<&str>::new());
    }

    #[test]
    fn suspected_only_when_nothing_else_says_so() {
        let p = crate::platform::discover(None);
        let plain = Emulation::of(&p, None);
        assert!(!plain.emulated() && !plain.suspected());
        assert_eq!(plain.to_string(), "not emulated");
        let e = plain.with_tells(Tells::of(&QEMU));
        assert!(e.emulated() && e.suspected());
        assert_eq!(e.by().collect::<Vec<_>>(), ["tells"]);
        assert!(e
            .to_string()
            .starts_with("suspected: nothing names an emulator, but the machine behaves like QEMU's TCG: PMCCNTR_EL0"));
        let e = Emulation::of(&p, Some("qemu-10.0.2")).with_tells(Tells::of(&QEMU));
        assert!(e.emulated() && !e.suspected());
        assert_eq!(e.by().collect::<Vec<_>>(), ["bootarg", "tells"]);
    }

    #[test]
    fn tcg_and_kvm_told_apart() {
        let p = crate::platform::discover(None);
        let host = Some("qemu-10.0.2");
        let kvm = Some(Hypervisor::Kvm);
        // The runner says TCG, the machine shows its tells: emulated.
        let tcg = Emulation::of(&p, host)
            .with_tells(Tells::of(&QEMU))
            .with_accel(Some(Accel::Tcg), None);
        assert_eq!(tcg.accel(), Some((Accel::Tcg, AccelFrom::Tells)));
        assert!(tcg.emulated() && tcg.qemu() && !tcg.kvm() && !tcg.accel_conflict());
        // The runner says KVM, no tells, KVM's UID: real cores, timings count.
        let said = Emulation::of(&p, host).with_accel(Some(Accel::Kvm), kvm);
        assert_eq!(said.accel(), Some((Accel::Kvm, AccelFrom::Bootarg)));
        assert!(said.qemu() && said.kvm() && !said.emulated());
        // Nobody said anything but the machine answers KVM's UID: KVM. Without the UID, a
        // machine QEMU describes stays emulated (TCG or KVM, nobody knows).
        let mut hand = Emulation::of(&p, host);
        assert_eq!(hand.accel(), None);
        assert!(hand.emulated());
        hand.hypervisor = kvm;
        assert_eq!(hand.accel(), Some((Accel::Kvm, AccelFrom::Uid)));
        assert!(!hand.emulated());
        // KVM's UID on a machine nothing marks as QEMU's: a guest, not QEMU.
        let guest = Emulation::of(&p, None).with_accel(None, kvm);
        assert_eq!(guest.accel(), None);
        assert!(!guest.qemu() && !guest.emulated());
        // The runner says KVM, the machine shows TCG's tells: TCG, and a conflict.
        let wrong = Emulation::of(&p, host)
            .with_tells(Tells::of(&QEMU))
            .with_accel(Some(Accel::Kvm), None);
        assert_eq!(wrong.accel(), Some((Accel::Tcg, AccelFrom::Tells)));
        assert!(wrong.accel_conflict() && wrong.emulated());
        for a in Accel::ALL {
            assert_eq!(Accel::by_name(a.name()), Some(a));
        }
        assert_eq!(Accel::by_name("hvf"), None);
    }
}
