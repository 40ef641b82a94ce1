//! Platform discovery from real (QEMU) and hand-made device trees.

mod common;

use common::{count_nops, fixture, minimal_tree, DtBuilder, FDT_NOP};
use mairbench_core::platform::{
    discover, dtb_size, ConsoleInfo, ConsoleKind, Cpu, Enable, MemRegion, Platform, Problem,
    Problems, PsciConduit, ARMV7, MAX_DTB_SIZE, QEMU_VIRT,
};

const MIB: u64 = 1 << 20;
const QEMU_PL011: ConsoleInfo = ConsoleInfo {
    kind: ConsoleKind::Pl011,
    base: 0x0900_0000,
};
/// The PL011 of `minimal_tree`, its only UART.
const MINIMAL_UART: ConsoleInfo = ConsoleInfo {
    kind: ConsoleKind::Pl011,
    base: 0x1c09_0000,
};
const QEMU_RAM: MemRegion = MemRegion {
    base: 0x4000_0000,
    size: 128 * MIB,
};

fn problems(list: &[Problem]) -> Problems {
    let mut set = Problems::NONE;
    list.iter().for_each(|&p| set.insert(p));
    set
}

/// The defaults plus `problem`, as discovery returns them for an unusable DTB.
fn defaults_with(problem: Problem) -> Platform<'static> {
    let mut p = QEMU_VIRT;
    p.problems.insert(problem);
    p
}

fn assert_qemu_virt(p: &Platform<'_>) {
    assert!(p.dtb_ok);
    assert_eq!(p.console, QEMU_PL011);
    assert!(p.console_from_dtb);
    assert_eq!(p.ram, QEMU_RAM);
    assert!(p.ram_from_dtb);
    assert_eq!(p.ram_regions(), [QEMU_RAM]);
    assert_eq!(p.model, "linux,dummy-virt");
    assert!(p.emulated);
}

#[test]
fn qemu_virt() {
    let dtb = fixture("qemu-virt.dtb");
    let p = discover(Some(&dtb));
    assert_qemu_virt(&p);
    assert_eq!(p.psci, Some(PsciConduit::Hvc));
    assert_eq!(p.bootargs, "");
    assert_eq!(p.problems, Problems::NONE);
    // QEMU writes enable-method = "psci" only when there is more than one CPU.
    assert_eq!(
        p.cpus(),
        [Cpu {
            mpidr: 0,
            enable: Enable::Other
        }]
    );
}

#[test]
fn qemu_virt_with_el2_calls_psci_through_smc() {
    let dtb = fixture("qemu-virt-el2.dtb");
    let p = discover(Some(&dtb));
    assert_qemu_virt(&p);
    assert_eq!(p.psci, Some(PsciConduit::Smc));
    assert_eq!(p.problems, Problems::NONE);
}

#[test]
fn qemu_virt_with_el3_has_no_psci_and_skips_secure_ram() {
    // secure=on adds a disabled "secram" memory node (0xe000000, 16 MiB) and
    // /secure-chosen; QEMU leaves PSCI to the EL3 firmware.
    let dtb = fixture("qemu-virt-el3.dtb");
    let p = discover(Some(&dtb));
    assert_qemu_virt(&p);
    assert_eq!(p.psci, None);
    assert_eq!(p.problems, problems(&[Problem::NoPsci]));
}

#[test]
fn qemu_virt_with_append_has_bootargs() {
    let dtb = fixture("qemu-virt-bootargs.dtb");
    let p = discover(Some(&dtb));
    assert_qemu_virt(&p);
    assert_eq!(p.bootargs, "mairbench.quick foo");
    assert_eq!(p.problems, Problems::NONE);
}

#[test]
fn ns16550_behind_two_simple_buses() {
    let dtb = fixture("ns16550-bus.dtb");
    let p = discover(Some(&dtb));
    assert!(p.dtb_ok);
    let kind = ConsoleKind::Ns16550 {
        reg_shift: 2,
        io_width: 4,
    };
    assert_eq!(
        p.console,
        ConsoleInfo {
            kind,
            base: 0x1_0200_4000
        }
    );
    assert!(p.console_from_dtb);
    assert_eq!(p.psci, Some(PsciConduit::Hvc));
    let low = MemRegion {
        base: 0x8000_0000,
        size: 1024 * MIB,
    };
    let high = MemRegion {
        base: 0x8_8000_0000,
        size: 4096 * MIB,
    };
    assert_eq!(p.ram, low);
    assert_eq!(p.ram_regions(), [low, high]);
    assert_eq!(p.model, "mairbench test: 16550 behind two simple-buses");
    assert!(!p.emulated);
    assert_eq!(p.bootargs, "");
    assert_eq!(p.problems, Problems::NONE);
}

#[test]
fn stdout_path_through_an_alias() {
    let dtb = fixture("alias.dtb");
    let p = discover(Some(&dtb));
    let kind = ConsoleKind::Ns16550 {
        reg_shift: 0,
        io_width: 1,
    };
    assert_eq!(
        p.console,
        ConsoleInfo {
            kind,
            base: 0x1000_0000
        }
    );
    assert!(p.console_from_dtb);
    assert_eq!(p.bootargs, "console=ttyS0 mairbench.quick");
    let regions = [
        MemRegion {
            base: 0x4000_0000,
            size: 512 * MIB,
        },
        MemRegion {
            base: 0x8000_0000,
            size: 256 * MIB,
        },
    ];
    assert_eq!(p.ram_regions(), regions);
    assert_eq!(p.ram, regions[0]);
    assert_eq!(p.psci, None);
    assert_eq!(p.problems, problems(&[Problem::NoPsci]));
}

#[test]
fn no_chosen_takes_the_first_uart() {
    let dtb = fixture("no-chosen.dtb");
    let p = discover(Some(&dtb));
    assert!(p.dtb_ok);
    // No stdout-path and no aliases: the tree's only UART, pl011@9000000.
    assert_eq!(p.console, QEMU_PL011);
    assert!(p.console_from_dtb);
    assert_eq!(p.bootargs, "");
    assert_eq!(
        p.model, "mairbench,no-chosen",
        "no /model: first compatible"
    );
    assert_eq!(p.psci, Some(PsciConduit::Hvc));
    let ram = MemRegion {
        base: 0x4000_0000,
        size: 256 * MIB,
    };
    assert_eq!(p.ram, ram);
    assert!(p.ram_from_dtb);
    assert_eq!(
        p.problems,
        problems(&[Problem::NoStdoutPath, Problem::ConsoleFirstUart])
    );
}

#[test]
fn no_psci() {
    let dtb = fixture("no-psci.dtb");
    let p = discover(Some(&dtb));
    assert_eq!(
        p.console,
        ConsoleInfo {
            kind: ConsoleKind::Pl011,
            base: 0x1c09_0000
        }
    );
    assert_eq!(p.psci, None);
    assert_eq!(
        p.ram,
        MemRegion {
            base: 0x8000_0000,
            size: 2048 * MIB
        }
    );
    assert_eq!(p.problems, problems(&[Problem::NoPsci]));
}

#[test]
fn psci_smc_and_stdout_path_without_unit_address() {
    let dtb = fixture("psci-smc.dtb");
    let p = discover(Some(&dtb));
    assert_eq!(p.psci, Some(PsciConduit::Smc));
    assert_eq!(p.console, QEMU_PL011);
    assert!(p.console_from_dtb);
    assert!(!p.emulated);
    assert_eq!(p.problems, Problems::NONE);
}

#[test]
fn bus_without_ranges_is_untranslatable() {
    let dtb = fixture("untranslatable.dtb");
    let p = discover(Some(&dtb));
    assert!(p.dtb_ok);
    assert_eq!(p.console, QEMU_PL011);
    assert!(!p.console_from_dtb);
    // The stdout-path UART is the tree's only one: no fallback either.
    assert_eq!(
        p.problems,
        problems(&[
            Problem::ConsoleNoAddress,
            Problem::NoPsci,
            Problem::NoConsole
        ])
    );
}

#[test]
fn imx_console_and_disabled_memory() {
    // The fixture's console was unsupported when it was made: an i.MX UART
    // ("fsl,imx8mq-uart", "fsl,imx6q-uart") at 0x7e215040 on a bus mapping it to
    // 0x3f215040.
    let dtb = fixture("unsupported-console.dtb");
    let p = discover(Some(&dtb));
    assert_eq!(
        p.console,
        ConsoleInfo {
            kind: ConsoleKind::Imx,
            base: 0x3f21_5040
        }
    );
    assert!(p.console_from_dtb);
    let ram = MemRegion {
        base: 0,
        size: 0x3b40_0000,
    };
    assert_eq!(p.ram_regions(), [ram], "the disabled node is skipped");
    assert_eq!(p.problems, problems(&[Problem::NoPsci]));
}

#[test]
fn fdt_nop_between_properties_and_nodes() {
    // Properties and nodes overwritten with FDT_NOP, as libfdt's fdt_nop_property()
    // and fdt_nop_node() leave them: see nop.dts.
    let dtb = fixture("nop.dtb");
    assert_eq!(count_nops(&dtb), 139, "nop.dtb must hold the NOPs it tests");
    let p = discover(Some(&dtb));
    assert!(p.dtb_ok);
    assert_eq!(p.model, "mairbench test: FDT_NOP");
    assert_eq!(p.bootargs, "mairbench.quick nop");
    assert_eq!(p.psci, Some(PsciConduit::Hvc), "psci@0 (SMC) is NOPped");
    let kind = ConsoleKind::Ns16550 {
        reg_shift: 0,
        io_width: 4,
    };
    assert_eq!(
        p.console,
        ConsoleInfo {
            kind,
            base: 0x1000_9000
        },
        "serial@1000 and the reg-shift of serial@9000 are NOPped"
    );
    assert!(p.console_from_dtb);
    let ram = MemRegion {
        base: 0x8000_0000,
        size: 1024 * MIB,
    };
    assert_eq!(p.ram_regions(), [ram], "three memory nodes are NOPped");
    assert!(!p.emulated);
    assert_eq!(p.problems, Problems::NONE);
}

#[test]
fn qemu_virt_with_nops_reads_as_without() {
    // /chosen/rng-seed, /psci/compatible, /gpio-keys (with its child) and
    // /pl031@9010000 (the console's neighbour) overwritten with FDT_NOP.
    let dtb = fixture("qemu-virt-nop.dtb");
    assert_eq!(count_nops(&dtb), 95);
    let p = discover(Some(&dtb));
    assert_qemu_virt(&p);
    assert_eq!(p.psci, Some(PsciConduit::Hvc));
    assert_eq!(p.problems, Problems::NONE);
    assert_eq!(p, discover(Some(&fixture("qemu-virt.dtb"))));
}

#[test]
fn property_names_over_31_characters() {
    // Linux's rk3399.dtsi names DWC3 quirks with up to 33 characters; see long-names.dts.
    let dtb = fixture("long-names.dtb");
    let p = discover(Some(&dtb));
    assert!(p.dtb_ok);
    let kind = ConsoleKind::Ns16550 {
        reg_shift: 2,
        io_width: 4,
    };
    assert_eq!(
        p.console,
        ConsoleInfo {
            kind,
            base: 0xff1a_0000
        }
    );
    assert_eq!(p.psci, Some(PsciConduit::Smc));
    assert_eq!(
        p.ram_regions(),
        [MemRegion {
            base: 0x20_0000,
            size: 0xf7e0_0000
        }]
    );
    assert_eq!(p.model, "mairbench test: names over 31 characters");
    assert_eq!(p.problems, Problems::NONE);
    // One reason the DTB reader (src/fdt.rs) is our own: dtoolkit's Fdt::new
    // rejects the whole blob for these names.
    let err = dtoolkit::fdt::Fdt::new(&dtb).expect_err("dtoolkit 0.4.1 rejects names over 31");
    assert_eq!(err.kind, dtoolkit::error::FdtErrorKind::InvalidPropertyName);
}

#[test]
fn unusable_blobs_give_the_defaults() {
    assert_eq!(discover(None), defaults_with(Problem::NoDtb));
    for name in ["garbage.dtb", "truncated.dtb", "empty.dtb"] {
        let dtb = fixture(name);
        assert_eq!(
            discover(Some(&dtb)),
            defaults_with(Problem::DtbHeader),
            "{name}"
        );
    }
    assert_eq!(fixture("empty.dtb").len(), 0);
    assert_eq!(fixture("truncated.dtb").len(), 1000);
}

#[test]
fn defaults_are_qemu_virt() {
    let p = QEMU_VIRT;
    assert_eq!(p.console, QEMU_PL011);
    assert_eq!(p.ram, QEMU_RAM);
    assert_eq!(p.ram_regions(), [QEMU_RAM]);
    assert_eq!((p.psci, p.bootargs, p.model), (None, "", "unknown"));
    assert!(!p.dtb_ok && !p.emulated && !p.console_from_dtb && !p.ram_from_dtb);
    assert!(p.problems.is_empty());
}

#[test]
fn dtb_size_checks_the_header() {
    let dtb = fixture("qemu-virt.dtb");
    assert_eq!(dtb_size(&dtb[..40]), Some(dtb.len()));
    assert_eq!(dtb_size(&dtb), Some(dtb.len()));
    assert_eq!(dtb_size(&dtb[..39]), None, "short header");
    assert_eq!(dtb_size(&[]), None);

    let with = |field: usize, value: u32| {
        let mut h = dtb[..40].to_vec();
        h[field * 4..field * 4 + 4].copy_from_slice(&value.to_be_bytes());
        dtb_size(&h)
    };
    assert_eq!(with(0, 0xedfe_0dd0), None, "byte-swapped magic");
    assert_eq!(with(1, MAX_DTB_SIZE as u32), Some(MAX_DTB_SIZE));
    assert_eq!(with(1, MAX_DTB_SIZE as u32 + 1), None, "over 4 MiB");
    assert_eq!(with(1, 39), None, "smaller than its header");
    assert_eq!(with(5, 16), None, "version 16 has no size_dt_struct");
    assert_eq!(with(6, 18), None, "not compatible with version 17");
    assert_eq!(with(5, 18), Some(dtb.len()));
}

#[test]
fn header_pointing_outside_the_blob() {
    let dtb = fixture("qemu-virt.dtb");
    for field in [2, 3, 8, 9] {
        let mut bad = dtb.clone();
        bad[field * 4..field * 4 + 4].copy_from_slice(&0x8000_0000u32.to_be_bytes());
        assert_eq!(
            discover(Some(&bad)),
            defaults_with(Problem::DtbHeader),
            "{field}"
        );
    }
    // QEMU builds its DTB in a 1 MiB buffer and leaves it unpacked: free space at the end.
    let mut unpacked = dtb.clone();
    unpacked.resize(1 << 20, 0);
    unpacked[4..8].copy_from_slice(&(1u32 << 20).to_be_bytes());
    assert_eq!(dtb_size(&unpacked), Some(1 << 20));
    assert_eq!(discover(Some(&unpacked)), discover(Some(&dtb)));
    // Longer buffers are fine: the blob ends at totalsize.
    let mut padded = dtb.clone();
    padded.extend([0xff; 100]);
    assert_eq!(discover(Some(&padded)), discover(Some(&dtb)));
}

#[test]
fn problem_messages() {
    for p in Problem::ALL {
        // What was wrong, then what was assumed instead (QEMU virt's defaults, where no
        // device tree could be read).
        assert!(p.to_string().len() > 20, "{p:?}");
        assert_eq!(p.to_string(), format!("{}{}", p.message(), p.assumed()));
    }
    assert_eq!(Problem::NoStdoutPath.message(), "no /chosen/stdout-path");
    // The messages quote the defaults.
    let uart = format!("PL011 at {:#x}", QEMU_VIRT.console.base);
    let ram = format!("128 MiB of RAM at {:#x}", QEMU_VIRT.ram.base);
    assert_eq!(QEMU_VIRT.ram.size, 128 * MIB);
    for p in [Problem::NoDtb, Problem::DtbHeader, Problem::DtbStructure] {
        assert!(
            p.assumed().contains(&uart) && p.assumed().contains(&ram),
            "{p:?}"
        );
        assert!(p.to_string().ends_with(p.assumed()), "{p:?}");
    }
    assert_eq!(Problem::NoStdoutPath.assumed(), "");
    assert!(Problem::NoConsole.message().contains(&uart));
    assert!(Problem::NoMemory.message().contains(&ram));
    let set = problems(&[Problem::NoPsci, Problem::NoDtb]);
    assert_eq!(
        set.iter().collect::<Vec<_>>(),
        [Problem::NoDtb, Problem::NoPsci]
    );
    assert_eq!(format!("{set:?}"), "{NoDtb, NoPsci}");
    assert!(set.contains(Problem::NoPsci) && !set.contains(Problem::NoMemory));
}

#[test]
fn builder_tree_is_understood() {
    let dtb = minimal_tree("/uart@1c090000:115200n8", |_| {});
    let p = discover(Some(&dtb));
    assert_eq!(p.console.base, 0x1c09_0000);
    assert_eq!(p.psci, Some(PsciConduit::Hvc));
    assert_eq!(p.model, "test,minimal");
    assert_eq!(p.problems, Problems::NONE);
}

#[test]
fn stdout_path_that_names_nothing() {
    for path in [
        "",
        "/",
        ":115200",
        "/nowhere",
        "/uart@1c090001",
        "serial9",
        "loop",
        "self",
    ] {
        let dtb = minimal_tree(path, |b| {
            b.begin("aliases")
                .str("loop", "loop2")
                .str("loop2", "/loop")
                .str("self", "self")
                .end();
        });
        let p = discover(Some(&dtb));
        // No serial0 alias: the tree's one UART.
        assert_eq!(p.console, MINIMAL_UART, "{path:?}");
        assert_eq!(
            p.problems,
            problems(&[Problem::StdoutNotFound, Problem::ConsoleFirstUart]),
            "{path:?}"
        );
    }
}

#[test]
fn alias_with_a_trailing_path() {
    let dtb = minimal_tree("bus/serial@40", |b| {
        b.begin("aliases").str("bus", "/apb").end();
        b.begin("apb")
            .cells("#address-cells", &[1])
            .cells("#size-cells", &[1])
            .cells("ranges", &[0, 0, 0x3000_0000, 0x1000]);
        b.begin("serial@40")
            .prop("compatible", b"vendor,x\0ns16550\0")
            .cells("reg", &[0x40, 0x20])
            .cells("reg-io-width", &[4]);
        b.end().end();
    });
    let p = discover(Some(&dtb));
    let kind = ConsoleKind::Ns16550 {
        reg_shift: 0,
        io_width: 4,
    };
    assert_eq!(
        p.console,
        ConsoleInfo {
            kind,
            base: 0x3000_0040
        }
    );
    assert_eq!(p.problems, Problems::NONE);
}

#[test]
fn odd_16550_properties_are_unsupported() {
    let cases: [(&str, &[u8]); 5] = [
        ("reg-io-width", &[0, 0, 0, 2]),
        ("reg-io-width", &[0, 0, 0, 8]),
        ("reg-io-width", &[4]),
        ("reg-shift", &[0, 0, 0, 8]),
        ("reg-shift", &[0, 0, 2]),
    ];
    for (name, value) in cases {
        let dtb = minimal_tree("/serial@100", |b| {
            b.begin("serial@100")
                .str("compatible", "ns16550a")
                .cells("reg", &[0, 0x100, 0, 0x100])
                .prop(name, value)
                .end();
        });
        let p = discover(Some(&dtb));
        assert_eq!(
            p.problems,
            problems(&[Problem::ConsoleUnsupported, Problem::ConsoleFirstUart]),
            "{name} {value:?}"
        );
    }
}

#[test]
fn bad_console_addresses() {
    // (bus #address-cells, #size-cells, ranges, device reg)
    let cases: [(u32, u32, &[u32], &[u32]); 7] = [
        (1, 1, &[0x1000, 0, 0x9000, 0x100], &[0x2000, 4]), // outside every range
        (0, 0, &[], &[]),                                  // no address cells
        (3, 1, &[], &[0, 0, 0x10, 4]),                     // PCI-like 3 cells
        (1, 1, &[0, 0, 0x9000], &[0x10, 4]),               // truncated ranges entry
        (1, 1, &[0, 0xffff_ffff, 0, 0x1000], &[0x10, 4]),  // fine: a high address
        (1, 1, &[], &[]),                                  // empty reg
        (1, 1, &[0, 0xffff_ffff, 0xffff_ffff, 0x1000], &[0x10, 4]), // overflows
    ];
    for (i, (addr_cells, size_cells, ranges, reg)) in cases.into_iter().enumerate() {
        let dtb = minimal_tree("/bus/serial", |b| {
            b.begin("bus")
                .cells("#address-cells", &[addr_cells])
                .cells("#size-cells", &[size_cells])
                .cells("ranges", ranges);
            b.begin("serial")
                .str("compatible", "arm,pl011")
                .cells("reg", reg)
                .end();
            b.end();
        });
        let p = discover(Some(&dtb));
        if i == 4 {
            assert_eq!(p.console.base, 0xffff_ffff_0000_0010);
            assert_eq!(p.problems, Problems::NONE);
        } else {
            assert_eq!(p.console, MINIMAL_UART, "case {i}");
            assert_eq!(
                p.problems,
                problems(&[Problem::ConsoleNoAddress, Problem::ConsoleFirstUart]),
                "case {i}"
            );
        }
    }
}

#[test]
fn at_most_eight_ram_regions() {
    let dtb = minimal_tree("/uart", |b| {
        let reg: Vec<u32> = (0..10u32).flat_map(|i| [1, i << 20, 0, 0x1000]).collect();
        b.begin("memory@100000000")
            .str("device_type", "memory")
            .cells("reg", &reg)
            .end();
    });
    let p = discover(Some(&dtb));
    assert_eq!(p.ram_regions().len(), 8);
    assert_eq!(
        p.ram_regions()[1..],
        (0..7u64)
            .map(|i| MemRegion {
                base: 1 << 32 | i << 20,
                size: 0x1000
            })
            .collect::<Vec<_>>()
    );
    assert_eq!(p.ram.base, 0x8000_0000);
    assert_eq!(p.problems, problems(&[Problem::TooManyMemoryRegions]));
}

#[test]
fn no_usable_memory() {
    let mut b = DtBuilder::default();
    b.begin("")
        .cells("#address-cells", &[1])
        .cells("#size-cells", &[0]);
    b.begin("memory")
        .str("device_type", "memory")
        .cells("reg", &[0x4000_0000])
        .end();
    b.begin("memory@0")
        .str("device_type", "memory")
        .cells("reg", &[])
        .end();
    let dtb = b.end().finish();
    let p = discover(Some(&dtb));
    assert!(p.dtb_ok);
    assert_eq!(p.ram, QEMU_RAM);
    assert!(!p.ram_from_dtb);
    assert_eq!(p.ram_regions(), [QEMU_RAM]);
    assert!(p.problems.contains(Problem::NoMemory));
    assert_eq!(p.model, "unknown");
}

#[test]
fn fdt_nop_anywhere_inside_the_root() {
    let mut b = DtBuilder::default();
    b.begin("")
        .token(FDT_NOP)
        .str("model", "m")
        .token(FDT_NOP)
        .token(FDT_NOP)
        .str("compatible", "c")
        .token(FDT_NOP);
    b.begin("chosen")
        .token(FDT_NOP)
        .str("bootargs", "b")
        .token(FDT_NOP)
        .end();
    b.token(FDT_NOP).begin("psci");
    b.token(FDT_NOP).str("method", "smc").end().token(FDT_NOP);
    let dtb = b.end().finish();
    let p = discover(Some(&dtb));
    assert!(p.dtb_ok);
    assert_eq!((p.model, p.bootargs), ("m", "b"));
    assert_eq!(p.psci, Some(PsciConduit::Smc));

    // But not outside it: the root must come first, FDT_END right after it.
    let structure = defaults_with(Problem::DtbStructure);
    let mut b = DtBuilder::default();
    b.token(FDT_NOP).begin("").end();
    assert_eq!(discover(Some(&b.finish())), structure);
    let mut b = DtBuilder::default();
    b.begin("").end().token(FDT_NOP);
    assert_eq!(discover(Some(&b.finish())), structure);
}

#[test]
fn structures_the_parser_would_trip_on_are_rejected() {
    let structure = defaults_with(Problem::DtbStructure);

    // A property after a child node.
    let mut b = DtBuilder::default();
    b.begin("").begin("a").end().str("model", "m");
    assert_eq!(discover(Some(&b.end().finish())), structure);

    // Unbalanced, unterminated, two roots, a named root.
    let mut b = DtBuilder::default();
    b.begin("").end().end();
    assert_eq!(discover(Some(&b.finish())), structure);
    let mut b = DtBuilder::default();
    b.begin("").begin("a");
    assert_eq!(discover(Some(&b.finish())), structure);
    let mut b = DtBuilder::default();
    b.begin("").end().begin("").end();
    assert_eq!(discover(Some(&b.finish())), structure);
    let mut b = DtBuilder::default();
    b.begin("root").end();
    assert_eq!(discover(Some(&b.finish())), structure);
    assert_eq!(discover(Some(&DtBuilder::default().finish())), structure);

    // A property name outside the strings block.
    let mut b = DtBuilder::default();
    b.begin("").str("model", "m").end();
    let mut dtb = b.finish();
    dtb[56 + 8 + 8..56 + 8 + 12].copy_from_slice(&100u32.to_be_bytes());
    assert_eq!(discover(Some(&dtb)), structure);

    // A property value running past the block.
    let mut dtb = minimal_tree("/uart", |_| {});
    dtb[56 + 8 + 4..56 + 8 + 8].copy_from_slice(&0xffff_fff0u32.to_be_bytes());
    assert_eq!(discover(Some(&dtb)), structure);

    // A non-UTF-8 node name.
    let mut b = DtBuilder::default();
    b.begin("").begin("\u{ff}").end();
    let mut dtb = b.end().finish();
    dtb[56 + 12] = 0xff;
    assert_eq!(discover(Some(&dtb)), structure);

    // A non-UTF-8 property name.
    let mut b = DtBuilder::default();
    b.begin("").str("model", "m").end();
    let mut dtb = b.finish();
    let at = dtb.len() - 2;
    dtb[at] = 0xff;
    assert_eq!(discover(Some(&dtb)), structure);

    // A structure block that is not 4-byte aligned (the specification's
    // Alignment section): tokens are aligned within the blob.
    let mut b = DtBuilder::default();
    b.begin("").str("model", "m").end();
    let aligned = b.finish();
    let mut dtb = aligned.clone();
    dtb.insert(56, 0);
    let field =
        |dtb: &[u8], i: usize| u32::from_be_bytes(dtb[i * 4..i * 4 + 4].try_into().unwrap());
    for i in [1, 2, 3] {
        let moved = field(&dtb, i) + 1;
        dtb[i * 4..i * 4 + 4].copy_from_slice(&moved.to_be_bytes());
    }
    assert_eq!(discover(Some(&dtb)), defaults_with(Problem::DtbHeader));
    assert_eq!(discover(Some(&aligned)).model, "m");
}

#[test]
fn deep_nesting() {
    // Nothing recurses, so nesting is not limited; a stdout-path longer than 32
    // nodes, the root included, names no node.
    let nested = |depth: usize, stdout: &str| {
        let mut b = DtBuilder::default();
        b.begin("");
        b.begin("chosen").str("stdout-path", stdout).end();
        for _ in 1..depth {
            b.begin("n")
                .cells("#address-cells", &[1])
                .cells("#size-cells", &[1])
                .prop("ranges", &[]);
        }
        b.str("compatible", "arm,pl011").cells("reg", &[0x1000, 4]);
        for _ in 0..depth {
            b.end();
        }
        b.finish()
    };
    let path = |nodes: usize| "/n".repeat(nodes - 1);
    let dtb = nested(32, &path(32));
    let p = discover(Some(&dtb));
    assert!(p.dtb_ok);
    assert_eq!(p.console.base, 0x1000);
    assert_eq!(p.problems, problems(&[Problem::NoMemory, Problem::NoPsci]));
    // The search for a first UART looks 32 nodes deep and at their children.
    for (depth, found) in [
        (33, Problem::ConsoleFirstUart),
        (30_000, Problem::NoConsole),
    ] {
        let dtb = nested(depth, &path(depth));
        let p = discover(Some(&dtb));
        assert!(p.dtb_ok, "{depth}");
        assert_eq!(
            p.problems,
            problems(&[
                Problem::StdoutNotFound,
                Problem::NoMemory,
                Problem::NoPsci,
                found
            ]),
            "{depth}"
        );
        assert_eq!(p.console_from_dtb, found == Problem::ConsoleFirstUart);
    }
}

#[test]
fn zero_cell_ranges_do_not_loop() {
    // Translating from bus "a" to the root reads ranges entries of 0 + 0 + 0 cells.
    let mut b = DtBuilder::default();
    b.begin("")
        .cells("#address-cells", &[0])
        .cells("#size-cells", &[0]);
    b.begin("chosen").str("stdout-path", "/a/b/uart").end();
    b.begin("a")
        .cells("#address-cells", &[0])
        .cells("#size-cells", &[0])
        .cells("ranges", &[1]);
    b.begin("b")
        .cells("#address-cells", &[1])
        .cells("#size-cells", &[1])
        .cells("ranges", &[0, 0x100]);
    b.begin("uart")
        .str("compatible", "arm,pl011")
        .cells("reg", &[0x10, 4]);
    let dtb = b.end().end().end().end().finish();
    let p = discover(Some(&dtb));
    assert!(p.problems.contains(Problem::ConsoleNoAddress));
    assert_eq!(p.console, QEMU_PL011);
}

#[test]
fn mem_region_contains() {
    let r = MemRegion {
        base: 0x4000_0000,
        size: 0x1000,
    };
    assert!(r.contains(0x4000_0000) && r.contains(0x4000_0fff));
    assert!(!r.contains(0x3fff_ffff) && !r.contains(0x4000_1000));
    let top = MemRegion {
        base: u64::MAX - 1,
        size: 10,
    };
    assert!(top.contains(u64::MAX) && !top.contains(0));
}

/// A tree with no stdout-path, the minimal tree's PL011 disabled, and `extra`.
fn without_stdout(extra: impl FnOnce(&mut DtBuilder)) -> Vec<u8> {
    let mut b = DtBuilder::default();
    b.begin("")
        .cells("#address-cells", &[1])
        .cells("#size-cells", &[1])
        .str("compatible", "test,fallback");
    b.begin("psci").str("method", "hvc").end();
    b.begin("memory@80000000")
        .str("device_type", "memory")
        .cells("reg", &[0x8000_0000, 0x4000_0000])
        .end();
    b.begin("uart@1000")
        .str("compatible", "arm,pl011")
        .cells("reg", &[0x1000, 0x1000])
        .str("status", "disabled")
        .end();
    extra(&mut b);
    b.end().finish()
}

fn uart(b: &mut DtBuilder, name: &str, compatible: &str, reg: u32, status: Option<&str>) {
    b.begin(name)
        .str("compatible", compatible)
        .cells("reg", &[reg, 0x1000]);
    if let Some(status) = status {
        b.str("status", status);
    }
    b.end();
}

#[test]
fn no_stdout_path_uses_serial0_if_enabled() {
    let dtb = without_stdout(|b| {
        b.begin("aliases").str("serial0", "/serial@3000").end();
        uart(b, "serial@2000", "arm,pl011", 0x2000, None);
        uart(b, "serial@3000", "fsl,imx8mp-uart", 0x3000, Some("okay"));
    });
    let p = discover(Some(&dtb));
    let imx = ConsoleInfo {
        kind: ConsoleKind::Imx,
        base: 0x3000,
    };
    assert_eq!(p.console, imx);
    assert!(p.console_from_dtb);
    assert_eq!(
        p.problems,
        problems(&[Problem::NoStdoutPath, Problem::ConsoleFromAlias])
    );

    // serial0 disabled (or unsupported): the first enabled supported UART instead,
    // skipping the disabled one, an unsupported one and a disabled bus.
    for serial0 in ["/serial@3000", "/serial@4000"] {
        let dtb = without_stdout(|b| {
            b.begin("aliases").str("serial0", serial0).end();
            b.begin("bus")
                .cells("#address-cells", &[1])
                .cells("#size-cells", &[1])
                .prop("ranges", &[])
                .str("status", "disabled");
            uart(b, "serial@1800", "arm,pl011", 0x1800, None);
            b.end();
            uart(
                b,
                "serial@3000",
                "fsl,imx8mp-uart",
                0x3000,
                Some("disabled"),
            );
            uart(b, "serial@4000", "vendor,unknown-uart", 0x4000, None);
            b.begin("soc")
                .cells("#address-cells", &[1])
                .cells("#size-cells", &[1])
                .cells("ranges", &[0, 0x1000_0000, 0x10_0000]);
            uart(
                b,
                "serial@5000",
                "amlogic,meson-gx-uart",
                0x5000,
                Some("ok"),
            );
            b.end();
            uart(b, "serial@6000", "arm,pl011", 0x6000, None);
        });
        let p = discover(Some(&dtb));
        let meson = ConsoleInfo {
            kind: ConsoleKind::Meson,
            base: 0x1000_5000,
        };
        assert_eq!(p.console, meson, "{serial0}");
        assert_eq!(
            p.problems,
            problems(&[Problem::NoStdoutPath, Problem::ConsoleFirstUart]),
            "{serial0}"
        );
    }

    // Nothing enabled and supported: the default, said so.
    let dtb = without_stdout(|b| uart(b, "serial@2000", "vendor,unknown", 0x2000, None));
    let p = discover(Some(&dtb));
    assert_eq!(p.console, QEMU_PL011);
    assert!(!p.console_from_dtb);
    assert_eq!(
        p.problems,
        problems(&[Problem::NoStdoutPath, Problem::NoConsole])
    );
}

#[test]
fn compatible_strings_select_the_family_in_node_order() {
    use mairbench_core::platform::{compatible_matches, CONSOLES};
    assert!(compatible_matches("fsl,imx*-uart", "fsl,imx8mp-uart"));
    assert!(!compatible_matches("fsl,imx*-uart", "fsl,imx8qxp-lpuart"));
    assert!(compatible_matches("qcom,msm-uartdm*", "qcom,msm-uartdm"));
    assert!(
        !compatible_matches("ab*ba", "aba"),
        "head and tail may not overlap"
    );
    assert!(!compatible_matches("arm,pl011", "arm,pl0111"));
    let kind = |compatible: &[u8], extra: &[(&str, u32)]| {
        let dtb = minimal_tree("/serial@2000", |b| {
            b.begin("serial@2000")
                .prop("compatible", compatible)
                .cells("reg", &[0, 0x2000, 0, 0x1000]);
            for &(name, v) in extra {
                b.cells(name, &[v]);
            }
            b.end();
        });
        let p = discover(Some(&dtb));
        assert!(p.problems.is_empty(), "{:?}", p.problems);
        p.console.kind
    };
    let ns = |reg_shift, io_width| ConsoleKind::Ns16550 {
        reg_shift,
        io_width,
    };
    // The most specific string that has a row wins.
    assert_eq!(
        kind(b"arm,sbsa-uart\0arm,pl011\0", &[]),
        ConsoleKind::SbsaUart
    );
    assert_eq!(kind(b"fsl,ns16550\0ns16550a\0", &[]), ns(0, 1));
    // The binding's defaults, and the device tree's values over them.
    assert_eq!(kind(b"ti,j721e-uart\0ti,am654-uart\0", &[]), ns(2, 1));
    assert_eq!(
        kind(b"nvidia,tegra210-uart\0", &[("reg-shift", 2)]),
        ns(2, 1)
    );
    assert_eq!(
        kind(b"mediatek,mt8183-uart\0mediatek,mt6577-uart\0", &[]),
        ns(2, 4)
    );
    assert_eq!(
        kind(b"rockchip,rk3399-uart\0snps,dw-apb-uart\0", &[]),
        ns(2, 4)
    );
    assert_eq!(kind(b"snps,dw-apb-uart\0", &[("reg-shift", 2)]), ns(2, 1));
    assert_eq!(kind(b"ns16550a\0", &[("reg-io-width", 4)]), ns(0, 4));
    // TI's 8250-omap UARTs: byte accesses 4 bytes apart, with no reg-shift in their nodes.
    assert_eq!(kind(b"ti,am3352-uart\0ti,omap3-uart\0", &[]), ns(2, 1));
    assert_eq!(kind(b"ti,omap4-uart\0", &[]), ns(2, 1));
    assert_eq!(kind(b"ti,dra742-uart\0", &[]), ns(2, 1));
    // Marvell PXA/MMP: 32-bit accesses 4 bytes apart (the nodes say reg-shift = <2>).
    assert_eq!(
        kind(b"mrvl,mmp-uart\0intel,xscale-uart\0", &[("reg-shift", 2)]),
        ns(2, 4)
    );
    // Armada XP/38x as MikroTik's CRS trees write it: the node's reg-shift and width.
    assert_eq!(
        kind(
            b"marvell,armada-38x-uart\0",
            &[("reg-shift", 2), ("reg-io-width", 1)]
        ),
        ns(2, 1)
    );
    let lpuart = |regs_at, big_endian| ConsoleKind::Lpuart {
        regs_at,
        big_endian,
    };
    assert_eq!(
        kind(b"fsl,imx93-lpuart\0fsl,imx7ulp-lpuart\0", &[]),
        lpuart(0x10, false)
    );
    assert_eq!(
        kind(b"fsl,imx8qm-lpuart\0fsl,imx8qxp-lpuart\0", &[]),
        lpuart(0x10, false)
    );
    assert_eq!(kind(b"fsl,ls1021a-lpuart\0", &[]), lpuart(0, true));
    for (compatible, family) in [
        (&b"fsl,imx8mm-uart\0fsl,imx6q-uart\0"[..], ConsoleKind::Imx),
        (
            b"amlogic,meson-gx-uart\0amlogic,meson-ao-uart\0",
            ConsoleKind::Meson,
        ),
        (b"qcom,geni-debug-uart\0", ConsoleKind::Geni),
        (
            b"qcom,msm-uartdm-v1.4\0qcom,msm-uartdm\0",
            ConsoleKind::UartDm,
        ),
        (b"xlnx,zynqmp-uart\0cdns,uart-r1p12\0", ConsoleKind::Cadence),
        (b"cdns,uart-r1p8\0", ConsoleKind::Cadence),
        (b"marvell,armada-3700-uart\0", ConsoleKind::Armada3700),
        (
            b"renesas,scif-r8a774a1\0renesas,rcar-gen3-scif\0renesas,scif\0",
            ConsoleKind::Scif,
        ),
        (b"samsung,exynos4210-uart\0", ConsoleKind::Samsung),
        (b"st,stm32h7-uart\0", ConsoleKind::Stm32),
    ] {
        assert_eq!(
            kind(compatible, &[]),
            family,
            "{:?}",
            compatible.escape_ascii()
        );
    }
    // Other layouts of the same vendors are not taken for these.
    for compatible in [
        &b"fsl,vf610-lpuart\0"[..],
        b"marvell,armada-3700-uart-ext\0",
        b"renesas,scif-r9a07g044\0",
        b"qcom,msm-uart\0",
        b"st,stm32-uart\0",
        b"st,stm32f7-uart\0",
        b"google,gs101-uart\0",
    ] {
        let dtb = minimal_tree("/serial@2000", |b| {
            b.begin("serial@2000")
                .prop("compatible", compatible)
                .cells("reg", &[0, 0x2000, 0, 0x1000])
                .end();
        });
        let p = discover(Some(&dtb));
        assert!(p.problems.contains(Problem::ConsoleUnsupported));
    }
    // Every family's registers fit in the page from the base the firmware maps.
    for &(pattern, kind) in &CONSOLES {
        assert!(kind.register_span() <= 4096, "{pattern}");
        assert!(!kind.name().is_empty());
    }
}

/// `docs/boards.md`'s table of UART families names every `compatible` pattern of core's
/// [`CONSOLES`](mairbench_core::platform::CONSOLES) (in backquotes, in its `compatible`
/// column) and every driver name: the prose stays the document's, the list the table's.
#[test]
fn boards_md_names_every_console_pattern_and_driver() {
    use mairbench_core::platform::CONSOLES;
    let doc = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/boards.md"),
    )
    .unwrap();
    // The table's rows: `| family | compatible | driver | tested |`.
    let cells: Vec<Vec<&str>> = doc
        .lines()
        .filter(|l| l.starts_with("| ") && l.matches(" | ").count() >= 3)
        .map(|l| l.split(" | ").collect())
        .collect();
    let in_column = |col: usize, word: &str| {
        let quoted = format!("`{word}`");
        cells
            .iter()
            .any(|c| c.get(col).is_some_and(|cell| cell.contains(&quoted)))
    };
    let missing: Vec<String> = CONSOLES
        .iter()
        .flat_map(|&(pattern, kind)| {
            let pattern = (!in_column(1, pattern)).then(|| format!("`{pattern}`"));
            let driver = (!in_column(2, kind.name())).then(|| format!("driver `{}`", kind.name()));
            pattern.into_iter().chain(driver)
        })
        .collect();
    assert!(
        missing.is_empty(),
        "docs/boards.md lacks {}",
        missing.join(", ")
    );
}

/// `/cpus` with `n` CPUs (MPIDR = index, two clusters of 128), each with `method`.
fn many_cpus(n: u32, method: &str) -> Vec<u8> {
    minimal_tree("/uart@1c090000", |b| {
        b.begin("cpus")
            .cells("#address-cells", &[2])
            .cells("#size-cells", &[0]);
        for i in 0..n {
            let mpidr = ((i / 128) << 8) | (i % 128);
            b.begin(&format!("cpu@{mpidr:x}"))
                .str("device_type", "cpu")
                .cells("reg", &[0, mpidr])
                .str("enable-method", method);
            if method == "spin-table" {
                b.cells("cpu-release-addr", &[0, 0x8000_0000 + 8 * i]);
            }
            b.end();
        }
        b.end();
    })
}

#[test]
fn every_cpu_up_to_the_cap_and_the_rest_counted() {
    for n in [1, 6, 8, 16, 255, 256] {
        let dtb = many_cpus(n, "psci");
        let p = discover(Some(&dtb));
        assert_eq!(p.cpus().len(), n as usize);
        assert_eq!(p.cpus_beyond_cap, 0);
        assert!(p.cpus().iter().all(Cpu::psci));
    }
    let dtb = many_cpus(300, "psci");
    let p = discover(Some(&dtb));
    assert_eq!(p.cpus().len(), mairbench_core::platform::MAX_CPUS);
    assert_eq!(p.cpus_beyond_cap, 300 - 256);
    // Two clusters: affinity level 1 is kept.
    assert_eq!(p.cpus()[200].mpidr, 0x148);
}

#[test]
fn an_enable_method_the_firmware_does_not_know_is_kept_for_its_warning() {
    // Each CPU's own (the Allwinner A31's).
    let dtb = many_cpus(4, "allwinner,sun6i-a31");
    let p = discover(Some(&dtb));
    assert!(p.cpus().iter().all(|c| c.enable == Enable::Other));
    assert_eq!(p.unknown_enable, Some("allwinner,sun6i-a31"));
    // Known methods leave it empty.
    for known in ["psci", "spin-table"] {
        assert_eq!(discover(Some(&many_cpus(4, known))).unknown_enable, None);
    }
    // /cpus's, where the H3's tree puts it; a CPU's own comes first.
    for (own, named) in [
        (None, "allwinner,sun8i-a23"),
        (Some("allwinner,sun6i-a31"), "allwinner,sun6i-a31"),
    ] {
        let dtb = minimal_tree("/uart@1c090000", |b| {
            b.begin("cpus")
                .cells("#address-cells", &[1])
                .cells("#size-cells", &[0])
                .str("enable-method", "allwinner,sun8i-a23");
            for i in 0..2 {
                b.begin(&format!("cpu@{i}"))
                    .str("device_type", "cpu")
                    .cells("reg", &[i]);
                if let Some(own) = own {
                    b.str("enable-method", own);
                }
                b.end();
            }
            b.end();
        });
        let p = discover(Some(&dtb));
        assert_eq!(p.cpus().len(), 2);
        assert!(p.cpus().iter().all(|c| c.enable == Enable::Other));
        assert_eq!(p.unknown_enable, Some(named));
    }
    // No method at all: nothing to name.
    let dtb = minimal_tree("/uart@1c090000", |b| {
        b.begin("cpus")
            .cells("#address-cells", &[1])
            .cells("#size-cells", &[0]);
        b.begin("cpu@0")
            .str("device_type", "cpu")
            .cells("reg", &[0]);
        b.end().end();
    });
    assert_eq!(discover(Some(&dtb)).unknown_enable, None);
}

/// A `brcm,bcm2836-l1-intc`-like node: its name, compatible, reg and status.
type Intc = (&'static str, &'static str, &'static [u32], &'static str);

/// A tree shaped as the Raspberry Pi 2B's (Linux's bcm2836.dtsi): `/cpus` names
/// `brcm,bcm2836-smp` for four CPUs `0xf00` to `0xf03`, and `intc` (its name, compatible, reg
/// and status), when given, sits on `/soc`, whose second range maps the local peripherals at
/// 0x4000_0000 one to one, as `ranges = <... 0x40000000 0x40000000 0x1000>` does there.
fn pi2_tree(intc: Option<Intc>) -> Vec<u8> {
    minimal_tree("/uart@1c090000", |b| {
        b.begin("soc")
            .str("compatible", "simple-bus")
            .cells("#address-cells", &[1])
            .cells("#size-cells", &[1])
            .cells(
                "ranges",
                &[
                    0x7e00_0000,
                    0,
                    0x3f00_0000,
                    0x100_0000,
                    0x4000_0000,
                    0,
                    0x4000_0000,
                    0x1000,
                ],
            );
        if let Some((name, compatible, reg, status)) = intc {
            b.begin(name)
                .str("compatible", compatible)
                .cells("reg", reg)
                .str("status", status)
                .end();
        }
        b.end();
        b.begin("cpus")
            .cells("#address-cells", &[1])
            .cells("#size-cells", &[0])
            .str("enable-method", "brcm,bcm2836-smp");
        for i in 0..4 {
            b.begin(&format!("cpu@f0{i}"))
                .str("device_type", "cpu")
                .cells("reg", &[0xf00 + i])
                .end();
        }
        b.end();
    })
}

/// The `brcm,bcm2836-l1-intc` node of the Pi 2B's tree.
const PI2_INTC: Intc = (
    "local_intc@40000000",
    "brcm,bcm2836-l1-intc",
    &[0x4000_0000, 0x100],
    "okay",
);

fn bcm2836(mailbox: Option<u64>) -> Enable {
    Enable::Bcm2836 {
        mailbox,
        armv7: ARMV7,
    }
}

#[test]
fn bcm2836_cpus_carry_their_mailbox_from_the_l1_intc_node() {
    let dtb = pi2_tree(Some(PI2_INTC));
    let p = discover(Some(&dtb));
    let cpus: Vec<_> = p.cpus().iter().map(|c| (c.mpidr, c.enable)).collect();
    // LOCAL_MAILBOX3_SET0 (0x8c) + 16 per CPU, from the node's base through /soc's ranges.
    assert_eq!(
        cpus,
        [
            (0xf00, bcm2836(Some(0x4000_008c))),
            (0xf01, bcm2836(Some(0x4000_009c))),
            (0xf02, bcm2836(Some(0x4000_00ac))),
            (0xf03, bcm2836(Some(0x4000_00bc))),
        ]
    );
    assert_eq!(p.cpus()[1].enable.name(), "brcm,bcm2836-smp");
    // A method the firmware knows: nothing for the unknown-method warning.
    assert_eq!(p.unknown_enable, None);
    // A CPU's own method, as /cpus's: the same (no l1-intc node in this tree).
    let dtb = many_cpus(2, "brcm,bcm2836-smp");
    let own = discover(Some(&dtb));
    assert!(own.cpus().iter().all(|c| c.enable == bcm2836(None)));
    // A CPU's own method the core does not know leaves /cpus's, as in Linux's ARM code.
    let dtb = minimal_tree("/uart@1c090000", |b| {
        b.begin("cpus")
            .cells("#address-cells", &[1])
            .cells("#size-cells", &[0])
            .str("enable-method", "brcm,bcm2836-smp");
        b.begin("cpu@f01")
            .str("device_type", "cpu")
            .cells("reg", &[0xf01])
            .str("enable-method", "allwinner,sun6i-a31")
            .end();
        b.end();
    });
    assert_eq!(discover(Some(&dtb)).cpus()[0].enable, bcm2836(None));
}

#[test]
fn bcm2836_cpus_without_a_usable_l1_intc_have_no_mailbox() {
    let cases: [Option<Intc>; 5] = [
        // No node at all.
        None,
        // Another interrupt controller.
        Some((
            "intc@40000000",
            "brcm,bcm2835-armctrl-ic",
            &[0x4000_0000, 0x100],
            "okay",
        )),
        // Disabled.
        Some((
            "local_intc@40000000",
            "brcm,bcm2836-l1-intc",
            &[0x4000_0000, 0x100],
            "disabled",
        )),
        // Registers that end before the last CPU's mailbox 3 clear register (0xcc + 0x30).
        Some((
            "local_intc@40000000",
            "brcm,bcm2836-l1-intc",
            &[0x4000_0000, 0xfc],
            "okay",
        )),
        // An address /soc's ranges do not translate.
        Some((
            "local_intc@50000000",
            "brcm,bcm2836-l1-intc",
            &[0x5000_0000, 0x100],
            "okay",
        )),
    ];
    for (i, intc) in cases.into_iter().enumerate() {
        let dtb = pi2_tree(intc);
        let p = discover(Some(&dtb));
        let cpus: Vec<_> = p.cpus().iter().map(|c| c.enable).collect();
        if i == 3 {
            // Only the last CPU's registers are cut off.
            let ok = |m| bcm2836(Some(m));
            assert_eq!(
                cpus,
                [
                    ok(0x4000_008c),
                    ok(0x4000_009c),
                    ok(0x4000_00ac),
                    bcm2836(None)
                ]
            );
        } else {
            assert_eq!(cpus, [bcm2836(None); 4], "case {i}");
        }
    }
}

#[test]
fn a_bcm2836_cpu_numbered_beyond_its_four_mailboxes_has_none() {
    let dtb = minimal_tree("/uart@1c090000", |b| {
        b.begin("local_intc@40000000")
            .str("compatible", "brcm,bcm2836-l1-intc")
            .cells("reg", &[0, 0x4000_0000, 0, 0x100])
            .end();
        b.begin("cpus")
            .cells("#address-cells", &[1])
            .cells("#size-cells", &[0]);
        for mpidr in [0xf03, 0xf04] {
            b.begin(&format!("cpu@{mpidr:x}"))
                .str("device_type", "cpu")
                .cells("reg", &[mpidr])
                .str("enable-method", "brcm,bcm2836-smp")
                .end();
        }
        b.end();
    });
    let p = discover(Some(&dtb));
    let cpus: Vec<_> = p.cpus().iter().map(|c| c.enable).collect();
    assert_eq!(cpus, [bcm2836(Some(0x4000_00bc)), bcm2836(None)]);
}

#[test]
fn spin_table_cpus_carry_their_release_address() {
    let dtb = many_cpus(4, "spin-table");
    let p = discover(Some(&dtb));
    let releases: Vec<_> = p.cpus().iter().map(|c| c.enable).collect();
    let spin = |release| Enable::SpinTable { release };
    assert_eq!(
        releases,
        [
            spin(0x8000_0000),
            spin(0x8000_0008),
            spin(0x8000_0010),
            spin(0x8000_0018)
        ]
    );
    assert_eq!(p.cpus()[0].enable.name(), "spin-table");
    // A missing, zero, odd-sized or unaligned release address is named, never used.
    for value in [
        &[][..],
        &[0u8; 8][..],
        &[0, 0, 0, 0, 0, 0, 0, 4][..],
        &[1, 2, 3][..],
    ] {
        let dtb = minimal_tree("/uart@1c090000", |b| {
            b.begin("cpus")
                .cells("#address-cells", &[1])
                .cells("#size-cells", &[0]);
            b.begin("cpu@0")
                .str("device_type", "cpu")
                .cells("reg", &[0])
                .str("enable-method", "spin-table");
            if !value.is_empty() {
                b.prop("cpu-release-addr", value);
            }
            b.end().end();
        });
        let p = discover(Some(&dtb));
        assert_eq!(p.cpus()[0].enable, Enable::SpinTableWithoutAddress);
    }
}
