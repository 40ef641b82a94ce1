//! Console discovery over every board DTB of Debian's arm64 Linux package.
//!
//! `qemu/dtbs` (which `test.sh` runs first) puts them under `all/<vendor>/` of its
//! cache directory and writes their number to `all/COUNT`; this test runs it when they
//! are missing and fails, saying so, when it cannot get them. It asserts that discovery
//! never panics, that at least 90 % of the boards get a console mairbench drives, and
//! that each such console's registers lie in the 4 KiB page from its base that the
//! firmware maps; it prints the count and the boards left without one.

use std::path::{Path, PathBuf};
use std::process::Command;

use mairbench_core::platform::{discover, Problem};

/// The cache directory `qemu/dtbs` prints (fetching the DTBs if needed).
fn dtb_dir() -> PathBuf {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../qemu/dtbs");
    let out = Command::new(&script)
        .output()
        .unwrap_or_else(|e| panic!("{}: {e}: cannot run it to get the DTBs", script.display()));
    assert!(
        out.status.success(),
        "{} failed ({}): {}",
        script.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&out.stdout).trim())
}

fn board_dtbs(all: &Path) -> Vec<PathBuf> {
    let mut dtbs = Vec::new();
    let vendors = std::fs::read_dir(all)
        .unwrap_or_else(|e| panic!("{}: {e}: no board DTBs (run qemu/dtbs)", all.display()));
    for vendor in vendors {
        let vendor = vendor.expect("a directory entry").path();
        if !vendor.is_dir() {
            continue;
        }
        for dtb in std::fs::read_dir(&vendor).expect("a vendor directory") {
            let dtb = dtb.expect("a directory entry").path();
            if dtb.extension().is_some_and(|e| e == "dtb") {
                dtbs.push(dtb);
            }
        }
    }
    dtbs.sort();
    dtbs
}

#[test]
fn at_least_90_percent_of_linux_arm64_boards_get_a_console() {
    let all = dtb_dir().join("all");
    let count: usize = std::fs::read_to_string(all.join("COUNT"))
        .unwrap_or_else(|e| panic!("{}/COUNT: {e} (run qemu/dtbs)", all.display()))
        .trim()
        .parse()
        .expect("COUNT holds a number");
    let dtbs = board_dtbs(&all);
    assert_eq!(dtbs.len(), count, "all/COUNT disagrees with the DTBs found");
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
        "census: {driven} of {count} board DTBs get a console mairbench drives \
         ({:.1} %; {fallback} of them without a usable stdout-path)",
        100.0 * driven as f64 / count as f64
    );
    println!("census: by family: {families:?}");
    println!(
        "census: without a console ({}): {}",
        rest.len(),
        rest.join(" ")
    );
    assert!(panics.is_empty(), "discovery panicked on {panics:?}");
    assert!(
        driven * 10 >= count * 9,
        "only {driven} of {count} boards get a console (90 % needed); without: {rest:?}"
    );
}
