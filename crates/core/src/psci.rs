//! PSCI return codes in words (Arm DEN 0022, "Arm Power State Coordination Interface",
//! section 5.2.2, "Return error codes"), for reports of a CPU that did not start: the
//! firmware's `cpu` record says `PSCI CPU_ON returned -2`, the host's report adds
//! `INVALID_PARAMETERS`. One table; the firmware does not link it (its console keeps the
//! number only).

use core::fmt;

/// The error codes PSCI functions return, by value: `SUCCESS` (0) is no error.
pub const ERRORS: [(i64, &str); 9] = [
    (-1, "NOT_SUPPORTED"),
    (-2, "INVALID_PARAMETERS"),
    (-3, "DENIED"),
    (-4, "ALREADY_ON"),
    (-5, "ON_PENDING"),
    (-6, "INTERNAL_FAILURE"),
    (-7, "NOT_PRESENT"),
    (-8, "DISABLED"),
    (-9, "INVALID_ADDRESS"),
];

/// The name of a PSCI return code (`"SUCCESS"` for 0), or `None` for a value PSCI does not
/// define.
pub fn name(code: i64) -> Option<&'static str> {
    if code == 0 {
        return Some("SUCCESS");
    }
    ERRORS.iter().find(|(c, _)| *c == code).map(|(_, n)| *n)
}

/// A PSCI return code as reports print it: the number, then its name where PSCI defines one
/// (`-2 INVALID_PARAMETERS`, `-12`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Return(pub i64);

impl fmt::Display for Return {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match name(self.0) {
            Some(n) => write!(f, "{} {n}", self.0),
            None => write!(f, "{}", self.0),
        }
    }
}

/// The return code a sentence ends with after `returned ` (the `cpu` record's `why`, e.g.
/// `"PSCI CPU_ON returned -2"`), if it does.
pub fn returned(why: &str) -> Option<i64> {
    let (_, tail) = why.rsplit_once("returned ")?;
    tail.trim_ascii().parse().ok()
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;

    #[test]
    fn codes_in_words() {
        assert_eq!(Return(-2).to_string(), "-2 INVALID_PARAMETERS");
        assert_eq!(Return(-4).to_string(), "-4 ALREADY_ON");
        assert_eq!(Return(-9).to_string(), "-9 INVALID_ADDRESS");
        assert_eq!(Return(0).to_string(), "0 SUCCESS");
        assert_eq!(Return(-12).to_string(), "-12");
        assert_eq!(name(1), None);
        // Every code once, in order -1, -2, ...
        for (i, (code, _)) in ERRORS.iter().enumerate() {
            assert_eq!(*code, -(i as i64) - 1);
        }
    }

    #[test]
    fn the_code_a_cpu_record_names() {
        assert_eq!(returned("PSCI CPU_ON returned -2"), Some(-2));
        assert_eq!(returned("PSCI CPU_ON returned -7 "), Some(-7));
        assert_eq!(returned("started but silent for 1000 ms"), None);
        assert_eq!(returned("PSCI CPU_ON returned nothing"), None);
    }
}
