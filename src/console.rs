//! The console found in the device tree, as a `core::fmt::Write` that ends lines with CR LF.

use crate::arch::{global::Global, mmio::Device, timer::GenericTimer};
use core::fmt;
use embedded_io::Write as _;
use mairbench_core::platform::ConsoleKind;
use mairbench_core::uart::Uart;

/// The one UART, kept whole (with its "stalled" state, so a dead UART costs one status read
/// per byte rather than the 10 ms a wait may take), waiting on the generic timer.
static UART: Global<Option<Uart<Device, GenericTimer>>> = Global::new(None);

/// Starts using `device`, a UART of kind `kind`; until then output is dropped.
pub fn init(kind: ConsoleKind, device: Device) {
    UART.set(Some(Uart::new(kind, device, GenericTimer)));
}

/// A writer to the console (a no-op before [`init`]).
pub struct Console;

impl fmt::Write for Console {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let Some(mut uart) = UART.get() else {
            return Ok(());
        };
        for (i, line) in s.split('\n').enumerate() {
            if i > 0 {
                let _ = uart.write_all(b"\r\n");
            }
            let _ = uart.write_all(line.as_bytes());
        }
        UART.set(Some(uart));
        Ok(())
    }
}

/// Waits until everything written has left the UART.
pub fn flush() {
    if let Some(mut uart) = UART.get() {
        let _ = uart.flush();
        UART.set(Some(uart));
    }
}

/// Prints part of a human-readable line (no line end).
#[macro_export]
macro_rules! say_inline {
    ($($arg:tt)*) => {{
        use core::fmt::Write as _;
        let _ = write!($crate::console::Console, $($arg)*);
    }};
}

/// Prints a human-readable line on the console.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {{
        use core::fmt::Write as _;
        let _ = writeln!($crate::console::Console, $($arg)*);
    }};
}
