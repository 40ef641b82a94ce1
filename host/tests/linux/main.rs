//! mairbench-linux, the Linux twin: in a real Linux boot under QEMU (`MAIRBENCH_BOOT=linux`)
//! and under user-mode QEMU (`qemu-aarch64`).

#[path = "../common/mod.rs"]
mod common;

mod linux;
mod twin;
