//! Whether a run is emulated, and what says so: QEMU's own device trees mark themselves,
//! real boards' trees do not (also when one of QEMU's board machines boots them), and the
//! runner's `mairbench.host=` marks any run.

mod common;

use common::{dtb_dir, fixture, minimal_tree};
use mairbench_core::bootargs;
use mairbench_core::emulation::Emulation;
use mairbench_core::platform::{discover, Platform, QEMU_VIRT};

/// What qemu/run adds to the command line under QEMU 10.0.2.
const RUNNER_ARGS: &str = "mairbench.quick mairbench.host=qemu-10.0.2";

fn emulation<'a>(p: &Platform<'_>, cmdline: &'a str) -> Emulation<'a> {
    Emulation::of(p, bootargs::host(cmdline))
}

fn by(e: &Emulation<'_>) -> Vec<&'static str> {
    e.by().collect()
}

#[test]
fn qemu_virt_trees_are_emulated_by_their_root_compatible() {
    // QEMU 10's dumpdtb of virt at EL1, EL2 and EL3 (secure=on).
    for name in ["qemu-virt.dtb", "qemu-virt-el2.dtb", "qemu-virt-el3.dtb"] {
        let dtb = fixture(name);
        let p = discover(Some(&dtb));
        assert!(p.emulated, "{name}");
        assert_eq!(
            p.qemu_mark,
            Some("root compatible linux,dummy-virt"),
            "{name}"
        );
        let e = emulation(&p, "mairbench.quick");
        assert!(e.emulated());
        assert_eq!(by(&e), ["dtb"], "{name}");
        assert_eq!(
            e.to_string(),
            "device tree: root compatible linux,dummy-virt"
        );
        let e = emulation(&p, RUNNER_ARGS);
        assert_eq!(by(&e), ["bootarg", "dtb"], "{name}");
        assert_eq!(e.host, Some("qemu-10.0.2"));
        assert_eq!(
            e.to_string(),
            "mairbench.host=qemu-10.0.2 (the runner); device tree: root compatible \
             linux,dummy-virt"
        );
    }
}

#[test]
fn qemu_devices_mark_a_tree_without_the_virt_compatible() {
    // A tree of one's own for virt (MAIRBENCH_DTB) may name another compatible, but still
    // holds QEMU's fw-cfg or platform bus.
    for (compatible, mark) in [
        ("qemu,fw-cfg-mmio", "a qemu,fw-cfg-mmio node"),
        ("qemu,platform\0simple-bus", "a qemu,platform bus"),
    ] {
        let dtb = minimal_tree("/uart@1c090000", |b| {
            b.begin("qemu-device@9020000")
                .prop("compatible", format!("{compatible}\0").as_bytes())
                .cells("reg", &[0, 0x0902_0000, 0, 0x18])
                .end();
        });
        let p = discover(Some(&dtb));
        assert_eq!(p.model, "test,minimal");
        assert_eq!(p.qemu_mark, Some(mark), "{compatible:?}");
        assert!(p.emulated);
        assert_eq!(by(&emulation(&p, "")), ["dtb"]);
    }
    // Deeper than the root's children, or only in a name, it marks nothing.
    let dtb = minimal_tree("/uart@1c090000", |b| {
        b.begin("soc")
            .begin("fw-cfg@9020000")
            .str("compatible", "qemu,fw-cfg-mmio")
            .end()
            .end();
        b.begin("fw-cfg@9030000")
            .str("compatible", "vendor,cfg")
            .end();
    });
    assert_eq!(discover(Some(&dtb)).qemu_mark, None);
}

#[test]
fn without_a_device_tree_only_the_bootarg_tells() {
    let p = discover(None);
    assert!(!p.emulated && p.qemu_mark.is_none());
    assert_eq!(QEMU_VIRT.qemu_mark, None);
    let e = emulation(&p, "");
    assert!(!e.emulated());
    assert_eq!(by(&e), Vec::<&str>::new());
    assert_eq!(e.to_string(), "not emulated");
    let e = emulation(&p, "mairbench.host=qemu-7.2.0");
    assert!(e.emulated());
    assert_eq!(by(&e), ["bootarg"]);
    // A bad value is no host: not emulated (parse warns about it).
    assert!(!emulation(&p, "mairbench.host=qemu/7").emulated());
    assert!(!emulation(&p, "mairbench.host=").emulated());
}

#[test]
fn real_boards_are_not_emulated_unless_the_runner_says_so() {
    // The trees QEMU's board machines boot (raspi3b, raspi4b, imx8mp-evk, xlnx-zcu102) and
    // two more: QEMU adds /chosen and /memory to them, nothing that marks it (checked on
    // their dumpdtb under QEMU 10.0.2), so only mairbench.host= tells.
    for name in [
        "bcm2837-rpi-3-b.dtb",
        "bcm2711-rpi-4-b.dtb",
        "imx8mp-evk.dtb",
        "zynqmp-zcu102-rev1.0.dtb",
        "rk3399-rockpro64.dtb",
        "sun50i-h6-pine-h64.dtb",
    ] {
        let path = dtb_dir().join(name);
        let dtb = std::fs::read(&path).unwrap_or_else(|e| {
            panic!(
                "{}: {e}: run qemu/dtbs (test.sh does) to fetch the boards' DTBs",
                path.display()
            )
        });
        let p = discover(Some(&dtb));
        assert!(p.dtb_ok, "{name}");
        assert!(!p.emulated && p.qemu_mark.is_none(), "{name}");
        let alone = emulation(&p, "mairbench.quick");
        assert!(!alone.emulated(), "{name}");
        let e = emulation(&p, RUNNER_ARGS);
        assert!(e.emulated(), "{name}");
        assert_eq!(by(&e), ["bootarg"], "{name}");
        assert_eq!(
            e.to_string(),
            "mairbench.host=qemu-10.0.2 (the runner); nothing in the device tree marks QEMU"
        );
    }
}

#[test]
fn only_qemus_virt_tree_is_taken_from_the_base_of_ram() {
    use mairbench_core::platform::is_qemu_virt_dtb;
    for name in ["qemu-virt.dtb", "qemu-virt-el2.dtb", "qemu-virt-el3.dtb"] {
        assert!(is_qemu_virt_dtb(&fixture(name)), "{name}");
    }
    // A real board's tree (what a board's RAM may hold, stale), or no tree at all: no.
    let pi4 = std::fs::read(dtb_dir().join("bcm2711-rpi-4-b.dtb")).expect("qemu/dtbs ran");
    assert!(!is_qemu_virt_dtb(&pi4));
    assert!(!is_qemu_virt_dtb(b"\xd0\x0d\xfe\xed garbage"));
    assert!(!is_qemu_virt_dtb(&[]));
}
