//! The figures the documentation quotes come from logs kept in `host/tests/data/`, and are
//! checked against them on every test run: a table of measurements in a document is written
//! between two markers that name its log,
//!
//! ```text
//! <!-- figures: qemu10-quick.log read-ldp -->
//! | memory type | 4 KiB | 256 KiB | 4 MiB | vs wb |
//! ...
//! <!-- /figures -->
//! ```
//!
//! and must be what this test renders from that log: per memory type the kernel's best value
//! at each size (MB/s whole, ns to two decimals, as `cargo host report` prints them) and its
//! ratio to `normal-wb` at the largest size both were measured at. A summary of several runs
//! is written between `<!-- figures-runs: LABEL=LOG ... KERNEL SIZE SIZE -->` markers: a row
//! per run with the range of the Normal types, of the Device types and `normal-nc`'s own value
//! at the two sizes. `MAIRBENCH_BLESS=1` rewrites both kinds from the logs.
//!
//! The prose around them quotes ranges of ratios; [`the_prose_ratios_hold_in_their_logs`]
//! checks those in the same logs, within the tolerance the prose states.

use crate::common;

use mairbench_core::memtype::{Role, MEMTYPES};
use mairbench_host::analyse::report::ratio_to_baseline;
use mairbench_host::read::model::Run;
use mairbench_host::read::text::{size_label, value_label};
use std::path::{Path, PathBuf};

/// The documents whose figures are checked: all of them (`README.md` and `docs/**/*.md`).
fn files() -> Vec<String> {
    common::docs()
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The run of a kept log (a name under `host/tests/data/`).
fn kept(log: &str) -> Run {
    let path = root().join("host/tests/data").join(log);
    let bytes = std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let parsed = mairbench_host::read::log::parse(&bytes);
    assert!(
        !parsed.run.measurements.is_empty(),
        "{log}: no measurements"
    );
    parsed.run
}

/// The best value of `kernel` on `memtype` (4 KiB pages) at `size`.
fn best(run: &Run, kernel: &str, memtype: &str, size: u64) -> Option<f64> {
    run.measurements
        .iter()
        .rev()
        .find(|m| m.kernel == kernel && m.memtype == memtype && m.size == size && m.granule == "4K")
        .map(|m| m.best)
}

/// A table of one kernel of `log`: memory types (core's table order) by sizes, and vs wb.
fn render_table(log: &str, kernel: &str) -> String {
    let run = kept(log);
    let of: Vec<_> = run
        .measurements
        .iter()
        .filter(|m| m.kernel == kernel && m.granule == "4K")
        .collect();
    assert!(!of.is_empty(), "{log}: no {kernel} on 4 KiB pages");
    let mut sizes: Vec<u64> = of.iter().map(|m| m.size).collect();
    sizes.sort_unstable();
    sizes.dedup();
    let unit = of[0].unit;
    let mut out = String::from("| memory type |");
    for s in &sizes {
        out += &format!(" {} |", size_label(*s));
    }
    out += " vs wb |\n| --- |";
    out += &" --- |".repeat(sizes.len() + 1);
    out += "\n";
    for t in MEMTYPES
        .iter()
        .filter(|t| of.iter().any(|m| m.memtype == t.name))
    {
        out += &format!("| `{}` |", t.name);
        for s in &sizes {
            let v = best(&run, kernel, t.name, *s).map_or("-".into(), |v| value_label(unit, v));
            out += &format!(" {v} |");
        }
        let ratio =
            ratio_to_baseline(&run, kernel, t.name).map_or("-".into(), |(r, _)| format!("{r:.3}x"));
        out += &format!(" {ratio} |\n");
    }
    out
}

/// The memory types of one role family: Normal (every role but Device) or Device.
fn family(device: bool) -> impl Iterator<Item = &'static str> {
    MEMTYPES
        .iter()
        .filter(move |t| (t.role == Role::Device) == device)
        .map(|t| t.name)
}

/// `lo to hi` of `values` as the table prints them (one value alone when they are equal).
fn range(unit: mairbench_host::read::model::Unit, values: &[f64]) -> String {
    let lo = values.iter().copied().fold(f64::INFINITY, f64::min);
    let hi = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = (value_label(unit, lo), value_label(unit, hi));
    if lo == hi {
        lo
    } else {
        format!("{lo} to {hi}")
    }
}

/// A row per run (`label=log`): the range of the Normal types but `normal-nc`, the Device
/// types' range and `normal-nc`'s value (which `mairbench.selftest=bad-attr` maps as Device),
/// each at the two sizes.
fn render_runs(runs: &[(&str, &str)], kernel: &str, sizes: [u64; 2]) -> String {
    let at = size_label(sizes[0]) + " / " + &size_label(sizes[1]);
    let mut out = format!(
        "| run | the other Normal types, {kernel} at {at} | Device types, {kernel} at {at} | `normal-nc`, {kernel} at {at} |\n\
         | --- | --- | --- | --- |\n"
    );
    for (label, log) in runs {
        let run = kept(log);
        let unit = run
            .measurements
            .iter()
            .find(|m| m.kernel == kernel)
            .unwrap_or_else(|| panic!("{log}: no {kernel}"))
            .unit;
        let cell = |types: Vec<&str>| {
            sizes
                .iter()
                .map(|&s| {
                    let v: Vec<f64> = types
                        .iter()
                        .map(|t| {
                            best(&run, kernel, t, s)
                                .unwrap_or_else(|| panic!("{log}: no {kernel} {t} at {s}"))
                        })
                        .collect();
                    range(unit, &v)
                })
                .collect::<Vec<_>>()
                .join(" / ")
                + " "
                + unit.label()
        };
        let _ = std::fmt::Write::write_fmt(
            &mut out,
            format_args!(
                "| {label} | {} | {} | {} |\n",
                cell(family(false).filter(|t| *t != "normal-nc").collect()),
                cell(family(true).collect()),
                cell(vec!["normal-nc"])
            ),
        );
    }
    out
}

/// One marked block of a document: its opening line's words and the text between the markers.
struct Block {
    file: String,
    line: usize,
    kind: &'static str,
    words: Vec<String>,
    body: String,
}

const KINDS: [(&str, &str); 2] = [
    ("<!-- figures:", "<!-- /figures -->"),
    ("<!-- figures-runs:", "<!-- /figures-runs -->"),
];

fn blocks(file: &str, text: &str) -> Vec<Block> {
    let mut out = Vec::new();
    let lines: Vec<&str> = text.lines().collect();
    let mut i = 0;
    while i < lines.len() {
        let found = KINDS.iter().find(|(open, _)| lines[i].starts_with(open));
        if let Some((open, close)) = found {
            let words = lines[i][open.len()..]
                .trim_end()
                .trim_end_matches("-->")
                .split_whitespace()
                .map(str::to_owned)
                .collect();
            let end = (i + 1..lines.len())
                .find(|&j| lines[j] == *close)
                .unwrap_or_else(|| panic!("{file}:{}: no {close}", i + 1));
            let body = lines[i + 1..end].iter().map(|l| format!("{l}\n")).collect();
            out.push(Block {
                file: file.to_owned(),
                line: i + 1,
                kind: open,
                words,
                body,
            });
            i = end;
        }
        i += 1;
    }
    out
}

/// What a block must hold, rendered from its logs.
fn render(b: &Block) -> String {
    let w: Vec<&str> = b.words.iter().map(String::as_str).collect();
    if b.kind == KINDS[0].0 {
        match w[..] {
            [log, kernel] => render_table(log, kernel),
            _ => panic!("{}:{}: want `LOG KERNEL`", b.file, b.line),
        }
    } else {
        let n = w.len();
        assert!(
            n >= 4,
            "{}:{}: want `LABEL=LOG ... KERNEL SIZE SIZE`",
            b.file,
            b.line
        );
        let size = |s: &str| {
            mairbench_core::sweep::parse_range(s)
                .map(|(lo, _)| lo)
                .unwrap_or_else(|| panic!("{}:{}: {s} is no size", b.file, b.line))
        };
        let runs: Vec<(&str, &str)> = w[..n - 3]
            .iter()
            .map(|r| {
                r.rsplit_once('=')
                    .unwrap_or_else(|| panic!("{}:{}: {r} is not LABEL=LOG", b.file, b.line))
            })
            .collect();
        let labels: Vec<(String, &str)> = runs
            .iter()
            .map(|(l, log)| {
                let label = if *l == "plain" {
                    "plain".to_owned()
                } else {
                    format!("`{l}`")
                };
                (label, *log)
            })
            .collect();
        let runs: Vec<(&str, &str)> = labels.iter().map(|(l, log)| (l.as_str(), *log)).collect();
        render_runs(&runs, w[n - 3], [size(w[n - 2]), size(w[n - 1])])
    }
}

#[test]
fn documented_figures_are_their_logs() {
    let bless = std::env::var_os("MAIRBENCH_BLESS").is_some();
    let mut seen = 0;
    for file in files() {
        let file = file.as_str();
        let path = root().join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let mut stale = Vec::new();
        for b in blocks(file, &text) {
            seen += 1;
            let want = render(&b);
            if b.body != want {
                stale.push((b.body.clone(), want, b.line));
            }
        }
        if bless && !stale.is_empty() {
            // Each stale block's body (the lines after its opening marker up to its closing
            // one) replaced, from the last block up so that earlier line numbers hold.
            let mut lines: Vec<String> = text.lines().map(|l| format!("{l}\n")).collect();
            for (old, new, line) in stale.iter().rev() {
                let n = old.lines().count();
                lines.splice(*line..*line + n, [new.clone()]);
            }
            std::fs::write(&path, lines.concat()).unwrap();
        } else if let Some((old, new, line)) = stale.first() {
            panic!(
                "{file}:{line}: the figures are not their log's; rewrite them with\n  \
                 MAIRBENCH_BLESS=1 cargo host-test -p mairbench-host --test figures\n\
                 documented:\n{old}\nthe log:\n{new}"
            );
        }
    }
    assert!(seen >= 3, "only {seen} figure blocks found");
}

/// The ratio of `kernel` on `memtype` to `normal-wb` at `size` in `log`.
fn ratio(log: &Run, kernel: &str, memtype: &str, size: u64) -> f64 {
    let v = best(log, kernel, memtype, size).unwrap();
    v / best(log, kernel, "normal-wb", size).unwrap()
}

/// The ratios the prose around the tables states, in the logs the tables come from.
#[test]
fn the_prose_ratios_hold_in_their_logs() {
    let lab = std::fs::read_to_string(root().join("docs/lab.md")).unwrap();
    let bringup = std::fs::read_to_string(root().join("docs/bringup.md")).unwrap();
    let quick = kept("qemu10-quick.log");
    // lab.md step 2e and bringup.md: under TCG the Device types read and write 0.05x to 0.2x
    // of normal-wb at every size of the quick run.
    assert!(
        lab.contains("between 0.05x and 0.2x of `normal-wb`"),
        "lab.md 2e"
    );
    assert!(
        bringup.contains("between 0.05x and 0.2x `normal-wb`"),
        "bringup.md"
    );
    for kernel in ["read-ldp", "write-stp"] {
        for size in [4 << 10, 256 << 10, 4 << 20] {
            for t in family(true) {
                let r = ratio(&quick, kernel, t, size);
                assert!((0.05..=0.2).contains(&r), "{kernel} {t} {size}: {r:.3}");
            }
        }
    }
    // docs/host.md's note under its pictures, on their log (the same claim).
    let host = std::fs::read_to_string(root().join("docs/host.md")).unwrap();
    assert!(
        host.contains("in this log Device reads and writes run at 0.04 to 0.25 times"),
        "docs/host.md"
    );
    let docs = kept("qemu10-firmware-docs.log");
    for kernel in ["read-ldp", "write-stp"] {
        let sizes: Vec<u64> = docs
            .measurements
            .iter()
            .filter(|m| m.kernel == kernel && m.memtype == "normal-wb")
            .map(|m| m.size)
            .collect();
        assert!(sizes.len() >= 10, "docs log {kernel}: {sizes:?}");
        for &size in &sizes {
            for t in family(true) {
                let r = ratio(&docs, kernel, t, size);
                assert!(
                    (0.04..=0.25).contains(&r),
                    "docs log {kernel} {t} {size}: {r:.3}"
                );
            }
        }
    }
    // Step 2f: under icount every type times alike (the same figure on every row).
    assert!(
        lab.contains("every type reads and writes at the same rate"),
        "lab.md 2f"
    );
    let icount = kept("qemu10-quick-icount.log");
    for kernel in ["read-ldp", "write-stp"] {
        for size in [4 << 10, 256 << 10, 4 << 20] {
            for t in MEMTYPES.iter().map(|t| t.name) {
                let r = ratio(&icount, kernel, t, size);
                assert!((r - 1.0).abs() < 0.001, "icount {kernel} {t} {size}: {r}");
            }
        }
    }
    // Step 2f: with bad-attr, normal-nc reads at the Device rate (0.05x to 0.2x).
    let bad = kept("qemu10-quick-bad-attr.log");
    let r = ratio(&bad, "read-ldp", "normal-nc", 4 << 10);
    assert!((0.05..=0.2).contains(&r), "bad-attr normal-nc: {r:.3}");
}
