//! `simple-framebuffer` nodes as U-Boot and the Raspberry Pi firmware write them (Linux's
//! `Documentation/devicetree/bindings/display/simple-framebuffer.yaml`), read by
//! `Framebuffer::from_dt`.

mod common;

use common::{minimal_tree, DtBuilder};
use mairbench_core::fb::{Framebuffer, PixelFormat, Problem, Source};
use mairbench_core::fdt::Fdt;

/// A framebuffer node: 640x480 at 0x7f000000, in `/chosen` (one-cell addresses and sizes)
/// when `in_chosen`, else at the root (two cells each).
fn node(b: &mut DtBuilder, in_chosen: bool, unit: &str, status: &str, format: &str, stride: u32) {
    b.begin(&format!("framebuffer@{unit}"))
        .str("compatible", "simple-framebuffer");
    if in_chosen {
        b.cells("reg", &[0x7f00_0000, 0x12_c000]);
    } else {
        b.cells("reg", &[0, 0x7f00_0000, 0, 0x12_c000]);
    }
    b.cells("width", &[640]).cells("height", &[480]);
    if stride > 0 {
        b.cells("stride", &[stride]);
    }
    b.str("format", format);
    if !status.is_empty() {
        b.str("status", status);
    }
    b.end();
}

fn read(tree: &[u8]) -> Option<Result<Framebuffer, String>> {
    let fdt = Fdt::new(tree).expect("a valid tree");
    Framebuffer::from_dt(fdt).map(|r| r.map_err(|p| p.to_string()))
}

fn at_root(status: &str, format: &str, stride: u32) -> Option<Result<Framebuffer, String>> {
    read(&minimal_tree("/uart@1c090000", |b| {
        node(b, false, "7f000000", status, format, stride)
    }))
}

#[test]
fn a_root_node_with_two_cells() {
    assert_eq!(
        at_root("", "a8r8g8b8", 2560),
        Some(Ok(Framebuffer {
            base: 0x7f00_0000,
            size: 0x12_c000,
            width: 640,
            height: 480,
            stride: 2560,
            format: PixelFormat::Xrgb8888,
            source: Source::Dtb,
        }))
    );
    let fb = at_root("okay", "r5g6b5", 1280).unwrap().unwrap();
    assert_eq!(fb.format, PixelFormat::Rgb565);
}

#[test]
fn a_node_in_chosen_with_its_cells() {
    let mut b = DtBuilder::default();
    b.begin("")
        .cells("#address-cells", &[2])
        .cells("#size-cells", &[2]);
    b.begin("chosen")
        .cells("#address-cells", &[1])
        .cells("#size-cells", &[1]);
    node(&mut b, true, "7f000000", "disabled", "a8r8g8b8", 2560);
    node(&mut b, true, "7f100000", "okay", "x8b8g8r8", 2560);
    b.end();
    let fb = read(&b.end().finish()).unwrap().unwrap();
    assert_eq!(
        (fb.base, fb.size, fb.format),
        (0x7f00_0000, 0x12_c000, PixelFormat::Xbgr8888),
        "the disabled one skipped, the second read with /chosen's one-cell reg"
    );
}

#[test]
fn disabled_absent_or_unusable() {
    assert_eq!(at_root("disabled", "a8r8g8b8", 2560), None);
    assert_eq!(read(&minimal_tree("/uart@1c090000", |_| {})), None);
    let err = at_root("", "r8g8b8", 1920).unwrap().unwrap_err();
    assert!(err.contains("\"r8g8b8\" is not drawn"), "{err}");
    let err = at_root("", "a8r8g8b8", 2000).unwrap().unwrap_err();
    assert!(err.contains("geometry"), "{err}");
    assert_eq!(
        at_root("", "a8r8g8b8", 0),
        Some(Err(Problem::Properties.to_string()))
    );
}
