//! The exchange: wait for the receiver's `C`, block 0, the data blocks, EOT, the batch end;
//! each block sent again on a NAK, a `C` or silence, a bounded number of times.

use super::frames::{frame, header, ACK, CAN, CRC_START, EOT, NAK, PAD};
use super::transfer::{Error, Link, Options, Progress, Sent, Stage};
use std::time::{Duration, Instant};

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
    use super::super::fake::{bytes, quick, Fake, Phase, Script};
    use super::*;
    use std::io;

    fn run(script: Script, name: &str, data: &[u8]) -> (Fake, Result<Sent, Error>, Vec<Progress>) {
        let mut fake = Fake::new(script);
        let mut seen = Vec::new();
        let r = send_with(&mut fake, name, data, &quick(), &mut |p| seen.push(p));
        (fake, r, seen)
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
}
