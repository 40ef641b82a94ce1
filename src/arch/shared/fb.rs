//! Storing pixels in a linear framebuffer (UEFI's GOP framebuffer or a device tree's
//! `simple-framebuffer`): glyphs of `mairbench_core::fb`'s font, plain fills and the scroll.
//! What to draw where is computed by `mairbench_core::fb`; this file only writes it.

use mairbench_core::fb::{glyph, Framebuffer, PixelFormat, GLYPH_H, GLYPH_W};

/// A framebuffer to draw on: every write is a volatile store inside its rows.
#[derive(Clone, Copy, Debug)]
pub struct Canvas {
    base: usize,
    stride: usize,
    /// Pixels per row shown.
    pub width: u32,
    /// Rows shown.
    pub height: u32,
    /// The pixel layout.
    pub format: PixelFormat,
}

impl Canvas {
    /// The canvas of `fb` (its geometry checked by `Framebuffer::checked`: `stride` x
    /// `height` bytes fit its memory, a row of `width` pixels fits its stride).
    ///
    /// # Safety
    /// `fb` must describe a framebuffer: memory (or a display's aperture) writable at every
    /// byte of its `stride` x `height` rows, accessible for as long as the canvas (or a
    /// copy) is used, with the MMU off or mapped 1:1 (the memory set-up maps it as Normal
    /// non-cacheable), which nothing else in the firmware uses (memory set-up keeps the test
    /// buffer off it).
    pub unsafe fn new(fb: &Framebuffer) -> Canvas {
        Canvas {
            base: fb.base as usize,
            stride: fb.stride as usize,
            width: fb.width,
            height: fb.height,
            format: fb.format,
        }
    }

    /// The address of pixel (x, y), `None` outside the screen.
    fn at(&self, x: u32, y: u32) -> Option<usize> {
        (x < self.width && y < self.height).then(|| {
            self.base + y as usize * self.stride + x as usize * self.format.bytes() as usize
        })
    }

    /// Sets pixel (x, y) to the packed value `v` (nothing outside the screen).
    fn set(&self, x: u32, y: u32, v: u32) {
        let Some(a) = self.at(x, y) else { return };
        // SAFETY: (x, y) is on the screen, so the pixel's bytes lie inside the framebuffer's
        // rows, writable by the contract of `Canvas::new`; stride and base are multiples of
        // the pixel size on every framebuffer the formats describe.
        unsafe {
            match self.format {
                PixelFormat::Rgb565 => core::ptr::write_volatile(a as *mut u16, v as u16),
                _ => core::ptr::write_volatile(a as *mut u32, v),
            }
        }
    }

    /// The packed value of pixel (x, y).
    fn get(&self, x: u32, y: u32) -> u32 {
        let Some(a) = self.at(x, y) else { return 0 };
        // SAFETY: as in `set`: a pixel on the screen, inside the framebuffer's memory.
        unsafe {
            match self.format {
                PixelFormat::Rgb565 => u32::from(core::ptr::read_volatile(a as *const u16)),
                _ => core::ptr::read_volatile(a as *const u32),
            }
        }
    }

    /// Fills the pixel rows `y0..y1` with colour `rgb` (0xRRGGBB).
    pub fn fill_rows(&self, y0: u32, y1: u32, rgb: u32) {
        let v = self.format.pack(rgb);
        for y in y0..y1.min(self.height) {
            for x in 0..self.width {
                self.set(x, y, v);
            }
        }
    }

    /// Draws character `c` with its top-left corner at pixel (x, y), each font pixel a
    /// `scale` x `scale` square, in colour `fg` on `bg` (0xRRGGBB); clipped at the edges.
    pub fn glyph(&self, x: u32, y: u32, c: u8, scale: u32, fg: u32, bg: u32) {
        let (fg, bg) = (self.format.pack(fg), self.format.pack(bg));
        for (gy, bits) in (0..GLYPH_H).zip(glyph(c)) {
            for gx in 0..GLYPH_W {
                let v = if bits & (0x80 >> gx) != 0 { fg } else { bg };
                for dy in 0..scale {
                    for dx in 0..scale {
                        self.set(x + gx * scale + dx, y + gy * scale + dy, v);
                    }
                }
            }
        }
    }

    /// Moves the screen up by `by` pixel rows and fills the rows freed at the bottom with
    /// `bg`.
    pub fn scroll(&self, by: u32, bg: u32) {
        let by = by.min(self.height);
        for y in 0..self.height - by {
            for x in 0..self.width {
                self.set(x, y, self.get(x, y + by));
            }
        }
        self.fill_rows(self.height - by, self.height, bg);
    }
}
