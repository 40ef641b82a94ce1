//! The 32-bit twin under 32-bit Linux (`MAIRBENCH_ARCH=armv7 MAIRBENCH_BOOT=linux`): Debian's
//! armhf LPAE kernel (`linux-image-armmp-lpae`, bookworm-backports 6.12, which ./test.sh
//! fetches before the tests) on `virt` with a Cortex-A15, the initramfs of busybox-static:armhf
//! and the twin built for armv7-unknown-linux-gnueabihf. One boot, shared by the tests below,
//! with QEMU's gdb stub: at each source's pause the test walks the twin's LPAE tables, as the
//! arm64 boot's test walks its tables (linux.rs).
//!
//! Debian builds that kernel without CONFIG_UDMABUF and without DMA heaps: those sources are
//! refused there with an error record, as the kernel's config says they must be.

use crate::common::gdb::Gdb;
use crate::common::{self, with_host, Run};
use crate::linux::{walked_boot, Regs, Walks, PAUSE};
use crate::twin_armv7::armv7_twin_kernels;
use mairbench_core::paging::walk::Regime;
use std::sync::OnceLock;

/// The twin's command line: every source `all-hardware` finds, plus /dev/mem on Linux's own
/// RAM, which STRICT_DEVMEM refuses.
const ARGS: &[&str] = &[
    "mairbench.sizes=4K-64K",
    "mairbench.reps=3",
    "mairbench.sources=all-hardware,devmem:0x40000000+64K",
];

/// The armhf twin's boot: Linux reaches /init with the vgem modules and the ivshmem BAR; the
/// twin (a 32-bit EABI executable on an `armv7l` kernel) maps anon, the BAR's sysfs mapping
/// (not its write-combining one, which 32-bit Arm's Linux does not offer), vgem's dumb buffer and its dma-buf, and the RAM hidden from Linux, each with
/// every A32 kernel's results at every size and intact data; udmabuf and the DMA heaps get
/// error records exactly when the kernel's config lacks them; the host reads the log
/// without a problem.
#[test]
fn the_32_bit_twin_runs_under_debian_s_armhf_linux() {
    let Some((run, _)) = armhf_boot() else { return };
    let dir = common::deps::linux_dir("armhf");
    let config = std::fs::read_to_string(dir.join("config")).unwrap();
    run.assert_pass();
    let c = &run.console;
    let reached = c
        .lines()
        .find_map(|l| l.strip_prefix("mairbench: /init: reached at "))
        .unwrap_or_else(|| panic!("/init never ran:\n{run}"));
    assert!(reached.ends_with("-armmp-lpae"), "{reached}");
    assert!(c.contains("/dev/dri/card0"), "{run}");
    let start = run.one("start");
    assert_eq!(start["arch"], "armv7", "{start}");
    assert_eq!(start["machine"], "armv7l", "{start}");
    assert_eq!(
        start["bootargs"],
        with_host(&[ARGS, &[PAUSE]].concat().join(" ")),
        "{start}"
    );

    let results = run.results();
    for r in &results {
        assert_eq!(r["integrity"], "ok", "{r}");
    }
    let sources = run.of_kind("source");
    let by = |name: &str| {
        *sources
            .iter()
            .find(|s| s["source"] == name)
            .unwrap_or_else(|| panic!("no source record for {name}:\n{run}"))
    };
    for name in [
        "anon",
        "pci:0000:00:01.0:res2",
        "drm-dumb:card0",
        "dma-buf:card0",
        "devmem-ram",
    ] {
        let s = by(name);
        assert_eq!(s["size"], 65536, "{s}");
        assert!(s.get("error").is_none(), "{s}");
        for kernel in armv7_twin_kernels() {
            let sizes = if mairbench_core::kernel::by_name(kernel)
                .unwrap()
                .largest_only
            {
                1
            } else {
                5
            };
            let n = results
                .iter()
                .filter(|r| r["source"] == name && r["kernel"] == kernel)
                .count();
            assert_eq!(n, sizes, "{name} {kernel}:\n{run}");
        }
    }
    // Each mapping's line quotes 32-bit Arm Linux's protection (core's `pgprot_arm`).
    for name in ["drm-dumb:card0", "dma-buf:card0"] {
        assert_eq!(by(name)["driver"], "vgem", "{run}");
        let line = format!(
            "source {name}: driver vgem: pgprot_writecombine (L_PTE_MT_BUFFERABLE): GEM shmem \
             with map_wc, expected normal-nc"
        );
        assert!(c.contains(&line), "{line}:\n{run}");
    }
    assert!(
        c.contains("; 32-bit Arm: pgprot_device (L_PTE_MT_DEV_SHARED); "),
        "{run}"
    );
    assert_eq!(by("devmem-ram")["range"], "0x5c000000+64M");
    assert_eq!(by("devmem:0x40000000+64K")["error"], "EPERM");
    // No write-combining sysfs mapping of a BAR on 32-bit Arm: drivers/pci/pci-sysfs.c makes
    // resourceN_wc only where arch_can_pci_mmap_wc() is 1, which arm64's asm/pci.h defines and
    // arm's does not.
    let wc = by("pci:0000:00:01.0:res2_wc");
    assert_eq!(wc["error"], "ENOENT", "{wc}");
    assert_eq!(
        wc["detail"], "open /sys/bus/pci/devices/0000:00:01.0/resource2_wc",
        "{wc}"
    );
    // What the kernel's config has decides these two: a source is refused only when missing.
    for (name, option, step) in [
        ("udmabuf", "CONFIG_UDMABUF=y", "open /dev/udmabuf"),
        ("dma-heap:*", "CONFIG_DMABUF_HEAPS=y", "list /dev/dma_heap"),
    ] {
        let s = by(name);
        if config.lines().any(|l| l == option) {
            assert!(s.get("error").is_none(), "{option}, yet {s}");
        } else {
            assert_eq!(s["error"], "ENOENT", "no {option}: {s}");
            assert_eq!(s["detail"], step, "{s}");
        }
    }
    let parsed = mairbench_host::read::log::parse(c.as_bytes());
    assert!(parsed.problems.is_empty(), "{:?}", parsed.problems);
}

/// The one armhf boot, with the walks of its pauses; `None` (the tests say SKIPPED) when the
/// kernel is not cached.
fn armhf_boot() -> Option<&'static (Run, Walks)> {
    static RUN: OnceLock<Option<(Run, Walks)>> = OnceLock::new();
    RUN.get_or_init(|| {
        common::deps::need_linux_armhf().then(|| {
            let dir = common::deps::linux_dir("armhf");
            let dir = dir.to_str().unwrap();
            let env = [
                ("MAIRBENCH_ARCH", "armv7"),
                ("MAIRBENCH_BOOT", "linux"),
                ("MAIRBENCH_CPU", "cortex-a15"),
                ("MAIRBENCH_LINUX_ARMHF_DIR", dir),
            ];
            let (run, walks) = walked_boot(&env, ARGS, lpae_regime);
            eprintln!(
                "armhf Linux boot with the 32-bit twin and its page-table walks: {:.1} s wall",
                run.wall.as_secs_f64()
            );
            (run, walks)
        })
    })
    .as_ref()
}

/// 32-bit Arm's registers, as QEMU's gdb stub names them: TTBR0 (64 bits under LPAE), TTBCR,
/// MAIR1:MAIR0 as one MAIR.
fn lpae_regime(gdb: &mut Gdb) -> Result<(Regs, Regime), String> {
    let regs = Regs {
        ttbr0: gdb.reg("TTBR0")?,
        tcr: gdb.reg("TTBCR")?,
        mair: gdb.reg("MAIR1")? << 32 | gdb.reg("MAIR0")?,
    };
    let regime = Regime::lpae(regs.ttbr0, regs.tcr).map_err(|e| e.to_string())?;
    Ok((regs, regime))
}

/// The page tables as ground truth on 32-bit Linux: every mapped source was paused and
/// walked (LPAE, from level 1 with the kernel's 3G/1G split), each of its 16 pages a present
/// level-3 page whose AttrIndx names, through MAIR1:MAIR0 (Linux's `proc-v7-3level.S`,
/// 0xff000004:0xeeaa4400), the memory type the source table expects, the 32-bit Arm column's
/// `L_PTE_MT_*` index: anon WRITEALLOC (index 7, 0xff: the SMP kernel's write-allocate, not the
/// uniprocessor's 0xee of the Cortex-A7 report), vgem's buffers BUFFERABLE (1, 0x44), the BAR
/// DEV_SHARED (4, 0x04), the hidden RAM UNCACHED (0, Strongly-ordered); the PAs in Linux's
/// RAM, the hidden RAM from its first byte, the BAR outside both.
#[test]
fn the_lpae_tables_give_each_source_its_expected_memory_type() {
    use mairbench_core::source;
    let Some((run, walks)) = armhf_boot() else {
        return;
    };
    let walks: Vec<_> = walks
        .as_ref()
        .unwrap_or_else(|e| panic!("no walks: {e}\n{run}"))
        .iter()
        .map(|w| w.as_ref().unwrap_or_else(|e| panic!("{e}\n{run}")))
        .collect();
    let walked: Vec<&str> = walks.iter().map(|w| w.paused.source.as_str()).collect();
    assert_eq!(
        walked,
        [
            "anon",
            "pci:0000:00:01.0:res2",
            "drm-dumb:card0",
            "dma-buf:card0",
            "devmem-ram"
        ],
        "{run}"
    );
    let ram = 0x4000_0000u64..0x4000_0000 + (448 << 20);
    let hidden = 0x5c00_0000u64..0x5c00_0000 + (64 << 20);
    let sources = run.of_kind("source");
    for w in &walks {
        let name = w.paused.source.as_str();
        let spec = source::by_name(name).unwrap();
        let record = sources.iter().find(|s| s["source"] == name).unwrap();
        let expected = spec
            .expected
            .or_else(|| {
                record["driver"]
                    .as_str()
                    .and_then(source::drm_driver)
                    .map(|d| d.expected)
            })
            .unwrap_or_else(|| panic!("{name}: no expected type"));
        let regime = Regime::lpae(w.regs.ttbr0, w.regs.tcr).unwrap();
        assert_eq!(
            (regime.layout.va_bits, regime.layout.start_level),
            (32, 1),
            "{name}: TTBCR {:#x}",
            w.regs.tcr
        );
        assert_eq!(
            w.regs.mair, 0xff00_0004_eeaa_4400,
            "{name}: Linux's MAIR1:MAIR0"
        );
        assert_eq!(w.pages.len(), 16, "{name}: 64 KiB of pages");
        eprintln!(
            "{name}: TTBR0 {:#x} TTBCR {:#x}; page 0: {}",
            w.regs.ttbr0,
            w.regs.tcr,
            w.pages[0]
                .as_ref()
                .map_or_else(|e| e.to_string(), |l| l.describe(w.regs.mair).to_string())
        );
        for (i, page) in w.pages.iter().enumerate() {
            let leaf = page
                .as_ref()
                .unwrap_or_else(|e| panic!("{name} page {i}: {e}"));
            let said = leaf.describe(w.regs.mair);
            assert!(leaf.is_page(), "{name} page {i}: {said}");
            assert_eq!(
                leaf.memtype(w.regs.mair).map(|t| t.name),
                Some(expected),
                "{name} page {i}: {said}"
            );
            assert!(
                leaf.accessed() && leaf.not_global(),
                "{name} page {i}: {said}"
            );
            let pa = leaf.pa;
            match spec.kind {
                source::Form::DevMemRam => {
                    assert!(hidden.contains(&pa), "{name} page {i}: {said}");
                    if i == 0 {
                        assert_eq!(pa, hidden.start, "{name}");
                    }
                }
                source::Form::PciBar => assert!(
                    !ram.contains(&pa) && !hidden.contains(&pa),
                    "{name} page {i}: {said}"
                ),
                _ => assert!(ram.contains(&pa), "{name} page {i}: {said}"),
            }
        }
        assert!(
            run.console
                .contains(&format!("pause: source {name} released")),
            "{name}: not released by the write at PA {:#x}:\n{run}",
            w.release.pa
        );
    }
}
