// mairbench entry: arm64 Linux Image header, exception-level drop, relocation, BSS, Rust.
//
// Boot protocol (Documentation/arch/arm64/booting.rst): x0 = physical address of the DTB
// (0 when QEMU starts an ELF), MMU off, any EL. We also cope with the MMU and caches on
// (clean by set/way, then turn them off), so `bootm`-style loaders work as well.
//
// Registers kept across the early code:
//   x19 = DTB address from the boot loader     x20 = exception level at entry
//   x21 = runtime address of _head             x22 = count of unsupported relocations
//   x23 = SCTLR_ELx at entry (of the entry EL) x24 = where the drop to EL1 continues
//   x25 = return address of entry_caches_off   x26 = DC CISW operations issued at entry
//   x27 = relocation delta (runtime minus link address)
//
// The boot CPU: caches off (cleaning first), relocation and BSS at the entry EL, then (at
// EL3 only) a Rust call that programs what only EL3 may, then the drop to EL1 and Rust.

.equ SCTLR_M,           (1 << 0)
.equ SCTLR_C,           (1 << 2)
.equ SCTLR_I,           (1 << 12)
// SCR_EL3: NS (lower ELs non-secure), RES1 bits 5:4, RW (lower ELs AArch64).
.equ SCR_EL3_NS_RW,     (1 << 0) | (3 << 4) | (1 << 10)
.equ HCR_EL2_RW,        (1 << 31)                  // EL1 is AArch64
.equ CNTHCTL_EL1_ACCESS, 3                         // EL1PCTEN | EL1PCEN
.equ CPTR_EL2_RES1,     0x33ff                     // no FP/SIMD trap (TFP = 0)
.equ SPSR_EL1H_MASKED,  0x3c5                      // EL1h, D A I F masked
.equ SPSR_EL3H_MASKED,  0x3cd                      // EL3h, D A I F masked
.equ CPACR_FP_ON,       (3 << 20)                  // FPEN: no FP/SIMD trap at EL1/EL0
// SCTLR_EL1: RES1 bits 29, 28, 23, 22, 20, 11 plus the I-cache; MMU, D-cache, alignment off.
.equ SCTLR_EL1_BOOT,    0x30d00800 | SCTLR_I
// SCTLR_EL1 with the MMU and caches off, written before any ERET to EL1: it is UNKNOWN at
// reset and a boot loader may leave M set. Linux's INIT_SCTLR_EL1_MMU_OFF, little-endian
// (arch/arm64/include/asm/sysreg.h: LSMAOE | nTLSMD | EIS | TSCXT | EOS).
.equ SCTLR_EL1_MMU_OFF, (1 << 29) | (1 << 28) | (1 << 22) | (1 << 20) | (1 << 11)

// SCTLR_EL1 = SCTLR_EL1_MMU_OFF, just before the ERET to EL1. Clobbers x0.
.macro sctlr_el1_mmu_off
    mov     x0, #(SCTLR_EL1_MMU_OFF & 0xffff)
    movk    x0, #(SCTLR_EL1_MMU_OFF >> 16), lsl #16
    msr     sctlr_el1, x0
.endm
.equ R_AARCH64_RELATIVE, 1027

// Entered with the MMU or D-cache on: clean the image to the point of coherency by address
// while the boot loader's mapping still holds (the code that runs next, with the caches off,
// is read from memory), turn both off (so nothing new is allocated), then write every dirty
// line back by set/way. Clobbers x0-x11; sets x23, adds to x26.
.macro caches_off sctlr
    mrs     x0, \sctlr
    mov     x23, x0                 // reported to Rust: the state we were entered in
    mov     x1, #(SCTLR_M | SCTLR_C)
    tst     x0, x1
    b.eq    .Lcaches_already_off\@
    bl      image_clean_poc
    mrs     x0, \sctlr
    mov     x1, #(SCTLR_M | SCTLR_C | SCTLR_I)
    bic     x0, x0, x1
    msr     \sctlr, x0
    isb
    bl      dcache_clean_invalidate_all
.Lcaches_already_off\@:
.endm

// A known EL1 state: MMU and D-cache off, I-cache on, FP/SIMD not trapped, and TPIDR_EL1
// (this CPU's counter errata, src/arch/aarch64/cpu.rs) none until the CPU sets its own.
// Clobbers x0.
.macro el1_state
    ldr     x0, =SCTLR_EL1_BOOT
    msr     sctlr_el1, x0
    mov     x0, #CPACR_FP_ON
    msr     cpacr_el1, x0
    msr     tpidr_el1, xzr
    isb
    ic      iallu
    dsb     nsh
    isb
.endm

// The first page has three faces: an arm64 Linux Image header (booti, QEMU -kernel), a DOS
// stub ("MZ" at 0, the PE header's offset at 0x3c) and a PE32+ header for AArch64 that makes
// the same file a UEFI application (EDK2, U-Boot's bootefi), as Linux's EFI stub does. Every
// size and offset of the PE face is an absolute symbol of linker.ld.
//
// Relocation: the image is position independent and applies its own relative relocations
// (relocate, below) wherever it runs, from both entries. The PE loader must relocate
// nothing: the base-relocation directory is present and empty (ImageBase 0, relocations not
// stripped), so a loader may place the image at any 4 KiB-aligned address and copy it as is.
.equ PE_MACHINE_ARM64,  0xaa64
.equ PE_OPT_MAGIC_PE32PLUS, 0x20b
.equ PE_SUBSYSTEM_EFI_APPLICATION, 10
// EXECUTABLE_IMAGE | LINE_NUMS_STRIPPED | DEBUG_STRIPPED
.equ PE_CHARACTERISTICS, 0x0002 | 0x0004 | 0x0200
// One section holding code and data: CNT_CODE | MEM_EXECUTE | MEM_READ | MEM_WRITE (the
// relocations and the BSS are written in place, before the firmware maps W^X itself).
.equ PE_SCN_TEXT,       0x00000020 | 0x20000000 | 0x40000000 | 0x80000000

.section .text.head, "ax"
.global _head
_head:
    add     x13, x18, #0x16         // code0: reads "MZ" (0x5a4d); harmless: x13 is scratch
    b       primary_entry           // code1
    .quad   0                       // text_offset: load at a 2 MiB-aligned base
    .quad   __image_size            // image_size, including BSS and stacks
    .quad   0xa                     // flags: little-endian, 4 KiB pages, anywhere in RAM
    .quad   0                       // res2
    .quad   0                       // res3
    .quad   0                       // res4
    .ascii  "ARM\x64"               // magic
    .long   pe_header - _head       // res5 / DOS e_lfanew (0x3c): the PE header's offset

pe_header:
    .ascii  "PE\0\0"
    .short  PE_MACHINE_ARM64        // Machine
    .short  1                       // NumberOfSections
    .long   0                       // TimeDateStamp
    .long   0                       // PointerToSymbolTable
    .long   0                       // NumberOfSymbols
    .short  pe_sections - pe_optional // SizeOfOptionalHeader
    .short  PE_CHARACTERISTICS
pe_optional:
    .short  PE_OPT_MAGIC_PE32PLUS
    .byte   0, 0                    // linker version
    .long   __pe_code_size          // SizeOfCode: the file after the header page
    .long   0                       // SizeOfInitializedData
    .long   0                       // SizeOfUninitializedData
    .long   __pe_entry              // AddressOfEntryPoint: efi_pe_entry
    .long   __pe_headers_size       // BaseOfCode
    .quad   0                       // ImageBase (nothing depends on it: see above)
    .long   0x1000                  // SectionAlignment
    .long   0x1000                  // FileAlignment
    .short  0, 0                    // OS version
    .short  0, 0                    // image version
    .short  0, 0                    // subsystem version
    .long   0                       // Win32VersionValue
    .long   __image_size            // SizeOfImage: BSS, stacks and tables included
    .long   __pe_headers_size       // SizeOfHeaders: this page
    .long   0                       // CheckSum
    .short  PE_SUBSYSTEM_EFI_APPLICATION
    .short  0                       // DllCharacteristics (not NX_COMPAT: one RWX section)
    .quad   0, 0, 0, 0              // stack and heap reserve/commit
    .long   0                       // LoaderFlags
    .long   6                       // NumberOfRvaAndSizes
    .quad   0                       // export table
    .quad   0                       // import table
    .quad   0                       // resource table
    .quad   0                       // exception table
    .quad   0                       // certificate table
    .long   0, 0                    // base-relocation table: empty, nothing to relocate
pe_sections:
    .ascii  ".text\0\0\0"
    .long   __pe_text_vsize         // VirtualSize: to the end of the image
    .long   __pe_headers_size       // VirtualAddress
    .long   __pe_code_size          // SizeOfRawData: to the end of the file
    .long   __pe_headers_size       // PointerToRawData
    .long   0                       // PointerToRelocations
    .long   0                       // PointerToLinenumbers
    .short  0                       // NumberOfRelocations
    .short  0                       // NumberOfLinenumbers
    .long   PE_SCN_TEXT
    // The rest of this page holds the EL3 vectors (linker.ld); the PE section starts on the
    // next page (SizeOfHeaders).

// Code that only the raw Image's entry runs (never a UEFI loader's: efi_pe_entry does not
// come here, nor does any path at EL3) sits in the header's page too, in .text.raw, before
// the EL3 vectors (linker.ld): room there is otherwise padding, while in .text.boot it took
// text bytes.
.pushsection .text.raw, "ax"
primary_entry:
    msr     daifset, #0xf
    mov     x19, x0
    bl      entry_caches_off
    bl      relocate
    adrp    x1, __bss_start
    add     x1, x1, :lo12:__bss_start
    adrp    x2, __bss_end
    add     x2, x2, :lo12:__bss_end
4:  cmp     x1, x2
    b.hs    joined
    stp     xzr, xzr, [x1], #16
    b       4b
.popsection

.section .text.boot, "ax"
// joined, the two entries' meeting point: boot/aarch64/vectors.S (in a vector's room).

// relocate: boot/aarch64/vectors.S (in the rooms of three vectors).

// The delta relocate applied last: with the data relocation writes (linker.ld), which the
// firmware's own MMU maps read-only, after the last relocate.
    .section .data.rel.ro.mb_reloc_delta, "aw"
    .balign 8
mb_reloc_delta: .quad 0
    .previous

// efi_pe_entry, the UEFI entry: boot/aarch64/vectors.S (in a vector's room).

// entry_caches_off: boot/aarch64/vectors.S (in the rooms of two vectors).

// drop_to_el1 and from_el2: boot/aarch64/vectors.S (in a vector's room).

// EL3 only, so in .text.raw (see primary_entry).
.pushsection .text.raw, "ax"
from_el3:
    // CPUECTLR_EL1.SMPEN (bit 6 of S3_1_C15_C2_1, writable at EL3) on the cores that have
    // it, before the caches and the MMU are enabled at EL1: the A53 TRM requires it (data
    // coherency is enabled only with SMPEN set) and TF-A's reset code sets it. The parts are
    // the rows of core's table of cores with `smpen` (crates/core/src/cores.rs; a test checks
    // this list against it); on any other core the register may not exist.
    mrs     x0, midr_el1
    ubfx    x1, x0, #24, #8         // MIDR_EL1.Implementer
    cmp     x1, #0x41               // Arm
    b.ne    6f
    ubfx    x1, x0, #4, #12         // MIDR_EL1.PartNum
    cmp     x1, #0xd03              // smpen: Cortex-A53
    b.eq    5f
    cmp     x1, #0xd04              // smpen: Cortex-A35
    b.eq    5f
    cmp     x1, #0xd07              // smpen: Cortex-A57
    b.eq    5f
    cmp     x1, #0xd08              // smpen: Cortex-A72
    b.eq    5f
    cmp     x1, #0xd09              // smpen: Cortex-A73
    b.ne    6f
5:  mrs     x0, S3_1_C15_C2_1       // CPUECTLR_EL1
    orr     x0, x0, #(1 << 6)       // SMPEN
    msr     S3_1_C15_C2_1, x0
    isb
    // Cortex-A53 erratum 855873, as TF-A's reset code works around it (cortex_a53.S
    // ERRATUM(855873), for revisions r0p3 and later, compared as its cpu_get_rev_var does:
    // variant in bits 7:4, revision in 3:0): CPUACTLR_EL1.ENDCCASCI (bit 44 of S3_1_C15_C2_0)
    // makes the core execute a data cache clean as clean and invalidate. Earlier revisions
    // have no such bit; their clean errata are software's to work around. The revisions are
    // the A53 row's `clean_as_civac` (crates/core/src/cores.rs; host/tests/tooling/kernels.rs runs
    // this path for every row and revision). QEMU's A53 reads the register as zero and
    // ignores writes.
    mrs     x0, midr_el1
    ubfx    x1, x0, #4, #12         // MIDR_EL1.PartNum (the implementer is Arm, above)
    cmp     x1, #0xd03              // 855873: Cortex-A53
    b.ne    6f
    ubfx    x1, x0, #20, #4         // MIDR_EL1.Variant
    ubfx    x2, x0, #0, #4          // MIDR_EL1.Revision
    orr     x1, x2, x1, lsl #4
    cmp     x1, #0x03               // 855873: r0p3 and later
    b.lo    6f
    mrs     x0, S3_1_C15_C2_0       // CPUACTLR_EL1
    orr     x0, x0, #(1 << 44)      // ENDCCASCI
    msr     S3_1_C15_C2_0, x0
    isb
6:  msr     cptr_el3, xzr
    msr     mdcr_el3, xzr
    mov     x0, #SCR_EL3_NS_RW
    msr     scr_el3, x0
    mrs     x0, id_aa64pfr0_el1
    ubfx    x0, x0, #8, #4          // EL2 implemented?
    cbz     x0, 2f
    bl      el2_setup_for_el1       // EL1 width, timers and PMU are governed by EL2 too
2:  sctlr_el1_mmu_off
    mov     x0, #SPSR_EL1H_MASKED
    msr     spsr_el3, x0
    msr     elr_el3, x24
    eret
.popsection

at_el1:
    el1_state

    // Exceptions run on their own stack (SP_EL1); everything else on SP_EL0, so a fault
    // caused by the main stack can still be reported.
    msr     spsel, #1
    adrp    x0, __exception_stack_top
    add     x0, x0, :lo12:__exception_stack_top
    mov     sp, x0
    msr     spsel, #0
    adrp    x0, __stack_top
    add     x0, x0, :lo12:__stack_top
    mov     sp, x0
    adrp    x0, exception_vectors
    add     x0, x0, :lo12:exception_vectors
    msr     vbar_el1, x0
    isb

    mov     x0, x19
    mov     x1, x20
    mov     x2, x21
    mov     x3, x22
    mov     x4, x23
    mov     x5, x26
    bl      rust_main
7:  wfe                             // rust_main never returns; stay put if it does
    b       7b

// At EL3 mairbench is the firmware: Rust programs what only EL3 may (CNTFRQ_EL0, from the
// device tree), with the MMU off, on the main stack, after relocation. Temporary EL3
// vectors abandon the call on any exception (a DTB guess that is not memory, say) and come
// back here with the saved registers. Clobbers x0-x18. EL3 only: in .text.raw.
.pushsection .text.raw, "ax"
el3_firmware:
    msr     spsel, #1
    msr     cptr_el3, xzr           // FP/SIMD not trapped: Rust code may use it
    adrp    x0, __stack_top
    add     x0, x0, :lo12:__stack_top
    mov     sp, x0
    stp     x19, x20, [sp, #-80]!
    stp     x21, x22, [sp, #16]
    stp     x23, x24, [sp, #32]
    stp     x25, x26, [sp, #48]
    stp     x27, x30, [sp, #64]
    adrp    x0, el3_vectors
    add     x0, x0, :lo12:el3_vectors
    msr     vbar_el3, x0
    isb
    mov     x0, x19
    bl      el3_setup
el3_firmware_done:
    adrp    x0, __stack_top
    add     x0, x0, :lo12:__stack_top
    sub     sp, x0, #80
    ldp     x19, x20, [sp]
    ldp     x21, x22, [sp, #16]
    ldp     x23, x24, [sp, #32]
    ldp     x25, x26, [sp, #48]
    ldp     x27, x30, [sp, #64]
    ret

el3_abandon:
    adr     x0, el3_firmware_done
    msr     elr_el3, x0
    mov     x0, #SPSR_EL3H_MASKED
    msr     spsr_el3, x0
    eret
.popsection

.macro el3_vector
    .balign 0x80
    b       el3_abandon
.endm

// In a section of its own, which linker.ld places in the header's page, at its 2 KiB
// boundary: only the raw Image's EL3 entry (MMU off) uses them, never a UEFI loader, which
// takes that page as the PE headers.
.pushsection .text.vectors.el3, "ax"
.balign 0x800
el3_vectors:
    .rept 16
    el3_vector
    .endr
.popsection

// secondary_entry and spin_table_entry: boot/aarch64/vectors.S (in a vector's room).

secondary_el1:
    el1_state
    // Wait for the boot CPU's regime (mb_secondary_handoff, src/arch/aarch64/smp/start.rs:
    // published last, each word cleaned to memory first, then DSB SY and SEV).
    adrp    x3, mb_secondary_handoff
    add     x3, x3, :lo12:mb_secondary_handoff
1:  ldar    x0, [x3]                // published
    cbnz    x0, 2f
    wfe
    b       1b
2:  ldr     x0, [x3, #HANDOFF_BLOCKS]
    sub     x1, x19, #1
    cmp     x1, x0
    b.hs    3f                      // a block its tables do not map: park
    // What mmu::enable does on the boot CPU (src/arch/aarch64/mmu.rs), with the same registers.
    ldr     x0, [x3, #HANDOFF_MAIR]
    msr     mair_el1, x0
    ldr     x0, [x3, #HANDOFF_TCR]
    msr     tcr_el1, x0
    ldr     x0, [x3, #HANDOFF_TTBR0]
    msr     ttbr0_el1, x0
    isb
    tlbi    vmalle1
    dsb     ish
    isb
    ic      iallu
    dsb     ish
    mrs     x0, sctlr_el1
    mov     x1, #(SCTLR_EL1_MMU_ON & 0xffff)
    movk    x1, #(SCTLR_EL1_MMU_ON >> 16), lsl #16
    orr     x0, x0, x1
    msr     sctlr_el1, x0
    isb
    // The MMU and caches are on: the stacks are Normal write-back, as on every other CPU.
    adrp    x0, __secondary_stacks
    add     x0, x0, :lo12:__secondary_stacks
    sub     x1, x19, #1
    mov     x2, #SECONDARY_BLOCK
    madd    x0, x1, x2, x0
    add     x1, x0, #0x5000         // top of the 16 KiB stack above the first guard
    add     x2, x0, #0x8000         // top of the 8 KiB exception stack above the second
    msr     spsel, #1
    mov     sp, x2
    msr     spsel, #0
    mov     sp, x1
    adrp    x0, exception_vectors
    add     x0, x0, :lo12:exception_vectors
    msr     vbar_el1, x0
    isb
    msr     daifclr, #4             // SError unmasked: an external abort is reported
    mov     x0, x19
    mov     x1, x20
    bl      secondary_main
3:  wfe
    b       3b

// Configure EL2 so that EL1 runs in AArch64 with timers, PMU and FP/SIMD untrapped.
// Callable from EL2 or EL3. Clobbers x0.
el2_setup_for_el1:
    mov     x0, #HCR_EL2_RW
    msr     hcr_el2, x0
    isb
    mov     x0, #CNTHCTL_EL1_ACCESS
    msr     cnthctl_el2, x0
    msr     cntvoff_el2, xzr
    mov     x0, #CPTR_EL2_RES1
    msr     cptr_el2, x0
    msr     hstr_el2, xzr
    msr     vttbr_el2, xzr
    // MDCR_EL2: no traps; HPMN = PMCR_EL0.N (every counter belongs to EL1) only for an
    // architected PMU. Without one (PMUVer 0, or 0xf: IMPLEMENTATION DEFINED) HPMN is RES0.
    mrs     x0, id_aa64dfr0_el1
    ubfx    x0, x0, #8, #4          // PMUVer
    cbz     x0, 1f
    cmp     x0, #0xf
    b.eq    1f
    mrs     x0, pmcr_el0
    ubfx    x0, x0, #11, #5         // PMCR_EL0.N
    b       2f
1:  mov     x0, #0
2:  msr     mdcr_el2, x0
    mrs     x0, midr_el1
    msr     vpidr_el2, x0
    mrs     x0, mpidr_el1
    msr     vmpidr_el2, x0
    // Fine-grained traps (FEAT_FGT: ID_AA64MMFR0_EL1.FGT, bits 59:56) and HCRX_EL2 (FEAT_HCX:
    // ID_AA64MMFR1_EL1.HCX, bits 43:40), where they exist: a bit a boot loader left set
    // would trap an EL1 access (MAIR, the PMU, ...) to an EL2 that has no vectors of ours.
    // Zeroed, as Linux's __init_el2_fgt and __init_el2_hcrx start (el2_setup.h). By
    // encoding (Linux's arch/arm64/tools/sysreg), for assemblers without FEAT_FGT's names.
    mrs     x0, id_aa64mmfr0_el1
    ubfx    x0, x0, #56, #4
    cbz     x0, 3f
    msr     S3_4_C1_C1_4, xzr       // HFGRTR_EL2
    msr     S3_4_C1_C1_5, xzr       // HFGWTR_EL2
    msr     S3_4_C1_C1_6, xzr       // HFGITR_EL2
    msr     S3_4_C3_C1_4, xzr       // HDFGRTR_EL2
    msr     S3_4_C3_C1_5, xzr       // HDFGWTR_EL2
3:  mrs     x0, id_aa64mmfr1_el1
    ubfx    x0, x0, #40, #4
    cbz     x0, 4f
    msr     S3_4_C1_C2_2, xzr       // HCRX_EL2
4:  isb
    ret

// Clean and invalidate every data/unified cache level to the point of coherency, by set/way.
// Used only when entered with caches on; runs with the D-cache already disabled so nothing new
// is allocated. CCSIDR_EL1 is decoded in the layout ID_AA64MMFR2_EL1.CCIDX names. Clobbers
// x0-x11; adds the number of DC CISW operations to x26.
dcache_clean_invalidate_all:
    dsb     sy
    mrs     x0, clidr_el1
    ubfx    x3, x0, #24, #3         // LoC
    lsl     x3, x3, #1              // LoC * 2, compared with level * 2
    cbz     x3, 5f
    mov     x10, #0                 // level * 2
1:  add     x2, x10, x10, lsr #1    // level * 3
    lsr     x1, x0, x2
    and     x1, x1, #7              // cache type at this level
    cmp     x1, #2
    b.lt    4f                      // no data cache here
    msr     csselr_el1, x10
    isb
    mrs     x1, ccsidr_el1
    and     x2, x1, #7
    add     x2, x2, #4              // log2(line size)
    mrs     x6, id_aa64mmfr2_el1
    ubfx    x6, x6, #20, #4         // CCIDX: CCSIDR_EL1 in the 64-bit FEAT_CCIDX layout?
    cbnz    x6, 6f
    ubfx    x4, x1, #3, #10         // ways - 1: Associativity [12:3]
    ubfx    x7, x1, #13, #15        // sets - 1: NumSets [27:13]
    b       7f
6:  ubfx    x4, x1, #3, #21         // ways - 1: Associativity [23:3]
    ubfx    x7, x1, #32, #24        // sets - 1: NumSets [55:32]
7:  clz     w5, w4                  // way shift
2:  mov     x9, x4                  // way
3:  lsl     x6, x9, x5
    orr     x11, x10, x6
    lsl     x6, x7, x2
    orr     x11, x11, x6
    dc      cisw, x11
    add     x26, x26, #1            // counted, reported to Rust
    subs    x9, x9, #1
    b.ge    3b
    subs    x7, x7, #1
    b.ge    2b
4:  add     x10, x10, #2
    cmp     x3, x10
    b.gt    1b
5:  msr     csselr_el1, xzr
    dsb     sy
    isb
    ic      iallu
    dsb     sy
    isb
    ret

// image_clean_poc and mb_dcache_off_el1: boot/aarch64/vectors.S (in a vector's room).

