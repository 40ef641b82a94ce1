//! One check for every document that holds a table generated from core: the part between
//! `<!-- NAME:begin -->` and `<!-- NAME:end -->` must be what core renders, and
//! `MAIRBENCH_BLESS=1` rewrites it.

use std::path::{Path, PathBuf};

/// Checks that `doc` (a path from the repository root) holds `table` between the `name`
/// markers, or with `MAIRBENCH_BLESS` set writes it there; `source` is the file the table
/// comes from and `test` the test binary that rewrites it, for the message. Returns the text
/// before the markers, for a test's checks of its prose.
pub fn check(doc: &str, name: &str, table: &str, source: &str, test: &str) -> String {
    let path = repo_path(doc);
    let text = read(doc);
    let (begin, end) = (
        format!("<!-- {name}:begin -->\n"),
        format!("<!-- {name}:end -->\n"),
    );
    let (head, rest) = text.split_once(&begin).expect("the begin marker");
    let (generated, tail) = rest.split_once(&end).expect("the end marker");
    if std::env::var_os("MAIRBENCH_BLESS").is_some() {
        std::fs::write(&path, format!("{head}{begin}{table}{end}{tail}")).unwrap();
    } else {
        assert!(
            generated == table,
            "{doc} is out of date with {source}: regenerate it with\n  \
             MAIRBENCH_BLESS=1 cargo test -p mairbench-core --target host-tuple --test {test}"
        );
    }
    head.to_owned()
}

/// A file of the repository (`name` from its root).
fn repo_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(name)
}

/// The text of a file of the repository (`name` from its root); panics naming it.
pub fn read(name: &str) -> String {
    std::fs::read_to_string(repo_path(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}
