//! mairbench-linux, the Linux twin: in a real Linux boot under QEMU (`MAIRBENCH_BOOT=linux`)
//! and under user-mode QEMU (`qemu-aarch64`, and `qemu-arm` for the 32-bit twin).

#[path = "../common/mod.rs"]
mod common;

mod linux;
mod twin;
mod twin_armv7;
