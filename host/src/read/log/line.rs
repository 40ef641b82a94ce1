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
}
