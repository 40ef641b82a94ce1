//! Formatting every command shares: sizes and values as the tables print them, CSV rows, and
//! dates.

use crate::read::model::Unit;
use mairbench_core::format::Bytes;

/// A size in binary units as the firmware prints it (core's [`Bytes`]): `4 KiB`, `1 MiB`,
/// or bytes when it is not a whole KiB.
pub fn size_label(size: u64) -> String {
    Bytes(size).to_string()
}

/// A value as the tables print it: whole MB/s, ns to two decimals.
pub fn value_label(unit: Unit, value: f64) -> String {
    match unit {
        Unit::MegabytesPerSecond => format!("{value:.0}"),
        _ => format!("{value:.2}"),
    }
}

/// One CSV field, quoted when it needs to be.
pub fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

/// Appends one CSV row to `out`: `fields` as they display, each quoted when it needs to be
/// ([`csv_field`]), separated by commas, then a line feed.
pub fn csv_row(out: &mut String, fields: &[&dyn std::fmt::Display]) {
    for (i, field) in fields.iter().enumerate() {
        if i != 0 {
            out.push(',');
        }
        out.push_str(&csv_field(&field.to_string()));
    }
    out.push('\n');
}

/// `s`, or `-` when it is empty (a field the log does not have).
pub fn or_dash(s: &str) -> &str {
    if s.is_empty() {
        "-"
    } else {
        s
    }
}

/// `YYYY-MM-DD` (UTC) of `secs` seconds after the Unix epoch (the proleptic Gregorian
/// calendar, H. Hinnant's `civil_from_days`).
pub fn civil_date(secs: u64) -> String {
    let z = (secs / 86_400) as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_rows_quote_what_needs_it() {
        let mut out = String::new();
        csv_row(&mut out, &[&"a,b", &"say \"x\"", &1.5, &42u64, &false, &""]);
        csv_row(&mut out, &[&"one"]);
        assert_eq!(out, "\"a,b\",\"say \"\"x\"\"\",1.5,42,false,\none\n");
    }

    #[test]
    fn labels() {
        assert_eq!(size_label(4096), "4 KiB");
        assert_eq!(size_label(3 << 20), "3 MiB");
        assert_eq!(size_label(100), "100 B");
        assert_eq!(csv_field("a,\"b"), "\"a,\"\"b\"");
    }

    #[test]
    fn civil_dates() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(951_782_400), "2000-02-29");
        assert_eq!(civil_date(1_767_225_600), "2026-01-01");
    }
}
