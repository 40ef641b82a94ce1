//! Why a run failed, from its records: the lead `cargo host report` prints first (and
//! `cargo host why` alone, and the runner's judge, `qemu/judge`). The end record only names a reason
//! ("unexpected exception", "panic", "failed checks: memtype"); the records before it hold
//! the rest, and this module puts it in words:
//!
//! - an `exception`: its class in words, ESR_EL1 (with the fault status of an abort), FAR_EL1
//!   where it holds the faulting address, ELR_EL1 and the `addr2line` command for its
//!   link-time address;
//! - a `panic`: its message and location;
//! - a failed `memtype` proof: the alias, the attribute expected and the one found, the PA;
//! - a failed integrity check (`result` with `integrity_fail_offset`): kernel, alias, size,
//!   buffer offset;
//! - a `cpu` that did not start: its MPIDR and why, a PSCI return code named
//!   (`-2 INVALID_PARAMETERS`, core's [`psci`] table);
//! - other failed `check` records, and failed verdicts;
//! - no end record (a hang killed by the runner's timeout, a capture cut short): the last
//!   record and the last line before the console went silent.

use crate::read::log::{Kept, Parsed};
use mairbench_core::esr;
use mairbench_core::format::Bytes;
use mairbench_core::memtype::describe_mair_byte;
use mairbench_core::psci;
use serde_json::Value;
use std::fmt::Write as _;

/// The ELF the `addr2line` command names, relative to the repository (where
/// `cargo build --release` puts it).
pub const ELF: &str = "target/aarch64-unknown-none/release/mairbench";

/// The lead of a report: why the run failed (or is incomplete, or warned about CPUs that did
/// not start), one heading then one indented line or more per cause, each naming its log
/// line; `""` for a run that passed with nothing to explain.
///
/// ```
/// let log = br#"@mb {"kind":"start","schema":1}
/// @mb {"kind":"panic","message":"oops","file":"src/main.rs","line":7}
/// @mb {"kind":"end","status":"fail","reason":"panic"}
/// "#;
/// let lead = mairbench_host::analyse::why::lead(&mairbench_host::read::log::parse(log));
/// assert!(lead.contains("panic at src/main.rs:7: oops"), "{lead}");
/// ```
pub fn lead(p: &Parsed) -> String {
    let status = p.run.status.as_deref();
    let heading = match (p.end_line, status) {
        (None, _) => "why the run is incomplete:".to_owned(),
        (Some(_), Some("pass")) if p.evidence.cpus.is_empty() => return String::new(),
        (Some(_), Some("pass")) => "why the run warned:".to_owned(),
        (Some(_), Some("fail")) => "why the run failed:".to_owned(),
        (Some(_), other) => format!(
            "why the run ended with status {:?}:",
            other.unwrap_or("unknown")
        ),
    };
    let e = &p.evidence;
    let mut lines: Vec<String> = Vec::new();
    lines.extend(e.exceptions.iter().map(exception));
    lines.extend(e.panics.iter().map(panic));
    lines.extend(e.memtypes.iter().map(memtype));
    lines.extend(e.integrity.iter().map(integrity));
    for c in &e.checks {
        let name = str_of(c, "name");
        let told = match name {
            "memtype" => !e.memtypes.is_empty(),
            "integrity" => !e.integrity.is_empty(),
            _ => false,
        };
        if !told {
            lines.push(format!(
                "line {}: check {name} failed: {}",
                c.line,
                str_of(c, "detail")
            ));
        }
    }
    let clusters = p
        .run
        .clusters
        .iter()
        .map(|c| (Some(c.index), &c.sweep.verdicts));
    let verdicts = std::iter::once((None, &p.run.verdicts))
        .chain(clusters)
        .flat_map(|(c, vs)| vs.iter().map(move |v| (c, v)));
    for (cluster, v) in verdicts.filter(|(_, v)| v.status == "fail") {
        let on = cluster.map_or(String::new(), |c| format!(" on cluster {c}"));
        let mut line = format!("verdict {}{on} failed: {}", v.name, v.why);
        if let Some(spec) = mairbench_core::verdict::by_name(&v.name) {
            let _ = write!(line, "\nusually: {}\nnext: {}", spec.failure, spec.next);
        }
        lines.push(line);
    }
    lines.extend(e.cpus.iter().map(cpu));
    if p.end_line.is_none() {
        lines.extend(silence(p));
    } else if lines.is_empty() {
        lines.push(match &p.reason {
            Some(r) => format!("the end record says {r:?}; no record before it says more"),
            None => {
                "no record says why (the end record names no reason and no failed check)".to_owned()
            }
        });
    }
    if let Some((line, test)) = &p.selftest {
        lines.insert(
            0,
            format!(
                "line {line}: the bootargs ask for mairbench.selftest={test}: what follows was \
                 asked for on purpose, a demonstration, not a finding about the board"
            ),
        );
    }
    let mut out = heading + "\n";
    for l in lines {
        for (i, part) in l.split('\n').enumerate() {
            let indent = if i == 0 { "  " } else { "    " };
            let _ = writeln!(out, "{indent}{part}");
        }
    }
    out
}

/// A string field ("" when absent or not a string).
fn str_of<'a>(k: &'a Kept, key: &str) -> &'a str {
    k.fields.get(key).and_then(Value::as_str).unwrap_or("")
}

/// A hex string field as a number.
fn hex_of(k: &Kept, key: &str) -> Option<u64> {
    let s = str_of(k, key);
    u64::from_str_radix(s.strip_prefix("0x").unwrap_or(s), 16).ok()
}

/// An `exception` record: what, where, the registers and the source line's command.
fn exception(k: &Kept) -> String {
    let esr_value = hex_of(k, "esr");
    let class = esr_value.map(esr::Class::of);
    let words = match str_of(k, "class") {
        "" => class.map_or("unknown class", esr::Class::name),
        w => w,
    };
    let nested = if k.fields.get("nested") == Some(&Value::Bool(true)) {
        ", inside the exception handler"
    } else {
        ""
    };
    let mut out = format!(
        "line {}: unexpected {} exception ({}{nested}): {words}",
        k.line,
        or(str_of(k, "vector"), "?"),
        or(str_of(k, "origin"), "origin unknown"),
    );
    if let (Some(esr), Some(class)) = (esr_value, class) {
        if class.is_abort() {
            let _ = write!(out, ": {}", esr::FaultStatus::of(esr).name());
            if let Some(level) = esr::fault_level(esr) {
                let _ = write!(out, " at level {level}");
            }
            if matches!(class, esr::Class::DataAbort | esr::Class::DataAbortLower) {
                let access = if esr::is_write(esr) { "write" } else { "read" };
                let _ = write!(out, ", on a {access}");
            }
        }
    }
    // FAR_EL1 holds the faulting address only where the record says so; an older record
    // (without far_valid) only for aborts.
    let far_valid = match k.fields.get("far_valid").and_then(Value::as_bool) {
        Some(v) => v,
        None => class.is_some_and(esr::Class::is_abort),
    };
    let far = if far_valid {
        format!("FAR_EL1 {}", or(str_of(k, "far"), "?"))
    } else {
        "FAR_EL1 not valid for this class".to_owned()
    };
    let _ = write!(
        out,
        "\nESR_EL1 {} (EC {}), {far}, ELR_EL1 {}",
        or(str_of(k, "esr"), "?"),
        or(str_of(k, "ec"), "?"),
        or(str_of(k, "elr"), "?"),
    );
    match str_of(k, "elr_link") {
        "" => out.push_str("\nELR_EL1 lies outside the image's code: no source line"),
        link => {
            let _ = write!(
                out,
                " (linked at {link})\nsource line: addr2line -e {ELF} -f -C {link}"
            );
        }
    }
    out
}

/// `value`, or `otherwise` when it is empty.
fn or<'a>(value: &'a str, otherwise: &'a str) -> &'a str {
    if value.is_empty() {
        otherwise
    } else {
        value
    }
}

/// A `panic` record: message and location.
fn panic(k: &Kept) -> String {
    let file = str_of(k, "file");
    let at = match (file, k.fields.get("line").and_then(Value::as_u64)) {
        ("", _) => "at an unknown location".to_owned(),
        (file, Some(line)) if line > 0 => format!("at {file}:{line}"),
        (file, _) => format!("in {file}"),
    };
    format!("line {}: panic {at}: {}", k.line, str_of(k, "message"))
}

/// A MAIR attribute byte as `0x44 (Normal, inner+outer non-cacheable)`.
fn attr(k: &Kept, key: &str) -> String {
    match hex_of(k, key).and_then(|v| u8::try_from(v).ok()) {
        Some(b) => format!("{b:#04x} ({})", describe_mair_byte(b)),
        None => or(str_of(k, key), "?").to_owned(),
    }
}

/// A failed `memtype` proof: the alias, expected and found attribute, the PA.
fn memtype(k: &Kept) -> String {
    let number = |key: &str| k.fields.get(key).and_then(Value::as_u64);
    let verdict = str_of(k, "verdict");
    let what = match verdict {
        "wrong-pa" => "a sampled page did not translate, or not to the buffer's PA",
        "inconsistent" => "the attribute differs across the alias",
        "wrong-attr" => "the attribute is of the other class (Normal for Device, or the reverse)",
        _ => "the proof failed",
    };
    let slot = number("index").map_or(String::new(), |i| format!("MAIR[{i}] "));
    let mut out = format!(
        "line {}: memtype proof failed for alias {} ({} pages): {verdict}: {what}\n\
         expected attribute {slot}{}, found PAR_EL1.ATTR {}, at PA {}",
        k.line,
        or(str_of(k, "name"), "?"),
        or(str_of(k, "granule"), "?"),
        attr(k, "mair"),
        attr(k, "par_attr"),
        or(str_of(k, "pa"), "?"),
    );
    let _ = write!(
        out,
        " (VA {} to {}",
        or(str_of(k, "va"), "?"),
        or(str_of(k, "va_end"), "?")
    );
    if let Some(size) = number("size") {
        let _ = write!(out, ", {}", Bytes(size));
    }
    out.push(')');
    if let (Some(index), Some(used)) = (number("index"), number("attr_index")) {
        if index != used {
            let _ = write!(
                out,
                "; its descriptors use AttrIndx {used}, not the type's slot {index}"
            );
        }
    }
    out
}

/// A `result` record whose data check failed: kernel, alias, size, offset.
fn integrity(k: &Kept) -> String {
    let size = k
        .fields
        .get("size")
        .and_then(Value::as_u64)
        .map_or("an unknown size".to_owned(), |s| Bytes(s).to_string());
    let granule = match str_of(k, "granule") {
        "" => String::new(),
        g => format!(" ({g} pages)"),
    };
    format!(
        "line {}: integrity check failed: kernel {} on {}{granule} at {size}: data wrong at \
         buffer offset {}",
        k.line,
        or(str_of(k, "kernel"), "?"),
        or(str_of(k, "memtype"), str_of(k, "source")),
        or(str_of(k, "integrity_fail_offset"), "?"),
    )
}

/// A `cpu` record: a CPU that did not start, a PSCI return code named.
fn cpu(k: &Kept) -> String {
    let why = str_of(k, "why").trim_end();
    let named = psci::returned(why)
        .and_then(psci::name)
        .map_or(String::new(), |n| format!(" {n}"));
    format!(
        "line {}: CPU {} did not start: {why}{named}",
        k.line,
        or(str_of(k, "mpidr"), "?")
    )
}

/// A log without an end record: where the console went silent.
fn silence(p: &Parsed) -> Vec<String> {
    let mut out = vec![
        "no end record: the firmware hung, or QEMU was killed by MAIRBENCH_TIMEOUT, or the \
         capture stopped early"
            .to_owned(),
    ];
    if let Some((line, kind)) = &p.last_record {
        out.push(format!("last record: line {line}, {kind}"));
    }
    if let Some((line, text)) = &p.last_text {
        if p.last_record.as_ref().map(|(l, _)| l) != Some(line) {
            out.push(format!("last line before silence: line {line}: {text}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::log::parse;

    const START: &str = r#"@mb {"kind":"start","schema":1,"platform":"p","emulated":true}"#;

    fn lead_of(body: &str) -> String {
        lead(&parse(format!("{START}\n{body}").as_bytes()))
    }

    #[test]
    fn an_undefined_instruction_without_far() {
        // The fault selftest's records, as QEMU 10.0.2 gives them.
        let l = lead_of(
            r#"!! unexpected synchronous exception (current EL, SP_EL0): unknown reason (undefined instruction)
@mb {"kind":"exception","vector":"synchronous","origin":"current EL, SP_EL0","class":"unknown reason (undefined instruction)","ec":"0x0","esr":"0x2000000","far":"0x80400000000","elr":"0x40219c9c","el":1,"nested":false,"far_valid":false,"elr_link":"0x40219c9c"}
@mb {"kind":"end","status":"fail","checks":27,"failed":0,"warnings":0,"reason":"unexpected exception","run_us":252381}
"#,
        );
        assert_eq!(
            l,
            "why the run failed:\n  \
             line 3: unexpected synchronous exception (current EL, SP_EL0): unknown reason \
             (undefined instruction)\n    \
             ESR_EL1 0x2000000 (EC 0x0), FAR_EL1 not valid for this class, ELR_EL1 0x40219c9c \
             (linked at 0x40219c9c)\n    \
             source line: addr2line -e target/aarch64-unknown-none/release/mairbench -f -C \
             0x40219c9c\n"
        );
        assert!(!l.contains("0x80400000000"), "a stale FAR is not printed");
    }

    #[test]
    fn a_data_abort_with_far_and_an_image_moved() {
        // A translation fault at level 3 on a write, the image loaded 2 MiB above its link
        // base; the class words come from the ESR when the record lacks them.
        let l = lead_of(
            r#"@mb {"kind":"exception","vector":"synchronous","origin":"current EL, SP_ELx","ec":"0x25","esr":"0x96000047","far":"0x1234","elr":"0x40412340","el":1,"nested":true,"far_valid":true,"elr_link":"0x40212340"}
@mb {"kind":"end","status":"fail","reason":"unexpected exception"}
"#,
        );
        assert!(
            l.contains(
                "unexpected synchronous exception (current EL, SP_ELx, inside the exception \
                 handler): data abort: translation fault at level 3, on a write"
            ),
            "{l}"
        );
        assert!(
            l.contains("ESR_EL1 0x96000047 (EC 0x25), FAR_EL1 0x1234, ELR_EL1 0x40412340"),
            "{l}"
        );
        assert!(l.contains("-f -C 0x40212340\n"), "{l}");
        // Outside the image's code: no command.
        let l = lead_of(
            r#"@mb {"kind":"exception","vector":"serror","origin":"current EL, SP_ELx","class":"SError interrupt","ec":"0x2f","esr":"0xbe000000","far":"0x0","elr":"0x8000","el":1,"nested":false,"far_valid":false}
@mb {"kind":"end","status":"fail","reason":"unexpected exception"}
"#,
        );
        assert!(
            l.contains("outside the image's code: no source line"),
            "{l}"
        );
        assert!(!l.contains("addr2line"), "{l}");
    }

    #[test]
    fn a_panic_names_message_and_location() {
        let l = lead_of(
            r#"!! panic: panicked at src/main.rs:220:34:
selftest: panicking on purpose
@mb {"kind":"panic","message":"selftest: panicking on purpose","file":"src/main.rs","line":220}
@mb {"kind":"end","status":"fail","checks":27,"failed":0,"warnings":0,"reason":"panic","run_us":503603}
"#,
        );
        assert_eq!(
            l,
            "why the run failed:\n  line 4: panic at src/main.rs:220: selftest: panicking on purpose\n"
        );
        let l = lead_of(
            r#"@mb {"kind":"panic","message":"m","file":"","line":0}
@mb {"kind":"end","status":"fail","reason":"panic"}
"#,
        );
        assert!(l.contains("panic at an unknown location: m"), "{l}");
    }

    #[test]
    fn a_failed_proof_names_alias_attributes_and_pa() {
        // The bad-attr selftest: normal-nc mapped with device-ngnrne's AttrIndx.
        let l = lead_of(
            r#"FAIL memtype: normal-nc         4K VA 0x800c0000000 -> PA 0x4e000000, PAR.ATTR 0x00 (MAIR[3] 0x44: Normal, inner+outer non-cacheable)
@mb {"kind":"check","name":"memtype","ok":false,"detail":"normal-nc         4K VA 0x800c0000000 -> PA 0x4e000000, PAR.ATTR 0x00 (MAIR[3] 0x44: Normal, inner+outer non-cacheable)"}
@mb {"kind":"memtype","name":"normal-nc","index":3,"attr_index":4,"mair":"0x44","va":"0x800c0000000","va_end":"0x800c2000000","pa":"0x4e000000","size":33554432,"par_attr":"0x00","granule":"4K","samples":16,"verdict":"wrong-attr","ok":false}
@mb {"kind":"memtype","name":"normal-wt","index":2,"attr_index":2,"mair":"0xbb","va":"0x1","va_end":"0x2","pa":"0x4e000000","size":4096,"par_attr":"0xbb","granule":"4K","samples":16,"verdict":"exact","ok":true}
@mb {"kind":"end","status":"fail","checks":31,"failed":1,"warnings":0,"reason":null,"run_us":2267392,"failed_checks":["memtype"]}
"#,
        );
        assert_eq!(
            l,
            "why the run failed:\n  \
             line 4: memtype proof failed for alias normal-nc (4K pages): wrong-attr: the \
             attribute is of the other class (Normal for Device, or the reverse)\n    \
             expected attribute MAIR[3] 0x44 (Normal, inner+outer non-cacheable), found \
             PAR_EL1.ATTR 0x00 (Device-nGnRnE (non-gathering, non-reordering, no early write \
             acknowledgement)), at PA 0x4e000000 (VA 0x800c0000000 to 0x800c2000000, 32 MiB); \
             its descriptors use AttrIndx 4, not the type's slot 3\n"
        );
    }

    #[test]
    fn a_failed_integrity_check_names_kernel_alias_size_and_offset() {
        let l = lead_of(
            r#"@mb {"kind":"result","memtype":"normal-wt","kernel":"write-stp","granule":"4K","size":65536,"passes":1,"reps":3,"best_ticks":9,"median_ticks":9,"freq_hz":62500000,"cv_pct":0.1,"bytes":65536,"best_mbps":1,"median_mbps":1,"integrity_fail_offset":"0x1040"}
@mb {"kind":"check","name":"integrity","ok":false,"detail":"write-stp: data verified"}
@mb {"kind":"check","name":"timer","ok":false,"detail":"the counter stood still"}
@mb {"kind":"end","status":"fail","reason":null,"failed_checks":["integrity","timer"]}
"#,
        );
        assert_eq!(
            l,
            "why the run failed:\n  \
             line 2: integrity check failed: kernel write-stp on normal-wt (4K pages) at 64 KiB: \
             data wrong at buffer offset 0x1040\n  \
             line 4: check timer failed: the counter stood still\n"
        );
    }

    #[test]
    fn a_cpu_that_did_not_start_names_the_psci_error() {
        // The missing-cpu selftest: the run passes with a warning.
        let l = lead_of(
            r#"cpu 0xff00: not started: PSCI CPU_ON returned -2
@mb {"kind":"cpu","mpidr":"0xff00","started":false,"why":"PSCI CPU_ON returned -2"}
@mb {"kind":"cpu","mpidr":"0x3","started":false,"why":"started but silent for 1000 ms"}
@mb {"kind":"end","status":"pass","warned":["cpu","smp-config"]}
"#,
        );
        assert_eq!(
            l,
            "why the run warned:\n  \
             line 3: CPU 0xff00 did not start: PSCI CPU_ON returned -2 INVALID_PARAMETERS\n  \
             line 4: CPU 0x3 did not start: started but silent for 1000 ms\n"
        );
    }

    #[test]
    fn a_hang_names_the_last_record_and_line() {
        // The hang selftest killed by the runner's timeout.
        let l = lead_of(
            "@mb {\"kind\":\"hello\",\"cpu\":0,\"mpidr\":\"0x0\"}\n\
             cpus: 1 of 1 running at EL1\n\
             selftest: hanging on purpose; the runner's timeout must end this\r\n\n",
        );
        assert_eq!(
            l,
            "why the run is incomplete:\n  \
             no end record: the firmware hung, or QEMU was killed by MAIRBENCH_TIMEOUT, or the \
             capture stopped early\n  \
             last record: line 2, hello\n  \
             last line before silence: line 4: selftest: hanging on purpose; the runner's \
             timeout must end this\n"
        );
        // Silent right after a record: the line is the record's, said once.
        let l = lead_of("@mb {\"kind\":\"hello\",\"cpu\":0}\n");
        assert!(l.ends_with("last record: line 2, hello\n"), "{l}");
        // A nested exception that never reached its end record still says what it was.
        let l = lead_of(
            r#"@mb {"kind":"exception","vector":"synchronous","origin":"o","class":"c","ec":"0x0","esr":"0x2000000","far":"0x0","elr":"0x1","el":1,"nested":true,"far_valid":false}
"#,
        );
        assert!(l.contains("(o, inside the exception handler): c"), "{l}");
        assert!(l.contains("last record: line 2, exception"), "{l}");
    }

    #[test]
    fn a_selftest_in_the_bootargs_is_named_first_as_the_cause() {
        let log = r#"@mb {"kind":"start","schema":1,"platform":"p","emulated":true,"bootargs":"mairbench.quick mairbench.selftest=caches-off"}
@mb {"kind":"verdict","name":"caches-on","status":"fail","evidence":{},"why":"SCTLR_EL1.C is clear"}
@mb {"kind":"end","status":"fail","reason":null}
"#;
        let l = lead(&parse(log.as_bytes()));
        assert!(
            l.starts_with(
                "why the run failed:\n  line 1: the bootargs ask for mairbench.selftest=caches-off: \
                 what follows was asked for on purpose"
            ),
            "{l}"
        );
        assert!(
            l.contains("verdict caches-on failed: SCTLR_EL1.C is clear"),
            "{l}"
        );
        // `none`, or no selftest, names none; the last one given wins, as in the firmware.
        for (args, named) in [
            ("mairbench.selftest=none", false),
            ("mairbench.quick", false),
            ("mairbench.selftest=panic mairbench.selftest=none", false),
            ("mairbench.selftest=none mairbench.selftest=panic", true),
        ] {
            let log = log.replace("mairbench.quick mairbench.selftest=caches-off", args);
            let l = lead(&parse(log.as_bytes()));
            assert_eq!(l.contains("the bootargs ask for"), named, "{args}: {l}");
        }
    }

    #[test]
    fn a_passing_run_has_no_lead_and_a_bare_failure_says_so() {
        assert_eq!(lead_of("@mb {\"kind\":\"end\",\"status\":\"pass\"}\n"), "");
        let l = lead_of("@mb {\"kind\":\"end\",\"status\":\"fail\",\"reason\":\"integrity\"}\n");
        assert!(l.contains("the end record says \"integrity\""), "{l}");
        let l = lead_of(
            r#"@mb {"kind":"verdict","name":"uncached","status":"fail","evidence":{},"why":"normal-nc is as fast as normal-wb"}
@mb {"kind":"end","status":"fail","reason":null}
"#,
        );
        assert!(
            l.contains("verdict uncached failed: normal-nc is as fast as normal-wb"),
            "{l}"
        );
        // What the failure usually means and the next step, from core's table of verdicts.
        let spec = mairbench_core::verdict::by_name("uncached").unwrap();
        assert!(
            l.contains(&format!("\n    usually: {}\n", spec.failure)),
            "{l}"
        );
        assert!(l.contains(&format!("\n    next: {}\n", spec.next)), "{l}");
        // A new run (a second start record) forgets the old run's evidence.
        let l = lead_of(&format!(
            "@mb {{\"kind\":\"panic\",\"message\":\"old\",\"file\":\"\",\"line\":0}}\n{START}\n\
             @mb {{\"kind\":\"end\",\"status\":\"pass\"}}\n"
        ));
        assert_eq!(l, "");
    }
}
