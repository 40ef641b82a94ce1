//! The host tool (`cargo host`, the `mairbench-host` binary) on its own: its command line on
//! checked-in logs, property tests of its parser, the classification of a Linux twin's
//! sources, the fleet table, and armv7 logs beside AArch64 ones.

#[path = "../common/mod.rs"]
mod common;

mod armv7;
mod classify;
mod cli;
mod cli_props;
mod fleet;
