//! The core-to-core latency matrix: one cache line bounced between every pair of running
//! CPUs (the first [`MAX_MATRIX_CPUS`]), within and across clusters, bare metal with no other
//! load; a `core_to_core` record per pair and a table of one-way times (half a round trip).

use crate::arch::cpu;
use crate::arch::smp::bounce;
use crate::console::Console;
use crate::{run, say, say_inline};
use mairbench_core::format::Decimal;
use mairbench_core::record::Record;
use mairbench_core::schema;
use mairbench_core::stats;

/// Most CPUs the matrix takes (their pairs: 120); more are named, not measured.
pub const MAX_MATRIX_CPUS: usize = 16;
/// Timed round trips per pair on hardware: a round trip is well under a microsecond on any
/// Arm SoC, so a pair takes about a millisecond.
const ROUNDS: u64 = 1000;
/// Under emulation, where a hop waits until the host schedules the other vCPU's thread
/// (milliseconds on a busy 2-core host): the shape and the records, not the values. One:
/// sixteen vCPUs on 2 host cores took 19 s for the matrix's 120 pairs at two.
const EMULATED_ROUNDS: u64 = 1;
/// Most time one pair may take before both CPUs give up.
const PAIR_LIMIT_NS: u64 = 2_000_000_000;
/// The same under emulation.
const EMULATED_LIMIT_NS: u64 = 5_000_000_000;

/// One CPU of the matrix: its stack block (`None`: the boot CPU), MPIDR affinity, cluster.
#[derive(Clone, Copy, Debug)]
pub struct Member {
    /// Its stack block, or `None` for the boot CPU.
    pub block: Option<usize>,
    /// Its MPIDR_EL1 affinity.
    pub mpidr: u64,
    /// Its cluster's index, if it is in one.
    pub cluster: Option<usize>,
}

/// Measures and reports the matrix of `shown` (the boot CPU first), the first of `running`
/// CPUs.
#[inline(never)]
pub fn run(shown: &[Member], running: usize) {
    let (rounds, limit) = if run::emulated() {
        (EMULATED_ROUNDS, EMULATED_LIMIT_NS)
    } else {
        (ROUNDS, PAIR_LIMIT_NS)
    };
    say!("");
    say!(
        "core-to-core: one cache line bounced between each pair of CPUs, {rounds} round trips \
         each; ns per one-way hop (half a round trip){}",
        if run::emulated() {
            " (emulated: QEMU's vCPU threads, not a coherence fabric)"
        } else {
            ""
        }
    );
    if running > shown.len() {
        run::warn("core-to-core");
        say!(
            "core-to-core: the first {} of {running} running CPUs; the other CPUs' pairs not \
             measured",
            shown.len(),
        );
    }
    // Hundredths of a ns per one-way hop, per pair (from < to): every pair first, then the
    // records and the table, so that the lines stay whole.
    let freq = cpu::counter_hz().max(1);
    let mut hops = [[None; MAX_MATRIX_CPUS]; MAX_MATRIX_CPUS];
    let mut ticks = [[None; MAX_MATRIX_CPUS]; MAX_MATRIX_CPUS];
    for (i, from) in shown.iter().enumerate() {
        for (j, to) in shown.iter().enumerate().skip(i + 1) {
            let span = to
                .block
                .and_then(|b| bounce::bounce(from.block, b, rounds, limit));
            if span.is_none() {
                run::warn("core-to-core");
            }
            let per_hop = span.map(|s| {
                let hops = u128::from(s.bytes) * 2;
                // ⌊⌊a / freq⌋ / hops⌋ = ⌊a / (freq · hops)⌋: one division.
                let cns = stats::div_rem(
                    u128::from(s.ticks()) * 100_000_000_000,
                    u128::from(freq) * hops,
                );
                cns.map_or(u64::MAX, |(q, _)| u64::try_from(q).unwrap_or(u64::MAX))
            });
            if let (Some(h), Some(t)) = (
                hops.get_mut(i).and_then(|r| r.get_mut(j)),
                ticks.get_mut(i).and_then(|r| r.get_mut(j)),
            ) {
                (*h, *t) = (per_hop, span.map(|s| s.ticks()));
            }
        }
    }
    for (i, from) in shown.iter().enumerate() {
        for (j, to) in shown.iter().enumerate().skip(i + 1) {
            let at = |m: &[[Option<u64>; MAX_MATRIX_CPUS]]| {
                m.get(i).and_then(|r| r.get(j)).copied().flatten()
            };
            let mut out = Console;
            let _ = Record::new(&mut out, &schema::CORE_TO_CORE)
                .hex("from", from.mpidr)
                .hex("to", to.mpidr)
                .opt_u64("from_cluster", from.cluster.map(|c| c as u64))
                .opt_u64("to_cluster", to.cluster.map(|c| c as u64))
                .u64("rounds", rounds)
                .opt_u64("ticks", at(&ticks))
                .u64("freq_hz", freq)
                .opt_decimal("ns_per_hop", at(&hops), 2)
                .finish();
        }
    }
    say_inline!("  {:>10}", "from \\ to");
    for to in shown.iter().skip(1) {
        say_inline!(" {:>#10x}", to.mpidr);
    }
    say!("");
    for (i, from) in shown.iter().enumerate().take(shown.len().saturating_sub(1)) {
        say_inline!("  {:>#10x}", from.mpidr);
        for j in 1..shown.len() {
            match hops.get(i).and_then(|r| r.get(j)).copied().flatten() {
                Some(v) if j > i => say_inline!(
                    " {:>10}",
                    Decimal {
                        scaled: v,
                        places: 2
                    }
                ),
                None if j > i => say_inline!(" {:>10}", "-"),
                _ => say_inline!(" {:>10}", ""),
            }
        }
        say!("");
    }
}
