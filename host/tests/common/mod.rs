//! Boots the firmware in QEMU through the runner `cargo run` uses (`qemu/run`'s program,
//! started directly), and splits the console output into machine records.

// Shared by several test binaries; each uses only part of it.
#![allow(dead_code)]

pub mod deps;
pub mod disasm;
pub mod dtb;
pub mod gdb;
pub mod tool;

use serde_json::Value;
use std::io::{BufRead, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The documentation: `README.md` and every Markdown file under `docs/` (paths from the root,
/// `/`-separated, sorted).
pub fn docs() -> Vec<String> {
    fn walk(dir: &Path, rel: &str, out: &mut Vec<String>) {
        for entry in std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display())) {
            let entry = entry.unwrap();
            let name = entry.file_name().into_string().unwrap();
            let path = entry.path();
            if path.is_dir() {
                walk(&path, &format!("{rel}{name}/"), out);
            } else if name.ends_with(".md") {
                out.push(format!("{rel}{name}"));
            }
        }
    }
    let mut out = vec!["README.md".to_owned()];
    walk(&root().join("docs"), "docs/", &mut out);
    out.sort();
    out
}

/// The directory cargo builds into: `CARGO_TARGET_DIR` (relative to the workspace root) when
/// set, else `target/` under the root.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map_or_else(|| root().join("target"), |t| root().join(t))
}

/// The firmware ELF, built by `cargo build --release` (the test command does it first).
pub fn firmware() -> PathBuf {
    let elf = target_dir().join("aarch64-unknown-none/release/mairbench");
    assert!(
        elf.exists(),
        "no firmware at {}: run `cargo build --release` first (./test.sh does)",
        elf.display()
    );
    elf
}

/// The 32-bit image's ELF, built by `cargo build --release --target
/// armv7-unknown-linux-gnueabihf -p mairbench` (the test command does it first).
pub fn firmware_armv7() -> PathBuf {
    let elf = target_dir().join("armv7-unknown-linux-gnueabihf/release/mairbench");
    assert!(
        elf.exists(),
        "no 32-bit image at {}: run `cargo build --release --target \
         armv7-unknown-linux-gnueabihf -p mairbench` first (./test.sh does)",
        elf.display()
    );
    elf
}

/// The ELF a run of these runner settings boots: the 32-bit image with
/// `MAIRBENCH_ARCH=armv7` (which the runner then checks against the ELF), else the AArch64 one.
pub fn firmware_for(env: &[(&str, &str)]) -> PathBuf {
    match env.iter().rev().find(|(k, _)| *k == "MAIRBENCH_ARCH") {
        Some((_, "armv7")) => firmware_armv7(),
        _ => firmware(),
    }
}

/// Whether a test may skip for a dependency it cannot have, given the environment's `CI`:
/// on a user's machine yes (a missing mirror is not the project's fault), under `CI=true` no,
/// where a skip would hide a broken install step.
pub fn may_skip(ci: Option<&str>) -> bool {
    ci != Some("true")
}

/// A test's dependency `what` could not be had (`detail`: what the attempt said): prints
/// `SKIPPED` and returns, so the test passes, except under `CI=true`, where the test fails
/// naming the dependency.
pub fn missing_dependency(what: &str, detail: &str) {
    let ci = std::env::var("CI").ok();
    assert!(
        may_skip(ci.as_deref()),
        "CI=true and {what} could not be had, so this test cannot run (CI does not skip):\n{detail}"
    );
    eprintln!("SKIPPED: {what} could not be had:\n{detail}");
}

/// The kernels the Linux twin runs: those of core's table with `twin` (all but `fill-zva`
/// and the `maint-*` kernels).
pub fn twin_kernels() -> Vec<&'static str> {
    let names: Vec<&str> = mairbench_core::kernel::KERNELS
        .iter()
        .filter(|k| k.twin)
        .map(|k| k.name)
        .collect();
    assert_eq!(names.len(), 17, "{names:?}");
    names
}

/// What one QEMU run produced.
#[derive(Debug)]
pub struct Run {
    /// Exit status of `qemu/run`.
    pub status: i32,
    /// Everything the console printed.
    pub console: String,
    /// What the runner printed on stderr.
    pub stderr: String,
    /// The `@mb` records, in order.
    pub records: Vec<Value>,
    /// Wall time of the whole runner.
    pub wall: Duration,
}

impl Run {
    /// Records of one kind.
    pub fn of_kind(&self, kind: &str) -> Vec<&Value> {
        self.records.iter().filter(|r| r["kind"] == kind).collect()
    }

    /// The `result` records as the host tool reads them: a point taken again after its
    /// kernel's sweep (`retake_of`, when it was worse than both neighbouring sizes: a host
    /// disturbance under QEMU can make one in any run) in place of its first take, where that
    /// one stood in the sweep's order.
    pub fn results(&self) -> Vec<&Value> {
        let key = |r: &Value| {
            let k = ["memtype", "source", "kernel", "granule", "size", "cluster"];
            k.map(|f| r[f].to_string())
        };
        let all = self.of_kind("result");
        let again = |r: &Value| {
            all.iter()
                .rev()
                .find(|a| a.get("retake_of").is_some() && key(a) == key(r))
                .copied()
        };
        all.iter()
            .filter(|r| r.get("retake_of").is_none())
            .map(|r| again(r).unwrap_or(r))
            .collect()
    }

    /// The one record of a kind (panics with the console when there is not exactly one).
    pub fn one(&self, kind: &str) -> &Value {
        let found = self.of_kind(kind);
        assert_eq!(found.len(), 1, "{} {kind} records in:\n{self}", found.len());
        found[0]
    }

    /// Asserts the output contract: `start` first, `end` last, each exactly once.
    pub fn assert_framed(&self) {
        let first = self.records.first().map(|r| r["kind"].clone());
        let last = self.records.last().map(|r| r["kind"].clone());
        assert_eq!(first, Some("start".into()), "first record:\n{self}");
        assert_eq!(last, Some("end".into()), "last record:\n{self}");
        self.one("start");
        self.one("end");
        assert_eq!(self.one("start")["schema"], 1);
    }

    /// Asserts a passing run: framed, end status pass, runner exit status 0.
    pub fn assert_pass(&self) {
        self.assert_framed();
        assert_eq!(self.one("end")["status"], "pass", "{self}");
        assert_eq!(self.status, 0, "runner status:\n{self}");
    }
}

/// A run as a failed assertion shows it: the console, then the runner's stderr (QEMU's own
/// errors among it) and its exit status.
impl std::fmt::Display for Run {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        write!(
            f,
            "console:\n{}\nrunner's stderr (exit status {}):\n{}",
            self.console, self.status, self.stderr
        )
    }
}

/// What a QEMU started directly (not through the runner) printed, and how it ended.
#[derive(Debug)]
pub struct Qemu {
    /// Its stdout (the console with `-nographic`).
    pub console: String,
    /// Its stderr: QEMU's own errors (a missing ROM, a bad option).
    pub stderr: String,
    /// Its exit status, or None when it was killed at the limit or by `stop`.
    pub exited: Option<i32>,
}

impl std::fmt::Display for Qemu {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let ended = self
            .exited
            .map_or("killed".to_string(), |s| format!("exit status {s}"));
        write!(
            f,
            "console:\n{}\nQEMU's stderr ({ended}):\n{}",
            self.console, self.stderr
        )
    }
}

/// Runs `cmd` (a QEMU) with stdin closed until it exits, `stop` matches its console so far,
/// or `limit` passes (it is then killed); both its outputs are kept, so that a failure can show
/// QEMU's own error. The console's lines end in LF (CR LF made LF).
pub fn qemu(cmd: &mut Command, stop: impl Fn(&str) -> bool, limit: Duration) -> Qemu {
    let _slot = slot(cpus_of_qemu(cmd));
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("QEMU starts (./test.sh installs it)");
    let stderr = drain(child.stderr.take());
    let (tx, rx) = std::sync::mpsc::channel();
    let mut stdout = child.stdout.take().expect("piped stdout");
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n @ 1..) = stdout.read(&mut buf) {
            if tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    let started = Instant::now();
    let mut bytes = Vec::new();
    let exited = loop {
        while let Ok(chunk) = rx.try_recv() {
            bytes.extend_from_slice(&chunk);
        }
        if let Some(status) = child.try_wait().expect("QEMU can be waited for") {
            // What it printed before exiting.
            while let Ok(chunk) = rx.recv_timeout(Duration::from_millis(200)) {
                bytes.extend_from_slice(&chunk);
            }
            break status.code();
        }
        if started.elapsed() > limit || stop(&String::from_utf8_lossy(&bytes).replace("\r\n", "\n"))
        {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Qemu {
        // Lines as the runner gives them: the firmware ends its lines with CR LF.
        console: String::from_utf8_lossy(&bytes).replace("\r\n", "\n"),
        stderr: stderr.join().expect("stderr reader"),
        exited,
    }
}

/// QEMU's own device tree of `machine` (`-machine MACHINE,dumpdtb=PATH` with `args`) in
/// `path`; panics with QEMU's stderr when it cannot.
pub fn dumpdtb(machine: &str, args: &[&str], path: &Path) {
    let run = qemu(
        Command::new("qemu-system-aarch64")
            .args(["-machine", &format!("{machine},dumpdtb={}", path.display())])
            .args(args)
            .args(["-nographic", "-monitor", "none", "-net", "none"]),
        |_| false,
        Duration::from_secs(30),
    );
    assert!(
        run.exited == Some(0) && path.exists(),
        "QEMU's dumpdtb of {machine} failed:\n{run}"
    );
}

/// Parses the `@mb` records of a console log; every such line must be valid JSON.
pub fn records(console: &str) -> Vec<Value> {
    mairbench_host::records(console).unwrap_or_else(|e| panic!("{e:?} in:\n{console}"))
}

/// What qemu/run names the host with (`mairbench.host=`): `qemu-<version>` of the installed
/// QEMU, from `qemu-system-aarch64 --version`.
pub fn qemu_host() -> String {
    let out = Command::new("qemu-system-aarch64")
        .arg("--version")
        .stdin(Stdio::null())
        .output()
        .expect("qemu-system-aarch64 --version runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let version: String = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("QEMU emulator version "))
        .unwrap_or("")
        .chars()
        .take_while(|c| c.is_ascii_digit() || *c == '.')
        .collect();
    assert!(!version.is_empty(), "no QEMU version in {text:?}");
    format!("qemu-{version}")
}

/// The command line the firmware sees for `args`: qemu/run appends `mairbench.host=` and
/// `mairbench.accel=` (TCG, its default).
pub fn with_host(args: &str) -> String {
    let host = format!("mairbench.host={} mairbench.accel=tcg", qemu_host());
    if args.is_empty() {
        host
    } else {
        format!("{args} {host}")
    }
}

/// The runner built for the host (runner/, what `qemu/run` starts): `qemu/runner-bin` builds
/// it when needed, once per test binary; the tests then start it directly, without the
/// shim's call of cargo on every boot.
pub fn runner_bin() -> &'static Path {
    static BIN: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BIN.get_or_init(|| {
        let out = Command::new(root().join("qemu/runner-bin"))
            .stdin(Stdio::null())
            .stderr(Stdio::inherit())
            .output()
            .expect("qemu/runner-bin runs");
        assert!(
            out.status.success(),
            "qemu/runner-bin could not build the runner"
        );
        PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
    })
}

/// `qemu/run` on the firmware ([`firmware_for`]: the 32-bit image with `MAIRBENCH_ARCH=armv7`)
/// with the given runner settings (after the default time limit, so that a setting replaces
/// it) and command line, its output piped.
fn runner(env: &[(&str, &str)], bootargs: &[&str]) -> Command {
    let mut cmd = Command::new(runner_bin());
    cmd.arg("run")
        .arg(firmware_for(env))
        .args(bootargs)
        .env("MAIRBENCH_TIMEOUT", DEFAULT_TIMEOUT.to_string())
        // No test installs anything: a missing package is named, status 3 (./test.sh
        // installs every package before the tests).
        .env("MAIRBENCH_INSTALL", "0")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd
}

/// Boots the firmware with the given runner settings and command line.
pub fn boot(env: &[(&str, &str)], bootargs: &[&str]) -> Run {
    let _slot = slot(cpus_of(env));
    let started = Instant::now();
    let mut cmd = runner(env, bootargs);
    let timeout = env
        .iter()
        .find(|(k, _)| *k == "MAIRBENCH_TIMEOUT")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(DEFAULT_TIMEOUT);
    let runner_limit = RUNNER_LIMIT.max(Duration::from_secs(timeout + 30));
    let mut child = cmd.spawn().expect("qemu/run starts");
    let stdout = drain(child.stdout.take());
    let stderr = drain(child.stderr.take());
    // The runner kills QEMU after MAIRBENCH_TIMEOUT; this bound catches the runner itself.
    let status = loop {
        if let Some(status) = child.try_wait().expect("qemu/run can be waited for") {
            break status.code().unwrap_or(-1);
        }
        if started.elapsed() > runner_limit {
            let _ = child.kill();
            panic!("qemu/run still running after {runner_limit:?}: killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let console = stdout.join().expect("stdout reader");
    Run {
        status,
        records: records(&console),
        console,
        stderr: stderr.join().expect("stderr reader"),
        wall: started.elapsed(),
    }
}

/// As [`boot`], watching the console as it comes: `started` runs once the runner is
/// spawned (with it, to see whether it is still running) and makes the watcher's state;
/// then `line` sees each console line (without its newline) as the runner prints it, on
/// this thread, so the machine can be stopped, inspected and resumed at a line. The runner's
/// own timeout (MAIRBENCH_TIMEOUT) ends a run that hangs; a runner that outlives it by 30 s
/// is killed.
pub fn boot_watched<S>(
    env: &[(&str, &str)],
    bootargs: &[&str],
    started: impl FnOnce(&mut Child) -> S,
    mut line: impl FnMut(&mut S, &str),
) -> (Run, S) {
    let _slot = slot(cpus_of(env));
    let started_at = Instant::now();
    let mut cmd = runner(env, bootargs);
    let mut child = cmd.spawn().expect("qemu/run starts");
    let stdout = child.stdout.take().expect("the runner's stdout");
    let stderr = drain(child.stderr.take());
    let mut state = started(&mut child);
    let mut console = String::new();
    let mut reader = std::io::BufReader::new(stdout);
    let mut raw = Vec::new();
    while reader.read_until(b'\n', &mut raw).unwrap_or(0) != 0 {
        let text = String::from_utf8_lossy(&raw).into_owned();
        line(&mut state, text.trim_end_matches(['\n', '\r']));
        console.push_str(&text);
        raw.clear();
    }
    let status = loop {
        if let Some(status) = child.try_wait().expect("qemu/run can be waited for") {
            break status.code().unwrap_or(-1);
        }
        if started_at.elapsed() > RUNNER_LIMIT {
            let _ = child.kill();
            panic!("qemu/run still running after {RUNNER_LIMIT:?} with its stdout closed: killed");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let run = Run {
        status,
        records: records(&console),
        console,
        stderr: stderr.join().expect("stderr reader"),
        wall: started_at.elapsed(),
    };
    (run, state)
}

/// Longest a runner may take, QEMU's own timeout included.
const RUNNER_LIMIT: Duration = Duration::from_secs(90);
/// Seconds the runner gives QEMU unless a test says otherwise (a test running alone takes a
/// fraction of it; CI runs tests two at a time on two cores).
const DEFAULT_TIMEOUT: u64 = 60;

/// How many QEMUs may run at once in one test binary, in slots: one per core of the host
/// (`available_parallelism`). A machine takes a slot per two emulated CPUs ([`slot`]).
pub fn slots() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The slots in use, and the signal that some were given back.
static SLOTS: (Mutex<usize>, Condvar) = (Mutex::new(0), Condvar::new());

/// Slots held by one QEMU; given back when dropped.
pub struct Slot(usize);

impl Drop for Slot {
    fn drop(&mut self) {
        let mut used = SLOTS.0.lock().unwrap_or_else(PoisonError::into_inner);
        *used -= self.0;
        SLOTS.1.notify_all();
    }
}

/// Waits until a machine of `cpus` emulated CPUs may start: one slot for one or two CPUs, one
/// more for every two more, at most all of them. Every QEMU a test starts through [`boot`],
/// [`boot_watched`] or [`qemu`] holds its slots while it runs, so that the tests of one binary,
/// run in parallel, never run more QEMUs than the host has cores (each emulated CPU is a host
/// thread, and a machine that gets too little time runs into the runner's time limit).
pub fn slot(cpus: usize) -> Slot {
    let (total, want) = (slots(), cpus.div_ceil(2).clamp(1, slots()));
    let mut used = SLOTS.0.lock().unwrap_or_else(PoisonError::into_inner);
    while *used + want > total {
        used = SLOTS.1.wait(used).unwrap_or_else(PoisonError::into_inner);
    }
    *used += want;
    Slot(want)
}

/// The emulated CPUs of a machine the runner starts with these settings: a real board's
/// machine has four, but the i.MX6UL EVK's and the Cubieboard's one; virt has MAIRBENCH_SMP
/// (one unless set).
fn cpus_of(env: &[(&str, &str)]) -> usize {
    let setting = |key: &str| env.iter().rev().find(|(k, _)| *k == key).map(|(_, v)| *v);
    match setting("MAIRBENCH_MACHINE") {
        Some("mcimx6ul-evk" | "cubieboard") => 1,
        Some(
            "raspi3b" | "raspi4b" | "imx8mp-evk" | "xlnx-zcu102" | "orangepi-pc" | "raspi2b"
            | "sabrelite",
        ) => 4,
        _ => setting("MAIRBENCH_SMP")
            .and_then(|n| n.parse().ok())
            .unwrap_or(1),
    }
}

/// The emulated CPUs of a QEMU command line: `-smp N`, else four for the Raspberry Pi
/// machines, else one.
fn cpus_of_qemu(cmd: &Command) -> usize {
    let args: Vec<String> = cmd
        .get_args()
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let after = |flag: &str| args.windows(2).find(|w| w[0] == flag).map(|w| w[1].clone());
    if let Some(n) = after("-smp").and_then(|n| n.parse().ok()) {
        return n;
    }
    match after("-machine") {
        Some(m) if m.starts_with("raspi") => 4,
        _ => 1,
    }
}

fn drain(pipe: Option<impl Read + Send + 'static>) -> std::thread::JoinHandle<String> {
    std::thread::spawn(move || {
        let mut bytes = Vec::new();
        if let Some(mut pipe) = pipe {
            let _ = pipe.read_to_end(&mut bytes);
        }
        String::from_utf8_lossy(&bytes).into_owned()
    })
}

/// The memory types and MAIR bytes the firmware must map, written out independently of its
/// own table (Arm ARM MAIR_EL1 encodings).
pub const MEMTYPES: [(&str, &str); 8] = [
    ("normal-wb", "0xff"),
    ("normal-wb-noalloc", "0xcc"),
    ("normal-wt", "0xbb"),
    ("normal-nc", "0x44"),
    ("device-ngnrne", "0x00"),
    ("device-ngnre", "0x04"),
    ("device-ngre", "0x08"),
    ("device-gre", "0x0c"),
];

/// The memory types of the 32-bit image and their MAIR0/MAIR1 bytes under LPAE, written out
/// independently of its own table: ARMv7 has Strongly-ordered (0x00) and Device (0x04) and no
/// nGRE or GRE; write-through without write-allocate (0xaa). Linux's LPAE kernel programs the
/// same bytes (`arch/arm/mm/proc-v7-3level.S`: MAIR0 0xeeaa4400, MAIR1 0xff000004).
pub const MEMTYPES_ARMV7: [(&str, &str); 6] = [
    ("normal-wb", "0xff"),
    ("normal-wb-nowa", "0xee"),
    ("normal-wt", "0xaa"),
    ("normal-nc", "0x44"),
    ("device-ngnrne", "0x00"),
    ("device-ngnre", "0x04"),
];

impl Run {
    /// Asserts the memory-type proof of the AArch64 image: [`Run::assert_memory_proven_for`]
    /// its eight types.
    pub fn assert_memory_proven(&self) {
        self.assert_memory_proven_for(&MEMTYPES);
    }

    /// Asserts the memory-type proof of an image whose types (name, MAIR byte) are `types`, in
    /// its order: a page alias per type (eight on AArch64), then a 2 MiB-block alias per type
    /// in the same order, of one physical buffer, each with the right attribute; every
    /// ordered pair of the page aliases coherent (56 of eight types); the three provoked
    /// faults reported and survived.
    pub fn assert_memory_proven_for(&self, types: &[(&str, &str)]) {
        let n = types.len();
        let proofs = self.of_kind("memtype");
        assert_eq!(proofs.len(), 2 * n, "{}", self.console);
        let pa = &proofs[0]["pa"];
        let expected = types
            .iter()
            .map(|t| (t, "4K"))
            .chain(types.iter().map(|t| (t, "2M")));
        for (proof, ((name, mair), granule)) in proofs.iter().zip(expected) {
            assert_eq!(proof["name"], *name, "{proof}");
            assert_eq!(proof["mair"], *mair, "{proof}");
            assert_eq!(proof["par_attr"], *mair, "{proof}");
            assert_eq!(proof["verdict"], "exact", "{proof}");
            assert_eq!(proof["granule"], granule, "{proof}");
        }
        let lines = self
            .console
            .lines()
            .filter(|l| l.starts_with("ok   memtype: "))
            .count();
        assert_eq!(lines, 2 * n, "a memtype check line per alias");
        for proof in &proofs {
            assert_eq!(proof["ok"], true, "{proof}");
            assert_eq!(
                &proof["pa"], pa,
                "every alias maps the same physical buffer"
            );
        }
        let vas: std::collections::BTreeSet<_> =
            proofs.iter().map(|p| p["va"].to_string()).collect();
        assert_eq!(vas.len(), 2 * n, "a distinct virtual alias each");
        let blocks = self
            .of_kind("map")
            .into_iter()
            .filter(|m| m["granule"] == "2M")
            .count();
        assert_eq!(blocks, n, "the memory map shows every block alias");

        let pairs: Vec<_> = self
            .of_kind("coherence")
            .into_iter()
            .filter(|c| c["maintenance"] == true)
            .collect();
        assert_eq!(
            pairs.len(),
            n * (n - 1),
            "every ordered pair of page aliases"
        );
        for pair in &pairs {
            assert_eq!(pair["mismatches"], 0, "{pair}");
            assert_ne!(pair["writer"], pair["reader"]);
        }
        let demo = self
            .of_kind("coherence")
            .into_iter()
            .find(|c| c["maintenance"] == false)
            .expect("the demonstration without maintenance");
        assert_eq!(demo["informational"], true);

        let faults = self.of_kind("fault");
        let seen: Vec<_> = faults
            .iter()
            .map(|f| {
                (
                    f["test"].as_str().unwrap(),
                    f["status"].as_str().unwrap(),
                    f["ok"].clone(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                ("guard-page-load", "translation fault", true.into()),
                ("text-store", "permission fault", true.into()),
                ("unmapped-load", "translation fault", true.into()),
            ]
        );
        assert_eq!(
            faults[0]["level"], 3,
            "the guard page is a hole in a level-3 table"
        );
        assert_eq!(faults[1]["write"], true);
        let hex = |v: &Value| {
            u64::from_str_radix(v.as_str().unwrap().trim_start_matches("0x"), 16).unwrap()
        };
        let last_end = proofs.iter().map(|p| hex(&p["va_end"])).max().unwrap();
        assert!(
            hex(&faults[2]["va"]) >= last_end,
            "the unmapped-load probe lies past the last alias: {}",
            faults[2]
        );
    }
}
