// Laying and checking the benchmark's data patterns (mairbench_core::pattern) with stp/ldp
// pairs, 64 bytes per iteration: a Rust loop of single volatile words runs several times
// slower, most of all under QEMU, and lay + check come with every point.
// AAPCS64: x0 = pointer (16-byte aligned), x1 = bytes (a non-zero multiple of 64); x2 = the
// Xor key, or x2/x3 = the Pair values. Caller-saved registers only.

.section .text.buffer, "ax"

// Pattern::Xor: word at offset off = off ^ key; the pair at off (a multiple of 16) is
// (off ^ key, off ^ key ^ 8).
.macro xor_pair a, b
    eor     \a, x5, x2
    eor     \b, \a, #8
    add     x5, x5, #16
.endm

.global mb_fill_xor
.balign 64
mb_fill_xor:
    mov     x5, #0
1:  xor_pair x6, x7
    xor_pair x8, x9
    xor_pair x10, x11
    xor_pair x12, x13
    stp     x6, x7, [x0]
    stp     x8, x9, [x0, #16]
    stp     x10, x11, [x0, #32]
    stp     x12, x13, [x0, #48]
    add     x0, x0, #64
    subs    x1, x1, #64
    b.ne    1b
    ret

.global mb_fill_pair
.balign 64
mb_fill_pair:
1:  stp     x2, x3, [x0]
    stp     x2, x3, [x0, #16]
    stp     x2, x3, [x0, #32]
    stp     x2, x3, [x0, #48]
    add     x0, x0, #64
    subs    x1, x1, #64
    b.ne    1b
    ret

// Returns the offset of the first 64-byte block holding a word that differs, or the length:
// the Xor words (x2 the key), each block's first word compared with `first` (x14, the Xor
// word itself; or x3 for Pattern::Lines, what write-line stored there).
.macro find_xor_words name, first
.global \name
.balign 64
\name:
    mov     x5, #0
1:  ldp     x6, x7, [x0]
    ldp     x8, x9, [x0, #16]
    ldp     x10, x11, [x0, #32]
    ldp     x12, x13, [x0, #48]
    mov     x4, x5
    xor_pair x14, x15
    eor     x6, x6, \first
    eor     x7, x7, x15
    xor_pair x14, x15
    eor     x8, x8, x14
    eor     x9, x9, x15
    xor_pair x14, x15
    eor     x10, x10, x14
    eor     x11, x11, x15
    xor_pair x14, x15
    eor     x12, x12, x14
    eor     x13, x13, x15
    orr     x6, x6, x7
    orr     x8, x8, x9
    orr     x10, x10, x11
    orr     x12, x12, x13
    orr     x6, x6, x8
    orr     x10, x10, x12
    orr     x6, x6, x10
    cbnz    x6, 2f
    add     x0, x0, #64
    subs    x1, x1, #64
    b.ne    1b
    mov     x0, x5
    ret
2:  mov     x0, x4
    ret
.endm

find_xor_words mb_find_xor, x14
find_xor_words mb_find_lines, x3

.global mb_find_pair
.balign 64
mb_find_pair:
    mov     x5, #0
1:  ldp     x6, x7, [x0]
    ldp     x8, x9, [x0, #16]
    ldp     x10, x11, [x0, #32]
    ldp     x12, x13, [x0, #48]
    eor     x6, x6, x2
    eor     x7, x7, x3
    eor     x8, x8, x2
    eor     x9, x9, x3
    eor     x10, x10, x2
    eor     x11, x11, x3
    eor     x12, x12, x2
    eor     x13, x13, x3
    orr     x6, x6, x7
    orr     x8, x8, x9
    orr     x10, x10, x11
    orr     x12, x12, x13
    orr     x6, x6, x8
    orr     x10, x10, x12
    orr     x6, x6, x10
    cbnz    x6, 2f
    add     x0, x0, #64
    add     x5, x5, #64
    subs    x1, x1, #64
    b.ne    1b
2:  mov     x0, x5
    ret
