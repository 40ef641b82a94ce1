//! The record schema: every kind of `@mb` record the firmware writes, with its fields, their
//! types and units. The firmware's writer names its kind from here, the host's reader takes
//! units and names from here, and `docs/records.md` documents exactly this table (its
//! tables are [`write_markdown`]'s output, checked by a test).
//!
//! The version rule ([`VERSION`], carried by the `start` record): adding a kind, or a field
//! that is not always present, keeps the version; renaming or removing a field, changing a
//! field's type or unit, making an always-present field optional or nullable, or changing
//! what a value means bumps it. A reader refuses a log of any other version; it warns about
//! kinds and fields it does not know and reads the rest.

use core::fmt::{self, Write};

use crate::kernel::Unit;

/// Version of the record schema, carried by the `start` record's `schema` field.
pub const VERSION: u64 = 1;

/// What a field's JSON value holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    /// A JSON string.
    Str,
    /// A non-negative JSON integer.
    U64,
    /// A JSON integer that may be negative.
    I64,
    /// `true` or `false`.
    Bool,
    /// A register-like value as a hexadecimal string, e.g. `"0x410fd083"`.
    Hex,
    /// A JSON number with a fixed number of decimals.
    Decimal,
    /// An array of strings.
    Strs,
    /// A JSON object whose values are numbers, e.g. `{"l1d_cache_refill":1.00}`; its doc
    /// names the keys and their unit.
    Numbers,
}

impl Type {
    /// The type in words, as `docs/records.md` names it.
    pub const fn name(self) -> &'static str {
        match self {
            Type::Str => "string",
            Type::U64 => "unsigned integer",
            Type::I64 => "integer",
            Type::Bool => "boolean",
            Type::Hex => "hex string",
            Type::Decimal => "decimal number",
            Type::Strs => "array of strings",
            Type::Numbers => "object of numbers",
        }
    }
}

/// One field of a record kind.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// The JSON key.
    pub name: &'static str,
    /// What its value holds.
    pub ty: Type,
    /// Its unit, in words (`""` when it has none).
    pub unit: &'static str,
    /// Whether every record of the kind carries it (its doc says when it is absent).
    pub always: bool,
    /// Whether its value may be JSON `null` instead of a [`Field::ty`] (its doc says when).
    pub nullable: bool,
    /// What it means.
    pub doc: &'static str,
}

impl Field {
    /// A field every record of its kind carries, never `null`.
    pub const fn always(
        name: &'static str,
        ty: Type,
        unit: &'static str,
        doc: &'static str,
    ) -> Self {
        Field {
            name,
            ty,
            unit,
            always: true,
            nullable: false,
            doc,
        }
    }

    /// A field only some records of its kind carry.
    pub const fn optional(
        name: &'static str,
        ty: Type,
        unit: &'static str,
        doc: &'static str,
    ) -> Self {
        Field {
            always: false,
            ..Field::always(name, ty, unit, doc)
        }
    }

    /// The same field, whose value may be `null`.
    pub const fn or_null(self) -> Self {
        Field {
            nullable: true,
            ..self
        }
    }
}

/// One kind of record.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    /// The value of its `kind` field.
    pub name: &'static str,
    /// What a record of this kind says, and when it is written.
    pub doc: &'static str,
    /// Its fields after `kind`, in the order the firmware writes them.
    pub fields: &'static [Field],
}

impl Kind {
    /// The field called `name`, if the kind has one.
    pub fn field(&self, name: &str) -> Option<&'static Field> {
        self.fields.iter().find(|f| f.name == name)
    }
}

use Type::{Bool, Decimal, Hex, Numbers, Str, Strs, I64, U64};

const BYTES: &str = "bytes";
const MBPS: &str = "MB/s (MB = 10^6 B)";
const TICKS: &str = "CNTVCT ticks";

/// The first record of a run.
pub const START: Kind = Kind {
    name: "start",
    doc: "The first record of a run: the schema version, the firmware, the CPU and the \
          platform it found, and how it was started. A log may hold several (a board that \
          booted more than once); the last one starts the run that counts.",
    fields: &[
        Field::always(
            "schema",
            U64,
            "",
            "Version of this schema; see the version rule.",
        ),
        Field::always(
            "version",
            Str,
            "",
            "Firmware version (its Cargo package version).",
        ),
        Field::optional(
            "arch",
            Str,
            "",
            "The architecture the run is on: aarch64 or armv7 (mairbench_core::arch). Absent in logs written before there were two, which are aarch64's.",
        ),
        Field::always(
            "entry_el",
            U64,
            "",
            "Exception level the firmware was entered at (1, 2 or 3); 0 for mairbench-linux (a Linux process).",
        ),
        Field::always(
            "el",
            U64,
            "",
            "Exception level it runs at (1; 0 for mairbench-linux).",
        ),
        Field::always(
            "entry_mmu",
            Bool,
            "",
            "Whether the MMU was on at entry (SCTLR_EL1.M).",
        ),
        Field::always(
            "entry_dcache",
            Bool,
            "",
            "Whether the data cache was on at entry (SCTLR_EL1.C).",
        ),
        Field::always("midr", Hex, "", "MIDR_EL1 of the boot CPU."),
        Field::always("mpidr", Hex, "", "MPIDR_EL1 of the boot CPU."),
        Field::always(
            "cntfrq_hz",
            U64,
            "Hz",
            "CNTFRQ_EL0: the frequency of the generic timer.",
        ),
        Field::always(
            "platform",
            Str,
            "",
            "The device tree's /model, else its first root compatible, else \"unknown\".",
        ),
        Field::always(
            "emulated",
            Bool,
            "",
            "Whether the machine is emulated in the sense that matters to its numbers: QEMU runs it, and not under KVM, so its timings do not reflect memory types. True when the runner said so (mairbench.host=), the device tree or ACPI tables are QEMU's, or the machine shows QEMU's tells (see emulated_by), unless QEMU runs it under KVM (see accel): there the cores and caches are real and the timings count.",
        ),
        Field::optional(
            "host",
            Str,
            "",
            "The emulator the runner named with mairbench.host=, e.g. \"qemu-10.0.2\" (qemu/run adds it on every boot path); absent without it.",
        ),
        Field::optional(
            "accel",
            Str,
            "",
            "How QEMU runs the machine, when something says so: \"tcg\" (instructions translated, no caches modelled: emulated) or \"kvm\" (the host's own cores and caches: timings count, as a guest's). From the machine's TCG tells first, then the runner's mairbench.accel= (qemu/run adds it with mairbench.host=), then KVM's SMCCC vendor-hypervisor UID on a machine QEMU describes; absent when nothing does (a QEMU machine then stays emulated).",
        ),
        Field::optional(
            "emulated_by",
            Strs,
            "",
            "What says the run is emulated, present when it is: \"bootarg\" (mairbench.host=), \"dtb\" (the device tree is QEMU's: root compatible linux,dummy-virt, or a qemu,fw-cfg-mmio or qemu,platform node), \"acpi\" (the ACPI tables are QEMU's: OEM ID BOCHS, OEM table ID BXPC), \"tells\" (the machine behaves like QEMU's TCG, see emulation_tells: suspected when nothing else says so). QEMU's board machines boot the real board's device tree: there the bootarg or the tells say so.",
        ),
        Field::optional(
            "counter_hz",
            U64,
            "Hz",
            "The counter rate the firmware times with when it is not CNTFRQ_EL0's: the device tree's /timer clock-frequency, which Linux prefers (a boot loader left the register wrong; not under an emulator, whose counter runs at its own rate); the Linux twin's, where CNTFRQ_EL0 reads 0 (user-mode QEMU 10): the rate it measured against CLOCK_MONOTONIC (core's counter_rate); the SoC timer's that `clock` names; absent otherwise.",
        ),
        Field::optional(
            "clock",
            Str,
            "",
            "The SoC timer that times a 32-bit run without the generic timer (core's SocTimerKind::name; its rate: counter_hz).",
        ),
        Field::optional(
            "hypervisor",
            Str,
            "",
            "The hypervisor whose guest the firmware runs in, when one says so: \"kvm\" (its SMCCC vendor-hypervisor UID, asked over HVC where PSCI's conduit is HVC and SMCCC is 1.1 or later), \"xen\" (a /hypervisor node compatible xen,xen) or \"other\" (another UID or /hypervisor node, or the ACPI FADT's Hypervisor Vendor Identity: QEMU's names \"QEMU\"); a stage 2 that forces Normal write-back (FEAT_S2FWB) then makes the uncached and write-through verdicts n/a instead of failing. Absent outside a guest, and under QEMU's own PSCI.",
        ),
        Field::optional(
            "smpen_set",
            Bool,
            "",
            "Entered at EL3: whether the entry code set CPUECTLR_EL1.SMPEN before the caches and the MMU (the cores whose row of core's table of cores has it: A53, A35, A57, A72, A73); absent below EL3. No TZASC or GIC secure set-up is done at EL3: EL3 entry is supported on QEMU only.",
        ),
        Field::optional(
            "el2_traps_zeroed",
            Strs,
            "",
            "Entered at EL2 or EL3: the EL2 trap registers the entry code zeroed before the drop to EL1 (HFGRTR_EL2, HFGWTR_EL2, HFGITR_EL2, HDFGRTR_EL2, HDFGWTR_EL2 where FEAT_FGT exists, HCRX_EL2 where FEAT_HCX does), as Linux's __init_el2_fgt does, so that no bit a boot loader left set traps EL1's accesses to an EL2 without vectors; absent when there were none.",
        ),
        Field::optional(
            "emulation_tells",
            Strs,
            "",
            "QEMU's tells the machine showed, present when it showed any: \"cycles-are-ns\" (PMCCNTR_EL0 counts 16 per tick of a 62.5 MHz counter: virtual nanoseconds), \"qemu-pmu-events\" (PMCEID0_EL0 lists only QEMU's events), \"cntfrq-not-the-boards\" (CNTFRQ_EL0 is QEMU's 62.5 MHz, the device tree's /timer says another rate); the Linux twin's: \"counter-in-us\" (CNTVCT_EL0 at 62.5 MHz moves a microsecond at a time, as user-mode QEMU's), \"cpuinfo-not-arm64\" (/proc/cpuinfo has no CPU implementer: the kernel is another architecture's). QEMU's event list, cpuinfo-not-arm64, or two tells, make the run emulated (\"tells\" in emulated_by); one other tell alone does not.",
        ),
        Field::always(
            "console",
            Str,
            "",
            "The console UART's driver family, as `ConsoleKind::name` gives it (\"pl011\", \"ns16550\", \"imx\", ...: docs/boards.md).",
        ),
        Field::always(
            "console_base",
            Hex,
            "",
            "Physical address of the console UART.",
        ),
        Field::optional(
            "fb",
            Str,
            "",
            "Present when the human lines are also drawn on a framebuffer (no UART, or `mairbench.console=fb`): who described it, \"gop\" (UEFI's Graphics Output Protocol) or \"dtb\" (a `simple-framebuffer` node). The `fb_*` fields come with it.",
        ),
        Field::optional(
            "fb_base",
            Hex,
            "",
            "Physical address of the framebuffer's top-left pixel.",
        ),
        Field::optional("fb_width", U64, "pixels", "Pixels per row shown."),
        Field::optional("fb_height", U64, "pixels", "Rows shown."),
        Field::optional(
            "fb_stride",
            U64,
            BYTES,
            "Bytes from one row of pixels to the next.",
        ),
        Field::optional(
            "fb_format",
            Str,
            "",
            "The pixel layout, as the `simple-framebuffer` binding names it: \"x8r8g8b8\", \"x8b8g8r8\", \"x2r10g10b10\" or \"r5g6b5\" (the a8/a2 variants are drawn opaque as their x twins).",
        ),
        Field::always(
            "psci",
            Str,
            "",
            "PSCI conduit from the device tree: \"hvc\", \"smc\" or \"none\".",
        ),
        Field::always(
            "semihosting",
            Bool,
            "",
            "Whether semihosting answered (QEMU -semihosting).",
        ),
        Field::always(
            "dtb",
            Hex,
            "",
            "Address of the device tree (0x0: none found).",
        ),
        Field::always("image_base", Hex, "", "Address the image runs at."),
        Field::always(
            "ram_base",
            Hex,
            "",
            "Physical base of the RAM the firmware uses.",
        ),
        Field::always("ram_size", U64, BYTES, "Size of that RAM."),
        Field::always(
            "bootargs",
            Str,
            "",
            "The command line (empty when there is none).",
        ),
        Field::always(
            "bootargs_from",
            Str,
            "",
            "Where it came from: \"dtb\" (/chosen/bootargs), \"uefi\" (the UEFI load options), \"semihosting\", \"argv\" (mairbench-linux: its arguments joined by spaces) or \"none\".",
        ),
        Field::optional(
            "firmware",
            Str,
            "",
            "\"uefi\" when started as a UEFI application (EDK2, U-Boot's bootefi), else \"none\" (booti, bootm, QEMU -kernel, a loader). Absent in logs of older firmware.",
        ),
        Field::optional(
            "tables",
            Str,
            "",
            "What describes the machine: \"dtb\" (a device tree: x0, QEMU's at the RAM base, or UEFI's EFI_DTB_TABLE), \"acpi\" (the UEFI ACPI 2.0 RSDP alone) or \"none\". Absent in logs of older firmware.",
        ),
        Field::optional(
            "kernel",
            Str,
            "",
            "mairbench-linux only: the Linux kernel it runs on, uname's sysname and release (e.g. \"Linux 6.12.38+deb12-arm64\"). Its start record has every field above too, with a process's values: entry_el and el 0, entry_mmu and entry_dcache true, midr from sysfs (0x0 where unreadable), mpidr, console_base, dtb, ram_base and ram_size 0, console \"stdout\", psci \"none\", platform from /proc/device-tree.",
        ),
        Field::optional(
            "machine",
            Str,
            "",
            "mairbench-linux only: uname's machine (\"aarch64\").",
        ),
    ],
};

/// One check.
pub const CHECK: Kind = Kind {
    name: "check",
    doc: "One check, passed or failed, with its human line's text. A failed check makes the \
          run fail.",
    fields: &[
        Field::always(
            "name",
            Str,
            "",
            "What was checked, e.g. \"timer\", \"memtype\", \"integrity\".",
        ),
        Field::always("ok", Bool, "", "Whether it passed."),
        Field::always("detail", Str, "", "What was seen, in words."),
    ],
};

/// The boot CPU's ACTLR SMP bits on 32-bit Arm.
pub const SMP_BITS: Kind = Kind {
    name: "smp_bits",
    doc: "The boot CPU's Auxiliary Control Register bits that take it into coherency (SMP, \
          and FW on the Cortex-A5 and A9), as found at entry and after the image set the \
          missing ones before the caches went on; the smp-config verdict judges them. Only \
          in a 32-bit (armv7) log, on a core of core's cores::armv7 table.",
    fields: &[
        Field::always("core", Str, "", "The core, e.g. \"Cortex-A7\"."),
        Field::always(
            "needs",
            Hex,
            "",
            "The ACTLR bits the core needs: SMP 0x40, with FW 0x1 on the A5 and A9.",
        ),
        Field::always(
            "entry",
            Hex,
            "",
            "ACTLR at entry, as the boot loader left it.",
        ),
        Field::always(
            "actlr",
            Hex,
            "",
            "ACTLR after the image's write (the same as entry when nothing was missing, or \
             where the write is ignored: Non-secure PL1 without NSACR.NS_SMP, or QEMU).",
        ),
        Field::always(
            "missing",
            Hex,
            "",
            "The bits of needs that are clear in actlr; 0x0 when the core takes part in \
             coherency.",
        ),
        Field::always(
            "set_by_image",
            Bool,
            "",
            "Whether the image's write set bits the boot loader had left clear.",
        ),
    ],
};

/// The options in force.
pub const CONFIG: Kind = Kind {
    name: "config",
    doc: "The options in force after parsing the command line.",
    fields: &[
        Field::always(
            "quick",
            Bool,
            "",
            "mairbench.quick: a small subset of the measurements.",
        ),
        Field::always(
            "buffer_request",
            U64,
            BYTES,
            "mairbench.buffer: the buffer size asked for; null when not given.",
        )
        .or_null(),
        Field::always(
            "types",
            Strs,
            "",
            "The memory types measured (mairbench.types), in table order.",
        ),
        Field::always(
            "device_faults",
            Bool,
            "",
            "mairbench.device-faults: whether the Device-memory faults are tried.",
        ),
        Field::optional(
            "pmu_events",
            Strs,
            "",
            "The PMU events counted around every timed sample (keys of each result's \"pmu\"), \
             in the priority order of the core's event table (crates/core/src/pmu.rs), at most \
             PMCR_EL0.N of them; empty when none is counted. Always written; absent in logs of \
             older firmware.",
        ),
        Field::optional(
            "pmu_reason",
            Str,
            "",
            "Why no PMU event is counted, so that every result's \"pmu\" is null: \"no PMU \
             (ID_AA64DFR0_EL1.PMUVer)\", \"no event counters (PMCR_EL0.N is 0)\", \"event \
             counters trapped (an access took an exception)\" or \"the PMU implements none of \
             the memory events (PMCEID0/1_EL0)\" (QEMU); null when events are counted. Always \
             written; absent in logs of older firmware.",
        )
        .or_null(),
        Field::optional(
            "pmceid0",
            Hex,
            "",
            "PMCEID0_EL0: bit n set when Common event n is implemented (0x00-0x1F; upper half \
             0x4000-0x401F); absent without a readable PMU.",
        ),
        Field::optional(
            "pmceid1",
            Hex,
            "",
            "PMCEID1_EL0: the same for events 0x20-0x3F (upper half 0x4020-0x403F); absent \
             without a readable PMU.",
        ),
        Field::optional(
            "cycle_mhz",
            Decimal,
            "MHz",
            "PMCCNTR_EL0 cycles per microsecond, measured over 1 ms of CNTVCT_EL0 (one \
             decimal): the core clock on silicon, 1000.0 under QEMU (virtual nanoseconds); \
             null without a usable cycle counter or timer frequency. Always written; absent in \
             logs of older firmware.",
        )
        .or_null(),
        Field::optional(
            "cycle_hz",
            U64,
            "Hz",
            "The same rate in whole cycles per second of CNTVCT_EL0, as the clock verdict \
             judges it (cargo host verdicts re-judges from it); null without a usable cycle \
             counter or timer frequency; absent in logs of older firmware.",
        )
        .or_null(),
    ],
};

/// The cache-maintenance experiment.
pub const MAINTENANCE: Kind = Kind {
    name: "maintenance",
    doc: "The cache-maintenance experiment the maintenance verdict judges: data written \
          through normal-wb and cleaned (DC CVAC) read through normal-nc; normal-nc's new data \
          read through normal-wb before and after DC IVAC.",
    fields: &[
        Field::always("bytes", U64, BYTES, "The range's size."),
        Field::always(
            "cleaned_visible",
            Bool,
            "",
            "normal-nc read exactly what was written through normal-wb and cleaned.",
        ),
        Field::always(
            "stale_before_invalidate",
            Bool,
            "",
            "normal-wb still read its old line after normal-nc wrote (the line was held, so \
             the invalidate tests something); null when not tried.",
        )
        .or_null(),
        Field::always(
            "invalidate_dropped",
            Bool,
            "",
            "After DC IVAC normal-wb read exactly normal-nc's data; null when not tried.",
        )
        .or_null(),
    ],
};

/// The outer cache's maintenance timed beside the CPU's (32-bit boards with an L2C-310).
pub const OUTER_MAINT: Kind = Kind {
    name: "outer_maint",
    doc: "How long cleaning one range costs at each level of a 32-bit board's caches \
          (core's pl310::timing): the CPU's DCCMVAC by VA, one per CPU line and a DSB, against \
          the L2C-310's CLEAN_LINE_PA, one register write per 32-byte line, with the \
          translation of each 4 KiB page (ATS1CPR and the PAR read) and each page's \
          CACHE_SYNC, as the firmware's own outer maintenance does it. Each pass writes the \
          range (untimed), cleans it in the CPU's caches, then in the L2C-310; the best pass \
          of each level is kept. Only in a 32-bit (armv7) log, once, after the maintenance \
          record, where the device tree names an L2C-310 and the clock runs; a disabled \
          controller holds no lines, so its figures are the register path's cost only.",
    fields: &[
        Field::always(
            "enabled",
            Bool,
            "",
            "Whether the controller was enabled (CTRL bit 0); false: it holds no lines, and \
             the outer figures are the register path's cost, not a clean's.",
        ),
        Field::always("bytes", U64, BYTES, "The range cleaned in each pass."),
        Field::always(
            "reps",
            U64,
            "",
            "Passes timed; the best of each level is kept.",
        ),
        Field::always(
            "freq_hz",
            U64,
            "Hz",
            "The counter's rate, of the ticks below.",
        ),
        Field::always(
            "cpu_line",
            U64,
            BYTES,
            "The CPU's data cache line (CTR.DminLine): the step of DCCMVAC.",
        ),
        Field::always(
            "cpu_lines",
            U64,
            "lines",
            "CPU lines of the range: one DCCMVAC each.",
        ),
        Field::always(
            "cpu_ticks",
            U64,
            "counter ticks",
            "The best pass's time for the CPU's clean of the range, DSB included.",
        ),
        Field::always(
            "cpu_ns_per_line",
            Decimal,
            "ns",
            "cpu_ticks per CPU line; null when the best pass took no tick of the clock.",
        )
        .or_null(),
        Field::always(
            "outer_line",
            U64,
            BYTES,
            "The L2C-310's line: 32 bytes, the step of CLEAN_LINE_PA.",
        ),
        Field::always(
            "outer_lines",
            U64,
            "lines",
            "L2C-310 lines written to CLEAN_LINE_PA in a pass.",
        ),
        Field::always(
            "pages",
            U64,
            "pages",
            "4 KiB pages translated in a pass (ATS1CPR and the PAR read each).",
        ),
        Field::always(
            "syncs",
            U64,
            "",
            "CACHE_SYNCs in a pass: one after each page's lines.",
        ),
        Field::always(
            "outer_ticks",
            U64,
            "counter ticks",
            "The best pass's time for the L2C-310's clean of the range, translations and \
             syncs included.",
        ),
        Field::always(
            "outer_ns_per_line",
            Decimal,
            "ns",
            "outer_ticks per L2C-310 line; null when the best pass took no tick of the clock.",
        )
        .or_null(),
        Field::always(
            "ratio",
            Decimal,
            "",
            "outer_ticks over cpu_ticks: the L2C-310's time for the range over the CPU's; \
             null when either took no tick. QEMU models no caches: there it says nothing of \
             silicon.",
        )
        .or_null(),
    ],
};

/// What the secondary CPUs showed.
pub const SMP: Kind = Kind {
    name: "smp",
    doc: "What the secondary CPUs showed, as the smp-config verdict judges it; only when \
          more than the boot CPU was tried.",
    fields: &[
        Field::always(
            "cpus",
            U64,
            "",
            "CPUs tried (the boot CPU included, up to the cap).",
        ),
        Field::always("started", U64, "", "CPUs running (the boot CPU included)."),
        Field::always(
            "differing",
            U64,
            "",
            "Started CPUs whose SCTLR_EL1, MAIR_EL1, TCR_EL1 or TTBR0_EL1 differ from the \
             boot CPU's.",
        ),
        Field::always(
            "first_differing_mpidr",
            Hex,
            "",
            "The first such CPU's MPIDR_EL1 affinity; null when none differs.",
        )
        .or_null(),
        Field::always(
            "first_differing_register",
            Str,
            "",
            "The first register it differs in; null when none differs.",
        )
        .or_null(),
        Field::always(
            "shared_line_ok",
            Bool,
            "",
            "A value one core wrote to a shared normal-wb line was read exactly by another.",
        ),
    ],
};

/// MMU registers and tables.
pub const MMU: Kind = Kind {
    name: "mmu",
    doc: "The MMU as set up: registers, translation-table use and the measurement buffer.",
    fields: &[
        Field::always("mair", Hex, "", "MAIR_EL1."),
        Field::always("tcr", Hex, "", "TCR_EL1."),
        Field::always("sctlr", Hex, "", "SCTLR_EL1 with the MMU on."),
        Field::always(
            "va_bits",
            U64,
            "bits",
            "Virtual address size (64 - TCR_EL1.T0SZ).",
        ),
        Field::always(
            "tables_used",
            U64,
            "tables",
            "4 KiB translation tables used.",
        ),
        Field::always("tables_total", U64, "tables", "Tables in the pool."),
        Field::always("table_bytes", U64, BYTES, "Memory of the tables used."),
        Field::always(
            "buffer_pa",
            Hex,
            "",
            "Physical address of the measurement buffer.",
        ),
        Field::always("buffer_size", U64, BYTES, "Size of the buffer."),
        Field::always(
            "buffer_shrunk",
            Bool,
            "",
            "Whether the buffer is smaller than asked (RAM or table pool).",
        ),
    ],
};

/// One mapped region.
pub const MAP: Kind = Kind {
    name: "map",
    doc: "One region of the memory map (image, stacks, tables, UART, buffer aliases); the \
          ranges the device tree reserves follow as `reserved` records.",
    fields: &[
        Field::always("what", Str, "", "What the region holds."),
        Field::always("va", Hex, "", "Virtual address."),
        Field::always("pa", Hex, "", "Physical address."),
        Field::always("size", U64, BYTES, "Size of the region."),
        Field::always(
            "memtype",
            Str,
            "",
            "Memory type it is mapped with (a name of the memory-type table).",
        ),
        Field::always("perm", Str, "", "Permissions: \"r-x\", \"r--\" or \"rw-\"."),
        Field::always(
            "granule",
            Str,
            "",
            "Mapping granule: \"4K\" (pages) or \"2M\" (blocks).",
        ),
    ],
};

/// One range the device tree reserves.
pub const RESERVED: Kind = Kind {
    name: "reserved",
    doc: "One reservation of the device tree, listed with the memory map: a `/memreserve/` \
          entry or a `/reserved-memory` child (enabled, with a non-zero size). The firmware \
          maps none of them, and places the buffer clear of every one that has an address; \
          the `reserved` check says whether the image (its tables and stacks inside it) \
          overlaps one.",
    fields: &[
        Field::always(
            "source",
            Str,
            "",
            "\"memreserve\" (the memory reservation block), \"reserved-memory\", or \"uefi\" (a range the UEFI memory map keeps after ExitBootServices: runtime services, ACPI, reserved memory; its name is the memory type, \"EfiRuntimeServicesData\").",
        ),
        Field::always(
            "name",
            Str,
            "",
            "The /reserved-memory child's name (\"secmon@4c000000\"); \"\" for memreserve.",
        ),
        Field::optional(
            "pa",
            Hex,
            "",
            "Physical address of the first byte; absent for a dynamic reservation (a size \
             without reg, placed by an OS), which nothing here has to avoid.",
        ),
        Field::always("size", U64, BYTES, "Size of the reservation."),
        Field::always(
            "no_map",
            Bool,
            "",
            "The node has no-map: nothing may map it, not even for speculative accesses.",
        ),
    ],
};

/// The proof of one alias.
pub const MEMTYPE: Kind = Kind {
    name: "memtype",
    doc: "The proof of one alias of the buffer: AT S1E1R on sampled pages gives the buffer's \
          physical address and PAR_EL1.ATTR equal to the alias's MAIR byte. One per memory \
          type with 4 KiB pages, then normal-wb with 2 MiB blocks.",
    fields: &[
        Field::always("name", Str, "", "Memory type name."),
        Field::always("index", U64, "", "Its position in the memory-type table (its MAIR_EL1 slot)."),
        Field::always("attr_index", U64, "", "AttrIndx of the alias's descriptors."),
        Field::always("mair", Hex, "", "The MAIR attribute byte of the type."),
        Field::always("va", Hex, "", "First virtual address of the alias."),
        Field::always("va_end", Hex, "", "End of the alias (exclusive)."),
        Field::always("pa", Hex, "", "Physical address it maps (the buffer's)."),
        Field::always("size", U64, BYTES, "Size of the alias."),
        Field::always("par_attr", Hex, "", "PAR_EL1.ATTR the translation reported."),
        Field::always("granule", Str, "", "\"4K\" or \"2M\"."),
        Field::always("samples", U64, "pages", "Pages translated."),
        Field::always("verdict", Str, "", "\"exact\", \"implemented-as\" (same class, what the core implements), \"address-only\" (a PAR without attributes: QEMU's short-descriptor one), \"wrong-pa\", \"inconsistent\" or \"wrong-attr\"."),
        Field::always("ok", Bool, "", "Whether the verdict is exact, implemented-as or address-only."),
    ],
};

/// One coherence pair.
pub const COHERENCE: Kind = Kind {
    name: "coherence",
    doc: "One writer/reader pair of aliases: a pattern written through one and read back \
          through the other, with cache maintenance around cacheable aliases. The last \
          record repeats the experiment without maintenance, as information.",
    fields: &[
        Field::always("writer", Str, "", "Memory type written through."),
        Field::always("reader", Str, "", "Memory type read through."),
        Field::always("bytes", U64, BYTES, "Bytes written and read."),
        Field::always(
            "maintenance",
            Bool,
            "",
            "Whether cache maintenance was done between.",
        ),
        Field::always(
            "mismatches",
            U64,
            "words (8 bytes)",
            "Words read back different from what was written.",
        ),
        Field::optional(
            "first_offset",
            Hex,
            "",
            "Buffer offset of the first mismatch; only when there is one (with maintenance).",
        ),
        Field::optional(
            "ok",
            Bool,
            "",
            "Whether nothing mismatched; only with maintenance.",
        ),
        Field::optional(
            "informational",
            Bool,
            "",
            "true: the run without maintenance, which cannot fail; only there.",
        ),
    ],
};

/// One provoked fault.
pub const FAULT: Kind = Kind {
    name: "fault",
    doc: "One fault the memory map promises, provoked on purpose and survived.",
    fields: &[
        Field::always("test", Str, "", "\"guard-page-load\", \"text-store\" or \"unmapped-load\"."),
        Field::always("va", Hex, "", "Address accessed."),
        Field::always("esr", Hex, "", "ESR_EL1 of the fault; null when none was taken.").or_null(),
        Field::optional("class", Str, "", "Exception class in words; only when a fault was taken."),
        Field::optional("status", Str, "", "Fault status in words, e.g. \"translation fault\"; only when a fault was taken."),
        Field::optional("far", Hex, "", "FAR_EL1; only when a fault was taken."),
        Field::optional("write", Bool, "", "Whether the fault was on a write (ESR WnR); only when a fault was taken."),
        Field::optional("level", U64, "", "Translation level of the fault; only when a fault was taken, null when the status has none.").or_null(),
        Field::always("expected", Str, "", "The fault status expected."),
        Field::always("ok", Bool, "", "Whether the expected fault was taken at the address."),
    ],
};

/// One Device-memory fault probe.
pub const DEVICE_FAULT: Kind = Kind {
    name: "device-fault",
    doc: "One access real cores fault on in Device memory, tried on one Device alias \
          (mairbench.device-faults only). Information: it never fails the run.",
    fields: &[
        Field::always("memtype", Str, "", "The Device memory type."),
        Field::always("access", Str, "", "\"unaligned-load\" or \"dc-zva\"."),
        Field::always(
            "tried",
            Bool,
            "",
            "Whether it was tried (DC ZVA may be prohibited).",
        ),
        Field::always("faulted", Bool, "", "Whether it faulted."),
        Field::optional(
            "esr",
            Hex,
            "",
            "ESR_EL1 of the fault; only when it faulted.",
        ),
        Field::always("outcome", Str, "", "What happened, in words."),
        Field::always("informational", Bool, "", "Always true."),
    ],
};

/// A running CPU.
pub const HELLO: Kind = Kind {
    name: "hello",
    doc: "A CPU running at EL1: the boot CPU first, then each secondary started with PSCI \
          CPU_ON or released from its spin table.",
    fields: &[
        Field::always(
            "cpu",
            U64,
            "",
            "0 for the boot CPU, else the secondary's number (its stack block).",
        ),
        Field::always("mpidr", Hex, "", "Its MPIDR_EL1 affinity."),
        Field::always("el", U64, "", "Exception level it runs at (1)."),
        Field::always("entry_el", U64, "", "Exception level it was entered at."),
        Field::optional(
            "midr",
            Hex,
            "",
            "Its MIDR_EL1 (the clusters of a multi-cluster part differ).",
        ),
        Field::optional(
            "sctlr",
            Hex,
            "",
            "Its SCTLR_EL1 with its MMU on, read by the CPU itself; every CPU's must equal the \
             boot CPU's (the check smp-registers). Written for every CPU; absent in logs of \
             older firmware (also mair, tcr, ttbr0).",
        ),
        Field::optional(
            "mair",
            Hex,
            "",
            "Its MAIR_EL1 (16 digits, as in the mmu record).",
        ),
        Field::optional("tcr", Hex, "", "Its TCR_EL1."),
        Field::optional(
            "ttbr0",
            Hex,
            "",
            "Its TTBR0_EL1: the tables' physical address (and ASID).",
        ),
    ],
};

/// A CPU that did not start.
pub const CPU: Kind = Kind {
    name: "cpu",
    doc: "A CPU of /cpus that did not start; the run goes on with the others.",
    fields: &[
        Field::always("mpidr", Hex, "", "Its MPIDR from the device tree."),
        Field::always("started", Bool, "", "Always false."),
        Field::always("why", Str, "", "Why not, in words."),
    ],
};

/// One secondary CPU's counter against the boot CPU's.
pub const COUNTER: Kind = Kind {
    name: "counter",
    doc: "A secondary CPU's CNTFRQ_EL0 and how far its CNTVCT_EL0 may be from the boot CPU's, \
          bounded by round trips through memory (the check smp-counters); one per running \
          secondary.",
    fields: &[
        Field::always("cpu", U64, "", "The secondary's number (its stack block)."),
        Field::always("mpidr", Hex, "", "Its MPIDR_EL1 affinity."),
        Field::always(
            "cntfrq_hz",
            U64,
            "Hz",
            "Its CNTFRQ_EL0, read by the CPU itself; null when it did not answer.",
        )
        .or_null(),
        Field::always(
            "offset_min_ticks",
            I64,
            TICKS,
            "The least its counter minus the boot CPU's can be, for every round; null when \
             it did not answer or no offset fits every round.",
        )
        .or_null(),
        Field::always(
            "offset_max_ticks",
            I64,
            TICKS,
            "The greatest it can be; null as offset_min_ticks.",
        )
        .or_null(),
        Field::always(
            "round_trip_ticks",
            U64,
            TICKS,
            "The quickest round (the bound is no tighter); null when it did not answer.",
        )
        .or_null(),
        Field::always("rounds", U64, "", "Rounds it answered."),
    ],
};

/// One cache level.
pub const CACHE: Kind = Kind {
    name: "cache",
    doc: "One cache level of the boot CPU (CLIDR_EL1, CCSIDR_EL1).",
    fields: &[
        ON_CLUSTER,
        Field::always("level", U64, "", "1-based level."),
        Field::always(
            "type",
            Str,
            "",
            "\"data\", \"separate\" (data of split caches), \"unified\" or \"instruction\".",
        ),
        Field::always("size", U64, BYTES, "Capacity."),
        Field::always("line", U64, BYTES, "Line size."),
        Field::always("ways", U64, "", "Associativity."),
        Field::always("sets", U64, "", "Number of sets."),
    ],
};

/// The clock of the benchmark.
pub const TIMER: Kind = Kind {
    name: "timer",
    doc: "How the benchmark times: the counter, its read overhead and the sample size. A \
          point's samples are sized by time: its warm-up times growing numbers of passes \
          until one probe lasts half the shortest sample, and the samples get the passes that \
          make min_sample_ticks at that rate (never fewer than one; a sample that still comes \
          out shorter makes all of them be taken again with more passes).",
    fields: &[
        ON_CLUSTER,
        Field::always(
            "freq_hz",
            U64,
            "Hz",
            "CNTFRQ_EL0: ticks per second of CNTVCT_EL0.",
        ),
        Field::always(
            "overhead_ticks",
            U64,
            TICKS,
            "Cost of reading the counter, subtracted from every sample.",
        ),
        Field::always(
            "pmu_cycles",
            Bool,
            "",
            "Whether PMCCNTR_EL0 cycles are recorded too.",
        ),
        Field::always(
            "sample_bytes",
            U64,
            BYTES,
            "Bytes a multi-core scaling sample covers at least (single-core points are sized \
             by time: min_sample_ticks; firmware before that sized them by these bytes too).",
        ),
        Field::optional(
            "min_sample_ticks",
            U64,
            TICKS,
            "Shortest timed sample of a point: at least 1000 ticks (the tick at most 0.1 % \
             of it) and at least 20 µs; absent in logs of older firmware.",
        ),
        Field::optional(
            "min_sample_ns",
            U64,
            "ns",
            "min_sample_ticks in nanoseconds (rounded down); with min_sample_ticks.",
        ),
        Field::always("reps", U64, "samples", "Timed samples per point."),
        Field::optional(
            "counter_step_ticks",
            U64,
            "ticks",
            "The counter's real step: the smallest advance between successive reads that \
             differ (1 on a counter that ticks at its rate; a counter may advance in larger \
             steps at a lower rate); min_sample_ticks is at least 1000 of them. Absent in logs \
             of older firmware.",
        ),
        Field::optional(
            "counter_errata",
            Strs,
            "",
            "The counter errata every read of CNTVCT_EL0 works around, by Linux's rules \
             (drivers/clocksource/arm_arch_timer.c): \"fsl-a008585\", \"hisilicon-161010101\", \
             \"allwinner-unknown1\" (named by the device tree's timer node), \
             \"cortex-a73-858921\" (by the MIDR); empty when none. Absent in logs of older \
             firmware.",
        ),
    ],
};

/// One source of mairbench-linux.
pub const SOURCE: Kind = Kind {
    name: "source",
    doc: "mairbench-linux only: one source (a Linux mapping) it tried, before that source's \
          results. Mapped: source, size, detail. Missing or refused (no such device, a \
          kernel that says no): source, error, errno, detail; the run goes on, with no \
          results for it, and the run's status does not change.",
    fields: &[
        Field::always(
            "source",
            Str,
            "",
            "The source's name as its results carry it, of a form of core's source table \
             (mairbench_core::source::SOURCES): \"anon\", \"udmabuf\", \
             \"dma-heap:<name>\", \"pci:<BDF>:resN\", \"pci:<BDF>:resN_wc\", \
             \"devmem:<pa>+<size>\", \"drm-dumb:<card>\", \"dma-buf:<card>\" or \
             \"devmem-ram\"; \"dma-heap:*\", \"drm-dumb:*\" or \"dma-buf:*\" when `all` \
             found none to run (refused only).",
        ),
        Field::optional(
            "size",
            U64,
            BYTES,
            "Bytes mapped (the largest sweep size, or less when the BAR or the devmem range \
             is smaller; the sweep runs the sizes that fit); mapped only.",
        ),
        Field::optional(
            "error",
            Str,
            "",
            "The errno's name (\"ENOENT\", \"EPERM\", \"EACCES\"...; \"E?\" outside the \
             twin's table); refused only.",
        ),
        Field::optional(
            "errno",
            U64,
            "",
            "The errno's number (arm64); refused only.",
        ),
        Field::always(
            "detail",
            Str,
            "",
            "Mapped: how, the source table's text (\"mmap of \
             /sys/bus/pci/devices/<BDF>/resourceN_wc\"). Refused: the step that failed \
             (\"open /dev/udmabuf\", \"DMA_HEAP_IOCTL_ALLOC\", \"mmap\", \"list \
             /dev/dri\"...), or for a name that is none, the valid forms; a BAR `all` \
             leaves alone says why (memory decoding off, or the driver that owns it).",
        ),
        Field::optional(
            "driver",
            Str,
            "",
            "drm-dumb and dma-buf sources: the DRM driver's name from DRM_IOCTL_VERSION \
             (\"vgem\", \"virtio_gpu\"); mapped only.",
        ),
        Field::optional(
            "expected",
            Str,
            "",
            "The firmware memory type the mapping's arm64 protection is (core's source table, \
             or for drm-dumb and dma-buf its DRM driver table); mapped only, when known.",
        ),
        Field::optional(
            "range",
            Str,
            "",
            "devmem-ram: the physical range mapped, as the mairbench.devmem-ram= bootarg \
             gave it (\"0x5c000000+64M\"); mapped only.",
        ),
        Field::optional(
            "hugepages",
            Str,
            "",
            "anon only: the mairbench.hugepages= request it was mapped under, every time \
             2 MiB-aligned so that transparent huge pages (THP) can apply: \"auto\" (no \
             advice: the kernel's setting, see thp), \"on\" (madvise MADV_HUGEPAGE), \
             \"off\" (MADV_NOHUGEPAGE). The other sources' page-table entries are their \
             drivers' (remap_pfn_range or vmf_insert_pfn: 4 KiB pages), which no advice \
             changes.",
        ),
        Field::optional(
            "thp",
            Str,
            "",
            "anon only: the kernel's THP setting, the bracketed word of \
             /sys/kernel/mm/transparent_hugepage/enabled (\"always\", \"madvise\", \
             \"never\"); absent when unreadable (a kernel without THP). Under user-mode \
             QEMU the host's, which decides the host pages guest memory lies in.",
        ),
        Field::optional(
            "huge",
            Bool,
            "",
            "Whether any of the mapping is mapped with 2 MiB PMD entries (see huge_bytes), \
             read after the twin touched every page of an anon mapping (other sources as \
             mapped, before their sweep); mapped only, absent when neither way of \
             huge_bytes can say.",
        ),
        Field::optional(
            "huge_bytes",
            U64,
            BYTES,
            "With huge: bytes of the mapping on PMD entries (0 exactly when huge is false): \
             by the PAGEMAP_SCAN ioctl on /proc/self/pagemap (pages of category \
             PAGE_IS_HUGE; Linux 6.7 and later), else by /proc/self/smaps for the VMA that \
             holds the mapping (AnonHugePages + ShmemPmdMapped + FilePmdMapped, kB times \
             1024; a VMA larger than the mapping counts only when none or all of it is \
             huge). Under user-mode QEMU 7.2, which serves no PAGEMAP_SCAN and emulates \
             /proc/self/maps but not smaps, the host's smaps of QEMU, whose guest addresses \
             are its host addresses (guest base 0).",
        ),
    ],
};

/// One benchmark point.
pub const RESULT: Kind = Kind {
    name: "result",
    doc: "One benchmark point: a kernel on a memory type at a working-set size. Three shapes: \
          skipped for every size (memtype, kernel, granule, skipped); skipped at one size \
          (memtype, kernel, granule, size, skipped); measured (everything but skipped). A \
          measured record's values are in its kernel's unit (the kernel table): MB/s kernels \
          carry bytes, best_mbps and median_mbps; ns-per-load kernels loads, ns_per_load and \
          median_ns_per_load; ns-per-line kernels lines, bytes, ns_per_line, \
          median_ns_per_line and best_mbps. Then integrity or integrity_fail_offset.",
    fields: &[
        ON_CLUSTER,
        Field::optional("memtype", Str, "", "Memory type name. In every record of the firmware; mairbench-linux's records carry source instead."),
        Field::optional("source", Str, "", "mairbench-linux only, where the firmware has memtype: the Linux mapping measured, e.g. \"anon\" (a private anonymous mmap: on arm64 Normal write-back memory, the heap's type)."),
        Field::always("kernel", Str, "", "Kernel name (the kernel table)."),
        Field::optional("granule", Str, "", "The alias's mapping: \"4K\" (4 KiB pages) or \"2M\" (2 MiB blocks); the kernel table says which (the latency chase on blocks, plus normal-wb on pages; the other kernels on pages). In every record (skipped ones too); absent only in logs from before the field, which ran every kernel on pages (read as \"4K\"). mairbench-linux's measured records: what Linux gave the point's range [start, start + size) at the end of its samples: \"2M\" when every page of it is PMD-mapped, \"4K\" when any is not, found as the source record's huge_bytes is (PAGEMAP_SCAN, else smaps) over that range; absent when neither can say (smaps of a larger VMA that is partly huge), and in its skipped records."),
        Field::optional("size", U64, BYTES, "Working-set size; absent when the kernel is skipped on the type at every size."),
        Field::optional("skipped", Str, "", "Why the point was not measured; only in a skipped record."),
        Field::optional("passes", U64, "", "Times the kernel covers the working set per sample; measured only."),
        Field::optional("reps", U64, "samples", "Timed samples; measured only."),
        Field::optional("best_ticks", U64, TICKS, "Fastest sample; measured only."),
        Field::optional("median_ticks", U64, TICKS, "Median sample; measured only."),
        Field::optional("freq_hz", U64, "Hz", "Counter frequency; measured only."),
        Field::optional("cv_pct", Decimal, "percent", "Coefficient of variation of the samples, one decimal; measured only."),
        Field::optional("best_cycles", U64, "PMU cycles", "Fastest sample in PMCCNTR_EL0 cycles; only when the PMU counts."),
        Field::optional(Unit::Bandwidth.count_field(), U64, BYTES, "Bytes moved per sample (MB/s kernels), or lines times the line size (ns-per-line kernels)."),
        Field::optional(Unit::Bandwidth.best_field(), U64, MBPS, "Best bandwidth (MB/s and ns-per-line kernels); null when the time is zero.").or_null(),
        Field::optional(Unit::Bandwidth.median_field(), U64, MBPS, "Median bandwidth (MB/s kernels); null when the time is zero.").or_null(),
        Field::optional(Unit::NsPerLoad.count_field(), U64, "loads", "Dependent loads per sample (ns-per-load kernels)."),
        Field::optional(Unit::NsPerLoad.best_field(), Decimal, "ns", "Best time per load, two decimals (ns-per-load kernels)."),
        Field::optional(Unit::NsPerLoad.median_field(), Decimal, "ns", "Median time per load, two decimals (ns-per-load kernels)."),
        Field::optional(Unit::NsPerLine.count_field(), U64, "cache lines", "Lines maintained per sample (ns-per-line kernels)."),
        Field::optional(Unit::NsPerLine.best_field(), Decimal, "ns", "Best time per line, two decimals (ns-per-line kernels)."),
        Field::optional(Unit::NsPerLine.median_field(), Decimal, "ns", "Median time per line, two decimals (ns-per-line kernels)."),
        Field::optional("pmu", Numbers, "events per 64-byte line", "Measured only: the PMU events counted during the point's fastest sample (the one best_ticks comes from), per 64-byte line it covered (bytes moved / 64; a line per dependent load for latency; the lines maintained), two decimals, keyed by the event's lower-case Arm name (mairbench_core::pmu::EVENTS, e.g. l1d_cache_refill, bus_access); null where no event counts (the config record's pmu_reason says why; QEMU counts none of them). Absent in logs of older firmware.").or_null(),
        Field::optional("start", Str, "", "The state the point started from; measured only (absent in logs of older firmware). \"invalidated\": everything the point touches was cleaned and invalidated to the point of coherency right before the warm-up (the firmware through normal-wb, mairbench-linux with DC CIVAC at EL0 through the source's own mapping), so no line of it was in a cache; \"warm\": no maintenance before the warm-up (mairbench-linux where the range is not a whole number of cache lines); maintenance kernels, after the same clean and invalidate: \"written\": before every timed pass the range was written through the alias, untimed (maint-civac, maint-cvac; rows whose line_state is no-line start invalidated instead, the written values laid through normal-wb: no write could leave a line, so every pass finds none); \"rewritten\": written, cleaned with DC CVAC and written again with the same values, so that the lines are dirty where the type allocates yet memory holds them and the invalidate loses nothing (maint-ivac). line_state says what that leaves."),
        Field::optional("line_state", Str, "", "Maintenance kernels: the lines each timed pass finds, what those writes leave in the data cache, by the alias's MAIR attribute: \"dirty\" (write-back, write-allocate), \"clean\" (write-through: memory already holds the data), \"not-allocated\" (no write-allocate: a line is present only where the core ignores the hint), \"no-line\" (Non-cacheable and Device: no line is ever present, so the maintenance takes its no-line path)."),
        Field::optional(
            "retake_of",
            Decimal,
            "the best field's unit",
            "Measured again after its kernel's sweep because the first take was worse than both \
             neighbouring sizes by 1.25x (mairbench_core::sweep::retakes: a disturbance that hit \
             all of a point's back-to-back reps): the first take's best, in the unit of the \
             record's best field (MB/s, or ns with two decimals). The first take's record comes \
             earlier in the log; this one replaces it. Only on a re-take.",
        ),
        Field::optional(
            "dropped_samples",
            U64,
            "samples",
            "Samples dropped because they cannot be true (then taken again): the counter went \
             backwards, or the rate was beyond any core (counter::MAX_MBPS); only when some were.",
        ),
        Field::optional(
            "dropped_why",
            Str,
            "",
            "Why the first was dropped: \"backwards\" or \"impossible\"; with dropped_samples.",
        ),
        Field::optional(
            "sync_ns",
            U64,
            "ns",
            "mairbench-linux's dma-buf sources: the best cost of the DMA_BUF_IOCTL_SYNC pair \
             (START before the sample, END after it, READ or WRITE as the kernel accesses, \
             both for a copy or the chase) per sample, which best_ticks leaves out; measured \
             only.",
        ),
        Field::optional("integrity", Str, "", "\"ok\": the data was verified intact after the point; measured only."),
        Field::optional("integrity_fail_offset", Hex, "", "Buffer offset where the data was wrong; instead of integrity."),
    ],
};

/// One multi-core point.
pub const SCALING: Kind = Kind {
    name: "scaling",
    doc: "One multi-core point: a kernel (read-ldp, write-stp, copy-to or triad) on 1 to N \
          cores at once, each over its own part of the alias (a copy's source the second half \
          of its part through normal-wb, the triad's three arrays the first three quarters), \
          started at one common counter value; the sample with the highest aggregate. Only \
          with 2 or more CPUs running.",
    fields: &[
        Field::always("memtype", Str, "", "Memory type name."),
        Field::always("kernel", Str, "", "Kernel name."),
        Field::always("cores", U64, "cores", "Cores running at once."),
        Field::always(
            "bytes_per_core",
            U64,
            BYTES,
            "Bytes each core moves per sample, as its kernel counts them (a copy's once, the \
             triad's three arrays).",
        ),
        Field::always(
            "aggregate_mbps",
            U64,
            MBPS,
            "All cores' bytes (cores x bytes_per_core) over span_ticks: from the earliest \
             core's start to the latest core's end, each core reading its own start and end \
             on the counter they share (CNTVCT_EL0, at timer.freq_hz). In logs without \
             span_ticks (older firmware): over the slowest core's own time.",
        ),
        Field::always(
            "per_core_min_mbps",
            U64,
            MBPS,
            "Slowest core's bandwidth over its own time.",
        ),
        Field::always(
            "per_core_max_mbps",
            U64,
            MBPS,
            "Fastest core's bandwidth over its own time.",
        ),
        Field::optional(
            "span_ticks",
            U64,
            TICKS,
            "Latest end minus earliest start of the best sample. Written by this firmware on \
             every scaling record; absent in logs of older firmware (also start_skew_ticks).",
        ),
        Field::optional(
            "start_skew_ticks",
            U64,
            TICKS,
            "Latest start minus earliest start of the best sample: how far apart the cores \
             began (they wait for one common counter value; a core that woke late from WFE \
             starts late).",
        ),
    ],
};

/// The boot core's pointer chase with the other cores streaming.
pub const LOADED_LATENCY: Kind = Kind {
    name: "loaded_latency",
    doc: "The pointer chase on the boot core over normal-wb while every other core streams \
          (read-ldp or write-stp) over its own part through one memory type, against the \
          same chase with the others idle: how much one core's memory traffic, through that \
          type, slows another core's loads. Per (stream kernel, stream memory type) among \
          normal-wb, normal-nc and device-ngnre (those selected). Only with 2 or more CPUs \
          running (the console says so otherwise).",
    fields: &[
        Field::always("memtype", Str, "", "The streams' memory type."),
        Field::always("kernel", Str, "", "The streams' kernel."),
        Field::always(
            "cores",
            U64,
            "cores",
            "CPUs running: the boot core (the chase) and cores - 1 streams.",
        ),
        Field::always(
            "bytes_per_core",
            U64,
            BYTES,
            "Each stream's part of the buffer (it goes round it until stopped).",
        ),
        Field::always(
            "chase_memtype",
            Str,
            "",
            "The chase's memory type (normal-wb).",
        ),
        Field::always(
            "chase_granule",
            Str,
            "",
            "The chase alias's mapping: \"2M\" blocks where there is such an alias, else \"4K\" pages.",
        ),
        Field::always(
            "chase_bytes",
            U64,
            BYTES,
            "Bytes the chase's random cycle spans (one 64-byte line per load).",
        ),
        Field::always("loads", U64, "loads", "Dependent loads per sample."),
        Field::always(
            "idle_ns",
            Decimal,
            "ns per load",
            "The chase with the other cores idle (waiting in WFE), best of reps.",
        ),
        Field::always(
            "loaded_ns",
            Decimal,
            "ns per load",
            "The chase while every stream runs (timed from when each has moved its first \
             64 KiB), best of reps.",
        ),
        Field::always(
            "ratio",
            Decimal,
            "",
            "loaded_ns / idle_ns (1.000: no slowdown).",
        ),
        Field::always(
            "stream_mbps",
            U64,
            MBPS,
            "The streams' bytes over their span (earliest start to latest end): each starts \
             when its core sees the job; they run through the loaded samples and stop after \
             the last.",
        ),
        Field::always(
            "reps",
            U64,
            "",
            "Timed samples, idle and loaded each (the chase was warmed by one whole lap).",
        ),
    ],
};

/// What the latency curve shows past the reported caches.
pub const SYSTEM_CACHE: Kind = Kind {
    name: "system_cache",
    doc: "What the normal-wb latency curve (the latency kernel, on 2 MiB blocks where \
          measured) shows past the last data cache CLIDR_EL1 reports, and the DRAM point the \
          verdicts take from it (mairbench_core::system_cache has the rule): a plateau past \
          that level ending in a step up is a cache the registers do not report (a system \
          cache), and the DRAM point is then 4x it instead of 4x the last reported level. \
          Written once, after the sweep, before the verdicts; absent in logs of older \
          firmware. The Linux twin writes it too, before its diagnosis, from anon's latency \
          curve past the last cache Linux lists for CPU 0 (sysfs cacheinfo); its DRAM-sized \
          working set is then dram_bound.",
    fields: &[
        Field::always(
            "status",
            Str,
            "",
            "\"found\" (a step no reported level explains), \"none\" (no such step within \
             the sweep), or why the curve was not looked at: \"emulated\" (QEMU's steps are \
             the host's caches and its TLB), \"no-cache\" (CLIDR_EL1 reports no data cache), \
             \"no-latency\" (no latency point of normal-wb).",
        ),
        Field::always(
            "reported",
            U64,
            BYTES,
            "Size of the last data cache level CLIDR_EL1 reports (the twin: Linux lists) (0: \
             none).",
        ),
        Field::optional(
            "size",
            U64,
            BYTES,
            "found only: the system cache's estimated size, the largest working set on the \
             plateau before the step (within 1.15x of the latency a doubling or more below, \
             at least twice the reported level; twice this already rises).",
        ),
        Field::optional(
            "outside",
            U64,
            BYTES,
            "found only: the size, within 4x size, where the step is highest (the latencies \
             are the result records' of the latency kernel on normal-wb; the twin's: on anon).",
        ),
        Field::optional(
            "step",
            Decimal,
            "",
            "found only: the latency at outside over that at size, at least 1.30.",
        ),
        Field::optional(
            "rising",
            Decimal,
            "",
            "found and none, when the curve still rises at its largest size, past the \
             reported level: the latency there over the size before's, at least 1.15 (a step \
             may lie past the sweep).",
        ),
        Field::always(
            "dram_bound",
            U64,
            BYTES,
            "The smallest working set the verdicts take as DRAM: 4x the system cache when \
             found, else 4x the reported level (0: none reported).",
        ),
        Field::always(
            "dram_size",
            U64,
            BYTES,
            "The DRAM point of read-ldp on normal-wb (the twin's: on anon): the smallest size \
             >= dram_bound it was \
             measured at; when a system cache was found and none reaches dram_bound, the \
             largest past the system cache (capped); null when there is none.",
        )
        .or_null(),
        Field::always(
            "capped",
            Bool,
            "",
            "Whether dram_size is below dram_bound: the buffer holds no working set of 4x the \
             system cache (mairbench.buffer=), so figures at dram_size may still hit it.",
        ),
    ],
};

/// `core_to_core`: one pair of the core-to-core latency matrix.
pub const CORE_TO_CORE: Kind = Kind {
    name: "core_to_core",
    doc: "One pair of CPUs of the core-to-core latency matrix: one 64-byte line of Normal \
          write-back, Inner Shareable memory bounced between them with plain loads and \
          stores (each CPU waits for the other's value, then writes the next), after one \
          untimed round trip; timed by the from CPU. Written after the cluster records when \
          two or more CPUs run, one per pair of the first 16 running CPUs (from < to in the \
          order the CPUs started, the boot CPU first). Absent in logs of older firmware.",
    fields: &[
        Field::always("from", Hex, "", "MPIDR affinity of the CPU that timed the bounce."),
        Field::always("to", Hex, "", "MPIDR affinity of the other CPU."),
        Field::always("from_cluster", U64, "", "from's cluster index (the cluster records); null when in none.").or_null(),
        Field::always("to_cluster", U64, "", "to's cluster index; null when in none.").or_null(),
        Field::always("rounds", U64, "round trips", "Timed round trips (1000 on hardware, 1 under emulation)."),
        Field::always("ticks", U64, TICKS, "The timed round trips on from's counter; null when the pair did not finish within 2 s (both gave up).").or_null(),
        Field::always("freq_hz", U64, "Hz", "Counter frequency."),
        Field::always("ns_per_hop", Decimal, "ns", "One-way time: ticks over 2 x rounds hops, in ns, two decimals; null when the pair did not finish.").or_null(),
    ],
};

/// The `cluster` field of the records another cluster's sweep writes.
const ON_CLUSTER: Field = Field::optional(
    "cluster",
    U64,
    "",
    "Only in the records of another cluster's sweep than the boot CPU's (a big.LITTLE \
     board): that cluster's index, as its cluster record gives it; absent in the boot CPU's \
     own.",
);

/// `cluster`: one cluster of CPUs.
pub const CLUSTER: Kind = Kind {
    name: "cluster",
    doc: "One cluster of CPUs that are alike (mairbench_core::topology): a leaf cluster of \
          the device tree's cpu-map (else the CPUs sharing their MPIDR affinity above the \
          core), split where its running CPUs report different MIDR part numbers or caches. \
          Written after the boot CPU's verdicts when secondary CPUs run, one per cluster; \
          each cluster the boot CPU is not in is then swept on its representative, and that \
          sweep's cache, timer, result and verdict records carry its index as cluster. Absent \
          in logs of older firmware.",
    fields: &[
        Field::always("cluster", U64, "", "Its index, from 0 in the order its first CPU is listed."),
        Field::always("group", U64, "", "The cpu-map cluster (or affinity group) it lies in; two clusters of one group are two kinds of core in one cpu-map cluster."),
        Field::always("cpus", U64, "CPUs", "How many CPUs it holds."),
        Field::always("representative", Hex, "", "MPIDR affinity of the CPU its sweep runs on: the lowest of its CPUs that reported."),
        Field::always("capacity", U64, "", "The CPUs' capacity-dmips-mhz, as the device tree writes it; null when absent.").or_null(),
        Field::always("compatible", Str, "", "The CPUs' first compatible string (\"arm,cortex-a53\"); null without one.").or_null(),
        Field::always("midr", Hex, "", "The representative's MIDR_EL1, as it read it; null when no CPU of the cluster runs.").or_null(),
        Field::always("last_cache", U64, BYTES, "Size of the last data or unified cache level its CPUs report; null when none.").or_null(),
        Field::always("source", Str, "", "Where the clusters came from: \"cpu-map\", \"affinity\" (MPIDR, no cpu-map), \"pptt\" or \"none\"."),
        Field::always("role", Str, "", "\"boot\": the boot CPU's cluster, swept first; \"swept\": swept on its representative after the boot CPU's verdicts; \"not-running\": no CPU of it started, not swept."),
    ],
};

/// One bring-up verdict.
pub const VERDICT: Kind = Kind {
    name: "verdict",
    doc: "One bring-up verdict, judged from the whole run by `crates/core/src/verdict/` \
          (its table is docs/bringup.md, \"Verdicts\"): one record per verdict, in table \
          order, after the measurements. A fail verdict fails the run.",
    fields: &[
        ON_CLUSTER,
        Field::always(
            "name",
            Str,
            "",
            "caches-on, uncached, write-allocate, write-through, maintenance, device-read-cliff, smp-config, clock or cache-geometry.",
        ),
        Field::always(
            "status",
            Str,
            "",
            "\"pass\", \"warn\", \"fail\" or \"n/a\" (nothing to judge by, or timings under emulation).",
        ),
        Field::always(
            "evidence",
            Type::Numbers,
            "per key",
            "The numbers the verdict used (empty when none; an n/a verdict under emulation keeps the numbers it would judge a board by); keys name their unit: _mbps MB/s (MB = 10^6 B), _ns nanoseconds, _bytes bytes, _hz Hz, _mhz MHz, _per_line per 64-byte line; ratio, min_ratio and _step are times (faster over slower, e.g. ratio 8.12 and its threshold min_ratio 1.50); flags are 0 or 1.",
        ),
        Field::always(
            "why",
            Str,
            "",
            "One sentence for a bring-up engineer, quoting the numbers.",
        ),
        Field::optional(
            "core_note",
            Str,
            "",
            "What the boot CPU's row of core's table of cores documents that the verdict took into account, with its source (e.g. the Cortex-A55 TRM: write-through memory is non-cacheable), or that the core is not in the table and only the architecture's guarantees apply; absent when the verdict consults no row.",
        ),
    ],
};

/// An unexpected exception.
pub const EXCEPTION: Kind = Kind {
    name: "exception",
    doc: "An exception nobody expected; the run then ends with status fail.",
    fields: &[
        Field::always(
            "vector",
            Str,
            "",
            "\"synchronous\", \"irq\", \"fiq\" or \"serror\".",
        ),
        Field::always(
            "origin",
            Str,
            "",
            "Where it came from, e.g. \"current EL, SP_EL0\".",
        ),
        Field::always("class", Str, "", "Exception class in words."),
        Field::always("ec", Hex, "", "ESR_EL1.EC."),
        Field::always("esr", Hex, "", "ESR_EL1."),
        Field::always(
            "far",
            Hex,
            "",
            "FAR_EL1 as read: the faulting address only where `far_valid` is true, else \
             whatever an earlier exception left there.",
        ),
        Field::always(
            "elr",
            Hex,
            "",
            "ELR_EL1: the run-time address of the instruction.",
        ),
        Field::always("el", U64, "", "Exception level taken at (1)."),
        Field::always(
            "nested",
            Bool,
            "",
            "Whether it was taken inside the exception handler.",
        ),
        Field::optional(
            "far_valid",
            Bool,
            "",
            "Whether `far` is the faulting address: true for instruction and data aborts \
             (unless ISS.FnV is set), PC alignment faults and watchpoints, the classes that \
             set FAR; false for the rest, where FAR_EL1 is UNKNOWN. Absent in logs of \
             firmware older than the field (`far` is then valid for aborts only).",
        ),
        Field::optional(
            "elr_link",
            Hex,
            "",
            "`elr` as a link-time address (minus the image's run-time start, plus the link \
             base of linker.ld), for `addr2line -e` on the ELF. Present when `elr` lies in \
             the image's code.",
        ),
    ],
};

/// A panic.
pub const PANIC: Kind = Kind {
    name: "panic",
    doc: "A panic of the firmware; the run then ends with status fail.",
    fields: &[
        Field::always("message", Str, "", "The panic message."),
        Field::always("file", Str, "", "Source file (empty when unknown)."),
        Field::always("line", U64, "", "Source line (0 when unknown)."),
    ],
};

/// The last record of a run.
pub const END: Kind = Kind {
    name: "end",
    doc: "The last record of a run: its status and tally. The exit status is 0 exactly when \
          the status is pass.",
    fields: &[
        Field::always("status", Str, "", "\"pass\" or \"fail\"."),
        Field::always("checks", U64, "checks", "Checks done."),
        Field::always("failed", U64, "checks", "Checks failed."),
        Field::always(
            "warnings",
            U64,
            "warnings",
            "Warnings (the run still passes).",
        ),
        Field::always(
            "reason",
            Str,
            "",
            "Why the run could not pass (\"panic\", \"unexpected exception\"); null otherwise.",
        )
        .or_null(),
        Field::always("run_us", U64, "microseconds", "Time from entry to the end."),
        Field::optional(
            "failed_checks",
            Strs,
            "",
            "The names of the checks that failed, each once, in the order they first failed \
             (e.g. [\"memtype\"]); at most 8. Present when a check failed.",
        ),
        Field::optional(
            "failed_checks_omitted",
            U64,
            "names",
            "Names of failed checks beyond the 8 that `failed_checks` holds. Present when \
             there were any.",
        ),
        Field::optional(
            "warned",
            Strs,
            "",
            "A short name for each kind of warning, each once, in the order first warned \
             (e.g. [\"bootargs\", \"cpu\"]); at most 8. Present when there was a warning. The \
             names: bootargs (a setting ignored or adjusted), psci (PSCI unusable), cpu (a \
             CPU of /cpus not started), cpus-beyond-cap (more CPUs than the firmware \
             starts), memtype (the core implements a type as another), device-tree (a \
             reservation it cannot read), dtb-reserved (the blob lies in /reserved-memory).",
        ),
        Field::optional(
            "warned_omitted",
            U64,
            "names",
            "Warning names beyond the 8 that `warned` holds. Present when there were any.",
        ),
    ],
};

/// Every kind, in the order a run first writes them.
pub const KINDS: &[&Kind] = &[
    &START,
    &CHECK,
    &SMP_BITS,
    &CONFIG,
    &MMU,
    &MAP,
    &RESERVED,
    &MEMTYPE,
    &COHERENCE,
    &MAINTENANCE,
    &OUTER_MAINT,
    &FAULT,
    &DEVICE_FAULT,
    &HELLO,
    &CPU,
    &COUNTER,
    &CACHE,
    &SMP,
    &TIMER,
    &SOURCE,
    &RESULT,
    &SCALING,
    &LOADED_LATENCY,
    &SYSTEM_CACHE,
    &VERDICT,
    &CLUSTER,
    &CORE_TO_CORE,
    &EXCEPTION,
    &PANIC,
    &END,
];

/// The kind called `name`, if there is one.
pub fn kind(name: &str) -> Option<&'static Kind> {
    KINDS.iter().copied().find(|k| k.name == name)
}

/// Writes the table as Markdown: an index of the kinds, then per kind its doc and a table
/// of its fields (name, type, unit, presence, meaning). `docs/records.md` holds exactly this
/// between its generated markers.
pub fn write_markdown<W: Write + ?Sized>(w: &mut W) -> fmt::Result {
    w.write_str("| kind | what it says |\n|---|---|\n")?;
    for k in KINDS {
        writeln!(
            w,
            "| [`{}`](#{}) | {} |",
            k.name,
            k.name,
            Cell(first_sentence(k.doc))
        )?;
    }
    for k in KINDS {
        writeln!(w, "\n### `{}`\n\n{}\n", k.name, k.doc)?;
        w.write_str("| field | type | unit | present | meaning |\n|---|---|---|---|---|\n")?;
        writeln!(w, "| `kind` | string | | always | `\"{}\"` |", k.name)?;
        for f in k.fields {
            writeln!(
                w,
                "| `{}` | {}{} | {} | {} | {} |",
                f.name,
                f.ty.name(),
                if f.nullable { " or null" } else { "" },
                Cell(f.unit),
                if f.always { "always" } else { "sometimes" },
                Cell(f.doc)
            )?;
        }
    }
    Ok(())
}

/// The text up to and including the first ". " (or all of it).
fn first_sentence(text: &str) -> &str {
    text.find(". ")
        .and_then(|at| text.get(..at.saturating_add(1)))
        .unwrap_or(text)
}

/// Text for a Markdown table cell: `|` escaped.
struct Cell<'a>(&'a str);

impl fmt::Display for Cell<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, part) in self.0.split('|').enumerate() {
            if i > 0 {
                f.write_str("\\|")?;
            }
            f.write_str(part)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::kernel::{KERNELS, UNITS};
    use std::string::String;

    #[test]
    fn names_are_unique_and_documented() {
        for (i, k) in KINDS.iter().enumerate() {
            assert_eq!(kind(k.name), Some(*k));
            assert!(!k.doc.is_empty() && !k.fields.is_empty(), "{}", k.name);
            for other in &KINDS[i + 1..] {
                assert_ne!(k.name, other.name);
            }
            for (j, f) in k.fields.iter().enumerate() {
                assert_ne!(f.name, "kind", "{}", k.name);
                assert!(f.doc.ends_with('.'), "{}.{}", k.name, f.name);
                assert!(!f.doc.contains('\n') && !f.doc.contains("  "));
                assert_eq!(k.field(f.name), Some(f));
                for other in &k.fields[j + 1..] {
                    assert_ne!(f.name, other.name, "{}", k.name);
                }
            }
        }
        assert_eq!(kind("nope"), None);
        assert_eq!(KINDS.first().map(|k| k.name), Some("start"));
        assert_eq!(KINDS.last().map(|k| k.name), Some("end"));
    }

    #[test]
    fn every_unit_names_result_fields() {
        for unit in UNITS {
            for name in [unit.best_field(), unit.median_field(), unit.count_field()] {
                let f = RESULT.field(name).unwrap();
                assert!(!f.always, "{name}");
            }
            let best = RESULT.field(unit.best_field()).unwrap();
            match unit {
                Unit::Bandwidth => assert_eq!((best.ty, best.unit), (U64, MBPS)),
                Unit::NsPerLoad | Unit::NsPerLine => {
                    assert_eq!((best.ty, best.unit), (Decimal, "ns"))
                }
            }
        }
        // Every kernel's unit is one of them.
        assert!(KERNELS.iter().all(|k| UNITS.contains(&k.unit)));
    }

    #[test]
    fn markdown_tables() {
        let mut s = String::new();
        write_markdown(&mut s).unwrap();
        assert!(s.starts_with("| kind | what it says |\n"));
        assert!(s.contains("\n### `result`\n"));
        assert!(s.contains(
            "| `buffer_request` | unsigned integer or null | bytes | always | mairbench.buffer"
        ));
        assert!(s.contains(
            "| `best_mbps` | unsigned integer or null | MB/s (MB = 10^6 B) | sometimes |"
        ));
        assert!(s.contains("| [`end`](#end) | The last record of a run: its status and tally. |"));
        assert_eq!(s.matches("\n### ").count(), KINDS.len());
        assert_eq!(std::format!("{}", Cell("a|b")), "a\\|b");
        assert_eq!(first_sentence("One. Two."), "One.");
        assert_eq!(first_sentence("One"), "One");
    }
}
