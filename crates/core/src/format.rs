//! Number formatting for the human-readable report.

use core::fmt;

/// A size in bytes, printed in the largest binary unit that divides it exactly
/// (`4 KiB`, `32 MiB`, `1 GiB`), else in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bytes(pub u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [(&str, u32); 4] = [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)];
        let n = self.0;
        let text = UNITS
            .iter()
            .find(|&&(_, shift)| n != 0 && n.trailing_zeros() >= shift)
            .map(|&(unit, shift)| (n.checked_shr(shift).unwrap_or(0), unit))
            .unwrap_or((n, "B"));
        // Through `pad` so that width and alignment apply to the whole text.
        let mut buf = [0u8; 32];
        let mut w = Cursor {
            buf: &mut buf,
            len: 0,
        };
        fmt::write(&mut w, format_args!("{} {}", text.0, text.1))?;
        let len = w.len;
        let text = buf.get(..len).ok_or(fmt::Error)?;
        f.pad(core::str::from_utf8(text).map_err(|_| fmt::Error)?)
    }
}

struct Cursor<'a> {
    buf: &'a mut [u8],
    len: usize,
}

impl fmt::Write for Cursor<'_> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len.checked_add(s.len()).ok_or(fmt::Error)?;
        self.buf
            .get_mut(self.len..end)
            .ok_or(fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::Bytes;
    use std::format;

    #[test]
    fn exact_binary_units() {
        assert_eq!(format!("{}", Bytes(0)), "0 B");
        assert_eq!(format!("{}", Bytes(4096)), "4 KiB");
        assert_eq!(format!("{}", Bytes(32 << 20)), "32 MiB");
        assert_eq!(format!("{}", Bytes(3 << 30)), "3 GiB");
        assert_eq!(format!("{}", Bytes(1536)), "1536 B");
        assert_eq!(format!("{}", Bytes(u64::MAX)), "18446744073709551615 B");
        assert_eq!(format!("[{:>8}]", Bytes(2 << 20)), "[   2 MiB]");
        assert_eq!(format!("[{:<7}]", Bytes(1024)), "[1 KiB  ]");
    }
}
