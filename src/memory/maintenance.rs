//! The maintenance experiment of the `maintenance` verdict: what `DC CVAC` and `DC IVAC` by
//! virtual address do to one small range seen through `normal-wb` and `normal-nc`.

use super::layout::KIB;
use super::Memory;
use crate::arch::barrier::dsb_sy;
use crate::arch::kernels::Loop;
use crate::console::Console;
use crate::say;
use mairbench_core::arch_name;
use mairbench_core::memtype::{self, Role};
use mairbench_core::verdict::Maintenance;

/// The range: small enough to stay in any L1 data cache between the steps.
const RANGE: u64 = 4 * KIB;

impl Memory {
    /// (1) data A written through normal-wb and cleaned with `DC CVAC` (and, on a 32-bit
    /// board with an enabled L2C-310, its lines by physical address) must read back as A
    /// through normal-nc; (2) data B written through normal-nc, read through normal-wb without
    /// maintenance (silicon still holds the clean line of A; an emulator reads B); (3) `DC
    /// IVAC` through normal-wb, which must then read B. `None` when the run has no
    /// normal-nc alias or the range does not fit. Not inlined into `main` (see
    /// `Start::report`).
    #[inline(never)]
    pub fn maintenance(&self) -> Option<Maintenance> {
        let nc_index = memtype::position(Role::NonCacheable)?;
        let wb = self.wb().window(0, RANGE)?;
        let nc = self.pages().get(nc_index)?.window(0, RANGE)?;
        let a = |off: u64| off ^ 0xa5a5_0000_0000_5a5a;
        let b = |off: u64| off ^ 0x0b0b_0000_0000_b0b0;

        wb.clean_invalidate();
        // Loads first, so that the stores hit allocated lines: full-line write misses alone
        // may stream past the cache without allocating (the Cortex-A53's read allocate mode,
        // the A76's write streaming), and the experiment would test no held line.
        let _ = wb.mismatches(a);
        wb.fill(a);
        Loop::cvac(&wb)?.run();
        wb.clean_outer();
        let cleaned_visible = nc.mismatches(a).0 == 0;

        nc.fill(b);
        // The Non-cacheable stores complete before normal-wb reads the range, and before the
        // invalidate below (maintenance by VA may otherwise pass them).
        dsb_sy();
        let stale = wb.mismatches(a).0 == 0;
        wb.invalidate();
        let dropped = wb.mismatches(b).0 == 0;
        wb.clean_invalidate();
        say!(
            concat!(
                "maintenance: ",
                arch_name!(dc_cvac),
                " through normal-wb {} visible through normal-nc; normal-wb then read {} after \
                 a normal-nc write; ",
                arch_name!(dc_ivac),
                " {} ({} KiB)"
            ),
            if cleaned_visible {
                "made data"
            } else {
                "did NOT make data"
            },
            if stale {
                "its stale clean line"
            } else {
                "the new data (no line held)"
            },
            if dropped {
                "dropped the line: normal-wb reads the new data"
            } else {
                "did NOT drop the line"
            },
            RANGE / KIB
        );
        let m = Maintenance {
            cleaned_visible,
            stale_before_invalidate: Some(stale),
            invalidate_dropped: Some(dropped),
        };
        let _ = m.record(RANGE, &mut Console);
        Some(m)
    }
}
