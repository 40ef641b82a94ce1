//! `cargo host capture --port DEV --out DIR`: a board's serial console read into
//! DIR/console.log until the end record, then the report (docs/host.md).

use super::{create_out, report, usage, Fail};
use crate::link::capture;
use std::path::Path;
use std::time::Duration;

/// Reads the serial port `port` at `baud` into `out`/console.log until the end record, the
/// time limit (`timeout` seconds) or the port's end, then reports on it into `out`.
pub fn run(port: &str, baud: u32, timeout: Option<f64>, out: &Path) -> Result<(), Fail> {
    let limit = match timeout {
        None => None,
        Some(s) => Some(
            Duration::try_from_secs_f64(s)
                .map_err(|_| usage(format!("--timeout {s} is not a number of seconds.")))?,
        ),
    };
    create_out(out)?;
    let console = out.join("console.log");
    let stop = capture::serial(port, baud, limit, &console).map_err(usage)?;
    match &stop {
        capture::Stop::End => {}
        capture::Stop::Timeout => esay!("capture: time limit reached"),
        capture::Stop::Closed(why) => esay!("capture: the port closed ({why})"),
    }
    report::run(&console, Some(out))
}
