//! The third layer: SVG charts of a run's measurements (value against working-set size, one
//! line per memory type), of two runs compared, and of the fleet table.
//!
//! Every chart has a title (with the platform), one or more panels side by side, and a
//! legend column to the right of the panels, so the legend never covers data. The x axis is
//! the working-set size on a log2 scale ("4K", "64K", "1M"...) (for [`scaling()`], the cores
//! running at once), the y axis the kernel's unit from 0 (or, for [`compare()`] and [`ratio()`],
//! a ratio); when a panel's values span more than [`LOG_Y_ABOVE`] times (4 ns next to 14 ns
//! does not, 600 MB/s next to 15000 MB/s does) the y axis is a log10 scale and says so; its
//! ends are then grid values, both labelled. Reported cache sizes are vertical
//! dashed lines labelled "L1 32K" in a strip above the plot, never over the data; in an
//! emulated run "guest L1 32K", with a note that the steps come from QEMU's software TLB and
//! the host ([`GUEST_CACHES_NOTE`]). Lines under the title also name the memory types the
//! firmware skipped for a kernel and why, and warn, in the scaling chart of an emulated run,
//! about more vCPUs than host cores ([`scaling_note`]). Each memory type has the
//! same colour, marker and line width in every chart, from one table ([`LOOKS`]) in the
//! order of core's memory-type table ([`MEMTYPES`](mairbench_core::memtype::MEMTYPES)): eight colours, eight marker shapes,
//! filled for Normal types and hollow for Device ones (the table's [`Class`](mairbench_core::memtype::Class)), and line
//! widths that shrink within a class so that types with equal values (as under QEMU) show as
//! nested bands instead of one line. A Linux twin's sources are drawn the same way from
//! their own table ([`SOURCE_LOOKS`]), keyed by the kind of source in core's source table.
//!
//! The SVG has exactly one `<polyline>` per drawn series (memory type x panel): markers,
//! dashes, legend swatches and reference lines are drawn as circles, rectangles and
//! polygons. Text is laid out with plotters' built-in estimate (no font library is needed);
//! the viewer renders it with its own sans-serif font.
//!
//! One module per kind of figure: [`values`] (a run's values: [`pair`], [`single`],
//! [`panels_of`]), [`ratio`](mod@ratio) (over the baseline), [`scaling`](mod@scaling) (over
//! cores), [`compare`](mod@compare) (two runs, B/A), [`fleet`](mod@fleet) (the fleet table's
//! ratios), [`matrix`] (the core-to-core latency, a heat map drawn directly). Under them: [`frame`] (title, panels, legend), [`notes`] (what is said around
//! the data), [`panel`], [`axis`], [`marker`], [`look`] and [`style`].

pub mod axis;
pub mod compare;
pub mod fleet;
pub mod frame;
pub mod look;
pub mod marker;
pub mod matrix;
pub mod notes;
pub mod panel;
pub mod ratio;
pub mod scaling;
pub mod strided;
pub mod style;
#[cfg(test)]
mod testing;
pub mod values;

pub use compare::{compare, Pair};
pub use fleet::{fleet, Fleet, FleetValue};
pub use look::{Look, Shape, LOOKS, SOURCE_LOOKS};
pub use matrix::core_to_core;
pub use ratio::ratio;
pub use scaling::{scaling, scaling_note};
pub use strided::strided;
pub use style::{EMULATED_NOTE, GUEST_CACHES_NOTE, LOG_Y_ABOVE};
pub use values::{pair, panels_of, single};
