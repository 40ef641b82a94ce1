//! The kernel command line (`/chosen/bootargs`): tokens separated by white space, each
//! `key` or `key=value`; a value may be double-quoted to hold spaces. Keys of mairbench start
//! with `mairbench.`; everything else belongs to someone else and is reported, not used.
//!
//! Parsing never fails: a bad token produces a [`Note`] and the default stays in force.

/// Deliberate failures the firmware can be asked to provoke, to test its own error paths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Selftest {
    /// Take an unexpected synchronous exception (an undefined instruction).
    Fault,
    /// Panic in Rust code.
    Panic,
    /// Stop making progress (the runner's timeout must end the run).
    Hang,
}

/// Options of one run, as set by the command line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `mairbench.quick`: a small subset of the measurements, for a first look.
    pub quick: bool,
    /// `mairbench.selftest=fault|panic|hang`.
    pub selftest: Option<Selftest>,
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
        let (token, tail) = rest.split_at(end);
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
                Some("none") => options.selftest = None,
                _ => bad("fault, panic, hang or none"),
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
                selftest: Some(Selftest::Fault)
            }
        );
        assert!(n.is_empty());
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
