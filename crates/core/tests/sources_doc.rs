//! The README's table of the Linux twin's sources (between its markers) is what
//! `source::write_markdown` renders from the one source table (`MAIRBENCH_BLESS=1` rewrites
//! it).

mod generated;

use mairbench_core::source;

#[test]
fn readme_holds_the_source_table() {
    let mut table = String::new();
    source::write_markdown(&mut table).unwrap();
    let head = generated::check(
        "README.md",
        "sources",
        &table,
        "crates/core/src/source.rs",
        "sources_doc",
    );
    assert!(head.contains("\n## Linux twin (mairbench-linux)\n"));
}
