//! The kernel command line (`/chosen/bootargs`): tokens separated by white space, each
//! `key` or `key=value`; a value may be double-quoted to hold spaces. Keys of mairbench start
//! with `mairbench.`; everything else belongs to someone else and is reported, not used.
//!
//! Parsing never fails: a bad token produces a [`Note`] and the default stays in force.

use crate::memtype::{self, MEMTYPES};
use crate::placement;

/// Deliberate failures the firmware can be asked to provoke, to test its own error paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selftest {
    /// Take an unexpected synchronous exception (an undefined instruction).
    Fault,
    /// Panic in Rust code.
    Panic,
    /// Stop making progress (the runner's timeout must end the run).
    Hang,
    /// Map the `normal-nc` alias with the Device-nGnRnE AttrIndx: the mapping proof must
    /// catch it and fail the run.
    BadAttr,
}

/// Options of one run, as set by the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Options {
    /// `mairbench.quick`: a small subset of the measurements, for a first look.
    pub quick: bool,
    /// `mairbench.selftest=fault|panic|hang|bad-attr`.
    pub selftest: Option<Selftest>,
    /// `mairbench.buffer=32M`: size of the test buffer (`None`: the default).
    pub buffer: Option<u64>,
    /// `mairbench.types=normal-wb,device-ngnre,…`: memory types the measurements use, as a
    /// mask of MAIR indices (bit i = index i of `memtype::MEMTYPES`).
    pub types: u8,
    /// `mairbench.device-faults`: try the accesses real cores fault on for Device memory
    /// (unaligned, DC ZVA).
    pub device_faults: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            quick: false,
            selftest: None,
            buffer: None,
            types: ALL_TYPES,
            device_faults: false,
        }
    }
}

/// Every memory type of the table.
pub const ALL_TYPES: u8 = ((1u16 << MEMTYPES.len()) - 1) as u8;

/// Parses a comma-separated list of memory-type names into a mask; the first unknown name is
/// the error.
pub fn parse_types(list: &str) -> Result<u8, &str> {
    let mut mask = 0u8;
    for name in list.split(',') {
        let t = memtype::by_name(name).ok_or(name)?;
        mask |= 1 << t.index;
    }
    Ok(mask)
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
            Note::UnknownKey(k) => write!(f, "unknown option '{k}' ignored"),
            Note::BadValue {
                key,
                value,
                expected,
            } => write!(
                f,
                "option '{key}': bad value '{value}' (expected {expected}); default kept"
            ),
            Note::Foreign(t) => write!(f, "'{t}' is not a mairbench option; ignored"),
        }
    }
}

/// Splits a command line into tokens: runs of non-white-space, where a double-quoted part
/// may contain white space (the quotes stay in the token; see [`split_key_value`]).
pub fn tokens(cmdline: &str) -> impl Iterator<Item = &str> {
    let mut rest = cmdline;
    core::iter::from_fn(move || {
        rest = rest.trim_start();
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
                c.is_whitespace() && !quoted
            })
            .map_or(rest.len(), |(i, _)| i);
        let (token, tail) = rest.split_at_checked(end)?;
        rest = tail;
        Some(token)
    })
}

/// Splits `key=value` (value without surrounding quotes); `key` alone gives `None`.
pub fn split_key_value(token: &str) -> (&str, Option<&str>) {
    match token.split_once('=') {
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

fn flag(value: Option<&str>) -> Option<bool> {
    match value {
        None | Some("1" | "on" | "yes" | "true") => Some(true),
        Some("0" | "off" | "no" | "false") => Some(false),
        Some(_) => None,
    }
}

/// Parses the command line; every token that is not used is reported through `note`.
/// A key given twice takes its last value.
pub fn parse<'a>(cmdline: &'a str, mut note: impl FnMut(Note<'a>)) -> Options {
    let mut options = Options::default();
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
                Some("fault") => options.selftest = Some(Selftest::Fault),
                Some("panic") => options.selftest = Some(Selftest::Panic),
                Some("hang") => options.selftest = Some(Selftest::Hang),
                Some("bad-attr") => options.selftest = Some(Selftest::BadAttr),
                Some("none") => options.selftest = None,
                _ => bad("fault, panic, hang, bad-attr or none"),
            },
            "buffer" => match value.and_then(placement::parse_size) {
                Some(size) => options.buffer = Some(size),
                None => bad("a size such as 32M, 512K or 1G"),
            },
            "types" => match value.map(parse_types) {
                Some(Ok(mask)) => options.types = mask,
                _ => bad("memory-type names separated by commas, e.g. normal-wb,device-ngnre"),
            },
            "device-faults" => match flag(value) {
                Some(on) => options.device_faults = on,
                None => bad("nothing, 1/0, on/off, yes/no or true/false"),
            },
            _ => note(Note::UnknownKey(key)),
        }
    }
    options
}

#[cfg(test)]
mod tests {
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
        let (o, n) = run("mairbench.buffer=lots mairbench.buffer mairbench.types=normal-wb,bogus mairbench.types=");
        assert_eq!(o, Options::default());
        assert_eq!(n.len(), 4);
        assert!(n.iter().all(Note::is_warning));
        assert_eq!(parse_types("normal-wb,bogus"), Err("bogus"));
        assert_eq!(parse_types(""), Err(""));
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
