//! What `sys` needs of 32-bit Arm Linux (ARMv7-A, EABI): the process entry in A32, the
//! system call instruction and numbers (arch/arm/tools/syscall.tbl), the layouts that differ
//! from arm64's, the generic timer as PL0 reads it (CP15), and the 32-bit firmware's A32
//! loops (the same assembly files, included, not copied).
//!
//! The loops take u32 addresses and lengths: every one the twin passes lies in a mapping of
//! this process, so below 2^32, and [`word`] keeps its low 32 bits.

use core::arch::{asm, global_asm};
use core::sync::atomic::{AtomicBool, Ordering};
use mairbench_core::arch::Arch;
use mairbench_core::kernel::{Kernel, Mask, ALL_KERNELS};

// The 32-bit firmware's measured loops and their symbols, the very same file.
include!("../../../src/arch/armv7/kernels/loops.rs");

// memcpy, memmove, memset, memcmp and bcmp: the target's `core` expects a C library to provide
// them, and the twin links none; the 32-bit firmware's own (the same file).
global_asm!(include_str!("../../../src/arch/armv7/mem.S"), options(raw));

/// Named by the unwind tables of the target's prebuilt `compiler_builtins`; never called: the
/// twin aborts on a panic and unwinds nothing.
#[no_mangle]
extern "C" fn rust_eh_personality() {}

/// The architecture the start record names.
pub const ARCH: Arch = Arch::Armv7;

/// Whether PL0 may read CNTVCT and CNTFRQ: assumed (Linux's arch timer driver sets
/// CNTKCTL.PL0VCTEN unless an erratum traps it) until [`probe_counter`] finds them undefined.
/// User-mode QEMU (qemu-arm, QEMU 10) defines the generic timer's AArch64 registers only, so
/// there `mrrc p15, 1, .., c14` raises SIGILL; the twin then times with CLOCK_MONOTONIC.
static CNTVCT: AtomicBool = AtomicBool::new(true);

/// The counter the samples are timed with, as messages name it.
pub fn counter() -> &'static str {
    if CNTVCT.load(Ordering::Relaxed) {
        "CNTVCT"
    } else {
        "CLOCK_MONOTONIC (CNTVCT is undefined at PL0 here)"
    }
}

// The probe: r0 = 1, then one read of CNTVCT at `mb_probe_cntvct_read`. Where it is
// undefined, [`recover`] sets r0 = 0 and resumes after it.
global_asm!(
    ".section .text.mb_probe_cntvct, \"ax\"",
    ".arm",
    ".global mb_probe_cntvct",
    ".type mb_probe_cntvct, %function",
    "mb_probe_cntvct:",
    "    mov r0, #1",
    ".global mb_probe_cntvct_read",
    "mb_probe_cntvct_read:",
    "    mrrc p15, 1, r2, r3, c14",
    "    bx lr",
);

extern "C" {
    fn mb_probe_cntvct() -> u32;
    static mb_probe_cntvct_read: u8;
}

/// Finds out whether PL0 may read CNTVCT (one read, after the SIGILL handler is installed):
/// where it is undefined, [`ticks`] and [`freq_hz`] fall back to CLOCK_MONOTONIC.
pub fn probe_counter() {
    // SAFETY: the probe reads a register into caller-saved registers; should the read be
    // undefined, the SIGILL handler ([`recover`]) resumes after it with r0 = 0.
    let readable = unsafe { mb_probe_cntvct() } != 0;
    CNTVCT.store(readable, Ordering::Relaxed);
}

/// The SIGILL of the probe's CNTVCT read: sets the interrupted r0 to 0 and resumes at the
/// next instruction (true: the handler returns). False for any other signal or address.
///
/// # Safety
/// `context` must be the kernel's `ucontext_t` for the signal being handled.
pub unsafe fn recover(sig: i32, context: *mut u8) -> bool {
    // The arm ucontext_t: uc_flags, uc_link, uc_stack (3 words), then uc_mcontext, a struct
    // sigcontext: trap_no, error_code, oldmask, arm_r0 .. arm_r10, arm_fp, arm_ip, arm_sp,
    // arm_lr, arm_pc, arm_cpsr (arch/arm/include/uapi/asm/sigcontext.h, ucontext.h).
    const R0: usize = 5 + 3;
    const PC: usize = 5 + 3 + 15;
    let probe = core::ptr::addr_of!(mb_probe_cntvct_read) as u32;
    let regs = context as *mut u32;
    // SAFETY: the caller passes the ucontext_t, whose words R0 and PC are the interrupted r0
    // and pc (the layout above); writing them changes where the interrupted code resumes,
    // which for the probe's address is the instruction after the undefined read.
    unsafe {
        if sig != 4 || *regs.add(PC) != probe {
            return false;
        }
        *regs.add(R0) = 0;
        *regs.add(PC) = probe + 4;
    }
    true
}

/// The privilege level user space runs at, as messages name it.
pub const USER_LEVEL: &str = "PL0";

/// Whose `pgprot` core's source table names: this kernel's (its `pgprot_arm` column).
pub const PGPROT_OF: &str = "32-bit Arm";

/// The counter's frequency register, as messages name it.
pub const FREQ_REG: &str = "CNTFRQ";

/// The kernels of core's table that have an A32 loop: all but the non-temporal pairs (A32
/// has no LDNP/STNP) and DC ZVA (A32 has none).
pub const LOOPS: Mask =
    ALL_KERNELS & !(Kernel::ReadLdnp.bit() | Kernel::WriteStnp.bit() | Kernel::FillZva.bit());

// The process entry, in A32. Linux starts it with sp at argc, then argv[0..argc], NULL,
// envp... (8-byte aligned at least); no frame to return to.
global_asm!(
    ".section .text._start, \"ax\"",
    ".arm",
    ".global _start",
    ".type _start, %function",
    "_start:",
    "    mov r11, #0",
    "    mov lr, #0",
    "    mov r0, sp",
    "    bl mb_linux_entry",
    "    udf #0",
);

/// The system call numbers of EABI Linux (arch/arm/tools/syscall.tbl): where arm64 has a
/// 64-bit call, its 32-bit form with 64-bit sizes (mmap2, ftruncate64, fstat64, fcntl64).
pub mod nr {
    pub const FCNTL: u64 = 221; // fcntl64
    pub const READLINKAT: u64 = 332;
    pub const IOCTL: u64 = 54;
    pub const FTRUNCATE: u64 = 194; // ftruncate64
    pub const OPENAT: u64 = 322;
    pub const GETDENTS64: u64 = 217;
    pub const FSTAT: u64 = 197; // fstat64
    pub const MEMFD_CREATE: u64 = 385;
    pub const CLOSE: u64 = 6;
    pub const READ: u64 = 3;
    pub const WRITE: u64 = 4;
    pub const EXIT_GROUP: u64 = 248;
    pub const UNAME: u64 = 122;
    pub const CLOCK_GETTIME: u64 = 263; // 32-bit time_t
    pub const GETPID: u64 = 20;
    pub const MUNMAP: u64 = 91;
    pub const MADVISE: u64 = 220;
    pub const MMAP: u64 = 192; // mmap2: the offset in 4096-byte units
    pub const SIGALTSTACK: u64 = 186;
    pub const RT_SIGACTION: u64 = 174;
}

/// arch/arm/include/uapi/asm/fcntl.h: without it, a 32-bit process may not open a file
/// larger than 2 GiB.
pub const O_LARGEFILE: u64 = 0o400000;

/// The low 32 bits of `x`: an address or length inside this process's mappings, which a
/// 32-bit address space bounds.
fn word(x: u64) -> u32 {
    x as u32
}

/// A system call with up to six arguments (each cut to its low 32 bits: -1 and AT_FDCWD,
/// passed sign-extended, stay what they are); the kernel's return value (negative errno on
/// failure, -4095 to -1; any other value zero-extended, so that an address above 2 GiB stays
/// positive).
///
/// # Safety
/// The arguments must be valid for the call `nr` (pointers to memory the call may read or
/// write as it documents).
pub unsafe fn syscall(nr: u64, a: [u64; 6]) -> i64 {
    let ret: u32;
    // SAFETY: the caller guarantees the arguments; `svc #0` (EABI: the number in r7) clobbers
    // only r0 (the result).
    unsafe {
        asm!("svc #0",
            in("r7") word(nr),
            inlateout("r0") word(a[0]) => ret,
            in("r1") word(a[1]), in("r2") word(a[2]), in("r3") word(a[3]),
            in("r4") word(a[4]), in("r5") word(a[5]),
            options(nostack));
    }
    let signed = ret as i32;
    if (-4095..0).contains(&signed) {
        i64::from(signed)
    } else {
        i64::from(ret)
    }
}

/// mmap2 of `len` bytes of `fd` from byte `offset` (a multiple of 4096, at most 2^44 - 4096):
/// the address, or the negative errno (EINVAL for a length or offset mmap2 cannot take).
///
/// # Safety
/// As for [`syscall`]: `addr` 0 (the kernel chooses) or a range the caller owns.
pub unsafe fn mmap(addr: u64, len: u64, prot: u64, flags: u64, fd: u64, offset: u64) -> i64 {
    let pages = offset / 4096;
    if len > u64::from(u32::MAX) || !offset.is_multiple_of(4096) || pages > u64::from(u32::MAX) {
        return -22; // EINVAL
    }
    // SAFETY: the caller's guarantee.
    unsafe { syscall(nr::MMAP, [addr, len, prot, flags, fd, pages]) }
}

/// ftruncate64 of `fd` to `len` bytes: 0 or the negative errno. EABI passes the 64-bit length
/// in an even register pair, r2 (low) and r3 (high); r1 is padding.
pub fn ftruncate(fd: u64, len: u64) -> i64 {
    // SAFETY: ftruncate64 takes plain integers.
    unsafe { syscall(nr::FTRUNCATE, [fd, 0, len & 0xffff_ffff, len >> 32, 0, 0]) }
}

/// The words of a `stack_t` (ss_sp, ss_flags, ss_size: 32 bits each).
pub type StackT = [u32; 3];

/// A `stack_t` for the stack `[sp, sp + size)`.
pub fn stack_t(sp: u64, size: u64) -> StackT {
    [word(sp), 0, word(size)]
}

/// The words of the kernel's `struct sigaction` on arm (include/linux/signal_types.h, arm has
/// SA_RESTORER): handler, flags, restorer, mask (64 bits, two words).
pub type Sigaction = [u32; 5];

/// A `struct sigaction` with `handler`, `flags`, no restorer and no signal blocked.
pub fn sigaction(handler: u64, flags: u64) -> Sigaction {
    [word(handler), word(flags), 0, 0, 0]
}

/// si_addr of a siginfo_t of SIGILL, SIGBUS or SIGSEGV: its fourth 32-bit word (si_signo,
/// si_errno and si_code come first; no padding on 32-bit).
///
/// # Safety
/// `info` must point at the kernel's siginfo_t (4-aligned) of one of those signals.
pub unsafe fn si_addr(info: *const u8) -> u64 {
    // SAFETY: the caller's guarantee; the word lies inside the 128-byte siginfo_t.
    u64::from(unsafe { *(info as *const u32).add(3) })
}

/// `struct old_timespec32` (tv_sec, tv_nsec: two 32-bit words), as clock_gettime (263)
/// writes it. Its seconds wrap in 2038; the twin only subtracts two close readings.
pub type Timespec = [i32; 2];

/// The seconds and nanoseconds of a [`Timespec`].
pub fn timespec_parts(ts: Timespec) -> (i64, i64) {
    (i64::from(ts[0]), i64::from(ts[1]))
}

/// `struct drm_version` (include/uapi/drm/drm.h) on a 32-bit kernel: three ints, then three
/// (length, pointer) pairs of 32 bits (`__kernel_size_t` and `char *`).
#[repr(C)]
pub struct DrmVersion {
    pub version_major: i32,
    pub version_minor: i32,
    pub version_patchlevel: i32,
    pub name_len: u32,
    pub name: u32,
    pub date_len: u32,
    pub date: u32,
    pub desc_len: u32,
    pub desc: u32,
}

/// include/uapi/drm/drm.h: `DRM_IOWR(0x00, struct drm_version)` (36 bytes on a 32-bit
/// kernel, [`DrmVersion`]).
pub const DRM_IOCTL_VERSION: u64 = (3 << 30) | (36 << 16) | ((b'd' as u64) << 8);
const _: () = assert!(DRM_IOCTL_VERSION == 0xc024_6400);
const _: () = assert!(core::mem::size_of::<DrmVersion>() == 36);
const _: () = assert!(core::mem::offset_of!(DrmVersion, name_len) == 12);

/// The name's full length, as the kernel wrote it back.
pub fn drm_name_len(v: &DrmVersion) -> u64 {
    u64::from(v.name_len)
}

/// A [`DrmVersion`] asking for the driver's name into `len` bytes at `buf`.
pub fn drm_version(buf: u64, len: u64) -> DrmVersion {
    DrmVersion {
        version_major: 0,
        version_minor: 0,
        version_patchlevel: 0,
        name_len: word(len),
        name: word(buf),
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
            "mov r0, #16",
            "ldr r0, [r0]",
            "udf #0",
            options(noreturn, nostack)
        )
    }
}

/// CNTVCT (`mrrc p15, 1, lo, hi, c14`; Linux lets PL0 read it: CNTKCTL.PL0VCTEN), after a
/// DSB SY and an ISB so that the loads and stores before it have completed; CLOCK_MONOTONIC
/// in nanoseconds where PL0 may not read it ([`probe_counter`]).
#[inline(always)]
pub fn ticks() -> u64 {
    if !CNTVCT.load(Ordering::Relaxed) {
        return super::monotonic_ns().unwrap_or(0);
    }
    let (lo, hi): (u32, u32);
    // SAFETY: barriers and a read of a counter register, no memory access.
    unsafe {
        asm!("dsb sy", "isb", "mrrc p15, 1, {}, {}, c14", out(reg) lo, out(reg) hi,
            options(nostack))
    };
    u64::from(hi) << 32 | u64::from(lo)
}

/// None: ARMv7's CTR and its cache maintenance by MVA are PL1's, and Linux's `cacheflush`
/// call cleans to the point of unification only, so the twin cannot start a point with its
/// lines invalidated here (it starts `warm`).
pub fn dcache_line() -> Option<u64> {
    None
}

/// CNTFRQ (`mrc p15, 0, r, c14, c0, 0`): the counter's frequency in Hz; 1 GHz where
/// [`ticks`] counts CLOCK_MONOTONIC's nanoseconds.
pub fn freq_hz() -> u64 {
    if !CNTVCT.load(Ordering::Relaxed) {
        return 1_000_000_000;
    }
    let f: u32;
    // SAFETY: a read of a register PL0 may read (with either PL0 counter access), no memory
    // access.
    unsafe { asm!("mrc p15, 0, {}, c14, c0, 0", out(reg) f, options(nomem, nostack)) };
    u64::from(f)
}

/// Where the program's entry lies (the image's load address, for the start record).
pub fn image_base() -> u64 {
    let a: u32;
    // SAFETY: takes an address (the static link resolves it), no memory access.
    unsafe {
        asm!("movw {0}, #:lower16:__ehdr_start", "movt {0}, #:upper16:__ehdr_start",
            out(reg) a, options(nomem, nostack))
    };
    u64::from(a)
}

/// The A32 loop that stands for a streaming kernel of core's table and its step in bytes.
/// Core's table names the AArch64 loops; until it names each architecture's, the twin maps
/// by [`Kernel`], here and only here: read-ldp runs `ldm` of 8 registers (256 B an
/// iteration), write-stp `stm`, read-ldp-q NEON `vld1.64` of 4 d registers (512 B),
/// write-stp-q `vst1.64`. The non-temporal pairs have no A32 form ([`LOOPS`]).
fn stream_loop(kernel: Kernel) -> Option<(unsafe extern "C" fn(u32, u32), u64)> {
    Some(match kernel {
        Kernel::ReadLdp => (mb_k_read_ldm, 256),
        Kernel::WriteStp => (mb_k_write_stm, 256),
        Kernel::ReadLdpQ => (mb_k_read_vld1, 512),
        Kernel::WriteStpQ => (mb_k_write_vst1, 512),
        _ => return None,
    })
}

/// The step in bytes of the loop that runs `kernel` here; `None` for a kernel that is not a
/// streaming one, or has no A32 loop.
pub fn stream_step(kernel: Kernel) -> Option<u64> {
    stream_loop(kernel).map(|(_, step)| step)
}

/// The streaming loop of `kernel` over `[p, p + len)`.
///
/// # Safety
/// The range is read-write memory the caller owns (test data only), p line-aligned, len a
/// non-zero multiple of [`stream_step`]; a kernel without a step does nothing.
pub unsafe fn stream(kernel: Kernel, p: u64, len: u64) {
    if let Some((f, _)) = stream_loop(kernel) {
        // SAFETY: the caller's guarantee (line-aligned is 16-aligned, as the NEON loops'
        // alignment hints ask); the loops save the callee-saved registers they use (AAPCS).
        unsafe { f(word(p), word(len)) }
    }
}

/// The copy loop's step: 128 bytes (ldm/stm), 256 with NEON (vld1/vst1).
pub const fn copy_step(q: bool) -> u64 {
    if q {
        256
    } else {
        128
    }
}

/// The ldm/stm copy (vld1/vst1 when `q`) of `len` bytes from `src` to `dst`.
///
/// # Safety
/// Both ranges are read-write memory the caller owns, apart, line-aligned, len a non-zero
/// multiple of [`copy_step`].
pub unsafe fn copy(q: bool, dst: u64, src: u64, len: u64) {
    // SAFETY: the caller's guarantee; AAPCS.
    unsafe {
        if q {
            mb_k_copy_q(word(dst), word(src), word(len))
        } else {
            mb_k_copy(word(dst), word(src), word(len))
        }
    }
}

/// The pointer chase: `loads` dependent loads from the word at `at`; the last pointer. The
/// chain's 64-bit words hold 32-bit addresses in their low (first) word, which the A32 chase
/// loads.
///
/// # Safety
/// `at` is a 4-aligned word of memory the caller owns, `loads` a non-zero multiple of 8, and
/// every word the chase reaches holds the address of the next (inside memory it may read).
pub unsafe fn chase(at: u64, loads: u64) -> u64 {
    // SAFETY: the caller's guarantee; loads only, caller-saved registers only.
    u64::from(unsafe { mb_k_chase(word(at), word(loads)) })
}

/// One load per `stride` bytes of `[p, p + len)`, every line once.
///
/// # Safety
/// The range is memory the caller owns, p line-aligned, and `Order::Stride(stride).takes(len)`.
pub unsafe fn read_stride(p: u64, len: u64, stride: u64) {
    // SAFETY: the caller's guarantee (a mapping ends below 2^32: p + len does not wrap).
    unsafe { mb_k_read_stride(word(p), word(len), word(stride)) }
}

/// One load from each of `lines` 64-byte lines at `p` in core's random order.
///
/// # Safety
/// The lines are memory the caller owns, p line-aligned, `lines` a power of two of at least 4
/// (at most 2^26 in a 32-bit address space).
pub unsafe fn read_random(p: u64, lines: u64) {
    // SAFETY: the caller's guarantee; loads only.
    unsafe { mb_k_read_random(word(p), word(lines)) }
}

/// STREAM's triad `a = b + 3 * c` over `len` bytes of each array.
///
/// # Safety
/// The three ranges are read-write memory the caller owns, apart, line-aligned, len a
/// non-zero multiple of 64.
pub unsafe fn triad(a: u64, b: u64, c: u64, len: u64) {
    // SAFETY: the caller's guarantee; AAPCS.
    unsafe { mb_k_triad(word(a), word(b), word(c), word(len)) }
}

/// Never called: [`dcache_line`] is `None` here (DCCIMVAC is PL1's).
///
/// # Safety
/// None needed: it does nothing.
pub unsafe fn clean_invalidate(_p: u64, _len: u64, _line: u64) {}
