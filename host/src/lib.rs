//! Host side of mairbench: the companion tool `cargo host` (run in QEMU, capture from a
//! board, report, compare) and what the QEMU integration tests use to read the console.

pub mod capture;
pub mod chart;
pub mod classify;
pub mod compare;
pub mod console;
pub mod failure;
pub mod fleet;
pub mod read;
pub mod rejudge;
pub mod report;
pub mod ymodem;

pub use read::log::{records, BadRecord};
