//! mairbench-linux: the firmware's kernels and records, run as a Linux process on the
//! mappings Linux hands out (each a named `source`), so that its sweeps can be set against
//! the firmware's, memory type by memory type.
//!
//! Usage: `mairbench-linux [mairbench.sizes=4K-1M] [mairbench.reps=N] [mairbench.quick]
//! [mairbench.buffer=SIZE] [mairbench.host=NAME] [mairbench.sources=LIST]`: the firmware's
//! option names, plus the twin's own `mairbench.sources=`, a comma-separated list of
//! `anon`, `udmabuf`, `pci:<BDF>:resN`, `pci:<BDF>:resN_wc`, `devmem:<pa>+<size>` and `all`
//! (anon, udmabuf and both mappings of every prefetchable PCI memory BAR; the default). Output: human
//! lines and `@mb` records on stdout, from `start` to `end`; exit status 0 exactly when the
//! run passed.
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
use mairbench_core::bootargs::{self, Note};
use mairbench_core::format::Bytes;
use mairbench_core::record::{self, Record};
use mairbench_core::stats::{self, MAX_REPS};
use mairbench_core::{placement, schema, sweep};

const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The sweep without `mairbench.sizes=`: 4 KiB to 4 MiB.
const DEFAULT_SIZES: (u64, u64) = (4 << 10, 4 << 20);
/// Largest mapping without `mairbench.buffer=`.
const DEFAULT_BUFFER: u64 = 64 << 20;
const DEFAULT_REPS: u32 = 7;
const QUICK_REPS: u32 = 3;
/// The twin's own option: which sources run, a comma-separated list (default `all`).
const SOURCES_KEY: &str = "mairbench.sources=";

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

/// The tally of the run, for the `end` record.
#[derive(Default)]
struct Tally {
    checks: u64,
    failed: u64,
    warnings: u64,
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
    /// All the arguments, or (`skip_sources`) all but `mairbench.sources=` ones, which the
    /// twin parses itself.
    fn from_args(skip_sources: bool) -> Cmdline {
        let mut c = Cmdline {
            buf: [0; 2048],
            n: 0,
        };
        for a in sys::args() {
            if skip_sources && a.starts_with(SOURCES_KEY) {
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

/// The main program, called by the process entry.
pub fn main() -> ! {
    let t_start = sys::ticks();
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
            Note::UnknownKey(k) => say!(out, "bootargs: unknown option '{k}' ignored"),
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
    let uname = sys::Uname::get();
    let freq = sys::freq_hz();

    let mut model_buf = [0u8; 256];
    let mut compat_buf = [0u8; 256];
    let model = dt_string("/proc/device-tree/model", &mut model_buf);
    let compat = dt_string("/proc/device-tree/compatible", &mut compat_buf);
    let dtb_qemu = compat == Some("linux,dummy-virt");
    let platform = model.or(compat).unwrap_or("unknown");
    let mut emulated_by: [&str; 2] = ["", ""];
    let mut n_by = 0;
    for (yes, why) in [(host.is_some(), "bootarg"), (dtb_qemu, "dtb")] {
        if yes {
            emulated_by[n_by] = why;
            n_by += 1;
        }
    }
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
        .bool("emulated", n_by != 0);
    let r = match host {
        Some(h) => r.str("host", h),
        None => r,
    };
    let r = match emulated_by.get(..n_by) {
        Some(by) if !by.is_empty() => r.strs("emulated_by", by.iter().copied()),
        _ => r,
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

    let counting = freq != 0 && sys::ticks() != t_start;
    tally.check(
        &mut out,
        "timer",
        counting,
        format_args!("CNTVCT_EL0 readable at EL0 and counting, CNTFRQ_EL0 {freq} Hz"),
    );

    let buffer = options.buffer.unwrap_or(DEFAULT_BUFFER);
    let sizes = match options.sizes {
        _ if options.quick && options.sizes.is_none() => sweep::plan_quick(buffer),
        Some((lo, hi)) => sweep::plan(lo, hi, buffer),
        None => sweep::plan(DEFAULT_SIZES.0, DEFAULT_SIZES.1, buffer),
    };
    if counting {
        if let Some(largest) = sizes.largest() {
            let list = sys::args()
                .filter_map(|a| a.strip_prefix(SOURCES_KEY))
                .last()
                .unwrap_or("all");
            let ctx = Ctx {
                sizes: sizes.as_slice(),
                largest,
                reps,
                freq,
            };
            for spec in list.split(',').filter(|s| !s.is_empty()) {
                if spec == "all" {
                    every_source_found(&mut out, &mut tally, &ctx);
                } else {
                    source(&mut out, &mut tally, &ctx, spec);
                }
            }
        }
    }

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

/// A kernel the twin runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kernel {
    ReadLdp,
    WriteStp,
}

impl Kernel {
    fn name(self) -> &'static str {
        match self {
            Kernel::ReadLdp => "read-ldp",
            Kernel::WriteStp => "write-stp",
        }
    }

    fn run(self, m: &mut sys::Mapping, len: u64, passes: u64) {
        let _ = match self {
            Kernel::ReadLdp => m.read_ldp(len, passes),
            Kernel::WriteStp => m.write_stp(len, passes),
        };
    }
}

/// What read-ldp's range holds: a value of its word index that no kernel writes.
fn laid(i: usize) -> u64 {
    (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5a5a
}

/// What every source's sweep shares.
struct Ctx<'s> {
    sizes: &'s [u64],
    largest: u64,
    reps: u32,
    freq: u64,
}

/// `all`: `anon`, `udmabuf`, then `pci:<BDF>:resN` and `pci:<BDF>:resN_wc` for every
/// prefetchable memory BAR of every PCI device (a prefetchable BAR is memory without read
/// side effects; other BARs may be registers, so they run only when named).
fn every_source_found(out: &mut Out, tally: &mut Tally, ctx: &Ctx<'_>) {
    source(out, tally, ctx, "anon");
    source(out, tally, ctx, "udmabuf");
    let mut bdfs = [[0u8; 16]; 32];
    let mut n = 0;
    let _ = sys::list_dir("/sys/bus/pci/devices", |name| {
        if let (Some(slot), true) = (bdfs.get_mut(n), name.len() <= 16) {
            slot[..name.len()].copy_from_slice(name.as_bytes());
            n += 1;
        }
    });
    for raw in bdfs.iter().take(n) {
        let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
        let Ok(bdf) = core::str::from_utf8(&raw[..end]) else {
            continue;
        };
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
            for wc in ["", "_wc"] {
                let mut name = Name::new();
                let _ = write!(name, "pci:{bdf}:res{bar}{wc}");
                source(out, tally, ctx, name.as_str());
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

/// Maps the source `spec` names: the mapping and how it was made, or the errno and the step
/// that failed.
fn open_source(
    spec: &str,
    largest: u64,
) -> Result<(sys::Mapping, &'static str), (i64, &'static str)> {
    if spec == "anon" {
        return sys::Mapping::anon(largest)
            .map(|m| (m, "mmap MAP_PRIVATE|MAP_ANONYMOUS"))
            .map_err(|e| (e, "mmap"));
    }
    if spec == "udmabuf" {
        return sys::Mapping::udmabuf(largest).map(|m| {
            (
                m,
                "memfd_create, F_SEAL_SHRINK, UDMABUF_CREATE, mmap of the dma-buf",
            )
        });
    }
    if let Some(rest) = spec.strip_prefix("pci:") {
        let Some((bdf, res)) = rest.rsplit_once(':') else {
            return Err((22, "pci:<BDF>:resN[_wc] expected"));
        };
        let (bar, wc) = match res.strip_prefix("res") {
            Some(b) => match b.strip_suffix("_wc") {
                Some(b) => (b, true),
                None => (b, false),
            },
            None => return Err((22, "pci:<BDF>:resN[_wc] expected")),
        };
        if bar.len() != 1 || !bar.as_bytes()[0].is_ascii_digit() || bdf.contains('/') {
            return Err((22, "pci:<BDF>:resN[_wc] expected"));
        }
        let mut path = Name::new();
        let _ = write!(
            path,
            "/sys/bus/pci/devices/{bdf}/resource{bar}{}",
            if wc { "_wc" } else { "" }
        );
        let how = if wc {
            "mmap of sysfs resourceN_wc (write-combining)"
        } else {
            "mmap of sysfs resourceN"
        };
        return sys::Mapping::file(path.as_str(), false, largest, 0, true).map(|m| (m, how));
    }
    if let Some(rest) = spec.strip_prefix("devmem:") {
        let parsed = rest.split_once('+').and_then(|(pa, size)| {
            let pa = if pa == "0" {
                Some(0)
            } else {
                placement::parse_size(pa)
            };
            Some((pa?, placement::parse_size(size)?))
        });
        let Some((pa, size)) = parsed.filter(|&(pa, _)| pa % 4096 == 0) else {
            return Err((22, "devmem:<page-aligned pa>+<size> expected"));
        };
        return sys::Mapping::file("/dev/mem", true, size.min(largest), pa, false)
            .map(|m| (m, "mmap of /dev/mem, O_SYNC"));
    }
    Err((
        22,
        "not a source name (anon, udmabuf, pci:<BDF>:resN[_wc], devmem:<pa>+<size>, all)",
    ))
}

/// One source: its `source` record (the mapping, or the error that refused it), then the
/// sweep over the sizes that fit in it. A refused source does not fail the run.
fn source(out: &mut Out, tally: &mut Tally, ctx: &Ctx<'_>, spec: &str) {
    let (mut m, how) = match open_source(spec, ctx.largest) {
        Ok(ok) => ok,
        Err((errno, step)) => {
            let name = errno_name(errno);
            say!(
                out,
                "source {spec}: {step}: {name} (errno {errno}); skipped"
            );
            let _ = Record::new(out, &schema::SOURCE)
                .str("source", spec)
                .str("error", name)
                .u64("errno", errno.unsigned_abs())
                .str("detail", step)
                .finish();
            return;
        }
    };
    let fit = ctx.sizes.iter().filter(|&&s| s <= m.size()).count();
    say!(
        out,
        "source {spec}: {} mapped ({how}); {fit} of {} sizes fit",
        Bytes(m.size()),
        ctx.sizes.len()
    );
    let _ = Record::new(out, &schema::SOURCE)
        .str("source", spec)
        .u64("size", m.size())
        .str("detail", how)
        .finish();
    sweep_source(out, tally, ctx, spec, &mut m);
}

/// The read-ldp and write-stp sweep on one mapping, sizes up to the mapping's size.
fn sweep_source(out: &mut Out, tally: &mut Tally, ctx: &Ctx<'_>, name: &str, m: &mut sys::Mapping) {
    let Ctx { reps, freq, .. } = *ctx;
    let cap = m.size();
    let sizes = ctx.sizes.iter().copied().filter(move |&s| s <= cap);
    let min_ticks = sweep::min_sample_ticks(freq);
    let overhead = (0..16)
        .map(|_| {
            let t0 = sys::ticks();
            sys::ticks().wrapping_sub(t0)
        })
        .min()
        .unwrap_or(0);
    for size in sizes {
        for kernel in [Kernel::ReadLdp, Kernel::WriteStp] {
            let words = (size / 8) as usize;
            if let Some(w) = m.words().get_mut(..words) {
                for (i, x) in w.iter_mut().enumerate() {
                    *x = if kernel == Kernel::ReadLdp {
                        laid(i)
                    } else {
                        0
                    };
                }
            }
            let mut timed = |passes: u64| {
                let t0 = sys::ticks();
                kernel.run(m, size, passes);
                sys::ticks().wrapping_sub(t0).saturating_sub(overhead)
            };
            let max = sweep::max_passes(size);
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
                        samples[i] = t;
                        i += 1;
                    }
                }
            }
            let bad = m.words().get(..words).and_then(|w| {
                w.iter().enumerate().position(|(i, &x)| {
                    x != match kernel {
                        Kernel::ReadLdp => laid(i),
                        Kernel::WriteStp => sys::WRITE_STP_WORDS[i % 2],
                    }
                })
            });
            let Some(s) = stats::summarize(&mut samples[..n]) else {
                continue;
            };
            let bytes = size.saturating_mul(passes);
            let best = stats::mbps(bytes, s.best, freq);
            let median = stats::mbps(bytes, s.median, freq);
            tally.checks += 1;
            if bad.is_some() {
                tally.failed += 1;
            }
            match best {
                Some(b) => say!(
                    out,
                    "{name} {} {}: {b} MB/s best, {} MB/s median (MB = 10^6 B, bytes read or written once)",
                    kernel.name(),
                    Bytes(size),
                    median.unwrap_or(0)
                ),
                None => say!(out, "{name} {} {}: too fast to time", kernel.name(), Bytes(size)),
            }
            let r = Record::new(out, &schema::RESULT)
                .str("source", name)
                .str("kernel", kernel.name())
                .u64("size", size)
                .u64("passes", passes)
                .u64("reps", u64::from(s.n))
                .u64("best_ticks", s.best)
                .u64("median_ticks", s.median)
                .u64("freq_hz", freq)
                .decimal("cv_pct", u64::from(s.cv_permille), 1)
                .u64("bytes", bytes)
                .opt_u64("best_mbps", best)
                .opt_u64("median_mbps", median);
            let r = match bad {
                None => r.str("integrity", "ok"),
                Some(w) => r.hex("integrity_fail_offset", (w as u64) * 8),
            };
            let _ = r.finish();
        }
    }
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
    let _ = Record::new(&mut out, &schema::END)
        .str("status", "fail")
        .u64("checks", 0)
        .u64("failed", 1)
        .u64("warnings", 0)
        .str("reason", "panic")
        .u64("run_us", 0)
        .finish();
    out.flush();
    sys::exit(1)
}
