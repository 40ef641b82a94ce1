//! The kernels on 32-bit Arm: the A32 loop of each row of the kernel table ([`A32`], one
//! entry per row of [`KERNELS`](super::KERNELS), by position), and the table the 32-bit
//! image measures ([`KERNELS`]): the rows A32 has, with their A32 names and summaries. A row
//! keeps its [`Kernel`], so records of either architecture are read, stored and compared by
//! the same kernel; only its name says which instructions ran. A32 has no non-temporal load
//! or store pair and no `DC ZVA`, so `read-ldnp`, `write-stnp` and `fill-zva` have no row
//! here. The loops are `src/arch/armv7/kernels/*.S`; their instructions are named as
//! the Arm ARM for ARMv7-A (DDI 0406C) names them.
//!
//! Kept beside the table rather than in its rows so that the AArch64 image, which never
//! reads them, holds none of them.

use super::{Kernel, KernelSpec, KERNELS as ROWS};

/// A row's A32 loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct A32 {
    /// Its name on the command line and in records.
    pub name: &'static str,
    /// One line: what the loop does and how bytes (or loads, or lines) are counted.
    pub summary: &'static str,
}

const fn a32(name: &'static str, summary: &'static str) -> Option<A32> {
    Some(A32 { name, summary })
}

/// The A32 column of the kernel table: entry `i` is row `i` of
/// [`KERNELS`](super::KERNELS) on 32-bit Arm, `None` where A32 has no such loop.
pub const A32: [Option<A32>; ROWS.len()] = [
    a32(
        "read-ldm",
        "ldm p!,{r4-r11} x8 per iteration (256 B); bytes read",
    ),
    a32(
        "write-stm",
        "stm p!,{r4-r11} x8 per iteration (256 B); bytes written",
    ),
    a32(
        "read-vld1",
        "vld1.64 {d0-d3},[p:128]! x16 per iteration (512 B); bytes read",
    ),
    a32(
        "write-vst1",
        "vst1.64 {d0-d3},[p:128]! x16 per iteration (512 B); bytes written",
    ),
    None,
    None,
    a32(
        "copy-to",
        "ldm/stm copy from normal-wb into the type (128 B per iteration); bytes copied \
         counted once",
    ),
    a32(
        "copy-from",
        "ldm/stm copy from the type into normal-wb (128 B per iteration); bytes copied \
         counted once",
    ),
    a32(
        "latency",
        "ldr r0,[r0] x8 per iteration, chasing one pointer per cache line in a random \
         cyclic order; ns per load",
    ),
    None,
    a32(
        "maint-dccimvac",
        "DCCIMVAC per CTR.DminLine line over the range, then dsb sy; time per line",
    ),
    a32(
        "maint-dccmvac",
        "DCCMVAC per CTR.DminLine line over the range, then dsb sy; time per line",
    ),
    a32(
        "maint-dcimvac",
        "DCIMVAC per CTR.DminLine line over the range, then dsb sy; time per line",
    ),
    a32(
        "write-line",
        "strd r2,r3,[p],#64 x16 per iteration (1 KiB): one 8-byte store per 64-byte line, a \
         partial-line write that write streaming does not hide; bytes counted as the lines' \
         span (64 per store)",
    ),
    a32(
        "copy-to-q",
        "vld1.64/vst1.64 copy from normal-wb into the type (256 B per iteration, 32 B an \
         instruction); bytes copied counted once",
    ),
    a32(
        "copy-from-q",
        "vld1.64/vst1.64 copy from the type into normal-wb (256 B per iteration, 32 B an \
         instruction); bytes copied counted once",
    ),
    a32(
        "triad",
        "a = b + 3*c (STREAM's triad) in 32-bit lanes, the three arrays in the type: vld1.64, \
         vmla.i32, vst1.64, 64 B of each per iteration; bytes of all three (STREAM's count)",
    ),
    a32(
        "read-stride-64",
        "ldr per 64-byte line, the lines 64 B apart; bytes counted as the lines' span (64 per \
         load)",
    ),
    a32(
        "read-stride-256",
        "ldr per 64-byte line, the lines 256 B apart, then from the next; bytes as the lines' \
         span",
    ),
    a32(
        "read-stride-1k",
        "ldr per 64-byte line, the lines 1 KiB apart, then from the next; bytes as the lines' \
         span",
    ),
    a32(
        "read-stride-4k",
        "ldr per 64-byte line, the lines 4 KiB apart, then from the next; bytes as the lines' \
         span",
    ),
    a32(
        "read-random",
        "ldr per 64-byte line, the lines in a random order (independent loads); bytes as the \
         lines' span",
    ),
];

/// How many rows have an A32 loop.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)] // bounded by the loop
const COUNT: usize = {
    let mut n = 0;
    let mut i = 0;
    while i < A32.len() {
        if A32[i].is_some() {
            n += 1;
        }
        i += 1;
    }
    n
};

/// The kernels the 32-bit image measures, in table order: the rows with an A32 loop, with
/// its name and summary.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)] // bounded by the loop
pub const KERNELS: [KernelSpec; COUNT] = {
    let mut out = [ROWS[0]; COUNT];
    let (mut i, mut n) = (0, 0);
    while i < ROWS.len() {
        if let Some(a) = A32[i] {
            out[n] = KernelSpec {
                name: a.name,
                summary: a.summary,
                ..ROWS[i]
            };
            n += 1;
        }
        i += 1;
    }
    out
};

/// The 32-bit image's kernel called `name` (exact match), if any.
pub fn by_name(name: &str) -> Option<&'static KernelSpec> {
    KERNELS.iter().find(|k| k.name == name)
}

/// The 32-bit image's row of `kernel`, if A32 has it.
pub fn spec(kernel: Kernel) -> Option<&'static KernelSpec> {
    KERNELS.iter().find(|k| k.kernel == kernel)
}

/// Writes the A32 column as a Markdown table (docs/kernels.md's "On 32-bit Arm", checked
/// by a test): each row's name in the table, its A32 name (or that A32 has none) and what
/// its A32 loop does.
pub fn write_markdown(out: &mut impl core::fmt::Write) -> core::fmt::Result {
    writeln!(out, "| kernel | on 32-bit Arm | the A32 loop |")?;
    writeln!(out, "| --- | --- | --- |")?;
    for (row, a32) in ROWS.iter().zip(&A32) {
        match a32 {
            Some(a) => writeln!(out, "| `{}` | `{}` | {} |", row.name, a.name, a.summary)?,
            None => writeln!(
                out,
                "| `{}` | none | A32 has no such instruction |",
                row.name
            )?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_a32_rows_are_the_tables_rows() {
        assert_eq!(KERNELS.len(), 19);
        for k in &KERNELS {
            let row = k.kernel.spec();
            assert_eq!(
                (k.unit, k.granule, k.quick, k.twin),
                (row.unit, row.granule, row.quick, row.twin)
            );
            assert_eq!(spec(k.kernel), Some(k));
            assert_eq!(by_name(k.name), Some(k));
        }
        let missing = [Kernel::ReadLdnp, Kernel::WriteStnp, Kernel::FillZva];
        assert!(missing.iter().all(|&k| spec(k).is_none()));
        // Names are unique across both tables unless they are the same row.
        for k in &KERNELS {
            if let Some(other) = ROWS.iter().find(|r| r.name == k.name) {
                assert_eq!(other.kernel, k.kernel, "{}", k.name);
            }
        }
        assert_eq!(by_name("read-ldm").map(|k| k.kernel), Some(Kernel::ReadLdp));
    }
}
