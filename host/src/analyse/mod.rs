//! The second layer: what a log (or two) means, as text and as the contents of files, one
//! module per command that reads logs: [`report`], [`compare`] (with [`classify`] for a
//! firmware log against a twin log), [`table`], [`verdicts`] and [`why`]. Each reads the
//! [`crate::read`] layer only.

pub mod classify;
pub mod compare;
pub mod report;
pub mod table;
pub mod verdicts;
pub mod why;
