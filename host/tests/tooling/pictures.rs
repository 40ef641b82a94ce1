//! Every picture of the documentation is a chart `cargo host report` draws from a log kept in
//! `host/tests/data/`: this test runs that command again and fails when a committed picture
//! differs from what it writes, byte for byte, so no picture can go stale. It also fails when
//! the documentation shows a picture this table does not name, or `docs/img/` holds one.
//!
//! `MAIRBENCH_BLESS=1` writes the pictures instead (after a change to the charts, look at them
//! before committing). By hand, for each row of [`PICTURES`]:
//! `cargo host report host/tests/data/LOG --out DIR` and copy `DIR/CHART` to the picture.

use crate::common;

use crate::common::tool::{self, data};
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

/// Each picture: the log it comes from (in `host/tests/data/`), the chart of
/// `cargo host report LOG --out DIR` it is, and its path in the repository.
const PICTURES: [(&str, &str, &str); 3] = [
    (
        "qemu10-firmware-docs.log",
        "read-ldp-write-stp.svg",
        "docs/img/qemu-bandwidth.svg",
    ),
    (
        "qemu10-firmware-docs.log",
        "latency.svg",
        "docs/img/qemu-latency.svg",
    ),
    (
        "qemu10-linux-4k-64k.log",
        "read-ldp-write-stp.svg",
        "docs/img/twin-bandwidth.svg",
    ),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn pictures_are_rendered_from_kept_logs() {
    let bless = std::env::var_os("MAIRBENCH_BLESS").is_some();
    let mut stale = Vec::new();
    let mut logs: Vec<&str> = PICTURES.iter().map(|p| p.0).collect();
    logs.dedup();
    for log in logs {
        let d = tool::run(
            "pictures",
            &[OsStr::new("report"), data(log).as_os_str()],
            log,
        );
        assert_eq!(d.code, Some(0), "{log}:\n{}\n{}", d.stdout, d.stderr);
        for (_, chart, picture) in PICTURES.iter().filter(|p| p.0 == log) {
            let drawn = d.file(chart);
            let path = root().join(picture);
            if bless {
                std::fs::write(&path, &drawn).unwrap();
                continue;
            }
            let kept = std::fs::read_to_string(&path).unwrap_or_default();
            if kept != drawn {
                stale.push(format!(
                    "{picture} is not what `cargo host report host/tests/data/{log} --out DIR` \
                     draws as DIR/{chart}"
                ));
            }
        }
        let _ = std::fs::remove_dir_all(&d.out);
    }
    assert!(
        stale.is_empty(),
        "{}\n(MAIRBENCH_BLESS=1 rewrites them; look at them before committing)",
        stale.join("\n")
    );
}

/// The targets of the Markdown images of `text` (`![alt](target)`).
fn images(text: &str) -> Vec<&str> {
    text.split("![")
        .skip(1)
        .filter_map(|rest| {
            let rest = &rest[rest.find("](")? + 2..];
            Some(&rest[..rest.find(')')?])
        })
        .collect()
}

/// A picture's path from the repository root, as `doc` (a path from the root) names it
/// relative to its own directory.
fn from_root(doc: &str, image: &str) -> String {
    let mut parts: Vec<&str> = doc.split('/').collect();
    parts.pop();
    for part in image.split('/') {
        match part {
            "." => {}
            ".." => {
                parts.pop();
            }
            _ => parts.push(part),
        }
    }
    parts.join("/")
}

#[test]
fn every_picture_is_in_the_table() {
    let known: Vec<&str> = PICTURES.iter().map(|p| p.2).collect();
    let mut shown_anywhere = Vec::new();
    // README.md and docs/**/*.md, each naming pictures relative to its own directory.
    for doc in common::docs() {
        let text = std::fs::read_to_string(root().join(&doc)).unwrap();
        for image in images(&text) {
            let image = from_root(&doc, image);
            assert!(
                known.contains(&image.as_str()),
                "{doc} shows {image}, which no row of PICTURES renders"
            );
            shown_anywhere.push(image);
        }
    }
    for picture in &known {
        assert!(
            shown_anywhere.iter().any(|s| s == picture),
            "{picture} is rendered but no document shows it"
        );
    }
    for entry in std::fs::read_dir(root().join("docs/img")).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let path = format!("docs/img/{name}");
        assert!(
            known.contains(&path.as_str()),
            "{path} is kept but no row of PICTURES renders it"
        );
    }
    assert_eq!(
        images("a ![x](docs/img/a.svg) b ![y](b.png)"),
        ["docs/img/a.svg", "b.png"]
    );
    assert_eq!(from_root("docs/host.md", "img/a.svg"), "docs/img/a.svg");
    assert_eq!(from_root("README.md", "docs/img/a.svg"), "docs/img/a.svg");
    assert_eq!(from_root("docs/b/c.md", "../img/a.svg"), "docs/img/a.svg");
}
