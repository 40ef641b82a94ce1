//! mairbench-linux on 32-bit Arm (armv7-unknown-linux-gnueabihf: a static EABI executable, the A32 loops
//! of src/arch/armv7/kernels) under user-mode QEMU (`qemu-arm`, Debian's qemu-user, with
//! `-cpu cortex-a15` and `-cpu cortex-a7`): no kernel boot, the twin's system calls served by
//! QEMU's Linux emulation. ./test.sh builds it (`cargo build --release -p mairbench-linux
//! --target armv7-unknown-linux-gnueabihf`).
//!
//! qemu-arm (QEMU 10) defines only the AArch64 generic timer registers in user mode: the
//! twin finds CNTVCT undefined at PL0 and times with CLOCK_MONOTONIC, which these runs say.
//! As for the arm64 twin (twin.rs), the runs name their sources: `/dev` is the host's.

use super::twin::{conforming, elf_for, of_kind, syscalls, under};

use mairbench_core::kernel::{self, Kernel, KERNELS, RANDOM_INCREMENT, RANDOM_MULTIPLIER};
use std::path::PathBuf;

/// The CPUs the twin runs on here: the LPAE cores the boards have.
const CPUS: [&str; 2] = ["cortex-a15", "cortex-a7"];

/// The 32-bit twin's ELF.
fn twin() -> PathBuf {
    elf_for("armv7-unknown-linux-gnueabihf")
}

/// Runs the twin on `cpu` with `args`, its system calls traced when `trace`: exit status,
/// stdout, stderr, the trace.
fn run_on(cpu: &str, args: &[&str], trace: bool) -> (i32, String, String, String) {
    under("qemu-arm", &["-cpu", cpu], &twin(), args, trace)
}

/// The kernels the 32-bit twin runs: the table's twin column less the non-temporal pairs,
/// which A32 does not have.
pub(crate) fn armv7_twin_kernels() -> Vec<&'static str> {
    let names: Vec<&str> = KERNELS
        .iter()
        .filter(|k| k.twin && !matches!(k.kernel, Kernel::ReadLdnp | Kernel::WriteStnp))
        .map(|k| k.name)
        .collect();
    assert_eq!(names.len(), 15, "{names:?}");
    names
}

#[test]
fn armv7_help_and_version_answer_and_map_nothing() {
    for cpu in CPUS {
        for help in ["-h", "--help"] {
            let (status, stdout, stderr, trace) = run_on(cpu, &[help], true);
            assert_eq!(status, 0, "{cpu}: {stderr}");
            assert!(stdout.starts_with("usage: mairbench-linux"), "{stdout}");
            assert!(!stdout.lines().any(|l| l.starts_with("@mb ")), "{stdout}");
            let calls = syscalls(&trace);
            assert!(!calls.is_empty(), "no trace: {trace}");
            assert!(
                calls.iter().all(|c| matches!(*c, "write" | "exit_group")),
                "{cpu}: {calls:?}"
            );
        }
        let (status, stdout, _, _) = run_on(cpu, &["--version"], false);
        assert_eq!(status, 0, "{cpu}");
        assert_eq!(
            stdout,
            format!("mairbench-linux {}\n", env!("CARGO_PKG_VERSION"))
        );
    }
}

#[test]
fn armv7_an_unknown_argument_exits_2_before_anything_is_mapped() {
    for cpu in CPUS {
        for wrong in ["--hepl", "mairbench.quik", "sources=anon"] {
            let (status, stdout, stderr, trace) = run_on(cpu, &["mairbench.quick", wrong], true);
            assert_eq!(status, 2, "{cpu} {wrong}: {stderr}");
            assert!(stdout.is_empty(), "{cpu} {wrong}: {stdout}");
            assert!(
                stderr.contains(&format!("mairbench-linux: unknown argument '{wrong}'")),
                "{stderr}"
            );
            let calls = syscalls(&trace);
            assert!(!calls.is_empty(), "no trace: {trace}");
            assert!(
                calls.iter().all(|c| matches!(*c, "write" | "exit_group")),
                "{cpu} {wrong}: {calls:?}"
            );
        }
    }
}

/// Every kernel the 32-bit twin runs, on its own anonymous memory at the smallest sizes that
/// hold each (4 KiB to 16 KiB; the triad's three windows at 4 KiB), on both CPUs: a start
/// record that says armv7, well-formed results with intact data, and a passed end.
#[test]
fn armv7_anon_sweep_runs_every_a32_kernel_framed_conforming_and_intact() {
    let kernels = armv7_twin_kernels();
    for cpu in CPUS {
        let started = std::time::Instant::now();
        let (status, stdout, stderr, _) = run_on(
            cpu,
            &[
                "mairbench.sizes=4K-16K",
                "mairbench.reps=3",
                "mairbench.sources=anon",
            ],
            false,
        );
        println!("{cpu}: {:?}", started.elapsed());
        let records = conforming(&stdout);
        let start = &records[0];
        assert_eq!(start["kind"], "start", "{stdout}");
        assert_eq!(start["arch"], "armv7", "{start}");
        assert_eq!(start["machine"], "armv7l", "{start}");
        assert_eq!(start["bootargs_from"], "argv");
        assert_eq!(start["emulated"], true, "{start}");
        // CLOCK_MONOTONIC's nanoseconds: qemu-arm has no AArch32 CNTVCT.
        assert_eq!(start["cntfrq_hz"], 1_000_000_000u64, "{start}");
        let timer = of_kind(&records, "check")
            .into_iter()
            .find(|c| c["name"] == "timer")
            .unwrap_or_else(|| panic!("no timer check:\n{stdout}"));
        assert_eq!(timer["ok"], true, "{timer}");
        assert!(
            timer["detail"].as_str().unwrap().starts_with(
                "CLOCK_MONOTONIC (CNTVCT is undefined at PL0 here) readable at PL0 and counting"
            ),
            "{timer}"
        );
        assert!(
            stdout.contains("kernels: ") && !stdout.contains("read-ldnp"),
            "{stdout}"
        );
        let results = of_kind(&records, "result");
        let largest_only = |k: &str| kernel::by_name(k).unwrap().largest_only;
        let mut seen = Vec::new();
        for r in &results {
            let name = r["kernel"].as_str().unwrap();
            assert!(kernels.contains(&name), "{name}: {r}");
            assert_eq!(r["source"], "anon", "{r}");
            assert_eq!(r["integrity"], "ok", "{r}");
            // No cache maintenance by address at PL0 on ARMv7.
            assert_eq!(r["start"], "warm", "{r}");
            assert_eq!(r["reps"], 3, "{r}");
            assert!(r["best_ticks"].as_u64().unwrap() <= r["median_ticks"].as_u64().unwrap());
            seen.push((name.to_owned(), r["size"].as_u64().unwrap()));
        }
        for size in [4096u64, 8192, 16384] {
            for k in &kernels {
                // The largest size the 16 KiB mapping holds: for the triad three times over.
                let once = match *k {
                    "triad" => size == 4096,
                    k if largest_only(k) => size == 16384,
                    _ => true,
                };
                let n = seen.iter().filter(|s| **s == (k.to_string(), size)).count();
                assert_eq!(n, usize::from(once), "{cpu}: {k} at {size}: {seen:?}");
            }
        }
        let end = records.last().unwrap();
        assert_eq!(end["kind"], "end", "{stdout}");
        assert_eq!(end["status"], "pass", "{stdout}");
        assert_eq!(end["failed"], 0, "{stdout}");
        assert_eq!(end["checks"], 1 + results.len() as u64, "{end}");
        let human: Vec<&str> = stdout.lines().filter(|l| !l.starts_with("@mb ")).collect();
        assert_eq!(
            human.last().copied(),
            Some(
                format!(
                    "end: pass ({} checks, 0 failed, 0 warnings)",
                    1 + results.len()
                )
                .as_str()
            ),
            "{stdout}"
        );
        assert_eq!(status, 0, "{cpu}: {stderr}");
    }
}

/// The default sources (`all`: the memory the twin allocates itself; under qemu-user `/dev`
/// is the host's, so which of them exist is the host's), the quick kernels at the smallest
/// size: well-formed records that say armv7, only sources of the default set, and the status
/// line last, its status the exit status.
#[test]
fn armv7_the_default_set_runs_framed_and_ends_with_its_status() {
    let (status, stdout, stderr, _) = run_on(
        "cortex-a15",
        &["mairbench.quick", "mairbench.sizes=4K"],
        false,
    );
    let records = conforming(&stdout);
    assert_eq!(records[0]["arch"], "armv7", "{stdout}");
    for s in of_kind(&records, "source") {
        let name = s["source"].as_str().unwrap_or_default();
        assert!(
            ["anon", "udmabuf", "dma-heap:", "drm-dumb:", "dma-buf:"]
                .iter()
                .any(|p| name.starts_with(p)),
            "{name} in the default set"
        );
    }
    assert!(
        of_kind(&records, "result")
            .iter()
            .any(|r| r["source"] == "anon" && r["integrity"] == "ok"),
        "{stdout}"
    );
    let end = records.last().unwrap();
    assert_eq!(end["kind"], "end", "{stdout}");
    let last = stdout.lines().rfind(|l| !l.starts_with("@mb "));
    let pass = end["status"] == "pass";
    assert!(
        last.is_some_and(|l| l.starts_with(if pass { "end: pass (" } else { "end: fail (" })),
        "{stdout}"
    );
    assert_eq!(status, if pass { 0 } else { 1 }, "{stderr}");
}

/// A kernel with no A32 form, asked for, is said to be left out; the others run.
#[test]
fn armv7_the_non_temporal_pairs_are_said_to_be_left_out() {
    let (status, stdout, stderr, _) = run_on(
        "cortex-a15",
        &[
            "mairbench.sizes=4K",
            "mairbench.reps=1",
            "mairbench.sources=anon",
            "mairbench.kernels=read-ldnp,write-stnp,read-ldp",
        ],
        false,
    );
    let records = conforming(&stdout);
    let kernels: Vec<_> = of_kind(&records, "result")
        .iter()
        .map(|r| r["kernel"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(kernels, ["read-ldp"], "{stdout}");
    assert!(
        stdout.contains("kernels: read-ldnp, write-stnp not run on armv7: no such instruction"),
        "{stdout}"
    );
    assert_eq!(status, 0, "{stderr}");
}

/// A fault is reported with its address (si_addr in 32-bit siginfo_t), not silent.
#[test]
fn armv7_a_fatal_signal_is_reported_and_ends_the_run() {
    let (status, stdout, _, _) = run_on(
        "cortex-a7",
        &["mairbench.selftest=fault", "mairbench.sources=anon"],
        false,
    );
    let records = conforming(&stdout);
    assert!(
        stdout.contains(
            "fatal: SIGSEGV (an access the mapping does not allow) at 0x10 while \
             mairbench.selftest=fault\n"
        ),
        "{stdout}"
    );
    assert_eq!(records.last().unwrap()["reason"], "SIGSEGV", "{stdout}");
    assert_eq!(status, 1, "{stdout}");
}

/// The span of `symbol`'s timed loop: from the earliest target of a backward branch in it to
/// the last such branch (a nested loop, read-stride's, lies inside).
fn loop_span(body: &[(u64, String, String)]) -> (u64, u64) {
    let backward: Vec<(u64, u64)> = body
        .iter()
        .filter(|(_, m, _)| matches!(m.as_str(), "bne" | "blo"))
        .map(|(at, _, ops)| {
            let target = ops.split_whitespace().next().unwrap();
            (
                *at,
                u64::from_str_radix(target.trim_start_matches("0x"), 16).unwrap(),
            )
        })
        .filter(|(at, target)| target < at)
        .collect();
    let start = backward
        .iter()
        .map(|b| b.1)
        .min()
        .expect("a backward branch");
    let end = backward.iter().map(|b| b.0).max().unwrap();
    (start, end)
}

/// The A32 loops as built in the twin: each timed loop starts on a 128-byte boundary, is
/// shorter than 128 bytes (so it stays in one 64-byte-aligned block of two lines and in its
/// page), and is made of the instruction forms its contract names.
#[test]
fn armv7_loops_are_placed_and_made_of_their_instructions() {
    let d = crate::common::disasm::disassemble(&twin());
    for (symbol, forms, per_iteration) in [
        ("mb_k_read_ldm", &["ldm"][..], 8),
        ("mb_k_write_stm", &["stm"], 8),
        ("mb_k_read_vld1", &["vld1.64"], 16),
        ("mb_k_write_vst1", &["vst1.64"], 16),
        ("mb_k_copy", &["ldm", "stm"], 8),
        ("mb_k_copy_q", &["vld1.64", "vst1.64"], 16),
        ("mb_k_chase", &["ldr"], 8),
        ("mb_k_triad", &["vld1.64", "vst1.64"], 6),
        ("mb_k_read_random", &["ldr"], 4),
        ("mb_k_read_stride", &["ldr"], 1),
    ] {
        let body = function(&d, symbol);
        let (start, end) = loop_span(&body);
        println!("{symbol}: loop {start:#x}..={end:#x}");
        assert_eq!(start % 128, 0, "{symbol}'s loop starts at {start:#x}");
        assert!(
            end + 4 - start <= 128,
            "{symbol}'s loop is {} bytes",
            end + 4 - start
        );
        let in_loop: Vec<_> = body
            .iter()
            .filter(|(a, _, _)| (start..=end).contains(a))
            .collect();
        let memory = in_loop
            .iter()
            .filter(|(_, m, _)| forms.contains(&m.as_str()))
            .count();
        assert_eq!(memory, per_iteration, "{symbol}: {in_loop:?}");
        // The NEON loops carry the 16-byte alignment hint their contract states.
        for (_, m, ops) in &in_loop {
            if m.starts_with("vld1") || m.starts_with("vst1") {
                assert!(ops.contains(":128]!"), "{symbol}: {m} {ops}");
            }
        }
    }
}

/// What the A32 read-random computes, modelled on 32-bit words exactly as its loop does
/// (`mla`, `and`, `rbit`, `lsr` by clz(lines) - 5) with the low halves of core's constants:
/// the byte offsets of the lines it loads, in order.
fn a32_random_offsets(lines: u32, count: usize) -> Vec<u32> {
    let (mul, inc) = (RANDOM_MULTIPLIER as u32, RANDOM_INCREMENT as u32);
    let (mask, shift) = (lines - 1, lines.leading_zeros() - 5);
    let mut i = 0u32;
    (0..count)
        .map(|_| {
            i = i.wrapping_mul(mul).wrapping_add(inc) & mask;
            i.reverse_bits() >> shift
        })
        .collect()
}

/// The A32 random read visits the lines in exactly core's order (`kernel::random_order`),
/// for every power of two of lines it takes (4 to 2^26; the whole pass up to 2^16 lines, the
/// first 2^16 loads beyond), and the loop as built is the modelled one: its constants are
/// the low halves of core's, and its body the modelled instructions, four loads an iteration.
#[test]
fn armv7_read_random_is_cores_random_order() {
    for k in 2..=26u32 {
        let lines = 1u32 << k;
        let count = (lines as usize).min(1 << 16);
        let a32 = a32_random_offsets(lines, count);
        let core: Vec<u32> = kernel::random_order(u64::from(lines))
            .take(count)
            .map(|l| u32::try_from(l * 64).unwrap())
            .collect();
        assert_eq!(a32, core, "2^{k} lines");
    }
    let d = crate::common::disasm::disassemble(&twin());
    let body = function(&d, "mb_k_read_random");
    let immediates: Vec<String> = body
        .iter()
        .filter(|(_, m, _)| m == "movw" || m == "movt")
        .map(|(_, m, ops)| format!("{m} {ops}"))
        .collect();
    let (mul, inc) = (RANDOM_MULTIPLIER as u32, RANDOM_INCREMENT as u32);
    for (m, half) in [
        ("movw", mul & 0xffff),
        ("movt", mul >> 16),
        ("movw", inc & 0xffff),
        ("movt", inc >> 16),
    ] {
        let want = format!("#{half:#x}");
        assert!(
            immediates
                .iter()
                .any(|i| i.starts_with(m) && i.ends_with(&want)),
            "{m} {want} not in {immediates:?}"
        );
    }
    let (start, end) = loop_span(&body);
    let forms: Vec<&str> = body
        .iter()
        .filter(|(a, _, _)| (start..=end).contains(a))
        .map(|(_, m, _)| m.as_str())
        .collect();
    let mut want = ["mla", "and", "rbit", "lsr", "ldr"].repeat(4);
    want.extend(["subs", "bne"]);
    assert_eq!(forms, want);
}

/// The instructions of function `symbol`, nops (alignment padding) left out.
fn function(disassembly: &str, symbol: &str) -> Vec<(u64, String, String)> {
    let mut body = crate::common::disasm::function(disassembly, symbol);
    body.retain(|(_, mnemonic, _)| mnemonic != "nop");
    assert!(!body.is_empty(), "no {symbol} in the disassembly");
    body
}
