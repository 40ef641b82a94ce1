//! `discover` and the DTB reader on thousands of truncated and corrupted device
//! trees: they must never panic (a panic fails the test), `discover` must fall
//! back consistently, and the reader must read what `dtoolkit` reads.
//!
//! Every case also goes to `dtoolkit` 0.4.1, the oracle:
//! - `mairbench_core::fdt::Fdt::new` accepts nothing that `dtoolkit`'s
//!   `Fdt::new` rejects for a structural reason, and rejects nothing it accepts
//!   but for a structure running past `size_dt_struct`;
//! - on a blob both accept, both readers list the same nodes (by path) and the
//!   same properties (names and values), in the same order;
//! - on a blob only ours accepts (`dtoolkit` enforcing the specification's
//!   naming rules or checking the memory reservation map), `dtoolkit`'s readers,
//!   run unchecked, list it as ours does.

mod common;

use std::collections::BTreeMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use common::oracle::compare;
use common::{fixture, Rng, FDT_BEGIN_NODE, FDT_END, FDT_END_NODE, FDT_NOP, FDT_PROP};
use dtoolkit::error::FdtErrorKind;
use mairbench_core::fdt::Fdt;
use mairbench_core::platform::{discover, dtb_size, Platform, Problem, QEMU_VIRT};

fn field(dtb: &[u8], i: usize) -> usize {
    u32::from_be_bytes(dtb[i * 4..i * 4 + 4].try_into().unwrap()) as usize
}

fn set_field(dtb: &mut [u8], i: usize, v: usize) {
    dtb[i * 4..i * 4 + 4].copy_from_slice(&(v as u32).to_be_bytes());
}

#[derive(Default)]
struct Stats {
    cases: usize,
    accepted: usize,
    /// Accepted by `dtoolkit`'s `Fdt::new`.
    dtoolkit_accepted: usize,
    /// Accepted by `dtoolkit`'s `Fdt::new` but not by ours: their structure runs
    /// past `size_dt_struct`, which `dtoolkit` does not check.
    dtoolkit_only: usize,
    /// Accepted by ours but not by `dtoolkit`'s `Fdt::new`, by its reason.
    ours_only: BTreeMap<String, usize>,
    /// Listed alike by both readers: accepted by both...
    same_listing: usize,
    /// ...or by ours only, `dtoolkit` reading unchecked.
    same_listing_unchecked: usize,
    /// Nodes and properties in those listings.
    items: usize,
    failures: Vec<String>,
}

impl Stats {
    fn run(&mut self, case: String, dtb: &[u8]) {
        self.cases += 1;
        let p = match catch_unwind(AssertUnwindSafe(|| discover(Some(dtb)))) {
            Err(_) => return self.failures.push(format!("{case}: discover panicked")),
            Ok(p) => p,
        };
        if let Err(why) = consistent(&p) {
            self.failures.push(format!("{case}: {why}"));
        }
        self.accepted += usize::from(p.dtb_ok);

        // Our reader, over every node and property.
        let ours = catch_unwind(|| {
            let fdt = Fdt::new(dtb).ok()?;
            read_everything(fdt);
            Some(fdt)
        });
        let Ok(ours) = ours else {
            return self
                .failures
                .push(format!("{case}: the fdt reader panicked"));
        };
        if ours.is_some() != p.dtb_ok {
            self.failures
                .push(format!("{case}: Fdt::new and discover disagree"));
        }

        // The blob as Fdt::new sees it: cut to its total size.
        let blob = dtb_size(dtb).and_then(|n| dtb.get(..n)).unwrap_or(dtb);
        let theirs = catch_unwind(|| dtoolkit::fdt::Fdt::new(blob).map_err(|e| e.kind));
        let Ok(theirs) = theirs else {
            return self
                .failures
                .push(format!("{case}: dtoolkit's Fdt::new or a reader panicked"));
        };
        self.dtoolkit_accepted += usize::from(theirs.is_ok());
        match (ours, theirs) {
            (Some(ours), Ok(theirs)) => {
                self.same_listing += 1;
                self.compare(&case, ours, theirs);
            }
            (None, Ok(_)) => {
                // dtoolkit walks the structure past size_dt_struct; ours does
                // not, and that must be the only difference.
                self.dtoolkit_only += 1;
                let mut longer = blob.to_vec();
                let to_end = longer.len() - field(&longer, OFF_STRUCT);
                set_field(&mut longer, SIZE_STRUCT, to_end);
                if Fdt::new(&longer).is_err() {
                    self.failures
                        .push(format!("{case}: dtoolkit's Fdt::new accepts it, ours not"));
                }
            }
            (Some(ours), Err(kind)) => {
                if !not_read_by_us(&kind) {
                    self.failures.push(format!(
                        "{case}: Fdt::new accepted what dtoolkit's rejects ({kind:?})"
                    ));
                }
                *self.ours_only.entry(format!("{kind:?}")).or_default() += 1;
                // Our check establishes what dtoolkit's readers rely on.
                let unchecked = dtoolkit::fdt::Fdt::new_unchecked(blob);
                self.same_listing_unchecked += 1;
                self.compare(&case, ours, unchecked);
            }
            (None, Err(_)) => {}
        }
    }

    /// Prints the numbers, and fails on any failure.
    fn report(&self, name: &str) {
        eprintln!(
            "{name}: {} cases, {} accepted, {} failures; dtoolkit's Fdt::new accepts {} \
             ({} of them not ours); ours alone accepts {:?}; listed alike: {} accepted by \
             both, {} by ours only ({} nodes and properties)",
            self.cases,
            self.accepted,
            self.failures.len(),
            self.dtoolkit_accepted,
            self.dtoolkit_only,
            self.ours_only,
            self.same_listing,
            self.same_listing_unchecked,
            self.items,
        );
        assert!(
            self.failures.is_empty(),
            "{:#?}",
            &self.failures[..self.failures.len().min(20)]
        );
    }

    /// Both readers must list the same nodes and properties, in the same
    /// order; `dtoolkit`'s may panic only where ours did not accept the blob.
    fn compare(&mut self, case: &str, ours: Fdt<'_>, theirs: dtoolkit::fdt::Fdt<'_>) {
        match catch_unwind(|| compare(ours, theirs)) {
            Ok(Ok(items)) => self.items += items,
            Ok(Err(diff)) => self.failures.push(format!("{case}: {diff}")),
            Err(_) => self.failures.push(format!(
                "{case}: a dtoolkit reader panicked on a blob ours accepted"
            )),
        }
    }
}

/// `dtoolkit`'s reasons to reject a blob that ours may accept: what it checks
/// beyond what either reader reads (see `src/fdt.rs`).
fn not_read_by_us(kind: &FdtErrorKind) -> bool {
    match kind {
        // The naming rules of the Devicetree Specification.
        FdtErrorKind::InvalidNodeName | FdtErrorKind::InvalidPropertyName => true,
        // The memory reservation map, and where the blocks are relative to one another.
        FdtErrorKind::MemReserveNotTerminated | FdtErrorKind::MemReserveInvalid => true,
        FdtErrorKind::InvalidHeader(why) => [
            "memrsvmap not after header",
            "dt_struct not after memrsvmap",
            "memrsvmap is not 8-byte aligned",
            "strings block not after struct block",
        ]
        .contains(why),
        _ => false,
    }
}

/// Calls the readers that [`compare`] does not on every node and property of
/// `fdt`.
fn read_everything(fdt: Fdt<'_>) -> usize {
    let mut n = 0;
    let mut nodes = vec![fdt.root()];
    while let Some(node) = nodes.pop() {
        n += node.node_name().len() + node.unit_address().map_or(0, str::len);
        let cells = [
            node.address_cells().unwrap_or(2),
            node.size_cells().unwrap_or(1),
        ];
        for p in node.properties() {
            n += p.as_str().map_or(0, str::len) + p.strings().count();
            n += usize::from(p.as_u32().is_some()) + usize::from(p.as_u64().is_some());
            n += p.entries(cells).map_or(0, Iterator::count);
        }
        nodes.extend(node.children());
    }
    for path in ["/chosen", "/soc/apb/serial", "serial0/x", "/"] {
        n += usize::from(fdt.find_node(path).is_some());
    }
    n
}

/// What must hold whatever the input.
fn consistent(p: &Platform<'_>) -> Result<(), &'static str> {
    if p.ram_regions().is_empty() || p.ram_regions()[0] != p.ram || p.ram_regions().len() > 8 {
        return Err("ram must be the first of 1 to 8 RAM regions");
    }
    if !p.dtb_ok {
        let mut defaults = QEMU_VIRT;
        defaults.problems = p.problems;
        let why: Vec<_> = p.problems.iter().collect();
        if *p != defaults || !(why == [Problem::DtbHeader] || why == [Problem::DtbStructure]) {
            return Err("a rejected DTB must give the defaults and say why");
        }
        return Ok(());
    }
    let stdout_problems = [
        Problem::NoStdoutPath,
        Problem::StdoutNotFound,
        Problem::ConsoleUnsupported,
        Problem::ConsoleNoAddress,
    ];
    let count = |list: &[Problem]| list.iter().filter(|&&c| p.problems.contains(c)).count();
    let stdout_problem = count(&stdout_problems);
    let fallback = count(&[
        Problem::ConsoleFromAlias,
        Problem::ConsoleFirstUart,
        Problem::NoConsole,
    ]);
    if stdout_problem > 1 || fallback != stdout_problem {
        return Err("a console fallback is taken exactly when stdout-path gives no console");
    }
    if p.console_from_dtb == p.problems.contains(Problem::NoConsole) {
        return Err("console_from_dtb disagrees with NoConsole");
    }
    if !p.console_from_dtb && p.console != QEMU_VIRT.console {
        return Err("a console not from the DTB must be the default");
    }
    if p.ram_from_dtb == p.problems.contains(Problem::NoMemory) {
        return Err("ram_from_dtb disagrees with NoMemory");
    }
    if p.psci.is_some() == p.problems.contains(Problem::NoPsci) {
        return Err("psci disagrees with NoPsci");
    }
    Ok(())
}

/// Header fields (in 4-byte units) that locate the blocks.
const TOTALSIZE: usize = 1;
const OFF_STRUCT: usize = 2;
const OFF_STRINGS: usize = 3;
const SIZE_STRINGS: usize = 8;
const SIZE_STRUCT: usize = 9;

fn mutate(name: &str, seed: u64, flips: usize, words: usize) -> Stats {
    let dtb = fixture(name);
    let mut stats = Stats::default();
    let mut rng = Rng(seed);
    let (off_struct, size_struct) = (field(&dtb, OFF_STRUCT), field(&dtb, SIZE_STRUCT));

    // Every truncation, as a loader that copied too little would pass it...
    for len in 0..dtb.len() {
        stats.run(format!("{name} cut to {len}"), &dtb[..len]);
    }
    // ...and with the header patched to match, so the walker sees the cut.
    for len in (40..dtb.len()).step_by(3) {
        let mut cut = dtb[..len].to_vec();
        set_field(&mut cut, TOTALSIZE, len);
        for (off, size) in [(OFF_STRUCT, SIZE_STRUCT), (OFF_STRINGS, SIZE_STRINGS)] {
            let start = field(&cut, off).min(len);
            let size_now = field(&cut, size);
            set_field(&mut cut, size, size_now.min(len - start));
        }
        stats.run(format!("{name} cut to {len}, header patched"), &cut);
    }

    // Random bit flips, mostly in the structure and strings blocks.
    for i in 0..flips {
        let mut bad = dtb.clone();
        for _ in 0..1 + rng.below(4) {
            let at = if rng.below(10) == 0 {
                rng.below(40)
            } else {
                40 + rng.below(dtb.len() - 40)
            };
            bad[at] ^= 1 << rng.below(8);
        }
        stats.run(format!("{name} bit flips #{i} (seed {seed:#x})"), &bad);
    }

    // Aligned words of the structure block replaced by tokens, lengths and
    // offsets that steer the parser into its corners.
    let interesting = [
        0,
        FDT_BEGIN_NODE,
        FDT_END_NODE,
        FDT_PROP,
        FDT_NOP,
        FDT_END,
        5,
        1,
        3,
        4,
        0x7fff_ffff,
        0x8000_0000,
        0xffff_ffff,
        0xffff_fffc,
        size_struct as u32,
        (size_struct + 4) as u32,
    ];
    for i in 0..words {
        let mut bad = dtb.clone();
        let at = off_struct + 4 * rng.below(size_struct / 4);
        let word = interesting[rng.below(interesting.len())];
        bad[at..at + 4].copy_from_slice(&word.to_be_bytes());
        stats.run(format!("{name} word {word:#x} at {at} (#{i})"), &bad);
    }
    stats
}

fn check(stats: Stats, name: &str) {
    stats.report(name);
    assert!(
        stats.accepted > stats.cases / 20,
        "the mutations must reach the parser"
    );
}

#[test]
fn qemu_virt_mutations() {
    check(
        mutate("qemu-virt.dtb", 0x9e37_79b9_7f4a_7c15, 4000, 4000),
        "qemu-virt",
    );
}

#[test]
fn qemu_virt_with_nops_mutations() {
    check(
        mutate("qemu-virt-nop.dtb", 0x2545_f491_4f6c_dd1d, 1500, 1500),
        "qemu-virt-nop",
    );
}

#[test]
fn qemu_virt_el3_mutations() {
    check(
        mutate("qemu-virt-el3.dtb", 0x0123_4567_89ab_cdef, 1500, 1500),
        "qemu-virt-el3",
    );
}

/// The hand-made fixtures, one test each so that they run in parallel.
fn hand_made(i: u64, name: &str) {
    check(mutate(name, 0xdead_beef + i, 4000, 4000), name);
}

#[test]
fn ns16550_bus_mutations() {
    hand_made(0, "ns16550-bus.dtb");
}

#[test]
fn alias_mutations() {
    hand_made(1, "alias.dtb");
}

#[test]
fn untranslatable_mutations() {
    hand_made(2, "untranslatable.dtb");
}

#[test]
fn unsupported_console_mutations() {
    hand_made(3, "unsupported-console.dtb");
}

#[test]
fn nop_mutations() {
    hand_made(4, "nop.dtb");
}

#[test]
fn long_names_mutations() {
    hand_made(5, "long-names.dtb");
}

#[test]
fn random_blobs_with_a_valid_header() {
    // A valid header over random bytes: the walker must reject or survive them.
    let header = &fixture("no-psci.dtb")[..40];
    let mut rng = Rng(42);
    let mut stats = Stats::default();
    for i in 0..3000 {
        let len = 41 + rng.below(600);
        let mut blob = header.to_vec();
        blob.extend((40..len).map(|_| rng.next() as u8));
        set_field(&mut blob, TOTALSIZE, len);
        let off = 40 + rng.below(len - 40);
        set_field(&mut blob, OFF_STRUCT, off);
        set_field(&mut blob, SIZE_STRUCT, rng.below(len - off + 1));
        set_field(&mut blob, OFF_STRINGS, 40);
        set_field(&mut blob, SIZE_STRINGS, rng.below(len - 40 + 1));
        // Start the structure block like a real one half of the time.
        if i % 2 == 0 && off + 8 <= len {
            blob[off..off + 8].copy_from_slice(&[0, 0, 0, 1, 0, 0, 0, 0]);
        }
        stats.run(format!("random blob #{i}"), &blob);
    }
    stats.report("random blobs");
}
