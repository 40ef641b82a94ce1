//! The Linux boot (MAIRBENCH_BOOT=linux): Debian's arm64 kernel from bookworm-backports with
//! the initramfs qemu/run builds. Three kernel boots in all:
//! - one with the real twin (test.sh builds it next to the firmware), shared by the tests that
//!   read it: what the twin relies on (/init reached, `/dev/udmabuf`, the ivshmem-plain BAR's
//!   sysfs files), its records and sources, and the classification of its sources against a
//!   firmware run on the same QEMU;
//! - one with a shell script in the twin's place: its arguments arrive one by one with
//!   `mairbench.host=` last, its output reaches stdout, and the runner's status follows its
//!   `end` record, not its exit code;
//! - one with 1 GiB of RAM and `mairbench.hugepages=on`: the twin's anon on 2 MiB entries.
//!
//! Settings the runner refuses need no boot.

use crate::common;
use crate::common::gdb::Gdb;
use crate::common::{boot, qemu_host, root, twin_kernels, with_host, Run};
use mairbench_core::paging::walk::{walk, Leaf, Regime, WalkError};
use std::process::{Command, Stdio};
use std::sync::OnceLock;

/// Whether Debian's kernel and busybox are cached (./test.sh fetches them before the tests);
/// false, after a clear message, when not: under `CI=true` that fails the test instead
/// ([`common::deps::need_linux`]).
fn linux_fetched() -> bool {
    common::deps::need_linux()
}

#[test]
fn ci_never_skips() {
    assert!(common::may_skip(None));
    assert!(common::may_skip(Some("")));
    assert!(common::may_skip(Some("false")));
    assert!(!common::may_skip(Some("true")));
}

#[test]
fn twin_gets_its_arguments_and_the_end_record_decides() {
    if !linux_fetched() {
        return;
    }
    let twin = common::dtb::tmp("linux-twin.sh");
    std::fs::write(
        &twin,
        "#!/bin/sh\nfor a; do echo \"arg [$a]\"; done\n\
         echo \"@mb {\\\"kind\\\":\\\"end\\\",\\\"status\\\":\\\"$1\\\"}\"\nexit 3\n",
    )
    .unwrap();
    let mut perm = std::fs::metadata(&twin).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perm, 0o755);
    std::fs::set_permissions(&twin, perm).unwrap();
    let run = boot(
        &[
            ("MAIRBENCH_BOOT", "linux"),
            ("MAIRBENCH_TWIN", twin.to_str().unwrap()),
        ],
        &["pass", "two words"],
    );
    let c = &run.console;
    let args: Vec<&str> = c
        .lines()
        .filter_map(|l| l.strip_prefix("arg "))
        .map(|l| l.trim_end_matches('\r'))
        .collect();
    let host = format!("[mairbench.host={}]", qemu_host());
    assert_eq!(
        args,
        [
            "[pass]",
            "[two words]",
            host.as_str(),
            "[mairbench.accel=tcg]"
        ],
        "{c}"
    );
    assert!(
        c.contains("mairbench: /init: /mairbench-linux exited with status 3"),
        "{c}"
    );
    // The end record says pass: the twin's exit status 3 does not make the run fail.
    assert_eq!(run.one("end")["status"], "pass", "{c}");
    assert_eq!(run.status, 0, "runner status; stderr:\n{}\n{c}", run.stderr);
}

/// Refused before any tool runs: nothing is fetched (the cache named is not there) or booted.
#[test]
fn refused_settings_boot_nothing() {
    for (env, said) in [
        (
            ("MAIRBENCH_TWIN", "/nonexistent/mairbench-linux"),
            "no Linux twin at /nonexistent/mairbench-linux",
        ),
        (
            ("MAIRBENCH_IVSHMEM", "12M"),
            "MAIRBENCH_IVSHMEM must be a power of two in MiB",
        ),
        (("MAIRBENCH_EL", "3"), "MAIRBENCH_EL=3 does not apply"),
        (
            ("MAIRBENCH_LINUX_MODULES", "nouveau"),
            "MAIRBENCH_LINUX_MODULES must be vgem or none",
        ),
        (
            ("MAIRBENCH_MACHINE", "raspi4b"),
            "boots with MAIRBENCH_BOOT=kernel only",
        ),
    ] {
        let run = boot(
            &[
                ("MAIRBENCH_BOOT", "linux"),
                ("MAIRBENCH_TWIN", "none"),
                ("MAIRBENCH_LINUX_DIR", "/nonexistent/linux"),
                env,
            ],
            &[],
        );
        assert_eq!(run.status, 2, "{env:?}: stderr:\n{}", run.stderr);
        assert!(
            run.stderr.contains(said),
            "{env:?}: stderr:\n{}",
            run.stderr
        );
        assert!(
            !run.console.contains("/init"),
            "{env:?} booted:\n{}",
            run.console
        );
    }
}

/// The real twin's command line in the shared boot: every source `all-hardware` finds (the
/// default `all` and the VM's BARs and devmem-ram), plus sources that must be refused.
const TWIN_ARGS: &[&str] = &[
    "mairbench.sizes=4K-64K",
    "mairbench.reps=3",
    "mairbench.sources=all-hardware,devmem:0x40000000+64K,pci:0000:00:1f.0:res2,dma-heap:none,heap",
];

/// A PCI device with a prefetchable BAR (its framebuffer, BAR 0) whose driver (bochs) the
/// initramfs does not load and whose memory decoding nothing turns on: `all-hardware` must
/// leave it alone. No option ROM (QEMU's would be looked for in the firmware files).
const BOCHS: &str = "bochs-display,romfile=";
/// Where QEMU puts it: the slot after the ivshmem-plain device.
const BOCHS_BDF: &str = "0000:00:02.0";

/// The one boot with the real twin, shared by the tests that read it; `None` (the tests say
/// SKIPPED) when the kernel could not be fetched.
fn twin_boot() -> Option<&'static Run> {
    twin().map(|(run, _)| run)
}

/// The shared boot and its page-table walks: QEMU runs with its gdb stub
/// (`MAIRBENCH_GDB=1` on a free port), the twin with `mairbench.pause`; at each source's
/// pause line the test stops the machine, walks the twin's tables ([`walk_paused`]) and
/// releases the twin. The walks, or why there are none.
fn twin() -> Option<&'static (Run, Walks)> {
    static RUN: OnceLock<Option<(Run, Walks)>> = OnceLock::new();
    RUN.get_or_init(|| {
        linux_fetched().then(|| {
            let (run, walks) = walked_boot(
                &[
                    ("MAIRBENCH_BOOT", "linux"),
                    ("MAIRBENCH_LINUX_DEVICES", BOCHS),
                ],
                TWIN_ARGS,
                aarch64_regime,
            );
            eprintln!(
                "Linux boot with the twin and its page-table walks: {:.1} s wall",
                run.wall.as_secs_f64()
            );
            (run, walks)
        })
    })
    .as_ref()
}

/// Where the stopped CPU's tables are: the registers read, and the regime they describe.
pub(crate) type ReadRegime = fn(&mut Gdb) -> Result<(Regs, Regime), String>;

/// AArch64's: TTBR0_EL1, TCR_EL1 and MAIR_EL1.
fn aarch64_regime(gdb: &mut Gdb) -> Result<(Regs, Regime), String> {
    let regs = Regs {
        ttbr0: gdb.reg("TTBR0_EL1")?,
        tcr: gdb.reg("TCR_EL1")?,
        mair: gdb.reg("MAIR_EL1")?,
    };
    let regime = Regime::new(regs.ttbr0, regs.tcr).map_err(|e| e.to_string())?;
    Ok((regs, regime))
}

/// A Linux boot with `env` whose twin gets `args` and pauses at each source: QEMU runs with
/// its gdb stub (`MAIRBENCH_GDB=1` on a free port), the twin with `mairbench.pause`; at each
/// source's pause line the machine is stopped, the twin's tables walked ([`walk_paused`],
/// with `regime` reading where they are) and the twin released.
pub(crate) fn walked_boot(env: &[(&str, &str)], args: &[&str], regime: ReadRegime) -> (Run, Walks) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free TCP port")
        .port();
    let port_s = port.to_string();
    let mut args = args.to_vec();
    args.push(PAUSE);
    let mut env = env.to_vec();
    env.extend([("MAIRBENCH_GDB", "1"), ("MAIRBENCH_GDB_PORT", &port_s)]);
    let (run, walks) = common::boot_watched(
        &env,
        &args,
        |child| {
            // QEMU starts halted (-S) until the stub is attached: attach, let it run.
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
            let gdb = Gdb::connect(port, || match child.try_wait() {
                Ok(Some(status)) => Err(format!("qemu/run exited ({status}) first")),
                _ if std::time::Instant::now() > deadline => {
                    Err(format!("no gdb stub on port {port} within 60 s"))
                }
                _ => Ok(()),
            })
            .and_then(|mut gdb| {
                gdb.registers()?;
                gdb.cont()?;
                Ok(gdb)
            });
            gdb.map(|g| (g, Vec::new()))
        },
        |state, line| {
            let Ok((gdb, walks)) = state else { return };
            let Some(paused) = Paused::parse(line) else {
                return;
            };
            // A failed walk is kept, and the next pause walked: an unreleased twin
            // goes on at its own time limit.
            walks.push(
                walk_paused(gdb, &paused, regime).map_err(|e| format!("{}: {e}", paused.source)),
            );
        },
    );
    (run, walks.map(|(_, w)| w))
}

/// Each pause's walk or why it failed; all of it an error when the stub could not be used.
pub(crate) type Walks = Result<Vec<Result<Walked, String>>, String>;

/// The twin's pause option in the shared boot (its default limit, 30 s: the test releases
/// it well before).
pub(crate) const PAUSE: &str = "mairbench.pause";

/// A source the twin paused at: its pause line, `pause: source NAME mapped at va 0xVA
/// (SIZE B), pid PID; release word at va 0xVA; ...`.
#[derive(Debug, Clone)]
pub(crate) struct Paused {
    pub(crate) source: String,
    pub(crate) va: u64,
    pub(crate) size: u64,
    pub(crate) pid: u64,
    pub(crate) release: u64,
}

impl Paused {
    fn parse(line: &str) -> Option<Paused> {
        let rest = line.strip_prefix("pause: source ")?;
        let (source, rest) = rest.split_once(" mapped at va 0x")?;
        let (va, rest) = rest.split_once(" (")?;
        let (size, rest) = rest.split_once(" B), pid ")?;
        let (pid, rest) = rest.split_once("; release word at va 0x")?;
        let (release, _) = rest.split_once(';')?;
        Some(Paused {
            source: source.to_string(),
            va: u64::from_str_radix(va, 16).ok()?,
            size: size.parse().ok()?,
            pid: pid.parse().ok()?,
            release: u64::from_str_radix(release, 16).ok()?,
        })
    }
}

/// The translation registers of the CPU stopped in the twin: TTBR0_EL1, TCR_EL1 and
/// MAIR_EL1, or on 32-bit Arm TTBR0, TTBCR and MAIR1:MAIR0.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Regs {
    pub(crate) ttbr0: u64,
    pub(crate) tcr: u64,
    pub(crate) mair: u64,
}

/// What the walk of one paused source found.
#[derive(Debug)]
pub(crate) struct Walked {
    pub(crate) paused: Paused,
    /// The registers when the machine stopped in the twin.
    pub(crate) regs: Regs,
    /// Stops it took to find the CPU at EL0 (in the twin, not in the kernel).
    pub(crate) stops: u32,
    /// Each 4 KiB page of the mapping, in order: its leaf, or why there is none.
    pub(crate) pages: Vec<Result<Leaf, WalkError>>,
    /// The release word's leaf (its PA is where the test wrote to release the twin).
    pub(crate) release: Leaf,
}

/// Stops the machine with the CPU in the twin (EL0: the twin spins in user space while it
/// pauses; a stop that lands in the kernel is resumed and tried again), reads TTBR0_EL1,
/// TCR_EL1 and MAIR_EL1, walks every page of the paused source's mapping and the release
/// word, reading descriptors by physical address (`Qqemu.PhyMemMode:1`), writes 1 at the
/// release word's physical address and lets the machine run (also after a failed walk).
fn walk_paused(gdb: &mut Gdb, p: &Paused, regime: ReadRegime) -> Result<Walked, String> {
    let mut stopped = false;
    let walked = walk_stopped(gdb, p, regime, &mut stopped);
    if !stopped {
        return walked;
    }
    let resumed = gdb.physical(false).and_then(|()| gdb.cont());
    let walked = walked?;
    resumed.map(|()| walked)
}

/// [`walk_paused`] up to the release, leaving the machine stopped (`stopped` says whether
/// it is).
fn walk_stopped(
    gdb: &mut Gdb,
    p: &Paused,
    read_regime: ReadRegime,
    stopped: &mut bool,
) -> Result<Walked, String> {
    let mut stops = 0;
    loop {
        gdb.stop()?;
        *stopped = true;
        stops += 1;
        // CPSR.M[3:0] = 0b0000: EL0t (AArch64), User mode (0b10000, 32-bit Arm).
        if gdb.reg("cpsr")? & 0xf == 0 {
            break;
        }
        if stops == 200 {
            return Err("200 stops, none at EL0".into());
        }
        gdb.cont()?;
        *stopped = false;
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let (regs, regime) = read_regime(gdb)?;
    gdb.physical(true)?;
    let mut read_error = None;
    let mut read = |pa: u64| match gdb.read_u64(pa) {
        Ok(v) => Some(v),
        Err(e) => {
            read_error = Some(e);
            None
        }
    };
    let pages: Vec<_> = (0..p.size / 4096)
        .map(|i| walk(&regime, p.va + i * 4096, &mut read))
        .collect();
    let release = walk(&regime, p.release, &mut read);
    if let Some(e) = read_error {
        eprintln!("{}: a descriptor read failed: {e}", p.source);
    }
    let release = release.map_err(|e| format!("release word at {:#x}: {e}", p.release))?;
    gdb.write_u64(release.pa, 1)?;
    Ok(Walked {
        paused: p.clone(),
        regs,
        stops,
        pages,
        release,
    })
}

/// What the twin relies on, printed by /init before it runs the twin: the 6.12 kernel reached
/// /init in good time, `/dev/udmabuf` is a character device, the ivshmem-plain device is
/// enabled and its BAR 2 has both sysfs files, of the BAR's size.
#[test]
fn linux_reaches_init_with_udmabuf_and_the_ivshmem_bars() {
    let Some(run) = twin_boot() else { return };
    let c = &run.console;
    assert_eq!(run.status, 0, "runner status; stderr:\n{}\n{c}", run.stderr);
    let reached = c
        .lines()
        .find_map(|l| l.strip_prefix("mairbench: /init: reached at "))
        .unwrap_or_else(|| panic!("/init never ran:\n{c}"));
    let uptime: f64 = reached
        .split(' ')
        .next()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no uptime in {reached:?}"));
    let release = reached
        .rsplit("Linux ")
        .next()
        .unwrap_or_else(|| panic!("no kernel release in {reached:?}"));
    assert!(
        release.starts_with("6.12."),
        "the bookworm-backports kernel is 6.12, not {release}"
    );
    eprintln!(
        "Linux {release} reached /init at {uptime} s of uptime; the whole run took {:.1} s",
        run.wall.as_secs_f64()
    );
    // About 2.5 s here under TCG; the bound catches a boot that waits for something.
    assert!(uptime < 30.0, "/init only at {uptime} s of uptime");
    let udmabuf = c
        .lines()
        .find(|l| l.ends_with(" /dev/udmabuf"))
        .unwrap_or_else(|| panic!("no /dev/udmabuf:\n{c}"));
    assert!(
        udmabuf.starts_with('c'),
        "/dev/udmabuf is a character device: {udmabuf}"
    );
    assert!(
        c.contains("mairbench: /init: pci 0000:00:01.0 0x1af4:0x1110 enable=1"),
        "the ivshmem-plain device is enabled:\n{c}"
    );
    for file in ["resource2", "resource2_wc"] {
        let line = format!("mairbench: /init: /sys/bus/pci/devices/0000:00:01.0/{file} 16777216 B");
        assert!(c.contains(&line), "{line:?} missing:\n{c}");
    }
    // The vgem modules (fetched by ./test.sh), in dependency order, and the card they make.
    let loaded: Vec<&str> = c
        .lines()
        .filter_map(|l| l.strip_prefix("mairbench: /init: loaded module "))
        .map(|l| l.split(' ').next().unwrap_or(l))
        .collect();
    assert_eq!(
        loaded,
        [
            "drm.ko",
            "drm_kms_helper.ko",
            "drm_shmem_helper.ko",
            "vgem.ko"
        ],
        "{c}"
    );
    assert!(c.contains("/dev/dri/card0"), "{c}");
    // The top 64 MiB of the 512 MiB hidden from Linux and named for the twin.
    assert!(
        c.contains("mem=448M mairbench.devmem-ram=0x5c000000+64M"),
        "kernel command line:\n{c}"
    );
    assert!(
        c.contains(&format!(
            "mairbench: /init: pci {BOCHS_BDF} 0x1234:0x1111 enable=0"
        )),
        "the bochs-display device is there, not enabled:\n{c}"
    );
}

/// The real twin (test.sh builds it next to the firmware) under Linux: framed records that the
/// host reads without problems, the kernel named in its start record, status pass. Sources:
/// `all-hardware` finds anon, udmabuf, both sysfs mappings of the ivshmem BAR, vgem's dumb buffer
/// (`drm-dumb:card0`, driver vgem, expected normal-nc), its PRIME dma-buf (`dma-buf:card0`,
/// with the DMA_BUF_IOCTL_SYNC pair's cost on every result) and `devmem-ram` (each with a
/// `source` record and every kernel's results with intact data); it refuses the
/// bochs-display's BAR 0 (memory decoding off) and writes an error record for the missing
/// `/dev/dma_heap`; `/dev/mem` on RAM (STRICT_DEVMEM), a PCI device and a heap that do not
/// exist and an unknown source name each get an error record, and the run goes on.
#[test]
fn the_twin_runs_under_linux() {
    let Some(run) = twin_boot() else { return };
    run.assert_pass();
    let start = run.one("start");
    assert!(
        start["kernel"].as_str().is_some_and(|k| k.contains("6.12")),
        "{start}"
    );
    assert_eq!(start["machine"], "aarch64", "{start}");
    assert_eq!(
        start["bootargs"],
        with_host(&[TWIN_ARGS, &[PAUSE]].concat().join(" ")),
        "the runner passes the arguments, mairbench.host= last"
    );
    let results = run.results();
    for r in &results {
        assert_eq!(r["integrity"], "ok", "{r}");
    }
    let sources = run.of_kind("source");
    let ivshmem = "pci:0000:00:01.0";
    for name in [
        "anon".to_string(),
        "udmabuf".to_string(),
        format!("{ivshmem}:res2"),
        format!("{ivshmem}:res2_wc"),
        "drm-dumb:card0".to_string(),
        "dma-buf:card0".to_string(),
        "devmem-ram".to_string(),
    ] {
        let s = sources
            .iter()
            .find(|s| s["source"] == name.as_str())
            .unwrap_or_else(|| panic!("no source record for {name}:\n{}", run.console));
        assert_eq!(s["size"], 65536, "{s}");
        assert!(s.get("error").is_none(), "{s}");
        for kernel in twin_kernels() {
            let n = results
                .iter()
                .filter(|r| r["source"] == name.as_str() && r["kernel"] == kernel)
                .count();
            let sizes = if mairbench_core::kernel::by_name(kernel)
                .unwrap()
                .largest_only
            {
                1
            } else {
                5
            };
            assert_eq!(
                n, sizes,
                "{name} {kernel}: one result per size 4K-64K (the largest alone for \
                 {kernel} where it is measured there only):\n{}",
                run.console
            );
        }
    }
    let bochs = format!("pci:{BOCHS_BDF}:res0");
    let bochs_wc = format!("{bochs}_wc");
    for (name, error, step) in [
        ("devmem:0x40000000+64K", "EPERM", "mmap"),
        ("pci:0000:00:1f.0:res2", "ENOENT", "open"),
        ("dma-heap:none", "ENOENT", "open /dev/dma_heap/none"),
        ("dma-heap:*", "ENOENT", "list /dev/dma_heap"),
        ("heap", "EINVAL", "not a source name"),
        (
            bochs.as_str(),
            "ENXIO",
            "not mapped by all: memory decoding is off",
        ),
        (
            bochs_wc.as_str(),
            "ENXIO",
            "not mapped by all: memory decoding is off",
        ),
    ] {
        let s = sources
            .iter()
            .find(|s| s["source"] == name)
            .unwrap_or_else(|| panic!("no source record for {name}:\n{}", run.console));
        assert_eq!(s["error"], error, "{s}");
        assert!(
            s["detail"].as_str().is_some_and(|d| d.starts_with(step)),
            "{s}"
        );
        assert!(
            !results.iter().any(|r| r["source"] == name),
            "{name} has results"
        );
    }
    // What the new sources' records say.
    let by = |name: &str| *sources.iter().find(|s| s["source"] == name).unwrap();
    for name in ["drm-dumb:card0", "dma-buf:card0"] {
        let s = by(name);
        assert_eq!(s["driver"], "vgem", "{s}");
        assert_eq!(s["expected"], "normal-nc", "{s}");
        assert!(
            s["detail"].as_str().unwrap().contains("vgem_drv.c"),
            "the kernel source is cited: {s}"
        );
    }
    // How much of each mapping is on 2 MiB entries (PAGEMAP_SCAN, which 6.12 has), and
    // each point's granule with it. anon is the only source advised; at the runner's 512 MiB
    // (448 MiB for Linux) THP is off by default (mm/huge_memory.c, hugepage_init: under
    // 512 MiB of RAM), and the other sources' drivers map 4 KiB pages.
    for s in sources.iter().filter(|s| s.get("size").is_some()) {
        let name = s["source"].as_str().unwrap();
        assert!(
            run.console.contains(&format!(
                "source {name}: 0 B of 64 KiB on 2 MiB entries (PAGEMAP_SCAN"
            )),
            "{name}:\n{}",
            run.console
        );
        assert_eq!(s["huge"], false, "{s}");
        assert_eq!(s["huge_bytes"], 0, "{s}");
        assert_eq!(s.get("hugepages").is_some(), name == "anon", "{s}");
        for r in results.iter().filter(|r| r["source"] == name) {
            assert_eq!(r["granule"], "4K", "{r}");
        }
    }
    let anon = by("anon");
    assert_eq!(anon["hugepages"], "auto", "{anon}");
    assert_eq!(anon["thp"], "never", "{anon}");
    let ram = by("devmem-ram");
    assert_eq!(ram["range"], "0x5c000000+64M", "{ram}");
    assert_eq!(ram["expected"], "device-ngnrne", "{ram}");
    // The dma-buf's results carry the sync pair's cost; no other source's do.
    for r in &results {
        let synced = r.get("sync_ns").and_then(|v| v.as_u64());
        if r["source"] == "dma-buf:card0" {
            assert!(synced.is_some_and(|ns| ns > 0), "{r}");
        } else {
            assert!(synced.is_none(), "{r}");
        }
    }
    assert!(
        run.console.contains("; DMA_BUF_IOCTL_SYNC START+END "),
        "{}",
        run.console
    );
    let parsed = mairbench_host::read::log::parse(run.console.as_bytes());
    assert!(parsed.problems.is_empty(), "{:?}", parsed.problems);
}

/// The page tables as ground truth for the sources' expected memory types: at each pause
/// the twin's tables (TTBR0_EL1 and TCR_EL1 of the CPU stopped at EL0: 48-bit VA, 4 KiB
/// granule) map every page of the source's 64 KiB, each a present level-3 page whose
/// AttrIndx names, through MAIR_EL1, the memory type core's source table expects (for a DRM
/// card, its driver's row). Every row the table marks as checked in a page table
/// (`Evidence::PageTable`, docs/twin-sources.md's column) was walked here, and every walked source's
/// row is so marked. vgem's dumb buffer and its dma-buf have the same descriptor bits but the
/// address. The release word's walk was right (the twin says it was released). PAs:
/// `devmem-ram` the hidden RAM from its first byte; both sysfs mappings of the BAR the same
/// pages, outside RAM; the rest in Linux's RAM.
#[test]
fn the_page_tables_give_each_source_its_expected_memory_type() {
    use mairbench_core::source::{self, Evidence, SOURCES};
    let Some((run, walks)) = twin() else { return };
    let walks: Vec<&Walked> = walks
        .as_ref()
        .unwrap_or_else(|e| panic!("no walks: {e}\n{}", run.console))
        .iter()
        .map(|w| {
            w.as_ref()
                .unwrap_or_else(|e| panic!("{e}\n{}", run.console))
        })
        .collect();
    let sources = run.of_kind("source");
    let ram = 0x4000_0000u64..0x4000_0000 + (448 << 20);
    let hidden = 0x5c00_0000u64..0x5c00_0000 + (64 << 20);
    let mut pas = std::collections::BTreeMap::new();
    for w in &walks {
        let name = w.paused.source.as_str();
        let spec = source::by_name(name).unwrap();
        let record = sources
            .iter()
            .find(|s| s["source"] == name)
            .unwrap_or_else(|| panic!("no source record for {name}"));
        let driver = record["driver"].as_str().and_then(source::drm_driver);
        let (expected, evidence) = match (spec.expected, driver) {
            (Some(e), _) => (e, spec.evidence),
            (None, Some(d)) => (d.expected, d.evidence),
            (None, None) => panic!("{name}: no expected type: {record}"),
        };
        let for_driver = driver.map_or("", |d| d.name);
        assert!(
            matches!(spec.evidence, Evidence::PageTable { for_driver: f } if f == for_driver)
                && matches!(evidence, Evidence::PageTable { .. }),
            "{name} was walked: its row (and its driver's) must say so"
        );
        assert_eq!(w.pages.len(), 16, "{name}: 64 KiB of pages");
        assert_eq!(w.paused.size, 65536, "{name}");
        let regime = Regime::new(w.regs.ttbr0, w.regs.tcr).unwrap();
        assert_eq!(
            (regime.layout.va_bits, regime.layout.start_level),
            (48, 0),
            "{name}: TCR_EL1 {:#x}",
            w.regs.tcr
        );
        eprintln!(
            "{name}: pid {}, {} stop(s) to EL0, TTBR0_EL1 {:#x} TCR_EL1 {:#x} MAIR_EL1 {:#x}",
            w.paused.pid, w.stops, w.regs.ttbr0, w.regs.tcr, w.regs.mair
        );
        let mut these = Vec::new();
        for (i, page) in w.pages.iter().enumerate() {
            let leaf = page
                .as_ref()
                .unwrap_or_else(|e| panic!("{name} page {i}: {e}"));
            if i == 0 {
                eprintln!("  page 0: {}", leaf.describe(w.regs.mair));
            }
            assert!(
                leaf.is_page(),
                "{name} page {i}: {}",
                leaf.describe(w.regs.mair)
            );
            assert_eq!(
                leaf.memtype(w.regs.mair).map(|t| t.name),
                Some(expected),
                "{name} page {i}: {}",
                leaf.describe(w.regs.mair)
            );
            assert!(leaf.accessed() && leaf.not_global(), "{name} page {i}");
            these.push(leaf.pa);
        }
        let contiguous = w
            .pages
            .iter()
            .filter(|p| p.as_ref().is_ok_and(|l| l.contiguous()))
            .count();
        eprintln!("  {contiguous} of 16 pages with the contiguous bit");
        match spec.kind {
            source::Form::DevMemRam => {
                assert_eq!(these[0], hidden.start, "{name}");
                assert!(these.iter().all(|pa| hidden.contains(pa)), "{name}");
            }
            source::Form::PciBar | source::Form::PciBarWc => assert!(
                these
                    .iter()
                    .all(|pa| !ram.contains(pa) && !hidden.contains(pa)),
                "{name}: the BAR is outside RAM: {these:x?}"
            ),
            _ => assert!(
                these.iter().all(|pa| ram.contains(pa)),
                "{name}: {these:x?}"
            ),
        }
        assert!(
            run.console
                .contains(&format!("pause: source {name} released")),
            "{name}: the write at the release word's PA {:#x} did not release the twin:\n{}",
            w.release.pa,
            run.console
        );
        pas.insert(name, these);
    }
    for row in SOURCES
        .iter()
        .filter(|r| matches!(r.evidence, Evidence::PageTable { .. }))
    {
        assert!(
            walks
                .iter()
                .any(|w| source::by_name(&w.paused.source).map(|s| s.kind) == Some(row.kind)),
            "{} is marked as checked in a page table but was not walked",
            row.form
        );
    }
    // vgem's dumb buffer and its dma-buf: the same descriptor bits but the output address
    // (docs/twin-qemu.md: what makes the dma-buf slower under TCG is not its mapping).
    let attrs = |name: &str| -> Vec<u64> {
        let w = walks.iter().find(|w| w.paused.source == name).unwrap();
        w.pages
            .iter()
            .map(|p| p.as_ref().unwrap().descriptor & !0x0000_ffff_ffff_f000)
            .collect()
    };
    assert_eq!(attrs("drm-dumb:card0"), attrs("dma-buf:card0"));
    let bar = "pci:0000:00:01.0:res2";
    assert_eq!(
        pas[bar],
        pas[format!("{bar}_wc").as_str()],
        "one BAR, two mappings"
    );
    // Every pause was walked and released.
    assert!(
        !run.console.contains("not released within"),
        "{}",
        run.console
    );
}

/// `mairbench.hugepages=on` with 1 GiB of RAM (960 MiB for Linux: THP on, Debian's
/// `always`): anon is mapped 2 MiB-aligned and advised, PAGEMAP_SCAN finds every byte of it
/// on 2 MiB entries, smaps says the same, and each point's granule is "2M".
#[test]
fn hugepages_on_gives_the_twin_2m_entries_under_linux() {
    if !linux_fetched() {
        return;
    }
    let run = boot(
        &[("MAIRBENCH_BOOT", "linux"), ("MAIRBENCH_MEM", "1G")],
        &[
            "mairbench.sources=anon",
            "mairbench.kernels=latency,read-ldp",
            "mairbench.sizes=2M-4M",
            "mairbench.reps=1",
            "mairbench.hugepages=on",
        ],
    );
    eprintln!(
        "Linux boot, hugepages=on: {:.1} s wall",
        run.wall.as_secs_f64()
    );
    run.assert_pass();
    let s = run.one("source");
    assert_eq!(s["hugepages"], "on", "{s}");
    assert_eq!(s["thp"], "always", "{s}");
    assert_eq!(s["huge"], true, "{s}");
    assert_eq!(s["huge_bytes"], 4 << 20, "{s}");
    assert!(
        run.console.contains(
            "source anon: 4 MiB of 4 MiB on 2 MiB entries (PAGEMAP_SCAN of \
             /proc/self/pagemap); smaps: 4 MiB"
        ),
        "{}",
        run.console
    );
    let results = run.results();
    assert_eq!(results.len(), 4, "{}", run.console);
    for r in &results {
        assert_eq!(r["granule"], "2M", "{r}");
        assert_eq!(r["integrity"], "ok", "{r}");
    }
}

/// The twin's closing diagnosis against `anon` (core's `diagnosis`), and `cargo host report`'s
/// lead from the same log: under QEMU 10 the Device slow path shows, so the BAR mapped with
/// `pgprot_device` (`res2`) and `/dev/mem` RAM (`devmem-ram`) are named slow readers; the
/// sources Linux maps cached (udmabuf) or Normal-NC (`res2_wc`, vgem's dumb buffer) are not,
/// and the summary says that emulation cannot tell Normal-NC from write-back.
#[test]
fn the_twin_names_the_slow_readers_against_anon() {
    let Some(run) = twin_boot() else { return };
    let human: Vec<&str> = run
        .console
        .lines()
        .filter(|l| !l.contains("@mb {"))
        .collect();
    let at = human
        .iter()
        .position(|l| l.starts_with("diagnosis against anon ("))
        .unwrap_or_else(|| panic!("no diagnosis:\n{}", run.console));
    let finding = |name: &str| -> &str {
        let prefix = format!("  {name}: ");
        human[at..]
            .iter()
            .find_map(|l| l.trim_end_matches('\r').strip_prefix(prefix.as_str()))
            .unwrap_or_else(|| panic!("no diagnosis of {name}:\n{}", run.console))
    };
    // core's two findings of a slow reader, in its words.
    let slow_reader =
        |f: &str| f.contains("uncached read path") || f.contains("uncached both ways");
    for slow in ["pci:0000:00:01.0:res2", "devmem-ram"] {
        let f = finding(slow);
        assert!(f.starts_with("reads ") && slow_reader(f), "{slow}: {f}");
    }
    for cached in ["udmabuf", "pci:0000:00:01.0:res2_wc", "drm-dumb:card0"] {
        let f = finding(cached);
        assert!(!slow_reader(f), "{cached}: {f}");
    }
    assert!(
        human[at..]
            .iter()
            .any(|l| l.contains("(emulated: QEMU models no caches")),
        "{}",
        run.console
    );
    // The host's report of the same log leads with the same sentences.
    let parsed = mairbench_host::read::log::parse(run.console.as_bytes());
    let lead = mairbench_host::analyse::report::twin_diagnosis(&parsed.run);
    for name in ["pci:0000:00:01.0:res2", "devmem-ram", "udmabuf"] {
        let line = format!("  {name}: {}", finding(name));
        assert!(
            lead.contains(line.trim_end()),
            "{line:?} in the report's lead:\n{lead}"
        );
    }
}

/// The comparison the twin exists for, live: the firmware on the same QEMU machine (the
/// twin's bandwidth kernels and sizes), then `classify::compare` of the two logs. QEMU models
/// no caches, so this checks what the classifier makes of the one difference QEMU 9 and
/// later show (TCG's slow path for Device pages): the BAR mapped with `pgprot_device` lands
/// in the Device group, `resN_wc` and udmabuf in the Normal group, each labelled as Linux
/// documents, every row emulated (TCG: the runner's `mairbench.host=`). `anon`, what every
/// source is divided by, is the reference, not classified. QEMU before 9 times Device like
/// Normal: there every source gets confidence 0.
#[test]
fn the_twin_sources_classify_against_the_firmware() {
    let Some(twin) = twin_boot() else { return };
    let firmware = boot(
        &[],
        &[
            "mairbench.sizes=4K-64K",
            "mairbench.reps=3",
            "mairbench.kernels=read-ldp,write-stp,read-ldp-q,write-stp-q,read-ldnp,write-stnp,\
             copy-to,copy-from",
        ],
    );
    firmware.assert_pass();
    let parse = |text: &str| mairbench_host::read::log::parse(text.as_bytes()).run;
    let c = mairbench_host::analyse::classify::compare(
        &parse(&firmware.console),
        &parse(&twin.console),
    );
    let table = mairbench_host::analyse::classify::table(&c);
    eprintln!("{table}");
    assert!(c.emulated && c.tcg, "{table}");
    assert!(c.warning.is_none(), "one machine: {table}");
    assert!(c.points.len() >= 10, "{table}");
    let qemu_major: u32 = qemu_host()
        .trim_start_matches("qemu-")
        .split('.')
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap();
    let ivshmem = "pci:0000:00:01.0";
    let device = ["device-ngnrne", "device-ngnre", "device-ngre", "device-gre"];
    let reference = c.classification.reference.as_ref();
    assert_eq!(
        reference.map(|r| r.source.as_str()),
        Some("anon"),
        "{table}"
    );
    assert_eq!(reference.map(|r| r.points), Some(c.points.len()), "{table}");
    assert!(
        !c.classification.labels.iter().any(|l| l.source == "anon"),
        "the reference is not classified:\n{table}"
    );
    assert!(
        table.contains("\n  anon: the reference, not classified; "),
        "{table}"
    );
    for (source, label, in_device) in [
        ("udmabuf".to_string(), "normal-wb", false),
        (format!("{ivshmem}:res2"), "device-ngnre", true),
        (format!("{ivshmem}:res2_wc"), "normal-nc", false),
    ] {
        let l = c
            .classification
            .labels
            .iter()
            .find(|l| l.source == source)
            .unwrap_or_else(|| panic!("{source} not classified:\n{table}"));
        // Under TCG only the Device slow path separates types; among the Normal ones (and
        // among the Device ones) the nearest is the host's noise of the moment (res2_wc once
        // came out nearest normal-wb on a loaded machine): the label is checked to the side
        // of that line it must be on, the exact type a board's timings would give is the
        // `expected` column's.
        let side: &[&str] = if in_device {
            &device
        } else {
            &["normal-wb", "normal-wb-noalloc", "normal-wt", "normal-nc"]
        };
        assert!(
            l.label().is_some_and(|got| side.contains(&got)),
            "{source} (expected {label}): {:?}\n{table}",
            l.label()
        );
        let confidence = l.confidence().unwrap();
        if qemu_major >= 9 {
            assert_eq!(
                l.group.iter().any(|t| device.contains(&t.as_str())),
                in_device,
                "{source}'s group {:?}:\n{table}",
                l.group
            );
            // How far the nearest type stands from the next one is the host's noise under
            // TCG (udmabuf came out at 0.15 on a loaded machine): only that there is one.
            assert!(confidence > 0.0, "{source}: {confidence}\n{table}");
        } else {
            assert_eq!(confidence, 0.0, "{source}:\n{table}");
        }
    }
    assert!(
        c.refused.iter().any(|s| s.name == "devmem:0x40000000+64K"),
        "refused sources are listed, not classified:\n{table}"
    );
}

/// Builds `name.deb` in `dir` holding `files` (path, contents) with dpkg-deb.
fn synthetic_deb(dir: &std::path::Path, name: &str, files: &[(&str, Vec<u8>)]) {
    let tree = dir.join(format!("{name}.tree"));
    std::fs::create_dir_all(tree.join("DEBIAN")).unwrap();
    std::fs::write(
        tree.join("DEBIAN/control"),
        format!(
            "Package: {name}\nVersion: 1\nArchitecture: arm64\nMaintainer: t <t@t>\n\
             Description: test\n"
        ),
    )
    .unwrap();
    for (path, data) in files {
        let at = tree.join(path);
        std::fs::create_dir_all(at.parent().unwrap()).unwrap();
        std::fs::write(at, data).unwrap();
    }
    let status = Command::new("dpkg-deb")
        .args(["--root-owner-group", "-Zgzip", "--build"])
        .arg(&tree)
        .arg(dir.join(format!("{name}.deb")))
        .stdout(Stdio::null())
        .status()
        .expect("dpkg-deb runs");
    assert!(status.success());
    std::fs::remove_dir_all(tree).unwrap();
}

/// A module file as the kernel packages have it: xz-compressed, with a `.modinfo`-like
/// `depends=` string among NUL-separated ones.
fn ko_xz(depends: &str) -> Vec<u8> {
    let raw = format!("\x7fELF junk\0license=GPL\0depends={depends}\0vermagic=7.0\0");
    let mut xz = Command::new("xz")
        .args(["-c", "--format=xz"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("xz runs");
    use std::io::Write;
    xz.stdin.take().unwrap().write_all(raw.as_bytes()).unwrap();
    xz.wait_with_output().unwrap().stdout
}

/// `qemu/unpack-linux` on synthetic packages of both of Debian's layouts (no download):
/// up to 6.x one linux-image with /boot/vmlinuz-*, /boot/config-* and /lib/modules; 7.x
/// vmlinuz in linux-binary-*, the config in linux-base-*, modules under /usr/lib/modules.
/// vgem's dependencies come from each module's `depends=`, in load order; a missing one is
/// named.
#[test]
fn deps_unpacks_both_kernel_layouts_with_the_vgem_modules() {
    for tool in ["dpkg-deb", "xz"] {
        if Command::new(tool).arg("--version").output().is_err() {
            common::missing_dependency(tool, "not installed");
            return;
        }
    }
    let modules = |base: &str, skip: &str| -> Vec<(String, Vec<u8>)> {
        [
            ("drm", ""),
            ("drm_kms_helper", "drm"),
            ("drm_shmem_helper", "drm,drm_kms_helper"),
            ("vgem/vgem", "drm,drm_shmem_helper"),
        ]
        .into_iter()
        .filter(|(m, _)| !m.ends_with(skip) || skip.is_empty())
        .map(|(m, d)| (format!("{base}/kernel/drivers/gpu/drm/{m}.ko.xz"), ko_xz(d)))
        .collect()
    };
    let busybox = ("bin/busybox", b"busybox".to_vec());
    for (layout, skip) in [("6.x", ""), ("7.x", ""), ("7.x", "drm_kms_helper")] {
        let dir = common::dtb::tmp(&format!("deps-{layout}-{skip}"));
        let _ = std::fs::remove_dir_all(&dir);
        let debs = dir.join("debs");
        std::fs::create_dir_all(&debs).unwrap();
        synthetic_deb(&debs, "busybox-static", &[(busybox.0, busybox.1.clone())]);
        if layout == "6.x" {
            let mut files = vec![
                ("boot/vmlinuz-6.12.0-arm64".to_string(), b"kernel".to_vec()),
                (
                    "boot/config-6.12.0-arm64".to_string(),
                    b"CONFIG_UDMABUF=y\n".to_vec(),
                ),
            ];
            files.extend(modules("lib/modules/6.12.0-arm64", skip));
            let files: Vec<(&str, Vec<u8>)> =
                files.iter().map(|(p, d)| (p.as_str(), d.clone())).collect();
            synthetic_deb(&debs, "linux-image-6.12.0-arm64", &files);
        } else {
            let v = "usr/lib/modules/7.0.0-arm64";
            synthetic_deb(
                &debs,
                "linux-binary-7.0.0-arm64",
                &[(&format!("{v}/vmlinuz"), b"kernel".to_vec())],
            );
            synthetic_deb(
                &debs,
                "linux-base-7.0.0-arm64",
                &[(&format!("{v}/config"), b"CONFIG_UDMABUF=y\n".to_vec())],
            );
            let files = modules(v, skip);
            let files: Vec<(&str, Vec<u8>)> =
                files.iter().map(|(p, d)| (p.as_str(), d.clone())).collect();
            synthetic_deb(&debs, "linux-modules-7.0.0-arm64", &files);
        }
        let out_dir = dir.join("linux");
        let out = Command::new(root().join("qemu/unpack-linux"))
            .arg(&debs)
            .env("MAIRBENCH_LINUX_DIR", &out_dir)
            .stdin(Stdio::null())
            .output()
            .expect("qemu/unpack-linux runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !skip.is_empty() {
            assert!(!out.status.success(), "{layout}: {stderr}");
            assert!(
                stderr.contains("no module drm_kms_helper (needed by drm_shmem_helper)"),
                "{stderr}"
            );
            assert!(!out_dir.join("modules/order").exists());
            continue;
        }
        assert!(out.status.success(), "{layout}: {stderr}");
        assert_eq!(std::fs::read(out_dir.join("vmlinuz")).unwrap(), b"kernel");
        assert_eq!(
            std::fs::read(out_dir.join("config")).unwrap(),
            b"CONFIG_UDMABUF=y\n"
        );
        assert_eq!(std::fs::read(out_dir.join("busybox")).unwrap(), b"busybox");
        let order = std::fs::read_to_string(out_dir.join("modules/order")).unwrap();
        assert_eq!(
            order, "drm.ko\ndrm_kms_helper.ko\ndrm_shmem_helper.ko\nvgem.ko\n",
            "{layout}"
        );
        // Unpacked from .ko.xz: what the module file held, uncompressed.
        for m in order.lines() {
            let raw = std::fs::read(out_dir.join("modules").join(m)).unwrap();
            assert!(raw.starts_with(b"\x7fELF"), "{layout}: {m}");
            assert!(raw.windows(8).any(|w| w == b"depends="), "{layout}: {m}");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
