//! The framebuffer console in QEMU: the screen is read back through QEMU's monitor while the
//! firmware holds it at the end (`mairbench.hold=`), and its text is decoded with the
//! firmware's own font, glyph by glyph, exactly (every cell must be a glyph of the font, pixel
//! for pixel, or the line does not decode).
//! - UEFI's GOP: EDK2 with QEMU's ramfb (QemuRamfbDxe) and no serial line at all: the run
//!   passes by QEMU's exit status, and the screen (`screendump`) ends with the status line
//!   and the large status.
//! - A device tree's `simple-framebuffer` (r5g6b5) over RAM kept by `/reserved-memory`, read
//!   with `pmemsave`; the UART carries the records, whose `start` names the framebuffer.
//!
//! `mairbench.console=fb` where nothing describes a framebuffer is the boot matrix's row
//! `console_fb_without_a_framebuffer_says_so` (matrix.rs).

use crate::common;

use crate::common::dtb::{self, Node};
use mairbench_core::fb::{glyph, GLYPH_H, GLYPH_W};
use std::collections::HashMap;
use std::io::{Read, Write};
use std::os::unix::net::UnixStream;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Seconds the firmware keeps the screen at the end: time for a few reads of it.
const HOLD: &str = "mairbench.hold=6";

/// A screen read back: which pixels are lit (not the black background).
struct Pixels {
    width: usize,
    height: usize,
    lit: Vec<bool>,
}

impl Pixels {
    /// A binary PPM (P6) as QEMU's screendump writes it; `None` when incomplete.
    fn from_ppm(data: &[u8]) -> Option<Pixels> {
        let mut fields = Vec::new();
        let mut at = 0;
        while fields.len() < 4 {
            while data.get(at)?.is_ascii_whitespace() {
                at += 1;
            }
            let start = at;
            while !data.get(at)?.is_ascii_whitespace() {
                at += 1;
            }
            fields.push(std::str::from_utf8(&data[start..at]).ok()?.to_owned());
        }
        let (width, height): (usize, usize) = (fields[1].parse().ok()?, fields[2].parse().ok()?);
        if fields[0] != "P6" || fields[3] != "255" {
            return None;
        }
        let px = data.get(at + 1..at + 1 + width * height * 3)?;
        let lit = px.chunks(3).map(|p| p != [0, 0, 0]).collect();
        Some(Pixels { width, height, lit })
    }

    /// Raw r5g6b5 pixels (little-endian), `stride` bytes a row.
    fn from_rgb565(data: &[u8], width: usize, height: usize, stride: usize) -> Option<Pixels> {
        let mut lit = Vec::with_capacity(width * height);
        for y in 0..height {
            let row = data.get(y * stride..y * stride + width * 2)?;
            lit.extend(row.chunks(2).map(|p| p != [0, 0]));
        }
        Some(Pixels { width, height, lit })
    }

    fn at(&self, x: usize, y: usize) -> bool {
        self.lit[y * self.width + x]
    }

    /// The text of the glyph row at pixel row `y` drawn `scale` times the font's size from
    /// the left edge, trailing blanks dropped: `None` unless every cell is a glyph of the
    /// font, each font pixel a uniform `scale` x `scale` square.
    fn line(&self, glyphs: &HashMap<[u8; 16], char>, y: usize, scale: usize) -> Option<String> {
        let (cw, ch) = (GLYPH_W as usize * scale, GLYPH_H as usize * scale);
        if y + ch > self.height {
            return None;
        }
        let mut text = String::new();
        for cell in 0..self.width / cw {
            let mut rows = [0u8; 16];
            for (gy, row) in rows.iter_mut().enumerate() {
                for gx in 0..8 {
                    let (x0, y0) = (cell * cw + gx * scale, y + gy * scale);
                    let on = self.at(x0, y0);
                    for dy in 0..scale {
                        for dx in 0..scale {
                            if self.at(x0 + dx, y0 + dy) != on {
                                return None;
                            }
                        }
                    }
                    *row |= u8::from(on) << (7 - gx);
                }
            }
            text.push(*glyphs.get(&rows)?);
        }
        Some(text.trim_end().to_owned())
    }

    /// Every line that decodes, top to bottom: (pixel row, scale, text); blank ones left out.
    fn text(&self) -> Text {
        let glyphs: HashMap<[u8; 16], char> =
            (b' '..=b'~').map(|c| (glyph(c), char::from(c))).collect();
        let mut lines = Vec::new();
        for y in (0..self.height).step_by(GLYPH_H as usize) {
            for scale in 1..=4 {
                if let Some(text) = self.line(&glyphs, y, scale).filter(|t| !t.is_empty()) {
                    lines.push((y, scale, text));
                }
            }
        }
        lines
    }
}

/// Lines of decoded text: pixel row, scale, text.
type Text = Vec<(usize, usize, String)>;

/// QEMU's human monitor on a Unix socket.
struct Monitor(UnixStream);

impl Monitor {
    /// Connects once QEMU listens at `path` (within `limit`).
    fn connect(path: &Path, limit: Duration) -> Option<Monitor> {
        let started = Instant::now();
        while started.elapsed() < limit {
            if let Ok(stream) = UnixStream::connect(path) {
                stream
                    .set_read_timeout(Some(Duration::from_secs(20)))
                    .ok()?;
                let mut monitor = Monitor(stream);
                monitor.prompt().ok()?;
                return Some(monitor);
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }

    /// Reads up to the next `(qemu) ` prompt.
    fn prompt(&mut self) -> std::io::Result<String> {
        let mut got = Vec::new();
        let mut byte = [0u8; 256];
        while !got.ends_with(b"(qemu) ") {
            let n = self.0.read(&mut byte)?;
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            got.extend_from_slice(&byte[..n]);
        }
        Ok(String::from_utf8_lossy(&got).into_owned())
    }

    /// Runs one command and waits for it to finish.
    fn command(&mut self, line: &str) -> std::io::Result<String> {
        self.0.write_all(format!("{line}\n").as_bytes())?;
        self.prompt()
    }
}

/// Reads the screen with `read` through the monitor at `socket` until it shows the large
/// status (scale 2 or more, "PASS: " or "FAIL: ") in two reads in a row, or QEMU goes away;
/// returns the last text read and how many reads it took.
fn watch(
    socket: PathBuf,
    read: impl Fn(&mut Monitor) -> Option<Pixels> + Send + 'static,
) -> std::thread::JoinHandle<(Text, usize)> {
    std::thread::spawn(move || {
        let Some(mut monitor) = Monitor::connect(&socket, Duration::from_secs(60)) else {
            return (Vec::new(), 0);
        };
        let mut last = Vec::new();
        for reads in 1.. {
            let Some(pixels) = read(&mut monitor) else {
                return (last, reads);
            };
            let text = pixels.text();
            // Done once the large status is there and the screen no longer changes (a read
            // may catch the large line half drawn).
            let large = text
                .iter()
                .any(|(_, s, t)| *s >= 2 && (t.starts_with("PASS: ") || t.starts_with("FAIL: ")));
            if large && text == last {
                return (last, reads);
            }
            last = text;
            std::thread::sleep(Duration::from_millis(150));
        }
        unreachable!()
    })
}

/// The status line and the large status of a passing run on the screen, consistent with
/// each other: returns the number of checks.
fn assert_passed_on_screen(text: &[(usize, usize, String)]) -> u64 {
    let shown = || {
        text.iter()
            .map(|(y, s, t)| format!("{y:4} x{s} {t}"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    let large: Vec<_> = text.iter().filter(|(_, s, _)| *s >= 2).collect();
    assert_eq!(large.len(), 1, "one large line:\n{}", shown());
    let (large_y, _, large) = large[0];
    let rest = large
        .strip_prefix("PASS: ")
        .unwrap_or_else(|| panic!("large status {large:?}:\n{}", shown()));
    let checks: u64 = rest.split(' ').next().unwrap().parse().unwrap();
    let warnings = rest
        .strip_prefix(&format!("{checks} checks, 0 failed, "))
        .and_then(|r| r.strip_suffix(" warnings"))
        .unwrap_or_else(|| panic!("large status {large:?}"));
    let status = format!("mairbench: status pass ({checks} checks, 0 failed, {warnings} warnings");
    let line = text
        .iter()
        .find(|(_, s, t)| *s == 1 && t.starts_with(&status))
        .unwrap_or_else(|| panic!("no {status:?} line:\n{}", shown()));
    assert!(line.0 < *large_y, "the status line above the large one");
    assert!(
        !text.iter().any(|(_, _, t)| t.starts_with("@mb")),
        "records drawn:\n{}",
        shown()
    );
    checks
}

#[test]
fn gop_framebuffer_without_a_serial_line() {
    let socket = dtb::tmp("gop-monitor.sock");
    let shot = dtb::tmp("gop-screen.ppm");
    let _ = std::fs::remove_file(&socket);
    let watcher = {
        let shot = shot.clone();
        watch(socket.clone(), move |m| {
            let _ = std::fs::remove_file(&shot);
            m.command(&format!("screendump \"{}\"", shot.display()))
                .ok()?;
            // A screendump QEMU could not finish reads as not there yet: read again.
            Some(
                std::fs::read(&shot)
                    .ok()
                    .and_then(|d| Pixels::from_ppm(&d))
                    .unwrap_or(Pixels {
                        width: 0,
                        height: 0,
                        lit: Vec::new(),
                    }),
            )
        })
    };
    let run = common::boot(
        &[
            ("MAIRBENCH_BOOT", "uefi"),
            ("MAIRBENCH_DISPLAY", "ramfb"),
            ("MAIRBENCH_SERIAL", "none"),
            ("MAIRBENCH_MONITOR", socket.to_str().unwrap()),
            ("MAIRBENCH_TIMEOUT", "150"),
        ],
        &[
            "mairbench.quick",
            "mairbench.kernels=read-ldp",
            "mairbench.sizes=4K-4K",
            "mairbench.console=fb",
            HOLD,
        ],
    );
    let (text, reads) = watcher.join().expect("the screen watcher");
    assert_eq!(run.status, 0, "runner status; stderr:\n{}", run.stderr);
    assert!(
        run.stderr.contains("judged by QEMU's exit status 0 alone"),
        "{}",
        run.stderr
    );
    assert!(run.records.is_empty(), "no serial line, no records");
    let checks = assert_passed_on_screen(&text);
    assert!(checks > 10, "{checks} checks");
    eprintln!("gop: {reads} screen reads, {:?} runner wall time", run.wall);
    let _ = std::fs::remove_file(&shot);
}

/// The framebuffer of the device-tree runs: 640x480 r5g6b5 in the top 1 MiB of the runner's
/// 256 MiB at 0x40000000, kept from the firmware by /reserved-memory (no-map).
const FB_BASE: u64 = 0x4ff0_0000;
const FB_STRIDE: usize = 1280;

/// QEMU virt's device tree with that framebuffer, less what `drop` names
/// (`common::dtb::without`), written to a file named `name`.
fn virt_with_framebuffer(name: &str, drop: &[&str]) -> PathBuf {
    let size = 0x10_0000u64;
    let fb = Node::new("framebuffer@4ff00000")
        .prop("compatible", "simple-framebuffer\0")
        .reg(FB_BASE, size)
        .cells("width", &[640])
        .cells("height", &[480])
        .cells("stride", &[FB_STRIDE as u32])
        .prop("format", "r5g6b5\0");
    let keep = dtb::reserved_memory(vec![Node::new("framebuffer@4ff00000")
        .reg(FB_BASE, size)
        .prop("no-map", [])]);
    let virt = dtb::without(&dtb::qemu_virt(), drop);
    let blob = dtb::with_reservations(&virt, &[], &[keep, fb]);
    mairbench_core::fdt::Fdt::new(&blob).expect("the edited DTB is well-formed");
    let path = dtb::tmp(name);
    std::fs::write(&path, blob).unwrap();
    path
}

/// Watches the device-tree framebuffer through the monitor at `socket` (`pmemsave`).
fn watch_memory(socket: &Path, dump: PathBuf) -> std::thread::JoinHandle<(Text, usize)> {
    let (base, stride) = (FB_BASE, FB_STRIDE);
    let _ = std::fs::remove_file(socket);
    watch(socket.to_owned(), move |m| {
        // The path quoted: unquoted, HMP reads its '/' as a division of the size.
        let command = format!("pmemsave {base:#x} {} \"{}\"", stride * 480, dump.display());
        let answer = m.command(&command).ok()?;
        assert!(!answer.contains("Try \"help"), "{command}: {answer}");
        Pixels::from_rgb565(&std::fs::read(&dump).ok()?, 640, 480, stride)
    })
}

#[test]
fn simple_framebuffer_of_the_device_tree() {
    let dtb_path = virt_with_framebuffer("simplefb.dtb", &[]);
    let socket = dtb::tmp("simplefb-monitor.sock");
    let dump = dtb::tmp("simplefb-memory.raw");
    let watcher = watch_memory(&socket, dump.clone());
    let stride = FB_STRIDE;
    let run = common::boot(
        &[
            ("MAIRBENCH_DTB", dtb_path.to_str().unwrap()),
            ("MAIRBENCH_MONITOR", socket.to_str().unwrap()),
        ],
        &[
            "mairbench.quick",
            "mairbench.kernels=read-ldp",
            "mairbench.sizes=4K-4K",
            "mairbench.console=fb",
            HOLD,
        ],
    );
    let (text, reads) = watcher.join().expect("the screen watcher");
    run.assert_pass();
    let start = run.one("start");
    assert!(
        mairbench_host::read::log::mismatches(start.as_object().unwrap()).is_empty(),
        "the start record conforms to the schema: {start}"
    );
    for (key, value) in [
        ("fb", serde_json::json!("dtb")),
        ("fb_base", serde_json::json!("0x4ff00000")),
        ("fb_width", serde_json::json!(640)),
        ("fb_height", serde_json::json!(480)),
        ("fb_stride", serde_json::json!(stride)),
        ("fb_format", serde_json::json!("r5g6b5")),
    ] {
        assert_eq!(start[key], value, "start.{key}: {start}");
    }
    assert!(
        run.of_kind("map")
            .iter()
            .any(|m| m["what"] == "framebuffer" && m["memtype"] == "normal-nc"),
        "the framebuffer mapped Normal non-cacheable"
    );
    let checks = assert_passed_on_screen(&text);
    assert_eq!(serde_json::json!(checks), run.one("end")["checks"]);
    eprintln!(
        "simple-framebuffer: {reads} memory reads, {:?} runner wall time",
        run.wall
    );
    let _ = std::fs::remove_file(&dump);
}

/// No UART at all in the device tree (no PL011, no stdout-path, nothing that marks the tree as
/// QEMU's, whose PL011 the firmware would otherwise take): the framebuffer is the console
/// without being asked, and the last screen says that the records need a serial log.
#[test]
fn without_a_uart_the_screen_is_the_console() {
    let dtb_path = virt_with_framebuffer(
        "no-uart.dtb",
        &[
            "/pl011@9000000",
            "/aliases",
            "/chosen:stdout-path",
            "/:compatible",
            "/fw-cfg@9020000",
            "/platform-bus@c000000",
        ],
    );
    let socket = dtb::tmp("no-uart-monitor.sock");
    let dump = dtb::tmp("no-uart-memory.raw");
    let watcher = watch_memory(&socket, dump.clone());
    let run = common::boot(
        &[
            ("MAIRBENCH_DTB", dtb_path.to_str().unwrap()),
            ("MAIRBENCH_MONITOR", socket.to_str().unwrap()),
            ("MAIRBENCH_SERIAL", "none"),
        ],
        &[
            "mairbench.quick",
            "mairbench.kernels=read-ldp",
            "mairbench.sizes=4K-4K",
            HOLD,
        ],
    );
    let (text, _) = watcher.join().expect("the screen watcher");
    assert_eq!(run.status, 0, "runner status; stderr:\n{}", run.stderr);
    assert_passed_on_screen(&text);
    // (80 columns: the line wraps after "reads them".)
    let note = "console: no UART: the @mb records are not shown here; `cargo host` reads them";
    assert!(
        text.iter().any(|(_, s, t)| *s == 1 && t.starts_with(note)),
        "the last screen names the missing UART: {text:?}"
    );
    let _ = std::fs::remove_file(&dump);
}
