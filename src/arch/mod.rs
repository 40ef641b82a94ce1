//! Everything specific to an architecture, one folder each: `aarch64/` today; 32-bit Arm
//! (`armv7/`, issue 32) is to sit beside it with the same items, so that the firmware's
//! generic phases name `crate::arch::...` and never the architecture. All `unsafe` code of
//! the firmware lives below this module.

#[cfg(target_arch = "aarch64")]
mod aarch64;
#[cfg(target_arch = "aarch64")]
pub use aarch64::*;
