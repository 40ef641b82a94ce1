//! Text split at an ASCII character without `str`'s searchers: `split` and `split_once` on a
//! `char` carry a bounds check that can panic (and with it a panic path, location and message
//! in the firmware); these cannot panic. `sep` must be ASCII.

/// `s` split around its first `sep`, as `str::split_once(sep)` does.
pub fn split_once(s: &str, sep: u8) -> Option<(&str, &str)> {
    let at = s.bytes().position(|b| b == sep)?;
    Some((s.get(..at)?, s.get(at.checked_add(1)?..)?))
}

/// The parts of `s` between its `sep`s, as `str::split(sep)` gives them (empty parts
/// included).
pub fn split(s: &str, sep: u8) -> impl Iterator<Item = &str> + Clone {
    let mut rest = Some(s);
    core::iter::from_fn(move || {
        let s = rest?;
        let (part, tail) = match split_once(s, sep) {
            Some((part, tail)) => (part, Some(tail)),
            None => (s, None),
        };
        rest = tail;
        Some(part)
    })
}

#[cfg(test)]
mod tests {
    extern crate std;

    use super::*;
    use std::vec::Vec;

    #[test]
    fn as_str_splits() {
        for s in ["", ",", "a", "a,b", ",a,,b,", "é,ü", "key=value=more"] {
            for sep in [b',', b'='] {
                let c = char::from(sep);
                assert_eq!(split_once(s, sep), s.split_once(c), "{s:?}");
                let ours: Vec<&str> = split(s, sep).collect();
                let theirs: Vec<&str> = s.split(c).collect();
                assert_eq!(ours, theirs, "{s:?}");
            }
        }
    }
}
