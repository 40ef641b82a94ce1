//! The tools around the firmware, mostly without booting it: the runner's own contract
//! (`qemu/run`, `qemu/judge`), the toolchain installer, the built image's disassembly (its
//! stacks and measured loops), the documentation's figures and pictures, and core's tests
//! after a memory type is renamed.

#[path = "../common/mod.rs"]
mod common;

mod figures;
mod kernels;
mod pictures;
mod rename;
mod runner;
mod stack;
mod toolchain;
