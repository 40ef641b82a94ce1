//! A cell of a human table, or an optional part of a line: a value, or `-` where there is
//! none, padded alike.

use core::fmt;

/// An optional value as it is, or `-`, with the width and alignment the format asks for
/// either way.
pub struct Or<T>(pub Option<T>);

impl<T: fmt::Display> fmt::Display for Or<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(v) => v.fmt(f),
            None => f.pad("-"),
        }
    }
}

impl<T: fmt::LowerHex> fmt::LowerHex for Or<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.0 {
            Some(v) => v.fmt(f),
            None => f.pad("-"),
        }
    }
}
