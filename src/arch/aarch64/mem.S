// memcpy and memset for the image, in place of compiler_builtins' (weak) ones: the firmware
// calls them for struct copies and clears (a few KiB a run, never in a timed loop; the
// kernels are assembly of their own), where compiler_builtins' versions, tuned for large
// unaligned copies, took 864 bytes of text and these take 128. Word accesses only when both
// addresses and the length are multiples of 8, else bytes: with the MMU off, data accesses
// are Device-nGnRnE, where an unaligned access faults.

    .section .text.mem, "ax"

// void *memcpy(void *dst x0, const void *src x1, size_t n x2): returns dst.
    .global memcpy
    .type memcpy, %function
memcpy:
    mov     x3, x0
    orr     x4, x0, x1
    orr     x4, x4, x2
    tst     x4, #7
    b.ne    2f
1:  cbz     x2, 3f
    ldr     x4, [x1], #8
    str     x4, [x3], #8
    sub     x2, x2, #8
    b       1b
2:  cbz     x2, 3f
    ldrb    w4, [x1], #1
    strb    w4, [x3], #1
    sub     x2, x2, #1
    b       2b
3:  ret
    .size memcpy, . - memcpy

// void *memset(void *dst x0, int c w1, size_t n x2): returns dst.
    .global memset
    .type memset, %function
memset:
    mov     x3, x0
    orr     x4, x0, x2
    tst     x4, #7
    b.ne    2f
    and     x4, x1, #0xff
    mov     x5, #0x0101010101010101
    mul     x4, x4, x5
1:  cbz     x2, 3f
    str     x4, [x3], #8
    sub     x2, x2, #8
    b       1b
2:  cbz     x2, 3f
    strb    w1, [x3], #1
    sub     x2, x2, #1
    b       2b
3:  ret
    .size memset, . - memset
