//! Coherence between aliases: data written through one alias must be read back through
//! every other, with the cache maintenance the architecture requires between mismatched
//! attributes (clean+invalidate to the point of coherency around cacheable aliases).

use super::layout::KIB;
use super::Memory;
use crate::arch::barrier::dsb_sy;
use crate::console::Console;
use crate::{run, say};
use mairbench_core::record::Record;
use mairbench_core::schema;
use mairbench_core::verdict::Stale;

/// Bytes written and read back per (writer, reader) pair.
const WINDOW: u64 = 64 * KIB;

impl Memory {
    /// Every ordered pair of page aliases over the first [`WINDOW`] bytes of the buffer; any
    /// mismatch fails the run. Then the same without maintenance, as information. (The block
    /// aliases reach the same memory, as the proof of mapping shows; pairing them too would
    /// take four times as many pairs for no other finding.)
    /// Returns what the demonstration without maintenance showed, for the verdicts.
    #[inline(never)] // its frame is on the stack only during the call
    pub fn coherence(&self) -> Option<Stale> {
        let pages = self.pages();
        let mut total = 0u64;
        let mut bad_pairs = 0;
        for (w, writer) in pages.iter().enumerate() {
            let Some(wrote) = writer.window(0, WINDOW) else {
                continue;
            };
            let pattern = move |off: u64| off ^ ((w as u64 + 1) << 56) ^ 0x5a5a_0000_a5a5_0000;
            wrote.fill(pattern);
            if writer.cacheable() {
                writer.maintain(&wrote); // clean+invalidate, then DSB SY
            } else {
                // The Arm ARM does not order data-cache maintenance by VA after Non-cacheable
                // or Device stores: without this DSB a reader's DC CIVAC through a cacheable
                // alias may run before the stores land, a speculative refill in that window
                // keeps the old data, and a core reports a mismatch that is not there.
                dsb_sy();
            }
            for (r, reader) in pages.iter().enumerate() {
                let Some(read) = reader.window(0, WINDOW).filter(|_| r != w) else {
                    continue;
                };
                reader.maintain(&read);
                let (mismatches, first) = read.mismatches(pattern);
                total += 1;
                bad_pairs += u32::from(mismatches != 0);
                let mut out = Console;
                let mut rec = Record::new(&mut out, &schema::COHERENCE)
                    .str("writer", writer.memtype.name)
                    .str("reader", reader.memtype.name)
                    .u64("bytes", WINDOW)
                    .bool("maintenance", true)
                    .u64("mismatches", mismatches);
                if let Some(off) = first {
                    rec = rec.hex("first_offset", off);
                }
                let _ = rec.bool("ok", mismatches == 0).finish();
            }
        }
        run::check(
            "coherence",
            bad_pairs == 0,
            format_args!(
                "{total} writer/reader pairs of the page aliases, {} KiB each, {} with mismatches (clean+invalidate to PoC around cacheable aliases)",
                WINDOW / KIB,
                u64::from(bad_pairs)
            ),
        );
        self.without_maintenance()
    }

    /// The same experiment without maintenance, as information: old data written to memory
    /// through normal-nc, new data left in the cache through normal-wb, read back through
    /// normal-nc. Real cores may show stale words; QEMU has no caches and never does.
    fn without_maintenance(&self) -> Option<Stale> {
        let wb = self.wb();
        let nc = self
            .pages()
            .iter()
            .find(|a| a.memtype.name == "normal-nc")?;
        let (through_wb, through_nc) = (wb.window(0, WINDOW)?, nc.window(0, WINDOW)?);
        let old = |off: u64| !off;
        let new = |off: u64| off ^ 0x1234_5678_9abc_def0;
        through_nc.fill(old);
        dsb_sy(); // the Non-cacheable stores complete before the DC IVAC (see `coherence`)
        through_wb.invalidate();
        let _ = through_wb.mismatches(old); // allocate clean lines
        through_wb.fill(new); // dirty in the cache, memory still old
        let (stale, _) = through_nc.mismatches(new);
        through_wb.clean_invalidate();
        say!(
            "info: without maintenance, normal-nc read {stale} of {} words written through normal-wb as stale",
            WINDOW / 8
        );
        let _ = Record::new(&mut Console, &schema::COHERENCE)
            .str("writer", wb.memtype.name)
            .str("reader", nc.memtype.name)
            .u64("bytes", WINDOW)
            .bool("maintenance", false)
            .u64("mismatches", stale)
            .bool("informational", true)
            .finish();
        Some(Stale {
            stale_words: stale,
            words: WINDOW / 8,
        })
    }
}
