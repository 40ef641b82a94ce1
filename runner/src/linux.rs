//! The Linux boot: Debian's kernel for the image's architecture (`qemu/deps linux`: arm64;
//! `qemu/deps linux-armhf`: armhf LPAE) with an initramfs of busybox, `/init` (`init.sh`) and
//! the twin, whose arguments are the bootargs.

use crate::arch::Arch;
use crate::config::Config;
use crate::disk::arg;
use crate::sys::{bad, tool_failed, Fail, Sys};
use std::collections::BTreeMap;
use std::io::Write as _;
use std::path::{Path, PathBuf};

/// The initramfs's `/init` (busybox sh): mounts proc, sys and devtmpfs, loads the modules in
/// /lib/modules/mairbench (their order file), enables the ivshmem device's memory decoding,
/// prints what the twin relies on, runs the twin and powers off.
pub const INIT: &str = include_str!("init.sh");

/// What the Linux boot needs beyond the settings.
#[derive(Debug, Clone)]
pub struct Linux {
    /// The twin executable, or `None` for the smoke check.
    pub twin: Option<PathBuf>,
    /// Where the kernel, busybox and modules are cached.
    pub dir: PathBuf,
}

/// The kernel's command line: the console, and the top 64 MiB of RAM (virt's RAM starts at
/// 0x40000000) hidden from Linux for the twin's devmem-ram source when `mem` is at least
/// 256 MiB (`None` otherwise).
pub fn kernel_args(mem: &str) -> (String, bool) {
    let mut args = String::from("console=ttyAMA0 quiet panic=-1 rdinit=/init");
    let mib = mem
        .strip_suffix('M')
        .and_then(|m| m.parse::<u64>().ok())
        .or_else(|| {
            mem.strip_suffix('G')
                .and_then(|g| g.parse::<u64>().ok())
                .map(|g| g * 1024)
        });
    match mib.filter(|m| *m >= 256) {
        Some(mib) => {
            let at = 0x4000_0000 + (mib - 64) * 1_048_576;
            args.push_str(&format!(
                " mem={}M mairbench.devmem-ram={at:#x}+64M",
                mib - 64
            ));
            (args, true)
        }
        None => (args, false),
    }
}

/// The twin: MAIRBENCH_TWIN, else the image itself when it is a `mairbench-linux`, else the
/// `mairbench-linux` beside it (built first for the image's target when the image is this
/// workspace's release firmware, so that `cargo run` never boots a stale one), else none.
/// The kernel's cache: the architecture's setting ([`Arch::linux_dir`]), else its directory
/// ([`Arch::linux`]) in the user's cache.
pub fn settings(c: &Config, elf: &Path, root: &Path) -> Result<Linux, Fail> {
    let dir = match c.env.get(c.arch.linux_dir()) {
        Some(d) => PathBuf::from(d),
        None => std::env::var_os("XDG_CACHE_HOME")
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| {
                PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache")
            })
            .join("mairbench")
            .join(c.arch.linux()),
    };
    let beside = elf.parent().unwrap_or(Path::new("."));
    let twin = match c.env.get("MAIRBENCH_TWIN") {
        Some("none") => None,
        Some(twin) => Some(PathBuf::from(twin)),
        None => {
            let release = root.join("target").join(c.arch.target()).join("release");
            if same_dir(beside, &release) {
                let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
                let ok = std::process::Command::new(cargo)
                    .args(["build", "--release", "-q", "-p", "mairbench-linux"])
                    .args(["--target", c.arch.target()])
                    .current_dir(root)
                    .status()
                    .is_ok_and(|s| s.success());
                if !ok {
                    return Err(tool_failed(format!(
                        "cargo build --release -p mairbench-linux --target {} failed",
                        c.arch.target()
                    )));
                }
            }
            let name = elf
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if name.starts_with("mairbench-linux") {
                Some(elf.to_owned())
            } else if beside.join("mairbench-linux").is_file() {
                Some(beside.join("mairbench-linux"))
            } else {
                eprintln!("mairbench: no mairbench-linux beside {} and no MAIRBENCH_TWIN: booting Linux for the smoke check only", elf.display());
                None
            }
        }
    };
    if let Some(twin) = twin.as_ref().filter(|t| !t.is_file()) {
        return Err(bad(format!("no Linux twin at {} (MAIRBENCH_TWIN; build it first, or MAIRBENCH_TWIN=none for the smoke check)", twin.display())));
    }
    Ok(Linux { twin, dir })
}

fn same_dir(a: &Path, b: &Path) -> bool {
    let absolute = |p: &Path| std::path::absolute(p).ok();
    absolute(a).is_some() && absolute(a) == absolute(b)
        || a.canonicalize()
            .ok()
            .is_some_and(|a| Some(a) == b.canonicalize().ok())
}

/// One file of the initramfs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entry {
    /// A directory.
    Dir,
    /// A file: its bytes, and whether it is executable.
    File(Vec<u8>, bool),
}

/// A newc cpio archive of `files` (paths without a leading `/`) plus `dev/console`
/// (character device 5:1, which the kernel opens for /init before devtmpfs is mounted), all
/// owned by root: no root or mknod needed here.
pub fn initramfs(files: &BTreeMap<String, Entry>) -> std::io::Result<Vec<u8>> {
    use cpio::newc::Builder;
    let mut out = Vec::new();
    let console = Builder::new("dev/console")
        .ino(1)
        .mode(0o020600)
        .rdev_major(5)
        .rdev_minor(1);
    out = console.write(out, 0).finish()?;
    for (ino, (name, entry)) in (2..).zip(files) {
        let (mode, bytes): (u32, &[u8]) = match entry {
            Entry::Dir => (0o040755, &[]),
            Entry::File(bytes, true) => (0o100755, bytes),
            Entry::File(bytes, false) => (0o100644, bytes),
        };
        let mut w = Builder::new(name)
            .ino(ino)
            .mode(mode)
            .write(out, bytes.len() as u32);
        w.write_all(bytes)?;
        out = w.finish()?;
    }
    cpio::newc::trailer(out)
}

/// The initramfs's files: busybox, /init, the twin with its arguments (`args`, one a line)
/// and the vgem modules (unless MAIRBENCH_LINUX_MODULES=none).
fn files(
    c: &Config,
    l: &Linux,
    sys: &mut dyn Sys,
    args: &[String],
) -> Result<BTreeMap<String, Entry>, Fail> {
    let mut files = BTreeMap::new();
    for d in [
        "bin", "sbin", "usr", "usr/bin", "usr/sbin", "dev", "proc", "sys", "tmp",
    ] {
        files.insert(d.to_owned(), Entry::Dir);
    }
    let mut file = |sys: &mut dyn Sys, from: &Path, to: &str, exec: bool| -> Result<(), Fail> {
        let bytes = sys.read(from).map_err(|e| {
            tool_failed(format!(
                "could not copy {} into the initramfs: {e}",
                from.display()
            ))
        })?;
        files.insert(to.to_owned(), Entry::File(bytes, exec));
        Ok(())
    };
    file(sys, &l.dir.join("busybox"), "bin/busybox", true)?;
    if let Some(twin) = &l.twin {
        file(sys, twin, "mairbench-linux", true)?;
    }
    if c.env.get("MAIRBENCH_LINUX_MODULES") != Some("none") {
        let order = sys.read(&l.dir.join("modules/order")).ok().filter(|o| !o.is_empty()).ok_or_else(|| {
            tool_failed(format!("no {} (qemu/deps linux keeps the vgem modules; MAIRBENCH_LINUX_MODULES=none boots without)", l.dir.join("modules/order").display()))
        })?;
        for m in String::from_utf8_lossy(&order)
            .lines()
            .filter(|m| !m.is_empty())
        {
            file(
                sys,
                &l.dir.join("modules").join(m),
                &format!("lib/modules/mairbench/{m}"),
                false,
            )?;
        }
        file(
            sys,
            &l.dir.join("modules/order"),
            "lib/modules/mairbench/order",
            false,
        )?;
        for d in ["lib", "lib/modules", "lib/modules/mairbench"] {
            files.insert(d.to_owned(), Entry::Dir);
        }
    }
    if l.twin.is_some() {
        let text: String = args.iter().map(|a| format!("{a}\n")).collect();
        files.insert(
            "mairbench.args".into(),
            Entry::File(text.into_bytes(), false),
        );
    }
    files.insert("init".into(), Entry::File(INIT.as_bytes().to_owned(), true));
    Ok(files)
}

/// Adds the Linux boot to `q`: the kernel, the initramfs (written into `work`) whose twin gets
/// `args`, RAM hidden from Linux, the ivshmem device and MAIRBENCH_LINUX_DEVICES.
pub fn boot(
    c: &Config,
    l: &Linux,
    work: &Path,
    sys: &mut dyn Sys,
    args: &[String],
    q: &mut Vec<String>,
) -> Result<(), Fail> {
    for f in ["vmlinuz", "busybox"] {
        if sys.len(&l.dir.join(f)).unwrap_or(0) == 0 {
            return Err(tool_failed(format!(
                "no {} (qemu/deps {} did not fetch {} and busybox-static)",
                l.dir.join(f).display(),
                c.arch.linux(),
                c.arch.linux_kernel()
            )));
        }
    }
    // A kernel of the other architecture would not start: QEMU would wait out the time limit.
    let kernel = l.dir.join("vmlinuz");
    let head = sys.read(&kernel).unwrap_or_default();
    let kind = |a: Option<Arch>| match a {
        Some(Arch::Aarch64) => "an arm64 Image",
        Some(Arch::Armv7) => "a 32-bit zImage",
        None => "neither an arm64 Image nor a 32-bit zImage",
    };
    let found = Arch::of_kernel(&head);
    if found != Some(c.arch) {
        return Err(bad(format!(
            "{} is {}; MAIRBENCH_ARCH={}'s Linux boot needs {} ({} names the cache; qemu/deps \
             {} fetches {})",
            kernel.display(),
            kind(found),
            c.arch.name(),
            kind(Some(c.arch)),
            c.arch.linux_dir(),
            c.arch.linux(),
            c.arch.linux_kernel()
        )));
    }
    let cpio = work.join("initramfs.cpio");
    let archive = initramfs(&files(c, l, sys, args)?)
        .map_err(|e| tool_failed(format!("could not build the initramfs: {e}")))?;
    sys.write(&cpio, &archive)
        .map_err(|e| tool_failed(format!("could not build the initramfs: {e}")))?;
    let (append, _) = kernel_args(&c.mem);
    let shm = c.env.get("MAIRBENCH_IVSHMEM").unwrap_or("16M");
    q.extend([
        "-kernel".into(),
        arg(&l.dir.join("vmlinuz")),
        "-initrd".into(),
        arg(&cpio),
        "-append".into(),
        append,
        "-no-reboot".into(),
        "-object".into(),
        format!("memory-backend-ram,id=mairbench-shm,size={shm}"),
        "-device".into(),
        "ivshmem-plain,memdev=mairbench-shm".into(),
    ]);
    for d in c
        .env
        .get("MAIRBENCH_LINUX_DEVICES")
        .unwrap_or("")
        .split_whitespace()
    {
        q.extend(["-device".into(), d.to_owned()]);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Env;
    use crate::sys::fake::Fake;

    /// The first bytes of an arm64 `Image`: its magic at 0x38.
    fn arm64_image() -> Vec<u8> {
        let mut head = vec![0; 64];
        head[0x38..0x3c].copy_from_slice(b"ARM\x64");
        head
    }

    /// The same of a 32-bit `zImage`: its magic at 0x24.
    fn zimage() -> Vec<u8> {
        let mut head = vec![0; 64];
        head[0x24..0x28].copy_from_slice(&0x016F_2818u32.to_le_bytes());
        head
    }

    #[test]
    fn a_kernel_of_the_other_architecture_is_refused_before_qemu_runs() {
        let mut sys = Fake::default();
        sys.files.insert("/l/busybox".into(), b"bb".to_vec());
        let none = |arch: &str| {
            let pairs = [
                ("MAIRBENCH_ARCH", arch),
                ("MAIRBENCH_BOOT", "linux"),
                ("MAIRBENCH_LINUX_MODULES", "none"),
            ];
            Config::read(Env::from_pairs(pairs), "").unwrap()
        };
        let l = Linux {
            twin: None,
            dir: "/l".into(),
        };
        for (kernel, arch, says) in [
            (zimage(), "aarch64", "/l/vmlinuz is a 32-bit zImage; MAIRBENCH_ARCH=aarch64's Linux boot needs an arm64 Image (MAIRBENCH_LINUX_DIR names the cache; qemu/deps linux fetches Debian's arm64 kernel)"),
            (arm64_image(), "armv7", "/l/vmlinuz is an arm64 Image; MAIRBENCH_ARCH=armv7's Linux boot needs a 32-bit zImage (MAIRBENCH_LINUX_ARMHF_DIR names the cache; qemu/deps linux-armhf fetches Debian's armhf LPAE kernel)"),
            (b"MZ".to_vec(), "armv7", "/l/vmlinuz is neither an arm64 Image nor a 32-bit zImage; MAIRBENCH_ARCH=armv7's"),
        ] {
            sys.files.insert("/l/vmlinuz".into(), kernel);
            let mut q = vec![];
            let e = boot(&none(arch), &l, Path::new("/w"), &mut sys, &[], &mut q).unwrap_err();
            assert_eq!(e.status, 2, "{e:?}");
            assert!(e.message.starts_with(says), "{e:?}");
            assert!(q.is_empty());
        }
        sys.files.insert("/l/vmlinuz".into(), zimage());
        let mut q = vec![];
        boot(&none("armv7"), &l, Path::new("/w"), &mut sys, &[], &mut q).unwrap();
        assert_eq!(q[..2], ["-kernel", "/l/vmlinuz"]);
    }

    #[test]
    fn ram_is_hidden_from_linux_when_there_is_enough() {
        assert_eq!(
            kernel_args("512M"),
            ("console=ttyAMA0 quiet panic=-1 rdinit=/init mem=448M mairbench.devmem-ram=0x5c000000+64M".into(), true)
        );
        assert!(kernel_args("1G")
            .0
            .ends_with(" mem=960M mairbench.devmem-ram=0x7c000000+64M"));
        assert!(!kernel_args("128M").1);
    }

    #[test]
    fn the_initramfs_holds_the_twin_its_arguments_and_the_modules() {
        let mut sys = Fake::default();
        let dir = PathBuf::from("/l");
        for (f, b) in [
            ("vmlinuz", &arm64_image()[..]),
            ("busybox", b"bb"),
            ("modules/order", b"a.ko.xz\nb.ko.xz\n"),
            ("modules/a.ko.xz", b"A"),
            ("modules/b.ko.xz", b"B"),
            ("/t/twin", b"T"),
        ] {
            sys.files.insert(dir.join(f), b.to_vec());
        }
        let c = Config::read(
            Env::from_pairs([
                ("MAIRBENCH_BOOT", "linux"),
                ("MAIRBENCH_LINUX_DEVICES", "bochs-display,romfile= x"),
            ]),
            "",
        )
        .unwrap();
        let l = Linux {
            twin: Some("/t/twin".into()),
            dir,
        };
        let mut q = vec![];
        let args = [
            "mairbench.quick".to_owned(),
            "mairbench.host=qemu-10.0.2".to_owned(),
        ];
        boot(&c, &l, Path::new("/w"), &mut sys, &args, &mut q).unwrap();
        assert_eq!(q.join(" "), "-kernel /l/vmlinuz -initrd /w/initramfs.cpio -append console=ttyAMA0 quiet panic=-1 rdinit=/init mem=448M mairbench.devmem-ram=0x5c000000+64M -no-reboot -object memory-backend-ram,id=mairbench-shm,size=16M -device ivshmem-plain,memdev=mairbench-shm -device bochs-display,romfile= -device x");
        let archive = sys.files[Path::new("/w/initramfs.cpio")].clone();
        let mut seen = Vec::new();
        let mut rest = &archive[..];
        loop {
            let mut r = cpio::newc::Reader::new(rest).unwrap();
            let e = r.entry();
            if e.is_trailer() {
                break;
            }
            let name = e.name().to_owned();
            seen.push(format!(
                "{name} {:o} {}:{}",
                e.mode(),
                e.rdev_major(),
                e.rdev_minor()
            ));
            let mut data = Vec::new();
            std::io::Read::read_to_end(&mut r, &mut data).unwrap();
            if name == "mairbench.args" {
                assert_eq!(data, b"mairbench.quick\nmairbench.host=qemu-10.0.2\n");
            }
            rest = r.finish().unwrap();
        }
        assert_eq!(seen[0], "dev/console 20600 5:1");
        for want in [
            "bin/busybox 100755 0:0",
            "init 100755 0:0",
            "mairbench-linux 100755 0:0",
            "lib/modules/mairbench/b.ko.xz 100644 0:0",
            "lib/modules/mairbench/order 100644 0:0",
            "usr/sbin 40755 0:0",
        ] {
            assert!(seen.iter().any(|s| s == want), "{want}: {seen:?}");
        }
    }

    #[test]
    fn what_the_linux_boot_needs_is_named_when_missing() {
        let mut sys = Fake::default();
        sys.files.insert("/l/vmlinuz".into(), arm64_image());
        sys.files.insert("/l/busybox".into(), b"x".to_vec());
        let (mut q, linux) = (vec![], [("MAIRBENCH_BOOT", "linux")]);
        let c = Config::read(Env::from_pairs(linux), "").unwrap();
        let none = Config::read(
            Env::from_pairs([
                ("MAIRBENCH_BOOT", "linux"),
                ("MAIRBENCH_LINUX_MODULES", "none"),
            ]),
            "",
        )
        .unwrap();
        let l = Linux {
            twin: None,
            dir: "/l".into(),
        };
        boot(&none, &l, Path::new("/w"), &mut sys, &[], &mut q).unwrap();
        let e = boot(&c, &l, Path::new("/w"), &mut sys, &[], &mut q).unwrap_err();
        assert!(
            e.message
                .contains("no /l/modules/order (qemu/deps linux keeps"),
            "{e:?}"
        );
        let gone = Linux {
            twin: None,
            dir: "/none".into(),
        };
        let e = boot(&c, &gone, Path::new("/w"), &mut sys, &[], &mut q).unwrap_err();
        assert_eq!(e.status, 3);
        assert!(e.message.contains("no /none/vmlinuz"), "{e:?}");
    }
}
