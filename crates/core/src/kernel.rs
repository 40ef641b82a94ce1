//! The measurement kernels: the one table ([`KERNELS`]) from which the command line
//! (`mairbench.kernels=`), the report's names and units, and the masks derive.
//!
//! The loops themselves are assembly in the firmware (`src/arch/kernels/`); each entry's
//! `summary` says what its loop does and what it counts, so the report can say it too.

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
}

impl Kernel {
    /// The kernel's entry in [`KERNELS`].
    pub fn spec(self) -> &'static KernelSpec {
        // `KERNELS[k as usize].kernel == k` is checked at compile time below; `find` keeps
        // this free of indexing all the same.
        KERNELS
            .iter()
            .find(|s| s.kernel == self)
            .unwrap_or(&KERNELS[0])
    }

    /// The kernel's bit in a mask such as [`ALL_KERNELS`] (bit i = `KERNELS[i]`).
    pub const fn bit(self) -> u16 {
        1 << self as u16
    }
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
pub const KERNELS: [KernelSpec; 16] = [
    KernelSpec {
        kernel: Kernel::ReadLdp,
        name: "read-ldp",
        unit: Unit::Bandwidth,
        normal_only: false,
        quick: true,
        granule: Granule::Page,
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
        twin: true,
        summary: "ldp/stp q copy from the type into normal-wb (256 B per iteration, 32 B a \
                  pair); bytes copied counted once",
    },
];

/// Mask of every kernel (bit i = `KERNELS[i]`).
pub const ALL_KERNELS: u16 = mask_where(false);

/// Mask of the kernels of the `mairbench.quick` subset (`read-ldp` and `write-stp`).
pub const QUICK_KERNELS: u16 = mask_where(true);

/// Mask of the table's kernels, or of its quick ones only.
#[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)] // bounded by the loop
const fn mask_where(quick_only: bool) -> u16 {
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
const _: () = assert!(KERNELS.len() <= u16::BITS as usize);

/// The kernel called `name` (exact match), if any.
pub fn by_name(name: &str) -> Option<&'static KernelSpec> {
    KERNELS.iter().find(|k| k.name == name)
}

/// The kernels of `mask` (bit i = `KERNELS[i]`), in table order; unknown bits are ignored.
pub fn selected(mask: u16) -> impl Iterator<Item = &'static KernelSpec> {
    KERNELS.iter().filter(move |k| mask & k.kernel.bit() != 0)
}

/// Parses a comma-separated list of kernel names into a mask; the first unknown name is the
/// error (an empty list, or an empty name between commas, is the error `""`).
pub fn parse_kernels(list: &str) -> Result<u16, &str> {
    let mut mask = 0u16;
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
                "copy-from-q"
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
        assert_eq!(on_blocks, ["latency"]);
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
    fn masks() {
        assert_eq!(ALL_KERNELS, 0xffff);
        assert_eq!(
            QUICK_KERNELS,
            Kernel::ReadLdp.bit() | Kernel::WriteStp.bit() | Kernel::WriteLine.bit()
        );
        assert_eq!(selected(ALL_KERNELS).count(), 16);
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
