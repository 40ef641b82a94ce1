//! How each series is drawn: a memory type's look from core's memory-type table, a twin's
//! source's from core's source table, and the palette of one chart.

use crate::read::model;
use mairbench_core::memtype::{self, Class, MEMTYPES};
use mairbench_core::source::{self, SOURCES};
use plotters::prelude::*;
use std::collections::BTreeMap;

/// A marker shape.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A circle.
    Circle,
    /// A square.
    Square,
    /// A triangle pointing up.
    TriangleUp,
    /// A diamond.
    Diamond,
    /// A triangle pointing down.
    TriangleDown,
    /// A plus sign.
    Plus,
    /// A pentagon.
    Pentagon,
    /// An hourglass (two triangles tip to tip).
    Hourglass,
    /// A hexagon.
    Hexagon,
    /// A bow tie (the hourglass on its side).
    Bowtie,
}

/// How one memory type is drawn: colour, marker shape and line width (px).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Look {
    /// Line and marker colour.
    pub colour: RGBColor,
    /// Marker shape.
    pub shape: Shape,
    /// Line width in pixels.
    pub width: u32,
}

/// The look of each memory type, by place in [`MEMTYPES`]: distinct colours ("tab10"
/// without its two closest), distinct shapes, widths 7, 5, 3, 1 px within each class.
/// Whether the marker is filled comes from the type's class.
pub const LOOKS: [Look; MEMTYPES.len()] = [
    look_of(31, 119, 180, Shape::Circle, 7),
    look_of(255, 127, 14, Shape::Square, 5),
    look_of(44, 160, 44, Shape::TriangleUp, 3),
    look_of(214, 39, 40, Shape::Diamond, 1),
    look_of(148, 103, 189, Shape::TriangleDown, 7),
    look_of(140, 86, 75, Shape::Plus, 5),
    look_of(23, 190, 207, Shape::Pentagon, 3),
    look_of(188, 189, 34, Shape::Hourglass, 1),
];

/// The look of each of the twin's source kinds, by place in core's [`SOURCES`] (keyed by its
/// [`source::Form`]): `anon`, `udmabuf`, `dma-heap:`, the BAR's `_wc` form, the BAR, `devmem:`,
/// `drm-dumb:`, `dma-buf:`, `devmem-ram`. Distinct colours and shapes; widths shrink over the sources that should behave
/// like Normal memory (7, 5, 4, 3 px), so that `anon`, `udmabuf` and a `_wc` BAR, which tie
/// under QEMU, show as nested bands. Whether the marker is filled comes from the memory type
/// the source table expects ([`source::SourceSpec::expected`]): hollow for a Device type.
/// Two sources of one kind in a chart (two BARs) are told apart by colour.
pub const SOURCE_LOOKS: [Look; SOURCES.len()] = [
    look_of(31, 119, 180, Shape::Circle, 7),
    look_of(255, 127, 14, Shape::Square, 5),
    look_of(44, 160, 44, Shape::TriangleUp, 4),
    look_of(214, 39, 40, Shape::Diamond, 3),
    look_of(148, 103, 189, Shape::TriangleDown, 5),
    look_of(140, 86, 75, Shape::Plus, 3),
    look_of(188, 189, 34, Shape::Pentagon, 1),
    look_of(255, 187, 120, Shape::Hexagon, 1),
    look_of(127, 60, 141, Shape::Bowtie, 3),
];

const fn look_of(r: u8, g: u8, b: u8, shape: Shape, width: u32) -> Look {
    Look {
        colour: RGBColor(r, g, b),
        shape,
        width,
    }
}

/// Colours of memory types the table does not know.
pub(super) const EXTRA_COLOURS: [RGBColor; 4] = [
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(0, 0, 0),
    RGBColor(0, 0, 128),
];

/// The look of a series and whether its marker is filled. A memory type: from [`LOOKS`] by
/// its place in [`MEMTYPES`], filled for Normal memory (hollow for a series marked with its
/// granule, see [`model::series`]). A twin's source: from [`SOURCE_LOOKS`] by its kind, filled
/// unless the source table expects a Device type. Any other name gets a look hashed from it,
/// 2 px wide.
pub(super) fn look(memtype: &str) -> (Look, bool) {
    let base = model::series_memtype(memtype);
    if let Some(t) = memtype::by_any_name(base) {
        let marked = base != memtype;
        return (
            LOOKS[usize::from(t.index)],
            t.class() != Class::Device && !marked,
        );
    }
    if let Some(spec) = source::by_name(memtype) {
        let device = spec
            .expected
            .and_then(memtype::by_any_name)
            .is_some_and(|t| t.class() == Class::Device);
        return (SOURCE_LOOKS[spec.kind as usize], !device);
    }
    // FNV-1a: stable across charts and runs.
    let h = memtype.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let shape = LOOKS[((h / 4) % LOOKS.len() as u64) as usize].shape;
    (
        Look {
            colour: EXTRA_COLOURS[(h % 4) as usize],
            shape,
            width: 2,
        },
        (h / 64) % 2 == 0,
    )
}

/// The looks of one chart's series: [`look`] of each, except that a second (third...) source
/// of one kind (two BARs, two DMA heaps) takes the next of [`EXTRA_COLOURS`], so that no two
/// series of a chart look the same.
pub(super) struct Palette(BTreeMap<String, (Look, bool)>);

impl Palette {
    /// The looks of `names`, in chart order ([`order`]).
    pub(super) fn of(names: &[&str]) -> Palette {
        let mut sorted = names.to_vec();
        sorted.sort_by_key(|n| order(n));
        let mut looks = BTreeMap::new();
        let mut seen = [0usize; SOURCES.len()];
        for name in sorted {
            let mut l = look(name);
            if let Some(spec) = source::by_name(name) {
                let n = &mut seen[spec.kind as usize];
                if *n > 0 {
                    l.0.colour = EXTRA_COLOURS[(*n - 1) % EXTRA_COLOURS.len()];
                }
                *n += 1;
            }
            looks.insert(name.to_string(), l);
        }
        Palette(looks)
    }

    /// The look of `name` (one of the chart's).
    pub(super) fn get(&self, name: &str) -> (Look, bool) {
        self.0.get(name).copied().unwrap_or_else(|| look(name))
    }
}

/// Sort key of a series: the memory-type table's order ([`model::table_position`]), then the
/// source table's ([`SOURCES`], for a twin's sources), then by name (unknown types, a type's
/// series on two granules, two sources of one kind).
pub(super) fn order(memtype: &str) -> (usize, usize, &str) {
    let source = source::by_name(memtype).map_or(SOURCES.len(), |s| s.kind as usize);
    (model::table_position(memtype), source, memtype)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memtype_looks_are_distinct_and_fixed() {
        // normal-nc keeps its colour (4th of the palette) whatever else is drawn.
        assert_eq!(look("normal-nc").0.colour, RGBColor(214, 39, 40));
        let looks: Vec<_> = MEMTYPES.iter().map(|t| look(t.name)).collect();
        for (i, (l, _)) in looks.iter().enumerate() {
            assert!(
                !looks[..i].iter().any(|o| o.0.colour == l.colour),
                "colours are distinct"
            );
            assert!(
                !looks[..i].iter().any(|o| o.0.shape == l.shape),
                "marker shapes are distinct"
            );
        }
        // Within a class, line widths shrink: equal values show as nested bands.
        for device in [false, true] {
            let widths: Vec<u32> = MEMTYPES
                .iter()
                .filter(|t| (t.class() == Class::Device) == device)
                .map(|t| look(t.name).0.width)
                .collect();
            assert!(widths.windows(2).all(|w| w[0] > w[1]), "{widths:?}");
        }
        // Filled for Normal memory, hollow for Device memory (core's classes).
        assert!(look("normal-nc").1 && look("normal-wb").1);
        assert!(!look("device-ngnrne").1 && !look("device-gre").1);
    }

    #[test]
    fn source_looks_are_distinct() {
        // The source table's looks: distinct colours and shapes, hollow where the table
        // expects a Device type.
        for (i, l) in SOURCE_LOOKS.iter().enumerate() {
            assert!(!SOURCE_LOOKS[..i].iter().any(|o| o.colour == l.colour));
            assert!(!SOURCE_LOOKS[..i].iter().any(|o| o.shape == l.shape));
            assert!(
                !EXTRA_COLOURS.contains(&l.colour),
                "kept for a kind's second source"
            );
        }
        assert!(look("anon").1 && look("udmabuf").1 && look("pci:0000:00:01.0:res2_wc").1);
        assert!(!look("pci:0000:00:01.0:res2").1 && !look("devmem:0x40000000+64K").1);
        assert_eq!(look("anon").0.colour, RGBColor(31, 119, 180));
    }
}
