//! The interactive console: what is typed goes to the board (Ctrl-] q quits), what the board
//! sends to the log and the screen; a port that goes away is waited for and reopened.

use super::port::{Port, Sink};
use super::reader::{stop_outcome, Outcome, Reader, Stop};
use std::time::{Duration, Instant};

/// The escape of the interactive console: Ctrl-] then `q` quits; Ctrl-] twice sends one.
pub const ESCAPE: u8 = 0x1d;

/// What the interactive console does with one byte typed: forward bytes, or quit.
#[derive(Debug, Default)]
pub struct Escape {
    armed: bool,
}

impl Escape {
    /// Feeds one typed byte: the bytes to send to the port, and whether to quit.
    pub fn feed(&mut self, b: u8) -> (Vec<u8>, bool) {
        if self.armed {
            self.armed = false;
            match b {
                b'q' | b'Q' => (Vec::new(), true),
                ESCAPE => (vec![ESCAPE], false),
                other => (vec![ESCAPE, other], false),
            }
        } else if b == ESCAPE {
            self.armed = true;
            (Vec::new(), false)
        } else {
            (vec![b], false)
        }
    }
}

/// The settings of an interactive session.
pub struct Interactive<'a> {
    /// When the session ends, if ever.
    pub deadline: Option<Instant>,
    /// Whether the end record ends the session.
    pub until_end: bool,
    /// Bytes typed (standard input); the channel closes when the input ends.
    pub input: std::sync::mpsc::Receiver<Vec<u8>>,
    /// Opens the port again after it went away (an adapter plugged back).
    pub reopen: &'a mut dyn FnMut() -> Option<Box<dyn Port>>,
}

/// The interactive console: what is typed goes to the port (Ctrl-] q quits), what the port
/// sends to the sink. A port that goes away is reopened when it comes back, and said so.
pub fn interactive(
    mut port: Box<dyn Port>,
    sink: Sink,
    settings: Interactive,
    note: &mut dyn FnMut(&str),
) -> (Outcome, Sink) {
    let far = Instant::now() + Duration::from_secs(100 * 365 * 86_400);
    let deadline = settings.deadline.unwrap_or(far);
    let mut escape = Escape::default();
    let mut input_open = true;
    let mut sink = Some(sink);
    loop {
        let mut r = Reader::new(port.as_mut(), sink.take().expect("sink"), deadline);
        let stop = loop {
            if settings.until_end && r.ended {
                break None;
            }
            match r.pump(Duration::from_millis(20)) {
                Ok(_) => {}
                Err(s) => break Some(s),
            }
            while input_open {
                match settings.input.try_recv() {
                    Ok(bytes) => {
                        for b in bytes {
                            let (out, quit) = escape.feed(b);
                            if quit {
                                return (Outcome::Quit, r.sink);
                            }
                            if let Err(s) = r.send(&out) {
                                return (stop_outcome(s, &r), r.sink);
                            }
                        }
                    }
                    Err(std::sync::mpsc::TryRecvError::Empty) => break,
                    Err(std::sync::mpsc::TryRecvError::Disconnected) => {
                        input_open = false;
                        note("standard input closed: the console keeps logging (Ctrl-C stops it)");
                    }
                }
            }
        };
        let why = match stop {
            None => return (Outcome::Ended, r.sink),
            Some(Stop::Closed(why)) => why,
            Some(s) => return (stop_outcome(s, &r), r.sink),
        };
        sink = Some(r.sink);
        note(&format!(
            "the port went away ({why}); waiting for it to come back (Ctrl-] q quits)"
        ));
        loop {
            if Instant::now() >= deadline {
                return (
                    Outcome::Closed(format!("{why}; it did not come back in time")),
                    sink.take().expect("sink"),
                );
            }
            while let Ok(bytes) = settings.input.try_recv() {
                if bytes.iter().any(|&b| escape.feed(b).1) {
                    return (Outcome::Quit, sink.take().expect("sink"));
                }
            }
            if let Some(p) = (settings.reopen)() {
                port = p;
                note("the port is back: reopened");
                break;
            }
            std::thread::sleep(Duration::from_millis(250));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::fake::{fake, uboot, Fake};
    use super::*;
    use std::io::{self, Write};
    use std::sync::{Arc, Mutex};

    #[test]
    fn escape_quits_and_doubles() {
        let mut e = Escape::default();
        assert_eq!(e.feed(b'a'), (vec![b'a'], false));
        assert_eq!(e.feed(ESCAPE), (vec![], false));
        assert_eq!(e.feed(ESCAPE), (vec![ESCAPE], false));
        assert_eq!(e.feed(ESCAPE), (vec![], false));
        assert_eq!(e.feed(b'x'), (vec![ESCAPE, b'x'], false));
        assert_eq!(e.feed(ESCAPE), (vec![], false));
        assert_eq!(e.feed(b'q'), (vec![], true));
    }

    /// A port that records what was sent into a shared buffer.
    struct Shared(Fake, Arc<Mutex<Vec<u8>>>);
    impl Port for Shared {
        fn recv(&mut self, buf: &mut [u8], timeout: Duration) -> io::Result<usize> {
            self.0.recv(buf, timeout)
        }
        fn send(&mut self, bytes: &[u8]) -> io::Result<()> {
            self.1.lock().unwrap().extend_from_slice(bytes);
            self.0.send(bytes)
        }
    }

    #[test]
    fn interactive_forwards_typing_reopens_a_port_and_quits_on_the_escape() {
        let sent = Arc::new(Mutex::new(Vec::new()));
        let mut first = fake(uboot);
        first.print("=> ");
        first.close_when_empty = true;
        let (tx, rx) = std::sync::mpsc::channel();
        let mut reopened = 0;
        let again = sent.clone();
        let mut reopen = move || -> Option<Box<dyn Port>> {
            reopened += 1;
            (reopened >= 2).then(|| Box::new(Shared(fake(uboot), again.clone())) as Box<dyn Port>)
        };
        let settings = Interactive {
            deadline: Some(Instant::now() + Duration::from_secs(20)),
            until_end: false,
            input: rx,
            reopen: &mut reopen,
        };
        let notes = Arc::new(Mutex::new(Vec::<String>::new()));
        let seen = notes.clone();
        let typist = std::thread::spawn(move || {
            while !seen.lock().unwrap().iter().any(|n| n.contains("is back")) {
                std::thread::sleep(Duration::from_millis(20));
            }
            tx.send(b"setenv a b\r".to_vec()).unwrap();
            std::thread::sleep(Duration::from_millis(200));
            tx.send(vec![ESCAPE, b'q', b'x']).unwrap();
        });
        let log = Arc::new(Mutex::new(Vec::new()));
        let sink = Sink::new(Box::new(SharedWrite(log.clone())), Box::new(io::sink()));
        let (o, sink) = interactive(
            Box::new(Shared(first, sent.clone())),
            sink,
            settings,
            &mut |n| notes.lock().unwrap().push(n.to_owned()),
        );
        typist.join().unwrap();
        assert_eq!(o, Outcome::Quit, "{:?}", notes.lock().unwrap());
        assert_eq!(
            &*sent.lock().unwrap(),
            b"setenv a b\r",
            "{:?}",
            notes.lock().unwrap()
        );
        let notes = notes.lock().unwrap();
        assert!(
            notes[0].contains("went away (the line is gone)"),
            "{notes:?}"
        );
        let logged = log.lock().unwrap().clone();
        assert!(
            logged.starts_with(b"=> setenv a b\r\n=> "),
            "{:?}",
            String::from_utf8_lossy(&logged)
        );
        assert_eq!(sink.received, logged);
    }

    struct SharedWrite(Arc<Mutex<Vec<u8>>>);
    impl Write for SharedWrite {
        fn write(&mut self, b: &[u8]) -> io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
}
