// latency: a dependent-load pointer chase in A32. Each cache line of the working set holds,
// in its first 32-bit word, the address of the next one in a random cyclic order (built by the
// caller; a 64-bit little-endian word holding a 32-bit address has it in its low word, so the
// chains the AArch64 callers lay serve as they are), so every load must wait for the previous
// one.
//
// Contract: mb_k_chase(start: u32, loads: u32) -> u32. r0 = first line's address (4-aligned),
// r1 = loads (a non-zero multiple of 8): 8 x `ldr r0, [r0]` per iteration; returns the last
// pointer loaded (where a next chase continues), so the chain cannot be optimized away. The
// loop starts on a 128-byte boundary; caller-saved registers only, no stack.

    .syntax unified
    .arm

.section .text.kernels, "ax"

.global mb_k_chase
.type mb_k_chase, %function
.balign 128
mb_k_chase:
1:  ldr     r0, [r0]
    ldr     r0, [r0]
    ldr     r0, [r0]
    ldr     r0, [r0]
    ldr     r0, [r0]
    ldr     r0, [r0]
    ldr     r0, [r0]
    ldr     r0, [r0]
    subs    r1, r1, #8
    bne     1b
    bx      lr
