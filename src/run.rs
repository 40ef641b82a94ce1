//! The run's tally of checks and warnings, and how it ends: an `end` record, a status line and
//! the exit status (0 = pass, 1 = fail).

use crate::arch::{self, Global};
use crate::console::{self, Console};
use mairbench_core::platform::PsciConduit;
use mairbench_core::record::Record;
use mairbench_core::schema;

#[derive(Clone, Copy)]
struct Tally {
    checks: u32,
    failed: u32,
    warnings: u32,
    ending: bool,
    semihosting: bool,
    psci: Option<PsciConduit>,
    start_ticks: u64,
}

static TALLY: Global<Tally> = Global::new(Tally {
    checks: 0,
    failed: 0,
    warnings: 0,
    ending: false,
    semihosting: false,
    psci: None,
    start_ticks: 0,
});

fn update(f: impl FnOnce(&mut Tally)) {
    let mut tally = TALLY.get();
    f(&mut tally);
    TALLY.set(tally);
}

/// Records how this machine can be stopped, found at boot.
pub fn set_exit_paths(semihosting: bool, psci: Option<PsciConduit>) {
    update(|t| {
        t.semihosting = semihosting;
        t.psci = psci;
    });
}

/// Notes the counter value at the start of the run.
pub fn set_start_ticks(ticks: u64) {
    update(|t| t.start_ticks = ticks);
}

/// Counts one check and reports it (a human line and a `check` record); a failed check makes
/// the run fail.
pub fn check(name: &str, ok: bool, detail: core::fmt::Arguments<'_>) -> bool {
    update(|t| {
        t.checks += 1;
        t.failed += u32::from(!ok);
    });
    crate::say!("{} {name}: {detail}", if ok { "ok  " } else { "FAIL" });
    let _ = Record::new(&mut Console, &schema::CHECK)
        .str("name", name)
        .bool("ok", ok)
        .fmt("detail", detail)
        .finish();
    ok
}

/// Counts one warning (the run still passes).
pub fn warn() {
    update(|t| t.warnings += 1);
}

/// Ends the run: pass unless a check failed or `reason` says why it cannot pass.
pub fn end(reason: Option<&str>) -> ! {
    let tally = TALLY.get();
    if tally.ending {
        // Something failed while ending: stop without another report.
        arch::exit::exit(1, tally.semihosting, tally.psci);
        arch::park();
    }
    update(|t| t.ending = true);
    let pass = reason.is_none() && tally.failed == 0;
    let status = if pass { "pass" } else { "fail" };
    let ticks = arch::ticks().wrapping_sub(tally.start_ticks);
    let micros = ticks.saturating_mul(1_000_000) / arch::cpu_id().cntfrq.max(1);
    let _ = Record::new(&mut Console, &schema::END)
        .str("status", status)
        .u64("checks", tally.checks.into())
        .u64("failed", tally.failed.into())
        .u64("warnings", tally.warnings.into())
        .opt_str("reason", reason)
        .u64("run_us", micros)
        .finish();
    crate::say!(
        "mairbench: status {status} ({} checks, {} failed, {} warnings{}{}) after {micros} us",
        tally.checks,
        tally.failed,
        tally.warnings,
        if reason.is_some() { "; " } else { "" },
        reason.unwrap_or("")
    );
    console::flush();
    arch::exit::exit(u32::from(!pass), tally.semihosting, tally.psci);
    crate::say!("mairbench: no semihosting or PSCI to power off with; the core now waits (wfe)");
    console::flush();
    arch::park()
}
