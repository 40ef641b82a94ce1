//! What the firmware learns from ACPI tables: the description UEFI machines without a device
//! tree (Arm servers, SystemReady boards, EDK2 on QEMU `virt`) give.
//!
//! [`discover`] starts from the RSDP's physical address (the UEFI side finds it in the ACPI
//! 2.0 configuration table) and reads, through [`Phys`]:
//! - the RSDP, then the XSDT (the RSDT when there is no XSDT or it is invalid);
//! - every table the root lists: its 36-byte header, its length (at least 36, at most
//!   [`MAX_TABLE_LEN`], all readable) and its checksum;
//! - SPCR: the console UART ([`SPCR_UARTS`]), its Generic Address Structure and baud rate;
//! - DBG2, only when the SPCR gives no console: its first serial port of a type the firmware
//!   drives ([`Problem::ConsoleFromDbg2`]);
//! - MADT (signature `APIC`): the GICC entries, one per CPU ([`processors`] lists them with
//!   their ACPI Processor UIDs, which the PPTT names: [`crate::topology`]);
//! - FADT (signature `FACP`): the ARM boot flags, PSCI and its conduit; and the header of the
//!   DSDT it points to, for a simulator's mark (`simulator`);
//! - GTDT: only its header's OEM IDs and revision, which Linux matches against the HiSilicon
//!   parts with counter erratum 161010101 ([`crate::counter::Errata::of_gtdt`]).
//!
//! Nothing else (the DSDT's AML, the GTDT's timers, IORT, ...) is read. RAM does not come from ACPI: the
//! UEFI memory map gives it ([`Platform::set_ram_regions`]).
//!
//! Every problem is a [`Problem`] in [`Platform::problems`] (the `Acpi*` ones), with a safe
//! default: [`QEMU_VIRT`](crate::platform::QEMU_VIRT)'s values for what was not found.
//! [`discover`] never panics, and its time is bounded by the tables' size: at most
//! [`MAX_TABLES`] tables of at most [`MAX_TABLE_LEN`] bytes are read, and every walk moves
//! forward by at least 2 bytes.
//!
//! Layouts are those of the ACPI 6.5 specification (sections 5.2.5 RSDP, 5.2.6 header,
//! 5.2.7/5.2.8 RSDT/XSDT, 5.2.9 FADT, 5.2.12.14 GICC), Microsoft's SPCR specification and
//! Microsoft's *Debug Port Table 2 (DBG2)* (its Table 1, the table; Table 2, the Debug Device
//! Information structure; Table 3, the port types and serial subtypes), cross-checked with
//! Linux (`drivers/acpi/spcr.c`, `arch/arm64/kernel/acpi.c` and `smp.c`)
//! and U-Boot's SPCR writer (`acpi_write_spcr`).

pub use crate::platform::{AcpiFacts as Facts, AcpiRoot as Root};
use crate::platform::{
    ConsoleInfo, ConsoleKind, Cpu, Enable, Platform, Problem, PsciConduit, Tables,
};

/// Physical memory the tables live in, as the firmware sees it (identity-mapped: MMU off, or
/// UEFI's identity map).
pub trait Phys {
    /// The `len` bytes at physical address `pa`, or `None` unless all of them are readable. A
    /// slice of another length is taken as unreadable.
    fn read(&self, pa: u64, len: usize) -> Option<&[u8]>;
}

/// Readable memory: `bytes`, at physical address `base`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Window<'a> {
    /// Physical address of `bytes[0]`.
    pub base: u64,
    /// The memory.
    pub bytes: &'a [u8],
}

impl Phys for Window<'_> {
    fn read(&self, pa: u64, len: usize) -> Option<&[u8]> {
        let start = usize::try_from(pa.checked_sub(self.base)?).ok()?;
        self.bytes.get(start..start.checked_add(len)?)
    }
}

/// Several windows: a read is served by the first that holds all of it (a read across two
/// adjacent windows is not).
impl<P: Phys> Phys for [P] {
    fn read(&self, pa: u64, len: usize) -> Option<&[u8]> {
        self.iter().find_map(|w| w.read(pa, len))
    }
}

/// Most tables read from the root table ([`Problem::AcpiTooManyTables`] beyond).
pub const MAX_TABLES: usize = 256;

/// Longest table read ([`Problem::AcpiTableLength`] beyond): 1 MiB, far above any FADT, MADT
/// (80 to 84 bytes per CPU) or SPCR.
pub const MAX_TABLE_LEN: usize = 1 << 20;

/// The SPCR interface types (Microsoft's DBG2 serial port subtypes, DBG2 Table 3) mairbench
/// drives, and the console kind each selects, for the SPCR and the DBG2 alike. For a 16550
/// (but the BCM2835's) the kind's `reg_shift` and `io_width` are those the Generic Address
/// Structure gives ([`discover`]); the row holds the byte-wide default. As Linux's `spcr.c`
/// maps them, but for 0x10, 0x11 and 0x13, which it does not drive as below.
pub const SPCR_UARTS: [(u8, ConsoleKind); 10] = [
    // Fully 16550-compatible.
    (0x00, NS16550),
    // 16550 subset compatible with DBGP revision 1.
    (0x01, NS16550),
    (0x03, ConsoleKind::Pl011),
    // NVIDIA 16550 (Tegra).
    (0x05, NS16550),
    // SBSA generic UART, 32-bit accesses only (SBSA 2.x): the driver's accesses are 32-bit.
    (0x0d, ConsoleKind::SbsaUart),
    // SBSA generic UART.
    (0x0e, ConsoleKind::SbsaUart),
    // "BCM2835": the Raspberry Pi's mini-UART, 16550-like registers 4 bytes apart with 32-bit
    // accesses ([`MINI_UART_REGS`] past the base the table gives). Unambiguous: the Pi's
    // other UART, a PL011, has Table 3's PL011 type, 0x03; EDK2's Raspberry Pi firmware
    // (edk2-platforms `Platform/RaspberryPi/AcpiTables/Spcr.aslc`) writes 0x10 with the
    // mini-UART's block (`BCM2836_MINI_UART_BASE_ADDRESS`, SoC + 0x215000) and 0x03 with the
    // PL011; Windows' serial debugger, the table's own consumer, drives 0x10 as the mini-UART
    // with its data register at 0x40 (kdcom `miniUart.c`, `AUX_MU_IO_REG`), and so does
    // NetBSD (`acpi_platform_attach_uart`: the address + 0x40, stride 2,
    // `COM_TYPE_BCMAUXUART`). Linux's `spcr.c` lists 0x10 with the PL011s, which those
    // tables contradict.
    (BCM2835, NS16550_MINI_UART),
    // "SDM845 with clock rate of 1.8432 MHz" and "of 7.372 MHz": Qualcomm's GENI serial
    // engine (QUPv3), at the engine's base as the device tree's `qcom,geni-debug-uart` `reg`
    // gives it (Windows' SPCRs on SM8250, 0x11 at 0xa90000, and X1E80100, 0x13 at 0x894000:
    // Linux's `uart12: serial@a90000` and `uart21: serial@894000`). The driver
    // ([`crate::uart::Geni`]) needs nothing a device tree gives beyond that base: it writes
    // no clock, baud rate, packing or FIFO depth and only sends, one byte per command. What
    // the SPCR cannot tell and the driver assumes: that the engine is clocked, runs the UART
    // protocol in FIFO mode (not DMA or GSI) with its packing and frame format set, as the
    // boot firmware left its own console; the clock rates the two types name matter only to
    // a driver that sets the baud rate.
    (0x11, ConsoleKind::Geni),
    // 16550-compatible with parameters defined in the Generic Address Structure.
    (0x12, NS16550),
    (0x13, ConsoleKind::Geni),
];

/// The BCM2835 interface type ([`SPCR_UARTS`]).
const BCM2835: u8 = 0x10;

/// How far the Raspberry Pi's mini-UART registers (`AUX_MU_IO_REG` first) lie past the
/// auxiliary block's base, the base an SPCR or DBG2 of type 0x10 gives (BCM2835 ARM
/// Peripherals, section 2.1; edk2-platforms' `DualSerialPortLib`:
/// `MINI_UART_REGISTER_BASE = BCM2836_MINI_UART_BASE_ADDRESS + 0x40`).
pub const MINI_UART_REGS: u64 = 0x40;

/// The mini-UART as Linux's `8250_bcm2835aux` drives it: registers 4 bytes apart, 32-bit.
const NS16550_MINI_UART: ConsoleKind = ConsoleKind::Ns16550 {
    reg_shift: 2,
    io_width: 4,
};

const NS16550: ConsoleKind = ConsoleKind::Ns16550 {
    reg_shift: 0,
    io_width: 1,
};

/// Size of every table's header.
const HEADER: usize = 36;

/// The RSDP's revision 1 part, which its checksum covers.
const RSDP_V1_LEN: usize = 20;
/// The RSDP of revision 2 and later, which its extended checksum covers.
const RSDP_V2_LEN: usize = 36;

/// GICC (MADT entry type 0x0B): the fields read, by offset in the entry.
const MADT_GICC: u8 = 0x0b;
/// Offset of the first MADT entry (after the header, the GIC address and flags).
const MADT_ENTRIES: usize = 44;
/// The shortest GICC entry read: up to the MPIDR (ACPI 5.1's 76 bytes; 80 from 6.0, 82 from
/// 6.3); Linux's `ACPI_MADT_GICC_MIN_LENGTH`.
const GICC_MIN_LEN: usize = 76;
const GICC_UID: usize = 8;
const GICC_FLAGS: usize = 12;
const GICC_PARKING_VERSION: usize = 16;
const GICC_PARKED_ADDRESS: usize = 24;
const GICC_MPIDR: usize = 68;
/// GICC flags: Enabled.
const GICC_ENABLED: u32 = 1 << 0;
/// GICC flags: Online Capable (ACPI 6.5).
const GICC_ONLINE_CAPABLE: u32 = 1 << 3;
/// The MPIDR affinity fields Aff3 and Aff2..Aff0 (Linux's `MPIDR_HWID_BITMASK`).
const MPIDR_AFFINITY: u64 = 0xff_00ff_ffff;

/// FADT: ARM boot architecture flags (2 bytes) and the minor revision, by offset.
const FADT_ARM_BOOT_FLAGS: usize = 129;
/// FADT: the Hypervisor Vendor Identity (ACPI 6.0 and later), 8 bytes.
const FADT_HYPERVISOR_VENDOR: usize = 268;
const FADT_MINOR_REVISION: usize = 131;
const FADT_PSCI_COMPLIANT: u16 = 1 << 0;
const FADT_PSCI_USE_HVC: u16 = 1 << 1;

/// FADT: the DSDT's address, 32-bit (DSDT) and 64-bit (X_DSDT, which wins when not 0).
const FADT_DSDT: usize = 40;
const FADT_X_DSDT: usize = 140;

/// SPCR fields, by offset.
const SPCR_MIN_LEN: usize = 80;
const SPCR_INTERFACE_TYPE: usize = 36;
const SPCR_BASE_ADDRESS: usize = 40;
const SPCR_BAUD_RATE: usize = 58;
const SPCR_PRECISE_BAUD_RATE: usize = 80;

/// Generic Address Structure: address space ID of system memory.
const GAS_SYSTEM_MEMORY: u8 = 0;
/// Size of a Generic Address Structure.
const GAS_LEN: usize = 12;

/// DBG2 (Table 1): offset and count of the Debug Device Information structures.
const DBG2_OFFSET_INFO: usize = 36;
const DBG2_NUMBER_INFO: usize = 40;
/// Debug Device Information structure (Table 2): its fields, by offset in the structure, and
/// its fixed part's length.
const DBG2_DEV_LENGTH: usize = 1;
const DBG2_DEV_GAS_COUNT: usize = 3;
const DBG2_DEV_PORT_TYPE: usize = 12;
const DBG2_DEV_PORT_SUBTYPE: usize = 14;
const DBG2_DEV_BASE_OFFSET: usize = 18;
const DBG2_DEV_SIZE_OFFSET: usize = 20;
const DBG2_DEV_MIN_LEN: usize = 22;
/// Port type of a serial port (Table 3).
const DBG2_SERIAL: u16 = 0x8000;

/// [`Platform::qemu_mark`] for QEMU's ACPI tables.
pub const QEMU_MARK: &str = "OEM ID BOCHS and OEM table ID BXPC";

/// [`Platform::qemu_mark`] for the tables of QEMU `sbsa-ref`'s firmware (`simulator`).
pub const SBSA_REF_MARK: &str = "OEM ID LINARO, table ID SBSAQEMU: QEMU sbsa-ref";
/// [`Platform::qemu_mark`] for an Arm FVP's DSDT (`simulator`).
pub const FVP_MARK: &str = "DSDT ARMLTD ARM-VEXP: an Arm FVP";
/// [`Platform::qemu_mark`] for an Arm FVP's older static tables (`simulator`).
pub const RTSM_MARK: &str = "OEM ID LINARO, table ID RTSMVEV8: an Arm FVP";

/// A table whose length and checksum were checked: `bytes` is all of it.
#[derive(Clone, Copy)]
struct Table<'a> {
    pa: u64,
    bytes: &'a [u8],
}

impl<'a> Table<'a> {
    /// The table's signature, as four bytes (a value: matching it compares one word).
    fn signature(&self) -> [u8; 4] {
        self.bytes.first_chunk().copied().unwrap_or_default()
    }

    fn revision(&self) -> u8 {
        byte(self.bytes, 8).unwrap_or(0)
    }

    fn oem_id(&self) -> &'a [u8] {
        self.bytes.get(10..16).unwrap_or_default()
    }

    fn oem_table_id(&self) -> &'a [u8] {
        self.bytes.get(16..24).unwrap_or_default()
    }
}

/// The simulator a table header's OEM ID and the start of its OEM table ID name, as the
/// mark ([`Platform::qemu_mark`]) that says so. A table read (the root, one it lists, or the
/// DSDT's header) that carries one marks the run emulated.
/// - QEMU's own tables (`virt` under EDK2, [`QEMU_MARK`]): QEMU's `ACPI_BUILD_APPNAME6`
///   `BOCHS ` and `BXPC` (padded, or `BXPC` and the signature before QEMU 5.1).
/// - QEMU `sbsa-ref` ([`SBSA_REF_MARK`]): QEMU writes no ACPI for it; its firmware
///   (edk2-platforms `Silicon/Qemu/SbsaQemu/Acpi.dsc.inc`) builds every table with
///   `PcdAcpiDefaultOemId` `LINARO` and `PcdAcpiDefaultOemTableId` `SBSAQEMU`.
/// - Arm's FVP Base ([`FVP_MARK`]): its EDK2 (edk2-platforms `Platform/ARM/VExpressPkg`)
///   writes the DSDT as `ARMLTD` `ARM-VEXP` (`ConfigurationManagerDxe/AslTables/Dsdt.asl`; the
///   package's only AArch64 ACPI build is `ArmVExpress-FVP-AArch64.dsc`), its other tables
///   with Arm's generic `ARMLTD`, which Juno's carry too. Before the dynamic tables
///   (edk2-platforms commit 404a76c577) every table said `LINARO` `RTSMVEV8`
///   ([`RTSM_MARK`]; `AcpiTables/FvpPlatform.h`; RTSM is the FVP's former name).
///
/// Matched in code rather than from a table of pointers, which would cost the firmware 24
/// bytes of relocation a pointer.
fn simulator(header: &[u8]) -> Option<&'static str> {
    let ids = header.get(10..24)?;
    let (id, table_id) = ids.split_at_checked(6)?;
    let is = |oem: &[u8], prefix: &[u8]| id == oem && table_id.starts_with(prefix);
    if is(b"BOCHS ", b"BXPC") {
        Some(QEMU_MARK)
    } else if is(b"LINARO", b"SBSAQEMU") {
        Some(SBSA_REF_MARK)
    } else if is(b"LINARO", b"RTSMVEV8") {
        Some(RTSM_MARK)
    } else if is(b"ARMLTD", b"ARM-VEXP") {
        Some(FVP_MARK)
    } else {
        None
    }
}

pub(crate) fn byte(bytes: &[u8], at: usize) -> Option<u8> {
    bytes.get(at).copied()
}

fn array<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
    bytes.get(at..at.checked_add(N)?)?.try_into().ok()
}

/// `bytes` in whole chunks of `n` bytes, a partial chunk at the end left out: what
/// `chunks_exact` gives, without its panic path for a chunk size of 0 (no chunk here).
pub(crate) fn chunks(bytes: &[u8], n: usize) -> impl Iterator<Item = &[u8]> + '_ {
    let mut rest = bytes;
    core::iter::from_fn(move || {
        let (chunk, tail) = rest.split_at_checked(n).filter(|_| n > 0)?;
        rest = tail;
        Some(chunk)
    })
}

#[inline(never)]
pub(crate) fn u16_at(bytes: &[u8], at: usize) -> Option<u16> {
    array(bytes, at).map(u16::from_le_bytes)
}

#[inline(never)]
pub(crate) fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    array(bytes, at).map(u32::from_le_bytes)
}

#[inline(never)]
pub(crate) fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    array(bytes, at).map(u64::from_le_bytes)
}

/// Whether `bytes` sum to 0 modulo 256, as every ACPI checksum makes them.
fn sums_to_zero(bytes: &[u8]) -> bool {
    bytes.iter().fold(0u8, |sum, &b| sum.wrapping_add(b)) == 0
}

/// `len` bytes at `pa`, exactly.
fn read<P: Phys + ?Sized>(mem: &P, pa: u64, len: usize) -> Option<&[u8]> {
    mem.read(pa, len).filter(|b| b.len() == len)
}

/// The table at `pa`, its length and checksum checked.
fn table<P: Phys + ?Sized>(mem: &P, pa: u64) -> Result<Table<'_>, Problem> {
    let header = read(mem, pa, HEADER).ok_or(Problem::AcpiTableLength)?;
    let len = u32_at(header, 4)
        .and_then(|len| usize::try_from(len).ok())
        .filter(|len| (HEADER..=MAX_TABLE_LEN).contains(len))
        .ok_or(Problem::AcpiTableLength)?;
    let bytes = read(mem, pa, len).ok_or(Problem::AcpiTableLength)?;
    if !sums_to_zero(bytes) {
        return Err(Problem::AcpiTableChecksum);
    }
    Ok(Table { pa, bytes })
}

/// `bytes` trimmed of spaces and NULs at both ends, when the rest is printable ASCII and
/// not empty.
fn printable(bytes: &[u8]) -> Option<&str> {
    let pad = |b: &u8| *b == b' ' || *b == 0;
    let start = bytes.iter().position(|b| !pad(b))?;
    let end = bytes.iter().rposition(|b| !pad(b))?;
    let trimmed = bytes.get(start..=end)?;
    if !trimmed.iter().all(|b| (0x20..0x7f).contains(b)) {
        return None;
    }
    core::str::from_utf8(trimmed).ok()
}

/// The root table, from the RSDP at `rsdp`.
fn root<'a, P: Phys + ?Sized>(
    mem: &'a P,
    rsdp: u64,
    p: &mut Platform<'a>,
) -> Option<(Table<'a>, Root)> {
    let Some(v1) = read(mem, rsdp, RSDP_V1_LEN).filter(|_| rsdp != 0) else {
        p.problems.insert(Problem::AcpiNoRsdp);
        return None;
    };
    if v1.get(..8) != Some(b"RSD PTR ".as_slice()) || !sums_to_zero(v1) {
        p.problems.insert(Problem::AcpiRsdp);
        return None;
    }
    let revision = byte(v1, 15).unwrap_or(0);
    let rsdt = u32_at(v1, 16).map_or(0, u64::from);
    let mut xsdt = 0;
    if revision >= 2 {
        let v2 = read(mem, rsdp, RSDP_V2_LEN).filter(|v2| {
            u32_at(v2, 20).is_some_and(|len| len >= RSDP_V2_LEN as u32) && sums_to_zero(v2)
        });
        let Some(v2) = v2 else {
            p.problems.insert(Problem::AcpiRsdp);
            return None;
        };
        xsdt = u64_at(v2, 24).unwrap_or(0);
    }
    p.acpi.rsdp_revision = Some(revision);
    let mut root_table = |pa: u64, signature: &[u8; 4]| match table(mem, pa) {
        Ok(t) if t.signature() == *signature => Some(t),
        Ok(_) => None,
        Err(why) => {
            p.problems.insert(why);
            None
        }
    };
    if xsdt != 0 {
        if let Some(t) = root_table(xsdt, b"XSDT") {
            return Some((t, Root::Xsdt));
        }
    }
    if rsdt != 0 {
        if let Some(t) = root_table(rsdt, b"RSDT") {
            if xsdt != 0 {
                p.problems.insert(Problem::AcpiXsdt);
            }
            return Some((t, Root::Rsdt));
        }
    }
    p.problems.insert(Problem::AcpiNoRoot);
    None
}

/// The tables the root lists: physical addresses, 8 bytes each in the XSDT, 4 in the RSDT (a
/// partial entry at the end is ignored).
fn entries<'a>(root: Table<'a>, kind: Root) -> impl Iterator<Item = u64> + 'a {
    let width = match kind {
        Root::Xsdt => 8,
        Root::Rsdt => 4,
    };
    chunks(root.bytes.get(HEADER..).unwrap_or_default(), width).map(|entry| {
        match entry.try_into() {
            Ok(wide) => u64::from_le_bytes(wide),
            Err(_) => u32_at(entry, 0).map_or(0, u64::from),
        }
    })
}

/// The platform ACPI describes, from the RSDP at physical address `rsdp`; see the module
/// documentation. Never panics.
///
/// What is set, the rest staying [`QEMU_VIRT`](crate::platform::QEMU_VIRT)'s:
/// - [`Platform::tables`]: [`Tables::Acpi`] once a root table is valid.
/// - [`Platform::console`]: the SPCR's UART ([`SPCR_UARTS`]), in system memory, not at 0 and
///   aligned to its access width; a 16550's register spacing (`reg_shift`) and access width
///   (`io_width`) from its Generic Address Structure as `ns16550` reads it (the larger of
///   bit width and access size is the spacing, the smaller the access). Without one (the SPCR
///   problems), the DBG2's first serial port of those types ([`Problem::ConsoleFromDbg2`]).
///   [`Platform::console_from_dtb`] says either was found. Without any
///   ([`Problem::AcpiNoConsole`]) the console stays QEMU virt's PL011, which the firmware
///   drives only where the machine is QEMU's.
/// - [`Platform::psci`]: the FADT's ARM boot flags, PSCI_COMPLIANT (bit 0) and PSCI_USE_HVC
///   (bit 1), read from FADT 5.1 on, or from an older FADT whose flags are not 0 (as Linux
///   does).
/// - [`Platform::cpus`]: one CPU per enabled MADT GICC entry, in MADT order: its MPIDR,
///   [`Enable::Psci`] when the FADT says PSCI, else [`Enable::Other`] (the parking protocol
///   is not supported). Entries neither enabled nor online capable, and online capable ones
///   not enabled, are counted in [`Facts`], not listed. At most
///   [`crate::platform::MAX_CPUS`], the rest counted in [`Platform::cpus_beyond_cap`].
/// - [`Platform::model`]: the root table's OEM ID and OEM table ID as the table holds them
///   (14 bytes, trimmed at both ends: `BOCHS BXPC` on QEMU), else either alone, else
///   `"unknown"`.
/// - [`Platform::emulated`] and [`Platform::qemu_mark`]: when a table read (the root, one it
///   lists, or the header of the DSDT the FADT points to) carries a simulator's IDs
///   (`simulator`: QEMU's `BOCHS ` `BXPC`, QEMU sbsa-ref's firmware's, an Arm FVP's), the
///   first found.
/// - [`Platform::acpi`]: the rest ([`Facts`]).
/// - Not set: `ram` (the UEFI memory map gives it: [`Platform::set_ram_regions`]),
///   `bootargs` (the UEFI load options give them), `reserved`, `dtb_ok`.
///
/// Of the tables the root lists, each is checked (header, length, checksum) and counted
/// once; the first valid FADT, MADT, SPCR and DBG2 are used. A table listed twice (by address),
/// a root table listed ([`Problem::AcpiTableRepeated`]), or a table past the first
/// [`MAX_TABLES`] ([`Problem::AcpiTooManyTables`]) is not read again. Not inlined: inside
/// the firmware's large entry function the same code takes more instructions.
#[inline(never)]
pub fn discover<'a, P: Phys + ?Sized>(mem: &'a P, rsdp: u64) -> Platform<'a> {
    let mut p = Platform::qemu_virt();
    let Some((root, kind)) = root(mem, rsdp, &mut p) else {
        return p;
    };
    p.tables = Tables::Acpi;
    p.acpi.root = Some(kind);
    p.acpi.oem_id = printable(root.oem_id()).unwrap_or_default();
    p.acpi.oem_table_id = printable(root.oem_table_id()).unwrap_or_default();
    p.model = root
        .bytes
        .get(10..24)
        .and_then(printable)
        .or_else(|| Some(p.acpi.oem_table_id).filter(|s| !s.is_empty()))
        .or_else(|| Some(p.acpi.oem_id).filter(|s| !s.is_empty()))
        .unwrap_or("unknown");
    let mut mark = simulator(root.bytes);

    let (mut fadt, mut madt, mut spcr, mut dbg2) = (None, None, None, None);
    let mut seen = [0u64; MAX_TABLES];
    let mut count = 0usize;
    for pa in entries(root, kind) {
        if pa == 0 {
            // Linux skips null entries too.
            continue;
        }
        let listed = seen.get(..count).unwrap_or_default();
        if pa == root.pa || listed.contains(&pa) {
            p.problems.insert(Problem::AcpiTableRepeated);
            continue;
        }
        let Some(slot) = seen.get_mut(count) else {
            p.problems.insert(Problem::AcpiTooManyTables);
            break;
        };
        *slot = pa;
        count = count.saturating_add(1);
        let t = match table(mem, pa) {
            Ok(t) => t,
            Err(why) => {
                p.problems.insert(why);
                continue;
            }
        };
        p.acpi.tables = p.acpi.tables.saturating_add(1);
        mark = mark.or_else(|| simulator(t.bytes));
        let slot = match &t.signature() {
            b"FACP" => &mut fadt,
            b"APIC" => &mut madt,
            b"SPCR" => &mut spcr,
            b"DBG2" => &mut dbg2,
            b"XSDT" | b"RSDT" => {
                p.problems.insert(Problem::AcpiTableRepeated);
                continue;
            }
            b"PPTT" => {
                p.acpi.pptt = Some(t.bytes);
                continue;
            }
            b"GTDT" => {
                let revision = u32_at(t.bytes, 24).unwrap_or(u32::MAX);
                p.acpi.timer_errata =
                    crate::counter::Errata::of_gtdt(t.oem_id(), t.oem_table_id(), revision);
                continue;
            }
            _ => continue,
        };
        if slot.is_some() {
            p.problems.insert(Problem::AcpiTableRepeated);
        } else {
            *slot = Some(t);
        }
    }
    if let Some(fadt) = fadt {
        // The DSDT is not listed: the FADT points to it. Only its header's IDs are read.
        let dsdt = u64_at(fadt.bytes, FADT_X_DSDT)
            .filter(|&a| a != 0)
            .or_else(|| u32_at(fadt.bytes, FADT_DSDT).map(u64::from));
        let header = dsdt.and_then(|pa| read(mem, pa, HEADER));
        mark = mark.or_else(|| {
            header
                .filter(|h| h.starts_with(b"DSDT"))
                .and_then(simulator)
        });
    }
    if mark.is_some() {
        p.qemu_mark = mark;
        p.emulated = true;
    }

    match fadt {
        Some(fadt) => {
            p.acpi.hypervisor_vendor =
                u64_at(fadt.bytes, FADT_HYPERVISOR_VENDOR).filter(|&v| v != 0);
            p.psci = psci(fadt, &mut p);
        }
        None => p.problems.insert(Problem::AcpiNoFadt),
    }
    match madt {
        Some(madt) => {
            p.acpi.madt = Some(madt.bytes);
            cpus(madt, &mut p)
        }
        None => p.problems.insert(Problem::AcpiNoMadt),
    }
    let from_spcr = match spcr {
        Some(t) => console(t.bytes).inspect(|_| p.acpi.console_baud = baud(t.bytes)),
        None => Err(Problem::AcpiNoSpcr),
    };
    let console = from_spcr.or_else(|why| {
        p.problems.insert(why);
        let port = dbg2.map_or(Ok(None), |t| dbg2_console(t.bytes))?;
        if port.is_some() {
            p.problems.insert(Problem::ConsoleFromDbg2);
        }
        port.ok_or(Problem::AcpiNoConsole)
    });
    match console {
        Ok(console) => {
            p.console = console;
            p.console_from_dtb = true;
        }
        Err(why) => {
            p.problems.insert(why);
            p.problems.insert(Problem::AcpiNoConsole);
        }
    }
    p
}

/// The PSCI conduit the FADT's ARM boot flags give.
fn psci(fadt: Table<'_>, p: &mut Platform<'_>) -> Option<PsciConduit> {
    let (Some(flags), Some(minor)) = (
        u16_at(fadt.bytes, FADT_ARM_BOOT_FLAGS),
        byte(fadt.bytes, FADT_MINOR_REVISION),
    ) else {
        p.problems.insert(Problem::AcpiFadtOld);
        return None;
    };
    let revision = fadt.revision();
    p.acpi.fadt_revision = Some((revision, minor));
    // ACPI 5.1 brought the ARM boot flags; Linux takes nonzero flags of an older FADT as 5.1.
    if (revision, minor) < (5, 1) && flags == 0 {
        p.problems.insert(Problem::AcpiFadtOld);
        return None;
    }
    if flags & FADT_PSCI_COMPLIANT == 0 {
        p.problems.insert(Problem::AcpiNoPsci);
        return None;
    }
    Some(if flags & FADT_PSCI_USE_HVC != 0 {
        PsciConduit::Hvc
    } else {
        PsciConduit::Smc
    })
}

/// The CPUs of the MADT's GICC entries.
fn cpus(madt: Table<'_>, p: &mut Platform<'_>) {
    let enable = if p.psci.is_some() {
        Enable::Psci
    } else {
        Enable::Other
    };
    for entry in giccs(madt.bytes) {
        match entry {
            Ok(entry) => gicc(entry, enable, p),
            Err(why) => p.problems.insert(why),
        }
    }
}

/// The GICC entries of the MADT `madt` (the whole table, header included), in order: `Ok`
/// with an entry of at least [`GICC_MIN_LEN`] bytes; [`Problem::AcpiMadtEntry`] for a GICC
/// entry shorter than that (skipped), and for an entry whose length is below 2 or runs past
/// the table (or a table too short for the entries' offset), after which the walk ends.
/// Every step moves forward by at least 2 bytes.
fn giccs(madt: &[u8]) -> impl Iterator<Item = Result<&[u8], Problem>> {
    // None: the walk has ended.
    let mut at = Some(MADT_ENTRIES);
    core::iter::from_fn(move || loop {
        let start = at.filter(|&a| a != madt.len())?;
        let entry = madt.get(start..).and_then(|rest| {
            let len = usize::from(byte(rest, 1)?);
            rest.get(..len).filter(|_| len >= 2)
        });
        let Some(entry) = entry else {
            at = None;
            return Some(Err(Problem::AcpiMadtEntry));
        };
        at = start.checked_add(entry.len());
        if byte(entry, 0) != Some(MADT_GICC) {
            continue;
        }
        return Some(if entry.len() < GICC_MIN_LEN {
            Err(Problem::AcpiMadtEntry)
        } else {
            Ok(entry)
        });
    })
}

/// A processor of the MADT: an enabled GICC entry's ACPI Processor UID and MPIDR.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Processor {
    /// Its ACPI Processor UID (the GICC's, at offset 8), which the PPTT's processor nodes
    /// name ([`crate::topology`]).
    pub uid: u32,
    /// Its MPIDR affinity (Aff3 and Aff2..Aff0).
    pub mpidr: u64,
}

/// The processors of the MADT `madt` (the whole table, header included), in table order: the
/// GICC entries [`discover`] lists as CPUs (enabled, at least 76 bytes, an MPIDR
/// with no bits outside the affinity fields), with their ACPI Processor UIDs. Repeats are left
/// to the caller; malformed entries end or skip as [`discover`] reads them.
pub fn processors(madt: &[u8]) -> impl Iterator<Item = Processor> + '_ {
    giccs(madt).filter_map(|entry| {
        let entry = entry.ok()?;
        let enabled = u32_at(entry, GICC_FLAGS)? & GICC_ENABLED != 0;
        let mpidr = u64_at(entry, GICC_MPIDR).filter(|m| m & !MPIDR_AFFINITY == 0)?;
        let uid = u32_at(entry, GICC_UID)?;
        enabled.then_some(Processor { uid, mpidr })
    })
}

/// One GICC entry, at least [`GICC_MIN_LEN`] bytes.
fn gicc(entry: &[u8], enable: Enable, p: &mut Platform<'_>) {
    p.acpi.gicc_entries = p.acpi.gicc_entries.saturating_add(1);
    let flags = u32_at(entry, GICC_FLAGS).unwrap_or(0);
    if flags & GICC_ENABLED == 0 {
        let counter = if flags & GICC_ONLINE_CAPABLE != 0 {
            &mut p.acpi.cpus_online_capable
        } else {
            &mut p.acpi.cpus_disabled
        };
        *counter = counter.saturating_add(1);
        return;
    }
    let Some(mpidr) = u64_at(entry, GICC_MPIDR)
        .filter(|m| m & !MPIDR_AFFINITY == 0 && !p.cpus().iter().any(|c| c.mpidr == *m))
    else {
        p.problems.insert(Problem::AcpiMadtMpidr);
        return;
    };
    let parking = u32_at(entry, GICC_PARKING_VERSION).unwrap_or(0);
    let parked = u64_at(entry, GICC_PARKED_ADDRESS).unwrap_or(0);
    if parking != 0 && parked != 0 {
        p.acpi.cpus_parked = p.acpi.cpus_parked.saturating_add(1);
    }
    p.push_cpu(Cpu { mpidr, enable });
}

/// The console the SPCR describes.
fn console(spcr: &[u8]) -> Result<ConsoleInfo, Problem> {
    if spcr.len() < SPCR_MIN_LEN {
        return Err(Problem::AcpiSpcrShort);
    }
    let gas = spcr.get(SPCR_BASE_ADDRESS..SPCR_BASE_ADDRESS.saturating_add(GAS_LEN));
    uart(
        byte(spcr, SPCR_INTERFACE_TYPE).unwrap_or(0xff),
        gas.unwrap_or_default(),
    )
}

/// The UART of interface type `interface` (an SPCR's, or a DBG2 serial port's subtype) whose
/// registers the 12-byte Generic Address Structure `gas` locates: [`SPCR_UARTS`]'s kind, in
/// system memory, not at 0, aligned to its access width, its registers below 2^64.
fn uart(interface: u8, gas: &[u8]) -> Result<ConsoleInfo, Problem> {
    let [space, bit_width, _bit_offset, access_size] = array(gas, 0).unwrap_or([0xff; 4]);
    let mut base = u64_at(gas, 4).unwrap_or(0);
    let kind = SPCR_UARTS
        .iter()
        .find(|&&(t, _)| t == interface)
        .map(|&(_, kind)| kind)
        .ok_or(Problem::AcpiSpcrUnsupported)?;
    if space != GAS_SYSTEM_MEMORY || base == 0 {
        return Err(Problem::AcpiSpcrAddress);
    }
    let kind = match kind {
        _ if interface == BCM2835 => {
            base = base.saturating_add(MINI_UART_REGS);
            kind
        }
        ConsoleKind::Ns16550 { .. } => {
            ns16550(bit_width, access_size).ok_or(Problem::AcpiSpcrUnsupported)?
        }
        kind => kind,
    };
    let align = match kind {
        ConsoleKind::Ns16550 { io_width, .. } => u64::from(io_width),
        // The PL011, SBSA and GENI drivers make 32-bit accesses.
        _ => 4,
    };
    if !base.is_multiple_of(align) || base.checked_add(kind.register_span()).is_none() {
        return Err(Problem::AcpiSpcrAddress);
    }
    Ok(ConsoleInfo { kind, base })
}

/// The DBG2's first serial port ([`DBG2_SERIAL`]) that [`uart`] drives from its first
/// Generic Address Structure, when its first address size (when not 0) holds the driver's
/// registers. Ports of other types or subtypes, or of another address space, are skipped.
/// Every structure's offsets and lengths are checked against the table and the structure:
/// one running past either is [`Problem::AcpiDbg2`], and then no port is used. The walk moves
/// forward by at least [`DBG2_DEV_MIN_LEN`] bytes a structure, so it ends within the table's
/// length (at most [`MAX_TABLE_LEN`]) whatever the count says.
fn dbg2_console(dbg2: &[u8]) -> Result<Option<ConsoleInfo>, Problem> {
    let (Some(mut at), Some(count)) = (
        u32_at(dbg2, DBG2_OFFSET_INFO).and_then(|a| usize::try_from(a).ok()),
        u32_at(dbg2, DBG2_NUMBER_INFO),
    ) else {
        return Err(Problem::AcpiDbg2);
    };
    let mut found = None;
    for _ in 0..count {
        let len = u16_at(dbg2, at.saturating_add(DBG2_DEV_LENGTH)).map_or(0, usize::from);
        let dev = dbg2
            .get(at..at.saturating_add(len))
            .filter(|_| len >= DBG2_DEV_MIN_LEN)
            .ok_or(Problem::AcpiDbg2)?;
        at = at.saturating_add(len);
        if byte(dev, DBG2_DEV_GAS_COUNT) == Some(0) {
            continue;
        }
        let field = |off| u16_at(dev, off).map_or(0, usize::from);
        let (gas_at, size_at) = (field(DBG2_DEV_BASE_OFFSET), field(DBG2_DEV_SIZE_OFFSET));
        let (Some(gas), Some(size)) = (
            dev.get(gas_at..gas_at.saturating_add(GAS_LEN)),
            u32_at(dev, size_at),
        ) else {
            return Err(Problem::AcpiDbg2);
        };
        let serial = field(DBG2_DEV_PORT_TYPE) == usize::from(DBG2_SERIAL);
        let subtype = u8::try_from(field(DBG2_DEV_PORT_SUBTYPE)).ok();
        let Some(c) = subtype.filter(|_| serial).and_then(|t| uart(t, gas).ok()) else {
            continue;
        };
        let reach = c.base.saturating_sub(u64_at(gas, 4).unwrap_or(0));
        if size == 0 || reach.saturating_add(c.kind.register_span()) <= u64::from(size) {
            found = found.or(Some(c));
        }
    }
    Ok(found)
}

/// A 16550's register spacing and access width from the GAS; see [`discover`].
///
/// The register bit width and the access size each give a size: bit width 8, 16, 32 (0:
/// undefined; 64 and others not driven) and access size byte, word, dword (0: undefined; qword
/// and above are taken as byte, as Linux takes them). With both defined, the larger is the
/// register spacing and the smaller the width of each access: an access wider than the
/// spacing would straddle registers, so the two readings in use cannot both apply.
/// - U-Boot's writer (`acpi_write_spcr`) puts the spacing (`reg-shift`) in the access size and
///   `reg-io-width` in the bit width: dword and 8 is byte accesses 4 bytes apart.
/// - FreeBSD's reader (`sys/dev/uart/uart_cpu_acpi.c`, `uart_cpu_acpi_spcr`) takes the bit
///   width as the spacing (`regshft`) and the access size as the access (`regiowidth`);
///   NetBSD's (`sys/arch/arm/acpi/acpi_platform.c`, `acpi_platform_attach_uart`) takes the
///   bit width as the spacing (`com_init_regs_stride`) with byte accesses. Both read it as
///   Marvell's EDK2 writes its 16550s (edk2-platforms `Silicon/Marvell/Armada7k8k/AcpiTables/
///   AcpiHeader.h`, `MV_UART_AS32`: bit width 32, byte access, on the MACCHIATObin and
///   CN9130, whose UARTs Linux's device trees give `reg-shift = <2>`, `reg-io-width = <1>`):
///   byte accesses 4 bytes apart, again.
/// - Linux's reader (`drivers/acpi/spcr.c`, `acpi_parse_spcr`) looks at the access size only
///   (byte: `mmio`, word: `mmio16`, dword: `mmio32`, whose earlycon spacing is the access
///   width), so it reads Marvell's tables as byte accesses 1 byte apart.
///
/// Where the readings part, this follows the BSDs' and U-Boot's. The exception known:
/// QEMU's own 16550 SPCR for RISC-V `virt` (`hw/riscv/virt-acpi-build.c`, `spcr_setup`:
/// type 0x12, bit width 32, byte access) describes an NS16550A whose registers are 1 byte
/// apart, which Linux's reading gets right and this one would not; QEMU's Arm machines
/// describe a PL011, so no table this firmware meets is known to be written that way.
///
/// With one undefined, the other is the spacing, and accesses are 32-bit when that is 4 bytes
/// (as Linux's `mmio32`), else byte.
fn ns16550(bit_width: u8, access_size: u8) -> Option<ConsoleKind> {
    // log2 of the sizes in bytes.
    let width = match bit_width {
        0 => None,
        8 => Some(0u8),
        16 => Some(1),
        32 => Some(2),
        _ => return None,
    };
    let access = match access_size {
        0 => None,
        1..=3 => Some(access_size.saturating_sub(1)),
        _ => Some(0),
    };
    let (reg_shift, access) = match (width, access) {
        (Some(w), Some(a)) => (w.max(a), w.min(a)),
        (Some(one), None) | (None, Some(one)) => (one, if one == 2 { 2 } else { 0 }),
        (None, None) => (0, 0),
    };
    let io_width = match access {
        0 => 1,
        2 => 4,
        // 16-bit accesses are not driven.
        _ => return None,
    };
    Some(ConsoleKind::Ns16550 {
        reg_shift,
        io_width,
    })
}

/// The SPCR's baud rate; see [`Facts::console_baud`].
fn baud(spcr: &[u8]) -> Option<u32> {
    if let Some(precise) = u32_at(spcr, SPCR_PRECISE_BAUD_RATE).filter(|&b| b != 0) {
        if spcr.len() >= SPCR_PRECISE_BAUD_RATE.saturating_add(4) {
            return Some(precise);
        }
    }
    match byte(spcr, SPCR_BAUD_RATE)? {
        3 => Some(9600),
        4 => Some(19200),
        6 => Some(57600),
        7 => Some(115_200),
        _ => None,
    }
}
