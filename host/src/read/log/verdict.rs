//! A parsed log judged as a whole: whether its run passed, failed, is truncated, or is not a
//! log this tool can read, in one sentence.

use super::parsed::Parsed;
use mairbench_core::record::SCHEMA;

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
    use super::super::parse::parse;
    use super::*;
    use crate::read::model::Unit;

    #[test]
    fn the_architecture_is_read_and_an_older_log_is_aarch64s() {
        let arch = |log: &[u8]| parse(log).run.arch().to_owned();
        assert_eq!(
            arch(br#"@mb {"kind":"start","schema":1,"arch":"armv7"}"#),
            "armv7"
        );
        assert_eq!(arch(br#"@mb {"kind":"start","schema":1}"#), "aarch64");
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
