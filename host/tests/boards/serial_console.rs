//! `cargo host console` against a stand-in board: `qemu/run` with MAIRBENCH_SERIAL=pty puts
//! QEMU's UART (Debian's U-Boot, then the firmware) on a pseudo-terminal and types nothing;
//! the console types a boot script into U-Boot (the image loaded from the virtio disk), or a
//! test types through the interactive console with standard input a pipe.

use crate::common;
use crate::common::{firmware, root};
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// A runner serving a stand-in board on a pseudo-terminal.
struct Board {
    child: Child,
    pty: String,
    stdout: JoinHandle<String>,
    stderr: mpsc::Receiver<String>,
    started: Instant,
}

/// Starts `qemu/run` with MAIRBENCH_SERIAL=pty on the boot path `boot`; returns once it named
/// the pseudo-terminal.
fn stand_in(boot: &str) -> Board {
    let started = Instant::now();
    let mut child = Command::new(root().join("qemu/run"))
        .arg(firmware())
        .arg("mairbench.quick")
        .env("MAIRBENCH_BOOT", boot)
        .env("MAIRBENCH_SERIAL", "pty")
        .env("MAIRBENCH_TIMEOUT", "120")
        .env("MAIRBENCH_INSTALL", "0")
        .env("MAIRBENCH_RECORDS", "1")
        .env_remove("MAIRBENCH_LOG")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("qemu/run starts");
    let mut out = child.stdout.take().expect("piped stdout");
    let stdout = std::thread::spawn(move || {
        let mut s = String::new();
        let _ = out.read_to_string(&mut s);
        s
    });
    let (tx, rx) = mpsc::channel();
    let err = child.stderr.take().expect("piped stderr");
    std::thread::spawn(move || {
        for line in BufReader::new(err).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let mut said = Vec::new();
    let pty = loop {
        match rx.recv_timeout(Duration::from_secs(90)) {
            Ok(line) => {
                if let Some(p) = line.strip_prefix("mairbench: serial console on ") {
                    break p.to_owned();
                }
                said.push(line);
            }
            Err(_) => {
                let _ = child.kill();
                panic!(
                    "the runner named no pseudo-terminal; it said:\n{}",
                    said.join("\n")
                );
            }
        }
    };
    assert!(pty.starts_with("/dev/pts/"), "{pty}");
    Board {
        child,
        pty,
        stdout,
        stderr: rx,
        started,
    }
}

impl Board {
    /// Waits for the runner (bounded); its exit status, stdout and stderr.
    fn finish(mut self) -> (i32, String, String) {
        let status = loop {
            if let Some(s) = self.child.try_wait().expect("runner waited for") {
                break s.code().unwrap_or(-1);
            }
            if self.started.elapsed() > Duration::from_secs(180) {
                let _ = self.child.kill();
                panic!("qemu/run still running after 180 s");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let stderr: Vec<String> = self.stderr.try_iter().collect();
        (status, self.stdout.join().unwrap(), stderr.join("\n"))
    }

    /// Powers the stand-in board off from its prompt (U-Boot's `poweroff`, PSCI), then
    /// [`Board::finish`]. The pseudo-terminal stays open until the runner exits: QEMU reads
    /// what was typed only once it has noticed the terminal open (it looks once a second).
    fn power_off(self) -> (i32, String, String) {
        let mut port = serialport::new(&self.pty, 115_200)
            .timeout(Duration::from_millis(200))
            .open()
            .expect("the pseudo-terminal opens again");
        let typist = std::thread::spawn(move || {
            for _ in 0..60 {
                if port.write_all(b"\rpoweroff\r").is_err() {
                    break;
                }
                let mut buf = [0u8; 256];
                let until = Instant::now() + Duration::from_secs(2);
                while Instant::now() < until {
                    match port.read(&mut buf) {
                        Ok(0) => return,
                        Ok(_) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
                        Err(_) => return,
                    }
                }
            }
        });
        let finished = self.finish();
        let _ = typist.join();
        finished
    }
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("mairbench-serial-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

/// Runs `cargo host console` with `args`.
fn console(args: &[&str]) -> (Output, Duration) {
    let started = Instant::now();
    let out = Command::new(env!("CARGO_BIN_EXE_mairbench-host"))
        .arg("console")
        .args(args)
        .stdin(Stdio::null())
        .output()
        .expect("mairbench-host runs");
    (out, started.elapsed())
}

/// The script a person types on the board, made for QEMU: the disk is virtio, the command
/// line the quick one.
fn qemu_script(path: &Path, lines: &[&str]) {
    let mut text = String::from("# a stand-in board (qemu/run MAIRBENCH_SERIAL=pty)\n\n");
    for l in lines {
        text.push_str(l);
        text.push('\n');
    }
    std::fs::write(path, text).unwrap();
}

#[test]
fn boot_script_over_the_pty_boots_the_image_from_the_virtio_disk() {
    let board = stand_in("uboot");
    let script = temp("board.cmd");
    // boot/board.cmd with the device set to virtio 0:1 and the quick command line.
    let board_cmd = std::fs::read_to_string(root().join("boot/board.cmd")).unwrap();
    let text = board_cmd
        .replace("mmc 0:1", "virtio 0:1")
        .replace("setenv bootargs\n", "setenv bootargs mairbench.quick\n");
    assert_ne!(
        text, board_cmd,
        "boot/board.cmd names mmc 0:1 and an empty bootargs"
    );
    std::fs::write(&script, format!("virtio scan\n{text}")).unwrap();
    let log = temp("boot.log");
    let (out, wall) = console(&[
        &board.pty,
        "--boot",
        script.to_str().unwrap(),
        "--until-end",
        "--timeout",
        "150",
        "--log",
        log.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let stdout = String::from_utf8_lossy(&out.stdout);
    eprintln!(
        "console --boot ... --until-end took {:.1} s",
        wall.as_secs_f64()
    );
    let (runner, runner_out, runner_err) = board.finish();
    assert_eq!(out.status.code(), Some(0), "{stderr}\n{stdout}");
    assert!(stdout.contains("the run passed"), "{stdout}");
    assert!(
        stderr.contains("console: U-Boot's prompt is \"=> \""),
        "{stderr}"
    );
    assert!(stderr.contains("appended to"), "{stderr}");
    let kept = std::fs::read(&log).unwrap();
    let parsed = mairbench_host::read::log::parse(&kept);
    assert!(
        mairbench_host::read::log::verdict(&parsed, "log").is_none(),
        "a passing run"
    );
    let text = String::from_utf8_lossy(&kept);
    for seen in [
        "bytes read in",
        "@@mbrc=0",
        "## Flattened Device Tree",
        "\"kind\":\"start\"",
    ] {
        assert!(text.contains(seen), "no {seen:?} in the log:\n{text}");
    }
    let records = common::records(&text);
    let start = records.iter().find(|r| r["kind"] == "start").unwrap();
    assert_eq!(
        start["bootargs"], "mairbench.quick",
        "typed by the console, nothing else"
    );
    assert_eq!(start["bootargs_from"], "dtb");
    // The runner kept and judged the same console.
    assert_eq!(runner, 0, "{runner_err}");
    assert!(runner_out.contains("@mb {\"kind\":\"end\",\"status\":\"pass\""));
    let _ = std::fs::remove_file(&log);
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

/// `loady` in the boot script and `--send`: the image goes over the pseudo-terminal by YMODEM
/// (the sender of host/src/link/ymodem/, U-Boot's receiver), U-Boot's "## Total Size" matches it,
/// U-Boot's `crc32` of what it wrote is the image's (every byte arrived as sent), and booti
/// starts it.
#[test]
fn loady_over_the_pty_takes_the_image_by_ymodem() {
    let board = stand_in("uboot");
    let script = temp("loady.cmd");
    qemu_script(
        &script,
        &[
            "setenv bootargs mairbench.quick",
            "loady ${kernel_addr_r}",
            "crc32 ${kernel_addr_r} ${filesize}",
            "booti ${kernel_addr_r} - ${fdtcontroladdr}",
        ],
    );
    // qemu/run leaves the raw image next to the ELF before it starts QEMU.
    let image = firmware().with_extension("bin");
    let bytes = std::fs::read(&image).unwrap();
    let size = bytes.len() as u64;
    let log = temp("loady.log");
    let (out, wall) = console(&[
        &board.pty,
        "--boot",
        script.to_str().unwrap(),
        "--send",
        image.to_str().unwrap(),
        "--timeout",
        "150",
        "--log",
        log.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let (runner, _, runner_err) = board.finish();
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    let rate = stderr
        .lines()
        .find(|l| l.starts_with("console: sent mairbench.bin: "))
        .unwrap_or_else(|| panic!("no rate line:\n{stderr}"));
    eprintln!(
        "{rate}; console --boot ... --send ... took {:.1} s",
        wall.as_secs_f64()
    );
    assert!(rate.contains(&format!(": {size} B in ")), "{rate}");
    assert!(
        stderr.contains(&format!("console: U-Boot received {size} B")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("kB / {} kB, ", size / 1000)),
        "a progress bar:\n{stderr}"
    );
    let kept = String::from_utf8_lossy(&std::fs::read(&log).unwrap()).into_owned();
    assert!(
        kept.contains("Ready for binary (ymodem) download"),
        "{kept}"
    );
    let theirs = kept
        .split("==> ")
        .nth(1)
        .and_then(|t| t.split_whitespace().next())
        .unwrap_or_else(|| panic!("no crc32 result in:\n{kept}"));
    assert_eq!(
        theirs,
        format!("{:08x}", crc32(&bytes)),
        "U-Boot's CRC-32 of what loady wrote"
    );
    assert!(
        kept.contains("@mb {\"kind\":\"end\",\"status\":\"pass\""),
        "{kept}"
    );
    assert_eq!(runner, 0, "{runner_err}");
    let _ = std::fs::remove_file(&log);
}

#[test]
fn a_failing_command_is_named_and_ends_the_console_at_once() {
    let board = stand_in("uboot-script");
    let script = temp("missing.cmd");
    qemu_script(
        &script,
        &[
            "virtio scan",
            "load virtio 0:1 ${kernel_addr_r} missing.bin",
            "booti ${kernel_addr_r} - ${fdtcontroladdr}",
        ],
    );
    let log = temp("missing.log");
    let (out, wall) = console(&[
        &board.pty,
        "--boot",
        script.to_str().unwrap(),
        "--log",
        log.to_str().unwrap(),
        "--timeout",
        "150",
    ]);
    let (runner, _, runner_err) = board.power_off();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        wall < Duration::from_secs(60),
        "the failure ends the console, not the 150 s limit: {wall:?}"
    );
    assert!(
        stderr.contains(
            "line 4 of the boot script failed (status 1): load virtio 0:1 ${kernel_addr_r} missing.bin"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("U-Boot: Failed to load 'missing.bin'"),
        "{stderr}"
    );
    assert!(stderr.contains("ls <interface> <dev>:<part>"), "{stderr}");
    assert!(
        !stderr.contains("line 5: booti"),
        "booti was not typed:\n{stderr}"
    );
    // No end record: the run failed.
    assert_eq!(runner, 1, "{runner_err}");
    let _ = std::fs::remove_file(&log);
}

/// The interactive console, its standard input a pipe (no terminal: no raw mode, the bytes pass
/// through) or, through util-linux's `script`, a pseudo-terminal (raw mode: without it the line
/// discipline would hold Ctrl-] q until a line end): a key stops autoboot, a command is
/// answered, Ctrl-] q quits, the log keeps it all.
fn interactive(on_terminal: bool) {
    let board = stand_in("uboot");
    let log = temp(&format!("interactive-{on_terminal}.log"));
    let _ = std::fs::remove_file(&log);
    let exe = env!("CARGO_BIN_EXE_mairbench-host");
    let mut cmd = if on_terminal {
        let line = format!(
            "'{exe}' console {} --timeout 120 --log '{}'",
            board.pty,
            log.display()
        );
        let mut c = Command::new("script");
        c.args(["-qec", &line, "/dev/null"]);
        c
    } else {
        let mut c = Command::new(exe);
        c.args(["console", &board.pty, "--timeout", "120", "--log"])
            .arg(&log);
        c
    };
    let mut child = cmd
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("mairbench-host (or util-linux's script) runs");
    let mut stdin = child.stdin.take().unwrap();
    let mut out = child.stdout.take().unwrap();
    let shown = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = out.read_to_end(&mut s);
        String::from_utf8_lossy(&s).into_owned()
    });
    let wait_log = |what: &str| {
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            let kept = std::fs::read(&log).unwrap_or_default();
            if String::from_utf8_lossy(&kept).contains(what) {
                return;
            }
            assert!(Instant::now() < until, "no {what:?} in the log within 60 s");
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    wait_log("\u{8}\u{8}\u{8}");
    stdin.write_all(b" ").unwrap();
    wait_log("=> ");
    stdin.write_all(b"printenv kernel_addr_r\r").unwrap();
    wait_log("kernel_addr_r=0x");
    stdin.write_all(&[0x1d, b'q']).unwrap();
    let started = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the escape did not quit"
        );
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    let said = format!("{}{stderr}", shown.join().unwrap()).replace('\r', "");
    let (runner, _, _) = board.power_off();
    assert!(status.success(), "{said}");
    let mode = if on_terminal {
        "console: raw terminal: Ctrl-] then q quits"
    } else {
        "standard input is not a terminal: its bytes pass through"
    };
    assert!(said.contains(mode), "{said}");
    assert!(
        said.contains(&format!("appended to {}", log.display())),
        "{said}"
    );
    let kept = String::from_utf8_lossy(&std::fs::read(&log).unwrap()).into_owned();
    assert!(
        kept.contains("=> printenv kernel_addr_r\r\nkernel_addr_r=0x"),
        "{kept}"
    );
    assert_eq!(runner, 1, "powered off without a run");
    let _ = std::fs::remove_file(&log);
}

#[test]
fn interactive_console_from_a_pipe() {
    interactive(false);
}

#[test]
fn interactive_console_on_a_terminal_in_raw_mode() {
    interactive(true);
}

#[test]
fn the_pty_serial_is_refused_where_it_does_not_apply() {
    for (boot, serial, said) in [
        (
            "kernel",
            "pty",
            "MAIRBENCH_SERIAL=pty applies to the U-Boot paths",
        ),
        ("uefi", "pty", "not MAIRBENCH_BOOT=uefi"),
        (
            "uboot",
            "usb",
            "MAIRBENCH_SERIAL must be stdio, pty or none, not 'usb'",
        ),
    ] {
        let out = Command::new(root().join("qemu/run"))
            .arg(firmware())
            .env("MAIRBENCH_BOOT", boot)
            .env("MAIRBENCH_SERIAL", serial)
            .env("MAIRBENCH_INSTALL", "0")
            .stdin(Stdio::null())
            .output()
            .expect("qemu/run runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{boot} {serial}: {stderr}");
        assert!(stderr.contains(said), "{stderr}");
    }
}

#[test]
fn console_refuses_bad_scripts_and_ports_in_one_sentence() {
    let script = temp("bad.cmd");
    std::fs::write(&script, "# nothing\n").unwrap();
    let (out, _) = console(&["/dev/null", "--boot", script.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("holds no command"));
    std::fs::write(&script, "loady ${kernel_addr_r}\n").unwrap();
    let (out, _) = console(&["/dev/null", "--boot", script.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--send FILE"));
    let (out, _) = console(&["/dev/mairbench-no-such-port", "--log", "/dev/null"]);
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("cannot open serial port /dev/mairbench-no-such-port"),
        "{stderr}"
    );
    let (out, _) = console(&["/dev/null", "--timeout", "-1"]);
    assert_eq!(out.status.code(), Some(2));
}

/// Nobody stops autoboot: the stand-in board boots mairbench as the path does without a
/// pseudo-terminal, and the runner passes. A console that waits for the end record with a
/// shorter time limit than the 5 s autoboot delay ends with status 124, saying where it was.
#[test]
fn unstopped_autoboot_boots_the_image_and_a_short_limit_is_124() {
    let board = stand_in("uboot");
    let log = temp("timeout.log");
    let (out, wall) = console(&[
        &board.pty,
        "--until-end",
        "--timeout",
        "2",
        "--log",
        log.to_str().unwrap(),
    ]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(124), "{stderr}");
    assert!(
        stderr.contains(
            "time limit of 2 s reached: the time limit passed before the firmware started"
        ),
        "{stderr}"
    );
    assert!(wall < Duration::from_secs(10), "{wall:?}");
    let (runner, runner_out, runner_err) = board.finish();
    assert_eq!(runner, 0, "{runner_err}");
    assert!(
        runner_out.contains("Hit any key to stop autoboot"),
        "{runner_out}"
    );
    assert!(runner_out.contains("@mb {\"kind\":\"end\",\"status\":\"pass\""));
    let _ = std::fs::remove_file(&log);
}
