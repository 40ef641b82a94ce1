//! The generic counter (CNTVCT_EL0) as the measurements read it: the errata that make it jump
//! on some SoCs and the re-read rules Linux uses for them (`drivers/clocksource/
//! arm_arch_timer.c`), the counter's real step (the architecture lets a counter advance in
//! steps of more than one tick, at a lower rate), and which samples cannot be true.
//!
//! Pure: the firmware hands [`read`] a closure that reads the register once, so the rules
//! are tested here on fake counters.

use core::fmt;

/// A counter erratum Linux works around.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Erratum {
    /// Freescale/NXP A-008585 (`fsl,erratum-a008585`, Layerscape): a read may return a wrong
    /// value; Linux reads twice until both agree, at most 200 times.
    FslA008585,
    /// HiSilicon 161010101 (`hisilicon,erratum-161010101`, Hip05/Hip06/Hip07): a read may
    /// return a value up to 32 ticks off; Linux re-reads until two successive reads are
    /// fewer than 32 ticks apart, at most 50 times.
    Hisilicon161010101,
    /// Allwinner A64 "unknown1" (`allwinner,erratum-unknown1`): the low 11 bits may read as
    /// all ones or all zeros while the counter rolls over, a jump of about 2048 ticks either
    /// way; Linux re-reads while the low 9 bits are 0x1ff or 0, at most 150 times.
    AllwinnerUnknown1,
    /// Cortex-A73 858921: a read that sees bit 32 flip may return a wrong value; Linux reads
    /// twice and takes the first read when bit 32 differs between them, else the second.
    CortexA73_858921,
}

// Errata::from_bits keeps four bits.
const _: () = assert!(Erratum::ALL.len() == 4);

impl Erratum {
    /// Every erratum, in the order [`Errata::of`] reports and [`read`] prefers them.
    pub const ALL: [Erratum; 4] = [
        Erratum::FslA008585,
        Erratum::Hisilicon161010101,
        Erratum::AllwinnerUnknown1,
        Erratum::CortexA73_858921,
    ];

    /// Its name in the `config` record's `counter_errata`.
    pub const fn name(self) -> &'static str {
        match self {
            Erratum::FslA008585 => "fsl-a008585",
            Erratum::Hisilicon161010101 => "hisilicon-161010101",
            Erratum::AllwinnerUnknown1 => "allwinner-unknown1",
            Erratum::CortexA73_858921 => "cortex-a73-858921",
        }
    }

    /// The device-tree property of the timer node that names it, if it is named so.
    pub const fn property(self) -> Option<&'static str> {
        match self {
            Erratum::FslA008585 => Some("fsl,erratum-a008585"),
            Erratum::Hisilicon161010101 => Some("hisilicon,erratum-161010101"),
            Erratum::AllwinnerUnknown1 => Some("allwinner,erratum-unknown1"),
            Erratum::CortexA73_858921 => None,
        }
    }

    const fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// The counter errata of one machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Errata(u8);

impl Errata {
    /// None.
    pub const NONE: Errata = Errata(0);

    /// The errata of a machine whose timer node has the properties `has` says it has, and
    /// whose cores have erratum `core` by their MIDR (the table of cores' `counter`:
    /// `cores::counter_erratum`).
    pub fn of(has: impl Fn(&str) -> bool, core: Option<Erratum>) -> Errata {
        let bits = Erratum::ALL
            .into_iter()
            .filter(|&e| match e.property() {
                Some(p) => has(p),
                None => core == Some(e),
            })
            .fold(0, |b, e| b | e.bit());
        Errata(bits)
    }

    /// The errata of one CPU: the machine's (`self`: its timer node's properties, the ACPI
    /// GTDT's OEM IDs) and `core`, the one its own core has by its MIDR (the table of cores:
    /// `cores::counter_erratum`). Linux decides the core errata per CPU (`arm_arch_timer.c`,
    /// `ate_match_local_cap_id`): on an S922X the A53s have none and the A73s 858921.
    pub fn with_core(self, core: Option<Erratum>) -> Errata {
        let bits = core
            .filter(|e| e.property().is_none())
            .map_or(0, Erratum::bit);
        Errata(self.0 | bits)
    }

    /// The errata Linux matches from the ACPI GTDT's header (`arm_arch_timer.c`,
    /// `hisi_161010101_oem_info`: OEM ID `HISI  ` with OEM table ID `HIP05   `, `HIP06   ` or
    /// `HIP07   `, OEM revision 0, trailing spaces included): HiSilicon 161010101 on a Hip05,
    /// Hip06 or Hip07 server booted with ACPI.
    pub fn of_gtdt(oem_id: &[u8], oem_table_id: &[u8], oem_revision: u32) -> Errata {
        let hisi = oem_id == b"HISI  "
            && matches!(oem_table_id, b"HIP05   " | b"HIP06   " | b"HIP07   ")
            && oem_revision == 0;
        Errata(if hisi {
            Erratum::Hisilicon161010101.bit()
        } else {
            0
        })
    }

    /// The set as one byte (bit `e as u8` for each erratum), for a static the firmware
    /// shares between cores.
    pub const fn bits(self) -> u8 {
        self.0
    }

    /// The set of [`Errata::bits`]; bits of no erratum are dropped.
    pub const fn from_bits(bits: u8) -> Errata {
        Errata(bits & 0b1111) // one bit per erratum of [`Erratum::ALL`]
    }

    /// Whether `e` is among them.
    pub const fn has(self, e: Erratum) -> bool {
        self.0 & e.bit() != 0
    }

    /// The errata, in [`Erratum::ALL`] order.
    pub fn iter(self) -> impl Iterator<Item = Erratum> + Clone {
        Erratum::ALL.into_iter().filter(move |&e| self.has(e))
    }

    /// Whether there are none.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }
}

/// One reading of the counter, by Linux's rule for the first of `errata` (SoCs have one at
/// most): `raw` reads CNTVCT_EL0 once. A bounded number of re-reads; when they run out the
/// last value is taken, as Linux does.
pub fn read(errata: Errata, mut raw: impl FnMut() -> u64) -> u64 {
    let Some(e) = errata.iter().next() else {
        return raw();
    };
    match e {
        Erratum::FslA008585 => reread(200, &mut raw, |old, new| old == new),
        Erratum::Hisilicon161010101 => {
            reread(50, &mut raw, |old, new| new.wrapping_sub(old) >> 5 == 0)
        }
        Erratum::AllwinnerUnknown1 => {
            let mut val = raw();
            for _ in 1..150 {
                if val.wrapping_add(1) & 0x1ff > 1 {
                    break;
                }
                val = raw();
            }
            val
        }
        Erratum::CortexA73_858921 => {
            let old = raw();
            let new = raw();
            if (old ^ new) >> 32 & 1 != 0 {
                old
            } else {
                new
            }
        }
    }
}

/// Reads pairs until `good(old, new)` or `tries` pairs were read; the last `new`.
fn reread(tries: u32, raw: &mut impl FnMut() -> u64, good: impl Fn(u64, u64) -> bool) -> u64 {
    let mut new = 0;
    for _ in 0..tries {
        let old = raw();
        new = raw();
        if good(old, new) {
            break;
        }
    }
    new
}

/// Successive reads [`step`] looks at.
pub const STEP_READS: usize = 64;

/// The counter's step: the smallest advance between successive reads that differ, where
/// some successive reads are equal (the reads are faster than the counter moves, so an
/// advance is one step: 1 on a counter that ticks at its rate; 62 under user-mode QEMU, whose
/// 62.5 MHz counter moves in microseconds). Where every read differs from the last, the
/// reads are slower than the counter's step (QEMU's TCG spends about 10 ticks on one), which
/// is finer than they can see: 1. `None` when the reads never moved.
pub fn step(reads: impl IntoIterator<Item = u64>) -> Option<u64> {
    let mut reads = reads.into_iter();
    let mut last = reads.next()?;
    let mut best: Option<u64> = None;
    let mut repeated = false;
    for r in reads {
        if r > last {
            let d = r.saturating_sub(last);
            best = Some(best.map_or(d, |b| b.min(d)));
        }
        repeated |= r == last;
        last = r;
    }
    best.map(|b| if repeated { b } else { 1 })
}

/// Why a timed sample was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dropped {
    /// The counter read after the timed loop was below the one before it.
    Backwards {
        /// The read before.
        t0: u64,
        /// The read after.
        t1: u64,
    },
    /// The sample's rate is beyond any core's: more than [`MAX_MBPS`].
    Impossible {
        /// Its rate, MB/s.
        mbps: u64,
    },
}

/// The fastest rate a sample may claim, MB/s (10^6 B/s): 1 TB/s, ten times what one core's
/// L1 delivers at 3 GHz with two 32-byte loads a cycle (≈190 GB/s). A counter that jumped
/// backwards inside a sample makes it claim more.
pub const MAX_MBPS: u64 = 1_000_000;

/// The ticks of a sample that read `t0` before and `t1` after moving `bytes` (loads and lines
/// counted as the bytes they touch) on a counter of `freq_hz`; the reason when it cannot be
/// true. A sample of 0 ticks is left to the callers' minimum-length rule.
pub fn sample(t0: u64, t1: u64, bytes: u64, freq_hz: u64) -> Result<u64, Dropped> {
    let ticks = t1.checked_sub(t0).ok_or(Dropped::Backwards { t0, t1 })?;
    if ticks == 0 {
        return Ok(0);
    }
    let per_s = u128::from(bytes).saturating_mul(u128::from(freq_hz));
    let mbps = crate::stats::div_rem(per_s, u128::from(ticks).saturating_mul(1_000_000))
        .map_or(u128::MAX, |(q, _)| q);
    match u64::try_from(mbps) {
        Ok(mbps) if mbps <= MAX_MBPS => Ok(ticks),
        Ok(mbps) => Err(Dropped::Impossible { mbps }),
        Err(_) => Err(Dropped::Impossible { mbps: u64::MAX }),
    }
}

impl Dropped {
    /// Its name in records: `backwards` or `impossible`.
    pub const fn name(self) -> &'static str {
        match self {
            Dropped::Backwards { .. } => "backwards",
            Dropped::Impossible { .. } => "impossible",
        }
    }
}

impl fmt::Display for Dropped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Dropped::Backwards { t0, t1 } => write!(
                f,
                "the counter went backwards ({t0} before, {t1} after): a counter erratum or a broken counter"
            ),
            Dropped::Impossible { mbps } => write!(
                f,
                "{mbps} MB/s is beyond any core (at most {MAX_MBPS} MB/s): the counter jumped"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use std::string::ToString;
    use std::vec::Vec;

    /// A fake counter: the values in turn, then the last one forever; counts the reads.
    struct Fake {
        values: Vec<u64>,
        reads: usize,
    }

    impl Fake {
        fn new(values: &[u64]) -> Self {
            Fake {
                values: values.to_vec(),
                reads: 0,
            }
        }
        fn read(&mut self) -> u64 {
            let v = self.values[self.reads.min(self.values.len() - 1)];
            self.reads += 1;
            v
        }
    }

    fn only(e: Erratum) -> Errata {
        Errata(e.bit())
    }

    #[test]
    fn hisilicon_161010101_from_the_gtdt_oem_ids() {
        for table in [b"HIP05   ", b"HIP06   ", b"HIP07   "] {
            assert_eq!(
                Errata::of_gtdt(b"HISI  ", table, 0)
                    .iter()
                    .collect::<Vec<_>>(),
                [Erratum::Hisilicon161010101]
            );
        }
        // Linux's match is exact: padding, revision and other parts count.
        assert!(Errata::of_gtdt(b"HISI  ", b"HIP07", 0).is_empty());
        assert!(Errata::of_gtdt(b"HISI", b"HIP07   ", 0).is_empty());
        assert!(Errata::of_gtdt(b"HISI  ", b"HIP07   ", 1).is_empty());
        assert!(Errata::of_gtdt(b"HISI  ", b"HIP08   ", 0).is_empty());
        assert!(Errata::of_gtdt(b"BOCHS ", b"BXPC    ", 1).is_empty());
    }

    #[test]
    fn no_erratum_reads_once() {
        let mut c = Fake::new(&[5, 6]);
        assert_eq!(read(Errata::NONE, || c.read()), 5);
        assert_eq!(c.reads, 1);
    }

    #[test]
    fn fsl_reads_until_two_agree() {
        let mut c = Fake::new(&[10, 99, 12, 12]);
        assert_eq!(read(only(Erratum::FslA008585), || c.read()), 12);
        assert_eq!(c.reads, 4);
        // Never agreeing: 200 pairs, then the last value.
        let mut n = 0u64;
        let v = read(only(Erratum::FslA008585), || {
            n += 1;
            n
        });
        assert_eq!((v, n), (400, 400));
    }

    #[test]
    fn hisilicon_reads_until_close() {
        // 100 then 140: 40 apart (>> 5 != 0); 141 then 150: 9 apart.
        let mut c = Fake::new(&[100, 140, 141, 150]);
        assert_eq!(read(only(Erratum::Hisilicon161010101), || c.read()), 150);
        assert_eq!(c.reads, 4);
    }

    #[test]
    fn allwinner_skips_the_rollover_values() {
        // Low 9 bits all ones, then all zeros, then a good value.
        let mut c = Fake::new(&[0x7ff, 0x800, 0x801]);
        assert_eq!(read(only(Erratum::AllwinnerUnknown1), || c.read()), 0x801);
        assert_eq!(c.reads, 3);
        let mut c = Fake::new(&[0x1234]);
        assert_eq!(read(only(Erratum::AllwinnerUnknown1), || c.read()), 0x1234);
        assert_eq!(c.reads, 1);
        // Stuck on a bad value: 150 reads at most.
        let mut c = Fake::new(&[0x200]);
        assert_eq!(read(only(Erratum::AllwinnerUnknown1), || c.read()), 0x200);
        assert_eq!(c.reads, 150);
    }

    #[test]
    fn a73_takes_the_first_read_across_bit_32() {
        let mut c = Fake::new(&[0xffff_fff0, 0x1_0000_0010]);
        assert_eq!(
            read(only(Erratum::CortexA73_858921), || c.read()),
            0xffff_fff0
        );
        let mut c = Fake::new(&[0x1_0000_0010, 0x1_0000_0011]);
        assert_eq!(
            read(only(Erratum::CortexA73_858921), || c.read()),
            0x1_0000_0011
        );
    }

    #[test]
    fn the_counters_step() {
        assert_eq!(step([10, 10, 11, 12, 12, 13]), Some(1));
        // User-mode QEMU: 62.5 MHz claimed, microsecond steps.
        assert_eq!(step([1000, 1000, 1062, 1062, 1125, 1187]), Some(62));
        // QEMU's TCG: every read about 10 ticks after the last, never equal: reads slower
        // than the counter, which is finer than they see.
        assert_eq!(step([100, 110, 119, 130, 140]), Some(1));
        assert_eq!(step([7, 7, 7]), None);
        assert_eq!(step([]), None);
        // A backwards jump is not a step.
        assert_eq!(step([5000, 5000, 2952, 2953]), Some(1));
    }

    #[test]
    fn samples_that_cannot_be_true_are_dropped_and_named() {
        // 1 MiB in 1000 ticks of 62.5 MHz: 65,536 MB/s.
        assert_eq!(sample(5_000, 6_000, 1 << 20, 62_500_000), Ok(1000));
        let back = sample(6_000, 5_000, 1 << 20, 62_500_000);
        assert_eq!(back, Err(Dropped::Backwards { t0: 6000, t1: 5000 }));
        assert_eq!(back.unwrap_err().name(), "backwards");
        assert!(back
            .unwrap_err()
            .to_string()
            .starts_with("the counter went backwards (6000 before, 5000 after)"));
        // A forward sample shortened by a 2048-tick backwards jump inside it: 64 MiB in 2 ticks.
        let fast = sample(0, 2, 64 << 20, 24_000_000).unwrap_err();
        assert_eq!(fast.name(), "impossible");
        assert_eq!(fast, Dropped::Impossible { mbps: 805_306_368 });
        assert_eq!(sample(9, 9, 1 << 20, 62_500_000), Ok(0));
        assert!(sample(0, 1, u64::MAX, u64::MAX).is_err());
    }
}
