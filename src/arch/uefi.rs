//! Started as a UEFI application: `efi_pe_entry` (boot/entry.S, the PE face's entry point)
//! relocates the image and calls [`efi_main`] on the firmware's stack, with its MMU and caches
//! on. It prints a line through ConOut, finds the device tree or the ACPI RSDP in the
//! configuration tables, takes the bootargs from the load options, disables the watchdog,
//! reads the memory map and exits boot services; then the normal boot path goes on at the
//! EL the firmware ran at, with the device tree in x0 (`rust_main` reads [`handoff`]).
//!
//! Only the few tables and functions used are declared, as the UEFI Specification 2.10 lays
//! them out (`#[repr(C)]`, the AArch64 calling convention is AAPCS64); the logic (GUIDs, load
//! options, the memory map) is `mairbench_core::uefi`, tested on the host.

use super::global::Global;
use crate::console::{self, Console};
use crate::say;
use core::ffi::c_void;
use mairbench_core::fb::{self, Framebuffer};
use mairbench_core::record::Record;
use mairbench_core::schema;
use mairbench_core::uefi::{self as efi, MemoryMap, OptionsNote, Tables};

// Every call into the firmware goes through `mb_efi_call`, which puts back the firmware's x18
// (the AArch64 platform register, which UEFI firmware may rely on: `efi_pe_entry` saves it
// at entry into `mb_efi_x18`) right before the call. Stable Rust cannot keep the compiler off
// x18 (`+reserve-x18` is an unstable target feature), so Rust code between the calls may
// use it; the trampoline makes that invisible to the firmware. x0 = the function, x1..x5 its
// arguments.
core::arch::global_asm!(
    ".section .bss.mb_efi_x18, \"aw\", %nobits",
    ".balign 8",
    ".global mb_efi_x18",
    "mb_efi_x18: .zero 8",
    ".section .text.mb_efi_call, \"ax\"",
    ".global mb_efi_call",
    ".balign 4",
    "mb_efi_call:",
    "    stp     x29, x30, [sp, #-16]!",
    "    mov     x29, sp",
    "    mov     x16, x0",
    "    mov     x0, x1",
    "    mov     x1, x2",
    "    mov     x2, x3",
    "    mov     x3, x4",
    "    mov     x4, x5",
    "    adrp    x17, mb_efi_x18",
    "    ldr     x18, [x17, :lo12:mb_efi_x18]",
    "    blr     x16",
    "    ldp     x29, x30, [sp], #16",
    "    ret",
);

extern "C" {
    fn mb_efi_call(f: usize, a0: usize, a1: usize, a2: usize, a3: usize, a4: usize) -> usize;
}

/// Calls the firmware's function `f` (its address) with up to five integer or pointer
/// arguments, the firmware's x18 restored first.
///
/// # Safety
/// `f` must be a UEFI function valid now that takes these arguments (unused ones are
/// ignored) and follows AAPCS64, as UEFI functions on AArch64 do.
unsafe fn efi_call(f: usize, args: [usize; 5]) -> usize {
    // SAFETY: the caller's promise; the trampoline changes x16-x18 and the call's
    // caller-saved registers only.
    unsafe { mb_efi_call(f, args[0], args[1], args[2], args[3], args[4]) }
}

type Handle = *mut c_void;
type Status = usize;

const ERROR: Status = 1 << 63;
const BUFFER_TOO_SMALL: Status = ERROR | 5;
const INVALID_PARAMETER: Status = ERROR | 2;
const LOAD_ERROR: Status = ERROR | 1;
const ABORTED: Status = ERROR | 21;
/// "IBI SYST": `EFI_SYSTEM_TABLE_SIGNATURE`.
const SYSTEM_TABLE_SIGNATURE: u64 = 0x5453_5953_2049_4249;
/// `EfiResetShutdown`.
const RESET_SHUTDOWN: u32 = 2;

#[repr(C)]
struct TableHeader {
    signature: u64,
    revision: u32,
    header_size: u32,
    crc32: u32,
    reserved: u32,
}

#[repr(C)]
struct SystemTable {
    hdr: TableHeader,
    firmware_vendor: *const u16,
    firmware_revision: u32,
    console_in_handle: Handle,
    con_in: *mut c_void,
    console_out_handle: Handle,
    con_out: *mut TextOutput,
    standard_error_handle: Handle,
    std_err: *mut TextOutput,
    runtime_services: *const RuntimeServices,
    boot_services: *const BootServices,
    number_of_table_entries: usize,
    configuration_table: *const ConfigurationTable,
}

#[repr(C)]
struct TextOutput {
    reset: usize,
    output_string: unsafe extern "C" fn(*mut TextOutput, *const u16) -> Status,
}

#[repr(C)]
struct ConfigurationTable {
    vendor_guid: efi::Guid,
    vendor_table: *const c_void,
}

#[repr(C)]
struct RuntimeServices {
    hdr: TableHeader,
    /// GetTime .. GetNextHighMonotonicCount: not used.
    unused: [usize; 10],
    reset_system: unsafe extern "C" fn(u32, Status, usize, *const c_void) -> !,
}

#[repr(C)]
struct BootServices {
    hdr: TableHeader,
    /// RaiseTPL .. FreePages.
    unused0: [usize; 4],
    get_memory_map:
        unsafe extern "C" fn(*mut usize, *mut u8, *mut usize, *mut usize, *mut u32) -> Status,
    /// AllocatePool .. UninstallProtocolInterface.
    unused1: [usize; 11],
    handle_protocol: unsafe extern "C" fn(Handle, *const efi::Guid, *mut *mut c_void) -> Status,
    /// Reserved .. UnloadImage.
    unused2: [usize; 9],
    exit_boot_services: unsafe extern "C" fn(Handle, usize) -> Status,
    /// GetNextMonotonicCount, Stall.
    unused3: [usize; 2],
    set_watchdog_timer: unsafe extern "C" fn(usize, u64, usize, *const u16) -> Status,
    /// ConnectController, DisconnectController, OpenProtocol, CloseProtocol,
    /// OpenProtocolInformation, ProtocolsPerHandle, LocateHandleBuffer.
    unused4: [usize; 7],
    locate_protocol:
        unsafe extern "C" fn(*const efi::Guid, *mut c_void, *mut *mut c_void) -> Status,
}

/// `EFI_GRAPHICS_OUTPUT_PROTOCOL`: only its mode is read.
#[repr(C)]
struct Gop {
    /// QueryMode, SetMode, Blt.
    unused: [usize; 3],
    mode: *const GopMode,
}

/// `EFI_GRAPHICS_OUTPUT_PROTOCOL_MODE`.
#[repr(C)]
struct GopMode {
    max_mode: u32,
    mode: u32,
    info: *const GopModeInfo,
    size_of_info: usize,
    frame_buffer_base: u64,
    frame_buffer_size: usize,
}

/// `EFI_GRAPHICS_OUTPUT_MODE_INFORMATION`.
#[repr(C)]
struct GopModeInfo {
    version: u32,
    width: u32,
    height: u32,
    pixel_format: u32,
    /// Red, green, blue, reserved.
    masks: [u32; 4],
    pixels_per_scan_line: u32,
}

#[repr(C)]
struct LoadedImage {
    revision: u32,
    parent_handle: Handle,
    system_table: *const SystemTable,
    device_handle: Handle,
    file_path: *const c_void,
    reserved: *const c_void,
    load_options_size: u32,
    load_options: *const c_void,
    image_base: *const c_void,
    image_size: u64,
}

/// What the UEFI stage hands to the normal boot path (in the BSS, which the join keeps).
#[derive(Clone, Copy, Debug)]
pub struct Handoff {
    /// What the configuration tables offered.
    pub tables: Tables,
    /// Bytes of the memory map in [`MAP`] as the last `GetMemoryMap()` wrote it.
    map_len: usize,
    /// Its descriptor size.
    stride: usize,
    /// Bytes of bootargs in [`BOOTARGS`].
    bootargs_len: usize,
    /// What was odd about the load options.
    pub options_note: Option<OptionsNote>,
    /// `ExitBootServices()` calls it took (more than 1: the map key had changed).
    pub exit_tries: u32,
    /// `SetWatchdogTimer(0, ...)` succeeded.
    pub watchdog_off: bool,
    /// The Graphics Output Protocol's framebuffer (`None`: no GOP), or why it is unusable.
    pub gop: Option<Result<Framebuffer, fb::Problem<'static>>>,
}

impl Handoff {
    /// The bootargs from the load options.
    pub fn bootargs(&self) -> &'static str {
        // SAFETY: BOOTARGS is written only by `efi_main`, before boot services exit, and
        // read only afterwards on the boot CPU.
        let all = unsafe { &*core::ptr::addr_of!(BOOTARGS) };
        let bytes = all.get(..self.bootargs_len).unwrap_or_default();
        core::str::from_utf8(bytes).unwrap_or("")
    }

    /// The memory map the firmware left at ExitBootServices.
    pub fn memory_map(&self) -> MemoryMap {
        // SAFETY: as in `bootargs`: MAP is final once boot services have exited.
        let raw = unsafe { &*core::ptr::addr_of!(MAP) };
        // SAFETY: a `[u64]` array viewed as bytes: same memory, alignment 1.
        let bytes = unsafe {
            core::slice::from_raw_parts(raw.as_ptr().cast::<u8>(), core::mem::size_of_val(raw))
        };
        MemoryMap::read(bytes.get(..self.map_len).unwrap_or_default(), self.stride)
    }
}

/// Set by [`efi_main`] just before it returns to the boot path; `None` when the image was not
/// started as a UEFI application (the BSS is cleared on every other path).
static HANDOFF: Global<Option<Handoff>> = Global::new(None);

/// The memory map's buffer, in bytes: 64 KiB, some 1,360 descriptors of 48 bytes (EDK2 on
/// QEMU virt writes about 40; a large server's map a few hundred). GetMemoryMap's answer
/// says how much a map needs; one larger than this is named, with both sizes.
const MAP_BYTES: usize = 64 << 10;

/// The memory map's buffer. A static (in the BSS, no image bytes), so that reading the map
/// allocates nothing.
static mut MAP: [u64; MAP_BYTES / 8] = [0; MAP_BYTES / 8];
/// The bootargs, ASCII.
static mut BOOTARGS: [u8; 1024] = [0; 1024];

/// What the UEFI stage left, when the image was started as a UEFI application.
pub fn handoff() -> Option<Handoff> {
    HANDOFF.get()
}

/// Physical memory as the ACPI reader sees it after ExitBootServices: the write-back RAM of
/// the UEFI memory map (where firmware puts its tables), read with the MMU off.
pub struct UefiRam;

impl mairbench_core::acpi::Phys for UefiRam {
    fn read(&self, pa: u64, len: usize) -> Option<&[u8]> {
        use aarch64_cpu::registers::{Readable, SCTLR_EL1};
        let end = pa.checked_add(u64::try_from(len).ok()?)?;
        let map = handoff()?.memory_map();
        let inside = map
            .ram()
            .iter()
            .any(|r| r.base <= pa && r.base.checked_add(r.size).is_some_and(|e| end <= e));
        if !inside || pa == 0 || SCTLR_EL1.is_set(SCTLR_EL1::M) {
            return None;
        }
        // SAFETY: the MMU is off (checked), so `pa` is physical; `[pa, pa+len)` lies in RAM the
        // UEFI map lists as write-back memory (no device registers); the ACPI tables in it are
        // reserved (the map's non-free memory is never used for the buffer, tables or stacks)
        // and nothing writes them.
        Some(unsafe { core::slice::from_raw_parts(pa as usize as *const u8, len) })
    }
}

/// The system table's ConOut (as an address: a `Global` holds `Send` values), valid until
/// ExitBootServices; 0: none.
static CON_OUT: Global<usize> = Global::new(0);

/// Makes ConOut a console ([`console::set_early`]) until ExitBootServices.
///
/// # Safety
/// `st` is the valid system table and boot services have not exited.
unsafe fn con_out_on(st: *const SystemTable) {
    // SAFETY: the caller's promise.
    CON_OUT.set(unsafe { (*st).con_out } as usize);
    console::set_early(Some(con_out));
}

/// Writes `s` to ConOut: UCS-2 in chunks, `\n` as CR LF.
fn con_out(s: &str) {
    let out = CON_OUT.get() as *mut TextOutput;
    if out.is_null() {
        return;
    }
    let mut buf = [0u16; 130];
    let mut n = 0;
    let flush = |buf: &mut [u16; 130], n: &mut usize| {
        buf[*n] = 0;
        // SAFETY: `out` is the system table's ConOut, valid until ExitBootServices (the
        // console stops writing here before it: `efi_main`); the string is NUL-terminated.
        unsafe {
            efi_call(
                (*out).output_string as usize,
                [out as usize, buf.as_ptr() as usize, 0, 0, 0],
            )
        };
        *n = 0;
    };
    for c in s.chars() {
        if c == '\n' {
            buf[n] = u16::from(b'\r');
            n += 1;
        }
        buf[n] = if (c as u32) < 0x7f {
            c as u16
        } else {
            u16::from(b'?')
        };
        n += 1;
        if n >= 127 {
            flush(&mut buf, &mut n);
        }
    }
    if n > 0 {
        flush(&mut buf, &mut n);
    }
}

/// What `efi_pe_entry` does next: join the boot path (`join` = 1, `value` = the device
/// tree's address or 0) or return `value` (an EFI_STATUS) to the firmware.
#[repr(C)]
pub struct Next {
    join: u64,
    value: u64,
}

/// Before ExitBootServices, a failure is reported through ConOut as a failed check named
/// `name` with an `end` record (the same records as any run's), then the machine is shut
/// down through ResetSystem.
///
/// # Safety
/// `st` is the valid system table and boot services have not exited.
unsafe fn fail(st: *const SystemTable, name: &str, detail: core::fmt::Arguments<'_>) -> ! {
    // SAFETY: the caller's promise.
    unsafe { con_out_on(st) };
    let mut out = Console;
    say!("FAIL {name}: {detail}");
    let _ = Record::new(&mut out, &schema::CHECK)
        .str("name", name)
        .bool("ok", false)
        .fmt("detail", detail)
        .finish();
    let _ = Record::new(&mut out, &schema::END)
        .str("status", "fail")
        .u64("checks", 1)
        .u64("failed", 1)
        .u64("warnings", 0)
        .fmt("reason", detail)
        .u64("run_us", 0)
        .strs("failed_checks", [name])
        .finish();
    say!("mairbench: status fail (1 checks, 1 failed: {name}); shutting down through ResetSystem");
    // SAFETY: runtime services are valid while boot services run (and after); ResetSystem
    // does not return.
    unsafe {
        efi_call(
            (*(*st).runtime_services).reset_system as usize,
            [RESET_SHUTDOWN as usize, ABORTED, 0, 0, 0],
        )
    };
    // ResetSystem does not return; should it, nothing is left to do.
    loop {
        core::hint::spin_loop();
    }
}

/// The UEFI application's main function, called by `efi_pe_entry` (boot/entry.S) after
/// relocation, on the firmware's stack with its MMU and caches on.
///
/// # Safety
/// Called once, by the firmware's image loader through `efi_pe_entry`, with its handle and
/// system table.
#[no_mangle]
unsafe extern "C" fn efi_main(image: Handle, st: *const SystemTable) -> Next {
    // SAFETY: the loader passes its system table; its signature is checked before anything
    // else in it is used.
    if st.is_null() || unsafe { (*st).hdr.signature } != SYSTEM_TABLE_SIGNATURE {
        return Next {
            join: 0,
            value: LOAD_ERROR as u64,
        };
    }
    // SAFETY: a valid system table (signature checked); boot services run.
    let bs = unsafe { &*(*st).boot_services };
    // SAFETY: as above.
    unsafe { con_out_on(st) };
    say!(
        "\nmairbench {}: started as a UEFI application; reading the configuration tables",
        env!("CARGO_PKG_VERSION")
    );

    // SAFETY: the system table's array of `number_of_table_entries` entries.
    let config = unsafe {
        core::slice::from_raw_parts((*st).configuration_table, (*st).number_of_table_entries)
    };
    let tables = Tables::find(
        config
            .iter()
            .map(|t| (t.vendor_guid, t.vendor_table as u64)),
    );
    match (tables.dtb, tables.rsdp) {
        (Some(dtb), _) => {
            say!("mairbench: device tree at {dtb:#x} (EFI_DTB_TABLE)");
        }
        (None, Some(rsdp)) => {
            // Read after ExitBootServices (`arch::rust_main`): the tables stay where they are.
            say!("mairbench: ACPI RSDP at {rsdp:#x}, no device tree");
        }
        (None, None) => {
            // SAFETY: boot services run.
            unsafe {
                fail(
                    st,
                    "uefi-tables",
                    format_args!(
                        "the firmware installs neither a device tree (EFI_DTB_TABLE) nor an \
                         ACPI 2.0 RSDP: nothing describes the machine"
                    ),
                )
            }
        }
    }

    // The bootargs: the load options of this image (the shell's command line, a boot
    // option's optional data, U-Boot's bootargs).
    let mut loaded: *mut c_void = core::ptr::null_mut();
    // SAFETY: HandleProtocol with this image's handle and a GUID in our memory.
    let status = unsafe {
        efi_call(
            bs.handle_protocol as usize,
            [
                image as usize,
                &efi::LOADED_IMAGE_PROTOCOL as *const efi::Guid as usize,
                &mut loaded as *mut *mut c_void as usize,
                0,
                0,
            ],
        )
    };
    let (mut bootargs_len, mut options_note) = (0, None);
    if status == 0 && !loaded.is_null() {
        // SAFETY: the firmware's EFI_LOADED_IMAGE_PROTOCOL for this image.
        let li = unsafe { &*loaded.cast::<LoadedImage>() };
        if !li.load_options.is_null() && li.load_options_size > 0 {
            // SAFETY: the firmware says `load_options_size` bytes are there.
            let bytes = unsafe {
                core::slice::from_raw_parts(
                    li.load_options.cast::<u8>(),
                    li.load_options_size as usize,
                )
            };
            // SAFETY: the only reference to BOOTARGS; the boot CPU alone runs.
            let buf = unsafe { &mut *core::ptr::addr_of_mut!(BOOTARGS) };
            (bootargs_len, options_note) = efi::load_options(bytes, buf);
        }
    }

    // The framebuffer, read now: the protocol is gone after ExitBootServices, the memory
    // stays (a GOP framebuffer is not boot-services memory).
    let mut gop: *mut c_void = core::ptr::null_mut();
    // SAFETY: LocateProtocol with a GUID in our memory, no registration key.
    let status = unsafe {
        efi_call(
            bs.locate_protocol as usize,
            [
                &efi::GRAPHICS_OUTPUT_PROTOCOL as *const efi::Guid as usize,
                0,
                &mut gop as *mut *mut c_void as usize,
                0,
                0,
            ],
        )
    };
    // SAFETY: on success the firmware's GOP instance, whose mode and mode information it
    // keeps valid while boot services run; null pointers are refused.
    let gop = (status == 0 && !gop.is_null())
        .then(|| unsafe { gop.cast::<Gop>().as_ref()?.mode.as_ref() })
        .flatten()
        // SAFETY: as above.
        .and_then(|mode| Some((mode, unsafe { mode.info.as_ref()? })))
        .map(|(mode, info)| {
            let [r, g, b, _] = info.masks;
            Framebuffer::from_gop(
                mode.frame_buffer_base,
                mode.frame_buffer_size as u64,
                (info.width, info.height),
                info.pixels_per_scan_line,
                info.pixel_format,
                [r, g, b],
            )
        });

    // SAFETY: SetWatchdogTimer(0, ...) disables the watchdog (5 minutes in EDK2's boot
    // manager), which would otherwise reset the machine in the middle of a run.
    let watchdog_off = unsafe { efi_call(bs.set_watchdog_timer as usize, [0; 5]) } == 0;
    say!("mairbench: exiting boot services");

    // The memory map, read again when ExitBootServices says the key is stale (something
    // allocated in between); nothing may be printed between the two calls.
    // SAFETY: the only reference to MAP; the boot CPU alone runs.
    let map = unsafe { &mut *core::ptr::addr_of_mut!(MAP) };
    let mut tries = 0u32;
    let (map_len, stride) = loop {
        let mut size = core::mem::size_of_val(map);
        let (mut key, mut stride, mut version) = (0usize, 0usize, 0u32);
        // SAFETY: GetMemoryMap into our static buffer of `size` bytes.
        let status = unsafe {
            efi_call(
                bs.get_memory_map as usize,
                [
                    &mut size as *mut usize as usize,
                    map.as_mut_ptr() as usize,
                    &mut key as *mut usize as usize,
                    &mut stride as *mut usize as usize,
                    &mut version as *mut u32 as usize,
                ],
            )
        };
        if status == BUFFER_TOO_SMALL {
            // GetMemoryMap answered with the size it needs.
            // SAFETY: boot services run (ExitBootServices has not succeeded).
            unsafe {
                fail(
                    st,
                    "uefi-memory-map",
                    format_args!(
                        "GetMemoryMap needs {size} bytes for the memory map, more than the \
                         firmware's buffer of {MAP_BYTES} bytes (MAP_BYTES in src/arch/uefi.rs)"
                    ),
                )
            }
        }
        if status != 0 {
            // SAFETY: boot services run (ExitBootServices has not succeeded).
            unsafe {
                fail(
                    st,
                    "uefi-memory-map",
                    format_args!("GetMemoryMap failed (status {status:#x})"),
                )
            }
        }
        tries += 1;
        // ConOut is gone once ExitBootServices succeeds (on a retry, `fail` makes it a
        // console again).
        console::set_early(None);
        // SAFETY: ExitBootServices with the key of the map just read.
        match unsafe {
            efi_call(
                bs.exit_boot_services as usize,
                [image as usize, key, 0, 0, 0],
            )
        } {
            0 => break (size, stride),
            INVALID_PARAMETER if tries < 8 => continue,
            _ => {
                // After a failed ExitBootServices only GetMemoryMap may be called, not
                // ConOut: nothing can be said; hand the error back.
                return Next {
                    join: 0,
                    value: ABORTED as u64,
                };
            }
        }
    };

    HANDOFF.set(Some(Handoff {
        tables,
        map_len,
        stride,
        bootargs_len,
        options_note,
        exit_tries: tries,
        watchdog_off,
        gop,
    }));
    Next {
        join: 1,
        value: tables.dtb.unwrap_or(0),
    }
}
