//! Console discovery over every board DTB of Debian's Linux kernel packages: arm64's
//! (`linux-image-*-arm64`) and armhf's (`linux-image-*-armmp`).
//!
//! `qemu/dtbs` (which `test.sh` runs first) puts them under `all/<vendor>/` and
//! `all-armhf/` of its cache directory and writes their number to each one's `COUNT`. The
//! tests only read them (no test downloads anything): when they are missing the tests skip,
//! saying so, except under `CI=true`, where they fail. Each census asserts that discovery
//! never panics, that at least 90 % of the boards get a console mairbench drives, and that
//! each such console's registers lie in the 4 KiB page from its base that the firmware
//! maps; it prints the count, the count per driver family and the boards left without one.

mod common;

use std::path::{Path, PathBuf};

use mairbench_core::platform::{discover, ConsoleInfo, ConsoleKind, Problem};

/// Every `.dtb` under `dir`, at any depth (arm64's are by vendor, armhf's flat), sorted.
fn board_dtbs(dir: &Path) -> Vec<PathBuf> {
    fn walk(dir: &Path, out: &mut Vec<PathBuf>) {
        let entries = std::fs::read_dir(dir)
            .unwrap_or_else(|e| panic!("{}: {e}: no board DTBs (run qemu/dtbs)", dir.display()));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "dtb") {
                out.push(path);
            }
        }
    }
    let mut dtbs = Vec::new();
    walk(dir, &mut dtbs);
    dtbs.sort();
    dtbs
}

/// The census of the board DTBs under `all` (`package` names them in what it prints):
/// asserts what the module says.
fn census(all: &Path, package: &str) {
    let count: usize = std::fs::read_to_string(all.join("COUNT"))
        .unwrap_or_else(|e| panic!("{}/COUNT: {e} (run qemu/dtbs)", all.display()))
        .trim()
        .parse()
        .expect("COUNT holds a number");
    let dtbs = board_dtbs(all);
    assert_eq!(
        dtbs.len(),
        count,
        "{}/COUNT disagrees with the DTBs found",
        all.display()
    );
    assert!(count > 500, "only {count} board DTBs");

    let mut driven = 0;
    let mut fallback = 0;
    let mut panics = Vec::new();
    let mut rest = Vec::new();
    let mut families = std::collections::BTreeMap::<&str, usize>::new();
    for path in &dtbs {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let blob = std::fs::read(path).expect("a readable DTB");
        let Ok(p) = std::panic::catch_unwind(|| discover(Some(&blob))) else {
            panics.push(name);
            continue;
        };
        assert!(p.dtb_ok, "{name}: the DTB is rejected");
        if !p.console_from_dtb {
            assert!(p.problems.contains(Problem::NoConsole), "{name}");
            rest.push(name);
            continue;
        }
        driven += 1;
        if p.problems.contains(Problem::ConsoleFromAlias)
            || p.problems.contains(Problem::ConsoleFirstUart)
        {
            fallback += 1;
        }
        *families.entry(p.console.kind.name()).or_default() += 1;
        let offset_in_page = p.console.base % 4096;
        assert!(
            offset_in_page + p.console.kind.register_span() <= 4096,
            "{name}: {:?} at {:#x}: registers cross the page boundary",
            p.console.kind,
            p.console.base
        );
    }
    println!(
        "census ({package}): {driven} of {count} board DTBs get a console mairbench drives \
         ({:.1} %; {fallback} of them without a usable stdout-path)",
        100.0 * driven as f64 / count as f64
    );
    println!("census ({package}): by family: {families:?}");
    println!(
        "census ({package}): without a console ({}): {}",
        rest.len(),
        rest.join(" ")
    );
    assert!(panics.is_empty(), "discovery panicked on {panics:?}");
    assert!(
        driven * 10 >= count * 9,
        "only {driven} of {count} boards get a console (90 % needed); without: {rest:?}"
    );
}

#[test]
fn at_least_90_percent_of_linux_arm64_boards_get_a_console() {
    if let Some(all) = package_dir("all", "arm64") {
        census(&all, "arm64");
    }
}

/// The 898 board DTBs of Debian 12's `linux-image-6.1.0-50-armmp` (6.1.176-1). Before the
/// TI OMAP/AM335x/DRA7 and Marvell PXA/MMP/Armada 38x 16550s and the Samsung Exynos and
/// STM32MP1 drivers, 672 of them (74.8 %) got a console mairbench drives; with them 881
/// (98.1 %; the STM32 count includes three Cortex-M7 STM32H7 boards, which share the
/// STM32MP1's UART). The 17 left: six Cortex-M STM32F4/F7 boards, five VIA/WonderMedia
/// (`via,vt8500-uart`), four trees whose UARTs are all disabled, `vexpress-v2p-ca5s` (its
/// PL011s' addresses do not translate) and `xenvm-4.2`, which names no UART.
#[test]
fn at_least_90_percent_of_linux_armhf_boards_get_a_console() {
    if let Some(all) = armhf_dir() {
        census(&all, "armhf");
    }
}

/// The armhf board DTBs' directory ([`package_dir`]).
fn armhf_dir() -> Option<PathBuf> {
    package_dir("all-armhf", "armhf")
}

/// The directory `name` of the DTB cache that holds the board DTBs of Debian's `arch` kernel
/// package; `None`, after saying so, when they are missing (a failure instead under
/// `CI=true`).
fn package_dir(name: &str, arch: &str) -> Option<PathBuf> {
    let all = common::dtb_dir().join(name);
    if all.join("COUNT").exists() {
        return Some(all);
    }
    let ci = std::env::var("CI").ok();
    assert!(
        ci.as_deref() != Some("true"),
        "CI=true and {} is missing: qemu/dtbs (test.sh runs it) downloads Debian's {arch} \
         kernel package's board DTBs; CI does not skip",
        all.display()
    );
    eprintln!(
        "SKIPPED: {} is missing; run qemu/dtbs (test.sh does) to download Debian's {arch} \
         kernel package's board DTBs",
        all.display()
    );
    None
}

/// The console each of these boards' `stdout-path` names, with its driver: the base is
/// the UART's `reg` translated through the `ranges` of its buses (for the TI trees,
/// their `target-module` wrappers), as `dtc -I dtb -O dts` shows it.
#[test]
fn armhf_boards_get_their_stdout_path_console() {
    let Some(all) = armhf_dir() else { return };
    let omap = ConsoleKind::Ns16550 {
        reg_shift: 2,
        io_width: 1,
    };
    for (dtb, kind, base) in [
        // BeagleBone Black: AM335x UART0.
        ("am335x-boneblack.dtb", omap, 0x44e0_9000),
        // PandaBoard ES: OMAP4 UART3.
        ("omap4-panda-es.dtb", omap, 0x4802_0000),
        // BeagleBoard-X15: AM572x UART3.
        ("am57xx-beagle-x15.dtb", omap, 0x4802_0000),
        // ODROID-U3: Exynos 4412 UART1.
        ("exynos4412-odroidu3.dtb", ConsoleKind::Samsung, 0x1381_0000),
        // STM32MP157C-DK2: UART4.
        ("stm32mp157c-dk2.dtb", ConsoleKind::Stm32, 0x4001_0000),
    ] {
        let blob = std::fs::read(all.join(dtb)).unwrap_or_else(|e| panic!("{dtb}: {e}"));
        let p = discover(Some(&blob));
        assert!(p.console_from_dtb, "{dtb}");
        assert_eq!(p.console, ConsoleInfo { kind, base }, "{dtb}");
        assert!(!p.problems.contains(Problem::ConsoleFromAlias), "{dtb}");
        assert!(!p.problems.contains(Problem::ConsoleFirstUart), "{dtb}");
    }
}

/// The L2C-310 each of these boards' trees names (`arm,pl310-cache`, its `reg` translated),
/// and none where the SoC has no such outer cache; how many of the package's trees name one.
#[test]
fn armhf_boards_name_their_outer_cache() {
    let Some(all) = armhf_dir() else { return };
    for (dtb, pl310) in [
        // i.MX6Q (Cortex-A9): the L2C-310 beside the SCU.
        ("imx6q-sabrelite.dtb", Some(0x00a0_2000)),
        // OMAP4430 (Cortex-A9).
        ("omap4-panda-es.dtb", Some(0x4824_2000)),
        // i.MX6UL (one Cortex-A7, the public report's shape) and STM32MP157 (two
        // Cortex-A7): an L2 inside the cluster, no outer cache controller.
        ("imx6ul-14x14-evk.dtb", None),
        ("stm32mp157c-dk2.dtb", None),
    ] {
        let blob = std::fs::read(all.join(dtb)).unwrap_or_else(|e| panic!("{dtb}: {e}"));
        assert_eq!(mairbench_core::platform::pl310(&blob), pl310, "{dtb}");
    }
    let dtbs = board_dtbs(&all);
    let with = dtbs
        .iter()
        .filter(|d| mairbench_core::platform::pl310(&std::fs::read(d).unwrap()).is_some())
        .count();
    println!("armhf: {with} of {} board DTBs name an L2C-310", dtbs.len());
    assert!(with > 0 && with < dtbs.len(), "{with} of {}", dtbs.len());
}

/// The SoC timer each of these boards' trees names for a core without the generic timer (the
/// i.MX6's GPT, the Allwinner A10's timer), and none on the others; how many of the package's
/// trees name one.
#[test]
fn armhf_boards_name_their_soc_timer() {
    use mairbench_core::platform::{soc_timer, SocTimerKind};
    let Some(all) = armhf_dir() else { return };
    for (dtb, timer) in [
        // i.MX6Q and i.MX6DL (Cortex-A9): GPT1.
        (
            "imx6q-sabrelite.dtb",
            Some((0x0209_8000, SocTimerKind::ImxGptOsc8)),
        ),
        (
            "imx6dl-sabrelite.dtb",
            Some((0x0209_8000, SocTimerKind::ImxGptOsc8)),
        ),
        // The i.MX6UL's GPT is compatible with the i.MX6SX's (the image uses it only on a
        // core without the generic timer, which the i.MX6UL's Cortex-A7 is not).
        (
            "imx6ul-14x14-evk.dtb",
            Some((0x0209_8000, SocTimerKind::ImxGptOsc8)),
        ),
        // The Cubieboard's Allwinner A10 (Cortex-A8): its timer block.
        (
            "sun4i-a10-cubieboard.dtb",
            Some((0x01c2_0c00, SocTimerKind::Sun4iTimer1Osc24)),
        ),
        // The STM32MP157: none known.
        ("stm32mp157c-dk2.dtb", None),
    ] {
        let blob = std::fs::read(all.join(dtb)).unwrap_or_else(|e| panic!("{dtb}: {e}"));
        assert_eq!(soc_timer(&blob), timer, "{dtb}");
    }
    let dtbs = board_dtbs(&all);
    let with = dtbs
        .iter()
        .filter(|d| soc_timer(&std::fs::read(d).unwrap()).is_some())
        .count();
    println!(
        "armhf: {with} of {} board DTBs name a SoC timer the image knows",
        dtbs.len()
    );
    assert!(with > 0 && with < dtbs.len(), "{with} of {}", dtbs.len());
}
