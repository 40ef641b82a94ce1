//! The measured loops, in assembly so that what runs is exactly what is named (one file per
//! family, next to this one), and the clock around them.
//!
//! Every function takes virtual addresses inside one alias of the test buffer (the callers in
//! `crate::bench` derive them from the memory map) and lengths that are non-zero multiples of
//! the kernel's step; the assembly relies on both.

use super::{pmu, ticks};
use aarch64_cpu::asm::barrier::{dsb, SY};
use core::arch::global_asm;

global_asm!(include_str!("stream.S"));
global_asm!(include_str!("latency.S"));
global_asm!(include_str!("zva.S"));
global_asm!(include_str!("maint.S"));

extern "C" {
    fn mb_k_read_ldp(p: u64, len: u64);
    fn mb_k_write_stp(p: u64, len: u64);
    fn mb_k_read_ldp_q(p: u64, len: u64);
    fn mb_k_write_stp_q(p: u64, len: u64);
    fn mb_k_copy(dst: u64, src: u64, len: u64);
    fn mb_k_chase(start: u64, loads: u64) -> u64;
    fn mb_k_zva(p: u64, len: u64, block: u64);
    fn mb_k_civac(p: u64, len: u64, line: u64);
    fn mb_k_cvac(p: u64, len: u64, line: u64);
    fn mb_k_ivac(p: u64, len: u64, line: u64);
}

/// One call of a measured loop.
#[derive(Clone, Copy, Debug)]
pub enum Loop {
    /// `ldp x` reads of `[va, va+len)`; `len` a multiple of 256.
    ReadLdp { va: u64, len: u64 },
    /// `stp x` writes; `len` a multiple of 256.
    WriteStp { va: u64, len: u64 },
    /// `ldp q` reads; `len` a multiple of 512.
    ReadLdpQ { va: u64, len: u64 },
    /// `stp q` writes; `len` a multiple of 512.
    WriteStpQ { va: u64, len: u64 },
    /// `ldp`/`stp` copy; `len` a multiple of 128.
    Copy { dst: u64, src: u64, len: u64 },
    /// Pointer chase of `loads` dependent loads (a multiple of 8) from `start`; each run
    /// continues where the previous one stopped.
    Chase { start: u64, loads: u64 },
    /// `DC ZVA` over `[va, va+len)`; `len` a multiple of 4 blocks.
    Zva { va: u64, len: u64, block: u64 },
    /// `DC CIVAC` per line, then DSB.
    Civac { va: u64, len: u64, line: u64 },
    /// `DC CVAC` per line, then DSB.
    Cvac { va: u64, len: u64, line: u64 },
    /// `DC IVAC` per line, then DSB (dirty data in the range is lost).
    Ivac { va: u64, len: u64, line: u64 },
}

impl Loop {
    /// Runs the loop once; a chase then continues from where it stopped.
    pub fn run(&mut self) {
        // SAFETY: each kernel touches only `[va, va+len)` (or the chain inside the working
        // set, or `dst`/`src` ranges), which the bench engine takes from a mapped alias of the
        // test buffer that no Rust object occupies; lengths are non-zero multiples of each
        // kernel's step (see the variants). Kernels use caller-saved registers only (AAPCS64).
        unsafe {
            match self {
                Loop::ReadLdp { va, len } => mb_k_read_ldp(*va, *len),
                Loop::WriteStp { va, len } => mb_k_write_stp(*va, *len),
                Loop::ReadLdpQ { va, len } => mb_k_read_ldp_q(*va, *len),
                Loop::WriteStpQ { va, len } => mb_k_write_stp_q(*va, *len),
                Loop::Copy { dst, src, len } => mb_k_copy(*dst, *src, *len),
                Loop::Chase { start, loads } => *start = mb_k_chase(*start, *loads),
                Loop::Zva { va, len, block } => mb_k_zva(*va, *len, *block),
                Loop::Civac { va, len, line } => mb_k_civac(*va, *len, *line),
                Loop::Cvac { va, len, line } => mb_k_cvac(*va, *len, *line),
                Loop::Ivac { va, len, line } => mb_k_ivac(*va, *len, *line),
            }
        }
    }
}

/// One timed sample.
#[derive(Clone, Copy, Debug, Default)]
pub struct Sample {
    /// CNTVCT_EL0 ticks (ISB before each read; DSB SY before the second, so stores count
    /// as done only when complete).
    pub ticks: u64,
    /// PMCCNTR_EL0 cycles over the same interval (0 without a usable PMU).
    pub cycles: u64,
}

/// Times `passes` runs of `body`.
pub fn time(passes: u64, with_cycles: bool, body: &mut Loop) -> Sample {
    let c0 = if with_cycles { pmu::cycles() } else { 0 };
    let t0 = ticks();
    for _ in 0..passes {
        body.run();
    }
    dsb(SY);
    let t1 = ticks();
    let c1 = if with_cycles { pmu::cycles() } else { 0 };
    Sample {
        ticks: t1.wrapping_sub(t0),
        cycles: c1.wrapping_sub(c0),
    }
}

/// The cost of reading the clock itself: the smallest interval of back-to-back reads.
pub fn timer_overhead() -> u64 {
    (0..64)
        .map(|_| {
            let t0 = ticks();
            dsb(SY);
            ticks().wrapping_sub(t0)
        })
        .min()
        .unwrap_or(0)
}
