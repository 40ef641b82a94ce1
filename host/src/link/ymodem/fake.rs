//! A fake YMODEM receiver for the sender's tests: U-Boot's ways or lrzsz's, with the faults a
//! test script asks for.

use super::frames::{crc16, ACK, CAN, EOT, NAK, SOH, STX};
use super::transfer::{Link, Options};
use std::collections::VecDeque;
use std::io;
use std::time::Duration;

/// How the fake receiver misbehaves.
#[derive(Default, Clone)]
pub(super) struct Script {
    /// Text the receiver prints before its first `C`.
    pub(super) preamble: Vec<u8>,
    /// Like U-Boot: no `C` after block 0's ACK, `C` in place of NAK, ACK ACK `C` after EOT.
    pub(super) uboot: bool,
    /// NAKs for the first copies of data block N (1-based): (N, how many).
    pub(super) nak: Option<(usize, usize)>,
    /// CAN CAN in answer to data block N.
    pub(super) cancel_at: Option<usize>,
    /// Silent from the Nth frame on (counting every frame and EOT received).
    pub(super) silent_from: Option<usize>,
    /// NAK the first EOT.
    pub(super) nak_first_eot: bool,
    /// Flip a bit in the Nth write from the sender (1-based), on the way.
    pub(super) corrupt_write: Option<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Phase {
    Header,
    Data,
    EndOfBatch,
    Done,
}

/// An in-process YMODEM receiver: parses what the sender writes, answers by the script.
pub(super) struct Fake {
    pub(super) script: Script,
    pub(super) to_sender: VecDeque<u8>,
    pub(super) from_sender: Vec<u8>,
    pub(super) phase: Phase,
    pub(super) next: u8,
    pub(super) block: usize,
    pub(super) name: String,
    pub(super) size: usize,
    pub(super) data: Vec<u8>,
    /// Frames and EOTs received (bad ones too).
    pub(super) units: usize,
    pub(super) writes: usize,
    pub(super) crc_errors: usize,
    pub(super) headers: usize,
    pub(super) eots: usize,
    /// Lengths of the data blocks received (128 or 1024), in order, repeated ones too.
    pub(super) kinds: Vec<usize>,
    pub(super) naks_left: usize,
    pub(super) cans_after_give_up: usize,
}

impl Fake {
    pub(super) fn new(script: Script) -> Fake {
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

    pub(super) fn say(&mut self, bytes: &[u8]) {
        self.to_sender.extend(bytes);
    }

    pub(super) fn nak(&mut self) {
        let b = if self.script.uboot { b'C' } else { NAK };
        self.say(&[b]);
    }

    pub(super) fn parse(&mut self) {
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

    pub(super) fn unit(&mut self, u: &[u8]) {
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
    pub(super) fn file(&self) -> &[u8] {
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
pub(super) fn quick() -> Options {
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
pub(super) fn bytes(n: usize) -> Vec<u8> {
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
