//! Which firmware memory type each Linux twin source behaves like: `cargo host compare
//! FIRMWARE_LOG LINUX_LOG` (either order) on a firmware log and a `mairbench-linux` log of
//! one board.
//!
//! # Method
//!
//! - **Features.** For every bandwidth kernel (core's kernel table, `Unit::Bandwidth`) and
//!   size present in both logs (firmware rows on 4K pages only), the natural log of the
//!   ratio of the result's best MB/s to its own log's reference at the same kernel and size:
//!   core's write-back type ([`FIRMWARE_BASELINE`](crate::read::model::FIRMWARE_BASELINE)) in the firmware log, the heap's memory
//!   ([`TWIN_BASELINE`](crate::read::model::TWIN_BASELINE)) in the twin log. A value that is missing, zero, negative or not
//!   finite (the result's or the reference's) gives no feature there.
//! - **The reference is not classified.** The twin reference's features are all 0 by
//!   construction, as the write-back type's are: it is the twin's yardstick, taken to be the
//!   heap's type, and listed as the reference with its count of points only.
//! - **Distance** between a Linux source and a firmware memory type: the RMS of the feature
//!   differences over their common points, with the count of points; fewer than
//!   `MIN_POINTS` (2) common points: "too few common points", no label.
//! - **Board resolution.** Firmware memory types whose mutual distance is below
//!   `TAU` = ln(1.35) are joined into one group (single linkage): indistinguishable on
//!   this board. The source's nearest group is the one holding its nearest type. The label
//!   is the source's expected type when that type is in the nearest group, else the nearest
//!   type; the output lists the group's other members ("tied with"). The expected type is
//!   the twin's `source` record's `expected` where it has one (the twin knows a DRM
//!   source's driver, and the driver's mapping: vgem's dumb buffer is `normal-nc`), else
//!   core's source table's (`source::by_name(..).expected`).
//! - **Confidence** = 1 − d_nearest / d_nearest_outside_group, clamped to 0..1; 0 when
//!   there is only one group (or no type outside the group has enough common points): the
//!   board times every memory type alike, so the label is only what Linux documents;
//!   shown as a percentage with a word: ≥ 60 % high, ≥ 30 % medium, else low.
//! - **Emulated.** When either log's start record says `emulated: true` (or the platform is
//!   QEMU's `linux,dummy-virt`), every row's confidence reads "emulated (97 %)", and a line
//!   under the table says what QEMU's timings can tell: under TCG (QEMU without KVM; the
//!   evidence is the runner's `mairbench.host=` bootarg, `emulated_by` holding `bootarg`)
//!   caches are not modelled and only Device vs Normal shows (TCG's slow path for Device
//!   pages); on a QEMU machine known only by its tables it may be TCG or KVM. Either way the
//!   type within a group is what Linux documents, not a measurement.
//! - **Agreement.** The expected type and its `pgprot` (the record's driver's, from core's
//!   DRM driver table, else core's source table's), with the driver where the record names
//!   one, and whether the nearest group contains it: "yes", `NO: behaves like <label>`; "—"
//!   when neither the record nor the table has an expected type.
//! - Sources with error records are listed with their error, not classified.
//! - A warning when the two logs are from different boards (the start records' `midr`
//!   differ, or their `platform`, where both are known): the comparison only means
//!   something on one board.
//!
//! [`features`] makes the features and the board's groups, [`label`] classifies each source,
//! [`logs`] reads the two logs ([`compare`]), [`text`] renders the result.

pub mod features;
pub mod label;
pub mod logs;
#[cfg(test)]
mod test_boards;
#[cfg(test)]
mod test_logs;
pub mod text;

pub use label::{Agreement, Classification, Label, Reference};
pub use logs::{compare, Comparison};
pub use text::{csv, json, table};
