// The measured loops' A32 assembly and their symbols, shared by the 32-bit firmware
// (src/arch/armv7/kernels/mod.rs) and the Linux twin on 32-bit Arm (linux/src/sys/arm.rs),
// which `include!` this file: one definition of each loop and of its signature. Each loop's
// contract (pointer, length multiple, alignment) is in the comment at the top of its `.S`
// file; the callers' safe wrappers check it. All pointers and lengths are u32 (AAPCS: r0-r3).
//
// stream.S, latency.S and maint.S are raw assembly (their register lists are in braces);
// strided.S is a template whose only operands are the random order's constants, the low
// 32 bits of core's (enough for masks of at most 26 bits: see strided.S).

core::arch::global_asm!(include_str!("stream.S"), options(raw));
core::arch::global_asm!(include_str!("latency.S"), options(raw));
core::arch::global_asm!(include_str!("maint.S"), options(raw));
core::arch::global_asm!(
    include_str!("strided.S"),
    multiplier = const mairbench_core::kernel::RANDOM_MULTIPLIER as u32,
    increment = const mairbench_core::kernel::RANDOM_INCREMENT as u32,
);

// The twin runs only the loops PL0 may issue, so some go unused there.
#[allow(dead_code)]
extern "C" {
    fn mb_k_read_ldm(p: u32, len: u32);
    fn mb_k_write_stm(p: u32, len: u32);
    fn mb_k_read_vld1(p: u32, len: u32);
    fn mb_k_write_vst1(p: u32, len: u32);
    fn mb_k_write_line(p: u32, len: u32);
    fn mb_k_copy(dst: u32, src: u32, len: u32);
    fn mb_k_copy_q(dst: u32, src: u32, len: u32);
    fn mb_k_triad(a: u32, b: u32, c: u32, len: u32);
    fn mb_k_read_stride(p: u32, len: u32, stride: u32);
    fn mb_k_read_random(p: u32, lines: u32);
    fn mb_k_chase(start: u32, loads: u32) -> u32;
    fn mb_k_dccimvac(p: u32, len: u32, line: u32);
    fn mb_k_dccmvac(p: u32, len: u32, line: u32);
    fn mb_k_dcimvac(p: u32, len: u32, line: u32);
}
