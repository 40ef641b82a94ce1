//! Everything specific to an architecture, one folder each: `aarch64/` and `armv7/` (32-bit
//! Arm), with the same items, so that the firmware's generic phases name `crate::arch::...`
//! and never the architecture. `shared/` holds the code both use unchanged (each
//! architecture's folder includes it, and its `super::` names that architecture's modules).
//! All `unsafe` code of the firmware lives below this module.

#[cfg(target_arch = "aarch64")]
mod aarch64;
#[cfg(target_arch = "aarch64")]
pub use aarch64::*;
#[cfg(target_arch = "arm")]
mod armv7;
#[cfg(target_arch = "arm")]
pub use armv7::*;
