//! Did this run pass: the one judge of a console log, QEMU's or a real board's serial
//! port's, for the runner and `qemu/judge LOG [QEMU_EXIT_STATUS]` alike. It reads the log with
//! the host tool's record reader ([`mairbench_host::read::log::record`]) and explains a run
//! that did not pass with the lead of `cargo host report` ([`why::lead`]).

use mairbench_core::record::PREFIX;
use mairbench_host::analyse::why;
use mairbench_host::read::log::{parse, record};
use std::path::Path;

/// What the last end record of a log says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// Its top-level member `status` is the string `pass`.
    Pass,
    /// It says anything else, or is cut short or not valid JSON.
    Fail,
    /// The log holds no end record.
    Missing,
}

/// The verdict of a log's last end record: a record of kind `end` (or a line that starts one,
/// `@mb {"kind":"end",`, but is cut short or not valid JSON, which is no pass).
pub fn end(log: &[u8]) -> End {
    let mut last = End::Missing;
    for line in log.split(|&b| b == b'\n') {
        match record(line) {
            Some(Ok(fields)) if fields.get("kind").and_then(|k| k.as_str()) == Some("end") => {
                let pass = fields.get("status").and_then(|s| s.as_str()) == Some("pass");
                last = if pass { End::Pass } else { End::Fail };
            }
            Some(Err(_)) => {
                let text = String::from_utf8_lossy(line);
                let starts_end = text
                    .find(PREFIX)
                    .is_some_and(|at| text[at + PREFIX.len()..].starts_with("{\"kind\":\"end\","));
                if starts_end {
                    last = End::Fail;
                }
            }
            _ => {}
        }
    }
    last
}

/// Judges the log at `path`, with QEMU's exit status when given: 0 exactly when its last end
/// record says pass and QEMU exited with 0; else 1, the failure said and explained on stderr;
/// 2 when the log cannot be read.
pub fn judge(path: &Path, qemu_status: Option<i32>) -> i32 {
    let Ok(log) = std::fs::read(path) else {
        eprintln!("mairbench: cannot read the console log {}", path.display());
        return 2;
    };
    let said = qemu_status.map_or(String::new(), |s| format!(" (QEMU exit status {s})"));
    let verdict = end(&log);
    match verdict {
        End::Pass if qemu_status.unwrap_or(0) == 0 => return 0,
        End::Missing => eprintln!("mairbench: the run ended without an end record{said}"),
        End::Pass | End::Fail => eprintln!("mairbench: the run failed{said}"),
    }
    eprint!("{}", explain(&log));
    1
}

/// Why a run did not pass: the lead of `cargo host report` (the exception, the panic, the
/// failed proof or check, the CPUs not started, the last record and line before silence).
pub fn explain(log: &[u8]) -> String {
    let lead = why::lead(&parse(log));
    format!("{}\n", lead.trim_end())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_pass_anywhere_among_the_top_level_members() {
        for (log, want) in [
            ("@mb {\"kind\":\"end\",\"status\":\"pass\",\"checks\":1}\n", End::Pass),
            ("@mb {\"kind\":\"end\", \"checks\": 1, \"status\" : \"pass\" }\r\n", End::Pass),
            ("U-Boot 2023\r\n@mb {\"kind\":\"end\",\"run_us\":5,\"status\":\"pass\",\"reason\":null}\r\n", End::Pass),
            ("@mb {\"kind\":\"end\",\"status\":\"fail\"}\n@mb {\"kind\":\"end\",\"status\":\"pass\"}\n", End::Pass),
            ("@mb {\"kind\":\"end\",\"status\":\"pass\"}\n@mb {\"kind\":\"end\",\"status\":\"fail\"}\n", End::Fail),
            ("@mb {\"kind\":\"end\",\"x\":{\"status\":\"pass\"},\"status\":\"fail\"}\n", End::Fail),
            ("@mb {\"kind\":\"end\",\"reason\":\"\\\"status\\\":\\\"pass\\\"\",\"status\":\"fail\"}\n", End::Fail),
            ("@mb {\"kind\":\"end\",\"pass\":\"status\"}\n", End::Fail),
            ("@mb {\"kind\":\"end\",\"status\":[\"pass\"]}\n", End::Fail),
            // A cut record after a passing one: the last end record did not pass.
            ("@mb {\"kind\":\"end\",\"status\":\"pass\"}\n@mb {\"kind\":\"end\",\"status\":\"pass\"\n", End::Fail),
            ("@mb {\"kind\":\"start\",\"status\":\"pass\"}\n", End::Missing),
            ("mairbench: status pass\n", End::Missing),
        ] {
            assert_eq!(end(log.as_bytes()), want, "{log:?}");
        }
    }

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
        assert!(
            explain(silent).contains("last line before silence: line 2: selftest: hanging\n"),
            "{}",
            explain(silent)
        );
    }
}
