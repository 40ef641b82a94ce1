//! The fleet table (`cargo host table LOG…`): one row per firmware log (per cluster of a
//! big.LITTLE board: [`figures::rows`]), any mix of boards,
//! with what the run was (board, MIDR, firmware, date, emulated), the status of each of core's
//! verdicts, and the key ratios a performance engineer compares between boards, each with
//! its coefficient of variation.
//!
//! The points are those the verdicts compare, by the rule of core's
//! `crates/core/src/verdict/points.rs`:
//! - the **L1 set**: [`verdict::l1_set_of`](mairbench_core::verdict::l1_set_of), the largest measured size ≤ half the first
//!   reported data cache; without a reported cache, the smallest measured size;
//! - **DRAM size**: the smallest size ≥ 4× the last cache step at which the write-back
//!   reference was measured (`device-read-cliff`'s rule, [`Finding::point`](mairbench_core::system_cache::Finding::point)): the last
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
//!
//! [`figures`] finds each log's points and figures, [`text`] renders the table, `fleet.csv`
//! and `fleet.json`.

pub mod figures;
#[cfg(test)]
mod testing;
pub mod text;

pub use figures::{
    dram, figure, finding, l1_set, row, rows, write_kernel, At, Figure, Key, Row, KEYS,
};
pub use text::{arch_note, csv, json, meaning, meaning_in, table};
