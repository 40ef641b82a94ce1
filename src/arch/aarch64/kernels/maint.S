// Cache maintenance by virtual address over a range (Thomas Petazzoni's kmap_atomic_pfn()
// patch: maintenance by VA can dominate a driver's cost), one `DC <op>` per line, then DSB SY
// so the time includes completion. x0 = pointer (line-aligned), x1 = bytes (a non-zero
// multiple of the line), x2 = line size (CTR_EL0.DminLine).

.section .text.kernels, "ax"

.macro maint name, op
.global \name
.balign 128
\name:
1:  dc      \op, x0
    add     x0, x0, x2
    subs    x1, x1, x2
    b.ne    1b
    dsb     sy
    ret
.endm

maint mb_k_civac, civac
maint mb_k_cvac, cvac
maint mb_k_ivac, ivac
