//! The Linux twin's sources: the one table ([`SOURCES`]) of the mappings Linux hands out that
//! `mairbench-linux` measures, from which its `mairbench.sources=` names, the host's
//! expected memory type per source and docs/twin-sources.md's table derive.
//!
//! Each row says which `pgprot_*` the arm64 kernel applies to that mapping, and so which
//! firmware memory type ([`crate::memtype::MEMTYPES`]) it should behave like. The
//! comparison (`cargo host compare FIRMWARE_LOG LINUX_LOG`) measures what it behaves like
//! and says whether the two agree.

use core::fmt;

/// Which kind of mapping a source is (the twin dispatches on it, never on the name's text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `anon`.
    Anon,
    /// `udmabuf`.
    Udmabuf,
    /// `dma-heap:<name>`.
    DmaHeap,
    /// `pci:<BDF>:resN_wc`.
    PciBarWc,
    /// `pci:<BDF>:resN`.
    PciBar,
    /// `devmem:<pa>+<size>`.
    DevMem,
    /// `drm-dumb:<card>`.
    DrmDumb,
    /// `dma-buf:<card>`: a dumb buffer's PRIME dma-buf.
    DmaBuf,
    /// `devmem-ram`: the RAM the boot hid from Linux, through `/dev/mem`.
    DevMemRam,
}

impl Form {
    /// This kind's [`SourceSpec::form`] in [`SOURCES`]: the source's name for a parameterless
    /// kind (`anon`, `udmabuf`), else the form of its names. A `const fn`, so that a constant
    /// can name a source by its kind (the host's twin reference is [`Form::Anon`]'s).
    #[allow(clippy::indexing_slicing, clippy::arithmetic_side_effects)] // bounded by the loop
    pub const fn form(self) -> &'static str {
        let mut i = 0;
        while i < SOURCES.len() {
            if SOURCES[i].kind as u8 == self as u8 {
                return SOURCES[i].form;
            }
            i += 1;
        }
        // A kind without a row (none: the table has one per kind).
        ""
    }
}

/// One kind of source.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SourceSpec {
    /// Which kind (the row's position names the same one: `SOURCES[i].kind as usize == i`).
    pub kind: Form,
    /// The name, or for a parameterised source its form: `anon`, `pci:<BDF>:resN_wc`.
    pub form: &'static str,
    /// What the name starts with (`pci:` for both BAR forms; see [`SourceSpec::suffix`]).
    pub prefix: &'static str,
    /// What the name ends with (`_wc` for the write-combining BAR form, else empty).
    pub suffix: &'static str,
    /// How the twin makes the mapping.
    pub how: &'static str,
    /// The page protection arm64 Linux gives it, as the kernel source names it.
    pub pgprot: &'static str,
    /// The page protection 32-bit Arm Linux gives it (`arch/arm/include/asm/pgtable.h`: its
    /// `L_PTE_MT_*` type, which the LPAE MAIR0/MAIR1 of `proc-v7-3level.S` and the TEX remap of
    /// `proc-v7-2level.S` make the same memory type as arm64's row).
    pub pgprot_arm: &'static str,
    /// The firmware memory type that protection is on arm64, when one follows from the
    /// source alone (a DRM dumb buffer is the driver's choice).
    pub expected: Option<&'static str>,
    /// Which set of the twin's runs it without being named: `all` (the default) only memory
    /// the twin allocates itself; `all-hardware` also the prefetchable PCI memory BARs (others
    /// may be registers with read side effects) and `devmem-ram`; arbitrary `/dev/mem` never.
    pub set: Set,
    /// Whether a live page table confirms `expected`, or the kernel sources alone give it.
    pub evidence: Evidence,
}

impl SourceSpec {
    /// The page protection Linux on `arch` gives it.
    pub fn pgprot_on(&self, arch: crate::arch::Arch) -> &'static str {
        match arch {
            crate::arch::Arch::Aarch64 => self.pgprot,
            crate::arch::Arch::Armv7 => self.pgprot_arm,
        }
    }
}

/// Which named set runs a source without it being named ([`SourceSpec::set`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Set {
    /// `all`, the default, and `all-hardware`: memory the twin allocates itself.
    All,
    /// `all-hardware` only: memory that is hardware's (a BAR, RAM through `/dev/mem`); the
    /// sweep writes all of it.
    Hardware,
    /// Only when named.
    Named,
}

impl Set {
    /// Whether the set called `name` (`all` or `all-hardware`) runs sources of this set.
    pub fn in_set(self, name: &str) -> bool {
        match self {
            Set::All => matches!(name, "all" | "all-hardware"),
            Set::Hardware => name == "all-hardware",
            Set::Named => false,
        }
    }
}

/// How a row's expected memory type is known.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Evidence {
    /// From the kernel sources the row names, and confirmed in a page table:
    /// `host/tests/linux/linux.rs` stops QEMU while the twin has the source mapped (its
    /// `mairbench.pause`), walks the twin's tables through QEMU's gdb stub
    /// ([`crate::paging::walk`]) and finds every page's AttrIndx, through MAIR_EL1, to be the
    /// expected type; `host/tests/linux/linux_armhf.rs` does the same on 32-bit Arm (LPAE,
    /// MAIR1:MAIR0) for the rows the armhf kernel has. `for_driver`: the DRM driver whose card
    /// was walked (empty for none).
    PageTable {
        /// The DRM driver whose buffers were walked (`vgem`), or empty.
        for_driver: &'static str,
    },
    /// From the kernel sources only; why no page table of the Linux boot shows it.
    KernelSourceOnly(&'static str),
}

/// Walked in the Linux boot (no DRM driver named).
const WALKED: Evidence = Evidence::PageTable { for_driver: "" };
/// Walked in the Linux boot on vgem's card.
const WALKED_VGEM: Evidence = Evidence::PageTable { for_driver: "vgem" };

impl fmt::Display for Evidence {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Evidence::PageTable { for_driver: "" } => f.write_str("yes: its page table"),
            Evidence::PageTable { for_driver } => {
                write!(f, "yes: its page table, {for_driver}'s card")
            }
            Evidence::KernelSourceOnly(why) => write!(f, "no, kernel source only: {why}"),
        }
    }
}

/// Every source kind. The BAR forms come `_wc` first, so that [`by_name`] finds the longer
/// suffix first.
pub const SOURCES: [SourceSpec; 9] = [
    SourceSpec {
        kind: Form::Anon,
        form: "anon",
        prefix: "anon",
        suffix: "",
        how: "mmap MAP_PRIVATE|MAP_ANONYMOUS: the heap's memory",
        pgprot: "protection_map, by vm_get_page_prot (MT_NORMAL)",
        pgprot_arm: "protection_map, by vm_get_page_prot: L_PTE_MT_WRITEALLOC where is_smp(), \
                     else L_PTE_MT_WRITEBACK, no write-allocate, normal-wb-nowa \
                     (build_mem_type_table, arch/arm/mm/mmu.c)",
        expected: Some("normal-wb"),
        set: Set::All,
        evidence: WALKED,
    },
    SourceSpec {
        kind: Form::Udmabuf,
        form: "udmabuf",
        prefix: "udmabuf",
        suffix: "",
        how: "memfd_create, F_SEAL_SHRINK, UDMABUF_CREATE on /dev/udmabuf, mmap of the dma-buf",
        pgprot: "vm_page_prot unchanged (MT_NORMAL): the memfd's pages, cached",
        pgprot_arm: "vm_page_prot unchanged: the memfd's pages, as anon's",
        expected: Some("normal-wb"),
        set: Set::All,
        evidence: WALKED,
    },
    SourceSpec {
        kind: Form::DmaHeap,
        form: "dma-heap:<name>",
        prefix: "dma-heap:",
        suffix: "",
        how: "DMA_HEAP_IOCTL_ALLOC on /dev/dma_heap/<name>, mmap of the dma-buf",
        pgprot: "vm_page_prot unchanged (MT_NORMAL) for the system and CMA heaps",
        pgprot_arm: "vm_page_prot unchanged for the system and CMA heaps, as anon's",
        expected: Some("normal-wb"),
        set: Set::All,
        evidence: Evidence::KernelSourceOnly(
            "Debian's arm64 6.12 kernel, the Linux boot's, leaves CONFIG_DMABUF_HEAPS off: no \
             /dev/dma_heap",
        ),
    },
    SourceSpec {
        kind: Form::PciBarWc,
        form: "pci:<BDF>:resN_wc",
        prefix: "pci:",
        suffix: "_wc",
        how: "mmap of /sys/bus/pci/devices/<BDF>/resourceN_wc",
        pgprot: "pgprot_writecombine (MT_NORMAL_NC)",
        pgprot_arm:
            "pgprot_writecombine (L_PTE_MT_BUFFERABLE), where the kernel offers resourceN_wc: \
                     arm's asm/pci.h has no arch_can_pci_mmap_wc, so drivers/pci/pci-sysfs.c \
                     makes none",
        expected: Some("normal-nc"),
        set: Set::Hardware,
        evidence: WALKED,
    },
    SourceSpec {
        kind: Form::PciBar,
        form: "pci:<BDF>:resN",
        prefix: "pci:",
        suffix: "",
        how: "mmap of /sys/bus/pci/devices/<BDF>/resourceN",
        pgprot: "pgprot_device (MT_DEVICE_nGnRE)",
        pgprot_arm: "pgprot_device (L_PTE_MT_DEV_SHARED)",
        expected: Some("device-ngnre"),
        set: Set::Hardware,
        evidence: WALKED,
    },
    SourceSpec {
        kind: Form::DevMem,
        form: "devmem:<pa>+<size>",
        prefix: "devmem:",
        suffix: "",
        how: "mmap of /dev/mem opened O_SYNC",
        pgprot: "pgprot_noncached (MT_DEVICE_nGnRnE) outside RAM; pgprot_writecombine \
                 (MT_NORMAL_NC) for RAM, which STRICT_DEVMEM refuses",
        pgprot_arm: "pgprot_noncached (L_PTE_MT_UNCACHED: Strongly-ordered) outside RAM; \
                     pgprot_writecombine (L_PTE_MT_BUFFERABLE) for RAM, which STRICT_DEVMEM \
                     refuses (phys_mem_access_prot, arch/arm/mm/mmu.c)",
        expected: Some("device-ngnrne"),
        set: Set::Named,
        evidence: Evidence::KernelSourceOnly(
            "the Linux boot names only Linux's RAM, which STRICT_DEVMEM refuses; outside RAM \
             phys_mem_access_prot takes the branch devmem-ram's walk shows",
        ),
    },
    SourceSpec {
        kind: Form::DrmDumb,
        form: "drm-dumb:<card>",
        prefix: "drm-dumb:",
        suffix: "",
        how: "DRM_IOCTL_MODE_CREATE_DUMB and MAP_DUMB on /dev/dri/<card>, mmap at the offset",
        pgprot: "the driver's (DRM_IOCTL_VERSION names it; see DRM_DRIVERS): \
                 pgprot_writecombine (MT_NORMAL_NC) with the GEM DMA helpers (dma_mmap_wc in \
                 drm_gem_dma_helper.c) and with GEM shmem when map_wc; GEM shmem is cached \
                 otherwise (drm_gem_shmem_mmap keeps vm_get_page_prot)",
        pgprot_arm: "the driver's, as on arm64 (see DRM_DRIVERS): pgprot_writecombine \
                     (L_PTE_MT_BUFFERABLE) or vm_get_page_prot",
        expected: None,
        set: Set::All,
        evidence: WALKED_VGEM,
    },
    SourceSpec {
        kind: Form::DmaBuf,
        form: "dma-buf:<card>",
        prefix: "dma-buf:",
        suffix: "",
        how: "DRM_IOCTL_MODE_CREATE_DUMB on /dev/dri/<card>, DRM_IOCTL_PRIME_HANDLE_TO_FD, mmap \
              of the dma-buf; DMA_BUF_IOCTL_SYNC START and END around each timed sample",
        pgprot: "the exporter's: drm_gem_prime_mmap (drm_prime.c) calls the GEM object's own \
                 mmap, so as drm-dumb:<card> for the same driver",
        pgprot_arm: "the exporter's, as on arm64: as drm-dumb:<card> for the same driver",
        expected: None,
        set: Set::All,
        evidence: WALKED_VGEM,
    },
    SourceSpec {
        kind: Form::DevMemRam,
        form: "devmem-ram",
        prefix: "devmem-ram",
        suffix: "",
        how: "mmap of /dev/mem opened O_SYNC at the RAM the boot hid from Linux (mem=), the \
              range from the mairbench.devmem-ram=<pa>+<size> bootarg",
        pgprot: "pgprot_noncached (MT_DEVICE_nGnRnE): memory that is not memblock memory \
                 (phys_mem_access_prot, arch/arm64/mm/mmu.c)",
        pgprot_arm: "pgprot_noncached (L_PTE_MT_UNCACHED: Strongly-ordered): not memblock \
                     memory (phys_mem_access_prot, arch/arm/mm/mmu.c)",
        expected: Some("device-ngnrne"),
        set: Set::Hardware,
        evidence: WALKED,
    },
];

/// The bootarg (kernel command line or the twin's argument) that names the `devmem-ram`
/// range, `<pa>+<size>`.
pub const DEVMEM_RAM_KEY: &str = "mairbench.devmem-ram=";

/// `<pa>+<size>` (`0x5c000000+64M`): the physical address, page-aligned, and a non-zero size
/// in whole pages; `None` for anything else.
pub fn parse_range(s: &str) -> Option<(u64, u64)> {
    let (pa, size) = s.split_once('+')?;
    let pa = if pa == "0" {
        0
    } else {
        crate::placement::parse_size(pa)?
    };
    let size = crate::placement::parse_size(size)?;
    (pa % 4096 == 0 && size != 0 && size % 4096 == 0 && pa.checked_add(size).is_some())
        .then_some((pa, size))
}

/// A DRM driver whose dumb buffers' mapping the kernel source fixes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DrmDriver {
    /// The name DRM_IOCTL_VERSION returns (`vgem`).
    pub name: &'static str,
    /// The protection its dumb buffers' mmap (and their PRIME dma-buf's) gets on arm64.
    pub pgprot: &'static str,
    /// The same on 32-bit Arm.
    pub pgprot_arm: &'static str,
    /// The firmware memory type that is on arm64.
    pub expected: &'static str,
    /// The kernel source that fixes it.
    pub cite: &'static str,
    /// Whether a live page table confirms `expected` (see [`Evidence`]).
    pub evidence: Evidence,
}

/// The DRM drivers whose mapping is known, by DRM_IOCTL_VERSION's name; any other driver's
/// is its own choice (unknown here).
pub const DRM_DRIVERS: [DrmDriver; 2] = [
    DrmDriver {
        name: "vgem",
        pgprot: "pgprot_writecombine (MT_NORMAL_NC): GEM shmem with map_wc",
        pgprot_arm: "pgprot_writecombine (L_PTE_MT_BUFFERABLE): GEM shmem with map_wc",
        expected: "normal-nc",
        cite: "drivers/gpu/drm/vgem/vgem_drv.c (vgem_gem_create_object sets map_wc), \
               drivers/gpu/drm/drm_gem_shmem_helper.c (drm_gem_shmem_mmap applies \
               pgprot_writecombine when map_wc)",
        evidence: WALKED,
    },
    DrmDriver {
        name: "virtio_gpu",
        pgprot: "vm_get_page_prot (MT_NORMAL): GEM shmem without map_wc, cached",
        pgprot_arm: "vm_get_page_prot, as anon's: GEM shmem without map_wc, cached",
        expected: "normal-wb",
        cite: "drivers/gpu/drm/virtio/virtgpu_object.c (virtio_gpu_create_object leaves \
               map_wc false), drivers/gpu/drm/drm_gem_shmem_helper.c (drm_gem_shmem_mmap)",
        evidence: Evidence::KernelSourceOnly("the Linux boot has no virtio-gpu device"),
    },
];

impl DrmDriver {
    /// The protection Linux on `arch` gives its buffers.
    pub fn pgprot_on(&self, arch: crate::arch::Arch) -> &'static str {
        match arch {
            crate::arch::Arch::Aarch64 => self.pgprot,
            crate::arch::Arch::Armv7 => self.pgprot_arm,
        }
    }
}

/// The known mapping of the DRM driver called `name`.
pub fn drm_driver(name: &str) -> Option<&'static DrmDriver> {
    DRM_DRIVERS.iter().find(|d| d.name == name)
}

/// The driver name from DRM_IOCTL_VERSION: `buf` is the buffer the caller passed as `name`,
/// `name_len` what the kernel wrote back (the name's full length, which may exceed the
/// buffer: then the kernel copied only the buffer's length). `None` unless the whole name
/// fits and is a non-empty run of ASCII letters, digits, `_` or `-`.
pub fn drm_driver_name(buf: &[u8], name_len: u64) -> Option<&str> {
    let n = usize::try_from(name_len).ok()?;
    let name = buf.get(..n)?;
    let ok = !name.is_empty()
        && name
            .iter()
            .all(|&b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-');
    ok.then(|| core::str::from_utf8(name).ok()).flatten()
}

/// Why `all` does not map a PCI BAR: its device does not decode memory, or a driver owns it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BarRefusal<'d> {
    /// The configuration space could not be read as far as the command register.
    NoConfig,
    /// The command register's Memory Space bit (bit 1) is clear: the BAR answers nothing.
    DecodingOff,
    /// The driver bound to the device (the sysfs `driver` link's target).
    Driver(&'d str),
}

impl BarRefusal<'_> {
    /// The errno the refusal's error record carries: EIO, ENXIO (no memory decoded) or EBUSY.
    pub fn errno(&self) -> i64 {
        match self {
            BarRefusal::NoConfig => 5,
            BarRefusal::DecodingOff => 6,
            BarRefusal::Driver(_) => 16,
        }
    }
}

impl fmt::Display for BarRefusal<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BarRefusal::NoConfig => {
                f.write_str("not mapped by all: the command register (config offset 4) unreadable")
            }
            BarRefusal::DecodingOff => f.write_str(
                "not mapped by all: memory decoding is off (PCI command register bit 1 clear)",
            ),
            BarRefusal::Driver(d) => write!(f, "not mapped by all: driver {d} owns the device"),
        }
    }
}

/// Whether `all` may map a BAR of the device whose configuration space starts with `config`
/// (sysfs `config`: the command register is the little-endian 16 bits at offset 4) and which
/// `driver` (the sysfs `driver` link's last part) owns: `None` when it may.
pub fn bar_refusal<'d>(config: &[u8], driver: Option<&'d str>) -> Option<BarRefusal<'d>> {
    if let Some(d) = driver {
        return Some(BarRefusal::Driver(d));
    }
    let command = match config.get(4..6) {
        Some(&[lo, hi]) => u16::from_le_bytes([lo, hi]),
        _ => return Some(BarRefusal::NoConfig),
    };
    const PCI_COMMAND_MEMORY: u16 = 0x2;
    (command & PCI_COMMAND_MEMORY == 0).then_some(BarRefusal::DecodingOff)
}

crate::assert_in_order!(SOURCES.kind);

/// The parameter of `name` for its kind `spec`: what lies between the prefix and the suffix
/// (`system` of `dma-heap:system`, `0000:00:02.0:res2` of `pci:0000:00:02.0:res2_wc`); empty
/// for a parameterless form.
pub fn param<'n>(spec: &SourceSpec, name: &'n str) -> &'n str {
    name.strip_prefix(spec.prefix)
        .and_then(|rest| rest.strip_suffix(spec.suffix))
        .unwrap_or("")
}

/// `spec.how` for the source called `name`, its placeholders filled in: "mmap of
/// /sys/bus/pci/devices/0000:00:02.0/resource2_wc" for `pci:0000:00:02.0:res2_wc`
/// (`<BDF>`, the N of `resourceN`, `<name>` and `<card>` from the name's parameter).
pub fn how<'n>(spec: &'static SourceSpec, name: &'n str) -> How<'n> {
    How { spec, name }
}

/// What [`how`] returns: displays the filled-in text.
pub struct How<'n> {
    spec: &'static SourceSpec,
    name: &'n str,
}

impl fmt::Display for How<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let param = param(self.spec, self.name);
        // A BAR's parameter is `<BDF>:resN`.
        let (bdf, bar) = param
            .rsplit_once(':')
            .and_then(|(bdf, res)| Some((bdf, res.strip_prefix("res")?)))
            .unwrap_or((param, ""));
        let mut rest = self.spec.how;
        while let Some(at) = rest.find(['<', 'N']) {
            let (before, from) = rest.split_at(at);
            f.write_str(before)?;
            let fill = [
                ("<BDF>", bdf),
                ("N", bar),
                ("<name>", param),
                ("<card>", param),
            ]
            .into_iter()
            .find(|(token, _)| {
                from.starts_with(token) && (*token != "N" || before.ends_with("resource"))
            });
            match fill {
                Some((token, value)) => {
                    f.write_str(value)?;
                    rest = from.get(token.len()..).unwrap_or("");
                }
                None => {
                    f.write_str(from.get(..1).unwrap_or(""))?;
                    rest = from.get(1..).unwrap_or("");
                }
            }
        }
        f.write_str(rest)
    }
}

/// The kind of the source called `name` (`pci:0000:00:02.0:res2_wc`), if it is one: its
/// prefix matches, and so does its suffix, or the name is exactly a parameterless form.
pub fn by_name(name: &str) -> Option<&'static SourceSpec> {
    SOURCES.iter().find(|s| {
        let param = s.form.contains('<');
        name.strip_prefix(s.prefix).is_some_and(|rest| {
            if param {
                !rest.is_empty() && rest.ends_with(s.suffix)
            } else {
                rest.is_empty()
            }
        })
    })
}

/// Writes the table as Markdown (docs/twin-sources.md's sources table, between its generated markers):
/// per source its form, how the twin maps it, the arm64 protection, the firmware memory type
/// expected, and whether `all` includes it.
pub fn write_markdown<W: fmt::Write + ?Sized>(w: &mut W) -> fmt::Result {
    w.write_str(
        "| source | how the twin maps it | arm64 protection | 32-bit Arm protection | expected \
         memory type | run by | checked in a page table |\n|---|---|---|---|---|---|---|\n",
    )?;
    for s in &SOURCES {
        write!(
            w,
            "| `{}` | {} | {} | {} | ",
            s.form,
            Cell(s.how),
            Cell(s.pgprot),
            Cell(s.pgprot_arm)
        )?;
        match s.expected {
            Some(t) => write!(w, "`{t}`")?,
            None => w.write_str("the driver's choice")?,
        }
        let all = match s.set {
            Set::All => "`all` (the default)",
            Set::Hardware => "`all-hardware`, or named",
            Set::Named => "only when named",
        };
        writeln!(w, " | {all} | {} |", s.evidence)?;
    }
    w.write_str(
        "\n| DRM driver (`drm-dumb:`, `dma-buf:`) | arm64 protection | 32-bit Arm protection | \
         expected memory type | kernel source | checked in a page table |\n|---|---|---|---|---|---|\n",
    )?;
    for d in &DRM_DRIVERS {
        writeln!(
            w,
            "| `{}` | {} | {} | `{}` | {} | {} |",
            d.name,
            Cell(d.pgprot),
            Cell(d.pgprot_arm),
            d.expected,
            Cell(d.cite),
            d.evidence
        )?;
    }
    Ok(())
}

/// Table-cell text: `|` escaped.
struct Cell(&'static str);

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, part) in self.0.split('|').enumerate() {
            if i != 0 {
                f.write_str("\\|")?;
            }
            f.write_str(part)?;
        }
        Ok(())
    }
}

/// What `/proc/self/smaps` says of one mapping (VMA): its range and how much of it is mapped
/// with PMD entries (2 MiB on a 4 KiB granule).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SmapsVma {
    /// First address of the VMA.
    pub start: u64,
    /// The address after its last byte.
    pub end: u64,
    /// Bytes of it mapped by PMD entries, in bytes: `AnonHugePages` (anonymous THP) plus
    /// `ShmemPmdMapped` and `FilePmdMapped` (shmem and file THP), the fields
    /// fs/proc/task_mmu.c (`show_smap`) writes in kB.
    pub huge_bytes: u64,
    /// `VmFlags` holds `hg` (MADV_HUGEPAGE given).
    pub advised: bool,
    /// `VmFlags` holds `nh` (MADV_NOHUGEPAGE given).
    pub refused: bool,
}

impl SmapsVma {
    /// Whether the VMA holds all of `[va, va + len)`.
    pub fn holds(&self, va: u64, len: u64) -> bool {
        va >= self.start && va.checked_add(len).is_some_and(|end| end <= self.end)
    }

    /// The granule a range of `len` bytes inside this VMA is mapped with, as far as the
    /// VMA's totals say: `Some(false)` (4 KiB pages) when none of the VMA is PMD-mapped,
    /// `Some(true)` (2 MiB blocks) when all of it is, `None` when part of it is (smaps
    /// cannot say which part).
    pub fn all_huge(&self) -> Option<bool> {
        let size = self.end.saturating_sub(self.start);
        match self.huge_bytes {
            0 => Some(false),
            h if h >= size && size != 0 => Some(true),
            _ => None,
        }
    }
}

/// The VMA of `smaps` (the text of `/proc/<pid>/smaps`) that holds the address `va`:
/// a header line `start-end perms offset dev inode [path]` (hexadecimal addresses) and the
/// `Key: value kB` lines up to the next header. `None` when no VMA holds `va`, or the text
/// is malformed where it would (a bad header is skipped, a bad field counted as 0).
pub fn smaps_vma(smaps: &str, va: u64) -> Option<SmapsVma> {
    let mut found: Option<SmapsVma> = None;
    for line in smaps.lines() {
        if let Some((start, end)) = vma_header(line) {
            if found.is_some() {
                break;
            }
            if (start..end).contains(&va) {
                found = Some(SmapsVma {
                    start,
                    end,
                    huge_bytes: 0,
                    advised: false,
                    refused: false,
                });
            }
            continue;
        }
        let Some(vma) = found.as_mut() else {
            continue;
        };
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        match key {
            "AnonHugePages" | "ShmemPmdMapped" | "FilePmdMapped" => {
                let kb = value
                    .trim()
                    .strip_suffix("kB")
                    .and_then(|n| n.trim().parse::<u64>().ok())
                    .unwrap_or(0);
                vma.huge_bytes = vma.huge_bytes.saturating_add(kb.saturating_mul(1024));
            }
            "VmFlags" => {
                for flag in value.split_ascii_whitespace() {
                    match flag {
                        "hg" => vma.advised = true,
                        "nh" => vma.refused = true,
                        _ => {}
                    }
                }
            }
            _ => {}
        }
    }
    found
}

/// A VMA header line's range: `start-end` in hexadecimal, then the permissions (4
/// characters); `None` for any other line (`Key: value` lines have no `-` before a space).
fn vma_header(line: &str) -> Option<(u64, u64)> {
    let mut words = line.split_ascii_whitespace();
    let (start, end) = words.next()?.split_once('-')?;
    let perms = words.next()?;
    if perms.len() != 4 {
        return None;
    }
    let start = u64::from_str_radix(start, 16).ok()?;
    let end = u64::from_str_radix(end, 16).ok()?;
    (start < end).then_some((start, end))
}

/// The kernel's THP setting from `/sys/kernel/mm/transparent_hugepage/enabled`
/// (`always [madvise] never`: the bracketed word), `None` when there is none.
pub fn thp_setting(text: &str) -> Option<&str> {
    let (_, rest) = text.split_once('[')?;
    let (word, _) = rest.split_once(']')?;
    (!word.is_empty() && word.bytes().all(|b| b.is_ascii_lowercase() || b == b'+')).then_some(word)
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;

    /// Each 32-bit Arm protection that names a Linux memory type (`L_PTE_MT_*`, its first)
    /// names the one the row expects, through the LPAE attribute indexes of
    /// `proc-v7-3level.S` (MAIR0 0xeeaa4400, MAIR1 0xff000004: UNCACHED 0x00, BUFFERABLE 0x44,
    /// DEV_SHARED 0x04, WRITEALLOC 0xff); the rows without one say whose they follow.
    #[test]
    fn the_32_bit_arm_column_names_the_expected_type() {
        let type_of = |p: &str| {
            let at = p.find("L_PTE_MT_")?;
            let name = p[at..]
                .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                .next()?;
            Some(match name {
                "L_PTE_MT_UNCACHED" => "device-ngnrne",
                "L_PTE_MT_BUFFERABLE" => "normal-nc",
                "L_PTE_MT_DEV_SHARED" => "device-ngnre",
                "L_PTE_MT_WRITEALLOC" => "normal-wb",
                other => panic!("{other}: not in the test's map"),
            })
        };
        let mut named = 0;
        for s in &SOURCES {
            match (type_of(s.pgprot_arm), s.expected) {
                (Some(t), Some(e)) => {
                    assert_eq!(t, e, "{}", s.form);
                    named += 1;
                }
                (None, _) => assert!(s.pgprot_arm.contains("as "), "{}", s.form),
                (Some(_), None) => assert!(s.pgprot_arm.contains("driver"), "{}", s.form),
            }
            assert_eq!(s.pgprot_on(crate::arch::Arch::Armv7), s.pgprot_arm);
            assert_eq!(s.pgprot_on(crate::arch::Arch::Aarch64), s.pgprot);
        }
        assert_eq!(named, 5);
        for d in &DRM_DRIVERS {
            if let Some(t) = type_of(d.pgprot_arm) {
                assert_eq!(t, d.expected, "{}", d.name);
            } else {
                assert!(d.pgprot_arm.contains("as anon's"), "{}", d.name);
            }
        }
    }
    use crate::memtype;

    #[test]
    fn every_expected_type_is_a_firmware_memory_type() {
        for s in &SOURCES {
            if let Some(t) = s.expected {
                assert!(memtype::by_name(t).is_some(), "{}: {t}", s.form);
            }
        }
    }

    #[test]
    fn a_kind_names_its_row() {
        for s in &SOURCES {
            assert_eq!(s.kind.form(), s.form);
        }
        assert_eq!(Form::Anon.form(), "anon");
        assert_eq!(Form::PciBarWc.form(), "pci:<BDF>:resN_wc");
        const ANON: &str = Form::Anon.form();
        assert_eq!(by_name(ANON).map(|s| s.kind), Some(Form::Anon));
    }

    #[test]
    fn how_fills_in_the_name() {
        extern crate std;
        use std::string::ToString;
        let how = |n: &str| how(by_name(n).unwrap(), n).to_string();
        assert_eq!(
            how("pci:0000:00:02.0:res2_wc"),
            "mmap of /sys/bus/pci/devices/0000:00:02.0/resource2_wc"
        );
        assert_eq!(
            how("pci:0000:00:02.0:res4"),
            "mmap of /sys/bus/pci/devices/0000:00:02.0/resource4"
        );
        assert!(how("dma-heap:system").contains("/dev/dma_heap/system,"));
        assert!(how("drm-dumb:card1").contains("/dev/dri/card1,"));
        assert_eq!(how("anon"), SOURCES[0].how);
        assert_eq!(how("devmem:0x1000+4K"), "mmap of /dev/mem opened O_SYNC");
    }

    #[test]
    fn names_find_their_kind() {
        let form = |n: &str| by_name(n).map(|s| s.form);
        assert_eq!(form("anon"), Some("anon"));
        assert_eq!(form("udmabuf"), Some("udmabuf"));
        assert_eq!(form("dma-heap:system"), Some("dma-heap:<name>"));
        assert_eq!(form("pci:0000:00:02.0:res2"), Some("pci:<BDF>:resN"));
        assert_eq!(form("pci:0000:00:02.0:res2_wc"), Some("pci:<BDF>:resN_wc"));
        assert_eq!(form("devmem:0x40000000+64K"), Some("devmem:<pa>+<size>"));
        assert_eq!(form("drm-dumb:card0"), Some("drm-dumb:<card>"));
        for bad in ["", "anonx", "dma-heap:", "pci:", "heap", "all"] {
            assert_eq!(form(bad), None, "{bad}");
        }
        for (i, s) in SOURCES.iter().enumerate() {
            assert_eq!(s.kind as usize, i, "{}", s.form);
        }
        fn p(n: &str) -> Option<&str> {
            by_name(n).map(|s| param(s, n))
        }
        assert_eq!(p("anon"), Some(""));
        assert_eq!(p("dma-heap:system"), Some("system"));
        assert_eq!(p("pci:0000:00:02.0:res2"), Some("0000:00:02.0:res2"));
        assert_eq!(p("pci:0000:00:02.0:res2_wc"), Some("0000:00:02.0:res2"));
        assert_eq!(p("drm-dumb:card0"), Some("card0"));
        assert_eq!(form("dma-buf:card0"), Some("dma-buf:<card>"));
        assert_eq!(p("dma-buf:card0"), Some("card0"));
        assert_eq!(form("devmem-ram"), Some("devmem-ram"));
        for bad in ["dma-buf:", "devmem-ram:x", "devmem-ramx", "devmem"] {
            assert_eq!(form(bad), None, "{bad}");
        }
    }

    #[test]
    fn new_rows_say_their_mapping() {
        let ram = by_name("devmem-ram").unwrap();
        assert_eq!(ram.kind, Form::DevMemRam);
        assert_eq!(ram.expected, Some("device-ngnrne"));
        assert!(ram.set == Set::Hardware && ram.pgprot.contains("pgprot_noncached"));
        let buf = by_name("dma-buf:card0").unwrap();
        assert_eq!(buf.kind, Form::DmaBuf);
        assert_eq!(buf.expected, None);
        assert!(buf.set == Set::All && buf.how.contains("DMA_BUF_IOCTL_SYNC"));
        // The BAR forms' `devmem:` does not take `devmem-ram`, nor the reverse.
        assert_eq!(by_name("devmem:0+4K").map(|s| s.kind), Some(Form::DevMem));
    }

    #[test]
    fn walked_rows_name_what_was_walked() {
        extern crate std;
        for s in &SOURCES {
            match s.evidence {
                // A row whose type is the driver's choice was walked on a driver's card, which
                // the driver table says was walked too.
                Evidence::PageTable { for_driver } => {
                    assert_eq!(s.expected.is_none(), !for_driver.is_empty(), "{}", s.form);
                    if !for_driver.is_empty() {
                        let d = drm_driver(for_driver).unwrap();
                        assert!(matches!(d.evidence, Evidence::PageTable { .. }));
                    }
                }
                Evidence::KernelSourceOnly(why) => assert!(!why.is_empty(), "{}", s.form),
            }
        }
        let mut md = std::string::String::new();
        write_markdown(&mut md).unwrap();
        assert!(
            md.contains("| `anon` |") && md.contains("| `all` (the default) |"),
            "{md}"
        );
        assert!(
            md.contains("no, kernel source only: Debian's arm64 6.12 kernel"),
            "{md}"
        );
        assert!(md.contains("yes: its page table, vgem's card |"), "{md}");
    }

    #[test]
    fn drm_drivers_have_known_mappings() {
        let vgem = drm_driver("vgem").unwrap();
        assert_eq!(vgem.expected, "normal-nc");
        assert!(vgem.cite.contains("vgem_drv.c") && vgem.cite.contains("drm_gem_shmem_helper.c"));
        assert_eq!(drm_driver("virtio_gpu").unwrap().expected, "normal-wb");
        assert_eq!(drm_driver("bochs-drm"), None);
        assert_eq!(drm_driver(""), None);
        for d in &DRM_DRIVERS {
            assert!(memtype::by_name(d.expected).is_some(), "{}", d.name);
        }
    }

    #[test]
    fn drm_version_names_parse() {
        let mut buf = [0u8; 32];
        buf[..4].copy_from_slice(b"vgem");
        assert_eq!(drm_driver_name(&buf, 4), Some("vgem"));
        buf[..10].copy_from_slice(b"virtio_gpu");
        assert_eq!(drm_driver_name(&buf, 10), Some("virtio_gpu"));
        // Longer than the buffer (the kernel copied only part), empty, or not a name.
        assert_eq!(drm_driver_name(&buf, 33), None);
        assert_eq!(drm_driver_name(&buf, u64::MAX), None);
        assert_eq!(drm_driver_name(&buf, 0), None);
        assert_eq!(drm_driver_name(b"a b", 3), None);
        assert_eq!(drm_driver_name(b"ab\0", 3), None);
        assert_eq!(drm_driver_name(&[0xff, b'a'], 2), None);
    }

    #[test]
    fn devmem_ram_ranges_parse() {
        assert_eq!(parse_range("0x5c000000+64M"), Some((0x5c00_0000, 64 << 20)));
        assert_eq!(parse_range("0+4K"), Some((0, 4096)));
        for bad in [
            "",
            "+",
            "0x5c000000",
            "0x5c000000+",
            "+64M",
            "0x5c000001+64M",
            "0x5c000000+0",
            "0x5c000000+100",
            "x+4K",
            "0xffffffffffff0000+1G",
            "0x1000+4K+4K",
        ] {
            assert_eq!(parse_range(bad), None, "{bad}");
        }
        assert!(DEVMEM_RAM_KEY.starts_with("mairbench."));
    }

    #[test]
    fn bars_are_refused_when_not_decoding_or_owned() {
        // Command register 0x0002 (memory space on) at offset 4.
        let on = [0xf4, 0x1a, 0x10, 0x11, 0x02, 0x00, 0x10, 0x00];
        let off = [0x34, 0x12, 0x11, 0x11, 0x01, 0x00, 0x00, 0x00];
        assert_eq!(bar_refusal(&on, None), None);
        assert_eq!(bar_refusal(&off, None), Some(BarRefusal::DecodingOff));
        assert_eq!(
            bar_refusal(&on, Some("bochs-drm")),
            Some(BarRefusal::Driver("bochs-drm"))
        );
        assert_eq!(bar_refusal(&on[..5], None), Some(BarRefusal::NoConfig));
        assert_eq!(bar_refusal(&[], None), Some(BarRefusal::NoConfig));
        // Only bit 1 counts: I/O space and bus master alone do not decode memory.
        assert_eq!(
            bar_refusal(&[0, 0, 0, 0, 0x05, 0xff], None),
            Some(BarRefusal::DecodingOff)
        );
        assert_eq!(bar_refusal(&[0, 0, 0, 0, 0x06, 0x00], None), None);
        extern crate std;
        use std::string::ToString;
        assert!(BarRefusal::DecodingOff.to_string().contains("bit 1"));
        assert_eq!(BarRefusal::Driver("x").errno(), 16);
        assert_eq!(BarRefusal::DecodingOff.errno(), 6);
    }
    const SMAPS: &str = "\
00200000-00240000 r-xp 00000000 fe:00 123                        /mairbench-linux
Size:                256 kB
AnonHugePages:         0 kB
VmFlags: rd ex mr mw me
7f0000000000-7f0004000000 rw-p 00000000 00:00 0 
Size:              65536 kB
KernelPageSize:        4 kB
AnonHugePages:     61440 kB
ShmemPmdMapped:        0 kB
FilePmdMapped:         0 kB
THPeligible:           1
VmFlags: rd wr mr mw me ac hg
7f0004000000-7f0004200000 rw-s 00000000 00:01 7                  /dmabuf:
Size:               2048 kB
AnonHugePages:         0 kB
ShmemPmdMapped:     2048 kB
VmFlags: rd wr sh mr mw me ms nh
";

    #[test]
    fn smaps_gives_the_vma_that_holds_the_address() {
        let anon = smaps_vma(SMAPS, 0x7f00_0000_1000).unwrap();
        assert_eq!(
            anon,
            SmapsVma {
                start: 0x7f00_0000_0000,
                end: 0x7f00_0400_0000,
                huge_bytes: 61440 << 10,
                advised: true,
                refused: false,
            }
        );
        assert!(anon.holds(0x7f00_0000_0000, 64 << 20));
        assert!(!anon.holds(0x7f00_0000_1000, 64 << 20));
        assert!(!anon.holds(u64::MAX, 2));
        assert_eq!(
            anon.all_huge(),
            None,
            "60 of 64 MiB: smaps cannot say which"
        );
        // The last VMA, up to the end of the text; shmem THP counts.
        let shared = smaps_vma(SMAPS, 0x7f00_041f_f000).unwrap();
        assert_eq!((shared.huge_bytes, shared.refused), (2 << 20, true));
        assert_eq!(shared.all_huge(), Some(true));
        let text = smaps_vma(SMAPS, 0x20_0000).unwrap();
        assert_eq!((text.huge_bytes, text.all_huge()), (0, Some(false)));
        // The end is not in the VMA; nothing holds these.
        for va in [0x24_0000, 0, 0x7f00_0420_0000, u64::MAX] {
            assert_eq!(smaps_vma(SMAPS, va), None, "{va:#x}");
        }
    }

    #[test]
    fn bad_smaps_text_gives_nothing_or_zero_and_never_panics() {
        assert_eq!(smaps_vma("", 0x1000), None);
        // A bad header is no VMA; a bad value counts as 0.
        let bad = "zz-1000 rw-p 0 0 0\n1000-0 rw-p\n1000-3000 rw-p 0 00:00 0\n\
                   AnonHugePages: lots kB\nAnonHugePages:\nFilePmdMapped: 8 kB\nVmFlags:\n";
        assert_eq!(smaps_vma(bad, 0x800), None);
        let vma = smaps_vma(bad, 0x2000).unwrap();
        assert_eq!((vma.start, vma.end, vma.huge_bytes), (0x1000, 0x3000, 8192));
        let huge = std::format!("1000-3000 rw-p 0 0 0\nAnonHugePages: {} kB\n", u64::MAX);
        assert_eq!(smaps_vma(&huge, 0x1000).unwrap().huge_bytes, u64::MAX);
        // A whole VMA of nothing is not "all huge".
        let empty = SmapsVma {
            start: 0x1000,
            end: 0x1000,
            huge_bytes: 0,
            advised: false,
            refused: false,
        };
        assert_eq!(empty.all_huge(), Some(false));
        let bytes: std::vec::Vec<u8> = (0..=255u8).cycle().take(4096).collect();
        let _ = smaps_vma(&std::string::String::from_utf8_lossy(&bytes), 0x1000);
    }

    #[test]
    fn the_thp_setting_is_the_bracketed_word() {
        assert_eq!(thp_setting("always [madvise] never\n"), Some("madvise"));
        assert_eq!(thp_setting("[always] madvise never"), Some("always"));
        assert_eq!(thp_setting("always madvise [never]\n"), Some("never"));
        for bad in [
            "",
            "always madvise never",
            "[]",
            "[always",
            "[Al ways]",
            "]x[",
        ] {
            assert_eq!(thp_setting(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_default_set_touches_only_memory_the_twin_allocates() {
        for s in &SOURCES {
            let allocated = matches!(
                s.kind,
                Form::Anon | Form::Udmabuf | Form::DmaHeap | Form::DrmDumb | Form::DmaBuf
            );
            assert_eq!(s.set.in_set("all"), allocated, "{}", s.form);
            // Hardware only when asked for: all-hardware, or by name.
            let hardware = matches!(s.kind, Form::PciBar | Form::PciBarWc | Form::DevMemRam);
            assert_eq!(
                s.set.in_set("all-hardware"),
                allocated || hardware,
                "{}",
                s.form
            );
            assert!(!s.set.in_set("anon") && !s.set.in_set(""), "{}", s.form);
        }
    }
}
