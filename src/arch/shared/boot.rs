//! What the entry code hands to the run ([`Boot`]) and what it promised, as the run checks
//! it: whether PSCI may be called from EL1, SError unmasked, the caches cleaned at entry.

use super::cpu::{ccsidr, clidr};
pub use super::cpu::{el2_traps_zeroed, serror_unmasked};
use super::fb::Canvas;
use super::mmio::Device;
use super::uefi;
use mairbench_core::fb::{Framebuffer, Problem};
use mairbench_core::platform::PsciConduit;

/// What `boot/aarch64/entry.S` hands to Rust, at EL1 with the MMU off, on the main stack.
#[derive(Clone, Copy, Debug)]
pub struct Boot {
    /// The console's UART, where the firmware may write to it (the device tree's or ACPI's
    /// console, or QEMU virt's PL011 where the machine is QEMU's); `None`: stay silent.
    pub console: Option<Device>,
    /// x0 at entry: the device tree's address from the boot loader (0 when none).
    pub dtb_arg: usize,
    /// The exception level the image was entered at.
    pub entry_el: u64,
    /// Where the image runs.
    pub image_base: usize,
    /// Relocations of a type the entry code does not apply.
    pub bad_relocs: u64,
    /// SCTLR_ELx at entry (MMU and cache bits, before they were turned off).
    pub entry_sctlr: u64,
    /// `DC CISW` operations the entry code issued to clean the caches (0 when they were off).
    pub setway_ops: u64,
    /// CNTFRQ_EL0 as programmed at EL3 from the device tree, when it read 0 there.
    pub cntfrq_programmed: Option<u64>,
    /// CNTVCT_EL0 when Rust started.
    pub start_ticks: u64,
    /// What the UEFI stage left, when the image was started as a UEFI application.
    pub uefi: Option<uefi::Handoff>,
    /// The framebuffer UEFI's GOP or the device tree describes, with its canvas (`None`:
    /// none described), or why it cannot be drawn on.
    pub fb: Option<Result<(Framebuffer, Canvas), Problem<'static>>>,
}

/// Whether PSCI may be called from EL1, and over which conduit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Psci {
    /// The device tree names no conduit.
    Absent,
    /// The device tree's conduit reaches PSCI firmware at a higher EL than the entry EL.
    Usable(PsciConduit),
    /// The device tree's conduit lands in an EL the firmware has left (HVC in EL2, SMC in
    /// EL3): its vectors are the boot loader's, or nobody's. Never called.
    Unusable(PsciConduit),
}

impl Psci {
    /// The conduit to call, if any.
    pub fn usable(self) -> Option<PsciConduit> {
        match self {
            Psci::Usable(conduit) => Some(conduit),
            Psci::Absent | Psci::Unusable(..) => None,
        }
    }
}

/// Decides whether the device tree's PSCI conduit (`dtb`) may be called from EL1, having been
/// entered at `entry_el`: HVC lands in EL2, so only when entered at EL1 (a hypervisor or
/// QEMU's built-in PSCI there); SMC lands in EL3, so only when entered below it.
pub fn psci_conduit(dtb: Option<PsciConduit>, entry_el: u64) -> Psci {
    match dtb {
        None => Psci::Absent,
        Some(PsciConduit::Hvc) if entry_el >= 2 => Psci::Unusable(PsciConduit::Hvc),
        Some(PsciConduit::Smc) if entry_el >= 3 => Psci::Unusable(PsciConduit::Smc),
        Some(conduit) => Psci::Usable(conduit),
    }
}

/// The `DC CISW` operations a clean of every data or unified cache level below CLIDR_EL1.LoC
/// takes (sets x ways per level, CCSIDR_EL1 decoded by `mairbench_core::cache`), and whether
/// CCSIDR_EL1 has the FEAT_CCIDX layout: what the entry code must have issued when it was
/// entered with the caches on.
pub fn setway_ops_expected() -> (u64, bool) {
    use mairbench_core::cache::{decode_ccsidr, level_of_coherence, CacheType};
    let clidr = clidr();
    let mut ops = 0u64;
    let mut ccidx = false;
    for level in 0..level_of_coherence(clidr) {
        let ctype = (clidr >> (3 * u64::from(level))) & 7;
        if ctype < 2 {
            continue;
        }
        let (value, is_ccidx) = ccsidr(level, false);
        ccidx = is_ccidx;
        let kind = CacheType::from_ctype(ctype).unwrap_or(CacheType::Unified);
        let geometry = decode_ccsidr(level + 1, kind, value, is_ccidx);
        ops += u64::from(geometry.ways) * u64::from(geometry.sets);
    }
    (ops, ccidx)
}

/// The SMCCC vendor-specific hypervisor service's UID (w0..w3), asked over HVC only where a
/// hypervisor answers it as Linux's `kvm_init_hyp_services` expects: PSCI's conduit is HVC
/// and usable, PSCI is 1.0 or later, PSCI_FEATURES says SMCCC_VERSION exists and it says
/// 1.1 or later (an unknown function then answers NOT_SUPPORTED). QEMU's own PSCI at EL1
/// stops at PSCI_FEATURES. `None` when any step says no, or an HVC took an exception.
pub fn hypervisor_uid(psci: Psci) -> Option<[u32; 4]> {
    use smccc::{arch, psci as p, Hvc};
    if psci.usable() != Some(PsciConduit::Hvc) {
        return None;
    }
    let ask = || -> Option<[u32; 4]> {
        let v = p::version::<Hvc>().ok()?;
        if v.major < 1 {
            return None;
        }
        p::psci_features::<Hvc>(arch::SMCCC_VERSION).ok()?;
        let smccc = arch::version::<Hvc>().ok()?;
        if (smccc.major, smccc.minor) < (1, 1) {
            return None;
        }
        let r =
            <Hvc as smccc::Call>::call32(mairbench_core::hypervisor::VENDOR_HYP_CALL_UID, [0; 7]);
        Some([r[0], r[1], r[2], r[3]])
    };
    // SAFETY: each HVC is the only instruction of the calls that may take an exception (the
    // conduit was checked usable: it lands in a hypervisor or PSCI firmware at EL2); a caught
    // one leaves the results unused.
    unsafe { super::exceptions::probe(ask) }.ok().flatten()
}
