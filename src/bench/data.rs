//! The data the kernels are checked against: the patterns laid before a point and expected
//! after it, and the check of the check (the lay and check loops find planted wrong words).

use crate::memory::Alias;
use mairbench_core::pattern::{self, Pattern};

/// The position-dependent pattern laid before a point and expected after read kernels.
pub(super) const PATTERN: Pattern = pattern::LAID;

/// What the write kernels leave: 0xdeadbeef and 0xcafebabe, alternating.
pub(super) const WRITTEN: Pattern = pattern::WRITTEN;

/// What `DC ZVA` leaves.
pub(super) const ZERO: Pattern = Pattern::Pair(0, 0);

/// [`PATTERN`] at byte offset `off`.
pub(super) fn pattern(off: u64) -> u64 {
    PATTERN.at(off)
}

/// [`WRITTEN`] at byte offset `off`.
pub(super) fn written(off: u64) -> u64 {
    WRITTEN.at(off)
}

/// Whether the lay and check loops find what they must: a window of `normal-wb` laid with
/// each pattern (write-line's too) checks clean, and one wrong word planted in its assembly
/// part (a line's first word among them), then in the words after it, is found at its offset. Leaves test data in the window.
pub(super) fn check_works(wb: &Alias) -> bool {
    let Some(w) = wb.window(0, 4096 + 24) else {
        return false;
    };
    [PATTERN, WRITTEN, pattern::LINE_WRITTEN]
        .into_iter()
        .all(|p| {
            [8, 64, 2040, 4088, 4096, 4112].into_iter().all(|bad| {
                w.lay(p);
                let clean = w.first_mismatch(p).is_none();
                w.fill(|off| if off == bad { !p.at(off) } else { p.at(off) });
                clean && w.first_mismatch(p) == Some(bad) && w.mismatches(|o| p.at(o)).0 == 1
            })
        })
}
