// Every timed loop starts on a 128-byte boundary (`.balign 128` before its first
// instruction) and is shorter than 128 bytes, so it starts on a 64-byte line and never
// crosses a 4 KiB page (a test checks the placement in both binaries): a loop across a page
// costs a TLB lookup or, under QEMU, ends a translated block in every iteration.
//
// Streaming kernels: the ldp/stp loops of the public dma-buf report "Performance Anomaly
// Investigation", unrolled 16x so that 16 of the loop's 18
// instructions (89 %) are loads or stores (16 of 19, 84 %, for the non-temporal pairs). AAPCS64: x0 = pointer, x1 = bytes (a non-zero
// multiple of the bytes per iteration); caller-saved registers only.

.section .text.kernels, "ax"

// read-ldp: 16 x `ldp x, x, [p], #16` = 256 bytes per iteration.
.global mb_k_read_ldp
.balign 128
mb_k_read_ldp:
1:  ldp     x4, x5, [x0], #16
    ldp     x6, x7, [x0], #16
    ldp     x4, x5, [x0], #16
    ldp     x6, x7, [x0], #16
    ldp     x4, x5, [x0], #16
    ldp     x6, x7, [x0], #16
    ldp     x4, x5, [x0], #16
    ldp     x6, x7, [x0], #16
    ldp     x4, x5, [x0], #16
    ldp     x6, x7, [x0], #16
    ldp     x4, x5, [x0], #16
    ldp     x6, x7, [x0], #16
    ldp     x4, x5, [x0], #16
    ldp     x6, x7, [x0], #16
    ldp     x4, x5, [x0], #16
    ldp     x6, x7, [x0], #16
    subs    x1, x1, #256
    b.ne    1b
    ret

// write-stp: 16 x `stp x, x, [p], #16` = 256 bytes per iteration; the dma-buf report's
// values 0xdeadbeef, 0xcafebabe alternate in memory.
.global mb_k_write_stp
.balign 128
mb_k_write_stp:
    mov     x4, #0xbeef
    movk    x4, #0xdead, lsl #16
    mov     x5, #0xbabe
    movk    x5, #0xcafe, lsl #16
    .balign 128
1:  stp     x4, x5, [x0], #16
    stp     x4, x5, [x0], #16
    stp     x4, x5, [x0], #16
    stp     x4, x5, [x0], #16
    stp     x4, x5, [x0], #16
    stp     x4, x5, [x0], #16
    stp     x4, x5, [x0], #16
    stp     x4, x5, [x0], #16
    stp     x4, x5, [x0], #16
    stp     x4, x5, [x0], #16
    stp     x4, x5, [x0], #16
    stp     x4, x5, [x0], #16
    stp     x4, x5, [x0], #16
    stp     x4, x5, [x0], #16
    stp     x4, x5, [x0], #16
    stp     x4, x5, [x0], #16
    subs    x1, x1, #256
    b.ne    1b
    ret

// read-ldp-q: 16 x `ldp q, q, [p], #32` = 512 bytes per iteration (v0-v3 are caller-saved).
.global mb_k_read_ldp_q
.balign 128
mb_k_read_ldp_q:
1:  ldp     q0, q1, [x0], #32
    ldp     q2, q3, [x0], #32
    ldp     q0, q1, [x0], #32
    ldp     q2, q3, [x0], #32
    ldp     q0, q1, [x0], #32
    ldp     q2, q3, [x0], #32
    ldp     q0, q1, [x0], #32
    ldp     q2, q3, [x0], #32
    ldp     q0, q1, [x0], #32
    ldp     q2, q3, [x0], #32
    ldp     q0, q1, [x0], #32
    ldp     q2, q3, [x0], #32
    ldp     q0, q1, [x0], #32
    ldp     q2, q3, [x0], #32
    ldp     q0, q1, [x0], #32
    ldp     q2, q3, [x0], #32
    subs    x1, x1, #512
    b.ne    1b
    ret

// write-stp-q: 16 x `stp q, q, [p], #32` = 512 bytes per iteration, same values as write-stp.
.global mb_k_write_stp_q
.balign 128
mb_k_write_stp_q:
    mov     x4, #0xbeef
    movk    x4, #0xdead, lsl #16
    mov     x5, #0xbabe
    movk    x5, #0xcafe, lsl #16
    fmov    d0, x4
    mov     v0.d[1], x5
    .balign 128
1:  stp     q0, q0, [x0], #32
    stp     q0, q0, [x0], #32
    stp     q0, q0, [x0], #32
    stp     q0, q0, [x0], #32
    stp     q0, q0, [x0], #32
    stp     q0, q0, [x0], #32
    stp     q0, q0, [x0], #32
    stp     q0, q0, [x0], #32
    stp     q0, q0, [x0], #32
    stp     q0, q0, [x0], #32
    stp     q0, q0, [x0], #32
    stp     q0, q0, [x0], #32
    stp     q0, q0, [x0], #32
    stp     q0, q0, [x0], #32
    stp     q0, q0, [x0], #32
    stp     q0, q0, [x0], #32
    subs    x1, x1, #512
    b.ne    1b
    ret

// read-ldnp: 16 x `ldnp x, x, [p, #off]` = 256 bytes per iteration. LDNP has no
// post-index form, so the offsets step through the 256 bytes and one add moves p (16 of
// the loop's 19 instructions are loads). The non-temporal hint is the streaming hint of
// tinymembench's STNP fill; a core may treat it as a plain ldp, or not allocate the lines.
.global mb_k_read_ldnp
.balign 128
mb_k_read_ldnp:
1:  ldnp    x4, x5, [x0, #0]
    ldnp    x6, x7, [x0, #16]
    ldnp    x4, x5, [x0, #32]
    ldnp    x6, x7, [x0, #48]
    ldnp    x4, x5, [x0, #64]
    ldnp    x6, x7, [x0, #80]
    ldnp    x4, x5, [x0, #96]
    ldnp    x6, x7, [x0, #112]
    ldnp    x4, x5, [x0, #128]
    ldnp    x6, x7, [x0, #144]
    ldnp    x4, x5, [x0, #160]
    ldnp    x6, x7, [x0, #176]
    ldnp    x4, x5, [x0, #192]
    ldnp    x6, x7, [x0, #208]
    ldnp    x4, x5, [x0, #224]
    ldnp    x6, x7, [x0, #240]
    add     x0, x0, #256
    subs    x1, x1, #256
    b.ne    1b
    ret

// write-stnp: 16 x `stnp x, x, [p, #off]` = 256 bytes per iteration, the same values as
// write-stp (0xdeadbeef, 0xcafebabe alternating in memory); offsets and one add as in
// read-ldnp (16 of 19 instructions are stores).
.global mb_k_write_stnp
.balign 128
mb_k_write_stnp:
    mov     x4, #0xbeef
    movk    x4, #0xdead, lsl #16
    mov     x5, #0xbabe
    movk    x5, #0xcafe, lsl #16
    .balign 128
1:  stnp    x4, x5, [x0, #0]
    stnp    x4, x5, [x0, #16]
    stnp    x4, x5, [x0, #32]
    stnp    x4, x5, [x0, #48]
    stnp    x4, x5, [x0, #64]
    stnp    x4, x5, [x0, #80]
    stnp    x4, x5, [x0, #96]
    stnp    x4, x5, [x0, #112]
    stnp    x4, x5, [x0, #128]
    stnp    x4, x5, [x0, #144]
    stnp    x4, x5, [x0, #160]
    stnp    x4, x5, [x0, #176]
    stnp    x4, x5, [x0, #192]
    stnp    x4, x5, [x0, #208]
    stnp    x4, x5, [x0, #224]
    stnp    x4, x5, [x0, #240]
    add     x0, x0, #256
    subs    x1, x1, #256
    b.ne    1b
    ret

// copy: memcpy-style, 4 x ldp then 4 x stp, twice = 128 bytes per iteration (16 of 18
// instructions are loads or stores). x0 = destination, x1 = source, x2 = bytes (a non-zero
// multiple of 128).
.global mb_k_copy
.balign 128
mb_k_copy:
1:  ldp     x4, x5, [x1], #16
    ldp     x6, x7, [x1], #16
    ldp     x8, x9, [x1], #16
    ldp     x10, x11, [x1], #16
    stp     x4, x5, [x0], #16
    stp     x6, x7, [x0], #16
    stp     x8, x9, [x0], #16
    stp     x10, x11, [x0], #16
    ldp     x4, x5, [x1], #16
    ldp     x6, x7, [x1], #16
    ldp     x8, x9, [x1], #16
    ldp     x10, x11, [x1], #16
    stp     x4, x5, [x0], #16
    stp     x6, x7, [x0], #16
    stp     x8, x9, [x0], #16
    stp     x10, x11, [x0], #16
    subs    x2, x2, #128
    b.ne    1b
    ret

// copy-q: 4 x ldp q then 4 x stp q, twice = 256 bytes per iteration (16 of 18 instructions
// are loads or stores; v0-v7 are caller-saved). x0 = destination, x1 = source, x2 = bytes (a
// non-zero multiple of 256).
.global mb_k_copy_q
.balign 128
mb_k_copy_q:
1:  ldp     q0, q1, [x1], #32
    ldp     q2, q3, [x1], #32
    ldp     q4, q5, [x1], #32
    ldp     q6, q7, [x1], #32
    stp     q0, q1, [x0], #32
    stp     q2, q3, [x0], #32
    stp     q4, q5, [x0], #32
    stp     q6, q7, [x0], #32
    ldp     q0, q1, [x1], #32
    ldp     q2, q3, [x1], #32
    ldp     q4, q5, [x1], #32
    ldp     q6, q7, [x1], #32
    stp     q0, q1, [x0], #32
    stp     q2, q3, [x0], #32
    stp     q4, q5, [x0], #32
    stp     q6, q7, [x0], #32
    subs    x2, x2, #256
    b.ne    1b
    ret

// write-line: 16 x `str x, [p], #64` = 1 KiB per iteration: one 8-byte store in each
// 64-byte line, a partial-line write that the cores' write streaming modes do not take for a
// full-line stream, so a miss allocates where the memory type says (x1: a multiple of 1024).
.global mb_k_write_line
.balign 128
mb_k_write_line:
    mov     x4, #0xbeef
    movk    x4, #0xdead, lsl #16
    .balign 128
1:  str     x4, [x0], #64
    str     x4, [x0], #64
    str     x4, [x0], #64
    str     x4, [x0], #64
    str     x4, [x0], #64
    str     x4, [x0], #64
    str     x4, [x0], #64
    str     x4, [x0], #64
    str     x4, [x0], #64
    str     x4, [x0], #64
    str     x4, [x0], #64
    str     x4, [x0], #64
    str     x4, [x0], #64
    str     x4, [x0], #64
    str     x4, [x0], #64
    str     x4, [x0], #64
    subs    x1, x1, #1024
    b.ne    1b
    ret

// triad: STREAM's a = b + 3 * c, in 32-bit integer lanes (one `mla` per q register, as
// STREAM's one fmla per pair of doubles: the arithmetic is incidental to the memory traffic,
// and under QEMU floating point runs in software, many times slower than the loads), 64
// bytes of each array per iteration (2 ldp q of b, 2 of c, 4 mla, 2 stp q: 6 of the 12
// instructions are loads or stores; v0-v7 and v16 are caller-saved). x0 = a, x1 = b, x2 = c,
// x3 = bytes of each (a non-zero multiple of 64).
.global mb_k_triad
.balign 128
mb_k_triad:
    movi    v16.4s, #3
    .balign 128
1:  ldp     q0, q1, [x1], #32
    ldp     q2, q3, [x1], #32
    ldp     q4, q5, [x2], #32
    ldp     q6, q7, [x2], #32
    mla     v0.4s, v4.4s, v16.4s
    mla     v1.4s, v5.4s, v16.4s
    mla     v2.4s, v6.4s, v16.4s
    mla     v3.4s, v7.4s, v16.4s
    stp     q0, q1, [x0], #32
    stp     q2, q3, [x0], #32
    subs    x3, x3, #64
    b.ne    1b
    ret
