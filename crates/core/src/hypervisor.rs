//! Whether the firmware runs in a guest, and whose: a hypervisor's stage 2 can override the
//! memory types the firmware asks for (with FEAT_S2FWB, Linux's KVM maps guest memory
//! `MT_S2_FWB_NORMAL`: "Stage-2 enforces Normal-WB"), so that non-cacheable and
//! write-through aliases behave as write-back for a reason the board owner cannot change.
//!
//! What tells, none of it conclusive alone:
//! - the SMCCC vendor-specific hypervisor service's UID (function `0x8600ff01`, issued over
//!   HVC where PSCI's conduit is HVC and SMCCC is 1.1 or later, as Linux's
//!   `kvm_init_hyp_services` does): KVM answers with its UUID
//!   28b46fb6-2ec5-11e9-a9ca-4b564d003a74 (`ARM_SMCCC_VENDOR_HYP_UID_KVM_REG_0..3`);
//! - a device tree `/hypervisor` node (Xen's `xen,xen`);
//! - an ACPI FADT whose Hypervisor Vendor Identity (ACPI 6.0, offset 268) is not zero.
//!
//! Entry at EL1 with an HVC conduit says only that something runs at EL2 (QEMU's own PSCI
//! looks the same without one), so alone it is no guest.

/// SMCCC function ID of the vendor-specific hypervisor service's UID query
/// (`ARM_SMCCC_VENDOR_HYP_CALL_UID_FUNC_ID`).
pub const VENDOR_HYP_CALL_UID: u32 = 0x8600_ff01;

/// The UID KVM returns in w0..w3 (`ARM_SMCCC_VENDOR_HYP_UID_KVM_REG_0..3`).
pub const KVM_UID: [u32; 4] = [0xb66f_b428, 0xe911_c52e, 0x564b_caa9, 0x743a_004d];

/// SMCCC's "not supported" (-1 in w0).
const NOT_SUPPORTED: u32 = 0xffff_ffff;

/// Whose guest the firmware runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hypervisor {
    /// KVM (its SMCCC UID).
    Kvm,
    /// Xen (a `/hypervisor` node compatible `xen,xen`).
    Xen,
    /// A hypervisor that names itself otherwise: another SMCCC UID, another `/hypervisor`
    /// node, or the ACPI FADT's vendor identity.
    Other,
}

impl Hypervisor {
    /// Its name in the `start` record's `hypervisor`: `kvm`, `xen` or `other`.
    pub const fn name(self) -> &'static str {
        match self {
            Hypervisor::Kvm => "kvm",
            Hypervisor::Xen => "xen",
            Hypervisor::Other => "other",
        }
    }
}

/// What the firmware read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Marks<'a> {
    /// w0..w3 of the vendor hypervisor UID call, when it was issued.
    pub uid: Option<[u32; 4]>,
    /// The `compatible` strings of the device tree's `/hypervisor` node (NUL-separated), when
    /// there is one.
    pub dt_hypervisor: Option<&'a [u8]>,
    /// The ACPI FADT's Hypervisor Vendor Identity, when the FADT has one.
    pub acpi_vendor: Option<u64>,
}

/// The hypervisor the marks name, if any: the UID first (it answers for the hypervisor
/// actually running), then the device tree, then ACPI.
pub fn detect(m: &Marks<'_>) -> Option<Hypervisor> {
    match m.uid {
        Some(KVM_UID) => return Some(Hypervisor::Kvm),
        Some([w0, ..]) if w0 != NOT_SUPPORTED => return Some(Hypervisor::Other),
        _ => {}
    }
    if let Some(c) = m.dt_hypervisor {
        let xen = c.split(|&b| b == 0).any(|s| s == b"xen,xen");
        return Some(if xen {
            Hypervisor::Xen
        } else {
            Hypervisor::Other
        });
    }
    m.acpi_vendor.filter(|&v| v != 0).map(|_| Hypervisor::Other)
}

/// What a hypervisor may do to the memory types a guest asks for, said once for the console
/// and the verdicts.
pub const STAGE2_OVERRIDES: &str = "stage 2 may override the memory type (with FEAT_S2FWB \
                                     Linux's KVM maps guest memory Normal write-back)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kvm_by_its_uid() {
        let m = Marks {
            uid: Some(KVM_UID),
            ..Marks::default()
        };
        assert_eq!(detect(&m), Some(Hypervisor::Kvm));
        assert_eq!(Hypervisor::Kvm.name(), "kvm");
    }

    #[test]
    fn not_supported_is_no_guest() {
        // QEMU's PSCI at EL1, or a hypervisor without the service, answers -1.
        let m = Marks {
            uid: Some([NOT_SUPPORTED, 0, 0, 0]),
            ..Marks::default()
        };
        assert_eq!(detect(&m), None);
        assert_eq!(detect(&Marks::default()), None);
    }

    #[test]
    fn other_marks() {
        let m = Marks {
            uid: Some([1, 2, 3, 4]),
            ..Marks::default()
        };
        assert_eq!(detect(&m), Some(Hypervisor::Other));
        let m = Marks {
            dt_hypervisor: Some(b"xen,xen-4.17\0xen,xen\0"),
            ..Marks::default()
        };
        assert_eq!(detect(&m), Some(Hypervisor::Xen));
        let m = Marks {
            dt_hypervisor: Some(b"acme,hv\0"),
            ..Marks::default()
        };
        assert_eq!(detect(&m), Some(Hypervisor::Other));
        let m = Marks {
            acpi_vendor: Some(u64::from_le_bytes(*b"KVMKVMKV")),
            ..Marks::default()
        };
        assert_eq!(detect(&m), Some(Hypervisor::Other));
        let m = Marks {
            acpi_vendor: Some(0),
            ..Marks::default()
        };
        assert_eq!(detect(&m), None);
    }
}
