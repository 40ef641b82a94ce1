// The 32-bit image's exception vectors (VBAR): every exception saves the interrupted
// registers and its SPSR in a frame on its mode's stack and calls mb_exception_handler
// (src/arch/armv7/exceptions.rs) with the frame and its kind (the vector's offset / 4).
// The frame's `elr` is the instruction that faulted or trapped; the handler may move it
// past that instruction (a probe), and the return restores CPSR from the frame's SPSR.

.syntax unified
.arm

.section .text.vectors, "ax"
.balign 32
.global mb_vectors
mb_vectors:
    b       .                       // reset: never taken through VBAR
    b       vec_undef
    b       vec_svc
    b       vec_pabt
    b       vec_dabt
    b       .                       // HYP trap: taken in HYP mode only
    b       vec_irq
    b       vec_fiq

// \back: how far LR is past the instruction (B1.8.3, "Exception return": 4 for an
// undefined instruction, an SVC, a prefetch abort, IRQ and FIQ in ARM state, 8 for a data
// abort).
.macro handler name, kind, back
\name:
    sub     lr, lr, #\back
    push    {r0-r12, lr}
    mrs     r0, spsr
    push    {r0, r1}                // SPSR, and a pad to keep the stack 8-byte aligned
    mov     r0, sp
    mov     r1, #\kind
    bl      mb_exception_handler
    pop     {r0, r1}
    msr     spsr_cxsf, r0
    ldm     sp!, {r0-r12, pc}^
.endm

handler vec_undef, 1, 4
handler vec_svc, 2, 4
handler vec_pabt, 3, 4
handler vec_dabt, 4, 8
handler vec_irq, 6, 4
handler vec_fiq, 7, 4
