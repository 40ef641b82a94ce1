//! The measurement kernels: the one table ([`KERNELS`]) from which the command line
//! (`mairbench.kernels=`), the report's names and units, and the masks derive.
//!
//! The loops themselves are assembly in the firmware (`src/arch/aarch64/kernels/`); each entry's
//! `summary` says what its loop does and what it counts, so the report can say it too.

pub mod armv7;

use crate::paging::Granule;

/// What a kernel's result measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unit {
    /// Bandwidth in MB/s (1 MB = 10^6 bytes); higher is better.
    Bandwidth,
    /// Nanoseconds per dependent load; lower is better.
    NsPerLoad,
    /// Nanoseconds per cache line (one maintenance instruction each); lower is better.
    NsPerLine,
}

impl Unit {
    /// The unit as the human report prints it: `MB/s`, `ns/load` or `ns/line`.
    pub const fn label(self) -> &'static str {
        match self {
            Unit::Bandwidth => "MB/s",
            Unit::NsPerLoad => "ns/load",
            Unit::NsPerLine => "ns/line",
        }
    }

    /// Whether a larger value is a better result (bandwidth) rather than a worse one (time).
    pub const fn higher_is_better(self) -> bool {
        matches!(self, Unit::Bandwidth)
    }

    /// The `result` record field holding the best sample's value in this unit:
    /// `best_mbps`, `ns_per_load` or `ns_per_line` (see [`crate::schema::RESULT`]).
    pub const fn best_field(self) -> &'static str {
        match self {
            Unit::Bandwidth => "best_mbps",
            Unit::NsPerLoad => "ns_per_load",
            Unit::NsPerLine => "ns_per_line",
        }
    }

    /// The `result` record field holding the median sample's value in this unit:
    /// `median_mbps`, `median_ns_per_load` or `median_ns_per_line`.
    pub const fn median_field(self) -> &'static str {
        match self {
            Unit::Bandwidth => "median_mbps",
            Unit::NsPerLoad => "median_ns_per_load",
            Unit::NsPerLine => "median_ns_per_line",
        }
    }

    /// The `result` record field counting what one sample did in this unit's terms:
    /// `bytes` (moved), `loads` or `lines` (maintained).
    pub const fn count_field(self) -> &'static str {
        match self {
            Unit::Bandwidth => "bytes",
            Unit::NsPerLoad => "loads",
            Unit::NsPerLine => "lines",
        }
    }
}

/// Every [`Unit`], in declaration order.
pub const UNITS: [Unit; 3] = [Unit::Bandwidth, Unit::NsPerLoad, Unit::NsPerLine];

/// One measurement kernel (the position of its entry in [`KERNELS`] is `kernel as usize`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// Stream of `ldp x, x` loads.
    ReadLdp,
    /// Stream of `stp x, x` stores.
    WriteStp,
    /// Stream of `ldp q, q` (128-bit SIMD) loads.
    ReadLdpQ,
    /// Stream of `stp q, q` (128-bit SIMD) stores.
    WriteStpQ,
    /// Stream of `ldnp x, x` (non-temporal pair) loads.
    ReadLdnp,
    /// Stream of `stnp x, x` (non-temporal pair) stores.
    WriteStnp,
    /// Copy from the `normal-wb` alias into the memory type under test.
    CopyTo,
    /// Copy from the memory type under test into the `normal-wb` alias.
    CopyFrom,
    /// Dependent-load pointer chase in a random cyclic order.
    Latency,
    /// Zeroing with `DC ZVA` (Normal memory only).
    FillZva,
    /// `DC CIVAC` (clean and invalidate to the point of coherency) over the range.
    MaintCivac,
    /// `DC CVAC` (clean to the point of coherency) over the range.
    MaintCvac,
    /// `DC IVAC` (invalidate to the point of coherency) over the range.
    MaintIvac,
    /// One 8-byte `str` per 64-byte line: a partial-line write stream, which the write
    /// streaming modes (the A53's read allocate mode, the A76's write streaming) do not take
    /// for a full-line one, so its misses allocate where the memory type asks.
    WriteLine,
    /// Copy with `ldp`/`stp` of q registers (32 bytes a pair) from the `normal-wb` alias into
    /// the memory type under test: the fastest copy on most cores.
    CopyToQ,
    /// The same from the memory type under test into the `normal-wb` alias.
    CopyFromQ,
    /// STREAM's triad, `a = b + 3·c` (in 32-bit integer lanes), its three arrays in the
    /// memory type under test.
    Triad,
    /// One 8-byte load per 64-byte line, the lines visited 64 B apart (in order).
    ReadStride64,
    /// The same, the lines visited 256 B apart (every 4th line, then the next start).
    ReadStride256,
    /// The same, 1 KiB apart.
    ReadStride1k,
    /// The same, 4 KiB apart: one line per page, then the next line of every page.
    ReadStride4k,
    /// The same lines in a random order: independent loads, unlike the latency chase; on the
    /// 2 MiB-block aliases as the chase is, for the same reason.
    ReadRandom,
}

impl Kernel {
    /// The kernel's entry in [`KERNELS`]; in a build for 32-bit Arm (the 32-bit image and the
    /// twin there, whose loops are A32), its A32 entry where it has one ([`armv7::spec`]), so
    /// that every sentence names the loop that ran.
    pub fn spec(self) -> &'static KernelSpec {
        #[cfg(target_arch = "arm")]
        if let Some(a32) = armv7::spec(self) {
            return a32;
        }
        // `KERNELS[k as usize].kernel == k` is checked at compile time below; `find` keeps
        // this free of indexing all the same.
        KERNELS
            .iter()
            .find(|s| s.kernel == self)
            .unwrap_or(&KERNELS[0])
    }

    /// The kernel's bit in a mask such as [`ALL_KERNELS`] (bit i = `KERNELS[i]`).
    pub const fn bit(self) -> Mask {
        1 << self as Mask
    }

    /// How a strided-read kernel visits the lines of its working set; `None` for the others.
    pub const fn order(self) -> Option<Order> {
        match self {
            Kernel::ReadStride64 => Some(Order::Stride(64)),
            Kernel::ReadStride256 => Some(Order::Stride(256)),
            Kernel::ReadStride1k => Some(Order::Stride(1024)),
            Kernel::ReadStride4k => Some(Order::Stride(4096)),
            Kernel::ReadRandom => Some(Order::Random),
            _ => None,
        }
    }
}

/// A set of kernels: bit i is `KERNELS[i]`.
pub type Mask = u32;

/// The order in which a strided-read kernel visits the 64-byte lines of its working set,
/// each once per pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Order {
    /// Lines this many bytes apart (a power of two from 64 to 4096, at most the working
    /// set): from the first line to the end, then from the next line, and so on, as a
    /// prefetcher sees a strided walk over a matrix's column.
    Stride(u64),
    /// A random-looking order: the lines' indices a full-period linear congruential sequence
    /// modulo the number of lines ([`RANDOM_MULTIPLIER`], [`RANDOM_INCREMENT`]), bit-reversed,
    /// so no two successive loads are a fixed distance apart. Each load's address depends on
    /// the previous index, not on loaded data: the loads overlap, unlike the latency chase.
    Random,
}

impl Order {
    /// Whether the assembly loop takes a working set of `len` bytes in this order: for a
    /// stride, a power of two from 64 to 4096 that divides a non-zero `len`; for the random
    /// order a power-of-two number of 64-byte lines, at least 4 (its loop loads 4 at a time).
    pub fn takes(self, len: u64) -> bool {
        match self {
            Order::Stride(stride) => {
                stride.is_power_of_two()
                    && (64..=4096).contains(&stride)
                    && len != 0
                    && len.is_multiple_of(stride)
            }
            Order::Random => len.is_multiple_of(64) && (len / 64).is_power_of_two() && len >= 256,
        }
    }
}

/// Bytes a strided read counts per load: the 64-byte line it reads from.
pub const STRIDE_LINE: u64 = 64;

/// The random order's multiplier (≡ 1 mod 4, so that the sequence modulo a power of two has
/// full period; PCG's 64-bit multiplier).
pub const RANDOM_MULTIPLIER: u64 = 0x5851_f42d_4c95_7f2d;

/// The random order's increment (odd, for the full period).
pub const RANDOM_INCREMENT: u64 = 0x1405_7b7e_f767_814f;

/// The line indices a pass of the random order visits over `lines` lines (a power of two):
/// what the assembly computes, for tests. Starts from index 0's successor.
pub fn random_order(lines: u64) -> impl Iterator<Item = u64> {
    let bits = lines.trailing_zeros();
    let mut i = 0u64;
    (0..lines).map(move |_| {
        i = i
            .wrapping_mul(RANDOM_MULTIPLIER)
            .wrapping_add(RANDOM_INCREMENT)
            & lines.wrapping_sub(1);
        i.reverse_bits()
            .checked_shr(64u32.saturating_sub(bits))
            .unwrap_or(0)
    })
}

/// One row of the kernel table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelSpec {
    /// Which kernel.
    pub kernel: Kernel,
    /// Name on the command line and in the report, e.g. `read-ldp`.
    pub name: &'static str,
    /// What its result measures.
    pub unit: Unit,
    /// Measured on Normal memory types only (real cores fault on `DC ZVA` to Device memory).
    pub normal_only: bool,
    /// Part of the `mairbench.quick` subset.
    pub quick: bool,
    /// The aliases it runs on: 4 KiB pages, or 2 MiB blocks (the latency chase: a random
    /// chase over MiBs on pages would time page walks, not memory). A kernel on blocks also
    /// runs `normal-wb` on pages, one row that shows what the page walks cost.
    pub granule: Granule,
    /// Measured at the sweep's largest size only (the DRAM-sized one), not at every size:
    /// STREAM's triad and the strided reads ask their question of memory beyond the caches
    /// (what a prefetcher hides, what a saturated bus gives), and a table of them over
    /// types is the answer; at every size they would be five times the run's time.
    pub largest_only: bool,
    /// Run by the Linux twin (`mairbench-linux`, at EL0). Not: `fill-zva` (DC ZVA faults on
    /// Device memory, and EL0 may issue it only where the kernel sets SCTLR_EL1.DZE) and the
    /// `maint-*` kernels (EL0 may never issue DC IVAC, and the firmware times DC CIVAC and
    /// DC CVAC after writes through a second alias of the same pages, which a process does
    /// not have).
    pub twin: bool,
    /// One line: what the loop does and how bytes (or loads, or lines) are counted.
    pub summary: &'static str,
}

/// Every kernel, in [`Kernel`] order (`KERNELS[i].kernel as usize == i`).
pub const KERNELS: [KernelSpec; 22] = [
    KernelSpec {
        kernel: Kernel::ReadLdp,
        name: "read-ldp",
        unit: Unit::Bandwidth,
        normal_only: false,
        quick: true,
        granule: Granule::Page,
        largest_only: false,
        twin: true,
        summary: "ldp x,x,[p],#16 x16 per iteration (256 B); bytes read",
    },
    KernelSpec {
        kernel: Kernel::WriteStp,
        name: "write-stp",
        unit: Unit::Bandwidth,
        normal_only: false,
        quick: true,
        granule: Granule::Page,
        largest_only: false,
        twin: true,
        summary: "stp x,x,[p],#16 x16 per iteration (256 B); bytes written",
    },
    KernelSpec {
        kernel: Kernel::ReadLdpQ,
        name: "read-ldp-q",
        unit: Unit::Bandwidth,
        normal_only: false,
        quick: false,
        granule: Granule::Page,
        largest_only: false,
        twin: true,
        summary: "ldp q,q,[p],#32 x16 per iteration (512 B); bytes read",
    },
    KernelSpec {
        kernel: Kernel::WriteStpQ,
        name: "write-stp-q",
        unit: Unit::Bandwidth,
        normal_only: false,
        quick: false,
        granule: Granule::Page,
        largest_only: false,
        twin: true,
        summary: "stp q,q,[p],#32 x16 per iteration (512 B); bytes written",
    },
    KernelSpec {
        kernel: Kernel::ReadLdnp,
        name: "read-ldnp",
        unit: Unit::Bandwidth,
        normal_only: false,
        quick: false,
        granule: Granule::Page,
        largest_only: false,
        twin: true,
        summary: "ldnp x,x,[p,#off] x16 per iteration (256 B), a non-temporal hint; bytes read",
    },
    KernelSpec {
        kernel: Kernel::WriteStnp,
        name: "write-stnp",
        unit: Unit::Bandwidth,
        normal_only: false,
        quick: false,
        granule: Granule::Page,
        largest_only: false,
        twin: true,
        summary: "stnp x,x,[p,#off] x16 per iteration (256 B), a non-temporal hint; bytes \
                  written",
    },
    KernelSpec {
        kernel: Kernel::CopyTo,
        name: "copy-to",
        unit: Unit::Bandwidth,
        normal_only: false,
        quick: false,
        granule: Granule::Page,
        largest_only: false,
        twin: true,
        summary: "ldp/stp copy from normal-wb into the type (128 B per iteration); \
                  bytes copied counted once",
    },
    KernelSpec {
        kernel: Kernel::CopyFrom,
        name: "copy-from",
        unit: Unit::Bandwidth,
        normal_only: false,
        quick: false,
        granule: Granule::Page,
        largest_only: false,
        twin: true,
        summary: "ldp/stp copy from the type into normal-wb (128 B per iteration); \
                  bytes copied counted once",
    },
    KernelSpec {
        kernel: Kernel::Latency,
        name: "latency",
        unit: Unit::NsPerLoad,
        normal_only: false,
        quick: false,
        granule: Granule::Block,
        largest_only: false,
        twin: true,
        summary: "ldr x0,[x0] x8 per iteration, chasing one pointer per cache line in a \
                  random single cycle; time per load",
    },
    KernelSpec {
        kernel: Kernel::FillZva,
        name: "fill-zva",
        unit: Unit::Bandwidth,
        normal_only: true,
        quick: false,
        granule: Granule::Page,
        largest_only: false,
        twin: false,
        summary: "dc zva x4 per iteration, one DCZID_EL0 block each; bytes zeroed",
    },
    KernelSpec {
        kernel: Kernel::MaintCivac,
        name: "maint-civac",
        unit: Unit::NsPerLine,
        normal_only: false,
        quick: false,
        granule: Granule::Page,
        largest_only: false,
        twin: false,
        summary: "dc civac per CTR_EL0.DminLine line over the range, then dsb sy; time per line",
    },
    KernelSpec {
        kernel: Kernel::MaintCvac,
        name: "maint-cvac",
        unit: Unit::NsPerLine,
        normal_only: false,
        quick: false,
        granule: Granule::Page,
        largest_only: false,
        twin: false,
        summary: "dc cvac per CTR_EL0.DminLine line over the range, then dsb sy; time per line",
    },
    KernelSpec {
        kernel: Kernel::MaintIvac,
        name: "maint-ivac",
        unit: Unit::NsPerLine,
        normal_only: false,
        quick: false,
        granule: Granule::Page,
        largest_only: false,
        twin: false,
        summary: "dc ivac per CTR_EL0.DminLine line over the range, then dsb sy; time per line",
    },
    KernelSpec {
        kernel: Kernel::WriteLine,
        name: "write-line",
        unit: Unit::Bandwidth,
        normal_only: false,
        quick: true,
        granule: Granule::Page,
        largest_only: false,
        twin: false,
        summary: "str x,[p],#64 x16 per iteration (1 KiB): one 8-byte store per 64-byte line, a partial-line write that write streaming does not hide; bytes counted as the lines' span (64 per store)",
    },
    KernelSpec {
        kernel: Kernel::CopyToQ,
        name: "copy-to-q",
        unit: Unit::Bandwidth,
        normal_only: false,
        quick: false,
        granule: Granule::Page,
        largest_only: false,
        twin: true,
        summary: "ldp/stp q copy from normal-wb into the type (256 B per iteration, 32 B a \
                  pair); bytes copied counted once",
    },
    KernelSpec {
        kernel: Kernel::CopyFromQ,
        name: "copy-from-q",
        unit: Unit::Bandwidth,
        normal_only: false,
        quick: false,
        granule: Granule::Page,
        largest_only: false,
        twin: true,
        summary: "ldp/stp q copy from the type into normal-wb (256 B per iteration, 32 B a \
                  pair); bytes copied counted once",
    },
    KernelSpec {
        kernel: Kernel::Triad,
        name: "triad",
        unit: Unit::Bandwidth,
        normal_only: false,
        quick: false,
        granule: Granule::Page,
        largest_only: true,
        twin: true,
        summary: "a = b + 3*c (STREAM's triad) in 32-bit lanes, the three arrays in the type: \
                  ldp q, mla, stp q, 64 B of each per iteration; bytes of all three (STREAM's \
                  count)",
    },
    KernelSpec {
        kernel: Kernel::ReadStride64,
        name: "read-stride-64",
        unit: Unit::Bandwidth,
        normal_only: false,
        quick: false,
        granule: Granule::Page,
        largest_only: true,
        twin: true,
        summary: "ldr x per 64-byte line, the lines 64 B apart; bytes counted as the lines' span \
                  (64 per load)",
    },
    KernelSpec {
        kernel: Kernel::ReadStride256,
        name: "read-stride-256",
        unit: Unit::Bandwidth,
        normal_only: false,
        quick: false,
        granule: Granule::Page,
        largest_only: true,
        twin: true,
        summary: "ldr x per 64-byte line, the lines 256 B apart, then from the next; bytes as \
                  the lines' span",
    },
    KernelSpec {
        kernel: Kernel::ReadStride1k,
        name: "read-stride-1k",
        unit: Unit::Bandwidth,
        normal_only: false,
        quick: false,
        granule: Granule::Page,
        largest_only: true,
        twin: true,
        summary: "ldr x per 64-byte line, the lines 1 KiB apart, then from the next; bytes as \
                  the lines' span",
    },
    KernelSpec {
        kernel: Kernel::ReadStride4k,
        name: "read-stride-4k",
        unit: Unit::Bandwidth,
        normal_only: false,
        quick: false,
        granule: Granule::Page,
        largest_only: true,
        twin: true,
        summary: "ldr x per 64-byte line, the lines 4 KiB apart, then from the next; bytes as \
                  the lines' span",
    },
    KernelSpec {
        kernel: Kernel::ReadRandom,
        name: "read-random",
        unit: Unit::Bandwidth,
        normal_only: false,
        quick: false,
        granule: Granule::Block,
        largest_only: true,
        twin: true,
        summary: "ldr x per 64-byte line, the lines in a random order (independent loads); bytes \
                  as the lines' span",
    },
];

/// Mask of every kernel (bit i = `KERNELS[i]`).
pub const ALL_KERNELS: Mask = mask_where(false);

/// Mask of the kernels of the `mairbench.quick` subset (`read-ldp` and `write-stp`).
pub const QUICK_KERNELS: Mask = mask_where(true);

/// Mask of the table's kernels, or of its quick ones only.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)] // bounded by the loop
const fn mask_where(quick_only: bool) -> Mask {
    let mut mask = 0;
    let mut i = 0;
    while i < KERNELS.len() {
        if !quick_only || KERNELS[i].quick {
            mask |= 1 << i;
        }
        i += 1;
    }
    mask
}

crate::assert_in_order!(KERNELS.kernel);
// A mask has room for every kernel.
const _: () = assert!(KERNELS.len() <= Mask::BITS as usize);

/// The kernel called `name` (exact match), if any: by the table's name, or (except in the
/// AArch64 image, which never needs them) by its A32 name ([`armv7`]).
pub fn by_name(name: &str) -> Option<&'static KernelSpec> {
    let found = KERNELS.iter().find(|k| k.name == name);
    #[cfg(not(target_arch = "aarch64"))]
    let found = found.or_else(|| armv7::by_name(name));
    found
}

/// The kernels of `mask` (bit i = `KERNELS[i]`), in table order; unknown bits are ignored.
pub fn selected(mask: Mask) -> impl Iterator<Item = &'static KernelSpec> {
    KERNELS.iter().filter(move |k| mask & k.kernel.bit() != 0)
}

/// Parses a comma-separated list of kernel names into a mask; the first unknown name is the
/// error (an empty list, or an empty name between commas, is the error `""`).
pub fn parse_kernels(list: &str) -> Result<Mask, &str> {
    let mut mask: Mask = 0;
    for name in crate::text::split(list, b',') {
        let k = by_name(name).ok_or(name)?;
        mask |= k.kernel.bit();
    }
    Ok(mask)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    #[test]
    fn table_is_consistent() {
        for (i, k) in KERNELS.iter().enumerate() {
            assert_eq!(k.kernel as usize, i);
            assert_eq!(k.kernel.spec(), k);
            assert_eq!(by_name(k.name), Some(k));
            assert_eq!(k.kernel.bit(), 1 << i);
            assert!(!k.summary.is_empty() && !k.summary.contains('\n'));
            assert!(!k.summary.contains("  "), "{}", k.summary);
            for other in &KERNELS[i + 1..] {
                assert_ne!(k.name, other.name);
            }
        }
        let names: std::vec::Vec<_> = KERNELS.iter().map(|k| k.name).collect();
        assert_eq!(
            names,
            [
                "read-ldp",
                "write-stp",
                "read-ldp-q",
                "write-stp-q",
                "read-ldnp",
                "write-stnp",
                "copy-to",
                "copy-from",
                "latency",
                "fill-zva",
                "maint-civac",
                "maint-cvac",
                "maint-ivac",
                "write-line",
                "copy-to-q",
                "copy-from-q",
                "triad",
                "read-stride-64",
                "read-stride-256",
                "read-stride-1k",
                "read-stride-4k",
                "read-random"
            ]
        );
        let normal_only: std::vec::Vec<_> = KERNELS
            .iter()
            .filter(|k| k.normal_only)
            .map(|k| k.name)
            .collect();
        assert_eq!(normal_only, ["fill-zva"]);
        let on_blocks: std::vec::Vec<_> = KERNELS
            .iter()
            .filter(|k| k.granule == Granule::Block)
            .map(|k| k.name)
            .collect();
        assert_eq!(on_blocks, ["latency", "read-random"]);
        // The non-temporal pairs are full-run kernels with the ldp/stp loops' step.
        for k in [Kernel::ReadLdnp, Kernel::WriteStnp] {
            let spec = k.spec();
            assert_eq!(
                (spec.unit, spec.quick, spec.normal_only),
                (Unit::Bandwidth, false, false)
            );
            assert!(spec.summary.contains("(256 B)"), "{}", spec.summary);
        }
        assert_eq!(Kernel::Latency.spec().unit, Unit::NsPerLoad);
        assert_eq!(Kernel::MaintIvac.spec().unit.label(), "ns/line");
        assert!(Unit::Bandwidth.higher_is_better() && !Unit::NsPerLine.higher_is_better());
    }

    #[test]
    fn strided_orders_visit_every_line_once() {
        let orders: std::vec::Vec<_> = KERNELS.iter().filter_map(|k| k.kernel.order()).collect();
        assert_eq!(
            orders,
            [
                Order::Stride(64),
                Order::Stride(256),
                Order::Stride(1024),
                Order::Stride(4096),
                Order::Random
            ]
        );
        for lines in [64u64, 128, 1024, 1 << 16] {
            let mut seen = std::vec![false; lines as usize];
            let mut steps = std::collections::BTreeMap::new();
            let mut last = 0u64;
            for i in random_order(lines) {
                assert!(
                    !std::mem::replace(&mut seen[i as usize], true),
                    "{lines}: {i} twice"
                );
                *steps
                    .entry(i.wrapping_sub(last) & (lines - 1))
                    .or_insert(0u64) += 1;
                last = i;
            }
            assert!(seen.iter().all(|&s| s), "{lines}: a line never visited");
            // No fixed distance between successive loads for a prefetcher to find: the most
            // common step is at most 1 in 8 of them.
            let most = steps.values().max().copied().unwrap_or(0);
            assert!(most * 8 <= lines, "{lines} lines: one step {most} times");
        }
        for k in KERNELS.iter().filter(|k| k.kernel.order().is_some()) {
            assert!(
                k.name.starts_with("read-") && k.twin && !k.normal_only,
                "{}",
                k.name
            );
            assert!(k.summary.contains("the lines' span"), "{}", k.summary);
        }
    }

    #[test]
    fn the_loops_take_what_they_can_walk() {
        assert!(Order::Stride(64).takes(4096) && Order::Stride(4096).takes(4096));
        assert!(!Order::Stride(4096).takes(2048) && !Order::Stride(8192).takes(8192));
        assert!(!Order::Stride(96).takes(96 * 64) && !Order::Stride(64).takes(0));
        assert!(Order::Random.takes(256) && Order::Random.takes(4 << 20));
        assert!(!Order::Random.takes(128) && !Order::Random.takes(3 * 4096));
        assert!(!Order::Random.takes(0) && !Order::Random.takes(4100));
    }

    #[test]
    fn masks() {
        assert_eq!(ALL_KERNELS, 0x3f_ffff);
        assert_eq!(
            QUICK_KERNELS,
            Kernel::ReadLdp.bit() | Kernel::WriteStp.bit() | Kernel::WriteLine.bit()
        );
        assert_eq!(selected(ALL_KERNELS).count(), 22);
        let quick: std::vec::Vec<_> = selected(QUICK_KERNELS).map(|k| k.name).collect();
        assert_eq!(quick, ["read-ldp", "write-stp", "write-line"]);
        assert_eq!(selected(0).count(), 0);
    }

    #[test]
    fn parsing_lists() {
        assert_eq!(
            parse_kernels("read-ldp,write-stp,write-line"),
            Ok(QUICK_KERNELS)
        );
        assert_eq!(
            parse_kernels("maint-ivac,latency,latency"),
            Ok(Kernel::MaintIvac.bit() | Kernel::Latency.bit())
        );
        assert_eq!(
            parse_kernels("latency,read-ldnp,write-stnp"),
            Ok(Kernel::Latency.bit() | Kernel::ReadLdnp.bit() | Kernel::WriteStnp.bit())
        );
        assert_eq!(parse_kernels("read-ldp,bogus,nope"), Err("bogus"));
        assert_eq!(parse_kernels("READ-LDP"), Err("READ-LDP"));
        assert_eq!(parse_kernels(""), Err(""));
        assert_eq!(parse_kernels("read-ldp,"), Err(""));
        assert_eq!(parse_kernels(" read-ldp"), Err(" read-ldp"));
        let all: std::vec::Vec<_> = KERNELS.iter().map(|k| k.name).collect();
        assert_eq!(parse_kernels(&all.join(",")), Ok(ALL_KERNELS));
        let long = "fill-zva,".repeat(10_000) + "copy-to";
        assert_eq!(
            parse_kernels(&long),
            Ok(Kernel::FillZva.bit() | Kernel::CopyTo.bit())
        );
    }
}
