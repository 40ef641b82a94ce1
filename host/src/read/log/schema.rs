//! A record against core's schema (`docs/records.md`): what of it the schema does not know,
//! and every way it departs from the schema.

use mairbench_core::kernel;
use mairbench_core::pmu;
use mairbench_core::schema::{self, Type};
use serde_json::{Map, Value};

/// What of a record the schema does not know: its kind, else each field its kind does not
/// have, and each PMU event of a `result`'s `pmu` that core's `pmu::EVENTS` does not name;
/// each with a key naming it (kind, field) and a sentence.
pub(super) fn unknowns(fields: &Map<String, Value>) -> Vec<((String, String), String)> {
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
pub(super) fn event_index(name: &str) -> Option<usize> {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The `outer_maint` record as the 32-bit image printed it on QEMU's SABRE Lite (a
    /// disabled L2C-310), and with a clock too coarse for the CPU's clean: a known kind whose
    /// fields all conform.
    #[test]
    fn an_outer_maint_record_conforms() {
        for json in [
            r#"{"kind":"outer_maint","enabled":false,"bytes":65536,"reps":8,"freq_hz":3000000,"cpu_line":32,"cpu_lines":2048,"cpu_ticks":8,"cpu_ns_per_line":1.30,"outer_line":32,"outer_lines":2048,"pages":16,"syncs":16,"outer_ticks":2446,"outer_ns_per_line":398.11,"ratio":305.75}"#,
            r#"{"kind":"outer_maint","enabled":true,"bytes":65536,"reps":8,"freq_hz":3000000,"cpu_line":32,"cpu_lines":2048,"cpu_ticks":0,"cpu_ns_per_line":null,"outer_line":32,"outer_lines":2048,"pages":16,"syncs":16,"outer_ticks":2446,"outer_ns_per_line":398.11,"ratio":null}"#,
        ] {
            let Value::Object(fields) = serde_json::from_str(json).unwrap() else {
                unreachable!()
            };
            assert_eq!(mismatches(&fields), Vec::<String>::new(), "{json}");
        }
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
}
