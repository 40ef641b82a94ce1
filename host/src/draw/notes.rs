//! What a chart of a run says besides its data: the title with the platform, the notes under
//! it (emulated, the guest's caches, the types the firmware skipped), and the cache markers.

use super::frame::Header;
use super::look::order;
use super::panel::{log2, Mark};
use super::style::{
    CACHE_COLOUR, EMULATED_NOTE, FOOT_COLOUR, GUEST, GUEST_CACHES_NOTE, NOTE_COLOUR,
};
use crate::read::model::{self, CacheLevel, Run};
use mairbench_core::format::ShortBytes;

/// The run's cache markers: `L1 32K`, or for an emulated run `guest L1 32K` (the geometry the
/// guest reports, [`GUEST_CACHES_NOTE`]).
pub(super) fn run_marks(run: &Run) -> Vec<Mark> {
    cache_marks(&run.caches, if run.emulated { GUEST } else { "" })
}

/// [`run_header`] with the notes a chart of `kernels` needs under the title: what the cache
/// markers of an emulated run are ([`GUEST_CACHES_NOTE`]), and which memory types the firmware
/// skipped for each kernel and why (`fill-zva` on Device memory), so that a missing line is
/// explained.
pub(super) fn noted_header(run: &Run, title: &str, kernels: &[&str], marks: &[Mark]) -> Header {
    let mut header = run_header(run, title);
    if run.emulated && !marks.is_empty() {
        header
            .lines
            .push((GUEST_CACHES_NOTE.to_string(), CACHE_COLOUR));
    }
    for line in skipped_notes(run, kernels) {
        header.lines.push((line, FOOT_COLOUR));
    }
    header
}

/// One sentence per kernel of `kernels` and reason the run skipped it for: "not measured,
/// skipped by the firmware: fill-zva on device-ngnrne, device-gre (real cores take an
/// alignment fault for DC ZVA to Device memory)", the types in table order; "at some sizes"
/// when the records name sizes.
fn skipped_notes(run: &Run, kernels: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for kernel in kernels {
        let mut reasons: Vec<&str> = Vec::new();
        for s in run.skipped.iter().filter(|s| s.kernel == *kernel) {
            if !reasons.contains(&s.why.as_str()) {
                reasons.push(&s.why);
            }
        }
        for why in reasons {
            let of = || {
                run.skipped
                    .iter()
                    .filter(move |s| s.kernel == *kernel && s.why == why)
            };
            let mut types: Vec<&str> = model::distinct(of().map(|s| s.memtype.as_str()));
            types.sort_by_key(|t| order(t));
            let sizes = if of().any(|s| s.size.is_some()) {
                " at some sizes"
            } else {
                ""
            };
            out.push(format!(
                "not measured, skipped by the firmware: {kernel} on {}{sizes} ({why})",
                types.join(", ")
            ));
        }
    }
    out
}

/// A chart's header: the title with the platform, the emulated note, and the MIDR and
/// firmware version under the legend.
pub(super) fn run_header(run: &Run, title: &str) -> Header {
    let title = if run.platform.is_empty() {
        title.to_string()
    } else {
        format!("{title} \u{2014} {}", run.platform)
    };
    let mut footer = Vec::new();
    if !run.midr.is_empty() {
        footer.push(format!("MIDR {}", run.midr));
    }
    if !run.version.is_empty() {
        footer.push(format!("mairbench {}", run.version));
    }
    Header {
        title,
        lines: if run.emulated {
            vec![(EMULATED_NOTE.to_string(), NOTE_COLOUR)]
        } else {
            Vec::new()
        },
        footer,
        legend: run.rows().label,
    }
}

/// The cache markers of `caches`, one per distinct (level, size), labelled "L1 32K".
pub(super) fn cache_marks(caches: &[CacheLevel], prefix: &str) -> Vec<Mark> {
    let mut seen: Vec<(u8, u64)> = Vec::new();
    let mut out = Vec::new();
    for c in caches {
        if c.size == 0 || seen.contains(&(c.level, c.size)) {
            continue;
        }
        seen.push((c.level, c.size));
        out.push((
            log2(c.size),
            format!("{prefix}L{} {}", c.level, ShortBytes(c.size)),
        ));
    }
    out
}
