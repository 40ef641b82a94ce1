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

/// A size in bytes in the short form of chart axes: the largest of `G`, `M`, `K` (binary
/// units) not above it, with one decimal when it is not a whole number of them (`4K`, `32M`,
/// `1.5M`, `1G`), else plain bytes (`512`). The decimal is rounded half to even.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShortBytes(pub u64);

impl fmt::Display for ShortBytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [(&str, u32); 3] = [("G", 30), ("M", 20), ("K", 10)];
        let n = self.0;
        let Some(&(suffix, shift)) = UNITS.iter().find(|&&(_, shift)| n >> shift != 0) else {
            return write!(f, "{n}");
        };
        // Tenths of the unit, in u128 so that ten times any u64 fits.
        let scale = 1u128 << shift;
        let ten = u128::from(n).saturating_mul(10);
        let (q, r) = (ten >> shift, ten & scale.wrapping_sub(1));
        let twice = r.saturating_mul(2);
        let up = twice > scale || (twice == scale && q % 2 == 1);
        let tenths = q.saturating_add(u128::from(up));
        match (tenths / 10, tenths % 10) {
            (int, 0) => write!(f, "{int}{suffix}"),
            (int, frac) => write!(f, "{int}.{frac}{suffix}"),
        }
    }
}

/// A fixed-point number: `scaled / 10^places`, printed with exactly `places` decimals
/// (`Decimal { scaled: 123, places: 1 }` is `12.3`, `Decimal { scaled: 5, places: 2 }` is
/// `0.05`, `places: 0` prints no point). Integer arithmetic only: no floating-point
/// formatting code in the image. Width, fill, alignment and `0` padding apply as for an
/// integer (right-aligned by default).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decimal {
    /// The value times `10^places`.
    pub scaled: u64,
    /// Digits after the decimal point.
    pub places: u8,
}

impl Decimal {
    /// Writes the number with no padding (what JSON and plain `{}` want).
    // A `dyn` writer, not a generic one: one copy in the firmware for the record, the
    // formatter and the cursor.
    pub fn write_plain(&self, w: &mut dyn fmt::Write) -> fmt::Result {
        let places = usize::from(self.places);
        // 10^places fits in a u64 up to 19 places; beyond, every u64 is below 1.
        let (int, frac) = match 10u64.checked_pow(self.places.into()) {
            Some(unit) => (
                self.scaled.checked_div(unit).unwrap_or(0),
                self.scaled.checked_rem(unit).unwrap_or(0),
            ),
            None => (0, self.scaled),
        };
        if places == 0 {
            write!(w, "{int}")
        } else {
            write!(w, "{int}.{frac:0places$}")
        }
    }
}

impl fmt::Display for Decimal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if f.width().is_none() && !f.sign_plus() {
            return self.write_plain(f);
        }
        // 20 integer digits, the point and up to 43 decimals fit; longer ones (absurd
        // `places`) are written unpadded rather than not at all.
        let mut buf = [0u8; 64];
        let mut w = Cursor {
            buf: &mut buf,
            len: 0,
        };
        if self.write_plain(&mut w).is_err() {
            return self.write_plain(f);
        }
        let len = w.len;
        let text = buf.get(..len).ok_or(fmt::Error)?;
        f.pad_integral(
            true,
            "",
            core::str::from_utf8(text).map_err(|_| fmt::Error)?,
        )
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
    use super::{Bytes, Decimal, ShortBytes};
    use std::format;
    use std::string::ToString;

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

    #[test]
    fn short_sizes() {
        let s = |n: u64| format!("{}", ShortBytes(n));
        assert_eq!(s(0), "0");
        assert_eq!(s(512), "512");
        assert_eq!(s(1023), "1023");
        assert_eq!(s(4096), "4K");
        assert_eq!(s(48 << 10), "48K");
        assert_eq!(s(32 << 20), "32M");
        assert_eq!(s(3 << 19), "1.5M");
        assert_eq!(s(1 << 30), "1G");
        assert_eq!(s(1536), "1.5K");
        // Ties go to the even tenth, as floating-point `{:.1}` does; 1023.96K is 1024K.
        assert_eq!(s(1_310_720), "1.2M");
        assert_eq!(s(2_621_440), "2.5M");
        assert_eq!(s(1_127_218), "1.1M");
        assert_eq!(s(1_048_535), "1024K");
        assert_eq!(s(u64::MAX), "17179869184G");
        for n in (0..40)
            .map(|i| 1u64 << i)
            .chain([3000, 100_000, 7 << 25, 123_456_789])
        {
            let shift = [30, 20, 10].into_iter().find(|&s| n >> s != 0);
            let float = match shift {
                None => n.to_string(),
                Some(s) => {
                    let v = format!("{:.1}", n as f64 / (1u64 << s) as f64);
                    let suffix = match s {
                        30 => "G",
                        20 => "M",
                        _ => "K",
                    };
                    format!("{}{suffix}", v.trim_end_matches(".0"))
                }
            };
            assert_eq!(s(n), float, "{n}");
        }
    }

    fn d(scaled: u64, places: u8) -> Decimal {
        Decimal { scaled, places }
    }

    #[test]
    fn fixed_point_decimals() {
        assert_eq!(format!("{}", d(123, 1)), "12.3");
        assert_eq!(format!("{}", d(5, 2)), "0.05");
        assert_eq!(format!("{}", d(0, 2)), "0.00");
        assert_eq!(format!("{}", d(1049, 0)), "1049");
        assert_eq!(format!("{}", d(100, 2)), "1.00");
        assert_eq!(format!("{}", d(1_000_000_001, 9)), "1.000000001");
        assert_eq!(format!("{}", d(u64::MAX, 0)), "18446744073709551615");
        assert_eq!(format!("{}", d(u64::MAX, 9)), "18446744073.709551615");
        assert_eq!(format!("{}", d(u64::MAX, 19)), "1.8446744073709551615");
        assert_eq!(format!("{}", d(u64::MAX, 20)), "0.18446744073709551615");
        assert_eq!(format!("{}", d(7, 21)), "0.000000000000000000007");
        let tiny = format!("{}", d(1, 255));
        assert_eq!(tiny.len(), 257);
        assert!(tiny.starts_with("0.000") && tiny.ends_with("01"));
    }

    #[test]
    fn decimals_pad_like_integers() {
        assert_eq!(format!("[{:>8}]", d(123, 1)), "[    12.3]");
        assert_eq!(format!("[{:8}]", d(123, 1)), "[    12.3]");
        assert_eq!(format!("[{:<8}]", d(123, 1)), "[12.3    ]");
        assert_eq!(format!("[{:^8}]", d(5, 2)), "[  0.05  ]");
        assert_eq!(format!("[{:08}]", d(123, 1)), "[000012.3]");
        assert_eq!(format!("[{:*>6}]", d(5, 2)), "[**0.05]");
        assert_eq!(format!("[{:+}]", d(5, 2)), "[+0.05]");
        assert_eq!(format!("[{:2}]", d(12345, 2)), "[123.45]");
        // Too long for the padding buffer: still written, unpadded.
        assert_eq!(format!("{:>3}", d(1, 80)).len(), 82);
    }
}
