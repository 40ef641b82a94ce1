//! No UEFI entry in the 32-bit image: a 32-bit board boots it through U-Boot's `bootz` or
//! `bootm`, or QEMU's `-kernel`. [`Handoff`] has the AArch64 image's fields so that the
//! generic code reads the same, and no value, so that the code describing a UEFI hand-off is
//! never reached here.

use mairbench_core::uefi::{MemoryMap, OptionsNote, Tables};

/// A type without values.
#[derive(Clone, Copy, Debug)]
enum Never {}

/// What a UEFI stage would hand to the normal boot path: never made on 32-bit Arm.
#[derive(Clone, Copy, Debug)]
pub struct Handoff {
    /// What the configuration tables offered.
    pub tables: Tables,
    /// What was odd about the load options.
    pub options_note: Option<OptionsNote>,
    /// `ExitBootServices()` calls it took.
    pub exit_tries: u32,
    /// `SetWatchdogTimer(0, ...)` succeeded.
    pub watchdog_off: bool,
    never: Never,
}

impl Handoff {
    /// The bootargs from the load options.
    pub fn bootargs(&self) -> &'static str {
        match self.never {}
    }

    /// The memory map the firmware left at ExitBootServices.
    pub fn memory_map(&self) -> MemoryMap {
        match self.never {}
    }
}
