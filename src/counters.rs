//! Every running CPU's counter against the boot CPU's (check `smp-counters`): its own
//! CNTFRQ_EL0, and how far its CNTVCT_EL0 may be from the boot CPU's, bounded by round trips
//! through memory ([`mairbench_core::counter_offset`]). The multi-core figures time each core
//! on its own counter and compare the values: they hold only where the counters agree. Each
//! secondary gets a `counter` record; the console names each one at fault.

use crate::arch::smp::jobs::clock_round;
use crate::arch::smp::start;
use crate::console::Console;
use crate::cpus::Cores;
use crate::{run, say};
use mairbench_core::arch_name;
use mairbench_core::counter_offset::{self, Bound, Offset, Round};
use mairbench_core::record::Record;
use mairbench_core::schema;

/// Round trips per secondary: the quickest bounds the offset.
const ROUNDS: usize = 8;
/// How long a secondary has to answer one round (as long as a benchmark job).
const ROUND_WAIT_NS: u64 = 5_000_000_000;

/// What is wrong with one secondary's counter.
#[derive(Clone, Copy)]
enum Fault {
    /// It did not answer a round.
    Silent,
    /// Its CNTFRQ_EL0 holds another frequency.
    Frequency(u64),
    /// Its counter is ahead or behind.
    Apart(Bound),
    /// No offset fits every round: a counter that jumps, or runs at another rate.
    Contradict,
}

/// Runs the exchange with every CPU of `cores`, writes their records, and the check against
/// the boot CPU's CNTFRQ_EL0 `boot_hz`; true when every counter agrees. Not inlined into
/// the CPUs' start: the code is shorter apart.
#[inline(never)]
pub fn check(cores: &Cores, boot_hz: u64) -> bool {
    let mut first: Option<(u64, Fault)> = None;
    let mut within = 0;
    for &block in cores.blocks() {
        let mpidr = start::online(block).map_or(0, |up| up.mpidr);
        let mut rounds = [Round {
            asked: 0,
            answered: 0,
            back: 0,
        }; ROUNDS];
        let (mut answered, mut hz) = (0, None);
        for slot in rounds.iter_mut() {
            let Some((round, f)) = clock_round(block, ROUND_WAIT_NS) else {
                break;
            };
            (*slot, hz, answered) = (round, Some(f), answered + 1);
        }
        let offset = counter_offset::offset(rounds[..answered].iter().copied());
        record(block, mpidr, hz, offset, answered);
        let fault = match (hz, offset) {
            _ if answered < ROUNDS => Some(Fault::Silent),
            (Some(f), _) if f != boot_hz => Some(Fault::Frequency(f)),
            (_, Some(Offset::Apart(b))) => Some(Fault::Apart(b)),
            (_, Some(Offset::Agree(b))) => {
                within = within.max(b.within());
                None
            }
            _ => Some(Fault::Contradict),
        };
        if let Some(fault) = fault {
            say!("counter: CPU {mpidr:#x}: {}", Said(fault, boot_hz));
            first.get_or_insert((mpidr, fault));
        }
    }
    let n = cores.count() + 1;
    match first {
        None => run::check(
            "smp-counters",
            true,
            format_args!(
                concat!(
                    "{n} CPUs: ",
                    arch_name!(cntfrq),
                    " {boot_hz} Hz on each, ",
                    arch_name!(cntvct),
                    " within {within} ticks ({} us) of the boot CPU's (the quickest of \
                     {ROUNDS} round trips each)"
                ),
                within.saturating_mul(1_000_000) / boot_hz.max(1),
                n = n,
                boot_hz = boot_hz,
                within = within,
                ROUNDS = ROUNDS
            ),
        ),
        Some((mpidr, fault)) => run::check(
            "smp-counters",
            false,
            format_args!(
                concat!(
                    "CPU {mpidr:#x}: {}: the multi-core figures need boot firmware that \
                     programs ",
                    arch_name!(cntfrq),
                    " and ",
                    arch_name!(cntvoff),
                    " alike on every core"
                ),
                Said(fault, boot_hz),
                mpidr = mpidr
            ),
        ),
    }
}

/// The `counter` record of the secondary of stack block `block`.
fn record(block: usize, mpidr: u64, hz: Option<u64>, offset: Option<Offset>, rounds: usize) {
    let bound = match offset {
        Some(Offset::Agree(b) | Offset::Apart(b)) => Some(b),
        _ => None,
    };
    let mut console = Console;
    let mut r = Record::new(&mut console, &schema::COUNTER)
        .u64("cpu", block as u64)
        .hex("mpidr", mpidr)
        .opt_u64("cntfrq_hz", hz);
    r = match bound {
        Some(b) => r
            .i64("offset_min_ticks", b.min)
            .i64("offset_max_ticks", b.max),
        None => r.null("offset_min_ticks").null("offset_max_ticks"),
    };
    let _ = r
        .opt_u64(
            "round_trip_ticks",
            offset.and_then(|_| Some(bound?.round_trip)),
        )
        .u64("rounds", rounds as u64)
        .finish();
}

/// A fault in words, against the boot CPU's frequency.
struct Said(Fault, u64);

impl core::fmt::Display for Said {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self.0 {
            Fault::Silent => write!(
                f,
                "did not answer a counter round within {} s",
                ROUND_WAIT_NS / 1_000_000_000
            ),
            Fault::Frequency(hz) => {
                write!(
                    f,
                    concat!(arch_name!(cntfrq), " reads {hz} Hz, the boot CPU's {} Hz"),
                    self.1,
                    hz = hz
                )
            }
            Fault::Apart(b) => write!(
                f,
                concat!(arch_name!(cntvct), " is {} by {}..{} ticks"),
                if b.min > 0 { "ahead" } else { "behind" },
                b.at_least(),
                b.within()
            ),
            Fault::Contradict => write!(
                f,
                "its counter jumps or runs at another rate: no one offset fits its rounds"
            ),
        }
    }
}
