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
//! On 32-bit Arm Linux (`--target armv7-unknown-linux-gnueabihf`, the 32-bit image's target) the same program runs the 32-bit
//! firmware's A32 loops under the table's names (`sys/arm.rs` says which stands for which),
//! without the non-temporal pairs, which A32 lacks, and every point starts `warm`: ARMv7 gives
//! PL0 no cache maintenance to the point of coherency.
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
use mairbench_core::bootargs::{Hugepages, Selftest};
use mairbench_core::kernel::ALL_KERNELS;
use mairbench_core::record::Record;
use mairbench_core::stats::MAX_REPS;
use mairbench_core::{diagnosis, schema, sweep};

const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The sweep without `mairbench.sizes=`: 4 KiB to 4 MiB.
const DEFAULT_SIZES: (u64, u64) = (4 << 10, 4 << 20);
/// Largest mapping without `mairbench.buffer=` (core's, which the diagnosis's advice knows).
const DEFAULT_BUFFER: u64 = diagnosis::TWIN_BUFFER;
const DEFAULT_REPS: u32 = 7;
const QUICK_REPS: u32 = 3;

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
    fn new() -> Out {
        Out {
            buf: [0; 1024],
            n: 0,
            failed: false,
        }
    }

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

// After `say!`, which they use.
mod cli;
mod diag;
mod huge;
mod points;
mod report;
mod sources;

/// The tally of the run, for the `end` record, and what the closing diagnosis needs.
#[derive(Default)]
struct Tally {
    checks: u64,
    failed: u64,
    warnings: u64,
    diag: diag::Diag,
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

/// What every source's sweep shares.
struct Ctx<'s> {
    sizes: &'s [u64],
    largest: u64,
    reps: u32,
    freq: u64,
    /// The kernels to run (a mask of the table's, those the twin runs).
    kernels: mairbench_core::kernel::Mask,
    /// `mairbench.hugepages=`: the advice for the anonymous mappings.
    hugepages: Hugepages,
    /// The kernel's THP setting (`thp_setting`), when it could be read.
    thp: Option<&'s str>,
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

/// The main program, called by the process entry.
pub fn main() -> ! {
    cli::command_line_or_exit();
    let signals = sys::on_fatal_signals();
    let t_start = {
        let mut what = Name::new();
        let _ = write!(
            what,
            "reading {}, the clock (Linux lets {} read it unless the kernel traps it)",
            sys::counter(),
            sys::USER_LEVEL
        );
        let _doing = sys::doing(what.as_str());
        sys::ticks()
    };
    let mut out = Out::new();
    let mut tally = Tally::default();
    let full = cli::Cmdline::from_args(false);
    let cmdline = full.as_str();
    let for_core = cli::Cmdline::from_args(true);
    let options = cli::options(for_core.as_str(), &mut out, &mut tally);
    let machine = report::Machine::probe(cmdline);
    let freq = machine.rate.hz();
    machine.start(&mut out, cmdline);
    let reps = options
        .reps
        .unwrap_or(if options.quick {
            QUICK_REPS
        } else {
            DEFAULT_REPS
        })
        .clamp(1, MAX_REPS as u32);

    let counting = freq != 0 && sys::ticks() != t_start;
    tally.check(
        &mut out,
        "timer",
        counting,
        format_args!(
            "{} readable at {} and counting, {}",
            sys::counter(),
            sys::USER_LEVEL,
            machine.rate
        ),
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
    selftest(&mut out, &mut tally, options.selftest);

    let buffer = options.buffer.unwrap_or(DEFAULT_BUFFER);
    let sizes = match options.sizes {
        _ if options.quick && options.sizes.is_none() => sweep::plan_quick(buffer),
        Some((lo, hi)) => sweep::plan(lo, hi, buffer),
        None => sweep::plan(DEFAULT_SIZES.0, DEFAULT_SIZES.1, buffer),
    };
    tally.diag.sizes = sizes;
    tally.diag.caches = report::cache_sizes();
    let kernels = say_kernels(&mut out, options.kernels);
    if counting {
        if let Some(largest) = sizes.largest() {
            let mut thp_buf = [0u8; 128];
            let ctx = Ctx {
                sizes: sizes.as_slice(),
                largest,
                reps,
                freq,
                kernels,
                hugepages: options.hugepages,
                thp: huge::thp_setting(&mut thp_buf),
            };
            sources::run(&mut out, &mut tally, &ctx);
        }
    }

    tally.diag.say(&mut out, machine.emulated);
    end(out, &tally, t_start, freq)
}

/// `mairbench.selftest=`: `fault` faults on purpose (the fatal-signal report); the
/// firmware's others are refused with a warning.
fn selftest(out: &mut Out, tally: &mut Tally, selftest: Option<Selftest>) {
    match selftest {
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
}

/// Says the kernels that run, core's mask (`mairbench.kernels=`, or the quick ones) less what
/// the twin does not run, and those left out when they were asked for; the mask that runs.
fn say_kernels(out: &mut Out, asked: mairbench_core::kernel::Mask) -> mairbench_core::kernel::Mask {
    let kernels = asked & points::TWIN_KERNELS;
    say!(out, "kernels: {}", report::KernelNames(kernels));
    let left_out = asked & !points::TWIN_KERNELS;
    // Those with no loop on this architecture (32-bit Arm: the non-temporal pairs), said
    // apart from those the twin never runs.
    let no_loop = left_out & !sys::LOOPS;
    let left_out = left_out & !no_loop;
    if left_out != 0 && asked != ALL_KERNELS {
        say!(
            out,
            "kernels: {} not run by mairbench-linux (DC ZVA faults on Device memory; EL0 may \
             never issue DC IVAC, and timed DC CIVAC/CVAC need a second alias of the pages)",
            report::KernelNames(left_out)
        );
    }
    if no_loop != 0 && asked != ALL_KERNELS {
        say!(
            out,
            "kernels: {} not run on {}: no such instruction there",
            report::KernelNames(no_loop),
            sys::ARCH.name()
        );
    }
    kernels
}

/// The last line and the `end` record, then exit: 0 when the run passed, else 1.
fn end(mut out: Out, tally: &Tally, t_start: u64, freq: u64) -> ! {
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

/// A fatal signal (a mapping that faults, an instruction EL0 may not run): say what and where,
/// fail the run with an `end` record, exit 1. Called on the signal's own stack, which has no
/// way to the run's tally: the `end` record counts the `signal` check alone.
pub fn fatal(f: sys::Fatal<'_>) -> ! {
    let mut out = Out::new();
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
    let mut out = Out::new();
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
