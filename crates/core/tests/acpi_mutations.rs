//! `acpi::discover` on thousands of truncated and corrupted table images: it must never panic
//! (a panic fails the test), must end quickly, and what it returns must hang together (a
//! console exactly when the SPCR or, after an SPCR problem, the DBG2 gave one, PSCI exactly
//! when no FADT problem is named, the CPUs within the cap and the affinity fields, the
//! defaults where nothing was read).
//!
//! Images: QEMU 10.0.2 virt's own FADT, MADT, SPCR, DBG2, GTDT, MCFG, IORT
//! (tests/acpi/qemu-virt) under a fresh RSDP and XSDT; the same without the SPCR, so that the
//! console comes from the DBG2; and a synthetic server (SBSA UART, 80 CPUs, one disabled and
//! one online-capable). Mutations: every truncation; random bit flips; aligned words replaced
//! by values that steer the parser (lengths, 0, all ones, addresses back into the image); and
//! random byte changes with every checksum made right again, so that they get past the
//! checksums into the table parsers.

#[path = "acpi/tables.rs"]
mod tables;

use std::panic::catch_unwind;
use std::time::{Duration, Instant};

use mairbench_core::acpi::discover;
use mairbench_core::platform::{Enable, Platform, Problem, Tables, MAX_CPUS, QEMU_VIRT};
use tables::*;

/// xorshift64*: the cases are the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

#[derive(Default)]
struct Stats {
    cases: usize,
    /// Cases whose root table was valid.
    read: usize,
    /// Cases that found a console, PSCI, CPUs.
    consoles: usize,
    psci: usize,
    cpus: usize,
    slowest: Duration,
    failures: Vec<String>,
}

impl Stats {
    fn run(&mut self, case: String, mem: &Mem, rsdp: u64) {
        self.cases += 1;
        let start = Instant::now();
        let p = match catch_unwind(|| discover(mem, rsdp)) {
            Ok(p) => p,
            Err(_) => return self.failures.push(format!("{case}: discover panicked")),
        };
        self.slowest = self.slowest.max(start.elapsed());
        if let Err(why) = consistent(&p) {
            self.failures
                .push(format!("{case}: {why} ({:?})", p.problems));
        }
        self.read += usize::from(p.tables == Tables::Acpi);
        self.consoles += usize::from(p.console_from_dtb);
        self.psci += usize::from(p.psci.is_some());
        self.cpus += usize::from(!p.cpus().is_empty());
    }

    fn report(&self, name: &str) {
        eprintln!(
            "{name}: {} cases, {} with a valid root table, {} with a console, {} with PSCI, {} \
             with CPUs; slowest {:?}; {} failures",
            self.cases,
            self.read,
            self.consoles,
            self.psci,
            self.cpus,
            self.slowest,
            self.failures.len()
        );
        assert!(
            self.failures.is_empty(),
            "{:#?}",
            &self.failures[..self.failures.len().min(20)]
        );
        // Bounded time: an image of a few KiB takes microseconds; a debug build on a loaded
        // machine, far less than this.
        assert!(
            self.slowest < Duration::from_millis(500),
            "{:?}",
            self.slowest
        );
        // The mutations must reach the parsers, not only fail the checks.
        for (what, n) in [
            ("a valid root table", self.read),
            ("a console", self.consoles),
            ("PSCI", self.psci),
            ("CPUs", self.cpus),
        ] {
            assert!(
                n > self.cases / 20,
                "{name}: too few cases with {what}: {n}"
            );
        }
    }
}

/// What must hold whatever the input.
fn consistent(p: &Platform<'_>) -> Result<(), &'static str> {
    let count = |list: &[Problem]| list.iter().filter(|&&c| p.problems.contains(c)).count();
    if p.ram != QEMU_VIRT.ram || p.ram_from_dtb || p.dtb_ok || !p.bootargs.is_empty() {
        return Err("RAM, bootargs and dtb_ok are never ACPI's");
    }
    if p.tables != Tables::Acpi {
        let mut defaults = QEMU_VIRT;
        defaults.problems = p.problems;
        defaults.acpi.rsdp_revision = p.acpi.rsdp_revision;
        if *p != defaults {
            return Err("without a root table, the defaults");
        }
        let root = [Problem::AcpiNoRsdp, Problem::AcpiRsdp, Problem::AcpiNoRoot];
        if count(&root) != 1 {
            return Err("without a root table, exactly one root problem");
        }
        return Ok(());
    }
    let spcr = count(&[
        Problem::AcpiNoSpcr,
        Problem::AcpiSpcrShort,
        Problem::AcpiSpcrUnsupported,
        Problem::AcpiSpcrAddress,
    ]);
    let dbg2 = p.problems.contains(Problem::ConsoleFromDbg2);
    if spcr > 1 || (dbg2 && spcr != 1) {
        return Err("one SPCR problem at most, and one when the DBG2 gave the console");
    }
    if p.console_from_dtb != (spcr == 0 || dbg2)
        || p.console_from_dtb == p.problems.contains(Problem::AcpiNoConsole)
    {
        return Err("a console exactly when the SPCR or DBG2 gave one, else AcpiNoConsole");
    }
    if p.problems.contains(Problem::AcpiDbg2) && p.console_from_dtb {
        return Err("a malformed DBG2 gives no console");
    }
    if !p.console_from_dtb && p.console != QEMU_VIRT.console {
        return Err("no console: the default");
    }
    if p.console_from_dtb
        && (p.console.base == 0
            || p.console
                .base
                .checked_add(p.console.kind.register_span())
                .is_none())
    {
        return Err("a console at 0 or at the end of the address space");
    }
    let fadt = count(&[
        Problem::AcpiNoFadt,
        Problem::AcpiFadtOld,
        Problem::AcpiNoPsci,
    ]);
    if fadt > 1 || p.psci.is_some() != (fadt == 0) {
        return Err("PSCI exactly when no FADT problem is named");
    }
    let enable = if p.psci.is_some() {
        Enable::Psci
    } else {
        Enable::Other
    };
    let cpus = p.cpus();
    if cpus.len() > MAX_CPUS || (p.cpus_beyond_cap > 0 && cpus.len() != MAX_CPUS) {
        return Err("the CPU cap");
    }
    for (i, c) in cpus.iter().enumerate() {
        if c.enable != enable {
            return Err("every CPU is started as the FADT says");
        }
        if c.mpidr & !0xff_00ff_ffff != 0 || cpus[..i].iter().any(|d| d.mpidr == c.mpidr) {
            return Err("MPIDRs are affinities, each once");
        }
    }
    let a = p.acpi;
    if cpus.len() + p.cpus_beyond_cap + a.cpus_disabled + a.cpus_online_capable > a.gicc_entries {
        return Err("more CPUs than GICC entries");
    }
    if p.problems.contains(Problem::AcpiNoMadt) && a.gicc_entries != 0 {
        return Err("GICC entries without a MADT");
    }
    if p.emulated != p.qemu_mark.is_some() {
        return Err("emulated exactly when marked");
    }
    if p.model.is_empty() || !p.model.bytes().all(|b| (0x20..0x7f).contains(&b)) {
        return Err("the model is printable ASCII");
    }
    Ok(())
}

/// Where each table of an image lies, to make its checksum right again.
struct Image {
    mem: Mem,
    tables: Vec<(usize, usize)>,
}

impl Image {
    fn new(tables: &[Vec<u8>]) -> Image {
        let (mem, at) = assemble(tables);
        let mut spans: Vec<(usize, usize)> = at
            .iter()
            .zip(tables)
            .map(|(&pa, t)| ((pa - BASE) as usize, t.len()))
            .collect();
        spans.push(((XSDT - BASE) as usize, 36 + 8 * tables.len()));
        Image { mem, tables: spans }
    }

    /// Makes every checksum right again (the RSDP's and each table's, at their lengths as
    /// assembled).
    fn fix(&self, mem: &mut Mem) {
        fix_rsdp(&mut mem.bytes[..36]);
        for &(off, len) in &self.tables {
            fix_checksum(&mut mem.bytes[off..off + len]);
        }
    }
}

fn qemu_image() -> Image {
    let name = "qemu-virt";
    Image::new(
        &["FACP", "APIC", "SPCR", "DBG2", "GTDT", "MCFG", "IORT"].map(|t| qemu_table(name, t)),
    )
}

fn qemu_dbg2_image() -> Image {
    let name = "qemu-virt";
    Image::new(&["FACP", "APIC", "DBG2", "GTDT"].map(|t| qemu_table(name, t)))
}

fn server_image() -> Image {
    let mut cpus = vec![gicd()];
    cpus.extend((0..80).map(|i| {
        let flags = match i {
            7 => 0,
            9 => ONLINE_CAPABLE,
            _ => ENABLED,
        };
        gicc(i as u32, ((8 + i / 2) << 16) | ((i % 2) << 8), flags)
    }));
    Image::new(&[
        fadt(6, 5, 1),
        madt(&cpus),
        spcr(0x0e, mmio32(0x1000_0260_0000), 7),
    ])
}

fn mutate(name: &str, image: &Image, seed: u64, flips: usize, words: usize, fixed: usize) {
    let len = image.mem.bytes.len();
    let mut stats = Stats::default();
    let mut rng = Rng(seed);
    stats.run(format!("{name} as built"), &image.mem, RSDP);
    assert!(stats.failures.is_empty() && stats.consoles == 1 && stats.psci == 1);

    // Every truncation: memory ends there.
    for cut in 0..len {
        let mem = Mem {
            base: BASE,
            bytes: image.mem.bytes[..cut].to_vec(),
        };
        stats.run(format!("{name} cut to {cut}"), &mem, RSDP);
    }
    // Random bit flips, checksums left wrong.
    for i in 0..flips {
        let mut mem = image.mem.clone();
        for _ in 0..1 + rng.below(3) {
            mem.bytes[rng.below(len)] ^= 1 << rng.below(8);
        }
        stats.run(format!("{name} bit flips #{i}"), &mem, RSDP);
    }
    // Aligned words replaced, checksums made right: lengths, counts and addresses.
    let interesting = |rng: &mut Rng| -> u32 {
        match rng.below(12) {
            0 => 0,
            1 => 1,
            2 => 2,
            3 => 35,
            4 => 36,
            5 => 0xffff_ffff,
            6 => 0x8000_0000,
            7 => rng.below(256) as u32,
            8 => (BASE as u32).wrapping_add(rng.below(len) as u32),
            9 => BASE as u32,
            10 => (XSDT as u32) & !0xf,
            _ => rng.next() as u32,
        }
    };
    for i in 0..words {
        let mut mem = image.mem.clone();
        let at = 4 * rng.below(len / 4);
        let word = interesting(&mut rng);
        mem.bytes[at..at + 4].copy_from_slice(&word.to_le_bytes());
        if rng.below(4) != 0 {
            image.fix(&mut mem);
        }
        stats.run(format!("{name} word {word:#x} at {at} (#{i})"), &mem, RSDP);
    }
    // Random bytes changed anywhere, checksums made right.
    for i in 0..fixed {
        let mut mem = image.mem.clone();
        for _ in 0..1 + rng.below(4) {
            let at = rng.below(len);
            mem.bytes[at] = match rng.below(3) {
                0 => 0,
                1 => 0xff,
                _ => rng.next() as u8,
            };
        }
        image.fix(&mut mem);
        stats.run(format!("{name} bytes, checksums fixed (#{i})"), &mem, RSDP);
    }
    stats.report(name);
}

#[test]
fn qemu_tables_mutated() {
    mutate(
        "qemu-virt",
        &qemu_image(),
        0x9e37_79b9_7f4a_7c15,
        3000,
        3000,
        3000,
    );
}

#[test]
fn qemu_dbg2_mutated() {
    mutate(
        "qemu-virt without SPCR",
        &qemu_dbg2_image(),
        0x6a09_e667_f3bc_c908,
        1500,
        1500,
        1500,
    );
}

#[test]
fn server_tables_mutated() {
    mutate(
        "server",
        &server_image(),
        0x2545_f491_4f6c_dd1d,
        2000,
        2000,
        2000,
    );
}

#[test]
fn random_bytes_after_a_valid_rsdp() {
    // A valid RSDP and XSDT header over random memory, the XSDT listing random addresses in
    // it: every table is garbage or a lucky checksum.
    let mut rng = Rng(42);
    let mut stats = Stats::default();
    for i in 0..2000 {
        let len = 0x200 + rng.below(0x800);
        let mut bytes: Vec<u8> = (0..len).map(|_| rng.next() as u8).collect();
        let entries: Vec<u64> = (0..rng.below(8))
            .map(|_| BASE + rng.below(len) as u64)
            .collect();
        let x = xsdt(OEM, &entries);
        bytes[0x40..0x40 + x.len()].copy_from_slice(&x);
        let r = rsdp(2, 0, XSDT);
        bytes[..36].copy_from_slice(&r);
        // Half the time, make a random table's checksum right.
        if i % 2 == 0 {
            if let Some(&pa) = entries.first() {
                let off = (pa - BASE) as usize;
                let tlen = u32::from_le_bytes(
                    bytes
                        .get(off + 4..off + 8)
                        .map_or([0; 4], |b| b.try_into().unwrap()),
                ) as usize;
                if tlen >= 36 && off + tlen <= len && off > 0x40 + x.len() {
                    fix_checksum(&mut bytes[off..off + tlen]);
                }
            }
        }
        stats.run(format!("random #{i}"), &Mem { base: BASE, bytes }, RSDP);
    }
    eprintln!(
        "random: {} cases, slowest {:?}, {} failures",
        stats.cases,
        stats.slowest,
        stats.failures.len()
    );
    assert!(
        stats.failures.is_empty(),
        "{:#?}",
        &stats.failures[..stats.failures.len().min(20)]
    );
    assert_eq!(stats.read, stats.cases, "the XSDT is valid in every case");
}
