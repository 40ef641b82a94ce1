//! The sources: what each name maps (core's source table), `all` and `all-hardware` found
//! on the machine, each source's `source` record, and how much of a mapping is on 2 MiB
//! entries.

use crate::{cli, errno_name, huge, points, sys, Ctx, Name, Out, Tally};
use core::fmt::{self, Write};
use mairbench_core::bootargs::Hugepages;
use mairbench_core::format::Bytes;
use mairbench_core::record::Record;
use mairbench_core::source::{self, Form, SourceSpec, DEVMEM_RAM_KEY, SOURCES};
use mairbench_core::{placement, schema};

/// Why a source was not mapped (the detail of its error record).
#[derive(Clone, Copy)]
enum Why {
    /// The step that failed ("UDMABUF_CREATE", "mmap"...).
    Step(&'static str),
    /// The step that failed, on the source's file ("open", then its path).
    StepOnFile(&'static str),
    /// The name has a known prefix, but not the form's parameter.
    Expected(&'static str),
    /// No source is called that.
    NotAName,
}

impl fmt::Display for Why {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Why::Step(step) => f.write_str(step),
            Why::StepOnFile(step) => f.write_str(step),
            Why::Expected(form) => write!(f, "{form} expected"),
            Why::NotAName => {
                f.write_str("not a source name (")?;
                for s in &SOURCES {
                    write!(f, "{}, ", s.form)?;
                }
                f.write_str("all)")
            }
        }
    }
}

/// `all` or `all-hardware` (`set`): the table's sources of that set ([`SOURCES`],
/// [`source::Set::in_set`]), in its order. `all`, the default, is memory the twin allocates
/// itself: `anon`, `udmabuf`, every `/dev/dma_heap/*`, every `/dev/dri/card*` as a dumb
/// buffer and as its PRIME dma-buf. `all-hardware` adds both mappings of every prefetchable
/// PCI memory BAR (a prefetchable BAR is memory without read side effects; other BARs may be
/// registers, so they run only when named) whose device decodes memory and has no driver,
/// and `devmem-ram`.
fn every_source_found(out: &mut Out, tally: &mut Tally, ctx: &Ctx<'_>, set: &str) {
    for kind in SOURCES.iter().filter(|s| s.set.in_set(set)) {
        match kind.kind {
            Form::Anon | Form::Udmabuf => source(out, tally, ctx, kind.form),
            Form::DmaHeap => each_entry(out, tally, ctx, kind, "/dev/dma_heap", "", "heap"),
            Form::DrmDumb | Form::DmaBuf => {
                each_entry(out, tally, ctx, kind, "/dev/dri", "card", "card*")
            }
            Form::DevMemRam => source(out, tally, ctx, kind.form),
            // Both mappings of a BAR, one after the other, from the plain form's row.
            Form::PciBarWc => {}
            Form::PciBar => every_bar(out, tally, ctx),
            Form::DevMem => {}
        }
    }
}

/// Runs the source `<kind.prefix><entry>` for every entry of `dir` whose name starts with
/// `starts`, in name order. When `dir` cannot be listed, or holds none, one error record
/// for `<prefix>*` says so (`what` names what was looked for) and the run goes on.
fn each_entry(
    out: &mut Out,
    tally: &mut Tally,
    ctx: &Ctx<'_>,
    kind: &SourceSpec,
    dir: &str,
    starts: &str,
    what: &str,
) {
    let mut names = [[0u8; 64]; 16];
    let mut n = 0;
    let listed = sys::list_dir(dir, |name| {
        if let (Some(slot), true) = (
            names.get_mut(n),
            name.len() < 64 && name.starts_with(starts),
        ) {
            slot[..name.len()].copy_from_slice(name.as_bytes());
            n += 1;
        }
    });
    let mut wild = Name::new();
    let _ = write!(wild, "{}*", kind.prefix);
    match listed {
        Err(errno) => {
            refused(out, wild.as_str(), errno, format_args!("list {dir}"));
            return;
        }
        Ok(()) if n == 0 => {
            refused(out, wild.as_str(), 2, format_args!("list {dir}: no {what}"));
            return;
        }
        Ok(()) => {}
    }
    let names = names.get_mut(..n).unwrap_or_default();
    names.sort_unstable();
    for raw in names.iter() {
        let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
        let Ok(entry) = core::str::from_utf8(raw.get(..end).unwrap_or_default()) else {
            continue;
        };
        let mut name = Name::new();
        let _ = write!(name, "{}{entry}{}", kind.prefix, kind.suffix);
        source(out, tally, ctx, name.as_str());
    }
}

/// Both mappings (`pci:<BDF>:resN`, then `pci:<BDF>:resN_wc`) of every prefetchable memory
/// BAR of every PCI device.
fn every_bar(out: &mut Out, tally: &mut Tally, ctx: &Ctx<'_>) {
    let mut bdfs = [[0u8; 16]; 32];
    let mut n = 0;
    let _ = sys::list_dir("/sys/bus/pci/devices", |name| {
        if let (Some(slot), true) = (bdfs.get_mut(n), name.len() <= 16) {
            slot[..name.len()].copy_from_slice(name.as_bytes());
            n += 1;
        }
    });
    let forms = [
        SOURCES[Form::PciBar as usize],
        SOURCES[Form::PciBarWc as usize],
    ];
    for raw in bdfs.iter().take(n) {
        let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
        let Ok(bdf) = core::str::from_utf8(&raw[..end]) else {
            continue;
        };
        // Whether `all` may touch the device's BARs: memory decoding on, no driver.
        let mut path = Name::new();
        let _ = write!(path, "/sys/bus/pci/devices/{bdf}/config");
        let mut config = [0u8; 64];
        let config = sys::read_file(path.as_str(), &mut config).unwrap_or_default();
        let mut path = Name::new();
        let _ = write!(path, "/sys/bus/pci/devices/{bdf}/driver");
        let mut link = [0u8; 256];
        let driver = sys::link_name(path.as_str(), &mut link).ok();
        let refusal = source::bar_refusal(config, driver);
        let mut path = Name::new();
        let _ = write!(path, "/sys/bus/pci/devices/{bdf}/resource");
        let mut table = [0u8; 1024];
        let Ok(table) = sys::read_file(path.as_str(), &mut table) else {
            continue;
        };
        // One line per resource: "0xSTART 0xEND 0xFLAGS"; lines 0..6 are the BARs.
        let lines = core::str::from_utf8(table).unwrap_or("").lines().take(6);
        for (bar, line) in lines.enumerate() {
            let flags = line
                .split(' ')
                .nth(2)
                .and_then(|f| u64::from_str_radix(f.trim_start_matches("0x"), 16).ok())
                .unwrap_or(0);
            const IORESOURCE_MEM: u64 = 0x200;
            const IORESOURCE_PREFETCH: u64 = 0x2000;
            if flags & (IORESOURCE_MEM | IORESOURCE_PREFETCH)
                != IORESOURCE_MEM | IORESOURCE_PREFETCH
            {
                continue;
            }
            for form in &forms {
                let mut name = Name::new();
                let _ = write!(name, "{}{bdf}:res{bar}{}", form.prefix, form.suffix);
                match refusal {
                    Some(why) => refused(out, name.as_str(), why.errno(), format_args!("{why}")),
                    None => source(out, tally, ctx, name.as_str()),
                }
            }
        }
    }
}

/// Whether `s` names one entry of a directory: not empty, no `/`, not `.` or `..`.
fn entry_name(s: &str) -> bool {
    !s.is_empty() && !s.contains('/') && s != "." && s != ".."
}

/// What [`open_source`] found besides the mapping.
struct Found {
    /// The file it opened (said with a failed open).
    path: Name,
    /// The DRM driver's name (`drm-dumb:`, `dma-buf:`), when DRM_IOCTL_VERSION gave one.
    driver: Name,
    /// The `devmem-ram` range, as its bootarg said it.
    range: Name,
    /// The errno of a refused madvise of `mairbench.hugepages=` (anon).
    advice: Option<i64>,
}

/// The value of the last `mairbench.devmem-ram=` among the twin's arguments, else on the
/// kernel command line (`/proc/cmdline`, where the runner's Linux boot puts it), in `buf`.
fn devmem_ram_arg(buf: &mut [u8; 2048]) -> Option<&str> {
    if let Some(v) = sys::args()
        .filter_map(|a| a.strip_prefix(DEVMEM_RAM_KEY))
        .last()
    {
        return Some(v);
    }
    let raw = sys::read_file("/proc/cmdline", buf).ok()?;
    core::str::from_utf8(raw)
        .ok()?
        .split_ascii_whitespace()
        .rev()
        .find_map(|a| a.strip_prefix(DEVMEM_RAM_KEY))
}

/// Maps the source `spec` names (at most `largest` bytes): the mapping and its kind, or the
/// errno and why it was not mapped. `found` gets the file it opens, if any, and what else it
/// learns on the way.
fn open_source(
    spec: &str,
    largest: u64,
    hugepages: Hugepages,
    found: &mut Found,
) -> Result<(sys::Mapping, &'static SourceSpec), (i64, Why)> {
    let kind = source::by_name(spec).ok_or((22, Why::NotAName))?;
    let param = source::param(kind, spec);
    let m = match kind.kind {
        Form::Anon => {
            let (m, advice) =
                huge::anon_mapping(largest, 0, hugepages).map_err(|e| (e, Why::Step("mmap")))?;
            found.advice = advice;
            m
        }
        Form::Udmabuf => sys::Mapping::udmabuf(largest).map_err(failed)?,
        Form::DmaHeap | Form::DrmDumb | Form::DmaBuf => open_device(kind, param, largest, found)?,
        Form::DevMemRam => open_devmem_ram(largest, found)?,
        Form::PciBar | Form::PciBarWc => open_bar(kind, param, largest, &mut found.path)?,
        Form::DevMem => open_devmem(param, largest, &mut found.path)?,
    };
    Ok((m, kind))
}

/// The failed step of a mapping; an open is said with the path (left in `Found::path`).
fn failed((errno, step): (i64, &'static str)) -> (i64, Why) {
    match step {
        "open" => (errno, Why::StepOnFile(step)),
        _ => (errno, Why::Step(step)),
    }
}

/// `dma-heap:<name>`, `drm-dumb:<card>` and `dma-buf:<card>`: a buffer of the device
/// `/dev/dma_heap/<name>` or `/dev/dri/<card>`, mapped; a DRM card's driver named in `found`.
fn open_device(
    kind: &SourceSpec,
    param: &str,
    largest: u64,
    found: &mut Found,
) -> Result<sys::Mapping, (i64, Why)> {
    if !entry_name(param) {
        return Err((22, Why::Expected(kind.form)));
    }
    let path = &mut found.path;
    if kind.kind == Form::DmaHeap {
        let _ = write!(path, "/dev/dma_heap/{param}");
        return sys::Mapping::dma_heap(path.as_str(), largest).map_err(failed);
    }
    let _ = write!(path, "/dev/dri/{param}");
    let mut name = [0u8; 32];
    if let Some(n) = sys::drm_version(path.as_str(), &mut name)
        .ok()
        .and_then(|len| source::drm_driver_name(&name, len))
    {
        let _ = found.driver.write_str(n);
    }
    if kind.kind == Form::DrmDumb {
        sys::Mapping::drm_dumb(path.as_str(), largest).map_err(failed)
    } else {
        sys::Mapping::prime(path.as_str(), largest).map_err(failed)
    }
}

/// `devmem-ram`: the RAM range of `mairbench.devmem-ram=` (kept in `found`) through
/// `/dev/mem`.
fn open_devmem_ram(largest: u64, found: &mut Found) -> Result<sys::Mapping, (i64, Why)> {
    let mut buf = [0u8; 2048];
    let Some(arg) = devmem_ram_arg(&mut buf) else {
        return Err((
            2,
            Why::Step(
                "no mairbench.devmem-ram=<pa>+<size> bootarg (qemu/run's Linux boot \
                 passes one for the RAM it hides from Linux with mem=)",
            ),
        ));
    };
    let Some((pa, size)) = source::parse_range(arg) else {
        return Err((
            22,
            Why::Expected("mairbench.devmem-ram=<page-aligned pa>+<size in pages>"),
        ));
    };
    let _ = found.range.write_str(arg);
    let _ = write!(found.path, "/dev/mem");
    sys::Mapping::file(found.path.as_str(), true, size.min(largest), pa, false).map_err(failed)
}

/// `pci:<BDF>:resN` and `pci:<BDF>:resN_wc`: the BAR's sysfs resource file (its path left in
/// `path`).
fn open_bar(
    kind: &SourceSpec,
    param: &str,
    largest: u64,
    path: &mut Name,
) -> Result<sys::Mapping, (i64, Why)> {
    let expected = (22, Why::Expected(kind.form));
    // `<BDF>:resN`, N one digit (BARs 0 to 5).
    let (bdf, bar) = param
        .rsplit_once(':')
        .and_then(|(bdf, res)| Some((bdf, res.strip_prefix("res")?)))
        .ok_or(expected)?;
    if bar.len() != 1 || !bar.as_bytes()[0].is_ascii_digit() || !entry_name(bdf) {
        return Err(expected);
    }
    let _ = write!(
        path,
        "/sys/bus/pci/devices/{bdf}/resource{bar}{}",
        kind.suffix
    );
    sys::Mapping::file(path.as_str(), false, largest, 0, true).map_err(failed)
}

/// `devmem:<pa>+<size>`: that range of `/dev/mem` (its path left in `path`).
fn open_devmem(param: &str, largest: u64, path: &mut Name) -> Result<sys::Mapping, (i64, Why)> {
    let parsed = param.split_once('+').and_then(|(pa, size)| {
        let pa = if pa == "0" {
            Some(0)
        } else {
            placement::parse_size(pa)
        };
        Some((pa?, placement::parse_size(size)?))
    });
    let Some((pa, size)) = parsed.filter(|&(pa, _)| pa % 4096 == 0) else {
        return Err((22, Why::Expected("devmem:<page-aligned pa>+<size>")));
    };
    let _ = write!(path, "/dev/mem");
    sys::Mapping::file(path.as_str(), true, size.min(largest), pa, false).map_err(failed)
}

/// The error record of a source that is missing or refused (the run goes on; its status
/// does not change).
fn refused(out: &mut Out, name: &str, errno: i64, detail: fmt::Arguments<'_>) {
    let error = errno_name(errno);
    say!(
        out,
        "source {name}: {detail}: {error} (errno {errno}); skipped"
    );
    let _ = Record::new(out, &schema::SOURCE)
        .str("source", name)
        .str("error", error)
        .u64("errno", errno.unsigned_abs())
        .fmt("detail", detail)
        .finish();
}

/// One source: its `source` record (the mapping, or the error that refused it), then the
/// sweep over the sizes that fit in it. A refused source does not fail the run.
fn source(out: &mut Out, tally: &mut Tally, ctx: &Ctx<'_>, spec: &str) {
    let mut what = Name::new();
    let _ = write!(what, "mapping {spec}");
    let _doing = sys::doing(what.as_str());
    let mut found = Found {
        path: Name::new(),
        driver: Name::new(),
        range: Name::new(),
        advice: None,
    };
    if source::by_name(spec).is_some_and(|k| k.set != source::Set::All) {
        say!(
            out,
            "source {spec}: hardware's memory, named on the command line: the sweep writes \
             every byte of the mapping"
        );
    }
    let (mut m, kind) = match open_source(spec, ctx.largest, ctx.hugepages, &mut found) {
        Ok(ok) => ok,
        Err((errno, Why::StepOnFile(step))) => {
            return refused(
                out,
                spec,
                errno,
                format_args!("{step} {}", found.path.as_str()),
            )
        }
        Err((errno, why)) => return refused(out, spec, errno, format_args!("{why}")),
    };
    let fit = ctx.sizes.iter().filter(|&&s| s <= m.size()).count();
    let mapped = Mapped::of(spec, kind, &found);
    say!(
        out,
        "source {spec}: {} mapped ({}); {}: {}; {fit} of {} sizes fit",
        Bytes(m.size()),
        source::how(kind, spec),
        sys::PGPROT_OF,
        kind.pgprot_on(sys::ARCH),
        ctx.sizes.len()
    );
    if kind.kind == Form::Anon {
        // Every page touched, so that the kernel has decided how to back each (THP is
        // decided at the first fault of each 2 MiB range).
        huge::populate(&mut m);
        huge::say_advice(out, tally, ctx, spec, found.advice);
    }
    let huge = huge::huge_bytes(m.va(), m.size());
    huge::say_huge(out, spec, kind.kind == Form::Anon, &m, huge);
    mapped.say_driver(out);
    mapped.record(out, ctx, &m, huge);
    points::sweep_source(out, tally, ctx, spec, &mut m);
    pause_for_walk(out, spec, &m, ctx.freq);
}

/// What a mapped source is, for its lines and its `source` record.
struct Mapped<'a> {
    spec: &'a str,
    kind: &'static SourceSpec,
    found: &'a Found,
    /// The DRM driver's name, when the card gave one.
    driver: Option<&'a str>,
    /// The driver's row of core's table, when it has one.
    known: Option<&'static source::DrmDriver>,
    /// The memory type its protection is, when the tables know it.
    expected: Option<&'static str>,
}

impl<'a> Mapped<'a> {
    fn of(spec: &'a str, kind: &'static SourceSpec, found: &'a Found) -> Mapped<'a> {
        let driver = Some(found.driver.as_str()).filter(|d| !d.is_empty());
        let known = driver.and_then(source::drm_driver);
        Mapped {
            spec,
            kind,
            found,
            driver,
            known,
            expected: kind.expected.or(known.map(|d| d.expected)),
        }
    }

    /// The line of a DRM source's driver and what its mapping is.
    fn say_driver(&self, out: &mut Out) {
        let spec = self.spec;
        match (self.driver, self.known) {
            (Some(d), Some(k)) => say!(
                out,
                "source {spec}: driver {d}: {}, expected {} ({})",
                k.pgprot_on(sys::ARCH),
                k.expected,
                k.cite
            ),
            (Some(d), None) => say!(
                out,
                "source {spec}: driver {d}: its mapping is the driver's choice (not in the twin's table)"
            ),
            _ => {}
        }
    }

    /// The `source` record of the mapping `m`, `huge` its bytes on 2 MiB entries.
    fn record(
        &self,
        out: &mut Out,
        ctx: &Ctx<'_>,
        m: &sys::Mapping,
        huge: Option<(u64, &'static str)>,
    ) {
        let (spec, kind) = (self.spec, self.kind);
        let how = source::how(kind, spec);
        let r = Record::new(out, &schema::SOURCE)
            .str("source", spec)
            .u64("size", m.size());
        let r = match (self.driver, self.known) {
            (Some(d), Some(k)) => r.fmt(
                "detail",
                format_args!("{how}; driver {d}: {} ({})", k.pgprot_on(sys::ARCH), k.cite),
            ),
            (Some(d), None) => r.fmt(
                "detail",
                format_args!("{how}; driver {d}: the driver's choice"),
            ),
            _ => r.fmt("detail", format_args!("{how}")),
        };
        let r = match self.driver {
            Some(d) => r.str("driver", d),
            None => r,
        };
        let r = match self.expected {
            Some(e) => r.str("expected", e),
            None => r,
        };
        let r = match self.found.range.as_str() {
            "" => r,
            range => r.str("range", range),
        };
        let r = match (kind.kind == Form::Anon, ctx.thp) {
            (false, _) => r,
            (true, None) => r.str("hugepages", ctx.hugepages.name()),
            (true, Some(thp)) => r.str("hugepages", ctx.hugepages.name()).str("thp", thp),
        };
        let r = match huge {
            Some((bytes, _)) => r.bool("huge", bytes != 0).u64("huge_bytes", bytes),
            None => r,
        };
        let _ = r.finish();
    }
}

/// `mairbench.pause`: the source's mapping, swept and still mapped, named for a debugger
/// (its VA, size, the pid, the word that releases the twin), then [`sys::pause`] until the
/// debugger releases it or the time is up (`freq`: the counter's rate). `host/tests/linux/linux.rs`
/// walks the page tables here.
fn pause_for_walk(out: &mut Out, name: &str, m: &sys::Mapping, freq: u64) {
    let Some(secs) = cli::pause_secs(out) else {
        return;
    };
    // The word is cleared before the line that names it: a debugger that acts on the line
    // at once must find it cleared already, or its release would be undone.
    sys::clear_release();
    say!(
        out,
        "pause: source {name} mapped at va {:#x} ({} B), pid {}; release word at va {:#x}; \
         waiting up to {secs} s for a debugger",
        m.va(),
        m.size(),
        sys::pid(),
        sys::release_word()
    );
    if sys::pause(secs.saturating_mul(freq.max(1))) {
        say!(out, "pause: source {name} released");
    } else {
        say!(
            out,
            "pause: source {name}: not released within {secs} s; going on"
        );
    }
}

/// Every source of `mairbench.sources=` in its order: `all` and `all-hardware` as
/// [`every_source_found`] finds them, other names as they are.
pub fn run(out: &mut Out, tally: &mut Tally, ctx: &Ctx<'_>) {
    for spec in cli::sources().split(',').filter(|s| !s.is_empty()) {
        if matches!(spec, "all" | "all-hardware") {
            every_source_found(out, tally, ctx, spec);
        } else {
            source(out, tally, ctx, spec);
        }
    }
}
