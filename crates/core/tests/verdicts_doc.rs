//! The verdict table in the docs: `docs/bringup.md`'s generated part (between the markers) is
//! what `verdict::write_markdown` renders (`MAIRBENCH_BLESS=1` rewrites it), and
//! `docs/verdicts.md` names every verdict, one line each.

mod generated;

use mairbench_core::verdict::{self, VERDICTS};

#[test]
fn bringup_md_holds_the_verdict_table() {
    let mut table = String::new();
    verdict::write_markdown(&mut table).unwrap();
    let head = generated::check(
        "docs/bringup.md",
        "verdicts",
        &table,
        "crates/core/src/verdict/",
        "verdicts_doc",
    );
    assert!(head.contains("\n## Verdicts\n"));
}

#[test]
fn verdicts_md_names_every_verdict() {
    let text = generated::read("docs/verdicts.md");
    let section = text
        .strip_prefix("# Verdicts\n")
        .expect("docs/verdicts.md starts with its title");
    let section = section.split("\n## ").next().unwrap();
    assert!(section.contains("(bringup.md#verdicts)"));
    let listed: Vec<&str> = section
        .lines()
        .filter_map(|l| l.strip_prefix("- `"))
        .filter_map(|l| l.split_once("`: "))
        .map(|(name, _)| name)
        .collect();
    let table: Vec<&str> = VERDICTS.iter().map(|v| v.id).collect();
    assert_eq!(
        listed, table,
        "docs/verdicts.md's list vs the verdict table"
    );
}
