//! The README's table of the Linux twin's sources (between its markers) is what
//! `source::write_markdown` renders from the one source table (`MAIRBENCH_BLESS=1` rewrites
//! it).

use mairbench_core::source;
use std::path::Path;

const BEGIN: &str = "<!-- sources:begin -->\n";
const END: &str = "<!-- sources:end -->\n";

#[test]
fn readme_holds_the_source_table() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    let text = std::fs::read_to_string(&path).expect("README.md");
    let (head, rest) = text.split_once(BEGIN).expect("the begin marker");
    let (generated, tail) = rest.split_once(END).expect("the end marker");
    let mut table = String::new();
    source::write_markdown(&mut table).unwrap();
    if std::env::var_os("MAIRBENCH_BLESS").is_some() {
        std::fs::write(&path, format!("{head}{BEGIN}{table}{END}{tail}")).unwrap();
        return;
    }
    assert!(
        generated == table,
        "README.md is out of date with crates/core/src/source.rs: regenerate it with\n  \
         MAIRBENCH_BLESS=1 cargo test -p mairbench-core --target host-tuple --test sources_doc"
    );
    assert!(head.contains("\n## Linux twin (mairbench-linux)\n"));
}
