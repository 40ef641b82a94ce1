// The measured loops' assembly and their symbols, shared by the firmware
// (src/arch/aarch64/kernels/mod.rs) and the Linux twin (linux/src/sys.rs), which `include!` this
// file: one definition of each loop and of its signature. Each loop's contract (pointer, length
// multiple, alignment) is in the comment at the top of its `.S` file; the callers' safe
// wrappers check it.

core::arch::global_asm!(include_str!("stream.S"));
core::arch::global_asm!(include_str!("latency.S"));
core::arch::global_asm!(include_str!("zva.S"));
core::arch::global_asm!(include_str!("maint.S"));
core::arch::global_asm!(include_str!("strided.S"));

// The twin runs only the loops EL0 may issue, so some go unused there.
#[allow(dead_code)]
extern "C" {
    fn mb_k_read_ldp(p: u64, len: u64);
    fn mb_k_write_stp(p: u64, len: u64);
    fn mb_k_read_ldp_q(p: u64, len: u64);
    fn mb_k_write_stp_q(p: u64, len: u64);
    fn mb_k_read_ldnp(p: u64, len: u64);
    fn mb_k_write_stnp(p: u64, len: u64);
    fn mb_k_write_line(p: u64, len: u64);
    fn mb_k_copy(dst: u64, src: u64, len: u64);
    fn mb_k_copy_q(dst: u64, src: u64, len: u64);
    fn mb_k_triad(a: u64, b: u64, c: u64, len: u64);
    fn mb_k_read_stride(p: u64, len: u64, stride: u64);
    fn mb_k_read_random(p: u64, lines: u64, multiplier: u64, increment: u64);
    fn mb_k_chase(start: u64, loads: u64) -> u64;
    fn mb_k_zva(p: u64, len: u64, block: u64);
    fn mb_k_civac(p: u64, len: u64, line: u64);
    fn mb_k_cvac(p: u64, len: u64, line: u64);
    fn mb_k_ivac(p: u64, len: u64, line: u64);
}
