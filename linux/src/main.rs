//! mairbench-linux: the firmware's kernels and records, run as a Linux process on the
//! mappings Linux hands out (each a named `source`), so that its sweeps can be set against
//! the firmware's, memory type by memory type.
//!
//! Usage: `mairbench-linux [mairbench.sizes=4K-1M] [mairbench.reps=N] [mairbench.quick]
//! [mairbench.kernels=LIST] [mairbench.buffer=SIZE] [mairbench.host=NAME]
//! [mairbench.hugepages=auto|on|off] [mairbench.sources=LIST]`: the firmware's option names
//! (`mairbench.hugepages=`, core's, is the twin's advice on transparent huge pages for its
//! anonymous mappings, each mapped 2 MiB-aligned; every source record says how much of the
//! mapping is on 2 MiB entries, every result its `granule`), plus the twin's own
//! `mairbench.sources=`, a comma-separated list of the forms of core's source table
//! (`mairbench_core::source::SOURCES`: `anon`, `udmabuf`, `dma-heap:<name>`,
//! `pci:<BDF>:resN`, `pci:<BDF>:resN_wc`, `devmem:<pa>+<size>`, `drm-dumb:<card>`), `all`
//! (the default: memory the twin allocates itself: anon, udmabuf, every `/dev/dma_heap/*`,
//! every `/dev/dri/card*`) and `all-hardware` (`all`, both mappings of every prefetchable PCI
//! memory BAR, `devmem-ram`). A source that is missing or refused gets an error record
//! (errno name and the failing step) and the run goes on. `-h`/`--help` prints the usage,
//! `--version` the version; an argument it does not know ends it with status 2 and the usage,
//! before anything is mapped.
//!
//! Kernels come from core's kernel table with its `mairbench.kernels=` mask (default all,
//! `mairbench.quick` the quick ones): read-ldp, write-stp, read-ldp-q, write-stp-q,
//! read-ldnp, write-stnp, copy-to and copy-from (against a private anonymous mapping of the
//! source's size, where the firmware copies with `normal-wb`; bytes copied counted once),
//! latency (the firmware's chase: one pointer per 64-byte line in one random cycle). Not
//! run: `fill-zva` (DC ZVA faults on Device memory, and EL0 may issue it only where the kernel
//! sets SCTLR_EL1.DZE) and the `maint-*` kernels (EL0 may never issue DC IVAC; DC CIVAC and
//! DC CVAC it may, with SCTLR_EL1.UCI, which arm64 Linux sets, but their timing needs the
//! firmware's per-pass set-up through a second alias of the same pages). Like the firmware's, every point starts `invalidated`: what it
//! touches is cleaned and invalidated (DC CIVAC, which Linux lets EL0 issue) right before
//! its warm-up, here through the source's own mapping.
//!
//! Output: human lines and `@mb` records on stdout, from `start` to `end`; exit status 0
//! exactly when the run passed.
#![no_std]
#![no_main]
#![deny(clippy::undocumented_unsafe_blocks)]
#![deny(missing_docs)]
// All `unsafe` lives in `sys`.
#![deny(unsafe_code)]
#![deny(unsafe_op_in_unsafe_fn)]

#[allow(unsafe_code)]
mod sys;

use core::fmt::{self, Write};
use mairbench_core::bootargs::{self, Hugepages, Note, Selftest};
use mairbench_core::counter;
use mairbench_core::diagnosis;
use mairbench_core::emulation::{Accel, Observed, Tell, Tells};
use mairbench_core::format::{Bytes, Decimal};
use mairbench_core::kernel::{self, Kernel, KernelSpec, Unit, ALL_KERNELS, KERNELS};
use mairbench_core::pattern::{self, Pattern};
use mairbench_core::record::{self, Record};
use mairbench_core::source::{self, Form, SourceSpec, DEVMEM_RAM_KEY, SOURCES};
use mairbench_core::stats::{self, MAX_REPS};
use mairbench_core::sweep::{CHASE_LINE, SEED};
use mairbench_core::{placement, random, schema, sweep};

const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The sweep without `mairbench.sizes=`: 4 KiB to 4 MiB.
const DEFAULT_SIZES: (u64, u64) = (4 << 10, 4 << 20);
/// Largest mapping without `mairbench.buffer=`.
const DEFAULT_BUFFER: u64 = 64 << 20;
const DEFAULT_REPS: u32 = 7;
const QUICK_REPS: u32 = 3;
/// Samples a point may drop for a counter that went backwards before it keeps one anyway.
const MAX_BACKWARDS: u64 = 16;
/// The kernel's transparent huge page setting (Documentation/admin-guide/mm/transhuge.rst).
const THP_ENABLED: &str = "/sys/kernel/mm/transparent_hugepage/enabled";
/// What the anonymous mappings are aligned to, so that THP can map them with PMD entries
/// (2 MiB with arm64's 4 KiB granule, which Debian's kernel uses).
const HUGE_ALIGN: u64 = 2 << 20;
/// How far past a 2 MiB boundary the copies' anonymous side starts: 17 pages, an odd count,
/// so that its page i and a 2 MiB-aligned source's page i never share a slot of a
/// direct-mapped translation cache indexed by page number.
const PARTNER_SKEW: u64 = 17 * 4096;
/// The largest /proc/self/smaps the twin reads (under user-mode QEMU it is QEMU's own, with
/// a few hundred VMAs); a longer one is read up to here.
const SMAPS_MAX: u64 = 4 << 20;

/// The twin's own option: which sources run, a comma-separated list (default `all`).
const SOURCES_KEY: &str = "mairbench.sources=";
/// The twin's own option: after each source's sweep, wait (its mapping still there) for a
/// debugger to walk the page tables (`mairbench.pause`, 30 s at most, or
/// `mairbench.pause=SECONDS`).
const PAUSE_KEY: &str = "mairbench.pause";

/// Errno names for the error records (asm-generic numbers, as on arm64).
const ERRNO_NAMES: &[(i64, &str)] = &[
    (1, "EPERM"),
    (2, "ENOENT"),
    (5, "EIO"),
    (6, "ENXIO"),
    (9, "EBADF"),
    (12, "ENOMEM"),
    (13, "EACCES"),
    (14, "EFAULT"),
    (16, "EBUSY"),
    (19, "ENODEV"),
    (20, "ENOTDIR"),
    (22, "EINVAL"),
    (25, "ENOTTY"),
    (30, "EROFS"),
    (36, "ENAMETOOLONG"),
    (38, "ENOSYS"),
    (95, "EOPNOTSUPP"),
];

/// The name of errno `e` ("EPERM"), or "E?" for one outside the table.
fn errno_name(e: i64) -> &'static str {
    ERRNO_NAMES
        .iter()
        .find(|&&(n, _)| n == e)
        .map_or("E?", |&(_, name)| name)
}

/// Standard output, line-buffered; a failed write is kept and later output dropped.
struct Out {
    buf: [u8; 1024],
    n: usize,
    failed: bool,
}

impl Out {
    fn flush(&mut self) {
        if !self.failed && sys::write_all(1, self.buf.get(..self.n).unwrap_or_default()).is_err() {
            self.failed = true;
        }
        self.n = 0;
    }
}

impl Write for Out {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for &b in s.as_bytes() {
            if let Some(slot) = self.buf.get_mut(self.n) {
                *slot = b;
                self.n += 1;
            }
            if b == b'\n' || self.n == self.buf.len() {
                self.flush();
            }
        }
        if self.failed {
            Err(fmt::Error)
        } else {
            Ok(())
        }
    }
}

/// A human line (records are written with [`Record`]).
macro_rules! say {
    ($out:expr, $($arg:tt)*) => {{
        let _ = writeln!($out, $($arg)*);
    }};
}

/// The tally of the run, for the `end` record, and what the closing diagnosis needs.
#[derive(Default)]
struct Tally {
    checks: u64,
    failed: u64,
    warnings: u64,
    diag: Diag,
}

/// How many sources the closing diagnosis keeps figures of, the reference included; a run
/// with more names the ones left out.
const DIAG_SOURCES: usize = 16;

/// The kernels of the diagnosis: reads, writes, copies out of the source (core's
/// `diagnosis::Figures` order).
const DIAG_KERNELS: [Kernel; 3] = [Kernel::ReadLdp, Kernel::WriteStp, Kernel::CopyFrom];

/// One source's best and median MB/s per diagnosis kernel and level.
#[derive(Clone, Copy)]
struct DiagRow {
    name: [u8; 64],
    len: usize,
    figures: [[Option<(u64, u64)>; 3]; 3],
}

impl Default for DiagRow {
    fn default() -> DiagRow {
        DiagRow {
            name: [0; 64],
            len: 0,
            figures: [[None; 3]; 3],
        }
    }
}

impl DiagRow {
    fn name(&self) -> &str {
        core::str::from_utf8(self.name.get(..self.len).unwrap_or_default()).unwrap_or("?")
    }
}

/// The figures the closing diagnosis (core's `diagnosis`) reads, kept as points are timed.
#[derive(Default)]
struct Diag {
    /// The working set of each level (`diagnosis::levels`).
    levels: [Option<u64>; 3],
    rows: [DiagRow; DIAG_SOURCES],
    n: usize,
    /// Sources beyond [`DIAG_SOURCES`].
    left_out: u64,
}

impl Diag {
    /// Keeps a measured, intact point of a diagnosis kernel at a level's size.
    fn keep(&mut self, source: &str, kernel: Kernel, size: u64, best_mbps: u64, median: u64) {
        let Some(k) = DIAG_KERNELS.iter().position(|&d| d == kernel) else {
            return;
        };
        let Some(level) = self.levels.iter().position(|&l| l == Some(size)) else {
            return;
        };
        let at = match self
            .rows
            .get(..self.n)
            .unwrap_or_default()
            .iter()
            .position(|r| r.name.get(..r.len) == Some(source.as_bytes()))
        {
            Some(at) => at,
            None if self.n < DIAG_SOURCES && source.len() <= 64 => {
                let row = &mut self.rows[self.n];
                row.name[..source.len()].copy_from_slice(source.as_bytes());
                row.len = source.len();
                self.n += 1;
                self.n - 1
            }
            None => {
                self.left_out += 1;
                return;
            }
        };
        self.rows[at].figures[k][level] = Some((best_mbps, median));
    }

    /// The summary against the reference ([`Form::Anon`]), after the sweep.
    fn say(&self, out: &mut Out, emulated: bool) {
        let name = DiagRow::name;
        let rows = self.rows.get(..self.n).unwrap_or_default();
        let base = Form::Anon.form();
        let Some(anon) = rows.iter().find(|r| name(r) == base) else {
            if rows.iter().any(|r| name(r) != base) {
                say!(
                    out,
                    "diagnosis: no {base} figures to compare the sources with (map {base} too)"
                );
            }
            return;
        };
        if rows.len() < 2 {
            return;
        }
        say!(out, "{}", diagnosis::Header(base));
        for row in rows.iter().filter(|r| name(r) != base) {
            let of = |k: usize| -> [Option<diagnosis::Slower>; 3] {
                core::array::from_fn(|level| {
                    diagnosis::Slower::of(anon.figures[k][level]?, row.figures[k][level]?)
                })
            };
            let figures = diagnosis::Figures {
                sizes: self.levels,
                read: of(0),
                write: of(1),
                copy: of(2),
            };
            let _ = write!(
                out,
                "{}",
                diagnosis::Block {
                    name: name(row),
                    figures: &figures
                }
            );
        }
        if self.left_out > 0 {
            say!(
                out,
                "  ({} points of sources beyond the first {DIAG_SOURCES} not diagnosed)",
                self.left_out
            );
        }
        if emulated {
            say!(out, "  ({})", diagnosis::EMULATED);
        }
    }
}

/// The data and unified caches' sizes in bytes, innermost first, from sysfs (cpu0's
/// `cache/index*/`); empty where Linux does not know them (QEMU's virt describes none).
fn cache_sizes() -> ([u64; 8], usize) {
    // One field of cpu0's `cache/index{index}/`, trimmed.
    fn field<'b>(index: usize, name: &str, buf: &'b mut [u8; 32]) -> Option<&'b str> {
        let mut path = Name::new();
        let _ = write!(
            path,
            "/sys/devices/system/cpu/cpu0/cache/index{index}/{name}"
        );
        let text = sys::read_file(path.as_str(), buf).ok()?;
        core::str::from_utf8(text).ok().map(str::trim)
    }
    let mut sizes = [(0u64, 0u64); 8];
    let mut n = 0;
    for index in 0..sizes.len() {
        let mut buf = [0u8; 32];
        match field(index, "type", &mut buf) {
            None => break,
            Some("Instruction") => continue,
            Some(_) => {}
        }
        let level = field(index, "level", &mut buf).and_then(|t| t.parse().ok());
        // "32K", "1024K": core's size syntax.
        let size = field(index, "size", &mut buf).and_then(placement::parse_size);
        if let (Some(level), Some(size)) = (level, size) {
            sizes[n] = (level, size);
            n += 1;
        }
    }
    sizes[..n].sort_unstable();
    let mut out = [0u64; 8];
    for (o, (_, s)) in out.iter_mut().zip(&sizes[..n]) {
        *o = *s;
    }
    (out, n)
}

impl Tally {
    fn check(&mut self, out: &mut Out, name: &str, ok: bool, detail: fmt::Arguments<'_>) {
        self.checks += 1;
        if !ok {
            self.failed += 1;
        }
        let _ = Record::new(out, &schema::CHECK)
            .str("name", name)
            .bool("ok", ok)
            .fmt("detail", detail)
            .finish();
    }
}

/// The command line: the arguments joined by spaces (as a boot loader passes bootargs).
struct Cmdline {
    buf: [u8; 2048],
    n: usize,
}

impl Cmdline {
    /// All the arguments, or (`skip_sources`) all but `mairbench.sources=`,
    /// `mairbench.devmem-ram=` and `mairbench.pause` ones, which the twin parses itself.
    fn from_args(skip_sources: bool) -> Cmdline {
        let mut c = Cmdline {
            buf: [0; 2048],
            n: 0,
        };
        for a in sys::args() {
            if skip_sources
                && (a.starts_with(SOURCES_KEY)
                    || a.starts_with(DEVMEM_RAM_KEY)
                    || a.starts_with(PAUSE_KEY))
            {
                continue;
            }
            let sep = usize::from(c.n != 0);
            let end = c.n + sep + a.len();
            if end > c.buf.len() {
                break;
            }
            if sep == 1 {
                c.buf[c.n] = b' ';
            }
            c.buf[c.n + sep..end].copy_from_slice(a.as_bytes());
            c.n = end;
        }
        c
    }

    fn as_str(&self) -> &str {
        core::str::from_utf8(self.buf.get(..self.n).unwrap_or_default()).unwrap_or("")
    }
}

/// The first NUL-terminated string of a device-tree property file, if it can be read.
fn dt_string<'b>(path: &str, buf: &'b mut [u8]) -> Option<&'b str> {
    let raw = sys::read_file(path, buf).ok()?;
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    core::str::from_utf8(raw.get(..end)?)
        .ok()
        .filter(|s| !s.is_empty())
}

/// What `-h`/`--help` prints, and an unknown argument is answered with (on stderr).
const USAGE: &str = "\
usage: mairbench-linux [OPTION ...]
  Runs the firmware's memory kernels on the mappings Linux hands out, and prints human
  lines and @mb records on stdout; exit status 0 when the run passed, 1 when it failed,
  2 for an argument it does not know (nothing is mapped then).
options (the firmware's names):
  mairbench.quick              the quick sizes and kernels
  mairbench.sizes=4K-1M        working sets        mairbench.reps=N      samples, 1 to 64
  mairbench.kernels=LIST       e.g. read-ldp,latency
  mairbench.buffer=SIZE        largest mapping     mairbench.host=NAME   the emulator, if any
  mairbench.hugepages=auto|on|off                  huge-page advice for anonymous memory
  mairbench.sources=LIST       default all: anon, udmabuf, every /dev/dma_heap/*, every
                               /dev/dri/card* as a dumb buffer and as a dma-buf (memory the
                               twin allocates itself). Hardware only when named:
                               pci:<BDF>:resN[_wc], devmem-ram, devmem:<pa>+<size>, or
                               all-hardware (all, every prefetchable PCI memory BAR and
                               devmem-ram): the sweep writes every byte of them.
  mairbench.devmem-ram=PA+SIZE RAM Linux does not own, for devmem-ram
  mairbench.pause=S            wait after each source for a debugger (1 to 3600 s)
  -h, --help                   this text          --version   the version
Documentation: docs/twin.md.
";

/// `-h`/`--help` and `--version` answered, and an argument the twin does not know refused
/// with status 2 and the usage, before anything is mapped: the twin is run by hand, often
/// as root, where a typo must not become a run that writes hardware.
fn command_line_or_exit() {
    for a in sys::args() {
        match a {
            "-h" | "--help" => {
                let _ = sys::write_all(1, USAGE.as_bytes());
                sys::exit(0)
            }
            "--version" => {
                let _ = sys::write_all(1, b"mairbench-linux ");
                let _ = sys::write_all(1, env!("CARGO_PKG_VERSION").as_bytes());
                let _ = sys::write_all(1, b"\n");
                sys::exit(0)
            }
            _ => {}
        }
    }
    let for_core = Cmdline::from_args(true);
    let mut unknown = Name::new();
    let _ = bootargs::parse(for_core.as_str(), |note| {
        if let (Note::UnknownKey(t) | Note::Foreign(t), true) = (note, unknown.as_str().is_empty())
        {
            let _ = write!(unknown, "{t}");
        }
    });
    if !unknown.as_str().is_empty() {
        let _ = sys::write_all(2, b"mairbench-linux: unknown argument '");
        let _ = sys::write_all(2, unknown.as_str().as_bytes());
        let _ = sys::write_all(2, b"': nothing was mapped\n");
        let _ = sys::write_all(2, USAGE.as_bytes());
        sys::exit(2)
    }
}

/// The main program, called by the process entry.
pub fn main() -> ! {
    command_line_or_exit();
    let signals = sys::on_fatal_signals();
    let t_start = {
        let _doing = sys::doing(
            "reading CNTVCT_EL0, the clock (Linux lets EL0 read it unless the kernel traps it)",
        );
        sys::ticks()
    };
    let mut out = Out {
        buf: [0; 1024],
        n: 0,
        failed: false,
    };
    let mut tally = Tally::default();
    let full = Cmdline::from_args(false);
    let cmdline = full.as_str();
    let for_core = Cmdline::from_args(true);
    let options = bootargs::parse(for_core.as_str(), |note| {
        if note.is_warning() {
            tally.warnings += 1;
        }
        match note {
            Note::UnknownKey(_) => say!(out, "bootargs: {note}"),
            Note::BadValue {
                key,
                value,
                expected,
            } => {
                say!(
                    out,
                    "bootargs: option '{key}': '{value}' is not {expected}; default kept"
                )
            }
            Note::BadEntry {
                key,
                entry,
                expected,
            } => {
                say!(
                    out,
                    "bootargs: option '{key}': '{entry}' is not {expected}; left out"
                )
            }
            Note::Foreign(t) => say!(out, "bootargs: '{t}' is not a mairbench option; ignored"),
        }
    });
    let host = bootargs::host(cmdline);
    // Said by the runner: under KVM the cores and caches are real, so the run's timings
    // count (only the device tree is QEMU's); the twin has no tells of its own to weigh.
    let accel = bootargs::accel(cmdline);
    let uname = sys::Uname::get();
    let freq = sys::freq_hz();

    let mut model_buf = [0u8; 256];
    let mut compat_buf = [0u8; 256];
    let model = dt_string("/proc/device-tree/model", &mut model_buf);
    let compat = dt_string("/proc/device-tree/compatible", &mut compat_buf);
    let dtb_qemu = compat == Some("linux,dummy-virt");
    let platform = model.or(compat).unwrap_or("unknown");
    // User-mode QEMU's tells: its counter's microsecond steps at a claimed 62.5 MHz, and a
    // /proc/cpuinfo that is the host kernel's, not an arm64 one's.
    let mut cpuinfo_buf = [0u8; 4096];
    let cpuinfo_arm64 = sys::read_file("/proc/cpuinfo", &mut cpuinfo_buf)
        .ok()
        .map(|text| text.windows(15).any(|w| w == b"CPU implementer"));
    let tells = Tells::of(&Observed {
        cntfrq_hz: freq,
        counter_step: counter::step((0..counter::STEP_READS).map(|_| sys::ticks())),
        cpuinfo_arm64,
        ..Observed::default()
    });
    let mut emulated_by: [&str; 3] = ["", "", ""];
    let mut n_by = 0;
    let said = host.is_some() || dtb_qemu;
    for (yes, why) in [
        (host.is_some(), "bootarg"),
        (dtb_qemu, "dtb"),
        (!said && tells.suspect(), "tells"),
    ] {
        if yes {
            emulated_by[n_by] = why;
            n_by += 1;
        }
    }
    let emulated = n_by != 0 && accel != Some(Accel::Kvm);
    let mut midr_buf = [0u8; 64];
    let midr = sys::read_file(
        "/sys/devices/system/cpu/cpu0/regs/identification/midr_el1",
        &mut midr_buf,
    )
    .ok()
    .and_then(|raw| core::str::from_utf8(raw).ok())
    .and_then(|s| u64::from_str_radix(s.trim().trim_start_matches("0x"), 16).ok())
    .unwrap_or(0);

    say!(
        out,
        "mairbench-linux {VERSION} on {} {} {} ({platform}), counter {freq} Hz",
        uname.sysname(),
        uname.release(),
        uname.machine()
    );
    let reps = options
        .reps
        .unwrap_or(if options.quick {
            QUICK_REPS
        } else {
            DEFAULT_REPS
        })
        .clamp(1, MAX_REPS as u32);
    let r = Record::new(&mut out, &schema::START)
        .u64("schema", record::SCHEMA)
        .str("version", VERSION)
        .u64("entry_el", 0)
        .u64("el", 0)
        .bool("entry_mmu", true)
        .bool("entry_dcache", true)
        .hex("midr", midr)
        .hex("mpidr", 0)
        .u64("cntfrq_hz", freq)
        .str("platform", platform)
        .bool("emulated", emulated);
    let r = match host {
        Some(h) => r.str("host", h),
        None => r,
    };
    let r = match accel {
        Some(a) => r.str("accel", a.name()),
        None => r,
    };
    let r = match emulated_by.get(..n_by) {
        Some(by) if emulated && !by.is_empty() => r.strs("emulated_by", by.iter().copied()),
        _ => r,
    };
    let r = if tells.iter().next().is_some() {
        r.strs("emulation_tells", tells.iter().map(Tell::name))
    } else {
        r
    };
    let _ = r
        .str("console", "stdout")
        .hex("console_base", 0)
        .str("psci", "none")
        .bool("semihosting", false)
        .hex("dtb", 0)
        .hex("image_base", sys::image_base())
        .hex("ram_base", 0)
        .u64("ram_size", 0)
        .str("bootargs", cmdline)
        .str("bootargs_from", "argv")
        .fmt(
            "kernel",
            format_args!("{} {}", uname.sysname(), uname.release()),
        )
        .str("machine", uname.machine())
        .finish();
    if emulated {
        say!(
            out,
            "emulated machine: QEMU models no caches, so timings do not reflect memory types"
        );
        if emulated_by.contains(&"tells") {
            say!(out, "emulated: said by its behaviour: {tells}");
        }
    }

    let counting = freq != 0 && sys::ticks() != t_start;
    tally.check(
        &mut out,
        "timer",
        counting,
        format_args!("CNTVCT_EL0 readable at EL0 and counting, CNTFRQ_EL0 {freq} Hz"),
    );
    if let Err(e) = signals {
        tally.warnings += 1;
        say!(
            out,
            "warning: SIGBUS, SIGSEGV and SIGILL cannot be caught ({}): a mapping that faults \
             ends the run without an end record",
            errno_name(e)
        );
    }
    match options.selftest {
        Some(Selftest::Fault) => {
            say!(out, "selftest: a load from address 16, on purpose");
            out.flush();
            let _doing = sys::doing("mairbench.selftest=fault");
            sys::fault_on_purpose()
        }
        Some(other) => {
            tally.warnings += 1;
            say!(
                out,
                "bootargs: mairbench.selftest={} is the firmware's; the twin has only 'fault'",
                other.name()
            );
        }
        None => {}
    }

    let buffer = options.buffer.unwrap_or(DEFAULT_BUFFER);
    let sizes = match options.sizes {
        _ if options.quick && options.sizes.is_none() => sweep::plan_quick(buffer),
        Some((lo, hi)) => sweep::plan(lo, hi, buffer),
        None => sweep::plan(DEFAULT_SIZES.0, DEFAULT_SIZES.1, buffer),
    };
    let (caches, n_caches) = cache_sizes();
    tally.diag.levels = diagnosis::levels(sizes.as_slice(), &caches[..n_caches]);
    // core's mask (`mairbench.kernels=`, or the quick ones), less what the twin does not run.
    let kernels = options.kernels & TWIN_KERNELS;
    say!(out, "kernels: {}", KernelNames(kernels));
    let left_out = options.kernels & !TWIN_KERNELS;
    if left_out != 0 && options.kernels != ALL_KERNELS {
        say!(
            out,
            "kernels: {} not run by mairbench-linux (DC ZVA faults on Device memory; EL0 may \
             never issue DC IVAC, and timed DC CIVAC/CVAC need a second alias of the pages)",
            KernelNames(left_out)
        );
    }
    if counting {
        if let Some(largest) = sizes.largest() {
            let list = sys::args()
                .filter_map(|a| a.strip_prefix(SOURCES_KEY))
                .last()
                .unwrap_or("all");
            let mut thp_buf = [0u8; 128];
            let thp = sys::read_file(THP_ENABLED, &mut thp_buf)
                .ok()
                .and_then(|t| core::str::from_utf8(t).ok())
                .and_then(source::thp_setting);
            let ctx = Ctx {
                sizes: sizes.as_slice(),
                largest,
                reps,
                freq,
                kernels,
                hugepages: options.hugepages,
                thp,
            };
            for spec in list.split(',').filter(|s| !s.is_empty()) {
                if matches!(spec, "all" | "all-hardware") {
                    every_source_found(&mut out, &mut tally, &ctx, spec);
                } else {
                    source(&mut out, &mut tally, &ctx, spec);
                }
            }
        }
    }

    tally.diag.say(&mut out, emulated);
    let run_us = sweep::ticks_to_ns(sys::ticks().wrapping_sub(t_start), freq) / 1000;
    let pass = tally.failed == 0;
    say!(
        out,
        "end: {} ({} checks, {} failed, {} warnings)",
        if pass { "pass" } else { "fail" },
        tally.checks,
        tally.failed,
        tally.warnings
    );
    let _ = Record::new(&mut out, &schema::END)
        .str("status", if pass { "pass" } else { "fail" })
        .u64("checks", tally.checks)
        .u64("failed", tally.failed)
        .u64("warnings", tally.warnings)
        .null("reason")
        .u64("run_us", run_us)
        .finish();
    out.flush();
    sys::exit(if pass { 0 } else { 1 })
}

/// The kernels of the table ([`KERNELS`]) the twin runs (their `twin` column), as a
/// `mairbench.kernels=` mask.
const TWIN_KERNELS: u16 = {
    let mut mask = 0;
    let mut i = 0;
    while i < KERNELS.len() {
        if KERNELS[i].twin {
            mask |= KERNELS[i].kernel.bit();
        }
        i += 1;
    }
    mask
};

/// What a point lays before a kernel that reads (and expects after it): the firmware's.
const PATTERN: Pattern = pattern::LAID;
/// What the write kernels leave: 0xdeadbeef and 0xcafebabe, alternating.
const WRITTEN: Pattern = pattern::WRITTEN;
/// Why a point was not measured, in the firmware's words.
const ODD_SIZE: &str = "the size does not suit the kernel's loop";

/// The names of the kernels of `mask`, comma-separated.
struct KernelNames(u16);

impl fmt::Display for KernelNames {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, k) in kernel::selected(self.0).enumerate() {
            if i != 0 {
                f.write_str(", ")?;
            }
            f.write_str(k.name)?;
        }
        Ok(())
    }
}

/// What every source's sweep shares.
struct Ctx<'s> {
    sizes: &'s [u64],
    largest: u64,
    reps: u32,
    freq: u64,
    /// The kernels to run (a mask of the table's, those the twin runs).
    kernels: u16,
    /// `mairbench.hugepages=`: the advice for the anonymous mappings.
    hugepages: Hugepages,
    /// The kernel's THP setting (`thp_setting`), when it could be read.
    thp: Option<&'s str>,
}

/// Why a source was not mapped (the detail of its error record).
#[derive(Clone, Copy)]
enum Why {
    /// The step that failed ("UDMABUF_CREATE", "mmap"...).
    Step(&'static str),
    /// The step that failed, on the source's file ("open", then its path).
    StepOnFile(&'static str),
    /// The name has a known prefix, but not the form's parameter.
    Expected(&'static str),
    /// No source is called that.
    NotAName,
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Why::Step(step) => f.write_str(step),
            Why::StepOnFile(step) => f.write_str(step),
            Why::Expected(form) => write!(f, "{form} expected"),
            Why::NotAName => {
                f.write_str("not a source name (")?;
                for s in &SOURCES {
                    write!(f, "{}, ", s.form)?;
                }
                f.write_str("all)")
            }
        }
    }
}

/// `all` or `all-hardware` (`set`): the table's sources of that set ([`SOURCES`],
/// [`source::Set::in_set`]), in its order. `all`, the default, is memory the twin allocates
/// itself: `anon`, `udmabuf`, every `/dev/dma_heap/*`, every `/dev/dri/card*` as a dumb
/// buffer and as its PRIME dma-buf. `all-hardware` adds both mappings of every prefetchable
/// PCI memory BAR (a prefetchable BAR is memory without read side effects; other BARs may be
/// registers, so they run only when named) whose device decodes memory and has no driver,
/// and `devmem-ram`.
fn every_source_found(out: &mut Out, tally: &mut Tally, ctx: &Ctx<'_>, set: &str) {
    for kind in SOURCES.iter().filter(|s| s.set.in_set(set)) {
        match kind.kind {
            Form::Anon | Form::Udmabuf => source(out, tally, ctx, kind.form),
            Form::DmaHeap => each_entry(out, tally, ctx, kind, "/dev/dma_heap", "", "heap"),
            Form::DrmDumb | Form::DmaBuf => {
                each_entry(out, tally, ctx, kind, "/dev/dri", "card", "card*")
            }
            Form::DevMemRam => source(out, tally, ctx, kind.form),
            // Both mappings of a BAR, one after the other, from the plain form's row.
            Form::PciBarWc => {}
            Form::PciBar => every_bar(out, tally, ctx),
            Form::DevMem => {}
        }
    }
}

/// Runs the source `<kind.prefix><entry>` for every entry of `dir` whose name starts with
/// `starts`, in name order. When `dir` cannot be listed, or holds none, one error record
/// for `<prefix>*` says so (`what` names what was looked for) and the run goes on.
fn each_entry(
    out: &mut Out,
    tally: &mut Tally,
    ctx: &Ctx<'_>,
    kind: &SourceSpec,
    dir: &str,
    starts: &str,
    what: &str,
) {
    let mut names = [[0u8; 64]; 16];
    let mut n = 0;
    let listed = sys::list_dir(dir, |name| {
        if let (Some(slot), true) = (
            names.get_mut(n),
            name.len() < 64 && name.starts_with(starts),
        ) {
            slot[..name.len()].copy_from_slice(name.as_bytes());
            n += 1;
        }
    });
    let mut wild = Name::new();
    let _ = write!(wild, "{}*", kind.prefix);
    match listed {
        Err(errno) => {
            refused(out, wild.as_str(), errno, format_args!("list {dir}"));
            return;
        }
        Ok(()) if n == 0 => {
            refused(out, wild.as_str(), 2, format_args!("list {dir}: no {what}"));
            return;
        }
        Ok(()) => {}
    }
    let names = names.get_mut(..n).unwrap_or_default();
    names.sort_unstable();
    for raw in names.iter() {
        let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
        let Ok(entry) = core::str::from_utf8(raw.get(..end).unwrap_or_default()) else {
            continue;
        };
        let mut name = Name::new();
        let _ = write!(name, "{}{entry}{}", kind.prefix, kind.suffix);
        source(out, tally, ctx, name.as_str());
    }
}

/// Both mappings (`pci:<BDF>:resN`, then `pci:<BDF>:resN_wc`) of every prefetchable memory
/// BAR of every PCI device.
fn every_bar(out: &mut Out, tally: &mut Tally, ctx: &Ctx<'_>) {
    let mut bdfs = [[0u8; 16]; 32];
    let mut n = 0;
    let _ = sys::list_dir("/sys/bus/pci/devices", |name| {
        if let (Some(slot), true) = (bdfs.get_mut(n), name.len() <= 16) {
            slot[..name.len()].copy_from_slice(name.as_bytes());
            n += 1;
        }
    });
    let forms = [
        SOURCES[Form::PciBar as usize],
        SOURCES[Form::PciBarWc as usize],
    ];
    for raw in bdfs.iter().take(n) {
        let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
        let Ok(bdf) = core::str::from_utf8(&raw[..end]) else {
            continue;
        };
        // Whether `all` may touch the device's BARs: memory decoding on, no driver.
        let mut path = Name::new();
        let _ = write!(path, "/sys/bus/pci/devices/{bdf}/config");
        let mut config = [0u8; 64];
        let config = sys::read_file(path.as_str(), &mut config).unwrap_or_default();
        let mut path = Name::new();
        let _ = write!(path, "/sys/bus/pci/devices/{bdf}/driver");
        let mut link = [0u8; 256];
        let driver = sys::link_name(path.as_str(), &mut link).ok();
        let refusal = source::bar_refusal(config, driver);
        let mut path = Name::new();
        let _ = write!(path, "/sys/bus/pci/devices/{bdf}/resource");
        let mut table = [0u8; 1024];
        let Ok(table) = sys::read_file(path.as_str(), &mut table) else {
            continue;
        };
        // One line per resource: "0xSTART 0xEND 0xFLAGS"; lines 0..6 are the BARs.
        let lines = core::str::from_utf8(table).unwrap_or("").lines().take(6);
        for (bar, line) in lines.enumerate() {
            let flags = line
                .split(' ')
                .nth(2)
                .and_then(|f| u64::from_str_radix(f.trim_start_matches("0x"), 16).ok())
                .unwrap_or(0);
            const IORESOURCE_MEM: u64 = 0x200;
            const IORESOURCE_PREFETCH: u64 = 0x2000;
            if flags & (IORESOURCE_MEM | IORESOURCE_PREFETCH)
                != IORESOURCE_MEM | IORESOURCE_PREFETCH
            {
                continue;
            }
            for form in &forms {
                let mut name = Name::new();
                let _ = write!(name, "{}{bdf}:res{bar}{}", form.prefix, form.suffix);
                match refusal {
                    Some(why) => refused(out, name.as_str(), why.errno(), format_args!("{why}")),
                    None => source(out, tally, ctx, name.as_str()),
                }
            }
        }
    }
}

/// A short string built with `write!` (a source name or a path; longer text is cut).
struct Name {
    buf: [u8; 128],
    n: usize,
}

impl Name {
    fn new() -> Name {
        Name {
            buf: [0; 128],
            n: 0,
        }
    }

    fn as_str(&self) -> &str {
        core::str::from_utf8(self.buf.get(..self.n).unwrap_or_default()).unwrap_or("")
    }
}

impl Write for Name {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.n + s.len();
        let slot = self.buf.get_mut(self.n..end).ok_or(fmt::Error)?;
        slot.copy_from_slice(s.as_bytes());
        self.n = end;
        Ok(())
    }
}

/// Whether `s` names one entry of a directory: not empty, no `/`, not `.` or `..`.
fn entry_name(s: &str) -> bool {
    !s.is_empty() && !s.contains('/') && s != "." && s != ".."
}

/// What [`open_source`] found besides the mapping.
struct Found {
    /// The file it opened (said with a failed open).
    path: Name,
    /// The DRM driver's name (`drm-dumb:`, `dma-buf:`), when DRM_IOCTL_VERSION gave one.
    driver: Name,
    /// The `devmem-ram` range, as its bootarg said it.
    range: Name,
    /// The errno of a refused madvise of `mairbench.hugepages=` (anon).
    advice: Option<i64>,
}

/// The value of the last `mairbench.devmem-ram=` among the twin's arguments, else on the
/// kernel command line (`/proc/cmdline`, where the runner's Linux boot puts it), in `buf`.
fn devmem_ram_arg(buf: &mut [u8; 2048]) -> Option<&str> {
    if let Some(v) = sys::args()
        .filter_map(|a| a.strip_prefix(DEVMEM_RAM_KEY))
        .last()
    {
        return Some(v);
    }
    let raw = sys::read_file("/proc/cmdline", buf).ok()?;
    core::str::from_utf8(raw)
        .ok()?
        .split_ascii_whitespace()
        .rev()
        .find_map(|a| a.strip_prefix(DEVMEM_RAM_KEY))
}

/// Maps the source `spec` names (at most `largest` bytes): the mapping and its kind, or the
/// errno and why it was not mapped. `found` gets the file it opens, if any, and what else it
/// learns on the way.
fn open_source(
    spec: &str,
    largest: u64,
    hugepages: Hugepages,
    found: &mut Found,
) -> Result<(sys::Mapping, &'static SourceSpec), (i64, Why)> {
    let path = &mut found.path;
    let kind = source::by_name(spec).ok_or((22, Why::NotAName))?;
    let param = source::param(kind, spec);
    let expected = (22, Why::Expected(kind.form));
    // The failed step; an open is said with the path (left in `path`).
    let failed = |(errno, step): (i64, &'static str)| match step {
        "open" => (errno, Why::StepOnFile(step)),
        _ => (errno, Why::Step(step)),
    };
    let m = match kind.kind {
        Form::Anon => {
            let (m, advice) =
                anon_mapping(largest, 0, hugepages).map_err(|e| (e, Why::Step("mmap")))?;
            found.advice = advice;
            m
        }
        Form::Udmabuf => sys::Mapping::udmabuf(largest).map_err(failed)?,
        Form::DmaHeap | Form::DrmDumb | Form::DmaBuf => {
            if !entry_name(param) {
                return Err(expected);
            }
            if kind.kind == Form::DmaHeap {
                let _ = write!(path, "/dev/dma_heap/{param}");
                sys::Mapping::dma_heap(path.as_str(), largest).map_err(failed)?
            } else {
                let _ = write!(path, "/dev/dri/{param}");
                let mut name = [0u8; 32];
                if let Some(n) = sys::drm_version(path.as_str(), &mut name)
                    .ok()
                    .and_then(|len| source::drm_driver_name(&name, len))
                {
                    let _ = found.driver.write_str(n);
                }
                if kind.kind == Form::DrmDumb {
                    sys::Mapping::drm_dumb(path.as_str(), largest).map_err(failed)?
                } else {
                    sys::Mapping::prime(path.as_str(), largest).map_err(failed)?
                }
            }
        }
        Form::DevMemRam => {
            let mut buf = [0u8; 2048];
            let Some(arg) = devmem_ram_arg(&mut buf) else {
                return Err((
                    2,
                    Why::Step(
                        "no mairbench.devmem-ram=<pa>+<size> bootarg (qemu/run's Linux boot \
                         passes one for the RAM it hides from Linux with mem=)",
                    ),
                ));
            };
            let Some((pa, size)) = source::parse_range(arg) else {
                return Err((
                    22,
                    Why::Expected("mairbench.devmem-ram=<page-aligned pa>+<size in pages>"),
                ));
            };
            let _ = found.range.write_str(arg);
            let _ = write!(path, "/dev/mem");
            sys::Mapping::file(path.as_str(), true, size.min(largest), pa, false).map_err(failed)?
        }
        Form::PciBar | Form::PciBarWc => {
            // `<BDF>:resN`, N one digit (BARs 0 to 5).
            let (bdf, bar) = param
                .rsplit_once(':')
                .and_then(|(bdf, res)| Some((bdf, res.strip_prefix("res")?)))
                .ok_or(expected)?;
            if bar.len() != 1 || !bar.as_bytes()[0].is_ascii_digit() || !entry_name(bdf) {
                return Err(expected);
            }
            let _ = write!(
                path,
                "/sys/bus/pci/devices/{bdf}/resource{bar}{}",
                kind.suffix
            );
            sys::Mapping::file(path.as_str(), false, largest, 0, true).map_err(failed)?
        }
        Form::DevMem => {
            let parsed = param.split_once('+').and_then(|(pa, size)| {
                let pa = if pa == "0" {
                    Some(0)
                } else {
                    placement::parse_size(pa)
                };
                Some((pa?, placement::parse_size(size)?))
            });
            let Some((pa, size)) = parsed.filter(|&(pa, _)| pa % 4096 == 0) else {
                return Err((22, Why::Expected("devmem:<page-aligned pa>+<size>")));
            };
            let _ = write!(path, "/dev/mem");
            sys::Mapping::file(path.as_str(), true, size.min(largest), pa, false).map_err(failed)?
        }
    };
    Ok((m, kind))
}

/// The error record of a source that is missing or refused (the run goes on; its status
/// does not change).
fn refused(out: &mut Out, name: &str, errno: i64, detail: fmt::Arguments<'_>) {
    let error = errno_name(errno);
    say!(
        out,
        "source {name}: {detail}: {error} (errno {errno}); skipped"
    );
    let _ = Record::new(out, &schema::SOURCE)
        .str("source", name)
        .str("error", error)
        .u64("errno", errno.unsigned_abs())
        .fmt("detail", detail)
        .finish();
}

/// One source: its `source` record (the mapping, or the error that refused it), then the
/// sweep over the sizes that fit in it. A refused source does not fail the run.
fn source(out: &mut Out, tally: &mut Tally, ctx: &Ctx<'_>, spec: &str) {
    let mut what = Name::new();
    let _ = write!(what, "mapping {spec}");
    let _doing = sys::doing(what.as_str());
    let mut found = Found {
        path: Name::new(),
        driver: Name::new(),
        range: Name::new(),
        advice: None,
    };
    if source::by_name(spec).is_some_and(|k| k.set != source::Set::All) {
        say!(
            out,
            "source {spec}: hardware's memory, named on the command line: the sweep writes \
             every byte of the mapping"
        );
    }
    let (mut m, kind) = match open_source(spec, ctx.largest, ctx.hugepages, &mut found) {
        Ok(ok) => ok,
        Err((errno, Why::StepOnFile(step))) => {
            return refused(
                out,
                spec,
                errno,
                format_args!("{step} {}", found.path.as_str()),
            )
        }
        Err((errno, why)) => return refused(out, spec, errno, format_args!("{why}")),
    };
    let fit = ctx.sizes.iter().filter(|&&s| s <= m.size()).count();
    let driver = Some(found.driver.as_str()).filter(|d| !d.is_empty());
    let known = driver.and_then(source::drm_driver);
    let expected = kind.expected.or(known.map(|d| d.expected));
    say!(
        out,
        "source {spec}: {} mapped ({}); arm64: {}; {fit} of {} sizes fit",
        Bytes(m.size()),
        source::how(kind, spec),
        kind.pgprot,
        ctx.sizes.len()
    );
    let anon = kind.kind == Form::Anon;
    if anon {
        // Every page touched, so that the kernel has decided how to back each (THP is
        // decided at the first fault of each 2 MiB range).
        populate(&mut m);
        match found.advice {
            Some(e) => {
                tally.warnings += 1;
                say!(
                    out,
                    "source {spec}: mairbench.hugepages={}: madvise refused: {} (errno {e}); \
                     the kernel's default applies",
                    ctx.hugepages.name(),
                    errno_name(e)
                );
            }
            None => say!(
                out,
                "source {spec}: mairbench.hugepages={} ({}), mapped 2 MiB-aligned; the \
                 kernel's THP setting: {} ({THP_ENABLED})",
                ctx.hugepages.name(),
                match ctx.hugepages {
                    Hugepages::Auto => "no advice",
                    Hugepages::On => "MADV_HUGEPAGE",
                    Hugepages::Off => "MADV_NOHUGEPAGE",
                },
                ctx.thp.unwrap_or("unknown")
            ),
        }
    }
    let huge = huge_bytes(m.va(), m.size());
    match huge {
        Some((bytes, how)) => say!(
            out,
            "source {spec}: {} of {} on 2 MiB entries ({how}{}){}",
            Bytes(bytes),
            Bytes(m.size()),
            if anon {
                ""
            } else {
                "; before the sweep touches it"
            },
            SmapsNote {
                how,
                smaps: huge_by_smaps(m.va(), m.size())
            }
        ),
        None => say!(
            out,
            "source {spec}: how much is on 2 MiB entries is unknown (no PAGEMAP_SCAN, and \
             /proc/self/smaps has no VMA that says)"
        ),
    }
    match (driver, known) {
        (Some(d), Some(k)) => say!(
            out,
            "source {spec}: driver {d}: {}, expected {} ({})",
            k.pgprot,
            k.expected,
            k.cite
        ),
        (Some(d), None) => say!(
            out,
            "source {spec}: driver {d}: its mapping is the driver's choice (not in the twin's table)"
        ),
        _ => {}
    }
    let r = Record::new(out, &schema::SOURCE)
        .str("source", spec)
        .u64("size", m.size());
    let r = match (driver, known) {
        (Some(d), Some(k)) => r.fmt(
            "detail",
            format_args!(
                "{}; driver {d}: {} ({})",
                source::how(kind, spec),
                k.pgprot,
                k.cite
            ),
        ),
        (Some(d), None) => r.fmt(
            "detail",
            format_args!(
                "{}; driver {d}: the driver's choice",
                source::how(kind, spec)
            ),
        ),
        _ => r.fmt("detail", format_args!("{}", source::how(kind, spec))),
    };
    let r = match driver {
        Some(d) => r.str("driver", d),
        None => r,
    };
    let r = match expected {
        Some(e) => r.str("expected", e),
        None => r,
    };
    let r = match found.range.as_str() {
        "" => r,
        range => r.str("range", range),
    };
    let r = match (kind.kind == Form::Anon, ctx.thp) {
        (false, _) => r,
        (true, None) => r.str("hugepages", ctx.hugepages.name()),
        (true, Some(thp)) => r.str("hugepages", ctx.hugepages.name()).str("thp", thp),
    };
    let r = match huge {
        Some((bytes, _)) => r.bool("huge", bytes != 0).u64("huge_bytes", bytes),
        None => r,
    };
    let _ = r.finish();
    sweep_source(out, tally, ctx, spec, &mut m);
    pause_for_walk(out, spec, &m);
}

/// `mairbench.pause`: the source's mapping, swept and still mapped, named for a debugger
/// (its VA, size, the pid, the word that releases the twin), then [`sys::pause`] until the
/// debugger releases it or the time is up. `host/tests/linux.rs` walks the page tables here.
fn pause_for_walk(out: &mut Out, name: &str, m: &sys::Mapping) {
    let Some(arg) = sys::args().filter(|a| a.starts_with(PAUSE_KEY)).last() else {
        return;
    };
    let secs = match arg.strip_prefix(PAUSE_KEY) {
        Some("") => 30,
        Some(v) => match v.strip_prefix('=').and_then(|n| n.parse::<u64>().ok()) {
            Some(n) if (1..=3600).contains(&n) => n,
            _ => {
                say!(
                    out,
                    "bootargs: '{arg}' is not mairbench.pause=<1 to 3600 s>; 30 s"
                );
                30
            }
        },
        None => return,
    };
    // The word is cleared before the line that names it: a debugger that acts on the line
    // at once must find it cleared already, or its release would be undone.
    sys::clear_release();
    say!(
        out,
        "pause: source {name} mapped at va {:#x} ({} B), pid {}; release word at va {:#x}; \
         waiting up to {secs} s for a debugger",
        m.va(),
        m.size(),
        sys::pid(),
        sys::release_word()
    );
    let freq = sys::freq_hz().max(1);
    if sys::pause(secs.saturating_mul(freq)) {
        say!(out, "pause: source {name} released");
    } else {
        say!(
            out,
            "pause: source {name}: not released within {secs} s; going on"
        );
    }
}

/// A private anonymous mapping of `len` bytes (rounded up to 4 KiB), `skew` bytes past a
/// 2 MiB boundary (0: aligned, so that THP can map it with PMD entries), advised as
/// `hugepages` says: the mapping, and the errno of a refused madvise (the mapping is kept:
/// the kernel's default applies).
fn anon_mapping(
    len: u64,
    skew: u64,
    hugepages: Hugepages,
) -> Result<(sys::Mapping, Option<i64>), i64> {
    let len = len.div_ceil(4096).checked_mul(4096).ok_or(12)?;
    let m = sys::Mapping::anon_aligned(len, HUGE_ALIGN, skew)?;
    let advice = match hugepages {
        Hugepages::Auto => Ok(()),
        Hugepages::On => m.advise_huge(true),
        Hugepages::Off => m.advise_huge(false),
    };
    Ok((m, advice.err()))
}

/// Writes a zero to the first word of every 4 KiB page of `m` (before anything is laid),
/// so that each page is faulted in.
fn populate(m: &mut sys::Mapping) {
    for w in m.words().iter_mut().step_by(4096 / 8) {
        *w = 0;
    }
}

/// How many bytes of `[va, va + len)` are mapped with 2 MiB (PMD) entries, and how that was
/// found: by the PAGEMAP_SCAN ioctl (exact, Linux 6.7 and later), else by /proc/self/smaps
/// ([`huge_by_smaps`]). `None` when neither can say.
fn huge_bytes(va: u64, len: u64) -> Option<(u64, &'static str)> {
    match sys::huge_bytes_in(va, len) {
        Ok(h) => Some((h, "PAGEMAP_SCAN of /proc/self/pagemap")),
        Err(_) => huge_by_smaps(va, len).map(|h| (h, SMAPS_HOW)),
    }
}

/// How [`huge_by_smaps`] finds it.
const SMAPS_HOW: &str = "AnonHugePages + ShmemPmdMapped + FilePmdMapped of /proc/self/smaps";

/// How many bytes of `[va, va + len)` are mapped with 2 MiB entries by /proc/self/smaps,
/// for the VMA that holds the range: its PMD-mapped bytes when the VMA is exactly the range;
/// for a larger VMA (Linux merges neighbouring mappings of the same flags) 0 when none of it
/// is huge, `len` when all of it is, `None` otherwise (smaps cannot say which part), or
/// when smaps cannot be read or has no such VMA.
fn huge_by_smaps(va: u64, len: u64) -> Option<u64> {
    let mut buf = sys::Mapping::anon(SMAPS_MAX).ok()?;
    let text = sys::read_all("/proc/self/smaps", buf.bytes()).ok()?;
    // A cut in the middle of a character: what is valid before it.
    let text = match core::str::from_utf8(text) {
        Ok(t) => t,
        Err(e) => core::str::from_utf8(text.get(..e.valid_up_to())?).ok()?,
    };
    let vma = source::smaps_vma(text, va).filter(|v| v.holds(va, len))?;
    if vma.start == va && vma.end == va.checked_add(len)? {
        return Some(vma.huge_bytes.min(len));
    }
    vma.all_huge().map(|all| if all { len } else { 0 })
}

/// The granule the point's range `[va, va + size)` is mapped with, as the firmware's
/// `granule` says it: "2M" when all of it is on PMD entries, "4K" when any of it is not;
/// `None` when unknown ([`huge_bytes`]).
fn granule(va: u64, size: u64) -> Option<&'static str> {
    huge_bytes(va, size).map(|(h, _)| if h >= size { "2M" } else { "4K" })
}

/// Lays `p` over the first `size` bytes of `m`.
fn lay(m: &mut sys::Mapping, size: u64, p: Pattern) {
    let words = (size / 8) as usize;
    if let Some(w) = m.words().get_mut(..words) {
        for (off, x) in (0..).step_by(8).zip(w.iter_mut()) {
            *x = p.at(off);
        }
    }
}

/// The byte offset of the first of the first `size` bytes of `m` that does not hold `p`.
fn mismatch(m: &mut sys::Mapping, size: u64, p: Pattern) -> Option<u64> {
    let words = (size / 8) as usize;
    let w = m.words().get(..words)?;
    (0..)
        .step_by(8)
        .zip(w.iter())
        .find(|&(off, &x)| x != p.at(off))
        .map(|(off, _)| off)
}

/// Lays the chase over the first `size` bytes of `m` as the firmware does (its
/// `Chain::lay`, with core's generator and Sattolo swaps): the first word of line `i` holds
/// the address of the line after `i` in one random cycle (seed [`SEED`] xor the size).
/// The lines, or `None` when there is no whole line.
fn lay_chain(m: &mut sys::Mapping, size: u64) -> Option<u64> {
    let lines = size / CHASE_LINE;
    let stride = (CHASE_LINE / 8) as usize;
    let va = m.va();
    let w = m.words().get_mut(..(size / 8) as usize)?;
    if lines == 0 {
        return None;
    }
    for (i, x) in (0..).zip(w.iter_mut().step_by(stride)) {
        *x = i;
    }
    let mut rng = random::XorShift64::new(SEED ^ size);
    random::sattolo_swaps(lines, &mut rng, |i, j| {
        w.swap(i as usize * stride, j as usize * stride);
    });
    for x in w.iter_mut().step_by(stride) {
        *x = va + *x * CHASE_LINE;
    }
    Some(lines)
}

/// Whether the chase over the first `size` bytes of `m` is still one whole cycle: from line
/// 0, every pointer is a line of the range, and line 0 comes back after exactly every line.
fn chain_intact(m: &mut sys::Mapping, size: u64) -> bool {
    let lines = size / CHASE_LINE;
    let va = m.va();
    let w = m.words();
    let mut at = 0u64;
    for step in 1..=lines {
        let Some(&p) = w.get((at * CHASE_LINE / 8) as usize) else {
            return false;
        };
        let rel = p.wrapping_sub(va);
        if !rel.is_multiple_of(CHASE_LINE) || rel >= size {
            return false;
        }
        at = rel / CHASE_LINE;
        if at == 0 {
            return step == lines;
        }
    }
    false
}

/// A `result` record for a point not measured (at one size, or with `size` `None` at every
/// size), and its line.
fn skipped(
    out: &mut Out,
    name: &str,
    spec: &KernelSpec,
    size: Option<u64>,
    why: fmt::Arguments<'_>,
) {
    say!(out, "{name} {}: skipped: {why}", spec.name);
    let r = Record::new(out, &schema::RESULT)
        .str("source", name)
        .str("kernel", spec.name);
    let r = match size {
        Some(s) => r.u64("size", s),
        None => r,
    };
    let _ = r.fmt("skipped", why).finish();
}

/// Where [`huge_bytes`] used PAGEMAP_SCAN, what smaps says too (a check of one on the other).
struct SmapsNote {
    how: &'static str,
    smaps: Option<u64>,
}

impl fmt::Display for SmapsNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.smaps {
            Some(h) if self.how != SMAPS_HOW => write!(f, "; smaps: {}", Bytes(h)),
            _ => Ok(()),
        }
    }
}

/// The dma-buf sync pair's cost after a point's line, when it has one.
struct SyncNote(Option<u64>);

impl fmt::Display for SyncNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(ns) => write!(
                f,
                "; DMA_BUF_IOCTL_SYNC START+END {ns} ns best a sample, outside the timed span"
            ),
            None => Ok(()),
        }
    }
}

/// The granule of a point's range after its line, when known.
struct GranuleNote(Option<&'static str>);

impl fmt::Display for GranuleNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some("2M") => f.write_str("; on 2 MiB entries"),
            Some(_) => f.write_str("; on 4 KiB pages"),
            None => Ok(()),
        }
    }
}

/// What one pass of a point runs.
enum Body {
    /// A streaming kernel over the source.
    Stream(Kernel),
    /// The copy from the anonymous partner into the source (`true`: with q registers).
    CopyTo(bool),
    /// The copy from the source into the anonymous partner (`true`: with q registers).
    CopyFrom(bool),
    /// The chase, from the address it stopped at, `loads` loads a pass.
    Chase { at: u64, loads: u64 },
}

/// The selected kernels on one mapping, sizes up to the mapping's size (size by size, each
/// kernel in table order). The copies go to and from a private anonymous mapping of the
/// same size (the heap's memory, where the firmware copies with `normal-wb`).
fn sweep_source(out: &mut Out, tally: &mut Tally, ctx: &Ctx<'_>, name: &str, m: &mut sys::Mapping) {
    let cap = m.size();
    let copies = Kernel::CopyTo.bit()
        | Kernel::CopyFrom.bit()
        | Kernel::CopyToQ.bit()
        | Kernel::CopyFromQ.bit();
    let mut partner = None;
    if ctx.kernels & copies != 0 {
        // The copies' other side starts PARTNER_SKEW past a 2 MiB boundary: a source 2 MiB
        // aligned as well would put the two sides of every copy at the same offset in their
        // 2 MiB regions, so in the same slot of a direct-mapped translation cache (QEMU's
        // software TLB: anon's copies ran 5-7x slower than udmabuf's under TCG, 700-1,000
        // against 3,700-5,300 MB/s at 4-64 KiB).
        match anon_mapping(cap, PARTNER_SKEW, ctx.hugepages) {
            Ok((mut p, _)) => {
                populate(&mut p);
                partner = Some(p)
            }
            Err(e) => {
                for spec in kernel::selected(ctx.kernels & copies) {
                    let why =
                        format_args!("no anonymous mapping to copy with: mmap: {}", errno_name(e));
                    skipped(out, name, spec, None, why);
                }
            }
        }
    }
    let overhead = (0..16)
        .map(|_| {
            let t0 = sys::ticks();
            sys::ticks().wrapping_sub(t0)
        })
        .min()
        .unwrap_or(0);
    for size in ctx.sizes.iter().copied().filter(|&s| s <= cap) {
        for spec in kernel::selected(ctx.kernels) {
            let copy = spec.kernel.bit() & copies != 0;
            if copy && partner.is_none() {
                continue;
            }
            let mut what = Name::new();
            let _ = write!(what, "measuring {name} {} at {}", spec.name, Bytes(size));
            let _doing = sys::doing(what.as_str());
            point(
                out,
                tally,
                ctx,
                name,
                spec,
                m,
                partner.as_mut().filter(|_| copy),
                size,
                overhead,
            );
        }
    }
}

/// Lays the data `spec` needs, times it (the firmware's calibration and samples: core's
/// sweep), checks the data and writes the `result` record.
#[allow(clippy::too_many_arguments)]
fn point(
    out: &mut Out,
    tally: &mut Tally,
    ctx: &Ctx<'_>,
    name: &str,
    spec: &KernelSpec,
    m: &mut sys::Mapping,
    mut partner: Option<&mut sys::Mapping>,
    size: u64,
    overhead: u64,
) {
    let Ctx { reps, freq, .. } = *ctx;
    let k = spec.kernel;
    // Every window a kernel writes is first laid with what it does not leave, so the check
    // afterwards fails if the kernel did not run.
    let (mut body, units, pass_bytes) = match k {
        // Reads must leave the pattern; writes replace it with what they store.
        Kernel::ReadLdp
        | Kernel::ReadLdpQ
        | Kernel::ReadLdnp
        | Kernel::WriteStp
        | Kernel::WriteStpQ
        | Kernel::WriteStnp => {
            lay(m, size, PATTERN);
            (Body::Stream(k), size, size)
        }
        Kernel::CopyTo | Kernel::CopyFrom | Kernel::CopyToQ | Kernel::CopyFromQ => {
            let Some(p) = partner.as_deref_mut() else {
                return;
            };
            let q = matches!(k, Kernel::CopyToQ | Kernel::CopyFromQ);
            let (src, dst, body) = if matches!(k, Kernel::CopyTo | Kernel::CopyToQ) {
                (p, m as &mut sys::Mapping, Body::CopyTo(q))
            } else {
                (m as &mut sys::Mapping, p, Body::CopyFrom(q))
            };
            lay(src, size, PATTERN);
            lay(dst, size, WRITTEN);
            (body, size, size)
        }
        Kernel::Latency => {
            let Some(lines) = lay_chain(m, size) else {
                return skipped(out, name, spec, Some(size), format_args!("{ODD_SIZE}"));
            };
            let loads = sweep::chase_pass(lines);
            (Body::Chase { at: m.va(), loads }, loads, loads * CHASE_LINE)
        }
        // A kernel of the table's `twin` column that this function has no arm for.
        _ => {
            let why = format_args!("mairbench-linux has no loop for it");
            return skipped(out, name, spec, Some(size), why);
        }
    };
    // The firmware's `invalidated` start: no line of what the point touches in a cache
    // (the laying above went through the caches), right before the warm-up.
    let done = m.clean_invalidate(size).is_some()
        && partner
            .as_deref_mut()
            .is_none_or(|p| p.clean_invalidate(size).is_some());
    let start = if done {
        sweep::Start::Invalidated
    } else {
        sweep::Start::Warm
    };
    // A dma-buf's reader brackets its CPU access with DMA_BUF_IOCTL_SYNC: START before, END
    // after, in the direction the kernel accesses the source. Each sample does so outside
    // its timed span; the pair's own time is kept apart (`sync_ns`).
    let sync = m.sync_handle();
    let direction = match k {
        Kernel::WriteStp
        | Kernel::WriteStpQ
        | Kernel::WriteStnp
        | Kernel::CopyTo
        | Kernel::CopyToQ => sys::DMA_BUF_SYNC_WRITE,
        _ => sys::DMA_BUF_SYNC_READ,
    };
    let mut sync_best = u64::MAX;
    let mut sync_error = None;
    // Runs `passes` passes: false when the loop refuses the size.
    let mut run = |body: &mut Body, passes: u64| -> bool {
        match body {
            Body::Stream(k) => m.stream(*k, size, passes).is_some(),
            Body::CopyTo(q) => partner
                .as_deref()
                .and_then(|p| sys::Mapping::copy(m, p, size, passes, *q))
                .is_some(),
            Body::CopyFrom(q) => partner
                .as_deref_mut()
                .and_then(|p| sys::Mapping::copy(p, m, size, passes, *q))
                .is_some(),
            Body::Chase { at, loads } => m
                .chase(*at, *loads, passes)
                .map(|next| *at = next)
                .is_some(),
        }
    };
    if !run(&mut body, 0) {
        return skipped(out, name, spec, Some(size), format_args!("{ODD_SIZE}"));
    }
    // The chase's untimed warm-up lap (the cache size unknown here: one whole lap), after
    // which the samples continue along the cycle.
    if let Body::Chase { at, loads } = body {
        let lap = sweep::chase_warm_up(size / CHASE_LINE, CHASE_LINE, None);
        let mut warm = Body::Chase { at, loads: lap };
        run(&mut warm, 1);
        if let Body::Chase { at, .. } = warm {
            body = Body::Chase { at, loads };
        }
    }
    // A sample whose second counter read is below its first cannot be true: dropped (and
    // counted), as the firmware does.
    let mut backwards = 0u64;
    let mut timed = |passes: u64| loop {
        let s0 = sys::ticks();
        if let Some(h) = sync {
            if let Err(e) = h.sync(sys::DMA_BUF_SYNC_START | direction) {
                sync_error.get_or_insert(e);
            }
        }
        let t0 = sys::ticks();
        run(&mut body, passes);
        let t1 = sys::ticks();
        if let Some(h) = sync {
            if let Err(e) = h.sync(sys::DMA_BUF_SYNC_END | direction) {
                sync_error.get_or_insert(e);
            }
            let s1 = sys::ticks();
            let pair = t0.wrapping_sub(s0).saturating_add(s1.wrapping_sub(t1));
            sync_best = sync_best.min(pair);
        }
        if t1 >= t0 || backwards >= MAX_BACKWARDS {
            break t1.wrapping_sub(t0).saturating_sub(overhead);
        }
        backwards += 1;
    };
    // Samples of at least 1000 of the counter's real steps (user-mode QEMU's moves 62 at a
    // time).
    let step = counter::step((0..counter::STEP_READS).map(|_| sys::ticks())).unwrap_or(1);
    let min_ticks = sweep::min_sample_ticks_stepped(freq, step);
    let max = sweep::max_passes(pass_bytes);
    let mut passes = sweep::calibrate(min_ticks, max, &mut timed).passes;
    let mut samples = [0u64; MAX_REPS];
    let n = reps as usize;
    let mut i = 0;
    while i < n {
        let t = timed(passes);
        match sweep::too_short(passes, t, min_ticks, max) {
            Some(more) => {
                passes = more;
                i = 0;
            }
            None => {
                samples[i] = t.max(1);
                i += 1;
            }
        }
    }
    // The sync pair's best, in ns (none without a dma-buf, or when a sync failed).
    let sync_ns = match (sync, sync_error) {
        (Some(_), None) if sync_best != u64::MAX => Some(sweep::ticks_to_ns(sync_best, freq)),
        _ => None,
    };
    if let (Some(_), Some(e)) = (sync, sync_error) {
        tally.warnings += 1;
        say!(
            out,
            "{name} {} {}: DMA_BUF_IOCTL_SYNC failed: {} (errno {e})",
            spec.name,
            Bytes(size),
            errno_name(e)
        );
    }
    let bad = match k {
        Kernel::ReadLdp | Kernel::ReadLdpQ | Kernel::ReadLdnp => mismatch(m, size, PATTERN),
        Kernel::WriteStp | Kernel::WriteStpQ | Kernel::WriteStnp => mismatch(m, size, WRITTEN),
        Kernel::CopyTo | Kernel::CopyToQ => mismatch(m, size, PATTERN),
        Kernel::CopyFrom | Kernel::CopyFromQ => partner.and_then(|p| mismatch(p, size, PATTERN)),
        Kernel::Latency => (!chain_intact(m, size)).then_some(0),
        // No other kernel got this far (the match above).
        _ => Some(0),
    };
    let Some(s) = stats::summarize(&mut samples[..n]) else {
        return;
    };
    // What the range got, right after its samples.
    let granule = granule(m.va(), size);
    tally.checks += 1;
    if let Some(off) = bad {
        tally.failed += 1;
        say!(
            out,
            "FAIL integrity: {} on {name} at {}: data wrong at offset {off:#x}{}",
            spec.name,
            Bytes(size),
            if matches!(k, Kernel::CopyFrom | Kernel::CopyFromQ) {
                " of the anonymous copy"
            } else {
                ""
            }
        );
    }
    // The unit's own fields (core's kernel table), as the firmware's report writes them.
    let unit = spec.unit;
    let total = units.saturating_mul(passes);
    let bandwidth = unit == Unit::Bandwidth;
    let best = stats::in_unit(unit, total, s.best, freq);
    let median = stats::in_unit(unit, total, s.median, freq);
    let sync_note = SyncNote(sync_ns);
    let granule_note = GranuleNote(granule);
    if let (true, Some(b), None) = (bandwidth, best, bad) {
        tally.diag.keep(name, k, size, b, median.unwrap_or(0));
    }
    match (bandwidth, best) {
        (true, Some(b)) => say!(
            out,
            "{name} {} {}: {b} MB/s best, {} MB/s median (MB = 10^6 B, {}){sync_note}{granule_note}",
            spec.name,
            Bytes(size),
            median.unwrap_or(0),
            if matches!(
                k,
                Kernel::CopyTo | Kernel::CopyFrom | Kernel::CopyToQ | Kernel::CopyFromQ
            ) {
                "bytes copied counted once"
            } else {
                "bytes read or written once"
            }
        ),
        (true, None) => say!(
            out,
            "{name} {} {}: too fast to time{sync_note}{granule_note}",
            spec.name,
            Bytes(size)
        ),
        (false, _) => say!(
            out,
            "{name} {} {}: {} ns/load best, {} ns/load median (one dependent load per \
             {CHASE_LINE}-byte line, {total} loads a sample){sync_note}{granule_note}",
            spec.name,
            Bytes(size),
            Decimal {
                scaled: best.unwrap_or(0),
                places: 2
            },
            Decimal {
                scaled: median.unwrap_or(0),
                places: 2
            },
        ),
    }
    let r = Record::new(out, &schema::RESULT)
        .str("source", name)
        .str("kernel", spec.name);
    let r = match granule {
        Some(g) => r.str("granule", g),
        None => r,
    };
    let r = r
        .u64("size", size)
        .u64("passes", passes)
        .u64("reps", u64::from(s.n))
        .u64("best_ticks", s.best)
        .u64("median_ticks", s.median)
        .u64("freq_hz", freq)
        .decimal("cv_pct", u64::from(s.cv_permille), 1)
        .u64(unit.count_field(), total);
    let (r, _) = r.unit_values(unit, total, s.best, s.median, freq);
    let r = r.str("start", start.name());
    let r = match sync_ns {
        Some(ns) => r.u64("sync_ns", ns),
        None => r,
    };
    let r = match backwards {
        0 => r,
        n => r.u64("dropped_samples", n).str(
            "dropped_why",
            counter::Dropped::Backwards { t0: 0, t1: 0 }.name(),
        ),
    };
    let r = match bad {
        None => r.str("integrity", "ok"),
        Some(off) => r.hex("integrity_fail_offset", off),
    };
    let _ = r.finish();
}

/// A fatal signal (a mapping that faults, an instruction EL0 may not run): say what and where,
/// fail the run with an `end` record, exit 1. Called on the signal's own stack, which has no
/// way to the run's tally: the `end` record counts the `signal` check alone.
pub fn fatal(f: sys::Fatal<'_>) -> ! {
    let mut out = Out {
        buf: [0; 1024],
        n: 0,
        failed: false,
    };
    say!(
        out,
        "fatal: {} ({}) at {:#x} while {}",
        f.signal,
        f.meaning,
        f.addr,
        f.doing
    );
    let _ = Record::new(&mut out, &schema::CHECK)
        .str("name", "signal")
        .bool("ok", false)
        .fmt(
            "detail",
            format_args!("{} at {:#x} while {}", f.signal, f.addr, f.doing),
        )
        .finish();
    fail_end(&mut out, 1, f.signal)
}

/// What to do when the twin itself goes wrong: say so and exit 1 (no unwinding).
#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    let mut out = Out {
        buf: [0; 1024],
        n: 0,
        failed: false,
    };
    say!(out, "panic: {}", info.message());
    fail_end(&mut out, 0, "panic")
}

/// The `end` record of a run cut short (`checks` counted, one failed: `reason`), then exit 1.
fn fail_end(out: &mut Out, checks: u64, reason: &str) -> ! {
    let _ = Record::new(out, &schema::END)
        .str("status", "fail")
        .u64("checks", checks)
        .u64("failed", 1)
        .u64("warnings", 0)
        .str("reason", reason)
        .u64("run_us", 0)
        .finish();
    out.flush();
    sys::exit(1)
}
