//! Pure logic of mairbench, shared by the firmware and the host tools: no `asm!`, no
//! `unsafe`, unit-tested on the host.
#![no_std]
#![deny(missing_docs)]
#![forbid(unsafe_code)]
// Bad input must never panic the firmware: no indexing, unwrapping or overflowing arithmetic
// outside tests.
#![cfg_attr(
    not(test),
    deny(
        clippy::indexing_slicing,
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::arithmetic_side_effects
    )
)]

/// Asserts at compile time that every row of `$table` holds its own position in `$field` (an
/// enum value or a slot number), so that `$table[x as usize]` is row `x`: a slip is a build
/// error, never a panic.
macro_rules! assert_in_order {
    ($table:ident . $field:ident) => {
        #[allow(
            clippy::indexing_slicing,
            clippy::panic,
            clippy::arithmetic_side_effects
        )]
        const _: () = {
            let mut i = 0;
            while i < $table.len() {
                assert!($table[i].$field as usize == i);
                i += 1;
            }
        };
    };
}
pub(crate) use assert_in_order;

pub mod acpi;
pub mod arch;
pub mod bootargs;
pub mod cache;
pub mod cores;
pub mod counter;
pub mod counter_offset;
pub mod counter_rate;
pub mod diagnosis;
pub mod emulation;
pub mod esr;
pub mod fb;
pub mod fdt;
pub mod format;
pub mod hypervisor;
pub mod kernel;
pub mod memtype;
pub mod paging;
pub mod pattern;
pub mod pl310;
pub mod placement;
pub mod platform;
pub mod pmu;
pub mod problems;
pub mod proof;
pub mod psci;
pub mod random;
pub mod record;
pub mod reserved;
pub mod results;
pub mod schema;
pub mod source;
pub mod stats;
pub mod sweep;
pub mod system_cache;
pub mod text;
pub mod topology;
pub mod uart;
pub mod uefi;
pub mod verdict;
