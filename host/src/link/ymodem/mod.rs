//! A YMODEM batch sender, as U-Boot's `loady` receives it: the firmware image goes to a board
//! that has only a UART (`cargo host console PORT --send FILE`).
//!
//! The exchange (U-Boot's `common/xyzModem.c` is the receiver it is written for; lrzsz's `rb`
//! is the reference it is tested against): wait for the receiver's `C` (CRC-16 mode; text such
//! as U-Boot's "## Ready for binary (ymodem) download..." and NAKs before it are skipped, and a
//! `C` counts only when the line stays quiet after it, so a `C` inside text does not start the
//! transfer), block 0 with `name NUL size NUL` (size in decimal), 1024-byte STX blocks (the
//! tail in a 128-byte SOH block when it fits) padded with 0x1A, each with its CRC-16/XMODEM,
//! EOT (sent again when NAKed), then the empty block 0 that ends the batch (the file is
//! complete once the EOT is ACKed, so this last block is sent three times at most and a missing
//! ACK is no error). A NAK, a `C` (what U-Boot sends in place of a NAK after a bad block) or no
//! answer within [`Options::reply_timeout`] sends the block again, at most [`Options::retries`]
//! times; two CANs in a row from the receiver end the transfer. U-Boot sends no `C` after
//! ACKing block 0, so the sender waits [`Options::header_c_wait`] for one, then goes on. Every
//! wait is bounded.
//!
//! Why not a crate: crates.io's `ymodem` 0.1.1 (on `log` 0.3 and `crc16` 0.3) leaves the
//! receiver's CAN unhandled during the transfer (its own TODOs), prints with `dbg!`, and times
//! reads only through the device's own timeout; `xmodem` 0.4 is XMODEM only (no block 0, no
//! batch end); `uboot-shell` has a YMODEM sender inside a U-Boot shell client (async, on
//!
//! [`frames`] makes the blocks, [`transfer`] holds the link, the settings and what a transfer
//! reports, [`send`](mod@send) runs the exchange.

#[cfg(test)]
mod fake;
pub mod frames;
pub mod send;
pub mod transfer;

pub use frames::crc16;
pub use send::{send, send_with};
pub use transfer::{Error, Link, Options, Progress, Sent, Stage};
