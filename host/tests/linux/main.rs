//! mairbench-linux, the Linux twin: in a real Linux boot under QEMU (`MAIRBENCH_BOOT=linux`,
//! arm64, and armhf for the 32-bit twin)
//! and under user-mode QEMU (`qemu-aarch64`, and `qemu-arm` for the 32-bit twin).

#[path = "../common/mod.rs"]
mod common;

mod linux;
mod linux_armhf;
mod twin;
mod twin_armv7;
