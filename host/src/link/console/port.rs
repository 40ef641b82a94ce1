//! The serial line a session reads and writes, and the log it fills as bytes arrive.

use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::time::Duration;

/// A serial line: what [`boot`](super::boot::boot) and [`interactive`](super::terminal::interactive) read and write.
pub trait Port {
    /// Reads what arrives within `timeout` into `buf`: `Ok(0)` when nothing did; an error
    /// when the port is gone (end of file, the adapter unplugged).
    fn recv(&mut self, buf: &mut [u8], timeout: Duration) -> io::Result<usize>;
    /// Writes all of `bytes`.
    fn send(&mut self, bytes: &[u8]) -> io::Result<()>;
}

impl Port for Box<dyn serialport::SerialPort> {
    fn recv(&mut self, buf: &mut [u8], timeout: Duration) -> io::Result<usize> {
        self.set_timeout(timeout.max(Duration::from_millis(1)))?;
        match io::Read::read(self, buf) {
            Ok(0) => Err(io::Error::new(io::ErrorKind::UnexpectedEof, "end of file")),
            Ok(n) => Ok(n),
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::TimedOut | io::ErrorKind::Interrupted
                ) =>
            {
                Ok(0)
            }
            Err(e) => Err(e),
        }
    }

    fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        io::Write::write_all(self, bytes)?;
        io::Write::flush(self)
    }
}

/// Opens a serial port (or a pseudo-terminal) at `baud`, 8N1.
pub fn open(path: &str, baud: u32) -> Result<Box<dyn serialport::SerialPort>, String> {
    serialport::new(path, baud)
        .timeout(Duration::from_millis(100))
        .open()
        .map_err(|e| format!("cannot open serial port {path}: {e}."))
}

/// What the session writes to: the log file (every byte, flushed as it comes) and the screen.
pub struct Sink {
    log: Box<dyn Write>,
    screen: Box<dyn Write>,
    /// Every byte this session received (the log may hold earlier sessions too).
    pub received: Vec<u8>,
}

impl Sink {
    /// Appends to the log file at `path` (created when missing); the screen is stdout.
    pub fn append(path: &Path) -> Result<Sink, String> {
        let file = File::options()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| format!("cannot open the log {}: {e}.", path.display()))?;
        Ok(Sink::new(Box::new(file), Box::new(io::stdout())))
    }

    /// A sink over any two writers.
    pub fn new(log: Box<dyn Write>, screen: Box<dyn Write>) -> Sink {
        Sink {
            log,
            screen,
            received: Vec::new(),
        }
    }

    pub(super) fn put(&mut self, bytes: &[u8]) -> Result<(), String> {
        self.log
            .write_all(bytes)
            .and_then(|()| self.log.flush())
            .map_err(|e| format!("cannot write the console log: {e}."))?;
        let _ = self
            .screen
            .write_all(bytes)
            .and_then(|()| self.screen.flush());
        self.received.extend_from_slice(bytes);
        Ok(())
    }
}
