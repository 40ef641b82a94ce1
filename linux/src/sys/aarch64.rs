//! What `sys` needs of AArch64 Linux: the process entry, the system call instruction and
//! numbers (asm-generic), the layouts that differ from 32-bit Arm's, the generic timer as EL0
//! reads it, and the firmware's measured loops (the same assembly files, included, not
//! copied).

use core::arch::{asm, global_asm};
use mairbench_core::arch::Arch;
use mairbench_core::kernel::{Kernel, Mask, ALL_KERNELS, RANDOM_INCREMENT, RANDOM_MULTIPLIER};

// The firmware's measured loops and their symbols, the very same file.
include!("../../../src/arch/aarch64/kernels/loops.rs");

/// The architecture the start record names.
pub const ARCH: Arch = Arch::Aarch64;

/// The counter the samples are timed with, as messages name it.
pub fn counter() -> &'static str {
    "CNTVCT_EL0"
}

/// Nothing to probe: Linux lets EL0 read CNTVCT_EL0, and so does user-mode QEMU.
pub fn probe_counter() {}

/// Never recovers: every SIGILL, SIGBUS and SIGSEGV is fatal here.
///
/// # Safety
/// None needed: it reads nothing.
pub unsafe fn recover(_sig: i32, _context: *mut u8) -> bool {
    false
}

/// The exception level user space runs at, as messages name it.
pub const USER_LEVEL: &str = "EL0";

/// Whose `pgprot` core's source table names: this kernel's.
pub const PGPROT_OF: &str = "arm64";

/// The counter's frequency register, as messages name it.
pub const FREQ_REG: &str = "CNTFRQ_EL0";

/// The kernels of core's table that have a loop here: every one.
pub const LOOPS: Mask = ALL_KERNELS;

// The process entry. Linux starts it with sp at argc, then argv[0..argc], NULL, envp...
// (16-byte aligned); no frame to return to.
global_asm!(
    ".section .text._start, \"ax\"",
    ".global _start",
    "_start:",
    "    mov x29, #0",
    "    mov x30, #0",
    "    mov x0, sp",
    "    bl mb_linux_entry",
    "    brk #0",
);

/// The system call numbers (include/uapi/asm-generic/unistd.h, which arm64 uses).
pub mod nr {
    pub const FCNTL: u64 = 25;
    pub const READLINKAT: u64 = 78;
    pub const IOCTL: u64 = 29;
    pub const FTRUNCATE: u64 = 46;
    pub const OPENAT: u64 = 56;
    pub const GETDENTS64: u64 = 61;
    pub const FSTAT: u64 = 80;
    pub const MEMFD_CREATE: u64 = 279;
    pub const CLOSE: u64 = 57;
    pub const READ: u64 = 63;
    pub const WRITE: u64 = 64;
    pub const EXIT_GROUP: u64 = 94;
    pub const UNAME: u64 = 160;
    pub const CLOCK_GETTIME: u64 = 113;
    pub const GETPID: u64 = 172;
    pub const MUNMAP: u64 = 215;
    pub const MADVISE: u64 = 233;
    pub const MMAP: u64 = 222;
    pub const SIGALTSTACK: u64 = 132;
    pub const RT_SIGACTION: u64 = 134;
}

/// arm64 opens every file as large: no O_LARGEFILE to add.
pub const O_LARGEFILE: u64 = 0;

/// A system call with up to six arguments; the kernel's return value (negative errno on
/// failure).
///
/// # Safety
/// The arguments must be valid for the call `nr` (pointers to memory the call may read or
/// write as it documents).
pub unsafe fn syscall(nr: u64, a: [u64; 6]) -> i64 {
    let ret: i64;
    // SAFETY: the caller guarantees the arguments; `svc #0` clobbers only x0 (the result).
    unsafe {
        asm!("svc #0",
            in("x8") nr,
            inlateout("x0") a[0] => ret,
            in("x1") a[1], in("x2") a[2], in("x3") a[3], in("x4") a[4], in("x5") a[5],
            options(nostack));
    }
    ret
}

/// mmap(2) of `len` bytes of `fd` from byte `offset`: the address, or the negative errno.
///
/// # Safety
/// As for [`syscall`]: `addr` 0 (the kernel chooses) or a range the caller owns.
pub unsafe fn mmap(addr: u64, len: u64, prot: u64, flags: u64, fd: u64, offset: u64) -> i64 {
    // SAFETY: the caller's guarantee.
    unsafe { syscall(nr::MMAP, [addr, len, prot, flags, fd, offset]) }
}

/// ftruncate(2) of `fd` to `len` bytes: 0 or the negative errno.
pub fn ftruncate(fd: u64, len: u64) -> i64 {
    // SAFETY: ftruncate(2) takes plain integers.
    unsafe { syscall(nr::FTRUNCATE, [fd, len, 0, 0, 0, 0]) }
}

/// The words of a `stack_t` (asm-generic: ss_sp, ss_flags (int, padded), ss_size).
pub type StackT = [u64; 3];

/// A `stack_t` for the stack `[sp, sp + size)`.
pub fn stack_t(sp: u64, size: u64) -> StackT {
    [sp, 0, size]
}

/// The words of a `struct sigaction` (asm-generic, arm64 has SA_RESTORER): handler, flags,
/// restorer, mask (64 bits).
pub type Sigaction = [u64; 4];

/// A `struct sigaction` with `handler`, `flags`, no restorer and no signal blocked.
pub fn sigaction(handler: u64, flags: u64) -> Sigaction {
    [handler, flags, 0, 0]
}

/// si_addr of a siginfo_t of SIGILL, SIGBUS or SIGSEGV: its third 64-bit word (si_signo,
/// si_errno, si_code and padding come first).
///
/// # Safety
/// `info` must point at the kernel's siginfo_t (8-aligned) of one of those signals.
pub unsafe fn si_addr(info: *const u8) -> u64 {
    // SAFETY: the caller's guarantee; the word lies inside the 128-byte siginfo_t.
    unsafe { *(info as *const u64).add(2) }
}

/// `struct timespec` (tv_sec, tv_nsec: two 64-bit words) as clock_gettime(2) writes it.
pub type Timespec = [i64; 2];

/// The seconds and nanoseconds of a [`Timespec`].
pub fn timespec_parts(ts: Timespec) -> (i64, i64) {
    (ts[0], ts[1])
}

/// `struct drm_version` (include/uapi/drm/drm.h) on arm64: three ints, then three (length,
/// pointer) pairs of 64 bits.
#[repr(C)]
pub struct DrmVersion {
    pub version_major: i32,
    pub version_minor: i32,
    pub version_patchlevel: i32,
    pub name_len: u64,
    pub name: u64,
    pub date_len: u64,
    pub date: u64,
    pub desc_len: u64,
    pub desc: u64,
}

/// include/uapi/drm/drm.h: `DRM_IOWR(0x00, struct drm_version)` (64 bytes on a 64-bit
/// kernel, [`DrmVersion`]).
pub const DRM_IOCTL_VERSION: u64 = (3 << 30) | (64 << 16) | ((b'd' as u64) << 8);
const _: () = assert!(DRM_IOCTL_VERSION == 0xc040_6400);
const _: () = assert!(core::mem::size_of::<DrmVersion>() == 64);
const _: () = assert!(core::mem::offset_of!(DrmVersion, name_len) == 16);

/// The name's full length, as the kernel wrote it back.
pub fn drm_name_len(v: &DrmVersion) -> u64 {
    v.name_len
}

/// A [`DrmVersion`] asking for the driver's name into `len` bytes at `buf`.
pub fn drm_version(buf: u64, len: u64) -> DrmVersion {
    DrmVersion {
        version_major: 0,
        version_minor: 0,
        version_patchlevel: 0,
        name_len: len,
        name: buf,
        date_len: 0,
        date: 0,
        desc_len: 0,
        desc: 0,
    }
}

/// A load from an address no process maps (16), then an undefined instruction.
pub fn fault_on_purpose() -> ! {
    // SAFETY: the load faults (page zero is never mapped); the SIGSEGV handler ends the
    // process, so nothing after it runs and no Rust value is read.
    unsafe {
        asm!(
            "mov x9, #16",
            "ldr x9, [x9]",
            "udf #0",
            options(noreturn, nostack)
        )
    }
}

/// CNTVCT_EL0 (Linux lets EL0 read it: CNTKCTL_EL1.EL0VCTEN), after a DSB SY and an ISB so
/// that the loads and stores before it have completed.
#[inline(always)]
pub fn ticks() -> u64 {
    let t: u64;
    // SAFETY: barriers and a read of a counter register, no memory access.
    unsafe { asm!("dsb sy", "isb", "mrs {}, cntvct_el0", out(reg) t, options(nostack)) };
    t
}

/// The smallest data cache line in bytes: 4 << CTR_EL0.DminLine (EL0 may read CTR_EL0 on
/// Linux: SCTLR_EL1.UCT, or the kernel emulates the read).
pub fn dcache_line() -> Option<u64> {
    let ctr: u64;
    // SAFETY: a read of a register EL0 may read, no memory access.
    unsafe { asm!("mrs {}, ctr_el0", out(reg) ctr, options(nomem, nostack)) };
    Some(4 << ((ctr >> 16) & 0xf))
}

/// CNTFRQ_EL0: the counter's frequency in Hz.
pub fn freq_hz() -> u64 {
    let f: u64;
    // SAFETY: a read of a register EL0 may read, no memory access.
    unsafe { asm!("mrs {}, cntfrq_el0", out(reg) f, options(nomem, nostack)) };
    f
}

/// Where the program's entry lies (the image's load address, for the start record).
pub fn image_base() -> u64 {
    let a: u64;
    // SAFETY: takes an address, no memory access.
    unsafe { asm!("adrp {}, __ehdr_start", out(reg) a, options(nomem, nostack)) };
    a
}

/// The streaming loop that runs `kernel` here and its step in bytes (256, 512 for the q
/// forms); `None` for a kernel that is not a streaming one.
pub fn stream_step(kernel: Kernel) -> Option<u64> {
    stream_loop(kernel).map(|(_, step)| step)
}

fn stream_loop(kernel: Kernel) -> Option<(unsafe extern "C" fn(u64, u64), u64)> {
    Some(match kernel {
        Kernel::ReadLdp => (mb_k_read_ldp, 256),
        Kernel::WriteStp => (mb_k_write_stp, 256),
        Kernel::ReadLdpQ => (mb_k_read_ldp_q, 512),
        Kernel::WriteStpQ => (mb_k_write_stp_q, 512),
        Kernel::ReadLdnp => (mb_k_read_ldnp, 256),
        Kernel::WriteStnp => (mb_k_write_stnp, 256),
        _ => return None,
    })
}

/// The streaming loop of `kernel` over `[p, p + len)`.
///
/// # Safety
/// The range is read-write memory the caller owns (test data only), p line-aligned, len a
/// non-zero multiple of [`stream_step`]; a kernel without a step does nothing.
pub unsafe fn stream(kernel: Kernel, p: u64, len: u64) {
    if let Some((f, _)) = stream_loop(kernel) {
        // SAFETY: the caller's guarantee; the kernels use caller-saved registers only
        // (AAPCS64).
        unsafe { f(p, len) }
    }
}

/// The copy loop's step: 128 bytes (ldp/stp of x registers), 256 with q registers.
pub const fn copy_step(q: bool) -> u64 {
    if q {
        256
    } else {
        128
    }
}

/// The ldp/stp copy (q registers when `q`) of `len` bytes from `src` to `dst`.
///
/// # Safety
/// Both ranges are read-write memory the caller owns, apart, line-aligned, len a non-zero
/// multiple of [`copy_step`].
pub unsafe fn copy(q: bool, dst: u64, src: u64, len: u64) {
    // SAFETY: the caller's guarantee; caller-saved registers only.
    unsafe {
        if q {
            mb_k_copy_q(dst, src, len)
        } else {
            mb_k_copy(dst, src, len)
        }
    }
}

/// The pointer chase: `loads` dependent loads from the word at `at`; the last pointer.
///
/// # Safety
/// `at` is an 8-aligned word of memory the caller owns, `loads` a non-zero multiple of 8, and
/// every word the chase reaches holds the address of the next (inside memory it may read).
pub unsafe fn chase(at: u64, loads: u64) -> u64 {
    // SAFETY: the caller's guarantee; loads only, caller-saved registers only.
    unsafe { mb_k_chase(at, loads) }
}

/// One load per `stride` bytes of `[p, p + len)`, every line once.
///
/// # Safety
/// The range is memory the caller owns, p line-aligned, and `Order::Stride(stride).takes(len)`.
pub unsafe fn read_stride(p: u64, len: u64, stride: u64) {
    // SAFETY: the caller's guarantee; loads only.
    unsafe { mb_k_read_stride(p, len, stride) }
}

/// One load from each of `lines` 64-byte lines at `p` in core's random order.
///
/// # Safety
/// The lines are memory the caller owns, p line-aligned, `lines` a power of two of at least 4.
pub unsafe fn read_random(p: u64, lines: u64) {
    // SAFETY: the caller's guarantee; loads only.
    unsafe { mb_k_read_random(p, lines, RANDOM_MULTIPLIER, RANDOM_INCREMENT) }
}

/// STREAM's triad `a = b + 3 * c` over `len` bytes of each array.
///
/// # Safety
/// The three ranges are read-write memory the caller owns, apart, line-aligned, len a
/// non-zero multiple of 64.
pub unsafe fn triad(a: u64, b: u64, c: u64, len: u64) {
    // SAFETY: the caller's guarantee; caller-saved registers only.
    unsafe { mb_k_triad(a, b, c, len) }
}

/// DC CIVAC by `line` over `[p, p + len)`, then DSB SY (Linux lets EL0 issue it:
/// SCTLR_EL1.UCI).
///
/// # Safety
/// The range is memory the caller owns, p and len multiples of `line` ([`dcache_line`]),
/// len non-zero.
pub unsafe fn clean_invalidate(p: u64, len: u64, line: u64) {
    // SAFETY: the caller's guarantee; DC CIVAC writes dirty lines back before dropping them,
    // so no data changes; caller-saved registers only.
    unsafe { mb_k_civac(p, len, line) }
}
