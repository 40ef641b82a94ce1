//! Everything specific to AArch64: boot assembly, system registers, exceptions, MMIO, exit.
//!
//! This file holds the Rust entry points `boot/aarch64/entry.S` calls, [`el3_setup`] at EL3 and then
//! [`rust_main`] at EL1, which finds the device tree, discovers the platform, starts the
//! console and hands over to the run (`crate::main`). The modules below name what they use of
//! each other directly and nothing of this file, so that the arrows between the files run one
//! way (the layering is in docs/extending.md): this file is the top of `arch`, the one that
//! calls up into the run.

pub mod barrier;
#[path = "../shared/boot.rs"]
pub mod boot;
#[path = "../shared/buffer.rs"]
pub mod buffer;
mod bulk;
pub mod cache;
#[path = "../shared/catch.rs"]
mod catch;
pub mod cpu;
#[path = "../shared/dtb.rs"]
pub mod dtb;
pub mod exceptions;
#[path = "../shared/exit.rs"]
pub mod exit;
#[path = "../shared/fb.rs"]
pub mod fb;
#[path = "../shared/global.rs"]
pub mod global;
#[path = "../shared/image.rs"]
pub mod image;
pub mod kernels;
#[path = "../shared/mmio.rs"]
pub mod mmio;
#[path = "../shared/mmu.rs"]
pub mod mmu;
pub mod pmu;
pub mod probes;
#[path = "../shared/semihosting.rs"]
pub mod semihosting;
pub mod smp;
pub mod sysreg;
#[path = "../shared/timer.rs"]
pub mod timer;
mod translation;
pub mod uefi;

use boot::Boot;
use core::arch::global_asm;
use global::Global;
use mairbench_core::fb::Framebuffer;

/// The architecture this image runs on: its `start` record's `arch`.
pub const ARCH: mairbench_core::arch::Arch = mairbench_core::arch::Arch::Aarch64;

/// The memory types this image maps: the memory-type table's rows.
pub use mairbench_core::memtype::MEMTYPES;

/// The kernels this image measures: the kernel table.
pub use mairbench_core::kernel::KERNELS;

// Constants the assembly shares with Rust, defined once here.
global_asm!(
    ".equ SECONDARY_BLOCK, {block}",
    ".equ MAX_CPUS, {cpus}",
    ".equ SCTLR_EL1_MMU_ON, {mmu_on}",
    ".equ HANDOFF_MAIR, {mair}",
    ".equ HANDOFF_TCR, {tcr}",
    ".equ HANDOFF_TTBR0, {ttbr0}",
    ".equ HANDOFF_BLOCKS, {blocks}",
    block = const smp::BLOCK,
    cpus = const mairbench_core::platform::MAX_CPUS,
    mmu_on = const mmu::SCTLR_MMU_ON,
    mair = const core::mem::offset_of!(smp::start::Handoff, mair),
    tcr = const core::mem::offset_of!(smp::start::Handoff, tcr),
    ttbr0 = const core::mem::offset_of!(smp::start::Handoff, ttbr0),
    blocks = const core::mem::offset_of!(smp::start::Handoff, blocks),
);
global_asm!(include_str!("../../../boot/aarch64/entry.S"));
global_asm!(include_str!("../../../boot/aarch64/vectors.S"));
global_asm!(include_str!("mem.S"));

/// The Rust entry point, called by `boot/aarch64/entry.S`: finds the device tree, discovers the
/// platform and the console's device, then runs the firmware.
#[no_mangle]
extern "C" fn rust_main(
    dtb_arg: usize,
    entry_el: u64,
    image_base: usize,
    bad_relocs: u64,
    entry_sctlr: u64,
    setway_ops: u64,
) -> ! {
    let start_ticks = cpu::ticks();
    exceptions::set_reporter(crate::failure::report_exception);
    let uefi = uefi::handoff();
    // A UEFI application's device tree is the configuration table's (in x0) or none: QEMU
    // virt's blob at the base of RAM may be stale memory the firmware has reused.
    let dtb = match uefi {
        Some(_) => dtb::find_dtb_at(dtb_arg),
        None => dtb::find_dtb(dtb_arg),
    };
    // A device tree, else (a UEFI application on an ACPI-only machine) the ACPI tables.
    let mut platform = match (dtb, uefi.and_then(|h| h.tables.rsdp)) {
        (None, Some(rsdp)) => mairbench_core::acpi::discover(&uefi::UefiRam, rsdp),
        _ => mairbench_core::platform::discover(dtb.map(|(_, blob)| blob)),
    };
    // Started as a UEFI application: RAM and what in it is not free come from the firmware's
    // memory map (runtime services, ACPI, reserved memory are never used).
    if let Some(handoff) = uefi {
        handoff.memory_map().apply_to(&mut platform);
    }
    // QEMU virt's PL011 is written to only where the machine is known to be QEMU: its device
    // tree (also when found at QEMU virt's RAM base), or, without any device tree, a
    // semihosting host answering. Elsewhere (a real board without a device tree, or with an
    // unsupported console) the run stays silent rather than writing to a guess.
    let qemu_without_dtb = || !platform.dtb_ok && semihosting::available();
    let console =
        (platform.console_from_dtb || platform.emulated || qemu_without_dtb()).then(|| {
            // SAFETY: the console just discovered: the UART that `/chosen/stdout-path` of this
            // boot's device tree names (its translated `reg`, of the kind whose register layout
            // the driver uses), or that the ACPI SPCR or DBG2 gives (its system-memory address, of
            // the kind its interface type selects), or QEMU virt's PL011 where the machine is
            // QEMU's. With the MMU off it is Device memory; memory set-up maps its page 1:1 as
            // Device-nGnRnE. The console is the one driver of it.
            unsafe { mmio::Device::at(platform.console.base) }
        });
    // The framebuffer: GOP's, else the device tree's simple-framebuffer; drawn on only when
    // it keeps clear of the image and the device tree.
    let image = image::image_layout();
    let fb = uefi
        .and_then(|h| h.gop)
        .or_else(|| {
            let (_, blob) = dtb?;
            Framebuffer::from_dt(mairbench_core::fdt::Fdt::new(blob).ok()?)
        })
        .map(|found| {
            let fb = found?;
            let blob = dtb.map_or((0, 0), |(addr, blob)| (addr as u64, blob.len() as u64));
            if fb.overlaps(image.start, image.end - image.start) || fb.overlaps(blob.0, blob.1) {
                return Err(mairbench_core::fb::Problem::Overlap);
            }
            // SAFETY: a framebuffer the firmware's GOP or the boot's device tree describes,
            // its rows inside its memory (`checked`), clear of the image and the device tree;
            // the MMU is off now, and memory set-up maps it 1:1 (Normal non-cacheable) and
            // keeps the test buffer off it. Only the console draws on it.
            Ok((fb, unsafe { fb::Canvas::new(&fb) }))
        });
    let boot = Boot {
        console,
        dtb_arg,
        entry_el,
        image_base,
        bad_relocs,
        entry_sctlr,
        setway_ops,
        cntfrq_programmed: CNTFRQ_PROGRAMMED.get(),
        start_ticks,
        uefi,
        fb,
    };
    crate::main(boot, dtb, platform)
}

/// What `el3_setup` wrote to CNTFRQ_EL0 (`None`: nothing).
static CNTFRQ_PROGRAMMED: Global<Option<u64>> = Global::new(None);

/// Called by `boot/aarch64/entry.S` at EL3, before the drop to EL1, with the MMU and caches off,
/// relocated, on the main stack: mairbench is the firmware, so it programs CNTFRQ_EL0 (writable
/// only at EL3) from the device tree's `/timer` `clock-frequency` when the register reads 0.
/// No EL1 vectors exist yet: any exception abandons this function (entry.S's EL3 vectors
/// return to the entry code), so a guessed device-tree address that is not memory only means
/// that nothing is programmed.
#[no_mangle]
extern "C" fn el3_setup(dtb_arg: usize) {
    use aarch64_cpu::registers::{Readable, CNTFRQ_EL0};
    use mairbench_core::platform::{
        cntfrq_to_program, dtb_size, is_qemu_virt_dtb, timer_frequency,
    };
    let current = CNTFRQ_EL0.get();
    if current != 0 {
        return;
    }
    // The boot loader's tree, else QEMU virt's own only, at the base of its RAM.
    let hz = [(dtb_arg, false), (dtb::QEMU_VIRT_DTB, true)]
        .into_iter()
        .find_map(|(addr, qemu_only)| {
            if addr == 0 || !addr.is_multiple_of(8) {
                return None;
            }
            // SAFETY: the MMU is off, so the address is physical; the boot loader hands the
            // device tree over for reading, and at QEMU virt's RAM base a load either reads
            // memory or faults, which abandons this function (see above). Nothing writes it.
            let header = unsafe { core::slice::from_raw_parts(addr as *const u8, 40) };
            let size = dtb_size(header)?;
            // SAFETY: as above; the header says the blob is `size` bytes long.
            let blob = unsafe { core::slice::from_raw_parts(addr as *const u8, size) };
            if qemu_only && !is_qemu_virt_dtb(blob) {
                return None;
            }
            timer_frequency(blob)
        });
    if let Some(hz) = cntfrq_to_program(current, hz) {
        // SAFETY: at EL3 (entry.S calls this only there) CNTFRQ_EL0 is writable; it only
        // tells software the counter's frequency.
        unsafe { core::arch::asm!("msr cntfrq_el0, {}", "isb", in(reg) hz, options(nostack)) };
        CNTFRQ_PROGRAMMED.set(Some(hz));
    }
}

/// None: every AArch64 core has the generic timer, the run's clock.
pub fn start_clock(_dtb: Option<&[u8]>) -> Option<(&'static str, u64, u64)> {
    None
}

/// The device pages the firmware's identity map holds for this architecture besides the
/// console: none. Armv8-A's maintenance by VA to the point of coherency reaches every cache
/// before it, and Linux's arm64 code has no outer-cache interface (the `outer_cache`
/// operations of arch/arm/include/asm/outercache.h exist for 32-bit Arm only), so there is no
/// controller to map (the 32-bit image maps an L2C-310 and, without the generic timer, a SoC
/// timer).
pub fn devices(_dtb: Option<&[u8]>) -> [Option<(&'static str, u64)>; 2] {
    [None, None]
}

/// Unmasks SError at EL1 (PSTATE.A): once the vectors, the reporter and the console are in
/// place, an external abort from a bus or a TZASC is taken and reported in words instead of
/// staying pending.
pub fn unmask_serror() {
    use aarch64_cpu::registers::{ReadWriteable, DAIF};
    DAIF.modify(DAIF::A::Unmasked);
}
