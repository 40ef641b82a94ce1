//! The kernel command line (`/chosen/bootargs`): tokens separated by white space, each
//! `key` or `key=value`; a value may be double-quoted to hold spaces. Keys of mairbench start
//! with `mairbench.`; everything else belongs to someone else and is reported, not used.
//!
//! Parsing never fails: a bad token produces a [`Note`] and the default stays in force.

use crate::emulation::Accel;
use crate::kernel::{self, ALL_KERNELS, QUICK_KERNELS};
use crate::memtype::{self, MEMTYPES};
use crate::placement;
use crate::stats::MAX_REPS;
use crate::sweep;

/// Deliberate failures the firmware can be asked to provoke, to test its own error paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selftest {
    /// Take an unexpected synchronous exception (an undefined instruction).
    Fault,
    /// Panic in Rust code.
    Panic,
    /// Stop making progress (the runner's timeout must end the run).
    Hang,
    /// Recurse until the main stack runs into its guard page: the fault must be reported
    /// (the handler runs on its own stack).
    StackOverflow,
    /// Also ask PSCI to start a CPU that does not exist (MPIDR 0xff00): its failure must be
    /// reported by MPIDR, and the run goes on.
    MissingCpu,
    /// Map the `normal-nc` alias with the Device-nGnRnE AttrIndx: the mapping proof must
    /// catch it and fail the run.
    BadAttr,
    /// Leave SCTLR_EL1.C clear for the measurements (every Normal type then behaves as
    /// Non-cacheable): the `caches-on` verdict must fail, and so must the run.
    CachesOff,
    /// Take the first timed sample's counter reads as gone backwards (as a counter erratum
    /// makes them): the sample must be dropped, named in its result record and taken again,
    /// and the run goes on.
    CounterBackwards,
    /// Time the first take of one point (the first kernel, its first row, the middle size)
    /// sixteen times slower, as a disturbance of the host that hits all of a point's
    /// back-to-back reps does: the point must be re-taken after its kernel's sweep, and the
    /// run goes on. Sixteen, not four: under QEMU a sweep's largest size can run at a
    /// quarter of its middle size's speed (the software TLB misses), and a point four times
    /// slower was then no worse than that neighbour by the re-take's 1.25x.
    Disturb,
}

/// Every [`Selftest`] by its `mairbench.selftest=` name.
pub const SELFTESTS: [(&str, Selftest); 9] = [
    ("fault", Selftest::Fault),
    ("panic", Selftest::Panic),
    ("hang", Selftest::Hang),
    ("stack-overflow", Selftest::StackOverflow),
    ("missing-cpu", Selftest::MissingCpu),
    ("bad-attr", Selftest::BadAttr),
    ("caches-off", Selftest::CachesOff),
    ("counter-backwards", Selftest::CounterBackwards),
    ("disturb", Selftest::Disturb),
];

/// What `mairbench.selftest=` takes, for the message about a bad value.
const SELFTEST_NAMES: &str =
    "fault, panic, hang, stack-overflow, missing-cpu, bad-attr, caches-off, counter-backwards, \
     disturb or none";

impl Selftest {
    /// Its `mairbench.selftest=` name.
    pub fn name(self) -> &'static str {
        SELFTESTS
            .iter()
            .find(|&&(_, t)| t == self)
            .map_or("?", |&(n, _)| n)
    }
}

/// `mairbench.hugepages=`: what the Linux twin asks of transparent huge pages (THP) for its
/// anonymous mappings (the `anon` source and the copies' partner), each mapped 2 MiB-aligned
/// so that THP can apply. The firmware maps its own aliases with 2 MiB blocks where the
/// kernel table says, whatever this says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hugepages {
    /// No advice: the kernel's default (`/sys/kernel/mm/transparent_hugepage/enabled`).
    Auto,
    /// madvise(MADV_HUGEPAGE).
    On,
    /// madvise(MADV_NOHUGEPAGE).
    Off,
}

impl Hugepages {
    /// Its `mairbench.hugepages=` name.
    pub fn name(self) -> &'static str {
        match self {
            Hugepages::Auto => "auto",
            Hugepages::On => "on",
            Hugepages::Off => "off",
        }
    }
}

/// Options of one run, as set by the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// `mairbench.quick`: a small subset of the measurements, for a first look.
    pub quick: bool,
    /// `mairbench.selftest=fault|panic|hang|stack-overflow|missing-cpu|bad-attr|caches-off|
    /// counter-backwards`.
    pub selftest: Option<Selftest>,
    /// `mairbench.buffer=32M`: size of the test buffer (`None`: the default).
    pub buffer: Option<u64>,
    /// `mairbench.types=normal-wb,device-ngnre,…`: memory types the measurements use, as a
    /// mask of MAIR indices (bit i = index i of `memtype::MEMTYPES`).
    pub types: u8,
    /// `mairbench.device-faults`: try the accesses real cores fault on for Device memory
    /// (unaligned, DC ZVA).
    pub device_faults: bool,
    /// `mairbench.kernels=read-ldp,write-stp,…`: the measurement kernels to run, as a mask
    /// (bit i = `kernel::KERNELS[i]`). [`ALL_KERNELS`] by default; [`QUICK_KERNELS`] with
    /// `mairbench.quick` unless `mairbench.kernels=` is given too (in any order).
    pub kernels: kernel::Mask,
    /// `mairbench.sizes=4K-16M` (or one size, `1M`): the working-set sizes to sweep, both
    /// ends included, as [`sweep::parse_range`] reads them (`None`: the engine decides).
    pub sizes: Option<(u64, u64)>,
    /// `mairbench.reps=N`: timed samples per measurement, 1 to [`MAX_REPS`] (`None`: the
    /// engine decides).
    pub reps: Option<u32>,
    /// `mairbench.hugepages=auto|on|off`: the Linux twin's THP request ([`Hugepages`]).
    pub hugepages: Hugepages,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            quick: false,
            selftest: None,
            buffer: None,
            types: ALL_TYPES,
            device_faults: false,
            kernels: ALL_KERNELS,
            sizes: None,
            reps: None,
            hugepages: Hugepages::Auto,
        }
    }
}

/// Every memory type of the table.
pub const ALL_TYPES: u8 = ((1u16 << MEMTYPES.len()) - 1) as u8;

/// Parses a comma-separated list of memory-type names into a mask; the first unknown name is
/// the error.
pub fn parse_types(list: &str) -> Result<u8, &str> {
    let mut mask = 0u8;
    for name in crate::text::split(list, b',') {
        let t = memtype::by_name(name).ok_or(name)?;
        mask |= 1 << t.index;
    }
    Ok(mask)
}

/// Every key this firmware reads: what an unknown key is compared with for a "did you mean"
/// (the parser's test checks that each one is read).
pub const KEYS: [&str; 13] = [
    "mairbench.quick",
    "mairbench.selftest",
    "mairbench.buffer",
    "mairbench.types",
    "mairbench.device-faults",
    "mairbench.kernels",
    "mairbench.sizes",
    "mairbench.reps",
    "mairbench.host",
    "mairbench.accel",
    "mairbench.hugepages",
    "mairbench.console",
    "mairbench.hold",
];

/// The known key one edit away from the unknown `key` (a letter changed, added, left out,
/// or two neighbours swapped): `mairbench.quik` → `mairbench.quick`. None when no key, or
/// more than one, is that close.
pub fn suggestion(key: &str) -> Option<&'static str> {
    let mut close = KEYS
        .iter()
        .filter(|known| one_edit(key.as_bytes(), known.as_bytes()));
    let found = close.next()?;
    close.next().is_none().then_some(*found)
}

/// Whether `a` and `b` differ by exactly one edit: one byte substituted, inserted or deleted,
/// or two adjacent bytes transposed.
fn one_edit(a: &[u8], b: &[u8]) -> bool {
    let (short, long) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let head = short.iter().zip(long).take_while(|(x, y)| x == y).count();
    // From the first difference on.
    let (Some(s), Some(l)) = (short.get(head..), long.get(head..)) else {
        return false;
    };
    let Some((_, l_after)) = l.split_first() else {
        return false; // equal
    };
    if s.len() != l.len() {
        // A byte more in the longer one: without it, the rest must match.
        return s == l_after;
    }
    let swapped = matches!(
        (s, l),
        ([s0, s1, s_rest @ ..], [l0, l1, l_rest @ ..]) if s0 == l1 && s1 == l0 && s_rest == l_rest
    );
    s.get(1..) == Some(l_after) || swapped
}

/// Something worth telling about the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Note<'a> {
    /// A `mairbench.` key this firmware does not know; ignored (counts as a warning).
    UnknownKey(&'a str),
    /// A known key with a value it does not accept; the default is kept (a warning).
    BadValue {
        /// The key.
        key: &'a str,
        /// The rejected value.
        value: &'a str,
        /// What would have been accepted.
        expected: &'static str,
    },
    /// An entry of a list option (`mairbench.types=`, `mairbench.kernels=`) that names
    /// nothing known; left out, the rest of the list kept (a warning).
    BadEntry {
        /// The key.
        key: &'a str,
        /// The rejected entry.
        entry: &'a str,
        /// What would have been accepted.
        expected: &'static str,
    },
    /// A token that is not a mairbench option (e.g. `console=ttyAMA0`); ignored.
    Foreign(&'a str),
}

impl Note<'_> {
    /// Whether the note counts as a warning of the run (a mistake in a mairbench option).
    pub fn is_warning(&self) -> bool {
        !matches!(self, Note::Foreign(_))
    }
}

impl core::fmt::Display for Note<'_> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Note::UnknownKey(k) => {
                write!(f, "unknown option '{k}' ignored")?;
                match suggestion(k) {
                    Some(known) => write!(f, "; did you mean '{known}'?"),
                    None => Ok(()),
                }
            }
            Note::BadValue {
                key,
                value,
                expected,
            } => write!(
                f,
                "option '{key}': bad value '{value}' (expected {expected}); default kept"
            ),
            Note::BadEntry {
                key,
                entry,
                expected,
            } => write!(
                f,
                "option '{key}': unknown entry '{entry}' left out (expected {expected}); \
                 the rest of the list kept"
            ),
            Note::Foreign(t) => write!(f, "'{t}' is not a mairbench option; ignored"),
        }
    }
}

/// Splits a command line into tokens: runs of non-white-space (ASCII, as Linux's `isspace`), where a double-quoted part
/// may contain white space (the quotes stay in the token; see [`split_key_value`]).
pub fn tokens(cmdline: &str) -> impl Iterator<Item = &str> {
    let mut rest = cmdline;
    core::iter::from_fn(move || {
        rest = rest.trim_ascii_start();
        if rest.is_empty() {
            return None;
        }
        let mut quoted = false;
        let end = rest
            .char_indices()
            .find(|&(_, c)| {
                if c == '"' {
                    quoted = !quoted;
                }
                c.is_ascii_whitespace() && !quoted
            })
            .map_or(rest.len(), |(i, _)| i);
        let (token, tail) = rest.split_at_checked(end)?;
        rest = tail;
        Some(token)
    })
}

/// Splits `key=value` (value without surrounding quotes); `key` alone gives `None`.
pub fn split_key_value(token: &str) -> (&str, Option<&str>) {
    match crate::text::split_once(token, b'=') {
        Some((k, v)) => {
            let v = v
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .unwrap_or(v);
            (k, Some(v))
        }
        None => (token, None),
    }
}

/// What `mairbench.kernels=` accepts (every name of the kernel table; a test keeps the two
/// in step).
const KERNELS_EXPECTED: &str = "some of read-ldp,write-stp,read-ldp-q,write-stp-q,read-ldnp,\
     write-stnp,copy-to,copy-from,latency,fill-zva,maint-civac,maint-cvac,maint-ivac,write-line,\
     copy-to-q,copy-from-q,triad,read-stride-64,read-stride-256,read-stride-1k,read-stride-4k,\
     read-random, separated by commas";

/// What `mairbench.host=` accepts (see [`host`]).
const HOST_EXPECTED: &str = "the emulator that runs this, e.g. qemu-10.0.2: letters, digits, \
     '.', '-', '_' or '+', at most 32 characters";

/// Longest `mairbench.host=` value accepted.
pub const MAX_HOST_LEN: usize = 32;

/// Whether `value` is a good `mairbench.host=` value: 1 to [`MAX_HOST_LEN`] characters, each
/// an ASCII letter or digit, `.`, `-`, `_` or `+`.
fn valid_host(value: &str) -> bool {
    (1..=MAX_HOST_LEN).contains(&value.len())
        && value
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'+'))
}

/// `mairbench.host=`: the emulator the run is in, as its runner says (`qemu/run` adds
/// `mairbench.host=qemu-<version>` on every boot path). The last good value; `None` without
/// one. A run with a host is an emulated run, whatever its device tree looks like (QEMU's
/// board machines boot the real boards' device trees). [`parse`] reports bad values.
pub fn host(cmdline: &str) -> Option<&str> {
    tokens(cmdline)
        .map(split_key_value)
        .filter_map(|(key, value)| (key == "mairbench.host").then_some(value).flatten())
        .filter(|value| valid_host(value))
        .last()
}

/// What `mairbench.accel=` accepts (see [`accel`]).
const ACCEL_EXPECTED: &str = "tcg or kvm";

/// `mairbench.accel=`: how the emulator runs the guest, as its runner says (`qemu/run` adds
/// `mairbench.accel=tcg` or `kvm` with `mairbench.host=`). The last good value; `None`
/// without one. [`parse`] reports bad values.
pub fn accel(cmdline: &str) -> Option<Accel> {
    tokens(cmdline)
        .map(split_key_value)
        .filter_map(|(key, value)| (key == "mairbench.accel").then_some(value).flatten())
        .filter_map(Accel::by_name)
        .last()
}

/// What `mairbench.console=` accepts (see [`console_fb`]).
const CONSOLE_EXPECTED: &str = "fb (the framebuffer as well as the UART)";

/// `mairbench.console=fb`: draw the human lines on the framebuffer as well as on the UART
/// (without a UART the framebuffer is the console anyway). [`parse`] reports bad values.
pub fn console_fb(cmdline: &str) -> bool {
    tokens(cmdline)
        .map(split_key_value)
        .any(|kv| kv == ("mairbench.console", Some("fb")))
}

/// What `mairbench.hold=` accepts (see [`hold`]).
const HOLD_EXPECTED: &str = "seconds to keep the screen before powering off, 0 to 3600";

/// `mairbench.hold=SECONDS`: how long the end of a run with the framebuffer console keeps
/// the screen before powering off (the last good value; `None`: the default). [`parse`]
/// reports bad values.
pub fn hold(cmdline: &str) -> Option<u32> {
    tokens(cmdline)
        .map(split_key_value)
        .filter_map(|(key, value)| (key == "mairbench.hold").then_some(value).flatten())
        .filter_map(parse_hold)
        .last()
}

fn parse_hold(value: &str) -> Option<u32> {
    value.parse().ok().filter(|&s| s <= 3600)
}

/// What `mairbench.types=` accepts.
const TYPES_EXPECTED: &str = "memory-type names separated by commas, e.g. normal-wb,device-ngnre";

/// A list option's value (`mairbench.types=`, `mairbench.kernels=`, whose entries `bit`
/// knows): the mask of its known entries, each unknown one noted; `None`, noted as a bad
/// value, when it names nothing known. One copy for both options.
fn list_option<'a>(
    key: &'a str,
    value: Option<&'a str>,
    bit: fn(&str) -> Option<kernel::Mask>,
    expected: &'static str,
    note: &mut impl FnMut(Note<'a>),
) -> Option<kernel::Mask> {
    match value.map(|v| (v, list_mask(v, bit))) {
        Some((v, (mask, some_bad))) if mask != 0 => {
            if some_bad {
                for entry in unknown_entries(v, bit) {
                    note(Note::BadEntry {
                        key,
                        entry,
                        expected,
                    });
                }
            }
            Some(mask)
        }
        _ => {
            note(Note::BadValue {
                key,
                value: value.unwrap_or(""),
                expected,
            });
            None
        }
    }
}

/// The mask of the entries of `list` that `bit` knows, and whether any entry was unknown;
/// the mask is 0 when none was known.
fn list_mask(list: &str, bit: fn(&str) -> Option<kernel::Mask>) -> (kernel::Mask, bool) {
    crate::text::split(list, b',').fold((0, false), |(mask, bad), name| match bit(name) {
        Some(b) => (mask | b, bad),
        None => (mask, true),
    })
}

/// Each entry of `list` that `bit` does not know.
fn unknown_entries<'a>(
    list: &'a str,
    bit: fn(&str) -> Option<kernel::Mask>,
) -> impl Iterator<Item = &'a str> + 'a {
    crate::text::split(list, b',').filter(move |name| bit(name).is_none())
}

/// A memory type's bit, as `mairbench.types=`'s mask holds it (bits by index).
fn type_bit(name: &str) -> Option<kernel::Mask> {
    memtype::by_name(name).and_then(|t| 1u32.checked_shl(t.index.into()))
}

fn kernel_bit(name: &str) -> Option<kernel::Mask> {
    kernel::by_name(name).map(|k| k.kernel.bit())
}

/// What `mairbench.reps=` accepts (a test keeps it in step with [`MAX_REPS`]).
const REPS_EXPECTED: &str = "a whole number from 1 to 64";

/// Parses `mairbench.reps=`: decimal digits only, 1 to [`MAX_REPS`].
fn parse_reps(value: &str) -> Option<u32> {
    if value.is_empty() || !value.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    // Leading zeros are fine; a number too long for u32 is out of range anyway.
    let reps = value.parse::<u32>().ok()?;
    (1..=MAX_REPS)
        .contains(&usize::try_from(reps).ok()?)
        .then_some(reps)
}

fn flag(value: Option<&str>) -> Option<bool> {
    match value {
        None | Some("1" | "on" | "yes" | "true") => Some(true),
        Some("0" | "off" | "no" | "false") => Some(false),
        Some(_) => None,
    }
}

/// Parses the command line; every token that is not used is reported through `note`.
/// A key given twice takes its last value (a bad value keeps the one before). Not inlined:
/// inside the firmware's large `main` the same code takes more instructions.
#[inline(never)]
pub fn parse<'a>(cmdline: &'a str, mut note: impl FnMut(Note<'a>)) -> Options {
    let mut options = Options::default();
    let mut kernels_given = false;
    for token in tokens(cmdline) {
        let (key, value) = split_key_value(token);
        let Some(name) = key.strip_prefix("mairbench.") else {
            note(Note::Foreign(token));
            continue;
        };
        let mut bad = |expected| {
            note(Note::BadValue {
                key,
                value: value.unwrap_or(""),
                expected,
            })
        };
        match name {
            "quick" => match flag(value) {
                Some(on) => options.quick = on,
                None => bad("nothing, 1/0, on/off, yes/no or true/false"),
            },
            "selftest" => match value {
                Some("none") => options.selftest = None,
                _ => match SELFTESTS.iter().find(|&&(n, _)| Some(n) == value) {
                    Some(&(_, t)) => options.selftest = Some(t),
                    None => bad(SELFTEST_NAMES),
                },
            },
            "buffer" => match value.and_then(placement::parse_size) {
                Some(size) => options.buffer = Some(size),
                None => bad("a size such as 32M, 512K or 1G"),
            },
            "types" => {
                if let Some(mask) = list_option(key, value, type_bit, TYPES_EXPECTED, &mut note) {
                    options.types = u8::try_from(mask).unwrap_or(ALL_TYPES);
                }
            }
            "device-faults" => match flag(value) {
                Some(on) => options.device_faults = on,
                None => bad("nothing, 1/0, on/off, yes/no or true/false"),
            },
            "kernels" => {
                let kernels = list_option(key, value, kernel_bit, KERNELS_EXPECTED, &mut note);
                if let Some(mask) = kernels {
                    options.kernels = mask;
                    kernels_given = true;
                }
            }
            "sizes" => match value.and_then(sweep::parse_range) {
                Some(range) => options.sizes = Some(range),
                None => {
                    bad("a size or a range of sizes, multiples of 4K from 4K up, e.g. 4K-16M or 1M")
                }
            },
            "reps" => match value.and_then(parse_reps) {
                Some(reps) => options.reps = Some(reps),
                None => bad(REPS_EXPECTED),
            },
            "hugepages" => match value {
                Some("auto") => options.hugepages = Hugepages::Auto,
                Some("on") => options.hugepages = Hugepages::On,
                Some("off") => options.hugepages = Hugepages::Off,
                _ => bad("auto, on or off"),
            },
            // Read by [`host`], before the start record that carries it.
            "host" => {
                if !value.is_some_and(valid_host) {
                    bad(HOST_EXPECTED);
                }
            }
            // Read by [`accel`], likewise.
            "accel" => {
                if value.and_then(Accel::by_name).is_none() {
                    bad(ACCEL_EXPECTED);
                }
            }
            // Read by [`console_fb`] and [`hold`], before the start record.
            "console" => {
                if value != Some("fb") {
                    bad(CONSOLE_EXPECTED);
                }
            }
            "hold" => {
                if value.and_then(parse_hold).is_none() {
                    bad(HOLD_EXPECTED);
                }
            }
            _ => note(Note::UnknownKey(key)),
        }
    }
    if options.quick && !kernels_given {
        options.kernels = QUICK_KERNELS;
    }
    options
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_bad_selftest_message_names_every_selftest() {
        for (name, t) in SELFTESTS {
            assert!(SELFTEST_NAMES.contains(name), "{name}");
            assert_eq!(t.name(), name);
        }
    }
    extern crate std;
    use super::*;
    use std::vec::Vec;

    fn run(cmdline: &str) -> (Options, Vec<Note<'_>>) {
        let mut notes = Vec::new();
        let options = parse(cmdline, |n| notes.push(n));
        (options, notes)
    }

    #[test]
    fn tokenizing_with_quotes_and_odd_white_space() {
        let t: Vec<_> = tokens("  a b=\"c d\"\t\te=\"\" \n f").collect();
        assert_eq!(t, ["a", "b=\"c d\"", "e=\"\"", "f"]);
        assert_eq!(split_key_value("b=\"c d\""), ("b", Some("c d")));
        assert_eq!(split_key_value("x=y=z"), ("x", Some("y=z")));
        assert_eq!(split_key_value("x"), ("x", None));
        assert_eq!(tokens("").count(), 0);
        // An unterminated quote runs to the end of the line.
        assert_eq!(tokens("a=\"b c").collect::<Vec<_>>(), ["a=\"b c"]);
    }

    #[test]
    fn known_options() {
        let (o, n) = run("mairbench.quick mairbench.selftest=fault");
        assert_eq!(
            o,
            Options {
                quick: true,
                selftest: Some(Selftest::Fault),
                kernels: QUICK_KERNELS,
                ..Options::default()
            }
        );
        assert!(n.is_empty());
        let (o, n) = run("mairbench.buffer=8M mairbench.types=normal-wb,device-gre mairbench.device-faults mairbench.selftest=bad-attr");
        assert!(n.is_empty(), "{n:?}");
        assert_eq!(o.buffer, Some(8 << 20));
        assert_eq!(o.types, 0b1000_0001);
        assert!(o.device_faults);
        assert_eq!(o.selftest, Some(Selftest::BadAttr));
        assert_eq!(Options::default().types, 0xff);
        assert!(!run("mairbench.quick=off").0.quick);
        assert_eq!(
            run("mairbench.selftest=panic").0.selftest,
            Some(Selftest::Panic)
        );
    }

    #[test]
    fn console_and_hold() {
        assert!(console_fb("a mairbench.console=fb b"));
        assert!(!console_fb("mairbench.console=uart mairbench.consolefb"));
        assert_eq!(hold("mairbench.hold=5 mairbench.hold=x"), Some(5));
        assert_eq!(hold("mairbench.hold=3601"), None);
        assert_eq!(hold(""), None);
        let (_, n) = run("mairbench.console=tv mairbench.hold=-1 mairbench.console=fb");
        assert_eq!(n.len(), 2, "{n:?}");
        assert!(
            n.iter().all(|n| matches!(n, Note::BadValue { .. })),
            "{n:?}"
        );
    }

    #[test]
    fn every_key_is_read() {
        for key in KEYS {
            let (_, n) = run(key);
            assert!(
                !n.iter().any(|n| matches!(n, Note::UnknownKey(_))),
                "{key}: {n:?}"
            );
        }
    }

    #[test]
    fn a_key_one_edit_away_is_suggested() {
        for (typed, meant) in [
            ("mairbench.quik", "mairbench.quick"),
            ("mairbench.quickk", "mairbench.quick"),
            ("mairbench.qiuck", "mairbench.quick"),
            ("mairbench.qwick", "mairbench.quick"),
            ("mairbench.kernel", "mairbench.kernels"),
            ("mairbench.type", "mairbench.types"),
            ("mairbench.device-fault", "mairbench.device-faults"),
            ("mairbench.rep", "mairbench.reps"),
            ("mairbench.hots", "mairbench.host"),
            ("mairbench.selftset", "mairbench.selftest"),
        ] {
            assert_eq!(suggestion(typed), Some(meant), "{typed}");
        }
        // Two edits, a known key itself, another prefix, nothing: no guess.
        for typed in [
            "mairbench.qk",
            "mairbench.bogus",
            "mairbench.quick",
            "mairbench.",
            "quik",
            "mairbench.kernelsxx",
            "mairbench.\u{e9}quick",
        ] {
            assert_eq!(suggestion(typed), None, "{typed}");
        }
        let (o, n) = run("mairbench.quik");
        assert_eq!(o, Options::default(), "an unknown key changes nothing");
        assert_eq!(
            std::format!("{}", n[0]),
            "unknown option 'mairbench.quik' ignored; did you mean 'mairbench.quick'?"
        );
    }

    #[test]
    fn unknown_bad_and_foreign_tokens_are_reported_and_ignored() {
        let (o, n) = run("console=ttyAMA0 mairbench.bogus=1 mairbench.quick=maybe");
        assert_eq!(o, Options::default());
        assert_eq!(
            n,
            [
                Note::Foreign("console=ttyAMA0"),
                Note::UnknownKey("mairbench.bogus"),
                Note::BadValue {
                    key: "mairbench.quick",
                    value: "maybe",
                    expected: "nothing, 1/0, on/off, yes/no or true/false"
                },
            ]
        );
        assert_eq!(n.iter().filter(|n| n.is_warning()).count(), 2);
        assert_eq!(
            std::format!("{}", n[1]),
            "unknown option 'mairbench.bogus' ignored"
        );
    }

    #[test]
    fn bad_sizes_and_types_keep_the_defaults() {
        let (o, n) =
            run("mairbench.buffer=lots mairbench.buffer mairbench.types=bogus mairbench.types=");
        assert_eq!(o, Options::default());
        assert_eq!(n.len(), 4);
        assert!(n.iter().all(Note::is_warning));
        assert_eq!(parse_types("normal-wb,bogus"), Err("bogus"));
        assert_eq!(parse_types(""), Err(""));
    }

    #[test]
    fn a_typo_in_a_list_leaves_out_that_entry_only_and_names_it() {
        let (o, n) = run(
            "mairbench.types=normal-wb,normal-wbb,device-gre mairbench.kernels=latency,raed-ldp,",
        );
        assert_eq!(o.types, 0b1000_0001);
        assert_eq!(o.kernels, kernel::Kernel::Latency.bit());
        assert_eq!(
            n,
            [
                Note::BadEntry {
                    key: "mairbench.types",
                    entry: "normal-wbb",
                    expected: TYPES_EXPECTED
                },
                Note::BadEntry {
                    key: "mairbench.kernels",
                    entry: "raed-ldp",
                    expected: KERNELS_EXPECTED
                },
                Note::BadEntry {
                    key: "mairbench.kernels",
                    entry: "",
                    expected: KERNELS_EXPECTED
                },
            ]
        );
        assert!(n.iter().all(Note::is_warning));
        assert_eq!(
            std::format!("{}", n[0]),
            "option 'mairbench.types': unknown entry 'normal-wbb' left out (expected \
             memory-type names separated by commas, e.g. normal-wb,device-ngnre); the rest of \
             the list kept"
        );
    }

    #[test]
    fn repeated_key_takes_the_last_value() {
        assert!(!run("mairbench.quick mairbench.quick=0").0.quick);
        assert_eq!(
            run("mairbench.selftest=fault mairbench.selftest=none")
                .0
                .selftest,
            None
        );
    }

    #[test]
    fn kernels_sizes_and_reps() {
        let (o, n) =
            run("mairbench.kernels=read-ldp,latency mairbench.sizes=4K-16M mairbench.reps=5");
        assert!(n.is_empty(), "{n:?}");
        assert_eq!(
            o.kernels,
            kernel::Kernel::ReadLdp.bit() | kernel::Kernel::Latency.bit()
        );
        let (nt, nt_notes) = run("mairbench.kernels=latency,read-ldnp,write-stnp");
        assert!(nt_notes.is_empty(), "{nt_notes:?}");
        let names: Vec<_> = kernel::selected(nt.kernels).map(|k| k.name).collect();
        assert_eq!(names, ["read-ldnp", "write-stnp", "latency"]);
        assert_eq!(o.sizes, Some((4 << 10, 16 << 20)));
        assert_eq!(o.reps, Some(5));
        assert_eq!(run("mairbench.sizes=1M").0.sizes, Some((1 << 20, 1 << 20)));
        assert_eq!(
            run("mairbench.sizes=\"8K-1G\"").0.sizes,
            Some((8 << 10, 1 << 30))
        );
        assert_eq!(run("mairbench.reps=1").0.reps, Some(1));
        assert_eq!(run("mairbench.reps=064").0.reps, Some(64));
        assert_eq!(MAX_REPS, 64);
        let all: Vec<_> = kernel::KERNELS.iter().map(|k| k.name).collect();
        let list = std::format!("mairbench.kernels={}", all.join(","));
        assert_eq!(run(&list), (Options::default(), Vec::new()));
        let d = Options::default();
        assert_eq!((d.kernels, d.sizes, d.reps), (ALL_KERNELS, None, None));
    }

    #[test]
    fn quick_selects_the_quick_kernels_unless_kernels_are_given() {
        assert_eq!(run("mairbench.quick").0.kernels, QUICK_KERNELS);
        assert_eq!(run("mairbench.quick=1").0.kernels, QUICK_KERNELS);
        assert_eq!(run("mairbench.quick=off").0.kernels, ALL_KERNELS);
        assert_eq!(
            run("mairbench.quick mairbench.quick=0").0.kernels,
            ALL_KERNELS
        );
        let latency = kernel::Kernel::Latency.bit();
        // In either order.
        assert_eq!(
            run("mairbench.quick mairbench.kernels=latency").0.kernels,
            latency
        );
        assert_eq!(
            run("mairbench.kernels=latency mairbench.quick").0.kernels,
            latency
        );
        // A bad list is not a list: quick still decides.
        let (o, n) = run("mairbench.kernels=bogus mairbench.quick");
        assert_eq!((o.kernels, n.len()), (QUICK_KERNELS, 1));
        // Without quick, given kernels stay.
        assert_eq!(
            run("mairbench.kernels=fill-zva").0.kernels,
            kernel::Kernel::FillZva.bit()
        );
    }

    #[test]
    fn bad_kernels_sizes_and_reps_keep_the_defaults() {
        let bad = [
            ("mairbench.kernels", "bogus,,"),
            ("mairbench.kernels", ""),
            ("mairbench.kernels", ","),
            ("mairbench.kernels", "READ-LDP"),
            ("mairbench.sizes", "16M-4K"),
            ("mairbench.sizes", "2K"),
            ("mairbench.sizes", "6K-8K"),
            ("mairbench.sizes", "4K-"),
            ("mairbench.sizes", "lots"),
            ("mairbench.reps", "0"),
            ("mairbench.reps", "65"),
            ("mairbench.reps", "-1"),
            ("mairbench.reps", "+5"),
            ("mairbench.reps", "5x"),
            ("mairbench.reps", " 5"),
            ("mairbench.reps", "99999999999999999999999999"),
            ("mairbench.reps", ""),
        ];
        for (key, value) in bad {
            let line = std::format!("{key}=\"{value}\"");
            let (o, n) = run(&line);
            assert_eq!(o, Options::default(), "{line}");
            assert_eq!(n.len(), 1, "{line}");
            let Note::BadValue {
                key: k,
                value: v,
                expected,
            } = n[0]
            else {
                panic!("{line}: {:?}", n[0]);
            };
            assert_eq!((k, v), (key, value));
            assert!(n[0].is_warning());
            assert!(!expected.is_empty());
        }
        // Keys without a value.
        let (o, n) = run("mairbench.kernels mairbench.sizes mairbench.reps");
        assert_eq!((o, n.len()), (Options::default(), 3));
        assert!(n
            .iter()
            .all(|n| matches!(n, Note::BadValue { value: "", .. })));
        // A bad value after a good one keeps the good one.
        let (o, n) =
            run("mairbench.reps=3 mairbench.reps=100 mairbench.sizes=1M mairbench.sizes=1");
        assert_eq!(
            (o.reps, o.sizes, n.len()),
            (Some(3), Some((1 << 20, 1 << 20)), 2)
        );
        // The last good value wins.
        let o = run(
            "mairbench.kernels=latency mairbench.kernels=copy-to mairbench.reps=2 mairbench.reps=7",
        )
        .0;
        assert_eq!((o.kernels, o.reps), (kernel::Kernel::CopyTo.bit(), Some(7)));
    }

    #[test]
    fn expected_texts_name_what_is_accepted() {
        let all: Vec<_> = kernel::KERNELS.iter().map(|k| k.name).collect();
        assert_eq!(
            KERNELS_EXPECTED
                .strip_prefix("some of ")
                .and_then(|s| s.strip_suffix(", separated by commas")),
            Some(all.join(",").as_str())
        );
        assert!(REPS_EXPECTED.ends_with(&std::format!("1 to {MAX_REPS}")));
        let (_, n) = run("mairbench.reps=0");
        assert_eq!(
            std::format!("{}", n[0]),
            "option 'mairbench.reps': bad value '0' (expected a whole number from 1 to 64); \
             default kept"
        );
    }

    #[test]
    fn hostile_kernel_sizes_and_reps_values() {
        // A very long list with one bad entry: that one named, the rest kept.
        let long = std::format!("mairbench.kernels={}bogus", "read-ldp,".repeat(50_000));
        let (o, n) = run(&long);
        assert_eq!((o.kernels, n.len()), (kernel::Kernel::ReadLdp.bit(), 1));
        // A very long list of nothing known: one note, the default kept.
        let long = std::format!("mairbench.kernels={}", "bogus,".repeat(50_000));
        let (o, n) = run(&long);
        assert_eq!((o.kernels, n.len()), (ALL_KERNELS, 1));
        // A very long good list is fine.
        let long = std::format!("mairbench.kernels={}latency", "copy-from,".repeat(50_000));
        let (o, n) = run(&long);
        assert!(n.is_empty());
        assert_eq!(
            o.kernels,
            kernel::Kernel::CopyFrom.bit() | kernel::Kernel::Latency.bit()
        );
        // Many repeated keys.
        let many = "mairbench.reps=9 mairbench.sizes=4K ".repeat(10_000);
        let (o, n) = run(&many);
        assert!(n.is_empty());
        assert_eq!((o.reps, o.sizes), (Some(9), Some((4096, 4096))));
        // Garbage from decoding random bytes, in every value.
        let bytes: Vec<u8> = (0..=255u8).rev().cycle().take(2048).collect();
        let lossy = std::string::String::from_utf8_lossy(&bytes);
        for key in ["kernels", "sizes", "reps"] {
            let line = std::format!("mairbench.{key}={lossy}");
            let (o, n) = run(&line);
            assert_eq!(o, Options::default());
            assert!(
                n.iter().all(Note::is_warning) || n.iter().any(|n| matches!(n, Note::Foreign(_)))
            );
            let line = std::format!("mairbench.{key}=\"{lossy}\"");
            let _ = run(&line);
        }
        for odd in [
            "mairbench.kernels=\u{0}",
            "mairbench.sizes=\u{feff}4K",
            "mairbench.reps=\u{661}",
        ] {
            let (o, n) = run(odd);
            assert_eq!((o, n.len()), (Options::default(), 1), "{odd:?}");
        }
    }

    #[test]
    fn host_names_the_emulator_and_is_no_warning() {
        let (o, n) = run("mairbench.quick mairbench.host=qemu-10.0.2");
        assert!(n.is_empty(), "{n:?}");
        assert!(o.quick);
        assert_eq!(
            host("mairbench.quick mairbench.host=qemu-10.0.2"),
            Some("qemu-10.0.2")
        );
        assert_eq!(
            host("mairbench.host=\"qemu-7.2.0+dfsg\""),
            Some("qemu-7.2.0+dfsg")
        );
        assert_eq!(host("mairbench.quick"), None);
        assert_eq!(host(""), None);
        // Only the exact key.
        assert_eq!(
            host("mairbench.hostname=qemu foo.mairbench.host=qemu"),
            None
        );
        // The last good value wins; a bad one keeps the one before.
        assert_eq!(
            host("mairbench.host=qemu-7.2 mairbench.host=qemu-10.0.2 mairbench.host=a/b"),
            Some("qemu-10.0.2")
        );
        assert_eq!(
            host(&std::format!("mairbench.host={}", "q".repeat(32))).map(str::len),
            Some(32)
        );
    }

    #[test]
    fn accel_names_tcg_or_kvm() {
        let (o, n) = run("mairbench.host=qemu-10.0.2 mairbench.accel=kvm");
        assert!(n.is_empty(), "{n:?}");
        assert_eq!(o, Options::default());
        assert_eq!(accel("mairbench.accel=tcg"), Some(Accel::Tcg));
        assert_eq!(accel("mairbench.accel=\"kvm\""), Some(Accel::Kvm));
        // The last good value wins; a bad one is a warning and keeps the one before.
        assert_eq!(
            accel("mairbench.accel=kvm mairbench.accel=tcg mairbench.accel=hvf"),
            Some(Accel::Tcg)
        );
        assert_eq!(accel("mairbench.quick"), None);
        for bad in [
            "mairbench.accel=hvf",
            "mairbench.accel",
            "mairbench.accel=KVM",
        ] {
            assert_eq!(accel(bad), None, "{bad}");
            let (_, n) = run(bad);
            assert!(
                matches!(n[..], [Note::BadValue { key: "mairbench.accel", expected, .. }] if expected == ACCEL_EXPECTED),
                "{bad}: {n:?}"
            );
        }
        assert_eq!(suggestion("mairbench.acel"), Some("mairbench.accel"));
    }

    #[test]
    fn bad_hosts_are_warnings_and_no_host() {
        let long = "q".repeat(33);
        for bad in [
            "",
            "qemu 10",
            "qemu/10",
            "qemu\u{e9}",
            long.as_str(),
            "a\"b",
        ] {
            let line = std::format!("mairbench.host=\"{bad}\"");
            assert_eq!(host(&line), None, "{line}");
            let (o, n) = run(&line);
            assert_eq!(o, Options::default(), "{line}");
            assert_eq!(n.len(), 1, "{line}: {n:?}");
            assert!(
                matches!(n[0], Note::BadValue { key: "mairbench.host", expected, .. } if expected == HOST_EXPECTED),
                "{line}: {n:?}"
            );
            assert!(n[0].is_warning());
        }
        // Without a value.
        assert_eq!(host("mairbench.host"), None);
        assert_eq!(run("mairbench.host").1.len(), 1);
        assert!(HOST_EXPECTED.contains(&std::format!("at most {MAX_HOST_LEN}")));
    }

    #[test]
    fn hugepages_takes_auto_on_or_off_and_keeps_the_default_otherwise() {
        assert_eq!(Options::default().hugepages, Hugepages::Auto);
        for (value, h) in [
            ("auto", Hugepages::Auto),
            ("on", Hugepages::On),
            ("off", Hugepages::Off),
        ] {
            let line = std::format!("mairbench.hugepages={value}");
            let (o, n) = run(&line);
            assert!(n.is_empty(), "{line}: {n:?}");
            assert_eq!(o.hugepages, h);
            assert_eq!(h.name(), value);
        }
        // The last good value wins; a bad one is a warning and keeps the one before.
        let (o, n) = run("mairbench.hugepages=off mairbench.hugepages=yes");
        assert_eq!(o.hugepages, Hugepages::Off);
        assert_eq!(
            std::format!("{}", n[0]),
            "option 'mairbench.hugepages': bad value 'yes' (expected auto, on or off); \
             default kept"
        );
        for bad in ["", "ON", "2M", "always", "on,off"] {
            let line = std::format!("mairbench.hugepages=\"{bad}\"");
            let (o, n) = run(&line);
            assert_eq!(o, Options::default(), "{line}");
            assert!(
                matches!(n[..], [Note::BadValue { key: "mairbench.hugepages", value, .. }] if value == bad),
                "{line}: {n:?}"
            );
            assert!(n[0].is_warning());
        }
        // Without a value.
        let (o, n) = run("mairbench.hugepages");
        assert_eq!((o.hugepages, n.len()), (Hugepages::Auto, 1));
        assert_eq!(
            suggestion("mairbench.hugepage"),
            Some("mairbench.hugepages")
        );
    }

    #[test]
    fn hostile_input_never_panics() {
        let long = "mairbench.quick=".repeat(10_000);
        let (_, n) = run(&long);
        assert_eq!(n.len(), 1);
        let odd = "mairbench.\u{0}=\u{feff} = == mairbench.=x é=ü mairbench.selftest";
        let (o, n) = run(odd);
        assert_eq!(o, Options::default());
        assert_eq!(n.len(), 6);
        assert_eq!(n[3], Note::UnknownKey("mairbench."));
        // Quotes that never close swallow the rest of the line into one token.
        assert_eq!(
            run("\"\"\" mairbench.quick").1,
            [Note::Foreign("\"\"\" mairbench.quick")]
        );
        let bytes: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
        let lossy = std::string::String::from_utf8_lossy(&bytes);
        let _ = run(&lossy);
    }
}
