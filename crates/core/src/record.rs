//! Machine records: one line each, the literal prefix `@mb ` and one JSON object with a
//! `kind` field. The host tool and the tests parse these; people read the other lines.
//!
//! ```
//! use mairbench_core::{record::Record, schema};
//! let mut line = String::new();
//! Record::new(&mut line, &schema::END).str("status", "pass").u64("checks", 3).finish().unwrap();
//! assert_eq!(line, "@mb {\"kind\":\"end\",\"status\":\"pass\",\"checks\":3}\n");
//! ```

use core::fmt::{self, Write};

use crate::format::Decimal;
use crate::kernel::Unit;
use crate::schema::Kind;
use crate::stats;

/// The prefix that starts every machine record line.
pub const PREFIX: &str = "@mb ";

/// Version of the record schema, carried by the `start` record (see [`crate::schema`] for
/// the rule that decides when it changes).
pub use crate::schema::VERSION as SCHEMA;

/// Builder for one record line. Fields appear in the order they are added; after a write
/// error nothing more is written, and [`Record::finish`] returns the error.
#[must_use = "a record is written only when finished"]
pub struct Record<'w, W: Write> {
    /// Where the line goes; `None` once a write failed. One word: each field's call passes
    /// and returns the record in one register.
    out: Option<&'w mut W>,
}

impl<'w, W: Write> Record<'w, W> {
    /// Starts a record of the given kind (one of [`crate::schema::KINDS`]).
    // Inlined so that only the kind's name reaches the firmware image, not its fields and
    // their documentation.
    #[inline(always)]
    pub fn new(out: &'w mut W, kind: &Kind) -> Self {
        Self::begin(out, kind.name)
    }

    /// The start of every record: the prefix and the `kind` field. One copy for all kinds
    /// ([`Record::new`] is inlined at each of them).
    #[inline(never)]
    fn begin(out: &'w mut W, kind: &str) -> Self {
        Record { out: Some(out) }.with(|w| {
            w.write_str(PREFIX)?;
            w.write_str("{\"kind\":")?;
            write_json_str(w, kind)
        })
    }

    fn with(self, f: impl FnOnce(&mut W) -> fmt::Result) -> Self {
        let out = self.out.and_then(|w| f(w).is_ok().then_some(w));
        Record { out }
    }

    fn key(self, key: &str) -> Self {
        self.with(|w| {
            w.write_char(',')?;
            write_json_str(w, key)?;
            w.write_char(':')
        })
    }

    /// Adds a string field (escaped as JSON).
    pub fn str(self, key: &str, value: &str) -> Self {
        self.key(key).with(|w| write_json_str(w, value))
    }

    /// Adds an unsigned integer field.
    pub fn u64(self, key: &str, value: u64) -> Self {
        self.key(key).with(|w| write!(w, "{value}"))
    }

    /// Adds a signed integer field.
    pub fn i64(self, key: &str, value: i64) -> Self {
        // The sign, then the magnitude as a u64: no second integer formatter in the image.
        self.key(key).with(|w| {
            if value < 0 {
                w.write_char('-')?;
            }
            write!(w, "{}", value.unsigned_abs())
        })
    }

    /// Adds a fixed-point number field: `scaled / 10^places` written as a JSON number with
    /// exactly `places` decimals, e.g. `decimal("cv_pct", 123, 1)` gives `"cv_pct":12.3` and
    /// `decimal("ns_per_load", 5, 2)` gives `"ns_per_load":0.05` (`places` 0: an integer).
    /// Integer arithmetic only; meant for `places` ≤ 9, correct for any.
    pub fn decimal(self, key: &str, scaled: u64, places: u8) -> Self {
        self.key(key)
            .with(|w| Decimal { scaled, places }.write_plain(w))
    }

    /// Adds a fixed-point number field as [`Record::decimal`] does, or `null` when absent.
    pub fn opt_decimal(self, key: &str, scaled: Option<u64>, places: u8) -> Self {
        match scaled {
            Some(v) => self.decimal(key, v, places),
            None => self.null(key),
        }
    }

    /// Adds a boolean field.
    pub fn bool(self, key: &str, value: bool) -> Self {
        self.key(key).with(|w| write!(w, "{value}"))
    }

    /// Adds a register-like value as a hexadecimal string, e.g. `"0x410fd083"`
    /// (JSON numbers lose precision above 2^53).
    pub fn hex(self, key: &str, value: u64) -> Self {
        self.key(key).with(|w| write!(w, "\"{value:#x}\""))
    }

    /// Adds a register-like value as a hexadecimal string of exactly `digits` digits (more
    /// if the value needs them), as the human lines print it: `"0x04"` for a MAIR byte,
    /// `"0x0c08040044bbccff"` for MAIR_EL1.
    pub fn hex_digits(self, key: &str, value: u64, digits: usize) -> Self {
        self.key(key).with(|w| write!(w, "\"0x{value:0digits$x}\""))
    }

    /// Adds a string field formatted from `args` (e.g. a panic message), escaped as JSON.
    pub fn fmt(self, key: &str, args: fmt::Arguments<'_>) -> Self {
        self.key(key).with(|w| {
            w.write_char('"')?;
            Escaped(w).write_fmt(args)?;
            w.write_char('"')
        })
    }

    /// Adds an array of strings.
    pub fn strs<'s>(self, key: &str, values: impl IntoIterator<Item = &'s str>) -> Self {
        self.key(key).with(|w| {
            w.write_char('[')?;
            for (i, v) in values.into_iter().enumerate() {
                if i > 0 {
                    w.write_char(',')?;
                }
                write_json_str(w, v)?;
            }
            w.write_char(']')
        })
    }

    /// Adds an object of fixed-point numbers (see [`Record::decimal`]): each item is a key,
    /// a scaled value and its number of decimals, e.g. `[("l1d_cache_refill", 100, 2)]`
    /// gives `{"l1d_cache_refill":1.00}`.
    pub fn decimals<'s>(
        self,
        key: &str,
        values: impl IntoIterator<Item = (&'s str, u64, u8)>,
    ) -> Self {
        self.key(key).with(|w| {
            w.write_char('{')?;
            for (i, (name, scaled, places)) in values.into_iter().enumerate() {
                if i > 0 {
                    w.write_char(',')?;
                }
                write_json_str(w, name)?;
                w.write_char(':')?;
                Decimal { scaled, places }.write_plain(w)?;
            }
            w.write_char('}')
        })
    }

    /// Adds a field whose value is `null`.
    pub fn null(self, key: &str) -> Self {
        self.key(key).with(|w| w.write_str("null"))
    }

    /// Adds an unsigned integer field, or `null` when absent.
    pub fn opt_u64(self, key: &str, value: Option<u64>) -> Self {
        match value {
            Some(v) => self.u64(key, v),
            None => self.null(key),
        }
    }

    /// Adds a `result`'s best and median values in `unit`'s fields (`best_mbps` and
    /// `median_mbps`, or `ns_per_load`/`ns_per_line` and their medians with two decimals),
    /// from the samples' ticks over `total` bytes, loads or lines; returns the record and
    /// the best value (MB/s, or hundredths of a ns), `None` when it cannot be taken.
    pub fn unit_values(
        self,
        unit: Unit,
        total: u64,
        best_ticks: u64,
        median_ticks: u64,
        freq_hz: u64,
    ) -> (Self, Option<u64>) {
        let best = stats::in_unit(unit, total, best_ticks, freq_hz);
        let median = stats::in_unit(unit, total, median_ticks, freq_hz);
        let rec = match unit {
            Unit::Bandwidth => self
                .opt_u64(unit.best_field(), best)
                .opt_u64(unit.median_field(), median),
            Unit::NsPerLoad | Unit::NsPerLine => self
                .decimal(unit.best_field(), best.unwrap_or(0), 2)
                .decimal(unit.median_field(), median.unwrap_or(0), 2),
        };
        (rec, best)
    }

    /// Adds `value`, in `unit`'s table form (MB/s, or hundredths of a ns), as the record
    /// writes its best field: a whole number of MB/s, or ns with two decimals.
    pub fn unit_value(self, unit: Unit, key: &str, value: u64) -> Self {
        match unit {
            Unit::Bandwidth => self.u64(key, value),
            Unit::NsPerLoad | Unit::NsPerLine => self.decimal(key, value, 2),
        }
    }

    /// Adds a string field, or `null` when absent.
    pub fn opt_str(self, key: &str, value: Option<&str>) -> Self {
        match value {
            Some(v) => self.str(key, v),
            None => self.null(key),
        }
    }

    /// Closes the object and ends the line.
    pub fn finish(self) -> fmt::Result {
        match self.with(|w| w.write_str("}\n")).out {
            Some(_) => Ok(()),
            None => Err(fmt::Error),
        }
    }
}

/// Writes `s` as a JSON string literal, quotes included.
pub fn write_json_str<W: Write + ?Sized>(w: &mut W, s: &str) -> fmt::Result {
    w.write_char('"')?;
    Escaped(w).write_str(s)?;
    w.write_char('"')
}

/// Escapes what passes through it as the inside of a JSON string.
struct Escaped<'a, W: Write + ?Sized>(&'a mut W);

impl<W: Write + ?Sized> Write for Escaped<'_, W> {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let w = &mut *self.0;
        for c in s.chars() {
            match c {
                '"' => w.write_str("\\\"")?,
                '\\' => w.write_str("\\\\")?,
                '\n' => w.write_str("\\n")?,
                '\r' => w.write_str("\\r")?,
                '\t' => w.write_str("\\t")?,
                c if (c as u32) < 0x20 || c == '\u{7f}' => {
                    write!(w, "\\u{:04x}", u64::from(u32::from(c)))?
                }
                c => w.write_char(c)?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::format;
    use std::string::String;

    const T: Kind = Kind {
        name: "t",
        doc: "a test kind",
        fields: &[],
    };

    fn line(f: impl FnOnce(Record<'_, String>) -> Record<'_, String>) -> String {
        let mut s = String::new();
        f(Record::new(&mut s, &T)).finish().unwrap();
        s
    }

    #[test]
    fn fields_in_order_with_types() {
        let s = line(|r| {
            r.str("a", "x")
                .u64("b", u64::MAX)
                .i64("c", -5)
                .bool("d", true)
                .hex("e", 0x410f_d083)
                .hex_digits("e2", 4, 2)
                .null("f")
                .opt_str("g", None)
                .opt_str("h", Some("y"))
                .strs("i", ["a", "\""])
                .strs("j", [])
        });
        assert_eq!(
            s,
            "@mb {\"kind\":\"t\",\"a\":\"x\",\"b\":18446744073709551615,\"c\":-5,\"d\":true,\
             \"e\":\"0x410fd083\",\"e2\":\"0x04\",\"f\":null,\"g\":null,\"h\":\"y\",\"i\":[\"a\",\"\\\"\"],\"j\":[]}\n"
        );
    }

    #[test]
    fn signed_integers_as_rust_writes_them() {
        for v in [i64::MIN, -1, 0, 7, i64::MAX] {
            assert_eq!(
                line(|r| r.i64("v", v)),
                format!("@mb {{\"kind\":\"t\",\"v\":{v}}}\n")
            );
        }
    }

    #[test]
    fn objects_of_numbers() {
        let s = line(|r| {
            r.decimals("p", [("l1d_cache", 100, 2), ("x\"", 7, 0)])
                .decimals("q", [])
        });
        assert_eq!(
            s,
            "@mb {\"kind\":\"t\",\"p\":{\"l1d_cache\":1.00,\"x\\\"\":7},\"q\":{}}\n"
        );
    }

    #[test]
    fn strings_are_escaped() {
        let s = line(|r| r.str("k\"", "a\"b\\c\nd\u{1}e\u{7f}é"));
        assert_eq!(
            s,
            "@mb {\"kind\":\"t\",\"k\\\"\":\"a\\\"b\\\\c\\nd\\u0001e\\u007fé\"}\n"
        );
    }

    #[test]
    fn formatted_field_is_escaped() {
        let s = line(|r| r.fmt("m", format_args!("{}\"{}", 1, "\n")));
        assert_eq!(s, "@mb {\"kind\":\"t\",\"m\":\"1\\\"\\n\"}\n");
    }

    #[test]
    fn decimals() {
        let s = line(|r| {
            r.decimal("cv_pct", 123, 1)
                .decimal("ns_per_load", 5, 2)
                .decimal("zero", 0, 3)
                .decimal("int", 1049, 0)
                .decimal("nine", 1_234_567_890, 9)
                .decimal("max", u64::MAX, 9)
                .opt_decimal("none", None, 2)
                .opt_decimal("some", Some(250), 2)
        });
        assert_eq!(
            s,
            "@mb {\"kind\":\"t\",\"cv_pct\":12.3,\"ns_per_load\":0.05,\"zero\":0.000,\"int\":1049,\
             \"nine\":1.234567890,\"max\":18446744073.709551615,\"none\":null,\"some\":2.50}\n"
        );
        // Every places value gives a valid JSON number: digits, one optional point, digits.
        for places in 0..=u8::MAX {
            let s = line(|r| r.decimal("x", 42, places));
            let number = s
                .strip_prefix("@mb {\"kind\":\"t\",\"x\":")
                .and_then(|s| s.strip_suffix("}\n"))
                .unwrap();
            let (int, frac) = number.split_once('.').unwrap_or((number, ""));
            assert!(!int.is_empty() && int.bytes().all(|b| b.is_ascii_digit()));
            assert!(!int.starts_with('0') || int == "0");
            assert_eq!(frac.len(), usize::from(places));
            assert!(frac.bytes().all(|b| b.is_ascii_digit()));
        }
    }

    #[test]
    fn first_error_is_kept() {
        struct Full(usize);
        impl Write for Full {
            fn write_str(&mut self, s: &str) -> fmt::Result {
                if self.0 < s.len() {
                    return Err(fmt::Error);
                }
                self.0 -= s.len();
                Ok(())
            }
        }
        let mut w = Full(10);
        assert!(Record::new(&mut w, &crate::schema::START)
            .u64("n", 1)
            .finish()
            .is_err());
    }
}
