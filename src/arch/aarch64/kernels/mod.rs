//! The measured loops, in assembly so that what runs is exactly what is named (one file per
//! family, next to this one), and the clock around them.
//!
//! The assembly takes virtual addresses inside one alias of the test buffer and lengths that
//! are non-zero multiples of the kernel's step; [`Loop`]'s constructors take [`Window`]s and
//! check the rest, so safe code cannot run a loop over anything else.

use super::buffer::{Chain, Window};
use super::cache::dcache_line;
use super::cpu::zva_block_size;
use mairbench_core::kernel::{Order, RANDOM_INCREMENT, RANDOM_MULTIPLIER};

#[path = "../../shared/clock.rs"]
mod clock;
pub use clock::{time, timer_overhead, Meter, Sample};

include!("loops.rs");

/// One call of a measured loop, over windows of the test buffer. Made only by the
/// constructors below, which check what the assembly relies on (non-zero lengths that are
/// multiples of each loop's step, aligned starts), so running one is safe.
#[derive(Clone, Copy, Debug)]
pub struct Loop(Body);

#[derive(Clone, Copy, Debug)]
enum Body {
    ReadLdp { va: u64, len: u64 },
    WriteStp { va: u64, len: u64 },
    ReadLdpQ { va: u64, len: u64 },
    WriteStpQ { va: u64, len: u64 },
    ReadLdnp { va: u64, len: u64 },
    WriteStnp { va: u64, len: u64 },
    WriteLine { va: u64, len: u64 },
    Copy { dst: u64, src: u64, len: u64 },
    CopyQ { dst: u64, src: u64, len: u64 },
    Triad { a: u64, b: u64, c: u64, len: u64 },
    Stride { va: u64, len: u64, stride: u64 },
    Random { va: u64, lines: u64 },
    Chase { at: u64, loads: u64 },
    Zva { va: u64, len: u64, block: u64 },
    Civac { va: u64, len: u64, line: u64 },
    Cvac { va: u64, len: u64, line: u64 },
    Ivac { va: u64, len: u64, line: u64 },
}

/// `w` as (va, len) when its length is a non-zero multiple of `step` and its start is
/// aligned to `align`.
fn fits(w: &Window, step: u64, align: u64) -> Option<(u64, u64)> {
    let ok = !w.is_empty() && w.len().is_multiple_of(step) && w.va().is_multiple_of(align);
    ok.then(|| (w.va(), w.len()))
}

impl Loop {
    /// `ldp x` reads of the window (a multiple of 256 bytes).
    pub fn read_ldp(w: &Window) -> Option<Loop> {
        fits(w, 256, 16).map(|(va, len)| Loop(Body::ReadLdp { va, len }))
    }

    /// `stp x` writes (a multiple of 256 bytes) of the values used in the public dma-buf
    /// report "Performance Anomaly Investigation".
    pub fn write_stp(w: &Window) -> Option<Loop> {
        fits(w, 256, 16).map(|(va, len)| Loop(Body::WriteStp { va, len }))
    }

    /// `ldp q` reads (a multiple of 512 bytes).
    pub fn read_ldp_q(w: &Window) -> Option<Loop> {
        fits(w, 512, 32).map(|(va, len)| Loop(Body::ReadLdpQ { va, len }))
    }

    /// `stp q` writes (a multiple of 512 bytes).
    pub fn write_stp_q(w: &Window) -> Option<Loop> {
        fits(w, 512, 32).map(|(va, len)| Loop(Body::WriteStpQ { va, len }))
    }

    /// `ldnp x` (non-temporal) reads of the window (a multiple of 256 bytes).
    pub fn read_ldnp(w: &Window) -> Option<Loop> {
        fits(w, 256, 16).map(|(va, len)| Loop(Body::ReadLdnp { va, len }))
    }

    /// `stnp x` (non-temporal) writes (a multiple of 256 bytes) of the values
    /// [`Loop::write_stp`] writes.
    pub fn write_stnp(w: &Window) -> Option<Loop> {
        fits(w, 256, 16).map(|(va, len)| Loop(Body::WriteStnp { va, len }))
    }

    /// One 8-byte `str` of 0xdeadbeef in each 64-byte line of the window (a multiple of
    /// 1 KiB, line-aligned): a partial-line write stream.
    pub fn write_line(w: &Window) -> Option<Loop> {
        fits(w, 1024, 64).map(|(va, len)| Loop(Body::WriteLine { va, len }))
    }

    /// `ldp`/`stp` copy of `src` into `dst` (equal lengths, a multiple of 128 bytes).
    pub fn copy(dst: &Window, src: &Window) -> Option<Loop> {
        let (d, len) = fits(dst, 128, 16)?;
        let (s, _) = fits(src, 128, 16).filter(|&(_, l)| l == len)?;
        Some(Loop(Body::Copy {
            dst: d,
            src: s,
            len,
        }))
    }

    /// `ldp`/`stp` q-register copy of `src` into `dst` (equal lengths, a multiple of 256
    /// bytes).
    pub fn copy_q(dst: &Window, src: &Window) -> Option<Loop> {
        let (d, len) = fits(dst, 256, 32)?;
        let (s, _) = fits(src, 256, 32).filter(|&(_, l)| l == len)?;
        Some(Loop(Body::CopyQ {
            dst: d,
            src: s,
            len,
        }))
    }

    /// STREAM's triad `a = b + 3 * c` in doubles over three windows of equal length (a
    /// multiple of 64 bytes).
    pub fn triad(a: &Window, b: &Window, c: &Window) -> Option<Loop> {
        let (a, len) = fits(a, 64, 16)?;
        let (b, _) = fits(b, 64, 16).filter(|&(_, l)| l == len)?;
        let (c, _) = fits(c, 64, 16).filter(|&(_, l)| l == len)?;
        Some(Loop(Body::Triad { a, b, c, len }))
    }

    /// One load per 64-byte line of the window (line-aligned), in `order`: lines a stride
    /// apart (a power of two from 64 to 4096 that divides the length) or a random order (a
    /// power-of-two number of lines, at least 4).
    pub fn read_strided(w: &Window, order: Order) -> Option<Loop> {
        let (va, len) = fits(w, 64, 64).filter(|&(_, len)| order.takes(len))?;
        Some(Loop(match order {
            Order::Stride(stride) => Body::Stride { va, len, stride },
            Order::Random => Body::Random {
                va,
                lines: len / 64,
            },
        }))
    }

    /// A chase of `loads` dependent loads (a non-zero multiple of 8) along `chain`, from its
    /// first line. Each run continues where the previous one stopped. (Should the chain be
    /// overwritten meanwhile, the loads go wherever its words point: loads only, and a fault
    /// is reported like any other.)
    pub fn chase(chain: &Chain, loads: u64) -> Option<Loop> {
        (loads != 0 && loads.is_multiple_of(8)).then(|| {
            Loop(Body::Chase {
                at: chain.target().va(),
                loads,
            })
        })
    }

    /// The same chase from where it stopped, with another number of loads.
    pub fn continued(&self, loads: u64) -> Option<Loop> {
        match self.0 {
            Body::Chase { at, .. } if loads != 0 && loads.is_multiple_of(8) => {
                Some(Loop(Body::Chase { at, loads }))
            }
            _ => None,
        }
    }

    /// The same streaming loop over only the last `bytes` of its range (of each range, for a
    /// copy): a non-zero multiple of the loop's step, shorter than the range. `None` for the
    /// chase and the maintenance loops, or when `bytes` does not fit.
    pub fn tail(&self, bytes: u64) -> Option<Loop> {
        let cut = |va: u64, len: u64, step: u64| {
            (bytes != 0 && bytes < len && bytes.is_multiple_of(step)).then(|| va + (len - bytes))
        };
        let body = match self.0 {
            Body::ReadLdp { va, len } => Body::ReadLdp {
                va: cut(va, len, 256)?,
                len: bytes,
            },
            Body::WriteStp { va, len } => Body::WriteStp {
                va: cut(va, len, 256)?,
                len: bytes,
            },
            Body::ReadLdpQ { va, len } => Body::ReadLdpQ {
                va: cut(va, len, 512)?,
                len: bytes,
            },
            Body::WriteStpQ { va, len } => Body::WriteStpQ {
                va: cut(va, len, 512)?,
                len: bytes,
            },
            Body::WriteLine { va, len } => Body::WriteLine {
                va: cut(va, len, 1024)?,
                len: bytes,
            },
            Body::Copy { dst, src, len } => Body::Copy {
                dst: cut(dst, len, 128)?,
                src: cut(src, len, 128)?,
                len: bytes,
            },
            Body::CopyQ { dst, src, len } => Body::CopyQ {
                dst: cut(dst, len, 256)?,
                src: cut(src, len, 256)?,
                len: bytes,
            },
            Body::Triad { a, b, c, len } => Body::Triad {
                a: cut(a, len, 64)?,
                b: cut(b, len, 64)?,
                c: cut(c, len, 64)?,
                len: bytes,
            },
            Body::Zva { va, len, block } => Body::Zva {
                va: cut(va, len, 4 * block)?,
                len: bytes,
                block,
            },
            _ => return None,
        };
        Some(Loop(body))
    }

    /// `DC ZVA` over the window (a multiple of 4 blocks, block-aligned); `None` where DC ZVA
    /// is prohibited (DCZID_EL0.DZP).
    pub fn zva(w: &Window) -> Option<Loop> {
        let block = zva_block_size()?;
        fits(w, 4 * block, block).map(|(va, len)| Loop(Body::Zva { va, len, block }))
    }

    /// `DC CIVAC` per cache line of the window, then DSB.
    pub fn civac(w: &Window) -> Option<Loop> {
        let line = dcache_line();
        fits(w, line, line).map(|(va, len)| Loop(Body::Civac { va, len, line }))
    }

    /// `DC CVAC` per cache line of the window, then DSB.
    pub fn cvac(w: &Window) -> Option<Loop> {
        let line = dcache_line();
        fits(w, line, line).map(|(va, len)| Loop(Body::Cvac { va, len, line }))
    }

    /// `DC IVAC` per cache line of the window, then DSB: dirty data in it is lost (the
    /// window holds test data only).
    pub fn ivac(w: &Window) -> Option<Loop> {
        let line = dcache_line();
        fits(w, line, line).map(|(va, len)| Loop(Body::Ivac { va, len, line }))
    }

    /// Runs the loop once; a chase then continues from where it stopped.
    pub fn run(&mut self) {
        // SAFETY: every address range comes from a `Window` (mapped read-write test memory
        // that holds no Rust object) or, for the chase, from a chain laid inside one; the
        // constructors checked the lengths and alignment each loop relies on. Kernels use
        // caller-saved registers only (AAPCS64).
        unsafe {
            match &mut self.0 {
                Body::ReadLdp { va, len } => mb_k_read_ldp(*va, *len),
                Body::WriteStp { va, len } => mb_k_write_stp(*va, *len),
                Body::ReadLdpQ { va, len } => mb_k_read_ldp_q(*va, *len),
                Body::WriteStpQ { va, len } => mb_k_write_stp_q(*va, *len),
                Body::ReadLdnp { va, len } => mb_k_read_ldnp(*va, *len),
                Body::WriteStnp { va, len } => mb_k_write_stnp(*va, *len),
                Body::WriteLine { va, len } => mb_k_write_line(*va, *len),
                Body::Copy { dst, src, len } => mb_k_copy(*dst, *src, *len),
                Body::CopyQ { dst, src, len } => mb_k_copy_q(*dst, *src, *len),
                Body::Triad { a, b, c, len } => mb_k_triad(*a, *b, *c, *len),
                Body::Stride { va, len, stride } => mb_k_read_stride(*va, *len, *stride),
                Body::Random { va, lines } => {
                    mb_k_read_random(*va, *lines, RANDOM_MULTIPLIER, RANDOM_INCREMENT)
                }
                Body::Chase { at, loads } => *at = mb_k_chase(*at, *loads),
                Body::Zva { va, len, block } => mb_k_zva(*va, *len, *block),
                Body::Civac { va, len, line } => mb_k_civac(*va, *len, *line),
                Body::Cvac { va, len, line } => mb_k_cvac(*va, *len, *line),
                Body::Ivac { va, len, line } => mb_k_ivac(*va, *len, *line),
            }
        }
    }
}
