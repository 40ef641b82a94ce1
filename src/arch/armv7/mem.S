// memcpy, memmove, memset, memcmp, bcmp and strlen for the 32-bit image and the twin on 32-bit
// Linux: their target's core, and the compiler (which turns a byte-counting loop into strlen),
// expect a C library to provide them (armv7-unknown-linux-gnueabihf; see .cargo/config.toml),
// and neither links one. The firmware calls them for struct copies, clears and string comparisons (never in a timed
// loop; the kernels are assembly of their own). Word accesses only when both addresses and
// the length are multiples of 4, else bytes: with the MMU off, data accesses are
// Strongly-ordered, where an unaligned access faults. A32, AAPCS.

    .syntax unified
    .arm
    .section .text.mem, "ax"

// void *memcpy(void *dst r0, const void *src r1, size_t n r2): returns dst.
    .global memcpy
    .type memcpy, %function
memcpy:
    mov     r12, r0
    orr     r3, r0, r1
    orr     r3, r3, r2
    tst     r3, #3
    bne     2f
1:  subs    r2, r2, #4
    ldrhs   r3, [r1], #4
    strhs   r3, [r12], #4
    bhi     1b
    bx      lr
2:  subs    r2, r2, #1
    ldrbhs  r3, [r1], #1
    strbhs  r3, [r12], #1
    bhi     2b
    bx      lr

// void *memmove(void *dst r0, const void *src r1, size_t n r2): memcpy when dst is below src
// or the ranges do not overlap, else bytes from the end.
    .global memmove
    .type memmove, %function
memmove:
    cmp     r0, r1
    bls     memcpy
    add     r3, r1, r2
    cmp     r0, r3
    bhs     memcpy
    add     r12, r0, r2
1:  subs    r2, r2, #1
    ldrbhs  r1, [r3, #-1]!
    strbhs  r1, [r12, #-1]!
    bhi     1b
    bx      lr

// void *memset(void *dst r0, int c r1, size_t n r2): returns dst.
    .global memset
    .type memset, %function
memset:
    mov     r12, r0
    and     r1, r1, #0xff
    orr     r3, r0, r2
    tst     r3, #3
    bne     2f
    orr     r1, r1, r1, lsl #8
    orr     r1, r1, r1, lsl #16
1:  subs    r2, r2, #4
    strhs   r1, [r12], #4
    bhi     1b
    bx      lr
2:  subs    r2, r2, #1
    strbhs  r1, [r12], #1
    bhi     2b
    bx      lr

// int memcmp(const void *a r0, const void *b r1, size_t n r2): the difference of the first
// differing bytes (unsigned), or 0. bcmp is the same (only zero or not matters to callers).
    .global memcmp
    .type memcmp, %function
    .global bcmp
    .type bcmp, %function
memcmp:
bcmp:
    mov     r12, r0
1:  subs    r2, r2, #1
    movlo   r0, #0
    bxlo    lr
    ldrb    r0, [r12], #1
    ldrb    r3, [r1], #1
    subs    r0, r0, r3
    beq     1b
    bx      lr

// size_t strlen(const char *s r0): the bytes before the first NUL.
    .global strlen
    .type strlen, %function
strlen:
    mov     r1, r0
1:  ldrb    r2, [r1], #1
    cmp     r2, #0
    bne     1b
    sub     r0, r1, r0
    sub     r0, r0, #1
    bx      lr
