// Every timed loop starts on a 128-byte boundary (`.balign 128` before its first
// instruction) and is shorter than 128 bytes, so it starts on a 64-byte line and never
// crosses a 4 KiB page, as in the AArch64 files.
//
// Streaming kernels in A32 (ARM state, not Thumb): the AArch64 ldp/stp loops of the public
// dma-buf report "Performance Anomaly Investigation" as ARMv7-A has them, `ldm`/`stm` of
// eight registers (32 bytes an instruction) and NEON `vld1.64`/`vst1.64` of four d registers
// (32 bytes an instruction). AAPCS: r0 = pointer, r1 = bytes (a non-zero multiple of the bytes
// per iteration), both u32; r4-r11 are pushed and popped outside the timed loop, which uses
// no stack. The NEON loops use d0-d7 and d16-d31 only (AAPCS-VFP: d8-d15 are callee-saved).
//
// The NEON loops' address operands carry the `:128` alignment hint: their pointers must be
// 16-aligned (the callers' windows are line-aligned), and a misaligned one takes an alignment
// fault instead of running slower unnoticed.
//
// Contracts (symbol(args): step per iteration; alignment):
//   mb_k_read_ldm(p, len):   8 x `ldm p!, {r4-r11}` = 256 B; len % 256 == 0; p 4-aligned
//   mb_k_write_stm(p, len):  8 x `stm p!, {r4-r11}` = 256 B; len % 256 == 0; p 4-aligned
//   mb_k_read_vld1(p, len):  16 x `vld1.64 {d0-d3}, [p:128]!` = 512 B; len % 512 == 0;
//                            p 16-aligned
//   mb_k_write_vst1(p, len): 16 x `vst1.64 {d0-d3}, [p:128]!` = 512 B; len % 512 == 0;
//                            p 16-aligned
//   mb_k_write_line(p, len): 16 x `str r2, [p], #64` = 1 KiB; len % 1024 == 0; p 4-aligned
//   mb_k_copy(dst, src, len):   4 x (ldm src!, stm dst!) of 8 registers = 128 B;
//                               len % 128 == 0; dst, src 4-aligned
//   mb_k_copy_q(dst, src, len): 2 x (4 vld1.64 then 4 vst1.64 of 32 B) = 256 B;
//                               len % 256 == 0; dst, src 16-aligned
//   mb_k_triad(a, b, c, len):   a = b + 3 * c in 32-bit lanes (vmla.i32), 64 B of each array
//                               per iteration; len % 64 == 0; a, b, c 16-aligned
// In every case len != 0 and the range [p, p + len) does not wrap past 2^32.
//
// The writes leave what the AArch64 ones leave, byte for byte (core's pattern::WRITTEN):
// write-stp stores x4 = 0xdeadbeef and x5 = 0xcafebabe, zero-extended 64-bit registers, so
// memory holds the 32-bit words 0xdeadbeef, 0, 0xcafebabe, 0, repeated (little-endian).

    .syntax unified
    .arm
    .fpu neon

.section .text.kernels, "ax"

// read-ldm: 8 x `ldm r0!, {r4-r11}` = 256 bytes per iteration (8 of the loop's 10
// instructions are loads).
.global mb_k_read_ldm
.type mb_k_read_ldm, %function
.balign 128
mb_k_read_ldm:
    push    {r4-r11}
    .balign 128
1:  ldm     r0!, {r4-r11}
    ldm     r0!, {r4-r11}
    ldm     r0!, {r4-r11}
    ldm     r0!, {r4-r11}
    ldm     r0!, {r4-r11}
    ldm     r0!, {r4-r11}
    ldm     r0!, {r4-r11}
    ldm     r0!, {r4-r11}
    subs    r1, r1, #256
    bne     1b
    pop     {r4-r11}
    bx      lr

// write-stm: 8 x `stm r0!, {r4-r11}` = 256 bytes per iteration; the words 0xdeadbeef, 0,
// 0xcafebabe, 0 repeated, as write-stp leaves them.
.global mb_k_write_stm
.type mb_k_write_stm, %function
.balign 128
mb_k_write_stm:
    push    {r4-r11}
    movw    r4, #0xbeef
    movt    r4, #0xdead
    mov     r5, #0
    movw    r6, #0xbabe
    movt    r6, #0xcafe
    mov     r7, #0
    mov     r8, r4
    mov     r9, r5
    mov     r10, r6
    mov     r11, r7
    .balign 128
1:  stm     r0!, {r4-r11}
    stm     r0!, {r4-r11}
    stm     r0!, {r4-r11}
    stm     r0!, {r4-r11}
    stm     r0!, {r4-r11}
    stm     r0!, {r4-r11}
    stm     r0!, {r4-r11}
    stm     r0!, {r4-r11}
    subs    r1, r1, #256
    bne     1b
    pop     {r4-r11}
    bx      lr

// read-vld1: 16 x `vld1.64 {d0-d3}, [r0:128]!` = 512 bytes per iteration (16 of 18
// instructions are loads).
.global mb_k_read_vld1
.type mb_k_read_vld1, %function
.balign 128
mb_k_read_vld1:
1:  vld1.64 {d0-d3}, [r0:128]!
    vld1.64 {d4-d7}, [r0:128]!
    vld1.64 {d0-d3}, [r0:128]!
    vld1.64 {d4-d7}, [r0:128]!
    vld1.64 {d0-d3}, [r0:128]!
    vld1.64 {d4-d7}, [r0:128]!
    vld1.64 {d0-d3}, [r0:128]!
    vld1.64 {d4-d7}, [r0:128]!
    vld1.64 {d0-d3}, [r0:128]!
    vld1.64 {d4-d7}, [r0:128]!
    vld1.64 {d0-d3}, [r0:128]!
    vld1.64 {d4-d7}, [r0:128]!
    vld1.64 {d0-d3}, [r0:128]!
    vld1.64 {d4-d7}, [r0:128]!
    vld1.64 {d0-d3}, [r0:128]!
    vld1.64 {d4-d7}, [r0:128]!
    subs    r1, r1, #512
    bne     1b
    bx      lr

// write-vst1: 16 x `vst1.64 {d0-d3}, [r0:128]!` = 512 bytes per iteration, the same words as
// write-stm (d0 and d2 = 0x00000000_deadbeef, d1 and d3 = 0x00000000_cafebabe).
.global mb_k_write_vst1
.type mb_k_write_vst1, %function
.balign 128
mb_k_write_vst1:
    movw    r2, #0xbeef
    movt    r2, #0xdead
    mov     r3, #0
    vmov    d0, r2, r3
    movw    r2, #0xbabe
    movt    r2, #0xcafe
    vmov    d1, r2, r3
    vmov    q1, q0
    .balign 128
1:  vst1.64 {d0-d3}, [r0:128]!
    vst1.64 {d0-d3}, [r0:128]!
    vst1.64 {d0-d3}, [r0:128]!
    vst1.64 {d0-d3}, [r0:128]!
    vst1.64 {d0-d3}, [r0:128]!
    vst1.64 {d0-d3}, [r0:128]!
    vst1.64 {d0-d3}, [r0:128]!
    vst1.64 {d0-d3}, [r0:128]!
    vst1.64 {d0-d3}, [r0:128]!
    vst1.64 {d0-d3}, [r0:128]!
    vst1.64 {d0-d3}, [r0:128]!
    vst1.64 {d0-d3}, [r0:128]!
    vst1.64 {d0-d3}, [r0:128]!
    vst1.64 {d0-d3}, [r0:128]!
    vst1.64 {d0-d3}, [r0:128]!
    vst1.64 {d0-d3}, [r0:128]!
    subs    r1, r1, #512
    bne     1b
    bx      lr

// copy: memcpy-style, `ldm r1!, {r3-r10}` then `stm r0!, {r3-r10}` (32 bytes each), four
// times = 128 bytes per iteration (8 of the loop's 10 instructions are loads or stores).
// r0 = destination, r1 = source, r2 = bytes (a non-zero multiple of 128).
.global mb_k_copy
.type mb_k_copy, %function
.balign 128
mb_k_copy:
    push    {r4-r11}
    .balign 128
1:  ldm     r1!, {r3-r10}
    stm     r0!, {r3-r10}
    ldm     r1!, {r3-r10}
    stm     r0!, {r3-r10}
    ldm     r1!, {r3-r10}
    stm     r0!, {r3-r10}
    ldm     r1!, {r3-r10}
    stm     r0!, {r3-r10}
    subs    r2, r2, #128
    bne     1b
    pop     {r4-r11}
    bx      lr

// copy-q: 4 x `vld1.64` then 4 x `vst1.64` of four d registers (128 bytes each way), twice =
// 256 bytes per iteration (16 of 18 instructions are loads or stores). r0 = destination,
// r1 = source (both 16-aligned), r2 = bytes (a non-zero multiple of 256).
.global mb_k_copy_q
.type mb_k_copy_q, %function
.balign 128
mb_k_copy_q:
1:  vld1.64 {d0-d3}, [r1:128]!
    vld1.64 {d4-d7}, [r1:128]!
    vld1.64 {d16-d19}, [r1:128]!
    vld1.64 {d20-d23}, [r1:128]!
    vst1.64 {d0-d3}, [r0:128]!
    vst1.64 {d4-d7}, [r0:128]!
    vst1.64 {d16-d19}, [r0:128]!
    vst1.64 {d20-d23}, [r0:128]!
    vld1.64 {d0-d3}, [r1:128]!
    vld1.64 {d4-d7}, [r1:128]!
    vld1.64 {d16-d19}, [r1:128]!
    vld1.64 {d20-d23}, [r1:128]!
    vst1.64 {d0-d3}, [r0:128]!
    vst1.64 {d4-d7}, [r0:128]!
    vst1.64 {d16-d19}, [r0:128]!
    vst1.64 {d20-d23}, [r0:128]!
    subs    r2, r2, #256
    bne     1b
    bx      lr

// write-line: 16 x `str r2, [r0], #64` = 1 KiB per iteration: one 4-byte store of 0xdeadbeef
// in each 64-byte line, a partial-line write that the cores' write streaming modes do not
// take for a full-line stream, so a miss allocates where the memory type says (r1: a multiple
// of 1024). Unlike the AArch64 loop's 8-byte store it writes the low word of the line's first
// 64-bit word only: the high word keeps what was laid there.
.global mb_k_write_line
.type mb_k_write_line, %function
.balign 128
mb_k_write_line:
    movw    r2, #0xbeef
    movt    r2, #0xdead
    .balign 128
1:  str     r2, [r0], #64
    str     r2, [r0], #64
    str     r2, [r0], #64
    str     r2, [r0], #64
    str     r2, [r0], #64
    str     r2, [r0], #64
    str     r2, [r0], #64
    str     r2, [r0], #64
    str     r2, [r0], #64
    str     r2, [r0], #64
    str     r2, [r0], #64
    str     r2, [r0], #64
    str     r2, [r0], #64
    str     r2, [r0], #64
    str     r2, [r0], #64
    str     r2, [r0], #64
    subs    r1, r1, #1024
    bne     1b
    bx      lr

// triad: STREAM's a = b + 3 * c in 32-bit integer lanes, one `vmla.i32` per q register (as
// the AArch64 triad's `mla`: integer, because the arithmetic is incidental to the memory
// traffic and emulated floating point would dominate it), 64 bytes of each array per
// iteration (2 vld1 of b, 2 of c, 4 vmla, 2 vst1: 6 of the 12 instructions are loads or
// stores). r0 = a, r1 = b, r2 = c (each 16-aligned), r3 = bytes of each (a non-zero multiple
// of 64). q0-q3 hold b and then a, q10-q13 hold c, q8 the 3s.
.global mb_k_triad
.type mb_k_triad, %function
.balign 128
mb_k_triad:
    vmov.i32 q8, #3
    .balign 128
1:  vld1.64 {d0-d3}, [r1:128]!
    vld1.64 {d4-d7}, [r1:128]!
    vld1.64 {d20-d23}, [r2:128]!
    vld1.64 {d24-d27}, [r2:128]!
    vmla.i32 q0, q10, q8
    vmla.i32 q1, q11, q8
    vmla.i32 q2, q12, q8
    vmla.i32 q3, q13, q8
    vst1.64 {d0-d3}, [r0:128]!
    vst1.64 {d4-d7}, [r0:128]!
    subs    r3, r3, #64
    bne     1b
    bx      lr
