// Strided and random reads: one `ldr x` per 64-byte line of the working set, every line once
// per pass, in an order a prefetcher can follow (a fixed stride) or cannot (random). What
// they count is the lines' span, 64 bytes per load. As in stream.S, each loop starts on a
// 128-byte boundary and is shorter than 128 bytes; AAPCS64, caller-saved registers only.

.section .text.kernels, "ax"

// read-stride: x0 = first line, x1 = bytes (a non-zero multiple of x2), x2 = the stride (a
// power of two from 64 to 4096). From each of the first x2/64 lines, the lines x2 apart to
// the end of the set: 4 instructions per load (the load, the step, the bound, the branch).
.global mb_k_read_stride
.balign 128
mb_k_read_stride:
    add     x3, x0, x1
    add     x5, x0, x2
    .balign 128
1:  mov     x4, x0
2:  ldr     x6, [x4]
    add     x4, x4, x2
    cmp     x4, x3
    b.lo    2b
    add     x0, x0, #64
    cmp     x0, x5
    b.ne    1b
    ret

// read-random: x0 = first line, x1 = lines (a power of two, at least 4), x2 = the multiplier
// (1 mod 4), x3 = the increment (odd): the line indices i = i * x2 + x3 modulo the lines
// (a full period: every line once per pass), bit-reversed within the index's width; 4 loads
// per iteration. For 2^k lines, rbit puts the index's k bits at the top: shifted right by
// 61 - k (clz(lines) - 2) they are the index times 8, and `lsl #3` makes it the line's offset. Each address depends on the previous index, not on loaded data, so the
// loads overlap (mairbench_core::kernel::Order::Random).
.macro random_load
    madd    x4, x4, x2, x3
    and     x4, x4, x5
    rbit    x8, x4
    lsr     x8, x8, x6
    ldr     x9, [x0, x8, lsl #3]
.endm

.global mb_k_read_random
.balign 128
mb_k_read_random:
    sub     x5, x1, #1
    clz     x6, x1
    sub     x6, x6, #2
    mov     x4, #0
    mov     x7, x1
    .balign 128
1:  random_load
    random_load
    random_load
    random_load
    subs    x7, x7, #4
    b.ne    1b
    ret
