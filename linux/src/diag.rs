//! The closing diagnosis: the figures core's `diagnosis` reads, kept as points are timed,
//! and the summary of every source against `anon` after the sweep.

use crate::Out;
use core::fmt::Write;
use mairbench_core::diagnosis;
use mairbench_core::kernel::Kernel;
use mairbench_core::source::Form;

/// How many sources the closing diagnosis keeps figures of, the reference included; a run
/// with more names the ones left out.
const DIAG_SOURCES: usize = 16;

/// The kernels of the diagnosis: reads, writes, copies out of the source (core's
/// `diagnosis::Figures` order).
const DIAG_KERNELS: [Kernel; 3] = [Kernel::ReadLdp, Kernel::WriteStp, Kernel::CopyFrom];

/// One source's best and median MB/s per diagnosis kernel and level.
#[derive(Clone, Copy)]
struct DiagRow {
    name: [u8; 64],
    len: usize,
    figures: [[Option<(u64, u64)>; 3]; 3],
}

impl Default for DiagRow {
    fn default() -> DiagRow {
        DiagRow {
            name: [0; 64],
            len: 0,
            figures: [[None; 3]; 3],
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
    /// The working set of each level (`diagnosis::levels`).
    pub levels: [Option<u64>; 3],
    rows: [DiagRow; DIAG_SOURCES],
    n: usize,
    /// Sources beyond [`DIAG_SOURCES`].
    left_out: u64,
}

impl Diag {
    /// Keeps a measured, intact point of a diagnosis kernel at a level's size.
    pub fn keep(&mut self, source: &str, kernel: Kernel, size: u64, best_mbps: u64, median: u64) {
        let Some(k) = DIAG_KERNELS.iter().position(|&d| d == kernel) else {
            return;
        };
        let Some(level) = self.levels.iter().position(|&l| l == Some(size)) else {
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
        self.rows[at].figures[k][level] = Some((best_mbps, median));
    }

    /// The summary against the reference ([`Form::Anon`]), after the sweep.
    pub fn say(&self, out: &mut Out, emulated: bool) {
        let name = DiagRow::name;
        let rows = self.rows.get(..self.n).unwrap_or_default();
        let base = Form::Anon.form();
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
        for row in rows.iter().filter(|r| name(r) != base) {
            let of = |k: usize| -> [Option<diagnosis::Slower>; 3] {
                core::array::from_fn(|level| {
                    diagnosis::Slower::of(anon.figures[k][level]?, row.figures[k][level]?)
                })
            };
            let figures = diagnosis::Figures {
                sizes: self.levels,
                read: of(0),
                write: of(1),
                copy: of(2),
            };
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
