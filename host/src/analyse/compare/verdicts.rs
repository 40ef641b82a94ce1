//! The verdicts whose status changed between the two runs.

use crate::read::model::{distinct, Run, Verdict};
use std::fmt::Write as _;

/// A verdict whose status differs between the two runs (or that only one run has).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VerdictChange {
    /// The verdict's name.
    pub name: String,
    /// Its status in A (`None`: A has no such verdict).
    pub a: Option<String>,
    /// Its status in B (`None`: B has no such verdict).
    pub b: Option<String>,
    /// B's why, else A's.
    pub why: String,
}

/// The verdicts whose status changed from A to B, in A's order, then those only B has.
pub fn verdict_changes(a: &Run, b: &Run) -> Vec<VerdictChange> {
    let names = distinct(
        a.verdicts
            .iter()
            .chain(&b.verdicts)
            .map(|v| v.name.as_str()),
    );
    names
        .into_iter()
        .filter_map(|name| {
            let find = |r: &Run| r.verdicts.iter().rev().find(|v| v.name == name).cloned();
            let (va, vb) = (find(a), find(b));
            let status = |v: &Option<Verdict>| v.as_ref().map(|v| v.status.clone());
            let (sa, sb) = (status(&va), status(&vb));
            (sa != sb).then(|| VerdictChange {
                name: name.to_owned(),
                a: sa,
                b: sb,
                why: vb.or(va).map(|v| v.why).unwrap_or_default(),
            })
        })
        .collect()
}

/// The verdict changes for the terminal: a line per changed verdict (`A -> B` and B's why),
/// or one line saying none changed; nothing when neither run has verdicts.
pub fn verdict_table(a: &Run, b: &Run) -> String {
    if a.verdicts.is_empty() && b.verdicts.is_empty() {
        return String::new();
    }
    let changed = verdict_changes(a, b);
    if changed.is_empty() {
        return format!(
            "verdicts: none changed ({} in A, {} in B)\n",
            a.verdicts.len(),
            b.verdicts.len()
        );
    }
    let mut out = format!("verdicts that changed ({} of them):\n", changed.len());
    let width = changed.iter().map(|c| c.name.len()).max().unwrap_or(0);
    for c in &changed {
        let _ = writeln!(
            out,
            "  {:<width$}  {:>4} -> {:<4}  {}",
            c.name,
            c.a.as_deref().unwrap_or("none"),
            c.b.as_deref().unwrap_or("none"),
            c.why
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_that_changed() {
        let verdict = |name: &str, status: &str| Verdict {
            name: name.into(),
            status: status.into(),
            evidence: vec![],
            why: format!("{name} is {status}"),
            core_note: None,
        };
        let mut a = Run::default();
        let mut b = Run::default();
        assert_eq!(verdict_table(&a, &b), "");
        a.verdicts = vec![
            verdict("caches-on", "pass"),
            verdict("clock", "warn"),
            verdict("uncached", "pass"),
        ];
        b.verdicts = vec![
            verdict("clock", "warn"),
            verdict("caches-on", "fail"),
            verdict("smp-config", "pass"),
        ];
        let c = verdict_changes(&a, &b);
        let seen: Vec<_> = c
            .iter()
            .map(|c| {
                (
                    c.name.as_str(),
                    c.a.as_deref(),
                    c.b.as_deref(),
                    c.why.as_str(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                ("caches-on", Some("pass"), Some("fail"), "caches-on is fail"),
                ("uncached", Some("pass"), None, "uncached is pass"),
                ("smp-config", None, Some("pass"), "smp-config is pass"),
            ]
        );
        let t = verdict_table(&a, &b);
        assert_eq!(
            t.lines().collect::<Vec<_>>(),
            [
                "verdicts that changed (3 of them):",
                "  caches-on   pass -> fail  caches-on is fail",
                "  uncached    pass -> none  uncached is pass",
                "  smp-config  none -> pass  smp-config is pass",
            ]
        );
        assert_eq!(
            verdict_table(&a, &a),
            "verdicts: none changed (3 in A, 3 in B)\n"
        );
    }
}
