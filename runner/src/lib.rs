//! The runner: cargo's runner for the firmware (`cargo run --release -- BOOTARGS`,
//! `./run.sh`), which boots an ELF in QEMU and judges the run, and the judge of a saved
//! console log. `qemu/run` and `qemu/judge` are shims that build and start this program
//! (`mairbench-runner run ELF [BOOTARGS…]`, `mairbench-runner judge LOG [QEMU_EXIT_STATUS]`);
//! the settings are the `MAIRBENCH_*` variables of [`settings::SETTINGS`], the one table that
//! `docs/runner.md`'s is rendered from.
//!
//! Why a crate of its own, beside `host/`, `linux/` and `lava/`, rather than a `cargo host`
//! command: the runner is the part of the project that makes runs, the host tool the part that
//! reads them. The runner depends on the host tool's library for the one thing they share,
//! reading a log ([`judge`] uses its record reader and the lead of its report), and on core;
//! nothing depends on the runner, so the arrows stay one-way (the host tool starts `qemu/run`
//! as a process for `cargo host run`). The host's integration tests start the built runner
//! directly, once it is built, instead of the shim.
//!
//! Modules, lowest first: [`settings`] (the table), [`arch`] (which image an ELF is, and the
//! CPU models that run it), [`boards`] (the real boards' machines, one table for both images)
//! and [`sys`] (tools and files, faked in the tests); [`config`] (one run's settings, checked together); [`qemu`] (the machine's command
//! line), [`disk`] (U-Boot's environment, FAT disks), [`boot`] (the boot paths) and [`linux`]
//! (the Linux boot and its initramfs); [`console`] (QEMU under the time limit) and [`judge`];
//! [`run`], one run from start to end.
//!
//! Exit statuses: 0 pass, 1 fail or no end record, 2 a bad setting, 3 a tool failed or is
//! missing, 124 QEMU timed out and was killed.

#![warn(missing_docs)]

pub mod arch;
pub mod boards;
pub mod boot;
pub mod config;
pub mod console;
pub mod disk;
pub mod judge;
pub mod linux;
pub mod qemu;
pub mod run;
pub mod settings;
pub mod sys;

use std::path::Path;

/// The command line of `mairbench-runner` (without the program's name): `run ELF
/// [BOOTARGS…]` or `judge LOG [QEMU_EXIT_STATUS]`. Returns the exit status.
pub fn main(args: &[String]) -> i32 {
    match args.split_first() {
        Some((cmd, rest)) if cmd == "run" => match rest.split_first() {
            Some((elf, bootargs)) => run::run(Path::new(elf), bootargs),
            None => {
                eprintln!("mairbench: usage: qemu/run path/to/mairbench [bootargs ...]");
                2
            }
        },
        Some((cmd, rest)) if cmd == "judge" => {
            let status = match rest {
                [_] => Some(None),
                [_, s] => s
                    .parse::<i32>()
                    .ok()
                    .filter(|_| s.bytes().all(|b| b.is_ascii_digit()))
                    .map(Some),
                _ => None,
            };
            match status {
                Some(status) => judge::judge(Path::new(&rest[0]), status),
                None => {
                    eprintln!("mairbench: usage: qemu/judge LOG [QEMU_EXIT_STATUS]");
                    2
                }
            }
        }
        _ => {
            eprintln!("mairbench: usage: mairbench-runner run ELF [BOOTARGS...] | judge LOG [QEMU_EXIT_STATUS]");
            2
        }
    }
}
