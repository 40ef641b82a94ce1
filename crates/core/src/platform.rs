//! What the firmware learns from the flattened device tree (DTB) its boot loader passes.
//!
//! [`discover`] reads the console UART, the PSCI conduit, the RAM regions, the
//! bootargs and the model from a DTB. Whatever is missing, malformed or unsupported
//! falls back to the [`QEMU_VIRT`] defaults and is recorded in [`Platform::problems`].
//! It never panics, whatever the bytes.
//!
//! # Parser
//!
//! The blob is checked and read by [`crate::fdt`], a small reader written for
//! this crate: [`Fdt::new`] checks the whole blob once (an invalid header gives
//! [`Problem::DtbHeader`], a malformed structure block
//! [`Problem::DtbStructure`]); its readers step over `FDT_NOP` tokens wherever
//! they are (libfdt's `fdt_nop_property()` and `fdt_nop_node()` leave them when
//! a boot loader deletes a property or node in place), and nothing recurses, so
//! nesting depth is not limited.
//!
//! It is hand-written because the crates measured do not fit. `fdt` 0.1.5
//! panicked on 12,362 of 21,072 mutated QEMU DTBs and cannot handle `FDT_NOP`.
//! `dtoolkit` 0.4.1's `Fdt::new` rejects node and property names over 31
//! characters, which every RK3399 DTB has (`snps,dis-tx-ipgap-linecheck-quirk`,
//! from Linux's `rk3399.dtsi`), so a structure check of our own was needed
//! anyway; and its readers `expect("Fdt should be valid")`, which links
//! `core`'s `Debug` formatting and Unicode tables: it grew the firmware's raw
//! image by 12,360 bytes (59,616 to 71,976), and the image must stay under
//! 64 KiB. `dtoolkit` remains a test oracle (`tests/fdt.rs`,
//! `tests/dtb_mutations.rs`).

use crate::fdt::{self, Fdt, Node};
use crate::reserved::{self, Reserved};

/// The kind of console UART, with what its driver needs to know; [`CONSOLES`] says which
/// device-tree `compatible` strings select which.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConsoleKind {
    /// An Arm PL011.
    Pl011,
    /// An Arm SBSA generic UART: a PL011 without the control register.
    SbsaUart,
    /// A 16550-compatible UART.
    Ns16550 {
        /// Register `i` is at byte offset `i << reg_shift` (`reg-shift`, else the
        /// binding's default).
        reg_shift: u8,
        /// Access width in bytes, 1 or 4 (`reg-io-width`, else the binding's default).
        io_width: u8,
    },
    /// An NXP i.MX UART (the imx21 register model).
    Imx,
    /// An NXP LPUART with 32-bit registers.
    Lpuart {
        /// Byte offset of the first LPUART32 register (BAUD): 0x10 on i.MX, 0 on Layerscape.
        regs_at: u8,
        /// Big-endian registers (LS1021A).
        big_endian: bool,
    },
    /// An Amlogic meson UART.
    Meson,
    /// A Qualcomm GENI serial engine in UART mode.
    Geni,
    /// A Qualcomm UARTDM.
    UartDm,
    /// A Cadence UART (Xilinx Zynq UltraScale+).
    Cadence,
    /// A Marvell Armada 3700 UART (the standard one).
    Armada3700,
    /// A Renesas SCIF or HSCIF (R-Car layout).
    Scif,
    /// A Samsung Exynos UART (exynos4210 layout).
    Samsung,
    /// An ST STM32 USART (STM32H7 layout: STM32MP1).
    Stm32,
}

impl ConsoleKind {
    /// The driver family as records name it: `pl011`, `sbsa-uart`, `ns16550`, `imx`,
    /// `lpuart`, `meson`, `geni`, `uartdm`, `cadence`, `armada-3700`, `scif`, `samsung` or
    /// `stm32`.
    pub const fn name(self) -> &'static str {
        match self {
            ConsoleKind::Pl011 => "pl011",
            ConsoleKind::SbsaUart => "sbsa-uart",
            ConsoleKind::Ns16550 { .. } => "ns16550",
            ConsoleKind::Imx => "imx",
            ConsoleKind::Lpuart { .. } => "lpuart",
            ConsoleKind::Meson => "meson",
            ConsoleKind::Geni => "geni",
            ConsoleKind::UartDm => "uartdm",
            ConsoleKind::Cadence => "cadence",
            ConsoleKind::Armada3700 => "armada-3700",
            ConsoleKind::Scif => "scif",
            ConsoleKind::Samsung => "samsung",
            ConsoleKind::Stm32 => "stm32",
        }
    }

    /// How many bytes from the base the driver's registers reach (the end of the last
    /// register it touches). Every family fits in the first 4 KiB page from its base.
    pub const fn register_span(self) -> u64 {
        match self {
            ConsoleKind::Pl011 => 0x34,
            ConsoleKind::SbsaUart => 0x1c,
            // LSR, register 5, 4 bytes wide at most; the driver takes reg_shift above 7 as 7.
            ConsoleKind::Ns16550 { reg_shift, .. } => {
                let shift = if reg_shift > 7 { 7 } else { reg_shift as u32 };
                match 5u64.checked_shl(shift) {
                    Some(lsr) => lsr.saturating_add(4),
                    None => u64::MAX,
                }
            }
            ConsoleKind::Imx => 0xb8,
            ConsoleKind::Lpuart { regs_at, .. } => (regs_at as u64).saturating_add(0x10),
            ConsoleKind::Meson => 0x10,
            ConsoleKind::Geni => 0x810,
            ConsoleKind::UartDm => 0x74,
            ConsoleKind::Cadence => 0x34,
            ConsoleKind::Armada3700 => 0x10,
            ConsoleKind::Scif => 0x12,
            ConsoleKind::Samsung => 0x24,
            ConsoleKind::Stm32 => 0x2c,
        }
    }
}

/// The 16550 binding defaults: registers 1 byte apart, 8-bit accesses.
const NS16550: ConsoleKind = ConsoleKind::Ns16550 {
    reg_shift: 0,
    io_width: 1,
};
/// 16550 registers 4 bytes apart, 8-bit accesses (TI 8250-omap, NVIDIA Tegra). Linux's
/// `drivers/tty/serial/8250/8250_omap.c` sets `regshift` 2 (`OMAP_UART_REGSHIFT`) and
/// `UPIO_MEM` for every TI UART it matches, whatever the node says.
const NS16550_SHIFT2: ConsoleKind = ConsoleKind::Ns16550 {
    reg_shift: 2,
    io_width: 1,
};
/// 16550 registers 4 bytes apart, 32-bit accesses (DesignWare APB UART as SoCs wire it,
/// MediaTek, the Raspberry Pi mini-UART, Marvell PXA/MMP: Linux's
/// `drivers/tty/serial/8250/8250_pxa.c` sets `regshift` 2 and `UPIO_MEM32`).
const NS16550_SHIFT2_WIDE: ConsoleKind = ConsoleKind::Ns16550 {
    reg_shift: 2,
    io_width: 4,
};
/// LPUART registers from 0x10, little-endian (i.MX 7ULP, 8, 9).
const LPUART_IMX: ConsoleKind = ConsoleKind::Lpuart {
    regs_at: 0x10,
    big_endian: false,
};

/// The console UARTs discovery drives: a `compatible` pattern (`*` stands for any run of
/// characters, at most one `*`) and the kind it selects, with a 16550's binding defaults,
/// which `reg-shift` and `reg-io-width` override. A node's `compatible` strings are tried
/// in order, most specific first, and the first row matching a string wins, so rows for
/// SoC strings come before the generic ones their nodes also list.
pub const CONSOLES: [(&str, ConsoleKind); 40] = [
    ("arm,sbsa-uart", ConsoleKind::SbsaUart),
    ("arm,pl011", ConsoleKind::Pl011),
    // The Raspberry Pi mini-UART, "8250-like": 32-bit registers 4 bytes apart, as Linux's
    // 8250_bcm2835aux sets it (its node carries no reg-shift).
    ("brcm,bcm2835-aux-uart", NS16550_SHIFT2_WIDE),
    ("ns16550a", NS16550),
    ("ns16550", NS16550),
    ("ns16450", NS16550),
    ("ns8250", NS16550),
    ("snps,dw-apb-uart", NS16550),
    ("rockchip,*-uart", NS16550_SHIFT2_WIDE),
    ("mediatek,mt*-uart", NS16550_SHIFT2_WIDE),
    ("ti,am654-uart", NS16550_SHIFT2),
    // TI OMAP2/3/4/5, AM335x (BeagleBone), DRA7/AM57xx: 8250_omap.c's table but
    // `ti,am4372-uart` (AM437x, whose trees Debian's armhf package does not carry); the
    // AM335x nodes list `ti,am3352-uart` with `ti,omap3-uart`.
    ("ti,omap*-uart", NS16550_SHIFT2),
    ("ti,dra742-uart", NS16550_SHIFT2),
    // Marvell PXA168/910, MMP2/3 (8250_pxa.c).
    ("mrvl,mmp-uart", NS16550_SHIFT2_WIDE),
    ("mrvl,pxa-uart", NS16550_SHIFT2_WIDE),
    // Armada 38x and some Armada XP boards (MikroTik CRS) without the `ns16550a` fallback:
    // a DesignWare UART (Linux's 8250_dw.c), its nodes giving `reg-shift` and `reg-io-width`.
    ("marvell,armada-38x-uart", NS16550),
    ("nvidia,tegra*-uart", NS16550_SHIFT2),
    ("fsl,imx7ulp-lpuart", LPUART_IMX),
    ("fsl,imx8ulp-lpuart", LPUART_IMX),
    ("fsl,imx8qxp-lpuart", LPUART_IMX),
    ("fsl,imx93-lpuart", LPUART_IMX),
    (
        "fsl,ls1021a-lpuart",
        ConsoleKind::Lpuart {
            regs_at: 0,
            big_endian: true,
        },
    ),
    (
        "fsl,ls1028a-lpuart",
        ConsoleKind::Lpuart {
            regs_at: 0,
            big_endian: false,
        },
    ),
    ("fsl,imx*-uart", ConsoleKind::Imx),
    ("amlogic,meson-*-uart", ConsoleKind::Meson),
    ("qcom,geni-debug-uart", ConsoleKind::Geni),
    ("qcom,geni-uart", ConsoleKind::Geni),
    ("qcom,msm-uartdm*", ConsoleKind::UartDm),
    ("xlnx,zynqmp-uart", ConsoleKind::Cadence),
    ("xlnx,xuartps", ConsoleKind::Cadence),
    ("cdns,uart-r1p*", ConsoleKind::Cadence),
    ("marvell,armada-3700-uart", ConsoleKind::Armada3700),
    // Not the RZ/G2L SCIF (renesas,scif-r9a07g0*): its registers are 2 bytes apart.
    ("renesas,scif-r8a*", ConsoleKind::Scif),
    ("renesas,rcar-gen*-scif", ConsoleKind::Scif),
    ("renesas,scif", ConsoleKind::Scif),
    ("renesas,hscif-r8a*", ConsoleKind::Scif),
    ("renesas,rcar-gen*-hscif", ConsoleKind::Scif),
    ("renesas,hscif", ConsoleKind::Scif),
    ("samsung,exynos4210-uart", ConsoleKind::Samsung),
    // STM32MP1; not the STM32F4 (`st,stm32-uart`, another layout) nor the Cortex-M STM32F7.
    ("st,stm32h7-uart", ConsoleKind::Stm32),
];

/// Whether `s` matches `pattern`, in which one `*` stands for any run of characters.
pub fn compatible_matches(pattern: &str, s: &str) -> bool {
    match crate::text::split_once(pattern, b'*') {
        None => pattern == s,
        Some((head, tail)) => {
            s.len() >= head.len().saturating_add(tail.len())
                && s.starts_with(head)
                && s.ends_with(tail)
        }
    }
}

/// The console UART.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ConsoleInfo {
    /// Which driver to use.
    pub kind: ConsoleKind,
    /// CPU physical address of the register block.
    pub base: u64,
}

/// How PSCI calls reach the firmware that implements them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PsciConduit {
    /// `HVC #0` (a hypervisor, e.g. QEMU's built-in PSCI at EL1).
    Hvc,
    /// `SMC #0` (EL3 firmware, or QEMU's built-in PSCI at EL2).
    Smc,
}

impl PsciConduit {
    /// The conduit as records name it: `hvc` or `smc`.
    pub const fn name(self) -> &'static str {
        match self {
            PsciConduit::Hvc => "hvc",
            PsciConduit::Smc => "smc",
        }
    }
}

/// A range of physical memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemRegion {
    /// First byte.
    pub base: u64,
    /// Length in bytes.
    pub size: u64,
}

impl MemRegion {
    /// Whether `addr` lies inside the region.
    pub fn contains(&self, addr: u64) -> bool {
        addr.checked_sub(self.base)
            .is_some_and(|off| off < self.size)
    }
}

/// Something the device tree or the ACPI tables lacked or got wrong, and what was assumed
/// instead. The `Acpi*` problems are [`crate::acpi::discover`]'s ([`Problem::acpi`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum Problem {
    /// No DTB was passed.
    NoDtb,
    /// The DTB header is not valid.
    DtbHeader,
    /// The DTB structure block is malformed.
    DtbStructure,
    /// `/chosen/stdout-path` is absent.
    NoStdoutPath,
    /// `/chosen/stdout-path` names no node.
    StdoutNotFound,
    /// The console is not a supported UART.
    ConsoleUnsupported,
    /// The console's address is missing or cannot be translated to a CPU address.
    ConsoleNoAddress,
    /// No usable `/memory` region.
    NoMemory,
    /// More RAM regions than [`MAX_RAM_REGIONS`].
    TooManyMemoryRegions,
    /// No `/psci` node with a known method.
    NoPsci,
    /// `/chosen/stdout-path` gave no console; `/aliases/serial0` did.
    ConsoleFromAlias,
    /// Neither `/chosen/stdout-path` nor `/aliases/serial0` gave a console; the first
    /// enabled supported UART of the tree did.
    ConsoleFirstUart,
    /// No console UART at all in the device tree.
    NoConsole,
    /// The ACPI RSDP address is 0 or its first 20 bytes cannot be read.
    AcpiNoRsdp,
    /// The RSDP is not valid: signature, checksum, or (revision 2 and later) length or
    /// extended checksum.
    AcpiRsdp,
    /// The XSDT is not a valid table; the RSDT is used instead.
    AcpiXsdt,
    /// Neither the XSDT nor the RSDT is a valid table: no ACPI table is read.
    AcpiNoRoot,
    /// A table's length is below its 36-byte header, above [`crate::acpi::MAX_TABLE_LEN`],
    /// or runs past readable memory: the table is skipped.
    AcpiTableLength,
    /// A table's bytes do not sum to 0: the table is skipped.
    AcpiTableChecksum,
    /// The root table lists a table twice, itself or another root table, or a second valid
    /// FADT, MADT or SPCR: the first is used.
    AcpiTableRepeated,
    /// The root table lists more than [`crate::acpi::MAX_TABLES`] tables: the rest are ignored.
    AcpiTooManyTables,
    /// No valid SPCR table.
    AcpiNoSpcr,
    /// The SPCR is shorter than the 80 bytes every revision has.
    AcpiSpcrShort,
    /// The SPCR's interface type is not one mairbench drives
    /// ([`crate::acpi::SPCR_UARTS`]), or a 16550 with register widths it cannot drive.
    AcpiSpcrUnsupported,
    /// The SPCR's UART is not in system memory (e.g. in I/O port space), is at address 0,
    /// or is not aligned to its access width.
    AcpiSpcrAddress,
    /// The SPCR gave no console; the DBG2's first serial port of a type mairbench drives did
    /// (a debug port, which need not be the board's console).
    ConsoleFromDbg2,
    /// The DBG2 is malformed (an offset, length or count runs past the table or one of its
    /// structures): it gives no console.
    AcpiDbg2,
    /// Neither the SPCR nor the DBG2 gave a console UART mairbench drives.
    AcpiNoConsole,
    /// No valid MADT: no CPU is listed.
    AcpiNoMadt,
    /// A MADT entry is malformed (a length below 2 or past the table's end: the entries from
    /// there are ignored; a GICC entry shorter than 76 bytes: it is skipped).
    AcpiMadtEntry,
    /// A MADT GICC entry's MPIDR has bits outside the affinity fields, or repeats one listed
    /// before: the entry is skipped.
    AcpiMadtMpidr,
    /// No valid FADT: PSCI is unavailable.
    AcpiNoFadt,
    /// The FADT predates ACPI 5.1 and has no ARM boot flags, or is too short to hold them:
    /// PSCI is unavailable.
    AcpiFadtOld,
    /// The FADT's ARM boot flags do not say PSCI compliant: PSCI is unavailable.
    AcpiNoPsci,
}

impl Problem {
    /// Every problem, in bit order.
    pub const ALL: [Problem; 34] = [
        Problem::NoDtb,
        Problem::DtbHeader,
        Problem::DtbStructure,
        Problem::NoStdoutPath,
        Problem::StdoutNotFound,
        Problem::ConsoleUnsupported,
        Problem::ConsoleNoAddress,
        Problem::NoMemory,
        Problem::TooManyMemoryRegions,
        Problem::NoPsci,
        Problem::ConsoleFromAlias,
        Problem::ConsoleFirstUart,
        Problem::NoConsole,
        Problem::AcpiNoRsdp,
        Problem::AcpiRsdp,
        Problem::AcpiXsdt,
        Problem::AcpiNoRoot,
        Problem::AcpiTableLength,
        Problem::AcpiTableChecksum,
        Problem::AcpiTableRepeated,
        Problem::AcpiTooManyTables,
        Problem::AcpiNoSpcr,
        Problem::AcpiSpcrShort,
        Problem::AcpiSpcrUnsupported,
        Problem::AcpiSpcrAddress,
        Problem::ConsoleFromDbg2,
        Problem::AcpiDbg2,
        Problem::AcpiNoConsole,
        Problem::AcpiNoMadt,
        Problem::AcpiMadtEntry,
        Problem::AcpiMadtMpidr,
        Problem::AcpiNoFadt,
        Problem::AcpiFadtOld,
        Problem::AcpiNoPsci,
    ];

    /// What was assumed instead, after [`Problem::message`]: QEMU virt's console and RAM
    /// where no device tree could be read; empty otherwise.
    pub const fn assumed(self) -> &'static str {
        match self {
            Problem::NoDtb | Problem::DtbHeader | Problem::DtbStructure => {
                ": assuming QEMU virt (PL011 at 0x9000000, 128 MiB of RAM at 0x40000000)"
            }
            _ => "",
        }
    }

    /// Whether the problem is one of the ACPI tables' (`Acpi*`), not the device tree's.
    pub const fn acpi(self) -> bool {
        (self as u8) >= (Problem::AcpiNoRsdp as u8)
    }

    /// What was wrong, in a sentence; [`Problem::assumed`] says what was assumed instead
    /// (its `Display` writes both).
    pub const fn message(self) -> &'static str {
        match self {
            Problem::NoDtb => "no device tree",
            Problem::DtbHeader => "the device tree header is invalid (magic, version or size)",
            Problem::DtbStructure => "the device tree structure block is malformed",
            Problem::NoStdoutPath => "no /chosen/stdout-path",
            Problem::StdoutNotFound => "/chosen/stdout-path names no node (or an unknown alias)",
            Problem::ConsoleUnsupported => {
                "the /chosen/stdout-path device is not a UART mairbench drives (docs/boards.md), or \
                 a 16550 with reg-shift above 7 or reg-io-width other than 1 or 4"
            }
            Problem::ConsoleNoAddress => {
                "the /chosen/stdout-path device has no reg, or no translation through its \
                 buses' ranges"
            }
            Problem::NoMemory => {
                "no enabled /memory node with a usable reg: assuming 128 MiB of RAM at 0x40000000"
            }
            Problem::TooManyMemoryRegions => "more than 8 RAM regions: ignoring the rest",
            Problem::NoPsci => "no /psci node with method \"hvc\" or \"smc\": PSCI is unavailable",
            Problem::ConsoleFromAlias => "using the UART of /aliases/serial0 as the console",
            Problem::ConsoleFirstUart => {
                "using the first enabled UART mairbench drives, in device-tree order, as the \
                 console"
            }
            Problem::NoConsole => {
                "no enabled UART mairbench drives in the device tree: using the QEMU virt \
                 PL011 at 0x9000000 (QEMU only; elsewhere the console stays silent)"
            }
            Problem::AcpiNoRsdp => {
                "the ACPI RSDP cannot be read (address 0 or not readable): no ACPI table read"
            }
            Problem::AcpiRsdp => {
                "the ACPI RSDP is invalid (signature \"RSD PTR \", checksum of its first 20 \
                 bytes, or from revision 2 its length or extended checksum): no ACPI table read"
            }
            Problem::AcpiXsdt => {
                "the ACPI XSDT is invalid (address, signature, length or checksum): using the RSDT"
            }
            Problem::AcpiNoRoot => {
                "neither the ACPI XSDT nor the RSDT is a valid table: no ACPI table read"
            }
            Problem::AcpiTableLength => {
                "an ACPI table's length is below its 36-byte header, above 1 MiB, or runs past \
                 readable memory: the table is skipped"
            }
            Problem::AcpiTableChecksum => {
                "an ACPI table fails its checksum (its bytes do not sum to 0): the table is skipped"
            }
            Problem::AcpiTableRepeated => {
                "the ACPI XSDT/RSDT lists a table twice, itself or another root table, or a \
                 second FADT, MADT, SPCR or DBG2: using the first"
            }
            Problem::AcpiTooManyTables => {
                "the ACPI XSDT/RSDT lists more than 256 tables: ignoring the rest"
            }
            Problem::AcpiNoSpcr => "no valid ACPI SPCR table",
            Problem::AcpiSpcrShort => "the ACPI SPCR is shorter than 80 bytes",
            Problem::AcpiSpcrUnsupported => {
                "the ACPI SPCR's UART is not one mairbench drives (docs/boards.md), \
                 or a 16550 of widths it cannot drive"
            }
            Problem::AcpiSpcrAddress => {
                "the ACPI SPCR's UART is not in system memory, is at address 0, or is not \
                 aligned to its access width"
            }
            Problem::ConsoleFromDbg2 => {
                "using the ACPI DBG2's first serial port mairbench drives as the console (a \
                 debug port: maybe not the board's console)"
            }
            Problem::AcpiDbg2 => {
                "the ACPI DBG2 is malformed (an offset or length runs past the table or an \
                 entry): no port read from it"
            }
            Problem::AcpiNoConsole => {
                "no console UART mairbench drives in the ACPI SPCR or DBG2: the QEMU virt PL011 \
                 at 0x9000000 on QEMU only, elsewhere silent"
            }
            Problem::AcpiNoMadt => "no valid ACPI MADT: no CPUs listed (only the boot CPU runs)",
            Problem::AcpiMadtEntry => {
                "an ACPI MADT entry is malformed (a length below 2 or past the table's end: the \
                 entries from there are ignored; a GICC entry shorter than 76 bytes: skipped)"
            }
            Problem::AcpiMadtMpidr => {
                "an ACPI MADT GICC entry's MPIDR has bits outside the affinity fields \
                 (0xff00ffffff) or repeats an earlier entry's: the entry is skipped"
            }
            Problem::AcpiNoFadt => "no valid ACPI FADT: PSCI is unavailable",
            Problem::AcpiFadtOld => {
                "the ACPI FADT predates ACPI 5.1 and has no ARM boot flags (or is too short for \
                 them): PSCI is unavailable"
            }
            Problem::AcpiNoPsci => {
                "the ACPI FADT's ARM boot flags do not say PSCI compliant: PSCI is unavailable, \
                 and no other CPU is started (the parking protocol is not supported)"
            }
        }
    }
}

crate::problems::kind!(Problem, assumed);

/// How many RAM regions [`Platform`] keeps.
pub const MAX_RAM_REGIONS: usize = 8;

/// Largest DTB [`dtb_size`] accepts.
pub const MAX_DTB_SIZE: usize = 4 << 20;

/// Most nodes on the `/chosen/stdout-path` path, the root included.
const MAX_PATH_NODES: usize = 32;

/// What the firmware knows about the machine it runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Platform<'a> {
    /// The console UART.
    pub console: ConsoleInfo,
    /// Whether `console` came from the tables: the DTB, or the ACPI SPCR (else it is the QEMU
    /// virt PL011).
    pub console_from_dtb: bool,
    /// PSCI conduit; `None` when unknown.
    pub psci: Option<PsciConduit>,
    /// The first RAM region: the first `reg` entry of the first enabled memory node.
    pub ram: MemRegion,
    /// Whether `ram` came from the DTB (else it is QEMU virt's 128 MiB at 0x4000_0000, or what
    /// [`Platform::set_ram_regions`] set).
    pub ram_from_dtb: bool,
    ram_regions: [MemRegion; MAX_RAM_REGIONS],
    ram_region_count: usize,
    /// `/chosen/bootargs`; `""` when absent or not UTF-8.
    pub bootargs: &'a str,
    /// `/model`, else the first root `compatible` string, else `"unknown"`; from ACPI, the
    /// root table's OEM ID and OEM table ID ([`crate::acpi::discover`]).
    pub model: &'a str,
    /// Whether the device tree is one QEMU wrote for its `virt` machine ([`qemu_mark`]): that
    /// is also true under KVM, where the CPU and its caches are real; false without a valid
    /// DTB. QEMU's board machines (raspi3b, imx8mp-evk, ...) boot the real board's tree, which
    /// marks nothing: there only the runner's `mairbench.host=` tells ([`crate::emulation::Emulation`]).
    pub emulated: bool,
    /// What in the device tree (or the ACPI tables) marks QEMU, in words (`None` when nothing
    /// does); from ACPI also another simulator's tables (QEMU sbsa-ref's firmware, an Arm FVP:
    /// [`crate::acpi::discover`]), which set [`Platform::emulated`] too.
    pub qemu_mark: Option<&'static str>,
    /// The `compatible` strings (NUL-separated) of the device tree's `/hypervisor` node, when
    /// there is one (Xen's `xen,xen`): the firmware runs in a guest.
    pub hypervisor: Option<&'a [u8]>,
    /// Whether a DTB was passed and passed the structure check.
    pub dtb_ok: bool,
    /// Which tables described the machine: [`Tables::Dtb`] once a DTB passed the structure
    /// check, [`Tables::Acpi`] once an ACPI root table (XSDT or RSDT) was valid, else
    /// [`Tables::None`].
    pub tables: Tables,
    /// What ACPI discovery read beyond the fields above (all empty from a DTB).
    pub acpi: AcpiFacts<'a>,
    /// What was missing or odd.
    pub problems: Problems,
    /// `/memreserve/` and `/reserved-memory` ([`reserved::read`]), with their own problems.
    pub reserved: Reserved<'a>,
    cpus: [Cpu; MAX_CPUS],
    cpu_count: usize,
    /// CPUs of `/cpus` beyond the first [`MAX_CPUS`]: counted, not kept.
    pub cpus_beyond_cap: usize,
    /// The first `enable-method` of a CPU of [`Enable::Other`] that the tree names, its own or
    /// else `/cpus`'s (where some 32-bit SoCs' trees put it, `allwinner,sun8i-a23` on the
    /// A23 and A33, and Linux's ARM code reads it): the method the firmware does not know, for the
    /// warning of a CPU it cannot start. `None` when no such CPU names one.
    pub unknown_enable: Option<&'a str>,
}

/// Which root table listed the tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AcpiRoot {
    /// The XSDT (64-bit entries; ACPI 2.0 and later).
    Xsdt,
    /// The RSDT (32-bit entries; ACPI 1.0, or no valid XSDT).
    Rsdt,
}

impl AcpiRoot {
    /// `XSDT` or `RSDT`.
    pub const fn name(self) -> &'static str {
        match self {
            AcpiRoot::Xsdt => "XSDT",
            AcpiRoot::Rsdt => "RSDT",
        }
    }
}

/// What ACPI discovery ([`crate::acpi::discover`]) read beyond [`Platform`]'s own fields.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AcpiFacts<'a> {
    /// The RSDP's revision (0: ACPI 1.0; 2: ACPI 2.0 and later), once it was valid.
    pub rsdp_revision: Option<u8>,
    /// The root table whose list was read.
    pub root: Option<AcpiRoot>,
    /// The root table's OEM ID, trimmed (`""` when not printable ASCII).
    pub oem_id: &'a str,
    /// The root table's OEM table ID, trimmed (`""` when not printable ASCII).
    pub oem_table_id: &'a str,
    /// Valid tables the root lists (each counted once).
    pub tables: usize,
    /// The FADT's revision and minor revision (`(6, 3)`: ACPI 6.3).
    pub fadt_revision: Option<(u8, u8)>,
    /// The SPCR's baud rate in bit/s: its precise baud rate (revision 4), else its configured
    /// one; `None` when it says "as the firmware left it" or gives a value it does not define.
    pub console_baud: Option<u32>,
    /// GICC entries (one per CPU the MADT describes), whatever their flags.
    pub gicc_entries: usize,
    /// GICC entries neither enabled nor online capable: CPUs not usable. Not listed.
    pub cpus_disabled: usize,
    /// GICC entries not enabled but online capable (ACPI 6.5): CPUs that can be brought up
    /// later, not at boot. Not listed.
    pub cpus_online_capable: usize,
    /// Enabled GICC entries with a parking protocol mailbox (version and address nonzero).
    pub cpus_parked: usize,
    /// The FADT's Hypervisor Vendor Identity (ACPI 6.0, 8 bytes at offset 268), when the FADT
    /// is long enough and it is not zero: the firmware runs in a guest.
    pub hypervisor_vendor: Option<u64>,
    /// The counter errata the GTDT's header names ([`crate::counter::Errata::of_gtdt`]).
    pub timer_errata: crate::counter::Errata,
    /// The MADT, whole: with the PPTT, the clusters of the CPUs
    /// ([`crate::topology::Topology::from_acpi`]). Where the tables lie in memory a firmware
    /// may not map later: read it while they are reachable.
    pub madt: Option<&'a [u8]>,
    /// The PPTT (Processor Properties Topology Table), whole, when the root lists one; read
    /// it as the MADT.
    pub pptt: Option<&'a [u8]>,
}

impl AcpiFacts<'_> {
    /// Nothing read.
    pub const NONE: AcpiFacts<'static> = AcpiFacts {
        rsdp_revision: None,
        root: None,
        oem_id: "",
        oem_table_id: "",
        tables: 0,
        fadt_revision: None,
        console_baud: None,
        gicc_entries: 0,
        timer_errata: crate::counter::Errata::NONE,
        madt: None,
        pptt: None,
        cpus_disabled: 0,
        cpus_online_capable: 0,
        cpus_parked: 0,
        hypervisor_vendor: None,
    };
}

/// Where the description of the machine came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tables {
    /// Nothing usable: the defaults ([`QEMU_VIRT`]).
    None,
    /// A flattened device tree.
    Dtb,
    /// ACPI tables ([`crate::acpi::discover`]).
    Acpi,
}

impl Tables {
    /// As records name it: `none`, `dtb` or `acpi`.
    pub const fn name(self) -> &'static str {
        match self {
            Tables::None => "none",
            Tables::Dtb => "dtb",
            Tables::Acpi => "acpi",
        }
    }

    /// The tables in words, as messages name them: `no tables`, `device tree`, `ACPI tables`.
    pub const fn words(self) -> &'static str {
        match self {
            Tables::None => "no tables",
            Tables::Dtb => "device tree",
            Tables::Acpi => "ACPI tables",
        }
    }
}

/// Most CPUs the firmware starts and keeps track of: every per-CPU size of the firmware
/// (stacks, job slots, map regions) derives from it.
pub const MAX_CPUS: usize = 256;

/// How a CPU of `/cpus` is to be started (`enable-method`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Enable {
    /// No `enable-method` (often the boot CPU), or one the firmware does not know. (First, so
    /// that an unused table entry is all zeros.)
    Other,
    /// `"psci"`: PSCI CPU_ON.
    Psci,
    /// `"spin-table"`: the CPU waits in its boot loader until an entry address appears at
    /// `release` (`cpu-release-addr`, physical), then jumps there.
    SpinTable {
        /// The physical address of its release word (64 bits).
        release: u64,
    },
    /// `"spin-table"` without a usable `cpu-release-addr`.
    SpinTableWithoutAddress,
    /// `"brcm,bcm2836-smp"` (the Raspberry Pi 2B's BCM2836), the CPU's own or `/cpus`'s: the
    /// CPU waits in its boot stub until its local mailbox 3 holds an entry address, which the
    /// boot CPU writes to the mailbox's set register, `LOCAL_MAILBOX3_SET0` (0x8c) + 16 ×
    /// the CPU's number from the base of the `brcm,bcm2836-l1-intc` node's registers, then
    /// DSB and SEV (Linux's arch/arm/mach-bcm/platsmp.c, `bcm2836_boot_secondary`). Only the
    /// 32-bit image's core reads it ([`Armv7Only`]).
    Bcm2836 {
        /// The physical address of the CPU's mailbox 3 set register; `None` when the tree has
        /// no enabled `brcm,bcm2836-l1-intc` node whose first `reg` entry translates and holds
        /// the CPU's mailbox registers (its number, MPIDR Aff0, 0 to 3).
        mailbox: Option<u64>,
        /// The mark of the 32-bit image's core.
        armv7: Armv7Only,
    },
}

impl Enable {
    /// The method as reports name it: `psci`, `spin-table`, `brcm,bcm2836-smp` or `none`.
    pub const fn name(self) -> &'static str {
        match self {
            Enable::Psci => "psci",
            Enable::SpinTable { .. } | Enable::SpinTableWithoutAddress => "spin-table",
            Enable::Bcm2836 { .. } => BCM2836_SMP,
            Enable::Other => "none",
        }
    }
}

pub use armv7_only::Armv7Only;
#[cfg(not(all(target_arch = "aarch64", target_os = "none")))]
pub use armv7_only::ARMV7;

mod armv7_only {
    /// A mark on what only the 32-bit image's core makes of a tree (a 32-bit SoC's own way of
    /// starting its CPUs, [`super::Enable::Bcm2836`]): in the AArch64 image's core (`aarch64`,
    /// target OS `none`) the type is empty, so a value holding it cannot exist there, and the
    /// compiler leaves the firmware's code for such values out of that image (which has no
    /// byte to spare), with no `cfg` in that code. Elsewhere (the 32-bit image, the host) it
    /// is [`ARMV7`]. Its field is private to this module, so that matches elsewhere, which
    /// cannot see it is empty, name its variants in every image alike.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    pub struct Armv7Only(Mark);

    #[cfg(all(target_arch = "aarch64", target_os = "none"))]
    type Mark = core::convert::Infallible;
    #[cfg(not(all(target_arch = "aarch64", target_os = "none")))]
    type Mark = ();

    /// The [`Armv7Only`] mark, where it exists.
    #[cfg(not(all(target_arch = "aarch64", target_os = "none")))]
    pub const ARMV7: Armv7Only = Armv7Only(());
}

/// The Raspberry Pi 2B's enable-method.
const BCM2836_SMP: &str = "brcm,bcm2836-smp";
/// The BCM2836's local interrupt controller, whose registers hold each CPU's mailboxes.
#[cfg(not(all(target_arch = "aarch64", target_os = "none")))]
const BCM2836_L1_INTC: &str = "brcm,bcm2836-l1-intc";
/// `LOCAL_MAILBOX3_SET0`: mailbox 3 of CPU 0, write-set (Linux's arch/arm/mach-bcm/platsmp.c;
/// QEMU's hw/intc/bcm2836_control.c, `REG_MBOX0_WR` + 12); CPU n's 16 bytes on.
pub const BCM2836_MAILBOX3_SET0: u64 = 0x8c;
/// `LOCAL_MAILBOX3_CLR0`: the same mailbox, read and write-ones-to-clear, 0x40 above the set
/// register. The boot stub that waits on it clears it before it jumps (QEMU's hw/arm/raspi.c,
/// the 32-bit `smpboot`: "clear mbox", then `bx r3`).
pub const BCM2836_MAILBOX3_CLR_OFFSET: u64 = 0x40;

/// A CPU from `/cpus`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cpu {
    /// Its MPIDR affinity (`reg`), the target of PSCI CPU_ON.
    pub mpidr: u64,
    /// How it is started.
    pub enable: Enable,
}

impl Cpu {
    /// Whether its `enable-method` is `"psci"`.
    pub fn psci(&self) -> bool {
        self.enable == Enable::Psci
    }
}

impl Platform<'_> {
    /// The CPUs of `/cpus`, in DTB order, at most [`MAX_CPUS`] (empty without a DTB);
    /// [`Platform::cpus_beyond_cap`] counts the rest.
    pub fn cpus(&self) -> &[Cpu] {
        self.cpus.get(..self.cpu_count).unwrap_or_default()
    }

    /// All RAM regions (at least one; `ram` first), in DTB order, at most
    /// [`MAX_RAM_REGIONS`]. Zero-sized entries and memory nodes whose `status`
    /// is not `okay` are skipped.
    pub fn ram_regions(&self) -> &[MemRegion] {
        self.ram_regions
            .get(..self.ram_region_count)
            .unwrap_or(&self.ram_regions)
    }

    /// Replaces the RAM regions (a UEFI memory map's, say: `uefi::MemoryMap::apply_to`): the
    /// first [`MAX_RAM_REGIONS`] of `regions`; `ram` becomes the first. Nothing changes when
    /// `regions` is empty.
    pub fn set_ram_regions(&mut self, regions: &[MemRegion]) {
        let n = regions.len().min(MAX_RAM_REGIONS);
        let (Some(first), Some(src), Some(dst)) = (
            regions.first(),
            regions.get(..n),
            self.ram_regions.get_mut(..n),
        ) else {
            return;
        };
        dst.copy_from_slice(src);
        self.ram = *first;
        self.ram_region_count = n;
    }

    /// Appends `cpu` to [`Platform::cpus`], or counts it in [`Platform::cpus_beyond_cap`]
    /// when [`MAX_CPUS`] are kept already.
    pub(crate) fn push_cpu(&mut self, cpu: Cpu) {
        match self.cpus.get_mut(self.cpu_count) {
            Some(slot) => {
                *slot = cpu;
                self.cpu_count = self.cpu_count.saturating_add(1);
            }
            None => self.cpus_beyond_cap = self.cpus_beyond_cap.saturating_add(1),
        }
    }
}

const QEMU_VIRT_RAM: MemRegion = MemRegion {
    base: 0x4000_0000,
    size: 128 << 20,
};

/// The defaults: QEMU `virt` with its PL011 at 0x0900_0000 and 128 MiB of RAM
/// at 0x4000_0000, PSCI unknown, no bootargs, model `"unknown"`, no problems.
pub const QEMU_VIRT: Platform<'static> = Platform::qemu_virt();

impl Platform<'static> {
    /// [`QEMU_VIRT`], as a function: called at run time it builds the struct in place (its
    /// tables all but empty), where a copy of the constant would keep a 9 KiB image of it in
    /// the firmware's relocated data.
    pub const fn qemu_virt() -> Self {
        Platform {
            console: ConsoleInfo {
                kind: ConsoleKind::Pl011,
                base: 0x0900_0000,
            },
            console_from_dtb: false,
            psci: None,
            ram: QEMU_VIRT_RAM,
            ram_from_dtb: false,
            ram_regions: [QEMU_VIRT_RAM; MAX_RAM_REGIONS],
            ram_region_count: 1,
            bootargs: "",
            model: "unknown",
            emulated: false,
            qemu_mark: None,
            hypervisor: None,
            dtb_ok: false,
            tables: Tables::None,
            acpi: AcpiFacts::NONE,
            problems: Problems::NONE,
            reserved: Reserved::none(),
            cpus: [NO_CPU; MAX_CPUS],
            cpu_count: 0,
            cpus_beyond_cap: 0,
            unknown_enable: None,
        }
    }
}

/// An unused entry of the CPU table.
const NO_CPU: Cpu = Cpu {
    mpidr: 0,
    enable: Enable::Other,
};

/// Size of the DTB whose header starts `header`, so the firmware can build a
/// slice from the pointer its boot loader passed.
///
/// `header` must hold the 40-byte header. Returns `None` unless the magic is
/// `0xd00dfeed`, the version is 17 or later and compatible with 17, and the
/// total size is between 40 bytes and [`MAX_DTB_SIZE`] ([`fdt::total_size`]
/// with a limit).
pub fn dtb_size(header: &[u8]) -> Option<usize> {
    fdt::total_size(header).filter(|&total| total <= MAX_DTB_SIZE)
}

/// What marks a device tree as QEMU's own, in words, first match: the root `compatible`
/// `linux,dummy-virt` (QEMU virt), or a child of the root compatible with `qemu,fw-cfg-mmio`
/// (QEMU's firmware configuration device) or `qemu,platform` (its platform bus). Real boards'
/// trees carry none of them, also when a QEMU board machine boots them.
pub fn qemu_mark(root: Node<'_>) -> Option<&'static str> {
    if compatible(root, "linux,dummy-virt") {
        return Some("root compatible linux,dummy-virt");
    }
    [
        ("qemu,fw-cfg-mmio", "a qemu,fw-cfg-mmio node"),
        ("qemu,platform", "a qemu,platform bus"),
    ]
    .iter()
    .find(|&&(name, _)| root.children().any(|child| compatible(child, name)))
    .map(|&(_, words)| words)
}

/// Whether one of `node`'s `compatible` strings is `name`.
pub(crate) fn compatible(node: Node<'_>, name: &str) -> bool {
    node.property("compatible")
        .is_some_and(|c| c.strings().any(|c| c == name))
}

/// Reads the platform description from `dtb`; see the module documentation.
///
/// Rules:
/// - console: `/chosen/stdout-path` (or `linux,stdout-path`) up to any `:`;
///   a path not starting with `/` begins with an alias resolved (once) through
///   `/aliases`. A path component without `@` also matches a node by its name
///   without the unit address, the first such node ([`Fdt::walk_path`]). The node's
///   `compatible` strings select the driver through [`CONSOLES`]; a 16550's
///   `reg-shift` (0..=7) and `reg-io-width` (1 or 4) override its binding's defaults.
///   The base is the first `reg` entry translated through the `ranges` of every
///   parent bus (empty `ranges` is the identity; a bus without `ranges` cannot be
///   translated). Addresses and sizes of more than 2 cells (PCI) are not supported.
///   When stdout-path gives no console (absent, unknown, unsupported or without an
///   address: that problem is recorded), `/aliases/serial0` is tried, then every node
///   in device-tree order; these two take a UART only if it and its buses are enabled
///   (`status` absent, `okay` or `ok`), and record [`Problem::ConsoleFromAlias`] or
///   [`Problem::ConsoleFirstUart`]. With no console at all, [`Problem::NoConsole`].
/// - PSCI: `/psci` `method`, `"hvc"` or `"smc"`.
/// - RAM: the `reg` entries of the root's children with `device_type = "memory"`
///   whose `status` is absent or `okay`.
/// - Reserved memory: `/memreserve/` and `/reserved-memory`, read by
///   [`reserved::read`] into [`Platform::reserved`].
/// - `/secure-chosen` is ignored.
///
/// String properties must be NUL-terminated UTF-8 and are read up to their first
/// NUL; a malformed `#address-cells` or `#size-cells` makes the addresses below
/// it unusable (rather than defaulted).
///
/// Not inlined: inside the firmware's large entry function the same code takes more
/// instructions.
#[inline(never)]
pub fn discover(dtb: Option<&[u8]>) -> Platform<'_> {
    // The defaults, with the large tables built in place (all zeros) rather than copied from
    // a constant image of the whole struct.
    let mut p = Platform::qemu_virt();
    let Some(dtb) = dtb else {
        p.problems.insert(Problem::NoDtb);
        return p;
    };
    let checked = match dtb_size(dtb) {
        Some(_) => Fdt::new(dtb),
        None => Err(fdt::Error::Header),
    };
    let fdt = match checked {
        Ok(fdt) => fdt,
        Err(fdt::Error::Structure { .. }) => {
            p.problems.insert(Problem::DtbStructure);
            return p;
        }
        Err(fdt::Error::Header | fdt::Error::Truncated | fdt::Error::Blocks) => {
            p.problems.insert(Problem::DtbHeader);
            return p;
        }
    };
    p.dtb_ok = true;
    p.tables = Tables::Dtb;
    let root = fdt.root();

    let compatible = root.property("compatible");
    p.qemu_mark = qemu_mark(root);
    p.hypervisor = fdt
        .find_node("/hypervisor")
        .and_then(|n| n.property("compatible"))
        .map(|c| c.value());
    p.emulated = p.qemu_mark.is_some();
    p.model = prop_str(root, "model")
        .filter(|m| !m.is_empty())
        .or_else(|| compatible?.strings().find(|c| !c.is_empty()))
        .unwrap_or("unknown");

    let chosen = fdt.find_node("/chosen");
    p.bootargs = chosen
        .and_then(|chosen| prop_str(chosen, "bootargs"))
        .unwrap_or_default();
    if let Some(console) = console(fdt, chosen, &mut p.problems) {
        p.console = console;
        p.console_from_dtb = true;
    }

    p.psci = match fdt.find_node("/psci").and_then(|n| prop_str(n, "method")) {
        Some("hvc") => Some(PsciConduit::Hvc),
        Some("smc") => Some(PsciConduit::Smc),
        _ => None,
    };
    if p.psci.is_none() {
        p.problems.insert(Problem::NoPsci);
    }

    memory(root, &mut p);
    p.reserved = reserved::read(dtb, fdt);
    cpus(fdt, &mut p);
    p
}

/// The CPU nodes of `/cpus`, in blob order, with their MPIDR affinity: the children with
/// `device_type = "cpu"` whose first `reg` entry (of `/cpus`' `#address-cells`) can be read.
/// Others are skipped; nothing without `/cpus` or with a malformed `#address-cells`.
/// [`Platform::cpus`] lists these; [`crate::topology`] groups them into clusters.
pub(crate) fn cpu_nodes(fdt: Fdt<'_>) -> CpuNodes<'_> {
    let cpus = fdt.find_node("/cpus");
    CpuNodes {
        children: cpus.map(Node::children),
        cells: cpus.and_then(Node::address_cells),
    }
}

/// The iterator of [`cpu_nodes`].
pub(crate) struct CpuNodes<'a> {
    children: Option<fdt::Children<'a>>,
    cells: Option<u32>,
}

impl<'a> Iterator for CpuNodes<'a> {
    type Item = (Node<'a>, u64);

    fn next(&mut self) -> Option<(Node<'a>, u64)> {
        loop {
            let node = self.children.as_mut()?.next()?;
            if prop_str(node, "device_type") != Some("cpu") {
                continue;
            }
            let reg = node.property("reg");
            if let Some([Some(mpidr)]) = reg
                .zip(self.cells)
                .and_then(|(reg, cells)| reg.entries([cells])?.next())
            {
                return Some((node, mpidr));
            }
        }
    }
}

/// The CPUs of `/cpus` ([`cpu_nodes`]), at most [`MAX_CPUS`]; the rest counted.
fn cpus<'a>(fdt: Fdt<'a>, p: &mut Platform<'a>) {
    let parent = fdt
        .find_node("/cpus")
        .and_then(|n| prop_str(n, "enable-method"));
    for (node, mpidr) in cpu_nodes(fdt) {
        let own = prop_str(node, "enable-method");
        let enable = match own {
            Some("psci") => Enable::Psci,
            Some("spin-table") => match release_address(node) {
                Some(release) => Enable::SpinTable { release },
                None => Enable::SpinTableWithoutAddress,
            },
            _ => armv7_enable(fdt, [own, parent], mpidr),
        };
        if enable == Enable::Other && p.unknown_enable.is_none() {
            p.unknown_enable = own.or(parent);
        }
        p.push_cpu(Cpu { mpidr, enable });
    }
}

/// The method of a CPU whose own `enable-method` is none of arm64's, in the 32-bit image's
/// core: of `named`, its own and `/cpus`'s, the first this core knows ([`Enable::Bcm2836`]), as
/// Linux's ARM code takes a CPU's known method, else `/cpus`'s (arch/arm/kernel/devtree.c,
/// `arm_dt_init_cpu_maps`: "Fallback to an enable-method in the cpus node"); else
/// [`Enable::Other`].
#[cfg(not(all(target_arch = "aarch64", target_os = "none")))]
fn armv7_enable(fdt: Fdt<'_>, named: [Option<&str>; 2], mpidr: u64) -> Enable {
    if named.contains(&Some(BCM2836_SMP)) {
        Enable::Bcm2836 {
            mailbox: bcm2836_mailbox(fdt, mpidr),
            armv7: ARMV7,
        }
    } else {
        Enable::Other
    }
}

/// [`Enable::Other`]: the AArch64 image's core knows no other method (arm64 names one per
/// CPU, `psci` or `spin-table`: Linux's Documentation/arch/arm64/booting.rst).
#[cfg(all(target_arch = "aarch64", target_os = "none"))]
fn armv7_enable(_: Fdt<'_>, _: [Option<&str>; 2], _: u64) -> Enable {
    Enable::Other
}

/// The mailbox 3 set register of the BCM2836 CPU `mpidr`: in the first enabled
/// `brcm,bcm2836-l1-intc` node's first `reg` entry, translated to a CPU address, at
/// [`BCM2836_MAILBOX3_SET0`] + 16 × the CPU's number (MPIDR Aff0, as QEMU's boot stub reads
/// it: `ubfx r0, r0, #0, #2` of MPIDR); `None` without such a node, or when the entry does not
/// hold both of the CPU's mailbox 3 registers (set and clear).
#[cfg(not(all(target_arch = "aarch64", target_os = "none")))]
fn bcm2836_mailbox(fdt: Fdt<'_>, mpidr: u64) -> Option<u64> {
    let cpu = mpidr & 0xff;
    if cpu > 3 {
        return None;
    }
    let set = cpu.checked_mul(16)?.checked_add(BCM2836_MAILBOX3_SET0)?;
    let clear_end = set
        .checked_add(BCM2836_MAILBOX3_CLR_OFFSET)?
        .checked_add(4)?;
    first_enabled(fdt, |node, buses| {
        if !compatible(node, BCM2836_L1_INTC) {
            return Err(());
        }
        let base = translate(node, buses).ok_or(())?;
        let size = reg_size(node, buses).ok_or(())?;
        let fits = clear_end <= size;
        fits.then(|| base.checked_add(set)).flatten().ok_or(())
    })
}

/// The size of `node`'s first `reg` entry, whose ancestors are `buses` (root first).
#[cfg(not(all(target_arch = "aarch64", target_os = "none")))]
fn reg_size(node: Node<'_>, buses: &[Node<'_>]) -> Option<u64> {
    let &parent = buses.last()?;
    let cells = [parent.address_cells()?, parent.size_cells()?];
    let [_, size] = node.property("reg")?.entries(cells)?.next()?;
    size
}

/// `cpu-release-addr`: one 64-bit value (two cells, as the binding says; one cell taken as
/// 32 bits), 8-byte aligned and not 0.
fn release_address(node: Node<'_>) -> Option<u64> {
    // No cells read as 0, which is refused below.
    let value = fdt::cells_to_u64(node.property("cpu-release-addr")?.value())?;
    (value != 0 && value.is_multiple_of(8)).then_some(value)
}

/// The console: from `/chosen/stdout-path`, else `/aliases/serial0`, else the first
/// enabled supported UART; see [`discover`]. Not inlined: the firmware is smaller with it
/// apart from [`discover`].
#[inline(never)]
fn console(fdt: Fdt<'_>, chosen: Option<Node<'_>>, problems: &mut Problems) -> Option<ConsoleInfo> {
    let why = match stdout_console(fdt, chosen) {
        Ok(console) => return Some(console),
        Err(why) => why,
    };
    problems.insert(why);
    if let Some(console) = fdt
        .alias("serial0")
        .and_then(|path| path_console(fdt, path, true).ok())
    {
        problems.insert(Problem::ConsoleFromAlias);
        return Some(console);
    }
    if let Some(console) = first_uart(fdt) {
        problems.insert(Problem::ConsoleFirstUart);
        return Some(console);
    }
    problems.insert(Problem::NoConsole);
    None
}

/// The console `/chosen/stdout-path` names.
fn stdout_console(fdt: Fdt<'_>, chosen: Option<Node<'_>>) -> Result<ConsoleInfo, Problem> {
    let chosen = chosen.ok_or(Problem::NoStdoutPath)?;
    let path = prop_str(chosen, "stdout-path")
        .or_else(|| prop_str(chosen, "linux,stdout-path"))
        .ok_or(Problem::NoStdoutPath)?;
    // Options follow a `:` (`serial0:115200n8`).
    let path_len = path.bytes().position(|b| b == b':').unwrap_or(path.len());
    path_console(fdt, path.get(..path_len).unwrap_or_default(), false)
}

/// The console UART at `path`; with `enabled_only`, only if it and its buses are enabled.
fn path_console(fdt: Fdt<'_>, path: &str, enabled_only: bool) -> Result<ConsoleInfo, Problem> {
    let mut chain = Chain::new(fdt.root());
    let found = fdt.walk_path(path, |node| chain.push(node));
    let nodes = chain.nodes();
    let (&node, buses) = nodes.split_last().ok_or(Problem::StdoutNotFound)?;
    if found.is_none() || buses.is_empty() {
        return Err(Problem::StdoutNotFound);
    }
    if enabled_only && !nodes.iter().all(|&n| enabled(n)) {
        return Err(Problem::ConsoleUnsupported);
    }
    uart_at(node, buses)
}

/// The console UART `node` is, whose ancestors are `buses` (root first).
fn uart_at(node: Node<'_>, buses: &[Node<'_>]) -> Result<ConsoleInfo, Problem> {
    let kind = console_kind(node).ok_or(Problem::ConsoleUnsupported)?;
    let base = translate(node, buses).ok_or(Problem::ConsoleNoAddress)?;
    Ok(ConsoleInfo { kind, base })
}

/// Whether `node`'s `status` is absent, `"okay"` or `"ok"`.
pub(crate) fn enabled(node: Node<'_>) -> bool {
    matches!(prop_str(node, "status"), None | Some("okay" | "ok"))
}

/// The first supported UART with an address, in device-tree order (depth first), that
/// is enabled, under enabled nodes only, at most [`MAX_PATH_NODES`] deep.
fn first_uart(fdt: Fdt<'_>) -> Option<ConsoleInfo> {
    first_enabled(fdt, uart_at)
}

/// The first enabled node, under enabled nodes only and at most [`MAX_PATH_NODES`] deep, in
/// device-tree order (depth first), for which `found` (given the node and its ancestors,
/// root first) is `Ok`.
fn first_enabled<T, E>(
    fdt: Fdt<'_>,
    mut found: impl FnMut(Node<'_>, &[Node<'_>]) -> Result<T, E>,
) -> Option<T> {
    let mut chain = Chain::new(fdt.root());
    chain.push(fdt.root());
    // next[d]: how many children of the chain's node at depth d have been visited.
    let mut next = [0usize; MAX_PATH_NODES];
    loop {
        let nodes = chain.nodes();
        let (&parent, _) = nodes.split_last()?;
        let depth = nodes.len().saturating_sub(1);
        let visited = next.get_mut(depth)?;
        let Some(node) = parent.children().nth(*visited) else {
            if depth == 0 {
                return None;
            }
            chain.pop();
            continue;
        };
        *visited = visited.saturating_add(1);
        if !enabled(node) {
            continue;
        }
        if let Ok(t) = found(node, nodes) {
            return Some(t);
        }
        if chain.push(node) {
            if let Some(n) = next.get_mut(depth.saturating_add(1)) {
                *n = 0;
            }
        }
    }
}

/// The outer cache controller a 32-bit board's device tree names: the CPU address of the
/// first enabled `arm,pl310-cache` node (an L2C-310, as on the i.MX6 and Zynq-7000;
/// Linux's arch/arm/mm/cache-l2x0.c matches the same string), `None` when there is none or
/// its address does not translate.
pub fn pl310(dtb: &[u8]) -> Option<u64> {
    let fdt = Fdt::new(dtb).ok()?;
    first_enabled(fdt, |node, buses| {
        let pl310 = compatible(node, "arm,pl310-cache");
        pl310.then(|| translate(node, buses)).flatten().ok_or(())
    })
}

/// A SoC timer that can time a run on a core without the generic timer (the Cortex-A8 and
/// A9): how it is programmed and read, and its rate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SocTimerKind {
    /// The i.MX6 General Purpose Timer counting up, free-running, from the 24 MHz crystal
    /// oscillator divided by 8: 3 MHz. Linux's drivers/clocksource/timer-imx-gpt.c programs
    /// the i.MX6's GPT so (`imx6dl_gpt_setup_tctl`: `V2_TCTL_CLK_OSC_DIV8` (CLKSRC `0b101`)
    /// with `V2_TCTL_24MEN`, PRESCALER24M 7; `V2_TIMER_RATE_OSC_DIV8` 3000000), and so does
    /// QEMU's model (CLKSRC `0b101`: the reference clock / 8). The i.MX6Q's first silicon
    /// revision (1.0) lacks that source, where Linux counts the peripheral clock instead: its
    /// counter then stays still and the timer check fails.
    ImxGptOsc8,
    /// Timer 1 of the Allwinner A10's timer block (and the A10s' and A13's: Cortex-A8),
    /// counting down from 0xffff_ffff, reloading, from the 24 MHz oscillator undivided, as
    /// Linux's drivers/clocksource/timer-sun4i.c makes it its clocksource (`TIMER_CTL_ENABLE |
    /// TIMER_CTL_RELOAD | TIMER_CTL_CLK_SRC(TIMER_CTL_CLK_SRC_OSC24M)`, read inverted) and as
    /// QEMU's `allwinner-a10-pit` counts it (clock source 1: 24 MHz).
    Sun4iTimer1Osc24,
}

impl SocTimerKind {
    /// Its rate, Hz.
    pub const fn hz(self) -> u64 {
        match self {
            SocTimerKind::ImxGptOsc8 => 3_000_000,
            SocTimerKind::Sun4iTimer1Osc24 => 24_000_000,
        }
    }

    /// Its name in the run's sentences.
    pub const fn name(self) -> &'static str {
        match self {
            SocTimerKind::ImxGptOsc8 => "the i.MX6 GPT (24 MHz oscillator / 8)",
            SocTimerKind::Sun4iTimer1Osc24 => "the Allwinner A10 timer 1 (24 MHz oscillator)",
        }
    }
}

/// The SoC timers [`soc_timer`] knows, by `compatible` string: the i.MX6 variants whose cores
/// (Cortex-A9) have no generic timer, and the Allwinner A10's (Cortex-A8; its A20 sibling, a
/// Cortex-A7 with the generic timer, names it too).
pub const SOC_TIMERS: [(&str, SocTimerKind); 5] = [
    ("fsl,imx6q-gpt", SocTimerKind::ImxGptOsc8),
    ("fsl,imx6dl-gpt", SocTimerKind::ImxGptOsc8),
    ("fsl,imx6sl-gpt", SocTimerKind::ImxGptOsc8),
    ("fsl,imx6sx-gpt", SocTimerKind::ImxGptOsc8),
    ("allwinner,sun4i-a10-timer", SocTimerKind::Sun4iTimer1Osc24),
];

/// The first enabled node of the device tree `dtb` that [`SOC_TIMERS`] knows: its CPU address
/// and kind; `None` when there is none or its address does not translate.
pub fn soc_timer(dtb: &[u8]) -> Option<(u64, SocTimerKind)> {
    let fdt = Fdt::new(dtb).ok()?;
    first_enabled(fdt, |node, buses| {
        let kind = node.property("compatible").and_then(|p| {
            p.strings().find_map(|c| {
                SOC_TIMERS
                    .iter()
                    .find(|(name, _)| *name == c)
                    .map(|&(_, k)| k)
            })
        });
        kind.and_then(|k| translate(node, buses).map(|base| (base, k)))
            .ok_or(())
    })
}

/// The console kind of `node`: the first [`CONSOLES`] row matching its first matching
/// `compatible` string, with a 16550's `reg-shift` (0..=7) and `reg-io-width` (1 or 4)
/// when present; `None` when unsupported or those are out of range.
fn console_kind(node: Node<'_>) -> Option<ConsoleKind> {
    let kind = node.property("compatible")?.strings().find_map(|c| {
        CONSOLES
            .iter()
            .find(|(pattern, _)| compatible_matches(pattern, c))
            .map(|&(_, kind)| kind)
    })?;
    let ConsoleKind::Ns16550 {
        reg_shift,
        io_width,
    } = kind
    else {
        return Some(kind);
    };
    let reg_shift =
        prop_u32_or(node, "reg-shift", u32::from(reg_shift)).filter(|&s| s <= MAX_REG_SHIFT)?;
    let io_width =
        prop_u32_or(node, "reg-io-width", u32::from(io_width)).filter(|&w| w == 1 || w == 4)?;
    Some(ConsoleKind::Ns16550 {
        reg_shift: u8::try_from(reg_shift).ok()?,
        io_width: u8::try_from(io_width).ok()?,
    })
}

const MAX_REG_SHIFT: u32 = 7;

/// The CPU address of the first `reg` entry of `node`, whose ancestors are
/// `buses` (root first).
fn translate(node: Node<'_>, buses: &[Node<'_>]) -> Option<u64> {
    let &parent = buses.last()?;
    // With 0 address cells the device has no address.
    let address_cells = parent.address_cells().filter(|&n| n > 0)?;
    let size_cells = parent.size_cells()?;
    let [address, _] = node
        .property("reg")?
        .entries([address_cells, size_cells])?
        .next()?;
    let mut addr = address?;
    for pair in buses.windows(2).rev() {
        let &[up, bus] = pair else { return None };
        addr = map_through_ranges(bus, up, addr)?;
    }
    Some(addr)
}

/// Maps `addr` from the address space of `bus`'s children into that of `up`.
fn map_through_ranges(bus: Node<'_>, up: Node<'_>, addr: u64) -> Option<u64> {
    let ranges = bus.property("ranges")?;
    if ranges.value().is_empty() {
        return Some(addr);
    }
    let cells = [bus.address_cells()?, up.address_cells()?, bus.size_cells()?];
    ranges.entries(cells)?.find_map(|[child, parent, len]| {
        let (child, parent, len) = (child?, parent?, len?);
        let off = addr.checked_sub(child).filter(|&off| off < len)?;
        parent.checked_add(off)
    })
}

/// Fills the RAM fields of `p` from the memory nodes.
fn memory(root: Node<'_>, p: &mut Platform<'_>) {
    let mut count = 0;
    if let Some((address_cells, size_cells)) = root.address_cells().zip(root.size_cells()) {
        for node in root.children() {
            if prop_str(node, "device_type") != Some("memory") || !enabled(node) {
                continue;
            }
            let Some(reg) = node
                .property("reg")
                .and_then(|reg| reg.entries([address_cells, size_cells]))
            else {
                continue;
            };
            for [base, size] in reg {
                let (Some(base), Some(size)) = (base, size) else {
                    continue;
                };
                if size == 0 {
                    continue;
                }
                match p.ram_regions.get_mut(count) {
                    Some(slot) => *slot = MemRegion { base, size },
                    None => p.problems.insert(Problem::TooManyMemoryRegions),
                }
                count = count.saturating_add(1);
            }
        }
    }
    match p.ram_regions.first() {
        Some(&first) if count > 0 => {
            p.ram = first;
            p.ram_from_dtb = true;
            p.ram_region_count = count.min(MAX_RAM_REGIONS);
        }
        _ => p.problems.insert(Problem::NoMemory),
    }
}

/// A node and its ancestors, root first, as found by walking a path.
struct Chain<'a> {
    nodes: [Node<'a>; MAX_PATH_NODES],
    len: usize,
}

impl<'a> Chain<'a> {
    fn new(filler: Node<'a>) -> Self {
        Chain {
            nodes: [filler; MAX_PATH_NODES],
            len: 0,
        }
    }

    fn nodes(&self) -> &[Node<'a>] {
        self.nodes.get(..self.len).unwrap_or_default()
    }

    /// Drops the last node.
    fn pop(&mut self) {
        self.len = self.len.saturating_sub(1);
    }

    /// Appends `node`; `false` when the chain is full. Not inlined: one copy for its
    /// callers.
    #[inline(never)]
    fn push(&mut self, node: Node<'a>) -> bool {
        let Some(slot) = self.nodes.get_mut(self.len) else {
            return false;
        };
        *slot = node;
        self.len = self.len.saturating_add(1);
        true
    }
}

/// A NUL-terminated UTF-8 string property, up to its first NUL.
fn prop_str<'a>(node: Node<'a>, name: &str) -> Option<&'a str> {
    node.property(name)?.as_str()
}

/// A one-cell property; `default` when absent, `None` when malformed.
fn prop_u32_or(node: Node<'_>, name: &str, default: u32) -> Option<u32> {
    match node.property(name) {
        None => Some(default),
        Some(p) => p.as_u32(),
    }
}

/// Compatible strings of the Arm generic timer's node.
const ARCH_TIMER_COMPATIBLE: [&str; 2] = ["arm,armv8-timer", "arm,armv7-timer"];

/// Whether `dtb` is the device tree QEMU writes for its `virt` machine (root compatible
/// `linux,dummy-virt`): the only blob the firmware takes from the base of RAM when the boot
/// loader passed none (QEMU starts an ELF with x0 = 0 and puts its tree there; on a board,
/// RAM at that address may hold anything, a stale tree among it).
pub fn is_qemu_virt_dtb(dtb: &[u8]) -> bool {
    dtb_size(dtb).is_some()
        && Fdt::new(dtb)
            .is_ok_and(|f| qemu_mark(f.root()) == Some("root compatible linux,dummy-virt"))
}

/// The generic timer's frequency in Hz as the device tree states it: `clock-frequency` of
/// `/timer`, else of the first root child whose `compatible` names the Arm generic timer
/// (`arm,armv8-timer` or `arm,armv7-timer`). `None` when the blob is not a valid DTB, there
/// is no such node, or the property is absent, malformed or 0.
///
/// Device trees carry this only where firmware failed to program CNTFRQ_EL0; entered at EL3
/// the firmware is mairbench, which programs it from here (see [`cntfrq_to_program`]).
pub fn timer_frequency(dtb: &[u8]) -> Option<u32> {
    dtb_size(dtb)?;
    let fdt = Fdt::new(dtb).ok()?;
    timer_node(&fdt)?
        .property("clock-frequency")?
        .as_u32()
        .filter(|&hz| hz != 0)
}

/// The generic timer's node: `/timer`, else the first root child whose `compatible` names
/// the Arm generic timer.
fn timer_node<'a>(fdt: &Fdt<'a>) -> Option<Node<'a>> {
    let is_timer = |node: &Node<'_>| {
        node.property("compatible")
            .is_some_and(|c| c.strings().any(|c| ARCH_TIMER_COMPATIBLE.contains(&c)))
    };
    fdt.find_node("/timer")
        .or_else(|| fdt.root().children().find(is_timer))
}

/// The counter errata of a machine, not of its cores: those its device tree `dtb` names (its
/// timer node's erratum properties, as Linux's `arm_arch_timer.c` reads them), with those its
/// ACPI GTDT names (`acpi`: [`AcpiFacts::timer_errata`]); none from a blob that is not a valid
/// DTB or has no timer node. Each CPU adds its own core's ([`crate::counter::Errata::with_core`], by [`crate::cores::counter_erratum`]).
pub fn counter_errata(dtb: Option<&[u8]>, acpi: crate::counter::Errata) -> crate::counter::Errata {
    let fdt = dtb
        .filter(|d| dtb_size(d).is_some())
        .and_then(|d| Fdt::new(d).ok());
    let node = fdt.as_ref().and_then(timer_node);
    let soc = crate::counter::Errata::of(|p| node.is_some_and(|n| n.property(p).is_some()), None);
    crate::counter::Errata::from_bits(soc.bits() | acpi.bits())
}

/// The rate the firmware times the counter with, below EL3 (where it cannot write
/// CNTFRQ_EL0): the device tree's `/timer` `clock-frequency` (`dtb_hz`) where it is given and
/// differs from the register's `cntfrq`, as Linux prefers it, except under an emulator,
/// whose counter runs at its own rate whatever the board's tree says (QEMU's board machines
/// boot real trees: the i.MX 8M Plus EVK's says 8 MHz, QEMU counts 62.5 MHz). `None`: the
/// register's.
pub fn counter_from_dtb(cntfrq: u64, dtb_hz: Option<u64>, emulated: bool) -> Option<u64> {
    dtb_hz.filter(|&hz| hz != 0 && hz != cntfrq && !emulated)
}

/// What to write to CNTFRQ_EL0 at EL3: the device tree's frequency `dtb_hz`, only when the
/// register reads 0 (`current`; a value already there is the boot ROM's or the silicon's,
/// and is kept). `None`: leave it.
pub fn cntfrq_to_program(current: u64, dtb_hz: Option<u32>) -> Option<u64> {
    match (current, dtb_hz) {
        (0, Some(hz)) if hz != 0 => Some(u64::from(hz)),
        _ => None,
    }
}
