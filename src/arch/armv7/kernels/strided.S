// Strided and random reads in A32: one `ldr` of a 32-bit word per 64-byte line of the working
// set, every line once per pass, in an order a prefetcher can follow (a fixed stride) or
// cannot (random). What they count is the lines' span, 64 bytes per load. As in stream.S,
// each loop starts on a 128-byte boundary and is shorter than 128 bytes; AAPCS, callee-saved
// registers pushed and popped outside the loop, no stack inside it.
//
// This file is a `global_asm!` template (loops.rs): `{multiplier}` and `{increment}` are the
// low 32 bits of mairbench_core::kernel::RANDOM_MULTIPLIER and RANDOM_INCREMENT, set from
// the Rust constants; write no other braces here.

    .syntax unified
    .arm

.section .text.kernels, "ax"

// read-stride: mb_k_read_stride(p: u32, len: u32, stride: u32). r0 = first line (4-aligned),
// r1 = bytes (a non-zero multiple of r2, p + len not wrapping past 2^32), r2 = the stride (a
// power of two from 64 to 4096). From each of the first r2/64 lines, the lines r2 apart to the
// end of the set: 4 instructions per load (the load, the step, the bound, the branch), as in
// the AArch64 loop.
.global mb_k_read_stride
.type mb_k_read_stride, %function
.balign 128
mb_k_read_stride:
    str     r4, [sp, #-8]!
    add     r3, r0, r1
    add     r12, r0, r2
    .balign 128
1:  mov     r1, r0
2:  ldr     r4, [r1]
    add     r1, r1, r2
    cmp     r1, r3
    blo     2b
    add     r0, r0, #64
    cmp     r0, r12
    bne     1b
    ldr     r4, [sp], #8
    bx      lr

// read-random: mb_k_read_random(p: u32, lines: u32). r0 = first line (4-aligned), r1 = lines
// (a power of two 2^k, 4 <= lines <= 2^26). The line indices are core's random order
// (mairbench_core::kernel::random_order): i = (i * RANDOM_MULTIPLIER + RANDOM_INCREMENT)
// mod 2^k from i = 0, each loaded line the index bit-reversed within its k bits; 4 loads per
// iteration, `lines` loads a pass.
//
// 32-bit arithmetic gives the same indices as core's 64-bit: the low k bits of a sum or a
// product depend only on the low k bits of its operands, and k <= 26 < 32, so
// (i * M + C) mod 2^k = (i * (M mod 2^32) + (C mod 2^32)) mod 2^32 mod 2^k, and the state
// (masked to k bits after every step, as core's is) never needs more. For i < 2^k, `rbit`
// puts its k bits at the top of the word (bits 31 down to 32 - k): the k-bit reversal is
// rbit(i) >> (32 - k), and the line's byte offset (times 64) is rbit(i) >> (26 - k), exact
// because rbit(i)'s low 32 - k bits are zero; 26 - k = clz(lines) - 5. Each address depends
// on the previous index, not on loaded data, so the loads overlap.
.macro random_load
    mla     r6, r6, r4, r5
    and     r6, r6, r2
    rbit    r12, r6
    lsr     r12, r12, r3
    ldr     r12, [r0, r12]
.endm

.global mb_k_read_random
.type mb_k_read_random, %function
.balign 128
mb_k_read_random:
    strd    r4, r5, [sp, #-16]!
    str     r6, [sp, #8]
    sub     r2, r1, #1
    clz     r3, r1
    sub     r3, r3, #5
    movw    r4, #({multiplier} & 0xffff)
    movt    r4, #({multiplier} >> 16)
    movw    r5, #({increment} & 0xffff)
    movt    r5, #({increment} >> 16)
    mov     r6, #0
    .balign 128
1:  random_load
    random_load
    random_load
    random_load
    subs    r1, r1, #4
    bne     1b
    ldr     r6, [sp, #8]
    ldrd    r4, r5, [sp], #16
    bx      lr
