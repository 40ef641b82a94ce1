//! The measured loops are what their names say: disassembled from the built image, the
//! streaming loops are at least 80 % loads and stores, using the named instruction forms.

use crate::common;
use crate::common::disasm::{disassemble, function};

/// The first and last address of the loop of kernel `symbol`: from the target of its
/// closing `b.ne` to the branch.
fn loop_span(disassembly: &str, symbol: &str) -> (u64, u64) {
    let body = function(disassembly, symbol);
    let (at, _, ops) = body
        .iter()
        .find(|(_, m, _)| m == "b.ne")
        .unwrap_or_else(|| panic!("{symbol}: no closing b.ne"));
    let target = u64::from_str_radix(
        ops.split_whitespace()
            .next()
            .unwrap()
            .trim_start_matches("0x"),
        16,
    )
    .unwrap_or_else(|_| panic!("{symbol}: branch target in {ops}"));
    (target, *at)
}

/// The loop of kernel `symbol`, as (mnemonic, operands).
fn loop_of(disassembly: &str, symbol: &str) -> Vec<(String, String)> {
    let (start, end) = loop_span(disassembly, symbol);
    function(disassembly, symbol)
        .into_iter()
        .filter(|(a, _, _)| (start..=end).contains(a))
        .map(|(_, m, o)| (m, o))
        .collect()
}

/// The firmware image, disassembled by the toolchain's llvm-objdump.
fn disassembly() -> String {
    disassemble(&common::firmware())
}

/// The mnemonics of the image in address order, each with its line.
fn instructions(disassembly: &str) -> Vec<(&str, &str)> {
    disassembly
        .lines()
        .filter_map(|line| {
            let (addr, rest) = line.trim().split_once(':')?;
            u64::from_str_radix(addr.trim(), 16).ok()?;
            Some((rest.split_whitespace().next()?, line))
        })
        .collect()
}

/// Every timed loop of `elf` starts on a 64-byte line and ends in the page it starts in.
fn loops_are_placed(elf: &std::path::Path, symbols: &[&str]) {
    let d = disassemble(elf);
    for symbol in symbols {
        let (start, end) = loop_span(&d, symbol);
        println!("{}: {symbol} loop {start:#x}..={end:#x}", elf.display());
        assert_eq!(start % 64, 0, "{symbol}'s loop starts at {start:#x}");
        assert_eq!(
            start / 4096,
            end / 4096,
            "{symbol}'s loop crosses a page: {start:#x}..={end:#x}"
        );
    }
}

/// The loops the Linux twin runs (at EL0) and the firmware too.
const TWIN_LOOPS: [&str; 13] = [
    "mb_k_read_ldp",
    "mb_k_write_stp",
    "mb_k_read_ldp_q",
    "mb_k_write_stp_q",
    "mb_k_read_ldnp",
    "mb_k_write_stnp",
    "mb_k_write_line",
    "mb_k_copy",
    "mb_k_copy_q",
    "mb_k_chase",
    "mb_k_triad",
    "mb_k_read_stride",
    "mb_k_read_random",
];

/// The loops only the firmware runs.
const FIRMWARE_LOOPS: [&str; 4] = ["mb_k_zva", "mb_k_civac", "mb_k_cvac", "mb_k_ivac"];

#[test]
fn every_loop_starts_on_a_line_and_stays_in_its_page() {
    loops_are_placed(&common::firmware(), &TWIN_LOOPS);
    loops_are_placed(&common::firmware(), &FIRMWARE_LOOPS);
    let twin = common::root().join("target/aarch64-unknown-none/release/mairbench-linux");
    assert!(
        twin.exists(),
        "no twin at {}: test.sh builds it",
        twin.display()
    );
    loops_are_placed(&twin, &TWIN_LOOPS);
}

#[test]
fn the_triad_and_the_strided_reads_are_what_their_summaries_say() {
    let d = disassembly();
    let forms = |symbol: &str| -> Vec<String> {
        loop_of(&d, symbol)
            .into_iter()
            .map(|(m, o)| format!("{m} {}", o.replace(' ', "")))
            .collect()
    };
    // The triad: b and c read with ldp q (64 B each), one mla per q register by 3 (set
    // before the loop), a written with stp q; nothing else but the count and the branch.
    let triad = forms("mb_k_triad");
    println!("mb_k_triad: {triad:?}");
    let count = |prefix: &str| triad.iter().filter(|f| f.starts_with(prefix)).count();
    assert_eq!(
        (count("ldp q"), count("mla v"), count("stp q"), triad.len()),
        (4, 4, 2, 12),
        "{triad:?}"
    );
    assert!(triad
        .iter()
        .filter(|f| f.starts_with("ldp"))
        .all(|f| f.contains("[x1]") || f.contains("[x2]")));
    assert!(triad
        .iter()
        .filter(|f| f.starts_with("stp"))
        .all(|f| f.contains("[x0]")));
    assert!(
        triad.iter().any(|f| f == "subs x3,x3,#0x40"),
        "64 B per iteration: {triad:?}"
    );
    let whole = function(&d, "mb_k_triad");
    assert!(
        whole
            .iter()
            .any(|(_, m, o)| m == "movi" && o.replace(' ', "").ends_with("#0x3")),
        "the multiplier 3: {whole:?}"
    );
    // The strided read: one ldr x per line, stepping by the stride (x2), then the next start
    // 64 B on.
    let stride = forms("mb_k_read_stride");
    println!("mb_k_read_stride: {stride:?}");
    assert_eq!(
        stride.iter().filter(|f| f.starts_with("ldr x")).count(),
        1,
        "{stride:?}"
    );
    assert!(stride.iter().any(|f| f == "add x4,x4,x2"), "{stride:?}");
    assert!(stride.iter().any(|f| f == "add x0,x0,#0x40"), "{stride:?}");
    // The random read: four independent loads, each from an index of the sequence
    // (multiply-add, mask, bit reverse, shift), not from a loaded value.
    let random = forms("mb_k_read_random");
    println!("mb_k_read_random: {random:?}");
    let loads: Vec<&String> = random.iter().filter(|f| f.starts_with("ldr")).collect();
    assert_eq!(loads.len(), 4, "{random:?}");
    assert!(
        loads.iter().all(|f| f == &"ldr x9,[x0,x8,lsl#3]"),
        "{loads:?}"
    );
    for op in [
        "madd x4,x4,x2,x3",
        "and x4,x4,x5",
        "rbit x8,x4",
        "lsr x8,x8,x6",
    ] {
        assert_eq!(
            random.iter().filter(|f| *f == op).count(),
            4,
            "{op}: {random:?}"
        );
    }
}

#[test]
fn a_dsb_precedes_every_sev() {
    // SEV wakes the other CPUs; without a DSB first, a woken CPU may read its word before
    // the store that should wake it completes, and sleep again (a lost wake-up).
    let d = disassembly();
    let ins = instructions(&d);
    let sevs: Vec<usize> = (0..ins.len()).filter(|&i| ins[i].0 == "sev").collect();
    assert!(!sevs.is_empty(), "the image has no SEV at all");
    for i in sevs {
        let before = i.checked_sub(1).map(|j| ins[j]);
        assert!(
            before.is_some_and(|(m, _)| m == "dsb"),
            "SEV without a DSB right before it: {:?} then {}",
            before.map(|b| b.1),
            ins[i].1
        );
    }
}

#[test]
fn streaming_loops_are_at_least_80_percent_loads_and_stores() {
    let disassembly = disassembly();
    for (symbol, forms) in [
        ("mb_k_read_ldp", &["ldp x"][..]),
        ("mb_k_write_stp", &["stp x"]),
        ("mb_k_read_ldp_q", &["ldp q"]),
        ("mb_k_write_stp_q", &["stp q"]),
        ("mb_k_read_ldnp", &["ldnp x"]),
        ("mb_k_write_stnp", &["stnp x"]),
        ("mb_k_write_line", &["str x"]),
        ("mb_k_copy", &["ldp x", "stp x"]),
        ("mb_k_copy_q", &["ldp q", "stp q"]),
        ("mb_k_chase", &["ldr x"]),
    ] {
        let body = loop_of(&disassembly, symbol);
        let memory = body
            .iter()
            .filter(|(m, o)| forms.iter().any(|f| format!("{m} {o}").starts_with(f)))
            .count();
        let percent = memory * 100 / body.len();
        println!(
            "{symbol}: {memory} of {} loop instructions are {forms:?} ({percent} %)",
            body.len()
        );
        assert!(percent >= 80, "{symbol}: {percent} % of {body:?}");
    }
    // The non-temporal pairs have no post-index form: 16 pairs at offsets 0, 16, ... 240
    // (256 bytes, as the summary says), then one add of 256 to the pointer.
    for (symbol, form) in [("mb_k_read_ldnp", "ldnp"), ("mb_k_write_stnp", "stnp")] {
        let body = loop_of(&disassembly, symbol);
        let offsets: Vec<u64> = body
            .iter()
            .filter(|(m, _)| m == form)
            .map(|(_, o)| {
                assert!(o.starts_with('x'), "{symbol}: {o}");
                let at = o.split_once('[').unwrap().1.trim_end_matches(']');
                at.split_once("#0x").map_or(0, |(_, n)| {
                    u64::from_str_radix(n, 16).unwrap_or_else(|_| panic!("{o}"))
                })
            })
            .collect();
        let want: Vec<u64> = (0..16).map(|i| i * 16).collect();
        assert_eq!(offsets, want, "{symbol}: {body:?}");
        assert!(
            body.iter()
                .any(|(m, o)| m == "add" && o.replace(' ', "") == "x0,x0,#0x100"),
            "{symbol}: the pointer steps 256 bytes: {body:?}"
        );
    }
}

#[test]
fn the_firmware_is_called_with_its_x18() {
    // Every call into UEFI firmware goes through mb_efi_call, which loads the firmware's x18
    // (saved at entry) right before its one indirect branch; efi_main and what it inlines
    // (ConOut, the failure path, the memory map) make no indirect call of their own.
    let d = disassembly();
    let trampoline = function(&d, "mb_efi_call");
    let blr: Vec<usize> = (0..trampoline.len())
        .filter(|&i| trampoline[i].1 == "blr")
        .collect();
    assert_eq!(blr.len(), 1, "{trampoline:?}");
    let before = &trampoline[..blr[0]];
    assert!(
        before
            .iter()
            .any(|(_, m, o)| m == "ldr" && o.starts_with("x18,")),
        "x18 is not loaded before the call: {trampoline:?}"
    );
    assert!(
        !before[before
            .iter()
            .rposition(|(_, _, o)| o.starts_with("x18,"))
            .unwrap()
            + 1..]
            .iter()
            .any(|(_, _, o)| o.starts_with("x18")),
        "x18 changed again before the call: {trampoline:?}"
    );
    let main = function(&d, "efi_main");
    assert!(!main.is_empty(), "no efi_main in the image");
    assert!(
        main.iter().all(|(_, m, _)| m != "blr"),
        "efi_main calls something indirectly, not through mb_efi_call"
    );
}

#[test]
fn sctlr_el1_is_written_before_every_eret_to_el1() {
    // SCTLR_EL1 is UNKNOWN at reset and a boot loader may leave its M bit set: every ERET
    // that enters EL1 (SPSR_EL2 or SPSR_EL3 set to EL1h) comes after an MSR SCTLR_EL1 since
    // the previous branch target, so EL1 starts with its MMU off whatever was there.
    let d = disassembly();
    let ins = instructions(&d);
    let erets: Vec<usize> = (0..ins.len()).filter(|&i| ins[i].0 == "eret").collect();
    let mut to_el1 = 0;
    for i in erets {
        // Back to the previous control transfer or label: this ERET's straight-line run.
        let start = (0..i)
            .rev()
            .find(|&j| matches!(ins[j].0, "eret" | "ret" | "b" | "br"))
            .map_or(0, |j| j + 1);
        let run = &ins[start..i];
        let spsr_el1h = run
            .iter()
            .any(|(m, l)| *m == "msr" && l.to_lowercase().contains("spsr_el"))
            && run.iter().any(|(m, l)| *m == "mov" && l.contains("#0x3c5"));
        if !spsr_el1h {
            continue;
        }
        to_el1 += 1;
        assert!(
            run.iter()
                .any(|(m, l)| *m == "msr" && l.to_lowercase().contains("sctlr_el1")),
            "an ERET to EL1 without SCTLR_EL1 written first:\n{}",
            run.iter().map(|(_, l)| *l).collect::<Vec<_>>().join("\n")
        );
    }
    // From EL2 and from EL3.
    assert_eq!(to_el1, 2, "ERETs to EL1 found");
}

#[test]
fn the_return_to_uefi_firmware_restores_its_x18() {
    // efi_pe_entry's path back to the firmware (efi_main's x0 = 0) reloads the firmware's x18
    // before its RET, as every call into the firmware does (mb_efi_call).
    let d = disassembly();
    let entry = function(&d, "efi_pe_entry");
    let ret = entry
        .iter()
        .position(|(_, m, _)| m == "ret")
        .expect("efi_pe_entry returns");
    let call = entry
        .iter()
        .position(|(_, m, o)| m == "bl" && o.contains("efi_main"))
        .expect("efi_pe_entry calls efi_main");
    assert!(
        entry[call..ret]
            .iter()
            .any(|(_, m, o)| m == "ldr" && o.starts_with("x18,")),
        "x18 is not restored before returning to the firmware: {entry:?}"
    );
}

/// The system registers `from_el3` writes when it runs on the core whose MIDR_EL1 is `midr`,
/// as (name, value) in order: its straight-line code executed from the disassembly, up to
/// the first instruction this reader does not model (the EL3 set-up after the core's own
/// controls). Reads of a control register give 0.
fn from_el3_writes(body: &[(u64, String, String)], midr: u64) -> Vec<(String, u64)> {
    let mut x = [0u64; 31];
    let (mut z, mut c) = (false, false);
    let mut writes = Vec::new();
    let mut pc = body[0].0;
    let reg = |s: &str| -> Option<usize> { s.trim().strip_prefix('x')?.parse().ok() };
    let imm = |s: &str| -> u64 {
        let s = s.trim().trim_start_matches('#');
        match s.strip_prefix("0x") {
            Some(h) => u64::from_str_radix(h, 16).unwrap(),
            None => s.parse().unwrap(),
        }
    };
    for _ in 0..200 {
        let Some((_, m, ops)) = body.iter().find(|(a, _, _)| *a == pc) else {
            break;
        };
        let o: Vec<&str> = ops.split(',').map(str::trim).collect();
        let val = |x: &[u64; 31], s: &str| if s == "xzr" { 0 } else { x[reg(s).unwrap()] };
        let target = || imm(ops.split_whitespace().next().unwrap());
        let mut next = pc + 4;
        match m.as_str() {
            "mrs" => x[reg(o[0]).unwrap()] = if o[1] == "MIDR_EL1" { midr } else { 0 },
            "msr" => writes.push((o[0].to_owned(), val(&x, o[1]))),
            "ubfx" => {
                let (lsb, width) = (imm(o[2]), imm(o[3]));
                x[reg(o[0]).unwrap()] = (val(&x, o[1]) >> lsb) & ((1 << width) - 1);
            }
            "orr" if o.len() == 3 && o[2].starts_with('#') => {
                x[reg(o[0]).unwrap()] = val(&x, o[1]) | imm(o[2]);
            }
            "orr" if o.len() == 4 && o[3].starts_with("lsl") => {
                let shift = imm(o[3].trim_start_matches("lsl").trim());
                x[reg(o[0]).unwrap()] = val(&x, o[1]) | val(&x, o[2]) << shift;
            }
            "cmp" => {
                let (a, b) = (val(&x, o[0]), imm(o[1]));
                (z, c) = (a == b, a >= b);
            }
            "b.eq" | "b.ne" | "b.lo" | "b.hs" => {
                let taken = match m.as_str() {
                    "b.eq" => z,
                    "b.ne" => !z,
                    "b.lo" => !c,
                    _ => c,
                };
                if taken {
                    next = target();
                }
            }
            "isb" => {}
            _ => break,
        }
        pc = next;
    }
    writes
}

#[test]
fn the_el3_entry_sets_the_tables_controls_on_exactly_its_cores_and_revisions() {
    // At EL3 the entry code sets CPUECTLR_EL1.SMPEN on the table's `smpen` rows and
    // CPUACTLR_EL1.ENDCCASCI (Cortex-A53 erratum 855873) on the revisions of its
    // `clean_as_civac` rows: every row at r0p0..r0p4 and r1p0, executed from the image.
    use mairbench_core::cores::{Revision, CORES};
    let d = disassembly();
    let body = function(&d, "from_el3");
    assert!(!body.is_empty(), "no from_el3 in the image");
    const CPUECTLR: &str = "S3_1_C15_C2_1";
    const CPUACTLR: &str = "S3_1_C15_C2_0";
    let mut endccasci_set = 0;
    for c in &CORES {
        for (variant, revision) in [(0, 0), (0, 1), (0, 2), (0, 3), (0, 4), (1, 0)] {
            let midr = u64::from(c.implementer) << 24
                | variant << 20
                | 0xf << 16
                | u64::from(c.part) << 4
                | revision;
            let writes = from_el3_writes(&body, midr);
            let value = |name: &str| writes.iter().find(|(r, _)| r == name).map(|(_, v)| *v);
            let what = format!("{} {}: {writes:x?}", c.name, Revision::of(midr));
            assert_eq!(
                value(CPUECTLR).is_some_and(|v| v & (1 << 6) != 0),
                c.smpen.is_some(),
                "SMPEN, {what}"
            );
            let wants = c
                .clean_as_civac
                .is_some_and(|r| r.holds_for(Revision::of(midr)));
            assert_eq!(
                value(CPUACTLR) == Some(1 << 44),
                wants,
                "CPUACTLR_EL1.ENDCCASCI, {what}"
            );
            assert!(
                wants || value(CPUACTLR).is_none(),
                "CPUACTLR_EL1 written, {what}"
            );
            endccasci_set += usize::from(wants);
        }
    }
    // The A53 at r0p3, r0p4 and r1p0.
    assert_eq!(endccasci_set, 3);
    // Another implementer's part 0xd03 is no Cortex-A53: neither register is written.
    let other = from_el3_writes(&body, 0x510f_d034);
    assert!(
        other.iter().all(|(r, _)| r != CPUECTLR && r != CPUACTLR),
        "{other:x?}"
    );
    assert!(other.iter().any(|(r, _)| r == "CPTR_EL3"), "{other:x?}");
}
