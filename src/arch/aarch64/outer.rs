//! Outer caches: none on AArch64. Armv8-A's maintenance by VA to the point of coherency
//! reaches every cache before it, and Linux's arm64 code has no outer-cache interface (the
//! `outer_cache` operations of arch/arm/include/asm/outercache.h exist for 32-bit Arm only),
//! so there is no controller to map or maintain by physical address (the 32-bit image's
//! `outer` drives an L2C-310).

/// The identity map's region for an outer cache controller: none.
pub fn device(_dtb: Option<&[u8]>) -> Option<(&'static str, u64)> {
    None
}
