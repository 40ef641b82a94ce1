//! The YMODEM sender (`mairbench_host::ymodem`) against the real receiver: U-Boot's `loady`
//! (Debian's 2023.01 for QEMU, which `qemu/deps uboot` installs) in QEMU's `virt`, over the
//! PL011 on a pty opened as a serial port (the `Link` the console uses).

use mairbench_host::ymodem::{self, Link};
use std::io::{self, Read};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// Pseudo-random bytes (xorshift).
fn bytes(n: usize, mut x: u64) -> Vec<u8> {
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 32) as u8
        })
        .collect()
}

/// CRC-32 (IEEE 802.3), as U-Boot's `crc32` command computes it.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// QEMU's `virt` with Debian's U-Boot, its PL011 on a pty; killed when dropped.
struct Qemu(Child);

impl Drop for Qemu {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Reads the console into `seen` until it ends with `what` (`true`) or `wait` passes.
fn read_until(
    port: &mut Box<dyn serialport::SerialPort>,
    seen: &mut Vec<u8>,
    what: &str,
    wait: Duration,
) -> bool {
    let deadline = Instant::now() + wait;
    while Instant::now() < deadline {
        match port.read_byte(Duration::from_millis(100)) {
            Ok(Some(b)) => seen.push(b),
            Ok(None) => {}
            Err(e) => panic!("reading QEMU's pty: {e}"),
        }
        if seen.ends_with(what.as_bytes()) {
            return true;
        }
    }
    false
}

/// The real receiver: U-Boot's `loady` (Debian's 2023.01 for QEMU) in QEMU's `virt`, over the
/// PL011 on a pty opened as a serial port; U-Boot's `crc32` of what it wrote must be the file's.
/// A firmware-sized file (241 KiB); the transfer took 11 to 31 s here (QEMU models no baud
/// rate, so the rate follows the host's load).
#[test]
fn uboot_loady_in_qemu_receives_the_file() {
    let uboot = "/usr/lib/u-boot/qemu_arm64/u-boot.bin";
    assert!(
        Path::new(uboot).exists(),
        "{uboot} is missing: run `qemu/deps uboot` (./test.sh does) to install Debian's u-boot-qemu"
    );
    let mut child = Command::new("qemu-system-aarch64")
        .args(["-M", "virt", "-cpu", "cortex-a72", "-m", "256M"])
        .args(["-display", "none", "-monitor", "none", "-nic", "none"])
        .args([
            "-bios",
            uboot,
            "-chardev",
            "pty,id=c",
            "-serial",
            "chardev:c",
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("qemu-system-aarch64 starts (qemu/deps installs it)");
    // QEMU names the pty on stderr (stdout in some versions): "char device redirected to
    // /dev/pts/N (label c)".
    let (tx, rx) = mpsc::channel();
    for out in [
        Box::new(child.stderr.take().unwrap()) as Box<dyn Read + Send>,
        Box::new(child.stdout.take().unwrap()),
    ] {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in io::BufRead::lines(io::BufReader::new(out)).map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
    }
    let qemu = Qemu(child);
    let mut said = String::new();
    let path = loop {
        match rx.recv_timeout(Duration::from_secs(30)) {
            Ok(line) => {
                said += &line;
                said.push('\n');
                if let Some(rest) = line.split("redirected to ").nth(1) {
                    break rest.split_whitespace().next().unwrap().to_string();
                }
            }
            Err(_) => panic!("QEMU named no pty within 30 s; it said:\n{said}"),
        }
    };
    let mut port = serialport::new(&path, 115_200)
        .timeout(Duration::from_millis(100))
        .open()
        .unwrap_or_else(|e| panic!("{path}: {e}"));

    // Stop autoboot with one key once U-Boot asks for one. (Enter typed every 500 ms from
    // QEMU's start instead left U-Boot deaf after its prompt in 4 runs of 5, cause not found.)
    let mut seen = Vec::new();
    assert!(
        read_until(
            &mut port,
            &mut seen,
            "Hit any key to stop autoboot: ",
            Duration::from_secs(40)
        ),
        "U-Boot did not offer to stop autoboot within 40 s:\n{}",
        String::from_utf8_lossy(&seen)
    );
    Link::write_all(&mut port, b" ").unwrap();
    assert!(
        read_until(&mut port, &mut seen, "\n=> ", Duration::from_secs(20)),
        "no U-Boot prompt within 20 s of the key:\n{}",
        String::from_utf8_lossy(&seen)
    );
    let boot_log = String::from_utf8_lossy(&seen).to_string();
    assert!(
        !boot_log.contains("Scanning") && !boot_log.contains("BOOTP"),
        "the key did not stop autoboot:\n{boot_log}"
    );

    let data = bytes(241 * 1024 + 77, 0x5DEE_CE66_D1CE_4E5B);
    seen.clear();
    Link::write_all(&mut port, b"loady 0x40400000\r").unwrap();
    let sent = ymodem::send(&mut port, "mairbench.bin", &data, &mut |_| {})
        .unwrap_or_else(|e| panic!("{e}\nU-Boot had said:\n{boot_log}"));
    seen.clear();
    assert!(
        read_until(&mut port, &mut seen, "\n=> ", Duration::from_secs(20)),
        "no prompt after loady:\n{}",
        String::from_utf8_lossy(&seen)
    );
    let after = String::from_utf8_lossy(&seen).to_string();
    assert!(
        after.contains(&format!("= {} Bytes", data.len())),
        "U-Boot's total size:\n{after}"
    );

    seen.clear();
    let command = format!("crc32 0x40400000 {:#x}\r", data.len());
    Link::write_all(&mut port, command.as_bytes()).unwrap();
    assert!(read_until(
        &mut port,
        &mut seen,
        "\n=> ",
        Duration::from_secs(20)
    ));
    let said = String::from_utf8_lossy(&seen).to_string();
    let theirs = said
        .split("==> ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .unwrap_or_else(|| panic!("no crc32 result in:\n{said}"));
    assert_eq!(
        theirs,
        format!("{:08x}", crc32(&data)),
        "U-Boot's CRC-32 of what loady wrote"
    );
    eprintln!(
        "ymodem to U-Boot loady over QEMU's PL011 on a pty: {} B in {:.3} s = {:.1} kB/s",
        sent.bytes,
        sent.elapsed.as_secs_f64(),
        sent.rate() / 1e3
    );
    drop(qemu);
}
