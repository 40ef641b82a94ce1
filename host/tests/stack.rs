//! The main stack's budget, from the firmware's own code: `rust_main` and `main` run before the
//! MMU is on, when the guard page below the main stack does not exist yet, so a frame larger
//! than the stack would not fault there: its stack probes would write into the data below it
//! (measured: a 70 KiB temporary in the results store did exactly that, and the run hung).
//! Their frames, read from the prologues (`sub sp` and the probe loop's `sub x9, sp`), must
//! leave most of the stack to what runs after the MMU is on.

mod common;
use std::process::Command;

/// The main stack's size (linker.ld `.stacks`).
const MAIN_STACK: u64 = 128 * 1024;

/// llvm-objdump of the toolchain's llvm-tools (rust-toolchain.toml installs them).
fn objdump() -> std::path::PathBuf {
    let sysroot = Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    std::fs::read_dir(std::path::Path::new(&sysroot).join("lib/rustlib"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|d| d.path().join("bin/llvm-objdump"))
        .find(|p| p.is_file())
        .expect("llvm-objdump of the llvm-tools component (qemu/toolchain adds it)")
}

/// `#imm` or `#imm, lsl #12` of an instruction's operands, in bytes.
fn immediate(operands: &str) -> Option<u64> {
    let (_, imm) = operands.split_once('#')?;
    let (value, shift) = match imm.split_once(", lsl #") {
        Some((v, s)) => (v, s.split_whitespace().next()?.parse::<u32>().ok()?),
        None => (imm.split_whitespace().next()?, 0),
    };
    let value = match value.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok()?,
        None => value.parse().ok()?,
    };
    Some(value << shift)
}

/// The stack frame of every function, in bytes: a probed frame's size (`sub x9, sp, #…`)
/// plus the other `sub sp, sp, #…` of its prologue, and the pre-indexed `stp … [sp, #-…]!`.
fn frames(disassembly: &str) -> Vec<(String, u64)> {
    let mut out: Vec<(String, u64)> = Vec::new();
    let mut probed = false;
    for line in disassembly.lines() {
        if let Some(name) = line
            .split_once(" <")
            .filter(|(addr, _)| addr.chars().all(|c| c.is_ascii_hexdigit()))
            .and_then(|(_, rest)| rest.strip_suffix(">:"))
        {
            out.push((name.to_owned(), 0));
            probed = false;
            continue;
        }
        let Some((_, frame)) = out.last_mut() else {
            continue;
        };
        let text = line.split('\t').skip(1).collect::<Vec<_>>().join(" ");
        let text = text.trim();
        if let Some(ops) = text.strip_prefix("sub x9, sp, ") {
            *frame += immediate(ops).unwrap_or(0);
            probed = true;
        } else if let Some(ops) = text.strip_prefix("sub sp, sp, ") {
            // The probe loop's page steps are counted in the probed size already.
            if !(probed && ops.starts_with("#0x1, lsl #12")) {
                *frame += immediate(ops).unwrap_or(0);
            }
        } else if text.starts_with("stp ") && text.ends_with("]!") && text.contains("[sp, #-") {
            *frame += immediate(text.rsplit_once("#-").map_or("", |(_, r)| r)).map_or(0, |v| v);
        }
    }
    out
}

#[test]
fn the_code_before_the_mmu_leaves_most_of_the_main_stack() {
    // The ELF test.sh builds (`cargo build --release`) before the tests.
    let out = Command::new(objdump())
        .args(["-d", "--no-show-raw-insn", "--demangle"])
        .arg(common::firmware())
        .output()
        .expect("llvm-objdump runs");
    assert!(out.status.success());
    let frames = frames(&String::from_utf8_lossy(&out.stdout));
    let frame = |prefix: &str| {
        frames
            .iter()
            .filter(|(n, _)| n.starts_with(prefix))
            .map(|&(_, f)| f)
            .max()
            .unwrap_or_else(|| panic!("no function {prefix} in the disassembly"))
    };
    let (rust_main, main) = (frame("rust_main"), frame("mairbench::main::"));
    // The parser reads real prologues: both frames are known to be several KiB.
    assert!(rust_main > 4096 && main > 4096, "{rust_main} {main}");
    assert!(
        rust_main + main <= MAIN_STACK / 2,
        "rust_main ({rust_main} B) and main ({main} B) take more than half of the {MAIN_STACK} B \
         main stack before the MMU (and its guard page) is on"
    );
}
