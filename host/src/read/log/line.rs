//! One console line at a time: the `@mb` record it holds, if any, and the line's text without
//! escapes.

use mairbench_core::record::PREFIX;
use serde_json::{Map, Value};

/// The record on one raw console line: `None` when the line holds no `@mb ` prefix,
/// otherwise the record's fields or why they could not be read.
pub fn record(raw: &[u8]) -> Option<Result<Map<String, Value>, String>> {
    let text = clean(&String::from_utf8_lossy(raw));
    let at = text.find(PREFIX)?;
    let json = text[at + PREFIX.len()..].trim();
    Some(match serde_json::from_str::<Value>(json) {
        Ok(Value::Object(fields)) if fields.get("kind").is_some_and(Value::is_string) => Ok(fields),
        Ok(_) => Err("a record that is not an object with a string \"kind\"".into()),
        Err(e) if e.is_eof() => Err("a record cut short".into()),
        Err(e) => Err(format!("a record that is not valid JSON ({e})")),
    })
}

/// The line without ANSI escape sequences and carriage returns.
pub(super) fn clean(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                // CSI: parameters and intermediates up to a final byte in @..~.
                Some('[') => {
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                // OSC: up to BEL or ST.
                Some(']') => {
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' || (c == '\u{1b}' && chars.next_if_eq(&'\\').is_some()) {
                            break;
                        }
                    }
                }
                _ => {}
            },
            '\r' => {}
            c => out.push(c),
        }
    }
    out
}

/// A machine record line that is not valid JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadRecord {
    /// 1-based line number in the log.
    pub line: usize,
    /// What the JSON parser said.
    pub error: String,
}

/// The `@mb` records of a console log, in order, as [`record`] reads each line (CR LF
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
            record(l.as_bytes()).map(|r| {
                r.map(Value::Object)
                    .map_err(|error| BadRecord { line: i + 1, error })
            })
        })
        .collect()
}

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

/// Did this run pass, as the runner and `qemu/judge` decide it: what the log's last end
/// record says. An end record is a record of kind `end` (or a line that starts one,
/// `@mb {"kind":"end",`, but is cut short or not valid JSON, which is no pass).
pub fn last_end(log: &[u8]) -> End {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_noise_are_removed() {
        assert_eq!(clean("\u{1b}[1;32mok\u{1b}[0m\r"), "ok");
        assert_eq!(clean("\u{1b}]0;title\u{7}x"), "x");
        let r = record(b"\xff\xfe garbage @mb {\"kind\":\"x\"}\r").unwrap();
        assert!(r.is_ok());
        assert!(record(b"no record here").is_none());
    }

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
            assert_eq!(last_end(log.as_bytes()), want, "{log:?}");
        }
    }
}
