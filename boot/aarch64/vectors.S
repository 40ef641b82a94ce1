// EL1 exception vectors. The firmware runs on SP_EL0; an exception switches to SP_EL1, a
// separate stack, where the full register frame is saved and handed to Rust. The handler may
// change the frame (e.g. step ELR past a deliberately faulting instruction) and return.
//
// Frame layout (ExceptionFrame in src/arch/aarch64/exceptions.rs): x0..x30, ELR_EL1, SPSR_EL1, pad.
.equ FRAME_SIZE, 34 * 8

// Vector kinds passed to Rust in x1: group * 4 + type (sync 0, irq 1, fiq 2, serror 3);
// group 0 = current EL on SP_EL0 (the normal case), 1 = current EL on SP_ELx (an exception
// inside the exception handler), 2 = lower EL AArch64, 3 = lower EL AArch32.
//
// Each vector takes 0x80 bytes, of which its code uses 16 (20 for a nested one): the room
// after the first four holds boot routines of boot/aarch64/entry.S's paths (same assembly unit, so
// its labels, macros and constants), reached only by their labels, never through the table;
// there they take no text beyond the table's 2 KiB. `.org` places each vector at its offset
// and fails the build if the room before it overflowed.
.macro vector kind
    .org    exception_vectors + \kind * 0x80
    sub     sp, sp, #FRAME_SIZE
    stp     x0, x1, [sp, #0]
    mov     x1, #\kind
    b       exception_save
.endm

// A fault while already on the exception stack cannot trust SP_EL1: restart it at the top
// and report, never returning.
.macro nested_vector kind
    .org    exception_vectors + \kind * 0x80
    adrp    x0, __exception_stack_top
    add     x0, x0, :lo12:__exception_stack_top
    mov     sp, x0
    mov     x0, #\kind
    b       exception_nested
.endm

.section .text.vectors, "ax"
.balign 0x800
.global exception_vectors
exception_vectors:
    vector 0

// The UEFI entry (AddressOfEntryPoint): x0 = ImageHandle, x1 = SystemTable, on the
// firmware's stack with its MMU and caches on. Relocates and clears the BSS in place, then
// efi_main (src/arch/aarch64/uefi/mod.rs) talks to the firmware up to ExitBootServices. It returns
// (x0, x1): x0 = 1 and x1 = the device tree (0: none) to join the normal path at the EL the
// firmware runs at; x0 = 0 and x1 = an EFI_STATUS to hand back to the firmware (only when
// not even ResetSystem could be reached).
    .global efi_pe_entry
efi_pe_entry:
    stp     x29, x30, [sp, #-32]!
    mov     x29, sp
    stp     x0, x1, [sp, #16]
    bl      relocate
    adrp    x1, __bss_start
    add     x1, x1, :lo12:__bss_start
    adrp    x2, __bss_end
    add     x2, x2, :lo12:__bss_end
1:  cmp     x1, x2
    b.hs    2f
    stp     xzr, xzr, [x1], #16
    b       1b
2:  adrp    x2, mb_efi_x18          // the firmware's x18, for every call back into it
    str     x18, [x2, :lo12:mb_efi_x18] // (src/arch/aarch64/uefi/ffi.rs, mb_efi_call)
    ldp     x0, x1, [sp, #16]
    bl      efi_main
    cbnz    x0, 3f
    mov     x0, x1                  // an EFI_STATUS back to the firmware, with its x18
    adrp    x2, mb_efi_x18
    ldr     x18, [x2, :lo12:mb_efi_x18]
    ldp     x29, x30, [sp], #32
    ret
// After ExitBootServices: the boot path with the DTB in x0, the BSS kept (efi_main's
// hand-over lives there). The caches are turned off (cleaning the image, BSS included, to
// the point of coherency first), and relocation runs again for x21/x22/x27.
3:  msr     daifset, #0xf
    mov     x19, x1
    bl      entry_caches_off
    bl      relocate
    b       joined

    vector 1

// Secondary CPUs, started by PSCI CPU_ON with x0 = their stack block (1..MAX_CPUS - 1), or
// released from a spin table (spin_table_entry below), in whatever EL the firmware gives them,
// MMU off. Same drop to EL1 as the boot CPU; then, still without a stack, the MMU and caches
// on with the boot CPU's translation regime; only then their own stacks (block n of
// __secondary_stacks: [guard 4K][stack 16K][guard 4K][exception stack 8K]) and Rust.
//
// No stack before SCTLR_EL1.M and C are set: with the MMU off a CPU's data accesses are
// Device-nGnRnE (HCR_EL2.DC is 0; Arm ARM DDI 0487, "The effects of disabling an address
// translation stage"), while the boot CPU's tables map the same stacks Normal write-back.
// Stack frames written uncached, then read through the cache once the MMU is on (or the other
// way round), are a mismatch of memory attributes, coherent only with cache maintenance
// between the two (Arm ARM B2.8, "Mismatched memory attributes"): a line of the stack that a
// cache fetched meanwhile may shadow what was written. So, as Linux does
// (arch/arm64/kernel/head.S: secondary_startup calls __enable_mmu before
// __secondary_switched sets SP and calls into C), this path reads only the published regime
// (cleaned to memory by the boot CPU) until the MMU is on, and has no stack to invalidate; a
// test (host/tests/tooling/stack.rs) walks it in the disassembly for any use of SP before then.
.global secondary_entry
secondary_entry:
    msr     daifset, #0xf
    mov     x19, x0
    bl      entry_caches_off
    adr     x24, secondary_el1
    b       drop_to_el1

// A CPU released from its boot loader's spin table jumps here with no argument: it finds its
// stack block by looking its own MPIDR up in mb_spin_mpidr (src/arch/aarch64/smp/start.rs: bit 63 |
// the affinity fields, cleaned to memory before the release), then goes the PSCI CPU's way. A
// CPU whose MPIDR is not there waits forever.
.global spin_table_entry
spin_table_entry:
    msr     daifset, #0xf
    mrs     x1, mpidr_el1
    mov     x2, #0xffff             // affinity: Aff3 [39:32], Aff2..Aff0 [23:0]
    movk    x2, #0xff, lsl #16
    movk    x2, #0xff, lsl #32
    and     x1, x1, x2
    orr     x1, x1, #(1 << 63)
    adrp    x3, mb_spin_mpidr
    add     x3, x3, :lo12:mb_spin_mpidr
    mov     x0, #1
1:  cmp     x0, #MAX_CPUS
    b.hs    3f
    ldr     x4, [x3, x0, lsl #3]
    cmp     x4, x1
    b.eq    secondary_entry         // x0 = its block
    add     x0, x0, #1
    b       1b
3:  wfe
    b       3b

    vector 2

// Cleans the whole image, [_head, __image_end), to the point of coherency by address, with
// the MMU and caches as the boot loader left them (its mapping of the image is the identity).
// Clobbers x0-x3.
image_clean_poc:
    mrs     x3, ctr_el0
    ubfx    x3, x3, #16, #4         // DminLine: log2(words) of the smallest D-cache line
    mov     x2, #4
    lsl     x2, x2, x3              // its size in bytes
    adr     x0, _head
    adrp    x1, __image_end
    add     x1, x1, :lo12:__image_end
1:  dc      cvac, x0
    add     x0, x0, x2
    cmp     x0, x1
    b.lo    1b
    dsb     sy
    ret

// Turns the EL1 data cache off (SCTLR_EL1.C) and cleans and invalidates every data/unified
// level by set/way, for mairbench.selftest=caches-off. Called from Rust (AAPCS64) on the boot
// CPU with no other CPU running; keeps x26 and x30 in x12/x13 and touches no memory, so
// nothing is allocated again between clearing C and the clean. Returns the DC CISW count.
    .global mb_dcache_off_el1
mb_dcache_off_el1:
    mov     x12, x30
    mov     x13, x26
    mov     x26, #0
    mrs     x0, sctlr_el1
    bic     x0, x0, #(1 << 2)
    msr     sctlr_el1, x0
    isb
    bl      dcache_clean_invalidate_all
    mov     x0, x26
    mov     x26, x13
    ret     x12

    vector 3

// Both entries meet here: relocated, BSS cleared, caches off at the entry EL.
joined:
    cmp     x20, #3
    b.ne    6f
    bl      el3_firmware
6:  adr     x24, at_el1
    b       drop_to_el1

drop_to_el1:                        // x20 = entry EL, x24 = continuation; clobbers x0-x11
    cmp     x20, #3
    b.eq    from_el3
    cmp     x20, #2
    b.eq    from_el2
    br      x24                     // entered at EL1

from_el2:
    bl      el2_setup_for_el1
    sctlr_el1_mmu_off
    mov     x0, #SPSR_EL1H_MASKED
    msr     spsr_el2, x0
    msr     elr_el2, x24
    eret

    nested_vector 4

// The trampoline of every call into the UEFI firmware, with the firmware's x18 put back
// (src/arch/aarch64/uefi/ffi.rs says why): x0 = the function, x1..x5 its arguments.
    .global mb_efi_call
mb_efi_call:
    stp     x29, x30, [sp, #-16]!
    mov     x29, sp
    mov     x16, x0
    mov     x0, x1
    mov     x1, x2
    mov     x2, x3
    mov     x3, x4
    mov     x4, x5
    adrp    x17, mb_efi_x18
    ldr     x18, [x17, :lo12:mb_efi_x18]
    blr     x16
    ldp     x29, x30, [sp], #16
    ret

    nested_vector 5

// Position independence: apply the relocations before any absolute pointer is used. Each
// moves a pointer by the delta between where the image runs and where it was linked. The
// linker packs the relative ones as RELR (-z pack-relative-relocs, build.rs: a word per
// address, then bitmaps of the next 63 words each; the link-time value sits in the place
// itself), which takes a few hundred bytes where R_AARCH64_RELATIVE entries of 24 bytes
// each took about 10 KB; .rela.dyn keeps any other entry (R_AARCH64_RELATIVE applied from
// its addend, anything else counted in x22). Idempotent: mb_reloc_delta (with the data
// relocation writes, never cleared) holds the delta already applied, and a second run (the
// UEFI join) adds only the difference, 0 at the same place. Every run comes before the
// firmware's own MMU maps these pages read-only (linker.ld).
// Sets x21 (runtime _head), x22 (unsupported entries), x27 (delta); clobbers x1-x8.
relocate:
    adr     x21, _head
    movz    x27, #:abs_g3:__link_base
    movk    x27, #:abs_g2_nc:__link_base
    movk    x27, #:abs_g1_nc:__link_base
    movk    x27, #:abs_g0_nc:__link_base
    sub     x27, x21, x27
    mov     x22, #0
    adrp    x1, __rela_start
    add     x1, x1, :lo12:__rela_start
    adrp    x2, __rela_end
    add     x2, x2, :lo12:__rela_end
1:  cmp     x1, x2
    b.hs    3f
    ldp     x3, x4, [x1], #16       // r_offset, r_info
    ldr     x5, [x1], #8            // r_addend
    cmp     x4, #R_AARCH64_RELATIVE
    b.ne    2f
    add     x5, x5, x27
    str     x5, [x27, x3]
    b       1b
2:  add     x22, x22, #1
    b       1b
    // relocate goes on at 3: and 5:, in the next two rooms (only branches reach them).

    nested_vector 6

// relocate, continued.
    // RELR: x6 = the delta still to add, x7 = the next place (run-time address).
3:  adrp    x1, mb_reloc_delta
    ldr     x6, [x1, :lo12:mb_reloc_delta]
    str     x27, [x1, :lo12:mb_reloc_delta]
    sub     x6, x27, x6
    adrp    x1, __relr_start
    add     x1, x1, :lo12:__relr_start
    adrp    x2, __relr_end
    add     x2, x2, :lo12:__relr_end
4:  cmp     x1, x2
    b.hs    8f
    ldr     x3, [x1], #8
    tbnz    x3, #0, 5f
    add     x7, x3, x27             // an address: relocate that word
    ldr     x4, [x7]
    add     x4, x4, x6
    str     x4, [x7], #8
    b       4b

    nested_vector 7

// relocate, continued.
5:  mov     x8, x7                  // a bitmap: bit i+1 set = relocate word x7 + 8 i
6:  lsr     x3, x3, #1
    cbz     x3, 7f
    tbz     x3, #0, 9f
    ldr     x4, [x8]
    add     x4, x4, x6
    str     x4, [x8]
9:  add     x8, x8, #8
    b       6b
7:  add     x7, x7, #63 * 8
    b       4b
8:  ret

    vector 8

// Reads the entry EL into x20 and turns the caches of that EL off (see caches_off).
// Clobbers x0-x11 and x25; sets x20, x23 and x26.
entry_caches_off:
    mov     x25, x30
    mov     x26, #0
    mrs     x20, CurrentEL
    ubfx    x20, x20, #2, #2
    cmp     x20, #3
    b.eq    1f
    cmp     x20, #2
    b.eq    2f
    caches_off sctlr_el1
    b       3f
    // entry_caches_off goes on at 1:, 2: and 3:, in the next room (only branches reach them).

    vector 9

// entry_caches_off, continued.
1:  caches_off sctlr_el3
    b       3f
2:  caches_off sctlr_el2
3:  mov     x30, x25
    ret

    vector 10
    vector 11
    vector 12
    vector 13
    vector 14
    vector 15

exception_save:
    stp     x2, x3, [sp, #16]
    stp     x4, x5, [sp, #32]
    stp     x6, x7, [sp, #48]
    stp     x8, x9, [sp, #64]
    stp     x10, x11, [sp, #80]
    stp     x12, x13, [sp, #96]
    stp     x14, x15, [sp, #112]
    stp     x16, x17, [sp, #128]
    stp     x18, x19, [sp, #144]
    stp     x20, x21, [sp, #160]
    stp     x22, x23, [sp, #176]
    stp     x24, x25, [sp, #192]
    stp     x26, x27, [sp, #208]
    stp     x28, x29, [sp, #224]
    mrs     x2, elr_el1
    stp     x30, x2, [sp, #240]
    mrs     x2, spsr_el1
    str     x2, [sp, #256]
    mov     x0, sp
    bl      exception_handler
    ldr     x2, [sp, #256]
    msr     spsr_el1, x2
    ldp     x30, x2, [sp, #240]
    msr     elr_el1, x2
    ldp     x28, x29, [sp, #224]
    ldp     x26, x27, [sp, #208]
    ldp     x24, x25, [sp, #192]
    ldp     x22, x23, [sp, #176]
    ldp     x20, x21, [sp, #160]
    ldp     x18, x19, [sp, #144]
    ldp     x16, x17, [sp, #128]
    ldp     x14, x15, [sp, #112]
    ldp     x12, x13, [sp, #96]
    ldp     x10, x11, [sp, #80]
    ldp     x8, x9, [sp, #64]
    ldp     x6, x7, [sp, #48]
    ldp     x4, x5, [sp, #32]
    ldp     x2, x3, [sp, #16]
    ldp     x0, x1, [sp, #0]
    add     sp, sp, #FRAME_SIZE
    eret
