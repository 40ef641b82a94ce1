//! The settings table of `docs/runner.md` (between its `settings` markers) is what
//! `settings::write_markdown` renders from the one table of settings (`MAIRBENCH_BLESS=1`
//! rewrites it), and the table names exactly the `MAIRBENCH_*` variables the runner reads
//! (`qemu/deps` reads `MAIRBENCH_INSTALL`).

use mairbench_runner::settings::{self, SETTINGS};
use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn repo(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(name)
}

fn read(name: &str) -> String {
    std::fs::read_to_string(repo(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

#[test]
fn runner_md_holds_the_settings_table() {
    let mut table = String::new();
    settings::write_markdown(&mut table);
    let text = read("docs/runner.md");
    let (begin, end) = ("<!-- settings:begin -->\n", "<!-- settings:end -->\n");
    let (head, rest) = text.split_once(begin).expect("the begin marker");
    let (generated, tail) = rest.split_once(end).expect("the end marker");
    if std::env::var_os("MAIRBENCH_BLESS").is_some() {
        std::fs::write(
            repo("docs/runner.md"),
            format!("{head}{begin}{table}{end}{tail}"),
        )
        .unwrap();
    } else {
        assert!(
            generated == table,
            "docs/runner.md is out of date with runner/src/settings.rs: regenerate it with\n  \
             MAIRBENCH_BLESS=1 cargo test -p mairbench-runner --target host-tuple --test settings_doc"
        );
    }
    assert!(head.contains("\n## Settings\n"));
}

/// The `MAIRBENCH_*` names in a text (a name ends at the first character that is not an
/// upper-case letter, a digit or `_`; `MAIRBENCH_*` itself is no name).
fn names_in(text: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut rest = text;
    while let Some(at) = rest.find("MAIRBENCH_") {
        let tail = &rest[at..];
        let len = tail
            .find(|c: char| !(c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_'))
            .unwrap_or(tail.len());
        let name = tail[..len].trim_end_matches('_');
        if name.len() > "MAIRBENCH".len() {
            names.insert(name.to_string());
        }
        rest = &tail[len..];
    }
    names
}

/// The runner's sources but the table itself.
fn runner_sources() -> String {
    let mut text = String::new();
    for entry in std::fs::read_dir(repo("runner/src")).unwrap() {
        let path = entry.unwrap().path();
        if path.file_name().is_some_and(|n| n != "settings.rs") {
            text.push_str(&std::fs::read_to_string(&path).unwrap_or_default());
        }
    }
    text
}

#[test]
fn the_table_names_every_setting_the_runner_reads_and_no_other() {
    let table: BTreeSet<String> = SETTINGS.iter().map(|s| s.name.to_owned()).collect();
    let read_by_runner = names_in(&runner_sources());
    let read_by_deps = names_in(&read("qemu/deps"));
    let lacking: Vec<_> = read_by_runner.difference(&table).collect();
    assert!(
        lacking.is_empty(),
        "the runner reads {lacking:?}, which the settings table lacks"
    );
    let unread: Vec<_> = table
        .iter()
        .filter(|n| !read_by_runner.contains(*n) && !read_by_deps.contains(*n))
        .collect();
    assert!(
        unread.is_empty(),
        "the settings table has {unread:?}, which neither the runner nor qemu/deps reads"
    );
    // The scan finds names, not the pattern itself.
    assert_eq!(
        names_in("a=${MAIRBENCH_A:-1} # MAIRBENCH_* settings, MAIRBENCH_B_PORT."),
        BTreeSet::from(["MAIRBENCH_A".to_owned(), "MAIRBENCH_B_PORT".to_owned()])
    );
}
