//! Started as a UEFI application: `efi_pe_entry` (boot/aarch64/entry.S, the PE face's entry point)
//! relocates the image and calls [`efi_main`] on the firmware's stack, with its MMU and caches
//! on. It prints a line through ConOut, finds the device tree or the ACPI RSDP in the
//! configuration tables, takes the bootargs from the load options, disables the watchdog,
//! reads the memory map and exits boot services; then the normal boot path goes on at the
//! EL the firmware ran at, with the device tree in x0 (`rust_main` reads [`handoff`]).
//!
//! Only the few tables and functions used are declared, as the UEFI Specification 2.10 lays
//! them out (`#[repr(C)]`, the AArch64 calling convention is AAPCS64); the logic (GUIDs, load
//! options, the memory map) is `mairbench_core::uefi`, tested on the host.

mod conout;
mod ffi;

use super::global::Slot;
use crate::console;
use crate::say;
use conout::{con_out_on, fail};
use core::ffi::c_void;
use ffi::*;
use mairbench_core::fb::{self, Framebuffer};
use mairbench_core::uefi::{self as efi, MemoryMap, OptionsNote, Tables};

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
static HANDOFF: Slot<Handoff> = Slot::empty();

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

/// What `efi_pe_entry` does next: join the boot path (`join` = 1, `value` = the device
/// tree's address or 0) or return `value` (an EFI_STATUS) to the firmware.
#[repr(C)]
pub struct Next {
    join: u64,
    value: u64,
}

/// The UEFI application's main function, called by `efi_pe_entry` (boot/aarch64/entry.S) after
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
    // SAFETY: as above.
    let tables = unsafe { configuration_tables(st) };
    // SAFETY: the running boot services and this image's handle.
    let (bootargs_len, options_note) = unsafe { load_options(bs, image) };
    // SAFETY: the running boot services.
    let gop = unsafe { gop(bs) };
    // SAFETY: SetWatchdogTimer(0, ...) disables the watchdog (5 minutes in EDK2's boot
    // manager), which would otherwise reset the machine in the middle of a run.
    let watchdog_off = unsafe { efi_call(bs.set_watchdog_timer as usize, [0; 5]) } == 0;
    say!("mairbench: exiting boot services");
    // SAFETY: the system table, its running boot services and this image's handle.
    let Some((map_len, stride, exit_tries)) = (unsafe { exit_boot_services(st, bs, image) }) else {
        // After a failed ExitBootServices only GetMemoryMap may be called, not ConOut:
        // nothing can be said; hand the error back.
        return Next {
            join: 0,
            value: ABORTED as u64,
        };
    };
    HANDOFF.set(Some(Handoff {
        tables,
        map_len,
        stride,
        bootargs_len,
        options_note,
        exit_tries,
        watchdog_off,
        gop,
    }));
    Next {
        join: 1,
        value: tables.dtb.unwrap_or(0),
    }
}

/// The device tree or ACPI RSDP of the configuration tables; without either, a failure.
///
/// # Safety
/// `st` is the valid system table and boot services run.
unsafe fn configuration_tables(st: *const SystemTable) -> Tables {
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
            // SAFETY: the caller's promise.
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

    tables
}

/// The bootargs: the load options of this image (the shell's command line, a boot option's
/// optional data, U-Boot's bootargs), copied into [`BOOTARGS`]; their length and what was
/// odd about them.
///
/// # Safety
/// `bs` are the running boot services and `image` this image's handle.
unsafe fn load_options(bs: &BootServices, image: Handle) -> (usize, Option<OptionsNote>) {
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

    (bootargs_len, options_note)
}

/// The framebuffer, read now: the protocol is gone after ExitBootServices, the memory stays
/// (a GOP framebuffer is not boot-services memory).
///
/// # Safety
/// `bs` are the running boot services.
unsafe fn gop(bs: &BootServices) -> Option<Result<Framebuffer, fb::Problem<'static>>> {
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
    (status == 0 && !gop.is_null())
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
        })
}

/// Reads the memory map into [`MAP`] and exits boot services: the map's length, its stride
/// and the ExitBootServices calls it took; `None` when ExitBootServices failed (then nothing
/// may be said). The map is read again when ExitBootServices says its key is stale
/// (something allocated in between); nothing may be printed between the two calls.
///
/// # Safety
/// `st` is the valid system table, `bs` its running boot services, `image` this image.
unsafe fn exit_boot_services(
    st: *const SystemTable,
    bs: &BootServices,
    image: Handle,
) -> Option<(usize, usize, u32)> {
    // SAFETY: the only reference to MAP; the boot CPU alone runs.
    let map = unsafe { &mut *core::ptr::addr_of_mut!(MAP) };
    let mut tries = 0u32;
    loop {
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
                         firmware's buffer of {MAP_BYTES} bytes (MAP_BYTES in src/arch/aarch64/uefi/mod.rs)"
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
            0 => return Some((size, stride, tries)),
            INVALID_PARAMETER if tries < 8 => continue,
            _ => return None,
        }
    }
}
