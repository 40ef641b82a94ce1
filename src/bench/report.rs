//! What the engine reports: the cache geometry it plans from, one `result` record per point
//! (measured or skipped, written here only, from a [`Point`]), and one table per kernel.

use super::plan::{Cells, Clock};
use crate::arch::MEMTYPES;
use crate::console::Console;
use crate::memory::Alias;
use crate::{run, say, say_inline};
use mairbench_core::cache::{CacheLevel, MAX_LEVELS};
use mairbench_core::counter::Dropped;
use mairbench_core::format::{Bytes, Decimal};
use mairbench_core::kernel::{Kernel, KernelSpec, Unit};
use mairbench_core::memtype;
use mairbench_core::paging::Granule;
use mairbench_core::pmu::Counts;
use mairbench_core::record::Record;
use mairbench_core::schema;
use mairbench_core::stats::{self, Summary};
use mairbench_core::sweep::{Lines, Sizes, Start, MAX_SIZES};

/// What the latency table's steps are in an emulated run (docs/lab.md, step 2e): the host
/// CPU's own caches show through TCG whatever the guest's `cache:` lines say, and a chase over
/// more 4 KiB pages than QEMU's software TLB holds takes a slow TLB refill on most loads.
const EMULATED_STEPS: &str =
    "(emulated: the steps are the host's caches and QEMU's TLB: docs/lab.md, step 2e)";

/// A measured point, as the report needs it.
pub(super) struct Point {
    /// Passes per sample.
    pub passes: u64,
    /// Units one pass counts.
    pub units: u64,
    /// The samples' ticks, overhead subtracted.
    pub ticks: Summary,
    /// The samples' PMU cycles, where counted.
    pub cycles: Option<Summary>,
    /// Buffer offset of the first wrong word afterwards, if any.
    pub bad: Option<u64>,
    /// The state the point started from.
    pub start: Start,
    /// Maintenance kernels: the lines each timed pass found.
    pub lines: Option<Lines>,
    /// The PMU events of the fastest sample, where events are counted.
    pub events: Option<Counts>,
    /// Samples dropped because they cannot be true, and the first one's reason.
    pub dropped: (u64, Option<Dropped>),
}

/// Reports the data and unified caches (CLIDR_EL1, CCSIDR_EL1) of this CPU, or of another
/// cluster's (`cluster`: its index, which its records carry); returns them (the first
/// `count` entries, as `mairbench_core::cache::levels` does).
pub(super) fn caches(
    (all, count): ([CacheLevel; MAX_LEVELS], usize),
    cluster: Option<u16>,
) -> ([CacheLevel; MAX_LEVELS], usize) {
    let levels = all.get(..count).unwrap_or(&[]);
    for l in levels {
        say!(
            "cache: L{} {}, {} ({} B lines, {}-way, {} sets)",
            u64::from(l.level),
            l.kind.name(),
            Bytes(l.size()),
            u64::from(l.line),
            u64::from(l.ways),
            u64::from(l.sets)
        );
        let _ = on_cluster(Record::new(&mut Console, &schema::CACHE), cluster)
            .u64("level", l.level.into())
            .str("type", l.kind.name())
            .u64("size", l.size())
            .u64("line", l.line.into())
            .u64("ways", l.ways.into())
            .u64("sets", l.sets.into())
            .finish();
    }
    (all, count)
}

/// `rec` with the `cluster` field of another cluster's sweep, first after its kind.
pub(super) fn on_cluster<'w, W: core::fmt::Write>(
    rec: Record<'w, W>,
    cluster: Option<u16>,
) -> Record<'w, W> {
    match cluster {
        Some(c) => rec.u64("cluster", c.into()),
        None => rec,
    }
}

/// The start of a `result` record: the cluster of another cluster's sweep, the memory type,
/// kernel and granule.
fn result_head<'w>(
    out: &'w mut Console,
    spec: &KernelSpec,
    alias: &Alias,
    cluster: Option<u16>,
) -> Record<'w, Console> {
    on_cluster(Record::new(out, &schema::RESULT), cluster)
        .str("memtype", alias.memtype.name)
        .str("kernel", spec.name)
        .str("granule", alias.granule.name())
}

/// The `result` record of a point not measured: for every size (`size` None) or one.
pub(super) fn skipped(
    spec: &KernelSpec,
    alias: &Alias,
    size: Option<u64>,
    why: &str,
    cluster: Option<u16>,
) {
    let mut out = Console;
    let mut rec = result_head(&mut out, spec, alias, cluster);
    if let Some(size) = size {
        rec = rec.u64("size", size);
    }
    let _ = rec.str("skipped", why).finish();
}

/// The `result` record of a measured point; returns its table value (MB/s, or hundredths of
/// a ns per load or line).
pub(super) fn result(
    spec: &KernelSpec,
    alias: &Alias,
    size: u64,
    p: &Point,
    clock: &Clock,
    (line, retake_of): (u64, Option<u64>),
) -> Option<u64> {
    let (t, freq) = (&p.ticks, clock.freq);
    let mut out = Console;
    let cluster = clock.on.map(|r| r.cluster);
    let mut rec = result_head(&mut out, spec, alias, cluster)
        .u64("size", size)
        .u64("passes", p.passes)
        .u64("reps", t.n.into())
        .u64("best_ticks", t.best)
        .u64("median_ticks", t.median)
        .u64("freq_hz", freq)
        .decimal("cv_pct", t.cv_permille.into(), 1);
    if let Some(c) = &p.cycles {
        rec = rec.u64("best_cycles", c.best);
    }
    let total = p.units.saturating_mul(p.passes);
    // The unit's own field names (`mairbench_core::kernel::Unit`), shared with the reader.
    let unit = spec.unit;
    let bytes = total.saturating_mul(line);
    rec = rec.u64(unit.count_field(), total);
    if unit == Unit::NsPerLine {
        // Maintenance also says how many bytes its lines cover.
        rec = rec.u64("bytes", bytes);
    }
    let (mut rec, value) = rec.unit_values(unit, total, t.best, t.median, freq);
    if unit == Unit::NsPerLine {
        rec = rec.opt_u64("best_mbps", stats::mbps(bytes, t.best, freq));
    }
    rec = match (clock.events, p.events) {
        (Some(e), Some(counts)) => rec.decimals(
            "pmu",
            e.choice().per_line(&counts, covered_bytes(spec, p, line)),
        ),
        _ => rec.null("pmu"),
    };
    rec = rec.str("start", p.start.name());
    if let Some(lines) = p.lines {
        rec = rec.str("line_state", lines.name());
    }
    if let Some(first) = retake_of {
        rec = rec.unit_value(unit, "retake_of", first);
    }
    if let (n, Some(why)) = p.dropped {
        rec = rec.u64("dropped_samples", n).str("dropped_why", why.name());
    }
    let _ = match p.bad {
        None => rec.str("integrity", "ok"),
        Some(off) => rec.hex("integrity_fail_offset", off),
    }
    .finish();
    value
}

/// The bytes one sample covers, for PMU counts per 64-byte line: the bytes moved, a line per
/// dependent load, or the lines maintained.
pub(super) fn covered_bytes(spec: &KernelSpec, p: &Point, line: u64) -> u64 {
    let total = p.units.saturating_mul(p.passes);
    match spec.unit {
        Unit::Bandwidth => total,
        Unit::NsPerLoad => total.saturating_mul(mairbench_core::pmu::LINE),
        Unit::NsPerLine => total.saturating_mul(line),
    }
}

/// Most size columns a firmware table shows (the default sweep's 9 all fit; a longer one
/// names the sizes left out, and the host report shows them all).
const COLUMNS: usize = 9;

/// One kernel's table: a row per memory type on the kernel's granule, plus one for
/// `normal-wb` on the other (a kernel on blocks also runs it on pages); a column per size.
pub(super) struct Table {
    spec: &'static KernelSpec,
    cells: Cells,
}

impl Table {
    pub(super) fn new(spec: &'static KernelSpec) -> Self {
        Table {
            spec,
            cells: [[None; MAX_SIZES]; MEMTYPES.len() + 1],
        }
    }

    /// The row of `alias`: its memory type's on the kernel's granule, else the extra row.
    fn row(&self, alias: &Alias) -> usize {
        if alias.granule == self.spec.granule {
            alias.memtype.index as usize
        } else {
            MEMTYPES.len()
        }
    }

    /// The values of `alias`'s row, a column per size.
    pub(super) fn row_of(&self, alias: &Alias) -> [Option<u64>; MAX_SIZES] {
        self.cells
            .get(self.row(alias))
            .copied()
            .unwrap_or([None; MAX_SIZES])
    }

    /// Notes `value` for `alias` at size column `column`.
    pub(super) fn put(&mut self, alias: &Alias, column: usize, value: Option<u64>) {
        let row = self.row(alias);
        if let Some(cell) = self.cells.get_mut(row).and_then(|r| r.get_mut(column)) {
            *cell = value;
        }
    }

    /// Prints the table: at most [`COLUMNS`] sizes spread over the sweep, and the ratio to
    /// normal-wb at the largest size both were measured at. Not inlined into the kernel's
    /// sweep: the code is shorter apart.
    #[inline(never)]
    pub(super) fn print(&self, sizes: &Sizes, reps: u32, types: &[&Alias]) {
        let spec = self.spec;
        let n = sizes.len();
        let shown = n.min(COLUMNS);
        let columns: [usize; COLUMNS] =
            core::array::from_fn(|i| i * n.saturating_sub(1) / shown.saturating_sub(1).max(1));
        let columns = &columns[..shown];
        let unit = match spec.unit {
            Unit::Bandwidth => "MB/s, best",
            Unit::NsPerLoad => "ns per load, best",
            Unit::NsPerLine => "ns per line, best",
        };
        say!("");
        say!(
            "{} ({unit} of {}): {}",
            spec.name,
            u64::from(reps),
            spec.summary
        );
        if run::emulated() {
            say!("  (emulated: QEMU models no caches; these timings do not reflect memory types)");
            if spec.kernel == Kernel::Latency {
                say!("  {EMULATED_STEPS}");
            }
        }
        if spec.granule == Granule::Block {
            say!("  (2 MiB-block aliases; the row marked (4K) is normal-wb on 4 KiB pages)");
        }
        say_inline!("  {:<18}", "memory type");
        for &col in columns {
            say_inline!(" {:>9}", Bytes(sizes.get(col).unwrap_or(0)));
        }
        say!("  {:>9}", "vs wb");
        let reference = &self.cells[memtype::NORMAL_WB];
        let mut rows: [Option<&Alias>; MEMTYPES.len()] = [None; MEMTYPES.len()];
        for &alias in types {
            let Some(row) = self.cells.get(self.row(alias)) else {
                continue;
            };
            if row.iter().all(Option::is_none) {
                continue;
            }
            if let Some(slot) = rows.get_mut(alias.memtype.index as usize) {
                *slot = Some(alias);
            }
            // The name, marked with the granule when it is not the kernel's own.
            let name = alias.memtype.name;
            let mark = match alias.granule {
                g if g == spec.granule => "",
                Granule::Page => " (4K)",
                Granule::Block => " (2M)",
            };
            let pad = 18usize.saturating_sub(name.len());
            say_inline!("  {name}{mark:<pad$}");
            for &col in columns {
                match (row.get(col).copied().flatten(), spec.unit) {
                    (Some(v), Unit::Bandwidth) => say_inline!(" {v:>9}"),
                    (Some(v), _) => say_inline!(
                        " {:>9}",
                        Decimal {
                            scaled: v,
                            places: 2
                        }
                    ),
                    (None, _) => say_inline!(" {:>9}", "-"),
                }
            }
            let ratio = (0..n)
                .rev()
                .find_map(|c| Some((row.get(c).copied()??, reference.get(c).copied()??)))
                .and_then(|(v, r)| stats::ratio_permille(v, r));
            match ratio {
                Some(r) => say!(
                    "  {:>8}x",
                    Decimal {
                        scaled: r,
                        places: 3
                    }
                ),
                None => say!("  {:>9}", "-"),
            }
        }
        if shown < n {
            say_inline!("  ({shown} of {n} sizes shown; left out: ");
            for (i, c) in (0..n).filter(|c| !columns.contains(c)).enumerate() {
                let sep = if i == 0 { "" } else { ", " };
                say_inline!("{sep}{}", Bytes(sizes.get(c).unwrap_or(0)));
            }
            say!("; the result records and the host report have them all)");
        }
        if spec.unit == Unit::NsPerLine {
            // Which rows time real lines and which the no-line path (schema: line_state).
            say_inline!("  (lines each pass finds:");
            for state in [
                Lines::Dirty,
                Lines::Clean,
                Lines::NotAllocated,
                Lines::NoLine,
            ] {
                let mut first = true;
                for alias in rows.iter().flatten() {
                    if Lines::after_writes(alias.memtype.mair) == state {
                        let lead = if first { " " } else { ", " };
                        say_inline!("{lead}{}", alias.memtype.name);
                        first = false;
                    }
                }
                if !first {
                    say_inline!(" {};", state.name());
                }
            }
            say!(" no-line rows time DC on lines that are never cached)");
        }
        if spec.unit.higher_is_better() {
            say!("  (higher is better; vs wb = this type's bandwidth / normal-wb's)");
        } else {
            say!("  (lower is better; vs wb = this type's time / normal-wb's)");
        }
    }
}
