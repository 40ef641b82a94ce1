//! What every chart shares: sizes, fonts, colours, the notes under titles, and text laid out
//! with plotters' own width estimate.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// A panel's y axis becomes a log10 scale when its largest value is more than this many
/// times its smallest (all positive).
pub const LOG_Y_ABOVE: f64 = 10.0;

pub(super) const FONT: &str = "sans-serif";
pub(super) const HEIGHT: u32 = 500;
pub(super) const LEGEND_W: u32 = 190;
/// Panel width when a chart has several panels (a pair is 2 x 505 + 190 = 1200 px wide).
pub(super) const PANEL_W: u32 = 505;
/// Panel width of a chart with one panel.
pub(super) const WIDE_PANEL_W: u32 = 720;
pub(super) const X_LABEL_AREA: u32 = 48;
pub(super) const Y_LABELS: usize = 8;
pub(super) const GRID_BOLD: RGBColor = RGBColor(205, 205, 205);
pub(super) const GRID_LIGHT: RGBColor = RGBColor(236, 236, 236);
pub(super) const CACHE_COLOUR: RGBColor = RGBColor(90, 90, 90);
pub(super) const NOTE_COLOUR: RGBColor = RGBColor(170, 20, 20);
pub(super) const FOOT_COLOUR: RGBColor = RGBColor(110, 110, 110);

/// The subtitle of charts of emulated runs.
pub const EMULATED_NOTE: &str = "QEMU models no caches: timings do not reflect memory types";

/// What the cache markers of an emulated run's charts are (labelled `guest L1 32K`): the
/// geometry the guest's CPU model reports, not caches its timings went through.
pub const GUEST_CACHES_NOTE: &str = "dashed lines: the cache sizes the guest reports \
    (CCSIDR_EL1); under emulation the steps come from QEMU's software TLB and the host, not \
    from these caches";

/// The prefix of an emulated run's cache marker labels.
pub(super) const GUEST: &str = "guest ";

pub(super) type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;

pub(super) fn err(e: impl std::fmt::Display) -> String {
    format!("drawing the chart failed: {e}")
}

pub(super) fn text_style(size: u32, colour: RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    TextStyle {
        font: (FONT, size).into_font(),
        color: colour.to_backend_color(),
        pos: Pos::new(h, v),
    }
}

/// plotters' own estimate of a text's width in pixels (its font fallback's formula).
pub(super) fn text_width(size: u32, text: &str) -> i32 {
    (f64::from(size) / 1.24 / 1.24 * 0.7 * text.chars().count() as f64).round() as i32
}

/// `text` broken at spaces into as few lines at most `max_px` wide in a `size` px font as
/// it takes (a word longer than that stays whole), of about equal widths.
pub(super) fn wrap(text: &str, size: u32, max_px: i32) -> Vec<String> {
    let lines = wrap_greedy(text, size, max_px);
    let n = lines.len();
    // Narrow the limit while the text still takes n lines: no short last line.
    let mut best = lines;
    let mut limit = max_px;
    while n > 1 && limit > 40 {
        limit -= 10;
        let narrower = wrap_greedy(text, size, limit);
        if narrower.len() > n {
            break;
        }
        best = narrower;
    }
    best
}

/// `text` broken at spaces, filling each line up to `max_px`.
fn wrap_greedy(text: &str, size: u32, max_px: i32) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split(' ') {
        let longer = if line.is_empty() {
            word.to_string()
        } else {
            format!("{line} {word}")
        };
        if !line.is_empty() && text_width(size, &longer) > max_px {
            lines.push(std::mem::replace(&mut line, word.to_string()));
        } else {
            line = longer;
        }
    }
    lines.push(line);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_lines_wrap_to_the_width() {
        let text = "one two three four five six seven eight nine ten eleven twelve";
        let lines = wrap(text, 17, 200);
        assert!(lines.len() > 1);
        assert_eq!(lines.join(" "), text);
        assert!(lines.iter().all(|l| text_width(17, l) <= 200), "{lines:?}");
        // Balanced: the last line is not a lone word.
        assert!(lines.last().unwrap().contains(' '), "{lines:?}");
        assert_eq!(wrap("short", 17, 200), ["short"]);
        assert_eq!(wrap("unbreakablelongword", 17, 10), ["unbreakablelongword"]);
    }
}
