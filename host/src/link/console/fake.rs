//! A scripted U-Boot for the console's tests: autoboot text, a prompt, the echo, command
//! output, `$?`, and `loady`'s YMODEM receiver.

use super::port::Port;
use super::uboot::MARKER;
use std::collections::VecDeque;
use std::io;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// What the fake U-Boot does with a command line.
pub(super) enum Reply {
    /// Prints this and succeeds.
    Ok(&'static str),
    /// Prints this and fails with the status.
    Fail(&'static str, u32),
    /// Starts a firmware that prints this (no prompt afterwards).
    Boot(&'static str),
}

/// A scripted U-Boot: autoboot text, prompt, echo, command output, `$?`.
pub(super) struct Fake {
    pub(super) out: VecDeque<u8>,
    pub(super) typed: Vec<u8>,
    pub(super) counting: bool,
    pub(super) hush: bool,
    pub(super) prompt: &'static str,
    pub(super) respond: fn(&str) -> Reply,
    pub(super) history: Arc<Mutex<Vec<String>>>,
    pub(super) close_when_empty: bool,
    pub(super) mute: bool,
    /// `loady` running: the bytes of the block being received, and the file so far.
    pub(super) ymodem: Option<Vec<u8>>,
    pub(super) file: Arc<Mutex<Vec<u8>>>,
    pub(super) size: usize,
    /// What the fake's `## Total Size` line says beyond the true size.
    pub(super) size_error: usize,
}

pub(super) fn fake(respond: fn(&str) -> Reply) -> Fake {
    Fake {
        out: VecDeque::new(),
        typed: Vec::new(),
        counting: false,
        hush: true,
        prompt: "=> ",
        respond,
        history: Arc::default(),
        close_when_empty: false,
        mute: false,
        ymodem: None,
        file: Arc::default(),
        size: 0,
        size_error: 0,
    }
}

impl Fake {
    pub(super) fn autobooting(mut self) -> Self {
        self.out.extend(
            b"U-Boot 2023.01\r\nDRAM:  256 MiB\r\nHit any key to stop autoboot:  5 \x08\x08\x08 4 "
                .iter(),
        );
        self.counting = true;
        self
    }
    pub(super) fn print(&mut self, s: &str) {
        self.out.extend(s.bytes());
    }
}

impl Port for Fake {
    fn recv(&mut self, buf: &mut [u8], timeout: Duration) -> io::Result<usize> {
        if self.out.is_empty() {
            if self.close_when_empty {
                return Err(io::Error::new(
                    io::ErrorKind::BrokenPipe,
                    "the line is gone",
                ));
            }
            std::thread::sleep(timeout.min(Duration::from_millis(10)));
            return Ok(0);
        }
        let n = buf.len().min(self.out.len()).min(7);
        for (i, b) in self.out.drain(..n).enumerate() {
            buf[i] = b;
        }
        Ok(n)
    }

    fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
        if self.mute {
            return Ok(());
        }
        for &b in bytes {
            if self.ymodem.is_some() {
                self.receive(b);
                continue;
            }
            if self.counting {
                self.counting = false;
                let p = format!("\x08\x08\x08 0 \r\n{}", self.prompt);
                self.print(&p);
                continue;
            }
            if b != b'\r' {
                self.typed.push(b);
                self.out.push_back(b);
                continue;
            }
            self.print("\r\n");
            let line = String::from_utf8(std::mem::take(&mut self.typed)).unwrap();
            let suffix = format!("; echo {MARKER}$?");
            let (cmd, marked) = match line.strip_suffix(&suffix) {
                Some(c) => (c.to_owned(), true),
                None => (line.clone(), false),
            };
            if cmd.is_empty() {
                let p = self.prompt;
                self.print(p);
                continue;
            }
            self.history.lock().unwrap().push(cmd.clone());
            if cmd.starts_with("loady") {
                self.print(
                    "## Ready for binary (ymodem) download to 0x40400000 at 115200 bps...\r\nC",
                );
                self.ymodem = Some(Vec::new());
                continue;
            }
            let (text, status) = match (self.respond)(&cmd) {
                Reply::Ok(t) => (t, 0),
                Reply::Fail(t, s) => (t, s),
                Reply::Boot(t) => {
                    self.print(t);
                    continue;
                }
            };
            self.print(text);
            if marked {
                let rc = if self.hush {
                    status.to_string()
                } else {
                    "$?".into()
                };
                self.print(&format!("{MARKER}{rc}\r\n"));
            }
            let p = self.prompt;
            self.print(p);
        }
        Ok(())
    }
}

impl Fake {
    /// One byte of a YMODEM exchange (U-Boot's loady): blocks ACKed, the header's size
    /// kept, the empty block 0 ends the batch with U-Boot's lines, marker and prompt.
    pub(super) fn receive(&mut self, b: u8) {
        let block = self.ymodem.as_mut().unwrap();
        block.push(b);
        let len = match block[0] {
            0x04 => {
                block.clear();
                self.out.push_back(0x06);
                self.out.push_back(b'C');
                return;
            }
            0x01 => 128,
            0x02 => 1024,
            _ => {
                block.clear();
                return;
            }
        };
        if block.len() < 3 + len + 2 {
            return;
        }
        let data = block[3..3 + len].to_vec();
        let number = block[1];
        block.clear();
        self.out.push_back(0x06);
        if number != 0 {
            let mut file = self.file.lock().unwrap();
            let take = (self.size - file.len()).min(len);
            file.extend_from_slice(&data[..take]);
        } else if data[0] != 0 {
            let name_end = data.iter().position(|&c| c == 0).unwrap();
            let size_text = &data[name_end + 1..];
            let size_end = size_text.iter().position(|&c| c == 0 || c == b' ').unwrap();
            self.size = std::str::from_utf8(&size_text[..size_end])
                .unwrap()
                .parse()
                .unwrap();
        } else {
            self.ymodem = None;
            let got = self.size + self.size_error;
            self.print(&format!(
                "## Total Size      = 0x{got:08x} = {got} Bytes\r\n## Start Addr      = 0x40400000\r\n{MARKER}0\r\n"
            ));
            let p = self.prompt;
            self.print(p);
        }
    }
}

pub(super) const RUN: &str = "## Booting\r\n@mb {\"kind\":\"start\",\"schema\":1}\r\nmairbench\r\n\
                   @mb {\"kind\":\"end\",\"status\":\"pass\"}\r\n";

pub(super) fn uboot(cmd: &str) -> Reply {
    match cmd.split_whitespace().next().unwrap_or("") {
        "setenv" | "virtio" => Reply::Ok(""),
        "load" if cmd.contains("missing.bin") => Reply::Fail(
            "** Unable to read file missing.bin **\r\nFailed to load 'missing.bin'\r\n",
            1,
        ),
        "load" => Reply::Ok("241664 bytes read in 3 ms (76.8 MiB/s)\r\n"),
        "booti" if cmd.contains("0x0") => Reply::Fail("Bad Linux ARM64 Image magic!\r\n", 1),
        "booti" => Reply::Boot(RUN),
        "hang" => Reply::Boot("## Booting\r\n@mb {\"kind\":\"start\",\"schema\":1}\r\n"),
        _ => Reply::Fail("Unknown command 'x' - try 'help'\r\n", 1),
    }
}
