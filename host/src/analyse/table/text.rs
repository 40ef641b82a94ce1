//! The fleet table for the terminal, `fleet.csv` and `fleet.json`.

use super::figures::{devices, named, At, Figure, Key, Row, KEYS};
use crate::read::model::distinct;
use crate::read::text::{csv_row, or_dash};
use mairbench_core::arch::Arch;
use mairbench_core::kernel::Kernel;
use mairbench_core::memtype::{self, armv7::Remap, Role, MEMTYPES};
use mairbench_core::verdict::VERDICTS;
use serde_json::{json, Value};

/// What the emulated column says: `no`, `yes`, or `yes (tcg)`/`kvm` when the log says how.
fn emulated(row: &Row) -> String {
    match (&row.accel, row.emulated) {
        (Some(a), _) if a == "kvm" => "kvm".to_string(),
        (Some(a), true) => format!("yes ({a})"),
        (_, true) => "yes".to_string(),
        (_, false) => "no".to_string(),
    }
}

/// A figure as the table prints it: value and cv.
fn cell(f: &Figure, key: &Key) -> String {
    let places = if key.over.is_some() { 3 } else { 1 };
    let (lo, hi) = f.spread;
    if f.sizes > 1 {
        format!(
            "{:.places$} ({} sizes {lo:.places$}-{hi:.places$}) cv {:.1}%",
            f.value, f.sizes, f.cv_pct
        )
    } else {
        format!("{:.places$} cv {:.1}%", f.value, f.cv_pct)
    }
}

fn push_table(out: &mut String, headings: &[String], rows: &[Vec<String>]) {
    let widths: Vec<usize> = (0..headings.len())
        .map(|c| {
            rows.iter()
                .map(|r| r[c].chars().count())
                .chain([headings[c].chars().count()])
                .max()
                .unwrap_or(0)
        })
        .collect();
    let line = |cells: &[String]| {
        let mut l = String::new();
        for (c, cell) in cells.iter().enumerate() {
            l.push_str(&format!("{cell:<w$}  ", w = widths[c]));
        }
        l.trim_end().to_string() + "\n"
    };
    out.push_str(&line(headings));
    for r in rows {
        out.push_str(&line(r));
    }
}

/// The fleet table as printed: the logs, their verdicts, their key figures (each `-[n]` with
/// footnote n saying why), then what each key figure is.
pub fn table(rows: &[Row]) -> String {
    let mut out = String::new();
    let num = |i: usize| format!("#{}", i + 1);
    let heads = |h: &[&str]| h.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    out.push_str("logs (date: the log file's modification time, UTC; the records carry none):\n");
    let logs: Vec<Vec<String>> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            vec![
                num(i),
                or_dash(&r.board).to_string(),
                or_dash(&r.midr).to_string(),
                or_dash(&r.firmware).to_string(),
                r.arch.clone(),
                r.date.clone(),
                emulated(r),
                r.log.clone(),
            ]
        })
        .collect();
    push_table(
        &mut out,
        &heads(&[
            "", "board", "MIDR", "firmware", "arch", "date", "emulated", "log",
        ]),
        &logs,
    );
    out.push_str("\nverdicts (- : the log has no record of it):\n");
    let mut h = vec![String::new()];
    h.extend(VERDICTS.iter().map(|s| s.id.to_string()));
    let verdicts: Vec<Vec<String>> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut v = vec![num(i)];
            v.extend(
                r.verdicts
                    .iter()
                    .map(|s| s.clone().unwrap_or_else(|| "-".into())),
            );
            v
        })
        .collect();
    push_table(&mut out, &h, &verdicts);
    out.push_str("\nkey figures (ratios of best values, cv = sqrt(cv_A² + cv_B²)):\n");
    let mut h = vec![String::new()];
    h.extend(KEYS.iter().map(|k| k.heading.to_string()));
    let mut notes = Vec::new();
    let figures: Vec<Vec<String>> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| {
            let mut v = vec![num(i)];
            for (key, f) in KEYS.iter().zip(&r.figures) {
                v.push(match f {
                    Ok(f) => cell(f, key),
                    Err(why) => {
                        notes.push(format!("{} {}: {why}", num(i), key.heading));
                        format!("-[{}]", notes.len())
                    }
                });
            }
            v
        })
        .collect();
    push_table(&mut out, &h, &figures);
    for (n, note) in notes.iter().enumerate() {
        out.push_str(&format!("  [{}] {note}\n", n + 1));
    }
    out.push('\n');
    for key in &KEYS {
        out.push_str(&format!("{}: {}\n", key.heading, meaning_in(key, rows)));
    }
    out
}

/// The architectures of `rows` other than AArch64 (whose names are core's), in first-seen
/// order.
fn other_arches(rows: &[Row]) -> Vec<Arch> {
    distinct(rows.iter().map(|r| r.arch.as_str()))
        .into_iter()
        .filter_map(Arch::by_name)
        .filter(|&a| a != Arch::Aarch64)
        .collect()
}

/// Row `row` of the memory-type table in words on `arch`: its summary, and under TEX remap
/// (ARMv7) its region's cacheability, which says the allocation in the report's terms.
fn type_in_words(arch: Arch, row: usize) -> Option<String> {
    let t = arch.memtype(row)?;
    let remap = memtype::armv7::ARMV7
        .get(row)
        .copied()
        .flatten()
        .map(|v| v.remap)
        .filter(|_| arch == Arch::Armv7);
    Some(match remap {
        Some(Remap::Normal { inner, .. }) => {
            format!("{}, {} ({})", t.name, inner.words(), t.summary)
        }
        _ => format!("{} ({})", t.name, t.summary),
    })
}

/// What `key`'s kernels and rows are called on the architectures of `rows` whose names
/// differ from core's (AArch64's): one sentence per architecture, e.g. on armv7 read-ldm
/// for read-ldp and the write-back row without allocation as `normal-wb-nowa`, which
/// allocates on reads; a kernel or type the architecture lacks is named so. `None` when
/// every log is AArch64's.
pub fn arch_note(key: &Key, rows: &[Row]) -> Option<String> {
    let kernels: Vec<Kernel> = if key.writes {
        vec![Kernel::WriteStp, Kernel::WriteLine]
    } else {
        vec![key.kernel]
    };
    let types: Vec<usize> = match key.over {
        Some(Role::Device) => memtype::with_role(Role::Device)
            .map(|t| usize::from(t.index))
            .collect(),
        Some(role) => memtype::position(role).into_iter().collect(),
        None => vec![],
    };
    let notes: Vec<String> = other_arches(rows)
        .into_iter()
        .filter_map(|arch| {
            let mut said = Vec::new();
            for k in &kernels {
                let core = k.spec().name;
                match arch.kernel(*k) {
                    Some(spec) if spec.name != core => {
                        said.push(format!("the kernel {core} is {}", spec.name));
                    }
                    Some(_) => {}
                    None => said.push(format!("there is no {core}")),
                }
            }
            let missing: Vec<&str> = types
                .iter()
                .filter(|&&r| arch.memtype(r).is_none())
                .map(|&r| MEMTYPES[r].name)
                .collect();
            for &r in &types {
                let differs = arch.memtype(r).is_some_and(|t| t.name != MEMTYPES[r].name);
                if let Some(words) = type_in_words(arch, r).filter(|_| differs) {
                    said.push(format!("the row of {} is {words}", MEMTYPES[r].name));
                }
            }
            if !missing.is_empty() {
                said.push(format!("there is no {}", missing.join(" or ")));
            }
            (!said.is_empty()).then(|| format!("On {}, {}", arch.name(), said.join("; ")))
        })
        .collect();
    (!notes.is_empty()).then(|| notes.join(". "))
}

/// [`meaning`], and where `rows` hold logs of another architecture what its names are
/// ([`arch_note`]): each log is measured by the same rows of core's tables.
pub fn meaning_in(key: &Key, rows: &[Row]) -> String {
    match arch_note(key, rows) {
        Some(note) => format!("{}. {note}", meaning(key)),
        None => meaning(key),
    }
}

/// What a key figure is, in words, with core's names.
pub fn meaning(key: &Key) -> String {
    let wb = named(Role::WriteBack);
    let kernel = if key.writes {
        format!(
            "{} (or {} where measured on {wb} at the L1 set)",
            Kernel::WriteStp.spec().name,
            Kernel::WriteLine.spec().name
        )
    } else {
        key.kernel.spec().name.to_string()
    };
    let over = match key.at {
        At::L1Set => "the median over every measured size up to the L1 set",
        At::Dram => "the median over every measured size from DRAM size up",
    };
    let what = match key.over {
        Some(Role::Device) => format!(
            "best MB/s (MB = 10^6 B) of {kernel} on the first measured of {} over {wb}'s (below 1: slower)",
            devices().collect::<Vec<_>>().join(", "),
        ),
        Some(role) => format!(
            "best MB/s (MB = 10^6 B) of {kernel} on {} over {wb}'s (below 1: slower)",
            named(role),
        ),
        None => format!("best ns per load of {kernel} on {wb}"),
    };
    format!(
        "{what}: {over}, with their lowest and highest and their count (a point a host \
         disturbance slowed as a whole shows in the spread, not in the median); cv at {}",
        key.at.label()
    )
}

/// `fleet.csv`: one row per log; per verdict its status (empty: no record); per key figure
/// its value, cv (percent), size (bytes), lowest, highest and sizes, empty where the log
/// lacks the point.
pub fn csv(rows: &[Row]) -> String {
    let mut head: Vec<String> = [
        "log", "board", "midr", "firmware", "date", "emulated", "accel", "arch",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    head.extend(VERDICTS.iter().map(|s| s.id.to_string()));
    for k in &KEYS {
        head.extend([
            k.id.to_string(),
            format!("{}_cv_pct", k.id),
            format!("{}_size_bytes", k.id),
            format!("{}_low", k.id),
            format!("{}_high", k.id),
            format!("{}_sizes", k.id),
        ]);
    }
    let mut out = String::new();
    let h: Vec<&dyn std::fmt::Display> = head.iter().map(|s| s as _).collect();
    csv_row(&mut out, &h);
    for r in rows {
        let mut cells: Vec<String> = vec![
            r.log.clone(),
            r.board.clone(),
            r.midr.clone(),
            r.firmware.clone(),
            r.date.clone(),
            r.emulated.to_string(),
            r.accel.clone().unwrap_or_default(),
            r.arch.clone(),
        ];
        cells.extend(r.verdicts.iter().map(|v| v.clone().unwrap_or_default()));
        for f in &r.figures {
            match f {
                Ok(f) => cells.extend([
                    format!("{:.4}", f.value),
                    format!("{:.2}", f.cv_pct),
                    f.size.to_string(),
                    format!("{:.4}", f.spread.0),
                    format!("{:.4}", f.spread.1),
                    f.sizes.to_string(),
                ]),
                Err(_) => cells.extend(std::iter::repeat_n(String::new(), 6)),
            }
        }
        let c: Vec<&dyn std::fmt::Display> = cells.iter().map(|s| s as _).collect();
        csv_row(&mut out, &c);
    }
    out
}

/// `fleet.json`: what each key figure is, and per log its fields, verdicts and figures (a
/// missing one `null` with `missing` saying why).
pub fn json(rows: &[Row]) -> Value {
    let keys: Vec<Value> = KEYS
        .iter()
        .map(|k| json!({"id": k.id, "heading": k.heading, "meaning": meaning_in(k, rows)}))
        .collect();
    let logs: Vec<Value> = rows
        .iter()
        .map(|r| {
            let verdicts: serde_json::Map<String, Value> = VERDICTS
                .iter()
                .zip(&r.verdicts)
                .map(|(s, v)| (s.id.to_string(), json!(v)))
                .collect();
            let figures: serde_json::Map<String, Value> = KEYS
                .iter()
                .zip(&r.figures)
                .map(|(k, f)| {
                    let v = match f {
                        Ok(f) => json!({
                            "value": f.value, "cv_pct": f.cv_pct, "size_bytes": f.size,
                            "low": f.spread.0, "high": f.spread.1, "sizes": f.sizes,
                            "kernel": f.kernel, "memtype": f.memtype,
                        }),
                        Err(why) => json!({"value": null, "missing": why}),
                    };
                    (k.id.to_string(), v)
                })
                .collect();
            json!({
                "log": r.log, "board": r.board, "midr": r.midr, "firmware": r.firmware,
                "arch": r.arch,
                "date": r.date, "date_from": "the log file's modification time (UTC)",
                "emulated": r.emulated, "accel": r.accel,
                "verdicts": verdicts, "figures": figures,
            })
        })
        .collect();
    json!({"cv": "sqrt(cv_A^2 + cv_B^2), percent", "figures": keys, "logs": logs})
}

#[cfg(test)]
mod tests {
    use super::super::figures::row;
    use super::super::testing::board;
    use super::*;
    use crate::read::model::Run;
    use std::path::Path;

    #[test]
    fn missing_figures_are_footnoted() {
        let r = row(Path::new("/nonexistent.log"), &board());
        let wt = r.figures[3].clone().unwrap_err();
        let t = table(&[r.clone(), r]);
        assert!(t.contains("-[1]") && t.contains("-[2]"), "{t}");
        assert!(t.contains("0.100 (2 sizes 0.100-0.100) cv 5.0%"), "{t}");
        assert!(t.contains(&format!("[1] #1 WT/WB write: {wt}")), "{t}");
    }

    #[test]
    fn csv_and_json_have_a_row_and_columns_per_verdict_and_figure() {
        let run = Run {
            platform: "example-board".into(),
            ..board()
        };
        let r = row(Path::new("x.log"), &run);
        let csv = csv(&[r.clone(), r.clone()]);
        let lines: Vec<&str> = csv.lines().collect();
        assert_eq!(lines.len(), 3);
        let cols = 8 + VERDICTS.len() + 6 * KEYS.len();
        assert_eq!(lines[0].split(',').count(), cols);
        assert_eq!(lines[1].split(',').count(), cols);
        assert!(lines[0].contains("device_wb_read_dram_cv_pct"));
        let j = json(&[r]);
        assert_eq!(
            j["logs"][0]["figures"]["device_wb_read_dram"]["size_bytes"],
            4 << 20
        );
        assert!(j["logs"][0]["figures"]["wt_wb_write_l1"]["missing"].is_string());
    }

    #[test]
    fn a_fleet_of_both_architectures_compares_the_same_rows() {
        use crate::analyse::table::figures::figure;
        use crate::read::model::named_as;
        let v7 = crate::read::armv7_sample::run();
        // The same points as an AArch64 log would name them.
        let a64 = Run {
            arch: Some("aarch64".into()),
            ..named_as(&v7, Arch::Aarch64)
        };
        let (ra, rb) = (row(Path::new("a.log"), &a64), row(Path::new("b.log"), &v7));
        assert_eq!((ra.arch.as_str(), rb.arch.as_str()), ("aarch64", "armv7"));
        // WB-noalloc/WB write at the L1set (16 KiB): write-line on the hinted row, found
        // in both logs, under each log's own name.
        let (fa, fb) = (
            ra.figures[2].clone().unwrap(),
            rb.figures[2].clone().unwrap(),
        );
        assert_eq!((fa.kernel, fa.memtype), ("write-line", "normal-wb-noalloc"));
        assert_eq!((fb.kernel, fb.memtype), ("write-line", "normal-wb-nowa"));
        assert_eq!(fa.value, fb.value);
        assert!((fb.value - 64795.0 / 66038.0).abs() < 1e-12, "{}", fb.value);
        // NC/WB has no normal-nc point in either: the armv7 row says so in its own names.
        let nc = rb.figures[1].clone().unwrap_err();
        assert!(nc.contains("no write-line point of normal-nc"), "{nc}");
        // Device/WB read at DRAM size: read-ldm's in the armv7 log's words.
        let dev = rb.figures[0].clone().unwrap_err();
        assert!(
            dev.starts_with("no read-ldm point of normal-wb at DRAM size"),
            "{dev}"
        );
        // A kernel only AArch64 has is said to be missing, not failed on.
        let zva = Key {
            kernel: Kernel::FillZva,
            ..KEYS[0]
        };
        let why = figure(&v7, &zva).unwrap_err();
        assert_eq!(why, "armv7 has no fill-zva kernel (only AArch64 has it)");
        // The table: each log's arch, and under the column what the armv7 row is.
        let t = table(&[ra.clone(), rb.clone()]);
        let logs: Vec<&str> = t.lines().filter(|l| l.starts_with('#')).take(2).collect();
        assert!(
            logs[0].contains(" aarch64 ") && logs[1].contains(" armv7 "),
            "{t}"
        );
        let noalloc = t
            .lines()
            .find(|l| l.starts_with("WB-noalloc/WB write: "))
            .unwrap();
        assert!(
            noalloc.contains(
                "On armv7, the kernel write-stp is write-stm; the row of normal-wb-noalloc is \
                 normal-wb-nowa, write-back, no write-allocate"
            ),
            "{noalloc}"
        );
        let device = t
            .lines()
            .find(|l| l.starts_with("Device/WB read: "))
            .unwrap();
        assert!(
            device.ends_with(
                "On armv7, the kernel read-ldp is read-ldm; there is no device-ngre or device-gre"
            ),
            "{device}"
        );
        // A fleet of AArch64 logs alone has no such sentence.
        let plain = table(&[ra.clone(), ra]);
        assert!(!plain.contains("armv7"), "{plain}");
        let j = json(&[rb]);
        assert_eq!(j["logs"][0]["arch"], "armv7");
        assert_eq!(
            j["logs"][0]["figures"]["noalloc_wb_write_l1"]["memtype"],
            "normal-wb-nowa"
        );
        assert!(j["figures"][2]["meaning"]
            .as_str()
            .unwrap()
            .contains("normal-wb-nowa"));
    }
}
