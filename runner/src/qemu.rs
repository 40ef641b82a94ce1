//! QEMU's command line: the machine (`virt` or a real board's), its accelerator, and the
//! options every boot path shares (semihosting, the monitor, the serial line on a
//! pseudo-terminal, the gdb stub). Pure: the tests below check what each setting produces.

use crate::arch::Arch;
use crate::config::{Config, Serial};
use std::path::Path;

/// QEMU itself, for the AArch64 image.
pub const QEMU: &str = Arch::Aarch64.qemu();

/// QEMU for 32-bit Arm, from the same package: it boots the 32-bit image, and its `-cpu help`
/// names the 32-bit models.
pub const QEMU_ARM: &str = Arch::Armv7.qemu();

fn words(list: &[&str]) -> Vec<String> {
    list.iter().map(|w| (*w).to_owned()).collect()
}

/// The machine: QEMU, `-machine`, CPUs, RAM, console; `board_dtb` is a board machine's device
/// tree (MAIRBENCH_DTB or the board's own). Then `-accel kvm` and `-icount` when set.
pub fn machine(c: &Config, board_dtb: Option<&Path>) -> Vec<String> {
    let dtb = board_dtb.map_or(String::new(), |p| p.display().to_string());
    let mut q = match crate::boards::find(c.machine) {
        // A board's machine: its QEMU, CPUs, RAM and console from the table; the ZCU102 at
        // EL2 with virtualization=on.
        Some(board) => {
            let m = if board.el2_too && c.el == 2 {
                format!("{},virtualization=on", board.name)
            } else {
                board.name.to_owned()
            };
            let mut q = words(&[board.arch.qemu(), "-machine", &m]);
            q.extend(words(board.args));
            q.extend(words(&["-dtb", &dtb]));
            q
        }
        None => virt(c),
    };
    if c.kvm {
        // The guest on the host's own cores, with the host's CPU.
        if let Some(at) = q.iter().position(|a| a == "-cpu") {
            q[at + 1] = "host".into();
        }
        q.extend(words(&["-accel", "kvm"]));
    }
    if c.icount {
        q.extend(words(&["-icount", "shift=0,sleep=off"]));
    }
    q
}

/// QEMU `virt`: EL1 plain, EL2 `virtualization=on`, EL3 `secure=on`; a GICv3 when asked or
/// above eight CPUs; a device tree of one's own (QEMU still writes /memory and /chosen). The
/// 32-bit image in qemu-system-arm, with `highmem=off`: its LPAE cores would otherwise have
/// RAM beyond 4 GiB when given more than 3 GiB.
fn virt(c: &Config) -> Vec<String> {
    let mut m = String::from("virt");
    if c.arch == Arch::Armv7 {
        m.push_str(",highmem=off");
    }
    m.push_str(match c.el {
        2 => ",virtualization=on",
        3 => ",secure=on",
        _ => "",
    });
    if c.gic == 3 {
        m.push_str(",gic-version=3");
    }
    // Clusters: QEMU's device tree (cpu-map) and ACPI PPTT then group the CPUs in them.
    let smp = match c.clusters {
        1 => c.smp.to_string(),
        n => format!("{},clusters={n},cores={}", c.smp, c.smp / n),
    };
    let mem = c.mem.clone();
    let mut q = words(&[
        c.arch.qemu(),
        "-machine",
        &m,
        "-cpu",
        &c.cpu,
        "-smp",
        &smp,
        "-m",
        &mem,
        "-nographic",
        "-monitor",
        "none",
        "-net",
        "none",
    ]);
    if c.serial == Serial::None {
        q.extend(words(&["-serial", "none"]));
    }
    if c.ramfb {
        q.extend(words(&["-device", "ramfb"]));
    }
    if let Some(dtb) = &c.dtb {
        q.extend(words(&["-dtb", &dtb.display().to_string()]));
    }
    q
}

/// Semihosting: the way out (SYS_EXIT), and the command line where no device tree carries it
/// (`by_semihosting`: the EL3 loader, U-Boot's bootm).
pub fn semihosting(c: &Config, by_semihosting: bool, bootargs: &str) -> Vec<String> {
    match (c.semihosting, by_semihosting) {
        (false, _) => vec![],
        (true, true) => words(&[
            "-semihosting-config",
            &format!(
                "enable=on,target=native,arg=mairbench,arg={}",
                bootargs.replace(',', ",,")
            ),
        ]),
        (true, false) => words(&["-semihosting"]),
    }
}

/// The options added last: the UART on a pseudo-terminal logged to `log`
/// (MAIRBENCH_SERIAL=pty), the human monitor on a Unix socket (MAIRBENCH_MONITOR), QEMU halted
/// for gdb (MAIRBENCH_GDB).
pub fn finish(c: &Config, q: &mut Vec<String>, log: &Path) {
    if c.serial == Serial::Pty {
        let log = log.display().to_string().replace(',', ",,");
        q.extend(words(&[
            "-chardev",
            &format!("pty,id=con,logfile={log}"),
            "-serial",
            "chardev:con",
        ]));
    }
    if let Some(monitor) = &c.monitor {
        if let Some(at) = q.iter().position(|a| a == "-monitor") {
            q[at + 1] = format!("unix:{monitor},server=on,wait=off");
        }
    }
    if let Some(port) = c.gdb {
        q.extend(words(&["-S", "-gdb", &format!("tcp::{port}")]));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::Env;

    fn config(pairs: &[(&str, &str)]) -> Config {
        Config::read(Env::from_pairs(pairs.iter().copied()), "").unwrap()
    }

    fn line(pairs: &[(&str, &str)]) -> String {
        machine(&config(pairs), Some(Path::new("/d/board.dtb"))).join(" ")
    }

    const VIRT: &str = "-nographic -monitor none -net none";

    #[test]
    fn virt_at_each_exception_level_and_gic() {
        assert_eq!(
            line(&[]),
            format!("{QEMU} -machine virt -cpu cortex-a72 -smp 1 -m 256M {VIRT}")
        );
        assert!(line(&[("MAIRBENCH_EL", "2")]).contains("-machine virt,virtualization=on -cpu"));
        assert!(line(&[("MAIRBENCH_EL", "3")]).contains("-machine virt,secure=on -cpu"));
        assert!(line(&[("MAIRBENCH_SMP", "16")])
            .contains("-machine virt,gic-version=3 -cpu cortex-a72 -smp 16"));
        assert!(
            line(&[("MAIRBENCH_SMP", "4"), ("MAIRBENCH_GIC", "3")]).contains("virt,gic-version=3 ")
        );
        assert!(line(&[("MAIRBENCH_EL", "2"), ("MAIRBENCH_GIC", "3")])
            .contains("virt,virtualization=on,gic-version=3 "));
        assert!(line(&[("MAIRBENCH_CPU", "max"), ("MAIRBENCH_MEM", "1G")])
            .contains("-cpu max -smp 1 -m 1G "));
    }

    #[test]
    fn the_32_bit_image_in_qemu_system_arm() {
        let armv7 = [("MAIRBENCH_ARCH", "armv7")];
        assert_eq!(
            line(&armv7),
            format!("{QEMU_ARM} -machine virt,highmem=off -cpu cortex-a7 -smp 1 -m 256M {VIRT}")
        );
        let a15 = line(&[
            ("MAIRBENCH_ARCH", "armv7"),
            ("MAIRBENCH_CPU", "cortex-a15"),
            ("MAIRBENCH_EL", "2"),
            ("MAIRBENCH_SMP", "4"),
            ("MAIRBENCH_MEM", "3G"),
        ]);
        assert_eq!(
            a15,
            format!(
                "{QEMU_ARM} -machine virt,highmem=off,virtualization=on -cpu cortex-a15 -smp 4 \
                 -m 3G {VIRT}"
            )
        );
        // Nine CPUs take a GICv3 there too (QEMU 10.0.2 booted cortex-a15 so).
        assert!(line(&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_SMP", "9")])
            .contains("-machine virt,highmem=off,gic-version=3 -cpu cortex-a7 -smp 9 "));
        let c = config(&armv7);
        assert_eq!(semihosting(&c, false, ""), ["-semihosting"]);
    }

    #[test]
    fn virt_in_clusters() {
        let two = line(&[("MAIRBENCH_SMP", "4"), ("MAIRBENCH_CLUSTERS", "2")]);
        assert!(two.contains(" -smp 4,clusters=2,cores=2 -m "), "{two}");
        assert!(
            line(&[("MAIRBENCH_SMP", "4"), ("MAIRBENCH_CLUSTERS", "1")]).contains(" -smp 4 -m ")
        );
    }

    #[test]
    fn virt_options() {
        assert!(line(&[("MAIRBENCH_SERIAL", "none")]).ends_with(&format!("{VIRT} -serial none")));
        assert!(line(&[("MAIRBENCH_DISPLAY", "ramfb")]).ends_with(" -device ramfb"));
        assert!(line(&[("MAIRBENCH_ICOUNT", "1")]).ends_with(" -icount shift=0,sleep=off"));
        let kvm = line(&[("MAIRBENCH_ACCEL", "kvm")]);
        assert!(
            kvm.contains(" -cpu host ") && kvm.ends_with(" -accel kvm"),
            "{kvm}"
        );
        let dtb = std::env::temp_dir().join(format!("mairbench-runner-dtb-{}", std::process::id()));
        std::fs::write(&dtb, b"").unwrap();
        let own = line(&[("MAIRBENCH_DTB", dtb.to_str().unwrap())]);
        assert!(
            own.ends_with(&format!("{VIRT} -dtb {}", dtb.display())),
            "{own}"
        );
        let _ = std::fs::remove_file(&dtb);
    }

    #[test]
    fn each_board_machine() {
        let tail = "-nographic -monitor none -serial null -serial stdio -dtb /d/board.dtb";
        assert_eq!(
            line(&[("MAIRBENCH_MACHINE", "raspi3b")]),
            format!("{QEMU} -machine raspi3b {tail}")
        );
        assert_eq!(
            line(&[("MAIRBENCH_MACHINE", "raspi4b")]),
            format!("{QEMU} -machine raspi4b {tail}")
        );
        assert_eq!(
            line(&[("MAIRBENCH_MACHINE", "imx8mp-evk")]),
            format!("{QEMU} -machine imx8mp-evk -smp 4 -m 6G {tail}")
        );
        let zcu = "-m 2G -nographic -monitor none -audio none -serial stdio -dtb /d/board.dtb";
        assert_eq!(
            line(&[("MAIRBENCH_MACHINE", "xlnx-zcu102")]),
            format!("{QEMU} -machine xlnx-zcu102 {zcu}")
        );
        assert_eq!(
            line(&[("MAIRBENCH_MACHINE", "xlnx-zcu102"), ("MAIRBENCH_EL", "2")]),
            format!("{QEMU} -machine xlnx-zcu102,virtualization=on {zcu}")
        );
    }

    #[test]
    fn each_32_bit_board_machine() {
        let on = |machine| line(&[("MAIRBENCH_ARCH", "armv7"), ("MAIRBENCH_MACHINE", machine)]);
        let dtb = "-dtb /d/board.dtb";
        let uart0 = "-nographic -monitor none -serial stdio";
        assert_eq!(
            on("mcimx6ul-evk"),
            format!("{QEMU_ARM} -machine mcimx6ul-evk -m 512M {uart0} {dtb}")
        );
        assert_eq!(
            on("orangepi-pc"),
            format!("{QEMU_ARM} -machine orangepi-pc -m 1G {uart0} {dtb}")
        );
        assert_eq!(
            on("raspi2b"),
            format!("{QEMU_ARM} -machine raspi2b {uart0} {dtb}")
        );
        // The SABRE Lite's console is UART2, QEMU's serial1.
        assert_eq!(
            on("sabrelite"),
            format!(
                "{QEMU_ARM} -machine sabrelite -m 1G -nographic -monitor none -serial null \
                 -serial stdio {dtb}"
            )
        );
        assert_eq!(
            on("cubieboard"),
            format!("{QEMU_ARM} -machine cubieboard -m 1G {uart0} {dtb}")
        );
    }

    #[test]
    fn semihosting_carries_the_command_line_where_no_device_tree_does() {
        let c = config(&[]);
        assert_eq!(semihosting(&c, false, "a,b"), ["-semihosting"]);
        assert_eq!(
            semihosting(&c, true, "a,b c"),
            [
                "-semihosting-config",
                "enable=on,target=native,arg=mairbench,arg=a,,b c"
            ]
        );
        assert!(semihosting(&config(&[("MAIRBENCH_SEMIHOSTING", "0")]), true, "").is_empty());
    }

    #[test]
    fn pty_monitor_and_gdb_come_last() {
        let c = config(&[
            ("MAIRBENCH_BOOT", "uboot"),
            ("MAIRBENCH_SERIAL", "pty"),
            ("MAIRBENCH_MONITOR", "/tmp/mon"),
            ("MAIRBENCH_GDB", "1"),
            ("MAIRBENCH_GDB_PORT", "4321"),
        ]);
        let mut q = machine(&c, None);
        finish(&c, &mut q, Path::new("/w/a,b.log"));
        let q = q.join(" ");
        assert!(
            q.contains("-monitor unix:/tmp/mon,server=on,wait=off -net none"),
            "{q}"
        );
        assert!(
            q.ends_with(
                "-chardev pty,id=con,logfile=/w/a,,b.log -serial chardev:con -S -gdb tcp::4321"
            ),
            "{q}"
        );
    }
}
