//! The runner's sources keep the host tool's limits (host/tests/layers.rs): no file over 800
//! lines with its tests (600 without), no function over 80 lines, and no two modules that use
//! each other, however indirectly.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

const MAX_LINES: usize = 800;
const MAX_CODE_LINES: usize = 600;
const MAX_FN_LINES: usize = 80;

/// Each source file's module name and text (`boot_tests.rs` is `boot`'s tests).
fn sources() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .map(|p| {
            let name = p.file_stem().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    out.sort();
    out
}

/// The functions of a text that are over the limit: `(line, length)`, found by the line that
/// closes each at the indentation it opened at (rustfmt's layout).
fn long_functions(text: &str) -> Vec<(usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut long = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let body = line.trim_start();
        let indent = line.len() - body.len();
        let is_fn = [
            "fn ",
            "pub fn ",
            "pub(crate) fn ",
            "const fn ",
            "pub const fn ",
        ]
        .iter()
        .any(|p| body.starts_with(p));
        if !is_fn || body.ends_with(';') {
            continue;
        }
        let close = format!("{}}}", " ".repeat(indent));
        if let Some(n) = lines[i..].iter().position(|l| *l == close) {
            if n + 1 > MAX_FN_LINES {
                long.push((i + 1, n + 1));
            }
        }
    }
    long
}

#[test]
fn no_file_or_function_is_too_long() {
    let mut problems = Vec::new();
    for (name, text) in sources() {
        let total = text.lines().count();
        let code = text
            .lines()
            .position(|l| l == "#[cfg(test)]")
            .unwrap_or(total);
        if total > MAX_LINES || code > MAX_CODE_LINES {
            problems.push(format!("{name}.rs: {total} lines, {code} without tests"));
        }
        for (at, len) in long_functions(&text) {
            problems.push(format!("{name}.rs:{at}: a function of {len} lines"));
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
    assert_eq!(
        long_functions(&format!("fn f() {{\n{}}}\n", "    x();\n".repeat(90))),
        [(1, 92)]
    );
}

#[test]
fn no_two_modules_use_each_other() {
    let sources = sources();
    let modules: BTreeSet<&str> = sources.iter().map(|(n, _)| n.as_str()).collect();
    let mut uses: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (name, text) in &sources {
        let code = text.split("#[cfg(test)]").next().unwrap_or("");
        for m in &modules {
            if *m != name && code.contains(&format!("crate::{m}")) {
                uses.entry(name).or_default().insert(m);
            }
        }
    }
    // Whether `to` is reached from `from`.
    fn reaches(uses: &BTreeMap<&str, BTreeSet<&str>>, from: &str, to: &str) -> bool {
        let (mut seen, mut stack) = (BTreeSet::new(), vec![from]);
        while let Some(m) = stack.pop() {
            for next in uses.get(m).into_iter().flatten() {
                if *next == to {
                    return true;
                }
                if seen.insert(*next) {
                    stack.push(next);
                }
            }
        }
        false
    }
    for (from, tos) in &uses {
        for to in tos {
            assert!(!reaches(&uses, to, from), "{from} and {to} use each other");
        }
    }
}
