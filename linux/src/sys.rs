//! Everything that touches the machine or the kernel: the process entry, raw Linux system
//! calls (`svc #0`), the generic timer as user space reads it, and the firmware's measured
//! loops (the same assembly files, included, not copied).
//!
//! What differs between AArch64 and 32-bit Arm (the entry, the system call instruction and
//! numbers, a few layouts, the counter's registers, the loops) is `arch`, one file per
//! architecture chosen here; the rest is the same source for both.
//!
//! Every function here is safe to call: each checks or owns what its `unsafe` block relies
//! on.

use core::sync::atomic::{AtomicU64, AtomicU8, AtomicUsize, Ordering};
use mairbench_core::kernel::{Kernel, Order};

#[cfg_attr(target_arch = "aarch64", path = "sys/aarch64.rs")]
#[cfg_attr(target_arch = "arm", path = "sys/arm.rs")]
mod arch;

use arch::nr::{
    CLOCK_GETTIME as SYS_CLOCK_GETTIME, CLOSE as SYS_CLOSE, EXIT_GROUP as SYS_EXIT_GROUP,
    FCNTL as SYS_FCNTL, FSTAT as SYS_FSTAT, GETDENTS64 as SYS_GETDENTS64, GETPID as SYS_GETPID,
    IOCTL as SYS_IOCTL, MADVISE as SYS_MADVISE, MEMFD_CREATE as SYS_MEMFD_CREATE,
    MUNMAP as SYS_MUNMAP, OPENAT as SYS_OPENAT, READ as SYS_READ, READLINKAT as SYS_READLINKAT,
    RT_SIGACTION as SYS_RT_SIGACTION, SIGALTSTACK as SYS_SIGALTSTACK, UNAME as SYS_UNAME,
    WRITE as SYS_WRITE,
};
pub use arch::{
    counter, fault_on_purpose, freq_hz, image_base, ticks, ARCH, FREQ_REG, LOOPS, PGPROT_OF,
    USER_LEVEL,
};
use arch::{syscall, DrmVersion, DRM_IOCTL_VERSION, O_LARGEFILE};

const AT_FDCWD: i64 = -100;
const PROT_READ: u64 = 1;
const PROT_WRITE: u64 = 2;
const MAP_SHARED: u64 = 0x01;
const MAP_PRIVATE: u64 = 0x02;
const O_RDONLY: u64 = 0;
const O_RDWR: u64 = 2;
/// arm64 has the Arm values: O_DIRECTORY is 0o40000 (not x86's 0o200000).
const O_DIRECTORY: u64 = 0o40000;
const O_CLOEXEC: u64 = 0o2000000;
const O_SYNC: u64 = 0o4010000;
/// fcntl(2) F_ADD_SEALS (F_LINUX_SPECIFIC_BASE + 9) and F_SEAL_SHRINK.
const F_ADD_SEALS: u64 = 1033;
const F_SEAL_SHRINK: u64 = 0x0002;
/// memfd_create(2) flags: MFD_CLOEXEC | MFD_ALLOW_SEALING.
const MFD_CLOEXEC_SEALING: u64 = 0x0001 | 0x0002;
/// include/uapi/linux/udmabuf.h: `_IOW('u', 0x42, struct udmabuf_create)`, the struct being
/// `{ __u32 memfd; __u32 flags; __u64 offset; __u64 size; }` (24 bytes).
const UDMABUF_CREATE: u64 = (1 << 30) | (24 << 16) | ((b'u' as u64) << 8) | 0x42;
const UDMABUF_FLAGS_CLOEXEC: u32 = 0x01;
/// include/uapi/linux/dma-heap.h: `_IOWR('H', 0x0, struct dma_heap_allocation_data)`, the
/// struct being `{ __u64 len; __u32 fd; __u32 fd_flags; __u64 heap_flags; }` (24 bytes);
/// _IOWR is direction 3 (read and write) in bits 30-31 (asm-generic ioctl.h, as on arm64).
const DMA_HEAP_IOCTL_ALLOC: u64 = (3 << 30) | (24 << 16) | ((b'H' as u64) << 8);
/// include/uapi/drm/drm.h: `DRM_IOWR(0xB2, struct drm_mode_create_dumb)`, `DRM_IOWR` being
/// `_IOWR('d', nr, type)`; the struct (drm_mode.h) is 32 bytes ([`DrmModeCreateDumb`]).
const DRM_IOCTL_MODE_CREATE_DUMB: u64 = (3 << 30) | (32 << 16) | ((b'd' as u64) << 8) | 0xb2;
/// include/uapi/drm/drm.h: `DRM_IOWR(0xB3, struct drm_mode_map_dumb)` (16 bytes,
/// [`DrmModeMapDumb`]).
const DRM_IOCTL_MODE_MAP_DUMB: u64 = (3 << 30) | (16 << 16) | ((b'd' as u64) << 8) | 0xb3;
/// include/uapi/drm/drm.h: `DRM_IOWR(0x2d, struct drm_prime_handle)` (12 bytes,
/// [`DrmPrimeHandle`]).
const DRM_IOCTL_PRIME_HANDLE_TO_FD: u64 = (3 << 30) | (12 << 16) | ((b'd' as u64) << 8) | 0x2d;
/// include/uapi/linux/dma-buf.h: `_IOW('b', 0, struct dma_buf_sync)`, the struct being one
/// `__u64 flags` (direction 1, write, in bits 30-31).
const DMA_BUF_IOCTL_SYNC: u64 = (1 << 30) | (8 << 16) | ((b'b' as u64) << 8);
/// include/uapi/drm/drm.h: DRM_CLOEXEC is O_CLOEXEC, DRM_RDWR is O_RDWR.
const DRM_PRIME_FLAGS: u32 = (O_CLOEXEC | O_RDWR) as u32;
/// madvise(2) advice (include/uapi/asm-generic/mman-common.h).
const MADV_HUGEPAGE: u64 = 14;
const MADV_NOHUGEPAGE: u64 = 15;
/// include/uapi/linux/fs.h (Linux 6.7 and later): `_IOWR('f', 16, struct pm_scan_arg)`, the
/// struct being twelve `__u64` ([`PmScanArg`], 96 bytes).
const PAGEMAP_SCAN: u64 = (3 << 30) | (96 << 16) | ((b'f' as u64) << 8) | 16;
/// include/uapi/linux/fs.h: the category of a page mapped by a PMD (a THP) or a hugetlb
/// entry (fs/proc/task_mmu.c, `pagemap_thp_category` and `pagemap_hugetlb_category`).
const PAGE_IS_HUGE: u64 = 1 << 6;
// The numbers as the C headers' macros give them.
const _: () = assert!(PAGEMAP_SCAN == 0xc060_6610);
const _: () = assert!(DRM_IOCTL_PRIME_HANDLE_TO_FD == 0xc00c_642d);
const _: () = assert!(DMA_BUF_IOCTL_SYNC == 0x4008_6200);
const _: () = assert!(DMA_HEAP_IOCTL_ALLOC == 0xc018_4800);
const _: () = assert!(DRM_IOCTL_MODE_CREATE_DUMB == 0xc020_64b2);
const _: () = assert!(DRM_IOCTL_MODE_MAP_DUMB == 0xc010_64b3);

/// `struct pm_scan_arg` (include/uapi/linux/fs.h): the range to scan, where to put the
/// regions found (`vec`, `vec_len` of them) and which categories count; the kernel writes
/// `walk_end`, where it stopped.
#[repr(C)]
struct PmScanArg {
    size: u64,
    flags: u64,
    start: u64,
    end: u64,
    walk_end: u64,
    vec: u64,
    vec_len: u64,
    max_pages: u64,
    category_inverted: u64,
    category_mask: u64,
    category_anyof_mask: u64,
    return_mask: u64,
}

/// `struct page_region` (include/uapi/linux/fs.h): one range of pages of the same
/// categories.
#[repr(C)]
#[derive(Clone, Copy)]
struct PageRegion {
    start: u64,
    end: u64,
    categories: u64,
}

/// `struct dma_heap_allocation_data` (include/uapi/linux/dma-heap.h).
#[repr(C)]
struct DmaHeapAllocationData {
    len: u64,
    fd: u32,
    fd_flags: u32,
    heap_flags: u64,
}

/// `struct drm_mode_create_dumb` (include/uapi/drm/drm_mode.h): the caller fills height,
/// width, bpp and flags (0); the kernel fills handle, pitch and size.
#[repr(C)]
struct DrmModeCreateDumb {
    height: u32,
    width: u32,
    bpp: u32,
    flags: u32,
    handle: u32,
    pitch: u32,
    size: u64,
}

/// `struct drm_prime_handle` (include/uapi/drm/drm.h): handle and flags in, fd out.
#[repr(C)]
struct DrmPrimeHandle {
    handle: u32,
    flags: u32,
    fd: i32,
}

/// `struct drm_mode_map_dumb` (include/uapi/drm/drm_mode.h): the kernel fills offset, the
/// fake offset to mmap the card at.
#[repr(C)]
struct DrmModeMapDumb {
    handle: u32,
    pad: u32,
    offset: u64,
}

// The layouts the ioctl numbers encode (the size field) and the kernel reads.
const _: () = assert!(core::mem::size_of::<DmaHeapAllocationData>() == 24);
const _: () = assert!(core::mem::offset_of!(DmaHeapAllocationData, fd) == 8);
const _: () = assert!(core::mem::offset_of!(DmaHeapAllocationData, heap_flags) == 16);
const _: () = assert!(core::mem::size_of::<DrmModeCreateDumb>() == 32);
const _: () = assert!(core::mem::offset_of!(DrmModeCreateDumb, handle) == 16);
const _: () = assert!(core::mem::offset_of!(DrmModeCreateDumb, size) == 24);
const _: () = assert!(core::mem::size_of::<DrmModeMapDumb>() == 16);
const _: () = assert!(core::mem::size_of::<DrmPrimeHandle>() == 12);
const _: () = assert!(core::mem::offset_of!(DrmModeMapDumb, offset) == 8);
const _: () = assert!(core::mem::size_of::<PmScanArg>() == 96);
const _: () = assert!(core::mem::offset_of!(PmScanArg, walk_end) == 32);
const _: () = assert!(core::mem::offset_of!(PmScanArg, return_mask) == 88);
const _: () = assert!(core::mem::size_of::<PageRegion>() == 24);

/// Width of the DRM dumb buffer in pixels, at [`DRM_DUMB_BPP`]: one 4 KiB row.
const DRM_DUMB_WIDTH: u32 = 1024;
/// Bits per pixel of the dumb buffer.
const DRM_DUMB_BPP: u32 = 32;
/// Bytes of one row of the dumb buffer (the pitch it asks for).
const DRM_DUMB_ROW: u64 = DRM_DUMB_WIDTH as u64 * DRM_DUMB_BPP as u64 / 8;
const MAP_ANONYMOUS: u64 = 0x20;

/// argc and argv as the kernel laid them out (set once by the entry).
static ARGC: AtomicU64 = AtomicU64::new(0);
static ARGV: AtomicU64 = AtomicU64::new(0);

#[no_mangle]
extern "C" fn mb_linux_entry(sp: *const usize) -> ! {
    // SAFETY: `_start` passes the initial stack pointer, where Linux put argc (a word of the
    // pointers' size) followed by argc pointers (argv) to NUL-terminated strings that live as
    // long as the process.
    let argc = unsafe { *sp };
    ARGC.store(argc as u64, Ordering::Relaxed);
    ARGV.store(sp.wrapping_add(1) as u64, Ordering::Relaxed);
    crate::main()
}

/// The arguments after the program name, those that are UTF-8 (others are left out).
pub fn args() -> impl Iterator<Item = &'static str> {
    let (argc, argv) = (ARGC.load(Ordering::Relaxed), ARGV.load(Ordering::Relaxed));
    (1..argc).filter_map(move |i| {
        // SAFETY: i < argc, so argv[i] is one of the kernel's argument pointers: a
        // NUL-terminated string that lives as long as the process and is never written.
        let bytes = unsafe {
            let p = *(argv as *const *const u8).add(i as usize);
            let mut n = 0usize;
            while *p.add(n) != 0 {
                n += 1;
            }
            core::slice::from_raw_parts(p, n)
        };
        core::str::from_utf8(bytes).ok()
    })
}

/// ioctl(2) `req` on `fd` with a pointer to `arg`: the kernel's non-negative return value, or
/// the errno.
///
/// # Safety
/// `T` must be the very struct (layout and size) that `req` reads and writes.
unsafe fn ioctl<T>(fd: &Fd, req: u64, arg: &mut T) -> Result<u64, i64> {
    // SAFETY: the caller guarantees that `req` reads and writes one `T`, which `arg` is.
    let r = unsafe { syscall(SYS_IOCTL, [fd.0, req, arg as *mut T as u64, 0, 0, 0]) };
    u64::try_from(r).map_err(|_| -r)
}

/// Writes all of `bytes` to file descriptor `fd`; the errno of a failed write.
pub fn write_all(fd: u64, mut bytes: &[u8]) -> Result<(), i64> {
    while !bytes.is_empty() {
        // SAFETY: write(2) only reads `bytes.len()` bytes at `bytes`.
        let n = unsafe {
            syscall(
                SYS_WRITE,
                [fd, bytes.as_ptr() as u64, bytes.len() as u64, 0, 0, 0],
            )
        };
        match usize::try_from(n) {
            Ok(0) | Err(_) if n != -4 => return Err(-n),
            Ok(k) => bytes = bytes.get(k..).unwrap_or_default(),
            Err(_) => {} // EINTR: again
        }
    }
    Ok(())
}

/// The word a debugger writes (non-zero) to end a [`pause`]: it reads the twin's page
/// tables while the twin spins on it, then writes it by its physical address.
static RELEASE: AtomicU64 = AtomicU64::new(0);

/// This process's id (getpid(2)).
pub fn pid() -> u64 {
    // SAFETY: getpid takes no argument and touches no memory.
    unsafe { syscall(SYS_GETPID, [0; 6]) }.unsigned_abs()
}

/// The virtual address of the word that ends a [`pause`].
pub fn release_word() -> u64 {
    RELEASE.as_ptr() as u64
}

/// Zeroes the word at [`release_word`], before it is named: a write, so that its page is
/// this process's own, present and writable, not a shared zero page.
pub fn clear_release() {
    RELEASE.store(0, Ordering::SeqCst);
}

/// Spins at EL0 until a debugger writes a non-zero value to the word at [`release_word`]
/// (cleared by [`clear_release`] before it was named) or `limit` ticks of CNTVCT_EL0 have
/// passed; true when released. Spinning, not sleeping, keeps the CPU in this process, so a
/// debugger that stops the machine most likely finds TTBR0_EL1 holding its tables.
pub fn pause(limit: u64) -> bool {
    let t0 = ticks();
    loop {
        if RELEASE.load(Ordering::Acquire) != 0 {
            RELEASE.store(0, Ordering::SeqCst);
            return true;
        }
        if ticks().wrapping_sub(t0) > limit {
            return false;
        }
        core::hint::spin_loop();
    }
}

/// What the process is doing now, for a fatal signal's report: a copy of [`doing`]'s text
/// (cut to 128 bytes), so that the handler reads only memory of its own.
static DOING: [AtomicU8; DOING_MAX] = [const { AtomicU8::new(0) }; DOING_MAX];
static DOING_LEN: AtomicUsize = AtomicUsize::new(0);
const DOING_MAX: usize = 128;

/// While alive, [`doing`]'s text is what a fatal signal's report says the process was
/// doing; dropped, the previous text is back.
pub struct Doing {
    previous: [u8; DOING_MAX],
    previous_len: usize,
}

/// Says what the process is doing (e.g. "measuring pci:0000:00:01.0:res2 read-ldp at
/// 4 KiB") until the returned guard is dropped.
pub fn doing(what: &str) -> Doing {
    let (previous, previous_len) = doing_now();
    set_doing(what.as_bytes());
    Doing {
        previous,
        previous_len,
    }
}

fn set_doing(text: &[u8]) {
    let n = text.len().min(DOING_MAX);
    DOING_LEN.store(0, Ordering::Relaxed);
    for (slot, &b) in DOING.iter().zip(&text[..n]) {
        slot.store(b, Ordering::Relaxed);
    }
    DOING_LEN.store(n, Ordering::Relaxed);
}

/// The text [`doing`] last set, and its length.
fn doing_now() -> ([u8; DOING_MAX], usize) {
    let mut text = [0u8; DOING_MAX];
    for (b, slot) in text.iter_mut().zip(&DOING) {
        *b = slot.load(Ordering::Relaxed);
    }
    (text, DOING_LEN.load(Ordering::Relaxed).min(DOING_MAX))
}

impl Drop for Doing {
    fn drop(&mut self) {
        set_doing(&self.previous[..self.previous_len]);
    }
}

/// A fatal signal: which, the faulting address (si_addr) and what the process was doing.
pub struct Fatal<'a> {
    /// "SIGSEGV", "SIGBUS" or "SIGILL".
    pub signal: &'static str,
    /// What it means, in a few words.
    pub meaning: &'static str,
    /// The faulting address (the instruction's for SIGILL).
    pub addr: u64,
    /// What [`doing`] last said ("starting" before anything).
    pub doing: &'a str,
}

/// The signals a bad mapping or instruction raises, with what each means.
const FATAL_SIGNALS: [(u64, &str, &str); 3] = [
    (4, "SIGILL", "an instruction EL0 may not execute"),
    (
        7,
        "SIGBUS",
        "a bus error: the access reached no memory or device that answered",
    ),
    (11, "SIGSEGV", "an access the mapping does not allow"),
];

/// Sends SIGILL, SIGBUS and SIGSEGV to `crate::fatal` on a stack of their own, so that a
/// mapping that faults, or a clock EL0 may not read, ends the run with a report instead of
/// killing it silently. The errno when the kernel refuses.
pub fn on_fatal_signals() -> Result<(), i64> {
    const STACK: u64 = 64 << 10;
    let stack = Mapping::anon(STACK)?;
    let ss = arch::stack_t(stack.va, STACK);
    // SAFETY: sigaltstack(2) reads one stack_t; the stack it names is a mapping that is
    // never unmapped (forgotten below) and holds no Rust object.
    let r = unsafe { syscall(SYS_SIGALTSTACK, [ss.as_ptr() as u64, 0, 0, 0, 0, 0]) };
    if r < 0 {
        return Err(-r);
    }
    core::mem::forget(stack);
    const SA_SIGINFO: u64 = 0x4;
    const SA_ONSTACK: u64 = 0x0800_0000;
    for (sig, _, _) in FATAL_SIGNALS {
        // struct sigaction: handler, flags, restorer (none: the handler never returns),
        // mask (64 bits: none blocked).
        let handler = on_signal as *const () as usize as u64;
        let act = arch::sigaction(handler, SA_SIGINFO | SA_ONSTACK);
        // SAFETY: rt_sigaction(2) reads one struct sigaction of the layout above; the
        // handler is an `extern "C"` function of the SA_SIGINFO signature.
        let r = unsafe { syscall(SYS_RT_SIGACTION, [sig, act.as_ptr() as u64, 0, 8, 0, 0]) };
        if r < 0 {
            return Err(-r);
        }
    }
    arch::probe_counter();
    Ok(())
}

/// The SA_SIGINFO handler: reports through `crate::fatal`, which ends the process.
extern "C" fn on_signal(sig: i32, info: *const u8, context: *mut u8) {
    // SAFETY: `context` is the kernel's ucontext_t for this signal, which the handler owns
    // until it returns.
    if unsafe { arch::recover(sig, context) } {
        return;
    }
    let (name, meaning) = FATAL_SIGNALS
        .iter()
        .find(|&&(n, _, _)| n == sig as u64)
        .map_or(("signal", ""), |&(_, name, meaning)| (name, meaning));
    // SAFETY: the kernel passes a siginfo_t of one of the signals that have si_addr.
    let addr = unsafe { arch::si_addr(info) };
    let (text, len) = doing_now();
    let text = &text[..len];
    // A cut may end inside a character: what is valid before it.
    let valid = match core::str::from_utf8(text) {
        Ok(t) => t,
        Err(e) => core::str::from_utf8(&text[..e.valid_up_to()]).unwrap_or(""),
    };
    let doing = if valid.is_empty() { "starting" } else { valid };
    crate::fatal(Fatal {
        signal: name,
        meaning,
        addr,
        doing,
    })
}

/// Ends the process with `status`.
pub fn exit(status: u8) -> ! {
    // SAFETY: exit_group(2) takes a plain integer and does not return.
    unsafe {
        syscall(SYS_EXIT_GROUP, [u64::from(status), 0, 0, 0, 0, 0]);
    }
    loop {
        core::hint::spin_loop();
    }
}

/// Reads the start of the file at `path` (a path without NUL) into `buf`: the bytes read, or
/// the errno.
pub fn read_file<'b>(path: &str, buf: &'b mut [u8]) -> Result<&'b [u8], i64> {
    let mut z = [0u8; 256];
    let p = path.as_bytes();
    if p.len() >= z.len() || p.contains(&0) {
        return Err(36); // ENAMETOOLONG
    }
    z[..p.len()].copy_from_slice(p);
    const O_RDONLY_CLOEXEC: u64 = 0o2000000 | O_LARGEFILE;
    // SAFETY: openat(2) reads the NUL-terminated path in `z`.
    let fd = unsafe {
        syscall(
            SYS_OPENAT,
            [
                AT_FDCWD as u64,
                z.as_ptr() as u64,
                O_RDONLY_CLOEXEC,
                0,
                0,
                0,
            ],
        )
    };
    let fd = u64::try_from(fd).map_err(|_| -fd)?;
    // SAFETY: read(2) writes at most `buf.len()` bytes into `buf`.
    let n = unsafe {
        syscall(
            SYS_READ,
            [fd, buf.as_mut_ptr() as u64, buf.len() as u64, 0, 0, 0],
        )
    };
    // SAFETY: close(2) of the descriptor opened above, used nowhere else.
    unsafe { syscall(SYS_CLOSE, [fd, 0, 0, 0, 0, 0]) };
    let n = usize::try_from(n).map_err(|_| -n)?;
    buf.get(..n).ok_or(5) // EIO
}

/// Reads the file at `path` into `buf` until its end or until `buf` is full (a file such as
/// /proc/self/smaps comes a record at a time): the bytes read, or the errno.
pub fn read_all<'b>(path: &str, buf: &'b mut [u8]) -> Result<&'b [u8], i64> {
    let fd = Fd::open(path, O_RDONLY)?;
    let mut n = 0usize;
    while let Some(rest) = buf.get_mut(n..).filter(|r| !r.is_empty()) {
        // SAFETY: read(2) writes at most `rest.len()` bytes into `rest`.
        let r = unsafe {
            syscall(
                SYS_READ,
                [fd.0, rest.as_mut_ptr() as u64, rest.len() as u64, 0, 0, 0],
            )
        };
        match usize::try_from(r) {
            Ok(0) => break,
            Ok(k) => n += k.min(rest.len()),
            Err(_) if r == -4 => {} // EINTR: again
            Err(_) => return Err(-r),
        }
    }
    buf.get(..n).ok_or(5) // EIO
}

/// How many bytes of `[va, va + len)` (page-aligned) this process maps with PMD or hugetlb
/// entries: the PAGEMAP_SCAN ioctl on /proc/self/pagemap (Linux 6.7 and later; no
/// privilege needed, it reports no frame numbers), pages of category PAGE_IS_HUGE. The errno
/// where the kernel (or an emulator) has no such ioctl.
pub fn huge_bytes_in(va: u64, len: u64) -> Result<u64, i64> {
    let end = va.checked_add(len).ok_or(22)?;
    let pagemap = Fd::open("/proc/self/pagemap", O_RDONLY)?;
    let mut regions = [PageRegion {
        start: 0,
        end: 0,
        categories: 0,
    }; 32];
    let mut at = va;
    let mut huge = 0u64;
    while at < end {
        let mut arg = PmScanArg {
            size: core::mem::size_of::<PmScanArg>() as u64,
            flags: 0,
            start: at,
            end,
            walk_end: 0,
            vec: regions.as_mut_ptr() as u64,
            vec_len: regions.len() as u64,
            max_pages: 0,
            category_inverted: 0,
            category_mask: PAGE_IS_HUGE,
            category_anyof_mask: 0,
            return_mask: PAGE_IS_HUGE,
        };
        // SAFETY: PAGEMAP_SCAN reads and writes one struct pm_scan_arg, whose layout
        // `PmScanArg` is (checked above), and writes at most `vec_len` struct page_region
        // (`PageRegion`, checked above) at `vec`, which is `regions`; it only reads the page
        // tables of [start, end).
        let n = unsafe { ioctl(&pagemap, PAGEMAP_SCAN, &mut arg) }?;
        for r in regions.iter().take(n as usize) {
            if r.categories & PAGE_IS_HUGE != 0 {
                huge += r.end.min(end).saturating_sub(r.start.max(at));
            }
        }
        // The scan stops early only when `regions` is full.
        if arg.walk_end <= at {
            break;
        }
        at = arg.walk_end;
    }
    Ok(huge)
}

/// A NUL-terminated copy of `path`, or ENAMETOOLONG.
fn c_path(path: &str) -> Result<[u8; 256], i64> {
    let mut z = [0u8; 256];
    let p = path.as_bytes();
    if p.len() >= z.len() || p.contains(&0) {
        return Err(36); // ENAMETOOLONG
    }
    z[..p.len()].copy_from_slice(p);
    Ok(z)
}

/// A file descriptor this process owns, closed when dropped.
pub struct Fd(u64);

impl Fd {
    fn open(path: &str, flags: u64) -> Result<Fd, i64> {
        let z = c_path(path)?;
        // SAFETY: openat(2) reads the NUL-terminated path in `z`.
        let fd = unsafe {
            syscall(
                SYS_OPENAT,
                [
                    AT_FDCWD as u64,
                    z.as_ptr() as u64,
                    flags | O_CLOEXEC | O_LARGEFILE,
                    0,
                    0,
                    0,
                ],
            )
        };
        u64::try_from(fd).map(Fd).map_err(|_| -fd)
    }

    /// The file's size (fstat(2) st_size).
    fn size(&self) -> Result<u64, i64> {
        // struct stat on arm64 (asm-generic): 128 bytes, st_size at byte 48; struct stat64
        // on 32-bit Arm EABI (fstat64): 104 bytes, st_size at byte 48 too.
        let mut st = [0u64; 16];
        // SAFETY: fstat(2) (fstat64 on 32-bit Arm) writes one struct stat of at most 128
        // bytes into `st`.
        let r = unsafe { syscall(SYS_FSTAT, [self.0, st.as_mut_ptr() as u64, 0, 0, 0, 0]) };
        if r < 0 {
            return Err(-r);
        }
        Ok(st[6])
    }
}

impl Drop for Fd {
    fn drop(&mut self) {
        // SAFETY: close(2) of a descriptor this value alone owns.
        unsafe { syscall(SYS_CLOSE, [self.0, 0, 0, 0, 0, 0]) };
    }
}

/// Calls `f` with the name of every entry of the directory `path` but `.` and `..`
/// (getdents64(2)); the errno when it cannot be listed.
pub fn list_dir(path: &str, mut f: impl FnMut(&str)) -> Result<(), i64> {
    let dir = Fd::open(path, O_RDONLY | O_DIRECTORY)?;
    let mut buf = [0u64; 512];
    loop {
        // SAFETY: getdents64(2) writes at most the 4096 bytes of `buf`.
        let n = unsafe {
            syscall(
                SYS_GETDENTS64,
                [dir.0, buf.as_mut_ptr() as u64, 4096, 0, 0, 0],
            )
        };
        let n = usize::try_from(n).map_err(|_| -n)?;
        if n == 0 {
            return Ok(());
        }
        // SAFETY: views the u64 buffer as its bytes (same memory, alignment 1).
        let bytes = unsafe { core::slice::from_raw_parts(buf.as_ptr() as *const u8, 4096) };
        let mut at = 0;
        // struct linux_dirent64: d_ino u64, d_off i64, d_reclen u16, d_type u8, d_name[].
        while at + 19 < n {
            let reclen = usize::from(u16::from_le_bytes([bytes[at + 16], bytes[at + 17]]));
            let Some(rec) = bytes.get(at + 19..(at + reclen).min(n)) else {
                return Err(5); // EIO
            };
            if reclen == 0 {
                return Err(5);
            }
            let end = rec.iter().position(|&b| b == 0).unwrap_or(rec.len());
            if let Ok(name) = core::str::from_utf8(&rec[..end]) {
                if name != "." && name != ".." {
                    f(name);
                }
            }
            at += reclen;
        }
    }
}

/// uname(2): sysname, release, machine (empty strings when it fails).
pub struct Uname {
    raw: [u8; 6 * 65],
}

impl Uname {
    /// Asks the kernel.
    pub fn get() -> Uname {
        let mut raw = [0u8; 6 * 65];
        // SAFETY: uname(2) fills a struct utsname: six 65-byte fields, the size of `raw`.
        unsafe { syscall(SYS_UNAME, [raw.as_mut_ptr() as u64, 0, 0, 0, 0, 0]) };
        Uname { raw }
    }

    fn field(&self, i: usize) -> &str {
        let f = self.raw.get(i * 65..(i + 1) * 65).unwrap_or_default();
        let end = f.iter().position(|&b| b == 0).unwrap_or(f.len());
        core::str::from_utf8(f.get(..end).unwrap_or_default()).unwrap_or("?")
    }

    /// The kernel's name ("Linux").
    pub fn sysname(&self) -> &str {
        self.field(0)
    }

    /// The kernel's release ("6.12.38+deb12-arm64").
    pub fn release(&self) -> &str {
        self.field(2)
    }

    /// The machine ("aarch64").
    pub fn machine(&self) -> &str {
        self.field(4)
    }
}

/// A read-write mapping this process owns (anonymous, or of a file, a dma-buf, a device),
/// unmapped when dropped.
pub struct Mapping {
    va: u64,
    len: u64,
    /// Mapped bytes before `va` that the kernels do not use (an anonymous mapping that
    /// starts within a page, [`Mapping::anon_aligned`]); unmapped with the rest.
    head: u64,
    /// The dma-buf it maps, for DMA_BUF_IOCTL_SYNC (the `dma-buf:` source only).
    dmabuf: Option<Fd>,
}

impl Mapping {
    /// Maps `len` bytes (rounded up to pages by the kernel); the errno when refused.
    pub fn anon(len: u64) -> Result<Mapping, i64> {
        if len == 0 {
            return Err(22); // EINVAL
        }
        let flags = MAP_PRIVATE | MAP_ANONYMOUS;
        // SAFETY: a new anonymous mapping at an address the kernel chooses touches no
        // existing memory.
        let va = unsafe { arch::mmap(0, len, PROT_READ | PROT_WRITE, flags, u64::MAX, 0) };
        if (-4095..0).contains(&va) {
            return Err(-va);
        }
        Ok(Mapping {
            va: va as u64,
            len,
            head: 0,
            dmabuf: None,
        })
    }

    /// Maps `len` bytes (a multiple of 4 KiB) anonymous and private at an address `skew`
    /// bytes (a multiple of 64, below `align`) past a multiple of `align` (a power of two):
    /// `len + 2 × align` bytes mapped, then what lies before and after the pages that hold
    /// that part unmapped. A skew within a page starts the mapping's usable part there (the
    /// bytes before it, in its first page, stay mapped and unused). The errno when refused.
    pub fn anon_aligned(len: u64, align: u64, skew: u64) -> Result<Mapping, i64> {
        if len == 0
            || !len.is_multiple_of(4096)
            || !align.is_power_of_two()
            || !skew.is_multiple_of(64)
            || skew >= align
        {
            return Err(22); // EINVAL
        }
        let in_page = skew % 4096;
        let pages = len + in_page.next_multiple_of(4096);
        let mut m = Mapping::anon(len.checked_add(2 * align).ok_or(12)?)?;
        let start = m.va.next_multiple_of(align) + (skew - in_page);
        let (head, tail) = (start - m.va, m.va + m.len - (start + pages));
        // SAFETY: both ranges lie in the mapping `m` owns and nothing has touched yet; what
        // remains, [start, start + len), becomes `m`'s before it is used or dropped.
        unsafe {
            if head != 0 {
                syscall(SYS_MUNMAP, [m.va, head, 0, 0, 0, 0]);
            }
            if tail != 0 {
                syscall(SYS_MUNMAP, [start + pages, tail, 0, 0, 0, 0]);
            }
        }
        m.va = start + in_page;
        m.len = len;
        m.head = in_page;
        Ok(m)
    }

    /// madvise(2) over the whole mapping: MADV_HUGEPAGE (`huge`) or MADV_NOHUGEPAGE. The
    /// errno when refused (EINVAL from a kernel without THP).
    pub fn advise_huge(&self, huge: bool) -> Result<(), i64> {
        let advice = if huge { MADV_HUGEPAGE } else { MADV_NOHUGEPAGE };
        let (start, len) = (self.va - self.head, self.len + self.head);
        // SAFETY: madvise(2) with these hints changes how the kernel backs the mapping this
        // value owns (its pages, from the first), never its contents.
        let r = unsafe { syscall(SYS_MADVISE, [start, len, advice, 0, 0, 0]) };
        if r < 0 {
            return Err(-r);
        }
        Ok(())
    }

    /// The mapping as bytes.
    pub fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: as for `words`: `len` bytes of read-write memory owned by this value alone.
        unsafe { core::slice::from_raw_parts_mut(self.va as *mut u8, self.len as usize) }
    }

    /// A shared mapping of the first `len` bytes of `fd` from `offset`, read-write.
    fn shared(fd: &Fd, len: u64, offset: u64) -> Result<Mapping, i64> {
        if len == 0 {
            return Err(22); // EINVAL
        }
        // SAFETY: a new mapping at an address the kernel chooses touches no existing memory;
        // what it maps is the file's (test data only: this program owns what it writes).
        let va = unsafe { arch::mmap(0, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd.0, offset) };
        if (-4095..0).contains(&va) {
            return Err(-va);
        }
        Ok(Mapping {
            va: va as u64,
            len,
            head: 0,
            dmabuf: None,
        })
    }

    /// The `udmabuf` source: a sealed memfd of `len` bytes (rounded up to 4 KiB) turned into
    /// a dma-buf by `/dev/udmabuf` (UDMABUF_CREATE), and the dma-buf mapped. On failure the
    /// errno and the step that failed.
    pub fn udmabuf(len: u64) -> Result<Mapping, (i64, &'static str)> {
        let len = len.div_ceil(4096).saturating_mul(4096);
        let dev = Fd::open("/dev/udmabuf", O_RDWR).map_err(|e| (e, "open /dev/udmabuf"))?;
        let name = b"mairbench\0";
        // SAFETY: memfd_create(2) reads the NUL-terminated name.
        let memfd = unsafe {
            syscall(
                SYS_MEMFD_CREATE,
                [name.as_ptr() as u64, MFD_CLOEXEC_SEALING, 0, 0, 0, 0],
            )
        };
        let memfd = u64::try_from(memfd)
            .map(Fd)
            .map_err(|_| (-memfd, "memfd_create"))?;
        let r = arch::ftruncate(memfd.0, len);
        if r < 0 {
            return Err((-r, "ftruncate"));
        }
        // SAFETY: fcntl(2) F_ADD_SEALS takes plain integers.
        let r = unsafe { syscall(SYS_FCNTL, [memfd.0, F_ADD_SEALS, F_SEAL_SHRINK, 0, 0, 0]) };
        if r < 0 {
            return Err((-r, "F_ADD_SEALS F_SEAL_SHRINK"));
        }
        #[repr(C)]
        struct UdmabufCreate {
            memfd: u32,
            flags: u32,
            offset: u64,
            size: u64,
        }
        let create = UdmabufCreate {
            memfd: memfd.0 as u32,
            flags: UDMABUF_FLAGS_CLOEXEC,
            offset: 0,
            size: len,
        };
        // SAFETY: UDMABUF_CREATE reads one struct udmabuf_create (the layout above).
        let buf = unsafe {
            syscall(
                SYS_IOCTL,
                [
                    dev.0,
                    UDMABUF_CREATE,
                    &create as *const UdmabufCreate as u64,
                    0,
                    0,
                    0,
                ],
            )
        };
        let buf = u64::try_from(buf)
            .map(Fd)
            .map_err(|_| (-buf, "UDMABUF_CREATE"))?;
        Mapping::shared(&buf, len, 0).map_err(|e| (e, "mmap of the dma-buf"))
    }

    /// A file mapped shared from `offset`: `len` bytes, at most the file's size when
    /// `bounded` (sysfs BAR files have the BAR's size; `/dev/mem` has none). On failure the
    /// errno and the step that failed.
    pub fn file(
        path: &str,
        sync: bool,
        len: u64,
        offset: u64,
        bounded: bool,
    ) -> Result<Mapping, (i64, &'static str)> {
        let flags = O_RDWR | if sync { O_SYNC } else { 0 };
        let fd = Fd::open(path, flags).map_err(|e| (e, "open"))?;
        let len = if bounded {
            len.min(fd.size().map_err(|e| (e, "fstat"))?)
        } else {
            len
        };
        Mapping::shared(&fd, len, offset).map_err(|e| (e, "mmap"))
    }

    /// The `dma-heap:<name>` source: `len` bytes (rounded up to 4 KiB) allocated from the
    /// heap at `path` (`/dev/dma_heap/<name>`) with DMA_HEAP_IOCTL_ALLOC, and the dma-buf it
    /// returns mapped. On failure the errno and the step that failed.
    pub fn dma_heap(path: &str, len: u64) -> Result<Mapping, (i64, &'static str)> {
        let len = len.div_ceil(4096).saturating_mul(4096);
        let heap = Fd::open(path, O_RDONLY).map_err(|e| (e, "open"))?;
        let mut alloc = DmaHeapAllocationData {
            len,
            fd: 0,
            fd_flags: (O_RDWR | O_CLOEXEC) as u32,
            heap_flags: 0,
        };
        // SAFETY: DMA_HEAP_IOCTL_ALLOC reads and writes one struct dma_heap_allocation_data,
        // whose layout `DmaHeapAllocationData` is (checked above).
        unsafe { ioctl(&heap, DMA_HEAP_IOCTL_ALLOC, &mut alloc) }
            .map_err(|e| (e, "DMA_HEAP_IOCTL_ALLOC"))?;
        let buf = Fd(u64::from(alloc.fd));
        Mapping::shared(&buf, len, 0).map_err(|e| (e, "mmap of the dma-buf"))
    }

    /// The `drm-dumb:<card>` source: a dumb buffer of at least `len` bytes on the DRM card
    /// at `path` (`/dev/dri/<card>`, see [`dumb_buffer`]), its fake offset got with
    /// DRM_IOCTL_MODE_MAP_DUMB, and the card mapped there. On failure the errno and the step
    /// that failed.
    pub fn drm_dumb(path: &str, len: u64) -> Result<Mapping, (i64, &'static str)> {
        let (card, handle, len) = dumb_buffer(path, len)?;
        let mut map = DrmModeMapDumb {
            handle,
            pad: 0,
            offset: 0,
        };
        // SAFETY: DRM_IOCTL_MODE_MAP_DUMB reads and writes one struct drm_mode_map_dumb,
        // whose layout `DrmModeMapDumb` is (checked above).
        unsafe { ioctl(&card, DRM_IOCTL_MODE_MAP_DUMB, &mut map) }
            .map_err(|e| (e, "DRM_IOCTL_MODE_MAP_DUMB"))?;
        // The mapping keeps the buffer; closing the card afterwards frees the handle only.
        Mapping::shared(&card, len, map.offset).map_err(|e| (e, "mmap"))
    }

    /// The `dma-buf:<card>` source: a dumb buffer as for `drm-dumb:` ([`dumb_buffer`]),
    /// exported with DRM_IOCTL_PRIME_HANDLE_TO_FD (read-write), and the dma-buf mapped; the
    /// mapping keeps the dma-buf for [`Mapping::sync`]. On failure the errno and the step
    /// that failed.
    pub fn prime(path: &str, len: u64) -> Result<Mapping, (i64, &'static str)> {
        let (card, handle, len) = dumb_buffer(path, len)?;
        let mut prime = DrmPrimeHandle {
            handle,
            flags: DRM_PRIME_FLAGS,
            fd: -1,
        };
        // SAFETY: DRM_IOCTL_PRIME_HANDLE_TO_FD reads and writes one struct drm_prime_handle,
        // whose layout `DrmPrimeHandle` is (checked above).
        unsafe { ioctl(&card, DRM_IOCTL_PRIME_HANDLE_TO_FD, &mut prime) }
            .map_err(|e| (e, "DRM_IOCTL_PRIME_HANDLE_TO_FD"))?;
        let buf = u64::try_from(prime.fd)
            .map(Fd)
            .map_err(|_| (5, "DRM_IOCTL_PRIME_HANDLE_TO_FD"))?;
        let mut m = Mapping::shared(&buf, len, 0).map_err(|e| (e, "mmap of the dma-buf"))?;
        m.dmabuf = Some(buf);
        Ok(m)
    }

    /// The dma-buf this mapping maps, for DMA_BUF_IOCTL_SYNC; `None` for other sources.
    pub fn sync_handle(&self) -> Option<SyncHandle> {
        self.dmabuf.as_ref().map(|fd| SyncHandle(fd.0))
    }

    /// The mapping's length in bytes.
    pub fn size(&self) -> u64 {
        self.len
    }

    /// The mapping's first address (where its pointer chase points).
    pub fn va(&self) -> u64 {
        self.va
    }

    /// The mapping as 64-bit words.
    pub fn words(&mut self) -> &mut [u64] {
        // SAFETY: the mapping is `len` bytes of line-aligned read-write memory owned by this
        // value alone (it holds no Rust object); the borrow keeps it mapped.
        unsafe { core::slice::from_raw_parts_mut(self.va as *mut u64, (self.len / 8) as usize) }
    }

    /// The streaming kernel `kernel` (read-ldp, write-stp, their q and non-temporal forms;
    /// on 32-bit Arm the A32 loops `arch` maps them to) over the first `len` bytes, `passes`
    /// times: `None` for another kernel or one without a loop here, or unless `len` is a
    /// non-zero multiple of the loop's step (256 bytes, 512 for the q forms) inside the
    /// mapping. The writes store core's `pattern::WRITTEN`.
    pub fn stream(&mut self, kernel: Kernel, len: u64, passes: u64) -> Option<()> {
        let step = arch::stream_step(kernel)?;
        self.fits(len, step)?;
        for _ in 0..passes {
            // SAFETY: [va, va + len) lies in this read-write mapping, which this value alone
            // owns (test data only); len is a non-zero multiple of the loop's step and va is
            // line-aligned.
            unsafe { arch::stream(kernel, self.va, len) };
        }
        Some(())
    }

    /// Cleans and invalidates the first `len` bytes to the point of coherency (DC CIVAC by
    /// line through this mapping, then DSB SY), so that no line of them is in a data cache:
    /// the firmware's `invalidated` start. Linux lets EL0 issue it (SCTLR_EL1.UCI, set by
    /// the kernel on every arm64 CPU; emulated where an erratum needs it). `None` unless
    /// `len` is a non-zero multiple of the line inside the mapping, and always on 32-bit Arm,
    /// whose cache maintenance by address is PL1's.
    pub fn clean_invalidate(&mut self, len: u64) -> Option<()> {
        let line = arch::dcache_line()?;
        self.fits(len, line)?;
        // SAFETY: [va, va + len) lies in this mapping, len is a non-zero multiple of the
        // smallest data cache line and va is line-aligned; DC CIVAC writes dirty lines back
        // before dropping them, so no data changes.
        unsafe { arch::clean_invalidate(self.va, len, line) };
        Some(())
    }

    /// The ldp/stp copy (mb_k_copy, or mb_k_copy_q with q registers when `q`; ldm/stm and
    /// vld1/vst1 on 32-bit Arm) of the first `len` bytes of `src` over the first `len` bytes
    /// of `dst`, `passes` times: `None` unless `len` is a non-zero multiple of the loop's step
    /// (128 bytes, 256 for q) inside both.
    pub fn copy(dst: &mut Mapping, src: &Mapping, len: u64, passes: u64, q: bool) -> Option<()> {
        let step = arch::copy_step(q);
        dst.fits(len, step)?;
        src.fits(len, step)?;
        for _ in 0..passes {
            // SAFETY: both ranges lie in their read-write mappings (distinct: `dst` is borrowed
            // mutably), len is a non-zero multiple of the loop's step, both starts are
            // line-aligned.
            unsafe { arch::copy(q, dst.va, src.va, len) };
        }
        Some(())
    }

    /// The pointer chase (mb_k_chase): `passes` runs of `loads` dependent loads, the first
    /// from the word at `at`, each continuing where the last stopped; `at` must lie in the
    /// mapping, 8-aligned, and `loads` be a non-zero multiple of 8. The last pointer loaded
    /// (where a next chase continues; `at` itself after 0 passes), `None` when the
    /// arguments do not fit. Every word loaded is read as the next address: the caller lays
    /// a cycle of pointers into the mapping first. (Should one be changed meanwhile, the
    /// loads go where it points: loads only; outside any mapping that ends the process with
    /// SIGSEGV.)
    pub fn chase(&mut self, at: u64, loads: u64, passes: u64) -> Option<u64> {
        let inside = at >= self.va && at < self.va + self.len && at.is_multiple_of(8);
        if !inside || loads == 0 || !loads.is_multiple_of(8) {
            return None;
        }
        let mut at = at;
        for _ in 0..passes {
            // SAFETY: the first load is of a word inside this mapping, owned by this value
            // (borrowed mutably: no Rust reference reads or writes it meanwhile); the kernel
            // only loads, never stores, and uses caller-saved registers only.
            at = unsafe { arch::chase(at, loads) };
        }
        Some(at)
    }

    /// One load per 64-byte line of the first `len` bytes in `order` (core's strided and
    /// random reads), `passes` times: `None` unless the loop takes `len` (a non-zero multiple
    /// of the stride, a power of two from 64 to 4096; for the random order a power of two
    /// of at least 4 lines) inside the mapping.
    pub fn strided(&mut self, order: Order, len: u64, passes: u64) -> Option<()> {
        self.fits(len, 64).filter(|_| order.takes(len))?;
        for _ in 0..passes {
            // SAFETY: [va, va + len) lies in this mapping, owned by this value (test data
            // only), va line-aligned, and the loop takes `len` (`Order::takes`): every load is
            // of a line inside it; loads only; caller-saved registers only.
            unsafe {
                match order {
                    Order::Stride(stride) => arch::read_stride(self.va, len, stride),
                    Order::Random => arch::read_random(self.va, len / 64),
                }
            }
        }
        Some(())
    }

    /// STREAM's triad `a = b + 3 * c` over three windows of `len` bytes of this mapping, `a`
    /// at its start and `b`, `c` at the offsets `at` (core's `sweep::triad_partners`),
    /// `passes` times: `None` unless `len` is a non-zero multiple of 64 and the windows lie
    /// inside the mapping, line-aligned and apart.
    pub fn triad(&mut self, len: u64, at: (u64, u64), passes: u64) -> Option<()> {
        let (b, c) = at;
        let apart = len <= b && b.checked_add(len)? <= c && c.checked_add(len)? <= self.len;
        let aligned = b.is_multiple_of(64) && c.is_multiple_of(64);
        self.fits(len, 64).filter(|_| apart && aligned)?;
        for _ in 0..passes {
            // SAFETY: the three windows lie apart inside this mapping, owned by this value
            // (test data only), line-aligned, len a multiple of 64; caller-saved registers
            // only.
            unsafe { arch::triad(self.va, self.va + b, self.va + c, len) };
        }
        Some(())
    }

    fn fits(&self, len: u64, step: u64) -> Option<()> {
        (len != 0 && len <= self.len && len.is_multiple_of(step)).then_some(())
    }
}

impl Drop for Mapping {
    fn drop(&mut self) {
        let (start, len) = (self.va - self.head, self.len + self.head);
        // SAFETY: unmaps exactly the mapping this value owns; no borrow of it outlives self.
        unsafe { syscall(SYS_MUNMAP, [start, len, 0, 0, 0, 0]) };
    }
}

/// A dma-buf's descriptor for DMA_BUF_IOCTL_SYNC, copied out of its [`Mapping`] (which
/// owns and closes it) so that a sample can sync while the mapping is borrowed. Used after
/// the mapping is gone, the ioctl fails with EBADF (or reaches a later file, which refuses an
/// ioctl it does not know): nothing is read or written through it but the flags.
#[derive(Clone, Copy)]
pub struct SyncHandle(u64);

/// DMA_BUF_SYNC_READ, _WRITE, _START and _END (include/uapi/linux/dma-buf.h).
pub const DMA_BUF_SYNC_READ: u64 = 1;
/// See [`DMA_BUF_SYNC_READ`].
pub const DMA_BUF_SYNC_WRITE: u64 = 2;
/// See [`DMA_BUF_SYNC_READ`].
pub const DMA_BUF_SYNC_START: u64 = 0;
/// See [`DMA_BUF_SYNC_READ`].
pub const DMA_BUF_SYNC_END: u64 = 4;

impl SyncHandle {
    /// DMA_BUF_IOCTL_SYNC with `flags` (a direction and START or END); the errno on failure.
    pub fn sync(self, flags: u64) -> Result<(), i64> {
        let mut arg = flags;
        // SAFETY: DMA_BUF_IOCTL_SYNC reads one struct dma_buf_sync, a single u64.
        let r = unsafe {
            syscall(
                SYS_IOCTL,
                [
                    self.0,
                    DMA_BUF_IOCTL_SYNC,
                    &mut arg as *mut u64 as u64,
                    0,
                    0,
                    0,
                ],
            )
        };
        if r < 0 {
            return Err(-r);
        }
        Ok(())
    }
}

/// Creates a dumb buffer of at least `len` bytes on the DRM card at `path`: 1024 pixels of
/// 32 bits a row (4 KiB), as many rows as `len` needs (DRM_IOCTL_MODE_CREATE_DUMB). The card,
/// the buffer's handle and its usable length; on failure the errno and the step.
fn dumb_buffer(path: &str, len: u64) -> Result<(Fd, u32, u64), (i64, &'static str)> {
    let rows = u32::try_from(len.div_ceil(DRM_DUMB_ROW).max(1)).map_err(|_| (22, "size"))?;
    let card = Fd::open(path, O_RDWR).map_err(|e| (e, "open"))?;
    let mut create = DrmModeCreateDumb {
        height: rows,
        width: DRM_DUMB_WIDTH,
        bpp: DRM_DUMB_BPP,
        flags: 0,
        handle: 0,
        pitch: 0,
        size: 0,
    };
    // SAFETY: DRM_IOCTL_MODE_CREATE_DUMB reads and writes one struct drm_mode_create_dumb,
    // whose layout `DrmModeCreateDumb` is (checked above).
    unsafe { ioctl(&card, DRM_IOCTL_MODE_CREATE_DUMB, &mut create) }
        .map_err(|e| (e, "DRM_IOCTL_MODE_CREATE_DUMB"))?;
    let len = (u64::from(rows) * DRM_DUMB_ROW).min(create.size);
    Ok((card, create.handle, len))
}

/// The driver name of the DRM card at `path` (DRM_IOCTL_VERSION) into `buf`: the buffer and
/// the name's full length as the kernel says it (core's `drm_driver_name` checks both).
pub fn drm_version(path: &str, buf: &mut [u8; 32]) -> Result<u64, i64> {
    let card = Fd::open(path, O_RDWR)?;
    let mut v: DrmVersion = arch::drm_version(buf.as_mut_ptr() as u64, buf.len() as u64);
    // SAFETY: DRM_IOCTL_VERSION reads and writes one struct drm_version (`arch`'s layout)
    // and copies at most name_len bytes into `name`, which is `buf` (32 bytes); the date and
    // description lengths are 0, so nothing is copied to their null pointers.
    unsafe { ioctl(&card, DRM_IOCTL_VERSION, &mut v) }?;
    Ok(arch::drm_name_len(&v))
}

/// The last part of the target of the symbolic link at `path` (readlinkat(2)) into `buf`.
pub fn link_name<'b>(path: &str, buf: &'b mut [u8; 256]) -> Result<&'b str, i64> {
    let z = c_path(path)?;
    // SAFETY: readlinkat(2) reads the NUL-terminated path in `z` and writes at most 256
    // bytes into `buf`.
    let n = unsafe {
        syscall(
            SYS_READLINKAT,
            [
                AT_FDCWD as u64,
                z.as_ptr() as u64,
                buf.as_mut_ptr() as u64,
                256,
                0,
                0,
            ],
        )
    };
    let n = usize::try_from(n).map_err(|_| -n)?;
    let target = core::str::from_utf8(buf.get(..n).unwrap_or_default()).map_err(|_| 22)?;
    Ok(target.rsplit('/').next().unwrap_or(target))
}

/// CLOCK_MONOTONIC (include/uapi/linux/time.h).
const CLOCK_MONOTONIC: u64 = 1;

/// clock_gettime(2) of CLOCK_MONOTONIC, in nanoseconds; the errno on failure. The system
/// call itself (the twin has no vDSO): for measuring the counter's rate, not for samples.
pub fn monotonic_ns() -> Result<u64, i64> {
    // struct timespec: tv_sec and tv_nsec, two 64-bit words on arm64, two 32-bit ones for
    // 32-bit Arm's clock_gettime (`arch`).
    let mut ts = arch::Timespec::default();
    // SAFETY: clock_gettime(2) writes one struct timespec of `arch`'s layout, `ts`.
    let r = unsafe {
        syscall(
            SYS_CLOCK_GETTIME,
            [CLOCK_MONOTONIC, ts.as_mut_ptr() as u64, 0, 0, 0, 0],
        )
    };
    if r < 0 {
        return Err(-r);
    }
    let (sec, nsec) = arch::timespec_parts(ts);
    let [sec, nsec] = [sec, nsec].map(|v| u64::try_from(v).unwrap_or(0));
    Ok(sec.saturating_mul(1_000_000_000).saturating_add(nsec))
}
