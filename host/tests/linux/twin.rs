//! mairbench-linux, the Linux twin, under user-mode QEMU (`qemu-aarch64`, Debian's
//! qemu-user; ./test.sh installs it and builds the twin): no kernel boot, the twin's own
//! system calls served by QEMU's Linux emulation. Its records must parse with the host's
//! reader and conform to the schema, and the run must be framed and pass.
//!
//! Under qemu-user `/dev` and `/sys` are the host's, so these runs name their sources
//! (never `all`, which would reach the host's devices and PCI BARs); the names that must be
//! missing are ones no host has. `all` is tested in the Linux boot (host/tests/linux/linux.rs).

use crate::common;

use crate::common::twin_kernels;
use mairbench_core::kernel::Unit;
use mairbench_core::source::SOURCES;
use mairbench_host::read::log;
use mairbench_host::records;
use serde_json::Value;
use std::path::PathBuf;
use std::process::Command;

/// The twin's ELF for `target`, built by ./test.sh (`cargo build --release -p mairbench-linux
/// --target ...`), in the target directory cargo builds into.
pub(crate) fn elf_for(target: &str) -> PathBuf {
    let dir = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map_or_else(|| common::root().join("target"), |t| common::root().join(t));
    let elf = dir.join(target).join("release/mairbench-linux");
    assert!(
        elf.exists(),
        "no twin at {}: run `cargo build --release -p mairbench-linux --target {target}` \
         first (./test.sh does)",
        elf.display()
    );
    elf
}

/// The AArch64 twin's ELF.
fn twin() -> PathBuf {
    elf_for("aarch64-unknown-none")
}

/// Runs the twin with `args`: exit status, stdout.
fn run(args: &[&str]) -> (i32, String) {
    let out = Command::new("qemu-aarch64")
        .arg(twin())
        .args(args)
        .output()
        .expect("qemu-aarch64 (Debian's qemu-user; ./test.sh installs it)");
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 output");
    (out.status.code().unwrap_or(-1), stdout)
}

/// The records of a run, each checked against the schema, and the log read without problems.
pub(crate) fn conforming(stdout: &str) -> Vec<Value> {
    let records = records(stdout).expect("every record line is JSON");
    for (i, r) in records.iter().enumerate() {
        let wrong = log::mismatches(r.as_object().unwrap());
        assert!(wrong.is_empty(), "record {i}: {wrong:?} in\n{r}");
    }
    let parsed = log::parse(stdout.as_bytes());
    assert!(parsed.problems.is_empty(), "{:?}", parsed.problems);
    records
}

pub(crate) fn of_kind<'r>(records: &'r [Value], kind: &str) -> Vec<&'r Value> {
    records.iter().filter(|r| r["kind"] == kind).collect()
}

fn assert_passed(status: i32, records: &[Value], stdout: &str) {
    let end = records.last().unwrap();
    assert_eq!(end["kind"], "end", "{stdout}");
    assert_eq!(end["status"], "pass", "{stdout}");
    assert_eq!(end["failed"], 0, "{stdout}");
    assert_eq!(status, 0, "{stdout}");
}

#[test]
fn anon_sweep_runs_every_kernel_framed_conforming_and_intact() {
    let (status, stdout) = run(&[
        "mairbench.sizes=4K-64K",
        "mairbench.reps=3",
        "mairbench.host=qemu-user",
        "mairbench.sources=anon",
    ]);
    let records = conforming(&stdout);
    assert_eq!(
        records.first().map(|r| &r["kind"]),
        Some(&"start".into()),
        "{stdout}"
    );
    let start = records.first().unwrap();
    assert_eq!(start["bootargs_from"], "argv");
    assert_eq!(start["machine"], "aarch64");
    assert!(
        start["kernel"].as_str().unwrap().starts_with("Linux "),
        "{start}"
    );
    assert_eq!(start["emulated"], true);
    assert_eq!(start["host"], "qemu-user");
    assert!(start["cntfrq_hz"].as_u64().unwrap() > 0);
    let sources = of_kind(&records, "source");
    assert_eq!(sources.len(), 1, "{stdout}");
    assert_eq!(sources[0]["source"], "anon");
    assert_eq!(sources[0]["size"], 65536);

    let kernels = twin_kernels();
    let largest_only = |k: &str| mairbench_core::kernel::by_name(k).unwrap().largest_only;
    let swept = kernels.iter().filter(|k| !largest_only(k)).count();
    let results = of_kind(&records, "result");
    // 4K, 8K, 16K, 32K, 64K, each with every kernel the twin runs, once; the kernels measured
    // at the largest size only once in all.
    assert_eq!(
        results.len(),
        5 * swept + (kernels.len() - swept),
        "{stdout}"
    );
    let mut seen = Vec::new();
    for r in &results {
        assert_eq!(r["source"], "anon", "{r}");
        assert!(r.get("memtype").is_none(), "{r}");
        // What the mapping got (asserted in the hugepages test below).
        assert!(matches!(r["granule"].as_str(), Some("4K" | "2M")), "{r}");
        assert_eq!(r["start"], "invalidated", "{r}");
        assert_eq!(r["integrity"], "ok", "{r}");
        assert_eq!(r["reps"], 3, "{r}");
        assert!(r["best_ticks"].as_u64().unwrap() <= r["median_ticks"].as_u64().unwrap());
        let size = r["size"].as_u64().unwrap();
        let passes = r["passes"].as_u64().unwrap();
        assert!(passes >= 1, "{r}");
        let name = r["kernel"].as_str().unwrap();
        let spec = mairbench_core::kernel::by_name(name).unwrap();
        // The unit's fields and only those (core's kernel table says which).
        match spec.unit {
            Unit::Bandwidth => {
                // A copy counts the bytes copied once, like a read or a write; the triad
                // its three arrays, as STREAM does.
                let arrays = if name == "triad" { 3 } else { 1 };
                assert_eq!(r["bytes"].as_u64().unwrap(), arrays * size * passes, "{r}");
                assert!(r["best_mbps"].as_u64().unwrap() > 0, "{r}");
                assert!(r["median_mbps"].as_u64().unwrap() > 0, "{r}");
                assert!(r.get("loads").is_none() && r.get("ns_per_load").is_none());
            }
            Unit::NsPerLoad => {
                // One lap of the chase a pass (a line per load), at most 1024 loads.
                let lap = (size / 64).min(1024);
                assert_eq!(r["loads"].as_u64().unwrap(), lap * passes, "{r}");
                let best = r["ns_per_load"].as_f64().unwrap();
                let median = r["median_ns_per_load"].as_f64().unwrap();
                assert!(best > 0.0 && best <= median, "{r}");
                assert!(r.get("bytes").is_none() && r.get("best_mbps").is_none());
            }
            Unit::NsPerLine => panic!("the twin ran a maintenance kernel: {r}"),
        }
        seen.push((name.to_owned(), size));
    }
    for size in [4096u64, 8192, 16384, 32768, 65536] {
        for k in &kernels {
            // The largest size the 64 KiB mapping holds: for the triad three times over.
            let once = match *k {
                "triad" => size == 16384,
                k if largest_only(k) => size == 65536,
                _ => true,
            };
            let n = seen.iter().filter(|s| **s == (k.to_string(), size)).count();
            assert_eq!(n, usize::from(once), "{k} at {size}: {seen:?}");
        }
    }
    assert!(stdout.contains("bytes copied counted once"), "{stdout}");
    assert!(stdout.contains("ns/load best"), "{stdout}");
    let end = records.last().unwrap();
    assert_eq!(end["warnings"], 0);
    assert_eq!(end["checks"], 1 + results.len() as u64, "{end}");
    assert_passed(status, &records, &stdout);
}

/// The host's THP setting (the bracketed word), which decides the host pages user-mode
/// QEMU's guest memory lies in; `None` where the host has no THP.
fn host_thp() -> Option<String> {
    let text = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").ok()?;
    mairbench_core::source::thp_setting(&text).map(str::to_owned)
}

/// `mairbench.hugepages=`: every mode maps anon 2 MiB-aligned, says the mode and the THP
/// setting, and records what the kernel gave: `huge` agrees with `huge_bytes`, and each
/// result's `granule` with them (all "4K" without huge pages; "2M" only with some). `off`
/// gives no huge pages, unless the host's THP is `always` (QEMU passes no madvise of its
/// guest's on to the host). A bad value is refused with a clear message, `auto` kept.
#[test]
fn hugepages_modes_record_what_the_kernel_gave() {
    let host = host_thp();
    for (mode, arg) in [
        ("off", "mairbench.hugepages=off"),
        ("on", "mairbench.hugepages=on"),
        ("auto", "mairbench.hugepages=auto"),
        ("auto", "mairbench.hugepages=2M"),
    ] {
        let (status, stdout) = run(&[
            "mairbench.sizes=2M-4M",
            "mairbench.reps=1",
            "mairbench.kernels=latency,read-ldp",
            "mairbench.sources=anon",
            arg,
        ]);
        let records = conforming(&stdout);
        let sources = of_kind(&records, "source");
        assert_eq!(sources.len(), 1, "{stdout}");
        let s = sources[0];
        assert_eq!(s["hugepages"], mode, "{arg}: {s}");
        assert_eq!(s["thp"].as_str(), host.as_deref(), "{arg}: {s}");
        let huge = s["huge"].as_bool().unwrap_or_else(|| panic!("{arg}: {s}"));
        let bytes = s["huge_bytes"].as_u64().unwrap();
        assert_eq!(huge, bytes != 0, "{arg}: {s}");
        assert!(bytes <= 4 << 20, "{arg}: {s}");
        if mode == "off" && host.as_deref() != Some("always") {
            assert!(!huge, "{arg}: {s}");
        }
        let results = of_kind(&records, "result");
        assert_eq!(results.len(), 4, "{stdout}");
        for r in &results {
            match r["granule"].as_str() {
                Some("4K") => {}
                Some("2M") => assert!(huge, "{arg}: 2M without huge pages: {r}\n{s}"),
                _ => panic!("{arg}: {r}"),
            }
            if !huge {
                assert_eq!(r["granule"], "4K", "{arg}: {r}");
            }
        }
        let said = format!(
            "source anon: mairbench.hugepages={mode} ({}), mapped 2 MiB-aligned; the kernel's \
             THP setting: {}",
            match mode {
                "off" => "MADV_NOHUGEPAGE",
                "on" => "MADV_HUGEPAGE",
                _ => "no advice",
            },
            host.as_deref().unwrap_or("unknown")
        );
        assert!(stdout.contains(&said), "{arg}: {stdout}");
        assert!(stdout.contains(" on 2 MiB entries ("), "{arg}: {stdout}");
        let warnings = records.last().unwrap()["warnings"].as_u64();
        if arg.ends_with("2M") {
            assert!(
                stdout.contains(
                    "bootargs: option 'mairbench.hugepages': '2M' is not auto, on or off; \
                     default kept"
                ),
                "{stdout}"
            );
            assert_eq!(warnings, Some(1), "{stdout}");
        } else {
            assert_eq!(warnings, Some(0), "{stdout}");
        }
        assert_passed(status, &records, &stdout);
    }
}

#[test]
fn kernels_option_limits_the_kernels() {
    let (status, stdout) = run(&[
        "mairbench.sizes=4K-16K",
        "mairbench.sources=anon",
        "mairbench.kernels=read-ldp",
    ]);
    let records = conforming(&stdout);
    let results = of_kind(&records, "result");
    assert_eq!(results.len(), 3, "{stdout}");
    assert!(
        results.iter().all(|r| r["kernel"] == "read-ldp"),
        "{stdout}"
    );
    assert_passed(status, &records, &stdout);

    // A kernel the twin does not run is said to be left out; the others still run.
    let (status, stdout) = run(&[
        "mairbench.sizes=4K",
        "mairbench.sources=anon",
        "mairbench.kernels=latency,maint-civac,copy-from",
    ]);
    let records = conforming(&stdout);
    let kernels: Vec<_> = of_kind(&records, "result")
        .iter()
        .map(|r| r["kernel"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(kernels, ["copy-from", "latency"], "{stdout}");
    assert!(
        stdout.contains("kernels: maint-civac not run by mairbench-linux"),
        "{stdout}"
    );
    assert_passed(status, &records, &stdout);
}

/// `mairbench.devmem-ram=` among the arguments is the twin's own (no bootargs warning); a
/// malformed range refuses the source with EINVAL, and the run passes.
#[test]
fn a_malformed_devmem_ram_range_is_refused() {
    for bad in ["0x5c000001+64M", "0x5c000000", "0x5c000000+0", "nonsense"] {
        let arg = format!("mairbench.devmem-ram={bad}");
        let (status, stdout) = run(&[
            "mairbench.sizes=4K",
            "mairbench.kernels=read-ldp",
            &arg,
            "mairbench.sources=devmem-ram",
        ]);
        let records = conforming(&stdout);
        let sources = of_kind(&records, "source");
        assert_eq!(sources.len(), 1, "{stdout}");
        assert_eq!(sources[0]["error"], "EINVAL", "{bad}: {stdout}");
        assert_eq!(
            sources[0]["detail"], "mairbench.devmem-ram=<page-aligned pa>+<size in pages> expected",
            "{bad}"
        );
        assert!(!stdout.contains("bootargs:"), "{bad}: {stdout}");
        assert_eq!(records.last().unwrap()["warnings"], 0, "{stdout}");
        assert_passed(status, &records, &stdout);
    }
}

#[test]
fn missing_and_malformed_sources_get_error_records_and_the_run_goes_on() {
    let (status, stdout) = run(&[
        "mairbench.sizes=4K",
        "mairbench.kernels=read-ldp",
        "mairbench.sources=dma-heap:nope,drm-dumb:card9,bogus,pci:nobar,dma-heap:..,\
         dma-buf:card9,dma-buf:../x,devmem-ram,anon",
    ]);
    let records = conforming(&stdout);
    let sources = of_kind(&records, "source");
    let by = |name: &str| {
        *sources
            .iter()
            .find(|s| s["source"] == name)
            .unwrap_or_else(|| panic!("no source record for {name}:\n{stdout}"))
    };
    for (name, error, errno, detail) in [
        ("dma-heap:nope", "ENOENT", 2, "open /dev/dma_heap/nope"),
        ("drm-dumb:card9", "ENOENT", 2, "open /dev/dri/card9"),
        ("pci:nobar", "EINVAL", 22, "pci:<BDF>:resN expected"),
        ("dma-heap:..", "EINVAL", 22, "dma-heap:<name> expected"),
        ("dma-buf:card9", "ENOENT", 2, "open /dev/dri/card9"),
        ("dma-buf:../x", "EINVAL", 22, "dma-buf:<card> expected"),
        // The host's kernel command line has no mairbench.devmem-ram= (nor the arguments).
        (
            "devmem-ram",
            "ENOENT",
            2,
            "no mairbench.devmem-ram=<pa>+<size> bootarg (qemu/run's Linux boot passes one \
             for the RAM it hides from Linux with mem=)",
        ),
    ] {
        let s = by(name);
        assert_eq!(s["error"], error, "{s}");
        assert_eq!(s["errno"], errno, "{s}");
        assert_eq!(s["detail"], detail, "{s}");
        assert!(s.get("size").is_none(), "{s}");
    }
    // An unknown name: EINVAL, and the detail lists every form of core's source table.
    let bogus = by("bogus");
    assert_eq!(bogus["error"], "EINVAL", "{bogus}");
    let detail = bogus["detail"].as_str().unwrap();
    assert!(detail.starts_with("not a source name ("), "{detail}");
    for form in SOURCES.iter().map(|s| s.form).chain(["all"]) {
        assert!(detail.contains(form), "{form} not in {detail}");
    }
    // The run went on: anon after them was measured, and the refusals failed nothing.
    assert_eq!(by("anon")["size"], 4096);
    let results = of_kind(&records, "result");
    assert_eq!(results.len(), 1, "{stdout}");
    assert_eq!(results[0]["source"], "anon");
    assert_passed(status, &records, &stdout);
}

#[test]
fn bad_values_warn_and_keep_defaults() {
    let (status, stdout) = run(&[
        "mairbench.quick",
        "mairbench.reps=lots",
        "mairbench.kernels=read-ldp,nonsense,write-stp",
        "mairbench.sources=anon",
    ]);
    let records = conforming(&stdout);
    assert!(
        stdout.contains("bootargs: option 'mairbench.reps': 'lots'"),
        "{stdout}"
    );
    assert!(
        stdout.contains("bootargs: option 'mairbench.kernels': 'nonsense'"),
        "{stdout}"
    );
    // The quick sweep (4K, 256K, 4M), the quick kernels (read-ldp, write-stp), the quick
    // reps (3).
    let results = of_kind(&records, "result");
    assert_eq!(results.len(), 6, "{stdout}");
    assert!(results.iter().all(|r| r["reps"] == 3));
    assert!(results
        .iter()
        .all(|r| r["kernel"] == "read-ldp" || r["kernel"] == "write-stp"));
    let end = records.last().unwrap();
    assert_eq!(end["warnings"], 2, "{stdout}");
    assert_passed(status, &records, &stdout);
}

/// `mairbench.pause=1` with no debugger: after anon's sweep the twin names the mapping (its
/// VA, its size (the largest swept, 4 KiB), pid and release word), waits its second, says nobody released it and goes on;
/// the run passes, and the option is no unknown-option warning.
#[test]
fn a_pause_nobody_releases_ends_and_the_run_goes_on() {
    let started = std::time::Instant::now();
    let (status, stdout) = run(&[
        "mairbench.sizes=4K",
        "mairbench.reps=1",
        "mairbench.kernels=read-ldp",
        "mairbench.sources=anon",
        "mairbench.pause=1",
    ]);
    let records = conforming(&stdout);
    let line = stdout
        .lines()
        .find(|l| l.starts_with("pause: source anon mapped at va 0x"))
        .unwrap_or_else(|| panic!("no pause line:\n{stdout}"));
    assert!(
        line.contains(" (4096 B), pid ") && line.contains("; release word at va 0x"),
        "{line}"
    );
    assert!(
        stdout.contains("pause: source anon: not released within 1 s; going on"),
        "{stdout}"
    );
    assert!(started.elapsed() >= std::time::Duration::from_secs(1));
    assert!(!stdout.contains("mairbench.pause'"), "{stdout}");
    assert_eq!(records.last().unwrap()["warnings"], 0, "{stdout}");
    assert_passed(status, &records, &stdout);
}

/// A fault in the twin (here `mairbench.selftest=fault`, a load from address 16; on a board, a
/// BAR that answers with a bus error) is caught on the signal's own stack: the signal, the
/// address and what the twin was doing are said, and the run ends with a failed `signal`
/// check and an `end` record, exit status 1, not a silent death.
#[test]
fn a_fatal_signal_is_reported_and_ends_the_run() {
    let (status, stdout) = run(&["mairbench.selftest=fault", "mairbench.sources=anon"]);
    let records = conforming(&stdout);
    assert!(
        stdout.contains(
            "fatal: SIGSEGV (an access the mapping does not allow) at 0x10 while \
             mairbench.selftest=fault\n"
        ),
        "{stdout}"
    );
    let check = of_kind(&records, "check")
        .into_iter()
        .find(|c| c["name"] == "signal")
        .unwrap_or_else(|| panic!("no signal check:\n{stdout}"));
    assert_eq!(check["ok"], false, "{check}");
    let end = records.last().unwrap();
    assert_eq!(end["kind"], "end", "{stdout}");
    assert_eq!(end["status"], "fail", "{stdout}");
    assert_eq!(end["reason"], "SIGSEGV", "{stdout}");
    assert_eq!(status, 1, "{stdout}");
    assert!(of_kind(&records, "result").is_empty(), "{stdout}");
}

/// The twin under user-mode QEMU with its system calls traced (`-d strace` into a file): exit
/// status, stdout, stderr, the trace.
fn traced(args: &[&str]) -> (i32, String, String, String) {
    under("qemu-aarch64", &[], &twin(), args, true)
}

/// `elf` under the user-mode QEMU `qemu` (with `options`, e.g. `-cpu`), its system calls
/// traced when `trace` (`-d strace` into a file): exit status, stdout, stderr, the trace.
pub(crate) fn under(
    qemu: &str,
    options: &[&str],
    elf: &std::path::Path,
    args: &[&str],
    trace: bool,
) -> (i32, String, String, String) {
    let log = std::env::temp_dir().join(format!(
        "mairbench-{qemu}-strace-{}-{:?}.log",
        std::process::id(),
        std::thread::current().id()
    ));
    let mut command = Command::new(qemu);
    command.args(options);
    if trace {
        command.args(["-d", "strace", "-D"]).arg(&log);
    }
    let out = command
        .arg(elf)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{qemu} (Debian's qemu-user; ./test.sh installs it): {e}"));
    let traced = if trace {
        let t = std::fs::read_to_string(&log).unwrap_or_default();
        let _ = std::fs::remove_file(&log);
        t
    } else {
        String::new()
    };
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        traced,
    )
}

/// The system calls of a trace (`PID name(...`), by name.
pub(crate) fn syscalls(trace: &str) -> Vec<&str> {
    trace
        .lines()
        .filter_map(|l| {
            let (pid, rest) = l.split_once(' ')?;
            pid.parse::<u32>().ok()?;
            rest.split_once('(').map(|(name, _)| name)
        })
        .collect()
}

/// Sources that would write hardware if the twin went on, chosen so that even a twin that
/// did go on could not reach the host's (the test runs as root, often with real PCI devices):
/// physical memory past any machine's (`/dev/mem` refuses the mapping) and a PCI function no
/// machine has (bus 0xff, device 0x1f, function 7: no sysfs entry).
const HARDWARE: &str = "mairbench.sources=devmem:0xfff0000000000+4K,pci:0000:ff:1f.7:res0";

#[test]
fn help_and_version_answer_and_map_nothing() {
    for help in ["-h", "--help"] {
        let (status, stdout, stderr, trace) = traced(&[help, HARDWARE]);
        assert_eq!(status, 0, "{stderr}");
        assert!(stdout.starts_with("usage: mairbench-linux"), "{stdout}");
        assert!(stdout.contains("all-hardware"), "{stdout}");
        assert!(!stdout.lines().any(|l| l.starts_with("@mb ")), "{stdout}");
        let calls = syscalls(&trace);
        assert!(!calls.is_empty(), "no trace: {trace}");
        assert!(
            calls.iter().all(|c| matches!(*c, "write" | "exit_group")),
            "{calls:?}"
        );
    }
    let (status, stdout, _, _) = traced(&["--version", HARDWARE]);
    assert_eq!(status, 0);
    assert_eq!(
        stdout,
        format!("mairbench-linux {}\n", env!("CARGO_PKG_VERSION"))
    );
}

#[test]
fn an_unknown_argument_stops_the_twin_before_anything_is_mapped() {
    for wrong in [
        "--hepl",
        "mairbench.nonsense",
        "mairbench.quik",
        "sources=anon",
    ] {
        let (status, stdout, stderr, trace) = traced(&["mairbench.quick", wrong, HARDWARE]);
        assert_eq!(status, 2, "{wrong}: {stderr}");
        assert!(stdout.is_empty(), "{wrong}: {stdout}");
        assert!(
            stderr.contains(&format!("mairbench-linux: unknown argument '{wrong}'")),
            "{stderr}"
        );
        assert!(stderr.contains("usage: mairbench-linux"), "{stderr}");
        let calls = syscalls(&trace);
        assert!(!calls.is_empty(), "no trace: {trace}");
        assert!(
            calls.iter().all(|c| matches!(*c, "write" | "exit_group")),
            "{wrong}: {calls:?}"
        );
    }
}

#[test]
fn the_default_sources_are_memory_the_twin_allocates() {
    // `all` (the default) names no hardware source; a hardware source named says, before it
    // is mapped, that the sweep writes it (refused here: no machine has that physical address,
    // so even a host /dev/mem cannot map it).
    let (_, stdout) = run(&[
        "mairbench.quick",
        "mairbench.sizes=4K",
        "mairbench.sources=all",
    ]);
    let records = conforming(&stdout);
    for s in of_kind(&records, "source") {
        let name = s["source"].as_str().unwrap_or_default();
        assert!(
            ["anon", "udmabuf", "dma-heap:", "drm-dumb:", "dma-buf:"]
                .iter()
                .any(|p| name.starts_with(p)),
            "{name} in the default set"
        );
    }
    let (_, stdout) = run(&[
        "mairbench.quick",
        "mairbench.sizes=4K",
        "mairbench.sources=devmem:0xfff0000000000+4K",
    ]);
    assert!(
        stdout.contains(
            "source devmem:0xfff0000000000+4K: hardware's memory, named on the command line: the sweep \
             writes every byte of the mapping"
        ),
        "{stdout}"
    );
}

#[test]
fn under_user_mode_qemu_the_twin_knows_it_is_emulated() {
    // Nothing names the emulator (no mairbench.host=, no device tree): its behaviour does,
    // the counter's microsecond steps at a claimed 62.5 MHz and the host's /proc/cpuinfo.
    let (status, stdout) = run(&[
        "mairbench.quick",
        "mairbench.sizes=4K",
        "mairbench.sources=anon",
    ]);
    let records = conforming(&stdout);
    let start = &records[0];
    assert_eq!(start["emulated"], true, "{start}");
    assert_eq!(
        start["emulated_by"],
        serde_json::json!(["tells"]),
        "{start}"
    );
    let tells = start["emulation_tells"]
        .as_array()
        .expect("emulation_tells");
    assert!(tells.iter().any(|t| t == "cpuinfo-not-arm64"), "{start}");
    assert!(
        stdout.contains("emulated machine: QEMU models no caches"),
        "{stdout}"
    );
    // Nor is anon's latency curve read for a system cache: its steps are the host's.
    let system_cache = of_kind(&records, "system_cache");
    assert_eq!(system_cache.len(), 1, "{stdout}");
    assert_eq!(system_cache[0]["status"], "emulated", "{stdout}");
    assert!(
        stdout.contains("system cache: not looked for under emulation"),
        "{stdout}"
    );
    assert_passed(status, &records, &stdout);
}
