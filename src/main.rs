//! mairbench: bare-metal AArch64 firmware that shows, with numbers, what a memory type costs.
//!
//! Boot path: `boot/aarch64/entry.S` (Image header, drop to EL1, relocation, BSS) calls
//! `arch::rust_main` with the device tree address, which hands over to [`main`], the run's
//! sequence (its phases are the modules below). Output contract: human lines plus
//! `@mb {json}` records, from a `start` record to an `end` record; the exit status is 0
//! exactly when the run passed.
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
mod boot_checks;
mod cell;
mod clusters;
mod console;
mod core_to_core;
mod counters;
mod cpus;
mod describe;
mod failure;
mod memory;
mod run;
mod verdicts;

use crate::arch::MEMTYPES;
use arch::boot::{psci_conduit, Boot};
use arch::{cpu, exceptions, global, semihosting, smp};
use boot_checks::{boot_checks, entry_checks};
use console::Console;
use describe::Start;
use mairbench_core::arch_name;
use mairbench_core::bootargs::{self, Selftest};
use mairbench_core::emulation::Emulation;
use mairbench_core::hypervisor::Hypervisor;
use mairbench_core::platform::Platform;
use mairbench_core::record::Record;
use mairbench_core::schema;
use mairbench_core::verdict::{self, Smp};

/// The run, entered from `boot/aarch64/entry.S` (through `arch::rust_main`) at EL1 with the MMU off,
/// on the main stack: from the `start` record to the `end` record.
// Never inlined into `arch::rust_main`: the two frames stay apart, as the stack test reads them.
#[inline(never)]
fn main(boot: Boot, dtb: Option<(usize, &'static [u8])>, platform: Platform<'static>) -> ! {
    if let Some(device) = boot.console {
        console::init(platform.console.kind, device);
    }
    arch::unmask_serror();
    let Boot {
        console: _,
        dtb_arg: _,
        entry_el,
        image_base: _,
        bad_relocs,
        entry_sctlr,
        setway_ops,
        cntfrq_programmed: _,
        start_ticks,
        uefi,
        fb: _,
    } = boot;
    let semihosting = semihosting::available();
    let psci = psci_conduit(platform.psci, entry_el);
    run::set_exit_paths(semihosting, psci.usable());
    run::set_start_ticks(start_ticks);

    // The command line: /chosen/bootargs, else what a semihosting host passes (QEMU
    // `-semihosting-config arg=…`, used where no boot loader edits the device tree).
    let mut cmdline_buf = [0u8; 1024];
    let (bootargs, bootargs_from) = match platform.bootargs {
        _ if uefi.is_some_and(|h| !h.bootargs().is_empty()) => {
            (uefi.map_or("", |h| h.bootargs()), "uefi")
        }
        "" => match semihosting::command_line(&mut cmdline_buf) {
            Some(line) if !line.is_empty() => (line, "semihosting"),
            _ => ("", "none"),
        },
        dtb_args => (dtb_args, "dtb"),
    };

    // The framebuffer console: where no UART is the console, or asked for as well.
    if let Some(Ok((_, canvas))) = boot.fb {
        if !crate::console::has_uart() || bootargs::console_fb(bootargs) {
            crate::console::init_fb(canvas);
            run::set_hold(bootargs::hold(bootargs).unwrap_or(run::DEFAULT_HOLD_S));
        }
    }

    // A core without the generic timer: a SoC timer the device tree names is the clock.
    let soc_clock = arch::start_clock(dtb.map(|(_, blob)| blob));
    // Emulated: the runner's mairbench.host= (QEMU's board machines boot real boards'
    // device trees), a device tree QEMU wrote, or, when neither says so, QEMU's tells.
    let cpu = cpu::cpu_id();
    // Every counter read from here on follows Linux's rules for this machine's errata and,
    // on each CPU, its own core's.
    cpu::set_counter_errata(mairbench_core::platform::counter_errata(
        dtb.map(|(_, blob)| blob),
        platform.acpi.timer_errata,
    ));
    let dt_timer_hz = dtb
        .and_then(|(_, blob)| mairbench_core::platform::timer_frequency(blob))
        .map(u64::from);
    // In a guest? A hypervisor's stage 2 may override the memory types asked for; and KVM's
    // UID on a machine QEMU describes says QEMU runs it on real cores.
    let hypervisor = mairbench_core::hypervisor::detect(&mairbench_core::hypervisor::Marks {
        uid: arch::boot::hypervisor_uid(psci),
        dt_hypervisor: platform.hypervisor,
        acpi_vendor: platform.acpi.hypervisor_vendor,
    });
    let emulation = Emulation::of(&platform, bootargs::host(bootargs))
        .with_tells(boot_checks::tells(&cpu, dt_timer_hz))
        .with_accel(bootargs::accel(bootargs), hypervisor);
    // QEMU under KVM is KVM's guest, whether or not its UID was asked.
    let hypervisor = hypervisor.or(emulation.kvm().then_some(Hypervisor::Kvm));
    run::set_emulated(emulation.emulated());
    // The device tree's /timer rate over CNTFRQ_EL0, as Linux prefers it, on silicon: an
    // emulator's counter runs at its own rate whatever the board's tree says.
    if let Some(hz) =
        mairbench_core::platform::counter_from_dtb(cpu.cntfrq, dt_timer_hz, emulation.emulated())
    {
        cpu::set_counter_hz(hz);
    }
    let cpu = cpu::cpu_id();

    let start = Start {
        boot: &boot,
        cpu: &cpu,
        emulation: &emulation,
        hypervisor,
        psci,
        semihosting,
        dtb,
        bootargs,
        bootargs_from,
        clock: soc_clock,
    };
    start.report(&platform);
    let (pmu, clock) = boot_checks(&cpu, bad_relocs, soc_clock.map(|(name, _, _)| name));
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

    // The clusters the tables describe, read before the MMU is on (ACPI's tables stay
    // unmapped), judged after the sweep.
    let clusters = clusters::tables(&platform, dtb.map(|(_, blob)| blob));
    let ask_missing = options.selftest == Some(Selftest::MissingCpu);
    let mut others = cpus::Plan::new(&platform, psci, cpu.mpidr, ask_missing);
    others.release_spin_tables();
    let request = memory::setup::Request {
        buffer: options.buffer.unwrap_or(memory::setup::DEFAULT_BUFFER),
        bad_attr: options.selftest == Some(Selftest::BadAttr),
        secondaries: others.secondaries(),
        framebuffer: match &boot.fb {
            Some(Ok((fb, _))) if crate::console::has_fb() => {
                Some((fb.base, u64::from(fb.stride) * u64::from(fb.height)))
            }
            _ => None,
        },
    };
    match memory::setup::setup(&platform, dtb, request) {
        Ok(mem) => {
            let caches_off = options.selftest == Some(Selftest::CachesOff) && caches_off();
            mem.report();
            mem.prove();
            let mut gathered = verdicts::Gathered {
                stale: mem.coherence(),
                maintenance: mem.maintenance(),
                smp: None,
                clock: verdicts::clock(pmu.cycle_hz, cpu.cntfrq),
                hypervisor,
            };
            // A 32-bit board's outer cache: its clean timed beside the CPU's (nothing on
            // AArch64).
            arch::cache::time_outer(mem.wb(), clock);
            mem.faults();
            mem.device_faults(options.device_faults);
            let cores = if caches_off {
                say!("selftest: caches-off runs on the boot CPU alone; no secondary CPU started");
                cpus::Cores::default()
            } else {
                others.start(cpu.midr, entry_el)
            };
            // Every started CPU's counter against the boot CPU's (counters.rs).
            if cores.smp_evidence().started > 0 {
                counters::check(&cores, arch::cpu::cntfrq_register());
            }
            if !caches_off && others.secondaries() > 0 {
                let e = cores.smp_evidence();
                let smp = Smp {
                    cpus: others.secondaries() as u32 + 1,
                    started: e.started + 1,
                    differing: e.differing,
                    first_differing: e.first_differing,
                    shared_line_ok: e.shared_line_ok,
                };
                let _ = smp.record(&mut Console);
                gathered.smp = Some(smp);
            }
            selftest(options.selftest);
            match global::results_store() {
                // Loops timed by a counter that does not count would print figures of nothing.
                _ if !clock => {
                    say!("benchmark: not run: no clock (the timer check failed)");
                    verdicts::print(&verdicts::judge(&verdict::NoSweep, &gathered));
                }
                Some(results) => {
                    let events = pmu.events.ok();
                    let mut engine = bench::engine::Engine::new(
                        &mem,
                        &options,
                        pmu.cycles,
                        events,
                        &mut *results,
                    );

                    engine.run();
                    engine.scaling(&cores);
                    // Judged now, printed last: the other clusters' sweeps reuse the store.
                    let judged = verdicts::judge(engine.results(), &gathered);
                    if let (Some(clusters), true) = (clusters, cores.count() > 0) {
                        clusters::run(clusters, &cores, &mem, &options, results, &gathered);
                    }
                    verdicts::print(&judged);
                }
                None => verdicts::print(&verdicts::judge(&verdict::NoSweep, &gathered)),
            }
        }
        Err(why) => {
            run::check("mmu", false, format_args!("memory setup failed: {why}"));
            selftest(options.selftest);
        }
    }

    run::end(None)
}

/// The deliberate failures of `mairbench.selftest=` (bad-attr acts in the memory setup).
fn selftest(which: Option<Selftest>) {
    match which {
        Some(Selftest::Fault) => {
            say!("selftest: taking an undefined instruction on purpose");
            exceptions::undefined_instruction();
            run::check("selftest", false, format_args!("UDF did not trap"));
        }
        Some(Selftest::Panic) => panic!("selftest: panicking on purpose"),
        Some(Selftest::Hang) => {
            say!("selftest: hanging on purpose; the runner's timeout must end this");
            cpu::park()
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
        Some(
            Selftest::BadAttr
            | Selftest::MissingCpu
            | Selftest::CachesOff
            | Selftest::CounterBackwards
            | Selftest::Disturb,
        )
        | None => {}
    }
}

/// `mairbench.selftest=caches-off`: the data cache off for everything after the memory setup;
/// returns whether it is off.
fn caches_off() -> bool {
    match smp::start::data_cache_off() {
        Ok(ops) => {
            say!(
                concat!(
                    "selftest: ",
                    arch_name!(sctlr),
                    ".C cleared on purpose ({ops} ",
                    arch_name!(dc_cisw),
                    " operations): every Normal type is now accessed as Non-cacheable, and the \
                     caches-on verdict must fail"
                ),
                ops = ops
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
