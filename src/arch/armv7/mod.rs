//! Everything specific to 32-bit Arm (ARMv7-A, A32 code): boot assembly, CP15 registers,
//! exceptions, the translation regimes, the measured loops, exit.
//!
//! This file holds [`rust_main`], which `boot/armv7/entry.S` calls in SVC mode: it finds the
//! device tree, discovers the platform, starts the console and hands over to the run
//! (`crate::main`), as the AArch64 image's does. The modules below name what they use of each
//! other directly and nothing of this file.

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
pub mod outer;
pub mod pmu;
pub mod probes;
pub(crate) mod regs;
#[path = "../shared/semihosting.rs"]
pub mod semihosting;
pub mod smp;
mod soc_timer;
#[path = "../shared/timer.rs"]
pub mod timer;
mod translation;
pub mod uefi;

use boot::Boot;
use core::arch::global_asm;
use mairbench_core::fb::Framebuffer;

/// The architecture this image runs on: its `start` record's `arch`.
pub const ARCH: mairbench_core::arch::Arch = mairbench_core::arch::Arch::Armv7;

/// The memory types this image maps: the ARMv7 columns of the memory-type table.
pub use mairbench_core::memtype::armv7::MEMTYPES;

/// The kernels this image measures: the kernel table's rows with an A32 loop, named for it.
pub use mairbench_core::kernel::armv7::KERNELS;

// Constants the assembly shares with Rust, defined once here.
global_asm!(
    ".equ SECONDARY_BLOCK, {block}",
    ".equ MAX_CPUS, {cpus}",
    ".equ SCTLR_MMU_ON, {mmu_on}",
    ".equ SCTLR_MMU_ON_SHORT, {mmu_on_short}",
    ".equ HANDOFF_MAIR, {mair}",
    ".equ HANDOFF_TCR, {tcr}",
    ".equ HANDOFF_TTBR0, {ttbr0}",
    ".equ HANDOFF_BLOCKS, {blocks}",
    ".equ EARLY_MAIR0, {mair0}",
    ".equ EARLY_MAIR1, {mair1}",
    ".equ EARLY_TTBCR, {ttbcr}",
    ".equ EARLY_PRRR, {prrr}",
    ".equ EARLY_NMRR, {nmrr}",
    block = const smp::BLOCK,
    cpus = const mairbench_core::platform::MAX_CPUS,
    mmu_on = const mmu::SCTLR_MMU_ON,
    mmu_on_short = const translation::SCTLR_MMU_ON_SHORT,
    mair = const core::mem::offset_of!(smp::start::Handoff, mair),
    tcr = const core::mem::offset_of!(smp::start::Handoff, tcr),
    ttbr0 = const core::mem::offset_of!(smp::start::Handoff, ttbr0),
    blocks = const core::mem::offset_of!(smp::start::Handoff, blocks),
    mair0 = const mairbench_core::memtype::armv7::MAIR0,
    mair1 = const mairbench_core::memtype::armv7::MAIR1,
    ttbcr = const mairbench_core::paging::lpae::TTBCR,
    prrr = const mairbench_core::memtype::armv7::PRRR,
    nmrr = const mairbench_core::memtype::armv7::NMRR,
);

/// Makes a SoC timer the run's clock where the core has no generic timer (the Cortex-A8 and
/// A9; `soc_timer`), before the timer check: its name, address and rate.
pub fn start_clock(dtb: Option<&[u8]>) -> Option<(&'static str, u64, u64)> {
    soc_timer::start_from(dtb, cpu::generic_timer())
}

/// The device pages the firmware's identity map holds for this architecture besides the
/// console, as Device memory: the outer cache controller (`outer`) and the SoC timer that is
/// the clock.
pub fn devices(dtb: Option<&[u8]>) -> [Option<(&'static str, u64)>; 2] {
    [outer::device(dtb), soc_timer::region()]
}

/// The early identity map's tables (boot/armv7/entry.S, `early_map`): LPAE's level 1 and one
/// level 2 table in the first 8 KiB, or a short-descriptor first-level table in all 16 KiB.
/// Only the entry code writes them; they stay in use until memory set-up switches to its own
/// tables.
#[export_name = "mb_early_tables"]
#[link_section = ".bss.early_tables"]
static mut EARLY_TABLES: EarlyTables = EarlyTables([0; 4096]);

/// 16 KiB of translation tables, aligned as a short-descriptor first-level table must be.
#[repr(C, align(16384))]
struct EarlyTables([u32; 4096]);

global_asm!(include_str!("../../../boot/armv7/entry.S"), options(raw));
global_asm!(include_str!("../../../boot/armv7/vectors.S"), options(raw));
global_asm!(include_str!("mem.S"), options(raw));

/// What `boot/armv7/entry.S` saw, in the order it pushes them.
#[repr(C)]
pub struct Entry {
    /// r2 at entry: the device tree's address.
    dtb: usize,
    /// CPSR at entry: its mode is the one the boot loader entered in (SVC or HYP).
    cpsr: u32,
    /// Where the image runs.
    image_base: usize,
    /// SCTLR at entry (the MMU and caches as the boot loader left them).
    sctlr: u32,
    /// DCCISW operations issued to clean the caches at entry.
    setway_ops: u32,
    /// Relocations the entry code could not apply.
    bad_relocs: u32,
}

/// The Rust entry point, called by `boot/armv7/entry.S` in SVC mode: finds the device tree,
/// discovers the platform and the console's device, then runs the firmware.
#[no_mangle]
extern "C" fn rust_main(entry: &Entry) -> ! {
    let start_ticks = cpu::ticks();
    exceptions::set_reporter(crate::failure::report_exception);
    cpu::set_smp_bits();
    let dtb = dtb::find_dtb(entry.dtb);
    let platform = mairbench_core::platform::discover(dtb.map(|(_, blob)| blob));
    // As on AArch64: QEMU virt's PL011 is written to only where the machine is known to be
    // QEMU (its device tree, or a semihosting host answering without one).
    let qemu_without_dtb = || !platform.dtb_ok && semihosting::available();
    let console =
        (platform.console_from_dtb || platform.emulated || qemu_without_dtb()).then(|| {
            // SAFETY: the console just discovered: the UART `/chosen/stdout-path` names (its
            // translated `reg`, of the kind whose register layout the driver uses), or QEMU
            // virt's PL011 where the machine is QEMU's. With the MMU off it is
            // Strongly-ordered memory; memory set-up maps its page 1:1 as Strongly-ordered.
            // The console is the one driver of it.
            unsafe { mmio::Device::at(platform.console.base) }
        });
    let image = image::image_layout();
    let fb = dtb
        .and_then(|(_, blob)| Framebuffer::from_dt(mairbench_core::fdt::Fdt::new(blob).ok()?))
        .map(|found| {
            let fb = found?;
            let blob = dtb.map_or((0, 0), |(addr, blob)| (addr as u64, blob.len() as u64));
            if fb.overlaps(image.start, image.end - image.start) || fb.overlaps(blob.0, blob.1) {
                return Err(mairbench_core::fb::Problem::Overlap);
            }
            // SAFETY: a framebuffer the boot's device tree describes, its rows inside its
            // memory (`checked`), clear of the image and the device tree; memory set-up maps
            // it 1:1 and keeps the test buffer off it. Only the console draws on it.
            Ok((fb, unsafe { fb::Canvas::new(&fb) }))
        });
    let boot = Boot {
        console,
        dtb_arg: entry.dtb,
        entry_el: mairbench_core::arch::armv7_mode(entry.cpsr).map_or(1, |m| m.el.into()),
        image_base: entry.image_base,
        bad_relocs: entry.bad_relocs.into(),
        entry_sctlr: entry.sctlr.into(),
        setway_ops: entry.setway_ops.into(),
        cntfrq_programmed: None,
        start_ticks,
        uefi: None,
        fb,
    };
    crate::main(boot, dtb, platform)
}

/// Unmasks asynchronous aborts (CPSR.A): once the vectors, the reporter and the console are
/// in place, an external abort from a bus is taken and reported in words instead of staying
/// pending.
pub fn unmask_serror() {
    // SAFETY: clears CPSR.A only; the data abort vector is in place.
    unsafe { core::arch::asm!("cpsie a", options(nomem, nostack)) };
}
