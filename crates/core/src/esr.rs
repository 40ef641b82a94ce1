//! Exception Syndrome Register (ESR_ELx) decoding, in words (Arm ARM D23.2.41 "ESR_EL1").

/// Exception class: ESR bits \[31:26\], with the classes the firmware can meet named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Class {
    /// EC 0x00: unknown reason (an undefined instruction).
    Unknown,
    /// EC 0x01: a trapped WFI or WFE.
    TrappedWfx,
    /// EC 0x07: a trapped SVE, SIMD or floating-point access.
    TrappedFp,
    /// EC 0x0e: illegal execution state.
    IllegalState,
    /// EC 0x11, 0x15: SVC.
    Svc,
    /// EC 0x12, 0x16: HVC.
    Hvc,
    /// EC 0x13, 0x17: SMC.
    Smc,
    /// EC 0x18: a trapped system register access.
    TrappedSysreg,
    /// EC 0x19: a trapped SVE access.
    TrappedSve,
    /// EC 0x1c: pointer authentication failure.
    PacFailure,
    /// EC 0x20: instruction abort from a lower exception level.
    InstructionAbortLower,
    /// EC 0x21: instruction abort at the same level.
    InstructionAbort,
    /// EC 0x22: PC alignment fault.
    PcAlignment,
    /// EC 0x24: data abort from a lower exception level.
    DataAbortLower,
    /// EC 0x25: data abort at the same level.
    DataAbort,
    /// EC 0x26: SP alignment fault.
    SpAlignment,
    /// EC 0x28, 0x2c: trapped floating-point exception.
    FpException,
    /// EC 0x2f: SError interrupt.
    SError,
    /// EC 0x30, 0x31: breakpoint.
    Breakpoint,
    /// EC 0x32, 0x33: software step.
    SoftwareStep,
    /// EC 0x34, 0x35: watchpoint.
    Watchpoint,
    /// EC 0x38, 0x3c: BRK instruction.
    Brk,
    /// Any other (reserved or unlisted) class; the code is kept.
    Other(u8),
}

impl Class {
    /// The class of a syndrome.
    pub fn of(esr: u64) -> Class {
        Class::from_code(code(esr))
    }

    /// The class with exception class code `ec` (6 bits).
    pub fn from_code(ec: u8) -> Class {
        match ec {
            0x00 => Class::Unknown,
            0x01 => Class::TrappedWfx,
            0x07 => Class::TrappedFp,
            0x0e => Class::IllegalState,
            0x11 | 0x15 => Class::Svc,
            0x12 | 0x16 => Class::Hvc,
            0x13 | 0x17 => Class::Smc,
            0x18 => Class::TrappedSysreg,
            0x19 => Class::TrappedSve,
            0x1c => Class::PacFailure,
            0x20 => Class::InstructionAbortLower,
            0x21 => Class::InstructionAbort,
            0x22 => Class::PcAlignment,
            0x24 => Class::DataAbortLower,
            0x25 => Class::DataAbort,
            0x26 => Class::SpAlignment,
            0x28 | 0x2c => Class::FpException,
            0x2f => Class::SError,
            0x30 | 0x31 => Class::Breakpoint,
            0x32 | 0x33 => Class::SoftwareStep,
            0x34 | 0x35 => Class::Watchpoint,
            0x38 | 0x3c => Class::Brk,
            other => Class::Other(other),
        }
    }

    /// The class in words, as reports print it.
    pub fn name(self) -> &'static str {
        match self {
            Class::Unknown => "unknown reason (undefined instruction)",
            Class::TrappedWfx => "trapped WFI/WFE",
            Class::TrappedFp => "trapped SVE, SIMD or floating-point access",
            Class::IllegalState => "illegal execution state",
            Class::Svc => "SVC instruction",
            Class::Hvc => "HVC instruction",
            Class::Smc => "SMC instruction",
            Class::TrappedSysreg => "trapped system register access",
            Class::TrappedSve => "trapped SVE access",
            Class::PacFailure => "pointer authentication failure",
            Class::InstructionAbortLower => "instruction abort from a lower exception level",
            Class::InstructionAbort => "instruction abort",
            Class::PcAlignment => "PC alignment fault",
            Class::DataAbortLower => "data abort from a lower exception level",
            Class::DataAbort => "data abort",
            Class::SpAlignment => "SP alignment fault",
            Class::FpException => "trapped floating-point exception",
            Class::SError => "SError interrupt",
            Class::Breakpoint => "breakpoint",
            Class::SoftwareStep => "software step",
            Class::Watchpoint => "watchpoint",
            Class::Brk => "BRK instruction",
            Class::Other(_) => "reserved or unlisted exception class",
        }
    }

    /// Whether the class is an instruction or data abort, whose ISS holds a fault status code.
    pub fn is_abort(self) -> bool {
        matches!(
            self,
            Class::InstructionAbortLower
                | Class::InstructionAbort
                | Class::DataAbortLower
                | Class::DataAbort
        )
    }
}

/// ISS.FnV (bit 10) of an abort: FAR is not valid.
const FNV: u64 = 0x400;

/// Whether FAR_ELx holds the faulting address for syndrome `esr`: for instruction and data
/// aborts (unless ISS.FnV says it does not, as for some external aborts), PC alignment faults
/// and watchpoints. For every other class FAR is UNKNOWN: it may hold whatever an earlier
/// exception left there (Arm ARM D23.2.46 "FAR_EL1").
pub fn far_valid(esr: u64) -> bool {
    match Class::of(esr) {
        c if c.is_abort() => esr & FNV == 0,
        Class::PcAlignment | Class::Watchpoint => true,
        _ => false,
    }
}

/// The exception class code: ESR bits \[31:26\].
pub fn code(esr: u64) -> u8 {
    ((esr >> 26) & 0x3f) as u8
}

/// The fault status code (DFSC/IFSC, ISS bits \[5:0\]) of an abort.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaultStatus {
    /// 0b0000LL: address size fault at level LL.
    AddressSize,
    /// 0b0001LL: translation fault.
    Translation,
    /// 0b0010LL (LL ≠ 0): access flag fault.
    AccessFlag,
    /// 0b0011LL (LL ≠ 0): permission fault.
    Permission,
    /// 0x10: synchronous external abort.
    SyncExternal,
    /// 0x11: tag check fault.
    TagCheck,
    /// 0x21: alignment fault.
    Alignment,
    /// 0x30: TLB conflict abort.
    TlbConflict,
    /// 0x31: unsupported atomic hardware update.
    UnsupportedAtomic,
    /// Anything else.
    Other,
}

impl FaultStatus {
    /// The fault status of an abort's syndrome.
    pub fn of(esr: u64) -> FaultStatus {
        match esr & 0x3f {
            0x00..=0x03 => FaultStatus::AddressSize,
            0x04..=0x07 => FaultStatus::Translation,
            0x09..=0x0b => FaultStatus::AccessFlag,
            0x0d..=0x0f => FaultStatus::Permission,
            0x10 => FaultStatus::SyncExternal,
            0x11 => FaultStatus::TagCheck,
            0x21 => FaultStatus::Alignment,
            0x30 => FaultStatus::TlbConflict,
            0x31 => FaultStatus::UnsupportedAtomic,
            _ => FaultStatus::Other,
        }
    }

    /// The fault status in words, as reports print it.
    pub fn name(self) -> &'static str {
        match self {
            FaultStatus::AddressSize => "address size fault",
            FaultStatus::Translation => "translation fault",
            FaultStatus::AccessFlag => "access flag fault",
            FaultStatus::Permission => "permission fault",
            FaultStatus::SyncExternal => "synchronous external abort",
            FaultStatus::TagCheck => "tag check fault",
            FaultStatus::Alignment => "alignment fault",
            FaultStatus::TlbConflict => "TLB conflict abort",
            FaultStatus::UnsupportedAtomic => "unsupported atomic hardware update",
            FaultStatus::Other => "other fault status",
        }
    }
}

/// The translation table level a fault status code refers to, where it names one.
pub fn fault_level(esr: u64) -> Option<u8> {
    match esr & 0x3f {
        0x00..=0x0f => Some((esr & 3) as u8),
        _ => None,
    }
}

/// For a data abort: whether the access was a write (ISS.WnR, bit 6).
pub fn is_write(esr: u64) -> bool {
    esr & (1 << 6) != 0
}

/// An ARMv7 exception as the 32-bit image takes it, by its vector.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Armv7Vector {
    /// An undefined instruction.
    Undefined,
    /// An SVC (the A32 semihosting trap, where nobody answers it).
    Svc,
    /// A prefetch abort: IFSR holds its status.
    PrefetchAbort,
    /// A data abort: DFSR holds its status.
    DataAbort,
}

/// The syndrome, in ESR terms, of an exception the 32-bit image took, so that both images'
/// faults are read by the same code: the encoding ARMv7's Hyp Syndrome Register uses for the
/// same exceptions (Arm ARM DDI 0406C, B3.13.6 "Use of the HSR"), which is AArch64's ESR's.
/// EC `0x00` for an undefined instruction, `0x11` for an SVC, `0x21` and `0x25` for aborts
/// taken at the level they happened at, IL set (A32 instructions), WnR from DFSR bit 11.
///
/// `fsr` is DFSR or IFSR. With bit 9 set it is in the long-descriptor format (LPAE, TTBCR.EAE
/// set), whose status bits 5:0 are the ESR's fault status codes; else in the short-descriptor
/// format, whose FS (bits 10 and 3:0) is mapped to the long code for the same fault (DDI
/// 0406C, B3.13.3 "Fault Status Register encodings"): its sections are level 1, its pages
/// level 2, and its domain faults the HSR's own codes `0b111101` and `0b111110`. An FS with no
/// counterpart is kept as it is.
pub fn from_armv7(vector: Armv7Vector, fsr: u32) -> u64 {
    let status = |fsr: u32| -> u64 {
        if fsr & (1 << 9) != 0 {
            return u64::from(fsr & 0x3f);
        }
        let fs = (fsr >> 6 & 0x10) | (fsr & 0xf);
        match fs {
            0b00001 => 0b100001, // alignment
            0b00010 => 0b100010, // debug event
            0b00011 => 0b001001, // access flag, section
            0b00110 => 0b001010, // access flag, page
            0b00101 => 0b000101, // translation, section
            0b00111 => 0b000110, // translation, page
            0b01001 => 0b111101, // domain, section
            0b01011 => 0b111110, // domain, page
            0b01101 => 0b001101, // permission, section
            0b01111 => 0b001110, // permission, page
            0b01000 => 0b010000, // synchronous external abort
            0b01100 => 0b010101, // external abort on the walk, level 1
            0b01110 => 0b010110, // external abort on the walk, level 2
            0b11001 => 0b011000, // parity error
            0b10110 => 0b010001, // asynchronous external abort
            other => u64::from(other),
        }
    };
    const IL: u64 = 1 << 25;
    match vector {
        Armv7Vector::Undefined => IL,
        Armv7Vector::Svc => 0x11 << 26 | IL,
        Armv7Vector::PrefetchAbort => 0x21 << 26 | IL | status(fsr),
        Armv7Vector::DataAbort => 0x25 << 26 | IL | u64::from(fsr >> 11 & 1) << 6 | status(fsr),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alignment_fault_as_qemu_reports_it() {
        // Unaligned load with SCTLR_EL1.A = 1 under QEMU: ESR 0x96000021.
        let esr = 0x9600_0021;
        assert_eq!(Class::of(esr), Class::DataAbort);
        assert_eq!(Class::of(esr).name(), "data abort");
        assert!(Class::of(esr).is_abort());
        assert_eq!(FaultStatus::of(esr), FaultStatus::Alignment);
        assert_eq!(FaultStatus::of(esr).name(), "alignment fault");
        assert_eq!(fault_level(esr), None);
        assert!(!is_write(esr));
    }

    #[test]
    fn far_is_valid_for_aborts_pc_alignment_and_watchpoints_only() {
        assert!(far_valid(0x9600_0047)); // data abort, translation fault
        assert!(far_valid(0x8600_0007)); // instruction abort
        assert!(!far_valid(0x9600_0410)); // data abort, external, FnV set
        assert!(far_valid(0x8a00_0000)); // PC alignment
        assert!(far_valid(0xd600_0000)); // watchpoint, same EL
        assert!(!far_valid(0x0200_0000)); // undefined instruction
        assert!(!far_valid(0x9a00_0000)); // SP alignment
        assert!(!far_valid(0xf200_0000)); // BRK
        assert!(!far_valid(0xbe00_0000)); // SError
    }

    #[test]
    fn translation_fault_level_3_write() {
        let esr = 0x9600_0047; // DA, WnR, DFSC = translation fault level 3
        assert_eq!(FaultStatus::of(esr).name(), "translation fault");
        assert_eq!(fault_level(esr), Some(3));
        assert!(is_write(esr));
    }

    #[test]
    fn undefined_instruction_and_every_class_named() {
        assert_eq!(code(0x0200_0000), 0);
        assert_eq!(Class::of(0x0200_0000), Class::Unknown);
        assert_eq!(
            Class::Unknown.name(),
            "unknown reason (undefined instruction)"
        );
        for ec in 0..64u8 {
            assert!(!Class::from_code(ec).name().is_empty());
        }
        assert_eq!(Class::from_code(0x3f), Class::Other(0x3f));
        // Exactly the four abort classes carry a fault status.
        let aborts = (0..64u8).filter(|&ec| Class::from_code(ec).is_abort());
        assert!(aborts.eq([0x20, 0x21, 0x24, 0x25]));
    }

    #[test]
    fn armv7_faults_read_as_esr() {
        use super::{from_armv7, Armv7Vector as V};
        // LPAE: a level 3 translation fault on a write (DFSR.LPAE, WnR, status 0b000111).
        let esr = from_armv7(V::DataAbort, 1 << 9 | 1 << 11 | 0b000111);
        assert_eq!(Class::of(esr), Class::from_code(0x25));
        assert_eq!(
            FaultStatus::of(esr).name(),
            FaultStatus::of(0x9600_0047).name()
        );
        assert_eq!(fault_level(esr), Some(3));
        assert!(is_write(esr));
        // Short descriptors: a permission fault on a page (FS 0b01111), a read.
        let esr = from_armv7(V::DataAbort, 0b01111);
        assert_eq!(fault_level(esr), Some(2));
        assert!(!is_write(esr));
        assert_eq!(FaultStatus::of(esr), FaultStatus::of(0x9600_000e));
        // Alignment, either format.
        assert_eq!(
            from_armv7(V::DataAbort, 0b00001) & 0x3f,
            from_armv7(V::DataAbort, 1 << 9 | 0b100001) & 0x3f
        );
        assert_eq!(Class::of(from_armv7(V::Undefined, 0)), Class::from_code(0));
        assert_eq!(code(from_armv7(V::Svc, 0)), 0x11);
        assert_eq!(code(from_armv7(V::PrefetchAbort, 0b00101)), 0x21);
    }
}
