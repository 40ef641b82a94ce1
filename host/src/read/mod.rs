//! The lowest layer: what a log says. [`model`] holds a run as the host tool works with it,
//! [`log`] reads a console log into one, and [`text`] formats sizes, values, CSV rows and
//! dates the same way for every command above.

#[cfg(test)]
pub(crate) mod armv7_sample;
pub mod log;
pub mod model;
pub mod text;
