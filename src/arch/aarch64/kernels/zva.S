// fill-zva: zero a range with DC ZVA, one block (DCZID_EL0) per instruction, unrolled 4x.
// Normal memory only: real cores take an alignment fault for DC ZVA to Device memory.
// x0 = pointer (block-aligned), x1 = bytes (a non-zero multiple of 4 blocks), x2 = block size.

.section .text.kernels, "ax"

.global mb_k_zva
.balign 128
mb_k_zva:
    lsl     x3, x2, #2
    .balign 128
1:  dc      zva, x0
    add     x0, x0, x2
    dc      zva, x0
    add     x0, x0, x2
    dc      zva, x0
    add     x0, x0, x2
    dc      zva, x0
    add     x0, x0, x2
    subs    x1, x1, x3
    b.ne    1b
    ret
