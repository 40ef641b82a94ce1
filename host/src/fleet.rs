//! The fleet table (`cargo host table LOG…`): one row per firmware log, any mix of boards,
//! with what the run was (board, MIDR, firmware, date, emulated), the status of each of core's
//! verdicts, and the key ratios a performance engineer compares between boards, each with
//! its coefficient of variation.
//!
//! The points are those the verdicts compare, by the rule of core's
//! `crates/core/src/verdict/points.rs`:
//! - the **L1 set**: [`verdict::l1_set_of`], the largest measured size ≤ half the first
//!   reported data cache; without a reported cache, the smallest measured size;
//! - **DRAM size**: the smallest size ≥ 4× the last cache step at which the write-back
//!   reference was measured (`device-read-cliff`'s rule, [`Finding::point`]): the last
//!   reported level, or a system cache the log's latency curve shows past it (not looked for
//!   in an emulated run), capped at the largest size past that cache when the sweep did not
//!   reach 4× it; the smallest size when no cache is reported;
//! - a value is the point's best on 4 KiB pages, else on 2 MiB blocks, except latency's,
//!   which prefers blocks (no page walks);
//! - the writes are write-line's where the log measured it on the write-back type at the L1
//!   set, else write-stp's (`write-allocate` and `write-through` judge by the same kernel);
//! - the Device type is the first measured of core's Device types in the verdicts' order
//!   (the one Linux's `pgprot_device` maps first, then the table's order).
//!
//! Each ratio is A's best over B's best (B the write-back reference, for MB/s: below 1, A is
//! slower); its cv is `sqrt(cv_A² + cv_B²)` (percent), the first-order coefficient of
//! variation of a quotient of two independent values. Latency is the write-back reference's
//! ns per load, with its own cv.

use std::path::Path;

use mairbench_core::kernel::Kernel;
use mairbench_core::memtype::{self, Role, MEMTYPES};
use mairbench_core::paging::Granule;
use mairbench_core::system_cache::{Curve, Finding};
use mairbench_core::verdict::{self, VERDICTS};
use serde_json::{json, Value};

use crate::read::model::{Measurement, Run};
use crate::read::text::{civil_date, csv_row, size_label};

/// Which point a key figure is taken at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum At {
    /// The L1 set.
    L1Set,
    /// DRAM size.
    Dram,
}

impl At {
    /// As the tables say it.
    pub fn label(self) -> &'static str {
        match self {
            At::L1Set => "the L1 set",
            At::Dram => "DRAM size",
        }
    }
}

/// One key figure of the fleet table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Key {
    /// Machine-readable name (CSV and JSON).
    pub id: &'static str,
    /// Column heading.
    pub heading: &'static str,
    /// The role of the numerator's memory type; `None` for a plain value (latency).
    pub over: Option<Role>,
    /// Whether it is a write figure (write-line or write-stp, see the module's rule); else
    /// the kernel below.
    pub writes: bool,
    /// The kernel, when not a write figure.
    pub kernel: Kernel,
    /// Where.
    pub at: At,
}

/// The key figures, in column order: Device/WB read at DRAM size; NC/WB, WB-noalloc/WB and
/// WT/WB writes at the L1 set; latency at DRAM size.
pub const KEYS: [Key; 5] = [
    Key {
        id: "device_wb_read_dram",
        heading: "Device/WB read",
        over: Some(Role::Device),
        writes: false,
        kernel: Kernel::ReadLdp,
        at: At::Dram,
    },
    Key {
        id: "nc_wb_write_l1",
        heading: "NC/WB write",
        over: Some(Role::NonCacheable),
        writes: true,
        kernel: Kernel::WriteStp,
        at: At::L1Set,
    },
    Key {
        id: "noalloc_wb_write_l1",
        heading: "WB-noalloc/WB write",
        over: Some(Role::WriteBackHinted),
        writes: true,
        kernel: Kernel::WriteStp,
        at: At::L1Set,
    },
    Key {
        id: "wt_wb_write_l1",
        heading: "WT/WB write",
        over: Some(Role::WriteThrough),
        writes: true,
        kernel: Kernel::WriteStp,
        at: At::L1Set,
    },
    Key {
        id: "latency_ns_dram",
        heading: "latency ns",
        over: None,
        writes: false,
        kernel: Kernel::Latency,
        at: At::Dram,
    },
];

/// A key figure as one log gives it.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// The ratio (or ns per load, for latency).
    pub value: f64,
    /// Its coefficient of variation, percent.
    pub cv_pct: f64,
    /// Where, bytes.
    pub size: u64,
    /// The kernel measured.
    pub kernel: &'static str,
    /// The numerator's memory type (latency: the write-back reference).
    pub memtype: &'static str,
}

/// One row: a log and what it says.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    /// The log's path as given.
    pub log: String,
    /// `platform` of the start record.
    pub board: String,
    /// `midr` of the start record.
    pub midr: String,
    /// `version` of the start record.
    pub firmware: String,
    /// The log file's modification date (UTC, `YYYY-MM-DD`): the start record has no date;
    /// `-` when the file system gives none.
    pub date: String,
    /// Whether the firmware said the machine is emulated.
    pub emulated: bool,
    /// How QEMU ran it (`tcg`, `kvm`), when the log says.
    pub accel: Option<String>,
    /// Per verdict of core's [`VERDICTS`], in its order: the log's status, `None` when the
    /// log has no record of it.
    pub verdicts: Vec<Option<String>>,
    /// Per [`KEYS`] entry: the figure, or why there is none.
    pub figures: Vec<Result<Figure, String>>,
}

/// The first type of `role` in core's table.
fn named(role: Role) -> &'static str {
    memtype::position(role).map_or("(none)", |i| MEMTYPES[i].name)
}

/// The Device types in the verdicts' order (`points::devices`): device-nGnRE's slot first.
fn devices() -> impl Iterator<Item = &'static str> {
    std::iter::once(MEMTYPES[memtype::DEVICE_NGNRE].name).chain(
        memtype::with_role(Role::Device)
            .filter(|t| usize::from(t.index) != memtype::DEVICE_NGNRE)
            .map(|t| t.name),
    )
}

/// The log's point of `kernel` on `memtype` at `size`, by the granule rule of the module.
fn point<'a>(run: &'a Run, kernel: Kernel, memtype: &str, size: u64) -> Option<&'a Measurement> {
    let (first, second) = if kernel == Kernel::Latency {
        (Granule::Block, Granule::Page)
    } else {
        (Granule::Page, Granule::Block)
    };
    let name = kernel.spec().name;
    [first, second].into_iter().find_map(|g| {
        run.measurements.iter().find(|m| {
            m.kernel == name
                && m.memtype == memtype
                && m.size == size
                && m.granule == g.name()
                && m.best > 0.0
        })
    })
}

/// The measured sizes, ascending.
fn sizes(run: &Run) -> Vec<u64> {
    let mut s: Vec<u64> = run.measurements.iter().map(|m| m.size).collect();
    s.sort_unstable();
    s.dedup();
    s
}

/// The reported data caches' sizes, innermost first (level 0 and empty ones skipped).
fn caches(run: &Run) -> Vec<u64> {
    let mut c: Vec<(u8, u64)> = run
        .caches
        .iter()
        .filter(|c| c.level != 0 && c.size > 0)
        .map(|c| (c.level, c.size))
        .collect();
    c.sort_unstable();
    c.into_iter().map(|c| c.1).collect()
}

/// The L1 set of the log (see the module).
pub fn l1_set(run: &Run) -> Option<u64> {
    verdict::l1_set_of(&sizes(run), caches(run))
}

/// What the log's latency curve shows past the reported caches (core's rule): the write-back
/// reference's ns per load, on blocks where measured; not looked at in an emulated run.
pub fn finding(run: &Run) -> Finding {
    let wb = named(Role::WriteBack);
    let curve = Curve::new(sizes(run).into_iter().filter_map(|s| {
        let m = point(run, Kernel::Latency, wb, s)?;
        Some((s, (m.best * 100.0).round() as u64))
    }));
    let mut levels: Vec<(u8, u64)> = run
        .caches
        .iter()
        .filter(|c| c.level != 0 && c.size > 0)
        .map(|c| (c.level, c.size))
        .collect();
    levels.sort_unstable();
    Finding::from_curve(&curve, levels.last().copied(), run.emulated)
}

/// The DRAM point of `kernel` on the write-back reference (see the module); the bound as
/// well (4× the last cache step).
pub fn dram(run: &Run, kernel: Kernel) -> (Option<u64>, u64) {
    let f = finding(run);
    let wb = named(Role::WriteBack);
    let measured = sizes(run)
        .into_iter()
        .filter(|&s| point(run, kernel, wb, s).is_some());
    let size = match f.bound() {
        0 => measured.min(),
        _ => f.point(measured).map(|p| p.size),
    };
    (size, f.bound())
}

/// The write kernel of the log (see the module).
pub fn write_kernel(run: &Run) -> Kernel {
    let wb = named(Role::WriteBack);
    match l1_set(run) {
        Some(s) if point(run, Kernel::WriteLine, wb, s).is_some() => Kernel::WriteLine,
        _ => Kernel::WriteStp,
    }
}

/// `key` as `run` gives it, or why it does not.
pub fn figure(run: &Run, key: &Key) -> Result<Figure, String> {
    let kernel = if key.writes {
        write_kernel(run)
    } else {
        key.kernel
    };
    let kname = kernel.spec().name;
    let wb = named(Role::WriteBack);
    let size = match key.at {
        At::L1Set => {
            l1_set(run).ok_or_else(|| "the log has no measured point at all".to_string())?
        }
        At::Dram => match dram(run, kernel) {
            (Some(s), _) => s,
            (None, bound) => {
                return Err(format!(
                    "no {kname} point of {wb} at DRAM size (≥ {}× the last-level cache: {})",
                    verdict::DRAM_TIMES,
                    size_label(bound)
                ))
            }
        },
    };
    let base = point(run, kernel, wb, size).ok_or_else(|| {
        format!(
            "no {kname} point of {wb} at {} ({})",
            key.at.label(),
            size_label(size)
        )
    })?;
    let Some(role) = key.over else {
        return Ok(Figure {
            value: base.best,
            cv_pct: base.cv_pct,
            size,
            kernel: kname,
            memtype: wb,
        });
    };
    let candidates: Vec<&'static str> = if role == Role::Device {
        devices().collect()
    } else {
        memtype::position(role)
            .map(|i| MEMTYPES[i].name)
            .into_iter()
            .collect()
    };
    let found = candidates
        .iter()
        .find_map(|t| point(run, kernel, t, size).map(|m| (*t, m)));
    let Some((memtype, m)) = found else {
        return Err(format!(
            "no {kname} point of {} at {} ({})",
            candidates.join(" or "),
            key.at.label(),
            size_label(size)
        ));
    };
    Ok(Figure {
        value: m.best / base.best,
        cv_pct: m.cv_pct.hypot(base.cv_pct),
        size,
        kernel: kname,
        memtype,
    })
}

/// The row of the log at `path`, read as `run`.
pub fn row(path: &Path, run: &Run) -> Row {
    let date = std::fs::metadata(path)
        .and_then(|m| m.modified())
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or_else(|| "-".to_string(), |d| civil_date(d.as_secs()));
    Row {
        log: path.display().to_string(),
        board: run.platform.clone(),
        midr: run.midr.clone(),
        firmware: run.version.clone(),
        date,
        emulated: run.emulated,
        accel: run.accel.clone(),
        verdicts: VERDICTS
            .iter()
            .map(|spec| {
                run.verdicts
                    .iter()
                    .find(|v| v.name == spec.id)
                    .map(|v| v.status.clone())
            })
            .collect(),
        figures: KEYS.iter().map(|k| figure(run, k)).collect(),
    }
}

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
    if key.over.is_some() {
        format!("{:.3} cv {:.1}%", f.value, f.cv_pct)
    } else {
        format!("{:.1} cv {:.1}%", f.value, f.cv_pct)
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
                dash(&r.board),
                dash(&r.midr),
                dash(&r.firmware),
                r.date.clone(),
                emulated(r),
                r.log.clone(),
            ]
        })
        .collect();
    push_table(
        &mut out,
        &heads(&["", "board", "MIDR", "firmware", "date", "emulated", "log"]),
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
        out.push_str(&format!("{}: {}\n", key.heading, meaning(key)));
    }
    out
}

fn dash(s: &str) -> String {
    if s.is_empty() {
        "-".into()
    } else {
        s.to_string()
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
    match key.over {
        Some(Role::Device) => format!(
            "best MB/s (MB = 10^6 B) of {kernel} on the first measured of {} over {wb}'s, at {} (below 1: slower)",
            devices().collect::<Vec<_>>().join(", "),
            key.at.label()
        ),
        Some(role) => format!(
            "best MB/s (MB = 10^6 B) of {kernel} on {} over {wb}'s, at {} (below 1: slower)",
            named(role),
            key.at.label()
        ),
        None => format!("best ns per load of {kernel} on {wb}, at {}", key.at.label()),
    }
}

/// `fleet.csv`: one row per log; per verdict its status (empty: no record); per key figure
/// its value, cv (percent) and size (bytes), empty where the log lacks the point.
pub fn csv(rows: &[Row]) -> String {
    let mut head: Vec<String> = [
        "log", "board", "midr", "firmware", "date", "emulated", "accel",
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
        ];
        cells.extend(r.verdicts.iter().map(|v| v.clone().unwrap_or_default()));
        for f in &r.figures {
            match f {
                Ok(f) => cells.extend([
                    format!("{:.4}", f.value),
                    format!("{:.2}", f.cv_pct),
                    f.size.to_string(),
                ]),
                Err(_) => cells.extend([String::new(), String::new(), String::new()]),
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
        .map(|k| json!({"id": k.id, "heading": k.heading, "meaning": meaning(k)}))
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
                            "kernel": f.kernel, "memtype": f.memtype,
                        }),
                        Err(why) => json!({"value": null, "missing": why}),
                    };
                    (k.id.to_string(), v)
                })
                .collect();
            json!({
                "log": r.log, "board": r.board, "midr": r.midr, "firmware": r.firmware,
                "date": r.date, "date_from": "the log file's modification time (UTC)",
                "emulated": r.emulated, "accel": r.accel,
                "verdicts": verdicts, "figures": figures,
            })
        })
        .collect();
    json!({"cv": "sqrt(cv_A^2 + cv_B^2), percent", "figures": keys, "logs": logs})
}

/// The chart's content: the ratios (latency, in ns, is not a ratio and stays out), one mark
/// per log.
pub fn chart_data(rows: &[Row]) -> crate::chart::Fleet {
    let ratios: Vec<&Key> = KEYS.iter().filter(|k| k.over.is_some()).collect();
    crate::chart::Fleet {
        categories: ratios.iter().map(|k| k.heading.to_string()).collect(),
        boards: rows
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let values: Vec<_> = KEYS
                    .iter()
                    .zip(&r.figures)
                    .filter(|(k, _)| k.over.is_some())
                    .map(|(_, f)| f.as_ref().ok().map(|f| (f.value, f.cv_pct)))
                    .collect();
                let mut label = format!("#{} {} {}", i + 1, dash(&r.board), dash(&r.midr));
                if r.emulated {
                    label.push_str(" (emulated)");
                }
                if values.iter().all(Option::is_none) {
                    label.push_str(" (no ratio)");
                }
                (label, values)
            })
            .collect(),
        emulated: rows.iter().any(|r| r.emulated),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::read::model::{CacheLevel, Unit, Verdict};

    fn m(kernel: Kernel, role: Role, size: u64, best: f64, cv: f64) -> Measurement {
        let spec = kernel.spec();
        Measurement {
            memtype: named(role).to_string(),
            kernel: spec.name.to_string(),
            granule: spec.granule.name().to_string(),
            size,
            unit: Unit::from(spec.unit),
            best,
            median: best,
            cv_pct: cv,
            reps: 5,
            pmu: None,
            start: None,
            line_state: None,
        }
    }

    fn board() -> Run {
        let mut run = Run {
            platform: "example,board".into(),
            midr: "0x410fd083".into(),
            version: "0.1.0".into(),
            caches: vec![
                CacheLevel {
                    level: 1,
                    kind: "data".into(),
                    size: 32 << 10,
                },
                CacheLevel {
                    level: 2,
                    kind: "unified".into(),
                    size: 1 << 20,
                },
            ],
            ..Run::default()
        };
        for size in [4 << 10, 16 << 10, 32 << 10, 1 << 20, 4 << 20, 8 << 20] {
            run.measurements
                .push(m(Kernel::ReadLdp, Role::WriteBack, size, 4000.0, 3.0));
            run.measurements
                .push(m(Kernel::ReadLdp, Role::Device, size, 400.0, 4.0));
            for (role, v) in [
                (Role::WriteBack, 8000.0),
                (Role::NonCacheable, 2000.0),
                (Role::WriteBackHinted, 4000.0),
            ] {
                run.measurements
                    .push(m(Kernel::WriteStp, role, size, v, 0.0));
            }
            run.measurements.push(m(
                Kernel::Latency,
                Role::WriteBack,
                size,
                size as f64 / 65536.0,
                1.0,
            ));
        }
        run.verdicts.push(Verdict {
            name: VERDICTS[0].id.into(),
            status: "pass".into(),
            evidence: vec![],
            why: String::new(),
            core_note: None,
        });
        run
    }

    #[test]
    fn points_follow_the_verdicts_rule() {
        let run = board();
        // Largest size ≤ 16 KiB; smallest ≥ 4 MiB.
        assert_eq!(l1_set(&run), Some(16 << 10));
        assert_eq!(dram(&run, Kernel::ReadLdp), (Some(4 << 20), 4 << 20));
        assert_eq!(write_kernel(&run), Kernel::WriteStp);
        let no_caches = Run {
            caches: vec![],
            ..board()
        };
        assert_eq!(l1_set(&no_caches), Some(4 << 10));
        assert_eq!(dram(&no_caches, Kernel::ReadLdp).0, Some(4 << 10));
    }

    /// An Ampere Altra-like log (core's `system_cache` tests cite its figures): 64 KiB L1 and
    /// 1 MiB L2 reported, a 32 MiB system cache that is not; sizes 4 KiB to `max`.
    fn altra(max: u64) -> Run {
        let mut run = Run {
            caches: vec![
                CacheLevel {
                    level: 1,
                    kind: "data".into(),
                    size: 64 << 10,
                },
                CacheLevel {
                    level: 2,
                    kind: "unified".into(),
                    size: 1 << 20,
                },
            ],
            ..Run::default()
        };
        for size in (12..=max.trailing_zeros()).map(|s| 1u64 << s) {
            let ns = match size {
                s if s <= 64 << 10 => 1.5,
                s if s <= 1 << 20 => 5.0,
                s if s <= 32 << 20 => 30.0,
                _ => 120.0,
            };
            run.measurements
                .push(m(Kernel::Latency, Role::WriteBack, size, ns, 1.0));
            run.measurements
                .push(m(Kernel::ReadLdp, Role::WriteBack, size, 4000.0, 1.0));
        }
        run
    }

    #[test]
    fn dram_is_past_a_system_cache_the_latency_shows() {
        // 4x the 32 MiB system cache, not 4x the 1 MiB L2 (inside the system cache).
        let run = altra(256 << 20);
        assert_eq!(finding(&run).system_cache().map(|c| c.size), Some(32 << 20));
        assert_eq!(dram(&run, Kernel::ReadLdp), (Some(128 << 20), 128 << 20));
        // A sweep short of 4x it: its largest size, past the system cache.
        assert_eq!(
            dram(&altra(64 << 20), Kernel::ReadLdp),
            (Some(64 << 20), 128 << 20)
        );
        // Emulated: not looked for, the reported L2 decides.
        let emulated = Run {
            emulated: true,
            ..altra(256 << 20)
        };
        assert_eq!(dram(&emulated, Kernel::ReadLdp), (Some(4 << 20), 4 << 20));
    }

    #[test]
    fn figures_with_cv_and_missing_ones_say_why() {
        let r = row(Path::new("/nonexistent.log"), &board());
        assert_eq!(r.date, "-");
        assert_eq!(r.verdicts[0].as_deref(), Some("pass"));
        assert_eq!(r.verdicts[1], None);
        let dev = r.figures[0].as_ref().unwrap();
        assert!((dev.value - 0.1).abs() < 1e-12);
        assert!((dev.cv_pct - 5.0).abs() < 1e-12, "sqrt(3² + 4²)");
        assert_eq!(dev.size, 4 << 20);
        // Only the table's first Device type measured: that one.
        assert_eq!(dev.memtype, named(Role::Device));
        // device-nGnRE's slot measured too: the verdicts prefer it.
        let mut run = board();
        let mut ngnre = m(Kernel::ReadLdp, Role::Device, 4 << 20, 800.0, 0.0);
        ngnre.memtype = MEMTYPES[memtype::DEVICE_NGNRE].name.into();
        run.measurements.push(ngnre);
        let dev = figure(&run, &KEYS[0]).unwrap();
        assert_eq!(dev.memtype, MEMTYPES[memtype::DEVICE_NGNRE].name);
        assert!((dev.value - 0.2).abs() < 1e-12);
        let nc = r.figures[1].as_ref().unwrap();
        assert!((nc.value - 0.25).abs() < 1e-12);
        assert_eq!(nc.size, 16 << 10);
        assert!((r.figures[2].as_ref().unwrap().value - 0.5).abs() < 1e-12);
        let wt = r.figures[3].clone().unwrap_err();
        assert!(wt.contains(named(Role::WriteThrough)), "{wt}");
        assert!(wt.contains("16 KiB") || wt.contains("16K"), "{wt}");
        let lat = r.figures[4].as_ref().unwrap();
        assert_eq!(lat.value, 64.0);
        let t = table(&[r.clone(), r]);
        assert!(t.contains("-[1]") && t.contains("-[2]"), "{t}");
        assert!(t.contains("0.100 cv 5.0%"), "{t}");
        assert!(t.contains(&format!("[1] #1 WT/WB write: {wt}")), "{t}");
    }

    #[test]
    fn write_line_replaces_write_stp_where_measured() {
        let mut run = board();
        run.measurements
            .push(m(Kernel::WriteLine, Role::WriteBack, 16 << 10, 1000.0, 0.0));
        run.measurements.push(m(
            Kernel::WriteLine,
            Role::NonCacheable,
            16 << 10,
            100.0,
            0.0,
        ));
        assert_eq!(write_kernel(&run), Kernel::WriteLine);
        let nc = figure(&run, &KEYS[1]).unwrap();
        assert_eq!(nc.kernel, Kernel::WriteLine.spec().name);
        assert!((nc.value - 0.1).abs() < 1e-12);
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
        let cols = 7 + VERDICTS.len() + 3 * KEYS.len();
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
}
