//! The firmware booted in QEMU (system emulation, through `qemu/run`): every machine, CPU,
//! entry EL and boot path, the output contract, the benchmark engine, the memory-type proof,
//! the cores, the verdicts and the failures, the 32-bit image (armv7.rs), and the
//! documentation's console excerpts. One module per subject.

#[path = "../common/mod.rs"]
mod common;

mod armv7;
mod bench;
mod boards_qemu;
mod boot_paths;
mod compare_noise;
mod console;
mod contract;
mod docs;
mod emulation;
mod entry;
mod failures;
mod framebuffer;
mod image;
mod matrix;
mod memory;
mod pmu;
mod raspi;
mod rejudge;
mod reserved;
mod schema;
mod smp;
mod uefi;
mod verdicts;
