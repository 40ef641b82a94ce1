// latency: a dependent-load pointer chase. Each cache line of the working set holds the
// address of the next one in a random cyclic order (built by the caller), so every load must
// wait for the previous one. x0 = first line, x1 = loads (a non-zero multiple of 8);
// returns the last pointer, so the chain cannot be optimized away.

.section .text.kernels, "ax"

.global mb_k_chase
.balign 128
mb_k_chase:
1:  ldr     x0, [x0]
    ldr     x0, [x0]
    ldr     x0, [x0]
    ldr     x0, [x0]
    ldr     x0, [x0]
    ldr     x0, [x0]
    ldr     x0, [x0]
    ldr     x0, [x0]
    subs    x1, x1, #8
    b.ne    1b
    ret
