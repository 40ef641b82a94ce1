//! PMU evidence that the write-back alias holds its lines: what `caches-on` and
//! `write-allocate` may take instead of a timing ratio.
//!
//! Only positive, compared evidence counts. The absence of L1D refills alone says nothing:
//! Arm's event descriptions (ARM-software/data, `pmu/cortex-a55.json`, `cortex-a76.json`,
//! `neoverse-n1.json`, `cortex-a78.json`, L1D_CACHE_REFILL) exclude non-cacheable accesses
//! and writes that do not allocate into L1, so a write-back alias that is in effect
//! non-cacheable, or whose writes do not allocate (the armv7 report's policy), refills nothing
//! at all. Two comparisons do show where the accesses went:
//! - **outward**: an event that sees accesses leave L1 (`l2d_cache`, the bus split's
//!   `bus_access_rd`/`bus_access_wr`, `bus_access`) counts at least [`SEEN_PER_LINE`] through
//!   the non-cacheable alias and at most [`NONE_PER_LINE`] through the write-back alias at
//!   the same point: the event sees the accesses, and write-back's stayed inside;
//! - **refills**: the write-back alias refills at most [`NONE_PER_LINE`] at the L1 set and at
//!   least [`SEEN_PER_LINE`] at a DRAM set: its misses do refill, and the L1 set stays.

use core::fmt;

use super::points::{centi, named, position, View};
use super::{event, Evidence, Sweep};
use crate::format::Bytes;
use crate::kernel::Kernel;
use crate::memtype::Role;

/// "≈0 per line": at most 0.10 counts per 64-byte line (hundredths).
pub const NONE_PER_LINE: u64 = 10;

/// "The event sees these accesses": at least 0.50 counts per 64-byte line (hundredths).
pub const SEEN_PER_LINE: u64 = 50;

/// Whether the accesses read or write: which half of the bus split is asked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// Loads.
    Read,
    /// Stores.
    Write,
}

/// An outward event with the evidence keys of its write-back and non-cacheable counts.
struct Outward {
    event: &'static str,
    wb_key: &'static str,
    nc_key: &'static str,
}

const fn outward(event: &'static str, wb_key: &'static str, nc_key: &'static str) -> Outward {
    Outward {
        event,
        wb_key,
        nc_key,
    }
}

/// The outward events asked about loads, most direct first.
const READS: [Outward; 3] = [
    L2D_CACHE,
    outward(
        event::BUS_ACCESS_RD,
        "wb_bus_access_rd_per_line",
        "nc_bus_access_rd_per_line",
    ),
    BUS_ACCESS,
];

/// The outward events asked about stores, most direct first.
const WRITES: [Outward; 3] = [
    L2D_CACHE,
    outward(
        event::BUS_ACCESS_WR,
        "wb_bus_access_wr_per_line",
        "nc_bus_access_wr_per_line",
    ),
    BUS_ACCESS,
];

const L2D_CACHE: Outward = outward(
    event::L2D_CACHE,
    "wb_l2d_cache_per_line",
    "nc_l2d_cache_per_line",
);

const BUS_ACCESS: Outward = outward(
    event::BUS_ACCESS,
    "wb_bus_access_per_line",
    "nc_bus_access_per_line",
);

/// What the PMU said about the write-back alias's lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Held {
    /// They stayed: an outward event saw the non-cacheable alias's accesses leave and not
    /// the write-back alias's.
    Outward {
        /// The event that decided.
        event: &'static str,
        /// Its count per line through the write-back alias, hundredths.
        wb: u64,
        /// Through the non-cacheable alias, hundredths.
        nc: u64,
    },
    /// They stayed: no refills at the L1 set, refills at a DRAM set.
    Refills {
        /// Refills per line at the L1 set, hundredths.
        near: u64,
        /// The DRAM set.
        far_size: u64,
        /// Refills per line there, hundredths.
        far: u64,
    },
    /// They left: an outward event saw the write-back alias's accesses leave as the
    /// non-cacheable alias's did (at least half as many per line).
    Left {
        /// The event that decided.
        event: &'static str,
        /// Its count per line through the write-back alias, hundredths.
        wb: u64,
        /// Through the non-cacheable alias, hundredths.
        nc: u64,
    },
}

impl Held {
    /// Whether the lines stayed.
    pub fn stayed(self) -> bool {
        !matches!(self, Held::Left { .. })
    }
}

impl fmt::Display for Held {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (wb, nc) = (
            const { named(Role::WriteBack) },
            const { named(Role::NonCacheable) },
        );
        match *self {
            Held::Outward {
                event,
                wb: w,
                nc: n,
            }
            | Held::Left {
                event,
                wb: w,
                nc: n,
            } => write!(
                f,
                "the PMU's {event} counts {} per line through {wb} and {} through {nc}",
                centi(w),
                centi(n)
            ),
            Held::Refills {
                near,
                far_size,
                far,
            } => write!(
                f,
                "the PMU's {} counts {} per line through {wb} at the L1 set and {} at {}",
                event::L1D_CACHE_REFILL,
                centi(near),
                centi(far),
                Bytes(far_size)
            ),
        }
    }
}

/// The PMU's word on `kernel`'s write-back lines at the L1 set `size`, with every count it
/// read pushed to `e`; None when no comparison decides (no PMU, an event not counted, or
/// counts in between). Not inlined: `caches-on` and `write-allocate` share one copy.
#[inline(never)]
pub(super) fn judge<S: Sweep + ?Sized>(
    v: &View<'_, '_, S>,
    kernel: Kernel,
    direction: Direction,
    size: u64,
    e: &mut Evidence,
) -> Option<Held> {
    let (wb, nc) = (position(Role::WriteBack), position(Role::NonCacheable));
    let pmu = |memtype, size, event| v.i.sweep.pmu(kernel, memtype, size, event);
    // The first event that decides, else the first counted for both: its pair goes to `e`.
    let mut found = None;
    let mut shown = None;
    let events: &'static [Outward; 3] = match direction {
        Direction::Read => &READS,
        Direction::Write => &WRITES,
    };
    for o in events {
        let (Some(w), Some(n)) = (pmu(wb, size, o.event), pmu(nc, size, o.event)) else {
            continue;
        };
        shown = shown.or(Some((o, w, n)));
        let decided = if n < SEEN_PER_LINE {
            None
        } else if w <= NONE_PER_LINE {
            Some(Held::Outward {
                event: o.event,
                wb: w,
                nc: n,
            })
        } else if w.saturating_mul(2) >= n {
            Some(Held::Left {
                event: o.event,
                wb: w,
                nc: n,
            })
        } else {
            None
        };
        if decided.is_some() {
            (found, shown) = (decided, Some((o, w, n)));
            break;
        }
    }
    if let Some((o, w, n)) = shown {
        e.hundredths(o.wb_key, w);
        e.hundredths(o.nc_key, n);
    }
    let near = pmu(wb, size, event::L1D_CACHE_REFILL);
    if let Some(r) = near {
        e.hundredths("l1d_cache_refill_per_line", r);
    }
    if found.is_some() {
        return found;
    }
    let far = v
        .dram(kernel, wb)
        .and_then(|(p, _)| Some((p.size, pmu(wb, p.size, event::L1D_CACHE_REFILL)?)));
    match (near, far) {
        (Some(near), Some((far_size, far))) if near <= NONE_PER_LINE && far >= SEEN_PER_LINE => {
            e.whole("dram_size_bytes", far_size);
            e.hundredths("dram_l1d_cache_refill_per_line", far);
            Some(Held::Refills {
                near,
                far_size,
                far,
            })
        }
        _ => None,
    }
}
