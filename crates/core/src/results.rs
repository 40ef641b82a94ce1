//! What a run keeps of its measurements for the verdicts: per kernel, memory type, granule and
//! sweep size the best value in the kernel's table unit, and per kernel, memory type and size
//! the PMU event counts per 64-byte line of that point. Fixed size (no allocation): about
//! 70 KiB, so the firmware keeps it in a static, not on a stack.

use crate::kernel::{Kernel, KERNELS};
use crate::memtype::MEMTYPES;
use crate::paging::Granule;
use crate::pmu::EVENTS;
use crate::sweep::{Sizes, MAX_SIZES};
use crate::verdict::Sweep;

const GRANULES: usize = 2;

/// The measured points of one run (see the module documentation). All zero is empty, so a
/// static of it costs no image bytes.
#[derive(Clone, Debug)]
pub struct Results {
    sizes: Sizes,
    /// Best value + 1 (0: none), saturated at `u32::MAX`.
    best: [[[[u32; MAX_SIZES]; GRANULES]; MEMTYPES.len()]; KERNELS.len()],
    /// Count per line in hundredths + 1 (0: not counted), saturated at `u16::MAX`.
    pmu: [[[[u16; EVENTS.len()]; MAX_SIZES]; MEMTYPES.len()]; KERNELS.len()],
}

impl Default for Results {
    fn default() -> Self {
        Self::new()
    }
}

fn granule_index(g: Granule) -> usize {
    match g {
        Granule::Page => 0,
        Granule::Block => 1,
    }
}

impl Results {
    /// No points.
    pub const fn new() -> Self {
        Results {
            sizes: Sizes::new(),
            best: [[[[0; MAX_SIZES]; GRANULES]; MEMTYPES.len()]; KERNELS.len()],
            pmu: [[[[0; EVENTS.len()]; MAX_SIZES]; MEMTYPES.len()]; KERNELS.len()],
        }
    }

    /// Forgets every point and sets the sweep's sizes.
    pub fn reset(&mut self, sizes: Sizes) {
        // In place: a whole new value would be built on the stack first.
        self.sizes = sizes;
        self.best
            .iter_mut()
            .flatten()
            .flatten()
            .for_each(|c| c.fill(0));
        self.pmu
            .iter_mut()
            .flatten()
            .flatten()
            .for_each(|c| c.fill(0));
    }

    /// The sweep's sizes.
    pub fn columns(&self) -> &Sizes {
        &self.sizes
    }

    /// Adds `size` to the sweep, past its largest (its points are none yet); returns whether
    /// it was added (larger than the largest, and a column free).
    pub fn add_size(&mut self, size: u64) -> bool {
        // The cells past the sizes stay empty from the last reset.
        self.sizes.push(size)
    }

    fn column(&self, size: u64) -> Option<usize> {
        self.sizes.as_slice().iter().position(|&s| s == size)
    }

    /// Keeps a point's best value (in the kernel's table unit) and its PMU counts per line
    /// (`(event name, hundredths, places)` as [`crate::pmu::Choice::per_line`] yields them;
    /// other names and places are ignored). A size outside the sweep or a memory type
    /// index outside the table is ignored (returns `false`).
    pub fn put<'e>(
        &mut self,
        kernel: Kernel,
        memtype: usize,
        granule: Granule,
        size: u64,
        best: u64,
        pmu: impl IntoIterator<Item = (&'e str, u64, u8)>,
    ) -> bool {
        let (Some(col), k) = (self.column(size), kernel as usize) else {
            return false;
        };
        let g = granule_index(granule);
        let Some(cell) = self
            .best
            .get_mut(k)
            .and_then(|t| t.get_mut(memtype))
            .and_then(|t| t.get_mut(g))
            .and_then(|t| t.get_mut(col))
        else {
            return false;
        };
        *cell = u32::try_from(best.saturating_add(1)).unwrap_or(u32::MAX);
        if let Some(counts) = self
            .pmu
            .get_mut(k)
            .and_then(|t| t.get_mut(memtype))
            .and_then(|t| t.get_mut(col))
        {
            for (name, hundredths, places) in pmu {
                let slot = crate::pmu::index(name);
                if let (Some(c), 2) = (slot.and_then(|i| counts.get_mut(i)), places) {
                    *c = u16::try_from(hundredths.saturating_add(1)).unwrap_or(u16::MAX);
                }
            }
        }
        true
    }
}

impl Sweep for Results {
    fn sizes(&self) -> &[u64] {
        self.sizes.as_slice()
    }

    fn best(&self, kernel: Kernel, memtype: usize, granule: Granule, size: u64) -> Option<u64> {
        let col = self.column(size)?;
        let v = *self
            .best
            .get(kernel as usize)?
            .get(memtype)?
            .get(granule_index(granule))?
            .get(col)?;
        // A saturated value is not a measurement the verdicts can trust.
        (v != u32::MAX)
            .then(|| v.checked_sub(1))
            .flatten()
            .map(u64::from)
    }

    fn pmu(&self, kernel: Kernel, memtype: usize, size: u64, event: &str) -> Option<u64> {
        let col = self.column(size)?;
        let i = crate::pmu::index(event)?;
        let v = *self
            .pmu
            .get(kernel as usize)?
            .get(memtype)?
            .get(col)?
            .get(i)?;
        (v != u16::MAX)
            .then(|| v.checked_sub(1))
            .flatten()
            .map(u64::from)
    }
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::*;
    use crate::memtype::NORMAL_WB;
    const NORMAL_NC: usize = 3;
    use std::boxed::Box;

    fn sizes(lo: u64, hi: u64) -> Sizes {
        crate::sweep::plan(lo, hi, 1 << 30)
    }

    #[test]
    fn keeps_points_apart() {
        let mut r = Box::new(Results::new());
        r.reset(sizes(4096, 8192));
        assert!(r.put(
            Kernel::ReadLdp,
            NORMAL_WB,
            Granule::Page,
            4096,
            12_000,
            [
                ("l1d_cache_refill", 3, 2),
                ("bus_access", 100, 2),
                ("nope", 1, 2)
            ]
        ));
        assert!(r.put(Kernel::ReadLdp, NORMAL_WB, Granule::Block, 4096, 0, []));
        assert_eq!(
            r.best(Kernel::ReadLdp, NORMAL_WB, Granule::Page, 4096),
            Some(12_000)
        );
        assert_eq!(
            r.best(Kernel::ReadLdp, NORMAL_WB, Granule::Block, 4096),
            Some(0)
        );
        assert_eq!(
            r.best(Kernel::ReadLdp, NORMAL_NC, Granule::Page, 4096),
            None
        );
        assert_eq!(
            r.best(Kernel::ReadLdp, NORMAL_WB, Granule::Page, 8192),
            None
        );
        assert_eq!(
            r.best(Kernel::WriteStp, NORMAL_WB, Granule::Page, 4096),
            None
        );
        assert_eq!(
            r.pmu(Kernel::ReadLdp, NORMAL_WB, 4096, "l1d_cache_refill"),
            Some(3)
        );
        assert_eq!(
            r.pmu(Kernel::ReadLdp, NORMAL_WB, 4096, "bus_access"),
            Some(100)
        );
        assert_eq!(r.pmu(Kernel::ReadLdp, NORMAL_WB, 4096, "l1d_cache"), None);
        assert_eq!(r.pmu(Kernel::ReadLdp, NORMAL_WB, 4096, "nope"), None);
        assert_eq!(r.sizes(), &[4096, 8192]);
    }

    #[test]
    fn out_of_range_is_ignored_and_saturation_is_no_value() {
        let mut r = Box::new(Results::new());
        r.reset(sizes(4096, 4096));
        assert!(!r.put(Kernel::ReadLdp, NORMAL_WB, Granule::Page, 12345, 1, []));
        assert!(!r.put(Kernel::ReadLdp, MEMTYPES.len(), Granule::Page, 4096, 1, []));
        assert!(r.put(
            Kernel::ReadLdp,
            NORMAL_WB,
            Granule::Page,
            4096,
            u64::MAX,
            [("bus_access", u64::MAX, 2), ("l1d_cache", 5, 3)]
        ));
        assert_eq!(
            r.best(Kernel::ReadLdp, NORMAL_WB, Granule::Page, 4096),
            None
        );
        assert_eq!(r.pmu(Kernel::ReadLdp, NORMAL_WB, 4096, "bus_access"), None);
        assert_eq!(r.pmu(Kernel::ReadLdp, NORMAL_WB, 4096, "l1d_cache"), None);
        r.reset(sizes(8192, 8192));
        assert_eq!(
            r.best(Kernel::ReadLdp, NORMAL_WB, Granule::Page, 4096),
            None
        );
    }

    #[test]
    fn sizes_added_past_the_sweep_start_empty() {
        let mut r = Box::new(Results::new());
        r.reset(sizes(4096, 1 << 30));
        assert!(r.put(Kernel::Latency, NORMAL_WB, Granule::Block, 1 << 30, 5, []));
        r.reset(sizes(4096, 8192));
        assert!(!r.add_size(8192));
        assert!(r.add_size(1 << 30));
        assert_eq!(r.columns().as_slice(), &[4096, 8192, 1 << 30]);
        // The column the earlier sweep used is empty again.
        assert_eq!(
            r.best(Kernel::Latency, NORMAL_WB, Granule::Block, 1 << 30),
            None
        );
        assert!(r.put(Kernel::Latency, NORMAL_WB, Granule::Block, 1 << 30, 7, []));
        assert_eq!(
            r.best(Kernel::Latency, NORMAL_WB, Granule::Block, 1 << 30),
            Some(7)
        );
    }
}
