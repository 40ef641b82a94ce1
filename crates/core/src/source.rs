//! The Linux twin's sources: the one table ([`SOURCES`]) of the mappings Linux hands out that
//! `mairbench-linux` measures, from which its `mairbench.sources=` names, the host's
//! expected memory type per source and the README's table derive.
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
    /// The firmware memory type that protection is on arm64, when one follows from the
    /// source alone (a DRM dumb buffer is the driver's choice).
    pub expected: Option<&'static str>,
    /// Whether `all` includes it: every source that is plain memory; BARs only when
    /// prefetchable (others may be registers with read side effects), `/dev/mem` never.
    pub in_all: bool,
}

/// Every source kind. The BAR forms come `_wc` first, so that [`by_name`] finds the longer
/// suffix first.
pub const SOURCES: [SourceSpec; 7] = [
    SourceSpec {
        kind: Form::Anon,
        form: "anon",
        prefix: "anon",
        suffix: "",
        how: "mmap MAP_PRIVATE|MAP_ANONYMOUS: the heap's memory",
        pgprot: "protection_map, by vm_get_page_prot (MT_NORMAL)",
        expected: Some("normal-wb"),
        in_all: true,
    },
    SourceSpec {
        kind: Form::Udmabuf,
        form: "udmabuf",
        prefix: "udmabuf",
        suffix: "",
        how: "memfd_create, F_SEAL_SHRINK, UDMABUF_CREATE on /dev/udmabuf, mmap of the dma-buf",
        pgprot: "vm_page_prot unchanged (MT_NORMAL): the memfd's pages, cached",
        expected: Some("normal-wb"),
        in_all: true,
    },
    SourceSpec {
        kind: Form::DmaHeap,
        form: "dma-heap:<name>",
        prefix: "dma-heap:",
        suffix: "",
        how: "DMA_HEAP_IOCTL_ALLOC on /dev/dma_heap/<name>, mmap of the dma-buf",
        pgprot: "vm_page_prot unchanged (MT_NORMAL) for the system and CMA heaps",
        expected: Some("normal-wb"),
        in_all: true,
    },
    SourceSpec {
        kind: Form::PciBarWc,
        form: "pci:<BDF>:resN_wc",
        prefix: "pci:",
        suffix: "_wc",
        how: "mmap of /sys/bus/pci/devices/<BDF>/resourceN_wc",
        pgprot: "pgprot_writecombine (MT_NORMAL_NC)",
        expected: Some("normal-nc"),
        in_all: true,
    },
    SourceSpec {
        kind: Form::PciBar,
        form: "pci:<BDF>:resN",
        prefix: "pci:",
        suffix: "",
        how: "mmap of /sys/bus/pci/devices/<BDF>/resourceN",
        pgprot: "pgprot_device (MT_DEVICE_nGnRE)",
        expected: Some("device-ngnre"),
        in_all: true,
    },
    SourceSpec {
        kind: Form::DevMem,
        form: "devmem:<pa>+<size>",
        prefix: "devmem:",
        suffix: "",
        how: "mmap of /dev/mem opened O_SYNC",
        pgprot: "pgprot_noncached (MT_DEVICE_nGnRnE) outside RAM; pgprot_writecombine \
                 (MT_NORMAL_NC) for RAM, which STRICT_DEVMEM refuses",
        expected: Some("device-ngnrne"),
        in_all: false,
    },
    SourceSpec {
        kind: Form::DrmDumb,
        form: "drm-dumb:<card>",
        prefix: "drm-dumb:",
        suffix: "",
        how: "DRM_IOCTL_MODE_CREATE_DUMB and MAP_DUMB on /dev/dri/<card>, mmap at the offset",
        pgprot: "the driver's: pgprot_writecombine (MT_NORMAL_NC) with the GEM DMA helpers, \
                 cached with GEM shmem unless map_wc",
        expected: None,
        in_all: true,
    },
];

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

/// Writes the table as Markdown (the README's sources table, between its generated markers):
/// per source its form, how the twin maps it, the arm64 protection, the firmware memory type
/// expected, and whether `all` includes it.
pub fn write_markdown<W: fmt::Write + ?Sized>(w: &mut W) -> fmt::Result {
    w.write_str(
        "| source | how the twin maps it | arm64 protection | expected memory type | in `all` |\n\
         |---|---|---|---|---|\n",
    )?;
    for s in &SOURCES {
        write!(
            w,
            "| `{}` | {} | {} | ",
            s.form,
            Cell(s.how),
            Cell(s.pgprot)
        )?;
        match s.expected {
            Some(t) => write!(w, "`{t}`")?,
            None => w.write_str("the driver's choice")?,
        }
        let all = if s.in_all {
            "yes"
        } else {
            "no: only when named"
        };
        writeln!(w, " | {all} |")?;
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

#[cfg(test)]
mod tests {
    use super::*;
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
    }
}
