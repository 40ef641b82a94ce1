// Cache maintenance by virtual address over a range (Thomas Petazzoni's kmap_atomic_pfn()
// patch: maintenance by VA can dominate a driver's cost), one CP15 operation per line, then
// DSB SY so the time includes completion. ARMv7-A has these at PL1 only (the firmware; a
// Linux process takes an undefined-instruction exception), and it has no DC ZVA: no fill loop.
//
// Contracts: mb_k_dccimvac(p: u32, len: u32, line: u32), mb_k_dccmvac(..), mb_k_dcimvac(..):
// r0 = pointer (line-aligned), r1 = bytes (a non-zero multiple of the line), r2 = line size
// (4 << CTR.DminLine); per line:
//   mb_k_dccimvac: `mcr p15, 0, r0, c7, c14, 1` (DCCIMVAC, clean and invalidate to the PoC)
//   mb_k_dccmvac:  `mcr p15, 0, r0, c7, c10, 1` (DCCMVAC, clean to the PoC)
//   mb_k_dcimvac:  `mcr p15, 0, r0, c7, c6, 1`  (DCIMVAC, invalidate to the PoC)
// Each loop starts on a 128-byte boundary; caller-saved registers only, no stack.

    .syntax unified
    .arm

.section .text.kernels, "ax"

.macro maint name, crm
.global \name
.type \name, %function
.balign 128
\name:
1:  mcr     p15, 0, r0, c7, \crm, 1
    add     r0, r0, r2
    subs    r1, r1, r2
    bne     1b
    dsb     sy
    bx      lr
.endm

maint mb_k_dccimvac, c14
maint mb_k_dccmvac, c10
maint mb_k_dcimvac, c6
