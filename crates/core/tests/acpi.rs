//! ACPI discovery (`mairbench_core::acpi::discover`) on QEMU's real tables, on synthetic
//! tables shaped like real boards', and on broken ones: each problem is named, the defaults
//! stay, nothing panics or hangs.

#[path = "acpi/tables.rs"]
mod tables;

use mairbench_core::acpi::{self, discover, Facts, Phys, Root, Window, MAX_TABLES, QEMU_MARK};
use mairbench_core::emulation::Emulation;
use mairbench_core::platform::{
    ConsoleInfo, ConsoleKind, Cpu, Enable, Platform, Problem, PsciConduit, Tables, MAX_CPUS,
    QEMU_VIRT,
};
use tables::*;

fn problems(p: &Platform<'_>) -> Vec<Problem> {
    p.problems.iter().collect()
}

fn psci_cpus(mpidrs: impl IntoIterator<Item = u64>) -> Vec<Cpu> {
    mpidrs
        .into_iter()
        .map(|mpidr| Cpu {
            mpidr,
            enable: Enable::Psci,
        })
        .collect()
}

const PL011_QEMU: ConsoleInfo = ConsoleInfo {
    kind: ConsoleKind::Pl011,
    base: 0x0900_0000,
};

/// A server-like board: FADT 6.3 with PSCI over SMC, a MADT of `cpus`, an SPCR.
fn board(cpus: &[Vec<u8>], spcr_table: Vec<u8>) -> Mem {
    let mut entries = vec![gicd()];
    entries.extend(cpus.iter().cloned());
    assemble(&[fadt(6, 3, 1), madt(&entries), spcr_table]).0
}

fn pl011_board() -> Mem {
    board(
        &[gicc(0, 0, ENABLED), gicc(1, 1, ENABLED)],
        spcr(0x03, mmio32(0x0900_0000), 7),
    )
}

#[test]
fn qemu_virt_under_edk2() {
    // QEMU 10.0.2 virt, -cpu max -smp 4, EDK2's tables as it installed them (dump.sh).
    let (mem, rsdp) = qemu("qemu-virt");
    let p = discover(mem.as_slice(), rsdp);
    assert_eq!(problems(&p), []);
    assert_eq!(p.tables, Tables::Acpi);
    assert_eq!(p.console, PL011_QEMU);
    assert!(p.console_from_dtb);
    assert_eq!(p.psci, Some(PsciConduit::Hvc));
    assert_eq!(p.cpus(), psci_cpus(0..4));
    assert_eq!(p.cpus_beyond_cap, 0);
    assert_eq!(p.model, "BOCHS BXPC");
    assert!(p.emulated);
    assert_eq!(p.qemu_mark, Some(QEMU_MARK));
    assert!(!p.dtb_ok && !p.ram_from_dtb);
    assert_eq!(p.ram, QEMU_VIRT.ram);
    assert_eq!(p.bootargs, "");
    assert_eq!(
        p.acpi,
        Facts {
            rsdp_revision: Some(2),
            root: Some(Root::Xsdt),
            oem_id: "BOCHS",
            oem_table_id: "BXPC",
            // FACP APIC PPTT GTDT MCFG SPCR DBG2 IORT
            tables: 8,
            fadt_revision: Some((6, 3)),
            // QEMU's SPCR says 9600 (configured baud rate 3).
            console_baud: Some(9600),
            gicc_entries: 4,
            // QEMU's FADT names its VMM in the Hypervisor Vendor Identity: "QEMU".
            hypervisor_vendor: Some(u64::from_le_bytes(*b"QEMU\0\0\0\0")),
            // The MADT and the PPTT, whole (the clusters are read from them).
            madt: p.acpi.madt.filter(|t| t.starts_with(b"APIC")),
            pptt: p.acpi.pptt.filter(|t| t.starts_with(b"PPTT")),
            ..Facts::NONE
        }
    );
    assert!(p.acpi.madt.is_some() && p.acpi.pptt.is_some());
    let e = Emulation::of(&p, None);
    assert!(e.emulated());
    assert_eq!(e.by().collect::<Vec<_>>(), ["acpi"]);
    assert_eq!(
        e.to_string(),
        "ACPI tables: OEM ID BOCHS and OEM table ID BXPC"
    );
    let e = Emulation::of(&p, Some("qemu-10.0.2"));
    assert_eq!(e.by().collect::<Vec<_>>(), ["bootarg", "acpi"]);
    assert_eq!(
        e.to_string(),
        "mairbench.host=qemu-10.0.2 (the runner); ACPI tables: OEM ID BOCHS and OEM table ID \
         BXPC"
    );
}

#[test]
fn qemu_virt_at_el2_with_20_cpus() {
    // virtualization=on: QEMU's PSCI is at EL3's place, over SMC. GICv3 clusters of 16.
    let (mem, rsdp) = qemu("qemu-virt-el2-gicv3-20cpus");
    let p = discover(mem.as_slice(), rsdp);
    assert_eq!(problems(&p), []);
    assert_eq!(p.psci, Some(PsciConduit::Smc));
    assert_eq!(p.cpus(), psci_cpus((0..16).chain(0x100..0x104)));
    assert_eq!(p.console, PL011_QEMU);
    assert!(p.emulated);
    assert_eq!(p.acpi.gicc_entries, 20);
}

#[test]
fn qemu_tables_reassembled_and_through_an_rsdt() {
    // QEMU's FADT, MADT and SPCR at other addresses, under a root table of our own (not
    // QEMU's OEM ID: the tables themselves still mark QEMU).
    let name = "qemu-virt";
    let real = [
        qemu_table(name, "FACP"),
        qemu_table(name, "APIC"),
        qemu_table(name, "SPCR"),
    ];
    let (mem, addresses) = assemble(&real);
    let p = discover(&mem, RSDP);
    assert_eq!(problems(&p), []);
    assert_eq!(p.console, PL011_QEMU);
    assert_eq!(p.psci, Some(PsciConduit::Hvc));
    assert_eq!(p.cpus(), psci_cpus(0..4));
    assert_eq!(p.model, "MBTESTBOARD");
    assert!(p.emulated);
    assert_eq!(p.acpi.tables, 3);

    // ACPI 1.0: an RSDP of revision 0 and an RSDT.
    let mut mem = mem.clone();
    let rsdt_at = mem.bytes.len() as u64;
    let entries: Vec<u32> = addresses.iter().map(|&a| a as u32).collect();
    mem.bytes.extend(rsdt(OEM, &entries));
    let r = rsdp(0, (BASE + rsdt_at) as u32, 0);
    mem.bytes[..36].fill(0);
    mem.bytes[..20].copy_from_slice(&r);
    let q = discover(&mem, RSDP);
    assert_eq!(problems(&q), []);
    assert_eq!(q.acpi.root, Some(Root::Rsdt));
    assert_eq!(q.acpi.rsdp_revision, Some(0));
    assert_eq!((q.console, q.psci, q.cpus()), (p.console, p.psci, p.cpus()));
}

#[test]
fn a_server_with_an_sbsa_uart_high_up_and_80_cpus() {
    // Synthetic, shaped like an Arm server's tables (Ampere Altra-like): an SBSA generic UART
    // above 4 GiB, 80 CPUs two per cluster (MPIDR Aff2 from 8, Aff1 0 or 1), PSCI over SMC.
    let mpidr = |i: u64| ((8 + i / 2) << 16) | ((i % 2) << 8);
    let cpus: Vec<_> = (0..80).map(|i| gicc(i as u32, mpidr(i), ENABLED)).collect();
    let mut mem = board(&cpus, spcr(0x0e, mmio32(0x1000_0260_0000), 7));
    // The root table's OEM ID and OEM table ID.
    patch(&mut mem, XSDT + 10, b"AmpereAltra   ");
    let xsdt = (XSDT - BASE) as usize;
    fix_checksum(&mut mem.bytes[xsdt..xsdt + 36 + 3 * 8]);
    let p = discover(&mem, RSDP);
    assert_eq!(problems(&p), []);
    assert_eq!(
        p.console,
        ConsoleInfo {
            kind: ConsoleKind::SbsaUart,
            base: 0x1000_0260_0000
        }
    );
    assert_eq!(p.psci, Some(PsciConduit::Smc));
    assert_eq!(p.cpus().len(), 80);
    assert_eq!(&p.cpus()[..3], psci_cpus([0x80000, 0x80100, 0x90000]));
    assert_eq!(p.cpus()[79].mpidr, 0x2f0100);
    // The 6-byte OEM ID runs into the table ID: the model is the bytes as they are.
    assert_eq!(p.model, "AmpereAltra");
    assert_eq!((p.acpi.oem_id, p.acpi.oem_table_id), ("Ampere", "Altra"));
    assert!(!p.emulated && p.qemu_mark.is_none());
    assert_eq!(p.acpi.console_baud, Some(115_200));
    assert_eq!(
        Emulation::of(&p, None).to_string(),
        "not emulated",
        "nothing marks QEMU"
    );
}

#[test]
fn sixteen_550s_take_their_widths_from_the_generic_address_structure() {
    // Synthetic SPCRs. (bit width, access size) -> (reg_shift, io_width), or unsupported.
    type Widths = Option<(u8, u8)>;
    let cases: [(u8, u8, u8, Widths); 15] = [
        // A DesignWare APB UART as U-Boot writes it: 32-bit registers 4 bytes apart.
        (0x12, 32, 3, Some((2, 4))),
        (0x00, 32, 3, Some((2, 4))),
        // reg-shift 2, reg-io-width 1 (TI, Tegra) as U-Boot writes it.
        (0x00, 8, 3, Some((2, 1))),
        (0x05, 8, 3, Some((2, 1))),
        // A PC-style 16550: bytes, byte apart.
        (0x01, 8, 1, Some((0, 1))),
        // Registers 2 bytes apart, byte accesses.
        (0x00, 8, 2, Some((1, 1))),
        // Access size undefined: from the bit width, and the other way round.
        (0x00, 32, 0, Some((2, 4))),
        (0x00, 8, 0, Some((0, 1))),
        (0x00, 0, 3, Some((2, 4))),
        (0x00, 0, 0, Some((0, 1))),
        // A qword access size is taken as byte (as Linux does).
        (0x00, 8, 4, Some((0, 1))),
        // Marvell's EDK2 (MACCHIATObin, CN9130): 32-bit registers, byte access: byte accesses
        // 4 bytes apart, as FreeBSD reads it (Linux would make them 1 byte apart).
        (0x01, 32, 1, Some((2, 1))),
        // Word accesses, or 16-bit registers with them; 64-bit registers.
        (0x00, 16, 2, None),
        (0x00, 32, 2, None),
        (0x12, 64, 4, None),
    ];
    for (interface, bit_width, access_size, expected) in cases {
        let gas = Gas {
            space: 0,
            bit_width,
            access_size,
            address: 0xfe21_5040,
        };
        let mem = board(&[gicc(0, 0, ENABLED)], spcr(interface, gas, 0));
        let p = discover(&mem, RSDP);
        let case = format!("type {interface:#x}, bit width {bit_width}, access {access_size}");
        match expected {
            Some((reg_shift, io_width)) => {
                assert_eq!(problems(&p), [], "{case}");
                assert_eq!(
                    p.console,
                    ConsoleInfo {
                        kind: ConsoleKind::Ns16550 {
                            reg_shift,
                            io_width
                        },
                        base: 0xfe21_5040
                    },
                    "{case}"
                );
                assert!(p.console_from_dtb);
                assert_eq!(p.acpi.console_baud, None, "baud 0: as the firmware left it");
            }
            None => {
                assert_eq!(
                    problems(&p),
                    [Problem::AcpiSpcrUnsupported, Problem::AcpiNoConsole],
                    "{case}"
                );
                assert_eq!(p.console, QEMU_VIRT.console, "{case}");
                assert!(!p.console_from_dtb);
            }
        }
    }
}

#[test]
fn every_spcr_row_maps_to_its_kind() {
    for &(interface, kind) in &acpi::SPCR_UARTS {
        let mem = board(&[], spcr(interface, mmio32(0x1c09_0000), 7));
        let p = discover(&mem, RSDP);
        let expected = match kind {
            ConsoleKind::Ns16550 { .. } => ConsoleKind::Ns16550 {
                reg_shift: 2,
                io_width: 4,
            },
            kind => kind,
        };
        assert_eq!(problems(&p), [], "type {interface:#x}");
        assert_eq!(p.console.kind, expected, "type {interface:#x}");
        assert_eq!(p.console.kind.name(), kind.name());
    }
    // Interface types not driven: MAX311xE SPI (0x02), MSM8x60 (0x04), DCC (0x0f), RISC-V SBI
    // (0x15), unassigned (0xff).
    for interface in [0x02, 0x04, 0x0f, 0x15, 0xff] {
        let mem = board(&[], spcr(interface, mmio32(0x1c09_0000), 7));
        assert_eq!(
            problems(&discover(&mem, RSDP)),
            [Problem::AcpiSpcrUnsupported, Problem::AcpiNoConsole],
            "type {interface:#x}"
        );
    }
}

/// The GAS Windows-on-Arm firmware writes for its GENI console: 32-bit registers and an access
/// size ACPI does not define (0x20), as the SPCRs of an SM8250 (edk2-msm) and a Dell XPS 13
/// 9345 (X1E80100, aarch64-laptops) disassemble.
fn geni_gas(address: u64) -> Gas {
    Gas {
        space: 0,
        bit_width: 32,
        access_size: 0x20,
        address,
    }
}

#[test]
fn geni_consoles_from_spcr_and_dbg2() {
    // SM8250 (type 0x11, the engine of Linux's uart12 at 0xa90000) and X1E80100 (0x13, uart21 at
    // 0x894000), both as the SPCR and as the DBG2's only port.
    for (interface, base) in [(0x11, 0x00a9_0000), (0x13, 0x0089_4000)] {
        let geni = ConsoleInfo {
            kind: ConsoleKind::Geni,
            base,
        };
        let mem = board(&[gicc(0, 0, ENABLED)], spcr(interface, geni_gas(base), 7));
        let p = discover(&mem, RSDP);
        assert_eq!(problems(&p), [], "type {interface:#x}");
        assert_eq!((p.console, p.console_from_dtb), (geni, true));
        let port = dbg2_device(DBG2_SERIAL, interface.into(), geni_gas(base), 0x4000);
        let (mem, _) = assemble(&[fadt(6, 3, 1), dbg2(OEM, &[port])]);
        let p = discover(&mem, RSDP);
        assert_eq!(
            problems(&p),
            [
                Problem::AcpiNoSpcr,
                Problem::ConsoleFromDbg2,
                Problem::AcpiNoMadt
            ]
        );
        assert_eq!((p.console, p.console_from_dtb), (geni, true));
        assert_eq!(p.acpi.console_baud, None, "DBG2 gives no baud rate");
    }
    // A serial engine's address size smaller than the registers the driver touches: skipped.
    let small = dbg2_device(DBG2_SERIAL, 0x13, geni_gas(0x0089_4000), 0x800);
    let (mem, _) = assemble(&[dbg2(OEM, &[small])]);
    let p = discover(&mem, RSDP);
    assert!(p.problems.contains(Problem::AcpiNoConsole));
    assert!(!p.console_from_dtb);
}

#[test]
fn the_raspberry_pi_mini_uart() {
    // EDK2's Raspberry Pi 3 SPCR: type 0x10 at the auxiliary block (ARM_GAS32: 32-bit, dword),
    // whose mini-UART registers start 0x40 further.
    let gas = mmio32(0x3f21_5000);
    let mini_uart = ConsoleInfo {
        kind: ConsoleKind::Ns16550 {
            reg_shift: 2,
            io_width: 4,
        },
        base: 0x3f21_5040,
    };
    let mem = board(&[], spcr(0x10, gas, 7));
    let p = discover(&mem, RSDP);
    assert_eq!(problems(&p), []);
    assert_eq!(p.console, mini_uart);
    assert_eq!(acpi::MINI_UART_REGS, 0x40);
    // Whatever widths the GAS gives: the mini-UART has only one layout.
    let byte = Gas {
        bit_width: 8,
        access_size: 1,
        ..gas
    };
    let mem = board(&[], spcr(0x10, byte, 7));
    assert_eq!(discover(&mem, RSDP).console, mini_uart);
    // The same port in a DBG2 (BCM2836_MINI_UART_LENGTH, 0x70 bytes).
    let port = dbg2_device(DBG2_SERIAL, 0x10, gas, 0x70);
    let (mem, _) = assemble(&[dbg2(OEM, &[port])]);
    let p = discover(&mem, RSDP);
    assert_eq!(p.console, mini_uart);
    assert!(p.problems.contains(Problem::ConsoleFromDbg2));
}

#[test]
fn spaced_sixteen_550s() {
    // The MACCHIATObin's and CN9130's SPCR (edk2-platforms MV_UART_AS32): type 0x01, bit width
    // 32, byte access, at the AP806 UART0 (0xf0512000): byte accesses 4 bytes apart.
    let marvell = Gas {
        space: 0,
        bit_width: 32,
        access_size: 1,
        address: 0xf051_2000,
    };
    let spaced = ConsoleInfo {
        kind: ConsoleKind::Ns16550 {
            reg_shift: 2,
            io_width: 1,
        },
        base: 0xf051_2000,
    };
    let mem = board(&[], spcr(0x01, marvell, 0));
    let p = discover(&mem, RSDP);
    assert_eq!((problems(&p), p.console), (vec![], spaced));
    // U-Boot's writer says the same UART the other way round: dword access, 8-bit registers.
    let u_boot = Gas {
        bit_width: 8,
        access_size: 3,
        ..marvell
    };
    let mem = board(&[], spcr(0x00, u_boot, 0));
    assert_eq!(discover(&mem, RSDP).console, spaced);
    // QEMU's shape, byte registers and accesses (its PL011 SPCR's GAS, on a 16550): byte apart.
    let qemu = Gas {
        bit_width: 8,
        access_size: 1,
        ..marvell
    };
    let mem = board(&[], spcr(0x12, qemu, 0));
    let p = discover(&mem, RSDP);
    assert_eq!(
        p.console.kind,
        ConsoleKind::Ns16550 {
            reg_shift: 0,
            io_width: 1
        }
    );
    // QEMU's RISC-V virt SPCR (type 0x12, bit width 32, byte access) is read the Marvell way,
    // although its NS16550A's registers are 1 byte apart: the known exception (acpi.rs,
    // `ns16550`), pinned here so that a change to it is deliberate.
    let riscv = Gas {
        address: 0x1000_0000,
        ..marvell
    };
    let mem = board(&[], spcr(0x12, riscv, 7));
    let p = discover(&mem, RSDP);
    assert_eq!(p.console.kind, spaced.kind);
}

#[test]
fn consoles_from_dbg2() {
    let pl011 = |base| dbg2_serial(0x03, mmio32(base));
    // No SPCR; the DBG2 lists a network port (type 0x8002), a serial port of a subtype not driven
    // (DCC), one in I/O port space, then two PL011s: the first PL011 is used.
    let net = dbg2_device(0x8002, 0x0000, mmio32(0x4000_0000), 0x1000);
    let dcc = dbg2_serial(0x0f, mmio32(0x4100_0000));
    let io = dbg2_serial(
        0x00,
        Gas {
            space: 1,
            bit_width: 8,
            access_size: 1,
            address: 0x3f8,
        },
    );
    let ports = [net, dcc, io, pl011(0x021c_0000), pl011(0x021d_0000)];
    let (mem, _) = assemble(&[
        fadt(6, 3, 1),
        madt(&[gicc(0, 0, ENABLED)]),
        dbg2(OEM, &ports),
    ]);
    let p = discover(&mem, RSDP);
    assert_eq!(
        problems(&p),
        [Problem::AcpiNoSpcr, Problem::ConsoleFromDbg2]
    );
    let expected = ConsoleInfo {
        kind: ConsoleKind::Pl011,
        base: 0x021c_0000,
    };
    assert_eq!((p.console, p.console_from_dtb), (expected, true));
    assert!(Problem::ConsoleFromDbg2
        .message()
        .contains("maybe not the board's console"));
    // An SPCR of a type not driven (DCC): the DBG2's port, both problems named.
    let (mem, _) = assemble(&[
        spcr(0x0f, mmio32(0x4100_0000), 7),
        dbg2(OEM, &[pl011(0x021c_0000)]),
    ]);
    let p = discover(&mem, RSDP);
    assert_eq!(p.console, expected);
    assert!(p.problems.contains(Problem::AcpiSpcrUnsupported));
    assert!(p.problems.contains(Problem::ConsoleFromDbg2));
    assert!(!p.problems.contains(Problem::AcpiNoConsole));
    // A usable SPCR wins: the DBG2 is not read.
    let (mem, _) = assemble(&[
        spcr(0x03, mmio32(0x0900_0000), 7),
        dbg2(OEM, &[pl011(0x021c_0000)]),
    ]);
    let p = discover(&mem, RSDP);
    assert_eq!(
        (problems(&p), p.console),
        (vec![Problem::AcpiNoMadt, Problem::AcpiNoFadt], PL011_QEMU)
    );
    // Nothing driven in the DBG2, or no port, or no structure at all, or a port without any
    // Generic Address Structure: no console.
    for ports in [
        vec![dbg2_serial(0x0f, mmio32(0x4100_0000))],
        vec![],
        vec![{
            let mut d = pl011(0x021c_0000);
            d[3] = 0;
            d
        }],
    ] {
        let (mem, _) = assemble(&[dbg2(OEM, &ports)]);
        let p = discover(&mem, RSDP);
        assert_eq!(
            problems(&p),
            [
                Problem::AcpiNoSpcr,
                Problem::AcpiNoConsole,
                Problem::AcpiNoMadt,
                Problem::AcpiNoFadt
            ]
        );
        assert_eq!((p.console, p.console_from_dtb), (QEMU_VIRT.console, false));
    }
    // Two DBG2s: the first is used.
    let (mem, _) = assemble(&[dbg2(OEM, &[pl011(0x021c_0000)]), dbg2(OEM, &[pl011(0x1)])]);
    let p = discover(&mem, RSDP);
    assert_eq!(p.console, expected);
    assert!(p.problems.contains(Problem::AcpiTableRepeated));
}

#[test]
fn qemu_virt_dbg2_without_its_spcr() {
    // QEMU 10.0.2 virt's own tables, its SPCR's interface type made one not driven: QEMU's DBG2
    // gives the same PL011.
    let (mut mem, rsdp) = qemu("qemu-virt");
    let spcr = mem
        .iter_mut()
        .find(|w| w.bytes.starts_with(b"SPCR"))
        .expect("QEMU writes an SPCR");
    spcr.bytes[36] = 0xff;
    fix_checksum(&mut spcr.bytes);
    let p = discover(mem.as_slice(), rsdp);
    assert_eq!(
        problems(&p),
        [Problem::AcpiSpcrUnsupported, Problem::ConsoleFromDbg2]
    );
    assert_eq!((p.console, p.console_from_dtb), (PL011_QEMU, true));
    assert!(p.emulated);
}

#[test]
fn malformed_dbg2s() {
    let good = dbg2(OEM, &[dbg2_serial(0x03, mmio32(0x021c_0000))]);
    let run = |t: Vec<u8>| {
        let (mem, _) = assemble(&[fadt(6, 3, 1), madt(&[gicc(0, 0, ENABLED)]), t]);
        let p = discover(&mem, RSDP);
        assert_eq!((p.console, p.console_from_dtb), (QEMU_VIRT.console, false));
        assert_eq!(p.cpus().len(), 1, "the other tables are read");
        problems(&p)
    };
    let malformed = [
        Problem::AcpiNoSpcr,
        Problem::AcpiDbg2,
        Problem::AcpiNoConsole,
    ];
    let patched = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut t = good.clone();
        f(&mut t);
        fix_checksum(&mut t);
        run(t)
    };
    let put16 =
        |t: &mut Vec<u8>, at: usize, v: u16| t[at..at + 2].copy_from_slice(&v.to_le_bytes());
    let put32 =
        |t: &mut Vec<u8>, at: usize, v: u32| t[at..at + 4].copy_from_slice(&v.to_le_bytes());
    // The structure (at 44) and its fields.
    type Patch<'a> = &'a dyn Fn(&mut Vec<u8>);
    let cases: [(&str, Patch); 9] = [
        ("first structure past the table", &|t| put32(t, 36, 0x1000)),
        ("first structure at u32::MAX", &|t| put32(t, 36, u32::MAX)),
        ("more structures than the table holds", &|t| put32(t, 40, 2)),
        ("a count of u32::MAX", &|t| put32(t, 40, u32::MAX)),
        ("structure length 0", &|t| put16(t, 44 + 1, 0)),
        ("structure length below 22", &|t| put16(t, 44 + 1, 21)),
        ("structure longer than the table", &|t| {
            put16(t, 44 + 1, 0x200)
        }),
        ("GAS past the structure", &|t| put16(t, 44 + 18, 36)),
        ("address size past the structure", &|t| {
            put16(t, 44 + 20, 37)
        }),
    ];
    for (what, f) in cases {
        assert_eq!(patched(f), malformed, "{what}");
    }
    // A table too short for its count: its fixed part ends at 40.
    let short = table(b"DBG2", 0, OEM, &44u32.to_le_bytes());
    assert_eq!(run(short), malformed, "no NumberDbgDeviceInfo");
    // Bytes after the last structure, and a subtype above 0xff: fine, and not driven.
    let mut t = good.clone();
    t.extend([0; 7]);
    let len = t.len() as u32;
    t[4..8].copy_from_slice(&len.to_le_bytes());
    fix_checksum(&mut t);
    let (mem, _) = assemble(&[t]);
    assert!(discover(&mem, RSDP)
        .problems
        .contains(Problem::ConsoleFromDbg2));
    let wide = dbg2(OEM, &[dbg2_serial(0x0103, mmio32(0x021c_0000))]);
    assert_eq!(
        run(wide),
        [Problem::AcpiNoSpcr, Problem::AcpiNoConsole],
        "subtype 0x103 is not 0x03"
    );
}

#[test]
fn simulators_are_marked_emulated() {
    const SBSA_REF: (&[u8; 6], &[u8; 8]) = (b"LINARO", b"SBSAQEMU");
    const ARMLTD_FADT: (&[u8; 6], &[u8; 8]) = (b"ARMLTD", b"ARMLFACP");
    // QEMU sbsa-ref's firmware: every table LINARO SBSAQEMU, a PL011.
    let (mem, _) = assemble(&[
        fadt_of(SBSA_REF, 0),
        spcr_of(SBSA_REF, 0x03, mmio32(0x6000_0000), 7),
    ]);
    let p = discover(&mem, RSDP);
    assert!(p.emulated);
    assert_eq!(p.qemu_mark, Some(acpi::SBSA_REF_MARK));
    let e = Emulation::of(&p, None);
    assert!(e.emulated(), "so the timing verdicts are n/a");
    assert_eq!(e.by().collect::<Vec<_>>(), ["acpi"]);
    assert_eq!(
        e.to_string(),
        "ACPI tables: OEM ID LINARO, table ID SBSAQEMU: QEMU sbsa-ref"
    );
    // Arm's FVP Base under its dynamic-tables EDK2: ARMLTD everywhere, the DSDT ARM-VEXP. The
    // DSDT is not listed: the FADT points to it.
    let fvp_dsdt = table(b"DSDT", 2, (b"ARMLTD", b"ARM-VEXP"), &[0x10, 0x05]);
    let juno_dsdt = table(b"DSDT", 2, (b"ARMLTD", b"ARM-JUNO"), &[0x10, 0x05]);
    for (dsdt, emulated) in [(fvp_dsdt, true), (juno_dsdt, false)] {
        let tables = [
            dsdt,
            fadt_of(ARMLTD_FADT, 0),
            spcr_of((b"ARMLTD", b"ARMLSPCR"), 0x03, mmio32(0x1c09_0000), 7),
        ];
        let (mut mem, at) = assemble_with(&tables, 2, |a| a[1..].to_vec());
        patch(&mut mem, at[1], &fadt_of(ARMLTD_FADT, at[0]));
        let p = discover(&mem, RSDP);
        assert_eq!(p.emulated, emulated, "{:?}", p.qemu_mark);
        assert_eq!(p.acpi.tables, 2, "the DSDT is not counted");
        if emulated {
            assert_eq!(
                Emulation::of(&p, None).to_string(),
                "ACPI tables: DSDT ARMLTD ARM-VEXP: an Arm FVP"
            );
        }
    }
    // Its older static tables: LINARO RTSMVEV8.
    let rtsm = (b"LINARO", b"RTSMVEV8");
    let (mem, _) = assemble(&[fadt_of(rtsm, 0)]);
    let p = discover(&mem, RSDP);
    assert_eq!(p.qemu_mark, Some(acpi::RTSM_MARK));
    // A DSDT pointer to nowhere, to a table of another signature, or at 0: no mark, no problem.
    for dsdt in [0xdead_0000, RSDP, 0] {
        let (mem, _) = assemble(&[fadt_of(OEM, dsdt)]);
        let p = discover(&mem, RSDP);
        assert!(!p.emulated);
        assert_eq!(
            problems(&p),
            [
                Problem::AcpiNoSpcr,
                Problem::AcpiNoConsole,
                Problem::AcpiNoMadt
            ]
        );
    }
}

#[test]
fn spcr_baud_rates() {
    for (configured, expected) in [(3, Some(9600)), (4, Some(19200)), (6, Some(57600))] {
        let mem = board(&[], spcr(0x03, mmio32(0x0900_0000), configured));
        assert_eq!(discover(&mem, RSDP).acpi.console_baud, expected);
    }
    for configured in [0, 1, 5, 8, 0xff] {
        let mem = board(&[], spcr(0x03, mmio32(0x0900_0000), configured));
        assert_eq!(discover(&mem, RSDP).acpi.console_baud, None);
    }
    // Revision 4: a precise baud rate overrides the configured one; 0 does not.
    let mem = board(&[], spcr_precise(0x03, mmio32(0x0900_0000), 7, 1_500_000));
    assert_eq!(discover(&mem, RSDP).acpi.console_baud, Some(1_500_000));
    let mem = board(&[], spcr_precise(0x03, mmio32(0x0900_0000), 7, 0));
    assert_eq!(discover(&mem, RSDP).acpi.console_baud, Some(115_200));
}

#[test]
fn disabled_online_capable_and_parked_cpus() {
    // Synthetic MADT: ACPI 6.5 flags.
    let cpus = [
        gicc(0, 0x000, ENABLED),
        gicc(1, 0x001, 0),
        gicc(2, 0x002, ONLINE_CAPABLE),
        gicc_parked(3, 0x003, ENABLED, 1, 0x8000_1000),
        gicc(4, 0x100, ENABLED),
    ];
    let mem = board(&cpus, spcr(3, mmio32(0x0900_0000), 7));
    let p = discover(&mem, RSDP);
    assert_eq!(problems(&p), []);
    assert_eq!(p.cpus(), psci_cpus([0, 3, 0x100]));
    assert_eq!(
        (
            p.acpi.gicc_entries,
            p.acpi.cpus_disabled,
            p.acpi.cpus_online_capable,
            p.acpi.cpus_parked
        ),
        (5, 1, 1, 1)
    );
}

#[test]
fn more_cpus_than_the_cap_are_counted() {
    let n = MAX_CPUS + 44;
    let cpus: Vec<_> = (0..n)
        .map(|i| gicc(i as u32, (((i / 256) << 16) | (i % 256)) as u64, ENABLED))
        .collect();
    let mem = board(&cpus, spcr(3, mmio32(0x0900_0000), 7));
    let p = discover(&mem, RSDP);
    assert_eq!(problems(&p), []);
    assert_eq!(p.cpus().len(), MAX_CPUS);
    assert_eq!(p.cpus_beyond_cap, 44);
    assert_eq!(p.cpus()[255].mpidr, 255);
    assert_eq!(p.acpi.gicc_entries, n);
}

#[test]
fn psci_from_the_fadt_flags_and_revision() {
    let spcr_ok = || spcr(3, mmio32(0x0900_0000), 7);
    let cpus = || madt(&[gicc(0, 0, ENABLED), gicc(1, 1, ENABLED)]);
    let run = |fadt: Vec<u8>| {
        let (mem, _) = assemble(&[fadt, cpus(), spcr_ok()]);
        let p = discover(&mem, RSDP);
        (
            p.psci,
            problems(&p),
            p.cpus().to_vec(),
            p.acpi.fadt_revision,
        )
    };
    let other = |mpidrs: [u64; 2]| {
        mpidrs
            .map(|mpidr| Cpu {
                mpidr,
                enable: Enable::Other,
            })
            .to_vec()
    };
    assert_eq!(
        run(fadt(6, 5, 3)),
        (
            Some(PsciConduit::Hvc),
            vec![],
            psci_cpus([0, 1]),
            Some((6, 5))
        )
    );
    assert_eq!(run(fadt(5, 1, 1)).0, Some(PsciConduit::Smc));
    // Not PSCI: the parking protocol, which is not supported.
    assert_eq!(
        run(fadt(6, 3, 0)),
        (None, vec![Problem::AcpiNoPsci], other([0, 1]), Some((6, 3)))
    );
    // HVC without PSCI_COMPLIANT is not PSCI.
    assert_eq!(run(fadt(6, 3, 2)).1, [Problem::AcpiNoPsci]);
    // Before 5.1 the flags did not exist: 0 there is no answer; nonzero is taken (Linux).
    assert_eq!(
        run(fadt(5, 0, 0)),
        (
            None,
            vec![Problem::AcpiFadtOld],
            other([0, 1]),
            Some((5, 0))
        )
    );
    assert_eq!(run(fadt(5, 0, 1)).0, Some(PsciConduit::Smc));
    assert_eq!(run(fadt(4, 0, 3)).0, Some(PsciConduit::Hvc));
    // An ACPI 1.0 FADT (116 bytes) is too short for the flags.
    let short = table(b"FACP", 1, OEM, &[0; 116 - 36]);
    assert_eq!(
        run(short),
        (None, vec![Problem::AcpiFadtOld], other([0, 1]), None)
    );
}

#[test]
fn missing_tables() {
    let (mem, _) = assemble(&[]);
    let p = discover(&mem, RSDP);
    let why = problems(&p);
    assert_eq!(
        why,
        [
            Problem::AcpiNoSpcr,
            Problem::AcpiNoConsole,
            Problem::AcpiNoMadt,
            Problem::AcpiNoFadt
        ]
    );
    assert_eq!(p.tables, Tables::Acpi);
    assert_eq!((p.console, p.console_from_dtb), (QEMU_VIRT.console, false));
    assert_eq!((p.psci, p.cpus().len()), (None, 0));
    let (mem, _) = assemble(&[fadt(6, 3, 1), spcr(3, mmio32(0x0900_0000), 7)]);
    let p = discover(&mem, RSDP);
    let why = problems(&p);
    assert_eq!(why, [Problem::AcpiNoMadt]);
    assert!(p.cpus().is_empty());
}

#[test]
fn bad_rsdps() {
    let mem = pl011_board();
    assert!(discover(&mem, RSDP).problems.is_empty());
    let no_rsdp = [Problem::AcpiNoRsdp];
    assert_eq!(problems(&discover(&mem, 0)), no_rsdp);
    assert_eq!(problems(&discover(&mem, 0x1000)), no_rsdp, "not readable");
    assert_eq!(problems(&discover(&mem, u64::MAX - 3)), no_rsdp);
    // Truncated: memory ends inside the first 20 bytes.
    let cut = Mem {
        base: BASE,
        bytes: mem.bytes[..12].to_vec(),
    };
    assert_eq!(problems(&discover(&cut, RSDP)), no_rsdp);
    // ... or inside the revision 2 part.
    let cut = Mem {
        base: BASE,
        bytes: mem.bytes[..30].to_vec(),
    };
    assert_eq!(problems(&discover(&cut, RSDP)), [Problem::AcpiRsdp]);
    let bad = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut m = mem.clone();
        f(&mut m.bytes);
        let p = discover(&m, RSDP);
        let mut defaults = QEMU_VIRT;
        defaults.problems = p.problems;
        defaults.acpi = p.acpi;
        assert_eq!(p, defaults, "a bad RSDP leaves the defaults");
        problems(&p)
    };
    let rsdp_bad = [Problem::AcpiRsdp];
    assert_eq!(bad(&|b| b[0] = b'r'), rsdp_bad, "signature");
    assert_eq!(bad(&|b| b[8] ^= 1), rsdp_bad, "checksum");
    assert_eq!(bad(&|b| b[32] ^= 1), rsdp_bad, "extended checksum");
    assert_eq!(
        bad(&|b| {
            b[20..24].copy_from_slice(&20u32.to_le_bytes());
            fix_rsdp(&mut b[..36]);
        }),
        rsdp_bad,
        "length below 36"
    );
    // Revision 2 with neither XSDT nor RSDT.
    assert_eq!(
        bad(&|b| {
            b[24..32].fill(0);
            fix_rsdp(&mut b[..36]);
        }),
        [Problem::AcpiNoRoot]
    );
}

#[test]
fn bad_root_tables() {
    let mem = pl011_board();
    let xsdt_len = 36 + 3 * 8;
    let xsdt_at = 0x40usize;
    let with_xsdt = |f: &dyn Fn(&mut [u8])| {
        let mut m = mem.clone();
        f(&mut m.bytes[xsdt_at..xsdt_at + xsdt_len]);
        m
    };
    let run = |m: &Mem| problems(&discover(m, RSDP));
    assert_eq!(
        run(&with_xsdt(&|x| x[20] ^= 1)),
        [Problem::AcpiNoRoot, Problem::AcpiTableChecksum]
    );
    assert_eq!(
        run(&with_xsdt(&|x| {
            x[0] = b'R';
            fix_checksum(x);
        })),
        [Problem::AcpiNoRoot],
        "signature"
    );
    for (len, what) in [
        (0u32, "zero"),
        (35, "below the header"),
        (4096, "past memory"),
    ] {
        let m = with_xsdt(&|x| {
            x[4..8].copy_from_slice(&len.to_le_bytes());
            fix_checksum(x);
        });
        assert_eq!(
            run(&m),
            [Problem::AcpiNoRoot, Problem::AcpiTableLength],
            "{what}"
        );
    }
    let m = with_xsdt(&|x| {
        x[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
        fix_checksum(x);
    });
    assert_eq!(run(&m), [Problem::AcpiNoRoot, Problem::AcpiTableLength]);

    // A bad XSDT with a good RSDT: the RSDT is used.
    let mut m = with_xsdt(&|x| x[20] ^= 1);
    let at = m.bytes.len() as u64;
    let x = &mem.bytes[xsdt_at..xsdt_at + xsdt_len];
    let entries: Vec<u32> = x[36..]
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()) as u32)
        .collect();
    m.bytes.extend(rsdt(OEM, &entries));
    m.bytes[16..20].copy_from_slice(&((BASE + at) as u32).to_le_bytes());
    fix_rsdp(&mut m.bytes[..36]);
    let p = discover(&m, RSDP);
    assert_eq!(
        problems(&p),
        [Problem::AcpiXsdt, Problem::AcpiTableChecksum,]
    );
    assert_eq!(p.acpi.root, Some(Root::Rsdt));
    assert_eq!(p.console, PL011_QEMU);
    assert_eq!(p.cpus().len(), 2);
}

#[test]
fn bad_listed_tables_are_skipped() {
    let (mem, at) = assemble(&[
        fadt(6, 3, 1),
        madt(&[gicc(0, 0, ENABLED)]),
        spcr(3, mmio32(0x0900_0000), 7),
    ]);
    let spcr_at = at[2];
    let broken = |f: &dyn Fn(&mut Vec<u8>)| {
        let mut t = spcr(3, mmio32(0x0900_0000), 7);
        f(&mut t);
        let mut m = mem.clone();
        patch(&mut m, spcr_at, &t);
        let p = discover(&m, RSDP);
        assert_eq!((p.console, p.console_from_dtb), (QEMU_VIRT.console, false));
        assert_eq!(p.cpus().len(), 1, "the other tables are read");
        problems(&p)
    };
    let set_len = |t: &mut Vec<u8>, len: u32| {
        t[4..8].copy_from_slice(&len.to_le_bytes());
        fix_checksum(t);
    };
    let length = [
        Problem::AcpiTableLength,
        Problem::AcpiNoSpcr,
        Problem::AcpiNoConsole,
    ];
    assert_eq!(broken(&|t| set_len(t, 0)), length, "zero length");
    assert_eq!(
        broken(&|t| set_len(t, 35)),
        length,
        "shorter than its header"
    );
    assert_eq!(broken(&|t| set_len(t, 1 << 16)), length, "past memory");
    assert_eq!(
        broken(&|t| set_len(t, (1 << 20) + 1)),
        length,
        "above 1 MiB"
    );
    assert_eq!(
        broken(&|t| t[50] ^= 0x40),
        [
            Problem::AcpiTableChecksum,
            Problem::AcpiNoSpcr,
            Problem::AcpiNoConsole
        ]
    );
    assert_eq!(
        broken(&|t| {
            t.truncate(60);
            set_len(t, 60);
        }),
        [Problem::AcpiSpcrShort, Problem::AcpiNoConsole],
        "a valid SPCR too short for its fields"
    );
    // Entries past memory or at 0.
    let (m, _) = assemble_with(&[fadt(6, 3, 1)], 4, |a| {
        vec![0, 0xdead_0000, u64::MAX - 10, a[0]]
    });
    let p = discover(&m, RSDP);
    assert_eq!(
        problems(&p),
        [
            Problem::AcpiTableLength,
            Problem::AcpiNoSpcr,
            Problem::AcpiNoConsole,
            Problem::AcpiNoMadt
        ]
    );
    assert_eq!(p.acpi.tables, 1, "{:?}", p.acpi);
    assert_eq!(p.psci, Some(PsciConduit::Smc));
}

#[test]
fn spcr_address_problems() {
    let run = |gas: Gas, interface: u8| {
        let mem = board(&[], spcr(interface, gas, 7));
        let p = discover(&mem, RSDP);
        assert_eq!((p.console, p.console_from_dtb), (QEMU_VIRT.console, false));
        problems(&p)
    };
    let address = [Problem::AcpiSpcrAddress, Problem::AcpiNoConsole];
    // A PC's COM1: a 16550 in I/O port space.
    let com1 = Gas {
        space: 1,
        bit_width: 8,
        access_size: 1,
        address: 0x3f8,
    };
    assert_eq!(run(com1, 0x00), address);
    assert_eq!(
        run(
            Gas {
                space: 1,
                ..mmio32(0x0900_0000)
            },
            0x03
        ),
        address
    );
    // PCI configuration space, and the functional fixed hardware.
    assert_eq!(
        run(
            Gas {
                space: 2,
                ..mmio32(0x0900_0000)
            },
            0x03
        ),
        address
    );
    assert_eq!(
        run(
            Gas {
                space: 0x7f,
                ..mmio32(0x0900_0000)
            },
            0x03
        ),
        address
    );
    assert_eq!(run(mmio32(0), 0x03), address, "address 0");
    assert_eq!(run(mmio32(0x0900_0002), 0x03), address, "misaligned");
    assert_eq!(
        run(mmio32(0x0900_0002), 0x12),
        address,
        "misaligned 32-bit 16550"
    );
    assert_eq!(
        run(mmio32(u64::MAX - 3), 0x0e),
        address,
        "registers past 2^64"
    );
    // A byte-wide 16550 at an odd address is fine.
    let odd = Gas {
        space: 0,
        bit_width: 8,
        access_size: 1,
        address: 0x1000_0001,
    };
    let mem = board(&[], spcr(0, odd, 7));
    let p = discover(&mem, RSDP);
    assert_eq!(problems(&p), []);
    assert_eq!(p.console.base, 0x1000_0001);
}

#[test]
fn repeated_and_looping_tables() {
    let three = [
        fadt(6, 3, 1),
        madt(&[gicc(0, 0, ENABLED)]),
        spcr(3, mmio32(0x0900_0000), 7),
    ];
    let listing = |room: usize, list: &dyn Fn(&[u64]) -> Vec<u64>| {
        let (m, _) = assemble_with(&three, room, list);
        let p = discover(&m, RSDP);
        (problems(&p), p.acpi.tables, p.cpus().len(), p.console)
    };
    let repeated = vec![Problem::AcpiTableRepeated];
    let fine = (repeated.clone(), 3, 1, PL011_QEMU);
    // The XSDT lists itself.
    assert_eq!(listing(4, &|a| vec![XSDT, a[0], a[1], a[2]]), fine);
    // A table listed twice.
    assert_eq!(listing(5, &|a| vec![a[0], a[1], a[1], a[2], a[0]]), fine);
    // Hundreds of entries, all the same table: read once, and the cap not reached.
    let many = |a: &[u64]| std::iter::repeat_n(a[1], 400).chain([a[0], a[2]]).collect();
    assert_eq!(listing(402, &many), fine);

    // An XSDT listing an RSDT that lists the XSDT: root tables are never followed.
    let with_rsdt = [three[0].clone(), three[1].clone(), rsdt(OEM, &[0, 0])];
    let (mut m, a) = assemble_with(&with_rsdt, 3, |a| a.to_vec());
    patch(&mut m, a[2], &rsdt(OEM, &[XSDT as u32, a[2] as u32]));
    let p = discover(&m, RSDP);
    assert_eq!(
        problems(&p),
        [
            Problem::AcpiTableRepeated,
            Problem::AcpiNoSpcr,
            Problem::AcpiNoConsole
        ]
    );
    assert_eq!(p.acpi.tables, 3);

    // Two valid SPCRs: the first is used.
    let (m, _) = assemble(&[
        spcr(3, mmio32(0x0900_0000), 7),
        spcr(0x0e, mmio32(0x1c09_0000), 7),
        fadt(6, 3, 1),
        madt(&[gicc(0, 0, ENABLED)]),
    ]);
    let p = discover(&m, RSDP);
    assert_eq!(problems(&p), repeated);
    assert_eq!(p.console, PL011_QEMU);

    // An invalid first SPCR does not hide a valid second one.
    let mut bad = spcr(0x0e, mmio32(0x1c09_0000), 7);
    bad[60] ^= 1;
    let (m, _) = assemble(&[bad, spcr(3, mmio32(0x0900_0000), 7)]);
    let p = discover(&m, RSDP);
    assert!(p.problems.contains(Problem::AcpiTableChecksum));
    assert_eq!(p.console, PL011_QEMU);
}

#[test]
fn too_many_tables() {
    // MAX_TABLES + 50 distinct valid tables (OEM-specific signature), then the SPCR.
    let mut tables: Vec<Vec<u8>> = (0..MAX_TABLES + 50)
        .map(|i| table(b"OEMX", 1, OEM, &(i as u32).to_le_bytes()))
        .collect();
    tables.push(spcr(3, mmio32(0x0900_0000), 7));
    let (mem, _) = assemble(&tables);
    let p = discover(&mem, RSDP);
    assert!(p.problems.contains(Problem::AcpiTooManyTables));
    assert!(p.problems.contains(Problem::AcpiNoSpcr), "beyond the cap");
    assert_eq!(p.acpi.tables, MAX_TABLES);
}

#[test]
fn malformed_madt_entries_end_the_walk() {
    let run = |entries: &[Vec<u8>]| {
        let (mem, _) = assemble(&[
            fadt(6, 3, 1),
            madt(entries),
            spcr(3, mmio32(0x0900_0000), 7),
        ]);
        let p = discover(&mem, RSDP);
        (
            problems(&p),
            p.cpus().iter().map(|c| c.mpidr).collect::<Vec<_>>(),
        )
    };
    let entry = vec![Problem::AcpiMadtEntry];
    let zero_len = vec![0x0b, 0, 0, 0];
    let one_len = vec![0x0b, 1];
    // Length 0 and 1: the walk would not move; it stops there.
    for bad in [zero_len, one_len] {
        assert_eq!(
            run(&[gicc(0, 0, ENABLED), bad.clone(), gicc(1, 1, ENABLED)]),
            (entry.clone(), vec![0])
        );
    }
    // An entry running past the table's end.
    let mut long = gicc(1, 1, ENABLED);
    long[1] = 200;
    assert_eq!(run(&[gicc(0, 0, ENABLED), long]), (entry.clone(), vec![0]));
    // A lone byte after the last entry.
    assert_eq!(
        run(&[gicc(0, 0, ENABLED), vec![0x0b]]),
        (entry.clone(), vec![0])
    );
    // A GICC too short for the MPIDR is skipped; the walk goes on.
    let mut short = gicc(1, 1, ENABLED);
    short.truncate(40);
    short[1] = 40;
    assert_eq!(
        run(&[gicc(0, 0, ENABLED), short, gicc(2, 2, ENABLED)]),
        (entry.clone(), vec![0, 2])
    );
    // ACPI 5.1's 76-byte GICC is read; other entry types are stepped over.
    let mut v51 = gicc(1, 1, ENABLED);
    v51.truncate(76);
    v51[1] = 76;
    assert_eq!(run(&[gicd(), v51, gicd()]), (vec![], vec![1]));
    // MPIDRs outside the affinity fields, and repeated ones.
    let mpidr = vec![Problem::AcpiMadtMpidr];
    assert_eq!(
        run(&[
            gicc(0, 0, ENABLED),
            gicc(1, 0x8000_0000, ENABLED),
            gicc(2, 1 << 40, ENABLED),
            gicc(3, 0, ENABLED),
            gicc(4, 0xff00_0000_0001, ENABLED),
            gicc(5, 0xff_00ff_ffff, ENABLED),
        ]),
        (mpidr, vec![0, 0xff_00ff_ffff])
    );
    // A MADT without room for its GIC address and flags.
    let (mem, _) = assemble(&[fadt(6, 3, 1), table(b"APIC", 5, OEM, &[0; 4])]);
    let p = discover(&mem, RSDP);
    assert!(p.problems.contains(Problem::AcpiMadtEntry));
}

#[test]
fn problem_messages_and_kinds() {
    for p in Problem::ALL {
        assert!(p.to_string().len() > 20, "{p:?}");
        let name = format!("{p:?}");
        // ConsoleFromDbg2 is named like the device tree's console fallbacks.
        assert_eq!(
            p.acpi(),
            name.starts_with("Acpi") || name.ends_with("Dbg2"),
            "{p:?}"
        );
        if p.acpi() {
            assert!(p.message().contains("ACPI"), "{p:?}: {}", p.message());
        }
    }
    assert_eq!(Tables::Acpi.name(), "acpi");
    assert_eq!(Root::Xsdt.name(), "XSDT");
}

#[test]
fn windows() {
    let bytes = [1u8, 2, 3, 4];
    let w = Window {
        base: 0x1000,
        bytes: &bytes,
    };
    assert_eq!(w.read(0x1000, 4), Some(&bytes[..]));
    assert_eq!(w.read(0x1002, 2), Some(&bytes[2..]));
    assert_eq!(w.read(0x1002, 3), None);
    assert_eq!(w.read(0xfff, 1), None);
    assert_eq!(w.read(u64::MAX, 2), None);
    let other = [9u8; 2];
    let ws = [
        w,
        Window {
            base: 0x1004,
            bytes: &other,
        },
    ];
    assert_eq!(ws[..].read(0x1004, 2), Some(&other[..]));
    assert_eq!(ws[..].read(0x1003, 2), None, "across two windows");
    // discover takes a slice of windows: the real QEMU tables, one window each.
    let (mem, rsdp) = qemu("qemu-virt");
    let windows: Vec<Window<'_>> = mem.iter().map(Mem::window).collect();
    assert_eq!(
        discover(windows.as_slice(), rsdp),
        discover(mem.as_slice(), rsdp)
    );
}

#[test]
fn a_hisilicon_gtdt_names_counter_erratum_161010101() {
    use mairbench_core::counter::Erratum;
    // Linux matches the GTDT's OEM ID, OEM table ID and OEM revision (arm_arch_timer.c,
    // hisi_161010101_oem_info); only the header is read, the timers are not.
    let gtdt = |oem: (&[u8; 6], &[u8; 8]), revision: u32| {
        let mut t = table(b"GTDT", 3, oem, &[0; 104 - 36]);
        t[24..28].copy_from_slice(&revision.to_le_bytes());
        fix_checksum(&mut t);
        t
    };
    let run = |gtdt: Vec<u8>| {
        let mut entries = vec![gicd()];
        entries.push(gicc(0, 0, ENABLED));
        let (mem, _) = assemble(&[
            fadt(6, 3, 1),
            madt(&entries),
            spcr(0x03, mmio32(0x0900_0000), 7),
            gtdt,
        ]);
        let p = discover(&mem, RSDP);
        assert!(p.problems.is_empty(), "{:?}", problems(&p));
        p.acpi.timer_errata.iter().collect::<Vec<_>>()
    };
    assert_eq!(
        run(gtdt((b"HISI  ", b"HIP07   "), 0)),
        [Erratum::Hisilicon161010101]
    );
    assert_eq!(run(gtdt((b"HISI  ", b"HIP07   "), 1)), []);
    assert_eq!(run(gtdt(OEM, 0)), []);
    // What the firmware reads the counter by: the machine's errata with each CPU's own.
    let mem = {
        let (mem, _) = assemble(&[fadt(6, 3, 1), gtdt((b"HISI  ", b"HIP06   "), 0)]);
        mem
    };
    let p = discover(&mem, RSDP);
    let machine = mairbench_core::platform::counter_errata(None, p.acpi.timer_errata);
    assert!(machine
        .with_core(mairbench_core::cores::counter_erratum(0x410f_d082))
        .has(Erratum::Hisilicon161010101));
}
