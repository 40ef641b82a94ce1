//! The console excerpts in the documentation are real output, checked on every test run.
//!
//! A documented excerpt is a fenced code block between two HTML comments:
//!
//! ```text
//! <!-- output: MAIRBENCH_SEMIHOSTING=0 mairbench.quick mairbench.selftest=panic -->
//! (fenced block of console lines)
//! <!-- /output -->
//! ```
//!
//! The words after `output:` are the run: `MAIRBENCH_*=value` words are runner settings, the
//! rest is the kernel command line. This test boots the firmware once per distinct run (a
//! run the boot matrix has is its row's, matrix.rs) and requires every line of the block to be a whole line of the output, in the block's order
//! (the console first, then what the runner printed on stderr). `…` in a documented line stands
//! for any text: numbers that vary from run to run, or a shortened part of a record. Colour
//! escapes are removed from the output before the comparison, trailing blanks from both.
//!
//! In the checked files every fenced block without a language (a bare fence) must be such an
//! excerpt, so console output cannot be pasted in without being checked; commands and
//! U-Boot prompts use `sh` or `text` fences.
//!
//! The checked files are all of the documentation: `README.md` and `docs/**/*.md`. This file
//! also checks the documentation's shape: every relative link reaches an existing file (and an
//! `#anchor` an existing heading of it), `README.md` stays a front door (at most 200 lines and
//! 12 KB) and each chapter under `docs/` at most 400 lines. (`docs/runner.md`'s table of
//! settings is rendered from the runner's own table: `runner/tests/settings_doc.rs`.)

use crate::common;
use crate::matrix;

use std::collections::BTreeMap;
use std::path::Path;

/// The files whose excerpts are checked: all of the documentation.
fn files() -> Vec<String> {
    common::docs()
}

const OPEN: &str = "<!-- output:";
const CLOSE: &str = "<!-- /output -->";
const ANY: char = '…';

/// One documented excerpt.
#[derive(Debug, Clone, PartialEq)]
struct Excerpt {
    file: String,
    line: usize,
    env: Vec<(String, String)>,
    bootargs: Vec<String>,
    lines: Vec<String>,
}

impl Excerpt {
    /// The run, as written after `output:`.
    fn run_key(&self) -> String {
        let mut words: Vec<String> = self.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        words.extend(self.bootargs.iter().cloned());
        words.join(" ")
    }
}

/// Finds the excerpts of one Markdown text; an error names the line of a malformed one.
fn excerpts(file: &str, text: &str) -> Result<Vec<Excerpt>, String> {
    let mut found = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    let mut in_fence = false;
    while i < lines.len() {
        let line = lines[i].trim();
        if line.starts_with("```") {
            if !in_fence && line == "```" {
                return Err(format!(
                    "{file}:{}: a bare fence outside `{OPEN} … -->`: mark the excerpt with the run \
                     that prints it, or give the fence a language (sh, text)",
                    i + 1
                ));
            }
            in_fence = !in_fence;
            i += 1;
            continue;
        }
        if in_fence || !line.starts_with(OPEN) {
            if !in_fence && line.starts_with(CLOSE) {
                return Err(format!("{file}:{}: `{CLOSE}` without an opening", i + 1));
            }
            i += 1;
            continue;
        }
        let start = i + 1;
        let spec = line
            .strip_prefix(OPEN)
            .and_then(|s| s.strip_suffix("-->"))
            .ok_or_else(|| format!("{file}:{start}: `{OPEN}` must end with `-->` on its line"))?;
        let (mut env, mut bootargs) = (Vec::new(), Vec::new());
        for word in spec.split_whitespace() {
            match word.split_once('=') {
                Some((k, v)) if k.starts_with("MAIRBENCH_") => env.push((k.into(), v.into())),
                _ => bootargs.push(word.to_string()),
            }
        }
        if bootargs.is_empty() {
            return Err(format!(
                "{file}:{start}: no command line: a default run is too long for a test"
            ));
        }
        // The fenced block follows, then the closing comment.
        // The fence's indentation (a block inside a list item) is not part of the output.
        let indent = lines
            .get(i + 1)
            .filter(|l| l.trim() == "```")
            .map(|l| &l[..l.len() - l.trim_start().len()])
            .ok_or_else(|| format!("{file}:{start}: a bare fence must follow `{OPEN}`"))?;
        let mut body = Vec::new();
        let mut j = i + 2;
        loop {
            let l = lines
                .get(j)
                .ok_or_else(|| format!("{file}:{start}: the fenced block is not closed"))?;
            if l.trim() == "```" {
                break;
            }
            body.push(l.strip_prefix(indent).unwrap_or(l).trim_end().to_string());
            j += 1;
        }
        if body.iter().all(|l| l.trim().is_empty()) {
            return Err(format!("{file}:{start}: an empty excerpt checks nothing"));
        }
        if lines.get(j + 1).map(|l| l.trim()) != Some(CLOSE) {
            return Err(format!(
                "{file}:{start}: `{CLOSE}` must follow the fenced block"
            ));
        }
        found.push(Excerpt {
            file: file.into(),
            line: start,
            env,
            bootargs,
            lines: body,
        });
        i = j + 2;
    }
    if in_fence {
        return Err(format!("{file}: a fenced block is not closed"));
    }
    Ok(found)
}

/// Whether `line` matches the documented `pattern` (`…` stands for any text).
fn matches(pattern: &str, line: &str) -> bool {
    let mut parts = pattern.split(ANY);
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = line.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    for (n, part) in parts.iter().enumerate() {
        if n + 1 == parts.len() {
            return rest.ends_with(part);
        }
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.is_empty()
}

/// Removes ANSI colour escapes (`ESC [ … m`).
fn plain(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            for c in chars.by_ref() {
                if c.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The documented lines that the output does not show, in order; empty when all are there.
fn missing(documented: &[String], output: &str) -> Vec<String> {
    let output = plain(output);
    let lines: Vec<&str> = output.lines().map(str::trim_end).collect();
    let mut at = 0;
    let mut missing = Vec::new();
    for want in documented.iter().filter(|l| !l.trim().is_empty()) {
        match lines[at..].iter().position(|l| matches(want, l)) {
            Some(n) => at += n + 1,
            None => missing.push(want.clone()),
        }
    }
    missing
}

fn all_excerpts() -> Vec<Excerpt> {
    let root = common::root();
    let mut all = Vec::new();
    for file in files() {
        let text =
            std::fs::read_to_string(root.join(&file)).unwrap_or_else(|e| panic!("{file}: {e}"));
        all.extend(excerpts(&file, &text).unwrap_or_else(|e| panic!("{e}")));
    }
    all
}

#[test]
fn documented_output_is_what_the_firmware_prints() {
    let all = all_excerpts();
    // Each guide shows output; losing its markers would silently stop the check.
    for (file, least) in [
        ("README.md", 1),
        ("docs/lab.md", 6),
        ("docs/bringup.md", 8),
        ("docs/bringup-2.md", 8),
        ("docs/verdicts.md", 1),
        ("docs/host.md", 1),
    ] {
        let n = all.iter().filter(|e| e.file == file).count();
        assert!(
            n >= least,
            "{file}: {n} checked excerpts, expected at least {least}"
        );
    }
    let mut runs: BTreeMap<String, Vec<&Excerpt>> = BTreeMap::new();
    for e in &all {
        runs.entry(e.run_key()).or_default().push(e);
    }
    let mut failures = Vec::new();
    for group in runs.values() {
        let first = group[0];
        let env: Vec<(&str, &str)> = first
            .env
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let args: Vec<&str> = first.bootargs.iter().map(String::as_str).collect();
        let run = matrix::shared(&env, &args);
        let output = format!("{}\n{}", run.console, run.stderr);
        for e in group {
            let gone = missing(&e.lines, &output);
            if !gone.is_empty() {
                failures.push(format!(
                    "{}:{} (run `{}`): not in the output, in this order:\n  {}",
                    e.file,
                    e.line,
                    e.run_key(),
                    gone.join("\n  ")
                ));
            }
        }
        if !failures.is_empty() {
            failures.push(format!("output of `{}`:\n{output}", first.run_key()));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn excerpts_are_found_with_their_run() {
    let text = "a\n<!-- output: MAIRBENCH_EL=2 mairbench.quick x=1 -->\n```\nok   one\n  two …\n```\n<!-- /output -->\n```sh\ncargo run\n```\n";
    let found = excerpts("t.md", text).unwrap();
    assert_eq!(
        found,
        vec![Excerpt {
            file: "t.md".into(),
            line: 2,
            env: vec![("MAIRBENCH_EL".into(), "2".into())],
            bootargs: vec!["mairbench.quick".into(), "x=1".into()],
            lines: vec!["ok   one".into(), "  two …".into()],
        }]
    );
    assert_eq!(found[0].run_key(), "MAIRBENCH_EL=2 mairbench.quick x=1");
}

#[test]
fn malformed_excerpts_are_refused() {
    for (text, why) in [
        ("```\nok   pasted\n```\n", "bare fence"),
        (
            "<!-- output: mairbench.quick -->\n```\nok\n```\n",
            "must follow",
        ),
        ("<!-- output: mairbench.quick -->\n```\nok\n", "not closed"),
        (
            "<!-- output: mairbench.quick -->\n```\n\n```\n<!-- /output -->\n",
            "empty",
        ),
        (
            "<!-- output: MAIRBENCH_EL=2 -->\n```\nok\n```\n<!-- /output -->\n",
            "no command line",
        ),
        ("<!-- output: mairbench.quick -->\ntext\n", "must follow"),
        ("<!-- /output -->\n", "without an opening"),
    ] {
        let err = excerpts("t.md", text).expect_err(why);
        assert!(err.contains(why), "{why}: {err}");
    }
}

#[test]
fn lines_must_appear_whole_and_in_order() {
    let out = "\u{1b}[32mok\u{1b}[0m   timer: 62500000 Hz\nmmu: on; 0x1\nend 1209308 us\n";
    let doc = |l: &[&str]| l.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(missing(&doc(&["ok   timer: 62500000 Hz", "end … us"]), out).is_empty());
    assert!(missing(&doc(&["ok   timer: … Hz", "mmu: on; …"]), out).is_empty());
    // A wrong value, a part of a line, and the wrong order are all caught.
    assert_eq!(
        missing(&doc(&["mmu: on; 0x2"]), out),
        doc(&["mmu: on; 0x2"])
    );
    assert_eq!(missing(&doc(&["mmu: on"]), out), doc(&["mmu: on"]));
    assert_eq!(
        missing(&doc(&["end … us", "mmu: on; 0x1"]), out),
        doc(&["mmu: on; 0x1"])
    );
    assert!(!matches("a…b…c", "a b"));
    assert!(matches("a…b…c", "aXbYc"));
    assert!(matches("…", ""));
}

#[test]
fn the_checked_files_exist() {
    let files = files();
    for file in &files {
        assert!(Path::new(&common::root().join(file)).is_file(), "{file}");
    }
    // The guides and the chapters whose excerpts are counted above are among them.
    for file in [
        "README.md",
        "docs/lab.md",
        "docs/bringup.md",
        "docs/raspberry-pi-4.md",
    ] {
        assert!(files.iter().any(|f| f == file), "{file} is not checked");
    }
}

/// The lines of `text` outside fenced code blocks, with their line numbers (from 1) and their
/// inline code spans (between backticks) blanked out.
fn prose(text: &str) -> Vec<(usize, String)> {
    let mut out = Vec::new();
    let mut in_fence = false;
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        if in_fence {
            continue;
        }
        let mut kept = String::with_capacity(line.len());
        let mut in_code = false;
        for c in line.chars() {
            if c == '`' {
                in_code = !in_code;
            } else if !in_code {
                kept.push(c);
            }
        }
        out.push((n + 1, kept));
    }
    out
}

/// The targets of the Markdown links and images of `text` (`[text](target)`), with their line
/// numbers; code is left out.
fn links(text: &str) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in prose(text) {
        let mut rest = line.as_str();
        while let Some(at) = rest.find("](") {
            let after = &rest[at + 2..];
            match after.find(')') {
                Some(end) => {
                    found.push((n, after[..end].trim().to_string()));
                    rest = &after[end..];
                }
                None => break,
            }
        }
    }
    found
}

/// GitHub's anchor of a heading: lower case, every character other than a letter, a digit, a
/// space, `-` or `_` left out, spaces made `-`.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_'))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// The anchors of the headings of a Markdown text, as GitHub makes them (a repeated one gets
/// `-1`, `-2`, ...).
fn anchors(text: &str) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    let mut in_fence = false;
    for line in text.lines() {
        if line.trim_start().starts_with("```") {
            in_fence = !in_fence;
            continue;
        }
        let hashes = line.chars().take_while(|&c| c == '#').count();
        if in_fence || hashes == 0 || hashes > 6 || !line[hashes..].starts_with(' ') {
            continue;
        }
        let base = slug(&line[hashes..]);
        let mut anchor = base.clone();
        let mut k = 0;
        while seen.contains(&anchor) {
            k += 1;
            anchor = format!("{base}-{k}");
        }
        seen.push(anchor);
    }
    seen
}

/// A path from the repository root: `target` as `doc` (a path from the root) names it,
/// relative to its own directory.
fn resolve(doc: &str, target: &str) -> String {
    let mut parts: Vec<&str> = doc.split('/').collect();
    parts.pop();
    for part in target.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    parts.join("/")
}

/// What is wrong with the relative links of `doc` (a path from the root, its text `text`);
/// `read` gives another document's text, `None` when there is no such file.
fn broken_links(doc: &str, text: &str, read: &dyn Fn(&str) -> Option<String>) -> Vec<String> {
    let mut broken = Vec::new();
    for (line, target) in links(text) {
        if target.contains("://") || target.starts_with("mailto:") {
            continue;
        }
        let (path, anchor) = match target.split_once('#') {
            Some((p, a)) => (p, Some(a)),
            None => (target.as_str(), None),
        };
        let file = if path.is_empty() {
            doc.to_string()
        } else {
            resolve(doc, path)
        };
        let Some(linked) = read(&file) else {
            broken.push(format!("{doc}:{line}: {target}: no file {file}"));
            continue;
        };
        if let Some(anchor) = anchor {
            if !anchors(&linked).iter().any(|a| a == anchor) {
                broken.push(format!(
                    "{doc}:{line}: {target}: {file} has no heading #{anchor}"
                ));
            }
        }
    }
    broken
}

#[test]
fn relative_links_reach_a_file_and_a_heading() {
    let root = common::root();
    let read = |file: &str| -> Option<String> {
        let path = root.join(file);
        if path.is_dir() {
            Some(String::new())
        } else {
            std::fs::read_to_string(path).ok()
        }
    };
    let mut broken = Vec::new();
    let mut count = 0;
    for doc in files() {
        let text = read(&doc).unwrap();
        count += links(&text).len();
        broken.extend(broken_links(&doc, &text, &read));
    }
    assert!(count > 50, "only {count} links found");
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));

    // The checker itself, on made-up files.
    let made = |file: &str| -> Option<String> {
        match file {
            "docs/a.md" => {
                Some("# A title\n\n## The `x` field's use\n\n## Twice\n\n## Twice\n".into())
            }
            "docs/img/p.svg" => Some(String::new()),
            "README.md" => Some("# Top\n".into()),
            _ => None,
        }
    };
    let text = "[a](docs/a.md#a-title) [b](docs/a.md#the-x-fields-use) `[c](nowhere.md)`\n\
                ![p](docs/img/p.svg) [w](https://example.org/x) [t](docs/a.md#twice-1)\n\
                ```sh\n[d](nowhere.md)\n```\n";
    assert_eq!(broken_links("README.md", text, &made), Vec::<String>::new());
    let bad = "[a](docs/b.md) [b](docs/a.md#nothing) [c](docs/a.md#twice-2) [d](#here) [e](#top)\n";
    let found = broken_links("README.md", bad, &made);
    assert_eq!(found.len(), 4, "{found:?}");
    assert_eq!(resolve("docs/x.md", "../README.md"), "README.md");
    assert_eq!(resolve("docs/x.md", "a.md"), "docs/a.md");
}

/// Chapters allowed over 400 lines, each with the reason it is not split.
const LONG_CHAPTERS: [(&str, &str); 1] = [(
    "docs/records.md",
    "its generated table of record kinds (between the records markers, one block that \
     crates/core/tests/records_doc.rs writes from crates/core/src/schema.rs) alone is over \
     400 lines",
)];

#[test]
fn the_readme_is_a_front_door_and_chapters_stay_short() {
    let root = common::root();
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let lines = readme.lines().count();
    assert!(lines <= 200, "README.md has {lines} lines, at most 200");
    assert!(
        readme.len() <= 12 * 1024,
        "README.md has {} bytes, at most 12 KiB",
        readme.len()
    );
    let mut long = Vec::new();
    for doc in files().iter().filter(|f| f.starts_with("docs/")) {
        let n = std::fs::read_to_string(root.join(doc))
            .unwrap()
            .lines()
            .count();
        let allowed = LONG_CHAPTERS.iter().any(|(f, _)| f == doc);
        if n > 400 && !allowed {
            long.push(format!("{doc}: {n} lines, at most 400 (split it)"));
        }
        if n <= 400 && allowed {
            long.push(format!("{doc}: {n} lines: take it off LONG_CHAPTERS"));
        }
    }
    assert!(long.is_empty(), "{}", long.join("\n"));
    // Every chapter is listed in the book's summary.
    let summary = std::fs::read_to_string(root.join("docs/SUMMARY.md")).unwrap();
    let listed: Vec<String> = links(&summary)
        .into_iter()
        .map(|(_, t)| resolve("docs/SUMMARY.md", &t))
        .collect();
    for doc in files().iter().filter(|f| f.starts_with("docs/")) {
        if doc != "docs/SUMMARY.md" {
            assert!(listed.contains(doc), "docs/SUMMARY.md does not list {doc}");
        }
    }
}

/// A count as the documentation writes it: in words up to twenty, else in digits.
fn count_word(n: usize) -> String {
    const WORDS: [&str; 21] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
        "twenty",
    ];
    WORDS
        .get(n)
        .map_or_else(|| n.to_string(), |w| (*w).to_string())
}

/// The counts of whole tables the documentation writes, derived from the tables: a kernel
/// added to core's table (or taken from the twin's set) makes this fail until the words follow.
#[test]
fn the_counts_the_docs_write_are_the_tables() {
    use mairbench_core::{kernel::KERNELS, memtype::MEMTYPES, verdict::VERDICTS};
    let twin = KERNELS.iter().filter(|k| k.twin).count();
    let claims = [
        (
            "docs/twin.md",
            format!("Kernels (default all {})", count_word(twin)),
        ),
        (
            "docs/kernels.md",
            format!("({} kernels x {} types", KERNELS.len(), MEMTYPES.len()),
        ),
        (
            "docs/host.md",
            format!("the {} verdicts", count_word(VERDICTS.len())),
        ),
        (
            "docs/bringup.md",
            format!("the {} memory types", count_word(MEMTYPES.len())),
        ),
    ];
    let root = common::root();
    let mut wrong = Vec::new();
    for (doc, claim) in &claims {
        let text = std::fs::read_to_string(root.join(doc)).unwrap();
        // Line breaks in the prose are spaces to the reader.
        let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
        if !text.contains(claim.as_str()) {
            wrong.push(format!("{doc} should say \"{claim}\""));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(count_word(17), "seventeen");
    assert_eq!(count_word(22), "22");
}

/// docs/kernels.md's table of the kernels on 32-bit Arm (between its `a32` markers) is what
/// core's A32 column renders (`MAIRBENCH_BLESS=1` rewrites it).
#[test]
fn the_a32_kernels_table_is_cores() {
    let mut table = String::new();
    mairbench_core::kernel::armv7::write_markdown(&mut table).unwrap();
    let path = common::root().join("docs/kernels.md");
    let text = std::fs::read_to_string(&path).unwrap();
    let (begin, end) = ("<!-- a32:begin -->\n", "<!-- a32:end -->\n");
    let (head, rest) = text.split_once(begin).expect("the begin marker");
    let (generated, tail) = rest.split_once(end).expect("the end marker");
    if std::env::var_os("MAIRBENCH_BLESS").is_some() {
        std::fs::write(&path, format!("{head}{begin}{table}{end}{tail}")).unwrap();
    } else {
        assert!(
            generated == table,
            "docs/kernels.md is out of date with core's kernel::armv7::A32: regenerate it with\n  \
             MAIRBENCH_BLESS=1 cargo host-test -p mairbench-host --test boot the_a32_kernels_table_is_cores"
        );
    }
}
