//! The 32-bit twin under 32-bit Linux (`MAIRBENCH_ARCH=armv7 MAIRBENCH_BOOT=linux`): Debian's
//! armhf LPAE kernel (`linux-image-armmp-lpae`, bookworm-backports 6.12, fetched by
//! `qemu/deps linux-armhf`) on `virt` with a Cortex-A15, the initramfs of busybox-static:armhf
//! and the twin built for armv7-unknown-linux-gnueabihf. One boot, read by the test below.
//!
//! Debian builds that kernel without CONFIG_UDMABUF and without DMA heaps: those sources are
//! refused there with an error record, as the kernel's config says they must be.

use crate::common::{self, boot, with_host};
use crate::twin_armv7::armv7_twin_kernels;

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
    if !common::deps::need_linux_armhf() {
        return;
    }
    let dir = common::deps::linux_dir("armhf");
    let config = std::fs::read_to_string(dir.join("config")).unwrap();
    let dir = dir.to_str().unwrap();
    let run = boot(
        &[
            ("MAIRBENCH_ARCH", "armv7"),
            ("MAIRBENCH_BOOT", "linux"),
            ("MAIRBENCH_CPU", "cortex-a15"),
            ("MAIRBENCH_LINUX_ARMHF_DIR", dir),
        ],
        ARGS,
    );
    eprintln!(
        "armhf Linux boot with the 32-bit twin: {:.1} s wall",
        run.wall.as_secs_f64()
    );
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
    assert_eq!(start["bootargs"], with_host(&ARGS.join(" ")), "{start}");

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
