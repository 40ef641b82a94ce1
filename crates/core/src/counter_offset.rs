//! Whether every CPU reads the same counter: the offset of another CPU's CNTVCT_EL0 from the
//! boot CPU's, bounded by round trips, and its CNTFRQ_EL0 against the boot CPU's.
//!
//! CNTVCT_EL0 is the system counter minus CNTVOFF_EL2, and CNTFRQ_EL0 a register each core
//! holds for itself, which boot firmware programs on every core (U-Boot's
//! `arch/arm/cpu/armv8/start.S` writes `COUNTER_FREQUENCY` at the highest EL of each core it
//! starts). Linux compares each secondary's CNTFRQ_EL0 with the boot CPU's
//! (`arch/arm64/kernel/cpufeature.c`, `update_cpu_features`) and taints the kernel with
//! "SANITY CHECK: Unexpected variation in SYS_CNTFRQ_EL0" where they differ: a Marvell
//! PXA1908 phone's secondaries read 0 there. The multi-core figures time each core on its own
//! counter and compare the values, so they hold only where the counters agree.
//!
//! A round: the boot CPU reads its counter (`asked`), asks the other CPU through memory; that
//! CPU reads its counter (`answered`) and replies; the boot CPU reads its counter again
//! (`back`). The answer was read between the two, so `answered - offset` lies in
//! `[asked, back]`, and the offset in `[answered - back, answered - asked]`. The offset lies in
//! every round's interval: their intersection bounds it, as tightly as the quickest round.

/// One round of the exchange, in ticks of the counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Round {
    /// The boot CPU's counter before it asked.
    pub asked: u64,
    /// The other CPU's counter when it answered.
    pub answered: u64,
    /// The boot CPU's counter once the answer had arrived.
    pub back: u64,
}

/// What the rounds bound of the other CPU's counter minus the boot CPU's, in ticks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bound {
    /// The least offset every round allows.
    pub min: i64,
    /// The greatest offset every round allows.
    pub max: i64,
    /// The quickest round trip (`back - asked`), in ticks.
    pub round_trip: u64,
    /// How many rounds there were.
    pub rounds: u32,
}

/// What the rounds show.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Offset {
    /// The rounds allow an offset of 0: as far as they can tell, the counters agree.
    Agree(Bound),
    /// Every round puts the offset on one side of 0: the other CPU's counter is ahead
    /// (`min > 0`) or behind (`max < 0`) by at least the nearer end.
    Apart(Bound),
    /// No offset fits every round (the intersection is empty, or the boot CPU's counter went
    /// back within a round): a counter that jumps, or runs at another rate.
    Contradict,
}

/// The offset the `rounds` allow; `None` without a round.
pub fn offset(rounds: impl IntoIterator<Item = Round>) -> Option<Offset> {
    let mut bound: Option<Bound> = None;
    for r in rounds {
        let Some(round_trip) = r.back.checked_sub(r.asked) else {
            return Some(Offset::Contradict);
        };
        // Two's-complement differences: an offset of either sign, within 2^63 ticks.
        let lo = r.answered.wrapping_sub(r.back) as i64;
        let hi = r.answered.wrapping_sub(r.asked) as i64;
        let b = bound.get_or_insert(Bound {
            min: lo,
            max: hi,
            round_trip,
            rounds: 0,
        });
        b.min = b.min.max(lo);
        b.max = b.max.min(hi);
        b.round_trip = b.round_trip.min(round_trip);
        b.rounds = b.rounds.saturating_add(1);
    }
    let b = bound?;
    Some(if b.min > b.max {
        Offset::Contradict
    } else if b.min > 0 || b.max < 0 {
        Offset::Apart(b)
    } else {
        Offset::Agree(b)
    })
}

impl Bound {
    /// The larger distance from 0 the bound allows, in ticks: how far apart the counters may
    /// be for all the rounds can tell.
    pub fn within(&self) -> u64 {
        self.min.unsigned_abs().max(self.max.unsigned_abs())
    }

    /// The smaller distance from 0, in ticks: how far apart the counters are at least (for
    /// [`Offset::Apart`]).
    pub fn at_least(&self) -> u64 {
        self.min.unsigned_abs().min(self.max.unsigned_abs())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round(asked: u64, answered: u64, back: u64) -> Round {
        Round {
            asked,
            answered,
            back,
        }
    }

    #[test]
    fn counters_that_agree_bound_the_offset_by_the_quickest_round() {
        // The other CPU answers in the middle of each round.
        let rounds = [
            round(100, 150, 200),
            round(1000, 1010, 1020),
            round(5000, 5040, 5100),
        ];
        let Some(Offset::Agree(b)) = offset(rounds) else {
            panic!("{:?}", offset(rounds));
        };
        // Intersection of [-50, 50], [-10, 10], [-60, 40].
        assert_eq!((b.min, b.max, b.round_trip, b.rounds), (-10, 10, 20, 3));
        assert_eq!((b.within(), b.at_least()), (10, 10));
    }

    #[test]
    fn a_counter_ahead_or_behind_by_more_than_a_round_trip_is_apart() {
        // 1000 ticks ahead: it answers "1000 later" than the boot CPU's counter.
        let ahead = [round(100, 1150, 200), round(300, 1320, 340)];
        let Some(Offset::Apart(b)) = offset(ahead) else {
            panic!("{:?}", offset(ahead));
        };
        assert_eq!((b.min, b.max), (980, 1020));
        assert_eq!(b.at_least(), 980);
        // 5000 behind, with a counter that has not reached 5000 yet: wrapping differences.
        let behind = [round(100, u64::MAX - 4849, 200)];
        let Some(Offset::Apart(b)) = offset(behind) else {
            panic!("{:?}", offset(behind));
        };
        assert_eq!((b.min, b.max), (-5050, -4950));
    }

    #[test]
    fn an_offset_smaller_than_the_rounds_is_not_claimed() {
        // 5 ticks ahead, rounds of 40: nothing can be said but "within".
        let rounds = [round(100, 125, 140), round(200, 225, 240)];
        assert!(matches!(offset(rounds), Some(Offset::Agree(_))));
    }

    #[test]
    fn rounds_that_no_offset_fits_contradict() {
        // A counter that jumped by 1000 between two rounds.
        let rounds = [round(100, 150, 200), round(300, 1350, 400)];
        assert_eq!(offset(rounds), Some(Offset::Contradict));
        // The boot CPU's own counter went back within a round.
        assert_eq!(offset([round(200, 150, 100)]), Some(Offset::Contradict));
        assert_eq!(offset([]), None);
    }
}
