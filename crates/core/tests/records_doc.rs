//! `docs/records.md` documents exactly the schema table: its generated part (between the
//! markers) is what `schema::write_markdown` renders. `MAIRBENCH_BLESS=1` rewrites it.

use mairbench_core::schema;
use std::path::Path;

const BEGIN: &str = "<!-- records:begin -->\n";
const END: &str = "<!-- records:end -->\n";

#[test]
fn records_md_matches_the_schema() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/records.md");
    let doc = std::fs::read_to_string(&path).expect("docs/records.md");
    let (head, rest) = doc.split_once(BEGIN).expect("the begin marker");
    let (generated, tail) = rest.split_once(END).expect("the end marker");
    let mut tables = String::new();
    schema::write_markdown(&mut tables).unwrap();
    if std::env::var_os("MAIRBENCH_BLESS").is_some() {
        std::fs::write(&path, format!("{head}{BEGIN}{tables}{END}{tail}")).unwrap();
        return;
    }
    assert!(
        generated == tables,
        "docs/records.md is out of date with crates/core/src/schema.rs: regenerate it with\n  \
         MAIRBENCH_BLESS=1 cargo test -p mairbench-core --target host-tuple --test records_doc"
    );
    // The prose states the current version.
    assert!(
        head.contains(&format!("`schema::VERSION`, now {}", schema::VERSION)),
        "the version rule names another version"
    );
}
