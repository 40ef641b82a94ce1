//! The scripted session (`console --boot FILE`): stop autoboot, learn the prompt, type each
//! command and judge it by its status or U-Boot's error lines, then log to the end record.

use super::port::{Port, Sink};
use super::reader::{booted_before, log_to_end, where_timed_out, Outcome, Reader, Stop};
use super::uboot::{
    explain, garbage, said, total_size, Command, AUTOBOOT, MARKER, PROMPT_QUIET, PROMPT_TRIES,
};
use super::upload::upload;
use std::time::{Duration, Instant};

/// The settings of a scripted session.
pub struct Options {
    /// When everything ends.
    pub deadline: Instant,
    /// The upload for a `loady` line: the file's name and contents.
    pub send: Option<(String, Vec<u8>)>,
    /// Quiet time before a CR is sent to get a prompt ([`QUIET`](super::uboot::QUIET)).
    pub quiet: Duration,
}

/// Runs a boot script on `port`: reaches U-Boot's prompt, types `commands`, then keeps the
/// console in `sink` until the end record. Progress notes go to `note` (standard error).
pub fn boot(
    port: &mut dyn Port,
    sink: Sink,
    commands: &[Command],
    opts: &mut Options,
    note: &mut dyn FnMut(&str),
) -> (Outcome, Sink) {
    let mut r = Reader::new(port, sink, opts.deadline);
    let outcome = match session(&mut r, commands, opts, note) {
        Ok(o) => o,
        Err(Stop::Timeout) => Outcome::Timeout(where_timed_out(&r)),
        Err(Stop::Closed(why)) => Outcome::Closed(why),
        Err(Stop::Log(why)) => Outcome::Closed(why),
    };
    (outcome, r.sink)
}

fn session(
    r: &mut Reader,
    commands: &[Command],
    opts: &mut Options,
    note: &mut dyn FnMut(&str),
) -> Result<Outcome, Stop> {
    let prompt = match prompt(r, opts.quiet, note) {
        Ok(p) => p,
        // The board ran on while the console looked for a prompt and then went away.
        Err(Stop::Closed(_) | Stop::Timeout) if r.missed => return Ok(booted_before(r)),
        Err(stop) => return Err(stop),
    };
    let prompt = match prompt {
        Ok(Some(p)) => p,
        Ok(None) => {
            note("the firmware is already running: the boot script is not typed");
            return log_to_end(r);
        }
        Err(o) => return Ok(o),
    };
    note(&format!("U-Boot's prompt is {prompt:?}"));
    for (i, c) in commands.iter().enumerate() {
        if r.started {
            note(&format!(
                "the firmware started: {} command(s) left untyped",
                commands.len() - i
            ));
            break;
        }
        note(&format!("line {}: {}", c.line, c.text));
        if let Some(failed) = command(r, c, &prompt, opts, note)? {
            return Ok(failed);
        }
    }
    log_to_end(r)
}

/// Reaches the prompt: `Ok(Ok(Some(prompt)))`, `Ok(Ok(None))` when the firmware is already
/// running, `Ok(Err(outcome))` when no prompt can be had.
fn prompt(
    r: &mut Reader,
    quiet: Duration,
    note: &mut dyn FnMut(&str),
) -> Result<Result<Option<String>, Outcome>, Stop> {
    let quiet = quiet.max(PROMPT_QUIET * 2);
    let mut stopped = false;
    let mut tries = 0;
    let mut sent_at: Option<(usize, Instant)> = None;
    let began = Instant::now();
    loop {
        r.pump(Duration::from_millis(50))?;
        if r.started {
            return Ok(Ok(None));
        }
        if r.missed {
            // Keep the rest of the run, then say what happened, however it ends.
            let _ = r.until(|r| r.ended);
            return Ok(Err(booted_before(r)));
        }
        if garbage(&r.sink.received) {
            return Ok(Err(Outcome::NoPrompt(format!(
                "the port receives garbage ({} B, mostly not text): is the baud rate right?",
                r.sink.received.len()
            ))));
        }
        let text = r.partial_text();
        let counting = text.contains(AUTOBOOT)
            || r.lines.iter().rev().take(3).any(|l| l.contains(AUTOBOOT))
            || r.partial.windows(3).any(|w| w == b"\x08\x08\x08");
        if counting && !stopped {
            r.send(b" ")?;
            note("autoboot stopped");
            stopped = true;
            sent_at = Some((r.count, Instant::now()));
            continue;
        }
        let quiet_for = r.last_byte.elapsed().min(began.elapsed());
        if let Some((at, _)) = sent_at {
            let candidate = r.partial_text();
            if r.partial_from >= at
                && !candidate.trim().is_empty()
                && candidate.len() <= 40
                && quiet_for >= PROMPT_QUIET
                && !candidate.contains(AUTOBOOT)
            {
                return Ok(Ok(Some(candidate)));
            }
        }
        let since_sent = sent_at.map_or(began.elapsed(), |(_, t)| t.elapsed());
        if quiet_for >= quiet && since_sent >= quiet {
            if tries == PROMPT_TRIES {
                let seen = r.sink.received.len();
                let last = r.last_line();
                return Ok(Err(Outcome::NoPrompt(match (seen, last) {
                    (0, _) => format!(
                        "the board said nothing, not even to {PROMPT_TRIES} CRs: is it powered, is this its port, are TX and RX crossed?"
                    ),
                    (_, Some(l)) => format!(
                        "no U-Boot prompt after {PROMPT_TRIES} CRs (the last line: {:?}): is the board in U-Boot?",
                        l.trim()
                    ),
                    (_, None) => format!("no U-Boot prompt after {PROMPT_TRIES} CRs: is the board in U-Boot?"),
                })));
            }
            tries += 1;
            r.send(b"\r")?;
            sent_at = Some((r.count, Instant::now()));
        }
    }
}

/// Types one command and judges it: `Ok(Some(outcome))` when it failed.
fn command(
    r: &mut Reader,
    c: &Command,
    prompt: &str,
    opts: &mut Options,
    note: &mut dyn FnMut(&str),
) -> Result<Option<Outcome>, Stop> {
    let at_prompt = |r: &Reader, from: usize| r.partial_from > from && r.partial_text() == prompt;
    let first_line = r.lines.len();
    if c.no_return() {
        r.type_line(&c.text)?;
        let sent = r.count;
        r.until(|r| r.started || at_prompt(r, sent))?;
        if r.started {
            return Ok(None);
        }
        let lines = said(&r.lines[first_line..], &c.text);
        return Ok(Some(Outcome::CommandFailed {
            command: c.clone(),
            status: None,
            lines,
        }));
    }
    r.type_line(&format!("{}; echo {MARKER}$?", c.text))?;
    let sent = r.count;
    let mut expected = None;
    if c.loady() {
        if let Some((name, data)) = opts.send.take() {
            if let Some(o) = upload(r, &name, &data, note)? {
                return Ok(Some(o));
            }
            expected = Some((name, data.len()));
        }
    }
    let mut status: Option<Option<u32>> = None;
    r.until(|r| {
        if status.is_none() {
            status = r.lines[first_line..].iter().find_map(|l| {
                let rest = l.trim().strip_prefix(MARKER)?;
                Some(rest.parse::<u32>().ok())
            });
        }
        r.started || (status.is_some() && at_prompt(r, sent))
    })?;
    if r.started {
        return Ok(None);
    }
    let lines = said(&r.lines[first_line..], &c.text);
    let failed = match status.flatten() {
        Some(s) => s != 0,
        // No hush: `$?` was not expanded; U-Boot's known error lines decide.
        None => !explain(&lines).is_empty(),
    };
    if failed {
        return Ok(Some(Outcome::CommandFailed {
            command: c.clone(),
            status: status.flatten(),
            lines,
        }));
    }
    if let Some((name, size)) = expected {
        match total_size(&lines) {
            Some(got) if got == size => note(&format!("U-Boot received {got} B")),
            Some(got) => {
                return Ok(Some(Outcome::SendFailed(format!(
                    "U-Boot's loady received {got} B of {name}, not its {size} B."
                ))))
            }
            None => note("U-Boot printed no \"## Total Size\" line after loady"),
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::super::fake::{fake, uboot, RUN};
    use super::super::uboot::{script, SCRIPT};
    use super::*;
    use std::io;

    fn run(port: &mut dyn Port, text: &str, limit: Duration) -> (Outcome, Vec<u8>, Vec<String>) {
        let commands = script(text).unwrap();
        let sink = Sink::new(Box::new(io::sink()), Box::new(io::sink()));
        let mut opts = Options {
            deadline: Instant::now() + limit,
            send: None,
            quiet: Duration::from_millis(200),
        };
        let mut notes = Vec::new();
        let (o, sink) = boot(port, sink, &commands, &mut opts, &mut |n| {
            notes.push(n.to_owned())
        });
        (o, sink.received, notes)
    }

    #[test]
    fn autoboot_is_stopped_the_commands_typed_and_the_run_logged_to_its_end() {
        let mut port = fake(uboot).autobooting();
        let history = port.history.clone();
        let (o, received, notes) = run(&mut port, SCRIPT, Duration::from_secs(20));
        assert_eq!(o, Outcome::Ended, "{notes:?}");
        assert_eq!(
            *history.lock().unwrap(),
            [
                "setenv bootargs mairbench.quick",
                "load virtio 0:1 ${kernel_addr_r} mairbench.bin",
                "booti ${kernel_addr_r} - ${fdtcontroladdr}"
            ]
        );
        assert!(notes.iter().any(|n| n == "autoboot stopped"), "{notes:?}");
        assert!(notes.iter().any(|n| n.contains("\"=> \"")), "{notes:?}");
        let text = String::from_utf8_lossy(&received);
        assert!(
            text.contains("Hit any key") && text.ends_with("\"pass\"}\r\n"),
            "{text}"
        );
    }

    #[test]
    fn a_board_already_at_its_prompt_gets_a_cr_and_its_own_prompt_is_learned() {
        let mut port = fake(uboot);
        port.prompt = "ZynqMP> ";
        let (o, _, notes) = run(&mut port, SCRIPT, Duration::from_secs(20));
        assert_eq!(o, Outcome::Ended, "{notes:?}");
        assert!(
            notes.iter().any(|n| n.contains("\"ZynqMP> \"")),
            "{notes:?}"
        );
        assert!(!notes.iter().any(|n| n == "autoboot stopped"), "{notes:?}");
    }

    #[test]
    fn a_failed_command_is_quoted_explained_and_ends_the_session_at_once() {
        let mut port = fake(uboot).autobooting();
        let history = port.history.clone();
        let text = "load virtio 0:1 ${kernel_addr_r} missing.bin\nbooti ${kernel_addr_r}\n";
        let started = Instant::now();
        let (o, _, _) = run(&mut port, text, Duration::from_secs(60));
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
        let Outcome::CommandFailed {
            command,
            status,
            lines,
        } = o
        else {
            panic!("{o:?}")
        };
        assert_eq!(command.line, 1);
        assert_eq!(status, Some(1));
        assert!(
            lines.iter().any(|l| l == "Failed to load 'missing.bin'"),
            "{lines:?}"
        );
        let words = explain(&lines);
        assert!(words[0].contains("not on that partition"), "{words:?}");
        assert_eq!(
            history.lock().unwrap().len(),
            1,
            "booti is not typed after a failure"
        );
    }

    #[test]
    fn booti_that_returns_to_the_prompt_failed() {
        let mut port = fake(uboot).autobooting();
        let (o, _, _) = run(
            &mut port,
            "booti 0x0 - ${fdtcontroladdr}\n",
            Duration::from_secs(20),
        );
        let Outcome::CommandFailed { status, lines, .. } = o else {
            panic!("{o:?}")
        };
        assert_eq!(status, None);
        assert_eq!(lines, ["Bad Linux ARM64 Image magic!"]);
        assert!(explain(&lines)[0].contains("raw Image"));
    }

    #[test]
    fn without_hush_the_known_error_lines_decide() {
        let mut port = fake(uboot).autobooting();
        port.hush = false;
        assert_eq!(
            run(&mut port, SCRIPT, Duration::from_secs(20)).0,
            Outcome::Ended
        );
        let mut port = fake(uboot).autobooting();
        port.hush = false;
        let (o, _, _) = run(&mut port, "nosuch thing\n", Duration::from_secs(20));
        assert!(
            matches!(o, Outcome::CommandFailed { status: None, .. }),
            "{o:?}"
        );
    }

    #[test]
    fn garbage_on_the_line_says_baud() {
        let mut port = fake(uboot);
        port.out
            .extend((0..400u32).map(|i| (0x80 + i % 0x7f) as u8));
        let (o, _, _) = run(&mut port, SCRIPT, Duration::from_secs(20));
        let Outcome::NoPrompt(why) = o else {
            panic!("{o:?}")
        };
        assert!(why.contains("baud"), "{why}");
    }

    #[test]
    fn a_silent_board_is_named_and_a_closed_port_reported() {
        let mut port = fake(uboot);
        port.mute = true;
        let started = Instant::now();
        let (o, _, _) = run(&mut port, SCRIPT, Duration::from_secs(30));
        let Outcome::NoPrompt(why) = o else {
            panic!("{o:?}")
        };
        assert!(why.contains("said nothing"), "{why}");
        assert!(started.elapsed() < Duration::from_secs(10));
        let mut port = fake(uboot);
        port.print("U-Boot 2023.01\r\n");
        port.close_when_empty = true;
        let (o, received, _) = run(&mut port, SCRIPT, Duration::from_secs(30));
        assert_eq!(o, Outcome::Closed("the line is gone".into()));
        assert_eq!(received, b"U-Boot 2023.01\r\n");
    }

    #[test]
    fn a_board_that_booted_before_the_console_attached_is_named() {
        // The stand-in board's case: attached after its autoboot, the console reads the end
        // of a run (records, no start record) and then the line goes away.
        for end in [true, false] {
            let mut port = fake(uboot);
            port.print("@mb {\"kind\":\"result\",\"kernel\":\"read-ldp\"}\r\n");
            if end {
                port.print("@mb {\"kind\":\"end\",\"status\":\"pass\"}\r\n");
            }
            port.close_when_empty = true;
            let (o, received, notes) = run(&mut port, SCRIPT, Duration::from_secs(30));
            let Outcome::BootedBefore(why) = o else {
                panic!("{o:?}")
            };
            assert!(
                why.starts_with("the board booted before the console attached")
                    && why.contains(if end {
                        "its end record arrived"
                    } else {
                        "no end record"
                    })
                    && why.contains("MAIRBENCH_BOOTDELAY"),
                "{why}"
            );
            assert!(received.starts_with(b"@mb {"), "what was read is kept");
            assert!(
                !notes.iter().any(|n| n.starts_with("line ")),
                "nothing typed: {notes:?}"
            );
        }
    }

    #[test]
    fn a_firmware_without_an_end_record_times_out_naming_where() {
        let mut port = fake(uboot).autobooting();
        let started = Instant::now();
        let (o, _, _) = run(&mut port, "hang\n", Duration::from_secs(3));
        let Outcome::Timeout(why) = o else {
            panic!("{o:?}")
        };
        assert!(why.contains("started but sent no end record"), "{why}");
        assert!(started.elapsed() < Duration::from_secs(6));
    }

    #[test]
    fn a_running_firmware_is_logged_without_typing() {
        let mut port = fake(uboot);
        port.print(RUN);
        let history = port.history.clone();
        let (o, _, _) = run(&mut port, SCRIPT, Duration::from_secs(20));
        assert_eq!(o, Outcome::Ended);
        assert!(history.lock().unwrap().is_empty());
    }

    fn upload(size_error: usize) -> (Outcome, Vec<u8>, Vec<u8>, Vec<String>) {
        let mut port = fake(uboot).autobooting();
        port.size_error = size_error;
        let file = port.file.clone();
        let data: Vec<u8> = (0..5000u32).map(|i| (i * 7 % 251) as u8).collect();
        let commands =
            script("loady ${kernel_addr_r}\nbooti ${kernel_addr_r} - ${fdtcontroladdr}\n").unwrap();
        let sink = Sink::new(Box::new(io::sink()), Box::new(io::sink()));
        let mut opts = Options {
            deadline: Instant::now() + Duration::from_secs(30),
            send: Some(("mairbench.bin".into(), data.clone())),
            quiet: Duration::from_millis(200),
        };
        let mut notes = Vec::new();
        let (o, _) = boot(&mut port, sink, &commands, &mut opts, &mut |n| {
            notes.push(n.to_owned())
        });
        let got = file.lock().unwrap().clone();
        (o, data, got, notes)
    }

    #[test]
    fn loady_gets_the_file_over_ymodem_and_its_size_is_checked() {
        let (o, data, got, notes) = upload(0);
        assert_eq!(o, Outcome::Ended, "{notes:?}");
        assert_eq!(got, data);
        assert!(
            notes
                .iter()
                .any(|n| n.starts_with("sent mairbench.bin: 5000 B in ")),
            "{notes:?}"
        );
        assert!(
            notes.iter().any(|n| n == "U-Boot received 5000 B"),
            "{notes:?}"
        );
        let (o, ..) = upload(1);
        assert_eq!(
            o,
            Outcome::SendFailed(
                "U-Boot's loady received 5001 B of mairbench.bin, not its 5000 B.".into()
            )
        );
    }
}
