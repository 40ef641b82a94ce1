//! The measurement: each source's sweep, size by size and kernel by kernel, and each point
//! laid, timed as the firmware times it (core's `sweep`: calibration, samples), and checked.

use crate::huge::{self, anon_mapping, populate};
use crate::report::{self, At};
use crate::{errno_name, sys, Ctx, Name, Out, Tally};
use core::fmt::Write;
use mairbench_core::counter;
use mairbench_core::format::Bytes;
use mairbench_core::kernel::{self, Kernel, KERNELS};
use mairbench_core::pattern::{self, Pattern};
use mairbench_core::random;
use mairbench_core::stats::{self, MAX_REPS};
use mairbench_core::sweep::{self, CHASE_LINE, SEED};

/// Samples a point may drop for a counter that went backwards before it keeps one anyway.
const MAX_BACKWARDS: u64 = 16;

/// How far past a 2 MiB boundary the copies' anonymous side starts: 17 pages, an odd count,
/// so that its page i and a 2 MiB-aligned source's page i never share a slot of a
/// direct-mapped translation cache indexed by page number. At the source's offset within
/// the page: another offset (tinymembench's buffers lie 1,408 B apart within their pages)
/// was measured no faster (docs/twin-qemu.md, "Where a copy's two sides lie"); a skew
/// that is not whole pages (any multiple of 64 B) tries one.
const PARTNER_SKEW: u64 = 17 * 4096;

/// The kernels of the table ([`KERNELS`]) the twin runs (their `twin` column) that have a
/// loop on this architecture (`sys::LOOPS`), as a `mairbench.kernels=` mask.
pub const TWIN_KERNELS: kernel::Mask = {
    let mut mask = 0;
    let mut i = 0;
    while i < KERNELS.len() {
        if KERNELS[i].twin && sys::LOOPS & KERNELS[i].kernel.bit() != 0 {
            mask |= KERNELS[i].kernel.bit();
        }
        i += 1;
    }
    mask
};

/// What a point lays before a kernel that reads (and expects after it): the firmware's.
const PATTERN: Pattern = pattern::LAID;
/// What the write kernels leave: 0xdeadbeef and 0xcafebabe, alternating.
const WRITTEN: Pattern = pattern::WRITTEN;
/// Why a point was not measured, in the firmware's words.
const ODD_SIZE: &str = "the size does not suit the kernel's loop";

/// What one pass of a point runs.
#[derive(Clone, Copy)]
enum Body {
    /// A streaming kernel over the source.
    Stream(Kernel),
    /// The copy from the anonymous partner into the source (`true`: with q registers).
    CopyTo(bool),
    /// The copy from the source into the anonymous partner (`true`: with q registers).
    CopyFrom(bool),
    /// The chase, from the address it stopped at, `loads` loads a pass.
    Chase { at: u64, loads: u64 },
    /// A strided or random read over the source.
    Strided(kernel::Order),
    /// The triad over three windows of the source: `a` at its start, `b` and `c` at these
    /// offsets.
    Triad((u64, u64)),
}

/// The selected kernels on one mapping, sizes up to the mapping's size (size by size, each
/// kernel in table order). The copies go to and from a private anonymous mapping of the
/// same size (the heap's memory, where the firmware copies with `normal-wb`).
pub fn sweep_source(
    out: &mut Out,
    tally: &mut Tally,
    ctx: &Ctx<'_>,
    name: &str,
    m: &mut sys::Mapping,
) {
    let cap = m.size();
    let copies = Kernel::CopyTo.bit()
        | Kernel::CopyFrom.bit()
        | Kernel::CopyToQ.bit()
        | Kernel::CopyFromQ.bit();
    let mut partner = None;
    if ctx.kernels & copies != 0 {
        // The copies' other side starts PARTNER_SKEW past a 2 MiB boundary: a source 2 MiB
        // aligned as well would put the two sides of every copy at the same offset in their
        // 2 MiB regions, so in the same slot of a direct-mapped translation cache (QEMU's
        // software TLB: anon's copies ran 5-7x slower than udmabuf's under TCG, 700-1,000
        // against 3,700-5,300 MB/s at 4-64 KiB).
        match anon_mapping(cap, PARTNER_SKEW, ctx.hugepages) {
            Ok((mut p, _)) => {
                populate(&mut p);
                partner = Some(p)
            }
            Err(e) => {
                for spec in kernel::selected(ctx.kernels & copies) {
                    let why =
                        format_args!("no anonymous mapping to copy with: mmap: {}", errno_name(e));
                    report::skipped(out, name, spec, None, why);
                }
            }
        }
    }
    let overhead = (0..16)
        .map(|_| {
            let t0 = sys::ticks();
            sys::ticks().wrapping_sub(t0)
        })
        .min()
        .unwrap_or(0);
    let fitting = sweep::Sizes::from_ascending(ctx.sizes.iter().copied().filter(|&s| s <= cap));
    // A kernel measured at the largest size only takes the largest that the mapping holds
    // (for the triad, three times over).
    let largest = |k: Kernel| {
        let fits = |&s: &u64| k != Kernel::Triad || sweep::triad_partners(s, cap).is_some();
        fitting.iter().filter(fits).last()
    };
    for size in fitting.iter() {
        for spec in kernel::selected(ctx.kernels) {
            let copy = spec.kernel.bit() & copies != 0;
            let elsewhere = spec.largest_only && largest(spec.kernel) != Some(size);
            if (copy && partner.is_none()) || elsewhere {
                continue;
            }
            let mut what = Name::new();
            let _ = write!(what, "measuring {name} {} at {}", spec.name, Bytes(size));
            let _doing = sys::doing(what.as_str());
            let at = At { name, spec, size };
            point(
                out,
                tally,
                ctx,
                &at,
                m,
                partner.as_mut().filter(|_| copy),
                overhead,
            );
        }
    }
}

/// Lays the data the point's kernel needs, times it (the firmware's calibration and samples:
/// core's sweep), checks the data and writes the `result` record.
fn point(
    out: &mut Out,
    tally: &mut Tally,
    ctx: &Ctx<'_>,
    at: &At<'_>,
    m: &mut sys::Mapping,
    mut partner: Option<&mut sys::Mapping>,
    overhead: u64,
) {
    let (k, size) = (at.spec.kernel, at.size);
    let Some((body, units, pass_bytes)) = prepare(out, at, m, partner.as_deref_mut()) else {
        return;
    };
    // The firmware's `invalidated` start: no line of what the point touches in a cache
    // (the laying above went through the caches), right before the warm-up.
    let span = match body {
        Body::Triad((_, c)) => c + size,
        _ => size,
    };
    let done = m.clean_invalidate(span).is_some()
        && partner
            .as_deref_mut()
            .is_none_or(|p| p.clean_invalidate(size).is_some());
    let start = if done {
        sweep::Start::Invalidated
    } else {
        sweep::Start::Warm
    };
    let mut timer = Timer::new(m.sync_handle(), k, overhead);
    let mut lp = Loop {
        m,
        partner,
        size,
        body,
    };
    if !lp.run(0) {
        return report::skipped(
            out,
            at.name,
            at.spec,
            Some(size),
            format_args!("{ODD_SIZE}"),
        );
    }
    lp.warm_up();
    let mut samples = [0u64; MAX_REPS];
    let samples = samples.get_mut(..ctx.reps as usize).unwrap_or_default();
    let passes = timer.sample(&mut lp, ctx.freq, pass_bytes, samples);
    let sync_ns = timer.sync_ns(ctx.freq);
    if let Some(e) = timer.sync_error {
        tally.warnings += 1;
        say!(
            out,
            "{} {} {}: DMA_BUF_IOCTL_SYNC failed: {} (errno {e})",
            at.name,
            at.spec.name,
            Bytes(size),
            errno_name(e)
        );
    }
    let Loop { m, partner, .. } = lp;
    let bad = check(k, m, partner, size);
    let Some(s) = stats::summarize(samples) else {
        return;
    };
    let point = report::Point {
        at,
        // What the range got, right after its samples.
        granule: huge::granule(m.va(), size),
        passes,
        total: units.saturating_mul(passes),
        s,
        freq: ctx.freq,
        start,
        sync_ns,
        backwards: timer.backwards,
        bad,
    };
    count(out, tally, &point);
    point.say(out);
    point.record(out);
}

/// The point's check in the tally (its data intact, else a `FAIL integrity` line), and its
/// figures kept for the closing diagnosis (a bandwidth's, or the chase's latency for the
/// system cache) when the data is intact.
fn count(out: &mut Out, tally: &mut Tally, point: &report::Point<'_>) {
    let (at, k) = (point.at, point.at.spec.kernel);
    tally.checks += 1;
    if let Some(off) = point.bad {
        tally.failed += 1;
        say!(
            out,
            "FAIL integrity: {} on {} at {}: data wrong at offset {off:#x}{}",
            at.spec.name,
            at.name,
            Bytes(at.size),
            if matches!(k, Kernel::CopyFrom | Kernel::CopyFromQ) {
                " of the anonymous copy"
            } else {
                ""
            }
        );
    }
    if point.bad.is_some() {
        return;
    }
    if let Some((best, median)) = point.bandwidth() {
        tally.diag.keep(at.name, k, at.size, best, median);
    } else if let Some(best) = point.latency() {
        tally.diag.keep_latency(at.name, at.size, best);
    }
}

/// Lays the data the point's kernel needs (every window a kernel writes is first laid with
/// what it does not leave, so the check afterwards fails if the kernel did not run): what a
/// pass runs, the units it counts and the bytes it moves. `None` when the point is not
/// measured (said with a `skipped` record, but for a copy without its partner).
fn prepare(
    out: &mut Out,
    at: &At<'_>,
    m: &mut sys::Mapping,
    partner: Option<&mut sys::Mapping>,
) -> Option<(Body, u64, u64)> {
    let (k, size) = (at.spec.kernel, at.size);
    match k {
        // Reads must leave the pattern; writes replace it with what they store.
        Kernel::ReadLdp
        | Kernel::ReadLdpQ
        | Kernel::ReadLdnp
        | Kernel::WriteStp
        | Kernel::WriteStpQ
        | Kernel::WriteStnp => {
            lay(m, size, PATTERN);
            Some((Body::Stream(k), size, size))
        }
        Kernel::CopyTo | Kernel::CopyFrom | Kernel::CopyToQ | Kernel::CopyFromQ => {
            let p = partner?;
            let q = matches!(k, Kernel::CopyToQ | Kernel::CopyFromQ);
            let (src, dst, body) = if matches!(k, Kernel::CopyTo | Kernel::CopyToQ) {
                (p, m, Body::CopyTo(q))
            } else {
                (m, p, Body::CopyFrom(q))
            };
            lay(src, size, PATTERN);
            lay(dst, size, WRITTEN);
            Some((body, size, size))
        }
        Kernel::Latency => {
            let Some(lines) = lay_chain(m, size) else {
                report::skipped(
                    out,
                    at.name,
                    at.spec,
                    Some(size),
                    format_args!("{ODD_SIZE}"),
                );
                return None;
            };
            let loads = sweep::chase_pass(lines);
            Some((Body::Chase { at: m.va(), loads }, loads, loads * CHASE_LINE))
        }
        Kernel::Triad => {
            let Some(at) = sweep::triad_partners(size, m.size()) else {
                let why = format_args!("a triad needs three times the size in the mapping");
                report::skipped(out, at.name, at.spec, Some(size), why);
                return None;
            };
            lay_from(m, 0, size, PATTERN);
            lay_from(m, at.0, size, pattern::TRIAD_B);
            lay_from(m, at.1, size, pattern::TRIAD_C);
            // Bytes as STREAM counts them: a, b and c.
            Some((Body::Triad(at), 3 * size, 3 * size))
        }
        Kernel::ReadStride64
        | Kernel::ReadStride256
        | Kernel::ReadStride1k
        | Kernel::ReadStride4k
        | Kernel::ReadRandom => {
            lay(m, size, PATTERN);
            let order = k.order()?;
            Some((Body::Strided(order), size, size))
        }
        // A kernel of the table's `twin` column that this function has no arm for.
        _ => {
            let why = format_args!("mairbench-linux has no loop for it");
            report::skipped(out, at.name, at.spec, Some(size), why);
            None
        }
    }
}

/// Where the kernel `k` left wrong data in the first `size` bytes: the offset, if any.
fn check(
    k: Kernel,
    m: &mut sys::Mapping,
    partner: Option<&mut sys::Mapping>,
    size: u64,
) -> Option<u64> {
    match k {
        Kernel::ReadLdp | Kernel::ReadLdpQ | Kernel::ReadLdnp => mismatch(m, size, PATTERN),
        Kernel::WriteStp | Kernel::WriteStpQ | Kernel::WriteStnp => mismatch(m, size, WRITTEN),
        Kernel::CopyTo | Kernel::CopyToQ => mismatch(m, size, PATTERN),
        Kernel::CopyFrom | Kernel::CopyFromQ => partner.and_then(|p| mismatch(p, size, PATTERN)),
        Kernel::Latency => (!chain_intact(m, size)).then_some(0),
        Kernel::Triad => mismatch(m, size, pattern::TRIAD_A),
        k if k.order().is_some() => mismatch(m, size, PATTERN),
        // No other kernel got this far (`prepare`).
        _ => Some(0),
    }
}

/// One point's loop on its mappings: what a pass runs over their first `size` bytes.
struct Loop<'m> {
    m: &'m mut sys::Mapping,
    partner: Option<&'m mut sys::Mapping>,
    size: u64,
    body: Body,
}

impl Loop<'_> {
    /// Runs `passes` passes: false when the loop refuses the size.
    fn run(&mut self, passes: u64) -> bool {
        let size = self.size;
        let m = &mut *self.m;
        match &mut self.body {
            Body::Stream(k) => m.stream(*k, size, passes).is_some(),
            Body::CopyTo(q) => self
                .partner
                .as_deref()
                .and_then(|p| sys::Mapping::copy(m, p, size, passes, *q))
                .is_some(),
            Body::CopyFrom(q) => self
                .partner
                .as_deref_mut()
                .and_then(|p| sys::Mapping::copy(p, m, size, passes, *q))
                .is_some(),
            Body::Chase { at, loads } => m
                .chase(*at, *loads, passes)
                .map(|next| *at = next)
                .is_some(),
            Body::Strided(order) => m.strided(*order, size, passes).is_some(),
            Body::Triad(at) => m.triad(size, *at, passes).is_some(),
        }
    }

    /// The chase's untimed warm-up lap (the cache size unknown here: one whole lap), after
    /// which the samples continue along the cycle. Nothing for the other kernels.
    fn warm_up(&mut self) {
        if let Body::Chase { at, loads } = self.body {
            let lap = sweep::chase_warm_up(self.size / CHASE_LINE, CHASE_LINE, None);
            self.body = Body::Chase { at, loads: lap };
            self.run(1);
            if let Body::Chase { at, .. } = self.body {
                self.body = Body::Chase { at, loads };
            }
        }
    }
}

/// A point's timed samples: the counter read around each, a dma-buf's sync pair outside.
struct Timer {
    /// The cost of reading the counter, taken off each sample.
    overhead: u64,
    /// A dma-buf's reader brackets its CPU access with DMA_BUF_IOCTL_SYNC: START before,
    /// END after, in the direction the kernel accesses the source. Each sample does so
    /// outside its timed span; the pair's own time is kept apart (`sync_ns`).
    sync: Option<sys::SyncHandle>,
    direction: u64,
    /// The sync pair's best, in ticks (`u64::MAX`: none).
    sync_best: u64,
    /// The first failed sync's errno.
    sync_error: Option<i64>,
    /// Samples whose second counter read was below their first: dropped (and counted), as
    /// the firmware does.
    backwards: u64,
}

impl Timer {
    fn new(sync: Option<sys::SyncHandle>, k: Kernel, overhead: u64) -> Timer {
        let direction = match k {
            Kernel::WriteStp
            | Kernel::WriteStpQ
            | Kernel::WriteStnp
            | Kernel::CopyTo
            | Kernel::CopyToQ => sys::DMA_BUF_SYNC_WRITE,
            Kernel::Triad => sys::DMA_BUF_SYNC_READ | sys::DMA_BUF_SYNC_WRITE,
            _ => sys::DMA_BUF_SYNC_READ,
        };
        Timer {
            overhead,
            sync,
            direction,
            sync_best: u64::MAX,
            sync_error: None,
            backwards: 0,
        }
    }

    /// One sample of `passes` passes, in ticks; a sample whose counter went backwards is
    /// taken again, up to [`MAX_BACKWARDS`] times.
    fn timed(&mut self, lp: &mut Loop<'_>, passes: u64) -> u64 {
        loop {
            let s0 = sys::ticks();
            self.sync(sys::DMA_BUF_SYNC_START);
            let t0 = sys::ticks();
            lp.run(passes);
            let t1 = sys::ticks();
            if self.sync.is_some() {
                self.sync(sys::DMA_BUF_SYNC_END);
                let s1 = sys::ticks();
                let pair = t0.wrapping_sub(s0).saturating_add(s1.wrapping_sub(t1));
                self.sync_best = self.sync_best.min(pair);
            }
            if t1 >= t0 || self.backwards >= MAX_BACKWARDS {
                break t1.wrapping_sub(t0).saturating_sub(self.overhead);
            }
            self.backwards += 1;
        }
    }

    /// DMA_BUF_IOCTL_SYNC `flags` in the point's direction, on a dma-buf; the first error
    /// kept.
    fn sync(&mut self, flags: u64) {
        if let Some(h) = self.sync {
            if let Err(e) = h.sync(flags | self.direction) {
                self.sync_error.get_or_insert(e);
            }
        }
    }

    /// Calibrates the passes, then fills `samples`, each at least 1000 of the counter's real
    /// steps (user-mode QEMU's moves 62 at a time), starting over with more passes when one
    /// is too short; the passes of each sample.
    fn sample(
        &mut self,
        lp: &mut Loop<'_>,
        freq: u64,
        pass_bytes: u64,
        samples: &mut [u64],
    ) -> u64 {
        let step = counter::step((0..counter::STEP_READS).map(|_| sys::ticks())).unwrap_or(1);
        let min_ticks = sweep::min_sample_ticks_stepped(freq, step);
        let max = sweep::max_passes(pass_bytes);
        let mut passes = sweep::calibrate(min_ticks, max, |p| self.timed(lp, p)).passes;
        let mut i = 0;
        while i < samples.len() {
            let t = self.timed(lp, passes);
            match sweep::too_short(passes, t, min_ticks, max) {
                Some(more) => {
                    passes = more;
                    i = 0;
                }
                None => {
                    samples[i] = t.max(1);
                    i += 1;
                }
            }
        }
        passes
    }

    /// The sync pair's best, in ns (none without a dma-buf, or when a sync failed).
    fn sync_ns(&self, freq: u64) -> Option<u64> {
        match (self.sync, self.sync_error) {
            (Some(_), None) if self.sync_best != u64::MAX => {
                Some(sweep::ticks_to_ns(self.sync_best, freq))
            }
            _ => None,
        }
    }
}

/// Lays `p` over the first `size` bytes of `m`.
fn lay(m: &mut sys::Mapping, size: u64, p: Pattern) {
    lay_from(m, 0, size, p);
}

/// Lays `p` over the `size` bytes of `m` from byte `from` (a multiple of 8), its offsets
/// counted from there.
fn lay_from(m: &mut sys::Mapping, from: u64, size: u64, p: Pattern) {
    let (first, words) = ((from / 8) as usize, (size / 8) as usize);
    if let Some(w) = m.words().get_mut(first..first + words) {
        for (off, x) in (0..).step_by(8).zip(w.iter_mut()) {
            *x = p.at(off);
        }
    }
}

/// The byte offset of the first of the first `size` bytes of `m` that does not hold `p`.
fn mismatch(m: &mut sys::Mapping, size: u64, p: Pattern) -> Option<u64> {
    let words = (size / 8) as usize;
    let w = m.words().get(..words)?;
    (0..)
        .step_by(8)
        .zip(w.iter())
        .find(|&(off, &x)| x != p.at(off))
        .map(|(off, _)| off)
}

/// Lays the chase over the first `size` bytes of `m` as the firmware does (its
/// `Chain::lay`, with core's generator and Sattolo swaps): the first word of line `i` holds
/// the address of the line after `i` in one random cycle (seed [`SEED`] xor the size).
/// The lines, or `None` when there is no whole line.
fn lay_chain(m: &mut sys::Mapping, size: u64) -> Option<u64> {
    let lines = size / CHASE_LINE;
    let stride = (CHASE_LINE / 8) as usize;
    let va = m.va();
    let w = m.words().get_mut(..(size / 8) as usize)?;
    if lines == 0 {
        return None;
    }
    for (i, x) in (0..).zip(w.iter_mut().step_by(stride)) {
        *x = i;
    }
    let mut rng = random::XorShift64::new(SEED ^ size);
    random::sattolo_swaps(lines, &mut rng, |i, j| {
        w.swap(i as usize * stride, j as usize * stride);
    });
    for x in w.iter_mut().step_by(stride) {
        *x = va + *x * CHASE_LINE;
    }
    Some(lines)
}

/// Whether the chase over the first `size` bytes of `m` is still one whole cycle: from line
/// 0, every pointer is a line of the range, and line 0 comes back after exactly every line.
fn chain_intact(m: &mut sys::Mapping, size: u64) -> bool {
    let lines = size / CHASE_LINE;
    let va = m.va();
    let w = m.words();
    let mut at = 0u64;
    for step in 1..=lines {
        let Some(&p) = w.get((at * CHASE_LINE / 8) as usize) else {
            return false;
        };
        let rel = p.wrapping_sub(va);
        if !rel.is_multiple_of(CHASE_LINE) || rel >= size {
            return false;
        }
        at = rel / CHASE_LINE;
        if at == 0 {
            return step == lines;
        }
    }
    false
}
