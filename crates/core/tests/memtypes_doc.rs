//! Core's memory-type table where the documentation restates it: `docs/memory-types.md`'s
//! generated part (between the markers) is what `memtype::write_markdown` renders
//! (`MAIRBENCH_BLESS=1` rewrites it).

mod generated;

use mairbench_core::memtype::{self, MEMTYPES};

#[test]
fn memory_types_md_holds_the_table() {
    let mut table = String::new();
    memtype::write_markdown(&mut table).unwrap();
    generated::check(
        "docs/memory-types.md",
        "memtypes",
        &table,
        "crates/core/src/memtype.rs",
        "memtypes_doc",
    );
    assert_eq!(table.lines().count(), 2 + MEMTYPES.len());
}
