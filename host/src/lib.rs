//! Host side of mairbench: the companion tool `cargo host` (run in QEMU, capture from a
//! board, report, compare) and what the QEMU integration tests use to read the console.
//!
//! The tool is built in layers, each using only the layers below it (docs/extending.md,
//! "Layers of the host tool"; `tests/layers.rs` checks it):
//!
//! 1. [`read`]: what a log says (the model of a run, the log reader, shared formatting);
//! 2. [`link`]: getting a log (QEMU's console, a board's serial console, the YMODEM upload),
//!    and [`analyse`]: what a log means (a module per command that reads logs);
//! 3. [`draw`]: SVG charts;
//! 4. [`write`](mod@write): the files each command writes;
//! 5. [`command`]: each command's run, which `main.rs` (the command line) calls.
//!
//! Without the default feature `tool`, only [`read`] and [`analyse`] are built: what the
//! runner uses to judge a log, without the crates of the charts and the consoles.

#![deny(missing_docs)]

pub mod analyse;
#[cfg(feature = "tool")]
pub mod command;
#[cfg(feature = "tool")]
pub mod draw;
#[cfg(feature = "tool")]
pub mod link;
pub mod read;
#[cfg(feature = "tool")]
pub mod write;

pub use read::log::{records, BadRecord};
