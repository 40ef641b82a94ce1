//! What a test needs from the system, from the table the installer reads (`qemu/packages`):
//! the tests install nothing. `./test.sh` installs every group once, before any test; a test
//! whose group is missing names the packages and skips, except under `CI=true`, where it fails
//! ([`super::missing_dependency`]).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The installer's table: group, presence, package (and what for, which is not read here).
const PACKAGES: &str = include_str!("../../../qemu/packages");

/// The rows of `group`: (presence, package).
fn rows(group: &str) -> Vec<(&'static str, &'static str)> {
    let rows: Vec<_> = PACKAGES
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            Some((f.next()?, f.next()?, f.next()?))
        })
        .filter(|(g, _, _)| *g == group)
        .map(|(_, presence, package)| (presence, package))
        .collect();
    assert!(!rows.is_empty(), "qemu/packages has no group {group}");
    rows
}

/// Whether one presence of the table holds (`cmd:`, `file:` with `|` between alternatives,
/// `py:`), as the installer judges it.
fn present(presence: &str) -> bool {
    if let Some(cmd) = presence.strip_prefix("cmd:") {
        let path = std::env::var("PATH").unwrap_or_default();
        return path
            .split(':')
            .chain(["/usr/sbin", "/sbin"])
            .any(|dir| Path::new(dir).join(cmd).is_file());
    }
    if let Some(files) = presence.strip_prefix("file:") {
        return files.split('|').any(|f| Path::new(f).exists());
    }
    if let Some(module) = presence.strip_prefix("py:") {
        return Command::new("/usr/bin/python3")
            .args(["-c", &format!("import {module}")])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
    }
    panic!("qemu/packages: unknown presence {presence}");
}

/// The packages of `group` that are missing, each once.
pub fn missing(group: &str) -> Vec<&'static str> {
    let mut packages: Vec<&str> = Vec::new();
    for (presence, package) in rows(group) {
        if !present(presence) && !packages.contains(&package) {
            packages.push(package);
        }
    }
    packages
}

/// Whether everything of `group` is there; when not, says so through
/// [`super::missing_dependency`] (a skip, or under `CI=true` a failure).
pub fn need(group: &str) -> bool {
    let packages = missing(group);
    if !packages.is_empty() {
        super::missing_dependency(
            &format!("{} (qemu/packages, group {group})", packages.join(", ")),
            "not installed: ./test.sh installs every package the tests use before they start",
        );
    }
    packages.is_empty()
}

/// A cache directory the installer fills: `$var`, else `$XDG_CACHE_HOME/mairbench/name`, else
/// `~/.cache/mairbench/name`.
pub fn cache(var: &str, name: &str) -> PathBuf {
    if let Some(dir) = std::env::var_os(var) {
        return dir.into();
    }
    let base = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache")
        });
    base.join("mairbench").join(name)
}

/// Whether Debian's arm64 kernel, its config, busybox and the modules' order are in the Linux
/// boot's cache (the installer fetches them); when not, says so as [`need`] does.
pub fn need_linux() -> bool {
    need_kernel(&linux_dir("arm64"), "arm64")
}

/// The same for Debian's armhf LPAE kernel, the 32-bit twin's.
pub fn need_linux_armhf() -> bool {
    need_kernel(&linux_dir("armhf"), "armhf")
}

/// The Linux boot's cache of Debian's `arch` kernel (arm64 or armhf), where the installer puts it.
pub fn linux_dir(arch: &str) -> PathBuf {
    match arch {
        "arm64" => cache("MAIRBENCH_LINUX_DIR", "linux"),
        _ => cache("MAIRBENCH_LINUX_ARMHF_DIR", "linux-armhf"),
    }
}

fn need_kernel(dir: &std::path::Path, arch: &str) -> bool {
    let absent: Vec<&str> = ["vmlinuz", "config", "busybox", "modules/order"]
        .into_iter()
        .filter(|f| std::fs::metadata(dir.join(f)).map_or(true, |m| m.len() == 0))
        .collect();
    if !absent.is_empty() {
        super::missing_dependency(
            &format!("Debian's {arch} kernel and busybox-static for MAIRBENCH_BOOT=linux"),
            &format!(
                "{} missing in {}: ./test.sh fetches them before the tests start",
                absent.join(", "),
                dir.display()
            ),
        );
    }
    absent.is_empty()
}

/// Debian's `lava-run`, unpacked with its Python packages by the installer, which ./test.sh
/// runs before the tests; None, said as [`need`] does, when it is not there.
pub fn lava_run() -> Option<PathBuf> {
    if !need("lava") {
        return None;
    }
    let run = cache("MAIRBENCH_LAVA_DIR", "lava").join("lava-run");
    let starts = Command::new(&run)
        .arg("--help")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !starts {
        super::missing_dependency(
            "Debian's lava-dispatcher, unpacked",
            &format!(
                "{} does not start: ./test.sh unpacks it before the tests start",
                run.display()
            ),
        );
        return None;
    }
    Some(run)
}
