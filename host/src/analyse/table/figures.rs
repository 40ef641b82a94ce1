//! Each log's points (the L1 set, DRAM size, by the verdicts' rule) and key figures, and its
//! row of the fleet table.

use crate::read::model::{kernel_row, memtype_row, Measurement, Run};
use crate::read::text::{civil_date, size_label};
use mairbench_core::kernel::Kernel;
use mairbench_core::memtype::{self, Role, MEMTYPES};
use mairbench_core::paging::Granule;
use mairbench_core::system_cache::{Curve, Finding};
use mairbench_core::verdict::{self, VERDICTS};
use std::path::Path;

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

/// A key figure as one log gives it: the median over the sizes of its region (every measured
/// size up to the L1 set, or from the DRAM point up), with their spread, so that one point
/// a host disturbance hit as a whole (all its reps) shows as spread, not as the figure.
#[derive(Clone, Debug, PartialEq)]
pub struct Figure {
    /// The ratio (or ns per load, for latency): the median over the region's sizes.
    pub value: f64,
    /// The coefficient of variation at [`Figure::size`], percent.
    pub cv_pct: f64,
    /// The lowest and the highest value over the region's sizes.
    pub spread: (f64, f64),
    /// How many sizes of the region have the figure.
    pub sizes: usize,
    /// The region's defining point (the L1 set, the DRAM point), bytes.
    pub size: u64,
    /// The kernel measured, as the log names it (`read-ldm` in an armv7 log).
    pub kernel: &'static str,
    /// The numerator's memory type (latency: the write-back reference), as the log names it
    /// (`normal-wb-nowa` in an armv7 log).
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
    /// The log's architecture (`arch` of the start record; `aarch64` in older logs).
    pub arch: String,
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
pub(super) fn named(role: Role) -> &'static str {
    memtype::position(role).map_or("(none)", |i| MEMTYPES[i].name)
}

/// The Device types in the verdicts' order (`points::devices`): device-nGnRE's slot first.
pub(super) fn devices() -> impl Iterator<Item = &'static str> {
    device_rows().map(|i| MEMTYPES[i].name)
}

/// The rows of [`devices`].
fn device_rows() -> impl Iterator<Item = usize> {
    std::iter::once(memtype::DEVICE_NGNRE).chain(
        memtype::with_role(Role::Device)
            .map(|t| usize::from(t.index))
            .filter(|&i| i != memtype::DEVICE_NGNRE),
    )
}

/// The log's point of `kernel` on the memory type of row `row` at `size`, by the granule rule
/// of the module. Kernel and type are matched by their rows of core's tables, so an armv7
/// log's `read-ldm` on `normal-wb-nowa` is the point of read-ldp on the hinted write-back row.
fn point(run: &Run, kernel: Kernel, row: usize, size: u64) -> Option<&Measurement> {
    let (first, second) = if kernel == Kernel::Latency {
        (Granule::Block, Granule::Page)
    } else {
        (Granule::Page, Granule::Block)
    };
    [first, second].into_iter().find_map(|g| {
        run.measurements.iter().find(|m| {
            m.size == size
                && m.granule == g.name()
                && m.best > 0.0
                && kernel_row(&m.kernel) == Some(kernel)
                && memtype_row(&m.memtype) == Some(row)
        })
    })
}

/// The name `run`'s architecture gives row `row` of the memory-type table (core's name where
/// it has none, which no point of the log then carries).
fn type_name(run: &Run, row: usize) -> &'static str {
    run.memtype_name(row)
        .unwrap_or_else(|| MEMTYPES.get(row).map_or("(none)", |t| t.name))
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
    let wb = memtype::NORMAL_WB;
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
    let wb = memtype::NORMAL_WB;
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
    let wb = memtype::NORMAL_WB;
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
    // Each log's own names: read-ldm, normal-wb-nowa in an armv7 log.
    let arch = run.arch();
    let Some(kname) = run.kernel_name(kernel) else {
        return Err(format!(
            "{arch} has no {} kernel (only AArch64 has it)",
            kernel.spec().name
        ));
    };
    let wb_row = memtype::NORMAL_WB;
    let wb = type_name(run, wb_row);
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
    let base = point(run, kernel, wb_row, size).ok_or_else(|| {
        format!(
            "no {kname} point of {wb} at {} ({})",
            key.at.label(),
            size_label(size)
        )
    })?;
    // The region: every measured size up to the L1 set, or from the DRAM point up.
    let region: Vec<u64> = sizes(run)
        .into_iter()
        .filter(|&s| match key.at {
            At::L1Set => s <= size,
            At::Dram => s >= size,
        })
        .collect();
    let Some(role) = key.over else {
        let values = region
            .iter()
            .filter_map(|&s| Some(point(run, kernel, wb_row, s)?.best));
        return Ok(spread_of(values, base.best, base.cv_pct, size, kname, wb));
    };
    let (row, m) = numerator(run, kernel, role, size, key.at)?;
    let memtype = type_name(run, row);
    let ratios = region.iter().filter_map(|&s| {
        Some(point(run, kernel, row, s)?.best / point(run, kernel, wb_row, s)?.best)
    });
    let cv = m.cv_pct.hypot(base.cv_pct);
    Ok(spread_of(
        ratios,
        m.best / base.best,
        cv,
        size,
        kname,
        memtype,
    ))
}

/// The numerator's row and point of a ratio figure: the first of `role`'s rows that `run`'s
/// architecture has (ARMv7 has no Device-nGRE or Device-GRE) with a point of `kernel` at
/// `size`; or why there is none, in the log's own names.
fn numerator(
    run: &Run,
    kernel: Kernel,
    role: Role,
    size: u64,
    at: At,
) -> Result<(usize, &Measurement), String> {
    let candidates: Vec<usize> = if role == Role::Device {
        device_rows().collect()
    } else {
        memtype::position(role).into_iter().collect()
    };
    let candidates: Vec<usize> = candidates
        .into_iter()
        .filter(|&r| run.memtype_name(r).is_some())
        .collect();
    if candidates.is_empty() {
        return Err(format!("{} has no {} type", run.arch(), named(role)));
    }
    let found = candidates
        .iter()
        .find_map(|&r| point(run, kernel, r, size).map(|m| (r, m)));
    found.ok_or_else(|| {
        let names: Vec<&str> = candidates.iter().map(|&r| type_name(run, r)).collect();
        format!(
            "no {} point of {} at {} ({})",
            kernel_named(run, kernel),
            names.join(" or "),
            at.label(),
            size_label(size)
        )
    })
}

/// The name `run`'s architecture gives `kernel` (core's where it has none).
fn kernel_named(run: &Run, kernel: Kernel) -> &'static str {
    run.kernel_name(kernel).unwrap_or(kernel.spec().name)
}

/// The figure of `values` (one per size of the region; `at` the value at the defining point,
/// kept when there is no other): their median and spread.
fn spread_of(
    values: impl Iterator<Item = f64>,
    at: f64,
    cv_pct: f64,
    size: u64,
    kernel: &'static str,
    memtype: &'static str,
) -> Figure {
    let mut v: Vec<f64> = values.filter(|x| x.is_finite()).collect();
    if v.is_empty() {
        v.push(at);
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let median = if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    };
    Figure {
        value: median,
        cv_pct,
        spread: (v[0], v[n - 1]),
        sizes: n,
        size,
        kernel,
        memtype,
    }
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
        arch: run.arch().to_string(),
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

/// The rows of one log: [`row`], and on a big.LITTLE board one more per cluster swept on
/// its own (its own caches, figures and verdicts), the log named with the cluster:
/// `LOG (cluster N)`; the boot CPU's row then says `(cluster 0)` too.
pub fn rows(path: &Path, run: &Run) -> Vec<Row> {
    let mut first = row(path, run);
    let swept: Vec<_> = run.clusters.iter().filter(|c| c.role == "swept").collect();
    if let Some(boot) = run.clusters.iter().find(|c| c.role == "boot") {
        if !swept.is_empty() {
            first.log = format!("{} (cluster {})", first.log, boot.index);
        }
    }
    let mut out = vec![first];
    for c in swept {
        let mut r = row(path, &c.sweep);
        r.log = format!("{} (cluster {})", path.display(), c.index);
        out.push(r);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::testing::{altra, board, m};
    use super::*;

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
        // Latency over the DRAM region (4 and 8 MiB): the median of 64 and 128 ns.
        let lat = r.figures[4].as_ref().unwrap();
        assert_eq!((lat.value, lat.spread, lat.sizes), (96.0, (64.0, 128.0), 2));
    }

    /// The issue's case: one point (the L1 set) that a host disturbance slowed in all its
    /// reps turns the ratio at that size to 0.525; the figure is the median over the sizes up
    /// to the L1 set, and the disturbed point shows in the spread.
    #[test]
    fn one_disturbed_point_shows_in_the_spread_not_the_figure() {
        let mut run = board();
        for (role, v) in [(Role::WriteBack, 8000.0), (Role::WriteBackHinted, 8000.0)] {
            run.measurements
                .push(m(Kernel::WriteStp, role, 8 << 10, v, 0.0));
        }
        for p in run.measurements.iter_mut() {
            if p.kernel == "write-stp"
                && p.size <= 16 << 10
                && p.memtype == named(Role::WriteBackHinted)
            {
                p.best = if p.size == 16 << 10 { 4200.0 } else { 8000.0 };
            }
        }
        let noalloc = figure(&run, &KEYS[2]).unwrap();
        assert_eq!(noalloc.size, 16 << 10);
        assert_eq!(noalloc.sizes, 3);
        assert!((noalloc.value - 1.0).abs() < 1e-12, "{noalloc:?}");
        assert!((noalloc.spread.0 - 0.525).abs() < 1e-12, "{noalloc:?}");
        assert!((noalloc.spread.1 - 1.0).abs() < 1e-12, "{noalloc:?}");
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
    fn a_big_little_log_gives_a_row_per_swept_cluster() {
        let log = br#"@mb {"kind":"start","schema":1,"platform":"rk3399","emulated":false,"midr":"0x410fd034"}
@mb {"kind":"result","memtype":"normal-wb","kernel":"read-ldp","granule":"4K","size":4096,"reps":3,"cv_pct":1.0,"best_mbps":9000,"median_mbps":8900}
@mb {"kind":"cluster","cluster":0,"group":0,"cpus":4,"representative":"0x0","capacity":485,"compatible":"arm,cortex-a53","midr":"0x410fd034","last_cache":524288,"source":"cpu-map","role":"boot"}
@mb {"kind":"cluster","cluster":1,"group":1,"cpus":2,"representative":"0x100","capacity":1024,"compatible":"arm,cortex-a72","midr":"0x410fd082","last_cache":1048576,"source":"cpu-map","role":"swept"}
@mb {"kind":"result","cluster":1,"memtype":"normal-wb","kernel":"read-ldp","granule":"4K","size":4096,"reps":3,"cv_pct":1.0,"best_mbps":20000,"median_mbps":19000}
@mb {"kind":"verdict","cluster":1,"name":"caches-on","status":"fail","evidence":{},"why":"off"}
"#;
        let run = crate::read::log::parse(log).run;
        let rows = rows(Path::new("a.log"), &run);
        let labels: Vec<(&str, &str)> = rows
            .iter()
            .map(|r| (r.log.as_str(), r.midr.as_str()))
            .collect();
        assert_eq!(
            labels,
            [
                ("a.log (cluster 0)", "0x410fd034"),
                ("a.log (cluster 1)", "0x410fd082")
            ]
        );
        assert_eq!(rows[1].verdicts[0].as_deref(), Some("fail"));
        assert_eq!(rows[0].verdicts[0], None);
        // Each row says its log's architecture; an older log's is AArch64.
        let armv7 = Run {
            arch: Some("armv7".into()),
            ..run.clone()
        };
        assert_eq!(super::rows(Path::new("b.log"), &armv7)[0].arch, "armv7");
        assert_eq!(rows[0].arch, "aarch64");
        assert_eq!(rows[0].firmware, "");
        // One cluster: the log's row alone, named as it is.
        let one =
            crate::read::log::parse(&log[..log.iter().position(|&b| b == b'\n').unwrap() + 1]).run;
        assert_eq!(rows_of(&one), ["a.log"]);
    }

    fn rows_of(run: &Run) -> Vec<String> {
        rows(Path::new("a.log"), run)
            .into_iter()
            .map(|r| r.log)
            .collect()
    }
}
