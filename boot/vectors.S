// EL1 exception vectors. The firmware runs on SP_EL0; an exception switches to SP_EL1, a
// separate stack, where the full register frame is saved and handed to Rust. The handler may
// change the frame (e.g. step ELR past a deliberately faulting instruction) and return.
//
// Frame layout (ExceptionFrame in src/arch/exceptions.rs): x0..x30, ELR_EL1, SPSR_EL1, pad.
.equ FRAME_SIZE, 34 * 8

// Vector kinds passed to Rust in x1: group * 4 + type (sync 0, irq 1, fiq 2, serror 3);
// group 0 = current EL on SP_EL0 (the normal case), 1 = current EL on SP_ELx (an exception
// inside the exception handler), 2 = lower EL AArch64, 3 = lower EL AArch32.
.macro vector kind
    .balign 0x80
    sub     sp, sp, #FRAME_SIZE
    stp     x0, x1, [sp, #0]
    mov     x1, #\kind
    b       exception_save
.endm

// A fault while already on the exception stack cannot trust SP_EL1: restart it at the top
// and report, never returning.
.macro nested_vector kind
    .balign 0x80
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
    vector 1
    vector 2
    vector 3
    nested_vector 4
    nested_vector 5
    nested_vector 6
    nested_vector 7
    vector 8
    vector 9
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
