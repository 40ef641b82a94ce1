//! Pure logic of mairbench, shared by the firmware and the host tools: no `asm!`, no
//! `unsafe`, unit-tested on the host.
#![no_std]
#![deny(missing_docs)]
#![forbid(unsafe_code)]

pub mod bootargs;
pub mod esr;
pub mod fdt;
pub mod format;
pub mod memtype;
pub mod paging;
pub mod placement;
pub mod platform;
pub mod record;
pub mod uart;
