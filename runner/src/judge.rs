//! Did this run pass: the one judge of a console log, QEMU's or a real board's serial
//! port's, for the runner and `qemu/judge LOG [QEMU_EXIT_STATUS]` alike. What the last end
//! record says is the host tool's record reader's answer ([`last_end`]); a run that did not
//! pass is explained with the lead of `cargo host report` ([`why::lead`]).

use mairbench_host::analyse::why;
use mairbench_host::read::log::parse;
pub use mairbench_host::read::log::{last_end, End};
use std::path::Path;

/// Judges the log at `path`, with QEMU's exit status when given: 0 exactly when its last end
/// record says pass and QEMU exited with 0; else 1, the failure said and explained on stderr;
/// 2 when the log cannot be read.
pub fn judge(path: &Path, qemu_status: Option<i32>) -> i32 {
    let Ok(log) = std::fs::read(path) else {
        eprintln!("mairbench: cannot read the console log {}", path.display());
        return 2;
    };
    let said = qemu_status.map_or(String::new(), |s| format!(" (QEMU exit status {s})"));
    let verdict = last_end(&log);
    match verdict {
        End::Pass if qemu_status.unwrap_or(0) == 0 => return 0,
        End::Missing => eprintln!("mairbench: the run ended without an end record{said}"),
        End::Pass | End::Fail => eprintln!("mairbench: the run failed{said}"),
    }
    eprint!("{}", explain(&log));
    1
}

/// Why a run did not pass: the lead of `cargo host report` (the exception, the panic, the
/// failed proof or check, the CPUs not started, the last record and line before silence);
/// nothing when the records say the run passed.
pub fn explain(log: &[u8]) -> String {
    let lead = why::lead(&parse(log));
    // A log whose records passed (QEMU's exit status failed the run) has none.
    match lead.trim_end() {
        "" => String::new(),
        lead => format!("{lead}\n"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_that_did_not_pass_is_explained_by_the_lead_of_the_report() {
        let log = b"@mb {\"kind\":\"start\",\"schema\":1}\n!! panic: panicked at src/main.rs:7:5:\noops\n\
            @mb {\"kind\":\"panic\",\"message\":\"oops\",\"file\":\"src/main.rs\",\"line\":7}\n\
            @mb {\"kind\":\"end\",\"status\":\"fail\",\"reason\":\"panic\"}\n";
        assert_eq!(
            explain(log),
            "why the run failed:\n  line 4: panic at src/main.rs:7: oops\n"
        );
        let silent = b"@mb {\"kind\":\"start\",\"schema\":1}\nselftest: hanging\r\n\n";
        assert_eq!(explain(b"@mb {\"kind\":\"end\",\"status\":\"pass\"}\n"), "");
        assert!(
            explain(silent).contains("last line before silence: line 2: selftest: hanging\n"),
            "{}",
            explain(silent)
        );
    }
}
