//! The YMODEM upload of a `loady` line (`console --send FILE`): the port handed to the sender
//! once U-Boot is ready, with a progress bar on standard error.

use super::port::Port;
use super::reader::{Outcome, Reader, Stop};
use crate::link::ymodem;
use std::io;
use std::time::{Duration, Instant};

/// The YMODEM upload after a `loady` line: waits for U-Boot's "Ready for binary (ymodem)
/// download" line, hands the port to the sender ([`ymodem::send_with`], which waits for the
/// receiver's 'C'), shows a progress bar on standard error and the final rate. `Ok(None)` when
/// the file went through (U-Boot's `$?` and "## Total Size" line are checked after it).
pub(super) fn upload(
    r: &mut Reader,
    name: &str,
    data: &[u8],
    note: &mut dyn FnMut(&str),
) -> Result<Option<Outcome>, Stop> {
    let from = r.lines.len();
    r.until(|r| {
        r.lines[from..]
            .iter()
            .any(|l| l.contains("Ready for binary"))
    })?;
    let left = r.deadline.saturating_duration_since(Instant::now());
    let options = ymodem::Options {
        start_timeout: left.min(ymodem::Options::default().start_timeout),
        ..ymodem::Options::default()
    };
    // What arrived after the "Ready" line (its first 'C's) goes to the sender first.
    let pending: std::collections::VecDeque<u8> = r.partial.drain(..).collect();
    r.partial_from = r.count;
    let mut wire = Wire {
        port: &mut *r.port,
        pending,
    };
    let mut shown = 0usize;
    let mut bar = |p: ymodem::Progress| {
        if p.sent == shown && p.sent != 0 {
            return;
        }
        shown = p.sent;
        eprint!("\r{}", progress_bar(p.sent, p.total, p.elapsed));
    };
    let sent = ymodem::send_with(&mut wire, name, data, &options, &mut bar);
    eprintln!();
    match sent {
        Ok(s) => {
            note(&format!(
                "sent {name}: {} B in {:.2} s, {:.1} kB/s",
                s.bytes,
                s.elapsed.as_secs_f64(),
                s.rate() / 1000.0
            ));
            Ok(None)
        }
        Err(e) => Ok(Some(Outcome::SendFailed(format!(
            "the YMODEM upload of {name} failed: {e}"
        )))),
    }
}

/// `[#####     ] 120 kB / 241 kB, 34.5 kB/s` (kB = 10^3 B).
pub fn progress_bar(sent: usize, total: usize, elapsed: Duration) -> String {
    const WIDTH: usize = 30;
    let filled = (sent * WIDTH)
        .checked_div(total)
        .unwrap_or(WIDTH)
        .min(WIDTH);
    let secs = elapsed.as_secs_f64();
    let rate = if secs > 0.0 {
        sent as f64 / secs / 1000.0
    } else {
        0.0
    };
    format!(
        "[{}{}] {} kB / {} kB, {rate:.1} kB/s",
        "#".repeat(filled),
        " ".repeat(WIDTH - filled),
        sent / 1000,
        total / 1000
    )
}

/// The port as the YMODEM sender's link, with bytes already received served first.
struct Wire<'a> {
    port: &'a mut dyn Port,
    pending: std::collections::VecDeque<u8>,
}

impl ymodem::Link for Wire<'_> {
    fn read_byte(&mut self, timeout: Duration) -> io::Result<Option<u8>> {
        if let Some(b) = self.pending.pop_front() {
            return Ok(Some(b));
        }
        let mut b = [0u8; 1];
        match self.port.recv(&mut b, timeout)? {
            0 => Ok(None),
            _ => Ok(Some(b[0])),
        }
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.port.send(bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_bar_says_its_units() {
        assert_eq!(
            progress_bar(120_000, 241_000, Duration::from_secs(4)),
            "[##############                ] 120 kB / 241 kB, 30.0 kB/s"
        );
        assert_eq!(
            progress_bar(0, 0, Duration::ZERO),
            format!("[{}] 0 kB / 0 kB, 0.0 kB/s", "#".repeat(30))
        );
    }
}
