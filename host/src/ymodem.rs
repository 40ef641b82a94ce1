//! A YMODEM batch sender, as U-Boot's `loady` receives it: the firmware image goes to a board
//! that has only a UART (`cargo host console PORT --send FILE`).
//!
//! The exchange (U-Boot's `common/xyzModem.c` is the receiver it is written for; lrzsz's `rb`
//! is the reference it is tested against): wait for the receiver's `C` (CRC-16 mode; text such
//! as U-Boot's "## Ready for binary (ymodem) download..." and NAKs before it are skipped, and a
//! `C` counts only when the line stays quiet after it, so a `C` inside text does not start the
//! transfer), block 0 with `name NUL size NUL` (size in decimal), 1024-byte STX blocks (the
//! tail in a 128-byte SOH block when it fits) padded with 0x1A, each with its CRC-16/XMODEM,
//! EOT (sent again when NAKed), then the empty block 0 that ends the batch (the file is
//! complete once the EOT is ACKed, so this last block is sent three times at most and a missing
//! ACK is no error). A NAK, a `C` (what U-Boot sends in place of a NAK after a bad block) or no
//! answer within [`Options::reply_timeout`] sends the block again, at most [`Options::retries`]
//! times; two CANs in a row from the receiver end the transfer. U-Boot sends no `C` after
//! ACKing block 0, so the sender waits [`Options::header_c_wait`] for one, then goes on. Every
//! wait is bounded.
//!
//! Why not a crate: crates.io's `ymodem` 0.1.1 (on `log` 0.3 and `crc16` 0.3) leaves the
//! receiver's CAN unhandled during the transfer (its own TODOs), prints with `dbg!`, and times
//! reads only through the device's own timeout; `xmodem` 0.4 is XMODEM only (no block 0, no
//! batch end); `uboot-shell` has a YMODEM sender inside a U-Boot shell client (async, on
//! `futures`). None handles U-Boot's ways above, so this module is its own.

use std::fmt;
use std::io;
use std::time::{Duration, Instant};

const SOH: u8 = 0x01;
const STX: u8 = 0x02;
const EOT: u8 = 0x04;
const ACK: u8 = 0x06;
const NAK: u8 = 0x15;
const CAN: u8 = 0x18;
const PAD: u8 = 0x1A;
const CRC_START: u8 = b'C';

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

/// Sends `data` as the file `name` with the default [`Options`]; `progress` is called after
/// block 0 and after each acknowledged data block.
pub fn send(
    link: &mut dyn Link,
    name: &str,
    data: &[u8],
    progress: &mut dyn FnMut(Progress),
) -> Result<Sent, Error> {
    send_with(link, name, data, &Options::default(), progress)
}

/// [`send`] with the given waits and retry limit. When the sender gives up (too many retries)
/// it sends CANs so that the receiver stops too.
pub fn send_with(
    link: &mut dyn Link,
    name: &str,
    data: &[u8],
    options: &Options,
    progress: &mut dyn FnMut(Progress),
) -> Result<Sent, Error> {
    let mut s = Sender {
        link,
        options,
        can: false,
    };
    s.wait_start()?;
    let start = Instant::now();
    let total = data.len();
    let result = (|| {
        s.send_block(Stage::Header, &frame(0, &header(name, total), 0))?;
        s.wait_c(options.header_c_wait, Stage::Header)?;
        progress(Progress {
            sent: 0,
            total,
            elapsed: start.elapsed(),
        });
        let mut sent = 0;
        for (i, chunk) in data.chunks(1024).enumerate() {
            let block = frame((i + 1) as u8, chunk, PAD);
            s.send_block(Stage::Data(i + 1), &block)?;
            sent += chunk.len();
            progress(Progress {
                sent,
                total,
                elapsed: start.elapsed(),
            });
        }
        s.send_block(Stage::Eot, &[EOT])
    })();
    if let Err(Error::TooManyRetries { .. }) = &result {
        // Best effort: U-Boot stops after 3 CANs between blocks.
        let _ = s.link.write_all(&[CAN; 8]);
    }
    result?;
    let elapsed = start.elapsed();
    s.end_batch();
    Ok(Sent {
        bytes: total,
        elapsed,
    })
}

/// The file's name for block 0: without directories (the receiver's business), spaces as `_`
/// (YMODEM names have none), `file` when empty, cut so that name and size fit in 128 bytes.
fn header(name: &str, size: usize) -> Vec<u8> {
    let base = name.rsplit(['/', '\\']).next().unwrap_or("");
    let mut clean: String = base
        .chars()
        .filter(|c| *c != '\0')
        .map(|c| if c.is_whitespace() { '_' } else { c })
        .collect();
    if clean.is_empty() {
        clean = "file".into();
    }
    let size = size.to_string();
    let room = 128 - 2 - size.len();
    while clean.len() > room {
        clean.pop();
    }
    let mut h = clean.into_bytes();
    h.push(0);
    h.extend_from_slice(size.as_bytes());
    h.push(0);
    h
}

/// One block: SOH (128 bytes) when the payload fits, else STX (1024), padded with `pad`.
fn frame(number: u8, payload: &[u8], pad: u8) -> Vec<u8> {
    let len = if payload.len() <= 128 { 128 } else { 1024 };
    let mut f = Vec::with_capacity(len + 5);
    f.extend_from_slice(&[if len == 128 { SOH } else { STX }, number, !number]);
    f.extend_from_slice(payload);
    f.resize(3 + len, pad);
    let crc = crc16(&f[3..]);
    f.extend_from_slice(&crc.to_be_bytes());
    f
}

/// CRC-16/XMODEM (polynomial 0x1021, initial value 0), as U-Boot's `crc16_ccitt(0, ..)`.
pub fn crc16(data: &[u8]) -> u16 {
    let mut crc = 0u16;
    for &b in data {
        crc ^= u16::from(b) << 8;
        for _ in 0..8 {
            crc = if crc & 0x8000 != 0 {
                (crc << 1) ^ 0x1021
            } else {
                crc << 1
            };
        }
    }
    crc
}

enum Reply {
    Ack,
    Nak,
    Silence,
}

struct Sender<'a> {
    link: &'a mut dyn Link,
    options: &'a Options,
    /// Whether the last byte read was a CAN.
    can: bool,
}

impl Sender<'_> {
    /// Reads one byte; a second CAN in a row cancels at `stage`.
    fn byte(&mut self, timeout: Duration, stage: Stage) -> Result<Option<u8>, Error> {
        let b = self.link.read_byte(timeout)?;
        match b {
            Some(CAN) if self.can => Err(Error::Cancelled(stage)),
            Some(CAN) => {
                self.can = true;
                Ok(b)
            }
            Some(_) => {
                self.can = false;
                Ok(b)
            }
            None => Ok(None),
        }
    }

    /// Waits for a `C` followed by [`Options::settle`] of quiet.
    fn wait_start(&mut self) -> Result<(), Error> {
        let began = Instant::now();
        let deadline = began + self.options.start_timeout;
        let (mut saw_c, mut naks) = (false, 0);
        let mut said: Vec<u8> = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            let wait = if saw_c {
                left.min(self.options.settle)
            } else {
                left
            };
            match self.byte(wait, Stage::Header)? {
                None => break,
                Some(CRC_START) => {
                    saw_c = true;
                    said.push(CRC_START);
                }
                Some(b) => {
                    saw_c = false;
                    naks += usize::from(b == NAK);
                    said.push(b);
                }
            }
        }
        if saw_c {
            Ok(())
        } else {
            let text: String = said.escape_ascii().to_string();
            let tail = text.len().saturating_sub(80);
            Err(Error::NeverStarted {
                waited: began.elapsed(),
                naks,
                said: text[tail..].to_string(),
            })
        }
    }

    /// Waits up to `wait` for a `C` (skipping ACKs and other bytes).
    fn wait_c(&mut self, wait: Duration, stage: Stage) -> Result<(), Error> {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(());
            }
            match self.byte(left, stage)? {
                None | Some(CRC_START) => return Ok(()),
                Some(_) => {}
            }
        }
    }

    /// The receiver's answer to what was just sent: ACK, NAK (or `C`), or nothing within
    /// `wait`; other bytes are skipped.
    fn reply(&mut self, stage: Stage, wait: Duration) -> Result<Reply, Error> {
        let deadline = Instant::now() + wait;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Ok(Reply::Silence);
            }
            match self.byte(left, stage)? {
                None => return Ok(Reply::Silence),
                Some(ACK) => return Ok(Reply::Ack),
                Some(NAK | CRC_START) => return Ok(Reply::Nak),
                Some(_) => {}
            }
        }
    }

    /// After the ACKed EOT: waits for the `C` that asks for the next file and [`Options::settle`]
    /// of quiet after it (lrzsz's `rb` empties its input right after sending that `C`), sends
    /// the empty block 0 that ends the batch and waits [`Options::end_timeout`] for its ACK,
    /// sending it again on a NAK or silence, three times at most. The file is complete by now,
    /// so nothing here fails the transfer: U-Boot ACKs this block whatever it received.
    fn end_batch(&mut self) {
        if self.wait_c(self.options.reply_timeout, Stage::Eot).is_err() {
            return;
        }
        loop {
            match self.byte(self.options.settle, Stage::Eot) {
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(_) => return,
            }
        }
        let end = frame(0, &[], 0);
        for _ in 0..3 {
            if self.link.write_all(&end).is_err() {
                return;
            }
            match self.reply(Stage::Eot, self.options.end_timeout) {
                Ok(Reply::Nak | Reply::Silence) => {}
                _ => return,
            }
        }
    }

    /// Sends `bytes` until ACKed, at most 1 + [`Options::retries`] times.
    fn send_block(&mut self, stage: Stage, bytes: &[u8]) -> Result<(), Error> {
        let mut timed_out = false;
        for _ in 0..=self.options.retries {
            self.link.write_all(bytes)?;
            match self.reply(stage, self.options.reply_timeout)? {
                Reply::Ack => return Ok(()),
                Reply::Nak => timed_out = false,
                Reply::Silence => timed_out = true,
            }
        }
        Err(Error::TooManyRetries {
            stage,
            retries: self.options.retries,
            timed_out,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// How the fake receiver misbehaves.
    #[derive(Default, Clone)]
    struct Script {
        /// Text the receiver prints before its first `C`.
        preamble: Vec<u8>,
        /// Like U-Boot: no `C` after block 0's ACK, `C` in place of NAK, ACK ACK `C` after EOT.
        uboot: bool,
        /// NAKs for the first copies of data block N (1-based): (N, how many).
        nak: Option<(usize, usize)>,
        /// CAN CAN in answer to data block N.
        cancel_at: Option<usize>,
        /// Silent from the Nth frame on (counting every frame and EOT received).
        silent_from: Option<usize>,
        /// NAK the first EOT.
        nak_first_eot: bool,
        /// Flip a bit in the Nth write from the sender (1-based), on the way.
        corrupt_write: Option<usize>,
    }

    #[derive(Debug, Clone, Copy, PartialEq)]
    enum Phase {
        Header,
        Data,
        EndOfBatch,
        Done,
    }

    /// An in-process YMODEM receiver: parses what the sender writes, answers by the script.
    struct Fake {
        script: Script,
        to_sender: VecDeque<u8>,
        from_sender: Vec<u8>,
        phase: Phase,
        next: u8,
        block: usize,
        name: String,
        size: usize,
        data: Vec<u8>,
        /// Frames and EOTs received (bad ones too).
        units: usize,
        writes: usize,
        crc_errors: usize,
        headers: usize,
        eots: usize,
        /// Lengths of the data blocks received (128 or 1024), in order, repeated ones too.
        kinds: Vec<usize>,
        naks_left: usize,
        cans_after_give_up: usize,
    }

    impl Fake {
        fn new(script: Script) -> Fake {
            let mut to_sender: VecDeque<u8> = script.preamble.iter().copied().collect();
            to_sender.push_back(b'C');
            let naks_left = script.nak.map_or(0, |(_, n)| n);
            Fake {
                script,
                to_sender,
                from_sender: Vec::new(),
                phase: Phase::Header,
                next: 1,
                block: 0,
                name: String::new(),
                size: 0,
                data: Vec::new(),
                units: 0,
                writes: 0,
                crc_errors: 0,
                headers: 0,
                eots: 0,
                kinds: Vec::new(),
                naks_left,
                cans_after_give_up: 0,
            }
        }

        fn say(&mut self, bytes: &[u8]) {
            self.to_sender.extend(bytes);
        }

        fn nak(&mut self) {
            let b = if self.script.uboot { b'C' } else { NAK };
            self.say(&[b]);
        }

        fn parse(&mut self) {
            loop {
                let Some(&first) = self.from_sender.first() else {
                    return;
                };
                let len = match first {
                    SOH => 133,
                    STX => 1029,
                    EOT => 1,
                    _ => {
                        if first == CAN {
                            self.cans_after_give_up += 1;
                        }
                        self.from_sender.remove(0);
                        continue;
                    }
                };
                if self.from_sender.len() < len {
                    return;
                }
                let unit: Vec<u8> = self.from_sender.drain(..len).collect();
                self.units += 1;
                if self.script.silent_from.is_some_and(|n| self.units >= n) {
                    continue;
                }
                self.unit(&unit);
            }
        }

        fn unit(&mut self, u: &[u8]) {
            if u[0] == EOT {
                self.eots += 1;
                if self.phase != Phase::Data {
                    return;
                }
                if self.script.nak_first_eot && self.eots == 1 {
                    self.say(&[NAK]);
                } else if self.script.uboot {
                    self.say(&[ACK, ACK, b'C']);
                    self.phase = Phase::EndOfBatch;
                } else {
                    self.say(&[ACK, b'C']);
                    self.phase = Phase::EndOfBatch;
                }
                return;
            }
            let (number, payload, crc) = (u[1], &u[3..u.len() - 2], &u[u.len() - 2..]);
            if u[1] ^ u[2] != 0xFF || crc16(payload) != u16::from_be_bytes([crc[0], crc[1]]) {
                self.crc_errors += 1;
                self.nak();
                return;
            }
            match self.phase {
                Phase::Header => {
                    assert_eq!(number, 0, "the first block is block 0");
                    self.headers += 1;
                    let mut fields = payload.split(|b| *b == 0);
                    self.name = String::from_utf8(fields.next().unwrap().to_vec()).unwrap();
                    let size = fields.next().unwrap();
                    self.size = std::str::from_utf8(size).unwrap().parse().unwrap();
                    self.phase = Phase::Data;
                    self.say(&[ACK]);
                    if !self.script.uboot {
                        self.say(b"C");
                    }
                }
                Phase::Data if number == self.next => {
                    self.block += 1;
                    self.kinds.push(payload.len());
                    if self.script.cancel_at == Some(self.block) {
                        self.say(&[CAN, CAN]);
                        self.phase = Phase::Done;
                        return;
                    }
                    if self.script.nak.is_some_and(|(n, _)| n == self.block) && self.naks_left > 0 {
                        self.naks_left -= 1;
                        self.block -= 1;
                        self.nak();
                        return;
                    }
                    self.data.extend_from_slice(payload);
                    self.next = self.next.wrapping_add(1);
                    self.say(&[ACK]);
                }
                Phase::Data if number == self.next.wrapping_sub(1) => {
                    self.kinds.push(payload.len());
                    self.say(&[ACK]);
                }
                Phase::Data => panic!("block {number} out of sequence (expected {})", self.next),
                Phase::EndOfBatch => {
                    assert_eq!(number, 0);
                    assert!(payload.iter().all(|b| *b == 0), "the batch end is empty");
                    self.phase = Phase::Done;
                    self.say(&[ACK]);
                }
                Phase::Done => {}
            }
        }

        /// The file as the receiver keeps it: the data cut to the size from block 0.
        fn file(&self) -> &[u8] {
            &self.data[..self.size.min(self.data.len())]
        }
    }

    impl Link for Fake {
        fn read_byte(&mut self, timeout: Duration) -> io::Result<Option<u8>> {
            match self.to_sender.pop_front() {
                Some(b) => Ok(Some(b)),
                None => {
                    // Silence lasts as long as the sender waits.
                    std::thread::sleep(timeout);
                    Ok(None)
                }
            }
        }

        fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
            self.writes += 1;
            let mut bytes = bytes.to_vec();
            if self.script.corrupt_write == Some(self.writes) {
                let mid = bytes.len() / 2;
                bytes[mid] ^= 0x10;
            }
            self.from_sender.extend_from_slice(&bytes);
            self.parse();
            Ok(())
        }
    }

    /// Short waits, so that the silent cases end quickly.
    fn quick() -> Options {
        Options {
            start_timeout: Duration::from_millis(300),
            reply_timeout: Duration::from_millis(40),
            retries: 10,
            settle: Duration::from_millis(20),
            header_c_wait: Duration::from_millis(30),
            end_timeout: Duration::from_millis(40),
        }
    }

    /// Pseudo-random bytes (xorshift), `n` of them.
    fn bytes(n: usize) -> Vec<u8> {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect()
    }

    fn run(script: Script, name: &str, data: &[u8]) -> (Fake, Result<Sent, Error>, Vec<Progress>) {
        let mut fake = Fake::new(script);
        let mut seen = Vec::new();
        let r = send_with(&mut fake, name, data, &quick(), &mut |p| seen.push(p));
        (fake, r, seen)
    }

    #[test]
    fn crc16_xmodem_check_value() {
        // The catalogue's check value of CRC-16/XMODEM over "123456789".
        assert_eq!(crc16(b"123456789"), 0x31C3);
        assert_eq!(crc16(&[]), 0);
    }

    #[test]
    fn file_reassembled_with_size_from_block_0() {
        let data = bytes(3000);
        let (fake, r, seen) = run(Script::default(), "image.bin", &data);
        let sent = r.unwrap();
        assert_eq!(fake.phase, Phase::Done);
        assert_eq!((fake.name.as_str(), fake.size), ("image.bin", 3000));
        assert_eq!(fake.file(), &data[..]);
        // 3000 = 2 × 1024 + 952: the tail does not fit 128 bytes, so three STX blocks,
        // the last padded with 0x1A.
        assert_eq!(fake.kinds, [1024, 1024, 1024]);
        assert!(fake.data[3000..].iter().all(|b| *b == PAD));
        assert_eq!((fake.crc_errors, fake.headers, fake.eots), (0, 1, 1));
        assert_eq!(sent.bytes, 3000);
        let sent_so_far: Vec<usize> = seen.iter().map(|p| p.sent).collect();
        assert_eq!(sent_so_far, [0, 1024, 2048, 3000]);
        assert!(seen.iter().all(|p| p.total == 3000));
        assert!(seen.windows(2).all(|w| w[0].elapsed <= w[1].elapsed));
    }

    #[test]
    fn small_tail_goes_in_a_128_byte_block() {
        let data = bytes(2048 + 100);
        let (fake, r, _) = run(Script::default(), "a", &data);
        r.unwrap();
        assert_eq!(fake.kinds, [1024, 1024, 128]);
        assert_eq!(fake.file(), &data[..]);
    }

    #[test]
    fn exact_multiple_of_1024_and_tiny_and_empty_files() {
        for n in [4096, 1, 127, 128, 129, 1023, 1025] {
            let data = bytes(n);
            let (fake, r, _) = run(Script::default(), "f", &data);
            r.unwrap();
            assert_eq!((fake.size, fake.file()), (n, &data[..]), "size {n}");
            assert_eq!(fake.kinds.len(), n.div_ceil(1024), "size {n}");
        }
        let (fake, r, seen) = run(Script::default(), "empty", &[]);
        assert_eq!(r.unwrap().bytes, 0);
        assert_eq!((fake.size, fake.kinds.len(), fake.eots), (0, 0, 1));
        assert_eq!(fake.phase, Phase::Done);
        assert_eq!(seen.len(), 1);
    }

    #[test]
    fn block_numbers_wrap_past_255() {
        let data = bytes(300 * 1024 + 5);
        let (fake, r, _) = run(Script::default(), "big", &data);
        r.unwrap();
        assert_eq!(fake.kinds.len(), 301);
        assert_eq!(fake.file(), &data[..]);
    }

    #[test]
    fn uboot_text_naks_and_a_c_inside_text_before_the_start_are_skipped() {
        let script = Script {
            preamble: b"=> loady 0x40400000\r\n## Ready for binary (ymodem) download to \
                        0x40400000 at 115200 bps (CRC mode)...\r\n\x15C\x15"
                .to_vec(),
            ..Script::default()
        };
        let data = bytes(1500);
        let (fake, r, _) = run(script, "x", &data);
        r.unwrap();
        // Block 0 went once: neither the C of "CRC" nor the C followed by a NAK started it.
        assert_eq!((fake.headers, fake.writes), (1, 1 + 2 + 1 + 1));
        assert_eq!(fake.file(), &data[..]);
    }

    #[test]
    fn uboot_receiver_quirks() {
        // No C after block 0's ACK, C instead of NAK, ACK ACK C after EOT.
        let script = Script {
            uboot: true,
            nak: Some((2, 1)),
            ..Script::default()
        };
        let data = bytes(5000);
        let (fake, r, _) = run(script, "u-boot.img", &data);
        r.unwrap();
        assert_eq!(fake.file(), &data[..]);
        assert_eq!(fake.kinds.len(), 5 + 1, "block 2 went twice");
        assert_eq!(fake.phase, Phase::Done);
    }

    #[test]
    fn nak_resends_the_block() {
        let script = Script {
            nak: Some((3, 4)),
            ..Script::default()
        };
        let data = bytes(4 * 1024 + 7);
        let (fake, r, _) = run(script, "n", &data);
        r.unwrap();
        assert_eq!(fake.file(), &data[..]);
        assert_eq!(fake.kinds.len(), 5 + 4);
    }

    #[test]
    fn corrupted_block_fails_its_crc_and_goes_again() {
        // Writes: block 0, block 1, block 2 (corrupted), ...
        let script = Script {
            corrupt_write: Some(3),
            ..Script::default()
        };
        let data = bytes(3 * 1024);
        let (fake, r, _) = run(script, "c", &data);
        r.unwrap();
        assert_eq!(fake.crc_errors, 1);
        assert_eq!(fake.file(), &data[..]);
    }

    #[test]
    fn too_many_naks_fail_at_that_block_and_cancel() {
        let script = Script {
            nak: Some((2, 100)),
            ..Script::default()
        };
        let (fake, r, seen) = run(script, "n", &bytes(4000));
        let e = r.unwrap_err();
        assert!(matches!(
            e,
            Error::TooManyRetries {
                stage: Stage::Data(2),
                retries: 10,
                timed_out: false
            }
        ));
        assert_eq!(
            e.to_string(),
            "too many retries at block 2: sent 11 times, the last answered by a NAK."
        );
        assert_eq!(fake.kinds.len(), 1 + 11);
        assert!(fake.cans_after_give_up >= 3, "the receiver is told to stop");
        assert_eq!(seen.last().unwrap().sent, 1024);
    }

    #[test]
    fn receiver_can_can_aborts() {
        let script = Script {
            cancel_at: Some(3),
            ..Script::default()
        };
        let (_, r, seen) = run(script, "c", &bytes(10_000));
        let e = r.unwrap_err();
        assert!(matches!(e, Error::Cancelled(Stage::Data(3))), "{e:?}");
        assert_eq!(
            e.to_string(),
            "the receiver cancelled the transfer (CAN CAN) at block 3."
        );
        assert_eq!(seen.last().unwrap().sent, 2048);
    }

    #[test]
    fn a_missing_ack_of_the_batch_end_is_no_error() {
        // Units: block 0, blocks 1 and 2, EOT, the batch end (unanswered).
        let script = Script {
            silent_from: Some(5),
            ..Script::default()
        };
        let data = bytes(1500);
        let (fake, r, _) = run(script, "q", &data);
        assert_eq!(r.unwrap().bytes, 1500);
        assert_eq!((fake.units, fake.phase), (4 + 3, Phase::EndOfBatch));
        assert_eq!(fake.file(), &data[..]);
    }

    #[test]
    fn eot_naked_once_is_sent_again() {
        let script = Script {
            nak_first_eot: true,
            ..Script::default()
        };
        let data = bytes(2000);
        let (fake, r, _) = run(script, "e", &data);
        r.unwrap();
        assert_eq!((fake.eots, fake.phase), (2, Phase::Done));
        assert_eq!(fake.file(), &data[..]);
    }

    #[test]
    fn silent_receiver_fails_within_the_bound() {
        // Never a C at all.
        let mut fake = Fake::new(Script::default());
        fake.to_sender.clear();
        fake.say(b"U-Boot 2023.01\r\n");
        let began = Instant::now();
        let e = send_with(&mut fake, "s", &bytes(10), &quick(), &mut |_| {}).unwrap_err();
        let took = began.elapsed();
        assert!(matches!(e, Error::NeverStarted { naks: 0, .. }), "{e:?}");
        assert!(e
            .to_string()
            .starts_with("the YMODEM receiver never started: no 'C' came within 0."));
        assert!(
            e.to_string()
                .ends_with("; the line said \"U-Boot 2023.01\\r\\n\"."),
            "{e}"
        );
        assert!(
            took >= Duration::from_millis(300) && took < Duration::from_secs(5),
            "{took:?}"
        );

        // Only NAKs: said so.
        let mut fake = Fake::new(Script::default());
        fake.to_sender.clear();
        fake.say(&[NAK, NAK]);
        let e = send_with(&mut fake, "s", &bytes(10), &quick(), &mut |_| {}).unwrap_err();
        assert!(e.to_string().contains("only 2 NAK(s)"), "{e}");

        // Nothing at all.
        let mut fake = Fake::new(Script::default());
        fake.to_sender.clear();
        let e = send_with(&mut fake, "s", &bytes(10), &quick(), &mut |_| {}).unwrap_err();
        assert!(
            e.to_string()
                .ends_with(" and nothing else came (is `loady` running?)."),
            "{e}"
        );

        // Silent from the third frame (block 2) on: 11 sends, each waited for, then an error.
        let script = Script {
            silent_from: Some(3),
            ..Script::default()
        };
        let began = Instant::now();
        let (fake, r, _) = run(script, "s", &bytes(5000));
        let took = began.elapsed();
        assert!(matches!(
            r.unwrap_err(),
            Error::TooManyRetries {
                stage: Stage::Data(2),
                timed_out: true,
                ..
            }
        ));
        assert_eq!(fake.units, 2 + 11);
        assert!(
            took >= Duration::from_millis(11 * 40) && took < Duration::from_secs(10),
            "{took:?}"
        );
    }

    #[test]
    fn link_error_is_reported() {
        struct Broken;
        impl Link for Broken {
            fn read_byte(&mut self, _: Duration) -> io::Result<Option<u8>> {
                Err(io::Error::new(io::ErrorKind::BrokenPipe, "port closed"))
            }
            fn write_all(&mut self, _: &[u8]) -> io::Result<()> {
                Ok(())
            }
        }
        let e = send(&mut Broken, "x", &[1], &mut |_| {}).unwrap_err();
        assert_eq!(
            e.to_string(),
            "the link to the receiver failed: port closed."
        );
    }

    #[test]
    fn header_names() {
        let name = |n: &str, size: usize| {
            let h = header(n, size);
            assert!(h.len() <= 128);
            String::from_utf8(h).unwrap()
        };
        assert_eq!(name("out/img/my file.bin", 17), "my_file.bin\u{0}17\u{0}");
        assert_eq!(name("C:\\x\\a.img", 0), "a.img\u{0}0\u{0}");
        assert_eq!(name("dir/", 5), "file\u{0}5\u{0}");
        let long = "é".repeat(100);
        let h = name(&long, 246_907);
        assert!(h.ends_with("\u{0}246907\u{0}") && h.starts_with("ééé"));
        assert_eq!(header(&long, 246_907).len(), 128);
    }

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
