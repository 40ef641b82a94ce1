//! The console: the UART found in the device tree (or ACPI), as a `core::fmt::Write` that
//! ends lines with CR LF, and the framebuffer console, which draws the human lines (not the
//! `@mb` records) where there is no UART, or with `mairbench.console=fb` as well.

use crate::arch::fb::Canvas;
use crate::arch::{
    global::{Global, Slot},
    mmio::Device,
    timer::GenericTimer,
};
use core::fmt;
use embedded_io::Write as _;
use mairbench_core::fb::{Screen, GLYPH_H, GLYPH_W};
use mairbench_core::platform::ConsoleKind;
use mairbench_core::uart::Uart;

/// The one UART, kept whole (with its "stalled" state, so a dead UART costs one status read
/// per byte rather than the 10 ms a wait may take), waiting on the generic timer.
static UART: Slot<Uart<Device, GenericTimer>> = Slot::empty();

/// Starts using `device`, a UART of kind `kind`; until then output is dropped.
pub fn init(kind: ConsoleKind, device: Device) {
    UART.set(Some(Uart::new(kind, device, GenericTimer)));
}

/// Whether a UART is the console.
pub fn has_uart() -> bool {
    UART.get().is_some()
}

/// The framebuffer console: where to draw, and the text on it.
#[derive(Clone, Copy)]
struct Fb {
    canvas: Canvas,
    screen: Screen,
}

static FB: Slot<Fb> = Slot::empty();

/// Text colour.
const FG: u32 = 0xff_ffff;
/// Background colour.
const BG: u32 = 0;

/// Starts drawing the human lines on `canvas`, cleared first.
pub fn init_fb(canvas: Canvas) {
    canvas.fill_rows(0, canvas.height, BG);
    let screen = Screen::new(canvas.width, canvas.height);
    FB.set(Some(Fb { canvas, screen }));
}

/// Whether the framebuffer is a console.
pub fn has_fb() -> bool {
    FB.get().is_some()
}

/// Says, where the framebuffer is the only console, that there is no UART: at the start and
/// again at the end, so that the last screen says it too.
pub fn note_no_uart() {
    if !has_uart() {
        crate::say!(
            "console: no UART: the @mb records are not shown here; `cargo host` reads them \
             from a serial log"
        );
    }
}

/// Draws `s` on the framebuffer console, if there is one.
fn draw(s: &str) {
    let Some(Fb { canvas, mut screen }) = FB.get() else {
        return;
    };
    for c in s.bytes() {
        let put = screen.put(c);
        if put.scroll > 0 {
            canvas.scroll(put.scroll * GLYPH_H, BG);
        }
        if let Some((col, row, c)) = put.draw {
            canvas.glyph(col * GLYPH_W, row * GLYPH_H, c, 1, FG, BG);
        }
    }
    FB.set(Some(Fb { canvas, screen }));
}

/// Draws `args` large (2x to 4x, by the screen's width) in colour `rgb` on rows of its own
/// below the text of the framebuffer console, if there is one: the status at the end, to be
/// read from a photograph.
pub fn draw_large(args: fmt::Arguments<'_>, rgb: u32) {
    let Some(Fb { canvas, mut screen }) = FB.get() else {
        return;
    };
    let scale = (screen.cols / 40).clamp(2, 4);
    let (scroll, row) = screen.reserve(scale + 1);
    if scroll > 0 {
        canvas.scroll(scroll * GLYPH_H, BG);
    }
    let mut large = Large {
        canvas,
        x: 0,
        y: (row + 1) * GLYPH_H,
        scale,
        rgb,
    };
    let _ = fmt::Write::write_fmt(&mut large, args);
    FB.set(Some(Fb { canvas, screen }));
}

/// Draws text scaled, from left to right on one row (clipped at the right edge).
struct Large {
    canvas: Canvas,
    x: u32,
    y: u32,
    scale: u32,
    rgb: u32,
}

impl fmt::Write for Large {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for c in s.bytes() {
            let Large { x, y, scale, .. } = *self;
            self.canvas.glyph(x, y, c, scale, self.rgb, BG);
            self.x = x.saturating_add(GLYPH_W * scale);
        }
        Ok(())
    }
}

/// Before ExitBootServices, on the UEFI path: the firmware's text output (`arch::uefi`), which
/// the console writes to while it is set.
static EARLY: Global<Option<fn(&str)>> = Global::new(None);

/// Makes `sink` (`None`: nothing) a console until it is replaced: the UEFI application's
/// ConOut, so that its lines and records are written by the same code as every other. (The
/// 32-bit image has no UEFI path, so nothing there calls it.)
#[cfg_attr(not(target_arch = "aarch64"), allow(dead_code))]
pub fn set_early(sink: Option<fn(&str)>) {
    EARLY.set(sink);
}

/// A writer to the console (a no-op before [`init`]).
pub struct Console;

impl fmt::Write for Console {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if let Some(early) = EARLY.get() {
            early(s);
        }
        draw(s);
        let Some(mut uart) = UART.get() else {
            return Ok(());
        };
        // Bytes, not `str::split`, whose searcher carries a panic path.
        for (i, line) in s.as_bytes().split(|&b| b == b'\n').enumerate() {
            if i > 0 {
                let _ = uart.write_all(b"\r\n");
            }
            let _ = uart.write_all(line);
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

/// Writes `args` to the console: what [`say_inline!`] expands to, one call with the
/// arguments (not a writer's address as well) at each site.
#[inline(never)]
pub fn say_part(args: fmt::Arguments<'_>) {
    let _ = fmt::Write::write_fmt(&mut Console, args);
}

/// Writes `args` and a line end to the console: what [`say!`] expands to, as
/// [`say_part`] (and one line end for every line, not one in each line's format string).
#[inline(never)]
pub fn say_line(args: fmt::Arguments<'_>) {
    say_part(args);
    let _ = fmt::Write::write_str(&mut Console, "\n");
}

/// Prints part of a human-readable line (no line end).
#[macro_export]
macro_rules! say_inline {
    ($($arg:tt)*) => {
        $crate::console::say_part(format_args!($($arg)*))
    };
}

/// Prints a human-readable line on the console.
#[macro_export]
macro_rules! say {
    ($($arg:tt)*) => {
        $crate::console::say_line(format_args!($($arg)*))
    };
}
