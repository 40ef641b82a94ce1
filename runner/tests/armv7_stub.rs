//! The runner boots a 32-bit Arm ELF as the 32-bit image: a stub of 272 bytes (below, with its
//! source), which prints the mode it was entered in, r2 and the word r2 points at, then an end
//! record, and leaves through semihosting's `SYS_EXIT`. It passes only when the runner chose
//! qemu-system-arm from the ELF's `e_machine` (a wrapper first on PATH logs its command line:
//! qemu-system-aarch64 with `-cpu cortex-a7` would boot the stub too), made the raw image,
//! booted it by `-kernel` (SVC mode, r2 = the device tree) and passed `-semihosting` (without
//! it the stub hangs until the time limit). The firmware's own armv7 image is booted by the
//! host's boot tests.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The stub's code, from this source (`llvm-mc -triple=armv7a-none-eabi -filetype=obj`,
/// `rust-lld -flavor gnu -pie -Ttext=0`, `llvm-objcopy -O binary`, the first 0x110 bytes):
///
/// ```text
/// _start: .rept 8; mov r0, r0; .endr        @ a Linux zImage header
///         b 1f
///         .word 0x016f2818, 0, _end - _start
/// 1:      mrs r7, cpsr; and r7, r7, #0x1f   @ the mode
///         mov r6, r2; ldr r8, [r6]; rev r8, r8
///         ldr r4, =0x09000000               @ virt's PL011
///         adr r0, s_mode; bl puts; mov r0, r7; bl hex
///         adr r0, s_dtb; bl puts; mov r0, r6; bl hex
///         adr r0, s_magic; bl puts; mov r0, r8; bl hex
///         adr r0, s_end; bl puts
///         mov r0, #0x18; ldr r1, =0x20026; svc 0x123456   @ SYS_EXIT, ApplicationExit
/// 2:      b 2b
/// puts:   ldrb r1, [r0], #1; cmp r1, #0; bxeq lr; str r1, [r4]; b puts
/// hex:    mov r3, #28
/// 3:      lsr r1, r0, r3; and r1, r1, #15; cmp r1, #10; addlt r1, r1, #48
///         addge r1, r1, #87; str r1, [r4]; subs r3, r3, #4; bpl 3b; bx lr
/// s_mode: .asciz "stub: mode "
/// s_dtb:  .asciz " r2 "
/// s_magic: .asciz " magic "
/// s_end:  .asciz "\n@mb {\"kind\":\"end\",\"status\":\"pass\"}\n"
///         .balign 4; .ltorg
/// _end:
/// ```
#[rustfmt::skip]
const CODE: [u32; 68] = [
    0xe1a00000, 0xe1a00000, 0xe1a00000, 0xe1a00000, 0xe1a00000, 0xe1a00000,
    0xe1a00000, 0xe1a00000, 0xea000002, 0x016f2818, 0x00000000, 0x00000110,
    0xe10f7000, 0xe207701f, 0xe1a06002, 0xe5968000, 0xe6bf8f38, 0xe3a04409,
    0xe28f007c, 0xeb00000f, 0xe1a00007, 0xeb000012, 0xe28f0078, 0xeb00000b,
    0xe1a00006, 0xeb00000e, 0xe28f006d, 0xeb000007, 0xe1a00008, 0xeb00000a,
    0xe28f0065, 0xeb000003, 0xe3a00018, 0xe59f1080, 0xef123456, 0xeafffffe,
    0xe4d01001, 0xe3510000, 0x012fff1e, 0xe5841000, 0xeafffffa, 0xe3a0301c,
    0xe1a01330, 0xe201100f, 0xe351000a, 0xb2811030, 0xa2811057, 0xe5841000,
    0xe2533004, 0x5afffff7, 0xe12fff1e, 0x62757473, 0x6f6d203a, 0x00206564,
    0x20327220, 0x616d2000, 0x20636967, 0x6d400a00, 0x227b2062, 0x646e696b,
    0x65223a22, 0x2c22646e, 0x61747322, 0x22737574, 0x6170223a, 0x7d227373,
    0x0000000a, 0x00020026,
];

/// Little-endian bytes of 16- and 32-bit fields.
fn put(out: &mut Vec<u8>, fields: &[(u32, usize)]) {
    for (value, size) in fields {
        out.extend(&value.to_le_bytes()[..*size]);
    }
}

/// A 32-bit Arm ELF (EM_ARM, EABI5) of `code`: one loadable segment at 0, a `.text` section
/// and the section names, which is what llvm-objcopy needs to make the raw image.
fn elf(code: &[u8]) -> Vec<u8> {
    const TEXT: u32 = 0x60;
    let names = b"\0.text\0.shstrtab\0";
    let strtab = TEXT + code.len() as u32;
    let shoff = (strtab + names.len() as u32 + 3) & !3;
    let mut out = b"\x7fELF\x01\x01\x01\0".to_vec();
    out.resize(16, 0);
    // e_type EXEC, e_machine ARM, e_version, e_entry, e_phoff, e_shoff, e_flags (EABI5),
    // e_ehsize, e_phentsize, e_phnum, e_shentsize, e_shnum, e_shstrndx.
    #[rustfmt::skip]
    put(&mut out, &[(2, 2), (40, 2), (1, 4), (0, 4), (52, 4), (shoff, 4), (0x0500_0000, 4),
        (52, 2), (32, 2), (1, 2), (40, 2), (3, 2), (2, 2)]);
    // PT_LOAD: offset, vaddr, paddr, filesz, memsz, flags R+X, align.
    let len = code.len() as u32;
    put(
        &mut out,
        &[
            (1, 4),
            (TEXT, 4),
            (0, 4),
            (0, 4),
            (len, 4),
            (len, 4),
            (5, 4),
            (4, 4),
        ],
    );
    out.resize(TEXT as usize, 0);
    out.extend(code);
    out.extend(names);
    out.resize(shoff as usize, 0);
    out.resize(shoff as usize + 40, 0);
    // .text: PROGBITS, ALLOC+EXEC; .shstrtab: STRTAB.
    #[rustfmt::skip]
    put(&mut out, &[(1, 4), (1, 4), (6, 4), (0, 4), (TEXT, 4), (len, 4), (0, 4), (0, 4), (4, 4), (0, 4),
        (7, 4), (3, 4), (0, 4), (0, 4), (strtab, 4), (names.len() as u32, 4), (0, 4), (0, 4), (1, 4), (0, 4)]);
    out
}

/// What one run of the runner said: its exit status, stdout and stderr; `bin` is first on PATH.
fn run(elf: &Path, log: &Path, bin: &Path, settings: &[(&str, &str)]) -> (i32, String, String) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_mairbench-runner"));
    for (name, _) in std::env::vars().filter(|(k, _)| k.starts_with("MAIRBENCH_")) {
        cmd.env_remove(name);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    let path =
        std::env::join_paths(std::iter::once(bin.to_owned()).chain(std::env::split_paths(&path)));
    cmd.env("PATH", path.unwrap())
        .arg("run")
        .arg(elf)
        .env("MAIRBENCH_RECORDS", "1")
        .env("MAIRBENCH_LOG", log)
        .env("MAIRBENCH_TIMEOUT", "30")
        .envs(settings.iter().copied());
    let out = cmd.output().expect("the runner starts");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout),
        text(&out.stderr),
    )
}

/// Where `program` is on PATH.
fn found(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|d| d.join(program))
        .find(|p| p.is_file())
}

/// A `qemu-system-arm` in `bin` that logs its command line to `bin/calls` and runs `real`.
fn wrapper(bin: &Path, real: &Path) {
    use std::os::unix::fs::PermissionsExt;
    let script = bin.join("qemu-system-arm");
    let calls = bin.join("calls");
    let text = format!(
        "#!/bin/sh\necho \"$*\" >>'{}'\nexec '{}' \"$@\"\n",
        calls.display(),
        real.display()
    );
    std::fs::write(&script, text).unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn a_32_bit_arm_elf_boots_in_qemu_system_arm_by_the_linux_protocol() {
    let Some(real) = found("qemu-system-arm") else {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true and qemu-system-arm (package qemu-system-arm) is missing"
        );
        eprintln!("SKIPPED: qemu-system-arm (package qemu-system-arm) is missing");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    wrapper(&bin, &real);
    let code: Vec<u8> = CODE.iter().flat_map(|w| w.to_le_bytes()).collect();
    let path: PathBuf = dir.path().join("mairbench");
    std::fs::write(&path, elf(&code)).unwrap();
    let log = dir.path().join("console.log");
    // Cortex-A7 in SVC mode; the device tree 128 MiB into the default 256 MiB of RAM.
    let (status, stdout, stderr) = run(&path, &log, &bin, &[]);
    assert_eq!(status, 0, "{stdout}{stderr}");
    let calls = std::fs::read_to_string(bin.join("calls")).unwrap_or_default();
    let booted = calls
        .lines()
        .find(|l| l.contains(" -kernel "))
        .unwrap_or_default();
    assert!(
        booted.starts_with("-machine virt,highmem=off -cpu cortex-a7 -smp 1 -m 256M ")
            && booted.ends_with(" -semihosting"),
        "{calls}"
    );
    assert!(
        stdout.contains("stub: mode 00000013 r2 48000000 magic d00dfeed"),
        "{stdout}"
    );
    // The raw image kept next to the ELF, its zImage magic at 0x24.
    let image = std::fs::read(dir.path().join("mairbench.bin")).unwrap();
    assert_eq!(
        (image.len(), &image[0x24..0x28]),
        (code.len(), &code[0x24..0x28])
    );
    // Cortex-A15 with virtualization=on: HYP mode; 64 MiB of RAM puts the tree at 32 MiB.
    let pairs = [
        ("MAIRBENCH_CPU", "cortex-a15"),
        ("MAIRBENCH_EL", "2"),
        ("MAIRBENCH_MEM", "64M"),
    ];
    let (status, stdout, stderr) = run(&path, &log, &bin, &pairs);
    assert_eq!(status, 0, "{stdout}{stderr}");
    assert!(
        stdout.contains("stub: mode 0000001a r2 42000000 magic d00dfeed"),
        "{stdout}"
    );
    uboot_bootz(&path, &log, &bin);
    // No serial line: judged by semihosting's exit status alone.
    let (status, stdout, stderr) = run(&path, &log, &bin, &[("MAIRBENCH_SERIAL", "none")]);
    assert_eq!(status, 0, "{stdout}{stderr}");
    assert!(!stdout.contains("stub:"), "{stdout}");
}

/// Debian's `qemu_arm` U-Boot boots the stub with `bootz` from MAIRBENCH_LOAD, in SVC mode
/// and, with `virtualization=on`, in HYP mode, r2 = the device tree it moved.
fn uboot_bootz(path: &Path, log: &Path, bin: &Path) {
    let uboot = "/usr/lib/u-boot/qemu_arm/u-boot.bin";
    if !Path::new(uboot).is_file() || found("mkenvimage").is_none() {
        assert!(
            std::env::var("CI").as_deref() != Ok("true"),
            "CI=true and {uboot} or mkenvimage (packages u-boot-qemu, u-boot-tools) is missing"
        );
        eprintln!("SKIPPED: U-Boot's bootz: {uboot} or mkenvimage is missing");
        return;
    }
    for (el, mode) in [("1", "00000013"), ("2", "0000001a")] {
        let pairs = [("MAIRBENCH_BOOT", "uboot"), ("MAIRBENCH_EL", el)];
        let (status, stdout, stderr) = run(path, log, bin, &pairs);
        assert_eq!(status, 0, "EL{el}: {stdout}{stderr}");
        let said = stdout.lines().find(|l| l.starts_with("stub: mode "));
        let said = said.unwrap_or_default();
        assert!(
            said.starts_with(&format!("stub: mode {mode} r2 "))
                && said.ends_with(" magic d00dfeed"),
            "EL{el}: {stdout}"
        );
        assert!(
            stdout.contains("Kernel image @ 0x40400000 [ 0x000000 - 0x000110 ]"),
            "EL{el}: {stdout}"
        );
    }
    let calls = std::fs::read_to_string(bin.join("calls")).unwrap_or_default();
    assert!(calls.contains(&format!(" -bios {uboot} ")), "{calls}");
}
