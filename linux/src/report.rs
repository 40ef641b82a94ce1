//! What the twin says about the machine and its points: the start record (the kernel, the
//! machine, what says it is emulated), each point's line and `result` record, and the notes
//! after them.

use crate::{sys, Name, Out, VERSION};
use core::fmt::{self, Write};
use mairbench_core::bootargs;
use mairbench_core::counter;
use mairbench_core::counter_rate::{self, Rate};
use mairbench_core::emulation::{Accel, Observed, Tell, Tells};
use mairbench_core::format::{Bytes, Decimal};
use mairbench_core::kernel::{self, Kernel, KernelSpec, Unit};
use mairbench_core::record::{self, Record};
use mairbench_core::sweep::{self, CHASE_LINE};
use mairbench_core::{placement, schema, stats};

/// What the start record says of the machine, read once before anything is mapped.
pub struct Machine<'c> {
    /// `mairbench.host=`: the emulator the runner names.
    host: Option<&'c str>,
    /// `mairbench.accel=`, said by the runner: under KVM the cores and caches are real, so
    /// the run's timings count (only the device tree is QEMU's).
    accel: Option<Accel>,
    uname: sys::Uname,
    /// CNTFRQ_EL0.
    cntfrq: u64,
    /// The counter's rate timed with: CNTFRQ_EL0's, else measured (user-mode QEMU 10's
    /// register reads 0).
    pub rate: Rate,
    /// The device tree's /model, else its first root compatible, else "unknown".
    platform: [u8; 256],
    platform_len: usize,
    tells: Tells,
    /// What says the run is emulated (`emulated_by`), the first `n_by`.
    emulated_by: [&'static str; 3],
    n_by: usize,
    /// Emulated, and not under KVM: the timings do not reflect memory types.
    pub emulated: bool,
    midr: u64,
}

impl<'c> Machine<'c> {
    /// Reads what the start record says: the runner's bootargs in `cmdline`, uname, the
    /// counter, the device tree, user-mode QEMU's tells, MIDR_EL1.
    pub fn probe(cmdline: &'c str) -> Machine<'c> {
        let host = bootargs::host(cmdline);
        // The twin has no tells of its own to weigh against the runner's word on KVM.
        let accel = bootargs::accel(cmdline);
        let uname = sys::Uname::get();
        let cntfrq = sys::freq_hz();
        let rate = {
            let mut what = Name::new();
            let _ = write!(
                what,
                "measuring {}'s rate against CLOCK_MONOTONIC",
                sys::counter()
            );
            let _doing = sys::doing(what.as_str());
            Rate::of(cntfrq, measure_rate)
        };
        let mut model_buf = [0u8; 256];
        let mut compat_buf = [0u8; 256];
        let model = dt_string("/proc/device-tree/model", &mut model_buf);
        let compat = dt_string("/proc/device-tree/compatible", &mut compat_buf);
        let dtb_qemu = compat == Some("linux,dummy-virt");
        let named = model.or(compat).unwrap_or("unknown");
        let mut platform = [0u8; 256];
        platform[..named.len()].copy_from_slice(named.as_bytes());
        let platform_len = named.len();
        // User-mode QEMU's tells: its counter's microsecond steps at a claimed 62.5 MHz, and
        // a /proc/cpuinfo that is the host kernel's, not an arm64 one's.
        let mut cpuinfo_buf = [0u8; 4096];
        let cpuinfo_arm64 = sys::read_file("/proc/cpuinfo", &mut cpuinfo_buf)
            .ok()
            .map(|text| text.windows(15).any(|w| w == b"CPU implementer"));
        let tells = Tells::of(&Observed {
            cntfrq_hz: cntfrq,
            counter_step: counter::step((0..counter::STEP_READS).map(|_| sys::ticks())),
            cpuinfo_arm64,
            ..Observed::default()
        });
        let mut emulated_by: [&str; 3] = ["", "", ""];
        let mut n_by = 0;
        let said = host.is_some() || dtb_qemu;
        for (yes, why) in [
            (host.is_some(), "bootarg"),
            (dtb_qemu, "dtb"),
            (!said && tells.suspect(), "tells"),
        ] {
            if yes {
                emulated_by[n_by] = why;
                n_by += 1;
            }
        }
        Machine {
            host,
            accel,
            uname,
            cntfrq,
            rate,
            platform,
            platform_len,
            tells,
            emulated_by,
            n_by,
            emulated: n_by != 0 && accel != Some(Accel::Kvm),
            midr: midr(),
        }
    }

    fn platform(&self) -> &str {
        core::str::from_utf8(self.platform.get(..self.platform_len).unwrap_or_default())
            .unwrap_or("unknown")
    }

    /// The first line, the `start` record (`cmdline`: the arguments, its `bootargs`), and
    /// what emulation means for the timings.
    pub fn start(&self, out: &mut Out, cmdline: &str) {
        let (uname, freq) = (&self.uname, self.rate.hz());
        say!(
            out,
            "mairbench-linux {VERSION} on {} {} {} ({}), counter {freq} Hz{}",
            uname.sysname(),
            uname.release(),
            uname.machine(),
            self.platform(),
            MeasuredNote(self.rate.measured())
        );
        self.start_record(out, cmdline);
        if self.emulated {
            say!(
                out,
                "emulated machine: QEMU models no caches, so timings do not reflect memory types"
            );
            if self.emulated_by.contains(&"tells") {
                say!(out, "emulated: said by its behaviour: {}", self.tells);
            }
        }
    }

    fn start_record(&self, out: &mut Out, cmdline: &str) {
        let r = Record::new(out, &schema::START)
            .u64("schema", record::SCHEMA)
            .str("version", VERSION)
            .str("arch", sys::ARCH.name())
            .u64("entry_el", 0)
            .u64("el", 0)
            .bool("entry_mmu", true)
            .bool("entry_dcache", true)
            .hex("midr", self.midr)
            .hex("mpidr", 0)
            .u64("cntfrq_hz", self.cntfrq);
        let r = match self.rate {
            Rate::Measured { hz, .. } => r.u64("counter_hz", hz),
            _ => r,
        };
        let r = r
            .str("platform", self.platform())
            .bool("emulated", self.emulated);
        let r = match self.host {
            Some(h) => r.str("host", h),
            None => r,
        };
        let r = match self.accel {
            Some(a) => r.str("accel", a.name()),
            None => r,
        };
        let r = match self.emulated_by.get(..self.n_by) {
            Some(by) if self.emulated && !by.is_empty() => {
                r.strs("emulated_by", by.iter().copied())
            }
            _ => r,
        };
        let r = if self.tells.iter().next().is_some() {
            r.strs("emulation_tells", self.tells.iter().map(Tell::name))
        } else {
            r
        };
        let _ = r
            .str("console", "stdout")
            .hex("console_base", 0)
            .str("psci", "none")
            .bool("semihosting", false)
            .hex("dtb", 0)
            .hex("image_base", sys::image_base())
            .hex("ram_base", 0)
            .u64("ram_size", 0)
            .str("bootargs", cmdline)
            .str("bootargs_from", "argv")
            .fmt(
                "kernel",
                format_args!("{} {}", self.uname.sysname(), self.uname.release()),
            )
            .str("machine", self.uname.machine())
            .finish();
    }
}

/// After the counter's frequency in the first line: that it was measured, where the frequency
/// register reads 0.
struct MeasuredNote(bool);

impl fmt::Display for MeasuredNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 {
            write!(f, " (measured: {} reads 0)", sys::FREQ_REG)
        } else {
            Ok(())
        }
    }
}

/// CNTVCT_EL0's ticks over [`counter_rate::MEASURE_NS`] of CLOCK_MONOTONIC, and the span in
/// ns; the errno of a failed clock read. A short span first, untimed: under an emulator the
/// first pass through this code is translated, which took 2 ms of a 20 ms span under
/// user-mode QEMU.
fn measure_rate() -> Result<(u64, u64), i64> {
    span(counter_rate::MIN_MEASURE_NS)?;
    span(counter_rate::MEASURE_NS)
}

/// The counter's ticks over at least `ns` of the monotonic clock, and the span in ns
/// (shorter when the clock stands still or goes back: [`Rate::of`] then says so).
fn span(ns: u64) -> Result<(u64, u64), i64> {
    let (c0, t0) = stamp()?;
    // A bound on the reads, should the clock not move.
    for _ in 0..1 << 22 {
        let c = sys::monotonic_ns()?;
        if c.saturating_sub(c0) >= ns || c < c0 {
            break;
        }
    }
    let (c1, t1) = stamp()?;
    Ok((t1.wrapping_sub(t0), c1.saturating_sub(c0)))
}

/// The monotonic clock (ns) and the counter at the same moment: of [`STAMP_TRIES`] clock
/// reads, the one with the fewest ticks between the counter reads either side of it (a
/// process preempted in between, on a loaded host, is off by the time it lost), and the
/// counter halfway between those reads.
fn stamp() -> Result<(u64, u64), i64> {
    let mut best: Option<(u64, u64, u64)> = None;
    for _ in 0..STAMP_TRIES {
        let before = sys::ticks();
        let clock = sys::monotonic_ns()?;
        let width = sys::ticks().wrapping_sub(before);
        if best.is_none_or(|(w, _, _)| width < w) {
            best = Some((width, clock, before.wrapping_add(width / 2)));
        }
    }
    Ok(best.map_or((0, 0), |(_, clock, ticks)| (clock, ticks)))
}

/// How many clock reads [`stamp`] takes the best of.
const STAMP_TRIES: usize = 16;

/// MIDR_EL1 of cpu0, as Linux shows it in sysfs; where it does not (32-bit Arm Linux has no
/// such file), the MIDR that /proc/cpuinfo's first processor spells out; 0 where neither
/// says.
fn midr() -> u64 {
    let mut midr_buf = [0u8; 64];
    let sysfs = sys::read_file(
        "/sys/devices/system/cpu/cpu0/regs/identification/midr_el1",
        &mut midr_buf,
    )
    .ok()
    .and_then(|raw| core::str::from_utf8(raw).ok())
    .and_then(|s| u64::from_str_radix(s.trim().trim_start_matches("0x"), 16).ok());
    sysfs
        .or_else(|| {
            let mut buf = [0u8; 4096];
            let text = sys::read_file("/proc/cpuinfo", &mut buf).ok()?;
            midr_of_cpuinfo(core::str::from_utf8(text).ok()?)
        })
        .unwrap_or(0)
}

/// The MIDR of the first processor /proc/cpuinfo describes, from its `CPU implementer`,
/// `CPU variant`, `CPU part` and `CPU revision` lines (arch/arm/kernel/setup.c prints them
/// from the MIDR's fields); the architecture field is 0xF, the CPUID scheme every ARMv7 core
/// uses, which 32-bit Linux prints as `CPU architecture: 7`. `None` unless all four are there
/// and `CPU architecture` says 7 or more (an arm64 kernel's cpuinfo says 8, and has sysfs).
fn midr_of_cpuinfo(text: &str) -> Option<u64> {
    let field = |name: &str| {
        text.lines()
            .filter_map(|l| l.split_once(':'))
            .find(|(k, _)| k.trim() == name)
            .map(|(_, v)| v.trim())
    };
    let hex = |name: &str| u64::from_str_radix(field(name)?.trim_start_matches("0x"), 16).ok();
    let arch: u64 = field("CPU architecture")?.parse().ok()?;
    if arch < 7 {
        return None;
    }
    let (implementer, variant) = (hex("CPU implementer")?, hex("CPU variant")?);
    let (part, revision) = (
        hex("CPU part")?,
        field("CPU revision")?.parse::<u64>().ok()?,
    );
    Some(implementer << 24 | variant << 20 | 0xf << 16 | part << 4 | revision)
}

/// The data and unified caches' sizes in bytes, innermost first, from sysfs (cpu0's
/// `cache/index*/`); empty where Linux does not know them (QEMU's virt describes none).
pub fn cache_sizes() -> ([u64; 8], usize) {
    // One field of cpu0's `cache/index{index}/`, trimmed.
    fn field<'b>(index: usize, name: &str, buf: &'b mut [u8; 32]) -> Option<&'b str> {
        let mut path = Name::new();
        let _ = write!(
            path,
            "/sys/devices/system/cpu/cpu0/cache/index{index}/{name}"
        );
        let text = sys::read_file(path.as_str(), buf).ok()?;
        core::str::from_utf8(text).ok().map(str::trim)
    }
    let mut sizes = [(0u64, 0u64); 8];
    let mut n = 0;
    for index in 0..sizes.len() {
        let mut buf = [0u8; 32];
        match field(index, "type", &mut buf) {
            None => break,
            Some("Instruction") => continue,
            Some(_) => {}
        }
        let level = field(index, "level", &mut buf).and_then(|t| t.parse().ok());
        // "32K", "1024K": core's size syntax.
        let size = field(index, "size", &mut buf).and_then(placement::parse_size);
        if let (Some(level), Some(size)) = (level, size) {
            sizes[n] = (level, size);
            n += 1;
        }
    }
    sizes[..n].sort_unstable();
    let mut out = [0u64; 8];
    for (o, (_, s)) in out.iter_mut().zip(&sizes[..n]) {
        *o = *s;
    }
    (out, n)
}

/// The first NUL-terminated string of a device-tree property file, if it can be read.
fn dt_string<'b>(path: &str, buf: &'b mut [u8]) -> Option<&'b str> {
    let raw = sys::read_file(path, buf).ok()?;
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    core::str::from_utf8(raw.get(..end)?)
        .ok()
        .filter(|s| !s.is_empty())
}

/// The names of the kernels of `mask`, comma-separated.
pub struct KernelNames(pub mairbench_core::kernel::Mask);

impl fmt::Display for KernelNames {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, k) in kernel::selected(self.0).enumerate() {
            if i != 0 {
                f.write_str(", ")?;
            }
            f.write_str(k.name)?;
        }
        Ok(())
    }
}

/// A `result` record for a point not measured (at one size, or with `size` `None` at every
/// size), and its line.
pub fn skipped(
    out: &mut Out,
    name: &str,
    spec: &KernelSpec,
    size: Option<u64>,
    why: fmt::Arguments<'_>,
) {
    say!(out, "{name} {}: skipped: {why}", spec.name);
    let r = Record::new(out, &schema::RESULT)
        .str("source", name)
        .str("kernel", spec.name);
    let r = match size {
        Some(s) => r.u64("size", s),
        None => r,
    };
    let _ = r.fmt("skipped", why).finish();
}

/// The dma-buf sync pair's cost after a point's line, when it has one.
struct SyncNote(Option<u64>);

impl fmt::Display for SyncNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some(ns) => write!(
                f,
                "; DMA_BUF_IOCTL_SYNC START+END {ns} ns best a sample, outside the timed span"
            ),
            None => Ok(()),
        }
    }
}

/// The granule of a point's range after its line, when known.
struct GranuleNote(Option<&'static str>);

impl fmt::Display for GranuleNote {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            Some("2M") => f.write_str("; on 2 MiB entries"),
            Some(_) => f.write_str("; on 4 KiB pages"),
            None => Ok(()),
        }
    }
}

/// Which point: the source, the kernel and the working set.
pub struct At<'a> {
    /// The source's name.
    pub name: &'a str,
    /// The kernel.
    pub spec: &'static KernelSpec,
    /// The working set, bytes.
    pub size: u64,
}

/// A measured point, as its line and `result` record say it.
pub struct Point<'a> {
    /// Which point.
    pub at: &'a At<'a>,
    /// What the range got ("2M", "4K"), when known.
    pub granule: Option<&'static str>,
    /// Passes a sample.
    pub passes: u64,
    /// The kernel's units (bytes, loads) a sample.
    pub total: u64,
    /// The samples, in ticks.
    pub s: stats::Summary,
    /// The counter's rate, Hz.
    pub freq: u64,
    /// What the point started from.
    pub start: sweep::Start,
    /// The dma-buf sync pair's best, ns.
    pub sync_ns: Option<u64>,
    /// Samples dropped for a counter that went backwards.
    pub backwards: u64,
    /// Where the data was wrong afterwards, if it was.
    pub bad: Option<u64>,
}

impl Point<'_> {
    /// The best and median in the unit of the kernel (core's kernel table): MB/s, or
    /// hundredths of a ns.
    fn in_unit(&self) -> (Option<u64>, Option<u64>) {
        let (unit, total, freq) = (self.at.spec.unit, self.total, self.freq);
        (
            stats::in_unit(unit, total, self.s.best, freq),
            stats::in_unit(unit, total, self.s.median, freq),
        )
    }

    /// A bandwidth kernel's best and median MB/s (0 for a median too fast to time), when
    /// the best could be timed.
    pub fn bandwidth(&self) -> Option<(u64, u64)> {
        let (best, median) = self.in_unit();
        (self.at.spec.unit == Unit::Bandwidth).then_some((best?, median.unwrap_or(0)))
    }

    /// The chase's best, hundredths of a ns per load, when it could be timed.
    pub fn latency(&self) -> Option<u64> {
        let (best, _) = self.in_unit();
        best.filter(|_| self.at.spec.unit == Unit::NsPerLoad)
    }

    /// The point's human line.
    pub fn say(&self, out: &mut Out) {
        let At { name, spec, size } = *self.at;
        let (best, median) = self.in_unit();
        let sync_note = SyncNote(self.sync_ns);
        let granule_note = GranuleNote(self.granule);
        let total = self.total;
        match (spec.unit == Unit::Bandwidth, best) {
            (true, Some(b)) => say!(
                out,
                "{name} {} {}: {b} MB/s best, {} MB/s median (MB = 10^6 B, {}){sync_note}{granule_note}",
                spec.name,
                Bytes(size),
                median.unwrap_or(0),
                match spec.kernel {
                    Kernel::CopyTo | Kernel::CopyFrom | Kernel::CopyToQ | Kernel::CopyFromQ => {
                        "bytes copied counted once"
                    }
                    Kernel::Triad => "the three arrays' bytes, as STREAM counts them",
                    k if k.order().is_some() => "64 B per load: the lines' span",
                    _ => "bytes read or written once",
                }
            ),
            (true, None) => say!(
                out,
                "{name} {} {}: too fast to time{sync_note}{granule_note}",
                spec.name,
                Bytes(size)
            ),
            (false, _) => say!(
                out,
                "{name} {} {}: {} ns/load best, {} ns/load median (one dependent load per \
                 {CHASE_LINE}-byte line, {total} loads a sample){sync_note}{granule_note}",
                spec.name,
                Bytes(size),
                Decimal {
                    scaled: best.unwrap_or(0),
                    places: 2
                },
                Decimal {
                    scaled: median.unwrap_or(0),
                    places: 2
                },
            ),
        }
    }

    /// The point's `result` record, the unit's own fields as the firmware's report writes
    /// them.
    pub fn record(&self, out: &mut Out) {
        let (s, freq, unit, total) = (&self.s, self.freq, self.at.spec.unit, self.total);
        let r = Record::new(out, &schema::RESULT)
            .str("source", self.at.name)
            .str("kernel", self.at.spec.name);
        let r = match self.granule {
            Some(g) => r.str("granule", g),
            None => r,
        };
        let r = r
            .u64("size", self.at.size)
            .u64("passes", self.passes)
            .u64("reps", u64::from(s.n))
            .u64("best_ticks", s.best)
            .u64("median_ticks", s.median)
            .u64("freq_hz", freq)
            .decimal("cv_pct", u64::from(s.cv_permille), 1)
            .u64(unit.count_field(), total);
        let (r, _) = r.unit_values(unit, total, s.best, s.median, freq);
        let r = r.str("start", self.start.name());
        let r = match self.sync_ns {
            Some(ns) => r.u64("sync_ns", ns),
            None => r,
        };
        let r = match self.backwards {
            0 => r,
            n => r.u64("dropped_samples", n).str(
                "dropped_why",
                counter::Dropped::Backwards { t0: 0, t1: 0 }.name(),
            ),
        };
        let r = match self.bad {
            None => r.str("integrity", "ok"),
            Some(off) => r.hex("integrity_fail_offset", off),
        };
        let _ = r.finish();
    }
}
