//! `cargo host console`: a board's serial console, typed into by a person (interactive) or by
//! a U-Boot boot script (`--boot FILE`), kept in a log as it arrives.
//!
//! The scripted session ([`boot()`]) stops U-Boot's autoboot (or, when the board already sits at
//! its prompt, gets one with a CR after a quiet moment), learns the prompt the board prints,
//! then types the script's commands one at a time. A command that returns is typed with
//! `; echo @@mbrc=$?` after it: U-Boot's hush shell expands `$?` to the command's status, so
//! the line `@@mbrc=0` says it worked and any other number that it failed (checked against
//! Debian's U-Boot 2023.01 for QEMU: `false; echo @@mbrc=$?` prints `@@mbrc=1`, an unknown
//! command or a failed `load` too). A U-Boot without hush prints `@@mbrc=$?` as is: then the
//! error lines U-Boot is known to print decide ([`ERRORS`]). A command that does not return
//! when it works (`booti`, `bootm`, `bootefi`, `go`, ...) is typed alone and is judged by
//! what comes next: the firmware's start record, or U-Boot's prompt again (it failed).
//! A `loady` line with a file to send (`--send`) hands the port to the YMODEM sender
//! ([`ymodem`](crate::link::ymodem)) once U-Boot says it is ready, then checks U-Boot's `$?` and "## Total Size".
//! Each command is typed a character at a time, each waiting for its echo (at most
//! [`ECHO_WAIT`]), so that a board's receive FIFO never overflows.
//!
//! Nothing here ever waits without a bound: every wait ends at the session's deadline.
//!
//! [`port`] is the line and the log it fills, [`uboot`] what is known of U-Boot (its prompt,
//! its errors, the script's commands), [`reader`] the reading side of a session, [`boot`](mod@boot)
//! the scripted session, [`upload`] the YMODEM upload of a `loady` line, [`terminal`] the
//! interactive console.

pub mod boot;
#[cfg(test)]
mod fake;
pub mod port;
pub mod reader;
pub mod terminal;
pub mod uboot;
pub mod upload;

pub use boot::{boot, Options};
pub use port::{open, Port, Sink};
pub use reader::Outcome;
pub use terminal::{interactive, Escape, Interactive, ESCAPE};
pub use uboot::{
    explain, garbage, script, total_size, Command, AUTOBOOT, DEFAULT_TIMEOUT_S, ECHO_WAIT, ERRORS,
    MARKER, QUIET,
};
pub use upload::progress_bar;
