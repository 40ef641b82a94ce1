//! The tools for real boards and labs: LAVA's job templates and `lava-run`, `cargo host
//! console` against a stand-in board on a pseudo-terminal, the YMODEM sender, and the
//! Raspberry Pi 4 boot partition.

#[path = "../common/mod.rs"]
mod common;

mod lava;
mod rpi4;
mod serial_console;
mod ymodem;
