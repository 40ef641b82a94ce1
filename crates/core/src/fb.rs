//! The framebuffer console's pure part: where the framebuffer is (UEFI's Graphics Output
//! Protocol mode, or a device tree's `simple-framebuffer` node), how a pixel is packed in
//! each supported format, the font, and the text layout with its scrolling. The firmware
//! (`src/arch/aarch64/fb.rs`) only stores the pixels this module computes.
//!
//! The font is the 8x16 Spleen font, ASCII 0x20-0x7e, taken from Debian's `fonts-spleen`
//! 1.9.1 (`spleen-8x16.psfu`: PSF1, glyph index = character code):
//!
//! > Copyright (c) 2018-2020, Frederic Cambus <fred@statdns.com>. All rights reserved.
//! >
//! > Redistribution and use in source and binary forms, with or without modification, are
//! > permitted provided that the following conditions are met:
//! > * Redistributions of source code must retain the above copyright notice, this list of
//! >   conditions and the following disclaimer.
//! > * Redistributions in binary form must reproduce the above copyright notice, this list
//! >   of conditions and the following disclaimer in the documentation and/or other
//! >   materials provided with the distribution.
//! >
//! > THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND ANY
//! > EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES OF
//! > MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL
//! > THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL,
//! > SPECIAL, EXEMPLARY, OR CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO,
//! > PROCUREMENT OF SUBSTITUTE GOODS OR SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS
//! > INTERRUPTION) HOWEVER CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT,
//! > STRICT LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT
//! > OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
//!
//! (The VGA ROM font Linux ships in `lib/fonts/font_8x16.c` is GPL-2.0, hence not that one.)

use core::fmt;

use crate::fdt::{Fdt, Node};

/// Width of a glyph cell, in pixels.
pub const GLYPH_W: u32 = 8;
/// Height of a glyph cell, in pixels.
pub const GLYPH_H: u32 = 16;

/// The first character the font has (space).
const FIRST: u8 = 0x20;

/// The font: one glyph per character 0x20..=0x7e, the top row first, the most significant bit
/// the leftmost pixel. Every glyph's first and last rows (0 and 15) are blank, so the table
/// holds rows 1 to 14 only ([`glyph`] adds the blank ones): 190 bytes less in the image.
pub static FONT: [[u8; 14]; 95] = [
    [
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    ], // ' '
    [
        0x00, 0x18, 0x18, 0x18, 0x18, 0x18, 0x18, 0x18, 0x00, 0x18, 0x18, 0x00, 0x00, 0x00,
    ], // '!'
    [
        0x66, 0x66, 0x66, 0x66, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    ], // '"'
    [
        0x00, 0x6c, 0x6c, 0xfe, 0x6c, 0x6c, 0x6c, 0x6c, 0xfe, 0x6c, 0x6c, 0x00, 0x00, 0x00,
    ], // '#'
    [
        0x10, 0x7e, 0xd0, 0xd0, 0xd0, 0x7c, 0x16, 0x16, 0x16, 0x16, 0xfc, 0x10, 0x00, 0x00,
    ], // '$'
    [
        0x00, 0x06, 0x66, 0x6c, 0x0c, 0x18, 0x18, 0x30, 0x36, 0x66, 0x60, 0x00, 0x00, 0x00,
    ], // '%'
    [
        0x00, 0x38, 0x6c, 0x6c, 0x6c, 0x38, 0x70, 0xda, 0xcc, 0xcc, 0x7a, 0x00, 0x00, 0x00,
    ], // '&'
    [
        0x18, 0x18, 0x18, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    ], // "'"
    [
        0x0e, 0x18, 0x30, 0x30, 0x60, 0x60, 0x60, 0x60, 0x30, 0x30, 0x18, 0x0e, 0x00, 0x00,
    ], // '('
    [
        0x70, 0x18, 0x0c, 0x0c, 0x06, 0x06, 0x06, 0x06, 0x0c, 0x0c, 0x18, 0x70, 0x00, 0x00,
    ], // ')'
    [
        0x00, 0x00, 0x00, 0x66, 0x3c, 0x18, 0xff, 0x18, 0x3c, 0x66, 0x00, 0x00, 0x00, 0x00,
    ], // '*'
    [
        0x00, 0x00, 0x00, 0x00, 0x18, 0x18, 0x7e, 0x18, 0x18, 0x00, 0x00, 0x00, 0x00, 0x00,
    ], // '+'
    [
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x18, 0x18, 0x30, 0x00, 0x00,
    ], // ','
    [
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x7e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    ], // '-'
    [
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x18, 0x18, 0x00, 0x00, 0x00,
    ], // '.'
    [
        0x06, 0x06, 0x0c, 0x0c, 0x18, 0x18, 0x30, 0x30, 0x60, 0x60, 0xc0, 0xc0, 0x00, 0x00,
    ], // '/'
    [
        0x00, 0x7c, 0xc6, 0xc6, 0xce, 0xde, 0xf6, 0xe6, 0xc6, 0xc6, 0x7c, 0x00, 0x00, 0x00,
    ], // '0'
    [
        0x00, 0x18, 0x38, 0x78, 0x58, 0x18, 0x18, 0x18, 0x18, 0x18, 0x7e, 0x00, 0x00, 0x00,
    ], // '1'
    [
        0x00, 0x7c, 0xc6, 0x06, 0x06, 0x0c, 0x18, 0x30, 0x60, 0xc6, 0xfe, 0x00, 0x00, 0x00,
    ], // '2'
    [
        0x00, 0x7c, 0xc6, 0x06, 0x06, 0x3c, 0x06, 0x06, 0x06, 0xc6, 0x7c, 0x00, 0x00, 0x00,
    ], // '3'
    [
        0x00, 0xc0, 0xc0, 0xcc, 0xcc, 0xcc, 0xcc, 0xfe, 0x0c, 0x0c, 0x0c, 0x00, 0x00, 0x00,
    ], // '4'
    [
        0x00, 0xfe, 0xc6, 0xc0, 0xc0, 0xfc, 0x06, 0x06, 0x06, 0xc6, 0x7c, 0x00, 0x00, 0x00,
    ], // '5'
    [
        0x00, 0x7c, 0xc6, 0xc0, 0xc0, 0xfc, 0xc6, 0xc6, 0xc6, 0xc6, 0x7c, 0x00, 0x00, 0x00,
    ], // '6'
    [
        0x00, 0xfe, 0xc6, 0x06, 0x06, 0x0c, 0x18, 0x30, 0x30, 0x30, 0x30, 0x00, 0x00, 0x00,
    ], // '7'
    [
        0x00, 0x7c, 0xc6, 0xc6, 0xc6, 0x7c, 0xc6, 0xc6, 0xc6, 0xc6, 0x7c, 0x00, 0x00, 0x00,
    ], // '8'
    [
        0x00, 0x7c, 0xc6, 0xc6, 0xc6, 0xc6, 0x7e, 0x06, 0x06, 0xc6, 0x7c, 0x00, 0x00, 0x00,
    ], // '9'
    [
        0x00, 0x00, 0x00, 0x00, 0x18, 0x18, 0x00, 0x00, 0x00, 0x18, 0x18, 0x00, 0x00, 0x00,
    ], // ':'
    [
        0x00, 0x00, 0x00, 0x00, 0x18, 0x18, 0x00, 0x00, 0x00, 0x18, 0x18, 0x30, 0x00, 0x00,
    ], // ';'
    [
        0x00, 0x06, 0x0c, 0x18, 0x30, 0x60, 0x60, 0x30, 0x18, 0x0c, 0x06, 0x00, 0x00, 0x00,
    ], // '<'
    [
        0x00, 0x00, 0x00, 0x00, 0x7e, 0x00, 0x00, 0x7e, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    ], // '='
    [
        0x00, 0x60, 0x30, 0x18, 0x0c, 0x06, 0x06, 0x0c, 0x18, 0x30, 0x60, 0x00, 0x00, 0x00,
    ], // '>'
    [
        0x00, 0x7c, 0xc6, 0x06, 0x0c, 0x18, 0x30, 0x30, 0x00, 0x30, 0x30, 0x00, 0x00, 0x00,
    ], // '?'
    [
        0x00, 0x00, 0x7c, 0xc2, 0xda, 0xda, 0xda, 0xda, 0xde, 0xc0, 0x7c, 0x00, 0x00, 0x00,
    ], // '@'
    [
        0x00, 0x7c, 0xc6, 0xc6, 0xc6, 0xfe, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0x00, 0x00, 0x00,
    ], // 'A'
    [
        0x00, 0xfc, 0xc6, 0xc6, 0xc6, 0xfc, 0xc6, 0xc6, 0xc6, 0xc6, 0xfc, 0x00, 0x00, 0x00,
    ], // 'B'
    [
        0x00, 0x7e, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0x7e, 0x00, 0x00, 0x00,
    ], // 'C'
    [
        0x00, 0xfc, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xfc, 0x00, 0x00, 0x00,
    ], // 'D'
    [
        0x00, 0x7e, 0xc0, 0xc0, 0xc0, 0xf8, 0xc0, 0xc0, 0xc0, 0xc0, 0x7e, 0x00, 0x00, 0x00,
    ], // 'E'
    [
        0x00, 0x7e, 0xc0, 0xc0, 0xc0, 0xf8, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0x00, 0x00, 0x00,
    ], // 'F'
    [
        0x00, 0x7e, 0xc0, 0xc0, 0xc0, 0xde, 0xc6, 0xc6, 0xc6, 0xc6, 0x7e, 0x00, 0x00, 0x00,
    ], // 'G'
    [
        0x00, 0xc6, 0xc6, 0xc6, 0xc6, 0xfe, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0x00, 0x00, 0x00,
    ], // 'H'
    [
        0x00, 0x7e, 0x18, 0x18, 0x18, 0x18, 0x18, 0x18, 0x18, 0x18, 0x7e, 0x00, 0x00, 0x00,
    ], // 'I'
    [
        0x00, 0x7e, 0x18, 0x18, 0x18, 0x18, 0x18, 0x18, 0x18, 0x18, 0xf0, 0x00, 0x00, 0x00,
    ], // 'J'
    [
        0x00, 0xc6, 0xc6, 0xc6, 0xcc, 0xf8, 0xcc, 0xc6, 0xc6, 0xc6, 0xc6, 0x00, 0x00, 0x00,
    ], // 'K'
    [
        0x00, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0x7e, 0x00, 0x00, 0x00,
    ], // 'L'
    [
        0x00, 0xc6, 0xee, 0xfe, 0xd6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0x00, 0x00, 0x00,
    ], // 'M'
    [
        0x00, 0xc6, 0xc6, 0xe6, 0xe6, 0xd6, 0xd6, 0xce, 0xce, 0xc6, 0xc6, 0x00, 0x00, 0x00,
    ], // 'N'
    [
        0x00, 0x7c, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0x7c, 0x00, 0x00, 0x00,
    ], // 'O'
    [
        0x00, 0xfc, 0xc6, 0xc6, 0xc6, 0xfc, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0x00, 0x00, 0x00,
    ], // 'P'
    [
        0x00, 0x7c, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xd6, 0xd6, 0x7c, 0x18, 0x0c, 0x00,
    ], // 'Q'
    [
        0x00, 0xfc, 0xc6, 0xc6, 0xc6, 0xfc, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0x00, 0x00, 0x00,
    ], // 'R'
    [
        0x00, 0x7e, 0xc0, 0xc0, 0xc0, 0x7c, 0x06, 0x06, 0x06, 0x06, 0xfc, 0x00, 0x00, 0x00,
    ], // 'S'
    [
        0x00, 0xff, 0x18, 0x18, 0x18, 0x18, 0x18, 0x18, 0x18, 0x18, 0x18, 0x00, 0x00, 0x00,
    ], // 'T'
    [
        0x00, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0x7e, 0x00, 0x00, 0x00,
    ], // 'U'
    [
        0x00, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0x6c, 0x38, 0x10, 0x00, 0x00, 0x00,
    ], // 'V'
    [
        0x00, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xd6, 0xfe, 0xee, 0xc6, 0x00, 0x00, 0x00,
    ], // 'W'
    [
        0x00, 0xc6, 0xc6, 0xc6, 0x6c, 0x38, 0x6c, 0xc6, 0xc6, 0xc6, 0xc6, 0x00, 0x00, 0x00,
    ], // 'X'
    [
        0x00, 0xc6, 0xc6, 0xc6, 0xc6, 0x7e, 0x06, 0x06, 0x06, 0x06, 0xfc, 0x00, 0x00, 0x00,
    ], // 'Y'
    [
        0x00, 0xfe, 0x06, 0x06, 0x0c, 0x18, 0x30, 0x60, 0xc0, 0xc0, 0xfe, 0x00, 0x00, 0x00,
    ], // 'Z'
    [
        0x3e, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x3e, 0x00, 0x00,
    ], // '['
    [
        0xc0, 0xc0, 0x60, 0x60, 0x30, 0x30, 0x18, 0x18, 0x0c, 0x0c, 0x06, 0x06, 0x00, 0x00,
    ], // '\\'
    [
        0x7c, 0x0c, 0x0c, 0x0c, 0x0c, 0x0c, 0x0c, 0x0c, 0x0c, 0x0c, 0x0c, 0x7c, 0x00, 0x00,
    ], // ']'
    [
        0x10, 0x38, 0x6c, 0xc6, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    ], // '^'
    [
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0xfe,
    ], // '_'
    [
        0x30, 0x18, 0x0c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    ], // '`'
    [
        0x00, 0x00, 0x00, 0x00, 0x7c, 0x06, 0x7e, 0xc6, 0xc6, 0xc6, 0x7e, 0x00, 0x00, 0x00,
    ], // 'a'
    [
        0x00, 0xc0, 0xc0, 0xc0, 0xfc, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xfc, 0x00, 0x00, 0x00,
    ], // 'b'
    [
        0x00, 0x00, 0x00, 0x00, 0x7e, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0x7e, 0x00, 0x00, 0x00,
    ], // 'c'
    [
        0x00, 0x06, 0x06, 0x06, 0x7e, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0x7e, 0x00, 0x00, 0x00,
    ], // 'd'
    [
        0x00, 0x00, 0x00, 0x00, 0x7e, 0xc6, 0xc6, 0xfe, 0xc0, 0xc0, 0x7e, 0x00, 0x00, 0x00,
    ], // 'e'
    [
        0x00, 0x1e, 0x30, 0x30, 0x30, 0x7c, 0x30, 0x30, 0x30, 0x30, 0x30, 0x00, 0x00, 0x00,
    ], // 'f'
    [
        0x00, 0x00, 0x00, 0x00, 0x7e, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0x7c, 0x06, 0x06, 0xfc,
    ], // 'g'
    [
        0x00, 0xc0, 0xc0, 0xc0, 0xfc, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0x00, 0x00, 0x00,
    ], // 'h'
    [
        0x00, 0x18, 0x18, 0x00, 0x38, 0x18, 0x18, 0x18, 0x18, 0x18, 0x1c, 0x00, 0x00, 0x00,
    ], // 'i'
    [
        0x00, 0x18, 0x18, 0x00, 0x18, 0x18, 0x18, 0x18, 0x18, 0x18, 0x18, 0x18, 0x18, 0x70,
    ], // 'j'
    [
        0x00, 0xc0, 0xc0, 0xc0, 0xcc, 0xd8, 0xf0, 0xf0, 0xd8, 0xcc, 0xc6, 0x00, 0x00, 0x00,
    ], // 'k'
    [
        0x00, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x30, 0x1c, 0x00, 0x00, 0x00,
    ], // 'l'
    [
        0x00, 0x00, 0x00, 0x00, 0xec, 0xd6, 0xd6, 0xd6, 0xd6, 0xc6, 0xc6, 0x00, 0x00, 0x00,
    ], // 'm'
    [
        0x00, 0x00, 0x00, 0x00, 0xfc, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0x00, 0x00, 0x00,
    ], // 'n'
    [
        0x00, 0x00, 0x00, 0x00, 0x7c, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0x7c, 0x00, 0x00, 0x00,
    ], // 'o'
    [
        0x00, 0x00, 0x00, 0x00, 0xfc, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xfc, 0xc0, 0xc0, 0xc0,
    ], // 'p'
    [
        0x00, 0x00, 0x00, 0x00, 0x7e, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0x7e, 0x06, 0x06, 0x06,
    ], // 'q'
    [
        0x00, 0x00, 0x00, 0x00, 0x7e, 0xc6, 0xc0, 0xc0, 0xc0, 0xc0, 0xc0, 0x00, 0x00, 0x00,
    ], // 'r'
    [
        0x00, 0x00, 0x00, 0x00, 0x7e, 0xc0, 0xc0, 0x7c, 0x06, 0x06, 0xfc, 0x00, 0x00, 0x00,
    ], // 's'
    [
        0x00, 0x30, 0x30, 0x30, 0x7c, 0x30, 0x30, 0x30, 0x30, 0x30, 0x1e, 0x00, 0x00, 0x00,
    ], // 't'
    [
        0x00, 0x00, 0x00, 0x00, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0x7e, 0x00, 0x00, 0x00,
    ], // 'u'
    [
        0x00, 0x00, 0x00, 0x00, 0xc6, 0xc6, 0xc6, 0xc6, 0x6c, 0x38, 0x10, 0x00, 0x00, 0x00,
    ], // 'v'
    [
        0x00, 0x00, 0x00, 0x00, 0xc6, 0xc6, 0xd6, 0xd6, 0xd6, 0xd6, 0x6e, 0x00, 0x00, 0x00,
    ], // 'w'
    [
        0x00, 0x00, 0x00, 0x00, 0xc6, 0x6c, 0x38, 0x38, 0x6c, 0xc6, 0xc6, 0x00, 0x00, 0x00,
    ], // 'x'
    [
        0x00, 0x00, 0x00, 0x00, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0xc6, 0x7e, 0x06, 0x06, 0xfc,
    ], // 'y'
    [
        0x00, 0x00, 0x00, 0x00, 0xfe, 0x06, 0x0c, 0x18, 0x30, 0x60, 0xfe, 0x00, 0x00, 0x00,
    ], // 'z'
    [
        0x0e, 0x18, 0x18, 0x18, 0x18, 0x70, 0x70, 0x18, 0x18, 0x18, 0x18, 0x0e, 0x00, 0x00,
    ], // '{'
    [
        0x18, 0x18, 0x18, 0x18, 0x18, 0x18, 0x18, 0x18, 0x18, 0x18, 0x18, 0x18, 0x00, 0x00,
    ], // '|'
    [
        0x70, 0x18, 0x18, 0x18, 0x18, 0x0e, 0x0e, 0x18, 0x18, 0x18, 0x18, 0x70, 0x00, 0x00,
    ], // '}'
    [
        0x00, 0x00, 0x00, 0x00, 0x00, 0x32, 0x7e, 0x4c, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
    ], // '~'
];

/// The glyph of `c`, all 16 rows: printable ASCII as itself, anything else as `?`.
pub fn glyph(c: u8) -> [u8; 16] {
    let i = usize::from(c.wrapping_sub(FIRST));
    // 31: b'?' - FIRST (the test checks it).
    let stored = FONT.get(i).or(FONT.get(31)).unwrap_or(&[0; 14]);
    let mut rows = [0; 16];
    for (row, &bits) in rows.iter_mut().skip(1).zip(stored) {
        *row = bits;
    }
    rows
}

/// How a pixel is laid out in memory (little-endian words, as the formats' names say from
/// the most significant bit down).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PixelFormat {
    /// 32 bits: `x8r8g8b8` or `a8r8g8b8` (alpha written opaque).
    Xrgb8888,
    /// 32 bits: `x8b8g8r8` or `a8b8g8r8`.
    Xbgr8888,
    /// 32 bits: `x2r10g10b10` or `a2r10g10b10`.
    Xrgb2101010,
    /// 16 bits: `r5g6b5`.
    Rgb565,
}

impl PixelFormat {
    /// The format a `simple-framebuffer` node's `format` names (Linux's
    /// `Documentation/devicetree/bindings/display/simple-framebuffer.yaml`), when supported:
    /// the 32-bit ones and `r5g6b5`.
    pub fn from_dt(name: &str) -> Option<PixelFormat> {
        Some(match name {
            "x8r8g8b8" | "a8r8g8b8" => PixelFormat::Xrgb8888,
            "x8b8g8r8" | "a8b8g8r8" => PixelFormat::Xbgr8888,
            "x2r10g10b10" | "a2r10g10b10" => PixelFormat::Xrgb2101010,
            "r5g6b5" => PixelFormat::Rgb565,
            _ => return None,
        })
    }

    /// The format of a GOP mode (UEFI 2.10, 12.9 `EFI_GRAPHICS_PIXEL_FORMAT`): 0
    /// (`PixelRedGreenBlueReserved8BitPerColor`, bytes R, G, B, X), 1 (`PixelBlueGreen...`,
    /// bytes B, G, R, X), or 2 (`PixelBitMask`) with the masks (red, green, blue) of one of
    /// the supported formats; 3 (`PixelBltOnly`) has no framebuffer.
    pub fn from_gop(format: u32, masks: [u32; 3]) -> Option<PixelFormat> {
        match (format, masks) {
            (0, _) | (2, [0xff, 0xff00, 0xff_0000]) => Some(PixelFormat::Xbgr8888),
            (1, _) | (2, [0xff_0000, 0xff00, 0xff]) => Some(PixelFormat::Xrgb8888),
            (2, [0x3ff0_0000, 0xffc00, 0x3ff]) => Some(PixelFormat::Xrgb2101010),
            (2, [0xf800, 0x7e0, 0x1f]) => Some(PixelFormat::Rgb565),
            _ => None,
        }
    }

    /// Bytes per pixel.
    pub const fn bytes(self) -> u32 {
        match self {
            PixelFormat::Rgb565 => 2,
            _ => 4,
        }
    }

    /// The format's name, as the device-tree binding spells it (the opaque variant).
    pub const fn name(self) -> &'static str {
        match self {
            PixelFormat::Xrgb8888 => "x8r8g8b8",
            PixelFormat::Xbgr8888 => "x8b8g8r8",
            PixelFormat::Xrgb2101010 => "x2r10g10b10",
            PixelFormat::Rgb565 => "r5g6b5",
        }
    }

    /// The pixel value of the colour `rgb` (0xRRGGBB), in the low [`PixelFormat::bytes`]
    /// bytes; alpha bits are set (opaque).
    pub const fn pack(self, rgb: u32) -> u32 {
        let (r, g, b) = ((rgb >> 16) & 0xff, (rgb >> 8) & 0xff, rgb & 0xff);
        match self {
            PixelFormat::Xrgb8888 => 0xff00_0000 | rgb & 0xff_ffff,
            PixelFormat::Xbgr8888 => 0xff00_0000 | b << 16 | g << 8 | r,
            PixelFormat::Xrgb2101010 => {
                // 8 to 10 bits: the top two bits repeated below, so white stays white.
                let (r, g, b) = (r << 2 | r >> 6, g << 2 | g >> 6, b << 2 | b >> 6);
                0xc000_0000 | r << 20 | g << 10 | b
            }
            PixelFormat::Rgb565 => (r >> 3) << 11 | (g >> 2) << 5 | b >> 3,
        }
    }

    /// The colour (0xRRGGBB) of a pixel value: [`PixelFormat::pack`]'s inverse for the
    /// colours it packs exactly (the host's reader of a framebuffer uses it).
    pub const fn unpack(self, v: u32) -> u32 {
        let (r, g, b) = match self {
            PixelFormat::Xrgb8888 => (v >> 16 & 0xff, v >> 8 & 0xff, v & 0xff),
            PixelFormat::Xbgr8888 => (v & 0xff, v >> 8 & 0xff, v >> 16 & 0xff),
            PixelFormat::Xrgb2101010 => (v >> 22 & 0xff, v >> 12 & 0xff, v >> 2 & 0xff),
            PixelFormat::Rgb565 => ((v >> 11 & 0x1f) << 3, (v >> 5 & 0x3f) << 2, (v & 0x1f) << 3),
        };
        r << 16 | g << 8 | b
    }
}

/// Who described the framebuffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// UEFI's Graphics Output Protocol, read before ExitBootServices.
    Gop,
    /// A device tree's `simple-framebuffer` node.
    Dtb,
}

impl Source {
    /// `"gop"` or `"dtb"`, as the `start` record's `fb` field says.
    pub const fn name(self) -> &'static str {
        match self {
            Source::Gop => "gop",
            Source::Dtb => "dtb",
        }
    }
}

/// A linear framebuffer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Framebuffer {
    /// Physical address of the top-left pixel.
    pub base: u64,
    /// Bytes of memory it covers.
    pub size: u64,
    /// Pixels per row shown.
    pub width: u32,
    /// Rows shown.
    pub height: u32,
    /// Bytes from one row to the next.
    pub stride: u32,
    /// The pixel layout.
    pub format: PixelFormat,
    /// Who described it.
    pub source: Source,
}

/// Why a framebuffer that was described cannot be used.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Problem<'a> {
    /// A `simple-framebuffer` `format` this console does not draw.
    DtFormat(&'a str),
    /// A GOP pixel format (with its red, green and blue masks) this console does not draw.
    GopFormat(u32, [u32; 3]),
    /// `reg`, `width`, `height` or `stride` missing or malformed.
    Properties,
    /// The rows do not fit: zero sizes, a stride shorter than a row, or more rows than
    /// the memory holds, or smaller than one glyph.
    Geometry,
    /// It overlaps the firmware's own image or the device tree.
    Overlap,
}

impl fmt::Display for Problem<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Problem::DtFormat(name) => write!(
                f,
                "simple-framebuffer format \"{name}\" is not drawn (supported: x8r8g8b8, \
                 a8r8g8b8, x8b8g8r8, a8b8g8r8, x2r10g10b10, a2r10g10b10, r5g6b5)"
            ),
            Problem::GopFormat(format, [r, g, b]) => write!(
                f,
                "GOP pixel format {} (masks {:#x} {:#x} {:#x}) is not drawn (3 is BltOnly: no \
                 framebuffer)",
                u64::from(format),
                u64::from(r),
                u64::from(g),
                u64::from(b)
            ),
            Problem::Properties => {
                f.write_str("simple-framebuffer without a usable reg, width, height or stride")
            }
            Problem::Geometry => f.write_str(
                "framebuffer geometry does not fit its memory (stride x height > size, or \
                 stride < width x bytes per pixel)",
            ),
            Problem::Overlap => {
                f.write_str("framebuffer overlaps the firmware's image or the device tree")
            }
        }
    }
}

impl Framebuffer {
    /// The framebuffer if its rows fit its memory and it holds at least one glyph.
    pub fn checked<'a>(self) -> Result<Framebuffer, Problem<'a>> {
        // u32 x u32 fits a u64.
        let row = u64::from(self.width).wrapping_mul(u64::from(self.format.bytes()));
        let rows = u64::from(self.stride).wrapping_mul(u64::from(self.height));
        let ok = self.width >= GLYPH_W
            && self.height >= GLYPH_H
            && u64::from(self.stride) >= row
            && rows <= self.size
            && self.base.checked_add(self.size).is_some();
        if ok {
            Ok(self)
        } else {
            Err(Problem::Geometry)
        }
    }

    /// Whether its memory overlaps `[base, base + size)`.
    pub fn overlaps(&self, base: u64, size: u64) -> bool {
        self.base < base.saturating_add(size) && base < self.base.saturating_add(self.size)
    }

    /// The framebuffer of a GOP mode: `FrameBufferBase`, `FrameBufferSize`, the mode's
    /// resolution, `PixelsPerScanLine`, `PixelFormat` and `PixelInformation` masks.
    pub fn from_gop<'a>(
        base: u64,
        size: u64,
        (width, height): (u32, u32),
        pixels_per_line: u32,
        format: u32,
        masks: [u32; 3],
    ) -> Result<Framebuffer, Problem<'a>> {
        let format =
            PixelFormat::from_gop(format, masks).ok_or(Problem::GopFormat(format, masks))?;
        Framebuffer {
            base,
            size,
            width,
            height,
            stride: pixels_per_line.saturating_mul(format.bytes()),
            format,
            source: Source::Gop,
        }
        .checked()
    }

    /// The first enabled `simple-framebuffer` node that is a child of the root or of
    /// `/chosen` (where U-Boot and the Raspberry Pi firmware put theirs): `None` without
    /// one, else the framebuffer or why it cannot be used. `reg` is read with the parent's
    /// `#address-cells` and `#size-cells`.
    pub fn from_dt(fdt: Fdt<'_>) -> Option<Result<Framebuffer, Problem<'_>>> {
        let parents = [Some(fdt.root()), fdt.find_node("/chosen")];
        parents.iter().flatten().find_map(|&parent| {
            parent
                .children()
                .find(|&n| {
                    crate::platform::compatible(n, "simple-framebuffer")
                        && crate::platform::enabled(n)
                })
                .map(|node| dt_node(parent, node))
        })
    }
}

fn dt_node<'a>(parent: Node<'a>, node: Node<'a>) -> Result<Framebuffer, Problem<'a>> {
    let u32_of = |name| node.property(name).and_then(|p| p.as_u32());
    let cells = parent.address_cells().zip(parent.size_cells());
    let reg = cells
        .and_then(|(a, s)| node.property("reg")?.entries([a, s])?.next())
        .and_then(|[base, size]| base.zip(size));
    let (Some((base, size)), Some(width), Some(height), Some(stride)) =
        (reg, u32_of("width"), u32_of("height"), u32_of("stride"))
    else {
        return Err(Problem::Properties);
    };
    let name = node
        .property("format")
        .and_then(|p| p.as_str())
        .ok_or(Problem::Properties)?;
    let format = PixelFormat::from_dt(name).ok_or(Problem::DtFormat(name))?;
    Framebuffer {
        base,
        size,
        width,
        height,
        stride,
        format,
        source: Source::Dtb,
    }
    .checked()
}

/// What drawing one character takes: first scroll by `scroll` text rows (move the rows
/// below up, clear the freed rows at the bottom), then draw `draw` (column, row, character).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Put {
    /// Text rows to scroll up by first (0: none).
    pub scroll: u32,
    /// The glyph to draw: column, row and character.
    pub draw: Option<(u32, u32, u8)>,
}

/// The text on the screen: a grid of glyph cells, the cursor, and whether the current line
/// is a machine record (`@mb ...`, never drawn: the screen is for people). At the bottom the
/// screen scrolls by half its rows at a time, so that a scroll, which moves every pixel,
/// happens once per half screen of text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Screen {
    /// Columns of glyphs.
    pub cols: u32,
    /// Rows of glyphs.
    pub rows: u32,
    col: u32,
    row: u32,
    /// The current line began with `@`: a record, skipped to its end.
    record: bool,
}

impl Screen {
    /// The text grid of a `width` x `height` pixel screen, the cursor at the top left.
    pub const fn new(width: u32, height: u32) -> Screen {
        Screen {
            cols: width / GLYPH_W,
            rows: height / GLYPH_H,
            col: 0,
            row: 0,
            record: false,
        }
    }

    /// The cursor: column and row.
    pub const fn cursor(&self) -> (u32, u32) {
        (self.col, self.row)
    }

    /// Moves to the start of the next row, scrolling when it is below the screen; returns
    /// the rows scrolled.
    fn newline(&mut self) -> u32 {
        self.col = 0;
        self.row = self.row.saturating_add(1);
        if self.row < self.rows {
            return 0;
        }
        let by = (self.rows / 2).max(1);
        self.row = self.row.saturating_sub(by);
        by
    }

    /// What writing byte `c` takes. `\n` ends a line, `\r` is ignored, a line longer than
    /// the screen wraps, a line that starts with `@` is not drawn (nor its line end).
    pub fn put(&mut self, c: u8) -> Put {
        let mut put = Put::default();
        if self.record {
            self.record = c != b'\n';
            return put;
        }
        match c {
            b'\r' => {}
            b'\n' => put.scroll = self.newline(),
            b'@' if self.col == 0 => self.record = true,
            _ => {
                if self.col >= self.cols {
                    put.scroll = self.newline();
                }
                put.draw = Some((self.col, self.row, c));
                self.col = self.col.saturating_add(1);
            }
        }
        put
    }

    /// Makes room for `rows` text rows below the current line (ended first if it holds
    /// anything), scrolling when needed; returns the rows scrolled and the first of the
    /// rows made room for, and puts the cursor below them. `rows` is at most half the screen.
    pub fn reserve(&mut self, rows: u32) -> (u32, u32) {
        let rows = rows.min((self.rows / 2).max(1));
        let mut scroll = 0;
        if self.col > 0 {
            scroll = self.newline();
        }
        let end = self.row.saturating_add(rows);
        if end >= self.rows {
            let by = end.saturating_add(1).saturating_sub(self.rows);
            self.row = self.row.saturating_sub(by);
            scroll = scroll.saturating_add(by);
        }
        let first = self.row;
        self.row = self.row.saturating_add(rows);
        (scroll, first)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::vec::Vec;

    #[test]
    fn glyphs_are_distinct_and_others_are_a_question_mark() {
        let mut seen: Vec<[u8; 16]> = Vec::new();
        for c in 0x20..=0x7e {
            assert!(!seen.contains(&glyph(c)), "{:?} repeats a glyph", c as char);
            seen.push(glyph(c));
        }
        assert_eq!(glyph(b' '), [0; 16]);
        assert_eq!(glyph(0x7f), glyph(b'?'));
        assert_eq!(glyph(0), glyph(b'?'));
        assert_eq!(glyph(0xc3), glyph(b'?'));
        // 'A': the crossbar on row 6, both legs down to row 11.
        assert_eq!(glyph(b'A')[6], 0b1111_1110);
        assert_eq!(glyph(b'A')[11], 0b1100_0110);
    }

    #[test]
    fn packing_per_format() {
        let c = 0x12_34_56;
        assert_eq!(PixelFormat::Xrgb8888.pack(c), 0xff12_3456);
        assert_eq!(PixelFormat::Xbgr8888.pack(c), 0xff56_3412);
        assert_eq!(PixelFormat::Rgb565.pack(0xff_ffff), 0xffff);
        assert_eq!(PixelFormat::Rgb565.pack(0xff_0000), 0xf800);
        assert_eq!(PixelFormat::Rgb565.pack(0x00_ff00), 0x07e0);
        assert_eq!(PixelFormat::Xrgb2101010.pack(0xff_ffff), 0xffff_ffff);
        assert_eq!(PixelFormat::Xrgb2101010.pack(0xff_0000), 0xfff0_0000);
        for f in [
            PixelFormat::Xrgb8888,
            PixelFormat::Xbgr8888,
            PixelFormat::Xrgb2101010,
            PixelFormat::Rgb565,
        ] {
            for rgb in [0, 0xff_ffff, 0xf8_fcf8, 0x40_8020] {
                let v = f.pack(rgb);
                assert!(f.bytes() == 4 || v <= 0xffff, "{f:?} fits its bytes");
                assert_eq!(f.unpack(v) & 0xf8_fcf8, rgb & 0xf8_fcf8, "{f:?} {rgb:#x}");
            }
            assert_eq!(PixelFormat::from_dt(f.name()), Some(f));
        }
        assert_eq!(
            PixelFormat::from_dt("a8r8g8b8"),
            Some(PixelFormat::Xrgb8888)
        );
        assert_eq!(PixelFormat::from_dt("r8g8b8"), None);
        assert_eq!(PixelFormat::from_dt("x1r5g5b5"), None);
        assert_eq!(
            PixelFormat::from_gop(1, [0; 3]),
            Some(PixelFormat::Xrgb8888)
        );
        assert_eq!(
            PixelFormat::from_gop(0, [0; 3]),
            Some(PixelFormat::Xbgr8888)
        );
        assert_eq!(
            PixelFormat::from_gop(2, [0xf800, 0x7e0, 0x1f]),
            Some(PixelFormat::Rgb565)
        );
        assert_eq!(PixelFormat::from_gop(2, [0x7c00, 0x3e0, 0x1f]), None);
        assert_eq!(PixelFormat::from_gop(3, [0; 3]), None);
    }

    #[test]
    fn gop_geometry() {
        let fb = Framebuffer::from_gop(0x8000_0000, 800 * 600 * 4, (800, 600), 800, 1, [0; 3]);
        let fb = fb.unwrap();
        assert_eq!(
            (fb.stride, fb.format, fb.source),
            (3200, PixelFormat::Xrgb8888, Source::Gop)
        );
        // A scan line longer than the row shown.
        let fb = Framebuffer::from_gop(0, 1024 * 600 * 4, (800, 600), 1024, 0, [0; 3]).unwrap();
        assert_eq!(fb.stride, 4096);
        assert_eq!(
            Framebuffer::from_gop(0, 800 * 600 * 4 - 1, (800, 600), 800, 1, [0; 3]),
            Err(Problem::Geometry)
        );
        assert_eq!(
            Framebuffer::from_gop(0, 1 << 20, (800, 600), 700, 1, [0; 3]),
            Err(Problem::Geometry)
        );
        assert_eq!(
            Framebuffer::from_gop(0, 1 << 20, (4, 4), 4, 1, [0; 3]),
            Err(Problem::Geometry)
        );
        assert_eq!(
            Framebuffer::from_gop(u64::MAX, 1 << 20, (64, 64), 64, 1, [0; 3]),
            Err(Problem::Geometry)
        );
        let bad = Framebuffer::from_gop(0, 1 << 22, (800, 600), 800, 3, [0; 3]);
        assert_eq!(bad, Err(Problem::GopFormat(3, [0; 3])));
        assert!(std::format!("{}", bad.unwrap_err()).contains("BltOnly"));
        let fb = Framebuffer::from_gop(0x1000, 0x1000, (16, 16), 16, 1, [0; 3]).unwrap();
        assert!(fb.overlaps(0x1fff, 1) && fb.overlaps(0, 0x1001));
        assert!(!fb.overlaps(0x2000, 8) && !fb.overlaps(0, 0x1000));
    }

    #[test]
    fn layout_wraps_skips_records_and_scrolls_by_half_a_screen() {
        let mut s = Screen::new(8 * 4 + 7, 16 * 4 + 15);
        assert_eq!((s.cols, s.rows), (4, 4));
        let write = |s: &mut Screen, text: &str| {
            let (mut drawn, mut scrolls) = (Vec::new(), Vec::new());
            for c in text.bytes() {
                let put = s.put(c);
                if put.scroll > 0 {
                    scrolls.push(put.scroll);
                }
                drawn.extend(put.draw);
            }
            (drawn, scrolls)
        };
        let (drawn, scrolls) = write(&mut s, "ab\r\n@mb {\"kind\":\"x\"}\nabcdef\n");
        assert_eq!(
            drawn,
            [
                (0, 0, b'a'),
                (1, 0, b'b'),
                (0, 1, b'a'),
                (1, 1, b'b'),
                (2, 1, b'c'),
                (3, 1, b'd'),
                (0, 2, b'e'),
                (1, 2, b'f')
            ]
        );
        assert_eq!(s.cursor(), (0, 3));
        assert!(scrolls.is_empty());
        // An '@' inside a line is drawn; the next line end scrolls by 2 of the 4 rows.
        let (drawn, scrolls) = write(&mut s, "x@\n");
        assert_eq!(drawn, [(0, 3, b'x'), (1, 3, b'@')]);
        assert_eq!(scrolls, [2]);
        assert_eq!(s.cursor(), (0, 2));
    }

    #[test]
    fn reserve_makes_room_at_the_bottom() {
        let mut s = Screen::new(80, 16 * 10);
        for c in b"status\n" {
            s.put(*c);
        }
        assert_eq!(s.reserve(2), (0, 1));
        assert_eq!(s.cursor(), (0, 3));
        // Near the bottom: scrolls just enough to keep a row below.
        let mut s = Screen::new(80, 16 * 10);
        for _ in 0..9 {
            s.put(b'\n');
        }
        s.put(b'x');
        assert_eq!(s.cursor(), (1, 9));
        // The line ends (a half-screen scroll: 5 rows), then the 3 rows fit.
        assert_eq!(s.reserve(3), (5, 5));
        assert_eq!(s.cursor(), (0, 8));
        // At the last row with nothing on it: scrolls by just enough.
        let mut s = Screen::new(80, 16 * 10);
        for _ in 0..8 {
            s.put(b'\n');
        }
        assert_eq!(s.reserve(3), (2, 6));
        assert_eq!(s.cursor(), (0, 9));
        // More rows than half the screen: half the screen.
        assert_eq!(Screen::new(80, 16 * 4).reserve(9), (0, 0));
    }
}
