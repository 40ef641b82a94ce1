//! The link to QEMU or a board, beside the analysis on the [`crate::read`] layer: getting a
//! console log. [`capture`] keeps QEMU's console or a serial port's in a log (for `run` and
//! `capture`), [`console`] is a board's serial console (typed into by a person or by a U-Boot
//! script), [`ymodem`] uploads a file to U-Boot's `loady`.

pub mod capture;
pub mod console;
pub mod ymodem;
