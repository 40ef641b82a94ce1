//! The host tool's layers (docs/extending.md, "Layers of the host tool"), checked on its
//! sources: every `use` and every `crate::`, `super::` and `self::` path of `host/src` (tests
//! included) names a module of its own layer or of a layer below; no two modules use each
//! other, however indirectly; no file is over 800 lines with its tests (600 without), nothing
//! follows a file's `mod tests`; `main.rs` is at most 300 lines, and each command of its
//! `Cmd` has its module under `command/`; no function is over 80 lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The layers, lowest first, and the layers each may use (its own included).
const LAYERS: [(&str, &[&str]); 6] = [
    ("read", &["read"]),
    ("link", &["read", "link"]),
    ("analyse", &["read", "analyse"]),
    ("draw", &["read", "analyse", "draw"]),
    ("write", &["read", "analyse", "draw", "write"]),
    (
        "command",
        &["read", "link", "analyse", "draw", "write", "command"],
    ),
];

/// What `main.rs` (the command line) may use.
const CLI_USES: &[&str] = &["command"];

const MAX_LINES: usize = 800;
const MAX_CODE_LINES: usize = 600;
const MAX_MAIN_LINES: usize = 300;
const MAX_FN_LINES: usize = 80;

/// One source file: its module path (`read::log::parse`; `crate` for lib.rs, `main` for the
/// binary), its path, and its text.
struct File {
    module: String,
    path: PathBuf,
    text: String,
}

fn sources(dir: &Path) -> Vec<File> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let mut entries: Vec<PathBuf> = std::fs::read_dir(&d)
            .unwrap_or_else(|e| panic!("{}: {e}", d.display()))
            .map(|e| e.unwrap().path())
            .collect();
        entries.sort();
        for p in entries {
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                let rel = p.strip_prefix(dir).unwrap();
                let mut parts: Vec<String> = rel
                    .with_extension("")
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                if parts.last().is_some_and(|l| l == "mod") {
                    parts.pop();
                }
                let module = match parts.join("::").as_str() {
                    "lib" => "crate".to_string(),
                    m => m.to_string(),
                };
                let text = std::fs::read_to_string(&p).unwrap();
                out.push(File {
                    module,
                    path: p,
                    text,
                });
            }
        }
    }
    out.sort_by(|a, b| a.module.cmp(&b.module));
    out
}

/// `text` with comments removed and string and character literals emptied, lines kept.
fn code_only(text: &str) -> String {
    let c: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < c.len() {
        let next = c.get(i + 1).copied();
        if c[i] == '/' && next == Some('/') {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if c[i] == '/' && next == Some('*') {
            i += 2;
            while i + 1 < c.len() && !(c[i] == '*' && c[i + 1] == '/') {
                if c[i] == '\n' {
                    out.push('\n');
                }
                i += 1;
            }
            i += 2;
        } else if let Some(end) = raw_string_end(&c, i) {
            out.push_str("\"\"");
            out.extend(c[i..end].iter().filter(|&&x| x == '\n'));
            i = end;
        } else if c[i] == '"' {
            i += 1;
            while i < c.len() && c[i] != '"' {
                if c[i] == '\\' {
                    i += 1;
                }
                if c.get(i) == Some(&'\n') {
                    out.push('\n');
                }
                i += 1;
            }
            out.push_str("\"\"");
            i += 1;
        } else if c[i] == '\'' && char_literal_end(&c, i).is_some() {
            out.push_str("' '");
            i = char_literal_end(&c, i).unwrap();
        } else {
            out.push(c[i]);
            i += 1;
        }
    }
    out
}

/// Where a raw string (`r"…"`, `r#"…"#`, `br#"…"#`) starting at `i` ends, if one does.
fn raw_string_end(c: &[char], i: usize) -> Option<usize> {
    let ident = |k: usize| k > 0 && (c[k - 1].is_alphanumeric() || c[k - 1] == '_');
    let mut k = i;
    if c[k] == 'b' && c.get(k + 1) == Some(&'r') {
        k += 1;
    }
    if c[k] != 'r' || ident(i) {
        return None;
    }
    let mut hashes = 0;
    k += 1;
    while c.get(k) == Some(&'#') {
        hashes += 1;
        k += 1;
    }
    if c.get(k) != Some(&'"') {
        return None;
    }
    k += 1;
    while k < c.len() {
        if c[k] == '"' && (0..hashes).all(|h| c.get(k + 1 + h) == Some(&'#')) {
            return Some(k + 1 + hashes);
        }
        k += 1;
    }
    Some(c.len())
}

/// Where a character literal starting at `i` ends, if it is one (not a lifetime).
fn char_literal_end(c: &[char], i: usize) -> Option<usize> {
    match (c.get(i + 1), c.get(i + 2)) {
        (Some('\\'), _) => (i + 3..c.len().min(i + 12))
            .find(|&k| c[k] == '\'')
            .map(|k| k + 1),
        (Some(_), Some('\'')) => Some(i + 3),
        _ => None,
    }
}

/// The paths a `use` tree names, expanded (`a::{b, c::d}` gives `a::b` and `a::c::d`;
/// `self` in a group is the group's prefix).
fn expand(prefix: &[String], tree: &str, out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    if tree.is_empty() {
        return;
    }
    if let Some(open) = tree.find('{') {
        let head: Vec<String> = split_path(&tree[..open]);
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let base: Vec<String> = prefix.iter().cloned().chain(head).collect();
        let mut depth = 0;
        let mut start = 0;
        for (k, ch) in inner.char_indices() {
            match ch {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand(&base, &inner[start..k], out);
                    start = k + 1;
                }
                _ => {}
            }
        }
        expand(&base, &inner[start..], out);
        return;
    }
    let path = tree.split(" as ").next().unwrap_or(tree);
    let mut full: Vec<String> = prefix.to_vec();
    for seg in split_path(path) {
        if seg != "self" || full.is_empty() {
            full.push(seg);
        }
    }
    out.push(full);
}

fn split_path(s: &str) -> Vec<String> {
    s.split("::")
        .map(|x| x.trim().to_string())
        .filter(|x| !x.is_empty() && x != "*")
        .collect()
}

/// Every module path `code` names: its `use` trees, and the `crate::`, `super::`, `self::`
/// (and, for the binary, `mairbench_host::`) paths elsewhere; each with its line and whether
/// it is in the file's tests.
fn named_paths(code: &str, tests_from: Option<usize>) -> Vec<(usize, bool, Vec<String>)> {
    let mut out = Vec::new();
    let line_of = |at: usize| code[..at].matches('\n').count() + 1;
    let in_tests = |line: usize| tests_from.is_some_and(|t| line >= t);
    let bytes = code.as_bytes();
    let word_start = |at: usize| {
        at == 0
            || !(bytes[at - 1].is_ascii_alphanumeric()
                || bytes[at - 1] == b'_'
                || bytes[at - 1] == b':')
    };
    let mut uses: Vec<(usize, usize)> = Vec::new();
    let mut from = 0;
    while let Some(k) = code[from..].find("use ") {
        let at = from + k;
        from = at + 4;
        if !word_start(at) {
            continue;
        }
        let end = at + code[at..].find(';').unwrap_or(code.len() - at);
        let mut trees = Vec::new();
        expand(&[], &code[at + 4..end], &mut trees);
        let line = line_of(at);
        for t in trees {
            out.push((line, in_tests(line), t));
        }
        uses.push((at, end));
    }
    for root in ["crate::", "super::", "self::", "mairbench_host::"] {
        let mut from = 0;
        while let Some(k) = code[from..].find(root) {
            let at = from + k;
            from = at + root.len();
            if !word_start(at) || uses.iter().any(|&(a, e)| at > a && at < e) {
                continue;
            }
            let len = code[at..]
                .find(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == ':'))
                .unwrap_or(code.len() - at);
            let line = line_of(at);
            out.push((line, in_tests(line), split_path(&code[at..at + len])));
        }
    }
    out
}

/// The line of a file's `mod tests` (its `#[cfg(test)]`), if it has one.
fn tests_line(text: &str) -> Option<usize> {
    let lines: Vec<&str> = text.lines().collect();
    (1..lines.len()).find(|&i| {
        lines[i].trim_start().starts_with("mod tests") && lines[i - 1].trim() == "#[cfg(test)]"
    })
}

/// The module `path` (as written in `file`, at a line in its tests or not) names, among
/// `modules`: the longest prefix of it that is one, after `crate`, `super`, `self` and a
/// child's name are resolved; `None` for another crate's path.
fn resolve(
    file: &File,
    path: &[String],
    in_tests: bool,
    modules: &BTreeSet<String>,
) -> Option<String> {
    let own: Vec<String> = match file.module.as_str() {
        "crate" | "main" => Vec::new(),
        m => m.split("::").map(str::to_string).collect(),
    };
    // `self` and `super` at the path's first segment: in a file's tests (its inline
    // `mod tests`), the file's module is `super`.
    let (this, parent) = if in_tests {
        let mut this = own.clone();
        this.push("tests".into());
        (this, own.clone())
    } else {
        (own.clone(), own[..own.len().saturating_sub(1)].to_vec())
    };
    let mut segs: Vec<String> = path.to_vec();
    let mut base: Vec<String> = match segs.first().map(String::as_str) {
        Some("crate") => {
            segs.remove(0);
            Vec::new()
        }
        Some("mairbench_host") if file.module == "main" => {
            segs.remove(0);
            Vec::new()
        }
        Some("self") => {
            segs.remove(0);
            this.clone()
        }
        Some("super") => {
            segs.remove(0);
            let mut b = parent.clone();
            while segs.first().is_some_and(|s| s == "super") {
                segs.remove(0);
                b.pop();
            }
            b
        }
        Some(first) => {
            let child = this
                .iter()
                .cloned()
                .chain([first.to_string()])
                .collect::<Vec<_>>()
                .join("::");
            if file.module != "main" && modules.contains(&child) {
                this.clone()
            } else {
                return None;
            }
        }
        None => return None,
    };
    let mut found = if base.is_empty() {
        "crate".to_string()
    } else {
        base.join("::")
    };
    for seg in segs {
        base.push(seg);
        let m = base.join("::");
        if modules.contains(&m) {
            found = m;
        } else {
            break;
        }
    }
    Some(found)
}

fn layer_of(module: &str) -> &str {
    module.split("::").next().unwrap_or(module)
}

/// Every problem of the sources under `dir`, one sentence each, and the modules each module
/// uses.
fn check(dir: &Path) -> (Vec<String>, BTreeMap<String, BTreeSet<String>>) {
    let files = sources(dir);
    let modules: BTreeSet<String> = files.iter().map(|f| f.module.clone()).collect();
    let mut out = Vec::new();
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for f in &files {
        let name = f.path.strip_prefix(dir).unwrap().display().to_string();
        out.extend(size_problems(f, &name));
        let code = code_only(&f.text);
        let layer = layer_of(&f.module);
        let allowed: Option<&[&str]> = match layer {
            "crate" => None,
            "main" => Some(CLI_USES),
            l => match LAYERS.iter().find(|(n, _)| *n == l) {
                Some((_, a)) => Some(a),
                None => {
                    out.push(format!("{name}: module {} is in no layer", f.module));
                    Some(&[])
                }
            },
        };
        for (line, in_tests, path) in named_paths(&code, tests_line(&f.text)) {
            let Some(target) = resolve(f, &path, in_tests, &modules) else {
                continue;
            };
            if target == f.module {
                continue;
            }
            // One sentence per module used, at its first line.
            let new = edges
                .entry(f.module.clone())
                .or_default()
                .insert(target.clone());
            if let Some(allowed) = allowed.filter(|_| new) {
                if !allowed.contains(&layer_of(&target)) {
                    out.push(format!(
                        "{name}:{line}: {} (layer {layer}) uses {target}, of a layer above it or beside it",
                        f.module
                    ));
                }
            }
        }
    }
    out.extend(cycles(&edges));
    out.extend(command_modules(dir, &modules));
    (out, edges)
}

/// A file's lines, its tests' place, and its functions' lengths.
fn size_problems(f: &File, name: &str) -> Vec<String> {
    let mut out = Vec::new();
    let lines: Vec<&str> = f.text.lines().collect();
    if lines.len() > MAX_LINES {
        out.push(format!("{name}: {} lines, over {MAX_LINES}", lines.len()));
    }
    if let Some(t) = tests_line(&f.text) {
        let code = t - 1;
        if code > MAX_CODE_LINES {
            out.push(format!(
                "{name}: {code} lines before its tests, over {MAX_CODE_LINES}"
            ));
        }
        let close = (t..lines.len()).find(|&i| lines[i] == "}");
        let after = close.map_or(0, |c| {
            lines[c + 1..]
                .iter()
                .filter(|l| !l.trim().is_empty())
                .count()
        });
        if after > 0 {
            out.push(format!(
                "{name}: {after} lines of code after its `mod tests`"
            ));
        }
    } else if lines.len() > MAX_CODE_LINES {
        out.push(format!(
            "{name}: {} lines without tests, over {MAX_CODE_LINES}",
            lines.len()
        ));
    }
    if f.module == "main" && lines.len() > MAX_MAIN_LINES {
        out.push(format!(
            "{name}: {} lines, over {MAX_MAIN_LINES}",
            lines.len()
        ));
    }
    for (at, name_of_fn, len) in functions(&lines) {
        if len > MAX_FN_LINES {
            out.push(format!(
                "{name}:{at}: fn {name_of_fn} is {len} lines, over {MAX_FN_LINES}"
            ));
        }
    }
    out
}

/// Each function of `lines` (formatted by rustfmt) with a body: its line, its name and its
/// length, from its `fn` line to the brace that closes it at the same indentation.
fn functions(lines: &[&str]) -> Vec<(usize, String, usize)> {
    const STARTS: [&str; 6] = [
        "fn ",
        "pub fn ",
        "pub(crate) fn ",
        "pub(super) fn ",
        "const fn ",
        "pub const fn ",
    ];
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        let indent = &l[..l.len() - t.len()];
        let Some(rest) = STARTS.iter().find_map(|p| t.strip_prefix(p)) else {
            continue;
        };
        let name: String = rest
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        // The signature ends at the first line ending with `{` (a body) or `;` (none).
        let Some(open) = (i..lines.len()).find(|&j| {
            let e = lines[j].trim_end();
            e.ends_with('{') || e.ends_with(';') || (j == i && e.ends_with('}'))
        }) else {
            continue;
        };
        if !lines[open].trim_end().ends_with('{') {
            continue;
        }
        let close = format!("{indent}}}");
        if let Some(end) = (open + 1..lines.len()).find(|&j| lines[j] == close) {
            out.push((i + 1, name, end - i + 1));
        }
    }
    out
}

/// The circles among the modules' uses, one sentence each: for each use, the shortest way
/// back (two modules that use each other are the shortest circle).
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut out = Vec::new();
    let mut seen: BTreeSet<Vec<&str>> = BTreeSet::new();
    for (from, tos) in edges {
        for to in tos {
            let Some(back) = shortest(edges, to, from) else {
                continue;
            };
            let mut circle: Vec<&str> = vec![from.as_str()];
            circle.extend(back);
            let mut key = circle[..circle.len() - 1].to_vec();
            key.sort_unstable();
            if seen.insert(key) {
                out.push(format!("a circle: {}", circle.join(" -> ")));
            }
        }
    }
    out
}

/// The shortest way from `from` to `to` along `edges` (both ends included), breadth first.
fn shortest<'a>(
    edges: &'a BTreeMap<String, BTreeSet<String>>,
    from: &'a str,
    to: &str,
) -> Option<Vec<&'a str>> {
    let mut prev: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([from]);
    while let Some(m) = queue.pop_front() {
        if m == to {
            let mut way = vec![m];
            let mut at = m;
            while at != from {
                at = prev[at];
                way.push(at);
            }
            way.reverse();
            return Some(way);
        }
        for n in edges.get(m).into_iter().flatten() {
            if n != from && !prev.contains_key(n.as_str()) {
                prev.insert(n, m);
                queue.push_back(n);
            }
        }
    }
    None
}

/// Each command of `main.rs`'s `Cmd` needs its module `command::<name>`.
fn command_modules(dir: &Path, modules: &BTreeSet<String>) -> Vec<String> {
    let main = std::fs::read_to_string(dir.join("main.rs")).unwrap_or_default();
    let Some(at) = main.find("enum Cmd {") else {
        return vec!["main.rs: no `enum Cmd`".into()];
    };
    let body = &main[at..];
    let body = &body[..body.find("\n}\n").unwrap_or(body.len())];
    let mut out = Vec::new();
    for l in body.lines().skip(1) {
        let Some(t) = l.strip_prefix("    ") else {
            continue;
        };
        if !t.starts_with(|c: char| c.is_ascii_uppercase()) {
            continue;
        }
        let name: String = t.chars().take_while(|c| c.is_alphanumeric()).collect();
        let module = format!("command::{}", name.to_lowercase());
        if !modules.contains(&module) {
            out.push(format!("command {name}: no module {module}"));
        }
    }
    out
}

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn every_arrow_points_down_and_no_file_is_too_long() {
    let (problems, uses) = check(&src());
    assert!(
        problems.is_empty(),
        "{} problems:\n{}",
        problems.len(),
        problems.join("\n")
    );
    // The scan sees the arrows there are.
    for (from, to) in [
        ("draw::compare", "analyse::compare"),
        ("write::report", "draw"),
        ("command::console", "link::console"),
        ("analyse::report::tables", "analyse::report::twin"),
        ("read::log::parse", "read::model"),
    ] {
        assert!(
            uses.get(from).is_some_and(|u| u.contains(to)),
            "{from} -> {to}: {uses:#?}"
        );
    }
}

#[test]
fn the_checks_see_what_they_look_for() {
    let dir = std::env::temp_dir().join(format!("mairbench-layers-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for d in ["read", "analyse", "draw", "command"] {
        std::fs::create_dir_all(dir.join(d)).unwrap();
    }
    let write = |p: &str, text: &str| std::fs::write(dir.join(p), text).unwrap();
    write(
        "lib.rs",
        "pub mod read;\npub mod analyse;\npub mod draw;\npub mod command;\n",
    );
    write("main.rs", "enum Cmd {\n    Report,\n    Why,\n}\n");
    write("command/mod.rs", "pub mod report;\n");
    write("command/report.rs", "use crate::analyse::a;\n");
    write("read/mod.rs", "pub mod m;\n");
    // An arrow back up, hidden in a path inside a function; a string and a comment that
    // name a module are no use.
    write(
        "read/m.rs",
        "// crate::draw::x\nfn f() -> &'static str {\n    crate::analyse::a::g();\n    \"crate::draw\"\n}\n",
    );
    write("analyse/mod.rs", "pub mod a;\npub mod b;\n");
    // Two modules that use each other.
    write("analyse/a.rs", "use super::b::h;\npub fn g() {}\n");
    let long: String = (0..90).map(|_| "    let _ = 1;\n").collect();
    write(
        "analyse/b.rs",
        &format!("use super::a::g;\npub fn h() {{\n{long}}}\n\n#[cfg(test)]\nmod tests {{\n}}\n\nfn after() {{}}\n"),
    );
    write("draw/mod.rs", "");
    let (p, _) = check(&dir);
    let has = |s: &str| p.iter().any(|x| x.contains(s));
    assert!(has("read::m (layer read) uses analyse::a"), "{p:#?}");
    assert!(!has("uses draw"), "{p:#?}");
    assert!(
        has("a circle: analyse::a -> analyse::b -> analyse::a"),
        "{p:#?}"
    );
    assert!(has("fn h is 92 lines"), "{p:#?}");
    assert!(has("code after its `mod tests`"), "{p:#?}");
    assert!(has("command Why: no module command::why"), "{p:#?}");
    assert_eq!(p.len(), 5, "{p:#?}");
    let _ = std::fs::remove_dir_all(&dir);
}
