//! The loaded latency, with more than one CPU up: the pointer chase on the boot core over
//! `normal-wb` while every other core streams over its own part through `normal-wb`,
//! `normal-nc` or `device-ngnre` (those selected), against the same chase with the others
//! idle: `loaded_latency` records and a table.

use super::data::{pattern, written};
use super::engine::Engine;
use super::scaling::{extent, JOB_LIMIT_NS, STREAMS};
use crate::arch::buffer::{Chain, Window};
use crate::arch::cpu::ticks;
use crate::arch::kernels::Loop;
use crate::arch::smp::jobs::{self, Span, Stream};
use crate::console::Console;
use crate::cpus::Cores;
use crate::memory::Alias;
use crate::{run, say};
use mairbench_core::format::{Bytes, Decimal};
use mairbench_core::kernel::{Kernel, KernelSpec};
use mairbench_core::memtype::NORMAL_WB;
use mairbench_core::platform::MAX_CPUS;
use mairbench_core::record::Record;
use mairbench_core::schema;
use mairbench_core::stats::{self, MAX_REPS};
use mairbench_core::sweep::{self, CHASE_LINE};

/// The streams' memory types of the loaded latency (those of them selected).
const LOADED_TYPES: [&str; 3] = ["normal-wb", "normal-nc", "device-ngnre"];
/// The most the chase spans (beyond the last-level cache of most cores); a quick run: a
/// quarter.
const CHASE_BYTES: u64 = 8 << 20;
/// The least it spans, else the loaded latency is not run.
const CHASE_MIN: u64 = 256 << 10;
/// Dependent loads per sample.
const CHASE_LOADS: u64 = 8 << 10;
/// Bytes a stream moves between two looks at its stop flag.
const STREAM_CHUNK: u64 = 64 << 10;
const CHASE_SEED: u64 = 0x6c6f_6164_6564_6c61;

impl Engine<'_> {
    /// The loaded latency: the chase on the boot core with the others idle, then while they
    /// stream; a record and a row per (stream kernel, stream memory type), and a check.
    #[inline(never)] // its frame is on the stack only during the call
    pub(super) fn loaded_latency(&mut self, cores: &Cores) {
        let started = ticks();
        let streamers = cores.blocks().len();
        let n = streamers + 1;
        if streamers == 0 {
            say!("");
            say!("loaded latency: not run (one CPU running: no other core to load memory with)");
            return;
        }
        let mask = self.plan.kernels;
        if mask & STREAMS == 0 {
            say!("");
            say!("loaded latency: not run (read-ldp and write-stp are not among the selected kernels)");
            return;
        }
        let loaded = |a: &&Alias| LOADED_TYPES.contains(&a.memtype.name);
        if !self.types().list().iter().any(loaded) {
            say!("");
            say!("loaded latency: not run (none of normal-wb, normal-nc and device-ngnre is selected)");
            return;
        }
        let Some(sweep::Part { bytes: part, .. }) = self.scaling_part(n) else {
            return;
        };
        let cap = if self.plan.quick {
            CHASE_BYTES / 4
        } else {
            CHASE_BYTES
        };
        let room = self.mem.buffer.size.saturating_sub(streamers as u64 * part);
        let chase_bytes = match room.min(cap) {
            0 => 0,
            r => 1 << r.ilog2(),
        };
        // The chase runs on the 2 MiB-block normal-wb alias where there is one (no page walk
        // in the latency), else on the pages.
        let wb = *self.mem.wb();
        let target = *self
            .mem
            .aliases
            .iter()
            .find(|a| usize::from(a.memtype.index) == NORMAL_WB && a.granule != wb.granule)
            .unwrap_or(&wb);
        let chain = (chase_bytes >= CHASE_MIN)
            .then(|| {
                let via = wb.window(0, chase_bytes)?;
                let chain =
                    Chain::lay(via, target.window(0, chase_bytes)?, CHASE_LINE, CHASE_SEED)?;
                via.clean_invalidate();
                Some((via, chain))
            })
            .flatten();
        let Some((via, chain)) = chain else {
            say!("");
            say!(
                "loaded latency: not run (the buffer leaves {} for the chase, under {})",
                Bytes(chase_bytes),
                Bytes(CHASE_MIN)
            );
            return;
        };
        let (Some(warm), Some(body)) = (
            Loop::chase(&chain, chain.lines().next_multiple_of(8)),
            Loop::chase(&chain, CHASE_LOADS),
        ) else {
            return;
        };
        let mut body = {
            let mut warm = warm;
            warm.run(); // one whole lap
            warm.continued(CHASE_LOADS).unwrap_or(body)
        };
        let reps = self.plan.reps;
        let overhead = self.clock.overhead;
        let idle = (0..reps)
            .map(|_| jobs::span(1, &mut body).ticks().saturating_sub(overhead))
            .min()
            .unwrap_or(0)
            .max(1);
        let freq = self.clock.freq;
        let per_load = |ticks: u64| stats::per_unit_centi_ns(ticks, CHASE_LOADS, freq);
        let idle_cns = per_load(idle).unwrap_or(0);
        say!("");
        say!(
            "loaded latency (boot core: {CHASE_LOADS} dependent loads over {} of normal-wb ({} \
             mapping), ns per load, best of {}; the {streamers} other cores stream over {} \
             each, through the type named; idle: the others wait in WFE):",
            Bytes(chase_bytes),
            target.granule.name(),
            u64::from(reps),
            Bytes(part)
        );
        if run::emulated() {
            say!("  (emulated: QEMU models no caches; these timings do not reflect memory types)");
        }
        say!(
            "  {:<9} {:<18} {:>9} {:>10} {:>9} {:>12}",
            "streams",
            "memory type",
            "idle ns",
            "loaded ns",
            "ratio",
            "stream MB/s"
        );
        let mut failures = 0;
        for spec in super::selected(mask & STREAMS) {
            for alias in self.types().list().iter().copied().filter(loaded) {
                let point = self.loaded_point(spec, alias, chase_bytes, part, cores, &mut body);
                let Some((loaded_ticks, stream_mbps)) = point else {
                    failures += 1;
                    say!(
                        "  {:<9} {:<18} {:>9} {:>10}",
                        spec.name,
                        alias.memtype.name,
                        "-",
                        "failed"
                    );
                    continue;
                };
                let loaded_cns = per_load(loaded_ticks).unwrap_or(0);
                let ratio = stats::ratio_permille(loaded_cns, idle_cns.max(1)).unwrap_or(0);
                let _ = Record::new(&mut Console, &schema::LOADED_LATENCY)
                    .str("memtype", alias.memtype.name)
                    .str("kernel", spec.name)
                    .u64("cores", n as u64)
                    .u64("bytes_per_core", part)
                    .str("chase_memtype", target.memtype.name)
                    .str("chase_granule", target.granule.name())
                    .u64("chase_bytes", chase_bytes)
                    .u64("loads", CHASE_LOADS)
                    .decimal("idle_ns", idle_cns, 2)
                    .decimal("loaded_ns", loaded_cns, 2)
                    .decimal("ratio", ratio, 3)
                    .u64("stream_mbps", stream_mbps)
                    .u64("reps", reps.into())
                    .finish();
                say!(
                    "  {:<9} {:<18} {:>9} {:>10} {:>8}x {:>12}",
                    spec.name,
                    alias.memtype.name,
                    Decimal {
                        scaled: idle_cns,
                        places: 2
                    },
                    Decimal {
                        scaled: loaded_cns,
                        places: 2
                    },
                    Decimal {
                        scaled: ratio,
                        places: 3
                    },
                    stream_mbps
                );
            }
        }
        via.clean_invalidate();
        if !chain.intact() {
            failures += 1;
            say!("FAIL loaded latency: the chase's chain is broken");
        }
        run::check(
            "loaded-latency",
            failures == 0,
            format_args!(
                "the chase on the boot core, the other {streamers} cores streaming: every stream \
                 started and stopped, data and chain verified ({} ms)",
                self.ns(ticks().wrapping_sub(started)) / 1_000_000
            ),
        );
    }

    /// One loaded point: the streams of `spec` through `alias` on every secondary (each over
    /// its own `part`, after the chase's `chase_bytes`), started once; the chase `body` timed
    /// `reps` times on the boot core meanwhile, once every stream runs (the chase is warm
    /// already). Returns the best sample's ticks (overhead subtracted) and the streams'
    /// aggregate MB/s over their whole run; `None` when a core failed or the data is wrong
    /// afterwards.
    fn loaded_point(
        &self,
        spec: &KernelSpec,
        alias: &Alias,
        chase_bytes: u64,
        part: u64,
        cores: &Cores,
        body: &mut Loop,
    ) -> Option<(u64, u64)> {
        let streamers = cores.blocks().len();
        let total = part * streamers as u64;
        let check = self.mem.wb().window(chase_bytes, total)?;
        let region = alias.window(chase_bytes, total)?;
        check.fill(pattern);
        check.clean_invalidate();
        let make: fn(&Window) -> Option<Loop> = match spec.kernel {
            Kernel::ReadLdp => Loop::read_ldp,
            _ => Loop::write_stp,
        };
        let chunk = STREAM_CHUNK.min(part);
        let placeholder = Stream::new(region.part(0, part)?, chunk, make)?;
        let mut streams = [(0usize, placeholder); MAX_CPUS];
        for (i, (slot, &block)) in streams.iter_mut().zip(cores.blocks()).enumerate() {
            *slot = (
                block,
                Stream::new(region.part(i as u64 * part, part)?, chunk, make)?,
            );
        }
        let streams = &streams[..streamers];
        let reps = self.plan.reps as usize;
        let mut samples = [Span::default(); MAX_REPS];
        let mut spans = [Span::default(); MAX_CPUS];
        jobs::run_loaded(
            body,
            1,
            samples.get_mut(..reps)?,
            streams,
            JOB_LIMIT_NS,
            &mut spans,
        )?;
        let spans = spans.get(..streamers)?;
        let best = samples
            .get(..reps)?
            .iter()
            .map(|s| s.ticks().saturating_sub(self.clock.overhead).max(1))
            .min()?;
        let (first, _, last_end) = extent(spans)?;
        let bytes: u64 = spans.iter().map(|s| s.bytes).sum();
        let stream_mbps = stats::mbps(bytes, last_end.wrapping_sub(first).max(1), self.clock.freq);
        alias.maintain(&region);
        check.clean_invalidate();
        for (i, moved) in spans.iter().map(|s| s.bytes).enumerate() {
            let at = check.part(i as u64 * part, part)?;
            // A read leaves the pattern; a write leaves its values in every chunk it reached
            // (all of them once it moved a whole part), the pattern beyond.
            let done = if spec.kernel == Kernel::ReadLdp {
                0
            } else {
                (moved.checked_div(chunk).unwrap_or(0) * chunk).min(part)
            };
            // `check` was laid with the pattern of offsets from its own start.
            let base = i as u64 * part;
            let bad = [
                at.part(0, done)
                    .and_then(|w| w.mismatches(|o| written(base + o)).1),
                at.part(done, part - done).and_then(|w| {
                    w.mismatches(|o| pattern(base + done + o))
                        .1
                        .map(|o| o + done)
                }),
            ];
            if let Some(off) = bad.into_iter().flatten().next() {
                say!(
                    "FAIL loaded latency integrity: {} streams on {} at buffer offset {:#x}",
                    spec.name,
                    alias.memtype.name,
                    at.offset() + off
                );
                return None;
            }
        }
        Some((best, stream_mbps.unwrap_or(0)))
    }
}
