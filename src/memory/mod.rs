//! The heart of mairbench: one physical test buffer mapped once per memory type, with the
//! firmware's own translation tables, proven on every run.
//!
//! Virtual layout (TTBR0 only, 4 KiB granule): the image, its console and its device tree are
//! identity-mapped (VA = PA); the buffer's aliases live in the upper half of the VA space at
//! 1 GiB-aligned addresses: one per memory type made of 4 KiB pages, then one per memory type
//! made of 2 MiB blocks (the latency chase runs on those: over MiBs of 4 KiB pages it would
//! time page walks, not memory).
//!
//! - [`layout`]: what is mapped where;
//! - [`setup`]: places the buffer, builds the tables, turns the MMU on;
//! - [`report`]: the memory map as the report shows it;
//! - [`proof`]: `AT S1E1R` on every alias, judged by `mairbench_core::proof`;
//! - [`coherence`]: data written through each alias read back through every other;
//! - [`faults`]: the faults the memory map promises, and the Device-memory probes;
//! - [`maintenance`]: what `DC CVAC` and `DC IVAC` do, for the `maintenance` verdict.

pub mod coherence;
pub mod faults;
pub mod layout;
pub mod maintenance;
pub mod proof;
pub mod report;
pub mod setup;

use crate::arch::buffer::Window;
use crate::arch::image::ImageLayout;
use crate::arch::MEMTYPES;
use mairbench_core::memtype::{Class, MemType};
use mairbench_core::paging::{Granule, Layout};
use mairbench_core::placement::Placement;
use mairbench_core::platform::MemRegion;

/// Buffer aliases: one of 4 KiB pages per memory type, then one of 2 MiB blocks per type.
pub const ALIASES: usize = 2 * MEMTYPES.len();

/// One alias of the test buffer.
#[derive(Clone, Copy, Debug)]
pub struct Alias {
    /// The memory type it claims.
    pub memtype: &'static MemType,
    /// The whole buffer through this alias.
    pub whole: Window,
    /// Page or block mapping.
    pub granule: Granule,
    /// The MAIR index written into its descriptors (differs from the type's own index only
    /// under `mairbench.selftest=bad-attr`).
    pub attr_index: u8,
}

impl Alias {
    /// Its virtual base address.
    pub fn va(&self) -> u64 {
        self.whole.va()
    }

    /// The part `[offset, offset+len)` of the buffer through this alias, if it lies inside.
    pub fn window(&self, offset: u64, len: u64) -> Option<Window> {
        self.whole.part(offset, len)
    }

    /// Whether its memory type may be cached (so maintenance by VA matters).
    pub fn cacheable(&self) -> bool {
        matches!(self.memtype.class(), Class::Normal { cacheable: true })
    }

    /// Cleans and invalidates `w` to the point of coherency when this alias is cacheable.
    pub fn maintain(&self, w: &Window) {
        if self.cacheable() {
            w.clean_invalidate();
        }
    }
}

/// The result of [`setup`]: what is mapped where.
pub struct Memory {
    /// The physical test buffer.
    pub buffer: Placement,
    /// Page aliases, one per memory type in table order, then block aliases in the same
    /// order.
    pub aliases: [Alias; ALIASES],
    /// Where the image lives.
    pub image: ImageLayout,
    ram: MemRegion,
    layout: Layout,
    tables_used: usize,
    tables_total: usize,
    regions: layout::IdentityMap,
    unmapped_va: u64,
    /// What the device tree reserves: shown in the memory map, never mapped.
    reserved: mairbench_core::reserved::Reserved<'static>,
}

impl Memory {
    /// The page aliases, one per memory type in table order.
    pub fn pages(&self) -> &[Alias] {
        &self.aliases[..MEMTYPES.len()]
    }

    /// The 2 MiB-block aliases, one per memory type in table order.
    pub fn blocks(&self) -> &[Alias] {
        &self.aliases[MEMTYPES.len()..]
    }

    /// The aliases of `granule`, one per memory type in table order.
    pub fn of_granule(&self, granule: Granule) -> &[Alias] {
        match granule {
            Granule::Page => self.pages(),
            Granule::Block => self.blocks(),
        }
    }

    /// The `normal-wb` page alias, through which data is laid and checked.
    pub fn wb(&self) -> &Alias {
        &self.aliases[mairbench_core::memtype::NORMAL_WB]
    }
}
