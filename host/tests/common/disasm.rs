//! The built binaries, disassembled by the toolchain's llvm-objdump (the llvm-tools component
//! rust-toolchain.toml installs), and one function's instructions out of it: what the tests
//! of the measured loops and the boot code read.

use std::path::{Path, PathBuf};
use std::process::Command;

/// llvm-objdump of the toolchain's llvm-tools.
pub fn objdump() -> PathBuf {
    let sysroot = Command::new("rustc")
        .args(["--print", "sysroot"])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_owned())
        .unwrap_or_default();
    std::fs::read_dir(Path::new(&sysroot).join("lib/rustlib"))
        .into_iter()
        .flatten()
        .flatten()
        .map(|d| d.path().join("bin/llvm-objdump"))
        .find(|p| p.is_file())
        .expect("llvm-objdump of the llvm-tools component (qemu/toolchain adds it)")
}

/// `elf`, disassembled (no raw bytes).
pub fn disassemble(elf: &Path) -> String {
    let out = Command::new(objdump())
        .args(["-d", "--no-show-raw-insn"])
        .arg(elf)
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The instructions of function `symbol`, as (address, mnemonic, operands); empty when the
/// disassembly has no such function.
pub fn function(disassembly: &str, symbol: &str) -> Vec<(u64, String, String)> {
    let mut body = Vec::new();
    let mut inside = false;
    for line in disassembly.lines() {
        if line.ends_with(&format!("<{symbol}>:")) {
            inside = true;
            continue;
        }
        if !inside {
            continue;
        }
        if line.trim().is_empty() || line.ends_with(">:") {
            break;
        }
        let Some((addr, rest)) = line.trim().split_once(':') else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr.trim(), 16) else {
            continue;
        };
        let mut parts = rest.split_whitespace();
        let mnemonic = parts.next().unwrap_or("").to_owned();
        let operands = parts.collect::<Vec<_>>().join(" ");
        body.push((addr, mnemonic, operands));
    }
    body
}
