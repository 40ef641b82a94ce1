//! Reading a console log into a [`Run`]: the `@mb` records among whatever else the console
//! printed (boot loader output, CR LF line ends, ANSI escapes, serial noise, a cut last line).
//! What the records mean (kinds, fields, units) comes from core's schema and kernel tables;
//! a kind or a field they do not know is a warning, not an error.

use crate::model::{
    self, CacheLevel, LoadedLatency, Measurement, Run, Scaling, Skipped, Unit, PAGES,
};
use mairbench_core::kernel;
use mairbench_core::pmu;
use mairbench_core::record::{PREFIX, SCHEMA};
use mairbench_core::schema::{self, Type};
use serde_json::{Map, Value};
use std::collections::BTreeSet;

/// Something in the log that was not understood, and where.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Problem {
    /// 1-based line number in the log.
    pub line: usize,
    /// What was wrong, in words.
    pub what: String,
    /// The record was read but holds a kind, field or kernel this tool does not know
    /// (written by a newer firmware?): a warning about what was left out, never a reason to
    /// judge the run truncated.
    pub unknown: bool,
}

impl Problem {
    fn new(line: usize, what: impl Into<String>) -> Problem {
        Problem {
            line,
            what: what.into(),
            unknown: false,
        }
    }

    fn unknown(line: usize, what: impl Into<String>) -> Problem {
        Problem {
            unknown: true,
            ..Problem::new(line, what)
        }
    }
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
    /// The self-test the start record's bootargs ask for (`mairbench.selftest=`, not `none`),
    /// with the start record's line: a failure asked for on purpose.
    pub selftest: Option<(usize, String)>,
    /// `reason` of the `end` record, when it gave one.
    pub reason: Option<String>,
    /// `failed_checks` of the `end` record, with `failed_checks_omitted` names beyond them.
    pub failed_checks: (Vec<String>, u64),
    /// `warned` of the `end` record, with `warned_omitted` names beyond them.
    pub warned: (Vec<String>, u64),
    /// Number of lines in the log.
    pub lines: usize,
    /// The records that say why the run failed or warned, for [`crate::failure`].
    pub evidence: Evidence,
    /// The last record: its line and kind.
    pub last_record: Option<(usize, String)>,
    /// The last line that holds more than blanks (escapes and noise removed): its number
    /// and text.
    pub last_text: Option<(usize, String)>,
}

/// One record kept whole, with its line.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Kept {
    /// 1-based line number in the log.
    pub line: usize,
    /// Its fields, `kind` included.
    pub fields: Map<String, Value>,
}

/// The records of a run that explain a failure or a warning ([`crate::failure::lead`]), in
/// log order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Evidence {
    /// `exception` records: exceptions nobody expected.
    pub exceptions: Vec<Kept>,
    /// `panic` records.
    pub panics: Vec<Kept>,
    /// `memtype` records whose proof failed (`ok` false).
    pub memtypes: Vec<Kept>,
    /// `result` records with an `integrity_fail_offset`.
    pub integrity: Vec<Kept>,
    /// `cpu` records: CPUs that did not start.
    pub cpus: Vec<Kept>,
    /// `check` records that failed (`ok` false).
    pub checks: Vec<Kept>,
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

/// Parses a console log. Never fails: what cannot be used becomes a [`Problem`], and so
/// does the first record of each kind the schema does not know and the first occurrence of
/// each field a known kind does not have.
///
/// ```
/// let log = b"U-Boot\r\n\x1b[0mnoise @mb {\"kind\":\"start\",\"schema\":1}\r\n@mb {\"kind\":\"en";
/// let parsed = mairbench_host::log::parse(log);
/// assert_eq!(parsed.start_line, Some(2));
/// assert_eq!(parsed.problems[0].line, 3);
/// ```
pub fn parse(bytes: &[u8]) -> Parsed {
    let mut p = Parsed::default();
    let mut warned = BTreeSet::new();
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let line = i + 1;
        match record(raw) {
            None => {}
            Some(Err(what)) => p.problems.push(Problem::new(line, what)),
            Some(Ok(fields)) => {
                for (key, what) in unknowns(&fields) {
                    if warned.insert(key) {
                        p.problems.push(Problem::unknown(line, what));
                    }
                }
                take(&mut p, line, &fields);
                let kind = text(&fields, "kind").unwrap_or_default();
                p.last_record = Some((line, kind));
            }
        }
        let words = clean(&String::from_utf8_lossy(raw));
        if !words.trim().is_empty() {
            p.last_text = Some((line, words.trim().to_owned()));
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

/// What of a record the schema does not know: its kind, else each field its kind does not
/// have, and each PMU event of a `result`'s `pmu` that core's `pmu::EVENTS` does not name;
/// each with a key naming it (kind, field) and a sentence.
fn unknowns(fields: &Map<String, Value>) -> Vec<((String, String), String)> {
    let name = fields
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let Some(kind) = schema::kind(name) else {
        return vec![(
            (name.to_owned(), String::new()),
            format!("unknown record kind '{name}' (written by a newer firmware?)"),
        )];
    };
    let mut out: Vec<_> = fields
        .keys()
        .filter(|k| *k != "kind" && kind.field(k).is_none())
        .map(|k| {
            (
                (name.to_owned(), k.clone()),
                format!("unknown field '{k}' in a {name} record (written by a newer firmware?)"),
            )
        })
        .collect();
    if kind.name == schema::RESULT.name {
        out.extend(unknown_events(fields).map(|e| {
            (
                (name.to_owned(), format!("pmu.{e}")),
                format!(
                    "unknown PMU event '{e}' in a result record's pmu, kept as written \
                     (written by a newer firmware?)"
                ),
            )
        }));
    }
    out
}

/// The keys of a `result`'s `pmu` object that core's event table does not name.
fn unknown_events(fields: &Map<String, Value>) -> impl Iterator<Item = &str> {
    fields
        .get("pmu")
        .and_then(Value::as_object)
        .into_iter()
        .flat_map(|o| o.keys())
        .map(String::as_str)
        .filter(|k| event_index(k).is_none())
}

/// Where core's `pmu::EVENTS` has the event named `name`.
fn event_index(name: &str) -> Option<usize> {
    pmu::EVENTS.iter().position(|e| e.name == name)
}

/// Every way a record departs from the schema (`docs/records.md`), in words; empty when it
/// conforms: a kind or a field the schema does not know, a value of the wrong type or a
/// `null` where none may be, a missing always-present field, and for `result` records the
/// shape: a skipped record carries nothing measured, a measured one its kernel's unit fields
/// (from core's kernel table) and no other unit's, and exactly one integrity field.
pub fn mismatches(fields: &Map<String, Value>) -> Vec<String> {
    let name = fields
        .get("kind")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let Some(kind) = schema::kind(name) else {
        return vec![format!("unknown kind '{name}'")];
    };
    let mut out = Vec::new();
    for (key, value) in fields.iter().filter(|(k, _)| *k != "kind") {
        match kind.field(key) {
            None => out.push(format!("{name}: unknown field '{key}'")),
            Some(f) if value.is_null() && !f.nullable => {
                out.push(format!("{name}.{key}: null, which it may not be"))
            }
            Some(f) if !value.is_null() && !has_type(f.ty, value) => out.push(format!(
                "{name}.{key}: {value} where the schema says {}",
                f.ty.name()
            )),
            Some(_) => {}
        }
    }
    for f in kind.fields.iter().filter(|f| f.always) {
        if !fields.contains_key(f.name) {
            out.push(format!(
                "{name}: no field '{}', which is always present",
                f.name
            ));
        }
    }
    if kind.name == schema::RESULT.name {
        result_shape(fields, &mut out);
    }
    out
}

fn result_shape(fields: &Map<String, Value>, out: &mut Vec<String>) {
    let has = |k: &str| fields.contains_key(k);
    for e in unknown_events(fields) {
        out.push(format!(
            "result.pmu: unknown event '{e}' (not in pmu::EVENTS)"
        ));
    }
    let kernel = fields
        .get("kernel")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if has("skipped") {
        for k in fields.keys() {
            if !["kind", "memtype", "kernel", "granule", "size", "skipped"].contains(&k.as_str()) {
                out.push(format!("result: a skipped record with '{k}'"));
            }
        }
        return;
    }
    let Some(spec) = kernel::by_name(kernel) else {
        out.push(format!("result: unknown kernel '{kernel}'"));
        return;
    };
    let unit = spec.unit;
    let measured = [
        "size",
        "passes",
        "reps",
        "best_ticks",
        "median_ticks",
        "freq_hz",
        "cv_pct",
    ];
    let own = [unit.count_field(), unit.best_field(), unit.median_field()];
    for k in measured.into_iter().chain(own) {
        if !has(k) {
            out.push(format!("result: {kernel} ({}) without '{k}'", unit.label()));
        }
    }
    // best_mbps on a per-line kernel says what the maintained lines amount to.
    let extra =
        |k: &str| unit == kernel::Unit::NsPerLine && k == kernel::Unit::Bandwidth.best_field();
    for other in kernel::UNITS.into_iter().filter(|&u| u != unit) {
        for k in [other.best_field(), other.median_field()] {
            if has(k) && !extra(k) {
                out.push(format!("result: {kernel} ({}) with '{k}'", unit.label()));
            }
        }
    }
    if has("integrity") == has("integrity_fail_offset") {
        out.push("result: not exactly one of integrity and integrity_fail_offset".into());
    }
}

/// Whether a (non-null) JSON value is of the schema type.
fn has_type(ty: Type, v: &Value) -> bool {
    match ty {
        Type::Str => v.is_string(),
        Type::U64 => v.is_u64(),
        Type::I64 => v.is_i64() || v.is_u64(),
        Type::Bool => v.is_boolean(),
        Type::Hex => v
            .as_str()
            .and_then(|s| s.strip_prefix("0x"))
            .is_some_and(|h| !h.is_empty() && h.bytes().all(|b| b.is_ascii_hexdigit())),
        Type::Decimal => v.is_number(),
        Type::Strs => v.as_array().is_some_and(|a| a.iter().all(Value::is_string)),
        Type::Numbers => v
            .as_object()
            .is_some_and(|o| o.values().all(Value::is_number)),
    }
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

/// The strings of an array field (other items skipped); empty when absent or not an array.
fn strings(fields: &Map<String, Value>, key: &str) -> Vec<String> {
    fields
        .get(key)
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect()
        })
        .unwrap_or_default()
}

fn number(fields: &Map<String, Value>, key: &str) -> Option<f64> {
    fields.get(key).and_then(Value::as_f64)
}

/// A field that is a whole number (`None` when absent, negative, fractional or not a number).
fn whole(fields: &Map<String, Value>, key: &str) -> Option<u64> {
    fields.get(key).and_then(Value::as_u64)
}

/// Folds one record into the parse: a record of another cluster's sweep into that cluster's
/// own run, the others into the run.
fn take(p: &mut Parsed, line: usize, f: &Map<String, Value>) {
    let kind = f.get("kind").and_then(Value::as_str).unwrap_or_default();
    if kind == "cluster" {
        match cluster(f) {
            Some(c) => p.run.clusters.push(c),
            None => p.problems.push(Problem::new(
                line,
                "a cluster record without cluster, cpus, representative or role",
            )),
        }
        return;
    }
    if let Some(index) = f.get("cluster") {
        let Some(c) = index
            .as_u64()
            .and_then(|i| p.run.clusters.iter_mut().find(|c| c.index == i))
        else {
            p.problems.push(Problem::new(
                line,
                format!("a {kind} record of cluster {index}, which no cluster record names"),
            ));
            return;
        };
        let mut own = Parsed {
            run: std::mem::take(&mut *c.sweep),
            ..Parsed::default()
        };
        take_run(&mut own, line, f);
        *c.sweep = own.run;
        p.problems.extend(own.problems);
        p.evidence.integrity.extend(own.evidence.integrity);
        return;
    }
    take_run(p, line, f);
}

/// A `cluster` record.
fn cluster(f: &Map<String, Value>) -> Option<model::Cluster> {
    Some(model::Cluster {
        index: whole(f, "cluster")?,
        cpus: whole(f, "cpus")?,
        representative: text(f, "representative")?,
        compatible: text(f, "compatible"),
        capacity: whole(f, "capacity"),
        midr: text(f, "midr"),
        last_cache: whole(f, "last_cache"),
        role: text(f, "role")?,
        sweep: Box::default(),
    })
}

/// Folds one record of the run (or of one cluster's sweep) into `p`.
fn take_run(p: &mut Parsed, line: usize, f: &Map<String, Value>) {
    let problem = |what: &str| Problem::new(line, what);
    match f.get("kind").and_then(Value::as_str).unwrap_or_default() {
        "start" => {
            if let Some(earlier) = p.start_line {
                p.problems.push(Problem::new(
                    line,
                    format!("another start record: the run started at line {earlier} is left out"),
                ));
            }
            *p = Parsed {
                run: Run {
                    platform: text(f, "platform").unwrap_or_default(),
                    emulated: f.get("emulated").and_then(Value::as_bool).unwrap_or(false),
                    emulated_by: strings(f, "emulated_by"),
                    accel: text(f, "accel"),
                    midr: text(f, "midr").unwrap_or_default(),
                    version: text(f, "version").unwrap_or_default(),
                    twin: f.contains_key("kernel"),
                    kernel: text(f, "kernel").unwrap_or_default(),
                    machine: text(f, "machine").unwrap_or_default(),
                    timer_hz: whole(f, "cntfrq_hz"),
                    ..Run::default()
                },
                problems: std::mem::take(&mut p.problems),
                start_line: Some(line),
                schema: whole(f, "schema"),
                selftest: text(f, "bootargs")
                    .as_deref()
                    .and_then(selftest_of)
                    .map(|t| (line, t)),
                ..Parsed::default()
            };
        }
        "end" => {
            p.end_line = Some(line);
            p.run.status = Some(text(f, "status").unwrap_or_else(|| "unknown".into()));
            p.reason = text(f, "reason");
            let names = |key: &str, omitted: &str| {
                let omitted = whole(f, omitted).unwrap_or(0);
                (strings(f, key), omitted)
            };
            p.failed_checks = names("failed_checks", "failed_checks_omitted");
            p.warned = names("warned", "warned_omitted");
        }
        "cache" => match (whole(f, "level"), number(f, "size")) {
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
            Ok(entry) => {
                if !f.contains_key("memtype") {
                    p.run.twin = true;
                }
                match entry {
                    Entry::Measured(m) => p.run.measurements.push(m),
                    Entry::Skipped(s) => p.run.skipped.push(s),
                }
            }
            Err(Unread::Bad(what)) => p.problems.push(Problem::new(line, what)),
            Err(Unread::Unknown(what)) => p.problems.push(Problem::unknown(line, what)),
        },
        "verdict" => match verdict_record(f) {
            Some(v) => {
                p.run.verdicts.retain(|old| old.name != v.name);
                p.run.verdicts.push(v);
            }
            None => p
                .problems
                .push(problem("a verdict record without name, status or why")),
        },
        "scaling" => match scaling(f) {
            Some(s) => p.run.scaling.push(s),
            None => p.problems.push(problem(
                "a scaling record without memtype, kernel, cores or a bandwidth",
            )),
        },
        "loaded_latency" => match loaded_latency(f) {
            Some(l) => p.run.loaded_latency.push(l),
            None => p.problems.push(problem(
                "a loaded_latency record without one of its fields (docs/records.md)",
            )),
        },
        "source" => match text(f, "source") {
            Some(name) => {
                p.run.twin = true;
                p.run.sources.push(model::Source {
                    name,
                    size: whole(f, "size"),
                    error: text(f, "error"),
                    errno: whole(f, "errno"),
                    detail: text(f, "detail").unwrap_or_default(),
                    expected: text(f, "expected"),
                    driver: text(f, "driver"),
                });
            }
            None => p.problems.push(problem("a source record without source")),
        },
        "timer" => {
            if let Some(hz) = whole(f, "freq_hz").filter(|&hz| hz > 0) {
                p.run.timer_hz = Some(hz);
            }
        }
        _ => {}
    }
    let kept = || Kept {
        line,
        fields: f.clone(),
    };
    let failed = f.get("ok") == Some(&Value::Bool(false));
    let e = &mut p.evidence;
    match f.get("kind").and_then(Value::as_str).unwrap_or_default() {
        "exception" => e.exceptions.push(kept()),
        "panic" => e.panics.push(kept()),
        "cpu" => e.cpus.push(kept()),
        "memtype" if failed => e.memtypes.push(kept()),
        "check" if failed => e.checks.push(kept()),
        "result" if f.contains_key("integrity_fail_offset") => e.integrity.push(kept()),
        _ => {}
    }
}

enum Entry {
    Measured(Measurement),
    Skipped(Skipped),
}

/// Why a result record was not used.
enum Unread {
    /// It lacks what it must have.
    Bad(String),
    /// It names a kernel this tool does not know.
    Unknown(String),
}

fn result(f: &Map<String, Value>) -> Result<Entry, Unread> {
    // mairbench-linux's records name their source where the firmware's name a memory type;
    // the source takes the memory type's place in the model.
    let memtype = text(f, "memtype").or_else(|| text(f, "source"));
    let (Some(memtype), Some(kernel)) = (memtype, text(f, "kernel")) else {
        return Err(Unread::Bad(
            "a result record without memtype (or source) or kernel".into(),
        ));
    };
    let size = whole(f, "size");
    let granule = text(f, "granule").unwrap_or_else(|| PAGES.into());
    if let Some(why) = f.get("skipped") {
        return Ok(Entry::Skipped(Skipped {
            memtype,
            kernel,
            granule,
            size,
            why: why.as_str().map_or_else(|| why.to_string(), str::to_owned),
        }));
    }
    let size = size.ok_or_else(|| Unread::Bad("a result record without size".into()))?;
    // The kernel's unit, from core's kernel table, says which fields hold the values.
    let Some(spec) = kernel::by_name(&kernel) else {
        return Err(Unread::Unknown(format!(
            "a result record for unknown kernel '{kernel}' left out (written by a newer firmware?)"
        )));
    };
    let (best, median) = (spec.unit.best_field(), spec.unit.median_field());
    let (Some(best_value), Some(median_value)) = (number(f, best), number(f, median)) else {
        return Err(Unread::Bad(format!(
            "a result record for {kernel} on {memtype} without {best} or {median}"
        )));
    };
    Ok(Entry::Measured(Measurement {
        memtype,
        kernel,
        granule,
        size,
        unit: Unit::from(spec.unit),
        best: best_value,
        median: median_value,
        cv_pct: number(f, "cv_pct").unwrap_or(f64::NAN),
        reps: whole(f, "reps").unwrap_or(0),
        pmu: pmu_counts(f),
        start: text(f, "start"),
        line_state: text(f, "line_state"),
    }))
}

/// A `result`'s `pmu` object: (event, count per 64-byte line) in core's `pmu::EVENTS` order,
/// events it does not know after them in the record's order, values that are not numbers
/// left out; `None` for `null`, absent or not an object.
fn pmu_counts(f: &Map<String, Value>) -> Option<Vec<(String, f64)>> {
    let mut counts: Vec<(String, f64)> = f
        .get("pmu")?
        .as_object()?
        .iter()
        .filter_map(|(k, v)| Some((k.clone(), v.as_f64()?)))
        .collect();
    counts.sort_by_key(|(k, _)| event_index(k).unwrap_or(pmu::EVENTS.len()));
    Some(counts)
}

/// A `loaded_latency` record's point; `None` when one of its fields is missing (the
/// firmware writes them all).
fn loaded_latency(f: &Map<String, Value>) -> Option<LoadedLatency> {
    Some(LoadedLatency {
        memtype: text(f, "memtype")?,
        kernel: text(f, "kernel")?,
        cores: whole(f, "cores")?,
        bytes_per_core: whole(f, "bytes_per_core")?,
        chase_memtype: text(f, "chase_memtype")?,
        chase_granule: text(f, "chase_granule")?,
        chase_bytes: whole(f, "chase_bytes")?,
        loads: whole(f, "loads")?,
        idle_ns: number(f, "idle_ns")?,
        loaded_ns: number(f, "loaded_ns")?,
        ratio: number(f, "ratio")?,
        stream_mbps: whole(f, "stream_mbps")?,
        reps: whole(f, "reps")?,
    })
}

/// A `scaling` record's point; `None` when a field it always has is missing.
fn scaling(f: &Map<String, Value>) -> Option<Scaling> {
    Some(Scaling {
        memtype: text(f, "memtype")?,
        kernel: text(f, "kernel")?,
        cores: whole(f, "cores")?,
        aggregate_mbps: whole(f, "aggregate_mbps")?,
        per_core_min_mbps: whole(f, "per_core_min_mbps")?,
        per_core_max_mbps: whole(f, "per_core_max_mbps")?,
        span_ticks: whole(f, "span_ticks"),
        start_skew_ticks: whole(f, "start_skew_ticks"),
    })
}

/// A `verdict` record; `None` when its name, status or why is missing. Evidence that is not
/// a number is left out.
fn verdict_record(f: &Map<String, Value>) -> Option<model::Verdict> {
    let evidence = f
        .get("evidence")
        .and_then(Value::as_object)
        .map(|o| {
            o.iter()
                .filter_map(|(k, v)| Some((k.clone(), v.as_f64()?)))
                .collect()
        })
        .unwrap_or_default();
    Some(model::Verdict {
        name: text(f, "name")?,
        status: text(f, "status")?,
        evidence,
        why: text(f, "why")?,
        core_note: text(f, "core_note"),
    })
}

/// The self-test `bootargs` ask for (the last `mairbench.selftest=` wins, as in the
/// firmware), unless it is `none`.
fn selftest_of(bootargs: &str) -> Option<String> {
    let asked = mairbench_core::bootargs::tokens(bootargs)
        .filter_map(|t| t.strip_prefix("mairbench.selftest="))
        .last()?;
    (asked != "none").then(|| asked.trim_matches('"').to_owned())
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
        let cut = p
            .problems
            .iter()
            .rev()
            .find(|q| !q.unknown)
            .filter(|q| q.line >= p.lines);
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
                "{name} line {end}, the end record: the run {}{}.",
                match status {
                    Some("fail") => "failed".to_owned(),
                    other => format!("ended with status {:?}", other.unwrap_or("unknown")),
                },
                what_failed(p)
            ),
        ),
    }
}

/// `": reason; failed checks: a, b; warnings: c"`, as far as the end record says, or `""`.
fn what_failed(p: &Parsed) -> String {
    let list = |label: &str, (names, omitted): &(Vec<String>, u64)| {
        let mut all = names.join(", ");
        if *omitted > 0 {
            all.push_str(&format!(" and {omitted} more"));
        }
        (!all.is_empty()).then(|| format!("{label}: {all}"))
    };
    let parts: Vec<String> = p
        .reason
        .clone()
        .into_iter()
        .chain(list("failed checks", &p.failed_checks))
        .chain(list("warnings", &p.warned))
        .collect();
    if parts.is_empty() {
        String::new()
    } else {
        format!(": {}", parts.join("; "))
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
    fn unknown_kinds_and_fields_are_warnings_once_each() {
        let log = br#"@mb {"kind":"start","schema":1,"platform":"p","emulated":false}
@mb {"kind":"thermal","celsius":40}
@mb {"kind":"thermal","celsius":41}
@mb {"kind":"cache","level":1,"type":"data","size":32768,"line":64,"ways":4,"sets":128,"policy":"wb"}
@mb {"kind":"cache","level":2,"type":"unified","size":1048576,"line":64,"ways":8,"sets":2048,"policy":"wb"}
@mb {"kind":"result","memtype":"normal-wb","kernel":"read-ldp-nt","size":4096,"reps":3,"cv_pct":1.0,"best_mbps":1,"median_mbps":1}
@mb {"kind":"end","status":"pass","checks":0,"failed":0,"warnings":0,"reason":null,"run_us":1}
"#;
        let p = parse(log);
        let seen: Vec<_> = p
            .problems
            .iter()
            .map(|q| (q.line, q.what.as_str(), q.unknown))
            .collect();
        assert_eq!(
            seen,
            [
                (
                    2,
                    "unknown record kind 'thermal' (written by a newer firmware?)",
                    true
                ),
                (
                    4,
                    "unknown field 'policy' in a cache record (written by a newer firmware?)",
                    true
                ),
                (
                    6,
                    "a result record for unknown kernel 'read-ldp-nt' left out (written by a newer firmware?)",
                    true
                ),
            ]
        );
        // The rest is read, and the run passes.
        assert_eq!(p.run.caches.len(), 2);
        assert_eq!(verdict(&p, "x.log"), None);
        // A warning on the last line does not make the log look cut short.
        let log = b"@mb {\"kind\":\"start\",\"schema\":1}\n@mb {\"kind\":\"thermal\"}\n";
        let v = verdict(&parse(log), "x.log").unwrap();
        assert_eq!(
            v.sentence,
            "x.log line 2: the run is truncated: the log ends without an end record (the run started at line 1)."
        );
    }

    #[test]
    fn schema_mismatches_in_words() {
        let fields = |json: &str| match serde_json::from_str(json).unwrap() {
            Value::Object(m) => m,
            _ => unreachable!(),
        };
        let m = |json: &str| mismatches(&fields(json));
        assert_eq!(m(r#"{"kind":"x"}"#), ["unknown kind 'x'"]);
        assert_eq!(
            m(r#"{"kind":"panic","message":"m","file":"f","line":-1,"extra":1}"#),
            [
                "panic: unknown field 'extra'",
                "panic.line: -1 where the schema says unsigned integer"
            ]
        );
        assert_eq!(
            m(r#"{"kind":"cpu","mpidr":"ff","started":false}"#),
            [
                "cpu.mpidr: \"ff\" where the schema says hex string",
                "cpu: no field 'why', which is always present"
            ]
        );
        assert!(m(r#"{"kind":"end","status":"pass","checks":0,"failed":0,"warnings":0,"reason":null,"run_us":1}"#).is_empty());
        assert_eq!(
            m(r#"{"kind":"check","name":null,"ok":true,"detail":""}"#),
            ["check.name: null, which it may not be"]
        );
        assert!(
            m(r#"{"kind":"result","memtype":"a","kernel":"latency","skipped":"why"}"#).is_empty()
        );
        assert_eq!(
            m(r#"{"kind":"result","memtype":"a","kernel":"latency","skipped":"why","reps":1}"#),
            ["result: a skipped record with 'reps'"]
        );
        let measured = r#"{"kind":"result","memtype":"a","kernel":"latency","size":1,"passes":1,"reps":1,"best_ticks":1,"median_ticks":1,"freq_hz":1,"cv_pct":0.0,"loads":1,"ns_per_load":1.00,"median_ns_per_load":1.00,"integrity":"ok"}"#;
        assert!(m(measured).is_empty(), "{:?}", m(measured));
        let mut f = fields(measured);
        f.remove("median_ns_per_load");
        f.insert("best_mbps".into(), 5.into());
        f.insert("integrity_fail_offset".into(), "0x40".into());
        assert_eq!(
            mismatches(&f),
            [
                "result: latency (ns/load) without 'median_ns_per_load'",
                "result: latency (ns/load) with 'best_mbps'",
                "result: not exactly one of integrity and integrity_fail_offset"
            ]
        );
    }

    #[test]
    fn golden_logs_conform_to_the_schema() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
        for name in [
            "qemu-quick.log",
            "qemu-kernels.log",
            "qemu-smp.log",
            "handmade-board.log",
            "handmade-verdicts-a.log",
            "handmade-verdicts-b.log",
            "handmade-pmu.log",
            "truncated.log",
            "qemu10-firmware-4k-64k.log",
            "qemu10-linux-4k-64k.log",
        ] {
            let bytes = std::fs::read(dir.join(name)).unwrap();
            for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
                if let Some(Ok(fields)) = record(raw) {
                    let wrong = mismatches(&fields);
                    assert!(wrong.is_empty(), "{name} line {}: {wrong:?}", i + 1);
                }
            }
            let p = parse(&bytes);
            assert!(
                p.problems.iter().all(|q| !q.unknown),
                "{name}: {:?}",
                p.problems
            );
        }
    }

    #[test]
    fn twin_start_and_source_records() {
        let log = br#"@mb {"kind":"start","schema":1,"platform":"linux,dummy-virt","emulated":true,"midr":"0x410fd083","kernel":"Linux 6.12.95+deb12-arm64","machine":"aarch64"}
@mb {"kind":"source","source":"anon","size":65536,"detail":"mmap MAP_PRIVATE|MAP_ANONYMOUS"}
@mb {"kind":"result","source":"anon","kernel":"read-ldp","size":4096,"reps":3,"cv_pct":0.3,"best_mbps":12878,"median_mbps":12829}
@mb {"kind":"source","source":"dma-heap:*","error":"ENOENT","errno":2,"detail":"open"}
@mb {"kind":"source","size":1}
"#;
        let p = parse(log);
        let r = &p.run;
        assert!(r.twin);
        assert_eq!(
            (r.kernel.as_str(), r.machine.as_str(), r.rows()),
            ("Linux 6.12.95+deb12-arm64", "aarch64", model::SOURCE_ROWS)
        );
        assert_eq!((r.rows().baseline, r.rows().label), ("anon", "source"));
        assert_eq!(r.measurements[0].memtype, "anon");
        assert_eq!(
            r.sources,
            [
                model::Source {
                    name: "anon".into(),
                    size: Some(65536),
                    error: None,
                    errno: None,
                    detail: "mmap MAP_PRIVATE|MAP_ANONYMOUS".into(),
                    ..Default::default()
                },
                model::Source {
                    name: "dma-heap:*".into(),
                    size: None,
                    error: Some("ENOENT".into()),
                    errno: Some(2),
                    detail: "open".into(),
                    ..Default::default()
                }
            ]
        );
        let seen: Vec<_> = p
            .problems
            .iter()
            .map(|q| (q.line, q.what.as_str()))
            .collect();
        assert_eq!(seen, [(5, "a source record without source")]);
        // A start record without kernel, results with memtype: the firmware's.
        let fw = parse(br#"@mb {"kind":"start","schema":1}
@mb {"kind":"result","memtype":"normal-wb","kernel":"read-ldp","size":4096,"reps":3,"cv_pct":0.3,"best_mbps":1,"median_mbps":1}
"#);
        assert!(!fw.run.twin);
        assert_eq!(
            (fw.run.rows().baseline, fw.run.rows().label),
            ("normal-wb", "memory type")
        );
        // Results naming a source make a twin log even without a start record's kernel.
        let twin = parse(br#"@mb {"kind":"start","schema":1}
@mb {"kind":"result","source":"anon","kernel":"read-ldp","size":4096,"reps":3,"cv_pct":0.3,"best_mbps":1,"median_mbps":1}
"#);
        assert!(twin.run.twin);
    }

    #[test]
    fn verdict_records() {
        let log = br#"@mb {"kind":"start","schema":1,"platform":"p","emulated":false}
@mb {"kind":"verdict","name":"clock","status":"warn","evidence":{"core_mhz":24.00,"ticks":5},"why":"slow"}
@mb {"kind":"verdict","name":"uncached","status":"pass","evidence":{},"why":"flat"}
@mb {"kind":"verdict","name":"clock","status":"pass","evidence":{"core_mhz":1800.00,"bad":"x"},"why":"fine"}
@mb {"kind":"verdict","name":"maintenance","status":"pass"}
"#;
        let p = parse(log);
        let seen: Vec<_> = p
            .run
            .verdicts
            .iter()
            .map(|v| (v.name.as_str(), v.status.as_str(), v.why.as_str()))
            .collect();
        // A repeated name keeps the last; one without why is a problem, not a verdict.
        assert_eq!(
            seen,
            [("uncached", "pass", "flat"), ("clock", "pass", "fine")]
        );
        assert_eq!(
            p.run.verdicts[1].evidence,
            [("core_mhz".to_owned(), 1800.0)]
        );
        let problems: Vec<_> = p
            .problems
            .iter()
            .map(|q| (q.line, q.what.as_str()))
            .collect();
        assert_eq!(
            problems,
            [(5, "a verdict record without name, status or why")]
        );
        // The schema: evidence is an object of numbers, every field always present.
        let fields = |json: &str| match serde_json::from_str(json).unwrap() {
            Value::Object(m) => m,
            _ => unreachable!(),
        };
        assert!(mismatches(&fields(
            r#"{"kind":"verdict","name":"clock","status":"n/a","evidence":{},"why":"w"}"#
        ))
        .is_empty());
        assert_eq!(
            mismatches(&fields(
                r#"{"kind":"verdict","name":"clock","status":"n/a","evidence":{"a":"1"}}"#
            )),
            [
                "verdict.evidence: {\"a\":\"1\"} where the schema says object of numbers",
                "verdict: no field 'why', which is always present"
            ]
        );
    }

    #[test]
    fn scaling_records() {
        let log = br#"@mb {"kind":"start","schema":1,"platform":"p","emulated":false}
@mb {"kind":"scaling","memtype":"normal-wb","kernel":"read-ldp","cores":2,"bytes_per_core":262144,"aggregate_mbps":9000,"per_core_min_mbps":4400,"per_core_max_mbps":4600}
@mb {"kind":"scaling","memtype":"normal-wb","kernel":"write-stp","cores":1}
@mb {"kind":"scaling","memtype":"normal-nc","kernel":"read-ldp","cores":2,"bytes_per_core":262144,"aggregate_mbps":8000,"per_core_min_mbps":4400,"per_core_max_mbps":4600,"span_ticks":4096,"start_skew_ticks":96}
"#;
        let p = parse(log);
        assert_eq!(
            p.run.scaling,
            [
                Scaling {
                    memtype: "normal-wb".into(),
                    kernel: "read-ldp".into(),
                    cores: 2,
                    aggregate_mbps: 9000,
                    per_core_min_mbps: 4400,
                    per_core_max_mbps: 4600,
                    span_ticks: None,
                    start_skew_ticks: None,
                },
                Scaling {
                    memtype: "normal-nc".into(),
                    kernel: "read-ldp".into(),
                    cores: 2,
                    aggregate_mbps: 8000,
                    per_core_min_mbps: 4400,
                    per_core_max_mbps: 4600,
                    span_ticks: Some(4096),
                    start_skew_ticks: Some(96),
                }
            ]
        );
        let seen: Vec<_> = p.problems.iter().map(|q| (q.line, q.unknown)).collect();
        assert_eq!(seen, [(3, false)], "{:?}", p.problems);
    }

    #[test]
    fn loaded_latency_records_and_the_timer() {
        let log = br#"@mb {"kind":"start","schema":1,"platform":"p","emulated":false,"cntfrq_hz":24000000}
@mb {"kind":"timer","freq_hz":54000000,"overhead_ticks":2,"pmu_cycles":true,"sample_bytes":262144,"reps":3}
@mb {"kind":"loaded_latency","memtype":"device-ngnre","kernel":"read-ldp","cores":4,"bytes_per_core":262144,"chase_memtype":"normal-wb","chase_granule":"2M","chase_bytes":8388608,"loads":131072,"idle_ns":110.50,"loaded_ns":160.25,"ratio":1.450,"stream_mbps":900,"reps":3}
@mb {"kind":"loaded_latency","memtype":"normal-wb","kernel":"read-ldp","cores":4,"idle_ns":110.50}
"#;
        let p = parse(log);
        // The timer record's frequency wins over the start record's CNTFRQ.
        assert_eq!(p.run.timer_hz, Some(54_000_000));
        assert_eq!(
            p.run.loaded_latency,
            [LoadedLatency {
                memtype: "device-ngnre".into(),
                kernel: "read-ldp".into(),
                cores: 4,
                bytes_per_core: 262144,
                chase_memtype: "normal-wb".into(),
                chase_granule: "2M".into(),
                chase_bytes: 8 << 20,
                loads: 131072,
                idle_ns: 110.5,
                loaded_ns: 160.25,
                ratio: 1.45,
                stream_mbps: 900,
                reps: 3,
            }]
        );
        let seen: Vec<_> = p
            .problems
            .iter()
            .map(|q| (q.line, q.what.as_str(), q.unknown))
            .collect();
        assert_eq!(
            seen,
            [(
                4,
                "a loaded_latency record without one of its fields (docs/records.md)",
                false
            )]
        );
        // Without a timer record, the start record's CNTFRQ.
        let p = parse(br#"@mb {"kind":"start","schema":1,"cntfrq_hz":24000000}"#);
        assert_eq!(p.run.timer_hz, Some(24_000_000));
        assert_eq!(
            parse(b"@mb {\"kind\":\"start\",\"schema\":1}").run.timer_hz,
            None
        );
    }

    #[test]
    fn pmu_start_and_line_state_of_results() {
        let log = br#"@mb {"kind":"start","schema":1,"platform":"p","emulated":false}
@mb {"kind":"result","memtype":"normal-wb","kernel":"read-ldp","size":4096,"reps":3,"cv_pct":1.0,"best_mbps":100,"median_mbps":90,"pmu":{"l2d_cache":0.50,"bus_access":0.25,"l1d_cache_refill":1.00},"start":"invalidated"}
@mb {"kind":"result","memtype":"normal-nc","kernel":"maint-civac","size":4096,"reps":3,"cv_pct":1.0,"ns_per_line":7.5,"median_ns_per_line":8.0,"best_mbps":8533,"pmu":null,"start":"invalidated","line_state":"no-line"}
@mb {"kind":"result","memtype":"normal-wb","kernel":"read-ldp","size":8192,"reps":3,"cv_pct":1.0,"best_mbps":100,"median_mbps":90,"pmu":{"l3d_cache":2.00,"l1d_cache":4.00}}
@mb {"kind":"result","memtype":"normal-wb","kernel":"read-ldp","size":16384,"reps":3,"cv_pct":1.0,"best_mbps":100,"median_mbps":90,"pmu":{"l3d_cache":3.00}}
@mb {"kind":"result","memtype":"normal-wb","kernel":"read-ldp","size":32768,"reps":3,"cv_pct":1.0,"best_mbps":100,"median_mbps":90}
"#;
        let p = parse(log);
        let m = &p.run.measurements;
        let pmu = |i: usize| m[i].pmu.clone();
        let counts = |c: &[(&str, f64)]| Some(c.iter().map(|&(k, v)| (k.to_owned(), v)).collect());
        // In core's event order, whatever the record's.
        assert_eq!(
            pmu(0),
            counts(&[
                ("l1d_cache_refill", 1.0),
                ("bus_access", 0.25),
                ("l2d_cache", 0.5)
            ])
        );
        assert_eq!(m[0].start.as_deref(), Some("invalidated"));
        assert_eq!(m[0].line_state, None);
        assert_eq!(pmu(1), None, "null: nothing counted");
        assert_eq!(m[1].line_state.as_deref(), Some("no-line"));
        // An event core does not name is kept after the known ones, and warned about once.
        assert_eq!(pmu(2), counts(&[("l1d_cache", 4.0), ("l3d_cache", 2.0)]));
        assert_eq!((pmu(4), m[4].start.clone()), (None, None), "an older log");
        let seen: Vec<_> = p
            .problems
            .iter()
            .map(|q| (q.line, q.what.as_str(), q.unknown))
            .collect();
        assert_eq!(
            seen,
            [(
                4,
                "unknown PMU event 'l3d_cache' in a result record's pmu, kept as written \
                 (written by a newer firmware?)",
                true
            )]
        );
        // The schema check names it too; known events and null conform.
        let fields = |raw: &[u8]| record(raw).unwrap().unwrap();
        let lines: Vec<&[u8]> = log.split(|&b| b == b'\n').collect();
        let unknown = "result.pmu: unknown event 'l3d_cache' (not in pmu::EVENTS)".to_owned();
        assert!(mismatches(&fields(lines[3])).contains(&unknown));
        for known in [lines[1], lines[2]] {
            assert!(
                mismatches(&fields(known))
                    .iter()
                    .all(|w| !w.contains("pmu")),
                "{:?}",
                mismatches(&fields(known))
            );
        }
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
            (
                1,
                "x.log line 5, the end record: the run failed: integrity."
            )
        );
    }

    #[test]
    fn a_failed_run_names_its_failed_checks_and_warnings() {
        let log = br#"@mb {"kind":"start","schema":1,"platform":"p","emulated":false}
@mb {"kind":"end","status":"fail","checks":9,"failed":3,"warnings":2,"reason":null,"run_us":1,"failed_checks":["memtype","reserved"],"failed_checks_omitted":1,"warned":["bootargs"]}
"#;
        let p = parse(log);
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        let v = verdict(&p, "x.log").unwrap();
        assert_eq!(
            v.sentence,
            "x.log line 2, the end record: the run failed: failed checks: memtype, reserved and 1 more; \
             warnings: bootargs."
        );
        let bare = br#"@mb {"kind":"start","schema":1,"platform":"p","emulated":false}
@mb {"kind":"end","status":"fail","reason":"panic"}
"#;
        let v = verdict(&parse(bare), "x.log").unwrap();
        assert_eq!(
            v.sentence,
            "x.log line 2, the end record: the run failed: panic."
        );
    }
}
