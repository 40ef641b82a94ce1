//! The run's tally of checks and warnings, whether it is emulated, and how it ends: an `end`
//! record, a status line and the exit status (0 = pass, 1 = fail).

use crate::arch::global::{Global, Slot};
use crate::arch::{cpu, exit};
use crate::console::{self, Console};
use mairbench_core::platform::PsciConduit;
use mairbench_core::record::Record;
use mairbench_core::schema;

/// How many distinct names each list of the tally holds.
const NAMES: usize = 8;

/// Distinct names, in the order first added: the first [`NAMES`] kept, the rest counted.
#[derive(Clone, Copy)]
struct Names {
    /// `Option`, not `""` for an empty slot: a `None` is all zero bits, so the tally starts
    /// in the BSS, not as image bytes (the data's last page).
    names: [Option<&'static str>; NAMES],
    len: usize,
    omitted: u32,
}

impl Names {
    const EMPTY: Names = Names {
        names: [None; NAMES],
        len: 0,
        omitted: 0,
    };

    fn add(&mut self, name: &'static str) {
        if self.iter().any(|n| n == name) {
            return;
        }
        match self.names.get_mut(self.len) {
            Some(slot) => {
                *slot = Some(name);
                self.len += 1;
            }
            None => self.omitted = self.omitted.saturating_add(1),
        }
    }

    fn iter(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.names.iter().take(self.len).flatten().copied()
    }

    fn is_empty(&self) -> bool {
        self.len == 0 && self.omitted == 0
    }
}

/// `": a, b"` (and `" and N more"`) after a count, when there are names.
struct Listed<'a>(&'a Names);

impl core::fmt::Display for Listed<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for (i, name) in self.0.iter().enumerate() {
            f.write_str(if i == 0 { ": " } else { ", " })?;
            f.write_str(name)?;
        }
        match self.0.omitted {
            0 => Ok(()),
            more => write!(f, " and {} more", u64::from(more)),
        }
    }
}

#[derive(Clone, Copy)]
struct Tally {
    checks: u32,
    failed: u32,
    warnings: u32,
    failed_checks: Names,
    warned: Names,
    ending: bool,
    semihosting: bool,
    start_ticks: u64,
}

/// How this machine can be stopped by PSCI, if it can: apart from the tally, whose every
/// field starts at zero bits (a `None` of this type does not).
static PSCI: Slot<PsciConduit> = Slot::empty();

static TALLY: Global<Tally> = Global::new(Tally {
    checks: 0,
    failed: 0,
    warnings: 0,
    failed_checks: Names::EMPTY,
    warned: Names::EMPTY,
    ending: false,
    semihosting: false,
    start_ticks: 0,
});

fn update(f: impl FnOnce(&mut Tally)) {
    let mut tally = TALLY.get();
    f(&mut tally);
    TALLY.set(tally);
}

/// Records how this machine can be stopped, found at boot.
pub fn set_exit_paths(semihosting: bool, psci: Option<PsciConduit>) {
    update(|t| t.semihosting = semihosting);
    PSCI.set(psci);
}

/// Notes the counter value at the start of the run.
pub fn set_start_ticks(ticks: u64) {
    update(|t| t.start_ticks = ticks);
}

/// Whether the run is emulated (`mairbench_core::emulation::Emulation`), set once before the
/// start record.
static EMULATED: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);

/// Notes whether the run is emulated.
pub fn set_emulated(on: bool) {
    EMULATED.store(on, core::sync::atomic::Ordering::Relaxed);
}

/// Whether the run is emulated: every table of timings then says so.
pub fn emulated() -> bool {
    EMULATED.load(core::sync::atomic::Ordering::Relaxed)
}

/// How long the end keeps the framebuffer console's screen by default, in seconds: time to
/// read it or photograph it before the power goes off.
pub const DEFAULT_HOLD_S: u32 = 60;

/// Seconds the end keeps the screen before powering off (0 without the framebuffer console).
static HOLD_S: core::sync::atomic::AtomicU32 = core::sync::atomic::AtomicU32::new(0);

/// Sets how long the end keeps the framebuffer console's screen, in seconds.
pub fn set_hold(seconds: u32) {
    HOLD_S.store(seconds, core::sync::atomic::Ordering::Relaxed);
}

/// Counts one check and reports it (a human line and a `check` record); a failed check makes
/// the run fail.
pub fn check(name: &'static str, ok: bool, detail: core::fmt::Arguments<'_>) -> bool {
    update(|t| {
        t.checks += 1;
        t.failed += u32::from(!ok);
        if !ok {
            t.failed_checks.add(name);
        }
    });
    crate::say!("{} {name}: {detail}", if ok { "ok  " } else { "FAIL" });
    let _ = Record::new(&mut Console, &schema::CHECK)
        .str("name", name)
        .bool("ok", ok)
        .fmt("detail", detail)
        .finish();
    ok
}

/// Counts one verdict (its `verdict` record and line are the report): `fail` fails the run
/// and is named in the `end` record's `failed_checks`, `warn` counts as a warning named in
/// `warned`, `n/a` is not counted.
pub fn verdict(name: &'static str, status: mairbench_core::verdict::Status) {
    use mairbench_core::verdict::Status;
    update(|t| match status {
        Status::NotApplicable => {}
        Status::Pass => t.checks += 1,
        Status::Warn => {
            t.checks += 1;
            t.warnings += 1;
            t.warned.add(name);
        }
        Status::Fail => {
            t.checks += 1;
            t.failed += 1;
            t.failed_checks.add(name);
        }
    });
}

/// Counts one warning (the run still passes); `name` says what kind, short, as the `end`
/// record's `warned` lists it (the names are documented with that field in the schema).
pub fn warn(name: &'static str) {
    update(|t| {
        t.warnings += 1;
        t.warned.add(name);
    });
}

/// Ends the run: pass unless a check failed or `reason` says why it cannot pass.
pub fn end(reason: Option<&str>) -> ! {
    let tally = TALLY.get();
    if tally.ending {
        // Something failed while ending: stop without another report.
        exit::exit(1, tally.semihosting, PSCI.get());
        cpu::park();
    }
    update(|t| t.ending = true);
    let pass = reason.is_none() && tally.failed == 0;
    let status = if pass { "pass" } else { "fail" };
    let ticks = cpu::ticks().wrapping_sub(tally.start_ticks);
    let micros = ticks.saturating_mul(1_000_000) / cpu::cpu_id().cntfrq.max(1);
    let mut console = Console;
    let mut record = Record::new(&mut console, &schema::END)
        .str("status", status)
        .u64("checks", tally.checks.into())
        .u64("failed", tally.failed.into())
        .u64("warnings", tally.warnings.into())
        .opt_str("reason", reason)
        .u64("run_us", micros);
    for (key, omitted, names) in [
        (
            "failed_checks",
            "failed_checks_omitted",
            &tally.failed_checks,
        ),
        ("warned", "warned_omitted", &tally.warned),
    ] {
        if !names.is_empty() {
            record = record.strs(key, names.iter());
        }
        if names.omitted > 0 {
            record = record.u64(omitted, names.omitted.into());
        }
    }
    let _ = record.finish();
    crate::say!(
        "mairbench: status {status} ({} checks, {} failed{}, {}{}{}{}) after {micros} us",
        u64::from(tally.checks),
        u64::from(tally.failed),
        Listed(&tally.failed_checks),
        Warnings(tally.warnings),
        Listed(&tally.warned),
        if reason.is_some() { "; " } else { "" },
        reason.unwrap_or("")
    );
    if console::has_fb() {
        console::note_no_uart();
        let hold = HOLD_S.load(core::sync::atomic::Ordering::Relaxed);
        crate::say!(
            "mairbench: the screen keeps this for {} s (mairbench.hold=), then the run ends",
            u64::from(hold)
        );
        console::draw_large(
            format_args!(
                "{}: {} checks, {} failed, {}",
                if pass { "PASS" } else { "FAIL" },
                u64::from(tally.checks),
                u64::from(tally.failed),
                Warnings(tally.warnings)
            ),
            if pass { 0x40_ff40 } else { 0xff_4040 },
        );
        console::flush();
        crate::arch::timer::Deadline::after_ns(u64::from(hold) * 1_000_000_000).wait();
    }
    console::flush();
    exit::exit(u32::from(!pass), tally.semihosting, PSCI.get());
    crate::say!("mairbench: no semihosting or PSCI to power off with; the core now waits (wfe)");
    console::flush();
    cpu::park()
}

/// A count of warnings in words: `1 warning`, `2 warnings`.
struct Warnings(u32);

impl core::fmt::Display for Warnings {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        let s = if self.0 == 1 { "" } else { "s" };
        write!(f, "{} warning{s}", u64::from(self.0))
    }
}
