//! Reading a console log into a [`Run`]: the `@mb` records among whatever else the console
//! printed (boot loader output, CR LF line ends, ANSI escapes, serial noise, a cut last line).

use crate::model::{CacheLevel, Measurement, Run, Skipped, Unit};
use mairbench_core::record::{PREFIX, SCHEMA};
use serde_json::{Map, Value};

/// Something in the log that was not understood, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// 1-based line number in the log.
    pub line: usize,
    /// What was wrong, in words.
    pub what: String,
}

/// A parsed log: the run plus what the parser had to skip.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Parsed {
    /// What the log reported.
    pub run: Run,
    /// Record lines that could not be used (a truncated last line is normal).
    pub problems: Vec<Problem>,
    /// Line of the `start` record (the last one when the board booted several times).
    pub start_line: Option<usize>,
    /// `schema` of the `start` record (`None` when missing or not a number).
    pub schema: Option<u64>,
    /// Line of the `end` record.
    pub end_line: Option<usize>,
    /// `reason` of the `end` record, when it gave one.
    pub reason: Option<String>,
    /// Number of lines in the log.
    pub lines: usize,
}

/// How a log must be judged once parsed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// Exit status: 1 for a failed or truncated run (data still usable), 2 for not a log
    /// this tool can read.
    pub code: i32,
    /// One sentence saying what is wrong and where.
    pub sentence: String,
}

impl Verdict {
    /// Whether the data of the log is still worth reporting.
    pub fn has_data(&self) -> bool {
        self.code == 1
    }
}

/// Parses a console log. Never fails: what cannot be used becomes a [`Problem`].
///
/// ```
/// let log = b"U-Boot\r\n\x1b[0mnoise @mb {\"kind\":\"start\",\"schema\":1}\r\n@mb {\"kind\":\"en";
/// let parsed = mairbench_host::log::parse(log);
/// assert_eq!(parsed.start_line, Some(2));
/// assert_eq!(parsed.problems[0].line, 3);
/// ```
pub fn parse(bytes: &[u8]) -> Parsed {
    let mut p = Parsed::default();
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = i + 1;
        match record(raw) {
            None => {}
            Some(Err(what)) => p.problems.push(Problem { line, what }),
            Some(Ok(fields)) => take(&mut p, line, &fields),
        }
    }
    // A final line feed ends the last line; it does not start another.
    p.lines = bytes.split(|&b| b == b'\n').count()
        - usize::from(bytes.last().is_none_or(|&b| b == b'\n'));
    p
}

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
fn clean(text: &str) -> String {
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

fn text(fields: &Map<String, Value>, key: &str) -> Option<String> {
    fields.get(key).and_then(Value::as_str).map(str::to_owned)
}

fn number(fields: &Map<String, Value>, key: &str) -> Option<f64> {
    fields.get(key).and_then(Value::as_f64)
}

/// Folds one record into the parse.
fn take(p: &mut Parsed, line: usize, f: &Map<String, Value>) {
    let problem = |what: &str| Problem {
        line,
        what: what.into(),
    };
    match f.get("kind").and_then(Value::as_str).unwrap_or_default() {
        "start" => {
            if let Some(earlier) = p.start_line {
                p.problems.push(Problem {
                    line,
                    what: format!(
                        "another start record: the run started at line {earlier} is left out"
                    ),
                });
            }
            *p = Parsed {
                run: Run {
                    platform: text(f, "platform").unwrap_or_default(),
                    emulated: f.get("emulated").and_then(Value::as_bool).unwrap_or(false),
                    midr: text(f, "midr").unwrap_or_default(),
                    version: text(f, "version").unwrap_or_default(),
                    ..Run::default()
                },
                problems: std::mem::take(&mut p.problems),
                start_line: Some(line),
                schema: f.get("schema").and_then(Value::as_u64),
                ..Parsed::default()
            };
        }
        "end" => {
            p.end_line = Some(line);
            p.run.status = Some(text(f, "status").unwrap_or_else(|| "unknown".into()));
            p.reason = text(f, "reason");
        }
        "cache" => match (f.get("level").and_then(Value::as_u64), number(f, "size")) {
            (Some(level), Some(size)) => {
                let kind = text(f, "type").unwrap_or_default();
                if kind != "instruction" {
                    p.run.caches.push(CacheLevel {
                        level: u8::try_from(level).unwrap_or(u8::MAX),
                        kind,
                        size: size as u64,
                    });
                }
            }
            _ => p
                .problems
                .push(problem("a cache record without level or size")),
        },
        "result" => match result(f) {
            Ok(Entry::Measured(m)) => p.run.measurements.push(m),
            Ok(Entry::Skipped(s)) => p.run.skipped.push(s),
            Err(what) => p.problems.push(Problem { line, what }),
        },
        _ => {}
    }
}

enum Entry {
    Measured(Measurement),
    Skipped(Skipped),
}

fn result(f: &Map<String, Value>) -> Result<Entry, String> {
    let (Some(memtype), Some(kernel)) = (text(f, "memtype"), text(f, "kernel")) else {
        return Err("a result record without memtype or kernel".into());
    };
    let size = f.get("size").and_then(Value::as_u64);
    if let Some(why) = f.get("skipped") {
        return Ok(Entry::Skipped(Skipped {
            memtype,
            kernel,
            size,
            why: why.as_str().map_or_else(|| why.to_string(), str::to_owned),
        }));
    }
    let size = size.ok_or("a result record without size")?;
    let (unit, best, median) = if f.contains_key("ns_per_load") {
        (Unit::NsPerLoad, "ns_per_load", "median_ns_per_load")
    } else if f.contains_key("ns_per_line") {
        (Unit::NsPerLine, "ns_per_line", "median_ns_per_line")
    } else {
        (Unit::MegabytesPerSecond, "best_mbps", "median_mbps")
    };
    let (Some(best_value), Some(median_value)) = (number(f, best), number(f, median)) else {
        return Err(format!(
            "a result record for {kernel} on {memtype} without {best} or {median}"
        ));
    };
    Ok(Entry::Measured(Measurement {
        memtype,
        kernel,
        size,
        unit,
        best: best_value,
        median: median_value,
        cv_pct: number(f, "cv_pct").unwrap_or(f64::NAN),
        reps: f.get("reps").and_then(Value::as_u64).unwrap_or(0),
    }))
}

/// What is wrong with a parsed log as a whole, if anything, in one sentence naming `name`
/// (the file) and the line concerned.
pub fn verdict(p: &Parsed, name: &str) -> Option<Verdict> {
    let bad = |code, sentence| Some(Verdict { code, sentence });
    let Some(start) = p.start_line else {
        return if p.lines == 0 {
            bad(2, format!("{name} is empty: not a mairbench log."))
        } else {
            bad(
                2,
                format!(
                    "{name} is not a mairbench log: none of its {} lines holds a start record.",
                    p.lines
                ),
            )
        };
    };
    match p.schema {
        Some(SCHEMA) => {}
        Some(other) => {
            return bad(
                2,
                format!("{name} line {start}: the start record has schema {other}, but this tool reads schema {SCHEMA} only."),
            )
        }
        None => {
            return bad(
                2,
                format!("{name} line {start}: the start record has no schema number, so this tool cannot read it."),
            )
        }
    }
    let Some(end) = p.end_line else {
        let cut = p.problems.last().filter(|q| q.line >= p.lines);
        return bad(
            1,
            match cut {
                Some(q) => format!(
                    "{name} line {}: the run is truncated: the log ends with {} and has no end record.",
                    q.line, q.what
                ),
                None => format!(
                    "{name} line {}: the run is truncated: the log ends without an end record (the run started at line {start}).",
                    p.lines
                ),
            },
        );
    };
    match p.run.status.as_deref() {
        Some("pass") => None,
        status => bad(
            1,
            format!(
                "{name} line {end}: the run {}{}.",
                match status {
                    Some("fail") => "failed".to_owned(),
                    other => format!("ended with status {:?}", other.unwrap_or("unknown")),
                },
                p.reason
                    .as_deref()
                    .map(|r| format!(": {r}"))
                    .unwrap_or_default()
            ),
        ),
    }
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
    fn results_of_each_unit() {
        let log = br#"@mb {"kind":"start","schema":1,"platform":"p","emulated":false}
@mb {"kind":"result","memtype":"normal-wb","kernel":"latency","size":4096,"reps":3,"cv_pct":2.0,"ns_per_load":3.26,"median_ns_per_load":3.27}
@mb {"kind":"result","memtype":"normal-wb","kernel":"maint-civac","size":4096,"reps":3,"cv_pct":1,"ns_per_line":7.5,"median_ns_per_line":8.0,"best_mbps":8533}
@mb {"kind":"result","memtype":"device-gre","kernel":"fill-zva","skipped":"DC ZVA faults"}
@mb {"kind":"end","status":"fail","reason":"integrity"}
"#;
        let p = parse(log);
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        assert_eq!(p.lines, 5);
        let m = &p.run.measurements;
        assert_eq!(
            (m[0].unit, m[0].best, m[0].median),
            (Unit::NsPerLoad, 3.26, 3.27)
        );
        assert_eq!((m[1].unit, m[1].best), (Unit::NsPerLine, 7.5));
        assert_eq!(p.run.skipped[0].size, None);
        let v = verdict(&p, "x.log").unwrap();
        assert_eq!(
            (v.code, v.sentence.as_str()),
            (1, "x.log line 5: the run failed: integrity.")
        );
    }
}
