// mairbench's 32-bit entry: a Linux zImage header, the drop from HYP to SVC, the caches off,
// relocation, BSS, the stacks, VFP/NEON, and Rust. A32 code throughout.
//
// Boot protocol (Linux's Documentation/arch/arm/booting.rst, which QEMU's -kernel and
// U-Boot's bootz and bootm follow): r0 = 0, r1 = the machine type (~0 with a device tree),
// r2 = the device tree's physical address; SVC mode, or HYP mode where the loader has
// virtualization; IRQ and FIQ masked; the MMU off and the D-cache off, or (older bootm
// loaders) on, which the code below copes with as boot/aarch64/entry.S does.
//
// Registers kept across the early code, then handed to Rust as `Entry` (src/arch/armv7/mod.rs):
//   r4 = DTB address from the boot loader   r5 = CPSR at entry (its mode: SVC or HYP)
//   r6 = runtime address of _head           r7 = SCTLR at entry
//   r8 = DCCISW operations issued at entry  r9 = count of unsupported relocations

.syntax unified
.arm
.fpu neon
.arch_extension virt
.arch_extension sec

.equ MODE_MASK,     0x1f
.equ MODE_FIQ,      0x11
.equ MODE_IRQ,      0x12
.equ MODE_SVC,      0x13
.equ MODE_ABT,      0x17
.equ MODE_HYP,      0x1a
.equ MODE_UND,      0x1b
.equ PSR_AIF,       0x1c0
.equ SCTLR_M,       (1 << 0)
.equ SCTLR_A,       (1 << 1)
.equ SCTLR_C,       (1 << 2)
.equ SCTLR_Z,       (1 << 11)
.equ SCTLR_I,       (1 << 12)
.equ SCTLR_V,       (1 << 13)
.equ SCTLR_TRE,     (1 << 28)
.equ SCTLR_AFE,     (1 << 29)
.equ CPACR_VFP_ON,  (0xf << 20)            // cp10 and cp11: full access at PL0 and PL1
.equ FPEXC_EN,      (1 << 30)

// \reg = the runtime address of \sym, PC-relative (a link-time difference, never relocated).
.macro ladr reg, sym
    ldr     \reg, .Loff\@
.Lpc\@:
    add     \reg, pc, \reg
    b       .Lend\@
.Loff\@:
    .word   \sym - (.Lpc\@ + 8)
.Lend\@:
.endm

// In HYP mode (CPSR in r5): what Linux's __hyp_stub_install leaves for its kernel
// (arch/arm/kernel/hyp-stub.S): PL1 reads the physical counter, the virtual counter equals
// it, no CP15, VFP or NEON traps and no stage 2; then the exception return to SVC. In SVC
// mode: nothing. Clobbers r0.
.macro hyp_to_svc
    and     r0, r5, #MODE_MASK
    cmp     r0, #MODE_HYP
    bne     .Lsvc\@
    mrc     p15, 4, r0, c14, c1, 0  // CNTHCTL
    orr     r0, r0, #3              // PL1PCEN | PL1PCTEN
    mcr     p15, 4, r0, c14, c1, 0
    mov     r0, #0
    mcrr    p15, 4, r0, r0, c14     // CNTVOFF = 0
    mcr     p15, 4, r0, c1, c1, 3   // HSTR = 0
    mcr     p15, 4, r0, c1, c1, 0   // HCR = 0
    mrc     p15, 4, r0, c1, c1, 2   // HCPTR
    bic     r0, r0, #(3 << 10)      // TCP10, TCP11
    bic     r0, r0, #(1 << 15)      // TASE
    bic     r0, r0, #(1 << 31)      // TCPAC
    mcr     p15, 4, r0, c1, c1, 2
    isb
    mov     r0, #(MODE_SVC | PSR_AIF)
    msr     spsr_hyp, r0
    adr     r0, .Lsvc\@
    msr     elr_hyp, r0
    eret
.Lsvc\@:
.endm

// Vectors at VBAR (SCTLR.V clear), the known SCTLR state (MMU, D-cache, alignment checks,
// TEX remap and the access flag model off, the I-cache and branch prediction on: every CPU
// alike, whatever a boot loader left on the boot CPU), and VFP and NEON where the core
// has them (CPACR's cp10 bits read back as set). Clobbers r0.
.macro pl1_state
    ladr    r0, mb_vectors
    mcr     p15, 0, r0, c12, c0, 0
    mrc     p15, 0, r0, c1, c0, 0
    bic     r0, r0, #(SCTLR_M | SCTLR_A | SCTLR_C)
    bic     r0, r0, #SCTLR_V
    bic     r0, r0, #(SCTLR_TRE | SCTLR_AFE)
    orr     r0, r0, #(SCTLR_I | SCTLR_Z)
    mcr     p15, 0, r0, c1, c0, 0
    mov     r0, #0
    mcr     p15, 0, r0, c7, c5, 0   // ICIALLU
    dsb
    isb
    mrc     p15, 0, r0, c1, c0, 2
    orr     r0, r0, #CPACR_VFP_ON
    mcr     p15, 0, r0, c1, c0, 2
    isb
    mrc     p15, 0, r0, c1, c0, 2
    tst     r0, #(3 << 20)
    movne   r0, #FPEXC_EN
    vmsrne  fpexc, r0
.endm

// The first 0x40 bytes are a zImage header (arch/arm/boot/compressed/head.S): eight NOPs,
// the branch, then the magic at 0x24 that U-Boot's bootz looks for. A start address of 0
// says the image runs where it is loaded.
.section .text.head, "ax"
.global _head
_head:
    .rept 8
    mov     r0, r0
    .endr
    b       primary_entry
    .word   0x016f2818              // zImage magic
    .word   0                       // start: position independent
    .word   __file_size             // end: the bytes to load
    .word   0x04030201              // little-endian
    .word   0x45454545              // the second magic (a table follows: none)
    .word   0

.section .text.boot, "ax"
primary_entry:
    cpsid   aif
    mov     r4, r2
    mrs     r5, cpsr
    hyp_to_svc
    mrc     p15, 0, r7, c1, c0, 0   // SCTLR as the loader left it
    mov     r8, #0
    tst     r7, #(SCTLR_M | SCTLR_C)
    blne    caches_off

    // Relocation: r2 = runtime minus link address; RELR entries are runtime-relative.
    adr     r6, _head
    ldr     r0, =__link_base        // an absolute symbol: no relocation of its own
    sub     r2, r6, r0
    ladr    r0, __relr_start
    ladr    r1, __relr_end
    mov     r3, #0
2:  cmp     r0, r1
    bhs     5f
    ldr     r10, [r0], #4
    tst     r10, #1
    bne     3f
    add     r3, r10, r2             // an address: relocate the word there, then go on
    ldr     r11, [r3]
    add     r11, r11, r2
    str     r11, [r3], #4
    b       2b
3:  mov     r12, r3                 // a bitmap of the 31 words from r3
    lsr     r10, r10, #1
4:  tst     r10, #1
    ldrne   r11, [r12]
    addne   r11, r11, r2
    strne   r11, [r12]
    add     r12, r12, #4
    lsrs    r10, r10, #1
    bne     4b
    add     r3, r3, #(31 * 4)
    b       2b
5:  ladr    r0, __rel_start         // anything else is a relocation this code does not apply
    ladr    r1, __rel_end
    sub     r9, r1, r0
    lsr     r9, r9, #3

    // BSS.
    ladr    r0, __bss_start
    ladr    r1, __bss_end
    mov     r2, #0
6:  cmp     r0, r1
    strlo   r2, [r0], #4
    blo     6b

    // Stacks: SVC's, and one exception stack for the modes that take exceptions.
    ladr    r0, __exception_stack_top
    cps     #MODE_ABT
    mov     sp, r0
    cps     #MODE_UND
    mov     sp, r0
    cps     #MODE_IRQ
    mov     sp, r0
    cps     #MODE_FIQ
    mov     sp, r0
    cps     #MODE_SVC
    ladr    sp, __stack_top

    pl1_state

    bl      early_map

    // Rust, with what the entry saw.
    push    {r4-r9}
    mov     r0, sp
    bl      rust_main
7:  wfe
    b       7b

// A secondary CPU, started by PSCI CPU_ON with r0 = its stack block (the context ID
// src/arch/shared/smp/start.rs passes), or from mailbox_entry below: HYP to SVC, the boot CPU's
// regime once published (mb_secondary_handoff: published last, each word cleaned to memory
// first, then DSB and SEV), the MMU on before any stack is used (as the AArch64 image's
// secondaries, and for the same reason: a stack written with the caches off could be shadowed
// by stale lines), its stacks, then secondary_main(block, entry level).
.global secondary_entry
secondary_entry:
    cpsid   aif
    mov     r4, r0
    mrs     r5, cpsr
    hyp_to_svc
    pl1_state
    // The SMP bits the boot CPU's core needs (mb_smp_needs, src/arch/armv7/cpu.rs), set
    // before this CPU's caches go on; a write ACTLR does not take here is ignored.
    ladr    r3, mb_smp_needs
    ldr     r1, [r3]
    cmp     r1, #0
    mrcne   p15, 0, r0, c1, c0, 1
    orrne   r0, r0, r1
    mcrne   p15, 0, r0, c1, c0, 1
    isb
    ladr    r3, mb_secondary_handoff
1:  ldr     r0, [r3]                // published (its low word)
    dmb
    cmp     r0, #0
    bne     2f
    wfe
    b       1b
2:  ldr     r0, [r3, #HANDOFF_BLOCKS]
    sub     r1, r4, #1
    cmp     r1, r0
    bhs     4f                      // a block its tables do not map: park
    // What translation::enable does on the boot CPU, with the same registers.
    ldr     r0, [r3, #HANDOFF_MAIR]
    mcr     p15, 0, r0, c10, c2, 0  // MAIR0
    ldr     r0, [r3, #(HANDOFF_MAIR + 4)]
    mcr     p15, 0, r0, c10, c2, 1  // MAIR1
    ldr     r0, [r3, #HANDOFF_TCR]
    mcr     p15, 0, r0, c2, c0, 2   // TTBCR
    ldr     r6, =SCTLR_MMU_ON_SHORT // the SCTLR bits to set, kept in r6 (no stack yet)
    tst     r0, #(1 << 31)          // EAE: LPAE, else short descriptors (no MCRR there)
    ldr     r0, [r3, #HANDOFF_TTBR0]
    beq     3f
    ldr     r1, [r3, #(HANDOFF_TTBR0 + 4)]
    mcrr    p15, 0, r0, r1, c2      // TTBR0 (64-bit)
    ldr     r6, =SCTLR_MMU_ON
    b       5f
3:  mcr     p15, 0, r0, c2, c0, 0   // TTBR0 (32-bit)
    ldr     r0, =0x55555555         // DACR: every domain a client
    mcr     p15, 0, r0, c3, c0, 0
5:  isb
    mov     r0, #0
    mcr     p15, 0, r0, c8, c7, 0   // TLBIALL
    dsb
    isb
    mcr     p15, 0, r0, c7, c5, 0   // ICIALLU
    mcr     p15, 0, r0, c7, c5, 6   // BPIALL
    dsb
    mrc     p15, 0, r0, c1, c0, 0
    orr     r0, r0, r6
    mcr     p15, 0, r0, c1, c0, 0
    isb
    // The MMU and caches are on: the stacks are Normal write-back, as on every other CPU.
    ladr    r0, __secondary_stacks
    sub     r1, r4, #1
    ldr     r2, =SECONDARY_BLOCK
    mla     r0, r1, r2, r0
    add     r1, r0, #0x8000         // top of the 8 KiB exception stack above the second guard
    cps     #MODE_ABT
    mov     sp, r1
    cps     #MODE_UND
    mov     sp, r1
    cps     #MODE_IRQ
    mov     sp, r1
    cps     #MODE_FIQ
    mov     sp, r1
    cps     #MODE_SVC
    add     sp, r0, #0x5000         // top of the 16 KiB stack above the first guard
    mov     r0, r4
    and     r1, r5, #MODE_MASK
    cmp     r1, #MODE_HYP
    moveq   r1, #2
    movne   r1, #1
    bl      secondary_main
4:  wfe
    b       4b

// A CPU released from the BCM2836's boot stub through its mailbox (src/arch/armv7/smp/
// mailbox.rs) jumps here, MMU off, with nothing of the firmware's in its registers: it finds its
// stack block by looking its own MPIDR up in mb_release_mpidr (1 << 31 | the affinity fields,
// cleaned to memory before the release), then goes the PSCI CPU's way, as the AArch64 image's
// spin_table_entry does. A CPU whose MPIDR is not there waits forever.
.global mailbox_entry
mailbox_entry:
    cpsid   aif
    mrc     p15, 0, r1, c0, c0, 5   // MPIDR
    bic     r1, r1, #0xff000000     // the affinity fields, Aff2..Aff0
    orr     r1, r1, #(1 << 31)
    ladr    r3, mb_release_mpidr
    mov     r0, #1
1:  cmp     r0, #MAX_CPUS
    bhs     2f
    ldr     r2, [r3, r0, lsl #2]
    cmp     r2, r1
    beq     secondary_entry         // r0 = its block
    add     r0, r0, #1
    b       1b
2:  wfe
    b       2b

// The early identity map, for the Rust code that runs before memory set-up: the core
// library this image links (armv7-unknown-linux-gnueabihf's) makes unaligned accesses, which
// fault on Strongly-ordered memory, which is what every data access is with the MMU off. So,
// on a core with LPAE, the MMU goes on at once with the data cache still off: the 2 MiB
// blocks of the image and of the device tree are Normal memory (non-cacheable while SCTLR.C
// is clear), everything else Strongly-ordered and execute-never, as with the MMU off (a core
// without LPAE, the Cortex-A5, A8 or A9, gets the same map in 1 MiB short-descriptor sections:
// early_map_short). The
// attribute slots are the firmware's own (MAIR0/MAIR1 from core's table: slot 0 Normal
// write-back, slot 4 Strongly-ordered), so memory set-up switches to its tables with the same
// attributes for the code that runs. r4 = the DTB address; uses r0-r3, r10-r12.
.equ EARLY_NORMAL,  0x701                   // block, AttrIndx 0, Inner Shareable, AF
.equ EARLY_SO,      0x401 | (4 << 2)        // block, AttrIndx 4, AF
.equ EARLY_XN,      (1 << 22) | (1 << 21)   // XN and PXN, in the upper word
early_map:
    mrc     p15, 0, r0, c0, c1, 4   // ID_MMFR0
    and     r0, r0, #0xf
    cmp     r0, #5
    blo     early_map_short         // no LPAE: 1 MiB sections
    push    {lr}                    // on the SVC stack, set up before
    ladr    r10, mb_early_tables    // level 1 (4 entries), then level 2 (512) at +4 KiB
    add     r11, r10, #4096
    // Level 2: the image's GiB in 2 MiB blocks, Strongly-ordered.
    ladr    r12, _head
    mov     r12, r12, lsr #30
    mov     r12, r12, lsl #30       // the GiB's base
    mov     r0, #0
1:  add     r1, r12, r0, lsl #21
    ldr     r2, =EARLY_SO
    orr     r1, r1, r2
    mov     r2, #EARLY_XN
    add     r3, r11, r0, lsl #3
    str     r1, [r3]
    str     r2, [r3, #4]
    add     r0, r0, #1
    cmp     r0, #512
    blo     1b
    // The image's blocks, then the device tree's (its block and the next, when in this
    // GiB), Normal.
    ladr    r0, _head
    ladr    r1, __image_end
    bl      early_normal
    mov     r0, r4
    add     r1, r4, #(2 << 20)
    mov     r2, r4, lsr #30
    cmp     r2, r12, lsr #30
    tsteq   r4, #7
    bne     2f
    cmp     r4, #0
    blne    early_normal
2:  // Level 1: each GiB a Strongly-ordered block, the image's a table.
    mov     r0, #0
3:  mov     r1, r0, lsl #30
    ldr     r2, =EARLY_SO
    orr     r1, r1, r2
    mov     r2, #EARLY_XN
    cmp     r0, r12, lsr #30
    orreq   r1, r11, #3             // a table descriptor
    moveq   r2, #0
    add     r3, r10, r0, lsl #3
    str     r1, [r3]
    str     r2, [r3, #4]
    add     r0, r0, #1
    cmp     r0, #4
    blo     3b
    dsb
    // The regime: the firmware's attributes, LPAE, the tables; the MMU on, the D-cache off.
    ldr     r0, =EARLY_MAIR0
    mcr     p15, 0, r0, c10, c2, 0
    ldr     r0, =EARLY_MAIR1
    mcr     p15, 0, r0, c10, c2, 1
    ldr     r0, =EARLY_TTBCR
    mcr     p15, 0, r0, c2, c0, 2
    mov     r1, #0
    mcrr    p15, 0, r10, r1, c2     // TTBR0
    isb
    mcr     p15, 0, r1, c8, c7, 0   // TLBIALL
    dsb
    isb
    mrc     p15, 0, r0, c1, c0, 0
    orr     r0, r0, #SCTLR_M
    mcr     p15, 0, r0, c1, c0, 0
    isb
    pop     {pc}

// The early identity map of a core without LPAE: one first-level table of 4096 sections of
// 1 MiB, with TEX remap on and the firmware's own PRRR/NMRR (core's table, as the LPAE map has
// its MAIR0/MAIR1): Strongly-ordered and execute-never (region 4: TEX[0] 1, C 0, B 0, XN), but
// the image's and the device tree's, Normal write-back (region 0: TEX[0] 0, C 0, B 0;
// non-cacheable while SCTLR.C is clear; Shareable); PL1 read-write (AP 01), domain 0 a client
// (DACR), TTBCR 0 (Arm ARM DDI 0406C, B3.5.1 "Short-descriptor translation table format", and
// B3.8.3 "Memory region attributes, with TEX remap"). Memory set-up switches to its own tables
// with the same regions. r4 = the DTB address; uses r0-r3, r10-r12.
.equ SECTION_SO,      0x1412                // section, XN, AP 01, TEX[0]
.equ SECTION_NORMAL,  0x10402               // section, AP 01, S
early_map_short:
    push    {lr}
    ladr    r10, mb_early_tables    // 16 KiB, 16 KiB-aligned
    ldr     r2, =SECTION_SO
    mov     r0, #0
1:  orr     r1, r2, r0, lsl #20
    str     r1, [r10, r0, lsl #2]
    add     r0, r0, #1
    cmp     r0, #4096
    blo     1b
    ladr    r0, _head
    ladr    r1, __image_end
    bl      early_sections
    movs    r0, r4
    tsteq   r4, #7                  // (r4 = 0: nothing to map)
    addne   r1, r4, #(1 << 20)
    blne    early_sections
    dsb
    ldr     r0, =0x55555555         // DACR: every domain a client
    mcr     p15, 0, r0, c3, c0, 0
    ldr     r0, =EARLY_PRRR
    mcr     p15, 0, r0, c10, c2, 0  // PRRR
    ldr     r0, =EARLY_NMRR
    mcr     p15, 0, r0, c10, c2, 1  // NMRR
    mov     r0, #0
    mcr     p15, 0, r0, c2, c0, 2   // TTBCR: short descriptors, TTBR0 only
    mcr     p15, 0, r10, c2, c0, 0  // TTBR0 (walks non-cacheable)
    isb
    mcr     p15, 0, r0, c8, c7, 0   // TLBIALL
    dsb
    isb
    mrc     p15, 0, r0, c1, c0, 0
    orr     r0, r0, #SCTLR_M
    orr     r0, r0, #SCTLR_TRE
    mcr     p15, 0, r0, c1, c0, 0
    isb
    pop     {pc}

// The sections of [r0, r1) Normal (r10: the table). Uses r0-r3.
early_sections:
    lsr     r0, r0, #20
    sub     r1, r1, #1
    lsr     r1, r1, #20
    ldr     r3, =SECTION_NORMAL
2:  cmp     r0, r1
    bxhi    lr
    orr     r2, r3, r0, lsl #20
    str     r2, [r10, r0, lsl #2]
    add     r0, r0, #1
    b       2b

// The level-2 entries (r11) of the 2 MiB blocks that [r0, r1) touches, Normal (in the GiB
// whose base is r12). Uses r0-r3.
early_normal:
    sub     r0, r0, r12
    sub     r1, r1, r12
    mov     r0, r0, lsr #21
    sub     r1, r1, #1
    mov     r1, r1, lsr #21
    cmp     r1, #512
    movwhs  r1, #511
4:  cmp     r0, r1
    bxhi    lr
    add     r2, r12, r0, lsl #21
    orr     r2, r2, #0x700
    orr     r2, r2, #0x1            // EARLY_NORMAL
    add     r3, r11, r0, lsl #3
    str     r2, [r3]
    mov     r2, #0
    str     r2, [r3, #4]
    add     r0, r0, #1
    b       4b

// Entered with the MMU or D-cache on: both off, then every dirty line written back and
// invalidated by set/way (dcache_clean_invalidate_all). The code that runs meanwhile is
// fetched from memory (the I-cache holds no stale copy of an image just loaded).
caches_off:
    mrc     p15, 0, r0, c1, c0, 0
    bic     r0, r0, #(SCTLR_M | SCTLR_C)
    mcr     p15, 0, r0, c1, c0, 0
    isb
    b       dcache_clean_invalidate_all

// u32 mb_dcache_off(void): the data cache off for the rest of the run (SCTLR.C clear), then
// every level cleaned and invalidated by set/way (src/arch/armv7/translation.rs,
// data_cache_off); returns the DCCISW operations issued. Keeps the AAPCS callee-saved
// registers.
.global mb_dcache_off
mb_dcache_off:
    push    {r4-r11, lr}
    mov     r8, #0
    mrc     p15, 0, r0, c1, c0, 0
    bic     r0, r0, #SCTLR_C
    mcr     p15, 0, r0, c1, c0, 0
    isb
    bl      dcache_clean_invalidate_all
    mov     r0, r8
    pop     {r4-r11, pc}

// Every data or unified cache level up to the level of coherency cleaned and invalidated by
// set/way (the ARMv7 ARM's example loop, DDI 0406C B2.2.7). Uses r0-r3, r6, r10-r12; counts
// the DCCISW operations in r8.
dcache_clean_invalidate_all:
    mrc     p15, 1, r0, c0, c0, 1   // CLIDR
    ands    r3, r0, #0x07000000
    lsr     r3, r3, #23             // LoC * 2
    beq     5f
    mov     r10, #0                 // level * 2
1:  add     r2, r10, r10, lsr #1
    lsr     r1, r0, r2
    and     r1, r1, #7              // this level's cache type
    cmp     r1, #2
    blt     4f                      // none, or instructions only
    mcr     p15, 2, r10, c0, c0, 0  // CSSELR
    isb
    mrc     p15, 1, r1, c0, c0, 0   // CCSIDR
    and     r2, r1, #7
    add     r2, r2, #4              // log2 of the line
    movw    r6, #0x3ff
    ands    r6, r6, r1, lsr #3      // ways - 1
    clz     r12, r6                 // the way's shift
    movw    r11, #0x7fff
    ands    r11, r11, r1, lsr #13   // sets - 1
2:  mov     r1, r6
3:  orr     r0, r10, r1, lsl r12
    orr     r0, r0, r11, lsl r2
    mcr     p15, 0, r0, c7, c14, 2  // DCCISW
    add     r8, r8, #1
    subs    r1, r1, #1
    bge     3b
    subs    r11, r11, #1
    bge     2b
    mrc     p15, 1, r0, c0, c0, 1   // CLIDR again (r0 was the operand)
4:  add     r10, r10, #2
    cmp     r3, r10
    bgt     1b
5:  dsb
    isb
    bx      lr
.ltorg
