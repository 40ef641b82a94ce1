//! The stacks before the MMU is on, from the firmware's own code (disassembled):
//!
//! - the main stack's budget: `rust_main` and `main` run before the MMU is on, when the guard
//!   page below the main stack does not exist yet, so a frame larger than the stack would not
//!   fault there: its stack probes would write into the data below it (measured: a 70 KiB
//!   temporary in the results store did exactly that, and the run hung). Their frames, read
//!   from the prologues (`sub sp` and the probe loop's `sub x9, sp`), must leave most of the
//!   stack to what runs after the MMU is on;
//! - the secondary CPUs use no stack at all until their MMU and data cache are on: the boot CPU
//!   maps their stacks Normal write-back, and stack frames written with the MMU off
//!   (Device-nGnRnE) would be a mismatch of memory attributes (Arm ARM B2.8; boot/aarch64/entry.S,
//!   `secondary_el1`, says more).

use crate::common;
use crate::common::disasm::objdump;
use std::collections::{BTreeMap, HashSet};
use std::process::Command;

/// The main stack's size (linker.ld `.stacks`).
const MAIN_STACK: u64 = 128 * 1024;

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
    // The parser reads real prologues: one of the two frames holds the platform's tables
    // and is several KiB (a probed one: rust_main's, 23 KiB, until platform discovery left
    // it; now main's, 23 KiB), the other over 1 KiB (2.3 and 2.9 KiB).
    assert!(
        rust_main.max(main) > 8192 && rust_main.min(main) > 1024,
        "{rust_main} {main}"
    );
    assert!(
        rust_main + main <= MAIN_STACK / 2,
        "rust_main ({rust_main} B) and main ({main} B) take more than half of the {MAIN_STACK} B \
         main stack before the MMU (and its guard page) is on"
    );
}

/// The image's instructions by address, as (mnemonic, operands without comments or symbol
/// names), and its symbols by name (`llvm-objdump -d --no-show-raw-insn`).
type Program = (BTreeMap<u64, (String, String)>, BTreeMap<String, u64>);

fn program(disassembly: &str) -> Program {
    let (mut code, mut symbols) = (BTreeMap::new(), BTreeMap::new());
    for line in disassembly.lines() {
        if let Some((addr, rest)) = line.split_once(" <") {
            if let (Ok(addr), Some(name)) = (u64::from_str_radix(addr, 16), rest.strip_suffix(">:"))
            {
                symbols.insert(name.to_owned(), addr);
                continue;
            }
        }
        let Some((addr, rest)) = line.trim().split_once(':') else {
            continue;
        };
        let Ok(addr) = u64::from_str_radix(addr, 16) else {
            continue;
        };
        let mut fields = rest.trim().splitn(2, char::is_whitespace);
        let mnemonic = fields.next().unwrap_or("").to_owned();
        let operands = fields.next().unwrap_or("");
        let operands = operands.split("//").next().unwrap_or("");
        let operands = operands.split(" <").next().unwrap_or("").trim().to_owned();
        code.insert(addr, (mnemonic, operands));
    }
    (code, symbols)
}

/// What the walk knows of a register's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Value {
    /// Exactly this (`adr`, `adrp` plus `add`, `mov #imm`).
    Exact(u64),
    /// A page address from `adrp`, which an `add` of the low bits completes.
    Page(u64),
    /// At least these bits set (`orr` of a known constant into an unknown value).
    Set(u64),
}

impl Value {
    fn bits(self) -> u64 {
        match self {
            Value::Exact(v) | Value::Page(v) | Value::Set(v) => v,
        }
    }
}

/// One path's state: where it is, the return addresses of its `bl`s, what it knows of the
/// registers (`elr` for the ELR_ELx that `eret` uses).
#[derive(Clone, PartialEq, Eq, Hash)]
struct State {
    pc: u64,
    calls: Vec<u64>,
    regs: BTreeMap<String, Value>,
}

/// `0x…` or a decimal number.
fn number(text: &str) -> Option<u64> {
    let text = text.trim().trim_start_matches('#');
    match text.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16).ok(),
        None => text.parse().ok(),
    }
}

/// The 64-bit name of general register `op` (`w3` and `x3` are `x3`), if it is one.
fn register(op: &str) -> Option<String> {
    let op = op.trim().trim_start_matches('[');
    let n = op.strip_prefix('x').or_else(|| op.strip_prefix('w'))?;
    (n.parse::<u8>().ok()? <= 30).then(|| format!("x{n}"))
}

/// Instructions that write no general register (branches are handled before).
const WRITES_NONE: [&str; 18] = [
    "cmp", "cmn", "tst", "msr", "dsb", "dmb", "isb", "wfe", "wfi", "sev", "sevl", "nop", "dc",
    "ic", "tlbi", "at", "hint", "prfm",
];

/// Why an instruction on a secondary CPU's path before its MMU is on uses the stack, if it
/// does: a load or store based on SP (or the frame pointer x29), or SP read as a source (a
/// frame allocated, the stack's address taken). Writing SP (`mov sp, x1`) touches nothing.
fn stack_use(mnemonic: &str, operands: &str) -> Option<&'static str> {
    let ops: Vec<&str> = operands.split(',').map(str::trim).collect();
    if ops
        .iter()
        .any(|o| o.starts_with("[sp") || o.starts_with("[x29"))
    {
        return Some("accesses memory through SP or x29");
    }
    // Every operand of a comparison is a source; of anything else, all but the first.
    let first = usize::from(!["cmp", "cmn", "tst"].contains(&mnemonic));
    ops.get(first..)
        .is_some_and(|sources| sources.contains(&"sp"))
        .then_some("reads SP")
}

/// Walks every path from `entry`, following branches and calls (`bl` and its `ret`; `br`,
/// and `eret` to ELR_ELx, when the walk knows the register from an `adr`), until the
/// instruction that sets SCTLR_EL1.M and C. Returns how many such writes the paths reach and
/// every stack use before one (address, function, instruction, why); panics where the walk
/// cannot follow (an unknown indirect branch, a `ret` with no `bl`, no instruction).
fn before_the_mmu(program: &Program, entry: &str) -> (usize, Vec<String>) {
    const MC: u64 = 1 << 0 | 1 << 2; // SCTLR_EL1.M, SCTLR_EL1.C
    let (code, symbols) = program;
    let function = |pc: u64| {
        symbols
            .iter()
            .filter(|&(_, &a)| a <= pc)
            .max_by_key(|&(_, &a)| a)
            .map_or("?".to_owned(), |(n, &a)| format!("{n}+{:#x}", pc - a))
    };
    let start = *symbols
        .get(entry)
        .unwrap_or_else(|| panic!("no symbol {entry} in the disassembly"));
    let mut todo = vec![State {
        pc: start,
        calls: Vec::new(),
        regs: BTreeMap::new(),
    }];
    let mut seen = HashSet::new();
    let (mut reached, mut uses) = (0, Vec::new());
    while let Some(mut s) = todo.pop() {
        if !seen.insert(s.clone()) {
            continue;
        }
        assert!(seen.len() < 200_000, "{entry}: the walk does not end");
        let (m, ops) = code
            .get(&s.pc)
            .unwrap_or_else(|| panic!("{entry}: no instruction at {:#x}", s.pc));
        let (m, ops) = (m.as_str(), ops.as_str());
        let at = format!("{:#x} <{}>: {m} {ops}", s.pc, function(s.pc));
        if let Some(why) = stack_use(m, ops) {
            uses.push(format!("{at} ({why})"));
            continue;
        }
        let args: Vec<&str> = ops.split(',').map(str::trim).collect();
        let target = || {
            args.iter()
                .rev()
                .find_map(|a| {
                    a.strip_prefix("0x")
                        .and_then(|h| u64::from_str_radix(h, 16).ok())
                })
                .unwrap_or_else(|| panic!("{entry}: no target in {at}"))
        };
        let known = |s: &State, op: &str| register(op).and_then(|r| s.regs.get(&r).copied());
        let next = s.pc + 4;
        match m {
            "b" => s.pc = target(),
            _ if m.starts_with("b.") || ["cbz", "cbnz", "tbz", "tbnz"].contains(&m) => {
                todo.push(State {
                    pc: target(),
                    ..s.clone()
                });
                s.pc = next;
            }
            "bl" => {
                s.calls.push(next);
                s.regs.remove("x30");
                s.pc = target();
            }
            "ret" => {
                s.pc = s.calls.pop().unwrap_or_else(|| {
                    panic!("{entry}: {at} returns to a caller the walk does not know")
                });
            }
            "br" | "eret" => {
                let to = if m == "br" {
                    known(&s, args[0])
                } else {
                    s.regs.get("elr").copied()
                };
                match to {
                    Some(Value::Exact(to)) => s.pc = to,
                    _ => panic!("{entry}: {at} branches where the walk does not know"),
                }
            }
            _ if m.starts_with("bl") || m.starts_with("br") || m.starts_with("ret") => {
                panic!("{entry}: {at}: an indirect branch the walk does not follow")
            }
            "msr" => {
                let value = known(&s, args[1]);
                let sysreg = args[0].to_ascii_uppercase();
                if sysreg.starts_with("ELR_EL") {
                    match value {
                        Some(v) => s.regs.insert("elr".to_owned(), v),
                        None => s.regs.remove("elr"),
                    };
                } else if sysreg == "SCTLR_EL1" && value.is_some_and(|v| v.bits() & MC == MC) {
                    reached += 1;
                    continue; // the MMU and the data cache are on: the stacks may be used
                }
                s.pc = next;
            }
            _ => {
                let dest = register(args[0]);
                let value = match (m, args.get(1).copied(), args.get(2).copied()) {
                    ("adr", Some(a), _) => number(a).map(Value::Exact),
                    ("adrp", Some(a), _) => number(a).map(Value::Page),
                    // `add xD, xN, #lo12` after `adrp xN` (no shifted immediate).
                    ("add", Some(a), Some(imm)) if args.len() == 3 => match known(&s, a) {
                        Some(Value::Page(p)) => number(imm).map(|i| Value::Exact(p + i)),
                        _ => None,
                    },
                    ("mov", Some(a), None) => match number(a) {
                        Some(v) if a.starts_with('#') => Some(Value::Exact(v)),
                        _ => known(&s, a),
                    },
                    ("movk", Some(imm), shift) => {
                        let shift = shift
                            .and_then(|t| t.strip_prefix("lsl #"))
                            .map_or(Some(0), number);
                        match (
                            number(imm),
                            shift,
                            dest.as_ref().and_then(|d| s.regs.get(d)),
                        ) {
                            (Some(i), Some(sh), Some(&Value::Exact(v))) => {
                                Some(Value::Exact(v & !(0xffff << sh) | i << sh))
                            }
                            (Some(i), Some(sh), old) => Some(Value::Set(
                                old.map_or(0, |o| o.bits()) & !(0xffff << sh) | i << sh,
                            )),
                            _ => None,
                        }
                    }
                    ("orr", Some(a), Some(b)) => {
                        let bits = |o: &str| match number(o) {
                            Some(v) if o.starts_with('#') => Some(Value::Exact(v)),
                            _ => known(&s, o),
                        };
                        match (bits(a), bits(b)) {
                            (Some(Value::Exact(x)), Some(Value::Exact(y))) => {
                                Some(Value::Exact(x | y))
                            }
                            (x, y) => Some(Value::Set(
                                x.map_or(0, Value::bits) | y.map_or(0, Value::bits),
                            )),
                        }
                    }
                    _ => None,
                };
                // Whatever the instruction writes is forgotten unless modelled above (more
                // than it writes, never less: a value the walk kept wrongly could pass a write
                // of SCTLR_EL1 for the one that turns the MMU on).
                if !WRITES_NONE.contains(&m) && !m.starts_with("st") {
                    let written = if m.starts_with("ldp")
                        || m.starts_with("ldnp")
                        || m.starts_with("ldxp")
                        || m.starts_with("ldaxp")
                    {
                        2
                    } else {
                        1
                    };
                    for r in args.iter().take(written).filter_map(|a| register(a)) {
                        s.regs.remove(&r);
                    }
                }
                if m.starts_with("st") {
                    // A store-exclusive writes its status register.
                    if let Some(r) = register(args[0]).filter(|_| m.contains("xr")) {
                        s.regs.remove(&r);
                    }
                }
                if ops.contains("]!") || ops.contains("], ") {
                    // Pre- or post-indexed: the base register is written back.
                    if let Some(base) = args
                        .iter()
                        .find(|a| a.starts_with('['))
                        .and_then(|a| register(a))
                    {
                        s.regs.remove(&base);
                    }
                }
                if let (Some(d), Some(v)) = (dest, value) {
                    s.regs.insert(d, v);
                }
                s.pc = next;
            }
        }
        todo.push(s);
    }
    (reached, uses)
}

#[test]
fn secondary_cpus_use_no_stack_before_their_mmu_and_caches_are_on() {
    let out = Command::new(objdump())
        .args(["-d", "--no-show-raw-insn"])
        .arg(common::firmware())
        .output()
        .expect("llvm-objdump runs");
    assert!(out.status.success());
    let program = program(&String::from_utf8_lossy(&out.stdout));
    // PSCI CPU_ON starts a CPU at secondary_entry, a spin table releases it to
    // spin_table_entry: from either, at any entry EL, the paths up to the write of SCTLR_EL1
    // that sets M and C make no stack access.
    for entry in ["secondary_entry", "spin_table_entry"] {
        let (reached, mut uses) = before_the_mmu(&program, entry);
        uses.sort();
        uses.dedup(); // the same instruction, reached from several entry ELs
        println!("{entry}: {reached} paths reach SCTLR_EL1.M and C");
        assert!(
            uses.is_empty(),
            "{entry}: the stack is used before the MMU and the data cache are on (SCTLR_EL1.M \
             and C), where the boot CPU maps it Normal write-back:\n{}",
            uses.join("\n")
        );
        // The walk found the write that ends it: it did not stop early for another reason.
        assert!(reached > 0, "{entry}: no path sets SCTLR_EL1.M and C");
    }
}
