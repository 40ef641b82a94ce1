//! The start of the report: the `start` record and the human lines that say what was found
//! (CPU, timer, platform, console, RAM, the UEFI stage) and what was assumed.

use crate::arch::boot::{Boot, Psci};
use crate::arch::cpu::CpuId;
use crate::arch::uefi::Handoff;
use crate::console::Console;
use crate::{run, say, say_inline};
use mairbench_core::arch_name;
use mairbench_core::cores::Revision;
use mairbench_core::emulation::{Emulation, Tell};
use mairbench_core::hypervisor::Hypervisor;
use mairbench_core::platform::{ConsoleKind, Platform, PsciConduit};
use mairbench_core::record::{self, Record};
use mairbench_core::schema;

/// What the start of the report describes besides the platform.
pub struct Start<'a> {
    /// What the entry code handed over.
    pub boot: &'a Boot,
    /// The boot CPU.
    pub cpu: &'a CpuId,
    /// Whether, and on whose word, the machine is emulated.
    pub emulation: &'a Emulation<'a>,
    /// The hypervisor whose guest the firmware runs in, if one says so.
    pub hypervisor: Option<Hypervisor>,
    /// Whether PSCI may be called.
    pub psci: Psci,
    /// Whether a semihosting host answers.
    pub semihosting: bool,
    /// The device tree found, with its address.
    pub dtb: Option<(usize, &'static [u8])>,
    /// The command line.
    pub bootargs: &'a str,
    /// Where the command line came from: "uefi", "dtb", "semihosting" or "none".
    pub bootargs_from: &'a str,
    /// The SoC timer that is the clock, where the core has no generic timer: its name,
    /// address and rate.
    pub clock: Option<(&'static str, u64, u64)>,
}

impl Start<'_> {
    /// The title line, the `start` record, then what was found on `platform`. Not inlined
    /// into `main`: inside that large frame the same code takes more instructions.
    #[inline(never)]
    pub fn report(&self, platform: &Platform<'_>) {
        let Start {
            boot,
            cpu,
            emulation,
            hypervisor,
            psci,
            semihosting,
            dtb,
            bootargs,
            bootargs_from,
            clock,
        } = *self;
        let uefi = boot.uefi;
        say!("");
        say!(
            "mairbench {} - what a memory type costs",
            env!("CARGO_PKG_VERSION")
        );
        let mut console = Console;
        let mut start = Record::new(&mut console, &schema::START)
            .u64("schema", record::SCHEMA)
            .str("version", env!("CARGO_PKG_VERSION"))
            .str("arch", crate::arch::ARCH.name())
            .u64("entry_el", boot.entry_el)
            .u64("el", cpu.el)
            .bool("entry_mmu", boot.entry_sctlr & 1 != 0)
            .bool("entry_dcache", boot.entry_sctlr & (1 << 2) != 0)
            .hex("midr", cpu.midr)
            .hex("mpidr", cpu.mpidr)
            .u64("cntfrq_hz", crate::arch::cpu::cntfrq_register())
            .str("platform", platform.model)
            .bool("emulated", emulation.emulated());
        if let Some(host) = emulation.host {
            start = start.str("host", host);
        }
        if let Some((accel, _)) = emulation.accel() {
            start = start.str("accel", accel.name());
        }
        if emulation.emulated() {
            start = start.strs("emulated_by", emulation.by());
        }
        if let Some(h) = hypervisor {
            start = start.str("hypervisor", h.name());
        }
        if cpu.cntfrq != crate::arch::cpu::cntfrq_register() {
            start = start.u64("counter_hz", cpu.cntfrq);
        }
        if let Some((name, _, _)) = clock {
            start = start.str("clock", name);
        }
        let core = mairbench_core::cores::by_midr(cpu.midr);
        if boot.entry_el == 3 {
            start = start.bool("smpen_set", core.and_then(|c| c.smpen).is_some());
        }
        if crate::arch::boot::el2_traps_zeroed(boot.entry_el)
            .next()
            .is_some()
        {
            start = start.strs(
                "el2_traps_zeroed",
                crate::arch::boot::el2_traps_zeroed(boot.entry_el),
            );
        }
        if emulation.tells.iter().next().is_some() {
            start = start.strs("emulation_tells", emulation.tells.iter().map(Tell::name));
        }
        start = start
            .str("console", platform.console.kind.name())
            .hex("console_base", platform.console.base);
        let has_fb = crate::console::has_fb();
        if let (true, Some(Ok((fb, _)))) = (has_fb, &boot.fb) {
            start = start
                .str("fb", fb.source.name())
                .hex("fb_base", fb.base)
                .u64("fb_width", fb.width.into())
                .u64("fb_height", fb.height.into())
                .u64("fb_stride", fb.stride.into())
                .str("fb_format", fb.format.name());
        }
        let _ = start
            .str("psci", platform.psci.map_or("none", PsciConduit::name))
            .bool("semihosting", semihosting)
            .hex("dtb", dtb.map_or(0, |(addr, _)| addr as u64))
            .hex("image_base", boot.image_base as u64)
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
        describe(
            platform,
            emulation,
            cpu,
            boot.entry_el,
            boot.image_base,
            boot.dtb_arg,
        );
        if let Some(handoff) = uefi {
            describe_uefi(&handoff);
        }
        match &boot.fb {
            Some(Ok((fb, _))) => say!(
                "framebuffer: {}x{} px {}, {} B per row, at {:#x}, from {}: {}",
                u64::from(fb.width),
                u64::from(fb.height),
                fb.format.name(),
                u64::from(fb.stride),
                fb.base,
                fb.source.name(),
                if has_fb {
                    "the human lines are drawn on it (not the records)"
                } else {
                    "not drawn on (mairbench.console=fb draws on it as well as on the UART)"
                }
            ),
            Some(Err(problem)) => say!("framebuffer: {problem}"),
            None if mairbench_core::bootargs::console_fb(bootargs) => say!(
                "framebuffer: none described (no UEFI GOP, no simple-framebuffer node): \
                 mairbench.console=fb draws nothing"
            ),
            None => {}
        }
        crate::console::note_no_uart();
        if let Some(h) = hypervisor {
            say!(
                "hypervisor: in a guest of {}: its {}; the verdicts say so where that explains \
                 a failure",
                h.name(),
                mairbench_core::hypervisor::STAGE2_OVERRIDES
            );
        }
        if boot.entry_el == 3 {
            match core.map(|c| (c.name, c.smpen)) {
                Some((name, Some(smpen))) => say!(
                    "el3: CPUECTLR_EL1.SMPEN set before the caches and the MMU, as the {name} \
                     requires ({})",
                    smpen.source
                ),
                Some((name, None)) => {
                    say!("el3: no SMPEN set: the {name} has none in core's table of cores")
                }
                None => say!(
                    "el3: no SMPEN set: this core (MIDR {:#x}) is not in core's table of cores",
                    cpu.midr
                ),
            }
            // The entry code's other control, on the revisions of the row's `clean_as_civac`.
            let revision = Revision::of(cpu.midr);
            if let Some((name, r)) = core
                .and_then(|c| Some((c.name, c.clean_as_civac?)))
                .filter(|(_, r)| r.holds_for(revision))
            {
                say!(
                    "el3: {name} {revision} {} ({}); the entry code set it, so DC CVAC also \
                     drops the line",
                    r.cited.says,
                    r.cited.source
                );
            }
            say!(
                "el3: no TZASC or GIC secure set-up is done, so EL3 entry is supported on QEMU \
                 only: on a board, enter at EL2 or EL1 from the boot ROM's or TF-A's hand-off"
            );
        }
        let register = crate::arch::cpu::cntfrq_register();
        if let Some((name, base, hz)) = clock {
            say!("clock: no generic timer; {name} at {base:#x}, {hz} Hz, times the run");
        } else if cpu.cntfrq != register {
            say!(
                concat!(
                    "timer: the device tree's /timer clock-frequency {} Hz is used, not ",
                    arch_name!(cntfrq),
                    "'s {register} Hz, as Linux does (a boot loader left the register wrong)"
                ),
                cpu.cntfrq,
                register = register
            );
        }
        if let Some(hz) = boot.cntfrq_programmed {
            say!(
                concat!(
                    "timer: ",
                    arch_name!(cntfrq),
                    " read 0 at ",
                    arch_name!(level),
                    "3; programmed {hz} Hz from /timer clock-frequency"
                ),
                hz = hz
            );
        }
        if let Psci::Unusable(conduit) = psci {
            run::warn("psci");
            // One sentence for both conduits (not one string each): the image is smaller.
            let (call, el) = match conduit {
                PsciConduit::Hvc => ("HVC", 2u64),
                PsciConduit::Smc => ("SMC", 3),
            };
            say!(
                concat!(
                    "psci: {} unusable: {call} would land in ",
                    arch_name!(level),
                    "{el}, which mairbench was entered at and left: no PSCI implementation is \
                     there; no CPU_ON or SYSTEM_OFF through it"
                ),
                conduit.name(),
                call = call,
                el = el
            );
        }
    }
}

/// What the UEFI stage found: the tables, the memory map, how ExitBootServices went.
fn describe_uefi(h: &Handoff) {
    let map = h.memory_map();
    say!(
        "uefi: started as a UEFI application; tables: {}; memory map: {} descriptors, {} free \
         after ExitBootServices, {} ranges not free (avoided); ExitBootServices after {} \
         call(s); watchdog {}",
        h.tables.name(),
        map.descriptors,
        mairbench_core::format::Bytes(map.usable_bytes),
        map.reserved().len(),
        u64::from(h.exit_tries),
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

/// The human-readable part of the start: what was found and what was assumed. Not inlined
/// into [`Start::report`]: the code is shorter apart.
#[inline(never)]
fn describe(
    p: &Platform<'_>,
    emulation: &Emulation<'_>,
    cpu: &CpuId,
    entry_el: u64,
    base: usize,
    dtb_arg: usize,
) {
    // Core's name for the MIDR, where its table of cores has it: `Cortex-A7 r0p5, `.
    if let Some(core) = mairbench_core::cores::by_midr(cpu.midr) {
        say_inline!("cpu: {} {}, ", core.name, Revision::of(cpu.midr));
    } else {
        say_inline!("cpu: ");
    }
    say!(
        concat!(
            "MIDR {:#x}, MPIDR {:#x}; entered at ",
            arch_name!(level),
            "{entry_el}, running at ",
            arch_name!(level),
            "{}"
        ),
        cpu.midr,
        cpu.mpidr,
        cpu.el,
        entry_el = entry_el
    );
    // No generic timer (a SoC timer is the clock), or a register left unprogrammed (the
    // device tree's rate is used): the line says which rate, not CNTFRQ's.
    let other = crate::arch::cpu::cntfrq_register() == 0 && cpu.cntfrq != 0;
    say!(
        "timer: CNTFRQ {}{} Hz ({} ns per tick)",
        if other { "0 Hz; clock " } else { "" },
        cpu.cntfrq,
        1_000_000_000 / cpu.cntfrq.max(1)
    );
    say!(
        concat!(
            "platform: {}; image at {base:#x}; ",
            arch_name!(dtb_reg),
            " {dtb_arg:#x}"
        ),
        p.model,
        base = base,
        dtb_arg = dtb_arg
    );
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
        say!("{source}: {problem}");
    }
    if emulation.accel_conflict() {
        run::warn("emulation");
        say!("emulated: accel=kvm, but TCG's tells: judged TCG");
    }
    if emulation.kvm() {
        say!("QEMU under KVM: real caches, timings count");
    }
    if emulation.emulated() {
        say!("emulated machine: QEMU models no caches, so timings do not reflect memory types");
        let said = if emulation.suspected() {
            ""
        } else {
            "said by "
        };
        say!("emulated: {said}{emulation}");
        if emulation.suspected() {
            run::warn("emulation");
            say!(
                "emulated: judged as QEMU, so the timing verdicts are n/a; under an emulator \
                 say so with mairbench.host=<name> (qemu/run adds it); on silicon this is a \
                 finding: report the tells above"
            );
        }
    }
}
