//! The measured loops in A32 assembly (one file per family, next to this one, shared with the
//! twin on 32-bit Linux), and the clock around them (`src/arch/shared/clock.rs`).
//!
//! The constructors are named by the kernel table's slots, as the AArch64 image's are, and
//! make the A32 loop of each slot: `read_ldp` the `ldm` reads, `read_ldp_q` the NEON `vld1`
//! reads, `copy` an `ldm`/`stm` copy, and so on. A32 has no non-temporal pair and no `DC ZVA`:
//! `read_ldnp`, `write_stnp` and `zva` are `None`, which the run reports as not measured. The
//! assembly takes virtual addresses inside one alias of the test buffer and lengths that are
//! non-zero multiples of each loop's step; the constructors check them, so safe code cannot
//! run a loop over anything else.

use super::buffer::{Chain, Window};
use super::cache::dcache_line;
use mairbench_core::kernel::Order;

#[path = "../../shared/clock.rs"]
mod clock;
pub use clock::{time, timer_overhead, Meter, Sample};

include!("loops.rs");

/// One call of a measured loop, over windows of the test buffer (see the module's text).
#[derive(Clone, Copy, Debug)]
pub struct Loop(Body);

#[derive(Clone, Copy, Debug)]
enum Body {
    ReadLdm { va: u32, len: u32 },
    WriteStm { va: u32, len: u32 },
    ReadVld1 { va: u32, len: u32 },
    WriteVst1 { va: u32, len: u32 },
    WriteLine { va: u32, len: u32 },
    Copy { dst: u32, src: u32, len: u32 },
    CopyQ { dst: u32, src: u32, len: u32 },
    Triad { a: u32, b: u32, c: u32, len: u32 },
    Stride { va: u32, len: u32, stride: u32 },
    Random { va: u32, lines: u32 },
    Chase { at: u32, loads: u32 },
    Civac { va: u32, len: u32, line: u32 },
    Cvac { va: u32, len: u32, line: u32 },
    Ivac { va: u32, len: u32, line: u32 },
}

/// `w` as (va, len) when its length is a non-zero multiple of `step`, its start is aligned
/// to `align`, and both fit in 32 bits.
fn fits(w: &Window, step: u64, align: u64) -> Option<(u32, u32)> {
    let ok = !w.is_empty() && w.len().is_multiple_of(step) && w.va().is_multiple_of(align);
    let end = w.va().checked_add(w.len())?;
    (ok && end <= 1 << 32).then(|| (w.va() as u32, w.len() as u32))
}

/// Two or three windows of the same length, each fitting a loop's step and alignment.
fn same(ws: &[&Window], step: u64, align: u64) -> Option<([u32; 3], u32)> {
    let mut vas = [0u32; 3];
    let (_, len) = fits(ws.first()?, step, align)?;
    for (va, w) in vas.iter_mut().zip(ws) {
        let (v, l) = fits(w, step, align)?;
        if l != len {
            return None;
        }
        *va = v;
    }
    Some((vas, len))
}

impl Loop {
    /// `ldm` of eight registers, 256 bytes per iteration (the read-ldp slot).
    pub fn read_ldp(w: &Window) -> Option<Loop> {
        fits(w, 256, 4).map(|(va, len)| Loop(Body::ReadLdm { va, len }))
    }

    /// `stm` of eight registers, 256 bytes per iteration (the write-stp slot), the values the
    /// AArch64 loop writes.
    pub fn write_stp(w: &Window) -> Option<Loop> {
        fits(w, 256, 4).map(|(va, len)| Loop(Body::WriteStm { va, len }))
    }

    /// NEON `vld1.64` of four d registers, 512 bytes per iteration (the read-ldp-q slot).
    pub fn read_ldp_q(w: &Window) -> Option<Loop> {
        fits(w, 512, 16).map(|(va, len)| Loop(Body::ReadVld1 { va, len }))
    }

    /// NEON `vst1.64` of four d registers, 512 bytes per iteration (the write-stp-q slot).
    pub fn write_stp_q(w: &Window) -> Option<Loop> {
        fits(w, 512, 16).map(|(va, len)| Loop(Body::WriteVst1 { va, len }))
    }

    /// No non-temporal load pair in A32.
    pub fn read_ldnp(_w: &Window) -> Option<Loop> {
        None
    }

    /// No non-temporal store pair in A32.
    pub fn write_stnp(_w: &Window) -> Option<Loop> {
        None
    }

    /// One 8-byte `strd` in each 64-byte line (a multiple of 1 KiB, line-aligned).
    pub fn write_line(w: &Window) -> Option<Loop> {
        fits(w, 1024, 64).map(|(va, len)| Loop(Body::WriteLine { va, len }))
    }

    /// `ldm`/`stm` copy of `src` into `dst` (equal lengths, a multiple of 128 bytes).
    pub fn copy(dst: &Window, src: &Window) -> Option<Loop> {
        let ([dst, src, _], len) = same(&[dst, src], 128, 4)?;
        Some(Loop(Body::Copy { dst, src, len }))
    }

    /// NEON copy of `src` into `dst` (equal lengths, a multiple of 256 bytes).
    pub fn copy_q(dst: &Window, src: &Window) -> Option<Loop> {
        let ([dst, src, _], len) = same(&[dst, src], 256, 16)?;
        Some(Loop(Body::CopyQ { dst, src, len }))
    }

    /// STREAM's triad `a = b + 3 * c` in 32-bit lanes over three windows of equal length (a
    /// multiple of 64 bytes).
    pub fn triad(a: &Window, b: &Window, c: &Window) -> Option<Loop> {
        let ([a, b, c], len) = same(&[a, b, c], 64, 16)?;
        Some(Loop(Body::Triad { a, b, c, len }))
    }

    /// One load per 64-byte line of the window (line-aligned), in `order` (as the AArch64
    /// image's).
    pub fn read_strided(w: &Window, order: Order) -> Option<Loop> {
        let (va, len) = fits(w, 64, 64).filter(|&(_, len)| order.takes(len.into()))?;
        Some(Loop(match order {
            Order::Stride(stride) => Body::Stride {
                va,
                len,
                stride: u32::try_from(stride).ok()?,
            },
            Order::Random => Body::Random {
                va,
                lines: len / 64,
            },
        }))
    }

    /// A chase of `loads` dependent loads (a non-zero multiple of 8) along `chain`, from its
    /// first line; each run continues where the previous one stopped. The chain's words are
    /// 64-bit and little-endian, so the 32-bit load of a word's first half is its address.
    pub fn chase(chain: &Chain, loads: u64) -> Option<Loop> {
        let at = u32::try_from(chain.target().va()).ok()?;
        let loads = u32::try_from(loads).ok()?;
        (loads != 0 && loads.is_multiple_of(8)).then_some(Loop(Body::Chase { at, loads }))
    }

    /// The same chase from where it stopped, with another number of loads.
    pub fn continued(&self, loads: u64) -> Option<Loop> {
        let loads = u32::try_from(loads).ok()?;
        match self.0 {
            Body::Chase { at, .. } if loads != 0 && loads.is_multiple_of(8) => {
                Some(Loop(Body::Chase { at, loads }))
            }
            _ => None,
        }
    }

    /// The same streaming loop over only the last `bytes` of its range (of each range, for a
    /// copy or the triad): a non-zero multiple of the loop's step, shorter than the range.
    /// `None` for the chase, the strided reads and the maintenance loops, or when `bytes`
    /// does not fit.
    pub fn tail(&self, bytes: u64) -> Option<Loop> {
        let bytes = u32::try_from(bytes).ok()?;
        let cut = |va: u32, len: u32, step: u32| {
            (bytes != 0 && bytes < len && bytes.is_multiple_of(step)).then(|| va + (len - bytes))
        };
        let len = bytes;
        let body = match self.0 {
            Body::ReadLdm { va, len: l } => Body::ReadLdm {
                va: cut(va, l, 256)?,
                len,
            },
            Body::WriteStm { va, len: l } => Body::WriteStm {
                va: cut(va, l, 256)?,
                len,
            },
            Body::ReadVld1 { va, len: l } => Body::ReadVld1 {
                va: cut(va, l, 512)?,
                len,
            },
            Body::WriteVst1 { va, len: l } => Body::WriteVst1 {
                va: cut(va, l, 512)?,
                len,
            },
            Body::WriteLine { va, len: l } => Body::WriteLine {
                va: cut(va, l, 1024)?,
                len,
            },
            Body::Copy { dst, src, len: l } => Body::Copy {
                dst: cut(dst, l, 128)?,
                src: cut(src, l, 128)?,
                len,
            },
            Body::CopyQ { dst, src, len: l } => Body::CopyQ {
                dst: cut(dst, l, 256)?,
                src: cut(src, l, 256)?,
                len,
            },
            Body::Triad { a, b, c, len: l } => Body::Triad {
                a: cut(a, l, 64)?,
                b: cut(b, l, 64)?,
                c: cut(c, l, 64)?,
                len,
            },
            _ => return None,
        };
        Some(Loop(body))
    }

    /// No `DC ZVA` in A32.
    pub fn zva(_w: &Window) -> Option<Loop> {
        None
    }

    /// DCCIMVAC per cache line of the window, then DSB (the maint-civac slot).
    pub fn civac(w: &Window) -> Option<Loop> {
        let line = dcache_line();
        fits(w, line, line).map(|(va, len)| {
            Loop(Body::Civac {
                va,
                len,
                line: line as u32,
            })
        })
    }

    /// DCCMVAC per cache line of the window, then DSB (the maint-cvac slot).
    pub fn cvac(w: &Window) -> Option<Loop> {
        let line = dcache_line();
        fits(w, line, line).map(|(va, len)| {
            Loop(Body::Cvac {
                va,
                len,
                line: line as u32,
            })
        })
    }

    /// DCIMVAC per cache line of the window, then DSB (the maint-ivac slot): dirty data in it
    /// is lost (the window holds test data only).
    pub fn ivac(w: &Window) -> Option<Loop> {
        let line = dcache_line();
        fits(w, line, line).map(|(va, len)| {
            Loop(Body::Ivac {
                va,
                len,
                line: line as u32,
            })
        })
    }

    /// Runs the loop once; a chase then continues from where it stopped.
    pub fn run(&mut self) {
        // SAFETY: every address range comes from a `Window` (mapped read-write test memory
        // that holds no Rust object) or, for the chase, from a chain laid inside one; the
        // constructors checked the lengths and alignment each loop relies on. The loops keep
        // the AAPCS callee-saved registers.
        unsafe {
            match &mut self.0 {
                Body::ReadLdm { va, len } => mb_k_read_ldm(*va, *len),
                Body::WriteStm { va, len } => mb_k_write_stm(*va, *len),
                Body::ReadVld1 { va, len } => mb_k_read_vld1(*va, *len),
                Body::WriteVst1 { va, len } => mb_k_write_vst1(*va, *len),
                Body::WriteLine { va, len } => mb_k_write_line(*va, *len),
                Body::Copy { dst, src, len } => mb_k_copy(*dst, *src, *len),
                Body::CopyQ { dst, src, len } => mb_k_copy_q(*dst, *src, *len),
                Body::Triad { a, b, c, len } => mb_k_triad(*a, *b, *c, *len),
                Body::Stride { va, len, stride } => mb_k_read_stride(*va, *len, *stride),
                Body::Random { va, lines } => mb_k_read_random(*va, *lines),
                Body::Chase { at, loads } => *at = mb_k_chase(*at, *loads),
                Body::Civac { va, len, line } => mb_k_dccimvac(*va, *len, *line),
                Body::Cvac { va, len, line } => mb_k_dccmvac(*va, *len, *line),
                Body::Ivac { va, len, line } => mb_k_dcimvac(*va, *len, *line),
            }
        }
    }
}
