//! A Linux twin source diagnosed against the heap (`anon`) from the twin's own figures: no
//! firmware log of the board needed.
//!
//! Most users of a board have Linux on it and no bare-metal run. The twin times every source
//! next to `anon`, the process heap, which Linux maps as Normal write-back: how many times
//! slower a source reads and writes than `anon` tells its memory type's class. The public
//! report "Performance Anomaly Investigation" is the case this names: a dma-buf whose
//! `ldp` reads ran about ten times slower than heap memory while its `stp` writes looked
//! fine, because the buffer was mapped uncached and the write buffer hid that on writes.
//!
//! # Rule
//! - **Figures.** For reads, writes and copies, at an L1-sized, an L2-sized and a
//!   DRAM-sized working set ([`levels`]): anon's best MB/s over the source's, in thousandths
//!   ([`Slower::milli`], 1000 = the same speed), and the spread of both: how far each
//!   figure's median sample is below its best, added, in tenths of a percent. (Not the
//!   samples' cv: one sample a busy host delayed makes a cv of 100 % while best and median
//!   stay put.)
//! - **Slow**: every read (write) level the sweep has is at least [`SLOW_MILLI`] (3×) slower
//!   once its spread is taken off. A sweep with one level only (QEMU's twin runs, whose
//!   caches are unknown, stop short of DRAM) is judged on it, and the sentence says so. 3× is well inside what an
//!   uncached mapping costs (the report's ≈ 10×) and well outside how far two cached
//!   mappings of DRAM differ.
//! - **Like anon**: every level within [`LIKE_MILLI`] (1.5×) either way.
//! - [`Finding`]: slow reads with writes like anon are the report's case, an uncached read
//!   path (Device or Non-cacheable memory); slow both ways is uncached memory without
//!   write combining or gathering helping; slow writes only is a mapping whose writes are
//!   not cached (write-through, or no write-allocate); all alike is cached; anything else is
//!   named as between, with its figures, and not labelled.
//! - Copies are shown, not judged: a copy reads one buffer and writes another, which the
//!   read and write figures already separate.
//!
//! Under emulation (QEMU's TCG) caches are not modelled: Device memory's slow path shows,
//! Non-cacheable memory times like write-back ([`EMULATED`]).

use core::fmt;

use crate::format::{Bytes, Decimal};

/// Slower than anon by at least this many thousandths (3×), spread taken off: slow.
pub const SLOW_MILLI: u64 = 3000;

/// Within this many thousandths of anon either way (1.5×): times like anon.
pub const LIKE_MILLI: u64 = 1500;

/// What an emulated run can and cannot show, said under the summary.
pub const EMULATED: &str = "emulated: QEMU models no caches; Device memory's slow path \
shows, Non-cacheable memory times like write-back, so \"times like anon\" does not prove \
cached here";

/// How many times slower than anon one figure is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Slower {
    /// anon's best MB/s over the source's, in thousandths: 1000 the same, 10000 ten times
    /// slower, 500 twice as fast.
    pub milli: u64,
    /// The two figures' spread (best over median, less one, added), in tenths of a percent.
    pub spread_permille: u64,
}

impl Slower {
    /// The figure from anon's and the source's best and median MB/s, as `(best, median)`;
    /// none when either best is 0 (nothing measured).
    pub fn of(anon: (u64, u64), source: (u64, u64)) -> Option<Slower> {
        let (anon_mbps, source_mbps) = (anon.0, source.0);
        let (anon_cv, source_cv) = (spread(anon), spread(source));
        let milli = u128::from(anon_mbps)
            .checked_mul(1000)?
            .checked_div(u128::from(source_mbps))?;
        (anon_mbps > 0).then_some(Slower {
            milli: u64::try_from(milli).unwrap_or(u64::MAX),
            spread_permille: anon_cv.saturating_add(source_cv),
        })
    }

    /// The figure with its spread taken off (towards 1×, never past it).
    fn discounted(self) -> u64 {
        let kept = u128::from(self.milli)
            .saturating_mul(1000)
            .checked_div(u128::from(self.spread_permille.saturating_add(1000)))
            .unwrap_or(0);
        u64::try_from(kept)
            .unwrap_or(u64::MAX)
            .max(1000.min(self.milli))
    }

    /// How far from anon either way, in thousandths (≥ 1000).
    fn apart(self) -> u64 {
        if self.milli >= 1000 {
            self.milli
        } else {
            1_000_000u64.checked_div(self.milli).unwrap_or(u64::MAX)
        }
    }

    /// `11×`, `1.3×` (one decimal below 10×), or `2.0× faster` for a faster figure.
    fn times(self) -> impl fmt::Display {
        Times(self.milli)
    }
}

/// How far a median MB/s is below its best, in tenths of a percent of the median (0 when the
/// median is 0 or above the best).
fn spread((best, median): (u64, u64)) -> u64 {
    let over = u128::from(best.saturating_sub(median)).saturating_mul(1000);
    over.checked_div(u128::from(median))
        .map_or(0, |v| u64::try_from(v).unwrap_or(u64::MAX))
}

/// A ratio in thousandths printed as `11×` / `1.3×` / `0.5×`.
struct Times(u64);

impl fmt::Display for Times {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 >= 10_000 {
            write!(f, "{}×", self.0.saturating_add(500) / 1000)
        } else {
            let tenths = self.0.saturating_add(50) / 100;
            write!(
                f,
                "{}×",
                Decimal {
                    scaled: tenths,
                    places: 1
                }
            )
        }
    }
}

/// A ratio in thousandths as `3.5× slower` or, below 1000, `1.7× faster`.
struct Versus(u64);

impl fmt::Display for Versus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            0 => f.write_str("faster beyond measure"),
            m if m >= 1000 => write!(f, "{} slower", Times(m)),
            m => write!(
                f,
                "{} faster",
                Times(1_000_000u64.checked_div(m).unwrap_or(0))
            ),
        }
    }
}

/// The three working-set levels of the summary.
pub const LEVELS: [&str; 3] = ["L1-sized", "L2-sized", "DRAM-sized"];

/// The working sets of the summary, one per [`LEVELS`] entry, from the sweep's `sizes`
/// (ascending) and the data caches' sizes in bytes, innermost first: the largest size ≤ half
/// the first cache, the largest size ≤ half the second (when there is one, and above the
/// first pick), and the smallest size ≥ [`DRAM_TIMES`](crate::verdict::DRAM_TIMES) × the
/// last. Without cache sizes: the smallest size, none, and the largest size when it is at
/// least [`UNKNOWN_DRAM`] (64 MiB, beyond the last-level caches of the cores this tool
/// meets).
pub fn levels(sizes: &[u64], caches: &[u64]) -> [Option<u64>; 3] {
    let l1 = crate::verdict::l1_set_of(sizes, caches.iter().copied());
    if caches.is_empty() {
        let last = sizes.last().copied().filter(|&s| s >= UNKNOWN_DRAM);
        return [l1, None, last];
    }
    let l2 = caches
        .get(1)
        .and_then(|&c| sizes.iter().rev().copied().find(|&s| s <= c / 2))
        .filter(|&s| Some(s) > l1);
    let bound = crate::verdict::dram_bound(caches.iter().copied());
    let dram = sizes.iter().copied().find(|&s| s >= bound);
    [l1, l2, dram]
}

/// The smallest working set taken as DRAM-sized when the caches' sizes are unknown.
pub const UNKNOWN_DRAM: u64 = 64 << 20;

/// One source's figures at the [`LEVELS`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Figures {
    /// The working set of each level, in bytes (none: the sweep has no such size).
    pub sizes: [Option<u64>; 3],
    /// Reads (`read-ldp`), per level.
    pub read: [Option<Slower>; 3],
    /// Writes (`write-stp`), per level.
    pub write: [Option<Slower>; 3],
    /// Copies, per level: shown, not judged.
    pub copy: [Option<Slower>; 3],
}

/// What a source's figures say.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finding {
    /// Reads slow, writes like anon: an uncached read path, the dma-buf case.
    UncachedReads,
    /// Reads and writes slow: uncached both ways.
    UncachedBoth,
    /// Writes slow, reads like anon: writes not cached.
    UncachedWrites,
    /// Reads and writes like anon: cached.
    Cached,
    /// None of the above: figures between cached and uncached, not labelled.
    Between,
    /// No level of reads or none of writes measured.
    TooFew,
}

/// Whether every present figure passes `test`; none when no figure is present.
fn all_of(figures: &[Option<Slower>; 3], test: impl Fn(Slower) -> bool) -> Option<bool> {
    let present = figures.iter().flatten().count();
    (present >= 1).then(|| figures.iter().flatten().all(|&s| test(s)))
}

/// The largest figure (the quoted one for a slow direction), or the farthest from anon.
fn worst(figures: &[Option<Slower>; 3], key: impl Fn(Slower) -> u64) -> Option<Slower> {
    figures.iter().flatten().copied().max_by_key(|&s| key(s))
}

/// The [`Finding`] of `f`.
pub fn diagnose(f: &Figures) -> Finding {
    let slow = |s: Slower| s.discounted() >= SLOW_MILLI;
    let like = |s: Slower| s.apart() <= LIKE_MILLI;
    let (Some(read_slow), Some(write_slow)) = (all_of(&f.read, slow), all_of(&f.write, slow))
    else {
        return Finding::TooFew;
    };
    let read_like = all_of(&f.read, like) == Some(true);
    let write_like = all_of(&f.write, like) == Some(true);
    match (read_slow, write_slow) {
        (true, true) => Finding::UncachedBoth,
        (true, false) if write_like => Finding::UncachedReads,
        (false, true) if read_like => Finding::UncachedWrites,
        (false, false) if read_like && write_like => Finding::Cached,
        _ => Finding::Between,
    }
}

impl Finding {
    /// Whether reads are the slow path (the summary names such sources as slow readers).
    pub fn slow_reader(self) -> bool {
        matches!(self, Finding::UncachedReads | Finding::UncachedBoth)
    }

    /// A short name for records and tables.
    pub fn name(self) -> &'static str {
        match self {
            Finding::UncachedReads => "uncached-reads",
            Finding::UncachedBoth => "uncached",
            Finding::UncachedWrites => "uncached-writes",
            Finding::Cached => "cached",
            Finding::Between => "between",
            Finding::TooFew => "too-few",
        }
    }
}

/// The one sentence of the summary for `f`, in the words of the dma-buf report.
pub struct Sentence<'f>(pub &'f Figures);

impl fmt::Display for Sentence<'_> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let f = self.0;
        let read = worst(&f.read, |s| s.milli);
        let write = worst(&f.write, |s| s.milli);
        let read_apart = worst(&f.read, Slower::apart);
        let write_apart = worst(&f.write, Slower::apart);
        match (diagnose(f), read, write, read_apart, write_apart) {
            (Finding::UncachedReads, Some(r), _, _, Some(w)) => write!(
                out,
                "reads {} slower than anon while writes are within {}: an uncached read \
                 path (Device or Non-cacheable memory), as in the dma-buf case",
                r.times(),
                Times(w.apart())
            ),
            (Finding::UncachedBoth, Some(r), Some(w), _, _) => write!(
                out,
                "reads {} and writes {} slower than anon: uncached both ways (Device or \
                 Non-cacheable memory, writes not combined)",
                r.times(),
                w.times()
            ),
            (Finding::UncachedWrites, _, Some(w), Some(r), _) => write!(
                out,
                "writes {} slower than anon while reads are within {}: writes not cached \
                 (write-through, or no write-allocate)",
                w.times(),
                Times(r.apart())
            ),
            (Finding::Cached, _, _, Some(r), Some(w)) => write!(
                out,
                "times like anon (reads within {}, writes within {}): cached",
                Times(r.apart()),
                Times(w.apart())
            ),
            (Finding::Between, _, _, Some(r), Some(w)) => write!(
                out,
                "reads up to {} and writes up to {} than anon: between cached and uncached, \
                 not labelled",
                Versus(r.milli),
                Versus(w.milli)
            ),
            _ => {
                return out.write_str(
                    "no read or no write measured next to anon at these working sets: no \
                     diagnosis",
                )
            }
        }?;
        let levels = |d: &[Option<Slower>; 3]| d.iter().flatten().count();
        if levels(&f.read) == 1 || levels(&f.write) == 1 {
            out.write_str(" (from one working set: add an L2- and a DRAM-sized one)")?;
        }
        Ok(())
    }
}

/// The summary's first line, naming the reference and the rule's thresholds (no newline).
pub struct Header<'n>(pub &'n str);

impl fmt::Display for Header<'_> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let base = self.0;
        write!(
            out,
            "diagnosis against {base} (times slower than {base}, best MB/s over best MB/s, \
             spread = each median's distance below its best, added; slow = {} or more with the spread taken off, alike = \
             within {} either way):",
            Times(SLOW_MILLI),
            Times(LIKE_MILLI)
        )
    }
}

/// One source's part of the summary: `  name: sentence`, then its read, write and copy
/// [`Row`]s, each line ended by a newline.
pub struct Block<'f> {
    /// The source's name.
    pub name: &'f str,
    /// Its figures.
    pub figures: &'f Figures,
}

impl fmt::Display for Block<'_> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        let f = self.figures;
        writeln!(out, "  {}: {}", self.name, Sentence(f))?;
        for (name, figures) in [("read", &f.read), ("write", &f.write), ("copy", &f.copy)] {
            let sizes = &f.sizes;
            writeln!(
                out,
                "    {}",
                Row {
                    name,
                    figures,
                    sizes
                }
            )?;
        }
        Ok(())
    }
}

/// One row of the summary's figures: `read 11× ±2.0 % at 16 KiB, ...`.
pub struct Row<'f> {
    /// The direction's name (`read`, `write`, `copy`).
    pub name: &'static str,
    /// Its figures per level.
    pub figures: &'f [Option<Slower>; 3],
    /// The levels' working sets.
    pub sizes: &'f [Option<u64>; 3],
}

impl fmt::Display for Row<'_> {
    fn fmt(&self, out: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(out, "{:<5}", self.name)?;
        for ((level, size), figure) in LEVELS.iter().zip(self.sizes).zip(self.figures) {
            match (size, figure) {
                (Some(size), Some(s)) => write!(
                    out,
                    "  {level} ({}): {} ±{} %",
                    Bytes(*size),
                    s.times(),
                    Decimal {
                        scaled: s.spread_permille,
                        places: 1
                    }
                )?,
                _ => write!(out, "  {level}: -")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;

    fn s(milli: u64) -> Option<Slower> {
        Some(Slower {
            milli,
            spread_permille: 20,
        })
    }

    const SIZES: [Option<u64>; 3] = [Some(16 << 10), Some(256 << 10), Some(64 << 20)];

    /// The dma-buf report's board: reads about ten times slower than heap memory at every
    /// working set, writes as fast (the write buffer hides the uncached mapping).
    fn dma_buf_board() -> Figures {
        Figures {
            sizes: SIZES,
            read: [s(31_000), s(18_000), s(11_000)],
            write: [s(1_300), s(1_100), s(1_000)],
            copy: [s(9_000), s(8_000), s(10_000)],
        }
    }

    /// A healthy board's udmabuf (cached): within a few percent of anon, noise either way.
    fn healthy_board() -> Figures {
        Figures {
            sizes: SIZES,
            read: [s(1_020), s(980), s(1_100)],
            write: [s(1_000), s(1_050), s(940)],
            copy: [s(1_010), s(1_000), s(1_020)],
        }
    }

    #[test]
    fn the_dma_buf_case_is_an_uncached_read_path_in_the_reports_words() {
        let f = dma_buf_board();
        assert_eq!(diagnose(&f), Finding::UncachedReads);
        assert!(diagnose(&f).slow_reader());
        assert_eq!(
            Sentence(&f).to_string(),
            "reads 31× slower than anon while writes are within 1.3×: an uncached read path \
             (Device or Non-cacheable memory), as in the dma-buf case"
        );
    }

    #[test]
    fn a_healthy_board_times_like_anon() {
        let f = healthy_board();
        assert_eq!(diagnose(&f), Finding::Cached);
        assert!(!diagnose(&f).slow_reader());
        assert_eq!(
            Sentence(&f).to_string(),
            "times like anon (reads within 1.1×, writes within 1.1×): cached"
        );
    }

    #[test]
    fn device_memory_without_gathering_is_slow_both_ways() {
        let mut f = dma_buf_board();
        f.write = [s(6_000), s(5_500), s(4_000)];
        assert_eq!(diagnose(&f), Finding::UncachedBoth);
        assert!(diagnose(&f).slow_reader());
        assert!(Sentence(&f)
            .to_string()
            .starts_with("reads 31× and writes 6.0× slower"));
    }

    #[test]
    fn slow_writes_alone_are_writes_not_cached() {
        let mut f = healthy_board();
        f.write = [s(17_000), s(9_000), s(3_500)];
        assert_eq!(diagnose(&f), Finding::UncachedWrites);
        assert!(!diagnose(&f).slow_reader());
        assert!(Sentence(&f)
            .to_string()
            .contains("writes 17× slower than anon while reads are within 1.1×"));
    }

    #[test]
    fn one_fast_level_or_a_middling_figure_is_between_not_a_label() {
        // Slow in DRAM only: a cliff, not a mapping.
        let mut f = healthy_board();
        f.read = [s(1_000), s(1_000), s(3_500)];
        assert_eq!(diagnose(&f), Finding::Between);
        // 2× everywhere: neither like anon nor 3×.
        f.read = [s(2_000), s(2_000), s(2_000)];
        assert_eq!(diagnose(&f), Finding::Between);
        assert!(Sentence(&f).to_string().contains("not labelled"));
        assert!(
            Sentence(&f)
                .to_string()
                .starts_with("reads up to 2.0× slower and writes up to 1.1× faster than anon"),
            "{}",
            Sentence(&f)
        );
        // A source faster than anon says so, not "0.6× slower".
        f.read = [s(600), s(1_000), s(1_000)];
        assert_eq!(diagnose(&f), Finding::Between);
        assert!(
            Sentence(&f)
                .to_string()
                .starts_with("reads up to 1.7× faster and"),
            "{}",
            Sentence(&f)
        );
        assert_eq!(Versus(0).to_string(), "faster beyond measure");
    }

    #[test]
    fn the_spread_is_taken_off_before_calling_a_figure_slow() {
        let mut f = dma_buf_board();
        // 3.2× with a 10 % spread is 2.9× at worst: not slow.
        f.read = [
            Some(Slower {
                milli: 3_200,
                spread_permille: 100,
            }),
            s(11_000),
            s(11_000),
        ];
        assert_eq!(diagnose(&f), Finding::Between);
        f.read[0] = Some(Slower {
            milli: 3_400,
            spread_permille: 100,
        });
        assert_eq!(diagnose(&f), Finding::UncachedReads);
    }

    #[test]
    fn faster_figures_count_as_apart_too() {
        let mut f = healthy_board();
        f.write = [s(500), s(1_000), s(1_000)];
        assert_eq!(diagnose(&f), Finding::Between);
        f.write = [s(700), s(1_000), s(1_000)];
        assert_eq!(diagnose(&f), Finding::Cached);
    }

    #[test]
    fn one_level_is_judged_and_said_none_is_too_few() {
        let mut f = dma_buf_board();
        f.write = [None, None, s(1_000)];
        assert_eq!(diagnose(&f), Finding::UncachedReads);
        assert!(Sentence(&f).to_string().ends_with(
            "as in the dma-buf case (from one working set: add an L2- and a DRAM-sized one)"
        ));
        f.write = [None; 3];
        assert_eq!(diagnose(&f), Finding::TooFew);
        assert!(Sentence(&f).to_string().starts_with("no read or no write"));
        assert_eq!(diagnose(&Figures::default()), Finding::TooFew);
        assert!(!Sentence(&dma_buf_board())
            .to_string()
            .contains("one working set"));
    }

    #[test]
    fn figures_from_speeds_never_divide_by_zero() {
        assert_eq!(Slower::of((22_000, 21_000), (0, 0)), None);
        assert_eq!(Slower::of((0, 0), (1_900, 1_800)), None);
        // 22,000 over 21,000 is 4.7 % (47); 1,900 over 1,800 is 5.5 % (55).
        let s = Slower::of((22_000, 21_000), (1_900, 1_800)).unwrap();
        assert_eq!((s.milli, s.spread_permille), (11_578, 102));
        assert_eq!(Times(s.milli).to_string(), "12×");
        assert_eq!(Slower::of((u64::MAX, 0), (1, 1)).unwrap().milli, u64::MAX);
        // A median of 0 or above the best adds nothing.
        assert_eq!(
            Slower::of((1_000, 0), (1_000, 2_000))
                .unwrap()
                .spread_permille,
            0
        );
    }

    #[test]
    fn levels_follow_the_verdicts_rules_and_name_what_is_missing() {
        let sizes: std::vec::Vec<u64> = (12..=26).map(|p| 1u64 << p).collect();
        // 32 KiB L1, 1 MiB L2: 16 KiB, 512 KiB, 4 MiB.
        assert_eq!(
            levels(&sizes, &[32 << 10, 1 << 20]),
            [Some(16 << 10), Some(512 << 10), Some(4 << 20)]
        );
        // L1 only: no L2-sized point; DRAM from it.
        assert_eq!(
            levels(&sizes, &[32 << 10]),
            [Some(16 << 10), None, Some(128 << 10)]
        );
        // Unknown caches: the smallest and (≥ 64 MiB) the largest.
        assert_eq!(levels(&sizes, &[]), [Some(4 << 10), None, Some(64 << 20)]);
        assert_eq!(levels(&sizes[..10], &[]), [Some(4 << 10), None, None]);
        // A sweep that stops short of DRAM.
        assert_eq!(
            levels(&sizes[..5], &[32 << 10, 4 << 20]),
            [Some(16 << 10), Some(64 << 10), None]
        );
        assert_eq!(levels(&[], &[32 << 10]), [None, None, None]);
    }

    #[test]
    fn a_block_is_the_sentence_then_three_rows() {
        let f = dma_buf_board();
        let text = Block {
            name: "dma-buf:card0",
            figures: &f,
        }
        .to_string();
        let lines: std::vec::Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 4, "{text}");
        assert!(
            lines[0].starts_with("  dma-buf:card0: reads 31× slower"),
            "{text}"
        );
        assert!(
            lines[1].starts_with("    read   L1-sized (16 KiB): 31×"),
            "{text}"
        );
        assert!(lines[2].starts_with("    write "), "{text}");
        assert!(lines[3].starts_with("    copy  "), "{text}");
        assert!(text.ends_with('\n'));
        assert!(Header("anon").to_string().contains("slow = 3.0× or more"));
    }

    #[test]
    fn rows_say_units_sizes_and_spread() {
        let f = dma_buf_board();
        let row = Row {
            name: "read",
            figures: &f.read,
            sizes: &f.sizes,
        };
        assert_eq!(
            row.to_string(),
            "read   L1-sized (16 KiB): 31× ±2.0 %  L2-sized (256 KiB): 18× ±2.0 %  DRAM-sized (64 MiB): 11× ±2.0 %"
        );
        let gap = [None, s(1_000), None];
        let row = Row {
            name: "write",
            figures: &gap,
            sizes: &SIZES,
        };
        assert!(row.to_string().contains("L1-sized: -"), "{row}");
    }
}
