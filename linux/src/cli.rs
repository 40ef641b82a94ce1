//! The command line: the arguments as core's bootargs see them, `--help`, `--version`, the
//! refusal of an argument the twin does not know, and the twin's own options
//! (`mairbench.sources=`, `mairbench.pause`).

use crate::{sys, Name, Out, Tally};
use core::fmt::Write;
use mairbench_core::bootargs::{self, Note, Options};
use mairbench_core::source::DEVMEM_RAM_KEY;

/// The twin's own option: which sources run, a comma-separated list (default `all`).
pub const SOURCES_KEY: &str = "mairbench.sources=";
/// The twin's own option: after each source's sweep, wait (its mapping still there) for a
/// debugger to walk the page tables (`mairbench.pause`, 30 s at most, or
/// `mairbench.pause=SECONDS`).
pub const PAUSE_KEY: &str = "mairbench.pause";

/// The command line: the arguments joined by spaces (as a boot loader passes bootargs).
pub struct Cmdline {
    buf: [u8; 2048],
    n: usize,
}

impl Cmdline {
    /// All the arguments, or (`skip_sources`) all but `mairbench.sources=`,
    /// `mairbench.devmem-ram=` and `mairbench.pause` ones, which the twin parses itself.
    pub fn from_args(skip_sources: bool) -> Cmdline {
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

    pub fn as_str(&self) -> &str {
        core::str::from_utf8(self.buf.get(..self.n).unwrap_or_default()).unwrap_or("")
    }
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
pub fn command_line_or_exit() {
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

/// core's options from `for_core` (the arguments but the twin's own), each note said as a
/// `bootargs:` line and counted as a warning when it is one.
pub fn options(for_core: &str, out: &mut Out, tally: &mut Tally) -> Options {
    bootargs::parse(for_core, |note| {
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
    })
}

/// `mairbench.sources=`: the last one's list, else `all`.
pub fn sources() -> &'static str {
    sys::args()
        .filter_map(|a| a.strip_prefix(SOURCES_KEY))
        .last()
        .unwrap_or("all")
}

/// `mairbench.pause`: how long to wait for a debugger, in seconds (30 without a value, or
/// for one outside 1 to 3600, which is said); `None` without the option.
pub fn pause_secs(out: &mut Out) -> Option<u64> {
    let arg = sys::args().filter(|a| a.starts_with(PAUSE_KEY)).last()?;
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
        None => return None,
    };
    Some(secs)
}
