//! Host side of mairbench: the companion tool `cargo host` (run in QEMU, capture from a
//! board, report, compare) and what the QEMU integration tests use to read the console.

pub mod capture;
pub mod chart;
pub mod classify;
pub mod compare;
pub mod console;
pub mod failure;
pub mod fleet;
pub mod log;
pub mod model;
pub mod rejudge;
pub mod report;
pub mod ymodem;

use serde_json::Value;

/// A machine record line that is not valid JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRecord {
    /// 1-based line number in the log.
    pub line: usize,
    /// What the JSON parser said.
    pub error: String,
}

/// The `@mb` records of a console log, in order, as [`log::record`] reads each line (CR LF
/// line ends, ANSI escapes and anything before the prefix, such as boot loader output, are
/// allowed); a record line that is not a JSON object with a string `kind` is an error naming
/// its line.
///
/// ```
/// let log = "U-Boot 2023.01\r\n@mb {\"kind\":\"start\",\"schema\":1}\r\n";
/// let records = mairbench_host::records(log).unwrap();
/// assert_eq!(records[0]["schema"], 1);
/// ```
pub fn records(log: &str) -> Result<Vec<Value>, BadRecord> {
    log.lines()
        .enumerate()
        .filter_map(|(i, l)| {
            log::record(l.as_bytes()).map(|r| {
                r.map(Value::Object)
                    .map_err(|error| BadRecord { line: i + 1, error })
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_among_other_output_with_crlf() {
        let log = "U-Boot 2023.01\r\n@mb {\"kind\":\"start\",\"schema\":1}\r\nhello\r\n\
                   @mb {\"kind\":\"end\",\"status\":\"pass\"}\n";
        let r = records(log).unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0]["kind"], "start");
        assert_eq!(r[1]["status"], "pass");
    }

    #[test]
    fn broken_record_names_its_line() {
        let e = records("a\n@mb {\"kind\":\"start\"\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = records("@mb [1,2]\n").unwrap_err();
        assert_eq!(e.line, 1);
        assert!(e.error.contains("kind"));
    }
}
