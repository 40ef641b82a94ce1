//! `cargo host run --out DIR [-- BOOTARGS]`: build the firmware, boot it in QEMU through
//! qemu/run, keep its console in DIR/console.log and write the report into DIR (docs/host.md,
//! docs/runner.md).

use super::{create_out, report, usage, Fail};
use crate::link::capture;
use std::path::Path;

/// Runs the firmware in QEMU with `bootargs` (after `cargo build --release` when `build`),
/// the console showing its records unless `quiet` (or `MAIRBENCH_RECORDS` says otherwise),
/// then reports on `out`/console.log into `out`.
pub fn run(out: &Path, bootargs: &[String], build: bool, quiet: bool) -> Result<(), Fail> {
    use std::io::IsTerminal as _;
    let records = match std::env::var("MAIRBENCH_RECORDS").as_deref() {
        _ if quiet => false,
        Ok("1") => true,
        Ok("0") => false,
        Ok(other) => {
            return Err(usage(format!(
                "MAIRBENCH_RECORDS must be 0 or 1, not '{other}'."
            )))
        }
        Err(_) => !std::io::stdout().is_terminal(),
    };
    create_out(out)?;
    let console = out.join("console.log");
    let status = capture::qemu(bootargs, &console, build, records).map_err(usage)?;
    report::run(&console, Some(out))?;
    match status {
        0 => Ok(()),
        124 => Err(Fail(
            1,
            "QEMU did not finish within MAIRBENCH_TIMEOUT and was killed.".into(),
        )),
        s => Err(Fail(1, format!("qemu/run exited with status {s}."))),
    }
}
