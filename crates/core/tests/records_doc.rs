//! `docs/records.md` documents exactly the schema table: its generated part (between the
//! markers) is what `schema::write_markdown` renders. `MAIRBENCH_BLESS=1` rewrites it.

mod generated;

use mairbench_core::schema;

#[test]
fn records_md_matches_the_schema() {
    let mut tables = String::new();
    schema::write_markdown(&mut tables).unwrap();
    let head = generated::check(
        "docs/records.md",
        "records",
        &tables,
        "crates/core/src/schema.rs",
        "records_doc",
    );
    // The prose states the current version.
    assert!(
        head.contains(&format!("`schema::VERSION`, now {}", schema::VERSION)),
        "the version rule names another version"
    );
}
