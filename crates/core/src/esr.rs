//! Exception Syndrome Register (ESR_ELx) decoding, in words (Arm ARM D23.2.41 "ESR_EL1").

/// Exception class: ESR bits \[31:26\].
pub fn class(esr: u64) -> u8 {
    ((esr >> 26) & 0x3f) as u8
}

/// The exception class in words.
pub fn class_name(ec: u8) -> &'static str {
    match ec {
        0x00 => "unknown reason (undefined instruction)",
        0x01 => "trapped WFI/WFE",
        0x07 => "trapped SVE, SIMD or floating-point access",
        0x0e => "illegal execution state",
        0x11 | 0x15 => "SVC instruction",
        0x12 | 0x16 => "HVC instruction",
        0x13 | 0x17 => "SMC instruction",
        0x18 => "trapped system register access",
        0x19 => "trapped SVE access",
        0x1c => "pointer authentication failure",
        0x20 => "instruction abort from a lower exception level",
        0x21 => "instruction abort",
        0x22 => "PC alignment fault",
        0x24 => "data abort from a lower exception level",
        0x25 => "data abort",
        0x26 => "SP alignment fault",
        0x28 | 0x2c => "trapped floating-point exception",
        0x2f => "SError interrupt",
        0x30 | 0x31 => "breakpoint",
        0x32 | 0x33 => "software step",
        0x34 | 0x35 => "watchpoint",
        0x38 | 0x3c => "BRK instruction",
        _ => "reserved or unlisted exception class",
    }
}

/// Whether the class is an instruction or data abort, whose ISS holds a fault status code.
pub fn is_abort(ec: u8) -> bool {
    matches!(ec, 0x20 | 0x21 | 0x24 | 0x25)
}

/// The fault status code (DFSC/IFSC, ISS bits \[5:0\]) of an abort, in words.
pub fn fault_status_name(esr: u64) -> &'static str {
    match esr & 0x3f {
        0x00..=0x03 => "address size fault",
        0x04..=0x07 => "translation fault",
        0x09..=0x0b => "access flag fault",
        0x0d..=0x0f => "permission fault",
        0x10 => "synchronous external abort",
        0x11 => "tag check fault",
        0x21 => "alignment fault",
        0x30 => "TLB conflict abort",
        0x31 => "unsupported atomic hardware update",
        _ => "other fault status",
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alignment_fault_from_platform_notes() {
        // Unaligned load with SCTLR_EL1.A = 1 under QEMU: ESR 0x96000021.
        let esr = 0x9600_0021;
        assert_eq!(class(esr), 0x25);
        assert_eq!(class_name(class(esr)), "data abort");
        assert!(is_abort(class(esr)));
        assert_eq!(fault_status_name(esr), "alignment fault");
        assert_eq!(fault_level(esr), None);
        assert!(!is_write(esr));
    }

    #[test]
    fn translation_fault_level_3_write() {
        let esr = 0x9600_0047; // DA, WnR, DFSC = translation fault level 3
        assert_eq!(fault_status_name(esr), "translation fault");
        assert_eq!(fault_level(esr), Some(3));
        assert!(is_write(esr));
    }

    #[test]
    fn undefined_instruction_and_every_class_named() {
        assert_eq!(class(0x0200_0000), 0);
        assert_eq!(class_name(0), "unknown reason (undefined instruction)");
        for ec in 0..64u8 {
            assert!(!class_name(ec).is_empty());
        }
    }
}
