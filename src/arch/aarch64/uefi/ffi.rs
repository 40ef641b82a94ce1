//! The UEFI tables and calls mairbench uses, declared as the UEFI Specification 2.10 lays
//! them out (`#[repr(C)]`; AAPCS64 on AArch64), and the trampoline every call goes through.

use core::ffi::c_void;
use mairbench_core::uefi as efi;

// Every call into the firmware goes through `mb_efi_call`, which puts back the firmware's x18
// (the AArch64 platform register, which UEFI firmware may rely on: `efi_pe_entry` saves it
// at entry into `mb_efi_x18`) right before the call. Stable Rust cannot keep the compiler off
// x18 (`+reserve-x18` is an unstable target feature), so Rust code between the calls may
// use it; the trampoline makes that invisible to the firmware. x0 = the function, x1..x5 its
// arguments. The trampoline itself is in boot/aarch64/vectors.S, in a vector's room (no text of its
// own there).
core::arch::global_asm!(
    ".section .bss.mb_efi_x18, \"aw\", %nobits",
    ".balign 8",
    ".global mb_efi_x18",
    "mb_efi_x18: .zero 8",
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
pub(super) unsafe fn efi_call(f: usize, args: [usize; 5]) -> usize {
    // SAFETY: the caller's promise; the trampoline changes x16-x18 and the call's
    // caller-saved registers only.
    unsafe { mb_efi_call(f, args[0], args[1], args[2], args[3], args[4]) }
}

pub(super) type Handle = *mut c_void;
pub(super) type Status = usize;

pub(super) const ERROR: Status = 1 << 63;
pub(super) const BUFFER_TOO_SMALL: Status = ERROR | 5;
pub(super) const INVALID_PARAMETER: Status = ERROR | 2;
pub(super) const LOAD_ERROR: Status = ERROR | 1;
pub(super) const ABORTED: Status = ERROR | 21;
/// "IBI SYST": `EFI_SYSTEM_TABLE_SIGNATURE`.
pub(super) const SYSTEM_TABLE_SIGNATURE: u64 = 0x5453_5953_2049_4249;
/// `EfiResetShutdown`.
pub(super) const RESET_SHUTDOWN: u32 = 2;

#[repr(C)]
pub(super) struct TableHeader {
    pub(super) signature: u64,
    pub(super) revision: u32,
    pub(super) header_size: u32,
    pub(super) crc32: u32,
    pub(super) reserved: u32,
}

#[repr(C)]
pub(super) struct SystemTable {
    pub(super) hdr: TableHeader,
    pub(super) firmware_vendor: *const u16,
    pub(super) firmware_revision: u32,
    pub(super) console_in_handle: Handle,
    pub(super) con_in: *mut c_void,
    pub(super) console_out_handle: Handle,
    pub(super) con_out: *mut TextOutput,
    pub(super) standard_error_handle: Handle,
    pub(super) std_err: *mut TextOutput,
    pub(super) runtime_services: *const RuntimeServices,
    pub(super) boot_services: *const BootServices,
    pub(super) number_of_table_entries: usize,
    pub(super) configuration_table: *const ConfigurationTable,
}

#[repr(C)]
pub(super) struct TextOutput {
    pub(super) reset: usize,
    pub(super) output_string: unsafe extern "C" fn(*mut TextOutput, *const u16) -> Status,
}

#[repr(C)]
pub(super) struct ConfigurationTable {
    pub(super) vendor_guid: efi::Guid,
    pub(super) vendor_table: *const c_void,
}

#[repr(C)]
pub(super) struct RuntimeServices {
    pub(super) hdr: TableHeader,
    /// GetTime .. GetNextHighMonotonicCount: not used.
    pub(super) unused: [usize; 10],
    pub(super) reset_system: unsafe extern "C" fn(u32, Status, usize, *const c_void) -> !,
}

#[repr(C)]
pub(super) struct BootServices {
    pub(super) hdr: TableHeader,
    /// RaiseTPL .. FreePages.
    pub(super) unused0: [usize; 4],
    pub(super) get_memory_map:
        unsafe extern "C" fn(*mut usize, *mut u8, *mut usize, *mut usize, *mut u32) -> Status,
    /// AllocatePool .. UninstallProtocolInterface.
    pub(super) unused1: [usize; 11],
    pub(super) handle_protocol:
        unsafe extern "C" fn(Handle, *const efi::Guid, *mut *mut c_void) -> Status,
    /// Reserved .. UnloadImage.
    pub(super) unused2: [usize; 9],
    pub(super) exit_boot_services: unsafe extern "C" fn(Handle, usize) -> Status,
    /// GetNextMonotonicCount, Stall.
    pub(super) unused3: [usize; 2],
    pub(super) set_watchdog_timer: unsafe extern "C" fn(usize, u64, usize, *const u16) -> Status,
    /// ConnectController, DisconnectController, OpenProtocol, CloseProtocol,
    /// OpenProtocolInformation, ProtocolsPerHandle, LocateHandleBuffer.
    pub(super) unused4: [usize; 7],
    pub(super) locate_protocol:
        unsafe extern "C" fn(*const efi::Guid, *mut c_void, *mut *mut c_void) -> Status,
}

/// `EFI_GRAPHICS_OUTPUT_PROTOCOL`: only its mode is read.
#[repr(C)]
pub(super) struct Gop {
    /// QueryMode, SetMode, Blt.
    pub(super) unused: [usize; 3],
    pub(super) mode: *const GopMode,
}

/// `EFI_GRAPHICS_OUTPUT_PROTOCOL_MODE`.
#[repr(C)]
pub(super) struct GopMode {
    pub(super) max_mode: u32,
    pub(super) mode: u32,
    pub(super) info: *const GopModeInfo,
    pub(super) size_of_info: usize,
    pub(super) frame_buffer_base: u64,
    pub(super) frame_buffer_size: usize,
}

/// `EFI_GRAPHICS_OUTPUT_MODE_INFORMATION`.
#[repr(C)]
pub(super) struct GopModeInfo {
    pub(super) version: u32,
    pub(super) width: u32,
    pub(super) height: u32,
    pub(super) pixel_format: u32,
    /// Red, green, blue, reserved.
    pub(super) masks: [u32; 4],
    pub(super) pixels_per_scan_line: u32,
}

#[repr(C)]
pub(super) struct LoadedImage {
    pub(super) revision: u32,
    pub(super) parent_handle: Handle,
    pub(super) system_table: *const SystemTable,
    pub(super) device_handle: Handle,
    pub(super) file_path: *const c_void,
    pub(super) reserved: *const c_void,
    pub(super) load_options_size: u32,
    pub(super) load_options: *const c_void,
    pub(super) image_base: *const c_void,
    pub(super) image_size: u64,
}
