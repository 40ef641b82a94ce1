//! Huge pages: the anonymous mappings, 2 MiB-aligned and advised as `mairbench.hugepages=`
//! says, and how much of a range is mapped with 2 MiB entries (PAGEMAP_SCAN, else
//! /proc/self/smaps).

use crate::{errno_name, sys, Ctx, Out, Tally};
use core::fmt::{self, Write};
use mairbench_core::bootargs::Hugepages;
use mairbench_core::format::Bytes;
use mairbench_core::source;

/// The kernel's transparent huge page setting (Documentation/admin-guide/mm/transhuge.rst).
const THP_ENABLED: &str = "/sys/kernel/mm/transparent_hugepage/enabled";
/// What the anonymous mappings are aligned to, so that THP can map them with PMD entries
/// (2 MiB with arm64's 4 KiB granule, which Debian's kernel uses).
const HUGE_ALIGN: u64 = 2 << 20;

/// The largest /proc/self/smaps the twin reads (under user-mode QEMU it is QEMU's own, with
/// a few hundred VMAs); a longer one is read up to here.
const SMAPS_MAX: u64 = 4 << 20;

/// A private anonymous mapping of `len` bytes (rounded up to 4 KiB), `skew` bytes past a
/// 2 MiB boundary (0: aligned, so that THP can map it with PMD entries), advised as
/// `hugepages` says: the mapping, and the errno of a refused madvise (the mapping is kept:
/// the kernel's default applies).
pub fn anon_mapping(
    len: u64,
    skew: u64,
    hugepages: Hugepages,
) -> Result<(sys::Mapping, Option<i64>), i64> {
    let len = len.div_ceil(4096).checked_mul(4096).ok_or(12)?;
    let m = sys::Mapping::anon_aligned(len, HUGE_ALIGN, skew)?;
    let advice = match hugepages {
        Hugepages::Auto => Ok(()),
        Hugepages::On => m.advise_huge(true),
        Hugepages::Off => m.advise_huge(false),
    };
    Ok((m, advice.err()))
}

/// Writes a zero to the first word of every 4 KiB page of `m` (before anything is laid),
/// so that each page is faulted in.
pub fn populate(m: &mut sys::Mapping) {
    for w in m.words().iter_mut().step_by(4096 / 8) {
        *w = 0;
    }
}

/// How many bytes of `[va, va + len)` are mapped with 2 MiB (PMD) entries, and how that was
/// found: by the PAGEMAP_SCAN ioctl (exact, Linux 6.7 and later), else by /proc/self/smaps
/// ([`huge_by_smaps`]). `None` when neither can say.
pub fn huge_bytes(va: u64, len: u64) -> Option<(u64, &'static str)> {
    match sys::huge_bytes_in(va, len) {
        Ok(h) => Some((h, "PAGEMAP_SCAN of /proc/self/pagemap")),
        Err(_) => huge_by_smaps(va, len).map(|h| (h, SMAPS_HOW)),
    }
}

/// How [`huge_by_smaps`] finds it.
const SMAPS_HOW: &str = "AnonHugePages + ShmemPmdMapped + FilePmdMapped of /proc/self/smaps";

/// How many bytes of `[va, va + len)` are mapped with 2 MiB entries by /proc/self/smaps,
/// for the VMA that holds the range: its PMD-mapped bytes when the VMA is exactly the range;
/// for a larger VMA (Linux merges neighbouring mappings of the same flags) 0 when none of it
/// is huge, `len` when all of it is, `None` otherwise (smaps cannot say which part), or
/// when smaps cannot be read or has no such VMA.
fn huge_by_smaps(va: u64, len: u64) -> Option<u64> {
    let mut buf = sys::Mapping::anon(SMAPS_MAX).ok()?;
    let text = sys::read_all("/proc/self/smaps", buf.bytes()).ok()?;
    // A cut in the middle of a character: what is valid before it.
    let text = match core::str::from_utf8(text) {
        Ok(t) => t,
        Err(e) => core::str::from_utf8(text.get(..e.valid_up_to())?).ok()?,
    };
    let vma = source::smaps_vma(text, va).filter(|v| v.holds(va, len))?;
    if vma.start == va && vma.end == va.checked_add(len)? {
        return Some(vma.huge_bytes.min(len));
    }
    vma.all_huge().map(|all| if all { len } else { 0 })
}

/// The granule the point's range `[va, va + size)` is mapped with, as the firmware's
/// `granule` says it: "2M" when all of it is on PMD entries, "4K" when any of it is not;
/// `None` when unknown ([`huge_bytes`]).
pub fn granule(va: u64, size: u64) -> Option<&'static str> {
    huge_bytes(va, size).map(|(h, _)| if h >= size { "2M" } else { "4K" })
}

/// The kernel's THP setting ([`source::thp_setting`] of [`THP_ENABLED`]), read into `buf`.
pub fn thp_setting(buf: &mut [u8; 128]) -> Option<&str> {
    sys::read_file(THP_ENABLED, buf)
        .ok()
        .and_then(|t| core::str::from_utf8(t).ok())
        .and_then(source::thp_setting)
}

/// anon's line on `mairbench.hugepages=`: the advice given, or the errno of a refused one
/// (a warning).
pub fn say_advice(
    out: &mut Out,
    tally: &mut Tally,
    ctx: &Ctx<'_>,
    spec: &str,
    advice: Option<i64>,
) {
    match advice {
        Some(e) => {
            tally.warnings += 1;
            say!(
                out,
                "source {spec}: mairbench.hugepages={}: madvise refused: {} (errno {e}); \
                 the kernel's default applies",
                ctx.hugepages.name(),
                errno_name(e)
            );
        }
        None => say!(
            out,
            "source {spec}: mairbench.hugepages={} ({}), mapped 2 MiB-aligned; the \
             kernel's THP setting: {} ({THP_ENABLED})",
            ctx.hugepages.name(),
            match ctx.hugepages {
                Hugepages::Auto => "no advice",
                Hugepages::On => "MADV_HUGEPAGE",
                Hugepages::Off => "MADV_NOHUGEPAGE",
            },
            ctx.thp.unwrap_or("unknown")
        ),
    }
}

/// The line of how much of the mapping `m` is on 2 MiB entries (`huge`), and how that was
/// found.
pub fn say_huge(
    out: &mut Out,
    spec: &str,
    anon: bool,
    m: &sys::Mapping,
    huge: Option<(u64, &'static str)>,
) {
    match huge {
        Some((bytes, how)) => say!(
            out,
            "source {spec}: {} of {} on 2 MiB entries ({how}{}){}",
            Bytes(bytes),
            Bytes(m.size()),
            if anon {
                ""
            } else {
                "; before the sweep touches it"
            },
            SmapsNote {
                how,
                smaps: huge_by_smaps(m.va(), m.size())
            }
        ),
        None => say!(
            out,
            "source {spec}: how much is on 2 MiB entries is unknown (no PAGEMAP_SCAN, and \
             /proc/self/smaps has no VMA that says)"
        ),
    }
}

/// Where [`huge_bytes`] used PAGEMAP_SCAN, what smaps says too (a check of one on the other).
struct SmapsNote {
    how: &'static str,
    smaps: Option<u64>,
}

impl fmt::Display for SmapsNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.smaps {
            Some(h) if self.how != SMAPS_HOW => write!(f, "; smaps: {}", Bytes(h)),
            _ => Ok(()),
        }
    }
}
