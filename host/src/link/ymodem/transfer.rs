//! What a transfer runs over (a [`Link`]), its settings ([`Options`]) and what it reports:
//! progress, the file sent, or the stage and reason it failed.

use std::fmt;
use std::io;
use std::time::Duration;

/// A byte link with timed reads (a serial port, a pty, a pipe pair in tests).
pub trait Link {
    /// One byte, or `Ok(None)` when `timeout` passed without one.
    fn read_byte(&mut self, timeout: Duration) -> io::Result<Option<u8>>;
    /// Writes all bytes and flushes.
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()>;
}

/// A serial port as a [`Link`]: each read sets the port's timeout. (With `std::io::Write` in
/// scope too, call `Link::write_all(&mut port, ..)` to pick this one.)
impl Link for Box<dyn serialport::SerialPort> {
    fn read_byte(&mut self, timeout: Duration) -> io::Result<Option<u8>> {
        self.set_timeout(timeout.max(Duration::from_millis(1)))
            .map_err(io::Error::from)?;
        let mut byte = [0u8; 1];
        loop {
            return match io::Read::read(self, &mut byte) {
                Ok(1) => Ok(Some(byte[0])),
                Ok(_) => Ok(None),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
                Err(e)
                    if matches!(
                        e.kind(),
                        io::ErrorKind::TimedOut | io::ErrorKind::WouldBlock
                    ) =>
                {
                    Ok(None)
                }
                Err(e) => Err(e),
            };
        }
    }

    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        io::Write::write_all(self, bytes)?;
        io::Write::flush(self)
    }
}

/// How far a transfer has come, given after block 0 and after each acknowledged data block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Progress {
    /// File bytes acknowledged by the receiver.
    pub sent: usize,
    /// File size in bytes.
    pub total: usize,
    /// Time since the receiver asked to start.
    pub elapsed: Duration,
}

/// A finished transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sent {
    /// File bytes sent (the file's size; padding not counted).
    pub bytes: usize,
    /// From the receiver's start request (`C`) to its ACK of the EOT (the file complete).
    pub elapsed: Duration,
}

impl Sent {
    /// File bytes per second over the whole exchange (0 when no time was measured).
    pub fn rate(&self) -> f64 {
        let s = self.elapsed.as_secs_f64();
        if s > 0.0 {
            self.bytes as f64 / s
        } else {
            0.0
        }
    }
}

/// The part of the exchange that failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// Block 0, the file's name and size.
    Header,
    /// Data block N (1-based over the whole file, not wrapped to 8 bits).
    Data(usize),
    /// The end of the file (EOT).
    Eot,
}

impl fmt::Display for Stage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Stage::Header => write!(f, "block 0 (the file's name and size)"),
            Stage::Data(n) => write!(f, "block {n}"),
            Stage::Eot => write!(f, "the end of the file (EOT)"),
        }
    }
}

/// Why a transfer failed.
#[derive(Debug)]
pub enum Error {
    /// No `C` came within [`Options::start_timeout`].
    NeverStarted {
        /// How long the sender waited.
        waited: Duration,
        /// NAKs seen meanwhile (a receiver asking for checksum mode, which YMODEM does not use).
        naks: usize,
        /// The last of the text that came meanwhile (at most 80 characters, control characters
        /// escaped), such as U-Boot's "Unknown command 'loady'".
        said: String,
    },
    /// The receiver sent CAN CAN.
    Cancelled(Stage),
    /// A block was sent 1 + [`Options::retries`] times without an ACK.
    TooManyRetries {
        /// The block.
        stage: Stage,
        /// Resends made.
        retries: u32,
        /// Whether the last answer was silence (else a NAK or `C`).
        timed_out: bool,
    },
    /// Reading or writing the link failed.
    Link(io::Error),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NeverStarted { waited, naks, said } => {
                write!(
                    f,
                    "the YMODEM receiver never started: no 'C' came within {:.1} s",
                    waited.as_secs_f64()
                )?;
                if *naks > 0 {
                    write!(
                        f,
                        ", only {naks} NAK(s) asking for checksum mode, which this sender does \
                         not use"
                    )?;
                }
                if said.is_empty() {
                    write!(f, " and nothing else came (is `loady` running?).")
                } else {
                    write!(f, "; the line said \"{said}\".")
                }
            }
            Error::Cancelled(stage) => {
                write!(
                    f,
                    "the receiver cancelled the transfer (CAN CAN) at {stage}."
                )
            }
            Error::TooManyRetries {
                stage,
                retries,
                timed_out,
            } => write!(
                f,
                "too many retries at {stage}: sent {} times, the last answered by {}.",
                retries + 1,
                if *timed_out { "silence" } else { "a NAK" }
            ),
            Error::Link(e) => write!(f, "the link to the receiver failed: {e}."),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Link(e) => Some(e),
            _ => None,
        }
    }
}

impl From<io::Error> for Error {
    fn from(e: io::Error) -> Error {
        Error::Link(e)
    }
}

/// The sender's waits and retry limit.
#[derive(Debug, Clone)]
pub struct Options {
    /// How long to wait for the receiver's first `C` (default 60 s; U-Boot's `loady` asks for
    /// about that long before it gives up).
    pub start_timeout: Duration,
    /// How long to wait for the answer to a block or EOT before sending it again (default
    /// 10 s, more than U-Boot needs to time out on a broken block and flush the line).
    pub reply_timeout: Duration,
    /// Resends of one block before the transfer fails (default 10).
    pub retries: u32,
    /// The quiet that must follow a `C` for it to count as the start request (default 100 ms).
    pub settle: Duration,
    /// How long to wait for the `C` after block 0's ACK before sending block 1 anyway (default
    /// 1 s; U-Boot sends none and times out after 2 s).
    pub header_c_wait: Duration,
    /// How long to wait for the ACK of the empty block 0 that ends the batch (default 3 s).
    pub end_timeout: Duration,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            start_timeout: Duration::from_secs(60),
            reply_timeout: Duration::from_secs(10),
            retries: 10,
            settle: Duration::from_millis(100),
            header_c_wait: Duration::from_secs(1),
            end_timeout: Duration::from_secs(3),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_in_bytes_per_second() {
        let s = Sent {
            bytes: 1000,
            elapsed: Duration::from_millis(500),
        };
        assert_eq!(s.rate(), 2000.0);
        assert_eq!(
            Sent {
                bytes: 5,
                elapsed: Duration::ZERO
            }
            .rate(),
            0.0
        );
    }
}
