//! A client of QEMU's gdb stub (`qemu/run` with `MAIRBENCH_GDB=1`), speaking the gdb remote
//! serial protocol over TCP: just what a page-table walk needs. Registers by name from the
//! stub's XML target description (QEMU's aarch64 stub lists the system registers, TTBR0_EL1,
//! TCR_EL1, MAIR_EL1..., in its generated `system-registers.xml` with their numbers),
//! memory by physical address (QEMU's `Qqemu.PhyMemMode:1` packet: `m` and `M` then take
//! guest physical addresses), stop (`0x03`) and continue (`c`).
//!
//! Every read has a timeout: a stub that stops answering is an error, never a hang.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// A connection to a gdb stub.
pub struct Gdb {
    stream: TcpStream,
    /// Register numbers by name, from the target description (filled by [`Gdb::registers`]).
    regs: BTreeMap<String, u32>,
    /// Bytes read but not yet consumed.
    pending: Vec<u8>,
}

/// How long any one answer may take (QEMU answers in microseconds; the machine is loaded).
const ANSWER: Duration = Duration::from_secs(30);

impl Gdb {
    /// Connects to the stub on `port` of this host, trying again until `ready()` says to give
    /// up (it returns an error: the runner exited, the time is up).
    pub fn connect(
        port: u16,
        mut ready: impl FnMut() -> Result<(), String>,
    ) -> Result<Gdb, String> {
        loop {
            match TcpStream::connect(("127.0.0.1", port)) {
                Ok(stream) => {
                    stream
                        .set_read_timeout(Some(ANSWER))
                        .map_err(|e| e.to_string())?;
                    stream.set_nodelay(true).map_err(|e| e.to_string())?;
                    return Ok(Gdb {
                        stream,
                        regs: BTreeMap::new(),
                        pending: Vec::new(),
                    });
                }
                Err(_) => {
                    ready()?;
                    std::thread::sleep(Duration::from_millis(50));
                }
            }
        }
    }

    fn byte(&mut self) -> Result<u8, String> {
        if self.pending.is_empty() {
            let mut buf = [0u8; 4096];
            let n = self
                .stream
                .read(&mut buf)
                .map_err(|e| format!("gdb stub: no answer: {e}"))?;
            if n == 0 {
                return Err("gdb stub: connection closed".into());
            }
            self.pending.extend_from_slice(&buf[..n]);
        }
        Ok(self.pending.remove(0))
    }

    /// The next packet's data (acks and notifications skipped), acknowledged, `}`-escapes
    /// and run-length encoding undone.
    fn reply(&mut self) -> Result<String, String> {
        let deadline = Instant::now() + ANSWER;
        loop {
            if Instant::now() > deadline {
                return Err("gdb stub: no packet".into());
            }
            if self.byte()? != b'$' {
                continue;
            }
            let mut data = Vec::new();
            loop {
                match self.byte()? {
                    b'#' => break,
                    b'}' => {
                        let b = self.byte()?;
                        data.push(b ^ 0x20);
                    }
                    b'*' => {
                        let n = self.byte()?.saturating_sub(29);
                        let last = *data.last().ok_or("gdb stub: run-length at the start")?;
                        data.extend(std::iter::repeat_n(last, n as usize));
                    }
                    b => data.push(b),
                }
            }
            let _checksum = [self.byte()?, self.byte()?];
            self.stream.write_all(b"+").map_err(|e| e.to_string())?;
            return Ok(String::from_utf8_lossy(&data).into_owned());
        }
    }

    fn send(&mut self, data: &str) -> Result<(), String> {
        let sum = data.bytes().fold(0u8, |s, b| s.wrapping_add(b));
        self.stream
            .write_all(format!("${data}#{sum:02x}").as_bytes())
            .map_err(|e| format!("gdb stub: {e}"))
    }

    /// Sends one packet and returns the stub's answer; an `E..` answer is an error.
    pub fn ask(&mut self, data: &str) -> Result<String, String> {
        self.send(data)?;
        let r = self.reply()?;
        if r.len() == 3 && r.starts_with('E') {
            return Err(format!("gdb stub answered {r} to {data}"));
        }
        Ok(r)
    }

    /// Lets the machine run (`c`; the answer comes when it stops).
    pub fn cont(&mut self) -> Result<(), String> {
        self.send("c")
    }

    /// Stops the machine (0x03) and returns the stop reply (`T02...`).
    pub fn stop(&mut self) -> Result<String, String> {
        self.stream
            .write_all(&[3])
            .map_err(|e| format!("gdb stub: {e}"))?;
        let r = self.reply()?;
        if r.starts_with('T') || r.starts_with('S') {
            Ok(r)
        } else {
            Err(format!("gdb stub: {r:?} is not a stop reply"))
        }
    }

    /// Learns the register numbers from the target description (`target.xml` and what it
    /// includes): a `<reg>`'s number is its `regnum`, else the previous one's plus one.
    pub fn registers(&mut self) -> Result<(), String> {
        let target = self.xfer("target.xml")?;
        let mut files = vec![target.clone()];
        for inc in target.split("href=\"").skip(1) {
            let name = inc.split('"').next().unwrap_or("");
            files.push(self.xfer(name)?);
        }
        let mut next = 0u32;
        for xml in &files {
            for reg in xml.split("<reg ").skip(1) {
                let tag = reg.split('>').next().unwrap_or("");
                let attr = |key: &str| {
                    tag.split(&format!("{key}=\""))
                        .nth(1)
                        .and_then(|v| v.split('"').next())
                };
                let num = attr("regnum").and_then(|n| n.parse().ok()).unwrap_or(next);
                if let Some(name) = attr("name") {
                    self.regs.insert(name.to_string(), num);
                }
                next = num + 1;
            }
        }
        Ok(())
    }

    fn xfer(&mut self, name: &str) -> Result<String, String> {
        let mut out = String::new();
        loop {
            let r = self.ask(&format!(
                "qXfer:features:read:{name}:{:x},{:x}",
                out.len(),
                0x800
            ))?;
            let (more, data) = r.split_at(r.len().min(1));
            out.push_str(data);
            match more {
                "l" => return Ok(out),
                "m" if !data.is_empty() => {}
                _ => return Err(format!("gdb stub: {name}: {r:?}")),
            }
        }
    }

    /// The register called `name` (as the target description spells it), as a little-endian
    /// number of up to 64 bits.
    pub fn reg(&mut self, name: &str) -> Result<u64, String> {
        let num = *self
            .regs
            .get(name)
            .ok_or_else(|| format!("gdb stub: no register {name} in the target description"))?;
        let hex = self.ask(&format!("p{num:x}"))?;
        le_hex(&hex).ok_or_else(|| format!("gdb stub: {name} = {hex:?}"))
    }

    /// Whether `m` and `M` take physical addresses (QEMU's `Qqemu.PhyMemMode`).
    pub fn physical(&mut self, on: bool) -> Result<(), String> {
        let r = self.ask(&format!("Qqemu.PhyMemMode:{}", u8::from(on)))?;
        if r == "OK" {
            Ok(())
        } else {
            Err(format!(
                "gdb stub: Qqemu.PhyMemMode: {r:?} (not QEMU's stub?)"
            ))
        }
    }

    /// The 8 bytes at `addr`, little-endian.
    pub fn read_u64(&mut self, addr: u64) -> Result<u64, String> {
        let hex = self.ask(&format!("m{addr:x},8"))?;
        le_hex(&hex)
            .filter(|_| hex.len() == 16)
            .ok_or_else(|| format!("gdb stub: m{addr:x},8 = {hex:?}"))
    }

    /// Writes `value` (8 bytes, little-endian) at `addr`.
    pub fn write_u64(&mut self, addr: u64, value: u64) -> Result<(), String> {
        let hex: String = value
            .to_le_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        match self.ask(&format!("M{addr:x},8:{hex}"))?.as_str() {
            "OK" => Ok(()),
            r => Err(format!("gdb stub: M{addr:x}: {r:?}")),
        }
    }
}

/// A little-endian hex string of up to 8 bytes as a number.
fn le_hex(hex: &str) -> Option<u64> {
    if hex.is_empty() || !hex.len().is_multiple_of(2) || hex.len() > 16 {
        return None;
    }
    (0..hex.len()).step_by(2).rev().try_fold(0u64, |v, i| {
        Some(v << 8 | u64::from(u8::from_str_radix(hex.get(i..i + 2)?, 16).ok()?))
    })
}
