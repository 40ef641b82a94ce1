//! `discover` on thousands of truncated and corrupted device trees: it must
//! never panic (a panic fails the test) and must fall back consistently.

mod common;

use std::panic::{catch_unwind, AssertUnwindSafe};

use common::{fixture, FDT_BEGIN_NODE, FDT_END, FDT_END_NODE, FDT_NOP, FDT_PROP};
use mairbench_core::platform::{discover, Platform, Problem, QEMU_VIRT};

/// xorshift64: deterministic, so a failure names a reproducible case.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

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
    failures: Vec<String>,
}

impl Stats {
    fn run(&mut self, case: String, dtb: &[u8]) {
        self.cases += 1;
        match catch_unwind(AssertUnwindSafe(|| discover(Some(dtb)))) {
            Err(_) => self.failures.push(format!("{case}: panicked")),
            Ok(p) => {
                if let Err(why) = consistent(&p) {
                    self.failures.push(format!("{case}: {why}"));
                }
                self.accepted += usize::from(p.dtb_ok);
            }
        }
    }
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
    let console_problems = [
        Problem::NoStdoutPath,
        Problem::StdoutNotFound,
        Problem::ConsoleUnsupported,
        Problem::ConsoleNoAddress,
    ];
    let console_problem = console_problems
        .iter()
        .filter(|&&c| p.problems.contains(c))
        .count();
    if console_problem > 1 || p.console_from_dtb != (console_problem == 0) {
        return Err("console_from_dtb disagrees with the console problems");
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
    eprintln!(
        "{name}: {} cases, {} still accepted as DTBs, {} failures",
        stats.cases,
        stats.accepted,
        stats.failures.len()
    );
    assert!(
        stats.failures.is_empty(),
        "{:#?}",
        &stats.failures[..stats.failures.len().min(20)]
    );
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
fn qemu_virt_el3_mutations() {
    check(
        mutate("qemu-virt-el3.dtb", 0x0123_4567_89ab_cdef, 1500, 1500),
        "qemu-virt-el3",
    );
}

#[test]
fn hand_made_mutations() {
    for (i, name) in [
        "ns16550-bus.dtb",
        "alias.dtb",
        "untranslatable.dtb",
        "unsupported-console.dtb",
    ]
    .into_iter()
    .enumerate()
    {
        check(mutate(name, 0xdead_beef + i as u64, 4000, 4000), name);
    }
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
    eprintln!(
        "random blobs: {} cases, {} accepted",
        stats.cases, stats.accepted
    );
    assert!(
        stats.failures.is_empty(),
        "{:#?}",
        &stats.failures[..stats.failures.len().min(20)]
    );
}
