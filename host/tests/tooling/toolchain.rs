//! `qemu/toolchain` (the Rust target and components the build needs) and `./run.sh`, with a
//! fake `rustup` first on PATH, plus one run against the real toolchain.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A directory holding a fake `rustup` (and a log of the changes it was asked for), removed
/// when dropped.
struct FakeRustup(PathBuf);

/// What the fake has installed, and whether adding works.
struct Installed<'a> {
    toolchain: bool,
    targets: &'a [&'a str],
    components: &'a [&'a str],
    add_works: bool,
}

const ALL: Installed = Installed {
    toolchain: true,
    targets: &["x86_64-unknown-linux-gnu", "aarch64-unknown-none"],
    components: &["cargo", "clippy", "llvm-tools", "rustc", "rustfmt"],
    add_works: true,
};

impl FakeRustup {
    fn new(name: &str, have: &Installed) -> FakeRustup {
        use std::os::unix::fs::PermissionsExt;
        let dir =
            std::env::temp_dir().join(format!("mairbench-toolchain-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let host = "x86_64-unknown-linux-gnu";
        let components: Vec<String> = have
            .components
            .iter()
            .map(|c| format!("{c}-{host}"))
            .collect();
        let d = dir.display();
        if have.toolchain {
            std::fs::write(dir.join("installed"), "").unwrap();
        }
        let script = format!(
            r#"#!/usr/bin/env bash
echo "$*" >>'{d}/calls'
case "$*" in
    "show active-toolchain")
        [[ -e '{d}/installed' ]] || exit 1
        echo "stable-{host} (overridden by '/somewhere/rust-toolchain.toml')" ;;
    "toolchain install"*) {install} ;;
    "target list --installed") printf '%s\n' {targets} ;;
    "component list --installed") printf '%s\n' {components} ;;
    "target add "* | "component add "*) {add} ;;
    *) echo "fake rustup: unexpected $*" >&2; exit 9 ;;
esac
"#,
            install = if have.add_works {
                format!("touch '{d}/installed'")
            } else {
                "exit 1".into()
            },
            targets = have.targets.join(" "),
            components = components.join(" "),
            add = if have.add_works {
                "echo 'info: fake download' >&2"
            } else {
                "echo 'error: fake failure' >&2; exit 1"
            },
        );
        let path = dir.join("rustup");
        std::fs::write(&path, script).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        FakeRustup(dir)
    }

    /// The rustup commands that were run, one per line.
    fn calls(&self) -> String {
        std::fs::read_to_string(self.0.join("calls")).unwrap_or_default()
    }

    /// The commands that would have changed the toolchain.
    fn changes(&self) -> Vec<String> {
        self.calls()
            .lines()
            .filter(|l| l.contains(" add ") || l.starts_with("toolchain install"))
            .map(str::to_owned)
            .collect()
    }
}

impl Drop for FakeRustup {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

struct Out {
    status: i32,
    stdout: String,
    stderr: String,
}

fn run(script: &str, fake: Option<&FakeRustup>) -> Out {
    run_with(script, &[], fake)
}

fn run_with(script: &str, args: &[&str], fake: Option<&FakeRustup>) -> Out {
    let mut cmd = Command::new(root().join(script));
    cmd.args(args);
    cmd.stdin(Stdio::null());
    if let Some(fake) = fake {
        let path = std::env::var("PATH").unwrap_or_default();
        cmd.env("PATH", format!("{}:{path}", fake.0.display()));
    }
    let out = cmd.output().expect("the script starts");
    Out {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn with_the_real_toolchain_it_is_quiet_and_quick() {
    // The test command runs qemu/toolchain first, so everything is there by now.
    let started = Instant::now();
    let out = run("qemu/toolchain", None);
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert_eq!(out.stderr, "");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn nothing_is_added_when_everything_is_there() {
    let fake = FakeRustup::new("all", &ALL);
    let out = run("qemu/toolchain", Some(&fake));
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert_eq!(out.stderr, "");
    assert!(fake.changes().is_empty(), "{}", fake.calls());
}

#[test]
fn a_target_named_is_added_when_missing() {
    // ./test.sh names armv7-unknown-linux-gnueabihf, the 32-bit image's and twin's target.
    let fake = FakeRustup::new("extra", &ALL);
    let out = run_with(
        "qemu/toolchain",
        &["armv7-unknown-linux-gnueabihf"],
        Some(&fake),
    );
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert_eq!(fake.changes(), ["target add armv7-unknown-linux-gnueabihf"]);
    assert!(
        out.stderr
            .contains("adding the armv7-unknown-linux-gnueabihf target"),
        "{}",
        out.stderr
    );
}

#[test]
fn a_missing_target_and_components_are_added() {
    let fake = FakeRustup::new(
        "missing",
        &Installed {
            targets: &["x86_64-unknown-linux-gnu"],
            components: &["cargo", "rustc", "rustfmt"],
            ..ALL
        },
    );
    let out = run("qemu/toolchain", Some(&fake));
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert_eq!(out.stdout, "");
    assert_eq!(
        fake.changes(),
        [
            "target add aarch64-unknown-none",
            "component add clippy llvm-tools"
        ]
    );
    assert!(
        out.stderr
            .contains("adding the aarch64-unknown-none target to stable-x86_64-unknown-linux-gnu"),
        "{}",
        out.stderr
    );
}

#[test]
fn llvm_tools_preview_counts_as_llvm_tools() {
    let fake = FakeRustup::new(
        "preview",
        &Installed {
            components: &["cargo", "clippy", "llvm-tools-preview", "rustc", "rustfmt"],
            ..ALL
        },
    );
    let out = run("qemu/toolchain", Some(&fake));
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert!(fake.changes().is_empty(), "{}", fake.calls());
}

#[test]
fn a_toolchain_that_is_not_installed_is_installed_first() {
    let fake = FakeRustup::new(
        "absent",
        &Installed {
            toolchain: false,
            ..ALL
        },
    );
    let out = run("qemu/toolchain", Some(&fake));
    assert_eq!(out.status, 0, "{}", out.stderr);
    assert_eq!(
        fake.changes(),
        ["toolchain install --no-self-update"],
        "{}",
        fake.calls()
    );
}

#[test]
fn when_the_target_cannot_be_added_one_sentence_says_what_to_do() {
    let fake = FakeRustup::new(
        "fails",
        &Installed {
            targets: &["x86_64-unknown-linux-gnu"],
            add_works: false,
            ..ALL
        },
    );
    let out = run("qemu/toolchain", Some(&fake));
    assert_eq!(out.status, 1, "{}", out.stderr);
    let said = out.stderr.lines().last().unwrap_or_default();
    assert!(
        said.starts_with(
            "mairbench: `rustup target add aarch64-unknown-none` failed for toolchain \
             stable-x86_64-unknown-linux-gnu;"
        ),
        "{}",
        out.stderr
    );
    assert!(said.contains("RUSTUP_TOOLCHAIN=nightly ./run.sh"), "{said}");

    // ./run.sh stops there, with the runner's status for a missing tool, before cargo runs.
    let out = run("run.sh", Some(&fake));
    assert_eq!(out.status, 3, "{}", out.stderr);
    assert!(out.stderr.contains("target add"), "{}", out.stderr);
    assert!(!out.stderr.contains("Compiling"), "{}", out.stderr);
}

/// `MAIRBENCH_ARCH=armv7 ./run.sh` adds the 32-bit target (and stops with status 3, before
/// cargo runs, when it cannot); another value is refused with status 2 before anything runs.
#[test]
fn run_sh_adds_the_target_mairbench_arch_names() {
    let fake = FakeRustup::new(
        "armv7",
        &Installed {
            add_works: false,
            ..ALL
        },
    );
    let run_sh = |arch: &str| {
        let path = std::env::var("PATH").unwrap_or_default();
        let out = Command::new(root().join("run.sh"))
            .env("PATH", format!("{}:{path}", fake.0.display()))
            .env("MAIRBENCH_ARCH", arch)
            .stdin(Stdio::null())
            .output()
            .expect("run.sh starts");
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        (out.status.code().unwrap_or(-1), stderr)
    };
    let (status, stderr) = run_sh("armv7");
    assert_eq!(status, 3, "{stderr}");
    assert!(
        stderr.contains("`rustup target add armv7-unknown-linux-gnueabihf` failed"),
        "{stderr}"
    );
    assert!(!stderr.contains("Compiling"), "{stderr}");
    assert_eq!(fake.changes(), ["target add armv7-unknown-linux-gnueabihf"]);
    let (status, stderr) = run_sh("riscv64");
    assert_eq!(status, 2, "{stderr}");
    assert_eq!(
        stderr,
        "mairbench: MAIRBENCH_ARCH must be aarch64 or armv7, not 'riscv64'\n"
    );
    assert_eq!(fake.changes().len(), 1, "{}", fake.calls());
}
