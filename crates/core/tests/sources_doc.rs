//! `docs/twin-sources.md`'s table of the Linux twin's sources (between its markers) is what
//! `source::write_markdown` renders from the one source table (`MAIRBENCH_BLESS=1` rewrites
//! it).

mod generated;

use mairbench_core::source;

#[test]
fn twin_sources_md_holds_the_source_table() {
    let mut table = String::new();
    source::write_markdown(&mut table).unwrap();
    let head = generated::check(
        "docs/twin-sources.md",
        "sources",
        &table,
        "crates/core/src/source.rs",
        "sources_doc",
    );
    assert!(head.starts_with("# Linux twin: sources\n"));
}
