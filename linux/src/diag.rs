//! The closing diagnosis: the figures core's `diagnosis` reads, kept as points are timed,
//! and the summary of every source against `anon` after the sweep.

use crate::Out;
use core::fmt::Write;
use mairbench_core::diagnosis::{self, Caches, Series, Sweep};
use mairbench_core::kernel::Kernel;
use mairbench_core::source::Form;
use mairbench_core::sweep::{Sizes, MAX_SIZES};
use mairbench_core::system_cache;

/// How many sources the closing diagnosis keeps figures of, the reference included; a run
/// with more names the ones left out.
const DIAG_SOURCES: usize = 16;

/// The kernels of the diagnosis: reads, writes, copies out of the source (core's
/// `diagnosis::Figures` order).
const DIAG_KERNELS: [Kernel; 3] = [Kernel::ReadLdp, Kernel::WriteStp, Kernel::CopyFrom];

/// One source's best and median MB/s per diagnosis kernel and working set of the sweep.
#[derive(Clone, Copy)]
struct DiagRow {
    name: [u8; 64],
    len: usize,
    figures: [[Option<(u64, u64)>; MAX_SIZES]; 3],
}

impl Default for DiagRow {
    fn default() -> DiagRow {
        DiagRow {
            name: [0; 64],
            len: 0,
            figures: [[None; MAX_SIZES]; 3],
        }
    }
}

impl DiagRow {
    fn name(&self) -> &str {
        core::str::from_utf8(self.name.get(..self.len).unwrap_or_default()).unwrap_or("?")
    }
}

/// The figures the closing diagnosis (core's `diagnosis`) reads, kept as points are timed.
#[derive(Default)]
pub struct Diag {
    /// The sweep's working sets.
    pub sizes: Sizes,
    /// The data and unified caches' sizes, innermost first (`cache_sizes`).
    pub caches: ([u64; 8], usize),
    rows: [DiagRow; DIAG_SOURCES],
    n: usize,
    /// The reference's (`anon`) `latency` best per working set, hundredths of a ns: the
    /// curve a system cache shows in.
    latency: [Option<u64>; MAX_SIZES],
    /// Sources beyond [`DIAG_SOURCES`].
    left_out: u64,
}

impl Diag {
    /// Keeps a measured, intact point of a diagnosis kernel at one of the sweep's sizes.
    pub fn keep(&mut self, source: &str, kernel: Kernel, size: u64, best_mbps: u64, median: u64) {
        let Some(k) = DIAG_KERNELS.iter().position(|&d| d == kernel) else {
            return;
        };
        let Some(at_size) = self.sizes.iter().position(|s| s == size) else {
            return;
        };
        let at = match self
            .rows
            .get(..self.n)
            .unwrap_or_default()
            .iter()
            .position(|r| r.name.get(..r.len) == Some(source.as_bytes()))
        {
            Some(at) => at,
            None if self.n < DIAG_SOURCES && source.len() <= 64 => {
                let row = &mut self.rows[self.n];
                row.name[..source.len()].copy_from_slice(source.as_bytes());
                row.len = source.len();
                self.n += 1;
                self.n - 1
            }
            None => {
                self.left_out += 1;
                return;
            }
        };
        self.rows[at].figures[k][at_size] = Some((best_mbps, median));
    }

    /// Keeps the reference's intact `latency` point (best, hundredths of a ns).
    pub fn keep_latency(&mut self, source: &str, size: u64, best: u64) {
        let at = self.sizes.iter().position(|s| s == size);
        let slot = at.and_then(|i| self.latency.get_mut(i));
        if let Some(slot) = slot.filter(|_| source == Form::Anon.form()) {
            *slot = Some(best);
        }
    }

    /// The summary against the reference ([`Form::Anon`]), after the sweep: first what the
    /// reference's latency curve shows past the caches Linux lists (the `system-cache` line
    /// and record), whose DRAM level the summary then uses.
    pub fn say(&self, out: &mut Out, emulated: bool) {
        let name = DiagRow::name;
        let rows = self.rows.get(..self.n).unwrap_or_default();
        let base = Form::Anon.form();
        let (listed, n_listed) = &self.caches;
        let listed = listed.get(..*n_listed).unwrap_or_default();
        let sizes = self.sizes.as_slice();
        let finding = diagnosis::reference_finding(sizes, &self.latency, listed, emulated);
        let caches = Caches::new(listed, &finding);
        if let Some(anon) = rows.iter().find(|r| name(r) == base) {
            let reads = sizes
                .iter()
                .zip(&anon.figures[0])
                .filter(|(_, f)| f.is_some());
            let dram = finding.point(reads.map(|(&size, _)| size));
            say!(out, "{}", finding.line_in(dram, &system_cache::TWIN));
            let _ = finding.record(out, dram);
        }
        let Some(anon) = rows.iter().find(|r| name(r) == base) else {
            if rows.iter().any(|r| name(r) != base) {
                say!(
                    out,
                    "diagnosis: no {base} figures to compare the sources with (map {base} too)"
                );
            }
            return;
        };
        if rows.len() < 2 {
            return;
        }
        say!(out, "{}", diagnosis::Header(base));
        let sweep = Sweep {
            sizes,
            caches: caches.as_slice(),
            emulated,
        };
        for row in rows.iter().filter(|r| name(r) != base) {
            let of = |k: usize| {
                Series::of(self.sizes.iter().enumerate().map(|(i, size)| {
                    let figure = anon.figures[k][i]
                        .zip(row.figures[k][i])
                        .and_then(|(a, s)| diagnosis::Slower::of(a, s));
                    (size, figure)
                }))
            };
            let figures = diagnosis::Figures::new(&sweep, of(0), of(1), of(2));
            let _ = write!(
                out,
                "{}",
                diagnosis::Block {
                    name: name(row),
                    figures: &figures
                }
            );
        }
        if self.left_out > 0 {
            say!(
                out,
                "  ({} points of sources beyond the first {DIAG_SOURCES} not diagnosed)",
                self.left_out
            );
        }
        if emulated {
            say!(out, "  ({})", diagnosis::EMULATED);
        }
    }
}
