//! mairbench: bare-metal AArch64 firmware that shows, with numbers, what a memory type costs.
//!
//! Boot path: `boot/entry.S` (Image header, drop to EL1, relocation, BSS) calls [`rust_main`]
//! with the device tree address. Output contract: human lines plus `@mb {json}` records, from
//! a `start` record to an `end` record; the exit status is 0 exactly when the run passed.
#![no_std]
#![no_main]
#![deny(clippy::undocumented_unsafe_blocks)]
#![deny(missing_docs)]
// All `unsafe` lives in `arch`, and there every precondition is an `unsafe fn`'s contract.
#![deny(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]

#[allow(unsafe_code)]
mod arch;
mod bench;
mod console;
mod cpus;
mod memory;
mod run;
mod verdicts;

use console::Console;
use core::panic::PanicInfo;
use mairbench_core::bootargs::{self, Selftest};
use mairbench_core::emulation::Emulation;
use mairbench_core::esr;
use mairbench_core::memtype::MEMTYPES;
use mairbench_core::platform::{ConsoleKind, Platform, PsciConduit};
use mairbench_core::pmu::Unavailable;
use mairbench_core::record::{self, Record};
use mairbench_core::schema;
use mairbench_core::verdict::{self, Smp};

/// The run, entered from `boot/entry.S` (through `arch`) at EL1 with the MMU off, on the
/// main stack.
fn main(boot: arch::Boot, dtb: Option<(usize, &'static [u8])>, platform: Platform<'static>) -> ! {
    let arch::Boot {
        dtb_arg,
        entry_el,
        image_base,
        bad_relocs,
        entry_sctlr,
        setway_ops,
        cntfrq_programmed,
        start_ticks,
        uefi,
    } = boot;
    let semihosting = arch::semihosting::available();
    let psci = arch::psci_conduit(platform.psci, entry_el);
    run::set_exit_paths(semihosting, psci.usable());
    run::set_start_ticks(start_ticks);

    // The command line: /chosen/bootargs, else what a semihosting host passes (QEMU
    // `-semihosting-config arg=…`, used where no boot loader edits the device tree).
    let mut cmdline_buf = [0u8; 1024];
    let (bootargs, bootargs_from) = match platform.bootargs {
        _ if uefi.is_some_and(|h| !h.bootargs().is_empty()) => {
            (uefi.map_or("", |h| h.bootargs()), "uefi")
        }
        "" => match arch::semihosting::command_line(&mut cmdline_buf) {
            Some(line) if !line.is_empty() => (line, "semihosting"),
            _ => ("", "none"),
        },
        dtb_args => (dtb_args, "dtb"),
    };

    // Emulated: the runner's mairbench.host= (QEMU's board machines boot real boards'
    // device trees) or a device tree QEMU wrote.
    let emulation = Emulation::of(&platform, bootargs::host(bootargs));
    set_emulated(emulation.emulated());

    let cpu = arch::cpu_id();
    say!("");
    say!(
        "mairbench {} - what a memory type costs",
        env!("CARGO_PKG_VERSION")
    );
    let mut console = Console;
    let mut start = Record::new(&mut console, &schema::START)
        .u64("schema", record::SCHEMA)
        .str("version", env!("CARGO_PKG_VERSION"))
        .u64("entry_el", entry_el)
        .u64("el", cpu.el)
        .bool("entry_mmu", entry_sctlr & 1 != 0)
        .bool("entry_dcache", entry_sctlr & (1 << 2) != 0)
        .hex("midr", cpu.midr)
        .hex("mpidr", cpu.mpidr)
        .u64("cntfrq_hz", cpu.cntfrq)
        .str("platform", platform.model)
        .bool("emulated", emulation.emulated());
    if let Some(host) = emulation.host {
        start = start.str("host", host);
    }
    if emulation.emulated() {
        start = start.strs("emulated_by", emulation.by());
    }
    let _ = start
        .str("console", platform.console.kind.name())
        .hex("console_base", platform.console.base)
        .str("psci", platform.psci.map_or("none", PsciConduit::name))
        .bool("semihosting", semihosting)
        .hex("dtb", dtb.map_or(0, |(addr, _)| addr as u64))
        .hex("image_base", image_base as u64)
        .hex("ram_base", platform.ram.base)
        .u64("ram_size", platform.ram.size)
        .str("bootargs", bootargs)
        .str("bootargs_from", bootargs_from)
        .str("firmware", if uefi.is_some() { "uefi" } else { "none" })
        .str(
            "tables",
            uefi.map_or(if dtb.is_some() { "dtb" } else { "none" }, |h| {
                h.tables.name()
            }),
        )
        .finish();
    describe(&platform, &emulation, &cpu, entry_el, image_base, dtb_arg);
    if let Some(handoff) = uefi {
        describe_uefi(&handoff);
    }
    if let Some(hz) = cntfrq_programmed {
        say!("timer: CNTFRQ_EL0 read 0 at EL3; programmed {hz} Hz from /timer clock-frequency");
    }
    if let arch::Psci::Unusable(conduit, why) = psci {
        run::warn("psci");
        say!(
            "psci: {} unusable: {why}; no CPU_ON or SYSTEM_OFF through it",
            conduit.name()
        );
    }

    let pmu = boot_checks(&cpu, bad_relocs);
    entry_checks(entry_sctlr, setway_ops);

    let options = bootargs::parse(bootargs, |note| {
        say!("bootargs: {note}");
        if note.is_warning() {
            run::warn("bootargs");
        }
    });
    let types = || {
        MEMTYPES
            .iter()
            .filter(|t| options.types & (1 << t.index) != 0)
            .map(|t| t.name)
    };
    let mut console = Console;
    let config = Record::new(&mut console, &schema::CONFIG)
        .bool("quick", options.quick)
        .opt_u64("buffer_request", options.buffer)
        .strs("types", types())
        .bool("device_faults", options.device_faults);
    let _ = pmu.config(config).finish();
    if options.types != bootargs::ALL_TYPES {
        say!("measurements restricted to (mairbench.types):");
        for name in types() {
            say!("  {name}");
        }
    }

    let ask_missing = options.selftest == Some(Selftest::MissingCpu);
    let mut others = cpus::Plan::new(&platform, psci, cpu.mpidr, ask_missing);
    others.release_spin_tables();
    let request = memory::Request {
        buffer: options.buffer.unwrap_or(memory::DEFAULT_BUFFER),
        bad_attr: options.selftest == Some(Selftest::BadAttr),
        secondaries: others.secondaries(),
    };
    match memory::setup(&platform, dtb, request) {
        Ok(mem) => {
            let caches_off = options.selftest == Some(Selftest::CachesOff) && caches_off();
            mem.report();
            mem.prove();
            let mut gathered = verdicts::Gathered {
                stale: mem.coherence(),
                maintenance: mem.maintenance(),
                smp: None,
                clock: verdicts::clock(pmu.cycle_hz, cpu.cntfrq),
            };
            mem.faults();
            mem.device_faults(options.device_faults);
            let cores = if caches_off {
                say!("selftest: caches-off runs on the boot CPU alone; no secondary CPU started");
                bench::Cores::default()
            } else {
                others.start(cpu.midr, entry_el)
            };
            if !caches_off && others.secondaries() > 0 {
                let e = cores.smp_evidence();
                gathered.smp = Some(Smp {
                    cpus: others.secondaries() as u32 + 1,
                    started: e.started + 1,
                    differing: e.differing,
                    first_differing: e.first_differing,
                    shared_line_ok: e.shared_line_ok,
                });
            }
            selftest(options.selftest);
            match arch::results_store() {
                Some(results) => {
                    let events = pmu.events.ok();
                    let mut engine =
                        bench::Engine::new(&mem, &options, pmu.cycles, events, results);
                    engine.run();
                    engine.scaling(&cores);
                    verdicts::report(engine.results(), &gathered);
                }
                None => verdicts::report(&verdict::NoSweep, &gathered),
            }
        }
        Err(why) => {
            run::check("mmu", false, format_args!("memory setup failed: {why}"));
            selftest(options.selftest);
        }
    }

    run::end(None)
}

/// What the UEFI stage found: the tables, the memory map, how ExitBootServices went.
fn describe_uefi(h: &arch::uefi::Handoff) {
    let map = h.memory_map();
    say!(
        "uefi: started as a UEFI application; tables: {}; memory map: {} descriptors, {} free \
         after ExitBootServices, {} ranges not free (avoided); ExitBootServices after {} \
         call(s); watchdog {}",
        h.tables.name(),
        map.descriptors,
        mairbench_core::format::Bytes(map.usable_bytes),
        map.reserved().len(),
        h.exit_tries,
        if h.watchdog_off {
            "off"
        } else {
            "not disabled (SetWatchdogTimer failed)"
        }
    );
    for problem in map.problems.iter() {
        say!("uefi: {problem}");
        run::warn("uefi-memory-map");
    }
    if let Some(note) = h.options_note {
        say!("uefi: {note}");
        run::warn("bootargs");
    }
    if !h.watchdog_off {
        run::warn("uefi-watchdog");
    }
}

/// The deliberate failures of `mairbench.selftest=` (bad-attr acts in the memory setup).
fn selftest(which: Option<Selftest>) {
    match which {
        Some(Selftest::Fault) => {
            say!("selftest: taking an undefined instruction on purpose");
            arch::exceptions::undefined_instruction();
            run::check("selftest", false, format_args!("UDF did not trap"));
        }
        Some(Selftest::Panic) => panic!("selftest: panicking on purpose"),
        Some(Selftest::Hang) => {
            say!("selftest: hanging on purpose; the runner's timeout must end this");
            arch::park()
        }
        Some(Selftest::StackOverflow) => {
            say!("selftest: recursing into the stack's guard page on purpose");
            let depth = recurse(core::hint::black_box(u64::MAX));
            run::check(
                "selftest",
                false,
                format_args!("no fault after {depth} calls"),
            );
        }
        Some(Selftest::BadAttr | Selftest::MissingCpu | Selftest::CachesOff) | None => {}
    }
}

/// `mairbench.selftest=caches-off`: the data cache off for everything after the memory setup;
/// returns whether it is off.
fn caches_off() -> bool {
    match arch::data_cache_off() {
        Ok(ops) => {
            say!(
                "selftest: SCTLR_EL1.C cleared on purpose ({ops} DC CISW operations): every Normal \
                 type is now accessed as Non-cacheable, and the caches-on verdict must fail"
            );
            true
        }
        Err(why) => {
            run::check(
                "selftest",
                false,
                format_args!("caches-off not done: {why}"),
            );
            false
        }
    }
}

/// Uses about 1 KiB of stack per call until `n` calls or a fault.
#[inline(never)]
fn recurse(n: u64) -> u64 {
    let frame = core::hint::black_box([n; 128]);
    if n == 0 {
        return 0;
    }
    1 + recurse(core::hint::black_box(frame[0] - 1))
}

/// What the PMU offers the run, as [`boot_checks`] found it.
struct PmuState {
    /// Whether PMCCNTR_EL0 counts at EL1.
    cycles: bool,
    /// PMCCNTR_EL0's rate against CNTVCT_EL0, Hz.
    cycle_hz: Option<u64>,
    /// PMCEID0/1_EL0 and PMCR_EL0.N, where readable.
    ids: Option<arch::pmu::Ids>,
    /// The event counters programmed for the chosen events, or why none counts.
    events: Result<arch::pmu::Events, Unavailable>,
}

impl PmuState {
    /// Adds the `config` record's PMU fields.
    fn config<'w, W: core::fmt::Write>(&self, mut record: Record<'w, W>) -> Record<'w, W> {
        let names = self.events.as_ref().ok().map(|e| e.choice().names());
        record = record
            .strs("pmu_events", names.into_iter().flatten())
            .opt_str("pmu_reason", self.events.as_ref().err().map(|u| u.why()));
        if let Some(ids) = &self.ids {
            record = record
                .hex("pmceid0", ids.pmceid0)
                .hex("pmceid1", ids.pmceid1);
        }
        record.opt_decimal("cycle_mhz", self.cycle_hz.map(tenths_mhz), 1)
    }
}

/// Hz in tenths of MHz, rounded to nearest.
fn tenths_mhz(hz: u64) -> u64 {
    hz.saturating_add(50_000) / 100_000
}

/// Writes of PMSWINC_EL0 in the event counters' self-check.
const SW_INCR_WRITES: u32 = 100;

/// What the boot code promised: relocated, and timer, FP/SIMD and PMU usable from EL1; then
/// what the PMU counts (cycle rate, event counters programmed for the memory events).
fn boot_checks(cpu: &arch::CpuId, bad_relocs: u64) -> PmuState {
    run::check(
        "relocations",
        bad_relocs == 0,
        format_args!("{bad_relocs} of an unsupported type left unapplied"),
    );
    let t0 = arch::ticks();
    let t1 = (0..1_000_000)
        .map(|_| arch::ticks())
        .find(|&t| t != t0)
        .unwrap_or(t0);
    run::check(
        "timer",
        t1 > t0 && cpu.cntfrq != 0,
        format_args!("CNTVCT_EL0 advances, CNTFRQ_EL0 {} Hz", cpu.cntfrq),
    );
    run::check(
        "fp-simd",
        arch::fp_simd_works(),
        format_args!("FP/SIMD instructions execute at EL1"),
    );
    let Some(pmu) = arch::pmu::pmu() else {
        say!("pmu: none (ID_AA64DFR0_EL1.PMUVer); cycle counts unavailable; no event counts");
        return PmuState {
            cycles: false,
            cycle_hz: None,
            ids: None,
            events: Err(Unavailable::NoPmu),
        };
    };
    let started = arch::pmu::start_cycle_counter();
    let c0 = arch::pmu::cycles();
    let c1 = (0..1_000_000)
        .map(|_| arch::pmu::cycles())
        .find(|&c| c != c0)
        .unwrap_or(c0);
    let cycles = run::check(
        "pmu-cycles",
        started.is_ok() && c1 > c0,
        format_args!(
            "PMUVer {}, {} event counters, PMCCNTR_EL0 counts at EL1",
            pmu.version, pmu.counters
        ),
    );
    let cycle_hz = cycles
        .then(|| arch::pmu::cycle_rate_hz(cpu.cntfrq))
        .flatten();
    if let Some(hz) = cycle_hz {
        say!(
            "pmu: PMCCNTR_EL0 at {}.{} MHz over 1 ms of CNTVCT_EL0{}",
            tenths_mhz(hz) / 10,
            tenths_mhz(hz) % 10,
            if emulated() {
                " (under QEMU: virtual nanoseconds, not cycles)"
            } else {
                ""
            }
        );
    }
    let ids = arch::pmu::ids();
    let events = ids.and_then(|ids| {
        // SW_INCR is architecturally required: a wrong count means programming failed.
        match arch::pmu::sw_incr_check(SW_INCR_WRITES) {
            Ok(n) => {
                run::check(
                    "pmu-events",
                    n == u64::from(SW_INCR_WRITES),
                    format_args!(
                        "event counter 0 counted {n} SW_INCR for {SW_INCR_WRITES} writes of \
                         PMSWINC_EL0; PMCEID0_EL0 {:#x}, PMCEID1_EL0 {:#x}",
                        ids.pmceid0, ids.pmceid1
                    ),
                );
            }
            Err(_) => return Err(Unavailable::Trapped),
        }
        arch::pmu::events(&ids, cpu.midr)
    });
    match &events {
        Ok(e) => say!(
            "pmu: counting {} of {} events on {} counters: {}",
            e.choice().len(),
            mairbench_core::pmu::MAX,
            pmu.counters,
            Listed(e.choice())
        ),
        Err(why) => match &ids {
            Ok(ids) => say!(
                "pmu: no memory events: {}: PMCEID0_EL0 {:#x}, PMCEID1_EL0 {:#x}; \
                 every result's pmu is null",
                why.why(),
                ids.pmceid0,
                ids.pmceid1
            ),
            Err(_) => say!(
                "pmu: no memory events: {}; every result's pmu is null",
                why.why()
            ),
        },
    }
    PmuState {
        cycles,
        cycle_hz,
        ids: ids.ok(),
        events,
    }
}

/// The chosen events' names, separated by commas.
struct Listed<'a>(&'a mairbench_core::pmu::Choice);

impl core::fmt::Display for Listed<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        for (i, name) in self.0.names().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

/// What the entry code promised besides EL1's state: SError unmasked, and, when entered with
/// the caches on, a set/way clean of every level below the point of coherency, decoded in the
/// CCSIDR_EL1 layout the CPU has.
fn entry_checks(entry_sctlr: u64, setway_ops: u64) {
    run::check(
        "serror",
        arch::serror_unmasked(),
        format_args!("SError unmasked at EL1 (PSTATE.A clear): an external abort is reported"),
    );
    if entry_sctlr & 0b101 != 0 {
        let (expected, ccidx) = arch::setway_ops_expected();
        run::check(
            "entry-clean",
            setway_ops == expected,
            format_args!(
                "entered with the MMU or D-cache on: {setway_ops} DC CISW operations issued, \
                 {expected} lines by set/way below LoC (CCSIDR_EL1 {})",
                if ccidx {
                    "in the FEAT_CCIDX layout"
                } else {
                    "in the 32-bit layout"
                }
            ),
        );
    }
}

/// The human-readable part of the start: what was found and what was assumed.
fn describe(
    p: &Platform<'_>,
    emulation: &Emulation<'_>,
    cpu: &arch::CpuId,
    entry_el: u64,
    base: usize,
    dtb_arg: usize,
) {
    say!(
        "cpu: MIDR {:#x}, MPIDR {:#x}; entered at EL{entry_el}, running at EL{}",
        cpu.midr,
        cpu.mpidr,
        cpu.el
    );
    say!(
        "timer: CNTFRQ {} Hz ({} ns per tick)",
        cpu.cntfrq,
        1_000_000_000 / cpu.cntfrq.max(1)
    );
    say!("platform: {}; image at {base:#x}; x0 {dtb_arg:#x}", p.model);
    say!(
        "console: {} at {:#x}{}",
        p.console.kind.name(),
        p.console.base,
        match p.console.kind {
            ConsoleKind::Ns16550 { .. } => " (8250-style)",
            _ => "",
        }
    );
    say!(
        "ram: {:#x}, {} MiB; psci: {}",
        p.ram.base,
        p.ram.size >> 20,
        p.psci.map_or("none", PsciConduit::name)
    );
    for problem in p.problems.iter() {
        let source = if problem.acpi() {
            "acpi"
        } else {
            "device tree"
        };
        say!("{source}: {}", problem.message());
    }
    if emulation.emulated() {
        say!("emulated machine: QEMU models no caches, so timings do not reflect memory types");
        say!("emulated: said by {emulation}");
    }
}

/// Whether the run is emulated ([`Emulation`]), set once before the start record.
static EMULATED: core::sync::atomic::AtomicBool = core::sync::atomic::AtomicBool::new(false);

fn set_emulated(on: bool) {
    EMULATED.store(on, core::sync::atomic::Ordering::Relaxed);
}

/// Whether the run is emulated: every table of timings then says so.
pub(crate) fn emulated() -> bool {
    EMULATED.load(core::sync::atomic::Ordering::Relaxed)
}

/// Reports an exception nobody expected, then ends the run with status fail.
pub(crate) fn report_exception(e: &arch::exceptions::Unexpected) -> ! {
    let class = esr::Class::of(e.fault.esr);
    let ec = esr::code(e.fault.esr);
    say!("");
    say!(
        "!! unexpected {} exception ({}{}): {}",
        e.vector,
        e.origin,
        if e.nested {
            ", inside the exception handler"
        } else {
            ""
        },
        class.name()
    );
    let far = esr::far_valid(e.fault.esr).then_some(e.fault.far);
    let elr_link = arch::exceptions::link_address(e.fault.elr);
    say!(
        "!! ESR_EL1 {:#x} (EC {ec:#x}), {}ELR_EL1 {:#x}{}, at EL1",
        e.fault.esr,
        Far(far),
        e.fault.elr,
        LinkAddress(elr_link)
    );
    match elr_link {
        Some(link) => say!(
            "!! source line: addr2line -e target/aarch64-unknown-none/release/mairbench {link:#x}"
        ),
        None => say!("!! ELR_EL1 lies outside the image's code"),
    }
    if class.is_abort() {
        say!("!! {}", esr::FaultStatus::of(e.fault.esr).name());
        let image = arch::image_layout();
        for (guard, stack) in [
            (image.stack_guard, "main stack"),
            (image.exception_guard, "exception stack"),
        ] {
            if far.is_some_and(|far| (guard..guard + 4096).contains(&far)) {
                say!("!! the {stack} overflowed into its guard page");
            }
        }
    }
    let mut console = Console;
    let mut record = Record::new(&mut console, &schema::EXCEPTION)
        .str("vector", e.vector)
        .str("origin", e.origin)
        .str("class", class.name())
        .hex("ec", ec.into())
        .hex("esr", e.fault.esr)
        .hex("far", e.fault.far)
        .hex("elr", e.fault.elr)
        .u64("el", 1)
        .bool("nested", e.nested)
        .bool("far_valid", far.is_some());
    if let Some(link) = elr_link {
        record = record.hex("elr_link", link);
    }
    let _ = record.finish();
    run::end(Some("unexpected exception"))
}

/// `"FAR_EL1 0x…, "` when FAR holds the faulting address, else nothing.
struct Far(Option<u64>);

impl core::fmt::Display for Far {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.0 {
            Some(far) => write!(f, "FAR_EL1 {far:#x}, "),
            None => Ok(()),
        }
    }
}

/// `" (linked at 0x…)"` when the address lies in the image's code.
struct LinkAddress(Option<u64>);

impl core::fmt::Display for LinkAddress {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.0 {
            Some(link) => write!(f, " (linked at {link:#x})"),
            None => Ok(()),
        }
    }
}

#[panic_handler]
fn panic(info: &PanicInfo<'_>) -> ! {
    say!("");
    say!("!! panic: {info}");
    let location = info.location();
    let _ = Record::new(&mut Console, &schema::PANIC)
        .fmt("message", format_args!("{}", info.message()))
        .str("file", location.map_or("", |l| l.file()))
        .u64("line", location.map_or(0, |l| l.line().into()))
        .finish();
    run::end(Some("panic"))
}
